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
 *
 * Sections, in order: Export and version; Levels; Fields; Configuration;
 * Backtrace; Process life; Start, flush, shutdown; Threads; Categories and
 * levels; Statistics; Logging (LOG, LOG_CAT); Logging with fields
 * (LOG_KV); Context (llog_ctx_*); Rate-limited logging (LOG_EVERY_N);
 * Names of the logging macros (the full list, short and prefixed).
 *
 * The macros expand to machinery in llog/detail.h, which this header
 * includes at its end: it is not API (its names may change in any
 * release); use only what this header documents.
 *
 * The documents named docs/NAME.md here and in llog/sinks.h are in the
 * source tree's docs/ and, installed (cmake --install), in
 * PREFIX/share/doc/llog/NAME.md, PREFIX being /usr/local by default.
 */
#ifndef LLOG_H
#define LLOG_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
#if __cplusplus >= 201103L
#include <type_traits> /* llog/detail.h's C++ machinery */
#endif
extern "C" {
#endif

/*-*********************************************************************
 *  Export and version
 ***********************************************************************/

/* LLOG_EXPORT marks what the library exports; LLOG_STATIC_DEFINE is
 * defined when linking the static library (llog's CMake package and
 * llog.pc do it). */
#if defined(LLOG_STATIC_DEFINE)
#define LLOG_EXPORT
#elif defined(__GNUC__)
#define LLOG_EXPORT __attribute__((visibility("default")))
#else
#define LLOG_EXPORT
#endif

/* The version of this header. Everything it declares exists since 0.1.0,
 * the first release; what a later release adds says which. As one
 * number: MAJOR * 10000 + MINOR * 100 + PATCH (0.1.0 is 100), comparable
 * with llog_version(). */
#define LLOG_VERSION_MAJOR 0
#define LLOG_VERSION_MINOR 1
#define LLOG_VERSION_PATCH 0
#define LLOG_VERSION_NUMBER \
	(LLOG_VERSION_MAJOR * 10000 + LLOG_VERSION_MINOR * 100 + LLOG_VERSION_PATCH)

/* The version of the library linked (LLOG_VERSION_NUMBER's form): with a
 * shared library, it may differ from the header the caller was compiled
 * with. Thread-safe, async-signal-safe. */
LLOG_EXPORT unsigned llog_version(void);

/*-*********************************************************************
 *  Levels
 ***********************************************************************/

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
 * LOG_AT(level, ...) takes a level held in a variable (see "Logging"), with
 * the same rule for values outside TRACE..FATAL.
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

/*-*********************************************************************
 *  Fields
 ***********************************************************************/

/*
 * Structured fields (docs/fields.md): typed key-value pairs a
 * call carries beside its message (LOG_INFO_KV and friends, below) and a
 * thread's context (llog_ctx_set and friends, below). A sink sees them in
 * struct llog_entry.fields (include/llog/sinks.h).
 */
enum llog_field_type {
	LLOG_FIELD_NULL = 0, /* a NULL string: shown as null */
	LLOG_FIELD_I64 = 1,  /* signed integers of every width */
	LLOG_FIELD_U64 = 2,  /* unsigned integers of every width */
	LLOG_FIELD_F64 = 3,  /* float and double */
	LLOG_FIELD_BOOL = 4, /* _Bool */
	LLOG_FIELD_STR = 5   /* char * and const char *: copied at the call */
};

/* Limits of the fields of one record (docs/fields.md 1): pairs per call
 * (and per record, context included), bytes of a key, bytes of a string
 * value (a longer value is cut and flagged LLOG_FIELD_TRUNCATED). */
#define LLOG_FIELDS_MAX 32
#define LLOG_FIELD_KEY_MAX 64
#define LLOG_FIELD_STR_MAX 1024

/* Flags of struct llog_field. */
/* The string value was cut to the limit (its first len bytes are here,
 * never half a UTF-8 character); every output shows a marker. */
#define LLOG_FIELD_TRUNCATED 0x1u
/* The string value is a hex dump (LLOG_HEX): two lowercase hex digits a
 * byte, "" for none; with LLOG_FIELD_TRUNCATED, of the first LLOG_HEX_MAX
 * bytes. */
#define LLOG_FIELD_HEX 0x2u

/*
 * A buffer's bytes as a field's value, shown in hex:
 *     LOG_DEBUG_KV(("peer", peer, "frame", LLOG_HEX(buf, n)), "frame in");
 * gives the field frame="0a1bff..." in text, "frame":"0a1bff..." in JSON,
 * and the same digits in RFC 5424 structured data, journald and binary
 * files. The call copies the len bytes at ptr into the thread's arena, as
 * it copies a string (no formatting at the call: the flusher writes the
 * digits); at most LLOG_HEX_MAX bytes, a longer buffer cut there and the
 * field flagged LLOG_FIELD_TRUNCATED. ptr NULL (or a NULL struct llog_hex
 * pointer): a NULL field. A sink sees
 * an LLOG_FIELD_STR field of 2 * len digits, flagged LLOG_FIELD_HEX. Also
 * a context value (llog_ctx_set, llog_ctx_set_hex: the digits made at the
 * set). As a printf argument (LOG_INFO("%s", LLOG_HEX(...))) it does not
 * pass the compiler's format check: a pointer to a struct is not a string.
 */
#define LLOG_HEX_MAX 512
struct llog_hex {
	const void *ptr;
	size_t len;
};
#ifndef __cplusplus
#define LLOG_HEX(ptr, len) (&(const struct llog_hex){(const void *)(ptr), (size_t)(len)})
#else
/* In C++ (which has no compound literals) a struct llog_hex by value; a
 * field or llog_ctx_set copies it for the call. Any object pointer, a
 * volatile one too, as C's cast takes it. */
#define LLOG_HEX(ptr, len)                                                    \
	(::llog_hex{const_cast<const void *>(static_cast<const volatile void *>(ptr)), \
		    static_cast<size_t>(len)})
#endif

/* One field as a sink sees it: valid during the sink's write call only. */
struct llog_field {
	const char *key;   /* key_len bytes, NUL-terminated */
	size_t key_len;
	enum llog_field_type type;
	unsigned flags;    /* LLOG_FIELD_* */
	union {
		int64_t i64;
		uint64_t u64;
		double f64;
		int b;     /* 0 or 1 */
		struct {
			const char *ptr; /* len bytes, NUL-terminated */
			size_t len;
		} str;
	} v;
};

/*-*********************************************************************
 *  Configuration
 ***********************************************************************/

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
	/* Minimum level logged (the default level, llog_set_level); the
	 * zero value is LLOG_TRACE (everything). The LLOG_LEVEL environment
	 * variable, a level spec ("debug", "info,net=debug": see
	 * "Categories" below), overrides it at init; a malformed one is
	 * ignored with a line on stderr. The levels file (levels_file),
	 * when it can be read, overrides both: precedence levels file >
	 * LLOG_LEVEL > level; with LLOG_LEVEL and a levels file both given,
	 * llog_init() says on stderr which one is in force. */
	enum llog_level level;
	/* Flusher period in milliseconds; 0 = 100. */
	unsigned flush_interval_ms;
	/* Size of each logging thread's ring; rounded up to a power of two,
	 * at least 16 KiB; 0 = 256 KiB. Memory is committed as the ring is
	 * used: its first 16 KiB when the thread first logs, the rest (in one
	 * step) when it first needs more, or all of it at
	 * llog_thread_prepare(). */
	size_t arena_bytes;
	/* Upper bound of one record (captured arguments and rendered message);
	 * longer messages are truncated with a visible " [truncated]" marker.
	 * 0 = 4096; at least 256 and at most arena_bytes / 4. */
	size_t max_record_bytes;
	/* Policy when a thread's arena is full. */
	enum llog_overflow overflow;
	/* 0 (the default): llog_init() installs a crash handler for SIGSEGV,
	 * SIGBUS, SIGILL, SIGFPE and SIGABRT (and a 64 KiB alternate signal
	 * stack in threads that have none). On a crash it has every record
	 * logged before it committed (waiting at most 2 seconds: 2/5 of
	 * crash_timeout_ms, below), adds a
	 * FATAL record naming the signal with a backtrace, then puts back the
	 * actions installed before llog_init() and lets the signal happen
	 * again: the application's earlier handler runs next, or the process
	 * dies of the signal (core dump included). A handler installed after
	 * llog_init() replaces llog's. What is guaranteed, what is not, and
	 * how to combine it with handlers of your own: docs/crash-handling.md.
	 * Nonzero: it installs none (and removes one an earlier llog_init()
	 * installed, where it is still in place). */
	int crash_handler_off;
	/* CPUs the flusher thread may run on, bit i = CPU i (the first 64);
	 * 0 (the default) = wherever the scheduler puts it. Keeping the
	 * flusher off the CPUs of latency-critical threads keeps it from
	 * preempting them (and their cache); CPUs that do not exist or are
	 * not allowed are ignored; none left: not pinned (no error). The
	 * threads of sinks added before llog_init() run where the scheduler
	 * puts them, those of sinks added later on the flusher's CPUs. The
	 * threads are named "llog-flusher" and "llog-sink", a file sink's
	 * writer (the thread that compresses and writes its frames, which
	 * runs on the flusher's CPUs: give the two more than one CPU)
	 * "llog-file" (top -H, ps -L, gdb). */
	unsigned long long flusher_cpus;
	/* A file holding a level spec (llog_set_levels;
	 * newlines count as commas, lines starting with '#' are comments),
	 * read at llog_init() and again by the flusher whenever its
	 * content changes: checked (stat: inode, size, modification time;
	 * then the content) at most once per flush interval, at every
	 * llog_flush(), and at once after llog_levels_reload_request() or
	 * levels_signal. Write a new file and rename() it over the old one
	 * (a change in place is seen once its size or time changes). Each
	 * change is logged by the flusher as an INFO record "llog: levels
	 * changed (generation G): OLD -> NEW" of category "llog"; a
	 * malformed file as an ERROR record "llog: levels file PATH: WHAT;
	 * keeping OLD", and the levels stay (so too a file larger than
	 * 64 KiB, never applied cut). A missing or unreadable file
	 * changes nothing. Only a regular file is read: a FIFO, a directory,
	 * a device or a socket at the path is refused without blocking (opened
	 * O_NONBLOCK, checked with fstat), with a line on stderr at
	 * llog_init() and an ERROR record "llog: levels file PATH: a FIFO;
	 * keeping OLD" at a reload (a path on a hung network filesystem can
	 * still block in open()). NULL: none; the LLOG_LEVEL_FILE environment
	 * variable overrides it. Copied at init. */
	const char *levels_file;
	/* A signal (SIGHUP, SIGUSR1, ...) on which the
	 * levels file is read at once: llog_init() installs a handler that
	 * calls llog_levels_reload_request() (SA_RESTART), and
	 * llog_shutdown() puts the previous action back. 0: none. Needs
	 * levels_file (else llog_init() returns -EINVAL). llog never
	 * replaces a handler the application installed: when the signal's
	 * action is not the default or ignored, llog_init() returns -EBUSY
	 * and says so on stderr. To reopen files and reload levels on one
	 * signal (logrotate's SIGHUP), leave this 0 and install one handler
	 * that calls llog_file_reopen() and llog_levels_reload_request()
	 * (both async-signal-safe; docs/deploy.md). */
	int levels_signal;
	/* The backtrace (flight recorder), see "Backtrace" below. Off
	 * while backtrace_records is 0 (the zero value). */
	/* At most this many records kept. */
	size_t backtrace_records;
	/* Bytes of the ring that keeps them (allocated once, by llog_init);
	 * 0 = 512 per record. Raised to at least twice the largest entry, a
	 * record of max_record_bytes with the most fields and context (about
	 * 4 * max_record_bytes + 14 KiB); at most 1 GiB. */
	size_t backtrace_bytes;
	/* The lowest level kept (the zero value: LLOG_TRACE). Calls at
	 * levels from it up to, not including, `level` are captured. */
	enum llog_level backtrace_level;
	/* A record at or above it writes the backtrace first; the zero value
	 * (LLOG_TRACE) means LLOG_ERROR. At most LLOG_FATAL. */
	enum llog_level backtrace_trigger;
	/* How many heads the record queue has. 0 or 1 (the default): one, which every thread pushes on, and the output is in
	 * the order the pushes took effect. More (rounded down to a power of
	 * two, at most 64, else llog_init() returns -EINVAL): threads take
	 * the heads in turn (a thread's first LOG picks one), so that many
	 * threads logging at once do not all contend for one cache line;
	 * the flusher merges the heads by time. The output then keeps each
	 * thread's order and every order between threads that the program
	 * itself makes (a LOG that returned before another thread's LOG
	 * began, through a lock, an atomic or a thread start, comes first),
	 * and its times never decrease; records of calls that overlap in
	 * time come in the order of their times, not of their pushes. Costs
	 * about 10-20 CPU cycles per call (an ordered clock read); a record
	 * pushed while the flusher takes the heads may wait for the next
	 * round. Needs an invariant TSC that the kernel vouches for as one
	 * clock for every CPU (x86: the clocksource is "tsc", or another one,
	 * such as a KVM guest's kvm-clock, while the kernel still lists "tsc"
	 * as available, which it stops doing when its check finds the CPUs'
	 * TSCs apart); without one the queue has one head. llog_init() says
	 * on stderr (once per process) when it refuses the heads, and why,
	 * and when it keeps them on the second kind of evidence;
	 * llog_stats.queue_heads says how many there are. */
	unsigned queue_shards;
	/* The longest a crash report may take, from the signal until the
	 * process dies of it (a watchdog ends a report that takes longer,
	 * as a sink that blocks in its crash path would make it): 0 = 5000
	 * ms; at least 100 and at most 600000, else llog_init() returns
	 * -EINVAL. Of it, an application thread's report waits 2/5 (2 s by
	 * default) for what was logged before the crash to be committed,
	 * and sinks on threads of their own get 1/5 (1 s) to write what was
	 * queued to them when the flusher itself crashed; what is not
	 * committed by then may be lost (the report says so on stderr). A
	 * service that a supervisor restarts may want it shorter. */
	unsigned crash_timeout_ms;
};

