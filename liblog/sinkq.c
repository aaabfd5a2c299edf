/*
 * sinkq.c - a sink queue's ring and the flusher's side of it: an entry
 * copied into the ring as an item (room, BLOCK's wait, drops and their
 * notice), the round's commit marker and the epochs barriers wait for,
 * the drain, the crash drain's put. See sinkq.h for the design (ring,
 * orderings, wake-ups, policies); the worker is in sinkq_worker.c, a
 * queue's life in sinkq_life.c (sinkq_state.h).
 *
 * Everything here runs on the flusher (or, with the flusher stopped, the
 * control thread): the only producer of the ring.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <string.h>

#include "atomic.h"
#include "capture.h"
#include "buf.h"
#include "clock.h"
#include "kv.h"
#include "queue.h"
#include "render.h"
#include "sink.h"
#include "sinkq.h"
#include "sinkq_state.h"
#include "stats.h"

/* How long one wait of the flusher for room lasts before it looks again
 * (a safety net: the worker's wake-up is what ends it). */
#define ROOM_POLL_MS 10u

#define ITEM_ALIGN 8u
#define CAT_MAX 255u

static size_t cat_len(const struct llog_entry *e)
{
	return e->category == NULL ? 0 : e->category_len < CAT_MAX ? e->category_len : CAT_MAX;
}
#define COMMIT_SIZE ((uint64_t)sizeof(struct llog__sinkq_item))

#define NAME_MAX_BYTES 4000u /* file and function names beyond any real one: cut */

static uint64_t align8(uint64_t n)
{
	return (n + ITEM_ALIGN - 1) & ~(uint64_t)(ITEM_ALIGN - 1);
}

static int has_fields(const struct llog_entry *e)
{
	return e->nfields != 0 || e->fields_truncated != 0;
}

/* What an entry's item holds, and where (sinkq_state.h). */
struct layout {
	size_t file_len, func_len;
	size_t msg_len;                  /* copied (0 with a capture), or the
					    bound of the one rendered here */
	const struct llog__capture *cap; /* copied, or NULL */
	size_t fmt_len;                  /* the capture's format */
	int cut;                         /* the message is cut at
					    LLOG__CAPTURE_TEXT_MAX (marked) */
	uint64_t fields_at, cap_at, size;
};

/* Lays out e's item; raw: the sink stores captures (q->raw), so e's
 * capture (capture.h) goes in the item instead of its message. A capture
 * whose format is longer than such a sink keeps (LLOG__CAPTURE_FMT_MAX) is
 * not copied: the flusher rendered the message for it (needs_text), and
 * the item holds it as the sink would store it, cut at
 * LLOG__CAPTURE_TEXT_MAX and marked (file_bin.c's fallback_text: the
 * message rendered within a smaller room is its prefix). */
static void lay_out(const struct llog_entry *e, int raw, struct layout *l)
{
	const struct llog__capture *c = raw ? llog__capture_of(e) : NULL;
	uint64_t n;

	l->file_len = e->file != NULL ? strnlen(e->file, NAME_MAX_BYTES) : 0;
	l->func_len = e->func != NULL ? strnlen(e->func, NAME_MAX_BYTES) : 0;
	l->msg_len = e->msg != NULL ? e->msg_len : 0;
	l->cap = NULL;
	l->fmt_len = 0;
	l->cut = 0;
	if (c != NULL) {
		size_t fl = strnlen(c->fmt, LLOG__CAPTURE_FMT_MAX + 1);

		if (fl <= LLOG__CAPTURE_FMT_MAX) {
			l->cap = c;
			l->fmt_len = fl;
			l->msg_len = 0;
		} else if (l->msg_len > LLOG__CAPTURE_TEXT_MAX) {
			l->cut = 1;
			l->msg_len = LLOG__CAPTURE_TEXT_MAX;
		}
	}
	n = sizeof(struct llog__sinkq_item) + l->file_len + 1 + l->func_len + 1 + l->msg_len +
	    cat_len(e) + 1;
	l->fields_at = align8(n);
	n = l->fields_at + (has_fields(e) ? llog__kv_list_size(e->fields, e->nfields) : 0);
	l->cap_at = align8(n);
	if (l->cap != NULL)
		n = align8(l->cap_at + sizeof(struct llog__sinkq_cap) + l->fmt_len + 1) + l->cap->len;
	l->size = align8(n);
}

