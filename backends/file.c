/*
 * file.c - the file sink: zstd frames (or plain lines) appended to a file,
 * with bounded retry, and its crash path. Writing a chunk as a frame
 * (compression, metadata, a full disk) is file_frames.c's, the thread that
 * does it after an ordinary round's commit file_writer.c's; the files on
 * disk (opening, torn-tail repair, rotation, retention) are
 * file_rotate.c's; the state they share is struct llog__file_sink in
 * file.h.
 *
 * DESIGN
 * write() formats each entry into a pending input buffer split into chunks
 * of whole lines, each at most LLOG_FRAME_CONTENT_MAX bytes (one chunk is one
 * future frame, or several after a short write: file_frames.c, "A full
 * disk"). A commit turns every pending chunk into one zstd frame
 * (ZSTD_compress2 with one CCtx made at creation: content size in the
 * header, content checksum on) and appends it with a single write(2), so a
 * commit leaves the file decodable up to its last record and appenders in
 * other processes never interleave inside a frame. The first frame written
 * to an empty file is preceded, in the same write, by the metadata
 * skippable frame of liblog/format/fileformat.h (written lazily so
 * seq_first is the sequence number of the first record that goes to the
 * file).
 *
 * Who writes the frames: the commit of an ordinary round of the flusher
 * hands the pending chunks to the sink's writer thread and returns; every
 * other commit (llog_flush, LOG_FATAL, the final round, a sink on a thread
 * of its own, with fsync) writes them before it returns, after what the
 * writer still had (file_writer.c). A new record never joins a chunk
 * handed to the writer: it starts the next one, as after a commit without
 * a writer.
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
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdatomic.h>
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

#include "arena.h"
#include "capture.h"
#include "fileformat.h"
#include "sink.h"
#include "file.h"

/* The pieces in which the crash path copies pending lines. */
#define LINE_MAX_BYTES (16 * 1024)
#define IN_CAP LLOG__FILE_PENDING_MAX
#define CRASH_HDR 12                /* frame header (9) + block header (3) */
#define CRASH_BLOCK (128u << 10)    /* zstd's block size limit */

const char *llog_file_sink_error(void)
{
	return llog__sink_error();
}

/* ---- the sink callbacks (flusher thread only) ---------------------------- */

/* Whether this thread's writes of the sink go through its writer
 * (file_writer.c): when it runs, or on the flusher when it may start one
 * (not LLOG_FILE_WRITER_FLUSHER, not after a crash). A sink on a thread of
 * its own writes on that thread, as a sink the flusher writes itself. */
static int via_writer(struct llog__file_sink *fs)
{
	return fs->w.running || (!fs->w.refused && llog__arena_thread_is_flusher());
}

/* A new chunk for a record of at most n bytes (n <= LLOG_FRAME_CONTENT_MAX)
 * whose sequence number is seq, the last one being full (or handed to the
 * writer): what is pending is written early (or handed), and when that
 * fails with the backlog at its bound (chunks or bytes), the oldest chunk
 * is dropped. A binary chunk starts with the sites defined so far. NULL
 * when a crash report gave up on a writer stuck with the backlog
 * (llog__file_writer_collect): the record is not stored. */
