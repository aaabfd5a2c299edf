/*
 * control.c - llog_init, llog_add_sink, llog_remove_sink, llog_flush,
 * llog_shutdown and the fork handlers: everything the control lock guards.
 * See control.h.
 *
 * fork(): prepare takes ctl_lock (no init/shutdown/add_sink is half done
 * when the address space is copied) and has the flusher stop between
 * rounds (the sinks' state is whole); the parent releases both. The child
 * starts with the list closed (the records in it, and in every sink's
 * buffers, are the parent's, which writes them), no flusher thread, and
 * the forking thread's ring emptied; each inherited sink's after_fork drops
 * the parent's pending data and connections. When llog ran in the parent,
 * the child's first LOG (or llog_flush/llog_init) starts a fresh flusher
 * with the inherited sinks (llog__control_resume_after_fork); until then
 * nothing runs. The other threads' arenas are the parent's: unused in the
 * child (their pages stay shared copy-on-write, never touched).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "backtrace.h"
#include "config.h"
#include "control.h"
#include "crash.h"
#include "flusher.h"
#include "fmt_cache.h"
#include "levels.h"
#include "queue.h"
#include "reload.h"
#include "ratelimit.h"
#include "sink.h"
#include "sinkq.h"

static pthread_mutex_t ctl_lock = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;
/* Set in the thread running llog_shutdown or a final round (sinks' close
 * callbacks run there and must not wait for the shutdown they are part
 * of), or the fork handlers. */
static __thread int in_ctl;
static int running;
static struct llog__flusher *the_flusher;
/* Sinks added while llog does not run, for the next llog_init. */
static struct llog__sinktab pending;
/* While running: sinks installed or on their way to the flusher. */
static int n_running_sinks;
/* While running: the stderr fallback llog_init made, until a sink is
 * added (the flusher then replaces it: llog__flusher_sinktab_install), else NULL. */
static struct llog_sink *fallback_sink;
static int registered; /* atexit and pthread_atfork */
/* Every sink llog owns now and its queue (or NULL), for
 * llog_get_sink_stats; and how many sinks were ever added (for names). */
static struct llog__sinktab owned;
static int n_added;
/* The sinks removed since llog_init (llog_remove_sink) and those the last
 * llog_shutdown closed (or left behind, stuck), oldest first, with their
 * final statistics, for llog_get_sink_stats until the next llog_init. A
 * shutdown's table always fits (closed_room drops the oldest removed
 * ones). The pointers are compared, never dereferenced (freed). */
#define CLOSED_MAX (2 * LLOG__MAX_SINKS)
static struct {
	const struct llog_sink *s[CLOSED_MAX];
	struct llog_sink_stats st[CLOSED_MAX];
	int n;
} closed;
/* In a fork child: 1 while the inherited flusher (the_flusher, sinks
 * included) waits to be started by the first use. Written under ctl_lock:
 * cleared (release) only after the list was opened or closed for good, so
 * a producer that reads 0 (acquire) and then reloads the head finds the
 * list as fork_resume left it; re-checked under the lock. */
static _Atomic int fork_restart;

void llog__control_wait_shutdown(void)
{
	if (in_ctl)
		return;
	pthread_mutex_lock(&ctl_lock);
	pthread_mutex_unlock(&ctl_lock);
}

static void own_exactly(const struct llog__sinktab *t);

/*
 * Under ctl_lock: starts f (its sinks installed). On failure, runs one
 * final round here (records may have been pushed since the list opened:
 * it closes the list, writes them, signals barriers), keeps f's sinks for
 * a later llog_init and frees f.
 */
static int start_flusher(struct llog__flusher *f)
{
	int rc = llog__flusher_start(f);

	if (rc != 0) {
		in_ctl = 1;
		llog__flusher_run_final(f);
		in_ctl = 0;
		pending = *llog__flusher_sinks(f);
		own_exactly(&pending); /* a sink whose thread was stuck is gone */
		llog__flusher_free(f);
		return rc;
	}
	the_flusher = f;
	n_running_sinks = llog__flusher_sinks(f)->n;
	fallback_sink = llog__flusher_sinks(f)->fallback ? llog__flusher_sinks(f)->s[0] : NULL;
	running = 1;
	return 0;
}

/* Forgets sink s in the `owned` table (closed, or forgotten). */
static void disown(const struct llog_sink *s)
{
	for (int i = 0; i < owned.n; i++) {
		if (owned.s[i] == s) {
			owned.s[i] = owned.s[--owned.n];
			owned.q[i] = owned.q[owned.n];
			return;
		}
	}
}

