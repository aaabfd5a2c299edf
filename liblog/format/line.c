/*
 * line.c - one entry as one line of text or JSON (llog_format_entry).
 *
 * DESIGN
 * llog_format_entry() writes into a caller buffer, never allocates, never
 * overflows: output that does not fit is cut, ends with the marker
 * " [truncated]" (inside the message string in JSON: the line stays valid
 * JSON; an escape sequence or a UTF-8 character is never cut in half) and
 * the line still ends with '\n'. llog's own sinks size their buffers with
 * llog__line_bound, so they cut only at a hard limit of theirs, through
 * llog__line_format, which tells the caller of the cut (llog's sinks count
 * it in stats.truncated: llog__sink_format_line, sink.c). Every record is
 * exactly one line, and no message can forge another
 * record or drive a terminal: in text, the C0 controls (bytes below 0x20)
 * and DEL (0x7f) in the message are escaped (\n, \r, \t, \xNN), a
 * backslash is \\ (file format version 2: a literal "\n" is "\\n"), the C1
 * controls too: U+0080..U+009F encoded in UTF-8 (c2 80 .. c2 9f) as
 * \u0080..\u009f, and a byte 0x80..0x9f that is not part of a valid UTF-8
 * sequence (an 8-bit terminal's C1, 0x9b is CSI) as \xNN; valid UTF-8
 * above U+009F and stray bytes 0xa0..0xff are kept as they are. In JSON,
 * strings follow RFC 8259 (quote, backslash and control characters
 * escaped, the C1 controls as \u0080..\u009f, invalid UTF-8, stray
 * 0x80..0x9f included, replaced by U+FFFD), so the output is always valid
 * JSON.
 * Timestamps are formatted from integers (no gmtime, no locale): civil date
 * from days since 1970 by the usual era arithmetic of the proleptic Gregorian
 * calendar. Local time (LLOG_LINE_LOCAL_TIME) is the same arithmetic on
 * the second shifted by the UTC offset that localtime_r gives for it,
 * asked once per second of timestamps per thread (cached with the text);
 * while a crash is drained localtime_r (a lock, a file read) is not
 * called: the thread's last offset is used, or UTC when it has none. The
 * crash handler says how to know (llog__line_set_crash_probe): this file
 * is part of the format unit, which calls nothing of the core.
 *
 * Fields (docs/fields.md 3, 4; llog_format_entry_opts and the sinks, never
 * llog_format_entry): in text, the line's last part, after the markers:
 * one TAB (the only one on a line: the message, file, function and thread
 * name escape it) then key=value tokens and "+N" for fields left out; in
 * JSON, "fields":{...} right after "msg" and "fields_truncated":N. Each
 * field whole or not at all; llog__line_bound counts them, so only a
 * caller's small buffer leaves one out (counted). Doubles: llog__line_field_f64
 * (snprintf and strtod, the one place of a line that calls libc
 * formatting).
 *
 * Options (struct llog_line_options): text may carry the function
 * ("file:line func() msg") and the thread name ("[tid name]", the name
 * escaped as a message is and ']' as \x5d, so the bracket ends it); the
 * timestamp's precision (9, 6, 3 or no fraction digits, cut, not
 * rounded) and zone apply to text and JSON. The zero options give the
 * default line, unchanged since the first version.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "atomic.h"
#include "buf.h"
#include "fmt.h" /* LLOG__MARKER: the same marker as a cut message's */
#include "line.h"

/* The line is built in a struct llog__buf whose cap excludes the byte
 * kept for the final '\n'. */

/* Zero-padded decimal of exactly `width` digits. */
static void put_fixed(char *dst, uint64_t v, int width)
{
	for (int i = width - 1; i >= 0; i--) {
		dst[i] = (char)('0' + v % 10);
		v /= 10;
	}
}

/* days since 1970-01-01 -> year, month (1-12), day (1-31) */
static void civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d)
{
	int64_t era, yoe, doy, mp;

	z += 719468; /* shift the epoch to 0000-03-01 */
	era = (z >= 0 ? z : z - 146096) / 146097;
	yoe = z - era * 146097;                                /* [0, 146096] */
	yoe = (yoe - yoe / 1460 + yoe / 36524 - yoe / 146096) / 365; /* [0, 399] */
	doy = (z - era * 146097) - (365 * yoe + yoe / 4 - yoe / 100); /* [0, 365] */
	mp = (5 * doy + 2) / 153;                              /* [0, 11] */
	*d = (unsigned)(doy - (153 * mp + 2) / 5 + 1);
	*m = (unsigned)(mp < 10 ? mp + 3 : mp - 9);
	*y = yoe + era * 400 + (*m <= 2);
}

