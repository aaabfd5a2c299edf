/*
 * reader.c - llogcat's frame reader and record parser. See reader.h.
 *
 * DESIGN
 * Buffer: buf[0..len) holds file bytes [base, base + len); pos is the parse
 * point. A frame's extent is found by walking its block headers (frame_extent)
 * before anything is decoded, so the reader knows how many bytes to wait for
 * and can refuse oversized claims early; zstd's own ZSTD_findFrameCompressedSize
 * must then agree, and ZSTD_decompressDCtx decodes the whole frame into a
 * buffer of the bounded size (known content size, or the sum of the blocks'
 * maximum sizes when the header has none), verifying the checksum.
 * Invariants: pos <= len; base + pos == offset of the next frame to parse;
 * buffered bytes <= one frame (<= LLOG_READER_FRAME_MAX + slack) + one feed.
 */
#define _GNU_SOURCE /* memmem */
#include "reader.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <zstd.h>

#include "fileformat.h"

#define BLOCK_MAX (128u << 10)               /* zstd block size limit */
#define EXTENT_MAX (LLOG_READER_FRAME_MAX + (64u << 10)) /* compressed bound */
#define SKIPPABLE_MASK 0xFFFFFFF0u
#define SKIPPABLE_MAGIC 0x184D2A50u

struct lcr {
	ZSTD_DCtx *dctx;
	unsigned char *buf;
	size_t len, cap, pos;
	uint64_t base;
	uint64_t good_end;
	bool resync;       /* inside a damaged region: failures are not reported again */
	char *out;
	size_t out_cap;
};

struct lcr *lcr_new(void)
{
	struct lcr *r = calloc(1, sizeof(*r));

	if (r == NULL)
		return NULL;
	r->dctx = ZSTD_createDCtx();
	if (r->dctx == NULL) {
		free(r);
		return NULL;
	}
	return r;
}

void lcr_free(struct lcr *r)
{
	if (r == NULL)
		return;
	ZSTD_freeDCtx(r->dctx);
	free(r->buf);
	free(r->out);
	free(r);
}

void lcr_reset(struct lcr *r, uint64_t off)
{
	r->len = r->pos = 0;
	r->base = off;
	r->resync = false;
}

static void compact(struct lcr *r)
{
	if (r->pos == 0)
		return;
	memmove(r->buf, r->buf + r->pos, r->len - r->pos);
	r->len -= r->pos;
	r->base += r->pos;
	r->pos = 0;
}

int lcr_feed(struct lcr *r, const void *p, size_t n)
{
	compact(r);
	if (n > r->cap - r->len) {
		size_t cap = r->cap ? r->cap : 65536;

		while (cap - r->len < n)
			cap *= 2;
		unsigned char *b = realloc(r->buf, cap);
		if (b == NULL)
			return -ENOMEM;
		r->buf = b;
		r->cap = cap;
	}
	if (n > 0)
		memcpy(r->buf + r->len, p, n);
	r->len += n;
	return 0;
}

uint64_t lcr_good_end(const struct lcr *r)
{
	return r->good_end;
}

uint64_t lcr_fed_end(const struct lcr *r)
{
	return r->base + r->len;
}

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static bool is_magic(uint32_t m)
{
	return m == LLOG_ZSTD_MAGIC || (m & SKIPPABLE_MASK) == SKIPPABLE_MAGIC;
}

bool lcr_is_framed(const void *p, size_t n)
{
	return n >= 4 && is_magic(le32(p));
}

enum extent { EXT_OK, EXT_NEED, EXT_BAD };

struct frame_info {
	uint64_t size;          /* EXT_OK: bytes of the frame; EXT_NEED: at least this many */
	uint64_t content_bound; /* decoded size bound */
	bool skippable;
	const char *why;        /* EXT_BAD */
};

static enum extent bad(struct frame_info *fi, const char *why)
{
	fi->why = why;
	return EXT_BAD;
}

static enum extent need(struct frame_info *fi, uint64_t n)
{
	fi->size = n;
	return EXT_NEED;
}

static enum extent skippable_extent(const unsigned char *p, size_t n, struct frame_info *fi)
{
	uint32_t size;

