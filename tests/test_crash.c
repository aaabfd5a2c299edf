/*
 * test_crash.c - the crash handler where test_process.c does not reach: a
 * crash of the flusher thread itself, the watchdog that bounds the handler,
 * a stack overflow in a thread that is not the llog_init thread, an
 * application's periodic timer across a recovered crash, and the flusher
 * faulting while an application thread reports its crash, and a crash
 * while the file sink's writer thread is stuck in a write; the first
 * three with a binary file, on the flusher and on a thread of its own
 * (whose queue carries the records' captures, the crash drain's too). Each
 * scenario runs in a child process; the parent checks how it died (with an
 * upper bound on the time, as a hang detector) and what it left in the file
 * sink (through zstdcat and llogcat) and on the console (its stderr).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "llog.h"
#include "llog/sinks.h"
#include "testutil.h"

#include "childproc.h"
#include "scan.h"

/* Upper bound on a crashing child's life: a hang detector, not a timing
 * assertion (the watchdog fires after 5 s). */
#define CHILD_LIMIT_S 20

/* ---- helpers -------------------------------------------------------------- */

/* The file through llogcat (NULL when the build has none). */
static char *read_llogcat(const struct tdir *t)
{
	const char *llogcat = getenv("LLOGCAT");
	char cmd[4096 + 256];

	if (llogcat == NULL)
		return NULL;
	snprintf(cmd, sizeof(cmd), "'%s' '%s'", llogcat, t->log);
	return read_cmd(cmd);
}

/* Records "rec i=I" for I < n appear exactly once and in order. Returns the
 * offset just after the last one. */
static size_t check_records(const char *s, int n)
{
	const char *p = s;
	size_t end = 0;
	int next = 0;

	while ((p = scan_find(p, "rec i=")) != NULL) {
		long v = 0;
		int i;

		assert_int_equal(scan_longs(p + 6, "#", &v, 1), 1);
		i = (int)v;
		if (i != next)
			fprintf(stderr, "record %d where %d was expected\n", i, next);
		assert_int_equal(i, next);
		next++;
		p += 6;
		end = (size_t)(p - s);
	}
	if (next != n)
		fprintf(stderr, "%d records of %d\n", next, n);
	assert_int_equal(next, n);
	return end;
}

/* After the last record: the FATAL crash record naming SIGSEGV, and no
 * other record after it. */
static void check_crash_last(const char *s, size_t last)
{
	const char *c = strstr(s + last, "FATAL");

	assert_non_null(c);
	assert_non_null(strstr(c, "SIGSEGV"));
	assert_null(strstr(c + 5, "FATAL"));
	assert_null(strstr(c, "rec i="));
}

static double now_s(void)
{
	return (double)now_ns() / 1e9;
}

/* A child that must die of SIGSEGV (childproc.h). */
static void run_child(const struct tdir *t, void (*fn)(const struct tdir *))
{
	run_crashing_child(t, fn, CHILD_LIMIT_S);
}

/* The file sink's kind: the binary variants set LLOG_FILE_BINARY; and
 * whether it runs on a thread of its own (BLOCK: nothing dropped). */
static enum llog_file_compression file_kind = LLOG_FILE_ZSTD;
static int file_own;

/* In the child: a file sink (index 0) and a console sink (index 1), then
 * `extra` (index 2, may be NULL), then llog_init. */
/* llog_config.crash_timeout_ms of the next child_init (0: the default). */
static unsigned crash_budget_ms;

static void child_init(const struct tdir *t, struct llog_sink *extra, unsigned interval_ms)
{
	struct llog_config cfg = {.flush_interval_ms = interval_ms,
				  .crash_timeout_ms = crash_budget_ms};
	struct llog_file_options fo = {.path = t->log, .compression = file_kind};
	struct llog_console_options co = {.fd = 2, .color = LLOG_COLOR_NEVER};
	struct llog_sink_options so = {.thread = LLOG_SINK_THREAD_OWN, .full = LLOG_QUEUE_BLOCK};

	if (llog_add_sink_opts(llog_file_sink(&fo), file_own ? &so : NULL) != 0 ||
	    llog_add_sink(llog_console_sink(&co)) != 0)
		_exit(92);
	if (extra != NULL && llog_add_sink(extra) != 0)
		_exit(93);
	if (llog_init(&cfg) != 0)
		_exit(94);
}

/* ---- 1. the flusher crashes in a callback sink ---------------------------------- */

#define FIRST 100  /* committed before the crash, in normal frames */
#define ROUND 100  /* the round during which the flusher crashes */
#define QUEUED 100 /* pushed while the flusher is stuck: on the list */
#define CRASH_AT (FIRST + ROUND / 2)

/* Set by the callback (flusher thread) when it reached CRASH_AT, and by
 * the main thread when the QUEUED records are pushed. seq_cst: test code,
 * the simplest correct order (each side only polls the other's flag). */
static atomic_int at_crash_point, queued;

