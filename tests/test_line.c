/*
 * test_line.c - one entry, one line: the text layout, control characters
 * escaped, timestamps equal to gmtime_r's for dates from 1970 to 2219,
 * JSON escaping (RFC 8259) with invalid UTF-8 replaced, every byte alone
 * and the C1 controls in their two-byte UTF-8 forms escaped in text and
 * JSON (valid UTF-8 kept), and cutting at any buffer size still gives one
 * newline-terminated line (JSON stays closed).
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "llog/sinks.h"
#include "fields/cases.h"
#include "testutil.h"

/* The fields' tests' entry (fields/cases.h), without fields. */
static struct llog_entry line_entry(const char *msg, size_t len)
{
	return entry_n(msg, len, NULL, 0);
}

static void test_text_layout(void **state)
{
	char buf[256];
	struct llog_entry e = line_entry("hello world", 11);
	size_t n = llog_format_entry(&e, LLOG_FORMAT_TEXT, buf, sizeof(buf));
	const char *want = "2025-12-03T08:20:00.123456789Z WARN  [1234] server.c:42 hello world\n";

	(void)state;
	assert_int_equal(n, strlen(want));
	assert_memory_equal(buf, want, n);
}

/* A message that looks like one of the line's markers is written so that
 * it cannot be read as one: its own leading "[backtrace] " with the '['
 * as \x5b, its own trailing " [N suppressed]" with the ']' as \x5d; the
 * writer's markers stay literal; look-alikes that are no marker are left
 * as they are. */
static void test_marker_lookalikes_escaped(void **state)
{
	static const struct {
		const char *msg;
		int backtrace;
		uint64_t suppressed;
		const char *tail;
	} cases[] = {
		{"[backtrace] x", 0, 0, "] server.c:42 \\x5bbacktrace] x\n"},
		{"[backtrace] x", 1, 0, "] server.c:42 [backtrace] \\x5bbacktrace] x\n"},
		{"done [5 suppressed]", 0, 0, "] server.c:42 done [5 suppressed\\x5d\n"},
		{"done [5 suppressed]", 0, 3, "] server.c:42 done [5 suppressed\\x5d [3 suppressed]\n"},
		{"x [12 suppressed]", 0, 0, "] server.c:42 x [12 suppressed\\x5d\n"},
		/* the shortest lookalike: 15 bytes (a short message is tested
		 * for clean bytes alone first) */
		{" [5 suppressed]", 0, 0, "] server.c:42  [5 suppressed\\x5d\n"},
		{"[backtrace] [1 suppressed]", 0, 0,
		 "] server.c:42 \\x5bbacktrace] [1 suppressed\\x5d\n"},
		/* not markers: as they are */
		{"[backtrace]x", 0, 0, "] server.c:42 [backtrace]x\n"},
		{"x [backtrace] ", 0, 0, "] server.c:42 x [backtrace] \n"},
		{"done [x suppressed]", 0, 0, "] server.c:42 done [x suppressed]\n"},
		{"done [ suppressed]", 0, 0, "] server.c:42 done [ suppressed]\n"},
		{"done[5 suppressed]", 0, 0, "] server.c:42 done[5 suppressed]\n"},
		{"done [5 suppressed] ", 0, 0, "] server.c:42 done [5 suppressed] \n"},
		{"[5 suppressed]", 0, 0, "] server.c:42 [5 suppressed]\n"}, /* no space */
	};
	struct llog_line_options lo = {.ts_precision = LLOG_TS_NS};
	char buf[256];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct llog_entry e = line_entry(cases[i].msg, strlen(cases[i].msg));
		size_t n, tl = strlen(cases[i].tail);

		e.backtrace = cases[i].backtrace;
		e.suppressed = cases[i].suppressed;
		n = llog_format_entry_opts(&e, LLOG_FORMAT_TEXT, &lo, buf, sizeof(buf) - 1);
		buf[n] = '\0';
		if (n < tl || memcmp(buf + n - tl, cases[i].tail, tl) != 0)
			fprintf(stderr, "case %zu: got %s", i, buf);
		assert_true(n >= tl);
		assert_memory_equal(buf + n - tl, cases[i].tail, tl);
	}
}

static void test_text_escapes_controls(void **state)
{
	char buf[256];
	const char msg[] = "a\nb\rc\td\x1b[31me\x7f\x01";
	struct llog_entry e = line_entry(msg, sizeof(msg) - 1);
	size_t n = llog_format_entry(&e, LLOG_FORMAT_TEXT, buf, sizeof(buf));
	const char *tail = "a\\nb\\rc\\td\\x1b[31me\\x7f\\x01\n";

	(void)state;
	assert_true(n > strlen(tail));
	assert_memory_equal(buf + n - strlen(tail), tail, strlen(tail));
	/* exactly one newline, at the end */
	assert_ptr_equal(memchr(buf, '\n', n), buf + n - 1);
}

