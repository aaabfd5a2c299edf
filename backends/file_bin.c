/*
 * file_bin.c - the file sink's binary records (LLOG_FILE_BINARY): entries
 * into records, call sites into their definitions. The frames, files and
 * retry are file.c's and file_rotate.c's, as in text mode.
 *
 * DESIGN
 * A record stores what the producer captured (capture.h): the call site's
 * id, the time, the sequence number, the thread when it changed, and the
 * argument bytes as they are in the arena (fmt.h's layout, strings copied
 * at the call); llogcat renders it later with the same llog__fmt_render and
 * line formatter as the text mode. The capture comes beside the entry on
 * the flusher and, on a thread of its own, as its queue's copy (capture.h);
 * on the flusher a LOG record without fields may come alone, without an
 * entry (struct llog__capture_rec, the direct path: llog__bin_encode_rec),
 * and is stored as the same bytes: a site met before (the memo below) in
 * a frame whose last record was of the same thread (its arena and
 * thread_epoch, capture.h) is written by put_direct, anything else as the
 * entry it stands for (llog__capture_rec_entry). A run of them comes in one
 * call (llog__bin_encode_run): the memo asked once per streak of a site,
 * the thread once per streak of a thread, the chunk's room with one bound.
 * An entry without a capture (an EAGER plan, a TEXT record, a notice) is
 * stored as its rendered message (a TEXT record). The entry's structured fields ride in
 * the record's extension blob (put_ext: item kind 1, typed, exact values).
 * The layout: docs/file-format.md.
 *
 * Call sites. Each distinct site gets an id, in order of first use, from a
 * table of this sink (keyed by the struct llog_site's address, or for text
 * entries by the text of file and function, line, level and category: a
 * sink's queue hands out copies of the strings; when a capture's
 * generation (capture.h: fmt_cache.h's, counting unloaded libraries) is not
 * the one its key last matched, the key is checked against its definition
 * once: the address may hold another library's site); its definition
 * (format, plan, file, line, function, level: the capture's format and the
 * entry's fields, never read through the site) is serialised once, at first
 * use, into `defs`; its packing state (binpack.h: each argument's step,
 * resolved then once, and the previous values) is set up with it.
 * A chunk (one future frame) notes the ids allocated up to its end; before
 * its frame is written to a file, the definitions of the ids that file has
 * not seen yet go out as sites frames in the same write(2):
 *
 *   every id a frame uses < chunk.sites <= in_file   (when it is written)
 *
 * and in_file falls back to 0 whenever the sink starts another file
 * (creation, rotation, reopen, truncation: file_gen or need_meta), so each
 * file holds the definitions of every id it uses, before the first use.
 * Ids are per stream: a random 64-bit id that every sites frame and data
 * frame carries; a fork child takes a new one (after_fork), so two
 * processes appending to one file never mix their tables.
 *
 * Frames are self-contained for the rest: sequence, time and thread are
 * deltas from the previous record of the same frame (from 0 at its start),
 * so a lost, torn or interleaved frame costs only itself.
 *
 * No allocation after creation (the site table, its definitions and a
 * render buffer are allocated at their bounds; pages are backed as used).
 * A site that finds the table full (LLOG__BIN_SITES) or a format longer
 * than SITE_STR_MAX is stored as rendered text, which needs a site too:
 * when even that is impossible the record is counted lost. Flusher thread
 * only (or its crash handler: no allocation, no lock, pure code).
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "binpack.h"
#include "capture.h"
#include "fileformat.h"
#include "sink.h"
#include "file.h"

#define LLOG__BIN_SITES 65536u    /* ids per stream */
#define HASH_SLOTS (2u * LLOG__BIN_SITES)
#define DEFS_CAP ((size_t)8 << 20) /* bytes of definitions, at most */
#define SITE_STR_MAX LLOG__CAPTURE_FMT_MAX /* a longer format (or name): stored as text */
#define SCRATCH_CAP LLOG__CAPTURE_TEXT_MAX /* a record rendered here (fallback) */
#define SITES_HDR 28 /* "LLS" ver, stream, room, first, count, check */
#define MEMO_SLOTS 64u /* the sites whose ids are remembered (struct llog__bin) */

struct bin_key {
	const void *site;  /* LOG: the llog_site's address; TEXT: NULL */
	int line;          /* LOG: its line, as when defined */
	uint64_t gen;      /* LOG: the generation (capture.h) last matched */
	uint64_t h;        /* TEXT: hash of file, function, line, level */
	uint32_t id1;      /* id + 1; 0: free slot */
};

struct llog__bin {
	uint64_t stream;
	struct bin_key *slot;      /* HASH_SLOTS */
	uint32_t nsites;           /* ids allocated */
	uint32_t *off;             /* offset in defs of each id's definition */
	char *defs;
	size_t defs_len;
	/* The render bound of the captures (render.h), set by the first
	 * capture encoded; read by the writer thread's sites frames while
	 * the flusher encodes (file_writer.c). Relaxed: one value, ever, set
	 * before any chunk holding a capture is handed to the writer, whose
	 * acquire of target then sees it (an atomic only because the
	 * flusher reads it while the writer may). */
	_Atomic size_t room;
	char *scratch;             /* SCRATCH_CAP */
	struct llog__pack_site *pack; /* LLOG__BIN_SITES: PLOG records' state */
	uint64_t frames;           /* frames started: the packing stamp */
	/* The ids of the LOG sites met last, by address (MEMO_SLOTS,
	 * direct-mapped): a site met before skips the table and its checks
	 * (valid for captures of generation gen: ids are never reused, and a
	 * site's category is a field of the site, which never changes
	 * unloaded). Not on the crash path (!fr->pack): it may have
	 * interrupted an update. */
	struct bin_memo {
		const void *site;
		uint64_t gen;
		long id;
	} memo[MEMO_SLOTS];
};