static void crashing_entry(void *user, const struct llog_entry *e)
{
	static int n;

	(void)user;
	(void)e;
	if (++n != CRASH_AT)
		return;
	atomic_store(&at_crash_point, 1);
	for (int i = 0; i < 10000 && !atomic_load(&queued); i++)
		sleep_ms(1);
	store_null();
}

/* The FIRST records committed by llog_flush (writer: by the flusher's
 * ordinary rounds only, below), then the round that crashes at CRASH_AT,
 * then QUEUED records while the flusher is stuck there. */
static void crash_child(const struct tdir *t, int writer)
{
	struct llog_callback_options cb = {.on_entry = crashing_entry};
	struct llog_stats s;

	child_init(t, llog_callback_sink(&cb), writer ? 5 : 1000);
	for (int i = 0; i < FIRST; i++)
		LOG_INFO("rec i=%d first", i);
	if (!writer)
		llog_flush();
	for (int i = 0; writer && i < 20000; i++) {
		llog_get_stats(&s);
		if (s.written >= FIRST)
			break;
		sleep_ms(1);
	}
	/* The last one is an ERROR: it wakes the flusher for this round. */
	for (int i = FIRST; i < FIRST + ROUND - 1; i++)
		LOG_INFO("rec i=%d round", i);
	LOG_ERROR("rec i=%d round", FIRST + ROUND - 1);
	for (int i = 0; i < 10000 && !atomic_load(&at_crash_point); i++)
		sleep_ms(1);
	for (int i = FIRST + ROUND; i < FIRST + ROUND + QUEUED; i++)
		LOG_INFO("rec i=%d queued", i);
	atomic_store(&queued, 1);
	for (;;)
		pause();
}

static void flusher_crash_child(const struct tdir *t)
{
	crash_child(t, 0);
}

/*
 * The same crash with the FIRST records committed by the flusher's ordinary
 * rounds (a 5 ms interval, no llog_flush): their chunks went to the file
 * sink's writer thread, which may be writing one when the flusher crashes.
 * The crash path lets it finish what it holds and writes the rest: every
 * record once, in order, the crash record last.
 */
static void flusher_crash_writer_child(const struct tdir *t)
{
	crash_child(t, 1);
}

static void check_output(const char *what, const char *s, int n)
{
	size_t last;

	assert_non_null(s);
	fprintf(stderr, "%s: checking %d records and the crash record\n", what, n);
	last = check_records(s, n);
	check_crash_last(s, last);
}

/* child, run in a fresh directory, crashes; its file (zstdcat) and its
 * console (stderr) each hold the n records check_output expects. */
static void expect_file_and_console(void (*child)(const struct tdir *), int n)
{
	struct tdir t;
	char *z, *e;

	tdir_make(&t, "llog_crash_");
	run_child(&t, child);
	z = read_zstdcat(&t);
	e = read_err(&t);
	check_output("zstdcat", z, n);
	check_output("console", e, n);
	free(z);
	free(e);
	tdir_remove(&t);
}

/* child, run in a fresh directory, crashes; its stderr contains each of
 * the strings that follow, up to NULL. */
__attribute__((sentinel)) static void expect_stderr_has(void (*child)(const struct tdir *), ...)
{
	struct tdir t;
	const char *want;
	va_list ap;
	char *e;

	tdir_make(&t, "llog_crash_");
	run_child(&t, child);
	e = read_err(&t);
	va_start(ap, child);
	while ((want = va_arg(ap, const char *)) != NULL)
		if (strstr(e, want) == NULL)
			fail_msg("no \"%s\" in the child's stderr:\n%s", want, e);
	va_end(ap);
	free(e);
	tdir_remove(&t);
}

/* After a fault at address 0x0: the file, read by zstdcat and by llogcat
 * (where there is one), and the console each hold the n records
 * check_output expects, and the file names the address. Returns the
 * console's text (malloc'd). */
static char *check_fault_outputs(const struct tdir *t, int n)
{
	char *z = read_zstdcat(t), *lc = read_llogcat(t), *e = read_err(t);

	check_output("zstdcat", z, n);
	assert_non_null(strstr(z, "at address 0x0"));
	if (lc != NULL)
		check_output("llogcat", lc, n);
	check_output("console", e, n);
	free(z);
	free(lc);
	return e;
}

static void test_flusher_crash_drains(void **state)
{
	void (*child)(const struct tdir *) = (void (*)(const struct tdir *))(uintptr_t)*state;
	struct tdir t;

	atomic_store(&at_crash_point, 0);
	atomic_store(&queued, 0);
	tdir_make(&t, "llog_crash_");
	run_child(&t, child);
	free(check_fault_outputs(&t, FIRST + ROUND + QUEUED));
	/* The first FIRST records are in a normal, compressed frame, the rest
	 * in the raw crash frames: zstd -t accepts the whole file. */
	{
		char cmd[256];
		char *out;

		snprintf(cmd, sizeof(cmd), "zstd -t '%s' 2>&1 && echo ZSTD_OK", t.log);
		out = read_cmd(cmd);
		assert_non_null(strstr(out, "ZSTD_OK"));
		free(out);
	}
	tdir_remove(&t);
}

