/*
 * test_cxx.cpp - llog from C++ (llog/detail.h "C++"): typed calls, fields,
 * context and LLOG_HEX, with exact outcomes through a callback sink.
 *
 * DESIGN
 * The oracle for messages is the C library, as in test_typed.c: every LOG
 * here is paired with snprintf of the same format and arguments, and the
 * entry's message must equal it byte for byte. The typed path is watched
 * through the linker: llog__log_ts and llog__log_kv_ts, where a site's
 * first typed call goes, are wrapped (-Wl,--wrap, tests/CMakeLists.txt),
 * and the wrappers count this file's calls and the ones the library took
 * (returned 0). So each case states
 * how its call must go: typed and taken (1 to 8 arguments that ride in
 * slots), typed but handed back at run time (%ls: rendered at the call),
 * or variadic at compile time (a long double, 9 arguments); built with
 * LLOG_NO_TYPED_CALLS (test_cxx_untyped) no call may be typed and every
 * message must be the same. Fields and context values are checked by type
 * and value as the sink receives them.
 *
 * A plain program: it prints each failed check and exits 1.
 */
#include <cerrno>
#include <cinttypes>
#include <climits>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <string>
#include <sys/types.h>
#include <vector>

#include "llog.h"
#include "llog/sinks.h"

static int failures;

#define CHECK(cond)                                                           \
	do {                                                                  \
		if (!(cond)) {                                                \
			std::fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, \
				     __LINE__, #cond);                        \
			failures++;                                           \
		}                                                             \
	} while (0)

/* Format warnings that cases here provoke on purpose (positional formats
 * under -Wpedantic, nullptr as %p under clang's -Wformat-pedantic), off
 * around those calls only. */
#define QUIET_BEGIN                                                           \
	_Pragma("GCC diagnostic push") _Pragma("GCC diagnostic ignored \"-Wformat\"") \
		_Pragma("GCC diagnostic ignored \"-Wpedantic\"") QUIET_CLANG
#if defined(__clang__)
#define QUIET_CLANG _Pragma("GCC diagnostic ignored \"-Wformat-pedantic\"")
#else
#define QUIET_CLANG
#endif
#define QUIET_END _Pragma("GCC diagnostic pop")

/* ---- the typed entry points, wrapped ------------------------------------ */

extern "C" {
int __real_llog__log_ts(struct llog_site *site, const uint64_t *v, unsigned n, unsigned sig);
int __real_llog__log_kv_ts(struct llog_site *site, const struct llog__kv_site *ks,
			   const union llog__kv_val *kv, const uint64_t *v, unsigned n,
			   unsigned sig);
int __wrap_llog__log_ts(struct llog_site *site, const uint64_t *v, unsigned n, unsigned sig);
int __wrap_llog__log_kv_ts(struct llog_site *site, const struct llog__kv_site *ks,
			   const union llog__kv_val *kv, const uint64_t *v, unsigned n,
			   unsigned sig);
}

/* This file's typed calls (the library's own LOGs are not counted), on
 * the calling thread: made, and taken (0 returned); the last site and
 * signature seen. */
static unsigned long typed_made, typed_taken;
static struct llog_site *typed_site;
static unsigned typed_sig;

static bool ours(const struct llog_site *site)
{
	return std::strstr(site->file, "test_cxx.cpp") != nullptr;
}

/* A site's first typed call, and every call its own path (llog/detail.h,
 * "The call site's own fast path") does not take: a call without
 * arguments too (rc 0, its variadic call made inside when it must be). */
int __wrap_llog__log_ts(struct llog_site *site, const uint64_t *v, unsigned n, unsigned sig)
{
	int rc = __real_llog__log_ts(site, v, n, sig);

	if (ours(site)) {
		typed_made++;
		typed_taken += rc == 0;
		typed_site = site;
		typed_sig = sig;
	}
	return rc;
}

