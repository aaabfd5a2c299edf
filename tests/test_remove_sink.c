/*
 * test_remove_sink.c - llog_remove_sink (llog/sinks.h): a zstd text file,
 * a JSON file and a syslog sink to a real rsyslogd over TCP, removed while
 * llog runs, each get exactly the records logged before the removal, once
 * and in order, and none after it; a sink that stays gets them all; the
 * removed sinks' final statistics stay readable and add up. A sink whose
 * thread is stuck in a call is removed after its drain timeout with its
 * entries counted undelivered; a slot freed by a removal takes a new sink;
 * removal before llog_init, of the last sink, from a sink's callback, and
 * of what is not a sink are answered as the header says. Threads that log
 * while a queued sink is removed: it has each thread's records up to at
 * least those logged before the call, once, in order, with no gap. A
 * fork child after a removal has the sinks its parent had then.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "llog.h"
#include "llog/sinks.h"
#include "childproc.h"
#include "outputs3.h"
#include "sanitizer.h"
#include "stuck_sink.h"
#include "testutil.h"

#define APP "llogremove"
#define N 200 /* records before the removal, and after it */
#define MAX_SINKS 16 /* llog's table (liblog/flusher.h LLOG__MAX_SINKS) */

/* text has "<k=i>" exactly once for i in [0, upto), in order, and none
 * for i in [upto, 2N). */
static void check(const char *what, const char *text, int upto)
{
	const char *p = text;
	char needle[32];

	for (int i = 0; i < 2 * N; i++) {
		int n;

		snprintf(needle, sizeof(needle), "<k=%d>", i);
		n = count_of(text, needle);
		if (n != (i < upto))
			fail_msg("%s: %d records '%s', want %d", what, n, needle, i < upto);
		if (i < upto) {
			p = strstr(p, needle);
			if (p == NULL)
				fail_msg("%s: '%s' out of order", what, needle);
		}
	}
}

/* ---- a callback sink kept in memory -------------------------------------- */

struct mem {
	char *buf;
	size_t len, cap;
	int rc_inside; /* what llog_remove_sink returned from a callback */
	struct llog_sink *victim; /* removed from the callback, when set */
};

/* On the flusher (or the sink's thread); read after llog_shutdown or a
 * removal (whose barrier orders it). */
static void mem_entry(void *user, const struct llog_entry *e)
{
	struct mem *m = user;

	if (m->victim != NULL) {
		m->rc_inside = llog_remove_sink(m->victim);
		m->victim = NULL;
	}
	if (m->len + e->msg_len + 2 > m->cap) {
		m->cap = (m->cap + e->msg_len + 2) * 2;
		m->buf = realloc(m->buf, m->cap);
		if (m->buf == NULL)
			abort();
	}
	memcpy(m->buf + m->len, e->msg, e->msg_len);
	m->len += e->msg_len;
	m->buf[m->len++] = '\n';
	m->buf[m->len] = '\0';
}

static struct llog_sink *mem_sink(struct mem *m)
{
	struct llog_callback_options co = {.on_entry = mem_entry, .user = m};

	memset(m, 0, sizeof(*m));
	m->cap = 1024;
	m->buf = calloc(1, m->cap);
	assert_non_null(m->buf);
	return llog_callback_sink(&co);
}

static void log_range(int from, int to)
{
	for (int i = from; i < to; i++)
		LOG_INFO("<k=%d>", i);
}

/* ---- a file, a JSON file and syslog removed while llog runs --------------- */

static struct rsyslogd rs;

