/*
 * test_process.c - process life: every scenario runs in a child process and
 * the parent checks what it left behind. A crash (NULL dereference, abort(),
 * LOG_FATAL) after 4 threads logged 10,000 records: every record is in the
 * file sink's output (zstdcat) and on the console, then the FATAL crash
 * record naming the signal, and the child died of that signal; exit(3) and
 * a return from main without llog_shutdown() lose nothing; LOG after
 * llog_shutdown() goes to stderr; an application SIGSEGV handler installed
 * before llog_init() still runs; crash_handler_off installs nothing; fork
 * with records pending writes each record exactly once across both
 * outputs; a timer signal whose handler logs while the main thread logs;
 * llog_flush()/llog_shutdown() from several threads at once.
 */
#define _GNU_SOURCE
#include <errno.h>
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
#include <sys/time.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "llog.h"
#include "llog/sinks.h"
#include "memsink.h"
#include "scan.h"
#include "childproc.h"
#include "shards.h"

#define NTHREADS 4
#define PER_THREAD 2500

static struct sigaction orig_segv; /* before llog_init (crash_handler_off test) */
static char self_exe[4096];

/* ---- helpers -------------------------------------------------------------- */

/* Checks that records "rec t=T i=I" for every T < NTHREADS and I <
 * PER_THREAD appear exactly once, each thread's in order. Returns the
 * offset just after the last one. */
static size_t check_records(const char *s, const char *tag)
{
	static int seen[NTHREADS][PER_THREAD];
	int next[NTHREADS] = {0};
	char pat[32];
	const char *p = s;
	size_t end = 0;

	memset(seen, 0, sizeof(seen));
	snprintf(pat, sizeof(pat), "%s t=", tag);
	while ((p = scan_find(p, pat)) != NULL) {
		long v[2] = {0, 0};
		int th, i;

		assert_int_equal(scan_longs(p + strlen(pat), "# i=#", v, 2), 2);
		th = (int)v[0], i = (int)v[1];
		assert_true(th >= 0 && th < NTHREADS && i >= 0 && i < PER_THREAD);
		assert_int_equal(seen[th][i], 0);
		assert_int_equal(i, next[th]);
		seen[th][i] = 1;
		next[th]++;
		p += strlen(pat);
		end = (size_t)(p - s);
	}
	for (int th = 0; th < NTHREADS; th++)
		assert_int_equal(next[th], PER_THREAD);
	return end;
}

/* ---- child scenarios ------------------------------------------------------- */

enum ending { END_SEGV, END_ABORT, END_FATAL, END_EXIT3, END_RETURN, END_SHUTDOWN_THEN_LOG };

static pthread_barrier_t all_logged;
static enum ending child_end;

static void *logger(void *arg)
{
	int th = (int)(intptr_t)arg;

	for (int i = 0; i < PER_THREAD; i++)
		LOG_INFO("rec t=%d i=%d payload %s %.2f", th, i, "abcdef", i / 3.0);
	pthread_barrier_wait(&all_logged);
	if (th != 0)
		return NULL;
	switch (child_end) {
	case END_SEGV:
		store_null();
		break;
	case END_ABORT:
		abort();
	case END_FATAL:
		LOG_FATAL("fatal now t=%d", th);
		break;
	default:
		break;
	}
	return NULL;
}

/* In the child: stderr to t->err, a file sink and a console sink, 4
 * threads log, then the ending. */
static int child_run(const char *log, const char *err, enum ending end)
{
	struct llog_config cfg = {.flush_interval_ms = 50};
	struct llog_file_options fo = {.path = log};
	pthread_t th[NTHREADS];

	child_stderr_to(err);
	if (llog_add_sink(llog_file_sink(&fo)) != 0 || llog_add_sink(llog_console_sink(NULL)) != 0)
		_exit(91);
	if (llog_init(&cfg) != 0)
		_exit(92);
	child_end = end;
	pthread_barrier_init(&all_logged, NULL, NTHREADS);
	for (int i = 0; i < NTHREADS; i++)
		pthread_create(&th[i], NULL, logger, (void *)(intptr_t)i);
	if (end == END_SEGV || end == END_ABORT || end == END_FATAL)
		for (;;)
			pause();
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(th[i], NULL);
	if (end == END_SHUTDOWN_THEN_LOG) {
		llog_shutdown();
		for (int i = 0; i < 3; i++)
			LOG_INFO("after shutdown %d", i);
		llog_flush();
		llog_shutdown();
		return 0;
	}
	if (end == END_EXIT3)
		exit(3);
	return 0; /* END_RETURN: main returns this */
}

