/*
 * test_file.c - the file sink through the whole pipeline: every record
 * logged is read back exactly once and in order (by our own frame-by-frame
 * zstd decoder and by zstdcat) for plain text and zstd levels 1, 3 and 19;
 * the default level is 1 for text and -1 for binary files (each frame as
 * that level makes it); the metadata frame is there; a torn tail is repaired on open; rotation by
 * size (with and without retention) and by time loses and duplicates
 * nothing; a symlink, a directory, a FIFO and an impossible path are
 * refused with a clear message; a full disk (RLIMIT_FSIZE) is survived and
 * writing resumes, also when the room given back is less than one pending
 * frame (its lines go out in smaller frames, the rest is counted lost); two processes appending to one file keep both sets.
 * Every test works in its own mkdtemp directory and removes it.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
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

/* ---- helpers -------------------------------------------------------------- */

static struct llog_stats stats_now(void)
{
	struct llog_stats s;

	llog_get_stats(&s);
	return s;
}

/* Logs records tag/first .. tag/first+n-1, committing every `every`. */
/* What log_range's records end with ("" but while a test makes records
 * long, so that few of them fill a frame). */
static const char *log_pad = "";

static void log_range(char tag, long first, long n, long every)
{
	for (long i = first; i < first + n; i++) {
		LOG_INFO("tag=%c i=%ld request %ld took %.3f ms from %s%s", tag, i, i * 7,
			 (double)(i % 1000) / 7.0, i % 3 ? "10.0.0.1" : "192.168.1.17", log_pad);
		if (every > 0 && (i - first + 1) % every == 0)
			llog_flush();
	}
}

/* In a new directory: a file sink on dir/name made from *o, records 'a'
 * 0..n-1 logged with a commit every `every`, llog shut down. */
static void log_to_new_file(struct tdir *t, struct llog_file_options *o, const char *name,
			    long n, long every)
{
	tdir_make(t, name);
	o->path = t->path;
	assert_int_equal(start_file_sink(o), 0);
	log_range('a', 0, n, every);
	llog_shutdown();
}

struct decoded {
	char *text;
	size_t len, cap;
	int frames, metas;
	size_t max_frame; /* the largest frame's content, bytes */
	int damaged;     /* the file does not end in a complete frame */
	char meta[LLOG_META_MAX + 1]; /* payload of the first metadata frame */
};

static void append(struct decoded *d, const void *p, size_t n)
{
	if (d->len + n + 1 > d->cap) {
		d->cap = (d->len + n + 1) * 2;
		d->text = realloc(d->text, d->cap);
		assert_non_null(d->text);
	}
	memcpy(d->text + d->len, p, n);
	d->len += n;
	d->text[d->len] = '\0';
}

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Decodes a file frame by frame, appending its content to d (plain: the
 * bytes as they are). Stops at the first damaged frame. */
static void decode_file(const char *path, int plain, struct decoded *d)
{
	size_t n, off = 0;
	unsigned char *p = (unsigned char *)slurp(path, &n);

	if (plain) {
		append(d, p, n);
		free(p);
		return;
	}
	while (off < n) {
		uint32_t magic = n - off >= 8 ? le32(p + off) : 0;

		if ((magic & 0xFFFFFFF0u) == 0x184D2A50u) {
			size_t len = le32(p + off + 4);

			if (off + 8 + len > n)
				break;
			if (magic == LLOG_META_MAGIC && d->metas++ == 0 && len <= LLOG_META_MAX) {
				memcpy(d->meta, p + off + 8, len);
				d->meta[len] = '\0';
			}
			off += 8 + len;
			continue;
		}
		size_t fsz = ZSTD_findFrameCompressedSize(p + off, n - off);
		unsigned long long csz = ZSTD_getFrameContentSize(p + off, n - off);

		if (ZSTD_isError(fsz) || csz == ZSTD_CONTENTSIZE_ERROR)
			break;
		assert_true(csz != ZSTD_CONTENTSIZE_UNKNOWN); /* size in every header */
		assert_true(csz <= LLOG_FRAME_CONTENT_MAX);
		char *out = malloc(csz + 1);
		size_t r = ZSTD_decompress(out, csz + 1, p + off, fsz);

		if (ZSTD_isError(r)) {
			free(out);
			break;
		}
		assert_int_equal(r, csz);
		append(d, out, r);
		free(out);
		d->frames++;
		if (csz > d->max_frame)
			d->max_frame = (size_t)csz;
		off += fsz;
	}
	d->damaged = off < n;
	if (d->text == NULL)
		append(d, "", 0);
	free(p);
}

/* Checks that the records of tag in text are first, first+1, ... with each
 * exactly once and in order. Returns how many, or -1 on a gap, duplicate or
 * reordering. Scans with plain loops, line by line: the sanitizers'
 * strstr/memmem/sscanf interceptors check the whole rest of the text at
 * every call (quadratic on big files: minutes under TSan). */
static long check_tag(const char *text, char tag, long first)
{
	long next = first;
	char pat[16];
	size_t pl = (size_t)snprintf(pat, sizeof(pat), "tag=%c i=", tag);

	for (const char *line = text; *line != '\0';) {
		const char *eol = line;

		while (*eol != '\0' && *eol != '\n')
			eol++;
		for (const char *p = line; p + pl <= eol; p++) {
			long i = 0;
			const char *num = p + pl, *q = num;

			if (*p != 't' || memcmp(p, pat, pl) != 0)
				continue;
			while (q < eol && *q >= '0' && *q <= '9')
				i = i * 10 + (*q++ - '0');
			if (q == num || i != next)
				return -1;
			next++;
			break; /* one record a line */
		}
		line = *eol == '\n' ? eol + 1 : eol;
	}
	return next - first;
}
static int zstd_test_ok(const char *path)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "zstd -tq '%s' 2>/dev/null", path);
	return system(cmd) == 0;
}

