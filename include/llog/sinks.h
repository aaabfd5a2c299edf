/*
 * llog/sinks.h - where records go.
 *
 * A sink receives every record at or above its own minimum level, already
 * formatted once by the flusher, and a commit at the end of each flusher
 * batch. A sink's callbacks run one at a time, either on the flusher
 * thread (the file, console and callback sinks by default; the crash
 * entry points too, from the crash handler on that thread) or on a thread
 * of the sink's own behind a bounded queue (the syslog sink by default,
 * any sink on request: llog_add_sink_opts), so that a sink that blocks
 * stalls neither the application nor the other sinks.
 * A sink is created by its constructor and handed to llog_add_sink(), which
 * takes ownership.
 *
 * The guarantee per sink, in short:
 *   file, console   on the flusher: every record, or the application waits
 *                   (a slow disk or terminal is back-pressure); losses only
 *                   on write errors, counted and said. A console on a pipe
 *                   or socket (a supervisor's or journald's stream) is on
 *                   its own thread instead, as syslog below: a reader that
 *                   stops costs only its records.
 *   callback        on the flusher unless added with LLOG_SINK_THREAD_OWN:
 *                   a slow callback is back-pressure; on its own thread it
 *                   gets a queue with drops counted and announced.
 *   syslog,         on its own thread: a collector (or journald) that stops
 *   journald        reading costs only this sink's records, dropped from
 *                   its queue (or its buffer) with exact counts in
 *                   llog_get_sink_stats and llog_stats and a notice in its
 *                   own stream.
 *
 * docs/NAME.md below: the source tree's docs/, installed as
 * PREFIX/share/doc/llog/NAME.md (see llog.h).
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
	LLOG_FORMAT_TEXT = 0, /* one line: timestamp level [tid] file:line msg
			       * (struct llog_line_options adds fields) */
	/* one JSON object per line: seq, ts, level, thread, thread_name,
	 * category, file (the base name), line, func, suppressed, backtrace,
	 * msg, fields, fields_truncated, in this order (docs/fields.md 4:
	 * each member, and which are left out when they do not apply); the
	 * same layout as `llogcat --json` of a text or binary file */
	LLOG_FORMAT_JSON = 1
};

/*
 * One record as a sink sees it. Valid only during the write call; the
 * strings are not NUL-terminated unless stated. Fields are only ever
 * appended to it: a sink compiled against an older header reads none of
 * the newer ones.
 */
struct llog_entry {
	uint64_t seq;          /* global sequence number, output order, from 1 */
	int64_t ts_ns;         /* wall clock, UTC, ns since 1970; never decreases
				  (but in backtrace entries, below) */
	enum llog_level level;
	int line;
	uint64_t tid;          /* kernel thread id of the logging thread */
	const char *file;      /* NUL-terminated */
	const char *func;      /* NUL-terminated */
	const char *msg;       /* the rendered message, msg_len bytes */
	size_t msg_len;
	/* The logging thread's name (pthread_setname_np, prctl(PR_SET_NAME)
	 * or llog_set_thread_name, at most 15 bytes), NUL-terminated, "" when
	 * it has none; as it was when the record was logged (see
	 * llog_set_thread_name). An entry built by a caller for
	 * llog_format_entry_opts may leave it NULL (read as ""). */
	const char *thread_name;
	size_t thread_name_len; /* strlen(thread_name) (0 when NULL) */
	/* Calls of this record's rate-limited call site (LOG_EVERY_N and
	 * friends, llog.h) suppressed since the site's previous record, 0 for
	 * every other record. A site's last count, not followed by a record,
	 * comes at llog_shutdown() in an entry of its own (file, line,
	 * function and level of the site; message "llog: records suppressed
	 * by the rate limit since the last record"). An entry built by a
	 * caller for llog_format_entry_opts must set it (0: nothing shown). */
	uint64_t suppressed;
	/* The record's category (llog.h, "Categories and levels"),
	 * category_len bytes, NUL-terminated; NULL (0) for the default
	 * category, and in an entry built by a caller that does not set it
	 * (zero it). */
	const char *category;
	size_t category_len;
	/* 1 for an entry of the backtrace (llog.h, "Backtrace"): a record
	 * below the output level, kept and written just before a record at
	 * the trigger level, with its own (earlier) ts_ns; text lines show
	 * "[backtrace] " before the message, JSON the member
	 * "backtrace":true. 0 for every other entry. An entry built by a
	 * caller for llog_format_entry_opts must set it. */
	int backtrace;
	/* The record's fields (docs/fields.md): first the logging thread's
	 * context as it was at the call (in the order the keys were first
	 * set), then the call's own fields in call order; a context field
	 * whose key the call also has is left out (the call's value wins).
	 * NULL and 0 when there are none, and in an entry built by a caller
	 * that does not set them (zero them). */
	const struct llog_field *fields;
	size_t nfields;
	/* Fields that did not fit the limits and were left out, plus string
	 * values cut (each also flagged LLOG_FIELD_TRUNCATED); 0 normally.
	 * Every output shows a marker when it is not 0. */
	uint32_t fields_truncated;
};

/* ---- line options ---------------------------------------------------------- */

/* Digits of the fraction of a second in a timestamp. */
enum llog_ts_precision {
	LLOG_TS_NS = 0, /* .123456789 (the default) */
	LLOG_TS_US = 1, /* .123456 */
	LLOG_TS_MS = 2, /* .123 */
	LLOG_TS_S = 3   /* none */
};

/* Flags of struct llog_line_options. */
/* Text: the function after the line, "file.c:42 main() msg". (JSON always
 * has "func".) */
#define LLOG_LINE_FUNC 0x1u
/* Text: the thread's name after its id, "[1234 worker]" ("[1234]" when the
 * thread has none); control characters and ']' escaped (\xNN). (JSON
 * always has "thread_name".) */
#define LLOG_LINE_THREAD_NAME 0x2u
/* Text and JSON: local time with its UTC offset
 * ("2026-12-05T09:10:11.123456+01:00", localtime_r and the TZ of the
 * process) instead of UTC ("...Z"). While a crash is being drained
 * (docs/crash-handling.md) localtime_r is not called: the offset last
 * computed on that thread is used, or UTC when there is none. */
#define LLOG_LINE_LOCAL_TIME 0x4u

/*
 * How a console or file sink (or llog_format_entry_opts) writes a line.
 * The zero value is the default line: UTC, nanoseconds, no function, no
 * thread name.
 */
