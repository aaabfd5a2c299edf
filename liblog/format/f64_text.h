/*
 * f64_text.h - a double as the shortest of %.15g, %.16g, %.17g that reads
 * back to it, written by llog itself (f64_text.c). Not API.
 *
 * Contract, for every double d and in any locale:
 *   llog__f64_text(b, d) writes what the loop below writes, radix '.':
 *     for p = (subnormal ? 1 : 15) .. 17:
 *       s = snprintf("%.*g", p, d); stop if p == 17 or strtod(s) == d
 *   then ".0" when s has neither '.' nor 'e' ("1.0", "-0.0", "1e+20"),
 *   and "nan", "inf", "-inf" when d is not finite,
 * with the loop's snprintf and strtod rounding to nearest, ties to even
 * (the default rounding mode: a program that changes it with fesetround
 * changed what the loop wrote, not what this writes).
 * tests/test_f64_text.c checks it against that loop byte for byte.
 * Needs unsigned __int128 (gcc and clang on 64-bit targets).
 */
#ifndef LLOG_F64_TEXT_H
#define LLOG_F64_TEXT_H

#include <stddef.h>

/* The room llog__f64_text needs at b: the text is at most 24 bytes
 * ("-2.2250738585072014e-308"), NUL not included; the rest is scratch
 * (the digits are moved by copies of a fixed size). */
#define LLOG__F64_TEXT_MAX 40
#define LLOG__F64_TEXT_LEN 24

/* Writes d's text and a NUL into b (LLOG__F64_TEXT_MAX bytes, of which
 * scratch copies may write more than the text); returns the length (at
 * most LLOG__F64_TEXT_LEN). Thread-safe and async-signal-safe (the crash
 * drain calls it): no libc formatting, no allocation, no lock, no global
 * state but a constant table; never blocks. */
size_t llog__f64_text(char *b, double d);

#endif
