/*
 * test_f64_text.c - the double formatter (liblog/format/f64_text.h): its
 * text is byte for byte what the snprintf/strtod loop it replaced writes
 * (the oracle below, kept here only), and strtod reads it back to the
 * same double: special values, every power of two and of ten and their
 * neighbours, the values where the precision moves between 15, 16 and 17
 * digits, random bit patterns of every exponent and random short
 * decimals, and the range of the usual doubles (1e-11 .. 1e15) densely;
 * the same under an LC_NUMERIC with a ',' radix when one is installed or
 * ctest's f64_text_locale could make one (localedef). A
 * field goes through it (llog__line_field_f64).
 *
 *   test_f64_text [N]   N random values of each kind (default: about 2 s
 *                       in Release, less under the sanitizers)
 */
#define _GNU_SOURCE
#include <float.h>
#include <locale.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "f64_text.h"
#include "line.h"
#include "sanitizer.h"
#include "testutil.h"

#ifdef TEST_SANITIZER
#define RANDOM_N 250000L
#else
#define RANDOM_N 400000L
#endif

static long random_n = RANDOM_N;

/* The oracle: llog__line_field_f64 as it was, with snprintf and strtod
 * in the current LC_NUMERIC, the radix then written '.'. */
static size_t oracle(char *b, double d)
{
	int n = 0;
	size_t k, o = 0;
	int dot = 0;

	if (isnan(d)) {
		memcpy(b, "nan", 4);
		return 3;
	}
	if (isinf(d)) {
		memcpy(b, d < 0 ? "-inf" : "inf", d < 0 ? 5 : 4);
		return d < 0 ? 4 : 3;
	}
	for (int p = fpclassify(d) == FP_SUBNORMAL ? 1 : 15; p <= 17; p++) {
		n = snprintf(b, LLOG__F64_MAX, "%.*g", p, d);
		if (p == 17 || strtod(b, NULL) == d)
			break;
	}
	for (k = 0; k < (size_t)n; k++) {
		char c = b[k];

		if ((c >= '0' && c <= '9') || c == '-' || c == '+' || c == 'e') {
			b[o++] = c;
			dot |= c == 'e';
		} else if (!dot) {
			b[o++] = '.';
			dot = 1;
			while (k + 1 < (size_t)n && !(b[k + 1] >= '0' && b[k + 1] <= '9'))
				k++;
		}
	}
	if (!dot) {
		b[o++] = '.';
		b[o++] = '0';
	}
	b[o] = '\0';
	return o;
}

struct tally {
	long checked, bad;
	int readback; /* also read the text back with strtod (radix '.') */
};

/* d's text against the oracle's, and read back; the first mismatches
 * are printed. */
static void check(struct tally *t, double d)
{
	char got[LLOG__F64_TEXT_MAX], want[64];
	size_t n;

	memset(got, 0x55, sizeof got);
	n = llog__f64_text(got, d);
	oracle(want, d);
	t->checked++;
	if (n != strlen(got) || n > LLOG__F64_TEXT_LEN || strcmp(got, want) != 0 ||
	    (t->readback && !isnan(d) && memcmp(&(double){strtod(got, NULL)}, &d, sizeof d) != 0)) {
		if (t->bad++ < 10)
			print_message("mismatch for %a: got \"%s\" (%zu), want \"%s\"\n", d, got, n,
				      want);
	}
}

static void check_both(struct tally *t, double d)
{
	check(t, d);
	check(t, -d);
	check(t, nextafter(d, INFINITY));
	check(t, nextafter(d, -INFINITY));
}

static void specials(struct tally *t)
{
	static const double v[] = {
		0.0, 1.0, 0.1, 0.2, 0.3, 0.5, 0.25, 2.5, 100.0, 123456.0, 1e-4, 1e-5, 9.5e-5,
		1e15, 1e16, 1e17, 1e21, 1e22, 1e23, 1e300, 123456789012345678.0,
		9007199254740992.0, 9007199254740993.0, 9007199254740994.0, 4503599627370496.5,
		123456789012345.5, 999999999999999.9, 9999999999999998.0, 99999999999999990.0,
		DBL_MIN, DBL_MAX, DBL_TRUE_MIN, 5e-324, DBL_EPSILON, 2.2250738585072009e-308,
		1.7976931348623157e308, 0.1 + 0.2, 1.0 / 3.0, 2.0 / 3.0, M_PI, M_E, 12.5, 0.001,
		299792458.0, 6.02214076e23, 1.602176634e-19, 4.9406564584124654e-324,
	};

	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
		check_both(t, v[i]);
	check(t, -0.0);
	check(t, INFINITY);
	check(t, -INFINITY);
	check(t, NAN);
	check(t, -NAN);
}

/* Every power of two, every 1eN and j*10^N, j5*10^(N-1) and their
 * neighbours: the ends of binades and decades, exact ties. */
