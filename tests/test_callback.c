/*
 * test_callback.c - the callback sink: every entry arrives once, in order,
 * with its fields, below-level entries are filtered, on_commit runs; a
 * callback that calls LOG neither deadlocks nor recurses, and each such
 * record is counted in stats.dropped; a NULL on_entry is refused.
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
#include "testutil.h"

#define N 20000

struct seen {
	long n;
	long next;        /* next expected i */
	long bad;         /* out of order or malformed */
	long commits;
	int log_inside;   /* call LOG_INFO from the callback */
	long logged_inside;
	uint64_t last_seq;
};

static void on_entry(void *user, const struct llog_entry *e)
{
	struct seen *s = user;
	char buf[64];
	long i;

	copy_cut(buf, sizeof(buf), e->msg, e->msg_len);
	if (sscanf(buf, "cb i=%ld", &i) != 1 || i != s->next || e->level != LLOG_INFO ||
	    e->seq <= s->last_seq || e->line <= 0 || strstr(e->file, "test_callback") == NULL ||
	    strcmp(e->func, "log_all") != 0 || e->tid == 0)
		s->bad++;
	s->next = i + 1;
	s->last_seq = e->seq;
	s->n++;
	if (s->log_inside) {
		LOG_INFO("from inside the callback %ld", i);
		s->logged_inside++;
	}
}

static void on_commit(void *user)
{
	((struct seen *)user)->commits++;
}

static void log_all(long n)
{
	for (long i = 0; i < n; i++) {
		LOG_DEBUG("filtered %ld", i);
		LOG_INFO("cb i=%ld", i);
		if (i % 1000 == 999)
			llog_flush();
	}
}

static void run(struct seen *s)
{
	struct llog_callback_options o = {.on_entry = on_entry, .on_commit = on_commit,
					  .user = s, .level = LLOG_INFO};
	struct llog_config cfg = {.flush_interval_ms = 10};
	struct llog_sink *sink = llog_callback_sink(&o);

	assert_non_null(sink);
	assert_int_equal(llog_add_sink(sink), 0);
	assert_int_equal(llog_init(&cfg), 0);
	log_all(N);
	llog_shutdown();
}

static void test_every_entry_in_order(void **state)
{
	struct seen s = {0};

	(void)state;
	run(&s);
	assert_int_equal(s.n, N);
	assert_int_equal(s.next, N);
	assert_int_equal(s.bad, 0);
	assert_true(s.commits >= N / 1000);
}

static void test_callback_that_logs(void **state)
{
	struct seen s = {.log_inside = 1};
	struct llog_stats before, after;

	(void)state;
	llog_get_stats(&before);
	run(&s);
	llog_get_stats(&after);
	assert_int_equal(s.n, N);
	assert_int_equal(s.bad, 0);
	assert_int_equal(s.logged_inside, N);
	assert_int_equal(after.dropped - before.dropped, (uint64_t)N);
}

static long final_round_entries;

static void log_from_callback(void *user, const struct llog_entry *e)
{
	(void)user;
	(void)e;
	final_round_entries++;
	LOG_INFO("from inside the callback, in the final round");
}

/* The one record reaches the callback in llog_shutdown's final round (a
 * long interval, and nothing wakes the flusher earlier), when the list is
 * closed already: the LOG in the callback is dropped and counted there too,
 * not written to stderr behind the sinks' backs. */
static void test_callback_logs_in_final_round(void **state)
{
	struct llog_callback_options o = {.on_entry = log_from_callback};
	struct llog_config cfg = {.flush_interval_ms = 60000};
	struct llog_stats before, after;

	(void)state;
	final_round_entries = 0;
	assert_int_equal(llog_add_sink(llog_callback_sink(&o)), 0);
	assert_int_equal(llog_init(&cfg), 0);
	/* A round has run (the barrier's) and the flusher sleeps for 60 s:
	 * the record below waits for the final round. */
	llog_flush();
	llog_get_stats(&before);
	LOG_INFO("the only record");
	llog_shutdown();
	llog_get_stats(&after);
	assert_int_equal(final_round_entries, 1);
	assert_int_equal(after.written - before.written, 1);
	assert_int_equal(after.dropped - before.dropped, 1);
	assert_int_equal(after.logged - before.logged, 2);
}

static long got_by[16];

static void count_for(void *user, const struct llog_entry *e)
{
	(void)e;
	got_by[(intptr_t)user]++;
}

/* At most 16 sinks, whether added before llog_init or while it runs: the
 * 17th is refused (-ENOSPC) and closed, never accepted and lost. */
static void test_seventeenth_sink_refused(void **state)
{
	struct llog_callback_options o = {.on_entry = count_for};

	(void)state;
	memset(got_by, 0, sizeof(got_by));
	for (intptr_t i = 0; i < 8; i++) {
		o.user = (void *)i;
		assert_int_equal(llog_add_sink(llog_callback_sink(&o)), 0);
	}
	assert_int_equal(llog_init(NULL), 0);
	for (intptr_t i = 8; i < 16; i++) {
		o.user = (void *)i;
		assert_int_equal(llog_add_sink(llog_callback_sink(&o)), 0);
	}
	o.user = (void *)0;
	assert_int_equal(llog_add_sink(llog_callback_sink(&o)), -ENOSPC);
	LOG_INFO("to every sink");
	llog_shutdown();
	for (int i = 0; i < 16; i++)
		assert_int_equal(got_by[i], 1);
	/* and before llog_init */
	for (intptr_t i = 0; i < 16; i++)
		assert_int_equal(llog_add_sink(llog_callback_sink(&o)), 0);
	assert_int_equal(llog_add_sink(llog_callback_sink(&o)), -ENOSPC);
	assert_int_equal(llog_init(NULL), 0);
	llog_shutdown();
}

static void test_refuses_null(void **state)
{
	struct llog_callback_options o = {0};

	(void)state;
	errno = 0;
	assert_null(llog_callback_sink(&o));
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_null(llog_callback_sink(NULL));
	assert_int_equal(errno, EINVAL);
}

TEST_MAIN(
	cmocka_unit_test(test_every_entry_in_order),
	cmocka_unit_test(test_callback_that_logs),
	cmocka_unit_test(test_callback_logs_in_final_round),
	cmocka_unit_test(test_seventeenth_sink_refused),
	cmocka_unit_test(test_refuses_null),
)
