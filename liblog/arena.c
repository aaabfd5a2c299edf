/*
 * arena.c - creating, waiting on, exiting and forking per-thread rings.
 * See arena.h for the design; the hot-path parts (reserve, shrink, release)
 * are inline there.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "altstack.h"
#include "arena.h"
#include "config.h"
#include "sched_points.h"
#include "stats.h"
#include "sync.h"

/* The owner's words as the call sites' own fast path sees them
 * (llog/detail.h, LLOG__FAST_ABI): a change here is a new version. */
#define FAST_AT(f, g) (offsetof(struct llog__own, f) == offsetof(struct llog__fast_own, g))
_Static_assert(FAST_AT(reserve, reserve) && FAST_AT(stop, stop) && FAST_AT(mask, mask) &&
		       FAST_AT(wake, wake) && FAST_AT(dropped_pending, dropped_pending) &&
		       FAST_AT(busy, busy) && FAST_AT(in_log, busy) && FAST_AT(fast_head, head) &&
		       FAST_AT(fast_closed, closed) && FAST_AT(arena, arena) &&
		       offsetof(struct llog__arena, ring) == LLOG__FAST_RING_OFF &&
		       offsetof(struct llog__own, ctx_dirty) == offsetof(struct llog__own, busy) + 1 &&
		       sizeof(struct llog__fast_own) == sizeof(struct llog__own) &&
		       sizeof(struct llog__own) == 64 &&
		       offsetof(struct llog__own, none) == offsetof(struct llog__own, busy) + 3,
	       "llog/detail.h's struct llog__fast_own is the owner's words");
_Static_assert(offsetof(struct llog__shard, head) == offsetof(struct llog__fast_head, first) &&
		       offsetof(struct llog__shard, slow) == offsetof(struct llog__fast_head, slow),
	       "llog/detail.h's struct llog__fast_head is the queue's first head");
#undef FAST_AT

/* initial-exec: a direct %fs-relative access even in the shared library
 * (no __tls_get_addr call on the hot path); one line of static TLS and
 * the two words below. llog__tls_arena is also what the call sites of
 * headers before LLOG__FAST_ABI 3 load (their own path never runs: this
 * library never marks their sites); it stays the thread's arena. */
struct llog__arena llog__arena_none;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define BUSY_NONE (1u << 24) /* the none byte, the word's last */
#else
#define BUSY_NONE 1u
#endif
__thread struct llog__fast_own llog__tls_own
	__attribute__((tls_model("initial-exec"), aligned(64))) = {.busy = BUSY_NONE};
__thread struct llog__arena *llog__tls_arena
	__attribute__((tls_model("initial-exec"))) = &llog__arena_none;
static __thread int tls_is_flusher __attribute__((tls_model("initial-exec")));
static _Atomic uint32_t next_shard;
static pthread_key_t arena_key;
static pthread_once_t arena_key_once = PTHREAD_ONCE_INIT;

/* Owners waiting for space, and the futex word they sleep on (bumped by
 * the flusher after a round when waiters > 0). */
static struct {
	alignas(64) _Atomic uint32_t waiters;
	_Atomic uint32_t seq;
} space;

static void arena_thread_exit(void *p);

static void make_key(void)
{
	/* Failure leaves the key unusable: arenas then live until process
	 * exit instead of thread exit (no loss, only memory). */
	if (pthread_key_create(&arena_key, arena_thread_exit) != 0)
		arena_key = (pthread_key_t)-1;
}

static uint32_t round_pow2(uint32_t v)
{
	uint32_t p = 1;

	while (p < v)
		p <<= 1;
	return p;
}

/*
 * Faults in the pages of the ring's bytes [from, to) now, with one system
 * call where the kernel has MADV_POPULATE_WRITE (5.14), else by touching
 * each page: they would otherwise be faulted in one by one by later LOG
 * calls, each fault costing the caller 1-40 us (measured: the slowest
 * bursts of a run were the first lap of the arena). The pages that hold
 * the range's ends are included: the one below `from` is the header's or
 * the previous step's, the one at `to` is the next step's or past the ring
 * (madvise fails there: the loop then touches only the ring). Best effort.
 */
static void prefault(struct llog__arena *a, uint32_t from, uint32_t to)
{
	long page = sysconf(_SC_PAGESIZE);
	uintptr_t lo, hi;

	if (page <= 0)
		page = 4096;
	lo = (uintptr_t)(a->ring + from) & ~((uintptr_t)page - 1);
	hi = ((uintptr_t)(a->ring + to) + (uintptr_t)page - 1) & ~((uintptr_t)page - 1);
#ifdef MADV_POPULATE_WRITE
	if (madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE) == 0)
		return;
