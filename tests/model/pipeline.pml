/*
 * pipeline.pml - spin model of llog's record pipeline: the lock-free push
 * (llog__log and its body log_core in liblog/producer.c, llog__push_from in liblog/queue.h),
 * the flusher's take-all round (llog__queue_take in liblog/queue.c;
 * flusher_round / process / release_deferred in liblog/flusher.c), the
 * buffered sinks (a record is visible on the stream at the commit), the
 * flusher wake-up handshake (llog__wake_flusher, queue.c), the BLOCK
 * overflow wait (reserve -> llog__arena_reserve in liblog/arena.h +
 * llog__arena_wait_space in arena.c), the flush barrier (llog_flush,
 * llog__flusher_barrier_run), shutdown (llog_shutdown, llog__queue_stop) and its
 * control mutex (ctl_lock in liblog/control.c) as the CLOSED paths wait for
 * it (llog__control_wait_shutdown).
 *
 * Memory model: sequential consistency. The C code puts seq_cst fences
 * (or seq_cst RMWs) at exactly the Dekker handshakes where SC matters
 * (F1 vs llog__wake_flusher; released vs blocked_waiters); every other
 * cross-thread access is a release/acquire pair on the value that is read.
 *
 * Futexes: futex_wait(addr, val) is an atomic "if *addr == val then mark
 * myself asleep", followed by a block until someone clears the mark;
 * futex_wake(addr) clears the marks of the current sleepers (a wake with no
 * sleeper is lost). No timeouts and no spurious wake-ups: a lost wake-up
 * is a process blocked forever, i.e. an invalid end state for spin.
 *
 * Properties (see README.md):
 *  (a) every record is delivered exactly once, by the flusher or
 *      synchronously (producer saw CLOSED); the flusher delivers each
 *      producer's records as a prefix of its sequence, in order.
 *  (b) no lost wake-up: every process terminates (no invalid end state),
 *      including a BLOCK waiter that sleeps on a closed list.
 *  (c) the flush caller returns, and every record pushed before its
 *      barrier is committed (visible) before done is set; a flush that
 *      finds the list CLOSED returns only after everything pushed before
 *      the call is visible (it waits for the shutdown's ctl_lock).
 *  (d) per-thread order across shutdown: a record written synchronously
 *      comes after every earlier pushed record of its thread is visible
 *      (the CLOSED paths of llog__log wait for the shutdown; the final
 *      round releases arena bytes only after the commit).
 *
 * Configuration (spin -D..., chosen by run_spin.sh): K = records of
 * producer 0 (default 2), K1 = records of producer 1 (default K);
 * ONE_PRODUCER = producer 1 does not run; NO_FLUSH = no llog_flush caller;
 * LATE_SHUTDOWN = shutdown starts after everyone else finished (makes lost
 * wake-ups visible); NO_HIGHWATER = drop the arena high-water wake-up in
 * after_push; INIT_FAIL = instead of a running flusher and llog_shutdown,
 * llog_init whose pthread_create fails: it holds ctl_lock, sets stop and
 * runs the one (final) flusher_round itself (no LATE_SHUTDOWN with it).
 * BROKEN = shutdown flag read after a final exchange that always installs
 * NULL (pipeline_broken.pml).
 * Mutation knobs (expected to FAIL, see README.md): NO_SHUTDOWN_WAIT = the
 * CLOSED paths of llog_flush and llog__log do not wait for the shutdown
 * (wait_for_shutdown); RELEASE_BEFORE_COMMIT = the final round releases
 * each record's arena bytes right after writing it (F4), before the sinks
 * commit (F5), as the C code did before release_deferred.
 *
 * Sinks are buffered (console sink: lines are written at commit): a record
 * the flusher writes at F4 becomes visible on the stream only at the
 * commit (F5). Properties (c) and (d) are about what is visible.
 *
 * Ties to the C code: each step that models C code carries a comment
 * "C: FILE FUNCTION [ord WORD...]": the function it models and, after
 * "ord", the words of that function's body that are its steps, in the
 * model's order. tests/model/check_labels.sh (ctest model_labels and
 * scripts/test.sh labels) fails when one no longer holds: update the
 * model with the code.
 */

#ifndef NP
#define NP 2                    /* producers (the final check assumes 2) */
#endif
#ifndef K
#define K 2                     /* records per producer */
#endif
#define NREC (NP * K)
#define BAR NREC                /* node id of the flush barrier */
#define NNODE (NREC + 1)
#define NIL 255                 /* NULL */
#define CLOSED 254              /* &llog__closed_node */
#define BIT(n) (1 << (n))

