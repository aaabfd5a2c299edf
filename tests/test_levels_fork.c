/*
 * test_levels_fork.c - a fork child can change the levels while another
 * thread of its parent was changing them at the fork: the levels writer's
 * lock (set_lock, levels.c) is not left held in the child.
 *
 * One thread changes the default level in a loop (set_lock held for most
 * of each turn); the main thread forks; each child changes the level,
 * reads it back and exits. A child that inherits set_lock held hangs
 * (killed by its alarm).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "llog.h"
#include "memsink.h"
#include "testutil.h"

#define FORKS 300

static int stop; /* __atomic builtins */

static void *changer(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		llog_set_level(LLOG_INFO);
		llog_set_level(LLOG_WARN);
	}
	return NULL;
}

static void test_fork_while_setting_levels(void **state)
{
	struct memsink *m = memsink_new(LLOG_TRACE);
	struct llog_config cfg = {.level = LLOG_INFO};
	pthread_t t;
	int hung = 0, bad = 0;

	(void)state;
	unsetenv("LLOG_LEVEL");
	unsetenv("LLOG_LEVEL_FILE");
	assert_int_equal(memsink_start(m, &cfg), 0);
	assert_int_equal(llog_set_levels("info,net=debug"), 0);
	assert_int_equal(pthread_create(&t, NULL, changer, NULL), 0);
	for (int i = 0; i < FORKS; i++) {
		int st;
		pid_t pid = fork();

		assert_true(pid >= 0);
		if (pid == 0) {
			alarm(5);
			llog_set_level(LLOG_ERROR);
			_exit(llog_get_level() == LLOG_ERROR &&
					      llog_category_level("net") == LLOG_DEBUG
				      ? 0
				      : 1);
		}
		assert_int_equal(waitpid(pid, &st, 0), pid);
		if (WIFSIGNALED(st))
			hung++;
		else if (WEXITSTATUS(st) != 0)
			bad++;
		if (hung != 0)
			break;
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	assert_int_equal(pthread_join(t, NULL), 0);
	llog_shutdown();
	memsink_free(m);
	llog_set_level(LLOG_TRACE);
	assert_int_equal(hung, 0);
	assert_int_equal(bad, 0);
}

TEST_MAIN(
	cmocka_unit_test(test_fork_while_setting_levels),
)
