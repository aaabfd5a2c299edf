/*
 * test_fmt.c - plans, capture and rendering of printf formats (fmt_plan.c,
 * fmt_render*.c).
 *
 * DESIGN
 * The oracle is the C library: for every case,
 *
 *   render(fmt, plan, capture(args)) == format_va(fmt, args)
 *                                    == vsnprintf(fmt, args)   (bytes, length)
 *
 * and a render into half the space is the prefix of that with *truncated
 * set. A deterministic generator (fixed seed, fmt_corpus.h, shared with
 * test_binfile.c) builds the differential corpus
 * over every conversion, flag, width, precision ('*' included), length
 * modifier and edge value; named cases cover %n, NULL and unterminated
 * strings, truncation, clipping at capture and the EAGER plans; POSIX
 * positional formats have named and random cases of their own
 * (fmt_pos_cases.h).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "fmt.h"
#include "llog.h" /* LLOG__SLOT and LLOG__NARGS: a typed call's slots */
#include "testutil.h"

/* The formats here are built at run time on purpose. */
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#pragma GCC diagnostic ignored "-Wformat-security"

#define BIG (64 * 1024)

static char expect[BIG], got[BIG], capbuf[BIG];
static unsigned long ncases;

/* Shows at most 400 bytes of s, with non-printable bytes escaped. */
static const char *shown(const char *s, size_t n)
{
	static char buf[2][2048];
	static int k;
	char *b = buf[k ^= 1], *p = b;

	for (size_t i = 0; i < n && i < 400; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c >= 0x20 && c < 0x7f && c != '\\')
			*p++ = (char)c;
		else
			p += sprintf(p, "\\x%02x", c);
	}
	*p = '\0';
	return b;
}

static void fail_case(const char *what, const char *fmt, const char *exp,
		      size_t nexp, const char *act, size_t nact)
{
	print_error("%s mismatch for format \"%s\"\n  expected (%zu): %s\n",
		    what, shown(fmt, strlen(fmt)), nexp, shown(exp, nexp));
	print_error("  actual   (%zu): %s\n", nact, shown(act, nact));
	fail();
}

static unsigned long short_by_one;

/* Does fmt start with a conversion that fmt_render_snp.c hands to snprintf, and is
 * the output at least 512 bytes long? */
static int long_snprintf_conv(const char *fmt, size_t n)
{
	return n >= 512 && fmt[0] == '%' && fmt[1] != '%' &&
	       strpbrk(fmt, "fFeEgGaAp") != NULL;
}

/* Checks a truncated render: a prefix of length cap (or cap - 1 when the
 * message starts with a conversion longer than fmt_render_snp.c's 512-byte snprintf
 * buffer that crosses cap). */
static void check_prefix(const char *what, const char *fmt, size_t n,
			 size_t len, int trunc, size_t cap)
{
	if (len == cap - 1)
		short_by_one++;
	if (!trunc || len > cap ||
	    (len < cap && !(len == cap - 1 && long_snprintf_conv(fmt, n))) ||
	    memcmp(got, expect, len) != 0 || got[cap] != 'Z')
		fail_case(what, fmt, expect, n, got, len);
}

static char got2[BIG];

/*
 * llog__fmt_render into out[0..cap), and the same from the compiled format
 * (llog__fmt_render_prog) into got2: the two must agree byte for byte, in
 * length and in *trunc, and write nothing at or past cap.
 */
static size_t render_both(char *out, size_t cap, const char *fmt, const struct llog__plan *plan,
			  const void *args, int *trunc)
{
	struct llog__fmt_prog *prog = llog__fmt_compile(fmt);
	int t1 = *trunc, t2 = *trunc;
	size_t n1, n2;

	assert_non_null(prog);
	assert_true(cap < sizeof(got2));
	memset(got2, 'Y', cap + 1);
	n1 = llog__fmt_render(out, cap, fmt, plan, args, &t1);
	n2 = llog__fmt_render_prog(got2, cap, prog, plan, args, &t2);
	free(prog);
	if (n1 != n2 || t1 != t2 || (out != NULL && memcmp(out, got2, n1) != 0) ||
	    got2[cap] != 'Y')
		fail_case("render_prog", fmt, out, n1, got2, n2);
	*trunc = t1;
	return n1;
}

/*
 * Capture + render (from the format and compiled) and format_va versus the
 * expected output: given, or else vsnprintf's.
 */
