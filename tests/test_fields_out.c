/*
 * test_fields_out.c - structured fields in the outputs (docs/fields.md 3,
 * 4): every type and adversarial keys and values in text lines, exact
 * lines written by hand from the contract; JSON lines read back by
 * python3's json (tests/fields/check_json.py) with values and types
 * compared; every byte and UTF-8 character at every place of short and
 * long string values, keys and strings that end at a page's end (no
 * read past the source), integers and doubles at their edges (the doubles
 * against the snprintf/strtod loop of the contract); a cut value, fields
 * left out, a small buffer; the console
 * sink never cuts fields (its line bound counts them); the callback sink
 * hands the entry on as it is. Entries are
 * built here and given to llog_format_entry_opts (the line API every
 * text and JSON sink formats with).
 */
#define _GNU_SOURCE
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "llog/sinks.h"

#define HDR "2025-12-03T08:20:00.123456789Z WARN  [1234] server.c:42 "

#include "fields/cases.h"
#include "testutil.h"

static void expect_text(const struct llog_entry *e, const char *want)
{
	char buf[4096];
	size_t n = llog_format_entry_opts(e, LLOG_FORMAT_TEXT, NULL, buf, sizeof(buf));

	buf[n] = '\0';
	if (strcmp(buf, want) != 0)
		fail_msg("got  %s\nwant %s", buf, want);
}

static void test_text_every_type(void **state)
{
	struct llog_entry e = entry("request done", all_types, NF(all_types));

	(void)state;
	expect_text(&e, HDR "request done\tuser=\"bob\" status=200 min=-9223372036854775808 "
			    "max=18446744073709551615 latency_ms=12.5 one=1.0 nz=-0.0 tenth=0.1 "
			    "third=0.3333333333333333 sum=0.30000000000000004 big=1e+300 "
			    "tiny=5e-324 n=nan pi=inf mi=-inf ok=true no=false "
			    "note=null empty=\"\"\n");
}

static void test_text_adversarial(void **state)
{
	struct llog_entry e = entry("m", adversarial, NF(adversarial));

	(void)state;
	expect_text(&e, HDR "m\t\"a b\"=\"x\" \"k\\\"q\"=\"x\" \"x]=y\"=\"x\" "
			    "\"back\\\\slash\"=\"x\" \"nl\\nkey\"=\"x\" \"tab\\tkey\"=\"x\" "
			    "\"\"=\"empty key\" "
			    "ok.key-1/2:3@h_=\"a\\\"b\\\\c]d=e f\\ng\\th\\ri\\x1bj\\x7fk\" "
			    "c1=\"<\\xc2\\x9b>\" bad=\"<\\xff\\xc3(\\x80>\" "
			    "utf8=\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\" "
			    "fake=\"x\\\" forged=1\" \"\xc3\xa9\"=\"1\"\n");
}

/* A key's text by the contract (docs/fields.md 3), written independently
 * of line_fields.c: bare when made of a-z A-Z 0-9 _ . - / : @ only (and
 * not empty), else quoted with '"' '\\' \n \r \t escaped and every other
 * byte below 0x20, 0x7f and each byte 0x80 and above (the keys here have
 * no valid UTF-8 of two bytes or more) as \xNN. */
static size_t ref_quoted(const unsigned char *k, size_t n, char *out);

static size_t ref_key(const unsigned char *k, size_t n, char *out)
{
	size_t bare = n > 0;

	for (size_t i = 0; i < n; i++)
		bare &= (k[i] >= 'a' && k[i] <= 'z') || (k[i] >= 'A' && k[i] <= 'Z') ||
			(k[i] >= '0' && k[i] <= '9') || strchr("_.-/:@", k[i]) != NULL;
	if (bare) {
		memcpy(out, k, n);
		return n;
	}
	return ref_quoted(k, n, out);
}

/* A quoted key or string value with no valid UTF-8 of two bytes or more
 * (docs/fields.md 3). */
