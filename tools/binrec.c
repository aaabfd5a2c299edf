/*
 * binrec.c - binary records into lines. See binrec.h; the format:
 * docs/file-format.md (writer: backends/file_bin.c).
 */
#include <stdlib.h>
#include <string.h>

#include "binpack.h"
#include "binrec.h"
#include "fileformat.h"
#include "fmt.h"
#include "fmt_spec.h"
#include "line.h" /* llog__line_format, llog__line_bound */

struct site {
	bool defined, valid;
	uint8_t kind, level;
	int line;
	struct llog__plan plan;
	char *fmt, *file, *func; /* NUL-terminated copies */
	char *cat;               /* NULL: the default category */
	size_t catlen;
	struct llog__pack_site pack; /* PLOG records' state (binpack.h) */
	struct llog__fmt_prog *prog; /* fmt compiled (NULL: out of memory) */
};

struct stream {
	uint64_t id;
	uint32_t room;
	struct site *site;
	uint32_t n;   /* entries of site[] */
	uint64_t used; /* for forgetting the oldest */
};

struct lcb {
	struct stream st[LCB_MAX_STREAMS];
	int nst;
	uint64_t clock;
	uint64_t frames; /* data frames read: the packing stamp */
	char *msg, *line, *args;
	size_t msg_cap, line_cap, args_cap;
	/* The record's fields (extension item LLOG_BIN_EXT_FIELDS) and their
	 * keys and string values, NUL-terminated copies. */
	struct llog_field fields[LLOG_FIELDS_MAX];
	char fbytes[LLOG_FIELDS_MAX * (LLOG_FIELD_KEY_MAX + LLOG_FIELD_STR_MAX + 2)];
};

/* ---- bytes ---------------------------------------------------------------- */

struct cur {
	const unsigned char *p, *end;
	const char *why;
};

static bool need(struct cur *c, size_t n)
{
	if ((size_t)(c->end - c->p) >= n)
		return true;
	if (c->why == NULL)
		c->why = "record cut short";
	return false;
}

static uint64_t get_varint(struct cur *c)
{
	uint64_t v = 0;

	for (int shift = 0; shift < 64; shift += 7) {
		if (!need(c, 1))
			return 0;
		v |= (uint64_t)(*c->p & 0x7f) << shift;
		if (!(*c->p++ & 0x80))
			return v;
	}
	c->why = "bad varint";
	return 0;
}

static uint64_t get_le(struct cur *c, int bytes)
{
	uint64_t v = 0;

	if (!need(c, (size_t)bytes))
		return 0;
	for (int i = 0; i < bytes; i++)
		v |= (uint64_t)c->p[i] << (8 * i);
	c->p += bytes;
	return v;
}

/* A length-prefixed string of at most max bytes; NULL on error. */
static const unsigned char *get_str(struct cur *c, size_t max, size_t *len)
{
	uint64_t n = get_varint(c);
	const unsigned char *s = c->p;

	if (c->why != NULL)
		return NULL;
	if (n > max) {
		c->why = "string too long";
		return NULL;
	}
	if (!need(c, (size_t)n))
		return NULL;
	c->p += n;
	*len = (size_t)n;
	return s;
}

static char *dup_str(const unsigned char *s, size_t n)
{
	char *d = malloc(n + 1);

	if (d != NULL) {
		memcpy(d, s, n);
		d[n] = '\0';
	}
	return d;
}

/* ---- sites ------------------------------------------------------------------ */

struct lcb *lcb_new(void)
{
	return calloc(1, sizeof(struct lcb));
}

static void site_clear(struct site *s)
{
	free(s->fmt);
	free(s->file);
	free(s->func);
	free(s->cat);
	free(s->prog);
	memset(s, 0, sizeof(*s));
}

static void stream_clear(struct stream *st)
{
	for (uint32_t i = 0; i < st->n; i++)
		site_clear(&st->site[i]);
	free(st->site);
	memset(st, 0, sizeof(*st));
}

void lcb_free(struct lcb *b)
{
	if (b == NULL)
		return;
	for (int i = 0; i < b->nst; i++)
		stream_clear(&b->st[i]);
	free(b->msg);
	free(b->line);
	free(b->args);
	free(b);
}

