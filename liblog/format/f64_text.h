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
#include <stdint.h>

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

/* The 8 decimal digits of x < 10^8, one a byte (leading zeros included), the first in the lowest
 * (in memory, on a little-endian machine), as values 0-9: a
 * split into two 4-digit halves, each half into two 2-digit quarters, each
 * quarter into two digits, every lane at once in one 64-bit word. The
 * divisions are multiplications: y * 10486 >> 20 is y / 100 for y < 10^4
 * (it is above by y * 2.3e-7 < 0.0023, and y / 100 is at least 0.01 short
 * of the next integer), y * 103 >> 10 is y / 10 for y < 100 (above by
 * less than 0.06, short of the next integer by at least 0.1); no lane's
 * product reaches the next lane (below 2^27 in 32 bits, 2^14 in 16), and
 * the masks drop the fractions that spill into the lane below. The
 * doubles' digits (f64_text.c) and the integer fields' (line_fields.c). */
static inline uint64_t llog__digits8(uint32_t x)
{
	uint64_t v = x / 10000u | (uint64_t)(x % 10000u) << 32, h;

	h = (v * 10486u) >> 20 & UINT64_C(0x0000007f0000007f);
	v = h | (v - h * 100u) << 16;
	h = (v * 103u) >> 10 & UINT64_C(0x000f000f000f000f);
	return h | (v - h * 10u) << 8;
}

#endif
