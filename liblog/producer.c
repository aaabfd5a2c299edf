/*
 * producer.c - llog__log, the hot path every LOG call takes.
 *
 * DESIGN
 * The macro has checked the level. Then, in five steps:
 *   1. the site's argument plan (parsed once per site, site.h);
 *   2. the thread's arena (made on its first LOG, arena.h);
 *   3. reserve header + captured arguments in the ring, under the overflow
 *      policy (BLOCK waits for the flusher, DROP counts and discards);
 *   4. copy the arguments raw (fmt.h), take the clock;
 *   5. push with one CAS (queue.h), waking the flusher only when it must
 *      (ERROR and above, ring past half full).
 * No lock, no malloc (after the thread's first LOG), no system call unless
 * the flusher must be woken or the ring is full under BLOCK.
 *
 * A typed call of a site whose record has a fixed shape (site.h, "Fixed
 * sites": decided at the site's first call) takes the fast path below
 * instead ("The fast path"): the same five steps for that case only, with
 * no plan, and log_core for everything else. Where the call's compile-time
 * signature is the plan's too, the call site's own code writes the record
 * (llog/detail.h, "The call site's own fast path"); what it hands back
 * comes here ("The call sites' own path" below).
 *
 * Off the hot path, each in one cold function of producer_cold.c
 * (producer_parts.h): a full ring under the overflow policy, a closed list
 * (no flusher: the record is written synchronously, sync.h; in a fork
 * child the first use restarts llog, control.h; from a sink callback on
 * the flusher: dropped), a record that cannot be logged (no arena,
 * re-entry from a signal handler, a LOG from a sink callback: counted; for
 * re-entry also shown as a notice before the thread's next record), the
 * list closed after capture, and LOG_FATAL's tail (flush, then abort),
 * written once. A full ring under DROP is counted here and shown as a
 * notice too.
 *
 * Re-entry: a signal handler that interrupts a LOG of its own thread finds
 * in_log set and drops its record; signal fences keep the arena's state
 * consistent at every point such a handler can see in_log == 0. *
 * llog__log_rl, a rate-limited site's emitted call (ratelimit.c), is
 * llog__log with 8 more bytes after the payload for its count and, for
 * the interval kinds, the limiter's decision time as the record's time.
 * A thread's NAME and CTX records take the same reserve and push as a LOG
 * (producer_thread.c; arena.h, "Thread name").
 *
 * Backtrace (backtrace.h): a call below the output level passed the
 * macro's check only because the backtrace's capture threshold is lower;
 * llog__backtrace_kept (one relaxed load and a compare) flags its record
 * LLOG__REC_BACKTRACE and it takes the same five steps. Such a record
 * never wakes the flusher for its level and never aborts (LOG_FATAL); one
 * that cannot be pushed (closed list, after the restart a fork child
 * makes at its first use, llog__producer_closed_list_bt; no arena, re-entry, a full ring
 * under DROP) is counted captured and discarded (llog__backtrace_count_lost),
 * with no drop notice and no synchronous line: it was never to be
 * written.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <string.h>

#include "arena.h"
#include "atomic.h"
#include "backtrace.h"
#include "config.h"
#include "fmt.h"
#include "fmt_slots.h"
#include "kv.h"
#include "levels.h"
#include "producer_parts.h"
#include "queue.h"
#include "sched_points.h"
#include "site.h"
#include "stats.h"

/*
 * Whether a call that passed its site's level check is kept for the
 * backtrace only: its level is at or above the site's capture threshold
 * and below its output level, both from one load of the site's cache
 * (levels.h), so always one generation's. With the backtrace off the two
 * are equal: never. A site of an older llog.h (no cache) compares with
 * the default output level (backtrace.h). Relaxed: as the macro's loads.
 */
static inline int site_bt_kept(const struct llog_site *site, int lv)
{
	unsigned w;

	if (!(site->level & LLOG__SITE_V2))
		return llog__backtrace_kept(lv);
	w = (unsigned)(__atomic_load_n(&site->lvl_cache, __ATOMIC_RELAXED) & 63u);
	return lv >= (int)(w >> 3) && lv < (int)(w & 7u);
}

/*
 * The bound of one record in a's ring: the configured one, or a quarter of
 * the ring when the ring was made under an earlier configuration with a
 * smaller arena (llog_init validates the bound against the arena size it
 * sets, but a thread keeps its ring across llog_shutdown and llog_init). A
 * record larger than the ring could never be reserved: BLOCK would wait for
 * ever. Relaxed: see config.h.
 */
static inline uint32_t record_bound(void)
{
	struct llog__own *o = llog__owner();
	uint32_t max = llog__load_relaxed(&llog__cfg.max_record_bytes);

	return __builtin_expect(max <= o->size / 4, 1) ? max : (o->size / 4) & ~7u;
}

/*
 * The bound of a call's fields: the record bound, but never so much that
 * the message (at most a quarter of the ring, record_bound), the fields
 * and a rate-limit count together exceed half the ring: reserving waits
 * (llog__producer_reserve_full) for twice a record's size, and a record
 * over half the ring finds no room at some ring offsets, so BLOCK would
 * wait for ever there.
 */
static inline uint32_t kv_bound(void)
{
	/* record_bound's clamp to a quarter of the ring never decides here:
	 * the ring's size is a power of two of at least 16 KiB (arena.c,
	 * config.c), so that quarter is a multiple of 8 and above room.
	 * Relaxed: see config.h. */
	uint32_t b = llog__load_relaxed(&llog__cfg.max_record_bytes);
	uint32_t room = llog__owner()->size / 4 - LLOG__REC_HDR - 16u;

	return b < room ? b : room;
}

/*
 * A call's arguments: the variadic call's va_list (llog__log and its
 * kin), or a typed call's 8-byte slots (llog__log_t, llog/detail.h
 * "Typed calls"; fmt.h). `typed` is passed beside as a constant, so that the
 * inlined hot path of each entry point reads only its own kind.
 */
struct call_args {
	va_list *ap;       /* variadic */
	const uint64_t *v; /* typed */
};

/* An EAGER plan (wide strings, %m, undefined positional formats...):
 * rendered now.
 * Never typed (llog__log_t sends such calls to llog__log). */
static struct llog__rec *capture_eager(struct llog__arena *a, const struct llog_site *site,
				       const struct llog__plan *plan, va_list ap, uint32_t budget,
				       uint32_t extra, int *trunc)
{
	char text[4096];
	struct llog__rec *r;
	size_t n = llog__fmt_format_va(text, budget < sizeof(text) ? budget : sizeof(text),
				       site->fmt, plan, ap, trunc);

	r = llog__producer_reserve(a, LLOG__REC_HDR + llog__producer_align8(n) + extra);
	if (r == NULL)
		return NULL;
	memcpy(llog__rec_payload(r), text, n);
	r->kind = LLOG__K_TEXT;
	r->len = (uint32_t)n;
	return r;
}

/* Slow capture paths: EAGER plans, and the exact two-pass capture used
 * when the ring cannot take a record of the maximum size right now. */