	fi->skippable = true;
	if (n < 8)
		return need(fi, 8);
	size = le32(p + 4);
	if (le32(p) == LLOG_META_MAGIC && size > LLOG_META_MAX)
		return bad(fi, "metadata frame larger than its limit");
	if (size > LLOG_READER_FRAME_MAX)
		return bad(fi, "skippable frame larger than the reader's limit");
	fi->size = 8 + (uint64_t)size;
	return fi->size <= n ? EXT_OK : EXT_NEED;
}

/* Walks a zstd frame's header and block headers (RFC 8878 section 3.1.1). */
static enum extent zstd_extent(const unsigned char *p, size_t n, struct frame_info *fi)
{
	static const unsigned did_size[4] = {0, 1, 2, 4};
	unsigned fhd, fcs_flag, single, fcs_size, hdr;
	uint64_t window, fcs = 0, pos, bound = 0, block_max;
	bool has_fcs;

	if (n < 5)
		return need(fi, 5);
	fhd = p[4];
	if (fhd & 0x08)
		return bad(fi, "reserved bit set in frame header");
	fcs_flag = fhd >> 6;
	single = (fhd >> 5) & 1;
	fcs_size = fcs_flag == 0 ? single : 1u << fcs_flag;
	hdr = 5 + !single + did_size[fhd & 3] + fcs_size;
	if (n < hdr)
		return need(fi, hdr);
	has_fcs = fcs_size != 0;
	if (has_fcs) {
		const unsigned char *f = p + hdr - fcs_size;

		for (unsigned i = fcs_size; i-- > 0;)
			fcs = fcs << 8 | f[i];
		if (fcs_size == 2)
			fcs += 256;
		if (fcs > LLOG_READER_FRAME_MAX)
			return bad(fi, "content size above the reader's limit");
	}
	if (single) {
		window = fcs;
	} else {
		unsigned exp = p[5] >> 3, mant = p[5] & 7;
		uint64_t wbase = (uint64_t)1 << (10 + exp);

		window = wbase + wbase / 8 * mant;
	}
	block_max = window < BLOCK_MAX ? window : BLOCK_MAX;
	pos = hdr;
	for (;;) {
		uint32_t bh, type, bsize;

		if (n < pos + 3)
			return need(fi, pos + 3);
		bh = (uint32_t)p[pos] | (uint32_t)p[pos + 1] << 8 | (uint32_t)p[pos + 2] << 16;
		type = (bh >> 1) & 3;
		bsize = bh >> 3;
		if (type == 3)
			return bad(fi, "reserved block type");
		if (bsize > block_max)
			return bad(fi, "block larger than the frame allows");
		pos += 3 + (type == 1 ? 1 : bsize);
		bound += type == 2 ? block_max : bsize;
		if (pos > EXTENT_MAX || bound > LLOG_READER_FRAME_MAX)
			return bad(fi, "frame above the reader's limit");
		if (bh & 1)
			break;
	}
	if (fhd & 0x04)
		pos += 4; /* content checksum */
	if (has_fcs) {
		if (fcs > bound)
			return bad(fi, "content size larger than its blocks can hold");
		bound = fcs;
	}
	fi->content_bound = bound;
	fi->size = pos;
	return pos <= n ? EXT_OK : EXT_NEED;
}

static enum extent frame_extent(const unsigned char *p, size_t n, struct frame_info *fi)
{
	memset(fi, 0, sizeof(*fi));
	if (n < 4)
		return need(fi, 4);
	if (le32(p) == LLOG_ZSTD_MAGIC)
		return zstd_extent(p, n, fi);
	if ((le32(p) & SKIPPABLE_MASK) == SKIPPABLE_MAGIC)
		return skippable_extent(p, n, fi);
	return bad(fi, "no frame magic");
}

/* Decodes a complete data frame into r->out; NULL on success, else why. */
static const char *decode(struct lcr *r, const unsigned char *p, const struct frame_info *fi,
			  size_t *out_len)
{
	size_t want = (size_t)fi->content_bound, got;
	unsigned long long fcs;

	if (ZSTD_findFrameCompressedSize(p, (size_t)fi->size) != fi->size)
		return "frame size disagrees with its blocks";
	fcs = ZSTD_getFrameContentSize(p, (size_t)fi->size);
	if (fcs == ZSTD_CONTENTSIZE_ERROR)
		return "bad frame header";
	if (want + 1 > r->out_cap) {
		char *o = realloc(r->out, want + 1);

		if (o == NULL)
			return "out of memory";
		r->out = o;
		r->out_cap = want + 1;
	}
	got = ZSTD_decompressDCtx(r->dctx, r->out, want, p, (size_t)fi->size);
	if (ZSTD_isError(got))
		return ZSTD_getErrorName(got);
	if (fcs != ZSTD_CONTENTSIZE_UNKNOWN && got != fcs)
		return "content size mismatch";
	*out_len = got;
	return NULL;
}

