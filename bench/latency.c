/*
 * latency.c - caller cost of one LOG_INFO, measured the way the fastest
 * loggers publish it: bursts of 20 calls timed with rdtsc and averaged per
 * call, a random 2.0-2.2 ms busy-wait between bursts (so the flusher drains
 * and each burst starts from a quiet state), for 1, 2 and 4 threads, with
 * the flusher running and writing a console sink to /dev/null.
 *
 * usage: latency [bursts-per-thread] (default 1000; 100 warm-up bursts more)
 * Prints p50 p90 p99 p99.9 max in ns per call, and the cost of rdtsc itself.
 * Numbers, not assertions: run it on a quiet machine, several times.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

#include <llog.h>
#include <llog/sinks.h>

#define BURST 20
#define WARMUP 100

static double ns_per_tick;
static int bursts = 1000;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void calibrate(void)
{
	uint64_t t0 = now_ns(), c0 = __rdtsc(), t1, c1;

	do
		t1 = now_ns();
	while (t1 - t0 < 200000000u);
	c1 = __rdtsc();
	ns_per_tick = (double)(t1 - t0) / (double)(c1 - c0);
}

static void busy_wait_ns(uint64_t ns)
{
	uint64_t end = __rdtsc() + (uint64_t)((double)ns / ns_per_tick);

	while (__rdtsc() < end)
		_mm_pause();
}

struct worker {
	pthread_t th;
	unsigned seed;
	double *samples; /* ns per call, one per burst */
};

static void *run_worker(void *arg)
{
	struct worker *w = arg;
	const char *peer = "10.0.0.17:443";

	for (int b = 0; b < WARMUP + bursts; b++) {
		uint64_t c0, c1;

		busy_wait_ns(2000000u + (uint64_t)(rand_r(&w->seed) % 200000u));
		c0 = __rdtsc();
		for (int i = 0; i < BURST; i++)
			LOG_INFO("request %d took %f ms from %s", b * BURST + i, 0.25 * i, peer);
		c1 = __rdtsc();
		if (b >= WARMUP)
			w->samples[b - WARMUP] = (double)(c1 - c0) * ns_per_tick / BURST;
	}
	return NULL;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double pct(const double *s, size_t n, double p)
{
	size_t i = (size_t)(p / 100.0 * (double)(n - 1) + 0.5);

	return s[i < n ? i : n - 1];
}

static double rdtsc_cost(void)
{
	uint64_t c0 = __rdtsc(), c1;

	for (int i = 0; i < 1000000; i++)
		(void)__rdtsc();
	c1 = __rdtsc();
	return (double)(c1 - c0) * ns_per_tick / 1e6;
}

int main(int argc, char **argv)
{
	static const int threads[] = {1, 2, 4};
	int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	struct llog_console_options co = {.fd = fd, .color = LLOG_COLOR_NEVER};
	struct llog_stats st;

	if (argc > 1)
		bursts = atoi(argv[1]);
	if (fd < 0 || bursts <= 0) {
		fprintf(stderr, "usage: %s [bursts]\n", argv[0]);
		return 2;
	}
	calibrate();
	if (llog_add_sink(llog_console_sink(&co)) != 0 || llog_init(NULL) != 0) {
		fprintf(stderr, "llog_init failed\n");
		return 1;
	}
	printf("# llog caller latency, ns per LOG_INFO(\"request %%d took %%f ms from %%s\")\n");
	printf("# bursts of %d, %d bursts per thread, rdtsc costs %.1f ns\n", BURST, bursts,
	       rdtsc_cost());
	printf("| threads | p50 | p90 | p99 | p99.9 | max |\n|---|---|---|---|---|---|\n");
	for (size_t t = 0; t < sizeof(threads) / sizeof(threads[0]); t++) {
		int n = threads[t];
		struct worker *w = calloc((size_t)n, sizeof(*w));
		double *all = calloc((size_t)n * (size_t)bursts, sizeof(double));
		size_t k = 0;

		for (int i = 0; i < n; i++) {
			w[i].seed = 12345u + (unsigned)i;
			w[i].samples = calloc((size_t)bursts, sizeof(double));
			pthread_create(&w[i].th, NULL, run_worker, &w[i]);
		}
		for (int i = 0; i < n; i++) {
			pthread_join(w[i].th, NULL);
			memcpy(all + k, w[i].samples, (size_t)bursts * sizeof(double));
			k += (size_t)bursts;
			free(w[i].samples);
		}
		qsort(all, k, sizeof(double), cmp_double);
		printf("| %d | %.0f | %.0f | %.0f | %.0f | %.0f |\n", n, pct(all, k, 50),
		       pct(all, k, 90), pct(all, k, 99), pct(all, k, 99.9), all[k - 1]);
		free(all);
		free(w);
	}
	llog_flush();
	llog_get_stats(&st);
	printf("# records written %llu, dropped %llu, producer waits %llu\n",
	       (unsigned long long)st.written, (unsigned long long)st.dropped,
	       (unsigned long long)st.blocked);
	llog_shutdown();
	close(fd);
	return st.dropped != 0;
}
