/*
 * shards.pml - spin model of a sharded record queue's cut and merge
 * (liblog/queue.c take_shards, merge; docs/architecture/queue.md 9).
 *
 * Two heads. Producers P0 (head 0) and P1 (head 1) pass a token: P0 logs
 * token record 1, then P1 logs 2, then P0 logs 3, ... (NT in all), each
 * LOG after the previous one returned: a happens-before chain across the
 * heads. P2 (head H2) logs NF free records with no order to the others.
 * The flusher runs rounds: cut = the clock; exchange head 0, then head 1;
 * hand out from each head the prefix of records with time < cut, merged
 * by time; the final round (after every producer is done) hands out all.
 *
 * The clock is one counter for all: a read returns it and advances it
 * (an ordered TSC read, which sees time pass between two reads ordered
 * through memory). A push loads the head, reads the clock, and CASes the
 * head from the value it loaded (ABA on an empty head included: a
 * producer that loaded NULL before an exchange succeeds after it).
 *
 * Checked: every record handed out exactly once; the token records in
 * token order; P2's records in P2's order. -DRL: the token records are
 * pushed with a time read once before the push (a rate limiter's
 * decision, llog__push_from_at), which may be older than the record it
 * lands on. -DUNORDERED (a push's clock read without lfence, which may
 * run before the thread saw its turn) must fail like -DNO_CUT. -DNO_CUT (the flusher hands
 * out all it took, every round) must fail: spin finds a token record
 * pushed after its head's exchange that comes after the next one.
 */

#ifndef NT
#define NT 3 /* token records: P0 logs the odd ones, P1 the even ones */
#endif
#ifndef NF
#define NF 1 /* free records of P2 */
#endif
#ifndef H2
#define H2 0 /* P2's head */
#endif

#ifndef ROUNDS
#define ROUNDS 3 /* non-final rounds at most */
#endif

#define NREC (NT + NF)
#define NONE 255
#define INF 255

/* Records: 1..NT token records, NT+1..NT+NF P2's. ts[r]: its time. */
byte ts[NREC + 1];
byte now = 1;
/* -DUNORDERED: the clock read without its lfence may run early, before
 * the loads the thread did before it: early[r] is the clock as it was
 * before record r's producer waited for its turn. */
byte early[NREC + 1];

/* Each head: its records in push order (the model keeps the chain in push
 * order; reversing it is llist_reverse_order's job, not modelled), top =
 * the head's value (the newest record, 0 for NULL). */
byte chain[2 * NREC];   /* head k's chain: chain[k * NREC + i] */
byte clen[2];
byte held[2 * NREC];    /* taken, not handed out: held[k * NREC + i] */
byte hfirst[2], hlen[2];

byte token = 1;         /* the next token record to log */
byte done = 0;          /* producers done */
byte out_next_tok = 1;  /* the token record expected next in the output */
byte out_next_free = NT + 1;
byte out_count = 0;
bool seen[NREC + 1];

/* C: liblog/queue.h llog__push_from ord LLOG__CLOSED llog__clock_push llist_try_add */
inline push(k, r)
{
	byte first, got;
	bool ok = false;

	first = (clen[k] == 0 -> 0 : chain[k * NREC + clen[k] - 1]);
	do
	:: !ok ->
#ifdef UNORDERED
		atomic { if :: ts[r] = early[r] :: ts[r] = now fi; now++ };
#else
		atomic { ts[r] = now; now++ };
#endif
		atomic {
			got = (clen[k] == 0 -> 0 : chain[k * NREC + clen[k] - 1]);
			if
			:: got == first ->
				chain[k * NREC + clen[k]] = r;
				clen[k]++;
				ok = true
			:: else ->
				first = got
			fi
		}
	:: else -> break
	od;
	first = 0; got = 0; ok = false
}

/* A rate-limited site's push (-DRL, the token producers): the time is the
 * limiter's decision, read (ordered) once before the push and kept over
 * failed CASes, so it may be older than the record it is pushed on. */
