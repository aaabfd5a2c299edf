/*
 * test_direct.c - the flusher's direct path (flusher.c): LOG records
 * handed to sinks that store captures (the binary file sink) as their
 * captures, with no entry built, while every sink of the table takes them
 * so.
 *
 * DESIGN
 * Each case logs records that name themselves ("rec t=T i=I") and reads
 * the binary files back with llogcat --json, so that
 *
 *   records in a file == exactly the records its sink selects, once each,
 *                        in per-thread order, with the thread name that
 *                        was set when each was logged
 *
 * Cases: four binary sinks with different levels and categories; a
 * callback sink added and removed while a binary one runs (the path is
 * left and taken again mid-round); threads renaming themselves and
 * exiting between records of one round (the sink's cache of the last
 * thread); the same records through either path read back the same; a
 * sink that faults in write_rec, mid-record, with a binary file
 * after it (the crash drain renders that record for it, with the same
 * sequence number); a user's sink whose flags have the internal bits
 * (never taken for a direct one: its ops are not llog's). Runs (many
 * records in one sink call): threads taking turns over several sites, and
 * sites met for the first time within a run, read back the same as
 * through entries; a run across chunks, frames and rotated files; a sink
 * that faults in the middle of a run, before or after a binary file (the
 * crash drain writes each record once to the file, and gives the faulting
 * sink only the records after the one it faulted in). Needs LLOGCAT
 * (the build sets it).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
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
#include "testutil.h"

#include "capture.h"
#include "childproc.h"
#include "sink.h"

/* One record of a file as llogcat --json prints it. */
struct rec {
	int t, i;
	int level;        /* LLOG_* */
	char name[16];    /* its thread's name */
	char cat[16];     /* its category, "" for the default one */
	unsigned long long seq;
	long tid;
	long logged_tid;  /* "tid=N" in its message, or 0 */
};

/* llogcat --json PATH's records "rec t=T i=I" (at most max), in file
 * order; the count. */
static int read_recs_of(const char *cmd, struct rec *out, int max)
{
	char *all, *line, *save = NULL;
	int n = 0;

	all = read_cmd(cmd);
	for (line = strtok_r(all, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save)) {
		static const char *const lv[] = {"TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL"};
		const char *m = strstr(line, "rec t="), *p;
		struct rec r = {0};

		if (m == NULL)
			continue;
		assert_int_equal(sscanf(m, "rec t=%d i=%d", &r.t, &r.i), 2);
		r.level = -1;
		for (int k = 0; k < 6; k++) {
			char want[32];

			snprintf(want, sizeof(want), "\"level\":\"%s\"", lv[k]);
			if (strstr(line, want) != NULL)
				r.level = k;
		}
		assert_true(r.level >= 0);
		if ((p = strstr(line, "\"thread_name\":\"")) != NULL)
			sscanf(p + 15, "%15[^\"]", r.name);
		if ((p = strstr(line, "\"category\":\"")) != NULL)
			sscanf(p + 12, "%15[^\"]", r.cat);
		if ((p = strstr(line, "\"seq\":")) != NULL)
			r.seq = strtoull(p + 6, NULL, 10);
		if ((p = strstr(line, "\"thread\":")) != NULL)
			r.tid = strtol(p + 9, NULL, 10);
		if ((p = strstr(m, " tid=")) != NULL)
			r.logged_tid = strtol(p + 5, NULL, 10);
		assert_true(n < max);
		out[n++] = r;
	}
	free(all);
	return n;
}

/* A case that reads its files with llogcat: skipped without it, else
 * its scratch directory made. */
static void llogcat_case(struct tdir *t)
{
	if (getenv("LLOGCAT") == NULL)
		skip();
	tdir_make(t, "llog_direct_");
}

/* Records r[0..got) have consecutive sequence numbers; with `order`,
 * r[k] is "rec t=* i=k". */
static void expect_consecutive(const struct rec *r, int got, int order)
{
	for (int k = 0; k < got; k++) {
		if (order)
			assert_int_equal(r[k].i, k);
		if (k > 0)
			assert_true(r[k].seq == r[k - 1].seq + 1);
	}
}

static int read_recs(const char *path, struct rec *out, int max)
{
	const char *llogcat = getenv("LLOGCAT");
	char cmd[512];

	if (llogcat == NULL)
		skip();
	snprintf(cmd, sizeof(cmd), "'%s' --json '%s'", llogcat, path);
	return read_recs_of(cmd, out, max);
}

