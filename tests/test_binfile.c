/*
 * test_binfile.c - binary capture files (LLOG_FILE_BINARY, backends/
 * file_bin.c) read by llogcat (tools/binrec.c).
 *
 * DESIGN
 * The oracle is the text mode and the C library: the same records go to a
 * text file sink and a binary one in one process, and
 *
 *   llogcat(binary file) == llogcat(text file)              (bytes)
 *   message of each line == escaped vsnprintf(fmt, args)    (unless cut)
 *
 * for the whole printf corpus of test_fmt.c (fmt_corpus.h) and its POSIX
 * positional formats (fmt_pos_cases.h), each format its own call site (made at run time, logged with llog__logv). Then: JSON
 * and filters against a JSON file; a torn tail cut at every byte of the
 * last write, repaired by llogcat --repair (everything before the cut
 * renders); bit flips in that write (a clear error, never a crash or a
 * wrong record); 8 threads with size rotation (every record exactly once,
 * in per-thread order, each file alone); a sink on its own thread; a fork
 * child appending to the same file; strings that come back (data frame
 * version 3's recent strings) from several threads across many frames
 * against the text file. The crash paths: test_crash.c.
 * Needs LLOGCAT (the build sets it).
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "llog.h"
#include "llog/sinks.h"
#include "testutil.h"

#include "filetest.h"
#include "scan.h"
#include "sanitizer.h"

#ifdef TEST_SANITIZER
#define SANITIZED 1
#endif
#ifdef TEST_TSAN
#define TSAN 1
#endif

void llog__logv(struct llog_site *site, va_list ap); /* producer.c, for tests */

/* The corpus's formats are made at run time (fmt_corpus.h). */
#pragma GCC diagnostic ignored "-Wformat-nonliteral"

static const char *llogcat(void)
{
	const char *p = getenv("LLOGCAT");

	if (p == NULL) {
		skip();
		return "false";
	}
	return p;
}

/* llogcat ARGS FILE's output (exit status 0 required). */
static char *cat(const char *args, const char *path, size_t *len)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), "'%s' %s '%s'", llogcat(), args, path);
	return run_output(cmd, len);
}

/* llogcat ARGS_A PATH_A and llogcat ARGS_B PATH_B print the same bytes,
 * and the first of them contains `must` (NULL: anything; "": something). */
static void expect_same_cat(const char *args_a, const char *path_a, const char *args_b,
			    const char *path_b, const char *must)
{
	size_t na, nb;
	char *a = cat(args_a, path_a, &na), *b = cat(args_b, path_b, &nb);

	if (must != NULL && must[0] == '\0')
		assert_true(na > 0);
	else if (must != NULL)
		assert_non_null(strstr(a, must));
	assert_int_equal(na, nb);
	assert_memory_equal(a, b, na);
	free(a);
	free(b);
}

/* A text-or-JSON sink and a binary sink on dir/text and dir/bin. */
static void two_sinks(struct tdir *t, char *text, char *bin, enum llog_format f,
		      const struct llog_config *cfg)
{
	struct llog_file_options to = {.path = text, .format = f};
	struct llog_file_options bo = {.path = bin, .compression = LLOG_FILE_BINARY};

	snprintf(text, 200, "%s/text.zst", t->dir);
	snprintf(bin, 200, "%s/bin.zst", t->dir);
	assert_int_equal(llog_add_sink(llog_file_sink(&to)), 0);
	assert_int_equal(llog_add_sink(llog_file_sink(&bo)), 0);
	assert_int_equal(llog_init(cfg), 0);
}

/* ---- 1. the printf corpus ------------------------------------------------- */

#define MAX_CASES 20000

static struct llog_site *sites;
static struct expected {
	char *msg;
	size_t len;
} *want;
static unsigned ncase;

/* Each format is a call site of its own, logged through the real producer;
 * the expected message is vsnprintf's. */
static void check(const char *fmt, ...)
{
	struct llog_site *s;
	va_list ap, aq;
	int n;

	assert_true(ncase < MAX_CASES);
	s = &sites[ncase];
	*s = (struct llog_site){strdup(fmt), "corpus.c", "corpus", (int)ncase + 1, LLOG_INFO,
				0, {0}, NULL, 0};
	va_start(ap, fmt);
	va_copy(aq, ap);
	n = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	want[ncase].msg = malloc((size_t)n + 1);
	va_copy(aq, ap);
	vsnprintf(want[ncase].msg, (size_t)n + 1, fmt, aq);
	va_end(aq);
	want[ncase].len = (size_t)n;
	llog__logv(s, ap);
	va_end(ap);
	ncase++;
}

#ifdef SANITIZED
/* A quarter of the random formats: each is a site, a record in two files
 * and a line of llogcat's output, all sanitized; test_fmt runs the whole
 * corpus through capture and rendering under the sanitizers, and the
 * release build runs it all here. */
