/*
 * syslog.c - the syslog sink: RFC 5424 messages to a collector (rsyslog,
 * syslog-ng) over UDP, TCP (RFC 6587 octet counting), RELP or a unix
 * datagram socket.
 *
 * DESIGN
 * write() formats each entry into one RFC 5424 message and appends it to a
 * FIFO queue (a byte buffer of [u32 length][message] items, bounded by
 * buffer_bytes); commit() sends the queue in order. Only the flusher runs
 * this code, so the application never waits for the network. The socket is
 * non-blocking: a connect and each commit's sending wait (poll) at most
 * timeout_ms; every send uses MSG_NOSIGNAL. A failed connect or a broken
 * connection closes the socket and schedules the next attempt with
 * exponential back-off (50 ms doubling to 5 s); the queue is kept.
 *
 * Invariants, in messages:
 *   received == sent + queued + dropped (llog__count_sink_lost)
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
 * RELP (the Reliable Event Logging Protocol of rsyslog's imrelp; written
 * here from the protocol description, no librelp): each message is a frame
 *   TXNR SP "syslog" SP DATALEN SP MESSAGE LF
 * and the collector answers each with "TXNR rsp LEN 200 OK". A session
 * starts with an "open" frame offering relp_version=0 and commands=syslog
 * (transaction 1) and ends with "close". A sent message stays at the head
 * of the queue, in flight, until its acknowledgement arrives (in order:
 * txnr of the queue head == oldest unacknowledged txnr); at most
 * RELP_WINDOW are in flight. When the session breaks (EOF, reset, timeout,
 * "serverclose", a protocol error), every message in flight becomes unsent
 * again and is sent again, in order, on the next session: a collector
 * restart loses nothing. A duplicate is possible only for a message the
 * collector processed but whose acknowledgement never reached us. A
 * negative acknowledgement (not 200) drops that message, counted in
 * sink_lost. Notices about drops are queued (flagged in their length word)
 * just before the first unsent message, so they are acknowledged too; a
 * notice dropped from a full buffer is not a lost record: its count goes
 * back into the next notice. Messages are cut to RELP_MAX_MSG bytes
 * (rsyslog's default maxMessageSize is 8 KiB; a longer frame makes imrelp
 * abort the session, which would resend it forever).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "sink.h"

#define MSG_MAX (16 * 1024)
#define DEFAULT_BUFFER (4u << 20)
#define DEFAULT_TIMEOUT_MS 1000
#define DEFAULT_UDP_MAX 2048
#define BACKOFF_MIN_MS 50
#define BACKOFF_MAX_MS 5000
#define TRUNC_MARK "...[truncated]"
#define RELP_WINDOW 128
#define RELP_MAX_MSG 8000
#define RELP_TXNR_MAX 999999999u
#define RELP_RX_CAP 4096

enum transport { T_UDP, T_TCP, T_UNIX, T_RELP };

struct syslog_sink {
	struct llog_sink base; /* first */
	enum transport tr;
	struct sockaddr_storage addr;
	socklen_t addrlen;
	int fd;                  /* -1 when not connected */
	char host[256], app[49];
	int facility;
	long pid;                /* PROCID (renewed in a fork child) */
	size_t bound, max_udp;
	int timeout_ms;
	char *q;                 /* queue: [u32 len][bytes] items in [qhead, qend) */
	size_t qcap, qhead, qend;
	uint64_t qcount;
	size_t qsent;            /* first item not yet sent (RELP: those before it
				  * are in flight; otherwise qsent == qhead) */
	size_t send_off;         /* framed bytes of the item at qsent sent */
	/* RELP session */
	int relp_open;           /* the collector accepted our "open" */
	uint32_t txnr_next;      /* txnr of the next frame we send */
	uint32_t txnr_oldest;    /* txnr of the oldest message in flight */
	uint32_t nflight;        /* messages sent, not yet acknowledged */
	size_t rxn;
	char rx[RELP_RX_CAP];    /* received, not yet parsed */
	uint64_t dropped;        /* dropped since the last notice */
	int broke;               /* a TCP connection broke since the last notice */
	int64_t next_try_ms;
	int backoff_ms;
	int stalled;             /* a drain from write() ran out of time: no
				  * more of them until the next commit */
	long bytes;              /* sent since the last commit */
	int err;                 /* first error since the last commit */
};

const char *llog_syslog_sink_error(void)
{
	return llog__sink_error();
}

#define set_error llog__sink_set_error

