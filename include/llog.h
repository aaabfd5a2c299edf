/*
 * llog.h - the public API of llog, a lock-free logging library for C.
 *
 * Application threads call LOG_INFO(...) and friends. A call checks the level
 * with one relaxed load, copies its arguments raw into the calling thread's
 * own arena (no formatting, no lock, no malloc, no system call once the
 * thread's arena exists) and hands the record to the flusher thread with one
 * compare-and-swap. The flusher formats each message once (byte for byte what
 * snprintf would give) and hands it to every sink (see llog/sinks.h).
 *
 * Error convention: functions returning int give 0 on success and a negative
 * errno value on failure; llog_strerror() describes such a value.
 * Functions are thread-safe unless stated otherwise.
 */
#ifndef LLOG_H
#define LLOG_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(LLOG_STATIC_DEFINE)
#define LLOG_EXPORT
#elif defined(__GNUC__)
#define LLOG_EXPORT __attribute__((visibility("default")))
#else
#define LLOG_EXPORT
#endif

#define LLOG_VERSION_MAJOR 0
#define LLOG_VERSION_MINOR 1
#define LLOG_VERSION_PATCH 0

/*
 * Severity levels. Values are part of the ABI and never renumbered.
 * A record's level is one of LLOG_TRACE .. LLOG_FATAL. LLOG_OFF is a
 * threshold only (llog_set_level, llog_config.level, a sink's level):
 * LOG(LLOG_OFF, ...), like LOG with any value outside TRACE..FATAL, is
 * never logged and never fatal. With a constant level (the only kind a C
 * LOG accepts: the call site is a static) the call is compiled out, its
 * arguments unevaluated; a call site whose level is known only at run
 * time (C++, where a static may be initialised from a variable) is
 * ignored at run time: nothing is written or counted, and it returns.
 */
enum llog_level {
	LLOG_TRACE = 0,
	LLOG_DEBUG = 1,
	LLOG_INFO = 2,
	LLOG_WARN = 3,
	LLOG_ERROR = 4,
	LLOG_FATAL = 5,
	LLOG_OFF = 6
};

/* What a thread does when its arena has no room for a record. */
enum llog_overflow {
	/* Default: wait for the flusher (woken at once); nothing is lost. */
	LLOG_OVERFLOW_BLOCK = 0,
	/* Discard the record and count it; the output then says how many
	 * records that thread dropped. */
	LLOG_OVERFLOW_DROP = 1
};

/*
 * Configuration for llog_init(). A zero-initialised struct means "all
 * defaults"; so does passing NULL to llog_init().
 */
struct llog_config {
	/* Minimum level logged; the zero value is LLOG_TRACE (everything).
	 * The LLOG_LEVEL environment variable (trace, debug, info, warn, error,
	 * fatal, off; case-insensitive) overrides it at init. */
	enum llog_level level;
	/* Flusher period in milliseconds; 0 = 100. */
	unsigned flush_interval_ms;
	/* Size of each logging thread's ring; rounded up to a power of two,
	 * at least 16 KiB; 0 = 256 KiB. */
	size_t arena_bytes;
	/* Upper bound of one record (captured arguments and rendered message);
	 * longer messages are truncated with a visible " [truncated]" marker.
	 * 0 = 4096; at least 256 and at most arena_bytes / 4. */
	size_t max_record_bytes;
	/* Policy when a thread's arena is full. */
	enum llog_overflow overflow;
	/* 0 (the default): llog_init() installs the crash handler described
	 * below; nonzero: it installs none (and removes one an earlier
	 * llog_init() installed, where it is still in place). */
	int crash_handler_off;
	/* CPUs the flusher thread may run on, bit i = CPU i (the first 64);
	 * 0 (the default) = wherever the scheduler puts it. Keeping the
	 * flusher off the CPUs of latency-critical threads keeps it from
	 * preempting them (and their cache); CPUs that do not exist or are
	 * not allowed are ignored; none left: not pinned (no error). The
	 * sinks' own threads run where the scheduler puts them. */
	unsigned long long flusher_cpus;
};

