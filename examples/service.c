/*
 * service.c - a small simulated service, and llog's demo.
 *
 *   service [workers] [seconds]      defaults: 4 workers, 2 seconds
 *
 * Worker threads handle fake HTTP requests and log the way a real service
 * does: TRACE and DEBUG detail for every request, an INFO access line, a
 * WARN for the occasional slow request and an ERROR for the rare upstream
 * failure. The console shows WARN and above only. At the end the program
 * prints what llog did (llog_get_stats) and fails (exit status 1) unless
 * every record logged was written and none was dropped.
 */
#define _POSIX_C_SOURCE 200809L

#include <llog.h>
#include <llog/sinks.h>

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_WORKERS 256

struct route {
	const char *method;
	const char *path;
	const char *upstream;
	unsigned budget_ms; /* a request slower than this is worth a warning */
};

static const struct route routes[] = {
	{"GET", "/api/v1/users", "users-db", 50},
	{"GET", "/api/v1/orders", "orders-db", 80},
	{"POST", "/api/v1/orders", "orders-db", 120},
	{"GET", "/api/v1/catalog/search", "search", 150},
	{"PUT", "/api/v1/cart", "cart-cache", 40},
	{"DELETE", "/api/v1/sessions", "auth", 30},
	{"GET", "/healthz", "self", 5},
};
#define NROUTES (sizeof routes / sizeof routes[0])

