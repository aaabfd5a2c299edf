/*
 * producer_thread.c - what a thread says about itself, in its own record
 * stream: its name (llog_set_thread_name, a NAME record) and its context
 * (llog__ctx_push for ctx.c, a CTX record, and its resend after a drop),
 * each taking a LOG's reserve and push under the same in_log guard
 * (producer_parts.h); llog_thread_prepare.
 *
 * Calls producer_cold.c (the full ring) and nothing of producer.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "arena.h"
#include "atomic.h"
#include "ctx.h"
#include "kv.h"
#include "producer_parts.h"
#include "queue.h"
#include "stats.h"

/*
 * Pushes r, a record of a's own stream whose payload (len bytes) is
 * written: its header as a LOG's without a site, carrying the thread's
 * pending drops, which are taken off the count once it is pushed (a
 * handler's drop counted after the read stays for the next record).
 * Returns 0 when pushed, -1 when the list is closed (the caller gives the
 * bytes back). In_log held.
 */
static int push_own(struct llog__arena *a, struct llog__rec *r, uint8_t kind, uint32_t len)
{
	uint32_t carried;

	r->kind = kind;
	r->len = len;
	r->flags = 0;
	r->site = NULL;
	r->arena = a;
	carried = r->dropped = llog__load_relaxed(llog__producer_pending_drops());
	if (llog__push(r) != 0)
		return -1;
	if (carried != 0)
		(void)llog__fetch_add_relaxed(llog__producer_pending_drops(),
					      (uint32_t)0 - carried);
	return 0;
}

int llog_thread_prepare(void)
{
	struct llog__arena *a = llog__arena_get();

	if (a == NULL)
		return -ENOMEM;
	llog__arena_fault_all(a); /* asked for ahead of use: all of it now */
	return 0;
}

/*
 * llog_set_thread_name: the name travels to the flusher as a NAME record
 * in this thread's own stream (arena.h, "Thread name"), so it takes effect
 * exactly between the records logged before and after the call. Under the
 * in_log guard, like a LOG: a handler's record cannot overwrite it.
 */
int llog_set_thread_name(const char *name)
{
	struct llog__own *o = llog__owner();
	char buf[LLOG__NAME_BYTES];
	struct llog__arena *a;
	struct llog__rec *r;
	uint32_t old_reserve;

	if (name == NULL)
		return -EINVAL;
	llog__name_copy(buf, name);
	(void)pthread_setname_np(pthread_self(), buf);
	a = llog__arena_mine();
	/* No arena yet: the first LOG reads the new system name. llog's own
	 * threads never push records. */
	if (a == NULL || llog__arena_thread_is_internal() || o->in_log ||
	    memcmp(a->name, buf, sizeof(buf)) == 0)
		return 0;
	o->in_log = 1;
	llog__producer_signal_fence();
	old_reserve = o->reserve;
	r = llog__producer_reserve(a, LLOG__REC_HDR + LLOG__NAME_BYTES);
	if (r == NULL) {
		(void)llog__fetch_add_relaxed(llog__producer_pending_drops(), 1u);
		llog__count_dropped();
	} else {
		memcpy(llog__rec_payload(r), buf, sizeof(buf));
		if (push_own(a, r, LLOG__K_NAME, LLOG__NAME_BYTES) == 0) {
			memcpy(a->name, buf, sizeof(buf));
		} else {
			llog__arena_unreserve(old_reserve);
			llog__arena_rename_closed(a, buf);
		}
	}
	llog__producer_signal_fence();
	o->in_log = 0;
	return 0;
}

/* Reserves and pushes a CTX record of a's context; 0, 1 (reserve failed:
 * DROP) or -1 (list closed: given back, flusher's copy set). In_log held. */
static int ctx_record(struct llog__arena *a)
{
	struct llog__own *o = llog__owner();
	struct llog__kv_list h;
	struct llog__rec *r;
	uint32_t old_reserve = o->reserve;

	memcpy(&h, a->ctx, sizeof(h));
	if (h.bytes < sizeof(h))
		h.bytes = sizeof(h); /* never set: an empty list */
	r = llog__producer_reserve(a, LLOG__REC_HDR + llog__producer_align8(h.bytes));
	if (r == NULL) {
		o->ctx_dirty = 1;
		return 1;
	}
	memcpy(llog__rec_payload(r), a->ctx, h.bytes);
	if (push_own(a, r, LLOG__K_CTX, h.bytes) == 0) {
		o->ctx_dirty = 0;
		return 0;
	}
	llog__arena_unreserve(old_reserve);
	llog__arena_ctx_closed(a);
	return -1;
}

int __attribute__((noinline, cold)) llog__producer_ctx_resend(struct llog__arena *a)
{
	return ctx_record(a) == 1 ? -1 : 0;
}

/*
 * llog_ctx_set and friends (ctx.c): the context travels as a CTX record in
 * this thread's own stream, as a NAME record does (above), under the same
 * in_log guard.
 */
int llog__ctx_push(struct llog__arena *a)
{
	(void)ctx_record(a); /* in_log held by the caller (ctx.c) */
	return 0;
}
