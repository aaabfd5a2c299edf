/*
 * flusher.c - the flusher thread: its rounds F1-F6 (processing records,
 * committing the sinks), its life (made, started, stopped, the final round
 * without a thread) and the fork hand-off of the sinks. See flusher.h for
 * the design; the sink table, the barriers and the crash drain are in
 * flusher_sinktab.c, flusher_barrier.c and flusher_drain.c
 * (flusher_state.h).
 *
 * Calls into crash.c and is called from it through the crash drain, by
 * design (flusher.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
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
#include "flusher_state.h"
#include "levels.h"
#include "reload.h"
#include "ratelimit.h"
#include "kv.h"
#include "render.h"
#include "sched_points.h"
#include "site.h"
#include "sink.h"
#include "sinkq.h"
#include "stats.h"

/* The running flusher, for the crash drain (flusher_state.h). */
struct llog__flusher *llog__flusher_running;

/* Serialises rounds with fork(): the flusher holds it for each round,
 * llog__flusher_fork_prepare takes it, so a child's copy of the sinks is
 * never caught in the middle of a write or commit. */
static pthread_mutex_t round_lock = PTHREAD_MUTEX_INITIALIZER;

/* ---- one round ------------------------------------------------------------ */

static void sink_write(struct llog__flusher *f, const struct llog_entry *e)
{
	f->crash_entry = e;
	for (int i = 0; i < f->sinks.n; i++) {
		struct llog_sink *s = f->sinks.s[i];
		struct llog__sinkq *q = llog__flusher_queue_of(f, i);

		if (e->level < s->level || !llog__catsel_match(&f->sinks.sel[i], e))
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
		struct llog__sinkq *q = llog__flusher_queue_of(f, i);

		if (q != NULL)
			n += (uint64_t)llog__sinkq_retry_notice(q, f->final);
	}
	return n;
}

/* F5: commits the flusher's sinks and ends the round in every queue;
 * with barriers, notes what they must wait for in each queue. */