/* arena capacity in records: producer 0 has room for one record only, so
 * its second record must BLOCK until the flusher releases the first. */
#define CAP(p) ((p) == 0 -> 1 : 2)
/* one urgent (ERROR) record per producer: p0's last (so its BLOCK wait
 * cannot lean on an earlier ERROR wake-up), p1's first */
#ifndef K1
#define K1 K                    /* records of producer 1 (<= K) */
#endif
#define KP(p) ((p) == 0 -> K : K1)
#define URGENT(p, i) ((p) == 0 -> (i) == K - 1 : (i) == 0)

/* ---- shared state (llog__g) ---- */
byte head = NIL;                /* llog__g.head.first */
byte nxt[NNODE];                /* node->next */
bit pending = 0;                /* llog__g.pending (futex word) */
bit stop = 0;                   /* llog__g.stop */
byte released[NP];              /* arena->released (records) */
byte blocked_waiters = 0;       /* llog__g.blocked_waiters */
/* llog__g.release_seq (futex word) is a counter; all that matters is
 * whether it changed since producer p read it, so the model keeps one
 * "changed since p's snapshot" bit per producer (an unbounded counter
 * would only blow up the state space; 2^32 wrap-around is not modelled). */
bit rs_moved[NP];
bit bar_done = 0;               /* barrier.done (futex word) */
/* ctl_lock, as far as the record path sees it: held by llog_shutdown from
 * before stop = 1 until after pthread_join (and close_all); the CLOSED
 * paths wait for it (wait_for_shutdown: lock, unlock). */
#ifndef INIT_FAIL
bit ctl = 0;
#else
bit ctl = 1;                    /* llog_init holds it throughout */
#endif

/* futex sleepers */
bit fl_sleep = 0;               /* flusher in futex_wait(&pending, 0) */
bit rs_sleep[NP];               /* producer p in futex_wait(&release_seq, seq) */
bit done_sleep = 0;             /* flush caller in futex_wait(&done, 0) */

/* ghost state for the properties */
byte pushed = 0;                /* records whose push CAS succeeded */
byte fl_deliv = 0;              /* records written to the sinks by the flusher */
byte fl_vis = 0;                /* ... and committed: visible on the stream
                                 * (fl_deliv & ~fl_vis = in a sink's buffer) */
#define VISIBLE fl_vis
byte sync_deliv = 0;            /* records written synchronously */
byte flcnt[NP];                 /* records of p delivered by the flusher */
byte bar_before = 0;            /* records pushed before the barrier */
bit bar_pushed = 0;
bit flusher_exited = 0;
bit prod_done[NP];
#ifdef NO_FLUSH
bit caller_done = 1;            /* no flush caller in this run */
#else
bit caller_done = 0;
#endif
#ifdef ONE_PRODUCER
#define NPRUN 1                 /* only producer 0 runs */
#else
#define NPRUN 2
#endif
#define RUNREC ((BIT(K) - 1) | (NPRUN > 1 -> (BIT(K1) - 1) << K : 0))

/*
 * llog__wake_flusher: fence; if (pending == 0 && xchg(pending, 1) == 0)
 * futex_wake(&pending). The relaxed pre-load is only a filter: when it
 * reads 1 the exchange would return 1 and change nothing, so the model
 * folds it into the exchange (one step less per wake-up, same behaviour).
 */
inline wake_flusher(old)
{
	/* C: liblog/queue.c llog__wake_flusher ord llog__fence_seq_cst llog__q.pending llog__xchg_seq_cst llog__futex_wake */
	d_step { old = pending; pending = 1 };
	if
	:: old == 0 -> fl_sleep = 0             /* futex_wake(&pending) */
	:: else -> old = 0
	fi
}

/*
 * wait_for_shutdown: pthread_mutex_lock(&ctl_lock); unlock. Modelled as a
 * wait until the lock is free: the lock-unlock pair holds the lock for no
 * step of its own, and nobody in the model but Shutdown holds it otherwise.
 * (The thread running llog_shutdown never waits (in_ctl); in the model it
 * does not log.)
 */
/* C: liblog/control.c llog__control_wait_shutdown ord pthread_mutex_lock pthread_mutex_unlock */
#ifndef NO_SHUTDOWN_WAIT
#define wait_for_shutdown() (ctl == 0)
#else
#define wait_for_shutdown() skip
#endif

