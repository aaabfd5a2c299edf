/*
 * test_console.c - the console sink: text lines on the given descriptor,
 * colour only when asked or on a terminal and never with NO_COLOR set, JSON
 * when configured, one write per commit, bad options refused.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
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

#include "sanitizer.h"

static struct llog_entry entry(enum llog_level level, const char *msg)
{
	return (struct llog_entry){
		.seq = 1, .ts_ns = 1000000000LL, .level = level, .line = 9, .tid = 77,
		.file = "x.c", .func = "f", .thread_name = "net-rx", .thread_name_len = 6,
		.msg = msg, .msg_len = strlen(msg),
	};
}

/* Writes two entries through a console sink on a pipe; returns the bytes. */
static size_t run_sink(const struct llog_console_options *o, char *out, size_t cap)
{
	int p[2];
	struct llog_console_options opt = *o;
	struct llog_sink *s;
	struct llog_entry a = entry(LLOG_ERROR, "boom"), b = entry(LLOG_INFO, "fine");
	ssize_t n;

	assert_int_equal(pipe(p), 0);
	opt.fd = p[1];
	s = llog_console_sink(&opt);
	assert_non_null(s);
	assert_true(s->ops->write(s, &a) > 0);
	assert_true(s->ops->write(s, &b) > 0);
	/* nothing reaches the descriptor before the commit */
	assert_true(s->ops->commit(s) > 0);
	llog_sink_destroy(s);
	close(p[1]);
	n = read(p[0], out, cap - 1);
	close(p[0]);
	assert_true(n > 0);
	out[n] = '\0';
	return (size_t)n;
}

/* run_sink with NO_COLOR set to no_color, or unset (NULL). */
static size_t run_sink_env(const struct llog_console_options *o, const char *no_color, char *out,
			   size_t cap)
{
	if (no_color != NULL)
		setenv("NO_COLOR", no_color, 1);
	else
		unsetenv("NO_COLOR");
	return run_sink(o, out, cap);
}

static void test_plain_on_a_pipe(void **state)
{
	struct llog_console_options o = {.color = LLOG_COLOR_AUTO};
	char out[1024];

	(void)state;
	run_sink_env(&o, NULL, out, sizeof(out));
	assert_null(strchr(out, '\033')); /* a pipe is not a terminal */
	assert_string_equal(out, "1970-01-01T00:00:01.000000000Z ERROR [77] x.c:9 boom\n"
				 "1970-01-01T00:00:01.000000000Z INFO  [77] x.c:9 fine\n");
}

static void test_color_always_and_no_color(void **state)
{
	struct llog_console_options o = {.color = LLOG_COLOR_ALWAYS};
	char out[1024];

	(void)state;
	run_sink_env(&o, NULL, out, sizeof(out));
	assert_non_null(strstr(out, "\033[31mERROR\033[0m"));
	assert_non_null(strstr(out, "x.c:9 boom\n"));
	run_sink_env(&o, "1", out, sizeof(out));
	assert_null(strchr(out, '\033'));
	unsetenv("NO_COLOR");
}

static void test_json_lines(void **state)
{
	struct llog_console_options o = {.format = LLOG_FORMAT_JSON, .color = LLOG_COLOR_ALWAYS};
	char out[1024];

	(void)state;
	run_sink_env(&o, NULL, out, sizeof(out));
	assert_null(strchr(out, '\033')); /* colour is for text only */
	assert_non_null(strstr(out, "\"level\":\"ERROR\""));
	assert_non_null(strstr(out, "\"msg\":\"fine\"}\n"));
}

static void test_bad_options(void **state)
{
	struct llog_console_options bad_fd = {.fd = -3};
	struct llog_console_options bad_level = {.level = (enum llog_level)9};

	(void)state;
	errno = 0;
	assert_null(llog_console_sink(&bad_fd));
	assert_int_equal(errno, EINVAL);
	assert_null(llog_console_sink(&bad_level));
	llog_sink_destroy(NULL); /* accepted */
}

static void test_write_error_reported(void **state)
{
	int p[2];
	struct llog_console_options o = {0};
	struct llog_sink *s;
	struct llog_entry e = entry(LLOG_INFO, "lost reader");

	(void)state;
	assert_int_equal(pipe(p), 0);
	close(p[0]);
	o.fd = p[1];
	s = llog_console_sink(&o);
	s->ops->write(s, &e);
	/* EPIPE comes back as an error. (Called here on the main thread,
	 * which ignores SIGPIPE for this test; in llog the sinks run on the
	 * flusher, which blocks every signal, so a vanished reader never
	 * kills the service; on sockets llog__write_all uses MSG_NOSIGNAL.) */
	assert_int_equal(s->ops->commit(s), -EPIPE);
	llog_sink_destroy(s);
	close(p[1]);
}

