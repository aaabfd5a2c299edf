/*
 * test_json.c - JSON lines read back by a real parser (python3's json):
 * every line a console sink writes in JSON format parses, carries ts,
 * level, msg, thread, thread_name, file, line and func, and messages with quotes,
 * backslashes, newlines, every control character and invalid UTF-8 come
 * back as logged (each invalid byte as U+FFFD).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "llog.h"
#include "llog/sinks.h"
#include "testutil.h"

struct tcase {
	const char *logged;
	const char *expect; /* UTF-8 of the parsed msg */
};

static const struct tcase cases[] = {
	{"plain", "plain"},
	{"quote \" and backslash \\ here", "quote \" and backslash \\ here"},
	{"line1\nline2\r\n\tend", "line1\nline2\r\n\tend"},
	{"ctl \x01\x02\x1b\x1f\x7f.", "ctl \x01\x02\x1b\x1f\x7f."},
	{"bad \xff\xfe utf8", "bad \xef\xbf\xbd\xef\xbf\xbd utf8"},
	{"cut \xc3", "cut \xef\xbf\xbd"},
	{"ok \xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "ok \xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"},
	{"surrogate \xed\xa0\x80", "surrogate \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"},
	{"{\"forged\":1}", "{\"forged\":1}"},
};
#define NCASES (sizeof(cases) / sizeof(cases[0]))

static void test_json_round_trip(void **state)
{
	char dir[] = "/tmp/llog_json_XXXXXX", path[128], cmd[768], line[1024];
	struct llog_console_options o = {.format = LLOG_FORMAT_JSON};
	struct llog_sink *sink;
	FILE *f;
	size_t n = 0;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/out.jsonl", dir);
	o.fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	assert_true(o.fd > 2);
	sink = llog_console_sink(&o);
	assert_non_null(sink);
	assert_int_equal(llog_add_sink(sink), 0);
	assert_int_equal(llog_init(NULL), 0);
	/* a thread name that JSON must escape: quote, backslash, control */
	assert_int_equal(llog_set_thread_name("j\"s\\n\x01"), 0);
	for (size_t i = 0; i < NCASES; i++)
		LOG_WARN("%s", cases[i].logged);
	llog_shutdown();
	close(o.fd);

	/* One line per record: the hex of the parsed msg, after checking the
	 * keys and types; python exits non-zero on any invalid line. */
	snprintf(cmd, sizeof(cmd),
		 "python3 -c 'import json,sys\n"
		 "for l in open(sys.argv[1], \"rb\"):\n"
		 "  o = json.loads(l)\n"
		 "  assert o[\"level\"] == \"WARN\" and isinstance(o[\"thread\"], int)\n"
		 "  assert isinstance(o[\"line\"], int) and o[\"func\"] == \"test_json_round_trip\"\n"
		 "  assert o[\"file\"].endswith(\"test_json.c\") and o[\"ts\"].endswith(\"Z\")\n"
		 "  assert o[\"thread_name\"] == \"j\\\"s\\\\n\\x01\"\n"
		 "  print(o[\"msg\"].encode(\"utf-8\", \"surrogatepass\").hex())' %s",
		 path);
	f = popen(cmd, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f) != NULL) {
		char hex[512] = "";

		assert_true(n < NCASES);
		for (size_t j = 0; cases[n].expect[j] != '\0'; j++)
			sprintf(hex + 2 * j, "%02x", (unsigned char)cases[n].expect[j]);
		strcat(hex, "\n");
		if (strcmp(line, hex) != 0)
			fail_msg("case %zu: got %s want %s", n, line, hex);
		n++;
	}
	assert_int_equal(pclose(f), 0);
	assert_int_equal(n, NCASES);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

TEST_MAIN(
	cmocka_unit_test(test_json_round_trip),
)
