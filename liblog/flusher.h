/*
 * flusher.h - the flusher thread: rounds, the sink table, barriers, and the
 * crash drain that reads its private state (internal; flusher.c,
 * flusher_sinktab.c, flusher_barrier.c, flusher_drain.c).
 *
 * DESIGN
 * One flusher thread takes the whole list each round, renders each record
 * once (render.h), hands the entry to every sink at or below its level,
 * gives the record's bytes back to its arena, then commits every sink:
 *   F1 pending = 0 (seq_cst store + fence)          queue.c
 *   F2 stopping = stop                              queue.c
 *   F3 chain = exchange(head, stopping ? CLOSED : NULL), reversed
 *   F4 for each record: render, hand to sinks, release its bytes
 *   F5 commit every sink; signal barriers; wake blocked producers
 *   F6 stopping -> exit; else sleep on `pending` unless it is already 1
 * tests/model/pipeline.pml models this protocol (with spin): no record is
 * lost, no wake-up is lost, and a flush barrier returns after everything
 * pushed before it. In the final round (stopping) the arena bytes are
 * released only after the sinks committed: a thread that then finds its
 * arena drained may write synchronously to stderr and must not get ahead of
 * its own earlier records, still in a sink's buffer.
 *
 * The sink table holds at most LLOG__MAX_SINKS sinks. The control lock
 * keeps the count of sinks accepted within that bound (llog_add_sink
 * returns -ENOSPC beyond it: before llog_init, while running, and in a fork
 * child counting the inherited sinks), so adding to a table never fails;
 * llog__flusher_sinktab_add still checks and says so.
 *
 * Output timestamps are clamped never to decrease (a producer may, rarely,
 * push onto an emptied list with a clock value older than the previous
 * batch's last record).
 *
 * The crash handler (crash.c) and the flusher call each other by design:
 * the handler asks the flusher to drain (llog__flusher_crash_drain*,
 * flusher_drain.c, which renders with flusher.c and installs sinks with
 * flusher_sinktab.c), and the flusher asks whether a crash is being
 * reported before it frees memory, and (flusher.c, flusher_sinktab.c) for
 * the signal mask its threads keep. It is the library's one designed
 * circle (scripts/check_deps.sh).
 *
 * The files (flusher_state.h has their shared state): flusher.c the thread
 * and its rounds, flusher_sinktab.c the sink table, flusher_barrier.c the
 * barriers, flusher_drain.c the crash drain.
 */
#ifndef LLOG_FLUSHER_H
#define LLOG_FLUSHER_H

#include <signal.h>
#include <stdint.h>

#include "catsel.h"
#include "llog/sinks.h"
#include "queue.h"

#define LLOG__MAX_SINKS 16

struct llog__sinkq;

/* s[i] runs on the flusher when q[i] is NULL, else on q[i]'s thread.
 * fallback: s[0] is the console sink on stderr that llog_init made because
 * no sink was added; the first sink installed replaces it
 * (llog__flusher_sinktab_install in flusher_sinktab.c). */
struct llog__sinktab {
	struct llog_sink *s[LLOG__MAX_SINKS];
	struct llog__sinkq *q[LLOG__MAX_SINKS];
	struct llog__catsel sel[LLOG__MAX_SINKS]; /* the categories each receives */
	int n;
	int fallback;
	/* The signals the sinks' threads block: the flusher's mask, set by
	 * llog__flusher_start before it starts any of them. */
	sigset_t blocked;
};

/* Appends s with its queue (or NULL) and its selection of categories
 * (NULL: every category). Returns 0, or -ENOSPC when the table is full
 * (the caller still owns s and q then). */
int llog__flusher_sinktab_add(struct llog__sinktab *t, struct llog_sink *s, struct llog__sinkq *q,
			      const struct llog__catsel *sel);
/* Takes entry i out of t (s[], q[] and sel[] move together, order kept)
 * and closes its sink as llog__flusher_sinktab_close does one; *final
 * gets its last statistics (zero for a sink on the flusher). On the
 * flusher's table from a round (flusher.c remove_sink, which moves the
 * flusher's own per-sink arrays likewise), or on a table no flusher uses
 * (control.c's pending sinks). */
void llog__flusher_sinktab_remove(struct llog__sinktab *t, int i, struct llog_sink_stats *final);
/* Starts the threads of t's queued sinks that do not run, with t->blocked
 * blocked; a sink whose thread cannot start runs on the flusher. Returns 0. */
int llog__flusher_sinktab_start(struct llog__sinktab *t);
/* Closes every sink of t and empties it: a queued sink's thread first
 * commits what is queued (within the sink's drain timeout) and stops.
 * final (NULL, or t->n of them): each sink's statistics once its thread
 * stopped or was left behind (zero for a sink on the flusher), in t's
 * order. */
void llog__flusher_sinktab_close(struct llog__sinktab *t, struct llog_sink_stats *final);

