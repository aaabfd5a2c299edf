/*
 * sinkq_state.h - a sink queue's private state, shared by the files that
 * make up the sink queues (internal; not for the rest of llog, which sees
 * struct llog__sinkq as opaque through sinkq.h).
 *
 * DESIGN
 * A sink queue is three files, none calling another but through sinkq.h's
 * interface and the helpers below:
 *   sinkq.c         the ring and the flusher's side: an entry put (room,
 *                   drops and their notice, BLOCK's wait), the round's
 *                   commit marker and epochs, drain, the crash put
 *   sinkq_worker.c  the worker thread: items run through the sink, the
 *                   retried commit, epochs reached, its start; the queue of
 *                   a worker that crashed marked dead
 *   sinkq_life.c    a queue made and freed, its worker stopped, the fork
 *                   calls, the statistics
 * sinkq_life.c asks sinkq.c only whether an epoch was reached
 * (llog__sinkq_reached); the other two call nothing of each other. The
 * orderings of the fields below are those of sinkq.h: head and tail are
 * the ring's positions, the *_word / *_sleeping pairs its wake-ups.
 */
#ifndef LLOG_SINKQ_STATE_H
#define LLOG_SINKQ_STATE_H

#include <pthread.h>
#include <signal.h>
#include <stdalign.h>
#include <stdint.h>

#include "llog/sinks.h"
#include "atomic.h"
#include "fmt.h"
#include "queue.h"
#include "sinkq.h"
#include "stats.h"

#define LLOG__SINKQ_NAME_BYTES 32

enum llog__sinkq_item_kind {
	LLOG__SINKQ_ITEM_PAD = 1,
	LLOG__SINKQ_ITEM_ENTRY = 2,
	LLOG__SINKQ_ITEM_COMMIT = 3,
	/* The queue's own drop notice: written as an entry, counted apart
	 * (notices, announced), never in queued, delivered, undelivered. */
	LLOG__SINKQ_ITEM_NOTICE = 4
};

/* in_call: who accounts for the item at tail (sinkq_worker.c, the
 * stopper in sinkq_life.c). */
enum llog__sinkq_call {
	LLOG__SINKQ_OUT = 0,      /* the worker is between sink calls */
	LLOG__SINKQ_IN = 1,       /* the worker is inside a sink call */
	LLOG__SINKQ_ABANDONED = 2 /* llog__sinkq_stop gave up on the worker */
};

/* An item in the ring; size and kind are its first 8 bytes, so a pad item
 * (only those) fits in any 8-byte gap. Entries are followed by file NUL
 * func NUL msg category NUL (its first CAT_MAX bytes, sinkq.c; none: NUL
 * alone), then, each 8-aligned where present, the fields (fields_off) and
 * the capture (cap_off: struct llog__sinkq_cap, the format NUL, the
 * argument bytes; the message is then not copied: msg_len 0). */
struct llog__sinkq_item {
	uint32_t size; /* the whole item, a multiple of 8 */
	uint16_t kind;
	uint16_t level;
	int32_t line;
	uint32_t file_len, func_len;
	uint16_t cat_len;   /* the category's bytes, after msg (0: default) */
	uint16_t backtrace; /* the entry's (llog_entry.backtrace) */
	uint64_t seq, tid, msg_len, epoch;
	uint64_t reported; /* a notice's: the drops it reports */
	int64_t ts_ns;
	uint64_t suppressed; /* the entry's (rate limits) */
	char tname[16]; /* the entry's thread name (at most 15 bytes), NUL-ended */
	/* Where the entry's fields are, a field list (kv.h) from the item's
	 * start; 0: none (no field, none left out). */
	uint32_t fields_off;
	/* Where the record's capture is (a sink that stores captures,
	 * LLOG__SINK_F_RAW: capture.h); 0: none. */
	uint32_t cap_off;
};

/* A LOG record's capture, copied into its item for a sink that stores
 * captures (capture.h): what struct llog__capture points to, by value.
 * Followed by the format (fmt_len bytes, NUL) and, 8-aligned, the
 * argument bytes (len). */
struct llog__sinkq_cap {
	const void *site; /* an identity only: never read through */
	uint64_t gen;
	uint32_t len, room;
	uint32_t fmt_len;
	uint32_t truncated;
	struct llog__plan plan;
};