static void vcheck(const char *given, const char *fmt, va_list ap)
{
	struct llog__plan plan;
	uint32_t slen[LLOG__PLAN_MAX_ARGS];
	va_list a1, a2, a3;
	size_t need, len, cap;
	int n, trunc = 0;

	if (given != NULL) {
		n = (int)strlen(given);
		memcpy(expect, given, (size_t)n);
	} else {
		va_copy(a1, ap);
		n = vsnprintf(expect, sizeof(expect), fmt, a1);
		va_end(a1);
	}
	assert_true(n >= 0 && (size_t)n < sizeof(expect));
	ncases++;

	llog__fmt_plan_parse(fmt, &plan);
	if (!(plan.flags & LLOG__PLAN_EAGER)) {
		size_t budget = sizeof(capbuf) - 64;

		va_copy(a1, ap);
		need = llog__fmt_capture_measure(&plan, a1, budget, slen, &trunc);
		va_end(a1);
		assert_true(need <= budget);
		assert_int_equal(trunc, 0);
		memset(capbuf, 0xa5, need + 64);
		va_copy(a2, ap);
		llog__fmt_capture_write(&plan, a2, slen, capbuf);
		va_end(a2);
		for (size_t i = need; i < need + 64; i++)
			assert_int_equal((unsigned char)capbuf[i], 0xa5);

		len = render_both(got, sizeof(got) - 1, fmt, &plan, capbuf, &trunc);
		if (trunc || len != (size_t)n || memcmp(got, expect, len) != 0)
			fail_case("render", fmt, expect, (size_t)n, got, len);

		cap = (size_t)n / 2;
		got[cap] = 'Z';
		len = render_both(got, cap, fmt, &plan, capbuf, &trunc);
		if (n > 0)
			check_prefix("render/2", fmt, (size_t)n, len, trunc,
				     cap);
		trunc = 0;
	}

	va_copy(a3, ap);
	len = llog__fmt_format_va(got, sizeof(got), fmt, &plan, a3, &trunc);
	va_end(a3);
	if (trunc || len != (size_t)n || memcmp(got, expect, len) != 0)
		fail_case("format_va", fmt, expect, (size_t)n, got, len);

	if (n > 0) {
		cap = (size_t)n / 2;
		got[cap] = 'Z';
		va_copy(a3, ap);
		len = llog__fmt_format_va(got, cap, fmt, &plan, a3, &trunc);
		va_end(a3);
		check_prefix("format_va/2", fmt, (size_t)n, len, trunc, cap);
	}
}

static void check_fn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vcheck(NULL, fmt, ap);
	va_end(ap);
}

static unsigned long nslot_cases;
static unsigned char capslot[BIG];

/*
 * A typed call's capture (llog/detail.h "Typed calls": the arguments as 8-byte
 * slots) against the va_list's of the same call: the same bytes, string
 * lengths and truncation, in the two-pass capture and in the one-pass one
 * (with room for everything, and with the strings cut short).
 */
static void slots_vs_va(const char *fmt, const uint64_t *v, unsigned n, va_list ap)
{
	struct llog__plan plan;
	uint32_t slen[LLOG__PLAN_MAX_ARGS], slen2[LLOG__PLAN_MAX_ARGS];
	size_t budget = sizeof(capbuf) - 64, need, need2, caps[2];
	int t1 = 0, t2 = 0;
	va_list a;

	llog__fmt_plan_parse(fmt, &plan);
	if (plan.flags & (LLOG__PLAN_EAGER | LLOG__PLAN_LDBL)) {
		/* never from slots (llog__log_t hands them to llog__log) */
		assert_int_equal(llog__fmt_capture_measure_v(&plan, v, budget, slen2, &t2),
				 (size_t)-1);
		return;
	}
	assert_true(plan.nargs <= n);
	nslot_cases++;
	memset(slen, 0, sizeof(slen));
	memset(slen2, 0, sizeof(slen2));
	va_copy(a, ap);
	need = llog__fmt_capture_measure(&plan, a, budget, slen, &t1);
	va_end(a);
	need2 = llog__fmt_capture_measure_v(&plan, v, budget, slen2, &t2);
	assert_int_equal(need, need2);
	assert_int_equal(t1, t2);
	assert_memory_equal(slen, slen2, sizeof(slen));
	memset(capbuf, 0x5a, need + 64);
	memset(capslot, 0x5a, need + 64);
	va_copy(a, ap);
	llog__fmt_capture_write(&plan, a, slen, capbuf);
	va_end(a);
	llog__fmt_capture_write_v(&plan, v, slen2, capslot);
	if (memcmp(capbuf, capslot, need + 64) != 0)
		fail_case("slots (write)", fmt, capbuf, need, (const char *)capslot, need);

	caps[0] = need;
	caps[1] = plan.fixed_bytes + (need - plan.fixed_bytes) / 2;
	for (int k = 0; k < 2; k++) {
		t1 = t2 = 0;
		memset(capbuf, 0x5a, need + 64);
		memset(capslot, 0x5a, need + 64);
		va_copy(a, ap);
		need = llog__fmt_capture_once(&plan, a, capbuf, caps[k], &t1);
		va_end(a);
		need2 = llog__fmt_capture_once_v(&plan, v, capslot, caps[k], &t2);
		assert_int_equal(need, need2);
		assert_int_equal(t1, t2);
		assert_true(need <= caps[k]);
		if (memcmp(capbuf, capslot, caps[0] + 64) != 0)
			fail_case("slots (once)", fmt, capbuf, need, (const char *)capslot, need2);
		need = caps[0];
	}
}

/* check_fn, then the same arguments as a typed call's slots (ok: none is
 * a long double, which never rides in a slot). */
static void check_slots(const char *fmt, const uint64_t *v, unsigned n, int ok, ...)
{
	va_list ap;

	va_start(ap, ok);
	vcheck(NULL, fmt, ap);
	va_end(ap);
	if (ok) {
		va_start(ap, ok);
		slots_vs_va(fmt, v, n, ap);
		va_end(ap);
	}
}

/* check(fmt, args...): each argument evaluated once into a temporary, as
 * the LOG macro does (llog/detail.h "Typed calls"); 1 to 8 arguments are also
 * captured from slots. */
