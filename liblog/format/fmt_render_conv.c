/*
 * fmt_render_conv.c - one conversion of the printf renderer: its
 * arguments fetched (captured bytes checked against the plan, or a live
 * va_list), a '*' width and precision resolved, and the conversions llog
 * writes itself: integers, characters, strings, and plain %f of a double.
 * Part of the printf renderer (fmt_render.c, which walks the format and
 * calls llog__fmt_render_conv for each conversion); hands the rest to
 * fmt_render_snp.c.
 *
 * DESIGN
 * Each conversion is written directly into the output, bounded by cap,
 * with glibc's flag, width and precision rules (the quirks matched on
 * purpose are listed in fmt_render.c). Floating point other than plain %f
 * of a double, %p and the eager-only conversions (wide, the ' and I flags,
 * %m) go through snprintf of that single conversion (fmt_render_snp.c).
 * Nothing here calls snprintf for integers, characters or strings.
 *
 * A captured argument is used only when its type code is the one the
 * conversion asks for: a mismatch (or running out) stops the message
 * there, it never reads bytes as another type. In a positional walk a
 * conversion takes its arguments by their "n$" from those fetched before
 * (fmt_pos.c), checked the same way.
 */
#include <limits.h>
#include <string.h>
#include <wchar.h>

#include "buf.h"
#include "fmt.h"
#include "fmt_render_parts.h"
#include "fmt_spec.h"

/* ---- arguments ----------------------------------------------------------- */

/* The next argument of class kind from a live va_list (the eager path). */
static int fetch_va(va_list *ap, int kind, union val *v)
{
	switch (kind) {
	case A_INT: v->i = va_arg(*ap, int); break;
	case A_I64: v->ll = va_arg(*ap, long long); break;
	case A_DBL: v->d = va_arg(*ap, double); break;
	case A_LDBL: v->ld = va_arg(*ap, long double); break;
	case A_PTR: case A_NPTR: case A_WSTR:
		v->ptr = va_arg(*ap, void *);
		break;
	case A_WINT: v->i = (int)va_arg(*ap, wint_t); break;
	case A_STR:
		v->str.s = va_arg(*ap, const char *);
		v->str.known = 0;
		break;
	default: break;
	}
	return 1;
}

/* Returns 0 when the captured arguments do not match (stop rendering). */
static inline int fetch(struct src *s, int kind, union val *v)
{
	uint8_t code;

	if (s->ap != NULL)
		return fetch_va(s->ap, kind, v);
	if (s->i >= s->n)
		return 0;
	code = s->type[s->i++];
	if (llog__fmt_is_str(code))
		code = A_STR;
	if (code != kind)
		return 0;
	switch (kind) {
	case A_INT: memcpy(&v->i, s->p, 4); s->p += 4; break;
	case A_I64: memcpy(&v->ll, s->p, 8); s->p += 8; break;
	case A_DBL: memcpy(&v->d, s->p, 8); s->p += 8; break;
	case A_LDBL:
		memcpy(&v->ld, s->p, sizeof(v->ld));
		s->p += LDBL_STORE;
		break;
	case A_PTR: memcpy(&v->ptr, s->p, 8); s->p += 8; break;
	case A_NPTR: break;
	default: { /* A_STR */
		uint32_t n;

		memcpy(&n, s->p, 4);
		s->p += 4;
		v->str.known = 1;
		if (n == STR_NULL) {
			v->str.s = NULL;
			v->str.len = 0;
		} else {
			v->str.s = (const char *)s->p;
			v->str.len = n;
			s->p += n;
		}
		break;
	}
	}
	return 1;
}

int llog__fmt_render_fetch(struct src *s, int kind, union val *v)
{
	return fetch(s, kind, v);
}

/* The argument of class kind that a conversion takes with index n ("n$",
 * 0 for none): from the positional arguments when the walk has them,
 * else the next one. */
static inline int fetch_at(struct src *s, unsigned n, int kind, union val *v)
{
	if (s->pos == NULL)
		return fetch(s, kind, v);
	if (n == 0 || n > s->pos->m.n || s->pos->m.kind[n - 1] != kind)
		return 0;
	*v = s->pos->v[n - 1];
	return 1;
}

/* ---- integers, characters, strings --------------------------------------- */