int __wrap_llog__log_kv_ts(struct llog_site *site, const struct llog__kv_site *ks,
			   const union llog__kv_val *kv, const uint64_t *v, unsigned n,
			   unsigned sig)
{
	int rc = __real_llog__log_kv_ts(site, ks, kv, v, n, sig);

	if (ours(site)) {
		typed_made++;
		typed_taken += rc == 0;
		typed_site = site;
		typed_sig = sig;
	}
	return rc;
}

#ifdef LLOG_NO_TYPED_CALLS
static const bool typed_build = false;
#else
static const bool typed_build = true;
#endif

/* How a case's call must go (typed_build only; untyped: never typed). */
enum path { TAKEN, HANDED_BACK, VARIADIC };

static void check_path(int line, unsigned long made0, unsigned long taken0, enum path p)
{
	unsigned long made = typed_made - made0, taken = typed_taken - taken0;
	unsigned long want_made = typed_build && p != VARIADIC;
	unsigned long want_taken = typed_build && p == TAKEN;

	if (made != want_made || taken != want_taken) {
		std::fprintf(stderr, "line %d: %lu typed call(s), %lu taken; expected %lu, %lu\n",
			     line, made, taken, want_made, want_taken);
		failures++;
	}
}

/* ---- the sink -------------------------------------------------------------- */

struct field {
	std::string key;
	int type;
	unsigned flags;
	int64_t i64;
	uint64_t u64;
	double f64;
	int b;
	std::string str;
};

struct entry {
	std::string msg;
	int level;
	std::vector<field> fields;
};

static std::mutex mu;
static std::vector<entry> entries; /* appended on the flusher */

static void on_entry(void *, const struct llog_entry *e)
{
	entry k;

	k.msg.assign(e->msg, e->msg_len);
	k.level = (int)e->level;
	for (size_t i = 0; i < e->nfields; i++) {
		const struct llog_field &f = e->fields[i];
		field d{};

		d.key.assign(f.key, f.key_len);
		d.type = (int)f.type;
		d.flags = f.flags;
		switch (f.type) {
		case LLOG_FIELD_I64: d.i64 = f.v.i64; break;
		case LLOG_FIELD_U64: d.u64 = f.v.u64; break;
		case LLOG_FIELD_F64: d.f64 = f.v.f64; break;
		case LLOG_FIELD_BOOL: d.b = f.v.b; break;
		case LLOG_FIELD_STR: d.str.assign(f.v.str.ptr, f.v.str.len); break;
		default: break;
		}
		k.fields.push_back(d);
	}
	std::lock_guard<std::mutex> g(mu);
	entries.push_back(k);
}

/* The entries so far (after llog_flush), and none kept. */
static std::vector<entry> take()
{
	std::vector<entry> r;

	llog_flush();
	std::lock_guard<std::mutex> g(mu);
	r.swap(entries);
	return r;
}

/* ---- messages: typed calls against snprintf -------------------------------- */

static std::vector<std::string> expected;

static void __attribute__((format(printf, 1, 2))) expect(const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	std::vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	expected.push_back(buf);
}

/* One case: the LOG, its expected message and the path its call took
 * (the arguments are evaluated twice: once by each). */
#define CASE(p, ...)                                                          \
	do {                                                                  \
		unsigned long made0_ = typed_made, taken0_ = typed_taken;     \
		LOG_INFO(__VA_ARGS__);                                        \
		check_path(__LINE__, made0_, taken0_, p);                     \
		expect(__VA_ARGS__);                                          \
	} while (0)

enum color { RED = 1, GREEN = 2 };
enum temp { COLD = -40, HOT = 40 };

struct bits {
	unsigned u3 : 3;
	int s5 : 5;
};

static void nothing() {}

static void check_messages(const std::vector<entry> &got)
{
	CHECK(got.size() == expected.size());
	for (size_t i = 0; i < got.size() && i < expected.size(); i++) {
		if (got[i].msg != expected[i]) {
			std::fprintf(stderr, "case %zu: got \"%s\", expected \"%s\"\n", i,
				     got[i].msg.c_str(), expected[i].c_str());
			failures++;
		}
	}
	expected.clear();
}