/* In a damaged region: moves pos to the next possible magic. */
static void scan_magic(struct lcr *r)
{
	while (r->pos + 4 <= r->len && !is_magic(le32(r->buf + r->pos)))
		r->pos++;
}

static enum lcr_kind damaged(struct lcr *r, struct lcr_event *ev, const char *why)
{
	bool report = !r->resync;

	ev->kind = LCR_DAMAGED;
	ev->off = r->base + r->pos;
	ev->size = 0;
	ev->reason = why;
	r->resync = true;
	r->pos++;
	return report ? LCR_DAMAGED : LCR_MORE;
}

enum lcr_kind lcr_next(struct lcr *r, bool eof, struct lcr_event *ev)
{
	memset(ev, 0, sizeof(*ev));
	for (;;) {
		struct frame_info fi;
		const unsigned char *p;
		size_t avail;
		const char *why;

		if (r->resync)
			scan_magic(r);
		avail = r->len - r->pos;
		if (avail == 0)
			return LCR_MORE;
		p = r->buf + r->pos;
		switch (frame_extent(p, avail, &fi)) {
		case EXT_NEED:
			if (!eof)
				return LCR_MORE;
			if (damaged(r, ev, "truncated") == LCR_DAMAGED)
				return LCR_DAMAGED;
			continue;
		case EXT_BAD:
			if (damaged(r, ev, fi.why) == LCR_DAMAGED)
				return LCR_DAMAGED;
			continue;
		case EXT_OK:
			break;
		}
		ev->off = r->base + r->pos;
		ev->size = fi.size;
		if (fi.skippable) {
			if (le32(p) == LLOG_META_MAGIC)
				ev->kind = LCR_META;
			else if (le32(p) == LLOG_SITES_MAGIC)
				ev->kind = LCR_SITES;
			else
				ev->kind = LCR_SKIP;
			ev->data = (const char *)p + 8;
			ev->len = (size_t)fi.size - 8;
		} else {
			why = decode(r, p, &fi, &ev->len);
			if (why != NULL) {
				if (damaged(r, ev, why) == LCR_DAMAGED)
					return LCR_DAMAGED;
				continue;
			}
			ev->kind = LCR_DATA;
			ev->data = r->out;
		}
		r->pos += (size_t)fi.size;
		r->good_end = ev->off + fi.size;
		r->resync = false;
		return ev->kind;
	}
}

/* ---- metadata ---- */

static bool key_is(const char *k, size_t kn, const char *want)
{
	return kn == strlen(want) && memcmp(k, want, kn) == 0;
}

static bool parse_u64(const char *s, size_t n, uint64_t *v)
{
	uint64_t x = 0;

	if (n == 0 || n > 19)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		x = x * 10 + (uint64_t)(s[i] - '0');
	}
	*v = x;
	return true;
}

void lcr_parse_meta(const char *p, size_t n, struct lcr_meta *m)
{
	static const char head[] = "llog-meta ";
	const char *end = p + n, *line;

	memset(m, 0, sizeof(*m));
	if (n < sizeof(head) - 1 || memcmp(p, head, sizeof(head) - 1) != 0)
		return;
	m->valid = true;
	line = memchr(p, '\n', n);
	{
		const char *v = p + sizeof(head) - 1, *ve = line != NULL ? line : end;
		uint64_t ver;

		if (parse_u64(v, (size_t)(ve - v), &ver) && ver > 0 && ver <= 1000000)
			m->version = (unsigned)ver;
	}
	while (line != NULL && line + 1 < end) {
		const char *k = line + 1, *eol = memchr(k, '\n', (size_t)(end - k));
		const char *e = eol ? eol : end, *eq = memchr(k, '=', (size_t)(e - k));
		uint64_t v;

		if (eq != NULL) {
			size_t kn = (size_t)(eq - k), vn = (size_t)(e - eq - 1);

			if (key_is(k, kn, "created_ns") && parse_u64(eq + 1, vn, &v) && v <= INT64_MAX) {
				m->has_created = true;
				m->created_ns = (int64_t)v;
			} else if (key_is(k, kn, "seq_first") && parse_u64(eq + 1, vn, &v)) {
				m->has_seq = true;
				m->seq_first = v;
			} else if (key_is(k, kn, "format")) {
				m->json = vn == 4 && memcmp(eq + 1, "json", 4) == 0;
			} else if (key_is(k, kn, "line")) {
				m->line_func = vn == 4 && memcmp(eq + 1, "func", 4) == 0;
			}
		}
		line = eol;
	}
}

