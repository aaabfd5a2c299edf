/*
 * test_binpack.c - the packed argument encoding of binary files
 * (liblog/format/binpack.h): a capture packed and unpacked renders as snprintf
 * renders the original arguments, integers and strings come back exactly,
 * every frame decodes alone, the writer's and the reader's recent strings
 * agree, and a cut or damaged body is an error.
 */
#define _GNU_SOURCE
#include <float.h>
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "binpack.h"
#include "fmt.h"
#include "fmt_spec.h"
#include "testutil.h"

/* The formats here are built at run time, as the corpus test does. */
#pragma GCC diagnostic ignored "-Wformat-nonliteral"

#define CAP 4096

/* A capture of the arguments by fmt's plan (the producer's code). */
static size_t cap_args(const struct llog__plan *plan, unsigned char *dst, ...)
{
	va_list ap;
	int trunc = 0;
	size_t n;

	va_start(ap, dst);
	n = llog__fmt_capture_once(plan, ap, dst, CAP, &trunc);
	va_end(ap);
	assert_int_equal(trunc, 0);
	return n;
}

struct codec {
	struct llog__plan plan;
	struct llog__pack_site w, r; /* the writer's and the reader's state */
	const char *fmt;
};

static void codec_init(struct codec *c, const char *fmt)
{
	c->fmt = fmt;
	llog__fmt_plan_parse(fmt, &c->plan);
	assert_false(c->plan.flags & LLOG__PLAN_EAGER);
	llog__pack_site_init(&c->w, fmt, &c->plan);
	llog__pack_site_init(&c->r, fmt, &c->plan);
}

/* Packs args[0..n) in frame ws, unpacks it in frame rs into out; returns
 * the unpacked length (the bounds checked). */
static size_t round_trip(struct codec *c, uint64_t ws, uint64_t rs, const unsigned char *args,
			 size_t n, unsigned char *out)
{
	char packed[CAP + 2 * LLOG__PLAN_MAX_ARGS];
	const char *why = "unset";
	size_t p = llog__pack(packed, &c->w, ws, &c->plan, args, n), u;

	assert_int_not_equal(p, (size_t)-1);
	assert_true(p <= LLOG__PACK_BOUND(n));
	u = llog__unpack(out, &c->r, rs, LLOG__PACK_VER_RECENT, &c->plan,
			 (const unsigned char *)packed, p, &why);
	assert_int_not_equal(u, (size_t)-1);
	assert_null(why);
	assert_true(u <= LLOG__UNPACK_BOUND(p));
	return u;
}

static void render_eq(const struct codec *c, const unsigned char *args, const char *want)
{
	char got[512];
	int trunc = 0;
	size_t n = llog__fmt_render(got, sizeof(got) - 1, c->fmt, &c->plan, args, &trunc);

	got[n] = '\0';
	assert_int_equal(trunc, 0);
	assert_string_equal(got, want);
}

/* Doubles near every kind of edge for precision prec: exact decimals,
 * halfway points and their neighbours, tiny negatives, the range's ends. */
static size_t edge_values(unsigned prec, double *v, size_t max)
{
	double s = 1;
	size_t n = 0;

	for (unsigned i = 0; i < prec; i++)
		s *= 10;
#define ADD(x)                                                                    \
	do {                                                                      \
		if (n < max)                                                      \
			v[n++] = (x);                                             \
	} while (0)
	ADD(0.0);
	ADD(-0.0);
	ADD(NAN);
	ADD(-INFINITY);
	ADD(INFINITY);
	ADD(DBL_MIN);
	ADD(-4.9406564584124654e-324);
	ADD(DBL_MAX);
	ADD(0x1p40 / s);
	ADD(-0x1p40 / s);
	ADD(nextafter(0x1p40 / s, 0));
	for (int k = -30; k <= 30; k++) {
		double half = (k + 0.5) / s, exact = k / s;

		ADD(exact);
		ADD(half);
		ADD(nextafter(half, INFINITY));
		ADD(nextafter(half, -INFINITY));
		ADD(nextafter(exact, INFINITY));
		ADD(nextafter(exact, -INFINITY));
		ADD(-0.4 / s);
		ADD(-0.6 / s);
	}
	ADD(0.0005);
	ADD(0.0015);
	ADD(1.0005);
	ADD(2.675);
	ADD(1e15 + 0.3);
	ADD(123456789.987654321);
	ADD(-86.4827);
#undef ADD
	return n;
}

/* Every precision, every edge value, in one frame (the differences
 * chained) and each alone: the unpacked capture renders as snprintf. */
