/*
 * line.h - one entry as one line of text or JSON, and the field and UTF-8
 * helpers the text outputs share (internal; line.c, where the design is,
 * with line_ts.c, line_escape.c and line_fields.c for the timestamp, the
 * escaping and the fields).
 * Part of the format unit (README.md): llog's sinks reach it through
 * llog__sink_format_line (sink.h, which counts a cut line), llogcat calls
 * it directly.
 */
#ifndef LLOG_LINE_H
#define LLOG_LINE_H

#include <stddef.h>
#include <stdint.h>

#include <llog.h>
#include <llog/sinks.h>

#include "fmt.h" /* LLOG__MARKER */

/*
 * A text line's pattern (struct llog_line_options.pattern), parsed once
 * (line_pattern.c): its literal text and directives as a list of
 * elements. A sink that has a pattern keeps one of these; it is read
 * only, by any number of threads.
 */
#define LLOG__PATTERN_MAX 256  /* bytes of a pattern */
#define LLOG__PATTERN_ELEMS 64 /* its literal runs and directives */
struct llog__pattern {
	unsigned n;
	int fields; /* %k is in it */
	struct {
		uint8_t op;
		uint16_t off, len; /* a literal run: lit[off..off+len) */
	} el[LLOG__PATTERN_ELEMS];
	char lit[LLOG__PATTERN_MAX];
};

/* Parses s into p: 0, or -1 with the reason in why (whycap bytes,
 * "unknown directive %x at byte 7", "a pattern must have %m (the
 * message)", ...). */
int llog__pattern_parse(struct llog__pattern *p, const char *s, char *why, size_t whycap);

/* llog_format_entry_opts for llog's own outputs (lo NULL: the default
 * line; pat: a text line's parsed pattern, or NULL, and lo->pattern is
 * not read): a line that does not fit cap is cut with the marker
 * " [truncated]", and *cut set (else cleared). Async-signal-safe while a
 * crash is drained (LLOG_LINE_LOCAL_TIME then uses the cached offset; an
 * F64 field's text is llog's own, f64_text.c). Returns the line's length. */
size_t llog__line_format(const struct llog_entry *e, enum llog_format format,
			 const struct llog_line_options *lo, const struct llog__pattern *pat,
			 char *buf, size_t cap, int *cut);
/* An upper bound of the length of e's whole line in format, with any line
 * options and pattern pat (or NULL) (the buffer that llog__line_format
 * never needs to cut in). */
size_t llog__line_bound(const struct llog_entry *e, enum llog_format format,
			const struct llog__pattern *pat);

/* How the line formatter knows that a crash is being reported (it must
 * then not call localtime_r: a lock, a file read). Set once by the crash
 * handler's installation (crash.c) before any crash can be reported;
 * until then no crash is (llogcat never sets it). Thread-safe. */
void llog__line_set_crash_probe(int (*in_crash)(void));

/* A field's double as text (docs/fields.md 3): the shortest of %.15g,
 * %.16g, %.17g that reads back to d, the radix always '.', with a '.' or
 * an 'e' ("1.0", "-0.0", "1e+20"), "nan", "inf", "-inf" when not finite.
 * Writes at most LLOG__F64_MAX bytes into b, NUL included; returns the
 * length. Locale-independent output; computed by llog__f64_text
 * (f64_text.h: no snprintf, no strtod; async-signal-safe). */
#define LLOG__F64_MAX 40
size_t llog__line_field_f64(char *b, double d);

/* A field's value as the typeless outputs show it (RFC 5424, journald:
 * docs/fields.md 5): an integer in decimal, a double as llog__line_field_f64,
 * true/false, null written into t (LLOG__F64_MAX bytes); a string's own
 * bytes. Returns the text; its length in *len. */
const char *llog__line_field_text(const struct llog_field *f, char *t, size_t *len);

/* Length of the valid UTF-8 sequence at s (1-4 bytes; len >= 1), or 0 when
 * it is not one (a stray byte, overlong, a surrogate, beyond U+10FFFF). A
 * C1 control (U+0080..U+009F) is valid UTF-8: callers that escape it check
 * for it themselves. */
size_t llog__line_utf8_len(const unsigned char *s, size_t len);

/* ts_ns as RFC 3339 UTC with nanoseconds, "2026-12-03T08:19:42.123456789Z":
 * exactly 30 bytes into out, no NUL. The same text as in llog's lines. */
void llog__line_ts_rfc3339(char *out, int64_t ts_ns);

#endif /* LLOG_LINE_H */