static void powers(struct tally *t)
{
	char s[32];

	for (int e = -1074; e <= 1023; e++)
		check_both(t, ldexp(1.0, e));
	for (int e = -324; e <= 308; e++) {
		for (int j = 1; j <= 9; j++) {
			snprintf(s, sizeof s, "%de%d", j, e);
			check_both(t, strtod(s, NULL));
			snprintf(s, sizeof s, "%d5e%d", j, e - 1);
			check_both(t, strtod(s, NULL));
		}
	}
}

/* Where the precision moves: for short decimals of 1 to 17 digits, the
 * doubles around them (the neighbours need 16 or 17 digits, or 15). */
static uint64_t rng_state = UINT64_C(0x9e3779b97f4a7c15);

static uint64_t rng(void) /* xorshift64*: fixed seed, same run each time */
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * UINT64_C(2685821657736338717);
}

/* A random decimal of k digits (1..17), exponent in [-330, 310], read by
 * strtod. */
static double short_decimal(void)
{
	char s[48];
	int k = 1 + (int)(rng() % 17);
	uint64_t mant = rng() % UINT64_C(100000000000000000);

	while (mant >= UINT64_C(10) && k < 17 && mant >= (uint64_t)pow(10, k))
		mant /= 10;
	snprintf(s, sizeof s, "%llue%d", (unsigned long long)mant, (int)(rng() % 641) - 330);
	return strtod(s, NULL);
}

static void precision_edges(struct tally *t)
{
	for (int i = 0; i < 20000; i++) {
		double d = short_decimal(), u = d, w = d;

		for (int j = 0; j < 3; j++) {
			u = nextafter(u, INFINITY);
			w = nextafter(w, -INFINITY);
			check(t, u);
			check(t, w);
		}
	}
}

/* Integers of up to 6 digits times 10^17 .. 10^39, and their
 * neighbours: v = d * 10^k with k < 0 is often an exact integer or half
 * there while the table's 10^k is not exact, the case f64_text.c
 * settles with big integers. */
static void exact_ties(struct tally *t)
{
	char s[48];

	for (int i = 0; i < 20000; i++) {
		unsigned long long j = rng() % 1000000;

		snprintf(s, sizeof s, "%llue%d", j, 17 + (int)(rng() % 23));
		check_both(t, strtod(s, NULL));
		check(t, (double)(rng() % 1000000) * 1e18);
	}
}

/*
 * Doubles one end of whose rounding interval, (2c -+ 1) * 2^(q-1), is
 * exactly a decimal of 15 or 16 digits: 2c -+ 1 = 5^(K+1) * j (j odd)
 * and d's decimal exponent 16 + K, K = 1 .. 22. Whether such an end is
 * in or out (c even or odd) is what the exact comparison of f64_text.c
 * settles, with 5^k for every k the table's powers are not exact at.
 */
static void exact_ends(struct tally *t)
{
	for (int k = 1; k <= 22; k++) {
		uint64_t p5 = 1;

		for (int i = 0; i <= k; i++)
			p5 *= 5;
		for (uint64_t j = ((UINT64_C(1) << 53) / p5) | 1, step = 0; step < 300;
		     j += 2, step++) {
			for (int sign = -1; sign <= 1; sign += 2) {
				uint64_t c = (p5 * j + (uint64_t)(int64_t)sign) / 2;
				int q0;

				if (p5 * j / p5 != j || c < (UINT64_C(1) << 52) ||
				    c >= (UINT64_C(1) << 53))
					continue;
				/* q for d's decimal exponent 16 + k, give or take
				 * one: the neighbours are values as good */
				q0 = (int)floor((16 + k) * 3.3219280948873623 - log2((double)c));
				for (int q = q0 - 1; q <= q0 + 4; q++)
					check(t, ldexp((double)c, q));
			}
		}
	}
}

static void test_specials(void **state)
{
	struct tally t = {.readback = 1};

	(void)state;
	specials(&t);
	powers(&t);
	precision_edges(&t);
	exact_ties(&t);
	exact_ends(&t);
	print_message("%ld values checked, %ld mismatches\n", t.checked, t.bad);
	assert_int_equal(t.bad, 0);
}

static void test_exact_texts(void **state)
{
	static const struct {
		double d;
		const char *s;
	} c[] = {
		{0.0, "0.0"},		{-0.0, "-0.0"},
		{1.0, "1.0"},		{0.1, "0.1"},
		{0.1 + 0.2, "0.30000000000000004"},
		{1e15, "1e+15"},	{1e16, "1e+16"},
		{123456.0, "123456.0"}, {1e-5, "1e-05"},
		{1e-4, "0.0001"},	{5e-324, "5e-324"},
		{DBL_MAX, "1.7976931348623157e+308"},
		{-DBL_MIN, "-2.2250738585072014e-308"},
		{1e21, "1e+21"},	{12.5, "12.5"},
		{123456789012345678.0, "1.2345678901234568e+17"},
	};
	char b[LLOG__F64_MAX];

	(void)state;
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		assert_int_equal(llog__f64_text(b, c[i].d), strlen(c[i].s));
		assert_string_equal(b, c[i].s);
		/* a field's double goes through it */
		assert_int_equal(llog__line_field_f64(b, c[i].d), strlen(c[i].s));
		assert_string_equal(b, c[i].s);
	}
	assert_string_equal((llog__f64_text(b, INFINITY), b), "inf");
	assert_string_equal((llog__f64_text(b, -INFINITY), b), "-inf");
	assert_string_equal((llog__f64_text(b, NAN), b), "nan");
}

