/*
 * sink.h - helpers shared by llog's own backends (internal). The sink
 * interface itself is public: include/llog/sinks.h.
 */
#ifndef LLOG_SINK_H
#define LLOG_SINK_H

#include <llog.h>
#include <llog/sinks.h>

#include "buf.h"   /* the bounded append buffer, for formatting messages */
#include "clock.h" /* llog__mono_ms, for deadlines and back-off */

#define LLOG__SINK_VERSION LLOG_SINK_VERSION
/* An internal flag of ops->flags (llog's own sinks only): the sink stores a
 * LOG record's capture (capture.h) and needs no rendered message when it
 * runs on the flusher. */
#define LLOG__SINK_F_RAW 0x80000000u

/* Writes all of buf to fd: retries EINTR and short writes, waits (poll,
 * bounded by timeout_ms in total) on EAGAIN; never raises SIGPIPE for
 * sockets. Returns bytes written or a negative errno. */
long llog__write_all(int fd, const char *buf, size_t len, int timeout_ms);

/* Statistics a backend reports (relaxed counters, any thread). */
void llog__count_sink_lost(uint64_t records);
void llog__count_repaired(void);
void llog__count_truncated(void); /* a record a sink had to cut */

/* Diagnostic line on stderr, rate-limited to one per second for the whole
 * library (the count of suppressed ones rides on the next); never through
 * the record path. printf-style; thread-safe. */
void llog__diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* llog_format_entry_opts for llog's own sinks (lo NULL: the default
 * line): a line that does not fit cap (a hard limit of the sink) is cut
 * with the marker " [truncated]" and counted once in stats.truncated.
 * Async-signal-safe while a crash is drained (LLOG_LINE_LOCAL_TIME then
 * uses the cached offset, line.c), but for an F64 field's text
 * (llog__field_f64: snprintf, as the message renderer's doubles). */
size_t llog__format_line(const struct llog_entry *e, enum llog_format format,
			 const struct llog_line_options *lo, char *buf, size_t cap);
/* An upper bound of the length of e's whole line in format, with any line
 * options (the buffer that llog__format_line never needs to cut in). */
size_t llog__line_bound(const struct llog_entry *e, enum llog_format format);

/* A field's double as text (docs/fields.md 3): the shortest of %.15g,
 * %.16g, %.17g that reads back to d, the radix always '.', with a '.' or
 * an 'e' ("1.0", "-0.0", "1e+20"), "nan", "inf", "-inf" when not finite.
 * Writes at most LLOG__F64_MAX bytes into b, NUL included; returns the
 * length. Locale-independent output; calls snprintf and strtod. */
#define LLOG__F64_MAX 40
size_t llog__field_f64(char *b, double d);

/* A field's value as the typeless outputs show it (RFC 5424, journald:
 * docs/fields.md 5): an integer in decimal, a double as llog__field_f64,
 * true/false, null written into t (LLOG__F64_MAX bytes); a string's own
 * bytes. Returns the text; its length in *len. */
const char *llog__field_text(const struct llog_field *f, char *t, size_t *len);

/* Length of the valid UTF-8 sequence at s (1-4 bytes; len >= 1), or 0 when
 * it is not one (a stray byte, overlong, a surrogate, beyond U+10FFFF). A
 * C1 control (U+0080..U+009F) is valid UTF-8: callers that escape it check
 * for it themselves. */
size_t llog__utf8_len(const unsigned char *s, size_t len);

/* ts_ns as RFC 3339 UTC with nanoseconds, "2026-12-03T08:19:42.123456789Z":
 * exactly 30 bytes into out, no NUL. The same text as in llog's lines. */
void llog__ts_rfc3339(char *out, int64_t ts_ns);

/* The message of the last failed sink constructor on this thread (the
 * public llog_*_sink_error() calls return it), and how a constructor sets
 * it. Never NULL; "" when none failed. */
const char *llog__sink_error(void);
void llog__sink_set_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* LLOG_SINK_H */