/* The whole item of e (a sink that stores no captures). */
static uint64_t item_size(const struct llog_entry *e)
{
	struct layout l;

	lay_out(e, 0, &l);
	return l.size;
}

/* ---- the flusher's side -------------------------------------------------- */

/* The flusher's re-checks before sleeping: the worker moved tail since
 * the flusher found no room; it committed the epoch a drain waits for. */
static int room_ready(struct llog__sinkq *q)
{
	/* Acquire: as every load of tail (sinkq.h). */
	return llog__load_acquire(&q->tail) != q->seen_tail || llog__load_relaxed(&q->dead);
}

static int drained_ready(struct llog__sinkq *q)
{
	return llog__sinkq_reached(q, q->put_epoch);
}

/* Bytes an item of `size` takes at head h: a pad up to the end of the
 * ring when it would cross it, then the item. */
static uint64_t need_at(const struct llog__sinkq *q, uint64_t h, uint64_t size)
{
	uint64_t off = h & (q->cap - 1);

	return off + size > q->cap ? q->cap - off + size : size;
}

/* Whether an item of size (followed by room for its commit marker when
 * reserve) fits now; on success *at is where it starts (after a pad). */
static int fits(struct llog__sinkq *q, uint64_t size, int reserve, uint64_t *need)
{
	uint64_t h = llog__load_relaxed(&q->head);
	/* Acquire: pairs with the worker's release store of tail; the bytes
	 * before it may be written over. */
	uint64_t t = llog__load_acquire(&q->tail);
	uint64_t n = need_at(q, h, size);
	uint64_t total = n + (reserve ? need_at(q, h + n, COMMIT_SIZE) : 0);

	*need = n;
	q->seen_tail = t;
	return h + total - t <= q->cap;
}

/* Whether the queue holds more than half its capacity. Relaxed: a
 * heuristic only (fits() is what decides whether bytes are free). */
static int over_half(const struct llog__sinkq *q)
{
	return llog__load_relaxed(&q->head) - llog__load_relaxed(&q->tail) > q->cap / 2;
}

/* Writes the item's pad (if any) and returns where the item goes. */
static struct llog__sinkq_item *place(struct llog__sinkq *q, uint64_t size, uint64_t need)
{
	uint64_t h = llog__load_relaxed(&q->head);

	if (need != size) {
		struct llog__sinkq_item *pad = llog__sinkq_item_at(q, h);

		pad->size = (uint32_t)(need - size);
		pad->kind = LLOG__SINKQ_ITEM_PAD;
		h += need - size;
	}
	return llog__sinkq_item_at(q, h);
}

/* Publishes the placed item(s). */
static void publish(struct llog__sinkq *q, uint64_t need)
{
	uint64_t h = llog__load_relaxed(&q->head) + need;
	uint64_t used = h - llog__load_relaxed(&q->tail);

	/* Release: the item bytes before the new head (sinkq.h). */
	llog__store_release(&q->head, h);
	if (used > llog__load_relaxed(&q->peak))
		llog__store_relaxed(&q->peak, used);
	/* Past a quarter full the worker should be at it already. */
	if (used > q->cap / 4 && llog__load_relaxed(&q->worker_sleeping))
		llog__sinkq_wake(&q->work_word, &q->worker_sleeping);
}

/* Copies capture c into the item at l->cap_at (sinkq_state.h). */
static void write_cap(struct llog__sinkq_item *it, const struct layout *l)
{
	const struct llog__capture *c = l->cap;
	struct llog__sinkq_cap *k = (struct llog__sinkq_cap *)(void *)((char *)it + l->cap_at);
	char *f = (char *)(k + 1);

	k->site = c->site;
	k->gen = c->gen;
	k->len = (uint32_t)c->len;
	k->room = (uint32_t)c->room;
	k->fmt_len = (uint32_t)l->fmt_len;
	k->truncated = (uint32_t)c->truncated;
	k->plan = *c->plan;
	memcpy(f, c->fmt, l->fmt_len);
	f[l->fmt_len] = '\0';
	if (c->len != 0)
		memcpy((char *)it + align8(l->cap_at + sizeof(*k) + l->fmt_len + 1), c->args, c->len);
	it->cap_off = (uint32_t)l->cap_at;
}

