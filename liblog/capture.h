/*
 * capture.h - a record as captured, beside the entry that renders it, for
 * the sinks that store the capture instead of the message (internal).
 *
 * DESIGN
 * The binary file sink (backends/file_bin.c) stores a record's call site
 * and its argument bytes as the producer captured them (fmt.h), and
 * formats nothing. The sink interface hands sinks a struct llog_entry; the
 * capture travels beside it, in a thread-local slot that names the entry
 * it belongs to:
 *
 *   llog__capture_of(e) != NULL  <=>  e is the entry the renderer of this
 *                                     thread built last from a LOG record,
 *                                     and it is still being handed out
 *
 * The renderer (render.c) sets the slot when it builds an entry from a LOG
 * record and clears it for every other entry it builds; the flusher clears
 * it once the entry was handed to the sinks. So an entry made anywhere
 * else (a rate-limit line, a caller's own entry) never matches, whatever
 * its fields hold, and public struct llog_entry keeps its layout: no field
 * a sink compiled elsewhere might leave uninitialised is ever read.
 *
 * A sink on a thread of its own that declares LLOG__SINK_F_RAW gets the
 * capture too: its queue's item carries a copy (the format's text, the
 * plan, the argument bytes; sinkq.c), and its worker notes that copy in
 * its own thread's slot beside the entry it rebuilt from the item
 * (sinkq_worker.c), for the one write call. So nothing in a capture is
 * read through the call site but its address, an identity compared along
 * with gen: the site's format, file, function, line and level are the
 * capture's fmt and the entry's fields.
 *
 * The flusher skips rendering a LOG record's message when every sink that
 * gets it declares LLOG__SINK_F_RAW (sink.h), on the flusher or on a thread
 * of its own: the entry's msg is then NULL (msg_len 0) and the capture is
 * the record. When every sink runs on the flusher and declares
 * LLOG__SINK_F_DIRECT, it builds no entry at all: each gets a struct
 * llog__capture_rec (below; the slot is not used), or, where every sink
 * also has write_run, many of them at once (struct llog__capture_run).
 * Thread-local, so no ordering: the slot is written and read by one thread
 * (the flusher, its crash handler on the same thread, a synchronous
 * caller, a sink's own thread around its write). Async-signal-safe to read
 * (initial-exec TLS, touched by the flusher before its first round).
 */
#ifndef LLOG_CAPTURE_H
#define LLOG_CAPTURE_H

#include <stddef.h>
#include <stdint.h>

#include "fmt.h"
#include "llog.h"
#include "llog/sinks.h"

/* A sink that stores captures keeps a format of at most
 * LLOG__CAPTURE_FMT_MAX bytes as part of its site's definition, and a
 * message it stores as text (a capture it cannot store) cut at
 * LLOG__CAPTURE_TEXT_MAX bytes, marker included: the binary file sink
 * (file_bin.c), and the queue of such a sink on a thread of its own
 * (sinkq.c), which hands it the same. */
#define LLOG__CAPTURE_FMT_MAX 16384u
#define LLOG__CAPTURE_TEXT_MAX (64u << 10)

struct llog__capture {
	const struct llog_entry *entry; /* the entry this is the capture of */
	/* The call site: its address only, never read through (a queued
	 * copy may outlive the library that held it); with gen, the site's
	 * identity: the same address in another generation may be another
	 * library's site (fmt_cache.h, llog__fmt_cache_gen). */
	const struct llog_site *site;
	uint64_t gen;                   /* llog__fmt_cache_gen() when captured */
	const char *fmt;                /* the site's format (file, line, func,
					   level: the entry's) */
	const struct llog__plan *plan;  /* valid while the entry is */
	const void *args;               /* the captured bytes (fmt.h layout) */
	size_t len;
	size_t room;                    /* the renderer's message bound (render.h) */
	int truncated;                  /* the capture was cut (strings clipped) */
};

/*
 * A LOG record handed straight from the arena to a sink that stores
 * captures (the direct path, flusher.c): what of the entry such a sink
 * stores, and nothing rendered. Valid for the one write_rec call
 * (sink.h); on the flusher, so the call site may be read through (its
 * records are handed out before its library goes: llog__dso_fini), but only
 * where a site is met the first time (llog__capture_rec_entry).
 *
 *   (thread, thread_epoch) equal  =>  tid and thread_name equal
 *
 * thread is the record's arena, thread_epoch a process-wide count the
 * flusher moves on at every round and at every record that may change an
 * arena's name or free it (NAME, EXIT), so a sink may skip comparing the
 * name of the thread it wrote last.
 */