/* C: liblog/queue.h llog__push_from_at ord r->ts LLOG__CLOSED llist_try_add */
/* C: liblog/ratelimit.c llog__rl_interval ord llog__clock_push p->ts */
inline push_at(k, r)
{
	byte first, got;
	bool ok = false;

#ifdef UNORDERED
	atomic { if :: ts[r] = early[r] :: ts[r] = now fi; now++ };
#else
	atomic { ts[r] = now; now++ };
#endif
	first = (clen[k] == 0 -> 0 : chain[k * NREC + clen[k] - 1]);
	do
	:: !ok ->
		atomic {
			got = (clen[k] == 0 -> 0 : chain[k * NREC + clen[k] - 1]);
			if
			:: got == first ->
				chain[k * NREC + clen[k]] = r;
				clen[k]++;
				ok = true
			:: else ->
				first = got
			fi
		}
	:: else -> break
	od;
	first = 0; got = 0; ok = false
}

proctype token_producer(byte k)
{
	byte r = k + 1; /* P0: 1, 3, ...; P1: 2, 4, ... */

	do
	:: r <= NT ->
		early[r] = now;
		(token == r);
#ifdef RL
		push_at(k, r);
#else
		push(k, r);
#endif
		token = r + 1; /* after the LOG returned */
		r = r + 2
	:: else -> break
	od;
	atomic { done++ }
}

proctype free_producer()
{
	byte r = NT + 1;

	do
	:: r <= NT + NF ->
		early[r] = now;
		push(H2, r);
		r++
	:: else -> break
	od;
	atomic { done++ }
}

inline hand_out(r)
{
	assert(!seen[r]);
	seen[r] = true;
	out_count++;
	if
	:: r <= NT ->
		printf("MSC: out token record %d (time %d)\n", r, ts[r]);
		assert(r == out_next_tok);
		out_next_tok++
	:: else ->
		printf("MSC: out free record %d (time %d)\n", r, ts[r]);
		assert(r == out_next_free);
		out_next_free++
	fi
}

/* C: liblog/queue.c take_shards ord cut_time llist_del_all_replace hold LLOG__SCHED merge */
/* C: liblog/queue.c merge ord rec_ts lim */
inline round(final)
{
	byte cut, k, i, b, bts, t;

	if
	:: final -> cut = INF
	:: else -> atomic { cut = now; now++ }
	fi;
#ifdef NO_CUT
	cut = INF;
#endif
	k = 0;
	do
	:: k < 2 ->
		atomic {
			/* the exchange: head k's chain moves to held[k] */
			i = 0;
			do
			:: i < clen[k] ->
				held[k * NREC + hfirst[k] + hlen[k]] = chain[k * NREC + i];
				hlen[k]++;
				i++
			:: else -> break
			od;
			clen[k] = 0
		};
		k++
	:: else -> break
	od;
	/* merge: the earliest front below the cut, each head in push order
	 * (the flusher's own data: one step) */
	atomic { do
	:: true ->
		b = NONE;
		bts = INF;
		k = 0;
		do
		:: k < 2 ->
			if
			:: hlen[k] > 0 ->
				t = ts[held[k * NREC + hfirst[k]]];
				if
				:: (t < cut || final) && (b == NONE || t < bts) -> b = k; bts = t
				:: else -> skip
				fi
			:: else -> skip
			fi;
			k++
		:: else -> break
		od;
		if
		:: b == NONE -> break
		:: else ->
			hand_out(held[b * NREC + hfirst[b]]);
			hfirst[b]++;
			hlen[b]--
		fi
	od;
	/* locals back to 0: fewer distinct states */
	cut = 0; k = 0; i = 0; b = 0; bts = 0; t = 0 }
}

/* C: liblog/flusher.c flusher_main ord flusher_round llog__queue_sleep */
active proctype flusher()
{
	byte rounds = 0;

	/* at most ROUNDS rounds while producers run, then it waits for them
	 * (the clock, a byte, stays bounded) */
	do
	:: rounds < ROUNDS -> round(false); rounds++
	:: done == 3 -> break
	od;
	round(true);
	assert(out_count == NREC)
}

init
{
	atomic {
		run token_producer(0);
		run token_producer(1);
		run free_producer()
	}
}
