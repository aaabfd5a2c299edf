/*
 * test_ratelimit.c - rate-limited call sites (LLOG_LOG_EVERY_N and
 * friends, llog.h): exact counts across threads, the shutdown line, the
 * interval bounds read from the records' own timestamps, arguments of
 * suppressed calls never evaluated, llog_stats.suppressed, the text and
 * JSON renderings.
 *
 * Every test logs through one site into a callback sink that keeps, per
 * entry, the line, the message, the time and the suppressed count; the
 * site's records and its shutdown line (same line, llog's message) are
 * told apart by the message.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "llog.h"
#include "llog/sinks.h"
#include "testutil.h"

#define FINAL_MSG "llog: records suppressed by the rate limit since the last record"
#define MAXE 200000

struct got {
	int line;
	int final; /* the site's shutdown line */
	int64_t ts;
	uint64_t suppressed;
};

static struct got *seen;
static size_t nseen;
static uint64_t evaluated; /* arguments evaluated (atomic) */

/* Flusher thread only; read after llog_shutdown (its join orders it). */
static void on_entry(void *user, const struct llog_entry *e)
{
	(void)user;
	if (nseen == MAXE)
		abort();
	seen[nseen].line = e->line;
	seen[nseen].final = e->msg_len == strlen(FINAL_MSG) &&
			    memcmp(e->msg, FINAL_MSG, e->msg_len) == 0;
	seen[nseen].ts = e->ts_ns;
	seen[nseen].suppressed = e->suppressed;
	nseen++;
}

/* The argument expression: counts its evaluations. */
static int arg(void)
{
	return (int)__atomic_add_fetch(&evaluated, 1, __ATOMIC_RELAXED);
}

static uint64_t stats_suppressed(void)
{
	struct llog_stats st;

	llog_get_stats(&st);
	return st.suppressed;
}

static void start(void)
{
	struct llog_callback_options o = {.on_entry = on_entry, .user = NULL,
					  .level = LLOG_TRACE};
	struct llog_config cfg = {.flush_interval_ms = 10};
	struct llog_sink *sink = llog_callback_sink(&o);

	seen = calloc(MAXE, sizeof(*seen));
	assert_non_null(seen);
	nseen = 0;
	evaluated = 0;
	llog_set_level(LLOG_TRACE);
	assert_non_null(sink);
	assert_int_equal(llog_add_sink(sink), 0);
	assert_int_equal(llog_init(&cfg), 0);
}

/* Totals of one site's entries: records, the counts they carried, the
 * shutdown lines and their counts. */
struct totals {
	uint64_t records, rec_sup, finals, final_sup;
};

static struct totals totals(int line)
{
	struct totals t = {0, 0, 0, 0};

	for (size_t i = 0; i < nseen; i++) {
		if (seen[i].line != line)
			continue;
		if (seen[i].final) {
			t.finals++;
			t.final_sup += seen[i].suppressed;
		} else {
			t.records++;
			t.rec_sup += seen[i].suppressed;
		}
	}
	return t;
}

static void run_counting_threads(void *(*fn)(void *), int n, long *calls)
{
	pthread_t th[8];

	for (int i = 0; i < n; i++)
		assert_int_equal(pthread_create(&th[i], NULL, fn, &calls[i]), 0);
	for (int i = 0; i < n; i++)
		assert_int_equal(pthread_join(th[i], NULL), 0);
}

/* ---- EVERY_N ---------------------------------------------------------- */

static int every_n_line;

static void *every_n_thread(void *p)
{
	long *calls = p;

	for (long i = 0; i < 100000; i++) {
		__atomic_store_n(&every_n_line, __LINE__ + 1, __ATOMIC_RELAXED);
		LOG_INFO_EVERY_N(1000, "every n %d", arg());
		(*calls)++;
	}
	return NULL;
}

