/*
 * arena.h - per-thread rings of record bytes (internal).
 *
 * DESIGN
 * Each thread that logs owns one arena, created on its first LOG (the only
 * malloc a thread ever makes for logging). The owner reserves contiguous,
 * 8-aligned spans in ring order; a span that would cross the end of the
 * ring starts at offset 0 instead, and the skipped tail is counted as part
 * of the record (rec->end covers it). Records of one thread enter the list
 * in the order they were reserved and the flusher takes them in list order,
 * so it releases them in ring order by storing rec->end into released.
 * Nothing else is shared: no registry, no lock. Positions are free-running
 * uint32 counters (differences modulo 2^32; the ring is at most 2^30):
 *
 *   used = reserve - released <= size
 *
 * Only the owner writes reserve, limit, cached_released, faulted,
 * dropped_pending and in_log (its owner words, below); only the flusher
 * writes released
 * (store-release after it has finished reading a record, paired with the
 * owner's load-acquire before it reuses the bytes).
 *
 * Faulting in: the ring is faulted in ahead of use, in steps, not all at
 * creation (a thread that logs a few records and exits, one per request,
 * would otherwise commit the whole ring; thousands of them waiting for the
 * flusher's next round are hundreds of MB). The first LLOG__ARENA_FIRST_FAULT
 * bytes at creation (a thread that logs less never commits more), the rest
 * of the ring in one step when a reservation first reaches past them: one
 * madvise(MADV_POPULATE_WRITE) each, two system calls in a thread's life
 * instead of one page fault per page of its first lap in the caller (and
 * one more than faulting the whole ring at creation). The hot path's one
 * comparison covers both the free space and the faulted part (limit); the
 * slow side is llog__arena_room.
 *
 * Stop and wake: the fast path's two compares read positions made ahead
 * by the slow side. stop is min(limit, the end of reserve's lap), so one
 * compare (bytes <= stop - reserve) says that a record fits below the
 * limit and before the ring's end; wake is cached_released + size / 2, so
 * one signed compare says the ring is past half full. A call that finds
 * it so takes a fresh view of released and, when the ring is still past
 * half full, wakes the flusher and moves wake 1/16 of the ring past its
 * own position (LLOG__ARENA_WAKE_STEP): a ring that stays past half full
 * (a flusher slower than its producers) wakes it once per sixteenth of
 * the ring, not at every record, each wake-up being a seq_cst fence and a
 * look at the futex word (queue.c); a new view never moves wake back.
 * Waking is never needed for a record to be taken (the flusher's interval
 * takes it; ERROR and above, BLOCK's wait and DROP's drop wake it
 * themselves): it is latency, which past half full is bounded by the
 * ring's last three eighths. Invariant, as
 * distances from reserve: 0 <= stop - reserve <= min(limit - reserve,
 * size - (reserve & mask) or size at a lap's start). llog__arena_restop
 * keeps it after every write of limit (llog__arena_room,
 * llog__arena_view, fault_all, creation, fork) and every move of reserve
 * but the fast path's, which stays at or below stop (the general
 * reservation, unreserve, shrink: a reservation that ended exactly at the
 * ring's end, shrunk, returns to the lap before, whose end is nearer than
 * the stop it set). A fast record that ends exactly at the
 * lap's end leaves stop == reserve: the next call takes the general path,
 * whose reservation enters the new lap and sets stop again.
 *
 * The owner's words: the positions above, the drop count and the go-slow
 * word live in the owner's static TLS (struct llog__own, llog__tls_own),
 * not in the arena: one cache line that a call reads and writes on a
 * page the thread touches anyway (the TLS block), so a call touches no
 * line or page of the arena's header, only its ring's lines (the header's
 * page and line cost a call after a pause one miss each:
 * bench/README.md, "The first call after a pause"). Every reader and
 * writer of them is the owner thread or one of its signal handlers
 * (creation, the LOG paths, context changes, thread exit, a fork child's
 * one thread), so the thread's own TLS is always the arena's; llog__owner()->arena
 * names the arena (NULL while the thread has none).
 *
 * The go-slow word: busy, one 32-bit word of the owner's words, is zero
 * iff the thread's fast path may run: in_log (re-entry: a signal handler
 * inside a LOG or inside the making of the arena, or llog's own threads,
 * whose in_log is always set), ctx_dirty (a context to send first),
 * ctx_busy (ctx.c rewriting the context), none (no arena: 1 from the
 * TLS's initial value until the arena is made, and again from the
 * thread's exit or a drained release on). So the fast path loads the word
 * and tests once, with no test of a pointer. Each byte is written only by
 * the owner and its signal handlers, each between compiler fences: a
 * handler that runs between the fast path's test and its setting in_log
 * runs a whole LOG or context change and leaves in_log as it found it;
 * ctx_dirty, which such a handler may have set, is read again after
 * in_log is set (producer.c). The process-wide reasons (a clock other
 * than the plain TSC, the backtrace on) cannot be in a word of each
 * thread without a registry of threads: they are one word on the line of
 * the queue's first head, which the fast path's push takes anyway
 * (llog__queue_slow, queue.h), which changes only while no flusher runs.
 *
 * Waiting for space (the BLOCK policy): a full owner announces itself in a
 * waiter count and sleeps on a sequence word; the flusher, after each
 * round, bumps the word and wakes the sleepers when the count is not zero
 * (llog__arena_wait_space / llog__arena_wake_waiters, a Dekker handshake).
 *
 * Thread name: each arena holds two copies, the owner's (name: written and
 * read by the owner only; the synchronous path uses it) and the flusher's
 * (fl_name: what its records are rendered with). Both are read with
 * prctl(PR_GET_NAME) when the arena is made, before the first push
 * publishes it. llog_set_thread_name changes name and pushes a NAME record
 * carrying the new one in the thread's own record stream; the flusher
 * copies it into fl_name when it reaches it, so the records before it are
 * rendered with the old name and those after with the new one, exactly.
 * fl_name is then written only by the flusher thread (or, when the list
 * is closed, by the owner after the flusher released every record of the
 * arena: llog__arena_rename_closed), never while another thread reads it:
 * no atomics needed, the push's release CAS and the released acquire
 * order the handovers.
 *
 * Thread exit: a pthread key destructor pushes the exit record that lives
 * in the arena header; the flusher frees the arena when it reaches it,
 * after every earlier record of that thread. If no flusher runs (the list
 * is closed), the destructor waits until the last round released
 * everything of this arena and frees it itself.
 */