/* ---- records ---- */

static const char *const level_names[] = {"TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL"};

const char *lcr_level_name(int level)
{
	return level >= 0 && level <= 5 ? level_names[level] : "?";
}

int lcr_level_parse(const char *s, size_t n)
{
	while (n > 0 && s[n - 1] == ' ')
		n--;
	for (int i = 0; i <= 5; i++)
		if (n == strlen(level_names[i]) && strncasecmp(s, level_names[i], n) == 0)
			return i;
	if (n == 1 && s[0] >= '0' && s[0] <= '5')
		return s[0] - '0';
	return -1;
}

/* ns since 1970 from a proleptic Gregorian date (inverse of line_ts.c's civil_from_days). */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
	int64_t era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

static bool digits(const char *s, size_t n, size_t at, size_t cnt, unsigned *v)
{
	unsigned x = 0;

	if (at + cnt > n)
		return false;
	for (size_t i = at; i < at + cnt; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		x = x * 10 + (unsigned)(s[i] - '0');
	}
	*v = x;
	return true;
}

int lcr_parse_rfc3339(const char *s, size_t n, int64_t *ns)
{
	unsigned y, mo, d, h = 0, mi = 0, sec = 0, oh, om;
	int64_t frac = 0, off_s = 0;
	size_t i = 10;

	if (!digits(s, n, 0, 4, &y) || n < 10 || s[4] != '-' || !digits(s, n, 5, 2, &mo) ||
	    s[7] != '-' || !digits(s, n, 8, 2, &d) || mo < 1 || mo > 12 || d < 1 || d > 31)
		return -1;
	if (i < n && (s[i] == 'T' || s[i] == 't' || s[i] == ' ')) {
		if (!digits(s, n, 11, 2, &h) || n < 16 || s[13] != ':' || !digits(s, n, 14, 2, &mi) ||
		    h > 23 || mi > 59)
			return -1;
		i = 16;
		if (i < n && s[i] == ':') {
			if (!digits(s, n, 17, 2, &sec) || sec > 60)
				return -1;
			i = 19;
		}
		if (i < n && s[i] == '.') {
			int64_t scale = 100000000;
			size_t start = ++i;

			for (; i < n && s[i] >= '0' && s[i] <= '9'; i++, scale /= 10)
				frac += (s[i] - '0') * scale;
			if (i == start)
				return -1;
		}
		if (i < n && (s[i] == 'Z' || s[i] == 'z')) {
			i++;
		} else if (i < n && (s[i] == '+' || s[i] == '-')) {
			if (!digits(s, n, i + 1, 2, &oh) || i + 3 >= n || s[i + 3] != ':' ||
			    !digits(s, n, i + 4, 2, &om))
				return -1;
			off_s = ((int64_t)oh * 3600 + om * 60) * (s[i] == '-' ? -1 : 1);
			i += 6;
		}
	}
	if (i != n)
		return -1;
	int64_t secs = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec - off_s;

	if (secs < -INT64_MAX / 1000000000 + 1 || secs > INT64_MAX / 1000000000 - 1)
		return -1; /* outside int64 nanoseconds (years before 1678 or after 2261) */
	*ns = secs * 1000000000 + frac;
	return 0;
}

/* Zero-padded decimal of exactly `width` digits (v >= 0). */
static void put_fixed(char *dst, int64_t v, int width)
{
	for (int i = width - 1; i >= 0; i--) {
		dst[i] = (char)('0' + v % 10);
		v /= 10;
	}
}