static void write_entry(struct llog__sinkq_item *it, const struct layout *l, uint16_t kind,
			const struct llog_entry *e)
{
	char *p = (char *)(it + 1);
	size_t file_len = l->file_len, func_len = l->func_len, msg_len = l->msg_len;
	char *msg;

	it->size = (uint32_t)l->size;
	it->kind = kind;
	it->level = (uint16_t)e->level;
	it->line = e->line;
	it->file_len = (uint32_t)file_len;
	it->func_len = (uint32_t)func_len;
	it->seq = e->seq;
	it->tid = e->tid;
	it->ts_ns = e->ts_ns;
	it->epoch = 0;
	it->reported = 0;
	it->suppressed = e->suppressed;
	it->backtrace = e->backtrace != 0;
	{
		/* thread_name_len is the name's length (llog_entry) */
		size_t tn = e->thread_name != NULL ? e->thread_name_len : 0;

		tn = tn < sizeof(it->tname) ? tn : sizeof(it->tname) - 1;
		memcpy(it->tname, e->thread_name != NULL ? e->thread_name : "", tn);
		memset(it->tname + tn, 0, sizeof(it->tname) - tn);
	}
	if (file_len != 0)
		memcpy(p, e->file, file_len);
	p[file_len] = '\0';
	p += file_len + 1;
	if (func_len != 0)
		memcpy(p, e->func, func_len);
	p[func_len] = '\0';
	msg = p + func_len + 1;
	if (l->cut) {
		memcpy(msg, e->msg, msg_len - LLOG__MARKER_LEN);
		memcpy(msg + msg_len - LLOG__MARKER_LEN, LLOG__MARKER, LLOG__MARKER_LEN);
	} else if (msg_len != 0) {
		memcpy(msg, e->msg, msg_len);
	}
	it->msg_len = msg_len;
	it->cat_len = (uint32_t)cat_len(e);
	if (it->cat_len != 0)
		memcpy(msg + msg_len, e->category, it->cat_len);
	msg[msg_len + it->cat_len] = '\0';
	it->fields_off = 0;
	if (has_fields(e)) {
		/* Deep copy: the entry's fields point into the flusher's
		 * record and context, gone once it returns. */
		it->fields_off = (uint32_t)l->fields_at;
		llog__kv_list_write(e->fields, e->nfields, e->fields_truncated,
				    (char *)it + it->fields_off);
	}
	it->cap_off = 0;
	if (l->cap != NULL)
		write_cap(it, l); /* the record's bytes: they go with its arena's */
}

/* Queues e if it fits now, as an item of kind (an entry; or the queue's
 * drop notice, reporting `reported` drops); returns whether it did. Only
 * an entry counts in queued. */
static int try_put_laid(struct llog__sinkq *q, const struct llog_entry *e, uint16_t kind,
			uint64_t reported, const struct layout *l)
{
	struct llog__sinkq_item *it;
	uint64_t need;

	if (!fits(q, l->size, 1, &need))
		return 0;
	it = place(q, l->size, need);
	write_entry(it, l, kind, e);
	it->reported = reported;
	publish(q, need);
	q->dirty = 1;
	if (kind == LLOG__SINKQ_ITEM_ENTRY)
		llog__fetch_add_relaxed(&q->queued, 1);
	return 1;
}

static int try_put(struct llog__sinkq *q, const struct llog_entry *e, uint16_t kind,
		   uint64_t reported)
{
	struct layout l;

	lay_out(e, q->raw && kind == LLOG__SINKQ_ITEM_ENTRY, &l);
	return try_put_laid(q, e, kind, reported, &l);
}

/* The final round's bound: one deadline for the whole round, from the
 * first wait of it. */