#ifndef LLOG_ARENA_H
#define LLOG_ARENA_H

#include <stdalign.h>
#include <stdint.h>
#include <string.h>

#include "compiler.h"
#include "queue.h"

/* The bytes of a new ring faulted in at its creation (arena.h, "Faulting
 * in"). */
#define LLOG__ARENA_FIRST_FAULT (16u * 1024)
/* Past half full, the flusher is woken again each 1/LLOG__ARENA_WAKE_STEP
 * of the ring ("Stop and wake"). */
#define LLOG__ARENA_WAKE_STEP 16u
/* A thread name with its NUL (the kernel's TASK_COMM_LEN). */
#define LLOG__NAME_BYTES 16
/* A context's field list, at most (kv.h: LLOG__CTX_LIST_MAX, rounded). */
#define LLOG__CTX_BYTES_MAX 2832

/* The owner's words of a thread's arena, in the thread's static TLS
 * (llog__tls_own, one cache line): the call sites' own fast path and the
 * library's read and write them there, on a line and a page the thread
 * touches anyway, not on the arena's header ("The owner's words"). Only
 * the owner thread and its signal handlers touch them. */
struct __attribute__((may_alias)) llog__own {
	alignas(64) uint32_t reserve;
	/* The fast path's one bound (arena.h, "Stop and wake"): min(limit,
	 * the end of reserve's lap), both as distances from reserve. */
	uint32_t stop;
	/* The position reserve may reach without a look at released:
	 * cached_released + size once the whole ring is faulted in, faulted
	 * before (the first lap). */
	uint32_t limit;
	uint32_t cached_released;
	/* cached_released + size / 2: past it the ring is more than half
	 * full (the flusher is to be woken). */
	uint32_t wake;
	uint32_t size;
	uint32_t mask;
	/* Bytes of the ring faulted in, from its start (size: all of it). */
	uint32_t faulted;
	/* Records of this thread dropped since its last pushed record (the
	 * next one's notice). Atomic: a signal handler of the owner adds to
	 * it in the middle of a LOG (producer.c); only the owner and its
	 * handlers touch it, so relaxed single-instruction RMWs suffice. */
	_Atomic uint32_t dropped_pending;
	union {
		struct {
			volatile uint8_t in_log; /* re-entry guard (signal handlers) */
			/* Whether the flusher's copy of the context misses a
			 * change (a CTX record dropped under DROP: sent again
			 * first); ctx_busy while ctx.c rewrites ctx (a signal
			 * handler's synchronous record then goes without the
			 * context rather than read it torn; in_log is set
			 * then too). */
			uint8_t ctx_dirty;
			volatile uint8_t ctx_busy;
			/* 1 while the thread has no arena (before its first
			 * LOG, and from its exit on). */
			uint8_t none;
		};
		/* The four above as one word, the thread's go-slow word:
		 * nonzero, the fast path cannot run now (arena.h, "The
		 * go-slow word"). Only the owner and its signal handlers
		 * write them, so the owner's plain read races with no other
		 * thread. */
		uint32_t busy;
	};
	/* For the call site's own fast path (llog/detail.h, struct
	 * llog__fast_own: this line's layout, checked in arena.c): the
	 * queue's first head, &llog__q.shard[0], and LLOG__CLOSED, set at
	 * creation; the arena (its ring at offset LLOG__FAST_RING_OFF). */
	struct llog__shard *fast_head;
	const struct llist_node *fast_closed;
	struct llog__arena *arena;
};

