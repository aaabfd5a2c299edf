/*
 * line_msg.c - the message of a text line with its markers: "[backtrace] "
 * before it, " [N suppressed]" after it, a cut message's marker, room kept
 * for what follows it (llog__line_put_msg, line_parts.h). The default line
 * (line.c) and a pattern's line (line_pattern.c) both write it here.
 */
#include <string.h>

#include "line_parts.h"

/* " [N suppressed]" into suf (32 bytes) when the entry has a count and
 * its appended fields may be read; returns its length (0: none). */
static size_t suppressed_suffix(const struct llog_entry *e, const struct llog__lopt *lo, char *suf)
{
	struct llog__buf b = LLOG__BUF(suf, 32);

	if (!lo->full || e->suppressed == 0)
		return 0;
	llog__buf_put(&b, " [", 2);
	llog__buf_num(&b, e->suppressed, 10);
	llog__buf_put(&b, " suppressed]", 12);
	return b.n;
}

/* Whether the message ends as a rate limit's marker does: " [N suppressed]". */
static int ends_like_suppressed(const char *m, size_t n)
{
	static const char tail[] = " suppressed]";
	size_t tn = sizeof(tail) - 1, d = 0;

	if (n < tn + 3 || m[n - 1] != ']' || memcmp(m + n - tn, tail, tn) != 0)
		return 0;
	n -= tn;
	while (d < n && m[n - 1 - d] >= '0' && m[n - 1 - d] <= '9')
		d++;
	return d > 0 && n - d >= 2 && m[n - d - 2] == ' ' && m[n - d - 1] == '[';
}

/*
 * The message of a text line, escaped (line_escape.c), and so that it is
 * never read as one of the line's markers (llogcat reads them back into
 * JSON members): a message that itself begins with "[backtrace] " has
 * that '[' written \x5b, one that ends like " [N suppressed]" that ']'
 * \x5d (docs/file-format.md, "Text lines"). Within llog__line_bound's 4
 * bytes a byte.
 */
static void put_text_msg(struct llog__buf *o, const char *m, size_t n)
{
	int last = ends_like_suppressed(m, n);

	if (n >= 12 && m[0] == '[' && memcmp(m, "[backtrace] ", 12) == 0) {
		llog__line_put_whole(o, "\\x5b", 4);
		m++;
		n--;
	}
	llog__line_put_text_escaped(o, m, n - (size_t)last);
	if (last)
		llog__line_put_whole(o, "\\x5d", 4);
}

/*
 * A short message with nothing to escape (the constant message of a call
 * with fields, often), put_text_msg's text with keep bytes of room left
 * after it: copied and tested in one pass (llog__line_v16_copy). It can be
 * no marker lookalike ('[' and ']' are clean, but a lookalike starts with
 * '[' or ends with ']': tested first). Returns 0 for any other message,
 * and what it copied is scratch: put_text_msg writes it again.
 */
static inline int put_text_msg_short(struct llog__buf *o, const char *m, size_t n, size_t keep)
{
	if (n - 1 >= 15 || o->cap - o->n < n + keep || m[0] == '[' || m[n - 1] == ']' ||
	    llog__line_stop_v16(llog__line_v16_copy(o->p + o->n, (const unsigned char *)m, n),
				0x7f, '\\'))
		return 0;
	o->n += n;
	return 1;
}

void llog__line_put_msg(struct llog__buf *o, const struct llog_entry *e,
			const struct llog__lopt *lo, const struct llog__line_msg *m, size_t rest,
			int fields_after)
{
	size_t sl, fr;
	char suf[32];

	/* The usual message: no marker, no cut tail, nothing kept for what
	 * follows but the field section's reserve, when it has room (the
	 * general path below does the same then). */
	if (m->tl == 0 && rest == 0 && (!lo->full || (e->suppressed == 0 && !e->backtrace))) {
		fr = !fields_after || llog__line_no_fields(e, lo) ? 0 : llog__line_fields_reserve(e, lo);
		if (put_text_msg_short(o, e->msg, e->msg_len, fr))
			return;
		if (fr == 0) {
			put_text_msg(o, e->msg, e->msg_len);
			return;
		}
		if (o->cap - o->n >= fr) {
			o->cap -= fr;
			put_text_msg(o, e->msg, e->msg_len);
			o->cap += fr;
			return;
		}
	}

	/* A rate-limited site's count ends the message (or its cut tail):
	 * " [N suppressed]" (llog.h). */
	sl = suppressed_suffix(e, lo, suf);
	/* A backtrace entry (llog.h, "Backtrace"): marked before the
	 * message. */
	if (lo->full && e->backtrace)
		llog__buf_put(o, "[backtrace] ", 12);
	/* The field section comes after the message and its markers
	 * (fields.md 3; in a pattern's line unless %k came before it), and
	 * so does what a pattern has after %m (rest). */
	fr = fields_after ? llog__line_fields_reserve(e, lo) : 0;
	if (fr > 0 && o->cap - o->n < m->tl + sl + fr + rest) {
		fr = 0; /* no room for the fields: the message alone, cut */
		o->cut = 1;
	}
	if (o->cap - o->n < m->tl + sl) {
		o->cut = 1; /* not even room for the markers */
		return;
	}
	if (o->cap - o->n < m->tl + sl + rest)
		rest = o->cap - o->n - m->tl - sl; /* the marker first; what follows is cut */
	o->cap -= m->tl + sl + fr + rest;
	put_text_msg(o, e->msg, e->msg_len);
	o->cap += m->tl + sl;
	if (o->cut)
		llog__buf_put(o, m->tail, m->tl);
	llog__buf_put(o, suf, sl);
	o->cap += fr + rest;
}