#define FMT_CORPUS_SINGLE 3000
#define FMT_CORPUS_MULTI 1000
#define FMT_POS_RANDOM 250
#else
#define FMT_POS_RANDOM 1000
#endif
#include "fmt_corpus.h"
#include "fmt_pos_cases.h"

/* The message as a text line shows it (escaped), from llog's formatter. */
static char *escaped(const char *msg, size_t len, size_t *out_len)
{
	static const char head[] = "1970-01-01T00:00:00.000000000Z INFO  [1] corpus.c:1 corpus() ";
	struct llog_entry e = {.seq = 1, .level = LLOG_INFO, .line = 1, .tid = 1,
			       .file = "corpus.c", .func = "corpus", .msg = msg, .msg_len = len};
	struct llog_line_options lo = {.flags = LLOG_LINE_FUNC};
	size_t cap = 4 * len + 512, n;
	char *b = malloc(cap);

	n = llog_format_entry_opts(&e, LLOG_FORMAT_TEXT, &lo, b, cap);
	assert_true(n >= sizeof(head));
	assert_memory_equal(b, head, sizeof(head) - 1);
	*out_len = n - (sizeof(head) - 1) - 1; /* less the '\n' */
	memmove(b, b + sizeof(head) - 1, *out_len);
	return b;
}

static void test_corpus_differential(void **state)
{
	struct llog_config cfg = {.overflow = LLOG_OVERFLOW_BLOCK};
	char text[200], bin[200], *a, *b, *p;
	size_t na, nb;
	unsigned lines = 0, cut = 0;
	struct tdir t;

	(void)state;
	llogcat();
	sites = calloc(MAX_CASES, sizeof(*sites));
	want = calloc(MAX_CASES, sizeof(*want));
	tdir_make(&t, "x");
	two_sinks(&t, text, bin, LLOG_FORMAT_TEXT, &cfg);
	fmt_corpus_run();
	fmt_pos_named();
	fmt_pos_random(FMT_POS_RANDOM);
	/* Strings clipped at the capture (the record bound, 4 KiB): the
	 * marker comes from the record's flag, not from rendering. */
	check("%s|%s|%s|%d", longstr, longstr, longstr, 1);
	check("%1$s|%1$s|%2$d|%1$.10s", longstr, 1);
	check("a %s b %.1500s c %5d", longstr, longstr, 2);
	check("%s%s%c", longstr, longstr, 'z');
	llog_shutdown();
	a = cat("", text, &na);
	b = cat("", bin, &nb);
	if (na != nb || memcmp(a, b, na) != 0) {
		size_t i = 0;

		while (i < na && i < nb && a[i] == b[i])
			i++;
		fprintf(stderr, "first difference at byte %zu:\n text: %.200s\n bin:  %.200s\n", i,
			a + (i > 100 ? i - 100 : 0), b + (i > 100 ? i - 100 : 0));
	}
	assert_int_equal(na, nb);
	assert_memory_equal(a, b, na);
	/* Each line's message against vsnprintf. */
	for (p = b; p < b + nb; lines++) {
		char *nl = memchr(p, '\n', (size_t)(b + nb - p));
		char *m = strstr(p, " corpus.c:");
		unsigned idx;
		size_t el, ml;
		char *e;

		assert_non_null(nl);
		assert_true(m != NULL && m < nl);
		idx = (unsigned)strtoul(m + 10, NULL, 10);
		assert_true(idx >= 1 && idx <= ncase);
		m = strstr(m, " corpus() ") + 10;
		ml = (size_t)(nl - m);
		e = escaped(want[idx - 1].msg, want[idx - 1].len, &el);
		if (ml >= 12 && memcmp(nl - 12, " [truncated]", 12) == 0) {
			/* cut at the record bound (strings clipped at the
			 * capture, or the message at rendering): the same in
			 * both files (above) */
			cut++;
		} else {
			if (ml != el || memcmp(m, e, el) != 0)
				fprintf(stderr, "case %u: got %.*s\n want %.*s\n", idx, (int)ml, m,
					(int)el, e);
			assert_int_equal(ml, el);
			assert_memory_equal(m, e, el);
		}
		free(e);
		p = nl + 1;
	}
	assert_int_equal(lines, ncase);
	print_message("binary == text == vsnprintf for %u records (%u cut at the record bound)\n",
		      lines, cut);
	for (unsigned i = 0; i < ncase; i++) {
		free((char *)sites[i].fmt);
		free(want[i].msg);
	}
	free(sites);
	free(want);
	free(a);
	free(b);
	tdir_remove(&t);
}

/* ---- 2. JSON, filters, stats ------------------------------------------------ */

