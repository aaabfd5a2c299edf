/*
 * file_writer.c - the file sink's writer: a thread of the sink's own that
 * compresses and writes the chunks an ordinary round's commit hands it,
 * so that the flusher goes on with the next round meanwhile.
 *
 * DESIGN
 * Compression is most of what the flusher spends on a record of a file
 * sink (zstd, about half of a text record's instructions: bench/README.md,
 * flusher_cost.sh). The writer takes it, and the write(2), off the flusher:
 * the flusher formats records into chunks (file.c) and, at the commit of an
 * ordinary round (llog__sink_commit_may_defer), hands every pending chunk
 * over and returns. Every other commit (a round with barriers: llog_flush,
 * LOG_FATAL, a crash record; the final round; every commit with fsync,
 * which the writer calls after the last chunk; close) hands them over
 * too and waits for the writer, so what was committed is in the file when
 * those return, as without a writer, and the flusher never waits inside
 * write(2) itself (see "Stalls"). The writer starts at the first commit or
 * full chunk that hands it anything, in the flusher, whose signal mask it
 * inherits (every signal blocked but the crash handler's); a sink on a
 * thread of its own never starts one (that thread writes, bounded by its
 * queue's drain timeout), nor one with LLOG_FILE_WRITER_FLUSHER.
 *
 * Ownership. ch[0, target) are handed: the writer writes them in order,
 * ch[0, done) of them are written. While anything is handed the writer
 * owns those chunks, the bytes of fs->in they cover and the file (fd,
 * rotation, the binary sites frames, compression); the flusher owns the
 * chunks after them, appends records after their bytes, and touches
 * nothing of the writer's. When the writer has finished (done == target)
 * or stopped at an error (failed), it touches nothing of the sink until
 * the next poke: the flusher's collect then drops the chunks written
 * (fs->in's pending bytes start after them: in_base; the commit moves the
 * rest down once past half the buffer, with nothing handed), notes the
 * error, and takes back what was not
 * written (target = done = 0): the next commit hands it again, oldest
 * first, as a commit without a writer retries. A binary chunk carries the
 * site ids and the bytes of their definitions allocated up to its end
 * (file.h), so the writer reads only definitions made before the chunk
 * was handed while the flusher defines more.
 *
 * Handshake. poke counts the flusher's requests (a hand, the crash path's,
 * the stop): the writer sleeps on it (futex) and serves each new value
 * once, reading target and done then (a wake-up without a new poke reads
 * nothing: the flusher resets them without one). progress counts the
 * writer's reports (each chunk written, each poke served, the second
 * with a wake-up): the flusher's waits sleep on it. Orders: the flusher's
 * release store of target pairs
 * with the writer's acquire load (the chunks below target are complete,
 * and done is the flusher's reset when it was reset); the writer's release
 * stores of done and failed pair with the flusher's acquire loads in
 * collect (the chunks written, the file's state and rc are final). The
 * writer checks, before each chunk, that no poke came since it read target
 * (else it starts over: the flusher may have taken chunks back).
 *
 * The crash path (on the flusher, or the crash drain): the chunks handed
 * are complete and stable whatever the crash interrupted, so the writer
 * first finishes them (at most a second in all); then quit = 2 retires it
 * for good (a Dekker pair on busy and quit, both seq_cst: it takes no
 * further chunk; one it is inside gets a tenth of a second more), the
 * chunks it wrote leave the pending ones, and the crash path writes the
 * rest as raw frames and forgets them (file.c). After a recovered crash
 * the flusher writes the sink's frames itself. A writer still inside a
 * chunk after that (a write(2) stuck on a full or dead file system) is
 * abandoned: the crash path writes nothing more to that file (its
 * descriptor may be mid-rotation, a short write's cut-back may be under
 * way), the other sinks get the records, and the sink takes nothing more
 * and is never freed (its writer may still touch it).
 *
 * An application thread's crash (the writer's own included: a fault in
 * zstd) is reported by the flusher's ordinary round with the crash record,
 * whose commit waits for the writer. While a crash is reported every wait
 * of the flusher for the writer is bounded (collect): llog__crash_sink_wait_ms
 * (1 s by default) in all until the writer finishes again. A writer stuck
 * in write(2) (a dead file system), or crashed, then keeps what it holds,
 * the chunks after them are handed to it too (in order, should it ever
 * return), the commit reports an error, and the other sinks commit the
 * crash record within the report's time; what the file sink had pending is
 * lost (docs/crash-handling.md). The flusher's waits sleep 10 ms at a time,
 * so one that began before the crash notices it.
 *
 * Stalls. Outside a crash report, a wait of the flusher's for the writer
 * (a barrier round's commit, a full backlog, close) counts the time the
 * writer makes no progress (its progress counter unchanged, 10 ms a
 * slice; it moves with each chunk written, so a slow file system that
 * takes a while for each of many chunks handed at once is not a stalled
 * one); at the sink's stall timeout (llog_file_options.stall_timeout_ms,
 * 10 s by default) the writer is declared stalled, said once on stderr
 * (as its end is: llog__diag_always, outside the library's rate limit,
 * which another line in the same second would otherwise drop them to for
 * good; a stall takes at least a slice of waiting, so at most two lines
 * a slice), and from then on every wait gives up at once until the counter moves:
 * the commit hands the later chunks to the writer too (in order) and
 * fails with ETIMEDOUT, a record with no room left in the backlog is
 * counted lost (stall_lost, said when the stall ends), and close leaves
 * the writer in its chunk (abandoned: the sink is never freed) and counts
 * what it has not written yet as lost (not the chunks before done, in
 * the file already). So a dead file system costs a process one stall
 * timeout, once, and never wedges llog_flush, LOG_FATAL, fork, exit or
 * llog_shutdown. Waits that end because the writer finished end the
 * stall too. The count is in slices, not clock time: a wake-up without
 * progress (the futex's spurious ones) counts a whole slice, so a stall
 * is declared early rather than never.
 *
 * Fork: the child has no writer (after_fork forgets it with the parent's
 * pending chunks); its first ordinary commit starts one. fork() does not
 * wait for the parent's writer (the flusher's round lock does not cover
 * it): a child that caught it inside a chunk (busy) opens the path again
 * before its first frame rather than trust a descriptor or a rotation
 * caught half-made.
 *
 * CPUs: the writer is started by the flusher and runs where the flusher
 * may run (llog_config.flusher_cpus); pinned to one CPU, the two share it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "crash.h"
#include "sink.h"
#include "file.h"

/* The chunks handed when the writer read `seen` of poke, from done on, in
 * order; stops at the first error, at a crash, or at the next poke. */
