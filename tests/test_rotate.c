/*
 * test_rotate.c - the file sink and rotation from outside, and retention.
 *
 * External rotation: the real logrotate (create mode, postrotate sending
 * SIGUSR1 to this process, whose handler calls llog_file_reopen()) run
 * several times while 1,000,000 records are logged: read back with llogcat
 * (all the files at once, which orders them by their metadata), every
 * record is there exactly once and in order, and every file holds records
 * (the sink did move to each new file). A rename plus llog_file_reopen(),
 * and a rename noticed by reopen_check_ms (another file at path, or none),
 * each move the sink. copytruncate:
 * run while nothing is logged, nothing is lost (plain text, JSON, zstd);
 * run while logging, what is lost is only a contiguous run of records at
 * each copy's end (the window between logrotate's copy and its truncation;
 * we measure and print it), never a duplicate or a reordering, and every
 * record logged after the last run is there; after a truncation the size
 * rotation counts from the real size and a zstd file starts with metadata.
 *
 * Retention: rotated files of earlier runs (named with their time) count
 * at open and after rotation, by number, total bytes and age; a symbolic
 * link with a rotated name pointing outside the directory, and files not
 * named as rotated files, survive untouched.
 *
 * logrotate and llogcat missing: those cases are skipped with a message.
 * Every case works in its own mkdtemp directory and removes it.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <zstd.h>

#include "filetest.h"
#include "fileformat.h"
#include "llog.h"
#include "llog/sinks.h"
#include "sanitizer.h"
#include "testutil.h"

extern char **environ;

/* ---- helpers -------------------------------------------------------------- */

static void log_one(long i)
{
	LOG_INFO("tag=a i=%ld request %ld took %.3f ms from %s", i, i * 7,
		 (double)(i % 1000) / 7.0, i % 3 ? "10.0.0.1" : "192.168.1.17");
}

static void log_range(long first, long n)
{
	for (long i = first; i < first + n; i++)
		log_one(i);
}

/* The record numbers ("tag=a i=N") of the complete lines of text, in order,
 * appended to *v. Plain loops (the sanitizers' strstr is quadratic here). */
static void records_of(const char *text, long **v, size_t *n, size_t *cap)
{
	static const char pat[] = "tag=a i=";
	const size_t pl = sizeof(pat) - 1;

	for (const char *line = text; *line != '\0';) {
		const char *eol = line;

		while (*eol != '\0' && *eol != '\n')
			eol++;
		if (*eol != '\n')
			break; /* a torn last line */
		for (const char *p = line; p + pl <= eol; p++) {
			long i = 0;
			const char *q = p + pl;

			if (*p != 't' || memcmp(p, pat, pl) != 0)
				continue;
			while (q < eol && *q >= '0' && *q <= '9')
				i = i * 10 + (*q++ - '0');
			if (*n == *cap) {
				*cap = *cap ? *cap * 2 : 1024;
				*v = realloc(*v, *cap * sizeof(**v));
				assert_non_null(*v);
			}
			(*v)[(*n)++] = i;
			break;
		}
		line = eol + 1;
	}
}

/* The name of the file k runs back: path itself (k 0), then path.1, path.2... */
static void rotated_name(char *f, size_t cap, const char *path, int k)
{
	if (k == 0)
		snprintf(f, cap, "%s", path);
	else
		snprintf(f, cap, "%s.%d", path, k);
}

static int exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

static const char *logrotate_bin(void)
{
	static const char *const where[] = {"/usr/sbin/logrotate", "/sbin/logrotate",
					    "/usr/bin/logrotate"};

	for (size_t i = 0; i < sizeof(where) / sizeof(where[0]); i++)
		if (access(where[i], X_OK) == 0)
			return where[i];
	return NULL;
}

/* Starts logrotate -s dir/state -f dir/rot.conf; returns its pid. */
static pid_t logrotate_spawn(const struct tdir *t)
{
	char state[128], conf[128];
	char *argv[] = {(char *)logrotate_bin(), "-s", state, "-f", conf, NULL};
	pid_t pid;

	snprintf(state, sizeof(state), "%s/state", t->dir);
	snprintf(conf, sizeof(conf), "%s/rot.conf", t->dir);
	assert_int_equal(posix_spawn(&pid, argv[0], NULL, NULL, argv, environ), 0);
	return pid;
}

