/*
 * test_categories.c - categories and their levels:
 * the spec table (valid and malformed, effective levels, nothing changed
 * on error), the category in every output form, sites first reached after
 * a change, a category in a library dlopen'ed after the change, 4 threads
 * in 3 categories against 1,000 changes checked exactly from the output,
 * and the levels file with its reload signal.
 */
#define _GNU_SOURCE
#define LLOG_CATEGORY "test.file"
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
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
#ifdef HAVE_READER
#include "reader.h"
#endif
#include "testutil.h"

static const char *dso_path;

/* ---- a sink that keeps the category beside memsink's entry ------------- */

#define CAT_LEN 32

struct cats {
	char (*cat)[CAT_LEN];
	size_t cap;
};

static void keep_cat(struct memsink *m, const struct llog_entry *e)
{
	struct cats *c = m->user;

	if (m->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 1024;
		c->cat = realloc(c->cat, c->cap * CAT_LEN);
		if (c->cat == NULL)
			abort();
	}
	snprintf(c->cat[m->n], CAT_LEN, "%.*s", (int)(e->category != NULL ? e->category_len : 0),
		 e->category != NULL ? e->category : "");
}

static struct memsink *start(struct cats *c, const struct llog_config *cfg)
{
	struct memsink *m = memsink_new(LLOG_TRACE);

	memset(c, 0, sizeof(*c));
	m->hook = keep_cat;
	m->user = c;
	unsetenv("LLOG_LEVEL");
	unsetenv("LLOG_LEVEL_FILE");
	assert_int_equal(memsink_start(m, cfg), 0);
	return m;
}

static void stop(struct memsink *m, struct cats *c)
{
	assert_int_equal(llog_set_levels("trace"), 0);
	llog_shutdown();
	memsink_free(m);
	free(c->cat);
}

/* ---- spec parsing --------------------------------------------------------- */

static void test_spec_table(void **state)
{
	static const char *const names[] = {NULL, "net", "net.tcp", "db", "db.pool", "db.pool.x",
					    "dbx", "db.poolx"};
	enum { N = sizeof(names) / sizeof(names[0]) };
	static const struct {
		const char *spec;
		int want[N]; /* effective level of names[i] */
	} ok[] = {
		{"info", {2, 2, 2, 2, 2, 2, 2, 2}},
		{"DEBUG", {1, 1, 1, 1, 1, 1, 1, 1}},
		{"info,net=debug,db.pool=trace", {2, 1, 1, 2, 0, 0, 2, 2}},
		{" warn , db = error ,db.pool=off ", {3, 3, 3, 4, 6, 6, 3, 4}},
		{"net=trace", {3, 0, 0, 3, 3, 3, 3, 3}}, /* default kept: WARN from before */
		{"error,net.tcp=warning,db.pool.x=fatal", {4, 4, 3, 4, 4, 5, 4, 4}},
	};
	static const struct {
		const char *spec, *bad; /* the message must name `bad` */
	} bad[] = {
		{"", "empty"},
		{"info,,net=debug", "empty entry"},
		{"info,", "empty entry"},
		{"net=verbose", "verbose"},
		{"loud", "loud"},
		{"info,debug", "debug"},
		{"n et=debug", "n et"},
		{"net..x=debug", "net..x"},
		{".net=debug", ".net"},
		{"=debug", "bad category"},
		{"net=debug,net=info", "\"net\" given twice"},
		{"info,db=", "unknown level \"\""},
	};
	struct cats c;
	struct memsink *m = start(&c, NULL);
	char before[256], after[256];

	(void)state;
	llog_set_level(LLOG_WARN);
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		assert_int_equal(llog_set_levels(ok[i].spec), 0);
		for (size_t k = 0; k < N; k++) {
			if ((int)llog_category_level(names[k]) != ok[i].want[k])
				fail_msg("spec \"%s\": category %s has %d, want %d", ok[i].spec,
					 names[k] ? names[k] : "(default)",
					 (int)llog_category_level(names[k]), ok[i].want[k]);
		}
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint64_t g = llog_levels_generation();

		assert_true(llog_get_levels(before, sizeof(before)) > 0);
		assert_int_equal(llog_set_levels(bad[i].spec), -EINVAL);
		if (strstr(llog_levels_error(), bad[i].bad) == NULL)
			fail_msg("spec \"%s\": message \"%s\" does not name \"%s\"", bad[i].spec,
				 llog_levels_error(), bad[i].bad);
		assert_int_equal(llog_levels_generation(), g);
		assert_true(llog_get_levels(after, sizeof(after)) > 0);
		assert_string_equal(before, after);
		/* the last valid spec's levels are still in force */
		assert_int_equal(llog_category_level("db.pool.x"), LLOG_FATAL);
	}
	assert_int_equal(llog_set_levels(NULL), -EINVAL);
	assert_string_equal(before, "ERROR,net.tcp=WARN,db.pool.x=FATAL");
	assert_int_equal(llog_get_levels(before, 5), -ENOSPC);
	/* llog_set_level changes the default only */
	llog_set_level(LLOG_DEBUG);
	assert_int_equal(llog_category_level("net.tcp"), LLOG_WARN);
	assert_int_equal(llog_category_level("net"), LLOG_DEBUG);
	assert_int_equal(llog_get_level(), LLOG_DEBUG);
	stop(m, &c);
}

