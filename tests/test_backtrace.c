/*
 * test_backtrace.c - the backtrace (flight recorder, llog.h "Backtrace"):
 * records below the output level kept in a bounded ring and written,
 * marked, before a record at the trigger level; across threads; bounded by
 * records and by bytes; memory flat over 10 million kept records; in the
 * crash drain (an application thread crashing, and the flusher itself);
 * arguments evaluated only in the captured range; the stats' equations.
 *
 * The in-process tests log into a callback sink that keeps, per entry,
 * its fields, its message and its text and JSON lines (the line code of
 * the console and file sinks, llog_format_entry_opts); the crash tests
 * read a child's file sink back with zstdcat.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "llog.h"
#include "llog/sinks.h"

#include "childproc.h"

#define MAXE 20000
#define MSG 96

struct got {
	uint64_t seq;
	int64_t ts;
	int level;
	uint64_t tid;
	int bt;
	uint64_t suppressed;
	char msg[MSG];
	char text[512];
	char json[640];
};

static struct got *seen;
static size_t nseen;
static uint64_t evaluated; /* arguments evaluated (atomic) */

/* Flusher thread only; read after llog_flush or llog_shutdown (their
 * barrier or join orders it). */
static int dump_in_sink = 1; /* llog_backtrace_dump's result in the sink */

static void on_entry(void *user, const struct llog_entry *e)
{
	struct llog_line_options lo = {.ts_precision = LLOG_TS_NS};
	struct got *g;
	size_t n;

	(void)user;
	if (e->msg_len == 17 && memcmp(e->msg, "dump from a sink!", 17) == 0)
		dump_in_sink = llog_backtrace_dump();
	if (nseen == MAXE)
		abort();
	g = &seen[nseen++];
	g->seq = e->seq;
	g->ts = e->ts_ns;
	g->level = e->level;
	g->tid = e->tid;
	g->bt = e->backtrace;
	g->suppressed = e->suppressed;
	copy_cut(g->msg, sizeof(g->msg), e->msg, e->msg_len);
	n = llog_format_entry_opts(e, LLOG_FORMAT_TEXT, &lo, g->text, sizeof(g->text) - 1);
	g->text[n] = '\0';
	n = llog_format_entry_opts(e, LLOG_FORMAT_JSON, &lo, g->json, sizeof(g->json) - 1);
	g->json[n] = '\0';
}

static int arg(void)
{
	return (int)__atomic_add_fetch(&evaluated, 1, __ATOMIC_RELAXED);
}

static struct llog_stats stats0;

/* Starts llog at INFO with the callback sink and a backtrace of `records`
 * (0: off) in `bytes`, capturing from DEBUG, triggered at `trigger`. */
static void start(size_t records, size_t bytes, enum llog_level trigger)
{
	struct llog_callback_options o = {.on_entry = on_entry, .user = NULL,
					  .level = LLOG_TRACE};
	struct llog_config cfg = {.level = LLOG_INFO,
				  .flush_interval_ms = 10,
				  .backtrace_records = records,
				  .backtrace_bytes = bytes,
				  .backtrace_level = LLOG_DEBUG,
				  .backtrace_trigger = trigger};

	seen = calloc(MAXE, sizeof(*seen));
	assert_non_null(seen);
	nseen = 0;
	evaluated = 0;
	assert_int_equal(llog_add_sink(llog_callback_sink(&o)), 0);
	assert_int_equal(llog_init(&cfg), 0);
	llog_get_stats(&stats0);
}

static void stop(void)
{
	llog_shutdown();
	free(seen);
	seen = NULL;
}

/* After each test, also a failed one: the next starts from scratch. */
static int teardown(void **state)
{
	(void)state;
	stop();
	return 0;
}

/* Counter deltas since start(). */
struct delta {
	uint64_t logged, written, dropped, captured, bt_written, discarded;
};

static struct delta deltas(void)
{
	struct llog_stats s;

	llog_get_stats(&s);
	return (struct delta){s.logged - stats0.logged, s.written - stats0.written,
			      s.dropped - stats0.dropped,
			      s.backtrace_captured - stats0.backtrace_captured,
			      s.backtrace_written - stats0.backtrace_written,
			      s.backtrace_discarded - stats0.backtrace_discarded};
}

static uint64_t my_tid(void)
{
	return (uint64_t)syscall(SYS_gettid);
}

/* The string s ends with end. */
static int ends_with(const char *s, const char *end)
{
	size_t n = strlen(s), m = strlen(end);

	return n >= m && strcmp(s + n - m, end) == 0;
}

/* ---- one thread: the last 64 of 1,000 DEBUG before the ERROR --------------- */

