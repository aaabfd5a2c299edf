/*
 * render.c - records into entries: the message, its truncation marker, the
 * site's fields, drop notices. See render.h.
 */
#include <string.h>

#include "arena.h"
#include "buf.h"
#include "render.h"
#include "site.h"
#include "stats.h"

/* Appends the marker to a cut message and counts it. */
static size_t finish(char *buf, size_t n, int trunc)
{
	if (!trunc)
		return n;
	memcpy(buf + n, LLOG__MARKER, LLOG__MARKER_LEN);
	llog__count(truncated, 1);
	return n + LLOG__MARKER_LEN;
}

static void site_fields(const struct llog_site *site, struct llog_entry *e)
{
	e->level = (enum llog_level)site->level;
	e->line = site->line;
	e->file = site->file;
	e->func = site->func;
	e->suppressed = 0;
	e->backtrace = 0;
}

void llog__render_record(const struct llog__rec *r, char *buf, size_t cap,
			 struct llog__plan *tmp, struct llog_entry *e)
{
	const struct llog_site *site = r->site;
	int trunc = (r->flags & LLOG__REC_TRUNCATED) != 0;
	size_t room = cap - LLOG__MARKER_LEN, n;

	if (r->kind == LLOG__K_TEXT) {
		n = r->len < room ? r->len : room;
		memcpy(buf, llog__rec_payload(r), n);
		if (n == 0 && trunc) {
			/* Arguments too large even to capture: show the
			 * format itself. */
			n = strnlen(site->fmt, room);
			memcpy(buf, site->fmt, n);
		}
	} else {
		n = llog__render(buf, room, site->fmt, llog__site_plan_peek(site, tmp),
				 llog__rec_payload(r), &trunc);
	}
	site_fields(site, e);
	e->tid = r->arena->tid;
	/* The flusher's copy: render_record runs on the flusher (or its
	 * crash drain); sync.c replaces it by the owner's (arena.h). */
	e->thread_name = r->arena->fl_name;
	e->thread_name_len = strlen(e->thread_name);
	e->msg = buf;
	e->msg_len = finish(buf, n, trunc);
	if (__builtin_expect(r->flags & LLOG__REC_SUPPRESSED, 0)) {
		/* The count rides after the payload (producer.c, rate
		 * limits); counted here, on the flusher, off the hot path. */
		memcpy(&e->suppressed, (const char *)llog__rec_payload(r) +
				       ((r->len + 7u) & ~7u), sizeof(e->suppressed));
		llog__count(suppressed, e->suppressed);
	}
}

void llog__render_va(const struct llog_site *site, const struct llog__plan *plan, va_list ap,
		     char *buf, size_t cap, struct llog_entry *e)
{
	int trunc = 0;
	size_t n = llog__format_va(buf, cap - LLOG__MARKER_LEN, site->fmt, plan, ap, &trunc);

	site_fields(site, e);
	e->thread_name = ""; /* the caller's to set */
	e->thread_name_len = 0;
	e->msg = buf;
	e->msg_len = finish(buf, n, trunc);
}

void llog__render_notice(uint64_t tid, uint32_t dropped, char *note, struct llog_entry *e)
{
	struct llog__buf b = LLOG__BUF(note, LLOG__NOTICE_BYTES);

	llog__buf_puts(&b, "llog: thread ");
	llog__buf_num(&b, tid, 10);
	llog__buf_puts(&b, " dropped ");
	llog__buf_num(&b, dropped, 10);
	llog__buf_puts(&b, " records");
	e->level = LLOG_WARN;
	e->tid = tid;
	e->thread_name = ""; /* the caller's to set */
	e->thread_name_len = 0;
	e->file = __FILE__;
	e->func = "drop_notice";
	e->suppressed = 0;
	e->backtrace = 0;
	e->line = __LINE__;
	e->msg = note;
	e->msg_len = b.n;
}