static void logrotate_wait(pid_t pid)
{
	int st;

	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

/* Writes dir/rot.conf for path with the given directives. */
static void write_conf(const struct tdir *t, const char *directives)
{
	char conf[128];
	FILE *f;

	snprintf(conf, sizeof(conf), "%s/rot.conf", t->dir);
	assert_non_null(f = fopen(conf, "w"));
	fprintf(f, "%s {\n    rotate 100\n    missingok\n    notifempty\n    nocompress\n%s}\n",
		t->path, directives);
	assert_int_equal(fclose(f), 0);
}

#define NEED_LOGROTATE()                                                                  \
	do {                                                                              \
		if (logrotate_bin() == NULL) {                                            \
			print_message("logrotate not installed (bash scripts/deps.sh test): " \
				      "skipped\n");                                       \
			skip();                                                           \
		}                                                                         \
	} while (0)

#define NEED_LLOGCAT()                                                              \
	do {                                                                        \
		if (getenv("LLOGCAT") == NULL) {                                    \
			print_message("LLOGCAT not set (llogcat not built): skipped\n"); \
			skip();                                                     \
		}                                                                   \
	} while (0)

/* ---- logrotate, create mode ---------------------------------------------------- */

static atomic_int usr1_seen;

static void on_usr1(int sig)
{
	(void)sig;
	llog_file_reopen();
	/* Release: pairs with wait_usr1's acquire, so that the reopen request
	 * happens before what the test logs next. */
	atomic_fetch_add_explicit(&usr1_seen, 1, memory_order_release);
}

/* Waits until the handler ran `want` times (logrotate's kill returned
 * before logrotate exited; delivery to a thread of ours may come later). */
static void wait_usr1(int want)
{
	struct timespec ms = {0, 1000000};

	/* Acquire: pairs with the handler's release increment. */
	for (int i = 0; i < 10000 && atomic_load_explicit(&usr1_seen, memory_order_acquire) < want;
	     i++)
		nanosleep(&ms, NULL);
	assert_int_equal(atomic_load_explicit(&usr1_seen, memory_order_acquire), want);
}

#ifdef TEST_SANITIZER
/* Fewer records between the rotations under a sanitizer (each is several
 * times dearer); the rotations, and what each must keep, are the same. */
#define CREATE_RECORDS 100000L
#else
#define CREATE_RECORDS 1000000L
#endif
#define CREATE_RUNS 5

static void test_logrotate_create(void **state)
{
	struct sigaction sa = {.sa_handler = on_usr1, .sa_flags = SA_RESTART}, old;
	struct llog_file_options o = {0};
	char directives[256], cmd[4096], one[256];
	long *v = NULL, step = CREATE_RECORDS / (CREATE_RUNS + 1);
	size_t n = 0, cap = 0;
	struct tdir t;
	pid_t pid = 0;
	int runs = 0;

	(void)state;
	NEED_LOGROTATE();
	NEED_LLOGCAT();
	tdir_make(&t, "app.log.zst");
	snprintf(directives, sizeof(directives),
		 "    create 0640\n    postrotate\n        kill -USR1 %ld\n    endscript\n",
		 (long)getpid());
	write_conf(&t, directives);
	atomic_store_explicit(&usr1_seen, 0, memory_order_relaxed);
	sigemptyset(&sa.sa_mask);
	assert_int_equal(sigaction(SIGUSR1, &sa, &old), 0);
	o.path = t.path;
	assert_int_equal(start_file_sink(&o), 0);
	/* logrotate runs while the records go on being logged. Half a step
	 * after a run started it has ended and its signal was handled; the
	 * records logged from then on go to the new file (llog_file_reopen's
	 * ordering), and the flush before the next run puts them there, so
	 * that notifempty does not skip that run. */
	for (long i = 0; i < CREATE_RECORDS; i++) {
		log_one(i);
		if ((i + 1) % step == 0 && runs < CREATE_RUNS) {
			llog_flush();
			pid = logrotate_spawn(&t);
			runs++;
		} else if (pid != 0 && (i + 1) % step == step / 2) {
			logrotate_wait(pid);
			wait_usr1(runs);
			pid = 0;
		}
	}
	assert_int_equal(pid, 0);
	assert_int_equal(runs, CREATE_RUNS);
	llog_shutdown();
	assert_int_equal(sigaction(SIGUSR1, &old, NULL), 0);

	/* Every file holds records (the sink moved to each new one), and all
	 * of them together, given to llogcat newest name first, hold every
	 * record exactly once in order. */
	int len = snprintf(cmd, sizeof(cmd), "'%s'", getenv("LLOGCAT"));
	for (int k = 0; k <= runs; k++) {
		char f[200];
		size_t fn = 0, fcap = 0;
		long *fv = NULL;
		char *out;

		rotated_name(f, sizeof(f), t.path, k);
		snprintf(one, sizeof(one), "'%s' '%s'", getenv("LLOGCAT"), f);
		out = run_output(one, NULL);
		records_of(out, &fv, &fn, &fcap);
		print_message("%s: %zu records\n", f, fn);
		assert_true(fn > 0);
		free(out);
		free(fv);
		len += snprintf(cmd + len, sizeof(cmd) - (size_t)len, " '%s'", f);
	}
	rotated_name(one, sizeof(one), t.path, runs + 1);
	assert_false(exists(one));
	char *all = run_output(cmd, NULL);

	records_of(all, &v, &n, &cap);
	free(all);
	assert_int_equal(n, CREATE_RECORDS);
	for (size_t i = 0; i < n; i++)
		if (v[i] != (long)i)
			fail_msg("record %zu is i=%ld", i, v[i]);
	free(v);
	tdir_remove(&t);
}

/* ---- reopen by request and by path check ------------------------------------ */

/* The zstd file at path starts with a metadata frame (its magic number). */
static void expect_meta_frame(const char *path)
{
	unsigned char magic[4];
	int fd = open(path, O_RDONLY);

	assert_int_equal(read(fd, magic, 4), 4);
	close(fd);
	assert_int_equal((uint32_t)magic[0] | (uint32_t)magic[1] << 8 |
				 (uint32_t)magic[2] << 16 | (uint32_t)magic[3] << 24,
			 LLOG_META_MAGIC);
}

/* Records first..first+n-1, exactly, in the file at path (plain). */
static void expect_records(const char *path, long first, long n)
{
	size_t len, k = 0, cap = 0;
	char *text = slurp(path, &len);
	long *v = NULL;

	records_of(text, &v, &k, &cap);
	assert_int_equal(k, n);
	for (size_t i = 0; i < k; i++)
		assert_int_equal(v[i], first + (long)i);
	free(v);
	free(text);
}

/* The sink moves to a new file at path after a rename and a
 * llog_file_reopen() (check_ms 0), or, with reopen_check_ms, after a rename
 * that leaves no file at path (create 0) or another one (create 1). */
static void reopen_case(unsigned check_ms, int create)
{
	struct llog_file_options o = {.compression = LLOG_FILE_PLAIN, .reopen_check_ms = check_ms};
	char moved[200];
	struct tdir t;

	tdir_make(&t, "app.log");
	snprintf(moved, sizeof(moved), "%s.old", t.path);
	o.path = t.path;
	assert_int_equal(start_file_sink(&o), 0);
	log_range(0, 100);
	llog_flush();
	assert_int_equal(rename(t.path, moved), 0);
	if (create) {
		int fd = open(t.path, O_WRONLY | O_CREAT | O_EXCL, 0640);

		assert_true(fd >= 0);
		close(fd);
	}
	if (check_ms == 0) {
		llog_file_reopen();
	} else {
		/* The check runs at most every check_ms: let that pass. */
		struct timespec ts = {0, (long)(check_ms + 1) * 1000000};

		nanosleep(&ts, NULL);
	}
	log_range(100, 100);
	llog_shutdown();
	expect_records(moved, 0, 100);
	expect_records(t.path, 100, 100);
	tdir_remove(&t);
}

/* The cases of reopen_case. */
struct reopen_params {
	unsigned check_ms;
	int create;
};

static const struct reopen_params reopen_request = {0, 0}, reopen_path_check = {5, 1},
				  reopen_path_vanished = {5, 0};

static void test_reopen(void **state)
{
	const struct reopen_params *p = *state;

	reopen_case(p->check_ms, p->create);
}

/* ---- copytruncate ---------------------------------------------------------------- */

/* logrotate copytruncate while nothing is logged: nothing is lost. */
static void copytruncate_idle(enum llog_file_compression comp, enum llog_format format)
{
	struct llog_file_options o = {.compression = comp, .format = format};
	struct tdir t;
	char copy[200], cmd[512];
	long *v = NULL;
	size_t n = 0, cap = 0, len;
	char *text;

	NEED_LOGROTATE();
	if (comp != LLOG_FILE_PLAIN)
		NEED_LLOGCAT();
	tdir_make(&t, comp == LLOG_FILE_PLAIN ? "app.log" : "app.log.zst");
	write_conf(&t, "    copytruncate\n");
	rotated_name(copy, sizeof(copy), t.path, 1);
	o.path = t.path;
	assert_int_equal(start_file_sink(&o), 0);
	log_range(0, 20000);
	llog_flush();
	logrotate_wait(logrotate_spawn(&t));
	log_range(20000, 20000);
	llog_shutdown();
	if (comp == LLOG_FILE_PLAIN) {
		text = slurp(copy, &len);
		records_of(text, &v, &n, &cap);
		free(text);
		text = slurp(t.path, &len);
	} else {
		/* The truncated file began again with a metadata frame. */
		expect_meta_frame(t.path);
		snprintf(cmd, sizeof(cmd), "'%s' '%s' '%s'", getenv("LLOGCAT"), t.path, copy);
		text = run_output(cmd, NULL);
	}
	records_of(text, &v, &n, &cap);
	free(text);
	assert_int_equal(n, 40000);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(v[i], (long)i);
	free(v);
	tdir_remove(&t);
}

/* The cases of copytruncate_idle. */
struct idle_params {
	enum llog_file_compression comp;
	enum llog_format format;
};

static const struct idle_params idle_text = {LLOG_FILE_PLAIN, LLOG_FORMAT_TEXT},
				idle_json = {LLOG_FILE_PLAIN, LLOG_FORMAT_JSON},
				idle_zstd = {LLOG_FILE_ZSTD, LLOG_FORMAT_TEXT};

static void test_copytruncate_idle(void **state)
{
	const struct idle_params *p = *state;

	copytruncate_idle(p->comp, p->format);
}

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The content of a zstd log file's complete frames, in order, up to the
 * first frame that is not complete; *torn = the bytes after it, which must
 * be the start of a frame (a prefix of the file cut inside its last
 * frame). */
static char *decode_frames(const char *path, size_t *torn)
{
	size_t n, off = 0, len = 0;
	unsigned char *p = (unsigned char *)slurp(path, &n);
	char *text = malloc(1);

	assert_non_null(text);
	while (off < n) {
		uint32_t magic = n - off >= 8 ? le32(p + off) : 0;
		size_t fsz;

		if ((magic & 0xFFFFFFF0u) == 0x184D2A50u) {
			fsz = 8 + (size_t)le32(p + off + 4);
			if (off + fsz > n)
				break;
		} else {
			unsigned long long csz;

			fsz = ZSTD_findFrameCompressedSize(p + off, n - off);
			csz = ZSTD_getFrameContentSize(p + off, n - off);
			if (ZSTD_isError(fsz) || csz == ZSTD_CONTENTSIZE_ERROR ||
			    csz == ZSTD_CONTENTSIZE_UNKNOWN)
				break;
			text = realloc(text, len + csz + 1);
			assert_non_null(text);
			assert_int_equal(ZSTD_decompress(text + len, csz, p + off, fsz), csz);
			len += csz;
		}
		off += fsz;
	}
	text[len] = '\0';
	*torn = n - off;
	if (n - off >= 4) {
		uint32_t magic = le32(p + off);

		assert_true(magic == LLOG_ZSTD_MAGIC || (magic & 0xFFFFFFF0u) == 0x184D2A50u);
	}
	free(p);
	return text;
}

#ifdef TEST_TSAN
#define CT_RECORDS 100000L /* as CREATE_RECORDS */
#else
#define CT_RECORDS 300000L
#endif
#define CT_RUNS 4

/*
 * copytruncate while logging. Each file (copies oldest first, then the
 * current one) holds a contiguous run of records: nothing is duplicated or
 * reordered, and records are missing only between one file's last complete
 * line (frame) and the next file's first (copytruncate's window, and a
 * copy's torn last line or frame); every record logged after the last
 * logrotate returned is there. zstd: each file is complete frames, a copy
 * possibly followed by a torn one, the current (truncated) file never.
 */
static void copytruncate_busy(enum llog_file_compression comp)
{
	struct llog_file_options o = {.compression = comp};
	long step = CT_RECORDS / (CT_RUNS + 1), after_last = 0, lost = 0;
	int runs = 0, torn_copies = 0;
	struct tdir t;
	pid_t pid = 0;

	NEED_LOGROTATE();
	tdir_make(&t, comp == LLOG_FILE_PLAIN ? "app.log" : "app.log.zst");
	/* ifempty: a run may find the file just truncated and empty (every
	 * record so far committed before the last truncation); it copies it
	 * all the same, so the copies are .1 .. .runs. */
	write_conf(&t, "    copytruncate\n    ifempty\n");
	o.path = t.path;
	assert_int_equal(start_file_sink(&o), 0);
	for (long i = 0; i < CT_RECORDS; i++) {
		log_one(i);
		if ((i + 1) % step == 0 && runs < CT_RUNS) {
			if (pid != 0)
				logrotate_wait(pid);
			pid = logrotate_spawn(&t);
			runs++;
		}
	}
	logrotate_wait(pid);
	/* The last run is over: what is logged from here on must all be
	 * there. */
	after_last = CT_RECORDS;
	log_range(CT_RECORDS, 1000);
	llog_shutdown();

	int copies = runs;
	char f1[200];

	rotated_name(f1, sizeof(f1), t.path, runs + 1);
	assert_false(exists(f1));
	long next = 0;
	for (int k = copies; k >= 0; k--) {
		char f[200];
		size_t n = 0, cap = 0, len;
		long *v = NULL;
		char *text;

		rotated_name(f, sizeof(f), t.path, k);
		if (comp == LLOG_FILE_PLAIN) {
			text = slurp(f, &len);
			if (k == 0) /* the truncated file: whole lines only */
				assert_true(len == 0 || text[len - 1] == '\n');
			torn_copies += len > 0 && text[len - 1] != '\n';
		} else {
			text = decode_frames(f, &len);
			if (k == 0)
				assert_int_equal(len, 0);
			torn_copies += len > 0;
		}
		records_of(text, &v, &n, &cap);
		free(text);
		if (k == 0) /* everything logged after the last run is here */
			assert_true(n > 0 && v[0] <= after_last);
		if (n > 0) {
			assert_true(v[0] >= next); /* no duplicate across files */
			lost += v[0] - next;
			for (size_t i = 1; i < n; i++)
				if (v[i] != v[i - 1] + 1)
					fail_msg("%s: i=%ld after i=%ld", f, v[i], v[i - 1]);
			next = v[n - 1] + 1;
		}
		free(v);
	}
	assert_int_equal(next, after_last + 1000);
	print_message("%s: copytruncate x%d while logging %ld records: %ld lost in its "
		      "windows; %d copies end in a torn %s\n",
		      comp == LLOG_FILE_PLAIN ? "text" : "zstd", copies, CT_RECORDS + 1000, lost,
		      torn_copies, comp == LLOG_FILE_PLAIN ? "line" : "frame");
	tdir_remove(&t);
}

/* *state: the compression */
static void test_copytruncate_busy(void **state)
{
	copytruncate_busy((enum llog_file_compression)(uintptr_t)*state);
}

/* The number of entries in dir, "." and ".." not counted. */
static int entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	assert_non_null(d);
	while ((de = readdir(d)) != NULL)
		n += strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0;
	closedir(d);
	return n;
}

