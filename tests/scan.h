/* tests/scan.h - records found and numbers read in a big text in place, for
 * the tests that check every record of a whole file or stderr capture.
 *
 * Not sscanf: glibc's sscanf measures the whole rest of its input at every
 * call (it makes a FILE of it), and the sanitizers' interceptors check that
 * range too, so a loop over ten thousand records of a megabyte is
 * quadratic: seconds per check under ASan and TSan. strtol reads only the
 * digits. */
#ifndef LLOG_TESTS_SCAN_H
#define LLOG_TESTS_SCAN_H

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* strstr(s, pat) in plain C, for a loop that walks a big text from match
 * to match: the sanitizers' strstr interceptor measures all of s at every
 * call (quadratic over the loop); strncmp's reads only what it compares. */
static inline const char *scan_find(const char *s, const char *pat)
{
	size_t n = strlen(pat);

	for (; *s != '\0'; s++)
		if (*s == pat[0] && strncmp(s, pat, n) == 0)
			return s;
	return NULL;
}

/* Matches the text at p against pattern, where each '#' is a decimal
 * number (optional sign) stored into out[0..n-1] in turn and every other
 * character must be itself. Returns how many numbers it stored before the
 * pattern ended or the text stopped matching (as sscanf's count). */
static inline int scan_longs(const char *p, const char *pattern, long *out, int n)
{
	int got = 0;

	for (; *pattern != '\0'; pattern++) {
		if (*pattern == '#') {
			char *end;
			long v;

			if (got == n || !(*p == '-' || *p == '+' || (*p >= '0' && *p <= '9')))
				return got;
			errno = 0;
			v = strtol(p, &end, 10);
			if (end == p || errno != 0)
				return got;
			out[got++] = v;
			p = end;
		} else if (*p++ != *pattern) {
			return got;
		}
	}
	return got;
}

#endif
