/*
 * test_fields_parse.c - unit tests of llogcat's field section parser, its
 * message unescaping and the --where filter (tools/fields.c), against the
 * grammar of docs/fields.md 3. The expected values are written
 * from the contract, not from the parser's output.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <math.h>

#include "fields.h"

static struct lcf_fields fs;

static int teardown(void **state)
{
	(void)state;
	lcf_fields_free(&fs);
	return 0;
}

static void parse_ok(const char *s)
{
	const char *why = NULL;
	int rc = lcf_parse_text(s, strlen(s), &fs, &why);

	if (rc != 0)
		fail_msg("'%s' rejected: %s", s, why ? why : "?");
}

static const struct llog_field *get(const char *key)
{
	for (size_t i = 0; i < fs.n; i++)
		if (fs.f[i].key_len == strlen(key) && memcmp(fs.f[i].key, key, fs.f[i].key_len) == 0)
			return &fs.f[i];
	fail_msg("no field '%s'", key);
	return NULL;
}

static void check_str(const char *key, const char *want, size_t want_len)
{
	const struct llog_field *f = get(key);

	assert_int_equal(f->type, LLOG_FIELD_STR);
	assert_int_equal(f->v.str.len, want_len);
	assert_memory_equal(f->v.str.ptr, want, want_len);
	assert_int_equal(f->v.str.ptr[want_len], '\0');
}

static void every_type(void **state)
{
	(void)state;
	parse_ok("a=1 b=-1 c=9223372036854775807 d=9223372036854775808 e=18446744073709551615 "
		 "f=-9223372036854775808 g=1.5 h=1e+300 i=-0.0 j=nan k=inf l=-inf m=true n=false "
		 "o=null p=\"s\" q=0 r=2.5E-3");
	assert_int_equal(fs.n, 18);
	assert_int_equal(fs.more, 0);
	assert_int_equal(fs.fields_truncated, 0);
	assert_int_equal(get("a")->type, LLOG_FIELD_I64);
	assert_true(get("a")->v.i64 == 1);
	assert_true(get("b")->v.i64 == -1);
	assert_int_equal(get("c")->type, LLOG_FIELD_I64);
	assert_true(get("c")->v.i64 == INT64_MAX);
	assert_int_equal(get("d")->type, LLOG_FIELD_U64);
	assert_true(get("d")->v.u64 == (uint64_t)INT64_MAX + 1);
	assert_int_equal(get("e")->type, LLOG_FIELD_U64);
	assert_true(get("e")->v.u64 == UINT64_MAX);
	assert_int_equal(get("f")->type, LLOG_FIELD_I64);
	assert_true(get("f")->v.i64 == INT64_MIN);
	assert_int_equal(get("g")->type, LLOG_FIELD_F64);
	assert_true(get("g")->v.f64 == 1.5);
	assert_true(get("h")->v.f64 == 1e300);
	assert_true(get("i")->v.f64 == 0.0 && signbit(get("i")->v.f64));
	assert_int_equal(get("j")->type, LLOG_FIELD_F64);
	assert_true(isnan(get("j")->v.f64));
	assert_true(isinf(get("k")->v.f64) && get("k")->v.f64 > 0);
	assert_true(isinf(get("l")->v.f64) && get("l")->v.f64 < 0);
	assert_int_equal(get("m")->type, LLOG_FIELD_BOOL);
	assert_int_equal(get("m")->v.b, 1);
	assert_int_equal(get("n")->v.b, 0);
	assert_int_equal(get("o")->type, LLOG_FIELD_NULL);
	check_str("p", "s", 1);
	assert_true(get("q")->type == LLOG_FIELD_I64 && get("q")->v.i64 == 0);
	assert_true(get("r")->v.f64 == 2.5e-3);
	/* keys in order, bare characters */
	parse_ok("A-z_0.9/x:y@h=1");
	assert_int_equal(fs.n, 1);
	assert_int_equal(fs.f[0].key_len, 13);
	assert_string_equal(fs.f[0].key, "A-z_0.9/x:y@h");
}

