/*
 * fmt_slots.h - a typed call's one-pass capture, inline for the producer
 * (internal).
 *
 * DESIGN
 * A typed call (llog/detail.h "Typed calls", docs/architecture/records.md
 * 4) brings
 * its arguments as 8-byte slots. This is llog__fmt_capture_once for them
 * (fmt.h): the same bytes, the same clipping of strings to the room left,
 * written where the producer inlines it (producer.c) and where
 * llog__fmt_capture_once_v wraps it (fmt_plan.c, which the tests compare with
 * the va_list capture over the differential corpus).
 *
 * What a slot is follows the plan's type code, as a va_arg of that type
 * would read a register: A_INT the low 32 bits, A_I64 / A_DBL / A_PTR all
 * 64, a string the pointer, A_NPTR nothing stored. Not for EAGER plans
 * (their codes never come here) nor LDBL ones (the caller hands both to
 * llog__log; an A_LDBL code stores 16 zero bytes, defensively). A plan
 * holds no other codes (fmt_plan.c: A_WINT, A_WSTR, A_UNKNOWN make a plan
 * EAGER; A_NONE is never stored).
 */
#ifndef LLOG_FMT_SLOTS_H
#define LLOG_FMT_SLOTS_H

#include <stdint.h>
#include <string.h>

#include "fmt.h"
#include "fmt_spec.h"

/* The precision that bounds a string argument of type code, SIZE_MAX for
 * none (last_int: the int consumed just before, for %.*s). */
static inline size_t llog__str_bound(uint8_t code, int last_int)
{
	if (code == A_STR_STAR && last_int >= 0)
		return (size_t)last_int;
	if (code >= A_STR_PREC0)
		return (size_t)(code - A_STR_PREC0);
	return SIZE_MAX;
}

/* Stores a string argument at *d: u32 length (STR_NULL for NULL), then its
 * n bytes; advances *d. */
static inline void llog__put_str(unsigned char **d, const char *s, size_t n)
{
	uint32_t n32 = s != NULL ? (uint32_t)n : STR_NULL;

	memcpy(*d, &n32, 4);
	if (s != NULL && n > 0)
		memcpy(*d + 4, s, n);
	*d += 4 + (s != NULL ? n : 0);
}

/* The one-pass capture of a string argument s (NULL or not): at most pb
 * bytes (its precision, llog__str_bound), clipped to the *room left
 * (setting *truncated, and taking what it stores from *room); stored at
 * *d (llog__put_str). Both one-pass captures share it (fmt_plan.c). */
static inline __attribute__((always_inline)) void
llog__put_str_clipped(unsigned char **d, const char *s, size_t pb, size_t *room, int *truncated)
{
	size_t n = 0;

	if (s != NULL) {
		if (pb <= *room) {
			n = strnlen(s, pb);
		} else {
			/* one byte more tells whether we clip */
			n = strnlen(s, *room + 1);
			if (n > *room) {
				n = *room;
				*truncated = 1;
			}
		}
		*room -= n;
	}
	llog__put_str(d, s, n);
}

static inline __attribute__((always_inline)) size_t
llog__fmt_capture_slots(const struct llog__plan *plan, const uint64_t *v, void *dst, size_t cap,
			int *truncated)
{
	unsigned char *d = dst;
	size_t room = cap - plan->fixed_bytes; /* bytes left for string contents */
	unsigned nargs = plan->nargs;
	int last_int = -1;

	for (unsigned i = 0; i < nargs; i++) {
		uint8_t code = plan->type[i];
		uint64_t u = v[i];

		if (code == A_INT) {
			uint32_t w = (uint32_t)u;

			memcpy(d, &w, 4);
			d += 4;
			last_int = (int)w;
		} else if (code < A_STR) {
			if (__builtin_expect(code >= A_LDBL, 0) && code != A_PTR) {
				if (code == A_LDBL) {
					memset(d, 0, LDBL_STORE);
					d += LDBL_STORE;
				}
				continue; /* A_NPTR: consumed, never stored */
			}
			memcpy(d, &u, 8);
			d += 8;
		} else {
			llog__put_str_clipped(&d, (const char *)(uintptr_t)u,
					      llog__str_bound(code, last_int), &room, truncated);
		}
	}
	return (size_t)(d - (unsigned char *)dst);
}

#endif /* LLOG_FMT_SLOTS_H */
