/*
 * journald.c - the journald sink: systemd-journald's native protocol
 * (systemd's "Native Journal Protocol"), without libsystemd.
 *
 * DESIGN
 * write() encodes each entry as one journal entry, a run of fields
 *   NAME=value\n                              (a value without '\n')
 *   NAME\n <u64 little-endian length> value\n (any value: binary-safe)
 * and appends it to a FIFO (syslog_queue.h) bounded by buffer_bytes;
 * commit() sends the FIFO in order, one datagram per entry, on an
 * AF_UNIX SOCK_DGRAM socket connected to journald's socket. An entry the
 * socket refuses as too large (EMSGSIZE: past the send buffer; ENOBUFS:
 * within it but more than the kernel allocates in one piece, seen with
 * 5 MiB) or larger than max_datagram_bytes goes through a memfd: written, sealed
 * (F_SEAL_SHRINK|F_SEAL_GROW|F_SEAL_WRITE|F_SEAL_SEAL) and passed with
 * SCM_RIGHTS in an empty datagram. The sink runs on a thread of its own
 * (LLOG_SINK_F_MAY_BLOCK), so the socket's waits never reach the flusher.
 *
 * The socket is non-blocking; each commit's sending waits (poll) at most
 * timeout_ms in total. Journald down (ENOENT, ECONNREFUSED: no socket, or
 * a socket nobody reads; a restarted journald makes the old connection
 * refuse), or not reading within timeout_ms (EAGAIN: its receive queue is
 * full) is a sink error: the commit returns it (write_errors), the socket
 * is closed and the next attempt waits for a back-off from 50 ms doubling
 * to 5 s (reset by a datagram accepted); the FIFO is kept.
 *
 * Invariants, in records:
 *   received == sent + queued + dropped        (dropped: llog__stats_count_sink_lost)
 *   queued bytes <= buffer_bytes               (past it the oldest go)
 * and every dropped record is counted in the next notice: before anything
 * else once journald takes datagrams again, an entry "llog: N messages
 * dropped" (PRIORITY 4, LLOG_DROPPED=N). So, read back from the journal,
 *   records + sum(LLOG_DROPPED) == records received by the sink
 * unless datagrams that journald's socket had accepted were lost with a
 * journald that died before reading them: the protocol has no
 * acknowledgement, so such a loss cannot be known or counted (as UDP).
 * Order: entries leave in the order write() received them.
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include "net.h"
#include "sink.h"
#include "syslog_queue.h"

#define DEFAULT_PATH "/run/systemd/journal/socket"
#define DEFAULT_BUFFER (4u << 20)
#define MIN_BUFFER (64u << 10)
#define DEFAULT_TIMEOUT_MS 1000
#define BACKOFF_MIN_MS 50
#define BACKOFF_MAX_MS 5000
#define SNDBUF_BYTES (8 << 20) /* asked for; the kernel caps it (wmem_max) */
#define FIELD_NAME_MAX 64
#define IDENT_MAX 256
#define NOT_DUE 1  /* drain: the back-off is not over; not an error */
#define LOST_ONE 2 /* send_entry: this entry can never be sent */

struct journald_sink {
	struct llog_sink base;
	struct sockaddr_un addr;
	socklen_t addrlen;
	int fd;
	long pid;
	char ident[IDENT_MAX];
	char *extra; /* the operator's fields, encoded once */
	size_t extra_len;
	struct llog__sq q;
	size_t bound;
	size_t max_dgram; /* 0: what the socket takes */
	int timeout_ms;
	char *enc; /* one encoded entry */
	size_t enc_cap;
	uint64_t dropped; /* not yet announced by a notice */
	int64_t next_try_ms;
	int backoff_ms;
	int stalled;
	long bytes; /* sent since the last commit */
	int err;    /* first error since the last commit */
};

const char *llog_journald_sink_error(void)
{
	return llog__sink_error();
}

/* ---- encoding ------------------------------------------------------------ */

/* The most bytes a field of this name and value length takes. */
static size_t field_bound(const char *name, size_t n)
{
	return strlen(name) + 1 + 8 + n + 1;
}

