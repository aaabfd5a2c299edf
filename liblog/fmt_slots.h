/*
 * fmt_slots.h - a typed call's one-pass capture, inline for the producer
 * (internal).
 *
 * DESIGN
 * A typed call (llog.h "Typed calls", docs/ARCHITECTURE.md 4.3a) brings
 * its arguments as 8-byte slots. This is llog__capture_once for them
 * (fmt.h): the same bytes, the same clipping of strings to the room left,
 * written where the producer inlines it (producer.c) and where
 * llog__capture_once_v wraps it (fmt_plan.c, which the tests compare with
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

static inline __attribute__((always_inline)) size_t
llog__capture_slots(const struct llog__plan *plan, const uint64_t *v, void *dst, size_t cap,
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
			const char *s = (const char *)(uintptr_t)u;
			uint32_t n32 = STR_NULL;
			size_t n = 0, pb;

			if (s != NULL) {
				pb = SIZE_MAX;
				if (code == A_STR_STAR && last_int >= 0)
					pb = (size_t)last_int;
				else if (code >= A_STR_PREC0)
					pb = (size_t)(code - A_STR_PREC0);
				if (pb <= room) {
					n = strnlen(s, pb);
				} else {
					/* one byte more tells whether we clip */
					n = strnlen(s, room + 1);
					if (n > room) {
						n = room;
						*truncated = 1;
					}
				}
				room -= n;
				n32 = (uint32_t)n;
			}
			memcpy(d, &n32, 4);
			if (n > 0)
				memcpy(d + 4, s, n);
			d += 4 + n;
		}
	}
	return (size_t)(d - (unsigned char *)dst);
}

#endif /* LLOG_FMT_SLOTS_H */
