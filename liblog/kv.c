/*
 * kv.c - structured fields: the call block a LOG_*_KV record carries, the
 * field lists of contexts and sink queues, and the entry a sink sees. See
 * kv.h for the formats.
 */
#include <string.h>

#include "kv.h"
#include "stats.h"

/* The kept length of s, longer than LLOG_FIELD_STR_MAX: never half a
 * UTF-8 character. */
static __attribute__((noinline, cold)) uint32_t str_cut(const char *s)
{
	size_t c = LLOG_FIELD_STR_MAX;

	/* s[c] is the first byte left out: while it continues a character,
	 * that character starts earlier and goes too (at most 3 back: a
	 * longer run is not UTF-8, cut where it stands). */
	while (c > LLOG_FIELD_STR_MAX - 3 && ((unsigned char)s[c] & 0xc0u) == 0x80u)
		c--;
	if (((unsigned char)s[c] & 0xc0u) == 0x80u)
		c = LLOG_FIELD_STR_MAX;
	return (uint32_t)c;
}

uint32_t llog__kv_str_len(const char *s, int *cut)
{
	size_t n = strnlen(s, LLOG_FIELD_STR_MAX + 1);

	*cut = n > LLOG_FIELD_STR_MAX;
	return __builtin_expect(*cut, 0) ? str_cut(s) : (uint32_t)n;
}

#define CALL_HDR LLOG__KV_CALL_HDR

/* A hex value's struct llog_hex (detail.h, llog__kv_hex). */
static const struct llog_hex *hex(const union llog__kv_val *v)
{
	return (const struct llog_hex *)(const void *)v->s;
}

/* A hex value's slot (its len bytes at p + len, room for 2 * len + 1):
 * made into its digits where it stands, once (KV_META_RAW then cleared).
 * Digit pair i goes to p[2i], p[2i + 1], never past byte len + i, which
 * was read before: no byte is overwritten before it is read. */
static void hex_expand(unsigned char *p, uint32_t len, unsigned char *meta_at)
{
	static const char digits[] = "0123456789abcdef";
	uint32_t meta;

	memcpy(&meta, meta_at, 4);
	if (!(meta & LLOG__KV_META_RAW))
		return;
	for (uint32_t i = 0; i < len; i++) {
		unsigned char b = p[len + i];

		p[2 * i] = (unsigned char)digits[b >> 4];
		p[2 * i + 1] = (unsigned char)digits[b & 15];
	}
	p[2 * len] = '\0';
	meta &= ~LLOG__KV_META_RAW;
	memcpy(meta_at, &meta, 4);
}

uint32_t llog__kv_call_measure(const struct llog__kv_site *ks, const union llog__kv_val *v,
			       uint32_t budget, uint32_t *slen, uint32_t *nstored)
{
	uint32_t n = CALL_HDR, i;

	for (i = 0; i < LLOG__KV_SITE_N(ks); i++) {
		uint32_t need = 8;

		if (ks->types[i] == LLOG_FIELD_STR && v[i].s != NULL) {
			int cut;

			slen[i] = llog__kv_str_len(v[i].s, &cut);
			need += llog__kv_align8(slen[i] + 1u);
			if (cut)
				slen[i] |= LLOG__KV_SLEN_CUT;
		} else if (ks->types[i] == LLOG__KV_HEX && hex(&v[i]) != NULL &&
			   hex(&v[i])->ptr != NULL) {
			size_t len = hex(&v[i])->len;

			slen[i] = len < LLOG_HEX_MAX ? (uint32_t)len : LLOG_HEX_MAX;
			need += llog__kv_align8(2u * slen[i] + 1u); /* room for the digits */
		}
		if (n + need > budget)
			break;
		n += need;
	}
	*nstored = i;
	return n;
}