static struct llog__rec *capture_slow(struct llog__arena *a, const struct llog_site *site,
				      const struct llog__plan *plan, const struct call_args *ca,
				      uint32_t extra, int *trunc)
{
	uint32_t budget = record_bound();
	uint32_t slen[LLOG__PLAN_MAX_ARGS];
	struct llog__rec *r;
	size_t n;
	va_list ap2;

	if (ca->v != NULL) {
		n = llog__fmt_capture_measure_v(plan, ca->v, budget, slen, trunc);
	} else {
		if (plan->flags & LLOG__PLAN_EAGER)
			return capture_eager(a, site, plan, *ca->ap, budget, extra, trunc);
		va_copy(ap2, *ca->ap);
		n = llog__fmt_capture_measure(plan, ap2, budget, slen, trunc);
		va_end(ap2);
	}
	if (n == (size_t)-1) {
		/* Even the fixed part exceeds the budget: the message
		 * becomes the format text, marked truncated. */
		r = llog__producer_reserve(a, LLOG__REC_HDR + extra);
		if (r == NULL)
			return NULL;
		r->kind = LLOG__K_TEXT;
		r->len = 0;
		*trunc = 1;
		return r;
	}
	r = llog__producer_reserve(a, LLOG__REC_HDR + llog__producer_align8(n) + extra);
	if (r == NULL)
		return NULL;
	if (ca->v != NULL)
		llog__fmt_capture_write_v(plan, ca->v, slen, llog__rec_payload(r));
	else
		llog__fmt_capture_write(plan, *ca->ap, slen, llog__rec_payload(r));
	r->kind = LLOG__K_LOG;
	r->len = (uint32_t)n;
	return r;
}

/* The one-pass capture of the fast path, from the call's kind of
 * arguments. */
static inline __attribute__((always_inline)) size_t
capture_once(const struct llog__plan *plan, const struct call_args *ca, int typed, void *dst,
	     size_t cap, int *trunc)
{
	if (typed)
		return llog__fmt_capture_slots(plan, ca->v, dst, cap, trunc);
	return llog__fmt_capture_once(plan, *ca->ap, dst, cap, trunc);
}

/*
 * Steps 3 and 4: captures the call into a record of a's ring. Fast path,
 * one pass over the arguments: without strings the size is known from the
 * plan; with strings we reserve the maximum record, write, and give back
 * the unused end (the owner may, since nothing after it is reserved).
 * `extra` bytes (0, or 8 for a rate-limited site's count) are reserved
 * after the 8-aligned payload.
 */
static inline __attribute__((always_inline)) struct llog__rec *
capture(struct llog__arena *a, const struct llog_site *site, const struct llog__plan *plan,
	const struct call_args *ca, int typed, uint32_t extra)
{
	/* Relaxed: see config.h. A multiple of 8. Not clamped to the ring
	 * here: a plan without strings needs at most 512 bytes, and the
	 * reservation of `max` below does not wait; whatever must wait goes
	 * through capture_slow, which bounds the record by the ring. */
	uint32_t max = llog__load_relaxed(&llog__cfg.max_record_bytes);
	struct llog__rec *r;
	int trunc = 0;
	size_t n;

	/* (A typed call's plan is never EAGER: log_core checked.) */
	if (__builtin_expect((!typed && (plan->flags & LLOG__PLAN_EAGER)) || plan->fixed_bytes > max,
			     0)) {
		r = capture_slow(a, site, plan, ca, extra, &trunc);
		if (r == NULL)
			return NULL;
		n = r->len;
	} else if (!(plan->flags & LLOG__PLAN_HAS_STR)) {
		uint32_t bytes = LLOG__REC_HDR + llog__producer_align8(plan->fixed_bytes) + extra;

		r = llog__producer_reserve(a, bytes);
		if (r == NULL)
			return NULL;
		n = capture_once(plan, ca, typed, llog__rec_payload(r), plan->fixed_bytes, &trunc);
		r->kind = LLOG__K_LOG;
	} else if ((r = llog__arena_reserve(a, LLOG__REC_HDR + max + extra)) != NULL) {
		n = capture_once(plan, ca, typed, llog__rec_payload(r), max, &trunc);
		llog__arena_shrink(r, max - llog__producer_align8(n));
		r->kind = LLOG__K_LOG;
	} else {
		r = capture_slow(a, site, plan, ca, extra, &trunc);
		if (r == NULL)
			return NULL;
		n = r->len;
	}
	r->len = (uint32_t)n;
	r->flags = trunc ? LLOG__REC_TRUNCATED : 0;
	r->site = site;
	r->arena = a;
	return r;
}

/* levels.c parses and applies the spec; the change record is logged here,
 * where logging lives (the levels module calls nothing above it). */
int llog_set_levels(const char *spec)
{
	static struct llog_site site = {LLOG__LEVELS_CHANGED, __FILE__, "llog_set_levels",
					__LINE__, LLOG_INFO | LLOG__SITE_V2, 0, {0}, "llog", 0};
	char old[512], new[512];
	uint64_t g;
	int rc = llog__levels_apply(spec, old, new, sizeof(old), &g);

	if (rc != 0)
		return rc;
	/* The change marker, in this thread's stream (not filtered). */
	llog__log(&site, LLOG__LEVELS_CHANGED, (unsigned long long)g, old, new);
	return 0;
}

/*
 * The body of every LOG entry point. rl is NULL (constant: compiled out
 * of llog__log) or the rate limiter's pass (ratelimit.c): its count rides
 * after the payload (LLOG__REC_SUPPRESSED) and, for the interval kinds,
 * its decision time is the record's time, so the records' times are the
 * times the limiter compared. typed (a constant) says which of ca's kinds
 * of arguments the call has.
 *
 * Returns 0, or, for a typed call only, 1 before anything was done (no
 * record, no count, no state changed): the call must be made again through
 * llog__log (the macro does so). That is the case when the plan cannot be
 * captured from slots (EAGER: it is rendered now with vsnprintf; a long
 * double), when the call has fewer arguments than the format consumes
 * (undefined, as in printf: the va_list path reads what it reads), and
 * when the list is closed (the synchronous write and a fork child's
 * restart take a va_list).
 */