static void adversarial_strings(void **state)
{
	(void)state;
	/* quotes, backslashes, '=', ']', spaces in keys and values */
	parse_ok("\"k y=\\\"]\"=\"a \\\"q\\\" \\\\ = ] x=1\" z=\"\"");
	assert_int_equal(fs.n, 2);
	assert_int_equal(fs.f[0].key_len, 6);
	assert_memory_equal(fs.f[0].key, "k y=\"]", 6);
	check_str("k y=\"]", "a \"q\" \\ = ] x=1", 15);
	check_str("z", "", 0);
	/* every escape, \xNN of invalid UTF-8, C1 bytes, DEL; raw UTF-8 kept */
	parse_ok("s=\"\\n\\r\\t\\x00\\x1b\\xff\\xC2\\x85\\x7f\xc3\xa9\"");
	check_str("s", "\n\r\t\0\x1b\xff\xc2\x85\x7f\xc3\xa9", 11);
	/* a value that looks like a field section */
	parse_ok("msg=\"a=1 b=\\\"2\\\" +3\" n=2");
	assert_int_equal(fs.n, 2);
	check_str("msg", "a=1 b=\"2\" +3", 12);
	assert_true(get("n")->v.i64 == 2);
	/* a quoted key that is the empty string, a key made of a quote */
	parse_ok("\"\"=1 \"\\\"\"=2");
	assert_int_equal(fs.f[0].key_len, 0);
	assert_int_equal(fs.f[1].key_len, 1);
	assert_int_equal(fs.f[1].key[0], '"');
}

static void cut_and_more(void **state)
{
	(void)state;
	parse_ok("s=\"abc\"... t=1 u=\"x\"... +3");
	assert_int_equal(fs.n, 3);
	check_str("s", "abc", 3);
	assert_int_equal(get("s")->flags, LLOG_FIELD_TRUNCATED);
	assert_int_equal(get("t")->flags, 0);
	assert_int_equal(get("u")->flags, LLOG_FIELD_TRUNCATED);
	assert_int_equal(fs.more, 3);
	assert_int_equal(fs.fields_truncated, 5);
	parse_ok("+4294967295");
	assert_int_equal(fs.n, 0);
	assert_int_equal(fs.more, 4294967295u);
	assert_int_equal(fs.fields_truncated, 4294967295u);
	/* a string ending in dots is not cut: the dots are inside the quotes */
	parse_ok("s=\"a...\"");
	assert_int_equal(get("s")->flags, 0);
	check_str("s", "a...", 4);
}

static void malformed(void **state)
{
	static const char *const bad[] = {
		"",                          /* empty section */
		"s=\"abc",                   /* unterminated quote */
		"s=\"abc\\",                 /* unterminated after a backslash */
		"s=\"a\\qb\"",               /* unknown escape */
		"s=\"\\x4\"",                /* short \x */
		"s=\"\\xg0\"",               /* not hex */
		"s=\"a\x01\"",               /* raw control byte */
		"s=\"a\tb\"",                /* raw TAB */
		"s=\"a\x7f\"",               /* raw DEL */
		"k",                         /* missing '=' */
		"k=",                        /* missing value */
		"=1",                        /* empty key */
		"k=abc",                     /* a bare word is no value */
		"k=True", "k=NaN", "k=Inf", "k=nul",
		"k=1 ",                      /* trailing space */
		"k=1  j=2",                  /* two spaces */
		" k=1",                      /* leading space */
		"k=1x", "k=1,j=2",           /* junk after a number */
		"k=\"a\"b",                  /* junk after a string */
		"k=\"a\"....",               /* a cut mark and a dot */
		"k=\"a\"..",                 /* a short cut mark */
		"k=1...",                    /* a cut number */
		"k=01", "k=-0", "k=+1", "k=--1", "k=0x10",
		"k=18446744073709551616",    /* above UINT64_MAX */
		"k=-9223372036854775809",    /* below INT64_MIN */
		"k=1.", "k=.5", "k=1e", "k=1e+", "k=1.5.2", "k=-", "k=00.5",
		"k=1e999",                   /* not a finite double */
		"+0", "+", "+01", "+4294967296", "+3 k=1", "k=1 +", "k=1 +2x",
		"k y=1",                     /* a space in a bare key */
		"k\"=1",                     /* a quote in a bare key */
		"\"k\"x=1",                  /* junk after a quoted key */
		"k=1\tj=2",                  /* a second TAB */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *why = NULL;
		int rc = lcf_parse_text(bad[i], strlen(bad[i]), &fs, &why);

		if (rc != -1)
			fail_msg("'%s' accepted (%zu fields)", bad[i], fs.n);
		assert_non_null(why);
		assert_int_equal(fs.n, 0);
		assert_int_equal(fs.fields_truncated, 0);
	}
}

