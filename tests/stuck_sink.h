/*
 * stuck_sink.h - a sink on a thread of its own that a test holds inside a
 * call: each write passes a gate (testutil.h's struct gate), so while the
 * gate is closed the sink's thread waits in the write. It records the
 * thread of its last write (to see it exit), counts the writes that
 * passed, whether it was closed, and returns ret from each write.
 * Header-only beside the tests (it needs llog's sink interface).
 */
#ifndef LLOG_TESTS_STUCK_SINK_H
#define LLOG_TESTS_STUCK_SINK_H

#include <stdatomic.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "llog/sinks.h"
#include "testutil.h"

struct stuck {
	struct llog_sink base;
	struct gate *g;  /* passed by each write */
	long ret;        /* what a write returns */
	long writes;     /* writes that passed the gate (the sink's thread's) */
	int closed;
	_Atomic int tid; /* the thread of the last write */
};

static inline long stuck_write(struct llog_sink *sk, const struct llog_entry *e)
{
	struct stuck *st = (struct stuck *)sk;

	(void)e;
	atomic_store(&st->tid, (int)syscall(SYS_gettid));
	gate_pass(st->g);
	st->writes++;
	return st->ret;
}

static inline long stuck_commit(struct llog_sink *sk)
{
	(void)sk;
	return 0;
}

static inline void stuck_close(struct llog_sink *sk)
{
	((struct stuck *)sk)->closed = 1;
}

static const struct llog_sink_ops stuck_ops = {
	.version = LLOG_SINK_VERSION,
	.write = stuck_write,
	.commit = stuck_commit,
	.close = stuck_close,
	.flags = LLOG_SINK_F_MAY_BLOCK, /* AUTO: a thread of its own */
};

/* sk as a stuck sink of ops (stuck_ops, or a variant that is held
 * elsewhere) passing g, which is made closed or open. */
static inline void stuck_init(struct stuck *sk, const struct llog_sink_ops *ops, struct gate *g,
			      int gate_closed)
{
	memset(sk, 0, sizeof(*sk));
	sk->base.ops = ops;
	sk->g = g;
	gate_init(g, gate_closed);
}

#endif /* LLOG_TESTS_STUCK_SINK_H */