static void test_last_64_before_error(void **state)
{
	const uint64_t tid = my_tid();
	struct delta d;
	char want[128];

	(void)state;
	start(64, 1 << 20, LLOG_TRACE /* default: ERROR */);
	assert_int_equal(llog_get_level(), LLOG_INFO);
	LOG_INFO("before");
	for (int i = 0; i < 1000; i++)
		LOG_DEBUG("debug i=%d", i);
	LOG_WARN("a warning is no trigger");
	LOG_ERROR("error after %d", 1000);
	llog_flush();

	/* INFO, WARN, 64 backtrace entries, the ERROR: nothing else. */
	assert_int_equal(nseen, 1 + 1 + 64 + 1);
	assert_string_equal(seen[0].msg, "before");
	assert_int_equal(seen[0].bt, 0);
	assert_string_equal(seen[1].msg, "a warning is no trigger");
	assert_int_equal(seen[1].bt, 0);
	for (int k = 0; k < 64; k++) {
		const struct got *g = &seen[2 + k];

		snprintf(want, sizeof(want), "debug i=%d", 1000 - 64 + k);
		assert_string_equal(g->msg, want);
		assert_int_equal(g->bt, 1);
		assert_int_equal(g->level, LLOG_DEBUG);
		assert_int_equal(g->tid, tid);
		/* Marked in text (before the message) and in JSON. */
		snprintf(want, sizeof(want), " [backtrace] debug i=%d\n", 1000 - 64 + k);
		assert_true(ends_with(g->text, want));
		assert_non_null(strstr(g->text, " DEBUG ["));
		assert_non_null(strstr(g->json, ",\"backtrace\":true,\"msg\":\"debug i="));
		/* Their own times, in order, none after the ERROR's. */
		if (k > 0)
			assert_true(g->ts >= g[-1].ts);
		assert_true(g->ts <= seen[66].ts);
	}
	/* seq: consecutive in output order. */
	for (size_t k = 1; k < nseen; k++)
		assert_int_equal(seen[k].seq, seen[k - 1].seq + 1);
	assert_string_equal(seen[66].msg, "error after 1000");
	assert_int_equal(seen[66].bt, 0);
	assert_int_equal(seen[66].level, LLOG_ERROR);
	assert_null(strstr(seen[66].text, "[backtrace]"));
	assert_null(strstr(seen[66].json, "\"backtrace\""));
	assert_null(strstr(seen[0].json, "\"backtrace\""));

	d = deltas();
	assert_int_equal(d.logged, 3);
	assert_int_equal(d.written, 3);
	assert_int_equal(d.dropped, 0);
	assert_int_equal(d.captured, 1000);
	assert_int_equal(d.bt_written, 64);
	assert_int_equal(d.discarded, 1000 - 64);

	/* The ring was emptied: a second ERROR comes alone; then 10 DEBUG
	 * and an ERROR bring exactly those 10. */
	LOG_ERROR("second error");
	for (int i = 0; i < 10; i++)
		LOG_DEBUG("again i=%d", i);
	LOG_ERROR("third error");
	llog_flush();
	assert_int_equal(nseen, 67 + 1 + 10 + 1);
	assert_string_equal(seen[67].msg, "second error");
	for (int k = 0; k < 10; k++) {
		snprintf(want, sizeof(want), "again i=%d", k);
		assert_string_equal(seen[68 + k].msg, want);
		assert_int_equal(seen[68 + k].bt, 1);
	}
	assert_string_equal(seen[78].msg, "third error");
	d = deltas();
	assert_int_equal(d.captured, d.bt_written + d.discarded); /* ring empty */
	assert_int_equal(d.logged, d.written + d.dropped);
	stop();
}

/* ---- the trigger level and the output level at run time -------------------- */

static void test_trigger_and_runtime_level(void **state)
{
	struct delta d;

	(void)state;
	start(8, 0, LLOG_WARN);
	for (int i = 0; i < 3; i++)
		LOG_DEBUG("kept %d", i);
	LOG_TRACE("below the backtrace level: never captured %d", arg());
	LOG_WARN("warn triggers");
	/* Output level DEBUG: DEBUG is written as usual, not kept. */
	llog_set_level(LLOG_DEBUG);
	assert_int_equal(llog_get_level(), LLOG_DEBUG);
	LOG_DEBUG("written");
	LOG_WARN("nothing to write before it");
	llog_set_level(LLOG_INFO);
	LOG_DEBUG("kept again");
	llog_flush();
	assert_int_equal(evaluated, 0);
	assert_int_equal(nseen, 3 + 1 + 1 + 1);
	assert_string_equal(seen[0].msg, "kept 0");
	assert_string_equal(seen[2].msg, "kept 2");
	assert_int_equal(seen[2].bt, 1);
	assert_string_equal(seen[3].msg, "warn triggers");
	assert_string_equal(seen[4].msg, "written");
	assert_int_equal(seen[4].bt, 0);
	assert_string_equal(seen[5].msg, "nothing to write before it");
	d = deltas();
	assert_int_equal(d.captured, 4);
	assert_int_equal(d.bt_written, 3);
	assert_int_equal(d.discarded, 0); /* "kept again" is held */
	/* Shutdown discards what the ring holds. */
	llog_shutdown();
	d = deltas();
	assert_int_equal(d.captured, 4);
	assert_int_equal(d.discarded, 1);
	assert_int_equal(d.logged, 3); /* the WARNs and "written" */
	assert_int_equal(d.written, 3);
}

