/*
 * buf.h - the bounded append buffer (internal).
 *
 * DESIGN
 * Every piece of llog that builds text into a caller's fixed buffer (the
 * printf renderer, the line formatter, drop notices, the crash record,
 * syslog messages) appends through this one struct:
 *
 *   0 <= n <= cap;  p[0..n) is the text;  cut == 1 once anything was lost
 *
 * An append that does not fit is clipped to the room left and sets cut;
 * nothing is ever written at or past p[cap]. No NUL is written. Everything
 * here is async-signal-safe (memcpy, memset and plain stores only), so the
 * crash handler uses it too.
 */
#ifndef LLOG_BUF_H
#define LLOG_BUF_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct llog__buf {
	char *p;
	size_t n, cap;
	int cut; /* set when an append did not fit */
};

#define LLOG__BUF(ptr, capacity) ((struct llog__buf){(ptr), 0, (capacity), 0})

/* The room left. */
static inline size_t llog__buf_room(const struct llog__buf *b)
{
	return b->cap - b->n;
}

/* Appends s[0..len), clipped to the room left. */
static inline void llog__buf_put(struct llog__buf *b, const char *s, size_t len)
{
	if (len > b->cap - b->n) {
		len = b->cap - b->n;
		b->cut = 1;
	}
	if (len > 0) {
		memcpy(b->p + b->n, s, len);
		b->n += len;
	}
}

/* Appends a NUL-terminated string. */
static inline void llog__buf_puts(struct llog__buf *b, const char *s)
{
	llog__buf_put(b, s, strlen(s));
}

static inline void llog__buf_putc(struct llog__buf *b, char c)
{
	if (b->n < b->cap)
		b->p[b->n++] = c;
	else
		b->cut = 1;
}

/* Appends n copies of c. */
static inline void llog__buf_fill(struct llog__buf *b, char c, size_t n)
{
	if (n > b->cap - b->n) {
		n = b->cap - b->n;
		b->cut = 1;
	}
	if (n > 0) {
		memset(b->p + b->n, c, n);
		b->n += n;
	}
}

/* Appends s[0..n) as llog__buf_put does. One that is short (a format's
 * literal text, a number's digits, a key) and fits is moved by two
 * overlapping loads and stores of 8, 4 or 1 bytes instead of a call to
 * memcpy; nothing outside s[0..n) is read, nothing outside the n bytes
 * appended is written. */
static inline void llog__buf_put_short(struct llog__buf *b, const char *s, size_t n)
{
	char *d;

	if (n > 16 || n > b->cap - b->n) {
		llog__buf_put(b, s, n);
		return;
	}
	d = b->p + b->n; /* (after the test: p may be NULL with cap 0) */
	if (n >= 8) {
		uint64_t x, y;

		memcpy(&x, s, 8);
		memcpy(&y, s + n - 8, 8);
		memcpy(d, &x, 8);
		memcpy(d + n - 8, &y, 8);
	} else if (n >= 4) {
		uint32_t x, y;

		memcpy(&x, s, 4);
		memcpy(&y, s + n - 4, 4);
		memcpy(d, &x, 4);
		memcpy(d + n - 4, &y, 4);
	} else if (n > 0) {
		char x = s[0], y = s[n / 2], z = s[n - 1];

		d[0] = x;
		d[n / 2] = y;
		d[n - 1] = z;
	}
	b->n += n;
}

/* v in decimal, at least min digits (zeros in front), written backwards
 * so that it ends just before end; returns its first byte. Two digits per
 * division (in 32 bits once v fits them). The printf renderer's integers
 * and %f and the line's integer fields make their digits with it. */
static inline char *llog__buf_dec_back(char *end, uint64_t v, int min)
{
	static const char pairs[] =
		"00010203040506070809101112131415161718192021222324"
		"25262728293031323334353637383940414243444546474849"
		"50515253545556575859606162636465666768697071727374"
		"75767778798081828384858687888990919293949596979899";
	char *d = end;
	uint32_t w;

	while (v > UINT32_MAX) {
		unsigned r = (unsigned)(v % 100) * 2;

		v /= 100;
		d -= 2;
		memcpy(d, pairs + r, 2);
	}
	/* the rest in 32 bits: a cheaper division by 100 */
	w = (uint32_t)v;
	while (w >= 100) {
		unsigned r = w % 100 * 2;

		w /= 100;
		d -= 2;
		memcpy(d, pairs + r, 2);
	}
	if (w >= 10) {
		d -= 2;
		memcpy(d, pairs + w * 2, 2);
	} else {
		*--d = (char)('0' + w);
	}
	while (end - d < min)
		*--d = '0';
	return d;
}

/* Appends v in base 10, or in base 16 with a "0x" prefix. */
static inline void llog__buf_num(struct llog__buf *b, uint64_t v, unsigned base)
{
	char tmp[24], *end = tmp + sizeof(tmp), *d = end;

	if (base == 10) {
		d = llog__buf_dec_back(end, v, 1);
	} else {
		do {
			*--d = "0123456789abcdef"[v % 16];
			v /= 16;
		} while (v != 0);
		llog__buf_put(b, "0x", 2);
	}
	llog__buf_put(b, d, (size_t)(end - d));
}

#endif /* LLOG_BUF_H */
