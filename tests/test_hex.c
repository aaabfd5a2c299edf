/*
 * test_hex.c - a buffer's bytes as a field (LLOG_HEX, llog.h): copied at
 * the call (the buffer changed right after it does not change the record),
 * written as two lowercase hex digits a byte by the flusher, the same
 * digits in a zstd text file, a JSON file, RFC 5424 structured data at a
 * real rsyslogd over TCP and a callback sink (which sees the flags); an
 * empty buffer, a NULL one, one over LLOG_HEX_MAX (cut and flagged), a
 * context value and a scope that restores it; a call block read twice; the
 * fast path's one-pass call block against the two passes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "llog.h"
#include "llog/sinks.h"
#include "kv.h"
#include "outputs3.h"
#include "testutil.h"

#define APP "lloghex"
#define LONG_N (LLOG_HEX_MAX + 88)

/* ---- a callback sink: each record's fields, as "key=type/flags/value;" */

static char mem[16384];
static size_t mem_len;

static void put(const char *s, size_t n)
{
	if (mem_len + n + 1 > sizeof(mem))
		abort();
	memcpy(mem + mem_len, s, n);
	mem_len += n;
	mem[mem_len] = '\0';
}

/* Flusher thread only; read after llog_shutdown (its join orders it). */
static void on_entry(void *user, const struct llog_entry *e)
{
	char h[64];

	(void)user;
	put(e->msg, e->msg_len);
	put(":", 1);
	for (size_t i = 0; i < e->nfields; i++) {
		const struct llog_field *f = &e->fields[i];

		put(f->key, f->key_len);
		put("=", 1);
		put(h, (size_t)snprintf(h, sizeof(h), "%d/%u/", (int)f->type, f->flags));
		if (f->type == LLOG_FIELD_STR)
			put(f->v.str.ptr, f->v.str.len);
		put(";", 1);
	}
	put("\n", 1);
}

/* The hex digits of the first n bytes of the long buffer (b[i] = i * 7). */
static void long_digits(char *out, size_t n)
{
	static const char d[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		unsigned char b = (unsigned char)(i * 7);

		out[2 * i] = d[b >> 4];
		out[2 * i + 1] = d[b & 15];
	}
	out[2 * n] = '\0';
}

/* Logs the records every output is checked for. */
static void log_all(void)
{
	unsigned char buf[5] = {0x00, 0x0a, 0x7f, 0x80, 0xff};
	static unsigned char big[LONG_N];

	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = (unsigned char)(i * 7);
	LOG_INFO_KV(("frame", LLOG_HEX(buf, sizeof(buf)), "n", 5), "h=bytes");
	/* copied at the call: the flusher must not see this */
	memset(buf, 0xee, sizeof(buf));
	LOG_INFO_KV(("frame", LLOG_HEX(buf, 0)), "h=empty");
	LOG_INFO_KV(("frame", LLOG_HEX(NULL, 3)), "h=null");
	{
		const struct llog_hex *none = NULL; /* from a helper that found nothing */

		LOG_INFO_KV(("frame", none), "h=nullstruct");
	}
	LOG_INFO_KV(("frame", LLOG_HEX(big, sizeof(big))), "h=long");
	{
		static const unsigned char id[4] = {0xde, 0xad, 0xbe, 0xef};

		LLOG_CTX_SCOPE("req", LLOG_HEX(id, sizeof(id)));
		LOG_INFO("h=ctx");
		{
			LLOG_CTX_SCOPE("req", 7);
			LOG_INFO("h=inner");
		}
		LOG_INFO("h=restored"); /* the hex value again, with its flag */
	}
	LOG_INFO("h=none");
}

static struct rsyslogd rs;

