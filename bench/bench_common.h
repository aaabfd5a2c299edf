/*
 * bench_common.h - the driver shared by bench/llog_bench.c and
 * bench/spdlog_bench.cpp, so that both loggers run exactly the same modes
 * with the same command line (bench/run.sh drives both identically).
 *
 * The including file defines, before including this header:
 *   BENCH_NAME                          "llog" or "spdlog"
 *   static int  logger_init(const struct bench_opts *o);   0 on success
 *   static void log_fmt(int i, double ms, const char *peer);
 *   static void log_static(void);
 *   static void logger_flush(void);     returns when everything is on disk
 *   static unsigned long long logger_dropped(void);
 *   static void logger_shutdown(void);
 * and may define BENCH_THREAD_START() (run by each logging thread before
 * its first call: a peer's per-thread preallocation), BENCH_NO_DROP (the
 * logger has no drop mode: -d is refused) and BENCH_HAS_KV with
 *   static void log_kv(int i, double ms, const char *peer);
 * the same information as log_fmt's as three structured fields (-m kv is
 * refused without it).
 *
 * usage: BENCH MODE [-t threads] [-n count] [-m fmt|static|kv] [-f file]
 *                   [-c curve-file] [-d]
 *   MODE   burst   method (a): bursts of 20 calls timed together with rdtsc,
 *                  the time divided by 20; a random 2.0-2.2 ms busy-wait
 *                  between bursts; -n bursts per thread (100 more warm up)
 *          warm    method (a) with 50-55 us busy-waits between bursts (the
 *                  logger never goes idle; -g sets the gap)
 *          each    method (b): every call bracketed by lfence;rdtsc ...
 *                  rdtscp;lfence, same bursts and waits; -n bursts per thread
 *          cold    as burst, but before each burst a sweep of 32 MiB (one
 *                  store per cache line) and a system call (getppid: with
 *                  page-table isolation the TLB is flushed) disturb the
 *                  caches and the TLB; only the burst's first call is timed,
 *                  alone as in each mode; -n bursts per thread
 *          tput    -n records logged back to back (split over the threads),
 *                  time until the last one is on disk
 *   -g US  the gap between bursts, in us (burst: 2000, warm: 50; a random
 *          extra of up to 10 % is added)
 *   -d     overflow: drop (llog: LLOG_OVERFLOW_DROP and a 16 KiB arena;
 *          spdlog: overrun_oldest and a 256-slot queue); drops are reported
 * Prints one line of key=value pairs (ns, records/s, bytes, KiB).
 */
#ifndef BENCH_COMMON_H
#define BENCH_COMMON_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

#define BENCH_BURST 20
#define BENCH_WARMUP 100

enum bench_mode { MODE_BURST, MODE_WARM, MODE_EACH, MODE_TPUT, MODE_COLD };
enum bench_msg { MSG_FMT, MSG_STATIC, MSG_KV };
static const char *const bench_msg_names[] = {"fmt", "static", "kv"};

#ifndef BENCH_THREAD_START
#define BENCH_THREAD_START() ((void)0)
#endif

struct bench_opts {
	enum bench_mode mode;
	int threads;
	long count;
	enum bench_msg msg;
	int drop;
	unsigned gap_us;
	const char *file;
	const char *curve;
};

static double bench_ns_per_tick;

static uint64_t bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void bench_calibrate(void)
{
	uint64_t t0 = bench_now_ns(), c0 = __rdtsc(), t1, c1;

	do
		t1 = bench_now_ns();
	while (t1 - t0 < 100000000u);
	c1 = __rdtsc();
	bench_ns_per_tick = (double)(t1 - t0) / (double)(c1 - c0);
}

static inline uint64_t tsc_begin(void)
{
	unsigned lo, hi;

	__asm__ __volatile__("lfence\n\trdtsc" : "=a"(lo), "=d"(hi)::"memory");
	return ((uint64_t)hi << 32) | lo;
}

static inline uint64_t tsc_end(void)
{
	unsigned lo, hi, aux;

	__asm__ __volatile__("rdtscp\n\tlfence" : "=a"(lo), "=d"(hi), "=c"(aux)::"memory");
	return ((uint64_t)hi << 32) | lo;
}

static void bench_busy_wait_ns(uint64_t ns)
{
	uint64_t end = __rdtsc() + (uint64_t)((double)ns / bench_ns_per_tick);

	while (__rdtsc() < end)
		_mm_pause();
}

static const char *const bench_peers[] = {"10.0.0.17:443", "10.0.3.4:8443", "192.168.1.20:80"};

/* Cold mode: the bytes swept between bursts (more than a last-level
 * cache of this size class), one store per cache line. */
#define BENCH_SWEEP_BYTES (32u << 20)

struct bench_worker {
	pthread_t th;
	unsigned char *sweep; /* cold mode's buffer */
	unsigned seed;
	int index;
	const struct bench_opts *o;
	double *samples;
	size_t n;
};

