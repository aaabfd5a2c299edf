/*
 * f64_text.c - a double as text: the shortest of %.15g, %.16g, %.17g that
 * reads back to it (f64_text.h), computed exactly with integers, without
 * snprintf or strtod. Called by the line formatter (line_fields.c) for
 * every F64 field, the crash drain's included.
 *
 * DESIGN
 * A finite nonzero d = c * 2^q (c the 53-bit significand, or the field
 * alone for a subnormal). strtod reads a decimal back to d exactly when
 * it lies in d's rounding interval, whose ends are
 *   lo = (4c - 2) * 2^(q-2)   (4c - 1 when c = 2^52 above the smallest
 *                              binade: the gap below is half as wide)
 *   hi = (4c + 2) * 2^(q-2),  both ends included when c is even
 * (ties to even). X = floor(log10 d) and k = 16 - X scale d to
 *   v = d * 10^k = 4c * 2^(q-2) * 10^k,   10^16 <= v < 10^17,
 * and I = floor(v) with sticky = (v != I). Then %.{p}g's digits for every
 * p <= 17 follow from I alone, with no second rounding:
 *   N_p = round-half-even(v / 10^(17-p)), the remainder I mod 10^(17-p)
 *   against half of 10^(17-p), sticky breaking its tie (p = 17: v
 *   against I + 1/2), and N_p reads back iff lo < N_p * 10^(17-p) < hi
 *   (scaled by the same 10^k; <= when c is even).
 * The first p from 15 (1 for a subnormal) whose N_p reads back is the one
 * the snprintf/strtod loop settles on; %g's layout follows (fixed when
 * -4 <= X_p < p, trailing zeros cut, exponent of two digits at least).
 *
 * Every comparison is sign(m * 2^(q-2) * 10^k - T) for an integer m < 2^57
 * (4c, 8c, the ends' numerators) and an integer T < 2^58. m * G, G the
 * first 128 bits of 10^k (f64_pow10.h, made by scripts/gen_pow10.py),
 * is at most m below the exact product (G is truncated, and exact for
 * 0 <= k <= 55), which is less than 2^-67 of the scaled value's unit.
 * So the integer part and the next 64 bits of m * G >> s decide every
 * comparison (cmp) but where T is within 2^-64 of the value: then the
 * whole product does (cmp_full), and where T * 2^s falls in its error
 * the comparison is redone exactly with big integers (cmp_exact:
 * m * 5^k * 2^(q-2+k) against T, at most about 860 bits). That last,
 * slow, path is what an exact tie under an inexact power of ten takes:
 * an integer-valued double from about 1e17 to 1e39 whose value times
 * 10^k (k < 0) is an integer or a half (about 1 in 1000 random bit
 * patterns, 35,000 of i * 1e18 for i < 10^6); an end of the rounding
 * interval that is exactly a p-digit decimal N * 10^(17-p) (c even or
 * odd then decides whether it reads back); and any value within 2^-67
 * of such a tie without being one. The big integers are then of a few
 * words, and the result is exact either way.
 * No state but the constant tables; no memory orderings are involved.
 *
 * The doubles a program usually logs, 1e-11 <= |d| < 1e15 (f64_mid), skip
 * the table and the products: there 10^k = 5^k * 2^k with 5^k below 2^64,
 * so d * 10^k = c * 5^k / 2^s is exact in 128 bits and every step above
 * (the digits, their rounding, the read-back test) is an exact operation
 * on one or two words. The general path is a function of its own
 * (f64_wide), so these doubles' calls keep a small frame.
 *
 * Cost (callgrind, `bash bench/flusher_cost.sh 100000 kv`, whose record
 * has an int, a double and a string field): the field section went from
 * 6,674 instructions per record with snprintf/strtod to 984 (780 once the
 * keys and strings were scanned 16 bytes at a time, bench/README.md), of
 * which llog__f64_text was about 390, then 368; about 240 with f64_mid
 * (its doubles, i * 0.0173, need 15 digits or fewer four times in five,
 * 16 or 17 otherwise: one to three steps of its loop) and the last 8
 * digits made only when they are not all zeros; about 222 with the
 * estimate's product kept for 15 digits and the general path out of line.
 */