static void test_messages_equal_snprintf()
{
	int8_t i8 = -8;
	uint8_t u8 = 250;
	int16_t i16 = -300;
	uint16_t u16 = 65000;
	int32_t i32 = INT32_MIN;
	uint32_t u32 = UINT32_MAX;
	int64_t i64 = INT64_MIN;
	uint64_t u64 = UINT64_MAX;
	size_t sz = SIZE_MAX;
	ssize_t ssz = -1;
	ptrdiff_t pd = -2;
	long l = LONG_MIN;
	unsigned long long ull = ULLONG_MAX;
	bool yes = true, no = false;
	char c = 'c';
	signed char sc = -5;
	unsigned char uc = 200;
	float f = 1.5f;
	double d = -0.125;
	long double ld = 2.25L;
	struct bits b = {5, -7};
	char arr[16] = "array";
	const char *const cp = "const";
	std::string s = "std::string";
	int x = 7, i = 0;
	wchar_t ws[] = L"wide";
	const volatile int cv = 11;

	CASE(TAKEN, "no arguments at all");
	CASE(TAKEN, "%hhd %hhu %hd %hu", i8, u8, i16, u16);
	CASE(TAKEN, "%" PRId32 " %" PRIu32 " %" PRId64 " %" PRIu64, i32, u32, i64, u64);
	CASE(TAKEN, "%zu %zd %td %ld %llu", sz, ssz, pd, l, ull);
	CASE(TAKEN, "%d %i %u %x", INT_MIN, INT_MAX, UINT_MAX, 0xdeadbeefu);
	CASE(TAKEN, "%d %d", yes, no);
	CASE(TAKEN, "%c%c %hhd %hhu", c, 'k', sc, uc);
	CASE(TAKEN, "%d %d %d %d", RED, (enum color)GREEN, COLD, HOT);
	CASE(TAKEN, "%u %d", b.u3, b.s5);
	CASE(TAKEN, "%d", cv);
	CASE(TAKEN, "%f %.3f %e %g %a", 1.0 / 3, f, d, 1e-300, 0.1);
	CASE(TAKEN, "%s|%s|%s|%s", "literal", arr, cp, s.c_str());
	CASE(TAKEN, "%.3s|%10s|%-6s|", "truncate", "right", "left");
	CASE(TAKEN, "%.*s|%*d|%-*d|", 4, "precision", 6, 42, 5, -1);
	CASE(TAKEN, "%p %p %p", (void *)arr, (const void *)&x, (void *)nothing);
	QUIET_BEGIN
	CASE(TAKEN, "%p %p", (void *)nullptr, nullptr);
	QUIET_END
	CASE(TAKEN, "%d %s %.2f %u %c %ld %p %x", -1, "eight", 2.5, 3u, 'c', 4L, (void *)0x10,
	     255u);
	/* a long double, 9 arguments: through llog__log at compile time */
	CASE(VARIADIC, "%Lf %d", ld, 3);
	CASE(VARIADIC, "%d %d %d %d %d %d %d %d %d", 1, 2, 3, 4, 5, 6, 7, 8, 9);
	/* rendered at the call: the typed call hands it back */
	CASE(HANDED_BACK, "%ls %d", ws, 4);
	/* POSIX positional formats: slots in index order */
	QUIET_BEGIN
	CASE(TAKEN, "%2$s %1$d %2$.1s %1$x", 42, "pos");
	QUIET_END

	/* each argument evaluated once */
	LOG_INFO("%d %d", i++, x);
	CHECK(i == 1);
	expect("%d %d", 0, 7);
	LOG_INFO("%.1f %s", (double)x, &"side"[i++]);
	CHECK(i == 2);
	expect("%.1f %s", 7.0, "ide");

	/* LOG_AT, with a level in a variable */
	{
		enum llog_level lv = LLOG_WARN;
		unsigned long made0 = typed_made, taken0 = typed_taken;

		LOG_AT(lv, "at %s %d", "warn", 3);
		check_path(__LINE__, made0, taken0, TAKEN);
		expect("at %s %d", "warn", 3);
	}

	std::vector<entry> got = take();
	check_messages(got);
	if (got.size() >= 2)
		CHECK(got.back().level == LLOG_WARN);
}

