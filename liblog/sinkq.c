/*
 * sinkq.c - a sink on a thread of its own behind a bounded queue. See
 * sinkq.h for the design (ring, orderings, wake-ups, policies).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdalign.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "arena.h"
#include "atomic.h"
#include "buf.h"
#include "clock.h"
#include "config.h"
#include "kv.h"
#include "queue.h"
#include "render.h"
#include "sink.h"
#include "sinkq.h"
#include "stats.h"

#define DEFAULT_QUEUE_BYTES (4u << 20)
#define MIN_QUEUE_BYTES (64u << 10)
#define DEFAULT_DRAIN_MS 5000u
#define NAME_BYTES 32
/* How long one wait of the flusher for room lasts before it looks again
 * (a safety net: the worker's wake-up is what ends it). */
#define ROOM_POLL_MS 10u
/* A failed commit is tried again after this, doubling (retry_commit). */
#define RETRY_MIN_MS 50u
#define RETRY_MAX_MS 1000u

enum item_kind { ITEM_PAD = 1, ITEM_ENTRY = 2, ITEM_COMMIT = 3 };

/* An item in the ring; size and kind are its first 8 bytes, so a pad item
 * (only those) fits in any 8-byte gap. Entries are followed by file NUL
 * func NUL msg category NUL (its first CAT_MAX bytes; none: NUL alone). */
struct item {
	uint32_t size; /* the whole item, a multiple of 8 */
	uint16_t kind;
	uint16_t level;
	int32_t line;
	uint32_t file_len, func_len;
	uint16_t cat_len;   /* the category's bytes, after msg (0: default) */
	uint16_t backtrace; /* the entry's (llog_entry.backtrace) */
	uint64_t seq, tid, msg_len, epoch;
	int64_t ts_ns;
	uint64_t suppressed; /* the entry's (rate limits) */
	char tname[16]; /* the entry's thread name (at most 15 bytes), NUL-ended */
	/* Where the entry's fields are, a field list (kv.h) from the item's
	 * start; 0: none (no field, none left out). */
	uint32_t fields_off;
};

#define ITEM_ALIGN 8u
#define CAT_MAX 255u

static size_t cat_len(const struct llog_entry *e)
{
	return e->category == NULL ? 0 : e->category_len < CAT_MAX ? e->category_len : CAT_MAX;
}
#define COMMIT_SIZE ((uint64_t)sizeof(struct item))

struct llog__sinkq {
	struct llog_sink *sink;
	char *ring;
	uint64_t cap; /* a power of two */
	enum llog_queue_full full;
	unsigned timeout_ms;
	char name[NAME_BYTES];
	sigset_t blocked;     /* the worker's signal mask, from llog__sinkq_start */
	/* The flusher's side. */
	alignas(64) _Atomic uint64_t head;
	uint64_t put_epoch;   /* the last marker's epoch */
	int dirty;            /* entries put since that marker */
	uint64_t drops;       /* dropped since the last notice */
	uint64_t drop_seq;    /* the last dropped entry's */
	int64_t drop_ts;
	int64_t final_deadline; /* the final round's bound on waiting, once set */
	uint64_t seen_tail;     /* tail when the flusher last found no room */
	_Atomic uint32_t room_word, flusher_sleeping;
	_Atomic uint64_t want_epoch;
	_Atomic uint32_t notice_wanted; /* drops not yet announced */
	/* The worker's side. */
	alignas(64) _Atomic uint64_t tail;
	_Atomic uint64_t done_epoch;
	_Atomic uint32_t work_word, worker_sleeping;
	_Atomic uint32_t stop;   /* 1: exit when empty; 2: exit now */
	_Atomic uint32_t exited; /* futex word */
	_Atomic uint32_t dead;   /* its thread crashed */
	pthread_t thread;
	int running;
	pthread_mutex_t call_lock;
	int fork_locked; /* fork_prepare got call_lock */
	unsigned retry_ms; /* the worker's: 0, or when to retry a failed commit */
	struct llog_field wfields[LLOG_FIELDS_MAX]; /* the worker's entry's */
	/* Counters (relaxed: statistics only). */
	_Atomic uint64_t queued, delivered, dropped, undelivered, late, peak;
};

/* The queue whose worker this thread is (NULL elsewhere). */
static __thread struct llog__sinkq *tls_self;