/* Reference escaping, byte by byte, written independently of line_escape.c. The
 * messages below hold no byte 0xc2..0xf4, so no valid UTF-8 sequence of
 * two or more bytes: every byte 0x80..0x9f is a stray C1 control (valid
 * UTF-8 and the C1 characters in it: test_every_byte_escaped and
 * test_c1_in_utf8 below). */
static size_t ref_escape(const unsigned char *m, size_t n, char *out)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		if (m[i] == '\n')
			k += (size_t)sprintf(out + k, "\\n");
		else if (m[i] == '\r')
			k += (size_t)sprintf(out + k, "\\r");
		else if (m[i] == '\t')
			k += (size_t)sprintf(out + k, "\\t");
		else if (m[i] == '\\') /* since file format version 2 */
			k += (size_t)sprintf(out + k, "\\\\");
		else if (m[i] < 0x20 || m[i] == 0x7f || (m[i] >= 0x80 && m[i] <= 0x9f))
			k += (size_t)sprintf(out + k, "\\x%02x", m[i]);
		else
			out[k++] = (char)m[i];
	}
	return k;
}

static void test_text_escaping_random(void **state)
{
	uint64_t x = 0x2545f4914f6cdd1dull;
	unsigned char msg[200];
	char line[1200], want[1000];

	(void)state;
	for (int round = 0; round < 20000; round++) {
		size_t n, k, got, hdr;
		struct llog_entry e;

		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		n = x % sizeof(msg);
		for (size_t i = 0; i < n; i++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			/* mostly printable, some controls, DEL and high bytes */
			msg[i] = (x % 10 == 0) ? (unsigned char)(x >> 8) % 0x20
				 : (x % 10 == 1) ? (unsigned char)(0x7f + (x >> 8) % 3)
				 : (unsigned char)(0x20 + (x >> 8) % 0x5f);
		}
		e = line_entry((const char *)msg, n);
		got = llog_format_entry(&e, LLOG_FORMAT_TEXT, line, sizeof(line));
		k = ref_escape(msg, n, want);
		hdr = got - 1 - k;
		assert_int_equal(line[got - 1], '\n');
		assert_memory_equal(line + hdr, want, k);
		assert_null(memchr(line, '\n', got - 1));
	}
}

static void test_timestamps_match_gmtime(void **state)
{
	uint64_t x = 88172645463325252ull;

	(void)state;
	for (int i = 0; i < 20000; i++) {
		char buf[128], want[64];
		struct tm tm;
		time_t secs;
		int64_t ts;
		struct llog_entry e;

		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		/* 1970 .. 2219 (fits int64 nanoseconds) */
		ts = (int64_t)(x % (250ull * 365 * 86400 * 1000000000ull));
		e = line_entry("m", 1);
		e.ts_ns = ts;
		llog_format_entry(&e, LLOG_FORMAT_TEXT, buf, sizeof(buf));
		secs = (time_t)(ts / 1000000000);
		gmtime_r(&secs, &tm);
		snprintf(want, sizeof(want), "%04d-%02d-%02dT%02d:%02d:%02d.%09lldZ",
			 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
			 tm.tm_min, tm.tm_sec, (long long)(ts % 1000000000));
		assert_memory_equal(buf, want, 30);
	}
}

/* The earliest times an entry can hold: the fraction is the nanoseconds
 * above the second below (floor), whatever the year shows; no overflow. */
static void test_timestamps_earliest(void **state)
{
	static const int64_t ts[] = {INT64_MIN, INT64_MIN + 1, INT64_MIN + 999999998, -1};

	(void)state;
	for (size_t i = 0; i < sizeof(ts) / sizeof(ts[0]); i++) {
		char buf[128], want[16];
		struct llog_entry e = line_entry("m", 1);
		int64_t frac = ts[i] % 1000000000; /* no overflow, unlike ts - 999999999 */

		if (frac < 0)
			frac += 1000000000;
		e.ts_ns = ts[i];
		llog_format_entry(&e, LLOG_FORMAT_TEXT, buf, sizeof(buf));
		snprintf(want, sizeof(want), ".%09lldZ", (long long)frac);
		assert_memory_equal(buf + 19, want, 11);
	}
}

