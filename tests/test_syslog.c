/*
 * test_syslog.c - the syslog sink against a real rsyslogd (Debian package
 * 'rsyslog'), started by each test in the foreground on 127.0.0.1 with the
 * configuration tests/syslog/rsyslog.conf.in (path in $LLOG_SYSLOG_CONF)
 * and killed by the test's teardown (and by PR_SET_PDEATHSIG should the
 * test die). From the file rsyslog writes, every record arrives exactly
 * once and in order with the right PRI, app-name, procid, msgid,
 * structured data and message, over TCP, UDP (paced on loopback) and a
 * unix datagram socket; a message with an embedded newline is one record;
 * with no collector the application is not blocked and every record is
 * counted lost; after a kill -9 and restart of rsyslog the sink reconnects
 * by itself, says so in the stream, and what arrives stays in order
 * without duplicates; killed while nothing is in flight with a small
 * buffer, the records missing are exactly those reported dropped (stats
 * and the notices in the stream). Over RELP (rsyslog's imrelp) 20,000
 * records arrive exactly once, and 100,000 all arrive in order when
 * rsyslog is stopped in the middle of the stream and started again (once
 * each, but for one resent run of at most the 128 in flight: those rsyslog
 * processed before it stopped but never acknowledged); against a small RELP
 * server of the test's own that stops acknowledging, nothing is sent twice
 * and what is missing is exactly what is reported dropped. A fork child
 * sends its records on its own connection with its own pid. Bad URLs and
 * unknown hosts are refused. UDP to a closed port (no rsyslogd): every
 * refused datagram is counted in sink_lost.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdatomic.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "llog.h"
#include "llog/sinks.h"
#include "rsyslogd_proc.h"
#include "sanitizer.h"
#include "testutil.h"

#define APP "llogt"

static struct rsyslogd rs;

static void rs_start(void)
{
	if (rsyslogd_start(&rs) != 0)
		fail_msg("%s", rs.why);
}

static void rs_kill(void)
{
	rsyslogd_stop(&rs, SIGKILL);
}

static int setup(void **state)
{
	(void)state;
	return rsyslogd_init(&rs, "llog_syslog");
}

static int teardown(void **state)
{
	(void)state;
	rs_kill();
	llog_shutdown();
	return rsyslogd_remove(&rs);
}

/* rsyslogd on tests/syslog/rsyslog.conf.in (path in $LLOG_SYSLOG_CONF). */
static void with_rsyslog(void)
{
	const char *tpl = getenv("LLOG_SYSLOG_CONF");

	assert_non_null(tpl);
	if (rsyslogd_configure(&rs, tpl, APP) != 0)
		fail_msg("%s", rs.why);
	rs_start();
}

static unsigned timeout_ms = 500; /* of the next start_llog */

static void start_llog(const char *url, size_t buffer_bytes)
{
	struct llog_syslog_options o = {.url = url, .app_name = APP,
					.hostname = "testhost", .facility = LLOG_FAC_LOCAL3,
					.buffer_bytes = buffer_bytes, .timeout_ms = timeout_ms};
	struct llog_config cfg = {.flush_interval_ms = 10};
	struct llog_sink *s = llog_syslog_sink(&o);

	if (s == NULL)
		fail_msg("%s", llog_syslog_sink_error());
	assert_int_equal(llog_add_sink(s), 0);
	assert_int_equal(llog_init(&cfg), 0);
}

static void wait_lines(long n)
{
	int64_t deadline = now_ms() + 30000;
	char path[128];
	long got;

	snprintf(path, sizeof(path), "%s/out.log", rs.dir);
	while ((got = file_lines(path)) < n) {
		if (now_ms() > deadline)
			fail_msg("rsyslog wrote %ld of %ld records within 30 s", got, n);
		sleep_ms(10);
	}
}

static int log_line; /* __LINE__ of the LOG_INFO in log_range */
static uint64_t my_tid;

static void on_entry(void *user, const struct llog_entry *e)
{
	(void)user;
	(void)e;
}

/* Logs "rec i=I" for i in [first, first+n), a commit every `every`. */
static void log_range(long first, long n, long every)
{
	for (long i = first; i < first + n; i++) {
		log_line = __LINE__ + 1;
		LOG_INFO("rec i=%ld", i);
		if (every > 0 && (i + 1) % every == 0)
			llog_flush();
	}
}

/* The kernel thread id llog reports for this thread (from a callback
 * sink's entry is overkill: gettid is what llog uses). */
static uint64_t tid_now(void)
{
	return (uint64_t)gettid();
}

/* How check_file takes the records: strictly increasing (gaps allowed),
 * every record once, or every record at least once in order of first
 * arrival with one run resent (a RELP collector restart: the messages it
 * had processed whose acknowledgement never reached llog arrive again, at
 * most the 128 in flight, in order; include/llog/sinks.h). */
enum { SOME = 0, EXACT = 1, EXACT_RESENT = 2 };
#define RELP_IN_FLIGHT 128

/* Reads out.log and checks records 0..n-1 (with `notices` lines of
 * msgid llog allowed) as `exact` says. Returns the number of distinct
 * records seen. */
