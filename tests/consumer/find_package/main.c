/*
 * A program built against an installed (or add_subdirectory'd) llog. It logs
 * one line to a console sink on stderr; the test script checks that line.
 */
#include <llog.h>
#include <llog/sinks.h>

#include <stdio.h>

#ifndef CONSUMER
#define CONSUMER "consumer"
#endif

int main(void)
{
	int rc = llog_add_sink(llog_console_sink(NULL));

	if (rc == 0)
		rc = llog_init(NULL);
	if (rc != 0) {
		fprintf(stderr, "llog: %s\n", llog_strerror(rc));
		return 1;
	}
	LOG_INFO("llog consumer %s: hello, %d", CONSUMER, 42);
	llog_shutdown();
	return 0;
}
