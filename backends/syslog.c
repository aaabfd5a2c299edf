/*
 * syslog.c - the syslog sink: RFC 5424 messages to a collector (rsyslog,
 * syslog-ng) over UDP, TCP (RFC 6587 octet counting), RELP or a unix
 * datagram socket. This file is the sink proper: its queue's policy,
 * connect, send, drain, the sink operations and construction. What it
 * shares with the other two files of the sink is in syslog_sink.h: the
 * transports, their URLs and framing are syslog_transport.c's; the
 * messages' and the notice's text, syslog_fmt.c's.
 *
 * DESIGN
 * write() formats each entry into one RFC 5424 message and appends it to a
 * FIFO queue (syslog_queue.h, bounded by buffer_bytes); commit() sends the
 * queue in order. Only the flusher runs this code, so the application never
 * waits for the network. The socket is non-blocking: a connect and each
 * commit's sending wait (poll) at most timeout_ms; every send uses
 * MSG_NOSIGNAL. A failed connect or a broken connection closes the socket
 * and schedules the next attempt with exponential back-off (50 ms doubling
 * to 5 s); the queue is kept. What differs between the transports is read
 * from the descriptor chosen from the URL (s->tr), never from the scheme.
 *
 * Invariants, in messages:
 *   received == sent + queued + dropped (llog__stats_count_sink_lost)
 *   (UDP: a sent datagram that an ICMP error reports refused is counted
 *   in sink_lost too, once, with -ECONNREFUSED as the commit's error and
 *   a diagnostic: syslog_transport.c says what can and cannot be known)
 *   queued bytes <= buffer_bytes (the oldest are dropped to make room; a
 *   partly sent TCP message dropped this way also drops the connection,
 *   so a frame is never cut; RELP keeps what is in flight and drops the
 *   oldest unsent message instead, or the new one when all are in flight)
 * Order: messages leave in the order write() received them. After drops,
 * or after a TCP connection broke, the next message sent is a notice
 * (app-name as configured, msgid "llog") that says how many were dropped
 * and that what was in flight may be lost: plain TCP cannot know which of
 * the bytes the kernel accepted the collector read. A message partly sent
 * on a broken TCP connection is sent again whole on the next one (the
 * collector discards an incomplete frame). Before sending on a TCP
 * connection the sink peeks at it: a collector that closed it (killed or
 * stopped) is noticed before anything is written into the dead socket, so
 * a restart between commits loses nothing that was not already in flight.
 *
 * RELP (the session, its frames and its window: relp.c): a sent message
 * stays at the head of the queue, in flight, until its acknowledgement
 * arrives (at most LLOG__RELP_WINDOW in flight); when the session breaks,
 * every message in flight becomes unsent again and is sent again, in
 * order, on the next session. A negative acknowledgement drops that
 * message, counted in sink_lost. Notices about drops are queued (flagged
 * in their word) just before the first unsent message, so they are
 * acknowledged too; a notice dropped from a full buffer is not a lost
 * record: its count goes back into the next notice.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "net.h"
#include "syslog_sink.h"

#define MSG_MAX (16 * 1024)
#define DEFAULT_BUFFER (4u << 20)
#define DEFAULT_TIMEOUT_MS 1000
#define BACKOFF_MIN_MS 50
#define BACKOFF_MAX_MS 5000
#define NOTICE_MAX 768 /* a notice's text, at most (header included) */

const char *llog_syslog_sink_error(void)
{
	return llog__sink_error();
}

#define set_error llog__sink_set_error

/* ---- the queue's policy -------------------------------------------------- */

/* Accounts for dropping the item at `at`: a record counts as dropped (and
 * lost); a notice gives its count back, for the next notice to say. */
static void count_drop_of(struct llog__syslog_sink *s, size_t at)
{
	if (llog__sq_is_notice(&s->q, at)) {
		s->dropped += llog__sq_notice_count(&s->q, at);
		return;
	}
	s->dropped++;
	llog__stats_count_sink_lost(1);
}

/* UDP: datagrams an ICMP error reported lost (syslog_transport.c) count
 * in sink_lost, as a sink error, with a diagnostic. */
