/*
 * test_kv_bound.c - a call's fields never make a record that the ring
 * cannot take: with the smallest arena (16 KiB) and the
 * largest record bound it allows (4 KiB), a call with a message of the
 * full bound and fields of the full bound, logged at every ring offset,
 * under BLOCK: every call returns (an alarm fails the test if one waits for
 * ever), every record is written once, in order, with the fields that fit
 * and the rest counted in fields_truncated (a call whose first field is a
 * NULL string too: the entry's general path).
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "arena.h"
#include "kvsink.h"
#include "testutil.h"

#define ROUNDS 60

static struct kvsink sink;

static void on_alarm(int sig)
{
	static const char m[] = "test_kv_bound: a LOG_INFO_KV call waited for ever\n";

	(void)sig;
	(void)!write(2, m, sizeof(m) - 1);
	_exit(1);
}

static void test_big_fields_every_offset(void **state)
{
	static char big[5000], s1[1025], s2[952];
	struct llog_config c = {.level = LLOG_TRACE};
	const struct llog__arena *a;
	size_t n = 0;
	unsigned window = 0;

	(void)state;
	memset(big, 'm', sizeof(big) - 1);
	memset(s1, 'a', sizeof(s1) - 1);
	memset(s2, 'b', sizeof(s2) - 1);
	c.arena_bytes = 16384;
	c.max_record_bytes = 4096;
	c.overflow = LLOG_OVERFLOW_BLOCK;
	assert_int_equal(kvsink_add(&sink, 0), 0);
	assert_int_equal(llog_init(&c), 0);
	signal(SIGALRM, on_alarm);
	alarm(30);
	LOG_INFO("small %d", 0);
	a = llog__tls_arena;
	assert_non_null(a);
	for (int i = 0; i < ROUNDS; i++) {
		unsigned off = (unsigned)(llog__owner()->reserve & llog__owner()->mask);

		/* Every third call right at the middle of the ring, where a
		 * record over half the ring finds no room; the others
		 * wherever the small records leave it. */
		for (int k = 0; k < 10000 && (i % 3 != 0 ? k < i % 17 :
					     off + 64 < llog__owner()->size / 2 || off > llog__owner()->size / 2 + 64);
		     k++) {
			LOG_INFO("small %d", k);
			off = (unsigned)(llog__owner()->reserve & llog__owner()->mask);
		}
		window += off + 64 >= llog__owner()->size / 2 && off <= llog__owner()->size / 2 + 64;
		LOG_INFO_KV(("a", (const char *)s1, "b", (const char *)s1, "c", (const char *)s1,
			     "d", (const char *)s2, "i", i),
			    "%s", big);
		/* The same with a NULL string first: the entry's general
		 * path (kv.c call_fields_any) counts the fields left out too */
		LOG_INFO_KV(("n", (const char *)NULL, "a", (const char *)s1, "b",
			     (const char *)s1, "c", (const char *)s1, "d", (const char *)s2, "i", i),
			    "%s", big);
	}
	alarm(0);
	llog_shutdown();
	assert_true(window > 0); /* the sweep reached the dangerous offsets */
	for (size_t j = 0; j < sink.n; j++) {
		const struct kv_entry *e = &sink.e[j];

		if (e->nfields == 0) {
			assert_int_equal(strncmp(e->msg, "small", 5), 0);
			continue;
		}
		n++;
		if (strcmp(e->f[0].key, "n") == 0) { /* the second call: "n" = null, then "a" .. */
			assert_int_equal(e->f[0].type, LLOG_FIELD_NULL);
			assert_true(e->nfields >= 2 && e->nfields < 6);
			assert_string_equal(e->f[1].key, "a");
			assert_int_equal(e->nfields + e->fields_truncated, 6);
			continue;
		}
		/* Fields come first to last while they fit: "a", "b", ... */
		assert_string_equal(e->f[0].key, "a");
		assert_int_equal(e->f[0].str_len, 1024);
		assert_int_equal(e->nfields + e->fields_truncated, 5);
	}
	assert_int_equal(n, 2 * ROUNDS);
	kvsink_reset(&sink);
}

TEST_MAIN(
	cmocka_unit_test(test_big_fields_every_offset),
)
