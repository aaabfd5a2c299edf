/*
 * test_sinkq.c - sinks on threads of their own (llog_add_sink_opts): a
 * sink that blocks holds up neither the application nor the other sinks;
 * its drops are exact and announced in its own output; back-pressure loses
 * nothing; a sink thread's LOG is dropped and counted, its llog_flush
 * returns at once; a sink stuck at shutdown does not hang it and is not
 * closed while in use, and its counters add up exactly and stay readable
 * after shutdown. A sink that stores captures (the binary file sink's
 * internal flag) gets them on its own thread too, copied by its queue.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "llog.h"
#include "llog/sinks.h"
#include "capture.h"
#include "fmt.h"
#include "sanitizer.h"
#include "sink.h"
#include "stuck_sink.h"
#include "testutil.h"

#define THREADS 4
#define PER_THREAD 20000

/* What one sink saw: per-thread order, each record at most once. */
struct seen {
	struct gate gate;    /* on_entry passes it */
	long next[THREADS];  /* next i expected at least, per thread */
	long records, bad, notice_sum, commits;
	_Atomic long notices; /* polled by the test while the sink runs */
	uint64_t last_seq;
	int log_inside;
	long slow;           /* spin this many iterations per entry */
};

static void seen_init(struct seen *s)
{
	memset(s, 0, sizeof(*s));
	gate_init(&s->gate, 0);
}

static void on_entry(void *user, const struct llog_entry *e)
{
	struct seen *s = user;
	char buf[160];
	unsigned long long n;
	int t;
	long i;

	gate_pass(&s->gate);
	for (volatile long spin = 0; spin < s->slow; spin++)
		;
	copy_cut(buf, sizeof(buf), e->msg, e->msg_len);
	if (e->seq <= s->last_seq)
		s->bad++;
	s->last_seq = e->seq;
	if (sscanf(buf, "llog: %llu records dropped: sink gated's queue was full", &n) == 1) {
		s->notices++;
		s->notice_sum += (long)n;
		if (e->level != LLOG_WARN)
			s->bad++;
		return;
	}
	if (sscanf(buf, "q t=%d i=%ld", &t, &i) != 2 || t < 0 || t >= THREADS || i < s->next[t]) {
		s->bad++;
		return;
	}
	s->next[t] = i + 1;
	s->records++;
	if (s->log_inside) {
		LOG_INFO("from the sink's own thread %ld", i);
		llog_flush(); /* returns at once there */
	}
}

static void on_commit(void *user)
{
	((struct seen *)user)->commits++;
}

static struct llog_sink *cb_sink(struct seen *s)
{
	struct llog_callback_options o = {.on_entry = on_entry, .on_commit = on_commit, .user = s};

	return llog_callback_sink(&o);
}

/* Starts llog with s's callback sink, on a queue of qo, as its only sink;
 * returns that sink. */
static struct llog_sink *start_queued(struct seen *s, const struct llog_sink_options *qo)
{
	struct llog_sink *sk = cb_sink(s);

	assert_int_equal(llog_add_sink_opts(sk, qo), 0);
	assert_int_equal(llog_init(NULL), 0);
	return sk;
}

static void *producer(void *arg)
{
	int t = (int)(intptr_t)arg;

	for (long i = 0; i < PER_THREAD; i++)
		LOG_INFO("q t=%d i=%ld", t, i);
	return NULL;
}

static void run_producers(void)
{
	assert_int_equal(run_threads(THREADS, producer), 0);
}

/* Every record exactly once, in order per thread. */
static void assert_complete(const struct seen *s)
{
	assert_int_equal(s->bad, 0);
	assert_int_equal(s->records, THREADS * PER_THREAD);
	for (int t = 0; t < THREADS; t++)
		assert_int_equal(s->next[t], PER_THREAD);
}

/*
 * A sink held inside its first call: the application (BLOCK policy: it
 * would wait if the flusher stalled) and the flusher's own sink go on, a
 * flush returns at the blocked sink's timeout; once released, the blocked
 * sink has a subset in order, and the notices in its output add up to
 * exactly the drops that its statistics and llog_stats count.
 */
