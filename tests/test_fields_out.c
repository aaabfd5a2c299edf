/*
 * test_fields_out.c - structured fields in the outputs (docs/fields.md 3,
 * 4): every type and adversarial keys and values in text lines, exact
 * lines written by hand from the contract; JSON lines read back by
 * python3's json (tests/fields/check_json.py) with values and types
 * compared; a cut value, fields left out, a small buffer. Entries are
 * built here and given to llog_format_entry_opts (the line API every
 * text and JSON sink formats with).
 */
#define _GNU_SOURCE
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "llog/sinks.h"

#define HDR "2025-12-03T08:20:00.123456789Z WARN  [1234] server.c:42 "

#include "fields/cases.h"

static struct llog_entry entry(const char *msg, const struct llog_field *f, size_t nf)
{
	struct llog_entry e = {0};

	e.seq = 7;
	e.ts_ns = 1764750000123456789LL; /* 2025-12-03T08:20:00.123456789Z */
	e.level = LLOG_WARN;
	e.line = 42;
	e.tid = 1234;
	e.file = "/src/app/server.c";
	e.func = "handle";
	e.msg = msg;
	e.msg_len = strlen(msg);
	e.thread_name = "";
	e.fields = f;
	e.nfields = nf;
	return e;
}

static void expect_text(const struct llog_entry *e, const char *want)
{
	char buf[4096];
	size_t n = llog_format_entry_opts(e, LLOG_FORMAT_TEXT, NULL, buf, sizeof(buf));

	buf[n] = '\0';
	if (strcmp(buf, want) != 0)
		fail_msg("got  %s\nwant %s", buf, want);
}

static void test_text_every_type(void **state)
{
	struct llog_entry e = entry("request done", all_types, NF(all_types));

	(void)state;
	expect_text(&e, HDR "request done\tuser=\"bob\" status=200 min=-9223372036854775808 "
			    "max=18446744073709551615 latency_ms=12.5 one=1.0 nz=-0.0 tenth=0.1 "
			    "third=0.3333333333333333 sum=0.30000000000000004 big=1e+300 "
			    "tiny=5e-324 n=nan pi=inf mi=-inf ok=true no=false "
			    "note=null empty=\"\"\n");
}

static void test_text_adversarial(void **state)
{
	struct llog_entry e = entry("m", adversarial, NF(adversarial));

	(void)state;
	expect_text(&e, HDR "m\t\"a b\"=\"x\" \"k\\\"q\"=\"x\" \"x]=y\"=\"x\" "
			    "\"back\\\\slash\"=\"x\" \"nl\\nkey\"=\"x\" \"tab\\tkey\"=\"x\" "
			    "\"\"=\"empty key\" "
			    "ok.key-1/2:3@h_=\"a\\\"b\\\\c]d=e f\\ng\\th\\ri\\x1bj\\x7fk\" "
			    "c1=\"<\\xc2\\x9b>\" bad=\"<\\xff\\xc3(\\x80>\" "
			    "utf8=\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\" "
			    "fake=\"x\\\" forged=1\" \"\xc3\xa9\"=\"1\"\n");
}

/* A cut value ends with "..." after its quote; fields left out: "+N" last
 * (N = fields_truncated less the cut values). */
static void test_text_cut_and_left_out(void **state)
{
	static const struct llog_field f[] = {FSCUT("v", "abc"), FI("n", 1)};
	struct llog_entry e = entry("m", f, NF(f));

	(void)state;
	e.fields_truncated = 1; /* the cut value only */
	expect_text(&e, HDR "m\tv=\"abc\"... n=1\n");
	e.fields_truncated = 4; /* and 3 left out */
	expect_text(&e, HDR "m\tv=\"abc\"... n=1 +3\n");
	e.fields = NULL;
	e.nfields = 0;
	e.fields_truncated = 2;
	expect_text(&e, HDR "m\t+2\n");
}

/* The message's own escapes: a TAB never appears before the field
 * section, a literal backslash-n is not an escaped newline. */
static void test_text_message_escapes(void **state)
{
	static const struct llog_field f[] = {FI("n", 1)};
	struct llog_entry e = entry("C:\\new\tline\nnext \\\\", f, NF(f));

	(void)state;
	expect_text(&e, HDR "C:\\\\new\\tline\\nnext \\\\\\\\\tn=1\n");
	e = entry("C:\\n", NULL, 0);
	expect_text(&e, HDR "C:\\\\n\n");
	e = entry("C:\n", NULL, 0);
	expect_text(&e, HDR "C:\\n\n");
}

/* The field section is last: after " [N suppressed]" and after a cut
 * message's " [truncated]". */
static void test_text_after_markers(void **state)
{
	static const struct llog_field f[] = {FS("k", "v")};
	struct llog_entry e = entry("m", f, NF(f));
	char buf[256];
	size_t n, cap;
	char msg[200];

	(void)state;
	e.suppressed = 5;
	expect_text(&e, HDR "m [5 suppressed]\tk=\"v\"\n");
	memset(msg, 'x', sizeof(msg) - 1);
	msg[sizeof(msg) - 1] = '\0';
	e = entry(msg, f, NF(f));
	/* room for the header, 10 x, the marker, the section and '\n' */
	cap = strlen(HDR) + 10 + strlen(" [truncated]") + strlen("\tk=\"v\"") + 43 + 1;
	n = llog_format_entry_opts(&e, LLOG_FORMAT_TEXT, NULL, buf, cap);
	buf[n] = '\0';
	assert_true(n <= cap);
	assert_non_null(strstr(buf, "x [truncated]\tk=\"v\"\n"));
	assert_memory_equal(buf, HDR "xxxxxxxxxx", strlen(HDR) + 10);
}

