/*
 * test_typed.c - typed calls (llog/detail.h "Typed calls"): a LOG with 0 to 8
 * arguments passes them as 8-byte slots to llog__log_t instead of through
 * llog__log's va_list.
 *
 * DESIGN
 * The oracle is the C library: every LOG here is paired with snprintf of
 * the same format and the same argument values, and the flusher's message
 * must equal it byte for byte, in order. The cases cover every argument
 * type the macro sorts (promoted small integers, bit-fields, enums, signed
 * and unsigned of each width, float and double, char arrays, string
 * literals, NULL and other pointers), the arities 0 to 9, POSIX positional
 * formats (their slots are in index order), and the calls that must leave
 * the typed path (long double at compile time; %ls, %m and fewer
 * arguments than conversions at run time; no flusher running). Arguments with side effects are evaluated once.
 * The direct tests call llog__log_t and check what it returns: 0 (the
 * record was taken) or 1 (nothing done, nothing counted).
 *
 * Built twice: test_typed, and test_typed_off with LLOG_NO_TYPED_CALLS
 * (every call through llog__log): both must give the same output.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/types.h>
#include <unistd.h>
#include <wchar.h>

#include "llog.h"
#include "memsink.h"
#include "site.h"
#include "testutil.h"

/* %m and a NULL %s are cases here on purpose: the pedantic build's
 * format warnings about them are off around those calls only (everywhere
 * else the typed macros must pass the compiler's format check, -Werror:
 * %hd with a short, %hhu with an unsigned char...). */
#define QUIET_BEGIN                                                           \
	_Pragma("GCC diagnostic push") _Pragma("GCC diagnostic ignored \"-Wformat\"") \
	QUIET_OVERFLOW
#if defined(__GNUC__) && !defined(__clang__)
#define QUIET_OVERFLOW _Pragma("GCC diagnostic ignored \"-Wformat-overflow\"")
#else
#define QUIET_OVERFLOW
#endif
#define QUIET_END _Pragma("GCC diagnostic pop")

#define MAXCASES 256

static char expected[MAXCASES][MEMSINK_MSG];
static size_t nexpected;

/* The message snprintf makes of fmt and the arguments (cut as the
 * memsink keeps it). */
static void __attribute__((format(printf, 1, 2))) expect(const char *fmt, ...)
{
	va_list ap;

	assert_true(nexpected < MAXCASES);
	va_start(ap, fmt);
	vsnprintf(expected[nexpected++], MEMSINK_MSG, fmt, ap);
	va_end(ap);
}

/* One case: the LOG and its expected message, twice: a site's first call
 * decides whether its calls take the fast path (liblog/site.h, "Fixed
 * sites"), so the second is the fast path's where it can be. The
 * arguments are evaluated twice per round here (once by each), so cases
 * with side effects are written out by hand below. */
#define CASE(...)                                                             \
	do {                                                                  \
		for (int case_k_ = 0; case_k_ < 2; case_k_++) {               \
			LOG_INFO(__VA_ARGS__);                                \
			expect(__VA_ARGS__);                                  \
		}                                                             \
	} while (0)

enum color { RED = 1, GREEN = 2 };

struct bits {
	unsigned u3 : 3;
	int s5 : 5;
};

static void check_output(const struct memsink *m)
{
	assert_int_equal(m->n, nexpected);
	for (size_t i = 0; i < m->n; i++) {
		if (strcmp(m->e[i].msg, expected[i]) != 0)
			fail_msg("case %zu: got \"%s\", expected \"%s\"", i, m->e[i].msg,
				 expected[i]);
	}
}

