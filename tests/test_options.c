/*
 * test_options.c - llog_config.flusher_cpus pins the flusher (a callback
 * sink, which runs on the flusher, reads its own affinity); CPUs that do
 * not exist leave it unpinned without an error; llog_thread_prepare()
 * makes the calling thread's buffer ahead of its first LOG, idempotently,
 * and the records logged afterwards arrive; llog_version() and the
 * header's LLOG_VERSION_NUMBER are the project's version (CMake's,
 * PROJECT_VERSION_NUMBER here).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "llog.h"
#include "llog/sinks.h"
#include "testutil.h"

static cpu_set_t seen_set;
static int seen_calls;
static long records;

static void on_entry(void *user, const struct llog_entry *e)
{
	(void)user;
	(void)e;
	if (seen_calls++ == 0)
		(void)sched_getaffinity(0, sizeof(seen_set), &seen_set);
	records++;
}

static void start(unsigned long long cpus)
{
	struct llog_callback_options o = {.on_entry = on_entry};
	struct llog_config cfg = {.flusher_cpus = cpus};

	seen_calls = 0;
	records = 0;
	CPU_ZERO(&seen_set);
	assert_int_equal(llog_add_sink(llog_callback_sink(&o)), 0);
	assert_int_equal(llog_init(&cfg), 0);
}

static void test_flusher_pinned(void **state)
{
	cpu_set_t mine;
	int first = -1;

	(void)state;
	assert_int_equal(sched_getaffinity(0, sizeof(mine), &mine), 0);
	for (int i = 0; i < 64 && first < 0; i++)
		if (CPU_ISSET(i, &mine))
			first = i;
	if (first < 0)
		skip();
	start(1ull << first);
	LOG_INFO("pinned");
	llog_flush();
	llog_shutdown();
	assert_int_equal(seen_calls, 1);
	assert_int_equal(CPU_COUNT(&seen_set), 1);
	assert_true(CPU_ISSET(first, &seen_set));
}

static void test_flusher_cpus_absent(void **state)
{
	cpu_set_t mine;

	(void)state;
	assert_int_equal(sched_getaffinity(0, sizeof(mine), &mine), 0);
	if (CPU_ISSET(63, &mine))
		skip(); /* a machine with a 64th CPU we may use */
	start(1ull << 63);
	LOG_INFO("not pinned");
	llog_flush();
	llog_shutdown();
	assert_int_equal(seen_calls, 1);
	assert_true(CPU_EQUAL(&seen_set, &mine));
}

static void test_thread_prepare(void **state)
{
	(void)state;
	start(0);
	assert_int_equal(llog_thread_prepare(), 0);
	assert_int_equal(llog_thread_prepare(), 0);
	for (int i = 0; i < 1000; i++)
		LOG_INFO("after prepare %d", i);
	llog_flush();
	llog_shutdown();
	assert_int_equal(records, 1000);
}

static void test_version(void **state)
{
	(void)state;
	assert_int_equal(llog_version(), PROJECT_VERSION_NUMBER);
	assert_int_equal(LLOG_VERSION_NUMBER, PROJECT_VERSION_NUMBER);
}

TEST_MAIN(
	cmocka_unit_test(test_flusher_pinned),
	cmocka_unit_test(test_flusher_cpus_absent),
	cmocka_unit_test(test_thread_prepare),
	cmocka_unit_test(test_version),
)
