/*
 * llog/sinks.h - where records go.
 *
 * A sink receives every record at or above its own minimum level, already
 * formatted once by the flusher, and a commit at the end of each flusher
 * batch. All sink callbacks run on the flusher thread only, one at a time.
 * A sink is created by its constructor and handed to llog_add_sink(), which
 * takes ownership.
 */
#ifndef LLOG_SINKS_H
#define LLOG_SINKS_H

#include <llog.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Output format of a sink. */
enum llog_format {
	LLOG_FORMAT_TEXT = 0, /* one line: timestamp level [tid] file:line msg */
	LLOG_FORMAT_JSON = 1  /* one JSON object per line */
};

/*
 * One record as a sink sees it. Valid only during the write call; the
 * strings are not NUL-terminated unless stated.
 */
struct llog_entry {
	uint64_t seq;          /* global sequence number, output order, from 1 */
	int64_t ts_ns;         /* wall clock, UTC, ns since 1970; never decreases */
	enum llog_level level;
	int line;
	uint64_t tid;          /* kernel thread id of the logging thread */
	const char *file;      /* NUL-terminated */
	const char *func;      /* NUL-terminated */
	const char *msg;       /* the rendered message, msg_len bytes */
	size_t msg_len;
};

/* ---- console ----------------------------------------------------------- */

enum llog_color {
	LLOG_COLOR_AUTO = 0,   /* colour when the stream is a terminal and NO_COLOR is unset */
	LLOG_COLOR_NEVER = 1,
	LLOG_COLOR_ALWAYS = 2  /* still never when NO_COLOR is set */
};

struct llog_console_options {
	int fd;                /* 0 means stderr (2); use 1 for stdout */
	enum llog_level level; /* minimum level; zero value = TRACE */
	enum llog_format format;
	enum llog_color color;
};

/*
 * Creates a console sink. opt may be NULL (stderr, colour auto, all levels).
 * The fd is not closed by the sink. Allocates. Returns NULL with errno set
 * (ENOMEM, EINVAL for a negative fd).
 */
LLOG_EXPORT struct llog_sink *llog_console_sink(const struct llog_console_options *opt);

/*
 * Closes and frees a sink that was never handed to llog_add_sink(). NULL is
 * accepted. Not for sinks that llog owns.
 */
LLOG_EXPORT void llog_sink_destroy(struct llog_sink *sink);

/*
 * Formats one entry as a line in the given format into buf (at most cap
 * bytes, always newline-terminated when cap > 0; no NUL). Control characters
 * in the message are escaped, so a record is always exactly one line.
 * Returns the number of bytes written. Thread-safe, does not allocate.
 */
LLOG_EXPORT size_t llog_format_entry(const struct llog_entry *e, enum llog_format format,
				     char *buf, size_t cap);

#ifdef __cplusplus
}
#endif

#endif /* LLOG_SINKS_H */
