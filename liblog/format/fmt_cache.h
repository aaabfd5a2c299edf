/*
 * fmt_cache.h - the flusher's compiled formats, one per LOG call site
 * (internal).
 *
 * DESIGN
 * The flusher renders every record from its site's format. Parsing the
 * format's conversion specifications again for each record cost about 220
 * instructions of the ~1,200 that rendering a three-argument message took
 * (callgrind, bench/README.md). So the flusher keeps each site's format
 * compiled (fmt.h, llog__fmt_compile), keyed by the site's address:
 *
 *   get(cache, site) == NULL  or  render_prog(get(cache, site), ...) ==
 *                                 render(site->fmt, ...)
 *
 * Bounded, and no allocation after creation: LLOG__FMT_CACHE_SLOTS entries
 * in sets of LLOG__FMT_CACHE_WAYS (a site may only occupy the ways of its
 * set; a full set replaces its ways in turn), and the programs in a pool of
 * LLOG__FMT_CACHE_POOL bytes allocated with the cache: a program is
 * compiled into the pool (llog__fmt_compile_at) the first time the flusher
 * meets a site, and a full pool is emptied whole (every entry dropped)
 * before the next one is taken. The flusher's rounds never call malloc
 * (a thread that crashed inside the allocator may hold its lock while the
 * flusher drains its records; tests/test_nomalloc.c). A format whose
 * program exceeds the pool gets NULL, and the caller renders from the
 * format (llog__fmt_render): the output is the same.
 *
 * Unloaded objects (docs/architecture/process-life.md 4): a program points
 * into its site's format, which dlclose() may unmap, and a library loaded
 * again may put a different site at the same address. llog__dso_fini calls
 * llog__fmt_cache_invalidate() once its wait returned (every record of the
 * object pushed before it is rendered: no program for its sites is made
 * after that), and every cache drops all its programs at its next get. A
 * record of an object loaded afterwards was pushed after that call (the
 * loader's lock orders the dlclose before the dlopen), and the flusher
 * took it with the exchange that synchronises with that push, so the
 * relaxed load of the generation in get sees the new value
 * (happens-before, then coherence).
 *
 * Threads: a cache belongs to one thread at a time (the flusher's
 * rounds); invalidate may run on any thread at any time. Not for the
 * crash drains: they may interrupt a get on the flusher thread, so they
 * render without a cache.
 */
#ifndef LLOG_FMT_CACHE_H
#define LLOG_FMT_CACHE_H

#include "fmt.h"
#include "llog.h"

#define LLOG__FMT_CACHE_SLOTS 1024u
#define LLOG__FMT_CACHE_WAYS 4u
#define LLOG__FMT_CACHE_POOL (128u * 1024u) /* about 390 sites of 3 conversions */

struct llog__fmt_cache;

/* A new, empty cache, or NULL when out of memory (render without one). */
struct llog__fmt_cache *llog__fmt_cache_new(void);

/* Frees the cache and its programs. Accepts NULL. */
void llog__fmt_cache_free(struct llog__fmt_cache *c);

/* site's compiled format, compiled now if needed (into the cache's pool:
 * no allocation), or NULL (no cache, or a program larger than the pool).
 * Valid until the next get on c. */
const struct llog__fmt_prog *llog__fmt_cache_get(struct llog__fmt_cache *c,
						 const struct llog_site *site);

/* Every cache drops its programs before its next get (an object is about
 * to be unloaded). Any thread; lock-free, no allocation. */
void llog__fmt_cache_invalidate(void);

/* How many invalidations there were: a reader on the flusher that keys
 * something by a site's address (the binary sink's site ids) checks what
 * it keeps again when this changed. Ordered as get's load (relaxed). */
uint64_t llog__fmt_cache_gen(void);

#endif /* LLOG_FMT_CACHE_H */