static void add_bin(const char *path, enum llog_level level, const char *categories)
{
	struct llog_file_options fo = {.path = path, .compression = LLOG_FILE_BINARY,
				       .level = level};
	struct llog_sink_options so = {.categories = categories};

	assert_int_equal(llog_add_sink_opts(llog_file_sink(&fo), &so), 0);
}

/* ---- 1. levels and categories per sink --------------------------------------- */

#define NREC 3000

/* Record i's level and category: every level from DEBUG up, "db" on
 * every third. */
static enum llog_level level_of(int i)
{
	return (enum llog_level)(LLOG_DEBUG + i % 4); /* DEBUG..ERROR */
}

static void log_rec(int t, int i)
{
	if (i % 3 == 0) {
		switch (level_of(i)) {
		case LLOG_DEBUG: LOG_DEBUG_CAT("db", "rec t=%d i=%d x=%.3f", t, i, i / 8.0); break;
		case LLOG_INFO: LOG_INFO_CAT("db", "rec t=%d i=%d x=%.3f", t, i, i / 8.0); break;
		case LLOG_WARN: LOG_WARN_CAT("db", "rec t=%d i=%d x=%.3f", t, i, i / 8.0); break;
		default: LOG_ERROR_CAT("db", "rec t=%d i=%d x=%.3f", t, i, i / 8.0); break;
		}
		return;
	}
	switch (level_of(i)) {
	case LLOG_DEBUG: LOG_DEBUG("rec t=%d i=%d s=%s", t, i, "debug"); break;
	case LLOG_INFO: LOG_INFO("rec t=%d i=%d s=%s", t, i, "info"); break;
	case LLOG_WARN: LOG_WARN("rec t=%d i=%d s=%s", t, i, "warn"); break;
	default: LOG_ERROR("rec t=%d i=%d s=%s", t, i, "error"); break;
	}
}

/* The records of path are exactly those i < n of thread t that want(i)
 * selects, in order. */
static void expect_selected(const char *path, int t, int n, int (*want)(int))
{
	struct rec *r = calloc(NREC, sizeof(*r));
	int got, k = 0;

	assert_non_null(r);
	got = read_recs(path, r, NREC);
	for (int i = 0; i < n; i++) {
		if (!want(i))
			continue;
		if (k >= got || r[k].t != t || r[k].i != i)
			fail_msg("%s: record %d: t=%d i=%d where t=%d i=%d was expected", path, k,
				 k < got ? r[k].t : -1, k < got ? r[k].i : -1, t, i);
		assert_int_equal(r[k].level, (int)level_of(i));
		assert_string_equal(r[k].cat, i % 3 == 0 ? "db" : "");
		k++;
	}
	assert_int_equal(got, k);
	free(r);
}

static int want_all(int i)
{
	(void)i;
	return 1;
}

static int want_warn(int i)
{
	return level_of(i) >= LLOG_WARN;
}

static int want_db(int i)
{
	return i % 3 == 0;
}

static int want_info_not_db(int i)
{
	return level_of(i) >= LLOG_INFO && i % 3 != 0;
}

static void test_levels_and_categories(void **state)
{
	struct llog_config cfg = {.level = LLOG_DEBUG, .flush_interval_ms = 5};
	char a[128], b[128], c[128], d[128];
	struct tdir t;

	(void)state;
	tdir_make(&t, "llog_direct_");
	snprintf(a, sizeof(a), "%s/all.zst", t.dir);
	snprintf(b, sizeof(b), "%s/warn.zst", t.dir);
	snprintf(c, sizeof(c), "%s/db.zst", t.dir);
	snprintf(d, sizeof(d), "%s/info_not_db.zst", t.dir);
	add_bin(a, LLOG_DEBUG, NULL);
	add_bin(b, LLOG_WARN, NULL);
	add_bin(c, LLOG_DEBUG, "db");
	add_bin(d, LLOG_INFO, "!db");
	assert_int_equal(llog_init(&cfg), 0);
	for (int i = 0; i < NREC; i++) {
		log_rec(0, i);
		if (i % 500 == 0)
			llog_flush();
	}
	llog_shutdown();
	expect_selected(a, 0, NREC, want_all);
	expect_selected(b, 0, NREC, want_warn);
	expect_selected(c, 0, NREC, want_db);
	expect_selected(d, 0, NREC, want_info_not_db);
	tdir_remove(&t);
}

/* ---- 2. a sink that takes entries comes and goes ----------------------------- */