static int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- formatting ------------------------------------------------------------ */

struct buf {
	char *p;
	size_t n, cap;
};

static void put(struct buf *b, const char *s, size_t n)
{
	if (n > b->cap - b->n)
		n = b->cap - b->n;
	memcpy(b->p + b->n, s, n);
	b->n += n;
}

static void puts_(struct buf *b, const char *s)
{
	put(b, s, strlen(s));
}

/* SD-PARAM value with '"', '\' and ']' escaped (RFC 5424 6.3.3). */
static void put_sd_value(struct buf *b, const char *s)
{
	for (; *s != '\0'; s++) {
		if (*s == '"' || *s == '\\' || *s == ']')
			put(b, "\\", 1);
		put(b, s, 1);
	}
}

static int severity(enum llog_level l)
{
	static const int sev[] = {7, 7, 6, 4, 3, 2};

	return (unsigned)l < LLOG_OFF ? sev[l] : 6;
}

/* The header up to and including the MSGID and a space. */
static void put_header(const struct syslog_sink *s, struct buf *b, int sev, int64_t ts_ns,
		       const char *msgid)
{
	char t[128];
	int n;

	n = snprintf(t, sizeof(t), "<%d>1 ", s->facility * 8 + sev);
	put(b, t, (size_t)n);
	/* RFC 3339 with microseconds: the first 26 bytes of llog's
	 * nanosecond timestamp, then 'Z'. */
	llog__ts_rfc3339(t, ts_ns);
	put(b, t, 26);
	put(b, "Z ", 2);
	puts_(b, s->host);
	put(b, " ", 1);
	puts_(b, s->app);
	n = snprintf(t, sizeof(t), " %ld %s ", s->pid, msgid);
	put(b, t, (size_t)n);
}

static size_t format_msg(const struct syslog_sink *s, const struct llog_entry *e, char *out,
			 size_t cap)
{
	struct buf b = {out, 0, cap};
	const char *base = strrchr(e->file, '/');
	char t[64];

	put_header(s, &b, severity(e->level), e->ts_ns, llog_level_name(e->level));
	puts_(&b, "[llog@32473 file=\"");
	put_sd_value(&b, base != NULL ? base + 1 : e->file);
	snprintf(t, sizeof(t), "\" line=\"%d\" tid=\"%llu\"] ", e->line,
		 (unsigned long long)e->tid);
	puts_(&b, t);
	put(&b, e->msg, e->msg_len);
	return b.n;
}

/* ---- the queue ------------------------------------------------------------- */

/* Flag in an item's length word: a RELP drop notice, not a record. Its
 * text is followed by the u64 count it reports (not sent). */
#define ITEM_NOTICE 0x80000000u
#define NOTICE_MAX 768 /* a notice's text, at most (header included) */

static uint32_t item_word(const struct syslog_sink *s, size_t at)
{
	uint32_t w;

	memcpy(&w, s->q + at, sizeof(w));
	return w;
}

/* Bytes of the message itself (what is sent). */
static uint32_t item_len(const struct syslog_sink *s, size_t at)
{
	return item_word(s, at) & ~ITEM_NOTICE;
}

/* Bytes the item takes in the queue. */
static size_t item_size(const struct syslog_sink *s, size_t at)
{
	uint32_t w = item_word(s, at);

	return 4 + (w & ~ITEM_NOTICE) + (w & ITEM_NOTICE ? sizeof(uint64_t) : 0);
}

/* The count a notice item reports; 0 for a record. */
static uint64_t notice_count(const struct syslog_sink *s, size_t at)
{
	uint32_t w = item_word(s, at);
	uint64_t k = 0;

	if (w & ITEM_NOTICE)
		memcpy(&k, s->q + at + 4 + (w & ~ITEM_NOTICE), sizeof(k));
	return k;
}

/* Accounts for dropping the item at v: a record counts as dropped (and
 * lost); a notice gives its count back, for the next notice to say. */
static void count_drop_of(struct syslog_sink *s, size_t v)
{
	if (item_word(s, v) & ITEM_NOTICE) {
		s->dropped += notice_count(s, v);
		return;
	}
	s->dropped++;
	llog__count_sink_lost(1);
}

static void drop_head(struct syslog_sink *s)
{
	size_t next = s->qhead + item_size(s, s->qhead);

	if (s->qsent == s->qhead) {
		s->qsent = next;
		s->send_off = 0;
	}
	s->qhead = next;
	if (--s->qcount == 0)
		s->qhead = s->qend = s->qsent = 0;
}

