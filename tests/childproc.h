/*
 * childproc.h - helpers for tests whose scenarios run in a child process
 * and are checked afterwards from what it left (test-only, header-only;
 * include it in one file of a test program): a scratch directory with the
 * file sink's path and the child's stderr, reading a command's output, the
 * signal actions a program starts with, a fork for a test's child, a
 * function run in a child (and one that must crash, bounded in time), a
 * real NULL store, and the sanitizer options such children need.
 */
#ifndef LLOG_TEST_CHILDPROC_H
#define LLOG_TEST_CHILDPROC_H

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sanitizer.h"
#include "testutil.h"

/* The sanitizers' own handlers for these signals would be llog's
 * "previous" handlers and end the child with an exit code instead. */
#ifdef TEST_ASAN
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "handle_segv=0:handle_sigbus=0:handle_sigill=0:handle_sigfpe=0:handle_abort=0";
}
#endif
#ifdef TEST_TSAN
const char *__tsan_default_options(void);
const char *__tsan_default_options(void)
{
	return "handle_segv=0:handle_sigbus=0:handle_sigill=0:handle_sigfpe=0:handle_abort=0";
}
#endif

/* Not every test program uses every helper. */
#define CHILDPROC_FN static __attribute__((unused))

struct tdir {
	char dir[64];
	char log[128]; /* file sink */
	char err[128]; /* the child's stderr: the console sink */
};

/* A fresh directory /tmp/<prefix>XXXXXX with the two paths in it. */
CHILDPROC_FN void tdir_make(struct tdir *t, const char *prefix)
{
	snprintf(t->dir, sizeof(t->dir), "/tmp/%sXXXXXX", prefix);
	assert_non_null(mkdtemp(t->dir));
	snprintf(t->log, sizeof(t->log), "%s/app.log.zst", t->dir);
	snprintf(t->err, sizeof(t->err), "%s/stderr.txt", t->dir);
}

CHILDPROC_FN void tdir_remove(struct tdir *t)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", t->dir);
	assert_int_equal(system(cmd), 0);
}

/* The whole output of a shell command (NUL-terminated, malloc'd); *rc
 * (when not NULL) gets its exit status, -1 when it did not exit. */
CHILDPROC_FN char *run_cmd(const char *cmd, int *rc)
{
	FILE *p = popen(cmd, "r");
	size_t len = 0, cap = 1 << 16;
	char *s = malloc(cap);
	size_t n;
	int st;

	assert_non_null(p);
	assert_non_null(s);
	while ((n = fread(s + len, 1, cap - len - 1, p)) > 0) {
		len += n;
		if (cap - len < 4096) {
			cap *= 2;
			s = realloc(s, cap);
			assert_non_null(s);
		}
	}
	s[len] = '\0';
	st = pclose(p);
	if (rc != NULL)
		*rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	return s;
}

CHILDPROC_FN char *read_cmd(const char *cmd)
{
	return run_cmd(cmd, NULL);
}

CHILDPROC_FN char *read_zstdcat(const struct tdir *t)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "zstdcat '%s' 2>/dev/null", t->log);
	return read_cmd(cmd);
}

CHILDPROC_FN char *read_err(const struct tdir *t)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "cat '%s'", t->err);
	return read_cmd(cmd);
}

/* fork(2) for a test's child, the stdio buffers flushed first (the child
 * does not write the parent's pending output again); fails the test when
 * fork fails. Returns 0 in the child, the child's pid in the parent. */
CHILDPROC_FN pid_t fork_child(void)
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	return pid;
}

/* In a child: its stderr goes to path (appended); _exit(90) if it cannot. */
CHILDPROC_FN void child_stderr_to(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);

	if (fd < 0 || dup2(fd, 2) < 0)
		_exit(90);
	if (fd != 2)
		close(fd);
}

/* cmocka catches these signals in the test process: the child starts
 * from the default actions, as a program would. */
CHILDPROC_FN void default_actions(void)
{
	static const int sigs[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGALRM};

	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		signal(sigs[i], SIG_DFL);
}

/* Runs fn in a child process (from the default signal actions) that exits
 * with what fn returns; returns its wait status. */
CHILDPROC_FN int in_child(int (*fn)(void))
{
	pid_t pid;
	int st;

	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		default_actions();
		_exit(fn());
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	return st;
}

/* Runs fn(t) in a child process whose stderr goes to t->err, from the
 * default signal actions; waits at most limit_s seconds for it (a hang
 * detector, not a timing assertion: then kills it and fails). Returns its
 * wait status. */
CHILDPROC_FN int run_child_status(const struct tdir *t, void (*fn)(const struct tdir *),
				  int limit_s)
{
	int64_t t0 = now_ms();
	pid_t pid = fork();
	int st = 0;

	assert_true(pid >= 0);
	if (pid == 0) {
		child_stderr_to(t->err);
		default_actions();
		fn(t);
		_exit(91);
	}
	for (;;) {
		pid_t w = waitpid(pid, &st, WNOHANG);

		assert_true(w >= 0);
		if (w == pid)
			break;
		if (now_ms() - t0 > (int64_t)limit_s * 1000) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			fail_msg("the crashing child still runs after %d s", limit_s);
		}
		sleep_ms(10);
	}
	fprintf(stderr, "child ended after %.2f s\n", (double)(now_ms() - t0) / 1000);
	return st;
}

/* run_child_status, and the child must have died of SIGSEGV. */
CHILDPROC_FN void run_crashing_child(const struct tdir *t, void (*fn)(const struct tdir *),
				     int limit_s)
{
	int st = run_child_status(t, fn, limit_s);

	if (!WIFSIGNALED(st))
		fprintf(stderr, "child status %#x\n", st);
	assert_true(WIFSIGNALED(st));
	assert_int_equal(WTERMSIG(st), SIGSEGV);
}

/* volatile: the compiler cannot see that it is NULL. */
static int *volatile null_ptr;

/* A real fault, not UBSan's null check (which would exit first). */
__attribute__((noinline, unused, no_sanitize("undefined"))) static void store_null(void)
{
	*null_ptr = 1;
}

#endif /* LLOG_TEST_CHILDPROC_H */
