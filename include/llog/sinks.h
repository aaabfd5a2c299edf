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

/* ---- the sink interface ------------------------------------------------- */

/*
 * A sink is a struct llog_sink whose ops table starts with a version and only
 * ever grows at the end (like sqlite3_vfs); llog calls only the members that
 * exist in the version a sink declares. Every callback runs on the flusher
 * thread, never concurrently with another callback of the same sink, and
 * must not call LOG (such records are dropped and counted) or llog_flush /
 * llog_shutdown (they return at once there).
 *   write   gets each entry at or above the sink's level. Returns the bytes
 *           it accepted (>= 0) or a negative errno (counted in write_errors).
 *   commit  ends a flusher batch: the sink makes everything written so far
 *           reach its medium (one write(2) of its buffer, a zstd frame end).
 *           Returns the bytes written to the medium or a negative errno.
 *   close   flushes and frees the sink (at llog_shutdown, or when
 *           llog_add_sink fails).
 * A failing sink never stops the others. To write a sink, embed struct
 * llog_sink first in your own struct and hand it to llog_add_sink().
 */
#define LLOG_SINK_VERSION 1

struct llog_sink;

struct llog_sink_ops {
	int version; /* LLOG_SINK_VERSION */
	long (*write)(struct llog_sink *s, const struct llog_entry *e);
	long (*commit)(struct llog_sink *s);
	void (*close)(struct llog_sink *s);
};

struct llog_sink {
	const struct llog_sink_ops *ops;
	enum llog_level level;   /* minimum level this sink receives */
	enum llog_format format; /* what llog_format_entry should produce */
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

/* ---- file ------------------------------------------------------------- */

enum llog_file_compression {
	LLOG_FILE_ZSTD = 0,  /* zstd frames (the default): `zstdcat FILE` reads it */
	LLOG_FILE_PLAIN = 1  /* plain text (or JSON) lines, no frames, no metadata */
};

enum llog_file_fsync {
	LLOG_FSYNC_NEVER = 0,  /* leave it to the kernel (the default) */
	LLOG_FSYNC_COMMIT = 1  /* fsync(2) after every commit that wrote */
};

/*
 * Options of llog_file_sink(). A zero-initialised struct with only path set
 * gives a zstd (level 3) sink of every level in text format, no rotation.
 */
struct llog_file_options {
	const char *path;      /* the file; copied. The newest file is always here */
	enum llog_level level; /* minimum level; zero value = TRACE */
	enum llog_format format;
	enum llog_file_compression compression;
	int zstd_level;        /* 0 = 3 (zstd's default); negative fast levels allowed */
	/* Rotate before a frame would take the file past this many bytes;
	 * 0 = no size rotation. A single frame larger than this still goes
	 * into a file of its own. */
	uint64_t max_bytes;
	/* Rotate when the UTC wall clock enters a new period of this many
	 * seconds (86400: at midnight UTC); 0 = no time rotation. */
	unsigned rotate_interval_s;
	/* Rotated files kept (the current file not counted); older ones are
	 * deleted at rotation. 0 = keep all. */
	unsigned max_files;
	enum llog_file_fsync fsync;
};

/*
 * Creates a file sink: each commit (end of a flusher batch) appends one
 * complete zstd frame (content checksum on) with one write(2), so the file
 * is decodable up to the last committed record, and processes appending to
 * the same file never interleave inside a frame. A new file starts with a
 * zstd skippable frame of metadata (host, pid, program, creation time,
 * first sequence number) that zstd tools ignore.
 *
 * The file is opened now (O_APPEND|O_CREAT|O_NOFOLLOW|O_CLOEXEC, mode 0640
 * before umask) and must be a regular file: a symbolic link at path is
 * refused with ELOOP, a FIFO or a directory with EINVAL/EISDIR. An existing
 * compressed file whose last frame is torn (an earlier crash) is cut back
 * to its last complete frame, counted in llog_stats.repaired and reported
 * once on stderr.
 *
 * Rotation renames path to a name with the UTC rotation time inserted
 * before a ".zst" suffix (or appended when there is none):
 *   app.log.zst -> app.log.20250101T120000.123456789Z.zst
 * so rotated names sort by age and the newest records are always at path.
 * Rotation happens only between frames; no record is lost or duplicated.
 * Rotation is not coordinated between processes sharing one path.
 *
 * Write errors (ENOSPC, EIO, EFBIG) never block: a short write is cut back
 * off the file, the unwritten records (up to 8 MiB of lines) are retried at
 * the next commit, and beyond that the oldest are dropped and counted in
 * llog_stats.sink_lost; each failing commit counts in write_errors.
 *
 * Ownership: opt and path remain the caller's. Hand the result to
 * llog_add_sink(). Thread-safe; allocates (about 4 MiB for the compressor
 * buffers) and makes system calls. Returns NULL with errno set and a
 * message (the path and strerror) for llog_file_sink_error().
 */
LLOG_EXPORT struct llog_sink *llog_file_sink(const struct llog_file_options *opt);

/*
 * Describes why the last llog_file_sink() call on this thread failed
 * ("" when it succeeded or none was made). Never NULL; the text lives in
 * thread-local storage until the next llog_file_sink() call on the thread.
 */
LLOG_EXPORT const char *llog_file_sink_error(void);

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
