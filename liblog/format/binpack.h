/*
 * binpack.h - the packed argument encoding of binary files' PLOG records
 * (internal; docs/file-format.md 2.1). Writer: backends/file_bin.c; reader:
 * tools/binrec.c; both through this one codec.
 *
 * DESIGN
 * A capture (fmt.h's layout: int 4 bytes, 64-bit integers, doubles and
 * pointers 8, strings u32 length and bytes) is mostly fixed-width
 * little-endian numbers that change little from one call of a site to the
 * next: a counter, a duration printed with "%.3f". zstd finds repeated
 * bytes, not small differences, so a record is re-encoded before it is
 * compressed, argument by argument along the site's plan:
 *
 *   int, 64-bit integer, pointer   zigzag varint of the difference from the
 *                                  same argument of the site's previous
 *                                  record in this frame (arguments 0..7;
 *                                  later ones from 0)
 *   double of "%.Pf" / "%.PF"      (P <= 9, default 6; not '*') when the
 *                                  value is v = K / 10^P to within far less
 *                                  than half a unit of the last printed
 *                                  digit: varint (zigzag(K - previous K)
 *                                  << 1); otherwise varint 1 and the 8
 *                                  bytes. "%.Pf" prints only K's digits,
 *                                  so K / 10^P prints the same text.
 *   other double, long double      the bytes, as captured
 *   string                         varint (length + 1), 0 for NULL; bytes
 *   %n                             nothing
 *
 * The previous values start at 0 in every frame (a frame decodes alone), so
 * the state carries a stamp: the frame it belongs to. Invariant, for every
 * capture c of plan p:
 *
 *   unpack(pack(c)) == c                       except a "%.Pf" double, where
 *   render(unpack(pack(c))) == render(c)       (the same bytes of text)
 *
 * The writer resolves each argument's step once, when the site is defined
 * (llog__pack_site_init: op[], from the plan's type, the decimal and
 * whether the argument keeps a previous value), so packing a record walks
 * the steps without asking any of them again; the reader walks the plan
 * (llog__unpack), which gives the same steps. A site's plan never changes
 * (its format is fixed), and a plan of another length is refused whole.
 *
 * Pure code: no allocation, no lock, no system call (the crash path may
 * encode; it does not: its frames keep plain LOG records).
 */
#ifndef LLOG_BINPACK_H
#define LLOG_BINPACK_H

#include <stddef.h>
#include <stdint.h>

#include "fmt.h"

#define LLOG__PACK_DELTA 8 /* arguments with a previous value */

/* A site's packing state: which doubles are decimals, each argument's
 * step (binpack.c: its type and decimal, resolved once when the site is
 * defined), and the previous values of its first LLOG__PACK_DELTA
 * arguments in frame `stamp`. */
struct llog__pack_site {
	uint64_t stamp;                   /* 0: none yet */
	int64_t last[LLOG__PACK_DELTA];
	uint8_t dec[LLOG__PLAN_MAX_ARGS]; /* 0, or 1 + P for "%.Pf" */
	uint8_t op[LLOG__PLAN_MAX_ARGS];  /* the writer's step per argument */
	uint8_t nop;                      /* the plan's nargs when op was made */
};

/* The most bytes llog__pack writes for a capture of len bytes. */
#define LLOG__PACK_BOUND(len) ((size_t)(len) + 2u * LLOG__PLAN_MAX_ARGS)
/* The most bytes llog__unpack writes for a packed body of len bytes. */
#define LLOG__UNPACK_BOUND(len) ((size_t)(len) + 20u * LLOG__PLAN_MAX_ARGS)

/* Sets ps's decimals and steps from fmt (whose plan is plan) and clears
 * its state. */
void llog__pack_site_init(struct llog__pack_site *ps, const char *fmt,
			  const struct llog__plan *plan);

/* Packs the capture args[0..len) (plan's layout) into dst, which has
 * LLOG__PACK_BOUND(len) bytes, in frame stamp (nonzero). plan is the
 * one ps was set up with (llog__pack_site_init; a site's plan never
 * changes). Returns the bytes written, or (size_t)-1 if args is not plan's
 * layout; ps is then unchanged. */
size_t llog__pack(char *dst, struct llog__pack_site *ps, uint64_t stamp,
		  const struct llog__plan *plan, const unsigned char *args, size_t len);

/* Unpacks in[0..len) into out (LLOG__UNPACK_BOUND(len) bytes), the
 * capture's layout, in frame stamp. Returns the bytes written, or
 * (size_t)-1 with *why set when in is not a packed body of plan. */
size_t llog__unpack(unsigned char *out, struct llog__pack_site *ps, uint64_t stamp,
		    const struct llog__plan *plan, const unsigned char *in, size_t len,
		    const char **why);

#endif /* LLOG_BINPACK_H */