/* The text of ts under the options, after a timestamp of another second
 * (the thread's per-second cache misses) and again right after itself
 * (it hits): both alike; the first into out (LLOG__TS-sized). */
static size_t ts_miss_then_hit(int64_t ts, unsigned flags, enum llog_ts_precision p, char *out)
{
	struct llog_line_options o = {.flags = flags, .ts_precision = p};
	struct llog_entry e = line_entry("m", 1);
	char again[128];
	size_t n, m;

	e.ts_ns = ts > 0 ? ts - 5000000000 : ts + 5000000000;
	llog_format_entry_opts(&e, LLOG_FORMAT_TEXT, &o, out, 128);
	e.ts_ns = ts;
	n = llog_format_entry_opts(&e, LLOG_FORMAT_TEXT, &o, out, 128);
	m = llog_format_entry_opts(&e, LLOG_FORMAT_TEXT, &o, again, sizeof(again));
	assert_int_equal(n, m);
	assert_memory_equal(out, again, n);
	return n;
}

/* A timestamp made from the thread's cached second (the hit: its
 * nanoseconds by a subtraction) is the one made afresh, at every
 * precision, in UTC and local time, at the ends of the int64 range and
 * on both sides of second boundaries; the nanoseconds' nine digits match
 * snprintf's for a walk through a second's range. */
static void test_timestamps_cached_second(void **state)
{
	static const int64_t ts[] = {
		INT64_MIN, INT64_MIN + 1, INT64_MIN + 854775807, INT64_MIN + 854775808,
		INT64_MIN + 999999999, INT64_MIN + 1000000000, -1000000001, -1000000000,
		-999999999, -1, 0, 1, 999999999, 1000000000, 1764750000000000000,
		1764750000999999999, INT64_MAX - 1000000000, INT64_MAX - 854775807,
		INT64_MAX - 854775808, INT64_MAX - 1, INT64_MAX,
	};
	static const enum llog_ts_precision precs[] = {LLOG_TS_NS, LLOG_TS_US, LLOG_TS_MS,
						       LLOG_TS_S};
	struct llog_line_options o = {.ts_precision = LLOG_TS_NS};
	char buf[128], want[16];

	(void)state;
	for (size_t i = 0; i < sizeof(ts) / sizeof(ts[0]); i++)
		for (unsigned local = 0; local <= 1; local++)
			for (size_t k = 0; k < sizeof(precs) / sizeof(precs[0]); k++)
				ts_miss_then_hit(ts[i], local ? LLOG_LINE_LOCAL_TIME : 0, precs[k],
						 buf);
	/* one end of the range right after the other: the cached second
	 * of one is no hit for the other (the differences wrap) */
	for (int k = 0; k < 4; k++) {
		int64_t a = k & 1 ? INT64_MIN : INT64_MAX - 1, b = k & 1 ? INT64_MAX : INT64_MIN;
		struct llog_line_options ok = {.flags = k & 2 ? LLOG_LINE_LOCAL_TIME : 0};
		struct llog_entry e = line_entry("m", 1);
		char fresh[128];
		size_t n = ts_miss_then_hit(b, ok.flags, LLOG_TS_NS, fresh);

		e.ts_ns = a;
		llog_format_entry_opts(&e, LLOG_FORMAT_TEXT, &ok, buf, sizeof(buf));
		e.ts_ns = b;
		assert_int_equal(llog_format_entry_opts(&e, LLOG_FORMAT_TEXT, &ok, buf, sizeof(buf)),
				 n);
		assert_memory_equal(buf, fresh, n);
	}
	/* one second walked in steps that hit every digit's value, the
	 * cache kept from one to the next */
	for (int64_t ns = 0; ns < 1000000000; ns += 1234567) {
		struct llog_entry e = line_entry("m", 1);

		e.ts_ns = 1764750000000000000 + ns;
		llog_format_entry_opts(&e, LLOG_FORMAT_TEXT, &o, buf, sizeof(buf));
		snprintf(want, sizeof(want), ".%09lldZ", (long long)ns);
		assert_memory_equal(buf, "2025-12-03T08:20:00", 19);
		assert_memory_equal(buf + 19, want, 11);
	}
}

static void test_json_escaping(void **state)
{
	char buf[512];
	const char msg[] = "q\"b\\n\nc\x01 \xc3\xa9 bad\xff\xc3 end";
	struct llog_entry e = line_entry(msg, sizeof(msg) - 1);
	size_t n = llog_format_entry(&e, LLOG_FORMAT_JSON, buf, sizeof(buf));
	const char *want =
		"{\"seq\":7,\"ts\":\"2025-12-03T08:20:00.123456789Z\",\"level\":\"WARN\","
		"\"thread\":1234,\"file\":\"server.c\",\"line\":42,\"func\":\"handle\","
		"\"msg\":\"q\\\"b\\\\n\\nc\\u0001 \xc3\xa9 bad\xef\xbf\xbd\xef\xbf\xbd end\"}\n";

	(void)state;
	assert_int_equal(n, strlen(want));
	assert_memory_equal(buf, want, n);
}

