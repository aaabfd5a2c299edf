/*
 * spdlog_bench.cpp - spdlog's side of bench/run.sh: the modes and command
 * line of bench_common.h. Configured as spdlog's documentation recommends
 * for low latency: an async logger on a thread pool with one worker thread
 * (queue of 8192 slots, blocking when full), a basic_file_sink, and a
 * pattern comparable to llog's default line:
 *   2026-01-01T12:00:00.123456789Z info  [1234] spdlog_bench.cpp:42 msg
 * With -d: overrun_oldest and a 256-slot queue; drops are the pool's
 * overrun counter.
 *
 * Built a second time with BENCH_SPDLOG_SYNC as spdlog_sync_bench
 * ("spdlog-sync"): the same file sink and pattern on a synchronous logger
 * (the caller formats and writes under the sink's mutex), which is spdlog's
 * faster configuration on a machine with few cores. No drop mode.
 */
#include <spdlog/async.h>
#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/base_sink.h>
#include <spdlog/spdlog.h>

#include <unistd.h>

#include <atomic>
#include <mutex>

#ifdef BENCH_SPDLOG_SYNC
#define BENCH_NAME "spdlog-sync"
#define BENCH_NO_DROP
#else
#define BENCH_NAME "spdlog"
#endif

struct bench_opts;
static int logger_init(const struct bench_opts *o);
static std::shared_ptr<spdlog::logger> g_logger;

// A sink at level "off": it sees no record, only the flushes, which the
// worker runs after the file sink's; so once it has flushed, every record
// queued before the flush request is in the file.
class flush_marker : public spdlog::sinks::base_sink<std::mutex> {
      public:
	std::atomic<unsigned long> flushes{0};

      protected:
	void sink_it_(const spdlog::details::log_msg &) override {}
	void flush_() override { flushes.fetch_add(1, std::memory_order_release); }
};
static std::shared_ptr<flush_marker> g_marker;

__attribute__((always_inline)) static inline void log_fmt(int i, double ms, const char *peer)
{
	SPDLOG_LOGGER_INFO(g_logger, "request {} took {:.3f} ms from {}", i, ms, peer);
}

__attribute__((always_inline)) static inline void log_static(void)
{
	SPDLOG_LOGGER_INFO(g_logger, "cache refreshed, serving from the new snapshot");
}

static void logger_flush(void)
{
#ifdef BENCH_SPDLOG_SYNC
	g_logger->flush(); /* synchronous: on disk when it returns */
	return;
#endif
	// flush() on an async logger only queues the request behind the
	// records; wait until the worker has run it (file sink first).
	unsigned long before = g_marker->flushes.load(std::memory_order_acquire);

	g_logger->flush();
	while (g_marker->flushes.load(std::memory_order_acquire) == before)
		usleep(20);
}

static unsigned long long logger_dropped(void)
{
#ifdef BENCH_SPDLOG_SYNC
	return 0;
#endif
	return spdlog::thread_pool()->overrun_counter();
}

static void logger_shutdown(void)
{
	g_logger.reset();
	spdlog::shutdown();
}

#include "bench_common.h"

static int logger_init(const struct bench_opts *o)
{
	try {
#ifdef BENCH_SPDLOG_SYNC
		auto file = std::make_shared<spdlog::sinks::basic_file_sink_mt>(o->file, true);
		g_marker = std::make_shared<flush_marker>();
		g_logger = std::make_shared<spdlog::logger>("bench", file);
		g_logger->set_pattern("%Y-%m-%dT%H:%M:%S.%FZ %-5l [%t] %s:%# %v",
				      spdlog::pattern_time_type::utc);
		g_logger->set_level(spdlog::level::info);
		return 0;
#endif
		spdlog::init_thread_pool(o->drop ? 256 : 8192, 1);
		auto sink = std::make_shared<spdlog::sinks::basic_file_sink_mt>(o->file, true);
		g_marker = std::make_shared<flush_marker>();
		g_marker->set_level(spdlog::level::off);
		spdlog::sinks_init_list sinks{sink, g_marker};
		g_logger = std::make_shared<spdlog::async_logger>(
			"bench", sinks, spdlog::thread_pool(),
			o->drop ? spdlog::async_overflow_policy::overrun_oldest
				: spdlog::async_overflow_policy::block);
		g_logger->set_pattern("%Y-%m-%dT%H:%M:%S.%FZ %-5l [%t] %s:%# %v",
				      spdlog::pattern_time_type::utc);
		g_logger->set_level(spdlog::level::info);
	} catch (const std::exception &e) {
		fprintf(stderr, "spdlog_bench: %s\n", e.what());
		return 1;
	}
	return 0;
}