/* An integer conversion (d i o u x X b B c) with glibc's flag, width and
 * precision rules. One function on purpose (about 90 lines): the digits,
 * the prefix, the zeros and the padding are one layout decision. */
static void emit_int(struct llog__buf *o, char conv, unsigned fl, int width,
		     int prec, unsigned long long mag, int neg)
{
	static const char lower[] = "0123456789abcdef";
	static const char upper[] = "0123456789ABCDEF";
	char dig[64], pre[2];
	char *end = dig + sizeof(dig), *d = end;
	size_t ndig, npre = 0, zeros, body, pad;
	unsigned long long m = mag;

	switch (conv) {
	case 'o':
		do {
			*--d = (char)('0' + (m & 7));
			m >>= 3;
		} while (m);
		break;
	case 'x':
	case 'X': {
		const char *digits = conv == 'x' ? lower : upper;
		do {
			*--d = digits[m & 15];
			m >>= 4;
		} while (m);
		break;
	}
	case 'b':
	case 'B':
		do {
			*--d = (char)('0' + (m & 1));
			m >>= 1;
		} while (m);
		break;
	default:
		d = llog__buf_dec_back(end, m, 1);
		break;
	}
	ndig = (size_t)(end - d);
	if (prec == 0 && mag == 0)
		ndig = 0;

	if (conv == 'd' || conv == 'i') {
		if (neg)
			pre[npre++] = '-';
		else if (fl & F_PLUS)
			pre[npre++] = '+';
		else if (fl & F_SPACE)
			pre[npre++] = ' ';
	} else if ((fl & F_HASH) && mag != 0 && conv != 'o' && conv != 'u') {
		pre[npre++] = '0';
		pre[npre++] = conv; /* x X b B */
	}
	zeros = prec > 0 && (size_t)prec > ndig ? (size_t)prec - ndig : 0;
	if (conv == 'o' && (fl & F_HASH) && zeros == 0 &&
	    (ndig == 0 || mag != 0))
		zeros = 1; /* '#': the first digit is a 0 */
	body = npre + zeros + ndig;
	pad = width > 0 && (size_t)width > body ? (size_t)width - body : 0;

	if (fl & F_MINUS) {
		llog__buf_put(o, pre, npre);
		llog__buf_fill(o, '0', zeros);
		llog__buf_put(o, d, ndig);
		llog__buf_fill(o, ' ', pad);
	} else if ((fl & F_ZERO) && prec < 0) {
		llog__buf_put(o, pre, npre);
		llog__buf_fill(o, '0', zeros + pad);
		llog__buf_put(o, d, ndig);
	} else {
		llog__buf_fill(o, ' ', pad);
		llog__buf_put(o, pre, npre);
		llog__buf_fill(o, '0', zeros);
		llog__buf_put(o, d, ndig);
	}
}

static void emit_padded(struct llog__buf *o, unsigned fl, int width, const char *s,
			size_t n)
{
	size_t pad = width > 0 && (size_t)width > n ? (size_t)width - n : 0;

	if (fl & F_MINUS) {
		llog__buf_put(o, s, n);
		llog__buf_fill(o, ' ', pad);
	} else {
		llog__buf_fill(o, ' ', pad);
		llog__buf_put(o, s, n);
	}
}

static void emit_str(struct llog__buf *o, unsigned fl, int width, int prec,
		     union val *v)
{
	size_t n;

	if (v->str.s == NULL) {
		/* glibc: "(null)", or nothing if the precision is below 6 */
		if (prec >= 0 && prec < 6)
			emit_padded(o, fl, width, "", 0);
		else
			emit_padded(o, fl, width, "(null)", 6);
		return;
	}
	if (v->str.known) {
		n = v->str.len;
		if (prec >= 0 && (size_t)prec < n)
			n = (size_t)prec;
	} else {
		/* Past max(room, width) the length no longer matters. */
		size_t bound = o->cap - o->n;

		if (width > 0 && (size_t)width > bound)
			bound = (size_t)width;
		bound++;
		if (prec >= 0 && (size_t)prec < bound)
			bound = (size_t)prec;
		n = strnlen(v->str.s, bound);
	}
	emit_padded(o, fl, width, v->str.s, n);
}

/* ---- %f of a double ------------------------------------------------------ */

