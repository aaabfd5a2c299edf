/*
 * test_fields.c - the function and the thread name through every output
 * (the line options): console text with LLOG_LINE_FUNC |
 * LLOG_LINE_THREAD_NAME, console JSON, a callback sink on a thread of its
 * own (the entry copied through its queue), and a compressed file read
 * back with llogcat --func and --local. Two threads log; one renames
 * itself with llog_set_thread_name in the middle: every record before the
 * call carries the old name and every record after it the new one.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "filetest.h"
#include "llog.h"
#include "llog/sinks.h"
#include "testutil.h"

#define N 3000
#define SWITCH 1234 /* the renamed thread's record i=SWITCH is its first "after" */

struct logger {
	const char *first_name;
	int rename;          /* llog_set_thread_name("after") before i == SWITCH */
	uint64_t tid;
	int line;            /* __LINE__ of the LOG in log_loop */
	char tag;
	int other_line;      /* __LINE__ of the LOG in other_fn */
};

/* The first name is shorter than the second: a length kept from the old
 * name would cut the new one. */
static struct logger lg[2] = {{"pre", 1, 0, 0, 'a', 0}, {"other", 0, 0, 0, 'b', 0}};

static void other_fn(struct logger *l)
{
	l->other_line = __LINE__ + 1;
	LOG_WARN("other %c", l->tag);
}

static void log_loop(struct logger *l)
{
	for (int i = 0; i < N; i++) {
		if (l->rename && i == SWITCH)
			assert_int_equal(llog_set_thread_name("after"), 0);
		l->line = __LINE__ + 1;
		LOG_INFO("rec %c i=%d", l->tag, i);
	}
	other_fn(l);
}

static void *logger_main(void *p)
{
	struct logger *l = p;

	/* Before the first LOG: read when the thread's arena is made. */
	pthread_setname_np(pthread_self(), l->first_name);
	l->tid = (uint64_t)syscall(SYS_gettid);
	log_loop(l);
	return NULL;
}

static const char *name_of(const struct logger *l, int i)
{
	return l->rename && i >= SWITCH ? "after" : l->first_name;
}

/* ---- the callback sink, on its own thread ---- */

struct seen {
	long n[2], bad;
	char first_bad[160];
};

static void on_entry(void *user, const struct llog_entry *e)
{
	struct seen *s = user;
	char tag;
	int i, k;

	if (e->msg_len < 8 || sscanf(e->msg, "rec %c i=%d", &tag, &i) != 2)
		return; /* other_fn's */
	k = tag == 'a' ? 0 : 1;
	if (i != s->n[k] || e->thread_name == NULL || strcmp(e->thread_name, name_of(&lg[k], i)) != 0 ||
	    e->thread_name_len != strlen(name_of(&lg[k], i)) || strcmp(e->func, "log_loop") != 0) {
		if (s->bad++ == 0)
			snprintf(s->first_bad, sizeof(s->first_bad), "%c i=%d name=%s func=%s", tag,
				 i, e->thread_name ? e->thread_name : "(null)", e->func);
	}
	s->n[k] = i + 1;
}

/* ---- reading the outputs back ---- */

/* The text line of record i of logger k, after the timestamp. */
static void text_tail(int k, int i, char *out, size_t cap)
{
	snprintf(out, cap, " INFO  [%llu %s] test_fields.c:%d log_loop() rec %c i=%d",
		 (unsigned long long)lg[k].tid, name_of(&lg[k], i), lg[k].line, lg[k].tag, i);
}

/* Every line of logger k's records, in order, exactly once; lines of the
 * other logger and other_fn's are skipped. ts_len: the timestamp's
 * length. */
static void check_text(const char *text, int k, size_t ts_len)
{
	char want[256], tag[16];
	int next = 0;

	snprintf(tag, sizeof(tag), "rec %c i=", lg[k].tag);
	for (const char *l = text; *l != '\0';) {
		const char *nl = strchr(l, '\n');
		size_t len = (size_t)(nl - l);

		assert_non_null(nl);
		if (memmem(l, len, tag, strlen(tag)) != NULL) {
			text_tail(k, next, want, sizeof(want));
			if (len != ts_len + strlen(want) || memcmp(l + ts_len, want, strlen(want)) != 0)
				fail_msg("got  %.*s\nwant ...%s", (int)len, l, want);
			next++;
		}
		l = nl + 1;
	}
	assert_int_equal(next, N);
}

