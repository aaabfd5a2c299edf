/*
 * test_pipeline.c - end to end through the flusher: 8 threads x 200,000
 * records each arrive exactly once, in per-thread order, with consecutive
 * sequence numbers and non-decreasing timestamps; a happens-before chain
 * across threads is kept in the output; llog_flush() covers everything
 * logged before it; an ERROR record wakes the flusher early; truncation is
 * visible; logging works before init and after shutdown. Built twice:
 * test_pipeline with one head (the default), test_pipeline_shards with
 * TEST_SHARDS=4 heads (llog_config.queue_shards), whose merge must keep
 * the same guarantees: every order the program makes between threads
 * (the token chains below) and each thread's order.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "llog.h"
#include "memsink.h"
#include "sanitizer.h"
#include "shards.h"
#include "testutil.h"

#ifndef TEST_SHARDS
#define TEST_SHARDS 0 /* llog_config.queue_shards: one head */
#endif

/* After llog_init: the queue has the build's heads (shards.h keeps them on
 * every machine), so the sharded build cannot pass on one head. */
static void check_heads(void)
{
	uint32_t want = TEST_SHARDS > 1 ? (TEST_SHARDS - 1) * sizeof(struct llog__shard) : 0;

	/* Relaxed: set by llog_init, before it returned. */
	assert_int_equal(llog__load_relaxed(&llog__pw.head_mask), want);
}

/* memsink_start with cfg (NULL: defaults) and the build's queue heads. */
static int start(struct memsink *m, const struct llog_config *cfg)
{
	struct llog_config c = {0};
	int rc;

	if (cfg != NULL)
		c = *cfg;
	c.queue_shards = TEST_SHARDS;
	rc = memsink_start(m, &c);
	if (rc == 0)
		check_heads();
	return rc;
}

/* ---- every record exactly once, per-thread order ------------------------ */

#define THREADS 8
/* Under TSan a quarter: 400,000 records still cross many rounds, arena
 * wraps and (with TEST_SHARDS) cuts; what is checked is each one, exactly
 * once and in order, not how many (TSan runs them 10-20 times slower). */
#ifdef TEST_TSAN
#define PER_THREAD 50000
#else
#define PER_THREAD 200000
#endif

struct order_check {
	long next[THREADS];
	long bad;           /* out of order or duplicated */
	long foreign;       /* unparseable */
	uint64_t last_seq;
	int64_t last_ts;
	long seq_gaps;
	long ts_back;
};

/* Runs on the flusher thread for every entry: checks order as it goes, so
 * 1.6 M records need no storage. */
static void order_hook(struct memsink *m, const struct llog_entry *e)
{
	struct order_check *c = m->user;
	int t;
	long s;
	char buf[64];

	copy_cut(buf, sizeof(buf), e->msg, e->msg_len);
	if (e->seq != c->last_seq + 1)
		c->seq_gaps++;
	c->last_seq = e->seq;
	if (e->ts_ns < c->last_ts)
		c->ts_back++;
	c->last_ts = e->ts_ns;
	if (sscanf(buf, "t=%d s=%ld", &t, &s) != 2 || t < 0 || t >= THREADS) {
		c->foreign++;
		return;
	}
	if (s != c->next[t])
		c->bad++;
	c->next[t] = s + 1;
}

static void *log_thread(void *arg)
{
	int t = (int)(intptr_t)arg;

	for (long i = 0; i < PER_THREAD; i++)
		LOG_INFO("t=%d s=%ld", t, i);
	return NULL;
}

static void test_exactly_once_in_order(void **state)
{
	struct memsink *m = memsink_new(LLOG_TRACE);
	struct order_check c = {{0}, 0, 0, 0, 0, 0, 0};
	struct llog_stats before, after;

	(void)state;
	m->hook = order_hook;
	m->nostore = 1;
	m->user = &c;
	llog_get_stats(&before);
	assert_int_equal(start(m, NULL), 0);
	assert_int_equal(run_threads(THREADS, log_thread), 0);
	llog_shutdown();
	llog_get_stats(&after);
	for (int t = 0; t < THREADS; t++)
		assert_int_equal(c.next[t], PER_THREAD);
	assert_int_equal(c.bad, 0);
	assert_int_equal(c.foreign, 0);
	assert_int_equal(c.seq_gaps, 0);
	assert_int_equal(c.ts_back, 0);
	assert_int_equal(c.last_seq, (uint64_t)THREADS * PER_THREAD);
	assert_int_equal(after.written - before.written, (uint64_t)THREADS * PER_THREAD);
	assert_int_equal(after.dropped - before.dropped, 0);
	assert_true(m->closed);
	memsink_free(m);
}