static void count_refused(struct llog__syslog_sink *s)
{
	uint64_t n = llog__syslog_refusals(s, s->fd);

	if (n == 0)
		return;
	llog__stats_count_sink_lost(n);
	if (s->err == 0)
		s->err = -ECONNREFUSED;
	llog__diag("syslog sink: %llu messages refused by the collector (%s)",
		   (unsigned long long)n, strerror(ECONNREFUSED));
}

static void disconnect(struct llog__syslog_sink *s)
{
	count_refused(s);
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
	if (s->tr->unacked)
		s->broke = 1;
	/* A partly sent frame is sent again whole; RELP: what is in flight
	 * becomes unsent and goes again on the next session. */
	llog__sq_unsend(&s->q);
	llog__relp_reset(&s->relp);
	s->next_try_ms = llog__mono_ms() + s->backoff_ms;
	s->backoff_ms = s->backoff_ms * 2 > BACKOFF_MAX_MS ? BACKOFF_MAX_MS : s->backoff_ms * 2;
}

static void enqueue(struct llog__syslog_sink *s, const char *m, size_t n)
{
	struct llog__sq *q = &s->q;

	while (q->count > 0 && llog__sq_bytes(q) + 4 + n > s->bound) {
		if (llog__relp_in_flight(&s->relp) > 0) {
			/* RELP: what is in flight stays (the collector most
			 * likely has it; dropping it would mean a new session
			 * and resending the rest): the oldest unsent message
			 * goes, not one partly sent, else this new one. */
			size_t v = q->sent;

			if (v < q->end && q->send_off > 0)
				v += llog__sq_size(q, v);
			if (v == q->end) {
				s->dropped++;
				llog__stats_count_sink_lost(1);
				return;
			}
			count_drop_of(s, v);
			llog__sq_remove(q, v);
			continue;
		}
		/* Never leave half a frame on the stream. */
		if (q->sent == q->head && q->send_off > 0)
			disconnect(s);
		count_drop_of(s, q->head);
		llog__sq_pop(q);
	}
	llog__sq_push(q, m, n);
}

/* RELP acknowledged the oldest message in flight, the queue's head. */
static void relp_acked(void *ctx, int ok)
{
	struct llog__syslog_sink *s = ctx;

	if (!ok) {
		if (llog__sq_is_notice(&s->q, s->q.head))
			s->dropped += llog__sq_notice_count(&s->q, s->q.head); /* said again later */
		else
			llog__stats_count_sink_lost(1);
	}
	llog__sq_pop(&s->q);
}

/* The notice about drops / a broken connection, into m[0..cap); resets
 * what it reports. */
static size_t take_notice(struct llog__syslog_sink *s, char *m, size_t cap)
{
	size_t n = llog__syslog_notice(s, m, cap);

	s->dropped = 0;
	s->broke = 0;
	return n;
}

/* RELP: the notice goes into the queue just before the first unsent
 * message (the caller checks send_off == 0), with the count it reports,
 * and is acknowledged like any message. Only within the bound: when the
 * queue is full (of messages in flight), the count waits in s->dropped. */
static void queue_notice(struct llog__syslog_sink *s)
{
	char m[NOTICE_MAX];
	uint64_t k = s->dropped;
	size_t n;

	if (llog__sq_bytes(&s->q) + 4 + NOTICE_MAX + sizeof(k) > s->bound)
		return;
	n = take_notice(s, m, sizeof(m));
	llog__sq_insert_notice(&s->q, m, n, k);
}

/* ---- sending ------------------------------------------------------------- */

