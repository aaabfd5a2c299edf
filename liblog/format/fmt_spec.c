/*
 * fmt_spec.c - the one parser of a printf conversion specification
 * (llog__fmt_parse_spec, fmt_spec.h): flags, width, precision, '*' and
 * POSIX "n$" indices, length modifier, conversion, and the class of
 * argument the conversion takes. Called by the plan (fmt_plan.c), the
 * positional map (fmt_pos.c), the renderer (fmt_render*.c), binpack.c and
 * llogcat; calls nothing.
 *
 * DESIGN
 * A specification is read left to right in the order C11 7.21.6.1 gives
 * its parts; glibc's extensions are read as glibc reads them (q is ll, Z
 * is z, %b %B, the ' and I flags). Every user reads the same struct spec,
 * so they agree on what a format consumes. Nothing here allocates, locks
 * or makes a system call.
 */
#include <limits.h>
#include <stdint.h>

#include "fmt_spec.h"

static const char *parse_num(const char *p, int *v)
{
	unsigned long n = 0;

	while (*p >= '0' && *p <= '9') {
		if (n <= INT_MAX)
			n = n * 10 + (unsigned long)(*p - '0');
		p++;
	}
	*v = n > INT_MAX ? INT_MAX : (int)n;
	return p;
}

/* A POSIX argument index "n$" at p: returns the character after the '$'
 * and sets *n (POS_BAD for 0 or above 254), or returns p and sets *n to 0
 * when there is none. */
static const char *parse_index(const char *p, uint8_t *n)
{
	const char *q = p;
	unsigned v = 0;

	while (*q >= '0' && *q <= '9') {
		if (v < POS_BAD)
			v = v * 10 + (unsigned)(*q - '0');
		q++;
	}
	if (q == p || *q != '$') {
		*n = 0;
		return p;
	}
	*n = v == 0 || v >= POS_BAD ? POS_BAD : (uint8_t)v;
	return q + 1;
}

static uint8_t spec_kind(const struct spec *sp)
{
	int small = sp->mod == M_NONE || sp->mod == M_HH || sp->mod == M_H;

	switch (sp->conv) {
	case 'd': case 'i': case 'o': case 'u': case 'x': case 'X':
	case 'b': case 'B':
		return small ? A_INT : A_I64;
	case 'c':
		return small ? A_INT : A_WINT;
	case 's':
		return small ? A_STR : A_WSTR;
	case 'C':
		return A_WINT;
	case 'S':
		return A_WSTR;
	case 'p':
		return A_PTR;
	case 'n':
		return A_NPTR;
	case 'f': case 'F': case 'e': case 'E': case 'g': case 'G':
	case 'a': case 'A':
		return sp->mod == M_LL || sp->mod == M_BIGL ? A_LDBL : A_DBL;
	case '%': case 'm':
		return A_NONE;
	default:
		return A_UNKNOWN;
	}
}

/*
 * Parses one conversion specification; p points just after its '%'.
 * Returns the character after the conversion, or NULL when the format ends
 * inside the specification. One function on purpose (about 80 lines): it
 * reads the specification left to right, flags, width, precision, length,
 * conversion, in the order C11 7.21.6.1 gives them.
 */
const char *llog__fmt_parse_spec(const char *p, struct spec *sp)
{
	sp->start = p - 1;
	sp->flags = 0;
	sp->width_star = sp->prec_star = 0;
	sp->widthn = sp->precn = 0;
	sp->width = 0;
	sp->prec = -1;

	p = parse_index(p, &sp->argn);
	for (;; p++) {
		switch (*p) {
		case '-': sp->flags |= F_MINUS; continue;
		case '+': sp->flags |= F_PLUS; continue;
		case ' ': sp->flags |= F_SPACE; continue;
		case '#': sp->flags |= F_HASH; continue;
		case '0': sp->flags |= F_ZERO; continue;
		case '\'': sp->flags |= F_QUOTE; continue;
		case 'I': sp->flags |= F_I18N; continue;
		default: break;
		}
		break;
	}
	if (*p == '*') {
		sp->width_star = 1;
		p = parse_index(p + 1, &sp->widthn);
	} else {
		p = parse_num(p, &sp->width);
	}
	if (*p == '.') {
		p++;
		if (*p == '*') {
			sp->prec_star = 1;
			p = parse_index(p + 1, &sp->precn);
		} else {
			p = parse_num(p, &sp->prec);
		}
	}
	sp->positional = sp->argn != 0 || sp->widthn != 0 || sp->precn != 0;
	sp->len_at = p;
	switch (*p) {
	case 'h':
	case 'l': {
		int twice = p[1] == p[0]; /* hh, ll */

		if (p[0] == 'h')
			sp->mod = twice ? M_HH : M_H;
		else
			sp->mod = twice ? M_LL : M_L;
		p += 1 + twice;
		break;
	}
	case 'q': p++; sp->mod = M_LL; break;
	case 'L': p++; sp->mod = M_BIGL; break;
	case 'j': p++; sp->mod = M_J; break;
	case 'z': case 'Z': p++; sp->mod = M_Z; break;
	case 't': p++; sp->mod = M_T; break;
	default: sp->mod = M_NONE; break;
	}
	sp->len_n = (uint8_t)(p - sp->len_at);
	sp->conv = *p;
	if (sp->conv == '\0')
		return NULL;
	sp->kind = spec_kind(sp);
	/* ' and I depend on the locale: only the numeric conversions are
	 * affected, and those are rendered at the call by snprintf. */
	sp->snp = sp->kind == A_WINT || sp->kind == A_WSTR || sp->conv == 'm' ||
		  ((sp->flags & (F_QUOTE | F_I18N)) &&
		   (sp->kind == A_INT || sp->kind == A_I64 ||
		    sp->kind == A_DBL || sp->kind == A_LDBL));
	return p + 1;
}
