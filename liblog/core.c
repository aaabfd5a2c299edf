/*
 * core.c - record capture, the flusher, and the public control API.
 *
 * DESIGN
 * Hot path (llog__log): level already checked by the macro; get the thread's
 * arena; get the site's argument plan (parsed once per site, published with
 * a release store of site->state); reserve header + captured arguments in
 * the arena; copy the arguments raw; take the clock; push with one CAS.
 * No lock, no malloc (after the thread's first LOG), no system call unless
 * the flusher must be woken (ERROR and above, arena past half full) or the
 * arena is full under the BLOCK policy.
 *
 * Flusher round (flusher_main):
 *   F1 pending = 0 (seq_cst store + fence)
 *   F2 stopping = stop
 *   F3 chain = exchange(head, stopping ? CLOSED : NULL)
 *   F4 reverse; for each record: render, hand to sinks, release its bytes
 *   F5 commit every sink; signal barriers; wake blocked producers
 *   F6 stopping -> exit; else sleep on `pending` unless it is already 1
 * tests/model/pipeline.pml models this protocol (with spin): no record is
 * lost, no wake-up is lost, and a flush barrier returns after everything
 * pushed before it.
 *
 * Order: records are output in the order their pushes took effect (the
 * modification order of head): a chain taken by one exchange is reversed
 * into push order, and chains are taken in sequence. Output timestamps are
 * clamped to never decrease (a producer may, rarely, push onto an emptied
 * list with a clock value older than the previous batch's last record).
 *
 * Counters: logged == written + dropped + (records in flight).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "core.h"
#include "fmt.h"

#define MAX_SINKS 16
#define MARKER " [truncated]"
#define MARKER_LEN (sizeof(MARKER) - 1)

struct llist_node llog__closed_node;

struct llog__global llog__g = {
	.head = {&llog__closed_node},
	.arena_bytes = 256 * 1024,
	.max_record_bytes = 4096,
	.flush_interval_ms = 100,
};

int llog__min_level = LLOG_TRACE;

/* Control state: serialised by ctl_lock (never taken on the record path). */
/* Error-checking: a LOG in a signal handler that interrupted this thread
 * inside ctl_lock gets EDEADLK instead of waiting for itself
 * (restart_after_fork). */
static pthread_mutex_t ctl_lock = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;
/* Set in the thread running llog_shutdown (sinks' close callbacks run there
 * and must not wait for the shutdown they are part of). */
static __thread int in_ctl;
static int running;
/* Serialises flusher rounds with fork(): the flusher holds it for each
 * round, atfork_prepare takes it, so a child's copy of the sinks is never
 * caught in the middle of a write or commit. */
static pthread_mutex_t round_lock = PTHREAD_MUTEX_INITIALIZER;
/* In a fork child: 1 while the inherited flusher (the_flusher, sinks
 * included) waits to be started by the first use. Written under ctl_lock:
 * cleared (release) only after the list was opened or closed for good, so
 * a producer that reads 0 (acquire) and then reloads the head finds the
 * list as fork_resume left it; re-checked under the lock. */
static _Atomic int fork_restart;
static int restart_after_fork(void);
static int atexit_done;
static pthread_t flusher_thread;
static struct llog_sink *pending_sinks[MAX_SINKS];
static int n_pending_sinks;

/* A sink change on its way to the flusher (malloc'd by llog_add_sink). */
struct llog__sink_rec {
	struct llog__rec rec;
	struct llog_sink *sink;
};

/* Flusher-owned state. */
struct flusher {
	struct llog_sink *sinks[MAX_SINKS];
	int nsinks;
	uint64_t seq;
	int64_t last_ts;
	struct llog__clock_conv clock;
	char *msgbuf;
	size_t msgcap;
	struct llog__plan tmp_plan;
	/*
	 * Where the round stands, for llog__crash_drain_self when the flusher
	 * itself crashes. Written by the flusher only and read only by the
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
	char *altstack;    /* the flusher's alternate signal stack */
};

/* ---- futex ------------------------------------------------------------ */

void llog__futex_wait(_Atomic uint32_t *addr, uint32_t val, unsigned timeout_ms)
{
	struct timespec ts = {(time_t)(timeout_ms / 1000), (long)(timeout_ms % 1000) * 1000000L};

	/* Returns at once (EAGAIN) when *addr != val: the check and the
	 * sleep are atomic in the kernel, which is what makes the wake-up
	 * handshakes below free of lost wake-ups. */
	syscall(SYS_futex, (uint32_t *)addr, FUTEX_WAIT_PRIVATE, val,
		timeout_ms ? &ts : NULL, NULL, 0);
}

void llog__futex_wake(_Atomic uint32_t *addr, int all)
{
	syscall(SYS_futex, (uint32_t *)addr, FUTEX_WAKE_PRIVATE, all ? INT_MAX : 1, NULL, NULL, 0);
}

/* ---- wake-ups ----------------------------------------------------------- */

/*
 * Asks the flusher to run a round now. Only the first asker after the
 * flusher's F1 pays for the system call.
 * The seq_cst fence pairs with the fence after F1 in flusher_main: either
 * our push (before the fence) is seen by the flusher's F3 exchange, or our
 * load below sees F1's pending = 0 and we wake it. The relaxed load is a
 * filter only; the exchange decides who calls futex_wake.
 */
void llog__wake_flusher(void)
{
	llog__fence_seq_cst();
	if (llog__load_relaxed(&llog__g.pending) == 0 &&
	    llog__xchg_seq_cst(&llog__g.pending, 1) == 0)
		llog__futex_wake(&llog__g.pending, 0);
}

/*
 * Owner of a: sleeps until the flusher has released enough of a's ring that
 * `need` bytes could be free, or a round passed. Dekker handshake with F5:
 * we announce ourselves in blocked_waiters (seq_cst RMW), then re-read
 * released with seq_cst; the flusher stores released, issues a seq_cst
 * fence, then reads blocked_waiters. One of us sees the other: either we see
 * the new released and do not sleep, or it sees our count and bumps
 * release_seq and wakes us (and futex_wait returns at once if it bumped
 * release_seq after we read it).
 */
void llog__wait_released(struct llog__arena *a, uint32_t need)
{
	uint32_t seq;

	llog__fetch_add_relaxed(&llog__g.stats.blocked, 1);
	atomic_fetch_add_explicit(&llog__g.blocked_waiters, 1, memory_order_seq_cst);
	seq = llog__load_seq_cst(&llog__g.release_seq);
	llog__wake_flusher();
	if (a->size - (a->reserve - llog__load_seq_cst(&a->released)) < need)
		llog__futex_wait(&llog__g.release_seq, seq, 100);
	atomic_fetch_sub_explicit(&llog__g.blocked_waiters, 1, memory_order_seq_cst);
}

/* ---- synchronous output (no flusher running) ----------------------------- */

/* Returns once no llog_shutdown() is in progress (its final round written
 * and the sinks closed). Not from the thread running it. */
