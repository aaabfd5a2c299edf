/*
 * config.h - the configuration in force (internal).
 *
 * DESIGN
 * llog_init() validates a struct llog_config (and LLOG_LEVEL) and stores
 * the result here, under the control lock while no flusher runs
 * (llog__config_apply). Producers read the fields with relaxed loads: a
 * torn read of an int is impossible, and a stale value is harmless (a
 * record made with the previous bounds is still a valid record).
 */
#ifndef LLOG_CONFIG_H
#define LLOG_CONFIG_H

#include <stdalign.h>
#include <stdint.h>

#include "compiler.h"
#include "llog.h"

/* Read-mostly, on a cache line of its own (nothing written often shares
 * it). */
struct llog__config {
	alignas(64) _Atomic uint32_t arena_bytes; /* size of a new thread's ring */
	_Atomic uint32_t max_record_bytes; /* multiple of 8 */
	_Atomic int overflow;              /* enum llog_overflow */
	unsigned flush_interval_ms;        /* read by the flusher it starts */
	unsigned long long flusher_cpus;   /* likewise: its affinity, 0: none */
	unsigned queue_shards;             /* likewise: heads, a power of two */
	/* Nonzero: no call site gets its own fast path (the site's verdict,
	 * producer.c): under valgrind's memcheck, which reports the path's
	 * 16-byte read of a short string (it may pass the string's heap block,
	 * within its page: llog/detail.h) when run with
	 * --partial-loads-ok=no; and on a CPU without PREFETCHW, which that
	 * path issues (config.c, cpu_prefetchw). */
	_Atomic int no_inline;
	/* Nonzero: the library's fast path asks for the ring's lines ahead
	 * with PREFETCHW (producer.c, fast_push). */
	_Atomic int prefetchw;
};

extern struct llog__config llog__cfg LLOG__HIDDEN;

/* The smallest max_record_bytes llog__config_apply takes (the call
 * sites' own fast path writes no record past it: llog/detail.h). */
#define LLOG__MAX_RECORD_MIN 256u

/* Validates cfg (NULL: defaults) and LLOG_LEVEL, then stores them and sets
 * the runtime level. Returns 0 or -EINVAL (nothing changed). Under the
 * control lock, while no flusher runs. */
int llog__config_apply(const struct llog_config *cfg);

#endif /* LLOG_CONFIG_H */
