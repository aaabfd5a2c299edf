/*
 * soak_service.c - a service-shaped program for the soak (tests/soak/
 * README.md): worker threads log numbered records to a file sink on a
 * small file system, the console (stderr, a pipe the driver stalls), a
 * syslog collector and journald, with a levels file the driver replaces
 * and a child forked now and then; at the end it checks llog's counters
 * and every record.
 *
 *   soak_service --dir DIR --logdir LOGDIR [--threads N] [--rate R]
 *                [--pad BYTES] [--syslog URL] [--journald SOCKET]
 *                [--levels FILE] [--fork-ms MS] [--seconds S]
 *                [--overflow block|drop]
 *   soak_service --check-console FILE
 *   soak_service --free-ports | --make-socket PATH
 *
 * The last two are the driver's helpers: two free TCP ports on 127.0.0.1
 * (for rsyslogd), and a unix socket file left at PATH (an odd levels
 * file). Runs until SIGTERM (or S seconds). Prints a summary on stdout; exits 0
 * when every identity holds and every record is accounted for, 1 with a
 * line per violation ("VIOLATION: ...") otherwise, 2 on a bad command
 * line or a set-up that failed.
 *
 * DESIGN
 * Records: worker T's record S has the message "soak w=T s=S ..." (S from
 * 0, one more per call), at INFO or WARN in the categories "soak",
 * "soak.a" and "soak.b", some with fields (LOG_INFO_KV) and every one with
 * the thread's context field "worker". The driver's levels specs never
 * raise those categories above INFO, so every call is logged (counted in
 * calls[T]); only "noise" (DEBUG, not numbered) comes and goes with them.
 *
 * Accounting (soak_check.c): every sink is wrapped
 * (soak_tag.c), so that llog_stats.sink_lost is known per sink and the
 * entries handed to the file sink are counted. The file sink writes to
 * LOGDIR/soak.log.zst, rotating at 256 KiB; a thread moves the rotated
 * files out of LOGDIR into DIR/archive as a log shipper would, so a small
 * file system holds any length of run. At the end every file is read:
 *   lines in the files == entries handed to the file sink - its sink_lost
 *   per thread: records in order, none twice; calls == handed + dropped
 * A fork child logs to LOGDIR/child-PID.log.zst through sinks of its own
 * and checks the same of itself before it exits (child_main).
 */
#define _GNU_SOURCE
#define LLOG_CATEGORY "soak"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <llog.h>
#include <llog/sinks.h>

#include "soak.h"
#include "testutil.h"

#define CHILD_RECORDS 300
#define CHILD_DEADLINE_MS 30000

struct opts {
	const char *dir, *logdir, *syslog, *journald, *levels, *check_console, *make_socket;
	int free_ports;
	int threads, pad, drop;
	long rate, fork_ms, seconds;
};

static struct opts o = {.threads = 4, .pad = 120, .rate = 2000, .fork_ms = 1000};
static atomic_int stop;
static _Atomic uint64_t calls[SOAK_MAX_THREADS];
static struct soak_seen file_seen;

/* What the forker and the archiver did. */
static _Atomic uint64_t forks, child_ok, child_skipped, child_failed, archived, archive_errors;
static _Atomic int64_t fork_max_ms, fork_total_ms; /* time fork() took in the parent */

static int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void nap_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/* ---- workers --------------------------------------------------------------- */

/* Padding: a slice of a fixed text, so that lines are long-ish and
 * compress as log lines do. */
static const char pad_text[] =
	"GET /api/v1/items?page=17&sort=desc 200 OK user=alice agent=curl/8.1 "
	"upstream=10.1.2.3:8080 cache=miss bytes=5123 region=eu-west-1 trace=4bf92f3577b34da6 "
	"POST /api/v1/orders 201 Created user=bob agent=python-requests/2.31 "
	"upstream=10.1.2.4:8080 cache=bypass bytes=812 region=us-east-2 trace=00f067aa0ba902b7 ";

