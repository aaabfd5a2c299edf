/*
 * sched_site_abi_next.c - sched_site_abi.c's call sites built for the
 * LLOG__FAST_ABI after the library's (tests/CMakeLists.txt), under the
 * names abi_log_next and abi_log_kv_next: a library never marks the sites
 * of a newer header either.
 */
#define ABI_FN(name) name##_next
#include "sched_site_abi.c"