/* LLOG_LEVEL is a spec at init; "debug" alone still works. */
static void test_env_spec(void **state)
{
	struct memsink *m = memsink_new(LLOG_TRACE);

	(void)state;
	setenv("LLOG_LEVEL", "error,net=debug", 1);
	unsetenv("LLOG_LEVEL_FILE");
	assert_int_equal(memsink_start(m, &(struct llog_config){.level = LLOG_INFO}), 0);
	assert_int_equal(llog_get_level(), LLOG_ERROR);
	assert_int_equal(llog_category_level("net.x"), LLOG_DEBUG);
	llog_shutdown();
	setenv("LLOG_LEVEL", "debug", 1);
	assert_int_equal(llog_init(&(struct llog_config){.level = LLOG_INFO}), 0);
	assert_int_equal(llog_get_level(), LLOG_DEBUG);
	assert_int_equal(llog_category_level("net.x"), LLOG_DEBUG);
	llog_shutdown();
	unsetenv("LLOG_LEVEL");
	memsink_free(m);
	llog_set_level(LLOG_TRACE);
	assert_int_equal(llog_set_levels("trace"), 0);
}

/* ---- outputs and filtering ------------------------------------------------ */

static int evaluated;

static int side(void)
{
	return ++evaluated;
}

/* A site reached for the first time by this call. */
static void late_site(int i)
{
	LOG_DEBUG_CAT("late.x", "late %d", i);
}

