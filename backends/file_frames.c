/*
 * file_frames.c - the file sink's frames: a pending chunk compressed (zstd,
 * unless plain) and appended with its metadata and, in binary mode, the
 * sites frames it needs, as one write(2); a full disk; the chunks that
 * leave the pending ones. Called by the flusher (file.c) or by the sink's
 * writer thread while it holds the chunks (file_writer.c): by one thread
 * at a time, the one that owns the file (file.h).
 *
 * DESIGN
 * A full disk (ENOSPC, EDQUOT, EFBIG from RLIMIT_FSIZE). A frame that does
 * not fit is cut back off the file (a short write: ftruncate) and stays
 * pending; the commit stops there and the next one tries again, oldest
 * first. When part of the frame did fit (the short write says how much
 * room there was), a text, JSON or plain chunk is split at line
 * boundaries (write_chunk): the first lines, as many as the room seen
 * holds in proportion and at most half of those tried, go out as a frame
 * of their own, then the next as many, down to one line, so a frame larger
 * than the free space never holds back the lines behind it: they are
 * written as soon as any room is back (less than one line's frame: they
 * wait). A binary chunk is not split: its records depend on their frame
 * (deltas from the previous record, the packing state, file_bin.c). Its
 * short write bounds the chunks started after it (chunk_max, the room in
 * proportion, at least LLOG__FILE_CHUNK_MIN: 32 KiB of records, or one
 * record), and chunk_max doubles back with each binary frame written; the
 * chunk that did not fit waits, as every chunk behind it, until room for
 * it is back or the backlog bound drops it. The backlog bound: when a
 * new chunk would take the pending input past LLOG__FILE_PENDING_MAX
 * (8 MiB), or the chunks past LLOG__FILE_MAX_CHUNKS, the oldest chunks are
 * dropped, what is left of them counted in sink_lost.
 *
 * MEASUREMENT: frame per commit vs. compression ratio. 100,000 llog text
 * lines of "request %d took %.3f ms from %s" (random id and duration, one of
 * 8 client addresses; 101.5 bytes a line on average); ratio = plain bytes /
 * file bytes:
 *   records per commit   level   one frame per commit   streaming frame,
 *                                                       flushed per commit
 *   10                   1       4.26 (23.8 B/record)   5.94 (17.1 B/record)
 *   10                   3       4.29 (23.6 B/record)   5.86 (17.3 B/record)
 *   10,000               1       9.29 (10.9 B/record)   9.26 (11.0 B/record)
 *   10,000               3       9.23 (11.0 B/record)   8.97 (11.3 B/record)
 * A frame costs 13 bytes of its own (header, last-block header, checksum),
 * but mostly it starts with an empty window: at 10 records a commit the
 * ratio is poor (4.3). The streaming alternative (one frame flushed at
 * every commit, ended at rotation or after a bounded input) would give
 * about 5.9 there, and nothing at high rates; it would cost the per-commit
 * independence that lets several processes append to one file, lets a
 * reader verify each commit's checksum and lets the writer cut a torn tail
 * to a frame boundary. We keep one frame per commit: the low rate is where
 * the bytes matter least.
 * Command: cc -O2 -DLLOG_STATIC_DEFINE /tmp/fsmeasure.c -Iinclude
 *          -Lbuild/file -lllog -lzstd -lpthread && ./a.out
 * (the program formats the lines with llog_format_entry and compresses
 * them as the sink does, and with ZSTD_compressStream2(ZSTD_e_flush)).
 *
 * MEASUREMENT: the default level. Level 1 is the default for text too
 * (it was zstd's 3): smaller or the same and faster on every
 * text measured.
 *   - The table above: 9.29 against 9.23 at 10,000 records a commit, 4.26
 *     against 4.29 at 10.
 *   - bench/throughput.c (2,000,000 records of the message above): 11.2
 *     bytes a record at level 1, 12.0 at level 3; the flusher 3,273
 *     instructions a record against 3,422 (bench/flusher_cost.sh).
 *   - The demo's log (examples/service, 139,450 lines of 155 bytes, more
 *     varied: ids, users, paths, fields), as llogcat prints it, four times
 *     over, in 300 KB chunks as a busy sink's commits: zstd -1 12,254,228
 *     bytes, zstd -3 12,300,671.
 * Level 3 searches harder (lazy matching); it pays on long repeats across
 * a large window, which a log's chunk rarely has. zstd_level sets any
 * level.
 *
 * MEASUREMENT: the binary level. Binary files default to -1
 * (LLOG__FILE_BIN_LEVEL, file.h): their records are a few bytes each
 * (7.9 for the benchmark's "request %d took %.3f ms from %s" with data
 * frame version 3's recent strings), and zstd's cost there is per match,
 * not per byte. bench/llog_bin_bench tput -t 1 -m fmt, interleaved,
 * 2,000,000 records, 21 runs each, medians (a shared 2-vCPU guest, the
 * spread is wide: bench/README.md, "Binary files: recent strings and the
 * level"):
 *   level   records/s   CPU ns a record   bytes a record
 *   1       11.95 M     77.9              1.59
 *   -1      12.32 M     76.4              1.71
 *   -3      12.22 M     73.7              2.32
 * and zstd alone on those records (frames of 2,500 records, best of 7):
 * 23.0, 21.4 and 19.5 ns a record. -1 is as fast as -3 within the noise
 * and 26 % smaller; text stays at 1 (its records are long: bytes count
 * there).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>
#include <zstd.h>

#include "fileformat.h"
#include "sink.h"
#include "file.h"

/* Copies s into dst (cap > 0) with control characters replaced. */
static void clean_copy(char *dst, size_t cap, const char *s)
{
	size_t i;

	for (i = 0; s[i] != '\0' && i + 1 < cap; i++)
		dst[i] = (unsigned char)s[i] < 0x20 ? '?' : s[i];
	dst[i] = '\0';
}