static size_t ref_quoted(const unsigned char *k, size_t n, char *out)
{
	size_t o = 0;

	out[o++] = '"';
	for (size_t i = 0; i < n; i++) {
		unsigned c = k[i];

		if (c == '"' || c == '\\')
			o += (size_t)sprintf(out + o, "\\%c", c);
		else if (c == '\n' || c == '\r' || c == '\t')
			o += (size_t)sprintf(out + o, "\\%c", c == '\n' ? 'n' : c == '\r' ? 'r' : 't');
		else if (c < 0x20 || c >= 0x7f)
			o += (size_t)sprintf(out + o, "\\x%02x", c);
		else
			out[o++] = (char)c;
	}
	out[o++] = '"';
	return o;
}

/* Every byte, at the start, middle and end of keys of 1 to 40 bytes (the
 * bare test and the escaping look at 16 bytes at a time), and the integer
 * fields' edges (INT64_MIN, the powers of ten and 2^32 around, UINT64_MAX):
 * each the text of the reference or of snprintf. */
static void test_text_keys_and_integers(void **state)
{
	static const int64_t ints[] = {INT64_MIN, INT64_MIN + 1, -4294967297LL, -4294967296LL,
				       -100000000, -99999999, -10000000, -100, -1, 0, 1, 9, 10,
				       99, 100, 1000, 12345678, 99999999, 100000000, 100000001,
				       4294967295LL, 4294967296LL, 999999999999LL, INT64_MAX};
	static const uint64_t uints[] = {0, 7, 10000000u, 99999999u, 100000000u, 4294967295u,
					 4294967296u, 9223372036854775808u, 10000000000000000000u,
					 UINT64_MAX};
	struct llog_line_options o = {.ts_precision = LLOG_TS_NS};
	char line[512], want[256];

	(void)state;
	for (size_t len = 1; len <= 40; len++) {
		for (unsigned b = 1; b < 256; b++) {
			for (int at = 0; at < 3; at++) {
				unsigned char key[48];
				struct llog_field f = FI("", 1);
				struct llog_entry e;
				size_t pos = at == 0 ? 0 : at == 1 ? len / 2 : len - 1, n, w;

				memset(key, 'k', len);
				key[pos] = (unsigned char)b;
				key[len] = '\0';
				f.key = (const char *)key;
				f.key_len = len;
				e = entry("m", &f, 1);
				n = llog_format_entry_opts(&e, LLOG_FORMAT_TEXT, &o, line, sizeof(line));
				want[0] = '\t';
				w = 1 + ref_key(key, len, want + 1);
				memcpy(want + w, "=1\n", 3);
				w += 3;
				if (n < w || memcmp(line + n - w, want, w) != 0)
					fail_msg("key of %zu bytes, 0x%02x at %zu: %.*s", len, b, pos,
						 (int)n, line);
			}
		}
	}
	for (size_t i = 0; i < NF(ints) + NF(uints); i++) {
		struct llog_field f = i < NF(ints) ? (struct llog_field)FI("v", ints[i])
						   : (struct llog_field)FU("v", uints[i - NF(ints)]);
		struct llog_entry e = entry("m", &f, 1);
		size_t n = llog_format_entry_opts(&e, LLOG_FORMAT_TEXT, &o, line, sizeof(line)), w;

		if (i < NF(ints))
			w = (size_t)snprintf(want, sizeof(want), "\tv=%lld\n", (long long)ints[i]);
		else
			w = (size_t)snprintf(want, sizeof(want), "\tv=%llu\n",
					     (unsigned long long)uints[i - NF(ints)]);
		assert_true(n >= w);
		assert_memory_equal(line + n - w, want, w);
	}
}

/* String values of 1 to 40 bytes (short ones are copied and tested 16
 * bytes at a time, longer ones scanned in runs of 16) with every byte at
 * the start, middle and end, and a UTF-8 character of 2, 3 or 4 bytes (kept
 * as it is) or a C1 control (both bytes \xNN) at every place, across the
 * 16-byte steps; the empty string. Each against the reference. */