static uint64_t pow2_at_least(uint64_t n)
{
	uint64_t p = MIN_QUEUE_BYTES;

	while (p < n)
		p <<= 1;
	return p;
}

/* An item's bytes before its fields (their offset), 8-aligned. */
static uint64_t item_base(const struct llog_entry *e, size_t file_len, size_t func_len)
{
	uint64_t n = sizeof(struct item) + file_len + 1 + func_len + 1 + e->msg_len + cat_len(e) + 1;

	return (n + ITEM_ALIGN - 1) & ~(uint64_t)(ITEM_ALIGN - 1);
}

static int has_fields(const struct llog_entry *e)
{
	return e->nfields != 0 || e->fields_truncated != 0;
}

/* The whole item: the fields deep-copied after the strings. */
static uint64_t item_size(const struct llog_entry *e, size_t file_len, size_t func_len)
{
	uint64_t n = item_base(e, file_len, func_len);

	if (has_fields(e))
		n += llog__kv_list_size(e->fields, e->nfields);
	return n;
}

/* The largest field list an entry can have (LLOG_FIELDS_MAX of the
 * largest fields). */
#define FIELDS_MAX_BYTES                                                      	(sizeof(struct llog__kv_list) +                                      	 LLOG_FIELDS_MAX * (sizeof(struct llog__kv_ent) + LLOG_FIELD_KEY_MAX + LLOG_FIELD_STR_MAX + 9))

struct llog__sinkq *llog__sinkq_new(struct llog_sink *s, const struct llog_sink_options *opt,
				    int index)
{
	struct llog__sinkq *q = aligned_alloc(64, sizeof(*q));
	/* Relaxed: see config.h. The largest entry: a whole record, its
	 * marker, and generous file and function names. */
	uint64_t rec = llog__load_relaxed(&llog__cfg.max_record_bytes) + LLOG__MARKER_LEN + 8192 +
		       FIELDS_MAX_BYTES;
	uint64_t want = opt->queue_bytes ? opt->queue_bytes : DEFAULT_QUEUE_BYTES;
	struct llog__buf nb;

	if (q == NULL)
		return NULL;
	memset(q, 0, sizeof(*q));
	q->cap = pow2_at_least(want > 4 * rec ? want : 4 * rec);
	/* calloc: pages are backed as the ring first reaches them. */
	q->ring = calloc(1, q->cap);
	if (q->ring == NULL) {
		free(q);
		return NULL;
	}
	q->sink = s;
	q->full = opt->full;
	q->timeout_ms = opt->drain_timeout_ms ? opt->drain_timeout_ms : DEFAULT_DRAIN_MS;
	nb = LLOG__BUF(q->name, NAME_BYTES - 1);
	if (opt->name != NULL) {
		llog__buf_puts(&nb, opt->name);
	} else {
		llog__buf_putc(&nb, '#');
		llog__buf_num(&nb, (uint64_t)index, 10);
	}
	q->name[nb.n] = '\0';
	pthread_mutex_init(&q->call_lock, NULL);
	return q;
}

void llog__sinkq_free(struct llog__sinkq *q)
{
	if (q == NULL)
		return;
	pthread_mutex_destroy(&q->call_lock);
	free(q->ring);
	free(q);
}

unsigned llog__sinkq_timeout_ms(const struct llog__sinkq *q)
{
	return q->timeout_ms;
}

int llog__sinkq_running(const struct llog__sinkq *q)
{
	return q->running;
}

/* ---- wake-ups (sinkq.h) ------------------------------------------------- */

/* The waker's half: after publishing a position. */
static void wake(_Atomic uint32_t *word, _Atomic uint32_t *sleeping)
{
	/* seq_cst fence: orders the position just stored before the load of
	 * `sleeping` (the store-load pair of the handshake in sinkq.h). */
	llog__fence_seq_cst();
	if (llog__load_relaxed(sleeping)) {
		/* Release: nothing rides on it; the word only has to change. */
		llog__fetch_add_release(word, 1);
		llog__futex_wake(word, 0);
	}
}

/* The sleeper's half: sleeps unless ready() (re-checked after announcing
 * the sleep), at most timeout_ms (0: no limit). */
