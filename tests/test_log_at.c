/*
 * test_log_at.c - LOG_AT(level, fmt, ...): a level held in a variable
 * (llog.h, "Logging"). Every case logs through a wrapper of its own,
 * log_at(lv, what), whose one statement is LOG_AT(lv, "x %s", arg(what)).
 * Each record has the level it was called with, in a zstd text file
 * (zstdcat), a JSON file and a syslog sink to a real rsyslogd over TCP
 * (PRI and the SD level); a level below the current one logs nothing and
 * evaluates no argument, an enabled one evaluates the level and each
 * argument exactly once; llog_set_level and llog_set_levels at run time,
 * a category's level (LOG_AT_CAT) and the backtrace's capture level apply
 * to each level as to a LOG_<LEVEL>; a level outside TRACE..FATAL is never
 * logged, counted or fatal; LOG_AT(LLOG_FATAL, ...) writes its record and
 * aborts, as LOG_FATAL does (in a child process).
 */
#define _GNU_SOURCE
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
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

#define APP "llogat"
#define NLEVELS (LLOG_FATAL + 1)

static const char *const names[NLEVELS] = {"TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL"};

/* ---- the wrappers -------------------------------------------------------- */

static uint64_t evaluated;   /* arguments evaluated (atomic) */
static uint64_t lv_evaluated; /* level expressions evaluated (atomic) */

static const char *arg(const char *what)
{
	__atomic_add_fetch(&evaluated, 1, __ATOMIC_RELAXED);
	return what;
}

static enum llog_level lv_once(enum llog_level lv)
{
	__atomic_add_fetch(&lv_evaluated, 1, __ATOMIC_RELAXED);
	return lv;
}

/* The wrapper the feature is for: one call site, any level. */
static void log_at(enum llog_level lv, const char *what)
{
	LOG_AT(lv_once(lv), "x %s", arg(what));
}

/* The same in category "net", and through the prefixed names. */
static void log_at_net(enum llog_level lv, const char *what)
{
	LLOG_LOG_AT_CAT(lv_once(lv), "net", "x %s", arg(what));
}

/* ---- a callback sink kept in memory -------------------------------------- */

#define MAXE 256

struct got {
	int level;
	int bt;
	int line;
	char cat[16];
	char msg[64];
};

static struct got seen[MAXE];
static size_t nseen;

/* Flusher thread only; read after llog_flush or llog_shutdown (their
 * barrier or join orders it). */
static void on_entry(void *user, const struct llog_entry *e)
{
	struct got *g;

	(void)user;
	if (e->msg_len < 2 || strncmp(e->msg, "x ", 2) != 0)
		return; /* llog's own notices (levels changed) */
	if (nseen == MAXE)
		abort();
	g = &seen[nseen++];
	g->level = e->level;
	g->bt = e->backtrace;
	g->line = e->line;
	snprintf(g->cat, sizeof(g->cat), "%s", e->category != NULL ? e->category : "");
	copy_cut(g->msg, sizeof(g->msg), e->msg + 2, e->msg_len - 2);
}

static void start_mem(const struct llog_config *cfg)
{
	struct llog_callback_options o = {.on_entry = on_entry, .level = LLOG_TRACE};

	nseen = 0;
	evaluated = 0;
	lv_evaluated = 0;
	assert_int_equal(llog_add_sink(llog_callback_sink(&o)), 0);
	assert_int_equal(llog_init(cfg), 0);
}

/* Record i is `what` at level lv (category cat, "" the default). */
static void expect_seen(size_t i, int lv, const char *cat, const char *what)
{
	assert_true(i < nseen);
	if (seen[i].level != lv || strcmp(seen[i].msg, what) != 0 || strcmp(seen[i].cat, cat) != 0)
		fail_msg("record %zu: %s %s '%s', want %s %s '%s'", i, names[seen[i].level],
			 seen[i].cat, seen[i].msg, names[lv], cat, what);
}