static int wait_child(pid_t pid)
{
	int st;

	assert_int_equal(waitpid(pid, &st, 0), pid);
	return st;
}

/* Runs one ending in a child; checks file, stderr and how it died. */
static void run_ending(enum ending end, int want_sig, int want_exit)
{
	struct tdir t;
	pid_t pid;
	int st;
	char *s, *e;
	size_t last;

	tdir_make(&t, "llog_proc_");
	if (end == END_RETURN) {
		pid = fork_child();
		if (pid == 0) {
			execl(self_exe, self_exe, "--child-return", t.log, t.err, (char *)NULL);
			_exit(93);
		}
	} else {
		pid = fork_child();
		if (pid == 0) {
			default_actions();
			_exit(child_run(t.log, t.err, end));
		}
	}
	st = wait_child(pid);
	if (want_sig != 0) {
		if (!WIFSIGNALED(st))
			fprintf(stderr, "child status %#x\n", st);
		assert_true(WIFSIGNALED(st));
		assert_int_equal(WTERMSIG(st), want_sig);
	} else {
		assert_true(WIFEXITED(st));
		assert_int_equal(WEXITSTATUS(st), want_exit);
	}
	s = read_zstdcat(&t);
	e = read_err(&t);
	last = check_records(s, "rec");
	(void)check_records(e, "rec");
	if (want_sig == SIGSEGV || (want_sig == SIGABRT && end == END_ABORT)) {
		const char *name = want_sig == SIGSEGV ? "SIGSEGV" : "SIGABRT";
		char *c = strstr(s + last, "FATAL");

		/* The crash record follows every record in the file... */
		assert_non_null(c);
		c = strstr(c, name);
		assert_non_null(c);
		/* ...and stderr names the signal and shows the backtrace. */
		assert_non_null(strstr(e, name));
		assert_non_null(strstr(e, "backtrace"));
		if (want_sig == SIGSEGV)
			assert_non_null(strstr(c, "at address 0x0"));
	}
	if (end == END_FATAL) {
		char *c = strstr(s, "fatal now t=0");

		assert_non_null(c);
		assert_true((size_t)(c - s) > last);
		assert_non_null(strstr(e, "fatal now t=0"));
	}
	if (end == END_SHUTDOWN_THEN_LOG) {
		assert_null(strstr(s, "after shutdown"));
		for (int i = 0; i < 3; i++) {
			char want[32];

			snprintf(want, sizeof(want), "after shutdown %d", i);
			assert_non_null(strstr(e, want));
		}
	}
	free(s);
	free(e);
	tdir_remove(&t);
}

static void test_crash_segv(void **state)
{
	(void)state;
	run_ending(END_SEGV, SIGSEGV, 0);
}

static void test_crash_abort(void **state)
{
	(void)state;
	run_ending(END_ABORT, SIGABRT, 0);
}

static void test_log_fatal(void **state)
{
	(void)state;
	run_ending(END_FATAL, SIGABRT, 0);
}

static void test_exit3(void **state)
{
	(void)state;
	run_ending(END_EXIT3, 0, 3);
}

static void test_return_from_main(void **state)
{
	(void)state;
	run_ending(END_RETURN, 0, 0);
}

static void test_log_after_shutdown(void **state)
{
	(void)state;
	run_ending(END_SHUTDOWN_THEN_LOG, 0, 0);
}

/* ---- application handler, crash_handler_off ------------------------------- */

static int marker_fd = -1;