static void sleep_until(_Atomic uint32_t *word, _Atomic uint32_t *sleeping,
			int (*ready)(struct llog__sinkq *), struct llog__sinkq *q, unsigned timeout_ms)
{
	/* Acquire: pairs with the waker's release increment (nothing else
	 * needs it: positions are read with their own acquire loads). */
	uint32_t w = llog__load_acquire(word);

	llog__store_relaxed(sleeping, 1);
	/* seq_cst fence: orders the store of `sleeping` before the re-check's
	 * loads (the handshake in sinkq.h). */
	llog__fence_seq_cst();
	if (!ready(q))
		llog__futex_wait(word, w, timeout_ms);
	llog__store_relaxed(sleeping, 0);
}

/* ---- the worker ----------------------------------------------------------- */

static int work_ready(struct llog__sinkq *q)
{
	/* Acquire: head publishes the items (sinkq.h); stop is read with it
	 * (set by the flusher after its last put). */
	return llog__load_acquire(&q->head) != llog__load_relaxed(&q->tail) ||
	       llog__load_acquire(&q->stop) != 0;
}

static struct item *item_at(const struct llog__sinkq *q, uint64_t pos)
{
	return (struct item *)(void *)(q->ring + (pos & (q->cap - 1)));
}

/* The entry an item carries (strings in the ring). */
static void item_entry(const struct item *it, struct llog_field *fields, struct llog_entry *e)
{
	const char *p = (const char *)(it + 1);

	e->seq = it->seq;
	e->ts_ns = it->ts_ns;
	e->level = (enum llog_level)it->level;
	e->line = it->line;
	e->tid = it->tid;
	e->file = p;
	e->func = p + it->file_len + 1;
	e->msg = p + it->file_len + 1 + it->func_len + 1;
	e->msg_len = it->msg_len;
	e->thread_name = it->tname;
	e->thread_name_len = strlen(it->tname);
	e->suppressed = it->suppressed;
	e->category = it->cat_len != 0 ? e->msg + e->msg_len : NULL;
	e->category_len = it->cat_len;
	e->backtrace = (int)it->backtrace;
	e->fields = NULL;
	e->nfields = 0;
	e->fields_truncated = 0;
	if (it->fields_off != 0)
		llog__kv_list_entry((const char *)it + it->fields_off, fields, e);
}

/* Runs one item through the sink (under call_lock: see fork). */
static void run_item(struct llog__sinkq *q, const struct item *it)
{
	struct llog_sink *s = q->sink;
	struct llog_entry e;

	pthread_mutex_lock(&q->call_lock);
	if (it->kind == ITEM_ENTRY) {
		item_entry(it, q->wfields, &e);
		if (s->ops->write(s, &e) < 0)
			llog__count(write_errors, 1);
		llog__fetch_add_relaxed(&q->delivered, 1);
	} else if (it->kind == ITEM_COMMIT) {
		long rc = s->ops->commit(s);

		llog__count_commit(rc);
		q->retry_ms = rc < 0 ? RETRY_MIN_MS : 0;
	}
	pthread_mutex_unlock(&q->call_lock);
}

/*
 * A commit that failed (a collector or journald away: the sink keeps what
 * it could not send) is tried again by the worker on its own, 50 ms after,
 * then doubling to 1 s, until one succeeds, also when no round brings new
 * entries: an idle program's held-back entries do not wait for its next
 * LOG. A retry that fails again is not counted again in write_errors (the
 * same failure); the sink's own back-off decides whether it reconnects.
 */
static void retry_commit(struct llog__sinkq *q)
{
	struct llog_sink *s = q->sink;
	long rc;

	pthread_mutex_lock(&q->call_lock);
	rc = s->ops->commit(s);
	pthread_mutex_unlock(&q->call_lock);
	if (rc >= 0) {
		llog__count_commit(rc);
		q->retry_ms = 0;
	} else {
		q->retry_ms = q->retry_ms * 2 < RETRY_MAX_MS ? q->retry_ms * 2 : RETRY_MAX_MS;
	}
}

/* After a commit: publishes the epoch and wakes a flusher that waits for
 * it (a barrier). */
