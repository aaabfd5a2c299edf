/*
 * test_ctx.c - a thread's context (docs/fields.md 2): 8 threads each set,
 * change, remove and scope their own context between records, and every
 * record carries exactly its thread's context as of its call, in the
 * thread's order, each record once; the order of the keys; a call's field
 * wins over the context's of the same key; the limits; under
 * LLOG_OVERFLOW_DROP a change that could not be pushed is sent again
 * before the next record (or that record is dropped); a fork child's
 * thread keeps its context.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "kvsink.h"
#include "llog.h"
#include "sanitizer.h"
#include "testutil.h"

static struct kvsink sink;

static int setup(void **state)
{
	(void)state;
	assert_int_equal(kvsink_add(&sink, 0), 0);
	assert_int_equal(llog_init(NULL), 0);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	(void)llog_ctx_clear();
	llog_shutdown();
	kvsink_reset(&sink);
	return 0;
}

#define THREADS 8
#define ROUNDS 200

/* Each record: call field "j" (its number in the thread: 5 per round).
 *   j % 5 == 0: ctx t=T, phase="a"
 *   j % 5 == 1: ctx t=T, phase="b"          (changed)
 *   j % 5 == 2: ctx t=T                     (phase removed)
 *   j % 5 == 3: ctx t=T, scope=round        (LLOG_CTX_SCOPE)
 *   j % 5 == 4: ctx t=T                     (the scope left) */
static void *worker(void *p)
{
	int64_t t = (int64_t)(intptr_t)p, j = 0;

	if (llog_ctx_set("t", t) != 0)
		return (void *)1;
	for (int r = 0; r < ROUNDS; r++) {
		(void)llog_ctx_set("phase", "a");
		LOG_INFO_KV(("j", j), "r");
		j++;
		(void)llog_ctx_set_str("phase", "b");
		LOG_INFO_KV(("j", j), "r");
		j++;
		if (llog_ctx_remove("phase") != 0)
			return (void *)1;
		LOG_INFO_KV(("j", j), "r");
		j++;
		{
			LLOG_CTX_SCOPE("scope", (uint64_t)r);
			LOG_INFO_KV(("j", j), "r");
			j++;
		}
		LOG_INFO_KV(("j", j), "r");
		j++;
	}
	return NULL;
}

static void check_record(const struct kv_entry *k, int64_t *next)
{
	const struct kv_field *t = &k->f[0], *j;
	int64_t th, n;

	assert_string_equal(t->key, "t");
	assert_int_equal(t->type, LLOG_FIELD_I64);
	th = t->i64;
	assert_true(th >= 0 && th < THREADS);
	j = &k->f[k->nfields - 1]; /* the call's field comes last */
	assert_string_equal(j->key, "j");
	n = j->i64;
	assert_int_equal(n, next[th]); /* each once, in the thread's order */
	next[th]++;
	switch (n % 5) {
	case 0:
	case 1:
		assert_int_equal(k->nfields, 3);
		assert_string_equal(k->f[1].key, "phase");
		assert_string_equal(k->f[1].str, n % 5 == 0 ? "a" : "b");
		break;
	case 3:
		assert_int_equal(k->nfields, 3);
		assert_string_equal(k->f[1].key, "scope");
		assert_int_equal(k->f[1].type, LLOG_FIELD_U64);
		assert_int_equal(k->f[1].u64, (uint64_t)(n / 5));
		break;
	default:
		assert_int_equal(k->nfields, 2);
	}
	assert_int_equal(k->fields_truncated, 0);
}

static void test_threads(void **state)
{
	pthread_t th[THREADS];
	int64_t next[THREADS] = {0};
	size_t n = 0;

	(void)state;
	for (intptr_t i = 0; i < THREADS; i++)
		assert_int_equal(pthread_create(&th[i], NULL, worker, (void *)i), 0);
	for (int i = 0; i < THREADS; i++) {
		void *rv;

		assert_int_equal(pthread_join(th[i], &rv), 0);
		assert_null(rv);
	}
	llog_flush();
	for (size_t i = 0; i < sink.n; i++) {
		if (strcmp(sink.e[i].msg, "r") != 0)
			continue;
		check_record(&sink.e[i], next);
		n++;
	}
	for (int i = 0; i < THREADS; i++)
		assert_int_equal(next[i], 5 * ROUNDS);
	assert_int_equal(n, (size_t)THREADS * 5 * ROUNDS);
}

