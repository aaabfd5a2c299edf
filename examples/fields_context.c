/*
 * fields_context.c - structured fields and per-thread context: a record's
 * key/value pairs (LOG_INFO_KV) and the context the thread carries
 * (llog_ctx_set, LLOG_CTX_SCOPE), in every output: text lines after a
 * TAB, JSON members under "fields", RFC 5424 structured data, journald
 * fields. Here as JSON lines on stdout, one object a record.
 */
#include <llog.h>
#include <llog/sinks.h>

#include <stdbool.h>

static void handle(long request, const char *user)
{
	LLOG_CTX_SCOPE("request", request); /* until the end of this block */

	LOG_INFO_KV(("user", user, "bytes", 512u, "cached", (_Bool) true), "request served");
	LOG_WARN_KV(("latency_ms", 87.5), "slow backend");
}

int main(void)
{
	struct llog_console_options co = {.fd = 1, .format = LLOG_FORMAT_JSON};

	if (llog_add_sink(llog_console_sink(&co)) != 0 || llog_init(NULL) != 0)
		return 1;
	if (llog_ctx_set("service", "checkout") != 0) /* every record of this thread */
		return 1;
	handle(1001, "alice");
	handle(1002, "bob");
	LOG_INFO("no request now: only the service's context");
	llog_shutdown();
	return 0;
}