/* Under ctl_lock: room for n more in `closed` (n <= CLOSED_MAX): the
 * oldest go. */
static void closed_room(int n)
{
	int drop = closed.n + n - CLOSED_MAX;

	if (drop <= 0)
		return;
	memmove(&closed.s[0], &closed.s[drop], (size_t)(closed.n - drop) * sizeof(closed.s[0]));
	memmove(&closed.st[0], &closed.st[drop], (size_t)(closed.n - drop) * sizeof(closed.st[0]));
	closed.n -= drop;
}

/* Under ctl_lock, before t's sinks are closed (llog__flusher_sinktab_close
 * with the returned slots of closed.st): they move from `owned` to the end
 * of `closed`. */
static struct llog_sink_stats *keep_closing(const struct llog__sinktab *t)
{
	int base;

	closed_room(t->n);
	base = closed.n;
	for (int i = 0; i < t->n; i++) {
		closed.s[base + i] = t->s[i];
		disown(t->s[i]);
	}
	closed.n = base + t->n;
	return &closed.st[base];
}

/* Under ctl_lock: a sink added at the address of one in `closed` is a
 * new sink; the old one's statistics go. */
static void forget_closed(const struct llog_sink *s)
{
	for (int i = 0; i < closed.n; i++) {
		if (closed.s[i] == s) {
			closed.s[i] = closed.s[--closed.n];
			closed.st[i] = closed.st[closed.n];
			return;
		}
	}
}

/* `owned` is what t holds (t: the sinks of llog now). */
static void own_exactly(const struct llog__sinktab *t)
{
	owned = *t;
}

/* Closes t's stderr fallback (t not in the flusher's use: pending, or a
 * fork child's inherited table before its flusher starts). */
static void drop_fallback(struct llog__sinktab *t)
{
	struct llog_sink *fb = t->s[0];

	if (!t->fallback || t->n == 0)
		return;
	disown(fb);
	llog__sinkq_free(t->q[0]);
	fb->ops->close(fb);
	memmove(&t->s[0], &t->s[1], (size_t)(t->n - 1) * sizeof(t->s[0]));
	memmove(&t->q[0], &t->q[1], (size_t)(t->n - 1) * sizeof(t->q[0]));
	t->n--;
	t->fallback = 0;
}

/* Moves the pending sinks into t (closing those that do not fit): they
 * replace t's fallback; a pending fallback (kept from a failed start)
 * stays one in an empty t. */
static void take_pending(struct llog__sinktab *t)
{
	int fallback = pending.fallback && t->n == 0;

	if (pending.n > 0)
		drop_fallback(t);
	for (int i = 0; i < pending.n; i++) {
		if (llog__flusher_sinktab_add(t, pending.s[i], pending.q[i], &pending.sel[i]) != 0) {
			disown(pending.s[i]);
			llog__sinkq_free(pending.q[i]);
			pending.s[i]->ops->close(pending.s[i]);
		}
	}
	pending.n = 0;
	pending.fallback = 0;
	t->fallback = t->fallback || fallback;
}

/* Under ctl_lock, in a fork child whose inherited flusher waits: starts it
 * with the sinks added in the child too (or, with stop, closes the
 * inherited sinks instead). */
static int fork_resume(int stop)
{
	struct llog__flusher *f = the_flusher;
	int rc = 0;

	the_flusher = NULL;
	if (!stop) {
		take_pending(llog__flusher_sinks(f));
		rc = start_flusher(f);
	} else {
		in_ctl = 1;
		llog__flusher_sinktab_close(llog__flusher_sinks(f),
					    keep_closing(llog__flusher_sinks(f)));
		in_ctl = 0;
		llog__flusher_free(f);
	}
	/* Release: after start_flusher's release store that opened the list
	 * (see fork_restart). */
	llog__store_release(&fork_restart, 0);
	return rc;
}

/* The first use in a fork child: starts the inherited flusher. Returns
 * whether llog runs now. */
static int __attribute__((noinline, cold)) restart_after_fork(void)
{
	int ok;

	if (in_ctl || pthread_mutex_lock(&ctl_lock) != 0)
		return 0;
	/* Relaxed: written only under ctl_lock, which we hold. */
	if (llog__load_relaxed(&fork_restart))
		(void)fork_resume(0);
	ok = running;
	pthread_mutex_unlock(&ctl_lock);
	return ok;
}

