/*
 * journald_fields.c - the fields as journal fields (docs/fields.md 5)
 * through the real journald sink to a real systemd-journald in a journal
 * namespace of the test's own (as tests/test_journald.c does: `systemd-
 * journald NAME`, a drop-in with volatile storage), read back with
 * `journalctl -o json` by tests/fields/check_journal.py, which undoes the
 * LLOG_F_ / LLOG_FX_ mapping and compares every field. Exits 77 (skipped)
 * without root, journald or journalctl.
 *
 *   journald_fields CHECK_JOURNAL_PY
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llog.h"
#include "fields/cases.h"
#include "journald_proc.h"
#include "testutil.h"

static struct journald jd = {.pid = -1};

#define CHECK(c)                                                                           \
	do {                                                                               \
		if (!(c)) {                                                                \
			fprintf(stderr, "%s:%d: failed: %s\n", __FILE__, __LINE__, #c);   \
			journald_remove(&jd);                                              \
			exit(1);                                                           \
		}                                                                          \
	} while (0)

/* journald-only cases: upper case, the name limit, '%' and '=' */
static const struct llog_field jd_keys[] = {
	FS("userId", "u"),
	FS("k_57_bytes_long_key_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "v57"),
	FS("k_58_bytes_long_key_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "v58"),
	FS("a%=b", "x=y"),
	FS("_lead", "nl\nin value"),
	FS("9", "digit"),
	FS("p%41", "not A"),
};

int main(int argc, char **argv)
{
	struct llog_journald_options o = {0};
	struct llog_sink *s;
	struct llog_entry e[5];
	int ne;

	if (argc != 2)
		return 2;
	journald_name(&jd, "llogfields");
	if (journald_usable(&jd) != 0) {
		printf("skipped: %s\n", jd.why);
		return 77;
	}
	if (journald_start(&jd) != 0) {
		fprintf(stderr, "%s\n", jd.why);
		journald_remove(&jd);
		return 1;
	}

	ne = collector_entries(e, "jd keys", jd_keys, NF(jd_keys));
	e[ne++] = entry("no fields", NULL, 0);
	o.socket_path = jd.sock;
	o.identifier = jd.ident;
	s = llog_journald_sink(&o);
	CHECK(s != NULL);
	CHECK(send_entries(s, e, ne) == 0);
	/* check_journal.py waits (bounded) until the entries are in */
	CHECK(sh("python3 %s %s %s %d", argv[1], jd.name, jd.ident, ne) == 0);
	journald_remove(&jd);
	return 0;
}