static void app_segv(int sig, siginfo_t *si, void *uc)
{
	static const char m[] = "APPHANDLER\n";

	(void)si;
	(void)uc;
	(void)!write(marker_fd, m, sizeof(m) - 1);
	signal(sig, SIG_DFL); /* the fault repeats and kills us */
}

static void test_app_handler_chained(void **state)
{
	struct tdir t;
	int pfd[2];
	char buf[64] = {0};
	pid_t pid;
	int st;
	char *s;

	(void)state;
	tdir_make(&t, "llog_proc_");
	assert_int_equal(pipe(pfd), 0);
	pid = fork_child();
	if (pid == 0) {
		struct sigaction sa;

		close(pfd[0]);
		default_actions();
		marker_fd = pfd[1];
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = app_segv;
		sa.sa_flags = SA_SIGINFO;
		sigaction(SIGSEGV, &sa, NULL);
		_exit(child_run(t.log, t.err, END_SEGV));
	}
	close(pfd[1]);
	st = wait_child(pid);
	assert_true(read(pfd[0], buf, sizeof(buf) - 1) > 0);
	close(pfd[0]);
	assert_non_null(strstr(buf, "APPHANDLER"));
	assert_true(WIFSIGNALED(st));
	assert_int_equal(WTERMSIG(st), SIGSEGV);
	s = read_zstdcat(&t);
	(void)check_records(s, "rec");
	assert_non_null(strstr(s, "SIGSEGV"));
	free(s);
	tdir_remove(&t);
}

static int same_action(const struct sigaction *a, const struct sigaction *b)
{
	if ((a->sa_flags & SA_SIGINFO) != (b->sa_flags & SA_SIGINFO))
		return 0;
	return (a->sa_flags & SA_SIGINFO) ? a->sa_sigaction == b->sa_sigaction
					  : a->sa_handler == b->sa_handler;
}

/* In a child (in_child: from the default actions): the crash handler
 * off, then on. */
static int handler_off_child(void)
{
	struct llog_config off = {.crash_handler_off = 1};
	struct sigaction cur;

	child_stderr_to("/dev/null");
	sigaction(SIGSEGV, NULL, &orig_segv);
	/* Off: the action in force before any llog_init stays. */
	if (llog_init(&off) != 0)
		return 10;
	sigaction(SIGSEGV, NULL, &cur);
	if (!same_action(&cur, &orig_segv))
		return 11;
	sigaction(SIGABRT, NULL, &cur);
	if ((cur.sa_flags & SA_SIGINFO) || cur.sa_handler != SIG_DFL)
		return 12;
	llog_shutdown();
	/* On (the zero config): a handler is installed. */
	if (llog_init(NULL) != 0)
		return 13;
	sigaction(SIGSEGV, NULL, &cur);
	if (same_action(&cur, &orig_segv) || !(cur.sa_flags & SA_ONSTACK))
		return 14;
	llog_shutdown();
	return 0;
}

static void test_crash_handler_off(void **state)
{
	(void)state;
	assert_int_equal(in_child(handler_off_child), 0); /* exited 0 */
}

/* ---- fork ------------------------------------------------------------------ */

#define FORK_N 1000

/* Every "<tag> pid=P i=I" with I < FORK_N once and in order, each on a line
 * whose thread id is P (the logging thread is its process's main thread),
 * and none of the other tag. */
static void check_fork_out(const char *s, const char *tag, const char *other, long pid)
{
	char pat[32], tid[32];
	const char *p = s;
	int n = 0;

	snprintf(pat, sizeof(pat), "%s pid=", tag);
	snprintf(tid, sizeof(tid), " [%ld] ", pid);
	while ((p = scan_find(p, pat)) != NULL) {
		const char *bol = p;
		long v[2] = {0, 0}, got;
		int i;

		while (bol > s && bol[-1] != '\n')
			bol--;
		assert_int_equal(scan_longs(p + strlen(pat), "# i=#", v, 2), 2);
		got = v[0], i = (int)v[1];
		assert_int_equal(got, pid);
		assert_int_equal(i, n); /* once each, in order */
		assert_true(memmem(bol, (size_t)(p - bol), tid, strlen(tid)) != NULL);
		n++;
		p += strlen(pat);
	}
	assert_int_equal(n, FORK_N);
	snprintf(pat, sizeof(pat), "%s pid=", other);
	assert_null(strstr(s, pat));
}

