/*
 * test_fmt_cache.c - the flusher's compiled formats per call site
 * (fmt_cache.c).
 *
 * DESIGN
 * The oracle is the uncached renderer: for every site the cache gives,
 *
 *   render_prog(get(cache, site), plan, args) == render(site->fmt, plan, args)
 *
 * through evictions (more sites than the cache holds) and across an
 * invalidation (a site whose address now holds a different format, as
 * after dlclose and a dlopen at the same address).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmt.h"
#include "fmt_cache.h"
#include "testutil.h"

/* Captures one int and one string for a "%d ... %s" style plan. */
static size_t capture(const struct llog__plan *plan, void *dst, size_t cap, ...)
{
	va_list ap;
	int trunc = 0;
	size_t n;

	va_start(ap, cap);
	n = llog__fmt_capture_once(plan, ap, dst, cap, &trunc);
	va_end(ap);
	return n;
}

/* Renders site's record from the cache and from its format; they agree. */
static void check_site(struct llog__fmt_cache *c, const struct llog_site *site, int v,
		       const char *s)
{
	struct llog__plan plan;
	unsigned char args[256];
	char a[256], b[256];
	int t1 = 0, t2 = 0;
	size_t n1, n2;
	const struct llog__fmt_prog *prog = llog__fmt_cache_get(c, site);

	assert_non_null(prog);
	llog__fmt_plan_parse(site->fmt, &plan);
	(void)capture(&plan, args, sizeof(args), v, s);
	n1 = llog__fmt_render(a, sizeof(a), site->fmt, &plan, args, &t1);
	n2 = llog__fmt_render_prog(b, sizeof(b), prog, &plan, args, &t2);
	assert_int_equal(n1, n2);
	assert_int_equal(t1, t2);
	assert_memory_equal(a, b, n1);
}

static void test_site_renders_its_format(void **state)
{
	struct llog_site s1 = {.fmt = "request %d from %s"};
	struct llog_site s2 = {.fmt = "%5d|%-8s|%%"};
	struct llog__fmt_cache *c = llog__fmt_cache_new();

	(void)state;
	assert_non_null(c);
	check_site(c, &s1, 42, "peer");
	check_site(c, &s2, -7, "x");
	/* the second get of a site finds the program of the first */
	assert_ptr_equal(llog__fmt_cache_get(c, &s1), llog__fmt_cache_get(c, &s1));
	check_site(c, &s1, 43, "peer2");
	llog__fmt_cache_free(c);
	llog__fmt_cache_free(NULL);
	assert_null(llog__fmt_cache_get(NULL, &s1));
}

/* More sites than slots: each still renders its own format, before and
 * after it was evicted. */
static void test_evictions(void **state)
{
	enum { N = 3 * LLOG__FMT_CACHE_SLOTS };
	struct llog_site *sites = calloc(N, sizeof(*sites));
	char (*fmts)[32] = calloc(N, 32);
	struct llog__fmt_cache *c = llog__fmt_cache_new();

	(void)state;
	assert_non_null(sites);
	assert_non_null(fmts);
	for (int round = 0; round < 2; round++)
		for (int i = 0; i < N; i++) {
			snprintf(fmts[i], 32, "site %d: %%d %%.%ds", i, i % 7);
			sites[i].fmt = fmts[i];
			check_site(c, &sites[i], i, "abcdefgh");
		}
	llog__fmt_cache_free(c);
	free(fmts);
	free(sites);
}

/* A site's address (and its format's) now holds another format: after an
 * invalidation (llog__dso_fini's) the cache renders the new one. */
static void test_invalidate(void **state)
{
	static char fmt[64];
	struct llog_site site = {.fmt = fmt};
	struct llog__fmt_cache *c = llog__fmt_cache_new();
	char out[128];
	unsigned char args[64];
	struct llog__plan plan;
	const struct llog__fmt_prog *prog;
	int trunc = 0;
	size_t n;

	(void)state;
	strcpy(fmt, "old %d %s");
	check_site(c, &site, 1, "a");
	/* the object is unloaded, another loaded at the same address */
	strcpy(fmt, "[%s] is new and longer: %d");
	llog__fmt_cache_invalidate();
	prog = llog__fmt_cache_get(c, &site);
	assert_non_null(prog);
	llog__fmt_plan_parse(fmt, &plan);
	(void)capture(&plan, args, sizeof(args), "b", 2);
	n = llog__fmt_render_prog(out, sizeof(out), prog, &plan, args, &trunc);
	assert_int_equal(n, strlen("[b] is new and longer: 2"));
	assert_memory_equal(out, "[b] is new and longer: 2", n);
	llog__fmt_cache_free(c);
}

/* A program larger than the pool is not kept: get says so (NULL) and the
 * caller renders from the format; the cache still works afterwards. */
static void test_program_larger_than_pool(void **state)
{
	size_t n = LLOG__FMT_CACHE_POOL / 16; /* more "%%" turns than fit */
	char *fmt = malloc(2 * n + 1);
	struct llog_site big = {.fmt = fmt}, small = {.fmt = "small %d %s"};
	struct llog__fmt_cache *c = llog__fmt_cache_new();

	(void)state;
	assert_non_null(fmt);
	for (size_t i = 0; i < n; i++)
		memcpy(fmt + 2 * i, "%%", 2);
	fmt[2 * n] = '\0';
	assert_true(llog__fmt_prog_size(fmt) > LLOG__FMT_CACHE_POOL);
	check_site(c, &small, 1, "a");
	assert_null(llog__fmt_cache_get(c, &big));
	check_site(c, &small, 2, "b");
	llog__fmt_cache_free(c);
	free(fmt);
}

TEST_MAIN(
	cmocka_unit_test(test_site_renders_its_format),
	cmocka_unit_test(test_evictions),
	cmocka_unit_test(test_invalidate),
	cmocka_unit_test(test_program_larger_than_pool),
)
