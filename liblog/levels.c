/*
 * levels.c - the level spec per category and the generations the call
 * sites cache (the level names are level_names.c's). See levels.h for the
 * design (generation word, slots, the orderings).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "atomic.h"
#include "backtrace.h"
#include "buf.h"
#include "levels.h"

/* The capture threshold of the default level (backtrace.h: the default
 * level, or lower with the backtrace on), for objects built with an older
 * llog.h (their LOG reads it), and the default (output) level itself; the
 * macros of llog/detail.h read llog__level_gen and their site's cache
 * instead. */
int llog__min_level = LLOG_TRACE;
int llog__out_level = LLOG_TRACE;

#define GEN_SHIFT LLOG__GEN_SHIFT
#define NSLOT 8u

/* Generation 1 (llog__level_gen's initial value): no category, TRACE. */
uint64_t llog__level_gen = (uint64_t)1 << GEN_SHIFT;

/* An immutable set of category entries. */
struct spec {
	struct spec *retired_next; /* on `retired`, the writer's */
	size_t n;
	struct spec_ent {
		const char *name; /* into the same allocation */
		size_t len;
		int level;
	} e[];
};

struct slot {
	_Atomic uint64_t gen; /* g << GEN_SHIFT of its content, 0 while written */
	_Atomic(const struct spec *) spec;
	_Atomic int dflt;
};

static const struct spec no_categories = {NULL, 0};

static struct slot slots[NSLOT] = {
	[1] = {(uint64_t)1 << GEN_SHIFT, &no_categories, LLOG_TRACE},
};

/* Writers (set_levels, set_level, reloads) one at a time. */
static pthread_mutex_t set_lock = PTHREAD_MUTEX_INITIALIZER;
/* Refreshes in progress (the reclamation's Dekker pair, levels.h). */
static _Atomic unsigned long readers;
/* Specs no slot refers to; the writer's, under set_lock. */
static struct spec *retired;

static _Thread_local char err_msg[256];

void llog__levels_set_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	(void)vsnprintf(err_msg, sizeof(err_msg), fmt, ap);
	va_end(ap);
}

const char *llog_levels_error(void)
{
	return err_msg;
}

/* ---- parsing ---------------------------------------------------------------- */

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

int llog__category_name_valid(const char *s, size_t n)
{
	int seg = 0;

	if (n == 0)
		return 0;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (c == '.') {
			if (seg == 0)
				return 0;
			seg = 0;
		} else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
			   c == '_' || c == '-') {
			seg++;
		} else {
			return 0;
		}
	}
	return seg != 0;
}

static void trim(const char **s, size_t *n)
{
	while (*n > 0 && is_space(**s))
		(*s)++, (*n)--;
	while (*n > 0 && is_space((*s)[*n - 1]))
		(*n)--;
}

static int level_of(const char *s, size_t n, int *out)
{
	char buf[16];
	enum llog_level l;

	if (n == 0 || n >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, n);
	buf[n] = '\0';
	if (llog__parse_level(buf, &l) != 0)
		return -EINVAL;
	*out = (int)l;
	return 0;
}

/*
 * Parses text into *out (malloc'd; NULL when it names no category) and
 * *dflt (-1: no bare level). Grammar: entries separated by ',', each a
 * LEVEL (at most one) or NAME=LEVEL (each NAME at most once), blanks
 * around any part ignored. On error: -EINVAL and the message naming the
 * bad part (-ENOMEM: out of memory).
 */