static void test_remove_outputs(void **state)
{
	struct outputs3 o;
	struct llog_sink *ts, *js, *ss, *ms;
	struct llog_sink_stats st;
	struct llog_stats before, after;
	char out_path[sizeof(rs.dir) + 16];
	static struct mem stay;
	char *s;

	(void)state;
	outputs3_make(&o, &rs, "llog_remove_", APP);
	snprintf(out_path, sizeof(out_path), "%s/out.log", rs.dir);
	ts = llog_file_sink(&o.text);
	js = llog_file_sink(&o.json);
	ss = llog_syslog_sink(&o.so); /* on a thread of its own */
	ms = mem_sink(&stay);
	assert_non_null(ts);
	assert_non_null(js);
	assert_non_null(ss);
	assert_non_null(ms);
	assert_int_equal(llog_add_sink(ts), 0);
	assert_int_equal(llog_add_sink(js), 0);
	assert_int_equal(llog_add_sink(ss), 0);
	assert_int_equal(llog_add_sink(ms), 0);
	assert_int_equal(llog_init(&(struct llog_config){.flush_interval_ms = 10}), 0);
	llog_get_stats(&before);

	log_range(0, N);
	/* No flush: the removal itself hands them over. */
	assert_int_equal(llog_remove_sink(ts), 0);
	assert_int_equal(llog_remove_sink(js), 0);
	assert_int_equal(llog_remove_sink(ss), 0);
	log_range(N, 2 * N);

	assert_int_equal(llog_remove_sink(ts), -ENOENT);
	assert_int_equal(llog_remove_sink(ss), -ENOENT);
	/* The removed sinks' final statistics: syslog's queue delivered all
	 * N; the files ran on the flusher (all zero). */
	assert_int_equal(llog_get_sink_stats(ss, &st), 0);
	assert_int_equal(st.queued, N);
	assert_int_equal(st.queued, st.delivered + st.undelivered);
	assert_int_equal(st.undelivered, 0);
	assert_int_equal(st.dropped, 0);
	assert_int_equal(llog_get_sink_stats(ts, &st), 0);
	assert_int_equal(st.queued, 0);
	assert_int_equal(llog_get_sink_stats(js, &st), 0);
	llog_shutdown();
	llog_get_stats(&after);
	assert_int_equal(after.sink_lost - before.sink_lost, 0);
	assert_int_equal(after.written - before.written, 2 * N);
	/* Still readable after the shutdown. */
	assert_int_equal(llog_get_sink_stats(ss, &st), 0);
	assert_int_equal(st.delivered, N);

	s = read_zstdcat(&o.t);
	check("text file", s, N);
	free(s);
	s = slurp(o.json_path, NULL);
	check("JSON file", s, N);
	free(s);
	check("staying callback", stay.buf, 2 * N);
	free(stay.buf);
	/* rsyslog writes what it received in its own time; the sink was
	 * closed (its connection too) before record N was logged, so what
	 * it has once it has N is all it will have. */
	if ((s = rsyslogd_wait_output(&rs, "<k=", N, 30000)) == NULL)
		fail_msg("%s", rs.why);
	rsyslogd_stop(&rs, SIGTERM); /* its output complete */
	free(s);
	s = slurp(out_path, NULL);
	assert_non_null(s);
	check("syslog", s, N);
	free(s);
	tdir_remove(&o.t);
}

/* ---- a sink stuck in a call ---------------------------------------------- */


/*
 * Its thread is inside a write: the removal returns after the drain
 * timeout (and the wait for the thread), with the entry in its hands and
 * the 9 behind it undelivered (in sink_lost too), and leaves the sink
 * unclosed. The staying sink gets everything; a sink added afterwards gets
 * what is logged after it. Last: the stuck thread stays until the
 * process exits.
 */