/* A call below the level evaluates nothing, its fields neither. */
static void test_disabled_evaluates_nothing()
{
	int i = 0;

	llog_set_level(LLOG_WARN);
	LOG_INFO("%d", i++);
	LOG_INFO_KV(("k", i++), "kv %d", i++);
	LOG_DEBUG_KV(("k", i++), "kv");
	llog_set_level(LLOG_TRACE);
	CHECK(i == 0);
	CHECK(take().empty());
}

/* ---- fields ---------------------------------------------------------------- */

static const field *find(const entry &e, const char *key)
{
	for (const field &f : e.fields)
		if (f.key == key)
			return &f;
	return nullptr;
}

#define CHECK_I64(e, k, v)                                                    \
	do {                                                                  \
		const field *f_ = find(e, k);                                 \
		CHECK(f_ != nullptr && f_->type == LLOG_FIELD_I64 && f_->i64 == (int64_t)(v)); \
	} while (0)
#define CHECK_U64(e, k, v)                                                    \
	do {                                                                  \
		const field *f_ = find(e, k);                                 \
		CHECK(f_ != nullptr && f_->type == LLOG_FIELD_U64 && f_->u64 == (uint64_t)(v)); \
	} while (0)
#define CHECK_F64(e, k, v)                                                    \
	do {                                                                  \
		const field *f_ = find(e, k);                                 \
		CHECK(f_ != nullptr && f_->type == LLOG_FIELD_F64 && f_->f64 == (double)(v)); \
	} while (0)
#define CHECK_BOOL(e, k, v)                                                   \
	do {                                                                  \
		const field *f_ = find(e, k);                                 \
		CHECK(f_ != nullptr && f_->type == LLOG_FIELD_BOOL && f_->b == (v)); \
	} while (0)
#define CHECK_STR(e, k, v, fl)                                                \
	do {                                                                  \
		const field *f_ = find(e, k);                                 \
		CHECK(f_ != nullptr && f_->type == LLOG_FIELD_STR && f_->str == (v) && \
		      f_->flags == (fl));                                     \
	} while (0)
#define CHECK_NULL(e, k)                                                      \
	do {                                                                  \
		const field *f_ = find(e, k);                                 \
		CHECK(f_ != nullptr && f_->type == LLOG_FIELD_NULL);          \
	} while (0)

