/*
 * queue.h - the record queue: the one channel from every thread to the
 * flusher (internal).
 *
 * DESIGN
 * Everything the flusher learns from other threads travels through one
 * lock-free list (llist.h) whose head is llog__q.shard[0].head: log records,
 * thread-exit markers, flush barriers and sink changes. Each is a struct
 * llog__rec whose kind says what it is. Log records live in their thread's
 * arena ring (arena.h); exit markers in the arena header; barriers on the
 * caller's stack (or static, for the crash handler); sink changes in
 * malloc'd memory (never on the record path).
 *
 * This file owns the head, the wake-up word and the stop flag, and every
 * step of the protocol that tests/model/pipeline.pml checks with spin:
 *   producer  push (release CAS), then llog__wake_flusher when it must
 *   flusher   F1 pending = 0; F2 stopping = stop; F3 take the list
 *             (llog__queue_take); ... F6 llog__queue_sleep
 *   shutdown  llog__queue_stop: stop = 1, pending = 1, wake
 *
 * The head holds LLOG__CLOSED, a sentinel that is not a record, while no
 * flusher runs: before llog_init, after llog_shutdown's final round, and in
 * a fork child until its first use. A push that finds it fails and the
 * producer writes its record itself, synchronously (sync.c), so a record is
 * never pushed where no one will take it.
 *
 * Order: records come out in the order their pushes took effect (the
 * modification order of the head): a chain taken by one exchange is
 * reversed into push order, and chains are taken one after the other.
 *
 * Sharded (llog_config.queue_shards > 1): that many heads, each a list as
 * above; a thread pushes on the head llog__tls_head_off & head_mask
 * (llog__pw, clock.h) bytes from the first. The flusher reads
 * a cut time, takes every head, and hands out each head's prefix below the
 * cut, merged by time (queue.c take_shards; tests/model/shards.pml). The
 * output keeps per-thread order and happens-before across threads, not one
 * push order (docs/architecture/queue.md 9).
 */
#ifndef LLOG_QUEUE_H
#define LLOG_QUEUE_H

#include <stdalign.h>
#include <stdint.h>

#include "clock.h"
#include "compiler.h"
#include "llist.h"
#include "thread.h"
#include "llog.h"

enum llog__kind {
	LLOG__K_LOG = 0,     /* captured arguments, rendered by the flusher */
	LLOG__K_TEXT = 1,    /* message already rendered at the call (EAGER) */
	LLOG__K_EXIT = 2,    /* the owning thread exited: free its arena */
	LLOG__K_BARRIER = 3, /* llog_flush(): commit, then signal */
	LLOG__K_SINK = 4,    /* install a sink */
	LLOG__K_NAME = 5,    /* the owning thread's new name (payload, arena.h) */
	LLOG__K_CTX = 6      /* the owning thread's context (a field list, kv.h) */
};

#define LLOG__REC_TRUNCATED 0x01u
/* A rate-limited site's record: a uint64_t count of the site's suppressed
 * calls follows the payload, at offset align8(len) (producer.c). */
#define LLOG__REC_SUPPRESSED 0x02u
/* Below the output level: kept by the flusher for the backtrace, not
 * written (backtrace.h). */
#define LLOG__REC_BACKTRACE 0x04u
/* A LOG_*_KV record: the call block (kv.h) follows the payload and the
 * rate-limit count, at align8(len) (+ 8 with LLOG__REC_SUPPRESSED). */
#define LLOG__REC_FIELDS 0x08u

struct llog__arena;

/* A record header. In an arena it is followed by len payload bytes. */
struct llog__rec {
	struct llist_node node;       /* first: the list link */
	const struct llog_site *site; /* LOG/TEXT */
	struct llog__arena *arena;    /* owning arena (LOG/TEXT/EXIT) */
	uint64_t ts;                  /* raw clock (clock.h) at the push */
	uint32_t end;                 /* ring position after this record */
	uint32_t len;                 /* payload bytes */
	uint32_t dropped;             /* records this thread dropped before it */
	uint8_t kind;                 /* enum llog__kind */
	uint8_t flags;                /* LLOG__REC_* */
	/* Nothing after flags: the call site's own path writes dropped,
	 * kind, flags and the two bytes of padding after them with one
	 * 8-byte store (llog/detail.h, llog__fast_call). */
};

