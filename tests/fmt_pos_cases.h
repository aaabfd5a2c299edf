/*
 * fmt_pos_cases.h - test_fmt.c's cases of POSIX positional formats
 * ("%2$s %1$d", "%2$*1$d"): named cases and a random differential corpus,
 * each compared with vsnprintf by the includer's check() (and check_with()
 * where POSIX leaves the output undefined and llog documents its own,
 * fmt.h). Included after fmt_corpus.h (its generator, and the includer's
 * check()) by test_fmt.c (capture, rendering and slots against vsnprintf)
 * and test_binfile.c (binary file == text file == vsnprintf).
 */
#ifndef LLOG_TEST_FMT_POS_CASES_H
#define LLOG_TEST_FMT_POS_CASES_H

#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <wchar.h>

/* Named cases: the output equals snprintf's. */
static void fmt_pos_named(void)
{
	static char big[1500];
	wchar_t ws[] = L"wide";

	memset(big, 'b', sizeof(big) - 1);
	check("A %1$d %2$s", 42, "pos");
	check("%2$s %1$d", 42, "pos");                       /* reordered */
	check("%1$d %1$d %2$s %1$x %2$.1s", 42, "pos");      /* reused */
	check("%3$s %2$s %1$s", "a", "b", "c");
	check("[%2$*1$d] [%2$-*1$d]", 6, 42);                /* '*' width */
	check("[%2$*1$d] [%1$d]", -6, 42);                   /* negative: '-' */
	check("[%2$.*1$f] [%2$.*1$e]", 3, 3.14159);          /* '*' precision */
	check("[%3$*1$.*2$s] [%3$-*1$.*2$s]", 10, 3, "abcdef");
	check("[%2$.*1$s] [%3$.*1$d]", -1, "abc", 5);        /* negative: none */
	check("[%1$*1$d]", 5);                               /* width and value */
	/* a '0' flag and a negative "*n$" width: glibc's positional printf
	 * pads floating point on the right with zeros (not %a) */
	check("[%1$0*2$f][%1$0*2$e][%1$+0*2$G][%1$0*2$.2a][%3$0*2$f][%4$0*2$Lf]",
	      1.5, -14, INFINITY, 2.5L);
	check("[%1$-0*2$f][%1$-014f][%1$0*2$f][%1$#0*2$.0e]", 1.5, -14);
	check("[%1$0*2$s][%3$0*2$p][%4$0*2$c][%5$0*2$lld]", "s", -9, (void *)0x10, 'c', 7LL);
	check("100%% %1$d%% %2$s %% %%%%", 5, "x");
	check("%1$s|%2$d|%3$ld|%4$lld|%5$f|%6$g|%7$c|%8$p|%9$x|%10$u", "s", -2, LONG_MIN,
	      LLONG_MAX, 2.5, 1e-5, 'c', (void *)0x1234, 0xbeefu, UINT_MAX);
	check("%10$u|%9$x|%8$p|%7$c|%6$g|%5$f|%4$lld|%3$ld|%2$d|%1$s", "s", -2, LONG_MIN,
	      LLONG_MAX, 2.5, 1e-5, 'c', (void *)0x1234, 0xbeefu, UINT_MAX);
	check("[%1$-8d][%1$+08d][%1$#x][%2$-10.4s][%3$#o][%3$05d]", 42, "string", 8);
	check("%1$hhd %1$hd %1$d %1$hhu %1$hx", 70000 + 300);
	check("%2$zu %1$jd %3$td %2$zx", INTMAX_MIN, SIZE_MAX, (ptrdiff_t)-3);
	check("%2$.2f %1$e %2$a %1$G %2$F %2$.0f", 1e10, 0.1);
	check("%2$Lf %1$d %2$.3Le", 7, 2.5L);                /* long double */
	check("%2$s|%1$.3s|%1$.6s|%1$10s|", (char *)NULL, (char *)NULL);
	check("%2$ls %1$d %3$lc", 4, ws, (wint_t)L'w');     /* wide */
	check("%1$'d %2$Id", 1234567, 89);                   /* locale flags */
	errno = EACCES;
	check("%1$d %m %2$s", 1, "x");                       /* %m takes nothing */
	/* an unknown conversion prints itself, glibc leaving out its "n$" */
	check("%1$d %y %2$s|%1$5y|", 42, "pos");
	check("%1$s|%1$s", big);                             /* 1499 bytes twice */
	check("%1$-1600s|%2$d", "left", 3);
	/* the most indices: 32, in reverse */
	check("%32$d %31$d %30$d %29$d %28$d %27$d %26$d %25$d %24$d %23$d %22$d %21$d "
	      "%20$d %19$d %18$d %17$d %16$d %15$d %14$d %13$d %12$d %11$d %10$d %9$d "
	      "%8$d %7$d %6$d %5$d %4$d %3$d %2$d %1$d",
	      1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22,
	      23, 24, 25, 26, 27, 28, 29, 30, 31, 32);
}

/* The cases POSIX leaves undefined: the format up to the first conversion
 * whose arguments are not all known, then the rest of it as text
 * (fmt.h, fmt_pos.c); nothing beyond the known indices is read. For an
 * includer that has check_with(expected, fmt, ...). */
