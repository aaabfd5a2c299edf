/*
 * line_fields.c - the field section of a line (docs/fields.md 3, 4), and a
 * field's value as text for the typeless outputs (llog__line_field_f64,
 * llog__line_field_text). Part of the line formatter (line.c), which it
 * never calls; it escapes with line_escape.c.
 *
 * DESIGN
 * Fields (docs/fields.md 3, 4; llog_format_entry_opts and the sinks, never
 * llog_format_entry): in text, the line's last part, after the markers:
 * one TAB (the only one on a line: the message, file, function and thread
 * name escape it) then key=value tokens and "+N" for fields left out; in
 * JSON, "fields":{...} right after "msg" and "fields_truncated":N. Each
 * field whole or not at all; llog__line_bound counts them, so only a
 * caller's small buffer leaves one out (counted). One writer per part, for
 * every output: a key (put_key_text), a string (put_field_text, JSON's in
 * line_escape.c) and any other value (put_value_at, which RFC 5424 and
 * journald get through llog__line_field_text). A short key or string is
 * copied and tested in one pass, a value made where it goes when the room
 * holds its most. A text section with nothing left out or cut whose every
 * field's most fits (the sinks' lines) is written at a pointer in one loop
 * (put_fields_text), any other field by field, each whole or not at all:
 * the same bytes. Doubles: llog__line_field_f64, written by f64_text.c (no
 * libc formatting).
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "buf.h"
#include "f64_text.h"
#include "line.h"
#include "line_parts.h"

/* The entry's fields (none when the caller's entry may not have them). */
static size_t entry_fields(const struct llog_entry *e, const struct llog__lopt *lo,
			   const struct llog_field **f, uint32_t *left_out)
{
	size_t cutv = 0, n;

	*f = NULL;
	*left_out = 0;
	/* llog__line_no_fields's test, written out: the line parts' callers
	 * ask it before they call here */
	if (!lo->full || (e->fields == NULL && e->fields_truncated == 0))
		return 0;
	n = e->fields != NULL ? e->nfields : 0;
	*f = e->fields;
	if (e->fields_truncated == 0) /* none left out, no value cut: no walk */
		return n;
	for (size_t i = 0; i < n; i++)
		cutv += (e->fields[i].flags & LLOG_FIELD_TRUNCATED) != 0;
	/* fields_truncated counts the cut values too (sinks.h) */
	*left_out = e->fields_truncated > cutv ? (uint32_t)(e->fields_truncated - cutv) : 0;
	return n;
}

/* The double formatter's text fits a field's buffer. */
_Static_assert(LLOG__F64_TEXT_MAX <= LLOG__F64_MAX, "LLOG__F64_MAX too small");

size_t llog__line_field_f64(char *b, double d)
{
	return llog__f64_text(b, d);
}

/* A value that is not a string (I64, U64, F64, BOOL, NULL) as text at t,
 * which has LLOG__F64_MAX bytes of room (what lies past the text is
 * scratch: the integer's digits are moved by one copy of 8 or 24 bytes,
 * the double's by f64_text.c's copies); returns the text's end. In JSON a
 * double that is not finite is a string. The one writer of these values:
 * text and JSON lines, RFC 5424 and journald (llog__line_field_text). */
static inline __attribute__((always_inline)) char *put_value_at(char *t, const struct llog_field *f,
								    int json)
{
	switch (f->type) {
	case LLOG_FIELD_I64:
	case LLOG_FIELD_U64: {
		int neg = f->type == LLOG_FIELD_I64 && f->v.i64 < 0;
		/* 0 - (uint64_t)v: |INT64_MIN| too */
		uint64_t v = neg ? 0 - (uint64_t)f->v.i64 : f->v.u64;
		char d[48], *end = d + 24, *b;

		*t = '-';
		t += neg;
		if (v < 100000000u) {
			/* the 8 digits in one word (f64_text.h), the first in
			 * its lowest byte: the leading zeros, its lowest zero
			 * bytes, shifted out (one digit kept for 0) */
			uint64_t w = llog__digits8((uint32_t)v);
			int lz = w != 0 ? __builtin_ctzll(w) / 8 : 7;

			w = (w + UINT64_C(0x3030303030303030)) >> (8 * lz);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
			w = __builtin_bswap64(w); /* the first digit first */
#endif
			memcpy(t, &w, 8);
			return t + 8 - lz;
		}
		/* the digits at the end of d[0, 24), then 24 bytes copied:
		 * the number, then zeros as scratch */
		memset(end, 0, 24);
		b = llog__buf_dec_back(end, v, 1);
		memcpy(t, b, 24);
		return t + (end - b);
	}
	case LLOG_FIELD_F64:
		if (json && !isfinite(f->v.f64)) {
			const char *w = isnan(f->v.f64)	 ? "\"NaN\""
					: f->v.f64 > 0 ? "\"Infinity\""
						       : "\"-Infinity\"";

			memcpy(t, w, strlen(w));
			return t + strlen(w);
		}
		return t + llog__line_field_f64(t, f->v.f64);
	case LLOG_FIELD_BOOL:
		memcpy(t, f->v.b ? "true " : "false", 5);
		return t + (f->v.b ? 4 : 5);
	case LLOG_FIELD_NULL:
	default: memcpy(t, "null", 4); return t + 4;
	}
}