/*
 * %f / %F of a double with a precision of at most 9, exactly as glibc
 * prints it, without snprintf (the flusher's hot conversion). The double
 * is m * 2^e exactly; value * 10^prec is then an exact binary fraction,
 * rounded to an integer half-to-even as glibc does for exact ties. All of
 * it fits u128 for the ranges accepted below; anything else
 * (NaN, inf, huge values, '#', grouping, wide fields) returns 0 and goes
 * through snprintf.
 */
__extension__ typedef unsigned __int128 u128; /* GNU extension, on purpose */

static int emit_fixed(struct llog__buf *o, unsigned fl, int width, int prec, double d)
{
	static const uint64_t p10[10] = {1, 10, 100, 1000, 10000, 100000, 1000000,
					 10000000, 100000000, 1000000000};
	char body[96], *b = body + sizeof(body), *end = b;
	u128 q;
	uint64_t bits, m, ip, frac;
	int bexp, e, neg;
	size_t len, pad;
	char sign;

	if (prec < 0)
		prec = 6;
	if (prec > 9 || width > 48 || (fl & (F_HASH | F_QUOTE | F_I18N)))
		return 0;
	memcpy(&bits, &d, 8);
	neg = (int)(bits >> 63);
	bexp = (int)((bits >> 52) & 0x7ff);
	m = bits & ((1ull << 52) - 1);
	if (bexp == 0x7ff)
		return 0;
	if (bexp == 0) {
		e = -1074;
	} else {
		m |= 1ull << 52;
		e = bexp - 1075;
	}
	if (e >= 0) {
		if (e > 10)
			return 0; /* >= 2^63: snprintf */
		q = ((u128)m << e) * p10[prec];
	} else if (prec <= 3) {
		/* m * 10^prec < 2^53 * 1000 < 2^63: all in one word */
		unsigned sh = (unsigned)-e;
		uint64_t x = m * p10[prec], q64 = 0;

		if (sh < 64) {
			uint64_t rem = x & ((1ull << sh) - 1), half = 1ull << (sh - 1);

			q64 = x >> sh;
			if (rem > half || (rem == half && (q64 & 1)))
				q64++;
		} /* else x < 2^63 <= half: rounds down to 0 */
		q = q64;
	} else {
		unsigned sh = (unsigned)-e;
		u128 x = (u128)m * p10[prec]; /* < 2^83 */

		if (sh < 64) {
			/* the usual case: the remainder and the half in one word */
			uint64_t rem = (uint64_t)x & ((1ull << sh) - 1), half = 1ull << (sh - 1);

			q = x >> sh;
			if (rem > half || (rem == half && (q & 1)))
				q++;
		} else if (sh >= 127) {
			q = 0; /* x < 2^83 < half: rounds down */
		} else {
			u128 one = 1, rem, half;

			q = x >> sh;
			rem = x & ((one << sh) - 1);
			half = one << (sh - 1);
			if (rem > half || (rem == half && (q & 1)))
				q++;
		}
	}
	if ((q >> 64) == 0) {
		/* the usual case: no 128-bit division */
		ip = (uint64_t)q / p10[prec];
		frac = (uint64_t)q % p10[prec];
	} else {
		ip = (uint64_t)(q / p10[prec]);
		frac = (uint64_t)(q % p10[prec]);
	}
	if (prec > 0) {
		b = llog__buf_dec_back(b, frac, prec);
		*--b = '.';
	}
	b = llog__buf_dec_back(b, ip, 1);
	sign = neg ? '-' : (fl & F_PLUS) ? '+' : (fl & F_SPACE) ? ' ' : 0;
	len = (size_t)(end - b) + (sign != 0);
	pad = width > 0 && (size_t)width > len ? (size_t)width - len : 0;
	if (pad == 0) { /* the usual case: the sign and the body, one copy */
		if (sign)
			*--b = sign;
		llog__buf_put_short(o, b, (size_t)(end - b));
		return 1;
	}
	if (!(fl & F_MINUS) && !(fl & F_ZERO))
		for (; pad > 0; pad--)
			llog__buf_put(o, " ", 1);
	if (sign)
		llog__buf_put(o, &sign, 1);
	if (!(fl & F_MINUS))
		for (; pad > 0; pad--)
			llog__buf_put(o, "0", 1);
	llog__buf_put_short(o, b, (size_t)(end - b));
	for (; pad > 0; pad--)
		llog__buf_put(o, " ", 1);
	return 1;
}