/*-*********************************************************************
 *  Backtrace (flight recorder)
 ***********************************************************************/

/*
 * Backtrace (flight recorder), opt-in: llog_config.backtrace_records > 0.
 * Calls below the output level (llog_set_level, llog_config.level) but at
 * or above backtrace_level are captured as any call is (arguments copied
 * raw, no formatting: an ordinary call's cost) and pushed to the flusher,
 * which does not write them but keeps the last backtrace_records of them
 * (fewer when backtrace_bytes runs out: the oldest go first) in a ring
 * allocated once by llog_init(). When a record at or above
 * backtrace_trigger (default LLOG_ERROR) is written, the ring's records
 * are written first, oldest first, then the ring is emptied:
 *   - each thread's records keep their order, and their order among
 *     threads is the flusher's (as for every record);
 *   - each keeps the time of its call (llog_entry.ts_ns, earlier than the
 *     records written before them) and gets the next seq numbers, just
 *     before the triggering record's;
 *   - each carries the fields it was logged with: the thread's context as
 *     it was at the call (not at the trigger) and the call's own fields
 *     (LOG_DEBUG_KV...), in every output that shows fields, as if it had
 *     been written at once;
 *   - they are marked: llog_entry.backtrace = 1 for sinks, "[backtrace] "
 *     before the message in text lines, "backtrace":true in JSON, the
 *     SD-PARAM backtrace="1" in RFC 5424 syslog, LLOG_BACKTRACE=1 in
 *     journald;
 *   - each sink gets those at or above its own level (a sink whose level
 *     is at or above the output level gets none: the way to leave one
 *     sink out).
 * The crash handler writes the ring too, before the crash record
 * (docs/crash-handling.md). At llog_shutdown() what the ring still holds
 * is discarded. A kept record is rendered by the flusher when it arrives
 * (the ring holds text and copied fields, not arguments: nothing of the
 * call site, the thread or the arena is read later); LOG_FATAL below the output level is
 * kept and does not abort (as it is not called without the backtrace).
 * Memory: the ring, fixed; each record's bytes in its thread's arena are
 * released as for any record. Counted in llog_stats.backtrace_* only,
 * never in logged, written or dropped (so logged == written + dropped
 * still holds). With the feature off, a call below the level costs what it
 * costs without it: one relaxed load and a compare, arguments not
 * evaluated.
 */

