/*
 * test_kill.c - SIGKILL at random moments (include/llog.h, "Process life"):
 * a child process with a zstd file sink (2 ms flush interval, so commits
 * happen all the time) and 4 threads that log numbered records "kill t=T
 * n=N" without end is killed with SIGKILL at 20 random moments. Every time,
 * the file read back frame by frame (tools/reader.c, the code llogcat runs)
 * holds only complete, checksummed frames, except at most one damaged
 * region, which must be the torn tail (it starts where the last good frame
 * ends and no good frame follows it); `llogcat --repair` (when LLOGCAT names
 * it) cuts exactly that tail and `llogcat --verify` is then clean; and each
 * thread's records are exactly n = 0..k-1, in order, with no gap and no
 * duplicate, and nothing else is in the file.
 *
 * The moments: the parent waits until the first commit reached the file
 * (the file is non-empty; the metadata frame goes out in the same write as
 * the first data frame), then a random delay of 0..40 ms. The PRNG seed is
 * printed; LLOG_KILL_SEED=<seed> replays the same delays.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "llog.h"
#include "llog/sinks.h"
#include "reader.h"
#include "testutil.h"

#include "childproc.h"

#define NTHREADS 4
#define ROUNDS 20
#define MAX_DELAY_US 40000
#define FIRST_COMMIT_TIMEOUT_S 20 /* child start and first commit (TSan is slow) */

/* ---- helpers -------------------------------------------------------------- */

/* splitmix64 (testutil.h): the same delays everywhere for one seed. */
static uint64_t prng_state;

static void print_file(const char *path)
{
	size_t n;
	unsigned char *p = (unsigned char *)slurp(path, &n);

	fprintf(stderr, "--- %s:\n%.*s---\n", path, (int)n, (const char *)p);
	free(p);
}

/* ---- the child ------------------------------------------------------------ */

static void *logger(void *arg)
{
	int t = (int)(intptr_t)arg;

	for (int n = 0;; n++)
		LOG_INFO("kill t=%d n=%d", t, n);
	return NULL;
}

/* Logs until killed: stderr to err, a zstd file sink at log. */
static void child_run(const char *log, const char *err)
{
	struct llog_config cfg = {.flush_interval_ms = 2};
	struct llog_file_options fo = {.path = log};
	pthread_t th[NTHREADS];

	child_stderr_to(err);
	if (llog_add_sink(llog_file_sink(&fo)) != 0)
		_exit(91);
	if (llog_init(&cfg) != 0)
		_exit(92);
	for (int i = 0; i < NTHREADS; i++)
		if (pthread_create(&th[i], NULL, logger, (void *)(intptr_t)i) != 0)
			_exit(93);
	for (;;)
		pause();
}

/* ---- the checks ----------------------------------------------------------- */

struct outcome {
	size_t size;      /* file size after the kill */
	uint64_t good;    /* end of the last good frame */
	long frames;      /* data frames */
	long records[NTHREADS];
	long total;
	int torn;         /* a damaged tail was found */
};

/* Every line of a data frame is one record "kill t=T n=N" with N the next
 * number of thread T. */
static void check_lines(const char *p, size_t len, bool func_layout, struct outcome *o)
{
	const char *end = p + len;

	/* A data frame holds whole lines only (liblog/format/fileformat.h). */
	assert_true(len > 0 && p[len - 1] == '\n');
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		struct lcr_record rec;
		char msg[64];
		int t, n, used = 0;

		assert_non_null(nl);
		lcr_parse_record_ex(p, (size_t)(nl - p), func_layout, &rec);
		if (!rec.parsed || rec.msg_len >= sizeof(msg)) {
			fprintf(stderr, "unexpected line: %.*s\n", (int)(nl - p), p);
			fail();
		}
		memcpy(msg, rec.msg, rec.msg_len);
		msg[rec.msg_len] = '\0';
		if (sscanf(msg, "kill t=%d n=%d%n", &t, &n, &used) != 2 ||
		    (size_t)used != rec.msg_len || t < 0 || t >= NTHREADS) {
			fprintf(stderr, "unexpected record: %s\n", msg);
			fail();
		}
		if (n != o->records[t]) {
			fprintf(stderr, "thread %d: record n=%d where n=%ld was due (%s)\n", t, n,
				o->records[t], n < o->records[t] ? "duplicate or reordered" : "gap");
			fail();
		}
		o->records[t]++;
		o->total++;
		p = nl + 1;
	}
}

/* Reads the whole file with the frame reader: complete frames, then at
 * most one damaged region, which must run to the end of the file. */
static void check_file(const char *path, struct outcome *o)
{
	size_t n;
	unsigned char *p = (unsigned char *)slurp(path, &n);
	struct lcr *r = lcr_new();
	struct lcr_event ev;
	uint64_t damaged_at = 0;
	long metas = 0;
	struct lcr_meta meta = {0};

	assert_non_null(r);
	memset(o, 0, sizeof(*o));
	o->size = n;
	assert_int_equal(lcr_feed(r, p, n), 0);
	while (lcr_next(r, true, &ev) != LCR_MORE) {
		switch (ev.kind) {
		case LCR_DATA:
		case LCR_META:
			if (o->torn) {
				fprintf(stderr, "a good frame at %" PRIu64 " after damage at %" PRIu64
					": damage in the middle of the file\n", ev.off, damaged_at);
				fail();
			}
			if (ev.kind == LCR_META) {
				/* one, at the start: a fresh file, one writer */
				assert_int_equal(ev.off, 0);
				metas++;
				/* the file sink's text lines carry the function */
				lcr_parse_meta(ev.data, ev.len, &meta);
				assert_true(meta.line_func);
			} else {
				check_lines(ev.data, ev.len, meta.line_func, o);
				o->frames++;
			}
			break;
		case LCR_DAMAGED:
			fprintf(stderr, "damaged frame at %" PRIu64 " of %zu bytes: %s\n", ev.off, n,
				ev.reason);
			/* one report per damaged region: a second one means two */
			assert_false(o->torn);
			o->torn = 1;
			damaged_at = ev.off;
			break;
		default:
			fprintf(stderr, "unexpected frame kind %d at %" PRIu64 "\n", (int)ev.kind,
				ev.off);
			fail();
		}
	}
	o->good = lcr_good_end(r);
	assert_int_equal(lcr_fed_end(r), n);
	if (o->torn) {
		/* Only the torn tail is damaged: it starts where the last good
		 * frame ends. */
		assert_int_equal(damaged_at, o->good);
		assert_true(o->good < n);
	} else {
		assert_int_equal(o->good, n);
	}
	assert_true(metas <= 1);
	assert_true(metas == 1 || o->good == 0);
	lcr_free(r);
	free(p);
}

