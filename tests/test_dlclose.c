/*
 * test_dlclose.c - a shared library that logs, unloaded with its records
 * still queued. Its call sites (format, file, function, plan) are in its
 * own memory; the flusher renders later. llog/detail.h gives every object a
 * destructor that waits until the object's records are rendered, so
 * dlclose() right after the calls loses nothing and reads nothing from
 * unmapped memory. Each scenario runs in a child process (a read from the
 * unmapped library kills it); the library is tests/dso/logging_lib.c, its
 * path the program's first argument.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "llog.h"
#include "llog/sinks.h"
#include "memsink.h"
#include "testutil.h"

#define NTHREADS 4
#define PER_THREAD 1000

static const char *lib_path;

typedef void (*dso_log_fn)(int t, int n);

/* Whether the library is mapped (its path in /proc/self/maps). */
static int lib_mapped(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4096];
	int found = 0;

	if (f == NULL)
		_exit(80);
	while (!found && fgets(line, sizeof(line), f) != NULL)
		found = strstr(line, lib_path) != NULL;
	fclose(f);
	return found;
}

static void *lib_open(dso_log_fn *fn)
{
	void *h = dlopen(lib_path, RTLD_NOW | RTLD_LOCAL);

	if (h == NULL) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		_exit(81);
	}
	*fn = (dso_log_fn)(uintptr_t)dlsym(h, "dso_log");
	if (*fn == NULL)
		_exit(82);
	return h;
}

/* Each "dso rec t=T i=I from the library", T < nthreads, I < PER_THREAD,
 * exactly once and in order per thread, and `byes` times the record of the
 * library's destructor. Returns 0, or an exit code saying what is wrong. */
static int check_entries(const struct memsink *m, int nthreads, int byes)
{
	int next[NTHREADS] = {0};

	for (size_t k = 0; k < m->n; k++) {
		const char *msg = m->e[k].msg;
		char want[96];
		int t, i;

		if (strcmp(msg, "dso destructor of the library") == 0)
			byes--;
		if (strncmp(msg, "dso rec", 7) != 0)
			continue;
		if (sscanf(msg, "dso rec t=%d i=%d", &t, &i) != 2 || t < 0 || t >= nthreads)
			return 70;
		snprintf(want, sizeof(want), "dso rec t=%d i=%d from the library", t, i);
		if (strcmp(msg, want) != 0 || i != next[t])
			return 71;
		next[t]++;
	}
	for (int t = 0; t < nthreads; t++)
		if (next[t] != PER_THREAD)
			return 72;
	return byes == 0 ? 0 : 73;
}

/* Runs fn in a child; it must exit with 0 within CHILD_LIMIT_S (a hang
 * detector: a destructor waiting for itself never returns). */
#define CHILD_LIMIT_S 60

static void run_child(int (*fn)(void))
{
	pid_t pid = fork();
	int st = 0;

	assert_true(pid >= 0);
	if (pid == 0)
		_exit(fn());
	for (int ms = 0;; ms += 10) {
		struct timespec ten = {0, 10 * 1000000};
		pid_t w = waitpid(pid, &st, WNOHANG);

		assert_true(w >= 0);
		if (w == pid)
			break;
		if (ms >= CHILD_LIMIT_S * 1000) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			fail_msg("the child still runs after %d s", CHILD_LIMIT_S);
		}
		nanosleep(&ten, NULL);
	}
	if (!WIFEXITED(st))
		fprintf(stderr, "child status %#x (signal %d)\n", st,
			WIFSIGNALED(st) ? WTERMSIG(st) : 0);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

/* ---- the library unloaded right after it logged ---------------------------- */

static dso_log_fn dso_log;

static void *logger(void *arg)
{
	dso_log((int)(intptr_t)arg, PER_THREAD);
	return NULL;
}

static int unload_child(void)
{
	struct memsink *m = memsink_new(LLOG_TRACE);
	/* No round before the flush: the records wait in the queue. */
	struct llog_config cfg = {.flush_interval_ms = 60000};
	void *h;

	if (memsink_start(m, &cfg) != 0)
		return 83;
	h = lib_open(&dso_log);
	if (run_threads(NTHREADS, logger) != 0)
		return 84;
	if (dlclose(h) != 0)
		return 85;
	if (lib_mapped())
		return 86; /* not unloaded: the test would prove nothing */
	llog_flush();
	return check_entries(m, NTHREADS, 1);
}

