/*
 * json_lines.c - JSON lines on stdout, one object per record, for log
 * shippers (any sink takes a format; here the console sink).
 */
#include <llog.h>
#include <llog/sinks.h>

int main(void)
{
	struct llog_console_options o = {.fd = 1, .format = LLOG_FORMAT_JSON};

	if (llog_add_sink(llog_console_sink(&o)) != 0 || llog_init(NULL) != 0)
		return 1;
	LOG_INFO("user %s logged in", "ada");
	LOG_WARN("quotes \" and newlines\nare escaped");
	llog_shutdown();
	return 0;
}
