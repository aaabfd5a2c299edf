/*
 * test_journald.c - the journald sink against a real systemd-journald.
 *
 * Each case starts a journald of its own in a journal namespace
 * (`systemd-journald NAME`: no systemd as PID 1 needed; it listens on
 * /run/systemd/journal.NAME/socket), configured by a drop-in in
 * /run/systemd/journald@NAME.conf.d/ (volatile storage in
 * /run/log/journal/MACHINE-ID.NAME, no rate limit), and reads the entries
 * back with `journalctl --namespace=NAME -o json --all` (journalctl reads
 * the namespace's files itself; no running systemd needed) through
 * tests/journald/read.py. The truth to compare with is what the test
 * logged (thread, index, level, thread id, function) and, for sequence
 * numbers and line numbers, what a callback sink beside it received.
 * Without journald, journalctl, python3 or root the cases skip, saying
 * why.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "llog.h"
#include "llog/sinks.h"
#include "journald_proc.h"
#include "sanitizer.h"
#include "testutil.h"

#ifndef JOURNALD_READ
#error "JOURNALD_READ: the path of tests/journald/read.py"
#endif

#define THREADS 4
#define PER_THREAD 5000
#define BIG (200 * 1024)

/* ---- the journald of the test ------------------------------------------- */

static struct journald jd = {.pid = -1};
static int jd_available;

static int setup(void **state)
{
	(void)state;
	jd_available = 0;
	journald_name(&jd, "llogtest");
	if (journald_usable(&jd) != 0)
		return 0;
	if (sh("command -v python3 >/dev/null") != 0) {
		snprintf(jd.why, sizeof(jd.why), "python3 missing (Debian: python3)");
		return 0;
	}
	jd_available = journald_start(&jd) == 0;
	return 0;
}

static void free_recs(void);
static void free_truth(void);

static int teardown(void **state)
{
	(void)state;
	llog_shutdown(); /* a case that failed left llog running */
	free_recs();
	free_truth();
	journald_remove(&jd);
	return 0;
}

#define NEED_JOURNALD()                                                        \
	do {                                                                   \
		if (!jd_available) {                                          \
			print_message("skipped: %s\n", jd.why);                \
			skip();                                                \
		}                                                              \
	} while (0)

/* ---- reading the journal back ---------------------------------------------- */

struct jrec {
	long long seq; /* -1: absent (a notice) */
	int prio;
	unsigned long long tid;
	int line;
	long pid;
	long long dropped; /* -1: absent */
	char *level, *file, *func, *ident, *tname;
	char *msg;
	size_t msg_len;
};

static struct jrec *recs;
static size_t n_recs;

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	assert_true(c >= 'a' && c <= 'f');
	return c - 'a' + 10;
}

/* "x" + hex, or "-": the bytes, NUL-terminated (*len without the NUL). */
static char *unhex(const char *t, size_t *len)
{
	size_t n;
	char *p;

	if (t[0] != 'x') {
		if (len != NULL)
			*len = 0;
		return NULL;
	}
	t++;
	n = strlen(t) / 2;
	p = malloc(n + 1);
	assert_non_null(p);
	for (size_t i = 0; i < n; i++) /* not sscanf: it measures the rest each time */
		p[i] = (char)(hexval(t[2 * i]) << 4 | hexval(t[2 * i + 1]));
	p[n] = '\0';
	if (len != NULL)
		*len = n;
	return p;
}

static void free_recs(void)
{
	for (size_t i = 0; i < n_recs; i++) {
		free(recs[i].level);
		free(recs[i].file);
		free(recs[i].func);
		free(recs[i].ident);
		free(recs[i].tname);
		free(recs[i].msg);
	}
	free(recs);
	recs = NULL;
	n_recs = 0;
}

static long long num_or(const char *t, long long none)
{
	return t[0] == '-' ? none : strtoll(t, NULL, 10);
}