static void log_one(int id, uint64_t s)
{
	int n = o.pad;
	const char *p = pad_text + (s * 7) % 64;

	switch (s & 3) {
	case 0:
		LOG_INFO_CAT("soak.a", "soak w=%d s=%" PRIu64 " %.*s", id, s, n, p);
		break;
	case 1:
		LOG_INFO_KV(("seq", s, "even", (_Bool)((s & 2) == 0)),
			    "soak w=%d s=%" PRIu64 " kv %.*s", id, s, n, p);
		break;
	case 2:
		LOG_WARN_CAT("soak.b", "soak w=%d s=%" PRIu64 " %.*s", id, s, n, p);
		break;
	default:
		LOG_INFO("soak w=%d s=%" PRIu64 " %.*s", id, s, n, p);
		break;
	}
}

static void *worker(void *arg)
{
	int id = (int)(intptr_t)arg;
	char name[16];
	int64_t start = mono_ms();

	snprintf(name, sizeof(name), "soak-w%d", id);
	llog_set_thread_name(name);
	llog_ctx_set_i64("worker", id);
	for (uint64_t s = 0; !atomic_load_explicit(&stop, memory_order_relaxed); s++) {
		log_one(id, s);
		/* Relaxed: read after the join. */
		atomic_store_explicit(&calls[id], s + 1, memory_order_relaxed);
		if (!o.drop && (s & 15) == 0)
			LOG_DEBUG_CAT("noise", "noise from %d at %" PRIu64, id, s);
		if (o.rate > 0) {
			/* Paced: record s is due at start + s / rate. */
			int64_t due = start + (int64_t)((s + 1) * 1000 / (uint64_t)o.rate);
			int64_t now = mono_ms();

			if (due > now)
				nap_ms(due - now);
		}
	}
	return NULL;
}

/* ---- the fork child ---------------------------------------------------------- */

/* Appends one line to DIR/child-errors.txt (not stderr: its reader may be
 * stopped). */
static void child_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void child_say(const char *fmt, ...)
{
	char path[4096], line[1024];
	int n, fd;
	va_list ap;

	n = snprintf(line, sizeof(line), "child %ld: ", (long)getpid());
	va_start(ap, fmt);
	n += vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(line) - 2)
		n = (int)sizeof(line) - 2;
	line[n++] = '\n';
	snprintf(path, sizeof(path), "%s/child-errors.txt", o.dir);
	if ((fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644)) >= 0) {
		(void)!write(fd, line, (size_t)n);
		close(fd);
	}
}

/*
 * The child: gives up the inherited sinks (llog_shutdown), logs
 * CHILD_RECORDS records to a file of its own, shuts down and checks:
 *   logged == written + dropped (its own deltas)
 *   lines in its file == entries handed to its file sink - its sink_lost
 *   its records: in order, none twice; handed + dropped == logged calls
 * Returns 0, 3 when its sink cannot be made (a full file system may
 * refuse even that), 1 on a violation.
 */
static int child_main(void)
{
	struct llog_config cfg = {.flush_interval_ms = 20,
				  .overflow = o.drop ? LLOG_OVERFLOW_DROP : LLOG_OVERFLOW_BLOCK};
	struct soak_seen seen;
	struct llog_stats a, b;
	struct soak_found f;
	struct llog_sink *s;
	char path[4096];
	long pid = (long)getpid();
	uint64_t lost0, lost;
	int bad = 0;

	llog_shutdown();
	llog_get_stats(&a);
	lost0 = soak_tag_lost(SOAK_TAG_FILE);
	snprintf(path, sizeof(path), "%s/child-%ld.log.zst", o.logdir, pid);
	unlink(path);
	s = llog_file_sink(&(struct llog_file_options){.path = path});
	if (s == NULL) {
		child_say("no file sink: %s", llog_file_sink_error());
		return 3;
	}
	if (llog_add_sink(soak_tag_sink(s, SOAK_TAG_FILE, &seen)) != 0 || llog_init(&cfg) != 0) {
		child_say("llog_add_sink or llog_init failed");
		return 1;
	}
	for (int i = 0; i < CHILD_RECORDS; i++)
		LOG_INFO_CAT("soak.child", "soak c=%ld s=%d %.*s", pid, i, o.pad, pad_text);
	llog_shutdown();
	llog_get_stats(&b);
	lost = soak_tag_lost(SOAK_TAG_FILE) - lost0;

	if (b.logged - a.logged != (b.written - a.written) + (b.dropped - a.dropped)) {
		child_say("logged %" PRIu64 " != written %" PRIu64 " + dropped %" PRIu64,
			  b.logged - a.logged, b.written - a.written, b.dropped - a.dropped);
		bad = 1;
	}
	soak_found_init(&f);
	if (soak_read_zst(path, pid, &f) != 0 || f.disorder != 0 || f.foreign != 0 ||
	    f.bad_lines != 0) {
		child_say("%s", f.first_error);
		bad = 1;
	}
	if (f.lines != seen.entries - lost) {
		child_say("%s: %" PRIu64 " lines, but %" PRIu64 " entries handed - %" PRIu64
			  " lost = %" PRIu64,
			  path, f.lines, seen.entries, lost, seen.entries - lost);
		bad = 1;
	}
	if (seen.disorder != 0 || seen.child_records + (b.dropped - a.dropped) != CHILD_RECORDS ||
	    f.child_records > seen.child_records) {
		child_say("records: %d logged, %" PRIu64 " handed (%" PRIu64 " out of order), %" PRIu64
			  " dropped, %" PRIu64 " in the file",
			  CHILD_RECORDS, seen.child_records, seen.disorder, b.dropped - a.dropped,
			  f.child_records);
		bad = 1;
	}
	if (!bad)
		unlink(path);
	return bad;
}

