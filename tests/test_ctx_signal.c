/*
 * test_ctx_signal.c - a signal handler that logs while its thread changes
 * its context: the handler's record never reads the
 * context half rewritten. llog is not running, so every handler's LOG
 * takes the synchronous path, which reads the owner's context; a timer
 * fires every 20 us while the thread flips a context string between 1 and
 * 999 bytes. A torn read shows as a crash or a garbage field length (a
 * hang, caught by ctest's timeout); the handler's lines are checked for
 * well-formed fields (the value is 1 or 999 'A's, or no context at all).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include <cmocka.h>

#include "llog.h"
#include "sanitizer.h"
#include "testutil.h"

#ifdef TEST_TSAN
/* TSan runs handlers at its own points and slowly: a 20 us timer would
 * starve the loop. */
#define ITERS 20000
#define PERIOD_US 500
#elif defined(TEST_ASAN)
/* Each iteration is a few times slower under ASan: fewer of them, the
 * same timer (the handler still lands inside every step of the loop). */
#define ITERS 50000
#define PERIOD_US 20
#else
#define ITERS 200000
#define PERIOD_US 20
#endif

static volatile sig_atomic_t hits;

static void on_timer(int sig)
{
	(void)sig;
	hits++;
	LOG_INFO("h");
}

/* Each line "... h" or "... h<TAB>k00="A..." k01=..." with k00 1 or 999
 * bytes of 'A'. Returns the number of lines. */
static long check_lines(FILE *f)
{
	static char line[8192];
	long n = 0;

	while (fgets(line, sizeof(line), f) != NULL) {
		char *tab = strchr(line, '\t'), *q, *end;

		n++;
		if (tab == NULL)
			continue; /* no context: the handler interrupted a change */
		assert_int_equal(strncmp(tab, "\tk00=\"", 6), 0);
		q = tab + 6;
		end = strchr(q, '"');
		assert_non_null(end);
		assert_true(end - q == 1 || end - q == 999);
		for (char *p = q; p < end; p++)
			assert_int_equal(*p, 'A');
	}
	return n;
}

static void test_handler_during_change(void **state)
{
	static char small[2] = "A", longv[1000], v[64];
	struct itimerval it = {{0, PERIOD_US}, {0, PERIOD_US}}, off = {{0, 0}, {0, 0}};
	char key[16], path[] = "/tmp/llog_ctx_signal_XXXXXX";
	int fd = mkstemp(path), saved = dup(2);
	FILE *f;

	(void)state;
	assert_true(fd >= 0 && saved >= 0);
	memset(longv, 'A', sizeof(longv) - 1);
	memset(v, 'A', sizeof(v) - 1);
	assert_int_equal(llog_ctx_set_str("k00", small), 0);
	for (int i = 1; i < 16; i++) {
		snprintf(key, sizeof(key), "k%02d", i);
		assert_int_equal(llog_ctx_set_str(key, v), 0);
	}
	assert_int_equal(dup2(fd, 2), 2); /* the synchronous lines */
	signal(SIGALRM, on_timer);
	setitimer(ITIMER_REAL, &it, NULL);
	for (long i = 0; i < ITERS; i++)
		(void)llog_ctx_set_str("k00", (i & 1) ? longv : small);
	setitimer(ITIMER_REAL, &off, NULL);
	signal(SIGALRM, SIG_DFL);
	dup2(saved, 2);
	close(saved);
	f = fdopen(fd, "r");
	assert_non_null(f);
	rewind(f);
	assert_int_equal(check_lines(f), (long)hits);
	assert_true(hits > 0);
	fclose(f);
	unlink(path);
	llog_ctx_clear();
}

TEST_MAIN(
	cmocka_unit_test(test_handler_during_change),
)