/* Sends the frame from byte off on. Returns bytes sent or a negative errno. */
static long send_frame(struct llog__syslog_sink *s, const struct llog__syslog_frame *f,
		       size_t off)
{
	struct iovec iov[4];
	struct msghdr mh = {.msg_iov = iov};
	size_t k = 0;
	ssize_t rc;

	for (int i = 0; i < 4; i++) {
		size_t len = f->part[i].iov_len;

		if (off < len)
			iov[k++] = (struct iovec){(char *)f->part[i].iov_base + off, len - off};
		off = off > len ? off - len : 0;
	}
	mh.msg_iovlen = k;
	rc = sendmsg(s->fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
	return rc < 0 ? -errno : (long)rc;
}

/* Sends all of one message before the deadline. Returns 0 when sent,
 * -EAGAIN when the deadline passed (partly sent: *off kept), or another
 * negative errno (connection dropped). */
static int send_one(struct llog__syslog_sink *s, const char *m, size_t n, size_t *off,
		    int64_t deadline)
{
	struct llog__syslog_frame f;

	llog__syslog_frame(s, m, n, &f);
	while (*off < f.total) {
		long rc = send_frame(s, &f, *off);

		if (rc >= 0) {
			*off = s->tr->socktype == SOCK_DGRAM ? f.total : *off + (size_t)rc;
			s->bytes += rc;
			continue;
		}
		if (rc == -EINTR)
			continue;
		if (rc == -ECONNREFUSED && s->tr->stale_refusal) {
			/* Reports an earlier datagram, lost; this one was not
			 * sent and goes again. */
			count_refused(s);
			continue;
		}
		if (rc == -EAGAIN || rc == -ENOBUFS) {
			if (llog__net_wait(s->fd, POLLOUT, deadline) != 0)
				return -EAGAIN;
			continue;
		}
		disconnect(s);
		return (int)rc;
	}
	return 0;
}

/* TCP, UDP, unix: the notice is sent before the queue. */
static int send_notice(struct llog__syslog_sink *s, int64_t deadline)
{
	char m[512];
	uint64_t dropped = s->dropped;
	int broke = s->broke;
	size_t off = 0, n = take_notice(s, m, sizeof(m));
	int rc = send_one(s, m, n, &off, deadline);

	if (rc != 0) {
		s->dropped += dropped;
		s->broke |= broke && s->tr->unacked;
		if (rc == -EAGAIN && off > 0)
			disconnect(s); /* never leave half a frame on the stream */
	}
	return rc;
}

/* ---- the connection ------------------------------------------------------ */

/* TCP: whether the collector closed the connection since we last sent. */
static int peer_gone(int fd)
{
	char c;
	ssize_t r = recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);

	return r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR);
}

/* Connects the non-blocking socket fd, waiting until the deadline. */
static int connect_by(struct llog__syslog_sink *s, int fd, int64_t deadline)
{
	int rc = connect(fd, (struct sockaddr *)&s->addr, s->addrlen), e = 0;
	socklen_t el = sizeof(e);

	if (rc != 0 && errno == EINPROGRESS) {
		while ((rc = llog__net_wait(fd, POLLOUT, deadline)) == 0) {
			struct pollfd p = {.fd = fd, .events = POLLOUT};

			if (poll(&p, 1, 0) == 1)
				break;
		}
		if (rc == 0 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &el) == 0 && e != 0)
			rc = -e;
	} else if (rc != 0) {
		rc = -errno;
	}
	return rc;
}

/* Connects when due (RELP: and opens the session). Returns 0 when
 * connected, else a negative errno (-EAGAIN: back-off not yet over). */
