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
 * Bounded: LLOG__FMT_CACHE_SLOTS entries in sets of LLOG__FMT_CACHE_WAYS
 * (a site may only occupy the ways of its set; a full set replaces its
 * ways in turn, freeing the program it replaces), so the cache never holds
 * more than that many programs, whatever the number of sites. A program is
 * made (malloc) the first time the flusher meets a site; when that fails,
 * get returns NULL and the caller renders from the format (llog__render):
 * the output is the same.
 *
 * Unloaded objects (ARCHITECTURE 8.4): a program points into its site's
 * format, which dlclose() may unmap, and a library loaded again may put a
 * different site at the same address. llog__dso_fini calls
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
 * crash drain (get may allocate): it renders without a cache.
 */
#ifndef LLOG_FMT_CACHE_H
#define LLOG_FMT_CACHE_H

#include "fmt.h"
#include "llog.h"

#define LLOG__FMT_CACHE_SLOTS 1024u
#define LLOG__FMT_CACHE_WAYS 4u

struct llog__fmt_cache;

/* A new, empty cache, or NULL when out of memory (render without one). */
struct llog__fmt_cache *llog__fmt_cache_new(void);

/* Frees the cache and its programs. Accepts NULL. */
void llog__fmt_cache_free(struct llog__fmt_cache *c);

/* site's compiled format, compiled now if needed (may allocate), or NULL
 * (no cache, or out of memory). Valid until the next get on c. */
const struct llog__fmt_prog *llog__fmt_cache_get(struct llog__fmt_cache *c,
						 const struct llog_site *site);

/* Every cache drops its programs before its next get (an object is about
 * to be unloaded). Any thread; lock-free, no allocation. */
void llog__fmt_cache_invalidate(void);

#endif /* LLOG_FMT_CACHE_H */