#include <stdint.h>
#include <string.h>

#include "f64_pow10.h"
#include "f64_text.h"

__extension__ typedef unsigned __int128 u128; /* GNU extension, gcc and clang */

static const uint64_t pow10u[18] = {
	1u, 10u, 100u, 1000u, 10000u, 100000u, 1000000u, 10000000u, 100000000u,
	1000000000u, 10000000000u, 100000000000u, 1000000000000u, 10000000000000u,
	100000000000000u, 1000000000000000u, 10000000000000000u, 100000000000000000u,
};

/* 10^k as G * 2^(-s - (q-2)): the scale of the comparisons. */
struct scale {
	uint64_t hi, lo; /* G */
	unsigned s;	 /* value = m * G >> s; 64 < s <= 132 */
	int exact;	 /* G is 10^k exactly */
	int k, e2;	 /* for cmp_exact: e2 = q - 2 */
	/* the same with s made 128: value = (m << ms) * (G >> gs) >> 128 */
	uint64_t ghi, glo;
	unsigned ms, gs;
};

/* The value m * 2^(q-2) * 10^k as i + f / 2^64: i and f the top and the
 * middle word of (m << ms) * (G >> gs). It is short of the exact value
 * by less than (m << ms) / 2^128 (ms > 0) or 2m / 2^128 (gs > 0), both
 * below 2^-67: the value is below 2^60 (10^18, before X's step up; 2^58
 * after it) and G at least 2^127, so m << ms < 2^61. The exact value
 * lies in [i + f / 2^64, i + (f + 1) / 2^64 + 2^-67). */
struct prod {
	uint64_t m, i, f;
};

static void scale_set(struct scale *sc, int k, int q)
{
	const struct llog__f64_pow10 *t = &llog__f64_pow10[k - LLOG__F64_POW10_KMIN];

	sc->hi = t->hi;
	sc->lo = t->lo;
	sc->k = k;
	sc->e2 = q - 2;
	sc->s = (unsigned)-(t->e + q - 2);
	sc->exact = k >= 0 && k <= 55;
	sc->ms = sc->s < 128 ? 128 - sc->s : 0; /* m << ms < 2^61 */
	sc->gs = sc->s > 128 ? sc->s - 128 : 0;
	sc->ghi = sc->gs ? sc->hi >> sc->gs : sc->hi;
	sc->glo = sc->gs ? sc->lo >> sc->gs | sc->hi << (64 - sc->gs) : sc->lo;
}

static inline void mul(struct prod *p, uint64_t m, const struct scale *sc)
{
	uint64_t ms = m << sc->ms;
	u128 a = (u128)ms * sc->glo, b = (u128)ms * sc->ghi;
	u128 mid = (a >> 64) + (uint64_t)b;

	p->m = m;
	p->f = (uint64_t)mid;
	p->i = (uint64_t)(b >> 64) + (uint64_t)(mid >> 64);
}

/* ---- the exact comparison, for the rare cases the product leaves open ---- */

#define BIG_LIMBS 40 /* 1280 bits; the largest operand is about 860 */

struct big {
	int n;
	uint32_t d[BIG_LIMBS];
};

static void big_set(struct big *x, uint64_t v)
{
	x->d[0] = (uint32_t)v;
	x->d[1] = (uint32_t)(v >> 32);
	x->n = x->d[1] ? 2 : x->d[0] ? 1 : 0;
}

static void big_mul32(struct big *x, uint32_t f)
{
	uint64_t carry = 0;

	for (int i = 0; i < x->n; i++) {
		uint64_t t = (uint64_t)x->d[i] * f + carry;

		x->d[i] = (uint32_t)t;
		carry = t >> 32;
	}
	if (carry)
		x->d[x->n++] = (uint32_t)carry;
}

