/*
 * test_file_stall.c - the file sink's writer thread stuck in write(2), as on
 * a frozen or dead file system, outside a crash: nothing waits for it
 * longer than the sink's stall timeout (llog_flush, exit, llog_shutdown),
 * what it holds is written once it returns, in order and once each, and
 * what did not fit in the sink's backlog meanwhile is counted lost, never
 * silently (backends/file_writer.c, DESIGN "Stalls").
 *
 * The stall: this program's writev, which the library's frame writes call,
 * waits at a gate on whichever thread calls it while the test keeps it
 * closed (as on a dead file system), and is the system call otherwise.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "filetest.h"
#include "sanitizer.h"
#include "testutil.h"

static struct gate stall_gate;
static atomic_int stall_on;
static atomic_int slow_ms; /* a slow file system: each write takes this long */
static atomic_int calls, slow_call = -1; /* the writes so far; a slow one */

ssize_t writev(int fd, const struct iovec *iov, int cnt)
{
	int me = atomic_fetch_add(&calls, 1);

	if (me == atomic_load(&slow_call))
		sleep_ms(200); /* and the writes after it stall */
	else if (atomic_load(&stall_on))
		gate_pass(&stall_gate);
	if (atomic_load(&slow_ms) > 0)
		sleep_ms(atomic_load(&slow_ms));
	return syscall(SYS_writev, fd, iov, cnt);
}

/* Closes the gate; the writer's next frame waits at it. Not made again
 * (gate_init): an abandoned writer of an earlier test may have just
 * left it. */
static void stall_begin(void)
{
	pthread_mutex_lock(&stall_gate.lock);
	stall_gate.closed = 1;
	pthread_mutex_unlock(&stall_gate.lock);
	atomic_store(&stall_on, 1);
}

static void stall_release(void)
{
	atomic_store(&stall_on, 0);
	gate_open(&stall_gate);
}

/* The sink's stall timeout: long enough that a loaded machine's slow
 * frame is not taken for a stall (the checks wait for the file anyway). */
#define STALL_MS 500
#define STALL_MS_TEXT "500"


static enum llog_file_fsync start_fsync;

static int saved_stderr = -1;

/* llog with one zstd file sink whose stall timeout is STALL_MS, its
 * diagnostics (stderr) into dir/err until read_err. */
static void start(struct tdir *t)
{
	struct llog_file_options o = {
		.path = t->path, .stall_timeout_ms = STALL_MS, .fsync = start_fsync};
	char err[200];
	int fd;

	snprintf(err, sizeof(err), "%s/err", t->dir);
	fd = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	fflush(stderr);
	if (saved_stderr < 0)
		saved_stderr = dup(2);
	assert_true(dup2(fd, 2) == 2);
	close(fd);
	assert_int_equal(start_file_sink(&o), 0);
}

/* What llog said on stderr since start (stderr is the test's again). */
static char *read_err(const struct tdir *t)
{
	char cmd[300];

	if (saved_stderr >= 0) {
		fflush(stderr);
		dup2(saved_stderr, 2);
	}
	snprintf(cmd, sizeof(cmd), "cat '%s/err'", t->dir);
	return run_output(cmd, NULL);
}

/* The "rec i=N" records of the file, in file order, into v (at most max):
 * their count. torn: the file may end inside a frame being written (what
 * zstdcat read before it is counted). */
static int file_records_of(const struct tdir *t, int *v, int max, int torn)
{
	char cmd[300], *out, *p;
	int n = 0;

	snprintf(cmd, sizeof(cmd), torn ? "zstdcat '%s' 2>/dev/null; true" : "zstdcat '%s'",
		 t->path);
	out = run_output(cmd, NULL);
	for (p = out; (p = strstr(p, "rec i=")) != NULL; p++) {
		assert_true(n < max);
		v[n++] = atoi(p + 6);
	}
	free(out);
	return n;
}

static int file_records(const struct tdir *t, int *v, int max)
{
	return file_records_of(t, v, max, 0);
}

/* Once the writer is let go, it writes what it holds; until then (and
 * until its progress is seen) a stalled sink's flush does not wait for it
 * (file_writer.c, DESIGN "Stalls"): waits until the file holds n records
 * (20 s at most). */
static void wait_file_records(const struct tdir *t, int n)
{
	static int w[1000];
	struct timespec t0, now;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (file_records_of(t, w, 1000, 1) < n) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec - t0.tv_sec > 20)
			break; /* the check after this one fails */
		sleep_ms(1);
	}
}

/* Waits until the writer waits at the gate (it has taken a frame). */
static void wait_writer_held(void)
{
	gate_wait_held(&stall_gate);
}