/* Logs records *i, *i + 1, ... in runs of 100, each run flushed, until the
 * file at path has at least size bytes. */
static void log_until_size(const char *path, long *i, off_t size)
{
	struct stat st;

	do {
		log_range(*i, 100);
		*i += 100;
		llog_flush();
		assert_int_equal(stat(path, &st), 0);
	} while (st.st_size < size);
}

/*
 * A truncation under the sink (copytruncate's, done here with truncate(2)):
 * the size rotation counts from the real size, so two halves of max_bytes
 * around it rotate nothing; a zstd file starts again with metadata.
 */
static void truncated_case(enum llog_file_compression comp)
{
	struct llog_file_options o = {.compression = comp, .max_bytes = 200000};
	struct tdir t;
	long i = 0;

	tdir_make(&t, comp == LLOG_FILE_PLAIN ? "app.log" : "app.log.zst");
	o.path = t.path;
	assert_int_equal(start_file_sink(&o), 0);
	log_until_size(t.path, &i, 120000);
	assert_int_equal(truncate(t.path, 0), 0);
	long first = i;
	log_until_size(t.path, &i, 120000);
	llog_shutdown();
	assert_int_equal(entries(t.dir), 1); /* no rotation */
	if (comp == LLOG_FILE_PLAIN) {
		expect_records(t.path, first, i - first);
	} else {
		expect_meta_frame(t.path);
	}
	tdir_remove(&t);
}

