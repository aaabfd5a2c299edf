/*
 * test_json_layout.c - one JSON layout: the same records written by a JSON
 * file sink and by a text file sink read back with `llogcat --json` give
 * the same lines, member by member and in the same order, but "seq"
 * (a text line has none): a category, fields and context, a rate-limited
 * site's count ("suppressed"), backtrace entries ("backtrace"), a thread
 * name, escapes, and messages that look like the text line's markers
 * ("[backtrace] ..." and "... [7 suppressed]" logged as they are) must
 * read back as messages, not markers.
 */
#define _GNU_SOURCE
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

#include "childproc.h"

/* s without its leading "{\"seq\":N," (the JSON sink's first member). */
static const char *without_seq(const char *s)
{
	const char *p;

	assert_true(strncmp(s, "{\"seq\":", 7) == 0);
	p = strchr(s, ',');
	assert_non_null(p);
	return p + 1;
}

static void log_everything(void)
{
	assert_int_equal(llog_set_thread_name("worker"), 0);
	assert_int_equal(llog_ctx_set("req", 7), 0);
	LOG_INFO_KV(("user", "bob", "n", -3), "plain %d", 1);
	LOG_WARN_CAT("db.pool", "in a category");
	LOG_INFO("[backtrace] not a backtrace entry");
	LOG_INFO("ends [7 suppressed]");
	LOG_INFO("escapes: tab\there, newline\nthere, quote \" backslash \\ \xc3\xa9, C1 \xc2\x85, DEL \x7f");
	for (int i = 0; i < 6; i++)
		LOG_INFO_EVERY_N(5, "limited %d", i); /* i=5 carries 4 suppressed */
	LOG_DEBUG("kept %d", 1);
	LOG_DEBUG("kept %d", 2);
	LOG_ERROR("trigger");
	assert_int_equal(llog_ctx_clear(), 0);
}

static void test_text_and_json_agree(void **state)
{
	struct llog_line_options lo = {.flags = LLOG_LINE_FUNC | LLOG_LINE_THREAD_NAME};
	struct llog_config cfg = {.level = LLOG_INFO, .flush_interval_ms = 10,
				  .backtrace_records = 8, .backtrace_level = LLOG_DEBUG};
	struct llog_file_options text = {.line = lo}, json = {.line = lo,
							     .format = LLOG_FORMAT_JSON};
	const char *llogcat = getenv("LLOGCAT");
	char cmd[512], jpath[160];
	char *a, *b, *sa = NULL, *sb = NULL, *la, *lb;
	struct tdir t;
	int n = 0;

	(void)state;
	assert_non_null(llogcat); /* set by CMake (tests/CMakeLists.txt) */
	tdir_make(&t, "llog_json_layout_");
	snprintf(jpath, sizeof(jpath), "%s/json.log.zst", t.dir);
	text.path = t.log;
	json.path = jpath;
	assert_int_equal(llog_add_sink(llog_file_sink(&text)), 0);
	assert_int_equal(llog_add_sink(llog_file_sink(&json)), 0);
	assert_int_equal(llog_init(&cfg), 0);
	log_everything();
	llog_shutdown();

	snprintf(cmd, sizeof(cmd), "'%s' --json '%s'", llogcat, t.log);
	a = read_cmd(cmd);
	snprintf(cmd, sizeof(cmd), "zstdcat '%s'", jpath);
	b = read_cmd(cmd);
	assert_non_null(a);
	assert_non_null(b);
	for (la = strtok_r(a, "\n", &sa), lb = strtok_r(b, "\n", &sb); la != NULL || lb != NULL;
	     la = strtok_r(NULL, "\n", &sa), lb = strtok_r(NULL, "\n", &sb)) {
		assert_non_null(la);
		assert_non_null(lb);
		assert_true(la[0] == '{');
		if (strcmp(la + 1, without_seq(lb)) != 0)
			fprintf(stderr, "llogcat --json: %s\nJSON sink:      %s\n", la, lb);
		assert_string_equal(la + 1, without_seq(lb));
		n++;
	}
	/* 5 plain, 2 of the rate-limited site, 2 backtrace entries, the
	 * trigger; and the members each was to show */
	assert_int_equal(n, 10);
	free(a);
	a = read_cmd(cmd);
	assert_non_null(strstr(a, "\"thread_name\":\"worker\",\"category\":\"db.pool\","
				  "\"file\":\"test_json_layout.c\""));
	assert_non_null(strstr(a, ",\"msg\":\"[backtrace] not a backtrace entry\""));
	assert_non_null(strstr(a, ",\"msg\":\"ends [7 suppressed]\""));
	assert_non_null(strstr(a, ",\"suppressed\":4,\"msg\":\"limited 5\""));
	assert_non_null(strstr(a, ",\"backtrace\":true,\"msg\":\"kept 1\""));
	assert_non_null(strstr(a, "\"msg\":\"plain 1\",\"fields\":{\"req\":7,\"user\":\"bob\",\"n\":-3}"));
	free(a);
	free(b);
	tdir_remove(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text_and_json_agree),
	};

	unsetenv("LLOG_LEVEL");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
