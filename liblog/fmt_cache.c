/*
 * fmt_cache.c - the flusher's compiled formats per call site. See
 * fmt_cache.h for the design.
 */
#include <stdint.h>
#include <stdlib.h>

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
	for (unsigned i = 0; i < SETS; i++)
		for (unsigned w = 0; w < LLOG__FMT_CACHE_WAYS; w++) {
			free(c->slot[i][w].prog);
			c->slot[i][w] = (struct slot){NULL, NULL, NULL};
		}
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
		free(s->prog);
		*s = (struct slot){NULL, NULL, NULL};
	}
	s->prog = llog__fmt_compile(site->fmt);
	if (s->prog == NULL)
		return NULL;
	s->site = site;
	s->fmt = site->fmt;
	return s->prog;
}