static void test_remove_stuck(void **state)
{
	static struct stuck sk;
	static struct gate g;
	static struct mem stay, late;
	struct llog_sink_options qo = {.drain_timeout_ms = 100};
	struct llog_sink_stats st;
	struct llog_stats before, after;
	struct llog_sink *ls;

	(void)state;
	stuck_init(&sk, &stuck_ops, &g, 1);
	assert_int_equal(llog_add_sink(mem_sink(&stay)), 0);
	assert_int_equal(llog_add_sink_opts(&sk.base, &qo), 0);
	assert_int_equal(llog_init(NULL), 0);
	llog_get_stats(&before);
	LOG_INFO("<k=0>");
	gate_wait_held(&g);
	log_range(1, 10);
	assert_int_equal(llog_remove_sink(&sk.base), 0);
	llog_get_stats(&after);
	assert_int_equal(sk.closed, 0);
	assert_int_equal(llog_get_sink_stats(&sk.base, &st), 0);
	assert_int_equal(st.queued, 10);
	assert_int_equal(st.delivered, 0);
	assert_int_equal(st.undelivered, 10);
	assert_int_equal(st.queued, st.delivered + st.undelivered);
	assert_int_equal(after.sink_lost - before.sink_lost, 10);
	assert_int_equal(llog_remove_sink(&sk.base), -ENOENT);

	log_range(10, N);
	ls = mem_sink(&late);
	assert_int_equal(llog_add_sink(ls), 0);
	log_range(N, 2 * N);
	llog_shutdown();
	check("staying callback", stay.buf, 2 * N);
	/* exactly those logged after it was added */
	for (int i = 0; i < 2 * N; i++) {
		char needle[32];

		snprintf(needle, sizeof(needle), "<k=%d>", i);
		assert_int_equal(count_of(late.buf, needle), i >= N);
	}
	free(stay.buf);
	free(late.buf);
}

/* ---- before llog_init, the last sink, errors ------------------------------ */

static void test_remove_before_init(void **state)
{
	static struct stuck a;
	static struct gate ga;
	static struct mem b;
	struct llog_sink_stats st;
	struct llog_sink *bs;

	(void)state;
	stuck_init(&a, &stuck_ops, &ga, 0);
	bs = mem_sink(&b);
	assert_int_equal(llog_remove_sink(NULL), -EINVAL);
	assert_int_equal(llog_remove_sink(&a.base), -ENOENT); /* not added */
	assert_int_equal(llog_add_sink(&a.base), 0);          /* own thread */
	assert_int_equal(llog_add_sink(bs), 0);
	assert_int_equal(llog_remove_sink(&a.base), 0);
	assert_int_equal(a.closed, 1);
	assert_int_equal(llog_get_sink_stats(&a.base, &st), 0);
	assert_int_equal(st.queued, 0);
	assert_int_equal(llog_remove_sink(&a.base), -ENOENT);
	assert_int_equal(llog_init(NULL), 0);
	log_range(0, N);
	/* The last sink of a running llog stays. */
	assert_int_equal(llog_remove_sink(bs), -EBUSY);
	llog_shutdown();
	assert_int_equal(a.writes, 0);
	check("callback", b.buf, N);
	free(b.buf);
	/* closed by the shutdown: not llog's any more */
	assert_int_equal(llog_remove_sink(bs), -ENOENT);
}

/* From a sink's callback (on the flusher): it would wait for itself. */
static void test_remove_from_callback(void **state)
{
	static struct mem a, b;
	struct llog_sink *as, *bs;

	(void)state;
	as = mem_sink(&a);
	bs = mem_sink(&b);
	assert_int_equal(llog_add_sink(as), 0);
	assert_int_equal(llog_add_sink(bs), 0);
	a.rc_inside = 1;
	a.victim = bs;
	assert_int_equal(llog_init(NULL), 0);
	log_range(0, N);
	llog_shutdown();
	assert_int_equal(a.rc_inside, -EDEADLK);
	check("a", a.buf, N);
	check("b", b.buf, N);
	free(a.buf);
	free(b.buf);
}