/*
 * Process life.
 *
 * exit() / return from main: llog_init() registers llog_shutdown() with
 * atexit(), so everything logged before exit() is written and committed.
 * (_exit() and SIGKILL skip it: a file sink then holds complete frames
 * of every commit made so far, and each thread's records in it form a
 * gap-free prefix of what it logged.)
 *
 * LOG_FATAL: writes its record, waits until every sink has committed
 * everything pushed so far (llog_flush()), then calls abort(). Also when
 * the record itself was dropped (full arena under LLOG_OVERFLOW_DROP,
 * re-entry) or llog is not running (written to stderr first).
 *
 * Crash handler (unless crash_handler_off): installed by llog_init() for
 * SIGSEGV, SIGBUS, SIGILL, SIGFPE and SIGABRT with SA_SIGINFO|SA_ONSTACK.
 * A 64 KiB alternate signal stack (mapped with a guard page below it) is
 * set up, when the thread has none, for
 * the thread that calls llog_init(), for the flusher, and for every thread
 * when it makes its arena (its first LOG), so a stack overflow there is
 * reported too (not in a thread that never logged and has no stack of its
 * own). In the first thread that crashes, the handler
 *   - arms a watchdog (a POSIX timer of llog's own that sends SIGALRM to
 *     that thread, SIGALRM unblocked there, our SIGALRM action): if the
 *     handler has not finished after 5 seconds, it sets the crash
 *     signal's action to SIG_DFL and raises it, so the process dies of
 *     that signal (without running an application handler). The
 *     application's alarm()/ITIMER_REAL timer is never read or changed
 *     (a periodic one keeps its interval across a recovered crash), but a
 *     SIGALRM of it that arrives during the report is ignored. When the
 *     handler finishes, the timer is deleted and the application's
 *     SIGALRM action put back;
 *   - makes a FATAL record naming the signal, the faulting address
 *     (SIGSEGV/SIGBUS/SIGILL/SIGFPE raised by a fault) and the thread, with
 *     the raw backtrace addresses, and has it committed after every record
 *     pushed before the crash:
 *       . in an application thread, it pushes it and waits up to 2 seconds
 *         for the flusher to hand every record pushed before the crash,
 *         then that one, to every sink and commit them;
 *       . in the flusher thread itself (a fault in a sink, a callback, or
 *         llog), it drains directly: the record it was handing out (to the
 *         sinks after the one it faulted in, which had not taken it), the
 *         rest of the batch in progress,
 *         everything still queued (the queue is closed: LOG calls made
 *         after that point write to stderr synchronously), then the crash
 *         record, through the sinks' crash entry points (llog/sinks.h,
 *         version 2), then their crash commit. The file and console sinks
 *         have them (the file sink appends zstd frames of raw blocks without
 *         checksum or metadata, readable by zstdcat and llogcat); the
 *         callback and syslog sinks and version-1 sinks do not and get
 *         nothing of the drain;
 *       . when the flusher faults while an application thread reports
 *         (the fault of the first thread made the flusher run a sink or
 *         a record that faults in turn), the flusher's handler drains the
 *         same way (the record or sink that faulted skipped, the crashing
 *         thread's crash record included) and lets that thread go on; the
 *         process then dies of that thread's signal;
 *   - writes to stderr, with write(2) only: that line again if no sink
 *     committed it, then the symbolised backtrace;
 *   - restores the actions that were installed before llog_init() and lets
 *     the signal happen again, so an application handler installed before
 *     llog_init() runs next, and otherwise the process dies of the same
 *     signal (with its core dump).
 * It takes no lock and does not call malloc: everything it uses is
 * allocated beforehand (by llog_init(), the sink constructors and each
 * thread's first LOG).
 * Guaranteed: records whose LOG call returned before the crash are
 * committed, if the flusher and the sinks finish within the 2 seconds
 * (application thread), or (flusher thread) in every sink that has crash
 * entry points, except what is said below. Not guaranteed: the record being
 * logged by the crashing thread at the moment of the crash; anything not
 * committed when the 2 seconds run out; when the flusher crashed inside a
 * sink's own callback (its write or commit), what that sink had accepted
 * and not yet committed is lost for that sink (the file sink's partial
 * frame: every line it held since its last commit; the console sink's
 * buffer), while the other sinks write theirs; a record whose rendering
 * crashed the flusher; anything a sink's crash path cannot write within the
 * watchdog's 5 seconds. Rendering in the drain is llog's own code, except
 * that %p and floating-point conversions (but the common %f/%F of a double
 * below 2^63 with a precision up to 9) go through snprintf: glibc's takes
 * no lock, but it is not on
 * POSIX's async-signal-safe list and allocates for very large widths or
 * precisions (a malloc lock held at the crash would then hang it until the
 * watchdog fires). Other threads crashing at the same time (but the
 * flusher, see above) wait (bounded) and die of their own signal. A
 * handler the application installs after llog_init() replaces llog's.
 *
 * fork(): fork() waits until the flusher is between two rounds (at most
 * one round, bounded by the sinks' timeouts; so a sink callback must not
 * wait for a lock that a thread calling fork() holds). The records pending
 * in the parent at the fork are written by the parent only. The child
 * inherits llog's configuration and sinks (those added just before the
 * fork included), but not the parent's pending records: each sink's
 * after_fork drops its copy of them (a syslog sink also gives up the
 * parent's connection and connects anew, with the child's pid as PROCID).
 * A sink without after_fork (a version-1 sink of your own) is not used in
 * the child. The other threads' arenas are left untouched. A fresh flusher
 * starts at the child's first LOG or llog_flush() (creating a thread:
 * allocates; a LOG in a signal handler never waits for it but is written
 * synchronously to stderr instead). A child that calls llog_init() before
 * logging replaces the inherited sinks with its own (those it added) and
 * its configuration; llog_shutdown() before any of these closes the
 * inherited sinks. A file sink's file stays shared: each commit is one
 * write of whole frames with O_APPEND, so both processes append whole
 * frames (rotation is not coordinated between them). Do not fork from a
 * sink callback. If llog was not running in the parent, the child starts
 * with llog not running either.
 *
 * Shared libraries that log (dlopen()/dlclose()): a LOG call site keeps
 * its format string, file and function names and parsed plan in the
 * calling object's own memory (struct llog_site below), and the flusher
 * reads them when it renders the record, later. So that dlclose() of a
 * library does not unmap them under records still queued, every object
 * (executable or shared library) with a translation unit that includes
 * this header gets a hidden destructor (llog__dso_fini_tu below; GCC and
 * Clang; all the object's translation units share one flag, so it waits
 * once per object). It runs last among the object's destructors (priority
 * 101; a destructor of yours with priority 101 may run after it: its LOG
 * calls are then not covered) and returns once every record pushed before
 * it, by any thread, has been rendered and handed to the sinks (not
 * necessarily committed: the sinks keep copies). That takes one flusher
 * round while llog runs; it does nothing else when llog is not running,
 * and at exit after llog's own atexit handler has shut it down (the usual
 * case: exit() runs the atexit handlers registered once the program
 * started, llog_init()'s included, before the objects' destructors; when
 * llog_init() ran earlier, in a shared library's constructor, the
 * destructors may come first and each object waits for one round). It may block as
 * llog_flush() does (behind a sink the flusher waits for) and holds the
 * dynamic loader's lock meanwhile (dlclose() runs destructors under it):
 * a sink that calls dlopen(), dlclose() or dlsym() on the flusher could
 * then deadlock (sinks on threads of their own are not waited for).
 * Not covered: LOG calls of the library made after its destructors (by
 * other threads still running its code: an application bug, as calling
 * into an unloaded library is); dlclose() from a sink callback or a sink's
 * thread (it cannot wait for the flusher there and returns at once: the
 * library's queued records are then read from unmapped memory); llog
 * linked statically into the library itself (that copy of llog, its
 * flusher included, goes with the library: link llog as a shared library,
 * or into the executable with its symbols exported, when libraries that
 * log are unloaded). Define LLOG_NO_DSO_FINI before including this header
 * to leave the destructor out of a translation unit (for an object that
 * is never unloaded, or one that waits itself with llog_flush()).
 *
 * Signal handlers: a LOG in a signal handler that interrupted a LOG call of
 * the same thread is dropped and counted (stats.dropped, and a notice in
 * the output); otherwise it is logged normally, lock-free and without
 * malloc, provided that thread has logged before (a thread's first LOG
 * allocates its arena and must not happen in a signal handler).
 */