static int parse(const char *text, struct spec **out, int *dflt)
{
	size_t len, n_ent = 0, names = 0, k = 0;
	const char *p, *end;
	struct spec *s;
	char *store;

	*out = NULL;
	*dflt = -1;
	if (text == NULL) {
		llog__levels_set_error("level spec is NULL");
		return -EINVAL;
	}
	len = strlen(text);
	if (len > LLOG__SPEC_MAX) {
		llog__levels_set_error("level spec longer than %d bytes", LLOG__SPEC_MAX);
		return -EINVAL;
	}
	for (p = text; *p; p++)
		n_ent += *p == ',';
	n_ent++;
	s = malloc(sizeof(*s) + n_ent * sizeof(s->e[0]) + len + 1);
	if (s == NULL)
		return -ENOMEM;
	store = (char *)&s->e[n_ent];
	for (p = text, end = text + len;; p++) {
		const char *q = memchr(p, ',', (size_t)(end - p));
		const char *ent = p, *eq, *nm, *lv;
		size_t n = (size_t)((q != NULL ? q : end) - p), nn, ln;
		int level;

		trim(&ent, &n);
		if (n == 0) {
			llog__levels_set_error(len == 0 ? "empty level spec"
							: "empty entry at byte %zu of \"%s\"",
					       (size_t)(p - text), text);
			goto bad;
		}
		eq = memchr(ent, '=', n);
		nm = ent;
		nn = eq != NULL ? (size_t)(eq - ent) : 0;
		lv = eq != NULL ? eq + 1 : ent;
		ln = eq != NULL ? n - nn - 1 : n;
		trim(&nm, &nn);
		trim(&lv, &ln);
		if (level_of(lv, ln, &level) != 0) {
			llog__levels_set_error("unknown level \"%.*s\" in \"%.*s\"", (int)ln, lv,
					       (int)n, ent);
			goto bad;
		}
		if (eq == NULL) {
			if (*dflt >= 0) {
				llog__levels_set_error("second default level \"%.*s\"", (int)n, ent);
				goto bad;
			}
			*dflt = level;
		} else {
			if (!llog__category_name_valid(nm, nn)) {
				llog__levels_set_error("bad category name \"%.*s\" in \"%.*s\" (want "
						       "[A-Za-z0-9_-] words joined by dots)",
						       (int)nn, nm, (int)n, ent);
				goto bad;
			}
			for (size_t i = 0; i < k; i++) {
				if (s->e[i].len == nn && memcmp(s->e[i].name, nm, nn) == 0) {
					llog__levels_set_error("category \"%.*s\" given twice", (int)nn,
							       nm);
					goto bad;
				}
			}
			memcpy(store + names, nm, nn);
			store[names + nn] = '\0';
			s->e[k].name = store + names;
			s->e[k].len = nn;
			s->e[k].level = level;
			names += nn + 1;
			k++;
		}
		if (q == NULL)
			break;
		p = q;
	}
	s->retired_next = NULL;
	s->n = k;
	if (k == 0) {
		free(s);
		s = NULL;
	}
	*out = s;
	return 0;
bad:
	free(s);
	return -EINVAL;
}

/* The level of category cat (NULL: the default category) under s, d. */
static int lookup(const struct spec *s, const char *cat, int d)
{
	size_t n;

	if (cat == NULL || s->n == 0)
		return d;
	n = strlen(cat);
	for (;;) {
		const char *dot;

		for (size_t i = 0; i < s->n; i++)
			if (s->e[i].len == n && memcmp(s->e[i].name, cat, n) == 0)
				return s->e[i].level;
		dot = memrchr(cat, '.', n);
		if (dot == NULL)
			return d;
		n = (size_t)(dot - cat);
	}
}

/* ---- readers ---------------------------------------------------------------- */

/* The level of cat in the generation the caller's load of llog__level_gen
 * returns (stored in *gen). Lock-free: it retries only when writers lapped
 * the slots meanwhile; async-signal-safe; no allocation. */