/* Removes the unsent item at offset v (not the head, not in flight). */
static void drop_at(struct syslog_sink *s, size_t v)
{
	size_t len = item_size(s, v);

	memmove(s->q + v, s->q + v + len, s->qend - v - len);
	s->qend -= len;
	s->qcount--;
}

static void disconnect(struct syslog_sink *s)
{
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
	if (s->tr == T_TCP)
		s->broke = 1;
	/* A partly sent frame is sent again whole; RELP: what is in flight
	 * becomes unsent and goes again on the next session. */
	s->qsent = s->qhead;
	s->send_off = 0;
	s->nflight = 0;
	s->relp_open = 0;
	s->rxn = 0;
	s->next_try_ms = mono_ms() + s->backoff_ms;
	s->backoff_ms = s->backoff_ms * 2 > BACKOFF_MAX_MS ? BACKOFF_MAX_MS : s->backoff_ms * 2;
}

static void enqueue(struct syslog_sink *s, const char *m, size_t n)
{
	uint32_t len = (uint32_t)n;

	while (s->qcount > 0 && s->qend - s->qhead + 4 + n > s->bound) {
		if (s->nflight > 0) {
			/* RELP: what is in flight stays (the collector most
			 * likely has it; dropping it would mean a new session
			 * and resending the rest): the oldest unsent message
			 * goes, not one partly sent, else this new one. */
			size_t v = s->qsent;

			if (v < s->qend && s->send_off > 0)
				v += item_size(s, v);
			if (v == s->qend) {
				s->dropped++;
				llog__count_sink_lost(1);
				return;
			}
			count_drop_of(s, v);
			drop_at(s, v);
			continue;
		}
		/* Never leave half a frame on the stream. */
		if (s->qsent == s->qhead && s->send_off > 0)
			disconnect(s);
		count_drop_of(s, s->qhead);
		drop_head(s);
	}
	if (s->qend + 4 + n > s->qcap) {
		memmove(s->q, s->q + s->qhead, s->qend - s->qhead);
		s->qend -= s->qhead;
		s->qsent -= s->qhead;
		s->qhead = 0;
	}
	memcpy(s->q + s->qend, &len, 4);
	memcpy(s->q + s->qend + 4, m, n);
	s->qend += 4 + n;
	s->qcount++;
}

/* ---- the connection -------------------------------------------------------- */

static int wait_fd(int fd, short ev, int64_t deadline)
{
	struct pollfd p = {.fd = fd, .events = ev};
	int64_t left = deadline - mono_ms();
	int rc;

	if (left <= 0)
		return -ETIMEDOUT;
	rc = poll(&p, 1, (int)left);
	if (rc < 0)
		return errno == EINTR ? 0 : -errno;
	return rc == 0 ? -ETIMEDOUT : 0;
}

/* The framing prefix of a message of n bytes: "LEN " (TCP), "TXNR syslog
 * LEN " (RELP), nothing otherwise. */
static size_t frame_prefix(const struct syslog_sink *s, size_t n, char *pre, size_t cap)
{
	if (s->tr == T_TCP)
		return (size_t)snprintf(pre, cap, "%zu ", n);
	if (s->tr == T_RELP)
		return (size_t)snprintf(pre, cap, "%u syslog %zu ", s->txnr_next, n);
	return 0;
}

/* Message bytes that go out: UDP and RELP cut long ones (with the mark). */
static size_t msg_cut(const struct syslog_sink *s, size_t n)
{
	size_t max = s->tr == T_UDP ? s->max_udp : s->tr == T_RELP ? RELP_MAX_MSG : n;

	return n > max ? max - (sizeof(TRUNC_MARK) - 1) : n;
}

/* Sends one message (framed for the transport) from byte `off` of its
 * framed form. Returns bytes sent or a negative errno. */