_Static_assert(LLOG__F64_MAX >= 25, "put_value_at's integer copy");

const char *llog__line_field_text(const struct llog_field *f, char *t, size_t *len)
{
	if (f->type == LLOG_FIELD_STR) {
		*len = f->v.str.len;
		return f->v.str.ptr;
	}
	*len = (size_t)(put_value_at(t, f, 0) - t);
	return t;
}

/* Whether every byte of x may be in a bare key: a-z A-Z (x | 0x20 folds
 * the capitals), - . / 0-9 : (one range from '-' to ':'), @ and _. Each
 * range in one signed compare: adding 0x80 - its first byte takes it to
 * the signed bytes from -128 up, and every other byte above them. */
static inline int bare_v16(llog__line_v16 x)
{
	llog__line_s16 az = (llog__line_s16)((x | 0x20) + (unsigned char)(0x80 - 'a'));
	llog__line_s16 num = (llog__line_s16)(x + (unsigned char)(0x80 - '-'));
	llog__line_v16 ok = (llog__line_v16)(az < (signed char)(-128 + 26)) |
			    (llog__line_v16)(num < (signed char)(-128 + 14)) |
			    (llog__line_v16)(x == '@') | (llog__line_v16)(x == '_');

	return llog__line_v16_all(ok);
}

/* A key in text is bare when made only of these (and not empty); tested
 * 16 bytes at a time, as llog__line_clean_run does. */
static int bare_key(const char *k, size_t n)
{
	const unsigned char *s = (const unsigned char *)k;
	llog__line_v16 x;
	size_t j;

	if (n == 0)
		return 0;
	if (n < 16)
		return bare_v16(llog__line_v16_short(s, n));
	for (j = 0; n - j > 16; j += 16) {
		memcpy(&x, s + j, 16);
		if (!bare_v16(x))
			return 0;
	}
	memcpy(&x, s + n - 16, 16);
	return bare_v16(x);
}

/* A key of 1 to 15 bytes that is bare, copied to p and tested in one
 * pass (llog__line_v16_copy): returns its end; NULL for any other key
 * (what was copied is scratch). p has room for n bytes. */
static inline char *key_short_at(char *p, const char *k, size_t n)
{
	if (n - 1 >= 15 || !bare_v16(llog__line_v16_copy(p, (const unsigned char *)k, n)))
		return NULL;
	return p + n;
}

/* A string of 1 to 15 bytes with nothing to escape, quoted at p: returns
 * its end; NULL for any other string (what was written is scratch). p has
 * room for n + 2 bytes. */
static inline char *str_short_at(char *p, const char *s, size_t n)
{
	if (n - 1 >= 15 ||
	    llog__line_stop_v16(llog__line_v16_copy(p + 1, (const unsigned char *)s, n), 0x7f, '"'))
		return NULL;
	p[0] = '"';
	p[n + 1] = '"';
	return p + n + 2;
}

/* A quoted string of the field section: '"' and '\\' escaped, \n \r \t,
 * \xNN for the other C0 bytes, 0x7f, each byte of a C1 character (c2 80
 * .. c2 9f) and every byte that is not part of valid UTF-8 (a short one
 * with nothing to escape: str_short_at). */
