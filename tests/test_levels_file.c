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
 * The replacement is deterministic: the levels path is first a FIFO, so
 * init's read lasts until the test closes its end; before that the test
 * renames a regular file over the path.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

static char fifo_dir[64], fifo_path[128];

/* The FIFO's writer: "warn" (the content init reads), then the new file
 * "error" renamed over the fifo_path, then EOF. */
static void *writer(void *arg)
{
	int fd = open(fifo_path, O_WRONLY); /* waits for init's open */

	(void)arg;
	if (fd < 0)
		return (void *)1;
	if (write(fd, "warn\n", 5) != 5)
		return (void *)1;
	if (replace_file(fifo_path, "error\n") != 0)
		return (void *)1;
	close(fd);
	return NULL;
}

static void test_file_replaced_during_init(void **state)
{
	struct memsink *m = memsink_new(LLOG_TRACE);
	struct llog_config cfg = {.level = LLOG_INFO, .flush_interval_ms = 60000};
	pthread_t t;
	void *rc;

	(void)state;
	fresh_levels_dir(fifo_dir, sizeof(fifo_dir), "/tmp/llog_raceXXXXXX", fifo_path,
			 sizeof(fifo_path));
	assert_int_equal(mkfifo(fifo_path, 0600), 0);
	cfg.levels_file = fifo_path;
	assert_int_equal(pthread_create(&t, NULL, writer, NULL), 0);
	assert_int_equal(memsink_start(m, &cfg), 0);
	assert_int_equal(pthread_join(t, &rc), 0);
	assert_null(rc);
	assert_int_equal(llog_get_level(), LLOG_WARN); /* what init read */
	llog_flush(); /* a check: the file is not the one init read */
	assert_int_equal(llog_get_level(), LLOG_ERROR);

	llog_shutdown();
	memsink_free(m);
	llog_set_levels("trace");
	unlink(fifo_path);
	rmdir(fifo_dir);
}

TEST_MAIN(
	cmocka_unit_test(test_big_file_refused),
	cmocka_unit_test(test_file_replaced_during_init),
)