#endif
	for (volatile unsigned char *c = a->ring + from; c < a->ring + to; c += page)
		*c = 0;
	if (to > from)
		a->ring[to - 1] = 0;
}


void llog__arena_fault_all(struct llog__arena *a)
{
	struct llog__own *o = llog__owner();

	if (o->faulted == o->size)
		return;
	prefault(a, o->faulted, o->size);
	o->faulted = o->size;
	/* In the first lap cached_released + size is past every position. */
	o->limit = o->cached_released + o->size;
	llog__arena_restop();
}

int llog__arena_room(struct llog__arena *a, uint32_t total)
{
	struct llog__own *o = llog__owner();

	/* Acquire: pairs with the flusher's store-release of released in
	 * llog__arena_release, issued after it finished reading the records
	 * before that position; so our writes to those bytes cannot race
	 * with its reads. */
	uint32_t released = llog__load_acquire(&a->released);

	llog__arena_view(released);
	if (total > o->size - (o->reserve - o->cached_released))
		return 0;
	/* In the first lap reserve is an offset from the ring's start: a
	 * span that fits and is not yet faulted in ends below size. */
	if (o->faulted < o->size && o->reserve + total > o->faulted)
		llog__arena_fault_all(a); /* the rest (arena.h) */
	o->limit = o->faulted < o->size ? o->faulted : o->cached_released + o->size;
	llog__arena_restop();
	return 1;
}

/* Bytes allocated past an arena's ring: every line that a prefetch of
 * the fast paths names (LLOG__FAST_AHEAD past a record that starts
 * before the ring's end, and the line after) is the arena's own. */
#define ARENA_TAIL (LLOG__FAST_AHEAD + 128u)

static struct llog__arena *arena_create(void)
{
	struct llog__own *o = llog__owner();

	/* Relaxed: see config.h. */
	uint32_t size = round_pow2(llog__load_relaxed(&llog__cfg.arena_bytes));
	int alt = llog__altstack_missing();
	/* The ring and, past it, the lines the fast paths' prefetch names
	 * from the ring's last records (llog/detail.h, LLOG__FAST_AHEAD):
	 * the arena's own bytes, not another allocation's. */
	struct llog__arena *a = aligned_alloc(64, sizeof(*a) + size + ARENA_TAIL);

	if (a == NULL)
		return NULL;
	memset(a, 0, sizeof(*a));
	if (alt && (a->altstack = llog__altstack_new()) != NULL &&
	    !llog__altstack_install(a->altstack)) {
		llog__altstack_delete(a->altstack);
		a->altstack = NULL;
	}
	/* The owner words of the thread's previous arena, if it had one
	 * (released after a shutdown: llog__arena_release_self), are of no
	 * use: in_log stays set (llog__arena_create_self). */
	o->reserve = 0;
	o->cached_released = 0;
	/* Relaxed: only this thread and its handlers touch the count, and
	 * the handlers are held off (in_log) while it is reset. */
	llog__store_relaxed(&o->dropped_pending, 0);
	o->ctx_dirty = 0;
	o->ctx_busy = 0;
	o->size = size;
	o->mask = size - 1;
	o->faulted = size < LLOG__ARENA_FIRST_FAULT ? size : LLOG__ARENA_FIRST_FAULT;
	prefault(a, 0, o->faulted);
	o->limit = o->faulted < size ? o->faulted : size;
	o->wake = size / 2;
	llog__arena_restop();
	o->fast_head = &llog__q.shard[0];
	o->fast_closed = LLOG__CLOSED;
	o->arena = a;
	a->tid = (uint64_t)syscall(SYS_gettid);
	/* The name as the thread has it now (read once: arena.h). */
	if (prctl(PR_GET_NAME, a->name, 0, 0, 0) != 0)
		a->name[0] = '\0';
	a->name[LLOG__NAME_BYTES - 1] = '\0';
	llog__arena_fl_name(a, a->name);
	/* Relaxed: the arena is not shared until its first record is pushed
	 * (the push's release CAS publishes this initialisation). */
	llog__store_relaxed(&a->released, 0);
	return a;
}

struct llog__arena *llog__arena_create_self(void)
{
	struct llog__own *o = llog__owner();
	struct llog__arena *a;