/* The calling thread's owner words: llog__tls_own (initial-exec,
 * exported: the call sites' own fast path reads them; llog/detail.h
 * declares it with the header's type of the same line, struct
 * llog__fast_own, which arena.c checks). may_alias: this is another type
 * of the same bytes. */
static inline struct llog__own *llog__owner(void)
{
	return (struct llog__own *)(void *)&llog__tls_own;
}

struct llog__arena {
	uint64_t tid;
	void *altstack;        /* ours (altstack.h); NULL: the thread had one */
	char name[LLOG__NAME_BYTES]; /* the owner's copy of the thread name */
	/* The owner's copy of the thread's context (a field list, kv.h;
	 * count 0 when empty; ctx_dirty and ctx_busy above). */
	alignas(8) unsigned char ctx[LLOG__CTX_BYTES_MAX];
	/* flusher side, on its own cache line */
	alignas(64) _Atomic uint32_t released;
	char fl_name[LLOG__NAME_BYTES]; /* the name records are rendered with */
	uint8_t fl_name_len;            /* its length (llog__arena_fl_name) */
	/* The context records are rendered with: written as fl_name is
	 * (flusher, a closed list's owner, a fork child's), from CTX records. */
	alignas(8) unsigned char fl_ctx[LLOG__CTX_BYTES_MAX];
	struct llog__rec exit_rec;
	alignas(64) unsigned char ring[];
};

/* The arena of a thread that has none (never NULL): a sentinel, nothing of
 * it is used (its owner words say none: "The go-slow word"). */
extern struct llog__arena llog__arena_none LLOG__HIDDEN;

/* The calling thread's arena, or &llog__arena_none (a sentinel: nothing
 * of it is used): llog__tls_arena, declared in llog/detail.h
 * (initial-exec; exported, for objects built with headers before
 * LLOG__FAST_ABI 3). */

/* ---- the owner ----------------------------------------------------------- */

struct llog__arena *llog__arena_create_self(void);

/* The calling thread's arena, NULL when it has none yet. */
static inline struct llog__arena *llog__arena_mine(void)
{
	struct llog__arena *a = llog__tls_arena;

	return a != &llog__arena_none ? a : NULL;
}