/* Every record 0..n-1 exactly once and in order, given n. */
static void check_all_in_order(const int *v, int got, int n)
{
	assert_int_equal(got, n);
	for (int i = 0; i < n; i++)
		assert_int_equal(v[i], i);
}

/* ---- llog_flush and the rounds go on; the writer's frames come later -- */

static void test_flush_returns_while_stalled(void **state)
{
	static int v[1000];
	struct llog_stats before, after;
	struct tdir t;
	char *err;
	int i = 0;

	(void)state;
	tdir_make(&t, "s.log.zst");
	start(&t);
	for (; i < 50; i++)
		LOG_INFO("rec i=%d before", i);
	llog_flush();
	stall_begin();
	for (; i < 100; i++)
		LOG_INFO("rec i=%d handed", i);
	wait_writer_held();
	for (; i < 150; i++)
		LOG_INFO("rec i=%d pending", i);
	llog_get_stats(&before);
	/* Without the stall timeout this waits for the writer forever. */
	llog_flush();
	llog_flush(); /* stalled: at once */
	for (; i < 200; i++)
		LOG_INFO("rec i=%d during", i);
	llog_flush();
	llog_get_stats(&after);
	assert_true(after.write_errors > before.write_errors); /* ETIMEDOUT */
	assert_int_equal(after.sink_lost, before.sink_lost); /* all in the backlog */
	stall_release();
	wait_file_records(&t, 200);
	llog_flush();
	check_all_in_order(v, file_records(&t, v, 1000), 200);
	llog_shutdown();
	/* The stall, said whatever else was said in that second (the
	 * library's diagnostics are rate-limited to one a second, but for
	 * these two) */
	err = read_err(&t);
	assert_non_null(strstr(err, "has been inside write(2) for " STALL_MS_TEXT " ms"));
	/* And its end, however soon after: the only word of what it cost. */
	assert_non_null(strstr(err, "making progress again after a stall; 0 records"));
	free(err);
	tdir_remove(&t);
}

/* ---- the writer idle when the file system stops: a barrier's frame ------ */

/*
 * Everything written and the writer idle when the file system stops: the
 * next llog_flush's frame is the writer's too (not the flusher's), so the
 * flush returns after the stall timeout. With fsync on, every commit is
 * such a commit (and the writer calls fsync).
 */
static void flush_after_idle(enum llog_file_fsync fsync_mode)
{
	static int v[1000];
	struct llog_stats before, after;
	struct tdir t;
	int i = 0;

	tdir_make(&t, "s.log.zst");
	start_fsync = fsync_mode;
	start(&t);
	start_fsync = LLOG_FSYNC_NEVER;
	for (; i < 20; i++)
		LOG_INFO("rec i=%d before", i);
	llog_flush();
	wait_file_records(&t, 20);
	check_all_in_order(v, file_records(&t, v, 1000), 20);
	stall_begin();
	for (; i < 40; i++)
		LOG_INFO("rec i=%d stalled", i);
	llog_get_stats(&before);
	llog_flush(); /* without the writer's frame: stuck in write(2) */
	wait_writer_held();
	llog_flush(); /* stalled: at once */
	llog_get_stats(&after);
	assert_true(after.write_errors > before.write_errors); /* ETIMEDOUT */
	assert_int_equal(after.sink_lost, before.sink_lost);
	stall_release();
	wait_file_records(&t, 40);
	llog_flush();
	for (; i < 50; i++)
		LOG_INFO("rec i=%d after", i);
	llog_flush();
	wait_file_records(&t, 50);
	check_all_in_order(v, file_records(&t, v, 1000), 50);
	llog_shutdown();
	free(read_err(&t));
	tdir_remove(&t);
}

static void test_flush_with_idle_writer(void **state)
{
	(void)state;
	flush_after_idle(LLOG_FSYNC_NEVER);
}

static void test_fsync_commit_with_stall(void **state)
{
	(void)state;
	flush_after_idle(LLOG_FSYNC_COMMIT);
}

/* ---- a slow writer is not a stalled one ------------------------------ */

/*
 * A slow file system: every frame takes a fifth of the stall timeout, and
 * the writer holds many rounds' chunks when llog_flush comes, more than a
 * stall timeout's worth in all. It writes one every 100 ms: that is
 * progress, so the flush waits for all of them and reports no error, and
 * nothing says the writer is stalled.
 */
