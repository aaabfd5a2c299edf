/*
 * flusher.c - the flusher thread's rounds and sink table, flush barriers,
 * and the crash drain on the flusher thread. See flusher.h for the design.
 *
 * Calls into crash.c and is called from it, by design (flusher.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "altstack.h"
#include "arena.h"
#include "capture.h"
#include "backtrace.h"
#include "clock.h"
#include "config.h"
#include "crash.h"
#include "flusher.h"
#include "levels.h"
#include "reload.h"
#include "ratelimit.h"
#include "kv.h"
#include "render.h"
#include "sched_points.h"
#include "sink.h"
#include "sinkq.h"
#include "stats.h"

/* Rounds whose barriers may wait for the sinks' own threads at once; a
 * round beyond that joins the newest group (and its deadline). */
#define WAIT_GROUPS 8

struct llog__flusher {
	struct llog__sinktab sinks;
	pthread_t thread;
	_Atomic uint32_t started; /* futex word: the thread runs flusher_main */
	uint64_t seq;
	int64_t last_ts;
	struct llog__clock_conv clock;
	char *msgbuf;
	size_t msgcap;
	struct llog__plan tmp_plan;
	struct llog__fmt_cache *fmt_cache; /* write_record's (NULL: none) */
	/*
	 * Where the round stands, for llog__flusher_crash_drain_self when the
	 * flusher itself crashes. Written by the flusher only and read only by the
	 * crash handler interrupting it on this same thread, so no atomics:
	 * volatile keeps every store in program order with the sink calls
	 * and the rendering around it (what a signal fence would give).
	 *   crash_rest       records of this chain not yet handed to any sink
	 *   crash_rendering  the first of them is being rendered
	 *   crash_entry      the entry being handed to the sinks (or NULL)
	 *   crash_sink       index of the sink whose callback runs, or -1
	 */
	struct llist_node *volatile crash_rest;
	volatile int crash_rendering;
	const struct llog_entry *volatile crash_entry;
	volatile int crash_sink;
	char *crash_msg;   /* the drain's render buffer, msgcap bytes */
	/* The fields of the entry being handed out (kv.h): the rounds', and
	 * the crash drain's (which may interrupt a round's). */
	struct llog_field fields[LLOG_FIELDS_MAX];
	struct llog_field crash_fields[LLOG_FIELDS_MAX];
	char *altstack;    /* the flusher's alternate signal stack */
	/*
	 * Sinks on threads of their own (sinkq.h): rounds are numbered
	 * (epoch); the barriers of a round whose flusher sinks committed wait
	 * in a group of wait[] (oldest first) until each queue committed
	 * need[i] (the last epoch put in it by that round) or that queue's
	 * drain timeout passed since the group's round (t0). round_need is
	 * what sinks_commit put in each queue this round. `final` is set for
	 * the final round.
	 */
	uint64_t epoch;
	struct wait_group {
		struct llist_node *barriers;
		int64_t t0;
		uint64_t need[LLOG__MAX_SINKS];
	} wait[WAIT_GROUPS];
	unsigned nwait;
	uint64_t round_need[LLOG__MAX_SINKS];
	int final;
	unsigned sleep_ms; /* 0, or how soon a waiting barrier times out */
	uint64_t round_bytes; /* record bytes the last round took */
	int64_t round_ms;     /* when the last round started */
	int64_t round_ms_prev; /* when the one before it started */
	struct llog__backtrace_ring *bt; /* the backtrace's ring, or NULL (off) */
};

/* The running flusher, for the crash handler on its thread (set and
 * cleared by that thread itself: the handler reads its own thread's
 * store). */
static struct llog__flusher *crash_flusher;

/* Serialises rounds with fork(): the flusher holds it for each round,
 * llog__flusher_fork_prepare takes it, so a child's copy of the sinks is
 * never caught in the middle of a write or commit. */
static pthread_mutex_t round_lock = PTHREAD_MUTEX_INITIALIZER;

/* ---- the sink table ------------------------------------------------------ */

int llog__flusher_sinktab_add(struct llog__sinktab *t, struct llog_sink *s, struct llog__sinkq *q)
{
	if (t->n >= LLOG__MAX_SINKS)
		return -ENOSPC;
	t->q[t->n] = q;
	t->s[t->n++] = s;
	return 0;
}

/* Closes one sink (its thread first: drained within its timeout, then
 * stopped; a thread stuck inside the sink leaves it unclosed). */
static void close_one(struct llog_sink *s, struct llog__sinkq *q)
{
	if (q != NULL) {
		if (llog__sinkq_running(q))
			(void)llog__sinkq_drain(q, llog__mono_ms() + llog__sinkq_timeout_ms(q));
		if (!llog__sinkq_stop(q))
			return; /* leaked, with its queue: still in use */
		llog__sinkq_free(q);
	}
	s->ops->close(s);
}

void llog__flusher_sinktab_close(struct llog__sinktab *t)
{
	for (int i = 0; i < t->n; i++)
		close_one(t->s[i], t->q[i]);
	t->n = 0;
}

