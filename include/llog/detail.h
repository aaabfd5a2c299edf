/*
 * llog/detail.h - the machinery behind llog.h's macros. NOT API.
 *
 *   **********************************************************************
 *   *  Nothing in this file is part of llog's API: names, types, layouts *
 *   *  and macros here may change or go away in any release, without    *
 *   *  notice. Do not include this file and do not use what it declares: *
 *   *  include <llog.h> and use what that header documents.              *
 *   **********************************************************************
 *
 * llog.h includes this file at its end. It holds what the public macros
 * expand to and must therefore be visible to the caller's compiler: the
 * call-site descriptor (struct llog_site) and the level check every LOG
 * form makes, the typed calls (argument slots, LLOG__NARGS, LLOG__CALL_*,
 * each call's compile-time signature and the call site's own fast path,
 * inlined at the call: llog__fast_call, and the layout of the library's
 * words it sees, LLOG__FAST_ABI), the mapping of key-value pairs
 * (LLOG__KV_*), the context scope, the
 * inline rate limiter, the shared-object destructor, and the entry points
 * llog__* that the macros call; in C++ (C++11 and later) the templates
 * that stand for C's _Generic there ("C++"). The functions and variables declared
 * here are exported from the library, because the code the macros expand
 * to calls them from the user's objects; they are internal all the same:
 * only llog.h's macros may use them.
 */
#ifndef LLOG_DETAIL_H
#define LLOG_DETAIL_H

#ifndef LLOG_H
#error "llog/detail.h is internal: include <llog.h> instead"
#endif

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*-*********************************************************************
 *  Call sites and the level check
 ***********************************************************************/

/*
 * Call-site descriptor: one static instance per LOG statement. Its fields are
 * private to llog; it is defined here only so the macros can define one.
 */
struct llog_site {
	const char *fmt;
	const char *file;
	const char *func;
	int line;
	int level;                  /* | LLOG__SITE_V2: the fields below exist */
	int state;                  /* parse state, accessed atomically */
	unsigned char plan[36];     /* argument plan, published by state */
	/* Read only when level has LLOG__SITE_V2 (a site made by an older
	 * header has neither field). */
	const char *category;       /* NULL or "": the default category */
	uint64_t lvl_cache;         /* (generation << 8) + 8 * threshold + level, atomic */
};

/* level flag of a site made by this header (category and lvl_cache). */
#define LLOG__SITE_V2 0x100
#define LLOG__GEN_SHIFT 8
/* A site's cached levels beside its generation (liblog/levels.h): the
 * capture threshold thr (the level a call is compared with) and the output
 * level out (thr == out unless the backtrace is on). */
#define LLOG__LVL_CACHE(thr, out) LLOG__CAST(uint64_t, 8 * (thr) + (out))

/* The default level's capture threshold (the default level, or the lower
 * backtrace_level while the backtrace is on: llog.h, "Backtrace"), for
 * objects built with an older llog.h (their LOG reads it); this header's
 * macros read llog__level_gen instead. */
LLOG_EXPORT extern int llog__min_level;
/* The generation of the levels in force << LLOG__GEN_SHIFT (levels.c). */
LLOG_EXPORT extern uint64_t llog__level_gen;
/* Recomputes a site's levels for the generation in force (its capture
 * threshold and output level), caches them in lvl_cache and returns the
 * threshold; called by the macros only, when the cache is
 * stale. Lock-free, no allocation, async-signal-safe. */
LLOG_EXPORT int llog__site_level_refresh(struct llog_site *site);

#if defined(__GNUC__)
#define LLOG__PRINTF(a, b) __attribute__((format(printf, a, b)))
#define LLOG__UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define LLOG__PRINTF(a, b)
#define LLOG__UNLIKELY(x) (x)
#endif

#define LLOG__FMT(fmt, ...) fmt

/* Casts and the null pointer as each language writes them, so that a C++
 * program built with -Wold-style-cast or -Wzero-as-null-pointer-constant
 * gets no warning from this header (tests/CMakeLists.txt,
 * cxx_compile_ok): LLOG__CAST converts a value, LLOG__PUN reinterprets a
 * pointer or an integer's bits as a pointer. */
#if defined(__cplusplus)
#define LLOG__CAST(T, x) (static_cast<T>(x))
#define LLOG__PUN(T, x) (reinterpret_cast<T>(x))
#if __cplusplus >= 201103L
#define LLOG__NULLPTR nullptr
#else
#define LLOG__NULLPTR NULL
#endif
#else
#define LLOG__CAST(T, x) ((T)(x))
#define LLOG__PUN(T, x) ((T)(x))
#define LLOG__NULLPTR ((void *)0)
#endif

/* The category of the call sites of a translation unit: LLOG_CATEGORY
 * as defined before llog.h was first included (llog.h, "Categories and
 * levels"), else the default category. */
#ifdef LLOG_CATEGORY
#define LLOG__CAT_FILE LLOG_CATEGORY
#else
#define LLOG__CAT_FILE LLOG__CAST(const char *, LLOG__NULLPTR)
#endif

/* Whether the site's current level lets a call at `level` through: two
 * relaxed loads, a subtraction and a compare when it does not. u is
 * 8 * thr + out (LLOG__LVL_CACHE, below 64) when the site's cache is of the
 * generation in force, and 256 or more (or wrapped) otherwise
 * (liblog/levels.h): the call is filtered out iff u is in
 * [8 * (level + 1), 63] (thr > level); u < 8 * (level + 1): enabled
 * (thr <= level); any other u: the cache is stale, recomputed for this
 * call. Relaxed: a level change orders nothing; the generation word says
 * which levels apply. */
static inline int llog__site_on(struct llog_site *s, int level)
{
	uint64_t u = __atomic_load_n(&s->lvl_cache, __ATOMIC_RELAXED) -
		     __atomic_load_n(&llog__level_gen, __ATOMIC_RELAXED);

	if (u - LLOG__CAST(uint64_t, 8 * (level + 1)) <= LLOG__CAST(uint64_t, 63 - 8 * (level + 1)))
		return 0;
	return u < LLOG__CAST(uint64_t, 8 * (level + 1)) || level >= llog__site_level_refresh(s);
}

/* Whether a call at `level` through site is made at all (the level check
 * every LOG form shares): compiled in, a record's level, enabled now for
 * the site's category. */
#define LLOG__ON(level, site)                                                 \
	((level) >= LLOG_ACTIVE_LEVEL &&                                      \
	 LLOG__CAST(unsigned, level) <= LLOG__CAST(unsigned, LLOG_FATAL) &&   \
	 llog__site_on((site), LLOG__CAST(int, level)))

/* The global check of older versions, kept for code that used it: the
 * default level only, categories ignored. */
#define LLOG__ENABLED(level)                                                  \
	((level) >= LLOG_ACTIVE_LEVEL &&                                      \
	 LLOG__CAST(unsigned, level) <= LLOG__CAST(unsigned, LLOG_FATAL) &&   \
	 LLOG__CAST(int, level) >= __atomic_load_n(&llog__min_level, __ATOMIC_RELAXED))

/* A call site's initializer: level a constant (a static's initializer
 * must be one), in category cat. */
#define LLOG__SITE_INIT(cat, level, ...)                                      \
	{LLOG__FMT(__VA_ARGS__, 0), __FILE__, __func__, __LINE__,             \
	 (level) | LLOG__SITE_V2, 0, {0}, (cat), 0}

/* The call site, a static of the calling function (its plan is parsed at
 * its first call, its level cached per generation), in category cat. */
#define LLOG__SITE_CAT(cat, level, ...)                                       \
	static struct llog_site llog__site_ = LLOG__SITE_INIT(cat, level, __VA_ARGS__)
#define LLOG__SITE(level, ...) LLOG__SITE_CAT(LLOG__CAT_FILE, level, __VA_ARGS__)

/* LLOG_LOG and LLOG_LOG_CAT: one call at `level` in category cat. */
#define LLOG__LOG(cat, level, ...)                                            \
	do {                                                                  \
		LLOG__SITE_CAT(cat, level, __VA_ARGS__);                      \
		if (LLOG__ON(level, &llog__site_))                            \
			LLOG__CALL(&llog__site_, __VA_ARGS__);                \
	} while (0)

/* LLOG_LOG_AT and LLOG_LOG_AT_CAT: one call at a level known at run time.
 * A site's level is a constant, so the statement has six, one per record
 * level (llog__at_[L].level == L | LLOG__SITE_V2), and a call goes through
 * the one of its level: each is an ordinary site (its own plan, its own
 * cached level for its category, so level changes, categories and the
 * backtrace apply to it as to a LOG_<LEVEL> of that line; no registry
 * holds sites). level is evaluated once, before anything else; a value
 * outside TRACE..FATAL picks no site (the range check comes before the
 * index) and is not logged, as LLOG_LOG's. */
#define LLOG__LOG_AT(cat, level, ...)                                         \
	do {                                                                  \
		static struct llog_site llog__at_[LLOG_FATAL + 1] = {         \
			LLOG__SITE_INIT(cat, LLOG_TRACE, __VA_ARGS__),        \
			LLOG__SITE_INIT(cat, LLOG_DEBUG, __VA_ARGS__),        \
			LLOG__SITE_INIT(cat, LLOG_INFO, __VA_ARGS__),         \
			LLOG__SITE_INIT(cat, LLOG_WARN, __VA_ARGS__),         \
			LLOG__SITE_INIT(cat, LLOG_ERROR, __VA_ARGS__),        \
			LLOG__SITE_INIT(cat, LLOG_FATAL, __VA_ARGS__)};       \
		const int llog__at_lv_ = LLOG__CAST(int, level);              \
		if (LLOG__ON(llog__at_lv_, &llog__at_[llog__at_lv_]))         \
			LLOG__CALL(&llog__at_[llog__at_lv_], __VA_ARGS__);    \
	} while (0)

/*-*********************************************************************
 *  Typed calls
 ***********************************************************************/

/* Captures a record; called by the macros only. */
LLOG_EXPORT void llog__log(struct llog_site *site, const char *fmt, ...)
	LLOG__PRINTF(2, 3);

/*
 * Typed calls. In C (gcc and clang), a call with 0 to 8 arguments after
 * the format does not go through the variadic llog__log: the macro
 * converts each argument, by its type (_Generic), into an 8-byte slot -
 * an integer's value (sign- or zero-extended), a float or double's bits as
 * a double, a pointer - and passes the array to llog__log_t, which copies
 * the slots the format's plan consumes into the record, as llog__log
 * copies them from its va_list (the same bytes; liblog/format/fmt.h). Each
 * argument is evaluated once, into a temporary of its own type (arrays
 * decayed; LLOG__TMP for the one exception).
 * llog__log_t returns nonzero, having done nothing, when it cannot take
 * the call (a format rendered at the call: %ls %lc %m, a positional
 * "%2$.*1$s" or one POSIX leaves undefined; a long double, more
 * conversions than arguments, no flusher running): the macro then calls
 * llog__log with the same temporaries. A call without arguments is one
 * call of llog__log_t0, which never hands back: the library makes the
 * variadic call itself (so does llog__log_t given no slots, v NULL, and
 * returns 0). A positional format's slots are
 * its arguments in index order, which is the order they are passed. A
 * long double argument, or 9 and more, go to llog__log at compile time;
 * so do LLOG_NO_TYPED_CALLS defined before llog.h, C before C11 and C++
 * before C++11. C++ takes the same path with the same slots: templates
 * (llog__slot, "C++" below) instead of _Generic, auto instead of
 * __typeof__ (a temporary of the argument's type, arrays decayed), and
 * any type that is not an integer of at most 64 bits, an enum, bool,
 * float, double, a pointer or nullptr (a long double, a class) goes to
 * llog__log at compile time. The format is still checked by the compiler
 * (llog__log's format attribute, on the fallback call, whose arguments
 * have the types the caller wrote). Two limits of the typed macros, which
 * count and name the arguments one by one: an argument with a comma
 * outside parentheses (a compound literal: (struct pt){1, 2}.x) must be
 * put in parentheses, and an argument is pasted twice (once unevaluated),
 * so a statement expression that defines a label cannot be one; either
 * compiles with LLOG_NO_TYPED_CALLS. A call with fields (LOG_INFO_KV and
 * friends, below) does the same for its message's arguments, through
 * llog__log_kv_t and llog__log_kv. This header's macros reach
 * llog__log_t's path through llog__fast_t (llog__fast_kv_t), with the
 * call's signature: "The call site's own fast path" below; llog__log_t
 * and llog__log_t0 stay for objects built with an older llog.h.
 */
