/*
 * sinkq.h - a sink on a thread of its own, behind a bounded queue
 * (internal).
 *
 * DESIGN
 * A sink whose I/O may block (a collector that stops reading, a hung file
 * system, a user callback that waits) must never hold up the flusher's
 * rounds, and through them the application and the other sinks. Such a
 * sink gets a sinkq: a single-producer single-consumer byte ring between
 * the flusher (the only producer) and the sink's worker thread (the only
 * consumer), which alone calls the sink's write and commit:
 *
 *   flusher  llog__sinkq_put(entry) ... llog__sinkq_commit(epoch)
 *   worker   write(entry)           ... commit(); done_epoch = epoch
 *
 * Ring: positions head (the flusher's) and tail (the worker's) only grow;
 * the bytes [tail, head) are queued and head - tail <= cap. An item (an
 * entry with its file, function and message copied, or a commit marker)
 * is contiguous: one that would cross the end of the ring is preceded by a
 * pad item up to the end. For a sink that stores captures (capture.h) an
 * entry's item holds the LOG record's capture (format, plan, argument
 * bytes) in place of the message; the worker notes it beside the entry it
 * rebuilds for the write. Each entry leaves room behind it for the commit
 * marker that ends its round, so a marker always fits.
 *   the flusher's release store of head publishes the item bytes (the
 *   worker loads head with acquire); the worker's release store of tail
 *   hands back the bytes before it (the flusher loads tail with acquire
 *   before writing over them).
 *
 * Full queue, the sink's policy: DROP loses the newest entries, counted
 * exactly (per sink and in llog_stats.queue_dropped). Once it dropped, the
 * queue takes nothing more until the worker has drained it to half its
 * capacity (one gap and one notice per episode of overload, not one per
 * entry that squeezed in: the sink's throughput is the same, as the worker
 * never runs out of work meanwhile); the first entry after that is
 * preceded, in this sink's output only, by a notice "N records
 * dropped", which carries the sequence number and time of the last dropped
 * record (a number this sink never saw otherwise, so its sequence has no
 * duplicate). BLOCK makes the flusher wait for room: back-pressure on the
 * application through the arenas, like a slow sink on the flusher. In the
 * final round (shutdown) both wait for room up to the drain timeout.
 *
 * Barriers: a commit marker carries the flusher's round number (epoch);
 * the worker publishes done_epoch after the sink's commit returned. A flush
 * barrier waits (flusher_barrier.c) until every queue's done_epoch reached the
 * last epoch put in it before the barrier, or that queue's drain timeout
 * passed (counted in late_flushes).
 *
 * Wake-ups, the same handshake in both directions (no lost wake-up):
 *   sleeper  w = word; sleeping = 1; fence seq_cst; re-check the positions;
 *            futex_wait(word, w)
 *   waker    publish a position; fence seq_cst; if sleeping:
 *            word++, futex_wake
 * Either the sleeper's re-check sees the new position, or the waker sees
 * sleeping = 1 and changes the word (the futex then does not sleep, or is
 * woken). The flusher wakes the worker at each commit marker and when the
 * queue passes a quarter full; the worker wakes the flusher when it made
 * room that the flusher waits for, and (llog__wake_flusher) when it reached
 * an epoch a barrier waits for.
 *
 * Counters (llog_sink_stats defines them): every entry offered is exactly
 * one of delivered, dropped or undelivered:
 *   offered == queued + dropped
 *   queued == delivered + undelivered + (entries in the ring or in a call)
 * with the last term 0 once stopped. An entry is delivered once the sink's
 * write returned; one inside a call that stop gave up on is undelivered,
 * counted by the stopper, and the worker, should the call return, counts
 * nothing more (in_call: sinkq_worker.c). The queue's own drop notices are
 * items of their own kind, counted apart (notices, announced).
 *
 * Thread roles: put, commit, drain, stop and the fork calls are the
 * flusher's (or, with the flusher stopped, the control thread's); the
 * worker only reads items and writes tail, done_epoch, in_call and its
 * counters.
 * A worker holds call_lock around each sink callback; fork() takes it (for
 * at most the drain timeout) so a
 * child never copies a sink in the middle of a call.
 */
#ifndef LLOG_SINKQ_H
#define LLOG_SINKQ_H

#include <signal.h>

#include <stdint.h>

#include "llog/sinks.h"

struct llog__sinkq;

/* A queue for sink s with the options' policy (opt not NULL, already
 * checked), not started. Allocates the ring. NULL without memory. */
struct llog__sinkq *llog__sinkq_new(struct llog_sink *s, const struct llog_sink_options *opt,
				    int index);
/* Frees q (not its sink); the worker must not run. */
void llog__sinkq_free(struct llog__sinkq *q);