struct llog_line_options {
	unsigned flags; /* LLOG_LINE_* */
	enum llog_ts_precision ts_precision;
	/*
	 * A text line laid out by a pattern (NULL: the default line),
	 * parsed once when the sink is made (a malformed one: the
	 * constructor fails with EINVAL and llog_sink_error() says why):
	 *     "%D %H.%f %l %c [%i %n] %s:%# %F: %m"
	 * gives "2026-12-05 09:10:11.123 INFO  db [4242 worker] a.c:42 run: msg".
	 * Directives:
	 *   %T  the timestamp as the options make it (the default line's)
	 *   %D  the date, YYYY-MM-DD     %H  the time, hh:mm:ss
	 *   %f  the fraction's digits (ts_precision: 9, 6, 3 or none)
	 *   %z  "Z", or the offset "+hh:mm" with LLOG_LINE_LOCAL_TIME
	 *   %l  the level, padded to 5 columns    %L  the level, not padded
	 *   %c  the category ("" for the default)
	 *   %i  the thread id    %n  the thread name ("" when none)
	 *   %s  the file's base name    %S  the file as compiled
	 *   %#  the line number    %F  the function
	 *   %m  the message, with its markers ("[backtrace] " before it,
	 *       " [N suppressed]" and a cut message's " [truncated]" after
	 *       it); exactly once
	 *   %k  the field section ("TAB key=value ..."), at most once: where
	 *       it is not, the fields end the line, as in the default line
	 *   %%  a '%'
	 * Other bytes are copied; they must be printable UTF-8 (no TAB or
	 * other control character: a record stays one line). At most 256
	 * bytes. The names and the message are escaped as in the default
	 * line. flags' LLOG_LINE_FUNC and LLOG_LINE_THREAD_NAME are not read
	 * (the pattern says what is shown); the timestamp's precision and zone
	 * are. For text lines of the console and of a plain file (a
	 * compressed file keeps the line llogcat reads: refused there; JSON:
	 * refused), and in the syslog sink the MSG part (llog_syslog_options).
	 * A pattern's line is not coloured. llog_format_entry_opts parses it
	 * at each call (a malformed one: the default line).
	 */
	const char *pattern;
};

/* ---- the sink interface ------------------------------------------------- */

/*
 * A sink is a struct llog_sink whose ops table starts with a version and only
 * ever grows at the end (like sqlite3_vfs); llog calls only the members that
 * exist in the version a sink declares. Every callback runs on the flusher
 * thread or on the sink's own thread (version 3, llog_add_sink_opts), never
 * concurrently with another callback of the same sink, and must not call
 * LOG (such records are dropped and counted) or llog_flush /
 * llog_shutdown (they return at once there) or llog_remove_sink (it
 * returns -EDEADLK there); nor llog_add_sink or llog_get_sink_stats where
 * another thread may be in llog_remove_sink at the time (that call holds
 * llog's control lock while it waits for the flusher, and these wait for
 * the lock: the process would hang).
 *   write   gets each entry at or above the sink's level. Returns the bytes
 *           it accepted (>= 0) or a negative errno (counted in write_errors).
 *   commit  ends a flusher batch: the sink makes everything written so far
 *           reach its medium (one write(2) of its buffer, a zstd frame end).
 *           Returns the bytes written to the medium or a negative errno.
 *   close   flushes and frees the sink (at llog_shutdown, at
 *           llog_remove_sink, or when llog_add_sink fails).
 * Version 2 adds (each may be NULL):
 *   after_fork  called in the child of a fork() of a process where llog
 *           runs, on the thread that forked, before fork() returns (no
 *           other thread exists; llog is between two flusher rounds). The
 *           sink's buffers hold the parent's pending records and its
 *           descriptors are shared with the parent: discard the records
 *           (the parent writes them), give up connections without
 *           shutdown(2) (close the child's descriptor only) so the child
 *           reconnects, and refresh anything that names the process. The
 *           child's first LOG then starts a flusher that uses the sink. A
 *           sink without after_fork is not used in the child (forgotten,
 *           not closed: its state is the parent's).
 * Version 3 adds flags (LLOG_SINK_F_*): what llog_add_sink() should choose
 * for the sink. A sink of an older version runs on the flusher unless added
 * with LLOG_SINK_THREAD_OWN.
 * A failing sink never stops the others. To write a sink, embed struct
 * llog_sink first in your own struct and hand it to llog_add_sink().
 *
 * Version 2 also adds the crash entry points, both optional
 * (NULL: the sink is skipped by the crash drain). llog reads them only from
 * sinks that declare version >= 2; version-1 sinks keep working and are
 * skipped there. They are called only when the flusher thread itself
 * crashes (a fault in a sink, a callback or llog's own flusher code), from
 * the crash handler on that thread, after the sink's normal state may have
 * been left inconsistent. So they must be async-signal-safe: no malloc, no
 * lock, no stdio, only write(2)-like system calls, on memory allocated when
 * the sink was created; they must not call back into llog and should not
 * block (a watchdog ends the process when the report's budget is over:
 * llog_config.crash_timeout_ms, 5 s by default). A fault in one
 * of them (SIGSEGV, SIGBUS, SIGILL, SIGFPE, or abort()) ends that sink's
 * part of the drain only: it gets no further call, a line on stderr names
 * it (by the order sinks were added, from 0), and the other sinks go on.
 *   crash_write  gets, in output order, each entry at or above the sink's
 *                level that the sink had not yet received when the flusher
 *                crashed (the rest of the batch in progress, everything
 *                still queued, then the FATAL crash record, last). Returns
 *                the bytes accepted or a negative errno.
 *   crash_commit ends the drain, called once after the last crash_write:
 *                everything the sink accepted must reach its medium now.
 *                Returns the bytes written or a negative errno.
 * interrupted (the same in every call of one drain) is nonzero when the
 * crash happened inside one of this sink's own callbacks: its normal
 * buffers may be mid-update and must not be touched (what it had accepted
 * through write() and not yet committed is lost). When it is zero, the
 * sink's state is consistent, and before the first entry it takes through
 * crash_write (or in crash_commit when there is none) the sink writes out
 * what it had accepted through write() and not yet committed, so that its
 * medium receives every record once and in order.
 */
#define LLOG_SINK_VERSION 3

struct llog_sink;

struct llog_sink_ops {
	int version; /* LLOG_SINK_VERSION */
	long (*write)(struct llog_sink *s, const struct llog_entry *e);
	long (*commit)(struct llog_sink *s);
	void (*close)(struct llog_sink *s);
	/* version 2 */
	void (*after_fork)(struct llog_sink *s);
	long (*crash_write)(struct llog_sink *s, const struct llog_entry *e, int interrupted);
	long (*crash_commit)(struct llog_sink *s, int interrupted);
	/* version 3 */
	unsigned flags; /* LLOG_SINK_F_* */
};

/*
 * Version-3 flags of a sink's ops.
 *   LLOG_SINK_F_MAY_BLOCK  the sink's I/O may wait on something outside the
 *                          process (a network peer): llog_add_sink() gives it
 *                          a thread of its own (see llog_add_sink_opts).
 * Every other bit is llog's own: llog_add_sink() refuses ops that set one
 * (EINVAL, llog_sink_error() names the bits; the sink is closed).
 */
#define LLOG_SINK_F_MAY_BLOCK 1u

struct llog_sink {
	const struct llog_sink_ops *ops;
	enum llog_level level;   /* minimum level this sink receives */
	enum llog_format format; /* what llog_format_entry should produce */
};

/* ---- where a sink runs ---------------------------------------------------- */

enum llog_sink_thread {
	/* The sink's own choice: a thread of its own when its ops declare
	 * LLOG_SINK_F_MAY_BLOCK (the syslog sink), else the flusher thread
	 * (the file, console and callback sinks). */
	LLOG_SINK_THREAD_AUTO = 0,
	LLOG_SINK_THREAD_OWN = 1,     /* a thread of its own, behind a queue */
	LLOG_SINK_THREAD_FLUSHER = 2  /* called by the flusher in its rounds */
};