#define check(...) LLOG__CALL_CAT(CHECK_, LLOG__NARGS(__VA_ARGS__))(__VA_ARGS__)
#define CHECK_V(...) check_fn(__VA_ARGS__)
#define CHECK_0(fmt) check_fn(fmt)
#define CHECK_1(fmt, a1)                                          \
	do {                                                                  \
		LLOG__TMP(1, a1)                                   \
		const uint64_t v_[1] = {LLOG__SLOT(llog__a1_)};                             \
		check_slots(fmt, v_, 1, LLOG__SLOT_OK(llog__a1_), llog__a1_);                      \
	} while (0)
#define CHECK_2(fmt, a1, a2)                                          \
	do {                                                                  \
		LLOG__TMP(1, a1) LLOG__TMP(2, a2)                                   \
		const uint64_t v_[2] = {LLOG__SLOT(llog__a1_), LLOG__SLOT(llog__a2_)};                             \
		check_slots(fmt, v_, 2, LLOG__SLOT_OK(llog__a1_) && LLOG__SLOT_OK(llog__a2_), llog__a1_, llog__a2_);                      \
	} while (0)
#define CHECK_3(fmt, a1, a2, a3)                                          \
	do {                                                                  \
		LLOG__TMP(1, a1) LLOG__TMP(2, a2) LLOG__TMP(3, a3)                                   \
		const uint64_t v_[3] = {LLOG__SLOT(llog__a1_), LLOG__SLOT(llog__a2_), LLOG__SLOT(llog__a3_)};                             \
		check_slots(fmt, v_, 3, LLOG__SLOT_OK(llog__a1_) && LLOG__SLOT_OK(llog__a2_) && LLOG__SLOT_OK(llog__a3_), llog__a1_, llog__a2_, llog__a3_);                      \
	} while (0)
#define CHECK_4(fmt, a1, a2, a3, a4)                                          \
	do {                                                                  \
		LLOG__TMP(1, a1) LLOG__TMP(2, a2) LLOG__TMP(3, a3) LLOG__TMP(4, a4)                                   \
		const uint64_t v_[4] = {LLOG__SLOT(llog__a1_), LLOG__SLOT(llog__a2_), LLOG__SLOT(llog__a3_), LLOG__SLOT(llog__a4_)};                             \
		check_slots(fmt, v_, 4, LLOG__SLOT_OK(llog__a1_) && LLOG__SLOT_OK(llog__a2_) && LLOG__SLOT_OK(llog__a3_) && LLOG__SLOT_OK(llog__a4_), llog__a1_, llog__a2_, llog__a3_, llog__a4_);                      \
	} while (0)
#define CHECK_5(fmt, a1, a2, a3, a4, a5)                                          \
	do {                                                                  \
		LLOG__TMP(1, a1) LLOG__TMP(2, a2) LLOG__TMP(3, a3) LLOG__TMP(4, a4) LLOG__TMP(5, a5)                                   \
		const uint64_t v_[5] = {LLOG__SLOT(llog__a1_), LLOG__SLOT(llog__a2_), LLOG__SLOT(llog__a3_), LLOG__SLOT(llog__a4_), LLOG__SLOT(llog__a5_)};                             \
		check_slots(fmt, v_, 5, LLOG__SLOT_OK(llog__a1_) && LLOG__SLOT_OK(llog__a2_) && LLOG__SLOT_OK(llog__a3_) && LLOG__SLOT_OK(llog__a4_) && LLOG__SLOT_OK(llog__a5_), llog__a1_, llog__a2_, llog__a3_, llog__a4_, llog__a5_);                      \
	} while (0)
#define CHECK_6(fmt, a1, a2, a3, a4, a5, a6)                                          \
	do {                                                                  \
		LLOG__TMP(1, a1) LLOG__TMP(2, a2) LLOG__TMP(3, a3) LLOG__TMP(4, a4) LLOG__TMP(5, a5) LLOG__TMP(6, a6)                                   \
		const uint64_t v_[6] = {LLOG__SLOT(llog__a1_), LLOG__SLOT(llog__a2_), LLOG__SLOT(llog__a3_), LLOG__SLOT(llog__a4_), LLOG__SLOT(llog__a5_), LLOG__SLOT(llog__a6_)};                             \
		check_slots(fmt, v_, 6, LLOG__SLOT_OK(llog__a1_) && LLOG__SLOT_OK(llog__a2_) && LLOG__SLOT_OK(llog__a3_) && LLOG__SLOT_OK(llog__a4_) && LLOG__SLOT_OK(llog__a5_) && LLOG__SLOT_OK(llog__a6_), llog__a1_, llog__a2_, llog__a3_, llog__a4_, llog__a5_, llog__a6_);                      \
	} while (0)
#define CHECK_7(fmt, a1, a2, a3, a4, a5, a6, a7)                                          \
	do {                                                                  \
		LLOG__TMP(1, a1) LLOG__TMP(2, a2) LLOG__TMP(3, a3) LLOG__TMP(4, a4) LLOG__TMP(5, a5) LLOG__TMP(6, a6) LLOG__TMP(7, a7)                                   \
		const uint64_t v_[7] = {LLOG__SLOT(llog__a1_), LLOG__SLOT(llog__a2_), LLOG__SLOT(llog__a3_), LLOG__SLOT(llog__a4_), LLOG__SLOT(llog__a5_), LLOG__SLOT(llog__a6_), LLOG__SLOT(llog__a7_)};                             \
		check_slots(fmt, v_, 7, LLOG__SLOT_OK(llog__a1_) && LLOG__SLOT_OK(llog__a2_) && LLOG__SLOT_OK(llog__a3_) && LLOG__SLOT_OK(llog__a4_) && LLOG__SLOT_OK(llog__a5_) && LLOG__SLOT_OK(llog__a6_) && LLOG__SLOT_OK(llog__a7_), llog__a1_, llog__a2_, llog__a3_, llog__a4_, llog__a5_, llog__a6_, llog__a7_);                      \
	} while (0)