static __attribute__((noinline)) struct llog__file_chunk *new_chunk(struct llog__file_sink *fs,
								    size_t n, uint64_t seq)
{
	uint64_t lost = 0;

	/* A writer done with what it holds gives it back now: with
	 * nothing left pending the buffer starts again at 0. Past a
	 * quarter of the buffer the flusher waits for it to be done
	 * (a writer slower than the flusher: a round's overlap lost
	 * every 2 MiB of records), so that the sink's resident
	 * memory stays within 2 MiB and a few rounds (measured:
	 * bench/README.md, "The file sink's writer"). */
	if (llog__load_relaxed(&fs->w.target) > 0)
		(void)llog__file_writer_collect(fs, fs->in_len > IN_CAP / 4);
	if (fs->nch > (int)llog__load_relaxed(&fs->w.target) &&
	    (!via_writer(fs) || llog__file_writer_hand(fs) != 0)) {
		(void)llog__file_writer_collect(fs, 1); /* a crash's leftovers */
		llog__file_flush_chunks(fs);
	}
	while (fs->nch == LLOG__FILE_MAX_CHUNKS || (fs->nch > 0 && fs->in_len + n > IN_CAP)) {
		/* the writer's chunks first: written, they make room */
		if (llog__load_relaxed(&fs->w.target) > 0) {
			if (!llog__file_writer_collect(fs, 1))
				return NULL;
			continue;
		}
		if (fs->in_base > 0 && fs->nch < LLOG__FILE_MAX_CHUNKS) {
			llog__file_compact(fs); /* the room of those written */
			continue;
		}
		lost += fs->ch[0].records;
		llog__file_drop_chunks(fs, 1);
	}
	if (lost > 0) {
		llog__stats_count_sink_lost(lost);
		llog__diag("%s: still failing; dropped %llu records", fs->path,
			   (unsigned long long)lost);
	}
	fs->ch[fs->nch++] = (struct llog__file_chunk){.start = fs->in_len, .seq = seq};
	if (fs->bin != NULL) {
		fs->ch[fs->nch - 1].sites = llog__bin_sites(fs);
		fs->ch[fs->nch - 1].sites_end = llog__bin_sites_end(fs);
	}
	fs->bin_fr.started = 0; /* a chunk is a frame: it starts afresh */
	/* in_len + n <= IN_CAP: made so above (n <= LLOG_FRAME_CONTENT_MAX <
	 * IN_CAP, and an empty buffer holds it). */
	return &fs->ch[fs->nch - 1];
}

/* The chunk a record of at most n bytes (n <= LLOG_FRAME_CONTENT_MAX)
 * whose sequence number is seq goes to (NULL: new_chunk's): the last one
 * while it has room
 * (a chunk handed to the writer is complete: the record starts the next).
 * Relaxed loads of w.target here and in file_commit: only this thread
 * stores it (file_writer.c), so it reads its own last value; the writer's
 * side is ordered by collect's acquires. */
static struct llog__file_chunk *chunk_for(struct llog__file_sink *fs, size_t n, uint64_t seq)
{
	struct llog__file_chunk *c =
		fs->nch > (int)llog__load_relaxed(&fs->w.target) ? &fs->ch[fs->nch - 1] : NULL;

	if (__builtin_expect(c == NULL || fs->in_len + n > LLOG__FILE_PENDING_MAX ||
				     (c->len > 0 && c->len + n > fs->chunk_max),
			     0)) {
		c = new_chunk(fs, n, seq);
		if (c == NULL)
			return NULL;
	}
	if (c->records > 0 && seq != c->seq + c->records)
		c->gaps = 1;
	return c;
}

/* Whether the sink takes no more records: a recovered crash left its
 * writer stuck in the file (file_writer.c); counted lost. */
static int abandoned(struct llog__file_sink *fs)
{
	if (__builtin_expect(!fs->w.abandoned, 1))
		return 0;
	llog__stats_count_sink_lost(1);
	return 1;
}

/* A record not stored: a crash report, or a stall, gave up on the writer
 * (new_chunk; file_writer.c). */
static __attribute__((noinline, cold)) long stuck_writer(struct llog__file_sink *fs)
{
	llog__stats_count_sink_lost(1);
	fs->w.stall_lost++;
	return -ETIMEDOUT;
}

/* n bytes of a record appended to chunk c (0: it could not be stored,
 * counted lost). Returns what write returns. */
static long appended(struct llog__file_sink *fs, struct llog__file_chunk *c, size_t n)
{
	if (n == 0) {
		llog__stats_count_sink_lost(1);
		return -ENOSPC;
	}
	fs->in_len += n;
	c->len += n;
	c->records++;
	return (long)n;
}

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
	size_t n;
	struct llog__file_chunk *c;

	if (abandoned(fs))
		return -EIO;
	n = fs->bin ? llog__bin_bound(fs, e) : llog__line_bound(e, s->format, fs->pat);
	if (n > LLOG_FRAME_CONTENT_MAX) {
		if (fs->bin != NULL) { /* arguments are never cut */
			llog__stats_count_sink_lost(1);
			return -E2BIG;
		}
		n = LLOG_FRAME_CONTENT_MAX;
	}
	if ((c = chunk_for(fs, n, e->seq)) == NULL)
		return stuck_writer(fs);
	if (fs->bin != NULL) {
		n = llog__bin_encode(fs, &fs->bin_fr, e, fs->in + fs->in_len);
		c->sites = llog__bin_sites(fs);
		c->sites_end = llog__bin_sites_end(fs);
	} else {
		n = llog__sink_format_line(e, s->format, &fs->line, fs->pat, fs->in + fs->in_len, n);
	}
	return appended(fs, c, n);
}

