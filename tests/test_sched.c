/*
 * test_sched.c - the bad interleavings of the wake-up, BLOCK and shutdown
 * handshakes, forced with the schedule points of liblog/sched_points.h (this test
 * links llog_sched, the library built with -DLLOG_TEST_SCHED).
 *
 * Each test installs a hook that holds one thread at one point until
 * another thread has done its step, so the interleaving the handshake must
 * survive happens on every run, not once in a million. Every wait in a
 * hook is bounded (WAIT_MS): a broken handshake makes the test fail, never
 * hang. tests/mutants/run.sh breaks each handshake in turn and checks that
 * these tests fail:
 *
 *   test_push_after_take_wakes_flusher   an ERROR record wakes the
 *        flusher from its sleep, and one pushed right after that round's
 *        exchange F3 is written at once, not after the flush interval: F1
 *        (pending = 0, fence) must come before F3, and the asker must
 *        futex_wake the flusher (mutants M2, M8)
 *   test_blocked_producer_woken          a producer asleep on a full arena
 *        wakes within WAKE_BOUND_MS of the flusher's bump of space.seq, not
 *        at its 100 ms futex timeout (mutant M3)
 *   test_push_during_final_take          a record logged while the final
 *        round sits between its exchange and its end comes out exactly
 *        once (synchronously on stderr, since the list is CLOSED): stop
 *        must be read (F2) before the exchange (mutant M4)
 *   test_shard_cut_keeps_happens_before  on a queue of two heads, the
 *        flusher holds between its exchanges of head 0 and head 1; a record
 *        A is pushed on head 0 (after its exchange: next round), then,
 *        after A, a record B on head 1 (taken by this round): B must still
 *        come after A, held back by the round's cut (queue.c take_shards;
 *        mutant M11)
 *   test_fast_path_taken                 which calls take the fast path
 *        of typed calls (liblog/producer.c): a site's calls after its
 *        first, with or without a string or fields; never ERROR or a
 *        record kept for the backtrace only
 *   test_fast_path_ctx_after_entry       a context that could not be
 *        sent, marked between the fast path's entry test and its in_log
 *        (as by a signal handler there), is still sent before the record
 *        (by log_core: the fast path does not push it)
 *   test_fast_path_string_bound          a string that fills the record's
 *        bound is written by the fast path; one byte more goes to
 *        log_core, clipped and marked
 *   test_fast_path_go_slow               each reason of the go-slow words
 *        (arena.h, "The go-slow word") sends a call of a fast site to
 *        log_core: a thread without an arena yet, a signal handler's call
 *        inside a LOG (dropped, counted), a context to send first, the
 *        backtrace on (process-wide word: a call kept for it goes to
 *        log_core, an ordinary one stays fast)
 *   test_fast_path_stop                  the fast path's one bound, stop,
 *        never lets a reservation past the limit or the ring's end: over
 *        many laps of a small ring, with records that end exactly at its
 *        end and records that would cross it, stop stays within both
 *        after every call, and every record arrives once
 *   test_shrink_at_lap_end               log_core's reservation of the
 *        largest record that ends exactly at the ring's end, shrunk back
 *        into the lap before: stop stays within the lap's end, so the fast
 *        records after it never cross the ring's end

 *   test_fast_path_closed_then_open      a fast call without strings that
 *        found the list closed after writing its slots, and whose list is
 *        open again (llog_init) when log_core peeks: log_core captures the
 *        call's own slots, not those past them
 *   test_site_path_taken                 which calls the call sites' own
 *        fast path (llog/detail.h) takes, counted by its own schedule
 *        points: a FAST site's calls after its first, with strings and
 *        fields; not a char * given to %p (the plan's verdict), nor a NULL
 *        string; a string longer than that path writes goes on in the
 *        library's fast path, FAST_ENTER once
 *   test_site_path_other_abi             sites built for the
 *        LLOG__FAST_ABI before the library's and the one after
 *        (sched_site_abi.c, sched_site_abi_next.c) are never the site's
 *        path and log as any
 *   test_arena_not_made_under_in_log     a LOG that finds in_log set in a
 *        thread without an arena (a signal handler inside the arena's
 *        making) makes none over the owner words, counted as dropped; the
 *        next LOG makes it and logs
 *   test_exit_keeps_owner_words          a LOG (a signal handler's)
 *        between a thread's leaving its arena and its exit's last steps
 *        makes no arena over the owner words they read: the exit still
 *        announces the thread's drop; the LOG is counted as dropped
 *   test_site_path_ring                  the sites' own path over many
 *        laps of a small ring, at its end and near full (BLOCK): stop
 *        within its bounds after every call, every record once, in order
 *   test_site_path_closed_then_open      as test_fast_path_closed_then_open
 *        for the sites' own path, with a string and with fields
 *   test_site_path_cas_retry             the sites' own path's CAS fails
 *        (another thread pushed between its peek and its CAS): the
 *        library's retry pushes the record once, after the other, and
 *        leaves in_log clear, no drop pending and stop within its bounds
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "llog.h"
#include "memsink.h"
#include "arena.h"
#include "queue.h"
#include "sched_points.h"
#include "sched_site_abi.h"
#include "shards.h"

/* Bound of every wait in a hook or a test (a broken handshake fails): far
 * above what a correct handshake takes under TSan on a loaded machine
 * (milliseconds), short enough that a mutant that breaks one is killed in
 * seconds. */
#define WAIT_MS 2000
/* A woken BLOCK waiter must run within this of the flusher's bump; the
 * futex timeout that would wake it otherwise is 100 ms (arena.c). */
#define WAKE_BOUND_MS 50
/* A record pushed after F3 must be written within this; the flush
 * interval (what a lost wake-up costs) is 60 s. */
#define LATE_BOUND_MS 2000
#define INTERVAL_MS 600000 /* its fiftieth (the busy period) is far above every bound */

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Waits until *flag != 0, at most ms milliseconds; returns whether it is. */
static int wait_flag(_Atomic int *flag, int ms)
{
	int64_t deadline = now_ns() + (int64_t)ms * 1000000;
	struct timespec pause = {0, 100 * 1000};

	/* Acquire: pairs with the release store that set the flag. */
	while (atomic_load_explicit(flag, memory_order_acquire) == 0) {
		if (now_ns() > deadline)
			return 0;
		nanosleep(&pause, NULL);
	}
	return 1;
}

static void set_flag(_Atomic int *flag)
{
	atomic_store_explicit(flag, 1, memory_order_release);
}

/* Whether thread tid of this process sleeps in the kernel ('S'). */
static int thread_sleeps(pid_t tid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	p = strrchr(buf, ')'); /* "tid (comm) S ..." */
	return p != NULL && p[1] == ' ' && p[2] == 'S';
}

/* Waits until thread *tid sleeps in the kernel, at most ms milliseconds. */
static int wait_sleeping(_Atomic pid_t *tid, int ms)
{
	int64_t deadline = now_ns() + (int64_t)ms * 1000000;
	struct timespec pause = {0, 100 * 1000};

	while (!thread_sleeps(atomic_load(tid))) {
		if (now_ns() > deadline)
			return 0;
		nanosleep(&pause, NULL);
	}
	return 1;
}

/* Occurrences of needle in the memsink's entries. */
static int memsink_count(const struct memsink *m, const char *needle)
{
	int n = 0;

	for (size_t i = 0; i < m->n; i++)
		if (strstr(m->e[i].msg, needle) != NULL)
			n++;
	return n;
}

/* ---- a producer thread that logs one record when told to ----------------- */

struct one_shot {
	_Atomic int go, done;
	int level;
	const char *text;
	int64_t t_done;
};

static void *one_shot_main(void *arg)
{
	struct one_shot *o = arg;

	if (!wait_flag(&o->go, 2 * WAIT_MS))
		return NULL;
	if (o->level == LLOG_ERROR)
		LOG_ERROR("%s", o->text);
	else
		LOG_INFO("%s", o->text);
	o->t_done = now_ns();
	set_flag(&o->done);
	return NULL;
}