/* *state: the compression */
static void test_truncated_size(void **state)
{
	truncated_case((enum llog_file_compression)(uintptr_t)*state);
}

/* ---- retention ------------------------------------------------------------------- */

/* dir/app.log.<stamp of now - age_s, nsec>Z with `bytes` bytes. */
static void plant(const struct tdir *t, long age_s, long nsec, size_t bytes, char *name,
		  size_t cap)
{
	time_t when = time(NULL) - age_s;
	struct tm tm;
	char *buf = calloc(1, bytes + 1);
	int fd;

	gmtime_r(&when, &tm);
	snprintf(name, cap, "%s/app.log.%04d%02d%02dT%02d%02d%02d.%09ldZ", t->dir,
		 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
		 nsec);
	assert_true((fd = open(name, O_WRONLY | O_CREAT | O_EXCL, 0640)) >= 0);
	assert_int_equal(write(fd, buf, bytes), (ssize_t)bytes);
	close(fd);
	free(buf);
}

struct planted {
	char old[5][200];        /* earlier runs' files, oldest first */
	char link[200];          /* a link with the oldest rotated name */
	char outside_dir[64];    /* where it points */
	char outside[200];
	char other[3][200];      /* names that are not rotated names */
};

#define OUTSIDE_BYTES (1u << 20)

