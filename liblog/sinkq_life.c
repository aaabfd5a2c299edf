/*
 * sinkq_life.c - a sink queue's life: made (its ring sized for the
 * largest entry), freed, its worker stopped at shutdown (joined, or left
 * running when stuck inside the sink, with what it leaves counted), the
 * fork calls (the call lock taken, bounded; the child's queue forgotten),
 * and its statistics. See sinkq.h for the design (sinkq_state.h).
 *
 * Calls only llog__sinkq_reached of sinkq.c; called by the flusher's sink
 * table, its fork hand-off and the control thread.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "atomic.h"
#include "buf.h"
#include "capture.h"
#include "clock.h"
#include "config.h"
#include "kv.h"
#include "queue.h"
#include "render.h"
#include "sink.h"
#include "sinkq.h"
#include "sinkq_state.h"
#include "stats.h"

/* ---- made and freed ------------------------------------------------------ */

#define DEFAULT_QUEUE_BYTES (4u << 20)
#define MIN_QUEUE_BYTES (64u << 10)
#define DEFAULT_DRAIN_MS 5000u

static uint64_t pow2_at_least(uint64_t n)
{
	uint64_t p = MIN_QUEUE_BYTES;

	while (p < n)
		p <<= 1;
	return p;
}

/* The largest field list an entry can have (LLOG_FIELDS_MAX of the
 * largest fields). */
#define FIELDS_MAX_BYTES                                                      \
	(sizeof(struct llog__kv_list) +                                      \
	 LLOG_FIELDS_MAX * (sizeof(struct llog__kv_ent) + LLOG_FIELD_KEY_MAX + LLOG_FIELD_STR_MAX + 9))

/* The ring's size for the configuration in force: the queue_bytes asked
 * (want), at least 4 times the largest item. Relaxed: see config.h. The
 * largest item: a whole record, its marker, the names (file and function
 * at most 4,000 bytes each, the category 255, the item's header), the
 * fields; for a sink that stores captures, its capture (arguments no
 * longer than the record) with its format, too. */
static uint64_t ring_bytes(uint64_t want, int raw)
{
	uint64_t rec = llog__load_relaxed(&llog__cfg.max_record_bytes) + LLOG__MARKER_LEN + 8192 +
		       512 + FIELDS_MAX_BYTES +
		       (raw ? sizeof(struct llog__sinkq_cap) + LLOG__CAPTURE_FMT_MAX + 16 : 0);

	return pow2_at_least(want > 4 * rec ? want : 4 * rec);
}

struct llog__sinkq *llog__sinkq_new(struct llog_sink *s, const struct llog_sink_options *opt,
				    int index)
{
	struct llog__sinkq *q = aligned_alloc(64, sizeof(*q));
	int raw = s->ops->version >= 3 && (s->ops->flags & LLOG__SINK_F_RAW) != 0;
	uint64_t want = opt->queue_bytes ? opt->queue_bytes : DEFAULT_QUEUE_BYTES;
	struct llog__buf nb;

	if (q == NULL)
		return NULL;
	memset(q, 0, sizeof(*q));
	q->want = want;
	q->cap = ring_bytes(want, raw);
	/* calloc: pages are backed as the ring first reaches them. */
	q->ring = calloc(1, q->cap);
	if (q->ring == NULL) {
		free(q);
		return NULL;
	}
	q->sink = s;
	q->raw = raw;
	q->full = opt->full;
	q->timeout_ms = opt->drain_timeout_ms ? opt->drain_timeout_ms : DEFAULT_DRAIN_MS;
	nb = LLOG__BUF(q->name, LLOG__SINKQ_NAME_BYTES - 1);
	if (opt->name != NULL) {
		llog__buf_puts(&nb, opt->name);
	} else {
		llog__buf_putc(&nb, '#');
		llog__buf_num(&nb, (uint64_t)index, 10);
	}
	q->name[nb.n] = '\0';
	pthread_mutex_init(&q->call_lock, NULL);
	return q;
}

