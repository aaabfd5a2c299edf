/*
 * test_long_records.c - long records in every text sink: a record up to
 * max_record_bytes (60,000 bytes, escaped to more) arrives whole in the
 * file (read back by llogcat), the console and JSON; a longer one is cut
 * with the marker and counted once; a line past a sink's hard limit (a
 * file frame's 4 MiB) is cut with the marker and counted; the synchronous
 * path likewise.
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

#include "childproc.h"
#include "llog.h"
#include "llog/sinks.h"
#include "fileformat.h"
#include "sync.h"
#include "testutil.h"

static struct llog_stats stats_now(void)
{
	struct llog_stats s;

	llog_get_stats(&s);
	return s;
}

/* ---- long records in every text sink ------------------------------------- */

/* The file sink's output as text: llogcat's when the build has it, else
 * zstdcat's. */
static char *read_log(const char *path)
{
	char cmd[600];

	if (getenv("LLOGCAT") != NULL)
		snprintf(cmd, sizeof(cmd), "'%s' '%s'", getenv("LLOGCAT"), path);
	else
		snprintf(cmd, sizeof(cmd), "zstdcat -q '%s'", path);
	return read_cmd(cmd);
}

/* A message of n bytes: a repeated pattern with a control character every
 * 10 bytes (escaped to 4 bytes in text, 6 in JSON), then a unique tail. */
static char *long_message(size_t n, const char *tail)
{
	char *m = malloc(n + 1);
	size_t tl = strlen(tail);

	assert_non_null(m);
	assert_true(n > tl);
	for (size_t i = 0; i < n - tl; i++)
		m[i] = i % 10 == 9 ? '\x01' : (char)('a' + i % 10);
	memcpy(m + n - tl, tail, tl);
	m[n] = '\0';
	return m;
}

/* m with each control character \x01 written as rep. */
static char *escaped_as(const char *m, const char *rep)
{
	char *o = malloc(strlen(m) * strlen(rep) + 1), *p = o;

	assert_non_null(o);
	for (; *m != '\0'; m++) {
		if (*m == '\x01')
			p += sprintf(p, "%s", rep);
		else
			*p++ = *m;
	}
	*p = '\0';
	return o;
}

/* The message as the text line shows it. */
static char *text_escaped(const char *m)
{
	return escaped_as(m, "\\x01");
}

/* The message as a JSON string's content shows it. */
static char *json_escaped(const char *m)
{
	return escaped_as(m, "\\u0001");
}

/* out holds exactly one cut line: it ends with `end` (the marker first),
 * and its message is the escaped form of a prefix of m of at most max and
 * more than max - 16 bytes. */
static void check_cut(const char *out, const char *m, size_t max, char *(*esc)(const char *),
		      const char *end)
{
	char *full = esc(m), *cut = strdup(m);
	const char *p = strstr(out, end), *start;
	size_t seg;

	assert_non_null(p);
	assert_null(strstr(p + 1, end));
	assert_non_null(cut);
	/* The message starts with the pattern, on the line that ends at p. */
	start = p;
	while (start > out && start[-1] != '\n')
		start--;
	start = strstr(start, "abcdefghi");
	assert_true(start != NULL && start < p);
	seg = (size_t)(p - start);
	assert_memory_equal(start, full, seg);
	/* seg is the escaped length of a prefix of m: find that prefix. */
	for (size_t k = max; k > max - 16; k--) {
		char *e;

		cut[k] = '\0';
		e = esc(cut);
		if (strlen(e) == seg) {
			free(e);
			free(full);
			free(cut);
			return;
		}
		free(e);
	}
	fail_msg("the cut message is not a prefix of %zu..%zu bytes", max - 15, max);
}

