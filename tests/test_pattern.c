/*
 * test_pattern.c - text lines laid out by a pattern
 * (llog_line_options.pattern, llog/sinks.h): every directive on a fixed
 * entry, exactly (UTC and local time, each precision), the field section
 * where %k is or at the end, the markers around the message, escaping, a
 * line cut for a small buffer (the message loses its end, what follows it
 * stays); then through the sinks: a plain text file, the console, the
 * syslog sink's MSG at a real rsyslogd over TCP, each with its pattern,
 * and a JSON file beside them unchanged; malformed patterns and patterns
 * where they mean nothing (JSON, a compressed file) refused with a reason.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "fields/cases.h"
#include "llog.h"
#include "llog/sinks.h"
#include "outputs3.h"
#include "testutil.h"

#define APP "llogpat"

/* e's line under pattern pat (and opt's other members), '\n' dropped. */
static const char *line_of(const struct llog_entry *e, const char *pat,
			   const struct llog_line_options *opt, size_t cap)
{
	static char buf[4096];
	struct llog_line_options o = {0};
	size_t n;

	if (opt != NULL)
		o = *opt;
	o.pattern = pat;
	assert_true(cap <= sizeof(buf));
	n = llog_format_entry_opts(e, LLOG_FORMAT_TEXT, &o, buf, cap);
	assert_true(n > 0 && n <= cap && buf[n - 1] == '\n');
	buf[n - 1] = '\0';
	return buf;
}

static void test_directives(void **state)
{
	static const struct llog_field f[] = {FS("user", "bob"), FI("status", 200)};
	struct llog_entry e = entry("done", f, NF(f));
	struct llog_line_options ms = {.ts_precision = LLOG_TS_MS};

	(void)state;
	e.category = "db.pool";
	e.category_len = 7;
	e.thread_name = "worker";
	e.thread_name_len = 6;
	assert_string_equal(
		line_of(&e, "%T|%D|%H|%f|%z|%l|%L|%c|%i|%n|%s|%S|%#|%F|%m|%%", NULL, 4096),
		"2025-12-03T08:20:00.123456789Z|2025-12-03|08:20:00|123456789|Z|WARN |WARN|"
		"db.pool|1234|worker|server.c|/src/app/server.c|42|handle|done|%"
		"\tuser=\"bob\" status=200");
	assert_string_equal(line_of(&e, "%T %f %m", &ms, 4096),
			    "2025-12-03T08:20:00.123Z 123 done\tuser=\"bob\" status=200");
	ms.ts_precision = LLOG_TS_S;
	assert_string_equal(line_of(&e, "%T [%f] %m", &ms, 4096),
			    "2025-12-03T08:20:00Z [] done\tuser=\"bob\" status=200");
	/* the field section where %k is; no fields: nothing */
	assert_string_equal(line_of(&e, "%m%k <end>", NULL, 4096),
			    "done\tuser=\"bob\" status=200 <end>");
	e.fields = NULL;
	e.nfields = 0;
	assert_string_equal(line_of(&e, "%m%k <end>", NULL, 4096), "done <end>");
	/* the default category is "" */
	e.category = NULL;
	e.category_len = 0;
	assert_string_equal(line_of(&e, "[%c] %m", NULL, 4096), "[] done");
	/* UTF-8 in the literal text is kept */
	assert_string_equal(line_of(&e, "%L \xe2\x86\x92 %m", NULL, 4096), "WARN \xe2\x86\x92 done");
}

static void test_local_time(void **state)
{
	struct llog_entry e = entry("m", NULL, 0);
	struct llog_line_options o = {.flags = LLOG_LINE_LOCAL_TIME, .ts_precision = LLOG_TS_US};
	const char *tz = getenv("TZ");
	char *old = tz != NULL ? strdup(tz) : NULL;

	(void)state;
	setenv("TZ", "XXX-02:00", 1); /* two hours east of UTC */
	tzset();
	assert_string_equal(line_of(&e, "%D %H.%f%z %T %m", &o, 4096),
			    "2025-12-03 10:20:00.123456+02:00 2025-12-03T10:20:00.123456+02:00 m");
	if (old != NULL)
		setenv("TZ", old, 1);
	else
		unsetenv("TZ");
	tzset();
	free(old);
}

static void test_markers_and_escaping(void **state)
{
	struct llog_entry e = entry("two\nlines", NULL, 0);

	(void)state;
	e.file = "/src/a\tb.c";
	assert_string_equal(line_of(&e, "%s: %m!", NULL, 4096), "a\\tb.c: two\\nlines!");
	/* a category and a thread name as the default line writes them */
	e.category = "x y[z";
	e.category_len = 5;
	e.thread_name = "a]b";
	e.thread_name_len = 3;
	assert_string_equal(line_of(&e, "%c [%n] %m", NULL, 4096),
			    "x\\x20y\\x5bz [a\\x5db] two\\nlines");
	e.category = NULL;
	e.category_len = 0;
	e.suppressed = 3;
	e.backtrace = 1;
	assert_string_equal(line_of(&e, "<%m>", NULL, 4096), "<[backtrace] two\\nlines [3 suppressed]>");
}

