/*
 * crash.h - the crash handler's interface to the rest of llog (internal).
 * The design is in crash.c's opening comment.
 */
#ifndef LLOG_CRASH_H
#define LLOG_CRASH_H

#include <signal.h>

/* Set by LOG_FATAL just before abort(): the crash handler then only chains. */
extern volatile sig_atomic_t llog__fatal_aborting;

/* Under the control lock. Install returns 0 or -ENOMEM (no handler). */
int llog__crash_install(void);
void llog__crash_uninstall(void);
/* From the fork child handler: forgets a crash report in progress in the
 * parent. */
void llog__crash_after_fork(void);
/* Whether a crash is being reported right now. */
int llog__crash_in_progress(void);
/* Removes the crash signals from *set (the flusher's blocked mask). */
void llog__crash_block_mask(sigset_t *set);

#endif /* LLOG_CRASH_H */