/* "YYYY-MM-DDTHH:MM:SS" of a second since 1970 (19 bytes). */
static void format_second(char *b, int64_t secs)
{
	int64_t days = secs >= 0 ? secs / 86400 : (secs - 86399) / 86400;
	int64_t sod = secs - days * 86400, y;
	unsigned m, d;

	civil_from_days(days, &y, &m, &d);
	if (y < 0 || y > 9999)
		y = 0;
	put_fixed(b, (uint64_t)y, 4);
	b[4] = '-';
	put_fixed(b + 5, m, 2);
	b[7] = '-';
	put_fixed(b + 8, d, 2);
	b[10] = 'T';
	put_fixed(b + 11, (uint64_t)(sod / 3600), 2);
	b[13] = ':';
	put_fixed(b + 14, (uint64_t)(sod / 60 % 60), 2);
	b[16] = ':';
	put_fixed(b + 17, (uint64_t)(sod % 60), 2);
}

/* What a line is made with: the public options, and whether the entry's
 * appended fields may be read (llog_format_entry reads none: its caller
 * may have an older, shorter struct llog_entry). */
struct lopt {
	unsigned flags;
	unsigned prec; /* enum llog_ts_precision */
	int full;
};

/* Whether a crash is being reported (crash.c's llog__crash_in_progress),
 * or NULL: none can be (no crash handler installed, or llogcat). */
static int (*_Atomic crash_probe)(void);

void llog__line_set_crash_probe(int (*in_crash)(void))
{
	/* Release: pairs with the acquire load in in_crash(); set before the
	 * handler is installed, so a thread that formats during a report
	 * finds the probe. */
	llog__store_release(&crash_probe, in_crash);
}

static int in_crash(void)
{
	/* Acquire: pairs with the release store in llog__line_set_crash_probe. */
	int (*probe)(void) = llog__load_acquire(&crash_probe);

	return probe != NULL && probe();
}

/* The UTC offset (seconds east) of the second secs, per localtime_r; the
 * thread's last one while a crash is drained (0 when none). */
static long local_offset(int64_t secs)
{
	static __thread long last_off;
	struct tm tm;
	time_t t = (time_t)secs;

	if (in_crash() || localtime_r(&t, &tm) == NULL)
		return last_off;
	last_off = tm.tm_gmtoff;
	return last_off;
}

/* "+HH:MM" / "-HH:MM" (6 bytes) of an offset in seconds. */
static void format_offset(char *b, long off)
{
	long a = off < 0 ? -off : off;

	b[0] = off < 0 ? '-' : '+';
	put_fixed(b + 1, (uint64_t)(a / 3600 % 100), 2);
	b[3] = ':';
	put_fixed(b + 4, (uint64_t)(a / 60 % 60), 2);
}

/*
 * The per-thread caches below (the timestamp's text per second, the
 * " LEVEL [tid" text) are rebuilt with their key invalid: a signal handler
 * that interrupts the rebuild on the same thread (the flusher's crash drain
 * formats lines) finds no key and builds its own text, never a half-written
 * one. The signal fences keep the compiler from moving the stores across.
 */
#define CACHE_OPEN() atomic_signal_fence(memory_order_seq_cst)
#define CACHE_CLOSE() atomic_signal_fence(memory_order_seq_cst)

/* Two decimal digits of 0..99, for the fraction. */
static const char pairs[] =
	"00010203040506070809101112131415161718192021222324"
	"25262728293031323334353637383940414243444546474849"
	"50515253545556575859606162636465666768697071727374"
	"75767778798081828384858687888990919293949596979899";

/* ".NNNNNNNNN" of ns (0..999999999): 10 bytes, two digits per step. */
static void put_frac9(char *b, uint32_t ns)
{
	b[0] = '.';
	for (int k = 8; k > 0; k -= 2) {
		memcpy(b + k, pairs + 2 * (ns % 100), 2);
		ns /= 100;
	}
	b[1] = (char)('0' + ns);
}

#define TS_MAX 40 /* ts_text's bytes, at most (35) */

/*
 * The timestamp under the options: "YYYY-MM-DDTHH:MM:SS", the fraction
 * (lo->prec digits of the nanoseconds, cut), then "Z" or the local offset.
 * The text up to the seconds (and the offset) is made once per second of
 * timestamps per thread, UTC and local cached apart; per record only the
 * fraction's digits are written.
 */