/* The calling thread's arena, created on first use; NULL without memory. */
static inline struct llog__arena *llog__arena_get(void)
{
	struct llog__arena *a = llog__tls_arena;

	return __builtin_expect(a != &llog__arena_none, 1) ? a : llog__arena_create_self();
}

/* Sets stop from reserve and limit ("Stop and wake"); after every change
 * of limit and every move of reserve but the fast path's (which stays at
 * or below stop). */
static inline void llog__arena_restop(void)
{
	struct llog__own *o = llog__owner();
	uint32_t lap_end = (o->reserve | o->mask) + 1u;

	o->stop = o->limit - o->reserve < lap_end - o->reserve ? o->limit : lap_end;
}

/* A new view of released: cached_released, wake (never moved back: see
 * llog__arena_fill_wants_wake_at), and (the ring faulted in whole) limit
 * and stop. */
static inline void llog__arena_view(uint32_t released)
{
	struct llog__own *o = llog__owner();
	uint32_t half = released + o->size / 2;

	o->cached_released = released;
	if ((int32_t)(half - o->wake) > 0)
		o->wake = half;
	if (o->faulted == o->size) {
		o->limit = released + o->size;
		llog__arena_restop();
	}
}

/*
 * Returns a record of `bytes` (multiple of 8) or NULL when the ring has no
 * room right now. A span that would cross the end of the ring starts at
 * offset 0; the skipped tail belongs to this record (r->end).
 */
/* Faults in the whole ring now (llog_thread_prepare); owner only. */
void llog__arena_fault_all(struct llog__arena *a);
/* The slow side of llog__arena_reserve: total bytes from reserve on are
 * past limit. Refreshes the view of released and, in the first lap, faults
 * in more of the ring; returns whether they fit now. */
int llog__arena_room(struct llog__arena *a, uint32_t total);

static inline struct llog__rec *llog__arena_reserve(struct llog__arena *a, uint32_t bytes)
{
	struct llog__own *o = llog__owner();
	uint32_t off = o->reserve & o->mask;
	uint32_t tail = o->size - off;
	uint32_t total = bytes > tail ? bytes + tail : bytes;
	struct llog__rec *r;

	if (__builtin_expect(total > o->limit - o->reserve, 0) && !llog__arena_room(a, total))
		return NULL;
	r = (struct llog__rec *)(void *)(a->ring + (bytes > tail ? 0 : off));
	o->reserve += total;
	r->end = o->reserve;
	llog__arena_restop(); /* reserve may have entered a new lap */
	return r;
}

/* Gives back the unused end of the last reservation. */
static inline void llog__arena_shrink(struct llog__rec *r, uint32_t unused)
{
	struct llog__own *o = llog__owner();

	o->reserve -= unused;
	r->end = o->reserve;
	/* back, maybe to the lap before: a reservation that ended exactly at
	 * the ring's end set stop in the next lap */
	llog__arena_restop();
}

/* Gives back the whole last reservation (never pushed): reserve returns to
 * what it was before it. */
static inline void llog__arena_unreserve(uint32_t old_reserve)
{
	llog__owner()->reserve = old_reserve;
	llog__arena_restop(); /* back, maybe to the lap before */
}

/* Past wake: refreshes the view of released and says whether the ring is
 * still more than half full (the flusher is to be woken: the caller may
 * do it after leaving the arena, as the fast path does); then the next
 * look is LLOG__ARENA_WAKE_STEP of the ring later ("Stop and wake").
 * reserve: the owner's reserve, from the caller's register (the fast
 * path's). */
static inline int llog__arena_fill_wants_wake_at(struct llog__arena *a, uint32_t reserve)
{
	struct llog__own *o = llog__owner();
	uint32_t released;

	/* reserve - cached_released is in [0, size], size <= 2^30: the
	 * difference from wake is a signed 32-bit value ("Stop and wake") */
	if (__builtin_expect((int32_t)(reserve - o->wake) > 0, 0)) {
		/* Acquire: pairs with the flusher's store-release of
		 * released (a fresher view of the free space). */
		released = llog__load_acquire(&a->released);
		llog__arena_view(released);
		if (reserve - released <= o->size / 2)
			return 0;
		o->wake = reserve + o->size / LLOG__ARENA_WAKE_STEP;
		return 1;
	}
	return 0;
}

