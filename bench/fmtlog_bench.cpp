/*
 * fmtlog_bench.cpp - fmtlog's side of bench/run.sh (built only with
 * --peers DIR: DIR/fmtlog, header-only with its bundled fmt). The modes
 * and command line are bench_common.h's. Configured as fmtlog's own
 * benchmark does: FMTLOG_BLOCK=1 (a full queue blocks, nothing dropped),
 * a thread of the benchmark's calling fmtlog::poll() in a loop, each
 * logging thread preallocates its queue; a header comparable to llog's.
 * logger_flush stops the polling thread and runs a final poll(true).
 * No drop mode.
 */
#include "fmtlog.h"

#include <pthread.h>

#include <atomic>

#define BENCH_NAME "fmtlog"
#define BENCH_NO_DROP
#define BENCH_THREAD_START() fmtlog::preallocate()

struct bench_opts;
static int logger_init(const struct bench_opts *o);
static std::atomic<bool> g_stop{false};
static pthread_t g_poller;
static bool g_polling;

__attribute__((always_inline)) static inline void log_fmt(int i, double ms, const char *peer)
{
	logi("request {} took {:.3f} ms from {}", i, ms, peer);
}

__attribute__((always_inline)) static inline void log_static(void)
{
	logi("cache refreshed, serving from the new snapshot");
}

static void *poller(void *)
{
	// Acquire: pairs with the release store in logger_flush.
	while (!g_stop.load(std::memory_order_acquire))
		fmtlog::poll();
	return nullptr;
}

static void logger_flush(void)
{
	if (g_polling) {
		// Release: the poller exits; the final poll below is then the
		// only consumer.
		g_stop.store(true, std::memory_order_release);
		pthread_join(g_poller, nullptr);
		g_polling = false;
	}
	fmtlog::poll(true);
}

static unsigned long long logger_dropped(void)
{
	return 0;
}

static void logger_shutdown(void)
{
	fmtlog::closeLogFile();
}

#include "bench_common.h"

static int logger_init(const struct bench_opts *o)
{
	fmtlog::setLogFile(o->file, true);
	fmtlog::setHeaderPattern("{YmdHMSF} {l} [{t}] {s} "); /* F: nanoseconds */
	fmtlog::setLogLevel(fmtlog::INF);
	g_polling = pthread_create(&g_poller, nullptr, poller, nullptr) == 0;
	return !g_polling;
}