static void reached(struct llog__sinkq *q, uint64_t epoch)
{
	uint64_t want;

	/* seq_cst store, then seq_cst load of want_epoch: with the flusher's
	 * seq_cst store of want_epoch and load of done_epoch
	 * (llog__sinkq_want, llog__sinkq_reached), one of the two sides sees
	 * the other's store, so a barrier never misses this epoch. */
	llog__store_seq_cst(&q->done_epoch, epoch);
	want = llog__load_seq_cst(&q->want_epoch);
	if (want != 0 && epoch >= want)
		llog__wake_flusher();
}

/* Counts the entries in [t, h) (what a stopped worker leaves). */
static uint64_t count_entries(const struct llog__sinkq *q, uint64_t t, uint64_t h)
{
	uint64_t n = 0;

	while (t < h) {
		const struct item *it = item_at(q, t);

		n += it->kind == ITEM_ENTRY;
		t += it->size;
	}
	return n;
}

static void *worker_main(void *arg)
{
	struct llog__sinkq *q = arg;
	uint64_t t = llog__load_relaxed(&q->tail);

	/* As the flusher (flusher_sinktab.c gave its mask): no application
	 * signal handler runs here, the crash handler does. */
	pthread_sigmask(SIG_BLOCK, &q->blocked, NULL);
	llog__arena_mark_worker();
	tls_self = q;
	for (;;) {
		/* Acquire: the items up to h are written (sinkq.h). */
		uint64_t h = llog__load_acquire(&q->head);
		uint32_t stop;

		while (t != h) {
			const struct item *it = item_at(q, t);
			uint64_t epoch = it->kind == ITEM_COMMIT ? it->epoch : 0;

			/* Acquire: pairs with the flusher's release store. */
			if (llog__load_acquire(&q->stop) == 2)
				break;
			run_item(q, it);
			t += it->size;
			/* Release: the sink is done with the bytes before t
			 * (the item is not read after this). */
			llog__store_release(&q->tail, t);
			if (epoch != 0)
				reached(q, epoch);
		}
		wake(&q->room_word, &q->flusher_sleeping);
		/* Drops wait for their notice: now that the queue is empty the
		 * flusher's next round can put it (llog__sinkq_retry_notice). */
		if (t == h && llog__load_relaxed(&q->notice_wanted))
			llog__wake_flusher();
		/* Acquire: pairs with the flusher's release store of stop,
		 * made after its last put. */
		stop = llog__load_acquire(&q->stop);
		if (stop == 2 || (stop == 1 && t == llog__load_acquire(&q->head))) {
			llog__fetch_add_relaxed(&q->undelivered,
						count_entries(q, t, llog__load_acquire(&q->head)));
			break;
		}
		if (t == h) {
			unsigned retry = q->retry_ms;

			sleep_until(&q->work_word, &q->worker_sleeping, work_ready, q, retry);
			/* Acquire: as above. Nothing new came: try again. */
			if (retry != 0 && t == llog__load_acquire(&q->head) &&
			    llog__load_acquire(&q->stop) == 0)
				retry_commit(q);
		}
	}
	/* Release: pairs with the acquire load in llog__sinkq_stop. */
	llog__store_release(&q->exited, 1);
	llog__futex_wake(&q->exited, 1);
	return NULL;
}

int llog__sinkq_start(struct llog__sinkq *q, const sigset_t *blocked)
{
	int rc;

	if (q->running)
		return 0;
	/* Relaxed: no worker runs. What an earlier stop left queued was
	 * counted undelivered: not written now. Nothing is outstanding. */
	llog__store_relaxed(&q->tail, llog__load_relaxed(&q->head));
	llog__store_relaxed(&q->done_epoch, q->put_epoch);
	llog__store_relaxed(&q->stop, 0);
	llog__store_relaxed(&q->exited, 0);
	q->final_deadline = 0;
	q->blocked = *blocked; /* read by the worker, after pthread_create */
	rc = -pthread_create(&q->thread, NULL, worker_main, q);
	q->running = rc == 0;
	return rc;
}

/* ---- the flusher's side --------------------------------------------------- */

/* The flusher's re-checks before sleeping: the worker moved tail since
 * the flusher found no room; it committed the epoch a drain waits for. */
static int room_ready(struct llog__sinkq *q)
{
	/* Acquire: as every load of tail (sinkq.h). */
	return llog__load_acquire(&q->tail) != q->seen_tail || llog__load_relaxed(&q->dead);
}