/* ---- M2, M8: a push right after F3 wakes the flusher ---------------------- */

static struct {
	struct one_shot shot;
	_Atomic int asleep, armed, fired, shot_timeout;
	_Atomic pid_t flusher_tid;
	_Atomic int written;
	_Atomic int64_t t_written;
} w;

/* The flusher about to sleep (F6): noted, so the test can wake it from
 * its sleep. Armed, in the round that wake-up starts, right after its
 * exchange (F3): the other thread pushes an ERROR record and asks for a
 * round now. */
static void hook_after_take(enum llog__sched_point p)
{
	if (p == LLOG__SP_SLEEP) {
		atomic_store(&w.flusher_tid, (pid_t)syscall(SYS_gettid));
		set_flag(&w.asleep);
		return;
	}
	if (p != LLOG__SP_TAKE_F3 || !atomic_load(&w.armed) || atomic_exchange(&w.fired, 1) != 0)
		return;
	set_flag(&w.shot.go);
	if (!wait_flag(&w.shot.done, WAIT_MS))
		set_flag(&w.shot_timeout);
}

static void late_written(struct memsink *m, const struct llog_entry *e)
{
	(void)m;
	if (e->msg_len == strlen("sched-late") && memcmp(e->msg, "sched-late", e->msg_len) == 0) {
		atomic_store(&w.t_written, now_ns());
		set_flag(&w.written);
	}
}

static void test_push_after_take_wakes_flusher(void **state)
{
	struct memsink *m = memsink_new(LLOG_TRACE);
	struct llog_config cfg = {.flush_interval_ms = INTERVAL_MS};
	pthread_t th;
	int64_t waited_us;

	(void)state;
	memset(&w, 0, sizeof(w));
	w.shot.level = LLOG_ERROR;
	w.shot.text = "sched-late";
	m->hook = late_written;
	/* No llog_flush() here or below: it relies on the wake-up under
	 * test, and a mutant would make it wait for the interval. */
	llog__sched_set_hook(hook_after_take);
	assert_int_equal(memsink_start(m, &cfg), 0);
	assert_int_equal(pthread_create(&th, NULL, one_shot_main, &w.shot), 0);
	/* the flusher sleeps in the kernel (for the 60 s interval) ... */
	assert_true(wait_flag(&w.asleep, WAIT_MS));
	assert_true(wait_sleeping(&w.flusher_tid, WAIT_MS));
	/* ... and only the ERROR record's wake-up can start the held round */
	set_flag(&w.armed);
	LOG_ERROR("sched-wake");
	assert_true(wait_flag(&w.shot.done, WAIT_MS));
	assert_false(atomic_load(&w.shot_timeout));
	/* Measured from the push of the late record: the flusher must be
	 * (or stay) awake for it, not sleep the 60 s interval. */
	wait_flag(&w.written, LATE_BOUND_MS);
	llog__sched_set_hook(NULL);
	waited_us = atomic_load(&w.written) ? (atomic_load(&w.t_written) - w.shot.t_done) / 1000 : -1;
	printf("late record written %.3f ms after its push (bound %d ms)\n", waited_us / 1e3,
	       LATE_BOUND_MS);
	assert_true(atomic_load(&w.written));
	assert_true(waited_us < LATE_BOUND_MS * 1000);
	pthread_join(th, NULL);
	llog_shutdown();
	assert_int_equal(memsink_count(m, "sched-wake"), 1);
	assert_int_equal(memsink_count(m, "sched-late"), 1);
	memsink_free(m);
}

/* ---- M3: a producer blocked on a full arena is woken by the flusher ------- */

#define BLOCK_RECORDS 400

static struct {
	_Atomic int armed;
	_Atomic int at_sleep, round_held, bumped;
	_Atomic int held_timeout, sleep_timeout, producer_done;
	_Atomic pid_t tid;
	_Atomic int64_t t_release, t_woken;
	long next, got, bad;
} b;

static void hook_blocked(enum llog__sched_point p)
{
	switch (p) {
	case LLOG__SP_SPACE_SLEEP:
		/* the producer: full, about to futex_wait on space.seq */
		if (atomic_load(&b.at_sleep) == 0) {
			atomic_store(&b.tid, (pid_t)syscall(SYS_gettid));
			set_flag(&b.at_sleep);
		}
		break;
	case LLOG__SP_TAKE_F1:
		/* the flusher's first round after arming: it releases nothing
		 * until the producer found the ring full and decided to sleep */
		if (atomic_exchange(&b.round_held, 1) == 0 && !wait_flag(&b.at_sleep, WAIT_MS))
			set_flag(&b.held_timeout);
		break;
	case LLOG__SP_WAITERS_BUMP: {
		/* the flusher released the ring and saw the waiter: hold the
		 * bump until the producer sleeps in the kernel, then time it */
		if (!atomic_load(&b.at_sleep) || atomic_exchange(&b.bumped, 1) != 0)
			break;
		if (!wait_sleeping(&b.tid, WAIT_MS))
			set_flag(&b.sleep_timeout);
		atomic_store(&b.t_release, now_ns());
		break;
	}
	case LLOG__SP_SPACE_WOKEN: {
		/* the producer, back from its first sleep (woken, or timed out) */
		int64_t zero = 0;

		atomic_compare_exchange_strong(&b.t_woken, &zero, now_ns());
		break;
	}
	default:
		break;
	}
}

static void block_tally(struct memsink *m, const struct llog_entry *e)
{
	char buf[64];
	size_t k = e->msg_len < sizeof(buf) - 1 ? e->msg_len : sizeof(buf) - 1;
	long s;

	(void)m;
	memcpy(buf, e->msg, k);
	buf[k] = '\0';
	if (sscanf(buf, "block seq=%ld", &s) != 1)
		return;
	if (s != b.next)
		b.bad++;
	b.next = s + 1;
	b.got++;
}

static void *block_producer(void *arg)
{
	static const char pad[] = "................................................"
				  "................................................";

	(void)arg;
	for (long i = 0; i < BLOCK_RECORDS; i++)
		LOG_INFO("block seq=%ld %s", i, pad);
	set_flag(&b.producer_done);
	return NULL;
}

/* One attempt; returns the latency in microseconds, or -1 when the producer's first
 * wake came before the bump (it timed out while the flusher was slower
 * than 100 ms to get there: the schedule did not happen, try again). */
static int64_t blocked_attempt(void)
{
	struct memsink *m = memsink_new(LLOG_TRACE);
	struct llog_config cfg = {.arena_bytes = 16 * 1024, .overflow = LLOG_OVERFLOW_BLOCK,
				  .flush_interval_ms = INTERVAL_MS};
	struct llog_stats before, after;
	int64_t t_release, t_woken;
	pthread_t th;

	memset(&b, 0, sizeof(b));
	m->hook = block_tally;
	m->nostore = 1;
	llog_get_stats(&before);
	assert_int_equal(memsink_start(m, &cfg), 0);
	llog__sched_set_hook(hook_blocked);
	assert_int_equal(pthread_create(&th, NULL, block_producer, NULL), 0);
	/* bounded: each block must be ended by the flusher's wake, which
	 * needs the producer's wake of the flusher first (the interval is
	 * 60 s) */
	assert_true(wait_flag(&b.producer_done, 2 * WAIT_MS));
	pthread_join(th, NULL);
	llog__sched_set_hook(NULL);
	llog_shutdown();
	llog_get_stats(&after);
	assert_false(atomic_load(&b.held_timeout));
	assert_false(atomic_load(&b.sleep_timeout));
	assert_true(atomic_load(&b.bumped));
	/* nothing lost, in order, and the producer did block */
	assert_int_equal(b.got, BLOCK_RECORDS);
	assert_int_equal(b.bad, 0);
	assert_true(after.blocked > before.blocked);
	assert_int_equal(after.written - before.written, BLOCK_RECORDS);
	memsink_free(m);
	t_release = atomic_load(&b.t_release);
	t_woken = atomic_load(&b.t_woken);
	assert_true(t_release != 0 && t_woken != 0);
	if (t_woken < t_release)
		return -1;
	return (t_woken - t_release) / 1000;
}