static void test_messages_equal_snprintf(void **state)
{
	struct memsink *m = memsink_new(LLOG_TRACE);
	struct bits b = {5, -7};
	char arr[16] = "array";
	const char *const cp = "const";
	const char *null = NULL;
	signed char sc = -5;
	unsigned char uc = 250;
	short sh = -300;
	unsigned short ush = 65000;
	_Bool yes = 1;
	float f = 1.5f;
	long double ld = 2.25L;
	wchar_t ws[] = L"wide";
	int i = 0, x = 7;

	(void)state;
	nexpected = 0;
	assert_int_equal(memsink_start(m, NULL), 0);

	CASE("no arguments at all");
	CASE("%d %i", INT_MIN, INT_MAX);
	CASE("%u %x %o", UINT_MAX, 0xdeadbeefu, 8u);
	CASE("%c%c%c", 'o', 'k', '!');
	CASE("%hhd %hhu %hd %hu", sc, uc, sh, ush);
	CASE("%d", yes);
	CASE("%u %d", b.u3, b.s5);
	CASE("%d %d", RED, (enum color)GREEN);
	CASE("%ld %lu", LONG_MIN, ULONG_MAX);
	CASE("%lld %llu", LLONG_MIN, ULLONG_MAX);
	CASE("%zu %zd %td %jd %ju", SIZE_MAX, (ssize_t)-1, (ptrdiff_t)-2, INTMAX_MIN,
	     UINTMAX_MAX);
	CASE("%" PRId64 " %" PRIu64 " %" PRIx32, INT64_MIN, UINT64_MAX, UINT32_MAX);
	CASE("%f %.3f %e %g %a", 1.0 / 3, f, -1e300, 1e-300, 0.1);
	QUIET_BEGIN
	CASE("%s|%s|%s|%s", "literal", arr, cp, null);
	QUIET_END
	CASE("%.3s|%10s|%-6s|", "truncate", "right", "left");
	CASE("%.*s|%*d|%-*d|", 4, "precision", 6, 42, 5, -1);
	CASE("%p %p %p", (void *)arr, (const void *)0, (void *)&x);
	CASE("%d %s %.2f %u %c %ld %p %x", -1, "eight", 2.5, 3u, 'c', 4L, (void *)0x10, 255u);
	/* 9 arguments: through llog__log at compile time */
	CASE("%d %d %d %d %d %d %d %d %d", 1, 2, 3, 4, 5, 6, 7, 8, 9);
	/* long double: through llog__log at compile time */
	CASE("%Lf %d", ld, 3);
	/* EAGER plans (rendered at the call): back to llog__log at run time */
	CASE("%ls %d", ws, 4);
	QUIET_BEGIN
	errno = EACCES;
	LOG_INFO("errno says %m (%d)", 6);
	errno = EACCES;
	expect("errno says %m (%d)", 6);
	QUIET_END
	/* POSIX positional formats: reordered, reused, '*n$' (gcc's
	 * -Wpedantic says ISO C has no "n$") */
	QUIET_BEGIN
	CASE("A %1$d %2$s", 42, "pos");
	CASE("%2$s %1$d %2$.1s %1$x", 42, "pos");
	CASE("[%2$*1$d] [%3$.*1$f] %% [%4$-*1$s]", 7, -3, 2.5, "str");
	CASE("%3$p %2$c %1$lld %4$u %5$g", -5LL, 'c', (void *)arr, 8u, 0.125);
	CASE("%9$d %8$d %7$d %6$d %5$d %4$d %3$d %2$d %1$d", 1, 2, 3, 4, 5, 6, 7, 8, 9);
	CASE("%2$.*1$s|%3$ls|%4$Lf", 3, "precision", ws, ld); /* at the call */
	/* undefined: a skipped index; the rest of the format as text */
	LOG_INFO("skip %1$d %3$d", 1, 2, 3);
	QUIET_END
	expect("skip 1 %%3$d");
	/* With fields: the message's arguments go the same ways. */
	LOG_INFO_KV(("k", 1), "kv %d %s %.1f", 5, "x", 0.5);
	expect("kv %d %s %.1f", 5, "x", 0.5);
	LOG_INFO_KV(("k", 2, "s", "v"), "kv constant");
	expect("kv constant");
	LOG_INFO_KV(("k", 3), "kv %ls %Lf", ws, ld);
	expect("kv %ls %Lf", ws, ld);
	LOG_INFO_KV(("k", 4), "kv %ls", ws);
	expect("kv %ls", ws);
	/* Each argument once, however many times the macro names it. */
	LOG_INFO("%d %d", i++, x);
	assert_int_equal(i, 1);
	expect("%d %d", 0, 7);
	LOG_INFO("%d %s", x, &"side"[i++ - 1]);
	assert_int_equal(i, 2);
	expect("%d %s", 7, "side");
	LOG_INFO("%.1f", (double)i++);
	assert_int_equal(i, 3);
	expect("%.1f", 2.0);

	llog_flush();
	check_output(m);
	llog_shutdown();
	memsink_free(m);
}

/* A site of its own for each direct call (the plan is parsed from fmt). */
#define SITE_T(fmt, v, n)                                                     \
	__extension__({                                                       \
		static struct llog_site s_ = {fmt, __FILE__, __func__, __LINE__, \
					      LLOG_INFO | LLOG__SITE_V2, 0, {0}, \
					      NULL, 0};                       \
		llog__log_t(&s_, (v), (n));                                   \
	})