/* Binary mode, a LOG record handed directly (sink.h): as file_write. */
static long file_write_rec(struct llog_sink *s, const struct llog__capture_rec *cr)
{
	struct llog__file_sink *fs = (struct llog__file_sink *)s;
	size_t n = llog__bin_rec_bound(cr);
	struct llog__file_chunk *c;

	if (abandoned(fs))
		return -EIO;
	if (n > LLOG_FRAME_CONTENT_MAX) { /* arguments are never cut */
		llog__stats_count_sink_lost(1);
		return -E2BIG;
	}
	if ((c = chunk_for(fs, n, cr->seq)) == NULL)
		return stuck_writer(fs);
	return appended(fs, c, llog__bin_encode_rec(fs, c, cr, fs->in + fs->in_len));
}

/* Binary mode, a run of LOG records (sink.h): file_write_rec of each, in
 * one call; run->taken counts each record once it is stored or counted
 * lost (capture.h). */
static long file_write_run(struct llog_sink *s, struct llog__capture_run *run)
{
	struct llog__file_sink *fs = (struct llog__file_sink *)s;
	unsigned n = run->n, k = 0;
	long bad = 0;

	if (__builtin_expect(fs->w.abandoned, 0)) {
		llog__stats_count_sink_lost(n); /* as abandoned(), each */
		run->taken += n;
		return n;
	}
	while (k < n) {
		const struct llog__capture_rec *cr = &run->cr[k];
		size_t bound = llog__bin_rec_bound_of(llog__bin_text_bound_of(run->room), cr->c.len);
		struct llog__file_chunk *c;

		if (bound > LLOG_FRAME_CONTENT_MAX) { /* arguments are never cut */
			llog__stats_count_sink_lost(1);
			bad++;
			llog__capture_run_took(run);
			k++;
			continue;
		}
		if ((c = chunk_for(fs, bound, cr->seq)) == NULL) {
			(void)stuck_writer(fs); /* as file_write_rec */
			bad++;
			llog__capture_run_took(run);
			k++;
			continue;
		}
		/* the records that fit the chunk chosen for cr[k] */
		k = llog__bin_encode_run(fs, c, run, k, fs->chunk_max, &bad);
	}
	return bad;
}

/*
 * An ordinary round's commit (llog__sink_commit_may_defer) hands what is
 * pending to the writer and returns: the writer writes it while the flusher
 * goes on (file_writer.c). Every other commit returns when what was pending
 * is written (or failed): handed to the writer too, and waited for, so
 * that a write(2) that never returns costs the wait the stall timeout
 * (file_writer.c, DESIGN "Stalls") instead of the flusher; what the writer
 * could not write waits for the next commit. With fsync on, every commit
 * waits, and the writer calls fsync(2) after the frames. A sink without a
 * writer writes (and syncs) here. Returns the first error noted since the
 * last commit, or else the bytes written since the last commit that
 * returned them.
 */
static long file_commit(struct llog_sink *s)
{
	struct llog__file_sink *fs = (struct llog__file_sink *)s;
	long rc;

	if (fs->w.abandoned)
		return -EIO;
	if (!fs->do_fsync && llog__sink_commit_may_defer()) {
		/* Its results so far; with nothing handed, the pending bytes
		 * (this round's) moved down once past an eighth of the
		 * buffer: the sink's resident memory stays about a MiB and a
		 * round, and file_write never finds the buffer full while
		 * the writer has its chunks (it would wait for them). The
		 * move is a round's bytes once a MiB of records. */
		if (llog__file_writer_collect(fs, 0) && fs->in_base > IN_CAP / 8)
			llog__file_compact(fs);
		if (fs->nch == (int)llog__load_relaxed(&fs->w.target) ||
		    llog__file_writer_hand(fs) == 0)
			goto out;
	} else if (fs->nch > (int)llog__load_relaxed(&fs->w.target) && via_writer(fs)) {
		(void)llog__file_writer_hand(fs); /* failed: not started, written below */
	}
	if (!llog__file_writer_collect(fs, 1)) {
		/* A crash report, and the writer still in a chunk: it keeps
		 * the file, the rest goes to it too (in order, should it
		 * return), and this commit did not reach the file
		 * (file_writer.c, DESIGN). */
		if (fs->nch > (int)llog__load_relaxed(&fs->w.target))
			(void)llog__file_writer_hand(fs);
		if (fs->err == 0)
			fs->err = -ETIMEDOUT;
		goto out;
	}
	if (fs->w.running) /* it wrote, and synced, what it could */
		goto out;
	if (fs->nch > 0)
		llog__file_flush_chunks(fs);
	if (fs->do_fsync && atomic_load_explicit(&fs->bytes, memory_order_relaxed) > 0 &&
	    fs->fd >= 0 && fsync(fs->fd) != 0)
		llog__file_note_result(fs, -errno);
out:
	if (fs->err != 0) { /* the bytes wait for the next commit's count */
		rc = fs->err;
		fs->err = 0;
		return rc;
	}
	/* Relaxed: a count (write_once). */
	return atomic_exchange_explicit(&fs->bytes, 0, memory_order_relaxed);
}