static void test_blocked_producer_woken(void **state)
{
	int64_t us = -1;

	(void)state;
	for (int i = 0; i < 3 && us < 0; i++)
		us = blocked_attempt();
	printf("blocked producer ran %.3f ms after the flusher's bump (bound %d ms)\n", us / 1e3,
	       WAKE_BOUND_MS);
	assert_true(us >= 0);
	assert_true(us < WAKE_BOUND_MS * 1000);
}

/* ---- M4: a push during the final round's take ------------------------------ */

static struct {
	struct one_shot shot;
	_Atomic int held, fired;
	_Atomic int stop_timeout, shot_timeout;
} f;

static void hook_final_take(enum llog__sched_point p)
{
	if (p == LLOG__SP_TAKE_F1 && atomic_exchange(&f.held, 1) == 0) {
		/* the first round after arming waits for llog_shutdown's
		 * stop = 1, so that it is the final one */
		int64_t deadline = now_ns() + (int64_t)WAIT_MS * 1000000;
		struct timespec pause = {0, 100 * 1000};

		/* Acquire: pairs with the seq_cst store in llog__queue_stop. */
		while (llog__load_acquire(&llog__q.stop) == 0 && now_ns() < deadline)
			nanosleep(&pause, NULL);
		if (llog__load_acquire(&llog__q.stop) == 0)
			set_flag(&f.stop_timeout);
	} else if (p == LLOG__SP_TAKE_F3 && atomic_exchange(&f.fired, 1) == 0) {
		/* the final exchange is done: another thread logs now */
		set_flag(&f.shot.go);
		if (!wait_flag(&f.shot.done, WAIT_MS))
			set_flag(&f.shot_timeout);
	}
}

/* Occurrences of needle in the file at fd (read from the start). */
static int file_count(int fd, const char *needle)
{
	static char buf[1 << 16];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	int count = 0;

	if (n <= 0)
		return 0;
	buf[n] = '\0';
	for (char *p = buf; (p = strstr(p, needle)) != NULL; p += strlen(needle))
		count++;
	return count;
}

static void test_push_during_final_take(void **state)
{
	struct memsink *m = memsink_new(LLOG_TRACE);
	struct llog_config cfg = {.flush_interval_ms = INTERVAL_MS};
	char path[] = "/tmp/llog-test-sched-XXXXXX";
	int fd, saved, on_stderr, in_sink;
	pthread_t th;

	(void)state;
	memset(&f, 0, sizeof(f));
	f.shot.level = LLOG_INFO;
	f.shot.text = "sched-final";
	fd = mkstemp(path);
	assert_true(fd >= 0);
	unlink(path);
	assert_int_equal(memsink_start(m, &cfg), 0);
	assert_int_equal(pthread_create(&th, NULL, one_shot_main, &f.shot), 0);
	llog__sched_set_hook(hook_final_take);
	/* the line written synchronously (list CLOSED) goes to stderr */
	fflush(stderr);
	saved = dup(2);
	assert_true(saved >= 0);
	assert_int_equal(dup2(fd, 2), 2);
	llog_shutdown();
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	llog__sched_set_hook(NULL);
	assert_false(atomic_load(&f.stop_timeout));
	assert_true(atomic_load(&f.fired));
	assert_false(atomic_load(&f.shot_timeout));
	on_stderr = file_count(fd, "sched-final");
	in_sink = memsink_count(m, "sched-final");
	printf("record logged during the final take: %d in the sink, %d on stderr\n", in_sink,
	       on_stderr);
	/* exactly once, wherever it went (the final round took the list
	 * with CLOSED, so: synchronously, on stderr) */
	assert_int_equal(in_sink + on_stderr, 1);
	/* only now: a lost record's thread would wait at exit for ever for
	 * its arena to drain */
	pthread_join(th, NULL);
	close(fd);
	memsink_free(m);
}

/* ---- M11: a sharded queue's cut keeps happens-before --------------------- */

struct on_head {
	unsigned head;
	const char *text;
	uint32_t given; /* the head offset its arena gave it */
	_Atomic int ready, go, done;
};

static struct {
	struct on_head a, b;
	_Atomic int armed, fired, hook_done, timeout;
} sh;

/* Logs once to get an arena (which assigns a head), then pushes on the
 * head it was told to, when told to. */
static void *on_head_main(void *arg)
{
	struct on_head *o = arg;

	LOG_INFO("shard-warm");
	o->given = llog__tls_head_off;
	/* this thread's head from now on */
	llog__tls_head_off = o->head * (uint32_t)sizeof(struct llog__shard);
	set_flag(&o->ready);
	if (!wait_flag(&o->go, 2 * WAIT_MS))
		return NULL;
	LOG_INFO("%s", o->text);
	set_flag(&o->done);
	return NULL;
}

/* The first round after arming, between the exchanges of head 0 and of
 * head 1: A logs on head 0, and then B on head 1. */
static void hook_between_heads(enum llog__sched_point p)
{
	if (p != LLOG__SP_TAKE_HEAD || !atomic_load(&sh.armed) || atomic_exchange(&sh.fired, 1) != 0)
		return;
	set_flag(&sh.a.go);
	if (!wait_flag(&sh.a.done, WAIT_MS))
		set_flag(&sh.timeout);
	/* B's LOG begins after A's returned (the done/go flags) */
	set_flag(&sh.b.go);
	if (!wait_flag(&sh.b.done, WAIT_MS))
		set_flag(&sh.timeout);
	set_flag(&sh.hook_done);
}

/* Index of the first entry that is exactly text, or -1. */
static long memsink_find(const struct memsink *m, const char *text)
{
	for (size_t i = 0; i < m->n; i++)
		if (strcmp(m->e[i].msg, text) == 0)
			return (long)i;
	return -1;
}

static void test_shard_cut_keeps_happens_before(void **state)
{
	struct memsink *m = memsink_new(LLOG_TRACE);
	struct llog_config cfg = {.flush_interval_ms = INTERVAL_MS, .queue_shards = 2};
	pthread_t ta, tb;
	long ia, ib;

	(void)state;
	memset(&sh, 0, sizeof(sh));
	sh.a.head = 0;
	sh.a.text = "shard-A";
	sh.b.head = 1;
	sh.b.text = "shard-B";
	shards_force(); /* heads on every machine (shards.h) */
	assert_int_equal(memsink_start(m, &cfg), 0);
	/* Relaxed: set by llog_init, before it returned. Two heads. */
	assert_int_equal(llog__load_relaxed(&llog__pw.head_mask), sizeof(struct llog__shard));
	llog__sched_set_hook(hook_between_heads);
	assert_int_equal(pthread_create(&ta, NULL, on_head_main, &sh.a), 0);
	assert_int_equal(pthread_create(&tb, NULL, on_head_main, &sh.b), 0);
	assert_true(wait_flag(&sh.a.ready, WAIT_MS));
	assert_true(wait_flag(&sh.b.ready, WAIT_MS));
	/* threads take the heads in turn: two new ones, two heads */
	assert_int_not_equal(sh.a.given & llog__pw.head_mask, sh.b.given & llog__pw.head_mask);
	/* No llog_flush() here or below: it relies on the wake-up that
	 * mutant M8 breaks, and would wait out the interval. The first
	 * round after arming is the one held between its exchanges. */
	set_flag(&sh.armed);
	llog__wake_flusher();
	assert_true(wait_flag(&sh.hook_done, 2 * WAIT_MS));
	assert_false(atomic_load(&sh.timeout));
	llog__sched_set_hook(NULL);
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
	/* the final round hands out what that round held back, merged */
	llog_shutdown();
	assert_int_equal(memsink_count(m, "shard-warm"), 2);
	ia = memsink_find(m, "shard-A");
	ib = memsink_find(m, "shard-B");
	printf("shard-A at %ld, shard-B at %ld of %zu entries\n", ia, ib, m->n);
	assert_int_equal(memsink_count(m, "shard-A"), 1);
	assert_int_equal(memsink_count(m, "shard-B"), 1);
	assert_true(ia >= 0 && ib > ia);
	memsink_free(m);
}