LLOG_EXPORT int llog__log_t(struct llog_site *site, const uint64_t *v, unsigned n);
/* llog__log_t for a call without arguments (the macros' form of it:
 * one call, no result to test). Returns 0: when the typed path cannot
 * take the call, the library makes it through llog__log's path itself,
 * as llog__log_t does for any call without slots (v NULL, the form older
 * macros pass), which then returns 0 too. */
LLOG_EXPORT int llog__log_t0(struct llog_site *site);

#if defined(__GNUC__)
/*-*********************************************************************
 *  The call site's own fast path
 ***********************************************************************/

/*
 * A typed call's signature: what the macro knows of its arguments at
 * compile time, as an integer constant expression. Bits 0-15: each
 * argument's class, 2 bits each, the first lowest (LLOG__SIG_INT: an
 * integer of at most 4 bytes, LLOG__SIG_WIDE: any other integer, a
 * pointer, a float or double, LLOG__SIG_STR: char * or const char *: the
 * codes of the site's record shape, liblog/site.h); bits 16-19: the
 * count; bits 24-31: LLOG__FAST_ABI, the layout below. The site's first
 * call hands it to the library (llog__log_ts), which checks it once
 * against the format's plan: where every argument's class is the plan's
 * (a char * given to %p is a pointer: the plan's verdict wins, and the
 * site stays on llog__log_t's path), the count is the plan's, the site
 * takes the library's fast path (liblog/site.h, "Fixed sites") and the
 * version is the library's own, it marks the site's state word
 * LLOG__SITE_INLINE (bit 30). From then on the call site's own
 * code, llog__fast_t below, specialized at compile time for that
 * signature, writes the record itself: no run-time walk of the shape, no
 * call until the push has been made (a string of up to 15 bytes is
 * measured by one 16-byte load, a longer one by memchr). Everything rare
 * is the library's, unchanged.
 *
 * LLOG__FAST_ABI numbers the layout of what that code touches: the
 * thread's owner words, one cache line of its static TLS (struct
 * llog__fast_own), the record header (struct llog__fast_rec), the queue's
 * first head (struct llog__fast_head), the ring's offset in the arena,
 * the record kind and the string bound; the library checks each against
 * its own types at compile time (liblog/arena.c, liblog/producer.c). A
 * site compiled with another version is never marked: its calls go
 * through llog__log_ts to the library's path, so objects built against
 * an older or newer header still log correctly. A version that changes
 * any of it is a new number, with a mark of its own. The mark is the
 * site's, not the object's: one site may be run by the code of several
 * objects (a static of a C++ inline function or template is one object
 * across shared libraries, -fvisibility-inlines-hidden or not, while each
 * library keeps its own copy of the function), and each tests only its
 * version's mark. Versions 1 and 2 found the owner words on the arena's
 * first line and tested the sign bit: this library never sets it (and
 * refuses their signatures), so their code never runs against it; its
 * own mark is bit 30. (An earlier library may set bit 30 as part of a
 * shape, but an object of this header does not load against one: it
 * needs llog__tls_own, which only a library of version 3 defines; a
 * header newer than its library is not supported. Version 2 issued
 * PREFETCHW, LLOG__FAST_AHEAD, as this one does: only a library that
 * checks the CPU for it marks a site.)
 */
#ifndef LLOG__FAST_ABI
#define LLOG__FAST_ABI 3u
#endif
#define LLOG__SIG_INT 1u
#define LLOG__SIG_STR 2u
#define LLOG__SIG_WIDE 3u
/* (in a signature handed back: the call passed the site path's entry,
 * schedule point FAST_ENTER included, before it gave up) */
#define LLOG__SIG_ENTERED 0x100000u
#define LLOG__SIG_HEAD(n) (LLOG__CAST(unsigned, LLOG__FAST_ABI) << 24 | LLOG__CAST(unsigned, n) << 16)
/* argument i's class in sig */
#define LLOG__SIG_CLS(sig, i) (((sig) >> (2 * (i))) & 3u)
/* Bit 30 of a site's state word: the site's own code of LLOG__FAST_ABI 3
 * may write its records (set by the library only). The sign bit was
 * versions 1 and 2's mark: this library never sets it, so their code
 * never runs against it. */
#define LLOG__SITE_INLINE LLOG__CAST(int, 0x40000000u)
/* The payload bytes the call site's path writes at most: the record bound
 * (llog_config.max_record_bytes) is never below it, so a record that
 * fits is never clipped; one with longer strings is the library's. */
#define LLOG__FAST_STR_BYTES 256u

/* Hands a call back to the library before anything was done: the
 * site's first call (which makes its verdict with sig), or a call the
 * site's own path does not take now (the library's fast path, or
 * log_core; with LLOG__SIG_ENTERED, one whose strings are longer than
 * that path writes). Returns as llog__log_t: nonzero, the macro makes
 * the variadic call (never for n == 0: as llog__log_t0). */
LLOG_EXPORT int llog__log_ts(struct llog_site *site, const uint64_t *v, unsigned n,
			     unsigned sig);
/* The same after the site's path set in_log and gave up (no room below
 * the ring's stop, a context to resend, the list closed): log_core's
 * path, as the library's own fast path leaves a call. */
LLOG_EXPORT int llog__log_tx(struct llog_site *site, const uint64_t *v, unsigned n);

/* The calling thread's arena (liblog/arena.h; the library's own type),
 * as the call sites of headers before LLOG__FAST_ABI 3 load it (their
 * own path never runs against this library, which never marks their
 * sites; the symbol stays for them). */
struct llog__arena;
LLOG_EXPORT extern __thread struct llog__arena *llog__tls_arena
	__attribute__((tls_model("initial-exec")));


/* The queue's first head and the process's go-slow word beside it
 * (liblog/queue.h, struct llog__shard). */
struct __attribute__((may_alias)) llog__fast_head {
	void *first;
	uint32_t slow;
};
/* The owner words as the call site's path sees them (liblog/arena.h,
 * struct llog__own, checked there): positions, the drops to report, the
 * go-slow word (its bytes: in_log, ctx_dirty, ctx_busy, none), the
 * queue's first head and its CLOSED sentinel, the arena. may_alias: the
 * library's type of the same bytes is another one. */
struct __attribute__((may_alias)) llog__fast_own {
	uint32_t reserve, stop, limit, cached_released, wake, size, mask, faulted;
	uint32_t dropped_pending; /* atomic: the owner and its signal handlers */
	uint32_t busy;            /* in_log, ctx_dirty, ctx_busy, none */
	struct llog__fast_head *head;
	const void *closed;
	void *arena;
};
/* The calling thread's owner words: one cache line of its static TLS,
 * which the call site's own path reads and writes (the library reads
 * them as its struct llog__own). Initial-exec: a load at a fixed offset
 * from the thread pointer, also from an object linked against the shared
 * library (the library's TLS is in the static TLS block: it uses the
 * same model), never a __tls_get_addr call. */
LLOG_EXPORT extern __thread struct llog__fast_own llog__tls_own
	__attribute__((tls_model("initial-exec")));
/* The record header (liblog/queue.h, struct llog__rec). */
struct __attribute__((may_alias)) llog__fast_rec {
	void *next;
	const struct llog_site *site;
	void *arena;
	uint64_t ts;
	uint32_t end, len, dropped;
	uint8_t kind, flags;
};
#define LLOG__FAST_REC_HDR 48u

/* Ownership of the ring's lines ahead, asked for early. Every line of
 * the ring was last read by the flusher (a lap ago, or the burst before),
 * so a record's first store to a line needs a read for ownership, and the
 * push's locked CAS waits until every earlier store has left the store
 * buffer: without this, the call waits for that round trip between cores
 * (bench/publish_cost.c; p90 about 110 ns against 40 with it). PREFETCHW
 * takes the line in the Exclusive state without waiting, and it is not
 * ordered with locked instructions, so the CAS does not wait for it
 * either. Each call asks for the lines LLOG__FAST_AHEAD bytes past its
 * record (two for a record with values: one for a static record of 48
 * bytes), which the next bursts' records take. A hint: it changes no byte
 * and never faults, whatever the address; the address is not wrapped, so
 * near the ring's end it names a line of the arena's tail, allocated
 * past the ring for it (liblog/arena.c). The
 * instruction needs CPUID's PRFCHW: on a CPU without it (old Intel ones
 * may fault on it) no site takes this path (config.c). */
#define LLOG__FAST_AHEAD 512u

#define LLOG__FAST_K_LOG 0u
#define LLOG__FAST_REC_FIELDS 0x08u /* the record carries a call block */
#define LLOG__FAST_META_NULL 0x2u   /* a NULL string field (liblog/kv.h) */
/* The ring's offset in the arena (liblog/arena.h: offsetof(struct
 * llog__arena, ring)). */
#define LLOG__FAST_RING_OFF 5824u

/* The rare ends of the site's path, after its push (the library's
 * fast_push_retry and fast_pushed): the CAS failed (first: the head it
 * read, the record's old reserve position), or the record carried drops
 * or the ring is past wake. Each clears in_log; the call is then done
 * (never handed back). */
LLOG_EXPORT void llog__fast_retry(void *arena, void *rec, void *first, uint32_t old);
LLOG_EXPORT void llog__fast_after(void *arena, uint32_t carried, uint32_t reserve);

#ifdef LLOG_TEST_SCHED
/* The schedule points FAST_ENTER, FAST_PUSH, FAST_CLOSED
 * (liblog/sched_points.h), in the test-only library. */
void llog__sched_fast_at(int point);
#define LLOG__FAST_SCHED(p) llog__sched_fast_at(p)
#else
#define LLOG__FAST_SCHED(p) ((void)0)
#endif
#define LLOG__FAST_SP_ENTER 13
#define LLOG__FAST_SP_PUSH 14
#define LLOG__FAST_SP_CLOSED 15

#endif /* __GNUC__ */

#if defined(__GNUC__) && !defined(LLOG_NO_TYPED_CALLS) &&                                       \
	((!defined(__cplusplus) && defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L) ||   \
	 (defined(__cplusplus) && __cplusplus >= 201103L))
#ifdef __cplusplus
/* The slot of x, 0 when x cannot ride in one, and the temporary for
 * argument i (auto: its value once, of its own type, an array decayed, a
 * reference and top-level qualifiers dropped, nothing promoted), as C's
 * below; llog__slot is in "C++" below. */
#define LLOG__SLOT(x) ::llog__slot< ::llog__decay_t<decltype(x)> >::get(x)
#define LLOG__SLOT_OK(x) (::llog__slot< ::llog__decay_t<decltype(x)> >::ok != 0)
#define LLOG__TMP(i, x) auto llog__a##i##_ = (x);
/* Argument x's class in the call's signature ("The call site's own fast
 * path"): llog__cls in "C++" below. */
#define LLOG__CLS(x) (static_cast<unsigned>(::llog__cls< ::llog__decay_t<decltype(x)> >::value))
#else
static inline uint64_t llog__slot_u(uintptr_t v)
{
	return (uint64_t)v;
}
static inline uint64_t llog__slot_d(double v)
{
	uint64_t u;

	__builtin_memcpy(&u, &v, sizeof(u));
	return u;
}
static inline uint64_t llog__slot_ld(long double v)
{
	(void)v; /* never called: such a call goes to llog__log */
	return 0;
}

/* The slot of x (a temporary, LLOG__TMP): a float or double as a double's
 * bits; anything else through uintptr_t, which sign-extends a signed
 * integer, zero-extends an unsigned one (bit-fields of any width and
 * _Bool included) and keeps a pointer (a function pointer too). The inner
 * selection picks the argument (a cast is valid for every scalar type),
 * the outer one the function. */
#define LLOG__SLOT(x)                                                         \
	_Generic((x), float: llog__slot_d, double: llog__slot_d,              \
		 long double: llog__slot_ld, default: llog__slot_u)(          \
		_Generic((x), float: (x), double: (x), long double: (x),      \
			 default: (uintptr_t)(x)))
/* 0 when x cannot ride in a slot (a long double). */
#define LLOG__SLOT_OK(x) _Generic((x), long double: 0, default: 1)
/* x's class in the call's signature ("The call site's own fast path"): a
 * string (char *, const char *), an integer of at most 4 bytes (_Bool,
 * char, short, int, an enum), or 8 bytes (a float or double as a double,
 * any other integer, any other pointer). An integer constant expression. */
#define LLOG__CLS(x)                                                          \
	((unsigned)_Generic((x), char *: LLOG__SIG_STR, const char *: LLOG__SIG_STR, \
			    float: LLOG__SIG_WIDE, double: LLOG__SIG_WIDE,       \
			    default: (sizeof(x) <= 4 ? LLOG__SIG_INT : LLOG__SIG_WIDE)))