struct seen {
	int n, bad;
	int i[NREC];
};

static void on_entry(void *user, const struct llog_entry *e)
{
	struct seen *s = user;
	int t, i;

	if (sscanf(e->msg, "rec t=%d i=%d", &t, &i) != 2 || s->n >= NREC) {
		s->bad++;
		return;
	}
	s->i[s->n++] = i;
}

static void test_entry_sink_comes_and_goes(void **state)
{
	struct llog_config cfg = {.level = LLOG_DEBUG, .flush_interval_ms = 5};
	static struct seen seen;
	struct llog_callback_options co = {.on_entry = on_entry, .user = &seen};
	struct llog_sink *cb = NULL;
	char a[128];
	struct tdir t;
	int k = 0;

	(void)state;
	tdir_make(&t, "llog_direct_");
	snprintf(a, sizeof(a), "%s/all.zst", t.dir);
	add_bin(a, LLOG_DEBUG, NULL);
	assert_int_equal(llog_init(&cfg), 0);
	for (int i = 0; i < NREC; i++) {
		log_rec(0, i);
		/* the callback sink (WARN) takes records 1000..1999 */
		if (i == 999) {
			co.level = LLOG_WARN;
			cb = llog_callback_sink(&co);
			assert_non_null(cb);
			assert_int_equal(llog_add_sink(cb), 0);
		}
		if (i == 1999)
			assert_int_equal(llog_remove_sink(cb), 0);
	}
	llog_shutdown();
	expect_selected(a, 0, NREC, want_all);
	assert_int_equal(seen.bad, 0);
	for (int i = 1000; i < 2000; i++)
		if (level_of(i) >= LLOG_WARN) {
			assert_true(k < seen.n);
			assert_int_equal(seen.i[k], i);
			k++;
		}
	assert_int_equal(seen.n, k);
	tdir_remove(&t);
}

/* ---- 3. thread names and exits within a round -------------------------------- */

#define THREADS 4
#define PER_THREAD 2000
#define RENAME_EVERY 7

static void name_of(char *buf, int t, int i)
{
	snprintf(buf, 16, "t%d-%d", t, i / RENAME_EVERY);
}

static void *renamer(void *arg)
{
	int t = (int)(intptr_t)arg;
	char name[16];

	for (int i = 0; i < PER_THREAD; i++) {
		if (i % RENAME_EVERY == 0) {
			name_of(name, t, i);
			llog_set_thread_name(name);
		}
		LOG_INFO("rec t=%d i=%d", t, i);
		if (i % 300 == 0)
			llog_flush();
	}
	return NULL;
}

/* Short-lived threads one after the other, each one record under the
 * name it inherited: their arenas may come back at one address. */
static void *one_shot(void *arg)
{
	int t = (int)(intptr_t)arg;

	LOG_INFO("rec t=%d i=0 tid=%ld", t, (long)gettid());
	return NULL;
}

static void test_thread_names(void **state)
{
	struct llog_config cfg = {.level = LLOG_INFO, .flush_interval_ms = 20};
	const int max = THREADS * PER_THREAD + 200;
	struct rec *r = calloc((size_t)max, sizeof(*r));
	int next[THREADS] = {0}, once = 0, got;
	pthread_t th[THREADS];
	char a[128], name[16];
	struct tdir t;

	(void)state;
	assert_non_null(r);
	tdir_make(&t, "llog_direct_");
	snprintf(a, sizeof(a), "%s/names.zst", t.dir);
	add_bin(a, LLOG_DEBUG, NULL);
	assert_int_equal(llog_init(&cfg), 0);
	for (int k = 0; k < THREADS; k++)
		assert_int_equal(pthread_create(&th[k], NULL, renamer, (void *)(intptr_t)k), 0);
	for (int k = 0; k < THREADS; k++)
		assert_int_equal(pthread_join(th[k], NULL), 0);
	for (int k = 0; k < 100; k++) {
		pthread_t o;

		assert_int_equal(pthread_create(&o, NULL, one_shot, (void *)(intptr_t)(100 + k)), 0);
		assert_int_equal(pthread_join(o, NULL), 0);
	}
	llog_shutdown();
	got = read_recs(a, r, max);
	for (int k = 0; k < got; k++) {
		if (r[k].t >= 100) {
			assert_int_equal(r[k].tid, r[k].logged_tid);
			assert_string_equal(r[k].name, "test_direct");
			assert_int_equal(r[k].t, 100 + once);
			once++;
			continue;
		}
		assert_true(r[k].t >= 0 && r[k].t < THREADS);
		assert_int_equal(r[k].i, next[r[k].t]); /* once each, in order */
		name_of(name, r[k].t, r[k].i);
		if (strcmp(r[k].name, name) != 0)
			fail_msg("record t=%d i=%d of thread \"%s\", not \"%s\"", r[k].t, r[k].i,
				 r[k].name, name);
		next[r[k].t]++;
	}
	for (int k = 0; k < THREADS; k++)
		assert_int_equal(next[k], PER_THREAD);
	assert_int_equal(once, 100);
	free(r);
	tdir_remove(&t);
}