/* llog__sync_output: rendered straight to stderr, the list is closed */
/* C: liblog/sync.c llog__sync_va */
/* C: liblog/sync.c llog__sync_record */
inline sync_deliver(node)
{
	d_step {
		assert(head == CLOSED);
		assert((fl_deliv & BIT(node)) == 0 && (sync_deliv & BIT(node)) == 0);
		/* per-thread order on a shared stream: every earlier record
		 * of this thread that was pushed is already written */
		assert((pushed & (BIT(node) - BIT(node - node % K)) & ~VISIBLE) == 0);
		sync_deliv = sync_deliv | BIT(node);
		printf("MSC: P%d record %d written synchronously (CLOSED)\n", node / K, node % K)
	}
}

/* one application thread: KP(p) LOG calls (llog__log; the fast path of a
 * typed call, producer.c fast_push, takes the same steps in the same
 * order: reserve, write, the release CAS, and on CLOSED the case after
 * capture; then the fill check) */
/* C: liblog/producer.c log_core ord llog__producer_closed_list llog__arena_get llog__push_from llog__wake_flusher llog__arena_check_fill llog__producer_closed_after_capture */
proctype Producer(byte p)
{
	byte i = 0, rsv = 0, first = 0, old = 0, node = 0;
	bit ok = 0;

	do
	:: i < KP(p) ->
		node = p * K + i;
		if
		/* llog__log: closed list -> sync_from_va, the arena is not
		 * used; records of ours still in flight (released != reserve,
		 * acquire load) -> wait_for_shutdown first */
		:: head == CLOSED ->
			/* C: liblog/producer_cold.c llog__producer_closed_list ord llog__queue_peek llog__arena_in_flight llog__control_wait_shutdown llog__sync_va */
			if
			:: rsv != released[p] -> wait_for_shutdown()
			:: else -> skip
			fi;
			sync_deliver(node)
		:: else ->
			/* reserve() -> llog__arena_reserve (its slow side llog__arena_room); full -> BLOCK policy */
			/* C: liblog/arena.c llog__arena_room ord llog__load_acquire llog__arena_view */
			/* C: liblog/arena.h llog__arena_view ord cached_released wake */
			do
			:: rsv - released[p] < CAP(p) -> rsv++; break
			:: else ->
				/* llog__arena_wait_space(a, need) */
				/* C: liblog/arena.c llog__arena_wait_space ord space.waiters space.seq llog__wake_flusher a->released llog__futex_wait space.waiters */
				blocked_waiters++;
				rs_moved[p] = 0;        /* seq = release_seq */
				wake_flusher(old);
				if
				:: rsv - released[p] >= CAP(p) ->
					/* futex_wait(&release_seq, seq), even on a
					 * closed list: the final round's bump wakes us */
					d_step {
						if
						:: !rs_moved[p] ->
							rs_sleep[p] = 1;
							printf("MSC: P%d arena full, sleeps\n", p)
						:: else -> skip
						fi
					};
					(rs_sleep[p] == 0)
				:: else -> skip
				fi;
				blocked_waiters--
			od;
			first = 0;      /* (spin: no jump into a d_step) */
			/* C: liblog/queue.h llog__push_from ord LLOG__CLOSED llist_try_add */
			/* push(): first = relaxed load of head; loop { CLOSED ->
			 * return -1; CAS(head, first, node) }. A failed CAS has
			 * no effect but reloading first, so the loop is one atomic
			 * step at the successful CAS or at the load that sees
			 * CLOSED (modelled that way). */
			d_step {
				if
				:: head == CLOSED -> first = CLOSED
				:: else ->
					nxt[node] = head; head = node;
					pushed = pushed | BIT(node); ok = 1;
					printf("MSC: P%d pushes record %d\n", p, i)
				fi
			};
			if
			:: first == CLOSED ->
				/* closed while we captured: wait_for_shutdown,
				 * llog__sync_record, unreserve */
				/* C: liblog/producer_cold.c llog__producer_closed_after_capture ord llog__control_wait_shutdown llog__sync_record llog__arena_unreserve */
				wait_for_shutdown();
				sync_deliver(node);
				rsv--;
				first = 0
			:: else -> skip
			fi;
			/* llog__log step 5: ERROR -> wake; else past half the arena -> wake */
			if
			:: ok ->
				ok = 0;
				if
				:: URGENT(p, i) -> wake_flusher(old)
#ifndef NO_HIGHWATER
				:: else ->
					if
					/* C: liblog/arena.h llog__arena_check_fill ord llog__arena_fill_wants_wake llog__wake_flusher */
					/* C: liblog/arena.h llog__arena_fill_wants_wake ord llog__arena_fill_wants_wake_at */
					/* C: liblog/arena.h llog__arena_fill_wants_wake_at ord wake llog__load_acquire llog__arena_view LLOG__ARENA_WAKE_STEP */
					/* C: liblog/producer.c fast_push ord llist_try_add fast_push_retry fast_pushed */
					/* C: liblog/producer.c fast_push_retry ord LLOG__CLOSED fast_closed llist_try_add fast_pushed */
					/* C: liblog/producer.c fast_pushed ord wake fast_fill */
					/* C: liblog/producer.c fast_fill ord llog__arena_fill_wants_wake_at llog__wake_flusher_last */
					/* C: include/llog/detail.h llog__fast_call ord __atomic_compare_exchange_n llog__fast_retry wake llog__fast_after */
					/* C: liblog/producer.c llog__fast_retry ord fast_push_retry */
					/* C: liblog/producer.c llog__fast_after ord fast_pushed */
					:: (rsv - released[p]) * 2 > CAP(p) -> wake_flusher(old)
					/* past half but before wake (woken a sixteenth of
					 * the ring ago: arena.h, "Stop and wake") */
					:: (rsv - released[p]) * 2 > CAP(p) -> skip
					:: else -> skip
					fi
#else
				:: else -> skip
#endif
				fi
			:: else -> skip
			fi
		fi;
		node = 0;
		i++
	:: else -> break
	od;
	prod_done[p] = 1
}

