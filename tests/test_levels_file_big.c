/*
 * test_levels_file_big.c - a levels file larger than the 64 KiB read is
 * refused whole (at llog_init and at a reload), never applied cut: the
 * cut prefix can be another valid spec ("warn" without the "net=debug"
 * after the comments).
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "llog.h"
#include "memsink.h"

#define FILE_READ_MAX (64u * 1024u) /* reload.c's limit, documented */

static char dir[64];

/* Writes text (then, when pad, comment lines of more than the limit and
 * "net=debug") to dir/levels.tmp and renames it over dir/levels. */
static void write_spec(const char *text, int pad)
{
	char tmp[128], path[128];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s/levels.tmp", dir);
	snprintf(path, sizeof(path), "%s/levels", dir);
	f = fopen(tmp, "w");
	assert_non_null(f);
	fputs(text, f);
	if (pad) {
		for (unsigned n = 0; n <= FILE_READ_MAX; n += 64)
			fprintf(f, "# %61s\n", "padding");
		fputs("net=debug\n", f);
	}
	fclose(f);
	assert_int_equal(rename(tmp, path), 0);
}

static void test_big_file_refused(void **state)
{
	struct memsink *m = memsink_new(LLOG_TRACE);
	char path[128];
	struct llog_config cfg = {.level = LLOG_INFO, .flush_interval_ms = 60000};

	(void)state;
	unsetenv("LLOG_LEVEL");
	unsetenv("LLOG_LEVEL_FILE");
	strcpy(dir, "/tmp/llog_bigXXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/levels", dir);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_big_file_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
