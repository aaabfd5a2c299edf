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
#include "capture.h"
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

/* The capture an item carries (a sink that stores captures: capture.h),
 * noted in this thread's slot beside e, the entry rebuilt from the item,
 * for the sink's write; the slot is cleared after it (run_item). */
static void item_capture(const struct llog__sinkq_item *it, const struct llog_entry *e)
{
	const struct llog__sinkq_cap *k =
		(const struct llog__sinkq_cap *)(const void *)((const char *)it + it->cap_off);
	struct llog__capture *c = &llog__cur_capture;
	size_t args_at = (it->cap_off + sizeof(*k) + k->fmt_len + 1 + 7u) & ~(size_t)7u;

	c->site = k->site;
	c->gen = k->gen;
	c->fmt = (const char *)(k + 1);
	c->plan = &k->plan;
	c->args = (const char *)it + args_at;
	c->len = k->len;
	c->room = k->room;
	c->truncated = (int)k->truncated;
	c->entry = e;
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
	if (it->cap_off != 0) {
		/* as on the flusher (llog__render_capture): no message, the
		 * capture is the record (a sink that cannot store it renders
		 * it from the capture, as file_bin.c's fallback does) */
		e->msg = NULL;
		e->msg_len = 0;
		item_capture(it, e);
	}
}

/*
 * The item in the sink's hands. The worker counts an entry delivered only
 * after the sink's write returned; a stopper that gives up on a worker
 * stuck inside a call (llog__sinkq_stop, sinkq_life.c: abandon) counts that
 * entry, and every one behind it, undelivered instead. Which of the two
 * counts is decided on one word, in_call, with one RMW each:
 *
 *   worker   CAS OUT -> IN   (call_begin; fails: ABANDONED, not in a call)
 *            ... the sink's write or commit ...
 *            CAS IN -> OUT   (call_end; fails: ABANDONED inside the call)
 *            count the item, store tail
 *   stopper  exchange(ABANDONED)   got IN: counts [tail, head) itself
 *                                  got OUT: the worker counts (below)
 *
 * In in_call's modification order the stopper's exchange falls either
 * inside a call (between the worker's two CASes: the worker's call_end
 * fails, so it counts nothing, stores nothing more and exits; tail is
 * still the item in hand, not yet counted: the stopper counts it) or
 * outside one (its next call_begin fails: the worker counts what is left
 * from its own tail and exits; the stopper waits for that, the worker
 * never calls the sink again). So every entry queued is delivered or
 * undelivered exactly once, even when the stuck call returns after
 * shutdown gave up on it.
 */

/* Before a sink call: whether the worker may make it (it still holds the
 * accounting). Release on success: the worker's counts and its store of
 * tail before this are seen by a stopper's acquire exchange that reads
 * IN (it then counts from that tail). Relaxed on failure: the worker
 * reads nothing the stopper wrote but ABANDONED itself. */
static int call_begin(struct llog__sinkq *q)
{
	uint32_t out = LLOG__SINKQ_OUT;

	return llog__cas_strong_release(&q->in_call, &out, LLOG__SINKQ_IN);
}

/* After the call: whether the worker still accounts for the item (else
 * the stopper counted it and all behind). Relaxed: nothing is published
 * with OUT (a stopper that reads OUT counts nothing; the worker's counts
 * reach it through exited, or the next call_begin's release). */
static int call_end(struct llog__sinkq *q)
{
	uint32_t in = LLOG__SINKQ_IN;

	return llog__cas_strong_relaxed(&q->in_call, &in, LLOG__SINKQ_OUT);
}

/* What running an item through the sink left the worker to do. */
enum run { RUN_NEXT, RUN_QUIT, RUN_ABANDONED };

/* Runs one item through the sink (under call_lock: see fork). RUN_QUIT:
 * the stopper gave up on the worker between calls (it counts what is left
 * itself, from this item on); RUN_ABANDONED: inside the call (the stopper
 * counted this item and what is behind it). */
static enum run run_item(struct llog__sinkq *q, const struct llog__sinkq_item *it)
{
	struct llog_sink *s = q->sink;
	struct llog_entry e;
	long rc;

	if (it->kind == LLOG__SINKQ_ITEM_PAD)
		return RUN_NEXT;
	pthread_mutex_lock(&q->call_lock);
	if (!call_begin(q)) {
		pthread_mutex_unlock(&q->call_lock);
		return RUN_QUIT;
	}
	if (it->kind != LLOG__SINKQ_ITEM_COMMIT) {
		item_entry(it, q->wfields, &e);
		rc = s->ops->write(s, &e);
		llog__capture_clear(); /* e goes out of scope */
	} else {
		rc = s->ops->commit(s);
	}
	if (!call_end(q)) {
		pthread_mutex_unlock(&q->call_lock);
		return RUN_ABANDONED;
	}
	if (it->kind == LLOG__SINKQ_ITEM_ENTRY) {
		if (rc < 0)
			llog__count(write_errors, 1);
		llog__fetch_add_relaxed(&q->delivered, 1);
	} else if (it->kind == LLOG__SINKQ_ITEM_NOTICE) {
		if (rc < 0)
			llog__count(write_errors, 1);
		llog__fetch_add_relaxed(&q->notices, 1);
		llog__fetch_add_relaxed(&q->announced, it->reported);
	} else {
		llog__count_commit(rc);
		q->retry_ms = rc < 0 ? RETRY_MIN_MS : 0;
	}
	pthread_mutex_unlock(&q->call_lock);
	return RUN_NEXT;
}

