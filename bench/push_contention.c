/*
 * push_contention.c - what one shared list head costs with several
 * producers, against one head per producer (the evidence for sharding
 * the head, at any thread count).
 *
 *   push_contention [-t "1 2 4"] [-s SECONDS] [-p PERIOD_US] [-r REC_BYTES]
 *
 * The mechanism alone, not llog: each producer thread pushes records of
 * REC_BYTES (default 80, about a formatted LOG's record) from a ring of
 * its own with llog's push (llist.h: a relaxed load of the head, a clock
 * read, a release CAS, retried with a new clock read on failure, as
 * llog__push_from), back to back for SECONDS (default 1). One consumer
 * thread takes every head with an acquire exchange, then sleeps PERIOD_US
 * microseconds (default 100), reverses each chain into push order (as the
 * flusher), checks that each producer's records come in its order and
 * hands the ring's room back (a release store per producer, as the
 * arena's release counter). Run once with every producer on one head
 * ("shared", llog today) and once with one head per producer ("sharded").
 *
 * Per row: ns per push per producer (its seconds over its pushes), the
 * pushes per second of all producers together, the share of CAS attempts
 * that failed, and how often a producer found its ring full (it waits for
 * the consumer then: a ring of 16,384 records). Numbers, not assertions: on
 * a machine with fewer CPUs than producers + 1, the threads share CPUs and
 * the rows say little about contention.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "llist.h"

#define MAX_THREADS 64
#define RING 16384u /* records per producer, a power of two */

struct rec {
	struct llist_node node;
	uint32_t thread;
	uint64_t n; /* the producer's sequence number, from 0 */
	uint64_t ts;
	char payload[];
};

struct producer {
	_Alignas(64) char *ring;
	uint64_t pushed, cas_fail, full_waits;
	double seconds;
	struct llist_head *head;
	unsigned id;
	pthread_t th;
	/* written by the consumer: records taken and checked */
	_Alignas(64) _Atomic uint64_t released;
};

struct shard {
	_Alignas(64) struct llist_head h;
};

static struct shard shards[MAX_THREADS];
static struct producer prod[MAX_THREADS];
/* Stop flags, read relaxed: nothing is published through them (the
 * producers' counts reach run() through pthread_join). */
static _Atomic int stop_producers, stop_consumer;
static unsigned nheads, nthreads;
static size_t rec_bytes = 80;
static unsigned period_us = 100;
static double run_s = 1.0;
static uint64_t next_expected[MAX_THREADS];
static int order_broken;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The time a push stamps its record with, as llog's raw clock (clock.h):
 * the TSC where there is one. */
static inline uint64_t clock_raw(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return __builtin_ia32_rdtsc();
#else
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
#endif
}

static void *producer_main(void *arg)
{
	struct producer *p = arg;
	double t0 = now_s();
	uint64_t n = 0;

	while (!atomic_load_explicit(&stop_producers, memory_order_relaxed)) {
		struct rec *r;
		struct llist_node *first;

		/* Acquire: the consumer's release store of released follows
		 * its last read of the slot we are about to overwrite. */
		if (n - atomic_load_explicit(&p->released, memory_order_acquire) >= RING) {
			p->full_waits++;
			while (n - atomic_load_explicit(&p->released, memory_order_acquire) >= RING &&
			       !atomic_load_explicit(&stop_producers, memory_order_relaxed))
				;
			continue;
		}
		r = (struct rec *)(void *)(p->ring + (n & (RING - 1)) * rec_bytes);
		r->thread = p->id;
		r->n = n;
		memset(r->payload, (int)(n & 0x7f), rec_bytes - sizeof(*r));
		first = llist_first_relaxed(p->head);
		for (;;) {
			r->ts = clock_raw();
			/* Release CAS (llist.h): publishes the record. */
			if (llist_try_add(&r->node, p->head, &first))
				break;
			p->cas_fail++;
		}
		n++;
	}
	p->seconds = now_s() - t0;
	p->pushed = n;
	return NULL;
}

static void consume_all(void)
{
	uint64_t taken[MAX_THREADS] = {0};

	for (unsigned h = 0; h < nheads; h++) {
		/* Acquire exchange (llist.h): pairs with every push's release. */
		struct llist_node *chain = llist_del_all(&shards[h].h), *pos;

		for (pos = llist_reverse_order(chain); pos != NULL; pos = pos->next) {
			const struct rec *r = llist_entry(pos, struct rec, node);

			if (r->n != next_expected[r->thread])
				order_broken = 1;
			next_expected[r->thread] = r->n + 1;
			taken[r->thread]++;
		}
	}
	for (unsigned i = 0; i < nthreads; i++)
		if (taken[i] != 0)
			/* Release: our reads of the records come before the
			 * producer reuses their slots (its acquire load). */
			atomic_fetch_add_explicit(&prod[i].released, taken[i], memory_order_release);
}

