/*
 * test_reader.c - unit tests of llogcat's frame reader (tools/reader.c):
 * frames built in memory with libzstd, fed whole and byte by byte.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <zstd.h>

#include "fileformat.h"
#include "reader.h"

static const char lines[] = "2026-12-03T08:19:42.123456789Z INFO  [7] a.c:42 hello\n"
			    "2026-12-03T08:19:43.000000000Z ERROR [7] a.c:43 world: 1 2\n";

/* meta frame + data frame + data frame into buf; returns the size. */
static size_t make_file(unsigned char *buf, size_t cap, size_t *second)
{
	static const char meta[] = LLOG_META_HEADER "created_ns=17\nseq_first=5\nformat=text\n";
	ZSTD_CCtx *c = ZSTD_createCCtx();
	size_t n = 8 + sizeof(meta) - 1, r;

	assert_non_null(c);
	memcpy(buf, "\x5b\x2a\x4d\x18", 4);
	buf[4] = (unsigned char)(sizeof(meta) - 1);
	buf[5] = buf[6] = buf[7] = 0;
	memcpy(buf + 8, meta, sizeof(meta) - 1);
	assert_false(ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1)));
	for (int i = 0; i < 2; i++) {
		if (i == 1)
			*second = n;
		r = ZSTD_compress2(c, buf + n, cap - n, lines, sizeof(lines) - 1);
		assert_false(ZSTD_isError(r));
		n += r;
	}
	ZSTD_freeCCtx(c);
	return n;
}

/* The file every frame test reads: meta, data, data; `second` is where the
 * second data frame starts. Built once by setup(). */
static unsigned char file[4096];
static size_t file_n, second;

static int setup(void **state)
{
	(void)state;
	file_n = make_file(file, sizeof(file) / 2, &second);
	return 0;
}

struct result {
	int data, damaged;
	uint64_t good;
	uint64_t damaged_at; /* offset of the last damaged frame */
};

/* Feeds buf in pieces of `step` and counts the events. */
static struct result read_all(const unsigned char *buf, size_t n, size_t step)
{
	struct lcr *r = lcr_new();
	struct lcr_event ev;
	struct result res = {0, 0, 0, 0};

	assert_non_null(r);
	for (size_t off = 0; off <= n; off += step) {
		size_t k = n - off < step ? n - off : step;
		bool eof = off + k == n;

		assert_int_equal(lcr_feed(r, buf + off, k), 0);
		for (enum lcr_kind kd; (kd = lcr_next(r, eof, &ev)) != LCR_MORE;) {
			if (kd == LCR_DATA) {
				assert_int_equal(ev.len, sizeof(lines) - 1);
				assert_memory_equal(ev.data, lines, ev.len);
				res.data++;
			} else if (kd == LCR_META) {
				struct lcr_meta m;

				lcr_parse_meta(ev.data, ev.len, &m);
				assert_true(m.valid && m.has_created && m.has_seq);
				assert_int_equal(m.created_ns, 17);
				assert_int_equal(m.seq_first, 5);
			} else if (kd == LCR_DAMAGED) {
				res.damaged++;
				res.damaged_at = ev.off;
			}
		}
		if (eof)
			break;
	}
	res.good = lcr_good_end(r);
	lcr_free(r);
	return res;
}

/* buf[0..n) cut at every offset after the start of its second frame (at
 * `second`), each fed in pieces of `step`: the first frame is read, the
 * torn one reported damaged, and the good end is where it starts. */
static void expect_torn_second(const unsigned char *buf, size_t n, size_t step)
{
	for (size_t cut = second + 1; cut < n; cut++) {
		struct result r = read_all(buf, cut, step);

		assert_int_equal(r.data, 1);
		assert_int_equal(r.damaged, 1);
		assert_int_equal(r.good, second);
	}
}

static void test_whole_and_bytewise(void **state)
{
	struct result whole = read_all(file, file_n, file_n), bytes = read_all(file, file_n, 1);

	(void)state;
	assert_int_equal(whole.data, 2);
	assert_int_equal(whole.damaged, 0);
	assert_int_equal(whole.good, file_n);
	assert_int_equal(bytes.data, 2);
	assert_int_equal(bytes.damaged, 0);
}