/* ---- encoding ------------------------------------------------------------ */

static char *put_varint(char *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (char)(v | 0x80);
		v >>= 7;
	}
	*p++ = (char)v;
	return p;
}

static char *put_u32(char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (char)(v >> (8 * i));
	return p + 4;
}

static char *put_u64(char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (char)(v >> (8 * i));
	return p + 8;
}

static char *put_str(char *p, const char *s, size_t n)
{
	p = put_varint(p, n);
	memcpy(p, s, n);
	return p + n;
}

/* ---- the site table ------------------------------------------------------ */

static uint32_t slot_of(uint64_t h)
{
	h ^= h >> 29;
	return (uint32_t)(h * 0xBF58476D1CE4E5B9ull >> 40) & (HASH_SLOTS - 1);
}

/* A TEXT site's key: FNV-1a 64 of its file and function (as define() keeps
 * them), line and level. */
static uint64_t text_hash(const char *file, const char *func, int line, int level)
{
	const char *s[2] = {file, func};
	uint64_t h = 14695981039346656037ull;

	for (int k = 0; k < 2; k++) {
		size_t n = strnlen(s[k], SITE_STR_MAX);

		for (size_t i = 0; i < n; i++)
			h = (h ^ (unsigned char)s[k][i]) * 1099511628211ull;
		h = (h ^ 0xff) * 1099511628211ull;
	}
	return h ^ ((uint64_t)(unsigned)line << 8 | (unsigned)level);
}

static const char *get_varint(const char *p, uint64_t *v)
{
	int shift = 0;

	*v = 0;
	do
		*v |= (uint64_t)(*p & 0x7f) << shift, shift += 7;
	while (*p++ & 0x80);
	return p;
}

static int same_str(const char **p, const char *s)
{
	uint64_t n;
	size_t sl = strnlen(s, SITE_STR_MAX);

	*p = get_varint(*p, &n);
	if (n != sl || memcmp(*p, s, sl) != 0)
		return 0;
	*p += n;
	return 1;
}

/* Whether definition id is the TEXT site (file, func, line, level) in
 * category (cat, cl): two sites of one line may differ only in it. */
static int text_def_is(const struct llog__bin *b, uint32_t id, const char *file,
		       const char *func, int line, int level, const char *cat, size_t cl)
{
	const char *p = b->defs + b->off[id] + 5; /* past the padded length */
	const char *end = id + 1 < b->nsites ? b->defs + b->off[id + 1] : b->defs + b->defs_len;
	uint64_t v;

	if (p[0] != (char)LLOG_BIN_SITE_TEXT || p[1] != (char)level)
		return 0;
	p = get_varint(p + 2, &v);
	if (v != (uint32_t)line)
		return 0;
	p += 2 + (unsigned char)p[0]; /* nargs, flags, types */
	p = get_varint(p, &v);        /* the (empty) format */
	p += v;
	if (!same_str(&p, file) || !same_str(&p, func))
		return 0;
	if (p == end)
		return cl == 0;
	p = get_varint(p, &v);
	return v == cl && memcmp(p, cat, cl) == 0;
}

/* Whether definition id is the LOG site of capture c (entry e) in
 * category (cat, cl), field by field as define() wrote it: after an unload
 * the site's address may hold another site. */
static int log_def_is(const struct llog__bin *b, uint32_t id, const struct llog__capture *c,
		      const struct llog_entry *e, const char *cat, size_t cl)
{
	const char *p = b->defs + b->off[id] + 5, *end;
	uint64_t v;

	end = id + 1 < b->nsites ? b->defs + b->off[id + 1] : b->defs + b->defs_len;
	if (p[0] != (char)LLOG_BIN_SITE_LOG || p[1] != (char)e->level)
		return 0;
	p = get_varint(p + 2, &v);
	if (v != (uint32_t)e->line || (unsigned char)p[0] != (c->plan ? c->plan->nargs : 0) ||
	    (unsigned char)p[1] != (c->plan ? c->plan->flags & LLOG__PLAN_FILE_FLAGS : 0) ||
	    (c->plan && memcmp(p + 2, c->plan->type, c->plan->nargs) != 0))
		return 0;
	p += 2 + (unsigned char)p[0];
	if (!same_str(&p, c->fmt) || !same_str(&p, e->file ? e->file : "") ||
	    !same_str(&p, e->func ? e->func : ""))
		return 0;
	if (p == end)
		return cl == 0;
	p = get_varint(p, &v);
	return v == cl && memcmp(p, cat, cl) == 0;
}

