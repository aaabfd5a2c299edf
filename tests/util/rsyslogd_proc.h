/*
 * rsyslogd_proc.h - a real rsyslogd for a test: its own directory under
 * /tmp, a configuration written from a template, two free ports, started
 * in the foreground with `rsyslogd -n`, waited for until it listens, and
 * stopped and reaped again. The one place the tests start rsyslogd: the
 * shell tests through rsyslogd_run (rsyslogd_run.c), a program on it.
 *
 * The template's placeholders: @DIR@ (the directory), @PORT@ (TCP and
 * UDP), @RPORT@ (RELP), @APP@ (the app-name the test logs as). rsyslogd
 * writes its own output to DIR/rsyslogd.out and its pid to DIR/pid; it
 * gets SIGKILL should the thread that started it die (PR_SET_PDEATHSIG).
 *
 * Not thread-safe: one thread owns a struct rsyslogd. Every call that can
 * fail returns 0 or -1 and leaves the reason in r->why.
 */
#ifndef LLOG_TEST_RSYSLOGD_PROC_H
#define LLOG_TEST_RSYSLOGD_PROC_H

#include <sys/types.h>

struct rsyslogd {
	char dir[64];	/* DIR: rsyslog.conf, pid, rsyslogd.out, the outputs */
	int port;	/* TCP and UDP on 127.0.0.1 */
	int rport;	/* RELP on 127.0.0.1 */
	pid_t pid;	/* 0: not running */
	int wait_rport; /* the configuration listens on @RPORT@ */
	int wait_sock;	/* the configuration has a unix socket DIR/log.sock */
	char why[256];
};

/* Whether an rsyslogd is on $PATH (Debian package 'rsyslog'). */
int rsyslogd_installed(void);

/* Makes the directory /tmp/<name>_XXXXXX and picks the two ports. */
int rsyslogd_init(struct rsyslogd *r, const char *name);

/* Writes DIR/rsyslog.conf from the template at tpl, app for @APP@. */
int rsyslogd_configure(struct rsyslogd *r, const char *tpl, const char *app);

/* Starts rsyslogd on DIR/rsyslog.conf and waits (15 s at most) until it
 * accepts on the TCP port, on the RELP port and its unix socket exists
 * when the configuration has them. Fails when rsyslogd exits first. */
int rsyslogd_start(struct rsyslogd *r);

/* The same on files of the caller's: rsyslogd -n -f conf -i pidf, its
 * output appended to outf; it waits for the listeners r says (port,
 * wait_rport, wait_sock; r->dir for the socket). rsyslogd_start is this
 * on DIR/rsyslog.conf, DIR/pid and DIR/rsyslogd.out. */
int rsyslogd_start_files(struct rsyslogd *r, const char *conf, const char *pidf,
			 const char *outf);

/* Sends sig to rsyslogd and reaps it (nothing when it is not running). */
void rsyslogd_stop(struct rsyslogd *r, int sig);

/* A test's rsyslogd: rsyslogd_init(name), rsyslogd_configure from the
 * template named by the environment variable LLOG_SYSLOG_CONF (app for
 * @APP@) and rsyslogd_start. r->dir is set (for rsyslogd_remove) from the
 * first step on, whatever fails later. */
int rsyslogd_for_test(struct rsyslogd *r, const char *name, const char *app);

/* What rsyslogd has written to DIR/out.log (malloc'd), once it holds at
 * least n occurrences of needle (count_of): a collector writes in its own
 * time. NULL with r->why after ms milliseconds without them. */
char *rsyslogd_wait_output(struct rsyslogd *r, const char *needle, int n, int ms);

/* Kills and reaps rsyslogd, and removes DIR with all in it; nothing (0)
 * for a zeroed struct or one removed already. */
int rsyslogd_remove(struct rsyslogd *r);

#endif
