/*
 * llogcat.c - read llog's compressed, binary (or plain text) log files.
 *
 * DESIGN
 * A binary file's data frames (docs/file-format.md) are rendered record by
 * record into the lines the text mode writes (binrec.h; JSON lines with
 * --json) before anything below, so every option works on them alike.
 * Each file is read in order through the frame reader (reader.h), which hands
 * over a data frame only once it decoded whole and its checksum matched; the
 * lines of that frame then go through the filters (level, time, regex,
 * function) to the output (as written, as JSON lines, or only counted for
 * --stats; --local re-renders the timestamp, the rest of the line stays as
 * written). A text line carries its function when the file's metadata says
 * line=func (the file sink writes it in every compressed text file since
 * it has --func); in a plain-text file, for --func only, a message that
 * starts with "NAME() " is taken as the function NAME. Without --local and --func the
 * output of every file is what it was before these options existed. Files
 * given together are ordered by their first metadata frame (created_ns, then
 * seq_first), files without one by mtime, then by name, and printed one
 * after the other. --follow reads the last file as it grows: new complete
 * frames are decoded every POLL_MS; when another file appears at the path
 * (rotation), the old one is read to its end first, then the new one from
 * its start, so every record is printed once.
 * Exit status: 0 clean, 1 damage found, 2 usage or I/O error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <regex.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "llog.h" /* LLOG_VERSION_* */
#include "binrec.h"
#include "fields.h"
#include "fileformat.h"
#include "reader.h"

#define POLL_MS 150
#define READ_CHUNK (1u << 20)
#define SNIFF 4096

enum { EXIT_DAMAGE = 1, EXIT_ERROR = 2 };

static struct {
	int level;
	bool since_set, until_set;
	int64_t since, until;
	bool grep_set;
	regex_t grep;
	bool json, stats, verify, repair, follow, local;
	const char *func; /* --func: a glob (fnmatch) */
	const char *category; /* --category: a name and its children */
	struct lcf_where *where; /* --where, all must pass (AND) */
	size_t nwhere;
} opt = {.level = -1};

/* Whether the text lines being read carry "FUNC() " (the source's
 * metadata, or a plain-text file: see the DESIGN note). */
static bool func_layout;

/* The file format version of the text lines being read: the last
 * metadata frame's "llog-meta V"; LLOG_META_VERSION for a file without
 * one (plain text, a frame made by the zstd CLI) and for binary records
 * (rendered by this llogcat's line formatter). */
static unsigned text_version = LLOG_META_VERSION;
static const char *cur_path; /* the file being read, for warnings */

/* One record's fields: parsed from its text line into `parsed`, or a
 * binary record's own. */
static struct lcf_fields parsed;
static struct {
	const struct llog_field *f;
	size_t n;
	uint32_t truncated;
	const char *malformed; /* why the section is malformed; NULL: fine */
	const char *raw; size_t raw_len; /* the section as written (text) */
} fl;
static char *scratch; /* a decoded message (--json of a version-2 text line) */
static size_t scratch_cap;

static struct {
	uint64_t records, other, per_level[6];
	uint64_t plain, file, frames, damaged;
	bool any_ts;
	int64_t first, last;
} st;

static int status; /* worst exit status so far */

static void fail(int s)
{
	if (s > status)
		status = s;
}

/* ---- output ---- */

/* A JSON string as the library writes one (line_escape.c): '"' and '\\'
 * escaped, \\n \\r \\t, other controls and the C1 controls (U+0080..U+009F)
 * as \\u00XX, a byte that is not UTF-8 as U+FFFD, everything else as it is;
 * so that a text file's record reads back as the JSON sink wrote it. */
static void put_json_string(const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";

	putchar('"');
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\') {
			putchar('\\');
			putchar(c);
		} else if (c == '\n' || c == '\r' || c == '\t') {
			putchar('\\');
			putchar(c == '\n' ? 'n' : c == '\r' ? 'r' : 't');
		} else if (c < 0x20) {
			printf("\\u00%c%c", hex[c >> 4], hex[c & 15]);
		} else if (c < 0x80) {
			putchar(c);
		} else {
			/* Copy a valid UTF-8 sequence; replace a bad byte by U+FFFD. */
			size_t len = c >= 0xf0 && c <= 0xf4 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 ? 2 : 0;
			unsigned cp = c & (len == 4 ? 0x07 : len == 3 ? 0x0f : 0x1f);
			bool ok = len != 0 && i + len <= n;

			for (size_t k = 1; ok && k < len; k++) {
				ok = ((unsigned char)s[i + k] & 0xc0) == 0x80;
				cp = cp << 6 | ((unsigned char)s[i + k] & 0x3f);
			}
			ok = ok && !(len == 3 && cp < 0x800) && !(len == 4 && cp < 0x10000) &&
			     cp <= 0x10ffff && !(cp >= 0xd800 && cp <= 0xdfff);
			if (ok && cp < 0xa0) { /* a C1 control */
				printf("\\u00%c%c", hex[cp >> 4], hex[cp & 15]);
				i += len - 1;
			} else if (ok) {
				fwrite(s + i, 1, len, stdout);
				i += len - 1;
			} else {
				fputs("\xef\xbf\xbd", stdout);
			}
		}
	}
	putchar('"');
}

