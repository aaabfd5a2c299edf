/*
 * arena.c - per-thread rings of record bytes.
 *
 * DESIGN
 * Each thread that logs owns one arena, created on its first LOG (the only
 * malloc a thread ever makes for logging). The owner reserves contiguous,
 * 8-aligned spans in ring order; a span that would cross the end of the ring
 * starts at offset 0 instead, and the skipped tail is counted as part of the
 * record (rec->end covers it). Records of one thread enter the list in the
 * order they were reserved, the flusher takes them in list order, so it
 * releases them in ring order by storing rec->end into released. Nothing
 * else is shared: no registry, no lock.
 *
 *   free = size - (reserve - released)      (uint32 modular arithmetic)
 *
 * At thread exit a pthread key destructor pushes the exit record that lives
 * in the arena header; the flusher frees the arena when it reaches it, which
 * is after every earlier record of that thread. If no flusher runs (the list
 * is closed), the destructor waits until the last flusher round has released
 * everything of this arena and frees it itself.
 *
 * Alternate signal stack: a thread that has none when its arena is made gets
 * one of LLOG__ALTSTACK_BYTES (64 KiB, mapped with a guard page below it:
 * a handler overflowing it faults instead of corrupting memory), so the
 * crash handler runs even when the thread overflows its stack. It is
 * disabled (if it is still the thread's and not in use) before the arena
 * can be freed: before the exit record is pushed, or before the thread frees
 * its arena itself. A thread that already has one (its own, a sanitizer's)
 * keeps it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "clock.h"
#include "core.h"

/* initial-exec: a direct %fs-relative access even in the shared library
 * (no __tls_get_addr call on the hot path); two words of static TLS. */
__thread struct llog__arena *llog__tls_arena __attribute__((tls_model("initial-exec")));
static __thread int tls_is_flusher __attribute__((tls_model("initial-exec")));
#define tls_arena llog__tls_arena
static pthread_key_t arena_key;
static pthread_once_t arena_key_once = PTHREAD_ONCE_INIT;

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

int llog__altstack_install(void *mem)
{
	stack_t cur, ss = {.ss_sp = mem, .ss_size = LLOG__ALTSTACK_BYTES, .ss_flags = 0};

	if (sigaltstack(NULL, &cur) != 0 || !(cur.ss_flags & SS_DISABLE))
		return 0;
	return sigaltstack(&ss, NULL) == 0;
}

/* Maps LLOG__ALTSTACK_BYTES with a PROT_NONE guard page below them: a
 * handler that overflows its alternate stack faults (and the process dies
 * of it) instead of writing over whatever lies below. NULL on failure. */
void *llog__altstack_new(void)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, pg + LLOG__ALTSTACK_BYTES, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	if (mprotect(p, pg, PROT_NONE) != 0) {
		munmap(p, pg + LLOG__ALTSTACK_BYTES);
		return NULL;
	}
	return p + pg;
}

void llog__altstack_delete(void *mem)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);

	if (mem != NULL)
		munmap((char *)mem - pg, pg + LLOG__ALTSTACK_BYTES);
}

int llog__altstack_remove(void *mem)
{
	stack_t cur, off = {.ss_sp = NULL, .ss_size = 0, .ss_flags = SS_DISABLE};

	if (mem == NULL || sigaltstack(NULL, &cur) != 0 || cur.ss_sp != mem ||
	    (cur.ss_flags & SS_DISABLE))
		return 1;
	if (cur.ss_flags & SS_ONSTACK)
		return 0; /* running on it (pthread_exit from a handler) */
	return sigaltstack(&off, NULL) == 0;
}

static struct llog__arena *arena_create(void)
{
	uint32_t size = round_pow2(llog__load_relaxed(&llog__g.arena_bytes));
	stack_t cur;
	int alt = sigaltstack(NULL, &cur) == 0 && (cur.ss_flags & SS_DISABLE);
	struct llog__arena *a = aligned_alloc(64, sizeof(*a) + size);

