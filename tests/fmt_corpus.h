/*
 * fmt_corpus.h - the differential corpus of printf formats (test_fmt.c's,
 * shared with test_binfile.c): a deterministic generator (fixed seed) over
 * every conversion, flag, width, precision ('*' included), length modifier
 * and edge value. The includer defines, before including this,
 *
 *   static void check(const char *fmt, ...);
 *
 * (or a macro of that shape) which gets each format with its arguments
 * (formats are made at run time).
 */
#ifndef LLOG_TEST_FMT_CORPUS_H
#define LLOG_TEST_FMT_CORPUS_H

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "testutil.h"

/* The formats here are built at run time on purpose. */
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#pragma GCC diagnostic ignored "-Wformat-security"

/* Random formats of one and of several conversions; an includer may ask
 * for fewer. */
#ifndef FMT_CORPUS_SINGLE
#define FMT_CORPUS_SINGLE 12000
#endif
#ifndef FMT_CORPUS_MULTI
#define FMT_CORPUS_MULTI 4000
#endif

#ifndef check /* test_fmt.c's is a macro (typed slots too) */
static void check(const char *fmt, ...);
#endif

/* ---- generator ----------------------------------------------------------- */

static uint64_t rng_state;

static uint64_t rnd(void)
{
	return splitmix64(&rng_state); /* testutil.h */
}

static unsigned rndn(unsigned n)
{
	return (unsigned)(rnd() % n);
}

#define PICK(a) ((a)[rndn(sizeof(a) / sizeof((a)[0]))])

enum cls { C_INT, C_I64, C_DBL, C_LDBL, C_STR, C_PTR, C_NCLS };

static char longstr[2001];
static int some_object;

static const int int_vals[] = {
	0, 1, -1, 2, -2, 7, 42, -42, 100, 255, 256, -129, INT_MIN, INT_MAX,
	INT_MIN + 1, CHAR_MIN, CHAR_MAX, SCHAR_MIN, SCHAR_MAX, UCHAR_MAX,
	SHRT_MIN, SHRT_MAX, USHRT_MAX, 65536, 'A', 'z', ' ', 0x7f, 0x80,
	123456789, -987654321,
};
static const long long i64_vals[] = {
	0, 1, -1, 42, -42, LLONG_MIN, LLONG_MAX, (long long)ULLONG_MAX,
	(long long)SIZE_MAX, INT_MIN, INT_MAX, UINT_MAX, (long long)UINT_MAX + 1,
	PTRDIFF_MIN, 1000000007LL, -9000000000000000000LL, 0x123456789abcdefLL,
};
static double dbl_val(void)
{
	static const double v[] = {
		0.0, -0.0, 1.0, -1.0, 0.5, 1.5, 2.5, -2.5, 0.1, 1.0 / 3,
		123456.789, -0.000123456, 1e300, -1e300, 1e-300, 1e-5, 1e15,
		1e16, 9.9999999, 0.95, DBL_MAX, DBL_MIN, 4.9406564584124654e-324,
		3.141592653589793, 100.0,
	};
	switch (rndn(10)) {
	case 0: return rndn(2) ? NAN : -NAN;
	case 1: return rndn(2) ? INFINITY : -INFINITY;
	case 2: return (double)(int64_t)rnd() / (double)(1 + rndn(100000));
	default: return PICK(v);
	}
}
static long double ldbl_val(void)
{
	static const long double v[] = {
		0.0L, -0.0L, 1.0L, -1.0L, 0.1L, 2.5L, LDBL_MAX, LDBL_MIN,
		1e4000L, -1e-4000L, 3.14159265358979323846264338327950288L,
		1e300L, 123456.789L, 1e-5L,
	};
	switch (rndn(8)) {
	case 0: return rndn(2) ? (long double)NAN : -(long double)NAN;
	case 1: return rndn(2) ? (long double)INFINITY : -(long double)INFINITY;
	default: return PICK(v);
	}
}
static const char *str_val(void)
{
	static const char *v[] = {
		"", "a", "hello", "hello, world", "tab\tnl\n", "utf8 \xc3\xa9",
		"0123456789abcdef", NULL, "%d %s %n", longstr,
	};
	return PICK(v);
}
static void *ptr_val(void)
{
	void *v[] = {
		NULL, &some_object, (void *)1, (void *)UINTPTR_MAX,
		(void *)0xdeadbeef, longstr,
	};
	return PICK(v);
}

