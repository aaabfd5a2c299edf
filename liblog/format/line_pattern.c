/*
 * line_pattern.c - a text line laid out by a pattern of the user's
 * (struct llog_line_options.pattern, llog/sinks.h): parsed once, when a
 * sink is made (llog__pattern_parse), into a list of elements; each line
 * then walks the list (llog__pattern_format). line.c calls it for a text
 * line that has a pattern; the parts it writes are line.c's and the other
 * line_*.c files' (the same escaping, timestamp and field section as the
 * default line), so a pattern changes where things go, never how they are
 * written.
 *
 * DESIGN
 * The pattern is literal text and directives (the list in sinks.h): the
 * literal bytes must be printable (valid UTF-8, no control character: a
 * record stays one line and its only TAB the field section's); a
 * directive is '%' and one character; %m (the message, with its markers)
 * must be there, once; %k (the field section, "TAB key=value ...") at
 * most once, and when it is not there the field section ends the line,
 * as in the default line, so that a pattern never loses a record's
 * fields. Every element but the message has a bound per entry
 * (llog__pattern_bound); the message is written with room kept for
 * everything after it (the bound; where the room is less, the text's own
 * length, measured: rest_len), so a line cut for a caller's small buffer
 * loses the end of its message (which keeps its marker), never what
 * follows it. llog's own sinks size their buffers with the bound and
 * never cut.
 */
#include <string.h>

#include "line.h"
#include "line_parts.h"

enum {
	P_LIT,
	P_TS,      /* %T the timestamp as the options say (the default line's) */
	P_DATE,    /* %D YYYY-MM-DD */
	P_TIME,    /* %H hh:mm:ss */
	P_FRAC,    /* %f the fraction's digits (ts_precision; none for seconds) */
	P_ZONE,    /* %z Z or +hh:mm */
	P_LEVEL,   /* %l the level, padded to 5 columns */
	P_LNAME,   /* %L the level, not padded */
	P_CAT,     /* %c the category ("" for the default one) */
	P_TID,     /* %i the thread id */
	P_TNAME,   /* %n the thread name */
	P_FILE,    /* %s the file's base name */
	P_LINE,    /* %# the line number */
	P_FUNC,    /* %F the function */
	P_PATH,    /* %S the file as the compiler named it */
	P_MSG,     /* %m the message with its markers */
	P_FIELDS   /* %k the field section */
};

static int directive(char c)
{
	switch (c) {
	case 'T': return P_TS;
	case 'D': return P_DATE;
	case 'H': return P_TIME;
	case 'f': return P_FRAC;
	case 'z': return P_ZONE;
	case 'l': return P_LEVEL;
	case 'L': return P_LNAME;
	case 'c': return P_CAT;
	case 'i': return P_TID;
	case 'n': return P_TNAME;
	case 's': return P_FILE;
	case '#': return P_LINE;
	case 'F': return P_FUNC;
	case 'S': return P_PATH;
	case 'm': return P_MSG;
	case 'k': return P_FIELDS;
	default: return -1;
	}
}

/* Appends op (a literal: lit[off..off+len)) to p; 0, or -1 when full. */
static int add(struct llog__pattern *p, int op, size_t off, size_t len)
{
	if (p->n == LLOG__PATTERN_ELEMS)
		return -1;
	p->el[p->n].op = (uint8_t)op;
	p->el[p->n].off = (uint16_t)off;
	p->el[p->n].len = (uint16_t)len;
	p->n++;
	return 0;
}