static void put_json_field(const char *key, const char *v, size_t n, bool quoted)
{
	printf(",\"%s\":", key);
	if (quoted)
		put_json_string(v, n);
	else
		fwrite(v, 1, n, stdout);
}

/* A field's value as JSON (docs/fields.md 4). */
static void put_json_value(const struct llog_field *f)
{
	char d[32];

	switch (f->type) {
	case LLOG_FIELD_NULL: fputs("null", stdout); break;
	case LLOG_FIELD_I64: printf("%lld", (long long)f->v.i64); break;
	case LLOG_FIELD_U64: printf("%llu", (unsigned long long)f->v.u64); break;
	case LLOG_FIELD_BOOL: fputs(f->v.b ? "true" : "false", stdout); break;
	case LLOG_FIELD_STR: put_json_string(f->v.str.ptr, f->v.str.len); break;
	case LLOG_FIELD_F64:
		if (isnan(f->v.f64))
			fputs("\"NaN\"", stdout);
		else if (isinf(f->v.f64))
			fputs(f->v.f64 < 0 ? "\"-Infinity\"" : "\"Infinity\"", stdout);
		else
			fwrite(d, 1, lcf_format_double(f->v.f64, d), stdout);
		break;
	}
}

/* ,"fields":{...}[,"fields_truncated":N], or for a malformed section
 * ,"fields_malformed":true,"fields_raw":"AS WRITTEN". */
static void put_json_fields(void)
{
	if (fl.malformed != NULL) {
		fputs(",\"fields_malformed\":true,\"fields_raw\":", stdout);
		put_json_string(fl.raw, fl.raw_len);
		return;
	}
	if (fl.n > 0) {
		fputs(",\"fields\":{", stdout);
		for (size_t i = 0; i < fl.n; i++) {
			if (i > 0)
				putchar(',');
			put_json_string(fl.f[i].key, fl.f[i].key_len);
			putchar(':');
			put_json_value(&fl.f[i]);
		}
		putchar('}');
	}
	if (fl.truncated > 0)
		printf(",\"fields_truncated\":%u", (unsigned)fl.truncated);
}

/* The message of a text record for JSON: version 2 decoded (its escapes
 * are unambiguous), version 1 as written (a '\\' there is itself). */
static void put_json_msg(const struct lcr_record *r)
{
	long n;

	if (text_version < 2) {
		put_json_field("msg", r->msg, r->msg_len, true);
		return;
	}
	if (r->msg_len > scratch_cap) {
		char *b = realloc(scratch, r->msg_len);

		if (b == NULL) {
			fprintf(stderr, "llogcat: out of memory\n");
			exit(EXIT_ERROR);
		}
		scratch = b;
		scratch_cap = r->msg_len;
	}
	n = lcf_unescape_msg(r->msg, r->msg_len, scratch);
	if (n < 0) {
		fprintf(stderr, "llogcat: %s: record at %.*s: bad escape in the message, shown as written\n",
			cur_path, (int)r->ts_len, r->ts);
		fail(EXIT_DAMAGE);
		put_json_field("msg", r->msg, r->msg_len, true);
		fputs(",\"msg_malformed\":true", stdout);
		return;
	}
	put_json_field("msg", scratch, (size_t)n, true);
}

/* The record's timestamp in local time (--local), with as many fraction
 * digits as written. */
static size_t local_ts(const struct lcr_record *r, char buf[36])
{
	const char *dot = memchr(r->ts, '.', r->ts_len);
	int frac = 0;

	if (dot != NULL)
		for (const char *d = dot + 1; d < r->ts + r->ts_len && *d >= '0' && *d <= '9'; d++)
			frac++;
	return lcr_format_local(r->ts_ns, frac, buf);
}

/* The markers of a text line around its message (docs/file-format.md,
 * "Text lines"), as the line has them (a message's own look-alikes are
 * escaped, so these are the writer's): "[backtrace] " before it (*bt) and
 * " [N suppressed]" after it (*supp = N; 0: none), taken off r's message. */
static void take_markers(struct lcr_record *r, bool *bt, unsigned long long *supp)
{
	static const char tail[] = " suppressed]";
	const size_t tn = sizeof(tail) - 1;
	size_t n = r->msg_len, d = 0;

	*bt = n >= 12 && memcmp(r->msg, "[backtrace] ", 12) == 0;
	if (*bt) {
		r->msg += 12;
		r->msg_len -= 12;
		n -= 12;
	}
	*supp = 0;
	if (n < tn + 3 || memcmp(r->msg + n - tn, tail, tn) != 0)
		return;
	while (d < n - tn && d < 20 && r->msg[n - tn - 1 - d] >= '0' && r->msg[n - tn - 1 - d] <= '9')
		d++;
	if (d == 0 || n - tn - d < 2 || r->msg[n - tn - d - 1] != '[' ||
	    r->msg[n - tn - d - 2] != ' ')
		return;
	*supp = strtoull(r->msg + n - tn - d, NULL, 10);
	r->msg_len = n - tn - d - 2;
}

/* A text record as one JSON line, with the members and in the order of
 * the JSON sink (docs/file-format.md, "JSON lines"); unparsed parts fall
 * back to "msg". */
