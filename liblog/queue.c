/*
 * queue.c - the record queue's wake-up, take and stop handshakes. See
 * queue.h; tests/model/pipeline.pml models every function here. The
 * LLOG__SCHED points between the steps are empty outside the test-only
 * llog_sched build (sched_points.h).
 */
#define _GNU_SOURCE
#include <limits.h>
#include <pthread.h>
#include <string.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "queue.h"
#include "sched_points.h"
#include "stats.h"

struct llist_node llog__closed_node;

/* Every head CLOSED until llog_init (LLOG__SHARDS_MAX of them). */
#define CLOSED1 {{&llog__closed_node}, 0}
#define CLOSED4 CLOSED1, CLOSED1, CLOSED1, CLOSED1
#define CLOSED16 CLOSED4, CLOSED4, CLOSED4, CLOSED4
_Static_assert(LLOG__SHARDS_MAX == 64, "one initialiser per head");
/* head_mask masks byte offsets: the heads' stride is a power of two. */
_Static_assert(sizeof(struct llog__shard) == 64, "one cache line per head");

/* shard[0]'s go-slow word: the clock is not known to be the plain TSC
 * before the first llog__queue_open. */
struct llog__queue llog__q = {
	.shard = {{{&llog__closed_node}, LLOG__Q_SLOW_CLOCK}, CLOSED1, CLOSED1, CLOSED1, CLOSED4,
		  CLOSED4, CLOSED4, CLOSED16, CLOSED16, CLOSED16},
};

__thread uint32_t llog__tls_head_off __attribute__((tls_model("initial-exec")));

/*
 * The flusher's side of a sharded queue (its own state; also read by the
 * crash drain, which runs on the flusher, and by a fork child, which is
 * single-threaded: llog__queue_after_fork): each head's records taken and
 * not yet handed out, in push order.
 */
struct held {
	struct llist_node *first, *last;
};

static struct held held[LLOG__SHARDS_MAX];

/* The heads in use, from the mask the producers read. Relaxed: it changes
 * only in llog__queue_open, before the flusher that reads it starts
 * (pthread_create orders them), or in the thread that calls it. */
static unsigned heads_in_use(void)
{
	return llog__load_relaxed(&llog__pw.head_mask) / (uint32_t)sizeof(struct llog__shard) + 1;
}

#ifdef LLOG_TEST_SCHED
_Atomic(llog__sched_fn *) llog__sched_hook;

/* The call sites' own fast path's points (llog/detail.h). */
_Static_assert(LLOG__FAST_SP_ENTER == LLOG__SP_FAST_ENTER && LLOG__FAST_SP_PUSH == LLOG__SP_FAST_PUSH &&
		       LLOG__FAST_SP_CLOSED == LLOG__SP_FAST_CLOSED,
	       "llog/detail.h's schedule points");
_Atomic unsigned long llog__sched_site_points;
void llog__sched_fast_at(int point)
{
	/* Relaxed: a count the test reads on the same thread. */
	(void)llog__fetch_add_relaxed(&llog__sched_site_points, 1ul);
	llog__sched_at((enum llog__sched_point)point);
}
#endif

/*
 * The seq_cst fence pairs with the fence after F1 in llog__queue_take:
 * either our push (before the fence) is seen by the flusher's F3 exchange,
 * or our load below sees F1's pending = 0 and we wake it. The relaxed load
 * is a filter only; the exchange decides who calls futex_wake.
 */
void llog__wake_flusher(void)
{
	llog__fence_seq_cst();
	LLOG__SCHED(WAKE_FENCE);
	if (llog__load_relaxed(&llog__q.pending) == 0 &&
	    llog__xchg_seq_cst(&llog__q.pending, 1) == 0) {
		LLOG__SCHED(WAKE_ELECTED);
		llog__futex_wake(&llog__q.pending, 0);
	}
}

int llog__wake_flusher_last(void)
{
	llog__wake_flusher();
	return 0;
}

static inline uint64_t rec_ts(const struct llist_node *n)
{
	return llist_entry(n, const struct llog__rec, node)->ts;
}