static void test_line_options(void **state)
{
	struct llog_console_options o = {
		.color = LLOG_COLOR_NEVER,
		.line = {.flags = LLOG_LINE_FUNC | LLOG_LINE_THREAD_NAME, .ts_precision = LLOG_TS_MS}};
	struct llog_console_options j = {.format = LLOG_FORMAT_JSON,
					 .line = {.ts_precision = LLOG_TS_S}};
	char out[1024];

	(void)state;
	run_sink(&o, out, sizeof(out));
	assert_string_equal(out, "1970-01-01T00:00:01.000Z ERROR [77 net-rx] x.c:9 f() boom\n"
				 "1970-01-01T00:00:01.000Z INFO  [77 net-rx] x.c:9 f() fine\n");
	run_sink(&j, out, sizeof(out));
	assert_string_equal(out,
			    "{\"seq\":1,\"ts\":\"1970-01-01T00:00:01Z\",\"level\":\"ERROR\",\"thread\":77,"
			    "\"thread_name\":\"net-rx\",\"file\":\"x.c\",\"line\":9,\"func\":\"f\","
			    "\"msg\":\"boom\"}\n"
			    "{\"seq\":1,\"ts\":\"1970-01-01T00:00:01Z\",\"level\":\"INFO\",\"thread\":77,"
			    "\"thread_name\":\"net-rx\",\"file\":\"x.c\",\"line\":9,\"func\":\"f\","
			    "\"msg\":\"fine\"}\n");
	/* a precision that does not exist is refused */
	o.line.ts_precision = (enum llog_ts_precision)4;
	o.fd = 2;
	errno = 0;
	assert_null(llog_console_sink(&o));
	assert_int_equal(errno, EINVAL);
}

/* ---- a pipe whose reader stopped ------------------------------------------ */

struct reader {
	int fd;
	char *buf;
	size_t len, cap;
};

/* Reads fd to its end into r->buf (NUL-ended). */
static void *read_all(void *arg)
{
	struct reader *r = arg;
	ssize_t n;

	for (;;) {
		if (r->cap - r->len < 65536) {
			r->cap = r->cap * 2 + 65536;
			r->buf = realloc(r->buf, r->cap);
			if (r->buf == NULL)
				abort();
		}
		n = read(r->fd, r->buf + r->len, r->cap - r->len - 1);
		if (n <= 0)
			break;
		r->len += (size_t)n;
	}
	r->buf[r->len] = '\0';
	return NULL;
}

#define STALL_N 100000

/* The output of STALL_N records "record I ..." through a sink whose reader
 * stalled: every record not dropped once and in order, each gap announced
 * by a notice of its exact size, some dropped (the reader really stalled
 * the sink); *dropped: how many. */
static void check_stalled_output(char *buf, uint64_t *dropped)
{
	uint64_t records = 0, announced = 0, notices = 0, gap = 0;
	long next = 0;
	char *line, *save = NULL;

	for (line = strtok_r(buf, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save)) {
		const char *q;
		unsigned long long n;

		if ((q = strstr(line, "llog: ")) != NULL && strstr(q, " records dropped: ") != NULL) {
			assert_int_equal(sscanf(q, "llog: %llu records dropped", &n), 1);
			assert_true(n > 0);
			/* two in a row: an episode began again with the
			 * record after the first one's notice */
			gap += n;
			announced += n;
			notices++;
			continue;
		}
		q = strstr(line, " record ");
		assert_non_null(q);
		n = strtoull(q + 8, NULL, 10);
		/* in order, once; a gap only where a notice said so, of
		 * its size */
		assert_int_equal(n, (unsigned long long)next + gap);
		gap = 0;
		next = (long)n + 1;
		records++;
	}
	fprintf(stderr, "stalled pipe: %llu of %d records written, %llu dropped in %llu notices\n",
		(unsigned long long)records, STALL_N, (unsigned long long)announced,
		(unsigned long long)notices);
	assert_true(announced > 0); /* the reader really stalled the sink */
	assert_int_equal(records + announced, STALL_N);
	*dropped = announced;
}


/* A console on a pipe whose reader stopped: the application's calls all
 * return while nothing is read (on the flusher they would wait for the
 * reader for good: the alarm ends the test); once the reader is back the
 * sink's output has every record not dropped, once and in order, each
 * gap announced by a notice with its exact size, and the sink's
 * counters say the same. */
static void test_stalled_pipe_reader(void **state)
{
	struct llog_config cfg = {.level = LLOG_INFO, .flush_interval_ms = 5};
	struct llog_console_options o = {.color = LLOG_COLOR_NEVER};
	struct reader r = {0};
	struct llog_sink_stats st;
	struct llog_sink *s;
	uint64_t announced;
	pthread_t th;
	int p[2];

	(void)state;
	assert_int_equal(pipe(p), 0);
	o.fd = p[1];
	s = llog_console_sink(&o);
	assert_non_null(s);
	assert_int_equal(llog_add_sink(s), 0);
	assert_int_equal(llog_init(&cfg), 0);
	alarm(60);
	for (long i = 0; i < STALL_N; i++)
		LOG_INFO("record %ld of a stalled pipe, padded to about a hundred bytes", i);
	/* Every call returned with nobody reading. Now read. */
	r.fd = p[0];
	assert_int_equal(pthread_create(&th, NULL, read_all, &r), 0);
	llog_flush();
	assert_int_equal(llog_get_sink_stats(s, &st), 0);
	llog_shutdown();
	close(p[1]);
	assert_int_equal(pthread_join(th, NULL), 0);
	close(p[0]);
	alarm(0);

	check_stalled_output(r.buf, &announced);
	free(r.buf);
	assert_int_equal(st.dropped, announced);
}