/* What a sink's full queue does to the next entry. */
enum llog_queue_full {
	/* Drop the entry (the newest), count it (llog_get_sink_stats,
	 * llog_stats.queue_dropped), and go on dropping until the sink's
	 * thread has emptied the queue to half its bound (one gap and one
	 * notice per episode of overload; the sink's throughput is the same
	 * since its thread always has work meanwhile); the next entry is
	 * preceded, in this sink's output only, by a WARN notice "llog: N
	 * records dropped: sink NAME's queue was full" carrying the sequence
	 * number and time of the last one dropped. The default. */
	LLOG_QUEUE_DROP = 0,
	/* The flusher waits for room: every sink, then the application
	 * (through the arenas and the configuration's overflow policy), goes
	 * at this sink's pace, as if it ran on the flusher. */
	LLOG_QUEUE_BLOCK = 1
};

/*
 * Options of llog_add_sink_opts(). A zero-initialised struct gives what
 * llog_add_sink() does.
 */
struct llog_sink_options {
	enum llog_sink_thread thread;
	/* Bound of the queue (entries as rendered, with their file and
	 * function names, plus 64 bytes each); 0 = 4 MiB. Rounded up to a
	 * power of two of at least 64 KiB and 4 times the largest record
	 * (llog_config.max_record_bytes as in force when the sink's thread
	 * starts: a sink added before llog_init gets the bound llog_init
	 * sets). */
	size_t queue_bytes;
	enum llog_queue_full full;
	/* How long llog_flush() and llog_shutdown() wait for this sink to
	 * commit what was queued before them (and at most how long shutdown
	 * waits for its thread to return from the sink after that);
	 * 0 = 5000 ms. */
	unsigned drain_timeout_ms;
	/* Shown in the drop notice and in diagnostics; copied, at most 31
	 * bytes are kept. NULL: "sink N" (N from 1, in the order of adding). */
	const char *name;
	/* Which categories this sink receives (llog.h, "Categories and
	 * levels"), parsed when the sink is added: a comma-separated list of
	 * up to 8 names, each selecting that category and its children ("db"
	 * selects "db" and "db.pool", not "dbx"), or, written "!name",
	 * leaving them out; "(default)" names the default category (records
	 * of none, among them llog's notices of dropped records and its crash
	 * record). The longest name that matches a record's category decides;
	 * a record no name matches is received only when the list has no
	 * selecting name (only "!name"s). FATAL records go to every sink,
	 * whatever its selection. NULL or "": every category. So "db" sends
	 * db and its children to one sink, "!db" everything else to another.
	 * A malformed list: llog_add_sink_opts() returns -EINVAL
	 * (llog_sink_error() says why). */
	const char *categories;
};

/*
 * Adds a sink like llog_add_sink(), choosing where it runs.
 *
 * A sink on a thread of its own gets every entry through a bounded queue
 * that the flusher fills (one copy of the rendered entry); its thread calls
 * the sink's write and commit, in order, one at a time, never concurrently
 * with each other, and blocks every signal but the crash signals. So a sink
 * that blocks (a collector that stopped reading, a hung file system, a slow
 * callback) delays only its own queue: the flusher's rounds, the other
 * sinks and the application go on. What this sink then receives:
 *   - every entry at or above its level, in output order, except those
 *     dropped under LLOG_QUEUE_DROP, each gap announced by a notice;
 *   - a commit after each flusher round's entries (rounds that found the
 *     queue busy may be merged into one commit); a commit that fails is
 *     called again by the sink's thread after 50 ms, doubling to 1 s,
 *     until one succeeds, with no new entry needed (a repeated failure is
 *     not counted again in write_errors);
 *   - llog_flush() returns once this sink committed what was logged
 *     before the call, or after drain_timeout_ms (counted in
 *     late_flushes, and said on stderr);
 *   - llog_shutdown() waits up to drain_timeout_ms for the queue to be
 *     written and committed; entries still queued then are counted in
 *     undelivered (and in llog_stats.sink_lost) and said on stderr; the
 *     sink is closed after its thread returned from its last call. A
 *     thread stuck in the sink for another drain_timeout_ms is left
 *     running and its sink is never closed (leaked): shutdown does not
 *     hang; the entry in its hands counts as undelivered, as those behind
 *     it; the sink's counters stay readable after shutdown
 *     (llog_get_sink_stats);
 *   - a LOG from the sink's callbacks is dropped and counted, as on the
 *     flusher; llog_flush and llog_shutdown return at once there;
 *   - fork(): the parent waits until the sink's thread is between two
 *     calls; in the child the queue starts empty (its entries are the
 *     parent's) and a new thread starts with the child's flusher;
 *   - when the flusher thread crashes, the sink's crash entry points are
 *     not used: the drain queues the remaining entries and the crash
 *     record for the sink's thread and waits for its commit (1/5 of
 *     llog_config.crash_timeout_ms at most: 1 s by default); when the sink's own thread crashes, the process
 *     is reported and ends like any thread's crash, and flushes stop
 *     waiting for this sink.
 * Memory: the queue is allocated here (its pages are backed as they are
 * used), again larger when its thread starts if llog_init's
 * max_record_bytes needs it, and a thread is created when llog runs.
 *
 * opt may be NULL (as llog_add_sink). Ownership, thread-safety and return
 * values as llog_add_sink(), and -EINVAL for a bad option (the sink is
 * closed then too).
 */
LLOG_EXPORT int llog_add_sink_opts(struct llog_sink *sink, const struct llog_sink_options *opt);

/*
 * Counters of one sink on a thread of its own (all zero for a sink that
 * runs on the flusher: its losses are in llog_stats.sink_lost and
 * write_errors). They count entries: what the flusher hands every sink
 * at or above its level (records, backtrace entries, llog's notices of a
 * thread's drops and of rate-limited calls, the crash record). The drop
 * notices of this sink's own queue are not entries: they are counted
 * apart, in notices and announced, and in none of the four first.
 *
 * Identities, exact once llog_shutdown() returned (while llog runs, the
 * entries in the queue or in the sink's hands are in queued alone):
 *   entries offered == queued + dropped
 *   queued == delivered + undelivered
 *   announced == the sum of N over the notices "N records dropped" the
 *                sink's write received (notices of them)
 *   dropped == announced + (drops whose notice the sink never received:
 *              still pending, or undelivered, at shutdown)
 * so every entry offered is exactly one of delivered, dropped or
 * undelivered, the one inside a sink call that shutdown gave up on
 * included. undelivered is also in llog_stats.sink_lost, dropped in
 * llog_stats.queue_dropped.
 */
struct llog_sink_stats {
	/* Entries put in its queue. */
	uint64_t queued;
	/* Entries whose call of the sink's write returned (a failing write
	 * too: it also counts in llog_stats.write_errors). */
	uint64_t delivered;
	/* Entries not put: the queue was full (LLOG_QUEUE_DROP, or no room
	 * in a crash drain), or, in a crash drain, its thread was gone. In a
	 * fork child the counters start from 0 (the parent's entries are the
	 * parent's). */
	uint64_t dropped;
	/* Entries queued that the sink never got back from: left queued at
	 * shutdown (its drain timed out), or inside a write that had not
	 * returned when shutdown gave up on the sink's thread (counted here
	 * then, never later in delivered, even if that write returns). */
	uint64_t undelivered;
	/* Flushes that stopped waiting for this sink at its drain timeout. */
	uint64_t late_flushes;
	uint64_t queue_bytes;  /* bytes queued now */
	uint64_t queue_peak;   /* most bytes ever queued at once */
	uint64_t queue_cap;    /* the queue's bound in bytes */
	/* This queue's drop notices whose call of the sink's write
	 * returned. */
	uint64_t notices;
	/* Entries dropped that those notices reported: the sum of their N. */
	uint64_t announced;
};