/* Builds the metadata skippable frame into dst (LLOG__FILE_META_ROOM bytes). */
static size_t build_meta(const struct llog__file_sink *fs, uint64_t seq_first, unsigned char *dst)
{
	char host[256], prog[256], from[512] = "";
	uint64_t now_ns = llog__clock_realtime_ns();
	int n;

	if (gethostname(host, sizeof(host)) != 0)
		strcpy(host, "?");
	host[sizeof(host) - 1] = '\0';
	clean_copy(host, sizeof(host), host);
	clean_copy(prog, sizeof(prog), program_invocation_short_name);
	if (fs->rotated_from != NULL)
		clean_copy(from, sizeof(from), fs->rotated_from);
	n = snprintf((char *)dst + 8, LLOG_META_MAX,
		     LLOG_META_HEADER "host=%s\npid=%ld\nprogram=%s\ncreated_ns=%lld\n"
		     "seq_first=%llu\nformat=%s\n%s%s%s%s",
		     host, (long)getpid(), prog,
		     (long long)now_ns,
		     (unsigned long long)seq_first,
		     fs->bin != NULL ? "binary" : fs->base.format == LLOG_FORMAT_JSON ? "json" : "text",
		     fs->line.flags & LLOG_LINE_FUNC ? "line=func\n" : "",
		     from[0] ? "rotated_from=" : "", from, from[0] ? "\n" : "");
	if (n < 0)
		n = 0;
	if ((unsigned)n >= LLOG_META_MAX) {
		n = LLOG_META_MAX - 1;
		dst[8 + n - 1] = '\n';
	}
	llog__file_put_le32(dst, LLOG_META_MAGIC);
	llog__file_put_le32(dst + 4, (uint32_t)n);
	return 8 + (size_t)n;
}

/* One write(2) (writev) of iov; a short write is cut back off the file.
 * On failure fs->fit is what the write put out before it stopped (0 when
 * it put out nothing) of fs->tried bytes: a short write, then -ENOSPC,
 * means the file system had room for part of the frame. */
static int write_once(struct llog__file_sink *fs, const struct iovec *iov, int cnt)
{
	size_t len = 0;
	ssize_t w;
	off_t end;

	for (int i = 0; i < cnt; i++)
		len += iov[i].iov_len;
	do
		w = writev(fs->fd, iov, cnt);
	while (w < 0 && errno == EINTR);
	if (w == (ssize_t)len) {
		fs->size += len;
		/* Relaxed: a count; the commit takes it (file_commit). */
		atomic_fetch_add_explicit(&fs->bytes, (long)len, memory_order_relaxed);
		fs->need_meta = 0;
		return 0;
	}
	fs->tried = len;
	fs->fit = w > 0 ? (size_t)w : 0;
	if (w < 0)
		return errno == EAGAIN ? -EIO : -errno;
	/* O_APPEND left the offset at the end of our partial write. */
	end = lseek(fs->fd, 0, SEEK_CUR);
	if (end < (off_t)w || ftruncate(fs->fd, end - w) != 0)
		llog__diag("%s: cannot cut back a short write: %s", fs->path,
			   strerror(errno));
	return -ENOSPC;
}

