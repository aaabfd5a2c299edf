/*
 * line.c - one entry as one line of text or JSON (llog_format_entry): the
 * layout of both under the line options, a cut line and its marker, the
 * line's bound. The line's parts are made below it, and never call it:
 * the timestamp (line_ts.c), escaped strings (line_escape.c), the field
 * section (line_fields.c), a text line's message with its markers
 * (line_msg.c) and a pattern's line (line_pattern.c, from the same parts);
 * line_parts.h is what they share.
 *
 * DESIGN
 * llog_format_entry() writes into a caller buffer, never allocates, never
 * overflows: output that does not fit is cut, ends with the marker
 * " [truncated]" (inside the message string in JSON: the line stays valid
 * JSON; an escape sequence or a UTF-8 character is never cut in half) and
 * the line still ends with '\n'. llog's own sinks size their buffers with
 * llog__line_bound, so they cut only at a hard limit of theirs, through
 * llog__line_format, which tells the caller of the cut (llog's sinks count
 * it in stats.sink_truncated: llog__sink_format_line, sink.c). Every record is
 * exactly one line, and no message can forge another
 * record or drive a terminal: its strings are escaped (line_escape.c says
 * how, in text and in JSON), and a JSON line is always valid JSON.
 *
 * Options (struct llog_line_options): text may carry the function
 * ("file:line func() msg") and the thread name ("[tid name]", the name
 * escaped as a message is and ']' as \x5d, so the bracket ends it); the
 * timestamp's precision (9, 6, 3 or no fraction digits, cut, not
 * rounded) and zone apply to text and JSON. The zero options give the
 * default line, unchanged since the first version.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <string.h>

#include "buf.h"
#include "fmt.h" /* LLOG__MARKER: the same marker as a cut message's */
#include "line.h"
#include "line_parts.h"

/* The file name without its directories: the part of path (n bytes) after
 * its last '/'; its length in *len. */
static const char *base_name(const char *path, size_t n, size_t *len)
{
	const char *b = memrchr(path, '/', n);

	b = b != NULL ? b + 1 : path;
	*len = n - (size_t)(b - path);
	return b;
}

/* The level's name, padded to 5 columns in text. */
static void put_level(struct llog__buf *o, enum llog_level level, int pad)
{
	const char *name = llog_level_name(level);
	size_t n = strlen(name);

	llog__buf_put(o, name, n);
	if (pad && n < 5)
		llog__buf_fill(o, ' ', 5 - n);
}

/* The line of e; a message cut by the room ends with tail[0..tl) (room is
 * kept for it). */
/* The entry's thread name ("" when the caller's entry may not have one). */
static const char *thread_name(const struct llog_entry *e, const struct llog__lopt *lo, size_t *len)
{
	if (!lo->full || e->thread_name == NULL) {
		*len = 0;
		return "";
	}
	*len = strnlen(e->thread_name, e->thread_name_len);
	return e->thread_name;
}


/* The entry's category (NULL when the entry may not have one or is in
 * the default category). */
static const char *category(const struct llog_entry *e, const struct llog__lopt *lo, size_t *len)
{
	if (!lo->full || e->category == NULL || e->category_len == 0)
		return NULL;
	*len = strnlen(e->category, e->category_len);
	return *len != 0 ? e->category : NULL;
}


#define LEVEL_TID_MAX 48 /* level_tid's bytes, at most (1 + 5 + 2 + 20) */

/*
 * " LEVEL [tid" (the level padded to 5 columns), into dst (LEVEL_TID_MAX
 * bytes of room, written whole), or 0 bytes when it does not fit
 * LEVEL_TID_MAX (the caller appends it itself). The text of the
 * last (level, tid) pair is kept per thread: consecutive records of one
 * thread repeat it. Keyed by the values, not by any pointer of the entry.
 */
static __thread struct {
	int valid;
	enum llog_level level;
	uint64_t tid;
	size_t n;
	char text[LEVEL_TID_MAX];
} lt_cache;

/* level_tid's text made anew (out of line: once per change of level or
 * thread). */
static __attribute__((noinline)) size_t level_tid_made(char *dst, enum llog_level level,
							uint64_t tid)
{
	struct llog__buf b = LLOG__BUF(lt_cache.text, sizeof(lt_cache.text));

	lt_cache.valid = 0; /* see LLOG__CACHE_OPEN */
	LLOG__CACHE_OPEN();
	llog__buf_putc(&b, ' ');
	put_level(&b, level, 1);
	llog__buf_put(&b, " [", 2);
	llog__buf_num(&b, tid, 10);
	lt_cache.n = b.n;
	lt_cache.level = level;
	lt_cache.tid = tid;
	LLOG__CACHE_CLOSE();
	lt_cache.valid = !b.cut;
	if (b.cut)
		return 0; /* a level name longer than the room */
	memcpy(dst, lt_cache.text, LEVEL_TID_MAX);
	return lt_cache.n;
}