/* The same crash in the final round (llog_shutdown, as at exit): the list
 * is closed already; everything is drained once, the crash record last. */
static void final_round_crash_child(const struct tdir *t)
{
	struct llog_callback_options cb = {.on_entry = crashing_entry};

	atomic_store(&queued, 1); /* nothing to wait for in the callback */
	child_init(t, llog_callback_sink(&cb), 60000);
	for (int i = 0; i < FIRST + ROUND; i++)
		LOG_INFO("rec i=%d", i);
	llog_shutdown(); /* its final round crashes at CRASH_AT */
	_exit(96);
}

static void test_flusher_crash_in_final_round(void **state)
{
	(void)state;
	expect_file_and_console(final_round_crash_child, FIRST + ROUND);
}

/* ---- 2. the watchdog -------------------------------------------------------- */

/* A sink that faults on the flusher in its N-th write and then blocks
 * forever in its crash path: only the watchdog ends the process. */
struct wedged {
	struct llog_sink base;
	int n;
};

static long wedged_write(struct llog_sink *s, const struct llog_entry *e)
{
	struct wedged *w = (struct wedged *)s;

	(void)e;
	if (++w->n == 20)
		store_null();
	return 0;
}

static long wedged_commit(struct llog_sink *s)
{
	(void)s;
	return 0;
}

static void wedged_close(struct llog_sink *s)
{
	free(s);
}

__attribute__((noreturn)) static long wedged_crash_write(struct llog_sink *s, const struct llog_entry *e, int interrupted)
{
	(void)s;
	(void)e;
	(void)interrupted;
	for (;;)
		pause();
}

__attribute__((noreturn)) static long wedged_crash_commit(struct llog_sink *s, int interrupted)
{
	(void)s;
	(void)interrupted;
	for (;;)
		pause();
}

static const struct llog_sink_ops wedged_ops = {
	.version = LLOG_SINK_VERSION,
	.write = wedged_write,
	.commit = wedged_commit,
	.close = wedged_close,
	.crash_write = wedged_crash_write,
	.crash_commit = wedged_crash_commit,
};

static void wedged_crash_child(const struct tdir *t)
{
	struct wedged *w = calloc(1, sizeof(*w));

	if (w == NULL)
		_exit(95);
	w->base.ops = &wedged_ops;
	child_init(t, &w->base, 20);
	for (int i = 0; i < 100; i++)
		LOG_INFO("rec i=%d", i);
	for (;;)
		pause();
}

/* The next children's crash budget: *state ms (llog_config.crash_timeout_ms). */
static int budget_setup(void **state)
{
	crash_budget_ms = (unsigned)(uintptr_t)*state;
	return 0;
}

static int budget_teardown(void **state)
{
	(void)state;
	crash_budget_ms = 0;
	return 0;
}

/* With a budget of 1 s: the process dies of its signal when the budget is
 * over, not at the 5 s default. */
static void test_watchdog_wedged_crash_sink(void **state)
{
	int64_t t0, took;

	(void)state;
	t0 = now_ms();
	expect_stderr_has(wedged_crash_child, "did not finish in time", NULL);
	took = now_ms() - t0;
	assert_true(took < 5000);
}

/* The application thread crashes while a callback sink sleeps forever on
 * the flusher: the drain's bounded wait, then the re-raised signal. */
static void sleeping_entry(void *user, const struct llog_entry *e)
{
	(void)user;
	if (strstr(e->msg, "sleep") != NULL)
		for (;;)
			sleep_ms(1000);
}

static void sleeping_sink_child(const struct tdir *t)
{
	struct llog_callback_options cb = {.on_entry = sleeping_entry};

	child_init(t, llog_callback_sink(&cb), 20);
	LOG_ERROR("sleep now");
	sleep_ms(200);
	store_null();
}

static void test_watchdog_sleeping_sink(void **state)
{
	(void)state;
	/* Not committed in time (2/5 of a 2 s budget): the handler wrote the
	 * line itself, went on, and the signal ended the process. */
	expect_stderr_has(sleeping_sink_child, "caught SIGSEGV", "not committed", NULL);
}

/* ---- 3. stack overflow in a thread that is not the llog_init thread ---------- */

static volatile int keep_going = 1;

__attribute__((noinline)) static int recurse(volatile char *prev)
{
	volatile char buf[512];

	buf[0] = (char)(prev != NULL ? prev[0] + 1 : 0);
	if (!keep_going)
		return buf[0];
	return recurse(buf) + buf[1];
}

static void *overflow_thread(void *arg)
{
	(void)arg;
	LOG_INFO("rec i=0 before the overflow");
	llog_flush();
	return (void *)(intptr_t)recurse(NULL);
}

static void overflow_child(const struct tdir *t)
{
	pthread_attr_t attr;
	pthread_t th;

	child_init(t, NULL, 50);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 256 * 1024);
	if (pthread_create(&th, &attr, overflow_thread, NULL) != 0)
		_exit(96);
	for (;;)
		pause();
}