static void test_text_string_values(void **state)
{
	static const char *const chars[] = {"\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80",
					    "\xc2\x85"};
	struct llog_line_options o = {.ts_precision = LLOG_TS_NS};
	char line[512], want[256];

	(void)state;
	for (size_t len = 0; len <= 40; len++) {
		for (unsigned b = 1; b < 256 + 3 * NF(chars); b++) {
			for (int at = 0; at < 3; at++) {
				unsigned char v[48];
				struct llog_field f = FS("k", "");
				struct llog_entry e;
				size_t pos = at == 0 ? 0 : at == 1 ? len / 2 : len - 1, n, w;

				memset(v, 'v', len);
				v[len] = '\0';
				w = 3;
				memcpy(want, "\tk=", 3);
				if (b < 256 && len > 0) {
					v[pos] = (unsigned char)b;
					w += ref_quoted(v, len, want + w);
				} else if (b >= 256) { /* a character at pos (0 .. len - cl) */
					const char *c = chars[(b - 256) % NF(chars)];
					size_t cl = strlen(c);

					pos = (b - 256) / NF(chars) == 0 ? 0 : len / 2;
					pos = (b - 256) / NF(chars) == 2 ? len - cl : pos;
					if (len < cl || pos + cl > len)
						continue;
					memcpy(v + pos, c, cl);
					want[w++] = '"';
					memcpy(want + w, v, pos);
					w += pos;
					if (c[0] == '\xc2') {
						memcpy(want + w, "\\xc2\\x85", 8);
						w += 8;
					} else {
						memcpy(want + w, c, cl);
						w += cl;
					}
					memcpy(want + w, v + pos + cl, len - pos - cl);
					w += len - pos - cl;
					want[w++] = '"';
				} else {
					w += ref_quoted(v, 0, want + w);
				}
				memcpy(want + w, "\n", 1);
				w += 1;
				f.v.str.ptr = (const char *)v;
				f.v.str.len = len;
				e = entry("m", &f, 1);
				n = llog_format_entry_opts(&e, LLOG_FORMAT_TEXT, &o, line, sizeof(line));
				if (n < w || memcmp(line + n - w, want, w) != 0)
					fail_msg("value of %zu bytes, case %u at %zu: %.*s", len, b, pos,
						 (int)n, line);
			}
		}
	}
}

/* Keys and string values of 0 to 40 bytes that end at the end of a page
 * followed by one that cannot be read (the short ones are copied and
 * tested 16 bytes at a time, the longer ones scanned in runs of 16: none
 * may read past the source), of bytes picked from a set that holds every
 * class the escaping tells apart (bare, plain, escaped by name, \xNN,
 * bytes that are never UTF-8), each line against the reference. */
