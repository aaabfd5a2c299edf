/*
 * fmt_render_parts.h - what the files of the printf renderer share
 * (internal to liblog/format/fmt_render*.c; the rest of llog uses fmt.h).
 * fmt_render.c walks the format (its text or its compiled program) and
 * hands each conversion to fmt_render_conv.c, which writes integers,
 * characters, strings and plain %f itself and hands the rest to
 * fmt_render_snp.c (snprintf of that one conversion); a compiled
 * program's plain "%d" and "%s" fmt_render.c writes itself, and a
 * double's %f through llog__fmt_render_fixed (fmt_render_conv.c). A
 * positional format ("%2$s %1$d") has its arguments fetched first, in
 * index order, by fmt_pos.c (through fmt_render_conv.c's fetch). They
 * call one way, never back: fmt_render.c -> fmt_pos.c ->
 * fmt_render_conv.c -> fmt_render_snp.c.
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
#include "fmt.h"
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

/* The arguments of a positional format, fetched in index order before
 * rendering (fmt_pos.c): argument k + 1 has class m.kind[k] and value
 * v[k], for k < m.n. */
struct pos_args {
	struct pos_map m;
	union val v[LLOG__PLAN_MAX_ARGS];
};

/* Where the arguments come from: the captured bytes p, checked against
 * the plan's type codes type[i..n), or a live va_list (ap != NULL); for a
 * positional format, pos (then each conversion takes its arguments from
 * pos by their "n$", and the others are not used). */
struct src {
	const unsigned char *p;
	const uint8_t *type;
	unsigned i, n;
	va_list *ap;
	const struct pos_args *pos;
};

/* ---- fmt_pos.c ---- */

/* (llog__fmt_pos_scan: fmt_spec.h.) */

/* Fetches the m.n arguments of pa (m set by llog__fmt_pos_scan), in index
 * order, from the sequential source seq (fmt_render_conv.c's
 * llog__fmt_render_fetch); m.n becomes the number fetched (fewer when seq
 * runs out or does not match). */
void llog__fmt_pos_load(struct pos_args *pa, struct src *seq);

/* Whether every argument of conversion sp is in pa: an "n$" in 1..m.n of
 * the class pa records for it. */
int llog__fmt_pos_fits(const struct spec *sp, const struct pos_args *pa);

/* Whether the walk may render conversion sp (else the rest of the format
 * is logged as text, fmt.h): in a positional walk when its arguments are
 * all there (llog__fmt_pos_fits), in a sequential walk when it has no
 * "n$". */
static inline int llog__fmt_pos_conv_ok(const struct spec *sp, const struct src *s)
{
	if (s->pos == NULL)
		return !sp->positional;
	return llog__fmt_pos_fits(sp, s->pos);
}

/* ---- fmt_render_conv.c ---- */

/* The next argument of class kind from a sequential source (the captured
 * bytes or the va_list; never s->pos). Returns 0 when it ran out or does
 * not match the plan. */
int llog__fmt_render_fetch(struct src *s, int kind, union val *v);

/* Renders one conversion sp, fetching its arguments ('*' width and
 * precision first) from s. Returns 0 when the arguments ran out or do not
 * match the plan (the walk stops there). */
int llog__fmt_render_conv(struct llog__buf *o, const struct spec *sp, struct src *s);

/* %f or %F of a double d whose conversion sp has no '*' and no "n$" (a
 * compiled format's OP_F): as llog__fmt_render_conv writes it, by llog
 * (a precision of at most 9, a finite d below 2^63, no '#' nor locale
 * flag, a width of at most 48) or else by snprintf. */
void llog__fmt_render_fixed(struct llog__buf *o, const struct spec *sp, double d);

/* ---- fmt_render_snp.c ---- */

/* Renders sp with snprintf of that one conversion: flags fl, width and
 * prec with any '*' resolved, the argument v of class kind. */
void llog__fmt_render_snp(struct llog__buf *o, const struct spec *sp, unsigned fl,
			  int width, int prec, int kind, const union val *v);

/* A floating-point conversion with a '0' flag (and no '-') whose width is
 * a negative "*n$": glibc 2.36's positional printf keeps the '0' with the
 * '-' the sign implies, and pads on the right with zeros (f F e E g G of
 * a finite value; spaces for inf and nan), %a %A not at all. Rendered
 * the same way (fl has F_MINUS; width is the magnitude). */
void llog__fmt_render_snp_left0(struct llog__buf *o, const struct spec *sp, unsigned fl,
				int width, int prec, int kind, const union val *v);

#endif /* LLOG_FMT_RENDER_PARTS_H */