struct gen {
	enum cls cls;
	int sw, sp;  /* '*' for width / precision */
	int w, p;    /* their values */
};

/* Appends one random conversion of class g->cls to b. */
static char *gen_spec(char *b, struct gen *g, int allow_star)
{
	static const char *const int_conv = "diuoxXbBc";
	static const char *const i64_conv = "diuoxXbB";
	static const char *const flt_conv = "fFeEgGaA";
	static const char *const int_len[] = { "", "", "hh", "h" };
	/* not L or q: L is undefined for integers and q is BSD's, and glibc
	 * reads long long for them on its fast path but int on its slow path
	 * (taken for a large width, or a modifier on %c) */
	static const char *const i64_len[] = { "l", "ll", "j", "z", "t",
					       "Z" };
	static const char *const dbl_len[] = { "", "", "l" };
	static const char *const ldbl_len[] = { "L", "L", "ll", "q" };
	/* not h/hh: undefined for %s, and glibc's slow path (taken for a
	 * large width) does not consume the argument for "%hs" */
	static const char *const str_len[] = { "" };
	static const int widths[] = { 0, 1, 2, 3, 5, 8, 12, 20, 40, 300 };
	static const char *const precs[] = { ".", ".0", ".1", ".2", ".3", ".5",
					     ".6", ".10", ".17", ".25",
					     ".40", ".300" };
	static const int star_w[] = { 0, 1, 5, 17, 40, -1, -5, -17, -40 };
	static const int star_p[] = { 0, 1, 3, 5, 6, 10, 25, -1, -5 };
	static const char flagc[] = "-+ #0";

	*b++ = '%';
	for (int k = 0; k < 5; k++)
		if (rndn(4) == 0)
			*b++ = flagc[rndn(5)];
	g->sw = g->sp = 0;
	switch (rndn(allow_star ? 6 : 4)) {
	case 0: case 1: break;
	case 2: case 3: b += sprintf(b, "%d", PICK(widths)); break;
	default:
		*b++ = '*';
		g->sw = 1;
		g->w = PICK(star_w);
		break;
	}
	switch (rndn(allow_star ? 6 : 4)) {
	case 0: case 1: break;
	case 2: case 3: b = stpcpy(b, PICK(precs)); break;
	default:
		b = stpcpy(b, ".*");
		g->sp = 1;
		g->p = PICK(star_p);
		break;
	}
	switch (g->cls) {
	case C_INT:
		b = stpcpy(b, PICK(int_len));
		*b++ = int_conv[rndn(9)];
		break;
	case C_I64:
		b = stpcpy(b, PICK(i64_len));
		*b++ = i64_conv[rndn(8)];
		if (rndn(40) == 0) /* occasionally a very wide one */
			b[-1] = 'd';
		break;
	case C_DBL:
		b = stpcpy(b, PICK(dbl_len));
		*b++ = flt_conv[rndn(8)];
		break;
	case C_LDBL:
		b = stpcpy(b, PICK(ldbl_len));
		*b++ = flt_conv[rndn(8)];
		break;
	case C_STR:
		b = stpcpy(b, PICK(str_len));
		*b++ = 's';
		break;
	default:
		*b++ = 'p';
		break;
	}
	*b = '\0';
	return b;
}

