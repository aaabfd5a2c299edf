/*
 * test_routing.c - sinks that select categories (llog_sink_options
 * .categories, llog/sinks.h): a zstd text file, a JSON file, a syslog sink
 * to a real rsyslogd over TCP and a callback sink, each with its own
 * selection, get exactly the records of the categories it selects, each
 * once; FATAL records reach every sink (in a child, whose FATAL aborts);
 * malformed selections are refused with a reason.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "llog.h"
#include "llog/sinks.h"
#include "childproc.h"
#include "outputs3.h"
#include "testutil.h"

#define APP "llogroute"
#define PER 5 /* records per category */

/* The categories logged ("" the default) and, per sink, whether it
 * selects each (in the order of cats). */
#define NCATS 7
static const char *const cats[NCATS] = {"", "db", "db.pool", "dbx", "http", "http.api", "llogx"};

enum { TEXT, JSON, SYSLOG, MEM, NSINKS };
static const char *const selection[NSINKS] = {
	"db",                    /* db and its children, not dbx */
	"!db",                   /* everything but db and its children */
	" http , (default) ",    /* spaces around names are allowed */
	"db, !db.pool, llogx",   /* the longest name decides */
};
static const int want[NSINKS][NCATS] = {
	{0, 1, 1, 0, 0, 0, 0},
	{1, 0, 0, 1, 1, 1, 1},
	{1, 0, 0, 0, 1, 1, 0},
	{0, 1, 0, 0, 0, 0, 1},
};

/* Logs PER records "r=<cat>; i=<i>" in each category. */
static void log_all(void)
{
	for (int i = 0; i < PER; i++) {
		LOG_INFO("r=; i=%d", i);
		LOG_INFO_CAT("db", "r=db; i=%d", i);
		LOG_WARN_CAT("db.pool", "r=db.pool; i=%d", i);
		LOG_INFO_CAT("dbx", "r=dbx; i=%d", i);
		LOG_ERROR_CAT("http", "r=http; i=%d", i);
		LOG_INFO_CAT("http.api", "r=http.api; i=%d", i);
		LOG_INFO_CAT("llogx", "r=llogx; i=%d", i);
	}
}

/* Every category's records in text: PER (in order) when the sink selects
 * it, else none. */
static void check(const char *what, const char *text, const int *w)
{
	char needle[48];

	for (int c = 0; c < NCATS; c++) {
		for (int i = 0; i < PER; i++) {
			int n;

			snprintf(needle, sizeof(needle), "r=%s; i=%d", cats[c], i);
			n = count_of(text, needle);
			if (n != w[c])
				fail_msg("%s: %d records '%s', want %d", what, n, needle, w[c]);
		}
		if (w[c]) { /* in order */
			const char *p = text;

			for (int i = 0; i < PER; i++) {
				snprintf(needle, sizeof(needle), "r=%s; i=%d", cats[c], i);
				p = strstr(p, needle);
				assert_non_null(p);
			}
		}
	}
}

/* ---- a callback sink kept in memory -------------------------------------- */

static char mem[8192];
static size_t mem_len;

/* Flusher thread only; read after llog_shutdown (its join orders it). */
static void on_entry(void *user, const struct llog_entry *e)
{
	(void)user;
	if (mem_len + e->msg_len + 2 > sizeof(mem))
		abort();
	memcpy(mem + mem_len, e->msg, e->msg_len);
	mem_len += e->msg_len;
	mem[mem_len++] = '\n';
	mem[mem_len] = '\0';
}

/* ---- through a text file, a JSON file, syslog and a callback ------------- */

static struct rsyslogd rs;

/* Adds sink with selection sel. */
static void add(struct llog_sink *sink, const char *sel)
{
	struct llog_sink_options o = {.categories = sel};

	assert_non_null(sink);
	assert_int_equal(llog_add_sink_opts(sink, &o), 0);
}

