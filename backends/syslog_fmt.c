/*
 * syslog_fmt.c - the syslog sink's messages: an entry as one RFC 5424
 * message, the text of the drop notice, the header's tokens.
 *
 * DESIGN
 * A message is
 *   <PRI>1 TIMESTAMP HOST APP PROCID MSGID [llog@32473 file="F" line="L" tid="T"
 *   func="FN" level="LEVEL"] MSG
 *   PRI == facility * 8 + severity   (TRACE, DEBUG 7; INFO 6; WARN 4;
 *                                     ERROR 3; FATAL 2)
 * with TIMESTAMP the entry's time in UTC with microseconds (RFC 3339, 'Z'),
 * PROCID the pid, MSGID the entry's category (llog.h, "Categories"), or
 * the level name for the default category, F the base name of the source file
 * and FN the function (__func__), both with '"', '\' and ']' escaped
 * (RFC 5424 6.3.3; func after them, so that readers of the older header
 * that match file, line and tid in order keep working), LEVEL the level's
 * name (TRACE ... FATAL: PRI's severity is the same for TRACE and DEBUG,
 * and MSGID is the category), then, only when
 * the entry has a count of calls its rate-limited site suppressed,
 * suppressed="N", llog.h; then, only for a category, category="C", the
 * whole name; then, for an entry of the backtrace, backtrace="1"; then,
 * when fields were left out or cut, fields_truncated="N"), then, for an
 * entry with fields, [fields@32473 ...] (below), and MSG
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

/* ---- fields (docs/fields.md 5) ---------------------------------------------
 *
 * [fields@32473 NAME="VALUE" ...] after llog@32473, one SD-PARAM per field
 * in the entry's order. VALUE is the value's text (integers decimal,
 * doubles as in text lines, true/false, null, a string's bytes), with
 * '%', the C0 controls, DEL, each byte of a C1 control (c2 80..c2 9f)
 * and each byte that is not valid UTF-8 written %XX (upper-case hex), then
 * '"', '\' and ']' escaped with a backslash (RFC 5424 6.3.3): valid UTF-8
 * that a collector never rewrites. NAME is the key with '%', '=', ']',
 * '"' and every byte outside '!'..'~' written %XX; a key that is empty or
 * longer than 32 bytes once mapped goes as %kI="KEY=VALUE" (I the field's
 * index in the entry, from 0; KEY mapped as a NAME, so its first '=' ends
 * it; "%k" never comes out of the mapping). Fields that do not fit the
 * message (MSG_MAX, or the transport's cut: UDP's max_udp_bytes, RELP's
 * limit) are left out whole; fields_truncated="N" in llog@32473 counts
 * them with the entry's own fields_truncated.
 */

#define SD_NAME_MAX 32

static const char hexu[] = "0123456789ABCDEF";

static int name_byte_ok(unsigned char c)
{
	/* '\\' is a valid SD-NAME byte, mapped anyway: a mapped key also goes
	 * inside a PARAM-VALUE (%kI, below), where it would need escaping. */
	return c > 0x20 && c < 0x7f && c != '%' && c != '=' && c != ']' && c != '"' &&
	       c != '\\';
}

/* The key mapped as an SD-NAME, into b; with room NULL, its length only. */
static size_t put_key(struct llog__buf *b, const struct llog_field *f)
{
	size_t n = 0;

	for (size_t i = 0; i < f->key_len; i++) {
		unsigned char c = (unsigned char)f->key[i];

		if (name_byte_ok(c)) {
			n++;
			if (b != NULL)
				llog__buf_putc(b, (char)c);
		} else {
			char x[3] = {'%', hexu[c >> 4], hexu[c & 15]};

			n += 3;
			if (b != NULL)
				llog__buf_put(b, x, 3);
		}
	}
	return n;
}

/* Length of the valid UTF-8 sequence at s (2-4 bytes, not a C1
 * control: U+0080..U+009F is C2 80..C2 9F), or 0. */
static size_t utf8_ok(const unsigned char *s, size_t len)
{
	size_t n = llog__line_utf8_len(s, len);

	return n >= 2 && !(s[0] == 0xc2 && s[1] < 0xa0) ? n : 0;
}

/* A value's bytes as PARAM-VALUE text (above); with b NULL, the length. */
static size_t put_value_bytes(struct llog__buf *b, const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n = 0, i = 0;

	while (i < len) {
		unsigned c = s[i];
		size_t u;

		if (c >= 0x20 && c < 0x7f && c != '%') {
			int esc = c == '"' || c == '\\' || c == ']';

			n += 1 + (size_t)esc;
			if (b != NULL) {
				if (esc)
					llog__buf_putc(b, '\\');
				llog__buf_putc(b, (char)c);
			}
			i++;
		} else if (c >= 0x80 && (u = utf8_ok(s + i, len - i)) > 0) {
			n += u;
			if (b != NULL)
				llog__buf_put(b, str + i, u);
			i += u;
		} else {
			char x[3] = {'%', hexu[c >> 4], hexu[c & 15]};

			n += 3;
			if (b != NULL)
				llog__buf_put(b, x, 3);
			i++;
		}
	}
	return n;
}