static void test_cut_lines_stay_lines(void **state)
{
	char big[3000], buf[4096];

	(void)state;
	memset(big, 'x', sizeof(big));
	big[100] = '\n';
	big[200] = '"';
	for (size_t cap = 1; cap < 400; cap++) {
		for (int f = 0; f <= 1; f++) {
			struct llog_entry e = line_entry(big, sizeof(big));
			size_t n = llog_format_entry(&e, (enum llog_format)f, buf, cap);

			assert_true(n <= cap);
			assert_int_equal(buf[n - 1], '\n');
			assert_null(memchr(buf, '\n', n - 1));
			if (f == 1 && cap > 150)
				assert_memory_equal(buf + n - 3, "\"}\n", 3);
		}
	}
}

/* ---- line options (function, thread name, time zone, precision) ------- */

static size_t fmt_opts(const struct llog_entry *e, enum llog_format f, unsigned flags,
		       enum llog_ts_precision p, char *buf, size_t cap)
{
	struct llog_line_options o = {.flags = flags, .ts_precision = p};

	return llog_format_entry_opts(e, f, &o, buf, cap);
}

static void expect_line(const char *got, size_t n, const char *want)
{
	if (n != strlen(want) || memcmp(got, want, n) != 0)
		fail_msg("got  %.*swant %s", (int)n, got, want);
}

/* e's text line under flags contains part (its length by strlen). */
static void expect_part(const struct llog_entry *e, unsigned flags, const char *part)
{
	char buf[256];
	size_t n = fmt_opts(e, LLOG_FORMAT_TEXT, flags, LLOG_TS_NS, buf, sizeof(buf));

	if (memmem(buf, n, part, strlen(part)) == NULL)
		fail_msg("got  %.*sno   %s", (int)n, buf, part);
}

/* The file name is read from the entry every time: a caller (or a sink on
 * its own thread, whose entries' strings live in its queue) may pass the
 * same buffer with another name in it. The location's text is cached by
 * value (line.c put_location): the same length, line and address with
 * another name must not hit. */
static void test_file_name_buffer_reused(void **state)
{
	static const char *const names[][2] = {
		{"/a/first.c", "] first.c:42 m\n"},
		{"/b/second_one.c", "] second_one.c:42 m\n"},
		{"third.c", "] third.c:42 m\n"},
		{"thirs.c", "] thirs.c:42 m\n"},
	};
	char file[32];
	struct llog_entry e = line_entry("m", 1);

	(void)state;
	e.file = file;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		strcpy(file, names[i][0]);
		expect_part(&e, 0, names[i][1]);
	}
}

/* The function's name likewise, and a name that needs escaping gives the
 * same text from the cache as when it is made. */
static void test_func_buffer_reused(void **state)
{
	char func[32];
	struct llog_entry e = line_entry("m", 1);

	(void)state;
	e.func = func;
	strcpy(func, "alpha");
	expect_part(&e, LLOG_LINE_FUNC, "] server.c:42 alpha() m\n");
	strcpy(func, "alphb");
	expect_part(&e, LLOG_LINE_FUNC, "] server.c:42 alphb() m\n");
	/* without the flag: no function, whatever was cached */
	expect_part(&e, 0, "] server.c:42 m\n");
	e.file = "/d/a\tb.c";
	strcpy(func, "f\n");
	for (int i = 0; i < 2; i++)
		expect_part(&e, LLOG_LINE_FUNC, "[1234] a\\tb.c:42 f\\n() m\n");
	e.line = 43;
	expect_part(&e, LLOG_LINE_FUNC, "] a\\tb.c:43 f\\n() m\n");
}

/* A line cut inside or right after the location is cut the same whether
 * the location's text comes from the cache or is made (every room from
 * 1 byte to the whole line, text with the function). */