/* A temporary for argument i: its value, once, of its type after lvalue
 * conversion (the comma operator decays arrays and drops qualifiers, and
 * promotes nothing, so that the fallback call's format check sees the
 * argument's own type). The operand of __typeof__ is not evaluated,
 * except for a variably modified type (a pointer to a VLA): such an
 * argument is evaluated twice (cast it to void * to log it). */
#define LLOG__TMP(i, x) __typeof__(((void)0, (x))) llog__a##i##_ = (x);
#endif

/* The signature of a call with arguments a1..an (temporaries). */
#define LLOG__SIG_1(a1) (LLOG__SIG_HEAD(1) | LLOG__CLS(a1))
#define LLOG__SIG_2(a1, a2) (LLOG__SIG_HEAD(2) | LLOG__CLS(a1) | LLOG__CLS(a2) << 2)
#define LLOG__SIG_3(a1, a2, a3) (LLOG__SIG_HEAD(3) | LLOG__CLS(a1) | LLOG__CLS(a2) << 2 | LLOG__CLS(a3) << 4)
#define LLOG__SIG_4(a1, a2, a3, a4) (LLOG__SIG_HEAD(4) | LLOG__CLS(a1) | LLOG__CLS(a2) << 2 | LLOG__CLS(a3) << 4 | LLOG__CLS(a4) << 6)
#define LLOG__SIG_5(a1, a2, a3, a4, a5) (LLOG__SIG_HEAD(5) | LLOG__CLS(a1) | LLOG__CLS(a2) << 2 | LLOG__CLS(a3) << 4 | LLOG__CLS(a4) << 6 | LLOG__CLS(a5) << 8)
#define LLOG__SIG_6(a1, a2, a3, a4, a5, a6) (LLOG__SIG_HEAD(6) | LLOG__CLS(a1) | LLOG__CLS(a2) << 2 | LLOG__CLS(a3) << 4 | LLOG__CLS(a4) << 6 | LLOG__CLS(a5) << 8 | LLOG__CLS(a6) << 10)
#define LLOG__SIG_7(a1, a2, a3, a4, a5, a6, a7) (LLOG__SIG_HEAD(7) | LLOG__CLS(a1) | LLOG__CLS(a2) << 2 | LLOG__CLS(a3) << 4 | LLOG__CLS(a4) << 6 | LLOG__CLS(a5) << 8 | LLOG__CLS(a6) << 10 | LLOG__CLS(a7) << 12)
#define LLOG__SIG_8(a1, a2, a3, a4, a5, a6, a7, a8) (LLOG__SIG_HEAD(8) | LLOG__CLS(a1) | LLOG__CLS(a2) << 2 | LLOG__CLS(a3) << 4 | LLOG__CLS(a4) << 6 | LLOG__CLS(a5) << 8 | LLOG__CLS(a6) << 10 | LLOG__CLS(a7) << 12 | LLOG__CLS(a8) << 14)
#define LLOG__NARGS(...) LLOG__NARGS_(__VA_ARGS__, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, 8, 7, 6, 5, 4, 3, 2, 1, 0, ~)
#define LLOG__NARGS_(f, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, _17, _18, _19, _20, _21, _22, _23, _24, _25, _26, _27, _28, _29, _30, _31, _32, _33, _34, _35, _36, _37, _38, _39, _40, _41, _42, _43, _44, _45, _46, _47, _48, _49, _50, _51, _52, _53, _54, _55, _56, _57, _58, _59, _60, _61, _62, _63, _64, _65, _66, _67, _68, _69, _70, _71, _72, _73, _74, _75, _76, _77, _78, _79, _80, _81, _82, _83, _84, _85, _86, _87, _88, _89, _90, _91, _92, _93, _94, _95, _96, _97, _98, _99, _100, _101, _102, _103, _104, _105, _106, _107, _108, _109, _110, _111, _112, _113, _114, _115, _116, _117, _118, _119, _120, _121, _122, _123, _124, _125, _126, _127, N, ...) N
#define LLOG__CALL_CAT_(a, b) a##b
#define LLOG__CALL_CAT(a, b) LLOG__CALL_CAT_(a, b)
#define LLOG__ID(...) __VA_ARGS__
/* T(P..., slots, n) as a typed call when it can be one, else V(P..., fmt,
 * args...): T the typed entry point, V the variadic one, P their leading
 * arguments in parentheses. */
#define LLOG__CALL_GEN(T, V, P, ...)                                          \
	LLOG__CALL_CAT(LLOG__CALL_, LLOG__NARGS(__VA_ARGS__))(T, V, P, __VA_ARGS__)
/* llog__log(site, fmt, args...) and llog__log_kv(site, ks, v, fmt, args...). */
#define LLOG__CALL(site, ...) LLOG__CALL_GEN(llog__fast_t, llog__log, (site), __VA_ARGS__)
#define LLOG__CALL_KV(site, ks, v, ...)                                       \
	LLOG__CALL_GEN(llog__fast_kv_t, llog__log_kv, (site, ks, v), __VA_ARGS__)
#define LLOG__CALL_V(T, V, P, ...) V(LLOG__ID P, __VA_ARGS__)
/* No argument: T##0 (llog__log_t0, llog__log_kv_t0) makes the variadic
 * call itself when it must; V's call, never made, keeps the compiler's
 * check of the format. */
#define LLOG__CALL_0(T, V, P, fmt)                                            \
	do {                                                                  \
		if (0)                                                        \
			V(LLOG__ID P, fmt);                                   \
		(void)LLOG__CALL_CAT(T, 0)(LLOG__ID P);                       \
	} while (0)
#define LLOG__CALL_1(T, V, P, fmt, a1) \
	do { \
		LLOG__TMP(1, a1) \
		const uint64_t llog__v_[1] = {LLOG__SLOT(llog__a1_)}; \
		if (!(LLOG__SLOT_OK(llog__a1_)) || T(LLOG__ID P, llog__v_, 1, LLOG__SIG_1(llog__a1_)) != 0) \
			V(LLOG__ID P, fmt, llog__a1_); \
	} while (0)
#define LLOG__CALL_2(T, V, P, fmt, a1, a2) \
	do { \
		LLOG__TMP(1, a1) LLOG__TMP(2, a2) \
		const uint64_t llog__v_[2] = {LLOG__SLOT(llog__a1_), LLOG__SLOT(llog__a2_)}; \
		if (!(LLOG__SLOT_OK(llog__a1_) && LLOG__SLOT_OK(llog__a2_)) || T(LLOG__ID P, llog__v_, 2, LLOG__SIG_2(llog__a1_, llog__a2_)) != 0) \
			V(LLOG__ID P, fmt, llog__a1_, llog__a2_); \
	} while (0)
#define LLOG__CALL_3(T, V, P, fmt, a1, a2, a3) \
	do { \
		LLOG__TMP(1, a1) LLOG__TMP(2, a2) LLOG__TMP(3, a3) \
		const uint64_t llog__v_[3] = {LLOG__SLOT(llog__a1_), LLOG__SLOT(llog__a2_), LLOG__SLOT(llog__a3_)}; \
		if (!(LLOG__SLOT_OK(llog__a1_) && LLOG__SLOT_OK(llog__a2_) && LLOG__SLOT_OK(llog__a3_)) || T(LLOG__ID P, llog__v_, 3, LLOG__SIG_3(llog__a1_, llog__a2_, llog__a3_)) != 0) \
			V(LLOG__ID P, fmt, llog__a1_, llog__a2_, llog__a3_); \
	} while (0)
#define LLOG__CALL_4(T, V, P, fmt, a1, a2, a3, a4) \
	do { \
		LLOG__TMP(1, a1) LLOG__TMP(2, a2) LLOG__TMP(3, a3) LLOG__TMP(4, a4) \
		const uint64_t llog__v_[4] = {LLOG__SLOT(llog__a1_), LLOG__SLOT(llog__a2_), LLOG__SLOT(llog__a3_), LLOG__SLOT(llog__a4_)}; \
		if (!(LLOG__SLOT_OK(llog__a1_) && LLOG__SLOT_OK(llog__a2_) && LLOG__SLOT_OK(llog__a3_) && LLOG__SLOT_OK(llog__a4_)) || T(LLOG__ID P, llog__v_, 4, LLOG__SIG_4(llog__a1_, llog__a2_, llog__a3_, llog__a4_)) != 0) \
			V(LLOG__ID P, fmt, llog__a1_, llog__a2_, llog__a3_, llog__a4_); \
	} while (0)
#define LLOG__CALL_5(T, V, P, fmt, a1, a2, a3, a4, a5) \
	do { \
		LLOG__TMP(1, a1) LLOG__TMP(2, a2) LLOG__TMP(3, a3) LLOG__TMP(4, a4) LLOG__TMP(5, a5) \
		const uint64_t llog__v_[5] = {LLOG__SLOT(llog__a1_), LLOG__SLOT(llog__a2_), LLOG__SLOT(llog__a3_), LLOG__SLOT(llog__a4_), LLOG__SLOT(llog__a5_)}; \
		if (!(LLOG__SLOT_OK(llog__a1_) && LLOG__SLOT_OK(llog__a2_) && LLOG__SLOT_OK(llog__a3_) && LLOG__SLOT_OK(llog__a4_) && LLOG__SLOT_OK(llog__a5_)) || T(LLOG__ID P, llog__v_, 5, LLOG__SIG_5(llog__a1_, llog__a2_, llog__a3_, llog__a4_, llog__a5_)) != 0) \
			V(LLOG__ID P, fmt, llog__a1_, llog__a2_, llog__a3_, llog__a4_, llog__a5_); \
	} while (0)
#define LLOG__CALL_6(T, V, P, fmt, a1, a2, a3, a4, a5, a6) \
	do { \
		LLOG__TMP(1, a1) LLOG__TMP(2, a2) LLOG__TMP(3, a3) LLOG__TMP(4, a4) LLOG__TMP(5, a5) LLOG__TMP(6, a6) \
		const uint64_t llog__v_[6] = {LLOG__SLOT(llog__a1_), LLOG__SLOT(llog__a2_), LLOG__SLOT(llog__a3_), LLOG__SLOT(llog__a4_), LLOG__SLOT(llog__a5_), LLOG__SLOT(llog__a6_)}; \
		if (!(LLOG__SLOT_OK(llog__a1_) && LLOG__SLOT_OK(llog__a2_) && LLOG__SLOT_OK(llog__a3_) && LLOG__SLOT_OK(llog__a4_) && LLOG__SLOT_OK(llog__a5_) && LLOG__SLOT_OK(llog__a6_)) || T(LLOG__ID P, llog__v_, 6, LLOG__SIG_6(llog__a1_, llog__a2_, llog__a3_, llog__a4_, llog__a5_, llog__a6_)) != 0) \
			V(LLOG__ID P, fmt, llog__a1_, llog__a2_, llog__a3_, llog__a4_, llog__a5_, llog__a6_); \
	} while (0)
#define LLOG__CALL_7(T, V, P, fmt, a1, a2, a3, a4, a5, a6, a7) \
	do { \
		LLOG__TMP(1, a1) LLOG__TMP(2, a2) LLOG__TMP(3, a3) LLOG__TMP(4, a4) LLOG__TMP(5, a5) LLOG__TMP(6, a6) LLOG__TMP(7, a7) \
		const uint64_t llog__v_[7] = {LLOG__SLOT(llog__a1_), LLOG__SLOT(llog__a2_), LLOG__SLOT(llog__a3_), LLOG__SLOT(llog__a4_), LLOG__SLOT(llog__a5_), LLOG__SLOT(llog__a6_), LLOG__SLOT(llog__a7_)}; \
		if (!(LLOG__SLOT_OK(llog__a1_) && LLOG__SLOT_OK(llog__a2_) && LLOG__SLOT_OK(llog__a3_) && LLOG__SLOT_OK(llog__a4_) && LLOG__SLOT_OK(llog__a5_) && LLOG__SLOT_OK(llog__a6_) && LLOG__SLOT_OK(llog__a7_)) || T(LLOG__ID P, llog__v_, 7, LLOG__SIG_7(llog__a1_, llog__a2_, llog__a3_, llog__a4_, llog__a5_, llog__a6_, llog__a7_)) != 0) \
			V(LLOG__ID P, fmt, llog__a1_, llog__a2_, llog__a3_, llog__a4_, llog__a5_, llog__a6_, llog__a7_); \
	} while (0)