static void test_blocked_sink_stalls_nothing(void **state)
{
	static struct seen fast, gated;
	struct llog_sink_options qo = {.thread = LLOG_SINK_THREAD_OWN, .queue_bytes = 64 << 10,
				       .drain_timeout_ms = 200, .name = "gated"};
	struct llog_config cfg = {.overflow = LLOG_OVERFLOW_BLOCK};
	struct llog_sink *gs;
	struct llog_sink_stats st;
	struct llog_stats gst;

	(void)state;
	seen_init(&fast);
	seen_init(&gated);
	gated.gate.closed = 1;
	gs = cb_sink(&gated);
	assert_int_equal(llog_add_sink(cb_sink(&fast)), 0);
	assert_int_equal(llog_add_sink_opts(gs, &qo), 0);
	assert_int_equal(llog_init(&cfg), 0);
	LOG_INFO("q t=0 i=0");
	gate_wait_held(&gated.gate); /* its thread is stuck in the sink now */
	{
		pthread_t th[THREADS];

		for (int t = 1; t < THREADS; t++)
			assert_int_equal(pthread_create(&th[t], NULL, producer, (void *)(intptr_t)t),
					 0);
		for (int t = 1; t < THREADS; t++)
			pthread_join(th[t], NULL);
	}
	for (long i = 1; i < PER_THREAD; i++)
		LOG_INFO("q t=0 i=%ld", i);
	llog_flush(); /* returns: the gated sink is late */
	assert_int_equal(fast.bad, 0);
	assert_int_equal(fast.records, THREADS * PER_THREAD);
	assert_int_equal(llog_get_sink_stats(gs, &st), 0);
	assert_true(st.late_flushes >= 1);
	assert_true(st.dropped > 0);
	assert_true(st.queue_peak <= st.queue_cap);

	gate_open(&gated.gate);
	/* Once the queue ran empty the notice goes out (the sink's thread
	 * asks for a round); then one more record, after it. */
	do {
		assert_int_equal(llog_get_sink_stats(gs, &st), 0);
		sched_yield();
	} while (st.queue_bytes != 0 || atomic_load(&gated.notices) == 0);
	LOG_INFO("q t=0 i=%d", PER_THREAD);
	llog_flush();
	assert_int_equal(llog_get_sink_stats(gs, &st), 0);
	llog_get_stats(&gst);
	assert_int_equal(gated.bad, 0);
	assert_int_equal(gated.records + (long)st.dropped, THREADS * PER_THREAD + 1);
	assert_int_equal(gated.notice_sum, (long)st.dropped);
	assert_true(gated.notices >= 1);
	assert_int_equal(gst.queue_dropped, st.dropped);
	/* The notices are counted apart: queued and delivered are records. */
	assert_int_equal(st.queued, (uint64_t)gated.records);
	assert_int_equal(st.delivered, st.queued);
	assert_int_equal(st.notices, (uint64_t)gated.notices);
	assert_int_equal(st.announced, (uint64_t)gated.notice_sum);
	assert_int_equal(st.announced, st.dropped);
	assert_int_equal(gated.next[0], PER_THREAD + 1); /* the last one arrived */
	llog_shutdown();
	{
		struct llog_sink_stats fin;

		/* Closed: its final statistics, until the next llog_init. */
		assert_int_equal(llog_get_sink_stats(gs, &fin), 0);
		assert_int_equal(fin.queued, st.queued);
		assert_int_equal(fin.delivered, st.delivered);
		assert_int_equal(fin.dropped, st.dropped);
		assert_int_equal(fin.undelivered, 0);
		assert_int_equal(fin.announced, st.announced);
		assert_int_equal(llog_init(NULL), 0);
		assert_int_equal(llog_get_sink_stats(gs, &fin), -ENOENT);
		llog_shutdown();
	}
}

/* LLOG_QUEUE_BLOCK: a slow sink behind a small queue gets everything. */
static void test_block_policy_loses_nothing(void **state)
{
	static struct seen slow;
	struct llog_sink_options qo = {.thread = LLOG_SINK_THREAD_OWN, .queue_bytes = 64 << 10,
				       .full = LLOG_QUEUE_BLOCK, .name = "slow"};
	struct llog_sink *s;
	struct llog_sink_stats st;

	(void)state;
	seen_init(&slow);
	slow.slow = 2000;
	s = start_queued(&slow, &qo);
	run_producers();
	llog_flush();
	assert_complete(&slow);
	assert_int_equal(llog_get_sink_stats(s, &st), 0);
	assert_int_equal(st.dropped, 0);
	assert_int_equal(st.delivered, THREADS * PER_THREAD);
	assert_true(slow.commits >= 1);
	llog_shutdown();
}

