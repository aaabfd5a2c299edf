/*
 * net.h - waiting on a non-blocking socket until a deadline (internal;
 * the syslog sink, its RELP session and the journald sink share it).
 *
 * DESIGN
 * Sockets in backends/ are non-blocking and every operation on them is
 * bounded by a deadline in llog__mono_ms() milliseconds, not by a timeout
 * per call: a loop that retries after EINTR or a short send waits no
 * longer in total than the first wait alone could.
 */
#ifndef LLOG_NET_H
#define LLOG_NET_H

#include <errno.h>
#include <poll.h>
#include <stdint.h>

#include "sink.h"

/* Waits until fd is ready for `events` (POLLIN, POLLOUT) or the deadline
 * passes. Returns 0 when ready or interrupted by a signal (the caller
 * retries), -ETIMEDOUT after the deadline, or another negative errno. */
static inline int llog__net_wait(int fd, short events, int64_t deadline)
{
	struct pollfd p = {.fd = fd, .events = events};
	int64_t left = deadline - llog__mono_ms();
	int rc;

	if (left <= 0)
		return -ETIMEDOUT;
	rc = poll(&p, 1, (int)left);
	if (rc < 0)
		return errno == EINTR ? 0 : -errno;
	return rc == 0 ? -ETIMEDOUT : 0;
}

#endif /* LLOG_NET_H */