static inline __attribute__((always_inline)) int
log_core(struct llog_site *site, const struct call_args *ca, int typed, unsigned nslots,
	 const struct llog__rl_pass *rl, const struct llog__kv_site *ks,
	 const union llog__kv_val *kv)
{
	struct llog__own *o = llog__owner();
	uint32_t slen[LLOG_FIELDS_MAX], nkv = 0, kvbytes = 0;
	struct llog__plan tmp;
	const struct llog__plan *plan;
	struct llist_node *first;
	struct llist_head *h;
	struct llog__arena *a;
	struct llog__rec *r;
	uint32_t old_reserve, carried;
	int pushed, bt, lv = llog__site_level(site); /* once: stores below may alias */

	/* Not a level a record can have (LLOG_OFF, or outside TRACE..FATAL:
	 * the macro compiles such a constant out; a site made at run time,
	 * as C++ does for a static with a variable level, reaches here):
	 * never logged, never counted, never fatal (llog.h). */
	if (__builtin_expect((unsigned)lv > LLOG_FATAL, 0))
		return 0;
	bt = site_bt_kept(site, lv);         /* kept for the backtrace only */
	plan = llog__site_plan(site, &tmp);                            /* 1 */
	if (typed && __builtin_expect((plan->flags & (LLOG__PLAN_EAGER | LLOG__PLAN_LDBL)) ||
				      plan->nargs > nslots, 0))
		return 1;
	h = llog__queue_mine();
	first = llog__queue_peek(h);
	if (__builtin_expect(first == LLOG__CLOSED, 0)) {
		if (typed)
			return 1;
		if (bt) {
			if ((first = llog__producer_closed_list_bt(&h)) == LLOG__CLOSED)
				return 0;
		} else if ((first = llog__producer_closed_list(site, plan, *ca->ap, ks, kv, &h)) ==
			   LLOG__CLOSED) {
			if (lv >= LLOG_FATAL)
				llog__producer_fatal_abort(NULL);
			return 0;
		}
	}
	a = llog__arena_mine();                                        /* 2 */
	if (__builtin_expect(a == NULL, 0)) {
		a = llog__arena_get();
		/* The new arena gave the thread its head (arena.c): all its
		 * records of this session go on one head, so the flusher sees
		 * its exit marker after them whatever the clock (queue.h). A
		 * CLOSED head now fails the push below
		 * (llog__producer_closed_after_capture). */
		h = llog__queue_mine();
		first = llog__queue_peek(h);
	}
	if (__builtin_expect(a == NULL || o->in_log, 0)) {
		if (bt)
			llog__backtrace_count_lost();
		else
			llog__producer_not_logged(site, a);
		return 0;
	}
	o->in_log = 1;
	/* A signal handler of this thread that sees in_log == 0 must find
	 * the arena consistent: no arena access moves across the in_log
	 * stores (a handler's record could then be overwritten). */
	llog__producer_signal_fence();
	if (__builtin_expect(o->ctx_dirty, 0) && llog__producer_ctx_resend(a) != 0) {
		r = NULL;
		goto dropped;
	}
	if (ks != NULL)
		kvbytes = llog__kv_call_measure(ks, kv, kv_bound(), slen, &nkv);
	old_reserve = o->reserve;
	r = capture(a, site, plan, ca, typed, (rl != NULL ? 8u : 0u) + kvbytes); /* 3, 4 */
	if (r != NULL && (rl != NULL || ks != NULL)) {
		char *tail = (char *)llog__rec_payload(r) + llog__producer_align8(r->len);

		if (rl != NULL) {
			memcpy(tail, &rl->suppressed, sizeof(rl->suppressed));
			r->flags |= LLOG__REC_SUPPRESSED;
			tail += 8;
		}
		if (ks != NULL) {
			llog__kv_call_write(ks, kv, slen, nkv, tail);
			r->flags |= LLOG__REC_FIELDS;
		}
	}
dropped:
	if (__builtin_expect(r == NULL, 0)) {
		if (bt) {
			llog__backtrace_count_lost();
			goto out;
		}
		(void)llog__fetch_add_relaxed(llog__producer_pending_drops(), 1u);
		llog__count_dropped();
		goto out;
	}
	if (bt)
		r->flags |= LLOG__REC_BACKTRACE;
	/* The drops this record announces: read after its whole payload
	 * (message, rate-limit count, fields), as the fast path reads them
	 * (fast_push); a drop counted later stays for the next record.
	 * Relaxed: see arena.h. */
	r->dropped = llog__load_relaxed(llog__producer_pending_drops());
	carried = r->dropped;                                          /* 5 */
	if (rl != NULL && rl->ts != 0)
		pushed = llog__push_from_at(r, h, first, rl->ts);
	else
		pushed = llog__push_from(r, h, first);
	if (__builtin_expect(pushed == 0, 1)) {
		/* Only what the record carries: a handler's drop counted
		 * after the record read the count stays for the next one. */
		if (__builtin_expect(carried != 0, 0))
			(void)llog__fetch_add_relaxed(llog__producer_pending_drops(),
						      (uint32_t)0 - carried);
		if (__builtin_expect(lv >= LLOG_ERROR, 0) && !bt)
			llog__wake_flusher();
		else
			llog__arena_check_fill(a);
	} else if (bt) {
		llog__arena_unreserve(old_reserve);
		llog__backtrace_count_lost();
	} else {
		llog__producer_closed_after_capture(r, old_reserve);
	}
out:
	if (__builtin_expect(lv >= LLOG_FATAL, 0) && !bt)
		llog__producer_fatal_abort(a);
	llog__producer_signal_fence();
	o->in_log = 0;
	return 0;
}

/*
 * The call of a variadic entry point: its va_list, started by the entry
 * point (only the function with the `...` may) and ended by it after.
 */
static inline __attribute__((always_inline)) void
log_va(struct llog_site *site, va_list *ap, const struct llog__rl_pass *rl,
       const struct llog__kv_site *ks, const union llog__kv_val *kv)
{
	struct call_args ca = {ap, NULL};

	(void)log_core(site, &ca, 0, 0, rl, ks, kv);
}

void llog__log(struct llog_site *site, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt); /* fmt: the site holds the same literal */
	log_va(site, &ap, NULL, NULL, NULL);
	va_end(ap);
}

/*
 * The fast path: a typed call of a FAST site (site.h, "Fixed sites") whose
 * thread has nothing to do first. One relaxed load of the site's state
 * gives the record's shape and level; then two go-slow words, each one
 * load and one test (arena.h, "The go-slow word"): the thread's (its
 * arena's busy word: no arena yet, re-entry, a context to resend or being
 * rewritten) and the process's (llog__queue_slow, on the head's line: a
 * clock other than the plain TSC, the backtrace on; then fast_any takes the site's backtrace
 * verdict and the same path with the clock by its mode). Then in_log, the
 * reservation in one compare with stop (and the context word again: a
 * signal handler may have run since the test), the slots stored by the
 * shape (a call without arguments: shape 0, a constant; strings with
 * strnlen and llog__fast_copy), the header, the head (not CLOSED;
 * shard[0] when the clock mode is the plain TSC, which it is only on a
 * queue of one head: fast_head), the drops to report (read after the payload, as
 * log_core reads them), the push and the fill check (one compare with
 * wake, arena.h "Stop and wake"): log_core's steps for this case, without
 * the plan, the overflow policy or anything rare.
 * Whatever it does not handle it leaves before changing anything, to
 * log_core from its start (log_t_slow): no arena, a busy word, a record
 * kept for the backtrace only, a closed list, a NULL string, strings that
 * would be clipped, a ring without room now (the overflow policy is
 * log_core's; a record without strings that would cross the ring's end,
 * once a lap, too). A list closed between the peek and the push is
 * log_core's case after capture (llog__producer_closed_after_capture).
 * Its records are byte for byte log_core's for the same call: the same
 * slots in the same layout (fmt_slots.h).
 *
 * Without strings and with the plain TSC, the path is one leaf function
 * (llog__log_t with fast_fixed inlined): no call is made before the push,
 * whatever is rare (a failed CAS, a retry, the list closed after capture,
 * another clock mode, the wake-up) is a tail call out of line, and each
 * call after the push is the last step (the flusher is woken after in_log
 * is cleared), so it saves no register. With strings (fast_str), the room
 * for the largest record is placed (past the limit, llog__arena_room looks
 * at the flusher's progress, as log_core's reservation does), written in
 * one pass and shrunk to the exact size; a ring without that room now, or
 * with it only across its end, takes the two-pass fast_str_exact, whose
 * record is the same. A call with fields (fast_kv) does the same.
 *
 * When the fast path gives a call to log_core, its count of slots is
 * LLOG__SHAPE_MAX_ARGS where the call's is not at hand: the site's verdict
 * checked that its plan consumes no more than its calls pass, and log_core
 * reads no more than the plan consumes.
 *
 * The call sites' own path (llog/detail.h, llog__fast_call) is these steps
 * again, inlined in the caller and specialized for the call's signature
 * (LLOG__SITE_INLINE, site.h): the same checks in the same order, the same
 * bytes, the same schedule points (FAST_ENTER once a call: a string longer
 * than it writes is handed to fast_str past its entry, LLOG__SIG_ENTERED).
 * It calls out only for what is rare, each time into this file and onto
 * the path it would have taken here: llog__log_ts before anything (the
 * first call, a go-slow word, a NULL string), llog__log_tx after in_log
 * (no room below stop, a context to resend, a CLOSED head: log_t_slow, as
 * fast_fixed), llog__fast_retry (a failed CAS: fast_push_retry) and
 * llog__fast_after (drops to take off, the ring past wake: fast_pushed).
 */