bool lcb_is_sites(const char *p, size_t n)
{
	return n >= 3 && memcmp(p, LLOG_SITES_HEAD, 3) == 0;
}

bool lcb_is_binary(const char *p, size_t n)
{
	return n >= 3 && memcmp(p, LLOG_BIN_HEAD, 3) == 0;
}

static struct stream *find_stream(struct lcb *b, uint64_t id, bool make)
{
	struct stream *old = NULL;

	for (int i = 0; i < b->nst; i++) {
		if (b->st[i].id == id) {
			b->st[i].used = ++b->clock;
			return &b->st[i];
		}
		if (old == NULL || b->st[i].used < old->used)
			old = &b->st[i];
	}
	if (!make)
		return NULL;
	if (b->nst < LCB_MAX_STREAMS)
		old = &b->st[b->nst++];
	else
		stream_clear(old); /* the least recently used is forgotten */
	old->id = id;
	old->used = ++b->clock;
	return old;
}

/* Whether the stored plan is the one the format parses to. */
static bool plan_matches(const struct llog__plan *mine, unsigned nargs, unsigned flags,
			 const unsigned char *types)
{
	return mine->nargs == nargs && (mine->flags & LLOG__PLAN_FILE_FLAGS) == flags &&
	       memcmp(mine->type, types, nargs) == 0;
}

/* One definition (the body, deflen bytes) into s. */
static const char *parse_site(struct cur *c, struct site *s)
{
	const unsigned char *types, *fmt, *file, *func;
	size_t fl, il, nl;
	unsigned nargs, flags;

	if (!need(c, 2))
		return c->why;
	s->kind = c->p[0];
	s->level = c->p[1];
	c->p += 2;
	s->line = (int)(get_varint(c) & 0x7fffffff);
	if (!need(c, 2))
		return c->why;
	nargs = c->p[0];
	flags = c->p[1];
	c->p += 2;
	if (nargs > LLOG__PLAN_MAX_ARGS)
		return "too many arguments in a plan";
	if (!need(c, nargs))
		return c->why;
	types = c->p;
	c->p += nargs;
	fmt = get_str(c, 1u << 20, &fl);
	file = fmt ? get_str(c, 1u << 20, &il) : NULL;
	func = file ? get_str(c, 1u << 20, &nl) : NULL;
	if (func == NULL)
		return c->why;
	if (s->kind > LLOG_BIN_SITE_TEXT)
		return "unknown site kind";
	if (s->level > LLOG_FATAL)
		return "bad level";
	s->fmt = dup_str(fmt, fl);
	s->file = dup_str(file, il);
	s->func = dup_str(func, nl);
	if (s->fmt == NULL || s->file == NULL || s->func == NULL)
		return "out of memory";
	if (c->p < c->end) { /* the category, appended after version 1's fields */
		const unsigned char *cat = get_str(c, 1u << 20, &s->catlen);

		if (cat == NULL)
			return c->why;
		if ((s->cat = dup_str(cat, s->catlen)) == NULL)
			return "out of memory";
	}
	if (s->kind == LLOG_BIN_SITE_LOG) {
		llog__fmt_plan_parse(s->fmt, &s->plan);
		if ((s->plan.flags & LLOG__PLAN_EAGER) || !plan_matches(&s->plan, nargs, flags, types))
			return "a site's plan is not its format's (another llog version?)";
		llog__pack_site_init(&s->pack, s->fmt, &s->plan);
		/* parsed once, not for every record; without memory,
		 * llog__fmt_render parses it each time (the same bytes) */
		s->prog = llog__fmt_compile(s->fmt);
	}
	return NULL;
}