/* ---- 4. the same file through either path ----------------------------------- */

static void ignore_entry(void *user, const struct llog_entry *e)
{
	(void)user;
	(void)e;
}

/* Every kind of record a binary file stores: packed arguments (deltas,
 * decimals, strings, NULL), a format stored as text (%ls), no arguments,
 * categories, a long string, thread names, levels below the sink's. */
static void mixed_records(const char *path, int direct)
{
	struct llog_config cfg = {.level = LLOG_DEBUG, .flush_interval_ms = 5};
	struct llog_callback_options co = {.on_entry = ignore_entry, .level = LLOG_FATAL};
	static char big[3000];

	memset(big, 'b', sizeof(big) - 1);
	add_bin(path, LLOG_INFO, NULL);
	if (!direct) /* a sink that takes entries: no direct path */
		assert_int_equal(llog_add_sink(llog_callback_sink(&co)), 0);
	assert_int_equal(llog_init(&cfg), 0);
	llog_set_thread_name("mixer");
	for (int i = 0; i < 400; i++) {
		LOG_INFO("rec t=0 i=%d s=%s f=%.2f g=%g p=%p", i, i % 3 ? "x\ty" : NULL, i * 0.25,
			 i * 1e10, (void *)(uintptr_t)(i * 4096));
		LOG_DEBUG("rec t=1 i=%d below the sink's level", i);
		if (i % 10 == 0)
			LOG_WARN("rec t=2 i=%d %ls", i, L"wide");
		if (i % 50 == 0)
			LOG_ERROR("rec t=3 i=%d static", i);
		if (i % 4 == 0)
			LOG_INFO_CAT("db.pool", "rec t=4 i=%d %lld", i, (long long)i << 40);
		if (i % 97 == 0)
			LOG_INFO("rec t=5 i=%d %s", i, big);
		if (i % 100 == 99)
			llog_set_thread_name(i % 200 == 99 ? "mixer-b" : "mixer");
		if (i % 7 == 0)
			llog_flush();
	}
	llog_shutdown();
}

/* llogcat --json of path without the times and the thread ids. */
static char *timeless(const char *path)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd),
		 "'%s' --json '%s' | sed -e 's/\"ts\":\"[^\"]*\"//' -e 's/\"thread\":[0-9]*//'",
		 getenv("LLOGCAT"), path);
	return read_cmd(cmd);
}

/* The records of logs(path, direct) through entries (direct 0) and
 * directly (1) read back the same, but for times and thread ids; the
 * direct file's path in b (128 bytes), the text (the caller's to free). */
static char *same_both_ways(const struct tdir *t, void (*logs)(const char *path, int direct),
			    char *b)
{
	char a[128], *x, *y;

	snprintf(a, sizeof(a), "%s/entries.zst", t->dir);
	snprintf(b, 128, "%s/direct.zst", t->dir);
	logs(a, 0);
	logs(b, 1);
	x = timeless(a);
	y = timeless(b);
	assert_string_equal(x, y);
	free(y);
	return x;
}

static void test_same_as_entries(void **state)
{
	char b[128], *x;
	struct tdir t;

	(void)state;
	if (getenv("LLOGCAT") == NULL)
		skip();
	tdir_make(&t, "llog_direct_");
	x = same_both_ways(&t, mixed_records, b);
	assert_non_null(strstr(x, "rec t=5 i=97 bbbb"));
	assert_non_null(strstr(x, "\"thread_name\":\"mixer-b\""));
	free(x);
	tdir_remove(&t);
}

/* ---- 5. a sink faults in write_rec ------------------------------------------- */

#define CRASH_N 200
#define CRASH_AT 150

/* A sink that takes captures directly (sink.h) and faults at the record
 * "rec t=0 i=CRASH_AT", before the binary file after it got that record. */
