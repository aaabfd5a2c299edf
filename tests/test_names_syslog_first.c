/*
 * test_names_syslog_first.c - <syslog.h> included before <llog.h>: both
 * compile together warning-free, LOG_INFO/LOG_DEBUG stay syslog's
 * priorities, llog's other short names and all prefixed ones work.
 */
#include <syslog.h>

#include "llog.h"

_Static_assert(LOG_INFO == 6 && LOG_DEBUG == 7, "syslog.h's priorities");

#include "names_body.h"