int llog__sinkq_fit(struct llog__sinkq *q)
{
	uint64_t cap = ring_bytes(q->want, q->raw);
	char *ring;

	/* Relaxed: no worker runs (the queue is not started). */
	if (q->running || cap <= q->cap ||
	    llog__load_relaxed(&q->head) != llog__load_relaxed(&q->tail))
		return 0;
	if ((ring = calloc(1, cap)) == NULL)
		return -ENOMEM;
	free(q->ring);
	q->ring = ring;
	q->cap = cap;
	llog__store_relaxed(&q->head, 0);
	llog__store_relaxed(&q->tail, 0);
	return 0;
}

void llog__sinkq_free(struct llog__sinkq *q)
{
	if (q == NULL)
		return;
	pthread_mutex_destroy(&q->call_lock);
	free(q->ring);
	free(q);
}

unsigned llog__sinkq_timeout_ms(const struct llog__sinkq *q)
{
	return q->timeout_ms;
}

int llog__sinkq_running(const struct llog__sinkq *q)
{
	return q->running;
}

/* ---- stop ---------------------------------------------------------------- */

/* Queues left to a worker stuck inside its sink: its thread may use them
 * whenever the call returns, so they are never freed; listed here so that
 * they stay reachable (a leak checker then does not report them once the
 * thread is gone). Written where queues stop: on the flusher (the fallback
 * replaced) or, the flusher stopped, on the control thread; never both. */
static struct llog__sinkq *abandoned;

/*
 * The stopper's half of in_call (sinkq_worker.c): the worker is still
 * running after the drain timeout and the wait for it. Returns 1 when it
 * is inside a sink call: then the item in its hands and every entry behind
 * it are counted undelivered here, once (the worker, whenever its call
 * returns, counts nothing more), and the worker is left running. Returns 0
 * when it is between calls: it makes no call after this, counts what is
 * left itself and exits.
 */
static int abandon(struct llog__sinkq *q)
{
	/* Acquire: pairs with the worker's release CAS in call_begin, so the
	 * tail loaded below is the item in its hands (the worker stores tail
	 * again only after a call_end that now fails). */
	uint32_t was = llog__xchg_acquire(&q->in_call, LLOG__SINKQ_ABANDONED);
	uint64_t t, h, lost;

	if (was != LLOG__SINKQ_IN)
		return 0;
	/* Relaxed: tail is ordered by the exchange above; head is ours (the
	 * flusher that wrote it was joined, or is this thread). */
	t = llog__load_relaxed(&q->tail);
	h = llog__load_relaxed(&q->head);
	lost = llog__sinkq_count_entries(q, t, h);
	llog__sinkq_count_undelivered(q, lost);
	llog__diag("sink %s is still inside a call %u ms after shutdown: left running, "
		   "not closed; %llu records not delivered (the one in its hands included)",
		   q->name, q->timeout_ms, (unsigned long long)lost);
	pthread_detach(q->thread);
	q->running = 0;
	q->abandoned_next = abandoned;
	abandoned = q;
	return 1;
}

int llog__sinkq_stop(struct llog__sinkq *q)
{
	int64_t deadline;
	uint64_t before = llog__load_relaxed(&q->undelivered);

	if (!q->running)
		return 1;
	/* Release: pairs with the worker's acquire loads of stop; 2 after a
	 * drain that timed out (what is left is counted, not written). */
	llog__store_release(&q->stop, llog__sinkq_reached(q, q->put_epoch) ? 1 : 2);
	llog__sinkq_wake(&q->work_word, &q->worker_sleeping);
	deadline = llog__mono_ms() + q->timeout_ms;
	/* Acquire: pairs with the worker's release store of exited (its
	 * counts are final then). */
	while (llog__load_acquire(&q->exited) == 0) {
		int64_t left = deadline - llog__mono_ms();

		if (left <= 0) {
			if (abandon(q))
				return 0;
			/* Between calls: it makes none again, so it exits
			 * soon; no bound needed. */
			deadline = INT64_MAX;
			left = 100;
		}
		llog__futex_wait(&q->exited, 0, left < 100 ? (unsigned)left : 100);
	}
	pthread_join(q->thread, NULL);
	q->running = 0;
	/* Relaxed: the worker was joined. Counted by it, with sink_lost. */
	if (llog__load_relaxed(&q->undelivered) != before)
		llog__diag("sink %s: %llu records not delivered within %u ms at shutdown",
			   q->name,
			   (unsigned long long)(llog__load_relaxed(&q->undelivered) - before),
			   q->timeout_ms);
	return 1;
}