static void test_outputs(void **state)
{
	struct llog_callback_options co = {.on_entry = on_entry};
	static char digits[2 * LLOG_HEX_MAX + 1], want[2 * LLOG_HEX_MAX + 64];
	struct outputs3 o;
	char *s;

	(void)state;
	outputs3_make(&o, &rs, "llog_hex_", APP);
	mem_len = 0;
	assert_int_equal(llog_add_sink(llog_file_sink(&o.text)), 0);
	assert_int_equal(llog_add_sink(llog_file_sink(&o.json)), 0);
	assert_int_equal(llog_add_sink(llog_syslog_sink(&o.so)), 0);
	assert_int_equal(llog_add_sink(llog_callback_sink(&co)), 0);
	assert_int_equal(llog_init(&(struct llog_config){.flush_interval_ms = 10}), 0);
	log_all();
	llog_shutdown();
	long_digits(digits, LLOG_HEX_MAX);

	/* the callback: STR (5) with LLOG_FIELD_HEX (2), and TRUNCATED (1) */
	assert_non_null(strstr(mem, "h=bytes:frame=5/2/000a7f80ff;n=1/0/;\n"));
	assert_non_null(strstr(mem, "h=empty:frame=5/2/;\n"));
	assert_non_null(strstr(mem, "h=null:frame=0/0/;\n"));
	assert_non_null(strstr(mem, "h=nullstruct:frame=0/0/;\n"));
	snprintf(want, sizeof(want), "h=long:frame=5/3/%s;\n", digits);
	assert_non_null(strstr(mem, want));
	assert_non_null(strstr(mem, "h=ctx:req=5/2/deadbeef;\n"));
	assert_non_null(strstr(mem, "h=inner:req=1/0/;\n"));
	assert_non_null(strstr(mem, "h=restored:req=5/2/deadbeef;\n"));
	assert_non_null(strstr(mem, "h=none:\n"));
	assert_int_equal(count_of(mem, "eeeeeeeeee"), 0);

	/* the text file: quoted digits, a cut value followed by "..." */
	s = read_zstdcat(&o.t);
	assert_int_equal(count_of(s, "h=bytes\tframe=\"000a7f80ff\" n=5\n"), 1);
	assert_int_equal(count_of(s, "h=empty\tframe=\"\"\n"), 1);
	assert_int_equal(count_of(s, "h=null\tframe=null\n"), 1);
	snprintf(want, sizeof(want), "h=long\tframe=\"%s\"...\n", digits);
	assert_int_equal(count_of(s, want), 1);
	assert_int_equal(count_of(s, "h=ctx\treq=\"deadbeef\"\n"), 1);
	assert_int_equal(count_of(s, "h=restored\treq=\"deadbeef\"\n"), 1);
	free(s);

	/* the JSON file */
	s = slurp(o.json_path, NULL);
	assert_non_null(s);
	assert_int_equal(count_of(s, "\"msg\":\"h=bytes\",\"fields\":{\"frame\":\"000a7f80ff\",\"n\":5}"), 1);
	assert_int_equal(count_of(s, "\"msg\":\"h=empty\",\"fields\":{\"frame\":\"\"}"), 1);
	assert_int_equal(count_of(s, "\"msg\":\"h=null\",\"fields\":{\"frame\":null}"), 1);
	snprintf(want, sizeof(want), "\"frame\":\"%s\"}", digits);
	assert_int_equal(count_of(s, want), 1);
	assert_int_equal(count_of(s, "\"msg\":\"h=ctx\",\"fields\":{\"req\":\"deadbeef\"}"), 1);
	free(s);

	/* RFC 5424 structured data, as rsyslogd received it */
	if ((s = rsyslogd_wait_output(&rs, "|h=", 9, 30000)) == NULL)
		fail_msg("%s", rs.why);
	assert_int_equal(count_of(s, "[fields@32473 frame=\"000a7f80ff\" n=\"5\"]|h=bytes"), 1);
	assert_int_equal(count_of(s, "[fields@32473 frame=\"\"]|h=empty"), 1);
	assert_int_equal(count_of(s, "[fields@32473 frame=\"null\"]|h=null\n"), 1);
	assert_int_equal(count_of(s, "[fields@32473 frame=\"null\"]|h=nullstruct\n"), 1);
	snprintf(want, sizeof(want), "[fields@32473 frame=\"%s\"]|h=long", digits);
	assert_int_equal(count_of(s, want), 1);
	assert_int_equal(count_of(s, "[fields@32473 req=\"deadbeef\"]|h=ctx"), 1);
	free(s);
	tdir_remove(&o.t);
}

/* llog_ctx_set_hex directly: NULL is a NULL field; a long one is cut. */
static void test_ctx_set_hex(void **state)
{
	static unsigned char big[LONG_N];
	static char digits[2 * LLOG_HEX_MAX + 1], want[2 * LLOG_HEX_MAX + 64];
	struct llog_callback_options co = {.on_entry = on_entry};

	(void)state;
	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = (unsigned char)(i * 7);
	mem_len = 0;
	assert_int_equal(llog_add_sink(llog_callback_sink(&co)), 0);
	assert_int_equal(llog_init(NULL), 0);
	assert_int_equal(llog_ctx_set_hex("b", big, sizeof(big)), 0);
	LOG_INFO("c=long");
	assert_int_equal(llog_ctx_set_hex("b", NULL, 4), 0);
	LOG_INFO("c=null");
	assert_int_equal(llog_ctx_set_hex("b", big, 1), 0);
	LOG_INFO("c=one");
	assert_int_equal(llog_ctx_set_hex(NULL, big, 1), -EINVAL);
	llog_shutdown();
	long_digits(digits, LLOG_HEX_MAX);
	snprintf(want, sizeof(want), "c=long:b=5/3/%s;\n", digits);
	assert_non_null(strstr(mem, want));
	assert_non_null(strstr(mem, "c=null:b=0/0/;\n"));
	assert_non_null(strstr(mem, "c=one:b=5/2/00;\n"));
}

/* A call block read twice (a record's entry is built again after a
 * fault, or for the backtrace and then the sinks): the digits are made
 * once, and every reading sees them. */
