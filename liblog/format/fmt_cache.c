/*
 * fmt_cache.c - the flusher's compiled formats per call site. See
 * fmt_cache.h for the design.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "atomic.h"
#include "fmt_cache.h"

#define SETS (LLOG__FMT_CACHE_SLOTS / LLOG__FMT_CACHE_WAYS)

_Static_assert((SETS & (SETS - 1)) == 0, "a power of two of sets");

struct slot {
	const struct llog_site *site;
	const char *fmt; /* site->fmt when compiled */
	struct llog__fmt_prog *prog;
};

struct llog__fmt_cache {
	uint64_t gen; /* generation its programs belong to */
	struct slot slot[SETS][LLOG__FMT_CACHE_WAYS];
	unsigned char next[SETS]; /* the way a full set replaces next */
	size_t used;              /* bytes of pool[] handed out */
	_Alignas(16) unsigned char pool[LLOG__FMT_CACHE_POOL];
};

/* Bumped by llog__fmt_cache_invalidate. */
static _Atomic uint64_t cache_gen;

struct llog__fmt_cache *llog__fmt_cache_new(void)
{
	struct llog__fmt_cache *c = calloc(1, sizeof(*c));

	if (c != NULL)
		/* Relaxed: see get. */
		c->gen = llog__load_relaxed(&cache_gen);
	return c;
}

static void drop_all(struct llog__fmt_cache *c)
{
	memset(c->slot, 0, sizeof(c->slot));
	memset(c->next, 0, sizeof(c->next));
	c->used = 0;
}

/* Room for a program of size bytes from the pool; a full pool is emptied
 * first (every program dropped). NULL when it can never fit. */
static void *pool_take(struct llog__fmt_cache *c, size_t size)
{
	if (size > sizeof(c->pool))
		return NULL;
	if (size > sizeof(c->pool) - c->used)
		drop_all(c);
	c->used += size;
	return c->pool + c->used - size;
}

void llog__fmt_cache_free(struct llog__fmt_cache *c)
{
	if (c == NULL)
		return;
	drop_all(c);
	free(c);
}

void llog__fmt_cache_invalidate(void)
{
	/* Relaxed: what orders it before the records that need it is the
	 * queue's release push and acquire exchange (fmt_cache.h). */
	llog__fetch_add_relaxed(&cache_gen, 1);
}

uint64_t llog__fmt_cache_gen(void)
{
	/* Relaxed: as in get (fmt_cache.h). */
	return llog__load_relaxed(&cache_gen);
}

const struct llog__fmt_prog *llog__fmt_cache_get(struct llog__fmt_cache *c,
						 const struct llog_site *site)
{
	/* Relaxed: a record of a site loaded after an invalidate was taken
	 * with an acquire exchange that the invalidate happens before
	 * (fmt_cache.h), so this load sees it. */
	uint64_t gen = llog__load_relaxed(&cache_gen);
	uintptr_t h = (uintptr_t)site * UINT64_C(0x9e3779b97f4a7c15);
	unsigned idx = (unsigned)(h >> (64 - __builtin_ctz(SETS))), w;
	struct slot *set, *s;
	size_t size;
	void *mem;

	if (c == NULL)
		return NULL;
	if (__builtin_expect(gen != c->gen, 0)) {
		drop_all(c);
		c->gen = gen;
	}
	set = c->slot[idx];
	for (w = 0; w < LLOG__FMT_CACHE_WAYS; w++) {
		s = &set[w];
		if (s->site == site && s->fmt == site->fmt)
			return s->prog;
		if (s->site == NULL)
			break;
	}
	if (w == LLOG__FMT_CACHE_WAYS) {
		unsigned char *next = &c->next[idx];

		s = &set[*next];
		*next = (unsigned char)((*next + 1) % LLOG__FMT_CACHE_WAYS);
		*s = (struct slot){NULL, NULL, NULL}; /* its bytes stay in the pool */
	}
	size = llog__fmt_prog_size(site->fmt);
	if (size > sizeof(c->pool) - c->used)
		s = &set[0]; /* pool_take empties the cache: the set's first way */
	mem = pool_take(c, size);
	if (mem == NULL)
		return NULL;
	s->prog = llog__fmt_compile_at(site->fmt, mem);
	s->site = site;
	s->fmt = site->fmt;
	return s->prog;
}