static void test_llog__log_t_returns(void **state)
{
	struct memsink *m = memsink_new(LLOG_TRACE);
	uint64_t v[4] = {(uint64_t)-3, 0, 0, 0};
	double d = 0.5;
	const char *str = "str";
	struct llog_stats st;

	(void)state;
	memcpy(&v[1], &d, sizeof(d));
	v[2] = (uint64_t)(uintptr_t)str;

	/* No flusher (before llog_init): 1, nothing done (llog__log writes
	 * such a call synchronously). */
	assert_int_equal(SITE_T("closed %d", v, 1), 1);

	assert_int_equal(memsink_start(m, NULL), 0);
	assert_int_equal(SITE_T("taken %d %.1f %s", v, 3), 0);
	assert_int_equal(SITE_T("extra slots are ignored %d", v, 4), 0);
	assert_int_equal(SITE_T("no argument", NULL, 0), 0);
	/* more conversions than slots, EAGER plans, long double: 1 */
	assert_int_equal(SITE_T("short %d %d", v, 1), 1);
	assert_int_equal(SITE_T("wide %ls", v, 1), 1);
	assert_int_equal(SITE_T("errno %m", v, 0), 1);
	assert_int_equal(SITE_T("positional %1$d %1$u", v, 1), 0); /* slots by index */
	assert_int_equal(SITE_T("positional %1$.*2$s", v, 2), 1); /* at the call */
	assert_int_equal(SITE_T("long double %Lf", v, 1), 1);
	/* With fields: the same rules. */
	{
		static const char *const keys[] = {"k"};
		static const unsigned char types[] = {LLOG_FIELD_I64};
		static const struct llog__kv_site ks = {1, keys, types, NULL}; /* no klens: as an older llog.h made it */
		union llog__kv_val kv[1];
		static struct llog_site s1 = {"kv taken %d", __FILE__, __func__, __LINE__,
					      LLOG_INFO | LLOG__SITE_V2, 0, {0}, NULL, 0};
		static struct llog_site s2 = {"kv wide %ls", __FILE__, __func__, __LINE__,
					      LLOG_INFO | LLOG__SITE_V2, 0, {0}, NULL, 0};

		kv[0].i = 9;
		assert_int_equal(llog__log_kv_t(&s1, &ks, kv, v, 1), 0);
		assert_int_equal(llog__log_kv_t(&s2, &ks, kv, v, 1), 1);
	}
	/* A call whose level is not a record's: 0, nothing logged. */
	{
		static struct llog_site s_ = {"off %d", __FILE__, __func__, __LINE__,
					      LLOG_OFF | LLOG__SITE_V2, 0, {0}, NULL, 0};

		assert_int_equal(llog__log_t(&s_, v, 1), 0);
	}
	llog_flush();
	llog_get_stats(&st);
	assert_int_equal(m->n, 5);
	assert_string_equal(m->e[0].msg, "taken -3 0.5 str");
	assert_string_equal(m->e[1].msg, "extra slots are ignored -3");
	assert_string_equal(m->e[2].msg, "no argument");
	assert_string_equal(m->e[3].msg, "positional -3 4294967293");
	assert_string_equal(m->e[4].msg, "kv taken -3");
	assert_int_equal(st.dropped, 0);
	llog_shutdown();
	memsink_free(m);
}

/* A call without slots (v NULL: llog__log_t0, the macros' form, and
 * llog__log_t as older macros call it) never hands back: where the typed
 * path cannot take it (an EAGER format, more conversions than arguments,
 * no flusher) the library makes the variadic call itself, once. */