void lcr_format_ts(int64_t ns, char buf[31])
{
	int64_t secs = ns >= 0 ? ns / 1000000000 : (ns - 999999999) / 1000000000;
	int64_t sub = ns - secs * 1000000000;
	int64_t days = secs >= 0 ? secs / 86400 : (secs - 86399) / 86400;
	int64_t sod = secs - days * 86400, z = days + 719468;
	int64_t era = (z >= 0 ? z : z - 146096) / 146097, doe = z - era * 146097;
	int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100), mp = (5 * doy + 2) / 153;
	int64_t d = doy - (153 * mp + 2) / 5 + 1, m = mp < 10 ? mp + 3 : mp - 9;
	int64_t y = yoe + era * 400 + (m <= 2);

	if (y < 0 || y > 9999)
		y = 0;
	put_fixed(buf, y, 4);
	buf[4] = '-';
	put_fixed(buf + 5, m, 2);
	buf[7] = '-';
	put_fixed(buf + 8, d, 2);
	buf[10] = 'T';
	put_fixed(buf + 11, sod / 3600, 2);
	buf[13] = ':';
	put_fixed(buf + 14, sod / 60 % 60, 2);
	buf[16] = ':';
	put_fixed(buf + 17, sod % 60, 2);
	buf[19] = '.';
	put_fixed(buf + 20, sub, 9);
	buf[29] = 'Z';
	buf[30] = '\0';
}

/* Value of "key":"..." in a JSON line (body of the string, still escaped). */
static bool json_str(const char *line, size_t len, const char *key, const char **v, size_t *vn)
{
	char pat[16];
	size_t pn = (size_t)snprintf(pat, sizeof(pat), "\"%s\":\"", key);
	const char *s = memmem(line, len, pat, pn), *e, *end = line + len;

	if (s == NULL)
		return false;
	s += pn;
	for (e = s; e < end && *e != '"'; e++)
		if (*e == '\\' && e + 1 < end)
			e++;
	if (e >= end)
		return false;
	*v = s;
	*vn = (size_t)(e - s);
	return true;
}

static void parse_json(const char *line, size_t len, struct lcr_record *rec)
{
	const char *v;
	size_t vn;

	rec->is_json = true;
	if (json_str(line, len, "ts", &v, &vn)) {
		rec->ts = v;
		rec->ts_len = vn;
		rec->has_ts = lcr_parse_rfc3339(v, vn, &rec->ts_ns) == 0;
	}
	if (json_str(line, len, "level", &v, &vn))
		rec->level = lcr_level_parse(v, vn);
	if (json_str(line, len, "msg", &v, &vn)) {
		rec->msg = v;
		rec->msg_len = vn;
	}
	if (json_str(line, len, "func", &v, &vn)) {
		rec->func = v;
		rec->func_len = vn;
	}
	if (json_str(line, len, "category", &v, &vn)) {
		rec->category = v;
		rec->category_len = vn;
	}
	if (json_str(line, len, "thread_name", &v, &vn)) {
		rec->thread_name = v;
		rec->thread_name_len = vn;
	}
	/* ,"fields":{ cannot occur inside a string (its quotes are escaped). */
	v = memmem(line, len, ",\"fields\":{", 11);
	if (v != NULL) {
		rec->fields = v + 10;
		rec->fields_len = (size_t)(line + len - rec->fields);
	}
}

/* Text layout: TS ' ' LEVEL(5) " [" TID [' ' NAME] "] " FILE ':' LINE ' '
 * [FUNC "() "] MSG; TS is RFC 3339 of any precision and zone (30 bytes in
 * the default line), NAME has no ']' (escaped by the writer). */
