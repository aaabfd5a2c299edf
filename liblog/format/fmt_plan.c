/*
 * fmt_plan.c - parsing printf formats into argument plans, and capturing
 * a call's arguments raw by its plan (see fmt.h for the contract).
 *
 * DESIGN
 * Capture layout: the arguments are stored in order (a POSIX positional
 * format's in index order: plan_positional), packed, unaligned, in
 * native byte order, by plan type code:
 *
 *   A_INT  (1)  int, 4 bytes      d i o u x X b B c with no/hh/h, '*' values
 *   A_I64  (2)  8 bytes           integers with l ll q L j z Z t
 *   A_DBL  (3)  double, 8 bytes   f F e E g G a A (no/l/h/j/z/t)
 *   A_LDBL (4)  long double, 16   the same with L ll q
 *   A_PTR  (5)  void *, 8 bytes   p
 *   A_NPTR (6)  nothing           n: the pointer is consumed, not stored
 *   A_STR  (7)  u32 len + bytes   s; len 0xffffffff means NULL (no bytes)
 *   A_STR_STAR (8)                s whose precision is the preceding int
 *   A_STR_PREC0 + p (16..255)     s with literal precision p (0..239)
 *
 * so fixed_bytes = sum of the fixed sizes (4 per string) and
 * capture size = fixed_bytes + sum of the captured string lengths.
 * A string's precision is part of its type code because capture must not
 * read past it (the array need not be NUL-terminated); a literal precision
 * above 239 makes the plan EAGER.
 *
 *
 * Nothing here allocates or locks; render and capture never call snprintf
 * for integers, characters or strings.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* GNU extension used on purpose: strchrnul */
#endif
#include <stdio.h>
#include <string.h>
#include <wchar.h>

#include "buf.h"
#include "fmt.h"
#include "fmt_slots.h"
#include "fmt_spec.h"

_Static_assert(sizeof(struct llog__plan) <= 36, "plan must fit llog_site.plan");
_Static_assert(_Alignof(struct llog__plan) <= 4, "plan must be 4-aligned");
_Static_assert(sizeof(long) == 8 && sizeof(long long) == 8 &&
		       sizeof(intmax_t) == 8 && sizeof(size_t) == 8 &&
		       sizeof(ptrdiff_t) == 8 && sizeof(void *) == 8,
	       "capture layout assumes LP64");
_Static_assert(sizeof(int) == 4, "capture layout assumes 32-bit int");
_Static_assert(sizeof(long double) <= 16, "long double is stored in 16 bytes");

/* ---- plan ---------------------------------------------------------------- */

static unsigned fixed_size(uint8_t code)
{
	switch (code) {
	case A_INT: return 4;
	case A_I64: case A_DBL: case A_PTR: return 8;
	case A_LDBL: return LDBL_STORE;
	case A_NPTR: return 0;
	default: return 4; /* strings: the length word */
	}
}

static int plan_add(struct llog__plan *plan, uint8_t code)
{
	if (plan->nargs >= LLOG__PLAN_MAX_ARGS) {
		plan->flags |= LLOG__PLAN_EAGER;
		return 0;
	}
	plan->type[plan->nargs++] = code;
	if (code == A_LDBL)
		plan->flags |= LLOG__PLAN_LDBL;
	plan->fixed_bytes = (uint16_t)(plan->fixed_bytes + fixed_size(code));
	return 1;
}

/*
 * The plan of a positional format (fmt_pos.c): its arguments in index
 * order, which is the order the call passes them in, so capture is the
 * same. A string's type code is bounded by the largest precision of its
 * conversions, or unbounded when one has none. EAGER for what a
 * sequential plan would be EAGER for, for a string with a '*' precision
 * (its int may come after it), and for the undefined cases (not whole:
 * the renderer at the call logs them, fmt.h).
 */