/* Serialises a definition into defs; returns its id, or -1 when full. */
static long define(struct llog__bin *b, unsigned kind, int level, int line,
		   const struct llog__plan *plan, const char *fmt, const char *file,
		   const char *func, const char *cat, size_t cl)
{
	size_t fl = strnlen(fmt, SITE_STR_MAX + 1), il = strnlen(file, SITE_STR_MAX),
	       nl = strnlen(func, SITE_STR_MAX);
	size_t need = 4 * 10 + 5 + 4 + (plan ? plan->nargs : 0) + fl + il + nl + cl + 10;
	char *p, *q;

	if (fl > SITE_STR_MAX || b->nsites >= LLOG__BIN_SITES || DEFS_CAP - b->defs_len < need)
		return -1;
	p = b->defs + b->defs_len;
	q = p + 5; /* room for the length, filled in last */
	*q++ = (char)kind;
	*q++ = (char)level;
	q = put_varint(q, (uint32_t)line);
	*q++ = (char)(plan ? plan->nargs : 0);
	*q++ = (char)(plan ? plan->flags & LLOG__PLAN_FILE_FLAGS : 0);
	if (plan != NULL) {
		memcpy(q, plan->type, plan->nargs);
		q += plan->nargs;
	}
	q = put_str(q, fmt, fl);
	q = put_str(q, file, il);
	q = put_str(q, func, nl);
	/* Appended after the first version's fields (file-format.md 3): the
	 * category, absent for the default one. */
	if (cl != 0)
		q = put_str(q, cat, cl);
	/* The length as a varint of exactly 5 bytes (padded), so the body
	 * need not move. */
	{
		uint64_t len = (uint64_t)(q - (p + 5));

		for (int i = 0; i < 4; i++)
			p[i] = (char)((len >> (7 * i)) | 0x80);
		p[4] = (char)(len >> 28);
	}
	b->off[b->nsites] = (uint32_t)b->defs_len;
	b->defs_len += (size_t)(q - p);
	if (plan != NULL)
		llog__pack_site_init(&b->pack[b->nsites], fmt, plan);
	return (long)b->nsites++;
}

/* The id of a site (LOG: keyed by the capture's site address and
 * generation; TEXT: by file, function, line and level), defining it on
 * first use; -1 when the table is full. A LOG site's format, file, line,
 * function and level are the capture's fmt and the entry's (capture.h):
 * never read through the site, which a queued copy may outlive. */
static long site_id(struct llog__bin *b, const struct llog_entry *e, const struct llog__capture *c)
{
	const char *file = e->file ? e->file : "", *func = e->func ? e->func : "";
	const void *site = c ? (const void *)c->site : NULL;
	uint64_t h = c ? (uint64_t)(uintptr_t)site * 0x9E3779B97F4A7C15ull
		       : text_hash(file, func, e->line, (int)e->level);
	uint32_t i = slot_of(h);
	uint64_t gen = c ? c->gen : 0;
	size_t cl = e->category != NULL ? strnlen(e->category, e->category_len) : 0;
	long id;

	cl = cl <= SITE_STR_MAX ? cl : SITE_STR_MAX;
	for (;; i = (i + 1) & (HASH_SLOTS - 1)) {
		struct bin_key *k = &b->slot[i];

		if (k->id1 == 0)
			break;
		if (k->site != site || k->h != h)
			continue;
		if (site == NULL) {
			if (text_def_is(b, k->id1 - 1, file, func, e->line, (int)e->level,
					e->category, cl))
				return (long)k->id1 - 1;
			continue;
		}
		if (k->line != e->line)
			continue;
		/* A library was unloaded since: the same addresses may be
		 * another site now (fmt_cache.h); a different one takes
		 * this slot with an id of its own. */
		if (k->gen == gen || log_def_is(b, k->id1 - 1, c, e, e->category, cl)) {
			k->gen = gen;
			return (long)k->id1 - 1;
		}
		break;
	}
	if (c != NULL)
		id = define(b, LLOG_BIN_SITE_LOG, (int)e->level, e->line, c->plan, c->fmt, file, func,
			    e->category, cl);
	else
		id = define(b, LLOG_BIN_SITE_TEXT, (int)e->level, e->line, NULL, "", file, func,
			    e->category, cl);
	if (id < 0)
		return -1;
	/* At most LLOG__BIN_SITES of HASH_SLOTS slots used: a free one exists. */
	b->slot[i] = (struct bin_key){site, c ? e->line : 0, gen, h, (uint32_t)id + 1};
	return id;
}

/* ---- records ------------------------------------------------------------- */

/* The most bytes of text a capture stored as text takes (fallback_text). */
static size_t text_bound(const struct llog__capture *c)
{
	return llog__bin_text_bound(c); /* SCRATCH_CAP: LLOG__CAPTURE_TEXT_MAX */
}

/*
 * The entry's fields as an extension item (docs/file-format.md):
 *   varint fields_truncated, varint n, then per field
 *   u8 type (| LLOG_BIN_FIELD_CUT), varint key length, the key, the value:
 *   I64 zigzag varint, U64 varint, F64 8 bytes little-endian (the IEEE 754
 *   bits), BOOL u8, NULL nothing, STR varint length and the bytes.
 */
static size_t fields_bound(const struct llog_entry *e)
{
	size_t n = 0;

	if (e->nfields == 0 && e->fields_truncated == 0)
		return 0;
	n = 10 /* ext length */ + 1 + 10 /* item */ + 2 * 10;
	for (size_t i = 0; i < e->nfields; i++)
		n += 1 + 10 + e->fields[i].key_len + 10 +
		     (e->fields[i].type == LLOG_FIELD_STR ? e->fields[i].v.str.len : 0);
	return n;
}