/* A full table: a removal frees a slot, once. */
static void test_remove_frees_slot(void **state)
{
	static struct mem m[MAX_SINKS + 2];
	struct llog_sink *s[MAX_SINKS + 2];

	(void)state;
	for (int i = 0; i < MAX_SINKS + 2; i++)
		s[i] = mem_sink(&m[i]);
	for (int i = 0; i < MAX_SINKS; i++)
		assert_int_equal(llog_add_sink(s[i]), 0);
	assert_int_equal(llog_init(NULL), 0);
	log_range(0, N);
	assert_int_equal(llog_remove_sink(s[3]), 0);
	assert_int_equal(llog_add_sink(s[MAX_SINKS]), 0);
	log_range(N, 2 * N);
	assert_int_equal(llog_add_sink(s[MAX_SINKS + 1]), -ENOSPC); /* closed by it */
	llog_shutdown();
	for (int i = 0; i < MAX_SINKS; i++)
		check("sink", m[i].buf, i == 3 ? N : 2 * N);
	for (int i = N; i < 2 * N; i++) {
		char needle[32];

		snprintf(needle, sizeof(needle), "<k=%d>", i);
		assert_int_equal(count_of(m[MAX_SINKS].buf, needle), 1);
	}
	assert_int_equal(count_of(m[MAX_SINKS].buf, "<k=0>"), 0);
	for (int i = 0; i < MAX_SINKS + 2; i++)
		free(m[i].buf);
}

/* ---- removal while threads log -------------------------------------------- */

#define THREADS 4
#define PER_THREAD 20000

/* What a sink saw of the threads' records "<t=T i=I>": per thread, the
 * next I expected (each thread's records once, in order, from 0). */
struct per_thread {
	long next[THREADS];
	long bad;
};

static void pt_entry(void *user, const struct llog_entry *e)
{
	struct per_thread *p = user;
	int t, i;

	if (sscanf(e->msg, "<t=%d i=%d>", &t, &i) != 2 || t < 0 || t >= THREADS ||
	    i != p->next[t]) {
		p->bad++;
		return;
	}
	p->next[t]++;
}

/* How many records each thread's LOG returned from (release: pairs with
 * the test's acquire load, which then knows those LOGs returned). */
static _Atomic long logged[THREADS];
static _Atomic int thread_ids;

static void *logger(void *arg)
{
	int t = atomic_fetch_add_explicit(&thread_ids, 1, memory_order_relaxed);

	(void)arg;
	for (int i = 0; i < PER_THREAD; i++) {
		LOG_INFO("<t=%d i=%d>", t, i);
		atomic_store_explicit(&logged[t], i + 1, memory_order_release);
	}
	return NULL;
}

/* The removed sink's view: read by the remover after its removal (the
 * sink's thread stopped: llog_remove_sink's barrier orders it). */
static struct per_thread *gone_seen;

static void *remover(void *arg)
{
	struct llog_sink *victim = arg;
	long before[THREADS];

	/* Once a quarter of the records were logged. */
	for (;;) {
		long sum = 0;

		for (int t = 0; t < THREADS; t++)
			sum += atomic_load_explicit(&logged[t], memory_order_acquire);
		if (sum >= THREADS * PER_THREAD / 4)
			break;
		sched_yield();
	}
	for (int t = 0; t < THREADS; t++)
		before[t] = atomic_load_explicit(&logged[t], memory_order_acquire);
	if (llog_remove_sink(victim) != 0)
		return (void *)1;
	/* Each thread's records up to `before` were logged before the call. */
	for (int t = 0; t < THREADS; t++)
		if (gone_seen->next[t] < before[t])
			return (void *)2;
	return NULL;
}

/*
 * Threads log while another removes a queued sink: the removed sink has
 * each thread's records once, in order, from the first up to at least
 * those logged before the removal began and with no gap; the staying sink
 * all of them; the removed sink's statistics add up.
 */
