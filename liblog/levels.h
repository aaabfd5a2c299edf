/*
 * levels.h - level names and parsing, the level spec per category and the
 * call sites' level caches (internal).
 *
 * DESIGN
 * One table of level names for the whole library (the line formatter, the
 * syslog sink, llog_level_name, LLOG_LEVEL parsing).
 *
 * The levels in force are a spec: a default level (llog_set_level, the
 * bare level of "info,net=debug") and a level per category name; a
 * category without its own entry takes its nearest dotted ancestor's
 * ("db.pool.x" -> "db.pool" -> "db"), then the default. Every change
 * (llog_set_levels, llog_set_level, a reload) makes a new generation g
 * (from 1), published in the word the macros read:
 *
 *   llog__level_gen = g << 8                       (LLOG__GEN_SHIFT)
 *
 * Each call site caches, for the generation g it was computed for, its
 * output level O (its category's) and its capture threshold T (the level
 * a call is compared with: O, or min(O, backtrace_level) while the
 * backtrace is on, backtrace.h) in one word:
 *
 *   site->lvl_cache = (g << 8) + 8 * T + O          (LLOG__LVL_CACHE)
 *
 * A call at level L loads both words (relaxed) and computes u = lvl_cache
 * - llog__level_gen (unsigned): when the cache is of the current
 * generation, u = 8T + O < 64, else it is at least 256 (or wraps):
 * outside the band. The call is filtered out, with no further work, iff
 * u - 8(L + 1) <= 63 - 8(L + 1) (unsigned), i.e. T > L; u < 8(L + 1) is
 * "enabled" (T <= L); any other u is a stale cache, which
 * llog__site_level_refresh recomputes. The producer then reads the cache
 * once more: a call with T <= L < O is kept for the backtrace only
 * (flagged, docs/architecture/flusher.md 8); T and O come from one word,
 * so they are always one generation's. The default level and its threshold are also
 * in llog__out_level and llog__min_level (for sites of an older llog.h,
 * which have no cache, and llog_get_level). A site never reached
 * has lvl_cache 0 (generation 0): stale. No registry of sites exists, so
 * nothing points into a dlopen'd object that may be unloaded.
 *
 * Generation slots. The spec of generation g lives in slots[g % NSLOT]
 * (levels.c): {gen, spec, dflt}, written by the one writer (under
 * set_lock) as a seqlock: gen = 0 (relaxed), release fence, spec and dflt
 * (relaxed), gen = g (release); then llog__level_gen = g << 8 (release).
 * A refresh loads llog__level_gen (acquire: the slot of g is written
 * before it), then the slot's gen (acquire), its fields, an acquire fence
 * and the gen again; when both read g, the fields are g's, else (the
 * writer lapped the slots meanwhile) it starts again from the newer
 * generation. So the level a call uses is exactly the level of the
 * generation its own load of llog__level_gen returned:
 *
 *   level(call) = spec[g](category(site)),  g = gen word the call loaded
 *
 * Ordering that gives: a change is made at the release store of
 * llog__level_gen. A call on the thread that made the change, after it
 * returned, reads g or later (coherence). Another thread's call reads some
 * generation not older than any it read before (read-read coherence), so
 * calls of one thread see generations in order, and it sees a change at
 * its first call whose load returns it: soon (the store is not delayed),
 * but with no bound stated by C11. llog_levels_generation() reads the
 * same word (acquire).
 *
 * Spec memory: a spec is immutable once published; llog_set_level makes
 * a generation that shares the spec with a new default (no allocation).
 * A spec no slot refers to any more is retired and freed by a later
 * writer once no refresh is running: readers count themselves in
 * `readers` around their use, the Dekker pair of the writer's slot store
 * and the reader's increment, each followed by a seq_cst fence.
 */
#ifndef LLOG_LEVELS_H
#define LLOG_LEVELS_H

#include <stddef.h>
#include <stdint.h>

#include "level_names.h" /* llog__level_names, llog__parse_level (format unit) */
#include "llog.h"

/* Longest spec accepted (bytes, without the NUL). */
#define LLOG__SPEC_MAX 4095

/* Parses and applies spec (as llog_set_levels, without the record). On
 * success: 0, and (when non-NULL) the spec in force before and after
 * (canonical text) in old/new (cap bytes each, cut) and the new
 * generation in *gen. On a malformed spec: -EINVAL, nothing changed, the
 * message in the calling thread's llog_levels_error(). -ENOMEM. Takes
 * set_lock; allocates. */
int llog__levels_apply(const char *spec, char *old, char *new, size_t cap, uint64_t *gen);

/* The spec in force as canonical text (cut to cap - 1 bytes,
 * NUL-terminated); returns whether it was cut. */
int llog__levels_text(char *buf, size_t cap);

/* The change record's format: generation, old spec, new spec. */
#define LLOG__LEVELS_CHANGED "llog: levels changed (generation %llu): %s -> %s"

/* Sets the calling thread's llog_levels_error() message. */
void llog__levels_set_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* fork (control.c's handlers, registered by llog_init): prepare takes
 * set_lock, so that no levels writer of another thread is inside its
 * update at the fork (a child would inherit the lock held and a slot or
 * the retired list half-written); parent releases it, child makes it
 * anew. */
void llog__levels_fork_prepare(void);
void llog__levels_fork_parent(void);
void llog__levels_fork_child(void);

/* The category of a site: NULL for the default category (and for a site
 * made by an older header, without the field). */
static inline const char *llog__site_category(const struct llog_site *s)
{
	return (s->level & LLOG__SITE_V2) && s->category != NULL && s->category[0] != '\0'
		       ? s->category
		       : NULL;
}

/* A site's record level (the flag bits masked out). */
static inline int llog__site_level(const struct llog_site *s)
{
	return s->level & ~LLOG__SITE_V2;
}

/* Whether s (n bytes) is a category name: [A-Za-z0-9_-]+ segments joined
 * by single dots. */
int llog__category_name_valid(const char *s, size_t n);

#endif /* LLOG_LEVELS_H */