static long fault_write(struct llog_sink *s, const struct llog_entry *e)
{
	(void)s;
	(void)e;
	return 0;
}

static long fault_write_rec(struct llog_sink *s, const struct llog__capture_rec *cr)
{
	static int n;

	(void)s;
	(void)cr;
	if (n++ == CRASH_AT)
		store_null();
	return 0;
}

static long fault_commit(struct llog_sink *s)
{
	(void)s;
	return 0;
}

static void fault_close(struct llog_sink *s)
{
	(void)s;
}

static const struct llog__sink_direct_ops fault_ops = {
	.ops = {.version = LLOG_SINK_VERSION, .write = fault_write, .commit = fault_commit,
		.close = fault_close, .flags = LLOG__SINK_F_RAW | LLOG__SINK_F_DIRECT},
	.write_rec = fault_write_rec,
};

static struct llog_sink fault_sink = {.ops = &fault_ops.ops, .level = LLOG_TRACE};

static void fault_child(const struct tdir *t)
{
	struct llog_config cfg = {.flush_interval_ms = 60000};

	llog__sink_direct_own(&fault_ops); /* llog's own, as a test's */
	if (llog_add_sink(&fault_sink) != 0)
		_exit(92);
	add_bin(t->log, LLOG_DEBUG, NULL);
	if (llog_init(&cfg) != 0)
		_exit(94);
	for (int i = 0; i < CRASH_N; i++)
		LOG_INFO("rec t=0 i=%d x=%.2f", i, i / 4.0);
	llog_flush(); /* its round faults at CRASH_AT */
	_exit(96);
}

static void test_fault_in_write_rec(void **state)
{
	struct rec *r = calloc(CRASH_N + 10, sizeof(*r));
	struct tdir t;
	char cmd[512], *out;
	int got;

	(void)state;
	assert_non_null(r);
	tdir_make(&t, "llog_direct_");
	run_crashing_child(&t, fault_child, 60);
	got = read_recs(t.log, r, CRASH_N + 10);
	/* every record once, in order, the one being handed out included,
	 * with consecutive sequence numbers */
	for (int k = 0; k < got; k++) {
		assert_int_equal(r[k].i, k);
		if (k > 0)
			assert_true(r[k].seq == r[k - 1].seq + 1);
	}
	assert_int_equal(got, CRASH_N);
	/* then the crash record */
	snprintf(cmd, sizeof(cmd), "'%s' '%s'", getenv("LLOGCAT"), t.log);
	out = read_cmd(cmd);
	assert_non_null(strstr(strstr(out, "rec t=0 i=199"), "SIGSEGV"));
	free(out);
	free(r);
	tdir_remove(&t);
}

/* ---- 6. a foreign sink with the internal flags' bits -------------------------- */

#define FOREIGN_N 100

/* A user's sink whose ops set bits llog does not define for users (the
 * internal flags among them), with something else after its ops: refused
 * (EINVAL, closed), never read as a direct sink nor given captures. */
static atomic_int foreign_writes, foreign_traps;

static long foreign_write(struct llog_sink *s, const struct llog_entry *e)
{
	(void)s;
	(void)e;
	atomic_fetch_add(&foreign_writes, 1);
	return 0;
}

static long foreign_trap(struct llog_sink *s, const struct llog__capture_rec *cr)
{
	(void)s;
	(void)cr;
	atomic_fetch_add(&foreign_traps, 1);
	return 0;
}

static struct {
	struct llog_sink_ops ops;
	llog__write_rec_fn *after; /* the user's own data, not a write_rec */
} foreign_ops = {
	.ops = {.version = LLOG_SINK_VERSION, .write = foreign_write, .commit = fault_commit,
		.close = fault_close, .flags = 0xc0000000u},
	.after = foreign_trap,
};

static struct llog_sink foreign_sink = {.ops = &foreign_ops.ops, .level = LLOG_TRACE};

