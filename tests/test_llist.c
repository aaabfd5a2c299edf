/*
 * test_llist.c - the lock-free list: each operation alone, reverse of
 * 0/1/2/n nodes, a multi-producer stress against a del_all consumer and
 * against a single del_first consumer, checking every node exactly once and
 * per-producer order.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "llist.h"
#include "testutil.h"

struct item {
	struct llist_node node;
	int producer;
	int seq;
};

static void test_empty_list(void **state)
{
	struct llist_head h = LLIST_HEAD_INIT;

	(void)state;
	assert_true(llist_empty(&h));
	assert_null(llist_del_all(&h));
	assert_null(llist_del_first(&h));
	assert_null(llist_reverse_order(NULL));
}

static void test_add_reports_empty(void **state)
{
	struct llist_head h = LLIST_HEAD_INIT;
	struct item a = {0}, b = {0};

	(void)state;
	assert_true(llist_add(&a.node, &h));
	assert_false(llist_add(&b.node, &h));
	assert_false(llist_empty(&h));
	/* newest first */
	assert_ptr_equal(llist_del_all(&h), &b.node);
	assert_ptr_equal(b.node.next, &a.node);
	assert_null(a.node.next);
	assert_true(llist_empty(&h));
}

static void test_add_batch(void **state)
{
	struct llist_head h = LLIST_HEAD_INIT;
	struct item it[4] = {{{0}, 0, 0}};
	struct llist_node *n;
	int i = 0;

	(void)state;
	llist_add(&it[0].node, &h);
	/* chain 3 -> 2 -> 1 pushed at once on top of 0 */
	it[3].node.next = &it[2].node;
	it[2].node.next = &it[1].node;
	assert_false(llist_add_batch(&it[3].node, &it[1].node, &h));
	n = llist_reverse_order(llist_del_all(&h));
	llist_for_each(n, n) {
		assert_ptr_equal(n, &it[i].node);
		i++;
	}
	assert_int_equal(i, 4);
}

static void test_reverse_sizes(void **state)
{
	struct item it[100];

	(void)state;
	for (int len = 0; len <= 100; len += (len < 3 ? 1 : 97)) {
		struct llist_head h = LLIST_HEAD_INIT;
		struct llist_node *n, *first;
		int i = 0;

		for (int k = 0; k < len; k++) {
			it[k].seq = k;
			llist_add(&it[k].node, &h);
		}
		first = llist_reverse_order(llist_del_all(&h));
		llist_for_each(n, first) {
			assert_int_equal(llist_entry(n, struct item, node)->seq, i);
			i++;
		}
		assert_int_equal(i, len);
	}
}

static void test_del_first_lifo(void **state)
{
	struct llist_head h = LLIST_HEAD_INIT;
	struct item it[3];

	(void)state;
	for (int k = 0; k < 3; k++) {
		it[k].seq = k;
		llist_add(&it[k].node, &h);
	}
	for (int k = 2; k >= 0; k--)
		assert_ptr_equal(llist_del_first(&h), &it[k].node);
	assert_null(llist_del_first(&h));
}

static void test_try_add_sees_sentinel(void **state)
{
	static struct llist_node closed;
	struct llist_head h = {&closed};
	struct item a = {0};
	struct llist_node *exp = NULL;

	(void)state;
	/* expectation NULL is stale: the CAS fails and reports the sentinel */
	assert_false(llist_try_add(&a.node, &h, &exp));
	assert_ptr_equal(exp, &closed);
}

/* ---- stress ---------------------------------------------------------- */

#define PRODUCERS 4
#define PER_PRODUCER 100000

static struct llist_head stress_head;
static struct item *stress_items;
static atomic_int producers_done;

static void *producer(void *arg)
{
	int p = (int)(intptr_t)arg;

	for (int i = 0; i < PER_PRODUCER; i++) {
		struct item *it = &stress_items[p * PER_PRODUCER + i];

		it->producer = p;
		it->seq = i;
		llist_add(&it->node, &stress_head);
	}
	atomic_fetch_add(&producers_done, 1);
	return NULL;
}

static void check_item(struct item *it, int *next, int *seen)
{
	assert_in_range(it->producer, 0, PRODUCERS - 1);
	/* per-producer order kept, every item exactly once */
	assert_int_equal(it->seq, next[it->producer]);
	next[it->producer]++;
	(*seen)++;
}

static void test_stress(void **state)
{
	int use_del_first = (int)(uintptr_t)*state; /* 1: llist_del_first; 0: llist_del_all */
	pthread_t th[PRODUCERS];
	int next[PRODUCERS] = {0};
	int seen = 0;
	unsigned char *seen_once = calloc((size_t)PRODUCERS * PER_PRODUCER, 1);

	assert_non_null(seen_once);
	stress_items = calloc((size_t)PRODUCERS * PER_PRODUCER, sizeof(*stress_items));
	assert_non_null(stress_items);
	init_llist_head(&stress_head);
	atomic_store(&producers_done, 0);
	for (int p = 0; p < PRODUCERS; p++)
		assert_int_equal(pthread_create(&th[p], NULL, producer, (void *)(intptr_t)p), 0);
	for (;;) {
		int done = atomic_load(&producers_done) == PRODUCERS;
		struct llist_node *n, *chain;

		if (use_del_first) {
			/* Single consumer popping while producers push: pops
			 * are LIFO against a moving top, so only "every item
			 * exactly once" holds, not order. */
			while ((n = llist_del_first(&stress_head)) != NULL) {
				struct item *it = llist_entry(n, struct item, node);

				assert_in_range(it->producer, 0, PRODUCERS - 1);
				assert_int_equal(seen_once[it->producer * PER_PRODUCER + it->seq], 0);
				seen_once[it->producer * PER_PRODUCER + it->seq] = 1;
				next[it->producer]++;
				seen++;
			}
		} else {
			chain = llist_reverse_order(llist_del_all(&stress_head));
			llist_for_each(n, chain)
				check_item(llist_entry(n, struct item, node), next, &seen);
		}
		if (done && llist_empty(&stress_head))
			break;
	}
	for (int p = 0; p < PRODUCERS; p++)
		pthread_join(th[p], NULL);
	assert_int_equal(seen, PRODUCERS * PER_PRODUCER);
	for (int p = 0; p < PRODUCERS; p++)
		assert_int_equal(next[p], PER_PRODUCER);
	free(stress_items);
	free(seen_once);
}

TEST_MAIN(
	cmocka_unit_test(test_empty_list),
	cmocka_unit_test(test_add_reports_empty),
	cmocka_unit_test(test_add_batch),
	cmocka_unit_test(test_reverse_sizes),
	cmocka_unit_test(test_del_first_lifo),
	cmocka_unit_test(test_try_add_sees_sentinel),
	TEST_CASE_ARG(test_stress_del_all, test_stress, 0),
	TEST_CASE_ARG(test_stress_del_first, test_stress, 1),
)
