/*
 * crash.h - the crash handler's interface to the rest of llog (internal).
 * The design is in crash.c's opening comment.
 */
#ifndef LLOG_CRASH_H
#define LLOG_CRASH_H

#include <signal.h>
#include <stddef.h>

/* Set by LOG_FATAL just before abort(): the crash handler then only chains. */
extern volatile sig_atomic_t llog__fatal_aborting;

/* llog_config.crash_timeout_ms: 0 is the default, 5000 ms. */
#define LLOG__CRASH_TIMEOUT_MS 5000u
#define LLOG__CRASH_TIMEOUT_MIN 100u
#define LLOG__CRASH_TIMEOUT_MAX 600000u

/* Under the control lock. timeout_ms: llog_config.crash_timeout_ms,
 * validated (0: the default). Install returns 0 or -ENOMEM (no handler). */
int llog__crash_install(unsigned timeout_ms);
void llog__crash_uninstall(void);
/* From the fork child handler: forgets a crash report in progress in the
 * parent. */
void llog__crash_after_fork(void);
/* Whether a crash is being reported right now. */
int llog__crash_in_progress(void);
/* How long a sink's own thread may keep the flusher waiting while a crash
 * is reported (1/5 of llog_config.crash_timeout_ms: 1 s by default): what
 * the flusher's own drain gives a sink thread's queue, and what the file
 * sink's commit waits for its writer thread. */
unsigned llog__crash_sink_wait_ms(void);
/* In a crash report (a signal handler): calls fn(arg) with the crash
 * signals unblocked, so that a fault inside it comes back here instead of
 * ending the process. Returns fn's result, or LLOG__CRASH_FAULTED when fn
 * faulted (SIGSEGV, SIGBUS, SIGILL, SIGFPE, or SIGABRT raised in it): what
 * fn was doing is abandoned. One call at a time per process (the drain
 * runs once). */
#define LLOG__CRASH_FAULTED (-1000L)
long llog__crash_guarded(long (*fn)(void *), void *arg);
/* Writes s (n bytes) to stderr only when stderr takes it at once (poll):
 * a stderr that blocks must not wedge a report. Returns whether it did. */
int llog__crash_stderr(const char *s, size_t n);
/* Removes the crash signals from *set (the flusher's blocked mask). */
void llog__crash_block_mask(sigset_t *set);

#endif /* LLOG_CRASH_H */
