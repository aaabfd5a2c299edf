/*
 * syslog_sink.h - what the three files of the syslog sink share (internal;
 * the sink is llog_syslog_sink in include/llog/sinks.h).
 *
 * DESIGN
 * The sink is one struct, llog__syslog_sink, used by one thread (the
 * flusher) and split by concern:
 *   syslog.c            the sink proper: its queue's policy (the bound, the
 *                       accounting, the notices), connect, send, drain,
 *                       the sink operations, construction; it alone
 *                       changes the connection and the queue
 *   syslog_transport.c  the transports: one descriptor per URL scheme, the
 *                       URL parsed into descriptor and address, a message
 *                       framed for its transport
 *   syslog_fmt.c        an entry as one RFC 5424 message, the drop notice's
 *                       text, the header's host and app tokens
 * The last two never touch the socket or the queue: they read the struct
 * and write only what their comments below say.
 */
#ifndef LLOG_SYSLOG_SINK_H
#define LLOG_SYSLOG_SINK_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "sink.h"
#include "relp.h"
#include "syslog_queue.h"

struct llog__syslog_sink;

/* What differs between the transports: one static instance each, chosen
 * when the URL is parsed (syslog_transport.c). A frame is prefix, message,
 * trailer. */
struct llog__syslog_transport {
	const char *scheme;   /* how the URL starts */
	int socktype;         /* SOCK_DGRAM: a send is a whole message or nothing */
	int unix_path;        /* the URL names a unix socket, not host:port */
	int stale_refusal;    /* ECONNREFUSED reports an earlier datagram (UDP) */
	int unacked;          /* a stream without acknowledgements (TCP): peeked
			       * at before sending; its breaking may lose what
			       * was in flight, which the next notice says */
	int acked;            /* a RELP session: messages stay queued until
			       * acknowledged; notices are queued too */
	size_t max_msg;       /* longer messages are cut; 0: never */
	int max_msg_option;   /* max_msg is max_udp_bytes when that is set */
	size_t (*prefix)(const struct llog__syslog_sink *s, size_t len, char *pre, size_t cap);
	const char *trailer;  /* "" when none */
};

struct llog__syslog_sink {
	struct llog_sink base; /* first */
	const struct llog__syslog_transport *tr;
	struct sockaddr_storage addr;
	socklen_t addrlen;
	int fd;                  /* -1 when not connected */
	char host[256], app[49];
	int facility;
	long pid;                /* PROCID (renewed in a fork child) */
	size_t bound, max_msg;
	int timeout_ms;
	struct llog__sq q;
	struct llog__relp relp;  /* the session, RELP only */
	uint64_t dropped;        /* dropped since the last notice */
	int broke;               /* a TCP connection broke since the last notice */
	int64_t next_try_ms;
	int backoff_ms;
	int stalled;             /* a drain from write() ran out of time: no
				  * more of them until the next commit */
	long bytes;              /* sent since the last commit */
	int err;                 /* first error since the last commit */
	struct llog_line_options line; /* MSG's timestamp options (no pattern) */
	struct llog__pattern *pat;     /* MSG's line pattern, or NULL */
};

/* ---- syslog_transport.c ---------------------------------------------------- */

/* Chooses s->tr by the URL's scheme and resolves its address into
 * s->addr, s->addrlen (the only fields written). May block in
 * getaddrinfo. Returns 0, -EINVAL (bad URL) or -EHOSTUNREACH (not
 * resolved), with the constructor's error text set. */
int llog__syslog_parse_url(struct llog__syslog_sink *s, const char *url);

/* A message framed for the transport, in four parts: prefix, message (cut
 * to max_msg when longer), the cut mark when cut, trailer. */
struct llog__syslog_frame {
	char pre[48];
	struct iovec part[4];
	size_t total;
};

/* Frames m[0..n) for s's transport into *f (which points into m). */
void llog__syslog_frame(const struct llog__syslog_sink *s, const char *m, size_t n,
			struct llog__syslog_frame *f);

/* UDP: asks the kernel to queue the ICMP errors fd receives (IP_RECVERR);
 * nothing for the other transports. */
void llog__syslog_watch_refusals(const struct llog__syslog_sink *s, int fd);
/* UDP: reads fd's error queue; returns how many datagrams sent on it were
 * reported lost by an ICMP error since the last call (0 for the other
 * transports). */
uint64_t llog__syslog_refusals(const struct llog__syslog_sink *s, int fd);

/* ---- syslog_fmt.c ---------------------------------------------------------- */

/* The entry as one RFC 5424 message into out[0..cap), its message cut
 * (and marked) where the whole would pass cap; *cut says whether it was.
 * Counts nothing. Returns its length. */
size_t llog__syslog_format(const struct llog__syslog_sink *s, const struct llog_entry *e,
			   char *out, size_t cap, int *cut);

/* The notice reporting s->dropped and s->broke into m[0..cap), cut at
 * cap. Returns its length; the caller resets what it reports. */
size_t llog__syslog_notice(const struct llog__syslog_sink *s, char *m, size_t cap);

/* Copies src into dst (cap bytes) as a header token: printable US-ASCII
 * but space (RFC 5424 PRINTUSASCII), others as '_'; "-" when src is NULL
 * or empty. */
void llog__syslog_token(char *dst, size_t cap, const char *src);

#endif /* LLOG_SYSLOG_SINK_H */