/* ---- each level, enabled or not, through memory -------------------------- */

static void test_levels_and_arguments(void **state)
{
	struct llog_config cfg = {.level = LLOG_WARN, .flush_interval_ms = 10};
	char what[NLEVELS][16];
	size_t k = 0;

	(void)state;
	start_mem(&cfg);
	for (int lv = LLOG_TRACE; lv < LLOG_FATAL; lv++) {
		snprintf(what[lv], sizeof(what[lv]), "lv-%s", names[lv]);
		log_at((enum llog_level)lv, what[lv]);
	}
	llog_flush();
	/* the level once per call; the arguments once per enabled call */
	assert_int_equal(lv_evaluated, LLOG_FATAL);
	assert_int_equal(evaluated, 2);
	assert_int_equal(nseen, 2);
	for (int lv = LLOG_WARN; lv < LLOG_FATAL; lv++)
		expect_seen(k++, lv, "", what[lv]);
	/* one statement: every record names its line */
	assert_int_equal(seen[0].line, seen[1].line);
	llog_shutdown();
}

/* ---- levels changed at run time, per category ---------------------------- */

/* Logs "<tag>-<LEVEL>" at every level but FATAL through both wrappers. */
static void both_wrappers(const char *tag)
{
	char what[32];

	for (int lv = LLOG_TRACE; lv < LLOG_FATAL; lv++) {
		snprintf(what, sizeof(what), "%s-%s", tag, names[lv]);
		log_at((enum llog_level)lv, what);
		log_at_net((enum llog_level)lv, what);
	}
	llog_flush();
}

/* From seen[*k]: the records of both_wrappers(tag) at or above def (the
 * default category) and net (category "net"), in call order. */
static void expect_both(size_t *k, const char *tag, int def, int net)
{
	char what[32];

	for (int lv = LLOG_TRACE; lv < LLOG_FATAL; lv++) {
		snprintf(what, sizeof(what), "%s-%s", tag, names[lv]);
		if (lv >= def)
			expect_seen((*k)++, lv, "", what);
		if (lv >= net)
			expect_seen((*k)++, lv, "net", what);
	}
	assert_int_equal(*k, nseen);
}

static void test_set_levels_at_run_time(void **state)
{
	struct llog_config cfg = {.level = LLOG_INFO, .flush_interval_ms = 10};
	size_t k = 0;

	(void)state;
	start_mem(&cfg);
	both_wrappers("a");
	expect_both(&k, "a", LLOG_INFO, LLOG_INFO);
	assert_int_equal(llog_set_levels("warn,net=debug"), 0);
	both_wrappers("b");
	expect_both(&k, "b", LLOG_WARN, LLOG_DEBUG);
	assert_int_equal(llog_set_levels("trace,net=error"), 0);
	both_wrappers("c");
	expect_both(&k, "c", LLOG_TRACE, LLOG_ERROR);
	llog_set_level(LLOG_ERROR);
	both_wrappers("d");
	expect_both(&k, "d", LLOG_ERROR, LLOG_ERROR);
	assert_int_equal(llog_set_levels("off"), 0);
	both_wrappers("e");
	expect_both(&k, "e", LLOG_OFF, LLOG_OFF);
	/* every call evaluated its level once, and its argument iff logged */
	assert_int_equal(lv_evaluated, 5 * 2 * LLOG_FATAL);
	assert_int_equal(evaluated, nseen);
	llog_shutdown();
}

/* ---- the backtrace keeps what is below the level, per level -------------- */