#ifdef FMT_POS_CHECK_WITH
static void fmt_pos_undefined(void)
{
	/* a skipped index: argument 2's type is unknown, so 3 is not read */
	check_with("a 1 %3$d b %1$d", "a %1$d %3$d b %1$d", 1, 2, 3);
	check_with("%2$d", "%2$d", 1, 2);
	check_with("x 1 %3$s", "x %1$d %3$s", 1, 2, "three");
	/* mixed: positional first, then one without "n$" */
	check_with("1 %d %1$d", "%1$d %d %1$d", 1, 2);
	check_with("1 %*d", "%1$d %*d", 1, 2, 3);
	check_with("%1$*d|", "%1$*d|", 1, 2);
	/* mixed: sequential first, then one with "n$" (as before) */
	check_with("1 %1$d", "%d %1$d", 1);
	check_with("1 %2$s", "%d %2$s", 1, "x");
	/* indices out of range: 0 and above 32 */
	check_with("%0$d x", "%0$d x", 1);
	check_with("1 %33$d", "%1$d %33$d", 1);
	check_with("%300$d", "%300$d", 1);
	/* one index, two types */
	check_with("1 %1$s", "%1$d %1$s", 1);
	check_with("%1$*1$s", "%1$*1$s", 1);
	check_with("2.500000 %1$d", "%1$f %1$d", 2.5);
	/* a format that ends inside a conversion stops there */
	check_with("1 ", "%1$d %2$", 1);
}
#endif

/* ---- random formats ------------------------------------------------------ */

/* The arguments of every random format, by index: 1 int, 2 string, 3
 * double, 4 long long, 5 int (a width), 6 pointer, 7 int (a character),
 * 8 int (a precision). */
#define POS_NARGS 8

/* A random conversion of argument k into *p (k = 0: any); marks it used. */
static char *pos_conv(char *p, unsigned k, int *used)
{
	static const char *const ints[] = {"d", "i", "u", "x", "X", "o", "hhd", "hx", "c"};
	static const char *const dbls[] = {"f", "e", "g", "a", "E", "G", "F", "A"};
	static const char *const lls[] = {"lld", "llx", "llu", "ld", "jd", "lli"};
	static const char *const iflags[] = {"", "", "-", "0", "+", " ", "#", "-+"};
	static const char *const dflags[] = {"", "", "-", "0", "+", " ", "#", "+0"};
	const char *fl = "", *conv;
	int width = -1, prec = -2; /* -2: none; -1: from argument 8 */
	int wstar = rndn(6) == 0, pstar = rndn(6) == 0;

	if (k == 0)
		k = 1 + rndn(POS_NARGS);
	used[k] = 1;
	switch (k) {
	case 1: case 5: case 7: case 8:
		conv = k == 7 ? "c" : k == 1 ? PICK(ints) : "d";
		fl = PICK(iflags);
		if (strchr("dicu", conv[strlen(conv) - 1]) != NULL && fl[0] == '#')
			fl = "";
		if (conv[0] == 'c')
			fl = "-";
		break;
	case 2:
		conv = "s";
		fl = rndn(2) ? "-" : "";
		break;
	case 3:
		conv = PICK(dbls);
		fl = PICK(dflags);
		break;
	case 4:
		conv = PICK(lls);
		fl = strchr(conv, 'x') != NULL && rndn(2) ? "#" : "";
		break;
	default:
		conv = "p";
		fl = rndn(2) ? "-" : "";
		break;
	}
	if (!wstar && rndn(3) == 0)
		width = (int)rndn(20);
	if (pstar)
		prec = -1;
	else if (rndn(3) == 0 && conv[0] != 'c' && conv[0] != 'p')
		prec = (int)rndn(12);
	p += sprintf(p, "%%%u$%s", k, fl);
	if (wstar) {
		used[5] = 1;
		p += sprintf(p, "*5$");
	} else if (width >= 0) {
		p += sprintf(p, "%d", width);
	}
	if (prec == -1 && conv[0] != 'c' && conv[0] != 'p') {
		used[8] = 1;
		p += sprintf(p, ".*8$");
	} else if (prec >= 0) {
		p += sprintf(p, ".%d", prec);
	}
	return p + sprintf(p, "%s", conv);
}

/* Random positional formats over the 8 arguments, each index used at
 * least once, in any order and any number of times, with literal text and
 * %% between: rendered as snprintf renders them. */
static void fmt_pos_random(unsigned n)
{
	static const char *const texts[] = {"", " ", "|", "%%", "a%%b", " - ", "[", "]"};
	static const char *const strs[] = {"", "s", "text", "a longer string argument"};
	char fmt[512];

	for (unsigned c = 0; c < n; c++) {
		int used[POS_NARGS + 1] = {0};
		unsigned nconv = 1 + rndn(8);
		char *p = fmt;
		long long ll = (long long)rnd();
		double d = (double)(int64_t)rnd() / (double)(1ull << rndn(60));
		int i1 = (int)rnd(), w = (int)rndn(25) - 12, pr = (int)rndn(10) - 1;

		for (unsigned j = 0; j < nconv; j++) {
			p += sprintf(p, "%s", PICK(texts));
			p = pos_conv(p, 0, used);
		}
		for (unsigned k = 1; k <= POS_NARGS; k++) {
			if (!used[k]) {
				p += sprintf(p, "%s", PICK(texts));
				p = pos_conv(p, k, used);
			}
		}
		check(fmt, i1, PICK(strs), d, ll, w, (void *)(uintptr_t)rnd(), 'A' + (int)rndn(26),
		      pr);
	}
}

#endif /* LLOG_TEST_FMT_POS_CASES_H */