/* Binary mode: the metadata (when first in the file) and the frame, with
 * the sites frames the file lacks for this chunk between them (file_bin.c).
 * meta: bytes of metadata at the start of buf. */
static int write_bin(struct llog__file_sink *fs, const struct llog__file_chunk *c, char *buf,
		     size_t len, size_t meta)
{
	struct iovec iov[3] = {{buf, meta}, {fs->sites_out, 0}, {buf + meta, len - meta}};
	int rc;

	if (fs->bin_gen != fs->file_gen || fs->need_meta) {
		fs->bin_gen = fs->file_gen; /* another file: it has no sites yet */
		fs->bin_in_file = 0;
	}
	if (c->sites > fs->bin_in_file)
		iov[1].iov_len = llog__bin_sites_frames(fs, fs->bin_in_file, c->sites,
							c->sites_end, fs->sites_out);
	if ((rc = write_once(fs, iov, 3)) == 0 && c->sites > fs->bin_in_file)
		fs->bin_in_file = c->sites;
	return rc;
}

/* Compresses the first len bytes of chunk c (whole lines; all of it in
 * binary mode) unless plain, and appends them as one frame, rotating first
 * when due. Returns 0 or a negative errno. */
static int write_frame(struct llog__file_sink *fs, const struct llog__file_chunk *c, size_t len)
{
	char *buf = fs->in + c->start;
	size_t m = 0;
	int rc;

	if (!fs->plain) {
		size_t z = ZSTD_compress2(fs->cctx, fs->out + LLOG__FILE_META_ROOM, fs->out_cap - LLOG__FILE_META_ROOM,
					  buf, len);

		if (ZSTD_isError(z)) {
			llog__diag("%s: zstd: %s", fs->path, ZSTD_getErrorName(z));
			fs->fit = 0;
			return -EIO;
		}
		buf = fs->out + LLOG__FILE_META_ROOM;
		len = z;
	}
	if ((rc = llog__file_ready(fs, len)) < 0) {
		fs->fit = 0;
		return rc;
	}
	if (fs->need_meta) {
		unsigned char meta[LLOG__FILE_META_ROOM];

		m = build_meta(fs, c->seq, meta);
		buf -= m;
		len += m;
		memcpy(buf, meta, m);
	}
	if (fs->bin != NULL)
		return write_bin(fs, c, buf, len, m);
	return write_once(fs, &(struct iovec){buf, len}, 1);
}

/* The bytes of the first lines of p (len bytes of whole lines) that make
 * at most max bytes; at least the first line. */
static size_t lines_within(const char *p, size_t len, size_t max)
{
	const char *nl = NULL;

	if (max >= len)
		return len;
	if (max > 0)
		nl = memrchr(p, '\n', max);
	if (nl == NULL)
		nl = memchr(p, '\n', len);
	return nl != NULL ? (size_t)(nl - p) + 1 : len;
}

static uint64_t count_lines(const char *p, size_t len)
{
	uint64_t k = 0;

	for (const char *end = p + len; (p = memchr(p, '\n', (size_t)(end - p))) != NULL; p++)
		k++;
	return k;
}

/*
 * Writes chunk c as one frame when it fits. When a frame does not fit but
 * part of it did (a short write: fs->fit of fs->tried bytes; the file
 * system, a quota or RLIMIT_FSIZE has some room), text and plain chunks are
 * split at line boundaries: the longest run of the first lines expected to
 * fit (the room seen in proportion, at most half the lines tried, at least
 * one line) goes out as a frame of its own, and the rest follows in frames
 * of that size, oldest first, until all of c is out or not even one line
 * fits. What went out leaves c (start, len, records, seq). A binary chunk
 * is not split (its records depend on their frame: deltas, packing state):
 * its size after a short write bounds the chunks started after it
 * (*chunk_max: fs->chunk_max, or the writer's copy of it), which grows
 * back, doubling, with each binary frame written.
 * Returns 0, or the error with c pending (whatever is left of it).
 */
