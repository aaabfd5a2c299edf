/*
 * file.h - the file sink's state, shared by its three files (internal).
 *
 * DESIGN
 * One file sink is one struct llog__file_sink, used by five files:
 *   file.c         the sink proper: write/commit/close/after_fork, the
 *                  pending chunks, the crash path's raw-block frames,
 *                  construction;
 *   file_frames.c  a chunk written as a frame: zstd, the metadata frame,
 *                  a full disk; the chunks written leave the pending ones;
 *   file_writer.c  the writer thread that writes an ordinary round's
 *                  chunks off the flusher, and its handshake;
 *   file_rotate.c  the files on disk: opening, torn-tail repair, rotation
 *                  and retention of rotated files;
 *   file_bin.c     binary mode (LLOG_FILE_BINARY): entries into records,
 *                  call sites into their definitions.
 * The pending chunks are file.c's (its DESIGN: a full disk, the backlog
 * bound). Each group of fields below says which of them writes it. A sink is
 * used by one thread at a time, as every sink is (the constructor, then
 * the flusher, or the crash handler on the flusher's thread), but for
 * what its writer thread owns while it holds chunks (file_writer.c: the
 * handed chunks, the file, the compressor); the crash path writes to fd as
 * it is and never calls into file_rotate.c.
 */
#ifndef LLOG_FILE_H
#define LLOG_FILE_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <zstd.h>

#include "binpack.h"
#include "capture.h"
#include "sink.h"

/* The retry bound: bytes of pending lines or records (two full frames'
 * worth), and pending chunks; a binary chunk started after a short write
 * is at least LLOG__FILE_CHUNK_MIN bytes (file.c), so that the chunks
 * bound leaves the bytes bound its 8 MiB. */
#define LLOG__FILE_PENDING_MAX ((size_t)8 << 20)
#define LLOG__FILE_MAX_CHUNKS 256
#define LLOG__FILE_CHUNK_MIN (LLOG__FILE_PENDING_MAX / LLOG__FILE_MAX_CHUNKS) /* 32 KiB */

/* A binary file's zstd level when llog_file_options.zstd_level is 0
 * (file_frames.c, MEASUREMENT: the binary level). */
#define LLOG__FILE_BIN_LEVEL (-1)

/* One future frame (or, after a short write, several: file.c): whole
 * lines, at most LLOG_FRAME_CONTENT_MAX bytes. */
struct llog__file_chunk {
	size_t start, len;  /* bytes of fs->in */
	uint64_t seq;       /* sequence number of its first record (a lower
			       bound once its first lines went out: gaps) */
	uint64_t records;
	uint32_t sites;     /* binary: site ids allocated up to its end */
	size_t sites_end;   /* binary: bytes of their definitions (file_bin.c) */
	int gaps;           /* its records' sequence numbers are not consecutive */
};

/* Binary mode: the encoder's state within one frame (file_bin.c). */
struct llog__bin_frame {
	int pack;           /* LOG records packed (PLOG): not the crash path's */
	int started;        /* the content header is written */
	uint64_t stamp;     /* its packing stamp (binpack.h) */
	int has_thread;
	uint64_t seq;
	int64_t ts;
	uint64_t tid;
	unsigned char name_len;
	char name[16];
	/* The identity of the thread of the frame's last record when it came
	 * directly (capture.h, struct llog__capture_rec), else NULL: a record
	 * of the same identity skips comparing tid and name. */
	const void *thread;
	uint64_t thread_epoch;
};

/*
 * The writer (file_writer.c): a thread of the sink's own that compresses
 * and writes the chunks an ordinary round's commit hands it, so that the
 * flusher goes on with the next round meanwhile. The chunks ch[0, target)
 * are handed; ch[0, done) of them are written; ch[target, nch) are the
 * flusher's. Who may touch what, and the handshake, are file_writer.c's
 * DESIGN.
 */
