/*
 * quickstart.c - the smallest complete llog program (the README's example).
 *
 * Add a sink, start llog, log, shut down. LOG_INFO() only copies its
 * arguments; the flusher thread formats the line and writes it to stderr.
 */
#include <llog.h>
#include <llog/sinks.h>

int main(void)
{
	/* llog owns the sink from here on and closes it at shutdown. */
	if (llog_add_sink(llog_console_sink(NULL)) != 0)
		return 1;
	if (llog_init(NULL) != 0) /* NULL: default configuration */
		return 1;

	LOG_INFO("hello from %s: %d + %d = %d", "llog", 2, 2, 2 + 2);

	llog_shutdown(); /* writes everything still pending, then stops */
	return 0;
}
