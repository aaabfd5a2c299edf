/*
 * test_nomalloc.c - the crash handler does not allocate
 * (docs/crash-handling.md: "The handler takes no lock and does not call
 * malloc"), and neither
 * does the flusher while it drains the crash: this executable interposes
 * malloc, free, calloc, realloc, reallocarray, posix_memalign,
 * aligned_alloc, memalign, valloc and pvalloc (glibc routes every
 * allocation of the process through them, its own and libzstd's included).
 * They forward to glibc's __libc_* functions until a flag is set; after
 * that any call writes which function was called and a backtrace to stderr
 * with write(2) and ends the process with _exit(99) (not abort(): that would
 * re-enter the crash handler).
 *
 * In a child: a file sink and a console sink (to a file); a warm-up, then
 * the flag is set and NULL is dereferenced. The parent checks that the
 * child died of SIGSEGV (not exit 99) and that the file (zstdcat) and the
 * console output hold every record, each thread's in order, then the ones
 * the main thread logged last, then the FATAL crash record naming SIGSEGV.
 * The cases differ in what the last batch (the one the flusher commits
 * during the crash) is, compared with the batches before it:
 *   test_crash_without_malloc: 4 threads log 4 x 2500 records, llog_flush(),
 *     10 more records: a batch smaller than the warm-up's;
 *   test_crash_after_small_commits: 4 x 2500 records, llog_flush(), 200
 *     commits of one record each (zstd shrinks a context that stays
 *     oversized for many calls), then 4 x 10 records;
 *   test_crash_batch_larger_than_any: one record, llog_flush(), then
 *     4 x 100 records: a larger frame than any before (zstd would size its
 *     context up);
 *   test_crash_batch_grows_input: one record, llog_flush(), then 4 x 600
 *     records: more input than any batch before (the file sink's input
 *     buffer would grow).
 * In the last three the flusher's period is long, so the records logged
 * after the warm-up are all committed in the crash's batch.
 *
 * Not under AddressSanitizer or ThreadSanitizer: they own malloc (and the
 * SIGSEGV handling). Built there, the interposers are compiled out and the
 * test reports itself skipped (ctest: SKIP_REGULAR_EXPRESSION).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "llog.h"
#include "llog/sinks.h"

#include "childproc.h"
#include "scan.h"
#include "testutil.h"


/* The console sink's file, next to the others. */
static void console_path(const struct tdir *t, char *out, size_t cap)
{
	snprintf(out, cap, "%s/console.txt", t->dir);
}

/* Set by the crashing thread just before the fault; read by every thread
 * that allocates. The release store pairs with the acquire load in check();
 * the flusher also sees it through the crash handler's release push of the
 * crash record (it is set before the fault, so before that push). */
static int forbidden;

#ifndef TEST_SANITIZER

/* ---- the interposed allocator --------------------------------------------- */

void *__libc_malloc(size_t n);
void __libc_free(void *p);
void *__libc_calloc(size_t k, size_t n);
void *__libc_realloc(void *p, size_t n);
void *__libc_memalign(size_t align, size_t n);
void *__libc_valloc(size_t n);
void *__libc_pvalloc(size_t n);

static __thread int reporting;

/* Any allocation once forbidden: which one, the backtrace, then _exit(99). */
static void check(const char *fn)
{
	static const char head[] = "test_nomalloc: ";
	static const char tail[] = "() called after the flag was set; backtrace:\n";
	void *bt[64];
	int n;

	if (!__atomic_load_n(&forbidden, __ATOMIC_ACQUIRE))
		return;
	if (reporting) /* backtrace() allocating: no second report */
		_exit(99);
	reporting = 1;
	(void)!write(2, head, sizeof(head) - 1);
	(void)!write(2, fn, strlen(fn));
	(void)!write(2, tail, sizeof(tail) - 1);
	n = backtrace(bt, 64);
	backtrace_symbols_fd(bt, n, 2);
	_exit(99);
}

void *malloc(size_t n)
{
	check("malloc");
	return __libc_malloc(n);
}

void free(void *p)
{
	if (p != NULL)
		check("free");
	__libc_free(p);
}

void *calloc(size_t k, size_t n)
{
	check("calloc");
	return __libc_calloc(k, n);
}

void *realloc(void *p, size_t n)
{
	check("realloc");
	return __libc_realloc(p, n);
}

void *reallocarray(void *p, size_t k, size_t n)
{
	check("reallocarray");
	if (n != 0 && k > SIZE_MAX / n) {
		errno = ENOMEM;
		return NULL;
	}
	return __libc_realloc(p, k * n);
}

void *memalign(size_t align, size_t n)
{
	check("memalign");
	return __libc_memalign(align, n);
}