static void plan_positional(const char *fmt, struct llog__plan *plan)
{
	int bound[LLOG__PLAN_MAX_ARGS]; /* a string's: -1 unbounded, else its largest */
	struct pos_map m;
	const char *p = fmt;

	memset(plan, 0, sizeof(*plan));
	if (!llog__fmt_pos_scan(fmt, &m) || !m.whole) {
		plan->flags = LLOG__PLAN_EAGER;
		return;
	}
	memset(bound, 0, sizeof(bound));
	while (*(p = strchrnul(p, '%')) != '\0') {
		struct spec sp;

		if (p[1] == '%') {
			p += 2;
			continue;
		}
		p = llog__fmt_parse_spec(p + 1, &sp); /* not NULL: whole */
		if (sp.snp || sp.kind == A_UNKNOWN ||
		    (sp.kind == A_STR && (sp.prec_star || sp.prec > STR_PREC_MAX))) {
			plan->flags = LLOG__PLAN_EAGER;
			return;
		}
		if (sp.kind == A_STR) {
			int *b = &bound[sp.argn - 1];

			if (sp.prec < 0)
				*b = -1;
			else if (*b >= 0 && sp.prec > *b)
				*b = sp.prec;
		}
	}
	for (unsigned k = 0; k < m.n; k++) {
		uint8_t code = m.kind[k];

		if (code == A_STR) {
			if (bound[k] >= 0)
				code = (uint8_t)(A_STR_PREC0 + bound[k]);
			plan->flags |= LLOG__PLAN_HAS_STR;
		}
		plan_add(plan, code);
	}
	plan->flags |= LLOG__PLAN_POS;
}

void llog__fmt_plan_parse(const char *fmt, struct llog__plan *plan)
{
	const char *p = fmt;

	memset(plan, 0, sizeof(*plan));
	while (*(p = strchrnul(p, '%')) != '\0') {
		struct spec sp;
		uint8_t code;

		if (p[1] == '%') {
			p += 2;
			continue;
		}
		p = llog__fmt_parse_spec(p + 1, &sp);
		if (p == NULL)
			return; /* rendering stops there, as glibc's does */
		if (sp.positional && plan->nargs == 0) {
			/* the first conversion that takes an argument */
			plan_positional(fmt, plan);
			return;
		}
		if (sp.positional || sp.snp || sp.kind == A_UNKNOWN) {
			plan->flags |= LLOG__PLAN_EAGER;
			return;
		}
		if (sp.width_star && !plan_add(plan, A_INT))
			return;
		if (sp.prec_star && !plan_add(plan, A_INT))
			return;
		code = sp.kind;
		if (code == A_NONE)
			continue;
		if (code == A_STR) {
			if (sp.prec_star) {
				code = A_STR_STAR;
			} else if (sp.prec >= 0) {
				if (sp.prec > STR_PREC_MAX) {
					plan->flags |= LLOG__PLAN_EAGER;
					return;
				}
				code = (uint8_t)(A_STR_PREC0 + sp.prec);
			}
		}
		if (!plan_add(plan, code))
			return;
		if (llog__fmt_is_str(code))
			plan->flags |= LLOG__PLAN_HAS_STR;
	}
}

/* ---- capture ------------------------------------------------------------- */

/*
 * Where a capture reads the call's arguments: the variadic call's va_list
 * (llog__log), or the typed call's 8-byte slots (llog__log_t: the macro
 * converted each argument with _Generic, llog/detail.h "Typed calls"). The
 * functions below take `typed` as a constant and are always inlined into
 * the public entry points, so each entry point reads only one kind.
 *
 * A slot holds an integer argument's value (sign- or zero-extended to 64
 * bits, by its C type), a floating argument's double bits, or a pointer.
 * A type code reads it as printf would read a register of that width:
 * A_INT the low 32 bits, A_I64 / A_DBL / A_PTR all 64, a string the
 * pointer. long double never comes in a slot (the macro, and the plan's
 * LLOG__PLAN_LDBL, send such calls through the va_list).
 */