struct llog__file_writer {
	pthread_t thread;
	int started_ok;           /* the thread exists (joined at close) */
	int running;              /* it takes chunks (not after a crash) */
	int refused;              /* it could not be started: commits write */
	int abandoned;            /* stuck in a chunk at a crash: the sink is
				     never freed */
	_Atomic uint32_t target;  /* chunks handed (the flusher's) */
	_Atomic uint32_t poke;    /* futex word: the flusher's requests, counted */
	_Atomic uint32_t progress; /* futex word: the writer's reports, counted */
	_Atomic uint32_t done;    /* chunks written (the writer while it
				     works; the flusher while it is idle) */
	_Atomic uint32_t failed;  /* the writer stopped at ch[done]: rc */
	_Atomic uint32_t busy;    /* inside a chunk: the crash path waits */
	_Atomic uint32_t quit;    /* 1: exit; 2: take no further chunk */
	_Atomic uint32_t started; /* futex word: the thread runs */
	int rc;                   /* the error it stopped at */
	size_t chunk_max;         /* the writer's chunk_max (write_chunk) */
	unsigned crash_waited_ms; /* the flusher's waits for it while a crash
				     is reported, since it last finished */
	/* The stall (file_writer.c, DESIGN "Stalls"): the flusher's only. */
	unsigned stall_ms;        /* stall_timeout_ms (llog_file_options) */
	unsigned stall_waited_ms; /* waited since the writer last progressed */
	uint32_t stall_seen;      /* progress then */
	int stalled;              /* declared: the flusher waits no more */
	uint64_t stall_lost;      /* records not stored while stalled */
};

struct llog__file_sink {
	struct llog_sink base; /* first */
	/* The options (file.c, at creation; read only after). */
	char *path;
	int plain, do_fsync;
	int no_writer;          /* LLOG_FILE_WRITER_FLUSHER */
	uint64_t max_bytes, max_total_bytes;
	unsigned interval_s, max_files, max_age_s;
	unsigned check_ms;      /* reopen_check_ms: 0 = never stat the path */
	struct llog_line_options line; /* as written (llog_file_sink; no pattern) */
	struct llog__pattern *pat;     /* its parsed line pattern, or NULL */
	/* The file on disk: file_rotate.c sets these when it opens or rotates
	 * a file; file.c keeps size and need_meta current as it writes. */
	char *dir, *stem, *ext; /* path = dir/stem ext; rotated: dir/stem.TS ext */
	int fd;                 /* -1 while a reopen is pending */
	uint64_t size;          /* bytes in the file, as this sink knows it */
	int64_t period;         /* rotate_interval_s period of the file */
	int need_meta;          /* the file is empty: metadata goes first */
	char *rotated_from;     /* basename the current file replaced */
	unsigned reopen_seen;   /* llog_file_reopen() requests handled */
	int64_t checked_ms;     /* llog__mono_ms() of the last path check */
	/* The pending lines and the frames (file.c only). */
	ZSTD_CCtx *cctx;        /* static: lives in cctx_ws */
	void *cctx_ws;          /* its workspace (cctx_workspace()) */
	char *in;               /* IN_CAP bytes */
	size_t in_base, in_len; /* pending: [in_base, in_len) */
	struct llog__file_chunk ch[LLOG__FILE_MAX_CHUNKS];
	int nch;
	char *out;              /* META_ROOM, then a frame */
	size_t out_cap;
	size_t chunk_max;       /* content bound of new chunks: LLOG_FRAME_CONTENT_MAX,
				   less in binary mode after a short write */
	size_t fit, tried;      /* a failed write: bytes it put out (0: none) of */
	_Atomic long bytes;     /* written since the last commit (relaxed:
				   the writer adds, the commit takes) */
	int err;                /* first error since the last commit */
	int failing;            /* a write failed and none succeeded since */
	/* The crash path (file.c only). */
	char *crash;            /* CRASH_HDR + CRASH_BLOCK: the crash path's frame */
	size_t crash_len;       /* content bytes in it */
	int crash_started;      /* the pending lines are out (crash path) */
	int crash_err;          /* first error of the crash path */
	long crash_bytes;       /* written by the crash path */
	/* Binary mode (file_bin.c; NULL otherwise). file_gen counts the files
	 * opened (file_rotate.c); bin_in_file: site ids whose definitions the
	 * current file holds, valid while bin_gen == file_gen (file.c). */
	struct llog__bin *bin;
	struct llog__bin_frame bin_fr, bin_crash_fr;
	char *sites_out;        /* sites frames before a data frame */
	uint32_t bin_in_file;
	unsigned file_gen, bin_gen;
	struct llog__file_writer w;
};

