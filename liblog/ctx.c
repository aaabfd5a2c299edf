/*
 * ctx.c - a thread's context (docs/fields.md 2): llog_ctx_set_* and
 * friends, LLOG_CTX_SCOPE.
 *
 * DESIGN
 * The owner keeps its context as a field list (kv.h) in its arena
 * (arena.h: ctx) and, after every change, pushes the whole list as a CTX
 * record in its own record stream (producer_thread.c: llog__ctx_push); the
 * flusher copies it into the arena's fl_ctx when it reaches it and renders
 * every later record of the thread with it. So the records a thread
 * logged before a change carry the old context and those after it the
 * new one, exactly, without copying the context into each record. A list
 * is at most LLOG__CTX_BYTES_MAX bytes (16 keys, 2 KiB of keys and string
 * values): a change costs one record of that size at most, on the owner
 * only, off the LOG path.
 *
 *   order of the list = order in which the keys were first set
 *   a change that could not be pushed (DROP) => ctx_dirty, pushed again
 *   before the thread's next record (producer.c, producer_thread.c)
 */
#include <errno.h>
#include <stdatomic.h>
#include <string.h>

#include "arena.h"
#include "kv.h"
#include "ctx.h"
#include "stats.h"

_Static_assert(LLOG__CTX_LIST_MAX <= LLOG__CTX_BYTES_MAX, "a context list fits its arena copy");

/* The owner's context as fields (pointing into a->ctx). */
static size_t ctx_fields(const struct llog__arena *a, struct llog_field *f, uint32_t *refused)
{
	struct llog_entry e;

	llog__kv_list_entry(a->ctx, f, &e);
	memcpy(refused, a->ctx + offsetof(struct llog__kv_list, refused), sizeof(*refused));
	return e.nfields;
}

static int find(const struct llog_field *f, size_t n, const char *key, size_t klen)
{
	for (size_t i = 0; i < n; i++)
		if (f[i].key_len == klen && memcmp(f[i].key, key, klen) == 0)
			return (int)i;
	return -1;
}

/* Bytes a context's limit counts: keys and string values. */
static size_t counted(const struct llog_field *f, size_t n)
{
	size_t b = 0;

	for (size_t i = 0; i < n; i++)
		b += f[i].key_len + (f[i].type == LLOG_FIELD_STR ? f[i].v.str.len : 0);
	return b;
}

/* Writes f[0..n) as the owner's new list, refused kept, and pushes it. */
static int commit(struct llog__arena *a, const struct llog_field *f, size_t n, uint32_t refused)
{
	unsigned char tmp[LLOG__CTX_BYTES_MAX] __attribute__((aligned(8)));

	llog__kv_list_write(f, n, 0, tmp);
	memcpy(tmp + offsetof(struct llog__kv_list, refused), &refused, sizeof(refused));
	memcpy(a->ctx, tmp, sizeof(tmp));
	return llog__ctx_push(a);
}

/*
 * The calling thread's arena for a change, or NULL with *rc set. On success
 * the thread's in_log is set until done(): a signal handler that logs meanwhile is
 * refused (its record counted as not logged, as in any LOG it interrupts)
 * instead of reading a->ctx while this change rewrites it (the DROP resend
 * and the synchronous path read it). The compiler fences keep every access
 * to a->ctx between the two in_log stores; the handler runs on this thread,
 * so no hardware ordering is needed. The synchronous path (llog not
 * running: sync.c) is taken before the in_log check: it reads ctx_busy.
 */
static struct llog__arena *owner(int *rc)
{
	struct llog__own *o = llog__owner();
	struct llog__arena *a;

	*rc = 0;
	if (llog__arena_thread_is_internal())
		return NULL; /* llog's own threads: no context */
	if (o->in_log) {
		/* a signal handler inside this thread's LOG (or inside the
		 * making of its arena) */
		*rc = -EAGAIN;
		return NULL;
	}
	a = llog__arena_get();
	if (a == NULL) {
		*rc = -ENOMEM;
		return NULL;
	}
	o->in_log = 1;
	o->ctx_busy = 1;
	atomic_signal_fence(memory_order_seq_cst);
	return a;
}

/* Ends a change begun by owner(); returns rc. */
static int done(int rc)
{
	struct llog__own *o = llog__owner();

	atomic_signal_fence(memory_order_seq_cst);
	o->ctx_busy = 0;
	o->in_log = 0;
	return rc;
}

/* Sets key to nf (its key is filled here). */
static int set(const char *key, struct llog_field nf)
{
	struct llog_field f[LLOG_CTX_KEYS + 1];
	struct llog__arena *a;
	uint32_t refused;
	size_t n, klen;
	int rc, i;

	if (key == NULL)
		return -EINVAL;
	klen = strnlen(key, LLOG_FIELD_KEY_MAX + 1);
	if (klen == 0 || klen > LLOG_FIELD_KEY_MAX)
		return -EINVAL;
	if ((a = owner(&rc)) == NULL)
		return rc;
	nf.key = key;
	nf.key_len = klen;
	n = ctx_fields(a, f, &refused);
	i = find(f, n, key, klen);
	if (i >= 0)
		f[i] = nf; /* in place: its key was first set earlier */
	else if (n < LLOG_CTX_KEYS)
		f[n++] = nf;
	else
		goto full;
	if (counted(f, n) > LLOG_CTX_BYTES)
		goto full;
	return done(commit(a, f, n, refused));
full:
	/* Refused: counted here and shown by every record until a clear. */
	n = ctx_fields(a, f, &refused);
	llog__count(fields_truncated, 1);
	(void)commit(a, f, n, refused + 1);
	return done(-ENOSPC);
}

