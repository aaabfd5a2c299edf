/*
 * core.h - records, arenas and the flusher's shared state (internal).
 *
 * DESIGN
 * Everything the flusher learns from other threads travels through one
 * lock-free list (llog__g.head): log records, thread-exit markers, flush
 * barriers and sink changes. Each is a struct llog__rec whose kind says
 * what it is. Log records live in their thread's arena ring (arena.c); exit
 * markers live in the arena header; barriers on the caller's stack; sink
 * changes in malloc'd memory (never on the record path).
 *
 * The head holds LLOG__CLOSED while no flusher runs (before llog_init and
 * after llog_shutdown): a producer that sees it renders its record itself,
 * synchronously, so a record is never pushed where no one will take it.
 *
 * Invariant (after llog_flush, no concurrent logging):
 *   stats.logged == stats.written + stats.dropped
 */
#ifndef LLOG_CORE_H
#define LLOG_CORE_H

#include <signal.h>
#include <stdalign.h>
#include <stdint.h>

#include "llist.h"
#include "llog.h"
#include "sink.h"

enum llog__kind {
	LLOG__K_LOG = 0,     /* captured arguments, rendered by the flusher */
	LLOG__K_TEXT = 1,    /* message already rendered at the call (EAGER) */
	LLOG__K_EXIT = 2,    /* the owning thread exited: free its arena */
	LLOG__K_BARRIER = 3, /* llog_flush(): commit, then signal */
	LLOG__K_SINK = 4     /* install a sink */
};

#define LLOG__REC_TRUNCATED 0x01u

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
};

#define LLOG__REC_ALIGN 8u
#define LLOG__REC_HDR ((uint32_t)((sizeof(struct llog__rec) + 7u) & ~7u))

static inline void *llog__rec_payload(struct llog__rec *r)
{
	return (char *)r + LLOG__REC_HDR;
}

/*
 * A thread's arena. Positions are free-running uint32 counters (they wrap;
 * differences are taken modulo 2^32, and the ring is at most 2^30 bytes).
 *
 *   used = reserve - released <= size
 *
 * Only the owner writes reserve/cached_released/dropped_pending/in_log; only
 * the flusher writes released (store-release after it has finished reading
 * a record, paired with the owner's load-acquire before reusing the bytes).
 */
struct llog__arena {
	/* owner side */
	uint32_t reserve;
	uint32_t cached_released;
	uint32_t size;
	uint32_t mask;
	uint32_t dropped_pending;
	volatile int in_log;   /* re-entry guard (signal handlers) */
	uint64_t tid;
	void *altstack;        /* ours (llog__altstack_new); NULL: the thread had one */
	/* flusher side, on its own cache line */
	alignas(64) _Atomic uint32_t released;
	struct llog__rec exit_rec;
	alignas(64) unsigned char ring[];
};

/* The sentinel installed in head while no flusher runs. */
extern struct llist_node llog__closed_node;
#define LLOG__CLOSED (&llog__closed_node)

struct llog__stats {
	_Atomic uint64_t logged, written, dropped, truncated, batches,
		bytes_written, write_errors, blocked, sink_lost, repaired;
};

struct llog__global {
	alignas(64) struct llist_head head;
	/* Futex word: 1 when the flusher has been asked to run a round. */
	alignas(64) _Atomic uint32_t pending;
	/* Producers waiting for arena space, and the futex word they sleep
	 * on (bumped by the flusher after a round when waiters > 0). */
	alignas(64) _Atomic uint32_t blocked_waiters;
	_Atomic uint32_t release_seq;
	_Atomic int stop;
	/* Configuration in force (written under the control mutex while no
	 * flusher runs; read by producers relaxed: a torn read of an int is
	 * impossible and a stale one harmless). */
	_Atomic uint32_t arena_bytes;
	_Atomic uint32_t max_record_bytes;
	_Atomic int overflow;
	unsigned flush_interval_ms;
	struct llog__stats stats;
};

extern struct llog__global llog__g;

/* arena.c */
extern __thread struct llog__arena *llog__tls_arena __attribute__((tls_model("initial-exec")));
struct llog__arena *llog__arena_create_self(void);

/* The calling thread's arena, created on first use; NULL without memory. */
static inline struct llog__arena *llog__arena_get(void)
{
	struct llog__arena *a = llog__tls_arena;

	return __builtin_expect(a != NULL, 1) ? a : llog__arena_create_self();
}

/*
 * Owner only. Returns a record of `bytes` (multiple of 8) or NULL when the
 * ring has no room right now. A span that would cross the end of the ring
 * starts at offset 0; the skipped tail belongs to this record (r->end).
 */