/*
 * Fills *out for `sink`: a sink llog owns (added with llog_add_sink* and
 * not yet closed), or one that llog_remove_sink() removed or the last
 * llog_shutdown() closed or left behind (its thread stuck inside it): then
 * the final counters, as they were when llog was done with it (they no
 * longer change: a stuck write that returns later is not counted again).
 * Those stay readable until the next llog_init(), or until a sink at the
 * same address is added (of the sinks removed, the 16 most recent at
 * least); the pointer is only compared, never dereferenced, so it may be
 * one that was freed. Thread-safe; takes llog's control lock (not from a
 * sink callback or a signal handler; it waits while llog_shutdown runs).
 * No allocation. Returns 0, -EINVAL for NULL, or -ENOENT for a sink llog
 * does not own and did not close at the last shutdown.
 */
LLOG_EXPORT int llog_get_sink_stats(const struct llog_sink *sink, struct llog_sink_stats *out);

/*
 * Removes a sink added with llog_add_sink() or llog_add_sink_opts(), while
 * llog runs or before llog_init(), and closes it.
 *
 * Accounting, exactly as at llog_shutdown() for this one sink: every
 * record logged before the call (a LOG that returned before it, on any
 * thread) is handed to the sink and committed; none logged after it
 * reaches it. A sink on a thread of its own gets up to its
 * drain_timeout_ms to write and commit its queue; what is left then is
 * counted in undelivered (and in llog_stats.sink_lost) and said on
 * stderr; a thread stuck inside the sink is waited for another
 * drain_timeout_ms, then left running with its sink never closed (leaked),
 * the entry in its hands counted undelivered. The sink's final counters
 * stay readable with llog_get_sink_stats() (queued == delivered +
 * undelivered). The other sinks go on meanwhile; the flusher's round that
 * removes the sink waits for its drain (records logged meanwhile wait in
 * their arenas, as behind a slow sink on the flusher).
 *
 * The last sink of a running llog is not removed (-EBUSY): records would
 * then reach no sink. Add its replacement first (the stderr fallback that
 * llog_init() makes when no sink was added is not a sink one can remove:
 * -ENOENT). Before llog_init() the pending sinks may all be removed; then
 * llog_init() makes the fallback as usual.
 *
 * Ownership: the sink is closed (freed) when this returns 0; the pointer
 * must not be used again (but for llog_get_sink_stats, which only
 * compares it). A slot is freed: llog_add_sink() may add another.
 * fork(): the call holds llog's control lock, which fork() takes; a child
 * has the sinks its parent had at fork(), the sink removed or not.
 * Thread-safe; blocks until the flusher removed the sink (a barrier, as
 * llog_flush()) and while llog_init/llog_shutdown/llog_add_sink run;
 * allocates one small record. Not from a sink's callback, a sink's thread
 * or a signal handler.
 *
 * Returns 0; -EINVAL for NULL; -ENOENT for a sink that llog does not own
 * (never added, already removed, closed by llog_shutdown, the fallback);
 * -EBUSY for the last sink while llog runs; -EDEADLK from a sink's callback
 * or thread (or a close callback during llog_shutdown), where it would
 * wait for itself; -ENOMEM; -ECANCELED when the flusher's crash drain
 * closed llog (the process is ending).
 */
LLOG_EXPORT int llog_remove_sink(struct llog_sink *sink);

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
	struct llog_line_options line; /* zero: the default line */
};

/*
 * Creates a console sink. opt may be NULL (stderr, colour auto, all levels).
 * Where it runs (llog_add_sink, LLOG_SINK_THREAD_AUTO) depends on what the
 * descriptor is when the sink is made (fstat):
 *   - a pipe or a socket (stderr to a supervisor, a journald stream, a
 *     `| tee`): its reader may stop reading, so the sink declares
 *     LLOG_SINK_F_MAY_BLOCK and gets a thread and a queue of its own with
 *     LLOG_QUEUE_DROP: the application's calls and the other sinks never
 *     wait for the reader; records dropped meanwhile are counted
 *     (llog_get_sink_stats, llog_stats.queue_dropped) and announced by a
 *     notice in this sink's output. llog's stderr fallback (no sink
 *     added) does the same, named "console" (drain_timeout_ms 1000).
 *     For that fallback, llog_flush() waits at most 1 s for a reader that
 *     stopped, and its replacement by the first sink added at most 2 s,
 *     once (its queue drained, then its thread stopped). When the
 *     flusher crashes, such a console gets the drained records and the
 *     crash record through its queue (llog_add_sink_opts): written by its
 *     thread if the reader reads, not by the crash entry points below;
 *   - anything else (a terminal, a regular file, /dev/null): on the
 *     flusher, every record written, a slow terminal is back-pressure.
 * llog_add_sink_opts chooses otherwise (LLOG_SINK_THREAD_FLUSHER keeps a
 * pipe's console on the flusher: nothing dropped, and a stopped reader
 * then stops the application).
 * When the flusher thread crashes, its crash entry points write the lines
 * it still held (unless the crash happened inside this sink), then the
 * drained records, without colour, with write(2).
 * The fd is not closed by the sink. Allocates. Returns NULL with errno set
 * (ENOMEM, EINVAL for a negative fd).
 */
LLOG_EXPORT struct llog_sink *llog_console_sink(const struct llog_console_options *opt);

/* ---- file ------------------------------------------------------------- */

enum llog_file_compression {
	LLOG_FILE_ZSTD = 0,  /* zstd frames (the default): `zstdcat FILE` reads it */
	LLOG_FILE_PLAIN = 1, /* plain text (or JSON) lines, no frames, no metadata */
	/* zstd frames of binary records: each record's call site, time,
	 * thread, sequence number and its arguments as captured (the message
	 * is not formatted at run time); every call site is written once per
	 * file before its first use, so each file (rotated or not) reads
	 * alone. `llogcat FILE` renders it exactly as the text file would
	 * read (`llogcat --json FILE` as JSON); zstdcat does not. format and
	 * line are ignored (llogcat chooses when it reads); see
	 * docs/file-format.md. On a thread of its own (LLOG_SINK_THREAD_OWN)
	 * the file holds the same records: the sink's queue carries each
	 * record's arguments and format, and their encoding and compression
	 * run on that thread instead of the flusher (bench/README.md, "The
	 * file sink on a thread of its own", measures both); as any sink's
	 * queue, it cuts file and function names at 4,000 bytes and a
	 * category at 255.
	 * Memory: as LLOG_FILE_ZSTD, plus its call-site table (65,536 sites:
	 * about 51 MiB of address space, backed only as sites are used). */
	LLOG_FILE_BINARY = 2
};

enum llog_file_fsync {
	LLOG_FSYNC_NEVER = 0,  /* leave it to the kernel (the default) */
	LLOG_FSYNC_COMMIT = 1  /* fsync(2) after every commit that wrote */
};

/* Which thread compresses and writes the frames of the flusher's ordinary
 * rounds (llog_flush(), LOG_FATAL, exit and a crash always find them
 * written when they return, either way, unless the writer thread is
 * stalled: llog_file_options.stall_timeout_ms). */