static void test_remove_while_logging(void **state)
{
	static struct per_thread gone, stay;
	struct llog_callback_options go = {.on_entry = pt_entry, .user = &gone},
				     so = {.on_entry = pt_entry, .user = &stay};
	struct llog_sink_options qo = {.thread = LLOG_SINK_THREAD_OWN, .full = LLOG_QUEUE_BLOCK};
	struct llog_sink *gs = llog_callback_sink(&go);
	struct llog_sink_stats st;
	pthread_t th[THREADS], rm;
	void *rc;
	long total = 0;

	(void)state;
	memset(&gone, 0, sizeof(gone));
	memset(&stay, 0, sizeof(stay));
	gone_seen = &gone;
	atomic_store(&thread_ids, 0);
	for (int t = 0; t < THREADS; t++)
		atomic_store(&logged[t], 0);
	assert_int_equal(llog_add_sink_opts(gs, &qo), 0);
	assert_int_equal(llog_add_sink(llog_callback_sink(&so)), 0);
	assert_int_equal(llog_init(NULL), 0);
	assert_int_equal(pthread_create(&rm, NULL, remover, gs), 0);
	for (int t = 0; t < THREADS; t++)
		assert_int_equal(pthread_create(&th[t], NULL, logger, NULL), 0);
	for (int t = 0; t < THREADS; t++)
		pthread_join(th[t], NULL);
	pthread_join(rm, &rc);
	assert_null(rc);
	llog_shutdown();
	assert_int_equal(gone.bad, 0);
	assert_int_equal(stay.bad, 0);
	for (int t = 0; t < THREADS; t++) {
		assert_int_equal(stay.next[t], PER_THREAD);
		total += gone.next[t];
	}
	assert_int_equal(llog_get_sink_stats(gs, &st), 0);
	assert_int_equal(st.queued, (uint64_t)total);
	assert_int_equal(st.delivered, (uint64_t)total);
	assert_int_equal(st.undelivered, 0);
	assert_int_equal(st.dropped, 0);
}

/* ---- fork() after a removal ---------------------------------------------- */

/*
 * A child forked after a removal has the sinks its parent had then: its
 * records reach the staying file, never the removed one (plain text files,
 * appended to by both processes in whole writes).
 */
static void test_remove_then_fork(void **state)
{
	struct llog_file_options ao = {.compression = LLOG_FILE_PLAIN},
				 bo = {.compression = LLOG_FILE_PLAIN};
	char a_path[160], b_path[160];
	struct llog_sink *as;
	struct tdir t;
	pid_t pid;
	char *s;

	(void)state;
#ifdef TEST_TSAN
	skip(); /* fork() with threads: not under TSan */
#endif
	tdir_make(&t, "llog_remove_fork_");
	snprintf(a_path, sizeof(a_path), "%s/a.log", t.dir);
	snprintf(b_path, sizeof(b_path), "%s/b.log", t.dir);
	ao.path = a_path;
	bo.path = b_path;
	as = llog_file_sink(&ao);
	assert_non_null(as);
	assert_int_equal(llog_add_sink(as), 0);
	assert_int_equal(llog_add_sink(llog_file_sink(&bo)), 0);
	assert_int_equal(llog_init(NULL), 0);
	log_range(0, N);
	assert_int_equal(llog_remove_sink(as), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		for (int i = 0; i < 10; i++)
			LOG_INFO("<child=%d>", i);
		llog_shutdown();
		_exit(0);
	}
	assert_int_equal(child_exit_code(pid), 0);
	log_range(N, 2 * N);
	llog_shutdown();
	s = slurp(a_path, NULL);
	check("removed file", s, N);
	assert_int_equal(count_of(s, "<child="), 0);
	free(s);
	s = slurp(b_path, NULL);
	check("staying file", s, 2 * N);
	assert_int_equal(count_of(s, "<child="), 10);
	free(s);
	tdir_remove(&t);
}

/* After every case, passed or failed: llog stopped, rsyslogd gone. */
static int teardown(void **state)
{
	(void)state;
	llog_shutdown();
	return rsyslogd_remove(&rs); /* nothing when none was made */
}

TEST_MAIN(
	cmocka_unit_test_teardown(test_remove_outputs, teardown),
	cmocka_unit_test_teardown(test_remove_before_init, teardown),
	cmocka_unit_test_teardown(test_remove_from_callback, teardown),
	cmocka_unit_test_teardown(test_remove_frees_slot, teardown),
	cmocka_unit_test_teardown(test_remove_while_logging, teardown),
	cmocka_unit_test_teardown(test_remove_then_fork, teardown),
	cmocka_unit_test_teardown(test_remove_stuck, teardown),
)