#define LLOG__REC_ALIGN 8u
#define LLOG__REC_HDR ((uint32_t)((sizeof(struct llog__rec) + 7u) & ~7u))

static inline void *llog__rec_payload(const struct llog__rec *r)
{
	return (char *)r + LLOG__REC_HDR;
}

/* The sentinel installed in the heads while no flusher runs. */
extern struct llist_node llog__closed_node LLOG__HIDDEN;
#define LLOG__CLOSED (&llog__closed_node)

/* Heads at most (llog_config.queue_shards). */
#define LLOG__SHARDS_MAX 64u

struct llog__shard {
	alignas(64) struct llist_head head;
	/* shard[0]'s only: the process's go-slow word, on the line the fast
	 * path's push takes anyway (llog__queue_slow). */
	_Atomic uint32_t slow;
};

/* The process's go-slow word's reasons (arena.h, "The go-slow word"). */
#define LLOG__Q_SLOW_CLOCK 1u /* the push clock is not the plain TSC */
#define LLOG__Q_SLOW_BT 2u    /* the backtrace is on (backtrace.h) */

struct llog__queue {
	/* (Which heads are in use, head_mask, is read by every push with the
	 * clock's mode: llog__pw, clock.h.) */
	/* Futex word: 1 when the flusher has been asked to run a round. */
	alignas(64) _Atomic uint32_t pending;
	/* 1 from llog_shutdown until the flusher's final round took it. */
	_Atomic int stop;
	/* shard[0].head is the head of a single-headed queue (the default). */
	struct llog__shard shard[LLOG__SHARDS_MAX];
};

extern struct llog__queue llog__q LLOG__HIDDEN;

/* A thread's head, as a byte offset from shard[0] (any multiple of
 * sizeof(struct llog__shard); masked with head_mask at each push), set when
 * its arena is made (arena.c); 0 until then. */
extern __thread uint32_t llog__tls_head_off __attribute__((tls_model("initial-exec"))) LLOG__HIDDEN;

/* ---- producers (any thread) -------------------------------------------- */

/* The process's go-slow word: zero iff the fast path may run as far as
 * the process goes (the push clock is the plain TSC, the backtrace is
 * off). Set by llog__queue_open (the clock) and llog__queue_slow_set (the
 * backtrace, llog_init), only while no flusher runs and every head is
 * CLOSED, as the clock mode and head_mask are: relaxed (a call racing
 * llog_init may read it stale, as it may the mode; with the backtrace bit,
 * on a weakly ordered CPU only, it may then write a record the backtrace
 * keeps for its ring as an ordinary one: docs/architecture/memory-orders.md). */
static inline uint32_t llog__queue_slow(void)
{
	return llog__load_relaxed(&llog__q.shard[0].slow);
}

/* The head this thread pushes on: shard[0] unless the queue is sharded.
 * Relaxed: head_mask changes only while every head is CLOSED (between a
 * final round and the next llog__queue_open), so a stale mask leads to a
 * CLOSED head or to one the new flusher takes too. */
static inline struct llist_head *llog__queue_mine(void)
{
	return &((struct llog__shard *)(void *)((char *)llog__q.shard +
		(llog__tls_head_off & llog__load_relaxed(&llog__pw.head_mask))))->head;
}

/*
 * Pushes r onto h, starting from the head value `first` the caller loaded
 * from h. Returns 0, or -1 when the list is closed (nothing was pushed).
 * The clock is read after loading the head and again after every failed
 * CAS, so a record's time is never older than that of the record it is
 * pushed on; on a sharded queue it is read ordered (after every earlier
 * load of this thread completed), which the flusher's merge relies on
 * (llog__queue_take). Lock-free; async-signal-safe.
 */