static long send_framed(struct syslog_sink *s, const char *m, size_t n, size_t off)
{
	char pre[48];
	struct iovec iov[4];
	struct msghdr mh = {.msg_iov = iov};
	size_t pl = frame_prefix(s, n, pre, sizeof(pre)), cut = msg_cut(s, n);
	size_t at = pl + cut, tl = cut < n ? sizeof(TRUNC_MARK) - 1 : 0;
	int k = 0;
	ssize_t rc;

	if (cut < n) /* the frame carries the cut length */
		pl = frame_prefix(s, cut + tl, pre, sizeof(pre)), at = pl + cut;
	if (off < pl)
		iov[k++] = (struct iovec){pre + off, pl - off};
	if (off < at) {
		size_t o = off > pl ? off - pl : 0;

		iov[k++] = (struct iovec){(char *)m + o, cut - o};
	}
	if (off < at + tl) {
		size_t o = off > at ? off - at : 0;

		iov[k++] = (struct iovec){(char *)TRUNC_MARK + o, tl - o};
	}
	if (s->tr == T_RELP)
		iov[k++] = (struct iovec){(char *)"\n", 1};
	mh.msg_iovlen = (size_t)k;
	rc = sendmsg(s->fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
	return rc < 0 ? -errno : (long)rc;
}

static size_t framed_len(const struct syslog_sink *s, size_t n)
{
	char pre[48];
	size_t cut = msg_cut(s, n), body = cut < n ? cut + sizeof(TRUNC_MARK) - 1 : n;

	return frame_prefix(s, body, pre, sizeof(pre)) + body + (s->tr == T_RELP);
}

/* Sends all of one message before the deadline. Returns 0 when sent,
 * -EAGAIN when the deadline passed (partly sent: *off kept), or another
 * negative errno (connection dropped). */
static int send_one(struct syslog_sink *s, const char *m, size_t n, size_t *off,
		    int64_t deadline)
{
	size_t total = framed_len(s, n);

	while (*off < total) {
		long rc = send_framed(s, m, n, *off);

		if (rc >= 0) {
			*off = s->tr == T_UDP || s->tr == T_UNIX ? total : *off + (size_t)rc;
			s->bytes += rc;
			continue;
		}
		if (rc == -EINTR)
			continue;
		if (rc == -ECONNREFUSED && s->tr == T_UDP)
			continue; /* reports an earlier datagram; this one was not sent */
		if (rc == -EAGAIN || rc == -ENOBUFS) {
			if (wait_fd(s->fd, POLLOUT, deadline) != 0)
				return -EAGAIN;
			continue;
		}
		disconnect(s);
		return (int)rc;
	}
	return 0;
}

/* ---- RELP ------------------------------------------------------------------- */

static uint32_t txnr_after(uint32_t t)
{
	return t >= RELP_TXNR_MAX ? 1 : t + 1;
}

/* Reads a decimal of 1..9 digits at p[*i..n). Returns 1 with *v, 0 when
 * the buffer ends first, -1 when malformed. */
static int relp_num(const char *p, size_t n, size_t *i, uint32_t *v)
{
	size_t d = 0;

	*v = 0;
	while (*i < n && p[*i] >= '0' && p[*i] <= '9') {
		if (++d > 9)
			return -1;
		*v = *v * 10 + (uint32_t)(p[(*i)++] - '0');
	}
	if (*i == n)
		return 0;
	return d > 0 ? 1 : -1;
}

/* One frame from the collector: "rsp" acknowledges (in order) the open or
 * the oldest message in flight; "serverclose" ends the session. */
static int relp_frame(struct syslog_sink *s, uint32_t txnr, const char *cmd, size_t cl,
		      const char *data, size_t dl)
{
	int ok = dl >= 3 && memcmp(data, "200", 3) == 0;

	if (cl == 11 && memcmp(cmd, "serverclose", 11) == 0)
		return -ECONNRESET;
	if (cl != 3 || memcmp(cmd, "rsp", 3) != 0)
		return 0; /* nothing else is meant for a client: ignored */
	if (!s->relp_open) {
		if (txnr != 1)
			return -EPROTO;
		if (!ok) {
			llog__diag("syslog sink: RELP collector refused the session: %.*s",
				   (int)(dl > 200 ? 200 : dl), data);
			return -ECONNREFUSED;
		}
		s->relp_open = 1;
		return 0;
	}
	if (s->nflight == 0 || txnr != s->txnr_oldest)
		return -EPROTO;
	if (!ok) {
		llog__diag("syslog sink: RELP collector rejected a message: %.*s",
			   (int)(dl > 200 ? 200 : dl), data);
		if (item_word(s, s->qhead) & ITEM_NOTICE)
			s->dropped += notice_count(s, s->qhead); /* said again later */
		else
			llog__count_sink_lost(1);
	}
	s->nflight--;
	s->txnr_oldest = txnr_after(s->txnr_oldest);
	drop_head(s);
	return 0;
}

/* Parses one frame at rx[*at..rxn). Returns 1 (parsed and handled, *at
 * moved past it), 0 (incomplete) or a negative errno. */
static int relp_parse_one(struct syslog_sink *s, size_t *at)
{
	const char *p = s->rx, *cmd;
	size_t i = *at, n = s->rxn, cl = 0;
	uint32_t txnr, dl;
	int r, rc;

	if ((r = relp_num(p, n, &i, &txnr)) <= 0)
		return r < 0 ? -EPROTO : 0;
	if (p[i++] != ' ')
		return -EPROTO;
	cmd = p + i;
	while (i < n && ((p[i] >= 'a' && p[i] <= 'z') || (p[i] >= 'A' && p[i] <= 'Z')))
		i++, cl++;
	if (i == n)
		return 0;
	if (cl == 0 || cl > 32 || p[i++] != ' ')
		return -EPROTO;
	if ((r = relp_num(p, n, &i, &dl)) <= 0)
		return r < 0 ? -EPROTO : 0;
	if (dl > 0 && p[i++] != ' ')
		return -EPROTO;
	if (dl >= RELP_RX_CAP)
		return -EPROTO;
	if (n < i + dl + 1)
		return 0;
	if (p[i + dl] != '\n')
		return -EPROTO;
	if ((rc = relp_frame(s, txnr, cmd, cl, p + i, dl)) != 0)
		return rc;
	*at = i + dl + 1;
	return 1;
}

/* Handles the complete frames in rx. Returns 0 or a negative errno. */
static int relp_parse(struct syslog_sink *s)
{
	size_t at = 0;
	int rc;

	while (at < s->rxn && (rc = relp_parse_one(s, &at)) != 0)
		if (rc < 0)
			return rc;
	if (at == 0 && s->rxn == sizeof(s->rx))
		return -EPROTO; /* a frame larger than we accept */
	memmove(s->rx, s->rx + at, s->rxn - at);
	s->rxn -= at;
	return 0;
}

/* Reads what the collector sent. wait: until at least one read returned
 * data, the deadline passing (-EAGAIN). Returns 0 or a negative errno; a
 * broken session is disconnected. */
static int relp_read(struct syslog_sink *s, int wait, int64_t deadline)
{
	for (;;) {
		ssize_t r = recv(s->fd, s->rx + s->rxn, sizeof(s->rx) - s->rxn, MSG_DONTWAIT);
		int rc;

		if (r > 0) {
			s->rxn += (size_t)r;
			if ((rc = relp_parse(s)) != 0) {
				disconnect(s);
				return rc;
			}
			wait = 0;
			continue;
		}
		if (r == 0 || (errno != EAGAIN && errno != EINTR)) {
			rc = r == 0 ? -ECONNRESET : -errno;
			disconnect(s);
			return rc;
		}
		if (errno == EINTR)
			continue;
		if (!wait)
			return 0;
		if (wait_fd(s->fd, POLLIN, deadline) != 0)
			return -EAGAIN;
	}
}

/* Sends a command frame of the session itself (open, close). */
static int relp_command(struct syslog_sink *s, const char *cmd, const char *data,
			int64_t deadline)
{
	char f[256];
	size_t dl = strlen(data), off = 0;
	int n = dl > 0 ? snprintf(f, sizeof(f), "%u %s %zu %s\n", s->txnr_next, cmd, dl, data)
		       : snprintf(f, sizeof(f), "%u %s 0\n", s->txnr_next, cmd);

	s->txnr_next = txnr_after(s->txnr_next);
	while (off < (size_t)n) {
		ssize_t w = send(s->fd, f + off, (size_t)n - off, MSG_NOSIGNAL | MSG_DONTWAIT);

		if (w >= 0) {
			off += (size_t)w;
		} else if (errno == EAGAIN || errno == EINTR) {
			if (wait_fd(s->fd, POLLOUT, deadline) != 0)
				return -ETIMEDOUT;
		} else {
			return -errno;
		}
	}
	return 0;
}

/* Opens a RELP session on the connected socket (transaction 1). */
static int relp_open(struct syslog_sink *s, int64_t deadline)
{
	int rc;

	s->txnr_next = 1;
	s->rxn = 0;
	s->relp_open = 0;
	rc = relp_command(s, "open",
			  "relp_version=0\nrelp_software=llog\ncommands=syslog", deadline);
	while (rc == 0 && !s->relp_open)
		rc = relp_read(s, 1, deadline);
	if (rc == 0)
		s->txnr_oldest = s->txnr_next;
	return rc == -EAGAIN ? -ETIMEDOUT : rc;
}

/* ---- connecting and sending ------------------------------------------------- */

/* TCP: whether the collector closed the connection since we last sent. */
static int tcp_peer_gone(int fd)
{
	char c;
	ssize_t r = recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);

	return r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR);
}

