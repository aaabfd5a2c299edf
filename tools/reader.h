/*
 * reader.h - llogcat's frame reader and record parser (tools-internal).
 *
 * DESIGN
 * The reader turns the bytes of an llog file (liblog/format/fileformat.h), fed in
 * any number of pieces, into events: a decoded data frame, a metadata frame,
 * another skippable frame, or a damaged frame with its offset and a reason.
 * It never emits a partial frame: a data frame is returned only after all of
 * it is buffered, zstd decoded it whole and, when the frame carries one, its
 * content checksum matched. Memory is bounded for hostile input: a frame may
 * claim at most LLOG_READER_FRAME_MAX bytes of content, and a claim larger
 * than its blocks can hold is refused before anything is allocated for it.
 * After a damaged frame the reader scans forward for the next zstd or
 * skippable magic; candidates that fail to decode inside that damaged region
 * are skipped without another report (one report per damaged region).
 *
 * Offsets: good_end == end offset of the last good frame, so a repair that
 * cuts the file there never removes a good frame.
 *
 * Not thread-safe: one reader per thread.
 */
#ifndef LLOGCAT_READER_H
#define LLOGCAT_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum lcr_kind {
	LCR_MORE = 0,    /* nothing more from the bytes fed so far */
	LCR_DATA = 1,    /* data: decoded content (whole lines) */
	LCR_META = 2,    /* data: llog metadata payload */
	LCR_SKIP = 3,    /* another skippable frame, ignored */
	LCR_DAMAGED = 4, /* reason: why; the frame is skipped */
	LCR_SITES = 5,   /* data: a binary file's call sites payload (binrec.h) */
};

struct lcr_event {
	enum lcr_kind kind;
	uint64_t off;       /* file offset of the frame */
	uint64_t size;      /* its size in the file (0 for LCR_DAMAGED) */
	const char *data;   /* valid until the next lcr_* call on this reader */
	size_t len;
	const char *reason; /* static string, LCR_DAMAGED only */
};

struct lcr;

/* A reader positioned at file offset 0. NULL when out of memory. */
struct lcr *lcr_new(void);
/* Accepts NULL. */
void lcr_free(struct lcr *r);
/* Drops buffered bytes and restarts at file offset `off`. */
void lcr_reset(struct lcr *r, uint64_t off);
/* Appends the next n bytes of the file. 0, or -ENOMEM. */
int lcr_feed(struct lcr *r, const void *p, size_t n);
/* Next event. With eof false, an incomplete frame waits for more input
 * (LCR_MORE); with eof true it is reported as damaged ("truncated"). */
enum lcr_kind lcr_next(struct lcr *r, bool eof, struct lcr_event *ev);
/* End offset of the last good frame (0 before any). */
uint64_t lcr_good_end(const struct lcr *r);
/* File offset just past the bytes fed so far. */
uint64_t lcr_fed_end(const struct lcr *r);

/* True when the first bytes of a file start an llog/zstd frame. */
bool lcr_is_framed(const void *p, size_t n);

/* Metadata payload fields; absent ones stay 0/false. */
struct lcr_meta {
	bool valid;           /* payload starts with "llog-meta " */
	unsigned version;     /* V of "llog-meta V" (1, 2, ...); 0: not a number */
	bool has_created, has_seq;
	int64_t created_ns;
	uint64_t seq_first;
	bool json;            /* format=json */
	bool line_func;       /* line=func: text lines carry "func() " */
};
void lcr_parse_meta(const char *p, size_t n, struct lcr_meta *m);

/* One record line, text or JSON layout (liblog/format/line.c). The text layout
 *   TS LEVEL [TID] FILE:LINE MSG
 * with, per the writer's line options, TS of any precision and zone,
 * "[TID NAME]", and "FUNC() " before MSG. */
struct lcr_record {
	bool is_json;
	bool has_ts;
	int64_t ts_ns;
	int level;            /* 0..5 (LLOG_TRACE..LLOG_FATAL), -1 unknown */
	const char *ts; size_t ts_len;     /* as written */
	const char *msg; size_t msg_len;   /* text: as written (escaped); JSON: raw string body */
	/* text layout only: */
	bool parsed;          /* whole text layout recognised */
	const char *thread; size_t thread_len;
	const char *file; size_t file_len;
	const char *lineno; size_t lineno_len;
	/* text: "[TID NAME]" (NAME as written, escaped); JSON: "thread_name" */
	const char *thread_name; size_t thread_name_len;
	/* text (with func_layout): FUNC of "FUNC() "; JSON: "func"; NULL: none */
	const char *func; size_t func_len;
	/* text: CATEGORY of "LEVEL CATEGORY [TID]" (as written); JSON:
	 * "category"; NULL: the default category */
	const char *category; size_t category_len;
	/* text: the field section (docs/fields.md 3), what follows the
	 * line's first TAB (not part of msg); JSON: from the '{' of the
	 * "fields" member to the end of the line; NULL: none */
	const char *fields; size_t fields_len;
};
/* A text line is read without a function. A TAB ends the message of a text
 * line (file format version 2): what follows it is rec->fields. */
void lcr_parse_record(const char *line, size_t len, struct lcr_record *rec);
/* func_layout: a text line has "FUNC() " after FILE:LINE (the metadata's
 * line=func); the function then ends at the first "() " (a line without
 * one has none). */
void lcr_parse_record_ex(const char *line, size_t len, bool func_layout, struct lcr_record *rec);
/* As lcr_parse_record_ex for a text line of file format `version`: below 2
 * there is no field section (a TAB is part of the line: version 1 wrote a
 * file's base name raw). */
void lcr_parse_record_v(const char *line, size_t len, bool func_layout, unsigned version,
			struct lcr_record *rec);
/* Formats ns as local time (localtime_r, TZ) with `frac` fraction digits
 * (0..9, cut) and the offset: 2026-12-03T09:19:42.123+01:00. Returns the
 * length (at most 35) written into buf[36] (NUL-terminated). */
size_t lcr_format_local(int64_t ns, int frac, char buf[36]);

/* Level name ("TRACE".."FATAL") for 0..5, case-insensitive parse back, -1 if unknown. */
const char *lcr_level_name(int level);
int lcr_level_parse(const char *s, size_t n);

/* RFC 3339 timestamp (date, optional time, fraction and offset) -> ns since
 * 1970 UTC. 0 on success, -1 if malformed. */
int lcr_parse_rfc3339(const char *s, size_t n, int64_t *ns);
/* Formats ns as 2026-12-03T08:19:42.123456789Z into buf[31]. */
void lcr_format_ts(int64_t ns, char buf[31]);

#endif /* LLOGCAT_READER_H */