static void sinks_commit(struct llog__flusher *f, int barriers)
{
	f->epoch++;
	/* An ordinary round's output may be written by a sink's thread after
	 * this (sink.h); with barriers or in the final round it is written
	 * when the commits return. */
	llog__sink_set_commit_may_defer(!barriers && !f->final);
	for (int i = 0; i < f->sinks.n; i++) {
		struct llog__sinkq *q = llog__flusher_queue_of(f, i);

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
	llog__sink_set_commit_may_defer(0);
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
void llog__flusher_notice_entry(struct llog__flusher *f, const struct llog__rec *r,
				uint32_t dropped, char *note, struct llog_entry *e)
{
	llog__render_notice(r->arena->tid, dropped, note, e);
	e->thread_name = r->arena->fl_name; /* the flusher's copy (arena.h) */
	e->thread_name_len = r->arena->fl_name_len;
	e->seq = ++f->seq;
	e->ts_ns = out_ts(f, r->ts);
}

/* r rendered as an entry of the output sequence, in buf (msgcap bytes). */
void llog__flusher_record_entry(struct llog__flusher *f, const struct llog__rec *r, char *buf,
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
	llog__flusher_notice_entry(f, r, dropped, note, &e);
	sink_write(f, &e);
}

/* Whether some sink that gets r needs its message rendered: all but the
 * sinks that store the capture (LLOG__SINK_F_RAW, capture.h), on the
 * flusher or on a thread of their own (their queue copies the capture),
 * unless it is queued and its format longer than a queue copies (the
 * message then goes instead: sinkq.c). */
static int needs_text(const struct llog__flusher *f, const struct llog__rec *r)
{
	if (r->kind != LLOG__K_LOG)
		return 1;
	for (int i = 0; i < f->sinks.n; i++) {
		const struct llog_sink *s = f->sinks.s[i];

		if (llog__site_level(r->site) >= (int)s->level &&
		    (s->ops->version < 3 || !(s->ops->flags & LLOG__SINK_F_RAW) ||
		     (llog__flusher_queue_of(f, i) != NULL &&
		      strnlen(r->site->fmt, LLOG__CAPTURE_FMT_MAX + 1) > LLOG__CAPTURE_FMT_MAX)))
			return 1;
	}
	return 0;
}

/* A backtrace entry leaving the ring: next in the output sequence, with
 * its own time (not clamped by out_ts); a rate-limited site's count is
 * reported now (llog__flusher_keep_entry). */
void llog__flusher_bt_entry_out(struct llog__flusher *f, struct llog_entry *e)
{
	e->seq = ++f->seq;
	if (__builtin_expect(e->suppressed != 0, 0))
		llog__count(suppressed, e->suppressed);
}

static void bt_out(void *ctx, struct llog_entry *e)
{
	struct llog__flusher *f = ctx;

	llog__flusher_bt_entry_out(f, e);
	sink_write(f, e);
}

/* Copies e, rendered from r, into the ring, with the fields the record
 * would have been written with (its thread's context as of the record,
 * and the call's). llog_stats.suppressed counts what the sinks were
 * handed: the renderer's addition of a kept record's count waits for
 * llog__flusher_bt_entry_out. */
void llog__flusher_keep_entry(struct llog__flusher *f, const struct llog__rec *r,
			      struct llog_entry *e)
{
	llog__fields_entry(r->arena->fl_ctx, llog__rec_fields(r),
			   e->msg == f->crash_msg ? f->crash_fields : f->fields, e);
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
	llog__flusher_keep_entry(f, r, &e);
}

/*
 * The direct path: a LOG record without fields goes to sinks that store
 * captures as its capture (capture.h, struct llog__capture_rec), with no
 * entry built and nothing rendered, when every sink of the table runs on
 * the flusher and has write_rec (sink.h), most of them in runs (below,
 * "Runs"), the others one at a time (write_direct); otherwise every
 * record goes as an entry (write_record), as to any sink. Each sink still
 * gets exactly the records of its level and categories, in the same
 * order, with the same sequence numbers and times.
 *
 * thread_epoch: what a sink may take as the same thread and name as
 * before (capture.h): moved on at each round's start (a name may change
 * between rounds: llog__arena_rename_closed, fork) and at each NAME and
 * EXIT record (a name changes; an arena is freed, its address may come
 * back as another thread's). Process-wide and never reset, so a sink kept
 * across flushers never sees an old value again. Written by whichever
 * thread runs rounds: the flusher, or llog_init's thread running the final
 * round of a flusher that could not start (llog__flusher_run_final, under
 * the control lock, when no flusher thread runs: ordered with the last one
 * by its join). Not atomic: never two at a time.
 */
static uint64_t thread_epoch;

/* Sets f->direct_on, f->direct[], and the runs' f->run_on, f->run_level,
 * f->direct_run[] for the table as it is now (no run is pending: the
 * table changes only between records that end one). */
static void direct_setup(struct llog__flusher *f)
{
	f->direct_on = f->sinks.n > 0;
	f->run_on = f->sinks.n > 0;
	f->run_level = LLOG_TRACE;
	for (int i = 0; i < f->sinks.n; i++) {
		f->direct[i] = f->sinks.q[i] == NULL ? llog__sink_write_rec(f->sinks.s[i]) : NULL;
		f->direct_run[i] = f->direct[i] != NULL ? llog__sink_write_run(f->sinks.s[i]) : NULL;
		if (f->direct[i] == NULL)
			f->direct_on = 0;
		if (f->direct_run[i] == NULL || f->sinks.sel[i].n != 0)
			f->run_on = 0;
		if ((int)f->sinks.s[i]->level > f->run_level)
			f->run_level = (int)f->sinks.s[i]->level;
	}
	f->run_on &= f->direct_on;
}

/* Whether r's capture may go directly: a LOG record with no fields (no
 * call block, an empty context that refused nothing: kv.h). */
static int direct_ok(const struct llog__flusher *f, const struct llog__rec *r)
{
	struct llog__kv_list h;

	if (!f->direct_on || r->kind != LLOG__K_LOG || (r->flags & LLOG__REC_FIELDS))
		return 0;
	memcpy(&h, r->arena->fl_ctx, sizeof(h));
	return h.count == 0 && h.refused == 0;
}

/* Whether a record of cr's site goes to sink i by its categories. */
static int direct_sel(const struct llog__flusher *f, int i, const struct llog__capture_rec *cr)
{
	struct llog_entry e;

	if (f->sinks.sel[i].n == 0)
		return 1;
	e.level = (enum llog_level)cr->level;
	e.category = llog__site_category(cr->c.site);
	e.category_len = e.category != NULL ? strlen(e.category) : 0;
	return llog__catsel_match(&f->sinks.sel[i], &e);
}

/* Hands r (direct_ok) to the sinks directly; `next` is the record after
 * it in the chain. A sink that faults: the crash drain renders r for the
 * sinks after it, with the sequence number and time the others got
 * (crash_direct, crash_cr). */
static void write_direct(struct llog__flusher *f, struct llog__rec *r, struct llist_node *next)
{
	struct llog__capture_rec cr;

	f->crash_rendering = 1;
	llog__render_capture_rec(r, f->msgcap, &f->tmp_plan, &cr);
	cr.thread_epoch = thread_epoch;
	cr.seq = ++f->seq;
	cr.ts_ns = out_ts(f, r->ts);
	f->crash_cr = &cr;
	f->crash_direct = r;
	f->crash_rendering = 0;
	f->crash_rest = next;
	for (int i = 0; i < f->sinks.n; i++) {
		struct llog_sink *s = f->sinks.s[i];

		if (cr.level < (int)s->level || !direct_sel(f, i, &cr))
			continue;
		f->crash_sink = i;
		if (f->direct[i](s, &cr) < 0)
			llog__count(write_errors, 1);
	}
	f->crash_direct = NULL;
	f->crash_cr = NULL;
	f->crash_sink = -1;
}

/* Hands r to the sinks; `next` is the record after it in the chain. A
 * record at the trigger level has the backtrace written first. */
static void write_record(struct llog__flusher *f, struct llog__rec *r, struct llist_node *next)
{
	struct llog_entry e;

	/* (f->bt NULL, the backtrace off: no call) */
	if (__builtin_expect(f->bt != NULL &&
				     llog__backtrace_triggers(f->bt, llog__site_level(r->site)),
			     0))
		llog__backtrace_emit(f->bt, bt_out, f);
	if (direct_ok(f, r)) {
		write_direct(f, r, next);
		return;
	}
	f->crash_rendering = 1;
	if (needs_text(f, r)) {
		llog__flusher_record_entry(f, r, f->msgbuf, &f->tmp_plan, f->fmt_cache, &e);
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

/*
 * F4, a removal record (llog_remove_sink): the sink leaves the table here,
 * after the records before the removal in the list were handed to it and
 * before any after it. A queued sink first gets the marker that ends what
 * this round put in its queue (epoch + 1, the epoch this round's F5 will
 * give the other queues), so that the drain in close_one waits for those
 * entries too; a sink on the flusher is committed, as F5 would. The barriers waiting for the queues keep their epochs per
 * sink index: the indices above i move down with the table. The record
 * stays the remover's (a barrier behind it tells it the result is there).
 */
static void remove_sink(struct llog__flusher *f, struct llog__sink_rec *sr)
{
	int i = 0;

	while (i < f->sinks.n && f->sinks.s[i] != sr->sink)
		i++;
	if (i == f->sinks.n) {
		memset(&sr->final, 0, sizeof(sr->final));
		sr->rc = -ENOENT;
		return;
	}
	if (llog__flusher_queue_of(f, i) != NULL) {
		(void)llog__sinkq_commit(f->sinks.q[i], f->epoch + 1);
	} else { /* on the flusher: committed as F5 would, counted as there */
		f->crash_sink = i; /* a crash in it: this sink was interrupted */
		llog__count_commit(f->sinks.s[i]->ops->commit(f->sinks.s[i]));
		f->crash_sink = -1;
	}
	/* The slot left at the end is the next sink's: nothing waited for. */
	for (unsigned g = 0; g < f->nwait; g++) {
		memmove(&f->wait[g].need[i], &f->wait[g].need[i + 1],
			(size_t)(f->sinks.n - i - 1) * sizeof(f->wait[g].need[0]));
		f->wait[g].need[f->sinks.n - 1] = 0;
	}
	memmove(&f->round_need[i], &f->round_need[i + 1],
		(size_t)(f->sinks.n - i - 1) * sizeof(f->round_need[0]));
	f->round_need[f->sinks.n - 1] = 0;
	llog__flusher_sinktab_remove(&f->sinks, i, &sr->final);
	sr->rc = 0;
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

/*
 * Runs. A LOG record that goes directly (direct_ok) to every sink of the
 * table (its level is at least each sink's, none selects categories: f->
 * run_on, run_level), with no drop notice before it and no backtrace
 * written before it or kept instead of it, joins the run (run_add): its
 * capture, sequence number and time are taken in the order of the chain,
 * its arena bytes kept. The run is handed out (run_flush) before any other
 * record, when it is full and at the chain's end: each sink gets all of
 * it in one call (write_run), in the table's order, then the records'
 * bytes go back to their arenas. So every sink gets the records in the
 * chain's order, each once, as write_direct would give them.
 *
 * Crash (flusher_drain.c, crash_run): the drain reads how far the run got
 * from run.n (records gathered, counted after each one's capture is
 * complete) and run.taken (one word: 0 while gathering, no sink has any
 * of it; else the sink being handed the run, the sinks before it having
 * taken it all, and how many records that sink took whole, capture.h). It
 * hands each record of the run, with the sequence number and time the run
 * gave it, to every sink that had not taken it, but to the sink that
 * faulted in it (crash_sink, the interrupted one); then the chain from
 * crash_rest, which is past the run from the moment a record is counted
 * in run.n. run.n goes back to 0 before the records' bytes are released,
 * so a crash after the sinks took the run hands out nothing of it again
 * and never reads a released record.
 */
static void run_flush(struct llog__flusher *f, struct round *rd, int hold);

/* Whether r (a LOG record) may join the run. What depends on its site (the
 * level, the backtrace's trigger) and on its thread (an empty context) is
 * asked once per run for each: the run's last site and thread that passed
 * (run_site, run_arena), forgotten when the run is handed out; a record
 * that changes a thread's context ends the run. */
static int run_ok(struct llog__flusher *f, const struct llog__rec *r) /* f->run_on */
{
	if (r->dropped != 0 || (r->flags & (LLOG__REC_BACKTRACE | LLOG__REC_FIELDS)))
		return 0;
	if (__builtin_expect(r->site == f->run_site && r->arena == f->run_arena, 1))
		return 2; /* and of the record before it (run_add) */
	/* Acquire: pairs with the release store of READY in llog__site_plan
	 * (site.h), as llog__site_plan_peek's: the run's records point to the
	 * published plan, never to the flusher's one tmp_plan. */
	if (llog__site_level(r->site) < f->run_level || !direct_ok(f, r) ||
	    (llog__load_acquire((_Atomic int *)&r->site->state) & LLOG__SITE_STATE_MASK) !=
		    LLOG__SITE_READY ||
	    (f->bt != NULL && llog__backtrace_triggers(f->bt, llog__site_level(r->site))))
		return 0;
	f->run_site = r->site;
	f->run_arena = r->arena;
	return 1;
}

/* r joins the run; ok is run_ok's answer (2: of the site and thread of the
 * record before it), `next` the record after it in the chain. */
static void run_add(struct llog__flusher *f, struct llog__rec *r, int ok, struct llist_node *next,
		    int hold, struct round *rd)
{
	unsigned n = f->run.n;

	if (n == 0) { /* what the run's records share */
		f->run.room = f->msgcap - LLOG__MARKER_LEN;
		f->run.gen = f->run_gen;
		f->run.thread_epoch = thread_epoch;
	}
	f->crash_rendering = 1;
	/* (ok 2: run_site was set by the record before it, so n > 0) */
	llog__render_capture_run(&f->run, r, ok == 2, f->seq + 1, out_ts(f, r->ts));
	f->seq++;
	f->run_rec[n] = r;
	/* cr complete before it is counted (the drain reads it: capture.h) */
	atomic_signal_fence(memory_order_seq_cst);
	f->run.n = n + 1;
	f->crash_rendering = 0;
	f->crash_rest = next;
	f->run_bytes += LLOG__REC_HDR + r->len;
	if (n + 1 == LLOG__RUN_MAX)
		run_flush(f, rd, hold);
}

/* Hands the run to every sink, then releases its records (or, in the
 * final round, defers them: release_or_defer). */
static void run_flush(struct llog__flusher *f, struct round *rd, int hold)
{
	struct llog__capture_run *run = &f->run;
	unsigned n = run->n;

	if (n == 0)
		return;
	for (int i = 0; i < f->sinks.n; i++) {
		long bad;

		f->crash_sink = i;
		run->taken = LLOG__RUN_SINK(i); /* i has none of it yet */
		bad = f->direct_run[i](f->sinks.s[i], run);
		if (bad > 0)
			llog__count(write_errors, (uint64_t)bad);
	}
	run->n = 0;
	run->taken = 0;
	f->crash_sink = -1;
	f->run_site = NULL;
	f->run_arena = NULL;
	rd->nrec += n;
	rd->bytes += f->run_bytes;
	f->run_bytes = 0;
	for (unsigned k = 0; k < n; k++) {
		if (hold)
			release_or_defer(rd, f->run_rec[k], hold);
		else
			llog__arena_release(f->run_rec[k]); /* a LOG record's */
	}
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
		thread_epoch++;       /* its address may be another's */
	} else if (r->kind == LLOG__K_NAME) {
		llog__arena_apply_name(r); /* the records after it: new name */
		thread_epoch++;
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
/* F4: processes one chain in push order. */
static void process(struct llog__flusher *f, struct llist_node *chain, int hold, struct round *rd)
{
	struct llist_node *pos, *next;
	int ok;

	llist_for_each_safe(pos, next, chain) {
		struct llog__rec *r = llist_entry(pos, struct llog__rec, node);

		f->crash_rest = pos;
		/* (a run is pending only while run_on: the table changes at a
		 * record that ends it) */
		if (f->run_on) {
			if (r->kind == LLOG__K_LOG && (ok = run_ok(f, r)) != 0) {
				run_add(f, r, ok, next, hold, rd);
				continue;
			}
			run_flush(f, rd, hold); /* every record before r, first */
		}
		switch (r->kind) {
		case LLOG__K_LOG:
		case LLOG__K_TEXT:
		case LLOG__K_EXIT:
		case LLOG__K_NAME:
		case LLOG__K_CTX:
			process_owned(f, r, next, hold, rd);
			break;
		case LLOG__K_BARRIER:
			/* f->bt NULL: a dump asked of an earlier configuration
			 * with the backtrace, pushed to this one without */
			if ((r->flags & LLOG__BARRIER_BT_DUMP) && f->bt != NULL)
				llog__backtrace_emit(f->bt, bt_out, f);
			if (r->flags & LLOG__BARRIER_RENDERED) {
				/* llog__dso_fini: everything before it was
				 * handed to the sinks, no commit needed. */
				f->crash_rest = next; /* before pos->next goes */
				pos->next = NULL;
				llog__flusher_signal_barriers(pos);
				break;
			}
			pos->next = rd->barriers;
			rd->barriers = pos;
			break;
		case LLOG__K_SINK:
			f->crash_rest = next; /* r is freed or given back below */
			if (r->flags & LLOG__SINK_REMOVE) {
				remove_sink(f, (struct llog__sink_rec *)(void *)r);
				direct_setup(f);
				break;
			}
			llog__flusher_sinktab_install(&f->sinks, (struct llog__sink_rec *)(void *)r,
						      LLOG__SINKTAB_IN_ROUND);
			free(r);
			direct_setup(f);
			break;
		default:
			break;
		}
	}
	run_flush(f, rd, hold);
	f->crash_rest = NULL;
}

static void release_deferred(struct llist_node *pos)
{
	struct llist_node *next;

	llist_for_each_safe(pos, next, pos)
		release_record(llist_entry(pos, struct llog__rec, node));
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
	thread_epoch++; /* names may have changed since the last round */
	/* Once per round: a record of a site loaded after an invalidate was
	 * taken after it (fmt_cache.h), so this value covers the chain. */
	f->run_gen = llog__fmt_cache_gen();
	direct_setup(f);
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
		llog__flusher_wait_barriers(f, rd.barriers);
	f->sleep_ms = llog__flusher_release_waiting(f, stopping);
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
	llog__flusher_running = f;
	(void)llog__altstack_install(f->altstack);
	llog__thread_up(&f->started, "llog-flusher");
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
	llog__flusher_running = NULL;
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

/* Returns once the thread runs flusher_main (queue.h: llog__thread_up),
 * and the sinks' threads theirs. */
int llog__flusher_start(struct llog__flusher *f)
{
	sigset_t old;
	int rc;

	llog__clock_conv_init(&f->clock);
	/* The sinks' threads block what the flusher blocks (flusher_main):
	 * every signal but the crash handler's. */
	sigfillset(&f->sinks.blocked);
	llog__crash_block_mask(&f->sinks.blocked);
	(void)llog__flusher_sinktab_start(&f->sinks);
	llog__queue_open(llog__cfg.queue_shards);
	llog__store_relaxed(&f->started, 0); /* before the thread exists */
	/* The thread starts with its signals blocked (it inherits this
	 * mask): no application handler runs on it, also not before
	 * flusher_main blocks them itself, while its starter waits. */
	pthread_sigmask(SIG_BLOCK, &f->sinks.blocked, &old);
	rc = -pthread_create(&f->thread, NULL, flusher_main, f);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc == 0)
		llog__thread_wait_up(&f->started);
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
				f->sinks.sel[j - 1] = f->sinks.sel[j];
			}
			if (i == 0)
				f->sinks.fallback = 0; /* the fallback is s[0] or gone */
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

/* How long fork() waits for the sinks' threads to be between two calls,
 * all queues together (llog__flusher_fork_prepare): a sink stuck in a
 * write, on a stalled pipe or collector, must not make every fork() of the
 * application wait its drain timeout. */
#define FORK_WAIT_MS 100

void llog__flusher_after_fork(struct llog__flusher *f, struct llist_node *inherited)
{
	struct llist_node *pos, *next;
	int n = 0;

	/* Sinks added (llog_add_sink) but not yet installed by the flusher
	 * are in the list, which is the parent's otherwise. */
	llist_for_each_safe(pos, next, inherited) {
		struct llog__rec *r = llist_entry(pos, struct llog__rec, node);

		/* A removal in flight: its remover holds the control lock,
		 * which fork() takes, so none is (a fork from a sink callback
		 * aside); its record is the parent thread's, left alone. */
		if (r->kind == LLOG__K_SINK && !(r->flags & LLOG__SINK_REMOVE)) {
			llog__flusher_sinktab_install(&f->sinks, (struct llog__sink_rec *)(void *)r,
						      LLOG__SINKTAB_IN_FORK);
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
			f->sinks.sel[n] = f->sinks.sel[i];
			f->sinks.s[n++] = f->sinks.s[i];
			continue;
		}
		if (f->sinks.q[i] != NULL && ops->version >= 2 && ops->after_fork != NULL)
			llog__diag("sink %s was inside a call at fork() (its thread did not "
				   "return within %d ms): not used in this child",
				   llog__sinkq_name(f->sinks.q[i]), FORK_WAIT_MS);
		if (i == 0)
			f->sinks.fallback = 0; /* the fallback is s[0] or gone */
	}
	f->sinks.n = n;
	f->nwait = 0; /* the parent's barriers */
	/* The backtrace holds the parent's records: the parent writes them
	 * (or not), never the child. */
	if (f->bt != NULL)
		llog__backtrace_clear(f->bt);
}

/* The sinks' threads are held between two sink calls after the round:
 * the flusher does not change its table while held. A thread still inside
 * its sink after FORK_WAIT_MS (FORK_WAIT_MS above: all queues together)
 * leaves that sink out of the child. */
void llog__flusher_fork_prepare(struct llog__flusher *f)
{
	int64_t deadline;

	pthread_mutex_lock(&round_lock);
	deadline = llog__mono_ms() + FORK_WAIT_MS;
	for (int i = 0; f != NULL && i < f->sinks.n; i++)
		if (f->sinks.q[i] != NULL)
			llog__sinkq_fork_prepare(f->sinks.q[i], deadline);
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
	llog__flusher_running = NULL;
}