enum llog_file_writer {
	/* A thread of the sink's own ("llog-file", started at the first
	 * commit that has frames for it; it runs on the flusher's CPUs):
	 * the flusher goes on with the next round meanwhile, so a busy
	 * service's records reach the file about twice as fast (the
	 * default). Every file write goes through it, so that a write(2)
	 * that does not return never holds the flusher longer than
	 * llog_file_options.stall_timeout_ms; with fsync every commit waits
	 * for it, and it calls fsync(2). On a thread of its own
	 * (LLOG_SINK_THREAD_OWN) the sink never starts one: that thread
	 * writes. */
	LLOG_FILE_WRITER_THREAD = 0,
	/* The flusher itself, one thread fewer. */
	LLOG_FILE_WRITER_FLUSHER = 1
};

/*
 * Options of llog_file_sink(). A zero-initialised struct with only path set
 * gives a zstd (level 1) sink of every level in text format, no rotation.
 */
struct llog_file_options {
	const char *path;      /* the file; copied. The newest file is always here */
	enum llog_level level; /* minimum level; zero value = TRACE */
	enum llog_format format;
	enum llog_file_compression compression;
	int zstd_level;        /* 0 = 1 for text (on log lines faster and
				* smaller than zstd's default, 3), -1 for
				* LLOG_FILE_BINARY (zstd's first fast level;
				* binary data frames of version 3, which
				* llogcat of an earlier build cannot read):
				* backends/file_frames.c; negative fast
				* levels allowed */
	/* Rotate before a frame would take the file past this many bytes;
	 * 0 = no size rotation. A single frame larger than this still goes
	 * into a file of its own. */
	uint64_t max_bytes;
	/* Rotate when the UTC wall clock enters a new period of this many
	 * seconds (86400: at midnight UTC); 0 = no time rotation. */
	unsigned rotate_interval_s;
	/* Retention of rotated files (the current file never counts and is
	 * never deleted): at llog_file_sink() and after each rotation, the
	 * oldest rotated files are deleted while more than max_files are
	 * left, or they hold more than max_total_bytes together, or the
	 * oldest was rotated more than max_age_s seconds ago (by the UTC time
	 * in its name). 0 = no such limit. See "Retention" below. */
	unsigned max_files;
	enum llog_file_fsync fsync;
	/* The line (zero: the default line). A compressed (LLOG_FILE_ZSTD)
	 * file always stores UTC with nanoseconds (ts_precision and
	 * LLOG_LINE_LOCAL_TIME are ignored: `llogcat --local` shows local
	 * time) and, in text, always the function (LLOG_LINE_FUNC is implied,
	 * so that `llogcat --func` can filter; its metadata says
	 * "line=func"). A plain file gets exactly the line asked for. */
	struct llog_line_options line;
	uint64_t max_total_bytes; /* see max_files */
	unsigned max_age_s;       /* see max_files */
	/* Before a frame, at most once every this many milliseconds, compare
	 * the file at path (stat) with the one the sink writes (fstat): when
	 * path names another file (other inode or device) or none, reopen
	 * path. For rotation by tools that cannot signal the process; 0 =
	 * never (llog_file_reopen() still works). Choose about the flush
	 * interval (llog_config.flush_interval_ms). */
	unsigned reopen_check_ms;
	enum llog_file_writer writer; /* see enum llog_file_writer */
	/* How long the flusher waits for the writer thread when the writer makes
	 * no progress (writes no frame: a write(2) that does not return, a
	 * frozen, hung or dead file system) before it declares the sink stalled;
	 * 0 = 10000. Stalled, nothing waits for the sink any more (llog_flush(),
	 * LOG_FATAL, fork(), exit, llog_shutdown() and the flusher's rounds go
	 * on, their commits of this sink failing with ETIMEDOUT): the writer
	 * keeps what it was handed and is handed the rest in order, up to the
	 * sink's backlog (256 frames, 8 MiB of records); records beyond it are
	 * counted in llog_stats.sink_lost. When the writer makes progress again,
	 * the sink goes on as before and says on stderr how many records it did
	 * not store. Closed while stalled (llog_shutdown(), exit), the sink
	 * counts what its writer has not written yet as lost and is never freed
	 * (its thread may still return). Only the writer thread
	 * (LLOG_FILE_WRITER_THREAD, the default) bounds a stall: a sink the
	 * flusher writes itself (LLOG_FILE_WRITER_FLUSHER) waits as long as its
	 * write(2) does, and one on a thread of its own is bounded by its
	 * queue's drain timeout instead. */
	unsigned stall_timeout_ms;
};