static void test_stack_overflow_other_thread(void **state)
{
	(void)state;
	expect_file_and_console(overflow_child, 1);
}

/* ---- 5. fork while another thread reports a crash ------------------------------- */

/* Set on the flusher when the crash record reaches the callback: the
 * report of the main thread's crash is then in progress. seq_cst: test
 * code, each side only polls the other's flag. */
static atomic_int report_started;
static const struct tdir *fork_dir;
/* The read end of the full pipe that is the reporting process's stderr. */
static int report_pipe_rd = -1;

static void fatal_entry(void *user, const struct llog_entry *e)
{
	(void)user;
	if (e->level == LLOG_FATAL)
		atomic_store(&report_started, 1);
}

/* Forks during the report; the grandchild crashes at once: its own crash
 * must be reported (it is not the parent's report in progress). Writes
 * the grandchild's status and whether its stderr has the report to
 * DIR/gc, then empties the full stderr pipe on which the parent's report is
 * blocked, which then ends (before its watchdog). */
static void *forker(void *arg)
{
	char err[160], res[160], buf[4096];
	pid_t g;
	int st = 0, fd;
	ssize_t n;
	FILE *f;

	(void)arg;
	while (!atomic_load(&report_started))
		sleep_ms(1);
	snprintf(err, sizeof(err), "%s/gc_err", fork_dir->dir);
	snprintf(res, sizeof(res), "%s/gc", fork_dir->dir);
	g = fork();
	if (g == 0) {
		fd = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || dup2(fd, 2) < 0)
			_exit(97);
		store_null();
		_exit(98);
	}
	if (g < 0 || waitpid(g, &st, 0) != g)
		return NULL;
	fd = open(err, O_RDONLY);
	n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
	buf[n > 0 ? n : 0] = '\0';
	f = fopen(res, "w");
	if (f != NULL) {
		fprintf(f, "%d %d %d\n", WIFSIGNALED(st), WIFSIGNALED(st) ? WTERMSIG(st) : -1,
			strstr(buf, "caught SIGSEGV") != NULL);
		fclose(f);
	}
	/* Room for the rest of the report (non-blocking: until empty). */
	while (read(report_pipe_rd, buf, sizeof(buf)) > 0)
		;
	return NULL;
}

/* The main thread crashes; its report then blocks writing the backtrace
 * to stderr, a pipe that is full until forker has its result and empties
 * it (else the watchdog would end the process): a long report outside any
 * flusher round, so fork() in another thread goes ahead meanwhile. */
static void fork_during_report_child(const struct tdir *t)
{
	struct llog_callback_options cb = {.on_entry = fatal_entry};
	struct llog_file_options fo = {.path = t->log};
	char fill[4096] = {0};
	pthread_t th;
	int p[2];

	fork_dir = t;
	if (pipe2(p, O_NONBLOCK) != 0)
		_exit(95);
	report_pipe_rd = p[0];
	while (write(p[1], fill, sizeof(fill)) > 0)
		;
	if (fcntl(p[1], F_SETFL, 0) != 0 || dup2(p[1], 2) < 0)
		_exit(95);
	if (llog_add_sink(llog_file_sink(&fo)) != 0 || llog_add_sink(llog_callback_sink(&cb)) != 0 ||
	    llog_init(&(struct llog_config){.flush_interval_ms = 50}) != 0)
		_exit(94);
	if (pthread_create(&th, NULL, forker, NULL) != 0)
		_exit(96);
	LOG_INFO("rec i=0");
	store_null();
}

static void test_fork_during_crash_report(void **state)
{
	struct tdir t;
	char res[160];
	int sig = 0, term = 0, reported = 0;
	FILE *f;

	(void)state;
#if defined(TEST_TSAN)
	skip(); /* threads after a multi-threaded fork: see test_process's test_fork */
#endif
	tdir_make(&t, "llog_crash_");
	run_child(&t, fork_during_report_child);
	snprintf(res, sizeof(res), "%s/gc", t.dir);
	f = fopen(res, "r");
	if (f == NULL)
		fail_msg("the grandchild's crash was not over before its parent died");
	assert_int_equal(fscanf(f, "%d %d %d", &sig, &term, &reported), 3);
	fclose(f);
	assert_true(sig);
	assert_int_equal(term, SIGSEGV);
	assert_true(reported);
	tdir_remove(&t);
}

/* ---- 6. a recovered crash leaves the application's periodic timer alone ---- */

#define TICK_US 20000
#define MORE_TICKS 3
#define TICK_WAIT_S 5

/* SIGALRMs of the application's ITIMER_REAL (lock-free atomic: written in
 * its signal handler). */
static atomic_int ticks;
static sigjmp_buf recover_env;

static void count_tick(int sig)
{
	(void)sig;
	atomic_fetch_add(&ticks, 1);
}

