/*
 * test_signal_reentry.c - a LOG in a signal handler that interrupted a LOG
 * of its own thread: dropped, counted once in the stats, and shown by the
 * thread's in-band drop notice; every other record arrives once
 * (worker + handler records + notice counts == calls made).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "childproc.h"
#include "llog.h"
#include "memsink.h"
#include "testutil.h"

static struct llog_stats stats_now(void)
{
	struct llog_stats s;

	llog_get_stats(&s);
	return s;
}

/* ---- drops in signal handlers ---------------------------------------------- */

/* What the flusher saw of the worker thread (its hook runs on the flusher;
 * read after llog_flush, whose barrier orders it before our reads). */
struct sig_seen {
	uint64_t worker, handler, notices, notice_sum, other;
};

static _Atomic uint64_t handler_calls;
static _Atomic int worker_ready, worker_stop;
/* Stored before the worker's first LOG, whose push publishes it to the
 * flusher. */
static _Atomic uint64_t worker_tid;

static void sig_hook(struct memsink *m, const struct llog_entry *e)
{
	struct sig_seen *s = m->user;
	uint64_t tid = atomic_load(&worker_tid);
	char prefix[64];
	unsigned long long n;
	int len;

	if (e->tid != tid) {
		s->other++;
		return;
	}
	len = snprintf(prefix, sizeof(prefix), "llog: thread %llu dropped ",
		       (unsigned long long)tid);
	if (e->level == LLOG_WARN && e->msg_len > (size_t)len &&
	    memcmp(e->msg, prefix, (size_t)len) == 0) {
		s->notices++;
		n = strtoull(e->msg + len, NULL, 10);
		s->notice_sum += n;
	} else if (e->msg_len > 2 && memcmp(e->msg, "w ", 2) == 0) {
		s->worker++;
	} else if (e->msg_len > 2 && memcmp(e->msg, "h ", 2) == 0) {
		s->handler++;
	} else {
		s->other++;
	}
}

static void log_in_handler(int sig)
{
	int saved = errno;

	(void)sig;
	/* Counted before the call: a LOG call made. */
	LOG_INFO("h %llu", (unsigned long long)atomic_fetch_add(&handler_calls, 1));
	errno = saved;
}

static void *sig_worker(void *arg)
{
	uint64_t *calls = arg;

	atomic_store(&worker_tid, (uint64_t)gettid());
	LOG_INFO("w first"); /* makes the arena outside any handler */
	(*calls)++;
	atomic_store(&worker_ready, 1);
	while (!atomic_load(&worker_stop)) {
		LOG_INFO("w %llu", (unsigned long long)*calls);
		(*calls)++;
	}
	/* Carries what the handlers dropped since its last record. */
	LOG_INFO("w last");
	(*calls)++;
	return NULL;
}

static void test_signal_reentry_notice(void **state)
{
	struct memsink *m = memsink_new(LLOG_TRACE);
	struct sig_seen seen = {0};
	struct sigaction sa = {0}, old;
	struct llog_stats before, after;
	struct llog_config cfg = {.flush_interval_ms = 5};
	uint64_t worker_calls = 0;
	int64_t deadline;
	pthread_t t;

	(void)state;
	m->nostore = 1;
	m->hook = sig_hook;
	m->user = &seen;
	sa.sa_handler = log_in_handler;
	sa.sa_flags = SA_RESTART;
	assert_int_equal(sigaction(SIGUSR1, &sa, &old), 0);
	assert_int_equal(memsink_start(m, &cfg), 0);
	before = stats_now();
	atomic_store(&handler_calls, 0);
	atomic_store(&worker_ready, 0);
	atomic_store(&worker_stop, 0);
	assert_int_equal(pthread_create(&t, NULL, sig_worker, &worker_calls), 0);
	while (!atomic_load(&worker_ready))
		sched_yield();
	/* Signals until enough re-entries were dropped, within a bound (under
	 * TSan, which delays signals to its own safe points, there may be
	 * none; the identity below holds all the same). */
	deadline = (int64_t)time(NULL) + 5;
	while ((int64_t)time(NULL) < deadline) {
		struct llog_stats now;

		for (int i = 0; i < 1000; i++)
			pthread_kill(t, SIGUSR1);
		llog_get_stats(&now);
		if (now.dropped - before.dropped >= 2000)
			break;
	}
	atomic_store(&worker_stop, 1);
	assert_int_equal(pthread_join(t, NULL), 0);
	llog_flush();
	after = stats_now();
	sigaction(SIGUSR1, &old, NULL);
	llog_shutdown();

#ifndef TEST_TSAN
	assert_true(after.dropped - before.dropped > 0);
#endif
	assert_int_equal(seen.other, 0);
	assert_int_equal(seen.worker, worker_calls);
	/* Every handler call is a record or counted in a notice, once. */
	assert_int_equal(seen.handler + seen.notice_sum, atomic_load(&handler_calls));
	assert_int_equal(after.dropped - before.dropped, seen.notice_sum);
	assert_int_equal(after.logged - before.logged,
			 worker_calls + atomic_load(&handler_calls));
	memsink_free(m);
}

