/*
 * atomic.h - C11 atomics with the memory order in the name (internal).
 *
 * DESIGN
 * Every atomic access in llog goes through these wrappers (or an _explicit
 * C11 form), so one grep finds every acquire, release and seq_cst point, and
 * no access is seq_cst by accident. Each use site says in a comment which
 * access it pairs with, or why relaxed is enough.
 */
#ifndef LLOG_ATOMIC_H
#define LLOG_ATOMIC_H

#include <stdatomic.h>

#define llog__load_relaxed(p) atomic_load_explicit((p), memory_order_relaxed)
#define llog__load_acquire(p) atomic_load_explicit((p), memory_order_acquire)
#define llog__load_seq_cst(p) atomic_load_explicit((p), memory_order_seq_cst)
#define llog__store_relaxed(p, v) atomic_store_explicit((p), (v), memory_order_relaxed)
#define llog__store_release(p, v) atomic_store_explicit((p), (v), memory_order_release)
#define llog__store_seq_cst(p, v) atomic_store_explicit((p), (v), memory_order_seq_cst)
#define llog__xchg_acquire(p, v) atomic_exchange_explicit((p), (v), memory_order_acquire)
#define llog__xchg_acq_rel(p, v) atomic_exchange_explicit((p), (v), memory_order_acq_rel)
#define llog__xchg_seq_cst(p, v) atomic_exchange_explicit((p), (v), memory_order_seq_cst)
#define llog__fetch_add_relaxed(p, v) atomic_fetch_add_explicit((p), (v), memory_order_relaxed)
#define llog__fetch_add_release(p, v) atomic_fetch_add_explicit((p), (v), memory_order_release)
/* CAS: release on success (publishes what was written before), relaxed on
 * failure (the caller only retries with the value it got back). */
#define llog__cas_weak_release(p, expp, v)                                    \
	atomic_compare_exchange_weak_explicit((p), (expp), (v),               \
					      memory_order_release,           \
					      memory_order_relaxed)
/* CAS: acquire on success (reads what the winner of the slot published). */
#define llog__cas_weak_acquire(p, expp, v)                                    \
	atomic_compare_exchange_weak_explicit((p), (expp), (v),               \
					      memory_order_acquire,           \
					      memory_order_acquire)
#define llog__cas_strong_acq_rel(p, expp, v)                                  \
	atomic_compare_exchange_strong_explicit((p), (expp), (v),             \
						memory_order_acq_rel,         \
						memory_order_acquire)
/* Strong CAS, for a word whose owner changes hands once (no retry loop):
 * release or relaxed on success as named, relaxed on failure. */
#define llog__cas_strong_release(p, expp, v)                                  \
	atomic_compare_exchange_strong_explicit((p), (expp), (v),             \
						memory_order_release,         \
						memory_order_relaxed)
#define llog__cas_strong_relaxed(p, expp, v)                                  \
	atomic_compare_exchange_strong_explicit((p), (expp), (v),             \
						memory_order_relaxed,         \
						memory_order_relaxed)
#define llog__fence_seq_cst() atomic_thread_fence(memory_order_seq_cst)

#endif /* LLOG_ATOMIC_H */