/*
 * Writes the backtrace now, as a record at the trigger level would, without
 * one: every record kept so far (those logged before the call included),
 * oldest first, marked as above, then the ring is emptied. Returns once
 * the sinks committed them (as llog_flush()). For an operator's request
 * (a signal handled by a thread of the application, an admin endpoint) or
 * before a planned restart. Returns 0; -EDEADLK on the flusher thread or
 * a sink's thread (a callback sink); else -ESRCH when llog is not
 * running; else -ENOENT when the backtrace is off (backtrace_records 0):
 * nothing is done.
 * Not async-signal-safe (it waits for a commit).
 */
LLOG_EXPORT int llog_backtrace_dump(void);

/*-*********************************************************************
 *  Process life
 ***********************************************************************/

/*
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
 * Crash (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT): see
 * llog_config.crash_handler_off; in full (the watchdog, the drain when the
 * flusher itself crashed, which sinks get the records, the alternate
 * signal stacks, chaining with the application's handlers):
 * docs/crash-handling.md.
 *
 * fork(): fork() waits until the flusher is between two rounds (at most
 * one round, bounded by the sinks' timeouts; so a sink callback must not
 * wait for a lock that a thread calling fork() holds), and at most 100 ms
 * in all for the threads of sinks with their own thread to be between two
 * calls: a sink whose thread is still inside a call then (stuck on a
 * stalled pipe or collector) is not used in the child, which says so on
 * its stderr. The records pending
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
 * calling object's own memory (struct llog_site, llog/detail.h), and the flusher
 * reads them when it renders the record, later. So that dlclose() of a
 * library does not unmap them under records still queued, every object
 * (executable or shared library) with a translation unit that includes
 * this header gets a hidden destructor (llog__dso_fini_tu in
 * llog/detail.h; GCC and
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

/*-*********************************************************************
 *  Start, flush, shutdown
 ***********************************************************************/

/*
 * Starts the flusher thread with the sinks added so far. When none was
 * added, it uses a fallback: a console sink on stderr (default options),
 * only until the first llog_add_sink() (see there). Not async-signal-safe. Allocates, creates a
 * thread and waits until it runs (so a fork() right after it never catches
 * the thread in its start-up). Registers llog_shutdown() with atexit() on
 * the first call.
 * Returns 0, -EALREADY when llog is already running, -EINVAL for an invalid
 * configuration, -EBUSY when levels_signal has a handler of the
 * application's (see there), or the negative errno of a failed thread
 * creation.
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
 * Returns 0, -EINVAL for NULL or for ops whose flags set a bit that is not
 * LLOG_SINK_F_* (llog/sinks.h), -ENOSPC when 16 sinks are already installed
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

/*-*********************************************************************
 *  Threads
 ***********************************************************************/

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
 * buffer (arena_bytes of the configuration in force) with all its pages
 * already faulted in, so that the first LOG calls pay for neither (the
 * peers call this preallocate). Without it a thread's first LOG faults in
 * the first 16 KiB, and the call that first needs more the rest. Optional: a thread's first LOG does the
 * same. Idempotent, thread-safe; allocates (once per thread). Returns 0, or
 * -ENOMEM (then LOG calls of this thread are dropped and counted, as
 * without it).
 */
LLOG_EXPORT int llog_thread_prepare(void);

/*-*********************************************************************
 *  Categories and levels
 ***********************************************************************/

/*
 * Categories and their levels.
 *
 * A category names a group of call sites at compile time: "net",
 * "db.pool". A translation unit names the category of all its sites by
 * defining LLOG_CATEGORY (a string literal) before it first includes this
 * header:
 *     #define LLOG_CATEGORY "db.pool"
 *     #include <llog.h>
 * and one call can name its own: LLOG_LOG_CAT(level, "net", fmt, ...)
 * (short LOG_CAT), LLOG_LOG_INFO_CAT("net", fmt, ...) (LOG_INFO_CAT) and
 * the other levels alike, LLOG_LOG_AT_CAT(level, "net", fmt, ...)
 * (LOG_AT_CAT) for a level held in a variable. Sites with neither are in
 * the default category. The rate-limited forms (LOG_EVERY_N and friends)
 * take the file's category. Names are words of [A-Za-z0-9_-] joined by
 * dots; a dotted name is a child: a level set for "db" applies to
 * "db.pool" and "db.pool.x" unless they have their own (the nearest
 * ancestor wins).
 * The category shows in every output: text lines after the level
 * ("INFO  db.pool [tid] ..."), JSON "category", RFC 5424 MSGID, journald
 * LLOG_CATEGORY, struct llog_entry.category, llogcat --category; records
 * of the default category show none.
 *
 * The levels in force are a spec: a default level and a level per
 * category, written "info,net=debug,db.pool=trace": comma-separated
 * entries, each LEVEL (the default, at most once) or NAME=LEVEL (each
 * name at most once), level names as for LLOG_LEVEL (trace, debug, info,
 * warn or warning, error, fatal, off; any case), blanks around the parts
 * ignored, at most 4095 bytes. The LLOG_LEVEL environment variable holds
 * one at llog_init() ("debug" alone is a spec too).
 *
 * When a change is seen: each call site caches its level for the
 * generation of the levels it was computed for; every change makes a new
 * generation, and a call whose (relaxed) load of the generation returns
 * g uses exactly the levels of generation g, recomputing its site's cache
 * when it was made for another (so a site first reached after a change,
 * in a library loaded after it included, obeys it, and no list of sites
 * exists). A call that starts after llog_set_levels() (or
 * llog_set_level()) returned on the same thread obeys that change or a
 * later one; on other threads a change is obeyed from each thread's first
 * call that loads its generation (the store is visible to other CPUs
 * within the time the hardware takes, but C11 gives no bound), and a
 * thread never goes back to older levels. Cost of a call filtered out by
 * its category's level: two relaxed loads (the generation word and the
 * site's cache) and a compare, as for the default level
 * (bench/run.sh, "filtered" rows).
 */

/*
 * Replaces the levels in force by spec (see "Categories" above): the
 * default level becomes spec's bare level (unchanged when spec has none)
 * and the category levels become exactly spec's (categories not in it
 * follow the default again). Then logs the change in the calling
 * thread's stream: an INFO record of category "llog", never filtered,
 * "llog: levels changed (generation G): OLD -> NEW" (both specs in
 * canonical form, the default first; G as llog_levels_generation());
 * while llog is not running that record goes to stderr, as every record
 * does then.
 * The spec is copied. Thread-safe (changes are serialised); not
 * async-signal-safe (from a handler use llog_levels_reload_request());
 * takes a lock, allocates. Returns 0; -EINVAL for a malformed spec (or
 * NULL): nothing changes and llog_levels_error() names the bad part;
 * -ENOMEM.
 */
LLOG_EXPORT int llog_set_levels(const char *spec);

/*
 * The message of the calling thread's last failed llog_set_levels()
 * (or of llog_init()'s spec or levels file): names the bad part, for
 * example "unknown level \"verbose\" in \"net=verbose\"". Never NULL;
 * valid until the thread's next call of llog_set_levels().
 */
