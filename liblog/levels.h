/*
 * levels.h - level names, parsing and the runtime level (internal).
 *
 * DESIGN
 * One table of level names for the whole library (the line formatter, the
 * syslog sink, llog_level_name, LLOG_LEVEL parsing). The runtime level is
 * llog__out_level (hidden, backtrace.h); the macros compare with
 * llog__min_level (public only so that they can read it with one relaxed
 * load), the output level or, with the backtrace on, the lower capture
 * threshold (llog__bt_threshold). llog_set_level stores both relaxed: a
 * level change orders nothing.
 */
#ifndef LLOG_LEVELS_H
#define LLOG_LEVELS_H

#include "llog.h"

/* "TRACE" .. "OFF", indexed by enum llog_level (0..LLOG_OFF). */
extern const char *const llog__level_names[LLOG_OFF + 1];

/* Parses a level name (case-insensitive; "warning" too). Returns 0 with
 * *out set, or -EINVAL. */
int llog__parse_level(const char *s, enum llog_level *out);

#endif /* LLOG_LEVELS_H */
