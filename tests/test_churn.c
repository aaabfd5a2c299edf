/*
 * test_churn.c - 10,000 short-lived threads (2,560 under TSan), each
 * logging a few records: every record arrives once and in order, and
 * every arena is freed (the flusher frees it at the thread's exit record;
 * LeakSanitizer checks the ASan build at exit); and such a thread commits
 * only a small part of its ring.
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
#include <unistd.h>

#include <cmocka.h>

#include "llog.h"
#include "memsink.h"
#include "sanitizer.h"
#include "testutil.h"

#ifdef TEST_TSAN
/* A thread's start and exit cost TSan far more than llog's work in it:
 * a quarter of the threads, the same waves (a multiple of WAVE). */
#define NTHREADS 2560
#else
#define NTHREADS 10000
#endif
#define PER 3
#define WAVE 16
_Static_assert(NTHREADS % WAVE == 0, "threads start in whole waves");

struct churn {
	unsigned char *count; /* per thread: records seen, in order */
	long bad;
};

static void churn_hook(struct memsink *m, const struct llog_entry *e)
{
	struct churn *c = m->user;
	char buf[64];
	int t, r;

	copy_cut(buf, sizeof(buf), e->msg, e->msg_len);
	if (sscanf(buf, "thread %d rec %d", &t, &r) != 2 || t < 0 || t >= NTHREADS ||
	    c->count[t] != r) {
		c->bad++;
		return;
	}
	c->count[t]++;
}

static void *short_lived(void *arg)
{
	int t = (int)(intptr_t)arg;

	for (int r = 0; r < PER; r++)
		LOG_INFO("thread %d rec %d", t, r);
	return NULL;
}

static void test_thread_churn(void **state)
{
	struct memsink *m = memsink_new(LLOG_TRACE);
	struct churn c = {calloc(NTHREADS, 1), 0};
	/* small arenas: 10,000 of them come and go */
	struct llog_config cfg = {.arena_bytes = 16 * 1024, .flush_interval_ms = 1};

	(void)state;
	m->hook = churn_hook;
	m->nostore = 1;
	m->user = &c;
	assert_int_equal(memsink_start(m, &cfg), 0);
	for (int base = 0; base < NTHREADS; base += WAVE) {
		pthread_t th[WAVE];

		for (int i = 0; i < WAVE; i++)
			assert_int_equal(pthread_create(&th[i], NULL, short_lived,
							(void *)(intptr_t)(base + i)), 0);
		for (int i = 0; i < WAVE; i++)
			pthread_join(th[i], NULL);
	}
	llog_shutdown();
	assert_int_equal(c.bad, 0);
	for (int t = 0; t < NTHREADS; t++)
		assert_int_equal(c.count[t], PER);
	free(c.count);
	memsink_free(m);
}

/* ---- what a short-lived thread commits ----------------------------------- */

#define ALIVE 64
#define RING (256 * 1024)

static pthread_barrier_t all_logged, may_exit;

/* The resident size in KiB (/proc/self/statm). */
static long rss_kib(void)
{
	long pages = 0, res = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	assert_non_null(f);
	assert_int_equal(fscanf(f, "%ld %ld", &pages, &res), 2);
	fclose(f);
	return res * (sysconf(_SC_PAGESIZE) / 1024);
}

static void *few_then_wait(void *arg)
{
	(void)arg;
	for (int r = 0; r < PER; r++)
		LOG_INFO("a short-lived thread's record %d", r);
	pthread_barrier_wait(&all_logged);
	pthread_barrier_wait(&may_exit);
	return NULL;
}

/* ALIVE threads that each logged PER records, all alive at once (their
 * arenas not freed): each adds far less to the resident size than its
 * ring (256 KiB). A thread per request must not commit a whole ring each
 * (thousands between two rounds of the flusher would be hundreds of MB). */
static void test_short_thread_commits_little(void **state)
{
	struct llog_config cfg = {.arena_bytes = RING};
	struct memsink *m;
	pthread_t th[ALIVE];
	long before, during, per;

	(void)state;
#if defined(TEST_ASAN) || defined(TEST_TSAN)
	skip(); /* their shadow memory grows with every allocation and access */
#endif
	m = memsink_new(LLOG_TRACE);
	m->nostore = 1;
	assert_int_equal(memsink_start(m, &cfg), 0);
	assert_int_equal(pthread_barrier_init(&all_logged, NULL, ALIVE + 1), 0);
	assert_int_equal(pthread_barrier_init(&may_exit, NULL, ALIVE + 1), 0);
	before = rss_kib();
	for (int i = 0; i < ALIVE; i++)
		assert_int_equal(pthread_create(&th[i], NULL, few_then_wait, NULL), 0);
	pthread_barrier_wait(&all_logged);
	during = rss_kib();
	pthread_barrier_wait(&may_exit);
	for (int i = 0; i < ALIVE; i++)
		pthread_join(th[i], NULL);
	llog_shutdown();
	per = (during - before) / ALIVE;
	fprintf(stderr, "resident: %ld KiB more with %d threads alive: %ld KiB each\n",
		during - before, ALIVE, per);
	assert_true(per < RING / 1024 / 4);
	pthread_barrier_destroy(&all_logged);
	pthread_barrier_destroy(&may_exit);
	memsink_free(m);
}

/* First: before the churn's 10,000 arenas, after which glibc serves
 * allocations of a ring's size from pages already resident. */
TEST_MAIN(
	cmocka_unit_test(test_short_thread_commits_little),
	cmocka_unit_test(test_thread_churn),
)
