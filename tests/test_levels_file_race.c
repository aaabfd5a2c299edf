/*
 * test_levels_file_race.c - a levels file replaced while llog_init reads
 * it is applied by the next check: init's identity of the file (stat) is
 * taken before its content, as the flusher's check does, never after
 * (which would record the new file's identity beside the old content, and
 * the new file would be seen as unchanged until it changed again).
 *
 * Deterministic: the levels path is first a FIFO, so init's read lasts
 * until the test closes its end; before that the test renames a regular
 * file over the path.
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

static char dir[64], path[128], tmp[128];

/* The FIFO's writer: "warn" (the content init reads), then the new file
 * "error" renamed over the path, then EOF. */
static void *writer(void *arg)
{
	int fd = open(path, O_WRONLY); /* waits for init's open */
	FILE *f;

	(void)arg;
	if (fd < 0)
		return (void *)1;
	if (write(fd, "warn\n", 5) != 5)
		return (void *)1;
	f = fopen(tmp, "w");
	if (f == NULL)
		return (void *)1;
	fputs("error\n", f);
	fclose(f);
	if (rename(tmp, path) != 0)
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
	unsetenv("LLOG_LEVEL");
	unsetenv("LLOG_LEVEL_FILE");
	strcpy(dir, "/tmp/llog_raceXXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/levels", dir);
	snprintf(tmp, sizeof(tmp), "%s/levels.tmp", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	cfg.levels_file = path;
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
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_file_replaced_during_init),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
