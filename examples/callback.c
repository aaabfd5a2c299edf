/*
 * callback.c - a callback sink: your function sees every entry (on llog's
 * flusher thread; it must not call LOG) and every batch end.
 */
#include <stdio.h>

#include <llog.h>
#include <llog/sinks.h>

struct counts {
	unsigned long entries, commits;
};

static void on_entry(void *user, const struct llog_entry *e)
{
	struct counts *c = user;

	c->entries++;
	printf("#%llu %s %s:%d %.*s\n", (unsigned long long)e->seq, llog_level_name(e->level),
	       e->file, e->line, (int)e->msg_len, e->msg);
}

static void on_commit(void *user)
{
	((struct counts *)user)->commits++;
}

int main(void)
{
	struct counts c = {0, 0};
	struct llog_callback_options o = {.on_entry = on_entry, .on_commit = on_commit, .user = &c};

	if (llog_add_sink(llog_callback_sink(&o)) != 0 || llog_init(NULL) != 0)
		return 1;
	for (int i = 0; i < 3; i++)
		LOG_INFO("event %d", i);
	llog_shutdown(); /* after this, the callback is never called again */
	printf("%lu entries in %lu commits\n", c.entries, c.commits);
	return c.entries == 3 ? 0 : 1;
}
