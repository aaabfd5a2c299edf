/*
 * binpack.c - the packed argument encoding of binary files (binpack.h).
 */
#define _GNU_SOURCE
#include <string.h>

#include "binpack.h"
#include "fmt_spec.h"

/* 10^P, exact in a double for P <= 22. */
static const double pow10_tab[10] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9};

/*
 * The writer's step for each argument (op[]), resolved once per site from
 * its plan and decimals, so that packing a record walks the steps without
 * asking the type, the decimal or the delta slot again. OP_NOKEEP marks an
 * integer or decimal past the first LLOG__PACK_DELTA arguments: its
 * difference is from 0 and nothing is kept.
 */
enum {
	OP_END = 0, /* after the last argument (op[nargs]) */
	OP_INT,     /* int: 4 bytes, widened; the difference */
	OP_I64,     /* 64-bit integer or pointer: 8 bytes; the difference */
	OP_DEC,     /* "%.Pf" double: K's difference, or 1 and the 8 bytes */
	OP_DBL,     /* other double: the 8 bytes */
	OP_LDBL,    /* long double: LDBL_STORE bytes */
	OP_NPTR,    /* %n: nothing */
	OP_STR,     /* string: varint (length + 1), 0 for NULL; bytes */
	OP_BAD,     /* not a capture's type: every capture is refused */
	OP_STRR,    /* string with recent strings: ps->str[op - OP_STRR] */
	OP_NOKEEP = 0x10,
};

/* The step of argument k (type t, decimal dec: 0 or 1 + P). */
static uint8_t op_of(unsigned k, uint8_t t, uint8_t dec)
{
	uint8_t nokeep = k < LLOG__PACK_DELTA ? 0 : OP_NOKEEP;

	switch (t) {
	case A_INT:
		return OP_INT | nokeep;
	case A_I64:
	case A_PTR:
		return OP_I64 | nokeep;
	case A_DBL:
		return dec != 0 ? (uint8_t)(OP_DEC | nokeep) : OP_DBL;
	case A_LDBL:
		return OP_LDBL;
	case A_NPTR:
		return OP_NPTR;
	default:
		return llog__fmt_is_str(t) ? OP_STR : OP_BAD;
	}
}

/* The steps, OP_END after them, and the capture's fixed part; the first
 * LLOG__PACK_STRS strings keep recent strings (the reader counts them the
 * same way: llog__unpack). */
static void set_ops(struct llog__pack_site *ps, const struct llog__plan *plan)
{
	unsigned strs = 0;

	ps->fixed = 0;
	for (unsigned k = 0; k < plan->nargs; k++) {
		uint8_t op = op_of(k, plan->type[k], ps->dec[k]);

		if (op == OP_STR && strs < LLOG__PACK_STRS)
			op = (uint8_t)(OP_STRR + strs++);
		ps->op[k] = op;
		switch (op & ~OP_NOKEEP) {
		case OP_INT:
		case OP_STR:
		case OP_STRR:
		case OP_STRR + 1:
			ps->fixed += 4; /* an int, a string's length */
			break;
		case OP_I64:
		case OP_DEC:
		case OP_DBL:
			ps->fixed += 8;
			break;
		case OP_LDBL:
			ps->fixed += LDBL_STORE;
			break;
		case OP_NPTR:
			break;
		default: /* OP_BAD: no capture is this plan's layout */
			ps->fixed = SIZE_MAX;
			break;
		}
		if (ps->fixed == SIZE_MAX)
			break;
	}
	ps->op[plan->nargs] = OP_END;
	ps->nop = plan->nargs;
}

/* Sets ps's decimals from fmt, whose plan (not positional) is plan. */
static void set_decimals(struct llog__pack_site *ps, const char *fmt,
			 const struct llog__plan *plan)
{
	const char *p = fmt;
	unsigned k = 0;

	/* The walk of llog__fmt_plan_parse: the same specifications consume the
	 * same arguments, so argument k is plan->type[k]'s. */
	while (k < plan->nargs && *(p = strchrnul(p, '%')) != '\0') {
		struct spec sp;

		if (p[1] == '%') {
			p += 2;
			continue;
		}
		if ((p = llog__fmt_parse_spec(p + 1, &sp)) == NULL)
			return;
		k += (unsigned)(sp.width_star != 0) + (unsigned)(sp.prec_star != 0);
		if (sp.kind == A_NONE)
			continue;
		if (k >= plan->nargs)
			return;
		if (plan->type[k] == A_DBL && sp.kind == A_DBL && (sp.conv == 'f' || sp.conv == 'F') &&
		    !sp.prec_star && sp.prec <= 9)
			ps->dec[k] = (uint8_t)(1 + (sp.prec < 0 ? 6 : sp.prec));
		k++;
	}
}

