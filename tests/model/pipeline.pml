/*
 * pipeline.pml - spin model of llog's record pipeline: the lock-free push
 * (llog__log / push in liblog/core.c), the flusher's take-all round
 * (flusher_main in liblog/core.c), the flusher wake-up handshake
 * (llog__wake_flusher), the BLOCK overflow wait (reserve ->
 * llog__arena_reserve in liblog/arena.c + llog__wait_released), the flush
 * barrier (llog_flush) and shutdown (llog_shutdown).
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
 *  (b) no lost wake-up: every process terminates (no invalid end state);
 *      a BLOCK waiter never spins forever after the flusher exited.
 *  (c) the flush caller returns, and every record pushed before its
 *      barrier is delivered before done is set.
 *
 * Build flags (spin -D...): BROKEN = shutdown flag read after a final
 * exchange that installs NULL (pipeline_broken.pml); NO_HIGHWATER = drop
 * the arena high-water wake-up in after_push; STRICT_FLUSH = also require
 * that llog_flush returning early on a closed list finds everything pushed
 * before the call already delivered (does NOT hold, see README).
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
#define ALLREC (BIT(NREC) - 1)

/* arena capacity in records: producer 0 has room for one record only, so
 * its second record must BLOCK until the flusher releases the first. */
#define CAP(p) ((p) == 0 -> 1 : 2)
/* one urgent (ERROR) record per producer: p0's first, p1's second */
#define URGENT(p, i) ((i) == ((p) % K))

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

/* futex sleepers */
bit fl_sleep = 0;               /* flusher in futex_wait(&pending, 0) */
bit rs_sleep[NP];               /* producer p in futex_wait(&release_seq, seq) */
bit done_sleep = 0;             /* flush caller in futex_wait(&done, 0) */

/* ghost state for the properties */
byte pushed = 0;                /* records whose push CAS succeeded */
byte fl_deliv = 0;              /* records delivered by the flusher */
byte sync_deliv = 0;            /* records written synchronously */
byte flcnt[NP];                 /* records of p delivered by the flusher */
byte bar_before = 0;            /* records pushed before the barrier */
bit bar_pushed = 0;
bit flusher_exited = 0;
bit prod_done[NP];
bit caller_done = 0;

/* llog__wake_flusher: fence; relaxed filter; exchange decides who wakes */
inline wake_flusher(old)
{
	if
	:: pending == 0 ->
		d_step { old = pending; pending = 1 };
		if
		:: old == 0 -> fl_sleep = 0     /* futex_wake(&pending) */
		:: else -> skip
		fi;
		old = 0
	:: else -> skip
	fi
}

/* a record rendered straight to stderr because the list is closed */
inline sync_deliver(node)
{
	d_step {
		assert(head == CLOSED);
		assert((fl_deliv & BIT(node)) == 0 && (sync_deliv & BIT(node)) == 0);
		sync_deliv = sync_deliv | BIT(node)
	}
}

