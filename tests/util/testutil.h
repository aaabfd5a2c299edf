/*
 * testutil.h - the small things many tests do: read a monotonic clock,
 * sleep, read a whole file, replace one atomically, count its lines, cut
 * a record's message into a C string, find a free loopback port, see
 * whether a TCP port accepts, run a shell command, draw pseudo-random
 * numbers, run n threads, wait for a child's exit code, read a test
 * program's argument. Plain C (no cmocka): the cmocka tests and the
 * stand-alone test programs (tests/fields/) both use it; a caller asserts
 * on what it returns (slurp and test_arg alone end the program by
 * themselves). The macros at the end are for the cmocka tests: they name
 * cmocka's types and are expanded after <cmocka.h>.
 *
 * Every function may be called from any thread; none is async-signal-safe.
 */
#ifndef LLOG_TEST_TESTUTIL_H
#define LLOG_TEST_TESTUTIL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* CLOCK_MONOTONIC in milliseconds, in nanoseconds. */
int64_t now_ms(void);
int64_t now_ns(void);

/* Sleeps ms milliseconds, us microseconds (nanosleep, resumed after a
 * signal handler returns). */
void sleep_ms(int ms);
void sleep_us(long us);

/* The whole of the file at path, malloc'd and NUL-terminated (the NUL not
 * counted in *len; len may be NULL). The caller frees it. A file the test
 * expects: when it cannot be read, the reason goes to stderr and the
 * program aborts (the test fails). */
char *slurp(const char *path, size_t *len);

/* Writes text to <path>.tmp and renames it over path (a reader sees the
 * old file or the new one, never a part); 0, or -1 with errno set. */
int replace_file(const char *path, const char *text);

/* The number of '\n' in the file at path; 0 when it cannot be opened (a
 * collector that has not written yet). */
long file_lines(const char *path);

/* The occurrences of needle (not empty) in the C string text, counted
 * without overlap. */
int count_of(const char *text, const char *needle);

/* Copies len bytes of src, at most cap - 1 of them, to dst and ends them
 * with a NUL (a record's message made a C string for sscanf or strcmp);
 * returns the number copied. cap > 0. */
size_t copy_cut(char *dst, size_t cap, const char *src, size_t len);

/* Starts n threads, thread i running fn((void *)(intptr_t)i), and joins
 * them all; 0, or the error of the pthread_create that failed (the threads
 * started before it are joined first). */
int run_threads(int n, void *(*fn)(void *));

/* A TCP port on 127.0.0.1 that nobody listens on right now (bound, read
 * and closed again; UDP is taken as free too); -1 on failure. */
int free_port(void);

/* The same for a UDP port (nothing bound to it: a datagram sent there is
 * refused with ICMP port unreachable); -1 on failure. */
int free_udp_port(void);

/* 1 when a TCP connection to 127.0.0.1:port is accepted, else 0. */
int tcp_accepts(int port);

/* splitmix64: the next number of the sequence whose state is *state (a
 * seed to start with); the same sequence everywhere for one seed. Not
 * thread-safe on one state. Inline: the generators of the corpora
 * stay as fast and as visible to the compiler as their own. */
static inline uint64_t splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Waits for the child pid (waitpid, resumed after a signal handler); its
 * exit code when it exited, 1000 + the signal's number when a signal ended
 * it, -1 when waitpid fails. A caller asserts it equal to what it expects. */
int child_exit_code(pid_t pid);

/* system(3) of the formatted command; returns what system returns (-1
 * when the command cannot be formatted). */
int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* argv[1] of a test program that takes one argument (what names it in
 * the usage line); without it, prints the usage line to stderr and exits
 * with 2. */
const char *test_arg(int argc, char **argv, const char *what);

/* A cmocka test program's main(): runs the cases listed (cmocka_unit_test
 * and the like, each followed by a comma) in order as one group, and
 * returns the number that failed. */
#define TEST_MAIN(...)                                                          \
	int main(void)                                                          \
	{                                                                       \
		const struct CMUnitTest tests[] = {__VA_ARGS__};                \
                                                                                \
		return cmocka_run_group_tests(tests, NULL, NULL);               \
	}

/* A cmocka case named name (a bare identifier, shown as the case's name
 * and matched by cmocka's test filter) that runs fn with *state == arg:
 * the cases of one parameterised test function, each under a name of its
 * own. arg is a pointer (a const one is fine: fn reads it back as const)
 * or a small integer (fn reads (uintptr_t)*state). */
#define TEST_CASE_ARG(name, fn, arg) TEST_CASE_ARG_SETUP_TEARDOWN(name, fn, NULL, NULL, arg)

/* The same with a setup and a teardown run around fn (they see *state ==
 * arg too). */
#define TEST_CASE_ARG_SETUP_TEARDOWN(name, fn, setup, teardown, arg)                    \
	{#name, fn, setup, teardown, (void *)(uintptr_t)(arg)}

/* A gate in a sink's callback, to hold the sink inside a call: while the
 * gate is closed, gate_pass waits at it (held); the test waits until a
 * call is held there (gate_wait_held) and opens it (gate_open). */
struct gate {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int closed; /* gate_pass waits while set */
	int held;   /* a call waits at the gate */
};

void gate_init(struct gate *g, int closed);
void gate_pass(struct gate *g);
void gate_wait_held(struct gate *g);
void gate_open(struct gate *g);

#endif