int llog__flusher_sinktab_start(struct llog__sinktab *t)
{
	sigset_t blocked;

	/* The sinks' threads block what the flusher blocks (flusher_main):
	 * every signal but the crash handler's. */
	sigfillset(&blocked);
	llog__crash_block_mask(&blocked);
	for (int i = 0; i < t->n; i++) {
		int rc;

		if (t->q[i] == NULL)
			continue;
		rc = llog__sinkq_start(t->q[i], &blocked);
		if (rc != 0) {
			/* Without its thread the sink runs on the flusher
			 * (queue_of); the queue stays (llog_get_sink_stats may
			 * read it) and the next start tries again. */
			llog__diag("no thread for a sink (%s); it runs on the flusher",
				   strerror(-rc));
		}
	}
	return 0;
}

/* Where install_sink runs: a round (F4), the crash drain on the flusher,
 * a fork child's after_fork. */
enum install_where { IN_ROUND, IN_CRASH, IN_FORK };

/*
 * A sink change reached the flusher (F4, the crash drain, a fork child).
 * The control lock keeps the count within the bound; a sink that still
 * finds the table full is closed, or only forgotten where closing is not
 * safe (the crash drain, a fork child).
 *
 * The first sink installed replaces the stderr fallback (sinks.fallback)
 * in the same step: records before the SINK record in the chain went to
 * the fallback, which close() writes out now, those after it go to the new
 * sink only; none to both, none to neither. In a fork child the fallback
 * holds only the parent's records: after_fork drops them, then it closes.
 * In the crash drain nothing is closed (it would free and write outside the
 * crash entry points): the fallback stays, and the records after the SINK
 * record reach both.
 */
static void install_sink(struct llog__flusher *f, struct llog__sink_rec *sr, enum install_where where)
{
	struct llog__sinktab *t = &f->sinks;

	if (t->fallback && where != IN_CRASH) {
		struct llog_sink *fb = t->s[0];

		if (where == IN_FORK && fb->ops->after_fork != NULL)
			fb->ops->after_fork(fb);
		close_one(fb, t->q[0]);
		t->s[0] = sr->sink;
		t->q[0] = sr->q;
		t->fallback = 0;
	} else if (llog__flusher_sinktab_add(t, sr->sink, sr->q) != 0) {
		if (where == IN_ROUND)
			close_one(sr->sink, sr->q);
		return;
	}
	/* Not in a fork child or the crash drain: nothing starts threads
	 * there; the child's flusher start does. */
	if (where == IN_ROUND && sr->q != NULL)
		(void)llog__flusher_sinktab_start(t);
}

/* ---- one round ------------------------------------------------------------ */

/* The queue of sink i when its thread runs (else the flusher calls it). */
static struct llog__sinkq *queue_of(const struct llog__flusher *f, int i)
{
	struct llog__sinkq *q = f->sinks.q[i];

	return q != NULL && llog__sinkq_running(q) ? q : NULL;
}

static void sink_write(struct llog__flusher *f, const struct llog_entry *e)
{
	f->crash_entry = e;
	for (int i = 0; i < f->sinks.n; i++) {
		struct llog_sink *s = f->sinks.s[i];
		struct llog__sinkq *q = queue_of(f, i);

		if (e->level < s->level)
			continue;
		f->crash_sink = i;
		if (q != NULL)
			(void)llog__sinkq_put(q, e, f->final);
		else if (s->ops->write(s, e) < 0)
			llog__count(write_errors, 1);
	}
	f->crash_entry = NULL;
	f->crash_sink = -1;
}

/* F4, end: the notices of queues whose drops are still unannounced. */
static uint64_t queue_notices(struct llog__flusher *f)
{
	uint64_t n = 0;

	for (int i = 0; i < f->sinks.n; i++) {
		struct llog__sinkq *q = queue_of(f, i);

		if (q != NULL)
			n += (uint64_t)llog__sinkq_retry_notice(q);
	}
	return n;
}

/* F5: commits the flusher's sinks and ends the round in every queue;
 * with barriers, notes what they must wait for in each queue. */
static void sinks_commit(struct llog__flusher *f, int barriers)
{
	f->epoch++;
	for (int i = 0; i < f->sinks.n; i++) {
		struct llog__sinkq *q = queue_of(f, i);

		f->crash_sink = i;
		f->round_need[i] = 0;
		if (q != NULL) {
			uint64_t put = llog__sinkq_commit(q, f->epoch);

			if (barriers)
				f->round_need[i] = put;
		} else {
			llog__count_commit(f->sinks.s[i]->ops->commit(f->sinks.s[i]));
		}
	}
	f->crash_sink = -1;
}

static int64_t out_ts(struct llog__flusher *f, uint64_t raw)
{
	int64_t ts = llog__clock_conv_ns(&f->clock, raw);

	if (ts < f->last_ts)
		ts = f->last_ts; /* never backwards (see flusher.h) */
	f->last_ts = ts;
	return ts;
}

