/*
 * first_call.c - what each call of a burst costs by its position: the
 * first call after a pause against the ones after it.
 *
 *   first_call [-n BURSTS] [-g GAP_US] [-m static|fmt] [-f FILE]
 *
 * One thread logs bursts of 20 calls to a file sink (FILE, default
 * /tmp/llog_first_call.zst) separated by GAP_US microseconds of
 * busy-waiting (default 2000, bench/run.sh's bursts; 100 bursts of
 * warm-up are discarded). Each call is timed alone (lfence;rdtsc ...
 * rdtscp;lfence: the bracket's own cost, about 35 cycles here, is
 * included in every position alike). Prints, for each position of the
 * burst, p50, p90 and p99 in TSC cycles over the bursts. The positions
 * after the first show the call with its lines in the cache; the first
 * shows what a pause costs it: lines and pages that another core or the
 * machine took meanwhile (bench/README.md, "The first call after a
 * pause"). Numbers, not assertions.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <x86intrin.h>

#include "llog.h"
#include "llog/sinks.h"
#include "tsc.h"

#define BURST 20
#define WARM 100

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	const char *path = "/tmp/llog_first_call.zst", *msg = "static";
	unsigned bursts = 2000, gap_us = 2000;
	struct llog_file_options fo = {0};
	struct llog_config cfg = {0};
	struct llog_sink *sink;
	uint64_t *d, *col, gap;
	int c;

	while ((c = getopt(argc, argv, "n:g:m:f:")) != -1) {
		switch (c) {
		case 'n': bursts = (unsigned)atoi(optarg); break;
		case 'g': gap_us = (unsigned)atoi(optarg); break;
		case 'm': msg = optarg; break;
		case 'f': path = optarg; break;
		default:
			fprintf(stderr, "usage: %s [-n BURSTS] [-g GAP_US] [-m static|fmt] [-f FILE]\n",
				argv[0]);
			return 2;
		}
	}
	if (bursts == 0 || (strcmp(msg, "static") != 0 && strcmp(msg, "fmt") != 0)) {
		fprintf(stderr, "first_call: -n must be > 0, -m static or fmt\n");
		return 2;
	}
	d = calloc((size_t)bursts * BURST, sizeof(*d));
	col = calloc(bursts, sizeof(*col));
	if (d == NULL || col == NULL)
		return 1;
	gap = (uint64_t)((double)gap_us * 1000.0 / bench_tsc_ns_per_tick(50));
	fo.path = path;
	cfg.level = LLOG_INFO;
	sink = llog_file_sink(&fo);
	if (sink == NULL || llog_init(&cfg) != 0 || llog_add_sink(sink) != 0) {
		fprintf(stderr, "first_call: cannot start llog with a file sink at %s\n", path);
		return 1;
	}
	for (unsigned b = 0; b < bursts + WARM; b++) {
		uint64_t end;

		for (unsigned i = 0; i < BURST; i++) {
			uint64_t t0 = bench_tsc_begin(), t1;

			if (msg[0] == 's')
				LOG_INFO("cache refreshed, serving from the new snapshot");
			else
				LOG_INFO("request %d took %.3f ms from %s", (int)i, 0.25 * i, "10.1.2.3");
			t1 = bench_tsc_end();
			if (b >= WARM)
				d[(size_t)(b - WARM) * BURST + i] = t1 - t0;
		}
		end = __rdtsc() + gap;
		while (__rdtsc() < end)
			;
	}
	llog_shutdown();
	printf("first_call: %s, %u bursts of %d, %u us apart (TSC cycles)\n", msg, bursts, BURST,
	       gap_us);
	for (unsigned i = 0; i < BURST; i++) {
		for (unsigned b = 0; b < bursts; b++)
			col[b] = d[(size_t)b * BURST + i];
		qsort(col, bursts, sizeof(*col), cmp_u64);
		printf("position %2u: p50 %5llu p90 %5llu p99 %6llu\n", i,
		       (unsigned long long)col[bursts / 2],
		       (unsigned long long)col[(size_t)bursts * 9 / 10],
		       (unsigned long long)col[(size_t)bursts * 99 / 100]);
	}
	free(col);
	free(d);
	return 0;
}