/* ---- the fast path (liblog/producer.c) ------------------------------------ */

/* FAST_ENTER: a call passed the fast path's entry checks, before in_log;
 * FAST_PUSH: the fast path wrote the whole record (a call it left to
 * log_core after FAST_ENTER does not get there). */
static _Atomic int fast_entered, fast_pushed;
static _Atomic int dirty_once;

static void hook_count_fast(enum llog__sched_point p)
{
	if (p == LLOG__SP_FAST_ENTER)
		atomic_fetch_add(&fast_entered, 1);
	if (p == LLOG__SP_FAST_PUSH)
		atomic_fetch_add(&fast_pushed, 1);
}

static void log_same(int i)
{
	LOG_INFO("same %d", i);
}

static void log_str(const char *s)
{
	LOG_INFO("str %s", s);
}

static void log_fields(int i)
{
	LOG_INFO_KV(("k", i), "kv");
}

static void log_err(int i)
{
	LOG_ERROR("err %d", i);
}

static void log_bt(int i)
{
	LOG_DEBUG("kept %d", i);
}

/* Which calls take the fast path: a site's calls after its first, with
 * an int, a string or fields; never an ERROR (it wakes the flusher) nor a
 * record kept for the backtrace only (log_core flags it). */
static void test_fast_path_taken(void **state)
{
	struct memsink *m = memsink_new(LLOG_TRACE);
	struct llog_config cfg = {0};

	(void)state;
	/* a short interval: under a mutant that breaks the wake-up
	 * (tests/mutants), llog_flush still returns at once */
	cfg.flush_interval_ms = 5;
	cfg.level = LLOG_INFO;
	cfg.backtrace_records = 16;
	cfg.backtrace_level = LLOG_DEBUG;
	assert_int_equal(memsink_start(m, &cfg), 0);
	atomic_store(&fast_entered, 0);
	atomic_store(&fast_pushed, 0);
	llog__sched_set_hook(hook_count_fast);
	for (int i = 0; i < 3; i++)
		log_same(i);
	assert_int_equal(atomic_load(&fast_entered), 2);
	assert_int_equal(atomic_load(&fast_pushed), 2);
	for (int i = 0; i < 3; i++)
		log_str("x");
	assert_int_equal(atomic_load(&fast_entered), 4);
	assert_int_equal(atomic_load(&fast_pushed), 4);
	for (int i = 0; i < 3; i++)
		log_fields(i);
	assert_int_equal(atomic_load(&fast_entered), 6);
	assert_int_equal(atomic_load(&fast_pushed), 6);
	for (int i = 0; i < 3; i++)
		log_err(i);
	for (int i = 0; i < 3; i++)
		log_bt(i);
	assert_int_equal(atomic_load(&fast_entered), 6);
	assert_int_equal(atomic_load(&fast_pushed), 6);
	llog__sched_set_hook(NULL);
	llog_flush();
	assert_int_equal(memsink_count(m, "same 2"), 1);
	assert_int_equal(memsink_count(m, "str x"), 3);
	assert_int_equal(memsink_count(m, "kv"), 3);
	assert_int_equal(memsink_count(m, "err 2"), 1);
	llog_shutdown();
	memsink_free(m);
}

static void log_bound(const char *s)
{
	LOG_INFO("%s", s);
}

/* The fast path's string bound: a string that fills the record's bound
 * exactly (the default max_record_bytes, 4 KiB: 4,092 bytes of one %s) is
 * written by the fast path; one byte more is left to log_core, which
 * clips and marks it, with nothing of the fast path's placement taken. */
static void test_fast_path_string_bound(void **state)
{
	struct memsink *m = memsink_new(LLOG_TRACE);
	struct llog_config cfg = {0};
	static char fits[4093], over[4094];
	struct llog_stats st0, st;

	(void)state;
	memset(fits, 'f', sizeof(fits) - 1);
	memset(over, 'o', sizeof(over) - 1);
	cfg.flush_interval_ms = 5; /* as above */
	assert_int_equal(memsink_start(m, &cfg), 0);
	llog_get_stats(&st0);
	log_bound("first"); /* the site's first call: log_core */
	atomic_store(&fast_entered, 0);
	atomic_store(&fast_pushed, 0);
	llog__sched_set_hook(hook_count_fast);
	log_bound(fits);
	assert_int_equal(atomic_load(&fast_entered), 1);
	assert_int_equal(atomic_load(&fast_pushed), 1);
	log_bound(over);
	assert_int_equal(atomic_load(&fast_entered), 2);
	assert_int_equal(atomic_load(&fast_pushed), 1);
	log_bound(fits);
	assert_int_equal(atomic_load(&fast_pushed), 2);
	llog__sched_set_hook(NULL);
	llog_flush();
	llog_get_stats(&st);
	assert_int_equal(st.truncated - st0.truncated, 1);
	assert_int_equal(st.dropped - st0.dropped, 0);
	/* (the memsink keeps a message's length and its first bytes) */
	assert_int_equal(memsink_count(m, "first"), 1);
	for (size_t i = 0, nf = 0, no = 0; i < m->n; i++) {
		nf += m->e[i].msg_len == sizeof(fits) - 1 && m->e[i].msg[0] == 'f' &&
		      m->e[i].msg[MEMSINK_MSG - 2] == 'f';
		no += m->e[i].msg_len == sizeof(over) - 2 + strlen(" [truncated]") &&
		      m->e[i].msg[0] == 'o';
		if (i + 1 == m->n) {
			assert_int_equal(nf, 2);
			assert_int_equal(no, 1);
		}
	}
	assert_int_equal(m->n, 4);
	llog_shutdown();
	memsink_free(m);
}

/* As a signal handler that runs between the fast path's test of the busy
 * word and its in_log, and whose llog_ctx_set finds no room for its CTX
 * record: ctx_dirty set at that point. */
static void hook_dirty(enum llog__sched_point p)
{
	if (p == LLOG__SP_FAST_ENTER && atomic_exchange(&dirty_once, 0))
		llog__owner()->ctx_dirty = 1;
	if (p == LLOG__SP_FAST_PUSH)
		atomic_fetch_add(&fast_pushed, 1);
}

/* The fast path reads ctx_dirty again once in_log is set, as log_core
 * reads it: the call goes to log_core, which sends the context first. */
static void test_fast_path_ctx_after_entry(void **state)
{
	struct memsink *m = memsink_new(LLOG_TRACE);
	struct llog_config cfg = {0};

	(void)state;
	cfg.flush_interval_ms = 5; /* as above */
	assert_int_equal(memsink_start(m, &cfg), 0);
	assert_int_equal(llog_ctx_set("c", "v"), 0);
	log_same(1); /* the site's first call */
	atomic_store(&dirty_once, 1);
	atomic_store(&fast_pushed, 0);
	llog__sched_set_hook(hook_dirty);
	log_same(2);
	llog__sched_set_hook(NULL);
	assert_int_equal(atomic_load(&dirty_once), 0); /* the fast path was entered */
	assert_int_equal(atomic_load(&fast_pushed), 0); /* and left to log_core */
	assert_int_equal(llog__owner()->ctx_dirty, 0);   /* and the context sent */
	llog_flush();
	assert_int_equal(memsink_count(m, "same 1"), 1);
	assert_int_equal(memsink_count(m, "same 2"), 1);
	(void)llog_ctx_clear();
	llog_shutdown();
	memsink_free(m);
}

/* A thread's first two calls at a site that is fast already: how many
 * entered the fast path after each, and whether the first made the arena. */
struct first_calls {
	int entered1, entered2, had_arena, made_arena;
};

static void *first_calls_thread(void *p)
{
	struct first_calls *fc = p;
	int before = atomic_load(&fast_entered);

	fc->had_arena = llog__arena_mine() != NULL;
	log_same(70);
	fc->entered1 = atomic_load(&fast_entered) - before;
	fc->made_arena = llog__arena_mine() != NULL;
	log_same(71);
	fc->entered2 = atomic_load(&fast_entered) - before;
	return NULL;
}