#define CHECK_8(fmt, a1, a2, a3, a4, a5, a6, a7, a8)                                          \
	do {                                                                  \
		LLOG__TMP(1, a1) LLOG__TMP(2, a2) LLOG__TMP(3, a3) LLOG__TMP(4, a4) LLOG__TMP(5, a5) LLOG__TMP(6, a6) LLOG__TMP(7, a7) LLOG__TMP(8, a8)                                   \
		const uint64_t v_[8] = {LLOG__SLOT(llog__a1_), LLOG__SLOT(llog__a2_), LLOG__SLOT(llog__a3_), LLOG__SLOT(llog__a4_), LLOG__SLOT(llog__a5_), LLOG__SLOT(llog__a6_), LLOG__SLOT(llog__a7_), LLOG__SLOT(llog__a8_)};                             \
		check_slots(fmt, v_, 8, LLOG__SLOT_OK(llog__a1_) && LLOG__SLOT_OK(llog__a2_) && LLOG__SLOT_OK(llog__a3_) && LLOG__SLOT_OK(llog__a4_) && LLOG__SLOT_OK(llog__a5_) && LLOG__SLOT_OK(llog__a6_) && LLOG__SLOT_OK(llog__a7_) && LLOG__SLOT_OK(llog__a8_), llog__a1_, llog__a2_, llog__a3_, llog__a4_, llog__a5_, llog__a6_, llog__a7_, llog__a8_);                      \
	} while (0)

static void check_with(const char *given, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vcheck(given, fmt, ap);
	va_end(ap);
}

#include "fmt_corpus.h"
#define FMT_POS_CHECK_WITH 1
#include "fmt_pos_cases.h"

/* ---- tests --------------------------------------------------------------- */

static void test_differential_corpus(void **state)
{
	(void)state;
	ncases = 0;
	fmt_corpus_run();
	assert_true(ncases >= 10000);
	assert_true(nslot_cases >= ncases / 2);
	print_message("differential corpus: %lu cases (%lu truncated renders "
		      "one byte short; %lu also from slots)\n", ncases, short_by_one,
		      nslot_cases);
}

/* POSIX positional formats (fmt_pos_cases.h): snprintf's output, and the
 * documented one where POSIX leaves it undefined. */
static void test_positional(void **state)
{
	unsigned long before = ncases;

	(void)state;
	fmt_pos_named();
	fmt_pos_undefined();
	fmt_pos_random(3000);
	assert_true(ncases - before >= 3000);
}

static void test_edge_formats(void **state)
{
	(void)state;
	check("");
	check("plain text");
	check("%%");
	check("100%% sure %%%% %5%|%-5%|%05%");
	check("%d%d%d", 1, 2, 3);
	/* the compiled plain "%d" and "%s" (fmt_render.c's OP_D, OP_S) */
	check("%d|%i|%d|%d|%i|%s|%s|%s", INT_MIN, INT_MAX, 0, -1, -100, (char *)NULL, "",
	      "text");
	check("a%sb%dc%sd", "x", 99, (char *)NULL);
	check("%c%c%c", 'a', 0, 'c');
	check("%5c|%-5c|%05c", 'x', 'y', 'z');
	check("%5000d|", 7);
	check("%.5000d|", -7);
	check("%-5000s|", "left");
	check("%#.0o|%#o|%#.0x|%#x|%#5.3o|%.0d|%5.0d|%+.0d|% .0d", 0, 0, 0, 0,
	      8, 0, 0, 0, 0);
	check("%hhd %hhu %hd %hu %hhx %hx", 300, 300, 70000, 70000, -1, -1);
	check("%zu %zd %td %jd %ju", SIZE_MAX, (ptrdiff_t)-1, PTRDIFF_MIN,
	      INTMAX_MIN, UINTMAX_MAX);
	check("%.1000f", 1e300);
	check("%.300Lf", LDBL_MAX);
	check("%La %LA %Lg", 1.0L, -0.1L, 1e-4000L);
	check("%p %10p %-20p %.3p", (void *)0, (void *)0x1234, (void *)1,
	      (void *)0x1234);
	check("%s %10s %.3s %-10.7s|", (char *)NULL, (char *)NULL,
	      (char *)NULL, (char *)NULL);
}

static size_t measure(const struct llog__plan *plan, size_t budget,
		      uint32_t *slen, int *trunc, ...);
static void write_args(const struct llog__plan *plan, const uint32_t *slen,
		       void *dst, ...);
static size_t format(char *out, size_t cap, const char *fmt, int *trunc, ...);

