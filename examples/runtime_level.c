/*
 * runtime_level.c - changing the level while the service runs (for example
 * from a SIGHUP handler or an admin endpoint), and the LLOG_LEVEL environment
 * variable, which overrides the configured level at init:
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

	llog_set_level(LLOG_DEBUG); /* e.g. on SIGHUP */
	LOG_DEBUG("now visible: cache size %d", 4096);

	llog_set_level(LLOG_WARN);
	LOG_INFO("hidden again: %d", expensive());
	LOG_WARN("still visible");

	llog_shutdown();
	printf("expensive() ran %d time(s)\n", expensive_calls);
	return 0;
}
