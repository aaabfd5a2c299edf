/*
 * shards.h - the sharded queue's tests on every machine.
 *
 * llog opens more than one queue head only where the kernel keeps the TSC
 * as its clocksource: the merge needs one clock for every CPU (queue.c
 * take_shards). On other machines (a KVM guest on kvm-clock, say) a test
 * that asked for heads would get one and check nothing of the merge. A test
 * of the sharded queue calls shards_force() first, before it starts any
 * thread or llog, and shards_unforce() after it stopped them: heads are kept whatever the clocksource, and where the
 * kernel does not vouch for the TSC every thread of the test (the flusher
 * included, which inherits the mask) runs on the one CPU the test started
 * on, where one clock orders them all. The cut, the merge and the held
 * records are then checked as on any machine; what such a machine cannot
 * check is the TSC's agreement across CPUs, which is why llog refuses heads
 * there. The test says which way it ran.
 */
#ifndef LLOG_TEST_SHARDS_H
#define LLOG_TEST_SHARDS_H

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#include "clock.h"
#include "queue.h"

static cpu_set_t shards_saved_cpus;
static int shards_pinned;

static inline void shards_force(void)
{
	cpu_set_t one;
	int cpu;

	llog__queue_force_shards = 1;
	if (llog__clock_tsc_synced())
		return;
	if (sched_getaffinity(0, sizeof(shards_saved_cpus), &shards_saved_cpus) != 0) {
		perror("shards.h: sched_getaffinity");
		exit(1);
	}
	cpu = sched_getcpu();
	if (cpu < 0)
		cpu = 0;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if (sched_setaffinity(0, sizeof(one), &one) != 0) {
		perror("shards.h: sched_setaffinity");
		exit(1);
	}
	shards_pinned = 1;
	printf("note: the kernel does not keep the TSC as its clocksource: "
	       "queue heads forced, every thread on CPU %d\n", cpu);
	fflush(stdout);
}

/* Back to the default: heads only with the TSC, the test's CPUs. */
static inline void shards_unforce(void)
{
	llog__queue_force_shards = 0;
	if (shards_pinned && sched_setaffinity(0, sizeof(shards_saved_cpus), &shards_saved_cpus) != 0) {
		perror("shards.h: sched_setaffinity");
		exit(1);
	}
	shards_pinned = 0;
}

#endif /* LLOG_TEST_SHARDS_H */
