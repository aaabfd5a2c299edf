/*
 * sink.h - the sink vtable, for llog's own backends (internal).
 *
 * DESIGN
 * A sink is a struct of function pointers that starts with a version and only
 * ever grows at the end (like sqlite3_vfs). Every callback runs on the
 * flusher thread, never concurrently with another callback of the same sink.
 * write() gets each entry at or above the sink's level; commit() ends a
 * flusher batch (the sink makes everything written so far durable in its
 * medium: one write(2) of its buffer, a zstd frame end, ...); close() flushes
 * and frees the sink. Errors are reported as negative errno values and
 * counted in the statistics by the caller; a failing sink never stops the
 * others.
 */
#ifndef LLOG_SINK_H
#define LLOG_SINK_H

#include <llog.h>
#include <llog/sinks.h>

#define LLOG__SINK_VERSION 1

struct llog_sink_ops {
	int version; /* LLOG__SINK_VERSION */
	/* Returns bytes handed to the medium (>= 0) or a negative errno. */
	long (*write)(struct llog_sink *s, const struct llog_entry *e);
	/* Returns bytes written to the medium by this commit or a negative errno. */
	long (*commit)(struct llog_sink *s);
	void (*close)(struct llog_sink *s);
};

struct llog_sink {
	const struct llog_sink_ops *ops;
	enum llog_level level;
	enum llog_format format;
};

/* Writes all of buf to fd: retries EINTR and short writes, waits (poll,
 * bounded by timeout_ms in total) on EAGAIN; never raises SIGPIPE for
 * sockets. Returns bytes written or a negative errno. */
long llog__write_all(int fd, const char *buf, size_t len, int timeout_ms);

#endif /* LLOG_SINK_H */
