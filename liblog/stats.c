/*
 * stats.c - the counters and llog_get_stats(). See stats.h.
 */
#include "sink.h"
#include "stats.h"

struct llog__stats llog__stats;

void llog_get_stats(struct llog_stats *out)
{
	/* Relaxed: counters are independent snapshots. */
	out->logged = llog__load_relaxed(&llog__stats.logged);
	out->written = llog__load_relaxed(&llog__stats.written);
	out->dropped = llog__load_relaxed(&llog__stats.dropped);
	out->truncated = llog__load_relaxed(&llog__stats.truncated);
	out->batches = llog__load_relaxed(&llog__stats.batches);
	out->bytes_written = llog__load_relaxed(&llog__stats.bytes_written);
	out->write_errors = llog__load_relaxed(&llog__stats.write_errors);
	out->blocked = llog__load_relaxed(&llog__stats.blocked);
	out->sink_lost = llog__load_relaxed(&llog__stats.sink_lost);
	out->repaired = llog__load_relaxed(&llog__stats.repaired);
	out->queue_dropped = llog__load_relaxed(&llog__stats.queue_dropped);
	out->suppressed = llog__load_relaxed(&llog__stats.suppressed);
	out->backtrace_captured = llog__load_relaxed(&llog__stats.bt_captured);
	out->backtrace_written = llog__load_relaxed(&llog__stats.bt_written);
	out->backtrace_discarded = llog__load_relaxed(&llog__stats.bt_discarded);
	out->fields_truncated = llog__load_relaxed(&llog__stats.fields_truncated);
	out->sink_truncated = llog__load_relaxed(&llog__stats.sink_truncated);
	out->queue_heads = llog__load_relaxed(&llog__stats.queue_heads);
}

void llog__stats_count_sink_lost(uint64_t records)
{
	llog__count(sink_lost, records);
}

void llog__stats_count_sink_truncated(void)
{
	llog__count(sink_truncated, 1);
}

void llog__stats_count_repaired(void)
{
	llog__count(repaired, 1);
}