static void test_foreign_flags(void **state)
{
	static const unsigned flags[] = {0xc0000000u, LLOG__SINK_F_RAW, LLOG__SINK_F_DIRECT, 2u,
					 ~0u};
	struct llog_config cfg = {.flush_interval_ms = 5};
	struct llog_sink_options so = {.thread = LLOG_SINK_THREAD_FLUSHER};

	(void)state;
	for (size_t k = 0; k < sizeof(flags) / sizeof(flags[0]); k++) {
		foreign_ops.ops.flags = flags[k];
		assert_int_equal(llog_add_sink_opts(&foreign_sink, &so), -EINVAL);
		assert_non_null(strstr(llog_sink_error(), "LLOG_SINK_F_"));
	}
	/* the same ops with a user's flag only are taken */
	foreign_ops.ops.flags = LLOG_SINK_F_MAY_BLOCK;
	assert_int_equal(llog_add_sink_opts(&foreign_sink, &so), 0);
	assert_int_equal(llog_init(&cfg), 0);
	for (int i = 0; i < FOREIGN_N; i++)
		LOG_INFO("rec t=0 i=%d", i);
	llog_flush();
	llog_shutdown();
	assert_int_equal(atomic_load(&foreign_traps), 0);
	assert_int_equal(atomic_load(&foreign_writes), FOREIGN_N);
}

/* ---- 7. runs: one sink call for many records ----------------------------------- */

/* Threads that take turns (one record each, in a fixed order), each
 * record from one of three sites, so that a round's runs interleave
 * threads and sites in a known order: the file is the same through the
 * runs as through entries (a callback sink in the table: no direct path),
 * and holds every record once, in per-thread order, under its thread's
 * name. Then one thread meets NEW_SITES sites for the first time one
 * after another in one run. */
#define TURN_THREADS 3
#define TURN_EACH 400
#define NEW_SITES 5

static atomic_int turn;

static void *taker(void *arg)
{
	int t = (int)(intptr_t)arg;
	char name[16];

	snprintf(name, sizeof(name), "taker-%d", t);
	llog_set_thread_name(name);
	for (int i = 0; i < TURN_EACH; i++) {
		while (atomic_load(&turn) != i * TURN_THREADS + t)
			sched_yield();
		switch ((i + t) % 3) {
		case 0:
			LOG_INFO("rec t=%d i=%d a=%d", t, i, i * 7 - t);
			break;
		case 1:
			LOG_INFO("rec t=%d i=%d d=%.3f s=%s", t, i, i / 8.0, i % 2 ? "odd" : "even");
			break;
		default:
			LOG_WARN("rec t=%d i=%d x=%lld", t, i, (long long)i << 33);
			break;
		}
		if (i % 150 == 149 && t == 0)
			llog_flush(); /* a round ends within the turns */
		atomic_fetch_add(&turn, 1);
	}
	return NULL;
}

/* One thread, sites met for the first time one after another within a
 * run (each defined while the thread stays the frame's), then again. */
static void new_sites(void)
{
	for (int i = 0; i < 40; i++) {
		LOG_INFO("rec t=0 i=%d a=%d", i, i);
		LOG_INFO("rec t=1 i=%d b=%u", i, (unsigned)i * 3);
		LOG_WARN("rec t=2 i=%d c=%.2f", i, i / 3.0);
		LOG_INFO("rec t=3 i=%d d=%s", i, "new");
		LOG_ERROR("rec t=4 i=%d e=%lld", i, (long long)i << 40);
	}
}

static void interleaved(const char *path, int direct)
{
	struct llog_config cfg = {.level = LLOG_DEBUG, .flush_interval_ms = 60000};
	struct llog_callback_options co = {.on_entry = ignore_entry, .level = LLOG_FATAL};
	pthread_t th[TURN_THREADS];

	atomic_store(&turn, 0);
	add_bin(path, LLOG_INFO, NULL);
	if (!direct)
		assert_int_equal(llog_add_sink(llog_callback_sink(&co)), 0);
	assert_int_equal(llog_init(&cfg), 0);
	for (int k = 0; k < TURN_THREADS; k++)
		assert_int_equal(pthread_create(&th[k], NULL, taker, (void *)(intptr_t)k), 0);
	for (int k = 0; k < TURN_THREADS; k++)
		assert_int_equal(pthread_join(th[k], NULL), 0);
	llog_flush();
	new_sites(); /* one round */
	llog_shutdown();
}

static void test_run_threads_and_sites_interleaved(void **state)
{
	const int max = TURN_THREADS * TURN_EACH + NEW_SITES * 40 + 10;
	struct rec *r = calloc((size_t)max, sizeof(*r));
	char b[128];
	int got;
	struct tdir t;

	(void)state;
	assert_non_null(r);
	llogcat_case(&t);
	free(same_both_ways(&t, interleaved, b));
	got = read_recs(b, r, max);
	assert_int_equal(got, TURN_THREADS * TURN_EACH + NEW_SITES * 40);
	got = TURN_THREADS * TURN_EACH; /* then new_sites' */
	for (int k = 0; k < got; k++) {
		char name[16];

		/* the order of the turns, each record once */
		assert_int_equal(r[k].t, k % TURN_THREADS);
		assert_int_equal(r[k].i, k / TURN_THREADS);
		snprintf(name, sizeof(name), "taker-%d", r[k].t);
		assert_string_equal(r[k].name, name);
	}
	expect_consecutive(r, got, 0);
	free(r);
	tdir_remove(&t);
}

