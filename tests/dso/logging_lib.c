/*
 * logging_lib.c - a shared library that logs, for test_dlclose.c (built as
 * a MODULE, dlopen'ed by the test): its call sites, format strings, file
 * and function names live in this library's own memory, which dlclose()
 * unmaps. It links no llog: llog__log and llog__min_level come from the
 * llog the test program loaded.
 */
#include <llog.h>

void dso_log(int t, int n);

/* n records "dso rec t=T i=I ..." of thread tag t. */
void dso_log(int t, int n)
{
	for (int i = 0; i < n; i++)
		LOG_INFO("dso rec t=%d i=%d from %s", t, i, "the library");
}

void dso_log_limited(int n);

/* n calls through one rate-limited site: 1 record in 10, the site joins
 * llog's registry of rate-limited sites at its second call. */
void dso_log_limited(int n)
{
	for (int i = 0; i < n; i++)
		LOG_INFO_EVERY_N(10, "dso limited i=%d", i);
}

/* A destructor of the library's own (default priority) that logs: llog's
 * (priority 101) runs after it, so this record is covered too. */
__attribute__((destructor)) static void dso_bye(void)
{
	LOG_INFO("dso destructor of %s", "the library");
}