/* Appends a chain in push order to head k's held records. */
static void hold(unsigned k, struct llist_node *chain)
{
	struct llist_node *last = chain;

	if (chain == NULL)
		return;
	while (last->next != NULL)
		last = last->next;
	if (held[k].first == NULL)
		held[k].first = chain;
	else
		held[k].last->next = chain;
	held[k].last = last;
}

/*
 * The held records of every head with a time up to lim, merged by time
 * (the earliest head first; equal times: the lower head first), each
 * head's records in push order: from each head the longest prefix whose
 * times are all <= lim. What is left stays held.
 */
static struct llist_node *merge(uint64_t lim)
{
	unsigned act[LLOG__SHARDS_MAX], nact = 0, n = heads_in_use();
	struct llist_node *out = NULL, **tail = &out;

	for (unsigned k = 0; k < n; k++)
		if (held[k].first != NULL)
			act[nact++] = k;
	while (nact != 0) {
		unsigned bi = 0;
		uint64_t bts = rec_ts(held[act[0]].first);
		struct llist_node *r;

		for (unsigned i = 1; i < nact; i++) {
			uint64_t t = rec_ts(held[act[i]].first);

			/* act[] is in no order (removals swap): equal times
			 * go to the lower head explicitly. */
			if (t < bts || (t == bts && act[i] < act[bi])) {
				bts = t;
				bi = i;
			}
		}
		if (bts > lim)
			break; /* every head's next record is past the cut */
		r = held[act[bi]].first;
		held[act[bi]].first = r->next;
		*tail = r;
		tail = &r->next;
		/* A head whose next record is past the cut is done. */
		if (r->next == NULL || rec_ts(r->next) > lim)
			act[bi] = act[--nact];
	}
	*tail = NULL;
	return out;
}

/*
 * The cut of a round: a time read before the exchanges. rdtsc then
 * lfence: the exchanges (locked instructions after the lfence) start
 * only after the time was read, so the cut is earlier than every
 * exchange of the round.
 */
static uint64_t cut_time(void)
{
#if defined(__x86_64__) || defined(__i386__)
	/* The clock pushes read (llog__clock_push): the TSC, or, where a
	 * test forced heads on a CPU without an invariant TSC
	 * (llog__queue_force_shards), CLOCK_REALTIME. The lfence keeps the
	 * exchanges after the read. */
	uint64_t t = llog__clock_tsc ? __rdtsc() : llog__clock_realtime_ns();

	_mm_lfence();
	return t;
#else
	return 0; /* never sharded without the TSC (llog__queue_open) */
#endif
}

/*
 * F3 on a sharded queue. Takes every head in turn and hands out what was
 * taken with a time before the cut, merged by time; later records wait
 * for the next round, as if they had been pushed just after this one's
 * exchanges (a barrier or an ERROR record among them asks for that round
 * at once: its push comes after this round's F1, so its wake-up finds
 * pending == 0, 2.4).
 *
 * Why the output keeps happens-before (A hb B: A's LOG returned before
 * something that B's thread saw before its LOG began; per-thread order is
 * the case of one thread). Times are the TSC, one clock for every CPU
 * (invariant, and synchronized across CPUs as the kernel found it: its
 * clocksource is the TSC, llog__clock_tsc_synced); a push reads it ordered
 * (lfence; rdtsc, llog__clock_push) after
 * loading the head, a round reads the cut before its exchanges. Let B be
 * handed out in round R, so B's time < cut(R) and B was pushed before
 * round R's exchange of its head.
 *  1. A was pushed before round R's exchange X of A's head: otherwise A's
 *     CAS came after X, so X read the cut before A's push, which B's
 *     thread saw before reading B's time: cut(R) < time(B). Contradiction.
 *  2. Every record C before A on A's head has time(C) < time(B): C's time
 *     was read before C's push, which A's CAS saw, before A's push, which
 *     B's thread saw before reading B's time. So A's head's prefix up to A
 *     is below the cut, and A is handed out in round R or before.
 *  3. In the merge, while B waits at the front of its head, A's head's
 *     front is A or a record before it, with a time < time(B) (2): B
 *     cannot be chosen before A.
 * (The TSC advances between two reads ordered through memory; an equal
 * time would need a round trip between CPUs within one tick.) Records
 * pushed with an earlier time (llog__push_from_at: a rate limiter's
 * decision, read with llog__clock_push too) keep 1-3: the time is read
 * ordered, after what the thread saw, and before the push. A thread's
 * records of one session are all on one head (producer.c picks it after
 * the arena exists), so the flusher meets its exit marker, which frees
 * the arena, after them in push order whatever the clock says.
 */
