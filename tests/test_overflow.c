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
#include "testutil.h"

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
	unsigned long long tid;
	unsigned n;
	int th;
	long s;

	copy_cut(buf, sizeof(buf), e->msg, e->msg_len);
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

	m->hook = tally_hook;
	m->nostore = 1;
	m->user = t;
	llog_get_stats(&before);
	assert_int_equal(memsink_start(m, &cfg), 0);
	assert_int_equal(run_threads(THREADS, producer), 0);
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

/* ---- a ring made under an earlier, smaller configuration -------------- */

static pthread_barrier_t step;
static size_t big_len;
static int big_marked;

/* Logs once under the first configuration (its ring is made then: 16 KiB),
 * waits while llog restarts with a 4 MiB arena and a 1 MiB bound, then
 * logs a 500 KB string into the same ring. */
static void *keeps_its_ring(void *arg)
{
	char *big = arg;

	LOG_INFO("before the restart");
	pthread_barrier_wait(&step);
	pthread_barrier_wait(&step);
	LOG_INFO("big <%s>", big);
	return NULL;
}

static void big_hook(struct memsink *m, const struct llog_entry *e)
{
	(void)m;
	static const char marker[] = " [truncated]";

	if (e->msg_len > 5 && memcmp(e->msg, "big <", 5) == 0) {
		big_len = e->msg_len;
		big_marked = e->msg_len > sizeof(marker) &&
			     memcmp(e->msg + e->msg_len - (sizeof(marker) - 1), marker,
				    sizeof(marker) - 1) == 0;
	}
}

/* The record is bounded by the thread's ring (a quarter of it), not by the
 * new configuration: it is cut and marked instead of waiting for ever for
 * room the ring can never have. */
static void test_ring_smaller_than_new_bound(void **state)
{
	struct llog_config small = {.arena_bytes = 16 * 1024};
	struct llog_config big = {.arena_bytes = 4u << 20, .max_record_bytes = 1u << 20};
	struct memsink *m1 = memsink_new(LLOG_TRACE), *m2 = memsink_new(LLOG_TRACE);
	char *text = malloc(500 * 1000 + 1);
	pthread_t th;

	(void)state;
	assert_non_null(text);
	memset(text, 'b', 500 * 1000);
	text[500 * 1000] = '\0';
	big_len = 0;
	big_marked = 0;
	m2->hook = big_hook;
	pthread_barrier_init(&step, NULL, 2);
	assert_int_equal(memsink_start(m1, &small), 0);
	assert_int_equal(pthread_create(&th, NULL, keeps_its_ring, text), 0);
	pthread_barrier_wait(&step);
	llog_shutdown();
	assert_int_equal(memsink_start(m2, &big), 0);
	pthread_barrier_wait(&step);
	pthread_join(th, NULL);
	llog_shutdown();
	assert_int_equal(m1->n, 1);
	/* captured within a quarter of 16 KiB, 4096 bytes: the string's u32
	 * length and 4092 of its bytes (fmt.h's layout); rendered as
	 * "big <" + 4092 bytes + ">", then marked */
	assert_true(big_marked);
	assert_int_equal(big_len, 5 + 4092 + 1 + strlen(" [truncated]"));
	pthread_barrier_destroy(&step);
	memsink_free(m1);
	memsink_free(m2);
	free(text);
}

/* ---- what a thread owes before its next record ------------------------ */

/* A thread whose ring filled while the flusher was held owes the records
 * it dropped (a notice) and a context change that did not fit (its CTX
 * record, sent again): both before its next record, also when that record
 * comes from a site whose calls take the fast path (liblog/producer.c). */

static struct gate hold;
static char ctx_value[1001];
static int owed_ctx_ok = -1;  /* "r -1" carried the new context */
static long owed_notice = -1; /* the drops noted right before "r -2" */
static long owed_last_notice;

/* One site for every record of the worker (fast after its first call). */
static void log_r(int i)
{
	LOG_INFO("r %d", i);
}