static void test_category_output_and_levels(void **state)
{
	struct cats c;
	struct memsink *m = start(&c, NULL);
	char line[512];
	struct llog_line_options lo = {0};
	struct llog_entry e = {.level = LLOG_INFO, .tid = 7, .file = "a/b.c", .func = "f",
			       .line = 3, .msg = "hi", .msg_len = 2, .thread_name = "",
			       .category = "db.pool", .category_len = 7};

	(void)state;
	assert_int_equal(llog_set_levels("warn,db=debug,late=trace"), 0);
	evaluated = 0;
	LOG_DEBUG_CAT("db.pool", "pool %d", side());        /* shown: db=debug */
	LOG_TRACE_CAT("db.pool", "pool trace %d", side());  /* hidden */
	LOG_DEBUG_CAT("net", "net %d", side());             /* hidden: default WARN */
	LOG_INFO("file category %d", side());               /* hidden: test.file */
	LOG_WARN("file category warn");                     /* shown */
	LOG_CAT(LLOG_ERROR, "net", "net error");            /* shown */
	for (int i = 0; i < 3; i++)
		LOG_DEBUG_EVERY_N(2, "limited %d", i);      /* hidden: file category */
	assert_int_equal(llog_set_levels("warn,test=debug,late=info"), 0);
	for (int i = 0; i < 3; i++)
		LOG_DEBUG_EVERY_N(2, "limited %d", i);      /* i = 0, 2 shown */
	late_site(1);                                       /* first reached: hidden */
	assert_int_equal(llog_set_levels("warn,late.x=debug"), 0);
	late_site(2);                                       /* shown */
	llog_flush();
	assert_int_equal(evaluated, 1);
	{
		static const struct {
			const char *msg, *cat;
		} want[] = {
			{"llog: levels changed (generation ", "llog"},
			{"pool 1", "db.pool"},
			{"file category warn", "test.file"},
			{"net error", "net"},
			{"llog: levels changed (generation ", "llog"},
			{"limited 0", "test.file"},
			{"limited 2", "test.file"},
			{"llog: levels changed (generation ", "llog"},
			{"late 2", "late.x"},
		};

		assert_int_equal(m->n, sizeof(want) / sizeof(want[0]));
		for (size_t i = 0; i < m->n; i++) {
			assert_memory_equal(m->e[i].msg, want[i].msg, strlen(want[i].msg));
			assert_string_equal(c.cat[i], want[i].cat);
		}
		assert_non_null(strstr(m->e[7].msg, "WARN,test=DEBUG,late=INFO -> WARN,late.x=DEBUG"));
	}
	/* the forms of every output (a line is its returned length: not
	 * NUL-terminated, sinks.h) */
	line[llog_format_entry_opts(&e, LLOG_FORMAT_TEXT, &lo, line, sizeof(line) - 1)] = '\0';
	assert_non_null(strstr(line, "Z INFO  db.pool [7] b.c:3 hi\n"));
	line[llog_format_entry_opts(&e, LLOG_FORMAT_JSON, &lo, line, sizeof(line) - 1)] = '\0';
	assert_non_null(strstr(line, ",\"category\":\"db.pool\",\"file\":"));
	e.category = "we ird[";
	e.category_len = 7;
	line[llog_format_entry_opts(&e, LLOG_FORMAT_TEXT, &lo, line, sizeof(line) - 1)] = '\0';
	assert_non_null(strstr(line, "INFO  we\\x20ird\\x5b [7]"));
	e.category = NULL;
	e.category_len = 0;
	line[llog_format_entry_opts(&e, LLOG_FORMAT_TEXT, &lo, line, sizeof(line) - 1)] = '\0';
	assert_non_null(strstr(line, "Z INFO  [7] b.c:3 hi\n"));
	line[llog_format_entry_opts(&e, LLOG_FORMAT_JSON, &lo, line, sizeof(line) - 1)] = '\0';
	assert_null(strstr(line, "category"));
	stop(m, &c);
}

#ifdef HAVE_READER
/* Text and JSON lines with a category parse back (llogcat --category). */
static void test_lines_parse_back(void **state)
{
	static const char *const cats[] = {"net", "db.pool.x", NULL};
	struct llog_line_options lo = {.flags = LLOG_LINE_THREAD_NAME};
	char line[512];

	(void)state;
	for (size_t i = 0; i < 3; i++) {
		for (int fmt = 0; fmt < 2; fmt++) {
			struct llog_entry e = {.level = LLOG_ERROR, .tid = 9, .file = "x.c",
					       .func = "f", .line = 12, .msg = "m [1] z",
					       .msg_len = 7, .thread_name = "w", .thread_name_len = 1,
					       .category = cats[i],
					       .category_len = cats[i] ? strlen(cats[i]) : 0};
			struct lcr_record r;
			size_t n = llog_format_entry_opts(&e, fmt ? LLOG_FORMAT_JSON : LLOG_FORMAT_TEXT,
							  &lo, line, sizeof(line));

			lcr_parse_record(line, n, &r);
			assert_int_equal(r.level, LLOG_ERROR);
			if (!fmt) {
				assert_true(r.parsed);
				assert_int_equal(r.thread_len, 1);
				assert_memory_equal(r.msg, "m [1] z", 7);
			}
			if (cats[i] == NULL) {
				assert_null(r.category);
			} else {
				assert_int_equal(r.category_len, strlen(cats[i]));
				assert_memory_equal(r.category, cats[i], r.category_len);
			}
		}
	}
}
#endif