static void recover_segv(int sig)
{
	(void)sig;
	siglongjmp(recover_env, 1);
}

/* The application's SIGSEGV handler (installed before llog_init, so llog
 * chains to it) recovers with siglongjmp; its periodic timer must then go
 * on ticking. Exit status: 0 when MORE_TICKS more ticks came within
 * TICK_WAIT_S, 10 when not, 11 when the crash was not recovered. */
static void recovered_crash_child(const struct tdir *t)
{
	struct itimerval it = {{0, TICK_US}, {0, TICK_US}};
	struct sigaction sa;
	volatile int recovered = 0;
	double deadline;
	int before;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = count_tick;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	sa.sa_handler = recover_segv;
	sa.sa_flags = 0;
	sigaction(SIGSEGV, &sa, NULL);
	if (setitimer(ITIMER_REAL, &it, NULL) != 0)
		_exit(95);
	child_init(t, NULL, 50);
	LOG_INFO("rec i=0 before the crash");
	if (sigsetjmp(recover_env, 1) == 0)
		store_null();
	else
		recovered = 1;
	if (!recovered)
		_exit(11);
	LOG_INFO("rec i=1 after the recovered crash");
	before = atomic_load(&ticks);
	deadline = now_s() + TICK_WAIT_S;
	while (atomic_load(&ticks) < before + MORE_TICKS && now_s() < deadline)
		sleep_ms(1);
	fprintf(stderr, "ticks after the recovery: %d\n", atomic_load(&ticks) - before);
	llog_shutdown();
	_exit(atomic_load(&ticks) >= before + MORE_TICKS ? 0 : 10);
}

static void test_recovered_crash_keeps_itimer(void **state)
{
	struct tdir t;
	char *z;
	int st;

	(void)state;
	tdir_make(&t, "llog_crash_");
	st = run_child_status(&t, recovered_crash_child, CHILD_LIMIT_S);
	if (!WIFEXITED(st))
		fprintf(stderr, "child status %#x\n", st);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	/* The crash was reported before the application recovered. */
	z = read_zstdcat(&t);
	assert_non_null(strstr(z, "caught SIGSEGV"));
	assert_non_null(strstr(z, "rec i=1 after the recovered crash"));
	free(z);
	tdir_remove(&t);
}

/* ---- 6b. the counters after a crash report ---------------------------------- */

#define COUNTED 300

static struct llog_stats counted_s0;

/* On the flusher: every entry it gets makes one LOG there, dropped and
 * counted (arena.md 5): a known number of drops. */
static void logging_entry(void *user, const struct llog_entry *e)
{
	(void)user;
	(void)e;
	LOG_INFO("from the flusher: dropped");
}

/* The application's SIGSEGV handler, chained after llog's report: the
 * counters, read there (llog_get_stats is async-signal-safe), add up.
 * Exit status 0, or the failed check's number. */
static void stats_after_crash(int sig)
{
	struct llog_stats s;

	(void)sig;
	llog_get_stats(&s);
	if (s.logged != s.written + s.dropped)
		_exit(20);
	/* The records and the crash record, all written by the drain. */
	if (s.written - counted_s0.written != COUNTED + 1)
		_exit(21);
	/* The callback's LOG for each entry it got: the records and the
	 * crash record (an application thread's crash: the flusher hands it
	 * out in a round, to every sink). */
	if (s.dropped - counted_s0.dropped != COUNTED + 1)
		_exit(22);
	_exit(0);
}

static void counted_crash_child(const struct tdir *t)
{
	struct llog_callback_options cb = {.on_entry = logging_entry};
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = stats_after_crash;
	sigaction(SIGSEGV, &sa, NULL); /* before llog_init: llog chains to it */
	child_init(t, llog_callback_sink(&cb), 50);
	llog_get_stats(&counted_s0);
	for (int i = 0; i < COUNTED; i++)
		LOG_INFO("rec i=%d", i);
	llog_flush(); /* the callback got them all */
	store_null();
	_exit(12); /* not reached */
}

/*
 * In a handler chained after llog's crash report, the counters add up:
 * logged == written + dropped, the records and the crash record written,
 * every drop counted; and the file holds every record once, then the
 * crash record. (A sink's own statistics need the control lock: not readable
 * from a signal handler, and the process ends there.)
 */
static void test_counters_after_crash(void **state)
{
	struct tdir t;
	char *z;
	int st;

	(void)state;
	tdir_make(&t, "llog_crash_");
	st = run_child_status(&t, counted_crash_child, CHILD_LIMIT_S);
	if (!WIFEXITED(st))
		fprintf(stderr, "child status %#x\n", st);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	z = read_zstdcat(&t);
	check_crash_last(z, check_records(z, COUNTED));
	free(z);
	tdir_remove(&t);
}

/* ---- 7. the flusher faults while an application thread reports ------------- */

/* A callback sink that faults on the flusher (SIGSEGV at 0x0) on the
 * marked record. */
static void crashing_mark(void *user, const struct llog_entry *e)
{
	(void)user;
	if (strstr(e->msg, "MARK") != NULL)
		store_null();
}