static void some_records(int n)
{
	llog_set_thread_name("worker-1");
	for (int i = 0; i < n; i++) {
		LOG_INFO("rec i=%d s=%s f=%.2f", i, i % 3 ? "x\ty" : NULL, i * 0.25);
		if (i % 10 == 0)
			LOG_WARN("warn %d %ls", i, L"wide"); /* EAGER: stored as text */
		if (i % 50 == 0)
			LOG_ERROR("static message, no arguments");
		if (i % 4 == 0) /* categories: in the binary file's site definitions */
			LOG_INFO_CAT("db.pool", "cat i=%d", i);
		if (i % 9 == 0)
			LOG_WARN_CAT("net", "net %d %ls", i, L"wide");
		if (i % 7 == 0)
			llog_flush(); /* many frames */
	}
}

static void test_json_filters(void **state)
{
	struct llog_config cfg = {0};
	char text[200], bin[200];
	struct tdir t;
	static const char *const args[] = {"", "--level warn", "--grep 'i=1[0-9] '",
					   "--func some_records", "--category db", "--category net",
					   "--stats"};

	(void)state;
	llogcat();
	tdir_make(&t, "x");
	two_sinks(&t, text, bin, LLOG_FORMAT_JSON, &cfg);
	some_records(300);
	llog_shutdown();
	/* The binary file as JSON is the JSON file, filtered alike. */
	for (size_t k = 0; k < sizeof(args) / sizeof(args[0]) - 1; k++) {
		char opt[64];

		snprintf(opt, sizeof(opt), "--json %s", args[k]);
		expect_same_cat(args[k], text, opt, bin, "");
	}
	{
		char *a = cat("--stats", text, NULL), *b = cat("--stats", bin, NULL);

		/* the same records, levels and span; the file sizes differ */
		assert_memory_equal(a, b, (size_t)(strstr(a, " plain=") - a));
		free(a);
		free(b);
	}
	/* llogcat answers these from a binary record's entry without
	 * parsing its line back; "--grep ''" (every line) forces the parse:
	 * the same output either way */
	{
		static const char *const fast[] = {"", "--level warn", "--since 2000-01-01",
						   "--until 2000-01-01", "--stats", "--level error --stats"};

		for (size_t k = 0; k < sizeof(fast) / sizeof(fast[0]); k++) {
			char opt[96];

			snprintf(opt, sizeof(opt), "%s --grep ''", fast[k]);
			expect_same_cat(fast[k], bin, opt, bin, NULL);
		}
	}
	tdir_remove(&t);
}

/* ---- 3. torn tail and bit flips ----------------------------------------------- */