static void test_dlclose_with_records_queued(void **state)
{
	(void)state;
	run_child(unload_child);
}

/* ---- a rate-limited site of the library ------------------------------------ */

/* The library's site joined the registry of rate-limited sites, which
 * llog_shutdown walks for its shutdown lines: dlclose must take it out
 * (walked after the unmapping, it kills the child). Its unreported count
 * goes with it: no shutdown line. */
static int limited_child(void)
{
	struct memsink *m = memsink_new(LLOG_TRACE);
	struct llog_config cfg = {.flush_interval_ms = 10};
	void (*limited)(int n);
	size_t recs = 0;
	void *h;

	if (memsink_start(m, &cfg) != 0)
		return 83;
	h = lib_open(&dso_log);
	limited = (void (*)(int))(uintptr_t)dlsym(h, "dso_log_limited");
	if (limited == NULL)
		return 82;
	limited(105);
	if (dlclose(h) != 0)
		return 85;
	if (lib_mapped())
		return 86;
	llog_shutdown();
	for (size_t k = 0; k < m->n; k++) {
		if (strncmp(m->e[k].msg, "dso limited", 11) == 0)
			recs++;
		else if (strstr(m->e[k].msg, "suppressed by the rate limit") != NULL)
			return 89;
	}
	return recs == 11 ? 0 : 90;
}

static void test_dlclose_rate_limited_site(void **state)
{
	(void)state;
	run_child(limited_child);
}

/* ---- dlclose from a sink callback: no deadlock ----------------------------- */

static void *hook_handle;

/* On the flusher: unloads the library when the marked entry comes (its
 * records were all rendered before: flushed). */
static void close_hook(struct memsink *m, const struct llog_entry *e)
{
	(void)m;
	if (hook_handle != NULL && strstr(e->msg, "close the library") != NULL) {
		if (dlclose(hook_handle) != 0)
			_exit(87);
		hook_handle = NULL;
	}
}

static int close_in_callback_child(void)
{
	struct memsink *m = memsink_new(LLOG_TRACE);
	struct llog_config cfg = {.flush_interval_ms = 60000};

	m->hook = close_hook;
	if (memsink_start(m, &cfg) != 0)
		return 83;
	hook_handle = lib_open(&dso_log);
	dso_log(0, PER_THREAD);
	llog_flush();
	LOG_INFO("close the library");
	llog_flush(); /* returns: the destructor on the flusher did not wait */
	if (hook_handle != NULL || lib_mapped())
		return 88;
	llog_shutdown();
	/* The destructor's record came after the flusher's dlclose
	 * returned: rendered from the unmapped library, it would crash.
	 * The destructor logged from the flusher: dropped and counted. */
	return check_entries(m, 1, 0);
}

static void test_dlclose_in_sink_callback(void **state)
{
	(void)state;
	run_child(close_in_callback_child);
}

/* ---- llog not running, and at exit ----------------------------------------- */

/* Before llog_init and after llog_shutdown the library's LOG calls are
 * written synchronously; its destructor does not wait for anything. */
static int not_running_child(void)
{
	struct memsink *m = memsink_new(LLOG_TRACE);
	void *h = lib_open(&dso_log);

	dso_log(0, 3);
	if (dlclose(h) != 0)
		return 85;
	if (memsink_start(m, NULL) != 0)
		return 83;
	h = lib_open(&dso_log);
	dso_log(0, PER_THREAD);
	llog_shutdown();
	if (dlclose(h) != 0 || lib_mapped())
		return 86;
	return check_entries(m, 1, 0); /* its destructor's record went to stderr */
}

static void test_dlclose_not_running(void **state)
{
	(void)state;
	run_child(not_running_child);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_dlclose_with_records_queued),
	cmocka_unit_test(test_dlclose_rate_limited_site),
	cmocka_unit_test(test_dlclose_in_sink_callback),
	cmocka_unit_test(test_dlclose_not_running),
};

int main(int argc, char **argv)
{
	lib_path = test_arg(argc, argv, "path of logging_lib.so");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