/*
 * flusher_main / flusher_round. HOLD: process() holds the releases of the
 * final (stopping) round in a deferred list, and release_deferred() runs
 * them after sinks_commit; in other rounds each record is released right
 * after it is written.
 */
#ifndef RELEASE_BEFORE_COMMIT
#define HOLD s
#else
#define HOLD 0                  /* mutation: release before the commit */
#endif

/* C: liblog/flusher.c flusher_main ord flusher_round llog__queue_sleep */
/* C: liblog/flusher.c flusher_round ord llog__queue_take process sinks_commit release_deferred release_waiting llog__arena_wake_waiters */
proctype Flusher()
{
	bit s = 0, bars = 0;
	byte batch = NIL, n = 0, j = 0, node = 0, q = 0;
	byte ord[NNODE];                /* the chain, ord[n-1] oldest */

#ifdef INIT_FAIL
	/* llog_init's thread, after pthread_create failed and it stored
	 * stop = 1: one flusher_round (the final one), then it returns */
	stop;
#endif
	do
	:: true ->
		/* C: liblog/queue.c llog__queue_take ord llog__q.pending llog__fence_seq_cst llog__q.stop */
F1:		pending = 0;
#ifndef BROKEN
		/* C: liblog/queue.c llog__queue_take ord llog__q.stop llist_del_all_replace */
F2:		s = stop;
		/* C: liblog/queue.c llog__queue_take ord llist_del_all_replace LLOG__CLOSED llist_reverse_order */
		/* C: liblog/llist.h llist_del_all_replace ord llog__xchg_acquire */
		/* C: liblog/llist.h llist_reverse_order */
F3:		d_step {
			/* chain = exchange(head, stopping ? CLOSED : NULL) */
			batch = head;
			head = (s -> CLOSED : NIL);
			if
			:: s -> printf("MSC: F takes the list, installs CLOSED\n")
			:: else -> printf("MSC: F takes the list, installs NULL\n")
			fi;
#else
		/* BROKEN: the exchange always installs NULL, stop is read after */
F3:		d_step {
			batch = head;
			head = NIL;
			printf("MSC: F takes the list, installs NULL\n");
#endif
			/* llist_reverse_order: the chain is the flusher's now */
			assert(batch != CLOSED);
			n = 0;
			do
			:: batch != NIL -> ord[n] = batch; n++; batch = nxt[batch]
			:: else -> break
			od;
			j = n;
#ifndef BROKEN
			/* n: the deferred list, ord[n-1..0], in the final round */
			if
			:: !HOLD -> n = 0
			:: else -> skip
			fi
#else
			skip
#endif
		};
#ifdef BROKEN
F2:		d_step {
			s = stop;
			if
			:: !HOLD -> n = 0
			:: else -> skip
			fi
		};
#endif
F4:		/* process(): oldest first; render, write into the sinks, release
		 * its bytes (final round: defer the release) */
		/* C: liblog/flusher.c process ord process_owned LLOG__K_BARRIER */
		/* C: liblog/flusher.c process_owned ord write_record release_or_defer */
		/* C: liblog/flusher.c release_or_defer ord hold release_record dtail */
		/* C: liblog/arena.h llog__arena_release ord llog__store_release */
		do
		:: d_step {
				j > 0;
				j--;
				node = ord[j];
				if
				:: !HOLD -> ord[j] = 0
				:: else -> skip         /* left for release_deferred */
				fi;
				if
				:: node == BAR -> bars = 1
				:: else ->
					q = node / K;
					assert((fl_deliv & BIT(node)) == 0 && (sync_deliv & BIT(node)) == 0);
					/* a producer's flushed records: a prefix, in order */
					assert(node % K == flcnt[q]);
					flcnt[q]++;
					fl_deliv = fl_deliv | BIT(node);
					if
					:: !HOLD ->
						released[q]++;  /* store-release of released */
						printf("MSC: F writes P%d record %d, releases it\n", q, node % K)
					:: else ->
						printf("MSC: F writes P%d record %d (release deferred)\n", q, node % K)
					fi
				fi;
				node = 0;
				q = 0
			}
		:: /* F5: sinks_commit, the sinks' buffers reach the stream
		    * (the guard inside the d_step saves a step per round) */
			/* C: liblog/flusher.c sinks_commit */
			d_step {
				j == 0;
				if
				:: fl_vis != fl_deliv ->
					fl_vis = fl_deliv;
					printf("MSC: F commits the sinks\n")
				:: else -> skip
				fi
			};
			break
		od;
		/* release_deferred (final round only; n == 0 otherwise) */
		/* C: liblog/flusher.c release_deferred ord release_record */
F5:		do
		:: d_step {
				n > 0;
				n--;
				node = ord[n];
				ord[n] = 0;
				if
				:: node != BAR ->
					released[node / K]++;   /* store-release */
					printf("MSC: F releases P%d record %d\n", node / K, node % K)
				:: else -> skip
				fi;
				node = 0
			}
		:: else -> break
		od;
		/* llog__flusher_signal_barriers */
		/* C: liblog/flusher_barrier.c llog__flusher_release_waiting ord llog__sinkq_reached signal_barriers */
		/* C: liblog/flusher_barrier.c llog__flusher_signal_barriers ord llog__store_release llog__futex_wake */
		if
		:: bars ->
			d_step {
				assert((VISIBLE & bar_before) == bar_before);
				bar_done = 1;
				printf("MSC: F signals the flush barrier\n")
			};
			done_sleep = 0;         /* futex_wake(&done) */
			bars = 0
		:: else -> skip
		fi;
		/* fence; blocked_waiters != 0 -> release_seq++, futex_wake all */
		/* C: liblog/arena.c llog__arena_wake_waiters ord llog__fence_seq_cst space.waiters space.seq llog__futex_wake */
		if
		:: blocked_waiters != 0 ->
			d_step {
				q = 0;
				do
				:: q < NP -> rs_moved[q] = 1; q++
				:: else -> break
				od;
				q = 0
			};
			d_step {
				q = 0;
				do
				:: q < NP -> rs_sleep[q] = 0; q++
				:: else -> break
				od;
				q = 0
			}
		:: else -> skip
		fi;
		/* C: liblog/queue.c llog__queue_sleep ord llog__q.pending llog__futex_wait */
F6:		if
		:: s -> printf("MSC: F exits\n"); break
		:: else -> skip
		fi;
		if
		:: pending == 0 ->
			/* futex_wait(&pending, 0), no timeout */
			d_step {
				if
				:: pending == 0 ->
					fl_sleep = 1;
					printf("MSC: F sleeps\n")
				:: else -> skip
				fi
			};
			(fl_sleep == 0)
		:: else -> skip
		fi
	od;
	flusher_exited = 1
}

/* llog_flush */
/* C: liblog/control.c llog_flush ord llog__flusher_barrier_run llog__control_wait_shutdown */
/* C: liblog/flusher_barrier.c llog__flusher_barrier_run ord llog__push llog__wake_flusher llog__load_acquire llog__futex_wait */
proctype FlushCaller()
{
	byte old = 0, pre = 0;
	bit ok = 0;

	/* push() of the barrier (one atomic step, see Producer) */
	d_step {
		if
		:: head == CLOSED ->            /* closed: wait_for_shutdown */
			pre = pushed;           /* pushed before the call */
			printf("MSC: C sees CLOSED\n")
		:: else ->
			nxt[BAR] = head; head = BAR;
			bar_before = pushed; bar_pushed = 1; ok = 1;
			printf("MSC: C pushes the flush barrier\n")
		fi
	};
	if
	:: ok ->
		wake_flusher(old);
		do
		:: bar_done -> break
		:: else ->
			/* futex_wait(&done, 0) */
			d_step {
				if
				:: bar_done == 0 ->
					done_sleep = 1;
					printf("MSC: C sleeps on done\n")
				:: else -> skip
				fi
			};
			(done_sleep == 0)
		od
	:: else -> wait_for_shutdown()
	fi;
	atomic {
		/* everything pushed before the call is written when flush
		 * returns (the barrier path: asserted at F5 via bar_before) */
		assert((VISIBLE & pre) == pre);
		pre = 0;
		caller_done = 1
	}
}

/*
 * llog_shutdown. By default concurrent with the producers and the flush
 * caller (the shutdown race). With LATE_SHUTDOWN it starts only after they
 * all finished: then nothing but the wake-up handshakes can wake the
 * flusher, so a lost wake-up (BLOCK waiter, flush barrier) leaves a process
 * asleep forever = an invalid end state. (Concurrent shutdown wakes the
 * flusher unconditionally and would mask such a loss.)
 */
/* C: liblog/control.c llog_shutdown ord pthread_mutex_lock llog__flusher_stop llog__flusher_sinktab_close pthread_mutex_unlock */
/* C: liblog/flusher.c llog__flusher_stop ord llog__queue_stop pthread_join */
/* C: liblog/queue.c llog__queue_stop ord llog__store_seq_cst llog__q.stop llog__xchg_seq_cst llog__q.pending llog__futex_wake */
/* C: liblog/control.c start_flusher ord llog__flusher_start llog__flusher_run_final */
/* C: liblog/flusher.c llog__flusher_run_final ord llog__queue_stop flusher_round */
proctype Shutdown()
{
#ifdef INIT_FAIL
	/* llog_init (ctl_lock held since before head = NULL, which is where
	 * the model starts): pthread_create fails; stop = 1 (seq_cst); the
	 * same thread runs flusher_round(stop = 1), modelled by the Flusher
	 * process, which starts on stop; then ctl_lock is unlocked. */
	d_step {
		stop = 1;
		printf("MSC: I: pthread_create failed, sets stop, runs the final round\n")
	};
	d_step {
		flusher_exited;
		ctl = 0;
		printf("MSC: I: final round done, releases ctl_lock\n")
	};
#else
#ifdef LATE_SHUTDOWN
	prod_done[0] && (NPRUN < 2 || prod_done[1]) && caller_done;
#endif
	/* pthread_mutex_lock(&ctl_lock) ... stop = 1 (seq_cst store). One
	 * step: ctl is only read by a thread that saw CLOSED, which needs
	 * stop = 1 first (the waiters only wait for the lock to be free, so
	 * nobody else holds it). */
	d_step {
		ctl = 1;
		stop = 1;
		printf("MSC: S takes ctl_lock, sets stop\n")
	};
	pending = 1;                    /* seq_cst exchange, result unused */
	fl_sleep = 0;                   /* futex_wake(&pending) */
	/* pthread_join; close_all; pthread_mutex_unlock(&ctl_lock). One
	 * step: in between nothing but ctl changes. */
	d_step {
		flusher_exited;
		ctl = 0;
		printf("MSC: S joined the flusher, releases ctl_lock\n")
	};
#endif
	/* final check once everybody else has finished */
	prod_done[0] && (NPRUN < 2 || prod_done[1]) && caller_done;
	d_step {
		/* (a) every record delivered exactly once */
		assert((fl_deliv & sync_deliv) == 0);
		assert((fl_deliv | sync_deliv) == RUNREC);
		assert(fl_vis == fl_deliv);     /* everything written was committed */
		/* (c) a pushed barrier was signalled */
		assert(!bar_pushed || bar_done);
		assert(blocked_waiters == 0);
#ifndef BROKEN
		assert(head == CLOSED)
#else
		skip
#endif
	}
}

init
{
	atomic {
		run Flusher();
		run Producer(0);
#ifndef ONE_PRODUCER
		run Producer(1);
#endif
#ifndef NO_FLUSH
		run FlushCaller();
#endif
		run Shutdown()
	}
}