/* ---- arguments: evaluated only in the captured range ----------------------- */

static void test_arguments_evaluated(void **state)
{
	struct delta d;

	(void)state;
	/* Off: a call below the level evaluates nothing and counts nothing. */
	start(0, 0, LLOG_TRACE);
	LOG_DEBUG("off %d", arg());
	LOG_TRACE("off %d", arg());
	llog_flush();
	assert_int_equal(evaluated, 0);
	d = deltas();
	assert_int_equal(d.logged + d.captured + d.discarded, 0);
	assert_int_equal(nseen, 0);
	stop();

	/* On (from DEBUG): TRACE is below the capture threshold, DEBUG is
	 * captured (its arguments evaluated once), INFO written. */
	start(4, 0, LLOG_TRACE);
	LOG_TRACE("trace %d", arg());
	assert_int_equal(evaluated, 0);
	LOG_DEBUG("debug %d", arg());
	assert_int_equal(evaluated, 1);
	LOG_INFO("info %d", arg());
	assert_int_equal(evaluated, 2);
	llog_flush();
	d = deltas();
	assert_int_equal(d.captured, 1);
	assert_int_equal(d.logged, 1);
	assert_int_equal(nseen, 1);
	assert_string_equal(seen[0].msg, "info 2");
	stop();
}

/* ---- four threads: the last 64 in the flusher's order ---------------------- */

#define THREADS 4
#define PER 5000

static void *worker(void *arg_)
{
	int t = (int)(intptr_t)arg_;

	for (int i = 0; i < PER; i++)
		LOG_DEBUG("t=%d i=%d", t, i);
	return NULL;
}

static void test_threads_last_64(void **state)
{
	int count[THREADS] = {0}, last[THREADS], first[THREADS];
	struct delta d;

	(void)state;
	start(64, 1 << 20, LLOG_TRACE);
	assert_int_equal(run_threads(THREADS, worker), 0);
	LOG_ERROR("after the threads");
	llog_flush();

	assert_int_equal(nseen, 64 + 1);
	for (int t = 0; t < THREADS; t++)
		last[t] = first[t] = -1;
	/* Each thread's entries keep its order and have no gap. */
	for (int k = 0; k < 64; k++) {
		int t, i;

		assert_int_equal(seen[k].bt, 1);
		assert_int_equal(sscanf(seen[k].msg, "t=%d i=%d", &t, &i), 2);
		assert_true(t >= 0 && t < THREADS);
		if (last[t] >= 0)
			assert_int_equal(i, last[t] + 1);
		else
			first[t] = i;
		last[t] = i;
		count[t]++;
		if (k > 0)
			assert_int_equal(seen[k].seq, seen[k - 1].seq + 1);
	}
	/* The last N of the flusher's order are, for each thread, the end of
	 * what it logged: a thread that appears ends with its last record. */
	{
		int total = 0;

		for (int t = 0; t < THREADS; t++) {
			if (count[t] == 0)
				continue;
			assert_int_equal(last[t], PER - 1);
			assert_int_equal(first[t], PER - count[t]);
			total += count[t];
		}
		assert_int_equal(total, 64);
	}
	assert_string_equal(seen[64].msg, "after the threads");
	d = deltas();
	assert_int_equal(d.captured, THREADS * PER);
	assert_int_equal(d.bt_written, 64);
	assert_int_equal(d.discarded, THREADS * PER - 64);
	assert_int_equal(d.logged, 1);
	stop();
}

/* ---- the byte bound --------------------------------------------------------- */

static void test_bytes_bound(void **state)
{
	char pad[201];
	char want[64];
	struct delta d;
	size_t k;

	(void)state;
	memset(pad, 'x', sizeof(pad) - 1);
	pad[sizeof(pad) - 1] = '\0';
	/* 1,000 records allowed, but only the smallest ring (raised to two of
	 * the largest entries, about 10 KiB with 4 KiB records): the bytes
	 * bind first. */
	start(1000, 1, LLOG_TRACE);
	for (int i = 0; i < 1000; i++)
		LOG_DEBUG("debug i=%d %s", i, pad);
	LOG_ERROR("error");
	llog_flush();
	k = nseen - 1;
	fprintf(stderr, "the smallest ring held %zu entries of ~300 bytes\n", k);
	assert_true(k >= 8);   /* ~10 KiB of ~300-byte entries: dozens */
	assert_true(k <= 100); /* far below the 1,000 allowed */
	for (size_t j = 0; j < k; j++) {
		snprintf(want, sizeof(want), "debug i=%zu ", 1000 - k + j);
		assert_memory_equal(seen[j].msg, want, strlen(want));
		assert_int_equal(seen[j].bt, 1);
	}
	assert_string_equal(seen[k].msg, "error");
	d = deltas();
	assert_int_equal(d.captured, 1000);
	assert_int_equal(d.bt_written, k);
	assert_int_equal(d.discarded, 1000 - k);
	stop();
}