static size_t ts_text(char *b, int64_t ts_ns, const struct lopt *lo)
{
	static const unsigned digits[] = {9, 6, 3, 0};
	static __thread int64_t utc_sec = INT64_MIN, local_sec = INT64_MIN;
	static __thread char utc[19], local[25];
	size_t n = 19;
	unsigned prec = lo->prec <= LLOG_TS_S ? lo->prec : LLOG_TS_NS;
	/* floor; not (ts_ns - 999999999) / 10^9, which overflows near INT64_MIN */
	int64_t secs = ts_ns / 1000000000 - (ts_ns % 1000000000 < 0);
	int64_t ns = ts_ns % 1000000000 + (ts_ns % 1000000000 < 0 ? 1000000000 : 0);

	if (!(lo->flags & LLOG_LINE_LOCAL_TIME)) {
		if (secs != utc_sec) {
			utc_sec = INT64_MIN; /* see CACHE_OPEN */
			CACHE_OPEN();
			format_second(utc, secs);
			CACHE_CLOSE();
			utc_sec = secs;
		}
		memcpy(b, utc, 19);
	} else {
		if (secs != local_sec) {
			long off = local_offset(secs);

			local_sec = INT64_MIN;
			CACHE_OPEN();
			format_second(local, secs + off);
			format_offset(local + 19, off);
			CACHE_CLOSE();
			local_sec = secs;
		}
		memcpy(b, local, 19);
	}
	if (digits[prec] > 0) {
		put_frac9(b + n, (uint32_t)ns); /* all 9; the first ones kept */
		n += 1 + digits[prec];
	}
	if (lo->flags & LLOG_LINE_LOCAL_TIME) {
		memcpy(b + n, local + 19, 6);
		n += 6;
	} else {
		b[n++] = 'Z';
	}
	return n;
}

/*
 * RFC 3339 UTC with nanoseconds: 2026-12-03T08:19:42.123456789Z (30 bytes),
 * ts_text's UTC form (its calendar part cached per second).
 */
void llog__line_ts_rfc3339(char *b, int64_t ts_ns)
{
	static const struct lopt utc_ns = {0, LLOG_TS_NS, 0};
	char t[TS_MAX];

	memcpy(b, t, ts_text(t, ts_ns, &utc_ns)); /* 30 bytes */
}

static void put_ts(struct llog__buf *o, int64_t ts_ns, const struct lopt *lo)
{
	char b[TS_MAX];

	llog__buf_put(o, b, ts_text(b, ts_ns, lo));
}

static const char hexdig[] = "0123456789abcdef";

/* Appends s[0..n) whole or not at all (an escape sequence or a UTF-8
 * character is never cut in half); when it does not fit, sets cut and
 * closes the room (cap = n, so nothing after it is appended either; a
 * caller that lowered cap to keep room for an ending puts its cap back).
 * n is not moved: the bytes past it were never written. */
static void put_whole(struct llog__buf *o, const char *s, size_t n)
{
	if (n > o->cap - o->n) {
		o->cap = o->n;
		o->cut = 1;
		return;
	}
	llog__buf_put(o, s, n);
}