/*
 * A commit that failed (a collector or journald away: the sink keeps what
 * it could not send) is tried again by the worker on its own, 50 ms after,
 * then doubling to 1 s, until one succeeds, also when no round brings new
 * entries: an idle program's held-back entries do not wait for its next
 * LOG. A retry that fails again is not counted again in write_errors (the
 * same failure); the sink's own back-off decides whether it reconnects.
 * Returns as run_item.
 */
static enum run retry_commit(struct llog__sinkq *q)
{
	struct llog_sink *s = q->sink;
	long rc;

	pthread_mutex_lock(&q->call_lock);
	if (!call_begin(q)) {
		pthread_mutex_unlock(&q->call_lock);
		return RUN_QUIT;
	}
	rc = s->ops->commit(s);
	if (!call_end(q)) {
		pthread_mutex_unlock(&q->call_lock);
		return RUN_ABANDONED;
	}
	pthread_mutex_unlock(&q->call_lock);
	if (rc >= 0) {
		llog__count_commit(rc);
		q->retry_ms = 0;
	} else {
		q->retry_ms = q->retry_ms * 2 < RETRY_MAX_MS ? q->retry_ms * 2 : RETRY_MAX_MS;
	}
	return RUN_NEXT;
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
	enum run run = RUN_NEXT;

	/* As the flusher (flusher_sinktab.c gave its mask): no application
	 * signal handler runs here, the crash handler does. */
	pthread_sigmask(SIG_BLOCK, &q->blocked, NULL);
	llog__arena_mark_worker();
	tls_self = q;
	llog__thread_up(&q->started, "llog-sink");
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
			run = run_item(q, it);
			if (run != RUN_NEXT)
				break;
			t += it->size;
			/* Release: the sink is done with the bytes before t
			 * (the item is not read after this). */
			llog__store_release(&q->tail, t);
			if (epoch != 0)
				reached(q, epoch);
		}
		/* Abandoned inside a call: the stopper counted [t, head) and
		 * went on; nothing here may count, nor touch the ring again. */
		if (run == RUN_ABANDONED)
			break;
		llog__sinkq_wake(&q->room_word, &q->flusher_sleeping);
		/* Drops wait for their notice: now that the queue is empty the
		 * flusher's next round can put it (llog__sinkq_retry_notice). */
		if (t == h && llog__load_relaxed(&q->notice_wanted))
			llog__wake_flusher();
		/* Acquire: pairs with the flusher's release store of stop,
		 * made after its last put. */
		stop = llog__load_acquire(&q->stop);
		if (run == RUN_QUIT || stop == 2 || (stop == 1 && t == llog__load_acquire(&q->head))) {
			uint64_t end = llog__load_acquire(&q->head);

			llog__sinkq_count_undelivered(q, llog__sinkq_count_entries(q, t, end));
			break;
		}
		if (t == h) {
			unsigned retry = q->retry_ms;

			llog__sinkq_sleep_until(&q->work_word, &q->worker_sleeping, work_ready, q,
						retry);
			/* Acquire: as above. Nothing new came: try again. */
			if (retry != 0 && t == llog__load_acquire(&q->head) &&
			    llog__load_acquire(&q->stop) == 0) {
				run = retry_commit(q);
				if (run == RUN_ABANDONED)
					break;
			}
		}
	}
	/* Release: pairs with the acquire load in llog__sinkq_stop (the
	 * counts above are final when it reads 1). */
	llog__store_release(&q->exited, 1);
	llog__futex_wake(&q->exited, 1);
	return NULL;
}

int llog__sinkq_start(struct llog__sinkq *q, const sigset_t *blocked)
{
	sigset_t old;
	int rc;

	if (q->running)
		return 0;
	/* Relaxed: no worker runs. What an earlier stop left queued was
	 * counted undelivered: not written now. Nothing is outstanding. */
	llog__store_relaxed(&q->tail, llog__load_relaxed(&q->head));
	llog__store_relaxed(&q->done_epoch, q->put_epoch);
	llog__store_relaxed(&q->stop, 0);
	llog__store_relaxed(&q->exited, 0);
	llog__store_relaxed(&q->started, 0);
	llog__store_relaxed(&q->in_call, LLOG__SINKQ_OUT);
	q->final_deadline = 0;
	q->blocked = *blocked; /* read by the worker, after pthread_create */
	/* As the flusher's (flusher.c): the worker starts with them blocked. */
	pthread_sigmask(SIG_BLOCK, blocked, &old);
	rc = -pthread_create(&q->thread, NULL, worker_main, q);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	q->running = rc == 0;
	/* As the flusher's (queue.h): a fork() after a sink's thread started
	 * (by llog_init, or by the flusher's round that installs a sink added
	 * later, which fork() waits for) never catches it inside its start-up. */
	if (rc == 0)
		llog__thread_wait_up(&q->started);
	return rc;
}

void llog__sinkq_crashed_self(void)
{
	if (tls_self != NULL)
		llog__store_relaxed(&tls_self->dead, 1); /* read by the flusher's polls */
}