static void parse_text(const char *line, size_t len, bool func_layout, struct lcr_record *rec)
{
	const char *p, *end = line + len, *q, *sp = memchr(line, ' ', len < 40 ? len : 40);
	size_t tl = sp != NULL ? (size_t)(sp - line) : 0;

	rec->msg = line;
	rec->msg_len = len;
	if (tl < 10 || lcr_parse_rfc3339(line, tl, &rec->ts_ns) != 0)
		return;
	rec->has_ts = true;
	rec->ts = line;
	rec->ts_len = tl;
	if (len < tl + 8 || line[tl + 6] != ' ')
		return;
	rec->level = lcr_level_parse(line + tl + 1, 5);
	p = line + tl + 7;
	if (*p != '[') {
		/* "LEVEL CATEGORY [": the category, one word (llog.h). */
		const char *ce = memchr(p, ' ', (size_t)(end - p));

		if (ce == NULL || ce == p || end - ce < 2 || ce[1] != '[')
			return;
		rec->category = p;
		rec->category_len = (size_t)(ce - p);
		p = ce + 1;
	}
	p++;
	for (q = p; q < end && *q >= '0' && *q <= '9'; q++)
		;
	if (q == p || end - q < 2)
		return;
	rec->thread = p;
	rec->thread_len = (size_t)(q - p);
	if (q[0] == ' ') {
		const char *rb = memchr(q, ']', (size_t)(end - q));

		if (rb == NULL || rb == q + 1)
			return;
		rec->thread_name = q + 1;
		rec->thread_name_len = (size_t)(rb - q - 1);
		q = rb;
	}
	if (end - q < 2 || q[0] != ']' || q[1] != ' ')
		return;
	p = q + 2;
	/* The file name ends at the first ":DIGITS " (base names do not contain one). */
	for (q = p; q < end; q++) {
		const char *dg = q + 1, *de;

		if (*q != ':')
			continue;
		for (de = dg; de < end && *de >= '0' && *de <= '9'; de++)
			;
		if (de > dg && de < end && *de == ' ') {
			rec->file = p;
			rec->file_len = (size_t)(q - p);
			rec->lineno = dg;
			rec->lineno_len = (size_t)(de - dg);
			rec->msg = de + 1;
			rec->msg_len = (size_t)(end - de - 1);
			rec->parsed = true;
			if (func_layout) {
				const char *fe = memmem(rec->msg, rec->msg_len, "() ", 3);

				if (fe == NULL && rec->msg_len >= 2 &&
				    memcmp(end - 2, "()", 2) == 0)
					fe = end - 2; /* an empty message */
				if (fe != NULL && fe > rec->msg) {
					rec->func = rec->msg;
					rec->func_len = (size_t)(fe - rec->msg);
					rec->msg = fe + 3 <= end ? fe + 3 : end;
					rec->msg_len = (size_t)(end - rec->msg);
				}
			}
			return;
		}
	}
}

void lcr_parse_record_ex(const char *line, size_t len, bool func_layout, struct lcr_record *rec)
{
	lcr_parse_record_v(line, len, func_layout, LLOG_META_VERSION, rec);
}

void lcr_parse_record_v(const char *line, size_t len, bool func_layout, unsigned version,
			struct lcr_record *rec)
{
	memset(rec, 0, sizeof(*rec));
	rec->level = -1;
	if (len > 0 && line[len - 1] == '\n')
		len--;
	if (len > 0 && line[0] == '{') {
		parse_json(line, len, rec);
	} else {
		/* Only the field section's separator is a raw TAB on a text line
		 * of version 2 (the writer escapes it everywhere else); version
		 * 1 had no field section and wrote a file's base name raw. */
		const char *tab = version >= 2 ? memchr(line, '\t', len) : NULL;

		if (tab != NULL) {
			rec->fields = tab + 1;
			rec->fields_len = (size_t)(line + len - tab - 1);
			len = (size_t)(tab - line);
		}
		parse_text(line, len, func_layout, rec);
	}
}

void lcr_parse_record(const char *line, size_t len, struct lcr_record *rec)
{
	lcr_parse_record_ex(line, len, false, rec);
}

size_t lcr_format_local(int64_t ns, int frac, char buf[36])
{
	int64_t secs = ns >= 0 ? ns / 1000000000 : (ns - 999999999) / 1000000000;
	int64_t sub = ns - secs * 1000000000;
	time_t t = (time_t)secs;
	struct tm tm;
	long off, a;
	size_t n;

	if (localtime_r(&t, &tm) == NULL)
		memset(&tm, 0, sizeof(tm));
	off = tm.tm_gmtoff;
	a = off < 0 ? -off : off;
	n = (size_t)snprintf(buf, 36, "%04d-%02d-%02dT%02d:%02d:%02d", (tm.tm_year + 1900) % 10000,
			     tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
	if (frac > 0) {
		char d[10];

		put_fixed(d, sub, 9);
		buf[n++] = '.';
		memcpy(buf + n, d, (size_t)(frac < 9 ? frac : 9));
		n += (size_t)(frac < 9 ? frac : 9);
	}
	n += (size_t)snprintf(buf + n, 36 - n, "%c%02ld:%02ld", off < 0 ? '-' : '+', a / 3600 % 100,
			      a / 60 % 60);
	return n;
}
