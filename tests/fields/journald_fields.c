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
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "llog.h"
#include "fields/cases.h"

#define JOURNALD "/lib/systemd/systemd-journald"

extern char **environ;

static char name[40], ident[64], sock[80], confdir[96];
static pid_t jd_pid = -1;

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

static void cleanup(void)
{
	if (jd_pid > 0) {
		kill(jd_pid, SIGKILL);
		waitpid(jd_pid, NULL, 0);
		jd_pid = -1;
	}
	if (name[0] != '\0')
		sh("rm -rf '%s' /run/log/journal/*.%s /var/log/journal/*.%s /run/systemd/journal.%s",
		   confdir, name, name, name);
}

#define CHECK(c)                                                                           \
	do {                                                                               \
		if (!(c)) {                                                                \
			fprintf(stderr, "%s:%d: failed: %s\n", __FILE__, __LINE__, #c);   \
			cleanup();                                                         \
			exit(1);                                                           \
		}                                                                          \
	} while (0)

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void pause_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000};

	nanosleep(&ts, NULL);
}

static int sock_up(void)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0), ok;

	snprintf(a.sun_path, sizeof(a.sun_path), "%s", sock);
	ok = fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0;
	if (fd >= 0)
		close(fd);
	return ok;
}

static void jd_start(void)
{
	posix_spawn_file_actions_t fa;
	char *argv[] = {(char *)JOURNALD, name, NULL};
	char conf[160];
	int64_t deadline = now_ms() + 10000;
	FILE *f;

	snprintf(conf, sizeof(conf), "%s/llog-test.conf", confdir);
	CHECK(mkdir(confdir, 0755) == 0);
	CHECK((f = fopen(conf, "w")) != NULL);
	fputs("[Journal]\nStorage=volatile\nRateLimitIntervalSec=0\nRateLimitBurst=0\n", f);
	fclose(f);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	CHECK(posix_spawn(&jd_pid, JOURNALD, &fa, NULL, argv, environ) == 0);
	posix_spawn_file_actions_destroy(&fa);
	/* bounded wait for journald's start-up */
	while (!sock_up()) {
		CHECK(now_ms() < deadline);
		pause_ms(20);
	}
}

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
	static const struct llog_field cut[] = {FSCUT("v", "abc"), FI("n", 1)};
	struct llog_entry e[5];
	int ne = 0;

	if (argc != 2)
		return 2;
	if (geteuid() != 0 || access(JOURNALD, X_OK) != 0 ||
	    sh("command -v journalctl >/dev/null") != 0) {
		printf("skipped: needs root, %s and journalctl\n", JOURNALD);
		return 77;
	}
	snprintf(name, sizeof(name), "llogfields%ld", (long)getpid());
	snprintf(ident, sizeof(ident), "llog-%s", name);
	snprintf(sock, sizeof(sock), "/run/systemd/journal.%s/socket", name);
	snprintf(confdir, sizeof(confdir), "/run/systemd/journald@%s.conf.d", name);
	cleanup();
	jd_start();

	e[ne++] = entry("all types", all_types, NF(all_types));
	e[ne++] = entry("adversarial", adversarial, NF(adversarial));
	e[ne++] = entry("jd keys", jd_keys, NF(jd_keys));
	e[ne] = entry("cut", cut, NF(cut));
	e[ne++].fields_truncated = 4;
	e[ne++] = entry("no fields", NULL, 0);
	o.socket_path = sock;
	o.identifier = ident;
	s = llog_journald_sink(&o);
	CHECK(s != NULL);
	for (int i = 0; i < ne; i++)
		CHECK(s->ops->write(s, &e[i]) > 0);
	CHECK(s->ops->commit(s) >= 0);
	llog_sink_destroy(s);
	/* check_journal.py waits (bounded) until the entries are in */
	CHECK(sh("python3 %s %s %s %d", argv[1], name, ident, ne) == 0);
	cleanup();
	return 0;
}
