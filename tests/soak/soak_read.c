/*
 * soak_read.c - the records in the soak service's outputs (soak.h): a
 * file sink's zstd frames decoded in order, or the console's plain lines,
 * each line counted and each worker record checked to come at most once
 * and in its thread's order.
 *
 * A worker record's message starts "soak w=T s=S " (thread T, its
 * sequence number S from 0); a fork child's "soak c=PID s=S ". In a text
 * line the message follows the location, so the markers are found by
 * " soak w=" / " soak c=" anywhere in the line (no other part of a line
 * can hold them: the category is "soak.a", never "soak w").
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "soak.h"

void soak_found_init(struct soak_found *f)
{
	memset(f, 0, sizeof(*f));
	memset(f->last, 0xff, sizeof(f->last));
	f->child_last = -1;
}

int soak_parse(const char *msg, size_t len, long *t, int64_t *s)
{
	char buf[64];
	size_t n = len < sizeof(buf) - 1 ? len : sizeof(buf) - 1;
	long long tt, ss;
	int kind, end = 0;

	if (n < 8 || memcmp(msg, "soak ", 5) != 0)
		return 0;
	memcpy(buf, msg, n);
	buf[n] = '\0';
	/* The number must end where the record says (a space): on the
	 * console, whose stderr llog's own diagnostics and fork children
	 * share, another writer's line can land inside a record's line
	 * ("s=86llog: ...37 ..."): such a line does not parse (a bad line,
	 * not a record). */
	if (sscanf(buf, "soak w=%lld s=%lld%n", &tt, &ss, &end) == 2 && buf[end] == ' ')
		kind = 1;
	else if (sscanf(buf, "soak c=%lld s=%lld%n", &tt, &ss, &end) == 2 && buf[end] == ' ')
		kind = 2;
	else
		return 0;
	*t = (long)tt;
	*s = (int64_t)ss;
	return kind;
}

static void problem(struct soak_found *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void problem(struct soak_found *f, const char *fmt, ...)
{
	va_list ap;

	if (f->first_error[0] != '\0')
		return;
	va_start(ap, fmt);
	vsnprintf(f->first_error, sizeof(f->first_error), fmt, ap);
	va_end(ap);
}

static void count_line(struct soak_found *f, const char *path, long child, const char *line,
		       size_t len)
{
	const char *m = memmem(line, len, " soak w=", 8);
	long t;
	int64_t s;

	f->lines++;
	if (memmem(line, len, " llog: levels changed", 21) != NULL)
		f->levels_changed++;
	else if (memmem(line, len, " llog: levels file ", 18) != NULL)
		f->levels_refused++;
	if (m == NULL)
		m = memmem(line, len, " soak c=", 8);
	if (m == NULL)
		return;
	m++;
	switch (soak_parse(m, len - (size_t)(m - line), &t, &s)) {
	case 1:
		if (t < 0 || t >= SOAK_MAX_THREADS) {
			f->bad_lines++;
			return;
		}
		if (s <= f->last[t]) {
			f->disorder++;
			problem(f, "%s: thread %ld: record %lld after a later one or twice", path,
				t, (long long)s);
		}
		f->last[t] = s;
		f->records[t]++;
		return;
	case 2:
		if (t != child) {
			f->foreign++;
			problem(f, "%s: a record of child %ld (seq %lld) in a file not its own",
				path, t, (long long)s);
			return;
		}
		if (s <= f->child_last) {
			f->disorder++;
			problem(f, "%s: child %ld: record %lld after a later one or twice", path,
				t, (long long)s);
		}
		f->child_last = s;
		f->child_records++;
		return;
	default:
		f->bad_lines++;
		problem(f, "%s: a marker that does not parse (line %llu)", path,
			(unsigned long long)f->lines);
	}
}

/* Counts the lines of buf[0..len); a last line without '\n' counts. */
static void count_lines(struct soak_found *f, const char *path, long child, const char *buf,
			size_t len)
{
	size_t off = 0;

	while (off < len) {
		const char *nl = memchr(buf + off, '\n', len - off);
		size_t n = nl != NULL ? (size_t)(nl - (buf + off)) : len - off;

		count_line(f, path, child, buf + off, n);
		off += n + 1;
	}
}

static char *slurp_file(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	char *p = NULL;
	size_t cap = 0, n = 0;

	if (fp == NULL)
		return NULL;
	for (;;) {
		if (n == cap) {
			char *np = realloc(p, (cap = cap ? cap * 2 : 1 << 20));

			if (np == NULL) {
				free(p);
				fclose(fp);
				return NULL;
			}
			p = np;
		}
		size_t r = fread(p + n, 1, cap - n, fp);

		if (r == 0)
			break;
		n += r;
	}
	fclose(fp);
	*len = n;
	return p;
}

int soak_read_plain(const char *path, long child, struct soak_found *f)
{
	size_t len;
	char *p = slurp_file(path, &len);

	if (p == NULL) {
		problem(f, "%s: cannot read (%s)", path, strerror(errno));
		return -1;
	}
	count_lines(f, path, child, p, len);
	free(p);
	return 0;
}

/*
 * Frames are decoded one after the other (ZSTD_decompressStream skips the
 * skippable metadata frames); the output of all of them is one text, and a
 * line never spans two frames (a frame holds whole lines).
 */
int soak_read_zst(const char *path, long child, struct soak_found *f)
{
	size_t len, cap = ZSTD_DStreamOutSize(), have = 0, outcap = 8 << 20;
	char *p = slurp_file(path, &len), *out = malloc(outcap);
	ZSTD_DStream *ds = ZSTD_createDStream();
	ZSTD_inBuffer in = {p, len, 0};
	size_t rc = 0;
	int ret = 0, full = 0;

	if (p == NULL || out == NULL || ds == NULL) {
		problem(f, "%s: cannot read (%s)", path, strerror(errno));
		ret = -1;
		goto done;
	}
	ZSTD_initDStream(ds);
	while (in.pos < in.size || full) {
		ZSTD_outBuffer o;

		if (outcap - have < cap) {
			char *no = realloc(out, outcap *= 2);

			if (no == NULL) {
				ret = -1;
				goto done;
			}
			out = no;
		}
		o = (ZSTD_outBuffer){out + have, outcap - have, 0};
		rc = ZSTD_decompressStream(ds, &o, &in);
		if (ZSTD_isError(rc)) {
			problem(f, "%s: the frame before offset %zu does not decode (%s)", path,
				in.pos, ZSTD_getErrorName(rc));
			ret = -1;
			break;
		}
		have += o.pos;
		full = o.pos == o.size;
		if (rc == 0 || have > (4u << 20)) {
			/* A frame ended (or much is decoded): count its
			 * complete lines, keep a partial last one. */
			char *nl = have > 0 ? memrchr(out, '\n', have) : NULL;
			size_t whole = nl != NULL ? (size_t)(nl - out) + 1 : 0;

			count_lines(f, path, child, out, whole);
			memmove(out, out + whole, have - whole);
			have -= whole;
		}
	}
	if (ret == 0 && rc != 0) {
		problem(f, "%s: ends inside a frame (%zu bytes)", path, len);
		ret = -1;
	}
	if (have > 0)
		count_lines(f, path, child, out, have);
done:
	ZSTD_freeDStream(ds);
	free(out);
	free(p);
	return ret;
}
