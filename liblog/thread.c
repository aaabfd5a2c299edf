/*
 * thread.c - futexes and the start-up handshake of llog's own threads
 * (thread.h).
 */
#define _GNU_SOURCE
#include <limits.h>
#include <pthread.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "atomic.h"
#include "thread.h"

void llog__futex_wait(_Atomic uint32_t *addr, uint32_t val, unsigned timeout_ms)
{
	struct timespec ts = {(time_t)(timeout_ms / 1000), (long)(timeout_ms % 1000) * 1000000L};

	/* Returns at once (EAGAIN) when *addr != val. */
	syscall(SYS_futex, (uint32_t *)addr, FUTEX_WAIT_PRIVATE, val,
		timeout_ms ? &ts : NULL, NULL, 0);
}

void llog__futex_wake(_Atomic uint32_t *addr, int all)
{
	syscall(SYS_futex, (uint32_t *)addr, FUTEX_WAKE_PRIVATE, all ? INT_MAX : 1, NULL, NULL, 0);
}

void llog__thread_up(_Atomic uint32_t *word, const char *name)
{
	(void)pthread_setname_np(pthread_self(), name);
	/* Release: pairs with the acquire load in llog__thread_wait_up (it
	 * orders nothing the starter reads but the name; the point is that
	 * the thread's start-up is over). */
	llog__store_release(word, 1);
	llog__futex_wake(word, 1);
}

void llog__thread_wait_up(_Atomic uint32_t *word)
{
	/* Acquire: pairs with the release store in llog__thread_up. */
	while (llog__load_acquire(word) == 0)
		llog__futex_wait(word, 0, 0);
}

