/*
 * fmt_pos.c - the arguments of a POSIX positional format
 * ("%2$s %1$d", "%1$*2$d"): which class each index has (for the plan,
 * fmt_plan.c, and the renderer), fetched once in index order, and whether
 * a conversion may take its arguments from them. Called by fmt_plan.c and
 * fmt_render.c; fetches through fmt_render_conv.c's
 * llog__fmt_render_fetch.
 *
 * DESIGN
 * A va_list can only be read in order, and only as the types that were
 * passed. So the format is read once first (llog__fmt_pos_scan): each
 * conversion's "n$" indices (a '*' width or precision takes an int) give
 * the class of argument n. The plan lists arguments 1..n in that order
 * (the call's order), so capture is the sequential one. To render, the
 * arguments are fetched in that order, from the captured bytes or a live
 * va_list, into union vals (llog__fmt_pos_load), and the walk renders each
 * conversion from the values its indices name: the same renderer, the
 * same bytes as snprintf. Nothing allocates (glibc's own positional printf
 * may), nothing is read beyond index n:
 *
 *   n = the largest k such that each of 1..k is used by a conversion
 *       before the first one that breaks the rules below
 *
 * The cases POSIX leaves undefined stay safe (fmt.h; their plan is
 * EAGER, not whole): the walk renders the format up to the first
 * conversion it cannot take the arguments of and logs the rest of the
 * format as text from that conversion's '%'.
 * That is a conversion that takes an argument without an "n$" (a format
 * that mixes the two kinds), an index of 0 or above LLOG__PLAN_MAX_ARGS,
 * an index used before with another class ("%1$d %1$s"), or an index
 * above n (a skipped index: "%1$d %3$d" has no class for argument 2, so
 * neither 2 nor 3 is read). Conversions that take no argument (%%, %m,
 * an unknown conversion) are rendered in either kind of format, as glibc
 * does.
 *
 * Nothing here locks, allocates or makes a system call.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* GNU extension used on purpose: strchrnul */
#endif
#include <string.h>

#include "fmt.h"
#include "fmt_render_parts.h"
#include "fmt_spec.h"

/* Whether a conversion's uses (idx, kind; nu of them) can join m: every
 * index in range, and of one class with m and with each other. */
static int uses_agree(const struct pos_map *m, const uint8_t *idx, const uint8_t *kind,
		      unsigned nu)
{
	for (unsigned u = 0; u < nu; u++) {
		if (idx[u] == 0 || idx[u] > LLOG__PLAN_MAX_ARGS)
			return 0;
		if (m->kind[idx[u] - 1] != 0 && m->kind[idx[u] - 1] != kind[u])
			return 0;
		for (unsigned w = 0; w < u; w++)
			if (idx[w] == idx[u] && kind[w] != kind[u])
				return 0;
	}
	return 1;
}

int llog__fmt_pos_scan(const char *fmt, struct pos_map *m)
{
	const char *p = fmt;
	unsigned top = 0; /* the largest index used */
	int first = 1;

	memset(m, 0, sizeof(*m));
	m->whole = 1;
	while (*(p = strchrnul(p, '%')) != '\0') {
		struct spec sp;
		uint8_t idx[3], kind[3];
		unsigned nu;

		if (p[1] == '%') {
			p += 2;
			continue;
		}
		p = llog__fmt_parse_spec(p + 1, &sp);
		if (p == NULL) {
			m->whole = 0; /* the walk ends there too */
			break;
		}
		nu = llog__fmt_spec_uses(&sp, idx, kind);
		if (nu == 0)
			continue;
		if (first && !sp.positional)
			return 0;
		first = 0;
		if (!uses_agree(m, idx, kind, nu)) {
			m->whole = 0;
			break;
		}
		for (unsigned u = 0; u < nu; u++) {
			m->kind[idx[u] - 1] = kind[u];
			if (idx[u] > top)
				top = idx[u];
		}
	}
	if (first)
		return 0;
	while (m->n < LLOG__PLAN_MAX_ARGS && m->kind[m->n] != 0)
		m->n++;
	if (top > m->n)
		m->whole = 0;
	return 1;
}

void llog__fmt_pos_load(struct pos_args *pa, struct src *seq)
{
	for (unsigned k = 0; k < pa->m.n; k++) {
		if (!llog__fmt_render_fetch(seq, pa->m.kind[k], &pa->v[k])) {
			pa->m.n = (uint8_t)k;
			return;
		}
	}
}

int llog__fmt_pos_fits(const struct spec *sp, const struct pos_args *pa)
{
	uint8_t idx[3], kind[3];
	unsigned nu = llog__fmt_spec_uses(sp, idx, kind);

	for (unsigned u = 0; u < nu; u++)
		if (idx[u] == 0 || idx[u] > pa->m.n || pa->m.kind[idx[u] - 1] != kind[u])
			return 0;
	return 1;
}
