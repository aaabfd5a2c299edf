/*
 * kv_compile.c - what LOG_*_KV must refuse at compile time (docs/fields.md
 * 1). ctest compiles it once per CASE (tests/CMakeLists.txt): CASE 0 is
 * the positive control and must compile (with -Werror); every other case
 * must not.
 */
#include <stddef.h>

#include "llog.h"

struct s {
	int a;
};

void f(void);
void f(void)
{
	int i = 1;
	const char *str = "s";
	struct s st = {1};
	int *ip = &i;
	void *vp = NULL;
	const char *key = "k";

	(void)st;
	(void)ip;
	(void)vp;
	(void)key;
	(void)str;
#if CASE == 0
	LOG_INFO_KV(("i", i, "s", str, "d", 1.0, "n", (const char *)NULL), "ok %d", i);
	LOG_KV(LLOG_WARN, ("k", 1u), "ok");
	(void)llog_ctx_set("k", i);
	(void)llog_ctx_set("s", str);
	LOG_INFO_KV(("hex", LLOG_HEX(str, 1)), "a buffer in hex");
	(void)llog_ctx_set("hex", LLOG_HEX(&i, sizeof(i)));
#elif CASE == 1
	LOG_INFO_KV(("st", st), "struct");
#elif CASE == 2
	LOG_INFO_KV(("ip", ip), "pointer to int");
#elif CASE == 3
	LOG_INFO_KV(("vp", vp), "void pointer");
#elif CASE == 4
	LOG_INFO_KV(("null", NULL), "a bare NULL");
#elif CASE == 5
	LOG_INFO_KV((key, 1), "key not a literal");
#elif CASE == 6
	LOG_INFO_KV(("k1234567890123456789012345678901234567890123456789012345678901234", 1),
		    "key of 65 bytes");
#elif CASE == 7
	LOG_INFO_KV(("", 1), "empty key");
#elif CASE == 8
	LOG_INFO_KV(("a", 1, "b"), "odd count");
#elif CASE == 9
	LOG_INFO_KV(("a0", 0, "a1", 1, "a2", 2, "a3", 3, "a4", 4, "a5", 5, "a6", 6, "a7", 7,
		     "a8", 8, "a9", 9, "b0", 0, "b1", 1, "b2", 2, "b3", 3, "b4", 4, "b5", 5,
		     "b6", 6, "b7", 7, "b8", 8, "b9", 9, "c0", 0, "c1", 1, "c2", 2, "c3", 3,
		     "c4", 4, "c5", 5, "c6", 6, "c7", 7, "c8", 8, "c9", 9, "d0", 0, "d1", 1,
		     "d2", 2),
		    "33 pairs");
#elif CASE == 10
	(void)llog_ctx_set("k", st);
#elif CASE == 11
	/* a hex dump is a field's value, not a printf argument (-Werror) */
	LOG_INFO("frame %s", LLOG_HEX(str, 1));
#endif
}