static void write_handed(struct llog__file_sink *fs, uint32_t seen)
{
	struct llog__file_writer *w = &fs->w;
	/* Acquire: pairs with the flusher's release store in
	 * llog__file_writer_hand: the chunks below t are complete; done is
	 * the flusher's reset (collect) when it was reset before. */
	uint32_t t = llog__load_acquire(&w->target);
	uint32_t d = llog__load_relaxed(&w->done);

	while (d < t) {
		int rc;

		/* Seq_cst, with the load of quit: the crash path stores quit
		 * and then loads busy, so either it sees busy and waits for
		 * this chunk, or this sees quit and takes no chunk. Acquire
		 * for poke: a poke since `seen` may have taken chunks back. */
		llog__store_seq_cst(&w->busy, 1);
		if (llog__load_seq_cst(&w->quit) != 0 || llog__load_acquire(&w->poke) != seen) {
			llog__store_release(&w->busy, 0);
			return;
		}
		rc = llog__file_write_chunk(fs, &fs->ch[d], &w->chunk_max);
		if (rc < 0) {
			w->rc = rc;
			/* Release: pairs with the acquire load in collect (rc,
			 * the chunk as it is left, the file's state). */
			llog__store_release(&w->failed, 1);
		} else {
			/* With fsync, the last chunk handed is done once the
			 * file is synced (the commit waits for both); an
			 * error then is noted with every chunk written:
			 * failed before done, which collect reads after it. */
			if (d + 1 == t && fs->do_fsync && fs->fd >= 0 && fsync(fs->fd) != 0) {
				w->rc = -errno;
				/* Release: as above. */
				llog__store_release(&w->failed, 1);
			}
			/* Release: as above, for the chunk written. */
			llog__store_release(&w->done, ++d);
			/* A chunk written is progress (a slow file system is
			 * not a stalled one, DESIGN "Stalls"). Release: as in
			 * writer_main. No wake: a waiting flusher sees it
			 * within its slice, the last one is woken. */
			llog__fetch_add_release(&w->progress, 1);
		}
		/* Release: pairs with the crash path's seq_cst load (the
		 * chunk's state is final when it reads 0). */
		llog__store_release(&w->busy, 0);
		if (rc < 0 || llog__load_relaxed(&w->failed))
			return;
	}
}