static void put_field_text(struct llog__buf *o, const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0;

	if (len + 2 <= o->cap - o->n) {
		char *end = str_short_at(o->p + o->n, str, len);

		if (end != NULL) {
			o->n = (size_t)(end - o->p);
			return;
		}
	}
	llog__buf_putc(o, '"');
	while (i < len) {
		size_t j = i, n;
		unsigned c;
		char e[4];

		j += llog__line_put_clean(o, s + j, len - j, 0x7f, '"');
		if (j == len)
			break;
		c = s[j];
		n = 1;
		if (c >= 0x80) {
			n = llog__line_utf8_len(s + j, len - j);
			if (n > 0 && !llog__line_is_c1(s + j, n)) {
				llog__buf_put(o, str + j, n);
				i = j + n;
				continue;
			}
			n = n > 0 ? n : 1; /* a C1 character: both bytes */
		}
		for (size_t k = 0; k < n; k++)
			llog__buf_put(o, e, llog__line_escape_byte(e, s[j + k]));
		i = j + n;
	}
	llog__buf_putc(o, '"');
}

/* A key in text: bare (a short one: key_short_at), or quoted as a string
 * value. */
static void put_key_text(struct llog__buf *o, const char *k, size_t n)
{
	char *end;

	if (n <= o->cap - o->n && (end = key_short_at(o->p + o->n, k, n)) != NULL) {
		o->n = (size_t)(end - o->p);
		return;
	}
	if (n >= 16 && bare_key(k, n)) {
		llog__buf_put(o, k, n);
		return;
	}
	put_field_text(o, k, n);
}

/* One field in text (key=value), or in JSON ("key":value). A value that
 * is not a string is made where it goes when the room holds LLOG__F64_MAX
 * bytes (the sinks' lines), else in t and appended (clipped, cut). */
static void put_field(struct llog__buf *o, const struct llog_field *f, int json)
{
	char t[LLOG__F64_MAX];

	if (json) {
		llog__line_put_json_string(o, f->key, f->key_len, "", 0);
		llog__buf_putc(o, ':');
	} else {
		put_key_text(o, f->key, f->key_len);
		llog__buf_putc(o, '=');
	}
	if (f->type == LLOG_FIELD_STR) {
		if (json) {
			llog__line_put_json_string(o, f->v.str.ptr, f->v.str.len, "", 0);
		} else {
			put_field_text(o, f->v.str.ptr, f->v.str.len);
			if (f->flags & LLOG_FIELD_TRUNCATED)
				llog__buf_put(o, "...", 3);
		}
		return;
	}
	if (o->cap - o->n >= LLOG__F64_MAX) {
		o->n = (size_t)(put_value_at(o->p + o->n, f, json) - o->p);
		return;
	}
	llog__buf_put(o, t, (size_t)(put_value_at(t, f, json) - t));
}

/* The most a field takes in text with its separator: the key quoted with
 * every byte escaped (\xNN), '=', and the value: a string quoted and
 * escaped the same way with "..." after it, any other value at most
 * LLOG__F64_MAX (a number's digits; the double formatter's scratch). */
static inline size_t field_text_bound(const struct llog_field *f)
{
	size_t n = 1 + 4 * f->key_len + 2 + 1;

	return n + (f->type == LLOG_FIELD_STR ? 4 * f->v.str.len + 2 + 3 : LLOG__F64_MAX);
}

/* put_field's text at p, which has field_text_bound(f) bytes of room
 * after the separator's: the same parts (a short key or string copied
 * and tested at p, the others through put_key_text and put_field_text in
 * a buffer of that room), no room checked between them. Returns the end. */
static inline __attribute__((always_inline)) char *put_field_at(char *p, const struct llog_field *f)
{
	char *q = key_short_at(p, f->key, f->key_len);

	if (q == NULL) {
		struct llog__buf b = LLOG__BUF(p, 4 * f->key_len + 2);

		put_key_text(&b, f->key, f->key_len);
		q = p + b.n;
	}
	*q++ = '=';
	if (f->type != LLOG_FIELD_STR)
		return put_value_at(q, f, 0);
	p = str_short_at(q, f->v.str.ptr, f->v.str.len);
	if (p == NULL) {
		struct llog__buf b = LLOG__BUF(q, 4 * f->v.str.len + 2);

		put_field_text(&b, f->v.str.ptr, f->v.str.len);
		p = q + b.n;
	}
	if (f->flags & LLOG_FIELD_TRUNCATED) {
		memcpy(p, "...", 3);
		p += 3;
	}
	return p;
}

