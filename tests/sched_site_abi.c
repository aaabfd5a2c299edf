/*
 * sched_site_abi.c - call sites of an object built against another layout
 * of the call sites' own fast path (llog/detail.h, LLOG__FAST_ABI), for
 * test_sched.c's test_site_path_other_abi: compiled with LLOG__FAST_ABI
 * defined to 2, the version before the library's (tests/CMakeLists.txt),
 * whose code found the owner words in the arena's header: the library
 * never marks these sites LLOG__SITE_INLINE and their calls go through
 * llog__log_ts to its own path.
 */
#include "llog.h"
#include "sched_site_abi.h"

#if LLOG__FAST_ABI == 3
#error "sched_site_abi.c must be built with another LLOG__FAST_ABI"
#endif

void abi_log(int i, const char *s)
{
	LOG_INFO("abi %d %s", i, s);
}

void abi_log_kv(int i)
{
	LOG_INFO_KV(("i", i), "abi kv %d", i);
}
