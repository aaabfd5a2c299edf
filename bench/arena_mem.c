/*
 * arena_mem.c - what a thread's ring costs in memory and in its first lap.
 *
 *   arena_mem churn [seconds]   (default 5) threads started and ended in
 *       waves of 16, each logging 3 records and exiting, as a service with
 *       a thread per request would: threads per second, the peak resident
 *       size sampled every millisecond, and the resident size after
 *       llog_flush().
 *   arena_mem firstlap [threads] (default 50) fresh threads one after the
 *       other, each timing each of its first 6,000 LOG_INFO calls (about
 *       two laps of a 256 KiB ring) with rdtsc: the first call (it makes
 *       the arena) apart, then p50 p99 p99.9 max of the others in ns, and
 *       how many took longer than 5 us (page faults and system calls).
 *
 * The sink is a console on /dev/null. Numbers, not assertions: compare two
 * builds on the same machine in the same minute (bench/README.md).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

#include <llog.h>
#include <llog/sinks.h>

#define WAVE 16
#define PER_THREAD 3
#define LAP_CALLS 6000

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The resident size in KiB (/proc/self/statm), or 0. */
static long rss_kib(void)
{
	long pages = 0, res = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (f == NULL)
		return 0;
	if (fscanf(f, "%ld %ld", &pages, &res) != 2)
		res = 0;
	fclose(f);
	return res * (sysconf(_SC_PAGESIZE) / 1024);
}

/* ---- churn ---------------------------------------------------------------- */

static atomic_int sampling;
static atomic_long peak_kib;

static void *sampler(void *arg)
{
	struct timespec ms = {0, 1000000};

	(void)arg;
	while (atomic_load(&sampling)) {
		long r = rss_kib();

		if (r > atomic_load(&peak_kib))
			atomic_store(&peak_kib, r);
		nanosleep(&ms, NULL);
	}
	return NULL;
}

static void *short_lived(void *arg)
{
	long id = (long)(intptr_t)arg;

	for (int i = 0; i < PER_THREAD; i++)
		LOG_INFO("request %ld step %d done", id, i);
	return NULL;
}

static int churn(int seconds)
{
	uint64_t t0 = now_ns(), end = t0 + (uint64_t)seconds * 1000000000u;
	long n = 0, before = rss_kib();
	pthread_t s, th[WAVE];

	atomic_store(&sampling, 1);
	if (pthread_create(&s, NULL, sampler, NULL) != 0)
		return 1;
	while (now_ns() < end) {
		for (int i = 0; i < WAVE; i++)
			if (pthread_create(&th[i], NULL, short_lived, (void *)(intptr_t)(n + i)) != 0)
				return 1;
		for (int i = 0; i < WAVE; i++)
			pthread_join(th[i], NULL);
		n += WAVE;
	}
	atomic_store(&sampling, 0);
	pthread_join(s, NULL);
	llog_flush();
	printf("churn: %ld threads in %.1f s (%.0f/s); resident before %ld KiB, peak %ld KiB, "
	       "after llog_flush %ld KiB\n",
	       n, (double)(now_ns() - t0) / 1e9, (double)n * 1e9 / (double)(now_ns() - t0), before,
	       atomic_load(&peak_kib), rss_kib());
	return 0;
}

/* ---- first lap ------------------------------------------------------------ */

static double ns_per_tick;
static uint64_t *lap; /* threads * LAP_CALLS ticks */
static uint64_t *first;

static void calibrate(void)
{
	uint64_t t0 = now_ns(), c0 = __rdtsc(), t1;

	do
		t1 = now_ns();
	while (t1 - t0 < 200000000u);
	ns_per_tick = (double)(t1 - t0) / (double)(__rdtsc() - c0);
}

static void *lapper(void *arg)
{
	long t = (long)(intptr_t)arg;
	uint64_t *d = lap + (size_t)t * LAP_CALLS;

	for (int i = 0; i < LAP_CALLS; i++) {
		uint64_t c = __rdtsc();

		LOG_INFO("request %d took %d us from %s", i, (int)(i * 7 % 1000), "10.0.0.1");
		d[i] = __rdtsc() - c;
	}
	first[t] = d[0];
	return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static int firstlap(int threads)
{
	size_t n = 0, slow = 0;
	uint64_t *all;
	pthread_t th;

	calibrate();
	lap = calloc((size_t)threads * LAP_CALLS, sizeof(*lap));
	first = calloc((size_t)threads, sizeof(*first));
	all = calloc((size_t)threads * LAP_CALLS, sizeof(*all));
	if (lap == NULL || first == NULL || all == NULL)
		return 1;
	for (long t = 0; t < threads; t++) {
		if (pthread_create(&th, NULL, lapper, (void *)(intptr_t)t) != 0)
			return 1;
		pthread_join(th, NULL);
		llog_flush();
	}
	for (long t = 0; t < threads; t++)
		for (int i = 1; i < LAP_CALLS; i++) {
			all[n] = lap[(size_t)t * LAP_CALLS + (size_t)i];
			slow += (double)all[n] * ns_per_tick > 5000.0;
			n++;
		}
	qsort(all, n, sizeof(*all), cmp_u64);
	qsort(first, (size_t)threads, sizeof(*first), cmp_u64);
#define NS(x) ((double)(x) * ns_per_tick)
	printf("firstlap: %d threads x %d calls; first call p50 %.0f max %.0f ns; others p50 %.1f "
	       "p99 %.1f p99.9 %.0f max %.0f ns; %zu over 5 us\n",
	       threads, LAP_CALLS, NS(first[threads / 2]), NS(first[threads - 1]), NS(all[n / 2]),
	       NS(all[n * 99 / 100]), NS(all[n * 999 / 1000]), NS(all[n - 1]), slow);
	free(lap);
	free(first);
	free(all);
	return 0;
}

int main(int argc, char **argv)
{
	struct llog_console_options co = {.color = LLOG_COLOR_NEVER};
	int rc;

	if (argc < 2 || (strcmp(argv[1], "churn") != 0 && strcmp(argv[1], "firstlap") != 0)) {
		fprintf(stderr, "usage: %s churn [seconds] | firstlap [threads]\n", argv[0]);
		return 2;
	}
	co.fd = open("/dev/null", O_WRONLY);
	if (co.fd < 0 || llog_add_sink(llog_console_sink(&co)) != 0 || llog_init(NULL) != 0)
		return 1;
	if (strcmp(argv[1], "churn") == 0)
		rc = churn(argc > 2 ? atoi(argv[2]) : 5);
	else
		rc = firstlap(argc > 2 ? atoi(argv[2]) : 50);
	llog_shutdown();
	return rc;
}