static void test_fields_of_every_type()
{
	int8_t i8 = -8;
	int16_t i16 = -16;
	int32_t i32 = -32;
	int64_t i64 = INT64_MIN;
	long l = -5;
	uint8_t u8 = 200;
	uint16_t u16 = 60000;
	uint32_t u32 = UINT32_MAX;
	uint64_t u64 = UINT64_MAX;
	size_t sz = 12345;
	char c = 'x';
	signed char sc = -3;
	unsigned char uc = 250;
	wchar_t wc = L'w';
	char16_t c16 = u'z';
	char32_t c32 = U'\U0001F600';
	float f = 1.5f;
	double d = -0.25;
	char arr[8] = "arr";
	const char *cp = "cp";
	std::string s = "std";
	const unsigned char bytes[3] = {0x0a, 0x1b, 0xff};
	const struct llog_hex hx = {bytes, 2};
	int n = 0;
	unsigned long made0 = typed_made, taken0 = typed_taken;

	LOG_INFO_KV(("i8", i8, "i16", i16, "i32", i32, "i64", i64, "long", l, "u8", u8, "u16",
		     u16, "u32", u32, "u64", u64, "size", sz, "char", c, "schar", sc, "uchar", uc,
		     "wchar", wc, "c16", c16, "c32", c32),
		    "integers %d", 1);
	check_path(__LINE__, made0, taken0, TAKEN);
	LOG_WARN_KV(("red", RED, "cold", COLD, "t", true, "f", false, "flt", f, "dbl", d, "arr",
		     arr, "cp", cp, "lit", "literal", "std", s.c_str(), "null",
		     (const char *)nullptr, "hex", LLOG_HEX(bytes, 3), "hexp", &hx, "hexnull",
		     LLOG_HEX(nullptr, 4), "once", n++),
		    "the rest %s %Lf", "and", 0.5L);
	CHECK(n == 1);

	std::vector<entry> got = take();
	CHECK(got.size() == 2);
	if (got.size() != 2)
		return;
	const entry &a = got[0], &e = got[1];
	CHECK(a.msg == "integers 1" && a.level == LLOG_INFO && a.fields.size() == 16);
	CHECK_I64(a, "i8", -8);
	CHECK_I64(a, "i16", -16);
	CHECK_I64(a, "i32", -32);
	CHECK_I64(a, "i64", INT64_MIN);
	CHECK_I64(a, "long", -5);
	CHECK_U64(a, "u8", 200);
	CHECK_U64(a, "u16", 60000);
	CHECK_U64(a, "u32", UINT32_MAX);
	CHECK_U64(a, "u64", UINT64_MAX);
	CHECK_U64(a, "size", 12345);
	CHECK_I64(a, "char", 'x');
	CHECK_I64(a, "schar", -3);
	CHECK_U64(a, "uchar", 250);
	CHECK_I64(a, "wchar", L'w');
	CHECK_U64(a, "c16", 'z');
	CHECK_U64(a, "c32", 0x1F600);
	/* the keys in call order */
	CHECK(a.fields[0].key == "i8" && a.fields[15].key == "c32");

	CHECK(e.msg == "the rest and 0.500000" && e.level == LLOG_WARN && e.fields.size() == 15);
	CHECK_U64(e, "red", 1);  /* an enum of non-negative values: unsigned */
	CHECK_I64(e, "cold", -40);
	CHECK_BOOL(e, "t", 1);
	CHECK_BOOL(e, "f", 0);
	CHECK_F64(e, "flt", 1.5);
	CHECK_F64(e, "dbl", -0.25);
	CHECK_STR(e, "arr", "arr", 0u);
	CHECK_STR(e, "cp", "cp", 0u);
	CHECK_STR(e, "lit", "literal", 0u);
	CHECK_STR(e, "std", "std", 0u);
	CHECK_NULL(e, "null");
	CHECK_STR(e, "hex", "0a1bff", LLOG_FIELD_HEX);
	CHECK_STR(e, "hexp", "0a1b", LLOG_FIELD_HEX);
	CHECK_NULL(e, "hexnull");
	CHECK_I64(e, "once", 0);
}

/* Every level's form, and the message's arguments beside the fields. */
static void test_fields_every_level()
{
	volatile bool never = false;
	unsigned long made0 = typed_made, taken0 = typed_taken;

	LOG_TRACE_KV(("lv", 0), "trace %d", 0);
	LOG_DEBUG_KV(("lv", 1), "debug %s", "1");
	LOG_INFO_KV(("lv", 2), "info %.1f", 2.0);
	LOG_WARN_KV(("lv", 3), "warn %c", '3');
	LOG_ERROR_KV(("lv", 4), "error %u", 4u);
	LOG_KV(LLOG_INFO, ("lv", 5), "kv %d", 5);
	LLOG_LOG_INFO_KV(("lv", 6), "prefixed");
	if (never)
		LOG_FATAL_KV(("lv", 7), "fatal");
	/* each typed and taken */
	CHECK(typed_made - made0 == (typed_build ? 7u : 0u));
	CHECK(typed_taken - taken0 == (typed_build ? 7u : 0u));

	std::vector<entry> got = take();
	const char *msgs[] = {"trace 0", "debug 1", "info 2.0", "warn 3", "error 4", "kv 5",
			      "prefixed"};
	const int levels[] = {LLOG_TRACE, LLOG_DEBUG, LLOG_INFO, LLOG_WARN,
			      LLOG_ERROR, LLOG_INFO,  LLOG_INFO};
	CHECK(got.size() == 7);
	for (size_t i = 0; i < got.size() && i < 7; i++) {
		CHECK(got[i].msg == msgs[i]);
		CHECK(got[i].level == levels[i]);
		CHECK(got[i].fields.size() == 1);
		CHECK_I64(got[i], "lv", i);
	}
}