static void *consumer_main(void *arg)
{
	(void)arg;
	while (!atomic_load_explicit(&stop_consumer, memory_order_relaxed)) {
		struct timespec d = {0, (long)period_us * 1000};

		consume_all();
		nanosleep(&d, NULL); /* the flusher sleeps between rounds too */
	}
	consume_all();
	return NULL;
}

static void run(unsigned threads, int sharded)
{
	pthread_t consumer;
	uint64_t pushed = 0, fails = 0, waits = 0;
	double ns = 0, secs = 0;

	nthreads = threads;
	nheads = sharded ? threads : 1;
	memset(next_expected, 0, sizeof(next_expected));
	order_broken = 0;
	for (unsigned h = 0; h < MAX_THREADS; h++)
		init_llist_head(&shards[h].h);
	atomic_store(&stop_producers, 0);
	atomic_store(&stop_consumer, 0);
	pthread_create(&consumer, NULL, consumer_main, NULL);
	for (unsigned i = 0; i < threads; i++) {
		struct producer *p = &prod[i];

		p->pushed = p->cas_fail = p->full_waits = 0;
		atomic_store(&p->released, 0);
		p->id = i;
		p->head = &shards[sharded ? i : 0].h;
		if (p->ring == NULL && (p->ring = aligned_alloc(64, RING * rec_bytes)) == NULL) {
			perror("aligned_alloc");
			exit(1);
		}
		memset(p->ring, 0, RING * rec_bytes); /* touched: no first-lap faults */
		pthread_create(&p->th, NULL, producer_main, p);
	}
	usleep((useconds_t)(run_s * 1e6));
	atomic_store(&stop_producers, 1);
	for (unsigned i = 0; i < threads; i++) {
		pthread_join(prod[i].th, NULL);
		pushed += prod[i].pushed;
		fails += prod[i].cas_fail;
		waits += prod[i].full_waits;
		ns += prod[i].seconds * 1e9 / (double)(prod[i].pushed ? prod[i].pushed : 1);
		secs += prod[i].seconds;
	}
	atomic_store(&stop_consumer, 1);
	pthread_join(consumer, NULL);
	for (unsigned i = 0; i < threads; i++)
		if (next_expected[i] != prod[i].pushed)
			order_broken = 1;
	printf("| %u | %s | %.1f | %.2f | %.2f %% | %llu |%s\n", threads,
	       sharded ? "one per producer" : "shared", ns / threads,
	       (double)pushed / (secs / threads) / 1e6,
	       100.0 * (double)fails / (double)(pushed + fails), (unsigned long long)waits,
	       order_broken ? " LOST OR REORDERED" : "");
	if (order_broken)
		exit(1);
}

int main(int argc, char **argv)
{
	const char *tl = "1 2 4";
	int c;

	while ((c = getopt(argc, argv, "t:s:p:r:")) != -1) {
		switch (c) {
		case 't': tl = optarg; break;
		case 's': run_s = atof(optarg); break;
		case 'p': period_us = (unsigned)atoi(optarg); break;
		case 'r': rec_bytes = (size_t)atol(optarg); break;
		default:
			fprintf(stderr, "usage: %s [-t \"1 2 4\"] [-s SECONDS] [-p PERIOD_US] "
					"[-r REC_BYTES]\n", argv[0]);
			return 2;
		}
	}
	if (rec_bytes < sizeof(struct rec) || rec_bytes % 8 != 0) {
		fprintf(stderr, "push_contention: -r must be a multiple of 8, at least %zu\n",
			sizeof(struct rec));
		return 2;
	}
	printf("push_contention: %zu-byte records, the consumer every %u us, %.1f s a row, "
	       "%ld CPUs online\n\n", rec_bytes, period_us, run_s, sysconf(_SC_NPROCESSORS_ONLN));
	printf("| producers | heads | ns per push | M pushes/s, all | CAS failed | ring full |\n"
	       "|---|---|---|---|---|---|\n");
	for (const char *p = tl; *p != '\0';) {
		char *end;
		unsigned long t = strtoul(p, &end, 10);

		if (end == p) {
			p++;
			continue;
		}
		p = end;
		if (t < 1 || t > MAX_THREADS) {
			fprintf(stderr, "push_contention: 1 to %d producers\n", MAX_THREADS);
			return 2;
		}
		run((unsigned)t, 0);
		if (t > 1)
			run((unsigned)t, 1);
	}
	return 0;
}