LLOG_EXPORT const char *llog_levels_error(void);

/*
 * Writes the levels in force, in canonical form ("INFO,db.pool=TRACE"),
 * into buf (cap bytes, NUL-terminated, cut when too small). Returns its
 * length, or -ENOSPC when it was cut. Thread-safe; takes a lock.
 */
LLOG_EXPORT int llog_get_levels(char *buf, size_t cap);

/*
 * The level in force for a category name (NULL or "": the default
 * category), after the dotted ancestry. Lock-free, async-signal-safe.
 */
LLOG_EXPORT enum llog_level llog_category_level(const char *category);

/*
 * The generation of the levels in force: 1 at start, one more for each
 * change (llog_set_levels, llog_set_level, a reload, llog_init). Acquire
 * load; lock-free. The number the change records carry.
 */
LLOG_EXPORT uint64_t llog_levels_generation(void);

/*
 * Asks the flusher to read the levels file (llog_config.levels_file) now,
 * at its next round (woken at once). Async-signal-safe: one atomic store
 * and a futex wake; for an application's own signal handler (llog_config
 * .levels_signal installs one that calls it). A no-op without a levels
 * file.
 */
LLOG_EXPORT void llog_levels_reload_request(void);

/*
 * Sets the default level: the level of the default category and of every
 * category without its own (the category levels stay). A new generation,
 * seen as llog_set_levels' (no record is logged). Invalid values are
 * ignored. Thread-safe; takes a lock (not async-signal-safe); no
 * allocation. With the backtrace on, the level a call is compared with is
 * the lower of a category's level and llog_config.backtrace_level
 * ("Backtrace" above).
 */
LLOG_EXPORT void llog_set_level(enum llog_level level);
/* The default level (one relaxed load). */
LLOG_EXPORT enum llog_level llog_get_level(void);

/*-*********************************************************************
 *  Statistics
 ***********************************************************************/

/*
 * Counters since the process started (llog_init and llog_shutdown do not
 * reset them). A record is what a LOG call that passes the level check
 * makes; an entry is what the sinks get: records, and llog's own entries
 * (notices of a thread's drops, of rate-limited calls, of a sink queue's
 * drops; backtrace entries), which no record counter includes.
 *
 * Identities, exact after llog_flush() returned with no concurrent
 * logging, after llog_shutdown(), and in a handler chained after llog's
 * crash report (docs/crash-handling.md):
 *   logged == written + dropped
 *   backtrace_captured == backtrace_written + backtrace_discarded
 *                         + (records the backtrace ring holds)
 *   queue_dropped == the sum of llog_sink_stats.dropped over the sinks
 *   sink_lost >= the sum of llog_sink_stats.undelivered (sinks' own
 *                losses are in it too)
 * Records on their way (pushed, not yet handed out by the flusher) are in
 * none of logged, written, dropped. Each counter is a relaxed atomic: a
 * reader concurrent with logging may see a pair one apart.
 */
struct llog_stats {
	/* Records: written + dropped (both counted in the same step). */
	uint64_t logged;
	/* Records handed to the sinks (by the flusher, its crash drain, or
	 * synchronously to stderr while llog does not run), whatever each
	 * sink then made of them (sink_lost, write_errors). */
	uint64_t written;
	/* Records that never reached the sinks: a full arena under
	 * LLOG_OVERFLOW_DROP, a LOG re-entered from a signal handler, from
	 * a sink's callback or llog's own threads, no memory for an arena;
	 * the output announces those of application threads. */
	uint64_t dropped;
	/* Records (and backtrace entries) whose message llog itself cut to
	 * max_record_bytes, with the " [truncated]" marker: once each, as
	 * every sink gets it; a sink's own further cut is sink_truncated. */
	uint64_t truncated;
	/* Flusher rounds that carried records. */
	uint64_t batches;
	/* Bytes the sinks' commits reported written. */
	uint64_t bytes_written;
	/* Sink calls that failed: writes, commits (a commit retried by a
	 * sink's thread counts once until one succeeds), crash writes. */
	uint64_t write_errors;
	/* Times a thread waited for room in its arena (LLOG_OVERFLOW_BLOCK). */
	uint64_t blocked;
	/* Entries a sink took and gave up on: its own losses (retry bounds,
	 * buffer bounds, unsent at close) and the undelivered entries of the
	 * sinks on threads of their own (llog_sink_stats). */
	uint64_t sink_lost;
	/* Torn file tails cut back by a file sink when it opened them. */
	uint64_t repaired;
	/* Entries dropped by full sink queues: the sum of
	 * llog_sink_stats.dropped over all sinks. */
	uint64_t queue_dropped;
	/* Calls of rate-limited sites (LLOG_LOG_EVERY_N and
	 * friends) suppressed and reported so far: the sum of the counts the
	 * flusher has handed to the sinks (llog_entry.suppressed), shutdown
	 * lines included. Calls suppressed since a site's last report are
	 * not in it yet (they cost no counter on the hot path). */
	uint64_t suppressed;
	/* The backtrace ("Backtrace" above), counted in none of the record
	 * counters:
	 * captured: calls kept for the backtrace (below the output level);
	 * written: handed to the sinks before a trigger or in a crash;
	 * discarded: evicted by newer ones, left at shutdown, or lost on the
	 * way (a full arena under LLOG_OVERFLOW_DROP, re-entry, no flusher:
	 * without a notice in the output). */
	uint64_t backtrace_captured;
	uint64_t backtrace_written;
	uint64_t backtrace_discarded;
	/* The sum of llog_entry.fields_truncated
	 * over the entries llog built (fields left out, string values cut,
	 * context keys refused: docs/fields.md 1, 2), plus 1 for each
	 * llog_ctx_set refused for the limits (-ENOSPC). */
	uint64_t fields_truncated;
	/* Entries a sink cut to a limit of its own (a syslog message's
	 * 16 KiB or its transport's bound, a file frame's content, the
	 * synchronous stderr line): once per sink and entry, also when llog
	 * had cut the message before (truncated). */
	uint64_t sink_truncated;
	/* The record queue's heads since the last llog_init(): 1, or
	 * llog_config.queue_shards's count where the machine's TSC allows it
	 * (0 before the first llog_init). Not a counter. */
	uint64_t queue_heads;
};

/* Fills *out with relaxed snapshots of the counters. Lock-free, no
 * allocation, async-signal-safe (a handler chained after llog's crash
 * report may read them). */
LLOG_EXPORT void llog_get_stats(struct llog_stats *out);

/* Name of a level ("INFO"), or "?" for an invalid value. */
LLOG_EXPORT const char *llog_level_name(enum llog_level level);

/* Describes a negative errno value returned by llog. Never NULL. */
LLOG_EXPORT const char *llog_strerror(int err);

/*-*********************************************************************
 *  Logging
 ***********************************************************************/

/* Calls below this level are removed at compile time. */
#ifndef LLOG_ACTIVE_LEVEL
#define LLOG_ACTIVE_LEVEL LLOG_TRACE
#endif

/*
 * LLOG_LOG(level, fmt, ...) (short name LOG): one statement. fmt must be a
 * string literal. When the level is disabled, or is not a record's level
 * (LLOG_OFF, or outside LLOG_TRACE..LLOG_FATAL: see enum llog_level), the
 * arguments are not evaluated and nothing is logged. The call site is in
 * the file's category (LLOG_CATEGORY, see "Categories and levels"), else
 * in the default category.
 *
 * gcc and clang check the format against the arguments (printf rules).
 * In C11 and C++11 with gcc or clang, a call with up to 8 arguments after
 * the format passes them in typed 8-byte slots rather than through a
 * variadic call (the record holds the same bytes); each argument is
 * evaluated once (a pointer to a variable-length array twice: cast it to
 * void * to log it). Two limits come with it: an argument with a comma
 * outside parentheses (a compound literal: (struct pt){1, 2}.x) must be
 * put in parentheses, and an argument is pasted twice (once unevaluated),
 * so a statement expression that defines a label cannot be one. Define
 * LLOG_NO_TYPED_CALLS before this header to make every call variadic
 * (as before C11 and C++11), which lifts both.
 * In an optimized build for x86-64, such a call writes its record itself,
 * at the call site, and calls into the library only for what is rare (a
 * site's first call, a full ring): about half the instructions of the
 * library's path, for about 350-950 bytes of code per call site instead of
 * 80-210 (bench/README.md, "caller_cost.sh"). Define LLOG_NO_FAST_INLINE
 * before this header to keep one library call per site (the output is the
 * same).
 */