void *aligned_alloc(size_t align, size_t n)
{
	check("aligned_alloc");
	return __libc_memalign(align, n);
}

int posix_memalign(void **out, size_t align, size_t n)
{
	void *p;

	check("posix_memalign");
	if (align < sizeof(void *) || (align & (align - 1)) != 0)
		return EINVAL;
	p = __libc_memalign(align, n);
	if (p == NULL)
		return ENOMEM;
	*out = p;
	return 0;
}

void *valloc(size_t n)
{
	check("valloc");
	return __libc_valloc(n);
}

void *pvalloc(size_t n)
{
	check("pvalloc");
	return __libc_pvalloc(n);
}

#endif /* !TEST_SANITIZER */

/* ---- helpers -------------------------------------------------------------- */

#define NTHREADS 4

/* One case: what the child logs before the crash. */
struct scenario {
	unsigned flush_interval_ms;
	int warm;        /* records per thread before the llog_flush() */
	int commits;     /* then commits of one record each ("commit i=") */
	int late;        /* then records per thread, continuing "rec" */
	int late_exit;   /* those threads exit (their exit records, which free
			  * their arenas, are then in the crash round) */
	int more;        /* then records of the main thread ("more i=") */
};

/* The output of `prog 'path' 2>&1`. */
static char *read_path(const char *prog, const char *path)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "%s '%s' 2>&1", prog, path);
	return read_cmd(cmd);
}

/* Every "pfx i=I" in s, I = 0..n-1 in order, each after *last; moves
 * *last past the final one. */
static void check_series(const char *s, const char *pfx, int n, const char **last,
			 const char *what)
{
	const char *p = s;
	int next = 0;

	while ((p = scan_find(p, pfx)) != NULL) {
		long v = 0;
		int i;

		assert_int_equal(scan_longs(p + strlen(pfx), "#", &v, 1), 1);
		i = (int)v;
		if (i != next || p < *last) {
			fprintf(stderr, "%s: %s%d where %s%d was due\n", what, pfx, i, pfx, next);
			fail();
		}
		next++;
		p += strlen(pfx);
		*last = p;
	}
	if (next != n)
		fprintf(stderr, "%s: %d of %d \"%s\" records\n", what, next, n, pfx);
	assert_int_equal(next, n);
}

/* Every "rec t=T i=I" once, each thread's in order, then the "commit i="
 * and "more i=" records in order, then a FATAL line naming SIGSEGV after
 * all of them. */
static void check_output(const char *s, const struct scenario *sc, const char *what)
{
	static const char rec[] = "rec t=";
	int per_thread = sc->warm + sc->late, next[NTHREADS] = {0};
	const char *p = s, *last = s, *fatal;

	while ((p = scan_find(p, rec)) != NULL) {
		long v[2] = {0, 0};
		int th, i;

		assert_int_equal(scan_longs(p + strlen(rec), "# i=#", v, 2), 2);
		th = (int)v[0], i = (int)v[1];
		assert_true(th >= 0 && th < NTHREADS);
		if (i != next[th]) {
			fprintf(stderr, "%s: thread %d: i=%d where i=%d was due\n", what, th, i,
				next[th]);
			fail();
		}
		next[th]++;
		p += strlen(rec);
		if (p > last)
			last = p;
	}
	for (int th = 0; th < NTHREADS; th++) {
		if (next[th] != per_thread)
			fprintf(stderr, "%s: thread %d: %d of %d records\n", what, th, next[th],
				per_thread);
		assert_int_equal(next[th], per_thread);
	}
	if (sc->late == 0) /* the commits come after every thread's records */
		check_series(s, "commit i=", sc->commits, &last, what);
	else {
		const char *before = s;

		check_series(s, "commit i=", sc->commits, &before, what);
	}
	check_series(s, "more i=", sc->more, &last, what);
	fatal = strstr(last, " FATAL ");
	if (fatal == NULL || strstr(fatal, "SIGSEGV") == NULL) {
		fprintf(stderr, "%s: no FATAL record naming SIGSEGV after the records:\n%s\n", what,
			last);
		fail();
	}
}

/* ---- the child ------------------------------------------------------------ */

static pthread_barrier_t start_line;
static pthread_barrier_t done_line; /* the parked loggers and the main thread */

/* One logging thread's share of a phase: "rec t=T i=I" for I in [from, to). */
struct share {
	int th, from, to;
};

static void *logger(void *arg)
{
	const struct share *sh = arg;

	pthread_barrier_wait(&start_line);
	for (int i = sh->from; i < sh->to; i++)
		LOG_INFO("rec t=%d i=%d payload %s %.2f", sh->th, i, "abcdef", i / 3.0);
	return NULL;
}