static void test_decimals_render_as_snprintf(void **state)
{
	static const char *const forms[] = {"%.0f", "%.1f", "%.2f", "%.3f", "%.4f", "%.5f",
					    "%.6f", "%.7f", "%.8f", "%.9f"};
	(void)state;
	for (unsigned prec = 0; prec <= 9; prec++) {
		for (int variant = 0; variant < 3; variant++) {
			char fmt[32];
			double v[600];
			size_t n = edge_values(prec, v, 600);
			struct codec c;

			if (variant == 0)
				snprintf(fmt, sizeof(fmt), "%s", forms[prec]);
			else if (variant == 1)
				snprintf(fmt, sizeof(fmt), "[%%+#14.%uF|%%d]", prec);
			else
				snprintf(fmt, sizeof(fmt), "%%-12.%uf%%s", prec);
			codec_init(&c, fmt);
			for (size_t i = 0; i < n; i++) {
				unsigned char a[CAP], out[CAP];
				char want[512];
				size_t len, u;

				if (variant == 1) {
					len = cap_args(&c.plan, a, v[i], (int)i);
					snprintf(want, sizeof(want), fmt, v[i], (int)i);
				} else if (variant == 2) {
					len = cap_args(&c.plan, a, v[i], "x");
					snprintf(want, sizeof(want), fmt, v[i], "x");
				} else {
					len = cap_args(&c.plan, a, v[i]);
					snprintf(want, sizeof(want), fmt, v[i]);
				}
				u = round_trip(&c, 1, 1, a, len, out);
				assert_int_equal(u, len);
				render_eq(&c, out, want);
			}
		}
	}
	/* "%f" is precision 6; "%e", "%g", "%.*f" keep their bytes. */
	{
		static const char *const raw[] = {"%f", "%e", "%g", "%.*f", "%a", "%.10f"};

		for (size_t f = 0; f < sizeof(raw) / sizeof(raw[0]); f++) {
			struct codec c;
			double v[600];
			size_t n = edge_values(6, v, 600);

			codec_init(&c, raw[f]);
			for (size_t i = 0; i < n; i++) {
				unsigned char a[CAP], out[CAP];
				char want[512];
				size_t len;

				if (strcmp(raw[f], "%.*f") == 0) {
					len = cap_args(&c.plan, a, 4, v[i]);
					snprintf(want, sizeof(want), raw[f], 4, v[i]);
				} else {
					len = cap_args(&c.plan, a, v[i]);
					snprintf(want, sizeof(want), raw[f], v[i]);
				}
				assert_int_equal(round_trip(&c, 2, 2, a, len, out), len);
				if (strcmp(raw[f], "%f") != 0) /* not a decimal: the bytes */
					assert_memory_equal(out, a, len);
				render_eq(&c, out, want);
			}
		}
	}
}

/* Random doubles at every precision. */
static void test_decimals_random(void **state)
{
	(void)state;
	srand(12345);
	for (unsigned prec = 0; prec <= 9; prec++) {
		char fmt[16];
		struct codec c;

		snprintf(fmt, sizeof(fmt), "%%.%uf", prec);
		codec_init(&c, fmt);
		for (int i = 0; i < 20000; i++) {
			unsigned char a[CAP], out[CAP];
			char want[512];
			double scale = pow(10, rand() % 16 - 6), v = ((double)rand() / RAND_MAX - 0.5) * scale;
			size_t len = cap_args(&c.plan, a, v);

			snprintf(want, sizeof(want), fmt, v);
			assert_int_equal(round_trip(&c, 3, 3, a, len, out), len);
			render_eq(&c, out, want);
		}
	}
}

/* Integers of every width, pointers and strings come back byte for byte,
 * with the differences chained over many records and past argument 8. */
static void test_exact_round_trip(void **state)
{
	static const long long i64[] = {0, 1, -1, LLONG_MIN, LLONG_MAX, INT_MIN, INT_MAX, 42, -7};
	static const int i32[] = {0, INT_MIN, INT_MAX, -1, 1, 1000000, -1000000};
	static const char *const str[] = {"", NULL, "10.0.0.17:443", "a\0b", "\xff\xfe utf-8 \xc3\xa9"};
	const char *fmt = "%d %lld %s %p %.*s %hhu %zu %Lg %n %c %d %lld %s %e %ld";
	struct codec c;
	int sink;

	(void)state;
	codec_init(&c, fmt);
	for (int i = 0; i < 500; i++) {
		unsigned char a[CAP], out[CAP];
		size_t len = cap_args(&c.plan, a, i32[i % 7], i64[i % 9], str[i % 5],
				      (void *)(uintptr_t)(i64[(i + 3) % 9]), i % 4, str[(i + 2) % 5],
				      (unsigned)(i * 37), (size_t)i64[(i + 5) % 9],
				      (long double)i / 3, &sink, 'a' + i % 26, i32[(i + 4) % 7],
				      i64[(i + 1) % 9], str[(i + 1) % 5], (double)i / 7,
				      (long)i64[(i + 2) % 9]);

		assert_int_equal(round_trip(&c, 9, 9, a, len, out), len);
		assert_memory_equal(out, a, len);
	}
}

/* Each frame decodes alone: a reader that starts at the second frame (or
 * that read the first) gets the same captures. */
