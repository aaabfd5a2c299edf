/*
 * flusher_drain.c - the crash drain: what the flusher had not yet handed to
 * the sinks, written through their crash entry points when a crash is
 * reported (llog__flusher_crash_drain on an application thread,
 * llog__flusher_crash_drain_self on the flusher thread). See flusher.h for
 * the design.
 *
 * Reads where the flusher's round stands (flusher_state.h) and renders with
 * the rounds' helpers (flusher.c), which never call it. Called from crash.c,
 * which flusher.c calls in turn, by design (flusher.h).
 */
#include <stdint.h>

#include "arena.h"
#include "atomic.h"
#include "backtrace.h"
#include "buf.h"
#include "capture.h"
#include "clock.h"
#include "crash.h"
#include "flusher.h"
#include "flusher_state.h"
#include "levels.h"
#include "queue.h"
#include "render.h"
#include "sinkq.h"
#include "stats.h"

static int has_crash_ops(const struct llog_sink *s)
{
	return s->ops->version >= 2 && s->ops->crash_write != NULL &&
	       s->ops->crash_commit != NULL;
}

/*
 * Sinks isolated from each other: each crash entry point runs guarded
 * (llog__crash_guarded); a sink whose entry point faulted is skipped for
 * the rest of the drain (bit i of crash_faulted; the drain runs once per
 * process, on one thread) and named on stderr, and the other sinks go on.
 */
static uint32_t crash_faulted;
_Static_assert(LLOG__MAX_SINKS <= 32, "crash_faulted has a bit per sink");

struct crash_call {
	struct llog_sink *s;
	const struct llog_entry *e; /* NULL: crash_commit */
	int interrupted;
};

static long crash_call_fn(void *arg)
{
	struct crash_call *c = arg;

	if (c->e != NULL)
		return c->s->ops->crash_write(c->s, c->e, c->interrupted);
	return c->s->ops->crash_commit(c->s, c->interrupted);
}

/* Sink i's crash_write (e) or crash_commit (e NULL), guarded. */
static long crash_call(struct llog__flusher *f, int i, const struct llog_entry *e, int at)
{
	struct crash_call c = {f->sinks.s[i], e, i == at};
	long rc = llog__crash_guarded(crash_call_fn, &c);

	if (rc == LLOG__CRASH_FAULTED) {
		static const char msg[] = "llog: a sink faulted in its crash path; "
					  "skipped, the other sinks go on: sink ";
		char line[sizeof(msg) + 4];
		struct llog__buf b = LLOG__BUF(line, sizeof(line) - 1);

		crash_faulted |= 1u << i;
		llog__buf_puts(&b, msg);
		llog__buf_num(&b, (uint64_t)i, 10);
		line[b.n] = '\n';
		(void)llog__crash_stderr(line, b.n + 1);
	}
	return rc;
}

/* Hands e to the sinks from index `from` on, through their crash entry
 * points; `at` is the interrupted sink (or -1). Returns how many took it. */
static int crash_hand(struct llog__flusher *f, int from, const struct llog_entry *e, int at)
{
	int took = 0;

	for (int i = from; i < f->sinks.n; i++) {
		struct llog_sink *s = f->sinks.s[i];
		struct llog__sinkq *q = llog__flusher_queue_of(f, i);
		long rc;

		if (e->level < s->level || (q == NULL && !has_crash_ops(s)) ||
		    (crash_faulted >> i & 1) || !llog__catsel_match(&f->sinks.sel[i], e))
			continue;
		/* A sink on a thread of its own: its thread writes it. */
		rc = q != NULL ? llog__sinkq_crash_put(q, e) : crash_call(f, i, e, at);
		if (rc < 0 && q == NULL) /* a queue counts its drops itself */
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

	llog__flusher_bt_entry_out(d->f, e);
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

		if (r->kind == LLOG__K_SINK && (r->flags & LLOG__SINK_REMOVE))
			continue; /* not removed here: it gets the crash too */
		if (r->kind == LLOG__K_SINK) {
			/* Installed as the round would have: the records
			 * after it reach it too (appended: `at` stays valid). */
			llog__flusher_sinktab_install(&f->sinks, (struct llog__sink_rec *)(void *)r,
						      LLOG__SINKTAB_IN_CRASH);
			continue;
		}
		if (r->kind == LLOG__K_BARRIER && pos == &crash_barrier.rec.node)
			d->barrier_met = 1;
		if (r->kind != LLOG__K_LOG && r->kind != LLOG__K_TEXT && r->kind != LLOG__K_EXIT &&
		    r->kind != LLOG__K_NAME && r->kind != LLOG__K_CTX)
			continue; /* other barriers: their threads wait in vain */
		if (r->dropped != 0) {
			llog__flusher_notice_entry(f, r, r->dropped, note, &e);
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
			llog__flusher_keep_entry(f, r, &e);
			continue;
		}
		if (llog__backtrace_triggers(f->bt, llog__site_level(r->site)))
			llog__backtrace_emit(f->bt, crash_bt_out, d);
		llog__flusher_record_entry(f, r, f->crash_msg, &tmp, NULL, &e); /* no cache (fmt_cache.h) */
		took = crash_hand(f, 0, &e, at);
		/* e dies with this frame: no later entry at its address (a
		 * backtrace entry of the caller's) may match the capture. */
		llog__capture_clear();
		if (r == pushed)
			d->pushed_took = took;
		d->n++;
	}
}