static void test_backtrace(void **state)
{
	struct llog_config cfg = {.level = LLOG_INFO,
				  .flush_interval_ms = 10,
				  .backtrace_records = 16,
				  .backtrace_level = LLOG_DEBUG,
				  .backtrace_trigger = LLOG_ERROR};

	(void)state;
	start_mem(&cfg);
	log_at(LLOG_TRACE, "trace");  /* below the backtrace: nothing */
	log_at(LLOG_DEBUG, "debug");  /* kept */
	log_at(LLOG_INFO, "info");    /* written */
	log_at(LLOG_ERROR, "error");  /* writes the backtrace, then itself */
	llog_flush();
	assert_int_equal(evaluated, 3);
	assert_int_equal(nseen, 3);
	expect_seen(0, LLOG_INFO, "", "info");
	expect_seen(1, LLOG_DEBUG, "", "debug");
	expect_seen(2, LLOG_ERROR, "", "error");
	assert_int_equal(seen[0].bt, 0);
	assert_int_equal(seen[1].bt, 1);
	assert_int_equal(seen[2].bt, 0);
	llog_shutdown();
}

/* ---- levels that are not a record's -------------------------------------- */

static const int not_levels[] = {LLOG_OFF, LLOG_OFF + 1, -1, 1000, INT_MAX, INT_MIN};
#define NOT_LEVELS (sizeof(not_levels) / sizeof(not_levels[0]))

static void test_out_of_range(void **state)
{
	struct llog_config cfg = {.level = LLOG_TRACE, .flush_interval_ms = 10};
	struct llog_stats before, after;

	(void)state;
	start_mem(&cfg);
	llog_get_stats(&before);
	for (size_t i = 0; i < NOT_LEVELS; i++)
		log_at((enum llog_level)not_levels[i], "never");
	llog_flush();
	llog_get_stats(&after);
	/* not logged, not counted, no argument evaluated, not fatal */
	assert_int_equal(nseen, 0);
	assert_int_equal(evaluated, 0);
	assert_int_equal(lv_evaluated, NOT_LEVELS);
	assert_int_equal(after.logged, before.logged);
	assert_int_equal(after.dropped, before.dropped);
	/* and the statement still logs a level that is one */
	log_at(LLOG_TRACE, "after");
	llog_flush();
	assert_int_equal(nseen, 1);
	expect_seen(0, LLOG_TRACE, "", "after");
	llog_shutdown();
}

/* ---- reading the outputs back -------------------------------------------- */

/* The lines of text holding needle: their count, the last one in line. */
static int lines_with(const char *text, const char *needle, char *line, size_t cap)
{
	const char *p = text;
	int n = 0;

	while ((p = strstr(p, needle)) != NULL) {
		const char *b = p, *e = strchr(p, '\n');

		while (b > text && b[-1] != '\n')
			b--;
		if (e == NULL)
			e = p + strlen(p);
		copy_cut(line, cap, b, (size_t)(e - b));
		n++;
		p = e;
	}
	return n;
}

/* An output's reading of a record's level: whether line is at level lv. */
typedef int (*level_check)(const char *line, int lv);

/* Text: "TIMESTAMP LEVEL [tid] ...": the second word. */
static int text_level(const char *line, int lv)
{
	const char *sp = strchr(line, ' ');
	size_t n = strlen(names[lv]);

	return sp != NULL && strncmp(sp + 1, names[lv], n) == 0 && sp[1 + n] == ' ';
}

static int json_level(const char *line, int lv)
{
	char m[32];

	snprintf(m, sizeof(m), "\"level\":\"%s\"", names[lv]);
	return strstr(line, m) != NULL;
}

/* "PRI|APP|PROCID|MSGID|SD|MSG" (tests/syslog/rsyslog.conf.in): PRI of
 * LOCAL3 (19 * 8) and the level's severity, and the SD's level. */
static int syslog_level(const char *line, int lv)
{
	static const int sev[NLEVELS] = {7, 7, 6, 4, 3, 2};
	char m[32];

	snprintf(m, sizeof(m), "level=\"%s\"", names[lv]);
	return atoi(line) == 19 * 8 + sev[lv] && strstr(line, m) != NULL;
}

/* ---- LOG_AT(LLOG_FATAL, ...) is LOG_FATAL -------------------------------- */

static int fatal_direct; /* the child calls LOG_FATAL instead of LOG_AT */