/* A buffer too small for the line: the message is cut and marked, what
 * the pattern has after it is whole. */
static void test_cut(void **state)
{
	static char msg[300];
	struct llog_entry e;
	const char *l;
	size_t n;

	(void)state;
	memset(msg, 'x', sizeof(msg) - 1);
	e = entry(msg, NULL, 0);
	l = line_of(&e, "%L <%m> %s:%#", NULL, 80);
	n = strlen(l);
	assert_true(n <= 79);
	assert_memory_equal(l, "WARN <xxx", 9);
	assert_string_equal(l + n - strlen(" [truncated]> server.c:42"), " [truncated]> server.c:42");
}

/* Room is kept for what follows the message as it is, not as it could be
 * at most: a line that fits is not cut, whatever its elements' bounds. */
static void test_cut_only_when_needed(void **state)
{
	static const char path[] = "/home/build/src/services/network/connection/connection_manager_impl.c";
	static const struct llog_field f[] = {FS("user", "bob")};
	struct llog_entry e = entry("hello", NULL, 0);
	static char msg[200];
	const char *l;

	(void)state;
	e.file = path;
	assert_string_equal(line_of(&e, "%m (%S:%#)", NULL, 120),
			    "hello (/home/build/src/services/network/connection/"
			    "connection_manager_impl.c:42)");
	assert_string_equal(line_of(&e, "%m [%F] %T", NULL, 64),
			    "hello [handle] 2025-12-03T08:20:00.123456789Z");
	/* the field section written before the message needs no more room */
	e = entry("hello world", f, NF(f));
	assert_string_equal(line_of(&e, "%k|%m", NULL, 64), "\tuser=\"bob\"|hello world");
	/* too small: the message is cut and marked, what follows is whole */
	memset(msg, 'y', sizeof(msg) - 1);
	e = entry(msg, NULL, 0);
	e.file = path;
	l = line_of(&e, "%m (%S)", NULL, 120);
	assert_int_equal(strlen(l), 119);
	assert_memory_equal(l, "yyyy", 4);
	assert_non_null(strstr(l, "y [truncated] (/home/build/src/services/network/connection/"
				  "connection_manager_impl.c)"));
}

/* ---- refused ---------------------------------------------------------------- */

static void refused(const char *pat, enum llog_format format, const char *reason)
{
	struct llog_console_options o = {.format = format, .line = {.pattern = pat}};

	errno = 0;
	assert_null(llog_console_sink(&o));
	assert_int_equal(errno, EINVAL);
	if (strstr(llog_sink_error(), reason) == NULL)
		fail_msg("pattern \"%s\": \"%s\" does not say \"%s\"", pat, llog_sink_error(),
			 reason);
}

static void test_refused(void **state)
{
	char longp[300];
	struct llog_file_options fo = {.path = "/tmp/llog_pattern_refused.log.zst",
				       .line = {.pattern = "%m"}};

	(void)state;
	refused("%D %q %m", LLOG_FORMAT_TEXT, "unknown directive %q at byte 3");
	refused("%D %H", LLOG_FORMAT_TEXT, "must have %m");
	refused("%m %m", LLOG_FORMAT_TEXT, "%m once");
	refused("%m %k %k", LLOG_FORMAT_TEXT, "%k once");
	refused("%m\t%s", LLOG_FORMAT_TEXT, "byte 2 of the pattern is a control character");
	refused("%m\xff", LLOG_FORMAT_TEXT, "byte 2 of the pattern is a control character or not UTF-8");
	refused("%m %", LLOG_FORMAT_TEXT, "lone '%'");
	memset(longp, 'a', sizeof(longp) - 1);
	longp[sizeof(longp) - 1] = '\0';
	memcpy(longp, "%m", 2);
	refused(longp, LLOG_FORMAT_TEXT, "1 to 256 bytes");
	refused("%m", LLOG_FORMAT_JSON, "a line pattern is for text lines");
	/* a compressed file keeps llogcat's line */
	errno = 0;
	assert_null(llog_file_sink(&fo));
	assert_int_equal(errno, EINVAL);
	assert_non_null(strstr(llog_sink_error(), "a compressed file keeps the line llogcat reads"));
	unlink(fo.path);
}

/* ---- through the sinks ------------------------------------------------------- */

static struct rsyslogd rs;

