/*
 * fmt_render.c - rendering a format from captured arguments (or a live
 * va_list) exactly as snprintf would (see fmt.h for the contract).
 *
 * DESIGN
 * Rendering walks the format once, copying literal text and writing integer,
 * character and string conversions directly into the output, bounded by
 * cap; floating point, %p and the eager-only conversions (wide, the ' and I
 * flags, %m) go through snprintf of that single conversion. Output is a
 * prefix of snprintf's: once something does not fit, rendering stops and
 * *truncated is set. The one inexactness: when a message starts with an
 * snprintf-rendered conversion longer than SNP_TMP bytes that crosses cap,
 * the output ends one byte short of cap (snprintf must have room for its
 * NUL, and there is no earlier byte to shift into).
 *
 * glibc behaviour matched on purpose (glibc 2.36): NULL %s prints "(null)",
 * or nothing when a precision below 6 is given; %5% prints "%"; an unknown
 * conversion prints its own text and consumes nothing; a format that ends
 * inside a conversion stops the output there; %b/%B print binary; q is ll
 * and Z is z; ll and L both select long double for floating conversions and
 * long long for integers; %c/%s pad with spaces even with the '0' flag.
 *
 * A compiled format (llog__fmt_compile) is the walk of run() done once:
 * render_prog makes the same conversions in the same order from it.
 *
 * Nothing here locks, and nothing allocates but llog__fmt_compile; render
 * and capture never call snprintf for integers, characters or strings.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* GNU extension used on purpose: strchrnul */
#endif
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "buf.h"
#include "fmt.h"
#include "fmt_spec.h"

/* ---- argument sources ---------------------------------------------------- */

union val {
	int i;
	long long ll;
	double d;
	long double ld;
	const void *ptr;
	struct {
		const char *s; /* NULL for a NULL argument */
		size_t len;    /* valid if known */
		int known;
	} str;
};

/* Captured bytes checked against the plan, or a live va_list. */
struct src {
	const unsigned char *p;
	const uint8_t *type;
	unsigned i, n;
	va_list *ap;
};

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

/* ---- conversions --------------------------------------------------------- */

static const char pairs[] =
	"00010203040506070809101112131415161718192021222324"
	"25262728293031323334353637383940414243444546474849"
	"50515253545556575859606162636465666768697071727374"
	"75767778798081828384858687888990919293949596979899";

/* v in decimal, at least min digits (zeros in front), written backwards
 * so that it ends just before end; returns its first byte. Two digits per
 * division. */
static char *dec_back(char *end, uint64_t v, int min)
{
	char *d = end;

	while (v >= 100) {
		unsigned r = (unsigned)(v % 100) * 2;

		v /= 100;
		d -= 2;
		memcpy(d, pairs + r, 2);
	}
	if (v >= 10) {
		d -= 2;
		memcpy(d, pairs + v * 2, 2);
	} else {
		*--d = (char)('0' + v);
	}
	while (end - d < min)
		*--d = '0';
	return d;
}

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
		d = dec_back(end, m, 1);
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

static char *put_uint(char *b, unsigned v)
{
	char t[10], *e = t + sizeof(t), *d = e;

	do {
		*--d = (char)('0' + v % 10);
		v /= 10;
	} while (v);
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

#define SNP_TMP 512

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
	} else {
		unsigned sh = (unsigned)-e;
		u128 x = (u128)m * p10[prec]; /* < 2^83 */

		if (sh >= 127) {
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
		b = dec_back(b, frac, prec);
		*--b = '.';
	}
	b = dec_back(b, ip, 1);
	sign = neg ? '-' : (fl & F_PLUS) ? '+' : (fl & F_SPACE) ? ' ' : 0;
	len = (size_t)(end - b) + (sign != 0);
	pad = width > 0 && (size_t)width > len ? (size_t)width - len : 0;
	if (!(fl & F_MINUS) && !(fl & F_ZERO))
		for (; pad > 0; pad--)
			llog__buf_put(o, " ", 1);
	if (sign)
		llog__buf_put(o, &sign, 1);
	if (!(fl & F_MINUS))
		for (; pad > 0; pad--)
			llog__buf_put(o, "0", 1);
	llog__buf_put(o, b, (size_t)(end - b));
	for (; pad > 0; pad--)
		llog__buf_put(o, " ", 1);
	return 1;
}