/* ---- happens-before across threads --------------------------------------- */

#define ROUNDS 20000

static atomic_int token;

static void *hb_a(void *arg)
{
	(void)arg;
	for (int k = 0; k < ROUNDS; k++) {
		while (atomic_load_explicit(&token, memory_order_acquire) != 2 * k)
			sched_yield();
		LOG_INFO("X %d", k);
		/* release: B's acquire sees our LOG as done before */
		atomic_store_explicit(&token, 2 * k + 1, memory_order_release);
	}
	return NULL;
}

static void *hb_b(void *arg)
{
	(void)arg;
	for (int k = 0; k < ROUNDS; k++) {
		while (atomic_load_explicit(&token, memory_order_acquire) != 2 * k + 1)
			sched_yield();
		LOG_INFO("Y %d", k);
		atomic_store_explicit(&token, 2 * k + 2, memory_order_release);
	}
	return NULL;
}

static void test_happens_before_kept(void **state)
{
	struct memsink *m = memsink_new(LLOG_TRACE);
	pthread_t a, b;
	int expect_x = 0, expect_y = 0;

	(void)state;
	atomic_store(&token, 0);
	assert_int_equal(start(m, NULL), 0);
	pthread_create(&a, NULL, hb_a, NULL);
	pthread_create(&b, NULL, hb_b, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	llog_shutdown();
	assert_int_equal(m->n, 2 * ROUNDS);
	/* The output must be exactly X0 Y0 X1 Y1 ...: each LOG happened
	 * before the next one, through the token. */
	for (size_t i = 0; i < m->n; i++) {
		char tag;
		int k;

		assert_int_equal(sscanf(m->e[i].msg, "%c %d", &tag, &k), 2);
		if (i % 2 == 0) {
			assert_int_equal(tag, 'X');
			assert_int_equal(k, expect_x++);
		} else {
			assert_int_equal(tag, 'Y');
			assert_int_equal(k, expect_y++);
		}
	}
	memsink_free(m);
}

/* A token passed round RING threads: thread t logs "R k" for every k with
 * k % RING == t, each after the previous holder's LOG returned. With
 * four heads the threads, made one after another, each push on a head of
 * their own (a thread's first LOG gives it the next head), so the output
 * order R 0, R 1, ... is the merge's doing (test_sched checks that
 * threads get different heads). */
#define RING 4
#define RING_PASSES 40000

static atomic_int ring_token;

static void *ring_thread(void *arg)
{
	int t = (int)(intptr_t)arg;

	for (int k = t; k < RING_PASSES; k += RING) {
		while (atomic_load_explicit(&ring_token, memory_order_acquire) != k)
			sched_yield();
		LOG_INFO("R %d", k);
		/* release: the next holder's acquire sees our LOG as done */
		atomic_store_explicit(&ring_token, k + 1, memory_order_release);
	}
	return NULL;
}

static void test_happens_before_ring(void **state)
{
	struct memsink *m = memsink_new(LLOG_TRACE);

	(void)state;
	atomic_store(&ring_token, 0);
	assert_int_equal(start(m, NULL), 0);
	assert_int_equal(run_threads(RING, ring_thread), 0);
	llog_shutdown();
	assert_int_equal(m->n, RING_PASSES);
	for (size_t i = 0; i < m->n; i++) {
		int k = -1;

		assert_int_equal(sscanf(m->e[i].msg, "R %d", &k), 1);
		assert_int_equal(k, (int)i);
	}
	memsink_free(m);
}

/* ---- flush, wake-ups, truncation ----------------------------------------- */

static void test_flush_covers_everything_before(void **state)
{
	struct memsink *m = memsink_new(LLOG_TRACE);
	struct llog_config cfg = {.flush_interval_ms = 60000};

	(void)state;
	assert_int_equal(start(m, &cfg), 0);
	for (int round = 1; round <= 50; round++) {
		for (int i = 0; i < 10; i++)
			LOG_DEBUG("round %d rec %d", round, i);
		/* The flusher sleeps for a minute: only the barrier can
		 * make these records arrive. */
		llog_flush();
		assert_int_equal(m->n, (size_t)round * 10);
	}
	llog_shutdown();
	memsink_free(m);
}

struct seen_error {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int seen;
};

static void error_hook(struct memsink *m, const struct llog_entry *e)
{
	struct seen_error *s = m->user;

	if (e->level == LLOG_ERROR) {
		pthread_mutex_lock(&s->mu);
		s->seen = 1;
		pthread_cond_signal(&s->cv);
		pthread_mutex_unlock(&s->mu);
	}
}

static void test_error_wakes_flusher(void **state)
{
	struct memsink *m = memsink_new(LLOG_TRACE);
	struct llog_config cfg = {.flush_interval_ms = 600000};
	struct seen_error s = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0};
	struct timespec deadline;
	int rc = 0;

	(void)state;
	m->user = &s;
	m->hook = error_hook;
	assert_int_equal(start(m, &cfg), 0);
	LOG_INFO("before");
	LOG_ERROR("disk on fire: %s", "sda");
	/* The interval is ten minutes; the ERROR record must arrive on its
	 * own. The 60 s bound only keeps a broken build from hanging. */
	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += 60;
	pthread_mutex_lock(&s.mu);
	while (!s.seen && rc != ETIMEDOUT)
		rc = pthread_cond_timedwait(&s.cv, &s.mu, &deadline);
	pthread_mutex_unlock(&s.mu);
	assert_int_equal(s.seen, 1);
	llog_shutdown();
	assert_int_equal(m->n, 2);
	assert_string_equal(m->e[0].msg, "before");
	assert_string_equal(m->e[1].msg, "disk on fire: sda");
	memsink_free(m);
}

