/*
 * catsel.h - a sink's selection of categories (llog_sink_options.categories)
 * (internal).
 *
 * A selection is a list of up to LLOG__CATSEL_MAX names, each a category
 * that selects itself and its children ("db" selects "db" and "db.pool",
 * not "dbx"), or, written "!name", excludes them; "(default)" names the
 * default category (records of none, llog's thread drop notices and crash
 * record among them). For a record, the longest name that matches decides;
 * when none matches, the record is selected only if the list has no
 * plain (selecting) name. An empty selection (n == 0) selects everything.
 * FATAL records go to every sink, whatever its selection. Parsed once when
 * the sink is added, read by the flusher (and its crash drain) for each
 * entry: no allocation, no lock.
 */
#ifndef LLOG_CATSEL_H
#define LLOG_CATSEL_H

#include <stddef.h>
#include <stdint.h>

#include "llog/sinks.h"

#define LLOG__CATSEL_MAX 8
#define LLOG__CATSEL_NAME 64 /* bytes of a name, with its NUL */

struct llog__catsel {
	uint8_t n;     /* names; 0: every category */
	uint8_t plain; /* some name selects (is not "!name") */
	struct {
		uint8_t len; /* 0: the default category */
		uint8_t exclude;
		char name[LLOG__CATSEL_NAME];
	} it[LLOG__CATSEL_MAX];
};

/* Parses spec (NULL or "": every category) into *out. Returns 0, or
 * -EINVAL with a reason for llog's error message (llog__sink_set_error). */
int llog__catsel_parse(const char *spec, struct llog__catsel *out);

/* Whether e goes to a sink with selection s (n != 0: the walk). */
int llog__catsel_match_list(const struct llog__catsel *s, const struct llog_entry *e);

/* Whether e goes to a sink with selection s: inline for a sink that
 * selects every category, the flusher's case for each entry and sink. */
static inline int llog__catsel_match(const struct llog__catsel *s, const struct llog_entry *e)
{
	return s->n == 0 || e->level >= LLOG_FATAL || llog__catsel_match_list(s, e);
}

#endif /* LLOG_CATSEL_H */