/* r's drop notice as an entry of the output sequence. */
static void notice_entry(struct llog__flusher *f, const struct llog__rec *r, uint32_t dropped,
			 char *note, struct llog_entry *e)
{
	llog__render_notice(r->arena->tid, dropped, note, e);
	e->thread_name = r->arena->fl_name; /* the flusher's copy (arena.h) */
	e->thread_name_len = strlen(e->thread_name);
	e->seq = ++f->seq;
	e->ts_ns = out_ts(f, r->ts);
}

/* r rendered as an entry of the output sequence, in buf (msgcap bytes). */
static void record_entry(struct llog__flusher *f, const struct llog__rec *r, char *buf,
			 struct llog__plan *tmp, struct llog__fmt_cache *cache,
			 struct llog_entry *e)
{
	llog__render_record_cached(r, buf, f->msgcap, tmp, cache, e);
	/* The thread's context as of this record (the CTX records before it
	 * in its stream are applied) and the call's fields. */
	llog__fields_entry(r->arena->fl_ctx, llog__rec_fields(r),
			   buf == f->crash_msg ? f->crash_fields : f->fields, e);
	e->seq = ++f->seq;
	e->ts_ns = out_ts(f, r->ts);
}

/* Writes r's drop notice. r->dropped is cleared first: a crash drain that
 * interrupts this must not write the notice a second time. */
static void drop_notice(struct llog__flusher *f, struct llog__rec *r)
{
	struct llog_entry e;
	char note[LLOG__NOTICE_BYTES];
	uint32_t dropped = r->dropped;

	r->dropped = 0;
	notice_entry(f, r, dropped, note, &e);
	sink_write(f, &e);
}

/* Whether some sink that gets r needs its message rendered: all but the
 * flusher's own sinks that store the capture (LLOG__SINK_F_RAW, capture.h). */
static int needs_text(const struct llog__flusher *f, const struct llog__rec *r)
{
	if (r->kind != LLOG__K_LOG)
		return 1;
	for (int i = 0; i < f->sinks.n; i++) {
		const struct llog_sink *s = f->sinks.s[i];

		if (llog__site_level(r->site) >= (int)s->level &&
		    (queue_of(f, i) != NULL || s->ops->version < 3 ||
		     !(s->ops->flags & LLOG__SINK_F_RAW)))
			return 1;
	}
	return 0;
}

/* A backtrace entry leaving the ring: next in the output sequence, with
 * its own time (not clamped by out_ts); a rate-limited site's count is
 * reported now (keep_entry). */
static void bt_entry_out(struct llog__flusher *f, struct llog_entry *e)
{
	e->seq = ++f->seq;
	if (__builtin_expect(e->suppressed != 0, 0))
		llog__count(suppressed, e->suppressed);
}

static void bt_out(void *ctx, struct llog_entry *e)
{
	struct llog__flusher *f = ctx;

	bt_entry_out(f, e);
	sink_write(f, e);
}

/* Copies e, rendered from r, into the ring. llog_stats.suppressed counts
 * what the sinks were handed: the renderer's addition of a kept record's
 * count waits for bt_entry_out. */
static void keep_entry(struct llog__flusher *f, const struct llog__rec *r, struct llog_entry *e)
{
	e->ts_ns = llog__clock_conv_ns(&f->clock, r->ts);
	if (__builtin_expect(e->suppressed != 0, 0))
		llog__count(suppressed, (uint64_t)0 - e->suppressed);
	llog__backtrace_keep(f->bt, e);
}

/* A record flagged for the backtrace: rendered and copied into the ring
 * (then its arena bytes can go). A crash from here on loses it. */
static void keep_record(struct llog__flusher *f, struct llog__rec *r, struct llist_node *next)
{
	struct llog_entry e;

	f->crash_rendering = 1;
	llog__render_record(r, f->msgbuf, f->msgcap, &f->tmp_plan, &e);
	llog__capture_clear(); /* the ring keeps text, not this capture */
	f->crash_rendering = 0;
	f->crash_rest = next;
	keep_entry(f, r, &e);
}

/* Hands r to the sinks; `next` is the record after it in the chain. A
 * record at the trigger level has the backtrace written first. */
static void write_record(struct llog__flusher *f, struct llog__rec *r, struct llist_node *next)
{
	struct llog_entry e;

	if (__builtin_expect(llog__backtrace_triggers(f->bt, llog__site_level(r->site)), 0))
		llog__backtrace_emit(f->bt, bt_out, f);
	f->crash_rendering = 1;
	if (needs_text(f, r)) {
		record_entry(f, r, f->msgbuf, &f->tmp_plan, f->fmt_cache, &e);
	} else {
		llog__render_capture(r, f->msgcap, &f->tmp_plan, &e);
		llog__fields_entry(r->arena->fl_ctx, llog__rec_fields(r), f->fields, &e);
		e.seq = ++f->seq;
		e.ts_ns = out_ts(f, r->ts);
	}
	f->crash_rendering = 0;
	f->crash_rest = next;
	sink_write(f, &e);
	llog__capture_clear(); /* e goes out of scope */
}

