/*
 * config.c - validating and storing llog_init()'s configuration. See
 * config.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "atomic.h"
#include "backtrace.h"
#include "config.h"
#include "levels.h"

#define DEFAULT_ARENA (256u * 1024u)
#define MIN_ARENA (16u * 1024u)
#define MAX_ARENA (1u << 30)
#define DEFAULT_MAX_RECORD 4096u
#define DEFAULT_INTERVAL_MS 100u

struct llog__config llog__cfg = {
	.arena_bytes = DEFAULT_ARENA,
	.max_record_bytes = DEFAULT_MAX_RECORD,
	.flush_interval_ms = DEFAULT_INTERVAL_MS,
};

/* LLOG_LEVEL overrides the configured level; an invalid value is ignored
 * with one line on stderr. */
static enum llog_level env_level(enum llog_level lvl)
{
	const char *env = getenv("LLOG_LEVEL");

	if (env != NULL && *env != '\0' && llog__parse_level(env, &lvl) != 0) {
		static const char msg[] = "llog: ignoring invalid LLOG_LEVEL\n";

		(void)!write(2, msg, sizeof(msg) - 1);
	}
	return lvl;
}

int llog__config_apply(const struct llog_config *cfg)
{
	struct llog_config c = {0};
	struct llog__bt_config bt;
	size_t arena, maxrec;

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
	if (maxrec < 256 || maxrec > arena / 4)
		return -EINVAL;
	if (llog__bt_validate(&c, maxrec, &bt) != 0)
		return -EINVAL;
	/* Relaxed: see config.h. */
	llog__store_relaxed(&llog__cfg.arena_bytes, (uint32_t)arena);
	llog__store_relaxed(&llog__cfg.max_record_bytes, (uint32_t)maxrec);
	llog__store_relaxed(&llog__cfg.overflow, (int)c.overflow);
	llog__cfg.flush_interval_ms = c.flush_interval_ms ? c.flush_interval_ms : DEFAULT_INTERVAL_MS;
	llog__cfg.flusher_cpus = c.flusher_cpus;
	llog__bt_apply(&bt); /* before the level: it computes the threshold */
	llog_set_level(env_level(c.level));
	return 0;
}
