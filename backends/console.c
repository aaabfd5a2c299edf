/*
 * console.c - the console sink: text or JSON lines on stderr or stdout.
 *
 * DESIGN
 * Entries are formatted straight into a buffer (64 KiB, grown to the
 * longest line's bound, llog__line_bound, so every record arrives whole
 * whatever max_record_bytes is; if growing fails, the line is cut to the
 * buffer with the " [truncated]" marker and counted); the buffer is
 * written with llog__write_all when it cannot take the next line and at
 * every commit, so a batch costs one write(2) in the common case. Colour (the level name
 * only) when the descriptor is a terminal, or when asked for, and never when
 * NO_COLOR is set to a non-empty value (no-color.org). Write errors are
 * returned to the flusher, which counts them; the buffer is then discarded
 * so a dead descriptor cannot stall logging.
 *
 * Where it runs: a descriptor that is a pipe or a socket when the sink is
 * made (a service's stderr to a supervisor, a journald stream, `| less`)
 * is read by another process that may stop reading; its ops then declare
 * LLOG_SINK_F_MAY_BLOCK, so llog_add_sink gives it a thread and a queue of
 * its own (drops counted and announced: a stuck reader costs this sink's
 * records, never the application's calls). A terminal, a regular file or
 * anything else stays on the flusher (back-pressure, nothing lost).
 *
 * Crash path (crash_write/crash_commit, only when the flusher thread
 * crashed; async-signal-safe): the lines still in buf go first (unless the
 * crash interrupted this sink), then the crash entries, formatted without
 * colour into `crash`, a second buffer of the struct, written with
 * llog__write_all (write(2) and poll(2) only).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sink.h"

#define BUF_SIZE (64 * 1024)
/* Room for the colour codes around the level name ("\033[1;35m" and
 * "\033[0m": 11 bytes at most). */
#define COLOR_ROOM 16

struct console {
	struct llog_sink base; /* first */
	struct llog_sink_ops ops; /* console_ops, flags by the descriptor */
	int fd;
	int color;
	size_t level_at; /* where a default text line's level starts */
	struct llog_line_options line; /* no pattern: pat has it */
	struct llog__pattern *pat;     /* the parsed line pattern, or NULL */
	size_t used, cap;
	long pending_bytes;
	int error;
	char *buf;
	/* crash path */
	int crash_started;
	size_t crash_used;
	long crash_rc;
	char crash[BUF_SIZE];
};

static long flush_buf(struct console *c)
{
	long rc;

	if (c->used == 0)
		return 0;
	rc = llog__write_all(c->fd, c->buf, c->used, 1000);
	c->used = 0;
	return rc;
}

static void note(struct console *c, long rc)
{
	if (rc < 0)
		c->error = (int)rc;
	else
		c->pending_bytes += rc;
}

static const char *const colors[] = {"\033[90m", "\033[36m", "\033[32m",
				     "\033[33m", "\033[31m", "\033[1;35m"};

/* Makes the (empty) buffer at least `need` bytes; keeps it as it is when
 * memory is short (the line is then cut to it). */
static void grow(struct console *c, size_t need)
{
	size_t cap = c->cap;
	char *p;

	while (cap < need)
		cap *= 2;
	p = realloc(c->buf, cap);
	if (p != NULL) {
		c->buf = p;
		c->cap = cap;
	}
}

static long console_write(struct llog_sink *s, const struct llog_entry *e)
{
	struct console *c = (struct console *)s;
	size_t bound = llog__line_bound(e, s->format, c->pat), room, n;
	char *line;

	if (c->used + bound + COLOR_ROOM > c->cap)
		note(c, flush_buf(c));
	if (bound + COLOR_ROOM > c->cap)
		grow(c, bound + COLOR_ROOM);
	room = c->cap - c->used - COLOR_ROOM;
	line = c->buf + c->used;
	n = llog__sink_format_line(e, s->format, &c->line, c->pat, line,
				   bound < room ? bound : room);
	c->used += n;
	if (c->color && (unsigned)e->level < LLOG_OFF && n > c->level_at + 5) {
		/* Colour the level name: the 5 columns after the timestamp
		 * of a default text line. */
		const char *col = colors[e->level];
		size_t cl = strlen(col), at = c->level_at;

		memmove(line + at + 9 + cl, line + at + 5, n - at - 5);
		memmove(line + at + cl, line + at, 5);
		memcpy(line + at, col, cl);
		memcpy(line + at + 5 + cl, "\033[0m", 4);
		c->used += cl + 4;
	}
	return (long)n;
}

static long console_commit(struct llog_sink *s)
{
	struct console *c = (struct console *)s;
	long rc;

	note(c, flush_buf(c));
	rc = c->error != 0 ? c->error : c->pending_bytes;
	c->error = 0;
	c->pending_bytes = 0;
	return rc;
}

