/*
 * filtered.c - the caller's cost of a LOG call that the level filters out:
 * the global-level check (the check before categories:
 * one relaxed load of the default level, a compare) against a call of the
 * default category and a call filtered out by its category's level
 * (spec "debug,net=info": a DEBUG call in "net"), with the site's cache
 * warm. Each sample times a loop of 1,000 calls with rdtsc (the loop's
 * own cost included, the same in every row); the table gives p50 and p90
 * of ns per call over the samples. Run by bench/run.sh, or alone:
 *   build/release/bench/filtered [samples]
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <x86intrin.h>

#include "llog.h"
#include "tsc.h"

#define CALLS 1000

static volatile int sink_arg;

/* The level check of the previous version of LLOG_LOG (global level). */
#define OLD_LOG(level, ...)                                                   \
	do {                                                                  \
		if (LLOG__ENABLED(level)) {                                   \
			LLOG__SITE(level, __VA_ARGS__);                       \
			llog__log(&llog__site_, __VA_ARGS__);                 \
		}                                                             \
	} while (0)

static __attribute__((noinline)) void old_global(void)
{
	for (int i = 0; i < CALLS; i++)
		OLD_LOG(LLOG_DEBUG, "x %d", sink_arg);
}

static __attribute__((noinline)) void default_cat(void)
{
	for (int i = 0; i < CALLS; i++)
		LOG_DEBUG("x %d", sink_arg);
}

static __attribute__((noinline)) void by_category(void)
{
	for (int i = 0; i < CALLS; i++)
		LOG_DEBUG_CAT("net", "x %d", sink_arg);
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void row(const char *name, void (*fn)(void), int samples, double npt)
{
	double *v = malloc((size_t)samples * sizeof(*v));

	for (int i = 0; i < 100; i++)
		fn();
	for (int s = 0; s < samples; s++) {
		uint64_t t0 = __rdtsc();

		fn();
		v[s] = (double)(__rdtsc() - t0) * npt / CALLS;
	}
	qsort(v, (size_t)samples, sizeof(*v), cmp);
	printf("| %-44s | %5.2f | %5.2f |\n", name, v[samples / 2], v[samples * 9 / 10]);
	free(v);
}

int main(int argc, char **argv)
{
	int samples = argc > 1 ? atoi(argv[1]) : 20000;
	double npt = bench_tsc_ns_per_tick(50);

	if (samples < 10)
		samples = 10;
	if (llog_init(NULL) != 0 || llog_set_levels("debug,net=info") != 0)
		return 1;
	llog_set_level(LLOG_INFO); /* default INFO, net INFO: DEBUG filtered in both */
	printf("### Filtered-out calls, ns per call (loops of %d, %d samples)\n\n", CALLS,
	       samples);
	printf("| call | p50 | p90 |\n|---|---|---|\n");
	for (int r = 0; r < 2; r++) {
		row("LOG_DEBUG, global check (previous version)", old_global, samples, npt);
		row("LOG_DEBUG, default category (site cache)", default_cat, samples, npt);
		row("LOG_DEBUG_CAT(\"net\"), filtered by net=info", by_category, samples, npt);
	}
	llog_shutdown();
	return 0;
}
