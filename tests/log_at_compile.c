/*
 * log_at_compile.c - LOG_AT at compile time (llog.h, "Logging"). ctest
 * compiles it once per case (tests/CMakeLists.txt): CASE 0, the positive
 * control, must compile with -Werror as C (typed calls and
 * LLOG_NO_TYPED_CALLS) and as C++; every other case must not: the format
 * is checked against the arguments as LOG's is.
 */
#include "llog.h"

#ifdef __cplusplus
extern "C" {
#endif
void f(enum llog_level lv, const char *s, int i);
#ifdef __cplusplus
}
#endif

void f(enum llog_level lv, const char *s, int i)
{
#if CASE == 0
	LOG_AT(lv, "none");
	LOG_AT(lv, "s %s i %d", s, i);
	LOG_AT(lv, "nine %d %d %d %d %d %d %d %d %s", i, i, i, i, i, i, i, i, s);
	LOG_AT_CAT(lv, "net", "i %d", i);
	LLOG_LOG_AT((enum llog_level)i, "d %.1f", 1.5);
	LLOG_LOG_AT_CAT(LLOG_WARN, "net", "constant %s", s);
	if (i)
		LOG_AT(lv, "one statement %d", i);
	else
		LOG_AT(lv, "else");
#elif CASE == 1
	LOG_AT(lv, "a string %d", s);
#elif CASE == 2
	LOG_AT_CAT(lv, "net", "an int %s", i);
#elif CASE == 3
	LOG_AT(lv, "%d %d", i);
#endif
}