static int drained_ready(struct llog__sinkq *q)
{
	return llog__sinkq_reached(q, q->put_epoch);
}

/* Bytes an item of `size` takes at head h: a pad up to the end of the
 * ring when it would cross it, then the item. */
static uint64_t need_at(const struct llog__sinkq *q, uint64_t h, uint64_t size)
{
	uint64_t off = h & (q->cap - 1);

	return off + size > q->cap ? q->cap - off + size : size;
}

/* Whether an item of size (followed by room for its commit marker when
 * reserve) fits now; on success *at is where it starts (after a pad). */
static int fits(struct llog__sinkq *q, uint64_t size, int reserve, uint64_t *need)
{
	uint64_t h = llog__load_relaxed(&q->head);
	/* Acquire: pairs with the worker's release store of tail; the bytes
	 * before it may be written over. */
	uint64_t t = llog__load_acquire(&q->tail);
	uint64_t n = need_at(q, h, size);
	uint64_t total = n + (reserve ? need_at(q, h + n, COMMIT_SIZE) : 0);

	*need = n;
	q->seen_tail = t;
	return h + total - t <= q->cap;
}

/* Whether the queue holds more than half its capacity. Relaxed: a
 * heuristic only (fits() is what decides whether bytes are free). */
static int over_half(const struct llog__sinkq *q)
{
	return llog__load_relaxed(&q->head) - llog__load_relaxed(&q->tail) > q->cap / 2;
}

/* Writes the item's pad (if any) and returns where the item goes. */
static struct item *place(struct llog__sinkq *q, uint64_t size, uint64_t need)
{
	uint64_t h = llog__load_relaxed(&q->head);

	if (need != size) {
		struct item *pad = item_at(q, h);

		pad->size = (uint32_t)(need - size);
		pad->kind = ITEM_PAD;
		h += need - size;
	}
	return item_at(q, h);
}

/* Publishes the placed item(s). */
static void publish(struct llog__sinkq *q, uint64_t need)
{
	uint64_t h = llog__load_relaxed(&q->head) + need;
	uint64_t used = h - llog__load_relaxed(&q->tail);

	/* Release: the item bytes before the new head (sinkq.h). */
	llog__store_release(&q->head, h);
	if (used > llog__load_relaxed(&q->peak))
		llog__store_relaxed(&q->peak, used);
	/* Past a quarter full the worker should be at it already. */
	if (used > q->cap / 4 && llog__load_relaxed(&q->worker_sleeping))
		wake(&q->work_word, &q->worker_sleeping);
}

static void write_entry(struct item *it, uint64_t size,
			const struct llog_entry *e, size_t file_len, size_t func_len)
{
	char *p = (char *)(it + 1);

	it->size = (uint32_t)size;
	it->kind = ITEM_ENTRY;
	it->level = (uint16_t)e->level;
	it->line = e->line;
	it->file_len = (uint32_t)file_len;
	it->func_len = (uint32_t)func_len;
	it->seq = e->seq;
	it->tid = e->tid;
	it->ts_ns = e->ts_ns;
	it->msg_len = e->msg_len;
	it->epoch = 0;
	it->suppressed = e->suppressed;
	it->backtrace = e->backtrace != 0;
	{
		size_t tn = e->thread_name != NULL ? strnlen(e->thread_name, e->thread_name_len) : 0;

		tn = tn < sizeof(it->tname) ? tn : sizeof(it->tname) - 1;
		memcpy(it->tname, e->thread_name != NULL ? e->thread_name : "", tn);
		memset(it->tname + tn, 0, sizeof(it->tname) - tn);
	}
	memcpy(p, e->file, file_len);
	p[file_len] = '\0';
	p += file_len + 1;
	memcpy(p, e->func, func_len);
	p[func_len] = '\0';
	memcpy(p + func_len + 1, e->msg, e->msg_len);
	it->cat_len = (uint32_t)cat_len(e);
	if (it->cat_len != 0)
		memcpy(p + func_len + 1 + e->msg_len, e->category, it->cat_len);
	p[func_len + 1 + e->msg_len + it->cat_len] = '\0';
	it->fields_off = 0;
	if (has_fields(e)) {
		/* Deep copy: the entry's fields point into the flusher's
		 * record and context, gone once it returns. */
		it->fields_off = (uint32_t)item_base(e, file_len, func_len);
		llog__kv_list_write(e->fields, e->nfields, e->fields_truncated,
				    (char *)it + it->fields_off);
	}
}

