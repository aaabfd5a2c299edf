/*
 * fmt.c - argument plans, raw capture and deferred rendering of printf
 * formats (see fmt.h for the contract).
 *
 * DESIGN
 * One parser (parse_spec) reads a conversion specification; the plan, the
 * renderer and the eager formatter all use it, so they agree on which
 * arguments a format consumes:
 *
 *   plan.type[k] == class of the k-th argument consumed by render(fmt)
 *
 * Capture layout: the arguments are stored in order, packed, unaligned, in
 * native byte order, by plan type code:
 *
 *   A_INT  (1)  int, 4 bytes      d i o u x X b B c with no/hh/h, '*' values
 *   A_I64  (2)  8 bytes           integers with l ll q L j z Z t
 *   A_DBL  (3)  double, 8 bytes   f F e E g G a A (no/l/h/j/z/t)
 *   A_LDBL (4)  long double, 16   the same with L ll q
 *   A_PTR  (5)  void *, 8 bytes   p
 *   A_NPTR (6)  nothing           n: the pointer is consumed, not stored
 *   A_STR  (7)  u32 len + bytes   s; len 0xffffffff means NULL (no bytes)
 *   A_STR_STAR (8)                s whose precision is the preceding int
 *   A_STR_PREC0 + p (16..255)     s with literal precision p (0..239)
 *
 * so fixed_bytes = sum of the fixed sizes (4 per string) and
 * capture size = fixed_bytes + sum of the captured string lengths.
 * A string's precision is part of its type code because capture must not
 * read past it (the array need not be NUL-terminated); a literal precision
 * above 239 makes the plan EAGER.
 *
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
 * Nothing here allocates or locks; render and capture never call snprintf
 * for integers, characters or strings.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* GNU extension used on purpose: strchrnul */
#endif
#include "buf.h"
#include "fmt.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <wchar.h>

_Static_assert(sizeof(struct llog__plan) <= 36, "plan must fit llog_site.plan");
_Static_assert(_Alignof(struct llog__plan) <= 4, "plan must be 4-aligned");
_Static_assert(sizeof(long) == 8 && sizeof(long long) == 8 &&
		       sizeof(intmax_t) == 8 && sizeof(size_t) == 8 &&
		       sizeof(ptrdiff_t) == 8 && sizeof(void *) == 8,
	       "capture layout assumes LP64");
_Static_assert(sizeof(int) == 4, "capture layout assumes 32-bit int");
_Static_assert(sizeof(long double) <= 16, "long double is stored in 16 bytes");

/* Argument classes; values 1..8 and 16.. are also plan type codes. */
enum {
	A_INT = 1,
	A_I64 = 2,
	A_DBL = 3,
	A_LDBL = 4,
	A_PTR = 5,
	A_NPTR = 6,
	A_STR = 7,
	A_STR_STAR = 8,
	A_WINT = 9,     /* eager only: %lc %C */
	A_WSTR = 10,    /* eager only: %ls %S */
	A_NONE = 11,    /* consumes nothing: %% %m */
	A_UNKNOWN = 12, /* unknown conversion: printed as text */
	A_STR_PREC0 = 16,
};
#define STR_PREC_MAX (255 - A_STR_PREC0)
#define STR_NULL 0xffffffffu   /* captured length of a NULL string */
#define STR_LEN_MAX 0xfffffff0u
#define LDBL_STORE 16

/* Flags. */
enum {
	F_MINUS = 0x01,
	F_PLUS = 0x02,
	F_SPACE = 0x04,
	F_HASH = 0x08,
	F_ZERO = 0x10,
	F_QUOTE = 0x20, /* glibc: thousands grouping (locale), eager */
	F_I18N = 0x40,  /* glibc: locale digits, eager */
};

/* Length modifiers. */
enum { M_NONE, M_HH, M_H, M_L, M_LL, M_J, M_Z, M_T, M_BIGL };