static int64_t final_deadline(struct llog__sinkq *q)
{
	if (q->final_deadline == 0)
		q->final_deadline = llog__mono_ms() + q->timeout_ms;
	return q->final_deadline;
}

/* The flusher waits for room (or until deadline_ms; < 0: none). Returns
 * whether e fits now. */
static int wait_room(struct llog__sinkq *q, uint64_t size, int64_t deadline_ms)
{
	uint64_t need;

	while (!fits(q, size, 1, &need)) {
		unsigned ms = ROOM_POLL_MS;

		if (llog__load_relaxed(&q->dead) || !q->running)
			return 0;
		/* Relaxed: a hint (the final round follows). Shutdown asked:
		 * BLOCK's wait becomes the final round's bounded one, so a
		 * stuck sink cannot keep the flusher from its final round. */
		if (deadline_ms < 0 && llog__load_relaxed(&llog__q.stop) != 0)
			deadline_ms = final_deadline(q);
		if (deadline_ms >= 0) {
			int64_t left = deadline_ms - llog__mono_ms();

			if (left <= 0)
				return 0;
			if (left < ms)
				ms = (unsigned)left;
		}
		llog__sinkq_wake(&q->work_word, &q->worker_sleeping);
		llog__sinkq_sleep_until(&q->room_word, &q->flusher_sleeping, room_ready, q, ms);
	}
	return 1;
}

/* The most an item of the drop notice takes (put_notice). */
static uint64_t notice_size(void)
{
	struct llog_entry n = {.msg_len = LLOG__NOTICE_BYTES + LLOG__SINKQ_NAME_BYTES,
			       .msg = "", .file = __FILE__, .func = "queue_full"};

	return item_size(&n);
}

/* The notice that precedes the first entry after drops. */
static int put_notice(struct llog__sinkq *q)
{
	char text[LLOG__NOTICE_BYTES + LLOG__SINKQ_NAME_BYTES];
	struct llog__buf b = LLOG__BUF(text, sizeof(text));
	struct llog_entry n = {0};

	llog__buf_puts(&b, "llog: ");
	llog__buf_num(&b, q->drops, 10);
	llog__buf_puts(&b, " records dropped: sink ");
	llog__buf_puts(&b, q->name);
	llog__buf_puts(&b, "'s queue was full");
	n.seq = q->drop_seq;
	n.ts_ns = q->drop_ts;
	n.level = LLOG_WARN;
	n.file = __FILE__;
	n.func = "queue_full";
	n.thread_name = "";
	n.line = __LINE__;
	n.msg = text;
	n.msg_len = b.n;
	if (!try_put(q, &n, LLOG__SINKQ_ITEM_NOTICE, q->drops))
		return 0;
	q->drops = 0;
	/* Relaxed: a hint for the worker (a missed one costs a round). */
	llog__store_relaxed(&q->notice_wanted, 0);
	return 1;
}

int llog__sinkq_retry_notice(struct llog__sinkq *q, int final)
{
	if (q->drops == 0)
		return 0;
	/* The last chance to announce drops: the final round waits for room
	 * as its entries do (nothing after it would put the notice). */
	if (final)
		(void)wait_room(q, notice_size(), final_deadline(q));
	return put_notice(q);
}

static void drop(struct llog__sinkq *q, const struct llog_entry *e)
{
	q->drops++;
	q->drop_seq = e->seq;
	q->drop_ts = e->ts_ns;
	llog__fetch_add_relaxed(&q->dropped, 1);
	llog__count(queue_dropped, 1);
	llog__store_relaxed(&q->notice_wanted, 1);
}

