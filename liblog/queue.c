/*
 * queue.c - the record queue's wake-up, take and stop handshakes. See
 * queue.h; tests/model/pipeline.pml models every function here. The
 * LLOG__SCHED points between the steps are empty outside the test-only
 * llog_sched build (sched_points.h).
 */
#define _GNU_SOURCE
#include <limits.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "queue.h"
#include "sched_points.h"

struct llist_node llog__closed_node;

struct llog__queue llog__q = {
	.head = {&llog__closed_node},
};

#ifdef LLOG_TEST_SCHED
_Atomic(llog__sched_fn *) llog__sched_hook;
#endif

void llog__futex_wait(_Atomic uint32_t *addr, uint32_t val, unsigned timeout_ms)
{
	struct timespec ts = {(time_t)(timeout_ms / 1000), (long)(timeout_ms % 1000) * 1000000L};

	/* Returns at once (EAGAIN) when *addr != val. */
	syscall(SYS_futex, (uint32_t *)addr, FUTEX_WAIT_PRIVATE, val,
		timeout_ms ? &ts : NULL, NULL, 0);
}

void llog__futex_wake(_Atomic uint32_t *addr, int all)
{
	syscall(SYS_futex, (uint32_t *)addr, FUTEX_WAKE_PRIVATE, all ? INT_MAX : 1, NULL, NULL, 0);
}

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

struct llist_node *llog__queue_take(int *stopping)
{
	struct llist_node *chain;

	/* F1. seq_cst store + fence: pairs with the fence in
	 * llog__wake_flusher, and with llog__queue_stop's seq_cst store of
	 * stop and exchange of pending (see there). */
	llog__store_seq_cst(&llog__q.pending, 0);
	llog__fence_seq_cst();
	LLOG__SCHED(TAKE_F1);
	/* F2. Acquire: pairs with the store of stop in llog__queue_stop.
	 * Read BEFORE the exchange: a push that lands after a final exchange
	 * installing NULL would be lost (the broken model variant shows it). */
	*stopping = llog__load_acquire(&llog__q.stop);
	LLOG__SCHED(TAKE_F2);
	/* F3. Acquire exchange (llist.h): synchronizes with every push in
	 * the chain. */
	chain = llist_del_all_replace(&llog__q.head, *stopping ? LLOG__CLOSED : NULL);
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
	/* Acquire exchange (llist.h): synchronizes with every push in the
	 * chain, as F3 does. The sentinel itself is not a record. */
	struct llist_node *chain = llist_del_all_replace(&llog__q.head, LLOG__CLOSED);

	return chain == LLOG__CLOSED ? NULL : llist_reverse_order(chain);
}

void llog__queue_open(void)
{
	/* Relaxed: no flusher runs; pthread_create orders them before it. */
	llog__store_relaxed(&llog__q.stop, 0);
	llog__store_relaxed(&llog__q.pending, 0);
	/* Release, for completeness only: the producers read the head
	 * relaxed (their CAS validates it) and read the configuration written
	 * before this with relaxed loads, where a stale value is harmless
	 * (config.h); nothing else written before it is read through it. */
	llog__store_release(&llog__q.head.first, NULL);
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

struct llist_node *llog__queue_after_fork(void)
{
	/* The child is single-threaded here: relaxed stores suffice. */
	struct llist_node *inherited = llog__queue_close();

	llog__store_relaxed(&llog__q.pending, 0);
	llog__store_relaxed(&llog__q.stop, 0);
	return inherited;
}