static void put_field(struct llog__buf *b, const char *name, const char *v, size_t n)
{
	llog__buf_puts(b, name);
	if (memchr(v, '\n', n) != NULL) {
		uint64_t le = htole64((uint64_t)n);

		llog__buf_putc(b, '\n');
		llog__buf_put(b, (const char *)&le, sizeof(le));
	} else {
		llog__buf_putc(b, '=');
	}
	llog__buf_put(b, v, n);
	llog__buf_putc(b, '\n');
}

static void put_str(struct llog__buf *b, const char *name, const char *v)
{
	put_field(b, name, v, strlen(v));
}

static void put_num(struct llog__buf *b, const char *name, uint64_t v)
{
	llog__buf_puts(b, name);
	llog__buf_putc(b, '=');
	llog__buf_num(b, v, 10);
	llog__buf_putc(b, '\n');
}

/* Uppercase letters, digits and '_', not starting with '_' or a digit,
 * 1 to 64 characters: what journald accepts from a client. */
static int name_ok(const char *n, size_t len)
{
	if (len == 0 || len > FIELD_NAME_MAX || n[0] == '_' || (n[0] >= '0' && n[0] <= '9'))
		return 0;
	for (size_t i = 0; i < len; i++)
		if (!((n[i] >= 'A' && n[i] <= 'Z') || (n[i] >= '0' && n[i] <= '9') || n[i] == '_'))
			return 0;
	return 1;
}

/* Severity as in the syslog sink: TRACE, DEBUG 7; INFO 6; WARN 4; ERROR 3;
 * FATAL 2. */
static unsigned priority(enum llog_level l)
{
	static const unsigned sev[] = {7, 7, 6, 4, 3, 2};

	return (unsigned)l < sizeof(sev) / sizeof(sev[0]) ? sev[l] : 6;
}

/* Makes s->enc hold at least n bytes. */
static int enc_reserve(struct journald_sink *s, size_t n)
{
	char *p;

	if (n <= s->enc_cap)
		return 0;
	if ((p = realloc(s->enc, n)) == NULL)
		return -ENOMEM;
	s->enc = p;
	s->enc_cap = n;
	return 0;
}

/* The fields every entry of this process carries. */
static void put_common(struct journald_sink *s, struct llog__buf *b, unsigned prio,
		       enum llog_level level)
{
	put_num(b, "PRIORITY", prio);
	put_str(b, "LLOG_LEVEL", llog_level_name(level));
	put_str(b, "SYSLOG_IDENTIFIER", s->ident);
	put_num(b, "SYSLOG_PID", (uint64_t)s->pid);
	llog__buf_put(b, s->extra, s->extra_len);
}

#define COMMON_BOUND(s) (200 + IDENT_MAX + (s)->extra_len)

/*
 * The record's structured fields (docs/fields.md 5). A key made only of
 * a-z 0-9 _ that fits the name limit is the field LLOG_F_<KEY upper-cased>
 * (reversible: the key had no upper case); any other key (an upper-case
 * letter, another byte, empty, too long) goes as LLOG_FX_<i>=<key>=<value>,
 * i the field's index in the entry (from 0) and the key with '%' and '='
 * written %25 and %3D, so the first '=' ends it. Values are text, bytes as
 * they are (the binary-safe form when one holds a newline): a string as
 * it is (a cut one counted in LLOG_FIELDS_TRUNCATED), integers decimal,
 * doubles as in text lines (llog__line_field_f64), true/false, null.
 */
#define F_PREFIX "LLOG_F_"
#define FX_PREFIX "LLOG_FX_"
#define FIELD_VALUE_EXTRA (3 * LLOG_FIELD_KEY_MAX + LLOG__F64_MAX + 1)

static int key_plain(const struct llog_field *f)
{
	if (f->key_len == 0 || f->key_len > FIELD_NAME_MAX - (sizeof(F_PREFIX) - 1))
		return 0;
	for (size_t i = 0; i < f->key_len; i++) {
		char c = f->key[i];

		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'))
			return 0;
	}
	return 1;
}

static size_t fields_bound(const struct llog_entry *e)
{
	size_t n = 0;

	for (size_t i = 0; e->fields != NULL && i < e->nfields; i++)
		n += FIELD_NAME_MAX + 1 + 8 + FIELD_VALUE_EXTRA + 1 +
		     (e->fields[i].type == LLOG_FIELD_STR ? e->fields[i].v.str.len : 0);
	return n + (e->fields_truncated != 0 ? 40 : 0);
}