/* A buffer too small for every field: each field whole or not at all,
 * the ones left out counted in +N; any cap gives one line. */
static void test_text_small_buffer(void **state)
{
	static const struct llog_field f[] = {
		FI("a", 1),
		FS("b", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"),
		FI("c", 3),
	};
	struct llog_entry e = entry("m", f, NF(f));
	const char *full = HDR "m\ta=1 b=\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
			       "xxxxxxxxxxxxxxxxxx\" c=3\n";
	char buf[512];
	size_t n;

	(void)state;
	expect_text(&e, full);
	n = llog_format_entry_opts(&e, LLOG_FORMAT_TEXT, NULL, buf, strlen(full) - 1);
	buf[n] = '\0';
	assert_string_equal(buf, HDR "m\ta=1 c=3 +1\n");
	for (size_t cap = 1; cap <= strlen(full) + 1; cap++) {
		n = llog_format_entry_opts(&e, LLOG_FORMAT_TEXT, NULL, buf, cap);
		assert_true(n <= cap);
		assert_int_equal(buf[n - 1], '\n');
		assert_ptr_equal(memchr(buf, '\n', n), buf + n - 1);
		for (size_t i = 0; i < n; i++) /* fields whole: never a cut one */
			if (buf[i] == '\t')
				assert_ptr_equal(memchr(buf + i + 1, '\t', n - i - 1), NULL);
	}
}

/* llog_format_entry (no options) reads none of the appended members: no
 * field section. */
static void test_text_no_opts_no_fields(void **state)
{
	static const struct llog_field f[] = {FI("n", 1)};
	struct llog_entry e = entry("m", f, NF(f));
	char buf[256];
	size_t n = llog_format_entry(&e, LLOG_FORMAT_TEXT, buf, sizeof(buf));

	(void)state;
	buf[n] = '\0';
	assert_string_equal(buf, HDR "m\n");
}

/* ---- JSON --------------------------------------------------------------- */

/* The entries check_json.py expects, in its order (CASES there). */
static const struct llog_field j_keys[] = {
	FS("msg", "not the message"),
	FS("a\"b", "q\"uote"),
	FS("back\\slash", "\\n is not a newline"),
	FS("ctl\n\t\x1b", "\x01\x1f\x7f"),
	FS("c1", "<\xc2\x9b>"),
	FS("bad", "<\xff\xc3\x28\x80>"),
	FS("utf8", "caf\xc3\xa9 \xf0\x9f\x98\x80"),
	FS("x]=y", "a=b ]"),
	FS("", "empty key"),
};

static void write_json(FILE *out, const struct llog_entry *e, size_t cap)
{
	char buf[4096];
	size_t n = llog_format_entry_opts(e, LLOG_FORMAT_JSON, NULL, buf, cap);

	assert_true(n <= cap);
	assert_int_equal(fwrite(buf, 1, n, out), n);
}

static void test_json_python(void **state)
{
	static const struct llog_field cut[] = {FSCUT("v", "abc"), FI("n", 1)};
	char path[] = "/tmp/llog_fields_jsonXXXXXX", cmd[512];
	int fd = mkstemp(path);
	FILE *out;
	struct llog_entry e;

	(void)state;
	assert_true(fd >= 0);
	out = fdopen(fd, "w");
	assert_non_null(out);
	e = entry("request done", all_types, NF(all_types));
	write_json(out, &e, 4096);
	e = entry("m", j_keys, NF(j_keys));
	write_json(out, &e, 4096);
	e = entry("m", cut, NF(cut));
	e.fields_truncated = 4;
	write_json(out, &e, 4096);
	e = entry("m", NULL, 0);
	e.fields_truncated = 2;
	write_json(out, &e, 4096);
	e = entry("m", all_types, NF(all_types));
	write_json(out, &e, 260); /* only some fields fit */
	e = entry("no fields", NULL, 0);
	write_json(out, &e, 4096);
	assert_int_equal(fclose(out), 0);
	snprintf(cmd, sizeof(cmd), "python3 %s %s", CHECK_JSON, path);
	assert_int_equal(system(cmd), 0);
	unlink(path);
}

/* Every cap from 1 up gives valid JSON: run through the same script's
 * "any" mode (each line parses, fields a prefix-less subset). */
static void test_json_every_cap(void **state)
{
	char path[] = "/tmp/llog_fields_capXXXXXX", cmd[512];
	int fd = mkstemp(path);
	FILE *out;
	struct llog_entry e = entry("request done", all_types, NF(all_types));

	(void)state;
	assert_true(fd >= 0);
	out = fdopen(fd, "w");
	assert_non_null(out);
	for (size_t cap = 170; cap <= 700; cap++) /* below: no room for "msg" */
		write_json(out, &e, cap);
	assert_int_equal(fclose(out), 0);
	snprintf(cmd, sizeof(cmd), "python3 %s --subset %s", CHECK_JSON, path);
	assert_int_equal(system(cmd), 0);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text_every_type),
		cmocka_unit_test(test_text_adversarial),
		cmocka_unit_test(test_text_cut_and_left_out),
		cmocka_unit_test(test_text_message_escapes),
		cmocka_unit_test(test_text_after_markers),
		cmocka_unit_test(test_text_small_buffer),
		cmocka_unit_test(test_text_no_opts_no_fields),
		cmocka_unit_test(test_json_python),
		cmocka_unit_test(test_json_every_cap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
