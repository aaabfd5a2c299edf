/*
 * sched_site_abi.h - sched_site_abi.c's call sites (another LLOG__FAST_ABI).
 */
#ifndef LLOG_TEST_SCHED_SITE_ABI_H
#define LLOG_TEST_SCHED_SITE_ABI_H

void abi_log(int i, const char *s);
void abi_log_kv(int i);
/* The same sites built for the version after the library's. */
void abi_log_next(int i, const char *s);
void abi_log_kv_next(int i);

#endif
