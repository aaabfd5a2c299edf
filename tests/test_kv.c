/*
 * test_kv.c - structured fields of a call (docs/fields.md 1): every type
 * reaches the sink's entry with its exact value, strings are cut at
 * LLOG_FIELD_STR_MAX on a UTF-8 boundary and flagged, 32 pairs, every
 * level's macro, nothing evaluated below the level, fields_truncated and
 * its statistics counter; through the flusher and through a sink's own
 * thread (sinkq.c's deep copy).
 */
#define _GNU_SOURCE
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "kvsink.h"
#include "llog.h"

static struct kvsink sink;
static int own_thread; /* the sink on a thread of its own */

static int setup(void **state)
{
	struct llog_config cfg = {0};

	(void)state;
	cfg.level = LLOG_TRACE;
	assert_int_equal(kvsink_add(&sink, own_thread), 0);
	assert_int_equal(llog_init(&cfg), 0);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	llog_shutdown();
	kvsink_reset(&sink);
	return 0;
}

static const struct kv_entry *last(void)
{
	llog_flush();
	assert_true(sink.n > 0);
	return &sink.e[sink.n - 1];
}

static void test_types(void **state)
{
	const char *nul = NULL;
	char buf[] = "mutable";
	const unsigned char raw[] = {0x0a, 0x1b, 0xff};
	int64_t imin = INT64_MIN;
	uint64_t umax = UINT64_MAX;
	const struct kv_entry *k;
	const struct kv_field *f;

	(void)state;
	/* Twice: the site's second call takes the fast path
	 * (liblog/producer.c); its record must be the first's. */
	for (int round = 0; round < 2; round++) {
		LOG_INFO_KV(("imin", imin, "umax", umax, "negzero", -0.0, "nan", (double)NAN,
			     "inf", (double)INFINITY, "ninf", -(double)INFINITY, "t", (_Bool)1,
			     "f", (bool)false, "null", nul, "empty", "", "chr", 'x', "short", (short)-7,
			     "uch", (unsigned char)200, "flt", 1.5f, "arr", buf, "int", -42,
			     "hex", LLOG_HEX(raw, sizeof(raw))),
			    "types %d", 1);
		k = last();
		assert_string_equal(k->msg, "types 1");
		assert_int_equal(k->nfields, 17);
		assert_int_equal(k->fields_truncated, 0);
		/* call order kept */
		assert_string_equal(k->f[0].key, "imin");
		assert_string_equal(k->f[15].key, "int");
		assert_string_equal(k->f[16].key, "hex");

		f = kv_get(k, "imin");
		assert_int_equal(f->type, LLOG_FIELD_I64);
		assert_true(f->i64 == INT64_MIN);
		f = kv_get(k, "umax");
		assert_int_equal(f->type, LLOG_FIELD_U64);
		assert_true(f->u64 == UINT64_MAX);
		f = kv_get(k, "negzero");
		assert_int_equal(f->type, LLOG_FIELD_F64);
		assert_true(f->f64 == 0.0 && signbit(f->f64));
		f = kv_get(k, "nan");
		assert_int_equal(f->type, LLOG_FIELD_F64);
		assert_true(isnan(f->f64));
		f = kv_get(k, "inf");
		assert_true(f->type == LLOG_FIELD_F64 && isinf(f->f64) && f->f64 > 0);
		f = kv_get(k, "ninf");
		assert_true(f->type == LLOG_FIELD_F64 && isinf(f->f64) && f->f64 < 0);
		f = kv_get(k, "t");
		assert_true(f->type == LLOG_FIELD_BOOL && f->b == 1);
		f = kv_get(k, "f");
		assert_true(f->type == LLOG_FIELD_BOOL && f->b == 0);
		f = kv_get(k, "null");
		assert_int_equal(f->type, LLOG_FIELD_NULL);
		f = kv_get(k, "empty");
		assert_int_equal(f->type, LLOG_FIELD_STR);
		assert_int_equal(f->str_len, 0);
		assert_string_equal(f->str, "");
		assert_int_equal(f->flags, 0);
		f = kv_get(k, "chr"); /* char is an integer (docs/fields.md 1) */
		assert_true(f->type == LLOG_FIELD_I64 && f->i64 == 'x');
		f = kv_get(k, "short");
		assert_true(f->type == LLOG_FIELD_I64 && f->i64 == -7);
		f = kv_get(k, "uch");
		assert_true(f->type == LLOG_FIELD_U64 && f->u64 == 200);
		f = kv_get(k, "flt");
		assert_true(f->type == LLOG_FIELD_F64 && f->f64 == 1.5);
		f = kv_get(k, "arr");
		assert_true(f->type == LLOG_FIELD_STR);
		assert_string_equal(f->str, "mutable");
		f = kv_get(k, "int");
		assert_true(f->type == LLOG_FIELD_I64 && f->i64 == -42);
		f = kv_get(k, "hex"); /* the digits, made by the flusher once */
		assert_int_equal(f->type, LLOG_FIELD_STR);
		assert_int_equal(f->flags, LLOG_FIELD_HEX);
		assert_string_equal(f->str, "0a1bff");
	}
}