/* What a round leaves for after its commit. */
struct round {
	uint64_t nrec;
	uint64_t bytes;                         /* of the records taken */
	uint64_t notices;                       /* drop notices written */
	struct llist_node *barriers;            /* signalled after the commit */
	struct llist_node *deferred, **dtail;   /* releases held until then */
};

/* Gives a record's bytes back to its arena, or frees an exited arena. */
static void release_record(struct llog__rec *r)
{
	if (r->kind != LLOG__K_EXIT) {
		llog__arena_release(r);
		return;
	}
	/* Every earlier record of this arena is released. While a crash is
	 * being reported the arena is left (the process is dying; free() is
	 * what the crash path must never call: the crash may have happened
	 * inside the allocator). */
	if (!llog__crash_in_progress())
		llog__arena_free(r->arena);
}

/* In the final round (hold) releases wait for the commit (flusher.h). */
static void release_or_defer(struct round *rd, struct llog__rec *r, int hold)
{
	if (!hold) {
		release_record(r);
		return;
	}
	r->node.next = NULL;
	*rd->dtail = &r->node;
	rd->dtail = &r->node.next;
}

/* F4 for one record of a thread (LOG, TEXT, EXIT or NAME). */
static void process_owned(struct llog__flusher *f, struct llog__rec *r, struct llist_node *next,
			  int hold, struct round *rd)
{
	if (r->dropped != 0) {
		drop_notice(f, r);
		rd->notices++;
	}
	if (r->kind == LLOG__K_EXIT) {
		f->crash_rest = next; /* the arena may be freed below */
	} else if (r->kind == LLOG__K_NAME) {
		llog__arena_apply_name(r); /* the records after it: new name */
		f->crash_rest = next;
	} else if (r->kind == LLOG__K_CTX) {
		llog__arena_apply_ctx(r); /* the records after it: new context */
		f->crash_rest = next;
	} else if ((r->flags & LLOG__REC_BACKTRACE) && f->bt != NULL) {
		keep_record(f, r, next); /* not written: not in nrec */
		rd->bytes += LLOG__REC_HDR + r->len;
	} else {
		write_record(f, r, next); /* sets crash_rest = next */
		rd->nrec++;
		rd->bytes += LLOG__REC_HDR + r->len;
	}
	release_or_defer(rd, r, hold);
}

static void signal_barriers(struct llist_node *b);

/* F4: processes one chain in push order. */
static void process(struct llog__flusher *f, struct llist_node *chain, int hold, struct round *rd)
{
	struct llist_node *pos, *next;

	llist_for_each_safe(pos, next, chain) {
		struct llog__rec *r = llist_entry(pos, struct llog__rec, node);

		f->crash_rest = pos;
		switch (r->kind) {
		case LLOG__K_LOG:
		case LLOG__K_TEXT:
		case LLOG__K_EXIT:
		case LLOG__K_NAME:
		case LLOG__K_CTX:
			process_owned(f, r, next, hold, rd);
			break;
		case LLOG__K_BARRIER:
			if (r->flags & LLOG__BARRIER_RENDERED) {
				/* llog__dso_fini: everything before it was
				 * handed to the sinks, no commit needed. */
				f->crash_rest = next; /* before pos->next goes */
				pos->next = NULL;
				signal_barriers(pos);
				break;
			}
			pos->next = rd->barriers;
			rd->barriers = pos;
			break;
		case LLOG__K_SINK:
			install_sink(f, (struct llog__sink_rec *)(void *)r, IN_ROUND);
			f->crash_rest = next; /* r is freed below */
			free(r);
			break;
		default:
			break;
		}
	}
	f->crash_rest = NULL;
}

static void release_deferred(struct llist_node *pos)
{
	struct llist_node *next;

	llist_for_each_safe(pos, next, pos)
		release_record(llist_entry(pos, struct llog__rec, node));
}

/* Adds a round's barriers, with what they wait for in each queue, to those
 * waiting for the queues. */