static void wait_for_shutdown(void)
{
	if (in_ctl)
		return;
	pthread_mutex_lock(&ctl_lock);
	pthread_mutex_unlock(&ctl_lock);
}


static uint64_t self_tid(void)
{
	return (uint64_t)syscall(SYS_gettid);
}

static void write_stderr_line(const struct llog_entry *e)
{
	char line[8192];
	size_t n = llog_format_entry(e, LLOG_FORMAT_TEXT, line, sizeof(line));

	(void)llog__write_all(2, line, n, 1000);
}

/*
 * Renders a record (or a drop notice when msg is NULL) straight to stderr.
 * Used while the list is closed: before llog_init, after llog_shutdown.
 */
void llog__sync_output(const struct llog__rec *r, const char *msg, size_t len)
{
	struct llog_entry e = {0};
	char note[96];

	e.ts_ns = (int64_t)llog__clock_realtime_ns();
	e.tid = r->arena != NULL ? r->arena->tid : self_tid();
	if (msg == NULL) {
		int n = snprintf(note, sizeof(note), "llog: thread %llu dropped %u records",
				 (unsigned long long)e.tid, r->dropped);
		e.level = LLOG_WARN;
		e.file = __FILE__;
		e.func = __func__;
		e.line = __LINE__;
		e.msg = note;
		e.msg_len = (size_t)n;
	} else {
		e.level = (enum llog_level)r->site->level;
		e.file = r->site->file;
		e.func = r->site->func;
		e.line = r->site->line;
		e.msg = msg;
		e.msg_len = len;
	}
	write_stderr_line(&e);
}

static void count_sync(void)
{
	llog__fetch_add_relaxed(&llog__g.stats.logged, 1);
	llog__fetch_add_relaxed(&llog__g.stats.written, 1);
}

static void sync_render(const struct llog__rec *r, const struct llog__plan *plan)
{
	char msg[4096 + MARKER_LEN];
	int trunc = (r->flags & LLOG__REC_TRUNCATED) != 0;
	size_t n;

	if (r->kind == LLOG__K_TEXT) {
		n = r->len < sizeof(msg) ? r->len : sizeof(msg);
		memcpy(msg, llog__rec_payload((struct llog__rec *)r), n);
	} else {
		n = llog__render(msg, sizeof(msg) - MARKER_LEN, r->site->fmt, plan,
				 llog__rec_payload((struct llog__rec *)r), &trunc);
		if (trunc) {
			memcpy(msg + n, MARKER, MARKER_LEN);
			n += MARKER_LEN;
		}
	}
	llog__sync_output(r, msg, n);
	count_sync();
}

/* The whole call rendered at once from the va_list, straight to stderr. */
static void sync_from_va(struct llog_site *site, const struct llog__plan *plan, va_list ap)
{
	struct llog__rec r = {0};
	char msg[4096 + MARKER_LEN];
	int trunc = 0;
	size_t n = llog__format_va(msg, sizeof(msg) - MARKER_LEN, site->fmt, plan, ap, &trunc);

	if (trunc) {
		memcpy(msg + n, MARKER, MARKER_LEN);
		n += MARKER_LEN;
	}
	r.site = site;
	llog__sync_output(&r, msg, n);
	count_sync();
}

/* ---- the hot path ------------------------------------------------------- */

enum { SITE_NEW = 0, SITE_PARSING = 1, SITE_READY = 2 };

/*
 * The site's plan, parsed once. The thread that wins the CAS NEW->PARSING
 * writes the plan into the site and publishes it with a store-release of
 * READY; readers load state with acquire (pairs with that store) before
 * reading site->plan. Threads that lose the race parse into their own copy
 * for this call.
 */
static const struct llog__plan *site_plan(struct llog_site *site, struct llog__plan *tmp)
{
	_Atomic int *state = (_Atomic int *)&site->state;
	int s = llog__load_acquire(state);

	if (__builtin_expect(s == SITE_READY, 1))
		return (const struct llog__plan *)(const void *)site->plan;
	if (s == SITE_NEW && llog__cas_strong_acq_rel(state, &s, SITE_PARSING)) {
		llog__plan_parse(site->fmt, (struct llog__plan *)(void *)site->plan);
		llog__store_release(state, SITE_READY);
		return (const struct llog__plan *)(const void *)site->plan;
	}
	llog__plan_parse(site->fmt, tmp);
	return tmp;
}

_Static_assert(sizeof(struct llog__plan) <= sizeof(((struct llog_site *)0)->plan),
	       "plan must fit in the site");

static void count_drop(struct llog__arena *a)
{
	a->dropped_pending++;
	llog__fetch_add_relaxed(&llog__g.stats.dropped, 1);
	llog__fetch_add_relaxed(&llog__g.stats.logged, 1);
}

/* Reserves `bytes` under the overflow policy; NULL when dropped. */
static struct llog__rec *reserve(struct llog__arena *a, uint32_t bytes)
{
	struct llog__rec *r = llog__arena_reserve(a, bytes);

	while (__builtin_expect(r == NULL, 0)) {
		if (llog__load_relaxed(&llog__g.overflow) == LLOG_OVERFLOW_DROP) {
			llog__wake_flusher();
			return NULL;
		}
		llog__wait_released(a, bytes * 2);
		r = llog__arena_reserve(a, bytes);
	}
	return r;
}

/*
 * Pushes r onto the list, starting from the head value `first` the caller
 * loaded. Returns 0, or -1 when the list is closed (nothing was pushed).
 * The clock is read after loading the head and again after every failed
 * CAS, so a record's time is never older than that of the record it is
 * pushed on top of.
 */
static inline int push_from(struct llog__rec *r, struct llist_node *first)
{
	for (;;) {
		if (__builtin_expect(first == LLOG__CLOSED, 0))
			return -1;
		r->ts = llog__clock_raw();
		/* Release CAS (llist.h): publishes the header and payload. */
		if (__builtin_expect(llist_try_add(&r->node, &llog__g.head, &first), 1))
			return 0;
	}
}

static int push(struct llog__rec *r)
{
	/* Relaxed: only an expectation, validated by the CAS. */
	return push_from(r, llist_first_relaxed(&llog__g.head));
}

/*
 * LOG_FATAL, after its record was pushed, written or dropped: everything
 * pushed so far (that record included) is committed, then abort(). The
 * crash handler sees llog__fatal_aborting and only chains.
 */
static void __attribute__((noreturn, noinline, cold)) fatal_abort(void)
{
	llog_flush();
	llog__fatal_aborting = 1;
	abort();
}

/* Orders this thread's arena accesses against its own signal handlers. */
#define llog__signal_fence() atomic_signal_fence(memory_order_seq_cst)