struct llog__sinkq {
	struct llog_sink *sink;
	int raw;      /* the sink stores captures (LLOG__SINK_F_RAW, version >= 3) */
	uint64_t want; /* the queue_bytes asked (llog__sinkq_fit) */
	char *ring;
	uint64_t cap; /* a power of two */
	enum llog_queue_full full;
	unsigned timeout_ms;
	char name[LLOG__SINKQ_NAME_BYTES];
	sigset_t blocked;     /* the worker's signal mask, from llog__sinkq_start */
	/* The flusher's side. */
	alignas(64) _Atomic uint64_t head;
	uint64_t put_epoch;   /* the last marker's epoch */
	int dirty;            /* entries put since that marker */
	uint64_t drops;       /* dropped since the last notice */
	uint64_t drop_seq;    /* the last dropped entry's */
	int64_t drop_ts;
	int64_t final_deadline; /* the final round's bound on waiting, once set */
	uint64_t seen_tail;     /* tail when the flusher last found no room */
	_Atomic uint32_t room_word, flusher_sleeping;
	_Atomic uint64_t want_epoch;
	_Atomic uint32_t notice_wanted; /* drops not yet announced */
	/* The worker's side. */
	alignas(64) _Atomic uint64_t tail;
	_Atomic uint64_t done_epoch;
	_Atomic uint32_t work_word, worker_sleeping;
	_Atomic uint32_t stop;   /* 1: exit when empty; 2: exit now */
	_Atomic uint32_t exited; /* futex word */
	_Atomic uint32_t started; /* futex word: the worker runs worker_main */
	_Atomic uint32_t dead;   /* its thread crashed */
	pthread_t thread;
	int running;
	pthread_mutex_t call_lock;
	int fork_locked; /* fork_prepare got call_lock */
	unsigned retry_ms; /* the worker's: 0, or when to retry a failed commit */
	/* enum llog__sinkq_call: the one word on which the worker and a
	 * stopper that timed out agree who counts the item in the sink's
	 * hands (sinkq_worker.c's call_begin, call_end; sinkq_life.c's
	 * abandon): never both, never neither. */
	_Atomic uint32_t in_call;
	/* The stopper's: the queues whose worker was left inside the sink
	 * (sinkq_life.c), kept reachable, never freed. */
	struct llog__sinkq *abandoned_next;
	struct llog_field wfields[LLOG_FIELDS_MAX]; /* the worker's entry's */
	/* Counters (relaxed: statistics only; llog_sink_stats defines them).
	 * queued == delivered + undelivered + (entries in the ring, or in the
	 * sink's call); notices and announced count the queue's own drop
	 * notices, in none of the others. */
	_Atomic uint64_t queued, delivered, dropped, undelivered, late, peak;
	_Atomic uint64_t notices, announced;
};

static inline struct llog__sinkq_item *llog__sinkq_item_at(const struct llog__sinkq *q,
							   uint64_t pos)
{
	return (struct llog__sinkq_item *)(void *)(q->ring + (pos & (q->cap - 1)));
}

/* Counts the entries in [t, h) (what a stopped worker leaves); notices
 * are not entries. */
static inline uint64_t llog__sinkq_count_entries(const struct llog__sinkq *q, uint64_t t,
						 uint64_t h)
{
	uint64_t n = 0;

	while (t < h) {
		const struct llog__sinkq_item *it = llog__sinkq_item_at(q, t);

		n += it->kind == LLOG__SINKQ_ITEM_ENTRY;
		t += it->size;
	}
	return n;
}

/* n entries queued that the sink will never get: the queue's undelivered
 * and llog_stats.sink_lost, counted together, by whoever holds the
 * accounting (the worker, or a stopper that abandoned it). */
static inline void llog__sinkq_count_undelivered(struct llog__sinkq *q, uint64_t n)
{
	llog__fetch_add_relaxed(&q->undelivered, n);
	llog__count(sink_lost, n);
}

/* ---- wake-ups (sinkq.h) -------------------------------------------------- */

/*
 * The two halves are static but not inline, as they were when the queue
 * was one file, so the compiler inlines them where it did then. Under
 * gcc's ThreadSanitizer never: it rejects a fence inlined into another
 * function (-Wtsan), which its -O1 does with a function called once in a
 * file. `unused`: a file may call one half only.
 */
#ifdef __SANITIZE_THREAD__
#define LLOG__SINKQ_WAKEUP static __attribute__((unused, noinline))
#else
#define LLOG__SINKQ_WAKEUP static __attribute__((unused))
#endif

/* The waker's half: after publishing a position. */
LLOG__SINKQ_WAKEUP void llog__sinkq_wake(_Atomic uint32_t *word, _Atomic uint32_t *sleeping)
{
	/* seq_cst fence: orders the position just stored before the load of
	 * `sleeping` (the store-load pair of the handshake in sinkq.h). */
	llog__fence_seq_cst();
	if (llog__load_relaxed(sleeping)) {
		/* Release: nothing rides on it; the word only has to change. */
		llog__fetch_add_release(word, 1);
		llog__futex_wake(word, 0);
	}
}

/* The sleeper's half: sleeps unless ready() (re-checked after announcing
 * the sleep), at most timeout_ms (0: no limit). */
LLOG__SINKQ_WAKEUP void
llog__sinkq_sleep_until(_Atomic uint32_t *word, _Atomic uint32_t *sleeping,
			int (*ready)(struct llog__sinkq *), struct llog__sinkq *q, unsigned timeout_ms)
{
	/* Acquire: pairs with the waker's release increment (nothing else
	 * needs it: positions are read with their own acquire loads). */
	uint32_t w = llog__load_acquire(word);

	llog__store_relaxed(sleeping, 1);
	/* seq_cst fence: orders the store of `sleeping` before the re-check's
	 * loads (the handshake in sinkq.h). */
	llog__fence_seq_cst();
	if (!ready(q))
		llog__futex_wait(word, w, timeout_ms);
	llog__store_relaxed(sleeping, 0);
}

#endif /* LLOG_SINKQ_STATE_H */