static void test_frames_decode_alone(void **state)
{
	const char *fmt = "request %d took %.3f ms from %s";
	unsigned char a[3][CAP];
	size_t len[3];
	char packed[3][CAP];
	size_t plen[3];
	struct codec c;

	(void)state;
	codec_init(&c, fmt);
	for (int i = 0; i < 3; i++) {
		len[i] = cap_args(&c.plan, a[i], 1000 + i, 0.0173 * (100 + i), "10.0.3.4:8443");
		/* records 0, 1 in frame 5; record 2 in frame 6 */
		plen[i] = llog__pack(packed[i], &c.w, i < 2 ? 5 : 6, &c.plan, a[i], len[i]);
		assert_int_not_equal(plen[i], (size_t)-1);
	}
	/* the difference shows: record 1 is smaller than record 0 */
	assert_true(plen[1] < plen[0]);
	for (int start = 0; start < 3; start++) {
		struct llog__pack_site r;

		llog__pack_site_init(&r, fmt, &c.plan);
		for (int i = start; i < 3; i++) {
			unsigned char out[CAP];
			const char *why;
			char want[128];
			size_t u = llog__unpack(out, &r, i < 2 ? 70 : 71, LLOG__PACK_VER_RECENT, &c.plan,
						(const unsigned char *)packed[i], plen[i], &why);

			if (start == 1 && i == 1) {
				/* record 1 alone lacks record 0's values: wrong
				 * numbers, never a crash; not how a reader goes */
				continue;
			}
			assert_int_equal(u, len[i]);
			snprintf(want, sizeof(want), fmt, 1000 + i, 0.0173 * (100 + i), "10.0.3.4:8443");
			render_eq(&c, out, want);
		}
	}
}

/* Every cut of a packed body, and bodies of a wrong shape, are errors. */
static void test_damaged(void **state)
{
	const char *fmt = "%d %.2f %s %lld %e";
	unsigned char a[CAP], out[CAP + 2 * LLOG__PLAN_MAX_ARGS * 10];
	char packed[CAP];
	struct codec c;
	size_t len, p;
	const char *why;

	(void)state;
	codec_init(&c, fmt);
	len = cap_args(&c.plan, a, -5, 3.25, "hello", -9000000000LL, 1e300);
	p = llog__pack(packed, &c.w, 1, &c.plan, a, len);
	assert_int_not_equal(p, (size_t)-1);
	for (size_t cut = 0; cut < p; cut++) {
		why = NULL;
		assert_int_equal(llog__unpack(out, &c.r, 1, LLOG__PACK_VER_RECENT, &c.plan, (const unsigned char *)packed,
					      cut, &why),
				 (size_t)-1);
		assert_non_null(why);
	}
	/* a byte more than the arguments */
	packed[p] = 0;
	assert_int_equal(llog__unpack(out, &c.r, 1, LLOG__PACK_VER_RECENT, &c.plan, (const unsigned char *)packed, p + 1,
				      &why),
			 (size_t)-1);
	assert_string_equal(why, "bytes after the packed arguments");
	/* a double's marker that is neither a decimal (even) nor 1 */
	{
		const unsigned char bad[] = {0x00, 0x03, 0x01, 'x', 0x00, 0x00};

		assert_int_equal(llog__unpack(out, &c.r, 2, LLOG__PACK_VER_RECENT, &c.plan, bad, sizeof(bad), &why),
				 (size_t)-1);
		assert_string_equal(why, "bad packed double");
	}
	/* a string longer than what is left */
	{
		const unsigned char bad[] = {0x00, 0x00, 0x7f, 'x'};

		assert_int_equal(llog__unpack(out, &c.r, 3, LLOG__PACK_VER_RECENT, &c.plan, bad, sizeof(bad), &why),
				 (size_t)-1);
	}
	/* the writer refuses a capture that is not its plan's layout */
	assert_int_equal(llog__pack(packed, &c.w, 4, &c.plan, a, len - 1), (size_t)-1);
	assert_int_equal(llog__pack(packed, &c.w, 4, &c.plan, a, 3), (size_t)-1);
	/* ... and keeps its state as it was: in a frame, after a record, a
	 * refused capture whose first values differ (cut in its last
	 * argument), then the first capture again, which the reader (who
	 * never saw the refused one) decodes exactly */
	{
		struct codec d;
		unsigned char b[CAP];
		size_t blen, p1, p2;
		char rec1[CAP], rec2[CAP];

		codec_init(&d, fmt);
		blen = cap_args(&d.plan, b, 7000, 1.25, "x", 5LL, 2.0);
		p1 = llog__pack(rec1, &d.w, 9, &d.plan, a, len);
		assert_int_equal(llog__pack(rec2, &d.w, 9, &d.plan, b, blen - 1), (size_t)-1);
		p2 = llog__pack(rec2, &d.w, 9, &d.plan, a, len);
		assert_int_not_equal(p1, (size_t)-1);
		assert_int_not_equal(p2, (size_t)-1);
		assert_int_equal(llog__unpack(out, &d.r, 9, LLOG__PACK_VER_RECENT, &d.plan, (const unsigned char *)rec1, p1,
					      &why),
				 len);
		assert_int_equal(llog__unpack(out, &d.r, 9, LLOG__PACK_VER_RECENT, &d.plan, (const unsigned char *)rec2, p2,
					      &why),
				 len);
		assert_memory_equal(out, a, len);
	}
}

