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
#include "line.h"  /* the line formatter (format unit): bounds, fields, UTF-8 */
#include "thread.h" /* futexes and the start-up of a thread of a sink's own */

#define LLOG__SINK_VERSION LLOG_SINK_VERSION
/* An internal flag of ops->flags (llog's own sinks only): the sink stores a
 * LOG record's capture (capture.h) and needs no rendered message when it
 * runs on the flusher. */
#define LLOG__SINK_F_RAW 0x80000000u

/* An internal flag of ops->flags (llog's own sinks only, with
 * LLOG__SINK_F_RAW): ops is the first member of a struct
 * llog__sink_direct_ops, noted by llog__sink_direct_own (below), whose
 * write_rec the flusher calls for a LOG
 * record without fields instead of write, when the sink runs on the
 * flusher and no sink in the table needs an entry (flusher.c: the direct
 * path), and whose write_run, when it has one, it calls for a run of such
 * records (capture.h). write_rec stores what write would store for the
 * entry cr stands for (llog__capture_rec_entry) with the capture beside
 * it; it returns as write does. The crash path keeps crash_write. */
#define LLOG__SINK_F_DIRECT 0x40000000u

struct llog__capture_rec;
struct llog__capture_run;
typedef long llog__write_rec_fn(struct llog_sink *s, const struct llog__capture_rec *cr);
/* write_run (may be NULL): write_rec of each record of run in order, in
 * one call, each record going to this sink (its level and categories are
 * the flusher's to check), and llog__capture_run_took after each
 * (capture.h). Returns how many of them write_rec would have failed
 * (write_errors), 0 when all were taken. */
typedef long llog__write_run_fn(struct llog_sink *s, struct llog__capture_run *run);
struct llog__sink_direct_ops {
	struct llog_sink_ops ops; /* first: flags has LLOG__SINK_F_DIRECT */
	llog__write_rec_fn *write_rec;
	llog__write_run_fn *write_run; /* grows at the end */
};

/* Notes ops as the ops of some of llog's own sinks, which may declare the
 * internal flags (their constructor calls it before handing a sink out):
 * llog_add_sink refuses any other ops that declare a flag users have not
 * (LLOG_SINK_F_*, sinks.h), so the flusher and the sink queues trust
 * LLOG__SINK_F_RAW as they find it, and llog__sink_write_rec reads past
 * only noted ops. The table holds every kind llog has (a test's sinks
 * included). Any thread. */
void llog__sink_own(const struct llog_sink_ops *ops);
/* llog__sink_own for a direct sink's ops. */
void llog__sink_direct_own(const struct llog__sink_direct_ops *d);
/* Whether ops were noted by llog__sink_own. */
int llog__sink_is_own(const struct llog_sink_ops *ops);

/* s's write_rec, or NULL when it has none: both internal flags, and ops
 * noted by llog__sink_direct_own (never read past other ops). Flusher
 * thread, per round. */
llog__write_rec_fn *llog__sink_write_rec(const struct llog_sink *s);
/* s's write_run when it has write_rec (above) and write_run, else NULL. */
llog__write_run_fn *llog__sink_write_run(const struct llog_sink *s);

/* Writes all of buf to fd: retries EINTR and short writes, waits (poll,
 * bounded by timeout_ms in total) on EAGAIN; never raises SIGPIPE for
 * sockets. Returns bytes written or a negative errno. */
long llog__write_all(int fd, const char *buf, size_t len, int timeout_ms);

/* Whether the commit running now may leave its output to a thread of the
 * sink's own, to be written soon after it returns (the file sink's writer,
 * file_writer.c): 1 only in the commits of an ordinary round of the
 * flusher; 0 in a round with barriers (llog_flush, LOG_FATAL, a crash
 * record) and the final one, on a sink's own thread, and everywhere else,
 * where what a commit had must be written when it returns. The flusher
 * sets it around its commits (this thread's only). */
int llog__sink_commit_may_defer(void);
void llog__sink_set_commit_may_defer(int may);

/* Statistics a backend reports (stats.c; relaxed counters, any thread). */
void llog__stats_count_sink_lost(uint64_t records);
void llog__stats_count_repaired(void);
/* An entry this sink cut to a limit of its own: once per sink and entry
 * (llog_stats.sink_truncated; never truncated, the renderer's). */
void llog__stats_count_sink_truncated(void);

/* Diagnostic line on stderr, rate-limited to one per second for the whole
 * library (the count of suppressed ones rides on the next); never through
 * the record path. printf-style; thread-safe. */
void llog__diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The same without the rate limit, for a line said once per change of a
 * state whose changes the caller bounds (a file sink's writer stalled, and
 * its stall's end with what it cost: file_writer.c), which a rate limit
 * shared with every other line could otherwise drop for good. */
void llog__diag_always(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* llog__line_format (line.h) for llog's own sinks (lo NULL: the default
 * line; pat: a text line's parsed pattern, or NULL): a line that does not
 * fit cap (a hard limit of the sink) is cut
 * with the marker " [truncated]" and counted once in
 * stats.sink_truncated.
 * Async-signal-safe as llog__line_format. Returns the line's length. */
size_t llog__sink_format_line(const struct llog_entry *e, enum llog_format format,
			      const struct llog_line_options *lo, const struct llog__pattern *pat,
			      char *buf, size_t cap);

/* A sink's line pattern (opt->pattern) parsed into a new *pat (NULL when
 * it has none): 0; -EINVAL when it is malformed or the sink's lines are
 * not text (format), -ENOMEM; the reason is set for llog_sink_error,
 * named after who (the constructor). */
int llog__sink_pattern(const char *who, const struct llog_line_options *opt,
		       enum llog_format format, struct llog__pattern **pat);

/* The message of the last failed sink constructor on this thread (the
 * public llog_*_sink_error() calls return it), and how a constructor sets
 * it. Never NULL; "" when none failed. */
const char *llog__sink_error(void);
void llog__sink_set_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* LLOG_SINK_H */