/* ---- memory stays flat over 10 million kept records ------------------------- */

#ifdef TEST_SANITIZER
/* A fifth under the sanitizers, which make each record several times
 * dearer: 1.8 million records past the warm-up still show a growth of a
 * byte or more per record against the 2 MiB bound. */
#define MANY 2000000L
#else
#define MANY 10000000L
#endif

/* The process's resident set, in KiB (/proc/self/status VmRSS). */
static long rss_kib(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long kib = -1;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "VmRSS: %ld kB", &kib) == 1)
			break;
	fclose(f);
	assert_true(kib > 0);
	return kib;
}

static void test_memory_bounded(void **state)
{
	long warm, end;
	struct delta d;

	(void)state;
	start(64, 0, LLOG_TRACE);
	/* Warm up: the arena's pages, the ring, the flusher's buffers. */
	for (long i = 0; i < MANY / 10; i++)
		LOG_DEBUG("debug i=%ld of %s", i, "many");
	llog_flush();
	warm = rss_kib();
	for (long i = MANY / 10; i < MANY; i++)
		LOG_DEBUG("debug i=%ld of %s", i, "many");
	llog_flush();
	end = rss_kib();
	d = deltas();
	fprintf(stderr, "%ld kept records: RSS %ld KiB after the first tenth, %ld KiB at the end\n",
		MANY, warm, end);
	assert_int_equal(nseen, 0);
	assert_int_equal(d.captured, MANY);
	assert_int_equal(d.bt_written, 0);
	/* The ring holds exactly its 64; the rest were discarded. */
	assert_int_equal(d.captured - d.bt_written - d.discarded, 64);
	assert_int_equal(d.logged, 0);
	assert_int_equal(d.dropped, 0);
	/* Nothing grows per record: 9/10 of the records add less than 2 MiB
	 * (noise: stdio, the allocator's own bookkeeping). */
	assert_true(end - warm < 2048);
	LOG_ERROR("finally");
	llog_flush();
	assert_int_equal(nseen, 65);
	{
		char want[64];

		snprintf(want, sizeof(want), "debug i=%ld of many", MANY - 64);
		assert_string_equal(seen[0].msg, want);
		snprintf(want, sizeof(want), "debug i=%ld of many", MANY - 1);
		assert_string_equal(seen[63].msg, want);
	}
	stop();
}

/* ---- a rate-limited site below the level -------------------------------------- */

static uint64_t stats_suppressed(void)
{
	struct llog_stats st;

	llog_get_stats(&st);
	return st.suppressed;
}

/* Its emitted calls are kept with their counts; the counts reach
 * llog_stats.suppressed when the sinks get them, not before. */
static void test_rate_limited_site_kept(void **state)
{
	uint64_t s0;

	(void)state;
	start(64, 0, LLOG_TRACE);
	s0 = stats_suppressed();
	for (int i = 0; i < 100; i++)
		LOG_DEBUG_EVERY_N(10, "limited i=%d", i);
	llog_flush();
	assert_int_equal(nseen, 0);
	assert_int_equal(stats_suppressed() - s0, 0);
	LOG_ERROR("error");
	llog_flush();
	assert_int_equal(nseen, 11);
	for (int k = 0; k < 10; k++) {
		char want[32];

		snprintf(want, sizeof(want), "limited i=%d", 10 * k);
		assert_string_equal(seen[k].msg, want);
		assert_int_equal(seen[k].bt, 1);
		assert_int_equal(seen[k].suppressed, k == 0 ? 0 : 9);
		assert_non_null(strstr(seen[k].text, " [backtrace] limited i="));
		assert_true(ends_with(seen[k].text, k == 0 ? "\n" : " [9 suppressed]\n"));
	}
	assert_int_equal(stats_suppressed() - s0, 9 * 9);
	stop();
}

/* ---- fork: the child never writes the parent's kept records ------------------- */

/* In the child: 0 when its output is exactly its own kept record, then
 * its ERROR; the parent's entries in `seen` (from before the fork) stay. */