void llog__pack_site_init(struct llog__pack_site *ps, const char *fmt,
			  const struct llog__plan *plan)
{
	memset(ps, 0, sizeof(*ps));
	if (!(plan->flags & LLOG__PLAN_POS)) /* by index, not this walk: no decimals */
		set_decimals(ps, fmt, plan);
	set_ops(ps, plan);
}

/* ---- bytes ------------------------------------------------------------------ */

static char *put_varint(char *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (char)(v | 0x80);
		v >>= 7;
	}
	*p++ = (char)v;
	return p;
}

static uint64_t zigzag(uint64_t d)
{
	return (d << 1) ^ (uint64_t)((int64_t)d >> 63);
}

static uint64_t unzigzag(uint64_t z)
{
	return (z >> 1) ^ (0 - (z & 1));
}

/* Reads a varint of at most 10 bytes from *p (< end); NULL when malformed. */
static const unsigned char *get_varint(const unsigned char *p, const unsigned char *end,
				       uint64_t *v)
{
	uint64_t r = 0;

	for (unsigned s = 0; p < end && s < 70; s += 7) {
		unsigned char b = *p++;

		r |= (uint64_t)(b & 0x7f) << s;
		if (!(b & 0x80)) {
			*v = r;
			return p;
		}
	}
	return NULL;
}

static __attribute__((unused)) uint64_t le(const unsigned char *p, unsigned n)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

