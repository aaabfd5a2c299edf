/*
 * altstack.h - the alternate signal stacks llog gives threads (internal).
 *
 * DESIGN
 * The crash handler runs with SA_ONSTACK, so it runs even after a stack
 * overflow, on the thread's alternate signal stack. llog gives one to each
 * thread that has none: the llog_init thread (crash.c), the flusher
 * (flusher.c) and every logging thread when its arena is made (arena.c).
 * Each is LLOG__ALTSTACK_BYTES, mmap'd with a PROT_NONE guard page below it:
 * a handler that overflows it faults instead of writing over what lies
 * below. A stack is disabled before it is unmapped, and one that is in use
 * right now (a thread leaving through pthread_exit from a handler) is never
 * unmapped (leaked instead). A thread that already has a stack (its own, a
 * sanitizer's) keeps it.
 */
#ifndef LLOG_ALTSTACK_H
#define LLOG_ALTSTACK_H

#define LLOG__ALTSTACK_BYTES (64u * 1024u)

/* A new alternate stack with a guard page (mmap); NULL on failure. */
void *llog__altstack_new(void);
/* Unmaps a stack made by llog__altstack_new (NULL: nothing). */
void llog__altstack_delete(void *mem);
/* Makes mem the calling thread's alternate stack if it has none; returns 1
 * when it did. */
int llog__altstack_install(void *mem);
/* Disables the calling thread's alternate stack if it is still mem and not
 * in use (before mem is freed). Returns 0 when the thread runs on it right
 * now (then mem must not be freed), else 1. */
int llog__altstack_remove(void *mem);
/* Whether the calling thread has no alternate stack. */
int llog__altstack_missing(void);

#endif /* LLOG_ALTSTACK_H */
