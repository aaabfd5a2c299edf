/*
 * ctx.h - a thread's context on its way to the flusher (internal; ctx.c,
 * docs/fields.md 2).
 */
#ifndef LLOG_CTX_H
#define LLOG_CTX_H

struct llog__arena;

/*
 * Pushes the owner's context (a->ctx) as a CTX record in a's stream
 * (producer_thread.c: the reserve and push of a LOG). Under DROP a full ring
 * leaves the owner's ctx_dirty set: llog__log sends it again before the
 * thread's next record. With no flusher (closed list) the flusher's copy
 * is set once the last round has released a's records. Owner only, with
 * the owner's in_log set by the caller (ctx.c holds it across its whole change, so
 * that a signal handler's LOG never reads a->ctx half written). Returns 0.
 */
int llog__ctx_push(struct llog__arena *a);

#endif /* LLOG_CTX_H */
