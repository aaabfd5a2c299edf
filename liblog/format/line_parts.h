/*
 * line_parts.h - what the files of the line formatter share (internal to
 * liblog/format/line*.c; the rest of llog uses line.h). line.c lays out the
 * line from the parts made by line_ts.c (the timestamp), line_escape.c
 * (escaped strings) and line_fields.c (the field section, which escapes
 * with line_escape.c); no part calls line.c.
 *
 * The line is built in a struct llog__buf whose cap excludes the byte
 * kept for the final '\n'.
 */
#ifndef LLOG_LINE_PARTS_H
#define LLOG_LINE_PARTS_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <llog/sinks.h>

#include "buf.h"
#include "line.h"

/* What a line is made with: the public options, and whether the entry's
 * appended fields may be read (llog_format_entry reads none: its caller
 * may have an older, shorter struct llog_entry). */
struct llog__lopt {
	unsigned flags;
	unsigned prec; /* enum llog_ts_precision */
	int full;
	const struct llog__pattern *pat; /* a text line's pattern, or NULL */
};

/* ---- line_msg.c ---- */

/* A cut message's ending (the marker, or none). */
struct llog__line_msg {
	const char *tail;
	size_t tl;
};

/* The message of a text line with its markers ("[backtrace] " before it,
 * " [N suppressed]" after it, a cut message's tail), with room kept for
 * the field section (when fields_after) and for rest more bytes (what a
 * pattern writes after the message; less when the room is too small for
 * the markers and rest: a cut line keeps its marker). */
void llog__line_put_msg(struct llog__buf *o, const struct llog_entry *e,
			const struct llog__lopt *lo, const struct llog__line_msg *m, size_t rest,
			int fields_after);

/* ---- line_pattern.c ---- */

/* An upper bound of the text of p's elements for e, but the message's
 * and the field section's. */
size_t llog__pattern_bound(const struct llog__pattern *p, const struct llog_entry *e);
/* e's text line laid out by p (its message through llog__line_put_msg;
 * the field section where %k is, else at the end). */
void llog__pattern_format(struct llog__buf *o, const struct llog_entry *e,
			  const struct llog__lopt *lo, const struct llog__pattern *p,
			  const struct llog__line_msg *m);

/*
 * The line formatter's per-thread caches (the timestamp's text per second
 * in line_ts.c, the " LEVEL [tid" text in line.c) are rebuilt with their
 * key invalid: a signal handler that interrupts the rebuild on the same
 * thread (the flusher's crash drain formats lines) finds no key and builds
 * its own text, never a half-written one. The signal fences keep the
 * compiler from moving the stores across.
 */
#define LLOG__CACHE_OPEN() atomic_signal_fence(memory_order_seq_cst)
#define LLOG__CACHE_CLOSE() atomic_signal_fence(memory_order_seq_cst)

/* ---- line_ts.c ---- */

#define LLOG__TS_MAX 40 /* llog__line_ts_text's bytes, at most (35) */

/* The timestamp under the options into b (LLOG__TS_MAX bytes); returns
 * its length. */
size_t llog__line_ts_text(char *b, int64_t ts_ns, const struct llog__lopt *lo);
/* The same, appended to o. */
void llog__line_put_ts(struct llog__buf *o, int64_t ts_ns, const struct llog__lopt *lo);

/* ---- line_escape.c ---- */

/* The backslash escape of byte c, written at e (4 bytes): \n \r \t \\
 * \" or \xNN (lower-case hex); returns its length, 2 or 4. Both escaped
 * texts use it: a message's (line_escape.c, where a '"' is never
 * escaped: it is kept before it gets here) and a field's quoted value
 * (line_fields.c). */
size_t llog__line_escape_byte(char *e, unsigned c);

/* Appends s[0..n) whole or not at all (an escape sequence or a UTF-8
 * character is never cut in half); when it does not fit, sets cut and
 * closes the room (cap = n, so nothing after it is appended either; a
 * caller that lowered cap to keep room for an ending puts its cap back).
 * n is not moved: the bytes past it were never written. */
static inline void llog__line_put_whole(struct llog__buf *o, const char *s, size_t n)
{
	if (n > o->cap - o->n) {
		o->cap = o->n;
		o->cut = 1;
		return;
	}
	llog__buf_put(o, s, n);
}

/* Whether s[0..n) is a C1 control character, U+0080..U+009F, in UTF-8. */
static inline int llog__line_is_c1(const unsigned char *s, size_t n)
{
	return n == 2 && s[0] == 0xc2 && s[1] <= 0x9f;
}