static void emit_snprintf(struct llog__buf *o, const struct spec *sp, unsigned fl,
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

/* Renders one conversion. Returns 0 when the arguments ran out. One switch
 * over the argument class, read whole on purpose (about 90 lines). */
static int convert(struct llog__buf *o, const struct spec *sp, struct src *s)
{
	unsigned fl = sp->flags;
	int width = sp->width, prec = sp->prec;
	union val v;

	if (sp->kind == A_UNKNOWN) {
		/* glibc prints the specification and consumes nothing */
		llog__buf_put(o, sp->start, (size_t)(sp->len_at + sp->len_n + 1 -
					   sp->start));
		return 1;
	}
	if (sp->width_star) {
		if (!fetch(s, A_INT, &v))
			return 0;
		width = v.i;
		if (width < 0) {
			fl |= F_MINUS;
			width = width == INT_MIN ? INT_MAX : -width;
		}
	}
	if (sp->prec_star) {
		if (!fetch(s, A_INT, &v))
			return 0;
		prec = v.i < 0 ? -1 : v.i;
	}
	if (sp->kind != A_NONE && !fetch(s, sp->kind, &v))
		return 0;
	if (sp->snp) {
		emit_snprintf(o, sp, fl, width, prec, sp->kind, &v);
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
		emit_snprintf(o, sp, fl, width, prec, sp->kind, &v);
		break;
	default: /* other floating point, %p */
		emit_snprintf(o, sp, fl, width, prec, sp->kind, &v);
		break;
	}
	return 1;
}

static void run(struct llog__buf *o, const char *fmt, struct src *s)
{
	const char *p = fmt;

	while (!o->cut) {
		const char *q = strchrnul(p, '%');
		struct spec sp;

		llog__buf_put(o, p, (size_t)(q - p));
		if (*q == '\0')
			return;
		if (q[1] == '%') {
			llog__buf_put(o, "%", 1);
			p = q + 2;
			continue;
		}
		p = llog__fmt_parse_spec(q + 1, &sp);
		if (p == NULL)
			return; /* format ends inside a conversion */
		if (sp.positional) {
			/* not supported: the rest of the format, as text */
			llog__buf_put(o, q, strlen(q));
			return;
		}
		if (!convert(o, &sp, s))
			return;
	}
}

/* ---- compiled formats ------------------------------------------------------ */

/*
 * A compiled format is run()'s walk of the format done once: op k is the
 * k-th turn of run()'s loop, the literal text it copies and what ends the
 * turn. Rendering from it makes the same calls as run() in the same order
 * (the cut check before each turn included), so its output is run()'s,
 * byte for byte; only strchrnul and llog__fmt_parse_spec are not repeated.
 */
enum {
	OP_END,  /* the format (or a conversion cut short by it) ends here */
	OP_PCT,  /* "%%" */
	OP_CONV, /* a conversion, sp */
	OP_TEXT, /* a positional conversion: the rest of the format as text */
	OP_D,    /* OP_CONV that is a plain "%d" or "%i" (no flag, width, ...) */
	OP_S,    /* OP_CONV that is a plain "%s" */
};

struct rop {
	const char *lit; /* literal text before the '%', lit_len bytes */
	size_t lit_len;
	unsigned op;     /* OP_* */
	struct spec sp;  /* OP_CONV; for OP_TEXT, sp.start is the '%' */
};

struct llog__fmt_prog {
	unsigned n;
	struct rop op[];
};

size_t llog__fmt_prog_size(const char *fmt)
{
	const char *p = fmt;
	size_t nops = 1;

	while (*(p = strchrnul(p, '%')) != '\0') {
		nops++;
		p += p[1] == '%' ? 2 : 1;
	}
	return sizeof(struct llog__fmt_prog) + nops * sizeof(struct rop);
}

struct llog__fmt_prog *llog__fmt_compile(const char *fmt)
{
	void *mem = malloc(llog__fmt_prog_size(fmt));

	return mem != NULL ? llog__fmt_compile_at(fmt, mem) : NULL;
}

struct llog__fmt_prog *llog__fmt_compile_at(const char *fmt, void *mem)
{
	struct llog__fmt_prog *prog = mem;
	const char *p;

	prog->n = 0;
	for (p = fmt;;) {
		const char *q = strchrnul(p, '%');
		struct rop *op = &prog->op[prog->n++];

		op->lit = p;
		op->lit_len = (size_t)(q - p);
		op->op = OP_END;
		if (*q == '\0')
			break;
		if (q[1] == '%') {
			op->op = OP_PCT;
			p = q + 2;
			continue;
		}
		p = llog__fmt_parse_spec(q + 1, &op->sp);
		if (p == NULL)
			break; /* format ends inside a conversion */
		if (op->sp.positional) {
			op->op = OP_TEXT;
			op->sp.start = q;
			break;
		}
		op->op = OP_CONV;
		if (op->sp.flags == 0 && op->sp.width == 0 && op->sp.prec < 0 &&
		    !op->sp.width_star && !op->sp.prec_star && !op->sp.snp &&
		    op->sp.mod == M_NONE) {
			if ((op->sp.conv == 'd' || op->sp.conv == 'i') && op->sp.kind == A_INT)
				op->op = OP_D;
			else if (op->sp.conv == 's' && op->sp.kind == A_STR)
				op->op = OP_S;
		}
	}
	return prog;
}

/* A plain "%d": what convert() does for it with no flag, width or
 * precision (emit_int's layout reduces to the sign and the digits).
 * Returns 0 when the arguments do not match, as fetch(). */
static inline int plain_d(struct llog__buf *o, struct src *s)
{
	char dig[24], *end = dig + sizeof(dig), *d;
	int v;

	if (s->i >= s->n || s->type[s->i] != A_INT)
		return 0;
	s->i++;
	memcpy(&v, s->p, 4);
	s->p += 4;
	d = dec_back(end, v < 0 ? 0ull - (unsigned long long)(long long)v
			       : (unsigned long long)v, 1);
	if (v < 0)
		*--d = '-';
	llog__buf_put(o, d, (size_t)(end - d));
	return 1;
}

/* A plain "%s": emit_str() with no width or precision. */
static inline int plain_s(struct llog__buf *o, struct src *s)
{
	uint32_t n;

	if (s->i >= s->n || !llog__fmt_is_str(s->type[s->i]))
		return 0;
	s->i++;
	memcpy(&n, s->p, 4);
	s->p += 4;
	if (n == STR_NULL) {
		llog__buf_put(o, "(null)", 6);
	} else {
		llog__buf_put(o, (const char *)s->p, n);
		s->p += n;
	}
	return 1;
}

/* run() from a compiled format. */
static void run_prog(struct llog__buf *o, const struct llog__fmt_prog *prog, struct src *s)
{
	for (const struct rop *op = prog->op; !o->cut; op++) {
		llog__buf_put(o, op->lit, op->lit_len);
		switch (op->op) {
		case OP_END:
			return;
		case OP_PCT:
			llog__buf_put(o, "%", 1);
			break;
		case OP_TEXT:
			/* not supported: the rest of the format, as text */
			llog__buf_put(o, op->sp.start, strlen(op->sp.start));
			return;
		case OP_D:
			if (!plain_d(o, s))
				return;
			break;
		case OP_S:
			if (!plain_s(o, s))
				return;
			break;
		default:
			if (!convert(o, &op->sp, s))
				return;
			break;
		}
	}
}

size_t llog__fmt_render_prog(char *out, size_t cap, const struct llog__fmt_prog *prog,
			     const struct llog__plan *plan, const void *args, int *truncated)
{
	struct llog__buf o = LLOG__BUF(out, cap);
	struct src s = { args, plan->type, 0, plan->nargs, NULL };

	run_prog(&o, prog, &s);
	if (o.cut)
		*truncated = 1;
	return o.n;
}

size_t llog__fmt_render(char *out, size_t cap, const char *fmt,
			const struct llog__plan *plan, const void *args,
			int *truncated)
{
	struct llog__buf o = LLOG__BUF(out, cap);
	struct src s = { args, plan->type, 0, plan->nargs, NULL };

	run(&o, fmt, &s);
	if (o.cut)
		*truncated = 1;
	return o.n;
}

size_t llog__fmt_format_va(char *out, size_t cap, const char *fmt,
			   const struct llog__plan *plan, va_list ap,
			   int *truncated)
{
	struct llog__buf o = LLOG__BUF(out, cap);
	struct src s = { NULL, NULL, 0, 0, NULL };
	va_list aq;

	(void)plan; /* arguments are fetched by the format itself */
	va_copy(aq, ap);
	s.ap = &aq;
	run(&o, fmt, &s);
	va_end(aq);
	if (o.cut)
		*truncated = 1;
	return o.n;
}
