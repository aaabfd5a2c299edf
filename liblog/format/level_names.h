/*
 * level_names.h - the one table of level names and their parsing
 * (internal; level_names.c). Part of the format unit (README.md): the line
 * formatter and llogcat use it without the level spec (levels.h).
 */
#ifndef LLOG_LEVEL_NAMES_H
#define LLOG_LEVEL_NAMES_H

#include "llog.h"

/* "TRACE" .. "OFF", indexed by enum llog_level (0..LLOG_OFF). */
extern const char *const llog__level_names[LLOG_OFF + 1];

/* Parses a level name (case-insensitive; "warning" too). Returns 0 with
 * *out set, or -EINVAL. */
int llog__parse_level(const char *s, enum llog_level *out);

#endif /* LLOG_LEVEL_NAMES_H */
