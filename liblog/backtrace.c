/*
 * backtrace.c - the backtrace's configuration and the flusher's ring of
 * kept entries. See backtrace.h for the design.
 *
 * The ring is one buffer of `cap` bytes holding variable-sized items back
 * to back, oldest at rd, next at wr (byte counts that only grow; an item
 * starts at pos % cap and never wraps: the gap at the buffer's end that an
 * item does not fit in is filled by a pad item). Every item is a multiple
 * of 8 bytes and starts 8-aligned, so a gap is 0 or at least 8 bytes, room
 * for a pad's header. Invariant: wr - rd <= cap; n entries (pads not
 * counted) between them, n <= max.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "backtrace.h"
#include "queue.h"
#include "kv.h"
#include "render.h"
#include "stats.h"

int llog__backtrace_level = LLOG_OFF;

static struct llog__backtrace_config bt_cfg = {0, 0, LLOG_OFF, LLOG_ERROR};

/* File and function names are kept to this many bytes (the file's end,
 * which holds its base name; the function's start). */
#define NAME_MAX_BYTES 511u
/* Default bytes per entry when backtrace_bytes is 0. */
#define DEFAULT_ENTRY_BYTES 512u
#define MAX_RING_BYTES (1u << 30)

enum { ITEM_PAD = 1, ITEM_ENTRY = 2 };

/* An item; an entry is followed by file NUL func NUL category NUL msg,
 * then, at fields_off (8-aligned; 0: none), its fields as a list
 * (llog__kv_list_write: keys and string values copied, as the rest). */
struct item {
	uint32_t size; /* the whole item, a multiple of 8 */
	uint16_t kind;
	uint16_t level;
	int32_t line;
	uint32_t file_len, func_len, msg_len;
	uint32_t cat_len; /* 0: the default category */
	uint32_t fields_off;
	uint64_t tid;
	int64_t ts_ns;
	uint64_t suppressed;
	char tname[16]; /* NUL-ended */
};

struct llog__backtrace_ring {
	char *buf;
	uint64_t cap, rd, wr;
	size_t n, max;
	int trigger;
	int64_t last_ts; /* entries' times never decrease within the ring */
	struct llog_field fields[LLOG_FIELDS_MAX]; /* the entry emit hands out */
};

static inline uint64_t align8(uint64_t n)
{
	return (n + 7u) & ~(uint64_t)7u;
}

/* The largest entry a record of maxrec bytes can make: its names and
 * message, and its fields: the largest context list and LLOG_FIELDS_MAX
 * call fields of the longest keys, whose values are in the record (at
 * most maxrec bytes). */
static uint64_t max_item(size_t maxrec)
{
	return align8(sizeof(struct item) + 3 * (NAME_MAX_BYTES + 1) + maxrec + LLOG__MARKER_LEN) +
	       LLOG__CTX_LIST_MAX + sizeof(struct llog__kv_list) +
	       LLOG_FIELDS_MAX * (sizeof(struct llog__kv_ent) + LLOG_FIELD_KEY_MAX + 2 + 7) + maxrec;
}

int llog__backtrace_validate(const struct llog_config *c, size_t maxrec,
			     struct llog__backtrace_config *out)
{
	uint64_t bytes, least;

	*out = (struct llog__backtrace_config){0, 0, LLOG_OFF, LLOG_ERROR};
	if (c->backtrace_records == 0)
		return 0;
	if ((unsigned)c->backtrace_level > LLOG_FATAL || (unsigned)c->backtrace_trigger > LLOG_FATAL)
		return -EINVAL;
	/* Two of the largest entries fit at any wrap position. */
	least = 2 * max_item(maxrec);
	bytes = c->backtrace_bytes != 0 ? c->backtrace_bytes
					: (uint64_t)c->backtrace_records * DEFAULT_ENTRY_BYTES;
	if (c->backtrace_records > MAX_RING_BYTES || bytes > MAX_RING_BYTES)
		return -EINVAL;
	out->records = c->backtrace_records;
	out->bytes = (size_t)align8(bytes < least ? least : bytes);
	out->level = (int)c->backtrace_level;
	out->trigger = c->backtrace_trigger == LLOG_TRACE ? LLOG_ERROR : (int)c->backtrace_trigger;
	return 0;
}