proctype Producer(byte p)
{
	byte i = 0, rsv = 0, first, old, node;
	bit ok = 0;

	do
	:: i < K ->
		node = p * K + i;
		if
		/* llog__log: closed list -> sync_from_va, no arena */
		:: head == CLOSED -> sync_deliver(node)
		:: else ->
			/* reserve(): llog__arena_reserve, BLOCK policy */
			do
			:: rsv - released[p] < CAP(p) -> rsv++; break
			:: else ->
				/* llog__wait_released */
				blocked_waiters++;
				rs_moved[p] = 0;        /* seq = release_seq */
				wake_flusher(old);
				if
				:: rsv - released[p] >= CAP(p) ->
					if
					:: head != CLOSED ->
						/* futex_wait(&release_seq, seq) */
						d_step {
							if
							:: !rs_moved[p] -> rs_sleep[p] = 1
							:: else -> skip
							fi
						};
						(rs_sleep[p] == 0)
					:: else ->
						/* not sleeping: the list is closed; the
						 * last round must still release us, else
						 * this loop spins forever */
						assert(!flusher_exited || rsv - released[p] < CAP(p))
					fi
				:: else -> skip
				fi;
				blocked_waiters--
			od;
			/* push() */
			first = head;
			do
			:: first == CLOSED ->
				/* closed while we captured: sync_render + unreserve */
				sync_deliver(node);
				rsv--;
				break
			:: else ->
				d_step {
					if
					:: head == first ->
						nxt[node] = first; head = node;
						pushed = pushed | BIT(node); ok = 1
					:: else -> first = head
					fi
				};
				if
				:: ok -> break
				:: else -> skip
				fi
			od;
			first = 0;
			/* after_push */
			if
			:: ok ->
				ok = 0;
				if
				:: URGENT(p, i) -> wake_flusher(old)
#ifndef NO_HIGHWATER
				:: else ->
					if
					:: (rsv - released[p]) * 2 > CAP(p) -> wake_flusher(old)
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

proctype Flusher()
{
	bit s = 0, bars = 0;
	byte batch, n = 0, j = 0, node = 0, q = 0;
	byte ord[NNODE];

	do
	:: true ->
F1:		pending = 0;
#ifndef BROKEN
F2:		s = stop;
F3:		d_step { batch = head; head = (s -> CLOSED : NIL) };
#else
		/* BROKEN: exchange first, always installing NULL, then stop */
F3:		d_step { batch = head; head = NIL };
F2:		s = stop;
#endif
		/* llist_reverse_order (flusher-private chain) */
		d_step {
			assert(batch != CLOSED);
			n = 0;
			do
			:: batch != NIL -> ord[n] = batch; n++; batch = nxt[batch]
			:: else -> break
			od;
			j = n
		};
F4:		/* process(): oldest first; render, write, release its bytes */
		do
		:: j > 0 ->
			d_step {
				j--;
				node = ord[j];
				ord[j] = 0;
				if
				:: node == BAR -> bars = 1
				:: else ->
					q = node / K;
					assert((fl_deliv & BIT(node)) == 0 && (sync_deliv & BIT(node)) == 0);
					/* per producer: a prefix, in order */
					assert(node % K == flcnt[q]);
					flcnt[q]++;
					fl_deliv = fl_deliv | BIT(node);
					released[q]++
				fi;
				node = 0;
				q = 0
			}
		:: else -> break
		od;
		n = 0;
F5:		/* sinks_commit; signal_barriers */
		if
		:: bars ->
			d_step {
				assert((fl_deliv & bar_before) == bar_before);
				bar_done = 1
			};
			done_sleep = 0;         /* futex_wake(&done) */
			bars = 0
		:: else -> skip
		fi;
		/* fence; wake blocked producers */
		if
		:: blocked_waiters != 0 ->
			d_step {            /* release_seq++ */
				q = 0;
				do
				:: q < NP -> rs_moved[q] = 1; q++
				:: else -> break
				od;
				q = 0
			};
			d_step {            /* futex_wake(&release_seq, all) */
				q = 0;
				do
				:: q < NP -> rs_sleep[q] = 0; q++
				:: else -> break
				od;
				q = 0
			}
		:: else -> skip
		fi;
F6:		if
		:: s -> break
		:: else -> skip
		fi;
		if
		:: pending == 0 ->
			/* futex_wait(&pending, 0), no timeout */
			d_step {
				if
				:: pending == 0 -> fl_sleep = 1
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
proctype FlushCaller()
{
	byte first, old;
	bit ok = 0;
#ifdef STRICT_FLUSH
	byte pre = pushed;
#endif

	first = head;
	do
	:: first == CLOSED -> break     /* not running: return at once */
	:: else ->
		d_step {
			if
			:: head == first ->
				nxt[BAR] = first; head = BAR;
				bar_before = pushed; bar_pushed = 1; ok = 1
			:: else -> first = head
			fi
		};
		if
		:: ok -> break
		:: else -> skip
		fi
	od;
	if
	:: ok ->
		wake_flusher(old);
		do
		:: bar_done -> break
		:: else ->
			/* futex_wait(&done, 0) */
			d_step {
				if
				:: bar_done == 0 -> done_sleep = 1
				:: else -> skip
				fi
			};
			(done_sleep == 0)
		od
	:: else -> skip
	fi;
#ifdef STRICT_FLUSH
	assert((fl_deliv & pre) == pre);
#endif
	caller_done = 1
}

/* llog_shutdown, concurrent with the producers and the flush caller */
proctype Shutdown()
{
	stop = 1;
	pending = 1;                    /* exchange, result unused */
	fl_sleep = 0;                   /* futex_wake(&pending) */
	flusher_exited;                 /* pthread_join */
	/* final check once everybody else has finished */
	prod_done[0] && prod_done[1] && caller_done;
	d_step {
		assert(head == CLOSED);
		assert((fl_deliv & sync_deliv) == 0);
		assert((fl_deliv | sync_deliv) == ALLREC);
		assert(!bar_pushed || bar_done);
		assert(blocked_waiters == 0)
	}
}

init
{
	atomic {
		run Flusher();
		run Producer(0);
		run Producer(1);
		run FlushCaller();
		run Shutdown()
	}
}
