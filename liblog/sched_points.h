/*
 * sched_points.h - test-only schedule points in the wake-up, blocking-
 * producer and shutdown handshakes (internal). (Not "sched.h": liblog/ is
 * on the include path, and that name would hide the system's <sched.h>.)
 *
 * DESIGN
 * LLOG__SCHED(P) marks a point between two steps of a handshake that the
 * spin model (tests/model/pipeline.pml) interleaves. In the library as
 * shipped it expands to nothing: no load, no call, no code. Only the
 * test-only static library llog_sched (tests/CMakeLists.txt), compiled
 * with -DLLOG_TEST_SCHED, turns each point into a call of the hook a test
 * installed with llog__sched_set_hook; the hook runs on the thread that
 * reached the point and may block it until another thread has reached
 * another point. That forces the one interleaving a handshake must survive
 * (tests/test_sched.c), deterministically, where a stress test would have
 * to be lucky. tests/mutants/run.sh checks that each such test fails when
 * the step it guards is broken.
 *
 * Points sit between every pair of protocol steps, so a step moved past
 * another one crosses a point. What each point separates:
 *
 *   WAKE_FENCE     llog__wake_flusher: after the push's fence, before
 *                  reading pending
 *   WAKE_ELECTED   llog__wake_flusher: this asker set pending to 1, before
 *                  its futex_wake
 *   TAKE_F1        llog__queue_take: after F1 (pending = 0, fence)
 *   TAKE_F2        llog__queue_take: after F2 (stop read)
 *   TAKE_F3        llog__queue_take: after F3 (the exchange of the head)
 *   TAKE_HEAD      take_shards (queue.c): between the exchanges of two
 *                  heads of a sharded queue
 *   SLEEP          llog__queue_sleep: F6 found pending == 0, before the
 *                  futex_wait
 *   STOP           llog__queue_stop: after stop = 1, before pending = 1
 *   SPACE_ANNOUNCE llog__arena_wait_space: waiters counted and space.seq
 *                  read, before waking the flusher
 *   SPACE_SLEEP    llog__arena_wait_space: still full, before futex_wait
 *   SPACE_WOKEN    llog__arena_wait_space: after futex_wait returned
 *   WAITERS_BUMP   llog__arena_wake_waiters: a waiter seen, before the
 *                  bump of space.seq and the wake
 *   ROUND_END      flusher_main: a non-final round is over, before F6
 *   FAST_ENTER     producer.c fast_take, fast_place_max, fast_place, and
 *                  llog/detail.h llog__fast_call (the call site's own
 *                  path): a call passed the fast path's entry checks
 *                  (busy word), before it sets in_log (the head is peeked
 *                  after the record is written); once a call (one the
 *                  site's path hands to the library's past this point
 *                  does not reach it again: LLOG__SIG_ENTERED)
 *   FAST_PUSH      producer.c fast_push, llog__fast_call: the fast path
 *                  wrote the whole record, before its push (a call that
 *                  leaves it for log_core never gets here)
 *   FAST_CLOSED    producer.c fast_fixed, fast_kv_exact, llog__fast_call:
 *                  the fast path wrote the slots and found the list
 *                  closed, before it leaves the call to log_core (which
 *                  peeks again)
 *   ARENA_LEFT     arena.c arena_thread_exit, llog__arena_release_self:
 *                  the thread left its arena (arena_leave: none and in_log
 *                  set), before its last steps read the owner words (its
 *                  drops; its positions, on a closed list)
 *
 * The hook may be called on any thread that logs, on the flusher and from
 * a signal handler (a crash drain wakes the flusher); a test's hook only
 * uses atomics and async-signal-safe calls where that matters to it.
 */
#ifndef LLOG_SCHED_POINTS_H
#define LLOG_SCHED_POINTS_H

enum llog__sched_point {
	LLOG__SP_WAKE_FENCE,
	LLOG__SP_WAKE_ELECTED,
	LLOG__SP_TAKE_F1,
	LLOG__SP_TAKE_F2,
	LLOG__SP_TAKE_F3,
	LLOG__SP_TAKE_HEAD,
	LLOG__SP_SLEEP,
	LLOG__SP_STOP,
	LLOG__SP_SPACE_ANNOUNCE,
	LLOG__SP_SPACE_SLEEP,
	LLOG__SP_SPACE_WOKEN,
	LLOG__SP_WAITERS_BUMP,
	LLOG__SP_ROUND_END,
	LLOG__SP_FAST_ENTER,
	LLOG__SP_FAST_PUSH,
	LLOG__SP_FAST_CLOSED,
	LLOG__SP_ARENA_LEFT,
	LLOG__SP_COUNT
};

#ifdef LLOG_TEST_SCHED

#include <stddef.h>

#include "atomic.h"
#include "compiler.h"

typedef void llog__sched_fn(enum llog__sched_point p);

/* The installed hook, or NULL (defined in queue.c, test builds only). */
extern _Atomic(llog__sched_fn *) llog__sched_hook LLOG__HIDDEN;

/* Installs fn (NULL: none). The caller makes sure no thread is inside the
 * old hook when it frees what that hook uses. */
static inline void llog__sched_set_hook(llog__sched_fn *fn)
{
	/* Release: pairs with the acquire load in llog__sched_at, so the
	 * hook sees the test's state written before it was installed. */
	llog__store_release(&llog__sched_hook, fn);
}

static inline void llog__sched_at(enum llog__sched_point p)
{
	/* Acquire: pairs with llog__sched_set_hook. */
	llog__sched_fn *fn = llog__load_acquire(&llog__sched_hook);

	if (fn != NULL)
		fn(p);
}

#define LLOG__SCHED(point) llog__sched_at(LLOG__SP_##point)

/* The points the call sites' own fast path reached (llog/detail.h:
 * FAST_ENTER, FAST_PUSH, FAST_CLOSED there, through llog__sched_fast_at,
 * queue.c), counted apart from the library's. */
extern _Atomic unsigned long llog__sched_site_points LLOG__HIDDEN;

#else

#define LLOG__SCHED(point) ((void)0)

#endif /* LLOG_TEST_SCHED */

#endif /* LLOG_SCHED_POINTS_H */