static void *writer_main(void *arg)
{
	struct llog__file_sink *fs = arg;
	struct llog__file_writer *w = &fs->w;

	/* Pokes are served once each: a wake-up without a new one (a futex
	 * may wake spuriously) reads nothing, since the flusher may be
	 * resetting done and target without a poke (take_back). */
	uint32_t served = llog__load_relaxed(&w->poke);

	llog__thread_up(&w->started, "llog-file");
	for (;;) {
		/* Acquire: pairs with the flusher's release increments of
		 * poke (what it did before them is seen below). */
		uint32_t seen = llog__load_acquire(&w->poke), quit;

		if (seen == served) {
			llog__futex_wait(&w->poke, seen, 0);
			continue;
		}
		served = seen;
		quit = llog__load_acquire(&w->quit);
		if (quit == 1)
			break;
		/* Relaxed: failed is ours until collect clears it, before
		 * the poke just read. quit 2: the crash path's, for good. */
		if (quit == 0 && !llog__load_relaxed(&w->failed))
			write_handed(fs, seen);
		/* Release: a waiter's acquire load of progress sees what
		 * write_handed stored. */
		llog__fetch_add_release(&w->progress, 1);
		llog__futex_wake(&w->progress, 1);
	}
	return NULL;
}

/* The handshake's words as at the start. Relaxed: no writer runs (a
 * thread started after this is ordered after it by pthread_create). */
static void reset_words(struct llog__file_writer *w)
{
	llog__store_relaxed(&w->target, 0);
	llog__store_relaxed(&w->done, 0);
	llog__store_relaxed(&w->failed, 0);
	llog__store_relaxed(&w->busy, 0);
	llog__store_relaxed(&w->quit, 0);
	llog__store_relaxed(&w->started, 0);
}

/* Starts the writer: 0, or -1 (diagnosed once; the flusher writes). */
static int start(struct llog__file_sink *fs)
{
	struct llog__file_writer *w = &fs->w;
	int rc;

	if (w->refused)
		return -1;
	reset_words(w);
	w->chunk_max = fs->chunk_max;
	/* In the flusher (file_commit): the thread inherits its signal mask
	 * (every signal blocked but the crash handler's). */
	rc = pthread_create(&w->thread, NULL, writer_main, fs);
	if (rc != 0) {
		w->refused = 1;
		llog__diag("%s: cannot start the writer thread (%s); the flusher compresses and "
			   "writes",
			   fs->path, strerror(rc));
		return -1;
	}
	w->running = 1;
	w->started_ok = 1;
	/* As every thread llog starts (thread.h): a fork() right after this
	 * never catches it inside its start-up. */
	llog__thread_wait_up(&w->started);
	return 0;
}

int llog__file_writer_hand(struct llog__file_sink *fs)
{
	struct llog__file_writer *w = &fs->w;

	if (!w->running && start(fs) != 0)
		return -1;
	/* Nothing handed: the writer is idle, its copy ours to refresh (a
	 * commit that wrote itself may have changed fs->chunk_max). */
	if (llog__load_relaxed(&w->target) == 0)
		w->chunk_max = fs->chunk_max;
	/* Release: pairs with the writer's acquire load in write_handed
	 * (the chunks below target are complete, with their bytes). */
	llog__store_release(&w->target, (uint32_t)fs->nch);
	/* Release: pairs with the writer's acquire load of poke. */
	llog__fetch_add_release(&w->poke, 1);
	llog__futex_wake(&w->poke, 1);
	return 0;
}

