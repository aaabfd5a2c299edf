/*
 * sync.c - records written to stderr by the calling thread. See sync.h.
 */
#define _GNU_SOURCE
#include <sys/syscall.h>
#include <string.h>
#include <unistd.h>

#include "arena.h"
#include "clock.h"
#include "kv.h"
#include "render.h"
#include "sink.h"
#include "stats.h"
#include "sync.h"

/* Room for the longest message (LLOG__SYNC_MSG and the marker) escaped
 * (at most 4 bytes a byte) and the header: such a line is never cut. A
 * longer one (a source file name of hundreds of bytes) is cut with the
 * marker and counted (llog__sink_format_line). */
#define LINE_BYTES (4 * (LLOG__SYNC_MSG + LLOG__MARKER_LEN) + 512)

/* The calling thread's name, the owner's copy (arena.h): "" when it has
 * no arena (never logged, or llog's own thread: a NULL; sync.h). */
static void own_name(struct llog_entry *e, const struct llog__arena *a)
{
	e->thread_name = a != NULL ? a->name : "";
	e->thread_name_len = strlen(e->thread_name);
}

/* Stamps e with the wall clock and writes it as one text line. */
static void write_line(struct llog_entry *e)
{
	char line[LINE_BYTES];
	size_t n;

	e->seq = 0;
	e->ts_ns = (int64_t)llog__clock_realtime_ns();
	n = llog__sink_format_line(e, LLOG_FORMAT_TEXT, NULL, NULL, line, sizeof(line));
	(void)llog__write_all(2, line, n, 1000);
}

void llog__sync_record(const struct llog__rec *r, const struct llog__arena *self,
		       const void *ctx)
{
	char msg[LLOG__SYNC_MSG + LLOG__MARKER_LEN];
	struct llog__plan tmp;
	struct llog_entry e;

	struct llog_field fields[LLOG_FIELDS_MAX];

	llog__render_record(r, msg, sizeof(msg), &tmp, &e);
	own_name(&e, self); /* on the owner: not the flusher's copy */
	llog__fields_entry(ctx, llog__rec_fields(r), fields, &e);
	write_line(&e);
	llog__count_written(1);
}

void llog__sync_va(const struct llog_site *site, const struct llog__plan *plan, va_list ap,
		   const struct llog__kv_site *ks, const union llog__kv_val *v,
		   const struct llog__arena *self, const void *ctx)
{
	char msg[LLOG__SYNC_MSG + LLOG__MARKER_LEN];
	struct llog_field fields[LLOG_FIELDS_MAX];
	uint64_t call[LLOG__SYNC_MSG / 8];
	uint32_t slen[LLOG_FIELDS_MAX], n = 0;
	struct llog_entry e;

	llog__render_va(site, plan, ap, msg, sizeof(msg), &e);
	e.tid = (uint64_t)syscall(SYS_gettid);
	own_name(&e, self);
	if (ks != NULL) {
		(void)llog__kv_call_measure(ks, v, sizeof(call), slen, &n);
		llog__kv_call_write(ks, v, slen, n, call);
	}
	llog__fields_entry(ctx, ks != NULL ? call : NULL, fields, &e);
	write_line(&e);
	llog__count_written(1);
}

void llog__sync_notice(uint64_t tid, uint32_t dropped)
{
	char note[LLOG__NOTICE_BYTES];
	struct llog_entry e;

	llog__render_notice(tid, dropped, note, &e);
	write_line(&e);
}
