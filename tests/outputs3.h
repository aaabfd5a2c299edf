/*
 * outputs3.h - the three outputs the sink-feature tests write through
 * (test_log_at, test_routing, test_remove_sink, test_hex): a zstd text
 * file, a plain JSON file and the syslog sink over TCP to a real rsyslogd
 * (tests/util/rsyslogd_proc.h, its template $LLOG_SYSLOG_CONF). For cmocka
 * tests: include it after <cmocka.h>.
 */
#ifndef LLOG_TESTS_OUTPUTS3_H
#define LLOG_TESTS_OUTPUTS3_H

#include <stdio.h>

#include "childproc.h"
#include "llog/sinks.h"
#include "rsyslogd_proc.h"

struct outputs3 {
	struct tdir t;        /* t.log: the text file */
	char json_path[160];  /* t.dir/app.json */
	char url[64];         /* tcp://127.0.0.1:PORT of rsyslogd */
	struct llog_file_options text, json;
	struct llog_syslog_options so;
};

/* Starts rs (the case is skipped where no rsyslogd is installed, fails
 * where it does not start) and fills o: the files in a fresh directory
 * /tmp/<prefix>XXXXXX, the syslog sink as app (hostname testhost,
 * facility local3) to rs over TCP. The caller adds the sinks it wants,
 * and removes o->t and rs (rsyslogd_remove) when done. */
static inline void outputs3_make(struct outputs3 *o, struct rsyslogd *rs, const char *prefix,
				 const char *app)
{
	if (!rsyslogd_installed())
		skip(); /* scripts/deps.sh test installs rsyslog */
	if (rsyslogd_for_test(rs, prefix, app) != 0)
		fail_msg("%s", rs->why);
	memset(o, 0, sizeof(*o));
	tdir_make(&o->t, prefix);
	snprintf(o->json_path, sizeof(o->json_path), "%s/app.json", o->t.dir);
	snprintf(o->url, sizeof(o->url), "tcp://127.0.0.1:%d", rs->port);
	o->text.path = o->t.log;
	o->json.path = o->json_path;
	o->json.format = LLOG_FORMAT_JSON;
	o->json.compression = LLOG_FILE_PLAIN;
	o->so.url = o->url;
	o->so.app_name = app;
	o->so.hostname = "testhost";
	o->so.facility = LLOG_FAC_LOCAL3;
}

#endif