static inline void after_push(struct llog__arena *a, int level)
{
	uint32_t used = a->reserve - a->cached_released;

	if (__builtin_expect(level >= LLOG_ERROR, 0)) {
		llog__wake_flusher();
		if (level >= LLOG_FATAL) {
			llog__signal_fence();
			a->in_log = 0;
			fatal_abort();
		}
		return;
	}
	if (__builtin_expect(used > a->size / 2, 0)) {
		/* Acquire: pairs with the flusher's store-release of
		 * released (a fresher view of the free space). */
		a->cached_released = llog__load_acquire(&a->released);
		if (a->reserve - a->cached_released > a->size / 2)
			llog__wake_flusher();
	}
}

static inline uint32_t align8(size_t n)
{
	return ((uint32_t)n + 7u) & ~7u;
}

/* Slow capture paths: EAGER plans, and the exact two-pass capture used
 * when the ring cannot take a record of the maximum size right now. */
static struct llog__rec *capture_slow(struct llog__arena *a, struct llog_site *site,
				      const struct llog__plan *plan, va_list ap, int *trunc)
{
	uint32_t budget = llog__load_relaxed(&llog__g.max_record_bytes);
	uint32_t slen[LLOG__PLAN_MAX_ARGS];
	struct llog__rec *r;
	size_t n;
	va_list ap2;

	if (plan->flags & LLOG__PLAN_EAGER) {
		/* Render now (wide strings, positional arguments...). */
		char text[4096];

		n = llog__format_va(text, budget < sizeof(text) ? budget : sizeof(text),
				    site->fmt, plan, ap, trunc);
		r = reserve(a, LLOG__REC_HDR + align8(n));
		if (r == NULL)
			return NULL;
		memcpy(llog__rec_payload(r), text, n);
		r->kind = LLOG__K_TEXT;
		r->len = (uint32_t)n;
		return r;
	}
	va_copy(ap2, ap);
	n = llog__capture_measure(plan, ap2, budget, slen, trunc);
	va_end(ap2);
	if (n == (size_t)-1) {
		/* Even the fixed part exceeds the budget: the message
		 * becomes the format text, marked truncated. */
		r = reserve(a, LLOG__REC_HDR);
		if (r == NULL)
			return NULL;
		r->kind = LLOG__K_TEXT;
		r->len = 0;
		*trunc = 1;
		return r;
	}
	r = reserve(a, LLOG__REC_HDR + align8(n));
	if (r == NULL)
		return NULL;
	llog__capture_write(plan, ap, slen, llog__rec_payload(r));
	r->kind = LLOG__K_LOG;
	r->len = (uint32_t)n;
	return r;
}

/*
 * Captures the call into a record of a's ring. Fast path, one pass over the
 * arguments: without strings the size is known from the plan; with strings
 * we reserve the maximum record, write, and give back the unused end (the
 * owner may, since nothing after it is reserved).
 */
static inline struct llog__rec *capture(struct llog__arena *a, struct llog_site *site,
					const struct llog__plan *plan, va_list ap)
{
	uint32_t max = llog__load_relaxed(&llog__g.max_record_bytes); /* multiple of 8 */
	struct llog__rec *r;
	int trunc = 0;
	size_t n;

	if (__builtin_expect((plan->flags & LLOG__PLAN_EAGER) || plan->fixed_bytes > max, 0)) {
		r = capture_slow(a, site, plan, ap, &trunc);
		if (r == NULL)
			return NULL;
		n = r->len;
	} else if (!(plan->flags & LLOG__PLAN_HAS_STR)) {
		r = reserve(a, LLOG__REC_HDR + align8(plan->fixed_bytes));
		if (r == NULL)
			return NULL;
		n = llog__capture_once(plan, ap, llog__rec_payload(r), plan->fixed_bytes, &trunc);
		r->kind = LLOG__K_LOG;
	} else if ((r = llog__arena_reserve(a, LLOG__REC_HDR + max)) != NULL) {
		n = llog__capture_once(plan, ap, llog__rec_payload(r), max, &trunc);
		llog__arena_shrink(a, r, max - align8(n));
		r->kind = LLOG__K_LOG;
	} else {
		r = capture_slow(a, site, plan, ap, &trunc);
		if (r == NULL)
			return NULL;
		n = r->len;
	}
	r->len = (uint32_t)n;
	r->flags = trunc ? LLOG__REC_TRUNCATED : 0;
	r->site = site;
	r->arena = a;
	r->dropped = a->dropped_pending;
	return r;
}

void llog__log(struct llog_site *site, const char *fmt, ...)
{
	struct llog__plan tmp;
	const struct llog__plan *plan;
	struct llist_node *first;
	struct llog__arena *a;
	struct llog__rec *r;
	uint32_t old_reserve;
	va_list ap;

	(void)fmt; /* the site holds the same literal */
	plan = site_plan(site, &tmp);
	va_start(ap, fmt);
	/* Relaxed: a hint (closed list -> synchronous output); push_from's
	 * CAS validates it. Loading the head early also brings its cache
	 * line in while we capture. */
	first = llist_first_relaxed(&llog__g.head);
	if (__builtin_expect(first == LLOG__CLOSED, 0)) {
		/* A fork child's first LOG starts the inherited flusher; one
		 * that saw another thread start it (fork_restart now 0,
		 * acquire: pairs with the release in fork_resume) finds the
		 * list open on the reload. Slow path only. */
		if (llog__load_acquire(&fork_restart))
			(void)restart_after_fork();
		first = llist_first_relaxed(&llog__g.head);
	}
	if (__builtin_expect(first == LLOG__CLOSED, 0)) {
		a = llog__tls_arena;
		/* Records of ours still in a shutdown's final round: let it
		 * write them first, so this thread's order is kept on a
		 * shared stream. Acquire: pairs with the flusher's release
		 * of released. */
		if (a != NULL && llog__load_acquire(&a->released) != a->reserve)
			wait_for_shutdown();
		sync_from_va(site, plan, ap);
		va_end(ap);
		if (__builtin_expect(site->level >= LLOG_FATAL, 0))
			fatal_abort();
		return;
	}
	a = llog__arena_get();
	if (__builtin_expect(a == NULL || a->in_log, 0)) {
		/* No memory for an arena, re-entry from a signal handler
		 * that interrupted a LOG in this thread, or a LOG from a sink
		 * callback on the flusher (whose arena is always in_log):
		 * dropped and counted. */
		llog__fetch_add_relaxed(&llog__g.stats.dropped, 1);
		llog__fetch_add_relaxed(&llog__g.stats.logged, 1);
		va_end(ap);
		if (__builtin_expect(site->level >= LLOG_FATAL, 0))
			fatal_abort();
		return;
	}
	a->in_log = 1;
	/* Compiler barrier only (no instruction): a signal handler of this
	 * thread that sees in_log == 0 must find the arena in a consistent
	 * state; without it the compiler may move arena accesses across the
	 * in_log stores (a handler's record could then be overwritten). */
	llog__signal_fence();
	old_reserve = a->reserve;
	r = capture(a, site, plan, ap);
	va_end(ap);
	if (__builtin_expect(r == NULL, 0)) {
		count_drop(a);
		if (__builtin_expect(site->level >= LLOG_FATAL, 0)) {
			llog__signal_fence();
			a->in_log = 0;
			fatal_abort();
		}
	} else if (__builtin_expect(push_from(r, first) == 0, 1)) {
		a->dropped_pending = 0;
		after_push(a, site->level);
	} else {
		/* Closed while we captured: render here (after the final
		 * round wrote our earlier records), give the bytes back. */
		wait_for_shutdown();
		sync_render(r, plan);
		llog__arena_unreserve(a, r, old_reserve);
		if (__builtin_expect(site->level >= LLOG_FATAL, 0)) {
			llog__signal_fence();
			a->in_log = 0;
			fatal_abort();
		}
	}
	llog__signal_fence();
	a->in_log = 0;
}

