/*
 * test_sync.c - synchronous output (no flusher running: before llog_init,
 * after llog_shutdown) renders a record exactly as the flusher does: the
 * same message text, the " [truncated]" marker on a cut message, and the
 * truncation counted in stats.truncated (the two paths once drifted: an
 * eager-text record flagged truncated got no marker and was not counted on
 * the synchronous path).
 *
 * stderr is redirected to a file while the synchronous lines are written,
 * then read back. The internal cases build a record by hand and call
 * llog__sync_record, the path a record takes when the list closes while it
 * is being captured (a race a test cannot time).
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
#include <wchar.h>

#include <cmocka.h>

#include "arena.h"
#include "llog.h"
#include "llog/sinks.h"
#include "sync.h"
#include "testutil.h"

#define MARKER " [truncated]"
#define LONG_ARG 6000 /* more than the 4096-byte default record bound */

/* ---- stderr capture --------------------------------------------------------- */

static char err_path[] = "/tmp/llog-test-sync-XXXXXX";
static int saved_stderr = -1;

static void capture_begin(void)
{
	int fd = mkstemp(err_path);

	assert_true(fd >= 0);
	saved_stderr = dup(2);
	assert_true(saved_stderr >= 0);
	assert_int_equal(dup2(fd, 2), 2);
	close(fd);
}

/* Restores stderr; returns what was written (malloc'd, NUL-terminated). */
static char *capture_end(void)
{
	FILE *f;
	char *s = malloc(1 << 16);
	size_t n;

	assert_int_equal(dup2(saved_stderr, 2), 2);
	close(saved_stderr);
	f = fopen(err_path, "r");
	assert_non_null(f);
	assert_non_null(s);
	n = fread(s, 1, (1 << 16) - 1, f);
	s[n] = '\0';
	fclose(f);
	unlink(err_path);
	strcpy(err_path, "/tmp/llog-test-sync-XXXXXX");
	return s;
}

/* The message of a text line: after "file:line ", before the newline. */
static char *line_message(const char *line, const char *file_colon)
{
	const char *at = strstr(line, file_colon);
	const char *msg, *end;
	char *out;

	assert_non_null(at);
	msg = strchr(at, ' ');
	assert_non_null(msg);
	msg++;
	end = strchr(msg, '\n');
	assert_non_null(end);
	out = strndup(msg, (size_t)(end - msg));
	assert_non_null(out);
	return out;
}

static int ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), t = strlen(tail);

	return n >= t && strcmp(s + n - t, tail) == 0;
}

/* ---- the flusher's rendering of the same call, for comparison --------------- */

static char *flushed_msg;

static void keep_entry(void *user, const struct llog_entry *e)
{
	(void)user;
	free(flushed_msg);
	flushed_msg = strndup(e->msg, e->msg_len);
}

static char *long_arg(char c)
{
	char *s = malloc(LONG_ARG + 1);

	assert_non_null(s);
	memset(s, c, LONG_ARG);
	s[LONG_ARG] = '\0';
	return s;
}

/* A call cut at rendering (a field wider than the record bound), before
 * llog_init (synchronous) and then through the flusher: the same message,
 * marker included, and one truncation counted for each. */
static void test_sync_truncated_like_flusher(void **state)
{
	struct llog_callback_options co = {.on_entry = keep_entry};
	struct llog_stats s0, s1, s2;
	char *out, *msg;

	(void)state;
	llog_get_stats(&s0);
	capture_begin();
	LOG_INFO("wide field <%6000d> end", 7);
	out = capture_end();
	llog_get_stats(&s1);
	msg = line_message(out, "test_sync.c:");
	assert_true(ends_with(msg, MARKER));
	assert_int_equal(strlen(msg), 4096 + strlen(MARKER));
	assert_int_equal(s1.truncated - s0.truncated, 1);
	assert_int_equal(s1.logged - s0.logged, 1);
	assert_int_equal(s1.written - s0.written, 1);

	assert_int_equal(llog_add_sink(llog_callback_sink(&co)), 0);
	assert_int_equal(llog_init(NULL), 0);
	LOG_INFO("wide field <%6000d> end", 7);
	llog_shutdown();
	llog_get_stats(&s2);
	assert_non_null(flushed_msg);
	assert_string_equal(flushed_msg, msg);
	assert_int_equal(s2.truncated - s1.truncated, 1);
	free(flushed_msg);
	flushed_msg = NULL;
	free(msg);
	free(out);
}

/* A string argument longer than the record bound, before init: cut,
 * marked and counted once. */