static void test_slow_writer_not_stalled(void **state)
{
	static int v[1000];
	struct llog_stats before, after;
	struct tdir t;
	char *err;

	(void)state;
	tdir_make(&t, "s.log.zst");
	start(&t);
	atomic_store(&slow_ms, STALL_MS / 5);
	for (int i = 0; i < 20; i++) {
		LOG_INFO("rec i=%d", i);
		sleep_ms(10); /* a round each: a chunk each */
	}
	llog_get_stats(&before);
	llog_flush();
	llog_get_stats(&after);
	check_all_in_order(v, file_records(&t, v, 1000), 20); /* in the file */
	assert_int_equal(after.write_errors, before.write_errors);
	atomic_store(&slow_ms, 0);
	llog_shutdown();
	err = read_err(&t);
	assert_null(strstr(err, "has been inside write(2)"));
	free(err);
	tdir_remove(&t);
}

/* ---- a backlog that fills: the rest counted lost, exactly ------------ */

#define ROUNDS 300 /* barrier rounds of one record: more than 256 chunks */

static void test_backlog_full_counts_lost(void **state)
{
	static int v[1000];
	struct llog_stats before, after;
	struct tdir t;
	int i = 0, got;
	uint64_t lost;

	(void)state;
	tdir_make(&t, "s.log.zst");
	start(&t);
	LOG_INFO("rec i=%d before", i++);
	llog_flush();
	llog_get_stats(&before);
	stall_begin();
	LOG_INFO("rec i=%d handed", i++);
	wait_writer_held(); /* an ordinary round handed it */
	llog_flush(); /* waits STALL_MS, declares the stall */
	/* Each flush makes and hands a chunk of its own, until the sink
	 * holds as many as it can. */
	for (int k = 0; k < ROUNDS; k++) {
		LOG_INFO("rec i=%d round", i++);
		llog_flush();
	}
	llog_get_stats(&after);
	lost = after.sink_lost - before.sink_lost;
	assert_true(lost > 0);
	stall_release();
	wait_file_records(&t, (int)((uint64_t)i - lost));
	llog_flush(); /* the stall ends: the writer has made progress */
	for (int k = 0; k < 10; k++)
		LOG_INFO("rec i=%d after", i++);
	llog_flush();
	llog_get_stats(&after);
	assert_int_equal(after.sink_lost - before.sink_lost, lost); /* nothing more */
	wait_file_records(&t, (int)((uint64_t)i - lost));
	got = file_records(&t, v, 1000);
	/* The records kept, in order and once each, then the 10 after; the
	 * ones counted lost are the newest of the stall. */
	assert_int_equal((uint64_t)got + lost, (uint64_t)i);
	for (int k = 0; k < got - 10; k++)
		assert_int_equal(v[k], k);
	for (int k = got - 10; k < got; k++)
		assert_int_equal(v[k], i - (got - k));
	llog_shutdown();
	free(read_err(&t));
	tdir_remove(&t);
}

/* ---- exit and llog_shutdown with the writer stuck for good ----------- */

static struct tdir *exit_dir;

/* After llog's exit handler (registered before llog_init, so run after
 * it): the records the sink counted lost, into dir/lost. */
static void note_lost(void)
{
	struct llog_stats st;
	char path[200];
	FILE *f;

	llog_get_stats(&st);
	snprintf(path, sizeof(path), "%s/lost", exit_dir->dir);
	f = fopen(path, "w");
	if (f != NULL) {
		fprintf(f, "%llu\n", (unsigned long long)st.sink_lost);
		fclose(f);
	}
}

/* A child: the writer stuck from its first frame on, then exit(). */
static void exit_child(struct tdir *t)
{
	exit_dir = t;
	atexit(note_lost);
	start(t);
	stall_begin();
	for (int i = 0; i < 100; i++)
		LOG_INFO("rec i=%d", i);
	wait_writer_held();
	exit(0);
}

static void test_exit_with_stuck_writer(void **state)
{
	char cmd[200];
	struct tdir t;
	int status = 0;
	pid_t pid;
	char *err;

	(void)state;
	tdir_make(&t, "s.log.zst");
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		exit_child(&t);
	/* Without the stall timeout exit() waits for the writer forever:
	 * ctest's timeout ends the test. */
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	err = read_err(&t);
	assert_non_null(strstr(err, "has been inside write(2) for " STALL_MS_TEXT " ms"));
	free(err);
	/* The 100 records: with the stuck writer, or pending; all counted. */
	snprintf(cmd, sizeof(cmd), "cat '%s/lost'", t.dir);
	err = run_output(cmd, NULL);
	assert_string_equal(err, "100\n");
	free(err);
	tdir_remove(&t);
}

