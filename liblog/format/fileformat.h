/*
 * fileformat.h - the on-disk format of llog's compressed log files, shared by
 * the file sink (backends/file.c) and llogcat (tools/llogcat.c). Internal.
 *
 * DESIGN
 * A log file is a valid zstd stream (RFC 8878): `zstdcat app.log.zst` prints
 * the records. It is a sequence of frames of two kinds:
 *
 *  1. Metadata: a zstd skippable frame (ignored by every zstd tool)
 *       u32le magic LLOG_META_MAGIC, u32le payload size (<= LLOG_META_MAX),
 *       payload: ASCII text, first line "llog-meta V" (V: the file format
 *       version of the text lines that follow, LLOG_META_VERSION), then
 *       "key=value" lines, each ending in '\n'. Keys (since version 1):
 *       host, pid, program,
 *       created_ns (UTC ns since 1970), seq_first (sequence number of the
 *       first record the writer put in this file), format (text|json),
 *       rotated_from (previous file name, when created by rotation).
 *       Readers ignore unknown keys. A writer puts one at the start of every
 *       file it creates; several may appear (two processes appending), and
 *       a reader accepts them anywhere between data frames.
 *  2. Data: an ordinary zstd frame with the content checksum flag set and
 *     the content size in the header, whose content is whole lines (text or
 *     JSON lines as llog_format_entry produces them). A frame never splits a
 *     line and never exceeds LLOG_FRAME_CONTENT_MAX bytes of content; the
 *     writer ends a frame at every commit (and earlier when it reaches that
 *     size, or, after a full disk, when the room is less: backends/file_frames.c). Each frame is written with one write(2), so appenders in other
 *     processes never interleave inside a frame.
 *  3. Crash data: written only by the crash handler when the flusher thread
 *     crashed (backends/file.c, crash path): an ordinary zstd frame too,
 *     whole lines, but made without the compressor: a single-segment header
 *     with a 4-byte content size, one Raw block (<= 128 KiB), and no
 *     content checksum. zstd tools and readers treat it as any data frame.
 *
 * A file that ends in the middle of a frame (crash, power loss, disk full)
 * has a torn tail: readers report it and use every complete frame before it;
 * the writer, on open and after a short write, cuts the file back to the end
 * of its last complete frame (ftruncate) before writing again.
 *
 * Binary mode (LLOG_FILE_BINARY): the same frames, but a data frame's
 * content is binary records (it starts with LLOG_BIN_HEAD, which no line
 * does), and the call sites they name come in skippable frames of magic
 * LLOG_SITES_MAGIC before their first use in each file. The layout, the
 * version rule and what a newer writer may add: docs/file-format.md.
 *
 * Plain mode (the sink's "no compression" choice) writes the same lines as
 * plain text, with no frames and no metadata; llogcat reads such files too.
 */
#ifndef LLOG_FILEFORMAT_H
#define LLOG_FILEFORMAT_H

#include <stddef.h>
#include <stdint.h>

#define LLOG_META_MAGIC 0x184D2A5Bu        /* skippable frame, variant 0xB */
#define LLOG_META_MAX 4096u                /* payload bound */
/* Version 2 (structured fields): a text line escapes '\\' as "\\\\" in its
 * message and may end in a TAB and a field section (docs/fields.md 3).
 * Version 1 files (a '\\' literal, no field section) are still read;
 * llogcat refuses the data frames after a metadata frame of a newer
 * version. */
#define LLOG_META_VERSION 2
#define LLOG_META_HEADER "llog-meta 2\n"
#define LLOG_FRAME_CONTENT_MAX (4u << 20)  /* writer bound per data frame */
#define LLOG_READER_FRAME_MAX (64u << 20)  /* reader refuses bigger claims */
#define LLOG_ZSTD_MAGIC 0xFD2FB528u

/* Binary mode (docs/file-format.md). */
#define LLOG_SITES_MAGIC 0x184D2A5Cu       /* skippable frame, variant 0xC */
#define LLOG_SITES_HEAD "LLS"              /* then the version byte */
#define LLOG_BIN_HEAD "\0LB"               /* data content; then the version */
/* Data frames: version 2 added PLOG records, version 3 their recent
 * strings (binpack.h); a reader refuses a newer version than it knows.
 * Sites frames are still version 1. */
#define LLOG_BIN_VERSION 3u
#define LLOG_BIN_SITES_VERSION 1u
#define LLOG_SITES_MAX (1u << 20)          /* writer bound per sites payload */
/* The check of a sites payload's definitions: FNV-1a, 32 bits. */
static inline uint32_t llog__fnv1a32(const void *p, size_t n)
{
	const unsigned char *b = p;
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 16777619u;
	return h;
}
/* Record tags: kind in the low 3 bits, flags above. */
#define LLOG_BIN_LOG 1u                    /* site, dts, captured arguments */
#define LLOG_BIN_TEXT 2u                   /* site, dts, the message as text */
#define LLOG_BIN_THREAD 3u                 /* tid, name: the records after it */
#define LLOG_BIN_PLOG 4u                   /* as LOG, the arguments packed (binpack.h) */
#define LLOG_BIN_F_SEQ 0x08u               /* a sequence gap follows */
#define LLOG_BIN_F_SUPP 0x10u              /* a suppressed count follows */
#define LLOG_BIN_F_TRUNC 0x20u             /* the capture was cut */
#define LLOG_BIN_F_EXT 0x40u               /* an extension blob follows (skipped) */
/* The extension blob: items, each u8 kind, varint n, n bytes; a reader
 * skips kinds it does not know. */
#define LLOG_BIN_EXT_FIELDS 1u             /* the entry's fields */
/* A field's type byte: enum llog_field_type, | this when the string was cut. */
#define LLOG_BIN_FIELD_CUT 0x10u
#define LLOG_BIN_F_BT 0x80u                /* a backtrace entry (no field follows) */
/* Site kinds. */
#define LLOG_BIN_SITE_LOG 0u               /* format and argument plan */
#define LLOG_BIN_SITE_TEXT 1u              /* file, line, function, level only */

#endif /* LLOG_FILEFORMAT_H */
