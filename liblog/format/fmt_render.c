/*
 * fmt_render.c - rendering a format from captured arguments (or a live
 * va_list) exactly as snprintf would (see fmt.h for the contract): the
 * walk of the format, from its text or compiled once. The printf renderer
 * is three files that call one way: this one copies the literal text and
 * hands each conversion to fmt_render_conv.c (its arguments, integers,
 * characters, strings, plain %f), which hands the rest to
 * fmt_render_snp.c (snprintf of that one conversion); fmt_render_parts.h
 * is what they share.
 *
 * DESIGN
 * Rendering walks the format once, copying literal text and writing each
 * conversion into the output, bounded by cap. Output is a prefix of
 * snprintf's: once something does not fit, rendering stops and *truncated
 * is set (one inexactness, fmt_render_snp.c: a message that starts with
 * an snprintf-rendered conversion longer than 512 bytes which crosses cap
 * ends one byte short of it).
 *
 * glibc behaviour matched on purpose (glibc 2.36): NULL %s prints "(null)",
 * or nothing when a precision below 6 is given; %5% prints "%"; an unknown
 * conversion prints its own text and consumes nothing; a format that ends
 * inside a conversion stops the output there; %b/%B print binary; q is ll
 * and Z is z; ll and L both select long double for floating conversions and
 * long long for integers; %c/%s pad with spaces even with the '0' flag.
 *
 * A POSIX positional format ("%2$s %1$d") has its arguments fetched
 * first, in index order (fmt_pos.c); the walk is the same, each
 * conversion taking its arguments by index. The first conversion that
 * cannot take them (fmt.h: the undefined cases), like any conversion
 * with "n$" in a sequential walk, ends the walk with the rest of the
 * format as text.
 *
 * A compiled format (llog__fmt_compile) is the walk of run() done once:
 * render_prog makes the same conversions in the same order from it. Its
 * plain conversions (the flusher's usual "%d", "%s" and a double's "%.3f")
 * are written without llog__fmt_render_conv's dispatch, each the way it
 * would write it; short texts are appended by fixed-size copies
 * (llog__buf_put_short, and a literal's first 16 bytes kept in the
 * program) instead of calls to memcpy.
 *
 * Nothing here locks, and nothing allocates but llog__fmt_compile; render
 * and capture never call snprintf for integers, characters or strings.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* GNU extension used on purpose: strchrnul */
#endif
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "fmt.h"
#include "fmt_render_parts.h"
#include "fmt_spec.h"

/* ---- the walk ------------------------------------------------------------ */

static void run(struct llog__buf *o, const char *fmt, struct src *s)
{
	const char *p = fmt;

	while (!o->cut) {
		const char *q = strchrnul(p, '%');
		struct spec sp;

		llog__buf_put(o, p, (size_t)(q - p));
		if (*q == '\0')
			return;
		if (q[1] == '%') {
			llog__buf_put(o, "%", 1);
			p = q + 2;
			continue;
		}
		p = llog__fmt_parse_spec(q + 1, &sp);
		if (p == NULL)
			return; /* format ends inside a conversion */
		if (!llog__fmt_pos_conv_ok(&sp, s)) {
			/* the rest of the format, as text (fmt.h) */
			llog__buf_put(o, q, strlen(q));
			return;
		}
		if (!llog__fmt_render_conv(o, &sp, s))
			return;
	}
}

/* ---- compiled formats ---------------------------------------------------- */

/*
 * A compiled format is run()'s walk of the format done once: op k is the
 * k-th turn of run()'s loop, the literal text it copies and what ends the
 * turn. Rendering from it makes the same calls as run() in the same order
 * (the cut check before each turn included), so its output is run()'s,
 * byte for byte; only strchrnul and llog__fmt_parse_spec are not repeated,
 * and a plain conversion's dispatch (OP_D, OP_S, OP_F). A positional
 * walk has a loop of its own (run_prog_pos) that checks every conversion.
 */
enum {
	OP_END,  /* the format (or a conversion cut short by it) ends here */
	OP_PCT,  /* "%%" */
	OP_CONV, /* a conversion, sp */
	OP_D,    /* OP_CONV that is a plain "%d" or "%i" (no flag, width, ...) */
	OP_S,    /* OP_CONV that is a plain "%s" */
	OP_F,    /* OP_CONV that is a double's %f or %F, no '*' (flags, width
		  * and precision in sp) */
};

struct rop {
	const char *lit; /* literal text before the '%', lit_len bytes */
	size_t lit_len;
	unsigned op;     /* OP_* */
	struct spec sp;  /* OP_CONV, OP_D, OP_S, OP_F */
	char lit16[16];  /* the literal's first 16 bytes, zeros after it */
};

struct llog__fmt_prog {
	const char *fmt; /* for a positional format's arguments (fmt_pos.c) */
	unsigned n;
	struct rop op[];
};