int llog_ctx_set_i64(const char *key, int64_t v)
{
	struct llog_field f = {.type = LLOG_FIELD_I64, .v.i64 = v};

	return set(key, f);
}

int llog_ctx_set_u64(const char *key, uint64_t v)
{
	struct llog_field f = {.type = LLOG_FIELD_U64, .v.u64 = v};

	return set(key, f);
}

int llog_ctx_set_f64(const char *key, double v)
{
	struct llog_field f = {.type = LLOG_FIELD_F64, .v.f64 = v};

	return set(key, f);
}

int llog_ctx_set_bool(const char *key, int v)
{
	struct llog_field f = {.type = LLOG_FIELD_BOOL, .v.b = v != 0};

	return set(key, f);
}

int llog_ctx_set_str(const char *key, const char *v)
{
	struct llog_field f = {.type = LLOG_FIELD_NULL};
	int cut;

	if (v != NULL) {
		f.type = LLOG_FIELD_STR;
		f.v.str.ptr = v;
		f.v.str.len = llog__kv_str_len(v, &cut);
		f.flags = cut ? LLOG_FIELD_TRUNCATED : 0;
	}
	return set(key, f);
}

int llog_ctx_set_hex(const char *key, const void *p, size_t len)
{
	static const char digits[] = "0123456789abcdef";
	struct llog_field f = {.type = LLOG_FIELD_NULL};
	char d[2 * LLOG_HEX_MAX];

	if (p != NULL) {
		size_t n = len < LLOG_HEX_MAX ? len : LLOG_HEX_MAX;
		const unsigned char *b = p;

		for (size_t i = 0; i < n; i++) {
			d[2 * i] = digits[b[i] >> 4];
			d[2 * i + 1] = digits[b[i] & 15];
		}
		f.type = LLOG_FIELD_STR;
		f.v.str.ptr = d;
		f.v.str.len = 2 * n;
		f.flags = LLOG_FIELD_HEX | (len > n ? LLOG_FIELD_TRUNCATED : 0);
	}
	return set(key, f);
}

int llog_ctx_remove(const char *key)
{
	struct llog_field f[LLOG_CTX_KEYS];
	struct llog__arena *a;
	uint32_t refused;
	size_t n;
	int rc, i;

	if (key == NULL)
		return -EINVAL;
	if ((a = owner(&rc)) == NULL)
		return rc;
	n = ctx_fields(a, f, &refused);
	i = find(f, n, key, strlen(key));
	if (i < 0)
		return done(-ENOENT);
	memmove(&f[i], &f[i + 1], (n - (size_t)i - 1) * sizeof(f[0]));
	return done(commit(a, f, n - 1, refused));
}

int llog_ctx_clear(void)
{
	struct llog__arena *a;
	int rc;

	if ((a = owner(&rc)) == NULL)
		return rc;
	return done(commit(a, NULL, 0, 0));
}

void llog__ctx_scope_enter(struct llog__ctx_scope *s, const char *key)
{
	struct llog_field f[LLOG_CTX_KEYS];
	struct llog__arena *a = llog__arena_mine();
	uint32_t refused;
	size_t n;
	int i;

	s->key = key;
	s->had = 0;
	if (a == NULL || key == NULL)
		return;
	n = ctx_fields(a, f, &refused);
	i = find(f, n, key, strlen(key));
	if (i < 0)
		return;
	s->had = 1;
	/* a string's flags (a hex dump, a cut value) above its type's byte */
	s->type = (int)f[i].type | (f[i].type == LLOG_FIELD_STR ? (int)(f[i].flags << 8) : 0);
	switch (f[i].type) {
	case LLOG_FIELD_STR:
		memcpy(s->str, f[i].v.str.ptr, f[i].v.str.len);
		s->str[f[i].v.str.len] = '\0';
		break;
	case LLOG_FIELD_BOOL:
		s->v.u = (uint64_t)f[i].v.b;
		break;
	default:
		memcpy(&s->v, &f[i].v, sizeof(s->v));
	}
}

void llog__ctx_scope_leave(struct llog__ctx_scope *s)
{
	if (!s->had) {
		(void)llog_ctx_remove(s->key);
		return;
	}
	switch (s->type & 0xff) {
	case LLOG_FIELD_I64:
		(void)llog_ctx_set_i64(s->key, s->v.i);
		break;
	case LLOG_FIELD_U64:
		(void)llog_ctx_set_u64(s->key, s->v.u);
		break;
	case LLOG_FIELD_F64:
		(void)llog_ctx_set_f64(s->key, s->v.d);
		break;
	case LLOG_FIELD_BOOL:
		(void)llog_ctx_set_bool(s->key, (int)s->v.u);
		break;
	case LLOG_FIELD_STR: {
		struct llog_field f = {.type = LLOG_FIELD_STR, .flags = (unsigned)s->type >> 8};

		f.v.str.ptr = s->str;
		f.v.str.len = strlen(s->str);
		(void)set(s->key, f);
		break;
	}
	default:
		(void)llog_ctx_set_str(s->key, NULL);
	}
}
