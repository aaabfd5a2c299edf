/*
 * llog_bench.c - llog's side of bench/run.sh: the modes and command line of
 * bench_common.h, with a compressed file sink (zstd, default level) as the
 * only sink, BLOCK overflow and default arena, or with -d LLOG_OVERFLOW_DROP
 * and a 16 KiB arena (the smallest). Each logging thread calls
 * llog_thread_prepare() before its first call.
 *
 * Built twice more for run.sh's backtrace table: with
 * BENCH_BACKTRACE=1 ("llog-bt") the calls are LOG_DEBUG under level INFO
 * with the backtrace on (64 records, from DEBUG): each is captured and
 * kept, never written; with BENCH_BACKTRACE=2 ("llog-below") the same
 * calls with the backtrace off: filtered out by the level check. And as
 * C++ (llog_cxx_bench.cpp, "llog-cxx"): the same calls through llog.h's
 * C++ side (its templates where C has _Generic).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <llog.h>
#include <llog/sinks.h>

#if BENCH_BACKTRACE == 1
#define BENCH_NAME "llog-bt"
#define BENCH_LOG LOG_DEBUG
#define BENCH_LOG_KV LOG_DEBUG_KV
#elif BENCH_BACKTRACE == 2
#define BENCH_NAME "llog-below"
#define BENCH_LOG LOG_DEBUG
#define BENCH_LOG_KV LOG_DEBUG_KV
#elif defined(LLOG_BENCH_BINARY)
#define BENCH_NAME "llog-bin" /* the same with LLOG_FILE_BINARY (llog_bin_bench) */
#define BENCH_LOG LOG_INFO
#define BENCH_LOG_KV LOG_INFO_KV
#else
#define BENCH_NAME "llog"
#define BENCH_LOG LOG_INFO
#define BENCH_LOG_KV LOG_INFO_KV
#endif
/* As the peers' preallocate: the thread's buffer made, its pages faulted
 * in, before the first timed call. */
#define BENCH_THREAD_START() ((void)llog_thread_prepare())

struct bench_opts;
static int logger_init(const struct bench_opts *o);

__attribute__((always_inline)) static inline void log_fmt(int i, double ms, const char *peer)
{
	BENCH_LOG("request %d took %.3f ms from %s", i, ms, peer);
}

/* The same information as log_fmt's as three structured fields:
 * an int, a double and a string, and a constant message. */
#define BENCH_HAS_KV 1
__attribute__((always_inline)) static inline void log_kv(int i, double ms, const char *peer)
{
	BENCH_LOG_KV(("request", i, "took_ms", ms, "peer", peer), "request done");
}

__attribute__((always_inline)) static inline void log_static(void)
{
	BENCH_LOG("cache refreshed, serving from the new snapshot");
}

static void logger_flush(void)
{
	llog_flush();
}

static unsigned long long logger_dropped(void)
{
	struct llog_stats st;

	llog_get_stats(&st);
	return (unsigned long long)st.dropped;
}

static void logger_shutdown(void)
{
	llog_shutdown();
}

#include "bench_common.h"

static int logger_init(const struct bench_opts *o)
{
	/* (zeroed and set, not designated: the file is C++ too) */
	struct llog_file_options fo;
	struct llog_config cfg;
	struct llog_sink_options so;
	struct llog_sink *s;

	memset(&fo, 0, sizeof(fo));
	fo.path = o->file;
#ifdef LLOG_BENCH_BINARY
	fo.compression = LLOG_FILE_BINARY;
#endif
	if (getenv("LLOG_BENCH_ZSTD_LEVEL") != NULL)
		fo.zstd_level = atoi(getenv("LLOG_BENCH_ZSTD_LEVEL"));
	/* LLOG_BENCH_FILE_WRITER=flusher: zstd and the write on the flusher
	 * (LLOG_FILE_WRITER_FLUSHER; bench/flusher_cost.sh nowriter). */
	if (getenv("LLOG_BENCH_FILE_WRITER") != NULL &&
	    strcmp(getenv("LLOG_BENCH_FILE_WRITER"), "flusher") == 0)
		fo.writer = LLOG_FILE_WRITER_FLUSHER;
	memset(&cfg, 0, sizeof(cfg));
	cfg.level = LLOG_INFO;
	s = llog_file_sink(&fo);

#if BENCH_BACKTRACE == 1
	cfg.backtrace_records = 64;
	cfg.backtrace_level = LLOG_DEBUG;
#endif
	/* LLOG_BENCH_ZSTD_LEVEL=N: the file's zstd level (llog_file_options.
	 * zstd_level; bench/flusher_cost.sh level=N compares). Read before
	 * the sink is made: see below. */
	/* LLOG_BENCH_SHARDS=N: a queue of N heads (llog_config.queue_shards;
	 * bench/shards.sh compares). */
	if (getenv("LLOG_BENCH_SHARDS") != NULL)
		cfg.queue_shards = (unsigned)atoi(getenv("LLOG_BENCH_SHARDS"));
	/* LLOG_BENCH_ARENA=N: each thread's arena, N bytes
	 * (llog_config.arena_bytes) instead of the default. */
	if (getenv("LLOG_BENCH_ARENA") != NULL)
		cfg.arena_bytes = (size_t)atol(getenv("LLOG_BENCH_ARENA"));
	if (o->drop) {
		cfg.overflow = LLOG_OVERFLOW_DROP;
		cfg.arena_bytes = 16384;
	}
	/* LLOG_BENCH_SINK_THREAD=own: the file sink on a thread of its own
	 * (LLOG_SINK_THREAD_OWN, its queue BLOCK: nothing dropped), the
	 * formatting and compression off the flusher (bench/flusher_cost.sh
	 * own compares). */
	memset(&so, 0, sizeof(so));
	if (getenv("LLOG_BENCH_SINK_THREAD") != NULL &&
	    strcmp(getenv("LLOG_BENCH_SINK_THREAD"), "own") == 0) {
		so.thread = LLOG_SINK_THREAD_OWN;
		so.full = LLOG_QUEUE_BLOCK;
	}
	if (s == NULL || llog_add_sink_opts(s, &so) != 0 || llog_init(&cfg) != 0) {
		fprintf(stderr, "llog_bench: init failed: %s\n", llog_file_sink_error());
		return 1;
	}
	return 0;
}