static long check_file(long n, int exact, long *notices, long tail_from, long *tail)
{
	char path[128], line[1024], want[256];
	FILE *f;
	long next = 0, seen = 0, prev = -1, resent = 0;
	int runs = 0;

	snprintf(path, sizeof(path), "%s/out.log", rs.dir);
	f = fopen(path, "r");
	assert_non_null(f);
	*notices = 0;
	*tail = 0;
	while (fgets(line, sizeof(line), f) != NULL) {
		long i = -1;
		char *msg;
		int hdr;

		if (strstr(line, "|llog|") != NULL) {
			(*notices)++;
			continue;
		}
		msg = strstr(line, "] rec i=");
		if (msg == NULL)
			msg = strstr(line, "]|rec i=");
		if (msg == NULL || sscanf(msg + 8, "%ld", &i) != 1)
			fail_msg("unexpected line: %s", line);
		if (exact == EXACT_RESENT && i < next) {
			/* a resent run: from within the last RELP_IN_FLIGHT
			 * records, consecutive, once */
			if (i != prev + 1 && (++runs > 1 || i < next - RELP_IN_FLIGHT))
				fail_msg("record %ld where %ld was expected (resent run %d)", i,
					 next, runs);
			prev = i;
			resent++;
			continue;
		}
		if (exact ? i != next : i < next)
			fail_msg("record %ld where %ld was expected", i, next);
		prev = i;
		hdr = snprintf(want, sizeof(want),
			       "158|" APP "|%ld|INFO|[llog@32473 file=\"test_syslog.c\" "
			       "line=\"%d\" tid=\"%llu\" func=\"log_range\" level=\"INFO\"]|rec i=%ld\n",
			       (long)getpid(), log_line, (unsigned long long)my_tid, i);
		if (strncmp(line, want, (size_t)hdr) != 0)
			fail_msg("got  %swant %s", line, want);
		next = i + 1;
		seen++;
		*tail += i >= tail_from;
	}
	fclose(f);
	if (resent > 0)
		print_message("%ld records arrived twice (resent after the restart)\n", resent);
	if (exact)
		assert_int_equal(seen, n);
	return seen;
}

/* A round trip's scheme, records and their notices' spacing. */
struct roundtrip_params {
	const char *scheme;
	long n, every;
};

static const struct roundtrip_params over_tcp = {"tcp", 20000, 1000},
				      over_udp = {"udp", 2000, 100},
				      over_unix = {"unix", 5000, 500},
				      over_relp = {"relp", 20000, 1000};

static void test_roundtrip(void **state)
{
	const struct roundtrip_params *p = *state;
	const char *scheme = p->scheme;
	long n = p->n, every = p->every;
	char url[160];
	long notices, tail;

	with_rsyslog();
	if (strcmp(scheme, "unix") == 0)
		snprintf(url, sizeof(url), "unix:%s/log.sock", rs.dir);
	else
		snprintf(url, sizeof(url), "%s://127.0.0.1:%d", scheme,
			 strcmp(scheme, "relp") == 0 ? rs.rport : rs.port);
	start_llog(url, 0);
	my_tid = tid_now();
	log_range(0, n, every);
	llog_shutdown();
	wait_lines(n);
	check_file(n, 1, &notices, 0, &tail);
	assert_int_equal(notices, 0);
}

static void test_framing(void **state)
{
	char url[64], path[128], line[1024];
	FILE *f;

	(void)state;
	with_rsyslog();
	snprintf(url, sizeof(url), "tcp://127.0.0.1:%d", rs.port);
	start_llog(url, 0);
	LOG_INFO("first\n<14>1 2024-01-01T00:00:00Z h " APP " 1 INFO - forged");
	LOG_INFO("second");
	llog_shutdown();
	wait_lines(2);
	snprintf(path, sizeof(path), "%s/out.log", rs.dir);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));
	assert_non_null(strstr(line, "|first#012<14>1 2024-01-01T00:00:00Z h " APP " 1 INFO - forged\n"));
	assert_non_null(fgets(line, sizeof(line), f));
	assert_non_null(strstr(line, "|second\n"));
	assert_null(fgets(line, sizeof(line), f));
	fclose(f);
}

static void test_collector_never_there(void **state)
{
	char url[64];
	struct llog_stats before, after;
	const long n = 50000;

	(void)state;
	llog_get_stats(&before);
	snprintf(url, sizeof(url), "tcp://127.0.0.1:%d", rs.port); /* nobody there */
	start_llog(url, 64 * 1024);
	log_range(0, n, 5000); /* must simply complete: never waits for the network */
	llog_shutdown();
	llog_get_stats(&after);
	/* Nothing was delivered: every record is counted lost, exactly once. */
	assert_int_equal(after.sink_lost - before.sink_lost, (uint64_t)n);
	assert_true(after.write_errors > before.write_errors);
}

static void test_collector_restart(void **state)
{
	char url[64];
	struct llog_stats before, after;
	const long n = 100000, half = n / 2;
	long notices, seen, tail;

	(void)state;
	with_rsyslog();
	snprintf(url, sizeof(url), "tcp://127.0.0.1:%d", rs.port);
	llog_get_stats(&before);
	start_llog(url, 0);
	my_tid = tid_now();
	log_range(0, half, 1000);
	rs_kill();
	log_range(half, 1000, 100); /* meets the dead connection, buffered */
	rs_start();
	log_range(half + 1000, n - half - 1000, 1000);
	llog_shutdown();
	llog_get_stats(&after);
	/* The last record arrives: the sink reconnected by itself. */
	{
		int64_t deadline = now_ms() + 30000;
		char cmd[256];

		snprintf(cmd, sizeof(cmd), "grep -q '|rec i=%ld$' %s/out.log", n - 1, rs.dir);
		while (system(cmd) != 0) {
			if (now_ms() > deadline)
				fail_msg("record %ld never arrived", n - 1);
			sleep_ms(10);
		}
	}
	seen = check_file(n, 0, &notices, n - 1000, &tail);
	assert_true(notices >= 1); /* "connection ... lost" said in the stream */
	/* The newest records are never the ones dropped: all there. */
	assert_int_equal(tail, 1000);
	/* Reported drops are records really missing (the rest of the missing
	 * ones were in flight, most in rsyslog's memory queue, at the kill). */
	assert_true(after.sink_lost - before.sink_lost <= (uint64_t)(n - seen));
	print_message("restart: %ld of %ld records arrived, sink_lost %llu\n", seen, n,
		      (unsigned long long)(after.sink_lost - before.sink_lost));
}