void llog__backtrace_apply(const struct llog__backtrace_config *bt)
{
	bt_cfg = *bt;
	/* Relaxed: see llog__backtrace_threshold. */
	llog__store_relaxed((_Atomic int *)&llog__backtrace_level,
			    bt->records != 0 ? bt->level : LLOG_OFF);
	/* The fast path leaves every call to the general path's backtrace
	 * verdict while the backtrace is on (queue.h, the process's go-slow
	 * word). */
	llog__queue_slow_set(LLOG__Q_SLOW_BT, bt->records != 0 && bt->level != LLOG_OFF);
}

void llog__backtrace_count_lost(void)
{
	llog__count(bt_captured, 1);
	llog__count(bt_discarded, 1);
}

struct llog__backtrace_ring *llog__backtrace_ring_new(int *err)
{
	struct llog__backtrace_ring *r;

	*err = 0;
	if (bt_cfg.records == 0)
		return NULL;
	r = calloc(1, sizeof(*r));
	if (r != NULL)
		r->buf = malloc(bt_cfg.bytes);
	if (r == NULL || r->buf == NULL) {
		free(r);
		*err = -ENOMEM;
		return NULL;
	}
	r->cap = bt_cfg.bytes;
	r->max = bt_cfg.records;
	r->trigger = bt_cfg.trigger;
	r->last_ts = INT64_MIN;
	return r;
}

void llog__backtrace_ring_free(struct llog__backtrace_ring *r)
{
	if (r == NULL)
		return;
	llog__backtrace_clear(r);
	free(r->buf);
	free(r);
}

static inline struct item *at(const struct llog__backtrace_ring *r, uint64_t pos)
{
	return (struct item *)(void *)(r->buf + pos % r->cap);
}

/* Takes the oldest entry out (with the pads before it); NULL when empty.
 * Its bytes stay valid until the next keep. */
static struct item *take_oldest(struct llog__backtrace_ring *r)
{
	struct item *it;

	if (r->n == 0)
		return NULL;
	while ((it = at(r, r->rd))->kind == ITEM_PAD)
		r->rd += it->size;
	r->rd += it->size;
	r->n--;
	return it;
}

/* Room for `need` bytes at wr, with the pad to the buffer's end when the
 * item does not fit before it: the bytes it takes (0: none yet). */
static uint64_t room(const struct llog__backtrace_ring *r, uint64_t need)
{
	uint64_t pos = r->wr % r->cap, gap = r->cap - pos;
	uint64_t take = gap < need ? gap + need : need;

	return r->cap - (r->wr - r->rd) >= take ? take : 0;
}

/* n bytes of s into *p, NUL after them. */
static char *put(char *p, const char *s, size_t n)
{
	memcpy(p, s, n);
	p[n] = '\0';
	return p + n + 1;
}