#define BEFORE_MARK 200

/* A callback sink (after the file and console sinks) that faults on the
 * flusher, with SIGILL, on the marked record. */
static void faulting_entry(void *user, const struct llog_entry *e)
{
	(void)user;
	if (strstr(e->msg, "MARK") != NULL)
		__builtin_trap();
}

/* BEFORE_MARK records and the marked one wait for the crash's round (no
 * round before it: the start-up round flushed, a long interval, INFO
 * only), then the main thread
 * crashes: the flusher faults in the callback during that report. */
static void fault_in_report_child(const struct tdir *t)
{
	struct llog_callback_options cb = {.on_entry = faulting_entry};

	child_init(t, llog_callback_sink(&cb), 60000);
	/* The flusher's first round runs as it starts: over before the
	 * records (else, on a loaded machine, it could take the mark and
	 * fault before the report this test is about). */
	llog_flush();
	for (int i = 0; i < BEFORE_MARK; i++)
		LOG_INFO("rec i=%d before the mark", i);
	LOG_INFO("rec i=%d MARK", BEFORE_MARK);
	store_null();
}

static void test_flusher_fault_during_report(void **state)
{
	struct tdir t;
	char *e;

	(void)state;
	tdir_make(&t, "llog_crash_");
	/* Dies of the application thread's SIGSEGV, not the flusher's SIGILL. */
	run_child(&t, fault_in_report_child);
	/* The file and console sinks had accepted every record, the marked
	 * one included (they come before the callback): all are committed,
	 * then the crash record of the main thread. */
	e = check_fault_outputs(&t, BEFORE_MARK + 1);
	/* The drain signalled the reporting thread: no 2-second timeout. */
	assert_null(strstr(e, "not committed"));
	free(e);
	tdir_remove(&t);
}

/* ---- 8. a sink whose crash path faults ------------------------------------ */

/* A sink with crash entry points, of which one faults: crash_write
 * (fault_in = 'w') or crash_commit ('c'). Its normal path works. */
struct faulty {
	struct llog_sink base;
	char fault_in;
};

static long faulty_write(struct llog_sink *s, const struct llog_entry *e)
{
	(void)s;
	(void)e;
	return 0;
}

static long faulty_crash_write(struct llog_sink *s, const struct llog_entry *e, int interrupted)
{
	(void)e;
	(void)interrupted;
	if (((struct faulty *)s)->fault_in == 'w')
		store_null();
	return 0;
}

static long faulty_crash_commit(struct llog_sink *s, int interrupted)
{
	(void)interrupted;
	if (((struct faulty *)s)->fault_in == 'c')
		store_null();
	return 0;
}

static const struct llog_sink_ops faulty_ops = {
	.version = LLOG_SINK_VERSION,
	.write = faulty_write,
	.commit = wedged_commit,
	.close = wedged_close,
	.crash_write = faulty_crash_write,
	.crash_commit = faulty_crash_commit,
};

static struct llog_sink *faulty_sink(char fault_in)
{
	struct faulty *f = calloc(1, sizeof(*f));

	if (f == NULL)
		_exit(95);
	f->base.ops = &faulty_ops;
	f->fault_in = fault_in;
	return &f->base;
}

#define BEFORE_FAULT 100

/* A callback sink that faults on the flusher (SIGSEGV at 0x0) on the
 * marked record, and, added before the file and console sinks, a sink
 * whose crash_write faults and one whose crash_commit faults. */
static void faulty_crash_path_child(const struct tdir *t)
{
	struct llog_file_options fo = {.path = t->log, .compression = LLOG_FILE_ZSTD};
	struct llog_console_options co = {.fd = 2, .color = LLOG_COLOR_NEVER};
	struct llog_callback_options cb = {.on_entry = crashing_mark};

	if (llog_add_sink(faulty_sink('w')) != 0 || llog_add_sink(faulty_sink('c')) != 0 ||
	    llog_add_sink(llog_file_sink(&fo)) != 0 || llog_add_sink(llog_console_sink(&co)) != 0 ||
	    llog_add_sink(llog_callback_sink(&cb)) != 0 ||
	    llog_init(&(struct llog_config){.flush_interval_ms = 60000}) != 0)
		_exit(94);
	for (int i = 0; i < BEFORE_FAULT; i++)
		LOG_INFO("rec i=%d before the fault", i);
	LOG_ERROR("rec i=%d MARK", BEFORE_FAULT); /* ERROR: a round now */
	for (;;)
		pause();
}

/* Each sink's crash path is isolated from the others': the two faulting
 * ones are skipped (and named on stderr), and the file and console sinks,
 * after them, commit every record and the crash record; the crash line
 * reaches stderr before any sink is tried. */
