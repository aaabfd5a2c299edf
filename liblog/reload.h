/*
 * reload.h - re-reading the level spec at run time: a levels file checked
 * by the flusher, a signal that asks for it (internal).
 *
 * DESIGN
 * Opt-in (llog_config.levels_file, LLOG_LEVEL_FILE, levels_signal). The
 * file is read once by llog_init (llog__reload_configure) and then only
 * by the flusher (llog__reload_poll, once per round, before the commit),
 * so its state (path, last stat, last content) has one owner at a time:
 * llog_init and llog_shutdown under the control lock while no flusher
 * runs, the flusher thread otherwise.
 *
 * When the flusher looks: a round checks when interval_ms (the flusher's
 * flush_interval_ms, passed in) has passed since its last check, when the
 * round carries a barrier (llog_flush), or when `requested` is set. stat(2) first: the same inode, device, size and
 * modification time as last time means no change (unless requested). Else
 * the content is read (at most 64 KiB: a larger file is refused whole,
 * an error as a malformed one) and, when it differs from the last
 * content read (or was requested), applied with llog__levels_apply. The
 * change, or the error with the old spec kept, is written by the flusher
 * as an entry of category "llog" (INFO or ERROR) in the round's output.
 *
 * The request: llog_levels_reload_request (async-signal-safe) stores
 * requested = 1 (relaxed) and calls llog__wake_flusher, whose seq_cst
 * fence precedes its load of `pending`: either that load sees the
 * flusher's F1 (pending = 0, then its fence) and wakes it, or the
 * flusher's next round, after F1, sees requested = 1 (queue.h's Dekker,
 * with the flag in place of a push). The flusher takes it with an
 * exchange.
 */
#ifndef LLOG_RELOAD_H
#define LLOG_RELOAD_H

#include "llog.h"
#include "llog/sinks.h"

/* llog_init: the levels file (file: NULL: none; LLOG_LEVEL_FILE
 * overrides) and the signal (0: none). Validates first: -EINVAL (nothing
 * changed) for a signal without a file or out of range, -EBUSY (and a line
 * on stderr) for a signal whose action is a handler of the application's
 * (llog never replaces one; its own, in a fork child's restart, is fine);
 * then reads the
 * file and applies it (a malformed file or one that is not a regular file:
 * a line on stderr, the levels stay; a missing one: nothing), installs the
 * signal's handler. env_spec: the LLOG_LEVEL spec the caller applied, or
 * NULL; with a file too, one line on stderr says which is in force (the
 * file, when it was applied). -ENOMEM. Under the control lock, no flusher
 * running. */
int llog__reload_validate(const char *file, int sig);
int llog__reload_configure(const char *file, int sig, const char *env_spec);

/* llog_shutdown, after the flusher stopped: puts the signal's previous
 * action back. */
void llog__reload_stop(void);

/* The flusher, once per round: checks the file as described above and
 * hands the entry it makes, if any, to emit. Returns the entries made
 * (0 or 1). */
unsigned llog__reload_poll(int flushing, unsigned interval_ms,
			   void (*emit)(void *ctx, struct llog_entry *e), void *ctx);

#endif /* LLOG_RELOAD_H */