#ifdef BENCH_HAS_KV
#define BENCH_KV_CALL(i) log_kv((int)(i), (double)((i) % 5000) * 0.0173, bench_peers[(i) % 3])
#else
#define BENCH_KV_CALL(i) ((void)0) /* refused in main() */
#endif

#define BENCH_CALL(o, i)                                                                   \
	do {                                                                               \
		if ((o)->msg == MSG_STATIC)                                                \
			log_static();                                                      \
		else if ((o)->msg == MSG_KV)                                               \
			BENCH_KV_CALL(i);                                                  \
		else                                                                       \
			log_fmt((int)(i), (double)((i) % 5000) * 0.0173, bench_peers[(i) % 3]); \
	} while (0)

static void *bench_run_worker(void *arg)
{
	struct bench_worker *w = (struct bench_worker *)arg;
	const struct bench_opts *o = w->o;

	BENCH_THREAD_START();
	if (o->mode == MODE_TPUT) {
		long per = o->count / o->threads, base = per * w->index;

		if (w->index == o->threads - 1)
			per = o->count - base;
		for (long i = base; i < base + per; i++)
			BENCH_CALL(o, i);
		return NULL;
	}
	for (long b = 0; b < BENCH_WARMUP + o->count; b++) {
		bench_busy_wait_ns((uint64_t)o->gap_us * 1000u +
				   (uint64_t)(rand_r(&w->seed) % (o->gap_us * 100u + 1u)));
		if (o->mode == MODE_COLD) {
			/* Caches and TLB disturbed: a sweep of a buffer larger
			 * than the caches (one store per line) and a system
			 * call (with page-table isolation it flushes the TLB);
			 * then the burst's first call timed alone, the rest of
			 * the burst as in burst mode, untimed. */
			uint64_t c0, c1;
			long i = b * BENCH_BURST;

			for (size_t k = 0; k < BENCH_SWEEP_BYTES; k += 64)
				w->sweep[k]++;
			(void)syscall(SYS_getppid);
			c0 = tsc_begin();
			BENCH_CALL(o, i);
			c1 = tsc_end();
			if (b >= BENCH_WARMUP)
				w->samples[w->n++] = (double)(c1 - c0) * bench_ns_per_tick;
			for (i++; i < (b + 1) * BENCH_BURST; i++)
				BENCH_CALL(o, i);
		} else if (o->mode != MODE_EACH) {
			uint64_t c0 = __rdtsc(), c1;

			for (long i = b * BENCH_BURST; i < (b + 1) * BENCH_BURST; i++)
				BENCH_CALL(o, i);
			c1 = __rdtsc();
			if (b >= BENCH_WARMUP)
				w->samples[w->n++] =
					(double)(c1 - c0) * bench_ns_per_tick / BENCH_BURST;
		} else {
			for (long i = b * BENCH_BURST; i < (b + 1) * BENCH_BURST; i++) {
				uint64_t c0 = tsc_begin(), c1;

				BENCH_CALL(o, i);
				c1 = tsc_end();
				if (b >= BENCH_WARMUP)
					w->samples[w->n++] = (double)(c1 - c0) * bench_ns_per_tick;
			}
		}
	}
	return NULL;
}

static int bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double bench_pct(const double *s, size_t n, double p)
{
	size_t i = (size_t)(p / 100.0 * (double)(n - 1) + 0.5);

	return s[i < n ? i : n - 1];
}

/* Median cost of an empty lfence;rdtsc ... rdtscp;lfence bracket, in ns. */
static double bench_timer_overhead(void)
{
	enum { N = 100001 };
	double *s = (double *)malloc(N * sizeof(double));
	double r;

	for (int i = 0; i < N; i++) {
		uint64_t c0 = tsc_begin(), c1 = tsc_end();

		s[i] = (double)(c1 - c0) * bench_ns_per_tick;
	}
	qsort(s, N, sizeof(double), bench_cmp_double);
	r = s[N / 2];
	free(s);
	return r;
}

static void bench_usage(const char *argv0)
{
	fprintf(stderr,
		"usage: %s burst|warm|each|cold|tput [-t threads] [-n count] [-m fmt|static|kv] [-f file]"
		" [-c curve-file] [-g gap-us] [-d]\n",
		argv0);
	exit(2);
}

