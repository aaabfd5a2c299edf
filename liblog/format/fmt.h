/*
 * fmt.h - argument plans, raw capture and deferred rendering of printf
 * formats (internal).
 *
 * DESIGN
 * A LOG site's format string is parsed once into a plan: the C type that each
 * conversion consumes, in order (a '*' width or precision consumes an int
 * before its conversion). At every call the producer copies its arguments
 * by the plan into the record (capture: two calls, measure then write, over
 * two copies of the va_list). Later the flusher renders the message from the
 * format, the plan and the captured bytes. Invariant:
 *
 *   render(fmt, plan, capture(plan, args)) == snprintf(fmt, args)   (bytes)
 *
 * for every format of the C99 grammar (flags "-+ #0", width, precision,
 * '*' for both, length hh h l ll j z t L, conversions d i u o x X c s p f F
 * e E g G a A %), as long as the output fits the buffer. Strings are copied
 * at the call (NULL renders as "(null)", as glibc does); with a precision only
 * that many bytes are read, as C requires. %n consumes its pointer and is
 * never executed (nothing is stored through it). Plans that cannot be
 * deferred (wide conversions %lc %ls, %m, more arguments than
 * LLOG__PLAN_MAX_ARGS, an unknown conversion, the undefined positional
 * formats below and a positional string with a '*' precision) are marked
 * EAGER: the producer renders them at the call with llog__fmt_format_va().
 *
 * POSIX positional formats ("%2$s %1$d", "%1$*2$d": arguments in any
 * order, used any number of times, indices 1 to LLOG__PLAN_MAX_ARGS) keep
 * the invariant too (fmt_pos.c): their plan (LLOG__PLAN_POS) lists the
 * arguments in index order, which is the order of the call's, so capture
 * is the same; the renderer fetches them once in that order and renders
 * each conversion by its index. Where POSIX leaves the output undefined,
 * the message is the format rendered up to the first conversion whose
 * arguments are not all known, then the rest of the format as text from
 * that conversion's '%': a conversion without "n$" in a positional format
 * (or one with "n$" in a format whose first conversion has none), an
 * index of 0 or above LLOG__PLAN_MAX_ARGS, an index used with two types
 * ("%1$d %1$s"), and an index above a skipped one ("%1$d %3$d", 1, 2, 3
 * logs "1 %3$d": argument 2's type is unknown, so neither 2 nor 3 is
 * read). No argument is read beyond the last index before the first
 * skipped one.
 *
 * A format may also be compiled once (llog__fmt_compile: the literal
 * segments and the parsed conversion specifications, in order), so that
 * rendering does not parse it again for every record:
 *
 *   render_prog(compile(fmt), plan, args) == render(fmt, plan, args)
 *
 * The flusher keeps compiled formats per call site (fmt_cache.h).
 *
 * Nothing here locks or makes a system call, and nothing allocates but
 * llog__fmt_compile (malloc; llog__fmt_compile_at compiles into the
 * caller's memory); all functions are reentrant and
 * async-signal-safe except where they call snprintf (floating point and %p
 * rendering, eager wide conversions) and llog__fmt_compile.
 */
#ifndef LLOG_FMT_H
#define LLOG_FMT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#define LLOG__PLAN_MAX_ARGS 32

/* The mark that ends a message or a line cut to fit (the renderers' users
 * append it: render.c, line.c, the binary file sink, llogcat). */
#define LLOG__MARKER " [truncated]"
#define LLOG__MARKER_LEN (sizeof(LLOG__MARKER) - 1)

/* Plan flags. */
#define LLOG__PLAN_EAGER 0x01u   /* format at the call, see above */
#define LLOG__PLAN_HAS_STR 0x02u /* some argument is a %s string */
#define LLOG__PLAN_LDBL 0x04u    /* some argument is a long double: no slots */
#define LLOG__PLAN_POS 0x08u     /* POSIX positional: arguments in index order */
/* The flags a binary file's sites frame stores (docs/file-format.md 3):
 * the others are this build's own, never written. */
#define LLOG__PLAN_FILE_FLAGS (LLOG__PLAN_EAGER | LLOG__PLAN_HAS_STR)

/*
 * A parsed format. Fits in struct llog_site's plan[] (36 bytes, 4-aligned),
 * and is plain data: it may be copied with memcpy.
 */
struct llog__plan {
	uint8_t nargs;                         /* arguments consumed */
	uint8_t flags;                         /* LLOG__PLAN_* */
	uint16_t fixed_bytes;                  /* capture size without strings */
	uint8_t type[LLOG__PLAN_MAX_ARGS];     /* internal type codes */
};