static void test_long_strings(void **state)
{
	static char utf8[2001], ascii[2001];
	struct llog_stats before, after;
	const struct kv_entry *k;
	const struct kv_field *f;
	size_t n = 0;

	(void)state;
	/* "a" then U+20AC (3 bytes: e2 82 ac) 666 times, then "b": 2000
	 * bytes. */
	utf8[n++] = 'a';
	for (int i = 0; i < 666; i++) {
		utf8[n++] = (char)0xe2;
		utf8[n++] = (char)0x82;
		utf8[n++] = (char)0xac;
	}
	utf8[n++] = 'b';
	utf8[n] = '\0';
	assert_int_equal(n, 2000);
	memset(ascii, 'x', 2000);
	/* Twice: the second call takes the fast path (liblog/producer.c). */
	for (int round = 0; round < 2; round++) {
		llog_get_stats(&before);
		LOG_WARN_KV(("u", utf8, "a", ascii, "ok", "short"), "long");
		k = last();
		llog_get_stats(&after);
		f = kv_get(k, "u");
		/* 1 + 3 * 341 = 1024: the first 1024 bytes end exactly after
		 * the 341st sign, so no character is split there. */
		assert_int_equal(f->str_len, 1024);
		assert_memory_equal(f->str, utf8, 1024);
		assert_int_equal(f->flags, LLOG_FIELD_TRUNCATED);
		f = kv_get(k, "a");
		assert_int_equal(f->str_len, LLOG_FIELD_STR_MAX);
		assert_int_equal(f->flags, LLOG_FIELD_TRUNCATED);
		f = kv_get(k, "ok");
		assert_int_equal(f->flags, 0);
		assert_string_equal(f->str, "short");
		assert_int_equal(k->fields_truncated, 2);
		assert_int_equal(after.fields_truncated - before.fields_truncated, 2);
	}

	/* Shifted by one byte ("ab" first): byte 1024 is now the last byte
	 * of the 341st sign (offsets 1022..1024), so that sign goes: 1022. */
	memmove(utf8 + 1, utf8, 1999);
	utf8[0] = 'a';
	utf8[1] = 'b';
	utf8[2000] = '\0';
	LOG_INFO_KV(("u", utf8), "shifted");
	k = last();
	f = kv_get(k, "u");
	assert_int_equal(f->str_len, 1022);
	assert_memory_equal(f->str, utf8, 1022);
	assert_int_equal(f->flags, LLOG_FIELD_TRUNCATED);
	assert_int_equal(k->fields_truncated, 1);
}

#define P8(b) "k" #b "0", b##0, "k" #b "1", b##1, "k" #b "2", b##2, "k" #b "3", b##3, \
	      "k" #b "4", b##4, "k" #b "5", b##5, "k" #b "6", b##6, "k" #b "7", b##7

static void test_32_pairs(void **state)
{
	int a0 = 0, a1 = 1, a2 = 2, a3 = 3, a4 = 4, a5 = 5, a6 = 6, a7 = 7;
	int b0 = 8, b1 = 9, b2 = 10, b3 = 11, b4 = 12, b5 = 13, b6 = 14, b7 = 15;
	int c0 = 16, c1 = 17, c2 = 18, c3 = 19, c4 = 20, c5 = 21, c6 = 22, c7 = 23;
	int d0 = 24, d1 = 25, d2 = 26, d3 = 27, d4 = 28, d5 = 29, d6 = 30, d7 = 31;
	const struct kv_entry *k;

	(void)state;
	LOG_ERROR_KV((P8(a), P8(b), P8(c), P8(d)), "thirty-two");
	k = last();
	assert_int_equal(k->nfields, 32);
	assert_int_equal(k->fields_truncated, 0);
	for (int i = 0; i < 32; i++) {
		char key[16];

		snprintf(key, sizeof(key), "k%c%d", "abcd"[i / 8], i % 8);
		assert_string_equal(k->f[i].key, key);
		assert_int_equal(k->f[i].type, LLOG_FIELD_I64);
		assert_int_equal(k->f[i].i64, i);
	}
}

static int calls;
static int counted(int v)
{
	calls++;
	return v;
}

