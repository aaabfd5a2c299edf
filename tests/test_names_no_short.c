/*
 * test_names_no_short.c - LLOG_NO_SHORT_NAMES: <llog.h> defines none of
 * its short names (LOG, LOG_TRACE .. LOG_FATAL), only the prefixed ones;
 * <syslog.h> after it then has every LOG_* name to itself.
 */
#define LLOG_NO_SHORT_NAMES
#include "llog.h"

#if defined(LOG) || defined(LOG_TRACE) || defined(LOG_DEBUG) || defined(LOG_INFO) || \
	defined(LOG_WARN) || defined(LOG_ERROR) || defined(LOG_FATAL) || defined(LOG_AT) || \
	defined(LOG_AT_CAT)
#error "LLOG_NO_SHORT_NAMES: a short name is defined"
#endif

#include <syslog.h>

#if defined(LOG) || defined(LOG_TRACE) || defined(LOG_WARN) || defined(LOG_ERROR) || \
	defined(LOG_FATAL)
#error "a short name of llog is defined"
#endif

#include "names_body.h"