static void test_cached_location_cuts_alike(void **state)
{
	char warm[512], cold[512], big[512];
	struct llog_entry a = line_entry("the message", 11), b = line_entry("m", 1);

	(void)state;
	a.file = "/src/a\tlong_file_name.c";
	a.func = "handler\x7f";
	b.file = "/src/other.c";
	for (size_t cap = 1; cap < 160; cap++) {
		size_t nw, nc;

		/* a's text cached, then a at cap */
		fmt_opts(&a, LLOG_FORMAT_TEXT, LLOG_LINE_FUNC, LLOG_TS_NS, big, sizeof(big));
		nw = fmt_opts(&a, LLOG_FORMAT_TEXT, LLOG_LINE_FUNC, LLOG_TS_NS, warm, cap);
		/* b's text cached: a at cap makes its own */
		fmt_opts(&b, LLOG_FORMAT_TEXT, LLOG_LINE_FUNC, LLOG_TS_NS, big, sizeof(big));
		nc = fmt_opts(&a, LLOG_FORMAT_TEXT, LLOG_LINE_FUNC, LLOG_TS_NS, cold, cap);
		assert_int_equal(nw, nc);
		assert_memory_equal(warm, cold, nw);
	}
}

static void test_text_func_and_thread_name(void **state)
{
	static const struct {
		const char *name; /* the entry's thread name, name_len bytes */
		size_t name_len;
		unsigned flags;
		const char *want;
	} cases[] = {
		{"worker-1", 8, LLOG_LINE_FUNC | LLOG_LINE_THREAD_NAME,
		 "2025-12-03T08:20:00.123456789Z WARN  [1234 worker-1] server.c:42 handle() hello "
		 "world\n"},
		{"worker-1", 8, LLOG_LINE_FUNC,
		 "2025-12-03T08:20:00.123456789Z WARN  [1234] server.c:42 handle() hello world\n"},
		{"worker-1", 8, LLOG_LINE_THREAD_NAME,
		 "2025-12-03T08:20:00.123456789Z WARN  [1234 worker-1] server.c:42 hello world\n"},
		/* the zero options and llog_format_entry: the default line */
		{"worker-1", 8, 0,
		 "2025-12-03T08:20:00.123456789Z WARN  [1234] server.c:42 hello world\n"},
		/* no name: the bracket as before; a NULL name counts as none */
		{"", 0, LLOG_LINE_THREAD_NAME,
		 "2025-12-03T08:20:00.123456789Z WARN  [1234] server.c:42 hello world\n"},
		{NULL, 0, LLOG_LINE_THREAD_NAME,
		 "2025-12-03T08:20:00.123456789Z WARN  [1234] server.c:42 hello world\n"},
		/* a name cannot close the bracket or break the line */
		{"a]b\nc d", 7, LLOG_LINE_THREAD_NAME,
		 "2025-12-03T08:20:00.123456789Z WARN  [1234 a\\x5db\\nc d] server.c:42 hello "
		 "world\n"},
	};
	char buf[256];
	struct llog_entry e = line_entry("hello world", 11);

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t n;

		e.thread_name = cases[i].name;
		e.thread_name_len = cases[i].name_len;
		n = fmt_opts(&e, LLOG_FORMAT_TEXT, cases[i].flags, LLOG_TS_NS, buf, sizeof(buf));
		expect_line(buf, n, cases[i].want);
	}
}

static void test_json_func_and_thread_name(void **state)
{
	char buf[512];
	struct llog_entry e = line_entry("hi", 2);
	size_t n;

	(void)state;
	e.thread_name = "w\"1";
	e.thread_name_len = 3;
	n = fmt_opts(&e, LLOG_FORMAT_JSON, 0, LLOG_TS_NS, buf, sizeof(buf));
	expect_line(buf, n, "{\"seq\":7,\"ts\":\"2025-12-03T08:20:00.123456789Z\",\"level\":\"WARN\","
			    "\"thread\":1234,\"thread_name\":\"w\\\"1\",\"file\":\"server.c\","
			    "\"line\":42,\"func\":\"handle\",\"msg\":\"hi\"}\n");
	/* llog_format_entry reads no field past msg_len: no thread_name */
	n = llog_format_entry(&e, LLOG_FORMAT_JSON, buf, sizeof(buf));
	expect_line(buf, n, "{\"seq\":7,\"ts\":\"2025-12-03T08:20:00.123456789Z\",\"level\":\"WARN\","
			    "\"thread\":1234,\"file\":\"server.c\","
			    "\"line\":42,\"func\":\"handle\",\"msg\":\"hi\"}\n");
	/* precision applies to JSON too */
	n = fmt_opts(&e, LLOG_FORMAT_JSON, 0, LLOG_TS_MS, buf, sizeof(buf));
	assert_non_null(memmem(buf, n, "\"ts\":\"2025-12-03T08:20:00.123Z\"", 31));
}