static void test_sync_long_string(void **state)
{
	struct llog_stats s0, s1;
	char *arg = long_arg('x'), *out, *msg;

	(void)state;
	llog_get_stats(&s0);
	capture_begin();
	LOG_INFO("long <%s> end %d", arg, 7);
	out = capture_end();
	llog_get_stats(&s1);
	msg = line_message(out, "test_sync.c:");
	assert_true(ends_with(msg, MARKER));
	assert_int_equal(strncmp(msg, "long <xxxx", 10), 0);
	assert_int_equal(strlen(msg), 4096 + strlen(MARKER));
	assert_int_equal(s1.truncated - s0.truncated, 1);
	free(msg);
	free(out);
	free(arg);
}

/* An eager format (a wide string) cut before init: marked and counted. */
static void test_sync_eager_truncated(void **state)
{
	wchar_t *w = malloc((LONG_ARG + 1) * sizeof(*w));
	struct llog_stats s0, s1;
	char *out, *msg;

	(void)state;
	assert_non_null(w);
	for (int i = 0; i < LONG_ARG; i++)
		w[i] = L'w';
	w[LONG_ARG] = 0;
	llog_get_stats(&s0);
	capture_begin();
	LOG_INFO("wide <%ls>", w);
	out = capture_end();
	llog_get_stats(&s1);
	msg = line_message(out, "test_sync.c:");
	assert_true(ends_with(msg, MARKER));
	assert_int_equal(s1.truncated - s0.truncated, 1);
	free(msg);
	free(out);
	free(w);
}

/* ---- llog__sync_record on hand-made records ---------------------------------- */

static struct llog__arena owner = {.tid = 4242};
static struct llog_site site = {"format of the site %s", "dir/test_sync.c", "fn", 99,
				LLOG_WARN, 0, {0}, NULL, 0};

struct text_rec {
	struct llog__rec rec;
	char text[64];
};

/* Writes a TEXT record through the synchronous path; its message must be
 * want. Returns the change of the counters it wrote. */
static struct llog_stats sync_text(const char *text, int truncated, const char *want)
{
	struct text_rec tr;
	struct llog_stats a, b, delta = {0};
	char *out, *msg;

	_Static_assert(offsetof(struct text_rec, text) == LLOG__REC_HDR, "payload layout");
	memset(&tr, 0, sizeof(tr));
	tr.rec.kind = LLOG__K_TEXT;
	tr.rec.flags = truncated ? LLOG__REC_TRUNCATED : 0;
	tr.rec.site = &site;
	tr.rec.arena = &owner;
	tr.rec.len = (uint32_t)strlen(text);
	memcpy(tr.text, text, tr.rec.len);
	llog_get_stats(&a);
	capture_begin();
	llog__sync_record(&tr.rec, llog__arena_mine(), NULL);
	out = capture_end();
	llog_get_stats(&b);
	assert_non_null(strstr(out, " WARN  [4242] test_sync.c:99 "));
	msg = line_message(out, "test_sync.c:99");
	assert_string_equal(msg, want);
	delta.truncated = b.truncated - a.truncated;
	delta.written = b.written - a.written;
	delta.logged = b.logged - a.logged;
	free(msg);
	free(out);
	return delta;
}

/* The drift this file guards against: an eager-text record flagged
 * truncated. */
static void test_sync_record_text_truncated(void **state)
{
	struct llog_stats d = sync_text("cut at the call", 1, "cut at the call" MARKER);

	(void)state;
	assert_int_equal(d.truncated, 1);
	assert_int_equal(d.written, 1);
	assert_int_equal(d.logged, 1);
}

static void test_sync_record_text_whole(void **state)
{
	struct llog_stats d = sync_text("whole message", 0, "whole message");

	(void)state;
	assert_int_equal(d.truncated, 0);
	assert_int_equal(d.written, 1);
}

/* Arguments too large even to capture: the format itself, marked. */
static void test_sync_record_shows_format(void **state)
{
	struct llog_stats d = sync_text("", 1, "format of the site %s" MARKER);

	(void)state;
	assert_int_equal(d.truncated, 1);
}

TEST_MAIN(
	cmocka_unit_test(test_sync_truncated_like_flusher),
	cmocka_unit_test(test_sync_long_string),
	cmocka_unit_test(test_sync_eager_truncated),
	cmocka_unit_test(test_sync_record_text_truncated),
	cmocka_unit_test(test_sync_record_text_whole),
	cmocka_unit_test(test_sync_record_shows_format),
)