static const char *meta_value(const char *meta, const char *key, char *out, size_t cap)
{
	char pat[64];
	const char *p;
	size_t k;

	snprintf(pat, sizeof(pat), "\n%s=", key);
	if ((p = strstr(meta, pat)) == NULL)
		return NULL;
	p += strlen(pat);
	k = strcspn(p, "\n");
	if (k >= cap)
		k = cap - 1;
	memcpy(out, p, k);
	out[k] = '\0';
	return out;
}

/* Rotated files (sorted oldest first) and then the current one, decoded. */
static int decode_set(const struct tdir *t, struct decoded *d)
{
	struct dirent **names;
	int n = scandir(t->dir, &names, NULL, alphasort), files = 0;
	char p[512];

	assert_true(n >= 0);
	for (int i = 0; i < n; i++) {
		if (names[i]->d_name[0] != '.' && strcmp(names[i]->d_name, "app.log.zst") != 0) {
			snprintf(p, sizeof(p), "%s/%s", t->dir, names[i]->d_name);
			decode_file(p, 0, d);
			assert_false(d->damaged);
			files++;
		}
		free(names[i]);
	}
	free(names);
	decode_file(t->path, 0, d);
	assert_false(d->damaged);
	return files + 1;
}

static int count_files(const char *dir)
{
	struct dirent **names;
	int n = scandir(dir, &names, NULL, alphasort), files = 0;

	for (int i = 0; i < n; i++) {
		files += names[i]->d_name[0] != '.';
		free(names[i]);
	}
	free(names);
	return files;
}

/* ---- round trip ------------------------------------------------------------ */

static void roundtrip(enum llog_file_compression comp, int level)
{
	struct tdir t;
	struct decoded d = {0};
	struct llog_file_options o = {.compression = comp, .zstd_level = level};
	char v[300], host[256] = "";
	size_t zlen;

	log_to_new_file(&t, &o, comp == LLOG_FILE_PLAIN ? "app.log" : "app.log.zst", 3000, 250);

	decode_file(t.path, comp == LLOG_FILE_PLAIN, &d);
	assert_false(d.damaged);
	assert_int_equal(check_tag(d.text, 'a', 0), 3000);
	if (getenv("LLOGCAT") != NULL) {
		/* llogcat prints exactly what the file holds */
		char cmd[600], *c;
		size_t clen;

		snprintf(cmd, sizeof(cmd), "'%s' '%s'", getenv("LLOGCAT"), t.path);
		c = run_output(cmd, &clen);
		assert_int_equal(clen, d.len);
		assert_memory_equal(c, d.text, clen);
		free(c);
	}
	if (comp == LLOG_FILE_ZSTD) {
		char cmd[256], *z;

		assert_true(d.frames >= 12); /* one per commit */
		assert_int_equal(d.metas, 1);
		gethostname(host, sizeof(host) - 1);
		assert_string_equal(meta_value(d.meta, "host", v, sizeof(v)), host);
		assert_int_equal(atol(meta_value(d.meta, "pid", v, sizeof(v))), getpid());
		assert_true(atoll(meta_value(d.meta, "seq_first", v, sizeof(v))) > 0);
		assert_string_equal(meta_value(d.meta, "format", v, sizeof(v)), "text");
		assert_non_null(meta_value(d.meta, "program", v, sizeof(v)));
		assert_int_equal(strncmp(d.meta, LLOG_META_HEADER, strlen(LLOG_META_HEADER)), 0);
		snprintf(cmd, sizeof(cmd), "zstdcat -q '%s'", t.path);
		z = run_output(cmd, &zlen);
		assert_int_equal(zlen, d.len);
		assert_memory_equal(z, d.text, zlen);
		free(z);
		assert_true(zstd_test_ok(t.path));
	}
	free(d.text);
	tdir_remove(&t);
}

static void test_roundtrip_plain(void **state)
{
	(void)state;
	roundtrip(LLOG_FILE_PLAIN, 0);
}

static void test_roundtrip_zstd(void **state)
{
	(void)state;
	roundtrip(LLOG_FILE_ZSTD, 1);
	roundtrip(LLOG_FILE_ZSTD, 0); /* default, 3 */
	roundtrip(LLOG_FILE_ZSTD, 19);
}

/* Frames of every size the sink makes, in an order that would make a
 * dynamic zstd context resize (smaller, larger, many small after a large
 * one), at fast, default-ish and high levels: the sink's static context is
 * sized at creation for all of them, so every record arrives compressed
 * (a frame that failed to compress would stay pending and be lost at
 * close). One batch is more than LLOG_FRAME_CONTENT_MAX (4 MiB) of lines:
 * a full frame and a remainder (of 5,000 records of about 1 KiB: the
 * frame's size is what counts, not its records' number). */
static void test_levels_frame_sizes(void **state)
{
	static const int levels[] = {-5, 1, 3, 19};
	static char pad[1001];

	memset(pad, 'x', sizeof(pad) - 1);

	(void)state;
	for (size_t k = 0; k < sizeof(levels) / sizeof(levels[0]); k++) {
		/* Long period, large arena: a batch is what was logged between
		 * two llog_flush() calls. */
		struct llog_config cfg = {.flush_interval_ms = 60000, .arena_bytes = 64u << 20};
		struct llog_file_options o = {.zstd_level = levels[k]};
		struct llog_sink *s;
		struct decoded d = {0};
		struct tdir t;
		long n = 0;

		tdir_make(&t, "app.log.zst");
		o.path = t.path;
		s = llog_file_sink(&o);
		assert_non_null(s);
		assert_int_equal(llog_add_sink(s), 0);
		assert_int_equal(llog_init(&cfg), 0);
		log_range('a', n, 1, 1); /* one record */
		n += 1;
		log_range('a', n, 400, 400); /* larger */
		n += 400;
		log_range('a', n, 200, 1); /* 200 commits of one record */
		n += 200;
		log_pad = pad;
		log_range('a', n, 5000, 5000); /* > 4 MiB: a full frame */
		log_pad = "";
		n += 5000;
		log_range('a', n, 300, 1); /* many small after the largest */
		n += 300;
		log_range('a', n, 3000, 3000);
		n += 3000;
		llog_shutdown();

		decode_file(t.path, 0, &d);
		assert_false(d.damaged);
		assert_int_equal(check_tag(d.text, 'a', 0), n);
		assert_true(d.frames >= 503);
		/* the large batch made a frame of the most content (but for the
		 * part of a line that did not fit) */
		assert_true(d.max_frame > LLOG_FRAME_CONTENT_MAX - 8192);
		assert_true(zstd_test_ok(t.path));
		free(d.text);
		tdir_remove(&t);
	}
}

