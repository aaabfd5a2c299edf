/*
 * reload.c - the levels file and the reload signal. See reload.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "atomic.h"
#include "clock.h"
#include "levels.h"
#include "queue.h"
#include "reload.h"

#define FILE_MAX (64u * 1024u) /* "larger than 64 KiB" in read_all */

static char *path;             /* the levels file, NULL: none */
static int sig_no;             /* installed signal, 0: none */
static struct sigaction old_act;
static _Atomic int requested;  /* llog_levels_reload_request */
static int64_t last_check_ms;
static struct stat last_st;
static int have_st;
static char *last_content;     /* the spec text last read (applied or not) */

void llog_levels_reload_request(void)
{
	/* Relaxed: published by the seq_cst fence in llog__wake_flusher
	 * (reload.h); the flusher takes it with an exchange. */
	llog__store_relaxed(&requested, 1);
	llog__wake_flusher();
}

static void on_signal(int s)
{
	int saved = errno;

	(void)s;
	llog_levels_reload_request();
	errno = saved;
}

/* One line on stderr (at most 400 bytes): what llog_init has to say. */
__attribute__((format(printf, 1, 2))) static void say(const char *fmt, ...)
{
	char line[400];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n > 0)
		(void)!write(2, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
}

/* What a file that is not a regular one is, for the line that refuses it. */
static const char *kind_of(mode_t m)
{
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISCHR(m))
		return "a character device";
	if (S_ISBLK(m))
		return "a block device";
	if (S_ISSOCK(m))
		return "a socket";
	return "not a regular file";
}

/* The file's content (NUL-terminated, malloc'd), or NULL: missing or
 * unreadable (*why NULL: nothing to say), larger than FILE_MAX (never
 * applied cut, which could be another valid spec) or not a regular file
 * (*why says which). Never blocks: opened O_NONBLOCK (a FIFO without a
 * writer would block a plain open, and the flusher with it) and O_NOCTTY,
 * and refused after fstat unless it is a regular file, whose reads
 * O_NONBLOCK does not change. A path on a hung network filesystem can
 * still block in open(): no flag prevents that. */