static inline size_t level_tid(char *dst, enum llog_level level, uint64_t tid)
{
	if (!lt_cache.valid || lt_cache.level != level || lt_cache.tid != tid)
		return level_tid_made(dst, level, tid);
	memcpy(dst, lt_cache.text, LEVEL_TID_MAX); /* a fixed size: no call; dst has the room */
	return lt_cache.n;
}

#define LOC_KEY_MAX 192 /* put_location's cached path and function, bytes at most */
#define LOC_MAX 160     /* put_location's cached text, bytes at most */

/*
 * "name:line " and, with LLOG_LINE_FUNC, "func() ": the file's base name and
 * the function escaped as the message (a TAB, a newline or a backslash in
 * them too, so the field section's TAB is the line's only one).
 *
 * The text of the last location is kept per thread, keyed by the values it
 * was made from (the path's and the function's bytes, the line, the flag),
 * never by the pointers: an entry's strings may sit in a buffer that is
 * reused (llog_format_entry's callers, llogcat) or in a library that was
 * unloaded and replaced at the same address. The key holds both strings
 * with their NULs, so consecutive records of one site cost two strcmp
 * (no strlen) instead of the escaping (about 330 instructions of the
 * flusher's 3,700 per record, bench/flusher_cost.sh). The cached text is
 * used only where it fits whole, so a cut line is cut exactly as without
 * it. Rebuilt as the caches above (LLOG__CACHE_OPEN).
 */
static void put_location(struct llog__buf *o, const struct llog_entry *e,
			 const struct llog__lopt *lo)
{
	static __thread struct {
		int valid;
		int line;
		int func;
		size_t plen, n;
		char key[LOC_KEY_MAX + 2]; /* the path, NUL, the function, NUL */
		char text[LOC_MAX];
	} c;
	const char *fn = e->func != NULL ? e->func : "";
	int func = (lo->flags & LLOG_LINE_FUNC) != 0;
	size_t plen, flen, start = o->n, bn;
	const char *b;

	if (c.valid && c.line == e->line && c.func == func && c.n <= o->cap - o->n &&
	    strcmp(c.key, e->file) == 0 && (!func || strcmp(c.key + c.plen + 1, fn) == 0)) {
		llog__buf_put(o, c.text, c.n);
		return;
	}
	plen = strlen(e->file);
	flen = func ? strlen(fn) : 0;
	b = base_name(e->file, plen, &bn);
	llog__line_put_text_escaped(o, b, bn);
	llog__buf_putc(o, ':');
	llog__buf_num(o, (uint64_t)(e->line < 0 ? 0 : e->line), 10);
	llog__buf_putc(o, ' ');
	if (func) {
		llog__line_put_text_escaped(o, fn, flen);
		llog__buf_put(o, "() ", 3);
	}
	if (o->cut || o->n - start > LOC_MAX || plen + flen > LOC_KEY_MAX)
		return;
	c.valid = 0; /* see LLOG__CACHE_OPEN */
	LLOG__CACHE_OPEN();
	memcpy(c.key, e->file, plen + 1);
	memcpy(c.key + plen + 1, fn, flen);
	c.key[plen + 1 + flen] = '\0';
	memcpy(c.text, o->p + start, o->n - start);
	c.n = o->n - start;
	c.plen = plen;
	c.line = e->line;
	c.func = func;
	LLOG__CACHE_CLOSE();
	c.valid = 1;
}

