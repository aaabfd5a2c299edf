/*
 * thread.h - what llog's own threads share: futex waits and wake-ups, and
 * the start-up handshake (internal; thread.c). Leaf helpers: the queue,
 * the sinks' queues and the file sink's writer use them.
 */
#ifndef LLOG_THREAD_H
#define LLOG_THREAD_H

#include <stdint.h>

/* ---- futexes ------------------------------------------------------------ */

/* Sleeps while *addr == val, at most timeout_ms (0: no limit). The check
 * and the sleep are atomic in the kernel, which is what makes the wake-up
 * handshakes free of lost wake-ups. Async-signal-safe. */
void llog__futex_wait(_Atomic uint32_t *addr, uint32_t val, unsigned timeout_ms);
void llog__futex_wake(_Atomic uint32_t *addr, int all);

/* ---- llog's own threads' start-up ------------------------------------ */

/* The flusher and the sinks' threads: a thread that llog starts names
 * itself (name: at most 15 bytes, as the kernel keeps them) and then calls
 * llog__thread_up(word); its starter calls llog__thread_wait_up(word) after
 * pthread_create succeeded, with *word stored 0 before it. So a thread's
 * start-up, the C library's and a sanitizer runtime's included, is over
 * when the call that started it returns: a fork() right after it cannot
 * catch the thread holding a lock of the runtime's allocator that no fork
 * handler takes (ASan's in gcc 12 and clang 14: the child's first thread
 * then waited for it for ever). */
void llog__thread_up(_Atomic uint32_t *word, const char *name);
void llog__thread_wait_up(_Atomic uint32_t *word);

#endif /* LLOG_THREAD_H */