/*
 * Creates a file sink: each commit (end of a flusher batch) appends one
 * complete zstd frame (content checksum on) with one write(2), so the file
 * is decodable up to the last committed record, and processes appending to
 * the same file never interleave inside a frame. The frames of the
 * flusher's ordinary batches are compressed and written by the sink's
 * writer thread soon after the batch (llog_file_options.writer); those of
 * llog_flush(), LOG_FATAL, llog_shutdown() and a crash are in the file
 * when those return (unless the file system stalls: see
 * llog_file_options.stall_timeout_ms). A new file starts with a
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
 * Retention: the rotated files are the regular files in path's directory
 * named stem.YYYYMMDDTHHMMSS.nnnnnnnnnZ ext exactly (stem.ext = path's
 * name): this run's, an earlier run's, or another process's writing the
 * same path; they are deleted oldest (by name) first. Nothing else is
 * ever deleted. The directory is read through a descriptor of its own
 * and nothing in it is followed: a symbolic link, even one with a rotated
 * file's name, is neither counted nor deleted, and what it points to is
 * never touched. Between rotations the disk holds at most
 * max_total_bytes plus the current file (max_bytes, or one larger frame).
 *
 * External rotation (logrotate). The sink writes whatever file it opened
 * until it is told, or finds, that path names another file: then it
 * closes it and opens path (creating it when missing) before the next
 * frame, never inside one; the new file starts with a metadata frame.
 * Told: llog_file_reopen(), for instance from the handler of a signal
 * that logrotate's postrotate sends. Found: reopen_check_ms.
 *   /var/log/app/app.log.zst {
 *       daily
 *       rotate 14
 *       missingok
 *       notifempty
 *       nocompress                # the files are zstd already
 *       create 0640 app app
 *       sharedscripts
 *       postrotate
 *           kill -HUP "$(cat /run/app.pid)" 2>/dev/null || true
 *       endscript
 *   }
 * with, in the application (SA_RESTART, so that no system call of the
 * application fails with EINTR):
 *   static void on_hup(int sig)
 *   {
 *       (void)sig;
 *       llog_file_reopen();
 *       llog_levels_reload_request(); // with a levels file: reread it too
 *   }
 *   struct sigaction sa = {.sa_handler = on_hup, .sa_flags = SA_RESTART};
 *   sigemptyset(&sa.sa_mask);
 *   sigaction(SIGHUP, &sa, NULL);
 * (and llog_config.levels_signal left 0: llog never replaces this handler,
 * llog_init() would refuse SIGHUP with -EBUSY).
 * Every record is then in exactly one file, in order: those committed
 * before the sink reopens go to the renamed file, the others to the new
 * one; llogcat given all the files orders them by their metadata. Until
 * the next frame the sink keeps the renamed file open (a file logrotate
 * deletes meanwhile keeps its blocks until then). logrotate's own names
 * (app.log.zst.1, ...) are not the sink's rotated names: its retention
 * (rotate N) is logrotate's; do not combine it with max_bytes or
 * rotate_interval_s on the same path.
 *
 * copytruncate (logrotate copies the file, then truncates it in place; no
 * signal needed): the file is opened O_APPEND, so the first frame after
 * the truncation lands at offset 0, and before each frame the sink takes
 * the file's size from fstat, so that a truncated file gets a metadata
 * frame first (unless the truncation falls between that fstat and the
 * write: then the file starts with data frames, which llogcat reads too)
 * and max_bytes counts from the new size. What copytruncate loses is its
 * own: records committed after logrotate's copy read the end of the file
 * and before its truncation are in neither file, and the copy may end in
 * a torn frame (a plain file: a torn line), written while it was read;
 * llogcat reports it as damage. A truncation and a frame's write(2) never
 * interleave (the kernel serialises them on the file), so the truncated
 * file holds complete frames only: each commit's frame is whole before the
 * truncation (and gone with it) or starts at offset 0 after it. With no
 * record logged during the copy, nothing is lost.
 *
 * When the flusher thread crashes (docs/crash-handling.md), the sink's crash
 * entry points append, with one write(2) each, zstd frames of one raw
 * (uncompressed) block, with the content size but no checksum, each of
 * whole lines and at most 128 KiB: first the lines it held since its last
 * commit (unless the crash happened inside this sink), then the drained
 * records. No rotation and no metadata frame then; plain files get the
 * lines. Its buffer (128 KiB) is allocated here.
 *
 * Write errors (ENOSPC, EIO, EFBIG) never block: a short write is cut back
 * off the file, the unwritten records (up to 8 MiB of lines) are retried at
 * the next commit, and beyond that the oldest are dropped and counted in
 * llog_stats.sink_lost; each failing commit counts in write_errors (and
 * the bytes it wrote before it failed are not in bytes_written). A full
 * disk with some room left: a frame larger than the room is split into
 * frames of fewer lines that fit (down to one line), oldest first, so the
 * lines behind it go out as soon as some room is back; in binary mode,
 * whose frames cannot be split, the frames made after such a write hold
 * less (the room in proportion, at least 32 KiB of records or one record,
 * back to 4 MiB as they are written), and the frame that did not fit waits
 * for its room or is dropped at the 8 MiB bound.
 *
 * Memory: everything the sink uses is allocated here, and it allocates
 * nothing afterwards (so the flusher's last commit in a crash does not
 * call malloc): the 8 MiB input buffer (the pending-lines bound; its pages
 * are backed only as they are used), a 4 MiB output buffer, the 128 KiB
 * crash buffer, and the zstd compressor's workspace, sized for the level
 * and the largest frame (4 MiB of lines): 0.5 MiB at the negative levels,
 * 0.6 MiB at 1, 1.2 MiB at 3 (the default), 3.5 MiB at 5, 12.5 MiB at 9,
 * 49 MiB at 19, 65 MiB at most (20-22). A plain file sink needs neither
 * the output buffer nor the workspace.
 *
 * Ownership: opt and path remain the caller's. Hand the result to
 * llog_add_sink(). Thread-safe; allocates (about 13.5 MiB plus the
 * compressor's workspace, above) and makes system calls. Returns NULL with
 * errno set and a message (the path and strerror) for
 * llog_file_sink_error().
 */
LLOG_EXPORT struct llog_sink *llog_file_sink(const struct llog_file_options *opt);

/*
 * Describes why the last sink constructor called on this thread
 * (llog_file_sink, llog_syslog_sink, llog_journald_sink) failed ("" when
 * it succeeded or none was made). Never NULL; the text lives in thread-local
 * storage until the next such call on the thread. llog_syslog_sink_error()
 * is the same text.
 */
LLOG_EXPORT const char *llog_file_sink_error(void);
/* The same text, also set by llog_add_sink_opts() when it refuses its
 * options ("" when it accepted them). */
LLOG_EXPORT const char *llog_sink_error(void);

/*
 * Asks every file sink to close its file and open its path again before
 * its next frame (see "External rotation" at llog_file_sink()): for a
 * signal handler the application installs for its log rotation tool.
 * llog installs no handler itself: the signal, its other uses (a SIGHUP
 * that also reloads a configuration) and SA_RESTART are the
 * application's, and a library's handler chained to an earlier one breaks
 * when either is replaced.
 *
 * Async-signal-safe (one lock-free atomic increment), thread-safe, never
 * blocks, allocates or makes a system call; may be called before llog_init
 * or with no file sink (then it does nothing to sinks made later). The
 * reopen happens on the thread that runs the sink, before the first frame
 * it writes after seeing the request. Ordering: records committed before
 * the call are in the old file; records logged after it returned, on the
 * calling thread or on one that synchronised with it, are in the new one;
 * records logged before it and committed after it may be in either. A failed open is reported on stderr and retried before
 * each frame, the records waiting meanwhile as for a write error.
 */
LLOG_EXPORT void llog_file_reopen(void);

/* ---- journald -------------------------------------------------------------- */

/*
 * Options of llog_journald_sink(). A zero-initialised struct (or NULL) gives
 * the system's journald, every level, the defaults noted.
 */
struct llog_journald_options {
	/* journald's native socket; NULL: "/run/systemd/journal/socket".
	 * A journal namespace NAME listens on
	 * "/run/systemd/journal.NAME/socket". Copied; at most 107 bytes. */
	const char *socket_path;
	enum llog_level level; /* minimum level; zero value = TRACE */
	/* SYSLOG_IDENTIFIER of every entry (journalctl -t); NULL: the
	 * program's name (program_invocation_short_name). Copied; at most
	 * 255 bytes. */
	const char *identifier;
	/* Bound of the entries kept while journald is down or not reading;
	 * 0 = 4 MiB, at least 64 KiB, at most 1 GiB. Past it the oldest are
	 * dropped and counted. */
	size_t buffer_bytes;
	/* Bound on one commit's sending (waiting for journald to read);
	 * 0 = 1000 ms. */
	unsigned timeout_ms;
	/* Entries longer than this go through a memfd, not a datagram;
	 * 0 = only those the socket refuses as too large (EMSGSIZE or
	 * ENOBUFS: megabytes, depending on net.core.wmem_max and the
	 * kernel's allocations). */
	size_t max_datagram_bytes;
	/* Fields added to every entry, "NAME=value" strings, the array ending
	 * with NULL (may be NULL): NAME of A-Z, 0-9 and '_', not starting
	 * with '_' or a digit, at most 64 characters. Copied. */
	const char *const *fields;
};