static void json_path_of(const struct tdir *t, char *path, size_t cap)
{
	snprintf(path, cap, "%s/app.json", t->dir);
}

/* The child: a zstd text file and a plain JSON file, then the FATAL. */
static void fatal_child(const struct tdir *t)
{
	struct llog_config cfg = {.flush_interval_ms = 50};
	struct llog_file_options fo = {.path = t->log};
	struct llog_file_options jo = {.format = LLOG_FORMAT_JSON, .compression = LLOG_FILE_PLAIN};
	char json[160];

	json_path_of(t, json, sizeof(json));
	jo.path = json;
	if (llog_add_sink(llog_file_sink(&fo)) != 0 || llog_add_sink(llog_file_sink(&jo)) != 0 ||
	    llog_init(&cfg) != 0)
		_exit(92);
	log_at(LLOG_INFO, "before");
	if (fatal_direct)
		LOG_FATAL("x %s", "fatal");
	else
		log_at(LLOG_FATAL, "fatal");
	log_at(LLOG_INFO, "after");
	_exit(0);
}

/* One output of a child: "x before" at INFO, "x fatal" at FATAL, no
 * "x after". */
static void check_fatal_output(const char *what, const char *out, const char *quote,
			       level_check ok)
{
	char needle[32], line[1024];

	snprintf(needle, sizeof(needle), "x before%s", quote);
	if (lines_with(out, needle, line, sizeof(line)) != 1 || !ok(line, LLOG_INFO))
		fail_msg("%s: no INFO record 'x before' in:\n%s", what, out);
	snprintf(needle, sizeof(needle), "x fatal%s", quote);
	if (lines_with(out, needle, line, sizeof(line)) != 1 || !ok(line, LLOG_FATAL))
		fail_msg("%s: no FATAL record 'x fatal' in:\n%s", what, out);
	if (strstr(out, "x after") != NULL)
		fail_msg("%s: the call after the FATAL ran:\n%s", what, out);
}

/* The FATAL record is written, the child aborts (SIGABRT), and the
 * statement after it never runs: with LOG_AT as with LOG_FATAL. */
static void test_fatal_aborts(void **state)
{
	(void)state;
	for (fatal_direct = 0; fatal_direct < 2; fatal_direct++) {
		struct tdir t;
		char json[160], *out;
		int st;

		tdir_make(&t, "llog_log_at_");
		json_path_of(&t, json, sizeof(json));
		st = run_child_status(&t, fatal_child, 30);
		if (!WIFSIGNALED(st) || WTERMSIG(st) != SIGABRT)
			fail_msg("%s: child status %#x, want SIGABRT",
				 fatal_direct ? "LOG_FATAL" : "LOG_AT", st);
		out = read_zstdcat(&t);
		check_fatal_output("text file", out, "\n", text_level);
		free(out);
		out = slurp(json, NULL);
		check_fatal_output("JSON file", out, "\"", json_level);
		free(out);
		tdir_remove(&t);
	}
}

/* ---- through a text file, a JSON file and syslog ------------------------- */

/* What test_outputs logs: phase p at level lv is "<p>-<LEVEL>" and is
 * logged iff want[p][lv]. */
#define NPHASES 3
static const char phase_tag[NPHASES] = {'a', 'b', 'c'};
static const int want[NPHASES][NLEVELS] = {
	{0, 0, 1, 1, 1, 0}, /* the level INFO (llog_config.level) */
	{1, 1, 1, 1, 1, 0}, /* llog_set_level(LLOG_TRACE) */
	{0, 0, 0, 0, 1, 0}, /* llog_set_levels("error") */
};