#define LLOG_LOG(level, ...) LLOG__LOG(LLOG__CAT_FILE, level, __VA_ARGS__)

/* LLOG_LOG in category cat (a string literal), whatever the file's. */
#define LLOG_LOG_CAT(level, cat, ...) LLOG__LOG(cat, level, __VA_ARGS__)

/*
 * LLOG_LOG_AT(level, fmt, ...) (short name LOG_AT): LLOG_LOG with a level
 * known only at run time (a variable, a parameter), where LLOG_LOG needs a
 * constant; so a wrapper of one's own can take the level:
 *     static void log_at(enum llog_level lv, const char *what)
 *     {
 *         LOG_AT(lv, "request %s", what);
 *     }
 * level is evaluated once, before the arguments. A call is what
 * LLOG_LOG(level, ...) would be with that level written as a constant:
 * when the level is disabled, the arguments are not evaluated and nothing
 * is logged; the record has that level; level changes at run time
 * (llog_set_level, llog_set_levels), the category's level and the
 * backtrace apply to it; the format is checked by the compiler and the
 * arguments are passed as by LLOG_LOG (typed calls, each evaluated once).
 * At LLOG_FATAL it is LOG_FATAL: it writes its record, waits until the
 * sinks have committed, and aborts ("Process life"). A level outside
 * LLOG_TRACE..LLOG_FATAL (LLOG_OFF, a negative value, a value past
 * LLOG_OFF) is never logged, never counted and never fatal, its arguments
 * unevaluated: LLOG_OFF is a way to say "not this time". Below
 * LLOG_ACTIVE_LEVEL a call is not logged either, but, its level being
 * unknown to the compiler, it is checked at run time (one compare)
 * rather than compiled out.
 * Cost: the statement holds six call sites, one per record level (six
 * struct llog_site statics, 88 bytes each on x86-64); a call costs what a
 * LLOG_LOG of its level costs, plus a compare of the level with the range.
 * (In C++, LLOG_LOG compiles with a variable level too, as its site is
 * a static initialised at its first pass; but then every record of that
 * site has the level of its first call: use LLOG_LOG_AT.)
 */
#define LLOG_LOG_AT(level, ...) LLOG__LOG_AT(LLOG__CAT_FILE, level, __VA_ARGS__)

/* LLOG_LOG_AT in category cat (a string literal), whatever the file's. */
#define LLOG_LOG_AT_CAT(level, cat, ...) LLOG__LOG_AT(cat, level, __VA_ARGS__)

/*-*********************************************************************
 *  Logging with fields
 ***********************************************************************/

/*
 * Structured fields (docs/fields.md 1): LLOG_LOG_KV(level, pairs, fmt, ...)
 * (short LOG_KV) and LLOG_LOG_<LEVEL>_KV(pairs, fmt, ...) (LOG_<LEVEL>_KV),
 * in the file's category. pairs is a parenthesised flat list
 * (key, value, key, value, ...) of 1 to LLOG_FIELDS_MAX pairs:
 *     LOG_INFO_KV(("user", user, "status", status), "request %s done", path);
 * A key is a string literal of 1 to LLOG_FIELD_KEY_MAX bytes (checked at
 * compile time); a value's type picks the field's type (_Generic): signed
 * integers (char included) I64, unsigned U64, float/double F64, _Bool
 * BOOL, char * / const char * STR (a NULL one: NULL, at run time),
 * LLOG_HEX(ptr, len) a buffer's bytes in hex (STR, LLOG_FIELD_HEX). Any
 * other type does not compile, with one error that names these types
 * ("llog: a field's value must be ..."); nor does an odd count or more
 * than LLOG_FIELDS_MAX pairs. Keys and types are the call site's static data; below the
 * level neither the arguments nor the values are evaluated. A call copies
 * the values into the thread's arena with its arguments (strings cut to
 * LLOG_FIELD_STR_MAX bytes at a UTF-8 boundary, flagged
 * LLOG_FIELD_TRUNCATED): lock-free and malloc-free as any LOG.
 *
 * C++ (C++11 and later) takes the same calls, with the types mapped by
 * templates instead of _Generic: bool BOOL, every integer type of at most
 * 64 bits (wchar_t, char16_t, char32_t, an unscoped enum by its
 * underlying type) I64 or U64 by its signedness, char arrays and string
 * literals STR; anything else (std::string: write s.c_str(), a scoped
 * enum, void *, nullptr, long double) fails one static_assert with the
 * same message. NULL is an integer in C++ (I64 0; g++ warns,
 * -Wconversion-null): write (const char *)nullptr for a NULL string. Keys and types are constexpr
 * statics, constant-initialised (no guard, no lock at the first call).
 */
#define LLOG_LOG_KV(level, pairs, ...) LLOG__LOG_KV(LLOG__CAT_FILE, level, pairs, __VA_ARGS__)
#define LLOG_LOG_TRACE_KV(pairs, ...) LLOG_LOG_KV(LLOG_TRACE, pairs, __VA_ARGS__)
#define LLOG_LOG_DEBUG_KV(pairs, ...) LLOG_LOG_KV(LLOG_DEBUG, pairs, __VA_ARGS__)
#define LLOG_LOG_INFO_KV(pairs, ...) LLOG_LOG_KV(LLOG_INFO, pairs, __VA_ARGS__)
#define LLOG_LOG_WARN_KV(pairs, ...) LLOG_LOG_KV(LLOG_WARN, pairs, __VA_ARGS__)
#define LLOG_LOG_ERROR_KV(pairs, ...) LLOG_LOG_KV(LLOG_ERROR, pairs, __VA_ARGS__)
#define LLOG_LOG_FATAL_KV(pairs, ...) LLOG_LOG_KV(LLOG_FATAL, pairs, __VA_ARGS__)

/*-*********************************************************************
 *  Context
 ***********************************************************************/

/*
 * Context (docs/fields.md 2): fields the calling thread attaches to every
 * record it logs from now on (context first, in the order its keys were
 * first set, then the call's own fields; a call's field of the same key
 * wins). At most LLOG_CTX_KEYS keys and LLOG_CTX_BYTES bytes of keys and
 * string values per thread; key rules as for fields (1..LLOG_FIELD_KEY_MAX
 * bytes, checked at run time here), a string value cut as a field's is.
 *
 * A change travels to the flusher as a control record in the thread's own
 * record stream (as llog_set_thread_name), so every record logged before
 * the call carries the old context and every one after it the new one. A
 * change that cannot be pushed (a full ring under LLOG_OVERFLOW_DROP) is
 * sent again before the thread's next record; if that fails too, the
 * record is dropped and counted (never written with a stale context). A
 * thread's context dies with it; a fork child's thread keeps its own.
 *
 * Thread-safe (the calling thread's context only); not async-signal-safe
 * (the LOG calls of a signal handler do carry the context). No lock, no
 * malloc beyond the thread's first-LOG arena. llog's own threads (the
 * flusher, a sink's thread) have no context (calls return 0, no effect).
 * Return 0; -EINVAL for a NULL key or one of a bad length; -ENOSPC when
 * the key is new and the context already holds LLOG_CTX_KEYS keys, or the
 * bytes would pass LLOG_CTX_BYTES: nothing changes, and each such refusal
 * is counted (llog_stats.fields_truncated, and every later record of the
 * thread reports it in llog_entry.fields_truncated until llog_ctx_clear());
 * -ENOMEM when the thread has no arena.
 */