static void spit(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(p, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
}

/* Exit status of llogcat ARGS FILE with its output discarded. */
static int cat_status(const char *args, const char *path)
{
	char cmd[1024];
	int st;

	snprintf(cmd, sizeof(cmd), "'%s' %s '%s' >/dev/null 2>&1", llogcat(), args, path);
	st = system(cmd);
	assert_true(WIFEXITED(st)); /* never a crash */
	return WEXITSTATUS(st);
}

/* Whether the damage loops below try offset k of [from, to): the first 16
 * (the frames' magic and headers), the last 8 (the checksum) and every 4th
 * between (within a compressed block the offsets behave alike; each try
 * runs llogcat up to four times); in a sanitizer build, where a run costs
 * a tenth of a second, the first 8, the last 4 and every 32nd (the reader
 * and the binary record decoder are fuzzed under ASan: fuzz_reader,
 * fuzz_binrec). */
static int damage_tried(size_t k, size_t from, size_t to)
{
#ifdef SANITIZED
	return k < from + 8 || k + 4 >= to || (k - from) % 32 == 0;
#else
	return k < from + 16 || k + 8 >= to || (k - from) % 4 == 0;
#endif
}

static void test_torn_tail_and_flips(void **state)
{
	struct llog_file_options bo = {.compression = LLOG_FILE_BINARY};
	char bin[200], cut[200];
	unsigned char *all;
	size_t n, before, nprefix, tried = 0;
	char *prefix;
	struct tdir t;

	(void)state;
	llogcat();
	tdir_make(&t, "bin.zst");
	snprintf(bin, sizeof(bin), "%s", t.path);
	snprintf(cut, sizeof(cut), "%s/cut.zst", t.dir);
	bo.path = bin;
	assert_int_equal(llog_add_sink(llog_file_sink(&bo)), 0);
	assert_int_equal(llog_init(NULL), 0);
	for (int i = 0; i < 40; i++)
		LOG_INFO("early i=%d %s", i, "text");
	llog_flush();
	{
		struct stat st;

		assert_int_equal(stat(bin, &st), 0);
		before = (size_t)st.st_size;
	}
	/* The last write: a new site (its sites frame) and its data frame. */
	for (int i = 0; i < 6; i++)
		LOG_WARN("late i=%d %.1f", i, i * 1.5);
	llog_shutdown();
	all = (unsigned char *)slurp(bin, &n);
	assert_true(n > before);
	spit(cut, all, before);
	prefix = cat("", cut, &nprefix);
	assert_non_null(strstr(prefix, "early i=39 text"));
	assert_null(strstr(prefix, "late"));
	/* Every cut inside the last write: --repair, then exactly the prefix. */
	for (size_t k = before; k < n; k++) {
		char *out;
		size_t no;
		struct stat st;

		if (!damage_tried(k, before, n))
			continue;
		tried++;
		spit(cut, all, k);
		assert_true(cat_status("--repair", cut) <= 1);
		assert_int_equal(stat(cut, &st), 0);
		assert_true((size_t)st.st_size >= before && (size_t)st.st_size <= k);
		assert_int_equal(cat_status("--verify", cut), 0);
		out = cat("", cut, &no);
		assert_int_equal(no, nprefix);
		assert_memory_equal(out, prefix, no);
		free(out);
	}
	/* One bit flipped at each byte of the last write: a clear error (exit
	 * 1) or, where the flip hits nothing that matters, none; never a crash,
	 * and never a record that was not written. */
	for (size_t k = before; k < n; k++) {
		char *out;
		size_t no;
		int rc;

		if (!damage_tried(k, before, n))
			continue;
		all[k] ^= 0x10;
		spit(cut, all, n);
		all[k] ^= 0x10;
		rc = cat_status("", cut);
		assert_true(rc <= 1);
		if (rc == 0) {
			out = cat("", cut, &no);
			assert_true(no >= nprefix);
			assert_memory_equal(out, prefix, nprefix);
			free(out);
		}
	}
	print_message("%zu cuts and %zu flips of the last %zu bytes\n", tried, tried, n - before);
	free(prefix);
	free(all);
	tdir_remove(&t);
}

/* ---- 4. threads and rotation -------------------------------------------------- */

#define THREADS 8
#ifdef SANITIZED
#define PER_THREAD 8000
#else
#define PER_THREAD 50000
#endif

static void *producer(void *arg)
{
	int id = (int)(intptr_t)arg;

	for (int i = 0; i < PER_THREAD; i++)
		LOG_INFO("t=%d n=%d pad=%s", id, i, "abcdefgh");
	return NULL;
}

static int names_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The " t=T n=N" of the line at p (before nl). */
static void tn(const char *p, const char *nl, int *id, int *n)
{
	const char *r = memmem(p, (size_t)(nl - p), " t=", 3);
	char *end;

	assert_non_null(r);
	*id = (int)strtol(r + 3, &end, 10);
	assert_true(strncmp(end, " n=", 3) == 0);
	*n = (int)strtol(end + 3, &end, 10);
	assert_true(end < nl && *end == ' ');
}

/* Checks out: every "t=T n=N" in order per thread, from next[T] on. */
static void take_lines(const char *out, size_t len, int *next, long *count)
{
	for (const char *p = out; p < out + len;) {
		const char *nl = memchr(p, '\n', (size_t)(out + len - p));
		int id, i;

		assert_non_null(nl);
		tn(p, nl, &id, &i);
		assert_true(id >= 0 && id < THREADS);
		if (i != next[id])
			fprintf(stderr, "thread %d: record %d where %d was expected\n", id, i,
				next[id]);
		assert_int_equal(i, next[id]);
		next[id]++;
		(*count)++;
		p = nl + 1;
	}
}

static void test_threads_rotation(void **state)
{
	/* 64 KiB: packed records take 2-4 bytes each here, so the
	 * 400,000 records make about a dozen files */
	struct llog_file_options bo = {.compression = LLOG_FILE_BINARY,
				       .max_bytes = 64u << 10};
	struct llog_config cfg = {.overflow = LLOG_OVERFLOW_BLOCK};
	char *names[256], all[256 * 200] = "";
	int nf = 0, next[THREADS] = {0};
	long count = 0;
	struct tdir t;
	DIR *d;
	struct dirent *de;

	(void)state;
	llogcat();
	tdir_make(&t, "app.log.zst");
	bo.path = t.path;
#ifdef SANITIZED
	bo.max_bytes = 16u << 10; /* several files from fewer records */
#endif
	assert_int_equal(llog_add_sink(llog_file_sink(&bo)), 0);
	assert_int_equal(llog_init(&cfg), 0);
	assert_int_equal(run_threads(THREADS, producer), 0);
	llog_shutdown();
	assert_non_null(d = opendir(t.dir));
	while ((de = readdir(d)) != NULL)
		if (de->d_name[0] != '.') {
			assert_true(nf < 256);
			assert_true(asprintf(&names[nf++], "%s/%s", t.dir, de->d_name) > 0);
		}
	closedir(d);
	qsort(names, (size_t)nf, sizeof(names[0]), names_cmp);
	assert_true(nf >= 3); /* it rotated */
	/* Each file alone: clean, and in per-thread order within itself. */
	for (int i = 0; i < nf; i++) {
		int fnext[THREADS];
		long fcount = 0;
		size_t len;
		char *out;

		assert_int_equal(cat_status("--verify", names[i]), 0);
		out = cat("", names[i], &len);
		assert_true(len > 0);
		/* in order within the file, from wherever it starts */
		{
			const char *p = out;

			for (int k = 0; k < THREADS; k++)
				fnext[k] = -1;
			for (; p < out + len;) {
				const char *nl = memchr(p, '\n', (size_t)(out + len - p));
				int id, n;

				assert_non_null(nl);
				tn(p, nl, &id, &n);
				assert_true(id >= 0 && id < THREADS);
				if (fnext[id] >= 0)
					assert_int_equal(n, fnext[id]);
				fnext[id] = n + 1;
				fcount++;
				p = nl + 1;
			}
		}
		assert_true(fcount > 0);
		free(out);
		strcat(all, " '");
		strcat(all, names[i]);
		strcat(all, "'");
	}
	/* All together, in llogcat's order: every record exactly once. */
	{
		char cmd[sizeof(all) + 256];
		size_t len;
		char *out;

		snprintf(cmd, sizeof(cmd), "'%s'%s", llogcat(), all);
		out = run_output(cmd, &len);
		take_lines(out, len, next, &count);
		free(out);
	}
	assert_int_equal(count, (long)THREADS * PER_THREAD);
	for (int i = 0; i < THREADS; i++)
		assert_int_equal(next[i], PER_THREAD);
	print_message("%d threads x %d records in %d files\n", THREADS, PER_THREAD, nf);
	for (int i = 0; i < nf; i++)
		free(names[i]);
	tdir_remove(&t);
}

/* ---- 5. a binary sink on a thread of its own ----------------------------------- */

/* It stores rendered messages (TEXT records): the queue carries entries. */

/* A text sink on dir/text.zst (on the flusher) and a binary sink on
 * dir/bin.zst on a thread of its own (BLOCK: nothing dropped), started. */
static void own_thread_sinks(struct tdir *t, char *text, char *bin)
{
	struct llog_file_options to = {.format = LLOG_FORMAT_TEXT, .path = text};
	struct llog_file_options bo = {.compression = LLOG_FILE_BINARY, .path = bin};
	struct llog_sink_options so = {.thread = LLOG_SINK_THREAD_OWN,
				       .full = LLOG_QUEUE_BLOCK};

	llogcat();
	tdir_make(t, "x");
	snprintf(text, 200, "%s/text.zst", t->dir);
	snprintf(bin, 200, "%s/bin.zst", t->dir);
	assert_int_equal(llog_add_sink(llog_file_sink(&to)), 0);
	assert_int_equal(llog_add_sink_opts(llog_file_sink(&bo), &so), 0);
	assert_int_equal(llog_init(NULL), 0);
}

static void test_own_thread(void **state)
{
	char text[200], bin[200];
	struct tdir t;

	(void)state;
	own_thread_sinks(&t, text, bin);
	some_records(200);
	/* More records than the sink has site ids: on its own thread every
	 * entry's file and function are copies (its queue's), one site still */
	for (int i = 0; i < 70000; i++)
		LOG_INFO("many i=%d", i);
	llog_shutdown();
	expect_same_cat("", text, "", bin, "");
	tdir_remove(&t);
}

/* ---- 6. a fork child appending to the same file --------------------------------- */

static void test_fork_same_file(void **state)
{
	struct llog_file_options bo = {.compression = LLOG_FILE_BINARY};
	int next[2] = {0, 0};
	struct tdir t;
	size_t len;
	char *out;
	pid_t pid;

	(void)state;
	llogcat();
#ifdef TSAN
	skip(); /* TSan starts no thread after a multi-threaded fork (the
		 * child's flusher); test_process's test_fork says the same */
#endif
	tdir_make(&t, "bin.zst");
	bo.path = t.path;
	assert_int_equal(llog_add_sink(llog_file_sink(&bo)), 0);
	assert_int_equal(llog_init(NULL), 0);
	for (int i = 0; i < 50; i++)
		LOG_INFO("who=%d i=%d before", 0, i);
	llog_flush();
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		/* other sites than the parent's after the fork: the same ids in
		 * its own stream */
		for (int i = 0; i < 50; i++) {
			LOG_WARN("who=%d i=%d child %s", 1, i, "c");
			if (i % 10 == 0)
				llog_flush();
		}
		llog_shutdown();
		_exit(0);
	}
	for (int i = 50; i < 100; i++) {
		LOG_ERROR("who=%d i=%d parent %d", 0, i, i);
		if (i % 10 == 0)
			llog_flush();
	}
	assert_int_equal(child_exit_code(pid), 0);
	llog_shutdown();
	assert_int_equal(cat_status("--verify", t.path), 0);
	out = cat("", t.path, &len);
	for (const char *p = out; (p = scan_find(p, "who=")) != NULL; p++) {
		long v[2] = {0, 0};
		int who, i;

		assert_int_equal(scan_longs(p, "who=# i=#", v, 2), 2);
		who = (int)v[0], i = (int)v[1];
		assert_int_equal(i, next[who]);
		next[who]++;
		/* each line says whose site it is */
		{
			const char *w = strstr(p, who ? " child c" : i < 50 ? " before" : " parent");

			assert_true(w != NULL && w < strchr(p, '\n'));
		}
	}
	assert_int_equal(next[0], 100);
	assert_int_equal(next[1], 50);
	free(out);
	tdir_remove(&t);
}