	if (a == NULL)
		return NULL;
	memset(a, 0, sizeof(*a));
	if (alt && (a->altstack = llog__altstack_new()) != NULL &&
	    !llog__altstack_install(a->altstack)) {
		llog__altstack_delete(a->altstack);
		a->altstack = NULL;
	}
	a->size = size;
	a->mask = size - 1;
	a->tid = (uint64_t)syscall(SYS_gettid);
	/* Relaxed: the arena is not shared until its first record is pushed
	 * (the push's release CAS publishes this initialisation). */
	llog__store_relaxed(&a->released, 0);
	return a;
}

struct llog__arena *llog__arena_create_self(void)
{
	struct llog__arena *a;

	pthread_once(&arena_key_once, make_key);
	a = arena_create();
	if (a == NULL)
		return NULL;
	if (arena_key != (pthread_key_t)-1)
		pthread_setspecific(arena_key, a);
	tls_arena = a;
	return a;
}

/* Owner only: gives back the last reservation (never pushed). */
void llog__arena_unreserve(struct llog__arena *a, struct llog__rec *r, uint32_t old_reserve)
{
	(void)r;
	a->reserve = old_reserve;
}

void llog__arena_free(struct llog__arena *a)
{
	llog__altstack_delete(a->altstack);
	free(a);
}

/* Waits until the flusher has released every record of a (closed list). */
static void wait_drained(struct llog__arena *a)
{
	/* Acquire: pairs with the flusher's store-release of released. */
	while (llog__load_acquire(&a->released) != a->reserve)
		llog__wait_released(a, a->size);
}

static void arena_thread_exit(void *p)
{
	struct llog__arena *a = p;
	struct llog__rec *r = &a->exit_rec;
	struct llist_node *first;

	tls_arena = NULL;
	if (!llog__altstack_remove(a->altstack))
		a->altstack = NULL; /* still in use: never unmapped (leaked) */
	r->kind = LLOG__K_EXIT;
	r->arena = a;
	r->site = NULL;
	r->len = 0;
	r->flags = 0;
	r->dropped = a->dropped_pending;
	a->dropped_pending = 0;
	first = llist_first_relaxed(&llog__g.head);
	for (;;) {
		if (first == LLOG__CLOSED) {
			if (r->dropped != 0)
				llog__sync_output(r, NULL, 0);
			wait_drained(a);
			llog__arena_free(a);
			return;
		}
		r->ts = llog__clock_raw();
		/* Release CAS: publishes the exit record and, through the
		 * release sequence, orders it after all our earlier pushes. */
		if (llist_try_add(&r->node, &llog__g.head, &first))
			return; /* the flusher frees a */
	}
}

/* The calling thread's arena after a shutdown drained it: free it now (the
 * main thread's destructor never runs). */
void llog__arena_release_self(void)
{
	struct llog__arena *a = tls_arena;

	if (a == NULL)
		return;
	wait_drained(a);
	tls_arena = NULL;
	if (!llog__altstack_remove(a->altstack))
		a->altstack = NULL; /* still in use: never unmapped (leaked) */
	if (arena_key != (pthread_key_t)-1)
		pthread_setspecific(arena_key, NULL);
	if (a->dropped_pending != 0) {
		a->exit_rec.kind = LLOG__K_EXIT;
		a->exit_rec.dropped = a->dropped_pending;
		llog__sync_output(&a->exit_rec, NULL, 0);
	}
	llog__arena_free(a);
}

int llog__arena_thread_is_flusher(void)
{
	return tls_is_flusher;
}

/* The flusher's LOG calls are dropped and counted (a sink callback that
 * logs must not recurse or deadlock): its arena is a header whose in_log
 * guard is always set. */
static struct llog__arena flusher_arena = {.in_log = 1};

void llog__arena_mark_flusher(void)
{
	tls_is_flusher = 1;
	tls_arena = &flusher_arena;
}

/*
 * In the child of fork() (single-threaded, from the atfork child handler):
 * the records of the forking thread still in its ring belong to the parent,
 * which writes them; the child drops its copy of them.
 */
void llog__arena_after_fork(void)
{
	struct llog__arena *a = tls_arena;

	if (a == NULL || tls_is_flusher)
		return;
	a->tid = (uint64_t)syscall(SYS_gettid);
	a->dropped_pending = 0;
	a->in_log = 0;
	a->cached_released = a->reserve;
	/* Relaxed: no other thread exists in the child. */
	llog__store_relaxed(&a->released, a->reserve);
}
