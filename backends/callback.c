/*
 * callback.c - the callback sink: each entry goes to a user function.
 *
 * DESIGN
 * write() calls on_entry with the entry as the flusher made it; commit()
 * calls on_commit. Both run on the flusher thread, one at a time, in output
 * order. A LOG from inside them is dropped and counted by the core (the
 * flusher thread's arena is permanently marked as inside a LOG call), so a
 * callback that logs neither deadlocks nor recurses.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>

#include "sink.h"

struct callback_sink {
	struct llog_sink base; /* first */
	struct llog_callback_options o;
};

static long cb_write(struct llog_sink *s, const struct llog_entry *e)
{
	struct callback_sink *c = (struct callback_sink *)s;

	c->o.on_entry(c->o.user, e);
	return (long)e->msg_len;
}

static long cb_commit(struct llog_sink *s)
{
	struct callback_sink *c = (struct callback_sink *)s;

	if (c->o.on_commit != NULL)
		c->o.on_commit(c->o.user);
	return 0;
}

static void cb_close(struct llog_sink *s)
{
	free(s);
}

/* In a fork child: nothing is buffered here; the user's functions go on
 * being called in the child too. */
static void cb_after_fork(struct llog_sink *s)
{
	(void)s;
}

static const struct llog_sink_ops cb_ops = {
	.version = LLOG__SINK_VERSION,
	.write = cb_write,
	.commit = cb_commit,
	.close = cb_close,
	.after_fork = cb_after_fork,
};

struct llog_sink *llog_callback_sink(const struct llog_callback_options *opt)
{
	struct callback_sink *c;

	if (opt == NULL || opt->on_entry == NULL || (unsigned)opt->level > LLOG_OFF) {
		errno = EINVAL;
		return NULL;
	}
	c = malloc(sizeof(*c));
	if (c == NULL)
		return NULL;
	c->base.ops = &cb_ops;
	c->base.level = opt->level;
	c->base.format = LLOG_FORMAT_TEXT;
	c->o = *opt;
	return &c->base;
}