/* Waits until record n-1 is in out.log (rsyslog writes in order). */
static void wait_record(long last)
{
	int64_t deadline = now_ms() + 30000;
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "grep -q '|rec i=%ld$' %s/out.log", last, rs.dir);
	while (system(cmd) != 0) {
		if (now_ms() > deadline)
			fail_msg("record %ld never arrived", last);
		sleep_ms(10);
	}
}

/*
 * Plain TCP, collector killed while nothing is in flight, small buffer:
 * the sink notices the closed connection before writing into it, keeps
 * what it can and drops the oldest beyond the bound; then the records
 * missing from the collector's file are exactly the ones the stats report
 * dropped, and the stream says how many.
 */
static void test_tcp_restart_accounting(void **state)
{
	char url[64], path[128], line[1024];
	struct llog_stats before, after;
	const long a = 5000, b = 5000, c = 5000;
	long notices, seen, tail, said = 0; /* tail: not checked (the sink may
					     * still be backing off when it resumes) */
	FILE *f;

	(void)state;
	with_rsyslog();
	snprintf(url, sizeof(url), "tcp://127.0.0.1:%d", rs.port);
	llog_get_stats(&before);
	start_llog(url, 32 * 1024); /* about 200 messages */
	my_tid = tid_now();
	log_range(0, a, 1000);
	llog_flush();
	wait_lines(a); /* nothing in flight now */
	rs_kill();
	log_range(a, b, 250);
	rs_start();
	log_range(a + b, c, 1000);
	llog_shutdown();
	llog_get_stats(&after);
	wait_record(a + b + c - 1);
	seen = check_file(a + b + c, 0, &notices, a + b, &tail);
	assert_true(after.sink_lost - before.sink_lost > 0);
	assert_int_equal(after.sink_lost - before.sink_lost, (uint64_t)(a + b + c - seen));
	/* The notices in the stream add up to the same number. */
	snprintf(path, sizeof(path), "%s/out.log", rs.dir);
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f) != NULL) {
		const char *m = strstr(line, "llog: ");
		unsigned long long k;

		if (strstr(line, "|llog|") != NULL && m != NULL &&
		    sscanf(m, "llog: %llu messages dropped", &k) == 1)
			said += (long)k;
	}
	fclose(f);
	assert_true(notices >= 1);
	assert_int_equal(said, a + b + c - seen);
	print_message("tcp accounting: %ld of %ld arrived, %ld reported dropped\n", seen,
		      a + b + c, said);
}

struct relp_run {
	long n;
	/* Records logged so far. seq_cst (the default): test code, one writer
	 * and one poller, no ordering subtleties worth a weaker order. */
	_Atomic long done;
};

static void *relp_logger(void *arg)
{
	struct relp_run *r = arg;

	my_tid = tid_now();
	for (long i = 0; i < r->n; i += 1000) {
		log_range(i, 1000, 1000);
		atomic_store(&r->done, i + 1000);
	}
	return NULL;
}

static void wait_progress(struct relp_run *r, long at)
{
	int64_t deadline = now_ms() + 60000;

	while (atomic_load(&r->done) < at) {
		if (now_ms() > deadline)
			fail_msg("the logger did not reach %ld records", at);
		sleep_ms(10);
	}
}

/*
 * RELP, collector stopped in the middle of a stream of 100,000 records and
 * started again: every record arrives exactly once and in order (no
 * notice: nothing was dropped).
 */
static void test_relp_restart(void **state)
{
	struct relp_run run = {.n = 100000};
	struct llog_stats before, after;
	char url[64];
	long notices, tail;
	pthread_t t;

	(void)state;
	with_rsyslog();
	snprintf(url, sizeof(url), "relp://127.0.0.1:%d", rs.rport);
	llog_get_stats(&before);
	timeout_ms = 10000; /* the backlog is sent at close: give it time */
	start_llog(url, 64u << 20);
	timeout_ms = 500;
	assert_int_equal(pthread_create(&t, NULL, relp_logger, &run), 0);
	wait_progress(&run, 30000);
	rsyslogd_stop(&rs, SIGTERM);
	wait_progress(&run, 40000);
	rs_start();
	assert_int_equal(pthread_join(t, NULL), 0);
	llog_shutdown();
	llog_get_stats(&after);
	wait_record(run.n - 1);
	check_file(run.n, EXACT_RESENT, &notices, 0, &tail);
	assert_int_equal(notices, 0);
	assert_int_equal(after.sink_lost - before.sink_lost, 0);
}

/*
 * fork() with a connected TCP sink and records pending: the child's
 * records go out on a connection of its own, with its pid as PROCID; the
 * parent's pending records are sent by the parent only. Every record
 * arrives once, in order, with its process's pid.
 */
