/*
 * backtrace.h - the backtrace (flight recorder): records below the output
 * level kept in a bounded ring and written before a record at the trigger
 * level (internal).
 *
 * DESIGN
 * Two levels decide what a call does (llog.h, "Backtrace"):
 *
 *   capture threshold = min(output level, backtrace level)   (bt off: = output level)
 *   level <  capture threshold                 not called: the macro's check of the
 *                                              site's cached threshold (levels.h)
 *   capture <= level < output level            captured and pushed as any record,
 *                                              flagged LLOG__REC_BACKTRACE
 *   level >= output level                      an ordinary record
 *
 * The output level is the site's category's; each site caches it with its
 * capture threshold, computed in one place, llog__backtrace_threshold, by
 * llog__site_level_refresh (levels.h: both in one word, one generation's).
 * The producer flags a record whose level is below the cached output
 * level (site_bt_kept, producer.c); llog__min_level and llog__backtrace_kept
 * (llog__out_level) do the same for the default level, for sites made by
 * an older llog.h. With the feature
 * off the threshold is the output level, so a call below it costs what it
 * cost before the feature.
 *
 * The ring belongs to the flusher (flusher.c), allocated once when the
 * flusher is made (llog__backtrace_ring_new), never per record. A flagged
 * record is rendered by the flusher and its entry copied into the ring
 * (message, file and function names, thread name: nothing of the arena,
 * the call site or the thread is referenced afterwards, so its bytes are
 * released at once and a dlclose'd library or an exited thread leaves no
 * dangling pointer); the oldest entries are evicted while the ring holds
 * backtrace_records entries or lacks the bytes. When an ordinary record at
 * or above the trigger level is written, the ring's entries are written
 * first, oldest first, with their own timestamps, marked backtrace
 * (llog_entry.backtrace), and the ring is emptied. Counters (stats.h):
 *
 *   bt_captured == bt_written + bt_discarded + held          (after llog_flush)
 *
 * where held (<= backtrace_records) is what the ring holds; a flagged
 * record the producer could not push (no flusher, a full arena under
 * DROP, re-entry) is captured and discarded at once. None of them counts
 * in logged, written or dropped: logged == written + dropped still holds.
 *
 * Ring operations are pure memory work on the flusher's own ring:
 * async-signal-safe (the crash drain on the flusher uses them), not
 * thread-safe (flusher only).
 */
#ifndef LLOG_BACKTRACE_H
#define LLOG_BACKTRACE_H

#include <stddef.h>
#include <stdint.h>

#include "atomic.h"
#include "compiler.h"
#include "llog.h"
#include "llog/sinks.h"

/* The configuration in force (llog__backtrace_apply), read by the flusher it
 * makes. records == 0: off. */
struct llog__backtrace_config {
	size_t records;   /* at most this many entries held */
	size_t bytes;     /* the ring's size */
	int level;        /* lowest level captured (LLOG_OFF: off) */
	int trigger;      /* an ordinary record at or above it writes the ring */
};

/* The output level: records below it are not written (levels.c). */
extern int llog__out_level LLOG__HIDDEN;
/* The backtrace level, LLOG_OFF when the feature is off. */
extern int llog__backtrace_level LLOG__HIDDEN;

/*
 * The capture threshold for an output level: the one value a call site
 * compares its level with (llog__min_level). Relaxed: a configuration
 * change orders nothing; calls see it from their next load on.
 */
static inline int llog__backtrace_threshold(int out_level)
{
	int bt = llog__load_relaxed((_Atomic int *)&llog__backtrace_level);

	return bt < out_level ? bt : out_level;
}

/* The producer's decision for a call that passed the capture threshold:
 * 1 when it is below the output level (kept for the backtrace only).
 * Relaxed: as the macro's load of llog__min_level. */
static inline int llog__backtrace_kept(int level)
{
	return level < llog__load_relaxed((_Atomic int *)&llog__out_level);
}

/* Validates the backtrace fields of c (max_record_bytes already validated
 * as maxrec) into *out. Returns 0 or -EINVAL; changes nothing. */
int llog__backtrace_validate(const struct llog_config *c, size_t maxrec,
			     struct llog__backtrace_config *out);
/* Stores a validated configuration (under the control lock, no flusher
 * running); the caller then sets the output level, which recomputes the
 * threshold. */
void llog__backtrace_apply(const struct llog__backtrace_config *bt);

/* A record the producer flagged and could not push: captured, discarded. */
void llog__backtrace_count_lost(void);

struct llog__backtrace_ring;

/* The ring of the configuration in force, or NULL when the feature is
 * off. *err is -ENOMEM when it is on and there is no memory. Allocates. */
struct llog__backtrace_ring *llog__backtrace_ring_new(int *err);
/* Frees r (NULL: nothing); what it holds is counted discarded. */
void llog__backtrace_ring_free(struct llog__backtrace_ring *r);
/* Copies e (its message, names, fields but seq) into r, evicting the
 * oldest entries as needed (counted discarded). Counted captured. */
void llog__backtrace_keep(struct llog__backtrace_ring *r, const struct llog_entry *e);
/* Whether an ordinary record of `level` writes r first (r not empty). */
int llog__backtrace_triggers(const struct llog__backtrace_ring *r, int level);
/* Hands r's entries to fn, oldest first, each taken out of r before the
 * call (so a crash inside fn never hands it out twice), marked backtrace,
 * with its original time; seq is fn's to set. Counted written. */
void llog__backtrace_emit(struct llog__backtrace_ring *r,
			  void (*fn)(void *ctx, struct llog_entry *e), void *ctx);
/* Empties r, counting its entries discarded. */
void llog__backtrace_clear(struct llog__backtrace_ring *r);
/* Entries r holds. */
size_t llog__backtrace_held(const struct llog__backtrace_ring *r);

#endif /* LLOG_BACKTRACE_H */