int llog__file_write_chunk(struct llog__file_sink *fs, struct llog__file_chunk *c,
			   size_t *chunk_max)
{
	size_t try = c->len;
	int rc;

	for (;;) {
		const char *p = fs->in + c->start, *nl;
		size_t n = fs->bin != NULL ? c->len : lines_within(p, c->len, try);
		uint64_t k;

		if ((rc = write_frame(fs, c, n)) == 0 && n == c->len) {
			if (fs->bin != NULL && *chunk_max < LLOG_FRAME_CONTENT_MAX)
				*chunk_max = *chunk_max < LLOG_FRAME_CONTENT_MAX / 2
						     ? 2 * *chunk_max
						     : LLOG_FRAME_CONTENT_MAX;
			return 0;
		}
		if (rc == 0) { /* the first lines are out: the rest, same size */
			k = count_lines(p, n);
			c->start += n;
			c->len -= n;
			c->records -= k;
			if (!c->gaps)
				c->seq += k;
			continue;
		}
		if ((rc != -ENOSPC && rc != -EFBIG && rc != -EDQUOT) || fs->fit == 0)
			return rc; /* not a lack of room, or no room at all */
		try = (size_t)((uint64_t)n * fs->fit / fs->tried);
		if (fs->bin != NULL) {
			/* A margin: a chunk of this content would compress to
			 * about the room seen, its frame and sites overhead
			 * on top; halved, it fits even then. */
			try /= 2;
			if (try < LLOG__FILE_CHUNK_MIN)
				try = LLOG__FILE_CHUNK_MIN;
			if (try < *chunk_max)
				*chunk_max = try;
			return rc;
		}
		if ((nl = memchr(p, '\n', n)) == NULL || nl + 1 == p + n)
			return rc; /* one line, and it does not fit */
		if (try > n / 2)
			try = n / 2;
	}
}

static void note_error(struct llog__file_sink *fs, int rc)
{
	if (fs->err == 0)
		fs->err = rc;
	if (!fs->failing)
		llog__diag("%s: write failed (%s); retrying with up to %u MiB pending",
			   fs->path, strerror(-rc),
			   (unsigned)(LLOG__FILE_PENDING_MAX >> 20));
	fs->failing = 1;
}

void llog__file_note_result(struct llog__file_sink *fs, int rc)
{
	if (rc < 0)
		note_error(fs, rc);
	else if (fs->failing) {
		fs->failing = 0;
		llog__diag("%s: writing resumed", fs->path);
	}
}

/* Forgets the k oldest chunks (written or dropped), and the lines before
 * the next one's start (written by write_chunk): the oldest pending line
 * is at fs->in + in_base, as the crash path reads it. The bytes stay where
 * they are (the flusher may be appending after them while the writer
 * works: no copy per commit); with nothing left pending the buffer is
 * empty again, else llog__file_compact moves the rest down when room is
 * short. */
void llog__file_drop_chunks(struct llog__file_sink *fs, int k)
{
	for (int i = k; i < fs->nch; i++)
		fs->ch[i - k] = fs->ch[i];
	fs->nch -= k;
	fs->in_base = fs->nch > 0 ? fs->ch[0].start : 0;
	if (fs->nch == 0)
		fs->in_len = 0;
}

void llog__file_compact(struct llog__file_sink *fs)
{
	size_t base = fs->in_base;

	memmove(fs->in, fs->in + base, fs->in_len - base);
	fs->in_len -= base;
	for (int i = 0; i < fs->nch; i++)
		fs->ch[i].start -= base;
	fs->in_base = 0;
}

/* Writes the pending chunks, oldest first, stopping at the first error. */
void llog__file_flush_chunks(struct llog__file_sink *fs)
{
	int done = 0, rc = 0;

	while (done < fs->nch && (rc = llog__file_write_chunk(fs, &fs->ch[done], &fs->chunk_max)) == 0)
		done++;
	llog__file_note_result(fs, rc);
	if (done > 0 || (fs->nch > 0 && fs->ch[0].start > fs->in_base))
		llog__file_drop_chunks(fs, done); /* and the lines of ch[done] written */
}