/*
 * Starts the flusher thread with the sinks added so far. When none was
 * added, it uses a fallback: a console sink on stderr (default options),
 * only until the first llog_add_sink() (see there). Not async-signal-safe. Allocates, creates a
 * thread and waits until it runs (so a fork() right after it never catches
 * the thread in its start-up). Registers llog_shutdown() with atexit() on
 * the first call.
 * Returns 0, -EALREADY when llog is already running, -EINVAL for an invalid
 * configuration, or the negative errno of a failed thread creation.
 * Records logged before llog_init() are written synchronously to stderr.
 */
LLOG_EXPORT int llog_init(const struct llog_config *cfg);

struct llog_sink;

/*
 * Adds a sink; llog takes ownership of it (and closes it at shutdown, or at
 * once when this call fails). Before llog_init() the sink is kept for init
 * (and llog_init() then makes no stderr fallback); afterwards the change
 * travels to the flusher as a control record, so every record logged after
 * this call returns reaches the new sink.
 * The first sink added while llog runs with its stderr fallback replaces
 * the fallback where the flusher installs it, between two records: each
 * record is written either to the fallback (those the flusher took before
 * the sink: each thread's earlier records, then closed, so written out) or
 * to the new sink and the later ones (each thread's later records), never
 * to both and never to neither. Exception: a sink that reaches the flusher
 * only in its crash drain (added just before the flusher crashed) is
 * installed beside the fallback, which the drain does not close.
 * Returns 0, -EINVAL for NULL, -ENOSPC when 16 sinks are already installed
 * or waiting for llog_init() (the stderr fallback does not count; in a fork
 * child, the inherited sinks count), -ENOMEM, or
 * -ECANCELED when called from a sink's close() during llog_shutdown().
 */