static void crash_out(struct console *c, const char *p, size_t n)
{
	long rc = n > 0 ? llog__write_all(c->fd, p, n, 1000) : 0;

	if (c->crash_rc >= 0)
		c->crash_rc = rc < 0 ? rc : c->crash_rc + rc;
}

static void crash_begin(struct console *c, int interrupted)
{
	if (c->crash_started)
		return;
	c->crash_started = 1;
	if (!interrupted)
		crash_out(c, c->buf, c->used);
	c->used = 0;
}

static long console_crash_write(struct llog_sink *s, const struct llog_entry *e, int interrupted)
{
	struct console *c = (struct console *)s;
	size_t n;

	size_t need = llog__line_bound(e, s->format, c->pat);

	/* Lines longer than the crash buffer are cut with the marker and
	 * counted: no allocation here. */
	if (need > BUF_SIZE)
		need = BUF_SIZE;
	crash_begin(c, interrupted);
	if (BUF_SIZE - c->crash_used < need) {
		crash_out(c, c->crash, c->crash_used);
		c->crash_used = 0;
	}
	n = llog__sink_format_line(e, s->format, &c->line, c->pat, c->crash + c->crash_used,
				   need);
	c->crash_used += n;
	return (long)n;
}

static long console_crash_commit(struct llog_sink *s, int interrupted)
{
	struct console *c = (struct console *)s;

	crash_begin(c, interrupted);
	crash_out(c, c->crash, c->crash_used);
	c->crash_used = 0;
	return c->crash_rc;
}

static void console_close(struct llog_sink *s)
{
	struct console *c = (struct console *)s;

	(void)flush_buf(c);
	free(c->buf);
	free(c->pat);
	free(c);
}

/* In a fork child: anything not yet written is the parent's. The fd is
 * shared; each commit is whole lines, so both processes can use it. */
static void console_after_fork(struct llog_sink *s)
{
	struct console *c = (struct console *)s;

	c->used = 0;
	c->pending_bytes = 0;
	c->error = 0;
}

static const struct llog_sink_ops console_ops = {
	.version = LLOG__SINK_VERSION,
	.write = console_write,
	.commit = console_commit,
	.close = console_close,
	.after_fork = console_after_fork,
	.crash_write = console_crash_write,
	.crash_commit = console_crash_commit,
};

/* Whether fd is a pipe or a socket (what another process reads, or not). */
static int is_pipe(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode));
}

static int want_color(int fd, enum llog_color mode)
{
	const char *nc = getenv("NO_COLOR");

	if (nc != NULL && nc[0] != '\0')
		return 0;
	if (mode == LLOG_COLOR_ALWAYS)
		return 1;
	if (mode == LLOG_COLOR_NEVER)
		return 0;
	return isatty(fd);
}

struct llog_sink *llog_console_sink(const struct llog_console_options *opt)
{
	struct llog_console_options o = {0};
	struct console *c;

	if (opt != NULL)
		o = *opt;
	if (o.fd < 0 || (unsigned)o.level > LLOG_OFF || (unsigned)o.format > LLOG_FORMAT_JSON ||
	    (unsigned)o.line.ts_precision > LLOG_TS_S) {
		errno = EINVAL;
		return NULL;
	}
	c = malloc(sizeof(*c));
	if (c == NULL)
		return NULL;
	c->cap = BUF_SIZE;
	c->buf = malloc(c->cap);
	if (c->buf == NULL) {
		free(c);
		return NULL;
	}
	c->fd = o.fd == 0 ? 2 : o.fd;
	/* On a pipe or socket its reader may stop: llog_add_sink gives
	 * it a thread of its own (LLOG_SINK_F_MAY_BLOCK). */
	c->ops = console_ops;
	if (is_pipe(c->fd))
		c->ops.flags = LLOG_SINK_F_MAY_BLOCK;
	c->base.ops = &c->ops;
	c->base.level = o.level;
	c->base.format = o.format;
	/* Colour: the level of a default text line, which starts after the
	 * timestamp ("2026-...:42", the fraction's digits and '.', then "Z"
	 * or "+hh:mm") and a space; not a pattern's line or JSON. */
	c->color = o.format == LLOG_FORMAT_TEXT && o.line.pattern == NULL &&
		   want_color(c->fd, o.color);
	{
		static const size_t frac[] = {10, 7, 4, 0}; /* ns, us, ms, s */

		c->level_at = 19 + frac[o.line.ts_precision] +
			      ((o.line.flags & LLOG_LINE_LOCAL_TIME) ? 6 : 1) + 1;
	}
	c->line = o.line;
	c->line.pattern = NULL;
	{
		int rc = llog__sink_pattern("llog_console_sink", &o.line, o.format, &c->pat);

		if (rc < 0) {
			free(c->buf);
			free(c);
			errno = -rc;
			return NULL;
		}
	}
	c->used = 0;
	c->pending_bytes = 0;
	c->error = 0;
	c->crash_started = 0;
	c->crash_used = 0;
	c->crash_rc = 0;
	return &c->base;
}