static void put_fields(struct llog__buf *b, const struct llog_entry *e)
{
	for (size_t i = 0; e->fields != NULL && i < e->nfields; i++) {
		const struct llog_field *f = &e->fields[i];
		char t[LLOG__F64_MAX], name[FIELD_NAME_MAX + 1];
		size_t vn;
		const char *v = llog__line_field_text(f, t, &vn);
		struct llog__buf nb = LLOG__BUF(name, FIELD_NAME_MAX);

		if (key_plain(f)) {
			llog__buf_puts(&nb, F_PREFIX);
			for (size_t k = 0; k < f->key_len; k++)
				llog__buf_putc(&nb, f->key[k] >= 'a' && f->key[k] <= 'z'
							    ? (char)(f->key[k] - 'a' + 'A')
							    : f->key[k]);
			name[nb.n] = '\0';
			put_field(b, name, v, vn);
			continue;
		}
		/* LLOG_FX_<i>: the key and the value in one binary-safe value */
		llog__buf_puts(&nb, FX_PREFIX);
		llog__buf_num(&nb, i, 10);
		name[nb.n] = '\0';
		{
			size_t n = vn + 1;
			uint64_t le;

			for (size_t k = 0; k < f->key_len; k++)
				n += f->key[k] == '%' || f->key[k] == '=' ? 3 : 1;
			le = htole64((uint64_t)n);
			llog__buf_puts(b, name);
			llog__buf_putc(b, '\n');
			llog__buf_put(b, (const char *)&le, sizeof(le));
			for (size_t k = 0; k < f->key_len; k++) {
				if (f->key[k] == '%')
					llog__buf_put(b, "%25", 3);
				else if (f->key[k] == '=')
					llog__buf_put(b, "%3D", 3);
				else
					llog__buf_putc(b, f->key[k]);
			}
			llog__buf_putc(b, '=');
			llog__buf_put(b, v, vn);
			llog__buf_putc(b, '\n');
		}
	}
	if (e->fields_truncated != 0)
		put_num(b, "LLOG_FIELDS_TRUNCATED", e->fields_truncated);
}

/* Encodes e into s->enc. Returns its length or a negative errno. */
static long encode(struct journald_sink *s, const struct llog_entry *e)
{
	size_t cap = field_bound("MESSAGE", e->msg_len) + field_bound("CODE_FILE", strlen(e->file)) +
		     field_bound("CODE_FUNC", strlen(e->func)) +
		     field_bound("LLOG_THREAD_NAME", e->thread_name_len) +
		     field_bound("LLOG_CATEGORY", e->category != NULL ? e->category_len : 0) +
		     7 * 40 + COMMON_BOUND(s) + fields_bound(e);
	struct llog__buf b;

	if (enc_reserve(s, cap) != 0)
		return -ENOMEM;
	b = LLOG__BUF(s->enc, cap);
	put_field(&b, "MESSAGE", e->msg, e->msg_len);
	put_common(s, &b, priority(e->level), e->level);
	put_str(&b, "CODE_FILE", e->file);
	put_num(&b, "CODE_LINE", (uint64_t)(e->line < 0 ? 0 : e->line));
	put_str(&b, "CODE_FUNC", e->func);
	put_num(&b, "TID", e->tid);
	if (e->thread_name != NULL && e->thread_name_len != 0)
		put_field(&b, "LLOG_THREAD_NAME", e->thread_name, e->thread_name_len);
	/* The record's category (llog.h), only for one. */
	if (e->category != NULL && e->category_len != 0)
		put_field(&b, "LLOG_CATEGORY", e->category, e->category_len);
	put_num(&b, "LLOG_SEQ", e->seq);
	put_num(&b, "LLOG_TIMESTAMP_NS", (uint64_t)(e->ts_ns < 0 ? 0 : e->ts_ns));
	/* A rate-limited site's count (llog.h), only when there is one. */
	if (e->suppressed != 0)
		put_num(&b, "LLOG_SUPPRESSED", e->suppressed);
	/* An entry of the backtrace (llog.h): LLOG_BACKTRACE=1. */
	if (e->backtrace)
		put_num(&b, "LLOG_BACKTRACE", 1);
	put_fields(&b, e); /* docs/fields.md 5 */
	return (long)b.n;
}