/* A library loaded after the spec was set obeys it. */
static void test_dlopen_category(void **state)
{
	struct cats c;
	struct memsink *m = start(&c, NULL);
	void (*fn)(int);
	void *h;

	(void)state;
	assert_int_equal(llog_set_levels("error,dso=debug,dso.cat=info"), 0);
	h = dlopen(dso_path, RTLD_NOW | RTLD_LOCAL);
	if (h == NULL)
		fail_msg("dlopen %s: %s", dso_path, dlerror());
	fn = (void (*)(int))(uintptr_t)dlsym(h, "dso_cat_log");
	assert_non_null(fn);
	fn(1); /* info, warn */
	assert_int_equal(llog_set_levels("error,dso=debug"), 0);
	fn(2); /* debug, info, warn: dso.cat follows dso */
	assert_int_equal(llog_set_levels("error,dso.cat=warn"), 0);
	fn(3); /* warn */
	dlclose(h);
	llog_flush();
	{
		static const char *const want[] = {
			"dso.cat info 1", "dso.cat warn 1", "dso.cat debug 2", "dso.cat info 2",
			"dso.cat warn 2", "dso.cat warn 3"};
		size_t k = 0;

		for (size_t i = 0; i < m->n; i++) {
			if (strcmp(c.cat[i], "llog") == 0)
				continue;
			assert_true(k < 6);
			assert_string_equal(m->e[i].msg, want[k]);
			assert_string_equal(c.cat[i], "dso.cat");
			k++;
		}
		assert_int_equal(k, 6);
	}
	stop(m, &c);
}

/* ---- 1,000 changes against 4 threads in 3 categories --------------------- */

#define THREADS 4
#define CHANGES 1000
#define NCAT 3

static const char *const cat_names[NCAT] = {"alpha", "beta.one", "gamma"};
/* levels[g][c]: the level of category c in generation g (TRACE..WARN). */
static int levels[CHANGES + 8][NCAT];
static uint64_t gen0;
static int done;

/* Per thread and iteration: the levels seen (bit per level), gb, ga. */
struct iter {
	unsigned seen;
	uint64_t gb, ga;
	int ended;
	int bad;
};
static struct iter *iters[THREADS];
#define MAX_ITERS 200000
static int next_iter[THREADS];
static int markers;
static uint64_t marker_gen;
static int failures;

static int enabled(uint64_t g, int cat, int level)
{
	return g >= gen0 && g - gen0 < CHANGES + 1 && level >= levels[g - gen0][cat];
}

/* On the flusher: each record checked as it comes. */
static void check_hook(struct memsink *m, const struct llog_entry *e)
{
	int t, i, l, cat;
	unsigned long long gb, ga, g;
	char spec[200];

	(void)m;
	if (e->category != NULL && strcmp(e->category, "llog") == 0) {
		if (sscanf(e->msg, "llog: levels changed (generation %llu): %*s -> %199s", &g,
			   spec) != 2 || g != marker_gen + 1)
			failures++;
		marker_gen = g;
		markers++;
		return;
	}
	if (sscanf(e->msg, "t=%d c=%d i=%d l=%d gb=%llu ga=%llu", &t, &cat, &i, &l, &gb, &ga) != 6 ||
	    t < 0 || t >= THREADS || i < 0 || i >= MAX_ITERS) {
		failures++;
		return;
	}
	/* per-thread order: iterations in order, no gaps in ended ones */
	if (i < next_iter[t] - 1 || i > next_iter[t]) {
		failures++;
		return;
	}
	next_iter[t] = i + 1;
	if (l == LLOG_ERROR) {
		struct iter *it = &iters[t][i];

		it->ended = 1;
		it->gb = gb;
		it->ga = ga;
		return;
	}
	iters[t][i].seen |= 1u << l;
	/* a record obeys a generation between the iteration's start and
	 * the one its arguments read (after its level check) */
	{
		int ok = 0;

		for (uint64_t k = gb; k <= ga && !ok; k++)
			ok = enabled(k, cat, l);
		if (!ok)
			iters[t][i].bad = 1;
	}
}

