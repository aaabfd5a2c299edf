/*
 * sync.h - synchronous output, while no flusher runs (internal).
 *
 * DESIGN
 * When the list is closed (before llog_init, after llog_shutdown, in a fork
 * child that has not restarted llog) a LOG call writes its own record to
 * stderr with write(2), rendered by the same renderer as the flusher's
 * (render.h) into a buffer on the caller's stack: the same text, the same
 * truncation marker, the same counters (logged and written, truncated).
 * The caller makes sure the thread's earlier records were written first.
 * Messages are cut at LLOG__SYNC_MSG bytes (the stack of a signal handler
 * may be a 64 KiB alternate stack).
 */
#ifndef LLOG_SYNC_H
#define LLOG_SYNC_H

#include <stdarg.h>
#include <stdint.h>

#include "fmt.h"
#include "queue.h"

#define LLOG__SYNC_MSG 4096u

struct llog__arena;

/* self (llog__sync_record, llog__sync_va): the calling thread's arena,
 * whose owner's copy of the thread name the line shows, or NULL when it
 * has none or is one of llog's own threads; ctx: the owner's context the
 * line shows (its field list, kv.h), or NULL. */

/* A captured record that could not be pushed (the list closed while it
 * was being captured). */
void llog__sync_record(const struct llog__rec *r, const struct llog__arena *self,
		       const void *ctx);
/* A call rendered at once from its arguments. */
/* ks, v: a LOG_*_KV call's fields (NULL: none). */
void llog__sync_va(const struct llog_site *site, const struct llog__plan *plan, va_list ap,
		   const struct llog__kv_site *ks, const union llog__kv_val *v,
		   const struct llog__arena *self, const void *ctx);
/* The notice that thread tid dropped `dropped` records. */
void llog__sync_notice(uint64_t tid, uint32_t dropped);

#endif /* LLOG_SYNC_H */
