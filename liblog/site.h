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
 *          READY --CAS (the first typed call done)--> READY | CHECKED
 *                                                     [| FAST | shape]
 *
 * Readers load state with acquire (pairs with the release store of READY)
 * before reading site->plan. A thread that loses the CAS, or finds the site
 * PARSING, parses into its own copy for this call: the plan is a pure
 * function of the format, so every copy is the same.
 *
 * Fixed sites. After the first typed call of a site (llog/detail.h "Typed
 * calls") the producer checks its plan once against the call's argument
 * count and level (llog__site_shape) and stores the verdict in state,
 * beside READY: CHECKED, and FAST with the record's shape when every
 * argument the plan consumes is a 4-byte int (%d %x %c...), an 8-byte
 * value (%ld %f %p...) or a plain %s (no precision), at most
 * LLOG__SHAPE_MAX_ARGS of them, at a level below ERROR. A FAST site's
 * calls take the fast path (producer.c, "The fast path"): the shape says
 * where each slot goes, so no plan is read. The shape is a pure function
 * of the plan, the count and the level, all fixed for a site (a site is
 * one macro expansion: its calls always pass the same count), so racing
 * first calls store the same word.
 */
#ifndef LLOG_SITE_H
#define LLOG_SITE_H

#include "atomic.h"
#include "fmt.h"
#include "fmt_spec.h"
#include "llog.h"

enum { LLOG__SITE_NEW = 0, LLOG__SITE_PARSING = 1, LLOG__SITE_READY = 2 };

_Static_assert(sizeof(struct llog__plan) <= sizeof(((struct llog_site *)0)->plan),
	       "plan must fit in the site");

/* state, once READY: bits 0-1 READY; the rest, the verdict (see above). */
#define LLOG__SITE_STATE_MASK 3u
#define LLOG__SITE_CHECKED 0x4u /* the verdict below was decided */
#define LLOG__SITE_FAST 0x8u    /* the calls take the fast path */
/*
 * The shape of a FAST site: whether some argument is a string, the site's
 * level, what each argument is (2 bits each, the first lowest; a 0 after
 * the last), and the payload's bytes without the strings' contents (at
 * most 8 * 8).
 */
#define LLOG__SHAPE_HAS_STR 0x10u
#define LLOG__SHAPE_LEVEL(s) (((s) >> 5) & 7u)
#define LLOG__SHAPE_ARGS(s) (((s) >> 8) & 0xffffu)
/* bits 24-28: the fixed bytes / 4 (each argument's are 4 or 8) */
#define LLOG__SHAPE_FIXED(s) (((s) >> 22) & 0x7cu)
#define LLOG__SHAPE_MAX_ARGS 8u
/* (the codes are llog/detail.h's signature classes, LLOG__SIG_*) */
enum {
	LLOG__SHAPE_INT = 1,  /* 4 bytes: %d %u %x %c ... */
	LLOG__SHAPE_STR = 2,  /* %s: u32 length, then its bytes (fmt_slots.h) */
	LLOG__SHAPE_WIDE = 3  /* 8 bytes: %ld %f %p ... */
};
/* A code's bits, each one test on the fast path: a value stored from
 * its slot (INT, WIDE), not a string; with it, all 8 bytes (WIDE). */
#define LLOG__SHAPE_VALUE_BIT 1u
#define LLOG__SHAPE_WIDE_BIT 2u
_Static_assert(LLOG__SHAPE_INT == LLOG__SIG_INT && LLOG__SHAPE_STR == LLOG__SIG_STR &&
		       LLOG__SHAPE_WIDE == LLOG__SIG_WIDE,
	       "a shape's codes are the signatures' classes");

/* The state word of a READY site checked with plan, nslots arguments
 * passed and level lv (see above): READY | CHECKED, and FAST and the
 * shape when the site's calls can take the fast path. */
static inline unsigned llog__site_shape(const struct llog__plan *plan, unsigned nslots, int lv)
{
	unsigned w = LLOG__SITE_READY | LLOG__SITE_CHECKED, args = 0, has_str = 0;

	if ((plan->flags & (LLOG__PLAN_EAGER | LLOG__PLAN_LDBL)) || plan->nargs > nslots ||
	    plan->nargs > LLOG__SHAPE_MAX_ARGS || lv < LLOG_TRACE || lv >= LLOG_ERROR ||
	    plan->fixed_bytes > 0x7cu || plan->fixed_bytes % 4u != 0)
		return w;
	for (unsigned i = 0; i < plan->nargs; i++) {
		unsigned c;

		switch (plan->type[i]) {
		case A_INT:
			c = LLOG__SHAPE_INT;
			break;
		case A_I64:
		case A_DBL:
		case A_PTR:
			c = LLOG__SHAPE_WIDE;
			break;
		case A_STR:
			c = LLOG__SHAPE_STR;
			has_str = LLOG__SHAPE_HAS_STR;
			break;
		default: /* A_NPTR, a precision, %.*s: the plan's own capture */
			return w;
		}
		args |= c << (2 * i);
	}
	return w | LLOG__SITE_FAST | has_str | (unsigned)lv << 5 | args << 8 |
	       (unsigned)plan->fixed_bytes << 22;
}

/* The state word w (llog__site_shape's) with LLOG__SITE_INLINE (bit
 * 30; never the sign bit, versions 1 and 2's mark), when a call site's
 * own code may write its records (llog/detail.h, "The call site's own
 * fast path"): the site is FAST and the signature sig its macro compiled
 * in is of this library's LLOG__FAST_ABI (an earlier one's code reaches
 * the owner words in the arena's header, where they no longer are),
 * counts as many arguments as the call passed and the plan consumes,
 * and gives each the class the plan does (so the same payload bytes: a
 * char * given to %p is not a string there). sig 0: a call without one
 * (llog__log_t). */
static inline unsigned llog__site_inline(unsigned w, const struct llog__plan *plan,
					 unsigned nslots, unsigned sig)
{
	unsigned fixed = 0;

	if (!(w & LLOG__SITE_FAST) || (sig >> 24) != LLOG__FAST_ABI ||
	    ((sig >> 16) & 0xfu) != nslots || plan->nargs != nslots ||
	    LLOG__SHAPE_ARGS(w) != (sig & 0xffffu))
		return w;
	for (unsigned i = 0; i < nslots; i++)
		fixed += LLOG__SIG_CLS(sig, i) == LLOG__SIG_WIDE ? 8u : 4u;
	if (fixed != LLOG__SHAPE_FIXED(w))
		return w;
	return w | (unsigned)LLOG__SITE_INLINE;
}

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

	if (__builtin_expect((s & LLOG__SITE_STATE_MASK) == LLOG__SITE_READY, 1))
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
	if ((llog__load_acquire((_Atomic int *)&site->state) & LLOG__SITE_STATE_MASK) ==
	    LLOG__SITE_READY)
		return llog__site_published(site);
	llog__fmt_plan_parse(site->fmt, tmp);
	return tmp;
}

#endif /* LLOG_SITE_H */
