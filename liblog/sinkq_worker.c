/*
 * sinkq_worker.c - a sink queue's worker thread, the ring's only consumer:
 * it runs the items through the sink (under call_lock, which fork takes),
 * hands the bytes back (tail), publishes the epochs it committed and wakes
 * a flusher that waits for one of them, tries a failed commit again on its
 * own; its start, and the queue marked dead when its thread crashes inside
 * the sink. See sinkq.h for the design (sinkq_state.h).
 *
 * Calls nothing of the other sinkq files; crash.c calls
 * llog__sinkq_crashed_self.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <string.h>

#include "arena.h"
#include "atomic.h"
#include "kv.h"
#include "queue.h"
#include "sinkq.h"
#include "sinkq_state.h"
#include "stats.h"

/* A failed commit is tried again after this, doubling (retry_commit). */
#define RETRY_MIN_MS 50u
#define RETRY_MAX_MS 1000u

/* The queue whose worker this thread is (NULL elsewhere). */
static __thread struct llog__sinkq *tls_self;

static int work_ready(struct llog__sinkq *q)
{
	/* Acquire: head publishes the items (sinkq.h); stop is read with it
	 * (set by the flusher after its last put). */
	return llog__load_acquire(&q->head) != llog__load_relaxed(&q->tail) ||
	       llog__load_acquire(&q->stop) != 0;
}

/* The entry an item carries (strings in the ring). */
static void item_entry(const struct llog__sinkq_item *it, struct llog_field *fields,
		       struct llog_entry *e)
{
	const char *p = (const char *)(it + 1);

	e->seq = it->seq;
	e->ts_ns = it->ts_ns;
	e->level = (enum llog_level)it->level;
	e->line = it->line;
	e->tid = it->tid;
	e->file = p;
	e->func = p + it->file_len + 1;
	e->msg = p + it->file_len + 1 + it->func_len + 1;
	e->msg_len = it->msg_len;
	e->thread_name = it->tname;
	e->thread_name_len = strlen(it->tname);
	e->suppressed = it->suppressed;
	e->category = it->cat_len != 0 ? e->msg + e->msg_len : NULL;
	e->category_len = it->cat_len;
	e->backtrace = (int)it->backtrace;
	e->fields = NULL;
	e->nfields = 0;
	e->fields_truncated = 0;
	if (it->fields_off != 0)
		llog__kv_list_entry((const char *)it + it->fields_off, fields, e);
}

/* Runs one item through the sink (under call_lock: see fork). */
static void run_item(struct llog__sinkq *q, const struct llog__sinkq_item *it)
{
	struct llog_sink *s = q->sink;
	struct llog_entry e;

	pthread_mutex_lock(&q->call_lock);
	if (it->kind == LLOG__SINKQ_ITEM_ENTRY) {
		item_entry(it, q->wfields, &e);
		if (s->ops->write(s, &e) < 0)
			llog__count(write_errors, 1);
		llog__fetch_add_relaxed(&q->delivered, 1);
	} else if (it->kind == LLOG__SINKQ_ITEM_COMMIT) {
		long rc = s->ops->commit(s);

		llog__count_commit(rc);
		q->retry_ms = rc < 0 ? RETRY_MIN_MS : 0;
	}
	pthread_mutex_unlock(&q->call_lock);
}

/*
 * A commit that failed (a collector or journald away: the sink keeps what
 * it could not send) is tried again by the worker on its own, 50 ms after,
 * then doubling to 1 s, until one succeeds, also when no round brings new
 * entries: an idle program's held-back entries do not wait for its next
 * LOG. A retry that fails again is not counted again in write_errors (the
 * same failure); the sink's own back-off decides whether it reconnects.
 */
static void retry_commit(struct llog__sinkq *q)
{
	struct llog_sink *s = q->sink;
	long rc;

	pthread_mutex_lock(&q->call_lock);
	rc = s->ops->commit(s);
	pthread_mutex_unlock(&q->call_lock);
	if (rc >= 0) {
		llog__count_commit(rc);
		q->retry_ms = 0;
	} else {
		q->retry_ms = q->retry_ms * 2 < RETRY_MAX_MS ? q->retry_ms * 2 : RETRY_MAX_MS;
	}
}