static void test_percent_n_not_executed(void **state)
{
	const char *fmt = "a%nb%d%hhnc%lln%5zn%s";
	struct llog__plan plan;
	uint32_t slen[LLOG__PLAN_MAX_ARGS];
	int sentinel = 12345, trunc = 0, n;
	signed char sc = 5;
	long long ll = 6;
	size_t sz = 7, need, len;
	char out[64];

	(void)state;
	n = snprintf(expect, sizeof(expect), "ab%dc%s", 42, "end");
	llog__fmt_plan_parse(fmt, &plan);
	assert_false(plan.flags & LLOG__PLAN_EAGER);
	assert_int_equal(plan.nargs, 6);

	need = measure(&plan, sizeof(capbuf), slen, &trunc, &sentinel, 42,
		       &sc, &ll, &sz, "end");
	assert_int_equal(need, 4 + 4 + 3);
	write_args(&plan, slen, capbuf, &sentinel, 42, &sc, &ll, &sz, "end");
	len = llog__fmt_render(out, sizeof(out), fmt, &plan, capbuf, &trunc);
	assert_int_equal(len, (size_t)n);
	assert_memory_equal(out, expect, len);

	len = format(out, sizeof(out), fmt, &trunc, &sentinel, 42, &sc, &ll,
		     &sz, "end");
	assert_int_equal(len, (size_t)n);
	assert_memory_equal(out, expect, len);
	assert_int_equal(trunc, 0);

	assert_int_equal(sentinel, 12345);
	assert_int_equal(sc, 5);
	assert_int_equal(ll, 6);
	assert_int_equal(sz, 7);
}

static void test_null_string(void **state)
{
	char f[64];

	(void)state;
	for (int p = -1; p <= 8; p++)
		for (int w = 0; w <= 10; w += 5) {
			if (p < 0)
				snprintf(f, sizeof(f), "[%%%ds|%%-%ds]", w, w);
			else
				snprintf(f, sizeof(f), "[%%%d.%ds|%%-%d.%ds]",
					 w, p, w, p);
			check(f, (char *)NULL, (char *)NULL);
			check("[%*.*s]", w, p, (char *)NULL);
		}
}

/* %.Ns reads at most N bytes: the array need not be NUL-terminated. */
static void test_precision_unterminated(void **state)
{
	char *arr = malloc(4); /* ASan catches any read past arr[3] */
	const char *t = "abcd"; /* the oracle reads a terminated copy: ASan's
				 * printf interceptor reads one byte past the
				 * precision */
	char exp[64];
	const char *f;

	(void)state;
	assert_non_null(arr);
	memcpy(arr, "abcd", 4);
	f = "%.4s|%.2s|%.0s|%10.4s|%-6.3s|";
	snprintf(exp, sizeof(exp), f, t, t, t, t, t);
	check_with(exp, f, arr, arr, arr, arr, arr);
	for (int p = 0; p <= 4; p++) {
		f = "[%.*s][%*.*s]";
		snprintf(exp, sizeof(exp), f, p, t, -8, p, t);
		check_with(exp, f, p, arr, -8, p, arr);
	}
	free(arr);
}

/* Renders fmt at every cap from 0 to the full length. */
static void truncations(const char *fmt, ...)
{
	struct llog__plan plan;
	uint32_t slen[LLOG__PLAN_MAX_ARGS];
	va_list ap, a;
	int n, trunc;
	size_t need, len;
	char out[512];

	va_start(ap, fmt);
	va_copy(a, ap);
	n = vsnprintf(expect, sizeof(expect), fmt, a);
	va_end(a);
	assert_true(n > 0 && (size_t)n < sizeof(out));
	llog__fmt_plan_parse(fmt, &plan);
	assert_false(plan.flags & LLOG__PLAN_EAGER);
	trunc = 0;
	va_copy(a, ap);
	need = llog__fmt_capture_measure(&plan, a, sizeof(capbuf), slen, &trunc);
	va_end(a);
	va_copy(a, ap);
	llog__fmt_capture_write(&plan, a, slen, capbuf);
	va_end(a);
	assert_true(need != (size_t)-1);
	for (size_t cap = 0; cap <= (size_t)n + 1; cap++) {
		memset(out, 'Z', sizeof(out));
		trunc = 0;
		len = render_both(out, cap, fmt, &plan, capbuf, &trunc);
		assert_int_equal(len, cap < (size_t)n ? cap : (size_t)n);
		assert_int_equal(trunc, cap < (size_t)n);
		assert_memory_equal(out, expect, len);
		for (size_t i = len; i < sizeof(out); i++)
			assert_int_equal(out[i], 'Z');

		memset(out, 'Z', sizeof(out));
		trunc = 0;
		va_copy(a, ap);
		len = llog__fmt_format_va(out, cap, fmt, &plan, a, &trunc);
		va_end(a);
		assert_int_equal(len, cap < (size_t)n ? cap : (size_t)n);
		assert_int_equal(trunc, cap < (size_t)n);
		assert_memory_equal(out, expect, len);
		for (size_t i = len; i < sizeof(out); i++)
			assert_int_equal(out[i], 'Z');
	}
	va_end(ap);
}

static void test_truncation_small_cap(void **state)
{
	(void)state;
	truncations("id=%08d name='%-10s' v=%+.3e %#x %c %p%%!", -42, "bob",
		    1234.5, 255u, 'k', (void *)0xbeef);
	truncations("%*d|%.*s|%5s", -6, 7, 3, "abcdef", (char *)NULL);
	truncations("%.100f", 1.0 / 3);
	/* NULL output with cap 0 */
	{
		struct llog__plan plan;
		int trunc = 0;

		llog__fmt_plan_parse("x", &plan);
		assert_int_equal(llog__fmt_render(NULL, 0, "x", &plan, "", &trunc),
				 0);
		assert_int_equal(trunc, 1);
		trunc = 0;
		assert_int_equal(render_both(NULL, 0, "x", &plan, "", &trunc), 0);
		assert_int_equal(trunc, 1);
	}
}