void llog__kv_call_write(const struct llog__kv_site *ks, const union llog__kv_val *v,
			 const uint32_t *slen, uint32_t nstored, void *dst)
{
	unsigned char *p = dst;
	uint32_t left = LLOG__KV_SITE_N(ks) - nstored;

	memcpy(p, &ks, sizeof(ks));
	memcpy(p + 8, &nstored, 4);
	memcpy(p + 12, &left, 4);
	p += CALL_HDR;
	for (uint32_t i = 0; i < nstored; i++) {
		if (ks->types[i] == LLOG__KV_HEX) {
			const struct llog_hex *h = hex(&v[i]);
			uint32_t meta = LLOG__KV_META_NULL, len = 0;

			if (h != NULL && h->ptr != NULL) {
				len = slen[i];
				meta = LLOG__KV_META_RAW | (h->len > len ? LLOG__KV_META_CUT : 0);
			}
			memcpy(p, &len, 4);
			memcpy(p + 4, &meta, 4);
			p += 8;
			if (h != NULL && h->ptr != NULL) {
				/* the bytes, in the upper half of the digits' room */
				memcpy(p + len, h->ptr, len);
				p += llog__kv_align8(2u * len + 1u);
			}
			continue;
		}
		if (ks->types[i] != LLOG_FIELD_STR) {
			memcpy(p, &v[i], 8);
			p += 8;
			continue;
		}
		uint32_t meta = 0, len = 0;

		if (v[i].s == NULL) {
			meta = LLOG__KV_META_NULL;
		} else {
			len = slen[i] & ~LLOG__KV_SLEN_CUT;
			meta = (slen[i] & LLOG__KV_SLEN_CUT) ? LLOG__KV_META_CUT : 0;
		}
		memcpy(p, &len, 4);
		memcpy(p + 4, &meta, 4);
		p += 8;
		if (!(meta & LLOG__KV_META_NULL)) {
			memcpy(p, v[i].s, len);
			p[len] = '\0';
			p += llog__kv_align8(len + 1u);
		}
	}
}

uint32_t llog__kv_call_put(const struct llog__kv_site *ks, const union llog__kv_val *v,
			   uint32_t budget, void *dst)
{
	/* Few values live across the calls: the types walked by pointer,
	 * the budget left (no field fits in none, each needs 8 or more), the
	 * block's bytes and its counts worked out from the pointers after. */
	const unsigned char *types = ks->types, *t = types, *tend = types + LLOG__KV_SITE_N(ks);
	unsigned char *p = (unsigned char *)dst + CALL_HDR;
	uint32_t room = budget > CALL_HDR ? budget - CALL_HDR : 0, kept, left;

	for (; t != tend; t++, v++) {
		uint32_t need = 8, len = 0, meta = LLOG__KV_META_NULL;

		if (*t != LLOG_FIELD_STR && *t != LLOG__KV_HEX) {
			/* an 8-byte value (LLOG_FIELD_I64 .. LLOG_FIELD_BOOL) */
			if (room < 8)
				break;
			memcpy(p, v, 8);
			p += 8;
			room -= 8;
			continue;
		}
		if (*t == LLOG_FIELD_STR) {
			const char *s = v->s;

			if (s != NULL) {
				len = (uint32_t)strnlen(s, LLOG_FIELD_STR_MAX + 1);
				meta = 0;
				if (__builtin_expect(len > LLOG_FIELD_STR_MAX, 0)) {
					len = str_cut(s);
					meta = LLOG__KV_META_CUT;
				}
				need += llog__kv_align8(len + 1u);
			}
			if (need > room)
				break;
			memcpy(p, &len, 4);
			memcpy(p + 4, &meta, 4);
			if (s != NULL) {
				memcpy(p + 8, s, len);
				p[8 + len] = '\0';
			}
		} else {
			const struct llog_hex *h = hex(v);

			if (h != NULL && h->ptr != NULL) {
				len = h->len < LLOG_HEX_MAX ? (uint32_t)h->len : LLOG_HEX_MAX;
				meta = LLOG__KV_META_RAW | (h->len > len ? LLOG__KV_META_CUT : 0);
				need += llog__kv_align8(2u * len + 1u); /* room for the digits */
			}
			if (need > room)
				break;
			memcpy(p, &len, 4);
			memcpy(p + 4, &meta, 4);
			if (h != NULL && h->ptr != NULL)
				/* the bytes, in the upper half of the digits' room */
				memcpy(p + 8 + len, h->ptr, len);
		}
		p += need;
		room -= need;
	}
	kept = (uint32_t)(t - types);
	left = LLOG__KV_SITE_N(ks) - kept;
	memcpy(dst, &ks, sizeof(ks));
	memcpy((unsigned char *)dst + 8, &kept, 4);
	memcpy((unsigned char *)dst + 12, &left, 4);
	return (uint32_t)(p - (unsigned char *)dst);
}

size_t llog__kv_list_size(const struct llog_field *f, size_t n)
{
	size_t b = sizeof(struct llog__kv_list);

	for (size_t i = 0; i < n; i++)
		b += sizeof(struct llog__kv_ent) +
		     llog__kv_align8(f[i].key_len + 1 +
				     (f[i].type == LLOG_FIELD_STR ? f[i].v.str.len + 1 : 0));
	return b;
}

