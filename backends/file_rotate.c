/*
 * file_rotate.c - the file sink's files on disk: opening, torn-tail repair,
 * rotation, retention, and following rotation done from outside. The sink itself (frames, retry, crash path) is
 * file.c; the state both use is struct llog__file_sink in file.h.
 *
 * DESIGN
 * The newest file is always at path = dir/stem ext (ext ".zst" or ""). A
 * rotated file is renamed to dir/stem.YYYYMMDDTHHMMSS.nnnnnnnnnZ ext (UTC,
 * the time of the rotation), so while the wall clock does not go back the
 * names of one sink's rotated files sort in the order they were rotated.
 * Retention (at the constructor and after each rotation) takes the regular
 * files with names of exactly that shape, in that order, and deletes the
 * oldest while a limit (max_files, max_total_bytes, max_age_s by the name's
 * stamp) is passed: a prefix of the sorted names, nothing else, and nothing
 * reached through a symbolic link (llog__file_retention).
 *
 * External rotation: before each frame, follow_external() closes the file
 * when llog_file_reopen() was called since the last frame or path names
 * another file (reopen_check_ms), and takes the size from fstat, so that a
 * copytruncate is followed; the frame then goes to path opened anew.
 *
 * Rotation (by size or wall-clock period) happens only between frames:
 * file.c asks llog__file_ready() before each frame, with the frame's size.
 * A file rotates when
 *   (interval_s != 0 && period(now) != period(file)) ||
 *   (max_bytes != 0 && size + frame > max_bytes)
 * and it is not empty, where period(t) = t / interval_s and period(file) is
 * the period at the previous llog__file_ready() (at opening: that of the
 * file's mtime when it is not empty, else the current one).
 * A failed rename keeps the current file in use; a failed reopen leaves
 * fd == -1 and is retried before the next frame.
 *
 * Torn-tail repair (compressed files, on open): the file is walked frame by
 * frame from its start; bytes after the last complete frame are cut off
 * (ftruncate, counted as repaired) when no complete frame starts anywhere
 * in them, so that the file is a sequence of complete frames again. A
 * complete frame after the damage means damage in the middle of the file:
 * it is reported and left alone, and the sink appends after it.
 *
 * Limits: rotation is not coordinated between processes; plain files are
 * not repaired on open.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>

#include "fileformat.h"
#include "sink.h"
#include "file.h"

#define TS_LEN 26    /* "YYYYMMDDTHHMMSS.nnnnnnnnnZ" */
#define ZST_EXT ".zst"

static struct timespec now_utc(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts;
}

static uint32_t get_le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* ---- torn-tail repair ---------------------------------------------------- */

/* Size of the complete frame (skippable or zstd) at p, or 0 when none. */
static size_t frame_size(const unsigned char *p, size_t n)
{
	uint32_t magic;
	size_t r;

	if (n < 8)
		return 0;
	magic = get_le32(p);
	if ((magic & 0xFFFFFFF0u) == 0x184D2A50u) {
		uint64_t len = 8 + (uint64_t)get_le32(p + 4);

		return len <= n ? (size_t)len : 0;
	}
	if (magic != LLOG_ZSTD_MAGIC)
		return 0;
	r = ZSTD_findFrameCompressedSize(p, n);
	return ZSTD_isError(r) ? 0 : r;
}

/* Whether a complete frame starts anywhere in p[from, n): then the damage
 * is in the middle of the file, not a torn tail, and is left alone. */
static int frame_after(const unsigned char *p, size_t from, size_t n)
{
	for (size_t i = from; i + 8 <= n; i++) {
		uint32_t m = get_le32(p + i);

		if ((m == LLOG_ZSTD_MAGIC || m == LLOG_META_MAGIC) && frame_size(p + i, n - i) > 0)
			return 1;
	}
	return 0;
}