#define LLOG__CALL_8(T, V, P, fmt, a1, a2, a3, a4, a5, a6, a7, a8) \
	do { \
		LLOG__TMP(1, a1) LLOG__TMP(2, a2) LLOG__TMP(3, a3) LLOG__TMP(4, a4) LLOG__TMP(5, a5) LLOG__TMP(6, a6) LLOG__TMP(7, a7) LLOG__TMP(8, a8) \
		const uint64_t llog__v_[8] = {LLOG__SLOT(llog__a1_), LLOG__SLOT(llog__a2_), LLOG__SLOT(llog__a3_), LLOG__SLOT(llog__a4_), LLOG__SLOT(llog__a5_), LLOG__SLOT(llog__a6_), LLOG__SLOT(llog__a7_), LLOG__SLOT(llog__a8_)}; \
		if (!(LLOG__SLOT_OK(llog__a1_) && LLOG__SLOT_OK(llog__a2_) && LLOG__SLOT_OK(llog__a3_) && LLOG__SLOT_OK(llog__a4_) && LLOG__SLOT_OK(llog__a5_) && LLOG__SLOT_OK(llog__a6_) && LLOG__SLOT_OK(llog__a7_) && LLOG__SLOT_OK(llog__a8_)) || T(LLOG__ID P, llog__v_, 8, LLOG__SIG_8(llog__a1_, llog__a2_, llog__a3_, llog__a4_, llog__a5_, llog__a6_, llog__a7_, llog__a8_)) != 0) \
			V(LLOG__ID P, fmt, llog__a1_, llog__a2_, llog__a3_, llog__a4_, llog__a5_, llog__a6_, llog__a7_, llog__a8_); \
	} while (0)
#else
#define LLOG__CALL(site, ...) llog__log(site, __VA_ARGS__)
#define LLOG__CALL_KV(site, ks, v, ...) llog__log_kv(site, ks, v, __VA_ARGS__)
#endif

/*-*********************************************************************
 *  Fields: LLOG_LOG_KV and friends
 ***********************************************************************/

union llog__kv_val {
	int64_t i;
	uint64_t u;
	double d;
	const char *s;
};

/* A KV call site's static part: n keys and their types (LLOG_FIELD_*;
 * STR may become NULL at run time), and the keys' lengths (strlen, made
 * at compile time by the macros below).
 * DESIGN: klens came after the first layout, at the end: a site made by
 * an older llog.h has no klens and no LLOG__KV_SITE_KLENS in n, and the
 * library then measures each key (kv.c); n is the count with that flag
 * masked off (LLOG__KV_SITE_N). The flusher reads the lengths instead of
 * a strlen per key per record. */
struct llog__kv_site {
	uint32_t n;
	const char *const *keys;
	const unsigned char *types;
	const unsigned char *klens; /* only with LLOG__KV_SITE_KLENS in n */
};
#define LLOG__KV_SITE_KLENS 0x80000000u
#define LLOG__KV_SITE_N(ks) ((ks)->n & ~LLOG__CAST(uint32_t, LLOG__KV_SITE_KLENS))

/* Captures a record with fields; called by the macros only. */
LLOG_EXPORT void llog__log_kv(struct llog_site *site, const struct llog__kv_site *ks,
			      const union llog__kv_val *v, const char *fmt, ...)
	LLOG__PRINTF(4, 5);
/* llog__log_kv as a typed call (llog__log_t, "Typed calls" above): the
 * message's arguments in n slots. Nonzero: nothing done, call
 * llog__log_kv. */
LLOG_EXPORT int llog__log_kv_t(struct llog_site *site, const struct llog__kv_site *ks,
			       const union llog__kv_val *v, const uint64_t *slots, unsigned n);
/* llog__log_kv_t for a message without arguments, as llog__log_t0
 * (and llog__log_kv_t without slots returns 0 as llog__log_t does). */
LLOG_EXPORT int llog__log_kv_t0(struct llog_site *site, const struct llog__kv_site *ks,
				const union llog__kv_val *v);
/* llog__log_ts and llog__log_tx for a call with fields (llog/detail.h,
 * "The call site's own fast path"). */
LLOG_EXPORT int llog__log_kv_ts(struct llog_site *site, const struct llog__kv_site *ks,
				const union llog__kv_val *kv, const uint64_t *v, unsigned n,
				unsigned sig);
LLOG_EXPORT int llog__log_kv_tx(struct llog_site *site, const struct llog__kv_site *ks,
				const union llog__kv_val *kv, const uint64_t *v, unsigned n);

static inline union llog__kv_val llog__kv_i64(int64_t x)
{
	union llog__kv_val r;

	r.i = x;
	return r;
}
static inline union llog__kv_val llog__kv_u64(uint64_t x)
{
	union llog__kv_val r;

	r.u = x;
	return r;
}
static inline union llog__kv_val llog__kv_f64(double x)
{
	union llog__kv_val r;

	r.d = x;
	return r;
}
static inline union llog__kv_val llog__kv_bool(int x)
{
	union llog__kv_val r;

	r.u = x != 0;
	return r;
}
static inline union llog__kv_val llog__kv_str(const char *x)
{
	union llog__kv_val r;

	r.s = x;
	return r;
}
/* A hex value's union holds its struct llog_hex's address (the compound
 * literal of LLOG_HEX lives until the call's block ends; in C++ a copy in
 * the call's room, LLOG__KV_HEX_ROOM); the call block
 * type LLOG__KV_HEX, which sinks never see (kv.h). */
#define LLOG__KV_HEX 6
static inline union llog__kv_val llog__kv_hex(const struct llog_hex *h)
{
	union llog__kv_val r;

	r.s = LLOG__CAST(const char *, LLOG__CAST(const void *, h));
	return r;
}
static inline int llog__ctx_set_hexv(const char *key, const struct llog_hex *h)
{
	return llog_ctx_set_hex(key, h != LLOG__NULLPTR ? h->ptr : LLOG__NULLPTR,
				h != LLOG__NULLPTR ? h->len : 0);
}

#if defined(__GNUC__)
/* A compiler barrier (a signal handler of this thread sees the arena's
 * bytes as the program order wrote them): atomic_signal_fence(seq_cst). */
#define LLOG__FAST_FENCE() __atomic_signal_fence(__ATOMIC_SEQ_CST)

/* Copies len bytes of p to d; returns the end. 4 to 32 bytes (the
 * common case: a name, an address) as two overlapping loads and stores of
 * 4, 8 or 16 bytes (w, a constant), without a call; else memcpy. (The
 * library's fast path copies with it too.) */
static inline __attribute__((always_inline)) unsigned char *
llog__fast_pair(unsigned char *d, const char *p, uint32_t len, uint32_t w)
{
	unsigned char x[16], y[16];

	__builtin_memcpy(x, p, w);
	__builtin_memcpy(y, p + len - w, w);
	__builtin_memcpy(d, x, w);
	__builtin_memcpy(d + len - w, y, w);
	return d + len;
}
static inline __attribute__((always_inline)) unsigned char *
llog__fast_copy(unsigned char *d, const char *p, uint32_t len)
{
	if (len - 8u <= 8u)
		return llog__fast_pair(d, p, len, 8);
	if (len - 17u <= 15u)
		return llog__fast_pair(d, p, len, 16);
	if (len - 4u <= 3u)
		return llog__fast_pair(d, p, len, 4);
	__builtin_memcpy(d, p, len);
	return d + len;
}

/* Argument i's bytes in the payload at d (fmt_slots.h: an INT's low 4
 * bytes, a WIDE's 8, a STR's u32 length and its bytes); returns the end.
 * i, n and sig are constants: one store or one copy. */
static inline __attribute__((always_inline)) unsigned char *
llog__fast_put(unsigned char *d, unsigned i, unsigned n, unsigned sig, const uint64_t *v,
	       const uint32_t *len)
{
	uint32_t w;

	if (i >= n)
		return d;
	if (LLOG__SIG_CLS(sig, i) == LLOG__SIG_WIDE) {
		__builtin_memcpy(d, &v[i], 8);
		return d + 8;
	}
	if (LLOG__SIG_CLS(sig, i) == LLOG__SIG_INT) {
		w = LLOG__CAST(uint32_t, v[i]);
		__builtin_memcpy(d, &w, 4);
		return d + 4;
	}
	__builtin_memcpy(d, &len[i], 4);
	return llog__fast_copy(d + 4, LLOG__PUN(const char *, LLOG__CAST(uintptr_t, v[i])), len[i]);
}

/* (not x32, __ILP32__: the mirrored layout is LP64's) */
#if defined(__GNUC__) && defined(__x86_64__) && !defined(__ILP32__) && defined(__OPTIMIZE__) &&  \
	!defined(LLOG_NO_FAST_INLINE)
#define LLOG__FAST_INLINE 1

/* A prefetch for writing (LLOG__FAST_AHEAD); the PRFCHW instruction. */
#define LLOG__FAST_PREFETCHW(p) __asm__ volatile("prefetchw %0" ::"m"(*LLOG__PUN(const char *, p)))

/* Whether the string p is at most room bytes long; *len its length then:
 * memchr, called out of line (glibc's vector code), except, without a
 * sanitizer, for a string of at most 15 bytes whose first 16 bytes are
 * on p's page: one 16-byte load from p, a compare with zero and the
 * first set bit of its mask, inline (the bytes after the NUL are read
 * and ignored, as a libc strlen reads them; never a byte of a page the
 * string does not reach). A sanitizer would report those bytes, and code
 * built without SSE2 (-mno-sse2, -mgeneral-regs-only) has no 16-byte
 * compare: memchr alone then. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) || !defined(__SSE2__)
#define LLOG__FAST_SCAN_MEMCHR 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) ||                    \
	__has_feature(memory_sanitizer)
#define LLOG__FAST_SCAN_MEMCHR 1
#endif
#endif
#ifndef LLOG__FAST_SCAN_MEMCHR
typedef char llog__v16 __attribute__((vector_size(16)));
typedef char llog__u16 __attribute__((vector_size(16), may_alias, aligned(1)));
#endif
static inline __attribute__((always_inline)) int llog__fast_strlen(const char *p, uint32_t room,
								   uint32_t *len)
{
	const char *e;

#ifndef LLOG__FAST_SCAN_MEMCHR
	const llog__v16 zero = {0};
	unsigned m;

	if ((LLOG__PUN(uintptr_t, p) & 4095u) <= 4096u - 16u) {
		m = LLOG__CAST(unsigned,
			       __builtin_ia32_pmovmskb128(LLOG__CAST(
				       llog__v16, *LLOG__CAST(const llog__u16 *, LLOG__CAST(const void *, p)) ==
							  zero)));
		if (m != 0) {
			*len = LLOG__CAST(uint32_t, __builtin_ctz(m));
			return *len <= room;
		}
	}
#endif
	e = LLOG__CAST(const char *, __builtin_memchr(p, 0, LLOG__CAST(size_t, room) + 1));
	if (e == LLOG__NULLPTR)
		return 0;
	*len = LLOG__CAST(uint32_t, e - p);
	return 1;
}

/* Whether argument i is not a NULL string (a NULL one is the library's:
 * "(null)"). */
static inline __attribute__((always_inline)) int llog__fast_nonnull(unsigned i, unsigned n,
								    unsigned sig,
								    const uint64_t *v)
{
	return i >= n || LLOG__SIG_CLS(sig, i) != LLOG__SIG_STR || v[i] != 0;
}

/* String i's length into len[i], taken from *room (the payload bytes
 * left under LLOG__FAST_STR_BYTES); 0 when it is longer than what is
 * left (the library's call). */
static inline __attribute__((always_inline)) int
llog__fast_measure(unsigned i, unsigned n, unsigned sig, const uint64_t *v, uint32_t *len,
		   uint32_t *room)
{
	if (i >= n || LLOG__SIG_CLS(sig, i) != LLOG__SIG_STR)
		return 1;
	if (!llog__fast_strlen(LLOG__PUN(const char *, LLOG__CAST(uintptr_t, v[i])), *room, &len[i]))
		return 0;
	*room -= len[i];
	return 1;
}

/* A call with fields: field i's bytes in the call block (liblog/kv.h):
 * its 8-byte value, or a string's u32 length, u32 meta (NULL: no bytes),
 * its bytes, a NUL and the padding to 8 (not written, as the library's).
 * llog__fast_kv_typed: 0 when the field is the library's (a type not a
 * constant, a hex value). Measuring: *kb, the block's bytes so far, grows
 * by the field's; 0 when a string is longer than the path writes. */