void llog__kv_list_write(const struct llog_field *f, size_t n, uint32_t truncated, void *dst)
{
	struct llog__kv_list h = {(uint32_t)n, (uint32_t)llog__kv_list_size(f, n), 0, truncated};
	unsigned char *p = (unsigned char *)dst + sizeof(h);

	memcpy(dst, &h, sizeof(h));
	for (size_t i = 0; i < n; i++) {
		struct llog__kv_ent en = {(uint8_t)f[i].type, (uint8_t)f[i].flags,
					  (uint16_t)f[i].key_len, 0, {0}};
		size_t tail = f[i].key_len + 1;

		if (f[i].type == LLOG_FIELD_STR) {
			en.slen = (uint32_t)f[i].v.str.len;
		} else if (f[i].type == LLOG_FIELD_BOOL) {
			en.v.u = f[i].v.b != 0;
		} else {
			memcpy(&en.v, &f[i].v, sizeof(en.v)); /* i64, u64, f64 */
		}
		memcpy(p, &en, sizeof(en));
		p += sizeof(en);
		memcpy(p, f[i].key, f[i].key_len);
		p[f[i].key_len] = '\0';
		if (f[i].type == LLOG_FIELD_STR) {
			memcpy(p + tail, f[i].v.str.ptr, en.slen);
			p[tail + en.slen] = '\0';
			tail += (size_t)en.slen + 1;
		}
		p += llog__kv_align8(tail);
	}
}

/* One list entry at p into *f; returns the next entry. */
static const unsigned char *ent_field(const unsigned char *p, struct llog_field *f)
{
	struct llog__kv_ent en;
	size_t tail;

	memcpy(&en, p, sizeof(en));
	p += sizeof(en);
	f->key = (const char *)p;
	f->key_len = en.klen;
	f->type = (enum llog_field_type)en.type;
	f->flags = en.flags;
	tail = (size_t)en.klen + 1;
	if (en.type == LLOG_FIELD_STR) {
		f->v.str.ptr = (const char *)p + tail;
		f->v.str.len = en.slen;
		tail += (size_t)en.slen + 1;
	} else if (en.type == LLOG_FIELD_BOOL) {
		f->v.b = en.v.u != 0;
	} else {
		memcpy(&f->v, &en.v, sizeof(en.v));
	}
	return p + llog__kv_align8(tail);
}

void llog__kv_list_entry(const void *list, struct llog_field *out, struct llog_entry *e)
{
	struct llog__kv_list h;
	const unsigned char *p = (const unsigned char *)list + sizeof(h);

	memcpy(&h, list, sizeof(h));
	for (uint32_t i = 0; i < h.count && i < LLOG_FIELDS_MAX; i++)
		p = ent_field(p, &out[i]);
	e->fields = h.count != 0 ? out : NULL;
	e->nfields = h.count < LLOG_FIELDS_MAX ? h.count : LLOG_FIELDS_MAX;
	e->fields_truncated = h.left;
}

/* The site's key lengths, made at compile time (detail.h); NULL for a
 * site of an older llog.h, whose keys are measured. */
static inline const unsigned char *site_klens(const struct llog__kv_site *ks)
{
	return (ks->n & LLOG__KV_SITE_KLENS) ? ks->klens : NULL;
}

static inline size_t key_len(const struct llog__kv_site *ks, const unsigned char *kl, uint32_t i)
{
	return kl != NULL ? kl[i] : strlen(ks->keys[i]);
}

/* The call block's field i at *pp into *f (key from the site, its length
 * from kl: site_klens). */
static inline void call_field(const struct llog__kv_site *ks, const unsigned char *kl,
			      uint32_t i, const unsigned char **pp, struct llog_field *f)
{
	const unsigned char *p = *pp;

	f->key = ks->keys[i];
	f->key_len = key_len(ks, kl, i);
	f->type = (enum llog_field_type)ks->types[i];
	f->flags = 0;
	if (ks->types[i] == LLOG__KV_HEX) {
		uint32_t len, meta;

		memcpy(&len, p, 4);
		memcpy(&meta, p + 4, 4);
		if (meta & LLOG__KV_META_NULL) {
			f->type = LLOG_FIELD_NULL;
			*pp = p + 8;
			return;
		}
		/* The record is the reader's until its bytes are released. */
		hex_expand((unsigned char *)(uintptr_t)(p + 8), len,
			   (unsigned char *)(uintptr_t)(p + 4));
		f->type = LLOG_FIELD_STR;
		f->flags = LLOG_FIELD_HEX | ((meta & LLOG__KV_META_CUT) ? LLOG_FIELD_TRUNCATED : 0);
		f->v.str.ptr = (const char *)p + 8;
		f->v.str.len = 2u * (size_t)len;
		*pp = p + 8 + llog__kv_align8(2u * len + 1u);
		return;
	}
	if (f->type != LLOG_FIELD_STR) {
		union llog__kv_val v;

		memcpy(&v, p, sizeof(v));
		if (f->type == LLOG_FIELD_BOOL)
			f->v.b = v.u != 0;
		else
			memcpy(&f->v, &v, sizeof(v));
		*pp = p + 8;
		return;
	}
	uint32_t len, meta;

	memcpy(&len, p, 4);
	memcpy(&meta, p + 4, 4);
	p += 8;
	if (meta & LLOG__KV_META_NULL) {
		f->type = LLOG_FIELD_NULL;
		*pp = p;
		return;
	}
	f->v.str.ptr = (const char *)p;
	f->v.str.len = len;
	if (meta & LLOG__KV_META_CUT)
		f->flags = LLOG_FIELD_TRUNCATED;
	*pp = p + llog__kv_align8(len + 1u);
}