/* Cuts a torn last frame off the file just opened (st describes fs->fd). */
static void repair_tail(struct llog__file_sink *fs, const struct stat *st)
{
	size_t n = (size_t)st->st_size, end = 0, k;
	struct stat rst;
	unsigned char *p;
	int rfd = open(fs->path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);

	if (rfd < 0)
		return;
	if (fstat(rfd, &rst) != 0 || rst.st_ino != st->st_ino || rst.st_dev != st->st_dev) {
		close(rfd);
		return;
	}
	p = mmap(NULL, n, PROT_READ, MAP_PRIVATE, rfd, 0);
	close(rfd);
	if (p == MAP_FAILED)
		return;
	while (end < n && (k = frame_size(p + end, n - end)) > 0)
		end += k;
	if (end < n && frame_after(p, end + 1, n)) {
		llog__diag("%s: damaged data at offset %zu between frames; appending after it",
			   fs->path, end);
	} else if (end < n) {
		if (ftruncate(fs->fd, (off_t)end) == 0) {
			llog__stats_count_repaired();
			llog__diag("%s: torn last frame: cut %zu bytes at offset %zu",
				   fs->path, n - end, end);
			fs->size = end;
		} else {
			llog__diag("%s: cannot cut torn tail at offset %zu: %s", fs->path,
				   end, strerror(errno));
		}
	}
	munmap(p, n);
}

/* ---- opening ------------------------------------------------------------- */

static int64_t period_of(const struct llog__file_sink *fs, time_t t)
{
	return fs->interval_s ? (int64_t)t / fs->interval_s : 0;
}

/* See file.h. */
int llog__file_open(struct llog__file_sink *fs)
{
	struct stat st;
	int e, fd = open(fs->path,
			 O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY,
			 0640);

	if (fd < 0) {
		e = errno;
		if (e == ELOOP)
			llog__sink_set_error(
				"%s: is a symbolic link, which llog does not follow (%s)",
				fs->path, strerror(e));
		else
			llog__sink_set_error("%s: cannot open for appending: %s", fs->path,
					     strerror(e));
		return -e;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		e = errno;
		if (fstat(fd, &st) == 0)
			e = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
		llog__sink_set_error("%s: not a regular file (%s)", fs->path, strerror(e));
		close(fd);
		return -e;
	}
	fs->fd = fd;
	fs->file_gen++;
	fs->size = (uint64_t)st.st_size;
	if (!fs->plain && st.st_size > 0)
		repair_tail(fs, &st);
	fs->need_meta = !fs->plain && fs->size == 0;
	fs->period = period_of(fs, fs->size > 0 ? st.st_mtime : now_utc().tv_sec);
	return 0;
}

static void reopen(struct llog__file_sink *fs)
{
	if (llog__file_open(fs) < 0)
		llog__diag("file sink: %s", llog__sink_error());
}

/* ---- names --------------------------------------------------------------- */

/* See file.h. */
int llog__file_names_init(struct llog__file_sink *fs)
{
	const char *slash = strrchr(fs->path, '/');
	const char *base = slash ? slash + 1 : fs->path;
	size_t bl = strlen(base), el = strlen(ZST_EXT);

	if (slash == fs->path)
		fs->dir = strdup("/");
	else
		fs->dir = slash ? strndup(fs->path, (size_t)(slash - fs->path)) : strdup(".");
	fs->ext = bl > el && strcmp(base + bl - el, ZST_EXT) == 0 ? ZST_EXT : "";
	fs->stem = strndup(base, bl - strlen(fs->ext));
	return fs->dir != NULL && fs->stem != NULL && bl > 0 ? 0 : -1;
}

/* Whether name is stem.TS ext, a file this sink rotated. */
static int is_rotated(const struct llog__file_sink *fs, const char *name)
{
	size_t sl = strlen(fs->stem), el = strlen(fs->ext);
	const char *ts = name + sl + 1;

	if (strlen(name) != sl + 1 + TS_LEN + el || strncmp(name, fs->stem, sl) != 0 ||
	    name[sl] != '.' || strcmp(ts + TS_LEN, fs->ext) != 0)
		return 0;
	for (int i = 0; i < TS_LEN; i++) {
		char want = i == 8 ? 'T' : i == 15 ? '.' : i == 25 ? 'Z' : '0';

		if (want == '0' ? (ts[i] < '0' || ts[i] > '9') : ts[i] != want)
			return 0;
	}
	return 1;
}

/* ---- retention ----------------------------------------------------------- */

struct rotated {
	char *name;
	uint64_t size;
	int64_t t; /* the UTC time in the name */
};

static int cmp_rotated(const void *a, const void *b)
{
	return strcmp(((const struct rotated *)a)->name, ((const struct rotated *)b)->name);
}

