/*
 * relp_logger.c - the service of tests/test_deploy.sh: logs "rec i=N" for
 * N = 0, 1, 2, ... through a syslog sink over RELP, paced (a flush and a
 * 2 ms pause every 20 records, about 10,000 records a second), until it
 * has logged at least MIN records and got SIGUSR1. Then it shuts llog
 * down (which waits, up to the sink's timeout, for every message to be
 * acknowledged), prints the number of records logged on stdout and exits
 * 0 unless a message was lost (llog_stats.sink_lost, dropped or
 * queue_dropped nonzero).
 *
 *   relp_logger URL MIN
 */
#define _POSIX_C_SOURCE 200809L

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <llog.h>
#include <llog/sinks.h>

static volatile sig_atomic_t stop_asked;

static void on_usr1(int sig)
{
	(void)sig;
	stop_asked = 1;
}

int main(int argc, char **argv)
{
	struct llog_syslog_options o = {.app_name = "llog-deploy", .hostname = "deployhost",
					.facility = LLOG_FAC_LOCAL0,
					.buffer_bytes = 64u << 20, .timeout_ms = 20000};
	struct llog_config cfg = {.flush_interval_ms = 10};
	struct sigaction sa = {.sa_handler = on_usr1};
	struct timespec pause = {0, 2 * 1000 * 1000};
	struct llog_sink *s;
	struct llog_stats st;
	long min, n = 0;

	if (argc != 3) {
		fprintf(stderr, "usage: relp_logger URL MIN\n");
		return 2;
	}
	o.url = argv[1];
	min = strtol(argv[2], NULL, 10);
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGUSR1, &sa, NULL) != 0)
		return 2;
	if ((s = llog_syslog_sink(&o)) == NULL) {
		fprintf(stderr, "relp_logger: %s\n", llog_syslog_sink_error());
		return 2;
	}
	if (llog_add_sink(s) != 0 || llog_init(&cfg) != 0)
		return 2;
	/* Record i: i % 3 == 0 INFO, default category; 1 WARN, category
	 * db.pool; 2 ERROR with the fields user=alice and n=i. */
	while (n < min || !stop_asked) {
		if (n % 3 == 0)
			LOG_INFO("rec i=%ld", n);
		else if (n % 3 == 1)
			LOG_WARN_CAT("db.pool", "rec i=%ld", n);
		else
			LOG_ERROR_KV(("user", "alice", "n", n), "rec i=%ld", n);
		if (++n % 20 == 0) {
			llog_flush();
			nanosleep(&pause, NULL);
		}
	}
	llog_shutdown();
	llog_get_stats(&st);
	printf("%ld\n", n);
	if (st.sink_lost != 0 || st.dropped != 0 || st.queue_dropped != 0) {
		fprintf(stderr, "relp_logger: %llu lost by the sink, %llu dropped, %llu dropped "
			"by the sink's queue\n", (unsigned long long)st.sink_lost,
			(unsigned long long)st.dropped, (unsigned long long)st.queue_dropped);
		return 1;
	}
	return 0;
}
