/*
 * publish_cost.c - what the hand-over of a record costs the caller when the
 * ring's lines are not in its cache: llog's push (a release CAS on a list
 * head, a locked instruction) against a ring's release store (the
 * single-producer queues of the peers), each call timed alone.
 *
 *   publish_cost [-r RING_BYTES] [-b REC_BYTES] [-g GAP_US] [-n BURSTS] [-c]
 *                [-d AHEAD]
 *
 * The mechanism alone, not llog: one producer thread writes records of
 * REC_BYTES (default 64) one after another into a ring of RING_BYTES
 * (default 262144, llog's default arena) and hands each over, in bursts of
 * 20 calls separated by GAP_US microseconds of busy-waiting (default 2000,
 * bench/run.sh's bursts); -c adds a consumer thread that reads every
 * record a millisecond later (as the flusher: the lines are then shared
 * with another core when the producer comes back to them). Two methods,
 * each call bracketed by lfence;rdtsc ... rdtscp;lfence:
 *   cas     the record's stores, then llist_try_add (llist.h: a release
 *           CAS on the head, retried on failure), as llog's fast path;
 *   cas+pfw as cas, and after the push a PREFETCHW of the line AHEAD
 *           bytes past the record (default 512, llog's
 *           LLOG__FAST_AHEAD): the lines the next calls write are then
 *           the producer's own when they come;
 *   store   the record's stores, then a release store of the ring's
 *           position (a plain store on x86-64), as a single-producer
 *           ring's publication.
 * On x86 a locked instruction waits until every earlier store has left
 * the store buffer, so a record whose line is not in the cache in the
 * Modified state makes the CAS wait for that line (a read for ownership:
 * from memory or from the other core); the release store lets the store
 * buffer absorb it. Prints p50, p90 and p99 per method in ns (the timer's
 * own cost, about 12 ns, included). Numbers, not assertions
 * (bench/README.md, "publish_cost").
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <x86intrin.h>

#include "llist.h"
#include "tsc.h"

#define BURST 20
#define HIST 4096 /* ns buckets; the last one holds the rest */

struct rec {
	struct llist_node node;
	char payload[];
};

static size_t ring_bytes = 262144, rec_bytes = 64, pf_dist = 512;
static unsigned gap_us = 2000, bursts = 3000;
static int with_consumer;
static char *ring;
static struct llist_head head;
/* The ring's position published by the store method (release), and the
 * consumer's view of how far records were written (release: the records
 * before it are complete); stop: relaxed, nothing is published by it. */
static _Atomic uint64_t published, written;
static _Atomic int stop;
static volatile uint64_t sink;

/* Reads every record written, a millisecond at a time. */
static void *consumer_main(void *arg)
{
	uint64_t seen = 0;

	(void)arg;
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		/* Acquire: pairs with the producer's release store. */
		uint64_t w = atomic_load_explicit(&written, memory_order_acquire);

		for (; seen < w; seen += rec_bytes)
			for (size_t k = 0; k < rec_bytes; k += 8)
				sink += *(const uint64_t *)(const void *)(ring + (seen + k) % ring_bytes);
		usleep(1000);
	}
	return NULL;
}

