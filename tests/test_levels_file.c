/*
 * test_levels_file.c - the levels file (llog_config.levels_file): one
 * larger than the 64 KiB read is refused whole (at llog_init and at a
 * reload), never applied cut: the cut prefix can be another valid spec
 * ("warn" without the "net=debug" after the comments); and one replaced
 * while llog_init reads it is applied by the next check: init's identity
 * of the file (stat) is taken before its content, as the flusher's check
 * does, never after (which would record the new file's identity beside the
 * old content, and the new file would be seen as unchanged until it
 * changed again).
 *
 * The replacement is deterministic: the test is linked with
 * -Wl,--wrap=read, so llog's read() of the levels file goes through
 * __wrap_read here, which renames the new file over the path before the
 * read returns the old one's content.
 *
 * And a path that is not a regular file (a FIFO, a directory, a
 * character device) never blocks llog and is never read: at llog_init a
 * line on stderr, at a reload an ERROR record "llog: levels file PATH: a
 * FIFO; keeping OLD"; the levels stay, LOG calls, llog_flush and
 * llog_shutdown return. A FIFO without a writer blocked a plain open()
 * for good: llog_init never returned, or the flusher stopped and every
 * LOG call with it. A 10 s alarm fails the test instead of hanging it.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cmocka.h>

#include "llog.h"
#include "memsink.h"
#include "testutil.h"

/* ---- a file larger than the read ----------------------------------------- */

#define FILE_READ_MAX (64u * 1024u) /* reload.c's limit, documented */

static char dir[64];

/* No level from the environment; a fresh directory d from the mkdtemp
 * pattern, and path = d/levels. */
static void fresh_levels_dir(char *d, size_t dcap, const char *pattern, char *path, size_t cap)
{
	unsetenv("LLOG_LEVEL");
	unsetenv("LLOG_LEVEL_FILE");
	snprintf(d, dcap, "%s", pattern);
	assert_non_null(mkdtemp(d));
	snprintf(path, cap, "%s/levels", d);
}

/* Writes text (then, when pad, comment lines of more than the limit and
 * "net=debug") to dir/levels.tmp and renames it over dir/levels. */
static void write_spec(const char *text, int pad)
{
	char path[128], *all = malloc(2 * FILE_READ_MAX);
	size_t n;

	assert_non_null(all);
	snprintf(path, sizeof(path), "%s/levels", dir);
	n = (size_t)snprintf(all, 2 * FILE_READ_MAX, "%s", text);
	if (pad) {
		for (unsigned k = 0; k <= FILE_READ_MAX; k += 64)
			n += (size_t)snprintf(all + n, 2 * FILE_READ_MAX - n, "# %61s\n", "padding");
		snprintf(all + n, 2 * FILE_READ_MAX - n, "net=debug\n");
	}
	assert_int_equal(replace_file(path, all), 0);
	free(all);
}

static void test_big_file_refused(void **state)
{
	struct memsink *m = memsink_new(LLOG_TRACE);
	char path[128];
	struct llog_config cfg = {.level = LLOG_INFO, .flush_interval_ms = 60000};

	(void)state;
	fresh_levels_dir(dir, sizeof(dir), "/tmp/llog_bigXXXXXX", path, sizeof(path));
	cfg.levels_file = path;

	/* at init: neither the cut prefix ("warn") nor the rest */
	write_spec("warn\n", 1);
	assert_int_equal(memsink_start(m, &cfg), 0);
	assert_int_equal(llog_get_level(), LLOG_INFO);
	assert_int_equal(llog_category_level("net"), LLOG_INFO);

	/* a reload: a small file is applied, then the big one is refused
	 * with an ERROR record, the levels kept */
	write_spec("error,db=trace\n", 0);
	llog_flush();
	assert_int_equal(llog_get_level(), LLOG_ERROR);
	write_spec("warn\n", 1);
	llog_flush();
	assert_int_equal(llog_get_level(), LLOG_ERROR);
	assert_int_equal(llog_category_level("db"), LLOG_TRACE);
	assert_int_equal(llog_category_level("net"), LLOG_ERROR);
	assert_int_equal(memsink_count_msgs(m, "keeping ERROR,db=TRACE", LLOG_ERROR), 1);
	llog_flush(); /* the same file: no second error */
	assert_int_equal(memsink_count_msgs(m, "keeping ERROR,db=TRACE", LLOG_ERROR), 1);

	llog_shutdown();
	memsink_free(m);
	llog_set_levels("trace");
	unlink(path);
	rmdir(dir);
}

/* ---- a file replaced while llog_init reads it ----------------------------- */

static char race_dir[64], race_path[128];
/* != 0: the next read() of the file with this inode first renames the new
 * file ("error") over race_path. Set before llog_init, which reads the
 * file on the calling thread before it starts the flusher; relaxed is
 * enough: the flusher's and other threads' reads of it come after
 * pthread_create, which orders the store before them. */