static void put_as_json(const char *line, size_t len, const struct lcr_record *r)
{
	struct lcr_record m = *r;
	unsigned long long supp;
	char lt[36];
	bool bt;

	if (!r->parsed) {
		fputs("{\"msg\":", stdout);
		put_json_string(line, len);
		fputs("}\n", stdout);
		return;
	}
	fputs("{\"ts\":", stdout);
	if (opt.local)
		put_json_string(lt, local_ts(r, lt));
	else
		put_json_string(r->ts, r->ts_len);
	printf(",\"level\":\"%s\"", lcr_level_name(r->level));
	put_json_field("thread", r->thread, r->thread_len, false);
	if (r->thread_name != NULL)
		put_json_field("thread_name", r->thread_name, r->thread_name_len, true);
	if (r->category != NULL)
		put_json_field("category", r->category, r->category_len, true);
	put_json_field("file", r->file, r->file_len, true);
	put_json_field("line", r->lineno, r->lineno_len, false);
	if (r->func != NULL)
		put_json_field("func", r->func, r->func_len, true);
	take_markers(&m, &bt, &supp);
	if (supp > 0)
		printf(",\"suppressed\":%llu", supp);
	if (bt)
		fputs(",\"backtrace\":true", stdout);
	put_json_msg(&m);
	put_json_fields();
	fputs("}\n", stdout);
}

/* The line as written, its timestamp in local time (text: the leading
 * one; JSON: the "ts" value). */
static void put_local(const char *line, size_t len, const struct lcr_record *r)
{
	char lt[36];
	size_t at = (size_t)(r->ts - line);

	fwrite(line, 1, at, stdout);
	fwrite(lt, 1, local_ts(r, lt), stdout);
	fwrite(r->ts + r->ts_len, 1, len - at - r->ts_len, stdout);
	putchar('\n');
}

/* --func: the record's function matches the glob (a record without one
 * never does). */
static bool func_matches(const struct lcr_record *r)
{
	char name[256];

	if (r->func == NULL || r->func_len >= sizeof(name))
		return false;
	memcpy(name, r->func, r->func_len);
	name[r->func_len] = '\0';
	return fnmatch(opt.func, name, 0) == 0;
}

/* --category NAME: the record's category is NAME or a child of it
 * (NAME.x); "" (or "-") selects the default category. */
static bool category_matches(const struct lcr_record *r)
{
	size_t n = strlen(opt.category);

	if (n == 0 || strcmp(opt.category, "-") == 0)
		return r->category == NULL || r->category_len == 0;
	return r->category != NULL && r->category_len >= n &&
	       memcmp(r->category, opt.category, n) == 0 &&
	       (r->category_len == n || r->category[n] == '.');
}

/* The record's fields into fl: a binary record's own (bf: its entry), or
 * its text line's field section parsed (a malformed one reported). */
static void take_fields(const struct lcr_record *r, const struct llog_entry *bf)
{
	const char *why;
	int rc;

	memset(&fl, 0, sizeof(fl));
	if (bf != NULL) {
		fl.f = bf->fields;
		fl.n = bf->nfields;
		fl.truncated = bf->fields_truncated;
		return;
	}
	if (r->fields == NULL)
		return;
	fl.raw = r->fields;
	fl.raw_len = r->fields_len;
	rc = r->is_json ? lcf_parse_json(r->fields, r->fields_len, &parsed, &why)
			: lcf_parse_text(r->fields, r->fields_len, &parsed, &why);
	switch (rc) {
	case 0:
		fl.f = parsed.f;
		fl.n = parsed.n;
		fl.truncated = parsed.fields_truncated;
		break;
	case -1:
		fl.malformed = why;
		fprintf(stderr, "llogcat: %s: record at %.*s: malformed field section (%s)\n",
			cur_path, r->has_ts ? (int)r->ts_len : 0, r->has_ts ? r->ts : "", why);
		fail(EXIT_DAMAGE);
		break;
	default:
		fprintf(stderr, "llogcat: out of memory\n");
		exit(EXIT_ERROR);
	}
}

static bool where_matches(void)
{
	for (size_t i = 0; i < opt.nwhere; i++)
		if (!lcf_where_match(&opt.where[i], fl.f, fl.n))
			return false;
	return true;
}

/* Counts a record that passed the filters (level < 0: none). */
static void count(int level, bool has_ts, int64_t ts)
{
	st.records++;
	if (level >= 0)
		st.per_level[level]++;
	else
		st.other++;
	if (has_ts) {
		if (!st.any_ts || ts < st.first)
			st.first = ts;
		if (!st.any_ts || ts > st.last)
			st.last = ts;
		st.any_ts = true;
	}
}

/* Whether a binary record's own entry answers every option: the line it
 * renders to then need not be parsed back (no text filter, no JSON or
 * local time output). */
static bool entry_suffices(void)
{
	return opt.func == NULL && opt.category == NULL && !opt.grep_set && opt.nwhere == 0 &&
	       !opt.json && !opt.local;
}

/* One record: its line (text or JSON), and for a binary record its entry
 * (bf: the fields are taken from it, not from the line). */
