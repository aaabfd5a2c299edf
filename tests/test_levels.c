/*
 * test_levels.c - the runtime level (set/get, a disabled call does not
 * evaluate its arguments), the LLOG_LEVEL environment override at init
 * (valid, case-insensitive, invalid ignored) and per-sink minimum levels.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "llog.h"
#include "memsink.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_runtime_level),
		cmocka_unit_test(test_env_overrides_config),
		cmocka_unit_test(test_sink_levels),
		cmocka_unit_test(test_level_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