static void put_le(unsigned char *p, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

/* Copies n bytes from *in (< end) to *out, moving both; 0 when fewer are
 * left (bytes kept as they are: doubles, long doubles). */
static int copy_raw(unsigned char **out, const unsigned char **in, const unsigned char *end,
		    size_t n)
{
	if ((size_t)(end - *in) < n)
		return 0;
	memcpy(*out, *in, n);
	*out += n;
	*in += n;
	return 1;
}

/*
 * K with v = K / 10^P printing the same "%.Pf" text, or 0 when there is
 * none we can prove. x = v * 10^P is within half an ulp of the exact
 * product X; with |x| < 2^40 that ulp is at most 2^-12, so when x is more
 * than 2^-10 away from a half-integer, X rounds (as printf rounds it) to the
 * same integer K as x does. Decoding, d = K / 10^P is within 2^-13 of K
 * after scaling, so it prints K's digits too. A negative v that prints as
 * "-0.000" has no K (K = 0 prints "0.000"); NaN and infinities fail the
 * range check.
 */
static int decimal_of(double v, unsigned prec, int64_t *k)
{
	double x = v * pow10_tab[prec], f;
	int64_t t;

	if (!(x > -0x1p40 && x < 0x1p40))
		return 0;
	t = (int64_t)x;       /* toward zero */
	f = x - (double)t;    /* exact: (-1, 1) */
	if (f >= 0) {
		if (f > 0.5 - 0x1p-10 && f < 0.5 + 0x1p-10)
			return 0;
		t += f > 0.5;
	} else {
		if (f < -0.5 + 0x1p-10 && f > -0.5 - 0x1p-10)
			return 0;
		t -= f < -0.5;
	}
	if (t == 0 && __builtin_signbit(v))
		return 0;
	*k = t;
	return 1;
}

/* ---- pack ------------------------------------------------------------------- */

/* Copies n bytes from src to dst, short strings without a call: two
 * overlapping moves of 16, 8 or 4 bytes within both. */
static inline void copy_short(char *dst, const unsigned char *src, size_t n)
{
	uint64_t x, y;
	uint32_t u, v;

	if (n > 16 && n <= 32) {
		uint64_t w[4];

		memcpy(w, src, 16);
		memcpy(w + 2, src + n - 16, 16);
		memcpy(dst, w, 16);
		memcpy(dst + n - 16, w + 2, 16);
	} else if (n >= 8 && n <= 16) {
		memcpy(&x, src, 8);
		memcpy(&y, src + n - 8, 8);
		memcpy(dst, &x, 8);
		memcpy(dst + n - 8, &y, 8);
	} else if (n >= 4 && n < 8) {
		memcpy(&u, src, 4);
		memcpy(&v, src + n - 4, 4);
		memcpy(dst, &u, 4);
		memcpy(dst + n - 4, &v, 4);
	} else if (n < 4) {
		for (size_t i = 0; i < n; i++)
			dst[i] = (char)src[i];
	} else {
		memcpy(dst, src, n);
	}
}

/* Whether the n bytes (8 <= n <= LLOG__PACK_STR_MAX) at s and at a are
 * the same: as copy_short, two overlapping loads of each. */
static inline int eq_short(const char *s, const unsigned char *a, size_t n)
{
	uint64_t x[4], y[4];

	if (n > 16) {
		memcpy(x, s, 16);
		memcpy(x + 2, s + n - 16, 16);
		memcpy(y, a, 16);
		memcpy(y + 2, a + n - 16, 16);
		return ((x[0] ^ y[0]) | (x[1] ^ y[1]) | (x[2] ^ y[2]) | (x[3] ^ y[3])) == 0;
	}
	memcpy(x, s, 8);
	memcpy(x + 1, s + n - 8, 8);
	memcpy(y, a, 8);
	memcpy(y + 1, a + n - 8, 8);
	return ((x[0] ^ y[0]) | (x[1] ^ y[1])) == 0;
}

/* The key of the string a[0..n) (n <= LLOG__PACK_STR_MAX): its first 7
 * bytes (fewer: zero) and its length; the whole string when n < 8, else a
 * filter before the compare. */
static inline uint64_t recent_key(const unsigned char *a, size_t n)
{
	uint64_t k = 0;

	if (n >= 8)
		memcpy(&k, a, 8);
	else
		for (size_t i = 0; i < n; i++)
			k |= (uint64_t)a[i] << (8 * i);
	return (k & 0x00ffffffffffffffu) | (uint64_t)n << 56;
}

/* Whether slot j of r, whose key is k, holds the string a[0..n) (n <=
 * LLOG__PACK_STR_MAX): the key gives the length and the first 7 bytes, so
 * a string of 8 to 15 bytes needs only its last 8 compared. */
static inline int recent_is(const struct llog__pack_recent *r, unsigned j, uint64_t k,
			    const unsigned char *a, size_t n)
{
	uint64_t x, y;

	if (r->key[j] != k)
		return 0;
	if (n < 8)
		return 1;
	if (n >= 16)
		return eq_short(r->s[j], a, n);
	memcpy(&x, r->s[j] + n - 8, 8);
	memcpy(&y, a + n - 8, 8);
	return x == y;
}

/* Whether r holds the string a[0..n) (n <= LLOG__PACK_STR_MAX); if so, its
 * one byte (1 + its slot) is written at p. First slot `want`, the one
 * after the one found last (strings that come back in turn, as a few peers
 * or users do, are found there at once: the slots fill in turn), then the
 * keys of all the filled slots compared at once, the bytes of those that
 * match. The filled slots hold distinct strings (one joins only when it is
 * not found), so the order of the search never changes the slot found.
 * The writer only (want). */
static inline int recent_put(struct llog__pack_recent *r, const unsigned char *a, size_t n,
			     char *p)
{
	const uint64_t k = recent_key(a, n);
	const unsigned filled = r->n;
	unsigned m = 0, j = r->want;

	if (__builtin_expect(j < filled && recent_is(r, j, k, a, n), 1))
		goto found;
	_Static_assert(LLOG__PACK_RECENT == 4, "the compares below");
	m |= (unsigned)(r->key[0] == k);
	m |= (unsigned)(r->key[1] == k) << 1;
	m |= (unsigned)(r->key[2] == k) << 2;
	m |= (unsigned)(r->key[3] == k) << 3;
	m &= (1u << filled) - 1;
	for (; m != 0; m &= m - 1) {
		j = (unsigned)__builtin_ctz(m);
		if (n < 8 || eq_short(r->s[j], a, n))
			goto found;
	}
	return 0;
found:
	*p = (char)(1 + j);
	r->want = (uint8_t)(j + 1u < filled ? j + 1u : 0u);
	return 1;
}

/* The string a[0..n) (n <= LLOG__PACK_STR_MAX), written out, goes to r's
 * next slot. */
static void recent_add(struct llog__pack_recent *r, const unsigned char *a, size_t n)
{
	unsigned j = r->next;

	copy_short(r->s[j], a, n);
	r->len[j] = (uint8_t)n;
	r->key[j] = recent_key(a, n);
	r->next = (uint8_t)((j + 1) % LLOG__PACK_RECENT);
	if (r->n < LLOG__PACK_RECENT)
		r->n++;
}

/* A capture's little-endian number of n bytes (4 or 8) at p. */
static inline uint64_t ld(const unsigned char *p, unsigned n)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint32_t u;
	uint64_t v;

	if (n == 4) {
		memcpy(&u, p, 4);
		return u;
	}
	memcpy(&v, p, 8);
	return v;
#else
	return le(p, n);
#endif
}