/* ---- the flusher -------------------------------------------------------- */

/* Relaxed: statistics only. */
static void count_commit(long rc)
{
	if (rc < 0)
		llog__fetch_add_relaxed(&llog__g.stats.write_errors, 1);
	else
		llog__fetch_add_relaxed(&llog__g.stats.bytes_written, (uint64_t)rc);
}

static void sink_write(struct flusher *f, const struct llog_entry *e)
{
	f->crash_entry = e;
	for (int i = 0; i < f->nsinks; i++) {
		struct llog_sink *s = f->sinks[i];
		long rc;

		if (e->level < s->level)
			continue;
		f->crash_sink = i;
		rc = s->ops->write(s, e);
		if (rc < 0)
			llog__fetch_add_relaxed(&llog__g.stats.write_errors, 1);
	}
	f->crash_entry = NULL;
	f->crash_sink = -1;
}

static void sinks_commit(struct flusher *f)
{
	for (int i = 0; i < f->nsinks; i++) {
		f->crash_sink = i;
		count_commit(f->sinks[i]->ops->commit(f->sinks[i]));
	}
	f->crash_sink = -1;
}

static int64_t out_ts(struct flusher *f, uint64_t raw)
{
	int64_t ts = llog__clock_conv_ns(&f->clock, raw);

	if (ts < f->last_ts)
		ts = f->last_ts; /* never backwards (see DESIGN) */
	f->last_ts = ts;
	return ts;
}

/* The entry "llog: thread T dropped N records" before r, in note[96]
 * (async-signal-safe: the crash drain makes them too). */
static void notice_entry(struct flusher *f, const struct llog__rec *r, uint32_t dropped,
			 char *note, struct llog_entry *e)
{
	struct llog__buf b = {note, 0, 96};

	llog__buf_put(&b, "llog: thread ");
	llog__buf_num(&b, r->arena->tid, 10);
	llog__buf_put(&b, " dropped ");
	llog__buf_num(&b, dropped, 10);
	llog__buf_put(&b, " records");
	memset(e, 0, sizeof(*e));
	e->seq = ++f->seq;
	e->ts_ns = out_ts(f, r->ts);
	e->level = LLOG_WARN;
	e->tid = r->arena->tid;
	e->file = __FILE__;
	e->func = "drop_notice";
	e->line = __LINE__;
	e->msg = note;
	e->msg_len = b.n;
}

/* Writes r's drop notice. r->dropped is cleared first: a crash drain that
 * interrupts this must not write the notice a second time. */
static void drop_notice(struct flusher *f, struct llog__rec *r)
{
	struct llog_entry e;
	char note[96];
	uint32_t dropped = r->dropped;

	r->dropped = 0;
	notice_entry(f, r, dropped, note, &e);
	sink_write(f, &e);
}

/*
 * The plan of a site whose record we hold. Usually published (the producer's
 * release store of READY is sequenced before its push, which we synchronize
 * with). A producer that lost the parsing race used its own copy, and the
 * winner may still be writing site->plan: then parse our own.
 */
static const struct llog__plan *flusher_plan(const struct llog_site *site,
					     struct llog__plan *tmp)
{
	/* Acquire: pairs with the release store of READY in site_plan. */
	if (llog__load_acquire((_Atomic int *)&site->state) == SITE_READY)
		return (const struct llog__plan *)(const void *)site->plan;
	llog__plan_parse(site->fmt, tmp);
	return tmp;
}

/*
 * Renders r into buf (f->msgcap bytes) and makes its entry. Pure code
 * except llog__render's snprintf fallback (see the crash drain below).
 */
static void render_entry(struct flusher *f, struct llog__rec *r, char *buf,
			 struct llog__plan *tmp, struct llog_entry *e)
{
	const struct llog_site *site = r->site;
	int trunc = (r->flags & LLOG__REC_TRUNCATED) != 0;
	size_t n;

	if (r->kind == LLOG__K_TEXT) {
		n = r->len;
		if (n > f->msgcap - MARKER_LEN)
			n = f->msgcap - MARKER_LEN;
		memcpy(buf, llog__rec_payload(r), n);
		if (n == 0 && trunc) {
			/* Arguments too large even to capture: show the
			 * format itself. */
			n = strnlen(site->fmt, f->msgcap - MARKER_LEN);
			memcpy(buf, site->fmt, n);
		}
	} else {
		n = llog__render(buf, f->msgcap - MARKER_LEN, site->fmt,
				 flusher_plan(site, tmp), llog__rec_payload(r), &trunc);
	}
	if (trunc) {
		memcpy(buf + n, MARKER, MARKER_LEN);
		n += MARKER_LEN;
		llog__fetch_add_relaxed(&llog__g.stats.truncated, 1);
	}
	e->seq = ++f->seq;
	e->ts_ns = out_ts(f, r->ts);
	e->level = (enum llog_level)site->level;
	e->line = site->line;
	e->tid = r->arena->tid;
	e->file = site->file;
	e->func = site->func;
	e->msg = buf;
	e->msg_len = n;
}

/* Hands r to the sinks; `next` is the record after it in the chain. */
static void write_record(struct flusher *f, struct llog__rec *r, struct llist_node *next)
{
	struct llog_entry e;

	f->crash_rendering = 1;
	render_entry(f, r, f->msgbuf, &f->tmp_plan, &e);
	f->crash_rendering = 0;
	f->crash_rest = next;
	sink_write(f, &e);
}

/* What a round leaves for after its commit. */
struct round {
	uint64_t nrec;
	uint64_t notices;                       /* drop notices written */
	struct llist_node *barriers;            /* signalled after the commit */
	struct llist_node *deferred, **dtail;   /* releases held until then */
};

static void defer(struct round *rd, struct llist_node *pos)
{
	pos->next = NULL;
	*rd->dtail = pos;
	rd->dtail = &pos->next;
}

/* Gives a record's bytes back to its arena, or frees an exited arena. */
static void release_record(struct llog__rec *r)
{
	if (r->kind == LLOG__K_EXIT) {
		/* Every earlier record of this arena is released. While a
		 * crash is being reported the arena is left (the process is
		 * dying; free() is what the crash path must never call: the
		 * crash may have happened inside the allocator). */
		if (!llog__crash_in_progress())
			llog__arena_free(r->arena);
		return;
	}
	/* Release: pairs with the owner's load-acquire in
	 * llog__arena_reserve; we are done reading r. */
	llog__store_release(&r->arena->released, r->end);
}