/* ---- the crash path (crash handler on the flusher; async-signal-safe) ---- */

/* Writes all of p with write(2), counting what went out. */
static void crash_put(struct llog__file_sink *fs, const char *p, size_t len)
{
	if (fs->w.abandoned) { /* its writer may be in the file (file_writer.c) */
		if (fs->crash_err == 0)
			fs->crash_err = -EIO;
		return;
	}
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

/* Binary: the definitions of site ids below `to` (end: their bytes) the
 * file lacks. */
static void crash_sites(struct llog__file_sink *fs, uint32_t to, size_t end)
{
	if (fs->bin_gen != fs->file_gen) {
		fs->bin_gen = fs->file_gen;
		fs->bin_in_file = 0;
	}
	if (to > fs->bin_in_file) {
		crash_put(fs, fs->sites_out,
			  llog__bin_sites_frames(fs, fs->bin_in_file, to, end, fs->sites_out));
		fs->bin_in_file = to;
	}
}

/* Binary: a pending chunk as one zstd frame of raw blocks (no compressor
 * here), after the sites it needs. */
static void crash_chunk(struct llog__file_sink *fs, const struct llog__file_chunk *c)
{
	unsigned char h[12];
	size_t off = 0;

	crash_sites(fs, c->sites, c->sites_end);
	llog__file_put_le32(h, LLOG_ZSTD_MAGIC);
	h[4] = 0xA0; /* content size: 4 bytes; single segment; no checksum */
	llog__file_put_le32(h + 5, (uint32_t)c->len);
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
		llog__file_put_le32(h, LLOG_ZSTD_MAGIC);
		h[4] = 0xA0; /* content size: 4 bytes; single segment; no checksum */
		llog__file_put_le32(h + 5, (uint32_t)len);
		h[9] = (unsigned char)bh;
		h[10] = (unsigned char)(bh >> 8);
		h[11] = (unsigned char)(bh >> 16);
		p = fs->crash;
		len += CRASH_HDR;
	}
	if (fs->bin != NULL)
		crash_sites(fs, llog__bin_sites(fs), llog__bin_sites_end(fs));
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
	/* The writer finishes what it holds and takes nothing more; what it
	 * wrote leaves the pending ones (file_writer.c). */
	if (llog__file_writer_crash(fs, interrupted) != 0)
		return; /* abandoned: nothing more to this file (crash_put) */
	if (interrupted) {
		fs->bin_in_file = 0; /* may be mid-update: define every site again */
		return;
	}
	if (fs->bin != NULL) {
		for (int i = 0; i < fs->nch && fs->fd >= 0; i++)
			if (fs->ch[i].len > 0)
				crash_chunk(fs, &fs->ch[i]);
	} else {
		for (size_t off = fs->nch > 0 ? fs->ch[0].start : fs->in_len; off < fs->in_len;) {
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
	/* Out (or in the crash frame): not written again if the crash is
	 * recovered and the sink goes on. */
	if (fs->fd >= 0) {
		fs->nch = 0;
		fs->in_base = 0;
		fs->in_len = 0;
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
	long wrote;

	crash_begin(fs, interrupted);
	crash_emit(fs);
	/* And what the writer wrote since the last commit (relaxed: a
	 * count; the writer is done), or its error. */
	wrote = atomic_exchange_explicit(&fs->bytes, 0, memory_order_relaxed);
	if (fs->crash_err != 0 || fs->err != 0)
		return fs->crash_err != 0 ? fs->crash_err : fs->err;
	return fs->crash_bytes + wrote;
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
	int stalled;

	if (fs->w.abandoned)
		return; /* its writer may still touch it: never freed */
	(void)file_commit(s); /* not deferred: this is not a round */
	stalled = llog__file_writer_stop(fs) != 0;
	if (fs->nch > 0) {
		/* Stalled: the chunks it wrote before it stuck are in the
		 * file, not taken back (acquire: pairs with its release
		 * store of done); they are not lost. */
		int from = stalled ? (int)llog__load_acquire(&fs->w.done) : 0;
		uint64_t lost = 0;

		for (int i = from; i < fs->nch; i++)
			lost += fs->ch[i].records;
		llog__stats_count_sink_lost(lost);
		if (stalled)
			llog__diag("%s: closed with its writer thread stalled in write(2): %llu "
				   "records it holds are counted lost (should it return before the "
				   "process ends, it still writes them)",
				   fs->path, (unsigned long long)lost);
		else
			llog__diag("%s: closed with %llu records unwritten", fs->path,
				   (unsigned long long)lost);
	}
	if (!stalled)
		free_sink(fs); /* else its writer may still touch it: never freed */
}

/* In a fork child: the pending lines are the parent's (it writes them);
 * the descriptor (O_APPEND) is shared, each process appends whole frames. */
static void file_after_fork(struct llog_sink *s)
{
	struct llog__file_sink *fs = (struct llog__file_sink *)s;
	struct stat st;

	llog__file_writer_after_fork(fs);
	fs->in_base = 0;
	fs->in_len = 0;
	fs->nch = 0;
	atomic_store_explicit(&fs->bytes, 0, memory_order_relaxed);
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

/* The callbacks of both modes; flags: the binary mode's. */
#define FILE_OPS(flags_)                                                                    \
	{                                                                                   \
		.version = LLOG__SINK_VERSION, .write = file_write, .commit = file_commit,  \
		.close = file_close, .after_fork = file_after_fork,                         \
		.crash_write = file_crash_write, .crash_commit = file_crash_commit,         \
		.flags = (flags_),                                                          \
	}

static const struct llog_sink_ops file_ops = FILE_OPS(0);

/* Binary mode: on the flusher it stores captures and needs no rendered
 * message (capture.h), and takes LOG records directly (sink.h,
 * write_rec). */
static const struct llog__sink_direct_ops file_bin_ops = {
	.ops = FILE_OPS(LLOG__SINK_F_RAW | LLOG__SINK_F_DIRECT),
	.write_rec = file_write_rec,
	.write_run = file_write_run,
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
	fs->out_cap = LLOG__FILE_META_ROOM + ZSTD_compressBound(LLOG_FRAME_CONTENT_MAX);
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
	    (unsigned)opt->writer > LLOG_FILE_WRITER_FLUSHER ||
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
	fs->base.ops = opt->compression == LLOG_FILE_BINARY ? &file_bin_ops.ops : &file_ops;
	if (opt->compression == LLOG_FILE_BINARY)
		llog__sink_direct_own(&file_bin_ops); /* its write_rec (sink.h) */
	fs->base.level = opt->level;
	fs->base.format = opt->format;
	fs->fd = -1;
	fs->chunk_max = LLOG_FRAME_CONTENT_MAX;
	fs->plain = opt->compression == LLOG_FILE_PLAIN;
	fs->do_fsync = opt->fsync == LLOG_FSYNC_COMMIT;
	fs->no_writer = opt->writer == LLOG_FILE_WRITER_FLUSHER;
	fs->w.refused = fs->no_writer; /* never started */
	fs->w.stall_ms = opt->stall_timeout_ms != 0 ? opt->stall_timeout_ms : 10000;
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
		/* 0: level 1 for text, faster and smaller than zstd's default
		 * (3) on the records measured; -1 for binary records, as fast
		 * as -3 and smaller (MEASUREMENT in file_frames.c). */
		rc = setup_zstd(fs, opt->zstd_level != 0 ? opt->zstd_level
				    : opt->compression == LLOG_FILE_BINARY ? LLOG__FILE_BIN_LEVEL
				    : 1);
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