/* Forks a child every fork_ms and waits for it (CHILD_DEADLINE_MS at
 * most: a child that hangs is killed and counted as failed). */
static void *forker(void *arg)
{
	(void)arg;
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		int64_t until = mono_ms() + o.fork_ms, deadline, t;
		pid_t pid;
		int st = 0;

		while (mono_ms() < until && !atomic_load_explicit(&stop, memory_order_relaxed))
			nap_ms(20);
		if (atomic_load_explicit(&stop, memory_order_relaxed))
			break;
		t = mono_ms();
		pid = fork();
		if (pid == 0)
			_exit(child_main());
		t = mono_ms() - t;
		atomic_fetch_add(&fork_total_ms, t);
		if (t > atomic_load(&fork_max_ms))
			atomic_store(&fork_max_ms, t);
		if (pid < 0) {
			atomic_fetch_add(&child_failed, 1);
			printf("fork failed: %s\n", strerror(errno));
			continue;
		}
		atomic_fetch_add(&forks, 1);
		deadline = mono_ms() + CHILD_DEADLINE_MS;
		while (waitpid(pid, &st, WNOHANG) == 0) {
			if (mono_ms() > deadline) {
				kill(pid, SIGABRT);
				waitpid(pid, &st, 0);
				printf("child %ld did not finish within %d ms: aborted\n", (long)pid,
				       CHILD_DEADLINE_MS);
				break;
			}
			nap_ms(10);
		}
		if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
			atomic_fetch_add(&child_ok, 1);
		else if (WIFEXITED(st) && WEXITSTATUS(st) == 3)
			atomic_fetch_add(&child_skipped, 1);
		else
			atomic_fetch_add(&child_failed, 1);
	}
	return NULL;
}

/* ---- the archiver ------------------------------------------------------------ */

/* Copies src to dst (created, not there before) and removes src. */
static int move_file(const char *src, const char *dst)
{
	char buf[1 << 16];
	int in = open(src, O_RDONLY | O_CLOEXEC), out;
	ssize_t n;

	if (in < 0)
		return -1;
	out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (out < 0) {
		close(in);
		return -1;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n) {
			n = -1;
			break;
		}
	close(in);
	if (close(out) != 0 || n < 0) {
		unlink(dst);
		return -1;
	}
	return unlink(src);
}

/* Moves the file sink's rotated files (soak.log.<time>Z.zst) from LOGDIR
 * to DIR/archive. The sink closes a file when it renames it, so a rotated
 * file is complete. */
static void archive_rotated(void)
{
	DIR *d = opendir(o.logdir);
	struct dirent *de;

	if (d == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		char src[4096], dst[4096];

		if (strncmp(de->d_name, "soak.log.", 9) != 0 ||
		    strcmp(de->d_name, "soak.log.zst") == 0)
			continue;
		snprintf(src, sizeof(src), "%s/%s", o.logdir, de->d_name);
		snprintf(dst, sizeof(dst), "%s/archive/%s", o.dir, de->d_name);
		if (move_file(src, dst) == 0)
			atomic_fetch_add(&archived, 1);
		else
			atomic_fetch_add(&archive_errors, 1);
	}
	closedir(d);
}