size_t llog__fmt_prog_size(const char *fmt)
{
	const char *p = fmt;
	size_t nops = 1;

	while (*(p = strchrnul(p, '%')) != '\0') {
		nops++;
		p += p[1] == '%' ? 2 : 1;
	}
	return sizeof(struct llog__fmt_prog) + nops * sizeof(struct rop);
}

struct llog__fmt_prog *llog__fmt_compile(const char *fmt)
{
	void *mem = malloc(llog__fmt_prog_size(fmt));

	return mem != NULL ? llog__fmt_compile_at(fmt, mem) : NULL;
}

struct llog__fmt_prog *llog__fmt_compile_at(const char *fmt, void *mem)
{
	struct llog__fmt_prog *prog = mem;
	const char *p;

	prog->fmt = fmt;
	prog->n = 0;
	for (p = fmt;;) {
		const char *q = strchrnul(p, '%');
		struct rop *op = &prog->op[prog->n++];

		op->lit = p;
		op->lit_len = (size_t)(q - p);
		memset(op->lit16, 0, sizeof(op->lit16));
		memcpy(op->lit16, p, op->lit_len < 16 ? op->lit_len : 16);
		op->op = OP_END;
		if (*q == '\0')
			break;
		if (q[1] == '%') {
			op->op = OP_PCT;
			p = q + 2;
			continue;
		}
		p = llog__fmt_parse_spec(q + 1, &op->sp);
		if (p == NULL)
			break; /* format ends inside a conversion */
		op->op = OP_CONV;
		if (!op->sp.positional && op->sp.flags == 0 && op->sp.width == 0 && op->sp.prec < 0 &&
		    !op->sp.width_star && !op->sp.prec_star && !op->sp.snp &&
		    op->sp.mod == M_NONE) {
			if ((op->sp.conv == 'd' || op->sp.conv == 'i') && op->sp.kind == A_INT)
				op->op = OP_D;
			else if (op->sp.conv == 's' && op->sp.kind == A_STR)
				op->op = OP_S;
		}
		if (!op->sp.positional && !op->sp.width_star && !op->sp.prec_star && !op->sp.snp &&
		    (op->sp.conv == 'f' || op->sp.conv == 'F') && op->sp.kind == A_DBL)
			op->op = OP_F;
	}
	return prog;
}

/* A plain "%d": what llog__fmt_render_conv does for it with no flag,
 * width or precision (its integer layout reduces to the sign and the
 * digits). Returns 0 when the arguments do not match, as it does. */
static inline int plain_d(struct llog__buf *o, struct src *s)
{
	char dig[24], *end = dig + sizeof(dig), *d;
	int v;

	if (s->i >= s->n || s->type[s->i] != A_INT)
		return 0;
	s->i++;
	memcpy(&v, s->p, 4);
	s->p += 4;
	d = llog__buf_dec_back(end,
			       v < 0 ? 0ull - (unsigned long long)(long long)v
				     : (unsigned long long)v,
			       1);
	if (v < 0)
		*--d = '-';
	llog__buf_put_short(o, d, (size_t)(end - d));
	return 1;
}

/* A plain "%s": llog__fmt_render_conv's string with no width or
 * precision. */
static inline int plain_s(struct llog__buf *o, struct src *s)
{
	uint32_t n;

	if (s->i >= s->n || !llog__fmt_is_str(s->type[s->i]))
		return 0;
	s->i++;
	memcpy(&n, s->p, 4);
	s->p += 4;
	if (n == STR_NULL) {
		llog__buf_put(o, "(null)", 6);
	} else {
		llog__buf_put_short(o, (const char *)s->p, n);
		s->p += n;
	}
	return 1;
}

/* A double's %f: llog__fmt_render_conv's, without its dispatch (no '*',
 * no "n$", not an snprintf one). */
static inline int plain_f(struct llog__buf *o, const struct spec *sp, struct src *s)
{
	double d;

	if (s->i >= s->n || s->type[s->i] != A_DBL)
		return 0;
	s->i++;
	memcpy(&d, s->p, 8);
	s->p += 8;
	llog__fmt_render_fixed(o, sp, d);
	return 1;
}

/* op's literal text, as llog__buf_put appends it: one of at most 16
 * bytes, when the room has 16, as a copy of all of lit16 (what lies past
 * the literal is scratch, overwritten next). */
static inline void put_lit(struct llog__buf *o, const struct rop *op)
{
	if (op->lit_len <= 16 && o->cap - o->n >= 16) {
		memcpy(o->p + o->n, op->lit16, 16);
		o->n += op->lit_len;
		return;
	}
	llog__buf_put(o, op->lit, op->lit_len);
}

/* run() from a compiled format: a sequential walk, whose plain
 * conversions skip llog__fmt_render_conv. */
