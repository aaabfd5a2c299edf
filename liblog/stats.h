/*
 * stats.h - the library's counters (internal; llog_get_stats() reads them).
 *
 * DESIGN
 * Independent relaxed counters, bumped by any thread: they order nothing
 * and nothing is ordered by them. After llog_flush() returns, with no
 * concurrent logging:
 *   logged == written + dropped
 * and, for records kept only for the backtrace (backtrace.h, counted in
 * none of those):
 *   bt_captured == bt_written + bt_discarded + (entries the ring holds)
 */
#ifndef LLOG_STATS_H
#define LLOG_STATS_H

#include <stdalign.h>
#include <stdint.h>

#include "atomic.h"
#include "compiler.h"

/* On cache lines of their own: the flusher bumps them every round, and a
 * line shared with what every LOG reads (the runtime level, the
 * configuration) would bounce between the cores. */
struct llog__stats {
	alignas(64) _Atomic uint64_t logged;
	_Atomic uint64_t written, dropped, truncated, batches,
		bytes_written, write_errors, blocked, sink_lost, repaired, queue_dropped,
		suppressed, fields_truncated, sink_truncated, queue_heads;
	/* The backtrace (backtrace.h): captured == written + discarded + held. */
	_Atomic uint64_t bt_captured, bt_written, bt_discarded;
};

extern struct llog__stats llog__stats LLOG__HIDDEN;

/* Adds n to one counter. Relaxed: statistics only. Async-signal-safe. */
#define llog__count(name, n) ((void)llog__fetch_add_relaxed(&llog__stats.name, (uint64_t)(n)))

/* A record that never reaches the flusher: logged and dropped. */
static inline void llog__count_dropped(void)
{
	llog__count(dropped, 1);
	llog__count(logged, 1);
}

/* Records written: logged and written. */
static inline void llog__count_written(uint64_t n)
{
	llog__count(written, n);
	llog__count(logged, n);
}

/* A sink's commit result: bytes written, or a negative errno. */
static inline void llog__count_commit(long rc)
{
	if (rc < 0)
		llog__count(write_errors, 1);
	else
		llog__count(bytes_written, rc);
}

#endif /* LLOG_STATS_H */