static void test_torn_every_offset(void **state)
{
	(void)state;
	expect_torn_second(file, file_n, 3);
}

static void test_corrupt_middle(void **state)
{
	unsigned char buf[sizeof(file)];
	size_t len = file_n - second;
	struct result r;

	(void)state;
	/* A third copy of the last frame, so the damaged one is in the middle. */
	memcpy(buf, file, file_n);
	memcpy(buf + file_n, file + second, len);
	buf[second + len / 2] ^= 0x40;
	r = read_all(buf, file_n + len, 7);
	assert_int_equal(r.data, 2);
	assert_int_equal(r.damaged, 1);
	assert_int_equal(r.good, file_n + len);
}

/* Every byte of the middle frame (magic, header, blocks, checksum) set to
 * 0xff (0x00 where it was 0xff): that frame is reported damaged at its own
 * offset, the frames on both sides are read, and the good end is the end
 * of the file. llogcat's own test (tests/tools/test_llogcat.sh,
 * corrupt_middle) checks the command's report and exit code on a sample of
 * these offsets; this one tries them all, fed in pieces of 1 and 7 bytes. */
static void test_corrupt_middle_every_byte(void **state)
{
	unsigned char buf[sizeof(file)];
	size_t len = file_n - second, n = file_n + len;

	(void)state;
	memcpy(buf, file, file_n);
	memcpy(buf + file_n, file + second, len);
	for (size_t pos = second; pos < file_n; pos++) {
		for (size_t step = 1; step <= 7; step += 6) {
			unsigned char was = buf[pos];
			struct result r;

			buf[pos] = was == 0xff ? 0x00 : 0xff;
			r = read_all(buf, n, step);
			buf[pos] = was;
			if (r.data != 2 || r.damaged != 1 || r.damaged_at != second || r.good != n)
				fail_msg("byte %zu of %zu (step %zu): %d data, %d damaged at %llu, "
					 "good end %llu",
					 pos, n, step, r.data, r.damaged,
					 (unsigned long long)r.damaged_at, (unsigned long long)r.good);
		}
	}
}

/* The file sink's crash frames (backends/file.c, crash path): a frame of
 * one Raw block, single segment, 4-byte content size, no checksum, made
 * without the compressor. It follows a normal frame; read whole and byte
 * by byte, and cut at every offset inside it. */
static void test_raw_block_frame(void **state)
{
	unsigned char buf[sizeof(file)];
	size_t len = sizeof(lines) - 1, n = second;
	uint32_t bh = (uint32_t)len << 3 | 1u; /* Raw (type 0), last block */

	(void)state;
	memcpy(buf, file, n);
	memcpy(buf + n, "\x28\xb5\x2f\xfd\xa0", 5);
	for (int i = 0; i < 4; i++)
		buf[n + 5 + i] = (unsigned char)(len >> (8 * i));
	for (int i = 0; i < 3; i++)
		buf[n + 9 + i] = (unsigned char)(bh >> (8 * i));
	memcpy(buf + n + 12, lines, len);
	n += 12 + len;
	assert_int_equal(ZSTD_findFrameCompressedSize(buf + second, n - second), n - second);
	for (size_t step = 1; step <= n; step += n - 1) {
		struct result r = read_all(buf, n, step);

		assert_int_equal(r.data, 2);
		assert_int_equal(r.damaged, 0);
		assert_int_equal(r.good, n);
	}
	expect_torn_second(buf, n, 5);
}

