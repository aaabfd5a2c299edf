/*
 * sink.h - helpers shared by llog's own backends (internal). The sink
 * interface itself is public: include/llog/sinks.h.
 */
#ifndef LLOG_SINK_H
#define LLOG_SINK_H

#include <llog.h>
#include <llog/sinks.h>

#define LLOG__SINK_VERSION LLOG_SINK_VERSION

/* Writes all of buf to fd: retries EINTR and short writes, waits (poll,
 * bounded by timeout_ms in total) on EAGAIN; never raises SIGPIPE for
 * sockets. Returns bytes written or a negative errno. */
long llog__write_all(int fd, const char *buf, size_t len, int timeout_ms);

#endif /* LLOG_SINK_H */
