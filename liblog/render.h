/*
 * render.h - a record into the entry the sinks see (internal).
 *
 * DESIGN
 * The one renderer of llog: the flusher, its crash drain and the
 * synchronous path (sync.c) all turn records into struct llog_entry here,
 * so every output of a record is the same. A message that did not fit (at
 * capture or at rendering) ends with LLOG__MARKER and is counted once in
 * stats.truncated, whichever path wrote it. A record whose arguments were
 * too large even to capture shows its format string instead. Pure code
 * (async-signal-safe) except llog__fmt_render's snprintf fallback (fmt.h).
 *
 *   render(fmt, plan, capture(plan, args)) == snprintf(fmt, args)
 */
#ifndef LLOG_RENDER_H
#define LLOG_RENDER_H

#include <stdarg.h>
#include <stddef.h>

#include "fmt.h"
#include "fmt_cache.h"
#include "llog/sinks.h"
#include "queue.h"

/* LLOG__MARKER, the mark of a cut message: fmt.h. */
/* A drop notice's text, at most. */
#define LLOG__NOTICE_BYTES 96

/*
 * Renders the message of r (LOG or TEXT) into buf[0..cap), the marker
 * included (cap > LLOG__MARKER_LEN), and sets e's level, site fields, tid
 * and message; e->seq and e->ts_ns are the caller's. *tmp is scratch for a
 * plan that is not published yet.
 */
void llog__render_record(const struct llog__rec *r, char *buf, size_t cap,
			 struct llog__plan *tmp, struct llog_entry *e);

/* The same, with the site's compiled format from cache (fmt_cache.h;
 * NULL: none), the flusher's rounds only: the output is the same. */
void llog__render_record_cached(const struct llog__rec *r, char *buf, size_t cap,
				struct llog__plan *tmp, struct llog__fmt_cache *cache,
				struct llog_entry *e);

/* The same for a LOG record whose message no sink needs (capture.h): every
 * field but the message (msg NULL, msg_len 0), and the capture beside e
 * (cap: the bound llog__render_record would have had). A capture that was
 * cut counts in stats.truncated here; a message that rendering would cut
 * is cut only when it is read (llogcat), and not counted. */
void llog__render_capture(const struct llog__rec *r, size_t cap, struct llog__plan *tmp,
			  struct llog_entry *e);

/* The same as a capture handed to the sinks directly (capture.h: the
 * direct path): cr's capture, level, thread and suppressed count (counted,
 * as the truncation); its seq, ts_ns and thread_epoch are the caller's. */
struct llog__capture_rec;
void llog__render_capture_rec(const struct llog__rec *r, size_t cap, struct llog__plan *tmp,
			      struct llog__capture_rec *cr);
/* The LOG record r, whose site's plan is published (LLOG__SITE_READY),
 * as the next record of run (capture.h: run->cr[run->n], not counted in
 * run->n), with sequence number seq and time ts; same: r is of the site
 * and the thread of the record before it in the run, else its site's and
 * thread's fields are taken where they differ from that record's. The
 * run's room, gen and thread_epoch are the caller's. Counts what
 * llog__render_capture_rec counts. Flusher thread. */
struct llog__capture_run;
void llog__render_capture_run(struct llog__capture_run *run, const struct llog__rec *r, int same,
			      uint64_t seq, int64_t ts);

/* The same for a call rendered at once from its va_list (no record). */
void llog__render_va(const struct llog_site *site, const struct llog__plan *plan, va_list ap,
		     char *buf, size_t cap, struct llog_entry *e);

/* The call block of a LOG_*_KV record (kv.h), or NULL. */
static inline const void *llog__rec_fields(const struct llog__rec *r)
{
	if (!(r->flags & LLOG__REC_FIELDS))
		return NULL;
	return (const char *)llog__rec_payload(r) + ((r->len + 7u) & ~7u) +
	       ((r->flags & LLOG__REC_SUPPRESSED) ? 8u : 0u);
}

/* The entry "llog: thread T dropped N records" (WARN), its text in
 * note[LLOG__NOTICE_BYTES]; e->seq and e->ts_ns are the caller's. */
void llog__render_notice(uint64_t tid, uint32_t dropped, char *note, struct llog_entry *e);

#endif /* LLOG_RENDER_H */