static void random_values(struct tally *t, long n)
{
	for (long i = 0; i < n; i++) {
		uint64_t bits = rng();
		double d;

		memcpy(&d, &bits, sizeof d);
		check(t, d);
		check(t, short_decimal());
	}
}

static void test_random(void **state)
{
	struct tally t = {.readback = 1};
	int64_t t0 = now_ns();

	(void)state;
	random_values(&t, random_n);
	print_message("%ld values checked (random bit patterns and short decimals) in %.2f s, "
		      "%ld mismatches\n",
		      t.checked, (double)(now_ns() - t0) / 1e9, t.bad);
	assert_int_equal(t.bad, 0);
}

/*
 * The range f64_text.c computes in 128-bit integers (1e-11 <= |d| < 1e15
 * and a little around it): random bit patterns of those exponents, short
 * decimals and their neighbours, dyadic values (an integer over a power of
 * two: exact ties of the 15- or 16-digit rounding), i * 0.0173 (the
 * benchmark's field), quotients i / 10^j (a latency in ms from ns), every
 * power of two there with its neighbours (the narrower gap below).
 */
static void mid_range(struct tally *t, long n)
{
	char s[48];

	for (long i = 0; i < n; i++) {
		uint64_t bits = rng();
		/* biased exponents 1023 - 40 .. 1023 + 52: 2^-40 .. 2^53 */
		uint64_t be = 983 + rng() % 93;
		double d;

		bits = (bits & ~(UINT64_C(0x7ff) << 52)) | be << 52;
		memcpy(&d, &bits, sizeof d);
		check(t, d);
		snprintf(s, sizeof s, "%llue%d",
			 (unsigned long long)(rng() % UINT64_C(100000000000000000)),
			 (int)(rng() % 45) - 30);
		check_both(t, strtod(s, NULL));
		check_both(t, ldexp((double)(rng() >> (11 + rng() % 40)), -(int)(rng() % 60)));
		check(t, (double)(i % 100000) * 0.0173);
		check(t, (double)(rng() % 1000000000) / pow(10, (double)(rng() % 16)));
	}
	for (int e = -45; e <= 55; e++)
		for (int j = -2; j <= 2; j++)
			check_both(t, ldexp(1.0 + j * DBL_EPSILON, e));
}

static void test_mid_range(void **state)
{
	struct tally t = {.readback = 1};
	int64_t t0 = now_ns();

	(void)state;
	mid_range(&t, random_n / 4);
	print_message("%ld values checked (1e-11 .. 1e15 and around) in %.2f s, %ld mismatches\n",
		      t.checked, (double)(now_ns() - t0) / 1e9, t.bad);
	assert_int_equal(t.bad, 0);
}

/* Under a ',' radix the oracle writes ',' and turns it into '.': the new
 * text must not depend on the locale at all. */
static void test_comma_locale(void **state)
{
	static const char *const names[] = {"de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8",
					    "fr_FR.utf8", "ru_RU.UTF-8", "nl_NL.UTF-8",
					    "de_DE",	   "fr_FR"};
	struct tally t = {.readback = 0}; /* strtod wants ',' here; the oracle checks */
	const char *used = NULL;

	(void)state;
	/* the installed locales, then the one ctest's f64_text_locale made */
	for (int pass = 0; pass < 2 && used == NULL; pass++) {
#ifdef F64_LOCALE_DIR
		if (pass == 1)
			setenv("LOCPATH", F64_LOCALE_DIR, 1);
#else
		if (pass == 1)
			break;
#endif
		for (size_t i = 0; i < sizeof names / sizeof names[0] && used == NULL; i++) {
			if (setlocale(LC_NUMERIC, names[i]) != NULL &&
			    localeconv()->decimal_point[0] == ',')
				used = names[i];
		}
	}
	unsetenv("LOCPATH");
	if (used == NULL) {
		setlocale(LC_NUMERIC, "C");
		print_message("skipped: no locale with a ',' radix is installed (locale -a), "
			      "and localedef made none\n");
		skip();
		return;
	}
	specials(&t);
	random_values(&t, random_n / 10);
	setlocale(LC_NUMERIC, "C");
	print_message("LC_NUMERIC=%s: %ld values checked, %ld mismatches\n", used, t.checked,
		      t.bad);
	assert_int_equal(t.bad, 0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exact_texts),
		cmocka_unit_test(test_specials),
		cmocka_unit_test(test_random),
		cmocka_unit_test(test_mid_range),
		cmocka_unit_test(test_comma_locale),
	};

	if (argc > 1)
		random_n = atol(argv[1]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
