/*
 * gen_plog_seed.c - wrote binary_file_plog and binary_direct_plog (PLOG
 * records, data frame version 2), and with a later library
 * binary_file_plog3 and binary_direct_plog3 (version 3: recent strings),
 * for fuzz_binrec's corpus; not built.
 *   cc -Iinclude gen_plog_seed.c build/release/libllog.a -lzstd -lpthread -lm
 *   ./a.out seed.bin
 * binary_file_plog* is 0x00 and the file; binary_direct_plog* is 0x01,
 * u16le n, the sites frame's n-byte payload ("LLS"...) and the data frame's
 * content (zstdcat).
 */
#include <llog.h>
#include <llog/sinks.h>
int main(int argc, char **argv)
{
	struct llog_file_options fo = {.path = argv[1], .compression = LLOG_FILE_BINARY};
	struct llog_config cfg = {.level = LLOG_TRACE};
	(void)argc;
	llog_add_sink(llog_file_sink(&fo));
	llog_init(&cfg);
	for (int i = 0; i < 6; i++) {
		LOG_INFO("request %d took %.3f ms from %s", 1000 + i, 0.0173 * i, i % 2 ? "10.0.0.1:80" : (char *)0);
		LOG_WARN("v=%lld p=%p x=%.2f e=%e s=%.*s", (long long)i * -99999999999LL, (void *)(long)i, -0.004 * i, 1.5 * i, i, "abcdef");
	}
	llog_shutdown();
	return 0;
}