/* Queues e if it fits now; returns whether it did. */
static int try_put(struct llog__sinkq *q, const struct llog_entry *e)
{
	size_t file_len = e->file != NULL ? strlen(e->file) : 0;
	size_t func_len = e->func != NULL ? strlen(e->func) : 0;
	uint64_t size, need;
	struct llog_entry z;

	if (file_len > 4000 || func_len > 4000) {
		z = *e; /* names beyond any real one: cut, to keep the bound */
		z.file = e->file != NULL ? e->file : "";
		z.func = e->func != NULL ? e->func : "";
		e = &z;
		file_len = file_len > 4000 ? 4000 : file_len;
		func_len = func_len > 4000 ? 4000 : func_len;
	}
	size = item_size(e, file_len, func_len);
	if (!fits(q, size, 1, &need))
		return 0;
	write_entry(place(q, size, need), size, e, file_len, func_len);
	publish(q, need);
	q->dirty = 1;
	llog__fetch_add_relaxed(&q->queued, 1);
	return 1;
}

/* The flusher waits for room (or until deadline_ms; < 0: none). Returns
 * whether e fits now. */
static int wait_room(struct llog__sinkq *q, uint64_t size, int64_t deadline_ms)
{
	uint64_t need;

	while (!fits(q, size, 1, &need)) {
		unsigned ms = ROOM_POLL_MS;

		if (llog__load_relaxed(&q->dead) || !q->running)
			return 0;
		/* Relaxed: a hint (the final round follows). Shutdown asked:
		 * BLOCK's wait becomes the final round's bounded one, so a
		 * stuck sink cannot keep the flusher from its final round. */
		if (deadline_ms < 0 && llog__load_relaxed(&llog__q.stop) != 0) {
			if (q->final_deadline == 0)
				q->final_deadline = llog__mono_ms() + q->timeout_ms;
			deadline_ms = q->final_deadline;
		}
		if (deadline_ms >= 0) {
			int64_t left = deadline_ms - llog__mono_ms();

			if (left <= 0)
				return 0;
			if (left < ms)
				ms = (unsigned)left;
		}
		wake(&q->work_word, &q->worker_sleeping);
		sleep_until(&q->room_word, &q->flusher_sleeping, room_ready, q, ms);
	}
	return 1;
}

/* The most an item of the drop notice takes (put_notice). */
static uint64_t notice_size(void)
{
	struct llog_entry n = {.msg_len = LLOG__NOTICE_BYTES + NAME_BYTES};

	return item_size(&n, strlen(__FILE__), strlen("queue_full"));
}

/* The notice that precedes the first entry after drops. */
static int put_notice(struct llog__sinkq *q)
{
	char text[LLOG__NOTICE_BYTES + NAME_BYTES];
	struct llog__buf b = LLOG__BUF(text, sizeof(text));
	struct llog_entry n = {0};

	llog__buf_puts(&b, "llog: ");
	llog__buf_num(&b, q->drops, 10);
	llog__buf_puts(&b, " records dropped: sink ");
	llog__buf_puts(&b, q->name);
	llog__buf_puts(&b, "'s queue was full");
	n.seq = q->drop_seq;
	n.ts_ns = q->drop_ts;
	n.level = LLOG_WARN;
	n.file = __FILE__;
	n.func = "queue_full";
	n.thread_name = "";
	n.line = __LINE__;
	n.msg = text;
	n.msg_len = b.n;
	if (!try_put(q, &n))
		return 0;
	q->drops = 0;
	/* Relaxed: a hint for the worker (a missed one costs a round). */
	llog__store_relaxed(&q->notice_wanted, 0);
	return 1;
}

int llog__sinkq_retry_notice(struct llog__sinkq *q)
{
	return q->drops != 0 && put_notice(q);
}

static void drop(struct llog__sinkq *q, const struct llog_entry *e)
{
	q->drops++;
	q->drop_seq = e->seq;
	q->drop_ts = e->ts_ns;
	llog__fetch_add_relaxed(&q->dropped, 1);
	llog__count(queue_dropped, 1);
	llog__store_relaxed(&q->notice_wanted, 1);
}

