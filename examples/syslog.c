/*
 * syslog.c - records to a syslog collector as RFC 5424 messages.
 *
 * Usage: syslog [URL]   (default udp://127.0.0.1:5514; also tcp://host:port,
 * unix:/dev/log). The flusher sends; when nothing listens, the records are
 * lost without slowing the program and the stats say so.
 */
#include <stdio.h>

#include <llog.h>
#include <llog/sinks.h>

int main(int argc, char **argv)
{
	struct llog_syslog_options o = {
		.url = argc > 1 ? argv[1] : "udp://127.0.0.1:5514",
		.app_name = "llog-example",
		.facility = LLOG_FAC_LOCAL0,
		.timeout_ms = 200,
	};
	struct llog_sink *s = llog_syslog_sink(&o);
	struct llog_stats st;

	if (s == NULL) {
		fprintf(stderr, "%s\n", llog_syslog_sink_error());
		return 1;
	}
	if (llog_add_sink(s) != 0 || llog_init(NULL) != 0)
		return 1;
	for (int i = 0; i < 10; i++)
		LOG_INFO("request %d served", i);
	LOG_WARN("disk %d%% full", 91);
	llog_shutdown();
	llog_get_stats(&st);
	printf("logged %llu, written %llu, lost by sinks %llu, write errors %llu\n",
	       (unsigned long long)st.logged, (unsigned long long)st.written,
	       (unsigned long long)st.sink_lost, (unsigned long long)st.write_errors);
	return 0;
}