/*
 * A process with records pending (long interval, never flushed) forks; the
 * child logs its own through the inherited file sink (a fresh flusher
 * starts at its first LOG) and exits. The file holds every parent record
 * once (written by the parent only: the child dropped its copy of them)
 * and every child record once, each with its own process's thread id; the
 * child wrote nothing to stderr.
 */
static void test_fork(void **state)
{
	struct tdir t;
	char pidfile[160];
	long cpid = 0, gpid = 0;
	pid_t pid;
	FILE *f;
	char *s, *e;

	(void)state;
	/* ThreadSanitizer cannot start threads in the child of a
	 * multi-threaded fork ("dup thread with used id"; its die_after_fork
	 * default says so): this path runs in the release and ASan builds. */
#ifdef TEST_TSAN
	skip();
#endif
	tdir_make(&t, "llog_proc_");
	snprintf(pidfile, sizeof(pidfile), "%s/pids", t.dir);
	pid = fork_child();
	if (pid == 0) {
		/* The "parent": records pending (long interval, no flush),
		 * on a queue of two heads (the child takes both). */
		struct llog_config cfg = {.flush_interval_ms = 60000, .queue_shards = 2};
		struct llog_file_options fo = {.path = t.log};
		pid_t g;

		shards_force(); /* two heads on every machine (shards.h) */
		if (llog_add_sink(llog_file_sink(&fo)) != 0 || llog_init(&cfg) != 0)
			_exit(20);
		/* Relaxed: set by llog_init, before it returned. */
		if (llog__load_relaxed(&llog__pw.head_mask) != sizeof(struct llog__shard))
			_exit(23);
		for (int i = 0; i < FORK_N; i++)
			LOG_INFO("parent pid=%ld i=%d", (long)getpid(), i);
		g = fork();
		if (g < 0)
			_exit(21);
		if (g == 0) {
			child_stderr_to(t.err);
			for (int i = 0; i < FORK_N; i++)
				LOG_INFO("child pid=%ld i=%d", (long)getpid(), i);
			exit(0); /* atexit: the child's flusher drains */
		}
		if (child_exit_code(g) != 0)
			_exit(22);
		f = fopen(pidfile, "w");
		fprintf(f, "%ld %ld\n", (long)getpid(), (long)g);
		fclose(f);
		llog_shutdown();
		_exit(0);
	}
	assert_int_equal(child_exit_code(pid), 0);
	f = fopen(pidfile, "r");
	assert_non_null(f);
	assert_int_equal(fscanf(f, "%ld %ld", &cpid, &gpid), 2);
	fclose(f);
	s = read_zstdcat(&t);
	e = read_err(&t);
	check_fork_out(s, "parent", "@", cpid);
	check_fork_out(s, "child", "@", gpid);
	assert_null(strstr(e, "pid="));
	free(s);
	free(e);
	tdir_remove(&t);
}

static char *zstdcat_of(const char *path)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "zstdcat '%s' 2>/dev/null", path);
	return read_cmd(cmd);
}

/*
 * A sink added just before fork() (still on its way to the flusher) is
 * the child's too; a child that calls llog_init() before logging gets its
 * own configuration and sinks instead of the inherited ones.
 */