static int log_t_slow(struct llog_site *site, const uint64_t *v, unsigned n)
	__attribute__((noinline));

/* The schedule point FAST_ENTER (sched_points.h), where a call passed the
 * fast path's entry checks; once a call: not again for one that the call
 * site's own path hands over past that point (llog__log_ts with
 * LLOG__SIG_ENTERED). Test builds only. */
#ifdef LLOG_TEST_SCHED
static __thread int site_entered;
#define FAST_SCHED_ENTER()                                                    \
	do {                                                                  \
		if (site_entered)                                             \
			site_entered = 0;                                     \
		else                                                          \
			LLOG__SCHED(FAST_ENTER);                              \
	} while (0)
#define SITE_ENTERED(sig) (site_entered = ((sig) & LLOG__SIG_ENTERED) != 0)
#else
#define FAST_SCHED_ENTER() ((void)0)
#define SITE_ENTERED(sig) ((void)(sig))
#endif

/* The list closed after the fast path's capture: as log_core. */
static __attribute__((noinline, cold)) int fast_closed(struct llog__rec *r, uint32_t old_reserve)
{
	llog__producer_closed_after_capture(r, old_reserve);
	llog__producer_signal_fence();
	llog__owner()->in_log = 0;
	return 0;
}

/* The head a fast call pushes on: shard[0] when plain (the clock mode is
 * the plain TSC, which it is only on a queue of one head: clock.h), else
 * the thread's (llog__queue_mine). A mode read stale pairs an open head
 * with shard[0], as a stale head_mask does (queue.h). */
static inline __attribute__((always_inline)) struct llist_head *fast_head(int plain)
{
	return plain ? &llog__q.shard[0].head : llog__queue_mine();
}

/* fast_pushed past wake (arena.h, "Stop and wake"): the fill check on a
 * fresh view, in_log cleared and, when the fill asks for it, the wake-up.
 * Out of line: the every-call path keeps one compare and no saved
 * register. */
static __attribute__((noinline, cold)) int fast_fill(struct llog__arena *a, uint32_t reserve)
{
	int wake = llog__arena_fill_wants_wake_at(a, reserve);

	llog__producer_signal_fence();
	llog__owner()->in_log = 0;
	if (wake)
		return llog__wake_flusher_last();
	return 0;
}

/* After the push: the drops the record carried taken off the count (only
 * those: a handler's drop counted after the read stays for the next
 * record, as in log_core), the fill check, in_log cleared and, when the
 * fill asks for it, the wake-up (below ERROR: no wake-up for the level).
 * Every call is the caller's last step. */
static inline __attribute__((always_inline)) int fast_pushed(struct llog__arena *a,
							     uint32_t carried, uint32_t reserve)
{
	struct llog__own *o = llog__owner();

	if (__builtin_expect(carried != 0, 0))
		(void)llog__fetch_add_relaxed(llog__producer_pending_drops(), (uint32_t)0 - carried);
	/* on the reserve position the caller holds (nothing moved it); past
	 * half full as llog__arena_fill_wants_wake_at's test */
	if (__builtin_expect((int32_t)(reserve - o->wake) > 0, 0))
		return fast_fill(a, reserve);
	llog__producer_signal_fence();
	o->in_log = 0;
	return 0;
}

/* A failed CAS: the list closed since the peek, or another push came
 * first. A retry reads the clock as llog__push_from does, by the mode in
 * force (the list may have been reopened sharded since, whose pushes read
 * the clock ordered). Out of line: the fast path makes no call before its
 * CAS, so it needs few registers. */
static __attribute__((noinline)) int fast_push_retry(struct llog__arena *a, struct llog__rec *r,
						     struct llist_head *h,
						     struct llist_node *first,
						     uint32_t old_reserve, uint32_t carried)
{
	uint32_t reserve = r->end;

	for (;;) {
		if (__builtin_expect(first == LLOG__CLOSED, 0))
			return fast_closed(r, old_reserve);
		r->ts = llog__clock_push();
		/* Release CAS (llist.h): publishes the header and payload. */
		if (__builtin_expect(llist_try_add(&r->node, h, &first), 1))
			return fast_pushed(a, carried, reserve);
	}
}

/* After the header and payload: the push (llog__push_from; the TSC read
 * inline when plain, a constant), then fast_pushed. first is not CLOSED
 * (the caller's peek); reserve is r->end, the reserve position after r.
 * Every call is the caller's last step. */
static inline __attribute__((always_inline)) int
fast_push(struct llog__arena *a, struct llog__rec *r, struct llist_head *h,
	  struct llist_node *first, uint32_t old_reserve, uint32_t reserve, int plain)
{
	/* As log_core: the drops the record carries are read after its
	 * payload (a signal handler's drop counted while this call captured
	 * is announced before this record); relaxed, see arena.h. */
	uint32_t carried;

	/* The ring's lines ahead, as the call sites' own path asks for them
	 * (llog/detail.h, LLOG__FAST_PREFETCHW). Relaxed: set by llog_init
	 * before any thread logs. */
	if (__builtin_expect(llog__load_relaxed(&llog__cfg.prefetchw), 1)) {
		LLOG__PREFETCHW((const char *)r + LLOG__FAST_AHEAD);
		LLOG__PREFETCHW((const char *)r + LLOG__FAST_AHEAD + 64);
	}
	LLOG__SCHED(FAST_PUSH);
	carried = llog__load_relaxed(llog__producer_pending_drops());
	r->dropped = carried;
	r->ts = plain ? llog__clock_push_tsc() : llog__clock_push();
	/* Release CAS (llist.h): publishes the header and payload. */
	if (__builtin_expect(!llist_try_add(&r->node, h, &first), 0))
		return fast_push_retry(a, r, h, first, old_reserve, carried);
	return fast_pushed(a, carried, reserve);
}

/* Sets in_log and places `bytes` at a's reserve position (as
 * llog__arena_reserve: past the limit, llog__arena_room looks at the
 * flusher's progress): the record, or NULL with in_log cleared again and
 * nothing changed but that view. *old and *total: the reserve position
 * before, and the bytes the reservation takes (a skipped tail included);
 * the owner's reserve is not moved (the caller does). */
static inline __attribute__((always_inline)) struct llog__rec *
fast_place(struct llog__arena *a, uint32_t bytes, uint32_t *old, uint32_t *total)
{
	struct llog__own *o = llog__owner();
	uint32_t off, tail;

	FAST_SCHED_ENTER();
	o->in_log = 1;
	/* As in log_core: a signal handler that sees in_log == 0 finds the
	 * arena consistent. */
	llog__producer_signal_fence();
	*old = o->reserve;
	off = *old & o->mask;
	tail = o->size - off;
	*total = bytes > tail ? bytes + tail : bytes;
	/* ctx_dirty again, now that no handler runs a LOG of ours: one that
	 * ran after the entry's test may have had its CTX record dropped
	 * (log_core reads it only here) */
	if (__builtin_expect((*total > o->limit - *old && !llog__arena_room(a, *total)) ||
				     o->ctx_dirty,
			     0)) {
		llog__producer_signal_fence();
		o->in_log = 0;
		return NULL;
	}
	return (struct llog__rec *)(void *)(a->ring + (bytes > tail ? 0 : off));
}

