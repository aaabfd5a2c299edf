/*
 * kvsink.h - a callback sink for the fields tests (test-only, header-only):
 * keeps a deep copy of every entry's message, thread and fields. Entries
 * are appended by the sink's thread (the flusher, or its own); tests read
 * them after llog_flush()/llog_shutdown(), which order those writes before
 * the reads.
 */
#ifndef LLOG_TEST_KVSINK_H
#define LLOG_TEST_KVSINK_H

#include <stdlib.h>
#include <string.h>

#include "llog.h"
#include "llog/sinks.h"

struct kv_field {
	char key[LLOG_FIELD_KEY_MAX + 1];
	enum llog_field_type type;
	unsigned flags;
	int64_t i64;
	uint64_t u64;
	double f64;
	int b;
	char *str; /* malloc'd copy, str_len bytes + NUL */
	size_t str_len;
};

struct kv_entry {
	char msg[128];
	uint64_t tid;
	int level;
	size_t nfields;
	uint32_t fields_truncated;
	struct kv_field f[LLOG_FIELDS_MAX];
};

struct kvsink {
	struct kv_entry *e;
	size_t n, cap;
};

static inline void kvsink_on_entry(void *user, const struct llog_entry *e)
{
	struct kvsink *s = user;
	struct kv_entry *k;
	size_t m;

	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 64;
		s->e = realloc(s->e, s->cap * sizeof(*s->e));
		if (s->e == NULL)
			abort();
	}
	k = &s->e[s->n++];
	memset(k, 0, sizeof(*k));
	m = e->msg_len < sizeof(k->msg) - 1 ? e->msg_len : sizeof(k->msg) - 1;
	if (e->msg != NULL)
		memcpy(k->msg, e->msg, m);
	k->tid = e->tid;
	k->level = (int)e->level;
	k->nfields = e->nfields;
	k->fields_truncated = e->fields_truncated;
	for (size_t i = 0; i < e->nfields && i < LLOG_FIELDS_MAX; i++) {
		const struct llog_field *f = &e->fields[i];
		struct kv_field *d = &k->f[i];

		if (f->key_len > LLOG_FIELD_KEY_MAX || strlen(f->key) != f->key_len)
			abort(); /* key_len bytes, NUL-terminated (llog.h) */
		memcpy(d->key, f->key, f->key_len);
		d->type = f->type;
		d->flags = f->flags;
		switch (f->type) {
		case LLOG_FIELD_I64: d->i64 = f->v.i64; break;
		case LLOG_FIELD_U64: d->u64 = f->v.u64; break;
		case LLOG_FIELD_F64: d->f64 = f->v.f64; break;
		case LLOG_FIELD_BOOL: d->b = f->v.b; break;
		case LLOG_FIELD_STR:
			if (f->v.str.ptr[f->v.str.len] != '\0')
				abort(); /* NUL-terminated (llog.h) */
			d->str = malloc(f->v.str.len + 1);
			if (d->str == NULL)
				abort();
			memcpy(d->str, f->v.str.ptr, f->v.str.len + 1);
			d->str_len = f->v.str.len;
			break;
		default: break;
		}
	}
}

static inline void kvsink_reset(struct kvsink *s)
{
	for (size_t i = 0; i < s->n; i++)
		for (size_t j = 0; j < s->e[i].nfields; j++)
			free(s->e[i].f[j].str);
	free(s->e);
	memset(s, 0, sizeof(*s));
}

/* Adds a callback sink writing into s (own: on a thread of its own). */
static inline int kvsink_add(struct kvsink *s, int own)
{
	struct llog_callback_options o = {.on_entry = kvsink_on_entry, .user = s};
	struct llog_sink *sink = llog_callback_sink(&o);

	if (own) {
		struct llog_sink_options so = {0};

		so.thread = LLOG_SINK_THREAD_OWN;
		so.full = LLOG_QUEUE_BLOCK;
		return llog_add_sink_opts(sink, &so);
	}
	return llog_add_sink(sink);
}

/* The field named key of entry k, or NULL. */
static inline const struct kv_field *kv_get(const struct kv_entry *k, const char *key)
{
	for (size_t i = 0; i < k->nfields; i++)
		if (strcmp(k->f[i].key, key) == 0)
			return &k->f[i];
	return NULL;
}

#endif /* LLOG_TEST_KVSINK_H */
