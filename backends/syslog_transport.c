/*
 * syslog_transport.c - the syslog sink's transports: one descriptor per
 * URL scheme, the URL parsed into a descriptor and an address, and a
 * message framed for its transport.
 *
 * DESIGN
 * What differs between the transports (socket type, framing, longest
 * message, acknowledgements) is one struct llog__syslog_transport each,
 * chosen once from the URL's scheme; nothing branches on the scheme after
 * that.
 *   udp://HOST[:PORT]    datagrams, cut to max_udp_bytes (default 2048); an
 *                        ECONNREFUSED reports an earlier datagram (below)
 *   tcp://HOST[:PORT]    a stream, RFC 6587 octet counting: "LEN " MSG
 *   relp://HOST[:PORT]   a RELP session (relp.c): "TXNR syslog LEN " MSG LF
 *   unix:PATH, unix://PATH   datagrams on a unix socket, never cut
 * HOST is a name, an IPv4 address or [IPv6]; PORT is 514 when not given.
 * The address is resolved once, here, when the sink is made.
 *
 * A frame is four parts, which syslog.c sends with sendmsg from any byte on:
 *   prefix(len) | message[0..cut) | "...[truncated]" when cut | trailer
 *   cut == n, or max_msg - 14 when n > max_msg != 0;  len == cut + 14 when
 *   cut, else n (the prefix announces the length of what follows it)
 * so a cut message with its mark is max_msg bytes. RELP messages are cut to
 * LLOG__RELP_MAX_MSG bytes (rsyslog's default maxMessageSize is 8 KiB; a
 * longer frame makes imrelp abort the session, which would resend it
 * forever).
 *
 * Refused datagrams (UDP): a datagram to a port nothing listens on is
 * answered by an ICMP port unreachable after it left; a later send then
 * fails with ECONNREFUSED (that send did not happen and is retried). The
 * socket is made with IP_RECVERR (IPV6_RECVERR), so the kernel queues one
 * error per ICMP error received, each naming one datagram that was lost;
 * llog__syslog_refusals reads that queue. Every such datagram is so
 * counted once, in sink_lost (syslog.c), when the sink next looks: at each
 * refused send, each drain and at close. Not knowable, so not counted: a
 * datagram whose ICMP error never comes (a firewall, ICMP rate limits on
 * other hosts than this one, a collector that reads nothing) or comes after
 * the sink closed its socket, and errors beyond the socket's receive
 * buffer, which the kernel drops.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <linux/errqueue.h>

#include "syslog_sink.h"

#define DEFAULT_UDP_MAX 2048
#define TRUNC_MARK "...[truncated]"
#define MARK_LEN (sizeof(TRUNC_MARK) - 1)

#define set_error llog__sink_set_error

/* ---- the descriptors ----------------------------------------------------- */

/* "LEN " (RFC 6587 octet counting). */
static size_t octet_count_prefix(const struct llog__syslog_sink *s, size_t len, char *pre,
				 size_t cap)
{
	(void)s;
	return (size_t)snprintf(pre, cap, "%zu ", len);
}

/* "TXNR syslog LEN " */
static size_t relp_prefix(const struct llog__syslog_sink *s, size_t len, char *pre, size_t cap)
{
	return llog__relp_prefix(&s->relp, len, pre, cap);
}

static const struct llog__syslog_transport transport_udp = {
	.scheme = "udp://", .socktype = SOCK_DGRAM, .stale_refusal = 1,
	.max_msg = DEFAULT_UDP_MAX, .max_msg_option = 1, .trailer = "",
};
static const struct llog__syslog_transport transport_tcp = {
	.scheme = "tcp://", .socktype = SOCK_STREAM, .unacked = 1,
	.prefix = octet_count_prefix, .trailer = "",
};
static const struct llog__syslog_transport transport_relp = {
	.scheme = "relp://", .socktype = SOCK_STREAM, .acked = 1,
	.max_msg = LLOG__RELP_MAX_MSG, .prefix = relp_prefix, .trailer = "\n",
};
static const struct llog__syslog_transport transport_unix = {
	.scheme = "unix:", .socktype = SOCK_DGRAM, .unix_path = 1, .trailer = "",
};
static const struct llog__syslog_transport *const transports[] = {
	&transport_udp, &transport_tcp, &transport_relp, &transport_unix,
};

/* ---- the URL ------------------------------------------------------------- */