int llog__sinkq_put(struct llog__sinkq *q, const struct llog_entry *e, int final)
{
	int wait = final || q->full == LLOG_QUEUE_BLOCK;

	if (wait) {
		int64_t deadline = -1;
		uint64_t size = item_size(e, e->file ? strlen(e->file) : 0,
					  e->func ? strlen(e->func) : 0);

		if (final) { /* one bound for the whole final round */
			if (q->final_deadline == 0)
				q->final_deadline = llog__mono_ms() + q->timeout_ms;
			deadline = q->final_deadline;
		}
		if (q->drops != 0)
			(void)wait_room(q, size + notice_size(), deadline);
		else
			(void)wait_room(q, size, deadline);
	}
	if (q->drops != 0 && !wait && over_half(q)) {
		drop(q, e); /* still in the episode of overload (sinkq.h) */
		return 0;
	}
	if ((q->drops == 0 || put_notice(q)) && try_put(q, e))
		return 1;
	drop(q, e);
	return 0;
}

static void put_marker(struct llog__sinkq *q, uint64_t epoch)
{
	uint64_t need;
	struct item *it;

	/* Room for it was kept behind the last entry (sinkq.h). */
	if (!fits(q, COMMIT_SIZE, 0, &need))
		return;
	it = place(q, COMMIT_SIZE, need);
	memset(it, 0, sizeof(*it));
	it->size = (uint32_t)COMMIT_SIZE;
	it->kind = ITEM_COMMIT;
	it->epoch = epoch;
	publish(q, need);
	q->put_epoch = epoch;
	q->dirty = 0;
}

uint64_t llog__sinkq_commit(struct llog__sinkq *q, uint64_t epoch)
{
	if (q->dirty) {
		put_marker(q, epoch);
		wake(&q->work_word, &q->worker_sleeping);
	}
	return q->put_epoch;
}

int llog__sinkq_reached(struct llog__sinkq *q, uint64_t epoch)
{
	/* seq_cst: the flusher's half of the want/done exchange (reached()). */
	return epoch == 0 || llog__load_seq_cst(&q->done_epoch) >= epoch ||
	       llog__load_relaxed(&q->dead) || !q->running;
}

void llog__sinkq_want(struct llog__sinkq *q, uint64_t epoch)
{
	/* seq_cst: see reached(). */
	llog__store_seq_cst(&q->want_epoch, epoch);
}

void llog__sinkq_count_late(struct llog__sinkq *q)
{
	llog__fetch_add_relaxed(&q->late, 1);
	llog__diag("sink %s did not commit within %u ms; llog_flush went on without it",
		   q->name, q->timeout_ms);
}

int llog__sinkq_drain(struct llog__sinkq *q, int64_t deadline_ms)
{
	uint64_t epoch = q->put_epoch;

	llog__sinkq_want(q, epoch);
	while (!llog__sinkq_reached(q, epoch)) {
		int64_t left = deadline_ms - llog__mono_ms();

		if (left <= 0)
			return 0;
		/* The worker wakes room_word after each run of items (a
		 * commit included). */
		sleep_until(&q->room_word, &q->flusher_sleeping, drained_ready, q,
			    left < ROOM_POLL_MS ? (unsigned)left : ROOM_POLL_MS);
	}
	return 1;
}

int llog__sinkq_stop(struct llog__sinkq *q)
{
	int64_t deadline;

	if (!q->running)
		return 1;
	/* Release: pairs with the worker's acquire loads of stop; 2 after a
	 * drain that timed out (what is left is counted, not written). */
	llog__store_release(&q->stop, llog__sinkq_reached(q, q->put_epoch) ? 1 : 2);
	wake(&q->work_word, &q->worker_sleeping);
	deadline = llog__mono_ms() + q->timeout_ms;
	/* Acquire: pairs with the worker's release store of exited. */
	while (llog__load_acquire(&q->exited) == 0) {
		int64_t left = deadline - llog__mono_ms();

		if (left <= 0) {
			/* Acquire: as the worker's loads; the item at tail is
			 * the one it is stuck in. */
			uint64_t t = llog__load_acquire(&q->tail);
			uint64_t h = llog__load_relaxed(&q->head);
			/* [t, h) holds whole items (the flusher's); t == h:
			 * the worker is only late to exit, nothing behind. */
			uint64_t lost = t < h ? count_entries(q, t + item_at(q, t)->size, h) : 0;

			llog__count(sink_lost, lost);
			llog__diag("sink %s is still inside a call %u ms after shutdown: left running, "
				   "not closed; %llu records behind it not delivered",
				   q->name, q->timeout_ms, (unsigned long long)lost);
			pthread_detach(q->thread);
			q->running = 0;
			return 0;
		}
		llog__futex_wait(&q->exited, 0, left < 100 ? (unsigned)left : 100);
	}
	pthread_join(q->thread, NULL);
	q->running = 0;
	if (llog__load_relaxed(&q->undelivered) != 0) {
		llog__count(sink_lost, llog__load_relaxed(&q->undelivered));
		llog__diag("sink %s: %llu records not delivered within %u ms at shutdown",
			   q->name, (unsigned long long)llog__load_relaxed(&q->undelivered),
			   q->timeout_ms);
	}
	return 1;
}

