/*
 * flusher_state.h - the flusher's private state, shared by the files that
 * make up the flusher (internal; not for the rest of llog, which sees
 * struct llog__flusher as opaque through flusher.h).
 *
 * DESIGN
 * The flusher is four files, each calling only the ones below it:
 *   flusher_drain.c    the crash drain (llog__flusher_crash_drain*)
 *   flusher.c          the thread, its rounds F1-F6, its life and fork
 *   flusher_barrier.c  barriers: llog_flush's wait, the groups waiting for
 *                      the sinks' own threads
 *   flusher_sinktab.c  the sink table
 * The drain renders with the rounds' helpers and reads where the round
 * stands (the crash_* fields below); the rounds never call the drain. All
 * of the state below is the flusher thread's (the crash handler that
 * interrupts it on that thread included): no locks, no atomics but
 * `started`.
 */
#ifndef LLOG_FLUSHER_STATE_H
#define LLOG_FLUSHER_STATE_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "llog/sinks.h"
#include "capture.h"
#include "clock.h"
#include "flusher.h"
#include "fmt.h"
#include "sinkq.h"

struct llog__fmt_cache;
struct llog__backtrace_ring;
struct llog__capture_rec;

/* Rounds whose barriers may wait for the sinks' own threads at once; a
 * round beyond that joins the newest group (and its deadline). */
#define LLOG__WAIT_GROUPS 8

struct llog__flusher {
	struct llog__sinktab sinks;
	pthread_t thread;
	_Atomic uint32_t started; /* futex word: the thread runs flusher_main */
	uint64_t seq;
	int64_t last_ts;
	struct llog__clock_conv clock;
	char *msgbuf;
	size_t msgcap;
	struct llog__plan tmp_plan;
	struct llog__fmt_cache *fmt_cache; /* write_record's (NULL: none) */
	/*
	 * Where the round stands, for llog__flusher_crash_drain_self when the
	 * flusher itself crashes. Written by the flusher only and read only by the
	 * crash handler interrupting it on this same thread, so no atomics:
	 * volatile keeps every store in program order with the sink calls
	 * and the rendering around it (what a signal fence would give).
	 *   crash_rest       records of this chain not yet handed to any sink
	 *   crash_rendering  the first of them is being rendered
	 *   crash_entry      the entry being handed to the sinks (or NULL)
	 *   crash_sink       index of the sink whose callback runs, or -1
	 */
	struct llist_node *volatile crash_rest;
	volatile int crash_rendering;
	const struct llog_entry *volatile crash_entry;
	volatile int crash_sink;
	/* The record being handed out directly (flusher.c, write_direct) and
	 * what the sinks got of it (its seq and time), or NULL: the drain
	 * renders it for the sinks after crash_sink. */
	const struct llog__rec *volatile crash_direct;
	const struct llog__capture_rec *volatile crash_cr;
	char *crash_msg;   /* the drain's render buffer, msgcap bytes */
	/* The fields of the entry being handed out (kv.h): the rounds', and
	 * the crash drain's (which may interrupt a round's). */
	struct llog_field fields[LLOG_FIELDS_MAX];
	struct llog_field crash_fields[LLOG_FIELDS_MAX];
	char *altstack;    /* the flusher's alternate signal stack */
	/*
	 * Sinks on threads of their own (sinkq.h): rounds are numbered
	 * (epoch); the barriers of a round whose flusher sinks committed wait
	 * in a group of wait[] (oldest first) until each queue committed
	 * need[i] (the last epoch put in it by that round) or that queue's
	 * drain timeout passed since the group's round (t0). round_need is
	 * what sinks_commit put in each queue this round. `final` is set for
	 * the final round.
	 */
	uint64_t epoch;
	struct llog__flusher_wait_group {
		struct llist_node *barriers;
		int64_t t0;
		uint64_t need[LLOG__MAX_SINKS];
	} wait[LLOG__WAIT_GROUPS];
	unsigned nwait;
	uint64_t round_need[LLOG__MAX_SINKS];
	int final;
	unsigned sleep_ms; /* 0, or how soon a waiting barrier times out */
	uint64_t round_bytes; /* record bytes the last round took */
	int64_t round_ms;     /* when the last round started */
	int64_t round_ms_prev; /* when the one before it started */
	struct llog__backtrace_ring *bt; /* the backtrace's ring, or NULL (off) */
	/* The direct path (flusher.c, direct_setup): 1 when every sink of the
	 * table runs on the flusher and takes captures directly, direct[i]
	 * being sink i's write_rec (sink.h); set again whenever the table
	 * changes in a round and at every round's start. */
	int direct_on;
	long (*direct[LLOG__MAX_SINKS])(struct llog_sink *s, const struct llog__capture_rec *cr);
	/* Runs (flusher.c, the direct path): run_on when every sink of the
	 * table also has write_run (direct_run[i]) and selects no categories;
	 * a record at or above run_level (every sink's level) then joins the
	 * run, handed to each sink in one call. For the crash drain, run.n > 0
	 * says the run holds records (run_rec[k] their records) that not every
	 * sink has taken, and run.taken which sink has it and how much of it
	 * (capture.h). */
	int run_on;
	int run_level;
	const void *run_site, *run_arena; /* run_ok's, for this run */
	uint64_t run_gen;                 /* the round's llog__fmt_cache_gen() */
	uint64_t run_bytes;               /* the run's records' bytes (round) */
	long (*direct_run[LLOG__MAX_SINKS])(struct llog_sink *s, struct llog__capture_run *run);
	struct llog__rec *run_rec[LLOG__RUN_MAX];
	struct llog__capture_run run;
};

