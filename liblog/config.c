/*
 * config.c - validating and storing llog_init()'s configuration. See
 * config.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include "atomic.h"
#include "backtrace.h"
#include "config.h"
#include "levels.h"
#include "crash.h"
#include "queue.h"
#include "reload.h"

#define DEFAULT_ARENA (256u * 1024u)
#define MIN_ARENA (16u * 1024u)
#define MAX_ARENA (1u << 30)
#define DEFAULT_MAX_RECORD 4096u
#define DEFAULT_INTERVAL_MS 100u

/* Whether the CPU runs PREFETCHW, which the call sites' own path and the
 * library's fast path issue (llog/detail.h, LLOG__FAST_AHEAD): CPUID
 * 0x80000001 ECX bit 8 (PRFCHW: AMD's from family 10h on, Intel's from
 * Broadwell on) or EDX bit 31 (3DNow!, whose instructions include it: AMD's
 * first 64-bit CPUs, family 0Fh, report only that), or an Intel Core from
 * Nehalem to Haswell, which run it without reporting it (64-bit Windows
 * 8.1 and later require the instruction and run on them); some older
 * Intel CPUs fault on it. Elsewhere than x86-64 the prefetch is the
 * compiler's own, always safe. */
static int cpu_prefetchw(void)
{
#if defined(__x86_64__)
	static const unsigned char core[] = {
		0x1a, 0x1e, 0x1f, 0x2e,       /* Nehalem */
		0x25, 0x2c, 0x2f,             /* Westmere */
		0x2a, 0x2d, 0x3a, 0x3e,       /* Sandy Bridge, Ivy Bridge */
		0x3c, 0x3f, 0x45, 0x46,       /* Haswell */
	};
	unsigned eax, ebx, ecx, edx, model;

	if (__get_cpuid(0x80000000u, &eax, &ebx, &ecx, &edx) && eax >= 0x80000001u &&
	    __get_cpuid(0x80000001u, &eax, &ebx, &ecx, &edx) &&
	    ((ecx & (1u << 8)) != 0 || (edx & (1u << 31)) != 0))
		return 1;
	/* "GenuineIntel" in EBX, EDX, ECX; family 6; the model with its
	 * extended bits */
	if (!__get_cpuid(0, &eax, &ebx, &ecx, &edx) || ebx != 0x756e6547u || edx != 0x49656e69u ||
	    ecx != 0x6c65746eu || !__get_cpuid(1, &eax, &ebx, &ecx, &edx) || ((eax >> 8) & 0xf) != 6)
		return 0;
	model = ((eax >> 4) & 0xf) | ((eax >> 12) & 0xf0);
	for (size_t i = 0; i < sizeof(core); i++)
		if (core[i] == model)
			return 1;
	return 0;
#else
	return 1;
#endif
}

struct llog__config llog__cfg = {
	.arena_bytes = DEFAULT_ARENA,
	.max_record_bytes = DEFAULT_MAX_RECORD,
	.flush_interval_ms = DEFAULT_INTERVAL_MS,
};

/* LLOG_LEVEL, a level spec ("debug", "info,net=debug"), overrides the
 * configured level at init (its bare level, if any) and sets the category
 * levels; a malformed one is ignored with one line on stderr naming the
 * bad part. Returns the spec applied, or NULL. */
static const char *env_levels(void)
{
	const char *env = getenv("LLOG_LEVEL");
	char line[400];
	int n;

	if (env == NULL || *env == '\0')
		return NULL;
	if (llog__levels_apply(env, NULL, NULL, 0, NULL) == 0)
		return env;
	n = snprintf(line, sizeof(line), "llog: ignoring invalid LLOG_LEVEL: %s\n",
		     llog_levels_error());
	if (n > 0)
		(void)!write(2, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
	return NULL;
}

int llog__config_apply(const struct llog_config *cfg)
{
	struct llog_config c = {0};
	struct llog__backtrace_config bt;
	size_t arena, maxrec;
	int rc, pfw;

	if (cfg != NULL)
		c = *cfg;
	if ((unsigned)c.level > LLOG_OFF || (unsigned)c.overflow > LLOG_OVERFLOW_DROP)
		return -EINVAL;
	arena = c.arena_bytes ? c.arena_bytes : DEFAULT_ARENA;
	if (arena < MIN_ARENA)
		arena = MIN_ARENA;
	if (arena > MAX_ARENA)
		return -EINVAL;
	maxrec = (c.max_record_bytes ? c.max_record_bytes : DEFAULT_MAX_RECORD) & ~(size_t)7;
	if (maxrec < LLOG__MAX_RECORD_MIN || maxrec > arena / 4)
		return -EINVAL;
	if (c.queue_shards > LLOG__SHARDS_MAX)
		return -EINVAL;
	if (c.crash_timeout_ms != 0 &&
	    (c.crash_timeout_ms < LLOG__CRASH_TIMEOUT_MIN || c.crash_timeout_ms > LLOG__CRASH_TIMEOUT_MAX))
		return -EINVAL;
	rc = llog__reload_validate(c.levels_file, c.levels_signal);
	if (rc != 0)
		return rc; /* -EINVAL, or -EBUSY: the signal has the application's handler */
	if (llog__backtrace_validate(&c, maxrec, &bt) != 0)
		return -EINVAL;
	/* Relaxed: see config.h. */
	llog__store_relaxed(&llog__cfg.arena_bytes, (uint32_t)arena);
	llog__store_relaxed(&llog__cfg.max_record_bytes, (uint32_t)maxrec);
	llog__store_relaxed(&llog__cfg.overflow, (int)c.overflow);
	pfw = cpu_prefetchw();
	llog__store_relaxed(&llog__cfg.prefetchw, pfw);
	/* Valgrind's tools are preloaded as vgpreload_TOOL-PLATFORM.so:
	 * memcheck's is the one that checks what a read's bytes are. */
	llog__store_relaxed(&llog__cfg.no_inline,
			    !pfw ||
				    (getenv("LD_PRELOAD") != NULL &&
				     strstr(getenv("LD_PRELOAD"), "vgpreload_memcheck") != NULL));
	llog__cfg.flush_interval_ms = c.flush_interval_ms ? c.flush_interval_ms : DEFAULT_INTERVAL_MS;
	llog__cfg.flusher_cpus = c.flusher_cpus;
	llog__cfg.queue_shards = 1;
	while (llog__cfg.queue_shards * 2 <= c.queue_shards)
		llog__cfg.queue_shards *= 2;
	llog__backtrace_apply(&bt); /* before the levels: they compute the thresholds */
	llog_set_level(c.level);
	/* The levels file last: it wins over LLOG_LEVEL (and says so). */
	return llog__reload_configure(c.levels_file, c.levels_signal, env_levels());
}
