/*
 * line_escape.c - strings made safe for a line: UTF-8 validated
 * (llog__line_utf8_len), a message, file, function or name escaped in text,
 * a JSON string. Part of the line formatter (line.c); calls nothing of it.
 *
 * DESIGN
 * Every record is exactly one line, and no message can forge another
 * record or drive a terminal: in text, the C0 controls (bytes below 0x20)
 * and DEL (0x7f) in the message are escaped (\n, \r, \t, \xNN), a
 * backslash is \\ (file format version 2: a literal "\n" is "\\n"), the C1
 * controls too: U+0080..U+009F encoded in UTF-8 (c2 80 .. c2 9f) as
 * \u0080..\u009f, and a byte 0x80..0x9f that is not part of a valid UTF-8
 * sequence (an 8-bit terminal's C1, 0x9b is CSI) as \xNN; valid UTF-8
 * above U+009F and stray bytes 0xa0..0xff are kept as they are. In JSON,
 * strings follow RFC 8259 (quote, backslash and control characters
 * escaped, the C1 controls as \u0080..\u009f, invalid UTF-8, stray
 * 0x80..0x9f included, replaced by U+FFFD), so the output is always valid
 * JSON.
 *
 * Both escape by runs: the bytes up to the next one that may need an
 * escape are found and copied 16 at a time (llog__line_put_clean,
 * line_parts.h; a field's quoted value too, line_fields.c); only that
 * byte is looked at alone.
 */
#include <stdint.h>
#include <string.h>

#include "buf.h"
#include "line.h"
#include "line_parts.h"

/* Lower-case hexadecimal digits, for \xNN and \u00NN. */
static const char hexdig[17] = "0123456789abcdef";

size_t llog__line_utf8_len(const unsigned char *s, size_t len)
{
	unsigned c = s[0];
	size_t n;
	unsigned cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, cp = c & 0x07;
	else
		return 0;
	if (n > len)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	/* overlong, surrogates, beyond U+10FFFF */
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10ffff ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

/* One byte's escape, for text and a field's value (line_parts.h). */
size_t llog__line_escape_byte(char *e, unsigned c)
{
	char x;

	switch (c) {
	case '\n': x = 'n'; break;
	case '\r': x = 'r'; break;
	case '\t': x = 't'; break;
	case '\\': x = '\\'; break;
	case '"': x = '"'; break;
	default:
		e[0] = '\\';
		e[1] = 'x';
		e[2] = hexdig[c >> 4];
		e[3] = hexdig[c & 15];
		return 4;
	}
	e[0] = '\\';
	e[1] = x;
	return 2;
}

/* "\u00XX" for a C1 control character encoded as c2 XX. */
static void put_u00(struct llog__buf *o, unsigned c)
{
	char e[6] = {'\\', 'u', '0', '0', hexdig[c >> 4], hexdig[c & 15]};

	llog__line_put_whole(o, e, 6);
}

void llog__line_put_text_escaped(struct llog__buf *o, const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0;

	while (i < len) {
		/* a clean run, then the byte that ended it */
		size_t j = i + llog__line_put_clean(o, s + i, len - i, 0x7f, '\\'), n;
		unsigned c;
		char e[4];

		if (j == len)
			break;
		c = s[j];
		if (c >= 0x80) {
			n = llog__line_utf8_len(s + j, len - j);
			if (llog__line_is_c1(s + j, n)) {
				put_u00(o, s[j + 1]);
				i = j + 2;
				continue;
			}
			if (n > 0 || c >= 0xa0) {
				/* Valid UTF-8 (above U+009F), or a stray byte
				 * that is no control character in any
				 * encoding: kept as it is. */
				n = n > 0 ? n : 1;
				llog__line_put_whole(o, str + j, n);
				i = j + n;
				continue;
			}
			/* A stray 0x80..0x9f: a C1 control to an 8-bit
			 * terminal (0x9b is CSI). Escaped below. */
		}
		llog__line_put_whole(o, e, llog__line_escape_byte(e, c));
		i = j + 1;
	}
}

/* A JSON string; when it is cut, tail[0..tl) ends it, before the closing
 * quote, which is always there (room is kept for both). */
void llog__line_put_json_string(struct llog__buf *o, const char *str, size_t len,
				const char *tail, size_t tl)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, cap = o->cap;

	llog__buf_putc(o, '"');
	if (o->cap - o->n < 1 + tl) {
		o->cut = 1; /* not even the closing quote: cut */
		return;
	}
	o->cap -= 1 + tl;
	while (i < len) {
		unsigned c = s[i];
		size_t n;

		if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
			i += llog__line_put_clean(o, s + i, len - i, 0x80, '"');
			continue;
		}
		switch (c) {
		case '"': llog__line_put_whole(o, "\\\"", 2); i++; continue;
		case '\\': llog__line_put_whole(o, "\\\\", 2); i++; continue;
		case '\n': llog__line_put_whole(o, "\\n", 2); i++; continue;
		case '\r': llog__line_put_whole(o, "\\r", 2); i++; continue;
		case '\t': llog__line_put_whole(o, "\\t", 2); i++; continue;
		default: break;
		}
		if (c < 0x20) {
			char e[6] = {'\\', 'u', '0', '0', hexdig[c >> 4], hexdig[c & 15]};

			llog__line_put_whole(o, e, 6);
			i++;
			continue;
		}
		n = llog__line_utf8_len(s + i, len - i);
		if (n == 0) {
			llog__line_put_whole(o, "\xef\xbf\xbd", 3); /* U+FFFD */
			i++;
		} else if (llog__line_is_c1(s + i, n)) {
			put_u00(o, s[i + 1]); /* the same character, escaped */
			i += 2;
		} else {
			llog__line_put_whole(o, str + i, n);
			i += n;
		}
	}
	o->cap = cap;
	if (o->cut)
		llog__buf_put(o, tail, tl);
	llog__buf_putc(o, '"');
}

/* A thread name in text: escaped as a message is, and ']' as \x5d (the
 * bracket around it must end it). */
void llog__line_put_text_name(struct llog__buf *o, const char *s, size_t n)
{
	size_t i = 0;

	while (i < n) {
		const char *rb = memchr(s + i, ']', n - i);
		size_t j = rb != NULL ? (size_t)(rb - s) : n;

		llog__line_put_text_escaped(o, s + i, j - i);
		if (j == n)
			break;
		llog__line_put_whole(o, "\\x5d", 4);
		i = j + 1;
	}
}

/* A category in text: one word, so a byte that is not printable ASCII,
 * or is a space, '[' or '\\', is written \xNN (llogcat reads it back). */
void llog__line_put_text_category(struct llog__buf *o, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c > 0x20 && c < 0x7f && c != '[' && c != '\\') {
			llog__buf_putc(o, (char)c);
		} else {
			char x[4] = {'\\', 'x', hex[c >> 4], hex[c & 15]};

			llog__line_put_whole(o, x, 4);
		}
	}
}