static void test_levels(void **state)
{
	volatile int never = 0;
	size_t n0;

	(void)state;
	n0 = (llog_flush(), sink.n);
	LOG_TRACE_KV(("l", 0), "trace");
	LOG_DEBUG_KV(("l", 1), "debug");
	LOG_INFO_KV(("l", 2), "info");
	LOG_WARN_KV(("l", 3), "warn");
	LOG_ERROR_KV(("l", 4), "error");
	LOG_KV(LLOG_INFO, ("l", 5), "kv");
	LLOG_LOG_INFO_KV(("l", 6), "prefixed");
	LLOG_LOG_KV(LLOG_WARN, ("l", 7), "prefixed kv");
	LLOG_LOG_TRACE_KV(("l", 8), "t");
	LLOG_LOG_DEBUG_KV(("l", 9), "d");
	LLOG_LOG_WARN_KV(("l", 10), "w");
	LLOG_LOG_ERROR_KV(("l", 11), "e");
	if (never) {
		LOG_FATAL_KV(("l", 99), "fatal");
		LLOG_LOG_FATAL_KV(("l", 99), "fatal");
	}
	llog_flush();
	assert_int_equal(sink.n - n0, 12);
	static const int lv[12] = {LLOG_TRACE, LLOG_DEBUG, LLOG_INFO, LLOG_WARN, LLOG_ERROR,
				   LLOG_INFO, LLOG_INFO, LLOG_WARN, LLOG_TRACE, LLOG_DEBUG,
				   LLOG_WARN, LLOG_ERROR};
	for (int i = 0; i < 12; i++) {
		const struct kv_entry *k = &sink.e[n0 + (size_t)i];

		assert_int_equal(k->level, lv[i]);
		assert_int_equal(k->nfields, 1);
		assert_int_equal(k->f[0].i64, i);
	}

	/* Below the level: neither the arguments nor the values. */
	llog_set_level(LLOG_WARN);
	calls = 0;
	LOG_INFO_KV(("v", counted(1)), "%d", counted(2));
	LOG_KV(LLOG_DEBUG, ("v", counted(1), "w", counted(3)), "%d", counted(2));
	assert_int_equal(calls, 0);
	LOG_WARN_KV(("v", counted(1)), "%d", counted(2));
	assert_int_equal(calls, 2);
	llog_set_level(LLOG_TRACE);
	llog_flush();
	assert_int_equal(sink.n - n0, 13);
	assert_string_equal(sink.e[sink.n - 1].msg, "2");
	assert_int_equal(sink.e[sink.n - 1].f[0].i64, 1);
}

/* A rate-limited count and fields in one record do not collide, and a
 * plain LOG has no fields. */
/* A key repeated in one call: the first value kept, the others left out
 * and counted (every output then agrees on one value). */
static void test_repeated_key(void **state)
{
	const struct kv_entry *k;
	size_t n0;

	(void)state;
	n0 = (llog_flush(), sink.n);
	LOG_INFO_KV(("status", 200, "x", 1, "status", 500, "status", "s"), "dup");
	llog_flush();
	assert_int_equal(sink.n - n0, 1);
	k = &sink.e[n0];
	assert_int_equal(k->nfields, 2);
	assert_string_equal(k->f[0].key, "status");
	assert_int_equal(k->f[0].type, LLOG_FIELD_I64);
	assert_int_equal(k->f[0].i64, 200);
	assert_string_equal(k->f[1].key, "x");
	assert_int_equal(k->f[1].i64, 1);
	assert_int_equal(k->fields_truncated, 2);
}

static void test_plain(void **state)
{
	const struct kv_entry *k;

	(void)state;
	LOG_INFO("plain %s", "x");
	k = last();
	assert_int_equal(k->nfields, 0);
	assert_int_equal(k->fields_truncated, 0);
	assert_string_equal(k->msg, "plain x");
	LOG_INFO_KV(("s", "str %d"), "with %s and %d", "args", 5);
	k = last();
	assert_string_equal(k->msg, "with args and 5");
	assert_string_equal(k->f[0].str, "str %d");
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test_setup_teardown(test_types, setup, teardown),
	cmocka_unit_test_setup_teardown(test_long_strings, setup, teardown),
	cmocka_unit_test_setup_teardown(test_32_pairs, setup, teardown),
	cmocka_unit_test_setup_teardown(test_levels, setup, teardown),
	cmocka_unit_test_setup_teardown(test_repeated_key, setup, teardown),
	cmocka_unit_test_setup_teardown(test_plain, setup, teardown),
};

int main(void)
{
	int rc = cmocka_run_group_tests_name("flusher sink", tests, NULL, NULL);

	own_thread = 1; /* the same through a sink's queue (sinkq.c) */
	return rc | cmocka_run_group_tests_name("own-thread sink", tests, NULL, NULL);
}
