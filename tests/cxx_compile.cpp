/*
 * cxx_compile.cpp - what the C++ forms of LOG_*_KV, llog_ctx_set and the
 * typed calls must refuse at compile time (docs/fields.md 1, 7), as
 * kv_compile.c checks C's. ctest compiles it once per CASE
 * (tests/CMakeLists.txt): CASE 0 is the positive control and must compile
 * with -Werror (and its object must hold no guard of a function-local
 * static: the sites' data is constant-initialised); every other case must
 * not.
 */
#include <cstddef>
#include <string>

#include "llog.h"

struct s {
	int a;
};

enum class scoped { one = 1 };

void f(int i, const char *str, std::string ss);
void f(int i, const char *str, std::string ss)
{
	struct s st = {1};
	int *ip = &i;
	void *vp = nullptr;
	const char *key = "k";
	long double ld = 1.0L;
	char buf[4] = "abc";
	volatile unsigned char vbuf[4] = {1, 2, 3, 4};

	(void)st;
	(void)ip;
	(void)vp;
	(void)key;
	(void)ld;
	(void)ss;
	(void)vbuf;
#if CASE == 0
	LOG_INFO_KV(("i", i, "s", str, "d", 1.0, "n", static_cast<const char *>(nullptr), "b", true),
		    "ok %d %s", i, ss.c_str());
	LOG_KV(LLOG_WARN, ("k", 1u, "buf", buf, "lit", "x"), "ok");
	LOG_INFO("%Lf %p %p", ld, static_cast<void *>(ip), vp);
	LOG_INFO("static");
	LOG_INFO("%d %.3f %s", i, 1.5, str);
	LOG_AT(LLOG_INFO, "at %d", i);
	LOG_AT_CAT(LLOG_WARN, "cat", "at %s", str);
	LOG_CAT(LLOG_ERROR, "cat", "cat %u", 1u);
	LOG_INFO_CAT("cat", "cat");
	LOG_FIRST_N(LLOG_INFO, 3, "first %d", i);
	LOG_EVERY_N(LLOG_INFO, 3, "every %d", i);
	LOG_EVERY_MS(LLOG_INFO, 100, "every ms %d", i);
	LOG_N_PER_MS(LLOG_INFO, 2, 100, "n per ms %d", i);
	LOG_TRACE_KV(("k", i), "trace");
	/* more than 8 arguments (the variadic call), more than 8 fields */
	LOG(LLOG_INFO, "nine %d %u %ld %s %p %f %c %d %s", i, 1u, 2L, str, vp, 1.5, 'c', i, buf);
	LOG_INFO_KV(("a0", 0, "a1", 1, "a2", 2, "a3", 3, "a4", 4, "a5", 5, "a6", 6, "a7", 7,
		     "a8", 8),
		    "nine fields %d %d %d %d %d %d %d %d %d", i, i, i, i, i, i, i, i, i);
	LOG_WARN_EVERY_N(2, "every other %s", str);
	LLOG_LOG_ERROR_CAT("cat", "long name %d", i);
	(void)llog_ctx_set("k", i);
	(void)llog_ctx_set("s", str);
	(void)llog_ctx_set("ss", ss.c_str());
	LOG_INFO_KV(("hex", LLOG_HEX(str, 1)), "a buffer in hex");
	(void)llog_ctx_set("hex", LLOG_HEX(&i, sizeof(i)));
	/* a volatile buffer, as C takes it (its cast drops the qualifier) */
	LOG_INFO_KV(("vhex", LLOG_HEX(vbuf, sizeof(vbuf))), "a volatile buffer in hex");
	(void)llog_ctx_set("vhex", LLOG_HEX(vbuf, 2));
	{
		LLOG_CTX_SCOPE("scope", i);
		LLOG_CTX_SCOPE("scope_s", str);
		LLOG_CTX_SCOPE("scope_hex", LLOG_HEX(buf, 2));
		LOG_DEBUG("in scope");
	}
#elif CASE == 1
	LOG_INFO_KV(("ss", ss), "std::string");
#elif CASE == 2
	LOG_INFO_KV(("st", st), "struct");
#elif CASE == 3
	LOG_INFO_KV(("vp", vp), "void pointer");
#elif CASE == 4
	LOG_INFO_KV(("ip", ip), "pointer to int");
#elif CASE == 5
	LOG_INFO_KV(("null", nullptr), "nullptr");
#elif CASE == 6
	LOG_INFO_KV(("ld", ld), "long double");
#elif CASE == 7
	LOG_INFO_KV(("e", scoped::one), "scoped enum");
#elif CASE == 8
	(void)llog_ctx_set("ss", ss);
#elif CASE == 9
	(void)llog_ctx_set("k", st);
#elif CASE == 10
	LLOG_CTX_SCOPE("vp", vp);
#elif CASE == 11
	LOG_INFO_KV((key, 1), "key not a literal");
#elif CASE == 12
	LOG_INFO_KV(("k1234567890123456789012345678901234567890123456789012345678901234", 1),
		    "key of 65 bytes");
#elif CASE == 13
	LOG_INFO_KV(("", 1), "empty key");
#elif CASE == 14
	LOG_INFO_KV(("a", 1, "b"), "odd count");
#elif CASE == 15
	LOG_INFO_KV(("a0", 0, "a1", 1, "a2", 2, "a3", 3, "a4", 4, "a5", 5, "a6", 6, "a7", 7,
		     "a8", 8, "a9", 9, "b0", 0, "b1", 1, "b2", 2, "b3", 3, "b4", 4, "b5", 5,
		     "b6", 6, "b7", 7, "b8", 8, "b9", 9, "c0", 0, "c1", 1, "c2", 2, "c3", 3,
		     "c4", 4, "c5", 5, "c6", 6, "c7", 7, "c8", 8, "c9", 9, "d0", 0, "d1", 1,
		     "d2", 2),
		    "33 pairs");
#elif CASE == 16
	/* the format check sees a typed call's arguments (-Werror=format) */
	LOG_INFO("a string %s", i);
#elif CASE == 17
	LOG_INFO_KV(("k", 1), "an int %d", str);
#elif CASE == 18
	/* a hex dump is a field's value, not a printf argument */
	LOG_INFO("frame %s", LLOG_HEX(str, 1));
#endif
}