int llog__pattern_parse(struct llog__pattern *p, const char *s, char *why, size_t whycap)
{
	size_t i = 0, lit = 0, start = 0, len;
	int msgs = 0, fields = 0;

	memset(p, 0, sizeof(*p));
	if (s == NULL || (len = strnlen(s, LLOG__PATTERN_MAX + 1)) > LLOG__PATTERN_MAX) {
		snprintf(why, whycap, "a pattern is 1 to %d bytes", LLOG__PATTERN_MAX);
		return -1;
	}
	while (i < len) {
		unsigned char c = (unsigned char)s[i];
		size_t u;
		int op;

		if (c != '%') {
			u = llog__line_utf8_len((const unsigned char *)s + i, len - i);
			if (c < 0x20 || c == 0x7f || u == 0 || llog__line_is_c1((const unsigned char *)s + i, u)) {
				snprintf(why, whycap,
					 "byte %zu of the pattern is a control character or not UTF-8", i);
				return -1;
			}
			memcpy(p->lit + lit, s + i, u);
			lit += u;
			i += u;
			continue;
		}
		if (i + 1 == len) {
			snprintf(why, whycap, "the pattern ends with a lone '%%'");
			return -1;
		}
		if (s[i + 1] == '%') { /* "%%": a literal '%' */
			p->lit[lit++] = '%';
			i += 2;
			continue;
		}
		op = directive(s[i + 1]);
		if (op < 0) {
			unsigned char d = (unsigned char)s[i + 1];

			if (d > 0x20 && d < 0x7f)
				snprintf(why, whycap, "unknown directive %%%c at byte %zu", d, i);
			else
				snprintf(why, whycap, "unknown directive at byte %zu", i);
			return -1;
		}
		if ((lit > start && add(p, P_LIT, start, lit - start) != 0) || add(p, op, 0, 0) != 0)
			goto long_pattern;
		start = lit;
		msgs += op == P_MSG;
		fields += op == P_FIELDS;
		i += 2;
	}
	if (lit > start && add(p, P_LIT, start, lit - start) != 0)
		goto long_pattern;
	if (msgs != 1 || fields > 1) {
		snprintf(why, whycap, msgs == 0 ? "a pattern must have %%m (the message)"
				      : msgs > 1 ? "a pattern has %%m once"
						 : "a pattern has %%k once");
		return -1;
	}
	p->fields = fields;
	return 0;
long_pattern:
	snprintf(why, whycap, "a pattern has at most %d elements", LLOG__PATTERN_ELEMS);
	return -1;
}

/* The timestamp's text and where its parts are in it (line_ts.c's
 * layout: "YYYY-MM-DDTHH:MM:SS", ".fraction" when any, "Z" or
 * "+hh:mm"). */
struct ts {
	char b[LLOG__TS_MAX];
	size_t n, frac, fracn; /* the digits at frac, fracn of them */
	int made;
};

static void ts_make(struct ts *t, const struct llog_entry *e, const struct llog__lopt *lo)
{
	if (t->made)
		return;
	t->n = llog__line_ts_text(t->b, e->ts_ns, lo);
	t->frac = 20;
	t->fracn = 0;
	if (t->n > 19 && t->b[19] == '.')
		while (t->frac + t->fracn < t->n && t->b[t->frac + t->fracn] >= '0' &&
		       t->b[t->frac + t->fracn] <= '9')
			t->fracn++;
	t->made = 1;
}

/* A thread name: escaped as a message is. */
static const char *tname(const struct llog_entry *e, const struct llog__lopt *lo, size_t *n)
{
	if (!lo->full || e->thread_name == NULL) {
		*n = 0;
		return "";
	}
	*n = strnlen(e->thread_name, e->thread_name_len);
	return e->thread_name;
}

static const char *cat(const struct llog_entry *e, const struct llog__lopt *lo, size_t *n)
{
	if (!lo->full || e->category == NULL) {
		*n = 0;
		return "";
	}
	*n = strnlen(e->category, e->category_len);
	return e->category;
}

static const char *base(const char *path, size_t *n)
{
	const char *b = strrchr(path, '/');

	b = b != NULL ? b + 1 : path;
	*n = strlen(b);
	return b;
}

/* An upper bound of element i's text (not the message's, not the field
 * section's: their callers count them). */
static size_t el_bound(const struct llog__pattern *p, unsigned i, const struct llog_entry *e)
{
	size_t n;

	switch (p->el[i].op) {
	case P_LIT: return p->el[i].len;
	case P_TS: return LLOG__TS_MAX;
	case P_DATE: return 10;
	case P_TIME: return 8;
	case P_FRAC: return 9;
	case P_ZONE: return 6;
	case P_LEVEL:
	case P_LNAME: return 5 + strlen(llog_level_name(e->level));
	case P_CAT: return 4 * (e->category != NULL ? e->category_len : 0);
	case P_TID: return 20;
	case P_TNAME: return 4 * 16;
	case P_FILE: (void)base(e->file, &n); return 4 * n;
	case P_LINE: return 11;
	case P_FUNC: return 4 * (e->func != NULL ? strlen(e->func) : 0);
	case P_PATH: return 4 * strlen(e->file);
	default: return 0;
	}
}