static void test_order_dup_limits(void **state)
{
	const struct kv_entry *k;
	struct llog_stats before, after;
	char key[16];

	(void)state;
	assert_int_equal(llog_ctx_set("a", 1), 0);
	assert_int_equal(llog_ctx_set("b", 2.5), 0);
	assert_int_equal(llog_ctx_set("c", (_Bool)1), 0);
	assert_int_equal(llog_ctx_set("a", 3), 0); /* in place: a stays first */
	LOG_INFO_KV(("b", "call", "z", 9), "dup");
	llog_flush();
	k = &sink.e[sink.n - 1];
	/* context first (a, c: b is the call's), then the call's b, z */
	assert_int_equal(k->nfields, 4);
	assert_string_equal(k->f[0].key, "a");
	assert_int_equal(k->f[0].i64, 3);
	assert_string_equal(k->f[1].key, "c");
	assert_int_equal(k->f[1].type, LLOG_FIELD_BOOL);
	assert_int_equal(k->f[1].b, 1);
	assert_string_equal(k->f[2].key, "b");
	assert_int_equal(k->f[2].type, LLOG_FIELD_STR);
	assert_string_equal(k->f[2].str, "call");
	assert_string_equal(k->f[3].key, "z");

	LOG_INFO("plain"); /* a plain LOG carries the context too */
	llog_flush();
	k = &sink.e[sink.n - 1];
	assert_int_equal(k->nfields, 3);
	assert_string_equal(k->f[1].key, "b");
	assert_true(k->f[1].type == LLOG_FIELD_F64 && k->f[1].f64 == 2.5);

	/* bad keys */
	assert_int_equal(llog_ctx_set_i64(NULL, 1), -EINVAL);
	assert_int_equal(llog_ctx_set_i64("", 1), -EINVAL);
	assert_int_equal(llog_ctx_remove("nope"), -ENOENT);

	/* 16 keys at most; the 17th is refused, counted, and reported */
	assert_int_equal(llog_ctx_clear(), 0);
	for (int i = 0; i < LLOG_CTX_KEYS; i++) {
		snprintf(key, sizeof(key), "k%d", i);
		assert_int_equal(llog_ctx_set(key, i), 0);
	}
	llog_get_stats(&before);
	assert_int_equal(llog_ctx_set("over", 1), -ENOSPC);
	assert_int_equal(llog_ctx_set("k3", 33), 0); /* an existing key: fine */
	LOG_INFO("full");
	llog_flush();
	llog_get_stats(&after);
	k = &sink.e[sink.n - 1];
	assert_int_equal(k->nfields, LLOG_CTX_KEYS);
	assert_int_equal(k->f[3].i64, 33);
	assert_int_equal(k->fields_truncated, 1);
	/* the refusal, then the record that reports it */
	assert_int_equal(after.fields_truncated - before.fields_truncated, 2);

	/* LLOG_CTX_BYTES: a string too large for what is left */
	assert_int_equal(llog_ctx_clear(), 0);
	{
		static char big[LLOG_FIELD_STR_MAX + 1];

		memset(big, 'v', LLOG_FIELD_STR_MAX);
		assert_int_equal(llog_ctx_set("b1", big), 0);
		assert_int_equal(llog_ctx_set("b2", (const char *)big), -ENOSPC);
	}
	LOG_INFO("bytes");
	llog_flush();
	k = &sink.e[sink.n - 1];
	assert_int_equal(k->nfields, 1);
	assert_int_equal(k->f[0].str_len, LLOG_FIELD_STR_MAX);
	assert_int_equal(k->fields_truncated, 1);
	assert_int_equal(llog_ctx_clear(), 0);
	LOG_INFO("cleared");
	llog_flush();
	k = &sink.e[sink.n - 1];
	assert_int_equal(k->nfields, 0);
	assert_int_equal(k->fields_truncated, 0);

	/* 32 call fields and a context: the call's last ones are left out
	 * (LLOG_FIELDS_MAX per record) and counted */
	assert_int_equal(llog_ctx_set("c1", 1), 0);
	LOG_INFO_KV(("f0", 0, "f1", 1, "f2", 2, "f3", 3, "f4", 4, "f5", 5, "f6", 6, "f7", 7,
		     "f8", 8, "f9", 9, "f10", 10, "f11", 11, "f12", 12, "f13", 13, "f14", 14,
		     "f15", 15, "f16", 16, "f17", 17, "f18", 18, "f19", 19, "f20", 20, "f21", 21,
		     "f22", 22, "f23", 23, "f24", 24, "f25", 25, "f26", 26, "f27", 27, "f28", 28,
		     "f29", 29, "f30", 30, "f31", 31),
		    "many");
	llog_flush();
	k = &sink.e[sink.n - 1];
	assert_int_equal(k->nfields, LLOG_FIELDS_MAX);
	assert_string_equal(k->f[0].key, "c1");
	assert_string_equal(k->f[31].key, "f30");
	assert_int_equal(k->fields_truncated, 1);
}