static void format_text(struct llog__buf *o, const struct llog_entry *e,
			const struct llog__lopt *lo, const char *tail, size_t tl)
{
	const struct llog__line_msg m = {tail, tl};
	size_t hn, n, cl = 0;
	const char *cat;
	char h[LLOG__TS_MAX + LEVEL_TID_MAX];

	if (lo->pat != NULL) {
		llog__pattern_format(o, e, lo, lo->pat, &m);
		return;
	}

	/* timestamp, level and thread id: one append ("INFO  db.pool [tid]":
	 * a category goes after the level, by the longer path), made in
	 * place when the room allows (the bytes past them are overwritten
	 * next) */
	cat = category(e, lo, &cl);
	if (o->cap - o->n >= sizeof(h)) {
		char *at = o->p + o->n;

		hn = llog__line_ts_text(at, e->ts_ns, lo);
		n = cat == NULL ? level_tid(at + hn, e->level, e->tid) : 0;
		o->n += hn + n;
	} else {
		hn = llog__line_ts_text(h, e->ts_ns, lo);
		n = cat == NULL ? level_tid(h + hn, e->level, e->tid) : 0;
		llog__buf_put(o, h, hn + n);
	}
	if (n == 0) {
		llog__buf_putc(o, ' ');
		put_level(o, e->level, 1);
		if (cat != NULL) {
			llog__buf_putc(o, ' ');
			llog__line_put_text_category(o, cat, cl);
		}
		llog__buf_put(o, " [", 2);
		llog__buf_num(o, e->tid, 10);
	}
	if (lo->flags & LLOG_LINE_THREAD_NAME) {
		size_t tn;
		const char *t = thread_name(e, lo, &tn);

		if (tn > 0) {
			llog__buf_putc(o, ' ');
			llog__line_put_text_name(o, t, tn);
		}
	}
	llog__buf_put(o, "] ", 2);
	/* escaped as the message (a TAB, a newline or a backslash in a file
	 * name too), so the field section's TAB is the line's only one */
	put_location(o, e, lo);
	llog__line_put_msg(o, e, lo, &m, 0, 1);
	/* The field section ends the line, after the markers (fields.md 3). */
	if (!llog__line_no_fields(e, lo))
		llog__line_put_fields(o, e, lo, 0);
}

static void format_json(struct llog__buf *o, const struct llog_entry *e,
			const struct llog__lopt *lo, const char *tail, size_t tl)
{
	size_t fr;

	llog__buf_put(o, "{\"seq\":", 7);
	llog__buf_num(o, e->seq, 10);
	llog__buf_put(o, ",\"ts\":\"", 7);
	llog__line_put_ts(o, e->ts_ns, lo);
	llog__buf_put(o, "\",\"level\":\"", 11);
	put_level(o, e->level, 0);
	llog__buf_put(o, "\",\"thread\":", 11);
	llog__buf_num(o, e->tid, 10);
	if (lo->full) {
		size_t tn;
		const char *t = thread_name(e, lo, &tn);

		llog__buf_put(o, ",\"thread_name\":", 15);
		llog__line_put_json_string(o, t, tn, "", 0);
	}
	{
		size_t cl;
		const char *c = category(e, lo, &cl);

		if (c != NULL) {
			llog__buf_put(o, ",\"category\":", 12);
			llog__line_put_json_string(o, c, cl, "", 0);
		}
	}
	{
		/* The base name, as in text lines (and llogcat's JSON of them) */
		size_t bn;
		const char *b = base_name(e->file, strlen(e->file), &bn);

		llog__buf_put(o, ",\"file\":", 8);
		llog__line_put_json_string(o, b, bn, "", 0);
	}
	llog__buf_put(o, ",\"line\":", 8);
	llog__buf_num(o, (uint64_t)(e->line < 0 ? 0 : e->line), 10);
	llog__buf_put(o, ",\"func\":", 8);
	llog__line_put_json_string(o, e->func != NULL ? e->func : "",
				   e->func != NULL ? strlen(e->func) : 0, "", 0);
	if (lo->full && e->suppressed != 0) {
		/* A rate-limited site's count (llog.h); before "msg", so a
		 * cut message keeps it. */
		llog__buf_put(o, ",\"suppressed\":", 14);
		llog__buf_num(o, e->suppressed, 10);
	}
	if (lo->full && e->backtrace)
		llog__buf_put(o, ",\"backtrace\":true", 17);
	llog__buf_put(o, ",\"msg\":", 7);
	/* The closing brace must survive a cut message, and the fields'
	 * start and ends (fields.md 4: "fields" right after "msg"). */
	fr = llog__line_fields_reserve(e, lo);
	if (fr > 0 && o->cap - o->n < 1 + fr + 2 + tl) {
		fr = 0; /* no room for the fields: the message alone */
		o->cut = 1;
	}
	if (o->cap > o->n + 1) {
		o->cap -= 1 + fr;
		llog__line_put_json_string(o, e->msg, e->msg_len, tail, tl);
		o->cap += fr;
		if (fr > 0)
			llog__line_put_fields(o, e, lo, 1);
		o->cap++;
	}
	llog__buf_putc(o, '}');
}

/* One attempt into buf[0..cap) (cap > 0); *cut when something did not
 * fit. A cut line ends with tail. */