/* ---- the default levels ----------------------------------------------------- */

/* How many of the file's zstd frames are, byte for byte, what the sink's
 * compression at `level` (checksum and content size on, as setup_zstd)
 * makes of their content; *frames: how many there are. */
static int frames_at_level(const char *path, int level, int *frames)
{
	size_t n, off = 0;
	unsigned char *p = (unsigned char *)slurp(path, &n);
	ZSTD_CCtx *cc = ZSTD_createCCtx();
	int same = 0;

	assert_non_null(cc);
	assert_false(ZSTD_isError(ZSTD_CCtx_setParameter(cc, ZSTD_c_compressionLevel, level)));
	assert_false(ZSTD_isError(ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, 1)));
	assert_false(ZSTD_isError(ZSTD_CCtx_setParameter(cc, ZSTD_c_contentSizeFlag, 1)));
	*frames = 0;
	while (off + 8 <= n) {
		uint32_t magic = le32(p + off);

		if ((magic & 0xFFFFFFF0u) == 0x184D2A50u) { /* skippable: metadata, sites */
			off += 8 + le32(p + off + 4);
			continue;
		}
		size_t fsz = ZSTD_findFrameCompressedSize(p + off, n - off);
		unsigned long long csz = ZSTD_getFrameContentSize(p + off, n - off);

		assert_false(ZSTD_isError(fsz));
		assert_true(csz <= LLOG_FRAME_CONTENT_MAX);
		char *content = malloc(csz + 1), *again = malloc(ZSTD_compressBound(csz));

		assert_int_equal(ZSTD_decompress(content, csz + 1, p + off, fsz), csz);
		size_t z = ZSTD_compress2(cc, again, ZSTD_compressBound(csz), content, csz);

		assert_false(ZSTD_isError(z));
		same += z == fsz && memcmp(again, p + off, fsz) == 0;
		++*frames;
		free(content);
		free(again);
		off += fsz;
	}
	ZSTD_freeCCtx(cc);
	free(p);
	return same;
}

/* zstd_level 0 is level 1 for a text file and -1 for a binary one: each
 * frame is what that level makes of its content, and not what the other
 * level makes (the content tells them apart). */
static void test_default_levels(void **state)
{
	static const struct {
		enum llog_file_compression comp;
		int want, other;
	} c[] = {{LLOG_FILE_ZSTD, 1, -1}, {LLOG_FILE_BINARY, -1, 1}};

	(void)state;
	for (size_t k = 0; k < sizeof(c) / sizeof(c[0]); k++) {
		struct llog_file_options o = {.compression = c[k].comp};
		struct tdir t;
		int frames, same;

		log_to_new_file(&t, &o, "app.log", 3000, 1000);
		same = frames_at_level(t.path, c[k].want, &frames);
		assert_true(frames >= 3);
		assert_int_equal(same, frames);
		assert_int_equal(frames_at_level(t.path, c[k].other, &frames), 0);
		tdir_remove(&t);
	}
}

/* ---- torn tail -------------------------------------------------------------- */

/* Damages a good file (*state, cut = 1: inside its last frame; 0: garbage
 * after it), reopens it, logs more: repaired once, every earlier complete
 * frame and every new record present, zstd -t accepts it. */
static void test_torn_tail(void **state)
{
	int cut = (int)(uintptr_t)*state;
	struct tdir t;
	struct decoded before = {0}, after = {0};
	struct llog_file_options o = {0};
	struct llog_stats s0;
	struct stat st;
	long kept;

	log_to_new_file(&t, &o, "app.log.zst", 1000, 100);

	assert_int_equal(stat(t.path, &st), 0);
	if (cut) {
		assert_int_equal(truncate(t.path, st.st_size - 7), 0);
	} else {
		FILE *f = fopen(t.path, "ab");

		fputs("garbage after the last frame\n", f);
		fclose(f);
	}
	decode_file(t.path, 0, &before);
	assert_true(before.damaged);
	kept = check_tag(before.text, 'a', 0);
	if (cut)
		assert_true(kept >= 0 && kept < 1000); /* the last frame is gone */
	else
		assert_int_equal(kept, 1000);

	s0 = stats_now();
	assert_int_equal(start_file_sink(&o), 0);
	log_range('b', 0, 200, 50);
	llog_shutdown();
	assert_int_equal(stats_now().repaired, s0.repaired + 1);

	decode_file(t.path, 0, &after);
	assert_false(after.damaged);
	assert_int_equal(check_tag(after.text, 'a', 0), kept);
	assert_int_equal(check_tag(after.text, 'b', 0), 200);
	assert_true(zstd_test_ok(t.path));
	free(before.text);
	free(after.text);
	tdir_remove(&t);
}

/* ---- rotation ---------------------------------------------------------------- */

static void log_range_rounds(char tag, long first, long n, long every, uint64_t written_before);

/* Rotation by size, committed every 50 records by llog_flush (state 0) or
 * by the flusher's ordinary rounds (1: the writer rotates). */