static void test_read_twice(void **state)
{
	static const char *const keys[] = {"a", "b"};
	static const unsigned char types[] = {LLOG__KV_HEX, LLOG__KV_HEX};
	const struct llog__kv_site ks = {2, keys, types, NULL}; /* no klens: as an older llog.h made it */
	unsigned char b1[3] = {1, 0xab, 0xff}, b2[1] = {0x10};
	union llog__kv_val v[2];
	uint64_t block[64];
	uint32_t slen[2], nstored;
	struct llog_field out[LLOG_FIELDS_MAX];
	struct llog_entry e;

	(void)state;
	v[0] = llog__kv_hex(LLOG_HEX(b1, sizeof(b1)));
	v[1] = llog__kv_hex(LLOG_HEX(b2, sizeof(b2)));
	/* 16 (header) + per value 8 and room for its digits and a NUL,
	 * padded to 8: 3 bytes -> 8, 1 byte -> 8 */
	assert_int_equal(llog__kv_call_measure(&ks, v, sizeof(block), slen, &nstored), 48);
	assert_int_equal(nstored, 2);
	memset(block, 0xaa, sizeof(block));
	llog__kv_call_write(&ks, v, slen, nstored, block);
	for (size_t i = 48; i < sizeof(block); i++) /* the write keeps to the measure */
		assert_int_equal(((unsigned char *)block)[i], 0xaa);
	for (int k = 0; k < 2; k++) {
		memset(&e, 0, sizeof(e));
		llog__fields_entry(NULL, block, out, &e);
		assert_int_equal(e.nfields, 2);
		assert_int_equal(out[0].v.str.len, 6);
		assert_memory_equal(out[0].v.str.ptr, "01abff", 7); /* NUL-terminated */
		assert_int_equal(out[1].v.str.len, 2);
		assert_memory_equal(out[1].v.str.ptr, "10", 3);
		assert_int_equal(out[0].flags, LLOG_FIELD_HEX);
	}
}

/* llog__kv_call_put (the fast path's one pass) makes the bytes that
 * llog__kv_call_measure and llog__kv_call_write make, bytes it does not
 * write included, and keeps the same fields under every budget: every
 * type, a NULL string and hex, a string and a hex value cut. */
static void test_put_is_measure_write(void **state)
{
	static const char *const keys[] = {"i", "s", "n", "d", "h", "c", "z", "b", "x"};
	static const unsigned char types[] = {LLOG_FIELD_I64, LLOG_FIELD_STR, LLOG_FIELD_STR,
					      LLOG_FIELD_F64, LLOG__KV_HEX,   LLOG_FIELD_STR,
					      LLOG__KV_HEX,   LLOG_FIELD_BOOL, LLOG__KV_HEX};
	const struct llog__kv_site ks = {9, keys, types, NULL}; /* no klens: keys measured */
	static char longs[LLOG_FIELD_STR_MAX + 8];
	static unsigned char bytes[LLOG_HEX_MAX + 3];
	union llog__kv_val v[9];
	static uint64_t b1[512], b2[512];
	uint32_t slen[9], nstored, n, full;

	(void)state;
	memset(longs, 'a', sizeof(longs) - 1);
	/* a 2-byte character across LLOG_FIELD_STR_MAX: cut before it */
	longs[LLOG_FIELD_STR_MAX - 1] = (char)0xc3;
	longs[LLOG_FIELD_STR_MAX] = (char)0xa9;
	for (size_t k = 0; k < sizeof(bytes); k++)
		bytes[k] = (unsigned char)k;
	v[0] = llog__kv_i64(-7);
	v[1] = llog__kv_str("peer");
	v[2] = llog__kv_str(NULL);
	v[3] = llog__kv_f64(2.5);
	v[4] = llog__kv_hex(LLOG_HEX(bytes, 3));
	v[5] = llog__kv_str(longs);
	v[6] = llog__kv_hex(LLOG_HEX(NULL, 4));
	v[7] = llog__kv_bool(1);
	v[8] = llog__kv_hex(LLOG_HEX(bytes, sizeof(bytes)));
	full = llog__kv_call_measure(&ks, v, sizeof(b1), slen, &nstored);
	assert_int_equal(nstored, 9);
	for (uint32_t budget = 0; budget <= full + 8; budget++) {
		memset(b1, 0xaa, sizeof(b1));
		memset(b2, 0xaa, sizeof(b2));
		n = llog__kv_call_measure(&ks, v, budget, slen, &nstored);
		llog__kv_call_write(&ks, v, slen, nstored, b1);
		assert_int_equal(llog__kv_call_put(&ks, v, budget, b2), n);
		assert_memory_equal(b1, b2, sizeof(b1));
	}
}

static int teardown(void **state)
{
	(void)state;
	llog_shutdown();
	return rsyslogd_remove(&rs); /* nothing when none was made */
}

TEST_MAIN(
	cmocka_unit_test_teardown(test_outputs, teardown),
	cmocka_unit_test_teardown(test_ctx_set_hex, teardown),
	cmocka_unit_test(test_read_twice),
	cmocka_unit_test(test_put_is_measure_write),
)