/*
 * Five files of earlier runs, 1000 bytes each, rotated 10, 8, 6, 4 and 2
 * days ago; the oldest name of all is a symbolic link to a 1 MiB file in
 * another directory (counted, it would pass any byte limit); three files
 * whose names are not rotated names.
 */
static void plant_all(const struct tdir *t, struct planted *p)
{
	static const char *const others[] = {"app.log.1", "app.log.20200101T000000.000000000Z.bak",
					     "other.20200101T000000.000000000Z"};
	char *big = calloc(1, OUTSIDE_BYTES);
	int fd;

	for (int i = 0; i < 5; i++)
		plant(t, (10 - 2 * i) * 86400L, 0, 1000, p->old[i], sizeof(p->old[i]));
	strcpy(p->outside_dir, "/tmp/llog_rot_out_XXXXXX");
	assert_non_null(mkdtemp(p->outside_dir));
	snprintf(p->outside, sizeof(p->outside), "%s/precious", p->outside_dir);
	assert_true((fd = open(p->outside, O_WRONLY | O_CREAT, 0640)) >= 0);
	assert_int_equal(write(fd, big, OUTSIDE_BYTES), (ssize_t)OUTSIDE_BYTES);
	close(fd);
	free(big);
	snprintf(p->link, sizeof(p->link), "%s/app.log.20000101T000000.000000000Z", t->dir);
	assert_int_equal(symlink(p->outside, p->link), 0);
	for (int i = 0; i < 3; i++) {
		snprintf(p->other[i], sizeof(p->other[i]), "%s/%s", t->dir, others[i]);
		assert_true((fd = open(p->other[i], O_WRONLY | O_CREAT, 0640)) >= 0);
		close(fd);
	}
}