/* Wrappers: capture through a real va_list. */
static size_t measure(const struct llog__plan *plan, size_t budget,
		      uint32_t *slen, int *trunc, ...)
{
	va_list ap;
	size_t n;

	va_start(ap, trunc);
	n = llog__fmt_capture_measure(plan, ap, budget, slen, trunc);
	va_end(ap);
	return n;
}

static void write_args(const struct llog__plan *plan, const uint32_t *slen,
		       void *dst, ...)
{
	va_list ap;

	va_start(ap, dst);
	llog__fmt_capture_write(plan, ap, slen, dst);
	va_end(ap);
}

static size_t format(char *out, size_t cap, const char *fmt, int *trunc, ...)
{
	struct llog__plan plan;
	va_list ap;
	size_t n;

	llog__fmt_plan_parse(fmt, &plan);
	va_start(ap, trunc);
	n = llog__fmt_format_va(out, cap, fmt, &plan, ap, trunc);
	va_end(ap);
	return n;
}

static void test_measure_clipping(void **state)
{
	const char *fmt = "%s|%d|%s";
	struct llog__plan plan;
	uint32_t slen[LLOG__PLAN_MAX_ARGS];
	char a[101], b[51], out[256];
	int trunc = 0;
	size_t need, len;

	(void)state;
	memset(a, 'a', 100);
	a[100] = '\0';
	memset(b, 'b', 50);
	b[50] = '\0';
	llog__fmt_plan_parse(fmt, &plan);
	assert_int_equal(plan.fixed_bytes, 4 + 4 + 4);

	/* everything fits: no flag */
	need = measure(&plan, 12 + 150, slen, &trunc, a, 7, b);
	assert_int_equal(need, 162);
	assert_int_equal(trunc, 0);

	/* last string first: b goes to 0, a to 60 */
	need = measure(&plan, 12 + 60, slen, &trunc, a, 7, b);
	assert_int_equal(need, 72);
	assert_int_equal(trunc, 1);
	assert_int_equal(slen[0], 60);
	assert_int_equal(slen[2], 0);
	memset(capbuf, 0xa5, 200);
	write_args(&plan, slen, capbuf, a, 7, b);
	assert_int_equal((unsigned char)capbuf[need], 0xa5);
	trunc = 0;
	len = llog__fmt_render(out, sizeof(out), fmt, &plan, capbuf, &trunc);
	assert_int_equal(trunc, 0);
	assert_int_equal(len, 60 + 3);
	assert_memory_equal(out, a, 60);
	assert_memory_equal(out + 60, "|7|", 3);

	/* only the last one clipped */
	trunc = 0;
	need = measure(&plan, 12 + 120, slen, &trunc, a, 7, b);
	assert_int_equal(need, 132);
	assert_int_equal(trunc, 1);
	assert_int_equal(slen[0], 100);
	assert_int_equal(slen[2], 20);

	/* strings clipped to nothing; fixed part exactly fits */
	trunc = 0;
	need = measure(&plan, 12, slen, &trunc, a, 7, b);
	assert_int_equal(need, 12);
	assert_int_equal(trunc, 1);

	/* not even the fixed part */
	trunc = 0;
	need = measure(&plan, 11, slen, &trunc, a, 7, b);
	assert_true(need == (size_t)-1);
}

static void test_eager_plans(void **state)
{
	static const char *const eager[] = {
		"%ls", "%lc", "%S", "%C", "%*1$d", "%.*2$d",
		"%y", "%'d", "%Id", "%m", "%.240s", "x %llc", "%zs",
		/* positional: what is eager anyway, a string with a '*'
		 * precision, the undefined cases (fmt.h) */
		"%2$ls %1$d", "%1$m", "%1$y", "%1$'d", "%1$.240s", "%2$.*1$s",
		"%1$d %3$d", "%1$d %d", "%d %1$d", "%0$d", "%33$d", "%1$d %1$s", "%1$d %2$",
	};
	static const char *const lazy[] = {
		"", "%d", "%.239s", "%.*s", "%s %n %p %Lf %hhd", "%'s",
		"%1$d", "%2$s %1$d", "%2$*1$d %3$.*1$f %%", "%1$.239s %1$s", "%5% %1$d",
	};
	struct llog__plan plan;
	char fmt[256], out[256];
	wchar_t ws[] = L"wide";
	int trunc = 0;
	size_t len;
	int n;

	(void)state;
	for (size_t i = 0; i < sizeof(eager) / sizeof(eager[0]); i++) {
		llog__fmt_plan_parse(eager[i], &plan);
		if (!(plan.flags & LLOG__PLAN_EAGER))
			fail_msg("not eager: %s", eager[i]);
	}
	for (size_t i = 0; i < sizeof(lazy) / sizeof(lazy[0]); i++) {
		llog__fmt_plan_parse(lazy[i], &plan);
		if (plan.flags & LLOG__PLAN_EAGER)
			fail_msg("eager: %s", lazy[i]);
	}

	/* too many arguments: 32 fit, 33 do not */
	fmt[0] = '\0';
	for (int i = 0; i < 32; i++)
		strcat(fmt, "%d");
	llog__fmt_plan_parse(fmt, &plan);
	assert_false(plan.flags & LLOG__PLAN_EAGER);
	assert_int_equal(plan.nargs, 32);
	strcat(fmt, "%d");
	llog__fmt_plan_parse(fmt, &plan);
	assert_true(plan.flags & LLOG__PLAN_EAGER);
	check("%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d"
	      "%d%d%d|%s", 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
	      17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32,
	      33, "end");

	/* wide conversions: format_va equals snprintf */
	check("[%ls][%10ls][%-6.2ls][%lc][%3lc][%S][%C]", ws, ws, ws,
	      (wint_t)L'w', (wint_t)L'x', ws, (wint_t)L'y');
	check("[%ls]", (wchar_t *)NULL);
	/* unknown conversions print themselves; ' and I flags; %m */
	check("[%y][%5.3y]%d[%'d][%Id][%'.2f]", 7, 1234567, 89, 1.5);
	check("%.240s|%.300s", longstr, "short");
	check("%m");

	/* positional: test_positional */

	/* a format that ends inside a conversion stops there, like glibc */
	n = snprintf(out, sizeof(out), "%s", "abc");
	len = format(out, sizeof(out), "abc%5", &trunc);
	assert_int_equal(len, (size_t)n);
	len = format(out, sizeof(out), "abc%", &trunc);
	assert_int_equal(len, (size_t)n);
	assert_int_equal(trunc, 0);
}