static atomic_int archiver_stop;

static void *archiver(void *arg)
{
	(void)arg;
	while (!atomic_load_explicit(&archiver_stop, memory_order_relaxed)) {
		archive_rotated();
		nap_ms(100);
	}
	return NULL;
}

/* ---- the driver's helpers ------------------------------------------------------ */

static int print_free_ports(void)
{
	int a = free_port(), b;

	/* The second must differ from the first, which nobody holds yet. */
	do
		b = free_port();
	while (b == a && b > 0);
	if (a <= 0 || b <= 0)
		return 1;
	printf("%d %d\n", a, b);
	return 0;
}

static int make_socket(const char *path)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	if (fd < 0 || strlen(path) >= sizeof(a.sun_path))
		return 1;
	memcpy(a.sun_path, path, strlen(path) + 1);
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) != 0) {
		fprintf(stderr, "soak_service: bind %s: %s\n", path, strerror(errno));
		return 1;
	}
	close(fd); /* the file stays */
	return 0;
}

/* ---- set-up -------------------------------------------------------------------- */

static void usage(void)
{
	fprintf(stderr, "usage: soak_service --dir DIR --logdir LOGDIR [--threads N] [--rate R] "
			"[--pad BYTES] [--syslog URL] [--journald SOCKET] [--levels FILE] "
			"[--fork-ms MS] [--seconds S] [--overflow block|drop]\n"
			"       soak_service --check-console FILE\n"
			"       soak_service --free-ports | --make-socket PATH\n");
	exit(2);
}

static void parse(int argc, char **argv)
{
	static const struct option lo[] = {
		{"dir", 1, 0, 'd'},	 {"logdir", 1, 0, 'l'},	  {"threads", 1, 0, 't'},
		{"rate", 1, 0, 'r'},	 {"pad", 1, 0, 'p'},	  {"syslog", 1, 0, 's'},
		{"journald", 1, 0, 'j'}, {"levels", 1, 0, 'L'},	  {"fork-ms", 1, 0, 'f'},
		{"seconds", 1, 0, 'S'},	 {"overflow", 1, 0, 'o'}, {"check-console", 1, 0, 'c'},
		{"free-ports", 0, 0, 'P'}, {"make-socket", 1, 0, 'm'}, {0, 0, 0, 0}};
	int c;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'd': o.dir = optarg; break;
		case 'l': o.logdir = optarg; break;
		case 't': o.threads = atoi(optarg); break;
		case 'r': o.rate = atol(optarg); break;
		case 'p': o.pad = atoi(optarg); break;
		case 's': o.syslog = optarg; break;
		case 'j': o.journald = optarg; break;
		case 'L': o.levels = optarg; break;
		case 'f': o.fork_ms = atol(optarg); break;
		case 'S': o.seconds = atol(optarg); break;
		case 'o': o.drop = strcmp(optarg, "drop") == 0; break;
		case 'c': o.check_console = optarg; break;
		case 'P': o.free_ports = 1; break;
		case 'm': o.make_socket = optarg; break;
		default: usage();
		}
	}
	if (o.check_console != NULL || o.free_ports || o.make_socket != NULL)
		return;
	if (o.dir == NULL || o.logdir == NULL || o.threads < 1 || o.threads > SOAK_MAX_THREADS ||
	    o.pad < 0 || o.pad > 200)
		usage();
}

/* Adds sink (wrapped under tag) on a thread of its own; NULL sink: the
 * constructor's error. Returns the wrapper, or exits 2. */
static struct llog_sink *add(struct soak_sink_view *v, const char *name, struct llog_sink *sink,
			     enum soak_tag tag, const char *err)
{
	struct llog_sink *w = soak_tag_sink(sink, tag, NULL);

	if (w == NULL) {
		fprintf(stderr, "soak_service: %s sink: %s\n", name, err);
		exit(2);
	}
	if (llog_add_sink_opts(w, &(struct llog_sink_options){.name = name,
							       .queue_bytes = 64 << 10,
							       .drain_timeout_ms = 3000}) != 0) {
		fprintf(stderr, "soak_service: cannot add the %s sink\n", name);
		exit(2);
	}
	*v = (struct soak_sink_view){.name = name, .sink = w, .tag = tag};
	return w;
}