static void test_utc_precisions(void **state)
{
	static const struct {
		enum llog_ts_precision p;
		const char *ts;
	} c[] = {{LLOG_TS_NS, "2025-12-03T08:20:00.123456789Z"},
		 {LLOG_TS_US, "2025-12-03T08:20:00.123456Z"},
		 {LLOG_TS_MS, "2025-12-03T08:20:00.123Z"},
		 {LLOG_TS_S, "2025-12-03T08:20:00Z"}};
	char buf[256], want[256];
	struct llog_entry e = line_entry("m", 1);

	(void)state;
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		size_t n = fmt_opts(&e, LLOG_FORMAT_TEXT, 0, c[i].p, buf, sizeof(buf));

		snprintf(want, sizeof(want), "%s WARN  [1234] server.c:42 m\n", c[i].ts);
		expect_line(buf, n, want);
	}
	/* a fraction is cut, never rounded up into the next second */
	e.ts_ns = 1764750000999999999LL;
	expect_line(buf, fmt_opts(&e, LLOG_FORMAT_TEXT, 0, LLOG_TS_MS, buf, sizeof(buf)),
		    "2025-12-03T08:20:00.999Z WARN  [1234] server.c:42 m\n");
	/* a bad precision is taken as the default */
	expect_line(buf, fmt_opts(&e, LLOG_FORMAT_TEXT, 0, (enum llog_ts_precision)9, buf, sizeof(buf)),
		    "2025-12-03T08:20:00.999999999Z WARN  [1234] server.c:42 m\n");
}

/* In a child (TZ is the process's): the local timestamps of a few zones,
 * written out by hand, and of many instants against localtime_r +
 * strftime. */
static int local_child(void)
{
	static const struct {
		const char *tz;
		int64_t ts;
		enum llog_ts_precision p;
		const char *want;
	} c[] = {
		/* CET in December (+01:00), CEST in July (+02:00) */
		{"CET-1CEST,M3.5.0,M10.5.0/3", 1764750000123456789LL, LLOG_TS_US,
		 "2025-12-03T09:20:00.123456+01:00"},
		{"CET-1CEST,M3.5.0,M10.5.0/3", 1751371200000000001LL, LLOG_TS_NS,
		 "2025-07-01T14:00:00.000000001+02:00"},
		/* a negative offset with minutes, crossing midnight back */
		{"<-0330>3:30", 1764720000987654321LL, LLOG_TS_MS, "2025-12-02T20:30:00.987-03:30"},
		{"UTC0", 1764750000123456789LL, LLOG_TS_S, "2025-12-03T08:20:00+00:00"},
		/* just before a DST switch (2025-03-30 01:00 UTC) and at it */
		{"CET-1CEST,M3.5.0,M10.5.0/3", 1743296399000000000LL, LLOG_TS_S,
		 "2025-03-30T01:59:59+01:00"},
		{"CET-1CEST,M3.5.0,M10.5.0/3", 1743296400000000000LL, LLOG_TS_S,
		 "2025-03-30T03:00:00+02:00"},
	};
	char buf[256], want[256];
	int bad = 0;

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct llog_entry e = line_entry("m", 1);
		size_t n;

		setenv("TZ", c[i].tz, 1);
		tzset();
		e.ts_ns = c[i].ts;
		n = fmt_opts(&e, LLOG_FORMAT_TEXT, LLOG_LINE_LOCAL_TIME, c[i].p, buf, sizeof(buf));
		snprintf(want, sizeof(want), "%s WARN  [1234] server.c:42 m\n", c[i].want);
		if (n != strlen(want) || memcmp(buf, want, n) != 0) {
			fprintf(stderr, "%s: got  %.*swant %s", c[i].tz, (int)n, buf, want);
			bad = 1;
		}
	}
	/* many instants, one zone, against libc (the first second of each
	 * is new to the formatter's cache) */
	setenv("TZ", "America/St_Johns", 1); /* -03:30 / -02:30, when tzdata is there */
	tzset();
	for (int64_t s = 1700000000; s < 1700000000 + 400LL * 86400 * 30; s += 86400 * 7 + 3607) {
		struct llog_entry e = line_entry("m", 1);
		time_t t = (time_t)s;
		struct tm tm;
		char tb[64];
		long off;
		size_t n;

		localtime_r(&t, &tm);
		strftime(tb, sizeof(tb), "%Y-%m-%dT%H:%M:%S", &tm);
		off = tm.tm_gmtoff;
		snprintf(want, sizeof(want), "%s.042%c%02ld:%02ld WARN  [1234] server.c:42 m\n", tb,
			 off < 0 ? '-' : '+', (off < 0 ? -off : off) / 3600,
			 (off < 0 ? -off : off) / 60 % 60);
		e.ts_ns = s * 1000000000 + 42000000;
		n = fmt_opts(&e, LLOG_FORMAT_TEXT, LLOG_LINE_LOCAL_TIME, LLOG_TS_MS, buf, sizeof(buf));
		if (n != strlen(want) || memcmp(buf, want, n) != 0) {
			fprintf(stderr, "got  %.*swant %s", (int)n, buf, want);
			bad = 1;
			break;
		}
	}
	return bad;
}

