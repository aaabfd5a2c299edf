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
 *   string, one of the site's first string (data frame version 3)
 *   LLOG__PACK_STRS string         varint 0 for NULL; 1 + j for the string in
 *   arguments                      slot j of this argument's recent strings
 *                                  in this frame (LLOG__PACK_RECENT slots,
 *                                  each at most LLOG__PACK_STR_MAX bytes);
 *                                  otherwise varint (length + 1 +
 *                                  LLOG__PACK_RECENT), then the bytes
 *   other string                   varint (length + 1), 0 for NULL; bytes
 *   %n                             nothing
 *
 * Recent strings: a peer, a user, a path that come back every few calls cost
 * one byte instead of their length, and zstd, which spends most of a
 * binary record's time on matching such bytes again (bench/README.md,
 * "Binary files: recent strings"), gets a third of the input. The slots
 * fill in turn: a string written out (at most LLOG__PACK_STR_MAX bytes) goes
 * to slot `next`, the oldest, first the empty ones, then round; a string
 * found, NULL and longer strings change nothing (so a hit costs the writer
 * a compare and no update). Version 2 frames (before recent strings) pack
 * every string as "other string"; llog__unpack takes the frame's version.
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
 * whether the argument keeps a previous value, and an end mark after the
 * last; `fixed`, the capture's bytes but the strings' own), so packing a
 * record walks the steps without asking any of them again, and checks the
 * capture's length once against `fixed` and then only at each string; the
 * reader walks the plan (llog__unpack), which gives the same steps. A
 * site's plan never changes (its format is fixed), and a plan of another
 * length is refused whole.
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
#define LLOG__PACK_STRS 2    /* string arguments with recent strings */
#define LLOG__PACK_RECENT 4  /* recent strings of each */
#define LLOG__PACK_STR_MAX 32 /* the longest string kept as recent */
/* The data frame version that packs recent strings (fileformat.h's
 * LLOG_BIN_VERSION since). */
#define LLOG__PACK_VER_RECENT 3u

/* One string argument's recent strings: slots [0, n) hold one each, of
 * len[] bytes; key[] is a slot's first bytes and length (binpack.c), a
 * filter for the writer's compare; next is the slot the next one goes to. */
struct llog__pack_recent {
	uint64_t key[LLOG__PACK_RECENT];
	uint8_t n, next;
	/* the writer's first slot to try (binpack.c: recent_put): only where
	 * the search starts, never which slot it finds (the filled slots hold
	 * distinct strings), so a refused capture may leave it moved */
	uint8_t want;
	uint8_t len[LLOG__PACK_RECENT];
	char s[LLOG__PACK_RECENT][LLOG__PACK_STR_MAX];
};

/* A site's packing state: which doubles are decimals, each argument's
 * step (binpack.c: its type and decimal, resolved once when the site is
 * defined), and the previous values of its first LLOG__PACK_DELTA
 * arguments and the recent strings of its first LLOG__PACK_STRS string
 * arguments in frame `stamp`. */
struct llog__pack_site {
	uint64_t stamp;                   /* 0: none yet */
	int64_t last[LLOG__PACK_DELTA];
	struct llog__pack_recent str[LLOG__PACK_STRS];
	size_t fixed;                     /* a capture's bytes but strings' own */
	uint8_t dec[LLOG__PLAN_MAX_ARGS]; /* 0, or 1 + P for "%.Pf" */
	/* the writer's step per argument, and an end mark after the last */
	uint8_t op[LLOG__PLAN_MAX_ARGS + 1];
	uint8_t nop;                      /* the plan's nargs when op was made */
};

/* The most bytes llog__pack writes for a capture of len bytes. */
#define LLOG__PACK_BOUND(len) ((size_t)(len) + 2u * LLOG__PLAN_MAX_ARGS)
/* The most bytes llog__unpack writes for a packed body of len bytes (a
 * recent string's one byte gives its length and up to LLOG__PACK_STR_MAX). */
#define LLOG__UNPACK_BOUND(len) ((size_t)(len) + (20u + LLOG__PACK_STR_MAX) * LLOG__PLAN_MAX_ARGS)

/* Sets ps's decimals and steps from fmt (whose plan is plan) and clears
 * its state. */
void llog__pack_site_init(struct llog__pack_site *ps, const char *fmt,
			  const struct llog__plan *plan);

/* Packs the capture args[0..len) (plan's layout) into dst, which has
 * LLOG__PACK_BOUND(len) bytes, in frame stamp (nonzero), as the current
 * data frame version (LLOG__PACK_VER_RECENT) packs it. plan is the
 * one ps was set up with (llog__pack_site_init; a site's plan never
 * changes). Returns the bytes written, or (size_t)-1 if args is not plan's
 * layout; ps then packs every later capture as it would have had this one
 * not come (its values and recent strings unchanged; only a recent
 * string's want may have moved, which no packed byte depends on). */
size_t llog__pack(char *dst, struct llog__pack_site *ps, uint64_t stamp,
		  const struct llog__plan *plan, const unsigned char *args, size_t len);

/* Unpacks in[0..len) into out (LLOG__UNPACK_BOUND(len) bytes), the
 * capture's layout, in frame stamp of data frame version ver (2 or later:
 * recent strings from LLOG__PACK_VER_RECENT on). Returns the bytes
 * written, or (size_t)-1 with *why set when in is not a packed body of
 * plan. */
size_t llog__unpack(unsigned char *out, struct llog__pack_site *ps, uint64_t stamp,
		    unsigned ver, const struct llog__plan *plan, const unsigned char *in,
		    size_t len, const char **why);

#endif /* LLOG_BINPACK_H */
