/*
 * test_fallback.c - the console sink on stderr that llog_init makes when
 * no sink was added is a fallback, used only while no sink is added:
 *   - the first sink added after llog_init replaces it while 4 threads log:
 *     every record is written exactly once, to stderr or to the new sink,
 *     and per thread stderr holds a prefix of its records, the sink the
 *     rest (each scenario runs in a child whose stderr is a file);
 *   - a sink added before llog_init: no fallback, stderr stays empty;
 *   - in a fork child, a sink added before its first LOG replaces the
 *     inherited fallback;
 *   - the fallback does not take one of the 16 sink slots.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "childproc.h"
#include "llog.h"
#include "llog/sinks.h"
#include "testutil.h"

#define THREADS 4
#define N1 20000 /* per thread, racing with llog_add_sink */
#define N2 100   /* per thread, after llog_add_sink returned */
#define N (N1 + N2)

/* ---- in the child -------------------------------------------------------- */

/* What the callback sink got, per thread and index (written by the sink's
 * thread only, read after llog_shutdown joined it). */
static unsigned char cb_got[THREADS][N];
static long cb_bad;

static int parse(const char *s, size_t len, int *t, long *i)
{
	char buf[512];
	const char *p;

	if (len >= sizeof(buf))
		return -1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	p = strstr(buf, "t=");
	if (p == NULL || sscanf(p, "t=%d i=%ld", t, i) != 2 || *t < 0 || *t >= THREADS || *i < 0 ||
	    *i >= N)
		return -1;
	return 0;
}

static void on_entry(void *user, const struct llog_entry *e)
{
	int t;
	long i;

	(void)user;
	if (parse(e->msg, e->msg_len, &t, &i) != 0)
		cb_bad++;
	else
		cb_got[t][i]++;
}

static _Atomic long progress; /* records logged by the threads, phase 1 */
static _Atomic long started[THREADS]; /* records logged by each thread */
static _Atomic int added;     /* llog_add_sink returned */

static void *logger(void *arg)
{
	int t = (int)(intptr_t)arg;

	for (long i = 0; i < N1; i++) {
		LOG_INFO("t=%d i=%ld", t, i);
		/* Relaxed: progress counts only, no data hangs on them. */
		atomic_fetch_add_explicit(&progress, 1, memory_order_relaxed);
		atomic_fetch_add_explicit(&started[t], 1, memory_order_relaxed);
	}
	/* Acquire: pairs with the release store after llog_add_sink, so
	 * these records are logged after it returned. */
	while (!atomic_load_explicit(&added, memory_order_acquire))
		sched_yield();
	for (long i = N1; i < N; i++)
		LOG_INFO("t=%d i=%ld", t, i);
	return NULL;
}

/* Writes what the callback got to path, one "t i" line per record. */
static void dump_cb(const char *path)
{
	FILE *f = fopen(path, "w");

	if (f == NULL)
		_exit(91);
	for (int t = 0; t < THREADS; t++)
		for (long i = 0; i < N; i++)
			for (int k = 0; k < cb_got[t][i]; k++)
				fprintf(f, "t=%d i=%ld\n", t, i);
	fprintf(f, "bad=%ld\n", cb_bad);
	if (fclose(f) != 0)
		_exit(92);
}

static void child_replace(const char *cb_path)
{
	struct llog_callback_options o = {.on_entry = on_entry};
	pthread_t th[THREADS];

	if (llog_init(NULL) != 0)
		_exit(93);
	for (int t = 0; t < THREADS; t++)
		if (pthread_create(&th[t], NULL, logger, (void *)(intptr_t)t) != 0)
			_exit(94);
	/* Relaxed: see logger. Add the sink while the threads log, once
	 * every thread has logged (its record 0 goes to stderr). */
	for (int t = 0; t < THREADS; t++)
		while (atomic_load_explicit(&started[t], memory_order_relaxed) == 0)
			sched_yield();
	while (atomic_load_explicit(&progress, memory_order_relaxed) < (long)THREADS * N1 / 4)
		sched_yield();
	if (llog_add_sink(llog_callback_sink(&o)) != 0)
		_exit(95);
	/* Release: see logger. */
	atomic_store_explicit(&added, 1, memory_order_release);
	for (int t = 0; t < THREADS; t++)
		pthread_join(th[t], NULL);
	llog_shutdown();
	dump_cb(cb_path);
}

static void child_before_init(const char *cb_path)
{
	struct llog_callback_options o = {.on_entry = on_entry};

	if (llog_add_sink(llog_callback_sink(&o)) != 0 || llog_init(NULL) != 0)
		_exit(93);
	atomic_store_explicit(&added, 1, memory_order_release);
	if (run_threads(THREADS, logger) != 0)
		_exit(94);
	llog_shutdown();
	dump_cb(cb_path);
}

/* A fork child of a process running with the fallback adds a sink before
 * it logs: the child's records reach that sink only. */
static void child_fork(const char *cb_path)
{
	struct llog_callback_options o = {.on_entry = on_entry};
	pid_t pid;

	if (llog_init(NULL) != 0)
		_exit(93);
	LOG_INFO("in the parent, before the fork");
	pid = fork();
	if (pid < 0)
		_exit(94);
	if (pid == 0) {
		if (llog_add_sink(llog_callback_sink(&o)) != 0)
			_exit(95);
		for (long i = 0; i < N; i++)
			LOG_INFO("t=0 i=%ld", i);
		llog_shutdown();
		dump_cb(cb_path);
		_exit(0);
	}
	if (child_exit_code(pid) != 0)
		_exit(96);
	LOG_INFO("in the parent, after the fork");
	llog_shutdown();
}