static inline int llog__arena_fill_wants_wake(struct llog__arena *a)
{
	return llog__arena_fill_wants_wake_at(a, llog__owner()->reserve);
}

/* The same, waking the flusher. */
static inline void llog__arena_check_fill(struct llog__arena *a)
{
	if (__builtin_expect(llog__arena_fill_wants_wake(a), 0))
		llog__wake_flusher();
}

/* Whether records of a are still pushed and not released (a shutdown's
 * final round may still be writing them). */
static inline int llog__arena_in_flight(const struct llog__arena *a)
{
	/* Acquire: pairs with the flusher's release of released. */
	return a != NULL && llog__load_acquire(&a->released) != llog__owner()->reserve;
}

/* Sleeps until the flusher has released enough of a's ring that `need`
 * bytes could be free, or a round passed (then the caller retries). */
void llog__arena_wait_space(struct llog__arena *a, uint32_t need);

/* The calling thread's arena after a shutdown drained it: waits for its
 * last records, then frees it (the main thread's destructor never runs). */
void llog__arena_release_self(void);

/* Copies name into dst[LLOG__NAME_BYTES], cut to 15 bytes at a UTF-8
 * character boundary, NUL-terminated. */
void llog__name_copy(char *dst, const char *name);

/* The list is closed (no flusher): waits until every record of a was
 * released (a shutdown's final round), then sets both copies of the name
 * (owner only). */
void llog__arena_rename_closed(struct llog__arena *a, const char *name);

/* The same for the context: the flusher's copy becomes the owner's. */
void llog__arena_ctx_closed(struct llog__arena *a);

/* ---- the flusher ---------------------------------------------------------- */

/* Sets a's flusher copy of the name from name (LLOG__NAME_BYTES bytes,
 * cut at the last) and its length, which each record's entry takes
 * (whoever may write fl_name: arena.h, "Thread name"). */
static inline void llog__arena_fl_name(struct llog__arena *a, const char *name)
{
	memcpy(a->fl_name, name, LLOG__NAME_BYTES);
	a->fl_name[LLOG__NAME_BYTES - 1] = '\0';
	a->fl_name_len = (uint8_t)strlen(a->fl_name);
}

/* A NAME record reached: its arena's records from here on carry the new
 * name (flusher, or its crash drain, only). */
static inline void llog__arena_apply_name(const struct llog__rec *r)
{
	llog__arena_fl_name(r->arena, (const char *)llog__rec_payload(r));
}

/* A CTX record reached: its arena's records from here on carry the
 * context it holds (flusher, or its crash drain, only). */
static inline void llog__arena_apply_ctx(const struct llog__rec *r)
{
	memcpy(r->arena->fl_ctx, llog__rec_payload(r), r->len);
}

/* The flusher is done reading r: its bytes go back to the owner. */
static inline void llog__arena_release(const struct llog__rec *r)
{
	/* Release: pairs with the owner's load-acquire in llog__arena_reserve
	 * and llog__arena_in_flight; we are done reading r. */
	llog__store_release(&r->arena->released, r->end);
}

/* After each round: wakes the owners sleeping in llog__arena_wait_space. */
void llog__arena_wake_waiters(void);

/* Frees an exited thread's arena (its EXIT record was reached). */
void llog__arena_free(struct llog__arena *a);

/* Marks the calling thread as the flusher: its own LOG calls are dropped
 * and counted (its in_log is always set). */
void llog__arena_mark_flusher(void);
int llog__arena_thread_is_flusher(void);
/* A sink's own thread (sinkq_worker.c): its LOG calls are dropped and counted as
 * the flusher's are; llog__arena_thread_is_internal is true on it and on
 * the flusher (llog_flush and llog_shutdown return at once there). */
void llog__arena_mark_worker(void);
int llog__arena_thread_is_internal(void);

/* In a fork child (single-threaded): the forking thread's records still in
 * its ring are the parent's; the child drops its copy of them. */
void llog__arena_after_fork(void);

#endif /* LLOG_ARENA_H */