static int try_connect(struct llog__syslog_sink *s, int force)
{
	int fd, rc;
	int64_t deadline;

	if (s->fd >= 0)
		return 0;
	if (!force && llog__mono_ms() < s->next_try_ms)
		return -EAGAIN;
	fd = socket(s->addr.ss_family, s->tr->socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	llog__syslog_watch_refusals(s, fd);
	deadline = llog__mono_ms() + s->timeout_ms;
	rc = connect_by(s, fd, deadline);
	s->fd = fd;
	if (rc == 0 && s->tr->acked)
		rc = llog__relp_open(&s->relp, fd, deadline);
	if (rc != 0) {
		int broke = s->broke;

		disconnect(s);
		s->broke = broke; /* nothing was in flight on a connection never made */
		return rc;
	}
	s->backoff_ms = BACKOFF_MIN_MS;
	return 0;
}

/* RELP: reads acknowledgements; a broken session drops the connection. */
static int relp_read(struct llog__syslog_sink *s, int wait, int64_t deadline)
{
	int rc = llog__relp_read(&s->relp, s->fd, wait, deadline);

	if (rc != 0 && rc != -EAGAIN)
		disconnect(s);
	return rc;
}

/* Sends the queue in order until everything is sent (RELP, closing: and
 * acknowledged), the deadline passes or the connection fails. */
static void drain(struct llog__syslog_sink *s, int closing)
{
	int64_t deadline = llog__mono_ms() + s->timeout_ms;
	int rc;

	/* Once per drain (one recv), before anything is written into a
	 * connection the collector may have closed since the last one. */
	if (s->fd >= 0 && s->tr->unacked && s->q.send_off == 0 && s->q.count > 0 &&
	    peer_gone(s->fd))
		disconnect(s);
	count_refused(s);
	while (s->q.count > 0 || s->dropped > 0 || (s->broke && s->fd < 0)) {
		if ((rc = try_connect(s, closing)) != 0)
			goto fail;
		if (s->tr->acked) {
			if ((rc = relp_read(s, 0, deadline)) != 0)
				goto fail;
			if (s->dropped > 0 && s->q.send_off == 0)
				queue_notice(s);
			if (s->q.sent == s->q.end || llog__relp_window_full(&s->relp)) {
				/* Everything sent, or the window is full: wait
				 * for acknowledgements (at a commit only for a
				 * full window; the rest come with later ones). */
				if (s->q.sent == s->q.end && !closing)
					return;
				if ((rc = relp_read(s, 1, deadline)) != 0)
					goto fail;
				continue;
			}
		} else if (s->dropped > 0 || s->broke) {
			if ((rc = send_notice(s, deadline)) != 0)
				goto fail;
			continue;
		}
		rc = send_one(s, llog__sq_msg(&s->q, s->q.sent), llog__sq_len(&s->q, s->q.sent),
			      &s->q.send_off, deadline);
		if (rc != 0)
			goto fail;
		if (s->tr->acked) {
			llog__sq_mark_sent(&s->q);
			llog__relp_sent(&s->relp);
		} else {
			llog__sq_pop(&s->q);
		}
	}
	return;
fail:
	if (rc != -EAGAIN && s->err == 0)
		s->err = rc;
}

/* ---- the sink ------------------------------------------------------------ */

static long syslog_write(struct llog_sink *base, const struct llog_entry *e)
{
	struct llog__syslog_sink *s = (struct llog__syslog_sink *)base;
	char m[MSG_MAX];
	int cut;
	size_t n = llog__syslog_format(s, e, m, sizeof(m), &cut);

	/* Cut by the formatter (16 KiB) or by the transport when sent (UDP's
	 * max_udp_bytes, RELP's 8000), or both: counted once here, not at
	 * each attempt. */
	if (cut || (s->max_msg != 0 && n > s->max_msg))
		llog__stats_count_sink_truncated();
	enqueue(s, m, n);
	/* A batch larger than the buffer: send as we go (connecting first
	 * when due) rather than drop; but once such a drain ran out of time
	 * (a stalled collector), not again before the commit, so one round
	 * blocks for about two timeouts at most, not one per record. */
	if (llog__sq_bytes(&s->q) > s->bound / 2 && !s->stalled) {
		int64_t t0 = llog__mono_ms();

		drain(s, 0);
		s->stalled = llog__mono_ms() - t0 >= s->timeout_ms;
	}
	return (long)n;
}

static long syslog_commit(struct llog_sink *base)
{
	struct llog__syslog_sink *s = (struct llog__syslog_sink *)base;
	long rc;

	s->stalled = 0;
	drain(s, 0);
	rc = s->err != 0 ? s->err : s->bytes;
	s->err = 0;
	s->bytes = 0;
	return rc;
}

static void syslog_close(struct llog_sink *base)
{
	struct llog__syslog_sink *s = (struct llog__syslog_sink *)base;

	drain(s, 1);
	if (s->tr->acked && s->fd >= 0 && s->q.count == 0)
		llog__relp_close(&s->relp, s->fd, llog__mono_ms() + s->timeout_ms);
	if (s->q.count > 0) {
		uint64_t records = llog__sq_records(&s->q);

		llog__stats_count_sink_lost(records);
		llog__diag("syslog sink: %llu messages not delivered at close",
			   (unsigned long long)records);
	}
	count_refused(s);
	if (s->fd >= 0)
		close(s->fd);
	free(s->q.p);
	free(s->pat);
	free(s);
}

/* In a fork child: the queue is the parent's (it sends it) and so is the
 * connection (closing our descriptor leaves the parent's open); the child
 * connects anew, with its own pid as PROCID. */
static void syslog_after_fork(struct llog_sink *base)
{
	struct llog__syslog_sink *s = (struct llog__syslog_sink *)base;

	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
	llog__sq_clear(&s->q);
	llog__relp_reset(&s->relp);
	s->dropped = 0;
	s->broke = 0;
	s->bytes = 0;
	s->err = 0;
	s->next_try_ms = 0;
	s->backoff_ms = BACKOFF_MIN_MS;
	s->pid = (long)getpid();
}

static const struct llog_sink_ops syslog_ops = {
	.version = LLOG__SINK_VERSION,
	.write = syslog_write,
	.commit = syslog_commit,
	.close = syslog_close,
	.after_fork = syslog_after_fork,
	/* A collector may stop reading: the sink gets a thread of its own
	 * (llog_add_sink_opts), so it never holds up the flusher. */
	.flags = LLOG_SINK_F_MAY_BLOCK,
};

/* ---- construction -------------------------------------------------------- */

/* Everything but the transport and its address, from the options. */
static int configure(struct llog__syslog_sink *s, const struct llog_syslog_options *opt)
{
	char host[256];

	s->base.ops = &syslog_ops;
	s->base.level = opt->level;
	s->base.format = LLOG_FORMAT_TEXT;
	s->fd = -1;
	s->facility = opt->facility == 0 ? LLOG_FAC_USER : opt->facility;
	s->pid = (long)getpid();
	s->bound = opt->buffer_bytes ? opt->buffer_bytes : DEFAULT_BUFFER;
	if (s->bound < 2 * (MSG_MAX + 4))
		s->bound = 2 * (MSG_MAX + 4);
	s->timeout_ms = opt->timeout_ms ? (int)opt->timeout_ms : DEFAULT_TIMEOUT_MS;
	s->max_msg = s->tr->max_msg_option && opt->max_udp_bytes ? opt->max_udp_bytes
								   : s->tr->max_msg;
	s->backoff_ms = BACKOFF_MIN_MS;
	if (opt->hostname == NULL && gethostname(host, sizeof(host)) != 0)
		strcpy(host, "-");
	host[sizeof(host) - 1] = '\0';
	llog__syslog_token(s->host, sizeof(s->host), opt->hostname != NULL ? opt->hostname : host);
	llog__syslog_token(s->app, sizeof(s->app),
			   opt->app_name != NULL ? opt->app_name : program_invocation_short_name);
	llog__relp_init(&s->relp, relp_acked, s);
	s->line = opt->line;
	s->line.pattern = NULL;
	{
		int rc = llog__sink_pattern("syslog sink", &opt->line, LLOG_FORMAT_TEXT, &s->pat);

		if (rc != 0)
			return rc; /* the reason is set */
	}
	s->q.cap = s->bound + MSG_MAX + 4;
	s->q.p = malloc(s->q.cap);
	return s->q.p != NULL ? 0 : -ENOMEM;
}

struct llog_sink *llog_syslog_sink(const struct llog_syslog_options *opt)
{
	struct llog__syslog_sink *s;
	int rc;

	llog__sink_set_error("%s", "");
	if (opt == NULL || opt->url == NULL) {
		set_error("syslog sink: no url");
		errno = EINVAL;
		return NULL;
	}
	if ((unsigned)opt->level > LLOG_OFF || opt->facility < 0 || opt->facility > 23 ||
	    (unsigned)opt->line.ts_precision > LLOG_TS_S ||
	    (opt->max_udp_bytes != 0 && (opt->max_udp_bytes < 480 || opt->max_udp_bytes > 65000))) {
		set_error("syslog sink: bad level, facility or max_udp_bytes");
		errno = EINVAL;
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (s == NULL) {
		set_error("syslog sink: out of memory");
		return NULL;
	}
	if ((rc = llog__syslog_parse_url(s, opt->url)) != 0 || (rc = configure(s, opt)) != 0) {
		if (rc == -ENOMEM)
			set_error("syslog sink: out of memory");
		free(s->pat);
		free(s);
		errno = -rc;
		return NULL;
	}
	return &s->base;
}
