/*
 * rsyslogd_proc.c - start and stop a test's rsyslogd (rsyslogd_proc.h).
 */
#define _GNU_SOURCE
#include "rsyslogd_proc.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

int rsyslogd_installed(void)
{
	return system("command -v rsyslogd >/dev/null 2>&1") == 0;
}

int rsyslogd_init(struct rsyslogd *r, const char *name)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->dir, sizeof(r->dir), "/tmp/%s_XXXXXX", name);
	if (mkdtemp(r->dir) == NULL) {
		snprintf(r->why, sizeof(r->why), "mkdtemp %s: %s", r->dir, strerror(errno));
		r->dir[0] = '\0';
		return -1;
	}
	r->port = free_port();
	do
		r->rport = free_port();
	while (r->rport == r->port && r->port > 0);
	if (r->port < 0 || r->rport < 0) {
		snprintf(r->why, sizeof(r->why), "no free port: %s", strerror(errno));
		return -1;
	}
	return 0;
}

int rsyslogd_configure(struct rsyslogd *r, const char *tpl, const char *app)
{
	char path[128], line[512];
	FILE *in = fopen(tpl, "r"), *out;

	if (in == NULL) {
		snprintf(r->why, sizeof(r->why), "%s: %s", tpl, strerror(errno));
		return -1;
	}
	snprintf(path, sizeof(path), "%s/rsyslog.conf", r->dir);
	if ((out = fopen(path, "w")) == NULL) {
		snprintf(r->why, sizeof(r->why), "%s: %s", path, strerror(errno));
		fclose(in);
		return -1;
	}
	r->wait_rport = r->wait_sock = 0;
	while (fgets(line, sizeof(line), in) != NULL) {
		if (line[0] != '#' && strstr(line, "@DIR@/log.sock") != NULL)
			r->wait_sock = 1;
		for (char *p = line; *p != '\0'; p++) {
			if (strncmp(p, "@DIR@", 5) == 0) {
				fputs(r->dir, out), p += 4;
			} else if (strncmp(p, "@PORT@", 6) == 0) {
				fprintf(out, "%d", r->port), p += 5;
			} else if (strncmp(p, "@RPORT@", 7) == 0) {
				fprintf(out, "%d", r->rport), p += 6;
				r->wait_rport |= line[0] != '#';
			} else if (strncmp(p, "@APP@", 5) == 0) {
				fputs(app, out), p += 4;
			} else {
				fputc(*p, out);
			}
		}
	}
	fclose(in);
	if (fclose(out) != 0) {
		snprintf(r->why, sizeof(r->why), "%s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* Whether every listener of the configuration is up. */
static int listening(const struct rsyslogd *r)
{
	char sock[128];
	struct stat st;

	snprintf(sock, sizeof(sock), "%s/log.sock", r->dir);
	return tcp_accepts(r->port) && (!r->wait_rport || tcp_accepts(r->rport)) &&
	       (!r->wait_sock || stat(sock, &st) == 0);
}

int rsyslogd_start(struct rsyslogd *r)
{
	char conf[128], pidf[128], outf[128];

	snprintf(conf, sizeof(conf), "%s/rsyslog.conf", r->dir);
	snprintf(pidf, sizeof(pidf), "%s/pid", r->dir);
	snprintf(outf, sizeof(outf), "%s/rsyslogd.out", r->dir);
	return rsyslogd_start_files(r, conf, pidf, outf);
}

int rsyslogd_start_files(struct rsyslogd *r, const char *conf, const char *pidf,
			 const char *outf)
{
	int64_t deadline = now_ms() + 15000;
	pid_t parent = getpid();
	int status;

	unlink(pidf);
	fflush(NULL);
	r->pid = fork();
	if (r->pid < 0) {
		snprintf(r->why, sizeof(r->why), "fork: %s", strerror(errno));
		r->pid = 0;
		return -1;
	}
	if (r->pid == 0) {
		int fd = open(outf, O_WRONLY | O_CREAT | O_APPEND, 0600);
		sigset_t none;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(1);
		/* rsyslogd gets SIGTERM and SIGHUP whatever its starter blocks */
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		dup2(fd, 1);
		dup2(fd, 2);
		execlp("rsyslogd", "rsyslogd", "-n", "-f", conf, "-i", pidf, (char *)NULL);
		_exit(127);
	}
	while (!listening(r)) {
		if (waitpid(r->pid, &status, WNOHANG) == r->pid) {
			r->pid = 0;
			snprintf(r->why, sizeof(r->why), "rsyslogd exited (status %d); see %s",
				 status, outf);
			return -1;
		}
		if (now_ms() > deadline) {
			snprintf(r->why, sizeof(r->why), "rsyslogd not ready after 15 s; see %s",
				 outf);
			return -1;
		}
		sleep_ms(10);
	}
	return 0;
}

void rsyslogd_stop(struct rsyslogd *r, int sig)
{
	if (r->pid > 0) {
		kill(r->pid, sig);
		waitpid(r->pid, NULL, 0);
		r->pid = 0;
	}
}

int rsyslogd_for_test(struct rsyslogd *r, const char *name, const char *app)
{
	const char *tpl = getenv("LLOG_SYSLOG_CONF");

	if (rsyslogd_init(r, name) != 0)
		return -1;
	if (tpl == NULL) {
		snprintf(r->why, sizeof(r->why), "LLOG_SYSLOG_CONF is not set (ctest sets it)");
		return -1;
	}
	if (rsyslogd_configure(r, tpl, app) != 0 || rsyslogd_start(r) != 0)
		return -1;
	return 0;
}

char *rsyslogd_wait_output(struct rsyslogd *r, const char *needle, int n, int ms)
{
	char path[sizeof(r->dir) + 16];
	int64_t end = now_ms() + ms;

	snprintf(path, sizeof(path), "%s/out.log", r->dir);
	for (;;) {
		char *s = file_lines(path) > 0 ? slurp(path, NULL) : strdup("");
		int got = s != NULL ? count_of(s, needle) : 0;

		if (s != NULL && got >= n)
			return s;
		free(s);
		if (now_ms() > end) {
			snprintf(r->why, sizeof(r->why),
				 "rsyslogd wrote %d of %d records (\"%s\") within %d ms", got, n,
				 needle, ms);
			return NULL;
		}
		sleep_ms(20);
	}
}

int rsyslogd_remove(struct rsyslogd *r)
{
	int rc;

	rsyslogd_stop(r, SIGKILL);
	if (r->dir[0] == '\0')
		return 0;
	rc = sh("rm -rf '%s'", r->dir) == 0 ? 0 : -1;
	r->dir[0] = '\0';
	return rc;
}