static _Atomic ino_t replace_ino;
static _Atomic int replace_failed;

ssize_t __real_read(int fd, void *buf, size_t n);
ssize_t __wrap_read(int fd, void *buf, size_t n);
ssize_t __wrap_read(int fd, void *buf, size_t n)
{
	ino_t want = atomic_load_explicit(&replace_ino, memory_order_relaxed);
	struct stat st;

	if (want != 0 && fstat(fd, &st) == 0 && st.st_ino == want) {
		atomic_store_explicit(&replace_ino, 0, memory_order_relaxed);
		if (replace_file(race_path, "error\n") != 0)
			atomic_store_explicit(&replace_failed, 1, memory_order_relaxed);
	}
	return __real_read(fd, buf, n);
}

static void test_file_replaced_during_init(void **state)
{
	struct memsink *m = memsink_new(LLOG_TRACE);
	struct llog_config cfg = {.level = LLOG_INFO, .flush_interval_ms = 60000};
	struct stat st;

	(void)state;
	fresh_levels_dir(race_dir, sizeof(race_dir), "/tmp/llog_raceXXXXXX", race_path,
			 sizeof(race_path));
	assert_int_equal(replace_file(race_path, "warn\n"), 0);
	assert_int_equal(stat(race_path, &st), 0);
	atomic_store_explicit(&replace_ino, st.st_ino, memory_order_relaxed);
	cfg.levels_file = race_path;
	assert_int_equal(memsink_start(m, &cfg), 0);
	assert_int_equal(atomic_load_explicit(&replace_ino, memory_order_relaxed), 0); /* it ran */
	assert_int_equal(atomic_load_explicit(&replace_failed, memory_order_relaxed), 0);
	assert_int_equal(llog_get_level(), LLOG_WARN); /* what init read */
	llog_flush(); /* a check: the file is not the one init read */
	assert_int_equal(llog_get_level(), LLOG_ERROR);

	llog_shutdown();
	memsink_free(m);
	llog_set_levels("trace");
	unlink(race_path);
	rmdir(race_dir);
}

/* ---- paths that are not regular files ------------------------------------- */

/* Runs llog_init (through memsink_start) with stderr in a file; returns
 * what llog wrote there (static buffer). */
static const char *start_capturing_stderr(struct memsink *m, struct llog_config *cfg)
{
	static char text[4096];
	char tmpl[] = "/tmp/llog_errXXXXXX";
	int fd = mkstemp(tmpl), saved = dup(2);
	ssize_t n;

	assert_true(fd >= 0 && saved >= 0);
	unlink(tmpl);
	assert_int_equal(dup2(fd, 2), 2);
	assert_int_equal(memsink_start(m, cfg), 0);
	assert_int_equal(dup2(saved, 2), 2);
	close(saved);
	n = pread(fd, text, sizeof(text) - 1, 0);
	close(fd);
	text[n > 0 ? n : 0] = '\0';
	return text;
}

/* Replaces the levels path (race_path) with a FIFO, a directory, a
 * symbolic link to /dev/zero or a unix socket, or a regular file of text. */
static void make_path(const char *kind, const char *text)
{
	char tmp[160];

	snprintf(tmp, sizeof(tmp), "%s.tmp", race_path);
	if (strcmp(kind, "fifo") == 0) {
		assert_int_equal(mkfifo(tmp, 0600), 0);
	} else if (strcmp(kind, "dir") == 0) {
		assert_int_equal(mkdir(tmp, 0700), 0);
	} else if (strcmp(kind, "chardev") == 0) {
		assert_int_equal(symlink("/dev/zero", tmp), 0);
	} else if (strcmp(kind, "sock") == 0) { /* open() fails on it: ENXIO */
		struct sockaddr_un a = {.sun_family = AF_UNIX};
		int fd = socket(AF_UNIX, SOCK_STREAM, 0);

		assert_true(fd >= 0);
		assert_true(strlen(tmp) < sizeof(a.sun_path));
		memcpy(a.sun_path, tmp, strlen(tmp) + 1);
		assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
		close(fd);
	} else {
		assert_int_equal(replace_file(race_path, text), 0);
		return;
	}
	if (rename(tmp, race_path) != 0) { /* a directory is not renamed over a file */
		assert_int_equal(unlink(race_path), 0);
		assert_int_equal(rename(tmp, race_path), 0);
	}
}

static void remove_path(void)
{
	if (unlink(race_path) != 0)
		assert_int_equal(rmdir(race_path), 0);
}