/* Connects when due. Returns 0 when connected, else a negative errno
 * (-EAGAIN: back-off not yet over). */
static int try_connect(struct syslog_sink *s, int force)
{
	int type = s->tr == T_TCP || s->tr == T_RELP ? SOCK_STREAM : SOCK_DGRAM, fd, rc, e = 0;
	socklen_t el = sizeof(e);
	int64_t deadline;

	if (s->fd >= 0)
		return 0;
	if (!force && mono_ms() < s->next_try_ms)
		return -EAGAIN;
	fd = socket(s->addr.ss_family, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	deadline = mono_ms() + s->timeout_ms;
	rc = connect(fd, (struct sockaddr *)&s->addr, s->addrlen);
	if (rc != 0 && errno == EINPROGRESS) {
		while ((rc = wait_fd(fd, POLLOUT, deadline)) == 0) {
			struct pollfd p = {.fd = fd, .events = POLLOUT};

			if (poll(&p, 1, 0) == 1)
				break;
		}
		if (rc == 0 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &el) == 0 && e != 0)
			rc = -e;
	} else if (rc != 0) {
		rc = -errno;
	}
	s->fd = fd;
	if (rc == 0 && s->tr == T_RELP)
		rc = relp_open(s, deadline);
	if (rc != 0) {
		int broke = s->broke;

		if (s->fd >= 0)
			disconnect(s);
		s->broke = broke; /* nothing was in flight on a connection never made */
		return rc;
	}
	s->backoff_ms = BACKOFF_MIN_MS;
	return 0;
}