/* The running flusher, for the crash handler on its thread (set and
 * cleared by that thread itself: the handler reads its own thread's
 * store). Defined in flusher.c. */
extern struct llog__flusher *llog__flusher_running;

/* The queue of sink i when its thread runs (else the flusher calls it). */
static inline struct llog__sinkq *llog__flusher_queue_of(const struct llog__flusher *f, int i)
{
	struct llog__sinkq *q = f->sinks.q[i];

	return q != NULL && llog__sinkq_running(q) ? q : NULL;
}

/* ---- flusher.c: entries of the output sequence, for the drain too ---- */

/* r's drop notice as an entry of the output sequence. */
void llog__flusher_notice_entry(struct llog__flusher *f, const struct llog__rec *r,
				uint32_t dropped, char *note, struct llog_entry *e);
/* r rendered as an entry of the output sequence, in buf (msgcap bytes). */
void llog__flusher_record_entry(struct llog__flusher *f, const struct llog__rec *r, char *buf,
				struct llog__plan *tmp, struct llog__fmt_cache *cache,
				struct llog_entry *e);
/* A backtrace entry leaving the ring: next in the output sequence. */
void llog__flusher_bt_entry_out(struct llog__flusher *f, struct llog_entry *e);
/* Copies e, rendered from r, into the backtrace's ring. */
void llog__flusher_keep_entry(struct llog__flusher *f, const struct llog__rec *r,
			      struct llog_entry *e);

/* ---- flusher_barrier.c: barriers after a round's commit ---- */

/* Signals the barriers of the list b (done = 1, futex wake). */
void llog__flusher_signal_barriers(struct llist_node *b);
/* Adds a round's barriers to those waiting for the sinks' queues. */
void llog__flusher_wait_barriers(struct llog__flusher *f, struct llist_node *b);
/* Signals the waiting barriers whose queues committed or timed out (with
 * final, waits for that); returns the milliseconds until the nearest
 * timeout while some still wait (0 when none wait). */
unsigned llog__flusher_release_waiting(struct llog__flusher *f, int final);

/* ---- flusher_sinktab.c: a sink change installed ---- */

/* Where llog__flusher_sinktab_install runs: a round (F4), the crash drain
 * on the flusher, a fork child's after_fork. */
enum llog__sinktab_where { LLOG__SINKTAB_IN_ROUND, LLOG__SINKTAB_IN_CRASH, LLOG__SINKTAB_IN_FORK };

/* Installs the sink of sr in t (flusher_sinktab.c says how, with the
 * stderr fallback, in each place). */
void llog__flusher_sinktab_install(struct llog__sinktab *t, struct llog__sink_rec *sr,
				   enum llog__sinktab_where where);

#endif /* LLOG_FLUSHER_STATE_H */