struct argsrc {
	const uint64_t *v; /* typed: the next slot */
	va_list ap;        /* variadic: a copy, passed by address */
};

#define SRC_INLINE static inline __attribute__((always_inline))

SRC_INLINE uint64_t src_slot(struct argsrc *s)
{
	return *s->v++;
}

SRC_INLINE int src_int(struct argsrc *s, int typed)
{
	return typed ? (int)(uint32_t)src_slot(s) : va_arg(s->ap, int);
}

SRC_INLINE long long src_i64(struct argsrc *s, int typed)
{
	return typed ? (long long)src_slot(s) : va_arg(s->ap, long long);
}

SRC_INLINE double src_dbl(struct argsrc *s, int typed)
{
	uint64_t u;
	double v;

	if (!typed)
		return va_arg(s->ap, double);
	u = src_slot(s);
	memcpy(&v, &u, sizeof(v));
	return v;
}

SRC_INLINE const void *src_ptr(struct argsrc *s, int typed)
{
	return typed ? (const void *)(uintptr_t)src_slot(s) : va_arg(s->ap, const void *);
}

SRC_INLINE const char *src_str(struct argsrc *s, int typed)
{
	return typed ? (const char *)(uintptr_t)src_slot(s) : va_arg(s->ap, const char *);
}

/*
 * Copies one non-string argument of type `code` from s to *d and advances
 * *d. Returns 0 when code is a string type (nothing consumed). The int of a
 * '*' precision is kept in *last_int for a following %.*s.
 */
SRC_INLINE int copy_fixed_arg(uint8_t code, struct argsrc *s, int typed, unsigned char **d,
			      int *last_int)
{
	switch (code) {
	case A_INT: {
		int v = src_int(s, typed);

		*last_int = v;
		memcpy(*d, &v, 4);
		*d += 4;
		return 1;
	}
	case A_I64: {
		long long v = src_i64(s, typed);

		memcpy(*d, &v, 8);
		*d += 8;
		return 1;
	}
	case A_DBL: {
		double v = src_dbl(s, typed);

		memcpy(*d, &v, 8);
		*d += 8;
		return 1;
	}
	case A_LDBL: {
		/* Never typed (above); a slot, were one to come, stores 0. */
		long double v = typed ? (s->v++, 0.0L) : va_arg(s->ap, long double);

		memcpy(*d, &v, sizeof(v));
		if (sizeof(v) < LDBL_STORE)
			memset(*d + sizeof(v), 0, LDBL_STORE - sizeof(v));
		*d += LDBL_STORE;
		return 1;
	}
	case A_PTR: {
		const void *v = src_ptr(s, typed);

		memcpy(*d, &v, 8);
		*d += 8;
		return 1;
	}
	case A_NPTR:
		(void)src_ptr(s, typed); /* %n: never stored through */
		return 1;
	default:
		return 0;
	}
}

SRC_INLINE size_t measure_src(const struct llog__plan *plan, struct argsrc *src, int typed,
			      size_t budget, uint32_t *slen, int *truncated)
{
	size_t fixed = plan->fixed_bytes, avail, lim, strs = 0;
	int last_int = -1;
	unsigned i;

	avail = budget - fixed;
	/* No string needs more than avail + 1 bytes looked at: past that it
	 * is clipped anyway. */
	lim = (avail < STR_LEN_MAX ? avail : STR_LEN_MAX) + 1;
	for (i = 0; i < plan->nargs; i++) {
		unsigned char scratch[LDBL_STORE], *sp = scratch;
		const char *s;
		size_t n, bound;

		/* fixed-size arguments: consumed (copied to scratch) */
		if (copy_fixed_arg(plan->type[i], src, typed, &sp, &last_int))
			continue;
		s = src_str(src, typed);
		slen[i] = 0;
		if (s == NULL)
			continue;
		bound = llog__str_bound(plan->type[i], last_int);
		n = strnlen(s, bound < lim ? bound : lim);
		if (n > STR_LEN_MAX) {
			n = STR_LEN_MAX;
			*truncated = 1;
		}
		slen[i] = (uint32_t)n;
		strs += n;
	}
	if (strs > avail) {
		size_t excess = strs - avail;

		*truncated = 1;
		for (i = plan->nargs; i-- > 0 && excess > 0;) {
			size_t cut;

			if (!llog__fmt_is_str(plan->type[i]))
				continue;
			cut = slen[i] < excess ? slen[i] : excess;
			slen[i] -= (uint32_t)cut;
			excess -= cut;
		}
		strs = avail;
	}
	return fixed + strs;
}

