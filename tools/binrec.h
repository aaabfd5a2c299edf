/*
 * binrec.h - binary records (LLOG_FILE_BINARY) into the lines the text mode
 * writes (tools-internal; the format: docs/file-format.md).
 *
 * DESIGN
 * The frame reader (reader.h) hands over whole, checked frames; this turns
 * a sites frame's payload into call-site tables and a binary data frame's
 * content into entries, rendered with liblog's own renderer (llog__fmt_render,
 * fmt.h) and line formatter (llog__line_format, line.h), linked in (the
 * format unit, liblog/format/): the
 * line of a binary record is byte for byte the line the text-mode file
 * sink writes for the same record (UTC nanoseconds, the function: the
 * compressed text file's line).
 *
 * Hostile input: every length is checked against the bytes present, a
 * site's argument plan is parsed again from its format and must equal the
 * stored one, and a record's argument bytes must be exactly what that plan
 * captures, before anything is rendered; a bad record ends its frame with
 * a reason (the records before it were delivered). Memory is bounded by
 * the input (sites: at most LCB_MAX_SITES per stream, LCB_MAX_STREAMS
 * streams, the oldest forgotten).
 *
 * Not thread-safe: one decoder per thread.
 */
#ifndef LLOGCAT_BINREC_H
#define LLOGCAT_BINREC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <llog/sinks.h>

#define LCB_MAX_SITES (1u << 20)
#define LCB_MAX_STREAMS 64

struct lcb;

/* Called for each record: e as the sink had it (msg rendered), and its
 * line (no '\n') in the format asked for. Both valid during the call. */
typedef void lcb_out(void *ctx, const struct llog_entry *e, const char *line, size_t len);

/* A decoder with no sites. NULL when out of memory. */
struct lcb *lcb_new(void);
/* Accepts NULL. */
void lcb_free(struct lcb *b);
/* Whether a sites frame's payload is ours (starts with "LLS"). */
bool lcb_is_sites(const char *p, size_t n);
/* Whether a data frame's content is binary records. */
bool lcb_is_binary(const char *p, size_t n);
/* Takes a sites frame's payload. 0, or -1 with the reason in *why
 * (static). */
int lcb_sites(struct lcb *b, const char *p, size_t n, const char **why);
/* Renders each record of a binary data frame's content in format (text or
 * JSON lines) through out. Returns 0, or -1 when a bad record stopped the
 * frame (the records before it were delivered), with the reason in *why.
 * -ENOMEM-like failures are reasons too ("out of memory"). */
int lcb_frame(struct lcb *b, const char *p, size_t n, enum llog_format format, lcb_out *out,
	      void *ctx, const char **why);

#endif /* LLOGCAT_BINREC_H */