static inline __attribute__((always_inline)) int llog__fast_kv_typed(unsigned i,
								     const struct llog__kv_site *ks)
{
	return i >= LLOG__KV_SITE_N(ks) ||
	       (__builtin_constant_p(ks->types[i]) && ks->types[i] != LLOG__KV_HEX);
}
static inline __attribute__((always_inline)) int
llog__fast_kv_measure(unsigned i, const struct llog__kv_site *ks, const union llog__kv_val *kv,
		      uint32_t *klen, uint32_t *kb)
{
	if (i >= LLOG__KV_SITE_N(ks))
		return 1;
	if (ks->types[i] != LLOG_FIELD_STR || kv[i].s == LLOG__NULLPTR) {
		*kb += 8;
		return 1;
	}
	if (!llog__fast_strlen(kv[i].s, LLOG__FAST_STR_BYTES, &klen[i]))
		return 0;
	*kb += 8 + ((klen[i] + 8u) & ~7u);
	return 1;
}
static inline __attribute__((always_inline)) unsigned char *
llog__fast_kv_put(unsigned char *d, unsigned i, const struct llog__kv_site *ks,
		  const union llog__kv_val *kv, const uint32_t *klen)
{
	uint32_t meta[2] = {0, 0};

	if (i >= LLOG__KV_SITE_N(ks))
		return d;
	if (ks->types[i] != LLOG_FIELD_STR) {
		__builtin_memcpy(d, &kv[i], 8);
		return d + 8;
	}
	if (kv[i].s == LLOG__NULLPTR) {
		meta[1] = LLOG__FAST_META_NULL;
		__builtin_memcpy(d, meta, 8);
		return d + 8;
	}
	meta[0] = klen[i];
	__builtin_memcpy(d, meta, 8);
	llog__fast_copy(d + 8, kv[i].s, klen[i])[0] = '\0';
	return d + 8 + ((klen[i] + 8u) & ~7u);
}

/*
 * The call site's path (see above): site's call with n slots v of
 * signature sig and, with ks not NULL, the fields kv of the call site
 * ks (static: its count and types are constants here, or the call is the
 * library's); everything but the values is a constant. Its steps are the
 * library's fast path's (liblog/producer.c, "The fast path") for one
 * shape: the strings measured (before anything is taken: a NULL or long
 * one is the library's; a NULL field is written); the site's state word
 * (its bit 30, one relaxed load: the word carries the whole verdict,
 * no plan is read); the thread's go-slow word and the process's (the
 * backtrace on, a clock other than the plain TSC, several heads); in_log
 * set; the record's exact size taken below stop in one compare,
 * ctx_dirty read again; the header, the payload and the call block; the
 * head peeked (CLOSED: given back, the library's call); the drops it
 * carries (read after the payload, as log_core); the TSC; the push (a
 * release CAS); the fill check (one compare with wake); in_log cleared.
 * Records are byte for byte log_core's. Returns as llog__log_t.
 */
#define LLOG__FAST_MISS(site, ks, kv, v, n, sig)                              \
	((ks) != LLOG__NULLPTR ? llog__log_kv_ts((site), (ks), (kv), (v), (n), (sig))    \
		   : llog__log_ts((site), (v), (n), (sig)))
#define LLOG__FAST_GIVE_UP(site, ks, kv, v, n)                                \
	((ks) != LLOG__NULLPTR ? llog__log_kv_tx((site), (ks), (kv), (v), (n))           \
		   : llog__log_tx((site), (v), (n)))
static inline __attribute__((always_inline)) int
llog__fast_call(struct llog_site *site, const struct llog__kv_site *ks,
		const union llog__kv_val *kv, const uint64_t *v, unsigned n, unsigned sig)
{
	uint32_t len[8] = {0}, klen[8] = {0}, room, used = 0, kb = 0, bytes, old, end, carried;
	struct llog__fast_own *a;
	unsigned char *arena;
	struct llog__fast_head *h;
	struct llog__fast_rec *r;
	unsigned char *d;
	void *first;
	unsigned i;
	int s;

	if (ks != LLOG__NULLPTR &&
	    (!__builtin_constant_p(LLOG__KV_SITE_N(ks)) || LLOG__KV_SITE_N(ks) > 8))
		return LLOG__FAST_MISS(site, ks, kv, v, n, sig);
	for (i = 0; i < n; i++)
		used += LLOG__SIG_CLS(sig, i) == LLOG__SIG_WIDE ? 8u : 4u;
	room = LLOG__FAST_STR_BYTES - used;
	/* Relaxed: the verdict is in the word itself; nothing it publishes
	 * (the plan) is read here. */
	s = __atomic_load_n(&site->state, __ATOMIC_RELAXED);
	if (LLOG__UNLIKELY(!(s & LLOG__SITE_INLINE)) ||
	    !(llog__fast_nonnull(0, n, sig, v) && llog__fast_nonnull(1, n, sig, v) &&
	      llog__fast_nonnull(2, n, sig, v) && llog__fast_nonnull(3, n, sig, v) &&
	      llog__fast_nonnull(4, n, sig, v) && llog__fast_nonnull(5, n, sig, v) &&
	      llog__fast_nonnull(6, n, sig, v) && llog__fast_nonnull(7, n, sig, v)))
		return LLOG__FAST_MISS(site, ks, kv, v, n, sig);
	if (ks != LLOG__NULLPTR && !(llog__fast_kv_typed(0, ks) && llog__fast_kv_typed(1, ks) &&
			 llog__fast_kv_typed(2, ks) && llog__fast_kv_typed(3, ks) &&
			 llog__fast_kv_typed(4, ks) && llog__fast_kv_typed(5, ks) &&
			 llog__fast_kv_typed(6, ks) && llog__fast_kv_typed(7, ks)))
		return LLOG__FAST_MISS(site, ks, kv, v, n, sig);
	a = LLOG__CAST(struct llog__fast_own *, LLOG__CAST(void *, &llog__tls_own));
	/* The go-slow word: a plain read, written only by this thread and
	 * its signal handlers (liblog/arena.h, "The go-slow word"). */
	if (LLOG__UNLIKELY(a->busy != 0))
		return LLOG__FAST_MISS(site, ks, kv, v, n, sig);
	h = a->head;
	/* Relaxed: changes only while no flusher runs (liblog/queue.h,
	 * llog__queue_slow). */
	if (LLOG__UNLIKELY(__atomic_load_n(&h->slow, __ATOMIC_RELAXED) != 0))
		return LLOG__FAST_MISS(site, ks, kv, v, n, sig);
	LLOG__FAST_SCHED(LLOG__FAST_SP_ENTER);
	LLOG__PUN(volatile uint8_t *, &a->busy)[0] = 1; /* in_log */
	/* A signal handler that sees in_log == 0 finds the arena
	 * consistent: no arena access moves across the in_log stores. */
	LLOG__FAST_FENCE();
	/* The strings, read under in_log as the library reads them (a
	 * handler that runs inside, a fault on a string's page, finds a LOG
	 * in progress); longer than this path writes: the library's fast
	 * path, past its entry (LLOG__SIG_ENTERED). */
	if (!(llog__fast_measure(0, n, sig, v, len, &room) &&
	      llog__fast_measure(1, n, sig, v, len, &room) &&
	      llog__fast_measure(2, n, sig, v, len, &room) &&
	      llog__fast_measure(3, n, sig, v, len, &room) &&
	      llog__fast_measure(4, n, sig, v, len, &room) &&
	      llog__fast_measure(5, n, sig, v, len, &room) &&
	      llog__fast_measure(6, n, sig, v, len, &room) &&
	      llog__fast_measure(7, n, sig, v, len, &room)))
		goto entered;
	used = LLOG__FAST_STR_BYTES - room;
	if (ks != LLOG__NULLPTR) {
		kb = 16; /* the site, the fields stored and left out */
		if (!(llog__fast_kv_measure(0, ks, kv, klen, &kb) &&
		      llog__fast_kv_measure(1, ks, kv, klen, &kb) &&
		      llog__fast_kv_measure(2, ks, kv, klen, &kb) &&
		      llog__fast_kv_measure(3, ks, kv, klen, &kb) &&
		      llog__fast_kv_measure(4, ks, kv, klen, &kb) &&
		      llog__fast_kv_measure(5, ks, kv, klen, &kb) &&
		      llog__fast_kv_measure(6, ks, kv, klen, &kb) &&
		      llog__fast_kv_measure(7, ks, kv, klen, &kb)) ||
		    kb > LLOG__FAST_STR_BYTES)
			goto entered;
	}
	old = a->reserve;
	bytes = LLOG__FAST_REC_HDR + ((used + 7u) & ~7u) + kb;
	/* One compare for the room (stop: min(limit, the lap's end)); then
	 * ctx_dirty again: a handler that ran after the test above may have
	 * had its CTX record dropped. */
	if (LLOG__UNLIKELY(bytes > a->stop - old || LLOG__PUN(const uint8_t *, &a->busy)[1] != 0)) {
		LLOG__FAST_FENCE();
		LLOG__PUN(volatile uint8_t *, &a->busy)[0] = 0;
		return LLOG__FAST_GIVE_UP(site, ks, kv, v, n);
	}
	arena = LLOG__CAST(unsigned char *, a->arena);
	r = LLOG__CAST(struct llog__fast_rec *,
		       LLOG__CAST(void *, arena + LLOG__FAST_RING_OFF + (old & a->mask)));
	LLOG__FAST_PREFETCHW(LLOG__PUN(const char *, r) + LLOG__FAST_AHEAD);
	if (n != 0 || ks != LLOG__NULLPTR)
		LLOG__FAST_PREFETCHW(LLOG__PUN(const char *, r) + LLOG__FAST_AHEAD + 64);
	end = old + bytes;
	a->reserve = end;
	/* end and len in one store where len is a constant 0 (a static
	 * message); kind and flags with the drops below where there is no
	 * call block (kind LOG, no flags): a store fewer each. */
	if (__builtin_constant_p(used) && used == 0) {
		uint64_t el = end;

		__builtin_memcpy(&r->end, &el, 8);
	} else {
		r->end = end;
		r->len = used;
	}
	if (ks != LLOG__NULLPTR) {
		r->kind = LLOG__FAST_K_LOG;
		r->flags = LLOG__FAST_REC_FIELDS;
	}
	r->site = site;
	r->arena = arena;
	d = LLOG__PUN(unsigned char *, r) + LLOG__FAST_REC_HDR;
	d = llog__fast_put(d, 0, n, sig, v, len);
	d = llog__fast_put(d, 1, n, sig, v, len);
	d = llog__fast_put(d, 2, n, sig, v, len);
	d = llog__fast_put(d, 3, n, sig, v, len);
	d = llog__fast_put(d, 4, n, sig, v, len);
	d = llog__fast_put(d, 5, n, sig, v, len);
	d = llog__fast_put(d, 6, n, sig, v, len);
	(void)llog__fast_put(d, 7, n, sig, v, len);
	if (ks != LLOG__NULLPTR) {
		uint32_t cnt[2] = {LLOG__KV_SITE_N(ks), 0};

		d = LLOG__PUN(unsigned char *, r) + LLOG__FAST_REC_HDR + ((used + 7u) & ~7u);
		__builtin_memcpy(d, &ks, 8);
		__builtin_memcpy(d + 8, cnt, 8);
		d = llog__fast_kv_put(d + 16, 0, ks, kv, klen);
		d = llog__fast_kv_put(d, 1, ks, kv, klen);
		d = llog__fast_kv_put(d, 2, ks, kv, klen);
		d = llog__fast_kv_put(d, 3, ks, kv, klen);
		d = llog__fast_kv_put(d, 4, ks, kv, klen);
		d = llog__fast_kv_put(d, 5, ks, kv, klen);
		d = llog__fast_kv_put(d, 6, ks, kv, klen);
		(void)llog__fast_kv_put(d, 7, ks, kv, klen);
	}
	/* The head again from the owner words (a load where a register
	 * kept across the strings' measure would be spilled and reloaded);
	 * relaxed: the owner's own word. */
	h = __atomic_load_n(&a->head, __ATOMIC_RELAXED);
	/* Relaxed: an expectation for the CAS, which validates it. */
	first = __atomic_load_n(&h->first, __ATOMIC_RELAXED);
	if (LLOG__UNLIKELY(first == a->closed)) {
		/* given back: stop is as before (the take stayed below it) */
		a->reserve = old;
		LLOG__FAST_FENCE();
		LLOG__PUN(volatile uint8_t *, &a->busy)[0] = 0;
		LLOG__FAST_SCHED(LLOG__FAST_SP_CLOSED);
		return LLOG__FAST_GIVE_UP(site, ks, kv, v, n);
	}
	LLOG__FAST_SCHED(LLOG__FAST_SP_PUSH);
	/* The drops this record announces, read after its payload, as
	 * log_core reads them. Relaxed: only this thread and its signal
	 * handlers change the count (liblog/arena.h). */
	carried = __atomic_load_n(&a->dropped_pending, __ATOMIC_RELAXED);
	if (ks == LLOG__NULLPTR) {
		/* dropped, kind (LOG), flags (none) and the header's last two
		 * bytes of padding */
		uint64_t dkf = carried | LLOG__CAST(uint64_t, LLOG__FAST_K_LOG) << 32;

		__builtin_memcpy(&r->dropped, &dkf, 8);
	} else {
		r->dropped = carried;
	}
	r->ts = __builtin_ia32_rdtsc();
	r->next = first;
	/* Release CAS (liblog/llist.h): publishes the header and payload;
	 * pairs with the flusher's acquire exchange of the head. Relaxed on
	 * failure: the retry (out of line) only tries again. */
	if (LLOG__UNLIKELY(!__atomic_compare_exchange_n(&h->first, &first, LLOG__CAST(void *, r), 0,
							__ATOMIC_RELEASE, __ATOMIC_RELAXED))) {
		llog__fast_retry(arena, r, first, old);
		return 0;
	}
	/* the ring past half full: end past wake (a plain read, the owner's
	 * word; the distance is below 2^30 either way, liblog/arena.h) */
	if (LLOG__UNLIKELY(carried != 0 || LLOG__CAST(int32_t, a->wake - end) < 0)) {
		llog__fast_after(arena, carried, end);
		return 0;
	}
	LLOG__FAST_FENCE();
	LLOG__PUN(volatile uint8_t *, &a->busy)[0] = 0;
	return 0;
entered:
	LLOG__FAST_FENCE();
	LLOG__PUN(volatile uint8_t *, &a->busy)[0] = 0;
	return LLOG__FAST_MISS(site, ks, kv, v, n, sig | LLOG__SIG_ENTERED);
}
#else
static inline int llog__fast_call(struct llog_site *site, const struct llog__kv_site *ks,
				  const union llog__kv_val *kv, const uint64_t *v, unsigned n,
				  unsigned sig)
{
	if (ks != LLOG__NULLPTR)
		return llog__log_kv_ts(site, ks, kv, v, n, sig);
	return llog__log_ts(site, v, n, sig);
}
#endif