static void test_rotation_size_keep_all(void **state)
{
	struct tdir t;
	struct decoded d = {0};
	struct llog_file_options o = {.zstd_level = 1, .max_bytes = 4096};
	int files;

	if ((uintptr_t)*state == 0) {
		log_to_new_file(&t, &o, "app.log.zst", 3000, 50);
	} else {
		tdir_make(&t, "app.log.zst");
		o.path = t.path;
		assert_int_equal(start_file_sink(&o), 0);
		for (long i = 0; i < 3000; i += 50) {
			struct llog_stats st;

			llog_get_stats(&st);
			log_range_rounds('a', i, 50, 0, st.written);
		}
		llog_shutdown();
	}
	files = decode_set(&t, &d);
	assert_true(files >= 4);
	assert_int_equal(d.metas, files); /* one per file */
	assert_int_equal(check_tag(d.text, 'a', 0), 3000);
	free(d.text);
	tdir_remove(&t);
}

static void test_rotation_size_retention(void **state)
{
	struct tdir t;
	struct decoded d = {0};
	struct llog_file_options o = {.zstd_level = 1, .max_bytes = 4096, .max_files = 2};
	long first;
	const char *p;

	(void)state;
	log_to_new_file(&t, &o, "app.log.zst", 3000, 50);
	assert_int_equal(count_files(t.dir), 3);
	assert_int_equal(decode_set(&t, &d), 3);
	/* The retained files hold a contiguous run ending at the last record. */
	assert_non_null(p = strstr(d.text, "tag=a i="));
	first = atol(p + strlen("tag=a i="));
	assert_true(first > 0);
	assert_int_equal(check_tag(d.text, 'a', first), 3000 - first);
	free(d.text);
	tdir_remove(&t);
}

static void test_rotation_time(void **state)
{
	struct tdir t;
	struct decoded d = {0};
	struct llog_file_options o = {.rotate_interval_s = 1};
	struct timespec pause = {0, 20 * 1000 * 1000};
	time_t deadline = time(NULL) + 5;
	long n = 0;

	(void)state;
	tdir_make(&t, "app.log.zst");
	o.path = t.path;
	assert_int_equal(start_file_sink(&o), 0);
	while (count_files(t.dir) < 2 && time(NULL) < deadline) {
		log_range('a', n, 5, 5);
		n += 5;
		nanosleep(&pause, NULL);
	}
	log_range('a', n, 5, 5);
	n += 5;
	llog_shutdown();
	assert_true(count_files(t.dir) >= 2);
	decode_set(&t, &d);
	assert_int_equal(check_tag(d.text, 'a', 0), n);
	free(d.text);
	tdir_remove(&t);
}

/* ---- refused paths -------------------------------------------------------------- */

static void expect_refused(const char *path, int err)
{
	struct llog_file_options o = {.path = path};

	errno = 0;
	assert_null(llog_file_sink(&o));
	assert_int_equal(errno, err);
	assert_non_null(strstr(llog_file_sink_error(), path));
	assert_non_null(strstr(llog_file_sink_error(), strerror(err)));
}

static void test_refused_paths(void **state)
{
	struct tdir t;
	char p[256];
	struct llog_file_options o = {0};

	(void)state;
	tdir_make(&t, "target.log.zst");
	snprintf(p, sizeof(p), "%s/link.log.zst", t.dir);
	assert_int_equal(symlink(t.path, p), 0);
	expect_refused(p, ELOOP);
	assert_int_equal(access(t.path, F_OK), -1); /* nothing created behind it */

	expect_refused(t.dir, EISDIR);

	snprintf(p, sizeof(p), "%s/fifo", t.dir);
	assert_int_equal(mkfifo(p, 0600), 0);
	expect_refused(p, ENXIO); /* no reader: O_NONBLOCK open fails, no hang */

	/* Unwritable directory: root ignores mode bits, so use a parent that is a
	 * regular file there. */
	if (geteuid() == 0) {
		FILE *f = fopen(t.path, "w");

		fclose(f);
		snprintf(p, sizeof(p), "%s/x.log.zst", t.path);
		expect_refused(p, ENOTDIR);
	} else {
		snprintf(p, sizeof(p), "%s/ro", t.dir);
		assert_int_equal(mkdir(p, 0500), 0);
		strcat(p, "/x.log.zst");
		expect_refused(p, EACCES);
	}

	o.path = "";
	assert_null(llog_file_sink(&o));
	assert_int_equal(errno, EINVAL);
	assert_null(llog_file_sink(NULL));
	o.path = t.path;
	o.writer = (enum llog_file_writer)(LLOG_FILE_WRITER_FLUSHER + 1);
	assert_null(llog_file_sink(&o));
	assert_int_equal(errno, EINVAL);
	assert_non_null(strstr(llog_file_sink_error(), "invalid options"));
	tdir_remove(&t);
}

/* ---- full disk ------------------------------------------------------------------ */

/* Child: log until RLIMIT_FSIZE makes writes fail, lift the limit, log more.
 * Returns the exit status: 0, or the number of the failed check. */
/* Polls (1 ms) until the flusher has written at least n records into its
 * sinks (llog_stats.written), at most 20 s; returns whether it had. */
static int wait_written(uint64_t n)
{
	for (int i = 0; i < 20000; i++) {
		if (stats_now().written >= n)
			return 1;
		usleep(1000);
	}
	return 0;
}

/* Whether a thread of this process is named name (/proc/self/task). */
static int thread_named(const char *name)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *de;
	int found = 0;

	if (d == NULL)
		return 0;
	while (!found && (de = readdir(d)) != NULL) {
		char path[300], comm[32] = "";
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm", de->d_name);
		if ((f = fopen(path, "r")) == NULL)
			continue;
		if (fgets(comm, sizeof(comm), f) != NULL)
			found = strncmp(comm, name, strlen(name)) == 0 && comm[strlen(name)] == '\n';
		fclose(f);
	}
	closedir(d);
	return found;
}

/* log_range without llog_flush (every == 0: the file sink's writer writes
 * the rounds' chunks), then waits for the flusher to have taken them. */
static void log_range_rounds(char tag, long first, long n, long every, uint64_t written_before)
{
	log_range(tag, first, n, every);
	if (every == 0 && !wait_written(written_before + (uint64_t)n))
		fail_msg("the flusher did not take the records in 20 s");
}

/* The full disk below with commits by llog_flush (every 100 records), or
 * by the flusher's ordinary rounds only (0: the writer's retries). */
