/*
 * llist.h - lock-less singly linked list (multi-producer stack, take-all
 * consumer), after the Linux kernel's llist, with C11 atomics (internal).
 *
 * DESIGN
 * Producers push nodes with a CAS on the head; a consumer takes the whole
 * chain with one exchange and reverses it into push order. The list never
 * allocates; the caller owns the memory of each node.
 *
 * Which operations may run at the same time:
 *
 *   operation            concurrent with                      ordering
 *   llist_add            any op                               release CAS
 *   llist_add_batch      any op                               release CAS
 *   llist_try_add        any op (one CAS attempt)             release CAS
 *   llist_del_all        any op                               acquire xchg
 *   llist_del_first      add*, but NOT del_first/del_all      acquire CAS
 *                        (single consumer: ABA otherwise)
 *   llist_reverse_order  - (the caller owns the detached chain) plain
 *   llist_empty          any op; a hint only                   relaxed
 *
 * Why release on the push and acquire on the exchange is enough (C11):
 * a producer writes its node (next pointer and payload), then publishes it
 * with a release CAS on head. Every later successful push is a
 * read-modify-write of head, and an RMW continues the release sequence
 * headed by every earlier release on head (C11 5.1.2.4 "release sequence").
 * The consumer's acquire exchange reads the newest value of head, which is
 * the last element of the release sequences of every producer whose node is
 * in the chain, so the exchange synchronizes with all of them: their node
 * writes happen before the consumer's plain reads of next pointers and
 * payloads. A failed CAS only retries, so relaxed is enough on failure; the
 * initial load of head may be relaxed because the CAS validates it.
 *
 * Ownership: a node belongs to the list from a successful push until a
 * consumer detaches it (del_all / del_first); then it belongs to that
 * consumer. A producer must not touch a node after pushing it.
 *
 * The head may hold a caller-defined sentinel that is not a node (llog uses
 * LLOG__CLOSED, queue.h, to refuse pushes while no flusher runs):
 * llist_try_add pushes only when the head still equals what the caller last
 * saw, so the caller can inspect that value between attempts. del_all/del_first/reverse must not
 * be used while a sentinel is installed.
 */
#ifndef LLOG_LLIST_H
#define LLOG_LLIST_H

#include <stdbool.h>
#include <stddef.h>

#include "atomic.h"

struct llist_node {
	struct llist_node *next;
};

struct llist_head {
	_Atomic(struct llist_node *) first;
};

#define LLIST_HEAD_INIT { NULL }

/* Iterate over a detached chain; the _safe form allows freeing pos. */
#define llist_for_each(pos, node) for ((pos) = (node); (pos); (pos) = (pos)->next)
#define llist_for_each_safe(pos, n, node)                                     \
	for ((pos) = (node); (pos) && ((n) = (pos)->next, 1); (pos) = (n))

/* The struct that contains a node. */
#define llist_entry(ptr, type, member)                                        \
	((type *)(void *)((char *)(ptr) - offsetof(type, member)))

static inline void init_llist_head(struct llist_head *h)
{
	llog__store_relaxed(&h->first, NULL);
}

/* Relaxed: a hint only; the answer may be stale by the time it is used. */
static inline bool llist_empty(struct llist_head *h)
{
	return llog__load_relaxed(&h->first) == NULL;
}

/* Relaxed: the value is only an expectation for llist_try_add, whose CAS
 * validates it. */
static inline struct llist_node *llist_first_relaxed(struct llist_head *h)
{
	return llog__load_relaxed(&h->first);
}

/*
 * One push attempt of the pre-linked chain first..last: succeeds only when
 * head still equals *expected. On failure *expected is updated to the
 * current head. The release on success publishes the chain (see top).
 */
static inline bool llist_try_add_batch(struct llist_node *first, struct llist_node *last,
				       struct llist_head *h, struct llist_node **expected)
{
	last->next = *expected;
	return llog__cas_weak_release(&h->first, expected, first);
}

static inline bool llist_try_add(struct llist_node *node, struct llist_head *h,
				 struct llist_node **expected)
{
	return llist_try_add_batch(node, node, h, expected);
}

/*
 * Pushes the chain first..last (linked through next, last->next ignored).
 * Returns true when the list was empty before the push, so that only that
 * producer needs to wake the consumer. Lock-free; never blocks.
 */
static inline bool llist_add_batch(struct llist_node *first, struct llist_node *last,
				   struct llist_head *h)
{
	struct llist_node *old = llist_first_relaxed(h);

	while (!llist_try_add_batch(first, last, h, &old))
		;
	return old == NULL;
}

static inline bool llist_add(struct llist_node *node, struct llist_head *h)
{
	return llist_add_batch(node, node, h);
}

/*
 * Takes every node, newest first, leaving the list empty (or holding
 * `replacement`, a sentinel). Acquire: pairs with the release CAS of every
 * push in the chain (release-sequence argument at the top).
 */
static inline struct llist_node *llist_del_all_replace(struct llist_head *h,
						       struct llist_node *replacement)
{
	return llog__xchg_acquire(&h->first, replacement);
}

static inline struct llist_node *llist_del_all(struct llist_head *h)
{
	return llist_del_all_replace(h, NULL);
}

/*
 * SINGLE CONSUMER: removes the newest node. Only one thread may call
 * llist_del_first (or del_all) at a time: with two consumers, A could read
 * first=X and next=Y, B pop X and Y and push X again, and A's CAS would then
 * succeed and install the freed Y (ABA). Producers may push concurrently,
 * which is safe because a push never removes a node. Acquire on the load
 * and on the successful CAS: pairs with the release CAS of the push of
 * `first`, so first->next and the payload are visible.
 */
static inline struct llist_node *llist_del_first(struct llist_head *h)
{
	struct llist_node *first = llog__load_acquire(&h->first);

	while (first != NULL && !llog__cas_weak_acquire(&h->first, &first, first->next))
		;
	return first;
}

/*
 * Reverses a detached chain (newest first -> oldest first, i.e. push order).
 * Returns the new first node. Plain accesses: the caller owns the chain.
 */
static inline struct llist_node *llist_reverse_order(struct llist_node *head)
{
	struct llist_node *prev = NULL;

	while (head != NULL) {
		struct llist_node *next = head->next;

		head->next = prev;
		prev = head;
		head = next;
	}
	return prev;
}

#endif /* LLOG_LLIST_H */
