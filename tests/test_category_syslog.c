/*
 * test_category_syslog.c - the category in an RFC 5424 message:
 * MSGID is the category (the level name for the default category, as
 * before), cut to 32 printable ASCII bytes, and the SD-PARAM category has
 * the whole name.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "syslog_sink.h"
#include "testutil.h"

static size_t fmt(const char *cat, char *out, size_t cap)
{
	struct llog__syslog_sink *s = calloc(1, sizeof(*s));
	struct llog_entry e = {.level = LLOG_WARN, .tid = 3, .file = "d/x.c", .func = "fn",
			       .line = 7, .msg = "hello", .msg_len = 5, .thread_name = "",
			       .category = cat, .category_len = cat != NULL ? strlen(cat) : 0};
	size_t n;
	int cut;

	strcpy(s->host, "host");
	strcpy(s->app, "app");
	s->facility = 1;
	s->pid = 42;
	n = llog__syslog_format(s, &e, out, cap - 1, &cut);
	out[n] = '\0';
	free(s);
	return n;
}

static void test_msgid_is_category(void **state)
{
	char out[512];

	(void)state;
	fmt("db.pool", out, sizeof(out));
	assert_non_null(strstr(out, " host app 42 db.pool [llog@32473 "));
	assert_non_null(strstr(out, " category=\"db.pool\"] hello"));
	fmt(NULL, out, sizeof(out));
	assert_non_null(strstr(out, " host app 42 WARN [llog@32473 "));
	assert_null(strstr(out, "category="));
	fmt("a.very.long.category.name.that.goes.past.32", out, sizeof(out));
	assert_non_null(strstr(out, " 42 a.very.long.category.name.that.g [llog@32473 "));
	assert_non_null(strstr(out, " category=\"a.very.long.category.name.that.goes.past.32\"]"));
	fmt("sp ace\"]", out, sizeof(out));
	assert_non_null(strstr(out, " 42 sp_ace\"] [llog@32473 "));
	assert_non_null(strstr(out, " category=\"sp ace\\\"\\]\"]"));
}

TEST_MAIN(
	cmocka_unit_test(test_msgid_is_category),
)