static void test_long_records_whole(void **state)
{
	struct tdir t;
	char text_path[160], json_path[160], tail[64], over_tail[64];
	struct llog_config cfg = {.max_record_bytes = 65536};
	struct llog_file_options fo = {0};
	struct llog_console_options co = {.color = LLOG_COLOR_NEVER};
	struct llog_stats before, after;
	int text_fd, json_fd;
	char *msg, *over, *file_out, *text_out, *json_out, *want;
	size_t len;

	(void)state;
	tdir_make(&t, "llog_long_");
	snprintf(text_path, sizeof(text_path), "%s/console.txt", t.dir);
	snprintf(json_path, sizeof(json_path), "%s/console.json", t.dir);
	text_fd = open(text_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	json_fd = open(json_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(text_fd >= 0 && json_fd >= 0);
	snprintf(tail, sizeof(tail), "<tail %d whole>", (int)getpid());
	snprintf(over_tail, sizeof(over_tail), "<tail %d over>", (int)getpid());
	msg = long_message(60000, tail);
	over = long_message(70000, over_tail);

	fo.path = t.log;
	assert_int_equal(llog_add_sink(llog_file_sink(&fo)), 0);
	co.fd = text_fd;
	assert_int_equal(llog_add_sink(llog_console_sink(&co)), 0);
	co.fd = json_fd;
	co.format = LLOG_FORMAT_JSON;
	assert_int_equal(llog_add_sink(llog_console_sink(&co)), 0);
	assert_int_equal(llog_init(&cfg), 0);
	before = stats_now();
	LOG_INFO("%s", msg);
	LOG_INFO("%s", over);
	llog_flush();
	after = stats_now();
	llog_shutdown();
	close(text_fd);
	close(json_fd);

	/* Only the record longer than max_record_bytes was cut, once, by the
	 * renderer; no sink cut anything. */
	assert_int_equal(after.truncated - before.truncated, 1);

	file_out = read_log(t.log);
	text_out = slurp(text_path, &len);
	json_out = slurp(json_path, &len);
	want = text_escaped(msg);
	assert_int_equal(count_of(file_out, want), 1);
	assert_int_equal(count_of(text_out, want), 1);
	free(want);
	want = json_escaped(msg);
	assert_int_equal(count_of(json_out, want), 1);
	free(want);
	/* The unique tail is followed by the end of the line. */
	snprintf(tail + strlen(tail), sizeof(tail) - strlen(tail), "\n");
	assert_int_equal(count_of(file_out, tail), 1);
	assert_int_equal(count_of(text_out, tail), 1);
	/* The over-long one: a prefix of it (at most max_record_bytes, less
	 * only the capture's length word), the marker, once in each output. */
	check_cut(file_out, over, 65536, text_escaped, " [truncated]\n");
	check_cut(text_out, over, 65536, text_escaped, " [truncated]\n");
	check_cut(json_out, over, 65536, json_escaped, " [truncated]\"}\n");
	assert_null(strstr(file_out, over_tail));
	assert_int_equal(count_of(file_out, "[truncated]"), 1);
	assert_int_equal(count_of(text_out, "[truncated]"), 1);
	assert_int_equal(count_of(json_out, "[truncated]"), 1);

	free(file_out);
	free(text_out);
	free(json_out);
	free(msg);
	free(over);
	tdir_remove(&t);
}

/*
 * A line longer than a file frame's content (4 MiB, the format's hard
 * limit): cut by the file sink with the marker, and counted once, as a
 * sink's cut (sink_truncated), not as llog's (truncated).
 */
static void test_file_line_cut_marked(void **state)
{
	struct tdir t;
	struct llog_config cfg = {.max_record_bytes = 5u << 20, .arena_bytes = 32u << 20};
	struct llog_file_options fo = {0};
	struct llog_stats before, after;
	char *msg, *out, *nl;

	(void)state;
	tdir_make(&t, "llog_long_");
	msg = malloc((5u << 20) - 64);
	assert_non_null(msg);
	memset(msg, 'q', (5u << 20) - 65);
	msg[(5u << 20) - 65] = '\0';
	fo.path = t.log;
	assert_int_equal(llog_add_sink(llog_file_sink(&fo)), 0);
	assert_int_equal(llog_init(&cfg), 0);
	before = stats_now();
	LOG_INFO("%s", msg);
	LOG_INFO("after");
	llog_flush();
	after = stats_now();
	llog_shutdown();
	assert_int_equal(after.truncated - before.truncated, 0);
	assert_int_equal(after.sink_truncated - before.sink_truncated, 1);
	out = read_log(t.log);
	nl = strchr(out, '\n');
	assert_non_null(nl);
	assert_true((size_t)(nl - out) + 1 <= LLOG_FRAME_CONTENT_MAX);
	assert_true(nl - out > 12);
	assert_memory_equal(nl - 12, " [truncated]", 12);
	assert_non_null(strstr(nl + 1, " after\n"));
	free(out);
	free(msg);
	tdir_remove(&t);
}

/* The synchronous path (no flusher): a message at its bound whose escaped
 * line is four times as long arrives whole and uncounted; a longer one is
 * cut with the marker and counted once. */
static void test_sync_long_line(void **state)
{
	struct tdir t;
	struct llog_stats before, after;
	char *whole, *over, *out, *want;
	int saved, fd;
	size_t len;

	(void)state;
	tdir_make(&t, "llog_long_");
	whole = malloc(LLOG__SYNC_MSG + 1);
	over = malloc(LLOG__SYNC_MSG + 101);
	assert_non_null(whole);
	assert_non_null(over);
	memset(whole, '\x01', LLOG__SYNC_MSG - 4);
	memcpy(whole + LLOG__SYNC_MSG - 4, "TAIL", 5);
	memset(over, '\x02', LLOG__SYNC_MSG + 100);
	over[LLOG__SYNC_MSG + 100] = '\0';
	fflush(stderr);
	saved = dup(2);
	fd = open(t.err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(saved >= 0 && fd >= 0);
	dup2(fd, 2);
	close(fd);
	before = stats_now();
	LOG_INFO("%s", whole); /* llog is not running: written to stderr */
	LOG_INFO("%s", over);
	after = stats_now();
	dup2(saved, 2);
	close(saved);
	assert_int_equal(after.truncated - before.truncated, 1);
	out = slurp(t.err, &len);
	want = text_escaped(whole);
	snprintf(want + strlen(want), 2, "\n");
	assert_int_equal(count_of(out, want), 1);
	free(want);
	assert_int_equal(count_of(out, "\\x02 [truncated]\n"), 1);
	assert_int_equal(count_of(out, "[truncated]"), 1);
	free(out);
	free(whole);
	free(over);
	tdir_remove(&t);
}

TEST_MAIN(
	cmocka_unit_test(test_long_records_whole),
	cmocka_unit_test(test_file_line_cut_marked),
	cmocka_unit_test(test_sync_long_line),
)