LLOG_EXPORT int llog_add_sink(struct llog_sink *sink);

/*
 * Returns once every record pushed before the call (by any thread whose push
 * happened before this call) is committed by every sink. May block; makes
 * system calls. A no-op when llog is not running or when called from the
 * flusher thread (for example from a callback sink).
 */
LLOG_EXPORT void llog_flush(void);

/*
 * Drains everything, closes the sinks and joins the flusher. Idempotent and
 * safe to call from several threads at once (and concurrently with
 * llog_flush()). Registered with atexit(). After it, LOG calls still work:
 * each is formatted and written synchronously to stderr with write(2) by
 * the calling thread (sinks are closed), and counted as logged and written;
 * llog_init() may be called again. The crash handler stays installed.
 */
LLOG_EXPORT void llog_shutdown(void);

/*
 * Names the calling thread: the name its records carry from now on
 * (struct llog_entry.thread_name: a sink's text option, JSON's
 * "thread_name"). name is cut to 15 bytes (the kernel's limit; at a UTF-8
 * character boundary) and copied; it also becomes the thread's system name
 * (pthread_setname_np: top, ps, gdb show it).
 *
 * A thread's name is read (prctl PR_GET_NAME) once, at its first LOG; a
 * name set later with pthread_setname_np alone is not seen by llog: call
 * this instead. Ordering: every record this thread logged before the call
 * shows the old name and every record after it the new one, in every sink
 * (the change travels to the flusher in the thread's own record stream).
 * When no flusher runs (before llog_init, after llog_shutdown), it waits
 * for a shutdown's final round to finish this thread's earlier records.
 *
 * Thread-safe (names only the calling thread); not async-signal-safe.
 * Makes system calls; allocates nothing beyond the thread's first-LOG
 * arena. On a sink's or llog's own thread only the system name changes.
 * Under LLOG_OVERFLOW_DROP a full ring drops the change like a record
 * (counted in llog_stats.dropped; the old name stays). Returns 0, or
 * -EINVAL for NULL.
 */
LLOG_EXPORT int llog_set_thread_name(const char *name);

/*
 * Prepares the calling thread for logging ahead of its first LOG: makes its
 * buffer (arena_bytes of the configuration in force) with its pages
 * already faulted in, so that the first LOG calls pay for neither (the
 * peers call this preallocate). Optional: a thread's first LOG does the
 * same. Idempotent, thread-safe; allocates (once per thread). Returns 0, or
 * -ENOMEM (then LOG calls of this thread are dropped and counted, as
 * without it).
 */
LLOG_EXPORT int llog_thread_prepare(void);

/* Runtime level; one relaxed store / load. */
LLOG_EXPORT void llog_set_level(enum llog_level level);
LLOG_EXPORT enum llog_level llog_get_level(void);

/* Counters since the process started. After llog_flush() returns, and with no
 * concurrent logging, logged == written + dropped. */