/*
 * Creates a sink that writes to systemd-journald with its native protocol
 * (no libsystemd needed): each entry becomes one journal entry with the
 * fields
 *   MESSAGE            the message, byte for byte (newlines and all
 *                      control characters kept: binary-safe form)
 *   PRIORITY           the syslog severity: TRACE 7, DEBUG 7, INFO 6,
 *                      WARN 4, ERROR 3, FATAL 2 (as the syslog sink)
 *   LLOG_LEVEL         the level's name ("TRACE" ... "FATAL")
 *   SYSLOG_IDENTIFIER  options.identifier
 *   SYSLOG_PID         the process id (the child's after fork)
 *   CODE_FILE, CODE_LINE, CODE_FUNC  the LOG call's __FILE__, __LINE__,
 *                      __func__
 *   TID                the logging thread's kernel thread id
 *   LLOG_THREAD_NAME   the thread's name (llog_set_thread_name, or its name
 *                      when it first logged), when it has one
 *   LLOG_SEQ           llog's sequence number (output order)
 *   LLOG_TIMESTAMP_NS  the record's own time, ns since 1970 UTC (journald
 *                      stamps its entries with the time it received them:
 *                      __REALTIME_TIMESTAMP; this is when LOG was called)
 *   LLOG_CATEGORY      the record's category (llog.h, "Categories"), absent
 *                      for the default category
 *   LLOG_SUPPRESSED    calls of a rate-limited site suppressed since its
 *                      previous record (llog_entry.suppressed), when not 0
 *   LLOG_BACKTRACE     1 for an entry of the backtrace (llog.h,
 *                      "Backtrace"), absent otherwise
 *   LLOG_F_<KEY>       each of the record's fields (context and call:
 *                      llog.h, "Logging with fields"), a key of a-z, 0-9
 *                      and '_' of at most 57 bytes upper-cased
 *                      (latency_ms: LLOG_F_LATENCY_MS), the value as text;
 *                      any other key as LLOG_FX_<index>=<key>=<value>,
 *                      '%' and '=' in the key as %25 and %3D
 *                      (docs/fields.md 5)
 *   LLOG_FIELDS_TRUNCATED  fields left out or cut (llog_entry.
 *                      fields_truncated), when not 0
 * plus options.fields. An entry too large for one datagram goes through a
 * sealed memfd passed over the socket.
 *
 * Delivery: the sink runs on a thread of its own (LLOG_SINK_F_MAY_BLOCK;
 * llog_add_sink_opts chooses the queue), so a journald that stops reading
 * holds up nothing but this sink. Entries are kept in a buffer and sent at
 * the end of each flusher round (sooner when the buffer passes half its
 * bound), in order, each commit's sending bounded by timeout_ms. A journald
 * that is down (ENOENT, ECONNREFUSED, a restart) or does not read within
 * timeout_ms is a sink error: the commit fails (llog_stats.write_errors),
 * the entries stay buffered and are sent again at the first commit after a
 * back-off from 50 ms doubling to 5 s (the sink's thread tries a failed
 * commit again by itself, from 50 ms doubling to 1 s, also while the
 * program logs nothing: see llog_add_sink_opts). Past buffer_bytes the oldest entries are
 * dropped and counted in llog_stats.sink_lost (so are entries still
 * buffered when the sink closes after one more timeout_ms, an entry larger
 * than buffer_bytes, and one for which no memfd can be made), and once
 * journald takes entries again the first one is a WARN notice "llog: N
 * messages dropped" with the field LLOG_DROPPED=N. Datagrams the socket
 * accepted are journald's: the protocol has no acknowledgement, so those
 * still unread when journald dies are lost without a count.
 * fork(): the child drops the parent's buffered entries (the parent sends
 * them) and connects anew with its own pid. No crash entry points.
 *
 * Ownership: opt and its strings remain the caller's (copied). Thread-safe;
 * allocates (the buffer, twice buffer_bytes, its pages backed as used);
 * connects nothing until the first commit. Returns the sink for
 * llog_add_sink(), or NULL with errno set (EINVAL for a bad option or
 * field, ENOMEM) and a message for llog_journald_sink_error().
 */
LLOG_EXPORT struct llog_sink *llog_journald_sink(const struct llog_journald_options *opt);

/*
 * Describes why the last sink constructor called on this thread failed;
 * the same text as llog_file_sink_error(). Never NULL; thread-local.
 */
LLOG_EXPORT const char *llog_journald_sink_error(void);

/* ---- callback ------------------------------------------------------------ */

/*
 * Options of llog_callback_sink(). on_entry is required; on_commit and user
 * are optional.
 */
struct llog_callback_options {
	/* Called with each entry at or above level, in output order. e and the
	 * strings it points to are valid only during the call. */
	void (*on_entry)(void *user, const struct llog_entry *e);
	/* Called once at the end of each flusher batch (may be NULL). */
	void (*on_commit)(void *user);
	void *user;             /* passed to both; remains the caller's */
	enum llog_level level;  /* minimum level; zero value = TRACE */
};

/*
 * Creates a sink that hands every entry to a user function. The functions
 * run on the flusher thread, or, when the sink is added with
 * llog_add_sink_opts() and LLOG_SINK_THREAD_OWN, on a thread of its own
 * (then a callback that blocks holds up only its own queue); never
 * concurrently with each other. They must not call LOG: a record logged from them is not written, there is no
 * deadlock and no recursion; it is dropped and counted in
 * llog_stats.dropped (the flusher thread never logs). They must not call
 * llog_flush() or llog_shutdown() either (those return at once there), and
 * should return quickly when on the flusher: every other sink waits for
 * them. The callback sink
 * has no crash entry points: when the flusher thread crashes (in a callback
 * or elsewhere), the records not yet handed to it never are.
 *
 * Ownership: opt is copied; user remains the caller's and must stay valid
 * until llog_shutdown() returns. Thread-safe; allocates. Returns the sink
 * for llog_add_sink(), or NULL with errno EINVAL (opt or on_entry NULL, a
 * bad level) or ENOMEM.
 */
LLOG_EXPORT struct llog_sink *llog_callback_sink(const struct llog_callback_options *opt);

/* ---- syslog --------------------------------------------------------------- */

/* Syslog facilities, numbered as in RFC 5424 section 6.2.1. */
enum llog_syslog_facility {
	LLOG_FAC_KERN = 0,
	LLOG_FAC_USER = 1, /* the default */
	LLOG_FAC_MAIL = 2,
	LLOG_FAC_DAEMON = 3,
	LLOG_FAC_AUTH = 4,
	LLOG_FAC_SYSLOG = 5,
	LLOG_FAC_LPR = 6,
	LLOG_FAC_NEWS = 7,
	LLOG_FAC_UUCP = 8,
	LLOG_FAC_CRON = 9,
	LLOG_FAC_AUTHPRIV = 10,
	LLOG_FAC_FTP = 11,
	LLOG_FAC_LOCAL0 = 16,
	LLOG_FAC_LOCAL1 = 17,
	LLOG_FAC_LOCAL2 = 18,
	LLOG_FAC_LOCAL3 = 19,
	LLOG_FAC_LOCAL4 = 20,
	LLOG_FAC_LOCAL5 = 21,
	LLOG_FAC_LOCAL6 = 22,
	LLOG_FAC_LOCAL7 = 23
};

/*
 * Options of llog_syslog_sink(). Zero values give the defaults noted.
 */