static char *put_fields(char *p, const struct llog_entry *e)
{
	p = put_varint(p, e->fields_truncated);
	p = put_varint(p, e->nfields);
	for (size_t i = 0; i < e->nfields; i++) {
		const struct llog_field *f = &e->fields[i];
		unsigned t = (unsigned)f->type;
		uint64_t bits;

		if (f->type == LLOG_FIELD_STR && (f->flags & LLOG_FIELD_TRUNCATED))
			t |= LLOG_BIN_FIELD_CUT;
		*p++ = (char)t;
		p = put_str(p, f->key, f->key_len);
		switch (f->type) {
		case LLOG_FIELD_I64:
			p = put_varint(p, ((uint64_t)f->v.i64 << 1) ^ (uint64_t)(f->v.i64 >> 63));
			break;
		case LLOG_FIELD_U64:
			p = put_varint(p, f->v.u64);
			break;
		case LLOG_FIELD_F64:
			memcpy(&bits, &f->v.f64, 8);
			p = put_u64(p, bits);
			break;
		case LLOG_FIELD_BOOL:
			*p++ = (char)(f->v.b != 0);
			break;
		case LLOG_FIELD_STR:
			p = put_str(p, f->v.str.ptr, f->v.str.len);
			break;
		default:
			break;
		}
	}
	return p;
}

/* The extension blob (flag LLOG_BIN_F_EXT): one fields item. Its length
 * is known only once written: encoded after, then moved into place. */
static char *put_ext(char *p, const struct llog_entry *e)
{
	char item[10 + 1 + 10], *q;
	char *start = p + sizeof(item) + 10; /* room for both headers */
	char *end = put_fields(start, e);
	size_t n = (size_t)(end - start), hl;

	q = item;
	*q++ = (char)LLOG_BIN_EXT_FIELDS;
	q = put_varint(q, n);
	hl = (size_t)(q - item);
	q = put_varint(p, n + hl);
	memcpy(q, item, hl);
	memmove(q + hl, start, n);
	return q + hl + n;
}

size_t llog__bin_bound(const struct llog__file_sink *fs, const struct llog_entry *e)
{
	const struct llog__capture *c = llog__capture_of(e);
	size_t body = c != NULL ? c->len : e->msg_len;

	if (c != NULL) /* it may become text (at most text_bound: encode), or be packed */
		body = LLOG__PACK_BOUND(body > text_bound(c) ? body : text_bound(c));
	(void)fs;
	return 16 + 12 + 16 /* thread */ + 6 * 10 + body + fields_bound(e);
}

/* The record's message as text when its capture cannot be stored. */
static const char *fallback_text(struct llog__bin *b, const struct llog__capture *c, size_t *len)
{
	int trunc = c->truncated;
	size_t room = c->room < SCRATCH_CAP - LLOG__MARKER_LEN ? c->room
							       : SCRATCH_CAP - LLOG__MARKER_LEN;
	size_t n = llog__fmt_render(b->scratch, room, c->fmt, c->plan, c->args, &trunc);

	if (trunc) {
		memcpy(b->scratch + n, LLOG__MARKER, LLOG__MARKER_LEN);
		n += LLOG__MARKER_LEN;
	}
	*len = n;
	return b->scratch;
}

/* A record's header fields, from an entry or a capture handed directly. */
struct rec_head {
	uint64_t tid;
	const char *name;
	size_t nlen;            /* at most 15 */
	const void *thread;     /* with epoch: the thread's identity, or NULL
				   (capture.h, struct llog__capture_rec) */
	uint64_t epoch;
	uint64_t seq;
	int64_t ts;
	uint64_t suppressed;
	int backtrace;
	const struct llog_entry *ext; /* its fields (LLOG_BIN_F_EXT), or NULL */
};

/* Whether fr's last record was of this thread: known by its identity
 * (thread, epoch; NULL: none), else compared, and the identity noted. */
static inline int same_thread(struct llog__bin_frame *fr, uint64_t tid, const char *name,
			      size_t nlen, const void *thread, uint64_t epoch)
{
	if (!fr->started || !fr->has_thread)
		return 0;
	if (thread == NULL || fr->thread != thread || fr->thread_epoch != epoch) {
		if (fr->tid != tid || fr->name_len != nlen || memcmp(fr->name, name, nlen) != 0)
			return 0;
		fr->thread = thread;
		fr->thread_epoch = epoch;
	}
	return 1;
}

/* The frame's header when fr is fresh, and a THREAD item unless the
 * thread is the frame's last one (same_thread). */
static char *put_frame_thread(struct llog__bin *b, struct llog__bin_frame *fr, uint64_t tid,
			      const char *name, size_t nlen, const void *thread, uint64_t epoch,
			      char *p)
{
	if (!fr->started) {
		memcpy(p, LLOG_BIN_HEAD, 3);
		p[3] = (char)LLOG_BIN_VERSION;
		p = put_u64(p + 4, b->stream);
		fr->started = 1;
		fr->stamp = ++b->frames;
		fr->seq = 0;
		fr->ts = 0;
		fr->has_thread = 0;
	}
	if (same_thread(fr, tid, name, nlen, thread, epoch))
		return p;
	*p++ = (char)LLOG_BIN_THREAD;
	p = put_varint(p, tid);
	*p++ = (char)nlen;
	memcpy(p, name, nlen);
	p += nlen;
	fr->has_thread = 1;
	fr->tid = tid;
	fr->name_len = (unsigned char)nlen;
	memcpy(fr->name, name, nlen);
	fr->thread = thread;
	fr->thread_epoch = epoch;
	return p;
}