/* ---- the crash drain ------------------------------------------------------- */

long llog__sinkq_crash_put(struct llog__sinkq *q, const struct llog_entry *e)
{
	if (!q->running || llog__load_relaxed(&q->dead) || !try_put(q, e))
		return -1;
	return (long)e->msg_len + 1;
}

int llog__sinkq_crash_commit(struct llog__sinkq *q, uint64_t epoch, int64_t deadline_ms)
{
	if (!q->running || llog__load_relaxed(&q->dead))
		return 0;
	(void)llog__sinkq_commit(q, epoch);
	return llog__sinkq_drain(q, deadline_ms);
}

/* ---- fork, crash, statistics ----------------------------------------------- */

void llog__sinkq_fork_prepare(struct llog__sinkq *q)
{
	int64_t deadline = llog__mono_ms() + q->timeout_ms;
	struct timespec ms = {0, 1000000};

	/* Bounded: a sink that blocks inside a call must not block fork().
	 * Still inside after the drain timeout: the child does not use it.
	 * (trylock and 1 ms naps rather than pthread_mutex_clocklock, which
	 * ThreadSanitizer does not know.) */
	while (!(q->fork_locked = pthread_mutex_trylock(&q->call_lock) == 0) &&
	       llog__mono_ms() < deadline)
		nanosleep(&ms, NULL);
}

void llog__sinkq_fork_parent(struct llog__sinkq *q)
{
	if (q->fork_locked)
		pthread_mutex_unlock(&q->call_lock);
	q->fork_locked = 0;
}

int llog__sinkq_fork_child(struct llog__sinkq *q)
{
	pthread_mutex_init(&q->call_lock, NULL);
	if (!q->fork_locked)
		return 0; /* the parent's thread was inside the sink */
	q->fork_locked = 0;
	/* Relaxed: the child has one thread. */
	llog__store_relaxed(&q->head, 0);
	llog__store_relaxed(&q->tail, 0);
	llog__store_relaxed(&q->done_epoch, 0);
	llog__store_relaxed(&q->want_epoch, 0);
	llog__store_relaxed(&q->worker_sleeping, 0);
	llog__store_relaxed(&q->flusher_sleeping, 0);
	q->put_epoch = 0;
	q->dirty = 0;
	q->drops = 0;
	llog__store_relaxed(&q->notice_wanted, 0);
	q->final_deadline = 0;
	q->retry_ms = 0;
	q->running = 0;
	return 1;
}

void llog__sinkq_crashed_self(void)
{
	if (tls_self != NULL)
		llog__store_relaxed(&tls_self->dead, 1); /* read by the flusher's polls */
}

void llog__sinkq_stats(const struct llog__sinkq *q, struct llog_sink_stats *out)
{
	uint64_t h = llog__load_relaxed(&q->head), t = llog__load_relaxed(&q->tail);

	out->queued = llog__load_relaxed(&q->queued);
	out->delivered = llog__load_relaxed(&q->delivered);
	out->dropped = llog__load_relaxed(&q->dropped);
	out->undelivered = llog__load_relaxed(&q->undelivered);
	out->late_flushes = llog__load_relaxed(&q->late);
	out->queue_bytes = h >= t ? h - t : 0;
	out->queue_peak = llog__load_relaxed(&q->peak);
	out->queue_cap = q->cap;
}