static void run(int cas, int pf, double npt)
{
	static unsigned hist[HIST];
	uint64_t pos = 0, gap = (uint64_t)(gap_us * 1000.0 / npt), n = 0, c;
	int p50 = -1, p90 = -1, p99 = -1;
	pthread_t th;

	memset(hist, 0, sizeof(hist));
	atomic_store(&stop, 0);
	if (with_consumer && pthread_create(&th, NULL, consumer_main, NULL) != 0) {
		perror("publish_cost: pthread_create");
		exit(1);
	}
	for (unsigned b = 0; b < bursts + 100; b++) {
		for (int i = 0; i < BURST; i++) {
			uint64_t t0 = bench_tsc_begin(), t1;
			struct rec *r = (struct rec *)(void *)(ring + pos % ring_bytes);

			memset(r->payload, i, rec_bytes - sizeof(*r));
			if (cas) {
				struct llist_node *first = llist_first_relaxed(&head);

				/* Release CAS (llist.h): publishes the record. */
				while (!llist_try_add(&r->node, &head, &first))
					;
				if (pf) {
					const char *nx = ring + (pos + pf_dist) % ring_bytes;

					__asm__ volatile("prefetchw %0" ::"m"(*nx));
				}
			} else {
				/* Release: publishes the record's stores. */
				atomic_store_explicit(&published, pos, memory_order_release);
			}
			t1 = bench_tsc_end();
			pos += rec_bytes;
			if (pos % ring_bytes + rec_bytes > ring_bytes)
				pos += ring_bytes - pos % ring_bytes; /* no record across the end */
			/* Release: the consumer reads the records before pos. */
			atomic_store_explicit(&written, pos, memory_order_release);
			if (b >= 100) {
				uint64_t ns = (uint64_t)((double)(t1 - t0) * npt);

				hist[ns < HIST ? ns : HIST - 1]++;
				n++;
			}
		}
		for (uint64_t end = __rdtsc() + gap; __rdtsc() < end;)
			;
		if (cas) /* the consumer's take, in effect: the list is not kept */
			init_llist_head(&head);
	}
	if (with_consumer) {
		atomic_store(&stop, 1);
		pthread_join(th, NULL);
	}
	c = 0;
	for (int h = 0; h < HIST; h++) {
		c += hist[h];
		if (p50 < 0 && c * 2 >= n)
			p50 = h;
		if (p90 < 0 && c * 10 >= n * 9)
			p90 = h;
		if (p99 < 0 && c * 100 >= n * 99)
			p99 = h;
	}
	printf("| %s | %zu | %zu | %u | %s | %d | %d | %d |\n", cas ? (pf ? "cas+pfw" : "cas") : "store", ring_bytes,
	       rec_bytes, gap_us, with_consumer ? "yes" : "no", p50, p90, p99);
}

int main(int argc, char **argv)
{
	double npt;
	int o;

	while ((o = getopt(argc, argv, "r:b:g:n:cd:")) != -1) {
		if (o == 'r')
			ring_bytes = strtoul(optarg, NULL, 0);
		else if (o == 'b')
			rec_bytes = strtoul(optarg, NULL, 0);
		else if (o == 'g')
			gap_us = (unsigned)strtoul(optarg, NULL, 0);
		else if (o == 'n')
			bursts = (unsigned)strtoul(optarg, NULL, 0);
		else if (o == 'c')
			with_consumer = 1;
		else if (o == 'd')
			pf_dist = strtoul(optarg, NULL, 0);
		else {
			fprintf(stderr, "usage: %s [-r RING_BYTES] [-b REC_BYTES] [-g GAP_US] "
					"[-n BURSTS] [-c] [-d AHEAD]\n",
				argv[0]);
			return 2;
		}
	}
	if (rec_bytes < sizeof(struct rec) + 8 || rec_bytes % 8 != 0 || ring_bytes < rec_bytes ||
	    ring_bytes % 64 != 0) {
		fprintf(stderr, "publish_cost: REC_BYTES: a multiple of 8 from 16; RING_BYTES: a "
				"multiple of 64, at least REC_BYTES\n");
		return 2;
	}
	ring = mmap(NULL, ring_bytes, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (ring == MAP_FAILED) {
		perror("publish_cost: mmap");
		return 1;
	}
	memset(ring, 0, ring_bytes);
	init_llist_head(&head);
	npt = bench_tsc_ns_per_tick(200);
	printf("| method | ring bytes | record bytes | gap us | consumer | p50 ns | p90 ns | p99 ns "
	       "|\n|---|---|---|---|---|---|---|---|\n");
	run(1, 0, npt);
	run(1, 1, npt);
	run(0, 0, npt);
	return 0;
}