	/* arena_create writes the owner words: a signal handler that logs
	 * meanwhile finds in_log set and makes no arena of its own over them
	 * (its LOG is a re-entered one: producer.c). */
	if (o->in_log)
		return NULL;
	o->in_log = 1;
	atomic_signal_fence(memory_order_seq_cst);
	pthread_once(&arena_key_once, make_key);
	a = arena_create();
	if (a != NULL) {
		if (arena_key != (pthread_key_t)-1)
			pthread_setspecific(arena_key, a);
		llog__tls_arena = a;
		/* Which head of a sharded queue this thread pushes on
		 * (queue.h): threads in turn. Relaxed: a counter only. */
		llog__tls_head_off = llog__fetch_add_relaxed(&next_shard, 1u) *
				     (uint32_t)sizeof(struct llog__shard);
		o->none = 0;
	}
	atomic_signal_fence(memory_order_seq_cst);
	o->in_log = 0;
	return a;
}

/* The thread has no arena from here on (its exit, or a drained release):
 * the fast paths see none. in_log is set too, until arena_done: a signal
 * handler that logs in between makes no arena of its own, which would
 * rewrite the owner words this arena's last steps still read (its drops,
 * its positions for wait_drained); its LOG is a re-entered one, counted
 * (producer.c). The signal fences keep the compiler from moving what
 * follows above the stores, or the stores of arena_done above it. */
static void arena_leave(void)
{
	struct llog__own *o = llog__owner();

	o->in_log = 1;
	atomic_signal_fence(memory_order_seq_cst);
	o->none = 1;
	o->arena = NULL;
	llog__tls_arena = &llog__arena_none;
	atomic_signal_fence(memory_order_seq_cst);
}

/* The end of arena_leave's hold: a later LOG (a destructor's) may make a
 * new arena. in_log is cleared whatever it was before arena_leave (a
 * LOG left by siglongjmp leaves it set: it is not carried over to the
 * next arena). */
static void arena_done(void)
{
	atomic_signal_fence(memory_order_seq_cst);
	llog__owner()->in_log = 0;
}

void llog__arena_free(struct llog__arena *a)
{
	llog__altstack_delete(a->altstack);
	free(a);
}

/*
 * Dekker handshake with llog__arena_wake_waiters: we announce ourselves in
 * space.waiters (seq_cst RMW), then re-read released with seq_cst; the
 * flusher stores released, issues a seq_cst fence, then reads the waiters.
 * One of us sees the other: either we see the new released and do not
 * sleep, or it sees our count, bumps space.seq and wakes us (and
 * futex_wait returns at once if it bumped space.seq after we read it).
 */
void llog__arena_wait_space(struct llog__arena *a, uint32_t need)
{
	struct llog__own *o = llog__owner();
	uint32_t seq;

	llog__count(blocked, 1);
	atomic_fetch_add_explicit(&space.waiters, 1, memory_order_seq_cst);
	seq = llog__load_seq_cst(&space.seq);
	LLOG__SCHED(SPACE_ANNOUNCE);
	llog__wake_flusher();
	if (o->size - (o->reserve - llog__load_seq_cst(&a->released)) < need) {
		LLOG__SCHED(SPACE_SLEEP);
		llog__futex_wait(&space.seq, seq, 100);
		LLOG__SCHED(SPACE_WOKEN);
	}
	atomic_fetch_sub_explicit(&space.waiters, 1, memory_order_seq_cst);
}

void llog__arena_wake_waiters(void)
{
	/* Fence: pairs with the seq_cst RMW/load in llog__arena_wait_space
	 * (Dekker handshake; the releases of this round come before it). */
	llog__fence_seq_cst();
	if (llog__load_relaxed(&space.waiters) != 0) {
		LLOG__SCHED(WAITERS_BUMP);
		/* Release: the waiter's futex check reads it; it then
		 * re-reads released itself (acquire in reserve). */
		llog__fetch_add_release(&space.seq, 1);
		llog__futex_wake(&space.seq, 1);
	}
}

/* Waits until the flusher has released every record of a (closed list). */
static void wait_drained(struct llog__arena *a)
{
	while (llog__arena_in_flight(a))
		llog__arena_wait_space(a, llog__owner()->size);
}

void llog__name_copy(char *dst, const char *name)
{
	size_t n = strnlen(name, LLOG__NAME_BYTES);

	if (n == LLOG__NAME_BYTES) {
		n = LLOG__NAME_BYTES - 1;
		/* Not in the middle of a UTF-8 character: back off its
		 * continuation bytes and its lead byte. */
		if (((unsigned char)name[n] & 0xc0) == 0x80) {
			while (n > 0 && ((unsigned char)name[n] & 0xc0) == 0x80)
				n--;
		}
	}
	memcpy(dst, name, n);
	memset(dst + n, 0, LLOG__NAME_BYTES - n);
}