size_t llog__fmt_capture_measure(const struct llog__plan *plan, va_list ap,
				 size_t budget, uint32_t *slen, int *truncated)
{
	struct argsrc src;
	size_t n;

	if ((plan->flags & LLOG__PLAN_EAGER) || plan->fixed_bytes > budget)
		return (size_t)-1;
	va_copy(src.ap, ap);
	n = measure_src(plan, &src, 0, budget, slen, truncated);
	va_end(src.ap);
	return n;
}

size_t llog__fmt_capture_measure_v(const struct llog__plan *plan, const uint64_t *v,
				   size_t budget, uint32_t *slen, int *truncated)
{
	struct argsrc src;

	if ((plan->flags & (LLOG__PLAN_EAGER | LLOG__PLAN_LDBL)) || plan->fixed_bytes > budget)
		return (size_t)-1;
	src.v = v;
	return measure_src(plan, &src, 1, budget, slen, truncated);
}

SRC_INLINE void write_src(const struct llog__plan *plan, struct argsrc *src, int typed,
			  const uint32_t *slen, void *dst)
{
	unsigned char *d = dst;
	int last_int = -1;

	for (unsigned i = 0; i < plan->nargs; i++) {
		if (!copy_fixed_arg(plan->type[i], src, typed, &d, &last_int))
			llog__put_str(&d, src_str(src, typed), slen[i]);
	}
}

void llog__fmt_capture_write(const struct llog__plan *plan, va_list ap,
			     const uint32_t *slen, void *dst)
{
	struct argsrc src;

	va_copy(src.ap, ap);
	write_src(plan, &src, 0, slen, dst);
	va_end(src.ap);
}

void llog__fmt_capture_write_v(const struct llog__plan *plan, const uint64_t *v,
			       const uint32_t *slen, void *dst)
{
	struct argsrc src;

	src.v = v;
	write_src(plan, &src, 1, slen, dst);
}

/* The one-pass capture from a va_list (a typed call's is
 * llog__fmt_capture_slots, fmt_slots.h). */
static size_t once_va(const struct llog__plan *plan, struct argsrc *src, void *dst, size_t cap,
		      int *truncated)
{
	unsigned char *d = dst;
	size_t room = cap - plan->fixed_bytes; /* bytes left for string contents */
	int last_int = -1;

	for (unsigned i = 0; i < plan->nargs; i++) {
		uint8_t code = plan->type[i];

		if (copy_fixed_arg(code, src, 0, &d, &last_int))
			continue;
		llog__put_str_clipped(&d, src_str(src, 0), llog__str_bound(code, last_int),
				      &room, truncated);
	}
	return (size_t)(d - (unsigned char *)dst);
}

size_t llog__fmt_capture_once(const struct llog__plan *plan, va_list ap, void *dst,
			      size_t cap, int *truncated)
{
	struct argsrc src;
	size_t n;

	va_copy(src.ap, ap);
	n = once_va(plan, &src, dst, cap, truncated);
	va_end(src.ap);
	return n;
}

size_t llog__fmt_capture_once_v(const struct llog__plan *plan, const uint64_t *v, void *dst,
				size_t cap, int *truncated)
{
	return llog__fmt_capture_slots(plan, v, dst, cap, truncated);
}