static void big_mul_pow5(struct big *x, int e)
{
	static const uint32_t pow5[13] = {
		1u, 5u, 25u, 125u, 625u, 3125u, 15625u, 78125u, 390625u, 1953125u,
		9765625u, 48828125u, 244140625u,
	};

	for (; e >= 13; e -= 13)
		big_mul32(x, 1220703125u); /* 5^13 */
	if (e > 0)
		big_mul32(x, pow5[e]);
}

static void big_shl(struct big *x, int bits)
{
	int w = bits / 32, r = bits % 32;

	if (x->n == 0)
		return;
	x->d[x->n] = 0;
	for (int i = x->n; i >= 0; i--) {
		uint32_t v = x->d[i] << r;

		if (r && i > 0)
			v |= x->d[i - 1] >> (32 - r);
		x->d[i + w] = v;
	}
	for (int i = 0; i < w; i++)
		x->d[i] = 0;
	x->n += w + 1;
	while (x->n > 0 && x->d[x->n - 1] == 0)
		x->n--;
}

static int big_cmp(const struct big *a, const struct big *b)
{
	if (a->n != b->n)
		return a->n < b->n ? -1 : 1;
	for (int i = a->n - 1; i >= 0; i--)
		if (a->d[i] != b->d[i])
			return a->d[i] < b->d[i] ? -1 : 1;
	return 0;
}

/* sign(m * 2^e2 * 10^k - t), exactly: m * 5^k * 2^(e2+k) against t, the
 * negative powers moved to t's side. */
static int cmp_exact(uint64_t m, uint64_t t, int k, int e2)
{
	struct big a, b;

	big_set(&a, m);
	big_set(&b, t);
	big_mul_pow5(k >= 0 ? &a : &b, k >= 0 ? k : -k);
	if (e2 + k >= 0)
		big_shl(&a, e2 + k);
	else
		big_shl(&b, -(e2 + k));
	return big_cmp(&a, &b);
}

/* sign(p->m * 2^(q-2) * 10^k - t): from the whole product P = m * G
 * when it decides (the exact product lies in [P, P + m)), exactly
 * otherwise. */
static int cmp_full(const struct prod *p, uint64_t t, const struct scale *sc)
{
	uint64_t tw[3] = {0, 0, 0}, pw[3], d0, d1, d2, br;
	unsigned w = sc->s / 64, r = sc->s % 64;
	u128 a = (u128)p->m * sc->lo, b = (u128)p->m * sc->hi;
	u128 mid = (a >> 64) + (uint64_t)b;

	pw[0] = (uint64_t)a;
	pw[1] = (uint64_t)mid;
	pw[2] = (uint64_t)(b >> 64) + (uint64_t)(mid >> 64);
	tw[w] = t << r; /* T * 2^s fits in 192 bits */
	if (r && w < 2)
		tw[w + 1] = t >> (64 - r);
	for (int i = 2; i >= 0; i--) {
		if (pw[i] != tw[i]) {
			if (pw[i] > tw[i])
				return 1;
			goto below;
		}
	}
	return sc->exact ? 0 : 1; /* P == T * 2^s: above by delta * m > 0 */
below:
	if (sc->exact)
		return -1;
	d0 = tw[0] - pw[0];
	br = tw[0] < pw[0];
	d1 = tw[1] - pw[1] - br;
	br = tw[1] < pw[1] || (tw[1] == pw[1] && br);
	d2 = tw[2] - pw[2] - br;
	if (d2 || d1 || d0 >= p->m)
		return -1; /* exact < P + m <= T * 2^s */
	return cmp_exact(p->m, t, sc->k, sc->e2);
}

/* The same, from i and f alone unless t is i with f = 0 (v may be t) or
 * i + 1 with f all ones (v may reach t): the usual case costs two
 * compares. */