/*
 * The clean run at the start of s[0..n): how many bytes come before the
 * first one that is below 0x20, at or above hi (0x7f: DEL and every
 * non-ASCII byte; 0x80: non-ASCII only), a backslash or q. The escapers
 * copy a clean run whole and look at the byte that ends it alone.
 *
 * Sixteen bytes are tested at a time, as a GNU C vector (gcc and clang
 * lower it to SSE2 on x86-64, to plain words elsewhere): a run shorter
 * than 16 is tested once with its bytes laid into one vector (the two
 * ends of the run overlapping, 'a' in what is left), a longer one 16 at
 * a time and its last 16 overlapping. Only a vector that holds a byte to
 * stop at is then walked byte by byte, to find it. Nothing is read
 * outside s[0..n).
 */
typedef unsigned char llog__line_v16 __attribute__((vector_size(16))); /* GNU extension */
typedef uint64_t llog__line_v2x64 __attribute__((vector_size(16)));  /* GNU extension */
typedef signed char llog__line_s16 __attribute__((vector_size(16)));  /* GNU extension */

/* Whether some lane of m (each 0 or 0xff, a compare's result) is set, and
 * whether all are: one byte mask of the 16 lanes (SSE2's pmovmskb: one
 * instruction and a compare, against a move, an extract and a compare of
 * the two halves), or the two 64-bit halves where there is no SSE2. */
typedef char llog__line_c16 __attribute__((vector_size(16))); /* GNU extension */

static inline int llog__line_v16_any(llog__line_v16 m)
{
#ifdef __SSE2__
	return __builtin_ia32_pmovmskb128((llog__line_c16)m) != 0;
#else
	llog__line_v2x64 w = (llog__line_v2x64)m;

	return (w[0] | w[1]) != 0;
#endif
}

static inline int llog__line_v16_all(llog__line_v16 m)
{
#ifdef __SSE2__
	return __builtin_ia32_pmovmskb128((llog__line_c16)m) == 0xffff;
#else
	llog__line_v2x64 w = (llog__line_v2x64)m;

	return (w[0] & w[1]) == UINT64_MAX;
#endif
}

/* Whether byte c ends a clean run (as llog__line_clean_run decides). */
static inline int llog__line_stop_byte(unsigned c, unsigned hi, unsigned q)
{
	return c - 0x20 >= hi - 0x20 || c == '\\' || c == q;
}

/* Whether one of the 16 bytes of x ends a clean run. The range test in
 * one signed compare (SSE2 has no unsigned one): c + 0x60 takes
 * [0x20, hi) to [-128, hi - 0x20 - 128) as a signed byte, and every
 * other byte above it. */
static inline int llog__line_stop_v16(llog__line_v16 x, unsigned hi, unsigned char q)
{
	llog__line_s16 b = (llog__line_s16)(x + (unsigned char)0x60);
	llog__line_v16 stop = (llog__line_v16)(b > (signed char)((int)hi - 0x20 - 129)) |
			      (llog__line_v16)(x == (unsigned char)'\\') | (llog__line_v16)(x == q);

	return llog__line_v16_any(stop);
}

/* The bytes of s[0..n), n < 16, laid into one vector: its two ends
 * (overlapping; for n < 8 twice over), or its first, middle and last bytes
 * for n < 4 (four times over); every lane holds a byte of s ('a' in all
 * when n is 0). */
static inline llog__line_v16 llog__line_v16_short(const unsigned char *s, size_t n)
{
	llog__line_v2x64 w;
	uint64_t x, y;

	if (n >= 8) {
		memcpy(&x, s, 8);
		memcpy(&y, s + n - 8, 8);
	} else if (n >= 4) {
		uint32_t a, b;

		memcpy(&a, s, 4);
		memcpy(&b, s + n - 4, 4);
		x = y = a | (uint64_t)b << 32;
	} else if (n > 0) {
		uint32_t a = s[0], b = s[n / 2], c = s[n - 1];

		x = y = (a | b << 8 | c << 16 | a << 24) * UINT64_C(0x100000001);
	} else {
		x = y = UINT64_C(0x6161616161616161); /* 'a': clean, and bare */
	}
	w = (llog__line_v2x64){x, y};
	return (llog__line_v16)w;
}

/* The same vector of s, 1 <= n < 16, and s copied to d (llog__buf_put_short:
 * nothing outside d[0..n) written): the field section copies a short key
 * or string and tests it in one pass (the copy's loads are the test's). */
static inline llog__line_v16 llog__line_v16_copy(char *d, const unsigned char *s, size_t n)
{
	llog__line_v16 x = llog__line_v16_short(s, n);
	struct llog__buf b = LLOG__BUF(d, n);

	llog__buf_put_short(&b, (const char *)s, n);
	return x;
}