static void test_fork_sinks(void **state)
{
	struct tdir t;
	char b[160], c[160];
	pid_t pid;
	char *sa, *sb, *sc;

	(void)state;
#ifdef TEST_TSAN
	skip(); /* see test_fork */
#endif
	tdir_make(&t, "llog_proc_");
	snprintf(b, sizeof(b), "%s/b.log.zst", t.dir);
	snprintf(c, sizeof(c), "%s/c.log.zst", t.dir);
	pid = fork_child();
	if (pid == 0) {
		struct llog_config cfg = {.flush_interval_ms = 60000};
		struct llog_file_options fa = {.path = t.log}, fb = {.path = b}, fc = {.path = c};
		pid_t g1, g2;

		if (llog_add_sink(llog_file_sink(&fa)) != 0 || llog_init(&cfg) != 0)
			_exit(20);
		LOG_INFO("early");
		if (llog_add_sink(llog_file_sink(&fb)) != 0)
			_exit(21);
		g1 = fork(); /* the sink record for b is still on the list */
		if (g1 == 0) {
			for (int i = 0; i < 100; i++)
				LOG_INFO("g1 i=%d", i);
			exit(0);
		}
		g2 = fork();
		if (g2 == 0) {
			if (llog_add_sink(llog_file_sink(&fc)) != 0 || llog_init(NULL) != 0)
				_exit(30);
			for (int i = 0; i < 100; i++)
				LOG_INFO("g2 i=%d", i);
			exit(0);
		}
		if (g1 < 0 || g2 < 0 || child_exit_code(g1) != 0 || child_exit_code(g2) != 0)
			_exit(22);
		LOG_INFO("late");
		llog_shutdown();
		_exit(0);
	}
	assert_int_equal(child_exit_code(pid), 0);
	sa = read_zstdcat(&t);
	sb = zstdcat_of(b);
	sc = zstdcat_of(c);
	/* a: the parent's two and the first child's hundred, once each */
	assert_int_equal(count_of(sa, " early\n"), 1);
	assert_int_equal(count_of(sa, " late\n"), 1);
	assert_int_equal(count_of(sa, " g1 i="), 100);
	assert_int_equal(count_of(sa, " g2 i="), 0);
	/* b: added before the fork, so the first child's as well */
	assert_int_equal(count_of(sb, " g1 i="), 100);
	assert_int_equal(count_of(sb, " late\n"), 1);
	assert_int_equal(count_of(sb, " early\n"), 0);
	assert_int_equal(count_of(sb, " g2 i="), 0);
	/* c: only the second child's, which replaced the inherited sinks */
	assert_int_equal(count_of(sc, " g2 i="), 100);
	assert_int_equal(count_of(sc, " g1 i=") + count_of(sc, " late\n"), 0);
	free(sa);
	free(sb);
	free(sc);
	tdir_remove(&t);
}

/* Several threads of a fork child make its first LOG at once: one starts
 * the inherited flusher, the others wait for it; every record reaches the
 * inherited file sink (none goes to stderr instead). */
#define RACE_THREADS 4
#define RACE_ROUNDS 5

static pthread_barrier_t race_line;

static void *race_logger(void *arg)
{
	pthread_barrier_wait(&race_line);
	LOG_INFO("race t=%d", (int)(intptr_t)arg);
	return NULL;
}

static void test_fork_first_use_race(void **state)
{
	struct tdir t;
	pid_t pid;
	char *s, *e;

	(void)state;
#ifdef TEST_TSAN
	skip(); /* see test_fork */
#endif
	tdir_make(&t, "llog_proc_");
	pid = fork_child();
	if (pid == 0) {
		struct llog_config cfg = {.flush_interval_ms = 60000};
		struct llog_file_options fo = {.path = t.log};

		child_stderr_to(t.err);
		if (llog_add_sink(llog_file_sink(&fo)) != 0 || llog_init(&cfg) != 0)
			_exit(20);
		for (int round = 0; round < RACE_ROUNDS; round++) {
			pid_t g = fork();

			if (g == 0) {
				pthread_t th[RACE_THREADS];

				pthread_barrier_init(&race_line, NULL, RACE_THREADS);
				for (int i = 0; i < RACE_THREADS; i++)
					if (pthread_create(&th[i], NULL, race_logger,
							   (void *)(intptr_t)i) != 0)
						_exit(30);
				for (int i = 0; i < RACE_THREADS; i++)
					pthread_join(th[i], NULL);
				exit(0);
			}
			if (g < 0 || child_exit_code(g) != 0)
				_exit(21);
		}
		llog_shutdown();
		_exit(0);
	}
	assert_int_equal(child_exit_code(pid), 0);
	s = read_zstdcat(&t);
	e = read_err(&t);
	for (int i = 0; i < RACE_THREADS; i++) {
		char pat[32];

		snprintf(pat, sizeof(pat), " race t=%d\n", i);
		assert_int_equal(count_of(s, pat), RACE_ROUNDS);
	}
	assert_null(strstr(e, "race t="));
	free(s);
	free(e);
	tdir_remove(&t);
}