static void start_llog(struct soak_sink_view *v, int *nv)
{
	struct llog_config cfg = {.flush_interval_ms = 50,
				  .overflow = o.drop ? LLOG_OVERFLOW_DROP : LLOG_OVERFLOW_BLOCK,
				  .levels_file = o.levels,
				  .levels_signal = o.levels != NULL ? SIGUSR2 : 0};
	char path[4096];
	struct llog_sink *fs, *w;
	int rc;

	snprintf(path, sizeof(path), "%s/soak.log.zst", o.logdir);
	fs = llog_file_sink(&(struct llog_file_options){.path = path, .max_bytes = 256 << 10});
	if (fs == NULL) {
		fprintf(stderr, "soak_service: file sink: %s\n", llog_file_sink_error());
		exit(2);
	}
	w = soak_tag_sink(fs, SOAK_TAG_FILE, &file_seen);
	if (w == NULL || llog_add_sink(w) != 0) {
		fprintf(stderr, "soak_service: cannot add the file sink\n");
		exit(2);
	}
	*nv = 0;
	add(&v[(*nv)++], "console",
	    llog_console_sink(&(struct llog_console_options){.level = LLOG_INFO,
							     .color = LLOG_COLOR_NEVER}),
	    SOAK_TAG_CONSOLE, strerror(errno));
	if (o.syslog != NULL)
		add(&v[(*nv)++], "syslog",
		    llog_syslog_sink(&(struct llog_syslog_options){.url = o.syslog,
								   .app_name = "soak",
								   .level = LLOG_INFO}),
		    SOAK_TAG_SYSLOG, llog_syslog_sink_error());
	if (o.journald != NULL)
		add(&v[(*nv)++], "journald",
		    llog_journald_sink(&(struct llog_journald_options){.socket_path = o.journald,
								       .identifier = "soak",
								       .level = LLOG_INFO}),
		    SOAK_TAG_JOURNALD, llog_journald_sink_error());
	if ((rc = llog_init(&cfg)) != 0) {
		fprintf(stderr, "soak_service: llog_init: %s\n", llog_strerror(rc));
		exit(2);
	}
}

static void print_summary(const struct llog_stats *st, const struct soak_sink_view *v, int nv,
			  const struct soak_found *f, uint64_t missing, double secs)
{
	uint64_t total = 0, found = 0;

	for (int t = 0; t < o.threads; t++) {
		total += atomic_load_explicit(&calls[t], memory_order_relaxed);
		found += f->records[t];
	}
	printf("soak: %.1f s, %d threads, %" PRIu64 " records logged by the workers (%.0f/s)\n",
	       secs, o.threads, total, secs > 0 ? (double)total / secs : 0.0);
	printf("llog: logged %" PRIu64 " written %" PRIu64 " dropped %" PRIu64 " sink_lost %" PRIu64
	       " queue_dropped %" PRIu64 " write_errors %" PRIu64 " blocked %" PRIu64
	       " batches %" PRIu64 " bytes_written %" PRIu64 " truncated %" PRIu64 "\n",
	       st->logged, st->written, st->dropped, st->sink_lost, st->queue_dropped,
	       st->write_errors, st->blocked, st->batches, st->bytes_written, st->truncated);
	printf("file: %" PRIu64 " entries handed, %" PRIu64 " lines in %" PRIu64
	       " files archived + the current one, %" PRIu64 " lost (sink_lost); worker records: %" PRIu64
	       " in the files, %" PRIu64 " missing (dropped %" PRIu64 " + lost by the sink %" PRIu64 ")\n",
	       file_seen.entries, f->lines, (uint64_t)archived, soak_tag_lost(SOAK_TAG_FILE), found,
	       missing, st->dropped, missing - st->dropped);
	printf("levels file: %" PRIu64 " changes applied, %" PRIu64 " files refused (records in "
	       "the file)\n",
	       f->levels_changed, f->levels_refused);
	for (int i = 0; i < nv; i++) {
		const struct llog_sink_stats *s = v[i].has_post ? &v[i].post : &v[i].pre;

		printf("%s: queued %" PRIu64 " delivered %" PRIu64 " dropped %" PRIu64
		       " undelivered %" PRIu64 " late_flushes %" PRIu64 " queue_peak %" PRIu64
		       " own sink_lost %" PRIu64 "%s\n",
		       v[i].name, s->queued, s->delivered, s->dropped, s->undelivered,
		       s->late_flushes, s->queue_peak, soak_tag_lost(v[i].tag),
		       v[i].has_post ? "" : " (read before shutdown)");
	}
	printf("sink_lost outside any sink call: %" PRIu64 "\n", soak_tag_lost(SOAK_TAG_NONE));
	printf("children: %" PRIu64 " forked, %" PRIu64 " ok, %" PRIu64
	       " without a sink (full file system), %" PRIu64 " failed; fork() took %" PRId64
	       " ms at most, %" PRId64 " ms in all\n",
	       (uint64_t)forks, (uint64_t)child_ok, (uint64_t)child_skipped,
	       (uint64_t)child_failed, (int64_t)fork_max_ms, (int64_t)fork_total_ms);
	printf("archive: %" PRIu64 " files moved, %" PRIu64 " errors\n", (uint64_t)archived,
	       (uint64_t)archive_errors);
}

