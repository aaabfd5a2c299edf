/*
 * filetest.h - for tests that write files and read them back: a fresh
 * directory, the whole output of a shell command (llogcat, zstdcat), and
 * llog started with one file sink.
 * Include after <cmocka.h>.
 */
#ifndef LLOG_TEST_FILETEST_H
#define LLOG_TEST_FILETEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llog.h"
#include "llog/sinks.h"

struct tdir {
	char dir[64];
	char path[160]; /* dir/name */
};

/* A fresh directory /tmp/llog_test_XXXXXX, and path = dir/name in it. */
static __attribute__((unused)) void tdir_make(struct tdir *t, const char *name)
{
	strcpy(t->dir, "/tmp/llog_test_XXXXXX");
	assert_non_null(mkdtemp(t->dir));
	snprintf(t->path, sizeof(t->path), "%s/%s", t->dir, name);
}

static __attribute__((unused)) void tdir_remove(struct tdir *t)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", t->dir);
	assert_int_equal(system(cmd), 0);
}

/* Runs cmd (popen), asserts that it exits with 0, and returns its output
 * NUL-terminated (malloc'd; *len, when not NULL, gets its length: the
 * output may hold NUL bytes). */
static __attribute__((unused)) char *run_output(const char *cmd, size_t *len)
{
	FILE *f = popen(cmd, "r");
	char *buf = NULL;
	size_t cap = 0, n = 0, k;

	assert_non_null(f);
	do {
		if (n + 65536 + 1 > cap) {
			cap = (n + 65536 + 1) * 2;
			buf = realloc(buf, cap);
			assert_non_null(buf);
		}
		k = fread(buf + n, 1, 65536, f);
		n += k;
	} while (k > 0);
	buf[n] = '\0';
	assert_int_equal(pclose(f), 0);
	if (len != NULL)
		*len = n;
	return buf;
}

/* Starts llog (flushing every 10 ms) with a file sink made from o: 0, or
 * -1 when the sink was refused, or llog_init's error. */
static __attribute__((unused)) int start_file_sink(const struct llog_file_options *o)
{
	struct llog_config cfg = {.flush_interval_ms = 10};
	struct llog_sink *s = llog_file_sink(o);

	if (s == NULL || llog_add_sink(s) != 0)
		return -1;
	return llog_init(&cfg);
}

#endif /* LLOG_TEST_FILETEST_H */
