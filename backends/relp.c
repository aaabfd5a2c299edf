/*
 * relp.c - the RELP client session of the syslog sink: the frame parser,
 * the session (open, close) and the acknowledgement window.
 *
 * DESIGN
 * RELP is the Reliable Event Logging Protocol of rsyslog's imrelp. This
 * client is written here from the protocol description (no librelp): the
 * sink needs only a small part of it, with no allocation and no thread.
 * Every frame, both ways, is
 *   TXNR SP COMMAND SP DATALEN [SP DATA] LF
 * with TXNR and DATALEN of 1..9 decimal digits and COMMAND of 1..32
 * letters. A session starts with an "open" frame offering relp_version=0
 * and commands=syslog (transaction 1), which the collector must answer
 * with "1 rsp LEN 200 OK...". Each message is then a frame
 *   TXNR SP "syslog" SP DATALEN SP MESSAGE LF
 * (llog__relp_prefix; the sink sends the message and the LF) and the
 * collector answers each with "TXNR rsp LEN 200 OK". The session ends with
 * our "close" (its answer not awaited) or the collector's "serverclose".
 *
 * Window: transaction numbers run 1..RELP_TXNR_MAX, then 1 again. The
 * collector acknowledges in order, so
 *   the txnr of each "rsp" == txnr_oldest, which then advances;
 *   txnr_oldest + nflight == txnr_next (counting through the wrap);
 *   nflight <= LLOG__RELP_WINDOW (the sink stops sending when it is full).
 * Each acknowledgement goes to the owner (acked callback), whose oldest
 * message in flight is the head of its queue; a negative one (not "200")
 * is reported as not ok and shown with llog__diag (the owner counts the
 * message lost). Anything else, an "rsp" out of order or with nothing in
 * flight, a malformed frame, a frame longer than LLOG__RELP_RX_CAP, EOF,
 * is an error that ends the session; the owner then sends every message
 * in flight again, in order, on the next one. So a collector restart loses
 * nothing, and a duplicate is possible only for a message the collector
 * processed but whose acknowledgement never reached us.
 *
 * llog__relp_parse is a pure function of its bytes, so the fuzz target
 * (tests/tools/fuzz_relp.c) drives it, and llog__relp_handle, alone.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "sink.h"
#include "net.h"
#include "relp.h"

#define RELP_TXNR_MAX 999999999u
#define RELP_OFFER "relp_version=0\nrelp_software=llog\ncommands=syslog"
#define DIAG_DATA_MAX 200 /* bytes of a refusal shown in a diagnostic */

static uint32_t txnr_after(uint32_t t)
{
	return t >= RELP_TXNR_MAX ? 1 : t + 1;
}

/* ---- the frame parser ---------------------------------------------------- */

/* Reads a decimal of 1..9 digits at p[*i..n). Returns 1 with *v, 0 when
 * the buffer ends first, -1 when malformed. */
static int parse_num(const char *p, size_t n, size_t *i, uint32_t *v)
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

