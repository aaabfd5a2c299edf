/*
 * test_defects.c - defects found by attack (issue 14), each checked from
 * what reaches the output and the counters:
 *   - levels that are not a record's level (LLOG_OFF, out of range), as a
 *     constant and as a call site made at run time: never logged, never
 *     fatal, never counted;
 *   - a LOG in a signal handler that interrupted a LOG of its own thread:
 *     dropped, counted, and shown by the thread's in-band drop notice;
 *   - C0 and C1 control characters, every byte alone and the two-byte
 *     UTF-8 forms, escaped in text and JSON; valid UTF-8 kept;
 *   - a record up to max_record_bytes (60,000 bytes, escaped to more)
 *     whole in the file (read back by llogcat), the console and JSON; a
 *     longer one cut with the marker and counted once; a line past a
 *     sink's hard limit cut with the marker and counted; the synchronous
 *     path likewise;
 *   - UDP syslog to a closed port: every refused datagram in sink_lost.
 * Scenarios that would abort before their fix run in a child process.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "childproc.h"
#include "llog.h"
#include "llog/sinks.h"
#include "fileformat.h"
#include "memsink.h"
#include "sync.h"

static struct llog_stats stats_now(void)
{
	struct llog_stats s;

	llog_get_stats(&s);
	return s;
}

/* Runs fn in a child process; returns its wait status. */
static int in_child(int (*fn)(void))
{
	pid_t pid;
	int st;

	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		default_actions();
		_exit(fn());
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	return st;
}

/* ---- levels that are not a record's level -------------------------------- */

/* Child: exits 0 when the checks hold, else the number of the failed one
 * (an abort shows as SIGABRT). */
static int levels_child(void)
{
	struct memsink *m = memsink_new(LLOG_TRACE);
	struct llog_stats before, after;
	int evaluated = 0;

	if (memsink_start(m, NULL) != 0)
		return 10;
	before = stats_now();
	LOG(LLOG_OFF, "off %d", ++evaluated);
	LOG(7, "seven %d", ++evaluated);
	LOG(-1, "minus one %d", ++evaluated);
	LOG((enum llog_level)INT_MAX, "max %d", ++evaluated);
	LOG_INFO("kept %d", 1);
	llog_flush();
	after = stats_now();
	if (evaluated != 0)
		return 11; /* compiled out: arguments not evaluated */
	if (m->n != 1 || strcmp(m->e[0].msg, "kept 1") != 0)
		return 12;
	if (after.logged - before.logged != 1 || after.written - before.written != 1 ||
	    after.dropped != before.dropped)
		return 13;
	llog_shutdown();
	return 0;
}