static void test_text_page_end(void **state)
{
	static const unsigned char set[] = "aZ09_@:-/.\"\\\n\t\x01\x7f =[\x80\xff";
	long pg = sysconf(_SC_PAGESIZE);
	unsigned char *m = mmap(NULL, (size_t)pg * 4, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct llog_line_options o = {.ts_precision = LLOG_TS_NS};
	uint64_t r = UINT64_C(0x9e3779b97f4a7c15);
	char line[1024], want[512];

	(void)state;
	assert_true(m != MAP_FAILED);
	assert_int_equal(mprotect(m + pg, (size_t)pg, PROT_NONE), 0);
	assert_int_equal(mprotect(m + 3 * pg, (size_t)pg, PROT_NONE), 0);
	for (int round = 0; round < 20; round++) {
		for (size_t kl = 0; kl <= 40; kl++) {
			for (size_t vl = 0; vl <= 40; vl++) {
				unsigned char *k = m + pg - kl, *v = m + 3 * pg - vl;
				struct llog_field f = FS("k", "");
				struct llog_entry e;
				size_t n, w = 1;

				for (size_t i = 0; i < kl + vl; i++) {
					r ^= r << 13, r ^= r >> 7, r ^= r << 17;
					/* a bare key now and then */
					*(i < kl ? &k[i] : &v[i - kl]) =
						set[(r >> 32) % (round % 4 == 0 ? 10 : sizeof(set) - 1)];
				}
				f.key = (const char *)k;
				f.key_len = kl;
				f.v.str.ptr = (const char *)v;
				f.v.str.len = vl;
				e = entry("m", &f, 1);
				n = llog_format_entry_opts(&e, LLOG_FORMAT_TEXT, &o, line, sizeof(line));
				want[0] = '\t';
				w += ref_key(k, kl, want + w);
				want[w++] = '=';
				w += ref_quoted(v, vl, want + w);
				want[w++] = '\n';
				if (n < w || memcmp(line + n - w, want, w) != 0)
					fail_msg("key of %zu bytes, value of %zu: %.*s", kl, vl, (int)n,
						 line);
			}
		}
	}
	munmap(m, (size_t)pg * 4);
}

/* Doubles in a line: the text of the snprintf/strtod loop the contract
 * states (docs/fields.md 3), for the edges (-0, inf, nan, the subnormals,
 * 1e21, 1e15 and 1e-11 around) and for the values formatted with 128-bit
 * integers (1e-11 .. 1e15: i * 0.0173, quotients of integers by powers of
 * ten, random bit patterns of those exponents). */
static size_t ref_f64(double d, char *b)
{
	int n = 0;
	size_t o = 0;
	char t[64];

	if (isnan(d))
		return (size_t)sprintf(b, "nan");
	if (isinf(d))
		return (size_t)sprintf(b, d < 0 ? "-inf" : "inf");
	for (int p = fpclassify(d) == FP_SUBNORMAL ? 1 : 15; p <= 17; p++) {
		n = snprintf(t, sizeof(t), "%.*g", p, d);
		if (p == 17 || strtod(t, NULL) == d)
			break;
	}
	memcpy(b, t, (size_t)n); /* the C locale's radix: the test sets none */
	o = (size_t)n;
	if (strchr(t, '.') == NULL && strchr(t, 'e') == NULL) {
		memcpy(b + o, ".0", 2);
		o += 2;
	}
	return o;
}

static void test_text_doubles(void **state)
{
	static const double edge[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, 5e-324, 2.2250738585072009e-308,
				      2.2250738585072014e-308, 1e21, 1e22, 1e15, 999999999999999.9,
				      999999999999999.0, 1e-11, 9.99999999999e-12, 1e-5, 1e-4, 0.1,
				      12.5, 123456789012345.67, 1.7976931348623157e308};
	static const double p10[16] = {1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
				       1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
	struct llog_line_options o = {.ts_precision = LLOG_TS_NS};
	uint64_t r = UINT64_C(0x9e3779b97f4a7c15);
	char line[512], want[128];

	(void)state;
	for (int i = 0; i < 40000; i++) {
		double d;
		struct llog_field f = FD("d", 0);
		struct llog_entry e;
		size_t n, w;

		if (i < (int)NF(edge)) {
			d = edge[i];
		} else if (i % 3 == 0) {
			d = (double)(i % 5000) * 0.0173;
		} else if (i % 3 == 1) {
			r ^= r >> 12, r ^= r << 25, r ^= r >> 27;
			d = (double)(r % 100000000) / p10[r >> 60];
		} else {
			uint64_t bits;

			r ^= r >> 12, r ^= r << 25, r ^= r >> 27;
			bits = (r & ~(UINT64_C(0x7ff) << 52)) | (UINT64_C(983) + r % 93) << 52;
			memcpy(&d, &bits, sizeof(d));
		}
		f.v.f64 = d;
		e = entry("m", &f, 1);
		n = llog_format_entry_opts(&e, LLOG_FORMAT_TEXT, &o, line, sizeof(line));
		memcpy(want, "\td=", 3);
		w = 3 + ref_f64(d, want + 3);
		want[w++] = '\n';
		if (n < w || memcmp(line + n - w, want, w) != 0)
			fail_msg("double %a: %.*s", d, (int)n, line);
	}
}

/* A cut value ends with "..." after its quote; fields left out: "+N" last
 * (N = fields_truncated less the cut values). */
static void test_text_cut_and_left_out(void **state)
{
	static const struct llog_field f[] = {FSCUT("v", "abc"), FI("n", 1)};
	struct llog_entry e = entry("m", f, NF(f));

	(void)state;
	e.fields_truncated = 1; /* the cut value only */
	expect_text(&e, HDR "m\tv=\"abc\"... n=1\n");
	e.fields_truncated = 4; /* and 3 left out */
	expect_text(&e, HDR "m\tv=\"abc\"... n=1 +3\n");
	e.fields = NULL;
	e.nfields = 0;
	e.fields_truncated = 2;
	expect_text(&e, HDR "m\t+2\n");
}

/* The message's own escapes: a TAB never appears before the field
 * section, a literal backslash-n is not an escaped newline. */
static void test_text_message_escapes(void **state)
{
	static const struct llog_field f[] = {FI("n", 1)};
	struct llog_entry e = entry("C:\\new\tline\nnext \\\\", f, NF(f));

	(void)state;
	expect_text(&e, HDR "C:\\\\new\\tline\\nnext \\\\\\\\\tn=1\n");
	e = entry("C:\\n", NULL, 0);
	expect_text(&e, HDR "C:\\\\n\n");
	e = entry("C:\n", NULL, 0);
	expect_text(&e, HDR "C:\\n\n");
	{
		/* the file's base name, the function and the thread name
		 * escape a TAB and a backslash too */
		struct llog_line_options lo = {.flags = LLOG_LINE_FUNC | LLOG_LINE_THREAD_NAME};
		char buf[256];
		size_t n;

		e = entry("m", NULL, 0);
		e.file = "/x/a\tb\\.c";
		expect_text(&e, "2025-12-03T08:20:00.123456789Z WARN  [1234] a\\tb\\\\.c:42 m\n");
		e.file = "/src/app/server.c";
		e.func = "f\\n";
		e.thread_name = "t\\]";
		e.thread_name_len = 3;
		n = llog_format_entry_opts(&e, LLOG_FORMAT_TEXT, &lo, buf, sizeof(buf));
		buf[n] = '\0';
		assert_string_equal(buf, "2025-12-03T08:20:00.123456789Z WARN  [1234 t\\\\\\x5d] "
					 "server.c:42 f\\\\n() m\n");
	}
}

/* The field section is last: after " [N suppressed]" and after a cut
 * message's " [truncated]". */
static void test_text_after_markers(void **state)
{
	static const struct llog_field f[] = {FS("k", "v")};
	struct llog_entry e = entry("m", f, NF(f));
	char buf[256];
	size_t n, cap;
	char msg[200];

	(void)state;
	e.suppressed = 5;
	expect_text(&e, HDR "m [5 suppressed]\tk=\"v\"\n");
	memset(msg, 'x', sizeof(msg) - 1);
	msg[sizeof(msg) - 1] = '\0';
	e = entry(msg, f, NF(f));
	/* room for the header, 10 x, the marker, the section and '\n' */
	cap = strlen(HDR) + 10 + strlen(" [truncated]") + strlen("\tk=\"v\"") + 43 + 1;
	n = llog_format_entry_opts(&e, LLOG_FORMAT_TEXT, NULL, buf, cap);
	buf[n] = '\0';
	assert_true(n <= cap);
	assert_non_null(strstr(buf, "x [truncated]\tk=\"v\"\n"));
	assert_memory_equal(buf, HDR "xxxxxxxxxx", strlen(HDR) + 10);
}

/* A buffer too small for every field: each field whole or not at all,
 * the ones left out counted in +N; any cap gives one line. */
static void test_text_small_buffer(void **state)
{
	static const struct llog_field f[] = {
		FI("a", 1),
		FS("b", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"),
		FI("c", 3),
	};
	struct llog_entry e = entry("m", f, NF(f));
	const char *full = HDR "m\ta=1 b=\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
			       "xxxxxxxxxxxxxxxxxx\" c=3\n";
	char buf[512];
	size_t n;

	(void)state;
	expect_text(&e, full);
	n = llog_format_entry_opts(&e, LLOG_FORMAT_TEXT, NULL, buf, strlen(full) - 1);
	buf[n] = '\0';
	assert_string_equal(buf, HDR "m\ta=1 c=3 +1\n");
	for (size_t cap = 1; cap <= strlen(full) + 1; cap++) {
		n = llog_format_entry_opts(&e, LLOG_FORMAT_TEXT, NULL, buf, cap);
		assert_true(n <= cap);
		assert_int_equal(buf[n - 1], '\n');
		assert_ptr_equal(memchr(buf, '\n', n), buf + n - 1);
		for (size_t i = 0; i < n; i++) /* fields whole: never a cut one */
			if (buf[i] == '\t')
				assert_ptr_equal(memchr(buf + i + 1, '\t', n - i - 1), NULL);
	}
}

/* The field section is written at a pointer while each field's most fits
 * the room left (the sinks' lines, sized by their bound), else field by
 * field, each whole or not at all: the same line either way. Every type
 * and the adversarial keys and values, formatted with room for all of
 * their most (the first way) and with every cap from the line's own
 * length up (the second way from some field on, then the first): each
 * line that is whole the same bytes, and whole from the line's length and
 * the room the message keeps for the section on. */
static void test_text_at_pointer_and_walk(void **state)
{
	struct llog_field f[NF(all_types) + NF(adversarial)];
	struct llog_entry e;
	char full[4096], buf[4096];
	size_t n, m;

	(void)state;
	memcpy(f, all_types, sizeof(all_types));
	memcpy(f + NF(all_types), adversarial, sizeof(adversarial));
	for (size_t nf = 1; nf <= NF(f); nf++) {
		e = entry("m", f, nf);
		n = llog_format_entry_opts(&e, LLOG_FORMAT_TEXT, NULL, full, sizeof(full));
		assert_true(n < sizeof(full) / 2);
		size_t from = 0; /* the first cap that holds the line whole */

		for (size_t cap = n; cap <= sizeof(buf); cap += cap < n + 512 ? 1 : 97) {
			m = llog_format_entry_opts(&e, LLOG_FORMAT_TEXT, NULL, buf, cap);
			if (from == 0 && (m != n || memcmp(buf, full, n) != 0))
				continue; /* the message keeps the section's reserve */
			from = from != 0 ? from : cap;
			if (m != n || memcmp(buf, full, n) != 0)
				fail_msg("%zu fields, cap %zu:\n%.*s\nwant\n%.*s", nf, cap, (int)m,
					 buf, (int)n, full);
		}
		/* whole from the line and the section's reserve (43) on */
		assert_in_range(from, n, n + 43);
	}
}

/* llog_format_entry (no options) reads none of the appended members: no
 * field section. */
static void test_text_no_opts_no_fields(void **state)
{
	static const struct llog_field f[] = {FI("n", 1)};
	struct llog_entry e = entry("m", f, NF(f));
	char buf[256];
	size_t n = llog_format_entry(&e, LLOG_FORMAT_TEXT, buf, sizeof(buf));

	(void)state;
	buf[n] = '\0';
	assert_string_equal(buf, HDR "m\n");
}

/* ---- JSON --------------------------------------------------------------- */

/* The entries check_json.py expects, in its order (CASES there). */
static const struct llog_field j_keys[] = {
	FS("msg", "not the message"),
	FS("a\"b", "q\"uote"),
	FS("back\\slash", "\\n is not a newline"),
	FS("ctl\n\t\x1b", "\x01\x1f\x7f"),
	FS("c1", "<\xc2\x9b>"),
	FS("bad", "<\xff\xc3\x28\x80>"),
	FS("utf8", "caf\xc3\xa9 \xf0\x9f\x98\x80"),
	FS("x]=y", "a=b ]"),
	FS("", "empty key"),
};

static void write_json(FILE *out, const struct llog_entry *e, size_t cap)
{
	char buf[4096];
	size_t n = llog_format_entry_opts(e, LLOG_FORMAT_JSON, NULL, buf, cap);

	assert_true(n <= cap);
	assert_int_equal(fwrite(buf, 1, n, out), n);
}

static void test_json_python(void **state)
{
	static const struct llog_field cut[] = {FSCUT("v", "abc"), FI("n", 1)};
	char path[] = "/tmp/llog_fields_jsonXXXXXX", cmd[512];
	int fd = mkstemp(path);
	FILE *out;
	struct llog_entry e;

	(void)state;
	assert_true(fd >= 0);
	out = fdopen(fd, "w");
	assert_non_null(out);
	e = entry("request done", all_types, NF(all_types));
	write_json(out, &e, 4096);
	e = entry("m", j_keys, NF(j_keys));
	write_json(out, &e, 4096);
	e = entry("m", cut, NF(cut));
	e.fields_truncated = 4;
	write_json(out, &e, 4096);
	e = entry("m", NULL, 0);
	e.fields_truncated = 2;
	write_json(out, &e, 4096);
	e = entry("m", all_types, NF(all_types));
	write_json(out, &e, 260); /* only some fields fit */
	e = entry("no fields", NULL, 0);
	write_json(out, &e, 4096);
	assert_int_equal(fclose(out), 0);
	snprintf(cmd, sizeof(cmd), "python3 %s %s", CHECK_JSON, path);
	assert_int_equal(system(cmd), 0);
	unlink(path);
}

/* Every cap from 1 up gives valid JSON: run through the same script's
 * "any" mode (each line parses, fields a prefix-less subset). */
static void test_json_every_cap(void **state)
{
	char path[] = "/tmp/llog_fields_capXXXXXX", cmd[512];
	int fd = mkstemp(path);
	FILE *out;
	struct llog_entry e = entry("request done", all_types, NF(all_types));

	(void)state;
	assert_true(fd >= 0);
	out = fdopen(fd, "w");
	assert_non_null(out);
	for (size_t cap = 170; cap <= 700; cap++) /* below: no room for "msg" */
		write_json(out, &e, cap);
	assert_int_equal(fclose(out), 0);
	snprintf(cmd, sizeof(cmd), "python3 %s --subset %s", CHECK_JSON, path);
	assert_int_equal(system(cmd), 0);
	unlink(path);
}

/* ---- sinks ---------------------------------------------------------------- */

/* The console sink sizes its line with llog__line_bound: fields of the
 * worst escaping (every byte \xNN in text, \u00NN in JSON) arrive whole,
 * never cut. */
static void test_console_whole(void **state)
{
	static char v[LLOG_FIELD_STR_MAX + 1], key[LLOG_FIELD_KEY_MAX + 1];
	static struct llog_field f[LLOG_FIELDS_MAX];
	char path[] = "/tmp/llog_fields_conXXXXXX";
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	memset(v, 0x01, LLOG_FIELD_STR_MAX);
	memset(key, 0x02, LLOG_FIELD_KEY_MAX);
	for (int i = 0; i < LLOG_FIELDS_MAX; i++)
		f[i] = (struct llog_field){.key = key, .key_len = LLOG_FIELD_KEY_MAX,
					   .type = LLOG_FIELD_STR,
					   .v.str = {v, LLOG_FIELD_STR_MAX}};
	f[LLOG_FIELDS_MAX - 1].type = LLOG_FIELD_F64;
	f[LLOG_FIELDS_MAX - 1].v.f64 = -1.2345678901234568e-300;
	for (int fmt = 0; fmt < 2; fmt++) {
		struct llog_console_options o = {.fd = fd, .format = fmt ? LLOG_FORMAT_JSON
									: LLOG_FORMAT_TEXT,
						 .color = LLOG_COLOR_NEVER};
		struct llog_sink *s = llog_console_sink(&o);
		struct llog_entry e = entry("m", f, LLOG_FIELDS_MAX);
		char *buf;
		size_t len, want;
		FILE *in;

		assert_non_null(s);
		assert_int_equal(ftruncate(fd, 0), 0);
		assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
		assert_true(s->ops->write(s, &e) > 0);
		assert_true(s->ops->commit(s) >= 0);
		llog_sink_destroy(s);
		in = fopen(path, "r");
		assert_non_null(in);
		buf = malloc(1 << 20);
		assert_non_null(buf);
		len = fread(buf, 1, 1 << 20, in);
		fclose(in);
		/* 31 strings and a double, 31 separators; a key "" and 4 bytes a
		 * byte (\xNN) in text, 6 (\u00NN) in JSON; a value the same */
		want = fmt ? 31 * (2 + 6 * LLOG_FIELD_KEY_MAX + 1 + 2 + 6 * LLOG_FIELD_STR_MAX) +
				     (2 + 6 * LLOG_FIELD_KEY_MAX + 1 + 24) + 31
			   : 31 * (2 + 4 * LLOG_FIELD_KEY_MAX + 1 + 2 + 4 * LLOG_FIELD_STR_MAX) +
				     (2 + 4 * LLOG_FIELD_KEY_MAX + 1 + 24) + 31;
		assert_ptr_equal(memchr(buf, '\n', len), buf + len - 1);
		assert_null(memmem(buf, len, "[truncated]", 11));
		assert_non_null(memmem(buf, len, "-1.2345678901234568e-300", 24));
		if (fmt) {
			char *at = memmem(buf, len, "\"fields\":{", 10);

			assert_non_null(at);
			/* the members, the object's '}', the line's '}' and '\n' */
			assert_int_equal(buf + len - (at + 10), want + 3);
		} else {
			char *tab = memchr(buf, '\t', len);

			assert_non_null(tab);
			assert_int_equal(buf + len - 1 - (tab + 1), want);
		}
		free(buf);
	}
	close(fd);
	unlink(path);
}

static const struct llog_entry *cb_seen;
static int cb_ok;

/* The callback sees the entry's fields as they are, with their types. */
static void on_entry(void *user, const struct llog_entry *e)
{
	(void)user;
	cb_ok = e == cb_seen && e->fields == cb_seen->fields && e->nfields == NF(all_types) &&
		e->fields_truncated == 3 && e->fields[3].type == LLOG_FIELD_U64 &&
		e->fields[3].v.u64 == UINT64_MAX && e->fields[6].type == LLOG_FIELD_F64 &&
		signbit(e->fields[6].v.f64) && e->fields[17].type == LLOG_FIELD_NULL;
}

static void test_callback_as_is(void **state)
{
	struct llog_callback_options o = {.on_entry = on_entry};
	struct llog_sink *s = llog_callback_sink(&o);
	struct llog_entry e = entry("m", all_types, NF(all_types));

	(void)state;
	assert_non_null(s);
	e.fields_truncated = 3;
	cb_seen = &e;
	assert_true(s->ops->write(s, &e) >= 0);
	assert_true(cb_ok);
	llog_sink_destroy(s);
}

TEST_MAIN(
	cmocka_unit_test(test_text_every_type),
	cmocka_unit_test(test_text_adversarial),
	cmocka_unit_test(test_text_keys_and_integers),
	cmocka_unit_test(test_text_string_values),
	cmocka_unit_test(test_text_page_end),
	cmocka_unit_test(test_text_doubles),
	cmocka_unit_test(test_text_cut_and_left_out),
	cmocka_unit_test(test_text_message_escapes),
	cmocka_unit_test(test_text_after_markers),
	cmocka_unit_test(test_text_small_buffer),
	cmocka_unit_test(test_text_at_pointer_and_walk),
	cmocka_unit_test(test_text_no_opts_no_fields),
	cmocka_unit_test(test_json_python),
	cmocka_unit_test(test_json_every_cap),
	cmocka_unit_test(test_console_whole),
	cmocka_unit_test(test_callback_as_is),
)