static void test_record_parse(void **state)
{
	struct lcr_record r;
	static const char j[] = "{\"seq\":1,\"ts\":\"2026-12-03T08:19:42.5Z\",\"level\":\"WARN\","
				"\"thread\":1,\"file\":\"a\\\"b\",\"line\":3,\"func\":\"f\",\"msg\":\"x\\\"y\"}";

	(void)state;
	lcr_parse_record(lines, 54, &r);
	assert_true(r.parsed && r.has_ts);
	assert_int_equal(r.level, 2);
	assert_int_equal(r.msg_len, 5);
	assert_memory_equal(r.msg, "hello", 5);
	assert_memory_equal(r.file, "a.c", 3);
	assert_memory_equal(r.lineno, "42", 2);
	lcr_parse_record(j, sizeof(j) - 1, &r);
	assert_true(r.is_json && r.has_ts);
	assert_int_equal(r.level, 3);
	assert_int_equal(r.msg_len, 4); /* x\"y, still escaped */
	lcr_parse_record("garbage", 7, &r);
	assert_false(r.parsed);
	assert_int_equal(r.level, -1);
}

/* Structured fields: the metadata's version, and a text line's field
 * section (what follows its first TAB), a JSON line's "fields" object. */
static void test_version_and_fields(void **state)
{
	static const char t[] = "2026-12-03T08:19:42.123456789Z INFO  [7] a.c:42 C:\\\\x a=1\tk=\"v\tw\" +1";
	static const char j[] = "{\"ts\":\"2026-12-03T08:19:42Z\",\"msg\":\"x,\\\"fields\\\":{\","
				"\"fields\":{\"k\":1},\"fields_truncated\":1}";
	struct lcr_meta m;
	struct lcr_record r;

	(void)state;
	lcr_parse_meta(LLOG_META_HEADER "format=text\n", strlen(LLOG_META_HEADER) + 12, &m);
	assert_true(m.valid);
	assert_int_equal(m.version, 2);
	assert_int_equal(LLOG_META_VERSION, 2);
	lcr_parse_meta("llog-meta 1\nformat=json\n", 24, &m);
	assert_int_equal(m.version, 1);
	assert_true(m.json);
	lcr_parse_meta("llog-meta 17", 12, &m);
	assert_int_equal(m.version, 17);
	lcr_parse_meta("llog-meta x\n", 12, &m);
	assert_true(m.valid);
	assert_int_equal(m.version, 0);
	lcr_parse_meta("llog-meta \n", 11, &m);
	assert_int_equal(m.version, 0);

	lcr_parse_record(t, sizeof(t) - 1, &r);
	assert_true(r.parsed);
	assert_int_equal(r.msg_len, 9);
	assert_memory_equal(r.msg, "C:\\\\x a=1", 9);
	assert_non_null(r.fields);
	assert_int_equal(r.fields_len, strlen("k=\"v\tw\" +1"));
	assert_memory_equal(r.fields, "k=\"v\tw\" +1", r.fields_len);
	lcr_parse_record(t, 40, &r);
	assert_null(r.fields);
	lcr_parse_record(j, sizeof(j) - 1, &r);
	assert_true(r.is_json);
	assert_non_null(r.fields);
	assert_int_equal(r.fields[0], '{');
	assert_int_equal(r.fields[1], '"');
	assert_int_equal(r.fields[2], 'k');
}

static void test_time_roundtrip(void **state)
{
	int64_t ns, v[] = {0, 1796285982123456789LL, 951782400000000000LL /* 2000-02-29 */};
	char b[31];

	(void)state;
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		lcr_format_ts(v[i], b);
		assert_int_equal(lcr_parse_rfc3339(b, 30, &ns), 0);
		assert_true(ns == v[i]);
	}
	assert_int_equal(lcr_parse_rfc3339("2026-12-03T09:19:42+01:00", 25, &ns), 0);
	assert_int_equal(lcr_parse_rfc3339("2026-12-03T08:19:42Z", 20, &v[0]), 0);
	assert_true(ns == v[0]);
	assert_int_equal(lcr_parse_rfc3339("2026-13-03", 10, &ns), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_whole_and_bytewise),
		cmocka_unit_test(test_torn_every_offset),
		cmocka_unit_test(test_corrupt_middle),
		cmocka_unit_test(test_corrupt_middle_every_byte),
		cmocka_unit_test(test_raw_block_frame),
		cmocka_unit_test(test_record_parse),
		cmocka_unit_test(test_time_roundtrip),
		cmocka_unit_test(test_version_and_fields),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