/* A run across chunks, frames and files: each record carries a 40 KB
 * string, so a chunk (one frame, at most 4 MiB of records) takes about 100
 * of them and a run (up to 256) often crosses into a new chunk, whose
 * predecessor goes to the writer while the run goes on (and, past the 8
 * MiB of pending input, waits for it); the arenas (16 MiB) hold more than
 * a run a round. The file rotates before each frame (max_bytes 1), so every
 * frame but the first starts a file of its own. Every file reads with
 * zstd, and together they hold every record once, in order. */
#define SPAN_N 1000
#define SPAN_STR 40000

static void test_run_across_chunks_and_rotation(void **state)
{
	struct llog_config cfg = {.level = LLOG_DEBUG, .flush_interval_ms = 60000,
				  .arena_bytes = 16u << 20, .max_record_bytes = 64u << 10};
	static char big[SPAN_STR + 1];
	struct llog_file_options fo = {.compression = LLOG_FILE_BINARY, .max_bytes = 1};
	struct rec *r = calloc(SPAN_N + 10, sizeof(*r));
	char path[128], cmd[512], *out, *line, *save = NULL;
	int got, files = 0;
	struct tdir t;

	(void)state;
	assert_non_null(r);
	llogcat_case(&t);
	snprintf(path, sizeof(path), "%s/span.zst", t.dir);
	fo.path = path;
	assert_int_equal(llog_add_sink(llog_file_sink(&fo)), 0);
	assert_int_equal(llog_init(&cfg), 0);
	for (int i = 0; i < SPAN_N; i++) {
		memset(big, 'a' + i % 26, SPAN_STR);
		LOG_INFO("rec t=0 i=%d v=%d s=%s", i, i * 3, big);
		if (i % 400 == 399)
			llog_flush();
	}
	llog_shutdown();
	/* every file reads with zstd */
	snprintf(cmd, sizeof(cmd), "ls '%s'", t.dir);
	out = read_cmd(cmd);
	for (line = strtok_r(out, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save)) {
		char test[512];

		snprintf(test, sizeof(test), "zstd -t -q '%s/%s' 2>/dev/null", t.dir, line);
		if (system(test) != 0)
			fail_msg("zstd cannot read %s", line);
		files++;
	}
	free(out);
	assert_true(files > SPAN_N / 110); /* a file a frame */
	/* all files, oldest first */
	snprintf(cmd, sizeof(cmd), "'%s' --json '%s'/span*", getenv("LLOGCAT"), t.dir);
	got = read_recs_of(cmd, r, SPAN_N + 10);
	assert_int_equal(got, SPAN_N);
	expect_consecutive(r, got, 1);
	free(r);
	tdir_remove(&t);
}

/*
 * A sink that faults in write_run, in the middle of a run, next to a
 * binary file: before it (the file took the whole run: the crash drain
 * must not give it any record of the run again) or after it (the file had
 * none of the run: the drain gives it every record of the run, then the
 * rest). Either way the file holds every record once, in order, with
 * consecutive sequence numbers, then the crash record. The faulting sink
 * has crash entry points that note what the drain gives it: only the
 * records after the one it faulted in (it took those before), then the
 * crash record.
 */
#define RUN_N 300
#define RUN_AT 150

static int run_fault_fd = -1; /* the child's notes of the faulting sink's crash_write */

static long run_fault_write_rec(struct llog_sink *s, const struct llog__capture_rec *cr)
{
	(void)s;
	(void)cr;
	return 0;
}

static long run_fault_write_run(struct llog_sink *s, struct llog__capture_run *run)
{
	static int n;

	(void)s;
	for (unsigned k = 0; k < run->n; k++) {
		if (n++ == RUN_AT)
			store_null();
		llog__capture_run_took(run);
	}
	return 0;
}