/* The notice for n dropped records into s->enc. */
static long encode_notice(struct journald_sink *s, uint64_t n)
{
	size_t cap = 2 * 64 + 40 + COMMON_BOUND(s);
	struct llog__buf b;
	char m[64];
	struct llog__buf t = LLOG__BUF(m, sizeof(m));

	if (enc_reserve(s, cap) != 0)
		return -ENOMEM;
	b = LLOG__BUF(s->enc, cap);
	llog__buf_puts(&t, "llog: ");
	llog__buf_num(&t, n, 10);
	llog__buf_puts(&t, " messages dropped");
	put_field(&b, "MESSAGE", m, t.n);
	put_common(s, &b, 4, LLOG_WARN);
	put_num(&b, "LLOG_DROPPED", n);
	return (long)b.n;
}

/* ---- sending --------------------------------------------------------------- */

/* One datagram: m[0..n), or an empty one carrying memfd. Returns 0 when
 * the socket took it, else a negative errno (-ETIMEDOUT: full until the
 * deadline). */
static int send_dgram(struct journald_sink *s, const char *m, size_t n, int memfd,
		      int64_t deadline)
{
	struct iovec iov = {(void *)m, n};
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} c;
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
	int rc;

	if (memfd >= 0) {
		memset(&c, 0, sizeof(c));
		mh.msg_iovlen = 0;
		mh.msg_control = c.buf;
		mh.msg_controllen = sizeof(c.buf);
		c.h.cmsg_level = SOL_SOCKET;
		c.h.cmsg_type = SCM_RIGHTS;
		c.h.cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(&c.h), &memfd, sizeof(int));
	}
	for (;;) {
		if (sendmsg(s->fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT) >= 0)
			return 0;
		if (errno == EINTR)
			continue;
		/* ENOBUFS for a payload: the kernel could not allocate one
		 * buffer that large (a payload below the send buffer's size
		 * but beyond what it allocates in one piece): a memfd then. */
		if (errno == ENOBUFS && n > 0)
			return -EMSGSIZE;
		if (errno != EAGAIN && errno != ENOBUFS)
			return -errno;
		/* journald's receive queue (or our send buffer) is full:
		 * poll waits on both for a connected datagram socket. */
		if ((rc = llog__net_wait(s->fd, POLLOUT, deadline)) != 0)
			return rc;
	}
}

/* A sealed memfd holding m[0..n), or a negative errno. */
static int make_memfd(const char *m, size_t n)
{
	int fd = memfd_create("llog-journal", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	size_t off = 0;

	if (fd < 0)
		return -errno;
	while (off < n) {
		ssize_t w = write(fd, m + off, n - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			int e = w < 0 ? errno : EIO;

			close(fd);
			return -e;
		}
		off += (size_t)w;
	}
	if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) != 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	return fd;
}

/* Sends one entry: a datagram, or through a memfd when it is too large
 * for one. Returns 0, LOST_ONE (no memfd could be made: the entry can
 * never be sent), or a negative errno (the socket: try again later). */
static int send_entry(struct journald_sink *s, const char *m, size_t n, int64_t deadline)
{
	int rc = -EMSGSIZE, mfd;

	if (s->max_dgram == 0 || n <= s->max_dgram)
		rc = send_dgram(s, m, n, -1, deadline);
	if (rc != -EMSGSIZE)
		return rc;
	if ((mfd = make_memfd(m, n)) < 0) {
		llog__diag("journald sink: a %zu-byte entry lost: memfd: %s", n, strerror(-mfd));
		return LOST_ONE;
	}
	rc = send_dgram(s, NULL, 0, mfd, deadline);
	close(mfd);
	return rc;
}

/* ---- the connection ------------------------------------------------------ */

static void disconnect(struct journald_sink *s)
{
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
	s->next_try_ms = llog__mono_ms() + s->backoff_ms;
	s->backoff_ms = s->backoff_ms * 2 > BACKOFF_MAX_MS ? BACKOFF_MAX_MS : s->backoff_ms * 2;
}