static inline int cmp(const struct prod *p, uint64_t t, const struct scale *sc)
{
	if (t < p->i)
		return 1;
	if (t > p->i + 1)
		return -1;
	if (t == p->i && p->f != 0)
		return 1;
	if (t == p->i + 1 && p->f != UINT64_MAX)
		return -1;
	return cmp_full(p, t, sc);
}

/* 5^k, 0 <= k <= 27 (5^27 is the largest below 2^64). */
static const uint64_t pow5u[28] = {
	1u, 5u, 25u, 125u, 625u, 3125u, 15625u, 78125u, 390625u, 1953125u, 9765625u,
	48828125u, 244140625u, 1220703125u, 6103515625u, 30517578125u, 152587890625u,
	762939453125u, 3814697265625u, 19073486328125u, 95367431640625u,
	476837158203125u, 2384185791015625u, 11920928955078125u, 59604644775390625u,
	298023223876953125u, 1490116119384765625u, 7450580596923828125u,
};

/*
 * The loop for a normal d whose X (x the estimate, X = x or x + 1) is in
 * [-11, 14]: 1e-11 <= |d| < 1e15, the doubles a program usually logs. With
 * k = 14 - X, d * 10^k = c * 5^k / 2^s, s = -(q + k) > 0, and c * 5^k < 2^117
 * is exact in 128 bits (5^k < 2^64 up to k = 27, and p = 17 takes k + 2
 * <= 27). So each p's digits n = round-half-even(c * 5^kp / 2^sp) and the
 * read-back test are exact integer operations, no table of 10^k and no
 * product to correct: n * 2^sp - c * 5^kp is at most 2^(sp-1) either way
 * (a 64-bit difference), and n reads back when 4 times it is within the
 * interval's half widths 2^(q-1) above and 2^(q-1) or 2^(q-2) below, times
 * 10^kp and 2^(sp+2): 2 * 5^kp and 2 * 5^kp or 5^kp.
 * (An end of the interval, (2c +- 1) * 2^(q-1), is never a decimal of 16
 * digits or fewer here: that needs d >= 2^54. So the ends' ties are
 * decided as in the general path but never met.)
 * Returns 0 (nothing written to *np, *pp, *xp) outside that range.
 */
static int f64_mid(uint64_t c, int q, int x, uint64_t *np, int *pp, int *xp)
{
	int k = 14 - x, s = -(q + k), p;
	uint64_t n = 0;

	u128 v;

	if (x < -11 || x > 13 || s < 3 || s > 61)
		return 0;
	v = (u128)c * pow5u[k]; /* the estimate's product: p = 15's too */
	if ((uint64_t)(v >> s) >= pow10u[15]) { /* X = x + 1 */
		x++;
		k--;
		s++;
		v = (u128)c * pow5u[k];
	}
	for (p = 15;; p++) {
		/* v = c * 5^kp = hi:lo, d * 10^kp = v / 2^sp, 1 <= sp <= 62 */
		int kp = k + p - 15, sp = s - (p - 15);
		uint64_t lo = (uint64_t)v, hi = (uint64_t)(v >> 64), w = pow5u[kp];
		uint64_t half = UINT64_C(1) << (sp - 1), r = lo & ((half << 1) - 1), ad;
		int64_t diff;

		n = lo >> sp | hi << (64 - sp); /* < 2^57 */
		n += r > half || (r == half && (n & 1));
		if (p == 17)
			break;
		/* n * 2^sp - v, at most 2^(sp-1) either way: its low 64 bits */
		diff = (int64_t)((n << sp) - lo);
		ad = diff >= 0 ? 2 * (uint64_t)diff
			       : (c == UINT64_C(1) << 52 ? 4 : 2) * (0 - (uint64_t)diff);
		if (ad < w || (ad == w && !(c & 1)))
			break; /* n * 10^-kp reads back to d */
		v = (u128)c * pow5u[kp + 1];
	}
	*np = n;
	*pp = p;
	*xp = x;
	return 1;
}