/* The writer is idle with ch[0, d) written: they leave the pending ones,
 * the rest is the caller's again. quiet: the crash path's (no diagnostic:
 * not async-signal-safe). */
static void take_back(struct llog__file_sink *fs, uint32_t d, int failed, int quiet)
{
	struct llog__file_writer *w = &fs->w;

	/* Relaxed: the writer reads them after its acquire of the next poke.
	 * target first: a crash inside this finds nothing handed, or
	 * done == target. */
	llog__store_relaxed(&w->target, 0);
	if (d > 0 || (fs->nch > 0 && fs->ch[0].start > fs->in_base))
		llog__file_drop_chunks(fs, (int)d); /* and the lines of ch[d] written */
	fs->chunk_max = w->chunk_max;
	if (!quiet)
		llog__file_note_result(fs, failed ? w->rc : 0);
	else if (failed && fs->err == 0)
		fs->err = w->rc;
	llog__store_relaxed(&w->done, 0);
	llog__store_relaxed(&w->failed, 0);
}

/* The slice of the flusher's waits for the writer, in ms: a wait that
 * began before a crash report sees it within one (DESIGN). */
#define WAIT_SLICE_MS 10u

/* A wait of the flusher's for the writer, outside a crash report, that
 * has seen the writer's progress counter at `seen`: whether to give up
 * (DESIGN, "Stalls"). Progress since the last slice starts the count
 * again (and ends a stall); a stall is declared once the count reaches
 * the sink's timeout, and then every wait gives up at once. */
static void stall_end(struct llog__file_sink *fs)
{
	struct llog__file_writer *w = &fs->w;

	w->stall_waited_ms = 0;
	if (!w->stalled)
		return;
	w->stalled = 0;
	llog__diag_always("%s: the writer thread is making progress again after a stall; %llu records "
		   "were not stored meanwhile",
		   fs->path, (unsigned long long)w->stall_lost);
	w->stall_lost = 0;
}

static int stall_give_up(struct llog__file_sink *fs, uint32_t seen)
{
	struct llog__file_writer *w = &fs->w;

	if (seen != w->stall_seen) {
		w->stall_seen = seen;
		stall_end(fs);
	}
	if (w->stalled)
		return 1;
	if (w->stall_waited_ms >= w->stall_ms) {
		w->stalled = 1;
		/* from the stall on (a crash report's losses before it are
		 * in the statistics only) */
		w->stall_lost = 0;
		llog__diag_always("%s: the writer thread has been inside write(2) for %u ms (a stalled "
			   "file system?); llog_flush, exit and shutdown no longer wait for it, "
			   "and records beyond the sink's backlog are counted lost "
			   "(llog_stats.sink_lost) until it makes progress",
			   fs->path, w->stall_waited_ms);
		return 1;
	}
	w->stall_waited_ms += WAIT_SLICE_MS;
	return 0;
}

int llog__file_writer_collect(struct llog__file_sink *fs, int wait)
{
	struct llog__file_writer *w = &fs->w;
	uint32_t t = llog__load_relaxed(&w->target), d;
	int failed;

	if (t == 0)
		return 1;
	for (;;) {
		/* Acquire: pairs with the writer's release increment (before
		 * its wake-up): done and failed below are at least as new. */
		uint32_t seen = llog__load_acquire(&w->progress);

		/* Acquire: pairs with the writer's release stores of done
		 * and failed (write_handed). */
		d = llog__load_acquire(&w->done);
		failed = (int)llog__load_acquire(&w->failed);
		if (d == t || failed)
			break;
		if (!wait)
			return 0;
		/* A crash report: bounded in all (DESIGN). The flag is read
		 * after the round's take of the list (acquire), which the
		 * crashing thread's push of its record (release) follows its
		 * store of it: a round with the crash record sees it. */
		if (llog__crash_in_progress()) {
			if (w->crash_waited_ms >= llog__crash_sink_wait_ms())
				return 0;
			w->crash_waited_ms += WAIT_SLICE_MS;
		} else if (stall_give_up(fs, seen)) {
			return 0;
		}
		llog__futex_wait(&w->progress, seen, WAIT_SLICE_MS);
	}
	w->crash_waited_ms = 0;
	stall_end(fs);
	take_back(fs, d, failed, 0);
	return 1;
}