static struct llist_node *take_shards(int stopping)
{
	uint64_t lim = stopping ? UINT64_MAX : cut_time() - 1;
	unsigned n = heads_in_use();

	for (unsigned k = 0; k < n; k++) {
		/* Acquire exchange (llist.h), as F3 in llog__queue_take. */
		struct llist_node *chain = llist_del_all_replace(&llog__q.shard[k].head,
								 stopping ? LLOG__CLOSED : NULL);

		hold(k, llist_reverse_order(chain));
		if (k + 1 < n)
			LLOG__SCHED(TAKE_HEAD);
	}
	return merge(lim);
}

struct llist_node *llog__queue_take(int *stopping)
{
	struct llist_node *chain;

	/* F1. seq_cst store + fence: pairs with the fence in
	 * llog__wake_flusher, and with llog__queue_stop's seq_cst store of
	 * stop and exchange of pending (see there). The fence precedes the
	 * exchange of every head, so the Dekker holds for each. */
	llog__store_seq_cst(&llog__q.pending, 0);
	llog__fence_seq_cst();
	LLOG__SCHED(TAKE_F1);
	/* F2. Acquire: pairs with the store of stop in llog__queue_stop.
	 * Read BEFORE the exchange: a push that lands after a final exchange
	 * installing NULL would be lost (the broken model variant shows it). */
	*stopping = llog__load_acquire(&llog__q.stop);
	LLOG__SCHED(TAKE_F2);
	if (__builtin_expect(heads_in_use() > 1, 0)) {
		chain = take_shards(*stopping);
		LLOG__SCHED(TAKE_F3);
		return chain;
	}
	/* F3. Acquire exchange (llist.h): synchronizes with every push in
	 * the chain. */
	chain = llist_del_all_replace(&llog__q.shard[0].head, *stopping ? LLOG__CLOSED : NULL);
	LLOG__SCHED(TAKE_F3);
	return llist_reverse_order(chain);
}

void llog__queue_sleep(unsigned interval_ms)
{
	/* seq_cst: pairs with the exchange in llog__wake_flusher; a wake-up
	 * that set pending after our F1 is seen here or by the futex check. */
	if (llog__load_seq_cst(&llog__q.pending) == 0) {
		LLOG__SCHED(SLEEP);
		llog__futex_wait(&llog__q.pending, 0, interval_ms);
	}
}

struct llist_node *llog__queue_close(void)
{
	unsigned n = heads_in_use();

	for (unsigned k = 0; k < n; k++) {
		/* Acquire exchange (llist.h): synchronizes with every push in
		 * the chain, as F3 does. The sentinel itself is not a record. */
		struct llist_node *chain = llist_del_all_replace(&llog__q.shard[k].head,
								 LLOG__CLOSED);

		if (chain != LLOG__CLOSED)
			hold(k, llist_reverse_order(chain));
	}
	return merge(UINT64_MAX);
}

int llog__queue_force_shards;

/* Whether a test forced heads (llog__queue_force_shards): on x86 only,
 * where cut_time reads the clock pushes read. */
static int shards_forced(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return llog__queue_force_shards;
#else
	return 0;
#endif
}

void llog__queue_slow_set(uint32_t bit, int on)
{
	/* Relaxed: see llog__queue_slow. */
	uint32_t w = llog__load_relaxed(&llog__q.shard[0].slow);

	llog__store_relaxed(&llog__q.shard[0].slow, on ? w | bit : w & ~bit);
}

