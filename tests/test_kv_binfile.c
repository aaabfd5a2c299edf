/*
 * test_kv_binfile.c - fields in binary file records (docs/file-format.md):
 * kv_binfile_writer (argv[1]) writes a file through the file sink in
 * LLOG_FILE_BINARY mode; this reads it back with llogcat's frame reader and
 * binary decoder (tools/reader.c, tools/binrec.c) and compares every field
 * exactly (type, flags, value) with what the writer logged; records without
 * fields decode with none (as a version-1 reader's files do).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "binrec.h"
#include "reader.h"

static const char *writer;

struct rec {
	char msg[64];
	size_t n;
	uint32_t trunc;
	struct llog_field f[LLOG_FIELDS_MAX];
	char keys[LLOG_FIELDS_MAX][LLOG_FIELD_KEY_MAX + 1];
	char strs[LLOG_FIELDS_MAX][LLOG_FIELD_STR_MAX + 1];
};
static struct rec recs[8];
static int nrec;

static void on_rec(void *ctx, const struct llog_entry *e, const char *line, size_t len)
{
	struct rec *r = &recs[nrec++];

	(void)ctx;
	(void)line;
	(void)len;
	assert_true(nrec <= 8);
	snprintf(r->msg, sizeof(r->msg), "%.*s", (int)e->msg_len, e->msg);
	r->n = e->nfields;
	r->trunc = e->fields_truncated;
	for (size_t i = 0; i < e->nfields; i++) {
		r->f[i] = e->fields[i];
		assert_int_equal(strlen(e->fields[i].key), e->fields[i].key_len);
		memcpy(r->keys[i], e->fields[i].key, e->fields[i].key_len + 1);
		if (e->fields[i].type == LLOG_FIELD_STR) {
			assert_int_equal(e->fields[i].v.str.ptr[e->fields[i].v.str.len], '\0');
			memcpy(r->strs[i], e->fields[i].v.str.ptr, e->fields[i].v.str.len + 1);
		}
	}
}

static void read_file(const char *path)
{
	struct lcr *rd = lcr_new();
	struct lcb *b = lcb_new();
	struct lcr_event ev;
	char buf[65536];
	const char *why;
	ssize_t n;
	int fd = open(path, O_RDONLY);

	assert_true(fd >= 0 && rd != NULL && b != NULL);
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		assert_int_equal(lcr_feed(rd, buf, (size_t)n), 0);
	close(fd);
	while (lcr_next(rd, true, &ev) != LCR_MORE) {
		assert_true(ev.kind != LCR_DAMAGED);
		if (ev.kind == LCR_SITES)
			assert_int_equal(lcb_sites(b, ev.data, ev.len, &why), 0);
		else if (ev.kind == LCR_DATA)
			assert_int_equal(lcb_frame(b, ev.data, ev.len, LLOG_FORMAT_TEXT, on_rec, NULL,
						   &why), 0);
	}
	lcb_free(b);
	lcr_free(rd);
}

static void test_roundtrip(void **state)
{
	char dir[] = "/tmp/llog_kvbin_XXXXXX", path[64];
	const struct rec *r;
	pid_t pid;
	int st;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/b.log.zst", dir);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		execl(writer, writer, path, (char *)NULL);
		_exit(127);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	read_file(path);
	unlink(path);
	rmdir(dir);

	assert_int_equal(nrec, 4);
	r = &recs[0];
	assert_string_equal(r->msg, "plain 1");
	assert_int_equal(r->n, 0);
	assert_int_equal(r->trunc, 0);

	r = &recs[1];
	assert_string_equal(r->msg, "kv 2");
	assert_int_equal(r->n, 8);
	assert_int_equal(r->trunc, 0);
	assert_string_equal(r->keys[0], "i");
	assert_int_equal(r->f[0].type, LLOG_FIELD_I64);
	assert_true(r->f[0].v.i64 == INT64_MIN);
	assert_string_equal(r->keys[1], "u");
	assert_int_equal(r->f[1].type, LLOG_FIELD_U64);
	assert_true(r->f[1].v.u64 == UINT64_MAX);
	assert_string_equal(r->keys[2], "d");
	assert_int_equal(r->f[2].type, LLOG_FIELD_F64);
	assert_true(r->f[2].v.f64 == 0.0 && signbit(r->f[2].v.f64));
	assert_int_equal(r->f[3].type, LLOG_FIELD_F64);
	assert_true(isnan(r->f[3].v.f64));
	assert_int_equal(r->f[4].type, LLOG_FIELD_BOOL);
	assert_int_equal(r->f[4].v.b, 1);
	assert_string_equal(r->keys[5], "n");
	assert_int_equal(r->f[5].type, LLOG_FIELD_NULL);
	assert_int_equal(r->f[6].type, LLOG_FIELD_STR);
	assert_string_equal(r->strs[6], "v\t\"");
	assert_int_equal(r->f[6].flags, 0);
	assert_int_equal(r->f[7].type, LLOG_FIELD_STR);
	assert_string_equal(r->strs[7], "");

	r = &recs[2];
	assert_string_equal(r->msg, "ctx x");
	assert_int_equal(r->n, 3);
	assert_string_equal(r->keys[0], "req"); /* the context first */
	assert_string_equal(r->strs[0], "r-1");
	assert_string_equal(r->keys[1], "big");
	assert_int_equal(r->f[1].type, LLOG_FIELD_STR);
	assert_int_equal(r->f[1].v.str.len, LLOG_FIELD_STR_MAX);
	assert_int_equal(r->f[1].flags, LLOG_FIELD_TRUNCATED);
	assert_int_equal(r->f[2].type, LLOG_FIELD_F64);
	assert_true(isinf(r->f[2].v.f64) && r->f[2].v.f64 > 0);
	assert_int_equal(r->trunc, 1);

	r = &recs[3];
	assert_string_equal(r->msg, "plain 3");
	assert_int_equal(r->n, 0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(test_roundtrip)};

	if (argc != 2)
		return 2;
	writer = argv[1];
	return cmocka_run_group_tests(tests, NULL, NULL);
}