/* Ends the drain: crash_commit of every sink that has it (the sinks' own
 * threads get queue_ms, all together). Returns whether one of them
 * committed. */
static int crash_commit_all(struct llog__flusher *f, int at, unsigned queue_ms)
{
	int64_t deadline = llog__mono_ms() + queue_ms;
	int committed = 0;

	f->epoch++;
	for (int i = 0; i < f->sinks.n; i++) {
		struct llog_sink *s = f->sinks.s[i];
		struct llog__sinkq *q = llog__flusher_queue_of(f, i);
		long rc;

		if (q != NULL) {
			committed |= llog__sinkq_crash_commit(q, f->epoch, deadline);
			continue;
		}
		if (!has_crash_ops(s) || (crash_faulted >> i & 1))
			continue;
		rc = crash_call(f, i, NULL, at);
		llog__count_commit(rc);
		committed |= rc >= 0;
	}
	return committed;
}

/* The record the flusher was handing out directly (flusher.c,
 * write_direct) as the entry the sinks after the faulting one get: with
 * the sequence number and time the sinks before it got, and its capture
 * beside it (capture.h). */
static const struct llog_entry *direct_entry(struct llog__flusher *f, struct llog_entry *e)
{
	const struct llog__capture_rec *cr = f->crash_cr;

	llog__flusher_record_entry(f, f->crash_direct, f->crash_msg, &f->tmp_plan, NULL, e);
	f->seq = cr->seq; /* taken already */
	e->seq = cr->seq;
	e->ts_ns = cr->ts_ns;
	return e;
}

/*
 * The run the flusher was gathering or handing out (flusher.c, "Runs"): each
 * of its records, rendered with the sequence number and time the run gave
 * it (and its capture beside it), to the sinks that had not taken it
 * (run.taken, capture.h): while gathering every sink; else the sinks after
 * the one being handed the run (s), and s the records after the `took` it
 * took, and that one too unless s is the sink that faulted (`at`: it faulted
 * in it). The sinks before s took the whole run. So each sink gets each
 * record once; the one it faulted in is lost for the interrupted sink
 * alone, as a record handed out singly is.
 */
static void crash_run(struct llog__flusher *f, int at, struct crash_drain *d)
{
	const struct llog__capture_run *run = &f->run;
	unsigned n = run->n, taken = run->taken;
	int s = (int)(taken >> 16) - 1; /* -1: gathering */
	unsigned took = taken & 0xffffu;
	struct llog_entry e;

	for (unsigned k = 0; k < n; k++) {
		const struct llog__capture_rec *cr = &run->cr[k];
		int from = s < 0 ? 0 : k > took || (k == took && s != at) ? s : s + 1;

		llog__flusher_record_entry(f, f->run_rec[k], f->crash_msg, &f->tmp_plan, NULL, &e);
		f->seq = cr->seq; /* taken already */
		e.seq = cr->seq;
		e.ts_ns = cr->ts_ns;
		(void)crash_hand(f, from, &e, at);
		llog__capture_clear(); /* e dies with this frame */
		d->n++;
	}
}

/*
 * In output order, to every sink with crash entry points: the run being
 * gathered or handed out (crash_run), the entry the
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
int llog__flusher_crash_drain_self(struct llog__rec *rec, unsigned queue_ms)
{
	struct llog__flusher *f = llog__flusher_running;
	struct crash_drain d = {0, 0, 0, llog__flusher_running, -1};
	const struct llog_entry *cur;
	struct llist_node *rest;
	struct llog_entry e;
	int at, took = 0, committed;

	if (f == NULL)
		return 0;
	crash_faulted = 0; /* this drain's (a fork child's is its own) */
	at = d.at = f->crash_sink;
	cur = f->crash_entry;
	if (cur == NULL && f->crash_direct != NULL)
		cur = direct_entry(f, &e);
	if (cur != NULL)
		crash_hand(f, at + 1, cur, at);
	llog__capture_clear();
	if (f->run.n > 0) /* not with cur: a run is handed out before any entry */
		crash_run(f, at, &d);
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
		/* no cache (fmt_cache.h) */
		llog__flusher_record_entry(f, rec, f->crash_msg, &f->tmp_plan, NULL, &e);
		took = crash_hand(f, 0, &e, at);
		d.n++;
	}
	committed = crash_commit_all(f, at, queue_ms);
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
