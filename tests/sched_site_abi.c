/*
 * sched_site_abi.c - call sites of an object built against another layout
 * of the call sites' own fast path (llog/detail.h, LLOG__FAST_ABI), for
 * test_sched.c's test_site_path_other_abi: compiled with LLOG__FAST_ABI
 * defined to 2, the version before the library's (tests/CMakeLists.txt):
 * their signatures say version 2 (this header's code otherwise), which the
 * library refuses, so it never marks these sites and their calls go
 * through llog__log_ts to its own path.
 */
#include "llog.h"
#include "sched_site_abi.h"

#if LLOG__FAST_ABI == 3
#error "sched_site_abi.c must be built with another LLOG__FAST_ABI"
#endif

/* The functions' names: sched_site_abi_next.c builds the same sites for
 * another version under other names. */
#ifndef ABI_FN
#define ABI_FN(name) name
#endif

void ABI_FN(abi_log)(int i, const char *s)
{
	LOG_INFO("abi %d %s", i, s);
}

void ABI_FN(abi_log_kv)(int i)
{
	LOG_INFO_KV(("i", i), "abi kv %d", i);
}
