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

/* Appends v in base 10, or in base 16 with a "0x" prefix. */
static inline void llog__buf_num(struct llog__buf *b, uint64_t v, unsigned base)
{
	char tmp[24];
	size_t i = sizeof(tmp);

	do {
		tmp[--i] = "0123456789abcdef"[v % base];
		v /= base;
	} while (v != 0);
	if (base == 16)
		llog__buf_put(b, "0x", 2);
	llog__buf_put(b, tmp + i, sizeof(tmp) - i);
}

#endif /* LLOG_BUF_H */