static void wait_barriers(struct llog__flusher *f, struct llist_node *b)
{
	struct wait_group *g;
	struct llist_node *last = b;

	while (last->next != NULL)
		last = last->next;
	if (f->nwait == WAIT_GROUPS) {
		/* Joins the newest group: waits for the later epochs too. */
		g = &f->wait[WAIT_GROUPS - 1];
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
static unsigned release_waiting(struct llog__flusher *f, int final)
{
	int64_t now = llog__mono_ms(), next = -1;
	unsigned kept = 0;

	for (int i = 0; i < f->sinks.n; i++) {
		struct llog__sinkq *q = queue_of(f, i);
		uint64_t want = 0;

		for (unsigned gi = 0; gi < f->nwait; gi++) {
			struct wait_group *g = &f->wait[gi];
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
			 * flusher's half of the want/done Dekker (sinkq.c
			 * reached()): the oldest epoch still waited for is
			 * either seen committed here or wakes the flusher. */
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
		struct wait_group *g = &f->wait[gi];
		int pending = 0;

		for (int i = 0; i < f->sinks.n; i++)
			pending |= g->need[i] != 0;
		if (pending)
			f->wait[kept++] = *g;
		else
			signal_barriers(g->barriers);
	}
	f->nwait = kept;
	if (next >= 0)
		return next - now > 0 ? (unsigned)(next - now) : 1;
	return 0;
}

static void signal_barriers(struct llist_node *b)
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

/* A rate-limited site's shutdown line (ratelimit.h), after the final
 * round's records. */
static void rl_line(void *ctx, struct llog_entry *e)
{
	struct llog__flusher *f = ctx;

	e->seq = ++f->seq;
	e->ts_ns = out_ts(f, llog__clock_raw());
	sink_write(f, e);
}

/* One round, F1..F5 (flusher.h). Returns whether it was the final one (the
 * list is then closed). */
static int flusher_round(struct llog__flusher *f)
{
	struct round rd = {0, 0, 0, NULL, NULL, NULL};
	struct llist_node *chain;
	int stopping;

	rd.dtail = &rd.deferred;
	chain = llog__queue_take(&stopping);                         /* F1-F3 */
	f->final = stopping;
	llog__clock_conv_anchor(&f->clock);
	process(f, chain, stopping, &rd);                            /* F4 */
	/* The levels file (reload.h): its change record in this round. */
	rd.notices += llog__reload_poll(rd.barriers != NULL, llog__cfg.flush_interval_ms, rl_line,
					f);
	if (stopping) {
		llog__rl_final(rl_line, f);
		if (f->bt != NULL)
			llog__backtrace_clear(f->bt); /* never written: discarded */
	}
	rd.notices += queue_notices(f);
	if (rd.nrec != 0 || rd.notices != 0 || rd.barriers != NULL || stopping) {
		sinks_commit(f, rd.barriers != NULL || stopping);    /* F5 */
		llog__count_written(rd.nrec);
		if (rd.nrec != 0)
			llog__count(batches, 1);
	}
	release_deferred(rd.deferred);
	/* Barriers wait for the sinks on threads of their own too. */
	if (rd.barriers != NULL)
		wait_barriers(f, rd.barriers);
	f->sleep_ms = release_waiting(f, stopping);
	f->round_bytes = rd.bytes;
	llog__arena_wake_waiters();
	return stopping;
}

/* The flusher's CPUs (llog_config.flusher_cpus): best effort. */
static void pin(unsigned long long cpus)
{
	cpu_set_t set;

	if (cpus == 0)
		return;
	CPU_ZERO(&set);
	for (int i = 0; i < 64; i++)
		if (cpus >> i & 1)
			CPU_SET(i, &set);
	(void)pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

/*
 * Adaptive period: the next round comes before the arenas are
 * likely to pass a quarter full at the rate the last round saw (its record
 * bytes over the time since the round before), between 1 ms and the
 * configured period. Producers wake the flusher only past half full (a
 * fence and a system call on their path): at a steady rate they then never
 * do; idle or slow (a round of less than a sixteenth of that quarter),
 * rounds (and the sinks' commits, a zstd frame each) stay at the
 * configured period, so that a lost wake-up is never hidden by a short
 * period (tests/test_sched.c relies on that).
 */
static unsigned next_period(const struct llog__flusher *f)
{
	unsigned period = llog__cfg.flush_interval_ms;
	/* Relaxed: see config.h. */
	uint64_t target = llog__load_relaxed(&llog__cfg.arena_bytes) / 4;
	int64_t span = f->round_ms - f->round_ms_prev;
	uint64_t p;

	/* A round with a few records (less than a sixteenth of the target)
	 * says nothing about a rate worth adapting to. */
	if (f->round_bytes < target / 16 || f->round_ms_prev == 0)
		return period;
	p = (uint64_t)(span > 1 ? span : 1) * target / f->round_bytes;
	if (p < 1)
		p = 1;
	return p < period ? (unsigned)p : period;
}

static void *flusher_main(void *arg)
{
	struct llog__flusher *f = arg;
	sigset_t all;

	/* Signals are for application threads; the flusher never runs a
	 * handler (and a write to a vanished pipe reader returns EPIPE
	 * instead of killing the process with SIGPIPE), except the crash
	 * handler for its own faults (blocked, they would kill the process
	 * without it). */
	sigfillset(&all);
	llog__crash_block_mask(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	llog__arena_mark_flusher();
	pin(llog__cfg.flusher_cpus);
	/* A fault in a sink (even a stack overflow) runs the crash handler,
	 * which drains from here (llog__flusher_crash_drain_self). */
	f->crash_sink = -1;
	crash_flusher = f;
	(void)llog__altstack_install(f->altstack);
	/* Release: pairs with the acquire load in llog__flusher_start (it
	 * orders nothing the starter reads; the point is that the thread's
	 * start-up, the C library's and a sanitizer runtime's included, is
	 * over when llog_init returns). */
	llog__store_release(&f->started, 1);
	llog__futex_wake(&f->started, 1);
	/* F6: exit after the final round, else sleep unless asked already. */
	for (;;) {
		unsigned period;
		int64_t since;
		int final;

		pthread_mutex_lock(&round_lock);
		since = f->round_ms;
		f->round_ms = llog__mono_ms();
		final = flusher_round(f);
		f->round_ms_prev = since;
		pthread_mutex_unlock(&round_lock);
		if (final)
			break;
		LLOG__SCHED(ROUND_END);
		period = next_period(f);
		if (f->sleep_ms != 0 && f->sleep_ms < period)
			period = f->sleep_ms;
		llog__queue_sleep(period);
	}
	if (!llog__altstack_remove(f->altstack))
		f->altstack = NULL; /* still in use: never unmapped (leaked) */
	crash_flusher = NULL;
	return NULL;
}

/* ---- the flusher's life ---------------------------------------------------- */

struct llog__flusher *llog__flusher_new(void)
{
	struct llog__flusher *f = calloc(1, sizeof(*f));
	int err;

	if (f == NULL)
		return NULL;
	/* Relaxed: see config.h (and written by this thread). */
	f->msgcap = llog__load_relaxed(&llog__cfg.max_record_bytes) + LLOG__MARKER_LEN;
	f->msgbuf = malloc(f->msgcap);
	f->crash_msg = malloc(f->msgcap);
	f->altstack = llog__altstack_new();
	f->fmt_cache = llog__fmt_cache_new(); /* NULL: rendered without */
	f->bt = llog__backtrace_ring_new(&err);
	if (f->msgbuf == NULL || f->crash_msg == NULL || f->altstack == NULL || err != 0) {
		llog__flusher_free(f);
		return NULL;
	}
	return f;
}

void llog__flusher_free(struct llog__flusher *f)
{
	free(f->msgbuf);
	free(f->crash_msg);
	llog__fmt_cache_free(f->fmt_cache);
	llog__altstack_delete(f->altstack);
	llog__backtrace_ring_free(f->bt);
	free(f);
}

struct llog__sinktab *llog__flusher_sinks(struct llog__flusher *f)
{
	return &f->sinks;
}

/*
 * Returns once the thread runs flusher_main: a fork() right after
 * llog_init() must not catch the new thread inside its own start-up, where
 * it may hold an allocator lock that no fork handler takes (ASan's, in gcc
 * 12's libasan: the child's first thread then waited for ever for it).
 */
int llog__flusher_start(struct llog__flusher *f)
{
	int rc;

	llog__clock_conv_init(&f->clock);
	(void)llog__flusher_sinktab_start(&f->sinks);
	llog__queue_open(llog__cfg.queue_shards);
	llog__store_relaxed(&f->started, 0); /* before the thread exists */
	rc = -pthread_create(&f->thread, NULL, flusher_main, f);
	/* Acquire: pairs with the release store in flusher_main. */
	while (rc == 0 && llog__load_acquire(&f->started) == 0)
		llog__futex_wait(&f->started, 0, 0);
	return rc;
}

void llog__flusher_run_final(struct llog__flusher *f)
{
	llog__queue_stop();
	flusher_round(f);
	/* The sinks are kept for a later llog_init; their threads (if any
	 * started) finish what the round gave them, within their drain
	 * timeouts, and stop (a stuck one cannot be kept: its sink is
	 * forgotten, as at shutdown). */
	for (int i = 0; i < f->sinks.n; i++) {
		struct llog__sinkq *q = f->sinks.q[i];

		if (q == NULL)
			continue;
		if (llog__sinkq_running(q))
			(void)llog__sinkq_drain(q, llog__mono_ms() + llog__sinkq_timeout_ms(q));
		if (!llog__sinkq_stop(q)) {
			for (int j = i + 1; j < f->sinks.n; j++) {
				f->sinks.q[j - 1] = f->sinks.q[j];
				f->sinks.s[j - 1] = f->sinks.s[j];
			}
			f->sinks.n--;
			i--;
		}
	}
}

void llog__flusher_stop(struct llog__flusher *f)
{
	llog__queue_stop();
	pthread_join(f->thread, NULL);
}

void llog__flusher_after_fork(struct llog__flusher *f, struct llist_node *inherited)
{
	struct llist_node *pos, *next;
	int n = 0;

	/* Sinks added (llog_add_sink) but not yet installed by the flusher
	 * are in the list, which is the parent's otherwise. */
	llist_for_each_safe(pos, next, inherited) {
		struct llog__rec *r = llist_entry(pos, struct llog__rec, node);

		if (r->kind == LLOG__K_SINK) {
			install_sink(f, (struct llog__sink_rec *)(void *)r, IN_FORK);
			free(r);
		}
	}
	/* A sink that cannot drop the parent's state (no after_fork:
	 * version 1, or a sink that declares none) is not used in the
	 * child: it would write the parent's data again or share a
	 * connection. It is forgotten, not closed (the parent's). A queue's
	 * entries are the parent's too: dropped; its thread starts with the
	 * child's flusher. */
	for (int i = 0; i < f->sinks.n; i++) {
		const struct llog_sink_ops *ops = f->sinks.s[i]->ops;

		if (ops->version >= 2 && ops->after_fork != NULL &&
		    (f->sinks.q[i] == NULL || llog__sinkq_fork_child(f->sinks.q[i]))) {
			ops->after_fork(f->sinks.s[i]);
			f->sinks.q[n] = f->sinks.q[i];
			f->sinks.s[n++] = f->sinks.s[i];
		}
	}
	f->sinks.n = n;
	f->nwait = 0; /* the parent's barriers */
	/* The backtrace holds the parent's records: the parent writes them
	 * (or not), never the child. */
	if (f->bt != NULL)
		llog__backtrace_clear(f->bt);
}

/* The sinks' threads are held between two sink calls after the round:
 * the flusher does not change its table while held. */
void llog__flusher_fork_prepare(struct llog__flusher *f)
{
	pthread_mutex_lock(&round_lock);
	for (int i = 0; f != NULL && i < f->sinks.n; i++)
		if (f->sinks.q[i] != NULL)
			llog__sinkq_fork_prepare(f->sinks.q[i]);
}

void llog__flusher_fork_parent(struct llog__flusher *f)
{
	for (int i = 0; f != NULL && i < f->sinks.n; i++)
		if (f->sinks.q[i] != NULL)
			llog__sinkq_fork_parent(f->sinks.q[i]);
	pthread_mutex_unlock(&round_lock);
}

void llog__flusher_fork_child(void)
{
	pthread_mutex_init(&round_lock, NULL);
	crash_flusher = NULL;
}

/* ---- barriers ------------------------------------------------------------- */

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
	/* Acquire: pairs with the release store in signal_barriers. */
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

/* ---- the crash drain on the flusher thread ---------------------------------- */

/* How long the drain waits for the sinks' own threads, all together. */
#define CRASH_QUEUE_MS 1000

static int has_crash_ops(const struct llog_sink *s)
{
	return s->ops->version >= 2 && s->ops->crash_write != NULL &&
	       s->ops->crash_commit != NULL;
}

/* Hands e to the sinks from index `from` on, through their crash entry
 * points; `at` is the interrupted sink (or -1). Returns how many took it. */
static int crash_hand(struct llog__flusher *f, int from, const struct llog_entry *e, int at)
{
	int took = 0;

	for (int i = from; i < f->sinks.n; i++) {
		struct llog_sink *s = f->sinks.s[i];
		struct llog__sinkq *q = queue_of(f, i);
		long rc;

		if (e->level < s->level || (q == NULL && !has_crash_ops(s)))
			continue;
		/* A sink on a thread of its own: its thread writes it. */
		rc = q != NULL ? llog__sinkq_crash_put(q, e) : s->ops->crash_write(s, e, i == at);
		if (rc < 0)
			llog__count(write_errors, 1);
		else
			took++;
	}
	return took;
}

/*
 * The crash record and barrier of an application thread's report
 * (llog__flusher_crash_drain). When the flusher faults during that report,
 * its own drain (llog__flusher_crash_drain_self) hands that record out and
 * then signals the barrier, so the reporting thread goes on at once.
 * crash_barrier is static: the flusher may signal it after the reporter
 * gave up waiting.
 * crash_pushed: relaxed store before the release push of the record;
 * relaxed load in the drain, which only compares it with records of a
 * chain it took (acquire), so the store happened before.
 */
static struct llog__barrier crash_barrier;
static _Atomic(const struct llog__rec *) crash_pushed;

/* What the drain met in the chains it handed out. */
struct crash_drain {
	uint64_t n;       /* records written */
	int barrier_met;  /* crash_barrier was in them */
	int pushed_took;  /* sinks that took the crash record crash_pushed */
	struct llog__flusher *f;
	int at;
};

/* One backtrace entry in the drain (backtrace.h), as bt_out. */
static void crash_bt_out(void *ctx, struct llog_entry *e)
{
	struct crash_drain *d = ctx;

	bt_entry_out(d->f, e);
	(void)crash_hand(d->f, 0, e, d->at);
}

/* Renders and hands out the records of a chain in push order. */
static void crash_chain(struct llog__flusher *f, struct llist_node *pos, int at,
			struct crash_drain *d)
{
	const struct llog__rec *pushed = llog__load_relaxed(&crash_pushed);
	struct llog__plan tmp;
	struct llog_entry e;
	char note[LLOG__NOTICE_BYTES];

	for (; pos != NULL; pos = pos->next) {
		struct llog__rec *r = llist_entry(pos, struct llog__rec, node);
		int took;

		if (r->kind == LLOG__K_SINK) {
			/* Installed as the round would have: the records
			 * after it reach it too (appended: `at` stays valid). */
			install_sink(f, (struct llog__sink_rec *)(void *)r, IN_CRASH);
			continue;
		}
		if (r->kind == LLOG__K_BARRIER && pos == &crash_barrier.rec.node)
			d->barrier_met = 1;
		if (r->kind != LLOG__K_LOG && r->kind != LLOG__K_TEXT && r->kind != LLOG__K_EXIT &&
		    r->kind != LLOG__K_NAME && r->kind != LLOG__K_CTX)
			continue; /* other barriers: their threads wait in vain */
		if (r->dropped != 0) {
			notice_entry(f, r, r->dropped, note, &e);
			crash_hand(f, 0, &e, at);
		}
		if (r->kind == LLOG__K_EXIT)
			continue;
		if (r->kind == LLOG__K_NAME) {
			llog__arena_apply_name(r);
			continue;
		}
		if (r->kind == LLOG__K_CTX) {
			llog__arena_apply_ctx(r);
			continue;
		}
		if ((r->flags & LLOG__REC_BACKTRACE) && f->bt != NULL) {
			llog__render_record(r, f->crash_msg, f->msgcap, &tmp, &e);
			llog__capture_clear();
			keep_entry(f, r, &e);
			continue;
		}
		if (llog__backtrace_triggers(f->bt, llog__site_level(r->site)))
			llog__backtrace_emit(f->bt, crash_bt_out, d);
		record_entry(f, r, f->crash_msg, &tmp, NULL, &e); /* no cache (fmt_cache.h) */
		took = crash_hand(f, 0, &e, at);
		/* e dies with this frame: no later entry at its address (a
		 * backtrace entry of the caller's) may match the capture. */
		llog__capture_clear();
		if (r == pushed)
			d->pushed_took = took;
		d->n++;
	}
}

/* Ends the drain: crash_commit of every sink that has it. Returns whether
 * one of them committed. */
static int crash_commit_all(struct llog__flusher *f, int at)
{
	int64_t deadline = llog__mono_ms() + CRASH_QUEUE_MS;
	int committed = 0;

	f->epoch++;
	for (int i = 0; i < f->sinks.n; i++) {
		struct llog_sink *s = f->sinks.s[i];
		struct llog__sinkq *q = queue_of(f, i);
		long rc;

		if (q != NULL) {
			committed |= llog__sinkq_crash_commit(q, f->epoch, deadline);
			continue;
		}
		if (!has_crash_ops(s))
			continue;
		rc = s->ops->crash_commit(s, i == at);
		llog__count_commit(rc);
		committed |= rc >= 0;
	}
	return committed;
}

/*
 * In output order, to every sink with crash entry points: the entry the
 * flusher was handing out (to the sinks after the one it faulted in, which
 * had not taken it yet; the faulting sink is not given that entry again),
 * the rest of the chain of this round (less a record whose rendering
 * crashed), the list taken with CLOSED installed (later pushes go to stderr
 * synchronously), then rec (when not NULL); then crash_commit. Runs once
 * per process: for the first crashing thread when that is the flusher (rec
 * is its crash record), or, with rec NULL, when the flusher faults while
 * an application thread reports its crash (the drain that thread waits
 * for would never finish): that thread's crash record is then in the
 * chains, and its barrier is signalled after the commit when some sink
 * committed the record.
 */
int llog__flusher_crash_drain_self(struct llog__rec *rec)
{
	struct llog__flusher *f = crash_flusher;
	struct crash_drain d = {0, 0, 0, crash_flusher, -1};
	const struct llog_entry *cur;
	struct llist_node *rest;
	struct llog_entry e;
	int at, took = 0, committed;

	if (f == NULL)
		return 0;
	at = d.at = f->crash_sink;
	cur = f->crash_entry;
	if (cur != NULL)
		crash_hand(f, at + 1, cur, at);
	rest = f->crash_rest;
	if (rest != NULL && f->crash_rendering)
		rest = rest->next; /* lost: rendering it is what crashed */
	crash_chain(f, rest, at, &d);
	/* In the final round the list is closed already: nothing more. */
	crash_chain(f, llog__queue_close(), at, &d);
	if (rec != NULL) {
		/* The backtrace before the crash record, whatever the
		 * trigger level. */
		if (llog__backtrace_held(f->bt) != 0)
			llog__backtrace_emit(f->bt, crash_bt_out, &d);
		rec->ts = llog__clock_raw();
		record_entry(f, rec, f->crash_msg, &f->tmp_plan, NULL, &e); /* no cache (fmt_cache.h) */
		took = crash_hand(f, 0, &e, at);
		d.n++;
	}
	committed = crash_commit_all(f, at);
	llog__count_written(d.n);
	if (d.barrier_met && d.pushed_took > 0 && committed) {
		/* Release: pairs with the acquire load in
		 * llog__flusher_barrier_run of the reporting thread (the static
		 * barrier stays). */
		llog__store_release(&crash_barrier.done, 1);
		llog__futex_wake(&crash_barrier.done, 1);
	}
	return took > 0 && committed;
}

int llog__flusher_crash_drain(struct llog__rec *rec, unsigned timeout_ms)
{
	if (llog__arena_thread_is_flusher())
		return 0;
	/* Relaxed: published by the release push of rec (crash_pushed). */
	llog__store_relaxed(&crash_pushed, rec);
	return llog__flusher_barrier_run(&crash_barrier, rec, (int)timeout_ms) == 1;
}