static long run_fault_crash_write(struct llog_sink *s, const struct llog_entry *e, int interrupted)
{
	char note[64];
	int t, i, len;

	(void)s;
	if (e->msg == NULL || sscanf(e->msg, "rec t=%d i=%d", &t, &i) != 2)
		i = -1; /* the crash record */
	len = snprintf(note, sizeof(note), "%d %d\n", i, interrupted);
	if (write(run_fault_fd, note, (size_t)len) != len)
		_exit(97);
	return 0;
}

static long run_fault_crash_commit(struct llog_sink *s, int interrupted)
{
	(void)s;
	(void)interrupted;
	return 0;
}

static const struct llog__sink_direct_ops run_fault_ops = {
	.ops = {.version = LLOG_SINK_VERSION, .write = fault_write, .commit = fault_commit,
		.close = fault_close, .crash_write = run_fault_crash_write,
		.crash_commit = run_fault_crash_commit,
		.flags = LLOG__SINK_F_RAW | LLOG__SINK_F_DIRECT},
	.write_rec = run_fault_write_rec,
	.write_run = run_fault_write_run,
};

static struct llog_sink run_fault_sink = {.ops = &run_fault_ops.ops, .level = LLOG_TRACE};
static int run_fault_first; /* the faulting sink before the file */

static void run_fault_child(const struct tdir *t)
{
	struct llog_config cfg = {.flush_interval_ms = 60000};
	char notes[160];

	snprintf(notes, sizeof(notes), "%s/notes.txt", t->dir);
	run_fault_fd = open(notes, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (run_fault_fd < 0)
		_exit(91);
	llog__sink_direct_own(&run_fault_ops); /* llog's own, as a test's */
	if (run_fault_first && llog_add_sink(&run_fault_sink) != 0)
		_exit(92);
	add_bin(t->log, LLOG_DEBUG, NULL);
	if (!run_fault_first && llog_add_sink(&run_fault_sink) != 0)
		_exit(93);
	if (llog_init(&cfg) != 0)
		_exit(94);
	for (int i = 0; i < RUN_N; i++)
		LOG_INFO("rec t=0 i=%d x=%.2f", i, i / 4.0);
	llog_flush(); /* its round's runs fault at RUN_AT */
	_exit(96);
}

static void run_fault(int first)
{
	struct rec *r = calloc(RUN_N + 10, sizeof(*r));
	char cmd[512], *out, *line, *save = NULL;
	int got, want;
	struct tdir t;

	assert_non_null(r);
	run_fault_first = first;
	llogcat_case(&t);
	run_crashing_child(&t, run_fault_child, 60);
	got = read_recs(t.log, r, RUN_N + 10);
	expect_consecutive(r, got, 1);
	assert_int_equal(got, RUN_N);
	snprintf(cmd, sizeof(cmd), "'%s' '%s'", getenv("LLOGCAT"), t.log);
	out = read_cmd(cmd);
	assert_non_null(strstr(strstr(out, "rec t=0 i=299"), "SIGSEGV"));
	free(out);
	/* the faulting sink: the records after RUN_AT, interrupted, then
	 * the crash record */
	snprintf(cmd, sizeof(cmd), "cat '%s/notes.txt'", t.dir);
	out = read_cmd(cmd);
	want = RUN_AT + 1;
	for (line = strtok_r(out, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save)) {
		int i, interrupted;

		assert_int_equal(sscanf(line, "%d %d", &i, &interrupted), 2);
		assert_int_equal(interrupted, 1);
		if (i < 0) {
			assert_int_equal(want, RUN_N); /* the crash record, last */
			want = -1;
			continue;
		}
		assert_int_equal(i, want);
		want++;
	}
	assert_int_equal(want, -1);
	free(out);
	free(r);
	tdir_remove(&t);
}

static void test_run_fault_before_file(void **state)
{
	(void)state;
	run_fault(1);
}

static void test_run_fault_after_file(void **state)
{
	(void)state;
	run_fault(0);
}

TEST_MAIN(
	cmocka_unit_test(test_levels_and_categories),
	cmocka_unit_test(test_entry_sink_comes_and_goes),
	cmocka_unit_test(test_thread_names),
	cmocka_unit_test(test_same_as_entries),
	cmocka_unit_test(test_fault_in_write_rec),
	cmocka_unit_test(test_foreign_flags),
	cmocka_unit_test(test_run_threads_and_sites_interleaved),
	cmocka_unit_test(test_run_across_chunks_and_rotation),
	cmocka_unit_test(test_run_fault_before_file),
	cmocka_unit_test(test_run_fault_after_file),
)