/* One SD-PARAM (with its leading space); with b NULL, its length. */
static size_t put_param(struct llog__buf *b, const struct llog_field *f, size_t idx)
{
	char t[LLOG__F64_MAX], num[24];
	size_t vn, kn = put_key(NULL, f), n;
	const char *v = llog__line_field_text(f, t, &vn);
	struct llog__buf nb = LLOG__BUF(num, sizeof(num));

	if (kn > 0 && kn <= SD_NAME_MAX) {
		n = 1 + kn + 2 + put_value_bytes(NULL, v, vn) + 1;
		if (b != NULL) {
			llog__buf_putc(b, ' ');
			put_key(b, f);
			llog__buf_put(b, "=\"", 2);
			put_value_bytes(b, v, vn);
			llog__buf_putc(b, '"');
		}
		return n;
	}
	/* %kI="KEY=VALUE": the key mapped as a NAME holds no '"', '\\', ']' */
	llog__buf_put(&nb, "%k", 2);
	llog__buf_num(&nb, idx, 10);
	n = 1 + nb.n + 2 + kn + 1 + put_value_bytes(NULL, v, vn) + 1;
	if (b != NULL) {
		llog__buf_putc(b, ' ');
		llog__buf_put(b, num, nb.n);
		llog__buf_put(b, "=\"", 2);
		put_key(b, f);
		llog__buf_putc(b, '=');
		put_value_bytes(b, v, vn);
		llog__buf_putc(b, '"');
	}
	return n;
}

/* Room the fields may take: what the header and the message leave of the
 * buffer or of the transport's limit, whichever is smaller (the message
 * keeps up to 1 KiB, at most a quarter of the limit), less FIELDS_KEEP for
 * "] " and fields_truncated. */
#define FIELDS_KEEP 48
#define MSG_KEEP 1024
#define MARK_ROOM 16 /* the transport's "...[truncated]" (14), rounded up */

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
	llog__line_ts_rfc3339(t, ts_ns);
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
			   char *out, size_t cap, int *cut)
{
	struct llog__buf b = LLOG__BUF(out, cap);
	const char *base = strrchr(e->file, '/');
	char t[64];

	char msgid[33];
	uint64_t shown = 0; /* the fields shown (the first 64 at most) */
	size_t left = 0;    /* and the ones left out for room */
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
	llog__buf_puts(&b, "\" level=\"");
	llog__buf_puts(&b, llog_level_name(e->level));
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
	/* The fields (above): those that fit, chosen before llog@32473 is
	 * closed, since it counts the others in fields_truncated. */
	if (e->fields != NULL && e->nfields > 0) {
		/* within the transport's cut too (UDP, RELP: max_msg less its
		 * mark, syslog_transport.c), so a cut never reaches the SD */
		size_t lim = s->max_msg > MARK_ROOM && s->max_msg - MARK_ROOM < b.cap
				     ? s->max_msg - MARK_ROOM
				     : b.cap;
		size_t mk = e->msg_len < MSG_KEEP ? e->msg_len : MSG_KEEP;
		size_t keep = FIELDS_KEEP + (mk < lim / 4 ? mk : lim / 4);
		size_t room = lim > b.n + keep ? lim - b.n - keep : 0, used = 0;

		for (size_t i = 0; i < e->nfields; i++) {
			size_t pn = put_param(NULL, &e->fields[i], i);

			if (i < 64 && used + pn + sizeof("[fields@32473]") <= room) {
				used += pn;
				shown |= 1ull << i;
			} else {
				left++;
			}
		}
	}
	if (e->fields_truncated + left != 0) {
		snprintf(t, sizeof(t), "\" fields_truncated=\"%llu",
			 (unsigned long long)e->fields_truncated + left);
		llog__buf_puts(&b, t);
	}
	llog__buf_puts(&b, "\"]");
	if (shown != 0) {
		llog__buf_puts(&b, "[fields@32473");
		for (size_t i = 0; i < e->nfields && i < 64; i++)
			if (shown & (1ull << i))
				put_param(&b, &e->fields[i], i);
		llog__buf_putc(&b, ']');
	}
	llog__buf_putc(&b, ' ');
	if (s->pat != NULL) {
		/* MSG laid out by the pattern: its text line without the field
		 * section (the fields are in [fields@32473]) and its '\n'. */
		struct llog_entry m = *e;
		size_t n;

		m.fields = NULL;
		m.nfields = 0;
		m.fields_truncated = 0;
		n = llog__line_format(&m, LLOG_FORMAT_TEXT, &s->line, s->pat, out + b.n,
				      cap - b.n, cut);
		return b.n + (n > 0 ? n - 1 : 0);
	}
	if (e->msg_len > b.cap - b.n) {
		/* Longer than a message of this sink can be: cut where a UTF-8
		 * character starts and marked; the caller counts it, once with
		 * the transport's own cut (UDP, RELP) that may come later. */
		static const char mark[] = "...[truncated]";
		size_t keep = b.cap - b.n > sizeof(mark) - 1 ? b.cap - b.n - (sizeof(mark) - 1) : 0;

		while (keep > 0 && ((unsigned char)e->msg[keep] & 0xC0) == 0x80)
			keep--;
		llog__buf_put(&b, e->msg, keep);
		llog__buf_puts(&b, mark);
		*cut = 1;
		return b.n;
	}
	llog__buf_put(&b, e->msg, e->msg_len);
	*cut = 0;
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