static void test_long_message_truncated_visibly(void **state)
{
	struct memsink *m = memsink_new(LLOG_TRACE);
	struct llog_config cfg = {.max_record_bytes = 256};
	struct llog_stats before, after;
	char big[2000];

	(void)state;
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	llog_get_stats(&before);
	assert_int_equal(start(m, &cfg), 0);
	LOG_INFO("head %s tail", big);
	LOG_INFO("%0900d|", 7); /* short capture, long rendering */
	LOG_INFO("short %d", 1);
	llog_shutdown();
	llog_get_stats(&after);
	assert_int_equal(m->n, 3);
	for (int i = 0; i < 2; i++) {
		assert_true(m->e[i].msg_len <= 256 + strlen(" [truncated]"));
		assert_true(m->e[i].msg_len > 200);
	}
	assert_memory_equal(m->e[0].msg, "head aaaa", 9);
	assert_string_equal(m->e[2].msg, "short 1");
	assert_int_equal(after.truncated - before.truncated, 2);
	memsink_free(m);
	/* the marker itself (check the full text through a tiny format) */
}

static void marker_hook(struct memsink *m, const struct llog_entry *e)
{
	int *ok = m->user;
	const char *mk = " [truncated]";
	size_t ml = strlen(mk);

	*ok = e->msg_len > ml && memcmp(e->msg + e->msg_len - ml, mk, ml) == 0;
}

