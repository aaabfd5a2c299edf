/*
 * tests/fields/cases.h - the fields of the structured fields' output tests
 * (test_fields_out.c, fields/syslog_sd.c, fields/journald_fields.c) and
 * the entry they are put in; the expected outputs are
 * written by hand in each test and in check_json.py / check_sd.py.
 */
#ifndef LLOG_TESTS_FIELDS_CASES_H
#define LLOG_TESTS_FIELDS_CASES_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "llog/sinks.h"

#define FI(k, x) {.key = k, .key_len = sizeof(k) - 1, .type = LLOG_FIELD_I64, .v.i64 = (x)}
#define FU(k, x) {.key = k, .key_len = sizeof(k) - 1, .type = LLOG_FIELD_U64, .v.u64 = (x)}
#define FD(k, x) {.key = k, .key_len = sizeof(k) - 1, .type = LLOG_FIELD_F64, .v.f64 = (x)}
#define FB(k, x) {.key = k, .key_len = sizeof(k) - 1, .type = LLOG_FIELD_BOOL, .v.b = (x)}
#define FN(k) {.key = k, .key_len = sizeof(k) - 1, .type = LLOG_FIELD_NULL}
#define FS(k, s)                                                                           \
	{.key = k, .key_len = sizeof(k) - 1, .type = LLOG_FIELD_STR,                         \
	 .v.str = {.ptr = s, .len = sizeof(s) - 1}}
#define FSCUT(k, s)                                                                        \
	{.key = k, .key_len = sizeof(k) - 1, .type = LLOG_FIELD_STR,                         \
	 .flags = LLOG_FIELD_TRUNCATED, .v.str = {.ptr = s, .len = sizeof(s) - 1}}
#define NF(a) (sizeof(a) / sizeof((a)[0]))

/* An entry of fixed fields (WARN at 2025-12-03T08:20:00.123456789Z,
 * /src/app/server.c:42 handle(), thread 1234) with the message msg[0..len)
 * and the fields f[0..nf) (also the entry of test_line.c's cases). */
static inline struct llog_entry entry_n(const char *msg, size_t len, const struct llog_field *f,
					size_t nf)
{
	struct llog_entry e = {0};

	e.seq = 7;
	e.ts_ns = 1764750000123456789LL;
	e.level = LLOG_WARN;
	e.line = 42;
	e.tid = 1234;
	e.file = "/src/app/server.c";
	e.func = "handle";
	e.msg = msg;
	e.msg_len = len;
	e.thread_name = "";
	e.fields = f;
	e.nfields = nf;
	return e;
}

/* entry_n with a NUL-terminated message. */
static inline struct llog_entry entry(const char *msg, const struct llog_field *f, size_t nf)
{
	return entry_n(msg, strlen(msg), f, nf);
}


/* Every type, every special double. */
static const struct llog_field all_types[] __attribute__((unused)) = {
	FS("user", "bob"),
	FI("status", 200),
	FI("min", INT64_MIN),
	FU("max", UINT64_MAX),
	FD("latency_ms", 12.5),
	FD("one", 1.0),
	FD("nz", -0.0),
	FD("tenth", 0.1),
	FD("third", 1.0 / 3),
	FD("sum", 0.1 + 0.2),
	FD("big", 1e300),
	FD("tiny", 5e-324),
	FD("n", NAN),
	FD("pi", INFINITY),
	FD("mi", -INFINITY),
	FB("ok", 1),
	FB("no", 0),
	FN("note"),
	FS("empty", ""),
};

/* Keys and values that try to forge a field, a record or a terminal
 * sequence. */
static const struct llog_field adversarial[] __attribute__((unused)) = {
	FS("a b", "x"),
	FS("k\"q", "x"),
	FS("x]=y", "x"),
	FS("back\\slash", "x"),
	FS("nl\nkey", "x"),
	FS("tab\tkey", "x"),
	FS("", "empty key"),
	FS("ok.key-1/2:3@h_", "a\"b\\c]d=e f\ng\th\ri\x1bj\x7fk"),
	FS("c1", "<\xc2\x9b>"),          /* U+009B, CSI */
	FS("bad", "<\xff\xc3\x28\x80>"), /* invalid UTF-8 */
	FS("utf8", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"),
	FS("fake", "x\" forged=1"),
	FS("\xc3\xa9", "1"),
};

/* A call whose fields were cut: two kept, 4 more dropped. */
static const struct llog_field cut_fields[] __attribute__((unused)) = {FSCUT("v", "abc"),
								       FI("n", 1)};

/* The entries every collector's test sends first: "all types",
 * "adversarial", the collector's own keys (message name), "cut" (with
 * fields_truncated 4). Fills e[0..4); returns 4. */
static inline int collector_entries(struct llog_entry *e, const char *name,
				    const struct llog_field *keys, size_t nkeys)
{
	e[0] = entry("all types", all_types, NF(all_types));
	e[1] = entry("adversarial", adversarial, NF(adversarial));
	e[2] = entry(name, keys, nkeys);
	e[3] = entry("cut", cut_fields, NF(cut_fields));
	e[3].fields_truncated = 4;
	return 4;
}

/* Writes e[0..n) through s, commits and destroys s: 0, or -1 when a write
 * or the commit failed. */
static inline int send_entries(struct llog_sink *s, const struct llog_entry *e, int n)
{
	int ok = 1;

	for (int i = 0; i < n && ok; i++)
		ok = s->ops->write(s, &e[i]) > 0;
	ok = ok && s->ops->commit(s) >= 0;
	llog_sink_destroy(s);
	return ok ? 0 : -1;
}

#endif