static void test_odd_file_types(void **state)
{
	struct memsink *m = memsink_new(LLOG_TRACE);
	struct llog_config cfg = {.level = LLOG_INFO, .flush_interval_ms = 60000};
	static const struct {
		const char *kind, *says;
	} odd[] = {{"fifo", "a FIFO"},
		   {"dir", "a directory"},
		   {"chardev", "a character device"},
		   {"sock", "a socket"}};
	const char *err;
	char want[256];

	(void)state;
	alarm(10); /* a blocked open() or read() fails the test (SIGALRM) */
	fresh_levels_dir(race_dir, sizeof(race_dir), "/tmp/llog_oddXXXXXX", race_path,
			 sizeof(race_path));
	cfg.levels_file = race_path;

	/* at llog_init: a FIFO without a writer; init returns, a line on
	 * stderr, the configured level */
	make_path("fifo", NULL);
	err = start_capturing_stderr(m, &cfg);
	snprintf(want, sizeof(want), "llog: levels file %s: a FIFO; ignored\n", race_path);
	assert_non_null(strstr(err, want));
	assert_int_equal(llog_get_level(), LLOG_INFO);

	/* at a reload: each odd kind refused with an ERROR record, the
	 * levels kept; a regular file between them applied */
	for (size_t i = 0; i < sizeof(odd) / sizeof(odd[0]); i++) {
		remove_path();
		make_path("file", i % 2 ? "error" : "warn");
		llog_flush();
		assert_int_equal(llog_get_level(), i % 2 ? LLOG_ERROR : LLOG_WARN);
		remove_path();
		make_path(odd[i].kind, NULL);
		LOG_ERROR("logged before the flush %zu", i);
		llog_flush();
		assert_int_equal(llog_get_level(), i % 2 ? LLOG_ERROR : LLOG_WARN);
		snprintf(want, sizeof(want), "llog: levels file %s: %s; keeping %s", race_path,
			 odd[i].says, i % 2 ? "ERROR" : "WARN");
		assert_int_equal(memsink_count_msgs(m, want, LLOG_ERROR), 1);
		llog_flush(); /* unchanged: no second record */
		assert_int_equal(memsink_count_msgs(m, want, LLOG_ERROR), 1);
	}
	for (size_t i = 0; i < sizeof(odd) / sizeof(odd[0]); i++) {
		snprintf(want, sizeof(want), "logged before the flush %zu", i);
		assert_int_equal(memsink_count_msgs(m, want, LLOG_ERROR), 1);
	}

	llog_shutdown();
	alarm(0);
	memsink_free(m);
	llog_set_levels("trace");
	remove_path();
	rmdir(race_dir);
}

/* ---- LLOG_LEVEL and a levels file ----------------------------------------- */

/* The file wins when it can be read, and llog_init says which source is
 * in force when both are given; without LLOG_LEVEL it says nothing. */
static void test_env_and_file_precedence(void **state)
{
	struct memsink *m;
	struct llog_config cfg = {.level = LLOG_INFO, .flush_interval_ms = 60000};
	const char *err;
	char want[256];

	(void)state;
	fresh_levels_dir(race_dir, sizeof(race_dir), "/tmp/llog_precXXXXXX", race_path,
			 sizeof(race_path));
	cfg.levels_file = race_path;

	/* both, the file readable: the file */
	make_path("file", "warn,db=error");
	setenv("LLOG_LEVEL", "debug,net=trace", 1);
	m = memsink_new(LLOG_TRACE);
	err = start_capturing_stderr(m, &cfg);
	snprintf(want, sizeof(want),
		 "llog: levels from the levels file %s, which overrides LLOG_LEVEL=debug,net=trace\n",
		 race_path);
	assert_non_null(strstr(err, want));
	assert_int_equal(llog_get_level(), LLOG_WARN);
	assert_int_equal(llog_category_level("db"), LLOG_ERROR);
	llog_shutdown();
	memsink_free(m);

	/* both, no file yet: LLOG_LEVEL, until the file can be read */
	remove_path();
	m = memsink_new(LLOG_TRACE);
	err = start_capturing_stderr(m, &cfg);
	snprintf(want, sizeof(want),
		 "llog: levels from LLOG_LEVEL=debug,net=trace until the levels file %s is read\n",
		 race_path);
	assert_non_null(strstr(err, want));
	assert_int_equal(llog_get_level(), LLOG_DEBUG);
	assert_int_equal(llog_category_level("net"), LLOG_TRACE);
	llog_shutdown();
	memsink_free(m);

	/* the file alone: nothing said */
	unsetenv("LLOG_LEVEL");
	make_path("file", "error");
	m = memsink_new(LLOG_TRACE);
	err = start_capturing_stderr(m, &cfg);
	assert_null(strstr(err, "levels from"));
	assert_int_equal(llog_get_level(), LLOG_ERROR);
	llog_shutdown();
	memsink_free(m);

	llog_set_levels("trace");
	remove_path();
	rmdir(race_dir);
}

TEST_MAIN(
	cmocka_unit_test(test_big_file_refused),
	cmocka_unit_test(test_file_replaced_during_init),
	cmocka_unit_test(test_odd_file_types),
	cmocka_unit_test(test_env_and_file_precedence),
)
