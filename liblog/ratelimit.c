/*
 * ratelimit.c - rate-limited call sites (LLOG_LOG_EVERY_N and friends,
 * llog.h; their machinery in llog/detail.h): the interval decisions, the
 * registry of sites and the shutdown lines.
 *
 * DESIGN
 * A site's state is one static struct llog_ratelimit beside its struct
 * llog_site. The decision is one read-modify-write of its `word`:
 *
 *   FIRST_N, EVERY_N  word = calls so far; fetch_add (inline, llog/detail.h):
 *                     call c is emitted iff c < n, or c % n == 0
 *   EVERY_MS          word = raw time of the last emitted call; a call at
 *                     `now` is emitted iff now - word >= interval and its
 *                     CAS word: old -> now succeeds
 *   N_PER_MS          word = (window start in units of 64 raw ticks) << 16
 *                     | records in the window; CAS: a new window (count 1)
 *                     once now - start >= interval, else count + 1 while
 *                     count < n
 *
 * A suppressed interval call adds one to `suppressed`; the emitting call
 * exchanges it with 0 and carries the value in its record. Every order is
 * relaxed: these words publish no other data (the record is published by
 * its own release push, queue.h), and exactness needs only that each word
 * has one modification order: every fetch_add and the exchanges of one
 * word are totally ordered, so each suppressed call's 1 is taken by
 * exactly one exchange (an emitting call's, or the shutdown line's).
 * The CAS sequence of an interval word gives: successive stored times of
 * EVERY_MS are at least the interval apart, and the emitted record's time
 * is the time it stored (producer.c pushes with it), so the records'
 * times are too. A thread that read `now` before another stored a later
 * one sees a negative difference: suppressed.
 *
 * Registry: a site joins at its first suppressed call (CAS on `linked`,
 * then a CAS push on reg_head, release, like llist_add), never again.
 * Walkers (the final round's llog__rl_final, and llog__rl_forget_object
 * from a shared object's destructor) hold reg_lock; pushers never take
 * it. A walker unlinks a node either with a CAS on the head (it may race
 * with a push) or by rewriting its predecessor's next (only walkers touch
 * a linked node's next, under the lock).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "atomic.h"
#include "clock.h"
#include "levels.h"
#include "ratelimit.h"
#include "stats.h"

static struct llog_ratelimit *reg_head;
static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;

/* ---- the interval in raw ticks ------------------------------------------ */

static uint64_t base_tsc, base_ns;
static uint64_t ticks_per_ms_v; /* 0 until measured; accessed atomically */

static uint64_t mono_raw_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t tsc(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return __rdtsc();
#else
	return 0;
#endif
}

/* A (TSC, ns) pair: the clock read bracketed by two TSC reads, paired with
 * their midpoint; the narrowest bracket of 8 tries (a preempted try would
 * be off by half the time the thread was away). */
static void pair(uint64_t *t, uint64_t *ns)
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < 8; i++) {
		uint64_t t0 = tsc(), n = mono_raw_ns(), t1 = tsc();

		if (t1 - t0 < best) {
			best = t1 - t0;
			*t = t0 + (t1 - t0) / 2;
			*ns = n;
		}
	}
}

/* The baseline's start, before main (and before llog__clock_init may have
 * run: reading the TSC is harmless either way). */
__attribute__((constructor)) static void rl_base(void)
{
	pair(&base_tsc, &base_ns);
}

/*
 * Raw ticks per millisecond, measured once over at least 20 ms since the
 * library was loaded (the first interval site of a program started less
 * than 20 ms ago waits for the rest, once) and lengthened by 1%: an
 * interval is then never shorter in wall-clock time than asked (the
 * flusher's own conversion, clock.h, is within far less than 1%).
 * Without the TSC raw values are nanoseconds. Threads racing here
 * measure nearly the same value; any of them may be stored.
 */
static uint64_t ticks_per_ms(void)
{
	/* Relaxed: a value computed from nothing shared but the baseline,
	 * written before any thread ran. */
	uint64_t v = __atomic_load_n(&ticks_per_ms_v, __ATOMIC_RELAXED);
	uint64_t t1 = 0, n1 = 0;

	if (__builtin_expect(v != 0, 1))
		return v;
	if (!llog__clock_tsc) {
		v = 1000000u;
	} else {
		do
			pair(&t1, &n1);
		while (n1 - base_ns < 20000000u);
		v = (uint64_t)((double)(t1 - base_tsc) * 1e6 / (double)(n1 - base_ns) * 1.01);
		if (v == 0)
			v = 1;
	}
	__atomic_store_n(&ticks_per_ms_v, v, __ATOMIC_RELAXED);
	return v;
}

