/*
 * flight_recorder.c - the backtrace (flight recorder): DEBUG records are
 * not written while all is well, but the last ones are kept, and an ERROR
 * writes them first, marked "[backtrace]", so the context of a failure is
 * in the log without paying for DEBUG output all the time. They keep
 * their fields and context (which request they belong to).
 * llog_backtrace_dump() writes them on demand (an admin endpoint).
 *
 * The example counts what the sink got and exits 1 when it differs.
 */
#include <llog.h>
#include <llog/sinks.h>

#include <stdio.h>

static int kept, written;

static void count(void *user, const struct llog_entry *e)
{
	(void)user;
	if (e->backtrace)
		kept++;
	else
		written++;
}

static void handle(int request)
{
	LLOG_CTX_SCOPE("request", (long)request);

	LOG_DEBUG("parsing headers");          /* kept, not written */
	LOG_DEBUG("cache miss for key %d", request * 7);
	if (request == 3)
		LOG_ERROR("backend timed out"); /* writes the last DEBUGs first */
	else
		LOG_INFO("request done");
}

int main(void)
{
	struct llog_config cfg = {
		.level = LLOG_INFO,          /* DEBUG is not written... */
		.backtrace_records = 4,      /* ...but the last 4 are kept */
		.backtrace_level = LLOG_DEBUG,
		.backtrace_trigger = LLOG_ERROR,
	};
	struct llog_console_options co = {.fd = 1};
	struct llog_callback_options cb = {.on_entry = count};
	int rc;

	if (llog_add_sink(llog_console_sink(&co)) != 0 ||
	    llog_add_sink(llog_callback_sink(&cb)) != 0 || llog_init(&cfg) != 0)
		return 1;
	for (int r = 1; r <= 3; r++)
		handle(r);
	LOG_DEBUG("after the error: kept again");
	rc = llog_backtrace_dump(); /* on demand: written now */
	llog_shutdown();
	/* 2 INFO + the ERROR written; 4 kept before the ERROR, 1 dumped */
	printf("written %d, from the backtrace %d, dump %d\n", written, kept, rc);
	return written == 3 && kept == 5 && rc == 0 ? 0 : 1;
}