static void test_level_off_constant(void **state)
{
	int st;

	(void)state;
	st = in_child(levels_child);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

/*
 * A call site whose level is a run-time value, as a C++ LOG with a
 * variable level makes it (a static initialised at its first pass): the
 * site LOG would define, passed to llog__log. Levels in range are logged,
 * the others not, and nothing aborts.
 */
static volatile int runtime_levels[] = {LLOG_OFF, LLOG_INFO, 6, 7, -1, LLOG_FATAL + 1,
					LLOG_TRACE, INT_MAX, INT_MIN, LLOG_ERROR, 1000};

static int runtime_child(void)
{
	struct memsink *m = memsink_new(LLOG_TRACE);
	size_t n = sizeof(runtime_levels) / sizeof(runtime_levels[0]), want = 0;
	struct llog_stats before, after;

	if (memsink_start(m, NULL) != 0)
		return 10;
	before = stats_now();
	for (size_t i = 0; i < n; i++) {
		int lvl = runtime_levels[i];
		/* Static, as LOG's: the flusher reads the site later. */
		static struct llog_site sites[sizeof(runtime_levels) / sizeof(runtime_levels[0])];

		sites[i] = (struct llog_site){"runtime %zu", __FILE__, __func__, __LINE__, lvl,
					      0, {0}, NULL, 0};
		llog__log(&sites[i], "runtime %zu", i);
		if (lvl >= LLOG_TRACE && lvl < LLOG_FATAL)
			want++;
	}
	llog_flush();
	after = stats_now();
	if (m->n != want)
		return 11;
	for (size_t i = 0, k = 0; i < n; i++) {
		char text[32];
		int lvl = runtime_levels[i];

		if (lvl < LLOG_TRACE || lvl >= LLOG_FATAL)
			continue;
		snprintf(text, sizeof(text), "runtime %zu", i);
		if (strcmp(m->e[k].msg, text) != 0 || m->e[k].level != lvl)
			return 12;
		k++;
	}
	if (after.logged - before.logged != want || after.written - before.written != want)
		return 13;
	llog_shutdown();
	return 0;
}

static void test_level_runtime(void **state)
{
	int st;

	(void)state;
	/* LLOG_FATAL is left out of the table: it would abort, by design. */
	for (size_t i = 0; i < sizeof(runtime_levels) / sizeof(runtime_levels[0]); i++)
		assert_int_not_equal(runtime_levels[i], LLOG_FATAL);
	st = in_child(runtime_child);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

/* ---- drops in signal handlers ---------------------------------------------- */

/* What the flusher saw of the worker thread (its hook runs on the flusher;
 * read after llog_flush, whose barrier orders it before our reads). */
struct sig_seen {
	uint64_t worker, handler, notices, notice_sum, other;
};

static _Atomic uint64_t handler_calls;
static _Atomic int worker_ready, worker_stop;
/* Stored before the worker's first LOG, whose push publishes it to the
 * flusher. */
static _Atomic uint64_t worker_tid;

static void sig_hook(struct memsink *m, const struct llog_entry *e)
{
	struct sig_seen *s = m->user;
	uint64_t tid = atomic_load(&worker_tid);
	char prefix[64];
	unsigned long long n;
	int len;

	if (e->tid != tid) {
		s->other++;
		return;
	}
	len = snprintf(prefix, sizeof(prefix), "llog: thread %llu dropped ",
		       (unsigned long long)tid);
	if (e->level == LLOG_WARN && e->msg_len > (size_t)len &&
	    memcmp(e->msg, prefix, (size_t)len) == 0) {
		s->notices++;
		n = strtoull(e->msg + len, NULL, 10);
		s->notice_sum += n;
	} else if (e->msg_len > 2 && memcmp(e->msg, "w ", 2) == 0) {
		s->worker++;
	} else if (e->msg_len > 2 && memcmp(e->msg, "h ", 2) == 0) {
		s->handler++;
	} else {
		s->other++;
	}
}

static void log_in_handler(int sig)
{
	int saved = errno;

	(void)sig;
	/* Counted before the call: a LOG call made. */
	LOG_INFO("h %llu", (unsigned long long)atomic_fetch_add(&handler_calls, 1));
	errno = saved;
}

static void *sig_worker(void *arg)
{
	uint64_t *calls = arg;

	atomic_store(&worker_tid, (uint64_t)gettid());
	LOG_INFO("w first"); /* makes the arena outside any handler */
	(*calls)++;
	atomic_store(&worker_ready, 1);
	while (!atomic_load(&worker_stop)) {
		LOG_INFO("w %llu", (unsigned long long)*calls);
		(*calls)++;
	}
	/* Carries what the handlers dropped since its last record. */
	LOG_INFO("w last");
	(*calls)++;
	return NULL;
}

static void test_signal_reentry_notice(void **state)
{
	struct memsink *m = memsink_new(LLOG_TRACE);
	struct sig_seen seen = {0};
	struct sigaction sa = {0}, old;
	struct llog_stats before, after;
	struct llog_config cfg = {.flush_interval_ms = 5};
	uint64_t worker_calls = 0;
	int64_t deadline;
	pthread_t t;

	(void)state;
	m->nostore = 1;
	m->hook = sig_hook;
	m->user = &seen;
	sa.sa_handler = log_in_handler;
	sa.sa_flags = SA_RESTART;
	assert_int_equal(sigaction(SIGUSR1, &sa, &old), 0);
	assert_int_equal(memsink_start(m, &cfg), 0);
	before = stats_now();
	atomic_store(&handler_calls, 0);
	atomic_store(&worker_ready, 0);
	atomic_store(&worker_stop, 0);
	assert_int_equal(pthread_create(&t, NULL, sig_worker, &worker_calls), 0);
	while (!atomic_load(&worker_ready))
		sched_yield();
	/* Signals until enough re-entries were dropped, within a bound (under
	 * TSan, which delays signals to its own safe points, there may be
	 * none; the identity below holds all the same). */
	deadline = (int64_t)time(NULL) + 5;
	while ((int64_t)time(NULL) < deadline) {
		struct llog_stats now;

		for (int i = 0; i < 1000; i++)
			pthread_kill(t, SIGUSR1);
		llog_get_stats(&now);
		if (now.dropped - before.dropped >= 2000)
			break;
	}
	atomic_store(&worker_stop, 1);
	assert_int_equal(pthread_join(t, NULL), 0);
	llog_flush();
	after = stats_now();
	sigaction(SIGUSR1, &old, NULL);
	llog_shutdown();

#ifndef TEST_TSAN
	assert_true(after.dropped - before.dropped > 0);
#endif
	assert_int_equal(seen.other, 0);
	assert_int_equal(seen.worker, worker_calls);
	/* Every handler call is a record or counted in a notice, once. */
	assert_int_equal(seen.handler + seen.notice_sum, atomic_load(&handler_calls));
	assert_int_equal(after.dropped - before.dropped, seen.notice_sum);
	assert_int_equal(after.logged - before.logged,
			 worker_calls + atomic_load(&handler_calls));
	memsink_free(m);
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

static void test_every_byte_escaped(void **state)
{
	char msg[4], out[64], text[32], json[32];

	(void)state;
	for (unsigned b = 0; b <= 0xff; b++) {
		msg[0] = 'a';
		msg[1] = (char)b;
		msg[2] = 'z';
		expect_byte(b, text, json);
		format_msg(LLOG_FORMAT_TEXT, msg, 3, out, sizeof(out));
		if (strcmp(out, text) != 0)
			fail_msg("byte 0x%02x: text \"%s\", want \"%s\"", b, out, text);
		format_msg(LLOG_FORMAT_JSON, msg, 3, out, sizeof(out));
		if (strcmp(out, json) != 0)
			fail_msg("byte 0x%02x: json \"%s\", want \"%s\"", b, out, json);
	}
}

static void test_c1_in_utf8(void **state)
{
	/* Kept: valid UTF-8 above U+009F, also where its bytes are
	 * 0x80..0x9f (U+00DB is c3 9b, the euro sign e2 82 ac, U+1F600
	 * f0 9f 98 80). */
	static const char *const kept[] = {"\xc2\xa0", "\xc3\x9b", "\xe2\x82\xac",
					   "\xf0\x9f\x98\x80", "\xef\xbf\xbd"};
	char msg[8], out[64], want[32];

	(void)state;
	for (unsigned c = 0x80; c <= 0x9f; c++) {
		msg[0] = 'a';
		msg[1] = (char)0xc2;
		msg[2] = (char)c;
		msg[3] = 'z';
		snprintf(want, sizeof(want), "a\\u00%02xz", c);
		format_msg(LLOG_FORMAT_TEXT, msg, 4, out, sizeof(out));
		if (strcmp(out, want) != 0)
			fail_msg("U+%04X: text \"%s\", want \"%s\"", c, out, want);
		format_msg(LLOG_FORMAT_JSON, msg, 4, out, sizeof(out));
		if (strcmp(out, want) != 0)
			fail_msg("U+%04X: json \"%s\", want \"%s\"", c, out, want);
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

/* ---- long records in every text sink ------------------------------------- */

/* The whole of a file (NUL-terminated, malloc'd). */
static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	size_t cap = 1 << 20, n = 0, k;
	char *s = malloc(cap);

	assert_non_null(f);
	assert_non_null(s);
	while ((k = fread(s + n, 1, cap - n - 1, f)) > 0) {
		n += k;
		if (cap - n < 4096) {
			cap *= 2;
			s = realloc(s, cap);
			assert_non_null(s);
		}
	}
	fclose(f);
	s[n] = '\0';
	*len = n;
	return s;
}

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

/* The message as the text line shows it. */
static char *text_escaped(const char *m)
{
	char *o = malloc(strlen(m) * 4 + 1), *p = o;

	assert_non_null(o);
	for (; *m != '\0'; m++) {
		if (*m == '\x01')
			p += sprintf(p, "\\x01");
		else
			*p++ = *m;
	}
	*p = '\0';
	return o;
}

/* The message as a JSON string's content shows it. */
static char *json_escaped(const char *m)
{
	char *o = malloc(strlen(m) * 6 + 1), *p = o;

	assert_non_null(o);
	for (; *m != '\0'; m++) {
		if (*m == '\x01')
			p += sprintf(p, "\\u0001");
		else
			*p++ = *m;
	}
	*p = '\0';
	return o;
}

/* Occurrences of needle in hay. */
static int count_of(const char *hay, const char *needle)
{
	int k = 0;

	for (const char *p = hay; (p = strstr(p, needle)) != NULL; p += strlen(needle))
		k++;
	return k;
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
	tdir_make(&t, "llog_defects_");
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
 * limit): cut by the file sink with the marker, and counted once.
 */
static void test_file_line_cut_marked(void **state)
{
	struct tdir t;
	struct llog_config cfg = {.max_record_bytes = 5u << 20, .arena_bytes = 32u << 20};
	struct llog_file_options fo = {0};
	struct llog_stats before, after;
	char *msg, *out, *nl;

	(void)state;
	tdir_make(&t, "llog_defects_");
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
	assert_int_equal(after.truncated - before.truncated, 1);
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
	tdir_make(&t, "llog_defects_");
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

/* ---- a UDP collector that refuses --------------------------------------- */

/* A UDP port on 127.0.0.1 that nothing listens on: bound, read, closed. */
static int closed_udp_port(void)
{
	struct sockaddr_in a = {.sin_family = AF_INET};
	socklen_t al = sizeof(a);
	int fd = socket(AF_INET, SOCK_DGRAM, 0), port;

	assert_true(fd >= 0);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &al), 0);
	port = ntohs(a.sin_port);
	close(fd);
	return port;
}

/*
 * Every datagram sent to a closed port is answered by an ICMP port
 * unreachable (on loopback, never rate-limited); each is a lost record and
 * counted once in sink_lost, with the error in write_errors. The sink
 * reads its socket's error queue at refused sends, commits that send and
 * close; on loopback the ICMP error is made within the sending system
 * call, so by llog_shutdown every one has arrived. Exactly the number of
 * records, never more.
 */
static void test_udp_refused_counted(void **state)
{
	struct llog_syslog_options so = {0};
	struct llog_config cfg = {.flush_interval_ms = 5};
	struct llog_stats before, now;
	char url[64];
	const int n = 50;

	(void)state;
	snprintf(url, sizeof(url), "udp://127.0.0.1:%d", closed_udp_port());
	so.url = url;
	assert_int_equal(llog_add_sink(llog_syslog_sink(&so)), 0);
	assert_int_equal(llog_init(&cfg), 0);
	llog_get_stats(&before);
	for (int i = 0; i < n; i++) {
		LOG_INFO("refused %d", i);
		if (i % 10 == 9)
			llog_flush(); /* several commits, several datagrams each */
	}
	llog_shutdown();
	llog_get_stats(&now);
	assert_int_equal(now.sink_lost - before.sink_lost, n);
	assert_true(now.write_errors > before.write_errors);
	assert_int_equal(now.written - before.written, n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_level_off_constant),
		cmocka_unit_test(test_level_runtime),
		cmocka_unit_test(test_signal_reentry_notice),
		cmocka_unit_test(test_every_byte_escaped),
		cmocka_unit_test(test_c1_in_utf8),
		cmocka_unit_test(test_long_records_whole),
		cmocka_unit_test(test_file_line_cut_marked),
		cmocka_unit_test(test_sync_long_line),
		cmocka_unit_test(test_udp_refused_counted),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