/* ---- registry ------------------------------------------------------------ */

void llog__rl_register(struct llog_ratelimit *rl, struct llog_site *site, int kind, uint64_t n)
{
	int no = 0;
	struct llog_ratelimit *head;

	/* Relaxed: elects the one thread that links the site; the fields
	 * are published by the release CAS below. */
	if (!__atomic_compare_exchange_n(&rl->linked, &no, 1, 0, __ATOMIC_RELAXED,
					 __ATOMIC_RELAXED))
		return;
	rl->site = site;
	rl->kind = kind;
	rl->n = n;
	/* Relaxed first load: the CAS validates it. */
	head = __atomic_load_n(&reg_head, __ATOMIC_RELAXED);
	do
		rl->next = head;
	/* Release on success: publishes rl's fields to the walkers' acquire
	 * load of reg_head (every later push continues the release
	 * sequence, llist.h); relaxed on failure: nothing published. */
	while (!__atomic_compare_exchange_n(&reg_head, &head, rl, 1, __ATOMIC_RELEASE,
					    __ATOMIC_RELAXED));
}

/* Unlinks rl (a walker, under reg_lock). */
static void unlink_site(struct llog_ratelimit *rl)
{
	struct llog_ratelimit *p, *expect = rl;

	/* Acquire: pairs with the release CAS of llog__rl_register, for a
	 * node pushed since the walker's last load. */
	if (__atomic_compare_exchange_n(&reg_head, &expect, rl->next, 0, __ATOMIC_ACQUIRE,
					__ATOMIC_ACQUIRE))
		return;
	/* Not the head (any more): pushes happen only at the head, so its
	 * predecessor is between the head we just read and rl. */
	for (p = expect; p != NULL && p->next != rl; p = p->next)
		;
	if (p != NULL)
		p->next = rl->next;
}

/* ---- the interval kinds -------------------------------------------------- */

#define Q_SHIFT 6u                       /* window start in units of 64 ticks */
#define START_MASK ((UINT64_C(1) << 48) - 1)
#define COUNT_MAX 0xffffu

static int suppress(struct llog_ratelimit *rl, struct llog_site *site, int kind, uint64_t n)
{
	/* Relaxed: a count; the exchange that reports it is the same word's
	 * RMW (DESIGN). */
	(void)__atomic_fetch_add(&rl->suppressed, 1, __ATOMIC_RELAXED);
	if (__builtin_expect(!__atomic_load_n(&rl->linked, __ATOMIC_RELAXED), 0))
		llog__rl_register(rl, site, kind, n);
	return 0;
}

int llog__rl_interval(struct llog_ratelimit *rl, struct llog_site *site, int kind, uint64_t n,
		      uint64_t ms, struct llog__rl_pass *p)
{
	uint64_t tpm = ticks_per_ms();
	uint64_t iv = ms < (UINT64_MAX >> 2) / tpm ? ms * tpm : UINT64_MAX >> 2;
	/* The record's time too (p->ts): read as a push reads it, ordered on
	 * a sharded queue (queue.c take_shards needs it). */
	uint64_t now = llog__clock_push();
	/* Relaxed: only the CAS's expectation (DESIGN). */
	uint64_t w = __atomic_load_n(&rl->word, __ATOMIC_RELAXED), nw;

	if (kind == LLOG__RL_EVERY_MS) {
		do {
			if (w != 0 && (int64_t)(now - w) < (int64_t)iv)
				return suppress(rl, site, kind, n);
		} while (!__atomic_compare_exchange_n(&rl->word, &w, now, 1, __ATOMIC_RELAXED,
						      __ATOMIC_RELAXED));
	} else {
		uint64_t nq = (now >> Q_SHIFT) & START_MASK;
		uint64_t ivq = (iv + (1u << Q_SHIFT) - 1) >> Q_SHIFT;
		uint64_t cap = n < COUNT_MAX ? n : COUNT_MAX;

		if (cap == 0)
			return suppress(rl, site, kind, n);
		do {
			/* 48-bit difference, signed: negative when another
			 * thread opened a window after we read the clock;
			 * below -2^46 units (weeks) it is a wrap after a long
			 * silence: a new window. */
			int64_t d = (int64_t)(((nq - (w >> 16)) & START_MASK) << 16) >> 16;

			if (w == 0 || d >= (int64_t)ivq || d < -((int64_t)1 << 46))
				nw = (nq << 16) | 1u;
			else if ((w & COUNT_MAX) < cap)
				nw = w + 1;
			else
				return suppress(rl, site, kind, n);
		} while (!__atomic_compare_exchange_n(&rl->word, &w, nw, 1, __ATOMIC_RELAXED,
						      __ATOMIC_RELAXED));
	}
	/* Relaxed: see suppress(). */
	p->suppressed = __atomic_exchange_n(&rl->suppressed, 0, __ATOMIC_RELAXED);
	p->ts = now;
	return 1;
}