static void test_truncation_marker_at_end(void **state)
{
	struct memsink *m = memsink_new(LLOG_TRACE);
	struct llog_config cfg = {.max_record_bytes = 256};
	int ok = 0;
	char big[1000];

	(void)state;
	memset(big, 'b', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	m->user = &ok;
	m->hook = marker_hook;
	assert_int_equal(start(m, &cfg), 0);
	LOG_WARN("%s", big);
	llog_shutdown();
	assert_int_equal(ok, 1);
	memsink_free(m);
}

/* ---- before init / after shutdown: synchronous stderr -------------------- */

static char *capture_stderr(void (*fn)(void))
{
	int p[2], saved;
	static char buf[8192];
	ssize_t n;

	assert_int_equal(pipe(p), 0);
	saved = dup(2);
	dup2(p[1], 2);
	fn();
	dup2(saved, 2);
	close(saved);
	close(p[1]);
	n = read(p[0], buf, sizeof(buf) - 1);
	close(p[0]);
	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

static void log_two(void)
{
	LOG_INFO("sync %d %s", 42, "line\nforged");
	LOG_WARN("second");
}

static void test_sync_before_init_and_after_shutdown(void **state)
{
	struct memsink *m = memsink_new(LLOG_TRACE);
	char *out;

	(void)state;
	out = capture_stderr(log_two);
	/* one line per record, control characters escaped */
	assert_non_null(strstr(out, "INFO "));
	assert_non_null(strstr(out, "sync 42 line\\nforged\n"));
	assert_non_null(strstr(out, "WARN  "));
	assert_non_null(strstr(out, "second\n"));
	assert_int_equal(start(m, NULL), 0);
	LOG_INFO("through the flusher");
	llog_shutdown();
	assert_int_equal(m->n, 1);
	out = capture_stderr(log_two);
	assert_non_null(strstr(out, "sync 42 line\\nforged\n"));
	assert_int_equal(m->n, 1); /* closed sinks receive nothing */
	memsink_free(m);
}

static void test_init_twice_and_bad_config(void **state)
{
	struct memsink *m = memsink_new(LLOG_TRACE);
	struct llog_config bad = {.max_record_bytes = 100};
	struct llog_config bad2 = {.level = (enum llog_level)42};
	struct llog_config bad3 = {.queue_shards = 65};
	struct llog_config short_crash = {.crash_timeout_ms = 99};
	struct llog_config long_crash = {.crash_timeout_ms = 600001};
	struct llog_config crash_ok = {.crash_timeout_ms = 100};

	(void)state;
	assert_int_equal(llog_init(&bad), -EINVAL);
	assert_int_equal(llog_init(&bad2), -EINVAL);
	assert_int_equal(llog_init(&bad3), -EINVAL);
	assert_int_equal(llog_init(&short_crash), -EINVAL);
	assert_int_equal(llog_init(&long_crash), -EINVAL);
	assert_int_equal(llog_init(&crash_ok), 0);
	llog_shutdown();
	crash_ok.crash_timeout_ms = 600000;
	assert_int_equal(llog_init(&crash_ok), 0);
	llog_shutdown();
	assert_int_equal(start(m, NULL), 0);
	assert_int_equal(llog_init(NULL), -EALREADY);
	assert_int_equal(llog_add_sink(NULL), -EINVAL);
	llog_shutdown();
	llog_shutdown(); /* idempotent */
	memsink_free(m);
}

/* The kernel's word on the TSC, from its clocksource files as they read
 * on each kind of machine (bare metal; a KVM guest on kvm-clock whose
 * kernel keeps the TSC usable; one whose kernel marked it unstable). */
static void test_tsc_verdict(void **state)
{
	(void)state;
	assert_int_equal(llog__clock_tsc_verdict("tsc\n", "tsc hpet acpi_pm \n"), LLOG__TSC_CURRENT);
	assert_int_equal(llog__clock_tsc_verdict("kvm-clock\n", "kvm-clock tsc \n"),
			 LLOG__TSC_AVAILABLE);
	assert_int_equal(llog__clock_tsc_verdict("kvm-clock\n", "kvm-clock \n"),
			 LLOG__TSC_NOT_AVAILABLE);
	assert_int_equal(llog__clock_tsc_verdict("hpet\n", "hpet\ntsc\n"), LLOG__TSC_AVAILABLE);
	/* a word, not a part of one */
	assert_int_equal(llog__clock_tsc_verdict("tsc_early\n", "kvm-clock xtsc tsc-x\n"),
			 LLOG__TSC_NOT_AVAILABLE);
	assert_int_equal(llog__clock_tsc_verdict("", ""), LLOG__TSC_NOT_AVAILABLE);
	assert_int_equal(llog__clock_tsc_verdict(NULL, NULL), LLOG__TSC_NOT_AVAILABLE);
}

/* Whether the sysfs clocksource file name lists the word "tsc". */
static int sys_lists_tsc(const char *name)
{
	char path[128], *s, *tok, *save = NULL;
	int found = 0;

	snprintf(path, sizeof(path), "/sys/devices/system/clocksource/clocksource0/%s", name);
	if ((s = slurp(path, NULL)) == NULL)
		return 0;
	for (tok = strtok_r(s, " \n", &save); tok != NULL; tok = strtok_r(NULL, " \n", &save))
		found |= strcmp(tok, "tsc") == 0;
	free(s);
	return found;
}

/* llog_init keeps the heads asked for where the machine's evidence allows
 * them (an invariant TSC, and the kernel has it as its clocksource or
 * lists it as available), else one; llog_stats.queue_heads says which.
 * Run under each kind of machine: ../shared/tools/clocksource-as. */
static void test_queue_heads_by_evidence(void **state)
{
	int forced = llog__queue_force_shards;
	int want = llog__clock_tsc && (sys_lists_tsc("current_clocksource") ||
				       sys_lists_tsc("available_clocksource"))
			   ? 4
			   : 1;
	struct llog_stats st;

	(void)state;
	llog__queue_force_shards = 0;
	assert_int_equal(llog_init(&(struct llog_config){.queue_shards = 4}), 0);
	llog_get_stats(&st);
	llog_shutdown();
	llog__queue_force_shards = forced;
	print_message("queue_heads %llu (invariant TSC %d)\n", (unsigned long long)st.queue_heads,
		      llog__clock_tsc);
	assert_int_equal(st.queue_heads, want);
}

static void test_sink_added_while_running(void **state)
{
	struct memsink *a = memsink_new(LLOG_TRACE);
	struct memsink *b = memsink_new(LLOG_WARN);

	(void)state;
	assert_int_equal(start(a, NULL), 0);
	LOG_WARN("only a");
	assert_int_equal(llog_add_sink(&b->base), 0);
	LOG_INFO("a only, below b's level");
	LOG_WARN("both");
	llog_shutdown();
	assert_int_equal(a->n, 3);
	assert_int_equal(b->n, 1);
	assert_string_equal(b->e[0].msg, "both");
	assert_true(b->closed);
	memsink_free(a);
	memsink_free(b);
}

/* ---- order kept across shutdown on a shared stream ----------------------- */

static atomic_int keep_logging;
static atomic_long logged_count;

static void *steady_logger(void *arg)
{
	long i = 0;

	(void)arg;
	while (atomic_load(&keep_logging)) {
		LOG_INFO("n=%ld", i++);
		atomic_store(&logged_count, i);
	}
	return NULL;
}

static void test_order_kept_across_shutdown(void **state)
{
	char path[] = "/tmp/llog-test-XXXXXX";
	int fd = mkstemp(path), saved = dup(2);
	struct llog_console_options co = {.fd = 2, .color = LLOG_COLOR_NEVER};
	pthread_t th;
	FILE *f;
	char line[512];
	long expect = 0, n;

	(void)state;
	assert_true(fd >= 0);
	dup2(fd, 2); /* the console sink and the synchronous path share fd 2 */
	assert_int_equal(llog_add_sink(llog_console_sink(&co)), 0);
	assert_int_equal(llog_init(&(struct llog_config){.queue_shards = TEST_SHARDS}), 0);
	check_heads();
	atomic_store(&keep_logging, 1);
	atomic_store(&logged_count, 0);
	pthread_create(&th, NULL, steady_logger, NULL);
	while (atomic_load(&logged_count) < 20000)
		sched_yield();
	llog_shutdown(); /* the logger keeps going: flusher, then stderr */
	n = atomic_load(&logged_count);
	while (atomic_load(&logged_count) < n + 2000)
		sched_yield();
	atomic_store(&keep_logging, 0);
	pthread_join(th, NULL);
	dup2(saved, 2);
	close(saved);
	f = fdopen(fd, "r");
	rewind(f);
	while (fgets(line, sizeof(line), f) != NULL) {
		char *p = strstr(line, " n=");

		assert_non_null(p);
		assert_int_equal(strtol(p + 3, NULL, 10), expect);
		expect++;
	}
	assert_int_equal(expect, atomic_load(&logged_count));
	fclose(f);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sync_before_init_and_after_shutdown),
		cmocka_unit_test(test_init_twice_and_bad_config),
		cmocka_unit_test(test_exactly_once_in_order),
		cmocka_unit_test(test_happens_before_kept),
		cmocka_unit_test(test_happens_before_ring),
		cmocka_unit_test(test_flush_covers_everything_before),
		cmocka_unit_test(test_error_wakes_flusher),
		cmocka_unit_test(test_long_message_truncated_visibly),
		cmocka_unit_test(test_truncation_marker_at_end),
		cmocka_unit_test(test_sink_added_while_running),
		cmocka_unit_test(test_tsc_verdict),
		cmocka_unit_test(test_queue_heads_by_evidence),
		cmocka_unit_test(test_order_kept_across_shutdown),
	};

	if (TEST_SHARDS > 1)
		shards_force();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