static void test_faulty_crash_path_isolated(void **state)
{
	struct tdir t;
	char *e;

	(void)state;
	tdir_make(&t, "llog_crash_");
	run_child(&t, faulty_crash_path_child);
	e = check_fault_outputs(&t, BEFORE_FAULT + 1);
	assert_true(strstr(e, "llog: caught SIGSEGV") < strstr(e, "rec i=0 "));
	assert_non_null(strstr(e, "a sink faulted in its crash path; skipped, the other sinks go on: sink 0\n"));
	assert_non_null(strstr(e, "a sink faulted in its crash path; skipped, the other sinks go on: sink 1\n"));
	free(e);
	tdir_remove(&t);
}

/* ---- 7. a crash while the file sink's writer is stuck in write(2) ------------- */

/*
 * The file's writer thread (llog-file) blocked inside a chunk's write, as on
 * a dead file system: this program's writev, which the library's frame
 * writes call, never returns on that thread once stall_writer is set (and
 * is the system call otherwise). Then the process crashes:
 *   - in the main thread: the flusher's round with the crash record waits
 *     for the writer a second at most, then the console commits it;
 *   - in the flusher (a callback sink faults): the crash path gives the
 *     writer its second and a tenth, then abandons the file.
 * With a backlog, the stalled writer is handed a chunk a round until the
 * file sink holds as many as it can (LLOG__FILE_MAX_CHUNKS, 256): the
 * flusher then waits for the writer before the crash, and gives up a
 * second into the report, the records after that not stored in the file.
 * Either way the process dies of its signal in bounded time, the console
 * has every record and the crash record, and the file keeps exactly what
 * was written before the stall: the records llog_flush put there, whole
 * frames only, no crash record.
 */
static atomic_int stall_writer, writer_stalled, crash_armed;
static int crash_in_flusher, stall_backlog;

/* Rounds of one record each after the stall, with a backlog: more than the
 * file sink's 256 chunks. */
#define BACKLOG_ROUNDS 300

/* The callback sink (index 2): faults at its first record once armed. */
static void armed_crash_entry(void *user, const struct llog_entry *e)
{
	(void)user;
	(void)e;
	if (atomic_load(&crash_armed))
		store_null();
}

ssize_t writev(int fd, const struct iovec *iov, int cnt)
{
	if (atomic_load(&stall_writer)) {
		char name[16] = "";

		if (prctl(PR_GET_NAME, name) == 0 && strcmp(name, "llog-file") == 0) {
			atomic_store(&writer_stalled, 1);
			for (;;)
				pause();
		}
	}
	return syscall(SYS_writev, fd, iov, cnt);
}

#define ON_DISK 100	 /* written by llog_flush before the stall */
#define STALLED 100	 /* handed to the writer, which stalls in them */
#define AFTER_STALL 100 /* pending on the flusher when the process crashes */

static void stuck_writer_child(const struct tdir *t)
{
	struct llog_callback_options cb = {.on_entry = armed_crash_entry};
	int i;

	child_init(t, crash_in_flusher ? llog_callback_sink(&cb) : NULL, 5);
	for (i = 0; i < ON_DISK; i++)
		LOG_INFO("rec i=%d on disk", i);
	llog_flush();
	atomic_store(&stall_writer, 1);
	/* The flusher's ordinary rounds hand these to the writer. */
	for (; i < ON_DISK + STALLED; i++)
		LOG_INFO("rec i=%d stalled", i);
	for (int k = 0; k < 10000 && !atomic_load(&writer_stalled); k++)
		sleep_ms(1);
	if (!atomic_load(&writer_stalled))
		_exit(97); /* no writer thread took a chunk */
	for (int k = 0; stall_backlog && k < BACKLOG_ROUNDS; k++, i++) {
		LOG_INFO("rec i=%d backlog", i);
		sleep_ms(6); /* a round (5 ms) each */
	}
	atomic_store(&crash_armed, crash_in_flusher);
	for (int k = 0; k < AFTER_STALL; k++, i++)
		LOG_INFO("rec i=%d after", i);
	if (crash_in_flusher)
		for (;;)
			pause();
	store_null();
}

static void test_crash_with_stuck_writer(void **state)
{
	int binary = (int)(uintptr_t)*state & 1;
	struct tdir t;
	char cmd[4200], *z, *e, *out;

	crash_in_flusher = ((uintptr_t)*state & 2) != 0;
	stall_backlog = ((uintptr_t)*state & 4) != 0;
	tdir_make(&t, "llog_crash_");
	file_kind = binary ? LLOG_FILE_BINARY : LLOG_FILE_ZSTD;
	run_child(&t, stuck_writer_child);
	file_kind = LLOG_FILE_ZSTD;
	e = read_err(&t);
	check_output("console", e,
		     ON_DISK + STALLED + AFTER_STALL + (stall_backlog ? BACKLOG_ROUNDS : 0));
	/* The file: the records before the stall, whole frames only. */
	z = binary ? read_llogcat(&t) : read_zstdcat(&t);
	if (z != NULL) {
		check_records(z, ON_DISK);
		assert_null(strstr(z, "FATAL"));
	}
	snprintf(cmd, sizeof(cmd), "zstd -t '%s' 2>&1 && echo ZSTD_OK", t.log);
	out = read_cmd(cmd);
	assert_non_null(strstr(out, "ZSTD_OK"));
	free(out);
	free(z);
	free(e);
	tdir_remove(&t);
	if (z == NULL)
		skip(); /* a binary file and no llogcat in this build */
}