static int fork_child_check(size_t before)
{
	LOG_DEBUG("child kept");
	LOG_ERROR("child error");
	llog_flush();
	if (nseen != before + 2)
		return 1;
	if (strcmp(seen[before].msg, "child kept") != 0 || seen[before].bt != 1)
		return 2;
	if (strcmp(seen[before + 1].msg, "child error") != 0)
		return 3;
	return 0;
}

static void test_fork_child_drops_parent_ring(void **state)
{
	size_t before;
	pid_t pid;

	(void)state;
	/* ThreadSanitizer cannot start threads in the child of a
	 * multi-threaded fork (as test_process.c's test_fork): this runs in
	 * the release and ASan builds. */
#if defined(TEST_TSAN)
	skip();
#endif
	start(64, 0, LLOG_TRACE);
	for (int i = 0; i < 5; i++)
		LOG_DEBUG("parent i=%d", i);
	llog_flush(); /* kept by the flusher: in the ring at the fork */
	before = nseen;
	assert_int_equal(before, 0);
	pid = fork_child();
	if (pid == 0) {
		alarm(60);
		_exit(fork_child_check(before));
	}
	assert_int_equal(child_exit_code(pid), 0);
	LOG_ERROR("parent error");
	llog_flush();
	assert_int_equal(nseen, 6);
	for (int i = 0; i < 5; i++) {
		char want[32];

		snprintf(want, sizeof(want), "parent i=%d", i);
		assert_string_equal(seen[i].msg, want);
		assert_int_equal(seen[i].bt, 1);
	}
	assert_string_equal(seen[5].msg, "parent error");
	stop();
}

/* ---- crashes ------------------------------------------------------------------ */

/* A crashing child must end within this (a hang detector). */
#define CHILD_LIMIT_S 60

/* In the child: a file sink, extra (may be NULL), level INFO, a ring of 64
 * from DEBUG. */
static void child_init(const struct tdir *t, struct llog_sink *extra)
{
	struct llog_config cfg = {.level = LLOG_INFO, .flush_interval_ms = 10,
				  .backtrace_records = 64, .backtrace_level = LLOG_DEBUG};
	struct llog_file_options fo = {.path = t->log};

	if (llog_add_sink(llog_file_sink(&fo)) != 0)
		_exit(92);
	if (extra != NULL && llog_add_sink(extra) != 0)
		_exit(93);
	if (llog_init(&cfg) != 0)
		_exit(94);
}

/* The file holds, in order: `before` (when not NULL), the 64 backtrace
 * lines "debug i=936".."debug i=999" and nothing else of the 1,000, then
 * the crash record naming SIGSEGV, last. */
static void check_crash_file(const struct tdir *t, const char *before)
{
	char *s = read_zstdcat(t);
	const char *p;
	char want[64];

	assert_non_null(s);
	p = s;
	if (before != NULL) {
		p = strstr(p, before);
		assert_non_null(p);
	}
	assert_null(strstr(s, "debug i=935 "));
	assert_null(strstr(s, "debug i=935\n"));
	for (int i = 1000 - 64; i < 1000; i++) {
		const char *q;

		snprintf(want, sizeof(want), " [backtrace] debug i=%d\n", i);
		q = strstr(p, want);
		if (q == NULL)
			fprintf(stderr, "missing or out of order: %s", want + 1);
		assert_non_null(q);
		/* exactly once */
		assert_null(strstr(q + 1, want));
		p = q + strlen(want);
	}
	p = strstr(p, "FATAL");
	assert_non_null(p);
	assert_non_null(strstr(p, "SIGSEGV"));
	assert_null(strstr(p, "debug i="));
	free(s);
}

/* child, run in a fresh directory, dies of SIGSEGV and leaves the file
 * check_crash_file expects. */
static void crash_case(void (*child)(const struct tdir *), const char *before)
{
	struct tdir t;

	tdir_make(&t, "llog_bt_");
	run_crashing_child(&t, child, CHILD_LIMIT_S);
	check_crash_file(&t, before);
	tdir_remove(&t);
}

static void app_crash_child(const struct tdir *t)
{
	child_init(t, NULL);
	for (int i = 0; i < 1000; i++)
		LOG_DEBUG("debug i=%d", i);
	store_null();
}

/* An application thread crashes: its crash record (FATAL) is written after
 * the backtrace. */
static void test_crash_writes_backtrace(void **state)
{
	(void)state;
	crash_case(app_crash_child, NULL);
}

/* Records with context and fields, half kept by the flusher before the
 * crash, half by the crash drain: the file has the last 64 with their
 * fields. */
static void fields_crash_child(const struct tdir *t)
{
	child_init(t, NULL);
	if (llog_ctx_set("req", 7) != 0)
		_exit(95);
	for (int i = 0; i < 100; i++) {
		LOG_DEBUG_KV(("i", i), "kv debug");
		if (i == 49)
			llog_flush();
	}
	store_null();
}