static void run_prog_seq(struct llog__buf *o, const struct llog__fmt_prog *prog, struct src *s)
{
	for (const struct rop *op = prog->op;; op++) {
		put_lit(o, op);
		switch (op->op) {
		case OP_END:
			return;
		case OP_PCT:
			llog__buf_putc(o, '%');
			break;
		case OP_D:
			if (!plain_d(o, s))
				return;
			break;
		case OP_S:
			if (!plain_s(o, s))
				return;
			break;
		case OP_F:
			if (!plain_f(o, &op->sp, s))
				return;
			break;
		default:
			if (op->sp.positional) {
				/* as run(): the rest of the format, as text */
				llog__buf_put(o, op->sp.start, strlen(op->sp.start));
				return;
			}
			if (!llog__fmt_render_conv(o, &op->sp, s))
				return;
			break;
		}
		/* run()'s check before its next turn */
		if (o->cut)
			return;
	}
}

/* run() from a compiled format, in a positional walk: every conversion
 * is checked (none is a plain one: those have no "n$"). */
static void run_prog_pos(struct llog__buf *o, const struct llog__fmt_prog *prog, struct src *s)
{
	for (const struct rop *op = prog->op; !o->cut; op++) {
		llog__buf_put(o, op->lit, op->lit_len);
		switch (op->op) {
		case OP_END:
			return;
		case OP_PCT:
			llog__buf_put(o, "%", 1);
			break;
		default:
			if (!llog__fmt_pos_conv_ok(&op->sp, s)) {
				/* as run(): the rest of the format, as text */
				llog__buf_put(o, op->sp.start, strlen(op->sp.start));
				return;
			}
			if (!llog__fmt_render_conv(o, &op->sp, s))
				return;
			break;
		}
	}
}

static void run_prog(struct llog__buf *o, const struct llog__fmt_prog *prog, struct src *s)
{
	if (s->pos != NULL)
		run_prog_pos(o, prog, s);
	else
		run_prog_seq(o, prog, s);
}

/* ---- entry points -------------------------------------------------------- */

/* The arguments a call captured by its plan. */
static inline struct src captured(const struct llog__plan *plan, const void *args)
{
	return (struct src){ args, plan->type, 0, plan->nargs, NULL, NULL };
}

/* A positional format's arguments, fetched from s (the captured bytes or
 * the va_list) into *pa in index order: s reads from pa from then on.
 * Nothing is done for a format that is not positional. */
static void positional(const char *fmt, struct src *s, struct pos_args *pa)
{
	if (llog__fmt_pos_scan(fmt, &pa->m)) {
		llog__fmt_pos_load(pa, s);
		s->pos = pa;
	}
}

/* What every entry point returns: the bytes written, *truncated set when
 * the message was cut. */
static inline size_t rendered(const struct llog__buf *o, int *truncated)
{
	if (o->cut)
		*truncated = 1;
	return o->n;
}

size_t llog__fmt_render_prog(char *out, size_t cap, const struct llog__fmt_prog *prog,
			     const struct llog__plan *plan, const void *args, int *truncated)
{
	struct llog__buf o = LLOG__BUF(out, cap);
	struct src s = captured(plan, args);
	struct pos_args pa;

	/* A format with no conversion and a short text (a constant
	 * message): run_prog_seq's one turn, put_lit's wide copy, at once. */
	if (prog->op[0].op == OP_END && prog->op[0].lit_len <= 16 && cap >= 16) {
		memcpy(out, prog->op[0].lit16, 16);
		return prog->op[0].lit_len;
	}
	if (plan->flags & LLOG__PLAN_POS)
		positional(prog->fmt, &s, &pa);
	run_prog(&o, prog, &s);
	return rendered(&o, truncated);
}

size_t llog__fmt_render(char *out, size_t cap, const char *fmt,
			const struct llog__plan *plan, const void *args,
			int *truncated)
{
	struct llog__buf o = LLOG__BUF(out, cap);
	struct src s = captured(plan, args);
	struct pos_args pa;

	if (plan->flags & LLOG__PLAN_POS)
		positional(fmt, &s, &pa);
	run(&o, fmt, &s);
	return rendered(&o, truncated);
}

size_t llog__fmt_format_va(char *out, size_t cap, const char *fmt,
			   const struct llog__plan *plan, va_list ap,
			   int *truncated)
{
	struct llog__buf o = LLOG__BUF(out, cap);
	struct src s = { NULL, NULL, 0, 0, NULL, NULL };
	struct pos_args pa;
	va_list aq;

	(void)plan; /* arguments are fetched by the format itself */
	va_copy(aq, ap);
	s.ap = &aq;
	positional(fmt, &s, &pa);
	run(&o, fmt, &s);
	va_end(aq);
	return rendered(&o, truncated);
}