/* A sink change on its way to the flusher (malloc'd by llog_add_sink and
 * llog_remove_sink). Without LLOG__SINK_REMOVE in rec.flags it installs
 * `sink` (and the flusher frees it); with it, it removes `sink` from the
 * table at that point of the list: the flusher closes it (a queued sink's
 * thread first commits what the records before it put there, within its
 * drain timeout), writes `final` (its last statistics) and `rc` (0, or
 * -ENOENT when the table has no such sink), and leaves the record to its
 * pusher, which learns it is done from a barrier pushed behind it. */
#define LLOG__SINK_REMOVE 0x01u
struct llog__sink_rec {
	struct llog__rec rec;
	struct llog_sink *sink;
	struct llog__sinkq *q; /* its queue, or NULL */
	struct llog__catsel sel;
	struct llog_sink_stats final; /* a removal's result */
	int rc;
};

/* A flush barrier: signalled (done = 1) after the commit of the round that
 * took it; with LLOG__BARRIER_RENDERED in rec.flags, as soon as the flusher
 * reaches it (every record pushed before it was rendered and handed to
 * the sinks, which copy what they keep: nothing in a record's call site is
 * read after that; llog__dso_fini). */
#define LLOG__BARRIER_RENDERED 0x80u
/* With LLOG__BARRIER_BT_DUMP, the flusher first writes the backtrace's ring
 * where it reaches the barrier (after every record pushed before it), as a
 * trigger would (llog_backtrace_dump); then the barrier is an ordinary one,
 * signalled after the commit that has those entries. */
#define LLOG__BARRIER_BT_DUMP 0x40u
struct llog__barrier {
	struct llog__rec rec;
	_Atomic uint32_t done;
};

/*
 * Pushes rec (when not NULL), then b, wakes the flusher and waits until b
 * is signalled, at most timeout_ms (< 0: no limit). Returns 1 when
 * everything pushed before b is committed, 0 when the time ran out (b must
 * then outlive the flusher's use of it: make it static), -1 when the list
 * is closed (nothing more was pushed). Not on the flusher thread.
 * Async-signal-safe.
 */
int llog__flusher_barrier_run(struct llog__barrier *b, struct llog__rec *rec, int timeout_ms);

struct llog__flusher;

/* A flusher with buffers for records of max_record_bytes, not started;
 * NULL without memory. */
struct llog__flusher *llog__flusher_new(void);
/* Frees f (not its sinks). */
void llog__flusher_free(struct llog__flusher *f);
/* f's sink table (before start, after join, or in a fork child). */
struct llog__sinktab *llog__flusher_sinks(struct llog__flusher *f);
/* Opens the list and starts the thread. Returns 0 or the negative errno
 * of pthread_create (then nothing runs and the list is still open). */
int llog__flusher_start(struct llog__flusher *f);
/* Runs the final round on the calling thread (a flusher that could not be
 * started): closes the list, writes what was pushed, signals barriers. */
void llog__flusher_run_final(struct llog__flusher *f);
/* Asks for the final round and joins the thread. */
void llog__flusher_stop(struct llog__flusher *f);
/* In a fork child: installs the sink changes of `inherited` (the list the
 * parent left, in push order; its records are the parent's), then gives
 * each sink its after_fork and forgets the sinks without one. */
void llog__flusher_after_fork(struct llog__flusher *f, struct llist_node *inherited);

/* fork() (control.c's handlers): prepare waits until the flusher is
 * between rounds and keeps it there; parent lets it go on; child (single
 * threaded) starts from no round and no crashing flusher. */
void llog__flusher_fork_prepare(struct llog__flusher *f);
void llog__flusher_fork_parent(struct llog__flusher *f);
void llog__flusher_fork_child(void);

/* Async-signal-safe (the crash handler, on the flusher thread only):
 * drains directly what the flusher had not yet handed to the sinks, then
 * rec (the crash record, when not NULL), through the sinks' crash entry
 * points (llog/sinks.h), and closes the list (later pushes go to stderr).
 * Also when the flusher faults while another thread reports (rec NULL):
 * that thread's crash record is drained with the rest and its barrier
 * (llog__flusher_crash_drain) signalled when a sink committed the record.
 * The sinks on threads of their own get queue_ms, all together, to commit
 * what was queued to them. Returns 1 when at least one sink committed rec,
 * 0 otherwise. */
int llog__flusher_crash_drain_self(struct llog__rec *rec, unsigned queue_ms);
/* Async-signal-safe (the crash handler, off the flusher): pushes rec (when
 * not NULL) and a static barrier, wakes the flusher, and waits at most
 * timeout_ms for the barrier. Returns 1 when everything pushed before it
 * is committed, 0 when not (no flusher, or timed out). */
int llog__flusher_crash_drain(struct llog__rec *rec, unsigned timeout_ms);

#endif /* LLOG_FLUSHER_H */
