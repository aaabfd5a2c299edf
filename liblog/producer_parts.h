/*
 * producer_parts.h - what the producer's files share (internal; not for
 * the rest of llog): the arena helpers of a LOG's reserve and push, and the
 * cold paths the hot one calls.
 *
 * DESIGN
 * The producer is three files, each calling only the ones below it:
 *   producer.c         the hot path: llog__log and its kin (log_core),
 *                      capture, llog_set_levels's record
 *   producer_thread.c  a thread's own records: its name (NAME), its
 *                      context (CTX), llog_thread_prepare
 *   producer_cold.c    a LOG's cold paths: the full ring under the overflow
 *                      policy (reserve_full), a closed list, a record that
 *                      cannot be logged, the list closed after capture,
 *                      LOG_FATAL's tail
 * The helpers below are static inline (reserve always inline), so the hot
 * path is compiled as it was in one file; the calls it makes into the
 * other two files were out-of-line cold calls in one file too (noinline,
 * cold), and are declared cold here so that the branches to them stay
 * laid out as unlikely.
 */
#ifndef LLOG_PRODUCER_PARTS_H
#define LLOG_PRODUCER_PARTS_H

#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "arena.h"
#include "fmt.h"
#include "kv.h"
#include "queue.h"
#include "site.h"

/* Orders this thread's arena accesses against its own signal handlers
 * (a compiler barrier only: no instruction). */
static inline void llog__producer_signal_fence(void)
{
	atomic_signal_fence(memory_order_seq_cst);
}

static inline uint32_t llog__producer_align8(size_t n)
{
	return ((uint32_t)n + 7u) & ~7u;
}

/*
 * The thread's count of records dropped since its last pushed record,
 * which that record's drop notice reports. Changed only by read-modify-
 * writes of one instruction (a lock-prefixed add on x86; an LL/SC loop
 * that a signal restarts elsewhere), because a signal handler of this
 * thread adds to it (dropped re-entry) at any point of a LOG it
 * interrupted, including between that LOG's read of the count and its
 * subtraction after the push. Relaxed: only this thread and its own
 * handlers touch it; the record carries its copy to the flusher.
 */
static inline _Atomic uint32_t *llog__producer_pending_drops(void)
{
	return &llog__owner()->dropped_pending;
}

/* ---- producer_cold.c: a LOG's cold paths ---- */

/* reserve() when the ring is full now: waits under BLOCK, gives up (NULL)
 * under DROP. */
struct llog__rec *llog__producer_reserve_full(struct llog__arena *a, uint32_t bytes)
	__attribute__((cold));

/* Reserves `bytes` under the overflow policy; NULL when dropped. */
static inline __attribute__((always_inline)) struct llog__rec *
llog__producer_reserve(struct llog__arena *a, uint32_t bytes)
{
	struct llog__rec *r = llog__arena_reserve(a, bytes);

	return __builtin_expect(r != NULL, 1) ? r : llog__producer_reserve_full(a, bytes);
}

/* LOG_FATAL, after its record was pushed, written or dropped: commits
 * everything pushed so far, then abort(). a (when not NULL) is left
 * outside its LOG call first. */
void llog__producer_fatal_abort(struct llog__arena *a) __attribute__((noreturn, cold));

/* The list is closed (no flusher): a fork child's restart, else the
 * synchronous write. Returns the head to push on, or LLOG__CLOSED when the
 * call is done. closed_list_bt: the same for a record kept only for the
 * backtrace (never written synchronously). */
struct llist_node *llog__producer_closed_list(struct llog_site *site,
					      const struct llog__plan *plan, va_list ap,
					      const struct llog__kv_site *ks,
					      const union llog__kv_val *kv, struct llist_head **hp)
	__attribute__((cold));
struct llist_node *llog__producer_closed_list_bt(struct llist_head **hp) __attribute__((cold));

/* No arena, re-entry from a signal handler, a LOG from a sink callback on
 * the flusher: dropped and counted (FATAL: aborts). */
void llog__producer_not_logged(const struct llog_site *site, struct llog__arena *a)
	__attribute__((cold));

/* The list closed while r was captured: r written synchronously, its
 * bytes given back (old_reserve). */
void llog__producer_closed_after_capture(struct llog__rec *r, uint32_t old_reserve) __attribute__((cold));

/* ---- producer_thread.c: a thread's own records ---- */

/* A CTX record dropped under DROP, sent again before this record (the
 * caller holds in_log). Returns 0, or -1 when it still cannot be pushed:
 * then the record is dropped too (never written with a stale context). */
int llog__producer_ctx_resend(struct llog__arena *a) __attribute__((cold));

#endif /* LLOG_PRODUCER_PARTS_H */