/* The link, its target (whole) and the other names are untouched; of the
 * planted rotated files exactly the newest `kept` remain. */
static void check_planted(struct planted *p, int kept)
{
	struct stat st;

	assert_int_equal(lstat(p->link, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_int_equal(stat(p->outside, &st), 0);
	assert_int_equal(st.st_size, OUTSIDE_BYTES);
	for (int i = 0; i < 3; i++)
		assert_true(exists(p->other[i]));
	for (int i = 0; i < 5; i++)
		if (exists(p->old[i]) != (i >= 5 - kept))
			fail_msg("%s %s", p->old[i], exists(p->old[i]) ? "kept" : "deleted");
}

static void planted_remove(struct planted *p)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", p->outside_dir);
	assert_int_equal(system(cmd), 0);
}

/* Rotates exactly once: max_bytes is 1 and the file is new, so the first
 * frame (one record) goes into it and the second rotates it. */
static void force_rotation(long first)
{
	log_one(first);
	llog_flush();
	log_one(first + 1);
	llog_flush();
}

/* Opens with the limit in o over the planted files (the newest kept_open
 * of them remain), then plants two more files, older than all, and
 * rotates once: then the newest rot_left planted ones remain. */
static void retention_case(struct llog_file_options *o, int kept_open, int rot_left)
{
	struct planted p;
	struct tdir t;
	char late[2][200];

	tdir_make(&t, "app.log");
	plant_all(&t, &p);
	o->path = t.path;
	o->compression = LLOG_FILE_PLAIN;
	assert_int_equal(start_file_sink(o), 0);
	check_planted(&p, kept_open);
	/* Files that appear later (another process's) count at rotation. */
	plant(&t, 20 * 86400L, 0, 1000, late[0], sizeof(late[0]));
	plant(&t, 30 * 86400L, 0, 1000, late[1], sizeof(late[1]));
	force_rotation(0);
	llog_shutdown();
	assert_false(exists(late[0]));
	assert_false(exists(late[1]));
	check_planted(&p, rot_left);
	planted_remove(&p);
	tdir_remove(&t);
}

static void test_retention_count(void **state)
{
	/* 2 kept at open; after the rotation the new rotated file pushes
	 * out the older one. */
	struct llog_file_options o = {.max_files = 2, .max_bytes = 1};

	(void)state;
	retention_case(&o, 2, 1);
}

static void test_retention_bytes(void **state)
{
	/* 2500 bytes: two 1000-byte files at open; after the rotation the
	 * new file (one record, about 100 bytes) fits beside them. */
	struct llog_file_options o = {.max_total_bytes = 2500, .max_bytes = 1};

	(void)state;
	retention_case(&o, 2, 2);
}

static void test_retention_age(void **state)
{
	/* 5 days: the files of 4 and 2 days ago stay, also after rotation. */
	struct llog_file_options o = {.max_age_s = 5 * 86400, .max_bytes = 1};

	(void)state;
	retention_case(&o, 2, 2);
}

TEST_MAIN(
	TEST_CASE_ARG(test_reopen_request, test_reopen, &reopen_request),
	TEST_CASE_ARG(test_reopen_path_check, test_reopen, &reopen_path_check),
	TEST_CASE_ARG(test_reopen_path_vanished, test_reopen, &reopen_path_vanished),
	TEST_CASE_ARG(test_truncated_size_plain, test_truncated_size, LLOG_FILE_PLAIN),
	TEST_CASE_ARG(test_truncated_size_zstd, test_truncated_size, LLOG_FILE_ZSTD),
	TEST_CASE_ARG(test_copytruncate_idle_text, test_copytruncate_idle, &idle_text),
	TEST_CASE_ARG(test_copytruncate_idle_json, test_copytruncate_idle, &idle_json),
	TEST_CASE_ARG(test_copytruncate_idle_zstd, test_copytruncate_idle, &idle_zstd),
	TEST_CASE_ARG(test_copytruncate_busy_text, test_copytruncate_busy, LLOG_FILE_PLAIN),
	TEST_CASE_ARG(test_copytruncate_busy_zstd, test_copytruncate_busy, LLOG_FILE_ZSTD),
	cmocka_unit_test(test_logrotate_create),
	cmocka_unit_test(test_retention_count),
	cmocka_unit_test(test_retention_bytes),
	cmocka_unit_test(test_retention_age),
)