static void test_every_n_8_threads(void **state)
{
	long calls[8] = {0};
	uint64_t st0 = stats_suppressed();
	struct totals t;

	(void)state;
	start();
	run_counting_threads(every_n_thread, 8, calls);
	llog_shutdown();
	t = totals(every_n_line);
	assert_int_equal(t.records, 800);
	assert_int_equal(evaluated, 800);
	/* 799 records after the first report 999 each, the shutdown line
	 * the 999 after the last record. */
	assert_int_equal(t.rec_sup + t.final_sup, 800000 - 800);
	assert_int_equal(t.finals, 1);
	assert_int_equal(t.final_sup, 999);
	assert_int_equal(stats_suppressed() - st0, 799200);
	free(seen);
}

/* ---- FIRST_N ---------------------------------------------------------- */

static int first_n_line;

static void *first_n_thread(void *p)
{
	long *calls = p;

	for (long i = 0; i < 10000; i++) {
		__atomic_store_n(&first_n_line, __LINE__ + 1, __ATOMIC_RELAXED);
		LOG_WARN_FIRST_N(100, "first n %d", arg());
		(*calls)++;
	}
	return NULL;
}

static void test_first_n_8_threads(void **state)
{
	long calls[8] = {0};
	uint64_t st0 = stats_suppressed();
	struct totals t;

	(void)state;
	start();
	run_counting_threads(first_n_thread, 8, calls);
	llog_shutdown();
	t = totals(first_n_line);
	assert_int_equal(t.records, 100);
	assert_int_equal(evaluated, 100);
	assert_int_equal(t.rec_sup, 0);
	assert_int_equal(t.finals, 1);
	assert_int_equal(t.final_sup, 80000 - 100);
	assert_int_equal(stats_suppressed() - st0, 80000 - 100);
	free(seen);
}

/* ---- EVERY_MS and N_PER_MS -------------------------------------------- */

#define RUN_NS 700000000 /* each interval test logs for about 0.7 s: 14 intervals, 7 windows */
#define EVERY_MS 50
#define PER_N 5
#define PER_MS 100

static int every_ms_line, n_per_ms_line;
static int64_t t_end;

static void *every_ms_thread(void *p)
{
	long *calls = p;

	while (now_ns() < t_end) {
		__atomic_store_n(&every_ms_line, __LINE__ + 1, __ATOMIC_RELAXED);
		LOG_INFO_EVERY_MS(EVERY_MS, "every ms %d", arg());
		(*calls)++;
	}
	return NULL;
}

static void *n_per_ms_thread(void *p)
{
	long *calls = p;

	while (now_ns() < t_end) {
		__atomic_store_n(&n_per_ms_line, __LINE__ + 1, __ATOMIC_RELAXED);
		LOG_N_PER_MS(LLOG_ERROR, PER_N, PER_MS, "n per ms %d", arg());
		(*calls)++;
	}
	return NULL;
}

static long sum(const long *calls, int n)
{
	long s = 0;

	for (int i = 0; i < n; i++)
		s += calls[i];
	return s;
}

static void test_every_ms(void **state)
{
	long calls[4] = {0};
	uint64_t st0 = stats_suppressed();
	struct totals t;
	int64_t prev = -1;

	(void)state;
	start();
	t_end = now_ns() + RUN_NS;
	run_counting_threads(every_ms_thread, 4, calls);
	llog_shutdown();
	t = totals(every_ms_line);
	/* The records' own times (the times the limiter let them through)
	 * are at least the interval apart. */
	for (size_t i = 0; i < nseen; i++) {
		if (seen[i].line != every_ms_line || seen[i].final)
			continue;
		if (prev >= 0 && seen[i].ts - prev < (int64_t)EVERY_MS * 1000000)
			fail_msg("records %lld ns apart", (long long)(seen[i].ts - prev));
		prev = seen[i].ts;
	}
	assert_true(t.records >= 2);
	assert_int_equal(evaluated, t.records);
	assert_int_equal(t.records + t.rec_sup + t.final_sup, (uint64_t)sum(calls, 4));
	assert_int_equal(stats_suppressed() - st0, t.rec_sup + t.final_sup);
	free(seen);
}