static size_t format_once(const struct llog_entry *e, enum llog_format format,
			  const struct llog__lopt *lo, char *buf, size_t cap, const char *tail, size_t tl,
			  int *cut)
{
	struct llog__buf o = LLOG__BUF(buf, cap - 1);

	if (format == LLOG_FORMAT_JSON)
		format_json(&o, e, lo, tail, tl);
	else
		format_text(&o, e, lo, tail, tl);
	buf[o.n++] = '\n';
	*cut = o.cut;
	return o.n;
}

/* A line that does not fit is made again with room kept for the marker:
 * only lines that are cut pay twice. */
static size_t format_line(const struct llog_entry *e, enum llog_format format,
			  const struct llog__lopt *lo, char *buf, size_t cap, int *cut)
{
	size_t n;

	if (cap == 0) {
		*cut = 1;
		return 0;
	}
	n = format_once(e, format, lo, buf, cap, "", 0, cut);
	if (*cut)
		n = format_once(e, format, lo, buf, cap, LLOG__MARKER, LLOG__MARKER_LEN, cut),
		*cut = 1;
	return n;
}

static struct llog__lopt make_lopt(const struct llog_line_options *opt, int full,
				   const struct llog__pattern *pat)
{
	struct llog__lopt lo = {0, LLOG_TS_NS, full, pat};

	if (opt != NULL) {
		lo.flags = opt->flags;
		lo.prec = (unsigned)opt->ts_precision;
	}
	return lo;
}

size_t llog_format_entry(const struct llog_entry *e, enum llog_format format, char *buf, size_t cap)
{
	struct llog__lopt lo = make_lopt(NULL, 0, NULL);
	int cut;

	return format_line(e, format, &lo, buf, cap, &cut);
}

size_t llog_format_entry_opts(const struct llog_entry *e, enum llog_format format,
			      const struct llog_line_options *opt, char *buf, size_t cap)
{
	struct llog__pattern pat;
	char why[96];
	int cut, has = opt != NULL && opt->pattern != NULL && format == LLOG_FORMAT_TEXT &&
		       llog__pattern_parse(&pat, opt->pattern, why, sizeof(why)) == 0;
	struct llog__lopt lo = make_lopt(opt, 1, has ? &pat : NULL);

	return format_line(e, format, &lo, buf, cap, &cut);
}

size_t llog__line_format(const struct llog_entry *e, enum llog_format format,
			 const struct llog_line_options *opt, const struct llog__pattern *pat,
			 char *buf, size_t cap, int *cut)
{
	struct llog__lopt lo = make_lopt(opt, 1, format == LLOG_FORMAT_TEXT ? pat : NULL);

	return format_line(e, format, &lo, buf, cap, cut);
}

size_t llog__line_bound(const struct llog_entry *e, enum llog_format format,
			const struct llog__pattern *pat)
{
	/* Text: at most 4 bytes per message byte (\xNN; \u00NN stands for
	 * two), plus the header: timestamp 30 (35 local), level 5, tid and
	 * line 20 + 10 digits, the base name, separators. JSON: at most 6
	 * bytes per byte of file, function, thread name and message (\u00NN),
	 * plus the fixed keys and numbers (73 bytes in text, 175 in JSON;
	 * the suppressed count and the backtrace mark, 51 more at most).
	 * The function and the thread name (15 bytes, escaped) counted
	 * whatever the options. */
	size_t k = format == LLOG_FORMAT_JSON ? 6 : 4;
	size_t names = strlen(e->file) + (e->func != NULL ? strlen(e->func) : 0) + 16 +
		       (e->category != NULL ? e->category_len + 16 : 0);

	size_t fields = 0;

	/* Fields: the section's start and ends, and per field its separator,
	 * the key and a string value at k bytes a byte (quotes, '=' or ':'
	 * and "..." 8 more) or a number (LLOG__F64_MAX at most). */
	if (e->fields != NULL || e->fields_truncated != 0) {
		const struct llog_field *f = e->fields;
		size_t nf = f != NULL ? e->nfields : 0, bytes = 0;

		for (size_t i = 0; i < nf; i++)
			bytes += f[i].key_len + (f[i].type == LLOG_FIELD_STR ? f[i].v.str.len : 0);
		fields = LLOG__FIELDS_RESERVE + k * bytes + nf * (8 + LLOG__F64_MAX);
	}
	if (pat != NULL && format == LLOG_FORMAT_TEXT) /* the message, its markers (51) */
		return llog__pattern_bound(pat, e) + k * e->msg_len + 64 + fields;
	return k * (e->msg_len + names) + 256 + fields;
}
