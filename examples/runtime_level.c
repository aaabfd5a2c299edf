/*
 * runtime_level.c - changing the level while the service runs (from an admin
 * endpoint or a control thread: llog_set_level is not async-signal-safe, so
 * not from a signal handler; for a signal, keep the levels in a file and
 * set llog_config.levels_signal, or call llog_levels_reload_request() from
 * your own handler: llog.h, "Categories and levels"), and the LLOG_LEVEL
 * environment variable, which overrides the configured level at init:
 *
 *   LLOG_LEVEL=debug ./runtime_level
 *
 * A call below the current level costs one relaxed load and does not
 * evaluate its arguments.
 */
#include <llog.h>
#include <llog/sinks.h>

#include <stdio.h>

static int expensive_calls;

static int expensive(void)
{
	return ++expensive_calls;
}

int main(void)
{
	struct llog_config cfg = {.level = LLOG_INFO};

	if (llog_add_sink(llog_console_sink(NULL)) != 0 || llog_init(&cfg) != 0)
		return 1;
	printf("level at start: %s\n", llog_level_name(llog_get_level()));

	LOG_DEBUG("hidden unless LLOG_LEVEL=debug: %d", expensive());
	LOG_INFO("service up");

	llog_set_level(LLOG_DEBUG); /* e.g. asked by an admin endpoint */
	LOG_DEBUG("now visible: cache size %d", 4096);

	llog_set_level(LLOG_WARN);
	LOG_INFO("hidden again: %d", expensive());
	LOG_WARN("still visible");

	llog_shutdown();
	printf("expensive() ran %d time(s)\n", expensive_calls);
	return 0;
}