/* ---- shutdown lines and dlclose ------------------------------------------ */

/* The site's calls suppressed and not reported yet (a walker, under
 * reg_lock). Relaxed loads: the final round runs after the calls it
 * reports (calls racing with llog_shutdown are not covered, llog.h). */
static uint64_t unreported(struct llog_ratelimit *rl)
{
	uint64_t c, s;

	switch (rl->kind) {
	case LLOG__RL_FIRST_N:
		/* `suppressed` holds what earlier shutdown lines reported. */
		c = __atomic_load_n(&rl->word, __ATOMIC_RELAXED);
		s = c > rl->n ? c - rl->n : 0;
		if (s <= rl->suppressed)
			return 0;
		c = s - rl->suppressed;
		rl->suppressed = s;
		return c;
	case LLOG__RL_EVERY_N: {
		/* Calls after the last emitted one (call e = k * n), less
		 * those an earlier shutdown line reported (`suppressed`
		 * holds the call count it saw) when no record came since. */
		uint64_t e, c0 = rl->suppressed;

		c = __atomic_load_n(&rl->word, __ATOMIC_RELAXED);
		if (c == 0 || rl->n <= 1)
			return 0;
		e = (c - 1) / rl->n * rl->n;
		rl->suppressed = c;
		return c0 > e ? c - c0 : c - 1 - e;
	}
	default:
		return __atomic_exchange_n(&rl->suppressed, 0, __ATOMIC_RELAXED);
	}
}

void llog__rl_final(void (*emit)(void *ctx, struct llog_entry *e), void *ctx)
{
	struct llog_ratelimit *rl;

	pthread_mutex_lock(&reg_lock);
	/* Acquire: pairs with the release CAS of llog__rl_register. */
	for (rl = __atomic_load_n(&reg_head, __ATOMIC_ACQUIRE); rl != NULL; rl = rl->next) {
		uint64_t n = unreported(rl);
		struct llog_entry e;

		if (n == 0)
			continue;
		memset(&e, 0, sizeof(e));
		e.level = (enum llog_level)llog__site_level(rl->site);
		e.category = llog__site_category(rl->site);
		e.category_len = e.category != NULL ? strlen(e.category) : 0;
		e.line = rl->site->line;
		e.file = rl->site->file;
		e.func = rl->site->func;
		e.msg = LLOG__RL_FINAL_MSG;
		e.msg_len = sizeof(LLOG__RL_FINAL_MSG) - 1;
		e.thread_name = "";
		e.suppressed = n;
		llog__count(suppressed, n);
		emit(ctx, &e);
	}
	pthread_mutex_unlock(&reg_lock);
}

void llog__rl_forget_object(const void *addr, int internal)
{
	Dl_info self, other;
	struct llog_ratelimit *rl, *next;

	if (addr == NULL || dladdr(addr, &self) == 0 || self.dli_fbase == NULL)
		return;
	/* On llog's own threads (a sink callback calling dlclose, which
	 * llog.h does not cover) never wait for the final round's walk. */
	if (internal ? pthread_mutex_trylock(&reg_lock) != 0 : pthread_mutex_lock(&reg_lock) != 0)
		return;
	/* Acquire: pairs with the release CAS of llog__rl_register. */
	for (rl = __atomic_load_n(&reg_head, __ATOMIC_ACQUIRE); rl != NULL; rl = next) {
		next = rl->next;
		if (dladdr(rl, &other) != 0 && other.dli_fbase == self.dli_fbase)
			unlink_site(rl);
	}
	pthread_mutex_unlock(&reg_lock);
}
