/*
 * kv_binfile_writer.c - writes the binary file test_kv_binfile reads
 * (tests/CMakeLists.txt): records with fields and a context through a
 * file sink in LLOG_FILE_BINARY mode, to argv[1]. The expected values are
 * in test_kv_binfile.c. Exits 0 when it wrote.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "llog.h"
#include "llog/sinks.h"

int main(int argc, char **argv)
{
	struct llog_file_options o = {.compression = LLOG_FILE_BINARY};
	static char big[2001];
	const char *nul = NULL;

	if (argc != 2)
		return 2;
	o.path = argv[1];
	if (llog_add_sink(llog_file_sink(&o)) != 0 || llog_init(NULL) != 0)
		return 1;
	memset(big, 'x', 2000);
	LOG_INFO("plain %d", 1);
	LOG_INFO_KV(("i", (int64_t)INT64_MIN, "u", (uint64_t)UINT64_MAX, "d", -0.0,
		     "nan", (double)NAN, "t", (_Bool)1, "n", nul, "s", "v\t\"", "e", ""),
		    "kv %d", 2);
	(void)llog_ctx_set("req", "r-1");
	LOG_WARN_KV(("big", (const char *)big, "inf", (double)INFINITY), "ctx %s", "x");
	(void)llog_ctx_clear();
	LOG_INFO("plain %d", 3);
	llog_shutdown();
	return 0;
}