static _Atomic int reenter_once;

/* A LOG of a fast site from a signal handler. */
static void on_reenter(int sig)
{
	(void)sig;
	log_same(90);
}

/* At FAST_PUSH (in_log set, the record written), once: a signal whose
 * handler logs, as one that interrupts a LOG there. */
static void hook_reenter(enum llog__sched_point p)
{
	hook_count_fast(p);
	if (p == LLOG__SP_FAST_PUSH && atomic_exchange(&reenter_once, 0))
		raise(SIGUSR2);
}

static void test_fast_path_go_slow(void **state)
{
	struct memsink *m = memsink_new(LLOG_TRACE);
	struct llog_config cfg = {0};
	struct llog_stats st0, st;
	struct first_calls fc = {0};
	struct sigaction sa;
	pthread_t t;
	int e;

	(void)state;
	cfg.flush_interval_ms = 5; /* as above */
	assert_int_equal(memsink_start(m, &cfg), 0);
	/* no backtrace, the plain TSC where the machine has it: the
	 * process-wide word has at most the clock's bit */
	assert_int_equal(llog__queue_slow() & LLOG__Q_SLOW_BT, 0);
	log_same(0); /* the site's first call: log_core decides FAST */
	atomic_store(&fast_entered, 0);
	atomic_store(&fast_pushed, 0);
	llog__sched_set_hook(hook_count_fast);
	log_same(1);
	assert_int_equal(atomic_load(&fast_entered), 1);

	/* no arena yet: log_core, which makes it; then the fast path */
	assert_int_equal(pthread_create(&t, NULL, first_calls_thread, &fc), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(fc.had_arena, 0);
	assert_int_equal(fc.entered1, 0);
	assert_int_equal(fc.made_arena, 1);
	assert_int_equal(fc.entered2, 1);

	/* a context to send first (a CTX record dropped under DROP):
	 * log_core sends it, then the record; the next call is fast again */
	assert_int_equal(llog_ctx_set("c", "v"), 0);
	e = atomic_load(&fast_entered);
	llog__owner()->ctx_dirty = 1;
	log_same(2);
	assert_int_equal(atomic_load(&fast_entered), e);
	assert_int_equal(llog__owner()->ctx_dirty, 0);
	log_same(3);
	assert_int_equal(atomic_load(&fast_entered), e + 1);
	(void)llog_ctx_clear();

	/* re-entry: a handler's call inside a fast LOG finds in_log set,
	 * leaves the fast path and is dropped and counted */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_reenter;
	sigemptyset(&sa.sa_mask);
	assert_int_equal(sigaction(SIGUSR2, &sa, NULL), 0);
	llog_get_stats(&st0);
	e = atomic_load(&fast_entered);
	atomic_store(&reenter_once, 1);
	llog__sched_set_hook(hook_reenter);
	log_same(4);
	llog__sched_set_hook(hook_count_fast);
	assert_int_equal(atomic_load(&reenter_once), 0);
	assert_int_equal(atomic_load(&fast_entered), e + 1); /* the outer call only */
	llog_get_stats(&st);
	assert_int_equal(st.dropped - st0.dropped, 1);
	signal(SIGUSR2, SIG_DFL);
	llog__sched_set_hook(NULL);
	llog_flush();
	for (int i = 1; i <= 4; i++) {
		char want[16];

		snprintf(want, sizeof(want), "same %d", i);
		assert_int_equal(memsink_count(m, want), 1);
	}
	assert_int_equal(memsink_count(m, "same 70"), 1);
	assert_int_equal(memsink_count(m, "same 71"), 1);
	assert_int_equal(memsink_count(m, "same 90"), 0);
	llog_shutdown();
	memsink_free(m);

	/* the backtrace on: the process-wide word says so; an ordinary call
	 * still takes the fast path, one kept for the backtrace does not
	 * (test_fast_path_taken), and off again at the next llog_init */
	m = memsink_new(LLOG_TRACE);
	cfg.level = LLOG_INFO;
	cfg.backtrace_records = 16;
	cfg.backtrace_level = LLOG_DEBUG;
	assert_int_equal(memsink_start(m, &cfg), 0);
	assert_int_not_equal(llog__queue_slow() & LLOG__Q_SLOW_BT, 0);
	atomic_store(&fast_entered, 0);
	llog__sched_set_hook(hook_count_fast);
	log_same(5); /* (the thread's arena went with the shutdown: log_core) */
	log_same(6);
	log_bt(5);
	assert_int_equal(atomic_load(&fast_entered), 1);
	llog__sched_set_hook(NULL);
	llog_shutdown();
	memsink_free(m);
	m = memsink_new(LLOG_TRACE);
	cfg.backtrace_records = 0;
	cfg.backtrace_level = LLOG_TRACE;
	assert_int_equal(memsink_start(m, &cfg), 0);
	assert_int_equal(llog__queue_slow() & LLOG__Q_SLOW_BT, 0);
	llog_shutdown();
	memsink_free(m);
}

/* stop within its bounds (arena.h, "Stop and wake"), as distances from
 * reserve: at most the limit's and the lap end's. */
/* Starts llog into m with the smallest ring (16 KiB: many laps), a round
 * every 5 ms (as above), BLOCK, and max_record (0: the default). */
static void start_small_ring(struct memsink *m, size_t max_record)
{
	struct llog_config cfg = {0};

	cfg.flush_interval_ms = 5;
	cfg.arena_bytes = 16384;
	cfg.max_record_bytes = max_record;
	cfg.overflow = LLOG_OVERFLOW_BLOCK;
	assert_int_equal(memsink_start(m, &cfg), 0);
}

static void check_stop(void)
{
	const struct llog__own *o = llog__owner();
	uint32_t lap_end = (o->reserve | o->mask) + 1u;

	assert_true(o->stop - o->reserve <= o->limit - o->reserve);
	assert_true(o->stop - o->reserve <= lap_end - o->reserve);
	assert_true(o->limit - o->reserve <= o->size);
}

static void log_wide2(long i)
{
	LOG_INFO("wide %ld %ld", i, i); /* 16 bytes: a 64-byte record */
}

static void log_int3(int i)
{
	LOG_INFO("int %d %d %d", i, i, i); /* 12 bytes: a 64-byte record */
}

static void log_bare(void)
{
	LOG_INFO("bare"); /* the header alone: 48 bytes */
}

static void test_fast_path_stop(void **state)
{
	struct memsink *m = memsink_new(LLOG_TRACE);
	struct llog__arena *a;
	size_t wide = 0, ints = 0, bare = 0;
	int pushed;

	(void)state;
	start_small_ring(m, 0);
	log_bare();
	a = llog__arena_mine();
	assert_non_null(a);
	check_stop();
	atomic_store(&fast_pushed, 0);
	llog__sched_set_hook(hook_count_fast);
	/* 64-byte records end exactly at the ring's end; a 48-byte one
	 * now and then shifts them so that later ones would cross it */
	for (int i = 0; i < 4000; i++) {
		if (i % 7 == 3) {
			log_bare();
			bare++;
		} else if (i % 2) {
			log_wide2(i);
			wide++;
		} else {
			log_int3(i);
			ints++;
		}
		check_stop();
		if (i % 64 == 63)
			llog_flush();
	}
	pushed = atomic_load(&fast_pushed);
	llog__sched_set_hook(NULL);
	llog_flush();
	assert_true(pushed > 3000); /* most went the fast way */
	assert_int_equal(memsink_count(m, "wide"), wide);
	assert_int_equal(memsink_count(m, "int"), ints);
	assert_int_equal(memsink_count(m, "bare"), bare + 1);
	llog_shutdown();
	memsink_free(m);
}

static void log_int1(int i)
{
	LOG_INFO("int1 %d", i); /* 4 bytes: a 56-byte record */
}

static void log_err_str(const char *s)
{
	/* ERROR: never fast; log_core reserves the largest record and gives
	 * back its unused end (llog__arena_shrink) */
	LOG_ERROR("err %s", s);
}

static void test_shrink_at_lap_end(void **state)
{
	struct memsink *m = memsink_new(LLOG_TRACE);
	struct llog__arena *a;
	size_t ints = 0, ones = 0, bare = 0;
	uint32_t target;

	(void)state;
	start_small_ring(m, 256);
	log_bare();
	bare++;
	a = llog__arena_mine();
	assert_non_null(a);
	/* log_core's largest record of the string site ends at the ring's
	 * end when it starts here */
	target = llog__owner()->size - (LLOG__REC_HDR + 256u);
	for (int i = 0; (llog__owner()->reserve & llog__owner()->mask) != target; i++) {
		uint32_t dist = (target - llog__owner()->reserve) & llog__owner()->mask;

		if (dist % 16 != 0) {
			log_int1(i);
			ones++;
		} else if (dist % 64 == 0) {
			log_int3(i);
			ints++;
		} else {
			log_bare();
			bare++;
		}
		if (i % 32 == 31)
			llog_flush();
	}
	/* a fresh view: released past the ring's start, limit past the end
	 * of reserve's lap */
	llog_flush();
	assert_true(llog__arena_room(a, 8));
	assert_true(llog__owner()->limit - llog__owner()->reserve > llog__owner()->size - (llog__owner()->reserve & llog__owner()->mask));
	log_err_str("x");
	/* shrunk back into the lap before the ring's end */
	assert_int_not_equal(llog__owner()->reserve & llog__owner()->mask, 0);
	check_stop();
	/* fast records on to the ring's end and past it */
	for (int i = 0; i < 16; i++) {
		log_int3(1000 + i);
		ints++;
		check_stop();
	}
	llog_flush();
	assert_int_equal(memsink_count(m, "err x"), 1);
	assert_int_equal(memsink_count(m, "int1 "), ones);
	assert_int_equal(memsink_count(m, "int "), ints);
	assert_int_equal(memsink_count(m, "bare"), bare);
	llog_shutdown();
	memsink_free(m);
}

static void log_two(long x, long y)
{
	LOG_INFO("two %ld %ld", x, y);
}

/* FAST_ENTER (once): another thread stops llog, so the call finds its
 * list closed after writing its slots; FAST_CLOSED (once): llog is
 * started again there, so log_core finds the list open. */
static _Atomic int stop_once, reopen_once, closed_seen;
static struct memsink *reopen_m;

static void *shutdown_main(void *arg)
{
	(void)arg;
	llog_shutdown();
	return NULL;
}

static void hook_reopen(enum llog__sched_point p)
{
	if (p == LLOG__SP_FAST_ENTER && atomic_exchange(&stop_once, 0)) {
		pthread_t t;

		if (pthread_create(&t, NULL, shutdown_main, NULL) != 0 ||
		    pthread_join(t, NULL) != 0)
			abort();
	}
	if (p == LLOG__SP_FAST_CLOSED && atomic_exchange(&reopen_once, 0)) {
		atomic_fetch_add(&closed_seen, 1);
		if (memsink_start(reopen_m, NULL) != 0)
			abort();
	}
}

static void test_fast_path_closed_then_open(void **state)
{
	struct memsink *m = memsink_new(LLOG_TRACE);

	(void)state;
	reopen_m = memsink_new(LLOG_TRACE);
	assert_int_equal(memsink_start(m, NULL), 0);
	log_two(1, 2); /* the site's first call: its verdict, FAST */
	log_two(3, 4);
	atomic_store(&closed_seen, 0);
	atomic_store(&stop_once, 1);
	atomic_store(&reopen_once, 1);
	llog__sched_set_hook(hook_reopen);
	log_two(5, 6);
	llog__sched_set_hook(NULL);
	assert_int_equal(atomic_load(&closed_seen), 1);
	llog_flush();
	assert_int_equal(reopen_m->n, 1);
	assert_string_equal(reopen_m->e[0].msg, "two 5 6");
	llog_shutdown();
	memsink_free(reopen_m);
	memsink_free(m);
}

/* ---- the call sites' own fast path (llog/detail.h) ------------------------ */

/* The points the sites' own path reached (sched_points.h), since reset. */
static unsigned long site_points0;

static void site_points_reset(void)
{
	site_points0 = atomic_load(&llog__sched_site_points);
}

static unsigned long site_points(void)
{
	return atomic_load(&llog__sched_site_points) - site_points0;
}

static void log_site_fmt(int i, double d, const char *s)
{
	LOG_INFO("site %d %.1f %s", i, d, s);
}

static void log_site_kv(int i, const char *s)
{
	LOG_INFO_KV(("i", i, "s", s, "n", (const char *)NULL), "site kv %d", i);
}

/* A char * given to %p: the plan's pointer, not the signature's string. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat"
#pragma GCC diagnostic ignored "-Wpedantic"
#ifdef __clang__
#pragma GCC diagnostic ignored "-Wformat-pedantic"
#endif
static void log_site_ptr(char *p)
{
	LOG_INFO("site ptr %p", p);
}
#pragma GCC diagnostic pop

/* Which calls the site's own path takes: a FAST site's after its first,
 * its signature the plan's (with strings and fields); a char * given to
 * %p (the plan's pointer) goes to the library's fast path every time; a
 * NULL string to the library before the site's entry; a string longer
 * than the site's path writes, to the library's fast path past its entry
 * (FAST_ENTER once). Every message once, in order. */
static void test_site_path_taken(void **state)
{
	struct memsink *m = memsink_new(LLOG_TRACE);
	struct llog_config cfg = {0};
	static char big[301];
	char buf[16] = "p";
	size_t k = 0;

	(void)state;
	memset(big, 'b', sizeof(big) - 1);
	cfg.flush_interval_ms = 5; /* as above */
	assert_int_equal(memsink_start(m, &cfg), 0);
	/* the sites' first calls: their verdicts */
	log_site_fmt(0, 0.5, "x");
	log_site_kv(0, "x");
	log_site_ptr(buf);
	atomic_store(&fast_entered, 0);
	atomic_store(&fast_pushed, 0);
	site_points_reset();
	llog__sched_set_hook(hook_count_fast);
	for (int i = 1; i <= 3; i++) {
		log_site_fmt(i, 1.5, "peer");
		log_site_kv(i, "peer");
	}
	assert_int_equal(site_points(), 12); /* FAST_ENTER and FAST_PUSH, 6 calls */
	assert_int_equal(atomic_load(&fast_entered), 6);
	assert_int_equal(atomic_load(&fast_pushed), 6);
	for (int i = 0; i < 3; i++)
		log_site_ptr(buf);
	assert_int_equal(site_points(), 12);
	assert_int_equal(atomic_load(&fast_entered), 9);
	assert_int_equal(atomic_load(&fast_pushed), 9);
	log_site_fmt(4, 2.5, NULL); /* the library's: "(null)" (log_core) */
	assert_int_equal(site_points(), 12);
	assert_int_equal(atomic_load(&fast_entered), 10);
	assert_int_equal(atomic_load(&fast_pushed), 9);
	log_site_fmt(5, 3.5, big); /* the site's entry, the library's push */
	log_site_kv(5, big);
	assert_int_equal(site_points(), 14);
	assert_int_equal(atomic_load(&fast_entered), 12);
	assert_int_equal(atomic_load(&fast_pushed), 11);
	llog__sched_set_hook(NULL);
	llog_flush();
	{
		char want[8][64];
		int nw = 0;

		snprintf(want[nw++], sizeof(want[0]), "site 0 0.5 x");
		snprintf(want[nw++], sizeof(want[0]), "site kv 0");
		snprintf(want[nw++], sizeof(want[0]), "site ptr %p", (void *)buf);
		for (size_t i = 0; i < m->n; i++) {
			if (strncmp(m->e[i].msg, "site", 4) != 0)
				continue;
			if (k < (size_t)nw) {
				assert_string_equal(m->e[i].msg, want[k]);
			} else if (k < 9) {
				char wm[64];
				int j = (int)(k - 3) / 2 + 1;

				if ((k - 3) % 2 == 0)
					snprintf(wm, sizeof(wm), "site %d 1.5 peer", j);
				else
					snprintf(wm, sizeof(wm), "site kv %d", j);
				assert_string_equal(m->e[i].msg, wm);
			} else if (k < 12) {
				assert_string_equal(m->e[i].msg, want[2]);
			} else if (k == 12) {
				assert_string_equal(m->e[i].msg, "site 4 2.5 (null)");
			} else if (k == 13) {
				assert_int_equal(m->e[i].msg_len, strlen("site 5 3.5 ") + 300);
			} else {
				assert_string_equal(m->e[i].msg, "site kv 5");
			}
			k++;
		}
	}
	assert_int_equal(k, 15);
	llog_shutdown();
	memsink_free(m);
}

/* Sites of an object built for another layout (sched_site_abi.c, for
 * the version before the library's; sched_site_abi_next.c, the one
 * after): never marked, their calls go to the library's own fast path and
 * log as any. */
static void other_abi(void (*lg)(int, const char *), void (*lkv)(int))
{
	struct memsink *m = memsink_new(LLOG_TRACE);
	struct llog_config cfg = {0};

	cfg.flush_interval_ms = 5; /* as above */
	assert_int_equal(memsink_start(m, &cfg), 0);
	lg(0, "first");
	lkv(0);
	atomic_store(&fast_entered, 0);
	atomic_store(&fast_pushed, 0);
	site_points_reset();
	llog__sched_set_hook(hook_count_fast);
	for (int i = 1; i <= 3; i++) {
		lg(i, "s");
		lkv(i);
	}
	assert_int_equal(site_points(), 0);
	assert_int_equal(atomic_load(&fast_entered), 6); /* the library's */
	assert_int_equal(atomic_load(&fast_pushed), 6);
	llog__sched_set_hook(NULL);
	llog_flush();
	assert_int_equal(m->n, 8);
	assert_string_equal(m->e[0].msg, "abi 0 first");
	assert_string_equal(m->e[1].msg, "abi kv 0");
	for (int i = 1; i <= 3; i++) {
		char wm[32];

		snprintf(wm, sizeof(wm), "abi %d s", i);
		assert_string_equal(m->e[2 * i].msg, wm);
		snprintf(wm, sizeof(wm), "abi kv %d", i);
		assert_string_equal(m->e[2 * i + 1].msg, wm);
	}
	llog_shutdown();
	memsink_free(m);
}

static void test_site_path_other_abi(void **state)
{
	(void)state;
	other_abi(abi_log, abi_log_kv);
	other_abi(abi_log_next, abi_log_kv_next);
}

/* What arena_under_in_log saw, read by the test after the join. */
struct under_in_log {
	int none_before, arena_made, arena_after;
};

/* A thread without an arena whose in_log is set when it logs, as in a
 * signal handler that runs while llog__arena_create_self writes the
 * owner words: its LOG makes no arena over them; its next LOG, in_log
 * clear, makes the arena and logs. */
static void *arena_under_in_log(void *arg)
{
	struct under_in_log *u = arg;
	struct llog__own *o = llog__owner();

	u->none_before = o->none;
	o->in_log = 1;
	LOG_INFO("refused");
	u->arena_made = llog__arena_mine() != NULL;
	o->in_log = 0;
	LOG_INFO("logged");
	u->arena_after = llog__arena_mine() != NULL && o->none == 0 &&
			 o->arena == llog__arena_mine();
	return NULL;
}

static void test_arena_not_made_under_in_log(void **state)
{
	struct memsink *m = memsink_new(LLOG_TRACE);
	struct llog_config cfg = {0};
	struct under_in_log u = {0, -1, 0};
	struct llog_stats s0, s1;
	pthread_t t;

	(void)state;
	assert_int_equal(memsink_start(m, &cfg), 0);
	llog_get_stats(&s0);
	assert_int_equal(pthread_create(&t, NULL, arena_under_in_log, &u), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	llog_flush();
	llog_get_stats(&s1);
	assert_int_equal(u.none_before, 1);
	assert_int_equal(u.arena_made, 0);
	assert_int_equal(u.arena_after, 1);
	assert_int_equal(s1.dropped - s0.dropped, 1); /* counted, not lost silently */
	assert_int_equal(m->n, 1);
	assert_string_equal(m->e[0].msg, "logged");
	llog_shutdown();
	memsink_free(m);
}

/* At ARENA_LEFT, on the exiting thread: a LOG, as a signal handler that
 * runs during the thread's exit would make (once). */
static atomic_int left_logged;

static void hook_log_at_left(enum llog__sched_point p)
{
	if (p == LLOG__SP_ARENA_LEFT && atomic_exchange(&left_logged, 1) == 0)
		LOG_INFO("handler at exit");
}

/* A thread with a drop to announce (a LOG refused under in_log, as a
 * re-entered one is), then exits. */
static void *drop_then_exit(void *arg)
{
	(void)arg;
	LOG_INFO("before");
	llog__owner()->in_log = 1;
	LOG_INFO("refused");
	llog__owner()->in_log = 0;
	return NULL;
}

/* A LOG between the thread's leaving its arena and the exit's last steps
 * (a signal handler's) makes no new arena over the owner words those
 * steps read: the exit record still carries the thread's drop, and the
 * handler's LOG is counted as dropped. */
static void test_exit_keeps_owner_words(void **state)
{
	struct memsink *m = memsink_new(LLOG_TRACE);
	struct llog_config cfg = {0};
	struct llog_stats s0, s1;
	unsigned long long tid;
	unsigned n = 0;
	int notices = 0;
	pthread_t t;

	(void)state;
	assert_int_equal(memsink_start(m, &cfg), 0);
	atomic_store(&left_logged, 0);
	llog_get_stats(&s0);
	llog__sched_set_hook(hook_log_at_left);
	assert_int_equal(pthread_create(&t, NULL, drop_then_exit, NULL), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	llog__sched_set_hook(NULL);
	llog_flush();
	llog_get_stats(&s1);
	assert_int_equal(atomic_load(&left_logged), 1);
	/* "refused" and the handler's */
	assert_int_equal(s1.dropped - s0.dropped, 2);
	for (size_t i = 0; i < m->n; i++) {
		assert_string_not_equal(m->e[i].msg, "handler at exit");
		if (sscanf(m->e[i].msg, "llog: thread %llu dropped %u records", &tid, &n) == 2)
			notices++;
	}
	assert_int_equal(notices, 1); /* "refused", announced at the exit */
	assert_int_equal(n, 1);
	llog_shutdown();
	memsink_free(m);
}

static void log_site_seq(unsigned i, const char *s)
{
	LOG_INFO("seq %u %s", i, s);
}

static void log_site_seq_kv(unsigned i, const char *s)
{
	LOG_INFO_KV(("s", s), "seq %u", i);
}

static void log_site_seq0(void)
{
	LOG_INFO("seq-");
}

/* The sites' own path over many laps of the smallest ring, BLOCK, with
 * records of many sizes (strings of 0 to 40 bytes, fields, none): records
 * that end exactly at the ring's end, records that would cross it (the
 * site's path leaves those to log_core, which wraps), and a ring near full
 * (no flush for a while: the path finds no room below stop and log_core
 * waits for the flusher). stop stays within its bounds after every call,
 * most calls take the site's path, and every record arrives once, in
 * order. */
static void test_site_path_ring(void **state)
{
	struct memsink *m = memsink_new(LLOG_TRACE);
	struct llog__arena *a;
	char str[41];
	unsigned next = 0, bare = 0;
	const unsigned calls = 6000;
	struct llog_stats st;

	(void)state;
	memset(str, 's', sizeof(str));
	start_small_ring(m, 0);
	log_site_seq0(); /* the sites' first calls */
	log_site_seq(0, "");
	log_site_seq_kv(1, "");
	bare += 1;
	a = llog__arena_mine();
	assert_non_null(a);
	site_points_reset();
	for (unsigned i = 2; i < calls; i++) {
		unsigned len = (i * 7u) % 41u;

		str[len] = '\0';
		if (i % 5 == 0) {
			log_site_seq0();
			bare++;
		}
		if (i % 3 == 1)
			log_site_seq_kv(i, str);
		else
			log_site_seq(i, str);
		str[len] = 's';
		check_stop();
		/* a flush now and then; from 2000 to 3000, none: the ring
		 * fills and the calls wait in log_core */
		if (i % 97 == 0 && (i < 2000 || i > 3000))
			llog_flush();
	}
	llog_flush();
	llog_get_stats(&st);
	printf("site path: %lu points for %u calls, %llu waits on a full ring\n", site_points(),
	       calls, (unsigned long long)st.blocked);
	assert_true(site_points() > calls); /* most of them: 2 points a call */
	for (size_t i = 0; i < m->n; i++) {
		unsigned got;
		int off = 0;

		if (strcmp(m->e[i].msg, "seq-") == 0) {
			bare--;
			continue;
		}
		assert_int_equal(sscanf(m->e[i].msg, "seq %u%n", &got, &off), 1);
		assert_int_equal(got, next); /* each once, in order */
		if (got % 3 != 1) /* (the fields' records: "seq N") */
			assert_int_equal(m->e[i].msg_len, (size_t)off + 1 + (got * 7u) % 41u);
		next++;
	}
	assert_int_equal(next, calls);
	assert_int_equal(bare, 0);
	llog_shutdown();
	memsink_free(m);
}

static void log_site_two(const char *x, long y)
{
	LOG_INFO("two %s %ld", x, y);
}

static void log_site_two_kv(const char *x, long y)
{
	LOG_INFO_KV(("x", x), "two kv %ld", y);
}

/* test_fast_path_closed_then_open for the sites' own path: a call with a
 * string, and one with fields, find the list closed after writing their
 * record (FAST_CLOSED from the site's path), give it back and leave the
 * call to log_core, which finds the list open again: each record once. */
static void test_site_path_closed_then_open(void **state)
{
	struct memsink *m = memsink_new(LLOG_TRACE);

	(void)state;
	reopen_m = memsink_new(LLOG_TRACE);
	assert_int_equal(memsink_start(m, NULL), 0);
	log_site_two("a", 1); /* the sites' first calls: their verdicts */
	log_site_two_kv("a", 1);
	log_site_two("b", 2);
	for (int k = 0; k < 2; k++) {
		atomic_store(&closed_seen, 0);
		atomic_store(&stop_once, 1);
		atomic_store(&reopen_once, 1);
		site_points_reset();
		llog__sched_set_hook(hook_reopen);
		if (k == 0)
			log_site_two("c", 3);
		else
			log_site_two_kv("c", 3);
		llog__sched_set_hook(NULL);
		assert_int_equal(atomic_load(&closed_seen), 1);
		assert_int_equal(site_points(), 2); /* FAST_ENTER, FAST_CLOSED */
		llog_flush();
		assert_int_equal(reopen_m->n, (size_t)k + 1);
		assert_string_equal(reopen_m->e[k].msg, k == 0 ? "two c 3" : "two kv 3");
		if (k == 0) {
			/* llog on m again, the thread's arena made again */
			llog_shutdown();
			assert_int_equal(memsink_start(m, NULL), 0);
			log_site_two("d", 4);
		}
	}
	llog_shutdown();
	memsink_free(reopen_m);
	memsink_free(m);
}

/* At FAST_PUSH (the record written, the head peeked), once: another
 * thread pushes a record of its own first, so the site's CAS fails and
 * llog__fast_retry pushes it. */
static _Atomic int retry_once, retry_go, retry_done;

static void *retry_pusher(void *arg)
{
	(void)arg;
	if (wait_flag(&retry_go, WAIT_MS))
		LOG_INFO("other");
	set_flag(&retry_done);
	return NULL;
}

static void hook_retry(enum llog__sched_point p)
{
	if (p == LLOG__SP_FAST_PUSH && atomic_exchange(&retry_once, 0)) {
		set_flag(&retry_go);
		(void)wait_flag(&retry_done, WAIT_MS);
	}
}

/* The sites' own path's CAS fails (another push came between its peek and
 * its CAS): the out-of-line retry pushes the record, once, after the
 * other, and leaves the arena as the push would (in_log clear, nothing
 * pending, stop within its bounds); with a string and with fields. */
static void test_site_path_cas_retry(void **state)
{
	struct memsink *m = memsink_new(LLOG_TRACE);
	struct llog__arena *a;
	struct llog_config cfg = {0};

	(void)state;
	cfg.flush_interval_ms = 5; /* as above */
	assert_int_equal(memsink_start(m, &cfg), 0);
	log_site_two("a", 1); /* the sites' first calls: their verdicts */
	log_site_two_kv("a", 1);
	a = llog__arena_mine();
	assert_non_null(a);
	for (int k = 0; k < 2; k++) {
		pthread_t t;

		atomic_store(&retry_go, 0);
		atomic_store(&retry_done, 0);
		atomic_store(&retry_once, 1);
		assert_int_equal(pthread_create(&t, NULL, retry_pusher, NULL), 0);
		site_points_reset();
		llog__sched_set_hook(hook_retry);
		if (k == 0)
			log_site_two("b", 2);
		else
			log_site_two_kv("b", 2);
		llog__sched_set_hook(NULL);
		assert_int_equal(pthread_join(t, NULL), 0);
		assert_int_equal(atomic_load(&retry_once), 0);
		assert_int_equal(site_points(), 2); /* FAST_ENTER, FAST_PUSH */
		assert_int_equal(llog__owner()->in_log, 0);
		assert_int_equal(atomic_load(&llog__owner()->dropped_pending), 0);
		check_stop();
	}
	llog_flush();
	{
		const char *want[] = {"two a 1", "two kv 1", "other", "two b 2", "other", "two kv 2"};
		size_t k = 0;

		for (size_t i = 0; i < m->n; i++) {
			assert_true(k < sizeof(want) / sizeof(want[0]));
			assert_string_equal(m->e[i].msg, want[k]);
			k++;
		}
		assert_int_equal(k, sizeof(want) / sizeof(want[0]));
	}
	llog_shutdown();
	memsink_free(m);
}

/* After a failed test too: no hook, llog stopped (shutdown wakes the
 * flusher itself), so the next test starts clean and nothing waits for a
 * flush interval. */
static int teardown(void **state)
{
	(void)state;
	llog__sched_set_hook(NULL);
	llog_shutdown();
	shards_unforce();
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_push_after_take_wakes_flusher, teardown),
		cmocka_unit_test_teardown(test_blocked_producer_woken, teardown),
		cmocka_unit_test_teardown(test_push_during_final_take, teardown),
		cmocka_unit_test_teardown(test_shard_cut_keeps_happens_before, teardown),
		cmocka_unit_test_teardown(test_fast_path_taken, teardown),
		cmocka_unit_test_teardown(test_fast_path_ctx_after_entry, teardown),
		cmocka_unit_test_teardown(test_fast_path_string_bound, teardown),
		cmocka_unit_test_teardown(test_fast_path_go_slow, teardown),
		cmocka_unit_test_teardown(test_fast_path_stop, teardown),
		cmocka_unit_test_teardown(test_shrink_at_lap_end, teardown),
		cmocka_unit_test_teardown(test_fast_path_closed_then_open, teardown),
		cmocka_unit_test_teardown(test_site_path_taken, teardown),
		cmocka_unit_test_teardown(test_site_path_other_abi, teardown),
		cmocka_unit_test_teardown(test_arena_not_made_under_in_log, teardown),
		cmocka_unit_test_teardown(test_exit_keeps_owner_words, teardown),
		cmocka_unit_test_teardown(test_site_path_ring, teardown),
		cmocka_unit_test_teardown(test_site_path_closed_then_open, teardown),
		cmocka_unit_test_teardown(test_site_path_cas_retry, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