/* "unix:PATH" or "unix://PATH" (p: after "unix:"). */
static int parse_unix_path(struct llog__syslog_sink *s, const char *url, const char *p)
{
	struct sockaddr_un *un = (struct sockaddr_un *)&s->addr;

	if (strncmp(p, "//", 2) == 0)
		p += 2;
	if (p[0] == '\0' || strlen(p) >= sizeof(un->sun_path)) {
		set_error("syslog sink: %s: bad unix socket path", url);
		return -EINVAL;
	}
	un->sun_family = AF_UNIX;
	strcpy(un->sun_path, p);
	s->addrlen = (socklen_t)sizeof(*un);
	return 0;
}

/* "HOST[:PORT]" or "[IPV6][:PORT]" (p: after the scheme), resolved. */
static int parse_host_port(struct llog__syslog_sink *s, const char *url, const char *p)
{
	char host[256], port[16] = "514";
	const char *colon;
	struct addrinfo hints = {0}, *res = NULL;
	size_t hl;
	int rc;

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
	hints.ai_socktype = s->tr->socktype;
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

/* Chooses the transport by the URL's scheme, then its address. */
int llog__syslog_parse_url(struct llog__syslog_sink *s, const char *url)
{
	for (size_t i = 0; i < sizeof(transports) / sizeof(transports[0]); i++) {
		size_t sl = strlen(transports[i]->scheme);

		if (strncmp(url, transports[i]->scheme, sl) != 0)
			continue;
		s->tr = transports[i];
		return s->tr->unix_path ? parse_unix_path(s, url, url + sl)
				   : parse_host_port(s, url, url + sl);
	}
	set_error("syslog sink: %s: unknown scheme (want udp://, tcp://, relp:// or unix:)", url);
	return -EINVAL;
}

/* ---- framing ------------------------------------------------------------- */

void llog__syslog_frame(const struct llog__syslog_sink *s, const char *m, size_t n,
			struct llog__syslog_frame *f)
{
	size_t cut = s->max_msg != 0 && n > s->max_msg ? s->max_msg - MARK_LEN : n;
	size_t tl = cut < n ? MARK_LEN : 0; /* the frame carries the cut length */
	size_t pl = s->tr->prefix != NULL ? s->tr->prefix(s, cut + tl, f->pre, sizeof(f->pre)) : 0;

	f->part[0] = (struct iovec){f->pre, pl};
	f->part[1] = (struct iovec){(char *)m, cut};
	f->part[2] = (struct iovec){(char *)TRUNC_MARK, tl};
	f->part[3] = (struct iovec){(char *)s->tr->trailer, strlen(s->tr->trailer)};
	f->total = pl + cut + tl + f->part[3].iov_len;
}

/* ---- refused datagrams --------------------------------------------------- */

void llog__syslog_watch_refusals(const struct llog__syslog_sink *s, int fd)
{
	int on = 1;

	if (!s->tr->stale_refusal)
		return;
	if (s->addr.ss_family == AF_INET6)
		(void)setsockopt(fd, IPPROTO_IPV6, IPV6_RECVERR, &on, sizeof(on));
	else
		(void)setsockopt(fd, IPPROTO_IP, IP_RECVERR, &on, sizeof(on));
}

uint64_t llog__syslog_refusals(const struct llog__syslog_sink *s, int fd)
{
	uint64_t n = 0;

	if (!s->tr->stale_refusal || fd < 0)
		return 0;
	for (;;) {
		char data[64];
		union {
			struct cmsghdr align;
			char buf[512];
		} ctl;
		struct iovec iov = {data, sizeof(data)};
		struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf,
				    .msg_controllen = sizeof(ctl.buf)};

		if (recvmsg(fd, &mh, MSG_ERRQUEUE | MSG_DONTWAIT) < 0)
			return n; /* EAGAIN: the queue is empty */
		for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c != NULL; c = CMSG_NXTHDR(&mh, c)) {
			struct sock_extended_err ee;

			if (!((c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_RECVERR) ||
			      (c->cmsg_level == IPPROTO_IPV6 && c->cmsg_type == IPV6_RECVERR)))
				continue;
			memcpy(&ee, CMSG_DATA(c), sizeof(ee));
			/* An ICMP error names one datagram that did not
			 * arrive; local errors failed a send, which said so. */
			if (ee.ee_origin == SO_EE_ORIGIN_ICMP || ee.ee_origin == SO_EE_ORIGIN_ICMP6)
				n++;
		}
	}
}