int llog__control_resume_after_fork(void)
{
	/* Acquire: see fork_restart. */
	if (__builtin_expect(llog__load_acquire(&fork_restart), 0))
		return restart_after_fork();
	return 1;
}

/* ---- fork handlers -------------------------------------------------------- */

static int fork_locked, fork_round_locked;

static void atfork_prepare(void)
{
	fork_locked = !in_ctl;
	if (fork_locked)
		pthread_mutex_lock(&ctl_lock);
	/* Not from the flusher itself (a sink callback: it holds the round;
	 * documented as unsupported) nor without ctl_lock. */
	fork_round_locked = fork_locked && running && !llog__arena_thread_is_internal();
	if (fork_round_locked)
		llog__flusher_fork_prepare(the_flusher);
	/* Last: a levels writer holds set_lock without waiting for anything
	 * (the flusher's reload takes it within or outside its round). */
	llog__levels_fork_prepare();
}

static void atfork_parent(void)
{
	llog__levels_fork_parent();
	if (fork_round_locked)
		llog__flusher_fork_parent(the_flusher);
	if (fork_locked)
		pthread_mutex_unlock(&ctl_lock);
}

static void atfork_child(void)
{
	/* The flusher was between rounds (round lock), or is the forking
	 * thread (a sink callback, after its take), or there was none. */
	struct llist_node *inherited = llog__queue_after_fork(
		fork_round_locked || !running || llog__arena_thread_is_flusher());
	pthread_mutexattr_t at;

	llog__levels_fork_child();

	if (running && the_flusher != NULL) {
		llog__flusher_after_fork(the_flusher, inherited);
		n_running_sinks = llog__flusher_sinks(the_flusher)->n;
		own_exactly(llog__flusher_sinks(the_flusher));
		/* Relaxed: no other thread exists yet in the child. */
		llog__store_relaxed(&fork_restart, 1);
	}
	running = 0;
	llog__flusher_fork_child();
	llog__crash_after_fork();
	llog__arena_after_fork();
	pthread_mutexattr_init(&at);
	pthread_mutexattr_settype(&at, PTHREAD_MUTEX_ERRORCHECK);
	pthread_mutex_init(&ctl_lock, &at);
	pthread_mutexattr_destroy(&at);
	in_ctl = 0;
}

/* ---- the public calls -------------------------------------------------------- */

/* Whether a sink with these options runs on a thread of its own. */
static int wants_thread(const struct llog_sink *sink, const struct llog_sink_options *opt)
{
	if (opt->thread != LLOG_SINK_THREAD_AUTO)
		return opt->thread == LLOG_SINK_THREAD_OWN;
	return sink->ops->version >= 3 && (sink->ops->flags & LLOG_SINK_F_MAY_BLOCK) != 0;
}

/* Under ctl_lock: a new flusher with the pending sinks (a console sink on
 * stderr when none was added: the fallback, replaced by the first sink
 * added while it runs). */
static int make_flusher(struct llog__flusher **out)
{
	struct llog__flusher *f = llog__flusher_new();

	if (f == NULL)
		return -ENOMEM;
	if (pending.n == 0) {
		/* 1 s for a flush, and for the replacement by the first
		 * sink added (in a flusher round: a reader that stopped
		 * holds it up at most twice that, once) */
		static const struct llog_sink_options fb_opt = {.drain_timeout_ms = 1000,
								.name = "console"};
		struct llog_sink *s = llog_console_sink(NULL);
		struct llog__sinkq *q = NULL;

		/* On a pipe or socket, a queue and thread of its own, as
		 * llog_add_sink would give it (console.c); without the
		 * memory for one, on the flusher. */
		if (s != NULL && wants_thread(s, &fb_opt))
			q = llog__sinkq_new(s, &fb_opt, 0);
		if (s != NULL && llog__flusher_sinktab_add(&pending, s, q, NULL) == 0) {
			(void)llog__flusher_sinktab_add(&owned, s, q, NULL);
			pending.fallback = 1;
		} else {
			llog__sinkq_free(q);
		}
	}
	take_pending(llog__flusher_sinks(f));
	*out = f;
	return 0;
}

