/*
 * memsink.h - a sink for tests that keeps every entry in memory (test-only,
 * header-only). Entries are appended by the flusher thread; tests read them
 * after llog_flush()/llog_shutdown(), which order the flusher's writes
 * before the test's reads (the barrier/join synchronize).
 */
#ifndef LLOG_TEST_MEMSINK_H
#define LLOG_TEST_MEMSINK_H

#include <stdlib.h>
#include <string.h>

#include "sink.h"

#define MEMSINK_MSG 120

struct mem_entry {
	uint64_t seq;
	int64_t ts_ns;
	uint64_t tid;
	int level;
	int line;
	size_t msg_len; /* full length; msg holds at most MEMSINK_MSG-1 bytes */
	char msg[MEMSINK_MSG];
};

struct memsink {
	struct llog_sink base;
	struct mem_entry *e;
	size_t n, cap;
	size_t commits;
	int closed;
	int nostore; /* only run the hook (for millions of records) */
	/* Optional hook run on every entry (on the flusher thread). */
	void (*hook)(struct memsink *m, const struct llog_entry *e);
	void *user;
};

static long memsink_write(struct llog_sink *s, const struct llog_entry *e)
{
	struct memsink *m = (struct memsink *)s;
	struct mem_entry *me;

	if (m->hook)
		m->hook(m, e);
	if (m->nostore)
		return (long)e->msg_len;
	if (m->n == m->cap) {
		m->cap = m->cap ? m->cap * 2 : 1024;
		m->e = realloc(m->e, m->cap * sizeof(*m->e));
		if (m->e == NULL)
			abort();
	}
	me = &m->e[m->n++];
	me->seq = e->seq;
	me->ts_ns = e->ts_ns;
	me->tid = e->tid;
	me->level = e->level;
	me->line = e->line;
	me->msg_len = e->msg_len;
	size_t k = e->msg_len < MEMSINK_MSG - 1 ? e->msg_len : MEMSINK_MSG - 1;
	memcpy(me->msg, e->msg, k);
	me->msg[k] = '\0';
	return (long)e->msg_len;
}

static long memsink_commit(struct llog_sink *s)
{
	((struct memsink *)s)->commits++;
	return 0;
}

/* The test owns the memory: close only marks it (free with memsink_free). */
static void memsink_close(struct llog_sink *s)
{
	((struct memsink *)s)->closed = 1;
}

static const struct llog_sink_ops memsink_ops = {
	.version = LLOG__SINK_VERSION,
	.write = memsink_write,
	.commit = memsink_commit,
	.close = memsink_close,
};

static inline struct memsink *memsink_new(enum llog_level level)
{
	struct memsink *m = calloc(1, sizeof(*m));

	m->base.ops = &memsink_ops;
	m->base.level = level;
	return m;
}

/* Entries at `level` whose message contains needle. */
static inline size_t memsink_count_msgs(const struct memsink *m, const char *needle, int level)
{
	size_t n = 0;

	for (size_t i = 0; i < m->n; i++)
		n += m->e[i].level == level && strstr(m->e[i].msg, needle) != NULL;
	return n;
}

static inline void memsink_free(struct memsink *m)
{
	free(m->e);
	free(m);
}

/* Starts llog with only this sink. */
static inline int memsink_start(struct memsink *m, const struct llog_config *cfg)
{
	int rc = llog_add_sink(&m->base);

	return rc != 0 ? rc : llog_init(cfg);
}

#endif