/* After a commit: publishes the epoch and wakes a flusher that waits for
 * it (a barrier). */
static void reached(struct llog__sinkq *q, uint64_t epoch)
{
	uint64_t want;

	/* seq_cst store, then seq_cst load of want_epoch: with the flusher's
	 * seq_cst store of want_epoch and load of done_epoch
	 * (llog__sinkq_want, llog__sinkq_reached), one of the two sides sees
	 * the other's store, so a barrier never misses this epoch. */
	llog__store_seq_cst(&q->done_epoch, epoch);
	want = llog__load_seq_cst(&q->want_epoch);
	if (want != 0 && epoch >= want)
		llog__wake_flusher();
}

static void *worker_main(void *arg)
{
	struct llog__sinkq *q = arg;
	uint64_t t = llog__load_relaxed(&q->tail);

	/* As the flusher (flusher_sinktab.c gave its mask): no application
	 * signal handler runs here, the crash handler does. */
	pthread_sigmask(SIG_BLOCK, &q->blocked, NULL);
	llog__arena_mark_worker();
	tls_self = q;
	for (;;) {
		/* Acquire: the items up to h are written (sinkq.h). */
		uint64_t h = llog__load_acquire(&q->head);
		uint32_t stop;

		while (t != h) {
			const struct llog__sinkq_item *it = llog__sinkq_item_at(q, t);
			uint64_t epoch = it->kind == LLOG__SINKQ_ITEM_COMMIT ? it->epoch : 0;

			/* Acquire: pairs with the flusher's release store. */
			if (llog__load_acquire(&q->stop) == 2)
				break;
			run_item(q, it);
			t += it->size;
			/* Release: the sink is done with the bytes before t
			 * (the item is not read after this). */
			llog__store_release(&q->tail, t);
			if (epoch != 0)
				reached(q, epoch);
		}
		llog__sinkq_wake(&q->room_word, &q->flusher_sleeping);
		/* Drops wait for their notice: now that the queue is empty the
		 * flusher's next round can put it (llog__sinkq_retry_notice). */
		if (t == h && llog__load_relaxed(&q->notice_wanted))
			llog__wake_flusher();
		/* Acquire: pairs with the flusher's release store of stop,
		 * made after its last put. */
		stop = llog__load_acquire(&q->stop);
		if (stop == 2 || (stop == 1 && t == llog__load_acquire(&q->head))) {
			uint64_t end = llog__load_acquire(&q->head);

			llog__fetch_add_relaxed(&q->undelivered, llog__sinkq_count_entries(q, t, end));
			break;
		}
		if (t == h) {
			unsigned retry = q->retry_ms;

			llog__sinkq_sleep_until(&q->work_word, &q->worker_sleeping, work_ready, q,
						retry);
			/* Acquire: as above. Nothing new came: try again. */
			if (retry != 0 && t == llog__load_acquire(&q->head) &&
			    llog__load_acquire(&q->stop) == 0)
				retry_commit(q);
		}
	}
	/* Release: pairs with the acquire load in llog__sinkq_stop. */
	llog__store_release(&q->exited, 1);
	llog__futex_wake(&q->exited, 1);
	return NULL;
}

int llog__sinkq_start(struct llog__sinkq *q, const sigset_t *blocked)
{
	int rc;

	if (q->running)
		return 0;
	/* Relaxed: no worker runs. What an earlier stop left queued was
	 * counted undelivered: not written now. Nothing is outstanding. */
	llog__store_relaxed(&q->tail, llog__load_relaxed(&q->head));
	llog__store_relaxed(&q->done_epoch, q->put_epoch);
	llog__store_relaxed(&q->stop, 0);
	llog__store_relaxed(&q->exited, 0);
	q->final_deadline = 0;
	q->blocked = *blocked; /* read by the worker, after pthread_create */
	rc = -pthread_create(&q->thread, NULL, worker_main, q);
	q->running = rc == 0;
	return rc;
}

void llog__sinkq_crashed_self(void)
{
	if (tls_self != NULL)
		llog__store_relaxed(&tls_self->dead, 1); /* read by the flusher's polls */
}
