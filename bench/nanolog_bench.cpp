/*
 * nanolog_bench.cpp - NanoLog's side of bench/run.sh (built only with
 * --peers DIR: DIR/NanoLog, whose runtime run.sh builds in a copy of its
 * own). The modes and command line are bench_common.h's. Configured as
 * NanoLog's own benchmark does: setLogFile, each logging thread
 * preallocates, sync() at the end. NanoLog never formats at run time: its
 * file is binary (compare its throughput and bytes knowing that; run.sh
 * counts its records with NanoLog's decompressor). No drop mode.
 */
#include <array> /* NanoLogCpp17.h uses std::array without including it */

#include "NanoLogCpp17.h"

#define BENCH_NAME "nanolog"
#define BENCH_NO_DROP
#define BENCH_THREAD_START() NanoLog::preallocate()

using namespace NanoLog::LogLevels;

struct bench_opts;
static int logger_init(const struct bench_opts *o);

__attribute__((always_inline)) static inline void log_fmt(int i, double ms, const char *peer)
{
	NANO_LOG(NOTICE, "request %d took %.3f ms from %s", i, ms, peer);
}

__attribute__((always_inline)) static inline void log_static(void)
{
	NANO_LOG(NOTICE, "cache refreshed, serving from the new snapshot");
}

static void logger_flush(void)
{
	NanoLog::sync();
}

static unsigned long long logger_dropped(void)
{
	return 0;
}

static void logger_shutdown(void)
{
}

#include "bench_common.h"

static int logger_init(const struct bench_opts *o)
{
	NanoLog::setLogFile(o->file);
	return 0;
}