struct llog__capture_rec {
	struct llog__capture c;         /* c.entry NULL: no entry */
	int level;                      /* the site's output level */
	/* In a run (below): the records whose site's and thread's fields
	 * this one has; unused elsewhere. */
	uint8_t site_at, thread_at;     /* adjacent: copied together */
	uint64_t tid;
	const char *thread_name;        /* the flusher's copy (arena.h) */
	size_t thread_name_len;         /* at most 15 */
	const void *thread;
	uint64_t thread_epoch;
	uint64_t seq;
	int64_t ts_ns;
	uint64_t suppressed;
};

/*
 * A run: consecutive LOG records of one round, each of them going to every
 * sink of the table, handed to each sink in one call (write_run, sink.h;
 * flusher.c, the direct path). cr[0..n) are the records in output order,
 * valid for the call as a struct llog__capture_rec is, each filled once
 * per record but for what it shares with other records: the fields of its
 * site (c.fmt, c.plan, level) are those of cr[site_at], of its thread
 * (tid, thread_name, thread_name_len) those of cr[thread_at] (the first
 * record of the run's streak of that site or thread), and c.room, c.gen,
 * thread_epoch are the run's (room, gen, thread_epoch; c.entry is NULL):
 * llog__capture_run_full makes the whole record. The sink stores them in
 * that order and, after each record it has taken whole (stored, or
 * counted lost), counts it in taken (llog__capture_run_took).
 *
 * taken says, in one word, which sink the run is being handed to and how
 * many of its records that sink took: LLOG__RUN_SINK(i) + count while
 * sink i has it (the flusher stores LLOG__RUN_SINK(i) before it calls
 * sink i: one store moves the run from one sink to the next), 0 while the
 * run is gathered. The crash drain reads it when the flusher faults
 * (flusher_drain.c, crash_run): the sinks before i took the whole run,
 * sink i its first count records, the sinks after it none; so each sink
 * is given each record it had not taken, once, but the one a sink
 * faulted in, which that sink does not get again.
 *
 * n and taken are volatile, not atomic: written by the flusher thread (n
 * and taken by the flusher, taken counted up in the sink) and read only
 * by the crash handler interrupting that same thread, as the flusher's
 * crash_* fields (flusher_state.h); volatile keeps each store in program
 * order with the other volatile stores around it, and the flusher fences
 * (a signal fence: the compiler's order only) a record's fields before
 * counting it in n.
 */
#define LLOG__RUN_MAX 256
_Static_assert(LLOG__RUN_MAX <= 256, "site_at and thread_at are 8-bit");
#define LLOG__RUN_SINK(i) (((unsigned)(i) + 1u) << 16) /* taken's sink part */
_Static_assert(LLOG__RUN_MAX < 1u << 16, "taken's count part is 16-bit");
struct llog__capture_run {
	volatile unsigned n;            /* records in cr[] */
	volatile unsigned taken;        /* the sink, and what it took (above) */
	size_t room;                    /* of every capture (the flusher's) */
	uint64_t gen;                   /* of every capture (the round's) */
	uint64_t thread_epoch;          /* of every record */
	struct llog__capture_rec cr[LLOG__RUN_MAX];
};

/* The sink's count of one more record of run taken whole. */
static inline void llog__capture_run_took(struct llog__capture_run *run)
{
	run->taken = run->taken + 1;
}

/* cr[k] of run whole (its site's and thread's fields filled in), for a
 * sink's code that reads them. */
static inline void llog__capture_run_full(const struct llog__capture_run *run, unsigned k,
					  struct llog__capture_rec *out)
{
	const struct llog__capture_rec *cr = &run->cr[k];
	const struct llog__capture_rec *s = &run->cr[cr->site_at], *t = &run->cr[cr->thread_at];

	*out = *cr;
	out->c.entry = NULL;
	out->c.room = run->room;
	out->c.gen = run->gen;
	out->thread_epoch = run->thread_epoch;
	out->c.fmt = s->c.fmt;
	out->c.plan = s->c.plan;
	out->level = s->level;
	out->tid = t->tid;
	out->thread_name = t->thread_name;
	out->thread_name_len = t->thread_name_len;
}

/* The entry cr stands for, without a message (msg NULL) or fields: the
 * site's fields read through cr->c.site (render.c). Flusher thread. */
void llog__capture_rec_entry(const struct llog__capture_rec *cr, struct llog_entry *e);

extern __thread struct llog__capture llog__cur_capture
	__attribute__((tls_model("initial-exec")));

/* The capture of e, or NULL (see above). */
static inline const struct llog__capture *llog__capture_of(const struct llog_entry *e)
{
	return e != NULL && llog__cur_capture.entry == e ? &llog__cur_capture : NULL;
}

static inline void llog__capture_clear(void)
{
	llog__cur_capture.entry = NULL;
}

#endif /* LLOG_CAPTURE_H */
