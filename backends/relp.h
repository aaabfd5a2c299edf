/*
 * relp.h - the RELP client session of the syslog sink (internal: included
 * by backends/syslog_sink.h, used by backends/syslog.c and, for the
 * framing, syslog_transport.c, and by the fuzz target
 * tests/tools/fuzz_relp.c).
 *
 * Three layers, each usable without the ones below it:
 *   llog__relp_parse    bytes -> one frame. Pure: no state, no I/O, reads
 *                       only p[0..n).
 *   llog__relp_handle   frames -> the session: acknowledgements, in order,
 *                       through the owner's callback.
 *   open, read, close   the session on a connected non-blocking socket.
 * The owner (the sink) owns the socket and the queue: this code never
 * closes the socket and never touches a queued message. It says "the
 * oldest message in flight was acknowledged, ok or not", and the owner
 * drops it from its queue. A negative errno from any call means the
 * session is broken: the owner closes the connection and calls
 * llog__relp_reset.
 *
 * Not thread-safe: one session is used by one thread (the flusher). None
 * of these allocate; open, read and close make system calls and may block
 * until their deadline (llog__mono_ms() milliseconds).
 */
#ifndef LLOG_RELP_H
#define LLOG_RELP_H

#include <stddef.h>
#include <stdint.h>

#define LLOG__RELP_WINDOW 128   /* messages in flight, at most */
#define LLOG__RELP_MAX_MSG 8000 /* bytes of a message, at most (the sink cuts) */
#define LLOG__RELP_RX_CAP 4096  /* received bytes not yet handled, at most */

/* One frame: TXNR SP COMMAND SP DATALEN [SP DATA] LF. cmd and data point
 * into the parsed bytes. */
struct llog__relp_frame {
	uint32_t txnr;      /* 1..9 digits */
	const char *cmd;    /* 1..32 letters */
	size_t cmd_len;
	const char *data;   /* DATALEN bytes, followed by the LF */
	size_t data_len;    /* < LLOG__RELP_RX_CAP */
};

/* Parses the frame at the start of p[0..n). Returns its length in bytes
 * when complete (*f filled; p[length - 1] is its LF, right after the
 * DATALEN bytes of data), 0 when p is a proper prefix of a frame (more
 * bytes needed; *f undefined), or -EPROTO when malformed. */
long llog__relp_parse(const char *p, size_t n, struct llog__relp_frame *f);

/* The owner's callback: the oldest message in flight was acknowledged,
 * ok == 1 ("200"), or ok == 0 (rejected: the collector will not have it). */
typedef void llog__relp_acked_fn(void *ctx, int ok);

/* A session. The owner embeds it and reads no field but through the
 * functions below (the fuzz target sets open and the window directly). */
struct llog__relp {
	llog__relp_acked_fn *acked;
	void *ctx;
	int open;             /* the collector accepted our "open" */
	uint32_t txnr_next;   /* txnr of the next frame we send */
	uint32_t txnr_oldest; /* txnr of the oldest message in flight */
	uint32_t nflight;     /* messages sent, not yet acknowledged */
	size_t rxn;
	char rx[LLOG__RELP_RX_CAP]; /* received, not yet handled */
};

/* A closed session that will report acknowledgements to acked(ctx, ok). */
void llog__relp_init(struct llog__relp *r, llog__relp_acked_fn *acked, void *ctx);

/* The connection is gone: nothing is in flight any more (the owner sends
 * it all again on the next session), nothing received is kept. */
void llog__relp_reset(struct llog__relp *r);

/* Handles the complete frames in p[0..n): "rsp" acknowledges the open or,
 * through the callback, the oldest message in flight; "serverclose" ends
 * the session; other commands are ignored. *used: the bytes of the frames
 * handled (those after them are the start of an incomplete frame when 0
 * is returned). Returns 0, or -EPROTO (malformed, out of order),
 * -ECONNRESET (serverclose), -ECONNREFUSED (the open was refused). */
int llog__relp_handle(struct llog__relp *r, const char *p, size_t n, size_t *used);

/* Opens a session on the connected socket fd (transaction 1) and waits
 * for the collector to accept it. Returns 0, -ETIMEDOUT, or a negative
 * errno. */
int llog__relp_open(struct llog__relp *r, int fd, int64_t deadline);

/* Reads and handles what the collector sent. wait: until at least one
 * read returned data. Returns 0, -EAGAIN when the deadline passed while
 * waiting (the session is intact), or another negative errno. */
int llog__relp_read(struct llog__relp *r, int fd, int wait, int64_t deadline);

/* Sends "close", the polite end of a session; its answer is not awaited
 * and a failure is ignored (the owner closes the socket next). */
void llog__relp_close(struct llog__relp *r, int fd, int64_t deadline);

/* The framing before a message of len bytes, "TXNR syslog LEN ", into
 * pre[0..cap) (as snprintf). The frame is the prefix, the message and an
 * LF; once it is sent whole, the owner calls llog__relp_sent. */
size_t llog__relp_prefix(const struct llog__relp *r, size_t len, char *pre, size_t cap);
void llog__relp_sent(struct llog__relp *r);

/* Messages in flight, and whether the window is full (send no more until
 * an acknowledgement arrives). */
static inline uint32_t llog__relp_in_flight(const struct llog__relp *r)
{
	return r->nflight;
}

static inline int llog__relp_window_full(const struct llog__relp *r)
{
	return r->nflight >= LLOG__RELP_WINDOW;
}

#endif /* LLOG_RELP_H */