static void test_crash_backtrace_fields(void **state)
{
	struct tdir t;
	char want[64];
	char *s;
	const char *p;

	(void)state;
	tdir_make(&t, "llog_bt_");
	run_crashing_child(&t, fields_crash_child, CHILD_LIMIT_S);
	s = read_zstdcat(&t);
	assert_non_null(s);
	assert_null(strstr(s, " i=35\n"));
	p = s;
	for (int i = 100 - 64; i < 100; i++) {
		snprintf(want, sizeof(want), " [backtrace] kv debug\treq=7 i=%d\n", i);
		p = strstr(p, want);
		if (p == NULL)
			fprintf(stderr, "missing or out of order: %s", want + 1);
		assert_non_null(p);
	}
	assert_non_null(strstr(p, "SIGSEGV"));
	free(s);
	tdir_remove(&t);
}

/* A callback sink that faults on the entry "boom" (on the flusher). */
static void faulting_entry(void *user, const struct llog_entry *e)
{
	(void)user;
	if (e->msg_len == 4 && memcmp(e->msg, "boom", 4) == 0)
		store_null();
}

static void flusher_crash_child(const struct tdir *t)
{
	struct llog_callback_options cb = {.on_entry = faulting_entry};

	child_init(t, llog_callback_sink(&cb));
	for (int i = 0; i < 1000; i++)
		LOG_DEBUG("debug i=%d", i);
	LOG_INFO("boom");
	for (;;)
		pause();
}

/* The flusher itself crashes (in a sink, on an INFO record: no trigger):
 * its drain writes the backtrace before the crash record. */
static void test_flusher_crash_writes_backtrace(void **state)
{
	(void)state;
	crash_case(flusher_crash_child, "boom");
}

/* Categories with the backtrace: each site's output
 * level is its category's, and what is kept is what lies below it, down
 * to the backtrace level; a spec set at run time moves both at the
 * sites' next calls. */
static void test_categories_and_backtrace(void **state)
{
	static const struct {
		const char *msg;
		int bt;
	} want1[] = {
		{"default debug 0", 1}, {"net trace 0", 0}, /* below DEBUG: not captured */
		{"net debug 0", 0},     {"db debug 0", 1},
		{"db info 0", 1},       {"error 0", 0},
	};
	size_t base;

	(void)state;
	start(64, 0, LLOG_ERROR);
	assert_int_equal(llog_set_levels("info,net=debug,db=warn"), 0);
	base = 0;
	for (int round = 0; round < 2; round++) {
		LOG_DEBUG("default debug %d", round);
		LOG_TRACE_CAT("net", "net trace %d", round);
		LOG_DEBUG_CAT("net", "net debug %d", round);
		LOG_DEBUG_CAT("db.pool", "db debug %d", round);
		LOG_INFO_CAT("db.pool", "db info %d", round);
		LOG_ERROR("error %d", round);
		llog_flush();
		if (round == 0) {
			/* The change record, then the round's entries in the
			 * order the flusher wrote them: net's DEBUG at once,
			 * then the kept ones before the ERROR. */
			static const char *const order[] = {"net debug 0", "default debug 0",
							    "db debug 0", "db info 0", "error 0"};

			assert_non_null(strstr(seen[0].msg, "levels changed"));
			assert_int_equal(nseen, 1 + 5);
			for (size_t i = 0; i < 5; i++) {
				const char *m = seen[1 + i].msg;
				int bt = -1;

				assert_string_equal(m, order[i]);
				for (size_t k = 0; k < sizeof(want1) / sizeof(want1[0]); k++)
					if (strcmp(want1[k].msg, m) == 0)
						bt = want1[k].bt;
				assert_int_equal(seen[1 + i].bt, bt);
				/* a kept entry keeps its category, as a written one */
				if (strncmp(m, "db ", 3) == 0) {
					assert_non_null(strstr(seen[1 + i].json,
							       "\"category\":\"db.pool\""));
					assert_non_null(strstr(seen[1 + i].text, " db.pool "));
				}
				if (strncmp(m, "net ", 4) == 0)
					assert_non_null(strstr(seen[1 + i].json,
							       "\"category\":\"net\""));
			}
			/* Now db at debug: its DEBUG and INFO are written, net's
			 * DEBUG is kept (net=info), the default's too. */
			assert_int_equal(llog_set_levels("info,net=info,db=debug"), 0);
			base = nseen;
		}
	}
	{
		static const struct {
			const char *msg;
			int bt;
		} want2[] = {{"db debug 1", 0}, {"db info 1", 0}, {"default debug 1", 1},
			     {"net debug 1", 1}, {"error 1", 0}};

		assert_non_null(strstr(seen[base].msg, "levels changed"));
		assert_int_equal(nseen, base + 1 + 5);
		for (size_t i = 0; i < 5; i++) {
			assert_string_equal(seen[base + 1 + i].msg, want2[i].msg);
			assert_int_equal(seen[base + 1 + i].bt, want2[i].bt);
		}
	}
	stop();
}