/* ---- 7. a call site's address reused by another library ---------------------- */

void llog__dso_fini(int *done); /* control.c: what a library's destructor calls */

static void log_site(struct llog_site *s, ...)
{
	va_list ap;

	va_start(ap, s);
	llog__logv(s, ap);
	va_end(ap);
}

/* A binary file sink of options bo, on the flusher or (own) on a thread
 * of its own (BLOCK: nothing dropped). */
static void add_bin_sink(const struct llog_file_options *bo, int own)
{
	struct llog_sink_options so = {.thread = LLOG_SINK_THREAD_OWN, .full = LLOG_QUEUE_BLOCK};

	if (own)
		assert_int_equal(llog_add_sink_opts(llog_file_sink(bo), &so), 0);
	else
		assert_int_equal(llog_add_sink(llog_file_sink(bo)), 0);
}

/* After dlclose and a dlopen at the same address, a site's struct and its
 * format's text sit at the addresses of the old one's, with another format
 * (and plan): the binary record must be rendered with the new definition.
 * On a thread of its own (own) the sink gets both records' captures as its
 * queue's copies: the generation each carries from the flusher (capture.h)
 * tells the second site from the first. */
static void site_reused(int own)
{
	static char fmt[32];
	static struct llog_site site;
	struct llog_file_options bo = {.compression = LLOG_FILE_BINARY};
	struct tdir t;
	size_t len;
	char *out;

	llogcat();
	tdir_make(&t, "bin.zst");
	bo.path = t.path;
	add_bin_sink(&bo, own);
	assert_int_equal(llog_init(NULL), 0);
	strcpy(fmt, "reuse old=%d");
	site = (struct llog_site){fmt, "reuse.c", "reuse", 7, LLOG_INFO, 0, {0}, NULL, 0};
	log_site(&site, 41);
	llog_flush();
	/* the library is unloaded (its destructor), another one loaded at
	 * the same address: same site and format addresses, same line */
	llog__dso_fini(NULL);
	strcpy(fmt, "reuse new=%s!");
	site = (struct llog_site){fmt, "reuse.c", "reuse", 7, LLOG_WARN, 0, {0}, NULL, 0};
	log_site(&site, "str");
	llog_shutdown();
	out = cat("", t.path, &len);
	assert_non_null(strstr(out, " reuse old=41\n"));
	assert_non_null(strstr(out, " reuse new=str!\n"));
	assert_non_null(strstr(out, "WARN"));
	free(out);
	tdir_remove(&t);
}

