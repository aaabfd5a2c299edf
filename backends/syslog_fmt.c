/*
 * syslog_fmt.c - the syslog sink's messages: an entry as one RFC 5424
 * message, the text of the drop notice, the header's tokens.
 *
 * DESIGN
 * A message is
 *   <PRI>1 TIMESTAMP HOST APP PROCID MSGID [llog@32473 file="F" line="L" tid="T"
 *   func="FN"] MSG
 *   PRI == facility * 8 + severity   (TRACE, DEBUG 7; INFO 6; WARN 4;
 *                                     ERROR 3; FATAL 2)
 * with TIMESTAMP the entry's time in UTC with microseconds (RFC 3339, 'Z'),
 * PROCID the pid, MSGID the entry's category (llog.h, "Categories"), or
 * the level name for the default category, F the base name of the source file
 * and FN the function (__func__), both with '"', '\' and ']' escaped
 * (RFC 5424 6.3.3; func last, so that readers of the older header that
 * match file, line and tid in order keep working; after func, only when
 * the entry has a count of calls its rate-limited site suppressed,
 * suppressed="N", llog.h; then, only for a category, category="C", the
 * whole name; then, for an entry of the backtrace, backtrace="1"), and MSG
 * the entry's text
 * as it is (no BOM). HOST and APP are tokens made once, when the sink is
 * made (llog__syslog_token). A message is bounded only by the caller's
 * buffer; the transport's limit is applied when it is framed
 * (syslog_transport.c).
 *
 * The notice about drops has the same header at WARN, the time it is made
 * and msgid "llog", no structured data, and says how many messages were
 * dropped and, after a TCP connection broke, that messages in flight may be
 * lost. These functions only format: the sink (syslog.c) decides when a
 * notice is due and resets what it reports.
 *
 * Why MSGID and not APP-NAME for the category: APP-NAME names the
 * program, and collectors route and filter on it ($programname in
 * rsyslog, the journal's SYSLOG_IDENTIFIER): one service would become
 * many. MSGID is RFC 5424's "type of message" (6.2.7), made for
 * filtering, and the level it held so far is already in PRI. MSGID is at
 * most 32 printable ASCII bytes: a longer name is cut there (and a byte
 * outside '!'..'~' becomes '_'); the SD-PARAM has the whole name.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "syslog_sink.h"

/* SD-PARAM value with '"', '\' and ']' escaped (RFC 5424 6.3.3). */
static void put_sd_value(struct llog__buf *b, const char *s)
{
	for (; *s != '\0'; s++) {
		if (*s == '"' || *s == '\\' || *s == ']')
			llog__buf_putc(b, '\\');
		llog__buf_putc(b, *s);
	}
}

static int severity(enum llog_level l)
{
	static const int sev[] = {7, 7, 6, 4, 3, 2};

	return (unsigned)l < LLOG_OFF ? sev[l] : 6;
}

/* The header up to and including the MSGID and a space. */
static void put_header(const struct llog__syslog_sink *s, struct llog__buf *b, int sev,
		       int64_t ts_ns, const char *msgid)
{
	char t[32];

	llog__buf_putc(b, '<');
	llog__buf_num(b, (uint64_t)(s->facility * 8 + sev), 10);
	llog__buf_puts(b, ">1 ");
	/* RFC 3339 with microseconds: the first 26 bytes of llog's
	 * nanosecond timestamp, then 'Z'. */
	llog__ts_rfc3339(t, ts_ns);
	llog__buf_put(b, t, 26);
	llog__buf_puts(b, "Z ");
	llog__buf_puts(b, s->host);
	llog__buf_putc(b, ' ');
	llog__buf_puts(b, s->app);
	llog__buf_putc(b, ' ');
	llog__buf_num(b, (uint64_t)s->pid, 10);
	llog__buf_putc(b, ' ');
	llog__buf_puts(b, msgid);
	llog__buf_putc(b, ' ');
}

size_t llog__syslog_format(const struct llog__syslog_sink *s, const struct llog_entry *e,
			   char *out, size_t cap)
{
	struct llog__buf b = LLOG__BUF(out, cap);
	const char *base = strrchr(e->file, '/');
	char t[64];

	char msgid[33];
	size_t cl = e->category != NULL ? strnlen(e->category, e->category_len) : 0;

	if (cl == 0) {
		snprintf(msgid, sizeof(msgid), "%s", llog_level_name(e->level));
	} else {
		size_t i;

		for (i = 0; i < cl && i < 32; i++) {
			unsigned char c = (unsigned char)e->category[i];

			msgid[i] = c > 0x20 && c < 0x7f ? (char)c : '_';
		}
		msgid[i] = '\0';
	}
	put_header(s, &b, severity(e->level), e->ts_ns, msgid);
	llog__buf_puts(&b, "[llog@32473 file=\"");
	put_sd_value(&b, base != NULL ? base + 1 : e->file);
	snprintf(t, sizeof(t), "\" line=\"%d\" tid=\"%llu\" func=\"", e->line,
		 (unsigned long long)e->tid);
	llog__buf_puts(&b, t);
	put_sd_value(&b, e->func != NULL ? e->func : "");
	if (e->suppressed != 0) {
		snprintf(t, sizeof(t), "\" suppressed=\"%llu",
			 (unsigned long long)e->suppressed);
		llog__buf_puts(&b, t);
	}
	if (cl != 0) {
		/* NUL-terminated (struct llog_entry). */
		llog__buf_puts(&b, "\" category=\"");
		put_sd_value(&b, e->category);
	}
	if (e->backtrace) /* an entry of the backtrace (llog.h) */
		llog__buf_puts(&b, "\" backtrace=\"1");
	llog__buf_puts(&b, "\"] ");
	if (e->msg_len > b.cap - b.n) {
		/* Longer than a message of this sink can be: cut where a UTF-8
		 * character starts, marked and counted (the transport's own
		 * cut, for UDP and RELP, comes later and is counted there). */
		static const char mark[] = "...[truncated]";
		size_t keep = b.cap - b.n > sizeof(mark) - 1 ? b.cap - b.n - (sizeof(mark) - 1) : 0;

		while (keep > 0 && ((unsigned char)e->msg[keep] & 0xC0) == 0x80)
			keep--;
		llog__buf_put(&b, e->msg, keep);
		llog__buf_puts(&b, mark);
		llog__count_truncated();
		return b.n;
	}
	llog__buf_put(&b, e->msg, e->msg_len);
	return b.n;
}

/* The notice about drops / a broken connection. */
size_t llog__syslog_notice(const struct llog__syslog_sink *s, char *m, size_t cap)
{
	struct llog__buf b = LLOG__BUF(m, cap);

	put_header(s, &b, 4, (int64_t)llog__clock_realtime_ns(), "llog");
	llog__buf_puts(&b, "- llog: ");
	llog__buf_num(&b, s->dropped, 10);
	llog__buf_puts(&b, " messages dropped (buffer full)");
	if (s->broke)
		llog__buf_puts(&b, "; connection to the collector was lost: messages in flight "
				   "then may be lost");
	return b.n;
}

/* Copies src into dst (cap bytes) keeping printable US-ASCII except space
 * (RFC 5424 PRINTUSASCII), others as '_'; "-" when empty. */
void llog__syslog_token(char *dst, size_t cap, const char *src)
{
	size_t i;

	for (i = 0; src != NULL && src[i] != '\0' && i + 1 < cap; i++)
		dst[i] = (src[i] > 32 && src[i] < 127) ? src[i] : '_';
	if (i == 0)
		dst[i++] = '-';
	dst[i] = '\0';
}