#define LLOG_CTX_KEYS 16
#define LLOG_CTX_BYTES 2048
LLOG_EXPORT int llog_ctx_set_i64(const char *key, int64_t v);
LLOG_EXPORT int llog_ctx_set_u64(const char *key, uint64_t v);
LLOG_EXPORT int llog_ctx_set_f64(const char *key, double v);
LLOG_EXPORT int llog_ctx_set_bool(const char *key, int v);
/* v copied; NULL: a NULL field. */
LLOG_EXPORT int llog_ctx_set_str(const char *key, const char *v);
/* The len bytes at p as hex digits (LLOG_HEX: at most LLOG_HEX_MAX bytes,
 * made into digits here); p NULL: a NULL field. */
LLOG_EXPORT int llog_ctx_set_hex(const char *key, const void *p, size_t len);
/* Removes key (0; -ENOENT when it is not set). */
LLOG_EXPORT int llog_ctx_remove(const char *key);
/* Removes every key (and the count of refused keys). Returns 0. */
LLOG_EXPORT int llog_ctx_clear(void);

/* The typed setter for v's type, as for fields. In C++, a function
 * template of that name (llog/detail.h) over the same types, refusing the
 * others with the same message. */
#ifndef __cplusplus
#define llog_ctx_set(key, v)                                                  \
	_Generic((v),                                                         \
		char: llog_ctx_set_i64, signed char: llog_ctx_set_i64,        \
		short: llog_ctx_set_i64, int: llog_ctx_set_i64, long: llog_ctx_set_i64, \
		long long: llog_ctx_set_i64,                                  \
		unsigned char: llog_ctx_set_u64, unsigned short: llog_ctx_set_u64, \
		unsigned int: llog_ctx_set_u64, unsigned long: llog_ctx_set_u64, \
		unsigned long long: llog_ctx_set_u64,                         \
		float: llog_ctx_set_f64, double: llog_ctx_set_f64,            \
		_Bool: llog_ctx_set_bool,                                     \
		char *: llog_ctx_set_str, const char *: llog_ctx_set_str,    \
		struct llog_hex *: llog__ctx_set_hexv,                        \
		const struct llog_hex *: llog__ctx_set_hexv,                  \
		default: llog_ctx_set_i64)(                                   \
		(LLOG__KV_TYPE_CHECK_EXPR(v), key), LLOG__KV_SAFE(v))
#endif

/*
 * LLOG_CTX_SCOPE(key, value): sets key to value (llog_ctx_set) until the
 * enclosing block is left (by any path: __attribute__((cleanup)); in
 * C++ a destructor, so an exception leaving the block restores it too),
 * then puts back the value key had before, or removes it. One per line.
 */
#define LLOG_CTX_SCOPE(key, value) LLOG__CTX_SCOPE(key, value)

/*-*********************************************************************
 *  Rate-limited logging
 ***********************************************************************/

/*
 * Rate-limited logging: LLOG_LOG_EVERY_N and friends (short names
 * LOG_EVERY_N ...; the per-level forms LLOG_LOG_INFO_EVERY_N(n, fmt, ...)
 * and so on are listed under "Names of the logging macros" below).
 *
 *   LLOG_LOG_FIRST_N(level, n, fmt, ...)       the first n calls, then none
 *   LLOG_LOG_EVERY_N(level, n, fmt, ...)       calls 1, n+1, 2n+1, ...
 *   LLOG_LOG_EVERY_MS(level, ms, fmt, ...)     at most one per ms milliseconds
 *   LLOG_LOG_N_PER_MS(level, n, ms, fmt, ...)  at most n per window of ms
 *                                              milliseconds
 *
 * Each statement is one call site with one limit, shared by every thread
 * (one word of state per site, no per-thread state: 8 threads through an
 * EVERY_N(1000) site emit one record per 1000 calls in all, not per
 * thread). The level is checked first, exactly as LLOG_LOG does: a call
 * below the level costs what it costs there and touches no rate-limit
 * state. n and ms are evaluated after the level check, at every call
 * (give each site constants); n == 0 emits nothing under FIRST_N and
 * N_PER_MS, everything under EVERY_N (as n == 1).
 *
 * Cost of a suppressed call: one atomic read-modify-write on the site's
 * word (FIRST_N, EVERY_N: a fetch_add inline in the caller; EVERY_MS,
 * N_PER_MS: a call into llog, a read of the TSC, a load and, when the
 * interval has not passed, a fetch_add on the site's count of suppressed
 * calls); the message's arguments are not evaluated. No lock, no system
 * call, no allocation; async-signal-safe as LLOG_LOG is. A call that is
 * emitted costs an ordinary LOG plus that atomic (and, for the interval
 * kinds, a successful compare-and-swap and an exchange of the count).
 *
 * What is reported: each emitted record carries the number of calls of
 * its site suppressed since the site's previous record
 * (struct llog_entry.suppressed, llog/sinks.h): text lines end with
 * " [N suppressed]", JSON has the member "suppressed":N, RFC 5424 syslog
 * the SD-PARAM suppressed="N" of [llog@32473], journald the field
 * LLOG_SUPPRESSED=N (none of these when N is 0); llog_stats.suppressed
 * adds them up. The sum of the counts is exact under any concurrency;
 * under the interval kinds a call that races with an emitting one may be
 * counted in the next record instead (never lost, never twice). Calls
 * still unreported when llog_shutdown() runs (the rest of a FIRST_N site,
 * the tail of an EVERY_N or interval site) get one line per site in the
 * final round: the site's file, line, function and level, the message
 * "llog: records suppressed by the rate limit since the last record"
 * and the count. Sites find their way there through a registry that
 * a site joins, lock-free, at its first suppressed call; dlclose() of a
 * library removes its sites (their unreported counts are dropped, not
 * shown). Not shown: the count of a record written synchronously to
 * stderr while llog is not running. After a new llog_init(), the next
 * record of an EVERY_N site reports n - 1 as always, which may include
 * calls its shutdown line already reported.
 *
 * Intervals are measured on llog's record clock (the TSC where it is
 * invariant, calibrated once and lengthened by 1% so that an interval is
 * never shorter than the wall-clock one; CLOCK_REALTIME otherwise; the
 * calibration needs 20 ms since the program started: an interval site's
 * first call earlier than that waits for the rest, once), and
 * an emitted record's timestamp is the time at which the limiter let it
 * through: under EVERY_MS the timestamps of a site's records are at least
 * ms apart; under N_PER_MS a window opens at the first call after the
 * previous window closed (ms after it opened) and holds at most n
 * records (as the Linux kernel's printk ratelimit: a span of ms that
 * straddles two windows may hold up to 2n). n is at most 65535 under
 * N_PER_MS (larger is taken as 65535).
 */
#define LLOG_LOG_FIRST_N(level, n, ...) LLOG__LOG_RL(LLOG__RL_FIRST_N, n, 0, level, __VA_ARGS__)
#define LLOG_LOG_EVERY_N(level, n, ...) LLOG__LOG_RL(LLOG__RL_EVERY_N, n, 0, level, __VA_ARGS__)
#define LLOG_LOG_EVERY_MS(level, ms, ...) LLOG__LOG_RL(LLOG__RL_EVERY_MS, 1, ms, level, __VA_ARGS__)
#define LLOG_LOG_N_PER_MS(level, n, ms, ...)                                  \
	LLOG__LOG_RL(LLOG__RL_N_PER_MS, n, ms, level, __VA_ARGS__)