static long full_disk_every;

static int full_disk_child(const char *path)
{
	struct llog_file_options o = {.path = path, .zstd_level = 1};
	struct rlimit rl;
	struct llog_stats s0, s1, s2;
	struct decoded d = {0};
	long n = 0;

	alarm(60);
	signal(SIGXFSZ, SIG_IGN);
	getrlimit(RLIMIT_FSIZE, &rl);
	rl.rlim_cur = 16 * 1024;
	if (setrlimit(RLIMIT_FSIZE, &rl) != 0)
		return 1;
	s0 = stats_now();
	if (start_file_sink(&o) != 0)
		return 2;
	while (stats_now().write_errors == s0.write_errors && n < 200000) {
		log_range_rounds('a', n, 100, full_disk_every, s0.written + (uint64_t)n);
		n += 100;
	}
	if (stats_now().write_errors == s0.write_errors)
		return 3;
	/* still failing: kept for retry */
	log_range_rounds('a', n, 300, full_disk_every, s0.written + (uint64_t)n);
	n += 300;
	if (full_disk_every == 0 && !thread_named("llog-file"))
		return 9; /* the rounds' chunks went to the writer */
	s1 = stats_now();
	rl.rlim_cur = rl.rlim_max;
	if (setrlimit(RLIMIT_FSIZE, &rl) != 0)
		return 4;
	log_range_rounds('b', 0, 500, full_disk_every, s0.written + (uint64_t)n);
	llog_shutdown();
	s2 = stats_now();
	if (s2.bytes_written <= s1.bytes_written)
		return 5;
	if (s2.sink_lost != s0.sink_lost) /* the backlog stayed within 8 MiB */
		return 6;
	if (!zstd_test_ok(path))
		return 7;
	decode_file(path, 0, &d);
	if (d.damaged || check_tag(d.text, 'a', 0) != n || check_tag(d.text, 'b', 0) != 500)
		return 8;
	free(d.text);
	return 0;
}

static void test_full_disk(void **state)
{
	struct tdir t;
	pid_t pid;

	full_disk_every = (long)(intptr_t)*state;
	tdir_make(&t, "app.log.zst");
	fflush(NULL);
	pid = fork(); /* no llog running here: the child starts its own */
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(full_disk_child(t.path));
	assert_int_equal(child_exit_code(pid), 0);
	tdir_remove(&t);
}

/* Occurrences of pat in text. */
static long count_str(const char *text, const char *pat)
{
	long n = 0;

	for (const char *p = text; (p = strstr(p, pat)) != NULL; p++)
		n++;
	return n;
}

/* Records of tag in text: lines holding "tag=T i=" (in any order, gaps
 * allowed). */
static long count_tag(const char *text, char tag)
{
	char pat[16];

	snprintf(pat, sizeof(pat), "tag=%c i=", tag);
	return count_str(text, pat);
}

/*
 * Child: a disk that stays full to the end (RLIMIT_FSIZE never lifted),
 * two file sinks: "flusher.log.zst" on the flusher, "own.log.zst" on a
 * thread of its own (a small queue, so it may drop). After llog_shutdown
 * every counter adds up exactly:
 *   logged == written + dropped                      (n records, none dropped)
 *   own: n == queued + dropped, queued == delivered + undelivered,
 *        its statistics readable after shutdown, announced <= dropped
 *   both files: records and notices in the files + sink_lost
 *        == n (flusher) + queued + notices (own): each entry a sink got is
 *        in its file or lost (its own losses, the queue's undelivered,
 *        unwritten at close), the own queue's drop notices included
 * Returns 0, or the number of the failed check.
 */
static int full_disk_sums_child(const char *dir)
{
	struct llog_config cfg = {.flush_interval_ms = 10, .overflow = LLOG_OVERFLOW_BLOCK};
	struct llog_sink_options qo = {.thread = LLOG_SINK_THREAD_OWN, .queue_bytes = 64 << 10,
				       .name = "own"};
	char pa[512], pb[512];
	struct llog_file_options oa = {.path = pa, .zstd_level = 1};
	struct llog_file_options ob = {.path = pb, .zstd_level = 1};
	struct llog_sink *own;
	struct llog_sink_stats st;
	struct llog_stats s0, s1;
	struct decoded da = {0}, db = {0};
	struct rlimit rl;
	long n = 0, in_files, notices;

	alarm(120);
	signal(SIGXFSZ, SIG_IGN);
	snprintf(pa, sizeof(pa), "%s/flusher.log.zst", dir);
	snprintf(pb, sizeof(pb), "%s/own.log.zst", dir);
	getrlimit(RLIMIT_FSIZE, &rl);
	rl.rlim_cur = 16 * 1024;
	if (setrlimit(RLIMIT_FSIZE, &rl) != 0)
		return 1;
	s0 = stats_now();
	own = llog_file_sink(&ob);
	if (llog_add_sink(llog_file_sink(&oa)) != 0 || own == NULL ||
	    llog_add_sink_opts(own, &qo) != 0 || llog_init(&cfg) != 0)
		return 2;
	while (stats_now().write_errors == s0.write_errors && n < 200000) {
		log_range('f', n, 100, 100);
		n += 100;
	}
	if (stats_now().write_errors == s0.write_errors)
		return 3;
	log_range('f', n, 2000, 0); /* still full: kept, then lost at close */
	n += 2000;
	llog_shutdown();
	s1 = stats_now();
	if (s1.logged - s0.logged != (uint64_t)n || s1.dropped != s0.dropped ||
	    s1.logged != s1.written + s1.dropped)
		return 4;
	if (llog_get_sink_stats(own, &st) != 0)
		return 5;
	if (st.queued + st.dropped != (uint64_t)n || st.queued != st.delivered + st.undelivered ||
	    st.announced > st.dropped)
		return 6;
	decode_file(pa, 0, &da);
	decode_file(pb, 0, &db);
	if (da.damaged || db.damaged)
		return 7;
	in_files = count_tag(da.text != NULL ? da.text : "", 'f') +
		   count_tag(db.text != NULL ? db.text : "", 'f');
	/* The own sink's file also got its queue's notices (or lost them). */
	notices = count_str(db.text != NULL ? db.text : "",
			    "records dropped: sink own's queue was full");
	if ((uint64_t)(in_files + notices) + (s1.sink_lost - s0.sink_lost) !=
	    (uint64_t)n + st.queued + st.notices) {
		fprintf(stderr,
			"n %ld, in files %ld (%ld notices), sink_lost %llu; own: queued %llu "
			"delivered %llu undelivered %llu dropped %llu notices %llu\n",
			n, in_files, notices, (unsigned long long)(s1.sink_lost - s0.sink_lost),
			(unsigned long long)st.queued, (unsigned long long)st.delivered,
			(unsigned long long)st.undelivered, (unsigned long long)st.dropped,
			(unsigned long long)st.notices);
		return 8;
	}
	if (s1.queue_dropped - s0.queue_dropped != st.dropped)
		return 9;
	free(da.text);
	free(db.text);
	return 0;
}