/* The typed calls' entry points as the macros call them: with the call's
 * signature (and, LLOG__CALL_0, without arguments: never handed back, as
 * llog__log_t0 and llog__log_kv_t0). */
static inline __attribute__((always_inline)) int
llog__fast_t(struct llog_site *site, const uint64_t *v, unsigned n, unsigned sig)
{
	return llog__fast_call(site, LLOG__CAST(const struct llog__kv_site *, LLOG__NULLPTR),
			       LLOG__CAST(const union llog__kv_val *, LLOG__NULLPTR), v, n, sig);
}
static inline __attribute__((always_inline)) int llog__fast_t0(struct llog_site *site)
{
	return llog__fast_t(site, LLOG__CAST(const uint64_t *, LLOG__NULLPTR), 0, LLOG__SIG_HEAD(0));
}
static inline __attribute__((always_inline)) int
llog__fast_kv_t(struct llog_site *site, const struct llog__kv_site *ks,
		const union llog__kv_val *kv, const uint64_t *v, unsigned n, unsigned sig)
{
	return llog__fast_call(site, ks, kv, v, n, sig);
}
static inline __attribute__((always_inline)) int
llog__fast_kv_t0(struct llog_site *site, const struct llog__kv_site *ks,
		 const union llog__kv_val *kv)
{
	return llog__fast_call(site, ks, kv, LLOG__CAST(const uint64_t *, LLOG__NULLPTR), 0,
			       LLOG__SIG_HEAD(0));
}
#endif /* __GNUC__ */

/* What a value of a type fields do not take is refused with (C and C++). */
#define LLOG__KV_TYPE_MSG                                                     \
	"llog: a field's value must be an integer, _Bool, float, double, a " \
	"string (char * / const char *) or LLOG_HEX(ptr, len); convert it, "  \
	"e.g. (long)x or a string"

#ifndef __cplusplus
/* The value types a field takes: X(type, v) for each. */
#define LLOG__KV_TYPES(X, v)                                                  \
	X(char, v) X(signed char, v) X(short, v) X(int, v) X(long, v)         \
	X(long long, v) X(unsigned char, v) X(unsigned short, v)              \
	X(unsigned int, v) X(unsigned long, v) X(unsigned long long, v)       \
	X(float, v) X(double, v) X(_Bool, v) X(char *, v) X(const char *, v)  \
	X(struct llog_hex *, v) X(const struct llog_hex *, v)
#define LLOG__KV_OK_(T, v) T : 1,
#define LLOG__KV_SAFE_(T, v) T : (v),
/* 1 when v's type is one of them. */
#define LLOG__KV_OK(v) _Generic((v), LLOG__KV_TYPES(LLOG__KV_OK_, v) default: 0)
/* v when its type is one of them, else 0: a value of another type is
 * refused once, by LLOG__KV_TYPE_CHECK's message, not again by every
 * _Generic it goes through. */
#define LLOG__KV_SAFE(v) _Generic((v), LLOG__KV_TYPES(LLOG__KV_SAFE_, v) default: 0)
/* A declaration (the statement macros). */
#define LLOG__KV_TYPE_CHECK(v) _Static_assert(LLOG__KV_OK(v), LLOG__KV_TYPE_MSG);
/* An expression (llog_ctx_set): the check in a statement expression (at
 * block scope, where clang takes LLOG_HEX's compound literal, which it
 * refuses in a struct of a sizeof, a constant context). */
#define LLOG__KV_TYPE_CHECK_EXPR(v)                                           \
	((void)__extension__({ _Static_assert(LLOG__KV_OK(v), LLOG__KV_TYPE_MSG); 0; }))
/* The value's converter: a type without an entry does not compile. */
#define LLOG__KV_FN(v)                                                        \
	_Generic((v),                                                         \
		char: llog__kv_i64, signed char: llog__kv_i64,                \
		short: llog__kv_i64, int: llog__kv_i64, long: llog__kv_i64,   \
		long long: llog__kv_i64,                                      \
		unsigned char: llog__kv_u64, unsigned short: llog__kv_u64,    \
		unsigned int: llog__kv_u64, unsigned long: llog__kv_u64,      \
		unsigned long long: llog__kv_u64,                             \
		float: llog__kv_f64, double: llog__kv_f64,                    \
		_Bool: llog__kv_bool,                                         \
		char *: llog__kv_str, const char *: llog__kv_str,             \
		struct llog_hex *: llog__kv_hex, const struct llog_hex *: llog__kv_hex)
#define LLOG__KV_TYPE(v)                                                      \
	_Generic((v),                                                         \
		unsigned char: LLOG_FIELD_U64, unsigned short: LLOG_FIELD_U64, \
		unsigned int: LLOG_FIELD_U64, unsigned long: LLOG_FIELD_U64,  \
		unsigned long long: LLOG_FIELD_U64,                           \
		float: LLOG_FIELD_F64, double: LLOG_FIELD_F64,                \
		_Bool: LLOG_FIELD_BOOL,                                       \
		char *: LLOG_FIELD_STR, const char *: LLOG_FIELD_STR,         \
		struct llog_hex *: LLOG__KV_HEX,                              \
		const struct llog_hex *: LLOG__KV_HEX,                        \
		default: LLOG_FIELD_I64)
#endif

/* One pair's pieces (the map applies them to every pair). */
#define LLOG__KV_KEY_MSG "llog: a field key is a string literal of 1 to LLOG_FIELD_KEY_MAX bytes"
#define LLOG__KV_KEY_OK(k) (sizeof("" k "") > 1 && sizeof("" k "") - 1 <= LLOG_FIELD_KEY_MAX)
#define LLOG__KV_KEY(k, v) "" k "",
/* strlen of the literal, folded by gcc and clang (C and C++ constexpr):
 * a key with a NUL inside is as long as its bytes before it. */
#define LLOG__KV_KLEN(k, v) LLOG__CAST(unsigned char, __builtin_strlen("" k "")),
#ifndef __cplusplus
#define LLOG__KV_CHECK(k, v)                                                  \
	_Static_assert(LLOG__KV_KEY_OK(k), LLOG__KV_KEY_MSG);                 \
	LLOG__KV_TYPE_CHECK(v)
#define LLOG__KV_TYPEOF(k, v) (unsigned char)LLOG__KV_TYPE(LLOG__KV_SAFE(v)),
#define LLOG__KV_VAL(k, v) LLOG__KV_FN(LLOG__KV_SAFE(v))(LLOG__KV_SAFE(v)),
/* The site's static data; no room for LLOG_HEX values (C's are compound
 * literals, which live until the block ends). */
#define LLOG__KV_STATIC static
#define LLOG__KV_HEX_ROOM
#else
/* The same in C++, through llog__kv_of ("C++" below): the value's type,
 * decayed, picks its field type (a constant: the site's data is
 * constexpr, constant-initialised) and its converter. An LLOG_HEX value
 * (a struct llog_hex by value) is copied into the call's room
 * llog__kv_hx_ (one entry a pair), which lives until the call returns. */
#define LLOG__KV_OF(v) ::llog__kv_of< ::llog__decay_t<decltype(v)> >
#define LLOG__KV_CHECK(k, v)                                                  \
	static_assert(LLOG__KV_KEY_OK(k), LLOG__KV_KEY_MSG);                  \
	static_assert(LLOG__KV_OF(v)::ok != 0, LLOG__KV_TYPE_MSG);
#define LLOG__KV_TYPEOF(k, v) static_cast<unsigned char>(LLOG__KV_OF(v)::type),
#define LLOG__KV_VAL(k, v) LLOG__KV_OF(v)::val((v), llog__kv_hp_),
#define LLOG__KV_STATIC static constexpr
#define LLOG__KV_HEX_ROOM                                                     \
	struct llog_hex llog__kv_hx_[sizeof(llog__kv_types_)];                \
	struct llog_hex *llog__kv_hp_ = llog__kv_hx_;
#endif