/* *state: on a thread of its own (1) or on the flusher (0). */
static void test_site_reused(void **state)
{
	site_reused((int)(uintptr_t)*state);
}

/* ---- 8. sites of two categories at one line ----------------------------------- */

/* Two sites on one line (one macro), same level, other categories, on a
 * thread of its own: each record is stored under the category of its own
 * site, as a capture (BOTH_CATS) and as text (BOTH_CATS_TEXT: a string
 * precision over 239 makes the format eager, fmt_plan.c, so the record is
 * its text and the binary sink keys its site by file, function, line and
 * level, with the category compared). */
#define BOTH_CATS(i) do { LOG_INFO_CAT("alpha", "both i=%d", i); LOG_INFO_CAT("beta", "both i=%d", i); } while (0)
#define BOTH_CATS_TEXT(i) do { LOG_INFO_CAT("alpha", "text %.300s i=%d", "t", i); LOG_INFO_CAT("beta", "text %.300s i=%d", "t", i); } while (0)

static void test_text_sites_by_category(void **state)
{
	char text[200], bin[200];
	struct tdir t;

	(void)state;
	own_thread_sinks(&t, text, bin);
	for (int i = 0; i < 3; i++) {
		BOTH_CATS(i);
		BOTH_CATS_TEXT(i);
	}
	llog_shutdown();
	expect_same_cat("", text, "", bin, "beta");
	expect_same_cat("--category alpha", text, "--category alpha", bin, "text t i=2");
	expect_same_cat("--category beta", text, "--category beta", bin, "text t i=2");
	tdir_remove(&t);
}

/* ---- 9. a long message stored as text ---------------------------------------- */

/* A format longer than a site definition may be (16 KiB) is stored as its
 * rendered text; with a large max_record_bytes that text is far longer
 * than the capture: it is stored cut to the room the sink reserved for it
 * (a frame never outgrows its bound), 64 KiB, marked. The same on the
 * flusher and on a thread of its own (own), with a text sink beside it or
 * alone (no text sink: the flusher renders for the queued binary sink all
 * the same). Random bytes (incompressible), enough records for one frame's
 * bound. */
static size_t long_ref[64]; /* the lines' lengths on the flusher */

