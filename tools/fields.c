/*
 * fields.c - the field section of a text line read back, a version-2
 * message unescaped, the --where filter. See fields.h.
 *
 * DESIGN
 * One pass over the section, left to right, no backtracking: each item is
 * a key (bare or quoted), '=', and a value whose first byte says which
 * kind it is ('"': a string; anything else: a token up to the next space,
 * which must be exactly one of the literal forms). Decoded strings go to
 * buf, sized before the pass at 2n + 2 bytes (a decoded string is never
 * longer than its text, plus a NUL for each key and value, and an item is
 * at least 2 bytes of text), so no pointer into it moves during a parse.
 * Numbers compare exactly: two integers by sign and magnitude, an integer
 * and a double through the double's integer part (exact below 2^64) and
 * the sign of its fraction; a NaN compares unordered (no operator but !=
 * passes).
 */
#include "fields.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- scanning ---- */

/* UTF-8 of the code point cp (<= 0x10ffff) into d; its length. */
static size_t put_utf8(char *d, unsigned cp)
{
	if (cp < 0x80) {
		d[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		d[0] = (char)(0xc0 | cp >> 6);
		d[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		d[0] = (char)(0xe0 | cp >> 12);
		d[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		d[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	d[0] = (char)(0xf0 | cp >> 18);
	d[1] = (char)(0x80 | (cp >> 12 & 0x3f));
	d[2] = (char)(0x80 | (cp >> 6 & 0x3f));
	d[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

static bool is_bare(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '.' || c == '-' || c == '/' || c == ':' || c == '@';
}

static int hexval(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* A quoted string at s[*p] == '"': decoded into dst (NUL-terminated),
 * *p past the closing quote. Returns the decoded length, or -1 (*why). */
static long quoted(const char *s, size_t n, size_t *p, char *dst, const char **why)
{
	size_t i = *p + 1, o = 0;

	for (;;) {
		unsigned char c;

		if (i >= n) {
			*why = "unterminated quoted string";
			return -1;
		}
		c = (unsigned char)s[i++];
		if (c == '"')
			break;
		if (c < 0x20 || c == 0x7f) {
			*why = "control byte not escaped in a quoted string";
			return -1;
		}
		if (c != '\\') {
			dst[o++] = (char)c;
			continue;
		}
		if (i >= n) {
			*why = "unterminated quoted string";
			return -1;
		}
		c = (unsigned char)s[i++];
		switch (c) {
		case '"': dst[o++] = '"'; break;
		case '\\': dst[o++] = '\\'; break;
		case 'n': dst[o++] = '\n'; break;
		case 'r': dst[o++] = '\r'; break;
		case 't': dst[o++] = '\t'; break;
		case 'x':
			if (i + 2 > n || hexval((unsigned char)s[i]) < 0 ||
			    hexval((unsigned char)s[i + 1]) < 0) {
				*why = "bad \\x escape in a quoted string";
				return -1;
			}
			dst[o++] = (char)(hexval((unsigned char)s[i]) << 4 |
					  hexval((unsigned char)s[i + 1]));
			i += 2;
			break;
		default:
			*why = "unknown escape in a quoted string";
			return -1;
		}
	}
	dst[o] = '\0';
	*p = i;
	return (long)o;
}

static bool tok_is(const char *t, size_t n, const char *lit)
{
	return n == strlen(lit) && memcmp(t, lit, n) == 0;
}

/* -?(0|[1-9][0-9]*) into an I64 or U64 field; false if not that grammar
 * or out of range. */
static bool parse_int(const char *t, size_t n, struct llog_field *f)
{
	bool neg = n > 0 && t[0] == '-';
	size_t i = neg ? 1 : 0;
	uint64_t m = 0;

	if (i >= n || (t[i] == '0' && n - i > 1) || (neg && t[i] == '0'))
		return false;
	for (; i < n; i++) {
		unsigned d = (unsigned)(t[i] - '0');

		if (d > 9 || m > (UINT64_MAX - d) / 10)
			return false;
		m = m * 10 + d;
	}
	if (neg) {
		if (m > (uint64_t)INT64_MAX + 1)
			return false;
		f->type = LLOG_FIELD_I64;
		f->v.i64 = m == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)m;
	} else if (m <= (uint64_t)INT64_MAX) {
		f->type = LLOG_FIELD_I64;
		f->v.i64 = (int64_t)m;
	} else {
		f->type = LLOG_FIELD_U64;
		f->v.u64 = m;
	}
	return true;
}

/* -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? with a fraction or an
 * exponent, finite; or nan, inf, -inf. t[n] is a space or the end, never
 * a digit, so strtod stops at n. */
static bool parse_f64(const char *t, size_t n, struct llog_field *f)
{
	size_t i = 0, d;
	bool frac = false, exp = false;
	char tmp[400];

	f->type = LLOG_FIELD_F64;
	if (tok_is(t, n, "nan") || tok_is(t, n, "inf") || tok_is(t, n, "-inf")) {
		f->v.f64 = t[0] == 'n' ? NAN : t[0] == '-' ? -INFINITY : INFINITY;
		return true;
	}
	if (i < n && t[i] == '-')
		i++;
	for (d = i; i < n && t[i] >= '0' && t[i] <= '9'; i++)
		;
	if (i == d || (t[d] == '0' && i - d > 1))
		return false;
	if (i < n && t[i] == '.') {
		for (d = ++i; i < n && t[i] >= '0' && t[i] <= '9'; i++)
			;
		if (i == d)
			return false;
		frac = true;
	}
	if (i < n && (t[i] == 'e' || t[i] == 'E')) {
		i++;
		if (i < n && (t[i] == '+' || t[i] == '-'))
			i++;
		for (d = i; i < n && t[i] >= '0' && t[i] <= '9'; i++)
			;
		if (i == d)
			return false;
		exp = true;
	}
	if (i != n || (!frac && !exp) || n >= sizeof(tmp))
		return false;
	memcpy(tmp, t, n);
	tmp[n] = '\0';
	f->v.f64 = strtod(tmp, NULL);
	return !isinf(f->v.f64);
}

static int reserve(struct lcf_fields *fs, size_t buf_need)
{
	if (buf_need > fs->buf_cap) {
		char *b = realloc(fs->buf, buf_need);

		if (b == NULL)
			return -1;
		fs->buf = b;
		fs->buf_cap = buf_need;
	}
	if (fs->n == fs->cap) {
		size_t cap = fs->cap ? fs->cap * 2 : 16;
		struct llog_field *f = realloc(fs->f, cap * sizeof(*f));

		if (f == NULL)
			return -1;
		fs->f = f;
		fs->cap = cap;
	}
	return 0;
}

static int malformed(struct lcf_fields *fs, const char **why, const char *reason)
{
	fs->n = 0;
	fs->more = fs->fields_truncated = 0;
	*why = reason;
	return -1;
}

/* The "+N" item at s[p] == '+', which must end the section. */
static int more_item(const char *s, size_t n, size_t p, struct lcf_fields *fs, const char **why)
{
	uint64_t v = 0;
	size_t i = p + 1;

	if (i >= n || s[i] < '1' || s[i] > '9')
		return malformed(fs, why, "bad +N (fields left out)");
	for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
		v = v * 10 + (uint64_t)(s[i] - '0');
		if (v > UINT32_MAX)
			return malformed(fs, why, "+N out of range");
	}
	if (i != n)
		return malformed(fs, why, "+N not the last item");
	fs->more = (uint32_t)v;
	fs->fields_truncated += (uint32_t)v;
	return 0;
}

int lcf_parse_text(const char *s, size_t n, struct lcf_fields *fs, const char **why)
{
	size_t p = 0, o = 0;

	fs->n = 0;
	fs->more = fs->fields_truncated = 0;
	if (n == 0)
		return malformed(fs, why, "empty field section");
	for (;;) {
		struct llog_field *f;
		size_t t;
		long len;

		if (p < n && s[p] == '+')
			return more_item(s, n, p, fs, why);
		if (reserve(fs, 2 * n + 2) < 0)
			return -2;
		f = &fs->f[fs->n];
		memset(f, 0, sizeof(*f));
		/* key */
		f->key = fs->buf + o;
		if (p < n && s[p] == '"') {
			len = quoted(s, n, &p, fs->buf + o, why);
			if (len < 0)
				return malformed(fs, why, *why);
		} else {
			for (t = p; p < n && is_bare((unsigned char)s[p]); p++)
				;
			if (p == t)
				return malformed(fs, why, p < n && s[p] == '=' ? "empty key"
								: "a key expected");
			len = (long)(p - t);
			memcpy(fs->buf + o, s + t, (size_t)len);
			fs->buf[o + (size_t)len] = '\0';
		}
		f->key_len = (size_t)len;
		o += (size_t)len + 1;
		if (p >= n || s[p] != '=')
			return malformed(fs, why, "'=' expected after a key");
		p++;
		/* value */
		if (p < n && s[p] == '"') {
			len = quoted(s, n, &p, fs->buf + o, why);
			if (len < 0)
				return malformed(fs, why, *why);
			f->type = LLOG_FIELD_STR;
			f->v.str.ptr = fs->buf + o;
			f->v.str.len = (size_t)len;
			o += (size_t)len + 1;
			if (n - p >= 3 && memcmp(s + p, "...", 3) == 0) {
				f->flags |= LLOG_FIELD_TRUNCATED;
				fs->fields_truncated++;
				p += 3;
			}
		} else {
			const char *sp = memchr(s + p, ' ', n - p);
			size_t tn = (sp != NULL ? (size_t)(sp - s) : n) - p;
			const char *tk = s + p;

			if (tok_is(tk, tn, "true") || tok_is(tk, tn, "false")) {
				f->type = LLOG_FIELD_BOOL;
				f->v.b = tk[0] == 't';
			} else if (tok_is(tk, tn, "null")) {
				f->type = LLOG_FIELD_NULL;
			} else if (!parse_int(tk, tn, f) && !parse_f64(tk, tn, f)) {
				return malformed(fs, why, tn == 0 ? "a value expected after '='"
								  : "bad value");
			}
			p += tn;
		}
		fs->n++;
		if (p == n)
			return 0;
		if (s[p] != ' ')
			return malformed(fs, why, "junk after a value");
		if (++p == n)
			return malformed(fs, why, "trailing space");
	}
}

/* ---- JSON lines ---- */

static size_t skip_ws(const char *s, size_t n, size_t p)
{
	while (p < n && (s[p] == ' ' || s[p] == '\t' || s[p] == '\n' || s[p] == '\r'))
		p++;
	return p;
}

/* Four hex digits at s[p]; -1 if not. */
static long hex4(const char *s, size_t n, size_t p)
{
	long v = 0;

	if (p + 4 > n)
		return -1;
	for (size_t i = p; i < p + 4; i++) {
		int h = hexval((unsigned char)s[i]);

		if (h < 0)
			return -1;
		v = v << 4 | h;
	}
	return v;
}

/* A JSON string (RFC 8259 7) at s[*p] == '"' decoded to UTF-8 into dst
 * (NUL-terminated); -1 (*why) if malformed. */
static long json_string(const char *s, size_t n, size_t *p, char *dst, const char **why)
{
	size_t i = *p + 1, o = 0;

	for (;;) {
		unsigned char c;
		long cp, lo;

		if (i >= n) {
			*why = "unterminated JSON string";
			return -1;
		}
		c = (unsigned char)s[i++];
		if (c == '"')
			break;
		if (c < 0x20) {
			*why = "control byte in a JSON string";
			return -1;
		}
		if (c != '\\') {
			dst[o++] = (char)c;
			continue;
		}
		c = i < n ? (unsigned char)s[i++] : 0;
		switch (c) {
		case '"': case '\\': case '/': dst[o++] = (char)c; break;
		case 'b': dst[o++] = '\b'; break;
		case 'f': dst[o++] = '\f'; break;
		case 'n': dst[o++] = '\n'; break;
		case 'r': dst[o++] = '\r'; break;
		case 't': dst[o++] = '\t'; break;
		case 'u':
			cp = hex4(s, n, i);
			if (cp < 0) {
				*why = "bad \\u escape in a JSON string";
				return -1;
			}
			i += 4;
			if (cp >= 0xd800 && cp <= 0xdbff) {
				/* a surrogate pair: the low half must follow */
				lo = i + 6 <= n && s[i] == '\\' && s[i + 1] == 'u' ? hex4(s, n, i + 2) : -1;
				if (lo < 0xdc00 || lo > 0xdfff) {
					*why = "lone surrogate in a JSON string";
					return -1;
				}
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
				i += 6;
			} else if (cp >= 0xdc00 && cp <= 0xdfff) {
				*why = "lone surrogate in a JSON string";
				return -1;
			}
			o += put_utf8(dst + o, (unsigned)cp);
			break;
		default:
			*why = "unknown escape in a JSON string";
			return -1;
		}
	}
	dst[o] = '\0';
	*p = i;
	return (long)o;
}

int lcf_parse_json(const char *s, size_t n, struct lcf_fields *fs, const char **why)
{
	size_t p = 0, o = 0;

	fs->n = 0;
	fs->more = fs->fields_truncated = 0;
	if (n == 0 || s[0] != '{')
		return malformed(fs, why, "'{' expected");
	p = skip_ws(s, n, 1);
	if (p < n && s[p] == '}')
		return 0;
	for (;;) {
		struct llog_field *f;
		long len;

		if (reserve(fs, 2 * n + 2) < 0)
			return -2;
		f = &fs->f[fs->n];
		memset(f, 0, sizeof(*f));
		if (p >= n || s[p] != '"')
			return malformed(fs, why, "a key (a JSON string) expected");
		f->key = fs->buf + o;
		len = json_string(s, n, &p, fs->buf + o, why);
		if (len < 0)
			return malformed(fs, why, *why);
		f->key_len = (size_t)len;
		o += (size_t)len + 1;
		p = skip_ws(s, n, p);
		if (p >= n || s[p] != ':')
			return malformed(fs, why, "':' expected after a key");
		p = skip_ws(s, n, p + 1);
		if (p < n && s[p] == '"') {
			len = json_string(s, n, &p, fs->buf + o, why);
			if (len < 0)
				return malformed(fs, why, *why);
			f->type = LLOG_FIELD_STR;
			f->v.str.ptr = fs->buf + o;
			f->v.str.len = (size_t)len;
			o += (size_t)len + 1;
		} else {
			size_t t = p;

			while (p < n && strchr("-+.eE0123456789truefalsn", s[p]) != NULL && s[p] != '\0')
				p++;
			if (tok_is(s + t, p - t, "true") || tok_is(s + t, p - t, "false")) {
				f->type = LLOG_FIELD_BOOL;
				f->v.b = s[t] == 't';
			} else if (tok_is(s + t, p - t, "null")) {
				f->type = LLOG_FIELD_NULL;
			} else if (p == t || (s[t] != '-' && (s[t] < '0' || s[t] > '9')) ||
				   (!parse_int(s + t, p - t, f) && !parse_f64(s + t, p - t, f)) ||
				   (f->type == LLOG_FIELD_F64 && !isfinite(f->v.f64))) {
				return malformed(fs, why, "bad JSON value");
			}
		}
		fs->n++;
		p = skip_ws(s, n, p);
		if (p < n && s[p] == '}')
			return 0;
		if (p >= n || s[p] != ',')
			return malformed(fs, why, "',' or '}' expected");
		p = skip_ws(s, n, p + 1);
	}
}

void lcf_fields_free(struct lcf_fields *fs)
{
	free(fs->f);
	free(fs->buf);
	memset(fs, 0, sizeof(*fs));
}


long lcf_unescape_msg(const char *s, size_t n, char *dst)
{
	size_t i = 0, o = 0;

	while (i < n) {
		int h[4];

		if (s[i] != '\\') {
			dst[o++] = s[i++];
			continue;
		}
		if (i + 1 >= n)
			return -1;
		switch (s[i + 1]) {
		case '\\': dst[o++] = '\\'; i += 2; break;
		case 'n': dst[o++] = '\n'; i += 2; break;
		case 'r': dst[o++] = '\r'; i += 2; break;
		case 't': dst[o++] = '\t'; i += 2; break;
		case 'x':
			if (i + 4 > n || (h[0] = hexval((unsigned char)s[i + 2])) < 0 ||
			    (h[1] = hexval((unsigned char)s[i + 3])) < 0)
				return -1;
			dst[o++] = (char)(h[0] << 4 | h[1]);
			i += 4;
			break;
		case 'u':
			if (i + 6 > n)
				return -1;
			for (size_t k = 0; k < 4; k++)
				if ((h[k] = hexval((unsigned char)s[i + 2 + k])) < 0)
					return -1;
			o += put_utf8(dst + o, (unsigned)(h[0] << 12 | h[1] << 8 | h[2] << 4 | h[3]));
			i += 6;
			break;
		default:
			return -1;
		}
	}
	return (long)o;
}

size_t lcf_format_double(double d, char buf[32])
{
	int n = 0;

	if (isnan(d))
		return (size_t)snprintf(buf, 32, "nan");
	if (isinf(d))
		return (size_t)snprintf(buf, 32, d < 0 ? "-inf" : "inf");
	for (int prec = 1; prec <= 17; prec++) {
		n = snprintf(buf, 32, "%.*g", prec, d);
		if (strtod(buf, NULL) == d)
			break;
	}
	if (strpbrk(buf, ".e") == NULL)
		n += snprintf(buf + n, (size_t)(32 - n), ".0");
	return (size_t)n;
}

/* ---- --where ---- */

static bool is_num(const struct llog_field *f)
{
	return f->type == LLOG_FIELD_I64 || f->type == LLOG_FIELD_U64 || f->type == LLOG_FIELD_F64;
}

/* The value of an expression: quoted (as in a field section): a string;
 * true/false/null; a number (the section's integer grammar, else anything
 * strtod reads whole); otherwise the text itself as a string. */
static int where_value(const char *v, char *dst, struct llog_field *f, const char **why)
{
	size_t n = strlen(v), p = 0;
	char *end;

	memset(f, 0, sizeof(*f));
	if (n > 0 && v[0] == '"') {
		long len = quoted(v, n, &p, dst, why);

		if (len < 0)
			return -1;
		if (p != n) {
			*why = "junk after the quoted value";
			return -1;
		}
		f->type = LLOG_FIELD_STR;
		f->v.str.ptr = dst;
		f->v.str.len = (size_t)len;
		return 0;
	}
	if (tok_is(v, n, "true") || tok_is(v, n, "false")) {
		f->type = LLOG_FIELD_BOOL;
		f->v.b = v[0] == 't';
		return 0;
	}
	if (tok_is(v, n, "null")) {
		f->type = LLOG_FIELD_NULL;
		return 0;
	}
	if (parse_int(v, n, f))
		return 0;
	if (n > 0 && v[0] != ' ') {
		errno = 0;
		double d = strtod(v, &end);

		/* ERANGE: only an overflow (inf) is refused; an underflow
		 * (5e-324, which llog writes for the smallest subnormal)
		 * reads as the nearest double. */
		if (*end == '\0' && !(errno == ERANGE && isinf(d))) {
			f->type = LLOG_FIELD_F64;
			f->v.f64 = d;
			return 0;
		}
	}
	memcpy(dst, v, n + 1);
	f->type = LLOG_FIELD_STR;
	f->v.str.ptr = dst;
	f->v.str.len = n;
	return 0;
}

int lcf_where_parse(const char *expr, struct lcf_where *w, const char **why)
{
	size_t kn = strcspn(expr, "=!<>"), n = strlen(expr);
	const char *v = expr + kn;
	char *block;

	memset(w, 0, sizeof(*w));
	if (kn == 0) {
		*why = "no key before the operator";
		return -1;
	}
	if (*v == '\0') {
		w->op = LCF_PRESENT;
	} else if (v[0] == '=') {
		w->op = LCF_EQ;
		v += 1;
	} else if (v[0] == '!' && v[1] == '=') {
		w->op = LCF_NE;
		v += 2;
	} else if (v[0] == '<' || v[0] == '>') {
		bool eq = v[1] == '=';

		w->op = v[0] == '<' ? (eq ? LCF_LE : LCF_LT) : (eq ? LCF_GE : LCF_GT);
		v += eq ? 2 : 1;
	} else {
		*why = "unknown operator (one of = != < <= > >=)";
		return -1;
	}
	if (w->op != LCF_PRESENT && strpbrk(v, "=!<>") == v) {
		*why = "two operators";
		return -1;
	}
	block = malloc(2 * n + 2);
	if (block == NULL)
		return -2;
	memcpy(block, expr, kn);
	block[kn] = '\0';
	w->key = block;
	w->key_len = kn;
	if (w->op == LCF_PRESENT)
		return 0;
	if (where_value(v, block + kn + 1, &w->val, why) < 0) {
		lcf_where_free(w);
		return -1;
	}
	if (w->op >= LCF_LT && !is_num(&w->val)) {
		lcf_where_free(w);
		*why = "a comparison needs a number";
		return -1;
	}
	return 0;
}

void lcf_where_free(struct lcf_where *w)
{
	free(w->key);
	memset(w, 0, sizeof(*w));
}

/* -1, 0, 1 as a <, ==, > b for two integer fields. */
static int int_cmp(const struct llog_field *a, const struct llog_field *b)
{
	bool an = a->type == LLOG_FIELD_I64 && a->v.i64 < 0;
	bool bn = b->type == LLOG_FIELD_I64 && b->v.i64 < 0;
	uint64_t x, y;

	if (an != bn)
		return an ? -1 : 1;
	if (an)
		return a->v.i64 < b->v.i64 ? -1 : a->v.i64 > b->v.i64;
	x = a->type == LLOG_FIELD_I64 ? (uint64_t)a->v.i64 : a->v.u64;
	y = b->type == LLOG_FIELD_I64 ? (uint64_t)b->v.i64 : b->v.u64;
	return x < y ? -1 : x > y;
}

/* An integer field against a double: -1, 0, 1, or 2 when unordered
 * (NaN). Exact: the double's integer part is an integer the field's type
 * holds once the out-of-range cases are settled. */
static int int_dbl_cmp(const struct llog_field *a, double d)
{
	double t, fr;

	if (isnan(d))
		return 2;
	if (a->type == LLOG_FIELD_I64) {
		int64_t ti;

		if (d >= 9223372036854775808.0)
			return -1;
		if (d < -9223372036854775808.0)
			return 1;
		t = trunc(d);
		ti = (int64_t)t;
		if (a->v.i64 != ti)
			return a->v.i64 < ti ? -1 : 1;
	} else {
		uint64_t tu;

		if (d < 0)
			return 1;
		if (d >= 18446744073709551616.0)
			return -1;
		t = trunc(d);
		tu = (uint64_t)t;
		if (a->v.u64 != tu)
			return a->v.u64 < tu ? -1 : 1;
	}
	fr = d - t;
	return fr > 0 ? -1 : fr < 0 ? 1 : 0;
}

static int num_cmp(const struct llog_field *a, const struct llog_field *b)
{
	if (a->type != LLOG_FIELD_F64 && b->type != LLOG_FIELD_F64)
		return int_cmp(a, b);
	if (a->type == LLOG_FIELD_F64 && b->type == LLOG_FIELD_F64) {
		if (isnan(a->v.f64) || isnan(b->v.f64))
			return 2;
		return a->v.f64 < b->v.f64 ? -1 : a->v.f64 > b->v.f64;
	}
	if (a->type == LLOG_FIELD_F64) {
		int c = int_dbl_cmp(b, a->v.f64);

		return c == 2 ? 2 : -c;
	}
	return int_dbl_cmp(a, b->v.f64);
}

static bool equal(const struct llog_field *f, const struct llog_field *v)
{
	switch (v->type) {
	case LLOG_FIELD_STR:
		return f->type == LLOG_FIELD_STR && f->v.str.len == v->v.str.len &&
		       memcmp(f->v.str.ptr, v->v.str.ptr, v->v.str.len) == 0;
	case LLOG_FIELD_BOOL:
		return f->type == LLOG_FIELD_BOOL && !f->v.b == !v->v.b;
	case LLOG_FIELD_NULL:
		return f->type == LLOG_FIELD_NULL;
	default:
		return is_num(f) && num_cmp(f, v) == 0;
	}
}

bool lcf_where_match(const struct lcf_where *w, const struct llog_field *f, size_t n)
{
	const struct llog_field *hit = NULL;
	int c;

	for (size_t i = 0; i < n && hit == NULL; i++)
		if (f[i].key_len == w->key_len && memcmp(f[i].key, w->key, w->key_len) == 0)
			hit = &f[i];
	switch (w->op) {
	case LCF_PRESENT: return hit != NULL;
	case LCF_EQ: return hit != NULL && equal(hit, &w->val);
	case LCF_NE: return hit == NULL || !equal(hit, &w->val);
	default: break;
	}
	if (hit == NULL || !is_num(hit))
		return false;
	c = num_cmp(hit, &w->val);
	switch (w->op) {
	case LCF_LT: return c == -1;
	case LCF_LE: return c == -1 || c == 0;
	case LCF_GT: return c == 1;
	case LCF_GE: return c == 1 || c == 0;
	default: return false;
	}
}