static void owed_hook(struct memsink *m, const struct llog_entry *e)
{
	char buf[64];
	unsigned long long tid;
	unsigned n;

	(void)m;
	copy_cut(buf, sizeof(buf), e->msg, e->msg_len);
	if (strcmp(buf, "hold") == 0) {
		gate_pass(&hold);
	} else if (sscanf(buf, "llog: thread %llu dropped %u records", &tid, &n) == 2) {
		owed_last_notice = n;
		return;
	} else if (strcmp(buf, "r -1") == 0) {
		owed_ctx_ok = e->nfields == 1 && strcmp(e->fields[0].key, "c") == 0 &&
			      e->fields[0].v.str.len == sizeof(ctx_value) - 1 &&
			      memcmp(e->fields[0].v.str.ptr, ctx_value, sizeof(ctx_value) - 1) == 0;
	} else if (strcmp(buf, "r -2") == 0) {
		owed_notice = owed_last_notice;
	}
	owed_last_notice = 0; /* a notice counts only right before */
}

/* Holds the flusher: a record the hook waits at, the gate closed (the
 * test opens it again). */
static void hold_flusher(void)
{
	gate_init(&hold, 1);
	LOG_ERROR("hold"); /* ERROR: the flusher is woken now */
	gate_wait_held(&hold);
}

static void *owes(void *arg)
{
	(void)arg;
	log_r(0); /* the site's first call: its calls are fast from now on */
	pthread_barrier_wait(&step); /* [1] the flusher is held */
	pthread_barrier_wait(&step);
	/* 280 records of 56 bytes in this thread's 16 KiB ring, after the
	 * first one (released by the flusher before it was held): 704 bytes
	 * left, room for more records but not for the context (about 1 KiB) */
	for (int i = 1; i <= 280; i++)
		log_r(i);
	(void)llog_ctx_set("c", ctx_value);
	pthread_barrier_wait(&step); /* [2] drained */
	pthread_barrier_wait(&step);
	log_r(-1);
	pthread_barrier_wait(&step); /* [3] the flusher is held again */
	pthread_barrier_wait(&step);
	for (int i = 0; i < 400; i++)
		log_r(1000 + i); /* about 290 fit: the rest is dropped */
	pthread_barrier_wait(&step); /* [4] drained */
	pthread_barrier_wait(&step);
	log_r(-2);
	(void)llog_ctx_clear();
	return NULL;
}

static void test_owed_before_next_record(void **state)
{
	struct llog_config cfg = {.arena_bytes = 16 * 1024, .overflow = LLOG_OVERFLOW_DROP};
	struct memsink *m = memsink_new(LLOG_TRACE);
	struct llog_stats st0, st1, st2;
	pthread_t th;

	(void)state;
	memset(ctx_value, 'v', sizeof(ctx_value) - 1);
	m->hook = owed_hook;
	m->nostore = 1;
	pthread_barrier_init(&step, NULL, 2);
	assert_int_equal(memsink_start(m, &cfg), 0);
	assert_int_equal(pthread_create(&th, NULL, owes, NULL), 0);
	for (int phase = 0; phase < 2; phase++) {
		pthread_barrier_wait(&step);
		llog_flush();
		llog_get_stats(&st0);
		hold_flusher();
		pthread_barrier_wait(&step);
		pthread_barrier_wait(&step); /* the worker filled its ring */
		llog_get_stats(&st1);
		gate_open(&hold);
		llog_flush();
		if (phase == 0)
			assert_int_equal(st1.dropped, st0.dropped); /* only the CTX */
		else
			assert_true(st1.dropped - st0.dropped >= 100);
		pthread_barrier_wait(&step);
	}
	pthread_join(th, NULL);
	llog_shutdown();
	llog_get_stats(&st2);
	assert_int_equal(owed_ctx_ok, 1);
	assert_int_equal(owed_notice, (long)(st1.dropped - st0.dropped));
	assert_int_equal(st2.dropped, st1.dropped);
	pthread_barrier_destroy(&step);
	memsink_free(m);
}

TEST_MAIN(
	cmocka_unit_test(test_block_loses_nothing),
	cmocka_unit_test(test_drop_counts_exactly),
	cmocka_unit_test(test_ring_smaller_than_new_bound),
	cmocka_unit_test(test_owed_before_next_record),
)
