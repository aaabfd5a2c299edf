/*
 * test_churn.c - 10,000 short-lived threads (2,560 under TSan), each
 * logging a few records: every record arrives once and in order, and
 * every arena is freed (the flusher frees it at the thread's exit record;
 * LeakSanitizer checks the ASan build at exit).
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

TEST_MAIN(
	cmocka_unit_test(test_thread_churn),
)