void llog__backtrace_keep(struct llog__backtrace_ring *r, const struct llog_entry *e)
{
	size_t fl = strlen(e->file), fn = e->func != NULL ? strlen(e->func) : 0;
	size_t cl = e->category != NULL ? strnlen(e->category, e->category_len) : 0;
	const char *file = e->file;
	uint64_t base, need;
	struct item *it;
	char *p;

	if (fl > NAME_MAX_BYTES) {
		file += fl - NAME_MAX_BYTES;
		fl = NAME_MAX_BYTES;
	}
	fn = fn < NAME_MAX_BYTES ? fn : NAME_MAX_BYTES;
	cl = cl < NAME_MAX_BYTES ? cl : NAME_MAX_BYTES; /* copied: the site may be unloaded */
	base = align8(sizeof(*it) + fl + 1 + fn + 1 + cl + 1 + e->msg_len);
	need = base;
	if (e->nfields != 0 || e->fields_truncated != 0)
		need += llog__kv_list_size(e->fields, e->nfields);
	llog__count(bt_captured, 1);
	if (need > r->cap / 2) { /* never, given the minimum size */
		llog__count(bt_discarded, 1);
		return;
	}
	if (r->n == 0)
		r->rd = r->wr = 0;
	while (r->n == r->max || room(r, need) == 0) {
		(void)take_oldest(r);
		llog__count(bt_discarded, 1);
		if (r->n == 0)
			r->rd = r->wr = 0;
	}
	if (room(r, need) != need) { /* pad to the end, start again at 0 */
		it = at(r, r->wr);
		it->size = (uint32_t)(r->cap - r->wr % r->cap);
		it->kind = ITEM_PAD;
		r->wr += it->size;
	}
	it = at(r, r->wr);
	it->size = (uint32_t)need;
	it->kind = ITEM_ENTRY;
	it->level = (uint16_t)e->level;
	it->line = e->line;
	it->file_len = (uint32_t)fl;
	it->func_len = (uint32_t)fn;
	it->msg_len = (uint32_t)e->msg_len;
	it->cat_len = (uint32_t)cl;
	it->tid = e->tid;
	it->ts_ns = e->ts_ns < r->last_ts ? r->last_ts : e->ts_ns;
	r->last_ts = it->ts_ns;
	it->suppressed = e->suppressed;
	{
		size_t tn = e->thread_name != NULL ? strnlen(e->thread_name, e->thread_name_len) : 0;

		tn = tn < sizeof(it->tname) ? tn : sizeof(it->tname) - 1;
		put(it->tname, e->thread_name != NULL ? e->thread_name : "", tn);
	}
	p = (char *)(it + 1);
	p = put(p, file, fl);
	p = put(p, e->func != NULL ? e->func : "", fn);
	p = put(p, cl != 0 ? e->category : "", cl);
	memcpy(p, e->msg, e->msg_len);
	it->fields_off = 0;
	if (need != base) {
		it->fields_off = (uint32_t)base;
		llog__kv_list_write(e->fields, e->nfields, e->fields_truncated, (char *)it + base);
	}
	r->wr += need;
	r->n++;
}

int llog__backtrace_triggers(const struct llog__backtrace_ring *r, int level)
{
	return r != NULL && r->n != 0 && level >= r->trigger;
}

void llog__backtrace_emit(struct llog__backtrace_ring *r,
			  void (*fn)(void *ctx, struct llog_entry *e), void *ctx)
{
	struct item *it;

	while ((it = take_oldest(r)) != NULL) {
		const char *p = (const char *)(it + 1);
		struct llog_entry e;

		memset(&e, 0, sizeof(e));
		e.ts_ns = it->ts_ns;
		e.level = (enum llog_level)it->level;
		e.line = it->line;
		e.tid = it->tid;
		e.file = p;
		e.func = p + it->file_len + 1;
		e.category = it->cat_len != 0 ? p + it->file_len + 1 + it->func_len + 1 : NULL;
		e.category_len = it->cat_len;
		e.msg = p + it->file_len + 1 + it->func_len + 1 + it->cat_len + 1;
		e.msg_len = it->msg_len;
		e.thread_name = it->tname;
		e.thread_name_len = strlen(it->tname);
		e.suppressed = it->suppressed;
		e.backtrace = 1;
		if (it->fields_off != 0)
			llog__kv_list_entry((const char *)it + it->fields_off, r->fields, &e);
		llog__count(bt_written, 1);
		fn(ctx, &e);
	}
	r->rd = r->wr = 0;
	r->last_ts = INT64_MIN;
}

void llog__backtrace_clear(struct llog__backtrace_ring *r)
{
	llog__count(bt_discarded, r->n);
	r->n = 0;
	r->rd = r->wr = 0;
	r->last_ts = INT64_MIN;
}

size_t llog__backtrace_held(const struct llog__backtrace_ring *r)
{
	return r != NULL ? r->n : 0;
}