static int level_now(const char *cat, uint64_t *gen)
{
	const struct spec *s;
	uint64_t g, g1, g2;
	int d, lvl;

	/* Relaxed increment, then a seq_cst fence: the reclamation's Dekker
	 * pair with the writer's slot store + fence (levels.h): either the
	 * writer sees us counted, or we see its new slot content. */
	atomic_fetch_add_explicit(&readers, 1, memory_order_relaxed);
	llog__fence_seq_cst();
	for (;;) {
		struct slot *sl;

		/* Acquire: pairs with the writer's release store of the
		 * generation word, after it filled that generation's slot. */
		g = llog__load_acquire((_Atomic uint64_t *)&llog__level_gen);
		sl = &slots[(g >> GEN_SHIFT) % NSLOT];
		/* Seqlock read: acquire on gen pairs with the writer's
		 * release store of gen after the fields; the acquire fence
		 * orders the field loads before the second load of gen,
		 * which pairs with the writer's release fence after it
		 * zeroed gen. */
		g1 = llog__load_acquire(&sl->gen);
		s = llog__load_relaxed(&sl->spec);
		d = llog__load_relaxed(&sl->dflt);
		atomic_thread_fence(memory_order_acquire);
		g2 = llog__load_relaxed(&sl->gen);
		if (g1 == g && g2 == g)
			break;
	}
	lvl = lookup(s, cat, d);
	/* Release: our reads of *s happen before a writer's acquire load
	 * that sees the count drop, hence before its free. */
	atomic_fetch_sub_explicit(&readers, 1, memory_order_release);
	*gen = g;
	return lvl;
}

int llog__site_level_refresh(struct llog_site *site)
{
	uint64_t g;
	/* The one place a site's levels are computed: its output level and
	 * its capture threshold (lower with the backtrace on, backtrace.h). */
	int out = level_now(llog__site_category(site), &g);
	int thr = llog__backtrace_threshold(out);

	/* Relaxed: the cache is a hint checked against the generation word
	 * at every call; a racing refresh that stores an older generation
	 * only makes the next call refresh again. Both levels in one word,
	 * so a reader never sees one generation's threshold with another's
	 * output level. */
	if (site->level & LLOG__SITE_V2)
		__atomic_store_n(&site->lvl_cache, g + LLOG__LVL_CACHE(thr, out), __ATOMIC_RELAXED);
	return thr;
}

enum llog_level llog_category_level(const char *category)
{
	uint64_t g;

	return (enum llog_level)level_now(category != NULL && *category ? category : NULL, &g);
}

uint64_t llog_levels_generation(void)
{
	/* Acquire: as a refresh's load (levels.h). */
	return llog__load_acquire((_Atomic uint64_t *)&llog__level_gen) >> GEN_SHIFT;
}

/* ---- the writer --------------------------------------------------------------- */

/* The current generation's slot content; under set_lock. */
static const struct slot *cur_slot(void)
{
	uint64_t g = llog__load_relaxed((_Atomic uint64_t *)&llog__level_gen);

	return &slots[(g >> GEN_SHIFT) % NSLOT];
}

/* Canonical text of (s, d): "LEVEL,name=LEVEL,..." into buf (cut to
 * cap - 1 bytes, NUL-terminated); returns whether it was cut. */
static int spec_text(const struct spec *s, int d, char *buf, size_t cap)
{
	struct llog__buf b = LLOG__BUF(buf, cap - 1);

	llog__buf_puts(&b, llog__level_names[d]);
	for (size_t i = 0; i < s->n; i++) {
		llog__buf_putc(&b, ',');
		llog__buf_put(&b, s->e[i].name, s->e[i].len);
		llog__buf_putc(&b, '=');
		llog__buf_puts(&b, llog__level_names[s->e[i].level]);
	}
	buf[b.n] = '\0';
	return b.cut;
}

int llog__levels_text(char *buf, size_t cap)
{
	const struct slot *sl;
	int cut;

	if (cap == 0)
		return 1;
	pthread_mutex_lock(&set_lock);
	sl = cur_slot();
	cut = spec_text(llog__load_relaxed(&sl->spec), llog__load_relaxed(&sl->dflt), buf, cap);
	pthread_mutex_unlock(&set_lock);
	return cut;
}

int llog_get_levels(char *buf, size_t cap)
{
	if (buf == NULL || cap == 0)
		return -ENOSPC;
	return llog__levels_text(buf, cap) ? -ENOSPC : (int)strlen(buf);
}

static int referenced(const struct spec *s)
{
	for (unsigned i = 0; i < NSLOT; i++)
		if (llog__load_relaxed(&slots[i].spec) == s)
			return 1;
	return 0;
}