int llog__file_writer_crash(struct llog__file_sink *fs, int interrupted)
{
	struct llog__file_writer *w = &fs->w;
	uint32_t t = llog__load_relaxed(&w->target);
	int i;

	if (!w->running)
		return 0;
	/* From here on the flusher writes (a recovered crash goes on
	 * without the writer). */
	w->running = 0;
	w->refused = 1;
	/* The handed chunks are complete and stable (the crash cannot have
	 * interrupted them): the writer finishes them, at most a second.
	 * Poked again in case the crash came between hand's store of target
	 * and its poke. */
	llog__fetch_add_release(&w->poke, 1);
	llog__futex_wake(&w->poke, 1);
	for (i = 0; i < 100; i++) {
		uint32_t seen = llog__load_acquire(&w->progress);

		/* Acquire: as in collect. */
		if (t == 0 || llog__load_acquire(&w->done) == t || llog__load_acquire(&w->failed))
			break;
		llog__futex_wait(&w->progress, seen, 10);
	}
	/* Seq_cst: the Dekker pair with write_handed's store of busy and
	 * load of quit: after this the writer takes no chunk. A chunk it is
	 * still in gets a tenth of a second more (it may have just stored
	 * done, or just found quit). */
	llog__store_seq_cst(&w->quit, 2);
	for (i = 0; i < 10 && llog__load_seq_cst(&w->busy) != 0; i++) {
		uint32_t seen = llog__load_acquire(&w->progress);

		if (llog__load_seq_cst(&w->busy) != 0)
			llog__futex_wait(&w->progress, seen, 10);
	}
	if (llog__load_seq_cst(&w->busy) != 0) {
		/* Stuck in a chunk: abandoned (DESIGN); nothing of the sink
		 * moves under it, and the crash path writes nothing to its
		 * file (the descriptor may be mid-rotation). */
		w->abandoned = 1;
		return -1;
	}
	/* Idle for good: as a collect, unless the crash interrupted the sink
	 * (its chunks may be mid-update: the crash path leaves them). */
	if (!interrupted)
		take_back(fs, llog__load_acquire(&w->done), (int)llog__load_acquire(&w->failed), 1);
	return 0;
}

int llog__file_writer_stop(struct llog__file_sink *fs)
{
	struct llog__file_writer *w = &fs->w;

	if (!w->started_ok)
		return 0;
	if (!llog__file_writer_collect(fs, 1)) {
		/* Stalled (DESIGN, "Stalls"): left where it is, with what it
		 * holds; nothing of the sink may be freed under it. */
		w->abandoned = 1;
		return -1;
	}
	/* Release (both): pairs with the writer's acquire loads. */
	llog__store_release(&w->quit, 1);
	llog__fetch_add_release(&w->poke, 1);
	llog__futex_wake(&w->poke, 1);
	pthread_join(w->thread, NULL);
	w->running = 0;
	w->started_ok = 0;
	return 0;
}

void llog__file_writer_after_fork(struct llog__file_sink *fs)
{
	struct llog__file_writer *w = &fs->w;

	/* The parent's thread is not in this process; the chunks it held go
	 * with the parent's other pending ones (file_after_fork). When the
	 * fork caught it inside a chunk, the file's state (the descriptor, a
	 * rotation under way, the name it rotated from) may be half-made:
	 * the child opens the path again before its first frame, and
	 * forgets the rest (the name may be freed, or the parent's: left). */
	if (llog__load_relaxed(&w->busy) != 0) {
		fs->fd = -1;
		fs->rotated_from = NULL;
		fs->file_gen++;
	}
	w->running = 0;
	w->started_ok = 0;
	w->refused = fs->no_writer;
	w->abandoned = 0;
	w->stalled = 0;
	w->stall_waited_ms = 0;
	w->stall_lost = 0;
	reset_words(w);
	llog__store_relaxed(&w->poke, 0);
	llog__store_relaxed(&w->progress, 0);
}
