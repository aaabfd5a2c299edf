/*
 * catsel.c - a sink's selection of categories: parsing (llog_add_sink_opts)
 * and matching (the flusher, per entry and sink). See catsel.h.
 */
#include <errno.h>
#include <string.h>

#include "catsel.h"
#include "levels.h"
#include "sink.h"

#define DEFAULT_NAME "(default)"

static int is_space(char c)
{
	return c == ' ' || c == '\t';
}

/* One item of the list, s (n bytes, trimmed), into out->it[out->n]. */
static int parse_item(const char *spec, const char *s, size_t n, struct llog__catsel *out)
{
	int exclude = n > 0 && s[0] == '!';

	if (exclude)
		s++, n--;
	if (out->n == LLOG__CATSEL_MAX) {
		llog__sink_set_error("categories \"%s\": more than %d names", spec,
				     LLOG__CATSEL_MAX);
		return -EINVAL;
	}
	if (n == strlen(DEFAULT_NAME) && memcmp(s, DEFAULT_NAME, n) == 0) {
		n = 0;
	} else if (n >= LLOG__CATSEL_NAME || !llog__category_name_valid(s, n)) {
		llog__sink_set_error("categories \"%s\": \"%.*s\" is not a category name "
				     "(words of [A-Za-z0-9_-] joined by dots, at most %d bytes, "
				     "or " DEFAULT_NAME ")",
				     spec, (int)n, s, LLOG__CATSEL_NAME - 1);
		return -EINVAL;
	}
	for (int i = 0; i < out->n; i++)
		if (out->it[i].len == n && memcmp(out->it[i].name, s, n) == 0) {
			llog__sink_set_error("categories \"%s\": \"%.*s\" named twice", spec,
					     (int)n, s);
			return -EINVAL;
		}
	out->it[out->n].len = (uint8_t)n;
	out->it[out->n].exclude = (uint8_t)exclude;
	memcpy(out->it[out->n].name, s, n);
	out->it[out->n].name[n] = '\0';
	out->n++;
	out->plain |= (uint8_t)!exclude;
	return 0;
}

int llog__catsel_parse(const char *spec, struct llog__catsel *out)
{
	const char *p = spec;

	memset(out, 0, sizeof(*out));
	if (spec == NULL || spec[0] == '\0')
		return 0;
	for (;;) {
		const char *end = strchr(p, ',');
		size_t n = end != NULL ? (size_t)(end - p) : strlen(p);
		const char *s = p;
		int rc;

		while (n > 0 && is_space(*s))
			s++, n--;
		while (n > 0 && is_space(s[n - 1]))
			n--;
		if ((rc = parse_item(spec, s, n, out)) != 0) {
			memset(out, 0, sizeof(*out));
			return rc;
		}
		if (end == NULL)
			return 0;
		p = end + 1;
	}
}

/* Whether name (len bytes, 0: the default category) selects category c
 * (clen bytes, 0: the default category): c is name or one of its
 * children. */
static int covers(const char *name, size_t len, const char *c, size_t clen)
{
	if (len == 0)
		return clen == 0;
	return clen >= len && memcmp(c, name, len) == 0 && (clen == len || c[len] == '.');
}

int llog__catsel_match_list(const struct llog__catsel *s, const struct llog_entry *e)
{
	const char *c = e->category != NULL ? e->category : "";
	size_t clen = e->category != NULL ? e->category_len : 0;
	int best = -1;

	for (int i = 0; i < s->n; i++)
		if (covers(s->it[i].name, s->it[i].len, c, clen) &&
		    (best < 0 || s->it[i].len > s->it[best].len))
			best = i;
	if (best < 0)
		return !s->plain;
	return !s->it[best].exclude;
}