void llog__arena_rename_closed(struct llog__arena *a, const char *name)
{
	/* The acquire loads of released in wait_drained pair with the
	 * flusher's release after its last read of this arena: its reads
	 * of fl_name happen before our write; a later flusher reads it only
	 * for records we push after it (release CAS). */
	wait_drained(a);
	memcpy(a->name, name, LLOG__NAME_BYTES);
	llog__arena_fl_name(a, name);
}

void llog__arena_ctx_closed(struct llog__arena *a)
{
	/* As llog__arena_rename_closed, for fl_ctx. */
	wait_drained(a);
	memcpy(a->fl_ctx, a->ctx, sizeof(a->ctx));
	llog__owner()->ctx_dirty = 0;
}

/* Disables the thread's alternate stack before the arena can be freed. */
static void drop_altstack(struct llog__arena *a)
{
	if (!llog__altstack_remove(a->altstack))
		a->altstack = NULL; /* still in use: never unmapped (leaked) */
}

static void arena_thread_exit(void *p)
{
	struct llog__arena *a = p;
	struct llog__rec *r = &a->exit_rec;
	struct llist_node *first;
	struct llist_head *h;

	/* A handler that runs from here on cannot add to dropped_pending
	 * (arena_leave). Relaxed exchange: only this thread and its
	 * handlers touch the count (arena.h). */
	arena_leave();
	LLOG__SCHED(ARENA_LEFT);
	drop_altstack(a);
	r->kind = LLOG__K_EXIT;
	r->arena = a;
	r->site = NULL;
	r->len = 0;
	r->flags = 0;
	r->dropped = atomic_exchange_explicit(&llog__owner()->dropped_pending, 0, memory_order_relaxed);
	h = llog__queue_mine();
	first = llog__queue_peek(h);
	/* Release CAS (in llog__push_from): publishes the exit record and,
	 * through the release sequence, orders it after all our pushes (on
	 * a sharded queue, the merge orders it after them: queue.c). */
	if (llog__push_from(r, h, first) == 0) {
		arena_done();
		return; /* the flusher frees a */
	}
	if (r->dropped != 0)
		llog__sync_notice(a->tid, r->dropped);
	wait_drained(a);
	llog__arena_free(a);
	arena_done();
}

void llog__arena_release_self(void)
{
	struct llog__arena *a = llog__arena_mine();
	uint32_t dropped;

	if (a == NULL)
		return;
	wait_drained(a);
	/* Relaxed load as in arena_thread_exit (arena_leave holds in_log). */
	arena_leave();
	LLOG__SCHED(ARENA_LEFT);
	dropped = llog__load_relaxed(&llog__owner()->dropped_pending);
	drop_altstack(a);
	if (arena_key != (pthread_key_t)-1)
		pthread_setspecific(arena_key, NULL);
	if (dropped != 0)
		llog__sync_notice(a->tid, dropped);
	llog__arena_free(a);
	arena_done();
}

int llog__arena_thread_is_flusher(void)
{
	return tls_is_flusher == 1;
}

int llog__arena_thread_is_internal(void)
{
	return tls_is_flusher != 0;
}

/* The flusher's LOG calls are dropped and counted (a sink callback that
 * logs must not recurse or deadlock): its in_log is always set, and its
 * arena pointer names this marker (nothing of it is used). */
static struct llog__arena flusher_arena;

void llog__arena_mark_flusher(void)
{
	tls_is_flusher = 1;
	llog__owner()->in_log = 1;
	llog__tls_arena = &flusher_arena;
}

void llog__arena_mark_worker(void)
{
	tls_is_flusher = 2;
	llog__owner()->in_log = 1;
	llog__tls_arena = &flusher_arena;
}

void llog__arena_after_fork(void)
{
	struct llog__own *o = llog__owner();
	struct llog__arena *a = llog__arena_mine();

	/* Relaxed: no other thread exists in the child. */
	llog__store_relaxed(&space.waiters, 0);
	if (a == NULL || tls_is_flusher)
		return;
	a->tid = (uint64_t)syscall(SYS_gettid);
	llog__store_relaxed(&o->dropped_pending, 0); /* one thread in the child */
	o->in_log = 0;
	llog__arena_view(o->reserve);
	llog__store_relaxed(&a->released, o->reserve);
	/* A NAME record of ours still in the parent's list is dropped with
	 * it: the owner's copy is the current name. */
	llog__arena_fl_name(a, a->name);
	/* So is a CTX record: the child's flusher starts from the owner's
	 * context (docs/fields.md 2: the child's thread keeps it). */
	memcpy(a->fl_ctx, a->ctx, sizeof(a->ctx));
	o->ctx_dirty = 0;
}
