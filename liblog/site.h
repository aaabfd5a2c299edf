/*
 * site.h - a call site's argument plan, parsed once and published
 * (internal).
 *
 * DESIGN
 * struct llog_site (llog/detail.h) is one static instance per LOG
 * statement. The first call parses the format into an argument plan
 * (fmt.h) stored in the site:
 *
 *   state: NEW --CAS (one thread)--> PARSING --store-release--> READY
 *
 * Readers load state with acquire (pairs with the release store of READY)
 * before reading site->plan. A thread that loses the CAS, or finds the site
 * PARSING, parses into its own copy for this call: the plan is a pure
 * function of the format, so every copy is the same.
 */
#ifndef LLOG_SITE_H
#define LLOG_SITE_H

#include "atomic.h"
#include "fmt.h"
#include "llog.h"

enum { LLOG__SITE_NEW = 0, LLOG__SITE_PARSING = 1, LLOG__SITE_READY = 2 };

_Static_assert(sizeof(struct llog__plan) <= sizeof(((struct llog_site *)0)->plan),
	       "plan must fit in the site");

static inline const struct llog__plan *llog__site_published(const struct llog_site *site)
{
	return (const struct llog__plan *)(const void *)site->plan;
}

/* The producer's: the site's plan, parsing and publishing it on first use
 * (or parsing into *tmp when another thread is doing that). */
static inline const struct llog__plan *llog__site_plan(struct llog_site *site,
						       struct llog__plan *tmp)
{
	_Atomic int *state = (_Atomic int *)&site->state;
	/* Acquire: pairs with the release store of READY below. */
	int s = llog__load_acquire(state);

	if (__builtin_expect(s == LLOG__SITE_READY, 1))
		return llog__site_published(site);
	if (s == LLOG__SITE_NEW && llog__cas_strong_acq_rel(state, &s, LLOG__SITE_PARSING)) {
		llog__fmt_plan_parse(site->fmt, (struct llog__plan *)(void *)site->plan);
		/* Release: publishes the plan written just above. */
		llog__store_release(state, LLOG__SITE_READY);
		return llog__site_published(site);
	}
	llog__fmt_plan_parse(site->fmt, tmp);
	return tmp;
}

/* A reader's (the renderer): the published plan, or one parsed into *tmp
 * when the site is not READY (a producer that lost the parsing race used
 * its own copy, and the winner may still be writing site->plan). */
static inline const struct llog__plan *llog__site_plan_peek(const struct llog_site *site,
							    struct llog__plan *tmp)
{
	/* Acquire: pairs with the release store of READY in llog__site_plan. */
	if (llog__load_acquire((_Atomic int *)&site->state) == LLOG__SITE_READY)
		return llog__site_published(site);
	llog__fmt_plan_parse(site->fmt, tmp);
	return tmp;
}

#endif /* LLOG_SITE_H */