/* A string's captured length at *a, moved past: STR_NULL for NULL, more
 * than STR_NULL when its bytes are more than the capture has left over
 * (*slack: what its fixed part leaves, less the strings before), else the
 * length, taken from *slack. */
static inline uint64_t str_len(const unsigned char **a, size_t *slack)
{
	uint64_t v = ld(*a, 4);

	*a += 4;
	if (v == STR_NULL)
		return v;
	if (v > *slack)
		return (uint64_t)STR_NULL + 1;
	*slack -= v;
	return v;
}

/* A refused capture at argument j: ps as it was. With the frame's stamp
 * new (all set, every previous value and recent string was cleared), all
 * of them from all and alln (each str[]'s n and next); else those of the
 * arguments before j that keep one, from old (each saved there before it
 * was replaced). The recent strings change only once a capture is packed
 * whole. */
static __attribute__((noinline, cold)) size_t
refuse(struct llog__pack_site *ps, const int64_t *old, const int64_t *all,
       uint8_t (*alln)[2], unsigned j, uint64_t stamp)
{
	if (ps->stamp != stamp) {
		memcpy(ps->last, all, sizeof(ps->last));
		for (unsigned i = 0; i < LLOG__PACK_STRS; i++) {
			ps->str[i].n = alln[i][0];
			ps->str[i].next = alln[i][1];
		}
		ps->stamp = stamp;
		return (size_t)-1;
	}
	for (unsigned i = 0; i < j && i < LLOG__PACK_DELTA; i++)
		if (ps->op[i] == OP_INT || ps->op[i] == OP_I64 || ps->op[i] == OP_DEC)
			ps->last[i] = old[i];
	return (size_t)-1;
}

/* A new frame for ps (stamp): every previous value and recent string
 * cleared, what they were saved in all and alln for refuse. */
static __attribute__((noinline)) void new_frame(struct llog__pack_site *ps, uint64_t stamp,
						int64_t *all, uint8_t (*alln)[2])
{
	memcpy(all, ps->last, sizeof(ps->last));
	memset(ps->last, 0, sizeof(ps->last));
	for (unsigned i = 0; i < LLOG__PACK_STRS; i++) {
		alln[i][0] = ps->str[i].n;
		alln[i][1] = ps->str[i].next;
		ps->str[i].n = 0;
		ps->str[i].next = 0;
	}
	ps->stamp = stamp;
}

/*
 * One pass along the site's steps (op[], made from the plan when the site
 * was defined: the type, the decimal and the delta slot are not asked per
 * record, and OP_END after the last), the previous values updated in ps as
 * it goes. The bytes are checked against the capture's length once for the
 * fixed part (ps->fixed: every argument's bytes but a string's own) and
 * then only at each string (its bytes within what is left over, `slack`):
 * every read stays within the capture, and it is whole when slack ends at
 * 0. A refused capture leaves ps as it was (the reader never sees it), but
 * for a recent string's want (recent_put: no byte depends on it): one
 * shorter than its fixed part before anything changed; else each previous
 * value is saved in old before it is replaced, all of them in `all` when a
 * new frame starts them at 0 (refuse); the strings that join the recent
 * ones (add[], bit i of adds) join once the whole capture is packed.
 */