/* Sets in_log and takes `bytes` at a's reserve position when they fit
 * both before the ring's end and below its limit: the record, reserve
 * moved past it and r->end set; else NULL, in_log cleared again and
 * nothing changed. *old: the reserve position before. A record that would
 * cross the ring's end is log_core's (once a lap): fast_place's skipped
 * tail costs the every-call path a select and a second compare. */
static inline __attribute__((always_inline)) struct llog__rec *
fast_take(struct llog__arena *a, uint32_t bytes, uint32_t *old)
{
	struct llog__own *o = llog__owner();
	uint32_t off;
	struct llog__rec *r;

	FAST_SCHED_ENTER();
	o->in_log = 1;
	/* As in log_core: a signal handler that sees in_log == 0 finds the
	 * arena consistent. */
	llog__producer_signal_fence();
	*old = o->reserve;
	/* ctx_dirty again: see fast_place. One compare for the room: stop is
	 * min(limit, the lap's end) (arena.h, "Stop and wake"). */
	if (__builtin_expect(bytes > o->stop - *old || o->ctx_dirty, 0)) {
		llog__producer_signal_fence();
		o->in_log = 0;
		return NULL;
	}
	off = *old & o->mask;
	r = (struct llog__rec *)(void *)(a->ring + off);
	o->reserve = *old + bytes;
	r->end = *old + bytes;
	return r;
}

/* Sets in_log and places the largest record of a call, `bytes`, at a's
 * reserve position when it fits before the ring's end and below its limit
 * (past the limit, llog__arena_room looks at the flusher's progress, as
 * llog__arena_reserve does): the record, r->end the largest record's
 * end, the owner's reserve not moved (the caller takes the exact size, nothing
 * moves reserve while in_log is set); else NULL, in_log cleared again and
 * nothing changed but that view. A placement that would cross the ring's
 * end is the caller's two-pass path's (fast_place's skipped tail costs
 * every call a select and a compare). */
static inline __attribute__((always_inline)) struct llog__rec *
fast_place_max(struct llog__arena *a, uint32_t bytes)
{
	struct llog__own *o = llog__owner();
	uint32_t old, off;
	struct llog__rec *r;

	FAST_SCHED_ENTER();
	o->in_log = 1;
	/* As in log_core: a signal handler that sees in_log == 0 finds the
	 * arena consistent. */
	llog__producer_signal_fence();
	old = o->reserve;
	off = old & o->mask;
	/* ctx_dirty again: see fast_place. Past stop (arena.h, "Stop and
	 * wake"), llog__arena_room takes a fresh view and sets stop again. */
	if (__builtin_expect((bytes > o->stop - old &&
			      (!llog__arena_room(a, bytes) || bytes > o->stop - old)) ||
				     o->ctx_dirty,
			     0)) {
		llog__producer_signal_fence();
		o->in_log = 0;
		return NULL;
	}
	r = (struct llog__rec *)(void *)(a->ring + off);
	r->end = old + bytes;
	return r;
}

/* Undoes fast_take (a CLOSED head seen after it): the reservation given
 * back and in_log cleared, as if nothing had been done (nothing was
 * pushed; the ring's bytes past reserve are free). */
static inline __attribute__((always_inline)) void fast_untake(uint32_t old)
{
	llog__arena_unreserve(old);
	llog__producer_signal_fence();
	llog__owner()->in_log = 0;
}

/* The header of a fast record of n payload bytes (its drops: fast_push;
 * its arena: the caller, after the slots where it can: the header's two
 * pointers stored apart are two moves, together a vector's four). */
static inline __attribute__((always_inline)) void fast_header(struct llog__rec *r,
							      struct llog_site *site, uint32_t n)
{
	r->len = n;
	r->kind = LLOG__K_LOG;
	r->flags = 0;
	r->site = site;
	/* (the store stays one move: not merged with the arena's into a
	 * vector's four, where no slot comes between them) */
	__asm__("" : "+m"(r->site));
}

/* Stores the slot *q at d as its shape code (the low 2 bits of args, a
 * value's: INT or WIDE) says: an int's 4 bytes or all 8; returns the
 * end. */
static inline __attribute__((always_inline)) unsigned char *fast_slot(unsigned char *d,
								       unsigned args,
								       const uint64_t *q)
{
	uint32_t w = (uint32_t)*q;

	if (args & LLOG__SHAPE_WIDE_BIT) {
		memcpy(d, q, 8);
		return d + 8;
	}
	memcpy(d, &w, 4);
	return d + 4;
}

/* A FAST site without strings: the record's size is the shape's. plain
 * (a constant): the clock mode is the plain TSC (fast_head). */
static inline __attribute__((always_inline)) int
fast_fixed(struct llog_site *site, const uint64_t *v, unsigned s, struct llog__arena *a,
	   int plain)
{
	uint32_t n = LLOG__SHAPE_FIXED(s), bytes = LLOG__REC_HDR + llog__producer_align8(n), old;
	const uint64_t *q = v; /* v stays the first slot: log_core may read them all */
	struct llist_node *first;
	struct llist_head *h;
	struct llog__rec *r;
	unsigned char *d;

	r = fast_take(a, bytes, &old);
	if (__builtin_expect(r == NULL, 0))
		return log_t_slow(site, v, LLOG__SHAPE_MAX_ARGS);
	fast_header(r, site, n);
	d = llog__rec_payload(r);
	for (unsigned args = LLOG__SHAPE_ARGS(s); args != 0; args >>= 2, q++)
		d = fast_slot(d, args, q);
	r->arena = a;
	/* The head, peeked last: one register fewer while placing. */
	h = fast_head(plain);
	first = llog__queue_peek(h);
	if (__builtin_expect(first == LLOG__CLOSED, 0)) {
		fast_untake(old);
		LLOG__SCHED(FAST_CLOSED);
		return log_t_slow(site, v, LLOG__SHAPE_MAX_ARGS);
	}
	return fast_push(a, r, h, first, old, old + bytes, plain);
}

/* fast_str where the ring has no room for the largest record now (a
 * ring near full) or has it only across its end: the strings measured
 * first, then the record placed at
 * its exact size and written (as log_core's two-pass capture_slow, whose
 * records are the same). */
static __attribute__((noinline, cold)) int fast_str_exact(struct llog_site *site,
							  const uint64_t *v, unsigned s,
							  struct llog__arena *a)
{
	/* Relaxed: see config.h. */
	uint32_t room = llog__load_relaxed(&llog__cfg.max_record_bytes) - LLOG__SHAPE_FIXED(s);
	uint32_t len[LLOG__SHAPE_MAX_ARGS], used = LLOG__SHAPE_FIXED(s), old, total;
	struct llist_head *h = llog__queue_mine();
	struct llist_node *first = llog__queue_peek(h);
	const uint64_t *q = v;
	struct llog__rec *r;
	unsigned char *d;
	unsigned i = 0;