/*
 * Parses fmt into *plan. Never fails: a format that cannot be deferred gives
 * a plan with LLOG__PLAN_EAGER set. fmt must not be NULL.
 */
void llog__fmt_plan_parse(const char *fmt, struct llog__plan *plan);

/*
 * Capture, pass 1: returns the number of bytes llog__fmt_capture_write() will
 * write for these arguments, at most budget. When the arguments would need
 * more, string arguments are clipped (from the last string backwards, never
 * below 0 bytes) so that the total fits, and *truncated is set to 1
 * (otherwise left unchanged). slen receives each string argument's captured
 * length, indexed by argument position (size LLOG__PLAN_MAX_ARGS). Returns
 * (size_t)-1 if even the fixed part exceeds budget, or if the plan is
 * EAGER (nothing to capture: use llog__fmt_format_va()). Consumes ap.
 */
size_t llog__fmt_capture_measure(const struct llog__plan *plan, va_list ap,
				 size_t budget, uint32_t *slen, int *truncated);

/*
 * Capture in one pass (the hot path): writes the arguments into dst, which
 * has room for cap >= plan->fixed_bytes bytes; strings are clipped, in
 * argument order, to what is left (setting *truncated). Returns the bytes
 * written; the layout is the one llog__fmt_capture_write produces. Consumes ap.
 * Not for EAGER plans.
 */
size_t llog__fmt_capture_once(const struct llog__plan *plan, va_list ap, void *dst,
			      size_t cap, int *truncated);

/*
 * Capture, pass 2: writes the arguments into dst (any alignment), exactly the
 * number of bytes pass 1 returned, using the string lengths it computed.
 * Consumes ap (a fresh copy of the same arguments).
 */
void llog__fmt_capture_write(const struct llog__plan *plan, va_list ap,
			     const uint32_t *slen, void *dst);

/*
 * The same three for a typed call (llog__log_t): the arguments in 8-byte
 * slots, one per argument the plan consumes (llog/detail.h "Typed calls"), with
 * the same bytes written as from the va_list of the same call. Not for
 * EAGER or LDBL plans (measure returns (size_t)-1 for them).
 */
size_t llog__fmt_capture_measure_v(const struct llog__plan *plan, const uint64_t *v,
				   size_t budget, uint32_t *slen, int *truncated);
size_t llog__fmt_capture_once_v(const struct llog__plan *plan, const uint64_t *v, void *dst,
				size_t cap, int *truncated);
void llog__fmt_capture_write_v(const struct llog__plan *plan, const uint64_t *v,
			       const uint32_t *slen, void *dst);

/*
 * Renders fmt with the captured arguments into out[0..cap). Returns the
 * number of bytes written (never more than cap; no NUL terminator is
 * written). When the full message would need more than cap bytes, writes
 * the first cap bytes of it and sets *truncated to 1 (one byte fewer in
 * the single case of a message that starts with a floating-point or %p
 * conversion longer than 512 bytes which crosses cap).
 */
size_t llog__fmt_render(char *out, size_t cap, const char *fmt,
			const struct llog__plan *plan, const void *args,
			int *truncated);

/* A compiled format (opaque): fmt_render.c. */
struct llog__fmt_prog;

/* Bytes of fmt's compiled program (for llog__fmt_compile_at). */
size_t llog__fmt_prog_size(const char *fmt);

/*
 * Compiles fmt for llog__fmt_render_prog into mem, llog__fmt_prog_size(fmt)
 * bytes aligned like a pointer, and returns it (at mem). No allocation.
 * The program points into fmt: it is valid as long as fmt's bytes are (for
 * a LOG site: until its object is unloaded).
 */
struct llog__fmt_prog *llog__fmt_compile_at(const char *fmt, void *mem);

/* The same in memory of its own: a malloc'd program (release it with
 * free()), or NULL when out of memory. Not async-signal-safe (malloc). */
struct llog__fmt_prog *llog__fmt_compile(const char *fmt);

/*
 * Renders exactly as llog__fmt_render(out, cap, fmt, plan, args, truncated)
 * does, where prog is llog__fmt_compile(fmt) (same contract, same bytes).
 */
size_t llog__fmt_render_prog(char *out, size_t cap, const struct llog__fmt_prog *prog,
			     const struct llog__plan *plan, const void *args, int *truncated);

/*
 * Renders fmt with a live va_list at once (the EAGER path, and the
 * synchronous path used before init). Same contract as llog__fmt_render; %n is
 * never executed.
 */
size_t llog__fmt_format_va(char *out, size_t cap, const char *fmt,
			   const struct llog__plan *plan, va_list ap,
			   int *truncated);

#endif /* LLOG_FMT_H */