void llog__queue_open(unsigned shards)
{
	/* The merge needs one clock for every CPU (take_shards). */
	if (shards > 1 && !shards_forced()) {
		static int said; /* once per process; under ctl_lock */
		int v = llog__clock_tsc_synced();
		const char *msg =
			v == LLOG__TSC_NONE
				? "llog: queue_shards needs an invariant TSC, which this CPU does "
				  "not have (or LLOG_CLOCK=realtime); the queue has one head\n"
			: v == LLOG__TSC_NOT_AVAILABLE
				? "llog: queue_shards needs a TSC that the kernel vouches for, and "
				  "it does not list the TSC as a clocksource (it marked it unstable, "
				  "or sysfs cannot be read); the queue has one head\n"
			: v == LLOG__TSC_AVAILABLE
				? "llog: queue_shards: the kernel keeps another clocksource but lists "
				  "the TSC as usable (not marked unstable); heads kept\n"
				: NULL;

		if (msg != NULL && !said)
			(void)!write(2, msg, strlen(msg));
		said = 1;
		if (v <= LLOG__TSC_NOT_AVAILABLE)
			shards = 1;
	}
	if (shards < 1)
		shards = 1;
	/* Relaxed: statistics only. */
	llog__store_relaxed(&llog__stats.queue_heads, (uint64_t)shards);
	/* Relaxed: no flusher runs; pthread_create orders them before it. */
	llog__store_relaxed(&llog__q.stop, 0);
	llog__store_relaxed(&llog__q.pending, 0);
	/* Relaxed, written before the heads open. A push loads the mask
	 * before the head, so it may pair an open head with the old mask:
	 * that mask leads to a head still CLOSED (the push then takes the
	 * closed path) or to one this flusher takes too (every head it can
	 * name is below the larger count). The clock mode is read at the
	 * push; a LOG racing llog_shutdown and the next llog_init (ABA on
	 * an empty head) may read it old (docs/architecture/queue.md 9). */
	llog__store_relaxed(&llog__pw.head_mask,
			    (uint32_t)((shards - 1) * sizeof(struct llog__shard)));
	llog__clock_set_ordered(shards > 1);
	llog__queue_slow_set(LLOG__Q_SLOW_CLOCK, !llog__clock_push_is_tsc());
	/* Release, for completeness only: the producers read the head
	 * relaxed (their CAS validates it) and read the configuration written
	 * before this with relaxed loads, where a stale value is harmless
	 * (config.h); nothing else written before it is read through it. */
	for (unsigned k = 0; k < shards; k++)
		llog__store_release(&llog__q.shard[k].head.first, NULL);
}

void llog__queue_stop(void)
{
	/* seq_cst store, then seq_cst exchange of pending: Dekker with F1/F2
	 * (store pending = 0, fence, load stop). Either the flusher's F2
	 * sees stop = 1, or its F1 store precedes our exchange, which then
	 * reads 0 ... and the futex_wake below finds it asleep or about to
	 * fail its futex_wait check. A release store alone would let F1
	 * land after our exchange while F2 still reads 0 (a lost wake-up,
	 * recovered only by the interval timeout). Also pairs with the
	 * acquire load at F2 for what was written before. */
	llog__store_seq_cst(&llog__q.stop, 1);
	LLOG__SCHED(STOP);
	llog__xchg_seq_cst(&llog__q.pending, 1);
	llog__futex_wake(&llog__q.pending, 0);
}

struct llist_node *llog__queue_after_fork(int held_whole)
{
	struct llist_node *inherited;

	/* A fork inside a round may have caught merge() or hold() half
	 * done: the held lists are not walked then. */
	if (!held_whole)
		memset(held, 0, sizeof(held));
	/* The child is single-threaded here: relaxed stores suffice. */
	inherited = llog__queue_close();

	llog__store_relaxed(&llog__q.pending, 0);
	llog__store_relaxed(&llog__q.stop, 0);
	return inherited;
}