	if (__builtin_expect(first == LLOG__CLOSED, 0))
		return log_t_slow(site, v, LLOG__SHAPE_MAX_ARGS);
	for (unsigned args = LLOG__SHAPE_ARGS(s); args != 0; args >>= 2, q++, i++) {
		const char *p = (const char *)(uintptr_t)*q;

		if (args & LLOG__SHAPE_VALUE_BIT)
			continue;
		if (p == NULL)
			return log_t_slow(site, v, LLOG__SHAPE_MAX_ARGS);
		len[i] = (uint32_t)strnlen(p, (size_t)room + 1);
		if (len[i] > room)
			return log_t_slow(site, v, LLOG__SHAPE_MAX_ARGS);
		room -= len[i];
		used += len[i];
	}
	r = fast_place(a, LLOG__REC_HDR + llog__producer_align8(used), &old, &total);
	if (r == NULL)
		return log_t_slow(site, v, LLOG__SHAPE_MAX_ARGS);
	llog__owner()->reserve = old + total;
	r->end = old + total;
	llog__arena_restop(); /* reserve may have entered a new lap */
	fast_header(r, site, used);
	d = llog__rec_payload(r);
	q = v;
	i = 0;
	for (unsigned args = LLOG__SHAPE_ARGS(s); args != 0; args >>= 2, q++, i++) {
		if (args & LLOG__SHAPE_VALUE_BIT) {
			d = fast_slot(d, args, q);
		} else {
			memcpy(d, &len[i], 4);
			d = mempcpy(d + 4, (const char *)(uintptr_t)*q, len[i]);
		}
	}
	r->arena = a;
	return fast_push(a, r, h, first, old, old + total, 0);
}

/* A FAST site with strings, in one pass: the room for the largest record
 * (the shape's bytes and every string up to the record's bound) is placed
 * first, the header, slots and strings are written into it, and only then
 * is the reservation taken, at its exact size (as log_core's reservation
 * and shrink). A NULL string or one that would be clipped leaves the call
 * to log_core, nothing taken; so does a closed head, which is peeked only
 * after the strings. Fewer values stay live across the strings' calls:
 * what the push needs after them is read back from the header (arena, the
 * largest record's end) and the arena (reserve, which nothing moves while
 * in_log is set). */
static __attribute__((noinline)) int fast_str(struct llog__arena *a, const uint64_t *v,
					      struct llog_site *site, unsigned s, int plain)
{
	struct llog__own *o = llog__owner();
	const unsigned n = LLOG__SHAPE_MAX_ARGS;
	/* Relaxed: see config.h. A multiple of 8. */
	uint32_t max = llog__load_relaxed(&llog__cfg.max_record_bytes);
	uint32_t fixed = LLOG__SHAPE_FIXED(s), room, old, end;
	const uint64_t *q = v;
	struct llist_node *first;
	struct llist_head *h;
	struct llog__rec *r;
	unsigned char *d;

	/* (fixed, at most 127, is below max, at least 256: config.c) */
	if (__builtin_expect((r = fast_place_max(a, LLOG__REC_HDR + max)) == NULL, 0))
		return fast_str_exact(site, v, s, a);
	fast_header(r, site, 0);
	r->arena = a;
	room = max - fixed; /* for the strings' bytes */
	d = llog__rec_payload(r);
	for (unsigned args = LLOG__SHAPE_ARGS(s); args != 0; args >>= 2, q++) {
		if (args & LLOG__SHAPE_VALUE_BIT) {
			d = fast_slot(d, args, q);
		} else {
			const char *p = (const char *)(uintptr_t)*q;
			uint32_t len;

			if (__builtin_expect(p == NULL, 0))
				goto slow;
			len = (uint32_t)strnlen(p, (size_t)room + 1);
			if (__builtin_expect(len > room, 0))
				goto slow;
			room -= len;
			memcpy(d, &len, 4);
			d = llog__fast_copy(d + 4, p, len);
		}
	}
	a = r->arena;
	r->len = (uint32_t)(d - (unsigned char *)r) - LLOG__REC_HDR;
	/* The reservation, less the unused end (room: max less the bytes
	 * used; max is a multiple of 8, so is what is given back), as
	 * llog__arena_shrink. */
	old = o->reserve;
	end = r->end - (room & ~7u);
	h = fast_head(plain);
	first = llog__queue_peek(h);
	if (__builtin_expect(first == LLOG__CLOSED, 0))
		goto slow;
	o->reserve = end;
	r->end = end;
	if (__builtin_expect(plain, 1))
		return fast_push(a, r, h, first, old, end, 1);
	return fast_push(a, r, h, first, old, end, 0);
slow:
	/* (the site from the header: one value fewer kept across the calls) */
	site = (struct llog_site *)(uintptr_t)r->site;
	llog__producer_signal_fence();
	o->in_log = 0;
	return log_t_slow(site, v, n);
}

/* The fast path's entry: whether site's call, of state word s, may take
 * it on the thread's arena: its verdict FAST and the thread's go-slow
 * word zero (arena.h, "The go-slow
 * word": an arena made, no re-entry, no context to resend or being
 * rewritten; ctx_dirty is read again once in_log is set, fast_take).
 * Drops to report ride in the record as in log_core (fast_push). The
 * process's word (llog__queue_slow) is the caller's next test. */
static inline __attribute__((always_inline)) int fast_enter(unsigned s)
{
	return __builtin_expect((s & LLOG__SITE_FAST) && llog__owner()->busy == 0, 1);
}

/* Whether a call of a FAST site, of state word s, is kept for the
 * backtrace only (below the output level of the site's cache, which the
 * macro's check has just read or made; relaxed as there): log_core flags
 * it. The level is the state's bits 5-7, above the flags, so the low byte
 * compares as the level (site.h, LLOG__SHAPE_LEVEL). */
static inline int fast_bt_kept(const struct llog_site *site, unsigned s)
{
	return (s & 0xffu) <
	       (unsigned)(__atomic_load_n(&site->lvl_cache, __ATOMIC_RELAXED) & 7u) << 5;
}

/* The fast path where the process's go-slow word is not zero: the backtrace on (a
 * call kept for it only is log_core's) or a clock other than the plain
 * TSC (a sharded queue, CLOCK_REALTIME). */
static __attribute__((noinline)) int fast_any(struct llog_site *site, const uint64_t *v,
					      unsigned n, unsigned s, struct llog__arena *a)
{
	if (fast_bt_kept(site, s))
		return log_t_slow(site, v, n);
	if (s & LLOG__SHAPE_HAS_STR)
		return fast_str(a, v, site, s, 0);
	return fast_fixed(site, v, s, a, 0);
}

/* A typed call (llog/detail.h "Typed calls"): the arguments in n slots.
 * The first call of a site (log_core) decides its shape (site.h, "Fixed
 * sites"); from then on its calls take the fast path when they can: one
 * test of the thread's go-slow word, one of the process's. A call without
 * arguments has the shape 0 (no slot, no string: its plan consumes none),
 * a constant: its record is the header alone. */
static inline __attribute__((always_inline)) int log_t_body(struct llog_site *site,
							     const uint64_t *v, unsigned n)
{
	/* Relaxed: the shape is in the word itself; no plan is read. */
	unsigned s = (unsigned)llog__load_relaxed((_Atomic int *)&site->state);
	struct llog__arena *a;

	if (!fast_enter(s))
		return log_t_slow(site, v, n);
	/* The arena after the go-slow word says there is one: a signal
	 * handler that makes it between two loads in the other order would
	 * leave NULL beside a zero word (the fence keeps the compiler from
	 * reordering them; the handler runs on this thread). */
	llog__producer_signal_fence();
	a = llog__owner()->arena;
	if (__builtin_expect(llog__queue_slow() != 0, 0))
		return fast_any(site, v, n, s, a);
	if (n == 0)
		return fast_fixed(site, v, 0, a, 1);
	if (s & LLOG__SHAPE_HAS_STR)
		return fast_str(a, v, site, s, 1);
	return fast_fixed(site, v, s, a, 1);
}