int main(int argc, char **argv)
{
	struct bench_opts o;
	struct bench_worker *w;
	struct rusage ru;
	struct stat st;
	uint64_t t0, t1;
	double timer = 0;
	int c;

	memset(&o, 0, sizeof(o));
	o.threads = 1;
	o.count = 1000;
	o.file = "/tmp/bench.log";
	if (argc < 2)
		bench_usage(argv[0]);
	if (strcmp(argv[1], "burst") == 0)
		o.mode = MODE_BURST;
	else if (strcmp(argv[1], "warm") == 0)
		o.mode = MODE_WARM;
	else if (strcmp(argv[1], "each") == 0)
		o.mode = MODE_EACH;
	else if (strcmp(argv[1], "tput") == 0)
		o.mode = MODE_TPUT;
	else if (strcmp(argv[1], "cold") == 0)
		o.mode = MODE_COLD;
	else
		bench_usage(argv[0]);
	optind = 2;
	o.gap_us = o.mode == MODE_WARM ? 50u : 2000u;
	while ((c = getopt(argc, argv, "t:n:m:f:c:g:d")) != -1) {
		switch (c) {
		case 't': o.threads = atoi(optarg); break;
		case 'n': o.count = atol(optarg); break;
		case 'm':
			if (strcmp(optarg, "static") == 0)
				o.msg = MSG_STATIC;
			else if (strcmp(optarg, "kv") == 0)
				o.msg = MSG_KV;
			else if (strcmp(optarg, "fmt") == 0)
				o.msg = MSG_FMT;
			else
				bench_usage(argv[0]);
			break;
		case 'f': o.file = optarg; break;
		case 'c': o.curve = optarg; break;
		case 'g': o.gap_us = (unsigned)atoi(optarg); break;
		case 'd': o.drop = 1; break;
		default: bench_usage(argv[0]);
		}
	}
	if (o.threads <= 0 || o.count <= 0)
		bench_usage(argv[0]);
#ifndef BENCH_HAS_KV
	if (o.msg == MSG_KV) {
		fprintf(stderr, "%s: no structured fields (-m kv)\n", BENCH_NAME);
		return 2;
	}
#endif
#ifdef BENCH_NO_DROP
	if (o.drop) {
		fprintf(stderr, "%s: no drop mode\n", BENCH_NAME);
		return 2;
	}
#endif
	unlink(o.file);
	if (o.mode != MODE_TPUT) {
		bench_calibrate();
		if (o.mode == MODE_EACH || o.mode == MODE_COLD)
			timer = bench_timer_overhead();
	}
	if (logger_init(&o) != 0)
		return 1;
	w = (struct bench_worker *)calloc((size_t)o.threads, sizeof(*w));
	t0 = bench_now_ns();
	for (int i = 0; i < o.threads; i++) {
		w[i].seed = 12345u + (unsigned)i;
		w[i].index = i;
		w[i].o = &o;
		if (o.mode == MODE_COLD &&
		    (w[i].sweep = (unsigned char *)calloc(BENCH_SWEEP_BYTES, 1)) == NULL) {
			fprintf(stderr, "%s: no memory for the cold mode's sweep\n", BENCH_NAME);
			return 1;
		}
		if (o.mode != MODE_TPUT)
			w[i].samples = (double *)calloc(
				(size_t)o.count * (o.mode == MODE_EACH ? BENCH_BURST : 1),
				sizeof(double));
		pthread_create(&w[i].th, NULL, bench_run_worker, &w[i]);
	}
	for (int i = 0; i < o.threads; i++)
		pthread_join(w[i].th, NULL);
	logger_flush();
	t1 = bench_now_ns();
	printf("logger=%s mode=%s threads=%d msg=%s", BENCH_NAME,
	       o.drop ? "drop" : argv[1], o.threads,
	       bench_msg_names[o.msg]);
	if (o.mode == MODE_TPUT) {
		printf(" records=%ld seconds=%.6f rps=%.0f", o.count, (double)(t1 - t0) / 1e9,
		       (double)o.count / ((double)(t1 - t0) / 1e9));
	} else {
		size_t k = 0;
		double *all;

		for (int i = 0; i < o.threads; i++)
			k += w[i].n;
		all = (double *)malloc(k * sizeof(double));
		k = 0;
		for (int i = 0; i < o.threads; i++) {
			memcpy(all + k, w[i].samples, w[i].n * sizeof(double));
			k += w[i].n;
			free(w[i].samples);
			free(w[i].sweep);
		}
		qsort(all, k, sizeof(double), bench_cmp_double);
		printf(" samples=%zu p50=%.1f p90=%.1f p99=%.1f p999=%.1f max=%.1f timer=%.1f", k,
		       bench_pct(all, k, 50), bench_pct(all, k, 90), bench_pct(all, k, 99),
		       bench_pct(all, k, 99.9), all[k - 1], timer);
		if (o.curve != NULL) {
			FILE *f = fopen(o.curve, "w");
			static const double extra[] = {99.5, 99.9, 99.95, 99.99, 100};

			if (f != NULL) {
				for (int p = 1; p < 100; p++)
					fprintf(f, "%g %.1f\n", bench_pct(all, k, p), (double)p);
				for (size_t e = 0; e < sizeof(extra) / sizeof(extra[0]); e++)
					fprintf(f, "%g %.1f\n", bench_pct(all, k, extra[e]), extra[e]);
				fclose(f);
			}
		}
		free(all);
	}
	printf(" dropped=%llu", logger_dropped());
	logger_shutdown();
	printf(" bytes=%lld", stat(o.file, &st) == 0 ? (long long)st.st_size : -1LL);
	getrusage(RUSAGE_SELF, &ru);
	printf(" rss_kb=%ld\n", ru.ru_maxrss);
	free(w);
	return 0;
}

#endif /* BENCH_COMMON_H */