static void test_sinks(void **state)
{
	static const char pat[] = "%L|%c|%s:%#|%F|%n|%m";
	struct outputs3 o;
	struct llog_file_options plain = {.compression = LLOG_FILE_PLAIN, .line = {.pattern = pat}};
	struct llog_console_options co = {.color = LLOG_COLOR_ALWAYS, .line = {.pattern = pat}};
	char plain_path[160], con_path[160], want[160];
	int fd, line;
	char *s;

	(void)state;
	outputs3_make(&o, &rs, "llog_pattern_", APP);
	snprintf(plain_path, sizeof(plain_path), "%s/plain.log", o.t.dir);
	snprintf(con_path, sizeof(con_path), "%s/console.log", o.t.dir);
	plain.path = plain_path;
	fd = open(con_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	co.fd = fd;
	o.so.line.pattern = "%s:%# %F() %m";
	unsetenv("NO_COLOR"); /* a pattern's line is not coloured even so */
	assert_int_equal(llog_add_sink(llog_file_sink(&plain)), 0);
	assert_int_equal(llog_add_sink(llog_console_sink(&co)), 0);
	assert_int_equal(llog_add_sink(llog_file_sink(&o.json)), 0);
	assert_int_equal(llog_add_sink(llog_syslog_sink(&o.so)), 0);
	assert_int_equal(llog_init(&(struct llog_config){.flush_interval_ms = 10}), 0);
	assert_int_equal(llog_set_thread_name("patw"), 0);
	line = __LINE__ + 1;
	LOG_WARN_CAT("db", "p=1 %d", 7);
	LOG_INFO_KV(("user", "bob"), "p=2");
	llog_shutdown();
	setenv("NO_COLOR", "1", 1);
	close(fd);

	snprintf(want, sizeof(want), "WARN|db|test_pattern.c:%d|test_sinks|patw|p=1 7\n", line);
	s = slurp(plain_path, NULL);
	assert_non_null(s);
	assert_int_equal(count_of(s, want), 1);
	snprintf(want, sizeof(want), "INFO||test_pattern.c:%d|test_sinks|patw|p=2\tuser=\"bob\"\n",
		 line + 1);
	assert_int_equal(count_of(s, want), 1);
	free(s);
	s = slurp(con_path, NULL);
	assert_non_null(s);
	snprintf(want, sizeof(want), "WARN|db|test_pattern.c:%d|test_sinks|patw|p=1 7\n", line);
	assert_int_equal(count_of(s, want), 1);
	assert_null(strchr(s, '\033'));
	free(s);
	/* JSON beside them: its own layout */
	s = slurp(o.json_path, NULL);
	assert_non_null(s);
	assert_int_equal(count_of(s, "\"msg\":\"p=1 7\""), 1);
	assert_int_equal(count_of(s, "WARN|"), 0);
	free(s);
	/* syslog: MSG by its pattern, the header and SD as always */
	if ((s = rsyslogd_wait_output(&rs, "|test_pattern.c:", 2, 30000)) == NULL)
		fail_msg("%s", rs.why);
	snprintf(want, sizeof(want), "|db|[llog@32473 file=\"test_pattern.c\" line=\"%d\"", line);
	assert_int_equal(count_of(s, want), 1);
	snprintf(want, sizeof(want), "\"]|test_pattern.c:%d test_sinks() p=1 7\n", line);
	assert_int_equal(count_of(s, want), 1);
	snprintf(want, sizeof(want), "[fields@32473 user=\"bob\"]|test_pattern.c:%d test_sinks() p=2\n",
		 line + 1);
	assert_int_equal(count_of(s, want), 1);
	free(s);
	tdir_remove(&o.t);
}

/* A console with the default line and a timestamp of another length:
 * the colour goes around the level, wherever the timestamp ends. */
static void test_default_line_colour(void **state)
{
	static const enum llog_ts_precision prec[] = {LLOG_TS_NS, LLOG_TS_MS, LLOG_TS_S};
	char path[] = "/tmp/llog_pattern_colour_XXXXXX";

	(void)state;
	unsetenv("NO_COLOR");
	for (size_t i = 0; i < sizeof(prec) / sizeof(prec[0]); i++) {
		int fd = mkstemp(path);
		struct llog_console_options co = {.fd = fd, .color = LLOG_COLOR_ALWAYS,
						  .line = {.ts_precision = prec[i]}};
		char *s;

		assert_true(fd >= 0);
		assert_int_equal(llog_add_sink(llog_console_sink(&co)), 0);
		assert_int_equal(llog_init(NULL), 0);
		LOG_ERROR("colour");
		llog_shutdown();
		s = slurp(path, NULL);
		assert_non_null(s);
		assert_non_null(strstr(s, "Z \033[31mERROR\033[0m ["));
		free(s);
		close(fd);
		unlink(path);
		memcpy(path + strlen(path) - 6, "XXXXXX", 6);
	}
	setenv("NO_COLOR", "1", 1);
}

static int teardown(void **state)
{
	(void)state;
	llog_shutdown();
	return rsyslogd_remove(&rs);
}

TEST_MAIN(
	cmocka_unit_test(test_directives),
	cmocka_unit_test(test_local_time),
	cmocka_unit_test(test_markers_and_escaping),
	cmocka_unit_test(test_cut),
	cmocka_unit_test(test_cut_only_when_needed),
	cmocka_unit_test(test_refused),
	cmocka_unit_test_teardown(test_sinks, teardown),
	cmocka_unit_test_teardown(test_default_line_colour, teardown),
)
