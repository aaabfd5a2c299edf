/*
 * compiler.h - attributes shared by llog's internal headers (internal).
 *
 * DESIGN
 * The library is built with hidden visibility (-fvisibility=hidden), but
 * that applies to definitions only: a variable that one file defines and
 * another reads through an extern declaration is still reached through the
 * GOT in position-independent code (one more load on every LOG, and a
 * comparison with a GOT slot that the linker cannot relax). Internal
 * variables read on the hot path are therefore declared LLOG__HIDDEN, so
 * every file reaches them directly (the split of core.c into files had
 * added a GOT load and a memory comparison to every LOG without it;
 * callgrind: the same instructions per LOG as before the split with it).
 */
#ifndef LLOG_COMPILER_H
#define LLOG_COMPILER_H

#define LLOG__HIDDEN __attribute__((visibility("hidden")))

/* A prefetch of p's line for writing: PREFETCHW on x86-64 (a CPU without
 * it may fault: only where llog__cfg.prefetchw says so), the compiler's
 * write prefetch elsewhere (llog/detail.h, LLOG__FAST_PREFETCHW). */
#if defined(__x86_64__)
#define LLOG__PREFETCHW(p) __asm__ volatile("prefetchw %0" ::"m"(*(const char *)(p)))
#else
#define LLOG__PREFETCHW(p) __builtin_prefetch((p), 1, 3)
#endif

#endif /* LLOG_COMPILER_H */