/* The map over the pairs: M(key, value) for each, in order. */
#define LLOG__KV_ID(...) __VA_ARGS__
#define LLOG__KV_CAT_(a, b) a##b
#define LLOG__KV_CAT(a, b) LLOG__KV_CAT_(a, b)
#define LLOG__KV_MAP_(M, ...) LLOG__KV_CAT(LLOG__KV_MAP_, LLOG__KV_NARG(__VA_ARGS__))(M, __VA_ARGS__)
#define LLOG__KV_MAP(M, pairs) LLOG__KV_MAP_(M, LLOG__KV_ID pairs)
#define LLOG__KV_NARG_(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, _17, _18, _19, _20, _21, _22, _23, _24, _25, _26, _27, _28, _29, _30, _31, _32, _33, _34, _35, _36, _37, _38, _39, _40, _41, _42, _43, _44, _45, _46, _47, _48, _49, _50, _51, _52, _53, _54, _55, _56, _57, _58, _59, _60, _61, _62, _63, _64, _65, _66, _67, _68, _69, _70, N, ...) N
#define LLOG__KV_NARG(...) LLOG__KV_NARG_(__VA_ARGS__, 70, 69, 68, 67, 66, 65, 64, 63, 62, 61, 60, 59, 58, 57, 56, 55, 54, 53, 52, 51, 50, 49, 48, 47, 46, 45, 44, 43, 42, 41, 40, 39, 38, 37, 36, 35, 34, 33, 32, 31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define LLOG__KV_MAP_2(M, k, v) M(k, v)
#define LLOG__KV_MAP_4(M, k, v, ...) M(k, v) LLOG__KV_MAP_2(M, __VA_ARGS__)
#define LLOG__KV_MAP_6(M, k, v, ...) M(k, v) LLOG__KV_MAP_4(M, __VA_ARGS__)
#define LLOG__KV_MAP_8(M, k, v, ...) M(k, v) LLOG__KV_MAP_6(M, __VA_ARGS__)
#define LLOG__KV_MAP_10(M, k, v, ...) M(k, v) LLOG__KV_MAP_8(M, __VA_ARGS__)
#define LLOG__KV_MAP_12(M, k, v, ...) M(k, v) LLOG__KV_MAP_10(M, __VA_ARGS__)
#define LLOG__KV_MAP_14(M, k, v, ...) M(k, v) LLOG__KV_MAP_12(M, __VA_ARGS__)
#define LLOG__KV_MAP_16(M, k, v, ...) M(k, v) LLOG__KV_MAP_14(M, __VA_ARGS__)
#define LLOG__KV_MAP_18(M, k, v, ...) M(k, v) LLOG__KV_MAP_16(M, __VA_ARGS__)
#define LLOG__KV_MAP_20(M, k, v, ...) M(k, v) LLOG__KV_MAP_18(M, __VA_ARGS__)
#define LLOG__KV_MAP_22(M, k, v, ...) M(k, v) LLOG__KV_MAP_20(M, __VA_ARGS__)
#define LLOG__KV_MAP_24(M, k, v, ...) M(k, v) LLOG__KV_MAP_22(M, __VA_ARGS__)
#define LLOG__KV_MAP_26(M, k, v, ...) M(k, v) LLOG__KV_MAP_24(M, __VA_ARGS__)
#define LLOG__KV_MAP_28(M, k, v, ...) M(k, v) LLOG__KV_MAP_26(M, __VA_ARGS__)
#define LLOG__KV_MAP_30(M, k, v, ...) M(k, v) LLOG__KV_MAP_28(M, __VA_ARGS__)
#define LLOG__KV_MAP_32(M, k, v, ...) M(k, v) LLOG__KV_MAP_30(M, __VA_ARGS__)
#define LLOG__KV_MAP_34(M, k, v, ...) M(k, v) LLOG__KV_MAP_32(M, __VA_ARGS__)
#define LLOG__KV_MAP_36(M, k, v, ...) M(k, v) LLOG__KV_MAP_34(M, __VA_ARGS__)
#define LLOG__KV_MAP_38(M, k, v, ...) M(k, v) LLOG__KV_MAP_36(M, __VA_ARGS__)
#define LLOG__KV_MAP_40(M, k, v, ...) M(k, v) LLOG__KV_MAP_38(M, __VA_ARGS__)
#define LLOG__KV_MAP_42(M, k, v, ...) M(k, v) LLOG__KV_MAP_40(M, __VA_ARGS__)
#define LLOG__KV_MAP_44(M, k, v, ...) M(k, v) LLOG__KV_MAP_42(M, __VA_ARGS__)
#define LLOG__KV_MAP_46(M, k, v, ...) M(k, v) LLOG__KV_MAP_44(M, __VA_ARGS__)
#define LLOG__KV_MAP_48(M, k, v, ...) M(k, v) LLOG__KV_MAP_46(M, __VA_ARGS__)
#define LLOG__KV_MAP_50(M, k, v, ...) M(k, v) LLOG__KV_MAP_48(M, __VA_ARGS__)
#define LLOG__KV_MAP_52(M, k, v, ...) M(k, v) LLOG__KV_MAP_50(M, __VA_ARGS__)
#define LLOG__KV_MAP_54(M, k, v, ...) M(k, v) LLOG__KV_MAP_52(M, __VA_ARGS__)
#define LLOG__KV_MAP_56(M, k, v, ...) M(k, v) LLOG__KV_MAP_54(M, __VA_ARGS__)
#define LLOG__KV_MAP_58(M, k, v, ...) M(k, v) LLOG__KV_MAP_56(M, __VA_ARGS__)
#define LLOG__KV_MAP_60(M, k, v, ...) M(k, v) LLOG__KV_MAP_58(M, __VA_ARGS__)
#define LLOG__KV_MAP_62(M, k, v, ...) M(k, v) LLOG__KV_MAP_60(M, __VA_ARGS__)
#define LLOG__KV_MAP_64(M, k, v, ...) M(k, v) LLOG__KV_MAP_62(M, __VA_ARGS__)
#define LLOG__KV_MAP_1(M, ...) llog__kv_odd_count_of_keys_and_values
#define LLOG__KV_MAP_3(M, ...) llog__kv_odd_count_of_keys_and_values
#define LLOG__KV_MAP_5(M, ...) llog__kv_odd_count_of_keys_and_values
#define LLOG__KV_MAP_7(M, ...) llog__kv_odd_count_of_keys_and_values
#define LLOG__KV_MAP_9(M, ...) llog__kv_odd_count_of_keys_and_values
#define LLOG__KV_MAP_11(M, ...) llog__kv_odd_count_of_keys_and_values
#define LLOG__KV_MAP_13(M, ...) llog__kv_odd_count_of_keys_and_values
#define LLOG__KV_MAP_15(M, ...) llog__kv_odd_count_of_keys_and_values
#define LLOG__KV_MAP_17(M, ...) llog__kv_odd_count_of_keys_and_values
#define LLOG__KV_MAP_19(M, ...) llog__kv_odd_count_of_keys_and_values
#define LLOG__KV_MAP_21(M, ...) llog__kv_odd_count_of_keys_and_values
#define LLOG__KV_MAP_23(M, ...) llog__kv_odd_count_of_keys_and_values
#define LLOG__KV_MAP_25(M, ...) llog__kv_odd_count_of_keys_and_values
#define LLOG__KV_MAP_27(M, ...) llog__kv_odd_count_of_keys_and_values
#define LLOG__KV_MAP_29(M, ...) llog__kv_odd_count_of_keys_and_values
#define LLOG__KV_MAP_31(M, ...) llog__kv_odd_count_of_keys_and_values
#define LLOG__KV_MAP_33(M, ...) llog__kv_odd_count_of_keys_and_values
#define LLOG__KV_MAP_35(M, ...) llog__kv_odd_count_of_keys_and_values
#define LLOG__KV_MAP_37(M, ...) llog__kv_odd_count_of_keys_and_values
#define LLOG__KV_MAP_39(M, ...) llog__kv_odd_count_of_keys_and_values
#define LLOG__KV_MAP_41(M, ...) llog__kv_odd_count_of_keys_and_values
#define LLOG__KV_MAP_43(M, ...) llog__kv_odd_count_of_keys_and_values
#define LLOG__KV_MAP_45(M, ...) llog__kv_odd_count_of_keys_and_values
#define LLOG__KV_MAP_47(M, ...) llog__kv_odd_count_of_keys_and_values
#define LLOG__KV_MAP_49(M, ...) llog__kv_odd_count_of_keys_and_values
#define LLOG__KV_MAP_51(M, ...) llog__kv_odd_count_of_keys_and_values
#define LLOG__KV_MAP_53(M, ...) llog__kv_odd_count_of_keys_and_values
#define LLOG__KV_MAP_55(M, ...) llog__kv_odd_count_of_keys_and_values
#define LLOG__KV_MAP_57(M, ...) llog__kv_odd_count_of_keys_and_values
#define LLOG__KV_MAP_59(M, ...) llog__kv_odd_count_of_keys_and_values
#define LLOG__KV_MAP_61(M, ...) llog__kv_odd_count_of_keys_and_values
#define LLOG__KV_MAP_63(M, ...) llog__kv_odd_count_of_keys_and_values
#define LLOG__KV_MAP_65(M, ...) llog__kv_more_than_LLOG_FIELDS_MAX_pairs
#define LLOG__KV_MAP_66(M, ...) llog__kv_more_than_LLOG_FIELDS_MAX_pairs
#define LLOG__KV_MAP_67(M, ...) llog__kv_more_than_LLOG_FIELDS_MAX_pairs
#define LLOG__KV_MAP_68(M, ...) llog__kv_more_than_LLOG_FIELDS_MAX_pairs
#define LLOG__KV_MAP_69(M, ...) llog__kv_more_than_LLOG_FIELDS_MAX_pairs
#define LLOG__KV_MAP_70(M, ...) llog__kv_more_than_LLOG_FIELDS_MAX_pairs

#define LLOG__LOG_KV(cat, level, pairs, ...)                                  \
	do {                                                                  \
		LLOG__SITE_CAT(cat, level, __VA_ARGS__);                      \
		LLOG__KV_MAP(LLOG__KV_CHECK, pairs)                           \
		LLOG__KV_STATIC const char *const llog__kv_keys_[] = {        \
			LLOG__KV_MAP(LLOG__KV_KEY, pairs)};                   \
		LLOG__KV_STATIC const unsigned char llog__kv_types_[] = {     \
			LLOG__KV_MAP(LLOG__KV_TYPEOF, pairs)};                \
		LLOG__KV_STATIC const unsigned char llog__kv_klens_[] = {     \
			LLOG__KV_MAP(LLOG__KV_KLEN, pairs)};                  \
		LLOG__KV_STATIC const struct llog__kv_site llog__kv_site_ = { \
			LLOG__CAST(uint32_t, sizeof(llog__kv_types_)) | LLOG__KV_SITE_KLENS, \
			llog__kv_keys_, llog__kv_types_, llog__kv_klens_};    \
		if (LLOG__ON(level, &llog__site_)) {                          \
			LLOG__KV_HEX_ROOM                                     \
			const union llog__kv_val llog__kv_v_[] = {            \
				LLOG__KV_MAP(LLOG__KV_VAL, pairs)};           \
			LLOG__CALL_KV(&llog__site_, &llog__kv_site_, llog__kv_v_, \
				      __VA_ARGS__);                           \
		}                                                             \
	} while (0)

/*-*********************************************************************
 *  Context: LLOG_CTX_SCOPE
 ***********************************************************************/

/* LLOG_CTX_SCOPE's state: the key and what it held before (saved by
 * llog__ctx_scope_enter, put back by llog__ctx_scope_leave). */
struct llog__ctx_scope {
	const char *key;
	int had;        /* the key was set: restore; else remove */
	int type;       /* LLOG_FIELD_* of the old value; a string's flags << 8 */
	union llog__kv_val v;
	char str[LLOG_FIELD_STR_MAX + 1]; /* the old string value */
};
LLOG_EXPORT void llog__ctx_scope_enter(struct llog__ctx_scope *s, const char *key);
LLOG_EXPORT void llog__ctx_scope_leave(struct llog__ctx_scope *s);

#define LLOG__CTX_N2(a, b) a##b
#define LLOG__CTX_N(a, b) LLOG__CTX_N2(a, b)
#ifndef __cplusplus
#define LLOG__CTX_SCOPE(key, value)                                           \
	struct llog__ctx_scope LLOG__CTX_N(llog__ctx_scope_, __LINE__)        \
		__attribute__((cleanup(llog__ctx_scope_leave)));              \
	llog__ctx_scope_enter(&LLOG__CTX_N(llog__ctx_scope_, __LINE__), (key)); \
	(void)llog_ctx_set((key), value)
#else
/* In C++ the state is a guard's (llog__ctx_scope_guard, "C++" below),
 * whose destructor leaves the scope. */
#define LLOG__CTX_SCOPE(key, value)                                           \
	::llog__ctx_scope_guard LLOG__CTX_N(llog__ctx_scope_, __LINE__){(key)}; \
	(void)::llog_ctx_set((key), value)
#endif

/*-*********************************************************************
 *  C++: the types of slots, fields and context values
 ***********************************************************************/

/* C++11 and later; before C++11 the plain LOG calls compile (variadic),
 * fields and context do not. */
#if defined(__cplusplus) && __cplusplus >= 201103L
extern "C++" {

template <class T>
using llog__decay_t = typename std::decay<T>::type;

/* How a value of type T (decayed) rides in a typed call's slot, as C's
 * LLOG__SLOT puts it: an integer of at most 64 bits, an enum (scoped too)
 * or bool through uintptr_t (sign- or zero-extended), a float or double
 * as a double's bits, a pointer (to a function too) as is, nullptr as 0;
 * any other type (long double, __int128, a class, a pointer to member)
 * has none: ok == 0 sends the call to the variadic entry point, at
 * compile time. */
enum { LLOG__SLOT_NONE, LLOG__SLOT_INT, LLOG__SLOT_DBL, LLOG__SLOT_PTR, LLOG__SLOT_NULL };
template <class T>
struct llog__slot_kind {
	static constexpr int value =
		std::is_same<T, float>::value || std::is_same<T, double>::value ? LLOG__SLOT_DBL
		: (std::is_integral<T>::value || std::is_enum<T>::value) && sizeof(T) <= sizeof(uint64_t)
			? LLOG__SLOT_INT
		: std::is_pointer<T>::value ? LLOG__SLOT_PTR
		: std::is_same<T, decltype(nullptr)>::value ? LLOG__SLOT_NULL
							     : LLOG__SLOT_NONE;
};
/* T's class in a typed call's signature, as C's LLOG__CLS: a string (a
 * pointer to char, const or not), an integer of at most 4 bytes (bool,
 * an enum by its size), or 8 bytes (a float or double as a double, any
 * other integer, pointer or nullptr); 0 for a type without a slot. */
template <class T>
struct llog__cls {
	static constexpr unsigned value =
		llog__slot_kind<T>::value == LLOG__SLOT_INT ? (sizeof(T) <= 4 ? LLOG__SIG_INT : LLOG__SIG_WIDE)
		: llog__slot_kind<T>::value == LLOG__SLOT_PTR &&
				std::is_same<typename std::remove_cv<typename std::remove_pointer<T>::type>::type,
					     char>::value
			? LLOG__SIG_STR
		: llog__slot_kind<T>::value == LLOG__SLOT_NONE ? 0u
							      : LLOG__SIG_WIDE;
};
template <class T, int K = llog__slot_kind<T>::value>
struct llog__slot {
	enum { ok = 0 };
	static uint64_t get(const T &) { return 0; } /* never called */
};
template <class T>
struct llog__slot<T, LLOG__SLOT_INT> {
	enum { ok = 1 };
	static uint64_t get(T x) { return static_cast<uint64_t>(static_cast<uintptr_t>(x)); }
};
template <class T>
struct llog__slot<T, LLOG__SLOT_DBL> {
	enum { ok = 1 };
	static uint64_t get(double x)
	{
		uint64_t u;

		__builtin_memcpy(&u, &x, sizeof(u));
		return u;
	}
};
template <class T>
struct llog__slot<T, LLOG__SLOT_PTR> {
	enum { ok = 1 };
	static uint64_t get(T x) { return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(x)); }
};
template <class T>
struct llog__slot<T, LLOG__SLOT_NULL> {
	enum { ok = 1 };
	static uint64_t get(T) { return 0; }
};

