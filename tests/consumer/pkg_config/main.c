/*
 * A program built against an installed llog with pkg-config. It logs one
 * line to a console sink on stderr; the test script checks that line.
 */
#include <llog.h>
#include <llog/sinks.h>

#include <stdio.h>

int main(void)
{
	struct llog_console_options opt = {.fd = 2, .level = LLOG_INFO};
	int rc = llog_add_sink(llog_console_sink(&opt));

	if (rc == 0)
		rc = llog_init(NULL);
	if (rc != 0) {
		fprintf(stderr, "llog: %s\n", llog_strerror(rc));
		return 1;
	}
	LOG_INFO("llog consumer %s: hello, %d", "pkg_config", 42);
	llog_shutdown();
	return 0;
}