int main(int argc, char **argv)
{
	pthread_t th[SOAK_MAX_THREADS], fk, ar;
	struct soak_sink_view v[4];
	struct llog_stats st;
	struct soak_found f;
	sigset_t set;
	char path[4096], current[4096];
	uint64_t ncalls[SOAK_MAX_THREADS];
	int nv, sig = 0;
	int64_t t0;
	uint64_t missing = 0;

	parse(argc, argv);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (o.check_console != NULL)
		return soak_check_console(o.check_console);
	if (o.free_ports)
		return print_free_ports();
	if (o.make_socket != NULL)
		return make_socket(o.make_socket);
	snprintf(path, sizeof(path), "%s/archive", o.dir);
	if (mkdir(path, 0755) != 0 && errno != EEXIST) {
		fprintf(stderr, "soak_service: mkdir %s: %s\n", path, strerror(errno));
		return 2;
	}
	/* SIGTERM and SIGINT end the run: blocked in every thread, taken by
	 * main with sigtimedwait. */
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);

	start_llog(v, &nv);
	t0 = mono_ms();
	for (int i = 0; i < o.threads; i++)
		pthread_create(&th[i], NULL, worker, (void *)(intptr_t)i);
	if (o.fork_ms > 0)
		pthread_create(&fk, NULL, forker, NULL);
	pthread_create(&ar, NULL, archiver, NULL);

	while (sig != SIGTERM && sig != SIGINT) {
		struct timespec ts = {0, 200 * 1000000L};

		if (o.seconds > 0 && mono_ms() - t0 >= o.seconds * 1000)
			break;
		sig = sigtimedwait(&set, NULL, &ts);
	}
	atomic_store(&stop, 1);
	for (int i = 0; i < o.threads; i++)
		pthread_join(th[i], NULL);
	if (o.fork_ms > 0)
		pthread_join(fk, NULL);

	llog_flush();
	for (int i = 0; i < nv; i++)
		llog_get_sink_stats(v[i].sink, &v[i].pre);
	llog_shutdown();
	for (int i = 0; i < nv; i++)
		v[i].has_post = llog_get_sink_stats(v[i].sink, &v[i].post) == 0;
	llog_get_stats(&st);
	atomic_store(&archiver_stop, 1);
	pthread_join(ar, NULL);
	archive_rotated();

	for (int t = 0; t < o.threads; t++)
		ncalls[t] = atomic_load_explicit(&calls[t], memory_order_relaxed);
	snprintf(path, sizeof(path), "%s/archive", o.dir);
	snprintf(current, sizeof(current), "%s/soak.log.zst", o.logdir);
	soak_check_counters(&st, v, nv);
	missing = soak_check_file(&st,
				  &(struct soak_file_run){.archive = path, .current = current,
							  .threads = o.threads, .calls = ncalls,
							  .seen = &file_seen},
				  &f);
	if (child_failed != 0)
		soak_violation("%" PRIu64 " fork children failed their checks (%s/child-errors.txt)",
			  (uint64_t)child_failed, o.dir);
	print_summary(&st, v, nv, &f, missing, (double)(mono_ms() - t0) / 1000.0);
	printf("result: %s (%d violations)\n", soak_violations() ? "FAIL" : "PASS",
	       soak_violations());
	return soak_violations() ? 1 : 0;
}