static void *logger(void *arg)
{
	int t = (int)(intptr_t)arg;

	for (int i = 0; i < MAX_ITERS; i++) {
		int cat = i % NCAT;
		unsigned long long gb = llog_levels_generation();
		int stop_now = __atomic_load_n(&done, __ATOMIC_ACQUIRE);

		/* each category its own sites; the category literal per case */
#define ONE(name, level)                                                                        \
	LOG_CAT(level, name, "t=%d c=%d i=%d l=%d gb=%llu ga=%llu", t, cat, i, level, gb,       \
		(unsigned long long)llog_levels_generation())
#define BELOW_ERROR(name)                                                                       \
	do {                                                                                    \
		ONE(name, LLOG_TRACE); ONE(name, LLOG_DEBUG); ONE(name, LLOG_INFO);             \
		ONE(name, LLOG_WARN);                                                           \
	} while (0)
		switch (cat) {
		case 0:
			BELOW_ERROR("alpha");
			break;
		case 1:
			BELOW_ERROR("beta.one");
			break;
		default:
			BELOW_ERROR("gamma");
			break;
		}
#undef BELOW_ERROR
#undef ONE
		LOG_ERROR_CAT("end", "t=%d c=%d i=%d l=%d gb=%llu ga=%llu", t, cat, i, LLOG_ERROR, gb,
			      (unsigned long long)llog_levels_generation());
		if (stop_now)
			break;
	}
	return NULL;
}

static void spec_of(int g, char *buf, size_t cap)
{
	snprintf(buf, cap, "error,%s=%s,%s=%s,%s=%s", cat_names[0],
		 llog_level_name((enum llog_level)levels[g][0]), cat_names[1],
		 llog_level_name((enum llog_level)levels[g][1]), cat_names[2],
		 llog_level_name((enum llog_level)levels[g][2]));
}

static void test_runtime_change_threads(void **state)
{
	struct memsink *m = memsink_new(LLOG_TRACE);
	pthread_t th[THREADS];
	char spec[200];
	unsigned seed = 12345;
	size_t stable = 0, total = 0;

	(void)state;
	unsetenv("LLOG_LEVEL");
	unsetenv("LLOG_LEVEL_FILE");
	m->nostore = 1;
	m->hook = check_hook;
	for (int t = 0; t < THREADS; t++)
		iters[t] = calloc(MAX_ITERS, sizeof(struct iter));
	for (int g = 0; g <= CHANGES; g++)
		for (int c = 0; c < NCAT; c++)
			levels[g][c] = (int)(rand_r(&seed) % 4); /* TRACE..WARN */
	assert_int_equal(memsink_start(m, NULL), 0);
	/* Written before the first marker's push: the flusher reads them. */
	gen0 = llog_levels_generation() + 1;
	marker_gen = gen0 - 1;
	spec_of(0, spec, sizeof(spec));
	assert_int_equal(llog_set_levels(spec), 0);
	assert_int_equal(llog_levels_generation(), gen0);
	for (int t = 0; t < THREADS; t++)
		pthread_create(&th[t], NULL, logger, (void *)(intptr_t)t);
	for (int g = 1; g <= CHANGES; g++) {
		spec_of(g, spec, sizeof(spec));
		assert_int_equal(llog_set_levels(spec), 0);
		/* the only writer: the generations are ours, in order */
		assert_int_equal(llog_levels_generation(), gen0 + (uint64_t)g);
	}
	__atomic_store_n(&done, 1, __ATOMIC_RELEASE);
	for (int t = 0; t < THREADS; t++)
		pthread_join(th[t], NULL);
	assert_int_equal(llog_set_levels("trace"), 0);
	llog_shutdown();
	assert_int_equal(failures, 0);
	assert_int_equal(markers, CHANGES + 2);
	for (int t = 0; t < THREADS; t++) {
		for (int i = 0; i < next_iter[t]; i++) {
			struct iter *it = &iters[t][i];
			int cat = i % NCAT;

			assert_true(it->ended);
			assert_false(it->bad);
			total++;
			if (it->gb == it->ga) {
				/* one generation throughout: exactly its levels */
				unsigned want = 0;

				for (int l = LLOG_TRACE; l <= LLOG_WARN; l++)
					if (enabled(it->gb, cat, l))
						want |= 1u << l;
				if (it->seen != want)
					fail_msg("t=%d i=%d gen %llu: levels seen %#x, want %#x", t, i,
						 (unsigned long long)it->gb, it->seen, want);
				stable++;
			}
		}
		free(iters[t]);
	}
	assert_true(stable > 0);
	print_message("%zu iterations, %zu within one generation\n", total, stable);
	memsink_free(m);
}