static void test_full_disk_sums(void **state)
{
	struct tdir t;
	pid_t pid;

	(void)state;
	tdir_make(&t, "unused.log.zst");
	fflush(NULL);
	pid = fork(); /* no llog running here: the child starts its own */
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(full_disk_sums_child(t.dir));
	assert_int_equal(child_exit_code(pid), 0);
	tdir_remove(&t);
}

/* Records tag/first .. tag/first+n-1 with 600 random characters each (6
 * bits a byte: a frame of them compresses to about 3/4 of its lines),
 * committing every `every`. */
static void log_random(char tag, long first, long n, long every)
{
	static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	static uint64_t x = 88172645463325252ull;
	char r[601];

	for (long i = first; i < first + n; i++) {
		for (int k = 0; k < 600; k += 10) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			for (int j = 0; j < 10; j++)
				r[k + j] = abc[(x >> (6 * j)) & 63];
		}
		r[600] = '\0';
		LOG_INFO("tag=%c i=%ld %s", tag, i, r);
		if (every > 0 && (i - first + 1) % every == 0)
			llog_flush();
	}
}

/* The records of tag in text: each of 0..logged-1 at most once, in
 * increasing order (a record given up on leaves a gap). Returns how many,
 * or -1 on a duplicate, a reordering or one never logged. */
static long check_tag_gaps(const char *text, char tag, long logged)
{
	long last = -1, found = 0;
	char pat[16];
	size_t pl = (size_t)snprintf(pat, sizeof(pat), "tag=%c i=", tag);

	for (const char *line = text; *line != '\0';) {
		const char *eol = line, *q;
		long i = 0;

		while (*eol != '\0' && *eol != '\n')
			eol++;
		for (const char *p = line; p + pl <= eol; p++) {
			if (*p != 't' || memcmp(p, pat, pl) != 0)
				continue;
			for (q = p + pl; q < eol && *q >= '0' && *q <= '9'; q++)
				i = i * 10 + (*q - '0');
			if (q == p + pl || i <= last || i >= logged)
				return -1;
			last = i;
			found++;
			break;
		}
		line = *eol == '\n' ? eol + 1 : eol;
	}
	return found;
}

static uint64_t file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
}

/*
 * Child: less room than one pending frame. RLIMIT_FSIZE stops the file
 * at 64 KiB; 2,000 records (1.4 MB of lines, a frame of about 1 MB) wait
 * for room. Then the file may grow by 256 KiB only, less than that frame,
 * and 14,000 more records come (9.7 MB), more than the 8 MiB backlog
 * holds; then the limit goes. Checks:
 * frames went out into the 256 KiB (the frame that does not fit is split
 * into frames of fewer lines) until less than a line's frame was left;
 * every record is in the file once and in order, or counted in sink_lost,
 * exactly; after the limit every record is written; the file is whole.
 * Returns 0, or the number of the failed check.
 */
static int small_room_child(const char *path, enum llog_file_compression comp)
{
	struct llog_file_options o = {.path = path, .compression = comp, .zstd_level = 1};
	const long na = 2000, nb = 14000, nc = 500;
	struct rlimit rl;
	struct llog_stats s0, s2, s3;
	struct decoded d = {0};
	uint64_t before, limit;
	long n = 0, fa, fb;

	alarm(100);
	signal(SIGXFSZ, SIG_IGN);
	getrlimit(RLIMIT_FSIZE, &rl);
	rl.rlim_cur = 64 * 1024;
	if (setrlimit(RLIMIT_FSIZE, &rl) != 0)
		return 1;
	s0 = stats_now();
	if (start_file_sink(&o) != 0)
		return 2;
	while (stats_now().write_errors == s0.write_errors && n < na) {
		log_random('a', n, 100, 100);
		n += 100;
	}
	if (n >= na)
		return 3;
	log_random('a', n, na - n, 500);
	before = file_size(path);
	limit = before + 256 * 1024;
	rl.rlim_cur = limit;
	if (setrlimit(RLIMIT_FSIZE, &rl) != 0)
		return 4;
	log_random('b', 0, nb, 1000);
	s2 = stats_now();
	/* Not stats.bytes_written: a commit that wrote frames and then
	 * failed returns the error, not its bytes. */
	if (file_size(path) <= before) /* stuck behind a frame too big */
		return 5;
	/* Room left unused: less than one line's frame, or in binary mode
	 * one frame of at most LLOG__FILE_CHUNK_MIN (32 KiB) of records. */
	if (file_size(path) > limit ||
	    limit - file_size(path) > (comp == LLOG_FILE_BINARY ? 40960u : 4096u))
		return 6;
	if (s2.sink_lost == s0.sink_lost) /* the backlog bound was passed */
		return 7;
	rl.rlim_cur = rl.rlim_max;
	if (setrlimit(RLIMIT_FSIZE, &rl) != 0)
		return 8;
	log_random('c', 0, nc, 100);
	s3 = stats_now();
	llog_shutdown();
	if (s3.sink_lost != s2.sink_lost || s3.dropped != s0.dropped)
		return 9;
	if (comp != LLOG_FILE_PLAIN && !zstd_test_ok(path))
		return 10;
	if (comp == LLOG_FILE_BINARY) { /* its records as llogcat prints them */
		char cmd[600];

		snprintf(cmd, sizeof(cmd), "'%s' --verify '%s' >/dev/null 2>&1",
			 getenv("LLOGCAT"), path);
		if (system(cmd) != 0)
			return 11;
		snprintf(cmd, sizeof(cmd), "'%s' '%s'", getenv("LLOGCAT"), path);
		d.text = run_output(cmd, &d.len);
	} else {
		decode_file(path, comp == LLOG_FILE_PLAIN, &d);
		if (d.damaged)
			return 11;
	}
	fa = check_tag_gaps(d.text, 'a', na);
	fb = check_tag_gaps(d.text, 'b', nb);
	if (fa < 0 || fb < 0 || (uint64_t)(fa + fb) + (s3.sink_lost - s0.sink_lost) !=
					 (uint64_t)(na + nb))
		return 12;
	if (check_tag(d.text, 'c', 0) != nc)
		return 13;
	if (comp != LLOG_FILE_BINARY && getenv("LLOGCAT") != NULL) { /* llogcat reads every frame */
		char cmd[600], *c;
		size_t clen;

		snprintf(cmd, sizeof(cmd), "'%s' '%s'", getenv("LLOGCAT"), path);
		c = run_output(cmd, &clen);
		if (clen != d.len || memcmp(c, d.text, clen) != 0)
			return 14;
		free(c);
	}
	free(d.text);
	return 0;
}