static void test_fork_reconnect(void **state)
{
	char url[64], path[128], line[1024];
	long next_rec = 0, next_kid = 0;
	pid_t kid;
	int st;
	FILE *f;

	(void)state;
	/* ThreadSanitizer cannot start threads in the child of a
	 * multi-threaded fork ("dup thread with used id"; its die_after_fork
	 * default says so): this path runs in the release and ASan builds. */
#ifdef TEST_TSAN
	skip();
#endif
	with_rsyslog();
	snprintf(url, sizeof(url), "tcp://127.0.0.1:%d", rs.port);
	start_llog(url, 0);
	log_range(0, 500, 250); /* connected */
	log_range(500, 500, 0);  /* pending at the fork */
	kid = fork();
	assert_true(kid >= 0);
	if (kid == 0) {
		for (long i = 0; i < 1000; i++)
			LOG_INFO("kid i=%ld", i);
		llog_shutdown();
		_exit(0);
	}
	assert_int_equal(waitpid(kid, &st, 0), kid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	log_range(1000, 1000, 250);
	llog_shutdown();
	wait_lines(3000);
	snprintf(path, sizeof(path), "%s/out.log", rs.dir);
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f) != NULL) {
		long pid, i;
		char *m;

		assert_int_equal(sscanf(line, "158|" APP "|%ld|", &pid), 1);
		if ((m = strstr(line, "|rec i=")) != NULL) {
			assert_int_equal(pid, (long)getpid());
			assert_int_equal(sscanf(m, "|rec i=%ld", &i), 1);
			assert_int_equal(i, next_rec++);
		} else if ((m = strstr(line, "|kid i=")) != NULL) {
			assert_int_equal(pid, (long)kid);
			assert_int_equal(sscanf(m, "|kid i=%ld", &i), 1);
			assert_int_equal(i, next_kid++);
		} else {
			fail_msg("unexpected line: %s", line);
		}
	}
	fclose(f);
	assert_int_equal(next_rec, 2000);
	assert_int_equal(next_kid, 1000);
}

/* ---- a RELP collector that stops acknowledging ---------------------------- */

#define FAKE_N 2000

/* A minimal RELP server (one connection at a time) for what rsyslog will
 * not do on demand: stop acknowledging. It answers "open", records every
 * "syslog" frame's "rec i=N" (counts) and the drop notices' numbers, and
 * acknowledges messages only while `acking` (holding the others back, to
 * acknowledge in order once acking is set again). */
static struct fake {
	int lfd, port;
	/* seq_cst (the default): flags polled across the two threads; the
	 * plain fields below are read only after pthread_join. */
	_Atomic int acking, stop, sessions;
	int counts[FAKE_N];
	long notices_said, frames;
	long session_frames[8]; /* syslog frames per session (diagnostics) */
	pthread_t th;
} fk;

static void fake_send(int fd, const char *s)
{
	size_t n = strlen(s);

	while (n > 0) {
		ssize_t w = send(fd, s, n, MSG_NOSIGNAL);

		if (w <= 0)
			return;
		s += w;
		n -= (size_t)w;
	}
}

/* Acknowledges the held messages, in order. */
static void fake_ack_held(int fd, const unsigned *held, int *nheld)
{
	char ack[64];

	for (int i = 0; i < *nheld; i++) {
		snprintf(ack, sizeof(ack), "%u rsp 6 200 OK\n", held[i]);
		fake_send(fd, ack);
	}
	*nheld = 0;
}

static void *fake_main(void *arg)
{
	static char buf[1 << 20];
	unsigned held[4096];
	int nheld = 0, fd = -1;
	size_t len = 0;

	(void)arg;
	while (!atomic_load(&fk.stop)) {
		struct pollfd p = {.fd = fd >= 0 ? fd : fk.lfd, .events = POLLIN};
		char *nl, ack[64];
		ssize_t r;

		if (fd >= 0 && atomic_load(&fk.acking))
			fake_ack_held(fd, held, &nheld);
		if (poll(&p, 1, 10) != 1)
			continue;
		if (fd < 0) {
			fd = accept(fk.lfd, NULL, NULL);
			len = 0;
			nheld = 0;
			atomic_fetch_add(&fk.sessions, 1);
			continue;
		}
		r = recv(fd, buf + len, sizeof(buf) - len, 0);
		if (r <= 0) {
			close(fd);
			fd = -1;
			continue;
		}
		len += (size_t)r;
		/* Complete frames: "TXNR CMD LEN[ DATA]\n" */
		for (;;) {
			unsigned txnr;
			size_t dl;
			char cmd[33];
			int hl;
			char *data;

			if (sscanf(buf, "%u %32s %zu%n", &txnr, cmd, &dl, &hl) != 3)
				break;
			data = buf + hl + (dl > 0);
			if ((size_t)(data - buf) + dl + 1 > len)
				break;
			nl = data + dl;
			assert_int_equal(*nl, '\n');
			if (strcmp(cmd, "open") == 0 || strcmp(cmd, "close") == 0) {
				snprintf(ack, sizeof(ack), "%u rsp 6 200 OK\n", txnr);
				fake_send(fd, ack);
			} else if (strcmp(cmd, "syslog") == 0) {
				char *m = memmem(data, dl, "rec i=", 6), *k;
				long i;

				fk.frames++;
				fk.session_frames[(atomic_load(&fk.sessions) - 1) & 7]++;
				if (m != NULL && sscanf(m, "rec i=%ld", &i) == 1 && i >= 0 && i < FAKE_N)
					fk.counts[i]++;
				k = memmem(data, dl, "llog: ", 6);
				if (k != NULL && sscanf(k, "llog: %ld messages dropped", &i) == 1)
					fk.notices_said += i;
				if (atomic_load(&fk.acking)) {
					/* In order: the held ones first (acking
					 * may have been set since the loop's top). */
					fake_ack_held(fd, held, &nheld);
					snprintf(ack, sizeof(ack), "%u rsp 6 200 OK\n", txnr);
					fake_send(fd, ack);
				} else if (nheld < 4096) {
					held[nheld++] = txnr;
				}
			}
			memmove(buf, nl + 1, len - (size_t)(nl + 1 - buf));
			len -= (size_t)(nl + 1 - buf);
		}
	}
	if (fd >= 0)
		close(fd);
	return NULL;
}

