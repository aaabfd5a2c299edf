/*
 * test_levels.c - the runtime level (set/get, a disabled call does not
 * evaluate its arguments), the LLOG_LEVEL environment override at init
 * (valid, case-insensitive, invalid ignored), per-sink minimum levels, and
 * levels that are not a record's level (LLOG_OFF, out of range), as a
 * constant and as a call site made at run time: never logged, never fatal,
 * never counted (in a child process, where an abort would show).
 */
#define _GNU_SOURCE
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "childproc.h"
#include "llog.h"
#include "memsink.h"
#include "testutil.h"

static int evaluated;

static int side_effect(void)
{
	return ++evaluated;
}

static void test_runtime_level(void **state)
{
	struct memsink *m = memsink_new(LLOG_TRACE);
	struct llog_config cfg = {.level = LLOG_WARN};

	(void)state;
	unsetenv("LLOG_LEVEL");
	evaluated = 0;
	assert_int_equal(memsink_start(m, &cfg), 0);
	assert_int_equal(llog_get_level(), LLOG_WARN);
	LOG_INFO("hidden %d", side_effect());
	LOG_DEBUG("hidden %d", side_effect());
	assert_int_equal(evaluated, 0); /* arguments not evaluated */
	LOG_WARN("shown %d", side_effect());
	assert_int_equal(evaluated, 1);
	llog_set_level(LLOG_DEBUG);
	assert_int_equal(llog_get_level(), LLOG_DEBUG);
	LOG_DEBUG("now shown");
	LOG_TRACE("still hidden %d", side_effect());
	llog_set_level(LLOG_OFF);
	LOG_FATAL("off hides even fatal %d", side_effect());
	llog_set_level((enum llog_level)99); /* invalid: ignored */
	assert_int_equal(llog_get_level(), LLOG_OFF);
	llog_shutdown();
	assert_int_equal(evaluated, 1);
	assert_int_equal(m->n, 2);
	assert_string_equal(m->e[0].msg, "shown 1");
	assert_int_equal(m->e[0].level, LLOG_WARN);
	assert_string_equal(m->e[1].msg, "now shown");
	memsink_free(m);
	llog_set_level(LLOG_TRACE);
}

static void test_env_overrides_config(void **state)
{
	static const struct {
		const char *env;
		enum llog_level want;
	} cases[] = {
		{"debug", LLOG_DEBUG}, {"ERROR", LLOG_ERROR}, {"Warn", LLOG_WARN},
		{"warning", LLOG_WARN}, {"off", LLOG_OFF}, {"trace", LLOG_TRACE},
		{"bogus", LLOG_INFO}, /* invalid: the configured level stays */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct memsink *m = memsink_new(LLOG_TRACE);
		struct llog_config cfg = {.level = LLOG_INFO};

		setenv("LLOG_LEVEL", cases[i].env, 1);
		assert_int_equal(memsink_start(m, &cfg), 0);
		assert_int_equal(llog_get_level(), cases[i].want);
		llog_shutdown();
		memsink_free(m);
	}
	unsetenv("LLOG_LEVEL");
	llog_set_level(LLOG_TRACE);
}

static void test_sink_levels(void **state)
{
	struct memsink *all = memsink_new(LLOG_TRACE);
	struct memsink *errs = memsink_new(LLOG_ERROR);

	(void)state;
	assert_int_equal(llog_add_sink(&errs->base), 0);
	assert_int_equal(memsink_start(all, NULL), 0);
	LOG_TRACE("t");
	LOG_INFO("i");
	LOG_ERROR("e");
	/* (LOG_FATAL aborts: test_process checks it in a child.) */
	LOG_WARN("w");
	llog_shutdown();
	assert_int_equal(all->n, 4);
	assert_int_equal(errs->n, 1);
	assert_string_equal(errs->e[0].msg, "e");
	/* sequence numbers are global, shared by all sinks */
	assert_int_equal(errs->e[0].seq, all->e[2].seq);
	memsink_free(all);
	memsink_free(errs);
}

static void test_level_names(void **state)
{
	(void)state;
	assert_string_equal(llog_level_name(LLOG_TRACE), "TRACE");
	assert_string_equal(llog_level_name(LLOG_WARN), "WARN");
	assert_string_equal(llog_level_name(LLOG_FATAL), "FATAL");
	assert_string_equal(llog_level_name((enum llog_level)17), "?");
}

