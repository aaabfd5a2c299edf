/*
 * rate_limits.c - a hot loop that would flood the log, limited per call
 * site: LOG_*_FIRST_N (the first n calls), LOG_*_EVERY_N (one call in n)
 * and LOG_*_EVERY_MS (at most one per interval). Nothing is silently
 * lost: each record says how many calls of its site were suppressed
 * since the previous one (" [N suppressed]" in text), and what is left
 * at shutdown gets a line per site.
 *
 * The example counts what the sink got and exits 1 when it differs.
 */
#include <llog.h>
#include <llog/sinks.h>

#include <stdint.h>
#include <stdio.h>

static int records;
static uint64_t suppressed;

static void count(void *user, const struct llog_entry *e)
{
	(void)user;
	records++;
	suppressed += e->suppressed;
}

int main(void)
{
	struct llog_console_options co = {.fd = 1};
	struct llog_callback_options cb = {.on_entry = count};

	if (llog_add_sink(llog_console_sink(&co)) != 0 ||
	    llog_add_sink(llog_callback_sink(&cb)) != 0 || llog_init(NULL) != 0)
		return 1;
	for (int i = 0; i < 1000; i++) {
		LOG_WARN_FIRST_N(3, "config key %s deprecated (call %d)", "timeout", i);
		LOG_INFO_EVERY_N(250, "processed %d packets", i);
		LOG_ERROR_EVERY_MS(60000, "disk almost full (call %d)", i);
	}
	llog_shutdown();
	/* 3 + 4 + 1 records, and one shutdown line for each site with
	 * calls still unreported (FIRST_N: 997, EVERY_N: 249, EVERY_MS:
	 * 999): every one of the 3,000 calls is accounted for. */
	printf("%d records, %llu calls suppressed\n", records, (unsigned long long)suppressed);
	return records == 3 + 4 + 1 + 3 && records - 3 + suppressed == 3000 ? 0 : 1;
}