size_t llog__line_utf8_len(const unsigned char *s, size_t len)
{
	unsigned c = s[0];
	size_t n;
	unsigned cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, cp = c & 0x07;
	else
		return 0;
	if (n > len)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	/* overlong, surrogates, beyond U+10FFFF */
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10ffff ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

/* Nonzero when one of the 8 bytes of w is below 0x20, is 0x7f, is a
 * backslash or is 0x80 and above (SWAR: for each byte b, (b - 0x20) borrows into bit 7 only if
 * b < 0x20, b ^ 0x7f is zero only if b == 0x7f, and bit 7 of b itself is
 * set for 0x80 and above). Bytes 0x80 and above go to the slow path, which
 * tells valid UTF-8 (kept) from C1 controls and stray bytes. */
static inline uint64_t has_ctl(uint64_t w)
{
	const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
	uint64_t del = w ^ (0x7f * ones), bs = w ^ (0x5c * ones);

	/* bs: the same test as del's for the backslash (0x5c), escaped \\
	 * since file format version 2; a false positive only sends the
	 * word to the byte loop, which decides. */
	return (((w - 0x20 * ones) | (del - ones) | (bs - ones) | w) & high);
}

/* Whether s[0..n) is a C1 control character, U+0080..U+009F, in UTF-8. */
static inline int is_c1(const unsigned char *s, size_t n)
{
	return n == 2 && s[0] == 0xc2 && s[1] <= 0x9f;
}

/* "\u00XX" for a C1 control character encoded as c2 XX. */
static void put_u00(struct llog__buf *o, unsigned c)
{
	char e[6] = {'\\', 'u', '0', '0', hexdig[c >> 4], hexdig[c & 15]};

	put_whole(o, e, 6);
}

static void put_text_escaped(struct llog__buf *o, const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0;

	while (i < len) {
		size_t j = i, n;
		uint64_t w;
		unsigned c;

		while (j + 8 <= len && (memcpy(&w, s + j, 8), !has_ctl(w)))
			j += 8;
		/* The last word read overlapping: [j, len) is in it. */
		if (j < len && len >= 8 && j + 8 > len &&
		    (memcpy(&w, s + len - 8, 8), !has_ctl(w)))
			j = len;
		while (j < len && s[j] >= 0x20 && s[j] < 0x7f && s[j] != '\\')
			j++;
		llog__buf_put(o, str + i, j - i);
		if (j == len)
			break;
		c = s[j];
		if (c >= 0x80) {
			n = llog__line_utf8_len(s + j, len - j);
			if (is_c1(s + j, n)) {
				put_u00(o, s[j + 1]);
				i = j + 2;
				continue;
			}
			if (n > 0 || c >= 0xa0) {
				/* Valid UTF-8 (above U+009F), or a stray byte
				 * that is no control character in any
				 * encoding: kept as it is. */
				n = n > 0 ? n : 1;
				put_whole(o, str + j, n);
				i = j + n;
				continue;
			}
			/* A stray 0x80..0x9f: a C1 control to an 8-bit
			 * terminal (0x9b is CSI). Escaped below. */
		}
		switch (c) {
		case '\n': put_whole(o, "\\n", 2); break;
		case '\r': put_whole(o, "\\r", 2); break;
		case '\t': put_whole(o, "\\t", 2); break;
		case '\\': put_whole(o, "\\\\", 2); break;
		default: {
			char e[4] = {'\\', 'x', hexdig[c >> 4], hexdig[c & 15]};
			put_whole(o, e, 4);
		}
		}
		i = j + 1;
	}
}

/* A JSON string; when it is cut, tail[0..tl) ends it, before the closing
 * quote, which is always there (room is kept for both). */
static void put_json_string(struct llog__buf *o, const char *str, size_t len, const char *tail,
			    size_t tl)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, cap = o->cap;

	llog__buf_putc(o, '"');
	if (o->cap - o->n < 1 + tl) {
		o->cut = 1; /* not even the closing quote: cut */
		return;
	}
	o->cap -= 1 + tl;
	while (i < len) {
		unsigned c = s[i];
		size_t n;

		if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
			size_t j = i + 1;

			while (j < len && s[j] >= 0x20 && s[j] < 0x80 && s[j] != '"' && s[j] != '\\')
				j++;
			llog__buf_put(o, str + i, j - i);
			i = j;
			continue;
		}
		switch (c) {
		case '"': put_whole(o, "\\\"", 2); i++; continue;
		case '\\': put_whole(o, "\\\\", 2); i++; continue;
		case '\n': put_whole(o, "\\n", 2); i++; continue;
		case '\r': put_whole(o, "\\r", 2); i++; continue;
		case '\t': put_whole(o, "\\t", 2); i++; continue;
		default: break;
		}
		if (c < 0x20) {
			char e[6] = {'\\', 'u', '0', '0', hexdig[c >> 4], hexdig[c & 15]};

			put_whole(o, e, 6);
			i++;
			continue;
		}
		n = llog__line_utf8_len(s + i, len - i);
		if (n == 0) {
			put_whole(o, "\xef\xbf\xbd", 3); /* U+FFFD */
			i++;
		} else if (is_c1(s + i, n)) {
			put_u00(o, s[i + 1]); /* the same character, escaped */
			i += 2;
		} else {
			put_whole(o, str + i, n);
			i += n;
		}
	}
	o->cap = cap;
	if (o->cut)
		llog__buf_put(o, tail, tl);
	llog__buf_putc(o, '"');
}

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
static const char *thread_name(const struct llog_entry *e, const struct lopt *lo, size_t *len)
{
	if (!lo->full || e->thread_name == NULL) {
		*len = 0;
		return "";
	}
	*len = strnlen(e->thread_name, e->thread_name_len);
	return e->thread_name;
}

/* A thread name in text: escaped as a message is, and ']' as \x5d (the
 * bracket around it must end it). */
static void put_text_name(struct llog__buf *o, const char *s, size_t n)
{
	size_t i = 0;

	while (i < n) {
		const char *rb = memchr(s + i, ']', n - i);
		size_t j = rb != NULL ? (size_t)(rb - s) : n;

		put_text_escaped(o, s + i, j - i);
		if (j == n)
			break;
		put_whole(o, "\\x5d", 4);
		i = j + 1;
	}
}

/* The entry's category (NULL when the entry may not have one or is in
 * the default category). */
static const char *category(const struct llog_entry *e, const struct lopt *lo, size_t *len)
{
	if (!lo->full || e->category == NULL || e->category_len == 0)
		return NULL;
	*len = strnlen(e->category, e->category_len);
	return *len != 0 ? e->category : NULL;
}

/* A category in text: one word, so a byte that is not printable ASCII,
 * or is a space, '[' or '\\', is written \xNN (llogcat reads it back). */
static void put_text_category(struct llog__buf *o, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c > 0x20 && c < 0x7f && c != '[' && c != '\\') {
			llog__buf_putc(o, (char)c);
		} else {
			char x[4] = {'\\', 'x', hex[c >> 4], hex[c & 15]};

			put_whole(o, x, 4);
		}
	}
}

/* " [N suppressed]" into suf (32 bytes) when the entry has a count and
 * its appended fields may be read; returns its length (0: none). */
static size_t suppressed_suffix(const struct llog_entry *e, const struct lopt *lo, char *suf)
{
	struct llog__buf b = LLOG__BUF(suf, 32);

	if (!lo->full || e->suppressed == 0)
		return 0;
	llog__buf_put(&b, " [", 2);
	llog__buf_num(&b, e->suppressed, 10);
	llog__buf_put(&b, " suppressed]", 12);
	return b.n;
}

