/*
 * stall.c - a stalled collector must not slow the application.
 *
 *   llog_stall -m MODE -n RECORDS -f FILE
 *
 * Logs RECORDS records from one thread (BLOCK overflow: a stalled flusher
 * would make the thread wait) to a zstd file sink, and prints one line:
 *   MODE records seconds records/s written queue_dropped sink_lost flush_seconds
 * MODE:
 *   file            the file sink alone
 *   stalled         plus a syslog sink (TCP) to a collector that accepted
 *                   the connection (the kernel's backlog) and never reads:
 *                   the syslog sink on its own thread (the default)
 *   stalled-inline  the same syslog sink forced onto the flusher
 *                   (LLOG_SINK_THREAD_FLUSHER): what llog did before
 *   blocked-cb      plus a callback sink on its own thread that blocks in
 *                   its first call until the end
 * seconds: the LOG calls (what the application waits for). The line ends
 * with the seconds of the llog_flush after them (it waits for the stalled
 * sink up to its drain timeout, 1000 ms; 200 ms for blocked-cb). Run by
 * bench/stall.sh, which interleaves the modes and checks the file.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <llog.h>
#include <llog/sinks.h>

static pthread_mutex_t gate = PTHREAD_MUTEX_INITIALIZER;

static void blocked_entry(void *user, const struct llog_entry *e)
{
	(void)user;
	(void)e;
	pthread_mutex_lock(&gate); /* held by main until the end */
	pthread_mutex_unlock(&gate);
}

/* A TCP listener that never accepts: connections complete in the
 * kernel's backlog and their data is never read. Returns the port. */
static int stalled_listener(void)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(fd, 16) != 0 ||
	    getsockname(fd, (struct sockaddr *)&a, &len) != 0) {
		perror("llog_stall: listener");
		exit(1);
	}
	return ntohs(a.sin_port);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	const char *mode = "file", *file = "stall.zst";
	long n = 300000;
	struct llog_config cfg = {.level = LLOG_INFO};
	struct llog_stats st;
	char url[64];
	double t0, t1, t2;
	int c, gated = 0;

	while ((c = getopt(argc, argv, "m:n:f:")) != -1) {
		if (c == 'm')
			mode = optarg;
		else if (c == 'n')
			n = atol(optarg);
		else if (c == 'f')
			file = optarg;
		else
			return 2;
	}
	{
		struct llog_file_options fo = {.path = file};

		if (llog_add_sink(llog_file_sink(&fo)) != 0) {
			fprintf(stderr, "llog_stall: %s\n", llog_file_sink_error());
			return 1;
		}
	}
	if (strncmp(mode, "stalled", 7) == 0) {
		struct llog_syslog_options so = {.url = url, .timeout_ms = 1000};
		struct llog_sink_options qo = {0};

		snprintf(url, sizeof(url), "tcp://127.0.0.1:%d", stalled_listener());
		if (strcmp(mode, "stalled-inline") == 0)
			qo.thread = LLOG_SINK_THREAD_FLUSHER;
		qo.drain_timeout_ms = 1000;
		if (llog_add_sink_opts(llog_syslog_sink(&so), &qo) != 0)
			return 1;
	} else if (strcmp(mode, "blocked-cb") == 0) {
		struct llog_callback_options co = {.on_entry = blocked_entry};
		struct llog_sink_options qo = {.thread = LLOG_SINK_THREAD_OWN, .drain_timeout_ms = 200};

		pthread_mutex_lock(&gate);
		gated = 1;
		if (llog_add_sink_opts(llog_callback_sink(&co), &qo) != 0)
			return 1;
	} else if (strcmp(mode, "file") != 0) {
		fprintf(stderr, "llog_stall: unknown mode %s\n", mode);
		return 2;
	}
	if (llog_init(&cfg) != 0)
		return 1;
	t0 = now_s();
	for (long i = 0; i < n; i++)
		LOG_INFO("request %ld took %.3f ms from %s", i, (double)(i % 1000) / 7.0, "10.0.0.7");
	t1 = now_s();
	llog_flush();
	t2 = now_s();
	if (gated)
		pthread_mutex_unlock(&gate);
	llog_shutdown();
	llog_get_stats(&st);
	printf("%s %ld %.3f %.0f %llu %llu %llu %.3f\n", mode, n, t1 - t0, (double)n / (t1 - t0),
	       (unsigned long long)st.written, (unsigned long long)st.queue_dropped,
	       (unsigned long long)st.sink_lost, t2 - t1);
	return 0;
}