static void test_n_per_ms(void **state)
{
	long calls[4] = {0};
	uint64_t st0 = stats_suppressed();
	struct totals t;
	int64_t iv = (int64_t)PER_MS * 1000000, first = -1, last = -1;
	size_t idx[4096], m = 0;

	(void)state;
	start();
	t_end = now_ns() + RUN_NS;
	run_counting_threads(n_per_ms_thread, 4, calls);
	llog_shutdown();
	t = totals(n_per_ms_line);
	for (size_t i = 0; i < nseen; i++)
		if (seen[i].line == n_per_ms_line && !seen[i].final) {
			assert_true(m < 4096);
			idx[m++] = i;
		}
	assert_int_equal(m, t.records);
	assert_true(m > PER_N); /* more than one window */
	first = seen[idx[0]].ts;
	last = seen[idx[m - 1]].ts;
	/* Windows open at least an interval apart and hold at most n each:
	 * at most n * (windows that fit) records in all, and a span of one
	 * interval (which meets at most two windows) holds at most 2n. */
	assert_true(m <= (uint64_t)PER_N * (uint64_t)((last - first) / iv + 1));
	for (size_t a = 0, b = 0; a < m; a++) {
		while (b < m && seen[idx[b]].ts - seen[idx[a]].ts < iv)
			b++;
		assert_true(b - a <= 2 * PER_N);
	}
	assert_int_equal(evaluated, t.records);
	assert_int_equal(t.records + t.rec_sup + t.final_sup, (uint64_t)sum(calls, 4));
	assert_int_equal(stats_suppressed() - st0, t.rec_sup + t.final_sup);
	free(seen);
}

/* ---- the level comes first -------------------------------------------- */

static int below_line;

/* A call below the level touches no rate-limit state: after 5 of them
 * the site's first call at the level is still its call 0, emitted. */
static void test_below_level_touches_nothing(void **state)
{
	struct totals t;

	(void)state;
	start();
	for (int i = 0; i < 6; i++) {
		llog_set_level(i < 5 ? LLOG_WARN : LLOG_INFO);
		below_line = __LINE__ + 1;
		LOG_EVERY_N(LLOG_INFO, 3, "below %d", arg());
	}
	llog_shutdown();
	llog_set_level(LLOG_TRACE);
	t = totals(below_line);
	assert_int_equal(t.records, 1);
	assert_int_equal(evaluated, 1);
	assert_int_equal(t.finals, 0);
	free(seen);
}

/* ---- renderings ------------------------------------------------------- */

static void test_renderings(void **state)
{
	struct llog_entry e = {
		.seq = 3, .ts_ns = 1000000000, .level = LLOG_INFO, .line = 9, .tid = 77,
		.file = "x.c", .func = "f", .msg = "fine", .msg_len = 4, .thread_name = "",
		.suppressed = 42,
	};
	struct llog_line_options lo = {0};
	char buf[512];
	size_t n;

	(void)state;
	n = llog_format_entry_opts(&e, LLOG_FORMAT_TEXT, &lo, buf, sizeof(buf));
	buf[n] = '\0';
	assert_string_equal(buf,
			    "1970-01-01T00:00:01.000000000Z INFO  [77] x.c:9 fine [42 suppressed]\n");
	n = llog_format_entry_opts(&e, LLOG_FORMAT_JSON, &lo, buf, sizeof(buf));
	buf[n] = '\0';
	assert_string_equal(buf, "{\"seq\":3,\"ts\":\"1970-01-01T00:00:01.000000000Z\","
				 "\"level\":\"INFO\",\"thread\":77,\"thread_name\":\"\","
				 "\"file\":\"x.c\",\"line\":9,\"func\":\"f\",\"suppressed\":42,"
				 "\"msg\":\"fine\"}\n");
	/* No count, nothing shown. */
	e.suppressed = 0;
	n = llog_format_entry_opts(&e, LLOG_FORMAT_TEXT, &lo, buf, sizeof(buf));
	buf[n] = '\0';
	assert_string_equal(buf, "1970-01-01T00:00:01.000000000Z INFO  [77] x.c:9 fine\n");
}

TEST_MAIN(
	cmocka_unit_test(test_every_n_8_threads),
	cmocka_unit_test(test_first_n_8_threads),
	cmocka_unit_test(test_every_ms),
	cmocka_unit_test(test_n_per_ms),
	cmocka_unit_test(test_below_level_touches_nothing),
	cmocka_unit_test(test_renderings),
)