#define LLOG__FILE_META_ROOM (8 + LLOG_META_MAX) /* before a frame in fs->out */

static inline void llog__file_put_le32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
	p[2] = (unsigned char)(v >> 16);
	p[3] = (unsigned char)(v >> 24);
}

/* ---- file_frames.c ------------------------------------------------------ */

/* Writes chunk c (compressed unless plain) as one frame, or as several
 * when part of a short write fit (file.c, write_chunk); *chunk_max bounds
 * the binary chunks started after a short write. Returns 0, or the error
 * with what is left of c pending. The thread that owns the file: the
 * flusher, or the writer while it holds c. */
int llog__file_write_chunk(struct llog__file_sink *fs, struct llog__file_chunk *c,
			   size_t *chunk_max);
/* Forgets the k oldest chunks and the lines of ch[k] already written
 * (their bytes stay below in_base). */
void llog__file_drop_chunks(struct llog__file_sink *fs, int k);
/* Moves the pending bytes down to the start of fs->in. Nothing handed. */
void llog__file_compact(struct llog__file_sink *fs);
/* Notes the outcome of writing what was pending: rc < 0 an error (counted
 * at the next commit, reported once on stderr), else a success after
 * errors (reported). Flusher. */
void llog__file_note_result(struct llog__file_sink *fs, int rc);
/* Writes the pending chunks, oldest first, until one fails, and drops
 * those written. Flusher, with nothing handed to the writer. */
void llog__file_flush_chunks(struct llog__file_sink *fs);

/* ---- file_writer.c (flusher thread, or whichever thread runs the sink) -- */

/* Hands every pending chunk to the writer, starting it first if it does
 * not run yet: 0; -1 when there is none (it could not be started: the
 * caller writes them itself). Does not wait. */
int llog__file_writer_hand(struct llog__file_sink *fs);
/* When the writer has finished what it was handed (with wait: after
 * waiting for that), takes its results: the chunks it wrote leave the
 * pending ones, its error is noted, and whatever it did not write is the
 * caller's again. Returns whether no chunk is handed now. While a crash is
 * reported, wait is bounded: llog__crash_sink_wait_ms in all until the
 * writer finishes again, then 0 at once (a writer stuck in write(2) must
 * not keep the crash record from the other sinks). Otherwise it is bounded
 * by the sink's stall timeout: a writer without progress for that long is
 * stalled, and until it progresses again collect returns 0 at once
 * (file_writer.c, DESIGN "Stalls"). */
int llog__file_writer_collect(struct llog__file_sink *fs, int wait);
/* The crash path, first: the writer finishes what it was handed (at most
 * a second) and takes nothing more; the chunks it wrote leave the pending
 * ones (not when the crash interrupted the sink). Returns 0, or -1 when
 * the writer is stuck in a chunk (abandoned: the crash path writes nothing
 * to this file). Async-signal-safe. */
int llog__file_writer_crash(struct llog__file_sink *fs, int interrupted);
/* Ends the writer's thread after what it was handed (close). Returns 0,
 * or -1 when the writer is stalled (collect): it is left in its chunk,
 * abandoned, and the sink must never be freed. */
int llog__file_writer_stop(struct llog__file_sink *fs);
/* In a fork child: no writer (a commit starts one again). */
void llog__file_writer_after_fork(struct llog__file_sink *fs);

/* ---- file_bin.c (binary mode) ----------------------------------------- */

/* Allocates the site table (0, or -1 out of memory: free with
 * llog__bin_free, which accepts a sink without one). Constructor. */
int llog__bin_init(struct llog__file_sink *fs);
void llog__bin_free(struct llog__file_sink *fs);
/* Bytes llog__bin_encode may write for e, at most. */
size_t llog__bin_bound(const struct llog__file_sink *fs, const struct llog_entry *e);
/* Appends e's record (after the frame's header when fr is fresh) at dst.
 * Returns the bytes written; 0 when the record cannot be stored. */
size_t llog__bin_encode(struct llog__file_sink *fs, struct llog__bin_frame *fr,
			const struct llog_entry *e, char *dst);