int lcb_sites(struct lcb *b, const char *p, size_t n, const char **why)
{
	struct cur c = {(const unsigned char *)p, (const unsigned char *)p + n, NULL};
	struct stream *st;
	uint64_t id, first, count;
	uint32_t room;

	*why = NULL;
	if (n < 28 || !lcb_is_sites(p, n)) {
		*why = "not a sites frame";
		return -1;
	}
	if ((unsigned char)p[3] > LLOG_BIN_SITES_VERSION) {
		*why = "sites frame of a newer format version";
		return -1;
	}
	c.p += 4;
	id = get_le(&c, 8);
	room = (uint32_t)get_le(&c, 4);
	first = get_le(&c, 4);
	count = get_le(&c, 4);
	if (get_le(&c, 4) != llog__fnv1a32(c.p, (size_t)(c.end - c.p))) {
		*why = "sites frame: check mismatch";
		return -1;
	}
	if (first + count > LCB_MAX_SITES) {
		*why = "too many sites";
		return -1;
	}
	if ((st = find_stream(b, id, true)) == NULL) {
		*why = "out of memory";
		return -1;
	}
	st->room = room;
	if (first + count > st->n) {
		struct site *ns = realloc(st->site, (size_t)(first + count) * sizeof(*ns));

		if (ns == NULL) {
			*why = "out of memory";
			return -1;
		}
		memset(ns + st->n, 0, (size_t)(first + count - st->n) * sizeof(*ns));
		st->site = ns;
		st->n = (uint32_t)(first + count);
	}
	for (uint64_t i = 0; i < count; i++) {
		struct site *s = &st->site[first + i];
		uint64_t len = get_varint(&c);
		struct cur body;
		const char *bad;

		if (c.why == NULL && len > (uint64_t)(c.end - c.p))
			c.why = "site definition cut short";
		if (c.why != NULL) {
			*why = c.why;
			return -1;
		}
		body = (struct cur){c.p, c.p + len, NULL};
		c.p += len;
		site_clear(s);
		bad = parse_site(&body, s); /* bytes after the known fields: a newer writer's */
		s->defined = true;
		s->valid = bad == NULL;
		if (bad != NULL && strcmp(bad, "out of memory") == 0) {
			*why = bad;
			return -1;
		}
	}
	return 0;
}

/* ---- records ---------------------------------------------------------------- */

/* Whether args[0..len) is exactly what plan captures (fmt.h's layout). */
static bool args_fit(const struct llog__plan *plan, const unsigned char *a, size_t len)
{
	size_t off = 0;

	for (unsigned i = 0; i < plan->nargs; i++) {
		uint8_t t = plan->type[i];
		size_t fixed;

		switch (t) {
		case A_INT: fixed = 4; break;
		case A_I64: case A_DBL: case A_PTR: fixed = 8; break;
		case A_LDBL: fixed = LDBL_STORE; break;
		case A_NPTR: fixed = 0; break;
		default:
			if (t == A_STR || t == A_STR_STAR || t >= A_STR_PREC0) {
				uint32_t n;

				if (len - off < 4)
					return false;
				memcpy(&n, a + off, 4);
				off += 4;
				if (n == STR_NULL)
					continue;
				fixed = n;
				break;
			}
			return false;
		}
		if (len - off < fixed)
			return false;
		off += fixed;
	}
	return off == len;
}

static bool grow(char **buf, size_t *cap, size_t n)
{
	char *p;

	if (n <= *cap)
		return true;
	if ((p = realloc(*buf, n)) == NULL)
		return false;
	*buf = p;
	*cap = n;
	return true;
}

/* Renders a LOG record's message as render.c does. */
static const char *render_log(struct lcb *b, const struct stream *st, const struct site *s,
			      const unsigned char *args, size_t len, bool cut, struct llog_entry *e)
{
	int trunc = cut;
	size_t n;

	if (s->kind != LLOG_BIN_SITE_LOG)
		return "arguments for a site without a format";
	if (!args_fit(&s->plan, args, len))
		return "arguments do not match the site's plan";
	if (st->room == 0 || st->room > (64u << 20))
		return "bad render bound";
	if (!grow(&b->msg, &b->msg_cap, (size_t)st->room + LLOG__MARKER_LEN))
		return "out of memory";
	n = s->prog != NULL
		    ? llog__fmt_render_prog(b->msg, st->room, s->prog, &s->plan, args, &trunc)
		    : llog__fmt_render(b->msg, st->room, s->fmt, &s->plan, args, &trunc);
	if (trunc) {
		memcpy(b->msg + n, LLOG__MARKER, LLOG__MARKER_LEN);
		n += LLOG__MARKER_LEN;
	}
	e->msg = b->msg;
	e->msg_len = n;
	return NULL;
}

/* A copy of n bytes at src into the decoder's field bytes, NUL-ended. */
static const char *field_copy(char *bytes, size_t *used, const unsigned char *src, size_t n)
{
	char *d = bytes + *used;

	memcpy(d, src, n);
	d[n] = '\0';
	*used += n + 1;
	return d;
}