/* ---- fork ---------------------------------------------------------------- */

void llog__sinkq_fork_prepare(struct llog__sinkq *q, int64_t deadline_ms)
{
	struct timespec ms = {0, 1000000};

	/* Bounded: a sink that blocks inside a call must not block fork().
	 * Still inside at the deadline: the child does not use it. (trylock
	 * and 1 ms naps rather than pthread_mutex_clocklock, which
	 * ThreadSanitizer does not know.) */
	while (!(q->fork_locked = pthread_mutex_trylock(&q->call_lock) == 0) &&
	       llog__mono_ms() < deadline_ms)
		nanosleep(&ms, NULL);
}

const char *llog__sinkq_name(const struct llog__sinkq *q)
{
	return q->name;
}

void llog__sinkq_fork_parent(struct llog__sinkq *q)
{
	if (q->fork_locked)
		pthread_mutex_unlock(&q->call_lock);
	q->fork_locked = 0;
}

int llog__sinkq_fork_child(struct llog__sinkq *q)
{
	pthread_mutex_init(&q->call_lock, NULL);
	if (!q->fork_locked)
		return 0; /* the parent's thread was inside the sink */
	q->fork_locked = 0;
	/* Relaxed: the child has one thread. */
	llog__store_relaxed(&q->head, 0);
	llog__store_relaxed(&q->tail, 0);
	llog__store_relaxed(&q->done_epoch, 0);
	llog__store_relaxed(&q->want_epoch, 0);
	llog__store_relaxed(&q->worker_sleeping, 0);
	llog__store_relaxed(&q->flusher_sleeping, 0);
	q->put_epoch = 0;
	q->dirty = 0;
	q->drops = 0;
	llog__store_relaxed(&q->notice_wanted, 0);
	q->final_deadline = 0;
	q->retry_ms = 0;
	llog__store_relaxed(&q->in_call, LLOG__SINKQ_OUT);
	q->running = 0;
	/* The counters are the child's own from here: the parent's entries
	 * (queued, in flight) are the parent's to account for. */
	llog__store_relaxed(&q->queued, 0);
	llog__store_relaxed(&q->delivered, 0);
	llog__store_relaxed(&q->dropped, 0);
	llog__store_relaxed(&q->undelivered, 0);
	llog__store_relaxed(&q->notices, 0);
	llog__store_relaxed(&q->announced, 0);
	llog__store_relaxed(&q->late, 0);
	llog__store_relaxed(&q->peak, 0);
	return 1;
}

/* ---- statistics ---------------------------------------------------------- */

void llog__sinkq_stats(const struct llog__sinkq *q, struct llog_sink_stats *out)
{
	uint64_t h = llog__load_relaxed(&q->head), t = llog__load_relaxed(&q->tail);

	out->queued = llog__load_relaxed(&q->queued);
	out->delivered = llog__load_relaxed(&q->delivered);
	out->dropped = llog__load_relaxed(&q->dropped);
	out->undelivered = llog__load_relaxed(&q->undelivered);
	out->late_flushes = llog__load_relaxed(&q->late);
	out->queue_bytes = h >= t ? h - t : 0;
	out->queue_peak = llog__load_relaxed(&q->peak);
	out->queue_cap = q->cap;
	out->notices = llog__load_relaxed(&q->notices);
	out->announced = llog__load_relaxed(&q->announced);
}