static inline size_t llog__line_clean_run(const unsigned char *s, size_t n, unsigned hi,
					  unsigned char q)
{
	llog__line_v16 x;
	size_t j = 0;

	if (n >= 16) {
		for (; n - j > 16; j += 16) {
			memcpy(&x, s + j, 16);
			if (llog__line_stop_v16(x, hi, q))
				goto bytes;
		}
		memcpy(&x, s + n - 16, 16);
		if (!llog__line_stop_v16(x, hi, q))
			return n;
	} else if (!llog__line_stop_v16(llog__line_v16_short(s, n), hi, q)) {
		return n;
	}
bytes:
	while (j < n && !llog__line_stop_byte(s[j], hi, q))
		j++;
	return j;
}

/*
 * Appends the clean run at the start of s[0..n) (llog__line_clean_run's)
 * and returns its length. When the room holds all n bytes and n >= 16,
 * each vector is stored as soon as it is tested (no second pass, no call
 * to memcpy; a vector that holds a stop byte is stored too, and only its
 * clean bytes counted: what lies past o->n is scratch); else the run is
 * found, then appended as llog__buf_put would (clipped to the room).
 */
static inline size_t llog__line_put_clean(struct llog__buf *o, const unsigned char *s, size_t n,
					  unsigned hi, unsigned char q)
{
	size_t j = 0;

	if (n >= 16 && n <= o->cap - o->n) {
		unsigned char *d = (unsigned char *)o->p + o->n;
		llog__line_v16 x;

		for (; n - j > 16; j += 16) {
			memcpy(&x, s + j, 16);
			memcpy(d + j, &x, 16);
			if (llog__line_stop_v16(x, hi, q))
				goto stop;
		}
		memcpy(&x, s + n - 16, 16);
		memcpy(d + n - 16, &x, 16); /* [j, n) stored: n - 16 <= j */
		if (!llog__line_stop_v16(x, hi, q)) {
			o->n += n;
			return n;
		}
stop:
		while (j < n && !llog__line_stop_byte(s[j], hi, q))
			j++;
		o->n += j;
		return j;
	}
	j = llog__line_clean_run(s, n, hi, q);
	llog__buf_put_short(o, (const char *)s, j);
	return j;
}

/* A message, file, function or thread name in text: the controls, DEL, a
 * backslash and the C1 controls escaped (line_escape.c). */
void llog__line_put_text_escaped(struct llog__buf *o, const char *str, size_t len);
/* A thread name in text: escaped as a message is, and ']' as \x5d (the
 * default line's bracket around it must end it). */
void llog__line_put_text_name(struct llog__buf *o, const char *s, size_t n);
/* A category in text: one word (a byte that is not printable ASCII, a
 * space, '[' or '\\' as \xNN; llogcat reads it back). */
void llog__line_put_text_category(struct llog__buf *o, const char *s, size_t n);
/* A JSON string; when it is cut, tail[0..tl) ends it, before the closing
 * quote, which is always there (room is kept for both). */
void llog__line_put_json_string(struct llog__buf *o, const char *str, size_t len,
				const char *tail, size_t tl);

/* ---- line_fields.c ---- */

/* Room kept after the message for the field section's start and ends
 * (LLOG__FIELDS_START + LLOG__FIELDS_END: TAB and " +N" in text;
 * ,"fields":{ and },"fields_truncated":N in JSON), when the entry has
 * fields. */
#define LLOG__FIELDS_START 11
#define LLOG__FIELDS_END 32
#define LLOG__FIELDS_RESERVE (LLOG__FIELDS_START + LLOG__FIELDS_END)

/* Whether the entry has no field section for sure (then the two below
 * do nothing and return 0): its appended fields may not be read, or it
 * has none and left none out (the test line_fields.c's entry_fields
 * starts with). Inline: most entries have none. */
static inline int llog__line_no_fields(const struct llog_entry *e, const struct llog__lopt *lo)
{
	return !lo->full || (e->fields == NULL && e->fields_truncated == 0);
}

/* The room to keep for the field section: LLOG__FIELDS_RESERVE when the
 * entry has fields (or left some out), else 0. Inline: the message asks it
 * for every entry with fields. */
static inline size_t llog__line_fields_reserve(const struct llog_entry *e,
					       const struct llog__lopt *lo)
{
	/* fields_truncated counts the fields left out and the values cut,
	 * which only fields shown can be: line_fields.c's entry_fields'
	 * n > 0 || left > 0 */
	return lo->full && ((e->fields != NULL && e->nfields > 0) || e->fields_truncated > 0)
		       ? LLOG__FIELDS_RESERVE
		       : 0;
}

/* The field section, in text or JSON (line_fields.c). */
void llog__line_put_fields(struct llog__buf *o, const struct llog_entry *e,
			   const struct llog__lopt *lo, int json);

#endif /* LLOG_LINE_PARTS_H */