struct llog_stats {
	uint64_t logged;        /* records received by the flusher + dropped */
	uint64_t written;       /* records formatted and handed to the sinks */
	uint64_t dropped;       /* records discarded (DROP policy, re-entry) */
	uint64_t truncated;     /* records whose message was truncated */
	uint64_t batches;       /* flusher rounds that carried records */
	uint64_t bytes_written; /* bytes the sinks wrote */
	uint64_t write_errors;  /* failed sink writes */
	uint64_t blocked;       /* times a thread waited for arena space */
	uint64_t sink_lost;     /* records a sink gave up on after write errors */
	uint64_t repaired;      /* torn file tails cut back by a file sink */
	uint64_t queue_dropped; /* entries dropped by full sink queues (all sinks;
				   llog_get_sink_stats) */
};

/* Fills *out with relaxed snapshots of the counters. */
LLOG_EXPORT void llog_get_stats(struct llog_stats *out);

/* Name of a level ("INFO"), or "?" for an invalid value. */
LLOG_EXPORT const char *llog_level_name(enum llog_level level);

/* Describes a negative errno value returned by llog. Never NULL. */
LLOG_EXPORT const char *llog_strerror(int err);

/* ---- logging macros -------------------------------------------------- */

/*
 * Call-site descriptor: one static instance per LOG statement. Its fields are
 * private to llog; the struct is public only so the macro can define it.
 */
struct llog_site {
	const char *fmt;
	const char *file;
	const char *func;
	int line;
	int level;
	int state;                  /* parse state, accessed atomically */
	unsigned char plan[36];     /* argument plan, published by state */
};

/* Runtime minimum level (read by the macros with one relaxed load). */
LLOG_EXPORT extern int llog__min_level;

#if defined(__GNUC__)
#define LLOG__PRINTF(a, b) __attribute__((format(printf, a, b)))
#define LLOG__UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define LLOG__PRINTF(a, b)
#define LLOG__UNLIKELY(x) (x)
#endif

/* Captures a record; called by the macros only. */
LLOG_EXPORT void llog__log(struct llog_site *site, const char *fmt, ...)
	LLOG__PRINTF(2, 3);

/* Calls below this level are removed at compile time. */
#ifndef LLOG_ACTIVE_LEVEL
#define LLOG_ACTIVE_LEVEL LLOG_TRACE
#endif

#define LLOG__FMT(fmt, ...) fmt

/*
 * LLOG_LOG(level, fmt, ...) (short name LOG): one statement. fmt must be a string literal. When
 * the level is disabled, or is not a record's level (LLOG_OFF, or outside
 * LLOG_TRACE..LLOG_FATAL: see enum llog_level), the arguments are not
 * evaluated and nothing is logged.
 */
#define LLOG_LOG(level, ...)                                                  \
	do {                                                                  \
		if ((level) >= LLOG_ACTIVE_LEVEL &&                           \
		    (unsigned)(level) <= (unsigned)LLOG_FATAL &&              \
		    (int)(level) >= __atomic_load_n(&llog__min_level,         \
						    __ATOMIC_RELAXED)) {      \
			static struct llog_site llog__site_ = {               \
				LLOG__FMT(__VA_ARGS__, 0), __FILE__,          \
				__func__, __LINE__, (level), 0, {0}};         \
			llog__log(&llog__site_, __VA_ARGS__);                 \
		}                                                             \
	} while (0)

/*
 * The shared-object destructor (see "Shared libraries" above). Called by
 * it only: waits until every record pushed before the call has been
 * rendered and handed to the sinks, once per *done (an int that starts at
 * 0; NULL: every call waits). Not async-signal-safe; may block; a no-op on
 * the flusher and on a sink's thread, and (but for waiting for a shutdown
 * in progress) while llog is not running.
 */
LLOG_EXPORT void llog__dso_fini(int *done);

#if defined(__GNUC__) && !defined(LLOG_NO_DSO_FINI)
/* One per object: hidden (not shared with other objects) and weak (the
 * definitions of its translation units merge into one). */
__attribute__((weak, visibility("hidden"))) int llog__dso_fini_done;
static void llog__dso_fini_tu(void) __attribute__((destructor(101), used));
static void llog__dso_fini_tu(void)
{
	llog__dso_fini(&llog__dso_fini_done);
}
#endif

