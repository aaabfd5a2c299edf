/*
 * syslog_queue.h - the syslog sink's FIFO of messages (internal, header
 * only: backends/syslog.c is its user, as liblog/llist.h is the list's;
 * syslog_sink.h embeds the struct in the sink; backends/journald.c uses
 * it too, without notices).
 *
 * DESIGN
 * One byte buffer p[0..cap) holds the items, oldest first, each
 *   [u32 word][message bytes]
 * where the word is the message's length, or'ed with LLOG__SQ_NOTICE for a
 * drop notice, whose text is followed by the u64 count it reports (kept,
 * not sent). Cursors, as byte offsets:
 *
 *   0 <= head <= sent <= end <= cap;   count == items in [head, end)
 *   [head, sent)  in flight: sent, waiting for an acknowledgement (RELP
 *                 only; on the other transports sent == head)
 *   send_off      framed bytes of the item at sent already on the wire
 *                 (0 when nothing is partly sent)
 *
 * Items are appended at end and taken at head; an unsent one may also be
 * removed or inserted at or past sent. An append that does not fit at the
 * end first moves the items to offset 0; an empty queue restarts at 0.
 * This file is the mechanism only: the bound, what to drop when it is
 * reached and the accounting are the sink's (syslog.c). Not thread-safe:
 * only the flusher uses a sink's queue.
 */
#ifndef LLOG_SYSLOG_QUEUE_H
#define LLOG_SYSLOG_QUEUE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define LLOG__SQ_NOTICE 0x80000000u /* in an item's word: a drop notice */

struct llog__sq {
	char *p;
	size_t cap;
	size_t head, sent, end;
	uint64_t count;
	size_t send_off;
};

static inline uint32_t llog__sq_word(const struct llog__sq *q, size_t at)
{
	uint32_t w;

	memcpy(&w, q->p + at, sizeof(w));
	return w;
}

static inline int llog__sq_is_notice(const struct llog__sq *q, size_t at)
{
	return (llog__sq_word(q, at) & LLOG__SQ_NOTICE) != 0;
}

/* The message of the item at `at` (what is sent), and its length. */
static inline const char *llog__sq_msg(const struct llog__sq *q, size_t at)
{
	return q->p + at + 4;
}

static inline uint32_t llog__sq_len(const struct llog__sq *q, size_t at)
{
	return llog__sq_word(q, at) & ~LLOG__SQ_NOTICE;
}

/* Bytes the item takes in the queue. */
static inline size_t llog__sq_size(const struct llog__sq *q, size_t at)
{
	return 4 + llog__sq_len(q, at) + (llog__sq_is_notice(q, at) ? sizeof(uint64_t) : 0);
}

/* The count a notice item reports; 0 for a record. */
static inline uint64_t llog__sq_notice_count(const struct llog__sq *q, size_t at)
{
	uint64_t k = 0;

	if (llog__sq_is_notice(q, at))
		memcpy(&k, q->p + at + 4 + llog__sq_len(q, at), sizeof(k));
	return k;
}

/* Bytes queued (the sink keeps them within its bound). */
static inline size_t llog__sq_bytes(const struct llog__sq *q)
{
	return q->end - q->head;
}

/* Records queued, notices not counted. */
static inline uint64_t llog__sq_records(const struct llog__sq *q)
{
	uint64_t n = 0;

	for (size_t at = q->head; at < q->end; at += llog__sq_size(q, at))
		n += !llog__sq_is_notice(q, at);
	return n;
}

/* Removes the head item (sent, or given up). */
static inline void llog__sq_pop(struct llog__sq *q)
{
	size_t next = q->head + llog__sq_size(q, q->head);

	if (q->sent == q->head) {
		q->sent = next;
		q->send_off = 0;
	}
	q->head = next;
	if (--q->count == 0)
		q->head = q->end = q->sent = 0;
}

/* Removes the unsent item at `at` (past the head and what is in flight). */
static inline void llog__sq_remove(struct llog__sq *q, size_t at)
{
	size_t size = llog__sq_size(q, at);

	memmove(q->p + at, q->p + at + size, q->end - at - size);
	q->end -= size;
	q->count--;
}

/* Makes `size` bytes free at the end, moving the items to offset 0 when
 * they are not (the caller's bound leaves room for one item past it). */
static inline void llog__sq_make_room(struct llog__sq *q, size_t size)
{
	if (q->end + size <= q->cap)
		return;
	memmove(q->p, q->p + q->head, q->end - q->head);
	q->end -= q->head;
	q->sent -= q->head;
	q->head = 0;
}

/* Appends the message m[0..n). */
static inline void llog__sq_push(struct llog__sq *q, const char *m, size_t n)
{
	uint32_t w = (uint32_t)n;

	llog__sq_make_room(q, 4 + n);
	memcpy(q->p + q->end, &w, 4);
	memcpy(q->p + q->end + 4, m, n);
	q->end += 4 + n;
	q->count++;
}

/* Inserts a notice (text m[0..n), reporting count k) just before the first
 * unsent item: after what is in flight, never inside a partly sent frame
 * (the caller checks send_off == 0). */
static inline void llog__sq_insert_notice(struct llog__sq *q, const char *m, size_t n,
					  uint64_t k)
{
	uint32_t w = (uint32_t)n | LLOG__SQ_NOTICE;
	size_t size = 4 + n + sizeof(k);

	llog__sq_make_room(q, size);
	memmove(q->p + q->sent + size, q->p + q->sent, q->end - q->sent);
	memcpy(q->p + q->sent, &w, 4);
	memcpy(q->p + q->sent + 4, m, n);
	memcpy(q->p + q->sent + 4 + n, &k, sizeof(k));
	q->end += size;
	q->count++;
}

/* The item at sent went out whole and is now in flight. */
static inline void llog__sq_mark_sent(struct llog__sq *q)
{
	q->sent += llog__sq_size(q, q->sent);
	q->send_off = 0;
}

/* The connection is gone: what was in flight or partly sent is unsent
 * again and goes whole on the next one. */
static inline void llog__sq_unsend(struct llog__sq *q)
{
	q->sent = q->head;
	q->send_off = 0;
}

/* Forgets every item (a fork child: they are the parent's to send). */
static inline void llog__sq_clear(struct llog__sq *q)
{
	q->head = q->end = q->sent = q->send_off = 0;
	q->count = 0;
}

#endif /* LLOG_SYSLOG_QUEUE_H */