static void test_local_time(void **state)
{
	pid_t pid;

	(void)state;
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(local_child());
	assert_int_equal(child_exit_code(pid), 0);
}

/* ---- C0 and C1 control characters ---------------------------------------- */

/* The message part of a formatted line: after the entry's fixed prefix. */
static size_t format_msg(enum llog_format f, const char *msg, size_t len, char *out, size_t cap)
{
	struct llog_entry e = {0};
	char line[512];
	size_t n, pre;

	e.seq = 1;
	e.ts_ns = 0;
	e.level = LLOG_INFO;
	e.tid = 1;
	e.file = "f.c";
	e.func = "g";
	e.line = 2;
	e.msg = "";
	e.msg_len = 0;
	/* The prefix is what an empty message leaves, less its tail. */
	pre = llog_format_entry(&e, f, line, sizeof(line)) - (f == LLOG_FORMAT_JSON ? 4 : 1);
	e.msg = msg;
	e.msg_len = len;
	n = llog_format_entry(&e, f, line, sizeof(line));
	assert_true(n > pre);
	assert_int_equal(line[n - 1], '\n');
	if (f == LLOG_FORMAT_JSON) {
		assert_memory_equal(line + pre, "\"", 1);
		assert_memory_equal(line + n - 3, "\"}\n", 3);
		pre++;
		n -= 2;
	}
	n -= 1 + pre;
	assert_true(n < cap);
	memcpy(out, line + pre, n);
	out[n] = '\0';
	return n;
}

/* What each byte alone must become, between 'a' and 'z'. */
static void expect_byte(unsigned b, char *text, char *json)
{
	static const char hex[] = "0123456789abcdef";

	if (b == '\n' || b == '\r' || b == '\t') {
		const char *t = b == '\n' ? "\\n" : b == '\r' ? "\\r" : "\\t";

		sprintf(text, "a%sz", t);
		sprintf(json, "a%sz", t);
	} else if (b < 0x20) {
		sprintf(text, "a\\x%c%cz", hex[b >> 4], hex[b & 15]);
		sprintf(json, "a\\u00%c%cz", hex[b >> 4], hex[b & 15]);
	} else if (b == 0x7f) {
		strcpy(text, "a\\x7fz");
		strcpy(json, "a\x7fz"); /* DEL is no control to RFC 8259 */
	} else if (b >= 0x80 && b <= 0x9f) {
		sprintf(text, "a\\x%c%cz", hex[b >> 4], hex[b & 15]);
		strcpy(json, "a\xef\xbf\xbdz"); /* not UTF-8: U+FFFD */
	} else if (b >= 0xa0) {
		sprintf(text, "a%cz", (char)b); /* a stray byte, no control */
		strcpy(json, "a\xef\xbf\xbdz");
	} else if (b == '"') {
		sprintf(text, "a%cz", (char)b);
		sprintf(json, "a\\%cz", (char)b);
	} else if (b == '\\') { /* "\\" in text since file format version 2 */
		strcpy(text, "a\\\\z");
		strcpy(json, "a\\\\z");
	} else {
		sprintf(text, "a%cz", (char)b);
		sprintf(json, "a%cz", (char)b);
	}
}

/* msg[0..len) is rendered as text and as JSON (both C strings); what
 * names the case in a failure. */
static void expect_text_json(const char *msg, size_t len, const char *text, const char *json,
			     const char *what)
{
	char out[64];

	format_msg(LLOG_FORMAT_TEXT, msg, len, out, sizeof(out));
	if (strcmp(out, text) != 0)
		fail_msg("%s: text \"%s\", want \"%s\"", what, out, text);
	format_msg(LLOG_FORMAT_JSON, msg, len, out, sizeof(out));
	if (strcmp(out, json) != 0)
		fail_msg("%s: json \"%s\", want \"%s\"", what, out, json);
}

/* Every byte at each position of messages of 1 to 48 bytes (the clean
 * runs are found and stored 16 bytes at a time, the last 16 overlapping:
 * the byte in the first vector, in a middle one, in the last one, in the
 * overlap), in text and in JSON: the bytes around it as they are, the
 * byte as it is alone (expect_byte). */