/* DROP: the flusher held in the sink, the ring filled up. */
static struct gate dgate;
static struct kvsink dsink;

static void gate_on_entry(void *user, const struct llog_entry *e)
{
	if (e->msg_len == 4 && memcmp(e->msg, "gate", 4) == 0)
		gate_pass(&dgate);
	kvsink_on_entry(user, e);
}

static void test_drop_resend(void **state)
{
	struct llog_callback_options o = {.on_entry = gate_on_entry, .user = &dsink};
	struct llog_config cfg = {0};
	struct llog_stats st0, st;
	static char pad[1024];
	int filled = 0, rc;

	(void)state;
	gate_init(&dgate, 1);
	cfg.overflow = LLOG_OVERFLOW_DROP;
	cfg.arena_bytes = 16384;
	cfg.max_record_bytes = 4096;
	assert_int_equal(llog_add_sink(llog_callback_sink(&o)), 0);
	assert_int_equal(llog_init(&cfg), 0);
	memset(pad, 'p', sizeof(pad) - 1);
	LOG_ERROR("gate"); /* wakes the flusher, which then waits in the sink */
	gate_wait_held(&dgate);
	/* Fill this thread's ring until a record is dropped. */
	llog_get_stats(&st0);
	for (int i = 0; i < 1000 && !filled; i++) {
		LOG_INFO("fill %s", pad);
		llog_get_stats(&st);
		filled = st.dropped > st0.dropped;
	}
	/* Then with the smallest record (no argument), so that what is
	 * left is smaller than a CTX record. */
	for (int i = 0, more = 1; i < 1000 && more; i++) {
		st0 = st;
		LOG_INFO("f");
		llog_get_stats(&st);
		more = st.dropped == st0.dropped;
	}
	/* This change cannot be pushed now; */
	rc = llog_ctx_set("x", 1);
	/* nor can it be sent again before this record: dropped too. */
	llog_get_stats(&st0);
	LOG_INFO("lost");
	llog_get_stats(&st);
	gate_open(&dgate);
	assert_true(filled);
	assert_int_equal(rc, 0);
	assert_int_equal(st.dropped - st0.dropped, 1);
	llog_flush();
	LOG_INFO("after");
	llog_flush();
	/* No record without the change after it; "after" carries it. */
	for (size_t i = 0; i < dsink.n; i++) {
		const struct kv_entry *k = &dsink.e[i];

		assert_true(strcmp(k->msg, "lost") != 0);
		if (strncmp(k->msg, "f", 1) == 0 || strcmp(k->msg, "gate") == 0)
			assert_int_equal(k->nfields, 0);
	}
	{
		const struct kv_entry *k = &dsink.e[dsink.n - 1];

		assert_string_equal(k->msg, "after");
		assert_int_equal(k->nfields, 1);
		assert_string_equal(k->f[0].key, "x");
		assert_int_equal(k->f[0].i64, 1);
	}
	(void)llog_ctx_clear();
	llog_shutdown();
	kvsink_reset(&dsink);
}

static void test_fork(void **state)
{
	pid_t pid;

	(void)state;
#ifdef TEST_TSAN
	skip(); /* TSan aborts a multi-threaded fork (see test_process.c) */
#endif
	assert_int_equal(llog_ctx_set("req", "r1"), 0);
	LOG_INFO("parent before");
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		size_t n0 = sink.n; /* the parent's entries, copied */
		int ok;

		LOG_INFO_KV(("child", 1), "in child");
		llog_flush();
		ok = sink.n == n0 + 1 && sink.e[n0].nfields == 2 &&
		     strcmp(sink.e[n0].f[0].key, "req") == 0 &&
		     strcmp(sink.e[n0].f[0].str, "r1") == 0 &&
		     strcmp(sink.e[n0].f[1].key, "child") == 0;
		_exit(ok ? 0 : 1);
	}
	assert_int_equal(child_exit_code(pid), 0);
	LOG_INFO("parent after");
	llog_flush();
	assert_int_equal(sink.e[sink.n - 1].nfields, 1);
	assert_string_equal(sink.e[sink.n - 1].f[0].str, "r1");
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test_setup_teardown(test_threads, setup, teardown),
	cmocka_unit_test_setup_teardown(test_order_dup_limits, setup, teardown),
	cmocka_unit_test(test_drop_resend),
	cmocka_unit_test_setup_teardown(test_fork, setup, teardown),
};

int main(void)
{
	return cmocka_run_group_tests(tests, NULL, NULL);
}