/* The notice about drops / a broken connection. */
static size_t notice_text(struct syslog_sink *s, char *m, size_t cap)
{
	struct buf b = {m, 0, cap};
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	put_header(s, &b, 4, (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec, "llog");
	snprintf(m + b.n, cap - b.n, "- llog: %llu messages dropped (buffer full)%s",
		 (unsigned long long)s->dropped,
		 s->broke ? "; connection to the collector was lost: messages in flight then "
			    "may be lost" : "");
	s->dropped = 0;
	s->broke = 0;
	return strlen(m);
}

/* TCP, UDP, unix: sent before the queue. */
static int send_notice(struct syslog_sink *s, int64_t deadline)
{
	char m[512];
	uint64_t dropped = s->dropped;
	int broke = s->broke;
	size_t off = 0, n = notice_text(s, m, sizeof(m));
	int rc = send_one(s, m, n, &off, deadline);

	if (rc != 0) {
		s->dropped += dropped;
		s->broke |= broke && s->tr == T_TCP;
		if (rc == -EAGAIN && off > 0)
			disconnect(s); /* never leave half a frame on the stream */
	}
	return rc;
}

/* RELP: the notice goes into the queue just before the first unsent
 * message (after those in flight; never inside a partly sent frame: the
 * caller checks send_off == 0), with the count it reports after its text,
 * and is acknowledged like any message. Only within the bound: when the
 * queue is full (of messages in flight), the count waits in s->dropped. */
static void queue_notice(struct syslog_sink *s)
{
	char m[NOTICE_MAX];
	uint64_t k = s->dropped;
	size_t n, size;
	uint32_t len;

	if (s->qend - s->qhead + 4 + NOTICE_MAX + sizeof(k) > s->bound)
		return;
	n = notice_text(s, m, sizeof(m));
	len = (uint32_t)n | ITEM_NOTICE;
	size = 4 + n + sizeof(k);
	if (s->qend + size > s->qcap) { /* compact (room: MSG_MAX + 4 past the bound) */
		memmove(s->q, s->q + s->qhead, s->qend - s->qhead);
		s->qend -= s->qhead;
		s->qsent -= s->qhead;
		s->qhead = 0;
	}
	memmove(s->q + s->qsent + size, s->q + s->qsent, s->qend - s->qsent);
	memcpy(s->q + s->qsent, &len, 4);
	memcpy(s->q + s->qsent + 4, m, n);
	memcpy(s->q + s->qsent + 4 + n, &k, sizeof(k));
	s->qend += size;
	s->qcount++;
}

/* Sends the queue in order until everything is sent (RELP, closing: and
 * acknowledged), the deadline passes or the connection fails. */
static void drain(struct syslog_sink *s, int closing)
{
	int64_t deadline = mono_ms() + s->timeout_ms;
	int rc;

	/* Once per drain (one recv), before anything is written into a
	 * connection the collector may have closed since the last one. */
	if (s->fd >= 0 && s->tr == T_TCP && s->send_off == 0 && s->qcount > 0 &&
	    tcp_peer_gone(s->fd))
		disconnect(s);
	while (s->qcount > 0 || s->dropped > 0 || (s->broke && s->fd < 0)) {
		if ((rc = try_connect(s, closing)) != 0)
			goto fail;
		if (s->tr == T_RELP) {
			if ((rc = relp_read(s, 0, deadline)) != 0)
				goto fail;
			if (s->dropped > 0 && s->send_off == 0)
				queue_notice(s);
			if (s->qsent == s->qend || s->nflight >= RELP_WINDOW) {
				/* Everything sent, or the window is full: wait
				 * for acknowledgements (at a commit only for a
				 * full window; the rest come with later ones). */
				if (s->qsent == s->qend && !closing)
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
		rc = send_one(s, s->q + s->qsent + 4, item_len(s, s->qsent), &s->send_off, deadline);
		if (rc != 0)
			goto fail;
		if (s->tr == T_RELP) {
			s->qsent += item_size(s, s->qsent);
			s->send_off = 0;
			s->nflight++;
			s->txnr_next = txnr_after(s->txnr_next);
		} else {
			drop_head(s);
		}
	}
	return;
fail:
	if (rc != -EAGAIN && s->err == 0)
		s->err = rc;
}

/* ---- the sink --------------------------------------------------------------- */

static long syslog_write(struct llog_sink *base, const struct llog_entry *e)
{
	struct syslog_sink *s = (struct syslog_sink *)base;
	char m[MSG_MAX];
	size_t n = format_msg(s, e, m, sizeof(m));

	enqueue(s, m, n);
	/* A batch larger than the buffer: send as we go (connecting first
	 * when due) rather than drop; but once such a drain ran out of time
	 * (a stalled collector), not again before the commit, so one round
	 * blocks for about two timeouts at most, not one per record. */
	if (s->qend - s->qhead > s->bound / 2 && !s->stalled) {
		int64_t t0 = mono_ms();

		drain(s, 0);
		s->stalled = mono_ms() - t0 >= s->timeout_ms;
	}
	return (long)n;
}

static long syslog_commit(struct llog_sink *base)
{
	struct syslog_sink *s = (struct syslog_sink *)base;
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
	struct syslog_sink *s = (struct syslog_sink *)base;

	drain(s, 1);
	if (s->tr == T_RELP && s->fd >= 0 && s->qcount == 0) {
		/* Polite end of the session; its answer is not awaited. */
		(void)relp_command(s, "close", "", mono_ms() + s->timeout_ms);
	}
	if (s->qcount > 0) {
		uint64_t records = 0;

		for (size_t at = s->qhead; at < s->qend; at += item_size(s, at))
			records += !(item_word(s, at) & ITEM_NOTICE);
		llog__count_sink_lost(records);
		llog__diag("syslog sink: %llu messages not delivered at close",
			   (unsigned long long)records);
	}
	if (s->fd >= 0)
		close(s->fd);
	free(s->q);
	free(s);
}

/* In a fork child: the queue is the parent's (it sends it) and so is the
 * connection (closing our descriptor leaves the parent's open); the child
 * connects anew, with its own pid as PROCID. */
static void syslog_after_fork(struct llog_sink *base)
{
	struct syslog_sink *s = (struct syslog_sink *)base;

	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
	s->qhead = s->qend = s->qsent = s->send_off = s->rxn = 0;
	s->qcount = 0;
	s->nflight = 0;
	s->relp_open = 0;
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
};

/* ---- construction ------------------------------------------------------------ */

/* Copies src into dst (cap bytes) keeping printable US-ASCII except space
 * (RFC 5424 PRINTUSASCII), others as '_'; "-" when empty. */
static void copy_token(char *dst, size_t cap, const char *src)
{
	size_t i;

	for (i = 0; src != NULL && src[i] != '\0' && i + 1 < cap; i++)
		dst[i] = (src[i] > 32 && src[i] < 127) ? src[i] : '_';
	if (i == 0)
		dst[i++] = '-';
	dst[i] = '\0';
}

static int parse_url(struct syslog_sink *s, const char *url)
{
	char host[256], port[16] = "514";
	const char *p, *colon;
	struct addrinfo hints = {0}, *res = NULL;
	size_t hl;
	int rc;

	if (strncmp(url, "unix:", 5) == 0) {
		struct sockaddr_un *un = (struct sockaddr_un *)&s->addr;

		p = url + 5;
		if (strncmp(p, "//", 2) == 0)
			p += 2;
		if (p[0] == '\0' || strlen(p) >= sizeof(un->sun_path)) {
			set_error("syslog sink: %s: bad unix socket path", url);
			return -EINVAL;
		}
		s->tr = T_UNIX;
		un->sun_family = AF_UNIX;
		strcpy(un->sun_path, p);
		s->addrlen = (socklen_t)sizeof(*un);
		return 0;
	}
	if (strncmp(url, "udp://", 6) == 0) {
		s->tr = T_UDP;
	} else if (strncmp(url, "tcp://", 6) == 0) {
		s->tr = T_TCP;
	} else if (strncmp(url, "relp://", 7) == 0) {
		s->tr = T_RELP;
	} else {
		set_error("syslog sink: %s: unknown scheme (want udp://, tcp://, relp:// or unix:)",
			  url);
		return -EINVAL;
	}
	p = strstr(url, "://") + 3;
	if (p[0] == '[') {
		const char *end = strchr(p, ']');

		if (end == NULL || (end[1] != '\0' && end[1] != ':')) {
			set_error("syslog sink: %s: bad IPv6 literal", url);
			return -EINVAL;
		}
		hl = (size_t)(end - p - 1);
		p++;
		colon = end[1] == ':' ? end + 1 : NULL;
	} else {
		colon = strchr(p, ':');
		hl = colon != NULL ? (size_t)(colon - p) : strlen(p);
	}
	if (hl == 0 || hl >= sizeof(host) || strchr(p, '/') != NULL) {
		set_error("syslog sink: %s: bad host", url);
		return -EINVAL;
	}
	memcpy(host, p, hl);
	host[hl] = '\0';
	if (colon != NULL) {
		char *end;
		long v = strtol(colon + 1, &end, 10);

		if (colon[1] == '\0' || *end != '\0' || v < 1 || v > 65535) {
			set_error("syslog sink: %s: bad port", url);
			return -EINVAL;
		}
		snprintf(port, sizeof(port), "%ld", v);
	}
	hints.ai_socktype = s->tr == T_UDP ? SOCK_DGRAM : SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV;
	rc = getaddrinfo(host, port, &hints, &res);
	if (rc != 0 || res == NULL) {
		set_error("syslog sink: %s: cannot resolve host '%s': %s", url, host,
			  gai_strerror(rc));
		return -EHOSTUNREACH;
	}
	memcpy(&s->addr, res->ai_addr, res->ai_addrlen);
	s->addrlen = res->ai_addrlen;
	freeaddrinfo(res);
	return 0;
}

struct llog_sink *llog_syslog_sink(const struct llog_syslog_options *opt)
{
	struct syslog_sink *s;
	char host[256];
	int rc;

	llog__sink_set_error("%s", "");
	if (opt == NULL || opt->url == NULL) {
		set_error("syslog sink: no url");
		errno = EINVAL;
		return NULL;
	}
	if ((unsigned)opt->level > LLOG_OFF || opt->facility < 0 || opt->facility > 23 ||
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
	if ((rc = parse_url(s, opt->url)) != 0) {
		free(s);
		errno = -rc;
		return NULL;
	}
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
	s->max_udp = opt->max_udp_bytes ? opt->max_udp_bytes : DEFAULT_UDP_MAX;
	s->backoff_ms = BACKOFF_MIN_MS;
	if (opt->hostname == NULL && gethostname(host, sizeof(host)) != 0)
		strcpy(host, "-");
	host[sizeof(host) - 1] = '\0';
	copy_token(s->host, sizeof(s->host), opt->hostname != NULL ? opt->hostname : host);
	copy_token(s->app, sizeof(s->app),
		   opt->app_name != NULL ? opt->app_name : program_invocation_short_name);
	s->qcap = s->bound + MSG_MAX + 4;
	s->q = malloc(s->qcap);
	if (s->q == NULL) {
		set_error("syslog sink: out of memory");
		free(s);
		errno = ENOMEM;
		return NULL;
	}
	return &s->base;
}