/* Packs the capture args[0..n) in frame stamp with c's writer; returns the
 * packed length, the body in packed. */
static size_t pack1(struct codec *c, uint64_t stamp, const unsigned char *args, size_t n,
		    char *packed)
{
	size_t p = llog__pack(packed, &c->w, stamp, &c->plan, args, n);

	assert_int_not_equal(p, (size_t)-1);
	return p;
}

/* Recent strings (version 3): the first LLOG__PACK_STRS string arguments
 * of a site keep their last LLOG__PACK_RECENT strings of the frame; one
 * that comes back is one byte. Every capture comes back exactly: strings
 * that cycle through more than the slots, NULL, the longest kept and one
 * longer, an empty one, a third string argument (no recent strings). */
static void test_recent_strings(void **state)
{
	static const char *const peer[] = {"10.0.0.17:443", "10.0.3.4:8443", "192.168.1.20:80"};
	static const char *const user[] = {"alice", "bob", "carol", "dave", "erin", "", NULL,
					   "0123456789abcdef0123456789abcdef",
					   "0123456789abcdef0123456789abcdef!"};
	const char *fmt = "%s took %d by %s on %s";
	struct codec c;
	char packed[CAP];
	unsigned char a[CAP], out[CAP];
	size_t len, p;

	(void)state;
	assert_int_equal(strlen(user[7]), LLOG__PACK_STR_MAX);
	codec_init(&c, fmt);
	for (int i = 0; i < 200; i++) {
		len = cap_args(&c.plan, a, peer[i % 3], i, user[(i / 2) % 9], peer[(i + 1) % 3]);
		assert_int_equal(round_trip(&c, 4, 4, a, len, out), len);
		assert_memory_equal(out, a, len);
	}
	/* the sizes: a peer met before is one byte, the third string
	 * argument has none (its bytes each time) */
	codec_init(&c, fmt);
	len = cap_args(&c.plan, a, peer[0], 1, user[0], peer[0]);
	p = pack1(&c, 1, a, len, packed);
	/* 1 + 13, 1 (1), 1 + 5, 1 + 13 */
	assert_int_equal(p, 14 + 1 + 6 + 14);
	len = cap_args(&c.plan, a, peer[0], 2, user[0], peer[0]);
	p = pack1(&c, 1, a, len, packed);
	assert_int_equal(p, 1 + 1 + 1 + 14);
	assert_int_equal(packed[0], 1); /* slot 0 */
	/* a new frame starts without them */
	p = pack1(&c, 2, a, len, packed);
	assert_int_equal(p, 14 + 1 + 6 + 14);
	/* longer than LLOG__PACK_STR_MAX: never kept */
	len = cap_args(&c.plan, a, user[8], 2, user[7], peer[0]);
	p = pack1(&c, 3, a, len, packed);
	p = pack1(&c, 3, a, len, packed);
	assert_int_equal(p, (1 + 33) + 1 + 1 + 14);
}

/* A capture the writer refuses changes no recent string: the reader never
 * sees it. In a frame (a new string before the cut), and at a frame's
 * start (the previous frame's strings kept as they were). */
static void test_recent_refused(void **state)
{
	const char *fmt = "%s %d %s";
	struct codec c;
	char packed[CAP];
	unsigned char a[CAP], b[CAP], out[CAP];
	size_t alen, blen, p;
	const char *why;

	(void)state;
	codec_init(&c, fmt);
	alen = cap_args(&c.plan, a, "first", 1, "x");
	blen = cap_args(&c.plan, b, "second", 2, "y");
	p = pack1(&c, 5, a, alen, packed);
	assert_int_equal(llog__unpack(out, &c.r, 5, LLOG__PACK_VER_RECENT, &c.plan,
				      (const unsigned char *)packed, p, &why),
			 alen);
	/* "second" would join the recent strings: refused, it does not */
	assert_int_equal(llog__pack(packed, &c.w, 5, &c.plan, b, blen - 1), (size_t)-1);
	p = pack1(&c, 5, b, blen, packed);
	assert_int_equal(p, (1 + 6) + 1 + (1 + 1));
	assert_int_equal(llog__unpack(out, &c.r, 5, LLOG__PACK_VER_RECENT, &c.plan,
				      (const unsigned char *)packed, p, &why),
			 blen);
	assert_memory_equal(out, b, blen);
	/* refused at a new frame's start: frame 5's strings stay */
	assert_int_equal(llog__pack(packed, &c.w, 6, &c.plan, a, alen - 1), (size_t)-1);
	p = pack1(&c, 5, a, alen, packed);
	assert_int_equal(p, 1 + 1 + 1);
	assert_int_equal(llog__unpack(out, &c.r, 5, LLOG__PACK_VER_RECENT, &c.plan,
				      (const unsigned char *)packed, p, &why),
			 alen);
	assert_memory_equal(out, a, alen);
}

