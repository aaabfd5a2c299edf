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
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "llog.h"
#include "fields/cases.h"

#define APP "llogfields"

#define CHECK(c)                                                                           \
	do {                                                                               \
		if (!(c)) {                                                                \
			fprintf(stderr, "%s:%d: failed: %s\n", __FILE__, __LINE__, #c);   \
			cleanup();                                                         \
			exit(1);                                                           \
		}                                                                          \
	} while (0)

static char dir[64];
static pid_t rs_pid;

static void cleanup(void)
{
	if (rs_pid > 0) {
		kill(rs_pid, SIGTERM);
		waitpid(rs_pid, NULL, 0);
		rs_pid = 0;
	}
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void nap(void)
{
	struct timespec ts = {0, 10 * 1000 * 1000};

	nanosleep(&ts, NULL);
}

static int free_port(void)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t l = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	CHECK(fd >= 0);
	CHECK(bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0);
	CHECK(getsockname(fd, (struct sockaddr *)&a, &l) == 0);
	close(fd);
	return ntohs(a.sin_port);
}

static int tcp_accepts(int port)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
				.sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), ok;

	ok = fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0;
	if (fd >= 0)
		close(fd);
	return ok;
}

static void write_conf(const char *tpl, int port)
{
	char path[128], line[512];
	FILE *in = fopen(tpl, "r"), *out;

	CHECK(in != NULL);
	snprintf(path, sizeof(path), "%s/rsyslog.conf", dir);
	out = fopen(path, "w");
	CHECK(out != NULL);
	while (fgets(line, sizeof(line), in) != NULL) {
		for (char *p = line; *p != '\0'; p++) {
			if (strncmp(p, "@DIR@", 5) == 0)
				fputs(dir, out), p += 4;
			else if (strncmp(p, "@PORT@", 6) == 0)
				fprintf(out, "%d", port), p += 5;
			else if (strncmp(p, "@APP@", 5) == 0)
				fputs(APP, out), p += 4;
			else
				fputc(*p, out);
		}
	}
	fclose(in);
	CHECK(fclose(out) == 0);
}

static void rs_start(int port)
{
	char conf[128], pidf[128], outf[128];
	int64_t deadline = now_ms() + 15000;
	pid_t parent = getpid();

	snprintf(conf, sizeof(conf), "%s/rsyslog.conf", dir);
	snprintf(pidf, sizeof(pidf), "%s/pid", dir);
	snprintf(outf, sizeof(outf), "%s/rsyslogd.out", dir);
	rs_pid = fork();
	CHECK(rs_pid >= 0);
	if (rs_pid == 0) {
		int fd = open(outf, O_WRONLY | O_CREAT | O_APPEND, 0600);

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(1);
		dup2(fd, 1);
		dup2(fd, 2);
		execlp("rsyslogd", "rsyslogd", "-n", "-f", conf, "-i", pidf, (char *)NULL);
		_exit(127);
	}
	/* bounded wait for the listener (rsyslogd's start-up) */
	while (!tcp_accepts(port)) {
		int status;

		if (waitpid(rs_pid, &status, WNOHANG) == rs_pid) {
			rs_pid = 0;
			fprintf(stderr, "rsyslogd exited (status %d); see %s\n", status, outf);
			exit(1);
		}
		CHECK(now_ms() < deadline);
		nap();
	}
}

/* Lines in DIR/out.json. */
static int out_lines(void)
{
	char path[128];
	FILE *f;
	int c, n = 0;

	snprintf(path, sizeof(path), "%s/out.json", dir);
	if ((f = fopen(path, "r")) == NULL)
		return 0;
	while ((c = fgetc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	return n;
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
	char url[64], cmd[512];
	static const struct llog_field cut[] = {FSCUT("v", "abc"), FI("n", 1)};
	struct llog_entry e[6];
	int port, ne = 0;
	int64_t deadline;

	if (argc != 3)
		return 2;
	if (system("command -v rsyslogd >/dev/null 2>&1") != 0) {
		printf("skipped: no rsyslogd\n");
		return 77;
	}
	strcpy(dir, "/tmp/llog_fields_sd_XXXXXX");
	CHECK(mkdtemp(dir) != NULL);
	port = free_port();
	write_conf(argv[1], port);
	rs_start(port);

	memset(big, 'x', 1000);
	for (int i = 0; i < 20; i++) {
		snprintf(bigk[i], sizeof(bigk[i]), "b%d", i);
		bigf[i] = (struct llog_field){.key = bigk[i], .key_len = strlen(bigk[i]),
					      .type = LLOG_FIELD_STR, .v.str = {big, 1000}};
	}
	e[ne++] = entry("all types", all_types, NF(all_types));
	e[ne++] = entry("adversarial", adversarial, NF(adversarial));
	e[ne++] = entry("sd keys", sd_keys, NF(sd_keys));
	e[ne] = entry("cut", cut, NF(cut));
	e[ne++].fields_truncated = 4;
	e[ne++] = entry("big", bigf, 20);
	e[ne++] = entry("no fields", NULL, 0);

	snprintf(url, sizeof(url), "tcp://127.0.0.1:%d", port);
	o.url = url;
	o.app_name = APP;
	o.hostname = "h";
	s = llog_syslog_sink(&o);
	CHECK(s != NULL);
	for (int i = 0; i < ne; i++)
		CHECK(s->ops->write(s, &e[i]) > 0);
	CHECK(s->ops->commit(s) >= 0);
	llog_sink_destroy(s);
	/* bounded wait for rsyslog to write them */
	deadline = now_ms() + 15000;
	while (out_lines() < ne) {
		CHECK(now_ms() < deadline);
		nap();
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
	CHECK(s->ops->write(s, &e[0]) > 0);
	CHECK(s->ops->commit(s) >= 0);
	llog_sink_destroy(s);
	while (out_lines() < ne + 1) {
		CHECK(now_ms() < deadline);
		nap();
	}
	cleanup();
	snprintf(cmd, sizeof(cmd), "python3 %s %s/out.json", argv[2], dir);
	CHECK(system(cmd) == 0);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	CHECK(system(cmd) == 0);
	return 0;
}