/* ---- fields and context ------------------------------------------------------ */

/* The same call sites in both rounds of test_fields_and_context: context
 * "req" and "user" (set by the caller), call fields, a call field that
 * overrides the context's "user", and a record with no fields of its own. */
static void field_steps(void)
{
	for (int i = 0; i < 3; i++)
		LOG_DEBUG_KV(("n", i, "path", "/a b"), "step %d", i);
	LOG_DEBUG_KV(("user", "bob"), "as bob");
	LOG_DEBUG("no fields of its own");
}

/* s after its timestamp (the first space), with "[backtrace] " and
 * "\"backtrace\":true," taken out, and "seq" and "ts" dropped from JSON. */
static void strip_bt(const char *s, char *out, size_t cap)
{
	const char *p = strchr(s, ' ');
	size_t n = 0;

	if (s[0] == '{') /* JSON: from "level" on */
		p = strstr(s, "\"level\"");
	assert_non_null(p);
	while (*p != '\0' && n + 1 < cap) {
		if (strncmp(p, "[backtrace] ", 12) == 0) {
			p += 12;
			continue;
		}
		if (strncmp(p, "\"backtrace\":true,", 17) == 0) {
			p += 17;
			continue;
		}
		out[n++] = *p++;
	}
	out[n] = '\0';
}

/* A kept record carries the fields and context it was logged with: its
 * text and JSON lines are those of the same record written at once (but
 * for the time and the backtrace marks), the context as it was at the
 * call, not as it is when the trigger comes. */
static void test_fields_and_context(void **state)
{
	char a[640], b[640];

	(void)state;
	start(64, 0, LLOG_ERROR);
	assert_int_equal(llog_ctx_set("req", (int64_t)42), 0);
	assert_int_equal(llog_ctx_set("user", "alice"), 0);
	field_steps();
	assert_int_equal(llog_ctx_clear(), 0);
	LOG_ERROR("trigger");
	llog_flush();
	assert_int_equal(nseen, 5 + 1);
	for (size_t k = 0; k < 5; k++)
		assert_int_equal(seen[k].bt, 1);
	assert_non_null(strstr(seen[0].text, "step 0\treq=42 user=\"alice\" n=0 path=\"/a b\"\n"));
	assert_non_null(strstr(seen[3].text, "as bob\treq=42 user=\"bob\"\n"));
	assert_non_null(strstr(seen[4].text, "no fields of its own\treq=42 user=\"alice\"\n"));
	assert_null(strstr(seen[5].text, "req="));

	/* The same calls written at once, with the same context. */
	llog_set_level(LLOG_DEBUG);
	assert_int_equal(llog_ctx_set("req", (int64_t)42), 0);
	assert_int_equal(llog_ctx_set("user", "alice"), 0);
	field_steps();
	assert_int_equal(llog_ctx_clear(), 0);
	llog_flush();
	assert_int_equal(nseen, 6 + 5);
	for (size_t k = 0; k < 5; k++) {
		assert_int_equal(seen[6 + k].bt, 0);
		strip_bt(seen[k].text, a, sizeof(a));
		strip_bt(seen[6 + k].text, b, sizeof(b));
		assert_string_equal(a, b);
		strip_bt(seen[k].json, a, sizeof(a));
		strip_bt(seen[6 + k].json, b, sizeof(b));
		assert_string_equal(a, b);
	}
	stop();
}

/* ---- the backtrace on demand ------------------------------------------------- */

/* llog_backtrace_dump writes what the ring holds now, marked and in order,
 * in every sink (a callback's text and JSON lines, a zstd file, RFC 5424
 * over UDP), before it returns; the ring is then empty. Refused where it
 * cannot be done. */
