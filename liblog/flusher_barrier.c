/*
 * flusher_barrier.c - flush barriers: llog_flush's wait
 * (llog__flusher_barrier_run), and on the flusher the barriers of a round
 * signalled after its commit, at once or, with sinks on threads of their
 * own (sinkq.h), once every queue committed what the round put in it or
 * its drain timeout passed. See flusher.h for the design.
 *
 * Called by the rounds (flusher.c), the crash drain (flusher_drain.c) and
 * llog_flush (control.c); calls nothing of them.
 */
#include <stdint.h>
#include <string.h>

#include "atomic.h"
#include "clock.h"
#include "flusher.h"
#include "flusher_state.h"
#include "queue.h"
#include "sinkq.h"

int llog__flusher_barrier_run(struct llog__barrier *b, struct llog__rec *rec, int timeout_ms)
{
	int64_t deadline = llog__mono_ms() + (timeout_ms < 0 ? 0 : timeout_ms);

	b->rec.kind = LLOG__K_BARRIER;
	/* Relaxed: published by the release CAS of the push below. */
	llog__store_relaxed(&b->done, 0);
	if (rec != NULL && llog__push(rec) != 0)
		return -1;
	if (llog__push(&b->rec) != 0)
		return -1;
	llog__wake_flusher();
	/* Acquire: pairs with the release store in llog__flusher_signal_barriers. */
	while (llog__load_acquire(&b->done) == 0) {
		int64_t left;

		if (timeout_ms < 0) {
			llog__futex_wait(&b->done, 0, 0);
			continue;
		}
		left = deadline - llog__mono_ms();
		if (left <= 0)
			return 0;
		llog__futex_wait(&b->done, 0, left < 10 ? (unsigned)left : 10);
	}
	return 1;
}

/* Adds a round's barriers, with what they wait for in each queue, to those
 * waiting for the queues. */
void llog__flusher_wait_barriers(struct llog__flusher *f, struct llist_node *b)
{
	struct llog__flusher_wait_group *g;
	struct llist_node *last = b;

	while (last->next != NULL)
		last = last->next;
	if (f->nwait == LLOG__WAIT_GROUPS) {
		/* Joins the newest group: waits for the later epochs too. */
		g = &f->wait[LLOG__WAIT_GROUPS - 1];
		for (int i = 0; i < LLOG__MAX_SINKS; i++)
			if (f->round_need[i] > g->need[i])
				g->need[i] = f->round_need[i];
	} else {
		g = &f->wait[f->nwait++];
		g->barriers = NULL;
		g->t0 = llog__mono_ms();
		memcpy(g->need, f->round_need, sizeof(g->need));
	}
	last->next = g->barriers;
	g->barriers = b;
}

/*
 * Signals each waiting group's barriers once every queue committed what it
 * needs or that queue's timeout since the group's round passed (counted
 * late once per group and queue). With final, waits for that here. Asks
 * each queue's worker to wake the flusher at the oldest epoch still
 * waited for (0: none). Returns the milliseconds until the nearest timeout
 * while some still wait (0 when none wait).
 */
unsigned llog__flusher_release_waiting(struct llog__flusher *f, int final)
{
	int64_t now = llog__mono_ms(), next = -1;
	unsigned kept = 0;

	for (int i = 0; i < f->sinks.n; i++) {
		struct llog__sinkq *q = llog__flusher_queue_of(f, i);
		uint64_t want = 0;

		for (unsigned gi = 0; gi < f->nwait; gi++) {
			struct llog__flusher_wait_group *g = &f->wait[gi];
			int64_t deadline;

			if (g->need[i] == 0)
				continue;
			if (q == NULL) { /* no thread (any more): nothing to wait for */
				g->need[i] = 0;
				continue;
			}
			deadline = g->t0 + llog__sinkq_timeout_ms(q);
			if (final)
				(void)llog__sinkq_drain(q, deadline);
			/* Until one stays pending: want, then reached, the
			 * flusher's half of the want/done Dekker (reached()
			 * in sinkq_worker.c): the oldest epoch still waited
			 * for is either seen committed here or wakes the
			 * flusher. */
			if (want == 0)
				llog__sinkq_want(q, g->need[i]);
			if (llog__sinkq_reached(q, g->need[i])) {
				g->need[i] = 0;
			} else if (now >= deadline || final) {
				llog__sinkq_count_late(q);
				g->need[i] = 0;
			} else {
				if (want == 0)
					want = g->need[i];
				if (next < 0 || deadline < next)
					next = deadline;
			}
		}
		if (q != NULL && want == 0)
			llog__sinkq_want(q, 0); /* no barrier waits: no wake-ups */
	}
	for (unsigned gi = 0; gi < f->nwait; gi++) {
		struct llog__flusher_wait_group *g = &f->wait[gi];
		int pending = 0;

		for (int i = 0; i < f->sinks.n; i++)
			pending |= g->need[i] != 0;
		if (pending)
			f->wait[kept++] = *g;
		else
			llog__flusher_signal_barriers(g->barriers);
	}
	f->nwait = kept;
	if (next >= 0)
		return next - now > 0 ? (unsigned)(next - now) : 1;
	return 0;
}

void llog__flusher_signal_barriers(struct llist_node *b)
{
	while (b != NULL) {
		struct llist_node *next = b->next;
		struct llog__barrier *bar =
			(struct llog__barrier *)(void *)llist_entry(b, struct llog__rec, node);

		/* Release: pairs with the acquire load in
		 * llog__flusher_barrier_run; after this store the barrier (on
		 * the caller's stack) may vanish, so only its address is used
		 * below (a futex wake on a stale address is harmless: waiters
		 * re-check their word). */
		llog__store_release(&bar->done, 1);
		llog__futex_wake(&bar->done, 1);
		b = next;
	}
}