/* Every record of want[][] once in text, at its level, and no other. */
static void check_output(const char *what, const char *text, const char *quote, level_check ok)
{
	char needle[48], line[1024];

	for (int p = 0; p < NPHASES; p++) {
		for (int lv = LLOG_TRACE; lv < NLEVELS; lv++) {
			int n;

			snprintf(needle, sizeof(needle), "x %c-%s%s", phase_tag[p], names[lv], quote);
			n = lines_with(text, needle, line, sizeof(line));
			if (n != want[p][lv])
				fail_msg("%s: %d lines with '%s', want %d", what, n, needle,
					 want[p][lv]);
			if (n == 1 && !ok(line, lv))
				fail_msg("%s: not at %s: %s", what, names[lv], line);
		}
	}
	snprintf(needle, sizeof(needle), "x never%s", quote);
	if (lines_with(text, needle, line, sizeof(line)) != 0)
		fail_msg("%s: an out-of-range level was logged: %s", what, line);
}

static struct rsyslogd rs;

static void test_outputs(void **state)
{
	struct llog_config cfg = {.level = LLOG_INFO, .flush_interval_ms = 10};
	struct outputs3 o;
	struct llog_stats before, after;
	char out_path[sizeof(rs.dir) + 16], what[32];
	long n = 0;
	char *s;

	(void)state;
	outputs3_make(&o, &rs, "llog_log_at_", APP);
	snprintf(out_path, sizeof(out_path), "%s/out.log", rs.dir);
	assert_int_equal(llog_add_sink(llog_file_sink(&o.text)), 0);
	assert_int_equal(llog_add_sink(llog_file_sink(&o.json)), 0);
	assert_int_equal(llog_add_sink(llog_syslog_sink(&o.so)), 0);
	assert_int_equal(llog_init(&cfg), 0);

	evaluated = 0;
	for (int p = 0; p < NPHASES; p++) {
		if (p == 1)
			llog_set_level(LLOG_TRACE);
		if (p == 2)
			assert_int_equal(llog_set_levels("error"), 0);
		for (int lv = LLOG_TRACE; lv < LLOG_FATAL; lv++) {
			snprintf(what, sizeof(what), "%c-%s", phase_tag[p], names[lv]);
			log_at((enum llog_level)lv, what);
			n += want[p][lv];
		}
	}
	assert_int_equal(evaluated, n);
	llog_set_level(LLOG_TRACE);
	llog_get_stats(&before);
	for (size_t i = 0; i < NOT_LEVELS; i++)
		log_at((enum llog_level)not_levels[i], "never");
	llog_get_stats(&after);
	assert_int_equal(after.logged, before.logged);
	llog_shutdown();

	s = read_zstdcat(&o.t);
	check_output("text file", s, "\n", text_level);
	free(s);
	s = slurp(o.json_path, NULL);
	check_output("JSON file", s, "\"", json_level);
	free(s);
	/* rsyslog writes what it received in its own time */
	for (int64_t end = now_ms() + 30000;;) {
		int got;

		s = file_lines(out_path) > 0 ? slurp(out_path, NULL) : strdup("");
		assert_non_null(s);
		got = lines_with(s, "|x ", what, sizeof(what));
		if (got >= n)
			break;
		free(s);
		if (now_ms() > end)
			fail_msg("rsyslog wrote %d of %ld records within 30 s", got, n);
		sleep_ms(20);
	}
	check_output("syslog", s, "\n", syslog_level);
	free(s);
	tdir_remove(&o.t);
}

/* After every case, passed or failed: llog stopped, rsyslogd gone. */
static int teardown(void **state)
{
	(void)state;
	llog_shutdown();
	return rsyslogd_remove(&rs); /* nothing when none was made */
}

TEST_MAIN(
	cmocka_unit_test_teardown(test_levels_and_arguments, teardown),
	cmocka_unit_test_teardown(test_set_levels_at_run_time, teardown),
	cmocka_unit_test_teardown(test_backtrace, teardown),
	cmocka_unit_test_teardown(test_out_of_range, teardown),
	cmocka_unit_test_teardown(test_fatal_aborts, teardown),
	cmocka_unit_test_teardown(test_outputs, teardown),
)