/* The same for a LOG record handed directly (sink.h: write_rec), its
 * record's bound first; its frame is fs->bin_fr, and ch, the chunk it goes
 * to, gets the sites defined for it. Flusher. */
size_t llog__bin_encode_rec(struct llog__file_sink *fs, struct llog__file_chunk *ch,
			    const struct llog__capture_rec *cr, char *dst);

/* The most bytes of text a capture stored as text takes (file_bin.c's
 * fallback_text: its render buffer holds LLOG__CAPTURE_TEXT_MAX). */
static inline size_t llog__bin_text_bound_of(size_t room)
{
	size_t text = room + LLOG__MARKER_LEN;

	return text < LLOG__CAPTURE_TEXT_MAX ? text : LLOG__CAPTURE_TEXT_MAX;
}

static inline size_t llog__bin_text_bound(const struct llog__capture *c)
{
	return llog__bin_text_bound_of(c->room);
}

/* The bound of a record handed directly, inline: it is asked per record.
 * Its header, the thread, the varints, and the body packed or as text. */
static inline size_t llog__bin_rec_bound_of(size_t text, size_t len)
{
	size_t body = len > text ? len : text;

	return 16 + 12 + 16 /* thread */ + 6 * 10 + LLOG__PACK_BOUND(body);
}

static inline size_t llog__bin_rec_bound(const struct llog__capture_rec *cr)
{
	return llog__bin_rec_bound_of(llog__bin_text_bound(&cr->c), cr->c.len);
}

/* A run's records from k on into chunk ch while they fit it (file_bin.c);
 * the index of the first record not stored. */
unsigned llog__bin_encode_run(struct llog__file_sink *fs, struct llog__file_chunk *ch,
			      struct llog__capture_run *run, unsigned k, size_t chunk_max,
			      long *bad);

/* Site ids allocated so far, and the bytes of their definitions. */
uint32_t llog__bin_sites(const struct llog__file_sink *fs);
size_t llog__bin_sites_end(const struct llog__file_sink *fs);
/* Bytes of the sites frames of all ids, at most; the frames of [from, to),
 * where `end` is llog__bin_sites_end() when to was llog__bin_sites() (the
 * writer reads only what was defined before the chunk was handed). */
size_t llog__bin_sites_cap(void);
size_t llog__bin_sites_frames(const struct llog__file_sink *fs, uint32_t from, uint32_t to,
			      size_t end, char *dst);
/* In a fork child: a stream of its own. */
void llog__bin_after_fork(struct llog__file_sink *fs);

/* ---- file_rotate.c ------------------------------------------------------ */

/* Splits fs->path into fs->dir, fs->stem and fs->ext (".zst" or ""), the
 * names rotation and retention use. Allocates; returns 0, or -1 when out of
 * memory or the path has no file name. Constructor only. */
int llog__file_names_init(struct llog__file_sink *fs);

/* Opens fs->path for appending (regular files only, no symbolic link) into
 * fs->fd and sets fs->size, fs->need_meta and fs->period; a compressed
 * file's torn last frame is cut off first. Returns 0 or a negative errno
 * with the reason in llog__sink_error(). Constructor, or flusher with no
 * file open. */
int llog__file_open(struct llog__file_sink *fs);

/* Applies the retention limits (max_files, max_total_bytes, max_age_s) to
 * the rotated files in fs->dir. Allocates. Constructor, or flusher. */
void llog__file_retention(const struct llog__file_sink *fs);

/* The count of llog_file_reopen() requests so far (relaxed: a request
 * publishes nothing but itself). */
unsigned llog__file_reopen_requests(void);

/* Makes fs->fd ready for a frame of frame_len bytes: first follows the file
 * at path when it changed under the sink (a llog_file_reopen() request, a
 * path check that found another file or none, a truncation), then rotates
 * when the frame would take the file past max_bytes or a new
 * rotate_interval_s period began (never an empty file), and reopens when a
 * reopen is pending.
 * Blocks in file system calls; allocates when rotating. Returns 0, or
 * -EBADF when no file is open (the reason went to llog__diag). Flusher
 * thread only, between frames. */
int llog__file_ready(struct llog__file_sink *fs, size_t frame_len);

#endif /* LLOG_FILE_H */