/* A packed body's length varint of more than a byte: the body (n bytes
 * at p + 1) moves on. Returns its end. */
static __attribute__((noinline)) char *long_body(char *p, size_t n)
{
	char lb[10];
	size_t ll = (size_t)(put_varint(lb, n) - lb);

	memmove(p + ll, p + 1, n);
	memcpy(p, lb, ll);
	return p + ll + n;
}

/* A record of site id after the frame's header and thread: tag (its kind
 * and truncation flag), the fields of h that go in it, its body (args,
 * packed along plan for a PLOG record, or text). Inline in both callers:
 * the direct one has no fields and no backtrace flag. */
static inline __attribute__((always_inline)) char *
put_body(struct llog__bin *b, struct llog__bin_frame *fr, const struct rec_head *h, long id,
	 unsigned tag, const struct llog__plan *plan, const char *body, size_t len, char *p)
{
	char *tagp;
	size_t n;

	if (h->seq != fr->seq + 1)
		tag |= LLOG_BIN_F_SEQ;
	if (h->suppressed != 0)
		tag |= LLOG_BIN_F_SUPP;
	if (h->backtrace)
		tag |= LLOG_BIN_F_BT;
	if (h->ext != NULL)
		tag |= LLOG_BIN_F_EXT;
	tagp = p;
	*p++ = (char)tag;
	if (tag & LLOG_BIN_F_SEQ)
		p = put_varint(p, h->seq - fr->seq - 1);
	p = put_varint(p, (uint64_t)id);
	{
		/* zigzag: the flusher's times never decrease, but a sink's
		 * queue or a caller's entry might */
		int64_t d = (int64_t)((uint64_t)h->ts - (uint64_t)fr->ts);

		p = put_varint(p, ((uint64_t)d << 1) ^ (uint64_t)(d >> 63));
	}
	if (tag & LLOG_BIN_F_SUPP)
		p = put_varint(p, h->suppressed);
	if (tag & LLOG_BIN_F_EXT)
		p = put_ext(p, h->ext);
	if ((tag & 7u) == LLOG_BIN_PLOG &&
	    (n = llog__pack(p + 1, &b->pack[id], fr->stamp, plan, (const unsigned char *)body,
			    len)) != (size_t)-1) {
		/* Packed after a 1-byte length, moved on when it needs more. */
		if (__builtin_expect(n < 0x80, 1)) {
			*p = (char)n;
			p += 1 + n;
		} else {
			p = long_body(p, n);
		}
	} else {
		/* A capture llog__pack refused (not its plan's layout: it
		 * does not happen) goes unpacked, the site's state as it was. */
		if ((tag & 7u) == LLOG_BIN_PLOG)
			*tagp = (char)((tag & ~7u) | LLOG_BIN_LOG);
		p = put_varint(p, len);
		if (len > 0)
			memcpy(p, body, len);
		p += len;
	}
	fr->seq = h->seq;
	fr->ts = h->ts;
	return p;
}

static struct bin_memo *memo_of(struct llog__bin *b, const void *site)
{
	return &b->memo[((uintptr_t)site >> 4 ^ (uintptr_t)site >> 10) & (MEMO_SLOTS - 1)];
}

/* Whether c's arguments can be stored as they are (else as text). */
static int storable(struct llog__bin *b, const struct llog__capture *c)
{
	if (llog__load_relaxed(&b->room) == 0)
		llog__store_relaxed(&b->room, c->room);
	return c->room == llog__load_relaxed(&b->room) && c->len <= UINT32_MAX;
}

/* e's record, with c its capture or NULL. */
static inline __attribute__((always_inline)) size_t
encode(struct llog__bin *b, struct llog__bin_frame *fr, const struct llog_entry *e,
       const struct llog__capture *c, const void *thread, uint64_t epoch, char *dst)
{
	/* thread_name_len is the name's length (llog_entry), at most 15 */
	struct rec_head h = {
		e->tid, e->thread_name ? e->thread_name : "",
		e->thread_name ? (e->thread_name_len < 15 ? e->thread_name_len : 15) : 0,
		thread, epoch, e->seq, e->ts_ns, e->suppressed, e->backtrace,
		e->nfields != 0 || e->fields_truncated != 0 ? e : NULL,
	};
	const char *body;
	unsigned tag;
	long id = -1;
	size_t len;
	char *p;

	if (c != NULL && storable(b, c)) {
		struct bin_memo *m = memo_of(b, c->site);

		if (fr->pack && m->site == c->site && m->gen == c->gen) {
			id = m->id;
		} else if ((id = site_id(b, e, c)) >= 0 && fr->pack) {
			m->site = c->site;
			m->gen = c->gen;
			m->id = id;
		}
	}
	if (id >= 0) {
		tag = (fr->pack ? LLOG_BIN_PLOG : LLOG_BIN_LOG) | (c->truncated ? LLOG_BIN_F_TRUNC : 0u);
		body = c->args;
		len = c->len;
	} else {
		tag = LLOG_BIN_TEXT;
		body = e->msg;
		len = e->msg_len;
		/* e's text when it has one within the bound reserved
		 * (llog__bin_bound), else rendered again (cut at it) */
		if (c != NULL && (e->msg == NULL || e->msg_len > text_bound(c)))
			body = fallback_text(b, c, &len);
		if ((id = site_id(b, e, NULL)) < 0)
			return 0;
	}
	p = same_thread(fr, h.tid, h.name, h.nlen, thread, epoch)
		    ? dst
		    : put_frame_thread(b, fr, h.tid, h.name, h.nlen, thread, epoch, dst);
	return (size_t)(put_body(b, fr, &h, id, tag, c ? c->plan : NULL, body, len, p) - dst);
}