static void test_shutdown_with_stuck_writer(void **state)
{
	static int v[1000];
	struct llog_stats before, after;
	struct tdir t;

	(void)state;
	tdir_make(&t, "s.log.zst");
	start(&t);
	llog_get_stats(&before);
	stall_begin();
	for (int i = 0; i < 100; i++)
		LOG_INFO("rec i=%d", i);
	wait_writer_held();
	llog_shutdown();
	llog_get_stats(&after);
	/* What the writer holds and what was pending: counted lost. */
	assert_int_equal(after.sink_lost - before.sink_lost, 100);
	free(read_err(&t));
	/* The writer returns after the close: the sink was not freed under
	 * it, and it writes what it held (ASan sees any use after free). */
	stall_release();
	wait_file_records(&t, 100);
	check_all_in_order(v, file_records(&t, v, 1000), 100);
	tdir_remove(&t);
}

/*
 * Closed while its writer is stuck in the second of the chunks it holds:
 * the first is in the file, so only the records after it are counted
 * lost (each record in the file or lost, once).
 */
static void test_close_counts_written_once(void **state)
{
	static int v[1000];
	struct llog_stats before, after;
	struct tdir t;
	int in_file;

	(void)state;
	tdir_make(&t, "s.log.zst");
	start(&t);
	LOG_INFO("rec i=%d", 0);
	llog_flush();
	wait_file_records(&t, 1);
	llog_get_stats(&before);
	/* The next write takes 200 ms (chunk of rec 1), the ones after it
	 * stall; meanwhile each round hands a chunk of its own. */
	atomic_store(&slow_call, atomic_load(&calls));
	stall_begin();
	for (int i = 1; i < 10; i++) {
		LOG_INFO("rec i=%d", i);
		sleep_ms(5);
	}
	wait_writer_held();
	llog_shutdown();
	llog_get_stats(&after);
	in_file = file_records(&t, v, 1000);
	assert_true(in_file >= 2); /* rec 1 went out before the stall */
	assert_int_equal(after.sink_lost - before.sink_lost, 10 - in_file);
	free(read_err(&t));
	stall_release();
	atomic_store(&slow_call, -1);
	wait_file_records(&t, 10);
	check_all_in_order(v, file_records(&t, v, 1000), 10);
	tdir_remove(&t);
}

/*
 * fork() while the parent's writer is stalled: it does not wait for it,
 * and the child, whose copy of the sink caught the writer inside a chunk,
 * opens the file again and writes its own records (a writer of its own);
 * the parent's are written once its writer returns. Each process's
 * records once each, in its own order.
 */
static void test_fork_while_stalled(void **state)
{
	static int v[1000];
	struct tdir t;
	int status = 0, n = 0, parent = 0, child = 0;
	pid_t pid;

	(void)state;
#if defined(TEST_TSAN)
	skip(); /* TSan starts no thread in a multi-threaded process's child */
#endif
	tdir_make(&t, "s.log.zst");
	start(&t);
	stall_begin();
	for (int i = 0; i < 10; i++)
		LOG_INFO("rec i=%d parent", i);
	wait_writer_held();
	llog_flush(); /* declares the stall */
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		atomic_store(&stall_on, 0); /* the child's file system works */
		for (int i = 100; i < 110; i++)
			LOG_INFO("rec i=%d child", i);
		llog_flush();
		_exit(file_records_of(&t, v, 1000, 1) >= 10 ? 0 : 3);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	stall_release();
	wait_file_records(&t, 20);
	llog_flush();
	n = file_records(&t, v, 1000);
	assert_int_equal(n, 20);
	for (int k = 0; k < n; k++) {
		if (v[k] >= 100)
			assert_int_equal(v[k], 100 + child++);
		else
			assert_int_equal(v[k], parent++);
	}
	llog_shutdown();
	free(read_err(&t));
	tdir_remove(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		/* first: it forks, with no thread of llog's running yet */
		cmocka_unit_test(test_exit_with_stuck_writer),
		cmocka_unit_test(test_flush_returns_while_stalled),
		cmocka_unit_test(test_flush_with_idle_writer),
		cmocka_unit_test(test_fsync_commit_with_stall),
		cmocka_unit_test(test_backlog_full_counts_lost),
		cmocka_unit_test(test_slow_writer_not_stalled),
		cmocka_unit_test(test_fork_while_stalled),
		cmocka_unit_test(test_shutdown_with_stuck_writer),
		cmocka_unit_test(test_close_counts_written_once),
	};

	gate_init(&stall_gate, 0);
	if (getenv("LLOG_TEST_FILTER") != NULL)
		cmocka_set_test_filter(getenv("LLOG_TEST_FILTER"));
	return cmocka_run_group_tests(tests, NULL, NULL);
}