/* A sink added after init, on its own thread: gets what follows, in order. */
static void test_added_while_running(void **state)
{
	static struct seen late;
	struct llog_sink_options qo = {.thread = LLOG_SINK_THREAD_OWN, .full = LLOG_QUEUE_BLOCK};

	(void)state;
	seen_init(&late);
	static struct seen quiet;

	seen_init(&quiet);
	assert_int_equal(llog_add_sink(cb_sink(&quiet)), 0); /* not the console */
	assert_int_equal(llog_init(NULL), 0);
	assert_int_equal(llog_add_sink_opts(cb_sink(&late), &qo), 0);
	run_producers();
	llog_shutdown(); /* drains the queue before closing */
	assert_complete(&late);
}

/* On the sink's thread, LOG is dropped and counted; llog_flush returns. */
static void test_sink_thread_logs(void **state)
{
	static struct seen s;
	struct llog_sink_options qo = {.thread = LLOG_SINK_THREAD_OWN, .full = LLOG_QUEUE_BLOCK};
	struct llog_stats before, after;

	(void)state;
	seen_init(&s);
	s.log_inside = 1;
	start_queued(&s, &qo);
	llog_get_stats(&before);
	for (int i = 0; i < 100; i++)
		LOG_INFO("q t=0 i=%d", i);
	llog_flush();
	llog_get_stats(&after);
	assert_int_equal(s.records, 100);
	assert_int_equal(after.dropped - before.dropped, 100);
	llog_shutdown();
}

static void test_bad_options(void **state)
{
	static struct seen s;
	struct llog_sink_options bad = {.thread = (enum llog_sink_thread)7};
	struct llog_sink_stats st;

	(void)state;
	seen_init(&s);
	assert_int_equal(llog_add_sink_opts(cb_sink(&s), &bad), -EINVAL);
	bad = (struct llog_sink_options){.full = (enum llog_queue_full)9};
	assert_int_equal(llog_add_sink_opts(cb_sink(&s), &bad), -EINVAL);
	assert_int_equal(llog_add_sink_opts(NULL, NULL), -EINVAL);
	assert_int_equal(llog_get_sink_stats(NULL, &st), -EINVAL);
}

/*
 * A sink stuck for good: llog_shutdown returns (after its drain timeout
 * and the wait for its thread), counts what it could not deliver (the
 * entry in the sink's hands included) in sink_lost, and does not close the sink its thread is still inside.
 * Last: the stuck thread stays until the process exits.
 */
static void test_stuck_sink_at_shutdown(void **state)
{
	static struct gate g;
	static struct stuck sk;
	struct llog_sink_options qo = {.drain_timeout_ms = 100};
	struct llog_stats before, after;

	(void)state;
	stuck_init(&sk, &stuck_ops, &g, 1);
	assert_int_equal(llog_add_sink_opts(&sk.base, &qo), 0);
	assert_int_equal(llog_init(NULL), 0);
	llog_get_stats(&before);
	for (int i = 0; i < 10; i++)
		LOG_INFO("q t=0 i=%d", i);
	gate_wait_held(&g);
	llog_shutdown();
	llog_get_stats(&after);
	assert_int_equal(sk.closed, 0);
	/* The first is inside the sink, the 9 behind it were never written:
	 * all 10 undelivered. */
	assert_int_equal(after.sink_lost - before.sink_lost, 10);
}

/* Whether thread tid of this process has exited (a detached thread's task
 * is gone from /proc once it returned). */
static int thread_gone(int tid)
{
	char p[64];

	snprintf(p, sizeof(p), "/proc/self/task/%d", tid);
	return access(p, F_OK) != 0;
}

/* A stuck sink of ops returning -EIO, its gate closed, added with qo; n
 * records logged, the first one held in the sink before the others; shut
 * down; the global counters before and after. */
static void hung_run(struct stuck *sk, const struct llog_sink_ops *ops, struct gate *g,
		     const struct llog_sink_options *qo, int n, struct llog_stats *before,
		     struct llog_stats *after)
{
	stuck_init(sk, ops, g, 1);
	sk->ret = -EIO;
	assert_int_equal(llog_add_sink_opts(&sk->base, qo), 0);
	assert_int_equal(llog_init(NULL), 0);
	llog_get_stats(before);
	LOG_INFO("q t=0 i=0");
	gate_wait_held(sk->g);
	for (int i = 1; i < n; i++)
		LOG_INFO("q t=0 i=%d", i);
	llog_shutdown();
	llog_get_stats(after);
}

/* After hung_run and its checks (st: the sink's statistics then): the
 * sink's call returns, failing, after shutdown gave up on it; once its
 * thread is gone, that late return counted nowhere (neither in
 * write_errors nor in sink_lost, nor in the sink's statistics), and the
 * sink was never closed. */
