/*
 * sink.c - the helpers llog's backends share (sink.h): writing a whole
 * buffer to a descriptor, the rate-limited diagnostic line, the error
 * message of the last failed sink constructor, the sinks' line (the
 * format unit's line formatter with the cut counted in the statistics),
 * and the ops whose write_rec the flusher may call (the direct path).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic.h"
#include "sink.h"
#include "stats.h"

/* Diagnostics the rate limit suppressed (llog__diag). */
static _Atomic unsigned diag_suppressed;

long llog__write_all(int fd, const char *buf, size_t len, int timeout_ms)
{
	size_t done = 0;
	struct stat st;
	int sock = fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode);

	while (done < len) {
		ssize_t n = sock ? send(fd, buf + done, len - done, MSG_NOSIGNAL)
				 : write(fd, buf + done, len - done);

		if (n > 0) {
			done += (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			struct pollfd p = {.fd = fd, .events = POLLOUT};

			if (poll(&p, 1, timeout_ms) > 0)
				continue;
			return -EAGAIN;
		}
		return n < 0 ? -errno : -EIO;
	}
	return (long)done;
}

/* A line on stderr: "llog: ", the message, then the count of those the
 * rate limit suppressed since the last line. */
static __attribute__((format(printf, 1, 0))) void diag_line(const char *fmt, va_list ap)
{
	char line[512];
	int n = snprintf(line, sizeof(line), "llog: ");

	n += vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
	if (n > (int)sizeof(line) - 40)
		n = (int)sizeof(line) - 40;
	/* Relaxed: as in llog__diag. */
	unsigned sup = atomic_exchange_explicit(&diag_suppressed, 0, memory_order_relaxed);
	if (sup != 0)
		n += snprintf(line + n, sizeof(line) - (size_t)n, " (%u similar suppressed)", sup);
	line[n++] = '\n';
	(void)llog__write_all(2, line, (size_t)n, 100);
}

void llog__diag(const char *fmt, ...)
{
	static _Atomic int64_t last_s = -1;
	int64_t now_s = llog__mono_ms() / 1000;
	int64_t prev;
	va_list ap;

	/* Relaxed: a rate limit, not a synchronization point. */
	prev = llog__load_relaxed(&last_s);
	if (prev == now_s || !atomic_compare_exchange_strong_explicit(&last_s, &prev, now_s,
								      memory_order_relaxed,
								      memory_order_relaxed)) {
		llog__fetch_add_relaxed(&diag_suppressed, 1);
		return;
	}
	va_start(ap, fmt);
	diag_line(fmt, ap);
	va_end(ap);
}

void llog__diag_always(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag_line(fmt, ap);
	va_end(ap);
}

/* The flusher's own (sink.h): 0 on every other thread. */
static _Thread_local int may_defer;

int llog__sink_commit_may_defer(void)
{
	return may_defer;
}

void llog__sink_set_commit_may_defer(int may)
{
	may_defer = may;
}

static _Thread_local char sink_err[1024];

const char *llog__sink_error(void)
{
	return sink_err;
}

void llog__sink_set_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(sink_err, sizeof(sink_err), fmt, ap);
	va_end(ap);
}

size_t llog__sink_format_line(const struct llog_entry *e, enum llog_format format,
			      const struct llog_line_options *lo, const struct llog__pattern *pat,
			      char *buf, size_t cap)
{
	int cut;
	size_t n = llog__line_format(e, format, lo, pat, buf, cap, &cut);

	if (cut)
		llog__count(sink_truncated, 1);
	return n;
}

int llog__sink_pattern(const char *who, const struct llog_line_options *opt,
		       enum llog_format format, struct llog__pattern **pat)
{
	char why[96];

	*pat = NULL;
	if (opt == NULL || opt->pattern == NULL)
		return 0;
	if (format != LLOG_FORMAT_TEXT) {
		llog__sink_set_error("%s: a line pattern is for text lines (%s)", who,
				     strerror(EINVAL));
		return -EINVAL;
	}
	if ((*pat = malloc(sizeof(**pat))) == NULL) {
		llog__sink_set_error("%s: %s", who, strerror(ENOMEM));
		return -ENOMEM;
	}
	if (llog__pattern_parse(*pat, opt->pattern, why, sizeof(why)) != 0) {
		llog__sink_set_error("%s: line pattern \"%s\": %s (%s)", who, opt->pattern, why,
				     strerror(EINVAL));
		free(*pat);
		*pat = NULL;
		return -EINVAL;
	}
	return 0;
}

const char *llog_sink_error(void)
{
	return llog__sink_error();
}

/* ---- the direct ops (sink.h) --------------------------------------------- */

#define OWN_MAX 8

/* Set once each, never cleared. Relaxed: a sink reaches llog_add_sink
 * after its constructor's note on the same thread, or through whatever
 * handed it to the adding thread; and it reaches the flusher after
 * llog_add_sink (the list's release push and acquire take, or the control
 * lock), so a later load sees that store or a later one (coherence, also
 * where another thread's note of the same ops was read first). */
static const struct llog_sink_ops *_Atomic own[OWN_MAX];

void llog__sink_own(const struct llog_sink_ops *ops)
{
	for (int i = 0; i < OWN_MAX; i++) {
		const struct llog_sink_ops *cur = llog__load_relaxed(&own[i]);

		if (cur == NULL && llog__cas_strong_relaxed(&own[i], &cur, ops))
			return;
		if (cur == ops)
			return;
	}
}

void llog__sink_direct_own(const struct llog__sink_direct_ops *d)
{
	llog__sink_own(&d->ops);
}

int llog__sink_is_own(const struct llog_sink_ops *ops)
{
	for (int i = 0; i < OWN_MAX; i++) {
		const struct llog_sink_ops *cur = llog__load_relaxed(&own[i]);

		if (cur == NULL)
			break;
		if (cur == ops)
			return 1;
	}
	return 0;
}

llog__write_rec_fn *llog__sink_write_rec(const struct llog_sink *s)
{
	const unsigned both = LLOG__SINK_F_RAW | LLOG__SINK_F_DIRECT;

	if (s->ops->version < 3 || (s->ops->flags & both) != both || !llog__sink_is_own(s->ops))
		return NULL;
	/* ops is the first member of its struct llog__sink_direct_ops */
	return ((const struct llog__sink_direct_ops *)(const void *)s->ops)->write_rec;
}

llog__write_run_fn *llog__sink_write_run(const struct llog_sink *s)
{
	if (llog__sink_write_rec(s) == NULL)
		return NULL;
	return ((const struct llog__sink_direct_ops *)(const void *)s->ops)->write_run;
}
