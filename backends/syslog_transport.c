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
 *                        ECONNREFUSED reports an earlier datagram
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
