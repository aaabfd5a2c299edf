/*
 * category_lib.c - a shared library whose call sites are in category
 * "dso.cat" (LLOG_CATEGORY), for test_categories.c (dlopen'ed after the
 * level spec was set). Links no llog: the symbols come from the test.
 */
#define LLOG_CATEGORY "dso.cat"
#include <llog.h>

void dso_cat_log(int i);

/* One record at each of DEBUG, INFO and WARN. */
void dso_cat_log(int i)
{
	LOG_DEBUG("dso.cat debug %d", i);
	LOG_INFO("dso.cat info %d", i);
	LOG_WARN("dso.cat warn %d", i);
}
