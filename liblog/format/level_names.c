/*
 * level_names.c - the one table of level names, their parsing, and
 * llog_strerror: what the line formatter needs, without the level spec
 * (levels.c), so that llogcat links the formatter without the core.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <strings.h>

#include "level_names.h"

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
