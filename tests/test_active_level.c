/*
 * test_active_level.c - built with LLOG_ACTIVE_LEVEL=LLOG_WARN: calls below
 * WARN are removed at compile time (their arguments are never evaluated,
 * whatever the runtime level), calls at or above it work.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "llog.h"
#include "memsink.h"
#include "testutil.h"

static int evaluated;

static int side_effect(void)
{
	return ++evaluated;
}

static void test_below_active_level_removed(void **state)
{
	struct memsink *m = memsink_new(LLOG_TRACE);

	(void)state;
	assert_int_equal(LLOG_ACTIVE_LEVEL, LLOG_WARN);
	assert_int_equal(memsink_start(m, NULL), 0);
	llog_set_level(LLOG_TRACE); /* runtime allows everything */
	LOG_TRACE("gone %d", side_effect());
	LOG_DEBUG("gone %d", side_effect());
	LOG_INFO("gone %d", side_effect());
	assert_int_equal(evaluated, 0);
	LOG_WARN("kept %d", side_effect());
	LOG_ERROR("kept %d", side_effect());
	assert_int_equal(evaluated, 2);
	llog_shutdown();
	assert_int_equal(m->n, 2);
	assert_string_equal(m->e[0].msg, "kept 1");
	assert_string_equal(m->e[1].msg, "kept 2");
	memsink_free(m);
}

TEST_MAIN(
	cmocka_unit_test(test_below_active_level_removed),
)