/* A version-2 body (before recent strings) reads as it was written: a
 * string is its length + 1 and its bytes, which version 3 would read as a
 * recent string; a recent string no slot holds is an error. */
static void test_recent_versions(void **state)
{
	const char *fmt = "%s";
	const unsigned char v2[] = {0x04, 'a', 'b', 'c'};
	unsigned char out[CAP], want[8];
	struct codec c;
	const char *why;

	(void)state;
	codec_init(&c, fmt);
	assert_int_equal(llog__unpack(out, &c.r, 1, 2, &c.plan, v2, sizeof(v2), &why), 7);
	assert_null(why);
	want[0] = 3, want[1] = want[2] = want[3] = 0;
	memcpy(want + 4, "abc", 3);
	assert_memory_equal(out, want, 7);
	assert_int_equal(llog__unpack(out, &c.r, 2, LLOG__PACK_VER_RECENT, &c.plan, v2, sizeof(v2),
				      &why),
			 (size_t)-1);
	assert_string_equal(why, "bad recent string");
}

/* Writer and reader agree over a long random walk: strings of every size
 * around the key's 8 bytes and LLOG__PACK_STR_MAX, strings that share
 * their key (first 7 bytes and length) and differ after it, NULL, more
 * string arguments than keep recent strings, refused captures (in a frame
 * and at a frame's start) and frames that start anywhere. Every capture
 * packed comes back exactly. */
static void test_recent_random(void **state)
{
	static const char *const pool[] = {
		"", "a", "ab", "abcdefg", "abcdefgh", "abcdefgX", "abcdefgY",
		"abcdefghijklmno", "abcdefghijklmnop", "abcdefghijklmnoq",
		"abcdefghijklmnopq", "abcdefgZijklmnopq", "0123456789abcdef0123456789abcdeX",
		"0123456789abcdef0123456789abcdeY", "0123456789abcdef0123456789abcdefZ",
		"\x80\xff\n\t weird", "0123456789abcdef0123456789abcdef0123456789", NULL,
	};
	const size_t np = sizeof(pool) / sizeof(pool[0]);
	const char *fmt = "%s|%d|%s|%.*s|%s";
	struct codec c;
	char packed[CAP + 2 * LLOG__PLAN_MAX_ARGS];
	unsigned char a[CAP], out[CAP + 64 * LLOG__PLAN_MAX_ARGS];
	uint64_t stamp = 1;
	unsigned seed = 12345;

	(void)state;
	codec_init(&c, fmt);
	for (int i = 0; i < 200000; i++) {
		const char *s0, *s1, *s2, *s3;
		size_t len, p, u;
		const char *why;
		int pr;

		seed = seed * 1103515245u + 12345u;
		s0 = pool[(seed >> 8) % np];
		s1 = pool[(seed >> 13) % np];
		s2 = pool[(seed >> 18) % np];
		s3 = pool[(seed >> 23) % np];
		pr = s2 == NULL ? 0 : (int)((seed >> 3) % 40);
		if (s2 == NULL)
			s2 = "x";
		len = cap_args(&c.plan, a, s0, i, s1, pr, s2, s3);
		seed = seed * 1103515245u + 12345u;
		if ((seed >> 16) % 23 == 0)
			stamp++;
		if ((seed >> 16) % 7 == 0) { /* refused: cut anywhere */
			uint64_t at = (seed >> 20) % 2 ? stamp + 1 : stamp;

			assert_int_equal(llog__pack(packed, &c.w, at, &c.plan, a,
						    (seed >> 4) % len),
					 (size_t)-1);
			continue;
		}
		p = llog__pack(packed, &c.w, stamp, &c.plan, a, len);
		assert_int_not_equal(p, (size_t)-1);
		assert_true(p <= LLOG__PACK_BOUND(len));
		u = llog__unpack(out, &c.r, stamp, LLOG__PACK_VER_RECENT, &c.plan,
				 (const unsigned char *)packed, p, &why);
		assert_null(why);
		assert_int_equal(u, len);
		assert_memory_equal(out, a, len);
	}
}

/* Unpacks in[0..n) of fmt's plan into out in frame stamp of version 3;
 * returns the length, why in *why. */
static size_t unpack3(struct codec *c, uint64_t stamp, const unsigned char *in, size_t n,
		      unsigned char *out, const char **why)
{
	return llog__unpack(out, &c->r, stamp, LLOG__PACK_VER_RECENT, &c->plan, in, n, why);
}

/* A damaged version-3 body is an error, never a read outside it or a
 * slot: a recent string no slot holds (in the frame, or only in an
 * earlier one), a string longer than what is left, a length varint of
 * more than 64 bits or of 2^64 - 1; a string of 33 bytes takes no slot,
 * the empty one and one of 32 do. */
