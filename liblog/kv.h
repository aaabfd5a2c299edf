/*
 * kv.h - structured fields in records and entries (internal;
 * docs/fields.md).
 *
 * DESIGN
 * Three byte formats, all 8-aligned, all read and written here only:
 *
 * Call block (a LOG_*_KV record, LLOG__REC_FIELDS; producer.c writes it
 * after the payload and the rate-limit count, the flusher reads it):
 *     u64 the call site's struct llog__kv_site * (keys and types: static)
 *     u32 fields stored, u32 fields left out (over the record's bound)
 *     per stored field, in call order, one 8-byte slot:
 *       I64/U64/F64/BOOL: the raw union llog__kv_val;
 *       STR: u32 len, u32 meta (KV_META_CUT: cut at LLOG_FIELD_STR_MAX,
 *            KV_META_NULL: a NULL pointer, no bytes), then len bytes,
 *            a NUL and padding to 8.
 *       HEX (LLOG_HEX, type LLOG__KV_HEX): u32 len (bytes, at most
 *            LLOG_HEX_MAX), u32 meta (CUT, NULL as for STR; KV_META_RAW),
 *            then room for 2 * len digits and a NUL, padded to 8, the
 *            call's len bytes in its upper half. The first reader
 *            (llog__fields_entry) makes them into the digits where they
 *            stand and clears KV_META_RAW: the call copies bytes, the
 *            flusher formats, and every later reader finds digits; a
 *            sink sees a STR field flagged LLOG_FIELD_HEX.
 *   Per field the call copies 8 bytes (a string: its bytes too): what a
 *   printf argument of the same type costs (fmt.h), no key work.
 *
 * Field list (a thread's context, arena.h; a sink queue's item, sinkq.c):
 *     u32 count, u32 bytes (the whole list, header included),
 *     u32 refused (context keys refused for the limits), u32 left (fields
 *     left out, sinkq.c), then per field a struct llog__kv_ent, its key
 *     and a NUL, for STR its value and a NUL, padding to 8.
 *
 * Entry (what a sink sees): llog__fields_entry builds struct llog_field
 * array pointing into a context list and a call block: the context's
 * fields first (the order their keys were first set) but those whose key
 * the call has too, then the call's (docs/fields.md 2), at most
 * LLOG_FIELDS_MAX. fields_truncated = fields left out (at the call, over
 * LLOG_FIELDS_MAX here, context keys refused) + string values cut.
 */
#ifndef LLOG_KV_H
#define LLOG_KV_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "llog.h"
#include "llog/sinks.h"

#define LLOG__KV_CALL_HDR 16u /* a call block's header: the site, stored, left */
#define LLOG__KV_META_CUT 0x1u
#define LLOG__KV_META_NULL 0x2u
#define LLOG__KV_META_RAW 0x4u /* a hex value still in bytes */

/* A field list's header and entries (see above). */
struct llog__kv_list {
	uint32_t count, bytes, refused, left;
};
struct llog__kv_ent {
	uint8_t type, flags;
	uint16_t klen;
	uint32_t slen;
	union llog__kv_val v;
	/* key NUL [value NUL] pad */
};

/* The largest context list: LLOG_CTX_KEYS entries, their keys and string
 * values (LLOG_CTX_BYTES in all), NULs and padding. */
#define LLOG__CTX_LIST_MAX                                                    \
	(sizeof(struct llog__kv_list) +                                      \
	 LLOG_CTX_KEYS * (sizeof(struct llog__kv_ent) + 2 + 7) + LLOG_CTX_BYTES)

static inline uint32_t llog__kv_align8(size_t n)
{
	return ((uint32_t)n + 7u) & ~7u;
}

/* The bytes of s kept under LLOG_FIELD_STR_MAX: never half a UTF-8
 * character (at most 3 bytes backed off); *cut set when shorter. */
uint32_t llog__kv_str_len(const char *s, int *cut);

/* A string's slen[] entry with this bit: it was cut (its length is the
 * rest). */
#define LLOG__KV_SLEN_CUT 0x80000000u

/*
 * The call block of (ks, v): fills slen[] (per field: the kept length of
 * a string, with LLOG__KV_SLEN_CUT when it was cut) and returns its bytes, at most budget (fields that do not fit
 * are left out: *nstored of them are kept). Then llog__kv_call_write
 * writes it to dst (8-aligned). Producer, lock-free, malloc-free.
 */
uint32_t llog__kv_call_measure(const struct llog__kv_site *ks, const union llog__kv_val *v,
			       uint32_t budget, uint32_t *slen, uint32_t *nstored);
void llog__kv_call_write(const struct llog__kv_site *ks, const union llog__kv_val *v,
			 const uint32_t *slen, uint32_t nstored, void *dst);
/* Both in one pass: writes the call block of (ks, v) to dst, which has
 * room for budget bytes, and returns its bytes: the same bytes, and the
 * same fields kept, as llog__kv_call_measure with that budget and then
 * llog__kv_call_write (each string read twice: its length, its bytes).
 * Producer, lock-free, malloc-free. */
uint32_t llog__kv_call_put(const struct llog__kv_site *ks, const union llog__kv_val *v,
			   uint32_t budget, void *dst);

/* An entry list's size for n fields of f, and its bytes written to dst
 * (8-aligned) with `left` (fields_truncated carried as is). */
