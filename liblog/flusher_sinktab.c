/*
 * flusher_sinktab.c - the flusher's sink table: sinks added, installed by
 * the flusher (the first one replacing the stderr fallback), their threads
 * started, and closed. See flusher.h for the table's bound.
 *
 * A sink is removed (llog_remove_sink) by the round that meets its
 * removal record: llog__flusher_sinktab_remove.
 *
 * Used by the rounds, the crash drain and the fork hand-off (flusher.c,
 * flusher_drain.c) and by the control lock's tables (control.c); calls
 * nothing of them, nor the crash handler: the signal mask the sinks'
 * threads keep is the flusher's (the table's `blocked`, set by
 * llog__flusher_start).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <string.h>

#include "clock.h"
#include "flusher.h"
#include "flusher_state.h"
#include "sink.h"
#include "sinkq.h"

int llog__flusher_sinktab_add(struct llog__sinktab *t, struct llog_sink *s, struct llog__sinkq *q,
			      const struct llog__catsel *sel)
{
	if (t->n >= LLOG__MAX_SINKS)
		return -ENOSPC;
	if (sel != NULL)
		t->sel[t->n] = *sel;
	else
		memset(&t->sel[t->n], 0, sizeof(t->sel[t->n]));
	t->q[t->n] = q;
	t->s[t->n++] = s;
	return 0;
}

/* Closes one sink (its thread first: drained within its timeout, then
 * stopped; a thread stuck inside the sink leaves it unclosed); *final
 * (when not NULL) gets its queue's last statistics. */
static void close_one(struct llog_sink *s, struct llog__sinkq *q, struct llog_sink_stats *final)
{
	if (final != NULL)
		memset(final, 0, sizeof(*final));
	if (q != NULL) {
		int stopped;

		if (llog__sinkq_running(q))
			(void)llog__sinkq_drain(q, llog__mono_ms() + llog__sinkq_timeout_ms(q));
		stopped = llog__sinkq_stop(q);
		/* Final either way: a worker left behind counts nothing more
		 * (sinkq_worker.c, call_end). */
		if (final != NULL)
			llog__sinkq_stats(q, final);
		if (!stopped)
			return; /* leaked, with its queue: still in use */
		llog__sinkq_free(q);
	}
	s->ops->close(s);
}

void llog__flusher_sinktab_remove(struct llog__sinktab *t, int i, struct llog_sink_stats *final)
{
	struct llog_sink *s = t->s[i];
	struct llog__sinkq *q = t->q[i];

	/* Out of the table before it closes: a crash while it does (in its
	 * close, on this thread) drains to the sinks that stay. */
	memmove(&t->s[i], &t->s[i + 1], (size_t)(t->n - i - 1) * sizeof(t->s[0]));
	memmove(&t->q[i], &t->q[i + 1], (size_t)(t->n - i - 1) * sizeof(t->q[0]));
	memmove(&t->sel[i], &t->sel[i + 1], (size_t)(t->n - i - 1) * sizeof(t->sel[0]));
	t->n--;
	if (i == 0)
		t->fallback = 0; /* the fallback is s[0] or gone */
	close_one(s, q, final);
}

void llog__flusher_sinktab_close(struct llog__sinktab *t, struct llog_sink_stats *final)
{
	for (int i = 0; i < t->n; i++)
		close_one(t->s[i], t->q[i], final != NULL ? &final[i] : NULL);
	t->n = 0;
}

int llog__flusher_sinktab_start(struct llog__sinktab *t)
{
	for (int i = 0; i < t->n; i++) {
		int rc;

		if (t->q[i] == NULL)
			continue;
		(void)llog__sinkq_fit(t->q[i]);
		rc = llog__sinkq_start(t->q[i], &t->blocked);
		if (rc != 0) {
			/* Without its thread the sink runs on the flusher
			 * (llog__flusher_queue_of); the queue stays (llog_get_sink_stats may
			 * read it) and the next start tries again. */
			llog__diag("no thread for a sink (%s); it runs on the flusher",
				   strerror(-rc));
		}
	}
	return 0;
}

/*
 * A sink change reached the flusher (F4, the crash drain, a fork child).
 * The control lock keeps the count within the bound; a sink that still
 * finds the table full is closed, or only forgotten where closing is not
 * safe (the crash drain, a fork child).
 *
 * The first sink installed replaces the stderr fallback (sinks.fallback)
 * in the same step: records before the SINK record in the chain went to
 * the fallback, which close() writes out now, those after it go to the new
 * sink only; none to both, none to neither. In a fork child the fallback
 * holds only the parent's records: after_fork drops them, then it closes.
 * In the crash drain nothing is closed (it would free and write outside the
 * crash entry points): the fallback stays, and the records after the SINK
 * record reach both.
 */
void llog__flusher_sinktab_install(struct llog__sinktab *t, struct llog__sink_rec *sr,
				   enum llog__sinktab_where where)
{
	if (t->fallback && where != LLOG__SINKTAB_IN_CRASH) {
		struct llog_sink *fb = t->s[0];

		if (where != LLOG__SINKTAB_IN_FORK) {
			close_one(fb, t->q[0], NULL);
		} else if (t->q[0] == NULL || llog__sinkq_fork_child(t->q[0])) {
			/* A queue (a console on a pipe) is the parent's until
			 * fork_child makes it the child's: empty, no thread. */
			if (fb->ops->after_fork != NULL)
				fb->ops->after_fork(fb);
			close_one(fb, t->q[0], NULL);
		}
		/* else the parent's thread was inside it: forgotten, not
		 * closed, as llog__flusher_after_fork does */
		t->s[0] = sr->sink;
		t->q[0] = sr->q;
		t->sel[0] = sr->sel;
		t->fallback = 0;
	} else if (llog__flusher_sinktab_add(t, sr->sink, sr->q, &sr->sel) != 0) {
		if (where == LLOG__SINKTAB_IN_ROUND)
			close_one(sr->sink, sr->q, NULL);
		return;
	}
	/* Not in a fork child or the crash drain: nothing starts threads
	 * there; the child's flusher start does. */
	if (where == LLOG__SINKTAB_IN_ROUND && sr->q != NULL)
		(void)llog__flusher_sinktab_start(t);
}