/*
 * Processes one chain in push order. In the final round (hold) the arena
 * releases wait until the sinks have committed: a thread that then finds
 * its arena drained may write synchronously to stderr and must not get
 * ahead of its own earlier records, still in a sink's buffer.
 */
static void process(struct flusher *f, struct llist_node *chain, int hold, struct round *rd)
{
	struct llist_node *pos, *next;

	llist_for_each_safe(pos, next, chain) {
		struct llog__rec *r = llist_entry(pos, struct llog__rec, node);

		f->crash_rest = pos;
		switch (r->kind) {
		case LLOG__K_LOG:
		case LLOG__K_TEXT:
			if (r->dropped != 0) {
				drop_notice(f, r);
				rd->notices++;
			}
			write_record(f, r, next); /* sets crash_rest = next */
			rd->nrec++;
			if (hold)
				defer(rd, pos);
			else
				release_record(r);
			break;
		case LLOG__K_EXIT:
			if (r->dropped != 0) {
				drop_notice(f, r);
				rd->notices++;
			}
			f->crash_rest = next; /* the arena may be freed below */
			if (hold)
				defer(rd, pos);
			else
				release_record(r);
			break;
		case LLOG__K_BARRIER:
			pos->next = rd->barriers;
			rd->barriers = pos;
			break;
		case LLOG__K_SINK: {
			struct llog__sink_rec *sr = (void *)r;

			if (f->nsinks < MAX_SINKS)
				f->sinks[f->nsinks++] = sr->sink;
			else
				sr->sink->ops->close(sr->sink);
			f->crash_rest = next; /* sr is freed below */
			free(sr);
			break;
		}
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

struct llog__barrier {
	struct llog__rec rec;
	_Atomic uint32_t done;
};

static void signal_barriers(struct llist_node *b)
{
	while (b != NULL) {
		struct llist_node *next = b->next;
		struct llog__barrier *bar =
			(struct llog__barrier *)(void *)llist_entry(b, struct llog__rec, node);

		/* Release: pairs with the acquire load in llog_flush; after
		 * this store the barrier (on the caller's stack) may vanish,
		 * so only its address is used below (a futex wake on a stale
		 * address is harmless: waiters re-check their word). */
		llog__store_release(&bar->done, 1);
		llog__futex_wake(&bar->done, 1);
		b = next;
	}
}

/*
 * One round, F1..F5 (see the top of this file). Returns whether it was the
 * final one (the list is then closed). Runs on the flusher thread, or once
 * on the llog_init thread when the flusher could not be started.
 */
static int flusher_round(struct flusher *f)
{
	struct round rd = {0, 0, NULL, NULL, NULL};
	struct llist_node *chain;
	int stopping;

	rd.dtail = &rd.deferred;
	/* F1. seq_cst store + fence: pairs with the fence in
	 * llog__wake_flusher, and with llog_shutdown's seq_cst store of stop
	 * and exchange of pending (see there). */
	llog__store_seq_cst(&llog__g.pending, 0);
	llog__fence_seq_cst();
	/* F2. Acquire: pairs with the store of stop in llog_shutdown. Read
	 * BEFORE the exchange: a push that lands after a final exchange
	 * installing NULL would be lost (the broken model variant shows it). */
	stopping = llog__load_acquire(&llog__g.stop);
	/* F3. Acquire exchange (llist.h): synchronizes with every push in
	 * the chain. */
	chain = llist_del_all_replace(&llog__g.head, stopping ? LLOG__CLOSED : NULL);
	llog__clock_conv_anchor(&f->clock);
	/* F4 */
	process(f, llist_reverse_order(chain), stopping, &rd);
	/* F5 */
	if (rd.nrec != 0 || rd.notices != 0 || rd.barriers != NULL || stopping) {
		sinks_commit(f);
		llog__fetch_add_relaxed(&llog__g.stats.written, rd.nrec);
		llog__fetch_add_relaxed(&llog__g.stats.logged, rd.nrec);
		if (rd.nrec != 0)
			llog__fetch_add_relaxed(&llog__g.stats.batches, 1);
	}
	release_deferred(rd.deferred);
	signal_barriers(rd.barriers);
	/* Fence: pairs with the seq_cst RMW/load in llog__wait_released
	 * (Dekker handshake). */
	llog__fence_seq_cst();
	if (llog__load_relaxed(&llog__g.blocked_waiters) != 0) {
		llog__fetch_add_release(&llog__g.release_seq, 1);
		llog__futex_wake(&llog__g.release_seq, 1);
	}
	return stopping;
}

/* The running flusher, for the crash handler on its thread (set and
 * cleared by that thread itself: the handler reads its own thread's
 * store). */
static struct flusher *crash_flusher;

static void *flusher_main(void *arg)
{
	struct flusher *f = arg;
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
	/* A fault in a sink (even a stack overflow) runs the crash handler,
	 * which drains from here (llog__crash_drain_self). */
	f->crash_sink = -1;
	crash_flusher = f;
	(void)llog__altstack_install(f->altstack);
	/* F6: exit after the final round, else sleep unless asked already. */
	for (;;) {
		int final;

		pthread_mutex_lock(&round_lock);
		final = flusher_round(f);
		pthread_mutex_unlock(&round_lock);
		if (final)
			break;
		if (llog__load_seq_cst(&llog__g.pending) == 0)
			llog__futex_wait(&llog__g.pending, 0, llog__g.flush_interval_ms);
	}
	if (!llog__altstack_remove(f->altstack))
		f->altstack = NULL; /* still in use: never unmapped (leaked) */
	crash_flusher = NULL;
	return NULL;
}

/* ---- the crash drain on the flusher thread ------------------------------- */

static int has_crash_ops(const struct llog_sink *s)
{
	return s->ops->version >= 2 && s->ops->crash_write != NULL &&
	       s->ops->crash_commit != NULL;
}

/* Hands e to the sinks from index `from` on, through their crash entry
 * points; `at` is the interrupted sink (or -1). Returns how many took it. */
static int crash_hand(struct flusher *f, int from, const struct llog_entry *e, int at)
{
	int took = 0;

	for (int i = from; i < f->nsinks; i++) {
		struct llog_sink *s = f->sinks[i];

		if (e->level < s->level || !has_crash_ops(s))
			continue;
		if (s->ops->crash_write(s, e, i == at) < 0)
			llog__fetch_add_relaxed(&llog__g.stats.write_errors, 1);
		else
			took++;
	}
	return took;
}

/* Renders and hands out the records of a chain in push order; returns how
 * many records it wrote. */
static uint64_t crash_chain(struct flusher *f, struct llist_node *pos, int at)
{
	struct llog__plan tmp;
	struct llog_entry e;
	char note[96];
	uint64_t n = 0;

	for (; pos != NULL; pos = pos->next) {
		struct llog__rec *r = llist_entry(pos, struct llog__rec, node);

		if (r->kind == LLOG__K_SINK) {
			/* Installed as the round would have: the records
			 * after it reach it too (appended: `at` stays valid). */
			struct llog__sink_rec *sr = (void *)r;

			if (f->nsinks < MAX_SINKS)
				f->sinks[f->nsinks++] = sr->sink;
			continue;
		}
		if (r->kind != LLOG__K_LOG && r->kind != LLOG__K_TEXT && r->kind != LLOG__K_EXIT)
			continue; /* barriers: nobody waits now */
		if (r->dropped != 0) {
			notice_entry(f, r, r->dropped, note, &e);
			crash_hand(f, 0, &e, at);
		}
		if (r->kind == LLOG__K_EXIT)
			continue;
		render_entry(f, r, f->crash_msg, &tmp, &e);
		crash_hand(f, 0, &e, at);
		n++;
	}
	return n;
}

/*
 * The flusher crashed (see core.h and crash.c). In output order, to every
 * sink with crash entry points: the entry it was handing out (to the sinks
 * that had not taken it yet), the rest of the chain of this round (less a
 * record whose rendering crashed), the list taken with CLOSED installed
 * (later pushes go to stderr synchronously), then rec; then crash_commit.
 * Runs once per process (the first crashing thread only).
 */
int llog__crash_drain_self(struct llog__rec *rec)
{
	struct flusher *f = crash_flusher;
	const struct llog_entry *cur;
	struct llist_node *rest;
	struct llog_entry e;
	uint64_t n;
	int at, took = 0, committed = 0;
	struct llist_node *queued;

	if (f == NULL)
		return 0;
	at = f->crash_sink;
	cur = f->crash_entry;
	if (cur != NULL)
		crash_hand(f, at < 0 ? 0 : at, cur, at);
	rest = f->crash_rest;
	if (rest != NULL && f->crash_rendering)
		rest = rest->next; /* lost: rendering it is what crashed */
	n = crash_chain(f, rest, at);
	/* Acquire exchange (llist.h): synchronizes with every push in the
	 * chain, as F3 does. In the final round the list is closed already:
	 * the sentinel is not a record. */
	queued = llist_del_all_replace(&llog__g.head, LLOG__CLOSED);
	if (queued != LLOG__CLOSED)
		n += crash_chain(f, llist_reverse_order(queued), at);
	if (rec != NULL) {
		rec->ts = llog__clock_raw();
		render_entry(f, rec, f->crash_msg, &f->tmp_plan, &e);
		took = crash_hand(f, 0, &e, at);
		n++;
	}
	for (int i = 0; i < f->nsinks; i++) {
		struct llog_sink *s = f->sinks[i];
		long rc;

		if (!has_crash_ops(s))
			continue;
		rc = s->ops->crash_commit(s, i == at);
		count_commit(rc);
		committed |= rc >= 0;
	}
	/* Relaxed: statistics only. */
	llog__fetch_add_relaxed(&llog__g.stats.written, n);
	llog__fetch_add_relaxed(&llog__g.stats.logged, n);
	return took > 0 && committed;
}

/* ---- public API --------------------------------------------------------- */

static struct flusher *the_flusher;

int llog__crash_drain(struct llog__rec *rec, unsigned timeout_ms)
{
	static struct llog__barrier b;
	struct timespec now;
	int64_t deadline, left;

	if (llog__arena_thread_is_flusher())
		return 0;
	b.rec.kind = LLOG__K_BARRIER;
	/* Relaxed: published by the release CAS of the push below. */
	llog__store_relaxed(&b.done, 0);
	if (rec != NULL && push(rec) != 0)
		return 0;
	if (push(&b.rec) != 0)
		return 0;
	llog__wake_flusher();
	clock_gettime(CLOCK_MONOTONIC, &now);
	deadline = (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000 + timeout_ms;
	/* Acquire: pairs with the release store in signal_barriers. */
	while (llog__load_acquire(&b.done) == 0) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		left = deadline - ((int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000);
		if (left <= 0)
			return 0;
		llog__futex_wait(&b.done, 0, left < 10 ? (unsigned)left : 10);
	}
	return 1;
}

/*
 * fork(): prepare takes ctl_lock (no init/shutdown/add_sink is half done
 * when the address space is copied) and round_lock (the flusher is between
 * rounds: the sinks' state is whole); the parent releases both. The child
 * starts with the list closed (the records in it, and in every sink's
 * buffers, are the parent's, which writes them), no flusher thread, and the
 * forking thread's ring emptied; each inherited sink's after_fork drops
 * the parent's pending data and connections. When llog ran in the parent,
 * the child's first LOG (or llog_flush/llog_init) starts a fresh flusher
 * with the inherited sinks (restart_after_fork); until then nothing runs.
 * The other threads' arenas are the parent's: unused in the child (their
 * pages stay shared copy-on-write, never touched).
 */
static int fork_locked, fork_round_locked;

static void atfork_prepare(void)
{
	fork_locked = !in_ctl;
	if (fork_locked)
		pthread_mutex_lock(&ctl_lock);
	/* Not from the flusher itself (a sink callback: it holds the lock;
	 * documented as unsupported) nor without ctl_lock. */
	fork_round_locked = fork_locked && running && !llog__arena_thread_is_flusher();
	if (fork_round_locked)
		pthread_mutex_lock(&round_lock);
}

static void atfork_parent(void)
{
	if (fork_round_locked)
		pthread_mutex_unlock(&round_lock);
	if (fork_locked)
		pthread_mutex_unlock(&ctl_lock);
}

static void atfork_child(void)
{
	/* The child is single-threaded here: the orders below do not matter
	 * (relaxed stores; the exchange is llist.h's). */
	struct llist_node *inherited = llist_del_all_replace(&llog__g.head, LLOG__CLOSED);

	if (inherited == LLOG__CLOSED)
		inherited = NULL;
	llog__store_relaxed(&llog__g.pending, 0);
	llog__store_relaxed(&llog__g.stop, 0);
	llog__store_relaxed(&llog__g.blocked_waiters, 0);
	if (running && the_flusher != NULL) {
		struct flusher *f = the_flusher;
		struct llist_node *pos, *next;
		int n = 0;

		/* Sinks added (llog_add_sink) but not yet installed by the
		 * flusher are in the list, which is the parent's otherwise. */
		llist_for_each_safe(pos, next, llist_reverse_order(inherited)) {
			struct llog__rec *r = llist_entry(pos, struct llog__rec, node);

			if (r->kind == LLOG__K_SINK) {
				struct llog__sink_rec *sr = (void *)r;

				if (f->nsinks < MAX_SINKS)
					f->sinks[f->nsinks++] = sr->sink;
				free(sr);
			}
		}
		/* A sink that cannot drop the parent's state (no after_fork:
		 * version 1, or a sink that declares none) is not used in the
		 * child: it would write the parent's data again or share a
		 * connection. It is forgotten, not closed (the parent's). */
		for (int i = 0; i < f->nsinks; i++) {
			const struct llog_sink_ops *ops = f->sinks[i]->ops;

			if (ops->version >= 2 && ops->after_fork != NULL) {
				ops->after_fork(f->sinks[i]);
				f->sinks[n++] = f->sinks[i];
			}
		}
		f->nsinks = n;
		/* Relaxed: no other thread exists yet in the child. */
		llog__store_relaxed(&fork_restart, 1);
	}
	running = 0;
	crash_flusher = NULL;
	llog__crash_after_fork();
	llog__arena_after_fork();
	{
		pthread_mutexattr_t at;

		pthread_mutexattr_init(&at);
		pthread_mutexattr_settype(&at, PTHREAD_MUTEX_ERRORCHECK);
		pthread_mutex_init(&ctl_lock, &at);
		pthread_mutexattr_destroy(&at);
	}
	pthread_mutex_init(&round_lock, NULL);
	in_ctl = 0;
}

static int parse_level(const char *s, enum llog_level *out)
{
	static const char *const names[] = {"trace", "debug", "info", "warn", "error", "fatal", "off"};

	for (int i = 0; i <= LLOG_OFF; i++) {
		if (strcasecmp(s, names[i]) == 0) {
			*out = (enum llog_level)i;
			return 0;
		}
	}
	if (strcasecmp(s, "warning") == 0) {
		*out = LLOG_WARN;
		return 0;
	}
	return -EINVAL;
}

static int apply_config(const struct llog_config *cfg)
{
	struct llog_config c = {0};
	size_t arena, maxrec;
	const char *env;
	enum llog_level lvl;

	if (cfg != NULL)
		c = *cfg;
	if ((unsigned)c.level > LLOG_OFF || (unsigned)c.overflow > LLOG_OVERFLOW_DROP)
		return -EINVAL;
	arena = c.arena_bytes ? c.arena_bytes : 256 * 1024;
	if (arena < 16 * 1024)
		arena = 16 * 1024;
	if (arena > (1u << 30))
		return -EINVAL;
	maxrec = (c.max_record_bytes ? c.max_record_bytes : 4096) & ~(size_t)7;
	if (maxrec < 256 || maxrec > arena / 4)
		return -EINVAL;
	lvl = c.level;
	env = getenv("LLOG_LEVEL");
	if (env != NULL && *env != '\0' && parse_level(env, &lvl) != 0) {
		static const char msg[] = "llog: ignoring invalid LLOG_LEVEL\n";

		(void)!write(2, msg, sizeof(msg) - 1);
		lvl = c.level;
	}
	llog__store_relaxed(&llog__g.arena_bytes, (uint32_t)arena);
	llog__store_relaxed(&llog__g.max_record_bytes, (uint32_t)maxrec);
	llog__store_relaxed(&llog__g.overflow, (int)c.overflow);
	llog__g.flush_interval_ms = c.flush_interval_ms ? c.flush_interval_ms : 100;
	llog_set_level(lvl);
	return 0;
}

static void free_flusher(struct flusher *f)
{
	free(f->msgbuf);
	free(f->crash_msg);
	llog__altstack_delete(f->altstack);
	free(f);
}

static void close_all(struct llog_sink **s, int n)
{
	for (int i = 0; i < n; i++)
		s[i]->ops->close(s[i]);
}

/*
 * Under ctl_lock: opens the list and starts the flusher thread with f.
 * On failure, runs one final round here (records may have been pushed
 * since the list opened: it closes the list, writes them, signals
 * barriers), keeps f's sinks for a later llog_init and frees f.
 */
static int start_flusher(struct flusher *f)
{
	int rc;

	llog__clock_conv_init(&f->clock);
	/* Relaxed: no flusher runs; pthread_create orders them before it. */
	llog__store_relaxed(&llog__g.stop, 0);
	llog__store_relaxed(&llog__g.pending, 0);
	/* Release: pairs with the producers' CAS (which reads this NULL and
	 * then relies on the configuration written before only through
	 * relaxed atomics; the release orders them for completeness). */
	llog__store_release(&llog__g.head.first, NULL);
	rc = -pthread_create(&flusher_thread, NULL, flusher_main, f);
	if (rc != 0) {
		in_ctl = 1;
		llog__store_seq_cst(&llog__g.stop, 1);
		flusher_round(f);
		in_ctl = 0;
		memcpy(pending_sinks, f->sinks, sizeof(pending_sinks));
		n_pending_sinks = f->nsinks;
		free_flusher(f);
		return rc;
	}
	the_flusher = f;
	running = 1;
	return 0;
}

/* Under ctl_lock, in a fork child whose inherited flusher waits: starts it
 * with the sinks added in the child too (or, with stop, closes the
 * inherited sinks instead). */
static int fork_resume(int stop)
{
	struct flusher *f = the_flusher;
	int rc = 0;

	the_flusher = NULL;
	if (!stop) {
		for (int i = 0; i < n_pending_sinks; i++) {
			if (f->nsinks < MAX_SINKS)
				f->sinks[f->nsinks++] = pending_sinks[i];
			else
				pending_sinks[i]->ops->close(pending_sinks[i]);
		}
		n_pending_sinks = 0;
		rc = start_flusher(f);
	} else {
		close_all(f->sinks, f->nsinks);
		free_flusher(f);
	}
	/* Release: after start_flusher's release store that opened the list
	 * (see fork_restart). */
	llog__store_release(&fork_restart, 0);
	return rc;
}

/* The first use in a fork child: starts the inherited flusher. Returns
 * whether llog runs now. A LOG in a signal handler that interrupted this
 * thread inside ctl_lock must not wait for itself: EDEADLK (ctl_lock is
 * error-checking), and the record is written synchronously instead. */
static int __attribute__((noinline, cold)) restart_after_fork(void)
{
	int ok;

	if (in_ctl || pthread_mutex_lock(&ctl_lock) != 0)
		return 0;
	/* Relaxed: written only under ctl_lock, which we hold. */
	if (llog__load_relaxed(&fork_restart))
		(void)fork_resume(0);
	ok = running;
	pthread_mutex_unlock(&ctl_lock);
	return ok;
}

int llog_init(const struct llog_config *cfg)
{
	struct flusher *f;
	int rc;

	pthread_mutex_lock(&ctl_lock);
	if (running) {
		rc = -EALREADY;
		goto out;
	}
	/* Relaxed: written only under ctl_lock, which we hold. */
	if (llog__load_relaxed(&fork_restart)) {
		/* A fork child calling llog_init before any LOG: its own
		 * configuration and sinks replace the inherited ones. */
		in_ctl = 1;
		(void)fork_resume(1);
		in_ctl = 0;
	}
	rc = apply_config(cfg);
	if (rc != 0)
		goto out;
	f = calloc(1, sizeof(*f));
	if (f == NULL) {
		rc = -ENOMEM;
		goto out;
	}
	f->msgcap = llog__load_relaxed(&llog__g.max_record_bytes) + MARKER_LEN;
	f->msgbuf = malloc(f->msgcap);
	f->crash_msg = malloc(f->msgcap);
	f->altstack = llog__altstack_new();
	if (f->msgbuf == NULL || f->crash_msg == NULL || f->altstack == NULL) {
		free_flusher(f);
		rc = -ENOMEM;
		goto out;
	}
	if (n_pending_sinks == 0) {
		struct llog_sink *s = llog_console_sink(NULL);

		if (s != NULL)
			pending_sinks[n_pending_sinks++] = s;
	}
	memcpy(f->sinks, pending_sinks, sizeof(pending_sinks));
	f->nsinks = n_pending_sinks;
	n_pending_sinks = 0;
	rc = start_flusher(f);
	if (rc != 0)
		goto out;
	if (cfg != NULL && cfg->crash_handler_off)
		llog__crash_uninstall();
	else
		(void)llog__crash_install(); /* without memory: no handler */
	if (!atexit_done) {
		atexit_done = 1;
		atexit(llog_shutdown);
		pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
	}
out:
	pthread_mutex_unlock(&ctl_lock);
	return rc;
}

int llog_add_sink(struct llog_sink *sink)
{
	struct llog__sink_rec *sr;
	int rc = 0;

	if (sink == NULL)
		return -EINVAL;
	pthread_mutex_lock(&ctl_lock);
	if (!running) {
		if (n_pending_sinks < MAX_SINKS)
			pending_sinks[n_pending_sinks++] = sink;
		else
			rc = -ENOSPC;
		goto out;
	}
	sr = calloc(1, sizeof(*sr));
	if (sr == NULL) {
		rc = -ENOMEM;
		goto out;
	}
	sr->rec.kind = LLOG__K_SINK;
	sr->sink = sink;
	/* Cannot see CLOSED: running is set and shutdown needs ctl_lock. */
	llist_add(&sr->rec.node, &llog__g.head);
out:
	pthread_mutex_unlock(&ctl_lock);
	if (rc != 0)
		sink->ops->close(sink);
	return rc;
}

void llog_flush(void)
{
	struct llog__barrier b = {0};

	if (llog__arena_thread_is_flusher())
		return;
	/* Acquire: see fork_restart. */
	if (__builtin_expect(llog__load_acquire(&fork_restart), 0) && !restart_after_fork())
		return;
	b.rec.kind = LLOG__K_BARRIER;
	if (push(&b.rec) != 0) {
		/* Closed: not running (everything is synchronous), or a
		 * shutdown is draining the last round; then wait for it, so
		 * that what was pushed before this call is committed. */
		wait_for_shutdown();
		return;
	}
	llog__wake_flusher();
	/* Acquire: pairs with the release store in signal_barriers. */
	while (llog__load_acquire(&b.done) == 0)
		llog__futex_wait(&b.done, 0, 0);
}

void llog_shutdown(void)
{
	struct flusher *f;

	if (llog__arena_thread_is_flusher())
		return;
	pthread_mutex_lock(&ctl_lock);
	if (!running) {
		/* Relaxed: written only under ctl_lock, which we hold. */
		if (llog__load_relaxed(&fork_restart)) {
			in_ctl = 1;
			(void)fork_resume(1);
			in_ctl = 0;
		}
		pthread_mutex_unlock(&ctl_lock);
		return;
	}
	in_ctl = 1;
	/* seq_cst store, then seq_cst exchange of pending: Dekker with F1/F2
	 * (store pending = 0, fence, load stop). Either the flusher's F2
	 * sees stop = 1, or its F1 store precedes our exchange, which then
	 * reads 0 ... and the futex_wake below finds it asleep or about to
	 * fail its futex_wait check. A release store alone would let F1
	 * land after our exchange while F2 still reads 0 (a lost wake-up,
	 * recovered only by the interval timeout). Also pairs with the
	 * acquire load at F2 for what was written before. */
	llog__store_seq_cst(&llog__g.stop, 1);
	llog__xchg_seq_cst(&llog__g.pending, 1);
	llog__futex_wake(&llog__g.pending, 0);
	pthread_join(flusher_thread, NULL);
	f = the_flusher;
	the_flusher = NULL;
	close_all(f->sinks, f->nsinks);
	free_flusher(f);
	running = 0;
	pthread_mutex_unlock(&ctl_lock);
	in_ctl = 0;
	llog__arena_release_self();
}

void llog_sink_destroy(struct llog_sink *sink)
{
	if (sink != NULL)
		sink->ops->close(sink);
}

void llog_set_level(enum llog_level level)
{
	if ((unsigned)level > LLOG_OFF)
		return;
	/* Relaxed: a level change need not be ordered with anything; each
	 * LOG reads it with one relaxed load. */
	__atomic_store_n(&llog__min_level, (int)level, __ATOMIC_RELAXED);
}

enum llog_level llog_get_level(void)
{
	return (enum llog_level)__atomic_load_n(&llog__min_level, __ATOMIC_RELAXED);
}

void llog_get_stats(struct llog_stats *out)
{
	/* Relaxed: counters are independent snapshots. */
	out->logged = llog__load_relaxed(&llog__g.stats.logged);
	out->written = llog__load_relaxed(&llog__g.stats.written);
	out->dropped = llog__load_relaxed(&llog__g.stats.dropped);
	out->truncated = llog__load_relaxed(&llog__g.stats.truncated);
	out->batches = llog__load_relaxed(&llog__g.stats.batches);
	out->bytes_written = llog__load_relaxed(&llog__g.stats.bytes_written);
	out->write_errors = llog__load_relaxed(&llog__g.stats.write_errors);
	out->blocked = llog__load_relaxed(&llog__g.stats.blocked);
	out->sink_lost = llog__load_relaxed(&llog__g.stats.sink_lost);
	out->repaired = llog__load_relaxed(&llog__g.stats.repaired);
}

void llog__count_sink_lost(uint64_t records)
{
	llog__fetch_add_relaxed(&llog__g.stats.sink_lost, records);
}

void llog__count_repaired(void)
{
	llog__fetch_add_relaxed(&llog__g.stats.repaired, 1);
}

const char *llog_level_name(enum llog_level level)
{
	static const char *const names[] = {"TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL", "OFF"};

	return (unsigned)level <= LLOG_OFF ? names[level] : "?";
}

const char *llog_strerror(int err)
{
	switch (err) {
	case 0:
		return "success";
	case -EALREADY:
		return "llog is already initialised";
	case -EINVAL:
		return "invalid argument";
	case -ENOSPC:
		return "too many sinks";
	case -ENOMEM:
		return "out of memory";
	default:
		return err < 0 ? strerror(-err) : "unknown error";
	}
}
