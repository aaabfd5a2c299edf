/*
 * rsyslogd_run.c - rsyslogd_proc.h for the shell tests: one rsyslogd, run
 * in the foreground for as long as this program runs.
 *
 *   rsyslogd_run CONF PIDFILE OUTFILE PORT
 *
 * Starts `rsyslogd -n -f CONF -i PIDFILE` (its output appended to OUTFILE)
 * with rsyslogd_start_files, waits (15 s at most) until 127.0.0.1:PORT
 * accepts, and prints "ready" on stdout. On SIGTERM or SIGINT it passes
 * SIGTERM on, waits until rsyslogd has exited (its queues saved) and exits
 * 0. It dies with its parent (PR_SET_PDEATHSIG), and rsyslogd with it.
 * Exits 1, with the reason and rsyslogd's output on stderr, when rsyslogd
 * does not start or exits by itself; 2 on a bad command line.
 *
 * A shell caller (tests/test_deploy.sh) reads the "ready" line from a FIFO
 * and stops rsyslogd with `kill -TERM PID; wait PID`.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rsyslogd_proc.h"
#include "testutil.h"

static void on_child(int sig)
{
	(void)sig; /* only to have SIGCHLD pending for sigwait */
}

/* The reason, then what rsyslogd wrote, on stderr; exits 1. */
static void give_up(const char *why, const char *outf)
{
	fprintf(stderr, "rsyslogd_run: %s\n", why);
	sh("cat '%s' >&2", outf);
	exit(1);
}

int main(int argc, char **argv)
{
	struct rsyslogd r;
	sigset_t wanted;
	int sig, status;

	if (argc != 5 || atoi(argv[4]) <= 0) {
		fprintf(stderr, "usage: rsyslogd_run CONF PIDFILE OUTFILE PORT\n");
		return 2;
	}
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() == 1)
		return 1; /* the parent is gone already */
	/* Blocked before rsyslogd starts, so that none is lost; the child
	 * unblocks them before it runs rsyslogd (rsyslogd_start_files). */
	signal(SIGCHLD, on_child);
	sigemptyset(&wanted);
	sigaddset(&wanted, SIGTERM);
	sigaddset(&wanted, SIGINT);
	sigaddset(&wanted, SIGCHLD);
	sigprocmask(SIG_BLOCK, &wanted, NULL);

	memset(&r, 0, sizeof(r));
	r.port = atoi(argv[4]);
	if (rsyslogd_start_files(&r, argv[1], argv[2], argv[3]) != 0)
		give_up(r.why, argv[3]);
	printf("ready\n");
	fflush(stdout);

	for (;;) {
		if (sigwait(&wanted, &sig) != 0)
			continue;
		if (sig != SIGCHLD)
			break;
		if (waitpid(r.pid, &status, WNOHANG) == r.pid) {
			snprintf(r.why, sizeof(r.why), "rsyslogd exited by itself (status %d)",
				 status);
			give_up(r.why, argv[3]);
		}
	}
	rsyslogd_stop(&r, SIGTERM);
	return 0;
}
