/*
 * line_ts.c - a line's timestamp: RFC 3339 in UTC or local time at the
 * options' precision, cached per second and thread; the crash probe that
 * says when local time must not be asked for. Part of the line formatter
 * (line.c); calls nothing of it.
 *
 * DESIGN
 * Timestamps are formatted from integers (no gmtime, no locale): civil date
 * from days since 1970 by the usual era arithmetic of the proleptic Gregorian
 * calendar. Local time (LLOG_LINE_LOCAL_TIME) is the same arithmetic on
 * the second shifted by the UTC offset that localtime_r gives for it,
 * asked once per second of timestamps per thread (cached with the text);
 * while a crash is drained localtime_r (a lock, a file read) is not
 * called: the thread's last offset is used, or UTC when it has none. The
 * crash handler says how to know (llog__line_set_crash_probe): this file
 * is part of the format unit, which calls nothing of the core.
 *
 * The cache keeps its second's first nanosecond (base), so a timestamp
 * of the same second costs a subtraction (ns = ts - base), no division;
 * eight of the fraction's nine digits are made in one 64-bit word (put_frac9).
 */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "atomic.h"
#include "buf.h"
#include "line.h"
#include "line_parts.h"

/* Zero-padded decimal of exactly `width` digits. */
static void put_fixed(char *dst, uint64_t v, int width)
{
	for (int i = width - 1; i >= 0; i--) {
		dst[i] = (char)('0' + v % 10);
		v /= 10;
	}
}

/* days since 1970-01-01 -> year, month (1-12), day (1-31) */
static void civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d)
{
	int64_t era, yoe, doy, mp;

	z += 719468; /* shift the epoch to 0000-03-01 */
	era = (z >= 0 ? z : z - 146096) / 146097;
	yoe = z - era * 146097;                                /* [0, 146096] */
	yoe = (yoe - yoe / 1460 + yoe / 36524 - yoe / 146096) / 365; /* [0, 399] */
	doy = (z - era * 146097) - (365 * yoe + yoe / 4 - yoe / 100); /* [0, 365] */
	mp = (5 * doy + 2) / 153;                              /* [0, 11] */
	*d = (unsigned)(doy - (153 * mp + 2) / 5 + 1);
	*m = (unsigned)(mp < 10 ? mp + 3 : mp - 9);
	*y = yoe + era * 400 + (*m <= 2);
}

/* "YYYY-MM-DDTHH:MM:SS" of a second since 1970 (19 bytes). */
static void format_second(char *b, int64_t secs)
{
	int64_t days = secs >= 0 ? secs / 86400 : (secs - 86399) / 86400;
	int64_t sod = secs - days * 86400, y;
	unsigned m, d;

	civil_from_days(days, &y, &m, &d);
	if (y < 0 || y > 9999)
		y = 0;
	put_fixed(b, (uint64_t)y, 4);
	b[4] = '-';
	put_fixed(b + 5, m, 2);
	b[7] = '-';
	put_fixed(b + 8, d, 2);
	b[10] = 'T';
	put_fixed(b + 11, (uint64_t)(sod / 3600), 2);
	b[13] = ':';
	put_fixed(b + 14, (uint64_t)(sod / 60 % 60), 2);
	b[16] = ':';
	put_fixed(b + 17, (uint64_t)(sod % 60), 2);
}

/* Whether a crash is being reported (crash.c's llog__crash_in_progress),
 * or NULL: none can be (no crash handler installed, or llogcat). */
static int (*_Atomic crash_probe)(void);

void llog__line_set_crash_probe(int (*in_crash)(void))
{
	/* Release: pairs with the acquire load in in_crash(); set before the
	 * handler is installed, so a thread that formats during a report
	 * finds the probe. */
	llog__store_release(&crash_probe, in_crash);
}

static int in_crash(void)
{
	/* Acquire: pairs with the release store in llog__line_set_crash_probe. */
	int (*probe)(void) = llog__load_acquire(&crash_probe);

	return probe != NULL && probe();
}

/* The UTC offset (seconds east) of the second secs, per localtime_r; the
 * thread's last one while a crash is drained (0 when none). */
static long local_offset(int64_t secs)
{
	static __thread long last_off;
	struct tm tm;
	time_t t = (time_t)secs;

	if (in_crash() || localtime_r(&t, &tm) == NULL)
		return last_off;
	last_off = tm.tm_gmtoff;
	return last_off;
}

/* "+HH:MM" / "-HH:MM" (6 bytes) of an offset in seconds. */
static void format_offset(char *b, long off)
{
	long a = off < 0 ? -off : off;

	b[0] = off < 0 ? '-' : '+';
	put_fixed(b + 1, (uint64_t)(a / 3600 % 100), 2);
	b[3] = ':';
	put_fixed(b + 4, (uint64_t)(a / 60 % 60), 2);
}

/*
 * ".NNNNNNNNN" of ns (0..999999999): 10 bytes. The first digit and two
 * groups of four by divisions; those eight digits in one 64-bit word,
 * each step splitting every lane of the word in two at once (SWAR): 4 + 4
 * digits in 32-bit lanes,
 * 2 + 2 in 16-bit lanes (x * 10486 >> 20 is x / 100 for x < 10000), 1 + 1
 * in bytes (x * 103 >> 10 is x / 10 for x < 100); the digits then sit in
 * the word in the order they are written (little-endian). Elsewhere, a
 * digit per division.
 */
