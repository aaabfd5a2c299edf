/*
 * file.c - the file sink: zstd frames (or plain lines) appended to a file,
 * with bounded retry, and its crash path. The files on disk (opening,
 * torn-tail repair, rotation, retention) are file_rotate.c's; the state
 * both use is struct llog__file_sink in file.h.
 *
 * DESIGN
 * write() formats each entry into a pending input buffer split into chunks
 * of whole lines, each at most LLOG_FRAME_CONTENT_MAX bytes (one chunk is one
 * future frame, or several after a short write: "A full disk" below). commit() turns every pending chunk into one zstd frame
 * (ZSTD_compress2 with one CCtx made at creation: content size in the
 * header, content checksum on) and appends it with a single write(2), so a
 * commit leaves the file decodable up to its last record and appenders in
 * other processes never interleave inside a frame. The first frame written
 * to an empty file is preceded, in the same write, by the metadata
 * skippable frame of liblog/format/fileformat.h (written lazily so
 * seq_first is the sequence number of the first record that goes to the
 * file).
 *
 * No allocation after creation (the flusher commits the crash's last batch
 * with write()/commit(), and the crash handler promises no malloc): the
 * input buffer is allocated at its bound, LLOG__FILE_PENDING_MAX (two
 * frames' worth), whose pages the kernel backs only as they are first
 * used; the CCtx is a static one (ZSTD_initStaticCCtx) in a workspace
 * sized at creation for the sink's level and the largest input,
 * LLOG_FRAME_CONTENT_MAX. zstd never allocates for a static CCtx, nor
 * frees or resizes its workspace; it would fail with memory_allocation if
 * the workspace were short.
 *
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
 * Invariants, with records counted per sink:
 *   received == in the file + pending + lost (llog__stats_count_sink_lost)
 *   pending input <= LLOG__FILE_PENDING_MAX (8 MiB), in at most
 *   LLOG__FILE_MAX_CHUNKS chunks, each at most LLOG_FRAME_CONTENT_MAX
 *   the file is a sequence of complete frames after every commit (a short
 *   write is cut back with ftruncate to where that write began; a failed
 *   write leaves its chunk, or the lines of it not yet written, pending).
 * Order: records reach the file in the order write() received them; a frame
 * is written only after every older one, so a failed frame stops the
 * commit. A chunk's metadata seq (seq_first of a file it starts) follows
 * the lines written from it: exact while its records' sequence numbers
 * are consecutive, else that of its first record.
 * Rotation (by size or wall-clock period) happens only between frames:
 * before each frame, llog__file_ready() (file_rotate.c) rotates when due.
 *
 * Crash path (crash_write/crash_commit, only when the flusher thread
 * crashed; async-signal-safe): no compressor, no allocation, no rotation.
 * Lines are formatted into `crash`, a buffer allocated at creation, and
 * written as zstd frames of one raw (uncompressed) block each: magic, a
 * single-segment header with the 4-byte content size, one last-block header
 * of type Raw, the content (<= CRASH_BLOCK bytes, whole lines), no checksum:
 * 12 bytes of overhead, one write(2) per frame. When the sink was not the
 * one interrupted, the lines it had pending (fs->in) go first, through the
 * same raw frames. Plain files get the lines as they are. No metadata frame
 * (a crash in a file never committed to leaves it without one).
 *
 * Limits: ftruncate after a short write can race with another process that
 * appended in between (rotation's and repair's limits: file_rotate.c).
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
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>
/* For ZSTD_estimateCCtxSize_usingCParams, ZSTD_getCParams and
 * ZSTD_initStaticCCtx (zstd.h's static-linking section; libzstd.so exports
 * them too). */
#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>

#include "fileformat.h"
#include "sink.h"
#include "file.h"

/* The pieces in which the crash path copies pending lines. */
#define LINE_MAX_BYTES (16 * 1024)
#define IN_CAP LLOG__FILE_PENDING_MAX
#define META_ROOM (8 + LLOG_META_MAX)
#define CRASH_HDR 12                /* frame header (9) + block header (3) */
#define CRASH_BLOCK (128u << 10)    /* zstd's block size limit */

const char *llog_file_sink_error(void)
{
	return llog__sink_error();
}

static void put_le32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
	p[2] = (unsigned char)(v >> 16);
	p[3] = (unsigned char)(v >> 24);
}

/* ---- writing frames ------------------------------------------------------ */