static void test_recent_damaged(void **state)
{
	struct codec c;
	unsigned char out[CAP], in[64];
	const char *why;
	size_t n;

	(void)state;
	codec_init(&c, "%s");
	for (unsigned j = 1; j <= LLOG__PACK_RECENT; j++) {
		in[0] = (unsigned char)j;
		assert_int_equal(unpack3(&c, 1, in, 1, out, &why), (size_t)-1);
		assert_string_equal(why, "bad recent string");
	}
	in[0] = 5 + 2, in[1] = 'a', in[2] = 'b'; /* "ab": slot 0 */
	assert_int_equal(unpack3(&c, 1, in, 3, out, &why), 6);
	in[0] = 1;
	assert_int_equal(unpack3(&c, 1, in, 1, out, &why), 6);
	assert_memory_equal(out + 4, "ab", 2);
	in[0] = 2;
	assert_int_equal(unpack3(&c, 1, in, 1, out, &why), (size_t)-1);
	/* the next frame starts without it */
	in[0] = 1;
	assert_int_equal(unpack3(&c, 2, in, 1, out, &why), (size_t)-1);
	assert_string_equal(why, "bad recent string");
	/* 33 bytes: no slot; 32 and the empty string: one each */
	in[0] = 5 + 33;
	memset(in + 1, 'x', 33);
	assert_int_equal(unpack3(&c, 3, in, 34, out, &why), 4 + 33);
	in[0] = 1;
	assert_int_equal(unpack3(&c, 3, in, 1, out, &why), (size_t)-1);
	in[0] = 5 + 32;
	assert_int_equal(unpack3(&c, 3, in, 33, out, &why), 4 + 32);
	in[0] = 5;
	assert_int_equal(unpack3(&c, 3, in, 1, out, &why), 4);
	in[0] = 1;
	assert_int_equal(unpack3(&c, 3, in, 1, out, &why), 4 + 32);
	assert_memory_equal(out + 4, in + 1, 32); /* the 32 x */
	in[0] = 2;
	assert_int_equal(unpack3(&c, 3, in, 1, out, &why), 4);
	in[0] = 3;
	assert_int_equal(unpack3(&c, 3, in, 1, out, &why), (size_t)-1);
	/* longer than what is left, with and without a slot's size */
	in[0] = 5 + 3, in[1] = 'a', in[2] = 'b';
	assert_int_equal(unpack3(&c, 4, in, 3, out, &why), (size_t)-1);
	assert_non_null(why);
	in[0] = 0x80 | (5 + 40), in[1] = 0, in[2] = 'a';
	assert_int_equal(unpack3(&c, 4, in, 3, out, &why), (size_t)-1);
	in[0] = 1; /* the cut string took no slot */
	assert_int_equal(unpack3(&c, 4, in, 1, out, &why), (size_t)-1);
	assert_string_equal(why, "bad recent string");
	/* varints: 11 bytes, and 2^64 - 1 */
	memset(in, 0xff, 11);
	in[10] = 0x01;
	assert_int_equal(unpack3(&c, 5, in, 11, out, &why), (size_t)-1);
	assert_non_null(why);
	in[9] = 0x01;
	n = unpack3(&c, 5, in, 10, out, &why);
	assert_int_equal(n, (size_t)-1);
	assert_non_null(why);
}

/* The slots fill in turn and a string found refreshes none: after A B C D
 * and A found, E takes A's slot (the oldest written out), so A, back
 * within its argument's last four strings, is written out again. */
static void test_recent_order(void **state)
{
	static const char *const seq[] = {"A", "B", "C", "D", "A", "E", "A", "E"};
	static const size_t want[] = {2, 2, 2, 2, 1, 2, 2, 1};
	struct codec c;
	char packed[CAP];
	unsigned char a[CAP], out[CAP];
	const char *why;

	(void)state;
	codec_init(&c, "%s");
	for (size_t i = 0; i < sizeof(seq) / sizeof(seq[0]); i++) {
		size_t len = cap_args(&c.plan, a, seq[i]), p = pack1(&c, 9, a, len, packed);

		assert_int_equal(p, want[i]);
		assert_int_equal(llog__unpack(out, &c.r, 9, LLOG__PACK_VER_RECENT, &c.plan,
					      (const unsigned char *)packed, p, &why),
				 len);
		assert_memory_equal(out, a, len);
	}
}

/* ---- the encoding as binpack.h's table states it, written plainly ------ */

/* A site's state as the table describes it: the previous value of each of
 * the first LLOG__PACK_DELTA arguments, the recent strings of the first
 * LLOG__PACK_STRS string arguments (filled in turn), the frame. */
struct model {
	int64_t last[LLOG__PACK_DELTA];
	struct {
		unsigned n, next;
		size_t len[LLOG__PACK_RECENT];
		unsigned char s[LLOG__PACK_RECENT][LLOG__PACK_STR_MAX];
	} rec[LLOG__PACK_STRS];
	uint64_t stamp;
	uint8_t dec[LLOG__PLAN_MAX_ARGS]; /* P + 1 for "%.Pf", else 0 */
};