static struct llog_stats stats_now(void)
{
	struct llog_stats s;

	llog_get_stats(&s);
	return s;
}

/* ---- levels that are not a record's level -------------------------------- */

/* Child: exits 0 when the checks hold, else the number of the failed one
 * (an abort shows as SIGABRT). */
static int levels_child(void)
{
	struct memsink *m = memsink_new(LLOG_TRACE);
	struct llog_stats before, after;
	int args_evaluated = 0;

	if (memsink_start(m, NULL) != 0)
		return 10;
	before = stats_now();
	LOG(LLOG_OFF, "off %d", ++args_evaluated);
	LOG(7, "seven %d", ++args_evaluated);
	LOG(-1, "minus one %d", ++args_evaluated);
	LOG((enum llog_level)INT_MAX, "max %d", ++args_evaluated);
	LOG_INFO("kept %d", 1);
	llog_flush();
	after = stats_now();
	if (args_evaluated != 0)
		return 11; /* compiled out: arguments not args_evaluated */
	if (m->n != 1 || strcmp(m->e[0].msg, "kept 1") != 0)
		return 12;
	if (after.logged - before.logged != 1 || after.written - before.written != 1 ||
	    after.dropped != before.dropped)
		return 13;
	llog_shutdown();
	return 0;
}

/* fn in a child, which must exit with 0 (else the number of the failed
 * check; an abort shows as SIGABRT). */
static void expect_child_ok(int (*fn)(void))
{
	int st = in_child(fn);

	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

static void test_level_off_constant(void **state)
{
	(void)state;
	expect_child_ok(levels_child);
}

/*
 * A call site whose level is a run-time value, as a C++ LOG with a
 * variable level makes it (a static initialised at its first pass): the
 * site LOG would define, passed to llog__log. Levels in range are logged,
 * the others not, and nothing aborts.
 */
static volatile int runtime_levels[] = {LLOG_OFF, LLOG_INFO, 6, 7, -1, LLOG_FATAL + 1,
					LLOG_TRACE, INT_MAX, INT_MIN, LLOG_ERROR, 1000};

static int runtime_child(void)
{
	struct memsink *m = memsink_new(LLOG_TRACE);
	size_t n = sizeof(runtime_levels) / sizeof(runtime_levels[0]), want = 0;
	struct llog_stats before, after;

	if (memsink_start(m, NULL) != 0)
		return 10;
	before = stats_now();
	for (size_t i = 0; i < n; i++) {
		int lvl = runtime_levels[i];
		/* Static, as LOG's: the flusher reads the site later. */
		static struct llog_site sites[sizeof(runtime_levels) / sizeof(runtime_levels[0])];

		sites[i] = (struct llog_site){"runtime %zu", __FILE__, __func__, __LINE__, lvl,
					      0, {0}, NULL, 0};
		llog__log(&sites[i], "runtime %zu", i);
		if (lvl >= LLOG_TRACE && lvl < LLOG_FATAL)
			want++;
	}
	llog_flush();
	after = stats_now();
	if (m->n != want)
		return 11;
	for (size_t i = 0, k = 0; i < n; i++) {
		char text[32];
		int lvl = runtime_levels[i];

		if (lvl < LLOG_TRACE || lvl >= LLOG_FATAL)
			continue;
		snprintf(text, sizeof(text), "runtime %zu", i);
		if (strcmp(m->e[k].msg, text) != 0 || m->e[k].level != lvl)
			return 12;
		k++;
	}
	if (after.logged - before.logged != want || after.written - before.written != want)
		return 13;
	llog_shutdown();
	return 0;
}

static void test_level_runtime(void **state)
{
	(void)state;
	/* LLOG_FATAL is left out of the table: it would abort, by design. */
	for (size_t i = 0; i < sizeof(runtime_levels) / sizeof(runtime_levels[0]); i++)
		assert_int_not_equal(runtime_levels[i], LLOG_FATAL);
	expect_child_ok(runtime_child);
}

TEST_MAIN(
	cmocka_unit_test(test_runtime_level),
	cmocka_unit_test(test_env_overrides_config),
	cmocka_unit_test(test_sink_levels),
	cmocka_unit_test(test_level_names),
	cmocka_unit_test(test_level_off_constant),
	cmocka_unit_test(test_level_runtime),
)