int llog_init(const struct llog_config *cfg)
{
	struct llog__flusher *f;
	int rc;

	pthread_mutex_lock(&ctl_lock);
	if (running) {
		rc = -EALREADY;
		goto out;
	}
	/* Relaxed: written only under ctl_lock, which we hold. A fork child
	 * calling llog_init before any LOG: its own configuration and sinks
	 * replace the inherited ones. */
	if (llog__load_relaxed(&fork_restart))
		(void)fork_resume(1);
	rc = llog__config_apply(cfg);
	closed.n = 0; /* the last shutdown's statistics go */
	if (rc == 0)
		rc = make_flusher(&f);
	if (rc == 0)
		rc = start_flusher(f);
	if (rc != 0)
		goto out;
	if (cfg != NULL && cfg->crash_handler_off)
		llog__crash_uninstall();
	else
		/* without memory: no handler */
		(void)llog__crash_install(cfg != NULL ? cfg->crash_timeout_ms : 0);
	if (!registered) {
		registered = 1;
		atexit(llog_shutdown);
		pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
	}
out:
	pthread_mutex_unlock(&ctl_lock);
	return rc;
}

/* Under ctl_lock, llog running: the sink travels to the flusher as a
 * control record, behind every record pushed before. */
static int push_sink(struct llog_sink *sink, struct llog__sinkq *q,
		     const struct llog__catsel *sel)
{
	struct llog__sink_rec *sr;

	sr = calloc(1, sizeof(*sr));
	if (sr == NULL)
		return -ENOMEM;
	sr->rec.kind = LLOG__K_SINK;
	sr->sink = sink;
	sr->q = q;
	sr->sel = *sel;
	/* CLOSED only from a sink's close callback during llog_shutdown, or
	 * after the flusher's own crash drain: no flusher will install it. */
	if (llog__push(&sr->rec) != 0) {
		free(sr);
		return -ECANCELED;
	}
	/* The first one replaces the fallback where the flusher installs it
	 * (llog__flusher_sinktab_install): the count stays. */
	if (fallback_sink != NULL) {
		disown(fallback_sink);
		fallback_sink = NULL;
	} else {
		n_running_sinks++;
	}
	return 0;
}

/* Under ctl_lock: the sinks accepted so far, wherever they are now (the
 * pending table, the flusher's table or on their way to it, and in a fork
 * child the inherited ones waiting for the restart). */
static int accepted_sinks(void)
{
	if (running)
		return n_running_sinks;
	/* Relaxed: written only under ctl_lock, which we hold. */
	if (llog__load_relaxed(&fork_restart) && the_flusher != NULL)
		return pending.n + llog__flusher_sinks(the_flusher)->n;
	return pending.n;
}

static int check_options(const struct llog_sink_options *opt, struct llog__catsel *sel)
{
	if ((unsigned)opt->thread > LLOG_SINK_THREAD_FLUSHER ||
	    (unsigned)opt->full > LLOG_QUEUE_BLOCK || opt->queue_bytes > ((size_t)1 << 34)) {
		llog__sink_set_error("llog_add_sink_opts: thread, full or queue_bytes out of range");
		return -EINVAL;
	}
	return llog__catsel_parse(opt->categories, sel);
}

/* Under ctl_lock: s (with q) is llog's now, installed or on its way. */
static int accept_sink(struct llog_sink *s, struct llog__sinkq *q, const struct llog__catsel *sel)
{
	int rc;

	if (!running)
		drop_fallback(&pending); /* kept from a failed start */
	rc = running ? push_sink(s, q, sel) : llog__flusher_sinktab_add(&pending, s, q, sel);

	if (rc == 0) {
		(void)llog__flusher_sinktab_add(&owned, s, q, NULL);
		forget_closed(s);
	}
	return rc;
}

int llog_add_sink_opts(struct llog_sink *sink, const struct llog_sink_options *opt)
{
	static const struct llog_sink_options defaults;
	struct llog__sinkq *q = NULL;
	struct llog__catsel sel;
	int rc;

	if (sink == NULL)
		return -EINVAL; /* a constructor's failure: its reason stays */
	if (opt == NULL)
		opt = &defaults;
	llog__sink_set_error("%s", "");
	rc = check_options(opt, &sel);
	/* Flags users have not are llog's own sinks' (sink.h): others'
	 * would be read as what they are not. */
	if (rc == 0 && sink->ops->version >= 3 && (sink->ops->flags & ~LLOG_SINK_F_MAY_BLOCK) != 0 &&
	    !llog__sink_is_own(sink->ops)) {
		llog__sink_set_error("llog_add_sink: the sink's ops declare flags %#x that are not "
				     "LLOG_SINK_F_* (sinks.h)",
				     sink->ops->flags & ~LLOG_SINK_F_MAY_BLOCK);
		rc = -EINVAL;
	}
	pthread_mutex_lock(&ctl_lock);
	if (rc == 0 && accepted_sinks() >= LLOG__MAX_SINKS)
		rc = -ENOSPC;
	if (rc == 0 && wants_thread(sink, opt)) {
		q = llog__sinkq_new(sink, opt, n_added + 1);
		if (q == NULL)
			rc = -ENOMEM;
	}
	if (rc == 0)
		rc = accept_sink(sink, q, &sel);
	if (rc == 0)
		n_added++;
	pthread_mutex_unlock(&ctl_lock);
	if (rc != 0) {
		llog__sinkq_free(q);
		sink->ops->close(sink);
	}
	return rc;
}

