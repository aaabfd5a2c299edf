/*
 * journald.c - records to the systemd journal through its native protocol:
 * the level as PRIORITY, the category as LLOG_CATEGORY, each field as
 * LLOG_F_<KEY>, the source as CODE_FILE/CODE_LINE/CODE_FUNC, plus fields
 * of your own on every entry. Read them back with
 *
 *   journalctl -t llog-example -o verbose
 *
 * Without a journal (a container, a build machine) the sink keeps what it
 * cannot send, bounded, and counts what it drops: the program still runs
 * and logs; here it says so and exits 0.
 */
#include <llog.h>
#include <llog/sinks.h>

#include <stdio.h>
#include <unistd.h>

int main(void)
{
	static const char *const extra[] = {"DEPLOYMENT=staging", NULL};
	struct llog_journald_options jo = {.identifier = "llog-example", .fields = extra};
	struct llog_sink *j = llog_journald_sink(&jo);
	struct llog_stats st;

	if (j == NULL) {
		fprintf(stderr, "journald sink: %s\n", llog_journald_sink_error());
		return 1;
	}
	if (llog_add_sink(j) != 0 || llog_init(NULL) != 0)
		return 1;
	LOG_INFO_CAT("payments", "charge accepted");
	LOG_WARN_KV(("order", 4711L, "retries", 2), "charge retried");
	llog_shutdown();
	llog_get_stats(&st);
	if (access("/run/systemd/journal/socket", W_OK) != 0)
		printf("no journal on this machine: %llu records counted lost\n",
		       (unsigned long long)st.sink_lost);
	else
		printf("sent; read them with: journalctl -t llog-example -o verbose\n");
	return 0;
}