static void json_object(void **state)
{
	static const char obj[] =
		"{\"user\":\"bob\", \"n\" : 18446744073709551615,\"i\":-9223372036854775808,"
		"\"l\":12.5,\"e\":1E3,\"s\":\"\\u00e9\\ud83d\\ude00\\\"\\\\\\/\\n\\u0000\","
		"\"ok\":false,\"z\":null,\"f\":\"NaN\",\"k y\":\"\"},\"fields_truncated\":2}";
	static const char *const bad[] = {
		"", "[]", "{", "{\"a\"}", "{\"a\":}", "{\"a\":1,}", "{\"a\":1 \"b\":2}", "{a:1}",
		"{\"a\":01}", "{\"a\":1.}", "{\"a\":NaN}", "{\"a\":-inf}", "{\"a\":1e999}",
		"{\"a\":\"x}", "{\"a\":\"\\ud800\"}", "{\"a\":\"\\udc00x\"}", "{\"a\":\"\\q\"}",
		"{\"a\":\"\x01\"}", "{\"a\":tru}", "{\"a\":True}", "{\"a\":{}}",
	};
	const char *why = NULL;

	(void)state;
	assert_int_equal(lcf_parse_json(obj, sizeof(obj) - 1, &fs, &why), 0);
	assert_int_equal(fs.n, 10);
	check_str("user", "bob", 3);
	assert_true(get("n")->type == LLOG_FIELD_U64 && get("n")->v.u64 == UINT64_MAX);
	assert_true(get("i")->type == LLOG_FIELD_I64 && get("i")->v.i64 == INT64_MIN);
	assert_true(get("l")->type == LLOG_FIELD_F64 && get("l")->v.f64 == 12.5);
	assert_true(get("e")->type == LLOG_FIELD_F64 && get("e")->v.f64 == 1000.0);
	check_str("s", "\xc3\xa9\xf0\x9f\x98\x80\"\\/\n\0", 11);
	assert_true(get("ok")->type == LLOG_FIELD_BOOL && get("ok")->v.b == 0);
	assert_int_equal(get("z")->type, LLOG_FIELD_NULL);
	check_str("f", "NaN", 3);
	check_str("k y", "", 0);
	assert_int_equal(lcf_parse_json("{ }", 3, &fs, &why), 0);
	assert_int_equal(fs.n, 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why = NULL;
		if (lcf_parse_json(bad[i], strlen(bad[i]), &fs, &why) != -1)
			fail_msg("JSON '%s' accepted", bad[i]);
		assert_non_null(why);
		assert_int_equal(fs.n, 0);
	}
}

static void unescape_msg(void **state)
{
	char out[64];
	static const char in[] = "C:\\\\new\\\\table \\n\\r\\t\\x01\\x9b\\u0085\\\\x41";
	static const char want[] = "C:\\new\\table \n\r\t\x01\x9b\xc2\x85\\x41";
	long n;

	(void)state;
	n = lcf_unescape_msg(in, sizeof(in) - 1, out);
	assert_int_equal(n, sizeof(want) - 1);
	assert_memory_equal(out, want, sizeof(want) - 1);
	assert_int_equal(lcf_unescape_msg("a\\q", 3, out), -1);
	assert_int_equal(lcf_unescape_msg("a\\", 2, out), -1);
	assert_int_equal(lcf_unescape_msg("a\\x4", 4, out), -1);
	assert_int_equal(lcf_unescape_msg("\\u00g0", 6, out), -1);
	assert_int_equal(lcf_unescape_msg("", 0, out), 0);
}

static void format_double(void **state)
{
	static const struct {
		double d;
		const char *s;
	} t[] = {
		{1.0, "1.0"},    {0.1, "0.1"},          {12.5, "12.5"}, {-0.0, "-0.0"},
		{1e300, "1e+300"}, {1e-5, "1e-05"},
		{123456789012345678.0, "1.2345678901234568e+17"},
		{5e-324, "5e-324"}, {NAN, "nan"}, {INFINITY, "inf"},
		{-INFINITY, "-inf"},
	};
	char buf[32];

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		size_t n = lcf_format_double(t[i].d, buf);

		assert_int_equal(n, strlen(t[i].s));
		assert_string_equal(buf, t[i].s);
	}
}