static void hung_late_return(struct stuck *sk, const struct llog_stats *after,
			     const struct llog_sink_stats *st)
{
	struct llog_sink_stats again;
	struct llog_stats later;
	int64_t deadline;

	gate_open(sk->g);
	deadline = now_ms() + 30000; /* a bound for a broken build, not a timing */
	while (!thread_gone(atomic_load(&sk->tid)) && now_ms() < deadline)
		sched_yield();
	assert_true(thread_gone(atomic_load(&sk->tid)));
	llog_get_stats(&later);
	assert_int_equal(later.write_errors, after->write_errors);
	assert_int_equal(later.sink_lost, after->sink_lost);
	assert_int_equal(llog_get_sink_stats(&sk->base, &again), 0);
	assert_memory_equal(&again, st, sizeof(*st));
	assert_int_equal(sk->closed, 0);
}

/*
 * A sink hung inside its write at shutdown, its queue overflowing: after
 * llog_shutdown gave up on it, its statistics are readable and add up
 * exactly. Every entry offered is exactly one of delivered, dropped or
 * undelivered, the one in the sink's hands counted undelivered; its
 * undelivered are in sink_lost, its drops in queue_dropped, and no notice
 * reached it. Then the write returns (failing): the late return counts
 * nowhere, neither in the sink's counters nor in write_errors or
 * sink_lost, once its thread is gone.
 */
static void test_hung_sink_counts_add_up(void **state)
{
	enum { N = 5000 };
	static struct gate g;
	static struct stuck sk;
	struct llog_sink_options qo = {.queue_bytes = 64 << 10, .drain_timeout_ms = 100,
				       .name = "hung"};
	struct llog_stats before, after;
	struct llog_sink_stats st;

	(void)state;
	/* the first entry in the sink's hands */
	hung_run(&sk, &stuck_ops, &g, &qo, N, &before, &after);
	assert_int_equal(sk.closed, 0); /* still in use: not closed */
	assert_int_equal(llog_get_sink_stats(&sk.base, &st), 0);
	assert_true(st.dropped > 0);
	assert_int_equal(st.queued + st.dropped, N);
	assert_int_equal(st.delivered, 0);
	assert_int_equal(st.queued, st.delivered + st.undelivered);
	assert_int_equal(st.notices, 0);
	assert_int_equal(st.announced, 0);
	assert_int_equal(after.sink_lost - before.sink_lost, st.undelivered);
	assert_int_equal(after.queue_dropped - before.queue_dropped, st.dropped);
	assert_int_equal(after.logged - before.logged, N);
	assert_int_equal(after.written - before.written, N);
	assert_int_equal(after.logged, after.written + after.dropped);
	hung_late_return(&sk, &after, &st); /* the write returns -EIO */
}

/* The same sink hung in its commit instead (its writes return at once). */
static long hung_commit_write(struct llog_sink *sk, const struct llog_entry *e)
{
	(void)sk;
	(void)e;
	return 0;
}

static long hung_commit(struct llog_sink *sk)
{
	struct stuck *st = (struct stuck *)sk;

	atomic_store(&st->tid, (int)syscall(SYS_gettid));
	gate_pass(st->g);
	return st->ret;
}

static const struct llog_sink_ops hung_commit_ops = {
	.version = LLOG_SINK_VERSION,
	.write = hung_commit_write,
	.commit = hung_commit,
	.close = stuck_close,
	.flags = LLOG_SINK_F_MAY_BLOCK,
};

/*
 * A sink hung in its commit at shutdown: the entry written before it is
 * delivered, every one behind it undelivered, nothing counted twice; the
 * commit that fails after shutdown gave up counts nowhere.
 */
static void test_hung_commit_counts_add_up(void **state)
{
	enum { N = 100 };
	static struct gate g;
	static struct stuck sk;
	struct llog_sink_options qo = {.drain_timeout_ms = 100, .name = "hung_commit"};
	struct llog_stats before, after;
	struct llog_sink_stats st;

	(void)state;
	/* written, its round's commit hangs */
	hung_run(&sk, &hung_commit_ops, &g, &qo, N, &before, &after);
	assert_int_equal(llog_get_sink_stats(&sk.base, &st), 0);
	assert_int_equal(st.queued + st.dropped, N);
	assert_int_equal(st.dropped, 0);
	assert_int_equal(st.delivered, 1);
	assert_int_equal(st.undelivered, N - 1);
	assert_int_equal(after.sink_lost - before.sink_lost, N - 1);
	hung_late_return(&sk, &after, &st); /* the commit returns -EIO */
}