size_t llog__pack(char *dst, struct llog__pack_site *ps, uint64_t stamp,
		  const struct llog__plan *plan, const unsigned char *args, size_t len)
{
	const unsigned char *a = args;
	uint64_t old_stamp = ps->stamp;
	size_t slack;
	unsigned i = 0, adds = 0;
	struct llog__pack_recent *r;
	int64_t old[LLOG__PACK_DELTA], all[LLOG__PACK_DELTA];
	uint8_t alln[LLOG__PACK_STRS][2]; /* each str[]'s n and next */
	/* the strings to add to the recent ones (where adds has bit i), after
	 * their capture's u32 length */
	const unsigned char *add[LLOG__PACK_STRS];
	char *p = dst;

	if (__builtin_expect(plan->nargs != ps->nop || len < ps->fixed, 0))
		return (size_t)-1; /* not the plan ps was made for, or short: nothing changed */
	slack = len - ps->fixed;
	if (__builtin_expect(old_stamp != stamp, 0))
		new_frame(ps, stamp, all, alln);
	for (;; i++) {
		const uint8_t op = ps->op[i];
		uint64_t v;
		double d;
		int64_t k;

		switch (op) {
		case OP_END:
			goto end;
		case OP_INT:
			v = (uint64_t)(int64_t)(int32_t)(uint32_t)ld(a, 4);
			a += 4;
			old[i] = ps->last[i];
			ps->last[i] = (int64_t)v;
			p = put_varint(p, zigzag(v - (uint64_t)old[i]));
			continue;
		case OP_INT | OP_NOKEEP:
			v = (uint64_t)(int64_t)(int32_t)(uint32_t)ld(a, 4);
			a += 4;
			p = put_varint(p, zigzag(v));
			continue;
		case OP_I64:
			v = ld(a, 8);
			a += 8;
			old[i] = ps->last[i];
			ps->last[i] = (int64_t)v;
			p = put_varint(p, zigzag(v - (uint64_t)old[i]));
			continue;
		case OP_I64 | OP_NOKEEP:
			v = ld(a, 8);
			a += 8;
			p = put_varint(p, zigzag(v));
			continue;
		case OP_DEC:
			memcpy(&d, a, 8);
			a += 8;
			old[i] = ps->last[i]; /* unchanged if not a decimal: refuse restores it as is */
			if (decimal_of(d, ps->dec[i] - 1u, &k)) {
				ps->last[i] = k;
				k = (int64_t)((uint64_t)k - (uint64_t)old[i]);
				p = put_varint(p, zigzag((uint64_t)k) << 1);
				continue;
			}
			goto not_decimal;
		case OP_DEC | OP_NOKEEP:
			memcpy(&d, a, 8);
			a += 8;
			if (decimal_of(d, ps->dec[i] - 1u, &k)) {
				p = put_varint(p, zigzag((uint64_t)k) << 1);
				continue;
			}
		not_decimal:
			*p++ = 1; /* the bytes follow */
			memcpy(p, a - 8, 8);
			p += 8;
			continue;
		case OP_DBL:
			memcpy(p, a, 8);
			p += 8;
			a += 8;
			continue;
		case OP_LDBL:
			memcpy(p, a, LDBL_STORE);
			p += LDBL_STORE;
			a += LDBL_STORE;
			continue;
		case OP_NPTR:
			continue;
		case OP_STR:
			if ((v = str_len(&a, &slack)) >= STR_NULL) {
				if (v != STR_NULL)
					goto refused;
				*p++ = 0;
				continue;
			}
			p = put_varint(p, v + 1);
			copy_short(p, a, (size_t)v);
			p += v;
			a += v;
			continue;
		case OP_STRR:
			r = &ps->str[0];
			goto recent;
		case OP_STRR + 1:
			r = &ps->str[1];
		recent:
			if ((v = str_len(&a, &slack)) >= STR_NULL) {
				if (v != STR_NULL)
					goto refused;
				*p++ = 0;
				continue;
			}
			if (v <= LLOG__PACK_STR_MAX) {
				if (recent_put(r, a, (size_t)v, p)) {
					p++;
					a += v;
					continue;
				}
				add[r - ps->str] = a;
				adds |= 1u << (r - ps->str);
			}
			p = put_varint(p, v + 1 + LLOG__PACK_RECENT);
			copy_short(p, a, (size_t)v);
			p += v;
			a += v;
			continue;
		case OP_BAD: /* never: its site's fixed part is SIZE_MAX */
			goto refused;
		default: /* set_ops makes no other step */
			__builtin_unreachable();
		}
	}
end:
	if (__builtin_expect(slack == 0, 1)) {
		if (__builtin_expect(adds != 0, 0))
			for (i = 0; i < LLOG__PACK_STRS; i++)
				if (adds & (1u << i))
					recent_add(&ps->str[i], add[i], (size_t)ld(add[i] - 4, 4));
		return (size_t)(p - dst);
	}
refused:
	return refuse(ps, old, all, alln, i, old_stamp);
}