/* Whether the call block has a field named key. */
static int call_has(const struct llog__kv_site *ks, uint32_t nstored, const char *key,
		    size_t klen)
{
	const unsigned char *kl = site_klens(ks);

	for (uint32_t i = 0; i < nstored; i++)
		if (key_len(ks, kl, i) == klen && memcmp(ks->keys[i], key, klen) == 0)
			return 1;
	return 0;
}

/* Whether one of the n fields at o is named key (their lengths and first
 * bytes first: the keys of a call are its site's, nearly always distinct). */
static int kept_has(const struct llog_field *o, uint32_t n, const char *key, size_t klen)
{
	for (uint32_t i = 0; i < n; i++)
		if (o[i].key_len == klen && (klen == 0 || o[i].key[0] == key[0]) &&
		    memcmp(o[i].key, key, klen) == 0)
			return 1;
	return 0;
}

/*
 * Any call block (kv.h, llog__fields_entry_any): each field whatever it
 * is (a key the call repeats, a hex, NULL or cut value, LLOG_FIELDS_MAX
 * reached, a site without its keys' lengths). The fields from first on
 * are the call's; seen has bit (length + first byte) % 64 set for each
 * kept call key, as llog__fields_entry_usual makes it: a key whose bit is
 * clear repeats none, and only the others are compared. From the block's
 * start (what the usual path wrote into out[n..) is written again).
 */
void llog__fields_entry_any(const void *call, struct llog_field *out, uint32_t n, uint32_t trunc,
			    struct llog_entry *e)
{
	const struct llog__kv_site *ks = NULL;
	uint32_t nstored = 0, left = 0, first = n;
	const unsigned char *cp = NULL, *kl = NULL;
	uint64_t seen = 0;

	if (call != NULL) {
		memcpy(&ks, call, sizeof(ks));
		memcpy(&nstored, (const char *)call + 8, 4);
		memcpy(&left, (const char *)call + 12, 4);
		cp = (const unsigned char *)call + CALL_HDR;
		trunc += left;
		kl = site_klens(ks);
	}
	for (uint32_t i = 0; i < nstored; i++) {
		struct llog_field spare, *f = &out[n];
		uint64_t bit;

		if (__builtin_expect(n == LLOG_FIELDS_MAX, 0))
			f = &spare;
		call_field(ks, kl, i, &cp, f);
		bit = UINT64_C(1) << ((f->key_len + (unsigned char)f->key[0]) & 63);
		/* A key repeated in the call: the first kept (an earlier one
		 * left out for LLOG_FIELDS_MAX leaves this one out too). */
		if (f == &spare ||
		    ((seen & bit) && kept_has(out + first, n - first, f->key, f->key_len))) {
			trunc++;
			continue;
		}
		seen |= bit;
		trunc += (f->flags & LLOG_FIELD_TRUNCATED) != 0;
		n++;
	}
	e->fields = n != 0 ? out : NULL;
	e->nfields = n;
	e->fields_truncated = trunc;
	if (trunc != 0)
		llog__count(fields_truncated, trunc);
}

void llog__fields_entry_from(const void *ctx, const void *call, struct llog_field *out,
			     struct llog_entry *e)
{
	const struct llog__kv_site *ks = NULL;
	uint32_t nstored = 0, n = 0, trunc = 0;
	struct llog__kv_list h = {0, 0, 0, 0};

	if (call != NULL) { /* the call's keys win over the context's */
		memcpy(&ks, call, sizeof(ks));
		memcpy(&nstored, (const char *)call + 8, 4);
	}
	if (ctx != NULL) {
		const unsigned char *p = (const unsigned char *)ctx + sizeof(h);

		memcpy(&h, ctx, sizeof(h));
		trunc += h.refused;
		for (uint32_t i = 0; i < h.count; i++) {
			struct llog_field f;

			p = ent_field(p, &f);
			if (ks != NULL && call_has(ks, nstored, f.key, f.key_len))
				continue; /* the call wins */
			if (n == LLOG_FIELDS_MAX) {
				trunc++;
				continue;
			}
			trunc += (f.flags & LLOG_FIELD_TRUNCATED) != 0;
			out[n++] = f;
		}
	}
	llog__fields_entry_usual(call, out, n, trunc, e);
}