int llog_add_sink(struct llog_sink *sink)
{
	return llog_add_sink_opts(sink, NULL);
}

int llog_get_sink_stats(const struct llog_sink *sink, struct llog_sink_stats *out)
{
	int rc = -ENOENT;

	if (sink == NULL || out == NULL)
		return -EINVAL;
	pthread_mutex_lock(&ctl_lock);
	for (int i = 0; i < owned.n; i++) {
		if (owned.s[i] != sink)
			continue;
		memset(out, 0, sizeof(*out));
		if (owned.q[i] != NULL)
			llog__sinkq_stats(owned.q[i], out);
		rc = 0;
		break;
	}
	for (int i = 0; rc != 0 && i < closed.n; i++) {
		if (closed.s[i] == sink) {
			*out = closed.st[i];
			rc = 0;
		}
	}
	pthread_mutex_unlock(&ctl_lock);
	return rc;
}

/* Under ctl_lock, llog running: the removal travels to the flusher as a
 * control record, behind every record pushed before, and a barrier behind
 * it says when the flusher closed the sink. */
static int remove_running(struct llog_sink *sink, struct llog_sink_stats *final)
{
	struct llog__barrier b = {0};
	struct llog__sink_rec *sr;
	int rc;

	if (n_running_sinks <= 1)
		return -EBUSY; /* the last one: records would reach no sink */
	sr = calloc(1, sizeof(*sr));
	if (sr == NULL)
		return -ENOMEM;
	sr->rec.kind = LLOG__K_SINK;
	sr->rec.flags = LLOG__SINK_REMOVE;
	sr->sink = sink;
	/* CLOSED only after the flusher's own crash drain (no shutdown runs:
	 * we hold ctl_lock). */
	if (llog__push(&sr->rec) != 0) {
		free(sr);
		return -ECANCELED;
	}
	/* Signalled as soon as the flusher reaches it, after remove_sink
	 * (flusher.c) closed the sink and wrote sr->final and sr->rc: the
	 * acquire load of its done flag in llog__flusher_barrier_run pairs
	 * with the flusher's release store, so both are visible here. */
	b.rec.flags = LLOG__BARRIER_RENDERED;
	if (llog__flusher_barrier_run(&b, NULL, -1) < 0)
		return -ECANCELED; /* a crash drain closed the list: sr is its */
	rc = sr->rc;
	*final = sr->final;
	free(sr);
	if (rc == 0)
		n_running_sinks--;
	return rc;
}

/* Under ctl_lock, llog not running: sink leaves the pending table, closed
 * here (its queue's thread never ran: its counters are final). */
static int remove_pending(struct llog_sink *sink, struct llog_sink_stats *final)
{
	for (int i = 0; i < pending.n; i++) {
		if (pending.s[i] == sink && !(i == 0 && pending.fallback)) {
			llog__flusher_sinktab_remove(&pending, i, final);
			return 0;
		}
	}
	return -ENOENT;
}

int llog_remove_sink(struct llog_sink *sink)
{
	struct llog_sink_stats final;
	int rc = -ENOENT;

	if (sink == NULL)
		return -EINVAL;
	/* A sink's callback (on the flusher or its own thread) or a close
	 * callback in llog_shutdown: the removal would wait for itself. */
	if (in_ctl || llog__arena_thread_is_internal())
		return -EDEADLK;
	if (pthread_mutex_lock(&ctl_lock) != 0)
		return -EDEADLK;
	/* Relaxed: written only under ctl_lock, which we hold. A fork child
	 * whose inherited flusher waits: started first, as a LOG would. */
	if (llog__load_relaxed(&fork_restart))
		(void)fork_resume(0);
	for (int i = 0; i < owned.n; i++) {
		if (owned.s[i] != sink || (running && sink == fallback_sink))
			continue;
		rc = running ? remove_running(sink, &final) : remove_pending(sink, &final);
		break;
	}
	if (rc == 0) {
		disown(sink);
		closed_room(1);
		closed.s[closed.n] = sink;
		closed.st[closed.n++] = final;
	}
	pthread_mutex_unlock(&ctl_lock);
	return rc;
}