/* Connects when due. Returns 0, NOT_DUE, or a negative errno. */
static int try_connect(struct journald_sink *s, int force)
{
	int fd, sndbuf = SNDBUF_BYTES;

	if (s->fd >= 0)
		return 0;
	if (!force && llog__mono_ms() < s->next_try_ms)
		return NOT_DUE;
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	/* As the protocol advises: a larger send buffer delays waiting. */
	(void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
	if (connect(fd, (struct sockaddr *)&s->addr, s->addrlen) != 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	s->fd = fd;
	return 0;
}

/* Counts one record given up, for sink_lost and the next notice. */
static void lose(struct journald_sink *s, uint64_t n)
{
	s->dropped += n;
	llog__stats_count_sink_lost(n);
}

/* The notice first, then the FIFO in order, until it is empty, the
 * deadline passes or the socket fails. */
static void drain(struct journald_sink *s, int closing)
{
	int64_t deadline = llog__mono_ms() + s->timeout_ms;
	int rc;

	while (s->q.count > 0 || s->dropped > 0) {
		const char *m;
		size_t n;

		if ((rc = try_connect(s, closing)) != 0)
			goto fail;
		if (s->dropped > 0) {
			long k = encode_notice(s, s->dropped);

			if (k < 0) {
				rc = (int)k;
				goto fail;
			}
			if ((rc = send_entry(s, s->enc, (size_t)k, deadline)) < 0)
				goto fail;
			s->dropped = 0; /* LOST_ONE: the count is said no more */
			continue;
		}
		m = llog__sq_msg(&s->q, s->q.head);
		n = llog__sq_len(&s->q, s->q.head);
		rc = send_entry(s, m, n, deadline);
		if (rc < 0)
			goto fail;
		if (rc == LOST_ONE)
			lose(s, 1);
		else
			s->bytes += (long)n;
		s->backoff_ms = BACKOFF_MIN_MS;
		llog__sq_pop(&s->q);
	}
	return;
fail:
	if (rc == NOT_DUE)
		return;
	disconnect(s);
	if (s->err == 0)
		s->err = rc == -ETIMEDOUT ? -EAGAIN : rc;
}

/* ---- the sink ------------------------------------------------------------ */

static long journald_write(struct llog_sink *base, const struct llog_entry *e)
{
	struct journald_sink *s = (struct journald_sink *)base;
	long n = encode(s, e);

	if (n < 0 || (size_t)n + 4 > s->bound) {
		lose(s, 1);
		return n < 0 ? n : -EMSGSIZE;
	}
	while (s->q.count > 0 && llog__sq_bytes(&s->q) + 4 + (size_t)n > s->bound) {
		llog__sq_pop(&s->q);
		lose(s, 1);
	}
	llog__sq_push(&s->q, s->enc, (size_t)n);
	/* A round larger than half the bound: send as we go rather than
	 * drop; once such a drain ran out of time, not again before the
	 * commit (a round then waits about two timeouts at most). */
	if (llog__sq_bytes(&s->q) > s->bound / 2 && !s->stalled) {
		int64_t t0 = llog__mono_ms();

		drain(s, 0);
		s->stalled = llog__mono_ms() - t0 >= s->timeout_ms;
	}
	return n;
}

static long journald_commit(struct llog_sink *base)
{
	struct journald_sink *s = (struct journald_sink *)base;
	long rc;

	s->stalled = 0;
	drain(s, 0);
	rc = s->err != 0 ? s->err : s->bytes;
	s->err = 0;
	s->bytes = 0;
	return rc;
}

static void journald_close(struct llog_sink *base)
{
	struct journald_sink *s = (struct journald_sink *)base;

	drain(s, 1);
	if (s->q.count > 0) {
		llog__stats_count_sink_lost(s->q.count);
		llog__diag("journald sink: %llu messages not delivered at close",
			   (unsigned long long)s->q.count);
	}
	if (s->fd >= 0)
		close(s->fd);
	free(s->q.p);
	free(s->enc);
	free(s->extra);
	free(s);
}

/* In a fork child: the FIFO is the parent's (it sends it); the child
 * connects anew and names itself with its own pid. */
static void journald_after_fork(struct llog_sink *base)
{
	struct journald_sink *s = (struct journald_sink *)base;

	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
	llog__sq_clear(&s->q);
	s->dropped = 0;
	s->bytes = 0;
	s->err = 0;
	s->stalled = 0;
	s->next_try_ms = 0;
	s->backoff_ms = BACKOFF_MIN_MS;
	s->pid = (long)getpid();
}

static const struct llog_sink_ops journald_ops = {
	.version = LLOG__SINK_VERSION,
	.write = journald_write,
	.commit = journald_commit,
	.close = journald_close,
	.after_fork = journald_after_fork,
	/* journald may stop reading: a thread of its own (5.8). */
	.flags = LLOG_SINK_F_MAY_BLOCK,
};

/* ---- construction -------------------------------------------------------- */

/* Encodes the operator's "NAME=value" fields once. */
static int encode_extra(struct journald_sink *s, const char *const *fields)
{
	size_t cap = 0;
	struct llog__buf b;

	for (size_t i = 0; fields != NULL && fields[i] != NULL; i++) {
		const char *eq = strchr(fields[i], '=');

		if (eq == NULL || !name_ok(fields[i], (size_t)(eq - fields[i]))) {
			llog__sink_set_error("journald sink: bad field \"%.80s\" (NAME=value, NAME "
					     "of A-Z, 0-9, _, not starting with _ or a digit, at "
					     "most 64)",
					     fields[i]);
			return -EINVAL;
		}
		cap += strlen(fields[i]) + 1 + 8 + 1;
	}
	if (cap == 0)
		return 0;
	if ((s->extra = malloc(cap)) == NULL)
		return -ENOMEM;
	b = LLOG__BUF(s->extra, cap);
	for (size_t i = 0; fields[i] != NULL; i++) {
		const char *eq = strchr(fields[i], '=');
		char name[FIELD_NAME_MAX + 1];

		memcpy(name, fields[i], (size_t)(eq - fields[i]));
		name[eq - fields[i]] = '\0';
		put_str(&b, name, eq + 1);
	}
	s->extra_len = b.n;
	return 0;
}

static int configure(struct journald_sink *s, const struct llog_journald_options *opt)
{
	const char *path = opt->socket_path != NULL ? opt->socket_path : DEFAULT_PATH;
	const char *ident = opt->identifier != NULL ? opt->identifier : program_invocation_short_name;
	int rc;

	if (strlen(path) == 0 || strlen(path) >= sizeof(s->addr.sun_path)) {
		llog__sink_set_error("journald sink: socket path empty or longer than %zu bytes",
				     sizeof(s->addr.sun_path) - 1);
		return -EINVAL;
	}
	if (strlen(ident) >= sizeof(s->ident)) {
		llog__sink_set_error("journald sink: identifier longer than %d bytes", IDENT_MAX - 1);
		return -EINVAL;
	}
	if ((rc = encode_extra(s, opt->fields)) != 0)
		return rc;
	s->base.ops = &journald_ops;
	s->base.level = opt->level;
	s->base.format = LLOG_FORMAT_TEXT;
	s->addr.sun_family = AF_UNIX;
	strcpy(s->addr.sun_path, path);
	s->addrlen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(path) + 1);
	strcpy(s->ident, ident);
	s->fd = -1;
	s->pid = (long)getpid();
	s->bound = opt->buffer_bytes ? opt->buffer_bytes : DEFAULT_BUFFER;
	if (s->bound < MIN_BUFFER)
		s->bound = MIN_BUFFER;
	s->max_dgram = opt->max_datagram_bytes;
	s->timeout_ms = opt->timeout_ms ? (int)opt->timeout_ms : DEFAULT_TIMEOUT_MS;
	s->backoff_ms = BACKOFF_MIN_MS;
	/* Twice the bound: the FIFO moves its items to the start at most
	 * once per bound's worth of entries (syslog_queue.h); pages are
	 * backed as used. */
	s->q.cap = 2 * s->bound;
	s->q.p = malloc(s->q.cap);
	if (s->q.p == NULL) {
		llog__sink_set_error("journald sink: out of memory");
		return -ENOMEM;
	}
	return 0;
}

struct llog_sink *llog_journald_sink(const struct llog_journald_options *opt)
{
	static const struct llog_journald_options none;
	struct journald_sink *s;
	int rc;

	llog__sink_set_error("%s", "");
	if (opt == NULL)
		opt = &none;
	if ((unsigned)opt->level > LLOG_OFF || opt->buffer_bytes > (1u << 30)) {
		llog__sink_set_error("journald sink: bad level or buffer_bytes (at most 1 GiB)");
		errno = EINVAL;
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (s == NULL) {
		llog__sink_set_error("journald sink: out of memory");
		errno = ENOMEM;
		return NULL;
	}
	if ((rc = configure(s, opt)) != 0) {
		free(s->extra);
		free(s);
		errno = -rc;
		return NULL;
	}
	return &s->base;
}