/* Before a start: makes the ring as large as the configuration now in
 * force needs (a sink added before llog_init was sized with the
 * max_record_bytes of then), when it is empty. Returns 0 or -ENOMEM (the
 * ring stays as it was: an item too large for it is dropped, counted). */
int llog__sinkq_fit(struct llog__sinkq *q);

/* Starts the worker (no-op when it runs), its thread blocking the signals
 * in *blocked (the flusher's mask: llog__flusher_sinktab_start). Returns 0 or a
 * negative errno. */
int llog__sinkq_start(struct llog__sinkq *q, const sigset_t *blocked);

/* The flusher: queues e (at or above the sink's level: the caller checks).
 * final: the last round (wait for room up to the drain timeout). Returns
 * 1 when queued, 0 when dropped (counted). */
int llog__sinkq_put(struct llog__sinkq *q, const struct llog_entry *e, int final);
/* The flusher, each round: puts the notice of earlier drops if it fits
 * now (the worker asks for a round when its queue ran empty with drops
 * unannounced); final: the last round, which waits for room for it up to
 * the drain timeout as its entries do. Returns 1 when it put it (the round
 * then needs a commit). */
int llog__sinkq_retry_notice(struct llog__sinkq *q, int final);
/* The flusher: ends the round `epoch` in q when entries were put since the
 * last marker, and wakes the worker. Returns the epoch a barrier must wait
 * for in q (the last marker's; 0 when none was ever put). */
uint64_t llog__sinkq_commit(struct llog__sinkq *q, uint64_t epoch);

/* Barrier support. llog__sinkq_reached: q's worker committed `epoch`, or
 * q cannot (its worker crashed). llog__sinkq_want: asks the worker to wake
 * the flusher once it reaches epoch (0: nothing wanted). */
int llog__sinkq_reached(struct llog__sinkq *q, uint64_t epoch);
void llog__sinkq_want(struct llog__sinkq *q, uint64_t epoch);
/* A flush stopped waiting for q at its drain timeout. */
void llog__sinkq_count_late(struct llog__sinkq *q);
/* q's drain timeout in milliseconds. */
unsigned llog__sinkq_timeout_ms(const struct llog__sinkq *q);
/* Whether q's worker runs (between start and stop; not in a fork child
 * before its flusher starts). A sink whose worker does not run is called
 * by the flusher directly. */
int llog__sinkq_running(const struct llog__sinkq *q);

/* Waits until q's worker committed everything put (or until deadline_ms
 * of llog__mono_ms). Returns 1 when it did. */
int llog__sinkq_drain(struct llog__sinkq *q, int64_t deadline_ms);
/* Stops the worker: it finishes the item in hand (what remains queued is
 * counted in undelivered), and is joined, waiting at most the drain
 * timeout more. Returns 1 when joined; 0 when the worker is stuck inside
 * the sink: the entry in its hands and all behind it are counted
 * undelivered, it is left running and the sink must not be closed, nor q
 * freed (leaked). q's statistics are final either way. */
int llog__sinkq_stop(struct llog__sinkq *q);

/* Async-signal-safe (the crash drain on the flusher): queues e without
 * waiting, ends it with a marker, then waits at most until deadline_ms for
 * the worker to commit it. Returns the bytes queued (> 0), or -1. */
long llog__sinkq_crash_put(struct llog__sinkq *q, const struct llog_entry *e);
int llog__sinkq_crash_commit(struct llog__sinkq *q, uint64_t epoch, int64_t deadline_ms);

/* fork(): prepare takes q's call lock (q's worker is then between two
 * sink calls), waiting at most until deadline_ms (one bound for all
 * queues: llog__flusher_fork_prepare); parent releases it;
 * child (single-threaded) re-creates it and forgets the parent's queue and
 * worker (the parent writes those entries). Returns 0 when prepare did not
 * get the lock (the parent's worker was inside the sink: its state may be
 * mid-update, so the child must not use the sink; forgotten, not closed),
 * else 1. */
void llog__sinkq_fork_prepare(struct llog__sinkq *q, int64_t deadline_ms);
void llog__sinkq_fork_parent(struct llog__sinkq *q);
/* The queue's name (the sink's, for messages). */
const char *llog__sinkq_name(const struct llog__sinkq *q);
int llog__sinkq_fork_child(struct llog__sinkq *q);

/* On a worker thread: marks its queue as dead (its thread crashed inside
 * the sink), so barriers stop waiting for it. Async-signal-safe; no-op on
 * other threads. */
void llog__sinkq_crashed_self(void);

/* The sink's statistics (relaxed snapshots). */
void llog__sinkq_stats(const struct llog__sinkq *q, struct llog_sink_stats *out);

#endif /* LLOG_SINKQ_H */