static void test_no_slots_never_handed_back(void **state)
{
	struct memsink *m = memsink_new(LLOG_TRACE);
	static struct llog_site t0 = {"t0 errno %m", __FILE__, __func__, __LINE__,
				      LLOG_INFO | LLOG__SITE_V2, 0, {0}, NULL, 0};
	static const char *const keys[] = {"k"};
	static const unsigned char types[] = {LLOG_FIELD_I64};
	static const struct llog__kv_site ks = {1, keys, types, NULL};
	static struct llog_site kv0 = {"kv0 errno %m", __FILE__, __func__, __LINE__,
				       LLOG_INFO | LLOG__SITE_V2, 0, {0}, NULL, 0};
	union llog__kv_val kv[1];
	char want[MEMSINK_MSG];

	(void)state;
	kv[0].i = 5;
	assert_int_equal(memsink_start(m, NULL), 0);
	errno = ENOENT;
	snprintf(want, sizeof(want), "errno %s", strerror(ENOENT));
	assert_int_equal(llog__log_t0(&t0), 0);
	errno = ENOENT;
	assert_int_equal(SITE_T("errno %m", NULL, 0), 0);
	assert_int_equal(SITE_T("short %d", NULL, 0), 0); /* undefined, as printf's */
	errno = ENOENT;
	assert_int_equal(llog__log_kv_t0(&kv0, &ks, kv), 0);
	llog_flush();
	assert_int_equal(m->n, 4);
	assert_string_equal(m->e[0].msg + 3, want);
	assert_string_equal(m->e[1].msg, want);
	assert_memory_equal(m->e[2].msg, "short ", 6);
	assert_string_equal(m->e[3].msg + 4, want);
	llog_shutdown();
	memsink_free(m);
}

/* A direct site at level lv called twice with the same slots (both taken:
 * 0); its state word after: the verdict of its first call (site.h). */
#define SITE_TWICE(lv, fmt, v, n)                                             \
	__extension__({                                                       \
		static struct llog_site s_ = {fmt, __FILE__, __func__, __LINE__, \
					      (lv) | LLOG__SITE_V2, 0, {0}, NULL, 0}; \
		assert_int_equal(llog__log_t(&s_, (v), (n)), 0);              \
		assert_true((unsigned)s_.state & LLOG__SITE_CHECKED);          \
		assert_int_equal(llog__log_t(&s_, (v), (n)), 0);              \
		(unsigned)s_.state;                                           \
	})

/* Which sites take the fast path, and the shape they keep for it: a
 * format of 4-byte ints, 8-byte values and plain strings (at most 8), at a
 * level below ERROR; anything else stays on log_core's path. Both calls'
 * messages are the same either way. */
static void test_fast_sites(void **state)
{
	struct memsink *m = memsink_new(LLOG_TRACE);
	uint64_t v[8] = {(uint64_t)-3, 0, 0, 7, 8, 9, 10, 11};
	uint64_t vi[8] = {1, 2, 3, 4, 5, 6, 7, (uint64_t)-8};
	uint64_t v7[7] = {(uint64_t)-3, 0x10, 'c', 255, 8, 9, 10}, vp[2] = {2, 0};
	double d = 0.5;
	const char *str = "str";
	unsigned w;

	(void)state;
	memcpy(&v[1], &d, sizeof(d));
	v[2] = vp[1] = (uint64_t)(uintptr_t)str;
	assert_int_equal(memsink_start(m, NULL), 0);

	w = SITE_TWICE(LLOG_INFO, "fast %d %.1f %s", v, 3);
	assert_int_equal(w & (LLOG__SITE_STATE_MASK | LLOG__SITE_CHECKED | LLOG__SITE_FAST),
			 LLOG__SITE_READY | LLOG__SITE_CHECKED | LLOG__SITE_FAST);
	assert_true(w & LLOG__SHAPE_HAS_STR);
	assert_int_equal(LLOG__SHAPE_LEVEL(w), LLOG_INFO);
	assert_int_equal(LLOG__SHAPE_ARGS(w),
			 LLOG__SHAPE_INT | LLOG__SHAPE_WIDE << 2 | LLOG__SHAPE_STR << 4);
	assert_int_equal(LLOG__SHAPE_FIXED(w), 4 + 8 + 4);

	w = SITE_TWICE(LLOG_TRACE, "fast, no argument", NULL, 0);
	assert_true(w & LLOG__SITE_FAST);
	assert_false(w & LLOG__SHAPE_HAS_STR);
	assert_int_equal(LLOG__SHAPE_ARGS(w), 0);
	assert_int_equal(LLOG__SHAPE_FIXED(w), 0);

	w = SITE_TWICE(LLOG_WARN, "fast %ld %p %c %x %u %d %lu", v7, 7);
	assert_true(w & LLOG__SITE_FAST);
	assert_int_equal(LLOG__SHAPE_LEVEL(w), LLOG_WARN);
	assert_int_equal(LLOG__SHAPE_FIXED(w), 8 + 8 + 4 + 4 + 4 + 4 + 8);
	w = SITE_TWICE(LLOG_DEBUG, "fast %d %d %d %d %d %d %d %d", vi, 8);
	assert_true(w & LLOG__SITE_FAST);
	/* more slots than the format consumes: the format's count */
	w = SITE_TWICE(LLOG_INFO, "fast %d", v, 3);
	assert_true(w & LLOG__SITE_FAST);

	/* not fixed: a precision, %.*s; the levels that wake or abort */
	w = SITE_TWICE(LLOG_INFO, "slow %.2s", &v[2], 1);
	assert_int_equal(w, LLOG__SITE_READY | LLOG__SITE_CHECKED);
	w = SITE_TWICE(LLOG_INFO, "slow %.*s", vp, 2);
	assert_int_equal(w, LLOG__SITE_READY | LLOG__SITE_CHECKED);
	w = SITE_TWICE(LLOG_ERROR, "slow %d", v, 1);
	assert_int_equal(w, LLOG__SITE_READY | LLOG__SITE_CHECKED);

	/* the largest fixed part, 8 wide values: 64 bytes, kept in bits
	 * 24-28, clear of the sites' own mark (bit 30) and of the sign bit
	 * (the mark of headers before LLOG__FAST_ABI 3) */
	w = SITE_TWICE(LLOG_INFO, "wide %ld %ld %ld %ld %ld %ld %ld %ld", vi, 8);
	assert_true(w & LLOG__SITE_FAST);
	assert_int_equal(LLOG__SHAPE_FIXED(w), 64);
	assert_false(w & (unsigned)LLOG__SITE_INLINE);
	assert_false(w & 0x80000000u);

	llog_flush();
	assert_int_equal(m->n, 18);
	for (int k = 0; k < 2; k++) {
		assert_string_equal(m->e[0 + k].msg, "fast -3 0.5 str");
		assert_string_equal(m->e[2 + k].msg, "fast, no argument");
		assert_string_equal(m->e[4 + k].msg, "fast -3 0x10 c ff 8 9 10");
		assert_string_equal(m->e[6 + k].msg, "fast 1 2 3 4 5 6 7 -8");
		assert_string_equal(m->e[8 + k].msg, "fast -3");
		assert_string_equal(m->e[10 + k].msg, "slow st");
		assert_string_equal(m->e[12 + k].msg, "slow st");
		assert_string_equal(m->e[14 + k].msg, "slow -3");
		assert_string_equal(m->e[16 + k].msg, "wide 1 2 3 4 5 6 7 -8");
	}
	llog_shutdown();
	memsink_free(m);
}