/* ---- context ---------------------------------------------------------------- */

static void test_context_and_scope()
{
	char arr[8] = "tenant";
	const unsigned char id[2] = {0xbe, 0xef};

	CHECK(llog_ctx_set("req", 41) == 0);
	CHECK(llog_ctx_set("u", 7u) == 0);
	CHECK(llog_ctx_set("ratio", 0.5f) == 0);
	CHECK(llog_ctx_set("on", true) == 0);
	CHECK(llog_ctx_set("who", arr) == 0);
	CHECK(llog_ctx_set("conn", LLOG_HEX(id, 2)) == 0);
	CHECK(llog_ctx_set("", 1) == -EINVAL);
	LOG_INFO("all set");
	{
		LLOG_CTX_SCOPE("req", "scoped");
		LLOG_CTX_SCOPE("new", -1L);
		LOG_INFO("in scope");
		{
			LLOG_CTX_SCOPE("req", 43);
			LOG_INFO("inner");
		}
		LOG_INFO("inner left");
	}
	LOG_INFO("scope left");
	try {
		LLOG_CTX_SCOPE("req", 44);
		LOG_INFO("before the throw");
		throw std::runtime_error("leave");
	} catch (const std::exception &) {
		LOG_INFO("caught");
	}
	CHECK(llog_ctx_clear() == 0);
	LOG_INFO("cleared");

	std::vector<entry> got = take();
	CHECK(got.size() == 8);
	if (got.size() != 8)
		return;
	const entry &all = got[0];
	CHECK(all.msg == "all set" && all.fields.size() == 6);
	CHECK(all.fields[0].key == "req" && all.fields[5].key == "conn"); /* set order */
	CHECK_I64(all, "req", 41);
	CHECK_U64(all, "u", 7);
	CHECK_F64(all, "ratio", 0.5);
	CHECK_BOOL(all, "on", 1);
	CHECK_STR(all, "who", "tenant", 0u);
	CHECK_STR(all, "conn", "beef", LLOG_FIELD_HEX);

	CHECK(got[1].msg == "in scope" && got[1].fields.size() == 7);
	CHECK_STR(got[1], "req", "scoped", 0u);
	CHECK_I64(got[1], "new", -1);
	CHECK(got[2].msg == "inner");
	CHECK_I64(got[2], "req", 43);
	CHECK(got[3].msg == "inner left");
	CHECK_STR(got[3], "req", "scoped", 0u);
	CHECK_I64(got[3], "new", -1);
	/* both restored: req to 41, new removed */
	CHECK(got[4].msg == "scope left" && got[4].fields.size() == 6);
	CHECK_I64(got[4], "req", 41);
	CHECK(find(got[4], "new") == nullptr);
	CHECK(got[5].msg == "before the throw");
	CHECK_I64(got[5], "req", 44);
	/* an exception leaving the block restores it too */
	CHECK(got[6].msg == "caught");
	CHECK_I64(got[6], "req", 41);
	CHECK(got[7].msg == "cleared" && got[7].fields.empty());
}

/* ---- the call site's own path ----------------------------------------------- */

#ifdef LLOG__FAST_INLINE
static const bool site_path = true;
#else
static const bool site_path = false; /* unoptimized: the library's path */
#endif

/* Three calls of one site: its first goes to the library (its verdict
 * with the call's signature), the next two take the site's own path
 * (llog/detail.h, "The call site's own fast path") when inline is set:
 * the site's state marked LLOG__SITE_INLINE, the signature the one the
 * C++ templates make. Else (a char * given to %p: a pointer to the plan)
 * every call goes to the library. Messages as snprintf's. */