static void test_plan_layout(void **state)
{
	struct llog__plan plan;

	(void)state;
	assert_true(sizeof(struct llog__plan) <= 36);
	assert_true(_Alignof(struct llog__plan) <= 4);
	llog__fmt_plan_parse("%d %lld %f %Lf %p %n %s %*.*s %.5s %%", &plan);
	assert_false(plan.flags & LLOG__PLAN_EAGER);
	assert_int_equal(plan.nargs, 11);
	/* 4 + 8 + 8 + 16 + 8 + 0 + 4 + (4 + 4 + 4) + 4 */
	assert_int_equal(plan.fixed_bytes, 64);

	/* positional: the arguments in index order; a string bounded by its
	 * largest precision, unbounded when one use has none */
	llog__fmt_plan_parse("%3$s %1$d %2$.4s %2$.7s %1$x %4$Lf %3$.2s", &plan);
	assert_int_equal(plan.flags, LLOG__PLAN_POS | LLOG__PLAN_HAS_STR | LLOG__PLAN_LDBL);
	assert_int_equal(plan.nargs, 4);
	assert_int_equal(plan.type[0], 1);      /* A_INT */
	assert_int_equal(plan.type[1], 16 + 7); /* A_STR_PREC0 + 7 */
	assert_int_equal(plan.type[2], 7);      /* A_STR */
	assert_int_equal(plan.type[3], 4);      /* A_LDBL */
	assert_int_equal(plan.fixed_bytes, 4 + 4 + 4 + 16);
}

/*
 * %f with precision 0..9 is rendered without snprintf (exact binary-to-
 * decimal rounding, half-to-even on exact ties): compare with snprintf on
 * random bit patterns, values near rounding ties, and flag/width variants.
 */
static void test_fixed_point_exact(void **state)
{
	static const char *const fmts[] = {"%.0f", "%.1f", "%.2f", "%.3f", "%.4f", "%.5f",
					   "%.6f", "%.7f", "%.8f", "%.9f", "%f", "%F",
					   "%+.3f", "% .3f", "%012.3f", "%-12.3f|", "%12.2f",
					   "%+015.4f", "%-+9.1f|", "%.3F", "% 010.0f"};
	uint64_t x = 0x9e3779b97f4a7c15ull;

	(void)state;
	for (int i = 0; i < 20000; i++) {
		double d;
		uint64_t bits;

		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		switch (i % 4) {
		case 0: /* any finite double */
			bits = x;
			memcpy(&d, &bits, 8);
			if (d != d || d - d != 0)
				continue;
			break;
		case 1: /* a plausible measurement */
			d = (double)(x % 100000000) / 1000.0;
			break;
		case 2: /* exact ties at some precision: k / 2^j */
			d = (double)(int64_t)(x % 20001 - 10000) / (double)(1u << (x % 12));
			break;
		default: /* small and subnormal magnitudes */
			d = (double)(x % 1000) * 1e-12 * ((x >> 20) & 1 ? -1 : 1);
			break;
		}
		check(fmts[i % (sizeof(fmts) / sizeof(fmts[0]))], d);
	}
	check("%.3f %.3f %.0f %.0f %.0f %.2f", -0.0, 0.0005, 0.5, 1.5, 2.5, 1.005);
	check("%.9f|%.1f|%.3f", 5e-324, 1e15 + 0.3, 9007199254740993.0);
}

/*
 * The formats whose walk ends early (a format that ends inside a
 * conversion, a positional conversion, a plan that runs out of arguments)
 * render the same from the format and compiled, at every cap.
 */
static void test_compiled_early_ends(void **state)
{
	static const char *const fmts[] = {
		"", "%", "abc%", "abc%5", "abc%-0", "%%%", "a%%b%%", "x %1$d y",
		"x %d %2$s rest", "%*1$d", "%s%", "%d %d %d", "100%% %5%|%-5%|",
		"%q", "%y%d", "%.*s|%*.*s",
	};
	unsigned char args[64];
	char out[128];

	(void)state;
	memset(args, 0, sizeof(args));
	for (size_t i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++) {
		struct llog__plan plan;

		llog__fmt_plan_parse(fmts[i], &plan);
		/* fewer arguments than the format asks for: rendering stops
		 * where they run out */
		if (plan.nargs > 1)
			plan.nargs = 1;
		for (size_t cap = 0; cap < 40; cap++) {
			int trunc = 0;

			memset(out, 'Z', sizeof(out));
			(void)render_both(out, cap, fmts[i], &plan, args, &trunc);
			assert_int_equal(out[cap], 'Z');
		}
	}
}

