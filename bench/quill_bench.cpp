/*
 * quill_bench.cpp - quill's side of bench/run.sh (built only with
 * --peers DIR: the quill sources at DIR/quill, header-only). The modes and
 * command line are bench_common.h's. Configured as quill's own benchmarks
 * do: the backend thread busy-spins (sleep_duration 0), the rdtsc clock,
 * a file sink, each logging thread preallocates its queue before its first
 * call; a pattern comparable to llog's default line. logger_flush is
 * flush_log(), which returns once the backend wrote everything before it.
 * No drop mode (quill's default queue blocks).
 */
#include "quill/Backend.h"
#include "quill/Frontend.h"
#include "quill/LogMacros.h"
#include "quill/Logger.h"
#include "quill/sinks/FileSink.h"

#include <chrono>
#include <utility>

#define BENCH_NAME "quill"
#define BENCH_NO_DROP
#define BENCH_THREAD_START() quill::Frontend::preallocate()

struct bench_opts;
static int logger_init(const struct bench_opts *o);
static quill::Logger *g_logger;

__attribute__((always_inline)) static inline void log_fmt(int i, double ms, const char *peer)
{
	LOG_INFO(g_logger, "request {} took {:.3f} ms from {}", i, ms, peer);
}

__attribute__((always_inline)) static inline void log_static(void)
{
	LOG_INFO(g_logger, "cache refreshed, serving from the new snapshot");
}

static void logger_flush(void)
{
	g_logger->flush_log();
}

static unsigned long long logger_dropped(void)
{
	return 0;
}

static void logger_shutdown(void)
{
	quill::Backend::stop();
}

#include "bench_common.h"

static int logger_init(const struct bench_opts *o)
{
	quill::BackendOptions bo;
	quill::FileSinkConfig fc;

	bo.sleep_duration = std::chrono::nanoseconds{0};
	quill::Backend::start(bo);
	fc.set_open_mode('w');
	fc.set_filename_append_option(quill::FilenameAppendOption::None);
	auto sink = quill::Frontend::create_or_get_sink<quill::FileSink>(o->file, fc);
	g_logger = quill::Frontend::create_or_get_logger(
		"bench", std::move(sink),
		quill::PatternFormatterOptions{
			"%(time) %(log_level:<5) [%(thread_id)] %(short_source_location) %(message)",
			"%Y-%m-%dT%H:%M:%S.%Qns", quill::Timezone::GmtTime});
	return g_logger == nullptr;
}