static char *gen_text(char *b)
{
	static const char *const t[] = { "", "", "x=", "[", "] ", "%% ",
					 "a%%b", "long literal text here ",
					 "\t" };
	return stpcpy(b, PICK(t));
}

#define CALL1(...)                                                            \
	do {                                                                  \
		if (g.sw && g.sp)                                             \
			check(fmt, g.w, g.p, __VA_ARGS__);                    \
		else if (g.sw)                                                \
			check(fmt, g.w, __VA_ARGS__);                         \
		else if (g.sp)                                                \
			check(fmt, g.p, __VA_ARGS__);                         \
		else                                                          \
			check(fmt, __VA_ARGS__);                              \
	} while (0)

/* One conversion (with '*' forms) between random literal text. */
static void corpus_single(unsigned count)
{
	char fmt[256], *b;
	struct gen g;

	for (unsigned k = 0; k < count; k++) {
		g.cls = (enum cls)(k % C_NCLS);
		b = gen_text(fmt);
		b = gen_spec(b, &g, 1);
		gen_text(b);
		switch (g.cls) {
		case C_INT: CALL1(PICK(int_vals)); break;
		case C_I64: CALL1(PICK(i64_vals)); break;
		case C_DBL: CALL1(dbl_val()); break;
		case C_LDBL: CALL1(ldbl_val()); break;
		case C_STR: CALL1(str_val()); break;
		default: CALL1(ptr_val()); break;
		}
	}
}

/* Formats mixing types, in a few fixed argument shapes. */
static void corpus_multi(unsigned count)
{
	static const enum cls shapes[][7] = {
		{ C_INT, C_STR, C_DBL, C_I64, C_NCLS },
		{ C_PTR, C_LDBL, C_INT, C_STR, C_STR, C_NCLS },
		{ C_I64, C_I64, C_INT, C_DBL, C_STR, C_INT, C_DBL },
		{ C_STR, C_STR, C_STR, C_INT, C_NCLS },
	};
	char fmt[512], *b;
	struct gen g;

	for (unsigned k = 0; k < count; k++) {
		unsigned s = k % 4;

		b = gen_text(fmt);
		for (int j = 0; j < 7 && shapes[s][j] != C_NCLS; j++) {
			g.cls = shapes[s][j];
			b = gen_spec(b, &g, 0);
			b = gen_text(b);
		}
		switch (s) {
		case 0:
			check(fmt, PICK(int_vals), str_val(), dbl_val(),
			      PICK(i64_vals));
			break;
		case 1:
			check(fmt, ptr_val(), ldbl_val(), PICK(int_vals),
			      str_val(), str_val());
			break;
		case 2:
			check(fmt, PICK(i64_vals), PICK(i64_vals),
			      PICK(int_vals), dbl_val(), str_val(),
			      PICK(int_vals), dbl_val());
			break;
		default:
			check(fmt, str_val(), str_val(), str_val(),
			      PICK(int_vals));
			break;
		}
	}
}

/* The whole corpus through check(), from the fixed seed. */
static void fmt_corpus_run(void)
{
	rng_state = 0x6c6c6f67u; /* fixed seed: "llog" */
	memset(longstr, 'L', sizeof(longstr) - 1);
	for (size_t i = 0; i < sizeof(longstr) - 1; i += 37)
		longstr[i] = (char)('a' + i % 26);
	corpus_single(FMT_CORPUS_SINGLE);
	corpus_multi(FMT_CORPUS_MULTI);
	/* '*' forms in multi-conversion formats */
	for (int w = -12; w <= 12; w += 3)
		for (int p = -2; p <= 8; p += 2) {
			check("%*.*s|%-*d|%.*f|%*.*x", w, p, "abcdefgh", w, 42,
			      p, 2.5, w, p, 0x2au);
			check("%0*d%%%+.*e %*c", w, -7, p, -1e-300, w, 'q');
		}
}

#endif /* LLOG_TEST_FMT_CORPUS_H */
