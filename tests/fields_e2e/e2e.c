/*
 * e2e.c - structured fields end to end: records with fields and per-thread
 * context logged through the real pipeline into four outputs at once
 * (console JSON lines, a text zstd file, a JSON zstd file, a binary file);
 * check.py reads each back with its real parser (Python's json; llogcat
 * --json for the files) and compares every field, its type, each record
 * once and each worker's order.
 *
 * usage: fields_e2e DIR   (writes DIR/console.jsonl, DIR/text.llog.zst,
 *                          DIR/json.llog.zst, DIR/bin.llog)
 */
#define _GNU_SOURCE
#include <llog.h>
#include <llog/sinks.h>

#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define WORK_N 50

static char long_value[2002];

static int add(struct llog_sink *s, const char *what)
{
	if (s == NULL || llog_add_sink(s) != 0) {
		fprintf(stderr, "fields_e2e: %s sink: %s\n", what, llog_file_sink_error());
		return -1;
	}
	return 0;
}

static void *worker(void *arg)
{
	const char *name = arg;

	llog_ctx_set("thr", name);
	for (int n = 0; n < WORK_N; n++) {
		if (n == WORK_N / 2)
			llog_ctx_set("half", (_Bool)true);
		LOG_INFO_KV(("n", n), "work");
	}
	return NULL;
}

int main(int argc, char **argv)
{
	char path[4096];
	struct llog_config cfg = {.level = LLOG_TRACE};
	struct llog_console_options co = {.format = LLOG_FORMAT_JSON, .color = LLOG_COLOR_NEVER};
	struct llog_file_options text = {.path = path};
	struct llog_file_options json = {.format = LLOG_FORMAT_JSON};
	struct llog_file_options bin = {.compression = LLOG_FILE_BINARY};
	char jpath[4096], bpath[4096];
	pthread_t th[2];

	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	snprintf(path, sizeof(path), "%s/console.jsonl", argv[1]);
	co.fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (co.fd < 0) {
		perror(path);
		return 1;
	}
	snprintf(path, sizeof(path), "%s/text.llog.zst", argv[1]);
	snprintf(jpath, sizeof(jpath), "%s/json.llog.zst", argv[1]);
	snprintf(bpath, sizeof(bpath), "%s/bin.llog", argv[1]);
	json.path = jpath;
	bin.path = bpath;
	if (add(llog_console_sink(&co), "console") || add(llog_file_sink(&text), "text") ||
	    add(llog_file_sink(&json), "json") || add(llog_file_sink(&bin), "binary") ||
	    llog_init(&cfg) != 0) {
		fprintf(stderr, "fields_e2e: init failed\n");
		return 1;
	}

	/* r1: every type, its extremes. */
	LOG_INFO_KV(("i", (int64_t)INT64_MIN, "u", (uint64_t)UINT64_MAX, "small", (short)-7,
		     "d", 2.5, "neg0", -0.0, "nan", (double)NAN, "inf", (double)INFINITY,
		     "ninf", -(double)INFINITY, "f", 0.1f, "yes", (_Bool)true, "no", (_Bool)false,
		     "s", "hello world", "nul", (const char *)NULL, "empty", ""),
		    "r1 types");
	/* r2: adversarial keys, values and message. */
	LOG_WARN_KV(("we ird\"k]=", "v", "quote", "a\"b", "back", "c\\d", "close", "e]f",
		     "eq", "k=v x=y", "nl", "line1\nline2\tt", "esc", "\x1b[31mred",
		     "bad", "x\xff\xfey", "c1", "\xc2\x85", "u", "caf\xc3\xa9"),
		    "r2 msg \\n not a newline\nreal one \"q\" x=1");
	/* r3: a string value over the limit: cut on a UTF-8 boundary. */
	long_value[0] = 'a';
	for (int i = 0; i < 1000; i++)
		memcpy(long_value + 1 + 2 * i, "\xc3\xa9", 2);
	long_value[2001] = '\0';
	LOG_INFO_KV(("long", (const char *)long_value, "after", 1), "r3 cut");

	/* r4..r9: this thread's context. */
	llog_ctx_set("req", "abc");
	LOG_INFO("r4 ctx set");
	{
		LLOG_CTX_SCOPE("tenant", 7);
		LOG_INFO("r5 ctx scope");
	}
	LOG_INFO("r6 ctx after scope");
	LOG_INFO_KV(("req", "call"), "r7 ctx dup");
	llog_ctx_remove("req");
	LOG_INFO("r8 ctx removed");
	llog_ctx_set("gone", 1);
	llog_ctx_clear();
	LOG_INFO("r9 ctx cleared");

	/* Two workers with contexts of their own; this thread's is empty. */
	pthread_create(&th[0], NULL, worker, (void *)"alpha");
	pthread_create(&th[1], NULL, worker, (void *)"beta");
	pthread_join(th[0], NULL);
	pthread_join(th[1], NULL);
	LOG_INFO("r10 end");
	llog_shutdown();
	return 0;
}