/*
 * Names of the logging macros.
 *
 * Every macro has a prefixed name, always defined, that never clashes
 * with another header: LLOG_ followed by its short name.
 *   LLOG_LOG(level, fmt, ...)    LOG(level, fmt, ...)
 *   LLOG_LOG_TRACE(fmt, ...)     LOG_TRACE(fmt, ...)
 *   LLOG_LOG_DEBUG(fmt, ...)     LOG_DEBUG(fmt, ...)
 *   LLOG_LOG_INFO(fmt, ...)      LOG_INFO(fmt, ...)
 *   LLOG_LOG_WARN(fmt, ...)      LOG_WARN(fmt, ...)
 *   LLOG_LOG_ERROR(fmt, ...)     LOG_ERROR(fmt, ...)
 *   LLOG_LOG_FATAL(fmt, ...)     LOG_FATAL(fmt, ...)
 * (LLOG_INFO and friends, without _LOG_, are the levels of enum
 * llog_level; the rule "LLOG_ + short name" keeps the two apart and needs
 * no table: s/\bLOG/LLOG_LOG/ converts a file.)
 *
 * The short names are defined unless LLOG_NO_SHORT_NAMES is defined
 * before this header, and each only when that name is not a macro
 * already. <syslog.h> (<sys/syslog.h>) defines LOG_DEBUG and LOG_INFO as
 * priorities (7 and 6), and its other LOG_* names (LOG_ERR, LOG_WARNING,
 * LOG_USER, ...) differ from llog's. So in a file that includes
 * <syslog.h>:
 *   - before this header: LOG_DEBUG and LOG_INFO stay syslog's; llog's
 *     other short names are defined;
 *   - after this header: <syslog.h> (a system header, where the compiler
 *     does not warn) replaces llog's LOG_DEBUG and LOG_INFO with its own;
 * either way LOG_DEBUG and LOG_INFO are syslog's priorities there (for
 * syslog(), setlogmask(LOG_UPTO(LOG_INFO)), ...) and llog logs at those
 * levels with LLOG_LOG_DEBUG / LLOG_LOG_INFO (or LOG(LLOG_INFO, ...)).
 * Both orders compile without a warning. Checked against the headers of
 * Debian's libc6-dev and linux-libc-dev (/usr/include): <sys/syslog.h> is
 * the only one to define any of llog's short names; <scsi/scsi.h> has
 * LOG_SELECT and LOG_SENSE, which llog does not use.
 */
#define LLOG_LOG_TRACE(...) LLOG_LOG(LLOG_TRACE, __VA_ARGS__)
#define LLOG_LOG_DEBUG(...) LLOG_LOG(LLOG_DEBUG, __VA_ARGS__)
#define LLOG_LOG_INFO(...) LLOG_LOG(LLOG_INFO, __VA_ARGS__)
#define LLOG_LOG_WARN(...) LLOG_LOG(LLOG_WARN, __VA_ARGS__)
#define LLOG_LOG_ERROR(...) LLOG_LOG(LLOG_ERROR, __VA_ARGS__)
#define LLOG_LOG_FATAL(...) LLOG_LOG(LLOG_FATAL, __VA_ARGS__)

#ifndef LLOG_NO_SHORT_NAMES
#ifndef LOG
#define LOG(level, ...) LLOG_LOG(level, __VA_ARGS__)
#endif
#ifndef LOG_TRACE
#define LOG_TRACE(...) LLOG_LOG(LLOG_TRACE, __VA_ARGS__)
#endif
#ifndef LOG_DEBUG
#define LOG_DEBUG(...) LLOG_LOG(LLOG_DEBUG, __VA_ARGS__)
#endif
#ifndef LOG_INFO
#define LOG_INFO(...) LLOG_LOG(LLOG_INFO, __VA_ARGS__)
#endif
#ifndef LOG_WARN
#define LOG_WARN(...) LLOG_LOG(LLOG_WARN, __VA_ARGS__)
#endif
#ifndef LOG_ERROR
#define LOG_ERROR(...) LLOG_LOG(LLOG_ERROR, __VA_ARGS__)
#endif
#ifndef LOG_FATAL
#define LOG_FATAL(...) LLOG_LOG(LLOG_FATAL, __VA_ARGS__)
#endif
#endif /* LLOG_NO_SHORT_NAMES */

#ifdef __cplusplus
}
#endif

#endif /* LLOG_H */