/* ---- 6. the same with a binary file (LLOG_FILE_BINARY) ------------------------ */

/* The binary file through llogcat: every record, then the crash record. */
static void check_binary(const struct tdir *t, int n)
{
	char *lc = read_llogcat(t), *e = read_err(t);

	if (lc == NULL)
		skip();
	check_output("llogcat (binary)", lc, n);
	assert_non_null(strstr(lc, "at address 0x0"));
	check_output("console", e, n);
	free(lc);
	free(e);
}

/* The crashes above with a binary file sink: the child, and the records
 * check_binary expects of the file and the console. With the flusher's
 * crash mid-round the binary sink's pending records (raw frames of its
 * binary chunks) and the drained ones (crash_write) follow its committed
 * frames. */
struct binary_params {
	void (*child)(const struct tdir *);
	int n;
	int own; /* the binary sink on a thread of its own: its queue carries
		    the captures, the crash drain's too */
};

static const struct binary_params
	binary_drains = {flusher_crash_child, FIRST + ROUND + QUEUED, 0},
	binary_final_round = {final_round_crash_child, FIRST + ROUND, 0},
	binary_fault_in_report = {fault_in_report_child, BEFORE_MARK + 1, 0},
	binary_own_drains = {flusher_crash_child, FIRST + ROUND + QUEUED, 1},
	binary_writer_drains = {flusher_crash_writer_child, FIRST + ROUND + QUEUED, 0},
	binary_own_final_round = {final_round_crash_child, FIRST + ROUND, 1},
	binary_own_fault_in_report = {fault_in_report_child, BEFORE_MARK + 1, 1};

static void test_binary(void **state)
{
	const struct binary_params *p = *state;
	struct tdir t;

	atomic_store(&at_crash_point, 0);
	atomic_store(&queued, 0);
	tdir_make(&t, "llog_crash_");
	file_kind = LLOG_FILE_BINARY;
	file_own = p->own;
	run_child(&t, p->child);
	file_kind = LLOG_FILE_ZSTD;
	file_own = 0;
	check_binary(&t, p->n);
	tdir_remove(&t);
}

TEST_MAIN(
	TEST_CASE_ARG(test_flusher_crash_drains_flushed, test_flusher_crash_drains,
		      flusher_crash_child),
	TEST_CASE_ARG(test_flusher_crash_drains_writer, test_flusher_crash_drains,
		      flusher_crash_writer_child),
	cmocka_unit_test(test_flusher_crash_in_final_round),
	cmocka_unit_test_prestate_setup_teardown(test_watchdog_wedged_crash_sink, budget_setup,
						 budget_teardown, (void *)(uintptr_t)1000),
	cmocka_unit_test_prestate_setup_teardown(test_watchdog_sleeping_sink, budget_setup,
						 budget_teardown, (void *)(uintptr_t)2000),
	cmocka_unit_test(test_stack_overflow_other_thread),
	cmocka_unit_test(test_fork_during_crash_report),
	cmocka_unit_test(test_recovered_crash_keeps_itimer),
	cmocka_unit_test(test_counters_after_crash),
	cmocka_unit_test(test_flusher_fault_during_report),
	cmocka_unit_test(test_faulty_crash_path_isolated),
	TEST_CASE_ARG(test_crash_with_stuck_writer_text, test_crash_with_stuck_writer, 0),
	TEST_CASE_ARG(test_crash_with_stuck_writer_binary, test_crash_with_stuck_writer, 1),
	TEST_CASE_ARG(test_flusher_crash_with_stuck_writer_text, test_crash_with_stuck_writer, 2),
	TEST_CASE_ARG(test_flusher_crash_with_stuck_writer_binary, test_crash_with_stuck_writer, 3),
	TEST_CASE_ARG(test_crash_with_stuck_writer_backlog, test_crash_with_stuck_writer, 4),
	TEST_CASE_ARG(test_binary_flusher_crash_drains, test_binary, &binary_drains),
	TEST_CASE_ARG(test_binary_flusher_crash_in_final_round, test_binary, &binary_final_round),
	TEST_CASE_ARG(test_binary_flusher_fault_during_report, test_binary, &binary_fault_in_report),
	TEST_CASE_ARG(test_binary_own_flusher_crash_drains, test_binary, &binary_own_drains),
	TEST_CASE_ARG(test_binary_writer_flusher_crash_drains, test_binary, &binary_writer_drains),
	TEST_CASE_ARG(test_binary_own_flusher_crash_in_final_round, test_binary,
		      &binary_own_final_round),
	TEST_CASE_ARG(test_binary_own_flusher_fault_during_report, test_binary,
		      &binary_own_fault_in_report),
)