/* %g's layout of the p-digit n times 10^(x - p + 1), radix '.', with ".0"
 * when there would be neither '.' nor 'e'. */
static inline __attribute__((always_inline)) size_t put_g(char *b, size_t o, uint64_t n, int p,
							   int x)
{
	/* n's 24 digits (n < 10^17: the first 7 are zeros), then '0's: read
	 * 17 or 16 at a time from the p-th last */
	char all[48];
	uint64_t hi = n / 100000000u, w[3], zeros = UINT64_C(0x3030303030303030);
	const char *dig = all + 24 - p;
	int nd, tz;

	w[2] = n - hi * 100000000u; /* the last 8 digits, often all zeros (a short decimal) */
	w[2] = w[2] != 0 ? llog__digits8((uint32_t)w[2]) : 0;
	w[0] = 0; /* n < 10^16 (p <= 16): no digit above the 16 */
	if (hi >= 100000000u) {
		w[0] = llog__digits8((uint32_t)(hi / 100000000u));
		hi %= 100000000u;
	}
	w[1] = llog__digits8((uint32_t)hi);
	for (int i = 0; i < 3; i++) {
		uint64_t t = w[i] + zeros;

#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
		t = __builtin_bswap64(t); /* the first digit at the lowest address */
#endif
		memcpy(all + 8 * i, &t, 8);
	}
	memcpy(all + 24, &zeros, 8);
	memcpy(all + 32, &zeros, 8);
	memcpy(all + 40, &zeros, 8);
	/* %g cuts the trailing zeros: the last digit is a word's highest
	 * byte, so a word's trailing zero digits are its leading zero bytes
	 * (n >= 10^(p-1) > 0: a digit of the p is not zero) */
	tz = w[2] ? __builtin_clzll(w[2]) / 8
	     : w[1] ? 8 + __builtin_clzll(w[1]) / 8
		    : 16 + __builtin_clzll(w[0]) / 8;
	nd = p - tz;
	/* Copies of a fixed size (no call): what lies past the text is
	 * scratch, within LLOG__F64_TEXT_MAX, and the NUL ends the text. */
	if (x < -4 || x >= p) { /* d.ddde+XX */
		int ax = x < 0 ? -x : x;

		b[o] = dig[0];
		b[o + 1] = '.';
		memcpy(b + o + 2, dig + 1, 16);
		o += nd > 1 ? (size_t)nd + 1 : 1;
		b[o++] = 'e';
		b[o++] = x < 0 ? '-' : '+';
		if (ax >= 100)
			b[o++] = (char)('0' + ax / 100);
		b[o++] = (char)('0' + ax / 10 % 10);
		b[o++] = (char)('0' + ax % 10);
	} else if (x >= 0) { /* ddd.ddd, ddd.0: the zeros after nd digits are dig's */
		memcpy(b + o, dig, 17);
		o += (size_t)x + 1;
		b[o++] = '.';
		memcpy(b + o, dig + x + 1, 16);
		o += nd > x + 1 ? (size_t)(nd - x - 1) : 1;
	} else { /* 0.000ddd */
		memcpy(b + o, "0.0000", 6);
		o += (size_t)(1 - x);
		memcpy(b + o, dig, 17);
		o += (size_t)nd;
	}
	b[o] = '\0';
	return o;
}

/* put_g of n, p, x, where n may have rounded up to 10^p: then one more
 * digit before (1 followed by p - 1 zeros, one power of ten up). */
static inline size_t put_n(char *b, size_t o, uint64_t n, int p, int x)
{
	if (n == pow10u[p]) {
		n = pow10u[p - 1];
		x++;
	}
	return put_g(b, o, n, p, x);
}