/*
 * The collector stops acknowledging while 2,000 records are logged into a
 * small buffer, then acknowledges again. What was in flight stays in
 * flight (no new session, so nothing is sent twice) and the overflow drops
 * unsent messages only: every record reaches the collector at most once,
 * and the records missing are exactly the ones the stats and the notice
 * in the stream report dropped.
 */
/* One run against the fake collector: host names the sink's hostname,
 * pad the bytes of filler in each message (0: short messages). */
static void relp_stalled_run(const char *host, int pad)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t al = sizeof(a);
	struct llog_stats before, after;
	struct llog_config cfg = {.flush_interval_ms = 10};
	struct llog_syslog_options o = {.app_name = APP "-with-a-longer-app-name",
					.hostname = host, .buffer_bytes = 1, /* the minimum */
					.timeout_ms = 100};
	static char filler[8192];
	struct llog_sink *sk;
	char url[64];
	long got = 0;
	int with_frames = 0;

	memset(filler, 'x', sizeof(filler) - 1);
	filler[pad] = '\0';
	memset(&fk, 0, sizeof(fk));
	fk.lfd = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(fk.lfd >= 0);
	assert_int_equal(bind(fk.lfd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(fk.lfd, 4), 0);
	assert_int_equal(getsockname(fk.lfd, (struct sockaddr *)&a, &al), 0);
	fk.port = ntohs(a.sin_port);
	assert_int_equal(pthread_create(&fk.th, NULL, fake_main, NULL), 0);
	snprintf(url, sizeof(url), "relp://127.0.0.1:%d", fk.port);
	o.url = url;
	llog_get_stats(&before);
	sk = llog_syslog_sink(&o);
	assert_non_null(sk);
	assert_int_equal(llog_add_sink(sk), 0);
	assert_int_equal(llog_init(&cfg), 0);
	for (long i = 0; i < FAKE_N; i++) {
		if (i == FAKE_N / 2)
			atomic_store(&fk.acking, 1); /* the first half: not acknowledged */
		LOG_INFO("rec i=%ld %s", i, filler);
		if ((i + 1) % 100 == 0)
			llog_flush();
	}
	llog_shutdown();
	llog_get_stats(&after);
	atomic_store(&fk.stop, 1);
	assert_int_equal(pthread_join(fk.th, NULL), 0);
	close(fk.lfd);
	for (int i = 0; i < FAKE_N; i++) {
		assert_true(fk.counts[i] <= 1); /* never twice */
		got += fk.counts[i];
	}
	/* One session carried messages: nothing in flight was given up and
	 * sent again. (A session whose "open" was not answered within
	 * timeout_ms, which a loaded machine under TSan can cause, carries
	 * nothing and is not a resend: it is not counted.) */
	for (int i = 0; i < 8 && i < atomic_load(&fk.sessions); i++)
		with_frames += fk.session_frames[i] > 0;
	if (atomic_load(&fk.sessions) != 1)
		print_message("relp stalled: %d sessions; syslog frames in each: %ld %ld %ld\n",
			      atomic_load(&fk.sessions), fk.session_frames[0],
			      fk.session_frames[1], fk.session_frames[2]);
	assert_int_equal(with_frames, 1);
	assert_true(after.sink_lost - before.sink_lost > 0);
	assert_int_equal(after.sink_lost - before.sink_lost, (uint64_t)(FAKE_N - got));
	assert_int_equal(fk.notices_said, FAKE_N - got);
	print_message("relp stalled (host %zu bytes, pad %d): %ld of %d arrived once, "
		      "%ld reported dropped\n", strlen(host), pad, got, FAKE_N, fk.notices_said);
}

static void test_relp_stalled_collector(void **state)
{
	static const char long_host[] = "a-rather-long-pod-name-7f9c8d6b5-x2k4q.cluster.internal."
					"example.org";

	(void)state;
	relp_stalled_run("testhost", 0);
	relp_stalled_run(long_host, 4000); /* notices and 4 KB messages near the bound */
}

/*
 * A collector that accepts the connection (the kernel completes it in the
 * backlog) and never reads: the syslog sink runs on a thread of its own
 * (its default), so an inline callback sink gets every record at once
 * while the syslog sink's queue fills and drops. Then the collector
 * starts reading: what arrives, plus the counts in the notices that
 * arrive with it, is exactly every record; the queue's notices sum to
 * the queue's drop counter and the sink's own notices to sink_lost.
 */
#define STALL_N 100000L

static long stall_cb_records, stall_cb_bad;

static void stall_on_entry(void *user, const struct llog_entry *e)
{
	char m[64];
	long i;

	(void)user;
	copy_cut(m, sizeof(m), e->msg, e->msg_len);
	if (sscanf(m, "rec i=%ld", &i) == 1 && i == stall_cb_records)
		stall_cb_records++;
	else
		stall_cb_bad++;
}

struct stall_reader {
	int lfd;
	char *buf;
	size_t n, cap;
};

static void *stall_read(void *arg)
{
	struct stall_reader *r = arg;
	int fd = accept(r->lfd, NULL, NULL);
	ssize_t k;

	if (fd < 0)
		return NULL;
	for (;;) {
		if (r->cap - r->n < 65536) {
			r->cap *= 2;
			r->buf = realloc(r->buf, r->cap);
			if (r->buf == NULL)
				abort();
		}
		k = read(fd, r->buf + r->n, r->cap - r->n - 1);
		if (k <= 0)
			break;
		r->n += (size_t)k;
	}
	r->buf[r->n] = '\0';
	close(fd);
	return NULL;
}

