/*
 * fmt_render_snp.c - the conversions the renderer hands to snprintf:
 * floating point other than plain %f, %p, and the eager-only ones (wide
 * characters and strings, the ' and I flags, %m). Part of the printf
 * renderer (fmt_render.c); called by fmt_render_conv.c, calls nothing of
 * either.
 *
 * DESIGN
 * The conversion's text is built again from the parsed specification
 * (its '*' width and precision resolved to numbers) and snprintf renders
 * that one conversion with the one argument that the same parse says it
 * takes. The output stays a prefix of snprintf's for the whole message,
 * bounded by cap: a conversion up to SNP_TMP bytes goes through a buffer
 * on the stack, a longer one is written in place. The one inexactness:
 * when a message starts with such a conversion longer than SNP_TMP bytes
 * that crosses cap, the output ends one byte short of cap (snprintf must
 * have room for its NUL, and there is no earlier byte to shift into).
 *
 * Not async-signal-safe: snprintf (fmt.h).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <wchar.h>

#include "buf.h"
#include "fmt_render_parts.h"
#include "fmt_spec.h"

/* v in decimal at b; returns the byte after it. */
static char *put_uint(char *b, unsigned v)
{
	char t[10], *e = t + sizeof(t), *d = llog__buf_dec_back(e, v, 1);

	memcpy(b, d, (size_t)(e - d));
	return b + (e - d);
}

/* Builds the text of one conversion for snprintf, '*' values resolved. */
static void build_spec(char *b, const struct spec *sp, unsigned fl, int width,
		       int prec)
{
	static const char fchars[] = "-+ #0'I";
	unsigned k;

	*b++ = '%';
	for (k = 0; k < 7; k++)
		if (fl & (1u << k))
			*b++ = fchars[k];
	if (width > 0)
		b = put_uint(b, (unsigned)width);
	if (prec >= 0) {
		*b++ = '.';
		b = put_uint(b, (unsigned)prec);
	}
	memcpy(b, sp->len_at, sp->len_n);
	b += sp->len_n;
	*b++ = sp->conv;
	*b = '\0';
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#pragma GCC diagnostic ignored "-Wformat-security"
/* The conversion text comes from build_spec; the argument type from the
 * same parse, so it matches what the format asks for. */
static int snprintf_one(char *dst, size_t n, const char *spec, int kind,
			const union val *v)
{
	switch (kind) {
	case A_INT: return snprintf(dst, n, spec, v->i);
	case A_I64: return snprintf(dst, n, spec, v->ll);
	case A_DBL: return snprintf(dst, n, spec, v->d);
	case A_LDBL: return snprintf(dst, n, spec, v->ld);
	case A_PTR: return snprintf(dst, n, spec, v->ptr);
	case A_WINT: return snprintf(dst, n, spec, (wint_t)v->i);
	case A_WSTR: return snprintf(dst, n, spec, (const wchar_t *)v->ptr);
	case A_STR: return snprintf(dst, n, spec, v->str.s);
	default: return snprintf(dst, n, spec);
	}
}
#pragma GCC diagnostic pop

/* Bytes of the stack buffer that each conversion is rendered into first. */
#define SNP_TMP 512

void llog__fmt_render_snp(struct llog__buf *o, const struct spec *sp, unsigned fl,
			  int width, int prec, int kind, const union val *v)
{
	char spec[48], tmp[SNP_TMP];
	size_t room = o->cap - o->n;
	int n;

	build_spec(spec, sp, fl, width, prec);
	n = snprintf_one(tmp, sizeof(tmp), spec, kind, v);
	if (n < 0)
		return;
	if ((size_t)n < sizeof(tmp) || room < sizeof(tmp)) {
		/* tmp holds the whole conversion, or more than fits */
		llog__buf_put(o, tmp, (size_t)n);
	} else if ((size_t)n < room) {
		o->n += (size_t)snprintf_one(o->p + o->n, room, spec,
					      kind, v);
	} else if (o->n > 0) {
		/* Crosses cap: write one byte early so that snprintf's NUL
		 * lands on the last byte, then move into place. */
		char *at = o->p + o->n - 1, saved = *at;

		snprintf_one(at, room + 1, spec, kind, v);
		memmove(at + 1, at, room);
		*at = saved;
		o->n += room;
		o->cut = 1;
	} else {
		snprintf_one(o->p, room, spec, kind, v);
		o->n += room - 1; /* snprintf's NUL took the last byte */
		o->cut = 1;
	}
}

void llog__fmt_render_snp_left0(struct llog__buf *o, const struct spec *sp, unsigned fl,
				int width, int prec, int kind, const union val *v)
{
	size_t start = o->n, len;
	int finite = kind == A_LDBL ? isfinite(v->ld) : isfinite(v->d);

	llog__fmt_render_snp(o, sp, fl & ~(unsigned)(F_MINUS | F_ZERO), 0, prec, kind, v);
	len = o->n - start;
	if (sp->conv == 'a' || sp->conv == 'A' || (size_t)width <= len)
		return;
	llog__buf_fill(o, finite ? '0' : ' ', (size_t)width - len);
}