static inline int llog__push_from(struct llog__rec *r, struct llist_head *h,
				  struct llist_node *first)
{
	for (;;) {
		if (__builtin_expect(first == LLOG__CLOSED, 0))
			return -1;
		r->ts = llog__clock_push();
		/* Release CAS (llist.h): publishes the header and payload. */
		if (__builtin_expect(llist_try_add(&r->node, h, &first), 1))
			return 0;
	}
}

/* llog__push_from with a time taken by the caller (a rate-limited site's
 * decision, ratelimit.c): it may be older than the record it is pushed
 * on; the flusher clamps output times (out_ts). Read with llog__clock_push
 * before the push, it keeps the merge's argument (queue.c take_shards). */
static inline int llog__push_from_at(struct llog__rec *r, struct llist_head *h,
				     struct llist_node *first, uint64_t ts)
{
	r->ts = ts;
	for (;;) {
		if (__builtin_expect(first == LLOG__CLOSED, 0))
			return -1;
		/* Release CAS (llist.h): publishes the header and payload. */
		if (__builtin_expect(llist_try_add(&r->node, h, &first), 1))
			return 0;
	}
}

/* The head as a hint (relaxed: only an expectation, validated by the CAS
 * of llog__push_from; loading it early also brings its cache line in). */
static inline struct llist_node *llog__queue_peek(struct llist_head *h)
{
	return llist_first_relaxed(h);
}

static inline int llog__push(struct llog__rec *r)
{
	struct llist_head *h = llog__queue_mine();

	return llog__push_from(r, h, llog__queue_peek(h));
}

/* Asks the flusher to run a round now; only the first asker after the
 * flusher's F1 makes the system call. Async-signal-safe. */
void llog__wake_flusher(void);
/* The same, returning 0: a LOG entry point's last step, as a tail call. */
int llog__wake_flusher_last(void);

/* ---- the flusher ------------------------------------------------------- */

/* F1..F3: re-arms the wake-up word, reads stop into *stopping and takes the
 * whole list (installing CLOSED when stopping). Returns the chain in push
 * order (NULL when empty); on a sharded queue, the heads' chains merged
 * by time, less what is held back for the next round (queue.c
 * take_shards). Flusher only. */
struct llist_node *llog__queue_take(int *stopping);
/* F6: sleeps until woken or interval_ms passed, unless already asked. */
void llog__queue_sleep(unsigned interval_ms);
/* Closes the list and returns what it held (and, on a sharded queue,
 * what the flusher held back), in output order: push order, or merged by
 * time (NULL when empty or closed already). The crash drain on the
 * flusher, and a fork child (single-threaded). */
struct llist_node *llog__queue_close(void);

/* ---- control (under the control lock) ---------------------------------- */

/* Opens the list for a flusher about to start (no flusher runs now), with
 * `shards` heads (a power of two, at most LLOG__SHARDS_MAX). */
void llog__queue_open(unsigned shards);

/* Tests only: nonzero makes llog__queue_open keep more than one head where
 * the kernel does not keep the TSC as its clocksource, so the sharded
 * queue's tests run on every machine (tests/shards.h runs such a test's
 * threads on one CPU, where one clock orders them all). Set before
 * llog_init, while no flusher runs. */
extern int llog__queue_force_shards LLOG__HIDDEN;
/* Sets (on) or clears bit of the process's go-slow word (under the
 * control lock, while no flusher runs). */
void llog__queue_slow_set(uint32_t bit, int on);
/* Asks the running flusher for its final round and wakes it. */
void llog__queue_stop(void);
/* In a fork child: closed, no wake-up pending, no stop. Returns what the
 * list held (the parent's records, and sink changes), in output order;
 * with what the flusher held back (a sharded queue) when held_whole says
 * the fork caught the flusher between rounds, else that is dropped unread
 * (a fork inside a round: the parent's flusher had it in hand, as it has
 * the chain it is writing). */
struct llist_node *llog__queue_after_fork(int held_whole);

#endif /* LLOG_QUEUE_H */