/* The same with the default configuration: no sink added, llog's stderr
 * fallback on a stderr that is a pipe nobody reads (in a child, whose
 * stderr it is). The child says when its calls returned; only then is its
 * stderr read. */
static void test_stalled_stderr_fallback(void **state)
{
	struct reader r = {0};
	uint64_t announced;
	int err[2], sync[2], status;
	char c;
	pid_t pid;

	(void)state;
	assert_int_equal(pipe(err), 0);
	assert_int_equal(pipe(sync), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		alarm(60);
		if (dup2(err[1], 2) != 2)
			_exit(90);
		close(err[0]);
		close(err[1]);
		close(sync[0]);
		if (llog_init(NULL) != 0)
			_exit(91);
		for (long i = 0; i < STALL_N; i++)
			LOG_INFO("record %ld of a stalled pipe, padded to about a hundred bytes", i);
		if (write(sync[1], "x", 1) != 1)
			_exit(92);
		llog_shutdown();
		_exit(0);
	}
	close(err[1]);
	close(sync[1]);
	assert_int_equal(read(sync[0], &c, 1), 1); /* every call returned */
	close(sync[0]);
	/* Not a wait for an outcome: it lets the child's final round meet
	 * its queue still full, where the notice of the drops must wait
	 * for room (on a fast reader it would find room at once). */
	usleep(50 * 1000);
	r.fd = err[0];
	(void)read_all(&r);
	close(err[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	check_stalled_output(r.buf, &announced);
	free(r.buf);
}

/* fork() while the stderr fallback, on a pipe (a queue of its own), is
 * about to be replaced by a sink added just before (installed in the
 * child, from the list): the child takes the fallback's queue over as its
 * own (empty, no thread) and closes it; it does not wait for the parent's
 * thread (which ends in "still inside a call" on its stderr); the child's
 * record reaches the new sink once. */
static void test_fork_replaces_pipe_fallback(void **state)
{
	struct reader r = {0};
	char path[64], cmd[160], *got;
	int err[2], status;
	pid_t pid;

	(void)state;
#if defined(TEST_TSAN)
	skip(); /* threads after a multi-threaded fork: see test_process's test_fork */
#endif
	snprintf(path, sizeof(path), "/tmp/llog_console_fork_%d.log", (int)getpid());
	assert_int_equal(pipe(err), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct llog_file_options fo = {.path = path, .compression = LLOG_FILE_PLAIN};
		struct llog_config cfg = {.flush_interval_ms = 60000};
		pid_t g;

		alarm(60);
		if (dup2(err[1], 2) != 2)
			_exit(90);
		close(err[0]);
		close(err[1]);
		if (llog_init(&cfg) != 0)
			_exit(91);
		/* no round before the fork: the sink is still a record */
		if (llog_add_sink(llog_file_sink(&fo)) != 0)
			_exit(92);
		g = fork();
		if (g == 0) {
			LOG_INFO("from the grandchild");
			llog_shutdown();
			_exit(0);
		}
		if (g < 0 || waitpid(g, &status, 0) != g)
			_exit(94);
		llog_shutdown();
		_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 95);
	}
	close(err[1]);
	r.fd = err[0];
	(void)read_all(&r);
	close(err[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	if (WEXITSTATUS(status) != 0 || strstr(r.buf, "still inside") != NULL)
		fprintf(stderr, "child's stderr:\n%s", r.buf);
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_null(strstr(r.buf, "still inside"));
	snprintf(cmd, sizeof(cmd), "grep -c 'from the grandchild' %s", path);
	got = NULL;
	{
		FILE *f = popen(cmd, "r");
		char line[32] = "";

		assert_non_null(f);
		got = fgets(line, sizeof(line), f);
		pclose(f);
		assert_non_null(got);
		assert_int_equal(atoi(line), 1);
	}
	unlink(path);
	free(r.buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_on_a_pipe),
		cmocka_unit_test(test_color_always_and_no_color),
		cmocka_unit_test(test_json_lines),
		cmocka_unit_test(test_line_options),
		cmocka_unit_test(test_bad_options),
		cmocka_unit_test(test_write_error_reported),
		cmocka_unit_test(test_stalled_pipe_reader),
		cmocka_unit_test(test_stalled_stderr_fallback),
		cmocka_unit_test(test_fork_replaces_pipe_fallback),
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