static void where_bad(void **state)
{
	static const char *const bad[] = {
		"", "=1", "!=1", ">1", "k==1", "k=!1", "k>abc", "k<", "k>=", "k<=x", "k!x",
		"k=\"abc", "k=\"a\"b", "k=\"\\q\"", "k>\"1\"", "k>true", "k<null", "k=>1",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct lcf_where w;
		const char *why = NULL;

		if (lcf_where_parse(bad[i], &w, &why) != -1)
			fail_msg("--where '%s' accepted", bad[i]);
		assert_non_null(why);
	}
}

static bool where(const char *expr)
{
	struct lcf_where w;
	const char *why = NULL;
	bool m;

	if (lcf_where_parse(expr, &w, &why) != 0)
		fail_msg("--where '%s' rejected: %s", expr, why ? why : "?");
	m = lcf_where_match(&w, fs.f, fs.n);
	lcf_where_free(&w);
	return m;
}

static void where_match(void **state)
{
	static const struct {
		const char *expr;
		bool want;
	} t[] = {
		/* presence */
		{"ok", true}, {"missing", false}, {"missing=1", false}, {"missing!=1", true},
		{"missing>1", false},
		/* UINT64_MAX, exactly (2^64 as a double is above it, not equal) */
		{"u=18446744073709551615", true}, {"u>18446744073709551614", true},
		{"u>=18446744073709551615", true}, {"u>18446744073709551615", false},
		{"u<18446744073709551615", false}, {"u<=18446744073709551615", true},
		{"u<1.8446744073709552e19", true}, {"u=1.8446744073709552e19", false},
		{"u>-1", true}, {"u!=18446744073709551615", false},
		/* INT64_MIN */
		{"i=-9223372036854775808", true}, {"i<-9223372036854775807", true},
		{"i>=-9.223372036854775808e18", true}, {"i=-9.223372036854775808e18", true},
		{"i<-9.223372036854775808e18", false}, {"i<0", true}, {"i<18446744073709551615", true},
		/* 2^53 + 1: no double holds it; compared exactly */
		{"x>9007199254740992.0", true}, {"x=9007199254740992.0", false},
		{"x=9007199254740993", true}, {"x<9007199254740994", true},
		/* doubles */
		{"l>12", true}, {"l>=12.5", true}, {"l<12.5", false}, {"l=12.5", true},
		{"l!=12.5", false}, {"l=12", false}, {"l<=12.5", true}, {"l<1e300", true},
		{"l>-inf", true}, {"l<inf", true},
		{"z=0", true}, {"z=-0.0", true}, {"z>=0", true},
		/* NaN is unordered */
		{"n>0", false}, {"n<0", false}, {"n=nan", false}, {"n!=nan", true}, {"n>=0", false},
		/* strings: never numbers */
		{"s=200", false}, {"s=\"200\"", true}, {"s>100", false}, {"s!=200", true},
		{"user=bob", true}, {"user=\"bob\"", true}, {"user=bo", false},
		{"user=bobb", false}, {"empty=", true}, {"empty=\"\"", true}, {"user=", false},
		{"q=a \"b\" = ]", true},
		/* bool, null */
		{"ok=true", true}, {"ok=false", false}, {"ok=\"true\"", false}, {"ok!=false", true},
		{"no=false", true}, {"note=null", true}, {"sn=null", false}, {"sn=\"null\"", true},
		{"note=\"null\"", false}, {"ok>0", false},
	};

	(void)state;
	parse_ok("i=-9223372036854775808 u=18446744073709551615 x=9007199254740993 l=12.5 "
		 "z=0.0 n=nan s=\"200\" ok=true no=false note=null sn=\"null\" user=\"bob\" "
		 "empty=\"\" q=\"a \\\"b\\\" = ]\"");
	assert_int_equal(fs.n, 14);
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (where(t[i].expr) != t[i].want)
			fail_msg("--where '%s': %s, expected %s", t[i].expr,
				 t[i].want ? "no match" : "match", t[i].want ? "match" : "none");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_type),    cmocka_unit_test(adversarial_strings),
		cmocka_unit_test(cut_and_more),  cmocka_unit_test(malformed),
		cmocka_unit_test(json_object),   cmocka_unit_test(unescape_msg),
		cmocka_unit_test(format_double),
		cmocka_unit_test(where_bad),     cmocka_unit_test(where_match),
	};

	return cmocka_run_group_tests(tests, NULL, teardown);
}
