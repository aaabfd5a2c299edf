/*
 * tsc.h - the time stamp counter for the benchmarks that time calls alone
 * (x86-64): a bracket around the code timed, and the counter's rate
 * against CLOCK_MONOTONIC.
 */
#ifndef LLOG_BENCH_TSC_H
#define LLOG_BENCH_TSC_H

#include <stdint.h>
#include <time.h>
#include <x86intrin.h>

/* lfence;rdtsc;lfence: nothing before it is still running, nothing after
 * it has started. */
static inline uint64_t bench_tsc_begin(void)
{
	uint64_t t;

	_mm_lfence();
	t = __rdtsc();
	_mm_lfence();
	return t;
}

/* rdtscp;lfence: everything before it has finished. */
static inline uint64_t bench_tsc_end(void)
{
	unsigned aux;
	uint64_t t = __rdtscp(&aux);

	_mm_lfence();
	return t;
}

/* Nanoseconds per counter tick, measured over ms milliseconds. */
static inline double bench_tsc_ns_per_tick(unsigned ms)
{
	struct timespec a, b;
	uint64_t t0, t1;
	long long ns;

	clock_gettime(CLOCK_MONOTONIC, &a);
	t0 = __rdtsc();
	do {
		clock_gettime(CLOCK_MONOTONIC, &b);
		ns = (b.tv_sec - a.tv_sec) * 1000000000LL + (b.tv_nsec - a.tv_nsec);
	} while (ns < (long long)ms * 1000000LL);
	t1 = __rdtsc();
	return (double)ns / (double)(t1 - t0);
}

#endif /* LLOG_BENCH_TSC_H */