/*-*********************************************************************
 *  Names of the logging macros
 ***********************************************************************/

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
 *   LLOG_LOG_AT(level, fmt, ...)                LOG_AT(...), level a variable
 *   LLOG_LOG_CAT(level, cat, fmt, ...)          LOG_CAT(...)
 *   LLOG_LOG_AT_CAT(level, cat, fmt, ...)       LOG_AT_CAT(...)
 *   LLOG_LOG_INFO_CAT(cat, fmt, ...)            LOG_INFO_CAT(...)
 *   and LLOG_LOG_<LEVEL>_CAT for the six levels (LOG_<LEVEL>_CAT)
 *   LLOG_LOG_KV(level, pairs, fmt, ...)         LOG_KV(...)
 *   LLOG_LOG_INFO_KV(pairs, fmt, ...)           LOG_INFO_KV(...)
 *   and LLOG_LOG_<LEVEL>_KV for the six levels (LOG_<LEVEL>_KV)
 *   LLOG_LOG_EVERY_N(level, n, fmt, ...)        LOG_EVERY_N(...)
 *   LLOG_LOG_FIRST_N(level, n, fmt, ...)        LOG_FIRST_N(...)
 *   LLOG_LOG_EVERY_MS(level, ms, fmt, ...)      LOG_EVERY_MS(...)
 *   LLOG_LOG_N_PER_MS(level, n, ms, fmt, ...)   LOG_N_PER_MS(...)
 *   LLOG_LOG_INFO_EVERY_N(n, fmt, ...)          LOG_INFO_EVERY_N(...)
 *   and so on: LLOG_LOG_<LEVEL>_<LIMIT> for the six levels and the four
 *   limits (LOG_<LEVEL>_<LIMIT>). The limit comes after the level, as
 *   the level comes first in LLOG_LOG_EVERY_N(level, ...): a grep for
 *   LOG_INFO finds every INFO call, limited or not.
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

/* In a category of its own (see "Categories"), for each level. */
#define LLOG_LOG_TRACE_CAT(cat, ...) LLOG_LOG_CAT(LLOG_TRACE, cat, __VA_ARGS__)
#define LLOG_LOG_DEBUG_CAT(cat, ...) LLOG_LOG_CAT(LLOG_DEBUG, cat, __VA_ARGS__)
#define LLOG_LOG_INFO_CAT(cat, ...) LLOG_LOG_CAT(LLOG_INFO, cat, __VA_ARGS__)
#define LLOG_LOG_WARN_CAT(cat, ...) LLOG_LOG_CAT(LLOG_WARN, cat, __VA_ARGS__)
#define LLOG_LOG_ERROR_CAT(cat, ...) LLOG_LOG_CAT(LLOG_ERROR, cat, __VA_ARGS__)
#define LLOG_LOG_FATAL_CAT(cat, ...) LLOG_LOG_CAT(LLOG_FATAL, cat, __VA_ARGS__)