size_t llog__pattern_bound(const struct llog__pattern *p, const struct llog_entry *e)
{
	size_t b = 0;

	for (unsigned i = 0; i < p->n; i++)
		b += el_bound(p, i, e);
	return b;
}

/* Element i (not the message, not the field section) appended to o. */
static void put_el(struct llog__buf *o, const struct llog__pattern *p, unsigned i,
		   const struct llog_entry *e, const struct llog__lopt *lo, struct ts *t)
{
	const char *s;
	size_t n;

	switch (p->el[i].op) {
	case P_LIT: llog__buf_put(o, p->lit + p->el[i].off, p->el[i].len); break;
	case P_TS: ts_make(t, e, lo); llog__buf_put(o, t->b, t->n); break;
	case P_DATE: ts_make(t, e, lo); llog__buf_put(o, t->b, 10); break;
	case P_TIME: ts_make(t, e, lo); llog__buf_put(o, t->b + 11, 8); break;
	case P_FRAC: ts_make(t, e, lo); llog__buf_put(o, t->b + t->frac, t->fracn); break;
	case P_ZONE:
		ts_make(t, e, lo);
		n = t->fracn > 0 ? t->frac + t->fracn : 19;
		llog__buf_put(o, t->b + n, t->n - n);
		break;
	case P_LEVEL:
	case P_LNAME:
		s = llog_level_name(e->level);
		n = strlen(s);
		llog__buf_put(o, s, n);
		if (p->el[i].op == P_LEVEL && n < 5)
			llog__buf_fill(o, ' ', 5 - n);
		break;
	case P_CAT: s = cat(e, lo, &n); llog__line_put_text_category(o, s, n); break;
	case P_TID: llog__buf_num(o, e->tid, 10); break;
	case P_TNAME: s = tname(e, lo, &n); llog__line_put_text_name(o, s, n); break;
	case P_FILE: s = base(e->file, &n); llog__line_put_text_escaped(o, s, n); break;
	case P_LINE: llog__buf_num(o, (uint64_t)(e->line < 0 ? 0 : e->line), 10); break;
	case P_FUNC:
		s = e->func != NULL ? e->func : "";
		llog__line_put_text_escaped(o, s, strlen(s));
		break;
	case P_PATH: llog__line_put_text_escaped(o, e->file, strlen(e->file)); break;
	default: break;
	}
}

/* The bytes the elements after the message (i: %m's index) take: their
 * bound, or, where the room left is less than that (a caller's small
 * buffer), their text's length, made into a scratch buffer (the bound
 * when even that is too small for them). */
static size_t rest_len(const struct llog__pattern *p, unsigned i, const struct llog_entry *e,
		       const struct llog__lopt *lo, struct ts *t, size_t room)
{
	char scratch[1024];
	struct llog__buf b = LLOG__BUF(scratch, sizeof(scratch));
	size_t bound = 0;

	for (unsigned j = i + 1; j < p->n; j++)
		bound += el_bound(p, j, e);
	if (bound + 4 * e->msg_len + 64 <= room)
		return bound; /* the whole line fits: no need to know better */
	for (unsigned j = i + 1; j < p->n; j++)
		if (p->el[j].op != P_FIELDS)
			put_el(&b, p, j, e, lo, t);
	return b.cut ? bound : b.n;
}

void llog__pattern_format(struct llog__buf *o, const struct llog_entry *e,
			  const struct llog__lopt *lo, const struct llog__pattern *p,
			  const struct llog__line_msg *m)
{
	struct ts t = {.made = 0};
	unsigned i = 0;
	int fields_done = 0;

	for (; i < p->n && p->el[i].op != P_MSG; i++) {
		if (p->el[i].op == P_FIELDS) {
			llog__line_put_fields(o, e, lo, 0);
			fields_done = 1;
		} else {
			put_el(o, p, i, e, lo, &t);
		}
	}
	/* The message, with room kept for everything after it (the field
	 * section too, unless %k came before). */
	llog__line_put_msg(o, e, lo, m, rest_len(p, i, e, lo, &t, o->cap - o->n), !fields_done);
	for (i++; i < p->n; i++) {
		if (p->el[i].op == P_FIELDS)
			llog__line_put_fields(o, e, lo, 0);
		else
			put_el(o, p, i, e, lo, &t);
	}
	if (!p->fields)
		llog__line_put_fields(o, e, lo, 0);
}