void llog_flush(void)
{
	struct llog__barrier b = {0};

	if (llog__arena_thread_is_internal() || !llog__control_resume_after_fork())
		return;
	/* Closed: not running (everything is synchronous), or a shutdown is
	 * draining the last round; then wait for it, so that what was pushed
	 * before this call is committed. */
	if (llog__flusher_barrier_run(&b, NULL, -1) < 0)
		llog__control_wait_shutdown();
}

int llog_backtrace_dump(void)
{
	struct llog__barrier b = {0};

	if (llog__arena_thread_is_internal())
		return -EDEADLK;
	if (!llog__control_resume_after_fork())
		return -ESRCH;
	/* Relaxed: as the call sites' loads (backtrace.h); only whether the
	 * configuration in force has a ring. */
	if (llog__load_relaxed((_Atomic int *)&llog__backtrace_level) == LLOG_OFF)
		return -ENOENT;
	b.rec.flags = LLOG__BARRIER_BT_DUMP;
	if (llog__flusher_barrier_run(&b, NULL, -1) < 0) {
		/* Closed: a shutdown discards the ring (or already did). */
		llog__control_wait_shutdown();
		return -ESRCH;
	}
	return 0;
}

/*
 * The destructor llog/detail.h gives every shared object
 * (llog__dso_fini_tu):
 * waits until every record pushed before the call was rendered and handed
 * to the sinks (a barrier signalled when the flusher reaches it, without
 * waiting for a commit or for the sinks' own threads, which copy what they
 * keep). *done (per shared object, hidden) makes that one wait per object:
 * its destructors run one after another on one thread (dlclose's or
 * exit's), so a plain int is enough.
 */
void llog__dso_fini(int *done)
{
	struct llog__barrier b = {0};

	if (done != NULL) {
		if (*done)
			return;
		*done = 1;
		/* The object's rate-limited sites leave the registry before
		 * it is unmapped (ratelimit.h): done lies in the object. */
		llog__rl_forget_object(done, llog__arena_thread_is_internal());
	}
	/* On the flusher (a sink callback) or a sink's thread: waiting here
	 * for the flusher could wait for ever (llog.h says what is then not
	 * protected). */
	if (!llog__arena_thread_is_internal()) {
		b.rec.flags = LLOG__BARRIER_RENDERED;
		/* Closed (not running, at exit after llog_shutdown, a
		 * shutdown in progress, a fork child before its restart):
		 * only wait for a shutdown in progress, whose final round
		 * renders what it took. */
		if (llog__flusher_barrier_run(&b, NULL, -1) < 0)
			llog__control_wait_shutdown();
	}
	/* The flusher's compiled formats point into the object's formats:
	 * dropped once its records are rendered, before it is unmapped
	 * (fmt_cache.h). */
	llog__fmt_cache_invalidate();
}

void llog_shutdown(void)
{
	struct llog__flusher *f;

	if (llog__arena_thread_is_internal())
		return;
	pthread_mutex_lock(&ctl_lock);
	if (!running) {
		/* Relaxed: written only under ctl_lock, which we hold. */
		if (llog__load_relaxed(&fork_restart))
			(void)fork_resume(1);
		pthread_mutex_unlock(&ctl_lock);
		return;
	}
	in_ctl = 1;
	/* No flusher of record while the sinks close: a fork() from a close
	 * callback (in_ctl: the handlers skip the lock) must not hand the
	 * closing sinks to the child. */
	f = the_flusher;
	the_flusher = NULL;
	llog__flusher_stop(f);
	llog__reload_stop();
	llog__flusher_sinktab_close(llog__flusher_sinks(f), keep_closing(llog__flusher_sinks(f)));
	llog__flusher_free(f);
	owned.n = 0;
	n_running_sinks = 0;
	fallback_sink = NULL;
	running = 0;
	pthread_mutex_unlock(&ctl_lock);
	in_ctl = 0;
	llog__arena_release_self();
}

void llog_sink_destroy(struct llog_sink *sink)
{
	if (sink != NULL)
		sink->ops->close(sink);
}