/* ---- fields (docs/fields.md 3, 4) ----------------------------------------- */

/* The entry's fields (none when the caller's entry may not have them). */
static size_t entry_fields(const struct llog_entry *e, const struct lopt *lo,
			   const struct llog_field **f, uint32_t *left_out)
{
	size_t cutv = 0, n;

	*f = NULL;
	*left_out = 0;
	if (!lo->full || (e->fields == NULL && e->fields_truncated == 0))
		return 0;
	n = e->fields != NULL ? e->nfields : 0;
	*f = e->fields;
	for (size_t i = 0; i < n; i++)
		cutv += (e->fields[i].flags & LLOG_FIELD_TRUNCATED) != 0;
	/* fields_truncated counts the cut values too (sinks.h) */
	*left_out = e->fields_truncated > cutv ? (uint32_t)(e->fields_truncated - cutv) : 0;
	return n;
}

size_t llog__line_field_f64(char *b, double d)
{
	int n = 0;

	if (isnan(d)) {
		memcpy(b, "nan", 4);
		return 3;
	}
	if (isinf(d)) {
		memcpy(b, d < 0 ? "-inf" : "inf", d < 0 ? 5 : 4);
		return d < 0 ? 4 : 3;
	}
	/* The shortest of %.15g .. %.17g that strtod reads back to d (%.17g
	 * always does). snprintf and strtod use the same LC_NUMERIC, so the
	 * check holds in any locale; the radix is then written '.'. */
	/* Shortest: a decimal of at most 15 digits reads back to the same
	 * normal double and %.15g gives it back (DBL_DIG), its zeros cut by
	 * %g; a subnormal has fewer digits of precision: searched from 1. */
	for (int p = fpclassify(d) == FP_SUBNORMAL ? 1 : 15; p <= 17; p++) {
		n = snprintf(b, LLOG__F64_MAX, "%.*g", p, d);
		if (p == 17 || strtod(b, NULL) == d)
			break;
	}
	{
		size_t k = 0, o = 0;
		int dot = 0;

		for (k = 0; k < (size_t)n; k++) {
			char c = b[k];

			if ((c >= '0' && c <= '9') || c == '-' || c == '+' || c == 'e') {
				b[o++] = c;
				dot |= c == 'e';
			} else if (!dot) { /* the radix, in whatever locale */
				b[o++] = '.';
				dot = 1;
				while (k + 1 < (size_t)n && !(b[k + 1] >= '0' && b[k + 1] <= '9'))
					k++; /* a multibyte radix */
			}
		}
		if (!dot) { /* "1" -> "1.0": a double reads back as one */
			b[o++] = '.';
			b[o++] = '0';
		}
		b[o] = '\0';
		return o;
	}
}

const char *llog__line_field_text(const struct llog_field *f, char *t, size_t *len)
{
	struct llog__buf b = LLOG__BUF(t, LLOG__F64_MAX);

	switch (f->type) {
	case LLOG_FIELD_I64:
		if (f->v.i64 < 0)
			llog__buf_putc(&b, '-');
		llog__buf_num(&b, f->v.i64 < 0 ? 0 - (uint64_t)f->v.i64 : (uint64_t)f->v.i64, 10);
		break;
	case LLOG_FIELD_U64: llog__buf_num(&b, f->v.u64, 10); break;
	case LLOG_FIELD_F64: *len = llog__line_field_f64(t, f->v.f64); return t;
	case LLOG_FIELD_BOOL: llog__buf_puts(&b, f->v.b ? "true" : "false"); break;
	case LLOG_FIELD_STR: *len = f->v.str.len; return f->v.str.ptr;
	case LLOG_FIELD_NULL:
	default: llog__buf_puts(&b, "null"); break;
	}
	*len = b.n;
	return t;
}

/* A key in text is bare when made only of these (and not empty). */
static int bare_key(const char *k, size_t n)
{
	if (n == 0)
		return 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)k[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '.' || c == '-' || c == '/' || c == ':' || c == '@'))
			return 0;
	}
	return 1;
}

/* A quoted string of the field section: '"' and '\\' escaped, \n \r \t,
 * \xNN for the other C0 bytes, 0x7f, each byte of a C1 character (c2 80
 * .. c2 9f) and every byte that is not part of valid UTF-8. */