size_t llog__bin_encode(struct llog__file_sink *fs, struct llog__bin_frame *fr,
			const struct llog_entry *e, char *dst)
{
	return encode(fs->bin, fr, e, llog__capture_of(e), NULL, 0, dst);
}

/* The direct record of a site met before (memo m), in a frame of the same
 * thread, without a suppressed count: what put_body writes for it, in
 * fewer steps. 0 when llog__pack refuses the capture (nothing changed:
 * put_body then writes it unpacked). */
static inline __attribute__((always_inline)) size_t
put_direct(struct llog__pack_site *ps, struct llog__bin_frame *fr,
	   const struct llog__capture_rec *cr, const struct llog__plan *plan, long id, char *dst)
{
	const struct llog__capture *c = &cr->c;
	unsigned tag = LLOG_BIN_PLOG | (c->truncated ? LLOG_BIN_F_TRUNC : 0u);
	int64_t d = (int64_t)((uint64_t)cr->ts_ns - (uint64_t)fr->ts);
	char *p = dst;
	size_t n;

	if (__builtin_expect(cr->seq != fr->seq + 1, 0)) {
		*p++ = (char)(tag | LLOG_BIN_F_SEQ);
		p = put_varint(p, cr->seq - fr->seq - 1);
	} else {
		*p++ = (char)tag;
	}
	p = put_varint(p, (uint64_t)id);
	p = put_varint(p, ((uint64_t)d << 1) ^ (uint64_t)(d >> 63));
	n = llog__pack(p + 1, ps, fr->stamp, plan, (const unsigned char *)c->args, c->len);
	if (__builtin_expect(n == (size_t)-1, 0))
		return 0;
	if (__builtin_expect(n < 0x80, 1)) {
		*p = (char)n;
		p += 1 + n;
	} else {
		p = long_body(p, n);
	}
	fr->seq = cr->seq;
	fr->ts = cr->ts_ns;
	return (size_t)(p - dst);
}

/* The direct record of a site met before, any other case: the frame's
 * header or the thread first, a suppressed count. */
static __attribute__((noinline)) size_t put_direct_full(struct llog__bin *b,
							struct llog__bin_frame *fr,
							const struct llog__capture_rec *cr,
							long id, char *dst)
{
	const struct llog__capture *c = &cr->c;
	/* thread_name_len is the name's length, at most 15 (capture.h) */
	struct rec_head h = {
		cr->tid, cr->thread_name, cr->thread_name_len,
		cr->thread, cr->thread_epoch, cr->seq, cr->ts_ns, cr->suppressed, 0, NULL,
	};
	char *p = put_frame_thread(b, fr, h.tid, h.name, h.nlen, h.thread, h.epoch, dst);

	return (size_t)(put_body(b, fr, &h, id, LLOG_BIN_PLOG | (c->truncated ? LLOG_BIN_F_TRUNC : 0u),
				 c->plan, c->args, c->len, p) -
			dst);
}

/* A direct record of a site met the first time (or a capture stored as
 * text): the entry it stands for, through the table. */
static __attribute__((noinline)) size_t encode_rec_new(struct llog__bin *b,
						       struct llog__bin_frame *fr,
						       struct llog__file_chunk *ch,
						       const struct llog__capture_rec *cr, char *dst)
{
	struct llog_entry e;
	size_t n;

	llog__capture_rec_entry(cr, &e);
	n = encode(b, fr, &e, &cr->c, cr->thread, cr->thread_epoch, dst);
	ch->sites = b->nsites;
	ch->sites_end = b->defs_len;
	return n;
}

size_t llog__bin_encode_rec(struct llog__file_sink *fs, struct llog__file_chunk *ch,
			    const struct llog__capture_rec *cr, char *dst)
{
	struct llog__bin *b = fs->bin;
	struct llog__bin_frame *fr = &fs->bin_fr;
	const struct llog__capture *c = &cr->c;
	const struct bin_memo *m = memo_of(b, c->site);
	size_t n;

	/* A site met before (the memo; its room was b->room then) */
	if (__builtin_expect(m->site != c->site || m->gen != c->gen ||
				     c->room != llog__load_relaxed(&b->room) || c->len > UINT32_MAX,
			     0))
		return encode_rec_new(b, fr, ch, cr, dst);
	/* in a frame of the same thread: the record alone */
	if (__builtin_expect(fr->started && fr->has_thread && fr->thread == cr->thread &&
				     fr->thread_epoch == cr->thread_epoch && cr->suppressed == 0,
			     1) &&
	    (n = put_direct(&b->pack[m->id], fr, cr, c->plan, m->id, dst)) != 0)
		return n;
	return put_direct_full(b, fr, cr, m->id, dst);
}