static inline struct llog__rec *llog__arena_reserve(struct llog__arena *a, uint32_t bytes)
{
	uint32_t off = a->reserve & a->mask;
	uint32_t tail = a->size - off;
	uint32_t total = bytes > tail ? bytes + tail : bytes;
	struct llog__rec *r;

	if (__builtin_expect(total > a->size - (a->reserve - a->cached_released), 0)) {
		/* Acquire: pairs with the flusher's store-release of released
		 * (core.c, process()), issued after it finished reading the
		 * records before that position; so our writes to those bytes
		 * cannot race with its reads. */
		a->cached_released = llog__load_acquire(&a->released);
		if (total > a->size - (a->reserve - a->cached_released))
			return NULL;
	}
	r = (struct llog__rec *)(void *)(a->ring + (bytes > tail ? 0 : off));
	a->reserve += total;
	r->end = a->reserve;
	return r;
}

/* Owner only: returns the unused end of the last reservation. */
static inline void llog__arena_shrink(struct llog__arena *a, struct llog__rec *r, uint32_t unused)
{
	a->reserve -= unused;
	r->end = a->reserve;
}
void llog__arena_unreserve(struct llog__arena *a, struct llog__rec *r, uint32_t old_reserve);
void llog__arena_free(struct llog__arena *a);
void llog__arena_release_self(void);
int llog__arena_thread_is_flusher(void);
/* Makes mem (LLOG__ALTSTACK_BYTES) the calling thread's alternate signal
 * stack if it has none; returns 1 when it did. */
int llog__altstack_install(void *mem);
/* Disables the calling thread's alternate signal stack if it is still mem
 * and not in use (before mem is freed). Returns 0 when the thread runs on
 * it right now (then mem must not be freed), else 1. */
int llog__altstack_remove(void *mem);
/* A new alternate stack with a guard page (mmap), and its unmapping. */
void *llog__altstack_new(void);
void llog__altstack_delete(void *mem);
void llog__arena_mark_flusher(void);
void llog__arena_after_fork(void);

/* core.c */
void llog__wake_flusher(void);
void llog__wait_released(struct llog__arena *a, uint32_t need);
void llog__sync_output(const struct llog__rec *r, const char *msg, size_t len);
/* Async-signal-safe (the crash handler, on the flusher thread only): drains
 * directly what the flusher had not yet handed to the sinks, then rec (the
 * crash record, when not NULL), through the sinks' crash entry points (see
 * llog/sinks.h), and closes the list (later pushes go to stderr). Returns 1
 * when at least one sink committed rec, 0 otherwise. */
int llog__crash_drain_self(struct llog__rec *rec);
/* Async-signal-safe (the crash handler): pushes rec (when not NULL) and a
 * static barrier, wakes the flusher, and waits at most timeout_ms for the
 * barrier. Returns 1 when everything pushed before it is committed, 0 when
 * not (no flusher, called on the flusher, or timed out). */
int llog__crash_drain(struct llog__rec *rec, unsigned timeout_ms);
/* Set by LOG_FATAL just before abort(): the crash handler then only chains. */
extern volatile sig_atomic_t llog__fatal_aborting;

/* The alternate signal stack llog gives a thread that has none (the
 * llog_init thread, each logging thread with its arena, the flusher), so
 * that the crash handler runs even after a stack overflow. */
#define LLOG__ALTSTACK_BYTES (64u * 1024u)

/* Text building without libc formatting (async-signal-safe): appends to
 * p[n..cap), silently cut at cap. */
struct llog__buf {
	char *p;
	size_t n, cap;
};

static inline void llog__buf_put(struct llog__buf *b, const char *s)
{
	while (*s != '\0' && b->n < b->cap)
		b->p[b->n++] = *s++;
}

/* v in base 10, or in base 16 with "0x". */
static inline void llog__buf_num(struct llog__buf *b, uint64_t v, unsigned base)
{
	char tmp[24];
	int i = 0;

	do {
		tmp[i++] = "0123456789abcdef"[v % base];
		v /= base;
	} while (v != 0);
	if (base == 16)
		llog__buf_put(b, "0x");
	while (i > 0 && b->n < b->cap)
		b->p[b->n++] = tmp[--i];
}

/* crash.c (under the control mutex) */
int llog__crash_install(void);
void llog__crash_uninstall(void);
/* From atfork_child: forgets a crash report in progress in the parent. */
void llog__crash_after_fork(void);
/* Whether a crash is being reported right now. */
int llog__crash_in_progress(void);
/* Removes the crash signals from *set (the flusher's blocked mask). */
void llog__crash_block_mask(sigset_t *set);

/* futex helpers (core.c) */
void llog__futex_wait(_Atomic uint32_t *addr, uint32_t val, unsigned timeout_ms);
void llog__futex_wake(_Atomic uint32_t *addr, int all);

#endif /* LLOG_CORE_H */