/*
 * The usual text section, written at a pointer: fields none left out and
 * none cut (fields_truncated 0: nothing to count, no "+N"), every one
 * whose most (field_text_bound) fits the room left, as the sinks' lines
 * always have (llog__line_bound). Each field is followed by its separator
 * (the last one's is taken back), so no field asks whether it is the
 * first. Returns 1 when it wrote the section; 0 when it wrote nothing that
 * counts (what lies past o->n is scratch) and llog__line_put_fields' walk
 * must: an entry without fields, one that left some out or cut a value,
 * a field that may not fit. The same bytes as that walk.
 */
static inline int put_fields_text(struct llog__buf *o, const struct llog_entry *e,
				  const struct llog__lopt *lo)
{
	const struct llog_field *f = e->fields;
	size_t nf, i;
	char *p, *end;

	if (!lo->full || f == NULL || e->fields_truncated != 0 || (nf = e->nfields) == 0 ||
	    o->cap - o->n < LLOG__FIELDS_RESERVE)
		return 0;
	p = o->p + o->n;
	end = o->p + o->cap - LLOG__FIELDS_END;
	*p++ = '\t';
	for (i = 0; i < nf; i++) {
		if (field_text_bound(&f[i]) > (size_t)(end - p))
			return 0;
		p = put_field_at(p, &f[i]);
		*p++ = ' ';
	}
	o->n = (size_t)(p - 1 - o->p);
	return 1;
}

/*
 * The field section: in text, TAB then the fields separated by a space
 * and "+N" when fields were left out; in JSON ,"fields":{...} and
 * ,"fields_truncated":N. Each field is written whole or not at all: one
 * that does not fit the room (only in a caller's small buffer: the sinks
 * size theirs with llog__line_bound) is left out, counted in +N
 * (fields_truncated), and the line is marked cut. The caller kept
 * llog__line_fields_reserve() bytes of room for the start and the ends.
 */
void llog__line_put_fields(struct llog__buf *o, const struct llog_entry *e,
			   const struct llog__lopt *lo, int json)
{
	const struct llog_field *f;
	uint32_t left;
	size_t nf, shown = 0, full = o->cap, i = 0;
	int was = o->cut, lost = 0;
	uint64_t cutv = 0;

	if (!json && put_fields_text(o, e, lo))
		return;
	nf = entry_fields(e, lo, &f, &left);
	if (nf == 0 && left == 0)
		return;
	if (o->cap - o->n < LLOG__FIELDS_RESERVE) { /* the caller could keep none */
		o->cut = 1;
		return;
	}
	if (json)
		llog__buf_put(o, ",\"fields\":{", 11);
	else
		llog__buf_putc(o, '\t');
	o->cap = full - LLOG__FIELDS_END;
	if (!json) {
		/* The usual line: each field whose most (field_text_bound) fits
		 * the room left is written at a pointer, no part checked; the
		 * first that may not fit (only in a caller's small buffer: the
		 * sinks size theirs with llog__line_bound) and those after it
		 * go one by one below, each whole or not at all. The same
		 * bytes either way. */
		char *p = o->p + o->n, *end = o->p + o->cap;

		for (; i < nf && field_text_bound(&f[i]) <= (size_t)(end - p); i++) {
			if (i > 0)
				*p++ = ' ';
			p = put_field_at(p, &f[i]);
			cutv += (f[i].flags & LLOG_FIELD_TRUNCATED) != 0;
		}
		o->n = (size_t)(p - o->p);
		shown = i;
	}
	for (; i < nf; i++) {
		size_t at = o->n;

		o->cut = 0;
		if (shown > 0)
			llog__buf_putc(o, json ? ',' : ' ');
		put_field(o, &f[i], json);
		if (o->cut) { /* whole or not at all */
			o->n = at;
			lost = 1;
			left++;
			continue;
		}
		shown++;
		cutv += (f[i].flags & LLOG_FIELD_TRUNCATED) != 0;
	}
	o->cap = full;
	o->cut = 0;
	if (json) {
		llog__buf_putc(o, '}');
		if (left + cutv > 0) {
			llog__buf_put(o, ",\"fields_truncated\":", 20);
			llog__buf_num(o, left + cutv, 10);
		}
	} else if (left > 0) {
		if (shown > 0)
			llog__buf_putc(o, ' ');
		llog__buf_putc(o, '+');
		llog__buf_num(o, left, 10);
	}
	o->cut = was | lost;
}