/* The whole messages of the entries (the flusher's, memsink's hook). */
static char whole[4][8192];
static size_t whole_len[4], nwhole;

static void keep_whole(struct memsink *m, const struct llog_entry *e)
{
	(void)m;
	if (nwhole < 4 && e->msg_len <= sizeof(whole[0])) {
		memcpy(whole[nwhole], e->msg, e->msg_len);
		whole_len[nwhole++] = e->msg_len;
	}
}

/* A positional string longer than the record bound (4 KiB) is clipped at
 * the call as a sequential one is: the same message, marked; a typed call
 * and one through llog__log (9 arguments) alike. */
static void test_positional_long_string(void **state)
{
	struct memsink *m = memsink_new(LLOG_TRACE);
	static char big[10001];
	static const char marker[] = " [truncated]";
	struct llog_stats st0, st;

	(void)state;
	memset(big, 'x', sizeof(big) - 1);
	m->hook = keep_whole;
	nwhole = 0;
	llog_get_stats(&st0); /* the counts go on across sessions */
	assert_int_equal(memsink_start(m, NULL), 0);
	LOG_INFO("%s|%d", big, 7);
	QUIET_BEGIN
	LOG_INFO("%1$s|%2$d", big, 7);
	LOG_INFO("%2$s|%1$d", 7, big);
	LOG_INFO("%1$s|%2$d%3$.0s%4$.0s%5$.0s%6$.0s%7$.0s%8$.0s%9$.0s", big, 7, "", "", "", "",
		 "", "", "");
	QUIET_END
	llog_flush();
	llog_get_stats(&st);
	assert_int_equal(nwhole, 4);
	assert_int_equal(st.truncated - st0.truncated, 4);
	assert_true(whole_len[0] > 4000 && whole_len[0] <= 4096 + sizeof(marker) - 1);
	assert_memory_equal(whole[0] + whole_len[0] - (sizeof(marker) - 1), marker,
			    sizeof(marker) - 1);
	assert_int_equal(whole_len[1], whole_len[0]);
	assert_memory_equal(whole[1], whole[0], whole_len[0]);
	/* the clipped string is what the room left: the same for "%2$s" */
	assert_int_equal(whole_len[2], whole_len[0]);
	assert_memory_equal(whole[2], whole[0], whole_len[0]);
	/* seven more (empty) strings: 28 more bytes of lengths */
	assert_int_equal(whole_len[3], whole_len[0] - 28);
	llog_shutdown();
	memsink_free(m);
}