/* The rate-limited forms, for each level (see LLOG_LOG_EVERY_N above). */
#define LLOG_LOG_TRACE_FIRST_N(n, ...) LLOG_LOG_FIRST_N(LLOG_TRACE, n, __VA_ARGS__)
#define LLOG_LOG_TRACE_EVERY_N(n, ...) LLOG_LOG_EVERY_N(LLOG_TRACE, n, __VA_ARGS__)
#define LLOG_LOG_TRACE_EVERY_MS(ms, ...) LLOG_LOG_EVERY_MS(LLOG_TRACE, ms, __VA_ARGS__)
#define LLOG_LOG_TRACE_N_PER_MS(n, ms, ...) LLOG_LOG_N_PER_MS(LLOG_TRACE, n, ms, __VA_ARGS__)
#define LLOG_LOG_DEBUG_FIRST_N(n, ...) LLOG_LOG_FIRST_N(LLOG_DEBUG, n, __VA_ARGS__)
#define LLOG_LOG_DEBUG_EVERY_N(n, ...) LLOG_LOG_EVERY_N(LLOG_DEBUG, n, __VA_ARGS__)
#define LLOG_LOG_DEBUG_EVERY_MS(ms, ...) LLOG_LOG_EVERY_MS(LLOG_DEBUG, ms, __VA_ARGS__)
#define LLOG_LOG_DEBUG_N_PER_MS(n, ms, ...) LLOG_LOG_N_PER_MS(LLOG_DEBUG, n, ms, __VA_ARGS__)
#define LLOG_LOG_INFO_FIRST_N(n, ...) LLOG_LOG_FIRST_N(LLOG_INFO, n, __VA_ARGS__)
#define LLOG_LOG_INFO_EVERY_N(n, ...) LLOG_LOG_EVERY_N(LLOG_INFO, n, __VA_ARGS__)
#define LLOG_LOG_INFO_EVERY_MS(ms, ...) LLOG_LOG_EVERY_MS(LLOG_INFO, ms, __VA_ARGS__)
#define LLOG_LOG_INFO_N_PER_MS(n, ms, ...) LLOG_LOG_N_PER_MS(LLOG_INFO, n, ms, __VA_ARGS__)
#define LLOG_LOG_WARN_FIRST_N(n, ...) LLOG_LOG_FIRST_N(LLOG_WARN, n, __VA_ARGS__)
#define LLOG_LOG_WARN_EVERY_N(n, ...) LLOG_LOG_EVERY_N(LLOG_WARN, n, __VA_ARGS__)
#define LLOG_LOG_WARN_EVERY_MS(ms, ...) LLOG_LOG_EVERY_MS(LLOG_WARN, ms, __VA_ARGS__)
#define LLOG_LOG_WARN_N_PER_MS(n, ms, ...) LLOG_LOG_N_PER_MS(LLOG_WARN, n, ms, __VA_ARGS__)
#define LLOG_LOG_ERROR_FIRST_N(n, ...) LLOG_LOG_FIRST_N(LLOG_ERROR, n, __VA_ARGS__)
#define LLOG_LOG_ERROR_EVERY_N(n, ...) LLOG_LOG_EVERY_N(LLOG_ERROR, n, __VA_ARGS__)
#define LLOG_LOG_ERROR_EVERY_MS(ms, ...) LLOG_LOG_EVERY_MS(LLOG_ERROR, ms, __VA_ARGS__)
#define LLOG_LOG_ERROR_N_PER_MS(n, ms, ...) LLOG_LOG_N_PER_MS(LLOG_ERROR, n, ms, __VA_ARGS__)
#define LLOG_LOG_FATAL_FIRST_N(n, ...) LLOG_LOG_FIRST_N(LLOG_FATAL, n, __VA_ARGS__)
#define LLOG_LOG_FATAL_EVERY_N(n, ...) LLOG_LOG_EVERY_N(LLOG_FATAL, n, __VA_ARGS__)
#define LLOG_LOG_FATAL_EVERY_MS(ms, ...) LLOG_LOG_EVERY_MS(LLOG_FATAL, ms, __VA_ARGS__)
#define LLOG_LOG_FATAL_N_PER_MS(n, ms, ...) LLOG_LOG_N_PER_MS(LLOG_FATAL, n, ms, __VA_ARGS__)

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
#ifndef LOG_KV
#define LOG_KV(level, pairs, ...) LLOG_LOG_KV(level, pairs, __VA_ARGS__)
#endif
#ifndef LOG_TRACE_KV
#define LOG_TRACE_KV(pairs, ...) LLOG_LOG_TRACE_KV(pairs, __VA_ARGS__)
#endif
#ifndef LOG_DEBUG_KV
#define LOG_DEBUG_KV(pairs, ...) LLOG_LOG_DEBUG_KV(pairs, __VA_ARGS__)
#endif
#ifndef LOG_INFO_KV
#define LOG_INFO_KV(pairs, ...) LLOG_LOG_INFO_KV(pairs, __VA_ARGS__)
#endif
#ifndef LOG_WARN_KV
#define LOG_WARN_KV(pairs, ...) LLOG_LOG_WARN_KV(pairs, __VA_ARGS__)
#endif
#ifndef LOG_ERROR_KV
#define LOG_ERROR_KV(pairs, ...) LLOG_LOG_ERROR_KV(pairs, __VA_ARGS__)
#endif
#ifndef LOG_FATAL_KV
#define LOG_FATAL_KV(pairs, ...) LLOG_LOG_FATAL_KV(pairs, __VA_ARGS__)
#endif
#ifndef LOG_CAT
#define LOG_CAT(level, cat, ...) LLOG_LOG_CAT(level, cat, __VA_ARGS__)
#endif
#ifndef LOG_AT
#define LOG_AT(level, ...) LLOG_LOG_AT(level, __VA_ARGS__)
#endif
#ifndef LOG_AT_CAT
#define LOG_AT_CAT(level, cat, ...) LLOG_LOG_AT_CAT(level, cat, __VA_ARGS__)
#endif
#ifndef LOG_TRACE_CAT
#define LOG_TRACE_CAT(cat, ...) LLOG_LOG_TRACE_CAT(cat, __VA_ARGS__)
#endif
#ifndef LOG_DEBUG_CAT
#define LOG_DEBUG_CAT(cat, ...) LLOG_LOG_DEBUG_CAT(cat, __VA_ARGS__)
#endif
#ifndef LOG_INFO_CAT
#define LOG_INFO_CAT(cat, ...) LLOG_LOG_INFO_CAT(cat, __VA_ARGS__)
#endif
#ifndef LOG_WARN_CAT
#define LOG_WARN_CAT(cat, ...) LLOG_LOG_WARN_CAT(cat, __VA_ARGS__)
#endif
#ifndef LOG_ERROR_CAT
#define LOG_ERROR_CAT(cat, ...) LLOG_LOG_ERROR_CAT(cat, __VA_ARGS__)
#endif
#ifndef LOG_FATAL_CAT
#define LOG_FATAL_CAT(cat, ...) LLOG_LOG_FATAL_CAT(cat, __VA_ARGS__)
#endif
#ifndef LOG_FIRST_N
#define LOG_FIRST_N(level, n, ...) LLOG_LOG_FIRST_N(level, n, __VA_ARGS__)
#endif
#ifndef LOG_EVERY_N
#define LOG_EVERY_N(level, n, ...) LLOG_LOG_EVERY_N(level, n, __VA_ARGS__)
#endif
#ifndef LOG_EVERY_MS
#define LOG_EVERY_MS(level, ms, ...) LLOG_LOG_EVERY_MS(level, ms, __VA_ARGS__)
#endif
#ifndef LOG_N_PER_MS
#define LOG_N_PER_MS(level, n, ms, ...) LLOG_LOG_N_PER_MS(level, n, ms, __VA_ARGS__)
#endif
#ifndef LOG_TRACE_FIRST_N
#define LOG_TRACE_FIRST_N(n, ...) LLOG_LOG_TRACE_FIRST_N(n, __VA_ARGS__)
#endif
#ifndef LOG_TRACE_EVERY_N
#define LOG_TRACE_EVERY_N(n, ...) LLOG_LOG_TRACE_EVERY_N(n, __VA_ARGS__)
#endif
#ifndef LOG_TRACE_EVERY_MS
#define LOG_TRACE_EVERY_MS(ms, ...) LLOG_LOG_TRACE_EVERY_MS(ms, __VA_ARGS__)
#endif
#ifndef LOG_TRACE_N_PER_MS
#define LOG_TRACE_N_PER_MS(n, ms, ...) LLOG_LOG_TRACE_N_PER_MS(n, ms, __VA_ARGS__)
#endif
#ifndef LOG_DEBUG_FIRST_N
#define LOG_DEBUG_FIRST_N(n, ...) LLOG_LOG_DEBUG_FIRST_N(n, __VA_ARGS__)
#endif
#ifndef LOG_DEBUG_EVERY_N
#define LOG_DEBUG_EVERY_N(n, ...) LLOG_LOG_DEBUG_EVERY_N(n, __VA_ARGS__)
#endif
#ifndef LOG_DEBUG_EVERY_MS
#define LOG_DEBUG_EVERY_MS(ms, ...) LLOG_LOG_DEBUG_EVERY_MS(ms, __VA_ARGS__)
#endif
#ifndef LOG_DEBUG_N_PER_MS
#define LOG_DEBUG_N_PER_MS(n, ms, ...) LLOG_LOG_DEBUG_N_PER_MS(n, ms, __VA_ARGS__)
#endif
#ifndef LOG_INFO_FIRST_N
#define LOG_INFO_FIRST_N(n, ...) LLOG_LOG_INFO_FIRST_N(n, __VA_ARGS__)
#endif
#ifndef LOG_INFO_EVERY_N
#define LOG_INFO_EVERY_N(n, ...) LLOG_LOG_INFO_EVERY_N(n, __VA_ARGS__)
#endif
#ifndef LOG_INFO_EVERY_MS
#define LOG_INFO_EVERY_MS(ms, ...) LLOG_LOG_INFO_EVERY_MS(ms, __VA_ARGS__)
#endif
#ifndef LOG_INFO_N_PER_MS
#define LOG_INFO_N_PER_MS(n, ms, ...) LLOG_LOG_INFO_N_PER_MS(n, ms, __VA_ARGS__)
#endif
#ifndef LOG_WARN_FIRST_N
#define LOG_WARN_FIRST_N(n, ...) LLOG_LOG_WARN_FIRST_N(n, __VA_ARGS__)
#endif
#ifndef LOG_WARN_EVERY_N
#define LOG_WARN_EVERY_N(n, ...) LLOG_LOG_WARN_EVERY_N(n, __VA_ARGS__)
#endif
#ifndef LOG_WARN_EVERY_MS
#define LOG_WARN_EVERY_MS(ms, ...) LLOG_LOG_WARN_EVERY_MS(ms, __VA_ARGS__)
#endif
#ifndef LOG_WARN_N_PER_MS
#define LOG_WARN_N_PER_MS(n, ms, ...) LLOG_LOG_WARN_N_PER_MS(n, ms, __VA_ARGS__)
#endif
#ifndef LOG_ERROR_FIRST_N
#define LOG_ERROR_FIRST_N(n, ...) LLOG_LOG_ERROR_FIRST_N(n, __VA_ARGS__)
#endif
#ifndef LOG_ERROR_EVERY_N
#define LOG_ERROR_EVERY_N(n, ...) LLOG_LOG_ERROR_EVERY_N(n, __VA_ARGS__)
#endif
#ifndef LOG_ERROR_EVERY_MS
#define LOG_ERROR_EVERY_MS(ms, ...) LLOG_LOG_ERROR_EVERY_MS(ms, __VA_ARGS__)
#endif
#ifndef LOG_ERROR_N_PER_MS
#define LOG_ERROR_N_PER_MS(n, ms, ...) LLOG_LOG_ERROR_N_PER_MS(n, ms, __VA_ARGS__)
#endif
#ifndef LOG_FATAL_FIRST_N
#define LOG_FATAL_FIRST_N(n, ...) LLOG_LOG_FATAL_FIRST_N(n, __VA_ARGS__)
#endif
#ifndef LOG_FATAL_EVERY_N
#define LOG_FATAL_EVERY_N(n, ...) LLOG_LOG_FATAL_EVERY_N(n, __VA_ARGS__)
#endif
#ifndef LOG_FATAL_EVERY_MS
#define LOG_FATAL_EVERY_MS(ms, ...) LLOG_LOG_FATAL_EVERY_MS(ms, __VA_ARGS__)
#endif
#ifndef LOG_FATAL_N_PER_MS
#define LOG_FATAL_N_PER_MS(n, ms, ...) LLOG_LOG_FATAL_N_PER_MS(n, ms, __VA_ARGS__)
#endif
#endif /* LLOG_NO_SHORT_NAMES */

/*-*********************************************************************
 *  Machinery (not API)
 ***********************************************************************/

/* What the macros above expand to; not API (see its opening comment). */
#include "llog/detail.h"

#ifdef __cplusplus
}
#endif

#endif /* LLOG_H */
