/*
 * render.c - records into entries: the message, its truncation marker, the
 * site's fields, drop notices. See render.h.
 */
#include <string.h>

#include "arena.h"
#include "buf.h"
#include "fmt_cache.h"
#include "capture.h"
#include "levels.h"
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

__thread struct llog__capture llog__cur_capture __attribute__((tls_model("initial-exec")));

/* c, the capture of the LOG record r, for the entry e (or NULL). */
static void fill_capture(struct llog__capture *c, const struct llog__rec *r,
			 const struct llog__plan *plan, size_t room, const struct llog_entry *e)
{
	c->site = r->site;
	c->gen = llog__fmt_cache_gen();
	c->fmt = r->site->fmt;
	c->plan = plan;
	c->args = llog__rec_payload(r);
	c->len = r->len;
	c->room = room;
	c->truncated = (r->flags & LLOG__REC_TRUNCATED) != 0;
	c->entry = e;
}

/* Notes the capture of a LOG record beside e (capture.h). */
static void note_capture(const struct llog__rec *r, const struct llog__plan *plan, size_t room,
			 const struct llog_entry *e)
{
	fill_capture(&llog__cur_capture, r, plan, room, e);
}

/* The rate-limit count that rides after the payload (producer.c); counted
 * here, on the flusher, off the hot path. */
static void suppressed_count(const struct llog__rec *r, struct llog_entry *e)
{
	if (__builtin_expect(r->flags & LLOG__REC_SUPPRESSED, 0)) {
		memcpy(&e->suppressed, (const char *)llog__rec_payload(r) +
				       ((r->len + 7u) & ~7u), sizeof(e->suppressed));
		llog__count(suppressed, e->suppressed);
	}
}

static void site_fields(const struct llog_site *site, struct llog_entry *e)
{
	e->level = (enum llog_level)llog__site_level(site);
	e->line = site->line;
	e->file = site->file;
	e->func = site->func;
	e->suppressed = 0;
	e->category = llog__site_category(site);
	e->category_len = e->category != NULL ? strlen(e->category) : 0;
	e->backtrace = 0;
	e->fields = NULL; /* filled by the caller where the record has any */
	e->nfields = 0;
	e->fields_truncated = 0;
}

void llog__render_record(const struct llog__rec *r, char *buf, size_t cap,
			 struct llog__plan *tmp, struct llog_entry *e)
{
	llog__render_record_cached(r, buf, cap, tmp, NULL, e);
}

void llog__render_record_cached(const struct llog__rec *r, char *buf, size_t cap,
				struct llog__plan *tmp, struct llog__fmt_cache *cache,
				struct llog_entry *e)
{
	const struct llog_site *site = r->site;
	int trunc = (r->flags & LLOG__REC_TRUNCATED) != 0;
	size_t room = cap - LLOG__MARKER_LEN, n;

	llog__capture_clear();
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
		const struct llog__fmt_prog *prog = llog__fmt_cache_get(cache, site);
		const struct llog__plan *plan = llog__site_plan_peek(site, tmp);

		if (prog != NULL)
			n = llog__fmt_render_prog(buf, room, prog, plan, llog__rec_payload(r),
						  &trunc);
		else
			n = llog__fmt_render(buf, room, site->fmt, plan, llog__rec_payload(r),
					     &trunc);
		note_capture(r, plan, room, e);
	}
	site_fields(site, e);
	e->tid = r->arena->tid;
	/* The flusher's copy: render_record runs on the flusher (or its
	 * crash drain); sync.c replaces it by the owner's (arena.h). */
	e->thread_name = r->arena->fl_name;
	e->thread_name_len = r->arena->fl_name_len;
	e->msg = buf;
	e->msg_len = finish(buf, n, trunc);
	suppressed_count(r, e);
}

void llog__render_capture(const struct llog__rec *r, size_t cap, struct llog__plan *tmp,
			  struct llog_entry *e)
{
	site_fields(r->site, e);
	e->tid = r->arena->tid;
	e->thread_name = r->arena->fl_name; /* the flusher's copy, as above */
	e->thread_name_len = r->arena->fl_name_len;
	e->msg = NULL;
	e->msg_len = 0;
	if (r->flags & LLOG__REC_TRUNCATED)
		llog__count(truncated, 1); /* as finish() would */
	note_capture(r, llog__site_plan_peek(r->site, tmp), cap - LLOG__MARKER_LEN, e);
	suppressed_count(r, e);
}

void llog__render_capture_rec(const struct llog__rec *r, size_t cap, struct llog__plan *tmp,
			      struct llog__capture_rec *cr)
{
	struct llog_entry e;