/* ---- unpack ----------------------------------------------------------------- */

size_t llog__unpack(unsigned char *out, struct llog__pack_site *ps, uint64_t stamp,
		    unsigned ver, const struct llog__plan *plan, const unsigned char *in,
		    size_t len, const char **why)
{
	const unsigned char *q = in, *end = in + len;
	unsigned char *o = out;
	/* the string arguments met so far: the first LLOG__PACK_STRS keep
	 * recent strings from version LLOG__PACK_VER_RECENT on (set_ops) */
	unsigned strs = ver >= LLOG__PACK_VER_RECENT ? 0 : LLOG__PACK_STRS;
	struct llog__pack_recent *r;

	*why = "packed arguments cut short";
	if (ps->stamp != stamp) {
		memset(ps->last, 0, sizeof(ps->last));
		for (unsigned i = 0; i < LLOG__PACK_STRS; i++)
			ps->str[i].n = ps->str[i].next = 0;
		ps->stamp = stamp;
	}
	for (unsigned i = 0; i < plan->nargs; i++) {
		uint8_t t = plan->type[i];
		int64_t zero = 0, *last = i < LLOG__PACK_DELTA ? &ps->last[i] : &zero;
		uint64_t v;

		switch (t) {
		case A_INT:
		case A_I64:
		case A_PTR:
			if ((q = get_varint(q, end, &v)) == NULL)
				return (size_t)-1;
			v = (uint64_t)*last + unzigzag(v);
			if (t == A_INT) /* as the writer kept it: the int, widened */
				v = (uint64_t)(int64_t)(int32_t)(uint32_t)v;
			*last = (int64_t)v;
			put_le(o, v, t == A_INT ? 4 : 8);
			o += t == A_INT ? 4 : 8;
			continue;
		case A_DBL:
			if (ps->dec[i] != 0) {
				if ((q = get_varint(q, end, &v)) == NULL)
					return (size_t)-1;
				if ((v & 1) == 0) {
					int64_t k = (int64_t)((uint64_t)*last + unzigzag(v >> 1));
					double d = (double)k / pow10_tab[ps->dec[i] - 1u];

					*last = k;
					memcpy(o, &d, 8);
					o += 8;
					continue;
				}
				if (v != 1) {
					*why = "bad packed double";
					return (size_t)-1;
				}
			}
			__attribute__((fallthrough)); /* the 8 bytes */
		case A_LDBL:
			if (!copy_raw(&o, &q, end, t == A_LDBL ? LDBL_STORE : 8))
				return (size_t)-1;
			continue;
		case A_NPTR:
			continue;
		default:
			break;
		}
		if (!llog__fmt_is_str(t)) {
			*why = "bad plan";
			return (size_t)-1;
		}
		/* this string's recent strings, if it keeps them */
		r = strs < LLOG__PACK_STRS ? &ps->str[strs++] : NULL;
		if ((q = get_varint(q, end, &v)) == NULL)
			return (size_t)-1;
		if (v == 0) {
			put_le(o, STR_NULL, 4);
			o += 4;
			continue;
		}
		if (r != NULL) {
			if (v <= LLOG__PACK_RECENT) { /* a recent string */
				unsigned k = (unsigned)v - 1;

				if (k >= r->n) {
					*why = "bad recent string";
					return (size_t)-1;
				}
				put_le(o, r->len[k], 4);
				memcpy(o + 4, r->s[k], r->len[k]);
				o += 4 + r->len[k];
				continue;
			}
			v -= LLOG__PACK_RECENT; /* then as any string */
			if (v - 1 <= LLOG__PACK_STR_MAX && v - 1 <= (uint64_t)(end - q))
				recent_add(r, q, (size_t)(v - 1));
		}
		if (v - 1 > (uint64_t)(end - q) || v - 1 > STR_LEN_MAX)
			return (size_t)-1;
		put_le(o, v - 1, 4);
		memcpy(o + 4, q, (size_t)(v - 1));
		o += 4 + (v - 1);
		q += v - 1;
	}
	if (q != end) {
		*why = "bytes after the packed arguments";
		return (size_t)-1;
	}
	*why = NULL;
	return (size_t)(o - out);
}
