/*
 * fuzz_relp.c - libFuzzer target over the RELP client of the syslog sink
 * (backends/relp.c, compiled in): the input is what a collector sends.
 *
 * Checked, besides ASan and UBSan (no read past the input, which libFuzzer
 * hands over in a buffer of exactly its size):
 *  - llog__relp_parse: a complete frame lies within the input, its LF is
 *    right after the DATALEN bytes of data, its fields are in range, and
 *    every proper prefix of it is reported incomplete (0);
 *  - llog__relp_handle on a session with messages in flight: consumes
 *    whole frames only (used <= length, the rest parses as incomplete),
 *    acknowledges no more than is in flight, each "rsp" the oldest one
 *    (its txnr in order), and keeps txnr_oldest + nflight == txnr_next;
 *  - llog__relp_read, the input arriving on a socket in two pieces (split
 *    at a point taken from the input): the same outcome and the same
 *    acknowledgements as handling it whole.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "sink.h" /* the prototypes of the two stubs below */
#include "relp.h"

/* NDEBUG is set in release builds: a check of our own. */
#define CHECK(c)                                                                     \
	do {                                                                         \
		if (!(c)) {                                                          \
			fprintf(stderr, "fuzz_relp: %s:%d: %s\n", __FILE__, __LINE__, #c); \
			abort();                                                     \
		}                                                                    \
	} while (0)

#define TXNR_MAX 999999999u

/* relp.c's calls into the rest of llog. The diagnostic is formatted (its
 * "%.*s" reads the frame's data) and dropped; the clock only bounds waits,
 * and the target never waits. */
void llog__diag(const char *fmt, ...)
{
	char line[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
}

int64_t llog__mono_ms(void)
{
	return 0;
}

static uint32_t txnr_after(uint32_t t)
{
	return t >= TXNR_MAX ? 1 : t + 1;
}

static void check_frame(const char *p, size_t n, long len, const struct llog__relp_frame *f)
{
	struct llog__relp_frame g;

	CHECK(len > 0 && (size_t)len <= n);
	CHECK(p[len - 1] == '\n');
	CHECK(f->data == p + len - 1 - f->data_len);
	CHECK(f->data_len < LLOG__RELP_RX_CAP);
	CHECK(f->txnr <= TXNR_MAX);
	CHECK(f->cmd_len >= 1 && f->cmd_len <= 32);
	CHECK(f->cmd > p && f->cmd + f->cmd_len < f->data);
	for (size_t i = 0; i < f->cmd_len; i++)
		CHECK((f->cmd[i] | 0x20) >= 'a' && (f->cmd[i] | 0x20) <= 'z');
	/* Incomplete is never mistaken for complete or malformed. */
	CHECK(llog__relp_parse(p, 0, &g) == 0);
	CHECK(llog__relp_parse(p, (size_t)len - 1, &g) == 0);
	CHECK(llog__relp_parse(p, (size_t)len / 2, &g) == 0);
}

/* Every frame the input starts with. Returns the bytes they take. */
static size_t parse_all(const char *p, size_t n)
{
	struct llog__relp_frame f;
	size_t at = 0;
	long len;

	while (at < n && (len = llog__relp_parse(p + at, n - at, &f)) > 0) {
		check_frame(p + at, n - at, len, &f);
		at += (size_t)len;
	}
	CHECK(at <= n);
	return at;
}

struct acks {
	uint32_t n, rejected;
};

static void on_ack(void *ctx, int ok)
{
	struct acks *a = ctx;

	a->n++;
	a->rejected += !ok;
}

/* A session as llog__relp_open leaves it, the window placed where the
 * input's first frame acknowledges (a first frame "1 rsp" answers the
 * open), with a number of messages in flight taken from the last byte. */
static void session(struct llog__relp *r, struct acks *a, const char *p, size_t n)
{
	struct llog__relp_frame f;
	uint32_t first = llog__relp_parse(p, n, &f) > 0 ? f.txnr : 0;

	memset(a, 0, sizeof(*a));
	llog__relp_init(r, on_ack, a);
	r->open = first != 1;
	r->txnr_next = r->txnr_oldest = first > 1 ? first : 2;
	for (uint32_t k = n > 0 ? (uint8_t)p[n - 1] % (LLOG__RELP_WINDOW + 1) : 3; k > 0; k--)
		llog__relp_sent(r);
}

static void check_window(const struct llog__relp *r, uint32_t acked, uint32_t flight0,
			 uint32_t oldest0)
{
	uint32_t t = oldest0;

	CHECK(acked <= flight0);
	CHECK(r->nflight == flight0 - acked);
	for (uint32_t i = 0; i < acked; i++)
		t = txnr_after(t);
	CHECK(r->txnr_oldest == t);
	for (uint32_t i = 0; i < r->nflight; i++)
		t = txnr_after(t);
	CHECK(r->txnr_next == t);
}

/* The frames handled, p[0..used): each "rsp" answered the open (when it
 * was not) or acknowledged the oldest message in flight, in order. */
static void check_in_order(const char *p, size_t used, int open, uint32_t oldest,
			   uint32_t acked)
{
	struct llog__relp_frame f;
	uint32_t n = 0;
	long len;

	for (size_t at = 0; at < used; at += (size_t)len) {
		len = llog__relp_parse(p + at, used - at, &f);
		CHECK(len > 0);
		if (f.cmd_len != 3 || memcmp(f.cmd, "rsp", 3) != 0)
			continue;
		if (!open) {
			CHECK(f.txnr == 1);
			open = 1;
			continue;
		}
		CHECK(f.txnr == oldest);
		oldest = txnr_after(oldest);
		n++;
	}
	CHECK(n == acked);
}

/* The same bytes through a socket, in two pieces. */
static int read_in_pieces(struct llog__relp *r, const char *p, size_t n, size_t cut)
{
	int sv[2], rc;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
		return -EAGAIN;
	rc = write(sv[1], p, cut) == (ssize_t)cut ? llog__relp_read(r, sv[0], 0, 0) : -EAGAIN;
	if (rc == 0)
		rc = write(sv[1], p + cut, n - cut) == (ssize_t)(n - cut)
			     ? llog__relp_read(r, sv[0], 0, 0)
			     : -EAGAIN;
	close(sv[0]);
	close(sv[1]);
	return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data;
	struct llog__relp r, r2;
	struct acks a, a2;
	uint32_t flight0, oldest0;
	int open0;
	size_t used, framed = parse_all(p, size);
	int rc, rc2;

	session(&r, &a, p, size);
	flight0 = r.nflight;
	oldest0 = r.txnr_oldest;
	open0 = r.open;
	rc = llog__relp_handle(&r, p, size, &used);
	CHECK(used <= framed);
	check_window(&r, a.n, flight0, oldest0);
	check_in_order(p, used, open0, oldest0, a.n);
	if (rc == 0) {
		struct llog__relp_frame f;

		CHECK(used == framed);
		CHECK(used == size || llog__relp_parse(p + used, size - used, &f) == 0);
	}
	if (size >= LLOG__RELP_RX_CAP)
		return 0; /* the receive buffer's bound makes a difference */
	session(&r2, &a2, p, size);
	rc2 = read_in_pieces(&r2, p, size, size ? data[0] % (size + 1) : 0);
	if (rc2 == -EAGAIN)
		return 0; /* no socket: nothing to compare */
	CHECK(rc2 == rc);
	CHECK(a2.n == a.n && a2.rejected == a.rejected);
	CHECK(r2.nflight == r.nflight && r2.txnr_oldest == r.txnr_oldest && r2.open == r.open);
	return 0;
}