/* The bound of a record whose capture is longer than its text bound, out
 * of the way of the others (llog__bin_encode_run). */
static __attribute__((noinline)) size_t long_bound(size_t text, size_t len)
{
	return llog__bin_rec_bound_of(text, len);
}

/*
 * A run's records from k on into chunk ch, which has room for cr[k] (file.c:
 * chunk_for), as llog__bin_encode_rec and file.c's appended would store each,
 * while the next one's bound fits the chunk: in_len + bound within the
 * buffer (LLOG__FILE_PENDING_MAX) and ch->len + bound within chunk_max.
 * Once per run: the captures' render bound (a run is one flusher's: every
 * capture of it has the same room, capture.h) and the thread epoch (a run
 * ends at each record that moves it). Once per site: the memo's check, while
 * the records are of the site met last. Once per thread: the frame's check
 * of it, while they are of the thread written last. The sequence numbers of
 * a run are consecutive, so the chunk's gap flag (chunk_for) cannot change
 * after its first record. run->taken counts each record (capture.h); one that
 * could not be stored is counted lost and in *bad. The chunk's length and
 * count and the buffer's length are stored when the loop ends: the sink
 * runs alone on the flusher, and a fault in it leaves its buffers untouched
 * (crash_commit's `interrupted`). A run's captures come from the arenas,
 * whose lengths are 32-bit: never too long to store (storable). Returns the
 * index of the first record not stored.
 */
unsigned llog__bin_encode_run(struct llog__file_sink *fs, struct llog__file_chunk *ch,
			      struct llog__capture_run *run, unsigned k, size_t chunk_max,
			      long *bad)
{
	struct llog__bin *b = fs->bin;
	struct llog__bin_frame *fr = &fs->bin_fr;
	const unsigned n = run->n;
	size_t room = llog__load_relaxed(&b->room);
	const uint64_t gen = run->gen;
	/* each record's bound is at most this while its capture is not
	 * longer than text (llog__bin_rec_bound) */
	const size_t text = llog__bin_text_bound_of(run->room);
	const size_t most = llog__bin_rec_bound_of(text, text);
	const void *site = NULL, *thread = NULL;
	const struct llog__plan *plan = NULL;
	struct llog__pack_site *ps = NULL;
	long id = -1;
	size_t in_len = fs->in_len, clen = ch->len, used = 0;
	/* the room past which the loop stops: made so by chunk_for for
	 * cr[k] (in_len + its bound <= the buffer's bound, and clen + its
	 * bound <= chunk_max unless clen is 0) */
	size_t lim = LLOG__FILE_PENDING_MAX - in_len;
	uint64_t nrec = ch->records;
	char *const in = fs->in;
	const unsigned k0 = k;
	/* the frame's last sequence number and time and its packing stamp,
	 * here while records go the short way; in fr around the general way */
	uint64_t last_seq = fr->seq, stamp = fr->stamp;
	int64_t last_ts = fr->ts;

	if (room != run->room)
		room = 0; /* none matches: each goes through the table */
	/* the thread the frame holds, known by identity (as after a record
	 * the general way, below) */
	if (fr->started && fr->has_thread && fr->thread_epoch == run->thread_epoch)
		thread = fr->thread;
	if (clen <= chunk_max && chunk_max - clen < lim)
		lim = chunk_max - clen;
	for (; k < n; k++) {
		const struct llog__capture_rec *cr = &run->cr[k];
		const struct llog__capture *c = &cr->c;
		size_t len;

		if (__builtin_expect(c->len > text, 0)) {
			if (used + long_bound(text, c->len) > lim && k != k0)
				break;
		} else if (used + most > lim && k != k0) { /* (chunk_for took the first one) */
			break;
		}
		if (__builtin_expect(c->site != site, 0)) {
			const struct bin_memo *m = memo_of(b, c->site);

			site = c->site;
			if (m->site == c->site && m->gen == gen && room != 0) {
				id = m->id;
				ps = &b->pack[id];
				plan = run->cr[cr->site_at].c.plan;
			} else {
				thread = NULL; /* through the table (below) */
				id = -1;
			}
		}
		char *dst = in + in_len + used;
		int done = 0;

		/* The short way: put_direct's record of a site met before, in a
		 * frame of its thread, with none of the tag's flags (the next
		 * sequence number, not cut, no suppressed count) */
		if (__builtin_expect(cr->thread == thread &&
					     (cr->suppressed | (uint64_t)c->truncated) == 0 &&
					     cr->seq == last_seq + 1,
				     1)) {
			int64_t d = (int64_t)((uint64_t)cr->ts_ns - (uint64_t)last_ts);
			char *p = put_varint(dst + 1, (uint64_t)id);
			size_t pn;

			p = put_varint(p, ((uint64_t)d << 1) ^ (uint64_t)(d >> 63));
			pn = llog__pack(p + 1, ps, stamp, plan, (const unsigned char *)c->args, c->len);
			if (__builtin_expect(pn != (size_t)-1, 1)) { /* else the general way */
				*dst = (char)LLOG_BIN_PLOG;
				if (__builtin_expect(pn < 0x80, 1)) {
					*p = (char)pn;
					p += 1 + pn;
				} else {
					p = long_body(p, pn);
				}
				len = (size_t)(p - dst);
				last_seq = cr->seq;
				last_ts = cr->ts_ns;
				done = 1;
			}
		}
		if (__builtin_expect(!done, 0)) {
			struct llog__capture_rec full;

			fr->seq = last_seq;
			fr->ts = last_ts;
			llog__capture_run_full(run, k, &full);
			if (id < 0)
				len = encode_rec_new(b, fr, ch, &full, dst);
			else
				len = put_direct_full(b, fr, &full, id, dst);
			last_seq = fr->seq;
			last_ts = fr->ts;
			stamp = fr->stamp;
			site = NULL; /* the memo may have changed */
			/* the thread the frame holds now, known by identity */
			thread = fr->started && fr->has_thread && fr->thread_epoch == run->thread_epoch
					 ? fr->thread
					 : NULL;
		}
		if (__builtin_expect(len == 0, 0)) {
			llog__stats_count_sink_lost(1);
			++*bad;
		} else {
			used += len;
			nrec++;
		}
		llog__capture_run_took(run);
	}
	fr->seq = last_seq;
	fr->ts = last_ts;
	fs->in_len = in_len + used;
	ch->len = clen + used;
	ch->records = nrec;
	return k;
}