static void small_room(enum llog_file_compression comp, const char *name)
{
	struct tdir t;
	pid_t pid;

	tdir_make(&t, name);
	fflush(NULL);
	pid = fork(); /* no llog running here: the child starts its own */
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(small_room_child(t.path, comp));
	assert_int_equal(child_exit_code(pid), 0);
	tdir_remove(&t);
}

static void test_full_disk_small_room(void **state)
{
	(void)state;
	small_room(LLOG_FILE_ZSTD, "app.log.zst");
#ifndef TEST_TSAN /* one variant there: the others' paths are not threads' */
	small_room(LLOG_FILE_PLAIN, "app.log");
	if (getenv("LLOGCAT") != NULL) /* binary records are read with llogcat */
		small_room(LLOG_FILE_BINARY, "app.log.zst");
#endif
}

/* ---- two processes appending ---------------------------------------------------------- */

#define APPEND_N 4000

static void test_two_processes(void **state)
{
	struct tdir t;
	struct decoded d = {0};
	pid_t pid[2];

	(void)state;
	tdir_make(&t, "app.log.zst");
	fflush(NULL);
	for (int k = 0; k < 2; k++) {
		pid[k] = fork();
		assert_true(pid[k] >= 0);
		if (pid[k] == 0) {
			struct llog_file_options o = {.path = t.path, .zstd_level = 1};

			alarm(60);
			if (start_file_sink(&o) != 0)
				_exit(1);
			log_range(k ? 'q' : 'p', 0, APPEND_N, 20);
			llog_shutdown();
			_exit(0);
		}
	}
	for (int k = 0; k < 2; k++) {
		assert_int_equal(child_exit_code(pid[k]), 0);
	}
	decode_file(t.path, 0, &d);
	assert_false(d.damaged);
	assert_true(d.metas >= 1);
	assert_int_equal(check_tag(d.text, 'p', 0), APPEND_N);
	assert_int_equal(check_tag(d.text, 'q', 0), APPEND_N);
	assert_true(zstd_test_ok(t.path));
	free(d.text);
	tdir_remove(&t);
}

/*
 * Four threads log WRITER_N records each with no llog_flush: the flusher's
 * ordinary rounds hand their chunks to the sink's writer thread (which
 * must run: looked up by name while they log; with LLOG_FILE_WRITER_FLUSHER
 * there must be none, and the flusher writes). After llog_shutdown every
 * record is in the file exactly once and in each thread's order, the file
 * is whole for zstd, and the counters add up with nothing lost.
 */
#define WRITER_N 20000

/* A thread's records, with a record of one of 8 more call sites after
 * every 500 (binary mode: sites defined while earlier chunks are being
 * written). */
static void *writer_rounds_thread(void *arg)
{
	char tag = (char)(intptr_t)arg;

	for (long i = 0; i < WRITER_N; i += 500) {
		log_range(tag, i, 500, 0);
		switch ((i / 500 + tag) % 8) {
		case 0: LOG_INFO("marker 0 %c", tag); break;
		case 1: LOG_INFO("marker 1 %c %ld", tag, i); break;
		case 2: LOG_WARN("marker 2 %c", tag); break;
		case 3: LOG_INFO("marker 3 %c %d", tag, 3); break;
		case 4: LOG_ERROR("marker 4 %c", tag); break;
		case 5: LOG_INFO("marker 5 %c %s", tag, "five"); break;
		case 6: LOG_INFO("marker 6 %c %.1f", tag, 6.0); break;
		default: LOG_INFO("marker 7 %c", tag); break;
		}
	}
	return NULL;
}

