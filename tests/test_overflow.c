/*
 * test_overflow.c - full arenas. BLOCK: 8 producers on a 16 KiB arena lose
 * nothing and keep order. DROP: written + dropped == logged exactly, the
 * drop notices account for every dropped record, and what was written is
 * still in per-thread order with no duplicates.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "llog.h"
#include "memsink.h"

#define THREADS 8
#define PER_THREAD 50000

struct tally {
	long next[THREADS];
	long got[THREADS];
	long bad;
	long notices;
	long noted_drops;
	long other;
};

static void tally_hook(struct memsink *m, const struct llog_entry *e)
{
	struct tally *t = m->user;
	char buf[128];
	size_t k = e->msg_len < sizeof(buf) - 1 ? e->msg_len : sizeof(buf) - 1;
	unsigned long long tid;
	unsigned n;
	int th;
	long s;

	memcpy(buf, e->msg, k);
	buf[k] = '\0';
	if (sscanf(buf, "llog: thread %llu dropped %u records", &tid, &n) == 2) {
		t->notices++;
		t->noted_drops += n;
		return;
	}
	if (sscanf(buf, "th=%d seq=%ld", &th, &s) != 2 || th < 0 || th >= THREADS) {
		t->other++;
		return;
	}
	/* strictly increasing per thread: order kept, no duplicate */
	if (s < t->next[th])
		t->bad++;
	t->next[th] = s + 1;
	t->got[th]++;
}

static void *producer(void *arg)
{
	int th = (int)(intptr_t)arg;
	/* a longer payload fills the 16 KiB ring in a few dozen records */
	static const char pad[] = "................................................";

	for (long i = 0; i < PER_THREAD; i++)
		LOG_INFO("th=%d seq=%ld %s", th, i, pad);
	return NULL;
}

static void run(enum llog_overflow policy, struct tally *t, struct llog_stats *delta)
{
	struct memsink *m = memsink_new(LLOG_TRACE);
	struct llog_config cfg = {.arena_bytes = 16 * 1024, .overflow = policy,
				  .flush_interval_ms = 5};
	struct llog_stats before, after;
	pthread_t th[THREADS];

	m->hook = tally_hook;
	m->nostore = 1;
	m->user = t;
	llog_get_stats(&before);
	assert_int_equal(memsink_start(m, &cfg), 0);
	for (int i = 0; i < THREADS; i++)
		assert_int_equal(pthread_create(&th[i], NULL, producer, (void *)(intptr_t)i), 0);
	for (int i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
	/* the producers have exited: their exit records carry any drops not
	 * yet reported */
	llog_shutdown();
	llog_get_stats(&after);
	delta->logged = after.logged - before.logged;
	delta->written = after.written - before.written;
	delta->dropped = after.dropped - before.dropped;
	delta->blocked = after.blocked - before.blocked;
	memsink_free(m);
}

static void test_block_loses_nothing(void **state)
{
	struct tally t;
	struct llog_stats d;

	(void)state;
	memset(&t, 0, sizeof(t));
	run(LLOG_OVERFLOW_BLOCK, &t, &d);
	for (int i = 0; i < THREADS; i++) {
		assert_int_equal(t.got[i], PER_THREAD);
		assert_int_equal(t.next[i], PER_THREAD);
	}
	assert_int_equal(t.bad, 0);
	assert_int_equal(t.other, 0);
	assert_int_equal(t.notices, 0);
	assert_int_equal(d.dropped, 0);
	assert_int_equal(d.written, (uint64_t)THREADS * PER_THREAD);
	/* the ring is tiny: producers must actually have waited */
	assert_true(d.blocked > 0);
}

static void test_drop_counts_exactly(void **state)
{
	struct tally t;
	struct llog_stats d;
	long got = 0;

	(void)state;
	memset(&t, 0, sizeof(t));
	run(LLOG_OVERFLOW_DROP, &t, &d);
	for (int i = 0; i < THREADS; i++)
		got += t.got[i];
	assert_int_equal(t.bad, 0);
	assert_int_equal(t.other, 0);
	assert_int_equal(d.logged, (uint64_t)THREADS * PER_THREAD);
	assert_int_equal(d.written + d.dropped, d.logged);
	assert_int_equal((uint64_t)got, d.written);
	/* every dropped record is announced in the output */
	assert_int_equal((uint64_t)t.noted_drops, d.dropped);
	print_message("drop policy: %llu written, %llu dropped in %ld notices\n",
		      (unsigned long long)d.written, (unsigned long long)d.dropped, t.notices);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_block_loses_nothing),
		cmocka_unit_test(test_drop_counts_exactly),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