static void record_ex(const char *line, size_t len, const struct llog_entry *bf)
{
	struct lcr_record r;

	/* (times within a second of the int64 ends: the line's time does
	 * not parse back; the slow path decides as for a text line) */
	if (bf != NULL && entry_suffices() && bf->ts_ns > INT64_MIN + 1000000000 &&
	    bf->ts_ns < INT64_MAX - 1000000000) {
		/* the line's level and time are the entry's */
		if (opt.level >= 0 && (int)bf->level < opt.level)
			return;
		if ((opt.since_set && bf->ts_ns < opt.since) ||
		    (opt.until_set && bf->ts_ns > opt.until))
			return;
		count((int)bf->level, true, bf->ts_ns);
		if (opt.stats || opt.verify || opt.repair)
			return;
		/* llogcat has one thread: stdio's lock is not needed */
		fwrite_unlocked(line, 1, len, stdout);
		putchar_unlocked('\n');
		return;
	}
	lcr_parse_record_v(line, len, func_layout, bf != NULL ? LLOG_META_VERSION : text_version,
			   &r);
	take_fields(&r, bf);
	if (opt.level >= 0 && r.level < opt.level)
		return;
	if (opt.func != NULL && !func_matches(&r))
		return;
	if (opt.category != NULL && !category_matches(&r))
		return;
	if ((opt.since_set || opt.until_set) && !r.has_ts)
		return;
	if ((opt.since_set && r.ts_ns < opt.since) || (opt.until_set && r.ts_ns > opt.until))
		return;
	if (opt.grep_set) {
		char *m = strndup(r.msg, r.msg_len);
		int miss = m == NULL || regexec(&opt.grep, m, 0, NULL, 0) != 0;

		free(m);
		if (miss)
			return;
	}
	if (opt.nwhere > 0 && !where_matches())
		return;
	count(r.level, r.has_ts, r.ts_ns);
	if (opt.stats || opt.verify || opt.repair)
		return;
	if (opt.json && !r.is_json) {
		put_as_json(line, len, &r);
	} else if (opt.local && r.has_ts) {
		put_local(line, len, &r);
	} else {
		fwrite(line, 1, len, stdout);
		putchar('\n');
	}
}

static void record(const char *line, size_t len)
{
	record_ex(line, len, NULL);
}

/* Calls record() for each line of p[0..n); returns the bytes consumed (the
 * unterminated tail is left unless `all`). */
static size_t lines(const char *p, size_t n, bool all)
{
	size_t done = 0;

	while (done < n) {
		const char *nl = memchr(p + done, '\n', n - done);

		if (nl == NULL) {
			if (!all)
				break;
			record(p + done, n - done);
			return n;
		}
		record(p + done, (size_t)(nl - (p + done)));
		done = (size_t)(nl - p) + 1;
	}
	return done;
}

/* ---- sources ---- */

enum kind { K_UNKNOWN, K_FRAMED, K_TEXT, K_EMPTY };

struct src {
	const char *path;
	int fd;
	enum kind kind;
	uint64_t off;          /* next byte to read */
	struct lcr *rd;        /* K_FRAMED */
	struct lcb *bin;       /* K_FRAMED: the binary records' call sites */
	char *text;            /* K_TEXT: unterminated line */
	size_t text_len, text_cap;
	uint64_t damage;
	uint64_t frames, records_before;
};

static bool is_binary(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] < 0x20 && p[i] != '\n' && p[i] != '\r' && p[i] != '\t' && p[i] != 0x1b &&
		    p[i] != '\f')
			return true;
	return false;
}

/* Decides the kind from the first bytes; K_UNKNOWN while too few exist. */
static int classify(struct src *s, bool eof)
{
	unsigned char b[SNIFF];
	ssize_t n = pread(s->fd, b, sizeof(b), 0);

	if (n < 0) {
		fprintf(stderr, "llogcat: %s: %s\n", s->path, strerror(errno));
		return -1;
	}
	if (n == 0) {
		s->kind = eof ? K_EMPTY : K_UNKNOWN;
		return 0;
	}
	if (lcr_is_framed(b, (size_t)n)) {
		s->kind = K_FRAMED;
	} else if (n < 4 && !eof) {
		return 0;
	} else if (n < 4 && b[0] == 0x28) {
		s->kind = K_FRAMED; /* the start of a zstd magic: a torn first frame */
	} else if (is_binary(b, (size_t)n)) {
		fprintf(stderr, "llogcat: %s: not an llog file (neither zstd frames nor text)\n",
			s->path);
		return -1;
	} else {
		s->kind = K_TEXT;
	}
	/* Framed: as its metadata says (drain); plain text: guessed, and
	 * only for --func (so no other output changes). */
	func_layout = s->kind == K_TEXT && opt.func != NULL;
	text_version = LLOG_META_VERSION;
	if (s->kind == K_FRAMED && (s->rd = lcr_new()) == NULL) {
		fprintf(stderr, "llogcat: out of memory\n");
		return -1;
	}
	return 0;
}

static void damaged(struct src *s, uint64_t off, const char *why)
{
	fprintf(stderr, "llogcat: %s: damaged frame at offset %llu (%s), skipped\n", s->path,
		(unsigned long long)off, why);
	s->damage++;
	st.damaged++;
	fail(EXIT_DAMAGE);
}

/* A binary record, rendered as the text mode writes it (binrec.h). */
static void bin_line(void *ctx, const struct llog_entry *e, const char *line, size_t len)
{
	(void)ctx;
	st.plain += len + 1;
	record_ex(line, len, e);
}