static void put_field_text(struct llog__buf *o, const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0;

	llog__buf_putc(o, '"');
	while (i < len) {
		size_t j = i, n;
		unsigned c;

		while (j < len && s[j] >= 0x20 && s[j] < 0x7f && s[j] != '"' && s[j] != '\\')
			j++;
		llog__buf_put(o, str + i, j - i);
		if (j == len)
			break;
		c = s[j];
		n = 1;
		if (c >= 0x80) {
			n = llog__line_utf8_len(s + j, len - j);
			if (n > 0 && !is_c1(s + j, n)) {
				llog__buf_put(o, str + j, n);
				i = j + n;
				continue;
			}
			n = n > 0 ? n : 1; /* a C1 character: both bytes */
		}
		for (size_t k = 0; k < n; k++) {
			c = s[j + k];
			switch (c) {
			case '"': llog__buf_put(o, "\\\"", 2); break;
			case '\\': llog__buf_put(o, "\\\\", 2); break;
			case '\n': llog__buf_put(o, "\\n", 2); break;
			case '\r': llog__buf_put(o, "\\r", 2); break;
			case '\t': llog__buf_put(o, "\\t", 2); break;
			default: {
				char e[4] = {'\\', 'x', hexdig[c >> 4], hexdig[c & 15]};

				llog__buf_put(o, e, 4);
			}
			}
		}
		i = j + n;
	}
	llog__buf_putc(o, '"');
}

/* One field in text (key=value), or in JSON ("key":value). */
static void put_field(struct llog__buf *o, const struct llog_field *f, int json)
{
	char d[LLOG__F64_MAX];
	size_t dn;

	if (json) {
		put_json_string(o, f->key, f->key_len, "", 0);
		llog__buf_putc(o, ':');
	} else {
		if (bare_key(f->key, f->key_len))
			llog__buf_put(o, f->key, f->key_len);
		else
			put_field_text(o, f->key, f->key_len);
		llog__buf_putc(o, '=');
	}
	switch (f->type) {
	case LLOG_FIELD_I64:
		if (f->v.i64 < 0)
			llog__buf_putc(o, '-');
		/* 0 - (uint64_t)v: |INT64_MIN| too */
		llog__buf_num(o, f->v.i64 < 0 ? 0 - (uint64_t)f->v.i64 : (uint64_t)f->v.i64, 10);
		break;
	case LLOG_FIELD_U64: llog__buf_num(o, f->v.u64, 10); break;
	case LLOG_FIELD_F64:
		dn = llog__line_field_f64(d, f->v.f64);
		if (json && !isfinite(f->v.f64)) {
			llog__buf_puts(o, isnan(f->v.f64)	? "\"NaN\""
					  : f->v.f64 > 0 ? "\"Infinity\""
							 : "\"-Infinity\"");
			break;
		}
		llog__buf_put(o, d, dn);
		break;
	case LLOG_FIELD_BOOL: llog__buf_puts(o, f->v.b ? "true" : "false"); break;
	case LLOG_FIELD_STR:
		if (json) {
			put_json_string(o, f->v.str.ptr, f->v.str.len, "", 0);
		} else {
			put_field_text(o, f->v.str.ptr, f->v.str.len);
			if (f->flags & LLOG_FIELD_TRUNCATED)
				llog__buf_put(o, "...", 3);
		}
		break;
	case LLOG_FIELD_NULL:
	default: llog__buf_put(o, "null", 4); break;
	}
}

/* Room kept after the message for the field section's start and ends
 * (FIELDS_START + FIELDS_END: TAB and " +N" in text; ,"fields":{ and
 * },"fields_truncated":N in JSON), when the entry has fields. */
#define FIELDS_START 11
#define FIELDS_END 32
#define FIELDS_RESERVE (FIELDS_START + FIELDS_END)

static size_t fields_reserve(const struct llog_entry *e, const struct lopt *lo)
{
	const struct llog_field *f;
	uint32_t left;

	return entry_fields(e, lo, &f, &left) > 0 || left > 0 ? FIELDS_RESERVE : 0;
}

/*
 * The field section: in text, TAB then the fields separated by a space
 * and "+N" when fields were left out; in JSON ,"fields":{...} and
 * ,"fields_truncated":N. Each field is written whole or not at all: one
 * that does not fit the room (only in a caller's small buffer: the sinks
 * size theirs with llog__line_bound) is left out, counted in +N
 * (fields_truncated), and the line is marked cut. The caller kept
 * fields_reserve() bytes of room for the start and the ends.
 */