int llog__sinkq_put(struct llog__sinkq *q, const struct llog_entry *e, int final)
{
	int wait = final || q->full == LLOG_QUEUE_BLOCK;
	struct layout l;

	lay_out(e, q->raw, &l);
	if (l.size + COMMIT_SIZE > q->cap) {
		/* Never fits (a ring llog__sinkq_fit could not grow): waiting
		 * for room would wait for ever. */
		drop(q, e);
		return 0;
	}
	if (wait) {
		int64_t deadline = -1;
		uint64_t size = l.size;
		if (final) /* one bound for the whole final round */
			deadline = final_deadline(q);
		if (q->drops != 0)
			(void)wait_room(q, size + notice_size(), deadline);
		else
			(void)wait_room(q, size, deadline);
	}
	if (q->drops != 0 && !wait && over_half(q)) {
		drop(q, e); /* still in the episode of overload (sinkq.h) */
		return 0;
	}
	if ((q->drops == 0 || put_notice(q)) && try_put_laid(q, e, LLOG__SINKQ_ITEM_ENTRY, 0, &l))
		return 1;
	drop(q, e);
	return 0;
}

static void put_marker(struct llog__sinkq *q, uint64_t epoch)
{
	uint64_t need;
	struct llog__sinkq_item *it;

	/* Room for it was kept behind the last entry (sinkq.h). */
	if (!fits(q, COMMIT_SIZE, 0, &need))
		return;
	it = place(q, COMMIT_SIZE, need);
	memset(it, 0, sizeof(*it));
	it->size = (uint32_t)COMMIT_SIZE;
	it->kind = LLOG__SINKQ_ITEM_COMMIT;
	it->epoch = epoch;
	publish(q, need);
	q->put_epoch = epoch;
	q->dirty = 0;
}

uint64_t llog__sinkq_commit(struct llog__sinkq *q, uint64_t epoch)
{
	if (q->dirty) {
		put_marker(q, epoch);
		llog__sinkq_wake(&q->work_word, &q->worker_sleeping);
	}
	return q->put_epoch;
}

int llog__sinkq_reached(struct llog__sinkq *q, uint64_t epoch)
{
	/* seq_cst: the flusher's half of the want/done exchange (reached(),
	 * sinkq_worker.c). */
	return epoch == 0 || llog__load_seq_cst(&q->done_epoch) >= epoch ||
	       llog__load_relaxed(&q->dead) || !q->running;
}

void llog__sinkq_want(struct llog__sinkq *q, uint64_t epoch)
{
	/* seq_cst: see reached() in sinkq_worker.c. */
	llog__store_seq_cst(&q->want_epoch, epoch);
}

void llog__sinkq_count_late(struct llog__sinkq *q)
{
	llog__fetch_add_relaxed(&q->late, 1);
	llog__diag("sink %s did not commit within %u ms; llog_flush went on without it",
		   q->name, q->timeout_ms);
}

int llog__sinkq_drain(struct llog__sinkq *q, int64_t deadline_ms)
{
	uint64_t epoch = q->put_epoch;

	llog__sinkq_want(q, epoch);
	while (!llog__sinkq_reached(q, epoch)) {
		int64_t left = deadline_ms - llog__mono_ms();

		if (left <= 0)
			return 0;
		/* The worker wakes room_word after each run of items (a
		 * commit included). */
		llog__sinkq_sleep_until(&q->room_word, &q->flusher_sleeping, drained_ready, q,
					left < ROOM_POLL_MS ? (unsigned)left : ROOM_POLL_MS);
	}
	return 1;
}

/* ---- the crash drain ----------------------------------------------------- */

long llog__sinkq_crash_put(struct llog__sinkq *q, const struct llog_entry *e)
{
	if (!q->running || llog__load_relaxed(&q->dead)) {
		/* Offered and not queued: dropped, as below. */
		llog__fetch_add_relaxed(&q->dropped, 1);
		llog__count(queue_dropped, 1);
		return -1;
	}
	if (!try_put(q, e, LLOG__SINKQ_ITEM_ENTRY, 0)) {
		/* No room, and no waiting for it here: dropped (counted, as
		 * put's drops; no notice can follow). */
		llog__fetch_add_relaxed(&q->dropped, 1);
		llog__count(queue_dropped, 1);
		return -1;
	}
	return (long)e->msg_len + 1;
}

int llog__sinkq_crash_commit(struct llog__sinkq *q, uint64_t epoch, int64_t deadline_ms)
{
	if (!q->running || llog__load_relaxed(&q->dead))
		return 0;
	(void)llog__sinkq_commit(q, epoch);
	return llog__sinkq_drain(q, deadline_ms);
}