/* A logger that stays alive: the flusher frees an exited thread's arena
 * when it drains the thread's exit record, and that must not be the crash
 * round here (what these cases test is the sinks). */
static void *parked_logger(void *arg)
{
	logger(arg);
	pthread_barrier_wait(&done_line);
	for (;;)
		pause();
	return NULL;
}

/* NTHREADS threads log records [from, to) each; then they are joined, or
 * with park they stay alive, blocked, until the process ends. */
static void log_phase(int from, int to, int park)
{
	static struct share sh[NTHREADS];
	pthread_t th[NTHREADS];

	if (to <= from)
		return;
	for (int i = 0; i < NTHREADS; i++) {
		sh[i] = (struct share){i, from, to};
		if (pthread_create(&th[i], NULL, park ? parked_logger : logger, &sh[i]) != 0)
			_exit(94);
	}
	if (park)
		pthread_barrier_wait(&done_line);
	else
		for (int i = 0; i < NTHREADS; i++)
			pthread_join(th[i], NULL);
}

static void child_run(const struct tdir *t, const struct scenario *sc)
{
	struct llog_config cfg = {.flush_interval_ms = sc->flush_interval_ms};
	struct llog_file_options fo = {.path = t->log};
	struct llog_console_options co = {.color = LLOG_COLOR_NEVER};
	char console[160];

	child_stderr_to(t->err);
	console_path(t, console, sizeof(console));
	co.fd = open(console, O_WRONLY | O_CREAT | O_APPEND, 0644);
	if (co.fd < 0)
		_exit(91);
	if (llog_add_sink(llog_file_sink(&fo)) != 0 || llog_add_sink(llog_console_sink(&co)) != 0)
		_exit(92);
	if (llog_init(&cfg) != 0)
		_exit(93);
	pthread_barrier_init(&start_line, NULL, NTHREADS);
	pthread_barrier_init(&done_line, NULL, NTHREADS + 1);
	log_phase(0, sc->warm, 0);
	LOG_INFO("main thread's first record"); /* its arena, before the flag */
	llog_flush(); /* warmed up: what this case's warm-up sized */
	for (int i = 0; i < sc->commits; i++) {
		LOG_INFO("commit i=%d", i);
		llog_flush();
	}
	log_phase(sc->warm, sc->warm + sc->late, !sc->late_exit);
	for (int i = 0; i < sc->more; i++)
		LOG_INFO("more i=%d", i);
	/* From here on no thread may allocate (pairs with the acquire load
	 * in check()). */
	__atomic_store_n(&forbidden, 1, __ATOMIC_RELEASE);
	store_null();
	_exit(95);
}

/* The scenarios of test_crash. */
static const struct scenario
	without_malloc = {.flush_interval_ms = 20, .warm = 2500, .more = 10},
	after_small_commits = {.flush_interval_ms = 60000, .warm = 2500, .commits = 200,
			       .late = 10},
	batch_larger_than_any = {.flush_interval_ms = 60000, .late = 100},
	after_threads_exited = {.flush_interval_ms = 60000, .late = 50, .late_exit = 1},
	batch_grows_input = {.flush_interval_ms = 60000, .late = 600};

/* ---- the test ------------------------------------------------------------- */