struct worker {
	pthread_t thread;
	unsigned id;
	uint64_t rng;
	double deadline;       /* monotonic seconds */
	unsigned long requests; /* read by main after join */
	unsigned long slow;
	unsigned long failed;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint32_t next_rand(struct worker *w)
{
	/* xorshift64*: per-thread state, no locking. */
	w->rng ^= w->rng >> 12;
	w->rng ^= w->rng << 25;
	w->rng ^= w->rng >> 27;
	return (uint32_t)((w->rng * 0x2545F4914F6CDD1DULL) >> 32);
}

static void pause_us(unsigned us)
{
	struct timespec ts = {0, (long)us * 1000L};

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

static void handle_request(struct worker *w, unsigned long n)
{
	const struct route *rt = &routes[next_rand(w) % NROUTES];
	unsigned req_id = (w->id << 24) | (unsigned)(n & 0xffffff);
	unsigned user = next_rand(w) % 100000;
	uint32_t r = next_rand(w);
	char peer[48];

	snprintf(peer, sizeof peer, "10.%u.%u.%u:%u", (r >> 24) & 0xff, (r >> 16) & 0xff,
		 (r >> 8) & 0xff, 32768 + (r & 0x7fff));
	/* Every record of this request carries req and user as fields (the
	 * thread's context, removed when the function returns). */
	LLOG_CTX_SCOPE("req", req_id);
	LLOG_CTX_SCOPE("user", user);
	LOG_TRACE("req %08x: accepted from %s on worker %u", req_id, peer, w->id);
	LOG_DEBUG("req %08x: %s %s user=%u", req_id, rt->method, rt->path, user);

	/* The "work": a short real pause, reported as a plausible latency. */
	unsigned work_us = 50 + next_rand(w) % 250;
	pause_us(work_us);
	double ms = (double)work_us / 1000.0 * (1 + next_rand(w) % 40);
	int cache_hit = next_rand(w) % 4 != 0;
	LOG_DEBUG("req %08x: %s cache %s for user:%u", req_id, rt->upstream,
		  cache_hit ? "hit" : "miss", user);

	uint32_t fate = next_rand(w) % 10000;
	if (fate < 1) {
		w->failed++;
		LOG_ERROR("req %08x: upstream %s timed out after %u ms (peer %s), returning 503",
			  req_id, rt->upstream, 1000 + next_rand(w) % 2000, peer);
		LOG_INFO("req %08x: %s %s -> 503 in %.3f ms", req_id, rt->method, rt->path,
			 1000.0 + ms);
		return;
	}
	if (fate < 6) {
		w->slow++;
		ms = rt->budget_ms * (1.2 + (double)(next_rand(w) % 300) / 100.0);
		LOG_WARN("req %08x: slow %s %s took %.1f ms (budget %u ms, upstream %s)",
			 req_id, rt->method, rt->path, ms, rt->budget_ms, rt->upstream);
	}
	/* Structured: `llogcat --where 'ms>100' FILE`. */
	LOG_INFO_KV(("method", rt->method, "path", rt->path, "status", fate < 200 ? 404 : 200,
		     "ms", ms, "bytes", (size_t)(200 + next_rand(w) % 16000)),
		    "request done");
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	LOG_DEBUG("worker %u: started", w->id);
	while (now_s() < w->deadline)
		handle_request(w, w->requests++);
	LOG_DEBUG("worker %u: stopping after %lu requests", w->id, w->requests);
	return NULL;
}

static int parse_args(int argc, char **argv, unsigned *workers, double *seconds)
{
	char *end;

	if (argc > 1) {
		unsigned long v = strtoul(argv[1], &end, 10);
		if (*end || v < 1 || v > MAX_WORKERS)
			return -1;
		*workers = (unsigned)v;
	}
	if (argc > 2) {
		double v = strtod(argv[2], &end);
		if (*end || !(v > 0 && v <= 600))
			return -1;
		*seconds = v;
	}
	return argc > 3 ? -1 : 0;
}

int main(int argc, char **argv)
{
	unsigned nworkers = 4;
	double seconds = 2.0;
	static struct worker workers[MAX_WORKERS];

	if (parse_args(argc, argv, &nworkers, &seconds) != 0) {
		fprintf(stderr, "usage: %s [workers 1-%d] [seconds]\n", argv[0], MAX_WORKERS);
		return 2;
	}

	/* Configure llog at start-up, as a real service would: everything is
	 * captured in a compressed file that rotates at 64 MiB and keeps 5
	 * old files; the console only shows what an operator must see. */
	struct llog_config cfg = {
		.level = LLOG_TRACE,
		.overflow = LLOG_OVERFLOW_BLOCK, /* never lose a record */
	};
	char path[512];
	const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	snprintf(path, sizeof(path), "%s/llog-demo-service.log.zst", dir);
	unlink(path); /* the demo starts a fresh file each run */
	struct llog_file_options file = {
		.path = path, .max_bytes = 64u << 20, .max_files = 5,
	};
	struct llog_sink *fs = llog_file_sink(&file);
	if (fs == NULL) {
		fprintf(stderr, "service: %s\n", llog_file_sink_error());
		return 1;
	}
	struct llog_console_options console = {.fd = 2, .level = LLOG_WARN};
	int rc = llog_add_sink(fs);
	if (rc == 0)
		rc = llog_add_sink(llog_console_sink(&console));
	if (rc == 0)
		rc = llog_init(&cfg);
	if (rc != 0) {
		fprintf(stderr, "service: cannot start llog: %s\n", llog_strerror(rc));
		return 1;
	}

	printf("service: %u workers for %.1f s; the console shows WARN and above\n",
	       nworkers, seconds);
	fflush(stdout);
	LOG_INFO("service starting: %u workers, listening on 0.0.0.0:8080", nworkers);

	double t0 = now_s();
	unsigned started = 0;
	for (; started < nworkers; started++) {
		struct worker *w = &workers[started];
		w->id = started;
		w->rng = 0x9E3779B97F4A7C15ULL * (started + 1);
		w->deadline = t0 + seconds;
		if (pthread_create(&w->thread, NULL, worker_main, w) != 0) {
			LOG_ERROR("service: cannot start worker %u", started);
			break;
		}
	}
	unsigned long requests = 0, slow = 0, failed = 0;
	for (unsigned i = 0; i < started; i++) {
		pthread_join(workers[i].thread, NULL);
		requests += workers[i].requests;
		slow += workers[i].slow;
		failed += workers[i].failed;
	}
	double elapsed = now_s() - t0;
	LOG_INFO("service stopping: %lu requests in %.2f s", requests, elapsed);

	llog_shutdown(); /* drains and writes everything still pending */

	struct llog_stats st;
	llog_get_stats(&st);
	printf("service: %lu requests in %.2f s (%lu slow, %lu failed) on %u workers\n",
	       requests, elapsed, slow, failed, started);
	printf("llog:    %llu records logged, %llu written, %llu dropped, %llu truncated\n",
	       (unsigned long long)st.logged, (unsigned long long)st.written,
	       (unsigned long long)st.dropped, (unsigned long long)st.truncated);
	printf("llog:    %.0f records/s, %llu flusher batches, %llu bytes written, "
	       "%llu waits for arena space, %llu write errors\n",
	       elapsed > 0 ? (double)st.logged / elapsed : 0.0,
	       (unsigned long long)st.batches, (unsigned long long)st.bytes_written,
	       (unsigned long long)st.blocked, (unsigned long long)st.write_errors);

	struct stat sb;
	if (stat(path, &sb) == 0)
		printf("llog:    %s: %lld bytes, %.1f bytes per record "
		       "(read it with zstdcat or llogcat)\n",
		       path, (long long)sb.st_size,
		       st.written ? (double)sb.st_size / (double)st.written : 0.0);

	if (started != nworkers || st.logged == 0 || st.written != st.logged ||
	    st.dropped != 0) {
		fprintf(stderr, "service: FAILED: every record logged must be written, none "
				"dropped, and every worker must run\n");
		return 1;
	}
	printf("service: ok: every record logged was written, none dropped\n");
	return 0;
}