static unsigned char *model_varint(unsigned char *p, uint64_t v)
{
	for (; v >= 0x80; v >>= 7)
		*p++ = (unsigned char)(v | 0x80);
	*p++ = (unsigned char)v;
	return p;
}

static uint64_t model_zigzag(int64_t d)
{
	return d < 0 ? 2 * ~(uint64_t)d + 1 : 2 * (uint64_t)d;
}

static uint64_t model_le(const unsigned char *p, unsigned n)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

/* Whether the capture a[0..len) is plan's layout. */
static int model_layout(const struct llog__plan *plan, const unsigned char *a, size_t len)
{
	size_t o = 0;

	for (unsigned k = 0; k < plan->nargs; k++) {
		uint8_t t = plan->type[k];
		size_t w = t == A_INT ? 4 : t == A_LDBL ? LDBL_STORE : t == A_NPTR ? 0 : 8;

		if (llog__fmt_is_str(t)) {
			if (len - o < 4)
				return 0;
			w = model_le(a + o, 4);
			o += 4;
			if (w == STR_NULL)
				continue;
		}
		if (len - o < w)
			return 0;
		o += w;
	}
	return o == len;
}

/* What the table says a[0..len) packs to in frame stamp, at out; the
 * length, or (size_t)-1 (m unchanged) when it is not plan's layout. The
 * values used here are exact decimals, halves or out of range, where
 * "far less than half a unit" needs no finer test than this one. */
static size_t model_pack(struct model *m, uint64_t stamp, const struct llog__plan *plan,
			 const unsigned char *a, size_t len, unsigned char *out)
{
	const unsigned char *add[LLOG__PACK_STRS] = {NULL};
	size_t addn[LLOG__PACK_STRS] = {0};
	unsigned char *p = out;
	unsigned strs = 0;

	if (!model_layout(plan, a, len))
		return (size_t)-1;
	if (m->stamp != stamp) { /* a frame starts from nothing */
		memset(m->last, 0, sizeof(m->last));
		memset(m->rec, 0, sizeof(m->rec));
		m->stamp = stamp;
	}
	for (unsigned k = 0; k < plan->nargs; k++) {
		uint8_t t = plan->type[k];
		int64_t v, *last = k < LLOG__PACK_DELTA ? &m->last[k] : NULL;

		if (t == A_INT || t == A_I64 || t == A_PTR) {
			v = t == A_INT ? (int64_t)(int32_t)(uint32_t)model_le(a, 4)
				       : (int64_t)model_le(a, 8);
			a += t == A_INT ? 4 : 8;
			p = model_varint(p, model_zigzag((int64_t)((uint64_t)v -
								    (uint64_t)(last ? *last : 0))));
			if (last)
				*last = v;
		} else if (t == A_DBL && m->dec[k] != 0) {
			double d, x, r;

			memcpy(&d, a, 8);
			x = d * pow(10, m->dec[k] - 1);
			r = nearbyint(x);
			if (fabs(x) < 0x1p40 && fabs(x - r) < 0.25 && !(r == 0 && signbit(d))) {
				v = (int64_t)r;
				p = model_varint(p, model_zigzag(v - (last ? *last : 0)) * 2);
				if (last)
					*last = v;
			} else {
				*p++ = 1;
				memcpy(p, a, 8);
				p += 8;
			}
			a += 8;
		} else if (t == A_DBL || t == A_LDBL) {
			memcpy(p, a, t == A_DBL ? 8 : LDBL_STORE);
			p += t == A_DBL ? 8 : LDBL_STORE;
			a += t == A_DBL ? 8 : LDBL_STORE;
		} else if (llog__fmt_is_str(t)) {
			size_t n = model_le(a, 4);
			unsigned j = LLOG__PACK_RECENT, keeps = strs < LLOG__PACK_STRS;

			a += 4;
			if (n == STR_NULL) {
				*p++ = 0;
				strs++;
				continue;
			}
			for (unsigned i = 0; keeps && i < m->rec[strs].n; i++)
				if (m->rec[strs].len[i] == n && memcmp(m->rec[strs].s[i], a, n) == 0)
					j = i;
			if (j < LLOG__PACK_RECENT) {
				*p++ = (unsigned char)(1 + j);
			} else {
				p = model_varint(p, n + 1 + (keeps ? LLOG__PACK_RECENT : 0));
				memcpy(p, a, n);
				p += n;
				if (keeps && n <= LLOG__PACK_STR_MAX)
					add[strs] = a, addn[strs] = n;
			}
			a += n;
			strs++;
		}
	}
	for (unsigned i = 0; i < LLOG__PACK_STRS; i++) {
		if (add[i] == NULL)
			continue;
		memcpy(m->rec[i].s[m->rec[i].next], add[i], addn[i]);
		m->rec[i].len[m->rec[i].next] = addn[i];
		m->rec[i].next = (m->rec[i].next + 1) % LLOG__PACK_RECENT;
		if (m->rec[i].n < LLOG__PACK_RECENT)
			m->rec[i].n++;
	}
	return (size_t)(p - out);
}

