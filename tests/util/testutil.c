/*
 * testutil.c - the clock, sleep, file, port and shell helpers of
 * testutil.h. Nothing here keeps state.
 */
#define _GNU_SOURCE
#include "testutil.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t now_ms(void)
{
	return now_ns() / 1000000;
}

void sleep_us(long us)
{
	struct timespec ts = {us / 1000000, (us % 1000000) * 1000};

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

void sleep_ms(int ms)
{
	sleep_us((long)ms * 1000);
}

char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	size_t cap = 1 << 16, n = 0, k;
	char *s = malloc(cap), *t;

	if (f == NULL || s == NULL)
		goto fail;
	while ((k = fread(s + n, 1, cap - n - 1, f)) > 0) {
		n += k;
		if (cap - n < 4096) {
			if ((t = realloc(s, cap * 2)) == NULL)
				goto fail;
			s = t;
			cap *= 2;
		}
	}
	if (ferror(f))
		goto fail;
	fclose(f);
	s[n] = '\0';
	if (len != NULL)
		*len = n;
	return s;
fail:
	fprintf(stderr, "slurp %s: %s\n", path, strerror(errno));
	abort();
}

int replace_file(const char *path, const char *text)
{
	char tmp[4096];
	FILE *f;
	int ok;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	if ((f = fopen(tmp, "w")) == NULL)
		return -1;
	ok = fputs(text, f) >= 0;
	ok = (fclose(f) == 0) && ok;
	return ok ? rename(tmp, path) : -1;
}

int count_of(const char *text, const char *needle)
{
	size_t nl = strlen(needle);
	int n = 0;

	for (const char *p = text; (p = strstr(p, needle)) != NULL; p += nl)
		n++;
	return n;
}

long file_lines(const char *path)
{
	FILE *f = fopen(path, "r");
	long n = 0;
	int c;

	if (f == NULL)
		return 0;
	while ((c = getc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	return n;
}

/* A port of the given socket type bound on 127.0.0.1 by the kernel's
 * choice, closed again. */
static int unbound_port(int type)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t l = sizeof(a);
	int fd = socket(AF_INET, type | SOCK_CLOEXEC, 0), ok;

	if (fd < 0)
		return -1;
	ok = bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0 &&
	     getsockname(fd, (struct sockaddr *)&a, &l) == 0;
	close(fd);
	return ok ? ntohs(a.sin_port) : -1;
}

int free_port(void)
{
	return unbound_port(SOCK_STREAM);
}

int free_udp_port(void)
{
	return unbound_port(SOCK_DGRAM);
}

int tcp_accepts(int port)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
				.sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), ok;

	ok = fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0;
	if (fd >= 0)
		close(fd);
	return ok;
}

size_t copy_cut(char *dst, size_t cap, const char *src, size_t len)
{
	size_t k = len < cap - 1 ? len : cap - 1;

	memcpy(dst, src, k);
	dst[k] = '\0';
	return k;
}

int run_threads(int n, void *(*fn)(void *))
{
	pthread_t *th = calloc((size_t)n, sizeof(*th));
	int i, rc = th == NULL ? ENOMEM : 0;

	for (i = 0; i < n && rc == 0; i++)
		rc = pthread_create(&th[i], NULL, fn, (void *)(intptr_t)i);
	if (rc != 0)
		i--; /* th[i] was not started */
	while (i-- > 0)
		pthread_join(th[i], NULL);
	free(th);
	return rc;
}

int child_exit_code(pid_t pid)
{
	int st;
	pid_t w;

	while ((w = waitpid(pid, &st, 0)) < 0 && errno == EINTR)
		;
	if (w != pid)
		return -1;
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	return WIFSIGNALED(st) ? 1000 + WTERMSIG(st) : -1;
}

int sh(const char *fmt, ...)
{
	char *cmd = NULL;
	va_list ap;
	int rc, n;

	va_start(ap, fmt);
	n = vasprintf(&cmd, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -1;
	rc = system(cmd);
	free(cmd);
	return rc;
}

const char *test_arg(int argc, char **argv, const char *what)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s <%s>\n", argv[0], what);
		exit(2);
	}
	return argv[1];
}

void gate_init(struct gate *g, int closed)
{
	pthread_mutex_init(&g->lock, NULL);
	pthread_cond_init(&g->cond, NULL);
	g->closed = closed;
	g->held = 0;
}

void gate_pass(struct gate *g)
{
	pthread_mutex_lock(&g->lock);
	while (g->closed) {
		g->held = 1;
		pthread_cond_broadcast(&g->cond);
		pthread_cond_wait(&g->cond, &g->lock);
	}
	g->held = 0;
	pthread_mutex_unlock(&g->lock);
}

void gate_wait_held(struct gate *g)
{
	pthread_mutex_lock(&g->lock);
	while (!g->held)
		pthread_cond_wait(&g->cond, &g->lock);
	pthread_mutex_unlock(&g->lock);
}

void gate_open(struct gate *g)
{
	pthread_mutex_lock(&g->lock);
	g->closed = 0;
	pthread_cond_broadcast(&g->cond);
	pthread_mutex_unlock(&g->lock);
}