/* *state: one of the scenarios above */
static void test_crash(void **state)
{
	const struct scenario *sc = *state;
	struct tdir t;
	pid_t pid;
	int st;
	char *log, *con, *err, console[160];

#ifdef TEST_SANITIZER
	skip(); /* the sanitizer owns malloc: nothing to interpose */
#endif
	tdir_make(&t, "llog_nomalloc_");
	pid = fork_child();
	if (pid == 0) {
		/* cmocka catches SIGSEGV in the test process: the child starts
		 * from the default action, as a program would. */
		signal(SIGSEGV, SIG_DFL);
		child_run(&t, sc);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	err = read_path("cat", t.err);
	if (!WIFSIGNALED(st) || WTERMSIG(st) != SIGSEGV) {
		if (WIFEXITED(st) && WEXITSTATUS(st) == 99)
			fprintf(stderr, "the crash path allocated:\n%s\n", err);
		else
			fprintf(stderr, "child status %#x; its stderr:\n%s\n", st, err);
		fail();
	}
	log = read_path("zstdcat", t.log);
	console_path(&t, console, sizeof(console));
	con = read_path("cat", console);
	check_output(log, sc, "file");
	check_output(con, sc, "console");
	/* The handler committed the crash record in time (it writes the line
	 * itself, with this notice, only when it did not) and wrote the
	 * backtrace, all without allocating. */
	assert_null(strstr(err, "may be lost"));
	assert_non_null(strstr(err, "llog: backtrace of the crashing thread:"));
	assert_null(strstr(err, "test_nomalloc:"));
	assert_null(strstr(err, "zstd:")); /* every frame compressed */
	free(log);
	free(con);
	free(err);
	tdir_remove(&t);
}

/* Structured fields: a LOG_*_KV call with a context set, the context's changes
 * (llog_ctx_set, LLOG_CTX_SCOPE, llog_ctx_remove) and the flusher's
 * handing of their fields to a sink allocate nothing once the thread has
 * its arena: in a child, the flag set after a warm-up, then llog_flush();
 * the child exits 0 when its callback saw every record with its fields. */
static long kv_seen;

static void kv_on_entry(void *user, const struct llog_entry *e)
{
	(void)user;
	if (e->nfields == 3 && strcmp(e->fields[0].key, "req") == 0 &&
	    e->fields[2].type == LLOG_FIELD_STR && e->fields[2].v.str.len == 5)
		kv_seen++;
}

static void test_fields_without_malloc(void **state)
{
	pid_t pid;

	(void)state;
#ifdef TEST_SANITIZER
	skip(); /* the sanitizer owns malloc: nothing to interpose */
#endif
	pid = fork_child();
	if (pid == 0) {
		struct llog_callback_options o = {.on_entry = kv_on_entry};

		if (llog_add_sink(llog_callback_sink(&o)) != 0 || llog_init(NULL) != 0)
			_exit(2);
		LOG_INFO_KV(("warm", 1), "warm-up"); /* the arena */
		llog_flush();
		__atomic_store_n(&forbidden, 1, __ATOMIC_RELEASE);
		(void)llog_ctx_set("req", "abc");
		for (int i = 0; i < 100; i++) {
			LLOG_CTX_SCOPE("i", i);
			LOG_INFO_KV(("s", "fives"), "kv %d", i);
		}
		(void)llog_ctx_remove("req");
		llog_flush();
		__atomic_store_n(&forbidden, 0, __ATOMIC_RELEASE);
		_exit(kv_seen == 100 ? 0 : 3);
	}
	assert_int_equal(child_exit_code(pid), 0);
}

/* POSIX positional formats: neither the call (a capture in index order,
 * or a message rendered at the call) nor the flusher's rendering
 * allocates (glibc's own positional printf may), as above. */
static long pos_seen;

static void pos_on_entry(void *user, const struct llog_entry *e)
{
	(void)user;
	if ((e->msg_len == 10 && memcmp(e->msg, "x 7 x 0.50", 10) == 0) ||
	    (e->msg_len == 13 && memcmp(e->msg, "eager ab|0.25", 13) == 0))
		pos_seen++;
}

static void test_positional_without_malloc(void **state)
{
	pid_t pid;

	(void)state;
#ifdef TEST_SANITIZER
	skip(); /* the sanitizer owns malloc: nothing to interpose */
#endif
	pid = fork_child();
	if (pid == 0) {
		struct llog_callback_options o = {.on_entry = pos_on_entry};

		if (llog_add_sink(llog_callback_sink(&o)) != 0 || llog_init(NULL) != 0)
			_exit(2);
		LOG_INFO("warm-up"); /* the arena */
		llog_flush();
		__atomic_store_n(&forbidden, 1, __ATOMIC_RELEASE);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat" /* -Wpedantic: ISO C has no "n$" */
		for (int i = 0; i < 50; i++) {
			LOG_INFO("%2$s %1$d %2$s %3$.2f", 7, "x", 0.5);
			LOG_INFO("eager %2$.*1$s|%3$g", 2, "abc", 0.25); /* at the call */
		}
#pragma GCC diagnostic pop
		llog_flush();
		__atomic_store_n(&forbidden, 0, __ATOMIC_RELEASE);
		_exit(pos_seen == 100 ? 0 : 3);
	}
	assert_int_equal(child_exit_code(pid), 0);
}

TEST_MAIN(
	cmocka_unit_test(test_fields_without_malloc),
	cmocka_unit_test(test_positional_without_malloc),
	TEST_CASE_ARG(test_crash_without_malloc, test_crash, &without_malloc),
	TEST_CASE_ARG(test_crash_after_small_commits, test_crash, &after_small_commits),
	TEST_CASE_ARG(test_crash_batch_larger_than_any, test_crash, &batch_larger_than_any),
	TEST_CASE_ARG(test_crash_batch_grows_input, test_crash, &batch_grows_input),
	TEST_CASE_ARG(test_crash_after_threads_exited, test_crash, &after_threads_exited),
)