int llog__log_t(struct llog_site *site, const uint64_t *v, unsigned n)
{
	return log_t_body(site, v, n);
}

/* llog__log_t for a call without arguments: 0, the variadic call made
 * by log_t_slow where the typed path cannot take it (llog/detail.h,
 * "Typed calls"), so the macro's call is the one call, with no result to
 * test. */
int llog__log_t0(struct llog_site *site)
{
	return log_t_body(site, NULL, 0);
}

/* The first call of a site, taken by log_core (rc 0), decides its verdict
 * (site.h, "Fixed sites"). Relaxed CAS: the word carries all the fast path
 * reads, and as a read-modify-write it continues the release sequence of
 * the READY store, so a reader's acquire load that sees it still sees the
 * plan (site.h). A lost race changes nothing: every first call stores the
 * same word. */
static void site_verdict(struct llog_site *site, unsigned n, unsigned sig)
{
	_Atomic int *state = (_Atomic int *)&site->state;
	int s = LLOG__SITE_READY;
	const struct llog__plan *plan;

	/* Acquire: the plan read below is published by the READY store
	 * (this call's plan may have been a private copy, site.h). */
	if (llog__load_acquire(state) == LLOG__SITE_READY && (site->level & LLOG__SITE_V2)) {
		plan = llog__site_published(site);
		/* Relaxed: see config.h. */
		if (llog__load_relaxed(&llog__cfg.no_inline))
			sig = 0; /* the library's fast path only */
		(void)llog__cas_strong_relaxed(
			state, &s,
			(int)llog__site_inline(llog__site_shape(plan, n, llog__site_level(site)),
					       plan, n, sig));
	}
}

/* The variadic path of a typed call without arguments that log_core
 * handed back (log_t_slow, kv_t_slow): what the macro's call of llog__log
 * or llog__log_kv would do (the va_list is empty; the format is the
 * site's). Returns 0. */
static __attribute__((noinline)) int log_untyped0(struct llog_site *site,
						  const struct llog__kv_site *ks,
						  const union llog__kv_val *kv, ...)
{
	va_list ap;

	va_start(ap, kv);
	log_va(site, &ap, NULL, ks, kv);
	va_end(ap);
	return 0;
}

/* log_core for a typed call; after the site's first call, its verdict.
 * A call without arguments (v NULL: the macros pass no slots then) that
 * log_core hands back is made here through the variadic path, and 0
 * returned: what the caller's llog__log would do (llog__log_t0). */
static int log_t_slow(struct llog_site *site, const uint64_t *v, unsigned n)
{
	struct call_args ca = {NULL, v};
	int rc = log_core(site, &ca, 1, n, NULL, NULL, NULL);

	if (rc == 0)
		site_verdict(site, n, 0);
	else if (v == NULL)
		rc = log_untyped0(site, NULL, NULL);
	return rc;
}

/*
 * The call sites' own path (llog/detail.h, "The call site's own fast
 * path"): its hand-backs and its rare ends. The site's records are those
 * of the fast path above for the same shape: the same header (checked
 * here against the header's copy) and slots.
 */
_Static_assert(offsetof(struct llog__rec, node) == offsetof(struct llog__fast_rec, next) &&
		       offsetof(struct llog__rec, site) == offsetof(struct llog__fast_rec, site) &&
		       offsetof(struct llog__rec, arena) == offsetof(struct llog__fast_rec, arena) &&
		       offsetof(struct llog__rec, ts) == offsetof(struct llog__fast_rec, ts) &&
		       offsetof(struct llog__rec, end) == offsetof(struct llog__fast_rec, end) &&
		       offsetof(struct llog__rec, len) == offsetof(struct llog__fast_rec, len) &&
		       offsetof(struct llog__rec, dropped) == offsetof(struct llog__fast_rec, dropped) &&
		       offsetof(struct llog__rec, kind) == offsetof(struct llog__fast_rec, kind) &&
		       offsetof(struct llog__rec, flags) == offsetof(struct llog__fast_rec, flags) &&
		       LLOG__REC_HDR == LLOG__FAST_REC_HDR && LLOG__K_LOG == LLOG__FAST_K_LOG &&
		       LLOG__REC_FIELDS == LLOG__FAST_REC_FIELDS &&
		       LLOG__KV_META_NULL == LLOG__FAST_META_NULL,
	       "llog/detail.h's struct llog__fast_rec is the record header");
_Static_assert(LLOG__FAST_STR_BYTES <= LLOG__MAX_RECORD_MIN,
	       "the call site's path never writes a record the bound would clip");

/* A call before the site's path could take it: its first (log_core,
 * then the verdict with the call's signature), or the library's fast
 * path (log_t_body, whose own verdict was made): also a call whose
 * strings are longer than the site's path writes, which that path hands
 * over past its entry (LLOG__SIG_ENTERED: the schedule point FAST_ENTER
 * was its). */
int llog__log_ts(struct llog_site *site, const uint64_t *v, unsigned n, unsigned sig)
{
	/* Relaxed: a hint; log_core and the verdict read the word again. */
	unsigned s = (unsigned)llog__load_relaxed((_Atomic int *)&site->state);
	struct call_args ca = {NULL, v};
	int rc;

	if (__builtin_expect(s & LLOG__SITE_CHECKED, 1)) {
		SITE_ENTERED(sig);
		rc = log_t_body(site, v, n);
		SITE_ENTERED(0u);
		return rc;
	}
	rc = log_core(site, &ca, 1, n, NULL, NULL, NULL);
	if (rc == 0)
		site_verdict(site, n, sig);
	else if (v == NULL)
		rc = log_untyped0(site, NULL, NULL);
	return rc;
}

/* The site's path set in_log and gave up (no room below stop, a context
 * to resend, the list closed): log_core, as fast_fixed leaves a call. */
int llog__log_tx(struct llog_site *site, const uint64_t *v, unsigned n)
{
	return log_t_slow(site, v, n);
}

/* The site's CAS failed: fast_push's retry, on the head the site pushed
 * on (shard[0]: the process's go-slow word was zero, so the clock is the
 * plain TSC and the queue has one head). */
void llog__fast_retry(void *arena, void *rec, void *first, uint32_t old)
{
	struct llog__rec *r = rec;

	(void)fast_push_retry(arena, r, &llog__q.shard[0].head, first, old, r->dropped);
}

/* After the site's push: the drops the record carried and the fill check
 * past wake (fast_pushed). */
void llog__fast_after(void *arena, uint32_t carried, uint32_t reserve)
{
	(void)fast_pushed(arena, carried, reserve);
}

void llog__log_kv(struct llog_site *site, const struct llog__kv_site *ks,
		  const union llog__kv_val *v, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_va(site, &ap, NULL, ks, v);
	va_end(ap);
}

static int kv_t_slow(struct llog_site *site, const struct llog__kv_site *ks,
		     const union llog__kv_val *kv, const uint64_t *v, unsigned n)
	__attribute__((noinline));

/* fast_kv where the ring has no room for the largest record now (or only
 * across its end): the call block measured first (as log_core, under the same bound), then
 * placed with the message as one record at its exact size and written. */
static __attribute__((noinline, cold)) int fast_kv_exact(struct llog_site *site,
							 const struct llog__kv_site *ks,
							 const union llog__kv_val *kv,
							 const uint64_t *v, unsigned s,
							 struct llog__arena *a)
{
	uint32_t slen[LLOG_FIELDS_MAX], nkv = 0, n = LLOG__SHAPE_FIXED(s), old, bytes;
	uint32_t kvbytes = llog__kv_call_measure(ks, kv, kv_bound(), slen, &nkv);
	const uint64_t *q = v; /* as fast_fixed's */
	struct llist_node *first;
	struct llist_head *h;
	struct llog__rec *r;
	unsigned char *d;