size_t llog__kv_list_size(const struct llog_field *f, size_t n);
void llog__kv_list_write(const struct llog_field *f, size_t n, uint32_t truncated, void *dst);

/* Reads a list written by llog__kv_list_write back into out[] and e. */
void llog__kv_list_entry(const void *list, struct llog_field *out, struct llog_entry *e);

/*
 * e->fields, nfields, fields_truncated from a context list (NULL or empty:
 * none) and a call block (NULL: none), into out[LLOG_FIELDS_MAX] (the
 * entry points into ctx, call and out: valid while they are). Counts
 * e->fields_truncated in llog_stats.fields_truncated. Writes only the
 * call block's hex values, once (above). Pure code, async-signal-safe.
 */
void llog__fields_entry_from(const void *ctx, const void *call, struct llog_field *out,
			     struct llog_entry *e);

/* The call block's fields (call: NULL for none) into out[n..), after n
 * context fields kept with trunc counted so far (fields left out, values
 * cut), then e->fields, nfields and fields_truncated, counted in
 * llog_stats.fields_truncated: any call block (kv.c). */
void llog__fields_entry_any(const void *call, struct llog_field *out, uint32_t n, uint32_t trunc,
			    struct llog_entry *e);

/*
 * The same, inline for the usual call block: room for every field (n +
 * stored at most LLOG_FIELDS_MAX), the keys' lengths from the site,
 * distinct keys, 8-byte values and whole strings, nothing left out or cut
 * (trunc 0): each field built where it goes. At the first thing that is
 * none of these, llog__fields_entry_any does the whole block. seen has bit
 * (length + first byte) % 64 set for each key built: a key whose bit is
 * clear repeats none (a call's keys are nearly always distinct). Keys and
 * types are read into locals: a store into out may alias the site's
 * arrays as far as the compiler knows.
 */
static inline __attribute__((always_inline)) void
llog__fields_entry_usual(const void *call, struct llog_field *out, uint32_t n, uint32_t trunc,
			 struct llog_entry *e)
{
	const struct llog__kv_site *ks;
	uint32_t nstored, left;
	const unsigned char *cp, *kl, *types;
	const char *const *keys;
	struct llog_field *f;
	uint64_t seen = 0;

	if (call == NULL) {
		llog__fields_entry_any(call, out, n, trunc, e);
		return;
	}
	memcpy(&ks, call, sizeof(ks));
	memcpy(&nstored, (const char *)call + 8, 4);
	memcpy(&left, (const char *)call + 12, 4);
	if (!(ks->n & LLOG__KV_SITE_KLENS) || nstored > LLOG_FIELDS_MAX - n || (trunc | left) != 0) {
		llog__fields_entry_any(call, out, n, trunc, e);
		return;
	}
	kl = ks->klens;
	keys = ks->keys;
	types = ks->types;
	cp = (const unsigned char *)call + LLOG__KV_CALL_HDR;
	f = out + n;
	for (uint32_t i = 0; i < nstored; i++, f++) {
		const char *key = keys[i];
		size_t klen = kl[i];
		unsigned t = types[i];
		uint64_t bit = UINT64_C(1) << ((klen + (unsigned char)key[0]) & 63), u;
		uint32_t len, meta;

		if (seen & bit) {
			llog__fields_entry_any(call, out, n, trunc, e);
			return;
		}
		if (t == LLOG_FIELD_STR) {
			memcpy(&len, cp, 4);
			memcpy(&meta, cp + 4, 4);
			if (meta != 0) {
				llog__fields_entry_any(call, out, n, trunc, e);
				return;
			}
			f->v.str.ptr = (const char *)cp + 8;
			f->v.str.len = len;
			cp += 8 + llog__kv_align8(len + 1u);
		} else if (t == LLOG_FIELD_BOOL) {
			memcpy(&u, cp, 8);
			f->v.b = u != 0;
			cp += 8;
		} else if (t != LLOG__KV_HEX) {
			memcpy(&f->v, cp, 8); /* I64, U64, F64 */
			cp += 8;
		} else {
			llog__fields_entry_any(call, out, n, trunc, e);
			return;
		}
		f->key = key;
		f->key_len = klen;
		f->type = (enum llog_field_type)t;
		f->flags = 0;
		seen |= bit;
	}
	n += nstored;
	e->fields = n != 0 ? out : NULL;
	e->nfields = n;
	e->fields_truncated = 0;
}

/* llog__fields_entry_from, inline where there is nothing to read (no call
 * block, an empty context that refused nothing): the flusher's case for
 * most records; a call block under an empty context skips the context's
 * part (llog__fields_entry_usual). */
static inline void llog__fields_entry(const void *ctx, const void *call, struct llog_field *out,
				      struct llog_entry *e)
{
	struct llog__kv_list h = {0, 0, 0, 0};

	if (ctx != NULL)
		memcpy(&h, ctx, sizeof(h));
	if (h.count != 0 || h.refused != 0) {
		llog__fields_entry_from(ctx, call, out, e);
		return;
	}
	if (call != NULL) {
		llog__fields_entry_usual(call, out, 0, 0, e);
		return;
	}
	e->fields = NULL;
	e->nfields = 0;
	e->fields_truncated = 0;
}

#endif /* LLOG_KV_H */
