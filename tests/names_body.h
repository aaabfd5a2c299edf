/*
 * names_body.h - the body of the test_names_* programs (test-only; each
 * includes <syslog.h> and <llog.h> in its own order, or defines
 * LLOG_NO_SHORT_NAMES, then this file). Built with the project's warnings
 * and -Werror: that the program compiles is half the test. It then uses
 * both APIs in the same file: syslog's priorities (openlog, syslog,
 * setlogmask with LOG_INFO/LOG_DEBUG) and llog's logging through the
 * prefixed macros and, where defined, the short ones; a callback sink
 * must receive exactly the records logged through llog, at their levels.
 */
#ifndef LLOG_TEST_NAMES_BODY_H
#define LLOG_TEST_NAMES_BODY_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llog/sinks.h"

#define MAX_GOT 32

static struct {
	int level;
	char msg[64];
} got[MAX_GOT];
static int n_got;

static void on_entry(void *user, const struct llog_entry *e)
{
	(void)user;
	if (n_got < MAX_GOT) {
		got[n_got].level = (int)e->level;
		snprintf(got[n_got].msg, sizeof(got[n_got].msg), "%.*s", (int)e->msg_len, e->msg);
	}
	n_got++;
}

struct want {
	int level;
	const char *msg;
};

static int check(const struct want *w, int n)
{
	int bad = n_got != n;

	for (int i = 0; i < n && i < n_got; i++) {
		if (got[i].level != w[i].level || strcmp(got[i].msg, w[i].msg) != 0)
			bad = 1;
	}
	if (bad) {
		fprintf(stderr, "want %d records, got %d:\n", n, n_got);
		for (int i = 0; i < n_got && i < MAX_GOT; i++)
			fprintf(stderr, "  %d %s\n", got[i].level, got[i].msg);
	}
	return bad;
}

int main(void)
{
	struct llog_callback_options o = {.on_entry = on_entry};
	struct want w[16];
	int n = 0;

	/* syslog.h's API, with its own LOG_INFO and LOG_DEBUG. */
	openlog("test_names", LOG_PID | LOG_NDELAY, LOG_USER);
	(void)setlogmask(LOG_UPTO(LOG_DEBUG));
	syslog(LOG_INFO, "test_names: syslog at LOG_INFO %d", LOG_INFO);
	syslog(LOG_DEBUG | LOG_USER, "test_names: syslog at LOG_DEBUG %d", LOG_DEBUG);

	if (llog_add_sink(llog_callback_sink(&o)) != 0 || llog_init(NULL) != 0)
		return 1;
	/* The prefixed names, always there. */
	LLOG_LOG(LLOG_INFO, "prefixed LOG %d", 1);
	w[n++] = (struct want){LLOG_INFO, "prefixed LOG 1"};
	LLOG_LOG_TRACE("prefixed TRACE %d", 2);
	w[n++] = (struct want){LLOG_TRACE, "prefixed TRACE 2"};
	LLOG_LOG_DEBUG("prefixed DEBUG %d", 3);
	w[n++] = (struct want){LLOG_DEBUG, "prefixed DEBUG 3"};
	LLOG_LOG_INFO("prefixed INFO %s", "four");
	w[n++] = (struct want){LLOG_INFO, "prefixed INFO four"};
	LLOG_LOG_WARN("prefixed WARN %d", 5);
	w[n++] = (struct want){LLOG_WARN, "prefixed WARN 5"};
	LLOG_LOG_ERROR("prefixed ERROR %d", 6);
	w[n++] = (struct want){LLOG_ERROR, "prefixed ERROR 6"};
#ifndef LLOG_NO_SHORT_NAMES
	/* The short names that do not clash with syslog.h's. */
	LOG(LLOG_DEBUG, "short LOG %d", 7);
	w[n++] = (struct want){LLOG_DEBUG, "short LOG 7"};
	LOG_TRACE("short TRACE %d", 8);
	w[n++] = (struct want){LLOG_TRACE, "short TRACE 8"};
	LOG_WARN("short WARN %d", 9);
	w[n++] = (struct want){LLOG_WARN, "short WARN 9"};
	LOG_ERROR("short ERROR %d", 10);
	w[n++] = (struct want){LLOG_ERROR, "short ERROR 10"};
#endif
	/* syslog.h's again, after llog logged. */
	syslog(LOG_INFO, "test_names: syslog again %d", n);
	closelog();
	llog_flush();
	if (check(w, n) != 0)
		return 1;
	llog_shutdown();
	return 0;
}

#endif /* LLOG_TEST_NAMES_BODY_H */
