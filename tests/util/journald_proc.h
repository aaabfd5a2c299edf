/*
 * journald_proc.h - a real systemd-journald for a test, in a journal
 * namespace of the test's own (`systemd-journald NAME`: no systemd as PID
 * 1 needed; it serves /run/systemd/journal.NAME/socket), configured by a
 * drop-in in /run/systemd/journald@NAME.conf.d/ (volatile storage, no rate
 * limit), stopped, reaped and its files removed again. The one place the
 * tests start journald. Needs root, JOURNALD_BIN and journalctl.
 *
 * Not thread-safe: one thread owns a struct journald. Every call that can
 * fail returns 0 or -1 and leaves the reason in j->why.
 */
#ifndef LLOG_TEST_JOURNALD_PROC_H
#define LLOG_TEST_JOURNALD_PROC_H

#include <sys/types.h>

#define JOURNALD_BIN "/lib/systemd/systemd-journald"

struct journald {
	char name[40];	  /* the namespace */
	char ident[64];	  /* llog-NAME: the identifier to log with */
	char sock[80];	  /* the socket journald serves */
	char confdir[96]; /* the drop-in directory */
	pid_t pid;	  /* -1: not running */
	char why[400];
};

/* Names the namespace <prefix><pid><n> (n counts the calls) and fills in
 * ident, sock and confdir; starts nothing. */
void journald_name(struct journald *j, const char *prefix);

/* Whether this machine can run one: 0, else -1 with the reason (not root;
 * JOURNALD_BIN or journalctl missing). */
int journald_usable(struct journald *j);

/* Writes the drop-in (after removing what an earlier run left), starts
 * journald and waits (10 s at most) until its socket is served. */
int journald_start(struct journald *j);

/* Starts journald again on the drop-in journald_start wrote. */
int journald_spawn(struct journald *j);

/* SIGKILLs and reaps journald (nothing when it is not running). */
void journald_stop(struct journald *j);

/* journald_stop, then removes the drop-in, the journal files and the
 * runtime directory of the namespace. */
void journald_remove(struct journald *j);

#endif
