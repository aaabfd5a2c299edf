/*
 * control.h - the control lock and everything it guards (internal).
 *
 * DESIGN
 * One mutex, ctl_lock (control.c), serialises the public calls that change
 * what runs: llog_init, llog_add_sink, llog_shutdown, the restart of llog
 * in a fork child, and the fork handlers. Under it: whether llog runs, the
 * flusher of record and its thread, the sinks added before init, the count
 * of accepted sinks (at most LLOG__MAX_SINKS), the atexit/pthread_atfork
 * registration. It is never taken on the record path, except by a thread
 * that finds the list closed and must wait for a shutdown in progress
 * (llog__control_wait_shutdown), or restarts llog in a fork child.
 *
 * ctl_lock is error-checking: a LOG in a signal handler that interrupted
 * its own thread inside ctl_lock gets EDEADLK instead of waiting for itself,
 * and writes its record synchronously.
 */
#ifndef LLOG_CONTROL_H
#define LLOG_CONTROL_H

/* Returns once no llog_shutdown() is in progress (its final round written
 * and the sinks closed). At once on the thread running it. */
void llog__control_wait_shutdown(void);

/* In a fork child whose inherited flusher waits for its first use: starts
 * it. Returns 0 when a restart was due and llog does not run now (it could
 * not start, or this thread holds the control lock already), else 1. */
int llog__control_resume_after_fork(void);

#endif /* LLOG_CONTROL_H */