static int is_letter(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

long llog__relp_parse(const char *p, size_t n, struct llog__relp_frame *f)
{
	size_t i = 0, cl = 0;
	uint32_t dl;
	int r;

	if ((r = parse_num(p, n, &i, &f->txnr)) <= 0)
		return r < 0 ? -EPROTO : 0;
	if (p[i++] != ' ') /* i < n: parse_num saw a byte after the digits */
		return -EPROTO;
	f->cmd = p + i;
	while (i < n && is_letter(p[i]))
		i++, cl++;
	if (i == n)
		return 0;
	if (cl == 0 || cl > 32 || p[i++] != ' ')
		return -EPROTO;
	if ((r = parse_num(p, n, &i, &dl)) <= 0)
		return r < 0 ? -EPROTO : 0;
	if (dl > 0 && p[i++] != ' ')
		return -EPROTO;
	if (dl >= LLOG__RELP_RX_CAP)
		return -EPROTO;
	if (n < i + dl + 1)
		return 0;
	if (p[i + dl] != '\n')
		return -EPROTO;
	f->cmd_len = cl;
	f->data = p + i;
	f->data_len = dl;
	return (long)(i + dl + 1);
}

/* ---- the session --------------------------------------------------------- */

void llog__relp_init(struct llog__relp *r, llog__relp_acked_fn *acked, void *ctx)
{
	memset(r, 0, sizeof(*r));
	r->acked = acked;
	r->ctx = ctx;
}

void llog__relp_reset(struct llog__relp *r)
{
	r->nflight = 0;
	r->open = 0;
	r->rxn = 0;
}

static int is_cmd(const struct llog__relp_frame *f, const char *cmd)
{
	return f->cmd_len == strlen(cmd) && memcmp(f->cmd, cmd, f->cmd_len) == 0;
}

/* One frame from the collector: "rsp" acknowledges (in order) the open or
 * the oldest message in flight; "serverclose" ends the session. */
static int handle_frame(struct llog__relp *r, const struct llog__relp_frame *f)
{
	int ok = f->data_len >= 3 && memcmp(f->data, "200", 3) == 0;
	int shown = (int)(f->data_len > DIAG_DATA_MAX ? DIAG_DATA_MAX : f->data_len);

	if (is_cmd(f, "serverclose"))
		return -ECONNRESET;
	if (!is_cmd(f, "rsp"))
		return 0; /* nothing else is meant for a client: ignored */
	if (!r->open) {
		if (f->txnr != 1)
			return -EPROTO;
		if (!ok) {
			llog__diag("syslog sink: RELP collector refused the session: %.*s", shown,
				   f->data);
			return -ECONNREFUSED;
		}
		r->open = 1;
		return 0;
	}
	if (r->nflight == 0 || f->txnr != r->txnr_oldest)
		return -EPROTO;
	if (!ok)
		llog__diag("syslog sink: RELP collector rejected a message: %.*s", shown, f->data);
	r->acked(r->ctx, ok);
	r->nflight--;
	r->txnr_oldest = txnr_after(r->txnr_oldest);
	return 0;
}

int llog__relp_handle(struct llog__relp *r, const char *p, size_t n, size_t *used)
{
	struct llog__relp_frame f;
	long len;
	int rc;

	*used = 0;
	while (*used < n && (len = llog__relp_parse(p + *used, n - *used, &f)) != 0) {
		if (len < 0)
			return (int)len;
		if ((rc = handle_frame(r, &f)) != 0)
			return rc;
		*used += (size_t)len;
	}
	return 0;
}

/* Handles the complete frames in rx and keeps the rest. */
static int handle_rx(struct llog__relp *r)
{
	size_t used;
	int rc = llog__relp_handle(r, r->rx, r->rxn, &used);

	if (rc != 0)
		return rc;
	if (used == 0 && r->rxn == sizeof(r->rx))
		return -EPROTO; /* a frame larger than we accept */
	memmove(r->rx, r->rx + used, r->rxn - used);
	r->rxn -= used;
	return 0;
}

int llog__relp_read(struct llog__relp *r, int fd, int wait, int64_t deadline)
{
	for (;;) {
		ssize_t got = recv(fd, r->rx + r->rxn, sizeof(r->rx) - r->rxn, MSG_DONTWAIT);
		int rc;

		if (got > 0) {
			r->rxn += (size_t)got;
			if ((rc = handle_rx(r)) != 0)
				return rc;
			wait = 0;
			continue;
		}
		if (got == 0)
			return -ECONNRESET;
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN)
			return -errno;
		if (!wait)
			return 0;
		if (llog__net_wait(fd, POLLIN, deadline) != 0)
			return -EAGAIN;
	}
}

/* Sends a command frame of the session itself (open, close). */
static int send_command(struct llog__relp *r, int fd, const char *cmd, const char *data,
			int64_t deadline)
{
	char f[256];
	size_t dl = strlen(data), off = 0;
	int n = dl > 0 ? snprintf(f, sizeof(f), "%u %s %zu %s\n", r->txnr_next, cmd, dl, data)
		       : snprintf(f, sizeof(f), "%u %s 0\n", r->txnr_next, cmd);

	r->txnr_next = txnr_after(r->txnr_next);
	while (off < (size_t)n) {
		ssize_t w = send(fd, f + off, (size_t)n - off, MSG_NOSIGNAL | MSG_DONTWAIT);

		if (w >= 0) {
			off += (size_t)w;
		} else if (errno == EAGAIN || errno == EINTR) {
			if (llog__net_wait(fd, POLLOUT, deadline) != 0)
				return -ETIMEDOUT;
		} else {
			return -errno;
		}
	}
	return 0;
}

int llog__relp_open(struct llog__relp *r, int fd, int64_t deadline)
{
	int rc;

	r->txnr_next = 1;
	r->rxn = 0;
	r->open = 0;
	rc = send_command(r, fd, "open", RELP_OFFER, deadline);
	while (rc == 0 && !r->open)
		rc = llog__relp_read(r, fd, 1, deadline);
	if (rc == 0)
		r->txnr_oldest = r->txnr_next;
	return rc == -EAGAIN ? -ETIMEDOUT : rc;
}

void llog__relp_close(struct llog__relp *r, int fd, int64_t deadline)
{
	(void)send_command(r, fd, "close", "", deadline);
}

size_t llog__relp_prefix(const struct llog__relp *r, size_t len, char *pre, size_t cap)
{
	return (size_t)snprintf(pre, cap, "%u syslog %zu ", r->txnr_next, len);
}

void llog__relp_sent(struct llog__relp *r)
{
	r->nflight++;
	r->txnr_next = txnr_after(r->txnr_next);
}