static void long_text_fallback(int own, int with_text)
{
	enum { N = 50, FL = 143360, SL = 61440 }; /* 200 KiB messages */
	struct llog_file_options bo = {.compression = LLOG_FILE_BINARY};
	struct llog_file_options to = {.format = LLOG_FORMAT_TEXT};
	struct llog_config cfg = {.max_record_bytes = 256u << 10, .arena_bytes = 64u << 20,
				  .flush_interval_ms = 60000};
	struct llog_site *site = calloc(N, sizeof(*site));
	char *fmt = malloc((size_t)N * (FL + 3)), *arg = malloc(SL + 1), text[200], bin[200];
	uint64_t x = 88172645463325252ull;
	size_t len, lines = 0;
	char *out;
	struct tdir t;

	llogcat();
	/* each its own format: zstd finds no repeats */
	for (int r = 0; r < N; r++) {
		char *f = fmt + (size_t)r * (FL + 3);

		for (size_t i = 0; i < FL; i++) {
			do {
				x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			} while ((unsigned char)x == 0 || (unsigned char)x == '%');
			f[i] = (char)x;
		}
		memcpy(f + FL, "%s", 3);
		site[r] = (struct llog_site){f, "long.c", "long", 1, LLOG_INFO, 0, {0}, NULL, 0};
	}
	tdir_make(&t, "x");
	snprintf(text, sizeof(text), "%s/text.zst", t.dir);
	snprintf(bin, sizeof(bin), "%s/bin.zst", t.dir);
	to.path = text; /* a sink that needs the text: the flusher renders it */
	bo.path = bin;
	if (with_text)
		assert_int_equal(llog_add_sink(llog_file_sink(&to)), 0);
	/* (added before llog_init: a queue sized for this max_record_bytes
	 * when its thread starts, llog__sinkq_fit) */
	add_bin_sink(&bo, own);
	assert_int_equal(llog_init(&cfg), 0);
	for (int r = 0; r < N; r++) {
		for (size_t i = 0; i < SL; i++) {
			do {
				x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			} while ((unsigned char)x == 0);
			arg[i] = (char)x;
		}
		arg[SL] = '\0';
		log_site(&site[r], arg);
	}
	llog_shutdown();
	out = cat("", bin, &len);
	for (size_t i = 0; i < len; i++)
		lines += out[i] == '\n';
	assert_int_equal(lines, N);
	/* each stored cut to the sink's text bound (64 KiB), marked */
	lines = 0;
	for (const char *p = out; (p = scan_find(p, " [truncated]\n")) != NULL; p++)
		lines++;
	assert_int_equal(lines, N);
	/* the same lines as on the flusher (the same messages, seeded
	 * alike; the same thread): their lengths, escaping included */
	lines = 0;
	for (const char *p = out, *nl; p < out + len; p = nl + 1, lines++) {
		nl = memchr(p, '\n', (size_t)(out + len - p));
		assert_non_null(nl);
		if (!own)
			long_ref[lines] = (size_t)(nl - p);
		else if (long_ref[lines] != (size_t)(nl - p))
			fail_msg("line %zu: %zu bytes, on the flusher %zu", lines, (size_t)(nl - p),
				 long_ref[lines]);
	}
	free(out);
	free(fmt);
	free(arg);
	free(site);
	tdir_remove(&t);
}

static void test_long_text_fallback(void **state)
{
	(void)state;
	long_text_fallback(0, 1);
}

static void test_long_text_fallback_own_thread(void **state)
{
	(void)state;
	long_text_fallback(0, 1); /* the reference */
	long_text_fallback(1, 1);
	long_text_fallback(1, 0);
}

/* ---- 10. backtrace entries ------------------------------------------------------ */

/* ---- 11. a full site table --------------------------------------------------- */

/* More call sites than a stream has ids (65,536, file_bin.c), on the
 * flusher and on a thread of its own: the records of the first 65,536
 * sites are in the file, once each and in order; those of the sites past
 * the last id (their text would need a site id too) are counted lost
 * (llog_stats.sink_lost), never written wrong. */
static void site_table_full(int own)
{
	enum { SITES = 65536 + 8 };
	struct llog_stats st0, st;
	struct llog_file_options bo = {.compression = LLOG_FILE_BINARY};
	struct llog_site *site = calloc(SITES, sizeof(*site));
	struct tdir t;
	long next = 0;
	size_t len;
	char *out;

	llogcat();
	tdir_make(&t, "bin.zst");
	bo.path = t.path;
	add_bin_sink(&bo, own);
	assert_int_equal(llog_init(NULL), 0);
	llog_get_stats(&st0);
	for (int i = 0; i < SITES; i++) {
		site[i] = (struct llog_site){"full s=%d", "full.c", "full", 1 + i, LLOG_INFO, 0, {0},
					     NULL, 0};
		log_site(&site[i], i);
	}
	llog_shutdown();
	llog_get_stats(&st);
	assert_int_equal(st.sink_lost - st0.sink_lost, SITES - 65536);
	out = cat("", t.path, &len);
	for (const char *p = out; (p = scan_find(p, " full s=")) != NULL; p++) {
		long v = -1;

		assert_int_equal(scan_longs(p, " full s=#", &v, 1), 1);
		assert_int_equal(v, next);
		next++;
	}
	assert_int_equal(next, 65536);
	free(out);
	free(site);
	tdir_remove(&t);
}