/* The fields item of an extension blob (docs/file-format.md) into e,
 * pointing into b. Returns NULL or why it is bad. */
static const char *get_fields(struct lcb *b, struct cur *c, struct llog_entry *e)
{
	uint64_t trunc = get_varint(c), n = get_varint(c);
	size_t used = 0;

	if (c->why != NULL)
		return c->why;
	if (n > LLOG_FIELDS_MAX || trunc > UINT32_MAX)
		return "too many fields";
	for (uint64_t i = 0; i < n; i++) {
		struct llog_field *f = &b->fields[i];
		const unsigned char *s;
		unsigned t;
		size_t len;
		uint64_t v;

		if (!need(c, 1))
			return c->why;
		t = *c->p++;
		if ((s = get_str(c, LLOG_FIELD_KEY_MAX, &len)) == NULL)
			return c->why;
		f->key = field_copy(b->fbytes, &used, s, len);
		f->key_len = len;
		f->type = (enum llog_field_type)(t & ~LLOG_BIN_FIELD_CUT);
		f->flags = (t & LLOG_BIN_FIELD_CUT) ? LLOG_FIELD_TRUNCATED : 0;
		switch (f->type) {
		case LLOG_FIELD_NULL:
			break;
		case LLOG_FIELD_I64:
			v = get_varint(c);
			f->v.i64 = (int64_t)((v >> 1) ^ (0 - (v & 1)));
			break;
		case LLOG_FIELD_U64:
			f->v.u64 = get_varint(c);
			break;
		case LLOG_FIELD_F64:
			v = get_le(c, 8);
			memcpy(&f->v.f64, &v, 8);
			break;
		case LLOG_FIELD_BOOL:
			f->v.b = need(c, 1) && *c->p++ != 0;
			break;
		case LLOG_FIELD_STR:
			if ((s = get_str(c, LLOG_FIELD_STR_MAX, &len)) == NULL)
				return c->why;
			f->v.str.ptr = field_copy(b->fbytes, &used, s, len);
			f->v.str.len = len;
			break;
		default:
			return "unknown field type";
		}
		if (c->why != NULL)
			return c->why;
	}
	e->fields = n != 0 ? b->fields : NULL;
	e->nfields = (size_t)n;
	e->fields_truncated = (uint32_t)trunc;
	return NULL;
}

/* An extension blob of x bytes: the items this version knows (fields),
 * the others skipped. */
static const char *get_ext(struct lcb *b, struct cur *c, uint64_t x, struct llog_entry *e)
{
	struct cur in;

	if (c->why != NULL || !need(c, x > (uint64_t)(c->end - c->p) ? SIZE_MAX : (size_t)x))
		return c->why;
	in.p = c->p;
	in.end = c->p + x;
	in.why = NULL;
	c->p += x;
	while (in.p < in.end) {
		unsigned kind = *in.p++;
		uint64_t n = get_varint(&in);
		struct cur item;

		if (in.why != NULL || !need(&in, n > (uint64_t)(in.end - in.p) ? SIZE_MAX : (size_t)n))
			return in.why;
		item.p = in.p;
		item.end = in.p + n;
		item.why = NULL;
		in.p += n;
		if (kind == LLOG_BIN_EXT_FIELDS) {
			const char *why = get_fields(b, &item, e);

			if (why != NULL)
				return why;
		}
	}
	return NULL;
}

