/*
 * syslog_sd.c - the fields in RFC 5424 structured data (docs/fields.md 5)
 * through the real syslog sink to a real rsyslogd (Debian package
 * 'rsyslog'), whose own mmpstrucdata parses the structured data back into
 * JSON (tests/fields/rsyslog.conf.in); tests/fields/check_sd.py undoes
 * llog's key and value mapping and compares every field with what the
 * contract says, over TCP and over UDP (where the transport cuts long
 * messages). Exits 77 (skipped) when rsyslogd is not installed.
 *
 *   syslog_sd RSYSLOG_CONF_TEMPLATE CHECK_SD_PY
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llog.h"
#include "fields/cases.h"
#include "rsyslogd_proc.h"
#include "testutil.h"

#define APP "llogfields"

static struct rsyslogd rs;

#define CHECK(c)                                                                           \
	do {                                                                               \
		if (!(c)) {                                                                \
			fprintf(stderr, "%s:%d: failed: %s\n", __FILE__, __LINE__, #c);   \
			rsyslogd_stop(&rs, SIGTERM);                                       \
			exit(1);                                                           \
		}                                                                          \
	} while (0)

/* Lines in DIR/out.json. */
static long out_lines(void)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/out.json", rs.dir);
	return file_lines(path);
}

/* syslog-only cases: long keys, '%', the numbered form */
static const struct llog_field sd_keys[] = {
	FS("k%1", "50% off"),
	FS("exactly_32_bytes_long_key_xxxxxx", "v32"),
	FS("longer_than_32_bytes_key_xxxxxxxx", "v33"),
	FS("a=b", "x=y"),
	FS("sp ace\xc3\xa9", "]\"\\"),
	FS("%k0", "not a numbered one"),
};

/* 20 values of 1000 bytes: more than a 16 KiB message holds */
static char big[1001];
static struct llog_field bigf[20];
static char bigk[20][16];

int main(int argc, char **argv)
{
	struct llog_syslog_options o = {0};
	struct llog_sink *s;
	char url[64];
	struct llog_entry e[6];
	int port, ne;
	int64_t deadline;

	if (argc != 3)
		return 2;
	if (!rsyslogd_installed()) {
		printf("skipped: no rsyslogd\n");
		return 77;
	}
	if (rsyslogd_init(&rs, "llog_fields_sd") != 0 ||
	    rsyslogd_configure(&rs, argv[1], APP) != 0 || rsyslogd_start(&rs) != 0) {
		fprintf(stderr, "%s\n", rs.why);
		return 1;
	}
	port = rs.port;

	memset(big, 'x', 1000);
	for (int i = 0; i < 20; i++) {
		snprintf(bigk[i], sizeof(bigk[i]), "b%d", i);
		bigf[i] = (struct llog_field){.key = bigk[i], .key_len = strlen(bigk[i]),
					      .type = LLOG_FIELD_STR, .v.str = {big, 1000}};
	}
	ne = collector_entries(e, "sd keys", sd_keys, NF(sd_keys));
	e[ne++] = entry("big", bigf, 20);
	e[ne++] = entry("no fields", NULL, 0);

	snprintf(url, sizeof(url), "tcp://127.0.0.1:%d", port);
	o.url = url;
	o.app_name = APP;
	o.hostname = "h";
	s = llog_syslog_sink(&o);
	CHECK(s != NULL);
	CHECK(send_entries(s, e, ne) == 0);
	/* bounded wait for rsyslog to write them */
	deadline = now_ms() + 15000;
	while (out_lines() < ne) {
		CHECK(now_ms() < deadline);
		sleep_ms(10);
	}
	/* Then over UDP, cut at 2048 bytes: 20 values of 100 bytes do not all
	 * fit, and the cut never reaches the structured data. */
	snprintf(url, sizeof(url), "udp://127.0.0.1:%d", port);
	o.max_udp_bytes = 2048;
	s = llog_syslog_sink(&o);
	CHECK(s != NULL);
	for (int i = 0; i < 20; i++)
		bigf[i].v.str.len = 100;
	e[0] = entry("udp", bigf, 20);
	CHECK(send_entries(s, e, 1) == 0);
	while (out_lines() < ne + 1) {
		CHECK(now_ms() < deadline);
		sleep_ms(10);
	}
	rsyslogd_stop(&rs, SIGTERM);
	CHECK(sh("python3 %s %s/out.json", argv[2], rs.dir) == 0);
	CHECK(rsyslogd_remove(&rs) == 0);
	return 0;
}