static void check_json(const char *text, int k)
{
	char want[512];
	int next = 0;

	for (const char *l = text; *l != '\0';) {
		const char *nl = strchr(l, '\n');
		size_t len = (size_t)(nl - l);
		char tag[16];

		assert_non_null(nl);
		snprintf(tag, sizeof(tag), "rec %c i=", lg[k].tag);
		if (memmem(l, len, tag, strlen(tag)) != NULL) {
			snprintf(want, sizeof(want),
				 "\"level\":\"INFO\",\"thread\":%llu,\"thread_name\":\"%s\","
				 "\"file\":\"test_fields.c\",\"line\":%d,\"func\":\"log_loop\","
				 "\"msg\":\"rec %c i=%d\"}",
				 (unsigned long long)lg[k].tid, name_of(&lg[k], next),
				 lg[k].line, lg[k].tag, next);
			if (memmem(l, len, want, strlen(want)) == NULL)
				fail_msg("got  %.*s\nwant ...%s", (int)len, l, want);
			next++;
		}
		l = nl + 1;
	}
	assert_int_equal(next, N);
}

static long count_lines(const char *s)
{
	long n = 0;

	for (; *s != '\0'; s++)
		n += *s == '\n';
	return n;
}

/* days since 1970 of a civil date (Howard Hinnant's days_from_civil,
 * written here independently of line_ts.c and reader.c) */
static int64_t days_from_civil(int64_t y, int m, int d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	int64_t yoe = y - era * 400;
	int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;

	return era * 146097 + doe - 719468;
}

/* "YYYY-MM-DDTHH:MM:SS.fffffffffZ" -> the same instant at +05:30. */
static void to_plus0530(const char *utc, char *out, size_t cap)
{
	int y, mo, d, h, mi, s;
	char frac[16];
	struct tm tm;
	time_t t;

	assert_int_equal(sscanf(utc, "%4d-%2d-%2dT%2d:%2d:%2d.%9[0-9]Z", &y, &mo, &d, &h, &mi, &s,
				frac),
			 7);
	t = (time_t)(days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + s + 19800);
	gmtime_r(&t, &tm);
	snprintf(out, cap, "%04d-%02d-%02dT%02d:%02d:%02d.%s+05:30", tm.tm_year + 1900,
		 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, frac);
}

static void check_llogcat(const char *path)
{
	const char *llogcat = getenv("LLOGCAT");
	char cmd[1024], want[512];
	char *all, *out, *local;
	size_t n, nl;
	const char *a, *b;

	if (llogcat == NULL) {
		print_message("LLOGCAT not set: llogcat checks skipped\n");
		return;
	}
	/* every stored line carries the function */
	snprintf(cmd, sizeof(cmd), "'%s' '%s'", llogcat, path);
	all = run_output(cmd, &n);
	check_text(all, 0, 30);
	check_text(all, 1, 30);
	assert_int_equal(count_lines(all), 2 * N + 2);
	/* --func, exact and glob */
	snprintf(cmd, sizeof(cmd), "'%s' --func log_loop '%s'", llogcat, path);
	out = run_output(cmd, &n);
	assert_int_equal(count_lines(out), 2 * N);
	check_text(out, 0, 30);
	free(out);
	snprintf(cmd, sizeof(cmd), "'%s' --func 'log_*' '%s'", llogcat, path);
	out = run_output(cmd, &n);
	assert_int_equal(count_lines(out), 2 * N);
	free(out);
	snprintf(cmd, sizeof(cmd), "'%s' --func other_fn '%s'", llogcat, path);
	out = run_output(cmd, &n);
	assert_int_equal(count_lines(out), 2);
	for (int k = 0; k < 2; k++) {
		snprintf(want, sizeof(want), " WARN  [%llu %s] test_fields.c:%d other_fn() other %c\n",
			 (unsigned long long)lg[k].tid, lg[k].rename ? "after" : lg[k].first_name,
			 lg[k].other_line, lg[k].tag);
		assert_non_null(strstr(out, want));
	}
	free(out);
	snprintf(cmd, sizeof(cmd), "'%s' --func nothing '%s'", llogcat, path);
	out = run_output(cmd, &n);
	assert_int_equal(n, 0);
	free(out);
	/* --local: the same lines, each timestamp at +05:30 */
	snprintf(cmd, sizeof(cmd), "TZ='<+0530>-5:30' '%s' --local '%s'", llogcat, path);
	local = run_output(cmd, &nl);
	for (a = all, b = local; *a != '\0'; a = strchr(a, '\n') + 1, b = strchr(b, '\n') + 1) {
		char ts[64];
		size_t la = (size_t)(strchr(a, '\n') - a);

		assert_non_null(strchr(b, '\n'));
		to_plus0530(a, ts, sizeof(ts));
		if (memcmp(b, ts, strlen(ts)) != 0 ||
		    memcmp(b + strlen(ts), a + 30, la - 30 + 1) != 0)
			fail_msg("--local: %.*s\nfrom       %.*s", (int)(strchr(b, '\n') - b), b,
				 (int)la, a);
	}
	assert_int_equal(*b, '\0');
	free(local);
	free(all);
}