/* ---- in the parent -------------------------------------------------------- */

static unsigned char err_got[THREADS][N];

static void run_child(struct tdir *td, char *cb_path, size_t cap, void (*fn)(const char *))
{
	pid_t pid;

	tdir_make(td, "llogfb");
	snprintf(cb_path, cap, "%s/cb.txt", td->dir);
	pid = fork_child();
	if (pid == 0) {
		child_stderr_to(td->err);
		fn(cb_path);
		_exit(0);
	}
	assert_int_equal(child_exit_code(pid), 0);
}

/* Counts the "t=%d i=%ld" records of the file at path into got; returns
 * how many lines were not such records (but the callback's "bad=0"). */
static long count_file(const char *path, unsigned char got[THREADS][N])
{
	FILE *f = fopen(path, "r");
	char line[512];
	long other = 0;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f) != NULL) {
		size_t len = strcspn(line, "\n");
		int t;
		long i;

		if (strcmp(line, "bad=0\n") == 0)
			continue;
		if (parse(line, len, &t, &i) != 0) {
			fprintf(stderr, "unexpected line: %s", line);
			other++;
			continue;
		}
		got[t][i]++;
	}
	fclose(f);
	return other;
}

static void test_first_sink_replaces_fallback(void **state)
{
	static unsigned char cb[THREADS][N];
	struct tdir td;
	char cb_path[160];
	long both = 0, neither = 0;

	(void)state;
	run_child(&td, cb_path, sizeof(cb_path), child_replace);
	memset(err_got, 0, sizeof(err_got));
	assert_int_equal(count_file(td.err, err_got), 0);
	assert_int_equal(count_file(cb_path, cb), 0);
	for (int t = 0; t < THREADS; t++) {
		long last_err = -1, first_cb = -1;

		for (long i = 0; i < N; i++) {
			if (err_got[t][i] + cb[t][i] == 0)
				neither++;
			else if (err_got[t][i] + cb[t][i] > 1)
				both++;
			if (err_got[t][i])
				last_err = i;
			if (cb[t][i] && first_cb < 0)
				first_cb = i;
		}
		/* The records logged before llog_add_sink was called went to
		 * stderr, those after it returned to the sink. */
		assert_true(err_got[t][0] == 1);
		assert_true(cb[t][N - 1] == 1);
		/* stderr: a prefix; the sink: the rest. */
		if (last_err >= first_cb)
			fprintf(stderr, "thread %d: stderr up to %ld, sink from %ld\n", t, last_err,
				first_cb);
		assert_true(last_err < first_cb);
		printf("thread %d: stderr i=0..%ld, sink i=%ld..%d\n", t, last_err, first_cb, N - 1);
	}
	if (both || neither)
		fprintf(stderr, "records on both: %ld, on neither: %ld\n", both, neither);
	assert_int_equal(both, 0);
	assert_int_equal(neither, 0);
	tdir_remove(&td);
}

/* The callback sink's file at path holds records i=0..N-1 of threads
 * 0..nthreads-1, each exactly once, and nothing else (but "bad=0"). */
static void expect_sink_file(const char *path, int nthreads)
{
	static unsigned char cb[THREADS][N];

	memset(cb, 0, sizeof(cb));
	assert_int_equal(count_file(path, cb), 0);
	for (int t = 0; t < nthreads; t++)
		for (long i = 0; i < N; i++)
			assert_int_equal(cb[t][i], 1);
}

static void test_sink_before_init_no_fallback(void **state)
{
	struct tdir td;
	char cb_path[160];
	char *err;

	(void)state;
	run_child(&td, cb_path, sizeof(cb_path), child_before_init);
	err = read_err(&td);
	assert_string_equal(err, "");
	free(err);
	expect_sink_file(cb_path, THREADS);
	tdir_remove(&td);
}

static void test_fork_child_sink_replaces_fallback(void **state)
{
	struct tdir td;
	char cb_path[160];
	char *err;

	(void)state;
	/* ThreadSanitizer cannot start threads in the child of a
	 * multi-threaded fork (as in test_process): release and ASan only. */
#if defined(TEST_TSAN)
	skip();
#endif
	run_child(&td, cb_path, sizeof(cb_path), child_fork);
	err = read_err(&td);
	assert_null(strstr(err, "t=0"));
	assert_non_null(strstr(err, "in the parent, before the fork"));
	assert_non_null(strstr(err, "in the parent, after the fork"));
	free(err);
	expect_sink_file(cb_path, 1);
	tdir_remove(&td);
}

static int noop_calls;

static void noop(void *user, const struct llog_entry *e)
{
	(void)user;
	(void)e;
	noop_calls++;
}

/* With the fallback running, 16 sinks can still be added (the first
 * replaces it); the 17th is refused. */
static void test_fallback_takes_no_slot(void **state)
{
	struct llog_callback_options o = {.on_entry = noop};

	(void)state;
	assert_int_equal(llog_init(NULL), 0);
	for (int k = 0; k < 16; k++)
		assert_int_equal(llog_add_sink(llog_callback_sink(&o)), 0);
	assert_int_equal(llog_add_sink(llog_callback_sink(&o)), -ENOSPC);
	LOG_INFO("to the 16 sinks");
	llog_flush();
	llog_shutdown();
	assert_int_equal(noop_calls, 16);
}

TEST_MAIN(
	cmocka_unit_test(test_first_sink_replaces_fallback),
	cmocka_unit_test(test_sink_before_init_no_fallback),
	cmocka_unit_test(test_fork_child_sink_replaces_fallback),
	cmocka_unit_test(test_fallback_takes_no_slot),
)