/* ---- signal handler re-entry ------------------------------------------------ */

static volatile sig_atomic_t handler_calls;

static void on_alarm(int sig)
{
	(void)sig;
	handler_calls++;
	LOG_INFO("from the handler %d", (int)handler_calls);
}

struct reentry_tally {
	long last_main, main, handler, bad;
};

/* On the flusher: main-loop records strictly increasing (no duplicate, no
 * reordering), every entry accounted for. */
static void reentry_hook(struct memsink *m, const struct llog_entry *e)
{
	struct reentry_tally *t = m->user;
	char buf[64];
	long v;

	copy_cut(buf, sizeof(buf), e->msg, e->msg_len);
	if (sscanf(buf, "main loop %ld", &v) == 1) {
		if (v <= t->last_main)
			t->bad++;
		t->last_main = v;
		t->main++;
	} else if (strncmp(buf, "from the handler ", 17) == 0) {
		t->handler++;
	}
}

static void test_signal_reentry(void **state)
{
	struct memsink *m = memsink_new(LLOG_TRACE);
	struct reentry_tally tally = {-1, 0, 0, 0};
	struct llog_config cfg = {.flush_interval_ms = 10, .overflow = LLOG_OVERFLOW_DROP};
	struct itimerval it = {{0, 20}, {0, 20}}, stop = {{0, 0}, {0, 0}};
	struct llog_stats a, b;
	struct sigaction sa;
	long n = 0;
	struct timespec t0, t1;

	(void)state;
	m->hook = reentry_hook;
	m->user = &tally;
	m->nostore = 1;
	assert_int_equal(memsink_start(m, &cfg), 0);
	LOG_INFO("first LOG of this thread (creates its arena)");
	llog_flush();
	llog_get_stats(&a);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	handler_calls = 0;
	setitimer(ITIMER_REAL, &it, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (int i = 0; i < 1000; i++, n++)
			LOG_INFO("main loop %ld %s", n, "x");
		clock_gettime(CLOCK_MONOTONIC, &t1);
	} while (t1.tv_sec - t0.tv_sec < 1);
	setitimer(ITIMER_REAL, &stop, NULL);
	signal(SIGALRM, SIG_IGN);
	llog_flush();
	llog_get_stats(&b);
	assert_true(handler_calls > 0);
	assert_int_equal(b.logged - a.logged, (uint64_t)n + (uint64_t)handler_calls);
	assert_int_equal(b.logged, b.written + b.dropped);
	/* what was written is exactly what the sink saw, in order */
	assert_int_equal(tally.bad, 0);
	assert_int_equal((uint64_t)(tally.main + tally.handler), b.written - a.written);
	assert_true(tally.main > 0);
	llog_shutdown();
	memsink_free(m);
}

/* ---- llog_flush / llog_shutdown from several threads ------------------------- */

static void *ctl_thread(void *arg)
{
	int id = (int)(intptr_t)arg;

	for (int i = 0; i < 200; i++) {
		LOG_INFO("ctl %d %d", id, i);
		llog_flush();
		if (i == 100 && id % 2 == 0)
			llog_shutdown();
	}
	return NULL;
}

/* ---- fork from a sink's close callback ------------------------------------- */

/* A sink that counts what happens to it after its close(): in a child
 * forked from that close(), nothing may reach a closed sink. */
struct closing_sink {
	struct llog_sink base;
	int closed, forker;
};

static int after_close_uses; /* the child's count is its exit status */

static long cs_write(struct llog_sink *s, const struct llog_entry *e)
{
	after_close_uses += ((struct closing_sink *)s)->closed;
	return (long)e->msg_len;
}

