/*
 * soak_tag.c - llog_stats.sink_lost told apart per sink, for the soak
 * service (soak.h).
 *
 * DESIGN
 * A wrapper sink forwards every call to the sink it wraps and, for the
 * length of the call, names that sink in a thread-local word. The service
 * is linked with -Wl,--wrap=llog__stats_count_sink_lost: each count llog
 * makes goes through __wrap_..., which adds it to the counter of the sink
 * named on the calling thread (SOAK_TAG_NONE when none: llog's own
 * counts outside a sink call), then to llog's. So, exactly,
 *   sink_lost == sum over tags of soak_tag_lost(tag)
 *                + counts llog makes without that function (its queues'
 *                  undelivered entries: llog_sink_stats.undelivered)
 * and the file sink's losses are known apart from the collectors'.
 * The wrapper also records the entries it hands on (struct soak_seen):
 * how many, which worker records, and whether each thread's came in order.
 */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "soak.h"

/* llog's internal counter (liblog/sink.h); the real one, and ours. */
void __real_llog__stats_count_sink_lost(uint64_t records);
void __wrap_llog__stats_count_sink_lost(uint64_t records);

static _Thread_local int current = SOAK_TAG_NONE;
static _Atomic uint64_t lost[SOAK_NTAGS];

void __wrap_llog__stats_count_sink_lost(uint64_t records)
{
	/* Relaxed: read after llog_shutdown() joined every thread that
	 * counts, or as a snapshot. */
	atomic_fetch_add_explicit(&lost[current], records, memory_order_relaxed);
	__real_llog__stats_count_sink_lost(records);
}

uint64_t soak_tag_lost(enum soak_tag tag)
{
	return atomic_load_explicit(&lost[tag], memory_order_relaxed);
}

const char *soak_tag_name(enum soak_tag tag)
{
	static const char *const names[SOAK_NTAGS] = {"file", "console", "syslog", "journald",
						      "none"};

	return (unsigned)tag < SOAK_NTAGS ? names[tag] : "?";
}

struct tagged {
	struct llog_sink base; /* first */
	struct llog_sink_ops ops;
	struct llog_sink *inner;
	int tag;
	struct soak_seen *seen;
};

static void see(struct soak_seen *v, const struct llog_entry *e)
{
	long t;
	int64_t s;
	int kind = soak_parse(e->msg, e->msg_len, &t, &s);

	v->entries++;
	if (e->seq <= v->last_entry_seq)
		v->seq_disorder++;
	v->last_entry_seq = e->seq;
	if (kind == 1 && t >= 0 && t < SOAK_MAX_THREADS) {
		if (s <= v->last[t])
			v->disorder++;
		v->last[t] = s;
		v->records[t]++;
	} else if (kind == 2) {
		if (s <= v->child_last)
			v->disorder++;
		v->child_last = s;
		v->child_records++;
	}
}

static long tag_write(struct llog_sink *s, const struct llog_entry *e)
{
	struct tagged *w = (struct tagged *)s;
	long rc;

	if (w->seen != NULL)
		see(w->seen, e);
	current = w->tag;
	rc = w->inner->ops->write(w->inner, e);
	current = SOAK_TAG_NONE;
	return rc;
}

static long tag_commit(struct llog_sink *s)
{
	struct tagged *w = (struct tagged *)s;
	long rc;

	current = w->tag;
	rc = w->inner->ops->commit(w->inner);
	current = SOAK_TAG_NONE;
	return rc;
}

static void tag_close(struct llog_sink *s)
{
	struct tagged *w = (struct tagged *)s;

	current = w->tag;
	w->inner->ops->close(w->inner);
	current = SOAK_TAG_NONE;
	free(w);
}

static void tag_after_fork(struct llog_sink *s)
{
	struct tagged *w = (struct tagged *)s;

	/* The child counts afresh (its parent's entries are the parent's). */
	if (w->seen != NULL) {
		memset(w->seen, 0, sizeof(*w->seen));
		memset(w->seen->last, 0xff, sizeof(w->seen->last));
		w->seen->child_last = -1;
	}
	if (w->inner->ops->after_fork != NULL)
		w->inner->ops->after_fork(w->inner);
}

/* The crash entry points run in a crash handler: no bookkeeping, only the
 * tag (a thread-local store) around the call. */
static long tag_crash_write(struct llog_sink *s, const struct llog_entry *e, int interrupted)
{
	struct tagged *w = (struct tagged *)s;

	return w->inner->ops->crash_write(w->inner, e, interrupted);
}

static long tag_crash_commit(struct llog_sink *s, int interrupted)
{
	struct tagged *w = (struct tagged *)s;

	return w->inner->ops->crash_commit(w->inner, interrupted);
}

struct llog_sink *soak_tag_sink(struct llog_sink *inner, enum soak_tag tag,
				struct soak_seen *seen)
{
	const struct llog_sink_ops *in;
	struct tagged *w;

	if (inner == NULL)
		return NULL;
	if ((w = calloc(1, sizeof(*w))) == NULL) {
		llog_sink_destroy(inner);
		return NULL;
	}
	in = inner->ops;
	w->ops.version = LLOG_SINK_VERSION;
	w->ops.write = tag_write;
	w->ops.commit = tag_commit;
	w->ops.close = tag_close;
	if (in->version >= 2) {
		w->ops.after_fork = in->after_fork != NULL ? tag_after_fork : NULL;
		w->ops.crash_write = in->crash_write != NULL ? tag_crash_write : NULL;
		w->ops.crash_commit = in->crash_commit != NULL ? tag_crash_commit : NULL;
	}
	if (in->version >= 3)
		w->ops.flags = in->flags;
	w->base.ops = &w->ops;
	w->base.level = inner->level;
	w->base.format = inner->format;
	w->inner = inner;
	w->tag = tag;
	w->seen = seen;
	if (seen != NULL) {
		memset(seen, 0, sizeof(*seen));
		memset(seen->last, 0xff, sizeof(seen->last));
		seen->child_last = -1;
	}
	return &w->base;
}
