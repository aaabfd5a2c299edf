/*
 * levels.c - level names and parsing, the runtime level, llog_strerror.
 * See levels.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <strings.h>

#include "atomic.h"
#include "backtrace.h"
#include "levels.h"

/* The threshold the macros compare with (backtrace.h: the output level,
 * or lower with the backtrace on) and the output level. */
int llog__min_level = LLOG_TRACE;
int llog__out_level = LLOG_TRACE;

const char *const llog__level_names[LLOG_OFF + 1] = {"TRACE", "DEBUG", "INFO", "WARN",
						      "ERROR", "FATAL", "OFF"};

int llog__parse_level(const char *s, enum llog_level *out)
{
	for (int i = 0; i <= LLOG_OFF; i++) {
		if (strcasecmp(s, llog__level_names[i]) == 0) {
			*out = (enum llog_level)i;
			return 0;
		}
	}
	if (strcasecmp(s, "warning") == 0) {
		*out = LLOG_WARN;
		return 0;
	}
	return -EINVAL;
}

void llog_set_level(enum llog_level level)
{
	if ((unsigned)level > LLOG_OFF)
		return;
	/* Relaxed: a level change need not be ordered with anything; each
	 * LOG reads it with one relaxed load (and a call it flags for the
	 * backtrace the output level with another, backtrace.h: one that
	 * sees the two out of step is written or kept, either being a call
	 * made during the change). */
	llog__store_relaxed((_Atomic int *)&llog__out_level, (int)level);
	llog__store_relaxed((_Atomic int *)&llog__min_level, llog__bt_threshold((int)level));
}

enum llog_level llog_get_level(void)
{
	/* Relaxed: see llog_set_level. */
	return (enum llog_level)llog__load_relaxed((_Atomic int *)&llog__out_level);
}

const char *llog_level_name(enum llog_level level)
{
	return (unsigned)level <= LLOG_OFF ? llog__level_names[level] : "?";
}

const char *llog_strerror(int err)
{
	switch (err) {
	case 0:
		return "success";
	case -EALREADY:
		return "llog is already initialised";
	case -EINVAL:
		return "invalid argument";
	case -ENOSPC:
		return "too many sinks";
	case -ENOMEM:
		return "out of memory";
	case -ECANCELED:
		return "llog is shutting down";
	default:
		return err < 0 ? strerror(-err) : "unknown error";
	}
}