static void test_names_and_functions_everywhere(void **state)
{
	char dir[] = "/tmp/llog_fields_XXXXXX", text[256], json[256], zst[256];
	struct llog_config cfg = {0};
	struct llog_sink_options own = {.thread = LLOG_SINK_THREAD_OWN, .full = LLOG_QUEUE_BLOCK};
	struct seen seen = {{0, 0}, 0, ""};
	struct llog_callback_options cb = {.on_entry = on_entry, .user = &seen};
	struct llog_file_options fo = {0};
	pthread_t th[2];
	char *b;
	size_t n;
	int fd_text, fd_json;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(text, sizeof(text), "%s/text", dir);
	snprintf(json, sizeof(json), "%s/json", dir);
	snprintf(zst, sizeof(zst), "%s/app.log.zst", dir);
	fd_text = open(text, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	fd_json = open(json, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd_text >= 0 && fd_json >= 0);
	cfg.overflow = LLOG_OVERFLOW_BLOCK;
	assert_int_equal(llog_init(&cfg), 0);
	{
		struct llog_console_options co = {
			.fd = fd_text,
			.color = LLOG_COLOR_NEVER,
			.line = {.flags = LLOG_LINE_FUNC | LLOG_LINE_THREAD_NAME}};
		struct llog_console_options cj = {.fd = fd_json, .format = LLOG_FORMAT_JSON};

		assert_int_equal(llog_add_sink(llog_console_sink(&co)), 0);
		assert_int_equal(llog_add_sink(llog_console_sink(&cj)), 0);
	}
	assert_int_equal(llog_add_sink_opts(llog_callback_sink(&cb), &own), 0);
	fo.path = zst;
	fo.line.flags = LLOG_LINE_THREAD_NAME; /* the function is implied */
	assert_int_equal(llog_add_sink(llog_file_sink(&fo)), 0);
	for (int k = 0; k < 2; k++)
		assert_int_equal(pthread_create(&th[k], NULL, logger_main, &lg[k]), 0);
	for (int k = 0; k < 2; k++)
		assert_int_equal(pthread_join(th[k], NULL), 0);
	llog_shutdown();
	close(fd_text);
	close(fd_json);

	if (seen.bad != 0)
		fail_msg("callback: %ld bad entries, first: %s", seen.bad, seen.first_bad);
	assert_int_equal(seen.n[0], N);
	assert_int_equal(seen.n[1], N);
	b = slurp(text, &n);
	check_text(b, 0, 30);
	check_text(b, 1, 30);
	free(b);
	b = slurp(json, &n);
	check_json(b, 0);
	check_json(b, 1);
	free(b);
	check_llogcat(zst);
	unlink(text);
	unlink(json);
	unlink(zst);
	rmdir(dir);
}

/* A name set with pthread_setname_np after the thread's first LOG is not
 * seen (read once); llog_set_thread_name is, and also becomes the system
 * name, cut to 15 bytes at a character boundary. */
static struct {
	char names[4][32];
	int n;
} got;

static void grab(void *user, const struct llog_entry *e)
{
	(void)user;
	if (got.n < 4)
		snprintf(got.names[got.n++], sizeof(got.names[0]), "%s", e->thread_name);
}

/* Starts llog with a callback sink of grab. */
static void start_grab(void)
{
	struct llog_callback_options cb = {.on_entry = grab};

	assert_int_equal(llog_init(NULL), 0);
	assert_int_equal(llog_add_sink(llog_callback_sink(&cb)), 0);
}

static void *renamer(void *p)
{
	char sys[32];

	(void)p;
	pthread_setname_np(pthread_self(), "first");
	LOG_INFO("one");
	pthread_setname_np(pthread_self(), "unseen");
	LOG_INFO("two");
	/* 14 ASCII bytes then a 2-byte character: cut before it */
	assert_int_equal(llog_set_thread_name("abcdefghijklmn\xc3\xa9xyz"), 0);
	LOG_INFO("three");
	pthread_getname_np(pthread_self(), sys, sizeof(sys));
	assert_string_equal(sys, "abcdefghijklmn");
	assert_int_equal(llog_set_thread_name(NULL), -EINVAL);
	assert_int_equal(llog_set_thread_name(""), 0);
	LOG_INFO("four");
	return NULL;
}

static void test_read_once_and_cut(void **state)
{
	pthread_t t;

	(void)state;
	memset(&got, 0, sizeof(got));
	start_grab();
	assert_int_equal(pthread_create(&t, NULL, renamer, NULL), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	llog_shutdown();
	assert_int_equal(got.n, 4);
	assert_string_equal(got.names[0], "first");
	assert_string_equal(got.names[1], "first");
	assert_string_equal(got.names[2], "abcdefghijklmn");
	assert_string_equal(got.names[3], "");
}

/* Renamed while no flusher runs (between llog_shutdown and llog_init): the
 * thread keeps its arena; the name is set directly once the last round
 * released the arena's records, and the next flusher renders it. */
static pthread_barrier_t bar;

static void *closed_renamer(void *p)
{
	(void)p;
	pthread_setname_np(pthread_self(), "open");
	LOG_INFO("one");
	pthread_barrier_wait(&bar); /* main shuts down */
	pthread_barrier_wait(&bar);
	assert_int_equal(llog_set_thread_name("closed"), 0);
	pthread_barrier_wait(&bar); /* main starts llog again */
	pthread_barrier_wait(&bar);
	LOG_INFO("two");
	return NULL;
}

static void test_rename_while_closed(void **state)
{
	pthread_t t;

	(void)state;
	memset(&got, 0, sizeof(got));
	assert_int_equal(pthread_barrier_init(&bar, NULL, 2), 0);
	start_grab();
	assert_int_equal(pthread_create(&t, NULL, closed_renamer, NULL), 0);
	pthread_barrier_wait(&bar);
	llog_shutdown();
	pthread_barrier_wait(&bar);
	pthread_barrier_wait(&bar);
	start_grab();
	pthread_barrier_wait(&bar);
	assert_int_equal(pthread_join(t, NULL), 0);
	llog_shutdown();
	pthread_barrier_destroy(&bar);
	assert_int_equal(got.n, 2);
	assert_string_equal(got.names[0], "open");
	assert_string_equal(got.names[1], "closed");
}

/* The syslog sink's structured data carries func, escaped per RFC 5424
 * (6.3.3: '"', '\\' and ']'), as file is; one datagram on a unix socket. */
static void test_syslog_func_escaped(void **state)
{
	char path[] = "/tmp/llog_fields_sockXXXXXX", url[128], got_msg[512], want[512];
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct llog_syslog_options so = {.app_name = "app", .hostname = "host"};
	struct llog_entry e = {
		.seq = 1, .ts_ns = 1000000000LL + 123456789, .level = LLOG_INFO, .line = 9,
		.tid = 77, .file = "/x/f\"]\\.c", .func = "a\"b\\c]d", .msg = "hello",
		.msg_len = 5, .thread_name = "t", .thread_name_len = 1,
	};
	struct llog_sink *sk;
	int fd, tmp;
	ssize_t n;

	(void)state;
	tmp = mkstemp(path);
	assert_true(tmp >= 0);
	close(tmp);
	unlink(path);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	snprintf(url, sizeof(url), "unix:%s", path);
	so.url = url;
	sk = llog_syslog_sink(&so);
	assert_non_null(sk);
	assert_true(sk->ops->write(sk, &e) >= 0);
	assert_true(sk->ops->commit(sk) >= 0);
	n = recv(fd, got_msg, sizeof(got_msg) - 1, 0);
	assert_true(n > 0);
	got_msg[n] = '\0';
	snprintf(want, sizeof(want),
		 "<14>1 1970-01-01T00:00:01.123456Z host app %ld INFO [llog@32473 "
		 "file=\"f\\\"\\]\\\\.c\" line=\"9\" tid=\"77\" func=\"a\\\"b\\\\c\\]d\" "
		 "level=\"INFO\"] hello",
		 (long)getpid());
	assert_string_equal(got_msg, want);
	llog_sink_destroy(sk);
	close(fd);
	unlink(path);
}

TEST_MAIN(
	cmocka_unit_test(test_names_and_functions_everywhere),
	cmocka_unit_test(test_read_once_and_cut),
	cmocka_unit_test(test_rename_while_closed),
	cmocka_unit_test(test_syslog_func_escaped),
)