uint32_t llog__bin_sites(const struct llog__file_sink *fs)
{
	return fs->bin->nsites;
}

size_t llog__bin_sites_end(const struct llog__file_sink *fs)
{
	return fs->bin->defs_len;
}

/* ---- sites frames ---------------------------------------------------------- */

/* Every frame but the last holds more than LLOG_SITES_MAX less one
 * definition (< 4 * SITE_STR_MAX). */
size_t llog__bin_sites_cap(void)
{
	return DEFS_CAP + (DEFS_CAP / (LLOG_SITES_MAX - SITES_HDR - SITE_STR_MAX * 4) + 2) *
				  (8 + SITES_HDR);
}

size_t llog__bin_sites_frames(const struct llog__file_sink *fs, uint32_t from, uint32_t to,
			      size_t end_to, char *dst)
{
	const struct llog__bin *b = fs->bin;
	char *p = dst;

	while (from < to) {
		char *h = p, *q = p + 8 + SITES_HDR;
		uint32_t first = from;

		/* As many whole definitions as fit the payload bound. */
		while (from < to) {
			/* (not nsites: the flusher may be defining more) */
			size_t end = from + 1 < to ? b->off[from + 1] : end_to;
			size_t n = end - b->off[from];

			if (from > first && (size_t)(q - h) - 8 + n > LLOG_SITES_MAX)
				break;
			memcpy(q, b->defs + b->off[from], n);
			q += n;
			from++;
		}
		put_u32(h, LLOG_SITES_MAGIC);
		put_u32(h + 4, (uint32_t)(q - h - 8));
		memcpy(h + 8, LLOG_SITES_HEAD, 3);
		h[11] = (char)LLOG_BIN_SITES_VERSION;
		put_u64(h + 12, b->stream);
		put_u32(h + 20, (uint32_t)llog__load_relaxed(&b->room));
		put_u32(h + 24, first);
		put_u32(h + 28, from - first);
		put_u32(h + 32, llog__fnv1a32(h + 8 + SITES_HDR, (size_t)(q - h) - 8 - SITES_HDR));
		p = q;
	}
	return (size_t)(p - dst);
}

/* ---- life ------------------------------------------------------------------ */

static uint64_t new_stream(const void *self)
{
	struct timespec ts;
	uint64_t h;

	clock_gettime(CLOCK_REALTIME, &ts);
	h = (uint64_t)getpid() * 0x9E3779B97F4A7C15ull ^ (uint64_t)ts.tv_nsec * 0xC2B2AE3D27D4EB4Full ^
	    (uint64_t)ts.tv_sec ^ (uint64_t)(uintptr_t)self;
	h ^= h >> 31;
	return h * 0xBF58476D1CE4E5B9ull;
}

void llog__bin_after_fork(struct llog__file_sink *fs)
{
	fs->bin->stream = new_stream(fs);
	fs->bin_in_file = 0;
}

int llog__bin_init(struct llog__file_sink *fs)
{
	struct llog__bin *b = calloc(1, sizeof(*b));

	if (b == NULL)
		return -1;
	fs->bin = b;
	b->stream = new_stream(fs);
	b->slot = calloc(HASH_SLOTS, sizeof(*b->slot));
	b->off = malloc(LLOG__BIN_SITES * sizeof(*b->off));
	b->defs = malloc(DEFS_CAP); /* an mmap: backed as used */
	b->scratch = malloc(SCRATCH_CAP);
	/* calloc of 31 MB (480 bytes a site, two thirds of them the recent
	 * strings): an mmap, backed as sites are used */
	b->pack = calloc(LLOG__BIN_SITES, sizeof(*b->pack));
	fs->bin_fr.pack = 1; /* the crash path's frames keep LOG records */
	return b->slot && b->off && b->defs && b->scratch && b->pack ? 0 : -1;
}

void llog__bin_free(struct llog__file_sink *fs)
{
	struct llog__bin *b = fs->bin;

	if (b == NULL)
		return;
	free(b->slot);
	free(b->off);
	free(b->defs);
	free(b->scratch);
	free(b->pack);
	free(b);
	fs->bin = NULL;
}