static void *flush_timed(void *arg)
{
	int64_t *took = arg, t0 = now_ms();

	llog_flush();
	*took = now_ms() - t0;
	return NULL;
}

/*
 * Each llog_flush waits for a stuck sink's thread its own drain timeout
 * (from its own round), not what is left of an earlier flush's: B, started
 * while A waits, returns no sooner than a whole timeout after it started.
 * (Lower bounds only: a loaded machine can only make them longer.)
 */
static void test_flush_waits_its_own_timeout(void **state)
{
	static struct seen gated;
	enum { TIMEOUT = 400 };
	struct llog_sink_options qo = {.thread = LLOG_SINK_THREAD_OWN,
				       .drain_timeout_ms = TIMEOUT, .name = "gated"};
	struct llog_sink *gs;
	struct llog_sink_stats st;
	pthread_t a, b;
	int64_t took_a = 0, took_b = 0;

	(void)state;
	seen_init(&gated);
	gated.gate.closed = 1;
	gs = start_queued(&gated, &qo);
	LOG_INFO("q t=0 i=0");
	gate_wait_held(&gated.gate);
	LOG_INFO("q t=0 i=1");
	assert_int_equal(pthread_create(&a, NULL, flush_timed, &took_a), 0);
	{
		struct timespec half = {0, TIMEOUT / 2 * 1000000L};

		nanosleep(&half, NULL); /* B starts while A waits */
	}
	LOG_INFO("q t=0 i=2");
	assert_int_equal(pthread_create(&b, NULL, flush_timed, &took_b), 0);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	assert_true(took_a >= TIMEOUT - 20);
	assert_true(took_b >= TIMEOUT - 20);
	assert_int_equal(llog_get_sink_stats(gs, &st), 0);
	assert_int_equal(st.late_flushes, 2);
	gate_open(&gated.gate);
	llog_flush();
	assert_int_equal(gated.records, 3);
	llog_shutdown();
}

/*
 * fork() while a sink's own thread is stuck inside the sink: fork returns
 * (after a short bound, not the sink's drain timeout: a minute here, past
 * the alarm that ends the test) instead of waiting for the sink, and the
 * child, which must not use a sink caught mid-call, logs and shuts down
 * without it.
 */