/* The fast path takes a string that fills the record's bound exactly
 * (4 KiB: its 4-byte length and 4092 bytes); one byte more is clipped,
 * by log_core, and marked: the same as the first call of the site. (Which
 * path wrote each call: test_sched's test_fast_path_string_bound.) */
/* Strings of every length from 0 to 40 beside a value, through one site
 * (its second and later calls the fast path's): the short ones' copy
 * (fast_copy: 8 to 16 and 17 to 32 bytes as two overlapping chunks, the
 * rest by mempcpy) keeps every byte and the value after it. */
static void test_fast_string_lengths(void **state)
{
	struct memsink *m = memsink_new(LLOG_TRACE);
	char s[41];

	(void)state;
	nexpected = 0;
	assert_int_equal(memsink_start(m, NULL), 0);
	for (int len = 0; len <= 40; len++) {
		for (int i = 0; i < len; i++)
			s[i] = (char)('a' + (i * 7 + len) % 26);
		s[len] = '\0';
		LOG_INFO("<%s> %d", s, len);
		expect("<%s> %d", s, len);
	}
	llog_flush();
	check_output(m);
	llog_shutdown();
	memsink_free(m);
}

static void test_fast_string_bound(void **state)
{
	struct memsink *m = memsink_new(LLOG_TRACE);
	static char fits[4093], over[4094];
	static const char marker[] = " [truncated]";
	struct llog_stats st0, st;

	(void)state;
	memset(fits, 'f', sizeof(fits) - 1);
	memset(over, 'o', sizeof(over) - 1);
	m->hook = keep_whole;
	nwhole = 0;
	llog_get_stats(&st0);
	assert_int_equal(memsink_start(m, NULL), 0);
	for (int k = 0; k < 2; k++)
		LOG_INFO("%s", fits);
	for (int k = 0; k < 2; k++)
		LOG_INFO("%s", over);
	llog_flush();
	llog_get_stats(&st);
	assert_int_equal(nwhole, 4);
	assert_int_equal(st.truncated - st0.truncated, 2);
	for (int k = 0; k < 2; k++) {
		assert_int_equal(whole_len[k], sizeof(fits) - 1);
		assert_memory_equal(whole[k], fits, sizeof(fits) - 1);
		assert_int_equal(whole_len[2 + k], 4092 + sizeof(marker) - 1);
		assert_memory_equal(whole[2 + k], over, 4092);
		assert_memory_equal(whole[2 + k] + 4092, marker, sizeof(marker) - 1);
	}
	llog_shutdown();
	memsink_free(m);
}

/* Before llog_init, a LOG is written synchronously to stderr; a typed
 * call hands such a call to llog__log, which does that. */
static void test_closed_list_goes_to_llog__log(void **state)
{
	char path[] = "/tmp/llog_test_typed_XXXXXX", buf[4096];
	int fd = mkstemp(path), saved = dup(2);
	FILE *f;
	size_t n;

	(void)state;
	assert_true(fd >= 0 && saved >= 0);
	fflush(stderr);
	assert_int_equal(dup2(fd, 2), 2);
	LOG_INFO("before init %d %s %.2f", 1, "sync", 0.25);
	LOG_INFO("before init, no argument");
	fflush(stderr);
	assert_int_equal(dup2(saved, 2), 2);
	close(saved);
	close(fd);
	f = fopen(path, "r");
	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	unlink(path);
	assert_non_null(strstr(buf, "before init 1 sync 0.25\n"));
	assert_non_null(strstr(buf, "before init, no argument\n"));
	/* once: llog__log_t0 made the variadic call itself, the macro none */
	assert_null(strstr(strstr(buf, "before init, no argument\n") + 1,
			   "before init, no argument\n"));
}

TEST_MAIN(
	cmocka_unit_test(test_closed_list_goes_to_llog__log),
	cmocka_unit_test(test_no_slots_never_handed_back),
	cmocka_unit_test(test_llog__log_t_returns),
	cmocka_unit_test(test_messages_equal_snprintf),
	cmocka_unit_test(test_fast_sites),
	cmocka_unit_test(test_fast_string_lengths),
	cmocka_unit_test(test_fast_string_bound),
	cmocka_unit_test(test_positional_long_string),
)