struct spec {
	const char *start;  /* the '%' */
	const char *len_at; /* length modifier text, len_n bytes */
	uint8_t len_n;
	uint8_t flags;
	uint8_t mod;
	uint8_t kind;       /* A_* */
	uint8_t width_star;
	uint8_t prec_star;
	uint8_t positional; /* POSIX "%n$" or "*n$" seen */
	uint8_t snp;        /* render this one with snprintf */
	char conv;
	int width;          /* 0 if none */
	int prec;           /* -1 if none */
};

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

/* After a '*': a "n$" argument index makes the spec positional. */
static const char *parse_star_index(const char *p, struct spec *sp)
{
	const char *q = p;

	while (*q >= '0' && *q <= '9')
		q++;
	if (q != p && *q == '$') {
		sp->positional = 1;
		return q + 1;
	}
	return p;
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
 * inside the specification.
 */
static const char *parse_spec(const char *p, struct spec *sp)
{
	const char *q;

	sp->start = p - 1;
	sp->flags = 0;
	sp->width_star = sp->prec_star = sp->positional = 0;
	sp->width = 0;
	sp->prec = -1;

	for (q = p; *q >= '0' && *q <= '9'; q++)
		;
	if (q != p && *q == '$') {
		sp->positional = 1;
		p = q + 1;
	}
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
		p = parse_star_index(p + 1, sp);
	} else {
		p = parse_num(p, &sp->width);
	}
	if (*p == '.') {
		p++;
		if (*p == '*') {
			sp->prec_star = 1;
			p = parse_star_index(p + 1, sp);
		} else {
			p = parse_num(p, &sp->prec);
		}
	}
	sp->len_at = p;
	switch (*p) {
	case 'h':
		p++;
		sp->mod = M_H;
		if (*p == 'h') {
			p++;
			sp->mod = M_HH;
		}
		break;
	case 'l':
		p++;
		sp->mod = M_L;
		if (*p == 'l') {
			p++;
			sp->mod = M_LL;
		}
		break;
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

/* ---- plan ---------------------------------------------------------------- */

static unsigned fixed_size(uint8_t code)
{
	switch (code) {
	case A_INT: return 4;
	case A_I64: case A_DBL: case A_PTR: return 8;
	case A_LDBL: return LDBL_STORE;
	case A_NPTR: return 0;
	default: return 4; /* strings: the length word */
	}
}

static int plan_add(struct llog__plan *plan, uint8_t code)
{
	if (plan->nargs >= LLOG__PLAN_MAX_ARGS) {
		plan->flags |= LLOG__PLAN_EAGER;
		return 0;
	}
	plan->type[plan->nargs++] = code;
	plan->fixed_bytes = (uint16_t)(plan->fixed_bytes + fixed_size(code));
	return 1;
}

static int is_str(uint8_t code)
{
	return code == A_STR || code == A_STR_STAR || code >= A_STR_PREC0;
}

void llog__plan_parse(const char *fmt, struct llog__plan *plan)
{
	const char *p = fmt;

	memset(plan, 0, sizeof(*plan));
	while (*(p = strchrnul(p, '%')) != '\0') {
		struct spec sp;
		uint8_t code;

		if (p[1] == '%') {
			p += 2;
			continue;
		}
		p = parse_spec(p + 1, &sp);
		if (p == NULL)
			return; /* rendering stops there, as glibc's does */
		if (sp.positional || sp.snp || sp.kind == A_UNKNOWN) {
			plan->flags |= LLOG__PLAN_EAGER;
			return;
		}
		if (sp.width_star && !plan_add(plan, A_INT))
			return;
		if (sp.prec_star && !plan_add(plan, A_INT))
			return;
		code = sp.kind;
		if (code == A_NONE)
			continue;
		if (code == A_STR) {
			if (sp.prec_star) {
				code = A_STR_STAR;
			} else if (sp.prec >= 0) {
				if (sp.prec > STR_PREC_MAX) {
					plan->flags |= LLOG__PLAN_EAGER;
					return;
				}
				code = (uint8_t)(A_STR_PREC0 + sp.prec);
			}
		}
		if (!plan_add(plan, code))
			return;
		if (is_str(code))
			plan->flags |= LLOG__PLAN_HAS_STR;
	}
}

/* ---- capture ------------------------------------------------------------- */


static inline int copy_fixed_arg(uint8_t code, va_list *ap, unsigned char **d, int *last_int);

/* The precision that bounds a string argument of type code, SIZE_MAX for
 * none (last_int: the int consumed just before, for %.*s). */
static inline size_t str_prec_bound(uint8_t code, int last_int)
{
	if (code == A_STR_STAR && last_int >= 0)
		return (size_t)last_int;
	if (code >= A_STR_PREC0)
		return (size_t)(code - A_STR_PREC0);
	return SIZE_MAX;
}

size_t llog__capture_measure(const struct llog__plan *plan, va_list ap,
			     size_t budget, uint32_t *slen, int *truncated)
{
	size_t fixed = plan->fixed_bytes, avail, lim, strs = 0;
	int last_int = -1;
	unsigned i;
	va_list aq;

	if ((plan->flags & LLOG__PLAN_EAGER) || fixed > budget)
		return (size_t)-1;
	avail = budget - fixed;
	/* No string needs more than avail + 1 bytes looked at: past that it
	 * is clipped anyway. */
	lim = (avail < STR_LEN_MAX ? avail : STR_LEN_MAX) + 1;
	va_copy(aq, ap); /* a va_list we may pass by address */
	for (i = 0; i < plan->nargs; i++) {
		unsigned char scratch[LDBL_STORE], *sp = scratch;
		const char *s;
		size_t n, bound;

		/* fixed-size arguments: consumed (copied to scratch) */
		if (copy_fixed_arg(plan->type[i], &aq, &sp, &last_int))
			continue;
		s = va_arg(aq, const char *);
		slen[i] = 0;
		if (s == NULL)
			continue;
		bound = str_prec_bound(plan->type[i], last_int);
		n = strnlen(s, bound < lim ? bound : lim);
		if (n > STR_LEN_MAX) {
			n = STR_LEN_MAX;
			*truncated = 1;
		}
		slen[i] = (uint32_t)n;
		strs += n;
	}
	va_end(aq);
	if (strs > avail) {
		size_t excess = strs - avail;

		*truncated = 1;
		for (i = plan->nargs; i-- > 0 && excess > 0;) {
			size_t cut;

			if (!is_str(plan->type[i]))
				continue;
			cut = slen[i] < excess ? slen[i] : excess;
			slen[i] -= (uint32_t)cut;
			excess -= cut;
		}
		strs = avail;
	}
	return fixed + strs;
}

/*
 * Copies one non-string argument of type `code` from *ap to *d and advances
 * *d. Returns 0 when code is a string type (nothing consumed). The int of a
 * '*' precision is kept in *last_int for a following %.*s.
 */
static inline int copy_fixed_arg(uint8_t code, va_list *ap, unsigned char **d, int *last_int)
{
	switch (code) {
	case A_INT: {
		int v = va_arg(*ap, int);

		*last_int = v;
		memcpy(*d, &v, 4);
		*d += 4;
		return 1;
	}
	case A_I64: {
		long long v = va_arg(*ap, long long);

		memcpy(*d, &v, 8);
		*d += 8;
		return 1;
	}
	case A_DBL: {
		double v = va_arg(*ap, double);

		memcpy(*d, &v, 8);
		*d += 8;
		return 1;
	}
	case A_LDBL: {
		long double v = va_arg(*ap, long double);

		memcpy(*d, &v, sizeof(v));
		if (sizeof(v) < LDBL_STORE)
			memset(*d + sizeof(v), 0, LDBL_STORE - sizeof(v));
		*d += LDBL_STORE;
		return 1;
	}
	case A_PTR: {
		void *v = va_arg(*ap, void *);

		memcpy(*d, &v, 8);
		*d += 8;
		return 1;
	}
	case A_NPTR:
		(void)va_arg(*ap, void *); /* %n: never stored through */
		return 1;
	default:
		return 0;
	}
}

/* Stores a string argument: u32 length (STR_NULL for NULL), then bytes. */
static inline void put_str_arg(unsigned char **d, const char *s, size_t n)
{
	uint32_t n32 = s != NULL ? (uint32_t)n : STR_NULL;

	memcpy(*d, &n32, 4);
	if (s != NULL && n > 0)
		memcpy(*d + 4, s, n);
	*d += 4 + (s != NULL ? n : 0);
}

void llog__capture_write(const struct llog__plan *plan, va_list ap,
			 const uint32_t *slen, void *dst)
{
	unsigned char *d = dst;
	int last_int = -1;
	va_list aq;

	va_copy(aq, ap); /* a va_list we may pass by address */
	for (unsigned i = 0; i < plan->nargs; i++) {
		if (!copy_fixed_arg(plan->type[i], &aq, &d, &last_int))
			put_str_arg(&d, va_arg(aq, const char *), slen[i]);
	}
	va_end(aq);
}

size_t llog__capture_once(const struct llog__plan *plan, va_list ap, void *dst,
			  size_t cap, int *truncated)
{
	unsigned char *d = dst;
	size_t room = cap - plan->fixed_bytes; /* bytes left for string contents */
	int last_int = -1;
	va_list aq;

	va_copy(aq, ap); /* a va_list we may pass by address */
	for (unsigned i = 0; i < plan->nargs; i++) {
		uint8_t code = plan->type[i];
		const char *s;
		size_t pb, n = 0;

		if (copy_fixed_arg(code, &aq, &d, &last_int))
			continue;
		s = va_arg(aq, const char *);
		if (s != NULL) {
			pb = str_prec_bound(code, last_int);
			if (pb <= room) {
				n = strnlen(s, pb);
			} else {
				/* one byte more tells whether we clip */
				n = strnlen(s, room + 1);
				if (n > room) {
					n = room;
					*truncated = 1;
				}
			}
			room -= n;
		}
		put_str_arg(&d, s, n);
	}
	va_end(aq);
	return (size_t)(d - (unsigned char *)dst);
}

/* ---- output -------------------------------------------------------------- */

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
	if (is_str(code))
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

static void emit_int(struct llog__buf *o, char conv, unsigned fl, int width,
		     int prec, unsigned long long mag, int neg)
{
	static const char lower[] = "0123456789abcdef";
	static const char upper[] = "0123456789ABCDEF";
	static const char pairs[] =
		"00010203040506070809101112131415161718192021222324"
		"25262728293031323334353637383940414243444546474849"
		"50515253545556575859606162636465666768697071727374"
		"75767778798081828384858687888990919293949596979899";
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
		/* two digits per division */
		while (m >= 100) {
			unsigned r = (unsigned)(m % 100) * 2;

			m /= 100;
			*--d = pairs[r + 1];
			*--d = pairs[r];
		}
		if (m >= 10) {
			*--d = pairs[m * 2 + 1];
			*--d = pairs[m * 2];
		} else {
			*--d = (char)('0' + m);
		}
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
	ip = (uint64_t)(q / p10[prec]);
	frac = (uint64_t)(q % p10[prec]);
	for (int k = 0; k < prec; k++) {
		*--b = (char)('0' + frac % 10);
		frac /= 10;
	}
	if (prec > 0)
		*--b = '.';
	do {
		*--b = (char)('0' + ip % 10);
		ip /= 10;
	} while (ip != 0);
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

/* Renders one conversion. Returns 0 when the arguments ran out. */
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
		p = parse_spec(q + 1, &sp);
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

size_t llog__render(char *out, size_t cap, const char *fmt,
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

size_t llog__format_va(char *out, size_t cap, const char *fmt,
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
