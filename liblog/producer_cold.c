/*
 * producer_cold.c - a LOG's cold paths, each in one function out of the
 * hot path's line (producer.c; producer_parts.h): the full ring under the
 * overflow policy, a closed list (no flusher: the record is written
 * synchronously, sync.h; in a fork child the first use restarts llog,
 * control.h; from a sink callback on the flusher: dropped), a record that
 * cannot be logged (no arena, re-entry from a signal handler, a LOG from a
 * sink callback: counted; a re-entry also shown as a notice before the
 * thread's next record), the list closed after capture, and LOG_FATAL's
 * tail (flush, then abort), written once.
 *
 * Calls nothing of producer.c or producer_thread.c.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdlib.h>

#include "arena.h"
#include "atomic.h"
#include "backtrace.h"
#include "config.h"
#include "control.h"
#include "crash.h"
#include "levels.h"
#include "producer_parts.h"
#include "queue.h"
#include "site.h"
#include "stats.h"
#include "sync.h"

/*
 * LOG_FATAL, after its record was pushed, written or dropped: everything
 * pushed so far (that record included) is committed, then abort(). The
 * crash handler sees llog__fatal_aborting and only chains. a (when not
 * NULL) is left outside its LOG call first.
 */
void __attribute__((noreturn, noinline, cold)) llog__producer_fatal_abort(struct llog__arena *a)
{
	if (a != NULL) {
		llog__producer_signal_fence();
		llog__owner()->in_log = 0;
	}
	llog_flush();
	llog__fatal_aborting = 1;
	abort();
}

/* llog__producer_reserve's slow half, when the ring is full now: waits
 * under BLOCK, gives up (NULL) under DROP. */
struct llog__rec *__attribute__((noinline, cold))
llog__producer_reserve_full(struct llog__arena *a, uint32_t bytes)
{
	struct llog__rec *r = NULL;

	while (r == NULL) {
		/* Relaxed: see config.h. */
		if (llog__load_relaxed(&llog__cfg.overflow) == LLOG_OVERFLOW_DROP) {
			llog__wake_flusher();
			return NULL;
		}
		llog__arena_wait_space(a, bytes * 2);
		r = llog__arena_reserve(a, bytes);
	}
	return r;
}

/* The calling thread's arena as the synchronous path shows it (sync.h):
 * NULL on llog's own threads. */
static const struct llog__arena *sync_self(void)
{
	return llog__arena_thread_is_internal() ? NULL : llog__arena_mine();
}

/* The owner's context for the synchronous line (on the owner: not the
 * flusher's copy), or NULL: no arena, or a signal handler that
 * interrupted a change of it (ctx.c: ctx_busy; the handler runs on this
 * thread, a compiler fence there orders the flag around the rewrite). */
static const void *sync_ctx(const struct llog__arena *self)
{
	if (self == NULL || llog__owner()->ctx_busy)
		return NULL;
	return self->ctx;
}

/*
 * The list is closed (no flusher). In a fork child the first use starts
 * the inherited flusher; a thread that saw another one start it finds the
 * list open on the reload. Returns the head to push on, or LLOG__CLOSED
 * when the call is done: written synchronously, or dropped and counted
 * (a sink callback on the flusher).
 */
struct llist_node *__attribute__((noinline, cold))
llog__producer_closed_list(struct llog_site *site, const struct llog__plan *plan, va_list ap,
			   const struct llog__kv_site *ks, const union llog__kv_val *kv,
			   struct llist_head **hp)
{
	const struct llog__arena *self;
	struct llist_node *first;

	if (llog__arena_thread_is_internal()) {
		/* A sink callback in the final round (the list is closed
		 * already): dropped and counted, as in every other round. */
		llog__count_dropped();
		return LLOG__CLOSED;
	}
	llog__control_resume_after_fork();
	*hp = llog__queue_mine(); /* the restarted flusher's heads */
	first = llog__queue_peek(*hp);
	if (first != LLOG__CLOSED)
		return first;
	/* Records of ours still in a shutdown's final round: let it write
	 * them first, so this thread's order is kept on a shared stream. */
	if (llog__arena_in_flight(llog__arena_mine()))
		llog__control_wait_shutdown();
	self = sync_self();
	llog__sync_va(site, plan, ap, ks, kv, self, sync_ctx(self));
	return LLOG__CLOSED;
}

/* llog__producer_closed_list for a record kept only for the backtrace: in a fork child
 * the first use restarts llog as for any record; otherwise (no flusher)
 * the record is captured and discarded, never written synchronously.
 * Returns the head to push on, or LLOG__CLOSED when the call is done. */
struct llist_node *__attribute__((noinline, cold))
llog__producer_closed_list_bt(struct llist_head **hp)
{
	struct llist_node *first = LLOG__CLOSED;

	if (!llog__arena_thread_is_internal()) {
		llog__control_resume_after_fork();
		*hp = llog__queue_mine();
		first = llog__queue_peek(*hp);
	}
	if (first == LLOG__CLOSED)
		llog__backtrace_count_lost();
	return first;
}

/* No arena (no memory, or a signal handler inside the making or the
 * leaving of this thread's arena), re-entry from a signal handler that
 * interrupted a LOG of this thread, or a LOG from a sink callback on the
 * flusher (whose in_log is always set): dropped and counted. A re-entry
 * also feeds the thread's drop notice (before its next record, or at its
 * exit); the flusher's and the sink threads' marker arena does not: they
 * never push records. */
void __attribute__((noinline, cold))
llog__producer_not_logged(const struct llog_site *site, struct llog__arena *a)
{
	llog__count_dropped();
	if (a != NULL && !llog__arena_thread_is_internal())
		(void)llog__fetch_add_relaxed(llog__producer_pending_drops(), 1u);
	if (llog__site_level(site) >= LLOG_FATAL)
		llog__producer_fatal_abort(NULL);
}

/* Step 5 (producer.c) failed: the list closed while we captured. Rendered here (after
 * the final round wrote our earlier records); the bytes go back. */
void __attribute__((noinline, cold))
llog__producer_closed_after_capture(struct llog__rec *r, uint32_t old_reserve)
{
	const struct llog__arena *self;

	llog__control_wait_shutdown();
	self = sync_self();
	llog__sync_record(r, self, sync_ctx(self));
	llog__arena_unreserve(old_reserve);
}