/* Publishes generation g+1 = (s, d); under set_lock. */
static uint64_t publish(const struct spec *s, int d)
{
	uint64_t g = llog__load_relaxed((_Atomic uint64_t *)&llog__level_gen) +
		     ((uint64_t)1 << GEN_SHIFT);
	struct slot *sl = &slots[(g >> GEN_SHIFT) % NSLOT];
	const struct spec *old = llog__load_relaxed(&sl->spec);

	/* Seqlock write (levels.h): a reader that sees any new field sees
	 * gen != g on one of its two loads. */
	llog__store_relaxed(&sl->gen, 0);
	atomic_thread_fence(memory_order_release);
	llog__store_relaxed(&sl->spec, s);
	llog__store_relaxed(&sl->dflt, d);
	/* Release: publishes the fields to a reader's acquire load of gen. */
	llog__store_release(&sl->gen, g);
	/* Relaxed: the default level (llog_get_level, the producer's
	 * backtrace decision for a site of an older llog.h) and its capture
	 * threshold, read by objects of an older llog.h, as before. */
	llog__store_relaxed((_Atomic int *)&llog__out_level, d);
	llog__store_relaxed((_Atomic int *)&llog__min_level, llog__backtrace_threshold(d));
	/* Release: the slot of g is complete before g is seen (pairs with
	 * the acquire load in level_now). */
	llog__store_release((_Atomic uint64_t *)&llog__level_gen, g);
	if (old != NULL && old != &no_categories && !referenced(old)) {
		struct spec *o = (struct spec *)(uintptr_t)old;

		o->retired_next = retired;
		retired = o;
	}
	/* The writer's side of the Dekker pair with level_now: our slot
	 * store, then the fence, then the count. Acquire: pairs with a
	 * reader's release decrement (its reads are over). */
	llog__fence_seq_cst();
	if (atomic_load_explicit(&readers, memory_order_acquire) == 0) {
		while (retired != NULL) {
			struct spec *next = retired->retired_next;

			free(retired);
			retired = next;
		}
	}
	return g >> GEN_SHIFT;
}

int llog__levels_apply(const char *text, char *old, char *new, size_t cap, uint64_t *gen)
{
	struct spec *s;
	const struct slot *sl;
	int d, rc = parse(text, &s, &d);
	uint64_t g;

	if (rc == -ENOMEM)
		llog__levels_set_error("out of memory");
	if (rc != 0)
		return rc;
	pthread_mutex_lock(&set_lock);
	sl = cur_slot();
	if (old != NULL && cap != 0)
		(void)spec_text(llog__load_relaxed(&sl->spec), llog__load_relaxed(&sl->dflt), old,
				cap);
	if (d < 0) /* no bare level: the default stays */
		d = llog__load_relaxed(&sl->dflt);
	g = publish(s != NULL ? s : &no_categories, d);
	if (new != NULL && cap != 0)
		(void)spec_text(s != NULL ? s : &no_categories, d, new, cap);
	pthread_mutex_unlock(&set_lock);
	if (gen != NULL)
		*gen = g;
	return 0;
}

void llog_set_level(enum llog_level level)
{
	const struct slot *sl;

	if ((unsigned)level > LLOG_OFF)
		return;
	pthread_mutex_lock(&set_lock);
	sl = cur_slot();
	(void)publish(llog__load_relaxed(&sl->spec), (int)level);
	pthread_mutex_unlock(&set_lock);
}

void llog__levels_fork_prepare(void)
{
	pthread_mutex_lock(&set_lock);
}

void llog__levels_fork_parent(void)
{
	pthread_mutex_unlock(&set_lock);
}

void llog__levels_fork_child(void)
{
	/* The only thread; set_lock is ours (taken in prepare). */
	pthread_mutex_init(&set_lock, NULL);
}

enum llog_level llog_get_level(void)
{
	/* Relaxed: a snapshot; the writer stores it with each generation. */
	return (enum llog_level)llog__load_relaxed((_Atomic int *)&llog__out_level);
}