/*
 * The general path (see above): any finite nonzero double that f64_mid
 * does not take, with c, q, be as llog__f64_text made them and x the
 * estimate of X. Out of line: its scales, products and the exact
 * comparison's big integers would make every call's frame theirs.
 */
static __attribute__((noinline)) size_t f64_wide(char *b, size_t o, uint64_t c, int q, int x,
						 int be)
{
	uint64_t m4 = 4 * c, I, n = 0, ten17 = pow10u[17];
	int p, sticky;
	struct scale sc;
	struct prod pv, plo, phi;

	scale_set(&sc, 16 - x, q);
	mul(&pv, m4, &sc);
	if (cmp(&pv, ten17, &sc) >= 0) {
		x++;
		scale_set(&sc, 16 - x, q);
		mul(&pv, m4, &sc);
	}
	I = pv.i; /* floor(v) or one below */
	if (cmp(&pv, I + 1, &sc) >= 0)
		I++;
	sticky = cmp(&pv, I, &sc) != 0;
	mul(&plo, c == UINT64_C(1) << 52 && be > 1 ? m4 - 1 : m4 - 2, &sc);
	mul(&phi, m4 + 2, &sc);

	for (p = be ? 15 : 1; p <= 17; p++) {
		uint64_t div = pow10u[17 - p], r;
		int up, l, h;

		n = I / div;
		r = I - n * div;
		if (p < 17) {
			up = r > div / 2 || (r == div / 2 && (sticky || (n & 1)));
		} else { /* v against I + 1/2, from f unless f is 1/2 or just below */
			uint64_t half = UINT64_C(1) << 63;
			int hc = I != pv.i ? -1 : pv.f > half ? 1 : pv.f < half - 1 ? -1 : 2;

			if (hc == 2) { /* 2v against 2I + 1 */
				struct prod p8;

				mul(&p8, 2 * m4, &sc);
				hc = cmp(&p8, 2 * I + 1, &sc);
			}
			up = hc > 0 || (hc == 0 && (n & 1));
		}
		n += (uint64_t)up;
		if (p == 17)
			break;
		l = cmp(&plo, n * div, &sc);
		h = cmp(&phi, n * div, &sc);
		if ((l < 0 || (l == 0 && !(c & 1))) && (h > 0 || (h == 0 && !(c & 1))))
			break; /* n * 10^(17-p) reads back to d */
	}
	return put_n(b, o, n, p, x);
}

size_t llog__f64_text(char *b, double d)
{
	uint64_t bits, f, c, n;
	int be, q, x, p;
	size_t o = 0;

	memcpy(&bits, &d, sizeof bits);
	be = (int)(bits >> 52 & 0x7ff);
	f = bits & ((UINT64_C(1) << 52) - 1);
	if (be == 0x7ff) {
		const char *s = f ? "nan" : bits >> 63 ? "-inf" : "inf";

		memcpy(b, s, strlen(s) + 1);
		return strlen(s);
	}
	if (bits >> 63)
		b[o++] = '-';
	if (be == 0 && f == 0) {
		memcpy(b + o, "0.0", 4);
		return o + 3;
	}
	c = be ? f | UINT64_C(1) << 52 : f;
	q = be ? be - 1075 : -1074;

	/* X: d in [2^e, 2^(e+1)), e = q + bit length - 1, so X is
	 * floor(e * log10(2)) or one above. (e * 78913) >> 18 is that floor
	 * for every e of a double (-1074 .. 1023; test_f64_text formats 2^e
	 * for each, which a floor one too high would get wrong). One step up
	 * at most, so no comparison can make this loop. */
	{
		int e = q + 63 - __builtin_clzll(c);

		x = e >= 0 ? (e * 78913) >> 18 : -((-e * 78913 + (1 << 18) - 1) >> 18);
	}
	if (be != 0 && f64_mid(c, q, x, &n, &p, &x))
		return put_n(b, o, n, p, x);
	return f64_wide(b, o, c, q, x, be);
}