int lcb_frame(struct lcb *b, const char *p, size_t n, enum llog_format format, lcb_out *out,
	      void *ctx, const char **why)
{
	static const struct llog_line_options lo = {.flags = LLOG_LINE_FUNC,
						     .ts_precision = LLOG_TS_NS};
	struct cur c = {(const unsigned char *)p, (const unsigned char *)p + n, NULL};
	struct stream *st;
	uint64_t seq = 0, tid = 0;
	int64_t ts = 0;
	char name[16] = "";
	bool has_thread = false;
	uint64_t stamp;

	*why = NULL;
	if (n < 12 || !lcb_is_binary(p, n)) {
		*why = "not a binary frame";
		return -1;
	}
	if ((unsigned char)p[3] > LLOG_BIN_VERSION) {
		*why = "binary frame of a newer format version";
		return -1;
	}
	c.p += 4;
	st = find_stream(b, get_le(&c, 8), false);
	stamp = ++b->frames;
	while (c.p < c.end) {
		unsigned tag = *c.p++;
		struct llog_entry e;
		const struct site *s;
		const unsigned char *body;
		uint64_t id, zz, len;
		size_t ln;
		int cut; /* the line is never cut: its buffer has the bound */

		if ((tag & 7u) == LLOG_BIN_THREAD) {
			size_t nl;

			tid = get_varint(&c);
			if (need(&c, 1) && (nl = *c.p++) <= 15 && need(&c, nl)) {
				memcpy(name, c.p, nl);
				name[nl] = '\0';
				c.p += nl;
				has_thread = true;
				continue;
			}
			*why = c.why ? c.why : "thread name too long";
			return -1;
		}
		if ((tag & 7u) != LLOG_BIN_LOG && (tag & 7u) != LLOG_BIN_TEXT &&
		    (tag & 7u) != LLOG_BIN_PLOG) {
			*why = "unknown record kind";
			return -1;
		}
		memset(&e, 0, sizeof(e));
		seq += 1 + ((tag & LLOG_BIN_F_SEQ) ? get_varint(&c) : 0);
		id = get_varint(&c);
		zz = get_varint(&c);
		/* zigzag; wraps as the writer's subtraction did */
		ts = (int64_t)((uint64_t)ts + ((zz >> 1) ^ (0 - (zz & 1))));
		if (tag & LLOG_BIN_F_SUPP)
			e.suppressed = get_varint(&c);
		if (tag & LLOG_BIN_F_EXT) { /* fields; items of a newer writer skipped */
			uint64_t x = get_varint(&c);
			const char *ew = get_ext(b, &c, x, &e);

			if (ew != NULL && c.why == NULL)
				c.why = ew;
		}
		len = get_varint(&c);
		if (c.why == NULL && len > (uint64_t)(c.end - c.p))
			c.why = "record cut short";
		if (c.why != NULL) {
			*why = c.why;
			return -1;
		}
		body = c.p;
		c.p += len;
		if (!has_thread) {
			*why = "record before any thread";
			return -1;
		}
		if (st == NULL || id >= st->n || !st->site[id].defined) {
			*why = "record of a call site not defined before it (sites frame lost?)";
			return -1;
		}
		s = &st->site[id];
		if (!s->valid) {
			*why = "record of a call site whose definition is bad";
			return -1;
		}
		if ((tag & 7u) == LLOG_BIN_PLOG) { /* back to the capture's layout */
			if (s->kind != LLOG_BIN_SITE_LOG) {
				*why = "arguments for a site without a format";
				return -1;
			}
			if (!grow(&b->args, &b->args_cap, LLOG__UNPACK_BOUND(len))) {
				*why = "out of memory";
				return -1;
			}
			len = llog__unpack((unsigned char *)b->args, &st->site[id].pack, stamp,
					   (unsigned char)p[3], &s->plan, body, (size_t)len, why);
			if (len == (uint64_t)(size_t)-1)
				return -1;
			body = (const unsigned char *)b->args;
		}
		e.seq = seq;
		e.ts_ns = ts;
		e.level = (enum llog_level)s->level;
		e.line = s->line;
		e.tid = tid;
		e.file = s->file;
		e.func = s->func;
		e.thread_name = name;
		e.thread_name_len = strlen(name);
		e.backtrace = (tag & LLOG_BIN_F_BT) != 0;
		e.category = s->cat;
		e.category_len = s->cat != NULL ? s->catlen : 0;
		if ((tag & 7u) != LLOG_BIN_TEXT) {
			if ((*why = render_log(b, st, s, body, (size_t)len, tag & LLOG_BIN_F_TRUNC,
					       &e)) != NULL)
				return -1;
		} else {
			e.msg = (const char *)body;
			e.msg_len = (size_t)len;
		}
		if (!grow(&b->line, &b->line_cap, llog__line_bound(&e, format, NULL))) {
			*why = "out of memory";
			return -1;
		}
		ln = llog__line_format(&e, format, &lo, NULL, b->line, b->line_cap, &cut);
		if (ln > 0 && b->line[ln - 1] == '\n')
			ln--;
		out(ctx, &e, b->line, ln);
	}
	return 0;
}