/* Copies s into dst (cap > 0) with control characters replaced. */
static void clean_copy(char *dst, size_t cap, const char *s)
{
	size_t i;

	for (i = 0; s[i] != '\0' && i + 1 < cap; i++)
		dst[i] = (unsigned char)s[i] < 0x20 ? '?' : s[i];
	dst[i] = '\0';
}

/* Builds the metadata skippable frame into dst (META_ROOM bytes). */
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
	put_le32(dst, LLOG_META_MAGIC);
	put_le32(dst + 4, (uint32_t)n);
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
		fs->bytes += (long)len;
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
							fs->sites_out);
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
		size_t z = ZSTD_compress2(fs->cctx, fs->out + META_ROOM, fs->out_cap - META_ROOM,
					  buf, len);

		if (ZSTD_isError(z)) {
			llog__diag("%s: zstd: %s", fs->path, ZSTD_getErrorName(z));
			fs->fit = 0;
			return -EIO;
		}
		buf = fs->out + META_ROOM;
		len = z;
	}
	if ((rc = llog__file_ready(fs, len)) < 0) {
		fs->fit = 0;
		return rc;
	}
	if (fs->need_meta) {
		unsigned char meta[META_ROOM];

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
 * (chunk_max), which grows back, doubling, with each binary frame written.
 * Returns 0, or the error with c pending (whatever is left of it).
 */
static int write_chunk(struct llog__file_sink *fs, struct llog__file_chunk *c)
{
	size_t try = c->len;
	int rc;

	for (;;) {
		const char *p = fs->in + c->start, *nl;
		size_t n = fs->bin != NULL ? c->len : lines_within(p, c->len, try);
		uint64_t k;

		if ((rc = write_frame(fs, c, n)) == 0 && n == c->len) {
			if (fs->bin != NULL && fs->chunk_max < LLOG_FRAME_CONTENT_MAX)
				fs->chunk_max = fs->chunk_max < LLOG_FRAME_CONTENT_MAX / 2
							? 2 * fs->chunk_max
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
			if (try < fs->chunk_max)
				fs->chunk_max = try;
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
			   (unsigned)(IN_CAP >> 20));
	fs->failing = 1;
}

/* Forgets the k oldest chunks (written or dropped), and the lines before
 * the next one's start (written by write_chunk): fs->in starts with the
 * oldest pending line again, as the crash path reads it. */
static void drop_chunks(struct llog__file_sink *fs, int k)
{
	size_t base = k < fs->nch ? fs->ch[k].start : fs->in_len;

	memmove(fs->in, fs->in + base, fs->in_len - base);
	fs->in_len -= base;
	for (int i = k; i < fs->nch; i++) {
		fs->ch[i - k] = fs->ch[i];
		fs->ch[i - k].start -= base;
	}
	fs->nch -= k;
}

/* Writes the pending chunks, oldest first, stopping at the first error. */
static void flush_chunks(struct llog__file_sink *fs)
{
	int done = 0, rc = 0;

	while (done < fs->nch && (rc = write_chunk(fs, &fs->ch[done])) == 0)
		done++;
	if (rc < 0)
		note_error(fs, rc);
	else if (fs->failing) {
		fs->failing = 0;
		llog__diag("%s: writing resumed", fs->path);
	}
	if (done > 0 || (fs->nch > 0 && fs->ch[0].start > 0))
		drop_chunks(fs, done); /* and the lines of ch[done] written */
}

/* ---- the sink callbacks (flusher thread only) ---------------------------- */

/*
 * The line is formatted straight into the last chunk, with room for its
 * bound (llog__line_bound), so a record of any max_record_bytes arrives
 * whole; only a line longer than a frame's content
 * (LLOG_FRAME_CONTENT_MAX, the format's hard limit) is cut, with the
 * " [truncated]" marker, and counted (llog__sink_format_line). A chunk may so
 * end up to one bound short of the limit.
 */
static long file_write(struct llog_sink *s, const struct llog_entry *e)
{
	struct llog__file_sink *fs = (struct llog__file_sink *)s;
	size_t n = fs->bin ? llog__bin_bound(fs, e) : llog__line_bound(e, s->format, fs->pat);
	struct llog__file_chunk *c;

	if (n > LLOG_FRAME_CONTENT_MAX) {
		if (fs->bin != NULL) { /* arguments are never cut */
			llog__stats_count_sink_lost(1);
			return -E2BIG;
		}
		n = LLOG_FRAME_CONTENT_MAX;
	}
	c = fs->nch > 0 ? &fs->ch[fs->nch - 1] : NULL;
	if (c == NULL || fs->in_len + n > IN_CAP || (c->len > 0 && c->len + n > fs->chunk_max)) {
		uint64_t lost = 0;

		/* The last chunk is full: write what is pending early, and when
		 * that fails with the backlog at its bound (chunks or bytes),
		 * drop the oldest. */
		if (fs->nch > 0)
			flush_chunks(fs);
		while (fs->nch == LLOG__FILE_MAX_CHUNKS || (fs->nch > 0 && fs->in_len + n > IN_CAP)) {
			lost += fs->ch[0].records;
			drop_chunks(fs, 1);
		}
		if (lost > 0) {
			llog__stats_count_sink_lost(lost);
			llog__diag("%s: still failing; dropped %llu records", fs->path,
				   (unsigned long long)lost);
		}
		fs->ch[fs->nch++] = (struct llog__file_chunk){fs->in_len, 0, e->seq, 0, 0, 0};
		fs->bin_fr.started = 0; /* a chunk is a frame: it starts afresh */
	}
	/* in_len + n <= IN_CAP: made so above (n <= LLOG_FRAME_CONTENT_MAX <
	 * IN_CAP, and an empty buffer holds it). */
	c = &fs->ch[fs->nch - 1];
	if (c->records > 0 && e->seq != c->seq + c->records)
		c->gaps = 1;
	if (fs->bin != NULL) {
		n = llog__bin_encode(fs, &fs->bin_fr, e, fs->in + fs->in_len);
		c->sites = llog__bin_sites(fs);
		if (n == 0) {
			llog__stats_count_sink_lost(1);
			return -ENOSPC;
		}
	} else {
		n = llog__sink_format_line(e, s->format, &fs->line, fs->pat, fs->in + fs->in_len, n);
	}
	fs->in_len += n;
	c->len += n;
	c->records++;
	return (long)n;
}

static long file_commit(struct llog_sink *s)
{
	struct llog__file_sink *fs = (struct llog__file_sink *)s;
	long rc;

	if (fs->nch > 0)
		flush_chunks(fs);
	if (fs->do_fsync && fs->bytes > 0 && fs->fd >= 0 && fsync(fs->fd) != 0)
		note_error(fs, -errno);
	rc = fs->err != 0 ? fs->err : fs->bytes;
	fs->err = 0;
	fs->bytes = 0;
	return rc;
}

/* ---- the crash path (crash handler on the flusher; async-signal-safe) ---- */

/* Writes all of p with write(2), counting what went out. */
static void crash_put(struct llog__file_sink *fs, const char *p, size_t len)
{
	while (len > 0) {
		ssize_t w = write(fs->fd, p, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (fs->crash_err == 0)
				fs->crash_err = w < 0 ? -errno : -EIO;
			break;
		}
		p += w;
		len -= (size_t)w;
		fs->crash_bytes += w;
	}
}

/* Binary: the definitions of site ids below `to` the file lacks. */
static void crash_sites(struct llog__file_sink *fs, uint32_t to)
{
	if (fs->bin_gen != fs->file_gen) {
		fs->bin_gen = fs->file_gen;
		fs->bin_in_file = 0;
	}
	if (to > fs->bin_in_file) {
		crash_put(fs, fs->sites_out,
			  llog__bin_sites_frames(fs, fs->bin_in_file, to, fs->sites_out));
		fs->bin_in_file = to;
	}
}

/* Binary: a pending chunk as one zstd frame of raw blocks (no compressor
 * here), after the sites it needs. */
static void crash_chunk(struct llog__file_sink *fs, const struct llog__file_chunk *c)
{
	unsigned char h[12];
	size_t off = 0;

	crash_sites(fs, c->sites);
	put_le32(h, LLOG_ZSTD_MAGIC);
	h[4] = 0xA0; /* content size: 4 bytes; single segment; no checksum */
	put_le32(h + 5, (uint32_t)c->len);
	crash_put(fs, (const char *)h, 9);
	do {
		size_t n = c->len - off < CRASH_BLOCK ? c->len - off : CRASH_BLOCK;
		uint32_t bh = (uint32_t)n << 3 | (off + n == c->len); /* Raw; last? */

		h[0] = (unsigned char)bh;
		h[1] = (unsigned char)(bh >> 8);
		h[2] = (unsigned char)(bh >> 16);
		crash_put(fs, (const char *)h, 3);
		crash_put(fs, fs->in + c->start + off, n);
		off += n;
	} while (off < c->len);
}

/* Writes fs->crash as one frame (or plain lines), then empties it. */
static void crash_emit(struct llog__file_sink *fs)
{
	unsigned char *h = (unsigned char *)fs->crash;
	const char *p = fs->crash + CRASH_HDR;
	size_t len = fs->crash_len;
	uint32_t bh = (uint32_t)len << 3 | 1u; /* Raw block (type 0), last */

	if (len == 0 || fs->fd < 0)
		return;
	if (!fs->plain) {
		put_le32(h, LLOG_ZSTD_MAGIC);
		h[4] = 0xA0; /* content size: 4 bytes; single segment; no checksum */
		put_le32(h + 5, (uint32_t)len);
		h[9] = (unsigned char)bh;
		h[10] = (unsigned char)(bh >> 8);
		h[11] = (unsigned char)(bh >> 16);
		p = fs->crash;
		len += CRASH_HDR;
	}
	if (fs->bin != NULL)
		crash_sites(fs, llog__bin_sites(fs));
	crash_put(fs, p, len);
	fs->crash_len = 0;
	fs->bin_crash_fr.started = 0; /* the next frame starts afresh */
}

/* Room for `need` bytes (at most CRASH_BLOCK) in the crash frame. */
static char *crash_room(struct llog__file_sink *fs, size_t need)
{
	if (CRASH_BLOCK - fs->crash_len < need)
		crash_emit(fs);
	return fs->crash + CRASH_HDR + fs->crash_len;
}

/* First crash call: the lines this sink had pending go out first, unless
 * the crash interrupted this sink (its buffers may be mid-update). */
static void crash_begin(struct llog__file_sink *fs, int interrupted)
{
	if (fs->crash_started)
		return;
	fs->crash_started = 1;
	if (interrupted) {
		fs->bin_in_file = 0; /* may be mid-update: define every site again */
		return;
	}
	if (fs->bin != NULL) {
		for (int i = 0; i < fs->nch && fs->fd >= 0; i++)
			if (fs->ch[i].len > 0)
				crash_chunk(fs, &fs->ch[i]);
		return;
	}
	for (size_t off = 0; off < fs->in_len;) {
		const char *line = fs->in + off;
		const char *nl = memchr(line, '\n', fs->in_len - off);
		size_t n = nl != NULL ? (size_t)(nl - line) + 1 : fs->in_len - off;

		if (n > LINE_MAX_BYTES)
			n = LINE_MAX_BYTES;
		memcpy(crash_room(fs, n), line, n);
		fs->crash_len += n;
		off += n;
	}
}

static long file_crash_write(struct llog_sink *s, const struct llog_entry *e, int interrupted)
{
	struct llog__file_sink *fs = (struct llog__file_sink *)s;
	size_t n;

	if (fs->bin != NULL) {
		n = llog__bin_bound(fs, e);
		if (n > CRASH_BLOCK) {
			llog__stats_count_sink_lost(1);
			return -E2BIG;
		}
		crash_begin(fs, interrupted);
		n = llog__bin_encode(fs, &fs->bin_crash_fr, e, crash_room(fs, n));
		fs->crash_len += n;
		return (long)n;
	}
	/* A line longer than a crash block is cut with the marker and
	 * counted: no allocation here. */
	n = llog__line_bound(e, s->format, fs->pat);
	if (n > CRASH_BLOCK)
		n = CRASH_BLOCK;
	crash_begin(fs, interrupted);
	n = llog__sink_format_line(e, s->format, &fs->line, fs->pat, crash_room(fs, n), n);
	fs->crash_len += n;
	return (long)n;
}

static long file_crash_commit(struct llog_sink *s, int interrupted)
{
	struct llog__file_sink *fs = (struct llog__file_sink *)s;

	crash_begin(fs, interrupted);
	crash_emit(fs);
	return fs->crash_err != 0 ? fs->crash_err : fs->crash_bytes;
}

static void free_sink(struct llog__file_sink *fs)
{
	if (fs->fd >= 0)
		close(fs->fd);
	free(fs->cctx_ws); /* a static CCtx is freed with its workspace */
	free(fs->in);
	free(fs->out);
	free(fs->crash);
	free(fs->sites_out);
	llog__bin_free(fs);
	free(fs->rotated_from);
	free(fs->path);
	free(fs->pat);
	free(fs->dir);
	free(fs->stem);
	free(fs);
}

static void file_close(struct llog_sink *s)
{
	struct llog__file_sink *fs = (struct llog__file_sink *)s;

	(void)file_commit(s);
	if (fs->nch > 0) {
		uint64_t lost = 0;

		for (int i = 0; i < fs->nch; i++)
			lost += fs->ch[i].records;
		llog__stats_count_sink_lost(lost);
		llog__diag("%s: closed with %llu records unwritten", fs->path,
			   (unsigned long long)lost);
	}
	free_sink(fs);
}

/* In a fork child: the pending lines are the parent's (it writes them);
 * the descriptor (O_APPEND) is shared, each process appends whole frames. */
static void file_after_fork(struct llog_sink *s)
{
	struct llog__file_sink *fs = (struct llog__file_sink *)s;
	struct stat st;

	fs->in_len = 0;
	fs->nch = 0;
	fs->bytes = 0;
	fs->err = 0;
	fs->failing = 0;
	fs->chunk_max = LLOG_FRAME_CONTENT_MAX;
	if (fs->bin != NULL)
		llog__bin_after_fork(fs);
	if (fs->fd >= 0 && fstat(fs->fd, &st) == 0) {
		fs->size = (uint64_t)st.st_size;
		if (st.st_size > 0)
			fs->need_meta = 0;
	}
}

static const struct llog_sink_ops file_ops = {
	.version = LLOG__SINK_VERSION,
	.write = file_write,
	.commit = file_commit,
	.close = file_close,
	.after_fork = file_after_fork,
	.crash_write = file_crash_write,
	.crash_commit = file_crash_commit,
};

/* Binary mode: the same callbacks; on the flusher it stores captures and
 * needs no rendered message (capture.h). */
static const struct llog_sink_ops file_bin_ops = {
	.version = LLOG__SINK_VERSION,
	.write = file_write,
	.commit = file_commit,
	.close = file_close,
	.after_fork = file_after_fork,
	.crash_write = file_crash_write,
	.crash_commit = file_crash_commit,
	.flags = LLOG__SINK_F_RAW,
};

/* ---- construction -------------------------------------------------------- */


/*
 * Bytes of workspace for a static CCtx that compresses, in one call, any
 * input of up to LLOG_FRAME_CONTENT_MAX bytes at this level. zstd picks its
 * parameters by input size, from four tables (inputs up to 16 KiB, 128 KiB,
 * 256 KiB, larger) with the window cut down to the input, so the largest
 * need is at the top of one of the four ranges; this is how
 * ZSTD_estimateCCtxSize() does it for inputs of any size.
 */
static size_t cctx_workspace(int level)
{
	static const unsigned long long tops[] = {16u << 10, 128u << 10, 256u << 10,
						  LLOG_FRAME_CONTENT_MAX};
	size_t max = 0;

	for (size_t i = 0; i < sizeof(tops) / sizeof(tops[0]); i++) {
		size_t n = ZSTD_estimateCCtxSize_usingCParams(ZSTD_getCParams(level, tops[i], 0));

		if (n > max)
			max = n;
	}
	return max;
}

static int setup_zstd(struct llog__file_sink *fs, int level)
{
	size_t ws;

	ws = cctx_workspace(level);
	fs->cctx_ws = malloc(ws); /* malloc's alignment: >= 8, as zstd needs */
	fs->cctx = fs->cctx_ws != NULL ? ZSTD_initStaticCCtx(fs->cctx_ws, ws) : NULL;
	fs->out_cap = META_ROOM + ZSTD_compressBound(LLOG_FRAME_CONTENT_MAX);
	fs->out = malloc(fs->out_cap);
	if (fs->cctx == NULL || fs->out == NULL)
		return -ENOMEM;
	if (ZSTD_isError(ZSTD_CCtx_setParameter(fs->cctx, ZSTD_c_compressionLevel, level)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(fs->cctx, ZSTD_c_checksumFlag, 1)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(fs->cctx, ZSTD_c_contentSizeFlag, 1)))
		return -EINVAL;
	return 0;
}

struct llog_sink *llog_file_sink(const struct llog_file_options *opt)
{
	struct llog__file_sink *fs;
	int rc;

	llog__sink_set_error("%s", "");
	if (opt == NULL || opt->path == NULL || opt->path[0] == '\0' ||
	    (unsigned)opt->level > LLOG_OFF || (unsigned)opt->format > LLOG_FORMAT_JSON ||
	    (unsigned)opt->compression > LLOG_FILE_BINARY || (unsigned)opt->fsync > LLOG_FSYNC_COMMIT ||
	    (unsigned)opt->line.ts_precision > LLOG_TS_S) {
		llog__sink_set_error("llog_file_sink: invalid options (%s)", strerror(EINVAL));
		errno = EINVAL;
		return NULL;
	}
	if ((fs = calloc(1, sizeof(*fs))) == NULL) {
		llog__sink_set_error("%s: %s", opt->path, strerror(ENOMEM));
		errno = ENOMEM;
		return NULL;
	}
	fs->base.ops = opt->compression == LLOG_FILE_BINARY ? &file_bin_ops : &file_ops;
	fs->base.level = opt->level;
	fs->base.format = opt->format;
	fs->fd = -1;
	fs->chunk_max = LLOG_FRAME_CONTENT_MAX;
	fs->plain = opt->compression == LLOG_FILE_PLAIN;
	fs->do_fsync = opt->fsync == LLOG_FSYNC_COMMIT;
	fs->line = opt->line;
	fs->line.pattern = NULL; /* parsed into fs->pat, below */
	if (!fs->plain) {
		/* Compressed: UTC ns, and in text the function, always
		 * (sinks.h; llogcat --local, --func). */
		fs->line.flags &= ~LLOG_LINE_LOCAL_TIME;
		fs->line.ts_precision = LLOG_TS_NS;
		if (opt->format == LLOG_FORMAT_TEXT)
			fs->line.flags |= LLOG_LINE_FUNC;
	}
	fs->max_bytes = opt->max_bytes;
	fs->interval_s = opt->rotate_interval_s;
	fs->max_files = opt->max_files;
	fs->max_total_bytes = opt->max_total_bytes;
	fs->max_age_s = opt->max_age_s;
	fs->check_ms = opt->reopen_check_ms;
	fs->checked_ms = llog__mono_ms();
	fs->reopen_seen = llog__file_reopen_requests();
	fs->path = strdup(opt->path);
	fs->crash = malloc(CRASH_HDR + CRASH_BLOCK);
	fs->in = malloc(IN_CAP); /* an mmap: pages are backed as they are used */
	rc = fs->path == NULL || fs->crash == NULL || fs->in == NULL ||
			     llog__file_names_init(fs) != 0
		     ? -ENOMEM
		     : 0;
	if (rc == 0 && opt->line.pattern != NULL && !fs->plain) {
		/* llogcat reads a compressed file's lines: they keep the line
		 * it knows (sinks.h) */
		llog__sink_set_error("%s: a line pattern is for plain files and the console; a "
				     "compressed file keeps the line llogcat reads (%s)",
				     opt->path, strerror(EINVAL));
		free_sink(fs);
		errno = EINVAL;
		return NULL;
	}
	if (rc == 0 && (rc = llog__sink_pattern(opt->path, &opt->line, opt->format, &fs->pat)) < 0) {
		free_sink(fs);
		errno = -rc;
		return NULL;
	}
	if (rc == 0 && !fs->plain)
		/* 0: level 1, text and binary. On the records measured it is
		 * both faster and smaller than zstd's default (3): see
		 * MEASUREMENT above and docs/file-format.md 2.1. */
		rc = setup_zstd(fs, opt->zstd_level != 0 ? opt->zstd_level : 1);
	if (rc == 0 && opt->compression == LLOG_FILE_BINARY) {
		/* Binary: the site table, and room for every definition in
		 * sites frames (backed as used). */
		if (llog__bin_init(fs) != 0 ||
		    (fs->sites_out = malloc(llog__bin_sites_cap())) == NULL)
			rc = -ENOMEM;
	}
	if (rc < 0)
		llog__sink_set_error("%s: cannot set up the file sink: %s", opt->path,
				     strerror(-rc));
	else
		rc = llog__file_open(fs);
	if (rc < 0) {
		free_sink(fs);
		errno = -rc;
		return NULL;
	}
	llog__file_retention(fs); /* files of earlier runs and other processes count */
	return &fs->base;
}