/* A binary data frame: its records through record(), as lines that carry
 * the function. */
static void bin_frame(struct src *s, const struct lcr_event *ev)
{
	bool layout = func_layout;
	unsigned version = text_version;
	const char *why;

	func_layout = true;
	text_version = LLOG_META_VERSION;
	if (s->bin == NULL)
		damaged(s, ev->off, "binary records but no call sites before them");
	else if (lcb_frame(s->bin, ev->data, ev->len, opt.json ? LLOG_FORMAT_JSON : LLOG_FORMAT_TEXT,
			   bin_line, NULL, &why) < 0)
		damaged(s, ev->off, why);
	func_layout = layout;
	text_version = version;
}

static void drain(struct src *s, bool eof)
{
	struct lcr_event ev;
	const char *why;

	while (lcr_next(s->rd, eof, &ev) != LCR_MORE) {
		if (ev.kind == LCR_DAMAGED) {
			damaged(s, ev.off, ev.reason);
			continue;
		}
		if (ev.kind == LCR_SITES) {
			if (s->bin == NULL && (s->bin = lcb_new()) == NULL) {
				fprintf(stderr, "llogcat: out of memory\n");
				fail(EXIT_ERROR);
			} else if (lcb_sites(s->bin, ev.data, ev.len, &why) < 0) {
				damaged(s, ev.off, why);
			}
			continue;
		}
		if (ev.kind == LCR_META) {
			struct lcr_meta m;

			lcr_parse_meta(ev.data, ev.len, &m);
			func_layout = m.valid && m.line_func;
			/* Not a version number: as unknown as a newer one. */
			text_version = m.valid && m.version > 0 ? m.version : UINT_MAX;
			continue;
		}
		if (ev.kind != LCR_DATA)
			continue;
		s->frames++;
		st.frames++;
		if (text_version > LLOG_META_VERSION && !lcb_is_binary(ev.data, ev.len)) {
			/* Lines of a newer text format: a writer raises the
			 * version only for what this reader would misread. */
			fprintf(stderr,
				"llogcat: %s: frame at offset %llu: file format version %u is newer than this llogcat reads (%u), skipped\n",
				s->path, (unsigned long long)ev.off, text_version, LLOG_META_VERSION);
			fail(EXIT_DAMAGE);
			continue;
		}
		if (lcb_is_binary(ev.data, ev.len)) {
			bin_frame(s, &ev);
			continue;
		}
		st.plain += ev.len;
		lines(ev.data, ev.len, true);
	}
}

static int text_append(struct src *s, const char *p, size_t n)
{
	if (s->text_len + n > s->text_cap) {
		size_t cap = s->text_cap ? s->text_cap : 65536;

		while (cap < s->text_len + n)
			cap *= 2;
		char *t = realloc(s->text, cap);
		if (t == NULL)
			return -1;
		s->text = t;
		s->text_cap = cap;
	}
	memcpy(s->text + s->text_len, p, n);
	s->text_len += n;
	return 0;
}

/* Reads what the file holds past s->off and processes it. With eof, an
 * incomplete last frame is damage and an unterminated last line is a record.
 * 0, or -1 on an I/O error (reported). */
static int pump(struct src *s, bool eof)
{
	static char buf[READ_CHUNK];

	if (s->kind == K_UNKNOWN && classify(s, eof) < 0)
		return -1;
	if (s->kind == K_UNKNOWN || s->kind == K_EMPTY)
		return 0;
	for (;;) {
		ssize_t n = pread(s->fd, buf, sizeof(buf), (off_t)s->off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			fprintf(stderr, "llogcat: %s: %s\n", s->path, strerror(errno));
			return -1;
		}
		if (n == 0)
			break;
		s->off += (uint64_t)n;
		st.file += (uint64_t)n;
		if (s->kind == K_FRAMED) {
			if (lcr_feed(s->rd, buf, (size_t)n) < 0) {
				fprintf(stderr, "llogcat: out of memory\n");
				return -1;
			}
			drain(s, false);
		} else {
			size_t used;

			st.plain += (uint64_t)n;
			if (text_append(s, buf, (size_t)n) < 0) {
				fprintf(stderr, "llogcat: out of memory\n");
				return -1;
			}
			used = lines(s->text, s->text_len, false);
			memmove(s->text, s->text + used, s->text_len - used);
			s->text_len -= used;
		}
	}
	if (eof && s->kind == K_FRAMED)
		drain(s, true);
	if (eof && s->kind == K_TEXT && s->text_len > 0) {
		lines(s->text, s->text_len, true);
		s->text_len = 0;
	}
	fflush(stdout);
	return 0;
}

