/*
 * throughput.c - end-to-end throughput of the file sink: one thread logs N
 * records of "request %d took %.3f ms from %s" back to back (BLOCK policy,
 * nothing dropped), then llog_flush(); records per second counts from the
 * first call until the last record is written to the file. Run for plain
 * text and zstd levels 1 and 3; the ratio is plain bytes / file bytes.
 *
 * usage: throughput [records] [dir]     defaults: 2000000, /tmp
 * Numbers, not assertions: run it several times on a quiet machine.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <llog.h>
#include <llog/sinks.h>

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Logs n records into a fresh file; returns records/s, sets *bytes. */
static double run(const char *path, enum llog_file_compression c, int level, long n,
		  long long *bytes)
{
	static const char *const peers[] = {"10.0.0.17:443", "10.0.3.4:8443", "192.168.1.20:80"};
	struct llog_file_options o = {.path = path, .compression = c, .zstd_level = level};
	struct llog_config cfg = {.arena_bytes = 1u << 20};
	struct llog_sink *s;
	struct stat st;
	double t0, t1;

	unlink(path);
	s = llog_file_sink(&o);
	if (s == NULL || llog_add_sink(s) != 0 || llog_init(&cfg) != 0) {
		fprintf(stderr, "throughput: %s\n", llog_file_sink_error());
		exit(1);
	}
	t0 = now_s();
	for (long i = 0; i < n; i++)
		LOG_INFO("request %d took %.3f ms from %s", (int)i, (double)(i % 5000) * 0.0173,
			 peers[i % 3]);
	llog_flush();
	t1 = now_s();
	llog_shutdown();
	*bytes = stat(path, &st) == 0 ? (long long)st.st_size : -1;
	unlink(path);
	return (double)n / (t1 - t0);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 2000000;
	const char *dir = argc > 2 ? argv[2] : "/tmp";
	char path[512];
	long long plain, z;
	double rps;

	snprintf(path, sizeof(path), "%s/llog-throughput.%d.log", dir, (int)getpid());
	printf("| sink | records/s | bytes/record | ratio |\n|---|---|---|---|\n");
	rps = run(path, LLOG_FILE_PLAIN, 0, n, &plain);
	printf("| plain text | %.0f | %.1f | 1.0 |\n", rps, (double)plain / (double)n);
	for (int level = 1; level <= 3; level += 2) {
		rps = run(path, LLOG_FILE_ZSTD, level, n, &z);
		printf("| zstd %d | %.0f | %.1f | %.1f |\n", level, rps, (double)z / (double)n,
		       (double)plain / (double)z);
	}
	return 0;
}