/* The time in a rotated name's stamp (YYYYMMDDTHHMMSS, UTC). */
static int64_t stamp_time(const struct llog__file_sink *fs, const char *name)
{
	const char *p = name + strlen(fs->stem) + 1;
	struct tm tm = {0};
	int v[6], w[6] = {4, 2, 2, 2, 2, 2}, off = 0;

	for (int i = 0; i < 6; i++) {
		v[i] = 0;
		if (i == 3)
			off++; /* the 'T' */
		for (int k = 0; k < w[i]; k++)
			v[i] = v[i] * 10 + (p[off++] - '0');
	}
	tm.tm_year = v[0] - 1900;
	tm.tm_mon = v[1] - 1;
	tm.tm_mday = v[2];
	tm.tm_hour = v[3];
	tm.tm_min = v[4];
	tm.tm_sec = v[5];
	return (int64_t)timegm(&tm);
}

/* Whether the oldest of the n rotated files left (total bytes, stamped at
 * t) is beyond one of the limits. */
static int beyond(const struct llog__file_sink *fs, size_t n, uint64_t total, int64_t t,
		  int64_t now)
{
	return (fs->max_files != 0 && n > fs->max_files) ||
	       (fs->max_total_bytes != 0 && total > fs->max_total_bytes) ||
	       (fs->max_age_s != 0 && t + (int64_t)fs->max_age_s < now);
}

/*
 * See file.h. The rotated files are the directory's entries whose name is
 * stem.TS ext (is_rotated: this sink's, an earlier run's, or another
 * process's with the same path) and that are regular files, looked at
 * through a descriptor of the directory without following anything
 * (fstatat AT_SYMLINK_NOFOLLOW): a symbolic link, even one with a rotated
 * name, is neither counted nor deleted, nor is anything it points to.
 * Oldest first by name, while the count, their total bytes or the age of
 * the oldest (by its name's stamp) is beyond a limit, the oldest is
 * removed (unlinkat, which removes a name and never follows a link, so an
 * entry swapped for a link after the fstatat is at worst that link).
 */
void llog__file_retention(const struct llog__file_sink *fs)
{
	struct rotated *r = NULL;
	size_t n = 0, cap = 0;
	uint64_t total = 0;
	int64_t now = now_utc().tv_sec;
	struct dirent *de;
	struct stat st;
	DIR *d;
	int dfd;

	if (fs->max_files == 0 && fs->max_total_bytes == 0 && fs->max_age_s == 0)
		return;
	dfd = open(fs->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 || (d = fdopendir(dfd)) == NULL) {
		if (dfd >= 0)
			close(dfd);
		return;
	}
	while ((de = readdir(d)) != NULL) {
		if (!is_rotated(fs, de->d_name) ||
		    fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
			continue;
		if (n == cap) {
			struct rotated *nr = realloc(r, (cap = cap ? cap * 2 : 16) * sizeof(*r));

			if (nr == NULL)
				break;
			r = nr;
		}
		if ((r[n].name = strdup(de->d_name)) == NULL)
			break;
		r[n].size = (uint64_t)st.st_size;
		r[n].t = stamp_time(fs, de->d_name);
		total += r[n].size;
		n++;
	}
	if (n > 0)
		qsort(r, n, sizeof(*r), cmp_rotated);
	for (size_t i = 0; i < n && beyond(fs, n - i, total, r[i].t, now); i++) {
		if (unlinkat(dfd, r[i].name, 0) != 0)
			llog__diag("file sink: cannot remove %s/%s: %s", fs->dir, r[i].name,
				   strerror(errno));
		total -= r[i].size; /* gone, or not retried before the next rotation */
	}
	for (size_t i = 0; i < n; i++)
		free(r[i].name);
	free(r);
	closedir(d);
}

/* Renames path to its rotated name and opens a new file at path. On a
 * failed rename the current file stays in use. */
static void rotate(struct llog__file_sink *fs)
{
	struct timespec ts = now_utc();
	char name[4096 + 64];
	struct tm tm;
	size_t dl = strlen(fs->dir) + 1;

	for (int tries = 0; tries < 100; tries++, ts.tv_nsec++) {
		gmtime_r(&ts.tv_sec, &tm);
		snprintf(name, sizeof(name), "%s/%s.%04d%02d%02dT%02d%02d%02d.%09ldZ%s", fs->dir,
			 fs->stem, tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
			 tm.tm_min, tm.tm_sec, ts.tv_nsec % 1000000000, fs->ext);
		if (access(name, F_OK) != 0)
			break;
	}
	if (rename(fs->path, name) != 0) {
		llog__diag("file sink: cannot rotate %s to %s: %s", fs->path, name,
			   strerror(errno));
		return;
	}
	close(fs->fd);
	fs->fd = -1;
	free(fs->rotated_from);
	fs->rotated_from = strdup(name + dl);
	llog__file_retention(fs);
	reopen(fs);
}

static void maybe_rotate(struct llog__file_sink *fs, size_t frame_len)
{
	int64_t period = period_of(fs, now_utc().tv_sec);
	int due = (fs->interval_s != 0 && period != fs->period) ||
		  (fs->max_bytes != 0 && fs->size + frame_len > fs->max_bytes);

	fs->period = period;
	if (due && fs->size > 0 && fs->fd >= 0)
		rotate(fs);
}

/* ---- external rotation --------------------------------------------------- */

/* llog_file_reopen() requests, for every file sink. The handler of a signal
 * may increment it: a lock-free atomic read-modify-write is
 * async-signal-safe (no lock a handler could find held). */
static _Atomic unsigned reopen_requests;
_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "llog_file_reopen must be lock-free");

