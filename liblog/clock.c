/*
 * clock.c - TSC detection and raw-to-UTC conversion. See clock.h.
 */
#include "clock.h"

#include <fcntl.h>
#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

int llog__clock_tsc;
/* Aligned: the line is theirs alone (clock.h). */
alignas(64) struct llog__push_words llog__pw;

uint64_t llog__clock_realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int64_t llog__mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Runs before main (and before any thread can log), so producers read
 * llog__clock_tsc without synchronization. */
__attribute__((constructor)) void llog__clock_init(void)
{
#if defined(__x86_64__) || defined(__i386__)
	unsigned eax, ebx, ecx, edx;
	const char *env = getenv("LLOG_CLOCK");

	if (env != NULL && strcmp(env, "realtime") == 0)
		return;
	/* CPUID 0x80000007 EDX bit 8: invariant TSC (constant rate, runs in
	 * every C/P state, synchronized across cores on such parts). */
	if (__get_cpuid(0x80000000u, &eax, &ebx, &ecx, &edx) && eax >= 0x80000007u &&
	    __get_cpuid(0x80000007u, &eax, &ebx, &ecx, &edx) && (edx & (1u << 8))) {
		llog__clock_tsc = 1;
		/* Relaxed: before main; threads start after it. */
		llog__store_relaxed(&llog__pw.clock_mode, LLOG__CLOCK_TSC);
	}
#endif
}

/* Whether the whitespace-separated list s has the word w. */
static int has_word(const char *s, const char *w)
{
	size_t n = strlen(w);

	for (const char *p = s; (p = strstr(p, w)) != NULL; p += n)
		if ((p == s || p[-1] == ' ' || p[-1] == '\n') &&
		    (p[n] == '\0' || p[n] == ' ' || p[n] == '\n'))
			return 1;
	return 0;
}

int llog__clock_tsc_verdict(const char *current, const char *available)
{
	if (current != NULL && has_word(current, "tsc"))
		return LLOG__TSC_CURRENT;
	if (available != NULL && has_word(available, "tsc"))
		return LLOG__TSC_AVAILABLE;
	return LLOG__TSC_NOT_AVAILABLE;
}

/* The first line of the sysfs file name into buf (cap bytes, NUL-ended);
 * buf empty when it cannot be read. */
static void read_sys(const char *name, char *buf, size_t cap)
{
	char path[96];
	ssize_t n;
	int fd;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "/sys/devices/system/clocksource/clocksource0/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return;
	n = read(fd, buf, cap - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
}

int llog__clock_tsc_synced(void)
{
	static int known, verdict; /* llog_init only (ctl_lock): plain */
	char cur[64], avail[256];

	if (known)
		return verdict;
	known = 1;
	if (!llog__clock_tsc)
		return verdict = LLOG__TSC_NONE;
	read_sys("current_clocksource", cur, sizeof(cur));
	read_sys("available_clocksource", avail, sizeof(avail));
	return verdict = llog__clock_tsc_verdict(cur, avail);
}

void llog__clock_set_ordered(int on)
{
	/* Relaxed: see llog__clock_push. */
	if (llog__clock_tsc)
		llog__store_relaxed(&llog__pw.clock_mode,
				    on ? LLOG__CLOCK_TSC_ORDERED : LLOG__CLOCK_TSC);
}

/* A (raw, ns) pair taken as close together as we can: the realtime read is
 * bracketed by two raw reads and paired with their midpoint; of 4 tries,
 * the narrowest bracket (a try the thread was preempted in, under load,
 * would put the anchor off by half the time it was away: milliseconds). */
static void sample(uint64_t *raw, uint64_t *ns)
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < 4; i++) {
		uint64_t r0 = llog__clock_raw();
		uint64_t t = llog__clock_realtime_ns();
		uint64_t r1 = llog__clock_raw();

		if (r1 - r0 < best) {
			best = r1 - r0;
			*raw = r0 + (r1 - r0) / 2;
			*ns = t;
		}
	}
}

void llog__clock_conv_init(struct llog__clock_conv *c)
{
	sample(&c->base_raw, &c->base_ns);
	c->anchor_raw = c->base_raw;
	c->anchor_ns = c->base_ns;
	c->ns_per_tick = llog__clock_tsc ? 0.0 : 1.0;
	c->confirmed = 0;
	if (llog__clock_tsc) {
		/* A first estimate over ~2 ms so the first batch converts
		 * sensibly; refined by every later anchor. */
		struct timespec d = {0, 2000000};
		uint64_t r, n;

		nanosleep(&d, NULL);
		sample(&r, &n);
		c->ns_per_tick = (double)(n - c->base_ns) / (double)(r - c->base_raw);
		c->anchor_raw = r;
		c->anchor_ns = n;
	}
}

void llog__clock_conv_anchor(struct llog__clock_conv *c)
{
	uint64_t r, n;
	double est, dev;

	sample(&r, &n);
	c->anchor_raw = r;
	c->anchor_ns = n;
	if (!llog__clock_tsc)
		return;
	if (n <= c->base_ns || r <= c->base_raw) {
		/* The wall clock stepped back: start a new baseline. */
		c->base_raw = r;
		c->base_ns = n;
		return;
	}
	est = (double)(n - c->base_ns) / (double)(r - c->base_raw);
	if (n - c->base_ns < 50000000u)
		return; /* baseline too short to improve the estimate */
	dev = est > c->ns_per_tick ? est - c->ns_per_tick : c->ns_per_tick - est;
	if (c->confirmed && dev > c->ns_per_tick * 0.001) {
		/* More than 0.1% off a confirmed rate: the wall clock was
		 * stepped. Restart the baseline; the next estimate over it is
		 * taken as it is. */
		c->base_raw = r;
		c->base_ns = n;
		c->confirmed = 0;
		return;
	}
	c->ns_per_tick = est;
	c->confirmed = 1;
}
