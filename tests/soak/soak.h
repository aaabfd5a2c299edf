/*
 * soak.h - what the soak service's files share (tests/soak/README.md):
 * the sink wrapper that attributes llog_stats.sink_lost to each sink
 * (soak_tag.c), the reader of the records in llog's files and in the
 * console's output (soak_read.c) and the checks at the end (soak_check.c).
 *
 * Not thread-safe unless stated.
 */
#ifndef LLOG_SOAK_H
#define LLOG_SOAK_H

#include <stdint.h>

#include <llog/sinks.h>

/* The most worker threads the service runs. */
#define SOAK_MAX_THREADS 64

/* ---- soak_tag.c: sink_lost per sink ------------------------------------- */

/*
 * The sinks whose losses are told apart. llog counts what a sink gives up
 * on (llog_stats.sink_lost) in one counter for all of them; the service is
 * linked with -Wl,--wrap=llog__stats_count_sink_lost, and each sink is
 * wrapped by soak_tag_sink(), which names the sink on its thread for the
 * length of each call, so every count made inside a sink's call is also
 * added to that sink's own counter here. A count made outside any sink's
 * call (llog's queues' undelivered entries at shutdown) goes to
 * SOAK_TAG_NONE.
 */
enum soak_tag {
	SOAK_TAG_FILE = 0,
	SOAK_TAG_CONSOLE = 1,
	SOAK_TAG_SYSLOG = 2,
	SOAK_TAG_JOURNALD = 3,
	SOAK_TAG_NONE = 4,
	SOAK_NTAGS = 5
};

/* What a wrapped sink has seen: the entries handed to its write (and,
 * for the records of the soak's workers, which ones, in order). Written by
 * the sink's own calls only (one at a time, llog/sinks.h); read once llog
 * is shut down. */
struct soak_seen {
	uint64_t entries;			/* write calls */
	uint64_t records[SOAK_MAX_THREADS];	/* worker records per thread */
	int64_t last[SOAK_MAX_THREADS];		/* the last sequence number seen, -1 */
	uint64_t disorder;			/* worker records out of order or twice */
	uint64_t child_records;			/* "soak c=" records (a fork child's) */
	int64_t child_last;
	uint64_t last_entry_seq;		/* llog_entry.seq of the last write */
	uint64_t seq_disorder;			/* entries whose seq did not increase */
};

/* Wraps inner (which the wrapper then owns: closing the wrapper closes
 * it) so that its losses count under tag and what it is handed is
 * recorded in *seen (may be NULL). The ops (version, flags, crash entry
 * points) are inner's: the sink runs where inner would. NULL when inner is
 * NULL or on ENOMEM. */
struct llog_sink *soak_tag_sink(struct llog_sink *inner, enum soak_tag tag,
				struct soak_seen *seen);

/* The records counted under tag so far. Thread-safe. */
uint64_t soak_tag_lost(enum soak_tag tag);

/* A tag's name ("file", ...). */
const char *soak_tag_name(enum soak_tag tag);

/* ---- soak_read.c: the records in the outputs --------------------------- */

/* What a set of outputs holds, read in order. */
struct soak_found {
	uint64_t lines;				/* every line */
	uint64_t records[SOAK_MAX_THREADS];	/* "soak w=T s=S" per thread */
	int64_t last[SOAK_MAX_THREADS];		/* the last S per thread, -1 */
	uint64_t disorder;			/* records out of order or twice */
	uint64_t child_records;			/* "soak c=PID s=S" of child */
	int64_t child_last;
	uint64_t foreign;			/* "soak" records of another child */
	uint64_t bad_lines;			/* a marker that does not parse */
	uint64_t levels_changed;		/* "llog: levels changed" records */
	uint64_t levels_refused;		/* "llog: levels file ..." errors */
	char first_error[256];			/* the first problem, "" if none */
};

/* Empties *f (lines 0, every last -1). */
void soak_found_init(struct soak_found *f);

/* Reads a file of zstd frames (a file sink's output: skippable metadata
 * frames and data frames) and counts its lines into *f, child the pid
 * whose "soak c=" records are expected (0: none). 0, or -1 with the reason
 * in f->first_error (a frame that does not decode: a torn or corrupt
 * file). */
int soak_read_zst(const char *path, long child, struct soak_found *f);

/* The same for a file of plain lines (the console's output). */
int soak_read_plain(const char *path, long child, struct soak_found *f);

/* Parses one entry's message for the worker's marker: 1 and *t, *s for
 * "soak w=T s=S ...", 2 and *s (and the pid in *t) for "soak c=PID s=S",
 * 0 otherwise. msg need not be NUL-terminated. */
int soak_parse(const char *msg, size_t len, long *t, int64_t *s);

/* ---- soak_check.c: the checks at the end ------------------------------- */

/* A sink on a thread of its own, as the checks see it. */
struct soak_sink_view {
	const char *name;
	struct llog_sink *sink; /* the wrapper llog owns (compared only, after shutdown) */
	enum soak_tag tag;
	struct llog_sink_stats pre;  /* after the last llog_flush(), before shutdown */
	struct llog_sink_stats post; /* after llog_shutdown(), when readable */
	int has_post;
};

/* What the file sink of a run was given, and where its files are. */
struct soak_file_run {
	const char *archive;		/* the rotated files, moved here */
	const char *current;		/* the file sink's path */
	int threads;
	const uint64_t *calls;		/* LOG calls made, per thread */
	const struct soak_seen *seen;	/* what its wrapper handed it */
};

/* Prints "VIOLATION: ..." on stdout and counts it. */
void soak_violation(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The violations so far. */
int soak_violations(void);

/* The counter identities (llog.h "Statistics", sinks.h llog_sink_stats),
 * st read after llog_shutdown(), v the sinks on threads of their own. */
void soak_check_counters(const struct llog_stats *st, const struct soak_sink_view *v, int n);

/* Reads the run's files into *f and checks them against the counters;
 * returns the worker records missing from them. */
uint64_t soak_check_file(const struct llog_stats *st, const struct soak_file_run *r,
			 struct soak_found *f);

/* Checks the console's output (a file of its lines); 0, or 1 on a
 * violation. */
int soak_check_console(const char *path);

#endif