/* ---- the levels file and the reload signal ------------------------------- */

static char dir[64];

static void write_spec(const char *text)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/levels", dir);
	assert_int_equal(replace_file(path, text), 0);
}

/* A fresh directory (dir) with path = dir/levels holding spec. */
static void levels_dir_with(char *path, size_t cap, const char *spec)
{
	strcpy(dir, "/tmp/llog_catXXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(path, cap, "%s/levels", dir);
	write_spec(spec);
}

static void test_levels_file_and_signal(void **state)
{
	struct cats c;
	struct memsink *m;
	char path[128];
	struct llog_config cfg = {.flush_interval_ms = 60000, .levels_signal = SIGUSR1};

	(void)state;
	levels_dir_with(path, sizeof(path), "# levels\ninfo\n\nnet=debug\n");
	cfg.levels_file = path;
	assert_int_equal(llog_init(&(struct llog_config){.levels_signal = SIGUSR1}), -EINVAL);
	m = start(&c, &cfg);
	assert_int_equal(llog_get_level(), LLOG_INFO); /* read at init */
	assert_int_equal(llog_category_level("net.tcp"), LLOG_DEBUG);

	/* a new file, seen by the round of llog_flush (not by a timer) */
	write_spec("warn,net=trace");
	llog_flush();
	assert_int_equal(llog_get_level(), LLOG_WARN);
	assert_int_equal(llog_category_level("net.tcp"), LLOG_TRACE);
	assert_int_equal(memsink_count_msgs(m, "INFO,net=DEBUG -> WARN,net=TRACE", LLOG_INFO), 1);

	/* malformed: an ERROR naming the bad part, the levels kept */
	write_spec("info,net=verbose");
	llog_flush();
	assert_int_equal(llog_get_level(), LLOG_WARN);
	assert_int_equal(llog_category_level("net"), LLOG_TRACE);
	assert_int_equal(memsink_count_msgs(m, "verbose", LLOG_ERROR), 1);
	assert_int_equal(memsink_count_msgs(m, "keeping WARN,net=TRACE", LLOG_ERROR), 1);
	llog_flush(); /* the same content: no second error */
	assert_int_equal(memsink_count_msgs(m, "verbose", LLOG_ERROR), 1);

	/* the signal re-reads the file even when it did not change */
	write_spec("debug,db=error");
	llog_flush();
	assert_int_equal(llog_get_level(), LLOG_DEBUG);
	assert_int_equal(llog_set_levels("fatal"), 0);
	llog_flush(); /* unchanged file: the programmatic levels stay */
	assert_int_equal(llog_get_level(), LLOG_FATAL);
	assert_int_equal(raise(SIGUSR1), 0);
	llog_flush();
	assert_int_equal(llog_get_level(), LLOG_DEBUG);
	assert_int_equal(llog_category_level("db.x"), LLOG_ERROR);
	assert_int_equal(memsink_count_msgs(m, "FATAL -> DEBUG,db=ERROR", LLOG_INFO), 1);
	for (size_t i = 0; i < m->n; i++)
		if (strstr(m->e[i].msg, "llog: levels") != NULL)
			assert_string_equal(c.cat[i], "llog");
	stop(m, &c);
	/* the handler is gone with llog_shutdown: SIGUSR1 back to the default */
	unlink(path);
	rmdir(dir);
}

static volatile sig_atomic_t app_signals;

static void app_handler(int sig)
{
	(void)sig;
	app_signals++;
}

static void app_action(int sig, siginfo_t *si, void *uc)
{
	(void)sig, (void)si, (void)uc;
	app_signals++;
}

/* levels_signal never replaces the application's handler: llog_init
 * refuses it (-EBUSY) and starts nothing, the handler stays and runs; a
 * signal that is ignored or at its default gets llog's handler, and
 * llog_shutdown puts the disposition back. */
static void test_levels_signal_keeps_app_handler(void **state)
{
	struct sigaction sa = {.sa_handler = app_handler}, cur, old;
	char path[128];
	struct llog_config cfg = {.levels_signal = SIGUSR2};

	(void)state;
	levels_dir_with(path, sizeof(path), "info");
	cfg.levels_file = path;
	sigemptyset(&sa.sa_mask);
	assert_int_equal(sigaction(SIGUSR2, &sa, &old), 0);

	assert_int_equal(llog_init(&cfg), -EBUSY);
	assert_int_equal(sigaction(SIGUSR2, NULL, &cur), 0);
	assert_ptr_equal(cur.sa_handler, app_handler);
	assert_int_equal(raise(SIGUSR2), 0);
	assert_int_equal(app_signals, 1);

	sa.sa_handler = NULL;
	sa.sa_sigaction = app_action;
	sa.sa_flags = SA_SIGINFO;
	assert_int_equal(sigaction(SIGUSR2, &sa, NULL), 0);
	assert_int_equal(llog_init(&cfg), -EBUSY);
	assert_int_equal(raise(SIGUSR2), 0);
	assert_int_equal(app_signals, 2);

	/* ignored: llog's handler while it runs (not -EALREADY: the refused
	 * calls started nothing), SIG_IGN again after llog_shutdown */
	sa.sa_handler = SIG_IGN;
	sa.sa_flags = 0;
	assert_int_equal(sigaction(SIGUSR2, &sa, NULL), 0);
	assert_int_equal(llog_init(&cfg), 0);
	assert_int_equal(sigaction(SIGUSR2, NULL, &cur), 0);
	assert_true(cur.sa_handler != SIG_IGN && cur.sa_handler != app_handler);
	llog_shutdown();
	assert_int_equal(sigaction(SIGUSR2, NULL, &cur), 0);
	assert_ptr_equal(cur.sa_handler, SIG_IGN);
	assert_int_equal(app_signals, 2);

	assert_int_equal(sigaction(SIGUSR2, &old, NULL), 0);
	unlink(path);
	rmdir(dir);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_spec_table),
	cmocka_unit_test(test_env_spec),
	cmocka_unit_test(test_category_output_and_levels),
	cmocka_unit_test(test_dlopen_category),
#ifdef HAVE_READER
	cmocka_unit_test(test_lines_parse_back),
#endif
	cmocka_unit_test(test_runtime_change_threads),
	cmocka_unit_test(test_levels_file_and_signal),
	cmocka_unit_test(test_levels_signal_keeps_app_handler),
};

int main(int argc, char **argv)
{
	dso_path = test_arg(argc, argv, "path of category_lib.so");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
