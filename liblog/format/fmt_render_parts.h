/*
 * fmt_render_parts.h - what the files of the printf renderer share
 * (internal to liblog/format/fmt_render*.c; the rest of llog uses fmt.h).
 * fmt_render.c walks the format (its text or its compiled program) and
 * hands each conversion to fmt_render_conv.c, which writes integers,
 * characters, strings and plain %f itself and hands the rest to
 * fmt_render_snp.c (snprintf of that one conversion); they call one way,
 * never back.
 *
 * The message is built in a struct llog__buf; output is a prefix of
 * snprintf's: once something does not fit, cut is set and the walk stops.
 */
#ifndef LLOG_FMT_RENDER_PARTS_H
#define LLOG_FMT_RENDER_PARTS_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "buf.h"
#include "fmt_spec.h"

/* One argument, as fetched for a conversion. */
union val {
	int i;
	long long ll;
	double d;
	long double ld;
	const void *ptr;
	struct {
		const char *s; /* NULL for a NULL argument */
		size_t len;    /* valid if known */
		int known;
	} str;
};

/* Where the arguments come from: the captured bytes p, checked against
 * the plan's type codes type[i..n), or a live va_list (ap != NULL). */
struct src {
	const unsigned char *p;
	const uint8_t *type;
	unsigned i, n;
	va_list *ap;
};

/* v in decimal, at least min digits (zeros in front), written backwards
 * so that it ends just before end; returns its first byte. Two digits per
 * division. Inline: the integer and %f conversions and the plain "%d"
 * path each make their digits with it. */
static inline char *llog__fmt_render_dec_back(char *end, uint64_t v, int min)
{
	static const char pairs[] =
		"00010203040506070809101112131415161718192021222324"
		"25262728293031323334353637383940414243444546474849"
		"50515253545556575859606162636465666768697071727374"
		"75767778798081828384858687888990919293949596979899";
	char *d = end;

	while (v >= 100) {
		unsigned r = (unsigned)(v % 100) * 2;

		v /= 100;
		d -= 2;
		memcpy(d, pairs + r, 2);
	}
	if (v >= 10) {
		d -= 2;
		memcpy(d, pairs + v * 2, 2);
	} else {
		*--d = (char)('0' + v);
	}
	while (end - d < min)
		*--d = '0';
	return d;
}

/* ---- fmt_render_conv.c ---- */

/* Renders one conversion sp, fetching its arguments ('*' width and
 * precision first) from s. Returns 0 when the arguments ran out or do not
 * match the plan (the walk stops there). */
int llog__fmt_render_conv(struct llog__buf *o, const struct spec *sp, struct src *s);

/* ---- fmt_render_snp.c ---- */

/* Renders sp with snprintf of that one conversion: flags fl, width and
 * prec with any '*' resolved, the argument v of class kind. */
void llog__fmt_render_snp(struct llog__buf *o, const struct spec *sp, unsigned fl,
			  int width, int prec, int kind, const union val *v);

#endif /* LLOG_FMT_RENDER_PARTS_H */