	bytes = LLOG__REC_HDR + llog__producer_align8(n) + kvbytes;
	r = fast_take(a, bytes, &old);
	if (__builtin_expect(r == NULL, 0))
		return kv_t_slow(site, ks, kv, v, LLOG__SHAPE_MAX_ARGS);
	fast_header(r, site, n);
	r->flags = LLOG__REC_FIELDS;
	d = llog__rec_payload(r);
	for (unsigned args = LLOG__SHAPE_ARGS(s); args != 0; args >>= 2, q++)
		d = fast_slot(d, args, q);
	llog__kv_call_write(ks, kv, slen, nkv,
			    (char *)llog__rec_payload(r) + llog__producer_align8(n));
	r->arena = a;
	h = llog__queue_mine();
	first = llog__queue_peek(h);
	if (__builtin_expect(first == LLOG__CLOSED, 0)) {
		fast_untake(old);
		LLOG__SCHED(FAST_CLOSED);
		return kv_t_slow(site, ks, kv, v, LLOG__SHAPE_MAX_ARGS);
	}
	return fast_push(a, r, h, first, old, old + bytes, 0);
}

/* The fast path of a call with fields whose message has no string (its
 * record: the header, the message's slots, the call block, kv.h), in one
 * pass as fast_str: the room for the largest record (the message and the
 * call block's bound, as log_core's) is placed, the slots and the call
 * block (llog__kv_call_put: log_core's bytes) are written into it, and the
 * reservation is taken at the exact size. */
static __attribute__((noinline)) int fast_kv(struct llog_site *site,
					     const struct llog__kv_site *ks,
					     const union llog__kv_val *kv, const uint64_t *v,
					     unsigned s, struct llog__arena *a)
{
	struct llog__own *o = llog__owner();
	uint32_t n = LLOG__SHAPE_FIXED(s), kvb = kv_bound(), old, end;
	const uint64_t *q = v;
	struct llist_node *first;
	struct llist_head *h;
	struct llog__rec *r;
	unsigned char *d;
	int plain;

	r = fast_place_max(a, LLOG__REC_HDR + llog__producer_align8(n) + kvb);
	if (__builtin_expect(r == NULL, 0))
		return fast_kv_exact(site, ks, kv, v, s, a);
	fast_header(r, site, n);
	r->flags = LLOG__REC_FIELDS;
	r->arena = a;
	d = llog__rec_payload(r);
	for (unsigned args = LLOG__SHAPE_ARGS(s); args != 0; args >>= 2, q++)
		d = fast_slot(d, args, q);
	/* the unused end: kvb and the block's bytes are multiples of 8 */
	kvb -= llog__kv_call_put(ks, kv, kvb,
				 (char *)llog__rec_payload(r) + llog__producer_align8(n));
	a = r->arena;
	old = o->reserve;
	end = r->end - kvb;
	plain = llog__clock_push_is_tsc();
	h = fast_head(plain);
	first = llog__queue_peek(h);
	if (__builtin_expect(first == LLOG__CLOSED, 0)) {
		llog__producer_signal_fence();
		o->in_log = 0;
		return kv_t_slow(site, ks, kv, v, LLOG__SHAPE_MAX_ARGS);
	}
	o->reserve = end;
	r->end = end;
	if (__builtin_expect(plain, 1))
		return fast_push(a, r, h, first, old, end, 1);
	return fast_push(a, r, h, first, old, end, 0);
}

/* log_core for a typed call with fields; after the site's first call,
 * its verdict. */
static int kv_t_slow(struct llog_site *site, const struct llog__kv_site *ks,
		     const union llog__kv_val *kv, const uint64_t *v, unsigned n)
{
	struct call_args ca = {NULL, v};
	int rc = log_core(site, &ca, 1, n, NULL, ks, kv);

	if (rc == 0)
		site_verdict(site, n, 0);
	else if (v == NULL) /* as log_t_slow */
		rc = log_untyped0(site, ks, kv);
	return rc;
}

/* A typed call with fields: the message's arguments in n slots; the fast
 * path as llog__log_t's for a message without strings. */
static inline __attribute__((always_inline)) int
kv_t_body(struct llog_site *site, const struct llog__kv_site *ks, const union llog__kv_val *kv,
	  const uint64_t *v, unsigned n)
{
	/* Relaxed: as llog__log_t's. */
	unsigned s = (unsigned)llog__load_relaxed((_Atomic int *)&site->state);

	if (fast_enter(s) && !(s & LLOG__SHAPE_HAS_STR) &&
	    (__builtin_expect(llog__queue_slow() == 0, 1) || !fast_bt_kept(site, s))) {
		/* The arena after the go-slow word (log_t_body). */
		llog__producer_signal_fence();
		return fast_kv(site, ks, kv, v, s, llog__owner()->arena);
	}
	return kv_t_slow(site, ks, kv, v, n);
}

int llog__log_kv_t(struct llog_site *site, const struct llog__kv_site *ks,
		   const union llog__kv_val *kv, const uint64_t *v, unsigned n)
{
	return kv_t_body(site, ks, kv, v, n);
}

/* llog__log_ts for a call with fields. */
int llog__log_kv_ts(struct llog_site *site, const struct llog__kv_site *ks,
		    const union llog__kv_val *kv, const uint64_t *v, unsigned n, unsigned sig)
{
	/* Relaxed: as llog__log_ts's. */
	unsigned s = (unsigned)llog__load_relaxed((_Atomic int *)&site->state);
	struct call_args ca = {NULL, v};
	int rc;

	if (__builtin_expect(s & LLOG__SITE_CHECKED, 1)) {
		SITE_ENTERED(sig);
		rc = kv_t_body(site, ks, kv, v, n);
		SITE_ENTERED(0u);
		return rc;
	}
	rc = log_core(site, &ca, 1, n, NULL, ks, kv);
	if (rc == 0)
		site_verdict(site, n, sig);
	else if (v == NULL) /* as log_t_slow */
		rc = log_untyped0(site, ks, kv);
	return rc;
}

/* llog__log_tx for a call with fields: log_core, as fast_kv leaves a
 * call. */
int llog__log_kv_tx(struct llog_site *site, const struct llog__kv_site *ks,
		    const union llog__kv_val *kv, const uint64_t *v, unsigned n)
{
	return kv_t_slow(site, ks, kv, v, n);
}

/* llog__log_kv_t for a message without arguments, as llog__log_t0. */
int llog__log_kv_t0(struct llog_site *site, const struct llog__kv_site *ks,
		    const union llog__kv_val *kv)
{
	return kv_t_body(site, ks, kv, NULL, 0);
}

/* llog__log with a va_list, for tests whose formats are made at run time
 * (tests/test_binfile.c); not exported. */
void llog__logv(struct llog_site *site, va_list ap);
void llog__logv(struct llog_site *site, va_list ap)
{
	va_list aq;

	va_copy(aq, ap); /* a parameter's va_list is a pointer: a local to point at */
	log_va(site, &aq, NULL, NULL, NULL);
	va_end(aq);
}

void llog__log_rl(struct llog_site *site, const struct llog__rl_pass *rl, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_va(site, &ap, rl, NULL, NULL);
	va_end(ap);
}
