/*
 * clock.h - cheap raw timestamps on the hot path, converted to wall-clock
 * nanoseconds on the flusher (internal).
 *
 * DESIGN
 * Producers store llog__clock_raw(): the TSC when the CPU has an invariant
 * TSC (rdtsc, about 7-25 cycles, no vDSO call), CLOCK_REALTIME nanoseconds
 * otherwise. The flusher converts raw values to UTC nanoseconds against an
 * anchor pair (raw, realtime) that it takes right after each exchange:
 *
 *   ns(raw) = anchor_ns - (anchor_raw - raw) * ns_per_tick
 *
 * Records are at most one flush interval old when converted, so an error in
 * ns_per_tick of 1e-6 moves a timestamp by well under a microsecond, and the
 * mapping never drifts: it is re-anchored to the real clock every round.
 * ns_per_tick is measured over the longest baseline since the last reset
 * (init, or a jump of the wall clock), so it converges as the process runs.
 * Output timestamps are then clamped so they never decrease (flusher.c).
 */
#ifndef LLOG_CLOCK_H
#define LLOG_CLOCK_H

#include <stdint.h>

#include "atomic.h"
#include "compiler.h"

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

/* Nonzero when raw values are TSC ticks; set once by llog__clock_init(). */
extern int llog__clock_tsc LLOG__HIDDEN;

uint64_t llog__clock_realtime_ns(void);

/* CLOCK_MONOTONIC in milliseconds: deadlines, back-off and rate limits.
 * Async-signal-safe (clock_gettime). */
int64_t llog__mono_ms(void);

/* Async-signal-safe, lock-free; called on every LOG. */
static inline uint64_t llog__clock_raw(void)
{
#if defined(__x86_64__) || defined(__i386__)
	if (__builtin_expect(llog__clock_tsc, 1))
		return __rdtsc();
#endif
	return llog__clock_realtime_ns();
}

/* How pushes read the clock (llog__clock_push). */
enum llog__clock_push_mode {
	LLOG__CLOCK_REALTIME = 0,    /* no invariant TSC: CLOCK_REALTIME ns */
	LLOG__CLOCK_TSC = 1,         /* rdtsc */
	LLOG__CLOCK_TSC_ORDERED = 2  /* lfence; rdtsc (a sharded queue) */
};

/*
 * The words every push reads, on one cache line of their own (a call's
 * footprint: bench/README.md, caller_cost.sh): how it reads the clock
 * (clock_mode, enum llog__clock_push_mode: set by llog__clock_init, then
 * by llog__clock_set_ordered) and which head it pushes on (head_mask: the
 * byte offsets of the heads in use from the queue's shard[0], (heads - 1) *
 * sizeof(struct llog__shard), heads a power of two; nonzero: sharded, and
 * pushes read the clock ordered; set by llog__queue_open, queue.h). Both
 * change only while no flusher runs and every head is CLOSED: relaxed
 * everywhere (queue.h, llog__queue_mine; llog__clock_push below).
 */
struct llog__push_words {
	_Atomic int clock_mode;
	_Atomic uint32_t head_mask;
};

extern struct llog__push_words llog__pw LLOG__HIDDEN;

/*
 * The time a push stores in its record: llog__clock_raw, or, on a sharded
 * queue, the TSC read after every earlier load of this thread has
 * completed (lfence, then rdtsc): a time read after whatever this thread
 * saw of other threads, which the merge needs (queue.c take_shards; about
 * 10-20 cycles more). One load and one compare decide both (the TSC's
 * check is llog__clock_raw's). Relaxed: the mode changes only in
 * llog__queue_open, while every head is CLOSED.
 */
static inline uint64_t llog__clock_push(void)
{
	int m = llog__load_relaxed(&llog__pw.clock_mode);

#if defined(__x86_64__) || defined(__i386__)
	if (__builtin_expect(m == LLOG__CLOCK_TSC, 1))
		return __rdtsc();
	if (m == LLOG__CLOCK_TSC_ORDERED) {
		_mm_lfence();
		return __rdtsc();
	}
#else
	(void)m;
#endif
	return llog__clock_realtime_ns();
}

/* Whether llog__clock_push is the unordered TSC (llog__clock_tsc), read
 * without a call. Relaxed: as llog__clock_push. Only on a queue of one
 * head (head_mask 0): llog__queue_open orders the clock whenever it keeps
 * more than one, so the fast path takes shard[0] on this mode alone
 * (producer.c, fast_head). */
static inline int llog__clock_push_is_tsc(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return llog__load_relaxed(&llog__pw.clock_mode) == LLOG__CLOCK_TSC;
#else
	return 0;
#endif
}

/* llog__clock_push where llog__clock_push_is_tsc() said so (named apart from the llog__clock_tsc flag). */
static inline uint64_t llog__clock_push_tsc(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return __rdtsc();
#else
	return llog__clock_push();
#endif
}

/*
 * Whether raw times are the TSC and the kernel vouches for it as one clock
 * for every CPU, as a sharded queue's merge needs: > 0 when it does. The
 * kernel checks that the CPUs' TSCs agree (at boot, and by its clocksource
 * watchdog) and, when they do not, marks the TSC unstable, which takes it
 * off the list of available clocksources. So: LLOG__TSC_CURRENT when the
 * TSC is the clocksource; LLOG__TSC_AVAILABLE when another one is (a KVM
 * guest on kvm-clock, say) but the TSC is still listed as available (not
 * marked unstable); LLOG__TSC_NOT_AVAILABLE when it is not listed (marked
 * unstable, or the files cannot be read); LLOG__TSC_NONE when raw times
 * are not an invariant TSC at all. Reads sysfs the first time (not
 * async-signal-safe; llog_init only).
 */
#define LLOG__TSC_NONE (-1)
#define LLOG__TSC_NOT_AVAILABLE 0
#define LLOG__TSC_AVAILABLE 1
#define LLOG__TSC_CURRENT 2
int llog__clock_tsc_synced(void);
/* The verdict from the two files' text (current_clocksource,
 * available_clocksource; NULL: unreadable): pure, for tests. */
int llog__clock_tsc_verdict(const char *current, const char *available);

/* Pushes read the clock ordered (on) or not; no effect without the TSC.
 * Called while no thread can push (llog__queue_open). */
void llog__clock_set_ordered(int on);

/* Decides TSC or not (idempotent, thread-safe after the first call returns
 * in the thread that calls llog_init). */
void llog__clock_init(void);

/* Converter state; owned by one thread (the flusher). */
struct llog__clock_conv {
	uint64_t base_raw, base_ns;     /* start of the calibration baseline */
	uint64_t anchor_raw, anchor_ns; /* latest pair */
	double ns_per_tick;
	int confirmed; /* ns_per_tick measured over >= 50 ms */
};

void llog__clock_conv_init(struct llog__clock_conv *c);
/* Takes a new anchor pair (call after taking a batch). */
void llog__clock_conv_anchor(struct llog__clock_conv *c);
/* raw's time in ns since the epoch, from the latest anchor: inline, as
 * the flusher converts every record's time (a call per record was about
 * 3 % of a binary record's CPU). */
static inline int64_t llog__clock_conv_ns(const struct llog__clock_conv *c, uint64_t raw)
{
	int64_t dticks = (int64_t)(c->anchor_raw - raw);
	double d = (double)dticks * c->ns_per_tick;

	/* round to nearest without libm */
	return (int64_t)c->anchor_ns - (int64_t)(d >= 0 ? d + 0.5 : d - 0.5);
}

#endif /* LLOG_CLOCK_H */