/* A field's type by its value's type T (decayed), as C's LLOG__KV_TYPE
 * maps it: bool BOOL; char I64; float and double F64; char * and const
 * char * (arrays, string literals) STR; a struct llog_hex pointer (C's
 * LLOG_HEX) or value (C++'s) LLOG__KV_HEX; any other integer of at most
 * 64 bits (wchar_t, char16_t, char32_t, an unscoped enum by its
 * underlying type) I64 or U64 by its signedness; anything else 0:
 * refused, by one static_assert (LLOG__KV_CHECK, llog_ctx_set) with
 * C's message. LLOG__KV_HEX_VAL, the by-value form, is this header's own:
 * the call block's type is LLOG__KV_HEX. */
#define LLOG__KV_HEX_VAL (LLOG__KV_HEX + 1)
template <class T, bool = std::is_enum<T>::value>
struct llog__kv_int {
	typedef T type;
};
template <class T>
struct llog__kv_int<T, true> {
	typedef typename std::underlying_type<T>::type type;
};
template <class T>
struct llog__kv_kind {
	typedef typename llog__kv_int<T>::type N;
	static constexpr int value =
		std::is_same<T, bool>::value ? static_cast<int>(LLOG_FIELD_BOOL)
		: std::is_same<T, char>::value ? static_cast<int>(LLOG_FIELD_I64)
		: std::is_same<T, float>::value || std::is_same<T, double>::value ? static_cast<int>(LLOG_FIELD_F64)
		: std::is_same<T, char *>::value || std::is_same<T, const char *>::value
			? static_cast<int>(LLOG_FIELD_STR)
		: std::is_same<T, llog_hex *>::value || std::is_same<T, const llog_hex *>::value
			? LLOG__KV_HEX
		: std::is_same<T, llog_hex>::value ? LLOG__KV_HEX_VAL
		: std::is_integral<N>::value && sizeof(N) <= sizeof(uint64_t) &&
				(!std::is_enum<T>::value || std::is_convertible<T, int>::value)
			? (std::is_signed<N>::value ? static_cast<int>(LLOG_FIELD_I64)
						    : static_cast<int>(LLOG_FIELD_U64))
			: 0;
};

/* For each kind: ok, the type in the site's data, val (the value in the
 * call's array; hp: the call's LLOG_HEX room) and ctx (llog_ctx_set). */
template <class T, int K = llog__kv_kind<T>::value>
struct llog__kv_of {
	enum { ok = 0, type = LLOG_FIELD_I64 };
	static union llog__kv_val val(const T &, struct llog_hex *&) { return llog__kv_i64(0); }
	static int ctx(const char *, const T &) { return 0; }
};
template <class T>
struct llog__kv_of<T, LLOG_FIELD_I64> {
	enum { ok = 1, type = LLOG_FIELD_I64 };
	static union llog__kv_val val(T x, struct llog_hex *&) { return llog__kv_i64(static_cast<int64_t>(x)); }
	static int ctx(const char *k, T x) { return llog_ctx_set_i64(k, static_cast<int64_t>(x)); }
};
template <class T>
struct llog__kv_of<T, LLOG_FIELD_U64> {
	enum { ok = 1, type = LLOG_FIELD_U64 };
	static union llog__kv_val val(T x, struct llog_hex *&) { return llog__kv_u64(static_cast<uint64_t>(x)); }
	static int ctx(const char *k, T x) { return llog_ctx_set_u64(k, static_cast<uint64_t>(x)); }
};
template <class T>
struct llog__kv_of<T, LLOG_FIELD_F64> {
	enum { ok = 1, type = LLOG_FIELD_F64 };
	static union llog__kv_val val(double x, struct llog_hex *&) { return llog__kv_f64(x); }
	static int ctx(const char *k, double x) { return llog_ctx_set_f64(k, x); }
};
template <class T>
struct llog__kv_of<T, LLOG_FIELD_BOOL> {
	enum { ok = 1, type = LLOG_FIELD_BOOL };
	static union llog__kv_val val(bool x, struct llog_hex *&) { return llog__kv_bool(x); }
	static int ctx(const char *k, bool x) { return llog_ctx_set_bool(k, x); }
};
template <class T>
struct llog__kv_of<T, LLOG_FIELD_STR> {
	enum { ok = 1, type = LLOG_FIELD_STR };
	static union llog__kv_val val(const char *x, struct llog_hex *&) { return llog__kv_str(x); }
	static int ctx(const char *k, const char *x) { return llog_ctx_set_str(k, x); }
};
template <class T>
struct llog__kv_of<T, LLOG__KV_HEX> {
	enum { ok = 1, type = LLOG__KV_HEX };
	static union llog__kv_val val(const struct llog_hex *h, struct llog_hex *&)
	{
		return llog__kv_hex(h);
	}
	static int ctx(const char *k, const struct llog_hex *h) { return llog__ctx_set_hexv(k, h); }
};
template <class T>
struct llog__kv_of<T, LLOG__KV_HEX_VAL> {
	enum { ok = 1, type = LLOG__KV_HEX };
	static union llog__kv_val val(const struct llog_hex &h, struct llog_hex *&hp)
	{
		*hp = h;
		return llog__kv_hex(hp++);
	}
	static int ctx(const char *k, const struct llog_hex &h)
	{
		return llog_ctx_set_hex(k, h.ptr, h.len);
	}
};

/* llog_ctx_set(key, v) in C++ (llog.h, "Context"). */
template <class T>
inline int llog_ctx_set(const char *key, const T &v)
{
	static_assert(::llog__kv_of< ::llog__decay_t<T> >::ok != 0, LLOG__KV_TYPE_MSG);
	return ::llog__kv_of< ::llog__decay_t<T> >::ctx(key, v);
}

/* LLOG_CTX_SCOPE's state in C++: entered at construction, left at
 * destruction. */
class llog__ctx_scope_guard {
public:
	explicit llog__ctx_scope_guard(const char *key) { llog__ctx_scope_enter(&s_, key); }
	~llog__ctx_scope_guard() { llog__ctx_scope_leave(&s_); }
	llog__ctx_scope_guard(const llog__ctx_scope_guard &) = delete;
	llog__ctx_scope_guard &operator=(const llog__ctx_scope_guard &) = delete;

private:
	struct llog__ctx_scope s_;
};

} /* extern "C++" */
#endif /* C++11 */

/*-*********************************************************************
 *  Rate limiter: LLOG_LOG_EVERY_N and friends
 ***********************************************************************/

/* A rate-limited call site's state: a static beside its struct llog_site
 * (llog.h, "Rate-limited logging"). */
struct llog_ratelimit {
	uint64_t word;                /* the decision word, atomic */
	uint64_t suppressed;          /* interval kinds: since the last record */
	struct llog_ratelimit *next;  /* the registry's link */
	struct llog_site *site;       /* set when it joins the registry */
	uint64_t n;                   /* FIRST_N, EVERY_N: n, for the shutdown line */
	int kind;                     /* LLOG__RL_* */
	int linked;                   /* joined the registry (atomic) */
};

/* What the limiter hands to the emitted record (the macros only). */
struct llog__rl_pass {
	uint64_t suppressed; /* calls suppressed since the site's last record */
	uint64_t ts;         /* the record's raw time (interval kinds), or 0 */
};

enum { LLOG__RL_FIRST_N = 1, LLOG__RL_EVERY_N = 2, LLOG__RL_EVERY_MS = 3, LLOG__RL_N_PER_MS = 4 };

/* The macros only: a rate-limited site's record (as llog__log, with the
 * limiter's pass); its first suppressed call joining the registry; the
 * decision of the interval kinds (1: emit, *p filled). */
LLOG_EXPORT void llog__log_rl(struct llog_site *site, const struct llog__rl_pass *p,
			      const char *fmt, ...) LLOG__PRINTF(3, 4);
LLOG_EXPORT void llog__rl_register(struct llog_ratelimit *rl, struct llog_site *site, int kind,
				   uint64_t n);
LLOG_EXPORT int llog__rl_interval(struct llog_ratelimit *rl, struct llog_site *site, int kind,
				  uint64_t n, uint64_t ms, struct llog__rl_pass *p);

/* The decision of FIRST_N and EVERY_N, inline: one fetch_add. Relaxed:
 * the word publishes nothing (the record is published by its own push);
 * the total modification order of the one word is what makes the counts
 * exact: call c (from 0) is emitted iff c < n (FIRST_N) or c % n == 0
 * (EVERY_N, which then reports the n - 1 calls since call c - n). */
static inline int llog__rl_count(struct llog_ratelimit *rl, struct llog_site *site, int kind,
				 uint64_t n, struct llog__rl_pass *p)
{
	uint64_t c = __atomic_fetch_add(&rl->word, 1, __ATOMIC_RELAXED);

	if (kind == LLOG__RL_EVERY_N ? (n <= 1 || c % n == 0) : c < n) {
		p->suppressed = kind == LLOG__RL_EVERY_N && c != 0 && n > 1 ? n - 1 : 0;
		p->ts = 0;
		return 1;
	}
	/* Relaxed: a hint; llog__rl_register decides with a CAS. */
	if (LLOG__UNLIKELY(!__atomic_load_n(&rl->linked, __ATOMIC_RELAXED)))
		llog__rl_register(rl, site, kind, n);
	return 0;
}

#define LLOG__LOG_RL(kind, n, ms, level, ...)                                 \
	do {                                                                  \
		LLOG__SITE(level, __VA_ARGS__);                               \
		if (LLOG__ON(level, &llog__site_)) {                          \
			static struct llog_ratelimit llog__rl_;               \
			struct llog__rl_pass llog__p_;                        \
			if ((kind) <= LLOG__RL_EVERY_N                        \
				    ? llog__rl_count(&llog__rl_, &llog__site_,  \
						     (kind), LLOG__CAST(uint64_t, n), \
						     &llog__p_)                 \
				    : llog__rl_interval(&llog__rl_, &llog__site_, \
							(kind), LLOG__CAST(uint64_t, n), \
							LLOG__CAST(uint64_t, ms), \
							&llog__p_))             \
				llog__log_rl(&llog__site_, &llog__p_,         \
					     __VA_ARGS__);                    \
		}                                                             \
	} while (0)

/*-*********************************************************************
 *  Shared-object destructor
 ***********************************************************************/

/*
 * The shared-object destructor (llog.h, "Process life": shared
 * libraries). Called by it only: waits until every record pushed before
 * the call has been rendered and handed to the sinks, once per *done (an
 * int that starts at 0; NULL: every call waits). Not async-signal-safe; may block; a no-op on
 * the flusher and on a sink's thread, and (but for waiting for a shutdown
 * in progress) while llog is not running.
 */
LLOG_EXPORT void llog__dso_fini(int *done);

#if defined(__GNUC__) && !defined(LLOG_NO_DSO_FINI)
/* One per object: hidden (not shared with other objects) and weak (the
 * definitions of its translation units merge into one). */
__attribute__((weak, visibility("hidden"))) int llog__dso_fini_done;
static void llog__dso_fini_tu(void) __attribute__((destructor(101), used));
static void llog__dso_fini_tu(void)
{
	llog__dso_fini(&llog__dso_fini_done);
}
#endif

#ifdef __cplusplus
}
#endif

#endif /* LLOG_DETAIL_H */