static char *read_all(const char *p, const char **why)
{
	int fd = open(p, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	struct stat st;
	char *buf;
	size_t n = 0;

	*why = NULL;
	if (fd < 0) {
		/* A socket (ENXIO) or a device without its driver: open
		 * refuses it, but it is there; say what it is. */
		if (errno != ENOENT && stat(p, &st) == 0 && !S_ISREG(st.st_mode))
			*why = kind_of(st.st_mode);
		return NULL;
	}
	if (fstat(fd, &st) != 0) {
		close(fd);
		return NULL;
	}
	if (!S_ISREG(st.st_mode)) {
		*why = kind_of(st.st_mode);
		close(fd);
		return NULL;
	}
	buf = malloc(FILE_MAX + 2);
	while (buf != NULL && n <= FILE_MAX) {
		ssize_t r = read(fd, buf + n, FILE_MAX + 1 - n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			free(buf);
			buf = NULL;
			break;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	if (buf != NULL && n > FILE_MAX) {
		free(buf);
		buf = NULL;
		*why = "larger than 64 KiB";
	}
	if (buf != NULL)
		buf[n] = '\0';
	return buf;
}

/* The spec a file holds: its lines but blank ones and '#' comments,
 * joined by commas (in place). */
static void file_to_spec(char *s)
{
	char *out = s, *line = s;

	while (*line != '\0') {
		char *nl = strchr(line, '\n');
		size_t n = nl != NULL ? (size_t)(nl - line) : strlen(line);
		size_t b = 0;

		while (b < n && (line[b] == ' ' || line[b] == '\t' || line[b] == '\r'))
			b++;
		if (b < n && line[b] != '#') {
			if (out != s)
				*out++ = ',';
			memmove(out, line, n);
			out += n;
		}
		if (nl == NULL)
			break;
		line = nl + 1;
	}
	*out = '\0';
}

/* Whether sig's action is a handler of the application's: neither the
 * default nor ignored, nor the one llog installed (a restart in a fork
 * child, or llog_init again before llog_shutdown, finds its own). */
static int taken_by_application(int sig)
{
	struct sigaction cur;

	if (sigaction(sig, NULL, &cur) != 0)
		return 0;
	if (cur.sa_flags & SA_SIGINFO)
		return 1; /* an sa_sigaction: never SIG_DFL, SIG_IGN or ours */
	return cur.sa_handler != SIG_DFL && cur.sa_handler != SIG_IGN &&
	       cur.sa_handler != on_signal;
}

int llog__reload_validate(const char *file, int sig)
{
	const char *env = getenv("LLOG_LEVEL_FILE");

	if (env != NULL && *env != '\0')
		file = env;
	if (sig < 0 || sig >= NSIG || (sig != 0 && (file == NULL || *file == '\0')) ||
	    sig == SIGKILL || sig == SIGSTOP)
		return -EINVAL;
	if (sig != 0 && taken_by_application(sig)) {
		say("llog: levels_signal %d (SIG%s) already has the application's handler; "
		    "llog_init refused (call llog_levels_reload_request() from that handler "
		    "instead)\n", sig, sigabbrev_np(sig) ? sigabbrev_np(sig) : "?");
		return -EBUSY;
	}
	return 0;
}

/* Applies the file's spec now (llog_init): 1 when applied. */
static int apply_at_init(void)
{
	struct stat st;
	/* stat before the read, as llog__reload_poll: a file replaced in
	 * between is then seen as changed by the next check. */
	int have = stat(path, &st) == 0, rc;
	const char *why;
	char *c = read_all(path, &why);

	if (c == NULL && why != NULL)
		say("llog: levels file %s: %s; ignored\n", path, why);
	if (c == NULL)
		return 0;
	if (have)
		last_st = st, have_st = 1;
	free(last_content);
	last_content = strdup(c);
	file_to_spec(c);
	rc = llog__levels_apply(c, NULL, NULL, 0, NULL);
	if (rc != 0)
		say("llog: levels file %s: %s; ignored\n", path, llog_levels_error());
	free(c);
	return rc == 0;
}

int llog__reload_configure(const char *file, int sig, const char *env_spec)
{
	const char *env = getenv("LLOG_LEVEL_FILE");
	int rc = llog__reload_validate(file, sig);

	if (rc != 0)
		return rc;
	if (env != NULL && *env != '\0')
		file = env;
	llog__reload_stop();
	free(path);
	path = NULL;
	free(last_content);
	last_content = NULL;
	have_st = 0;
	last_check_ms = llog__mono_ms();
	if (file == NULL || *file == '\0')
		return 0;
	path = strdup(file);
	if (path == NULL)
		return -ENOMEM;
	/* Both sources given: which one is in force, once. */
	if (apply_at_init() && env_spec != NULL)
		say("llog: levels from the levels file %s, which overrides LLOG_LEVEL=%.200s\n",
		    path, env_spec);
	else if (env_spec != NULL)
		say("llog: levels from LLOG_LEVEL=%.200s until the levels file %s is read\n",
		    env_spec, path);
	if (sig != 0) {
		struct sigaction sa;

		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_signal;
		sa.sa_flags = SA_RESTART;
		sigemptyset(&sa.sa_mask);
		if (sigaction(sig, &sa, &old_act) != 0)
			return -errno;
		sig_no = sig;
	}
	return 0;
}

void llog__reload_stop(void)
{
	if (sig_no != 0) {
		(void)sigaction(sig_no, &old_act, NULL);
		sig_no = 0;
	}
}

static void make_entry(struct llog_entry *e, enum llog_level level, int line, char *msg)
{
	memset(e, 0, sizeof(*e));
	e->level = level;
	e->line = line;
	e->tid = (uint64_t)syscall(SYS_gettid);
	e->file = __FILE__;
	e->func = "llog_levels_reload";
	e->thread_name = "";
	e->msg = msg;
	e->msg_len = strlen(msg);
	e->category = "llog";
	e->category_len = 4;
}

unsigned llog__reload_poll(int flushing, unsigned interval_ms,
			   void (*emit)(void *ctx, struct llog_entry *e), void *ctx)
{
	char old[512], new[512], msg[1400];
	const char *why;
	struct llog_entry e;
	struct stat st;
	int64_t now;
	uint64_t g;
	char *c, *spec;
	int req;

	if (path == NULL)
		return 0;
	/* Acquire: nothing to see but the flag itself; the exchange takes
	 * one request for this round (reload.h). */
	req = atomic_exchange_explicit(&requested, 0, memory_order_acquire);
	now = llog__mono_ms();
	if (!req && !flushing && now - last_check_ms < (int64_t)interval_ms)
		return 0;
	last_check_ms = now;
	if (stat(path, &st) != 0)
		return 0;
	if (!req && have_st && st.st_ino == last_st.st_ino && st.st_dev == last_st.st_dev &&
	    st.st_size == last_st.st_size && st.st_mtim.tv_sec == last_st.st_mtim.tv_sec &&
	    st.st_mtim.tv_nsec == last_st.st_mtim.tv_nsec)
		return 0;
	last_st = st;
	have_st = 1;
	c = read_all(path, &why);
	if (c == NULL && why != NULL) {
		(void)llog__levels_text(old, sizeof(old));
		snprintf(msg, sizeof(msg), "llog: levels file %s: %s; keeping %s", path, why, old);
		make_entry(&e, LLOG_ERROR, __LINE__, msg);
		emit(ctx, &e);
		return 1;
	}
	if (c == NULL)
		return 0;
	if (!req && last_content != NULL && strcmp(c, last_content) == 0) {
		free(c);
		return 0;
	}
	spec = strdup(c);
	free(last_content);
	last_content = c;
	if (spec == NULL)
		return 0;
	file_to_spec(spec);
	if (llog__levels_apply(spec, old, new, sizeof(old), &g) == 0) {
		snprintf(msg, sizeof(msg), LLOG__LEVELS_CHANGED, (unsigned long long)g, old, new);
		make_entry(&e, LLOG_INFO, __LINE__, msg);
	} else {
		(void)llog__levels_text(old, sizeof(old));
		snprintf(msg, sizeof(msg), "llog: levels file %s: %s; keeping %s", path,
			 llog_levels_error(), old);
		make_entry(&e, LLOG_ERROR, __LINE__, msg);
	}
	free(spec);
	emit(ctx, &e);
	return 1;
}