static void test_outputs(void **state)
{
	struct outputs3 o;
	struct llog_callback_options co = {.on_entry = on_entry};
	char *s;
	int n = 0;

	(void)state;
	outputs3_make(&o, &rs, "llog_routing_", APP);
	mem_len = 0;
	add(llog_file_sink(&o.text), selection[TEXT]);
	add(llog_file_sink(&o.json), selection[JSON]);
	add(llog_syslog_sink(&o.so), selection[SYSLOG]);
	add(llog_callback_sink(&co), selection[MEM]);
	assert_int_equal(llog_init(&(struct llog_config){.flush_interval_ms = 10}), 0);
	log_all();
	llog_shutdown();

	s = read_zstdcat(&o.t);
	check("text file", s, want[TEXT]);
	free(s);
	s = slurp(o.json_path, NULL);
	check("JSON file", s, want[JSON]);
	free(s);
	check("callback", mem, want[MEM]);
	for (int c = 0; c < NCATS; c++)
		n += want[SYSLOG][c] * PER;
	if ((s = rsyslogd_wait_output(&rs, "|r=", n, 30000)) == NULL)
		fail_msg("%s", rs.why);
	check("syslog", s, want[SYSLOG]);
	/* MSGID is the category, the level name for the default one */
	assert_int_equal(count_of(s, "|http.api|"), PER);
	free(s);
	tdir_remove(&o.t);
}

/* ---- FATAL reaches every sink --------------------------------------------- */

static void fatal_child(const struct tdir *t)
{
	struct llog_file_options fo = {.path = t->log, .compression = LLOG_FILE_PLAIN};
	struct llog_sink_options o = {.categories = "db"};

	if (llog_add_sink_opts(llog_file_sink(&fo), &o) != 0 ||
	    llog_init(&(struct llog_config){.crash_handler_off = 1}) != 0)
		_exit(90);
	LOG_INFO_CAT("http", "r=http; not selected");
	LOG_FATAL_CAT("http", "r=http; the fatal one");
	_exit(91);
}

static void test_fatal_reaches_every_sink(void **state)
{
	struct tdir t;
	int st;
	char *s;

	(void)state;
	tdir_make(&t, "llog_routing_");
	st = run_child_status(&t, fatal_child, 20);
	assert_true(WIFSIGNALED(st));
	assert_int_equal(WTERMSIG(st), SIGABRT);
	s = slurp(t.log, NULL);
	assert_non_null(s);
	assert_int_equal(count_of(s, "r=http; the fatal one"), 1);
	assert_int_equal(count_of(s, "not selected"), 0);
	free(s);
	tdir_remove(&t);
}

/* ---- malformed selections -------------------------------------------------- */

static void refused(const char *sel, const char *reason)
{
	struct llog_callback_options co = {.on_entry = on_entry};
	struct llog_sink_options o = {.categories = sel};

	assert_int_equal(llog_add_sink_opts(llog_callback_sink(&co), &o), -EINVAL);
	if (strstr(llog_sink_error(), reason) == NULL)
		fail_msg("categories \"%s\": \"%s\" does not say \"%s\"", sel, llog_sink_error(),
			 reason);
}

static void test_malformed(void **state)
{
	(void)state;
	refused("db,,http", "\"\" is not a category name");
	refused("db..pool", "\"db..pool\" is not a category name");
	refused("a b", "\"a b\" is not a category name");
	refused("!", "\"\" is not a category name");
	refused("db,!db", "named twice");
	refused("a,b,c,d,e,f,g,h,i", "more than 8 names");
	/* "(default)" and its exclusion are names */
	{
		struct llog_callback_options co = {.on_entry = on_entry};
		struct llog_sink_options o = {.categories = "!(default)"};

		assert_int_equal(llog_add_sink_opts(llog_callback_sink(&co), &o), 0);
	}
}

/* After every case, passed or failed: llog stopped, rsyslogd gone. */
static int teardown(void **state)
{
	(void)state;
	llog_shutdown();
	return rsyslogd_remove(&rs); /* nothing when none was made */
}

TEST_MAIN(
	cmocka_unit_test_teardown(test_outputs, teardown),
	cmocka_unit_test_teardown(test_fatal_reaches_every_sink, teardown),
	cmocka_unit_test_teardown(test_malformed, teardown),
)