static void put_fields(struct llog__buf *o, const struct llog_entry *e, const struct lopt *lo,
		       int json)
{
	const struct llog_field *f;
	uint32_t left;
	size_t nf = entry_fields(e, lo, &f, &left), shown = 0, full = o->cap;
	int was = o->cut, lost = 0;
	uint64_t cutv = 0;

	if (nf == 0 && left == 0)
		return;
	if (o->cap - o->n < FIELDS_RESERVE) { /* the caller could keep none */
		o->cut = 1;
		return;
	}
	llog__buf_put(o, json ? ",\"fields\":{" : "\t", json ? 11 : 1);
	o->cap = full - FIELDS_END;
	for (size_t i = 0; i < nf; i++) {
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

#define LEVEL_TID_MAX 48 /* level_tid's bytes, at most (1 + 5 + 2 + 20) */

/*
 * " LEVEL [tid" (the level padded to 5 columns), into dst, or 0 bytes when
 * it does not fit LEVEL_TID_MAX (the caller appends it itself). The text of the
 * last (level, tid) pair is kept per thread: consecutive records of one
 * thread repeat it. Keyed by the values, not by any pointer of the entry.
 */
static size_t level_tid(char *dst, enum llog_level level, uint64_t tid)
{
	static __thread struct {
		int valid;
		enum llog_level level;
		uint64_t tid;
		size_t n;
		char text[LEVEL_TID_MAX];
	} c;

	if (!c.valid || c.level != level || c.tid != tid) {
		struct llog__buf b = LLOG__BUF(c.text, sizeof(c.text));

		c.valid = 0; /* see CACHE_OPEN */
		CACHE_OPEN();
		llog__buf_putc(&b, ' ');
		put_level(&b, level, 1);
		llog__buf_put(&b, " [", 2);
		llog__buf_num(&b, tid, 10);
		c.n = b.n;
		c.level = level;
		c.tid = tid;
		CACHE_CLOSE();
		c.valid = !b.cut;
		if (b.cut)
			return 0; /* a level name longer than the room */
	}
	memcpy(dst, c.text, c.n);
	return c.n;
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
 * unloaded and replaced at the same address. Consecutive records of one
 * site then cost two strlen and a compare instead of the escaping (about
 * 330 instructions of the flusher's 3,700 per record,
 * bench/flusher_cost.sh). The cached text is used only where it fits whole,
 * so a cut line is cut exactly as without it. Rebuilt as the caches above
 * (CACHE_OPEN).
 */
static void put_location(struct llog__buf *o, const struct llog_entry *e, const struct lopt *lo)
{
	static __thread struct {
		int valid;
		int line;
		int func;
		size_t plen, flen, n;
		char key[LOC_KEY_MAX];
		char text[LOC_MAX];
	} c;
	const char *fn = e->func != NULL ? e->func : "";
	int func = (lo->flags & LLOG_LINE_FUNC) != 0;
	size_t plen = strlen(e->file), flen = func ? strlen(fn) : 0, start = o->n, bn;
	const char *b;

	if (c.valid && c.line == e->line && c.func == func && c.plen == plen && c.flen == flen &&
	    c.n <= o->cap - o->n && memcmp(c.key, e->file, plen) == 0 &&
	    memcmp(c.key + plen, fn, flen) == 0) {
		llog__buf_put(o, c.text, c.n);
		return;
	}
	b = base_name(e->file, plen, &bn);
	put_text_escaped(o, b, bn);
	llog__buf_putc(o, ':');
	llog__buf_num(o, (uint64_t)(e->line < 0 ? 0 : e->line), 10);
	llog__buf_putc(o, ' ');
	if (func) {
		put_text_escaped(o, fn, flen);
		llog__buf_put(o, "() ", 3);
	}
	if (o->cut || o->n - start > LOC_MAX || plen + flen > LOC_KEY_MAX)
		return;
	c.valid = 0; /* see CACHE_OPEN */
	CACHE_OPEN();
	memcpy(c.key, e->file, plen);
	memcpy(c.key + plen, fn, flen);
	memcpy(c.text, o->p + start, o->n - start);
	c.n = o->n - start;
	c.plen = plen;
	c.flen = flen;
	c.line = e->line;
	c.func = func;
	CACHE_CLOSE();
	c.valid = 1;
}

static void format_text(struct llog__buf *o, const struct llog_entry *e, const struct lopt *lo,
			const char *tail, size_t tl)
{
	size_t sl, hn, n, fr, cl = 0;
	const char *cat;
	char suf[32], h[TS_MAX + LEVEL_TID_MAX];

	/* timestamp, level and thread id: one append ("INFO  db.pool [tid]":
	 * a category goes after the level, by the longer path) */
	cat = category(e, lo, &cl);
	hn = ts_text(h, e->ts_ns, lo);
	n = cat == NULL ? level_tid(h + hn, e->level, e->tid) : 0;
	llog__buf_put(o, h, hn + n);
	if (n == 0) {
		llog__buf_putc(o, ' ');
		put_level(o, e->level, 1);
		if (cat != NULL) {
			llog__buf_putc(o, ' ');
			put_text_category(o, cat, cl);
		}
		llog__buf_put(o, " [", 2);
		llog__buf_num(o, e->tid, 10);
	}
	if (lo->flags & LLOG_LINE_THREAD_NAME) {
		size_t tn;
		const char *t = thread_name(e, lo, &tn);

		if (tn > 0) {
			llog__buf_putc(o, ' ');
			put_text_name(o, t, tn);
		}
	}
	llog__buf_put(o, "] ", 2);
	/* escaped as the message (a TAB, a newline or a backslash in a file
	 * name too), so the field section's TAB is the line's only one */
	put_location(o, e, lo);
	/* A rate-limited site's count ends the line, after the message
	 * (or its cut tail): " [N suppressed]" (llog.h). */
	sl = suppressed_suffix(e, lo, suf);
	/* A backtrace entry (llog.h, "Backtrace"): marked before the
	 * message. */
	if (lo->full && e->backtrace)
		llog__buf_put(o, "[backtrace] ", 12);
	/* The field section ends the line, after the markers (fields.md 3). */
	fr = fields_reserve(e, lo);
	if (fr > 0 && o->cap - o->n < tl + sl + fr) {
		fr = 0; /* no room for the fields: the message alone, cut */
		o->cut = 1;
	}
	if (o->cap - o->n < tl + sl)
		return;
	o->cap -= tl + sl + fr;
	put_text_escaped(o, e->msg, e->msg_len);
	o->cap += tl + sl;
	if (o->cut)
		llog__buf_put(o, tail, tl);
	llog__buf_put(o, suf, sl);
	o->cap += fr;
	put_fields(o, e, lo, 0);
}

static void format_json(struct llog__buf *o, const struct llog_entry *e, const struct lopt *lo,
			const char *tail, size_t tl)
{
	size_t fr;

	llog__buf_put(o, "{\"seq\":", 7);
	llog__buf_num(o, e->seq, 10);
	llog__buf_put(o, ",\"ts\":\"", 7);
	put_ts(o, e->ts_ns, lo);
	llog__buf_put(o, "\",\"level\":\"", 11);
	put_level(o, e->level, 0);
	llog__buf_put(o, "\",\"thread\":", 11);
	llog__buf_num(o, e->tid, 10);
	if (lo->full) {
		size_t tn;
		const char *t = thread_name(e, lo, &tn);

		llog__buf_put(o, ",\"thread_name\":", 15);
		put_json_string(o, t, tn, "", 0);
	}
	{
		size_t cl;
		const char *c = category(e, lo, &cl);

		if (c != NULL) {
			llog__buf_put(o, ",\"category\":", 12);
			put_json_string(o, c, cl, "", 0);
		}
	}
	llog__buf_put(o, ",\"file\":", 8);
	put_json_string(o, e->file, strlen(e->file), "", 0);
	llog__buf_put(o, ",\"line\":", 8);
	llog__buf_num(o, (uint64_t)(e->line < 0 ? 0 : e->line), 10);
	llog__buf_put(o, ",\"func\":", 8);
	put_json_string(o, e->func != NULL ? e->func : "", e->func != NULL ? strlen(e->func) : 0,
			"", 0);
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
	fr = fields_reserve(e, lo);
	if (fr > 0 && o->cap - o->n < 1 + fr + 2 + tl) {
		fr = 0; /* no room for the fields: the message alone */
		o->cut = 1;
	}
	if (o->cap > o->n + 1) {
		o->cap -= 1 + fr;
		put_json_string(o, e->msg, e->msg_len, tail, tl);
		o->cap += fr;
		if (fr > 0)
			put_fields(o, e, lo, 1);
		o->cap++;
	}
	llog__buf_putc(o, '}');
}

/* One attempt into buf[0..cap) (cap > 0); *cut when something did not
 * fit. A cut line ends with tail. */
static size_t format_once(const struct llog_entry *e, enum llog_format format,
			  const struct lopt *lo, char *buf, size_t cap, const char *tail, size_t tl,
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
			  const struct lopt *lo, char *buf, size_t cap, int *cut)
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

static struct lopt make_lopt(const struct llog_line_options *opt, int full)
{
	struct lopt lo = {0, LLOG_TS_NS, full};

	if (opt != NULL) {
		lo.flags = opt->flags;
		lo.prec = (unsigned)opt->ts_precision;
	}
	return lo;
}

size_t llog_format_entry(const struct llog_entry *e, enum llog_format format, char *buf, size_t cap)
{
	struct lopt lo = make_lopt(NULL, 0);
	int cut;

	return format_line(e, format, &lo, buf, cap, &cut);
}

size_t llog_format_entry_opts(const struct llog_entry *e, enum llog_format format,
			      const struct llog_line_options *opt, char *buf, size_t cap)
{
	struct lopt lo = make_lopt(opt, 1);
	int cut;

	return format_line(e, format, &lo, buf, cap, &cut);
}

size_t llog__line_format(const struct llog_entry *e, enum llog_format format,
			 const struct llog_line_options *opt, char *buf, size_t cap, int *cut)
{
	struct lopt lo = make_lopt(opt, 1);

	return format_line(e, format, &lo, buf, cap, cut);
}

size_t llog__line_bound(const struct llog_entry *e, enum llog_format format)
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
	if (e->fields != NULL || e->fields_truncated != 0)
		fields = FIELDS_RESERVE;
	for (size_t i = 0; e->fields != NULL && i < e->nfields; i++) {
		const struct llog_field *f = &e->fields[i];

		fields += k * f->key_len + 8 + LLOG__F64_MAX;
		if (f->type == LLOG_FIELD_STR)
			fields += k * f->v.str.len;
	}
	return k * (e->msg_len + names) + 256 + fields;
}