/* Reads every entry of our identifier, in journal order, into recs. */
static void read_journal(void)
{
	char cmd[512];
	FILE *p;
	char *line = NULL;
	size_t cap = 0, alloc = 0;

	free_recs();
	snprintf(cmd, sizeof(cmd),
		 "journalctl --namespace=%s -o json --all --no-pager SYSLOG_IDENTIFIER=%s "
		 "2>/dev/null | python3 %s",
		 jd.name, jd.ident, JOURNALD_READ);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (getline(&line, &cap, p) > 0) {
		char *f[12], *save = NULL, *tok = strtok_r(line, " \n", &save);
		struct jrec *r;
		int k = 0;

		for (; tok != NULL && k < 12; tok = strtok_r(NULL, " \n", &save))
			f[k++] = tok;
		assert_int_equal(k, 12);
		if (n_recs == alloc) {
			alloc = alloc ? 2 * alloc : 1024;
			recs = realloc(recs, alloc * sizeof(*recs));
			assert_non_null(recs);
		}
		r = &recs[n_recs++];
		r->seq = num_or(f[0], -1);
		r->prio = (int)num_or(f[1], -1);
		r->tid = (unsigned long long)num_or(f[2], 0);
		r->line = (int)num_or(f[3], -1);
		r->pid = (long)num_or(f[4], -1);
		r->dropped = num_or(f[5], -1);
		r->level = unhex(f[6], NULL);
		r->file = unhex(f[7], NULL);
		r->func = unhex(f[8], NULL);
		r->ident = unhex(f[9], NULL);
		r->tname = unhex(f[10], NULL);
		r->msg = unhex(f[11], &r->msg_len);
	}
	free(line);
	assert_int_equal(pclose(p), 0);
}

/* Records (entries with LLOG_SEQ) now in the journal, and the sum of the
 * notices' counts. */
static size_t journal_count(uint64_t *dropped)
{
	size_t n = 0;

	read_journal();
	*dropped = 0;
	for (size_t i = 0; i < n_recs; i++) {
		n += recs[i].seq >= 0;
		if (recs[i].dropped >= 0)
			*dropped += (uint64_t)recs[i].dropped;
	}
	return n;
}

/* Waits (30 s at most, calling llog_flush so the sink retries) until the
 * journal accounts for `want` records: arrived + announced as dropped. */
static void wait_accounted(size_t want, int flush)
{
	int64_t deadline = now_ms() + 30000;
	uint64_t dropped;
	size_t n;

	for (;;) {
		if (flush)
			llog_flush();
		n = journal_count(&dropped);
		if (n + dropped >= want || now_ms() > deadline)
			break;
		sleep_ms(100);
	}
	assert_int_equal(n + dropped, want);
}

/* ---- what llog handed out (a callback sink beside the journald sink) ---- */

struct truth {
	uint64_t seq;
	int level, line;
	uint64_t tid;
	char *msg;
	size_t msg_len;
};

static struct truth *truth;
static size_t n_truth, truth_cap;
static struct llog_stats base; /* at start_llog */

static void on_entry(void *user, const struct llog_entry *e)
{
	struct truth *t;

	(void)user;
	if (n_truth == truth_cap) {
		truth_cap = truth_cap ? 2 * truth_cap : 4096;
		truth = realloc(truth, truth_cap * sizeof(*truth));
		assert_non_null(truth);
	}
	t = &truth[n_truth++];
	t->seq = e->seq;
	t->level = (int)e->level;
	t->line = e->line;
	t->tid = e->tid;
	t->msg = malloc(e->msg_len + 1);
	assert_non_null(t->msg);
	memcpy(t->msg, e->msg, e->msg_len);
	t->msg_len = e->msg_len;
}

static void free_truth(void)
{
	for (size_t i = 0; i < n_truth; i++)
		free(truth[i].msg);
	free(truth);
	truth = NULL;
	n_truth = truth_cap = 0;
}

