/*
 * journald_proc.c - start and stop a test's systemd-journald
 * (journald_proc.h).
 */
#define _GNU_SOURCE
#include "journald_proc.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

extern char **environ;

void journald_name(struct journald *j, const char *prefix)
{
	static int n;

	memset(j, 0, sizeof(*j));
	j->pid = -1;
	snprintf(j->name, sizeof(j->name), "%s%ld%d", prefix, (long)getpid(), n++);
	snprintf(j->ident, sizeof(j->ident), "llog-%s", j->name);
	snprintf(j->sock, sizeof(j->sock), "/run/systemd/journal.%s/socket", j->name);
	snprintf(j->confdir, sizeof(j->confdir), "/run/systemd/journald@%s.conf.d", j->name);
}

int journald_usable(struct journald *j)
{
	if (geteuid() != 0) {
		snprintf(j->why, sizeof(j->why), "not root: journald's namespace needs /run/systemd");
		return -1;
	}
	if (access(JOURNALD_BIN, X_OK) != 0 || sh("command -v journalctl >/dev/null") != 0) {
		snprintf(j->why, sizeof(j->why),
			 "%s or journalctl missing (Debian: systemd)", JOURNALD_BIN);
		return -1;
	}
	return 0;
}

/* Whether journald's socket takes a connection (someone listens). */
static int sock_up(const struct journald *j)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0), ok;

	snprintf(a.sun_path, sizeof(a.sun_path), "%s", j->sock);
	ok = fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0;
	if (fd >= 0)
		close(fd);
	return ok;
}

int journald_spawn(struct journald *j)
{
	posix_spawn_file_actions_t fa;
	char *argv[] = {(char *)JOURNALD_BIN, j->name, NULL};
	int64_t deadline = now_ms() + 10000;
	int st;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	if (posix_spawn(&j->pid, JOURNALD_BIN, &fa, NULL, argv, environ) != 0) {
		posix_spawn_file_actions_destroy(&fa);
		j->pid = -1;
		snprintf(j->why, sizeof(j->why), "cannot start %s", JOURNALD_BIN);
		return -1;
	}
	posix_spawn_file_actions_destroy(&fa);
	while (!sock_up(j)) {
		if (waitpid(j->pid, &st, WNOHANG) == j->pid || now_ms() > deadline) {
			snprintf(j->why, sizeof(j->why), "%s %s did not serve %s", JOURNALD_BIN,
				 j->name, j->sock);
			kill(j->pid, SIGKILL);
			waitpid(j->pid, &st, 0);
			j->pid = -1;
			return -1;
		}
		sleep_ms(20);
	}
	return 0;
}

int journald_start(struct journald *j)
{
	char conf[160];
	FILE *f;

	journald_remove(j);
	snprintf(conf, sizeof(conf), "%s/llog-test.conf", j->confdir);
	if (mkdir(j->confdir, 0755) != 0 || (f = fopen(conf, "w")) == NULL) {
		snprintf(j->why, sizeof(j->why), "cannot write %s: %s", conf, strerror(errno));
		return -1;
	}
	/* Nothing kept on disk after the test; no rate limit (test_journald
	 * sends 20,000 entries at once). */
	fputs("[Journal]\nStorage=volatile\nRateLimitIntervalSec=0\nRateLimitBurst=0\n", f);
	fclose(f);
	return journald_spawn(j);
}

void journald_stop(struct journald *j)
{
	int st;

	if (j->pid <= 0)
		return;
	kill(j->pid, SIGKILL);
	waitpid(j->pid, &st, 0);
	j->pid = -1;
}

void journald_remove(struct journald *j)
{
	journald_stop(j);
	if (j->name[0] != '\0')
		sh("rm -rf '%s' /run/log/journal/*.%s /var/log/journal/*.%s /run/systemd/journal.%s",
		   j->confdir, j->name, j->name, j->name);
}