/* See llog/sinks.h. Relaxed: a request publishes no data of its own; what
 * it is about (a renamed file) is the file system's, which the flusher's
 * open(2) sees once the rename returned. The ordering promised (a record
 * logged after the call goes to the new file) comes from the records'
 * hand-off: the flusher (or the sink's thread) takes such a record with
 * the acquire that pairs with its producer's release push, so the
 * increment happens before the relaxed load in follow_external() of the
 * frame holding it, which therefore reads it or a later count
 * (write-read coherence). */
void llog_file_reopen(void)
{
	atomic_fetch_add_explicit(&reopen_requests, 1, memory_order_relaxed);
}

/* See file.h. Relaxed: pairs with nothing (llog_file_reopen). */
unsigned llog__file_reopen_requests(void)
{
	return atomic_load_explicit(&reopen_requests, memory_order_relaxed);
}

/* Whether path now names another file than fs->fd, or none (a path check
 * at most every check_ms). Another error of stat keeps the current file. */
static int path_moved(struct llog__file_sink *fs)
{
	int64_t now = llog__mono_ms();
	struct stat pst, st;

	if (fs->check_ms == 0 || now - fs->checked_ms < (int64_t)fs->check_ms)
		return 0;
	fs->checked_ms = now;
	if (stat(fs->path, &pst) != 0)
		return errno == ENOENT;
	return fstat(fs->fd, &st) == 0 && (pst.st_ino != st.st_ino || pst.st_dev != st.st_dev);
}

/*
 * Follows the file at path when it changed under the sink, before a frame:
 * a reopen request since the last frame or a path that names another file
 * (or none) closes the descriptor, so llog__file_ready() opens path anew
 * (a new file: metadata first, no rotated_from). Otherwise the size is
 * taken from the file itself (fstat): smaller than the sink's count means
 * it was truncated under the sink (logrotate's copytruncate), and O_APPEND
 * puts the next frame at the new end, so the size rotation's count and the
 * need for a metadata frame follow the real file; larger means another
 * process appended.
 */
static void follow_external(struct llog__file_sink *fs)
{
	unsigned req = llog__file_reopen_requests();
	struct stat st;

	if (fs->fd >= 0 && (req != fs->reopen_seen || path_moved(fs))) {
		close(fs->fd);
		fs->fd = -1;
		free(fs->rotated_from);
		fs->rotated_from = NULL;
	}
	fs->reopen_seen = req;
	if (fs->fd >= 0 && fstat(fs->fd, &st) == 0 && (uint64_t)st.st_size != fs->size) {
		if ((uint64_t)st.st_size < fs->size)
			fs->file_gen++; /* truncated: what it held is gone */
		fs->size = (uint64_t)st.st_size;
		fs->need_meta = !fs->plain && fs->size == 0;
	}
}

/* See file.h. */
int llog__file_ready(struct llog__file_sink *fs, size_t frame_len)
{
	follow_external(fs);
	if (fs->fd < 0)
		reopen(fs);
	if (fs->fd >= 0)
		maybe_rotate(fs, frame_len);
	return fs->fd < 0 ? -EBADF : 0;
}