/* ---- a drop inside a LOG, then the same site's next call ---------------- */

/* A string argument on a page that cannot be read: the LOG faults while it
 * captures (in_log set), and the SIGSEGV handler logs (dropped: counted),
 * makes the page readable and returns, so the capture goes on. The
 * interrupted record, from a site whose calls take the fast path
 * (liblog/producer.c), reads the thread's drops after its payload, as
 * log_core does: the notice comes right before it, and once. Done for the
 * site's first call (log_core) and its second (the fast path): the same
 * output. Deterministic, unlike the signals above. */
static char *guarded;
static long page_size;
static _Atomic int faults;

static void log_s(const char *s)
{
	LOG_INFO("s %s", s);
}

static void fault_handler(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	if ((char *)si->si_addr < guarded || (char *)si->si_addr >= guarded + page_size)
		abort();
	atomic_fetch_add(&faults, 1);
	LOG_INFO("in the handler");
	mprotect(guarded, (size_t)page_size, PROT_READ | PROT_WRITE);
}

static void test_fault_in_capture_notice(void **state)
{
	struct memsink *m = memsink_new(LLOG_TRACE);
	struct sigaction sa = {0}, old;
	struct llog_stats before, after;
	char notice[96];

	(void)state;
	page_size = sysconf(_SC_PAGESIZE);
	guarded = mmap(NULL, (size_t)page_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);
	assert_true(guarded != MAP_FAILED);
	strcpy(guarded, "guarded");
	sa.sa_sigaction = fault_handler;
	sa.sa_flags = SA_SIGINFO;
	assert_int_equal(memsink_start(m, NULL), 0);
	/* after llog_init: instead of llog's crash handler */
	assert_int_equal(sigaction(SIGSEGV, &sa, &old), 0);
	before = stats_now();
	for (int k = 0; k < 2; k++) {
		/* k = 0: the site's first call (log_core); 1: the fast path */
		assert_int_equal(mprotect(guarded, (size_t)page_size, PROT_NONE), 0);
		log_s(guarded);
		log_s("after");
	}
	llog_flush();
	after = stats_now();
	sigaction(SIGSEGV, &old, NULL);
	llog_shutdown();
	assert_int_equal(atomic_load(&faults), 2);
	assert_int_equal(after.dropped - before.dropped, 2);
	snprintf(notice, sizeof(notice), "llog: thread %llu dropped 1 records",
		 (unsigned long long)gettid());
	assert_int_equal(m->n, 6);
	for (int k = 0; k < 2; k++) {
		assert_string_equal(m->e[3 * k].msg, notice);
		assert_string_equal(m->e[3 * k + 1].msg, "s guarded");
		assert_string_equal(m->e[3 * k + 2].msg, "s after");
	}
	munmap(guarded, (size_t)page_size);
	memsink_free(m);
}

TEST_MAIN(
	cmocka_unit_test(test_signal_reentry_notice),
	cmocka_unit_test(test_fault_in_capture_notice),
)