static void test_fork_with_stuck_sink_thread(void **state)
{
	static struct seen gated, other;
	struct llog_sink_options qo = {.thread = LLOG_SINK_THREAD_OWN,
				       .drain_timeout_ms = 60000, .name = "gated"};
	int status;
	pid_t pid;

	(void)state;
#ifdef TEST_TSAN
	skip(); /* TSan cannot run threads in the child of a threaded fork */
#endif
	seen_init(&gated);
	seen_init(&other);
	gated.gate.closed = 1;
	assert_int_equal(llog_add_sink_opts(cb_sink(&gated), &qo), 0);
	assert_int_equal(llog_add_sink(cb_sink(&other)), 0);
	assert_int_equal(llog_init(NULL), 0);
	LOG_INFO("q t=0 i=0");
	gate_wait_held(&gated.gate);
	alarm(30); /* a hang detector: fork() waiting the drain timeout */
	pid = fork();
	alarm(0);
	assert_true(pid >= 0);
	if (pid == 0) {
		/* The inline sink works in the child; the gated one is
		 * not used (its copy is mid-call). */
		LOG_INFO("q t=0 i=1");
		llog_flush();
		llog_shutdown();
		_exit(other.records == 2 && gated.records == 0 ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	gate_open(&gated.gate);
	llog_shutdown();
	assert_int_equal(gated.records, 1);
}

/* How many of this process's threads are named name. */
static int threads_named(const char *name)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *de;
	int n = 0;

	assert_non_null(d);
	while ((de = readdir(d)) != NULL) {
		char path[300], comm[32];
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm", de->d_name);
		if ((f = fopen(path, "r")) == NULL)
			continue; /* exited meanwhile */
		if (fgets(comm, sizeof(comm), f) != NULL) {
			comm[strcspn(comm, "\n")] = '\0';
			n += strcmp(comm, name) == 0;
		}
		fclose(f);
	}
	closedir(d);
	return n;
}

/*
 * llog's threads are named, and each runs llog's own code when the call
 * that started it returns: llog_init for the flusher and the sinks added
 * before it, the flusher's round that installs a sink added later (which
 * llog_flush waits for). A fork() right after cannot catch one inside its
 * start-up, holding a lock of the C library or of a sanitizer runtime that
 * no fork handler takes (the child's first thread then waited for ever).
 * On one CPU, where a new thread runs only when its starter lets it: the
 * thread added later is otherwise still unnamed when llog_flush returns.
 * First in the file: no sink thread of an earlier test is left.
 */
static cpu_set_t all_cpus;

/* The affinity back and llog shut down, whatever the test did. */
static int unpin(void **state)
{
	(void)state;
	llog_shutdown();
	return sched_setaffinity(0, sizeof(all_cpus), &all_cpus);
}

/* Waits (10 s at most) until no thread is named name: a joined thread
 * leaves /proc/self/task a little after pthread_join returns. */
static int threads_named_gone(const char *name)
{
	int64_t deadline = now_ms() + 10000;

	while (threads_named(name) != 0 && now_ms() < deadline)
		sched_yield();
	return threads_named(name) == 0;
}

static void test_threads_up_when_started(void **state)
{
	static struct seen a, b;
	struct llog_sink_options qo = {.thread = LLOG_SINK_THREAD_OWN, .name = "a"};
	cpu_set_t one;
	int cpu = sched_getcpu();

	(void)state;
	seen_init(&a);
	seen_init(&b);
	assert_int_equal(sched_getaffinity(0, sizeof(all_cpus), &all_cpus), 0);
	assert_true(cpu >= 0);
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	assert_int_equal(sched_setaffinity(0, sizeof(one), &one), 0);
	assert_int_equal(threads_named("llog-flusher"), 0);
	assert_int_equal(threads_named("llog-sink"), 0);
	assert_int_equal(llog_add_sink_opts(cb_sink(&a), &qo), 0);
	assert_int_equal(llog_init(NULL), 0);
	assert_int_equal(threads_named("llog-flusher"), 1);
	assert_int_equal(threads_named("llog-sink"), 1);
	qo.name = "b";
	assert_int_equal(llog_add_sink_opts(cb_sink(&b), &qo), 0);
	llog_flush();
	assert_int_equal(threads_named("llog-sink"), 2);
	LOG_INFO("q t=0 i=0");
	llog_flush();
	assert_int_equal(a.records, 1);
	assert_int_equal(b.records, 1);
	llog_shutdown();
	assert_int_equal(sched_setaffinity(0, sizeof(all_cpus), &all_cpus), 0);
	assert_true(threads_named_gone("llog-flusher"));
	assert_true(threads_named_gone("llog-sink"));
}

/* A sink whose first commits fail (a collector away), then succeed. */
struct flaky {
	struct llog_sink base;
	_Atomic int commits;
	int fail_first;
	long entries;
};

static long flaky_write(struct llog_sink *sk, const struct llog_entry *e)
{
	(void)e;
	((struct flaky *)sk)->entries++;
	return 0;
}

static long flaky_commit(struct llog_sink *sk)
{
	struct flaky *f = (struct flaky *)sk;

	return atomic_fetch_add(&f->commits, 1) < f->fail_first ? -EIO : 0;
}

static void flaky_close(struct llog_sink *sk)
{
	(void)sk;
}

/*
 * A failed commit is retried by the sink's thread on its own, with no new
 * record to bring a round: after 3 failures the 4th commit succeeds
 * although nothing more is logged, and then no more are made; the failure
 * counts once in write_errors.
 */
static void test_failed_commit_retried_when_idle(void **state)
{
	static const struct llog_sink_ops ops = {.version = LLOG_SINK_VERSION,
						 .write = flaky_write,
						 .commit = flaky_commit,
						 .close = flaky_close};
	static struct flaky f;
	struct llog_sink_options qo = {.thread = LLOG_SINK_THREAD_OWN, .name = "flaky"};
	struct llog_stats before, after;
	int64_t deadline;

	(void)state;
	memset(&f, 0, sizeof(f));
	f.base.ops = &ops;
	f.fail_first = 3;
	assert_int_equal(llog_add_sink_opts(&f.base, &qo), 0);
	assert_int_equal(llog_init(NULL), 0);
	llog_get_stats(&before);
	LOG_INFO("q t=0 i=0");
	llog_flush();
	deadline = now_ms() + 10000;
	while (atomic_load(&f.commits) < 4 && now_ms() < deadline)
		sched_yield();
	assert_int_equal(atomic_load(&f.commits), 4);
	{
		struct timespec quiet = {0, 300 * 1000000L}; /* longer than the retry step */

		nanosleep(&quiet, NULL);
	}
	assert_int_equal(atomic_load(&f.commits), 4); /* no retry after a success */
	llog_get_stats(&after);
	assert_int_equal(after.write_errors - before.write_errors, 1);
	assert_int_equal(f.entries, 1);
	llog_shutdown();
}

/* ---- a sink that stores captures, on a thread of its own ------------------ */

void llog__logv(struct llog_site *site, va_list ap); /* producer.c, for tests */

static void log_site(struct llog_site *s, ...)
{
	va_list ap;

	va_start(ap, s);
	llog__logv(s, ap);
	va_end(ap);
}

/* What a sink that declares LLOG__SINK_F_RAW (the binary file sink, on its
 * own thread) was handed: each entry's message rendered from its capture
 * (capture.h) when it had one, else the entry's own. */
struct raw_sink {
	struct llog_sink base;
	long captured, texts, bad;
	char last[256];
	size_t last_len;
	long other_msg_len; /* a captured entry's msg_len (0: not copied) */
	size_t text_len;    /* the last text entry's msg_len, and its end */
	char text_tail[LLOG__MARKER_LEN + 1];
	char first_bad[400];
};

static long raw_write(struct llog_sink *sk, const struct llog_entry *e)
{
	struct raw_sink *r = (struct raw_sink *)sk;
	const struct llog__capture *c = llog__capture_of(e);
	char expect[64];
	int i = -1;
	size_t n;

	if (c != NULL) {
		int trunc = c->truncated;

		n = llog__fmt_render(r->last, sizeof(r->last) - 1, c->fmt, c->plan, c->args, &trunc);
		r->captured++;
		r->other_msg_len += (long)e->msg_len;
	} else {
		n = e->msg_len < sizeof(r->last) - 1 ? e->msg_len : sizeof(r->last) - 1;
		memcpy(r->last, e->msg, n);
		r->texts++;
		r->text_len = e->msg_len;
		if (e->msg_len >= LLOG__MARKER_LEN)
			memcpy(r->text_tail, e->msg + e->msg_len - LLOG__MARKER_LEN, LLOG__MARKER_LEN);
	}
	r->last[n] = '\0';
	r->last_len = n;
	/* "raw i=I s=<I's string> d=<I / 4>" from raw_records */
	if (sscanf(r->last, "raw i=%d", &i) == 1) {
		snprintf(expect, sizeof(expect), "raw i=%d s=%s d=%.2f", i, i % 2 ? "odd" : "even",
			 i / 4.0);
		if (strcmp(expect, r->last) != 0 || strcmp(e->func, "raw_records") != 0 ||
		    e->level != LLOG_WARN) {
			if (r->bad++ == 0)
				snprintf(r->first_bad, sizeof(r->first_bad), "[%s] [%s]", r->last,
					 expect);
		}
	}
	return (long)n;
}

static long raw_commit(struct llog_sink *sk)
{
	(void)sk;
	return 0;
}

static void raw_close(struct llog_sink *sk)
{
	(void)sk;
}

static const struct llog_sink_ops raw_ops = {
	.version = LLOG_SINK_VERSION,
	.write = raw_write,
	.commit = raw_commit,
	.close = raw_close,
	.flags = LLOG__SINK_F_RAW,
};

static void raw_records(int n)
{
	for (int i = 0; i < n; i++)
		LOG_WARN("raw i=%d s=%s d=%.2f", i, i % 2 ? "odd" : "even", i / 4.0);
}

/* The entries a callback got and the last one's message length. */
struct sized {
	_Atomic long n;
	_Atomic size_t len;
};

static void sized_entry(void *user, const struct llog_entry *e)
{
	struct sized *g = user;

	atomic_store(&g->len, e->msg_len);
	atomic_fetch_add(&g->n, 1);
}

static void count_entry(void *user, const struct llog_entry *e)
{
	(void)e;
	atomic_fetch_add((_Atomic long *)user, 1);
}

/* On a thread of its own, a sink that stores captures gets each LOG
 * record's capture (format, plan and arguments copied by its queue, the
 * message not copied), alone or beside a sink that needs the text; its
 * renderings are the messages. */
static void test_raw_sink_gets_captures(void **state)
{
	struct llog_sink_options own = {.thread = LLOG_SINK_THREAD_OWN, .full = LLOG_QUEUE_BLOCK};
	_Atomic long texts = 0;

	(void)state;
	for (int with_text = 0; with_text < 2; with_text++) {
		struct raw_sink r = {.base = {.ops = &raw_ops, .level = LLOG_TRACE}};

		llog__sink_own(&raw_ops); /* llog's own, as a test's (sink.h) */
		assert_int_equal(llog_add_sink_opts(&r.base, &own), 0);
		if (with_text) {
			/* on the flusher: it needs the text */
			struct llog_callback_options co = {.on_entry = count_entry, .user = &texts};

			assert_int_equal(llog_add_sink(llog_callback_sink(&co)), 0);
		}
		assert_int_equal(llog_init(NULL), 0);
		raw_records(3000);
		llog_shutdown();
		if (r.bad != 0)
			fail_msg("%ld bad renderings, first %s", r.bad, r.first_bad);
		assert_int_equal(r.captured, 3000);
		assert_int_equal(r.other_msg_len, 0);
		assert_int_equal(atomic_load(&texts), with_text ? 3000 : 0);
	}
}

/* A format too long for the queue to copy (over 16 KiB), with no sink that
 * needs the text: the flusher renders the message all the same, and the
 * sink gets it as text. */
static void test_raw_sink_long_format(void **state)
{
	struct llog_sink_options own = {.thread = LLOG_SINK_THREAD_OWN, .full = LLOG_QUEUE_BLOCK};
	struct raw_sink r = {.base = {.ops = &raw_ops, .level = LLOG_TRACE}};
	size_t fl = 20000;
	char *fmt = malloc(fl + 8);
	struct llog_site site;

	(void)state;
	llog__sink_own(&raw_ops); /* llog's own, as a test's (sink.h) */
	memset(fmt, 'x', fl);
	memcpy(fmt + fl, "%d", 3);
	site = (struct llog_site){fmt, "long.c", "long", 1, LLOG_INFO, 0, {0}, NULL, 0};
	assert_int_equal(llog_add_sink_opts(&r.base, &own), 0);
	assert_int_equal(llog_init(NULL), 0);
	log_site(&site, 42);
	llog_shutdown();
	assert_int_equal(r.captured, 0);
	assert_int_equal(r.texts, 1);
	/* the message, cut at the room of a record's rendering and marked
	 * (this sink keeps its first bytes and its end) */
	assert_int_equal(r.last_len, sizeof(r.last) - 1);
	assert_memory_equal(r.last, fmt, r.last_len);
	assert_true(r.text_len > 1000 && r.text_len < fl);
	assert_string_equal(r.text_tail, LLOG__MARKER);
	free(fmt);
}

/* A sink added before llog_init, on a thread of its own with BLOCK: its
 * queue was made with the max_record_bytes in force then (the default),
 * llog_init's is far larger. Its thread's start makes the ring as large as
 * the record needs (llog__sinkq_fit): the record arrives, and llog_flush
 * returns (before, the flusher waited for room that could never be). */
static void test_queue_fits_init_record_bound(void **state)
{
	struct llog_sink_options own = {.thread = LLOG_SINK_THREAD_OWN, .full = LLOG_QUEUE_BLOCK};
	struct llog_config cfg = {.max_record_bytes = 8u << 20, .arena_bytes = 64u << 20};
	size_t big = 6u << 20;
	char *s = malloc(big + 1);
	struct sized got = {0, 0};
	struct llog_callback_options co = {.user = &got};

	(void)state;
	co.on_entry = sized_entry;
	memset(s, 'b', big);
	s[big] = '\0';
	assert_int_equal(llog_add_sink_opts(llog_callback_sink(&co), &own), 0);
	assert_int_equal(llog_init(&cfg), 0);
	LOG_INFO("big %s", s);
	llog_flush();
	assert_int_equal(atomic_load(&got.n), 1);
	assert_int_equal(atomic_load(&got.len), big + 4);
	llog_shutdown();
	free(s);
}

TEST_MAIN(
	cmocka_unit_test_teardown(test_threads_up_when_started, unpin),
	cmocka_unit_test(test_blocked_sink_stalls_nothing),
	cmocka_unit_test(test_block_policy_loses_nothing),
	cmocka_unit_test(test_added_while_running),
	cmocka_unit_test(test_sink_thread_logs),
	cmocka_unit_test(test_bad_options),
	cmocka_unit_test(test_stuck_sink_at_shutdown),
	cmocka_unit_test(test_hung_sink_counts_add_up),
	cmocka_unit_test(test_hung_commit_counts_add_up),
	cmocka_unit_test(test_flush_waits_its_own_timeout),
	cmocka_unit_test(test_fork_with_stuck_sink_thread),
	cmocka_unit_test(test_failed_commit_retried_when_idle),
	cmocka_unit_test(test_raw_sink_gets_captures),
	cmocka_unit_test(test_raw_sink_long_format),
	cmocka_unit_test(test_queue_fits_init_record_bound),
)