/* Sums the counts in "<before>N<after>" over the stream. */
static uint64_t sum_notices(const char *p, const char *before, const char *after, long *count)
{
	uint64_t sum = 0;
	size_t bl = strlen(before);

	*count = 0;
	while ((p = strstr(p, before)) != NULL) {
		char *end;
		unsigned long long v = strtoull(p + bl, &end, 10);

		if (end != p + bl && strncmp(end, after, strlen(after)) == 0) {
			sum += v;
			(*count)++;
		}
		p += bl;
	}
	return sum;
}

static void test_stalled_collector_stalls_nothing(void **state)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t al = sizeof(a);
	int lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	char url[96];
	struct llog_syslog_options o = {.url = url, .app_name = APP, .hostname = "testhost",
					.facility = LLOG_FAC_LOCAL3, .timeout_ms = 200};
	struct llog_callback_options co = {.on_entry = stall_on_entry};
	struct llog_sink_options qo = {.queue_bytes = 256 * 1024, .name = "stalled"};
	struct llog_config cfg = {.flush_interval_ms = 10};
	struct llog_sink *sys, *cb;
	struct llog_sink_stats ss;
	struct llog_stats before, after;
	struct stall_reader rd = {.cap = 1 << 20};
	pthread_t reader;
	long got = 0, next = 0, qn, sn;
	uint64_t qsum, ssum;
	char *notices = NULL;
	size_t nlen = 0;
	const char *p;

	(void)state;
	/* A small receive buffer: the kernel's buffers fill early. */
	setsockopt(lfd, SOL_SOCKET, SO_RCVBUF, &(int){4096}, sizeof(int));
	assert_int_equal(bind(lfd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(getsockname(lfd, (struct sockaddr *)&a, &al), 0);
	assert_int_equal(listen(lfd, 4), 0);
	snprintf(url, sizeof(url), "tcp://127.0.0.1:%d", ntohs(a.sin_port));
	sys = llog_syslog_sink(&o);
	if (sys == NULL)
		fail_msg("%s", llog_syslog_sink_error());
	cb = llog_callback_sink(&co);
	assert_non_null(cb);
	stall_cb_records = stall_cb_bad = 0;
	assert_int_equal(llog_add_sink_opts(sys, &qo), 0);
	assert_int_equal(llog_add_sink(cb), 0);
	assert_int_equal(llog_init(&cfg), 0);
	llog_get_stats(&before);
	for (long i = 0; i < STALL_N; i++)
		LOG_INFO("rec i=%ld", i);
	llog_flush();
	/* The inline sink has everything while the collector still reads
	 * nothing, and the stalled sink's queue has dropped. */
	assert_int_equal(stall_cb_records, STALL_N);
	assert_int_equal(stall_cb_bad, 0);
	assert_int_equal(llog_get_sink_stats(sys, &ss), 0);
	assert_true(ss.dropped > 0);
	assert_true(ss.queued + ss.dropped >= (uint64_t)STALL_N);

	rd.lfd = lfd;
	rd.buf = malloc(rd.cap);
	assert_non_null(rd.buf);
	assert_int_equal(pthread_create(&reader, NULL, stall_read, &rd), 0);
	/* A record after the stall, so that the notices of what was
	 * dropped have an entry to precede. */
	LOG_INFO("rec i=%ld", STALL_N);
	llog_flush();
	assert_int_equal(llog_get_sink_stats(sys, &ss), 0);
	llog_get_stats(&after);
	llog_shutdown();
	pthread_join(reader, NULL);
	close(lfd);

	/* Octet-counted frames (RFC 6587 3.4.1): "LEN SP MSG"; each MSG is
	 * copied out NUL-terminated so that nothing is parsed across two. */
	for (p = rd.buf; p < rd.buf + rd.n;) {
		char *end, *msg;
		unsigned long len = strtoul(p, &end, 10);

		if (end == p || *end != ' ' || len > (size_t)(rd.buf + rd.n - end - 1))
			fail_msg("bad frame at byte %zu", (size_t)(p - rd.buf));
		msg = strndup(end + 1, len);
		assert_non_null(msg);
		p = end + 1 + len;
		if ((end = strstr(msg, "] rec i=")) != NULL) {
			long i = strtol(end + 8, NULL, 10);

			if (i < next)
				fail_msg("record %ld after %ld", i, next - 1);
			next = i + 1;
			got++;
		} else if (strstr(msg, " llog: ") != NULL) {
			notices = realloc(notices, nlen + len + 2);
			assert_non_null(notices);
			memcpy(notices + nlen, msg, len);
			nlen += len;
			notices[nlen++] = '\n';
			notices[nlen] = '\0';
		} else {
			fail_msg("unexpected message: %s", msg);
		}
		free(msg);
	}
	assert_non_null(notices);
	qsum = sum_notices(notices, "llog: ", " records dropped: sink stalled's queue was full", &qn);
	ssum = sum_notices(notices, "llog: ", " messages dropped (buffer full)", &sn);
	print_message("stalled collector: %ld of %ld records arrived; queue notices %ld (%llu), "
		      "sink notices %ld (%llu)\n", got, STALL_N + 1, qn, (unsigned long long)qsum,
		      sn, (unsigned long long)ssum);
	assert_true(qn > 0);
	assert_int_equal(qsum, ss.dropped);
	assert_int_equal(qsum, after.queue_dropped - before.queue_dropped);
	assert_int_equal(ssum, after.sink_lost - before.sink_lost);
	assert_int_equal((uint64_t)got + qsum + ssum, (uint64_t)STALL_N + 1);
	free(notices);
	free(rd.buf);
}

/*
 * Messages longer than the sink can carry are cut, marked and counted
 * once: over UDP at max_udp_bytes, over TCP at the sink's 16 KiB bound at
 * a UTF-8 character boundary; shorter ones arrive whole and uncounted.
 */
static void test_long_messages_cut_marked_counted(void **state)
{
	struct sockaddr_in ua = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	struct sockaddr_in ta = ua;
	socklen_t l = sizeof(ua);
	int ufd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	char uurl[64], turl[64], dg[4096];
	struct llog_syslog_options uo = {.url = uurl, .app_name = APP, .hostname = "testhost"};
	struct llog_syslog_options to = {.url = turl, .app_name = APP, .hostname = "testhost"};
	struct llog_config cfg = {.flush_interval_ms = 10, .max_record_bytes = 65536};
	struct llog_stats before, after;
	struct stall_reader rd = {.cap = 1 << 20};
	static char ascii[3001], utf8[20001];
	pthread_t reader;
	struct timeval tv = {5, 0};
	const char *mark = "...[truncated]", *msg, *end;
	ssize_t k;
	size_t frame_len, i;

	(void)state;
	memset(ascii, 'a', sizeof(ascii) - 1);
	for (i = 0; i + 1 < sizeof(utf8); i += 2)
		memcpy(utf8 + i, "\xc3\xa9", 2); /* U+00E9, 10,000 times */
	assert_int_equal(bind(ufd, (struct sockaddr *)&ua, sizeof(ua)), 0);
	assert_int_equal(getsockname(ufd, (struct sockaddr *)&ua, &l), 0);
	setsockopt(ufd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	l = sizeof(ta);
	assert_int_equal(bind(lfd, (struct sockaddr *)&ta, sizeof(ta)), 0);
	assert_int_equal(getsockname(lfd, (struct sockaddr *)&ta, &l), 0);
	assert_int_equal(listen(lfd, 4), 0);
	rd.lfd = lfd;
	rd.buf = malloc(rd.cap);
	assert_non_null(rd.buf);
	assert_int_equal(pthread_create(&reader, NULL, stall_read, &rd), 0);
	snprintf(uurl, sizeof(uurl), "udp://127.0.0.1:%d", ntohs(ua.sin_port));
	snprintf(turl, sizeof(turl), "tcp://127.0.0.1:%d", ntohs(ta.sin_port));
	uo.level = LLOG_WARN; /* the UDP sink takes the WARN records only */
	to.level = LLOG_INFO;
	assert_int_equal(llog_add_sink(llog_syslog_sink(&uo)), 0);
	assert_int_equal(llog_add_sink(llog_syslog_sink(&to)), 0);
	assert_int_equal(llog_init(&cfg), 0);
	llog_get_stats(&before);
	LOG_WARN("%s", ascii + 2000);  /* 1000 bytes: whole over UDP */
	LOG_WARN("%sEND", ascii);      /* 3003 bytes: cut to 2048 over UDP */
	LOG_INFO("%sEND", utf8);       /* 20003 bytes: cut to 16 KiB over TCP */
	llog_flush();
	llog_shutdown();
	llog_get_stats(&after);
	pthread_join(reader, NULL);
	close(lfd);

	/* UDP: the whole one, then the cut one. */
	k = recv(ufd, dg, sizeof(dg), 0);
	assert_true(k > 1000);
	assert_non_null(memmem(dg, (size_t)k, ascii + 2000, 1000));
	assert_null(memmem(dg, (size_t)k, mark, strlen(mark)));
	k = recv(ufd, dg, sizeof(dg), 0);
	assert_int_equal(k, 2048);
	assert_memory_equal(dg + k - strlen(mark), mark, strlen(mark));
	assert_null(memmem(dg, (size_t)k, "END", 3));
	close(ufd);
	/* TCP: the two WARN records whole (both under 16 KiB), the last cut
	 * at a character boundary, marked. */
	for (msg = rd.buf; msg < rd.buf + rd.n; msg = end + frame_len) {
		frame_len = strtoul(msg, (char **)&end, 10);
		assert_true(end > msg && *end == ' ');
		end++;
		assert_true(frame_len <= (size_t)(rd.buf + rd.n - end));
		if (memmem(end, frame_len, "\xc3\xa9\xc3\xa9", 4) == NULL)
			continue;
		assert_true(frame_len <= 16 * 1024);
		assert_memory_equal(end + frame_len - strlen(mark), mark, strlen(mark));
		/* The kept text is whole characters: an even count of bytes
		 * of U+00E9 before the mark. */
		{
			const char *p = (const char *)memmem(end, frame_len, "] ", 2) + 2;
			size_t body = (size_t)(end + frame_len - strlen(mark) - p);

			assert_true(body % 2 == 0);
			assert_memory_equal(p, utf8, body);
		}
		break;
	}
	assert_true(msg < rd.buf + rd.n);
	/* Cut by the sinks, not by llog's renderer (max_record_bytes). */
	assert_int_equal(after.truncated - before.truncated, 0);
	assert_int_equal(after.sink_truncated - before.sink_truncated, 2);
	free(rd.buf);
}

/*
 * truncated counts a record llog cut once, whatever the sinks do after;
 * sink_truncated counts each sink's cut of an entry once, even when the
 * sink cuts it twice (its 16 KiB bound, then the datagram's). Two UDP
 * sinks, max_udp_bytes 2048: a record past max_record_bytes (cut by llog,
 * then by each sink) and one under it but past 16 KiB (cut by each sink
 * at both bounds).
 */
static void test_truncated_counts_once(void **state)
{
	struct sockaddr_in ua = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t l = sizeof(ua);
	int ufd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	char uurl[64];
	struct llog_syslog_options uo = {.url = uurl, .app_name = APP, .hostname = "testhost",
					 .max_udp_bytes = 2048};
	struct llog_config cfg = {.max_record_bytes = 32768};
	struct llog_stats before, after;
	static char big[40001], mid[20001];

	(void)state;
	memset(big, 'b', sizeof(big) - 1);
	memset(mid, 'm', sizeof(mid) - 1);
	assert_true(ufd >= 0);
	assert_int_equal(bind(ufd, (struct sockaddr *)&ua, sizeof(ua)), 0);
	assert_int_equal(getsockname(ufd, (struct sockaddr *)&ua, &l), 0);
	snprintf(uurl, sizeof(uurl), "udp://127.0.0.1:%d", ntohs(ua.sin_port));
	assert_int_equal(llog_add_sink(llog_syslog_sink(&uo)), 0);
	assert_int_equal(llog_add_sink(llog_syslog_sink(&uo)), 0);
	assert_int_equal(llog_init(&cfg), 0);
	llog_get_stats(&before);
	LOG_INFO("%s", big); /* 40000 bytes: cut by llog to 32 KiB */
	LOG_INFO("%s", mid); /* 20000 bytes: whole to the sinks */
	LOG_INFO("short");
	llog_shutdown();
	llog_get_stats(&after);
	close(ufd);
	assert_int_equal(after.truncated - before.truncated, 1);
	assert_int_equal(after.sink_truncated - before.sink_truncated, 4);
	assert_int_equal(after.logged - before.logged, 3);
	assert_int_equal(after.logged, after.written + after.dropped);
}

static void test_bad_urls(void **state)
{
	static const char *const bad[] = {"http://x:1", "tcp://", "tcp://h:0", "tcp://h:99999",
					  "udp://[::1", "unix:", "tcp://h:12x",
					  "tcp://no-such-host.invalid:514"};
	struct llog_syslog_options o = {0};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		o.url = bad[i];
		assert_null(llog_syslog_sink(&o));
		assert_true(errno == EINVAL || errno == EHOSTUNREACH);
		assert_non_null(strstr(llog_syslog_sink_error(), bad[i]));
	}
	o.url = "udp://[::1]:514";
	{
		struct llog_sink *s = llog_syslog_sink(&o);

		assert_non_null(s);
		assert_string_equal(llog_syslog_sink_error(), "");
		llog_sink_destroy(s);
	}
	(void)on_entry;
}

/* ---- a UDP collector that refuses --------------------------------------- */

/*
 * Every datagram sent to a closed port is answered by an ICMP port
 * unreachable (on loopback, never rate-limited); each is a lost record and
 * counted once in sink_lost, with the error in write_errors. The sink
 * reads its socket's error queue at refused sends, commits that send and
 * close; on loopback the ICMP error is made within the sending system
 * call, so by llog_shutdown every one has arrived. Exactly the number of
 * records, never more.
 */
static void test_udp_refused_counted(void **state)
{
	struct llog_syslog_options so = {0};
	struct llog_config cfg = {.flush_interval_ms = 5};
	struct llog_stats before, now;
	char url[64];
	const int n = 50;
	int port;

	(void)state;
	port = free_udp_port();
	assert_true(port > 0);
	snprintf(url, sizeof(url), "udp://127.0.0.1:%d", port);
	so.url = url;
	assert_int_equal(llog_add_sink(llog_syslog_sink(&so)), 0);
	assert_int_equal(llog_init(&cfg), 0);
	llog_get_stats(&before);
	for (int i = 0; i < n; i++) {
		LOG_INFO("refused %d", i);
		if (i % 10 == 9)
			llog_flush(); /* several commits, several datagrams each */
	}
	llog_shutdown();
	llog_get_stats(&now);
	assert_int_equal(now.sink_lost - before.sink_lost, n);
	assert_true(now.write_errors > before.write_errors);
	assert_int_equal(now.written - before.written, n);
}

/* Each case with an rsyslogd directory of its own (setup, teardown). */
#define WITH_RSYSLOGD(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		WITH_RSYSLOGD(test_bad_urls),
		TEST_CASE_ARG_SETUP_TEARDOWN(test_tcp, test_roundtrip, setup, teardown, &over_tcp),
		TEST_CASE_ARG_SETUP_TEARDOWN(test_udp, test_roundtrip, setup, teardown, &over_udp),
		TEST_CASE_ARG_SETUP_TEARDOWN(test_unix, test_roundtrip, setup, teardown, &over_unix),
		TEST_CASE_ARG_SETUP_TEARDOWN(test_relp, test_roundtrip, setup, teardown, &over_relp),
		WITH_RSYSLOGD(test_framing),
		WITH_RSYSLOGD(test_collector_never_there),
		WITH_RSYSLOGD(test_collector_restart),
		WITH_RSYSLOGD(test_tcp_restart_accounting),
		WITH_RSYSLOGD(test_relp_restart),
		WITH_RSYSLOGD(test_fork_reconnect),
		WITH_RSYSLOGD(test_relp_stalled_collector),
		WITH_RSYSLOGD(test_stalled_collector_stalls_nothing),
		WITH_RSYSLOGD(test_long_messages_cut_marked_counted),
		cmocka_unit_test(test_udp_refused_counted),
		cmocka_unit_test(test_truncated_counts_once),
	};

	if (getenv("LLOG_TEST_FILTER") != NULL) /* e.g. "test_relp*" */
		cmocka_set_test_filter(getenv("LLOG_TEST_FILTER"));
	return cmocka_run_group_tests(tests, NULL, NULL);
}