static void put_frac9(char *b, uint32_t ns)
{
	uint32_t hi = ns / 10000, lo = ns - hi * 10000; /* 5 and 4 digits */
	uint32_t d0 = hi / 10000, mid = hi - d0 * 10000;  /* 1 and 4 */

	b[0] = '.';
	b[1] = (char)('0' + d0);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	{
		uint64_t v = mid | (uint64_t)lo << 32, q;

		/* the masks keep each lane's quotient, not the bits the
		 * shift brought down from the lane above */
		q = (v * 10486 >> 20) & 0x0000007f0000007full; /* 32-bit lanes / 100 */
		v = q | (v - q * 100) << 16;			/* 16-bit lanes */
		q = (v * 103 >> 10) & 0x000f000f000f000full;	/* 16-bit lanes / 10 */
		v = q | (v - q * 10) << 8;			/* one digit a byte */
		v += 0x3030303030303030ull;			/* '0' in every byte */
		memcpy(b + 2, &v, 8);
	}
#else
	for (int k = 5; k >= 2; k--, mid /= 10, lo /= 10) {
		b[k] = (char)('0' + mid % 10);
		b[k + 4] = (char)('0' + lo % 10);
	}
#endif
}

/* A thread's text of one second of timestamps (UTC or local): valid for
 * base <= ts_ns < base + 10^9 when ok. */
struct ts_second {
	int ok;
	int64_t base;
	char text[25]; /* "YYYY-MM-DDTHH:MM:SS", then local time's "+HH:MM" */
};

/* The second ts_ns falls in made into c, with localtime_r's offset in
 * local time; its nanoseconds in *ns. Out of line: once a second. */
static __attribute__((noinline)) const char *second_made(struct ts_second *c, int local,
							 int64_t ts_ns, uint32_t *ns)
{
	/* floor; not (ts_ns - 999999999) / 10^9, which overflows near INT64_MIN */
	int64_t secs = ts_ns / 1000000000 - (ts_ns % 1000000000 < 0);
	int64_t sub = ts_ns % 1000000000 + (ts_ns % 1000000000 < 0 ? 1000000000 : 0);
	int ok;

	*ns = (uint32_t)sub;
	c->ok = 0; /* see LLOG__CACHE_OPEN */
	LLOG__CACHE_OPEN();
	if (local) {
		long off = local_offset(secs);

		format_second(c->text, secs + off);
		format_offset(c->text + 19, off);
	} else {
		format_second(c->text, secs);
	}
	/* the first second's start is below INT64_MIN: never a hit */
	ok = (uint64_t)ts_ns - (uint64_t)INT64_MIN >= (uint64_t)sub;
	c->base = ok ? ts_ns - sub : 0;
	LLOG__CACHE_CLOSE();
	c->ok = ok;
	return c->text;
}

/* The cached second ts_ns falls in (a hit: one subtraction, no
 * division), made when it does not; its nanoseconds in *ns. */
static inline const char *second_of(struct ts_second *c, int local, int64_t ts_ns, uint32_t *ns)
{
	if (c->ok && ts_ns >= c->base && (uint64_t)ts_ns - (uint64_t)c->base < 1000000000u) {
		*ns = (uint32_t)((uint64_t)ts_ns - (uint64_t)c->base);
		return c->text;
	}
	return second_made(c, local, ts_ns, ns);
}

/*
 * The timestamp under the options: "YYYY-MM-DDTHH:MM:SS", the fraction
 * (lo->prec digits of the nanoseconds, cut), then "Z" or the local offset.
 * The text up to the seconds (and the offset) is made once per second of
 * timestamps per thread, UTC and local cached apart; per record only the
 * fraction's digits are written.
 */
size_t llog__line_ts_text(char *b, int64_t ts_ns, const struct llog__lopt *lo)
{
	static const unsigned digits[] = {9, 6, 3, 0};
	static __thread struct ts_second utc, local;
	size_t n = 19;
	unsigned prec = lo->prec <= LLOG_TS_S ? lo->prec : LLOG_TS_NS;
	int loc = (lo->flags & LLOG_LINE_LOCAL_TIME) != 0;
	uint32_t ns;
	const char *sec = second_of(loc ? &local : &utc, loc, ts_ns, &ns);

	memcpy(b, sec, 19);
	if (digits[prec] > 0) {
		put_frac9(b + n, ns); /* all 9; the first ones kept */
		n += 1 + digits[prec];
	}
	if (loc) {
		memcpy(b + n, sec + 19, 6);
		n += 6;
	} else {
		b[n++] = 'Z';
	}
	return n;
}

/*
 * RFC 3339 UTC with nanoseconds: 2026-12-03T08:19:42.123456789Z (30 bytes),
 * llog__line_ts_text's UTC form (its calendar part cached per second).
 */
void llog__line_ts_rfc3339(char *b, int64_t ts_ns)
{
	static const struct llog__lopt utc_ns = {0, LLOG_TS_NS, 0, NULL};
	char t[LLOG__TS_MAX];

	memcpy(b, t, llog__line_ts_text(t, ts_ns, &utc_ns)); /* 30 bytes */
}

void llog__line_put_ts(struct llog__buf *o, int64_t ts_ns, const struct llog__lopt *lo)
{
	char b[LLOG__TS_MAX];

	llog__buf_put(o, b, llog__line_ts_text(b, ts_ns, lo));
}