	fill_capture(&cr->c, r, llog__site_plan_peek(r->site, tmp), cap - LLOG__MARKER_LEN, NULL);
	if (cr->c.truncated)
		llog__count(truncated, 1); /* as finish() would */
	cr->level = llog__site_level(r->site);
	cr->tid = r->arena->tid;
	cr->thread_name = r->arena->fl_name; /* the flusher's copy, as above */
	cr->thread_name_len = r->arena->fl_name_len;
	cr->thread = r->arena;
	e.suppressed = 0;
	suppressed_count(r, &e);
	cr->suppressed = e.suppressed;
}

/* llog__render_capture_run's rare parts, out of its way: the counts of a
 * cut or rate-limited record, and the fields of a site or thread that the
 * record before it in the run does not share. */
static __attribute__((noinline)) void capture_run_flags(struct llog__capture_rec *cr,
							 const struct llog__rec *r)
{
	struct llog_entry e;

	cr->c.truncated = (r->flags & LLOG__REC_TRUNCATED) != 0;
	if (cr->c.truncated)
		llog__count(truncated, 1); /* as finish() would */
	e.suppressed = 0;
	suppressed_count(r, &e);
	cr->suppressed = e.suppressed;
}

static __attribute__((noinline)) void capture_run_streak(struct llog__capture_rec *cr, unsigned n,
							  const struct llog__rec *r)
{
	const struct llog__capture_rec *prev = cr - (n > 0);
	const struct llog_site *site = r->site;

	if (n == 0 || prev->c.site != site) {
		cr->c.fmt = site->fmt;
		cr->c.plan = llog__site_published(site); /* READY: the caller's */
		cr->level = llog__site_level(site);
		cr->site_at = (uint8_t)n;
	} else {
		cr->site_at = prev->site_at;
	}
	if (n == 0 || prev->thread != r->arena) {
		cr->tid = r->arena->tid;
		cr->thread_name = r->arena->fl_name; /* the flusher's copy, as above */
		cr->thread_name_len = r->arena->fl_name_len;
		cr->thread_at = (uint8_t)n;
	} else {
		cr->thread_at = prev->thread_at;
	}
}

void llog__render_capture_run(struct llog__capture_run *run, const struct llog__rec *r, int same,
			      uint64_t seq, int64_t ts)
{
	unsigned n = run->n;
	struct llog__capture_rec *cr = &run->cr[n];

	cr->c.site = r->site;
	cr->c.args = llog__rec_payload(r);
	cr->c.len = r->len;
	cr->c.truncated = 0;
	cr->thread = r->arena;
	cr->seq = seq;
	cr->ts_ns = ts;
	cr->suppressed = 0;
	if (__builtin_expect(r->flags & (LLOG__REC_TRUNCATED | LLOG__REC_SUPPRESSED), 0))
		capture_run_flags(cr, r);
	if (__builtin_expect(same, 1)) /* n > 0 */
		memcpy(&cr->site_at, &cr[-1].site_at, 2); /* and thread_at */
	else
		capture_run_streak(cr, n, r);
}

void llog__capture_rec_entry(const struct llog__capture_rec *cr, struct llog_entry *e)
{
	site_fields(cr->c.site, e);
	e->tid = cr->tid;
	e->thread_name = cr->thread_name;
	e->thread_name_len = cr->thread_name_len;
	e->msg = NULL;
	e->msg_len = 0;
	e->seq = cr->seq;
	e->ts_ns = cr->ts_ns;
	e->suppressed = cr->suppressed;
}

void llog__render_va(const struct llog_site *site, const struct llog__plan *plan, va_list ap,
		     char *buf, size_t cap, struct llog_entry *e)
{
	int trunc = 0;
	size_t n;

	llog__capture_clear();
	n = llog__fmt_format_va(buf, cap - LLOG__MARKER_LEN, site->fmt, plan, ap, &trunc);

	site_fields(site, e);
	e->thread_name = ""; /* the caller's to set */
	e->thread_name_len = 0;
	e->msg = buf;
	e->msg_len = finish(buf, n, trunc);
}

void llog__render_notice(uint64_t tid, uint32_t dropped, char *note, struct llog_entry *e)
{
	struct llog__buf b = LLOG__BUF(note, LLOG__NOTICE_BYTES);

	llog__capture_clear();
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
	e->category = NULL;
	e->category_len = 0;
	e->backtrace = 0;
	e->fields = NULL;
	e->nfields = 0;
	e->fields_truncated = 0;
	e->line = __LINE__;
	e->msg = note;
	e->msg_len = b.n;
}