static void test_dump_on_demand(void **state)
{
	struct llog_callback_options o = {.on_entry = on_entry, .level = LLOG_TRACE};
	struct llog_config cfg = {.level = LLOG_INFO, .flush_interval_ms = 10,
				  .backtrace_records = 64, .backtrace_level = LLOG_DEBUG};
	struct llog_syslog_options so = {.app_name = "bt"};
	struct sockaddr_in ua = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	struct timeval tv = {5, 0};
	socklen_t l = sizeof(ua);
	char url[64], want[64], dg[4096];
	struct llog_file_options fo;
	struct delta d;
	struct tdir t;
	const char *p;
	char *file;
	int ufd;

	(void)state;
	tdir_make(&t, "llog_bt_dump_");
	fo = (struct llog_file_options){.path = t.log};
	ufd = socket(AF_INET, SOCK_DGRAM, 0);
	assert_true(ufd >= 0);
	assert_int_equal(bind(ufd, (struct sockaddr *)&ua, sizeof(ua)), 0);
	assert_int_equal(getsockname(ufd, (struct sockaddr *)&ua, &l), 0);
	setsockopt(ufd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	snprintf(url, sizeof(url), "udp://127.0.0.1:%d", ntohs(ua.sin_port));
	so.url = url;
	seen = calloc(MAXE, sizeof(*seen));
	assert_non_null(seen);
	nseen = 0;
	assert_int_equal(llog_add_sink(llog_callback_sink(&o)), 0);
	assert_int_equal(llog_add_sink(llog_file_sink(&fo)), 0);
	assert_int_equal(llog_add_sink(llog_syslog_sink(&so)), 0);
	assert_int_equal(llog_init(&cfg), 0);
	llog_get_stats(&stats0);

	for (int i = 0; i < 5; i++)
		LOG_DEBUG("dump i=%d", i);
	LOG_INFO("info");
	assert_int_equal(llog_backtrace_dump(), 0);
	/* written before it returned: no llog_flush */
	assert_int_equal(nseen, 1 + 5);
	assert_string_equal(seen[0].msg, "info");
	assert_int_equal(seen[0].bt, 0);
	for (int k = 0; k < 5; k++) {
		snprintf(want, sizeof(want), " [backtrace] dump i=%d\n", k);
		assert_int_equal(seen[1 + k].bt, 1);
		assert_true(ends_with(seen[1 + k].text, want));
		assert_non_null(strstr(seen[1 + k].json, ",\"backtrace\":true,\"msg\":\"dump i="));
	}
	d = deltas();
	assert_int_equal(d.captured, 5);
	assert_int_equal(d.bt_written, 5);
	assert_int_equal(d.discarded, 0);
	/* The ring is empty: a second dump writes nothing, an ERROR comes
	 * alone. */
	assert_int_equal(llog_backtrace_dump(), 0);
	LOG_ERROR("error");
	llog_flush();
	assert_int_equal(nseen, 7);
	assert_string_equal(seen[6].msg, "error");
	/* From a sink's callback (the flusher thread): refused. */
	LOG_WARN("dump from a sink!");
	llog_flush();
	assert_int_equal(dump_in_sink, -EDEADLK);
	llog_shutdown();
	assert_int_equal(llog_backtrace_dump(), -ESRCH);

	/* The file: info, the five marked in order, error. */
	file = read_zstdcat(&t);
	assert_non_null(file);
	p = strstr(file, " info\n");
	assert_non_null(p);
	for (int k = 0; k < 5; k++) {
		snprintf(want, sizeof(want), " [backtrace] dump i=%d\n", k);
		p = strstr(p, want);
		assert_non_null(p);
	}
	assert_non_null(strstr(p, " error\n"));
	free(file);
	/* Over UDP: info, then the five with backtrace="1". */
	assert_true(recv(ufd, dg, sizeof(dg) - 1, 0) > 0);
	for (int k = 0; k < 5; k++) {
		ssize_t n = recv(ufd, dg, sizeof(dg) - 1, 0);

		assert_true(n > 0);
		dg[n] = '\0';
		snprintf(want, sizeof(want), "] dump i=%d", k);
		assert_non_null(strstr(dg, want));
		assert_non_null(strstr(dg, " backtrace=\"1\""));
	}
	close(ufd);
	tdir_remove(&t);
	free(seen);
	seen = NULL;

	/* With the backtrace off: -ENOENT. */
	start(0, 0, LLOG_TRACE);
	assert_int_equal(llog_backtrace_dump(), -ENOENT);
	stop();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_last_64_before_error, teardown),
		cmocka_unit_test_teardown(test_trigger_and_runtime_level, teardown),
		cmocka_unit_test_teardown(test_categories_and_backtrace, teardown),
		cmocka_unit_test_teardown(test_fields_and_context, teardown),
		cmocka_unit_test_teardown(test_dump_on_demand, teardown),
		cmocka_unit_test_teardown(test_arguments_evaluated, teardown),
		cmocka_unit_test_teardown(test_threads_last_64, teardown),
		cmocka_unit_test_teardown(test_bytes_bound, teardown),
		cmocka_unit_test_teardown(test_memory_bounded, teardown),
		cmocka_unit_test_teardown(test_rate_limited_site_kept, teardown),
		cmocka_unit_test_teardown(test_fork_child_drops_parent_ring, teardown),
		cmocka_unit_test_teardown(test_crash_writes_backtrace, teardown),
		cmocka_unit_test_teardown(test_flusher_crash_writes_backtrace, teardown),
		cmocka_unit_test_teardown(test_crash_backtrace_fields, teardown),
	};

	unsetenv("LLOG_LEVEL");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