/* llogcat --repair cuts exactly the torn tail; --verify is then clean and
 * counts the records we decoded. */
static void check_llogcat(const char *llogcat, const char *path, const struct outcome *o)
{
	char cmd[512], *out;
	struct stat sb;
	unsigned long long frames = 0, records = 0;
	const char *ok;
	int rc;

	snprintf(cmd, sizeof(cmd), "'%s' --repair '%s' 2>&1", llogcat, path);
	out = run_cmd(cmd, &rc);
	if (o->torn && strstr(out, "cut back to") == NULL) {
		fprintf(stderr, "llogcat --repair (exit %d) did not cut: %s", rc, out);
		fail();
	}
	free(out);
	assert_int_equal(stat(path, &sb), 0);
	assert_int_equal((uint64_t)sb.st_size, o->good);

	snprintf(cmd, sizeof(cmd), "'%s' --verify '%s' 2>&1", llogcat, path);
	out = run_cmd(cmd, &rc);
	if (rc != 0 || (ok = strstr(out, ": ok (")) == NULL ||
	    sscanf(ok, ": ok (%llu frames, %llu records)", &frames, &records) != 2) {
		fprintf(stderr, "llogcat --verify after --repair (exit %d): %s", rc, out);
		fail();
	}
	assert_int_equal(frames, (unsigned long long)o->frames);
	assert_int_equal(records, (unsigned long long)o->total);
	free(out);
}

/* ---- the test ------------------------------------------------------------- */

static void test_kill_random_moments(void **state)
{
	const char *llogcat = getenv("LLOGCAT");
	const char *env_seed = getenv("LLOG_KILL_SEED");
	uint64_t seed;
	int with_records = 0, torn = 0;
	long total = 0;

	(void)state;
	if (env_seed != NULL && *env_seed != '\0')
		seed = strtoull(env_seed, NULL, 0);
	else
		seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32) ^ (uint64_t)now_ns();
	printf("test_kill: seed %" PRIu64 " (LLOG_KILL_SEED=%" PRIu64 " replays it)%s\n", seed,
	       seed, llogcat ? "" : "; LLOGCAT unset: llogcat --repair not run");
	fflush(stdout);
	prng_state = seed;

	for (int round = 0; round < ROUNDS; round++) {
		long delay_us = (long)(splitmix64(&prng_state) % (MAX_DELAY_US + 1));
		int64_t deadline = now_ns() + (int64_t)FIRST_COMMIT_TIMEOUT_S * 1000000000;
		struct tdir t;
		struct outcome o;
		struct stat sb;
		pid_t pid;
		int st;

		tdir_make(&t, "llog_kill_");
		pid = fork_child();
		if (pid == 0) {
			child_run(t.log, t.err);
			_exit(94);
		}
		/* The first commit: the file is non-empty. Polling for a
		 * condition, bounded; the child must not have died. */
		while (stat(t.log, &sb) != 0 || sb.st_size == 0) {
			if (waitpid(pid, &st, WNOHANG) == pid) {
				fprintf(stderr, "child ended early, status %#x\n", st);
				print_file(t.err);
				fail();
			}
			if (now_ns() > deadline) {
				kill(pid, SIGKILL);
				waitpid(pid, &st, 0);
				fprintf(stderr, "no commit within %d s\n", FIRST_COMMIT_TIMEOUT_S);
				print_file(t.err);
				fail();
			}
			sleep_us(200);
		}
		/* The random moment. */
		sleep_us(delay_us);
		assert_int_equal(kill(pid, SIGKILL), 0);
		assert_int_equal(waitpid(pid, &st, 0), pid);
		if (!WIFSIGNALED(st) || WTERMSIG(st) != SIGKILL) {
			fprintf(stderr, "child status %#x, not killed by SIGKILL\n", st);
			print_file(t.err);
			fail();
		}

		check_file(t.log, &o);
		if (llogcat != NULL)
			check_llogcat(llogcat, t.log, &o);
		printf("round %2d: killed %5ld us after the first commit: %zu bytes, %ld frames, "
		       "%ld records (%ld %ld %ld %ld)%s\n",
		       round, delay_us, o.size, o.frames, o.total, o.records[0], o.records[1],
		       o.records[2], o.records[3], o.torn ? ", torn tail cut" : "");
		with_records += o.total > 0;
		torn += o.torn;
		total += o.total;
		tdir_remove(&t);
	}
	printf("test_kill: %d rounds, %d with records, %d torn tails, %ld records in all\n",
	       ROUNDS, with_records, torn, total);
	/* The first commit was seen before each kill; it can only be missing
	 * when the kill tore that very first write. */
	assert_true(with_records >= ROUNDS - 2);
}

TEST_MAIN(
	cmocka_unit_test(test_kill_random_moments),
)
