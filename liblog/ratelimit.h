/*
 * ratelimit.h - rate-limited call sites: the registry's walks (internal).
 * The decisions are in llog/detail.h (FIRST_N, EVERY_N) and ratelimit.c (the
 * interval kinds); ratelimit.c's opening comment is the design.
 */
#ifndef LLOG_RATELIMIT_H
#define LLOG_RATELIMIT_H

#include "compiler.h"
#include "llog.h"
#include "llog/sinks.h"

#define LLOG__RL_FINAL_MSG "llog: records suppressed by the rate limit since the last record"

/* The final round (flusher only): calls emit once per registered site
 * with calls suppressed and not reported yet, with an entry whose
 * suppressed, level, file, line, func and msg are set (seq, ts_ns and tid
 * are the caller's: 0). Counts them in stats.suppressed. Takes reg_lock. */
void llog__rl_final(void (*emit)(void *ctx, struct llog_entry *e), void *ctx) LLOG__HIDDEN;

/* A shared object's destructor (llog__dso_fini): unlinks the registered
 * sites that lie in the object containing addr. internal: on llog's own
 * thread (then it does not wait for reg_lock). */
void llog__rl_forget_object(const void *addr, int internal) LLOG__HIDDEN;

#endif /* LLOG_RATELIMIT_H */