static long cs_commit(struct llog_sink *s)
{
	(void)s;
	return 0;
}

static void cs_after_fork(struct llog_sink *s)
{
	after_close_uses += ((struct closing_sink *)s)->closed;
}

static void cs_close(struct llog_sink *s)
{
	struct closing_sink *c = (struct closing_sink *)s;
	pid_t pid;

	c->closed = 1;
	if (!c->forker)
		return;
	pid = fork();
	if (pid == 0) {
		child_stderr_to("/dev/null"); /* the child's LOG: synchronous */
		LOG_INFO("in a child forked from a sink's close");
		llog_flush();
		_exit(after_close_uses);
	}
	assert_true(pid > 0);
	assert_int_equal(child_exit_code(pid), 0);
}

static const struct llog_sink_ops closing_ops = {
	.version = 2, .write = cs_write, .commit = cs_commit, .close = cs_close,
	.after_fork = cs_after_fork,
};

/* llog_shutdown has no flusher of record while the sinks close: a child
 * forked from a close callback starts with llog not running, and never
 * hands its records to the sinks being closed. */
static void test_fork_from_sink_close(void **state)
{
	static struct closing_sink a = {{&closing_ops, LLOG_TRACE, LLOG_FORMAT_TEXT}, 0, 0};
	static struct closing_sink b = {{&closing_ops, LLOG_TRACE, LLOG_FORMAT_TEXT}, 0, 1};

	(void)state;
#ifdef TEST_TSAN
	skip(); /* see test_fork */
#endif
	assert_int_equal(llog_add_sink(&a.base), 0);
	assert_int_equal(llog_add_sink(&b.base), 0);
	assert_int_equal(llog_init(NULL), 0);
	LOG_INFO("in the parent");
	llog_shutdown(); /* b's close forks and checks the child */
	assert_int_equal(a.closed + b.closed, 2);
	assert_int_equal(after_close_uses, 0);
}

static void test_concurrent_flush_shutdown(void **state)
{
	pid_t pid;

	(void)state;
	pid = fork_child();
	if (pid == 0) {
		child_stderr_to("/dev/null"); /* records after a shutdown go to stderr */
		for (int round = 0; round < 5; round++) {
			struct memsink *m = memsink_new(LLOG_TRACE);
			struct llog_config cfg = {.flush_interval_ms = 5};
			pthread_t th[8];
			struct llog_stats s;

			if (memsink_start(m, &cfg) != 0)
				_exit(30);
			for (int i = 0; i < 8; i++)
				pthread_create(&th[i], NULL, ctl_thread, (void *)(intptr_t)i);
			for (int i = 0; i < 8; i++)
				pthread_join(th[i], NULL);
			llog_shutdown();
			llog_get_stats(&s);
			if (s.logged != s.written + s.dropped)
				_exit(31);
			memsink_free(m);
		}
		_exit(0);
	}
	assert_int_equal(child_exit_code(pid), 0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_crash_segv),
		cmocka_unit_test(test_crash_abort),
		cmocka_unit_test(test_log_fatal),
		cmocka_unit_test(test_exit3),
		cmocka_unit_test(test_return_from_main),
		cmocka_unit_test(test_log_after_shutdown),
		cmocka_unit_test(test_app_handler_chained),
		cmocka_unit_test(test_crash_handler_off),
		cmocka_unit_test(test_fork),
		cmocka_unit_test(test_fork_sinks),
		cmocka_unit_test(test_fork_first_use_race),
		cmocka_unit_test(test_concurrent_flush_shutdown),
		cmocka_unit_test(test_fork_from_sink_close),
		cmocka_unit_test(test_signal_reentry),
	};
	ssize_t n;

	if (argc == 4 && strcmp(argv[1], "--child-return") == 0)
		return child_run(argv[2], argv[3], END_RETURN);
	n = readlink("/proc/self/exe", self_exe, sizeof(self_exe) - 1);
	if (n <= 0)
		return 1;
	self_exe[n] = '\0';
	return cmocka_run_group_tests(tests, NULL, NULL);
}