static void test_writer_rounds(void **state)
{
	struct llog_file_options o = {
		.compression = (enum llog_file_compression)((uintptr_t)*state & 0xff),
		.writer = (enum llog_file_writer)((uintptr_t)*state >> 8)};
	struct llog_stats s0 = stats_now(), s1;
	struct decoded d = {0};
	pthread_t th[4];
	struct tdir t;
	int seen = 0;

	if (o.compression == LLOG_FILE_BINARY && getenv("LLOGCAT") == NULL)
		skip(); /* no llogcat in this build to read it (binary test of test_binfile) */
	tdir_make(&t, o.compression == LLOG_FILE_PLAIN ? "app.log" : "app.log.zst");
	o.path = t.path;
	assert_int_equal(start_file_sink(&o), 0);
	for (int k = 0; k < 4; k++)
		assert_int_equal(pthread_create(&th[k], NULL, writer_rounds_thread,
						(void *)(intptr_t)('a' + k)),
				 0);
	for (int i = 0; i < (o.writer == LLOG_FILE_WRITER_FLUSHER ? 200 : 20000) &&
			!(seen = thread_named("llog-file"));
	     i++)
		usleep(1000);
	for (int k = 0; k < 4; k++)
		pthread_join(th[k], NULL);
	/* LLOG_FILE_WRITER_FLUSHER: never one (looked for while they log) */
	assert_int_equal(seen, o.writer != LLOG_FILE_WRITER_FLUSHER);
	llog_shutdown();
	s1 = stats_now();
	assert_int_equal(s1.logged - s0.logged, 4 * (WRITER_N + WRITER_N / 500));
	assert_int_equal(s1.written - s0.written, 4 * (WRITER_N + WRITER_N / 500));
	assert_int_equal(s1.sink_lost, s0.sink_lost);
	assert_int_equal(s1.write_errors, s0.write_errors);
	if (o.compression == LLOG_FILE_BINARY) { /* as llogcat prints it */
		char cmd[600];

		snprintf(cmd, sizeof(cmd), "'%s' --verify '%s' >/dev/null", getenv("LLOGCAT"),
			 t.path);
		assert_int_equal(system(cmd), 0);
		snprintf(cmd, sizeof(cmd), "'%s' '%s'", getenv("LLOGCAT"), t.path);
		d.text = run_output(cmd, &d.len);
	} else {
		decode_file(t.path, o.compression == LLOG_FILE_PLAIN, &d);
		assert_false(d.damaged);
	}
	for (int k = 0; k < 4; k++)
		assert_int_equal(check_tag(d.text, (char)('a' + k), 0), WRITER_N);
	assert_int_equal(count_str(d.text, "marker "), 4 * (WRITER_N / 500));
	if (o.compression != LLOG_FILE_PLAIN)
		assert_true(zstd_test_ok(t.path));
	free(d.text);
	tdir_remove(&t);
}

/*
 * fork() with the writer running: the parent logs 'p' records through its
 * writer, forks, and goes on logging; the child (whose copy of the sink has
 * no writer) logs 'c' records through ordinary rounds, which start a
 * writer of its own (looked up by name), then shuts down. In the shared
 * file every record of both is there exactly once, in each one's order.
 */
static void test_writer_fork(void **state)
{
	struct llog_file_options o = {.zstd_level = 1};
	struct decoded d = {0};
	struct tdir t;
	pid_t pid;

	(void)state;
	/* ThreadSanitizer cannot start threads in the child of a
	 * multi-threaded fork (its die_after_fork): this path runs in the
	 * release and ASan builds. */
#ifdef TEST_TSAN
	skip();
#endif
	tdir_make(&t, "app.log.zst");
	o.path = t.path;
	assert_int_equal(start_file_sink(&o), 0);
	log_range_rounds('p', 0, 2000, 0, stats_now().written);
	for (int i = 0; i < 20000 && !thread_named("llog-file"); i++)
		usleep(1000);
	assert_true(thread_named("llog-file"));
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct llog_stats c0;
		int seen = 0;

		alarm(60);
		c0 = stats_now();
		/* not assert_*: cmocka's state is the parent's */
		for (long i = 0; i < 4000; i += 500) {
			log_range('c', i, 500, 0);
			if (!wait_written(c0.written + (uint64_t)i + 500))
				_exit(2);
			seen |= thread_named("llog-file");
		}
		llog_shutdown();
		_exit(seen ? 0 : 3);
	}
	log_range_rounds('p', 2000, 2000, 0, stats_now().written);
	assert_int_equal(child_exit_code(pid), 0);
	llog_shutdown();
	decode_file(t.path, 0, &d);
	assert_false(d.damaged);
	assert_int_equal(check_tag(d.text, 'p', 0), 4000);
	assert_int_equal(check_tag(d.text, 'c', 0), 4000);
	assert_true(zstd_test_ok(t.path));
	free(d.text);
	tdir_remove(&t);
}

TEST_MAIN(
	cmocka_unit_test(test_roundtrip_plain),
	cmocka_unit_test(test_roundtrip_zstd),
	cmocka_unit_test(test_levels_frame_sizes),
	cmocka_unit_test(test_default_levels),
	TEST_CASE_ARG(test_torn_tail_truncated, test_torn_tail, 1),
	TEST_CASE_ARG(test_torn_tail_garbage, test_torn_tail, 0),
	TEST_CASE_ARG(test_rotation_size_keep_all_flushed, test_rotation_size_keep_all, 0),
	TEST_CASE_ARG(test_rotation_size_keep_all_rounds, test_rotation_size_keep_all, 1),
	cmocka_unit_test(test_rotation_size_retention),
	cmocka_unit_test(test_rotation_time),
	cmocka_unit_test(test_refused_paths),
	TEST_CASE_ARG(test_full_disk_flushed, test_full_disk, 100),
	TEST_CASE_ARG(test_full_disk_rounds, test_full_disk, 0),
	TEST_CASE_ARG(test_writer_rounds_text, test_writer_rounds, LLOG_FILE_ZSTD),
	TEST_CASE_ARG(test_writer_rounds_plain, test_writer_rounds, LLOG_FILE_PLAIN),
	TEST_CASE_ARG(test_writer_rounds_binary, test_writer_rounds, LLOG_FILE_BINARY),
	TEST_CASE_ARG(test_writer_rounds_on_flusher, test_writer_rounds,
		      LLOG_FILE_ZSTD | LLOG_FILE_WRITER_FLUSHER << 8),
	cmocka_unit_test(test_writer_fork),
	cmocka_unit_test(test_full_disk_sums),
	cmocka_unit_test(test_full_disk_small_room),
	cmocka_unit_test(test_two_processes),
)
