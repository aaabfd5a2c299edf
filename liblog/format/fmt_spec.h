/*
 * fmt_spec.h - one printf conversion specification, as parsed once for the
 * plan, the capture and the renderer (internal to fmt_plan.c, fmt_pos.c,
 * fmt_render*.c, fmt_slots.h, binpack.c and llogcat's binrec.c).
 *
 * DESIGN
 * One parser (llog__fmt_parse_spec, fmt_spec.c) reads a conversion
 * specification; the plan, the renderer and the eager formatter all use
 * it, so they agree on which arguments a format consumes:
 *
 *   plan.type[k] == class of the k-th argument consumed by render(fmt)
 *
 * (the argument of index k + 1 for a POSIX positional format, fmt_pos.c).
 */
#ifndef LLOG_FMT_SPEC_H
#define LLOG_FMT_SPEC_H

#include <stdint.h>

#include "fmt.h"

/* Argument classes; values 1..8 and 16.. are also plan type codes. */
enum {
	A_INT = 1,
	A_I64 = 2,
	A_DBL = 3,
	A_LDBL = 4,
	A_PTR = 5,
	A_NPTR = 6,
	A_STR = 7,
	A_STR_STAR = 8,
	A_WINT = 9,     /* eager only: %lc %C */
	A_WSTR = 10,    /* eager only: %ls %S */
	A_NONE = 11,    /* consumes nothing: %% %m */
	A_UNKNOWN = 12, /* unknown conversion: printed as text */
	A_STR_PREC0 = 16,
};
#define STR_PREC_MAX (255 - A_STR_PREC0)
#define STR_NULL 0xffffffffu   /* captured length of a NULL string */
#define STR_LEN_MAX 0xfffffff0u
#define LDBL_STORE 16
#define POS_BAD 255    /* an "n$" index of 0, or above 254 */

/* Flags. */
enum {
	F_MINUS = 0x01,
	F_PLUS = 0x02,
	F_SPACE = 0x04,
	F_HASH = 0x08,
	F_ZERO = 0x10,
	F_QUOTE = 0x20, /* glibc: thousands grouping (locale), eager */
	F_I18N = 0x40,  /* glibc: locale digits, eager */
};

/* Length modifiers. */
enum { M_NONE, M_HH, M_H, M_L, M_LL, M_J, M_Z, M_T, M_BIGL };

struct spec {
	const char *start;  /* the '%' */
	const char *len_at; /* length modifier text, len_n bytes */
	uint8_t len_n;
	uint8_t flags;
	uint8_t mod;
	uint8_t kind;       /* A_* */
	uint8_t width_star;
	uint8_t prec_star;
	uint8_t positional; /* POSIX "%n$" or "*n$" seen */
	uint8_t argn;       /* the value's "n$": n (1..254), 0 for none, POS_BAD */
	uint8_t widthn;     /* the same for a '*' width ("*n$") */
	uint8_t precn;      /* the same for a '*' precision (".*n$") */
	uint8_t snp;        /* render this one with snprintf */
	char conv;
	int width;          /* 0 if none */
	int prec;           /* -1 if none */
};

/* Whether a plan type code is a string argument. */
static inline int llog__fmt_is_str(uint8_t code)
{
	return code == A_STR || code == A_STR_STAR || code >= A_STR_PREC0;
}

/* Parses one conversion specification; p points just after its '%'.
 * Returns the character after the conversion, or NULL when the format ends
 * inside the specification. */
const char *llog__fmt_parse_spec(const char *p, struct spec *sp);

/* The arguments conversion sp takes, in the order it takes them (a '*'
 * width, a '*' precision, the value): their "n$" indices in idx (0 where
 * none) and classes in kind; returns how many (0 to 3). An unknown
 * conversion takes none, not even its '*' (fmt_render_conv.c). */
static inline unsigned llog__fmt_spec_uses(const struct spec *sp, uint8_t idx[3], uint8_t kind[3])
{
	unsigned k = 0;

	if (sp->kind == A_UNKNOWN)
		return 0;
	if (sp->width_star) {
		idx[k] = sp->widthn;
		kind[k++] = A_INT;
	}
	if (sp->prec_star) {
		idx[k] = sp->precn;
		kind[k++] = A_INT;
	}
	if (sp->kind != A_NONE) {
		idx[k] = sp->argn;
		kind[k++] = sp->kind;
	}
	return k;
}

/* A POSIX positional format's arguments (fmt_pos.c): the class of each
 * index, read from the format. */
struct pos_map {
	uint8_t n;     /* indices 1..n have a class: kind[0..n) */
	uint8_t whole; /* every conversion takes its arguments from 1..n */
	uint8_t kind[LLOG__PLAN_MAX_ARGS];
};

/* Whether fmt is a positional format: its first conversion that takes an
 * argument has an "n$". If so, fills *m: the classes its conversions give
 * indices 1, 2, ..., up to the first index that none of them uses, read up
 * to the first conversion that breaks the rules (fmt.h: a conversion
 * without "n$", an index of 0 or above LLOG__PLAN_MAX_ARGS, an index used
 * with two classes); whole when no conversion breaks them nor uses an
 * index above n, and the format does not end inside a conversion. */
int llog__fmt_pos_scan(const char *fmt, struct pos_map *m);

#endif /* LLOG_FMT_SPEC_H */