static const struct truth *truth_of(uint64_t seq)
{
	size_t lo = 0, hi = n_truth;

	while (lo < hi) { /* truth is in seq order: the flusher's output order */
		size_t mid = (lo + hi) / 2;

		if (truth[mid].seq < seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n_truth && truth[lo].seq == seq ? &truth[lo] : NULL;
}

static void start_llog_with(size_t buffer_bytes, unsigned timeout_ms, const char *test,
			    size_t max_datagram, size_t max_record)
{
	char field[64];
	const char *fields[] = {field, NULL};
	struct llog_journald_options jo = {
		.socket_path = jd.sock,
		.identifier = jd.ident,
		.buffer_bytes = buffer_bytes,
		.timeout_ms = timeout_ms,
		.max_datagram_bytes = max_datagram,
		.fields = fields,
	};
	struct llog_callback_options co = {.on_entry = on_entry};
	struct llog_config cfg = {
		.arena_bytes = 4 * max_record,
		.max_record_bytes = max_record,
		.overflow = LLOG_OVERFLOW_BLOCK,
	};
	struct llog_sink *s;

	llog_get_stats(&base); /* the counters are the process's: deltas */
	snprintf(field, sizeof(field), "LLOG_TEST=%s", test);
	s = llog_journald_sink(&jo);
	assert_non_null(s);
	assert_int_equal(llog_add_sink(s), 0);
	assert_int_equal(llog_add_sink(llog_callback_sink(&co)), 0);
	assert_int_equal(llog_init(&cfg), 0);
}

/* Entries of more than 64 KiB through a memfd (the 200 KiB record). */
static void start_llog(size_t buffer_bytes, unsigned timeout_ms, const char *test)
{
	start_llog_with(buffer_bytes, timeout_ms, test, 64 * 1024, 1u << 20);
}

/* Syslog severities, from the journal's documentation of PRIORITY. */
static int severity(int level)
{
	switch (level) {
	case LLOG_TRACE:
	case LLOG_DEBUG:
		return 7;
	case LLOG_INFO:
		return 6;
	case LLOG_WARN:
		return 4;
	case LLOG_ERROR:
		return 3;
	default:
		return 2;
	}
}

/* Checks what every record entry carries against the truth; returns it. */
static const struct truth *check_entry(const struct jrec *r)
{
	const struct truth *t = truth_of((uint64_t)r->seq);

	assert_non_null(t);
	assert_int_equal(r->prio, severity(t->level));
	assert_string_equal(r->level, llog_level_name((enum llog_level)t->level));
	assert_int_equal(r->line, t->line);
	assert_int_equal(r->tid, t->tid);
	assert_int_equal(r->pid, (long)getpid());
	assert_string_equal(r->ident, jd.ident);
	assert_string_equal(r->file, __FILE__);
	assert_int_equal(r->msg_len, t->msg_len);
	assert_memory_equal(r->msg, t->msg, t->msg_len);
	return t;
}

/* ---- 4 threads x 5000 records, newlines, one of 200 KiB ------------------ */

static pid_t tids[THREADS];

/* The message record i of thread t carries (the test's own formatting). */
static int expected(char *buf, size_t cap, int t, long i)
{
	if (i % 1000 == 7)
		return snprintf(buf, cap, "t=%d i=%ld\nsecond line\n\tthird", t, i);
	return snprintf(buf, cap, "t=%d i=%ld", t, i);
}

static void emit(int t, long i)
{
	int nl = i % 1000 == 7;

	/* one level per case, each its own two sites */
#define EMIT(LOG_AT)                                                                    \
	do {                                                                            \
		if (nl)                                                                 \
			LOG_AT("t=%d i=%ld\nsecond line\n\tthird", t, i);                \
		else                                                                    \
			LOG_AT("t=%d i=%ld", t, i);                                     \
	} while (0)
	switch (i % 5) {
	case 0:
		EMIT(LOG_TRACE);
		break;
	case 1:
		EMIT(LOG_DEBUG);
		break;
	case 2:
		EMIT(LOG_INFO);
		break;
	case 3:
		EMIT(LOG_WARN);
		break;
	default:
		EMIT(LOG_ERROR);
		break;
	}
#undef EMIT
}

static void *producer(void *arg)
{
	int t = (int)(intptr_t)arg;

	char name[16];

	tids[t] = gettid();
	snprintf(name, sizeof(name), "producer-%d", t);
	llog_set_thread_name(name);
	for (long i = 0; i < PER_THREAD; i++)
		emit(t, i);
	return NULL;
}

/* len bytes of the n letters from first on, in turn, and a NUL (malloc'd). */
static char *letters(size_t len, char first, int n)
{
	char *s = malloc(len + 1);

	assert_non_null(s);
	for (size_t i = 0; i < len; i++)
		s[i] = (char)(first + i % (size_t)n);
	s[len] = '\0';
	return s;
}

static void test_records(void **state)
{
	long next[THREADS] = {0};
	char *big;
	int big_seen = 0;
	struct llog_stats st;

	(void)state;
	NEED_JOURNALD();
	big = letters(BIG, 'a', 26);
	big[1000] = '\n';
	big[BIG - 2] = '\n';
	start_llog(64u << 20, 5000, "records");
	assert_int_equal(run_threads(THREADS, producer), 0);
	LOG_WARN("%s", big);
	llog_shutdown();
	llog_get_stats(&st);
	assert_int_equal(st.sink_lost - base.sink_lost, 0);
	assert_int_equal(st.queue_dropped - base.queue_dropped, 0);
	assert_int_equal(n_truth, THREADS * PER_THREAD + 1);

	wait_accounted(THREADS * PER_THREAD + 1, 0);
	assert_int_equal(n_recs, THREADS * PER_THREAD + 1);
	for (size_t k = 0; k < n_recs; k++) {
		const struct jrec *r = &recs[k];
		const struct truth *tr = check_entry(r);
		char want[128];
		int t;
		long i;

		if (r->msg_len == BIG) {
			assert_memory_equal(r->msg, big, BIG); /* newlines intact */
			assert_int_equal(r->prio, 4);
			assert_string_equal(r->func, "test_records");
			big_seen++;
			continue;
		}
		assert_int_equal(sscanf(r->msg, "t=%d i=%ld", &t, &i), 2);
		assert_true(t >= 0 && t < THREADS);
		/* every record once, in its thread's order */
		assert_int_equal(i, next[t]);
		next[t]++;
		assert_int_equal(r->msg_len, (size_t)expected(want, sizeof(want), t, i));
		assert_memory_equal(r->msg, want, r->msg_len);
		assert_int_equal(r->tid, (unsigned long long)tids[t]);
		{
			char name[16];

			snprintf(name, sizeof(name), "producer-%d", t);
			assert_non_null(r->tname);
			assert_string_equal(r->tname, name);
		}
		assert_int_equal(r->prio, severity((int)(i % 5)));
		assert_int_equal(tr->level, (int)(i % 5));
		assert_string_equal(r->func, "emit");
	}
	for (int t = 0; t < THREADS; t++)
		assert_int_equal(next[t], PER_THREAD);
	assert_int_equal(big_seen, 1);
	/* seq numbers are unique: each was found once in the truth and the
	 * per-thread counters above saw each (t, i) once */
	free_recs();
	free_truth();
	free(big);
}

/* ---- journald down and back ---------------------------------------------- */

static void log_phase(int phase, long n, const char *pad)
{
	for (long i = 0; i < n; i++)
		LOG_INFO("p=%d i=%ld%s", phase, i, pad);
}

/* Checks the records of the outage tests: all of phase 1, then of phases
 * 2 and 3 (one sequence, g = i in phase 2, n2 + i in phase 3) the newest:
 * the notices first, their counts summing to the oldest dropped, then the
 * rest in order, each once. */
static void check_phases(long n1, long n2, long n3, uint64_t notices)
{
	long next1 = 0, next_g = -1;
	uint64_t said = 0;

	for (size_t k = 0; k < n_recs; k++) {
		const struct jrec *r = &recs[k];
		int p;
		long i, g;

		if (r->seq < 0) {
			/* a notice: before every record after the outage */
			assert_true(r->dropped > 0);
			assert_int_equal(next_g, -1);
			assert_int_equal(r->prio, 4);
			said += (uint64_t)r->dropped;
			continue;
		}
		check_entry(r);
		assert_int_equal(sscanf(r->msg, "p=%d i=%ld", &p, &i), 2);
		assert_true(p >= 1 && p <= 3);
		if (p == 1) {
			assert_int_equal(next_g, -1);
			assert_int_equal(i, next1);
			next1++;
			continue;
		}
		g = p == 2 ? i : n2 + i;
		if (next_g < 0)
			next_g = (long)said; /* the oldest were dropped */
		if (g != next_g)
			print_message("phase %d: record %ld where %ld was due\n", p, g, next_g);
		assert_int_equal(g, next_g);
		next_g++;
	}
	assert_int_equal(next1, n1);
	assert_int_equal(said, notices);
	assert_int_equal(next_g, n2 + n3);
}

static void outage(size_t buffer_bytes, long n2, const char *pad, int expect_drops)
{
	const long n1 = 300;
	long n3 = 200;
	struct llog_stats before, st;
	uint64_t dropped;

	start_llog(buffer_bytes, 300, expect_drops ? "drops" : "outage");
	log_phase(1, n1, pad);
	/* Everything journald's socket took is read and stored before the
	 * kill: datagrams still unread would die with it, uncounted. */
	wait_accounted((size_t)n1, 1);
	llog_get_stats(&before);
	journald_stop(&jd);

	log_phase(2, n2, pad);
	llog_flush(); /* the sink's commit fails: journald is down */
	llog_get_stats(&st);
	assert_true(st.write_errors > before.write_errors);
	if (!expect_drops)
		assert_int_equal(st.sink_lost - base.sink_lost, 0);

	assert_int_equal(journald_spawn(&jd), 0);
	log_phase(3, n3, pad);
	/* The sink retries at its commits once the back-off (5 s at most) is
	 * over, and commits come with rounds that carry records: the program
	 * goes on logging until the journal accounts for everything. */
	for (int64_t deadline = now_ms() + 30000;; n3++) {
		llog_flush();
		if (journal_count(&dropped) + dropped == (size_t)(n1 + n2 + n3) ||
		    now_ms() > deadline)
			break;
		LOG_INFO("p=%d i=%ld%s", 3, n3, pad);
		sleep_ms(100);
	}
	assert_int_equal(journal_count(&dropped) + dropped, (size_t)(n1 + n2 + n3));
	llog_shutdown();
	llog_get_stats(&st);
	assert_int_equal(st.queue_dropped - base.queue_dropped, 0);
	(void)journal_count(&dropped);
	assert_int_equal(st.sink_lost - base.sink_lost, dropped);
	if (expect_drops)
		assert_true(dropped > 0);
	else
		assert_int_equal(dropped, 0);
	check_phases(n1, n2, n3, dropped);
	free_recs();
	free_truth();
}

/* A buffer big enough for the outage: nothing is lost. */
static void test_restart_loses_nothing(void **state)
{
	(void)state;
	NEED_JOURNALD();
	outage(16u << 20, 2000, "", 0);
}

/* A buffer (64 KiB, the least) smaller than what is logged meanwhile: the
 * oldest are dropped, counted in sink_lost and announced first. */
static void test_restart_small_buffer(void **state)
{
	static char pad[201];

	(void)state;
	NEED_JOURNALD();
	memset(pad, '.', 200);
	pad[0] = ' ';
	outage(64u << 10, 3000, pad, 1);
}

/* ---- an entry larger than any datagram ------------------------------------- */

/* 5 MiB: more than the socket's send buffer can be (net.core.wmem_max,
 * 4 MiB here): sendmsg says EMSGSIZE and the entry goes through a memfd. */
static void test_emsgsize_memfd(void **state)
{
	const size_t len = 5u << 20;
	char *huge;
	struct llog_stats st;

	(void)state;
	NEED_JOURNALD();
	huge = letters(len, 'A', 23);
	huge[len / 2] = '\n';
	start_llog_with(32u << 20, 5000, "emsgsize", 0, 12u << 20);
	LOG_INFO("small before");
	LOG_ERROR("%s", huge);
	LOG_INFO("small after");
	llog_shutdown();
	llog_get_stats(&st);
	assert_int_equal(st.sink_lost - base.sink_lost, 0);
	wait_accounted(3, 0);
	assert_int_equal(n_recs, 3);
	for (size_t k = 0; k < 3; k++)
		check_entry(&recs[k]);
	assert_string_equal(recs[0].msg, "small before");
	assert_int_equal(recs[1].msg_len, len);
	assert_memory_equal(recs[1].msg, huge, len);
	assert_int_equal(recs[1].prio, 3);
	assert_string_equal(recs[2].msg, "small after");
	free(huge);
}

/* ---- fork -------------------------------------------------------------------- */

/* The child of a fork logs through the same sink: its entries carry its own
 * SYSLOG_PID, and none of the parent's entries (some still in the sink's
 * queue at the fork) arrives twice. */
static void test_fork_child_pid(void **state)
{
	const long n = 300;
	long next_parent = 0, next_child = 0;
	pid_t kid;

	(void)state;
	NEED_JOURNALD();
	/* ThreadSanitizer cannot start threads in the child of a
	 * multi-threaded fork (as in test_process): release and ASan only. */
#if defined(TEST_TSAN)
	skip();
#endif
	start_llog(0, 1000, "fork");
	for (long i = 0; i < n; i++)
		LOG_INFO("parent i=%ld", i);
	kid = fork();
	assert_true(kid >= 0);
	if (kid == 0) {
		for (long i = 0; i < n; i++)
			LOG_INFO("child i=%ld", i);
		llog_shutdown();
		_exit(0);
	}
	assert_int_equal(child_exit_code(kid), 0);
	for (long i = n; i < 2 * n; i++)
		LOG_INFO("parent i=%ld", i);
	llog_shutdown();
	wait_accounted((size_t)(3 * n), 0);
	for (size_t k = 0; k < n_recs; k++) {
		const struct jrec *r = &recs[k];
		long i;

		assert_true(r->seq >= 0);
		assert_string_equal(r->func, "test_fork_child_pid");
		if (sscanf(r->msg, "parent i=%ld", &i) == 1) {
			check_entry(r); /* this pid */
			assert_int_equal(i, next_parent);
			next_parent++;
		} else {
			assert_int_equal(sscanf(r->msg, "child i=%ld", &i), 1);
			assert_int_equal(r->pid, (long)kid);
			assert_int_equal(r->prio, 6);
			assert_int_equal(i, next_child);
			next_child++;
		}
	}
	assert_int_equal(next_parent, 2 * n);
	assert_int_equal(next_child, n);
}

/* ---- options ---------------------------------------------------------------- */

static void test_bad_options(void **state)
{
	const char *bad_name[] = {"lower=x", NULL};
	const char *underscore[] = {"_PID=1", NULL};
	const char *no_eq[] = {"NAME", NULL};
	struct llog_journald_options o = {0};
	struct llog_sink *s;

	(void)state;
	o.fields = bad_name;
	assert_null(llog_journald_sink(&o));
	assert_int_equal(errno, EINVAL);
	assert_non_null(strstr(llog_journald_sink_error(), "bad field"));
	o.fields = underscore;
	assert_null(llog_journald_sink(&o));
	o.fields = no_eq;
	assert_null(llog_journald_sink(&o));
	o.fields = NULL;
	o.level = (enum llog_level)99;
	assert_null(llog_journald_sink(&o));
	s = llog_journald_sink(NULL);
	assert_non_null(s);
	assert_string_equal(llog_journald_sink_error(), "");
	llog_sink_destroy(s);
}

TEST_MAIN(
	cmocka_unit_test(test_bad_options),
	cmocka_unit_test_setup_teardown(test_records, setup, teardown),
	cmocka_unit_test_setup_teardown(test_restart_loses_nothing, setup, teardown),
	cmocka_unit_test_setup_teardown(test_restart_small_buffer, setup, teardown),
	cmocka_unit_test_setup_teardown(test_fork_child_pid, setup, teardown),
	cmocka_unit_test_setup_teardown(test_emsgsize_memfd, setup, teardown),
)