/* A compiled format's %f of a double, its flags, width and precision in
 * sp (fmt_render_parts.h). */
void llog__fmt_render_fixed(struct llog__buf *o, const struct spec *sp, double d)
{
	union val v;

	if (emit_fixed(o, sp->flags, sp->width, sp->prec, d))
		return;
	v.d = d;
	llog__fmt_render_snp(o, sp, sp->flags, sp->width, sp->prec, A_DBL, &v);
}

/* ---- one conversion ------------------------------------------------------ */

/* One conversion (fmt_render_parts.h). One switch over the argument
 * class, read whole on purpose (about 90 lines). */
int llog__fmt_render_conv(struct llog__buf *o, const struct spec *sp, struct src *s)
{
	unsigned fl = sp->flags;
	int width = sp->width, prec = sp->prec, left0 = 0;
	union val v;

	if (sp->kind == A_UNKNOWN) {
		/* glibc prints the specification and consumes nothing; its
		 * "n$" left out */
		const char *t = sp->start, *end = sp->len_at + sp->len_n + 1;

		if (sp->argn != 0) {
			llog__buf_put(o, "%", 1);
			t = (const char *)memchr(t, '$', (size_t)(end - t)) + 1;
		}
		llog__buf_put(o, t, (size_t)(end - t));
		return 1;
	}
	if (sp->width_star) {
		if (!fetch_at(s, sp->widthn, A_INT, &v))
			return 0;
		width = v.i;
		if (width < 0) {
			width = width == INT_MIN ? INT_MAX : -width;
			/* a '0' flag (without '-') that glibc keeps when
			 * the width is "*n$" (below) */
			left0 = sp->widthn != 0 && (fl & (F_ZERO | F_MINUS)) == F_ZERO;
			fl |= F_MINUS;
		}
	}
	if (sp->prec_star) {
		if (!fetch_at(s, sp->precn, A_INT, &v))
			return 0;
		prec = v.i < 0 ? -1 : v.i;
	}
	if (sp->kind != A_NONE && !fetch_at(s, sp->argn, sp->kind, &v))
		return 0;
	if (sp->snp) {
		llog__fmt_render_snp(o, sp, fl, width, prec, sp->kind, &v);
		return 1;
	}
	if (left0 && (sp->kind == A_DBL || sp->kind == A_LDBL)) {
		/* glibc's quirk, fmt_render_snp.c */
		llog__fmt_render_snp_left0(o, sp, fl, width, prec, sp->kind, &v);
		return 1;
	}
	switch (sp->conv) {
	case 'd':
	case 'i': {
		long long x;

		if (sp->kind == A_I64)
			x = v.ll;
		else if (sp->mod == M_HH)
			x = (signed char)v.i;
		else if (sp->mod == M_H)
			x = (short)v.i;
		else
			x = v.i;
		emit_int(o, sp->conv, fl, width, prec,
			 x < 0 ? 0ull - (unsigned long long)x
			       : (unsigned long long)x,
			 x < 0);
		break;
	}
	case 'o': case 'u': case 'x': case 'X': case 'b': case 'B': {
		unsigned long long x;

		if (sp->kind == A_I64)
			x = (unsigned long long)v.ll;
		else if (sp->mod == M_HH)
			x = (unsigned char)v.i;
		else if (sp->mod == M_H)
			x = (unsigned short)v.i;
		else
			x = (unsigned int)v.i;
		emit_int(o, sp->conv, fl, width, prec, x, 0);
		break;
	}
	case 'c': {
		char c = (char)(unsigned char)v.i;

		emit_padded(o, fl, width, &c, 1);
		break;
	}
	case 's':
		emit_str(o, fl, width, prec, &v);
		break;
	case '%':
		llog__buf_put(o, "%", 1); /* glibc ignores flags and width here */
		break;
	case 'n':
		break; /* consumed, never executed */
	case 'f':
	case 'F':
		if (sp->kind == A_DBL && emit_fixed(o, fl, width, prec, v.d))
			break;
		llog__fmt_render_snp(o, sp, fl, width, prec, sp->kind, &v);
		break;
	default: /* other floating point, %p */
		llog__fmt_render_snp(o, sp, fl, width, prec, sp->kind, &v);
		break;
	}
	return 1;
}