/* *state: on a thread of its own (1) or on the flusher (0). */
static void test_site_table_full(void **state)
{
	site_table_full((int)(uintptr_t)*state);
}

/* Entries of the backtrace (written before a trigger record) are marked in
 * a binary file as in a text one. */
static void test_backtrace_marked(void **state)
{
	struct llog_config cfg = {.level = LLOG_INFO, .backtrace_records = 16,
				  .backtrace_level = LLOG_DEBUG, .backtrace_trigger = LLOG_ERROR};
	char text[200], bin[200];
	struct tdir t;

	(void)state;
	llogcat();
	tdir_make(&t, "x");
	two_sinks(&t, text, bin, LLOG_FORMAT_TEXT, &cfg);
	for (int i = 0; i < 3; i++)
		LOG_DEBUG("kept i=%d", i);
	LOG_ERROR("the trigger");
	llog_shutdown();
	expect_same_cat("", text, "", bin, "[backtrace] kept i=2");
	tdir_remove(&t);
}

/* ---- 6. recent strings ------------------------------------------------------- */

#define RS_THREADS 4
#ifdef SANITIZED
#define RS_PER_THREAD 3000
#else
#define RS_PER_THREAD 20000
#endif

/* Strings around the recent strings' bounds (binpack.h: 32 bytes, keys of
 * 7 bytes and the length), that come back every few records, NULL. */
static const char *const rs_pool[] = {
	"10.0.0.17:443", "alice", "", "abcdefgh", "abcdefgX", "x\ty\n",
	"0123456789abcdef0123456789abcdeX", "0123456789abcdef0123456789abcdeY",
	"0123456789abcdef0123456789abcdefZ", NULL, "10.0.3.4:8443", "bob",
};
#define RS_POOL (sizeof(rs_pool) / sizeof(rs_pool[0]))

static void *rs_producer(void *arg)
{
	int id = (int)(intptr_t)arg;
	unsigned r = (unsigned)id * 7919u + 1;

	for (int i = 0; i < RS_PER_THREAD; i++) {
		const char *a, *b, *c;

		r = r * 1103515245u + 12345u;
		a = rs_pool[(r >> 8) % RS_POOL];
		b = rs_pool[(r >> 12) % 5];
		c = rs_pool[(r >> 16) % RS_POOL];
		LOG_INFO("t=%d n=%d peer=%s user=%s path=%s cut=%.*s", id, i, a, b, c,
			 (int)(r >> 20) % 40, rs_pool[(r >> 24) % 8]);
		if (i % 5 == 0)
			LOG_WARN("t=%d n=%d %s", id, i, a); /* a site of one string */
		if (i % 1000 == 999)
			llog_flush(); /* frames start anywhere */
	}
	return NULL;
}

/* Records whose strings come back (one byte each in a version-3 frame)
 * from several threads, through the runs and the single records, across
 * many frames: llogcat prints the binary file as the text file. */
static void test_recent_strings(void **state)
{
	struct llog_config cfg = {.overflow = LLOG_OVERFLOW_BLOCK};
	char text[200], bin[200];
	struct tdir t;

	(void)state;
	llogcat();
	tdir_make(&t, "x");
	two_sinks(&t, text, bin, LLOG_FORMAT_TEXT, &cfg);
	assert_int_equal(run_threads(RS_THREADS, rs_producer), 0);
	llog_shutdown();
	expect_same_cat("", text, "", bin, "peer=10.0.0.17:443");
	tdir_remove(&t);
}

TEST_MAIN(
	cmocka_unit_test(test_corpus_differential),
	cmocka_unit_test(test_json_filters),
	cmocka_unit_test(test_torn_tail_and_flips),
	cmocka_unit_test(test_threads_rotation),
	cmocka_unit_test(test_own_thread),
	cmocka_unit_test(test_fork_same_file),
	TEST_CASE_ARG(test_site_reused, test_site_reused, 0),
	TEST_CASE_ARG(test_site_reused_own_thread, test_site_reused, 1),
	cmocka_unit_test(test_text_sites_by_category),
	cmocka_unit_test(test_long_text_fallback),
	cmocka_unit_test(test_long_text_fallback_own_thread),
	cmocka_unit_test(test_backtrace_marked),
	cmocka_unit_test(test_recent_strings),
	TEST_CASE_ARG(test_site_table_full, test_site_table_full, 0),
	TEST_CASE_ARG(test_site_table_full_own_thread, test_site_table_full, 1),
)