static int src_open(struct src *s, const char *path, int flags)
{
	memset(s, 0, sizeof(*s));
	s->path = path;
	s->fd = open(path, flags | O_CLOEXEC | O_NOCTTY);
	if (s->fd < 0) {
		fprintf(stderr, "llogcat: %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

static void src_close(struct src *s)
{
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
	lcr_free(s->rd);
	s->rd = NULL;
	lcb_free(s->bin);
	s->bin = NULL;
	free(s->text);
	s->text = NULL;
}

/* --verify / --repair report for one file, after it was read whole. */
static void finish_check(struct src *s)
{
	if (opt.repair && s->kind == K_FRAMED) {
		uint64_t good = lcr_good_end(s->rd);

		if (good < s->off) {
			if (ftruncate(s->fd, (off_t)good) != 0 || fsync(s->fd) != 0) {
				fprintf(stderr, "llogcat: %s: cannot cut back: %s\n", s->path,
					strerror(errno));
				fail(EXIT_ERROR);
				return;
			}
			printf("%s: cut back to %llu bytes (removed a damaged tail of %llu bytes)\n",
			       s->path, (unsigned long long)good, (unsigned long long)(s->off - good));
		}
	}
	if (s->damage == 0)
		printf("%s: ok (%llu frames, %llu records)\n", s->path,
		       (unsigned long long)s->frames,
		       (unsigned long long)(st.records - s->records_before));
	else
		printf("%s: %llu damaged frame%s\n", s->path, (unsigned long long)s->damage,
		       s->damage == 1 ? "" : "s");
}

static void read_file(const char *path)
{
	struct src s;

	if (src_open(&s, path, opt.repair ? O_RDWR : O_RDONLY) < 0) {
		fail(EXIT_ERROR);
		return;
	}
	s.records_before = st.records;
	cur_path = path;
	if (pump(&s, true) < 0)
		fail(EXIT_ERROR);
	else if (opt.verify || opt.repair)
		finish_check(&s);
	src_close(&s);
}

/* ---- follow ---- */

static void sleep_ms(unsigned ms)
{
	struct timespec ts = {0, (long)ms * 1000000L};

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/* tail -f: never returns unless an I/O error ends it. */
static void follow(const char *path)
{
	struct src s;
	struct stat a, b;

	cur_path = path;
	if (src_open(&s, path, O_RDONLY) < 0 || fstat(s.fd, &a) != 0) {
		fail(EXIT_ERROR);
		return;
	}
	for (;;) {
		if (pump(&s, false) < 0)
			break;
		if (stat(path, &b) == 0 && (b.st_ino != a.st_ino || b.st_dev != a.st_dev)) {
			/* Rotated: the old file is finished first, torn tail included. */
			if (pump(&s, true) < 0)
				break;
			src_close(&s);
			if (src_open(&s, path, O_RDONLY) < 0 || fstat(s.fd, &a) != 0)
				break;
			continue;
		}
		if (fstat(s.fd, &b) == 0 && (uint64_t)b.st_size < s.off) {
			/* Cut back in place (a writer repaired a torn tail): reread from there. */
			uint64_t at = s.kind == K_FRAMED ? lcr_good_end(s.rd) : 0;

			s.off = at <= (uint64_t)b.st_size ? at : (uint64_t)b.st_size;
			if (s.kind == K_FRAMED)
				lcr_reset(s.rd, s.off);
			s.text_len = 0;
		}
		sleep_ms(POLL_MS);
	}
	src_close(&s);
	fail(EXIT_ERROR);
}

/* ---- ordering ---- */

struct input {
	const char *path;
	bool meta;
	int64_t key_ns; /* created_ns, or mtime for files without metadata */
	uint64_t seq;
};

/* The first metadata frame at the start of the file, if any. */
static void probe(struct input *in)
{
	unsigned char b[8 + 4096];
	struct stat sb;
	int fd = open(in->path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	ssize_t n;

	if (fd < 0)
		return;
	if (fstat(fd, &sb) == 0)
		in->key_ns = (int64_t)sb.st_mtim.tv_sec * 1000000000 + sb.st_mtim.tv_nsec;
	n = pread(fd, b, sizeof(b), 0);
	close(fd);
	if (n >= 8 && lcr_is_framed(b, 4)) {
		struct lcr *r = lcr_new();
		struct lcr_event ev;
		struct lcr_meta m;

		if (r != NULL && lcr_feed(r, b, (size_t)n) == 0 && lcr_next(r, false, &ev) == LCR_META) {
			lcr_parse_meta(ev.data, ev.len, &m);
			if (m.valid && m.has_created) {
				in->meta = true;
				in->key_ns = m.created_ns;
				in->seq = m.seq_first;
			}
		}
		lcr_free(r);
	}
}

static int cmp_input(const void *pa, const void *pb)
{
	const struct input *a = pa, *b = pb;

	if (a->key_ns != b->key_ns)
		return a->key_ns < b->key_ns ? -1 : 1;
	if (a->seq != b->seq)
		return a->seq < b->seq ? -1 : 1;
	return strcmp(a->path, b->path);
}

/* ---- options ---- */

static const char help[] =
	"NAME\n"
	"    llogcat - print, filter, check and repair llog log files\n"
	"\n"
	"SYNOPSIS\n"
	"    llogcat [OPTION]... FILE...\n"
	"\n"
	"DESCRIPTION\n"
	"    Prints the records of llog files: zstd-compressed files written by llog's\n"
	"    file sink (a zstd stream of metadata and data frames), binary ones\n"
	"    (LLOG_FILE_BINARY: each record printed exactly as the text mode writes\n"
	"    it, or with --json as the JSON mode does), or plain-text ones.\n"
	"    Several files (a rotated set, in any order) are printed in the order they\n"
	"    were written: by the creation time and first sequence number in their\n"
	"    metadata, or for files without metadata by modification time, then name.\n"
	"    A frame's records are printed only after the whole frame decoded and its\n"
	"    checksum matched. A damaged frame is reported on stderr with its byte\n"
	"    offset and skipped; reading resumes at the next frame.\n"
	"\n"
	"OPTIONS\n"
	"    -f, --follow        keep reading the last FILE as it grows, like tail -f,\n"
	"                        also after it is rotated (renamed and recreated)\n"
	"    -l, --level LEVEL   only records at LEVEL or above\n"
	"                        (trace, debug, info, warn, error, fatal)\n"
	"    --since TIME        only records at or after TIME\n"
	"    --until TIME        only records at or before TIME; TIME is RFC 3339\n"
	"                        (2026-12-03T08:19:42Z, 2026-12-03), seconds since\n"
	"                        1970 (1796285982), or an age: 30s, 10m, 2h, 1d\n"
	"    -g, --grep REGEX    only records whose message matches the POSIX\n"
	"                        extended regular expression (a plain substring works)\n"
	"    --func NAME         only records of the function NAME, a shell glob\n"
	"                        ('conn_*'); compressed text files carry the function\n"
	"                        since llog wrote \"line=func\" in their metadata; in\n"
	"                        plain text, a message starting \"NAME() \" counts\n"
	"    --category NAME     only records of category NAME and its children\n"
	"                        (NAME.x); \"-\": the default category\n"
	"    --where EXPR        only records whose fields pass EXPR; repeatable (all\n"
	"                        must pass): KEY (present), KEY=VALUE, KEY!=VALUE\n"
	"                        (absent or another value), KEY>N, KEY>=N, KEY<N,\n"
	"                        KEY<=N (numeric fields, exact for 64-bit integers).\n"
	"                        VALUE: a number matches numeric fields, true/false\n"
	"                        booleans, null a null, \"quoted\" or other text a\n"
	"                        string (quote text that looks like a number)\n"
	"    --local             timestamps in local time with the UTC offset (TZ),\n"
	"                        with the precision as written\n"
	"    -j, --json          print text records as JSON lines, their fields as\n"
	"                        \"fields\":{...} (docs/fields.md)\n"
	"    -s, --stats         print counts per level, time span, plain and file\n"
	"                        sizes and the compression ratio instead of records;\n"
	"                        the first line is a one-line summary\n"
	"    --verify            check every frame; print one line per file\n"
	"    --repair            like --verify, then cut each file back to the end of\n"
	"                        its last good frame (only a damaged tail is removed)\n"
	"    -h, --help          print this help\n"
	"    --version           print llogcat's version (llog's) and the newest file\n"
	"                        format version it reads\n"
	"\n"
	"EXIT STATUS\n"
	"    0  no damage found\n"
	"    1  a damaged or truncated frame, a malformed field section or a frame\n"
	"       of a newer file format version was found (in any mode)\n"
	"    2  usage error, unreadable file or not an llog file\n"
	"\n"
	"EXAMPLES\n"
	"    llogcat app.log.zst                     print a file\n"
	"    llogcat app.log.*.zst app.log.zst       print a rotated set in order\n"
	"    llogcat -f app.log.zst                  follow a live file\n"
	"    llogcat --level warn --since 1h app.log.zst\n"
	"    llogcat --grep 'timeout|refused' --json app.log.zst\n"
	"    llogcat --func 'conn_*' --local app.log.zst\n"
	"    llogcat --where 'latency_ms>100' --where user=bob app.log.zst\n"
	"    llogcat --stats app.log.zst\n"
	"    llogcat --verify app.log.zst || llogcat --repair app.log.zst\n";

static int parse_time(const char *s, int64_t *ns)
{
	char *end;
	double v;

	if (lcr_parse_rfc3339(s, strlen(s), ns) == 0)
		return 0;
	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno != 0 || v < 0 || v > 9.2e9)
		return -1;
	if (*end == '\0') {
		*ns = (int64_t)(v * 1e9);
		return 0;
	}
	if (end[1] != '\0')
		return -1;
	switch (*end) {
	case 's': break;
	case 'm': v *= 60; break;
	case 'h': v *= 3600; break;
	case 'd': v *= 86400; break;
	default: return -1;
	}
	if (v > 9.2e9)
		return -1;
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	*ns = (int64_t)now.tv_sec * 1000000000 + now.tv_nsec - (int64_t)(v * 1e9);
	return 0;
}

/* "llogcat: WHAT 'ARG'" (ARG may be NULL), then exit 2. */
static _Noreturn void usage(const char *what, const char *arg)
{
	fprintf(stderr, "llogcat: %s%s%s%s", what, arg ? " '" : "", arg ? arg : "", arg ? "'" : "");
	fputs("\nTry 'llogcat --help' for more information.\n", stderr);
	exit(EXIT_ERROR);
}

static int parse_args(int argc, char **argv)
{
	enum {
		O_SINCE = 256, O_UNTIL, O_VERIFY, O_REPAIR, O_FUNC, O_LOCAL, O_CATEGORY, O_WHERE,
		O_VERSION
	};
	static const struct option longs[] = {
		{"follow", no_argument, NULL, 'f'},   {"level", required_argument, NULL, 'l'},
		{"since", required_argument, NULL, O_SINCE},
		{"until", required_argument, NULL, O_UNTIL},
		{"grep", required_argument, NULL, 'g'}, {"json", no_argument, NULL, 'j'},
		{"stats", no_argument, NULL, 's'},    {"verify", no_argument, NULL, O_VERIFY},
		{"repair", no_argument, NULL, O_REPAIR}, {"help", no_argument, NULL, 'h'},
		{"func", required_argument, NULL, O_FUNC}, {"local", no_argument, NULL, O_LOCAL},
		{"category", required_argument, NULL, O_CATEGORY},
		{"where", required_argument, NULL, O_WHERE},
		{"version", no_argument, NULL, O_VERSION},
		{NULL, 0, NULL, 0}};
	int c, err;

	while ((c = getopt_long(argc, argv, "fl:g:jsh", longs, NULL)) != -1) {
		switch (c) {
		case 'f': opt.follow = true; break;
		case 'j': opt.json = true; break;
		case 's': opt.stats = true; break;
		case O_VERIFY: opt.verify = true; break;
		case O_REPAIR: opt.repair = true; break;
		case O_FUNC: opt.func = optarg; break;
		case O_CATEGORY: opt.category = optarg; break;
		case O_LOCAL: opt.local = true; break;
		case O_WHERE: {
			struct lcf_where *w = realloc(opt.where, (opt.nwhere + 1) * sizeof(*w));
			const char *why;

			if (w == NULL)
				usage("out of memory", NULL);
			opt.where = w;
			err = lcf_where_parse(optarg, &w[opt.nwhere], &why);
			if (err == -2)
				usage("out of memory", NULL);
			if (err < 0) {
				fprintf(stderr, "llogcat: --where: %s\n", why);
				usage("invalid --where expression", optarg);
			}
			opt.nwhere++;
			break;
		}
		case 'l':
			opt.level = lcr_level_parse(optarg, strlen(optarg));
			if (opt.level < 0)
				usage("unknown level", optarg);
			break;
		case O_SINCE:
		case O_UNTIL:
			if (parse_time(optarg, c == O_SINCE ? &opt.since : &opt.until) < 0)
				usage("invalid time", optarg);
			*(c == O_SINCE ? &opt.since_set : &opt.until_set) = true;
			break;
		case 'g':
			err = regcomp(&opt.grep, optarg, REG_EXTENDED | REG_NOSUB);
			if (err != 0)
				usage("invalid regular expression", optarg);
			opt.grep_set = true;
			break;
		case 'h':
			fputs(help, stdout);
			exit(0);
		case O_VERSION:
			printf("llogcat %d.%d.%d (file format version %u, binary data frames %u)\n",
			       LLOG_VERSION_MAJOR, LLOG_VERSION_MINOR, LLOG_VERSION_PATCH,
			       LLOG_META_VERSION, LLOG_BIN_VERSION);
			exit(0);
		default:
			usage("invalid option", NULL);
		}
	}
	if (optind >= argc)
		usage("no FILE given", NULL);
	if (opt.follow && (opt.stats || opt.verify || opt.repair))
		usage("--follow cannot be combined with --stats, --verify or --repair", NULL);
	return optind;
}

static void print_stats(void)
{
	double span = st.any_ts ? (double)(st.last - st.first) / 1e9 : 0.0;
	double ratio = st.file ? (double)st.plain / (double)st.file : 0.0;
	char a[31], b[31];

	printf("records=%llu trace=%llu debug=%llu info=%llu warn=%llu error=%llu fatal=%llu",
	       (unsigned long long)st.records, (unsigned long long)st.per_level[0],
	       (unsigned long long)st.per_level[1], (unsigned long long)st.per_level[2],
	       (unsigned long long)st.per_level[3], (unsigned long long)st.per_level[4],
	       (unsigned long long)st.per_level[5]);
	if (st.other)
		printf(" other=%llu", (unsigned long long)st.other);
	printf(" span=%.1fs plain=%llu file=%llu ratio=%.1f\n", span,
	       (unsigned long long)st.plain, (unsigned long long)st.file, ratio);
	if (st.any_ts) {
		lcr_format_ts(st.first, a);
		lcr_format_ts(st.last, b);
		printf("first=%s\nlast=%s\n", a, b);
	}
	printf("frames=%llu damaged=%llu\n", (unsigned long long)st.frames,
	       (unsigned long long)st.damaged);
}

int main(int argc, char **argv)
{
	int first = parse_args(argc, argv), n = argc - first;
	struct input *in = calloc((size_t)n, sizeof(*in));

	if (in == NULL) {
		fprintf(stderr, "llogcat: out of memory\n");
		return EXIT_ERROR;
	}
	for (int i = 0; i < n; i++) {
		in[i].path = argv[first + i];
		probe(&in[i]);
	}
	if (n > 1)
		qsort(in, (size_t)n, sizeof(*in), cmp_input);
	for (int i = 0; i < n; i++) {
		if (opt.follow && i == n - 1)
			follow(in[i].path);
		else
			read_file(in[i].path);
	}
	if (opt.stats)
		print_stats();
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "llogcat: write error: %s\n", strerror(errno));
		fail(EXIT_ERROR);
	}
	free(in);
	for (size_t i = 0; i < opt.nwhere; i++)
		lcf_where_free(&opt.where[i]);
	free(opt.where);
	lcf_fields_free(&parsed);
	free(scratch);
	if (opt.grep_set)
		regfree(&opt.grep);
	return status;
}