struct llog_syslog_options {
	/* Where to send: "udp://host:port", "tcp://host:port",
	 * "relp://host:port" (IPv6 literals in brackets: "tcp://[::1]:514";
	 * port default 514), or "unix:PATH" (a datagram socket such as
	 * /dev/log). Required. */
	const char *url;
	const char *app_name;  /* NULL: the program name; at most 48 characters */
	const char *hostname;  /* NULL: gethostname(); at most 255 characters */
	/* enum llog_syslog_facility; 0 (the zero value) means USER: kern
	 * messages come only from the kernel. */
	int facility;
	enum llog_level level; /* minimum level; zero value = TRACE */
	/* Bound of the messages kept while the collector is unreachable;
	 * 0 = 4 MiB. Past it the oldest are dropped and counted. */
	size_t buffer_bytes;
	/* Bound on one connect (with the RELP handshake) or one commit's
	 * sending and waiting for acknowledgements; 0 = 1000 ms. */
	unsigned timeout_ms;
	/* UDP only: longer messages are cut to this many bytes, ending in
	 * "...[truncated]"; 0 = 2048 (at least 480, at most 65000). */
	size_t max_udp_bytes;
	/* MSG laid out by line.pattern (struct llog_line_options; NULL: the
	 * message as it is, the default), e.g. "%s:%# %F: %m":
	 * the pattern's text line without its field section (the fields are
	 * in [fields@32473] already), escaped as a text line is; the timestamp
	 * directives under line.ts_precision and LLOG_LINE_LOCAL_TIME. The
	 * header (PRI, timestamp, MSGID, [llog@32473 ...]) does not change. */
	struct llog_line_options line;
};

/*
 * Creates a syslog sink: every entry becomes one RFC 5424 message
 *   <PRI>1 TIMESTAMP HOSTNAME APP-NAME PROCID MSGID [llog@32473 file="..."
 *   line="42" tid="..." func="..." level="INFO"] MSG
 * with PRI = facility * 8 + severity, TIMESTAMP in RFC 3339 UTC with
 * microseconds ("2025-01-01T12:00:00.123456Z"), PROCID the pid, MSGID the
 * record's category (its first 32 bytes; the level name for the default
 * category: llog.h, "Categories"), file the source file name without
 * directories, func the function (__func__), level the level's name (the
 * only place that tells TRACE from DEBUG), then when they apply
 * suppressed="N", category="C" (the whole name), backtrace="1" and
 * fields_truncated="N", and the fields in an element [fields@32473 ...]
 * (docs/fields.md); '"', '\' and ']' escaped with a backslash in the parameter values. Read the
 * parameters by name: later versions may add some. Levels map to
 * severities: TRACE 7 (debug), DEBUG 7, INFO 6 (informational), WARN 4
 * (warning), ERROR 3 (error), FATAL 2 (critical). Over TCP each message
 * is framed by octet counting (RFC 6587: "LEN SP MSG"), so a newline in a
 * message never starts a second record; over UDP and unix sockets each
 * message is one datagram.
 *
 * Delivery: the sink runs on a thread of its own (LLOG_SINK_F_MAY_BLOCK;
 * llog_add_sink_opts chooses the queue's size and policy, or
 * LLOG_SINK_THREAD_FLUSHER to run it on the flusher as before version 3),
 * so a collector that stops reading holds up nothing but this sink: its
 * queue fills and drops (counted, announced once the collector reads
 * again). That thread, never the application thread, connects (lazily,
 * at the first commit) and sends; a connect and each commit's sending are
 * bounded by timeout_ms and use MSG_NOSIGNAL (a collector that goes away
 * never raises SIGPIPE). While the collector is unreachable, messages are
 * kept in order in a buffer of buffer_bytes and sent once it is back;
 * reconnection attempts back off exponentially from 50 ms to 5 s. Past the
 * bound the oldest messages are dropped and counted in
 * llog_stats.sink_lost (as are messages still kept when the sink closes,
 * after one more timeout_ms to send them), and the first message after a
 * reconnect says how many were dropped and, for TCP, that messages in
 * flight when the connection broke may be lost (plain TCP cannot tell which
 * ones the collector received). Before sending on a TCP connection the sink
 * checks that the collector has not closed it, so a collector that stopped
 * while nothing was in flight loses nothing beyond the counted drops.
 *
 * RELP ("relp://", rsyslog's imrelp; the protocol is implemented here, no
 * librelp needed): every message stays in the buffer until the collector
 * acknowledges it (at most 128 unacknowledged at a time) and is sent again,
 * in order, on the next session when the connection breaks, so a collector
 * restart neither loses nor reorders anything. A duplicate is possible only
 * when the collector processed a message and died before its
 * acknowledgement reached llog. A message the collector rejects (a non-200
 * answer) counts in sink_lost. RELP messages longer than 8000 bytes are cut
 * (rsyslog's default limit; a longer frame makes imrelp drop the session).
 * Every message is at most 16 KiB (header included); a cut message, on any
 * transport, ends in "...[truncated]" (at a UTF-8 character boundary for
 * the 16 KiB bound) and is counted once in llog_stats.sink_truncated.
 * No crash entry points: a crash of the flusher thread hands the rest to
 * the sink's thread, which sends what it can within 1/5 of the crash
 * budget (llog_config.crash_timeout_ms: 1 s by default); what
 * is not sent by then (and, over RELP, not yet acknowledged) is lost.
 *
 * Ownership: opt and its strings remain the caller's (copied). Thread-safe;
 * allocates, resolves the host name (getaddrinfo: may block on DNS). Makes
 * no connection. Returns the sink for llog_add_sink(), or NULL with errno
 * set (EINVAL for a bad URL or option, EHOSTUNREACH for an unknown host,
 * ENOMEM) and a message for llog_syslog_sink_error().
 */
LLOG_EXPORT struct llog_sink *llog_syslog_sink(const struct llog_syslog_options *opt);

/*
 * Describes why the last sink constructor called on this thread failed;
 * the same text as llog_file_sink_error(). Never NULL; thread-local.
 */
LLOG_EXPORT const char *llog_syslog_sink_error(void);

/*
 * Closes and frees a sink that was never handed to llog_add_sink(). NULL is
 * accepted. Not for sinks that llog owns.
 */
LLOG_EXPORT void llog_sink_destroy(struct llog_sink *sink);

/*
 * Formats one entry as a line in the given format into buf (at most cap
 * bytes, always newline-terminated when cap > 0; no NUL). Control characters
 * in the message are escaped, so a record is always exactly one line.
 * Returns the number of bytes of the line, buf[0..n); the bytes after it,
 * up to cap, may have been used as scratch. Thread-safe, does not
 * allocate.
 * Reads only the fields of struct llog_entry up to msg_len (an entry built
 * by a caller compiled against an older header has no more): the default
 * line, and JSON without "thread_name". llog_format_entry_opts reads all.
 */
LLOG_EXPORT size_t llog_format_entry(const struct llog_entry *e, enum llog_format format,
				     char *buf, size_t cap);

/*
 * llog_format_entry with line options (NULL: the default line), reading
 * the whole struct llog_entry (thread_name NULL counts as ""). JSON then
 * has "thread_name" after "thread". A nonzero suppressed (rate limits,
 * llog.h) ends a text line with " [N suppressed]" (after the message or
 * its truncation marker) and puts "suppressed":N before "msg" in JSON;
 * the console and file sinks write their lines with it. Thread-safe,
 * does not allocate;
 * LLOG_LINE_LOCAL_TIME calls localtime_r (once per second of timestamps
 * per thread: cached).
 */
LLOG_EXPORT size_t llog_format_entry_opts(const struct llog_entry *e, enum llog_format format,
					  const struct llog_line_options *opt, char *buf,
					  size_t cap);

#ifdef __cplusplus
}
#endif

#endif /* LLOG_SINKS_H */