#define SITE3(inl, sig, ...)                                                  \
	do {                                                                  \
		unsigned long made0_ = typed_made;                            \
		for (int k_ = 0; k_ < 3; k_++) {                              \
			LOG_INFO(__VA_ARGS__);                                \
			expect(__VA_ARGS__);                                  \
		}                                                             \
		if (typed_build) {                                            \
			CHECK(typed_made - made0_ == ((inl) && site_path ? 1u : 3u)); \
			CHECK(typed_sig == (sig));                            \
			CHECK(((typed_site->state & LLOG__SITE_INLINE) != 0) == (inl));              \
		}                                                             \
	} while (0)

static void test_site_path()
{
	const char *s = "peer-1";
	std::string str(40, 'x');
	char buf[] = "buf";
	long l = -5;
	unsigned char uc = 200;
	bool b = true;
	enum color c = GREEN;
	double d = 2.5;

	SITE3(true, LLOG__SIG_HEAD(0), "site static");
	SITE3(true,
	      LLOG__SIG_HEAD(3) | LLOG__SIG_INT | LLOG__SIG_WIDE << 2 | LLOG__SIG_STR << 4,
	      "site %d %.3f %s", 7, d, s);
	SITE3(true, LLOG__SIG_HEAD(2) | LLOG__SIG_STR | LLOG__SIG_STR << 2, "site [%s] [%s]",
	      str.c_str(), buf);
	SITE3(true,
	      LLOG__SIG_HEAD(4) | LLOG__SIG_WIDE | LLOG__SIG_INT << 2 | LLOG__SIG_INT << 4 |
		      LLOG__SIG_INT << 6,
	      "site %ld %u %d %d", l, uc, b, c);
	SITE3(true, LLOG__SIG_HEAD(1) | LLOG__SIG_WIDE, "site %p", (void *)buf);
	/* a char * to %p: the plan's pointer, not a string */
	QUIET_BEGIN
	SITE3(false, LLOG__SIG_HEAD(1) | LLOG__SIG_STR, "site %p", buf);
	QUIET_END
	check_messages(take());
	/* fields: the same path, the call block written by the site */
	{
		unsigned long made0 = typed_made;
		std::vector<entry> got;

		for (int k = 0; k < 3; k++)
			LOG_INFO_KV(("n", k, "ms", d, "peer", s, "none", (const char *)nullptr),
				    "kv %d", k);
		if (typed_build) {
			CHECK(typed_made - made0 == (site_path ? 1u : 3u));
			CHECK((typed_site->state & LLOG__SITE_INLINE) != 0);
			/* never the sign bit: the code of headers before
			 * LLOG__FAST_ABI 3 takes it for its own mark */
			CHECK(typed_site->state > 0);
		}
		got = take();
		CHECK(got.size() == 3);
		for (size_t k = 0; k < got.size(); k++) {
			CHECK(got[k].msg == "kv " + std::to_string(k));
			CHECK(got[k].fields.size() == 4);
			if (got[k].fields.size() != 4)
				continue;
			CHECK(got[k].fields[0].key == "n" && got[k].fields[0].i64 == (int64_t)k);
			CHECK(got[k].fields[1].key == "ms" && got[k].fields[1].f64 == d);
			CHECK(got[k].fields[2].key == "peer" && got[k].fields[2].str == s);
			CHECK(got[k].fields[3].key == "none" &&
			      got[k].fields[3].type == LLOG_FIELD_NULL);
		}
	}
}
#undef SITE3

int main()
{
	struct llog_callback_options o = {};

	o.on_entry = on_entry;
	if (llog_add_sink(llog_callback_sink(&o)) != 0 || llog_init(nullptr) != 0) {
		std::fprintf(stderr, "test_cxx: llog did not start\n");
		return 1;
	}
	test_messages_equal_snprintf();
	test_disabled_evaluates_nothing();
	test_fields_of_every_type();
	test_fields_every_level();
	test_context_and_scope();
	test_site_path();
	llog_shutdown();
	if (failures != 0) {
		std::fprintf(stderr, "test_cxx: %d check(s) failed\n", failures);
		return 1;
	}
	std::printf("test_cxx: all checks passed (%s calls; %lu typed, %lu taken)\n",
		    typed_build ? "typed" : "variadic", typed_made, typed_taken);
	return 0;
}
