/*
 * test_names_syslog_after.c - <syslog.h> included after <llog.h>: both
 * compile together warning-free, <syslog.h>'s LOG_INFO/LOG_DEBUG replace
 * llog's (documented in llog.h), llog's other short names and all
 * prefixed ones work.
 */
#include "llog.h"

#include <syslog.h>

_Static_assert(LOG_INFO == 6 && LOG_DEBUG == 7, "syslog.h's priorities");

#include "names_body.h"