static void test_escape_every_position(void **state)
{
	char msg[64], text[32], json[32], out[512], want[512];

	(void)state;
	for (unsigned b = 0; b <= 0xff; b++) {
		expect_byte(b, text, json);
		for (size_t len = 1; len <= 48; len++) {
			for (size_t pos = 0; pos < len; pos++) {
				for (int f = 0; f <= 1; f++) {
					const char *x = f ? json : text;
					size_t xl = strlen(x) - 2, n; /* less 'a' and 'z' */

					memset(msg, 'm', len);
					msg[pos] = (char)b;
					memset(want, 'm', pos);
					memcpy(want + pos, x + 1, xl);
					memset(want + pos + xl, 'm', len - pos - 1);
					n = format_msg(f ? LLOG_FORMAT_JSON : LLOG_FORMAT_TEXT, msg, len,
						       out, sizeof(out));
					if (n != len - 1 + xl || memcmp(out, want, n) != 0)
						fail_msg("byte 0x%02x at %zu of %zu: \"%s\"", b, pos,
							 len, out);
				}
			}
		}
	}
}

static void test_every_byte_escaped(void **state)
{
	char msg[4], text[32], json[32], what[16];

	(void)state;
	for (unsigned b = 0; b <= 0xff; b++) {
		msg[0] = 'a';
		msg[1] = (char)b;
		msg[2] = 'z';
		expect_byte(b, text, json);
		snprintf(what, sizeof(what), "byte 0x%02x", b);
		expect_text_json(msg, 3, text, json, what);
	}
}

static void test_c1_in_utf8(void **state)
{
	/* Kept: valid UTF-8 above U+009F, also where its bytes are
	 * 0x80..0x9f (U+00DB is c3 9b, the euro sign e2 82 ac, U+1F600
	 * f0 9f 98 80). */
	static const char *const kept[] = {"\xc2\xa0", "\xc3\x9b", "\xe2\x82\xac",
					   "\xf0\x9f\x98\x80", "\xef\xbf\xbd"};
	char msg[8], out[64], want[32], what[16];

	(void)state;
	for (unsigned c = 0x80; c <= 0x9f; c++) {
		msg[0] = 'a';
		msg[1] = (char)0xc2;
		msg[2] = (char)c;
		msg[3] = 'z';
		snprintf(want, sizeof(want), "a\\u00%02xz", c);
		snprintf(what, sizeof(what), "U+%04X", c);
		expect_text_json(msg, 4, want, want, what);
	}
	for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++) {
		snprintf(msg, sizeof(msg), "a%sz", kept[i]);
		format_msg(LLOG_FORMAT_TEXT, msg, strlen(msg), out, sizeof(out));
		assert_string_equal(out, msg);
		format_msg(LLOG_FORMAT_JSON, msg, strlen(msg), out, sizeof(out));
		assert_string_equal(out, msg);
	}
	/* The 8-bit CSI among ASCII longer than the 8-byte fast path. */
	format_msg(LLOG_FORMAT_TEXT, "0123456789\x9b" "31m0123456789", 24, out, sizeof(out));
	assert_string_equal(out, "0123456789\\x9b31m0123456789");
	format_msg(LLOG_FORMAT_TEXT, "0123456789\xc2\x9b" "31m0123456789", 25, out, sizeof(out));
	assert_string_equal(out, "0123456789\\u009b31m0123456789");
}

TEST_MAIN(
	cmocka_unit_test(test_text_layout),
	cmocka_unit_test(test_file_name_buffer_reused),
	cmocka_unit_test(test_func_buffer_reused),
	cmocka_unit_test(test_cached_location_cuts_alike),
	cmocka_unit_test(test_text_func_and_thread_name),
	cmocka_unit_test(test_json_func_and_thread_name),
	cmocka_unit_test(test_utc_precisions),
	cmocka_unit_test(test_local_time),
	cmocka_unit_test(test_text_escapes_controls),
	cmocka_unit_test(test_marker_lookalikes_escaped),
	cmocka_unit_test(test_text_escaping_random),
	cmocka_unit_test(test_timestamps_match_gmtime),
	cmocka_unit_test(test_json_escaping),
	cmocka_unit_test(test_timestamps_earliest),
	cmocka_unit_test(test_timestamps_cached_second),
	cmocka_unit_test(test_cut_lines_stay_lines),
	cmocka_unit_test(test_every_byte_escaped),
	cmocka_unit_test(test_escape_every_position),
	cmocka_unit_test(test_c1_in_utf8),
)