/*
 * Renders fmt's capture at every cap from 0 to its length + 1, from the
 * format and compiled (render_both): each a prefix of vsnprintf's text,
 * cut exactly at cap, *trunc set iff cap is short.
 */
static void check_every_cap(const char *fmt, ...)
{
	struct llog__plan plan;
	uint32_t slen[LLOG__PLAN_MAX_ARGS];
	va_list ap, a;
	int n, trunc = 0;
	size_t need;

	va_start(ap, fmt);
	va_copy(a, ap);
	n = vsnprintf(expect, sizeof(expect), fmt, a);
	va_end(a);
	assert_true(n >= 0 && (size_t)n < 4096);
	llog__fmt_plan_parse(fmt, &plan);
	va_copy(a, ap);
	need = llog__fmt_capture_measure(&plan, a, sizeof(capbuf), slen, &trunc);
	va_end(a);
	assert_true(need <= sizeof(capbuf));
	llog__fmt_capture_write(&plan, ap, slen, capbuf);
	va_end(ap);
	ncases++;
	for (size_t cap = 0; cap <= (size_t)n + 1; cap++) {
		size_t len;

		trunc = 0;
		memset(got, 'Z', cap + 1);
		len = render_both(got, cap, fmt, &plan, capbuf, &trunc);
		if (len != (cap < (size_t)n ? cap : (size_t)n) || trunc != (cap < (size_t)n) ||
		    memcmp(got, expect, len) != 0 || got[cap] != 'Z')
			fail_case("every cap", fmt, expect, (size_t)n, got, len);
	}
}

/*
 * A compiled format's plain conversions ("%d", "%s", a double's "%f":
 * written without llog__fmt_render_conv's dispatch, their text and the
 * literal text between them appended by short fixed-size copies) against
 * vsnprintf at every cap: literal runs of 0 to 24 bytes around them, the
 * integers' edges (INT_MIN, INT_MAX, 0, -1, each power of ten and one
 * below), strings of 0 to 40 bytes and NULL, doubles that llog writes
 * and that go to snprintf.
 */
static void test_compiled_plain_ops(void **state)
{
	static const int ints[] = {INT_MIN, INT_MIN + 1, -1000000000, -999999999, -100, -99,
				   -10, -9, -1, 0, 1, 9, 10, 99, 100, 999, 1000, 99999,
				   100000, 999999999, 1000000000, INT_MAX - 1, INT_MAX};
	static const double dbls[] = {0.0, -0.0, 0.0005, 0.0015, 17.283, -17.2835, 1e-300,
				      123456789.125, 9.2233720368547758e18, 1e300, -1e300,
				      2.5, 999.9995};
	static const char *const fspecs[] = {"%.3f", "%f", "%.0f", "%+.9F", "%-12.2f", "%09.1f",
					     "%lf"};
	static const char lit[] = "abcdefghijklmnopqrstuvwxyz";
	char str[48], f[160];

	(void)state;
	memset(str, 0, sizeof(str));
	for (size_t k = 0; k < 41; k++) {
		/* literal runs of 0 to 24 bytes, a string of k bytes (NULL
		 * last) */
		int l1 = (int)(k % 25), l2 = (int)(k * 7 % 25), l3 = (int)(k * 11 % 25),
		    l4 = (int)((k * 5 + 3) % 25);
		const char *sv = k == 40 ? NULL : str;

		if (k < 40)
			str[k] = (char)('A' + k % 26);
		for (size_t i = 0; i < sizeof(fspecs) / sizeof(fspecs[0]); i++) {
			snprintf(f, sizeof(f), "%.*s%s%.*s%s%.*s%%s%.*s", l1, lit,
				 i % 2 ? "%i" : "%d", l2, lit + 1, fspecs[i], l3, lit + 2, l4, lit);
			check_every_cap(f, ints[(k + i) % (sizeof(ints) / sizeof(ints[0]))],
					dbls[(k * 3 + i) % (sizeof(dbls) / sizeof(dbls[0]))], sv);
		}
	}
	check_every_cap("%d|%d|%d|%d", INT_MIN, INT_MAX, 0, -1);
	check_every_cap("%s%s%s", "", "0123456789abcdef", "0123456789abcdefg");
	check_every_cap("x%.3fy%.3fz", -0.0005, 0.0005);
}

TEST_MAIN(
	cmocka_unit_test(test_differential_corpus),
	cmocka_unit_test(test_edge_formats),
	cmocka_unit_test(test_positional),
	cmocka_unit_test(test_percent_n_not_executed),
	cmocka_unit_test(test_null_string),
	cmocka_unit_test(test_precision_unterminated),
	cmocka_unit_test(test_truncation_small_cap),
	cmocka_unit_test(test_measure_clipping),
	cmocka_unit_test(test_eager_plans),
	cmocka_unit_test(test_plan_layout),
	cmocka_unit_test(test_fixed_point_exact),
	cmocka_unit_test(test_compiled_early_ends),
	cmocka_unit_test(test_compiled_plain_ops),
)