static uint64_t rnd(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* llog__pack writes what the table says, byte for byte, over many frames
 * of random captures: integers of every kind before and past argument
 * LLOG__PACK_DELTA, decimals and not, strings that come back in turn, at
 * random, at every length around the key's 8 and 16 bytes and
 * LLOG__PACK_STR_MAX, NULL; and captures cut or too long, which it refuses
 * as the table's writer would, its state unchanged for the next. */
static void test_pack_as_specified(void **state)
{
	static const char *const strs[] = {
		"10.0.0.17:443", "10.0.3.4:8443", "192.168.1.20:80", NULL, "", "a", "abcdefg",
		"abcdefgh", "abcdefgX", "Xbcdefgh", "abcdefghijklmno", "abcdefghijklmnO",
		"abcdefghijklmnop", "abcdefgXijklmnop", "abcdefghijklmnopq",
		"abcdefghijklmnopqrstuvwxyz012345", "abcdefghijklmnopqrstuvwxyz012346",
		"abcdefghijklmnopqrstuvwxyz0123456"};
	const unsigned nstr = sizeof(strs) / sizeof(strs[0]);
	const char *fmt = "%s took %d ms %.3f from %s %lld %p %g %Lg %n %s %.0f %d %d %d %d %d "
			  "%.9f %lld %f";
	struct codec c;
	struct model m;
	uint64_t x = 0x9e3779b97f4a7c15u, stamp = 1;
	int sink;

	(void)state;
	codec_init(&c, fmt);
	memset(&m, 0, sizeof(m));
	memcpy(m.dec, c.w.dec, sizeof(m.dec));
	assert_int_equal(m.dec[2], 1 + 3);
	assert_int_equal(m.dec[10], 1 + 0);
	assert_int_equal(m.dec[18], 1 + 6);
	for (int i = 0; i < 200000; i++) {
		unsigned char a[CAP], want[CAP];
		char got[CAP + 2 * LLOG__PLAN_MAX_ARGS];
		const char *s[3];
		double d[4];
		size_t len, w, g;

		if (rnd(&x) % 300 == 0)
			stamp++;
		for (unsigned j = 0; j < 3; j++)
			s[j] = rnd(&x) % 4 != 0 ? strs[(i + j) % 3] : strs[rnd(&x) % nstr];
		for (unsigned j = 0; j < 4; j++) {
			unsigned prec = j == 0 ? 3 : j == 1 ? 0 : j == 2 ? 9 : 6;
			int64_t k = (int64_t)(rnd(&x) % 2000000) - 1000000;

			switch (rnd(&x) % 8) {
			case 0:
				d[j] = (k + 0.5) / pow(10, prec); /* a half: not a decimal */
				break;
			case 1:
				d[j] = (double)((int64_t)1 << 40) * 1.5; /* out of range */
				break;
			case 2:
				d[j] = -0.0;
				break;
			case 3:
				d[j] = NAN;
				break;
			default:
				d[j] = (double)(k % 5000) / pow(10, prec);
				break;
			}
		}
		len = cap_args(&c.plan, a, s[0], i % 7 == 0 ? (int)rnd(&x) : i, d[0], s[1],
			       (long long)rnd(&x) % 1000, (void *)(uintptr_t)(0x1000 + i * 16),
			       d[3] * 3, (long double)i / 3, &sink, s[2], d[1], i, -i, (int)rnd(&x),
			       i * 2, 7, d[2], (long long)i * 1000003, d[3]);
		if (rnd(&x) % 40 == 0) /* cut, or a byte too many: refused */
			len = rnd(&x) % 2 ? (size_t)rnd(&x) % len : len + 1;
		w = model_pack(&m, stamp, &c.plan, a, len, want);
		g = llog__pack(got, &c.w, stamp, &c.plan, a, len);
		assert_int_equal(g, w);
		if (w != (size_t)-1) {
			assert_true(g <= LLOG__PACK_BOUND(len));
			assert_memory_equal(got, want, w);
		}
	}
}

TEST_MAIN(
	cmocka_unit_test(test_decimals_render_as_snprintf),
	cmocka_unit_test(test_decimals_random),
	cmocka_unit_test(test_exact_round_trip),
	cmocka_unit_test(test_frames_decode_alone),
	cmocka_unit_test(test_damaged),
	cmocka_unit_test(test_recent_strings),
	cmocka_unit_test(test_recent_refused),
	cmocka_unit_test(test_recent_order),
	cmocka_unit_test(test_recent_versions),
	cmocka_unit_test(test_recent_random),
	cmocka_unit_test(test_recent_damaged),
	cmocka_unit_test(test_pack_as_specified),
)
