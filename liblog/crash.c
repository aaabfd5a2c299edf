/*
 * crash.c - the crash handler: SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT.
 *
 * DESIGN
 * Installed by llog_init (unless llog_config.crash_handler_off), with
 * SA_SIGINFO | SA_ONSTACK; the previous actions are saved. Everything the
 * handler uses is made before any crash: the alternate signal stacks
 * (LLOG__ALTSTACK_BYTES, 64 KiB, given to the installing thread here, to
 * the flusher by flusher.c and to each thread with its arena by arena.c, each
 * only when the thread has none), the static crash record and its static
 * arena, the static flush barrier (flusher_drain.c) and the flusher's crash
 * render buffer (flusher.c), the sinks' crash buffers (made by their
 * constructors), and libgcc's unwinder (loaded by one backtrace() call).
 *
 * The handler, in the first crashing thread only (an atomic flag; a second
 * crashing thread waits, bounded, for the first to finish, then dies of its
 * own signal):
 *   0. arms the watchdog: our SIGALRM action, a timer of llog's own
 *      (the budget: llog_config.crash_timeout_ms, 5 s by default; its
 *      SIGALRM sent to this thread, which unblocks
 *      it; the application's alarm/ITIMER_REAL is not touched). If it
 *      fires after the deadline, it writes one line,
 *      sets the crash signal to SIG_DFL, unblocks and raises it: the
 *      process dies of that signal however the handler is stuck (a wedged
 *      sink, backtrace_symbols_fd, a lock taken by snprintf). An earlier
 *      SIGALRM (an application timer already pending) is ignored;
 *   1. builds the crash record text (signal name from a static table, fault
 *      address, thread id, raw backtrace addresses) in the static record;
 *   2. has every record pushed before the crash, then that record, handed
 *      to the sinks and committed:
 *      - on an application thread (llog__flusher_crash_drain): pushes that
 *        record and a static barrier, wakes the flusher and waits for the
 *        barrier with a monotonic deadline of wait_ms() (2/5 of the
 *        budget);
 *      - on the flusher thread itself (llog__flusher_crash_drain_self),
 *        which will never finish its round: hands to the sinks' crash
 *        entry points (llog/sinks.h, version 2) the entry it was handing out (to the
 *        sinks after the one it faulted in), the rest of the round but a
 *        record whose rendering crashed, the list taken with CLOSED
 *        installed (LOG calls after that go to stderr synchronously), then
 *        the crash record, and calls their crash_commit. A sink whose
 *        callback was interrupted is told so and must not touch its normal
 *        buffers: what it had accepted and not committed (the file sink's
 *        partial frame) is lost for that sink only. Sinks without crash
 *        entry points (callback, syslog, version 1) get nothing of it.
 *        Each crash entry point runs guarded (llog__crash_guarded: the
 *        crash signals unblocked, a sigsetjmp point; a fault in it enters
 *        this handler again on the same thread, which siglongjmps back):
 *        a sink that faults there is skipped for the rest of the drain,
 *        named on stderr, and the others go on;
 *      - the flusher faulting during an application thread's report (a
 *        second crashing thread, but the one the report waits for) drains
 *        the same way, once, from its own handler, without a record of its
 *        own: the reporter's crash record is in what it drains, and the
 *        reporter's barrier is signalled when a sink committed it. It then
 *        waits for the report to end and a while more, so that the
 *        reporter's signal ends the process;
 *   3. writes to stderr with write(2) only: the crash line (already
 *      before step 2, when stderr took it at once: the one report that
 *      depends on no sink; otherwise now, when no sink committed it), then
 *      the symbolised backtrace (backtrace_symbols_fd);
 *   4. disarms the watchdog (its timer deleted, the application's
 *      SIGALRM action back), restores the previous actions of all five
 *      signals and lets the signal happen again: a fault re-executes the
 *      faulting instruction, a signal sent by kill/raise/abort is raised
 *      again. The previous handler (the application's, or the default
 *      action with its core dump) then runs.
 * It never takes a lock and never calls malloc; the one formally unsafe call
 * is snprintf in the rendering of step 2 on the flusher (%p and floating
 * point outside llog's own %f; see docs/crash-handling.md), bounded by the
 * watchdog. After a LOG_FATAL (which already flushed and wrote its record)
 * the SIGABRT it raises goes straight to step 4 (without a watchdog).
 * The time bound, shared: an application thread's report waits wait_ms()
 * (2/5 of the budget, 2 s by default) for the flusher's round, whatever
 * the sinks; in the flusher's own drain the sinks on threads of their own
 * have queue_ms() (1/5, 1 s, all together, flusher_drain.c) to write what
 * was queued for them, and the synchronous sinks' crash entry points run
 * one after another, in the order the sinks were added, with no bound each
 * but the watchdog's (the budget, for the whole report): one that blocks
 * costs the sinks after it.
 * Not covered: a flusher or sink that does not finish within wait_ms()
 * (the handler goes on; what was not committed by then may be lost); a
 * sink's crash path that does not finish before the watchdog; a
 * crash inside llog's own push (that record); a stack overflow in a thread
 * that never logged and has no alternate stack of its own.
 *
 * This file and the flusher call each other by design: the handler has the
 * flusher drain (llog__flusher_crash_drain, llog__flusher_crash_drain_self,
 * flusher_drain.c, which uses flusher.c and flusher_sinktab.c), and the
 * flusher asks llog__crash_in_progress before it frees an arena and, with
 * its sink table, llog__crash_block_mask for its threads' signal mask.
 * It is the library's one designed circle (scripts/check_deps.sh).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <execinfo.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "altstack.h"
#include "arena.h"
#include "buf.h"
#include "clock.h"
#include "crash.h"
#include "flusher.h"
#include "line.h"
#include "queue.h"
#include "sinkq.h"

#define CRASH_TEXT 1024
#define CRASH_FRAMES 32
#define NSIGS 5

static const int crash_sigs[NSIGS] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
static struct sigaction old_act[NSIGS];
static int installed;
static void *altstack;

/* llog_config.crash_timeout_ms, in effect (llog__crash_install). Relaxed
 * loads and store: a value on its own (a report that races with a second
 * llog_init reads the old budget or the new one, either is whole). */
static _Atomic uint32_t budget_ms = LLOG__CRASH_TIMEOUT_MS;

/* What an application thread's report waits for the flusher's round. */
static unsigned wait_ms(void)
{
	return llog__load_relaxed(&budget_ms) / 5 * 2;
}

/* What the sinks' own threads get in the flusher's own drain. */
static unsigned queue_ms(void)
{
	return llog__load_relaxed(&budget_ms) / 5;
}

unsigned llog__crash_sink_wait_ms(void)
{
	return queue_ms();
}

/* 0: no crash yet; 1: the first crashing thread is reporting; 2: done. */
static _Atomic int crash_state;
/* 1 while report() runs (an application handler chained after it may
 * recover from the signal: then llog goes on as before). */
static _Atomic int crash_reporting;
/* 1 once the flusher drained during another thread's report. */
static _Atomic int flusher_drained;

volatile sig_atomic_t llog__fatal_aborting;

static struct llog_site crash_site = {"%s", __FILE__, "llog_crash_handler", __LINE__,
				      LLOG_FATAL, 0, {0}, NULL, 0};
/* A header only (ring of size 0): the record's owner as the flusher sees it
 * (tid, and the released word it stores into). */
static struct llog__arena crash_arena;
static struct {
	struct llog__rec rec;
	char text[CRASH_TEXT];
} crash_rec;
_Static_assert(offsetof(__typeof__(crash_rec), text) == LLOG__REC_HDR,
	       "the text is the record's payload");

static const char *sig_name(int sig)
{
	switch (sig) {
	case SIGSEGV:
		return "SIGSEGV (segmentation fault)";
	case SIGBUS:
		return "SIGBUS (bus error)";
	case SIGILL:
		return "SIGILL (illegal instruction)";
	case SIGFPE:
		return "SIGFPE (arithmetic exception)";
	case SIGABRT:
		return "SIGABRT (aborted)";
	default:
		return "signal";
	}
}

static void write_str(const char *s, size_t n)
{
	while (n > 0) {
		ssize_t w = write(2, s, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		s += w;
		n -= (size_t)w;
	}
}

int llog__crash_stderr(const char *s, size_t n)
{
	struct pollfd err = {.fd = 2, .events = POLLOUT};

	if (poll(&err, 1, 0) != 1 || !(err.revents & POLLOUT))
		return 0;
	write_str(s, n);
	return 1;
}

/*
 * The guard around a sink's crash entry point (llog__crash_guarded): a
 * fault in it enters crash_handler again on this thread, which jumps back
 * to guard_env (sigsetjmp saved the signal mask of the report, the crash
 * signal blocked; siglongjmp puts it back). guard_tid: the thread inside a
 * guarded call, or 0. Relaxed: written and read by the same thread (the
 * nested handler runs on it, after the store in program order); another
 * thread's fault reads 0 or a tid that is not its own.
 */
static sigjmp_buf guard_env;
static _Atomic long guard_tid;

long llog__crash_guarded(long (*fn)(void *), void *arg)
{
	sigset_t unblock, saved;
	long rc;

	sigemptyset(&unblock);
	for (int i = 0; i < NSIGS; i++)
		sigaddset(&unblock, crash_sigs[i]);
	if (sigsetjmp(guard_env, 1) != 0) {
		llog__store_relaxed(&guard_tid, 0);
		return LLOG__CRASH_FAULTED;
	}
	llog__store_relaxed(&guard_tid, (long)syscall(SYS_gettid));
	pthread_sigmask(SIG_UNBLOCK, &unblock, &saved);
	rc = fn(arg);
	pthread_sigmask(SIG_SETMASK, &saved, NULL);
	llog__store_relaxed(&guard_tid, 0);
	return rc;
}

/* Steps 1..3 (see DESIGN). */
static void report(int sig, const siginfo_t *si)
{
	void *bt[CRASH_FRAMES];
	int nbt = backtrace(bt, CRASH_FRAMES);
	struct llog__rec *r = &crash_rec.rec;
	struct llog__buf b = LLOG__BUF(crash_rec.text, CRASH_TEXT - 1); /* room for its newline */
	uint64_t tid = (uint64_t)syscall(SYS_gettid);
	int committed, on_stderr;

	llog__buf_puts(&b, "llog: caught ");
	llog__buf_puts(&b, sig_name(sig));
	if (sig != SIGABRT && si != NULL && si->si_code > 0) {
		llog__buf_puts(&b, " at address ");
		llog__buf_num(&b, (uint64_t)(uintptr_t)si->si_addr, 16);
	}
	llog__buf_puts(&b, " in thread ");
	llog__buf_num(&b, tid, 10);
	llog__buf_puts(&b, "; backtrace:");
	for (int i = 0; i < nbt; i++) {
		llog__buf_puts(&b, " ");
		llog__buf_num(&b, (uint64_t)(uintptr_t)bt[i], 16);
	}
	crash_arena.tid = tid;
	/* The crashing thread's name for the crash record: prctl is one
	 * system call (async-signal-safe in practice); the record is
	 * rendered from crash_arena's flusher copy. */
	{
		char name[LLOG__NAME_BYTES];

		if (prctl(PR_GET_NAME, name, 0, 0, 0) != 0)
			name[0] = '\0';
		llog__arena_fl_name(&crash_arena, name);
	}
	r->kind = LLOG__K_TEXT;
	r->site = &crash_site;
	r->arena = &crash_arena;
	r->len = (uint32_t)b.n;
	r->flags = 0;
	r->dropped = 0;
	r->end = 0;
	/* The crash line reaches stderr first, before any sink is tried (a
	 * sink's crash path may fault, or wedge until the watchdog): it is
	 * the one report the operator always gets. */
	b.p[b.n] = '\n';
	on_stderr = llog__crash_stderr(b.p, b.n + 1);
	if (llog__arena_thread_is_flusher()) {
		committed = llog__flusher_crash_drain_self(r, queue_ms());
	} else {
		/* A sink's own thread that crashed will never take its queue
		 * again: the drain must not wait for it. */
		llog__sinkq_crashed_self();
		committed = llog__flusher_crash_drain(r, wait_ms());
	}
	if (!committed) {
		static const char late[] = "llog: records not committed by now may be lost\n";

		if (!on_stderr)
			write_str(b.p, b.n + 1);
		if (!llog__arena_thread_is_flusher())
			write_str(late, sizeof(late) - 1);
	}
	write_str("llog: backtrace of the crashing thread:\n", 40);
	backtrace_symbols_fd(bt, nbt, 2);
}

static void restore_all(void)
{
	for (int i = 0; i < NSIGS; i++)
		sigaction(crash_sigs[i], &old_act[i], NULL);
}

/*
 * Watchdog: SIGALRM ends the process with the crash signal when the report
 * takes longer than the budget. The timer is llog's own, a POSIX
 * timer made for this report (timer_create with SIGEV_THREAD_ID: its
 * SIGALRM goes to the crashing thread, which unblocks it), so the
 * application's ITIMER_REAL (alarm, setitimer) is never read or changed: a
 * periodic timer keeps its interval and phase when a crash is recovered
 * (an application handler chained after ours that siglongjmps out). Saving
 * and restoring the application's itimerval instead would be a
 * read-modify-write of its timer that races with its own setitimer calls
 * in other threads and shifts its phase by the report's length; alarm()
 * (what this used before) even dropped the interval and rounded to whole
 * seconds. Thread-directed, a sigwait() for SIGALRM in another thread
 * cannot take the watchdog's signal. The three timer calls are system
 * calls made directly (no libc wrapper state, no allocation, nothing to
 * link). Only the SIGALRM action is replaced during the report: an
 * application SIGALRM that arrives meanwhile (before the deadline) is
 * ignored.
 */
#ifndef sigev_notify_thread_id
#define sigev_notify_thread_id _sigev_un._tid
#endif

static _Atomic int watchdog_sig;
static _Atomic int64_t watchdog_deadline_ms;
static struct sigaction watchdog_old;
static int watchdog_timer = -1; /* the kernel's timer id, or -1 */

static void watchdog_fire(int alrm)
{
	static const char msg[] = "llog: the crash handler did not finish in time: "
				  "dying of the signal now\n";
	struct pollfd err = {.fd = 2, .events = POLLOUT};
	struct sigaction dfl;
	sigset_t set;
	int sig;

	(void)alrm;
	/* Acquire: pairs with the release store in watchdog_arm (this may run
	 * in another thread than the one that armed it); then sig is the
	 * crash signal. */
	if (llog__mono_ms() < llog__load_acquire(&watchdog_deadline_ms))
		return;
	sig = llog__load_relaxed(&watchdog_sig);
	/* Only when stderr takes it at once: a stderr that blocks (a full
	 * pipe) may be what wedged the report in the first place. */
	if (poll(&err, 1, 0) == 1 && (err.revents & POLLOUT))
		write_str(msg, sizeof(msg) - 1);
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	sigaction(sig, &dfl, NULL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	raise(sig); /* the default action: the process ends here */
	_exit(128 + sig);
}

/* A one-shot CLOCK_MONOTONIC timer of ms that sends SIGALRM to this
 * thread. Returns the kernel's timer id, or -1. */
static int watchdog_timer_start(unsigned ms)
{
	struct sigevent sev;
	struct itimerspec its;
	int id = -1;

	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = SIGALRM;
	sev.sigev_notify_thread_id = (pid_t)syscall(SYS_gettid);
	if (syscall(SYS_timer_create, CLOCK_MONOTONIC, &sev, &id) != 0)
		return -1;
	memset(&its, 0, sizeof(its));
	its.it_value.tv_sec = (time_t)(ms / 1000);
	its.it_value.tv_nsec = (long)(ms % 1000) * 1000000L;
	if (syscall(SYS_timer_settime, id, 0, &its, NULL) != 0) {
		(void)syscall(SYS_timer_delete, id);
		return -1;
	}
	return id;
}

static void watchdog_arm(int sig)
{
	unsigned budget = llog__load_relaxed(&budget_ms);
	struct sigaction sa;
	sigset_t set;

	/* Relaxed: published by the release store of the deadline below. */
	llog__store_relaxed(&watchdog_sig, sig);
	/* Release: pairs with the acquire load in watchdog_fire. The timer
	 * starts after this clock reading, on the same monotonic clock, so
	 * when it fires the clock reads at least the deadline: a SIGALRM
	 * before it is another one (the application's), ignored. */
	llog__store_release(&watchdog_deadline_ms, llog__mono_ms() + budget);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = watchdog_fire;
	sa.sa_flags = SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, &watchdog_old);
	/* Without a timer (the kernel's limit on timers reached) the report
	 * runs unguarded. */
	watchdog_timer = watchdog_timer_start(budget);
	sigemptyset(&set);
	sigaddset(&set, SIGALRM);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
}

/* The report finished: our timer gone (with its signal, if pending) and
 * the application's SIGALRM action back (the signal mask comes back when
 * the handler returns). */
static void watchdog_disarm(void)
{
	if (watchdog_timer >= 0)
		(void)syscall(SYS_timer_delete, watchdog_timer);
	watchdog_timer = -1;
	sigaction(SIGALRM, &watchdog_old, NULL);
}

static void crash_handler(int sig, siginfo_t *si, void *uc)
{
	int saved_errno = errno;
	int expected = 0;

	(void)uc;
	/* A fault inside a guarded sink call of this thread's report: back
	 * to its guard (llog__crash_guarded), which skips that sink. */
	if (llog__load_relaxed(&guard_tid) != 0 &&
	    llog__load_relaxed(&guard_tid) == (long)syscall(SYS_gettid))
		siglongjmp(guard_env, 1);
	/* Relaxed: the CAS only elects one reporting thread; nothing the
	 * others read is published by it (the release store of 2 below,
	 * paired with their acquire loads, is what they wait for). */
	if (atomic_compare_exchange_strong_explicit(&crash_state, &expected, 1,
						    memory_order_relaxed, memory_order_relaxed)) {
		if (!(sig == SIGABRT && llog__fatal_aborting)) {
			/* Relaxed: see llog__crash_in_progress. */
			llog__store_relaxed(&crash_reporting, 1);
			watchdog_arm(sig);
			report(sig, si);
			watchdog_disarm();
			llog__store_relaxed(&crash_reporting, 0);
		}
		restore_all();
		atomic_store_explicit(&crash_state, 2, memory_order_release);
	} else {
		int64_t deadline = llog__mono_ms() + wait_ms() + queue_ms();
		struct timespec ms = {0, 1000000};
		int drained = 0;

		/* The flusher faulting while another thread reports: that
		 * thread waits for a round that will never end. Drain from
		 * here, as when the flusher crashes first (what the sinks
		 * accepted is committed through their crash entry points,
		 * the record or sink that faulted skipped), then let the
		 * reporting thread end the process with its own signal.
		 * Relaxed: the exchange only elects one drain (a nested
		 * fault of another signal in it must not start a second);
		 * the state load is a filter (1: a report runs now). */
		if (llog__arena_thread_is_flusher() &&
		    atomic_load_explicit(&crash_state, memory_order_relaxed) == 1 &&
		    atomic_exchange_explicit(&flusher_drained, 1, memory_order_relaxed) == 0) {
			(void)llog__flusher_crash_drain_self(NULL, queue_ms());
			drained = 1;
		}
		/* Acquire: pairs with the release store of 2 above. */
		while (atomic_load_explicit(&crash_state, memory_order_acquire) != 2 &&
		       llog__mono_ms() < deadline)
			nanosleep(&ms, NULL);
		/* The reporting thread, back from its handler, meets its
		 * signal again (the process dies of the original signal);
		 * give it that time before this fault repeats. */
		deadline = llog__mono_ms() + 1000;
		while (drained && llog__mono_ms() < deadline)
			nanosleep(&ms, NULL);
		restore_all();
	}
	errno = saved_errno;
	/* Sent by kill/raise/abort (si_code <= 0): send it again; it is
	 * blocked until we return, then meets the restored action. A fault
	 * re-executes its instruction on return. */
	if (si == NULL || si->si_code <= 0)
		raise(sig);
}

/*
 * Relaxed: the reporting thread's store of 1 is sequenced before its
 * release push of the crash record; a flusher round that took that record
 * (acquire exchange) therefore sees it. A round that did not (one already
 * running when the crash happened) is an ordinary round and may still
 * free: if the crash happened inside the allocator, that round may block,
 * and the report then goes on after wait_ms() without it.
 */
int llog__crash_in_progress(void)
{
	return llog__load_relaxed(&crash_reporting) != 0;
}

/*
 * In a fork child (single-threaded, from atfork_child): a crash report that
 * another thread of the parent was running is not the child's. Start from
 * "no crash", with the application's SIGALRM action back if the watchdog's
 * is in place (POSIX timers are not inherited: the watchdog's is not the
 * child's). Relaxed: no other thread.
 */
void llog__crash_after_fork(void)
{
	struct sigaction cur;

	if (llog__load_relaxed(&crash_state) == 0)
		return;
	if (sigaction(SIGALRM, NULL, &cur) == 0 && cur.sa_handler == watchdog_fire)
		sigaction(SIGALRM, &watchdog_old, NULL);
	watchdog_timer = -1;
	llog__store_relaxed(&flusher_drained, 0);
	llog__store_relaxed(&crash_reporting, 0);
	llog__store_relaxed(&crash_state, 0);
}

int llog__crash_install(unsigned timeout_ms)
{
	struct sigaction sa;
	void *bt[2];

	llog__store_relaxed(&budget_ms, timeout_ms != 0 ? timeout_ms : LLOG__CRASH_TIMEOUT_MS);
	if (altstack == NULL) {
		altstack = llog__altstack_new();
		if (altstack == NULL)
			return -ENOMEM;
		(void)llog__altstack_install(altstack);
	}
	/* Loads libgcc's unwinder now: backtrace() in the handler must not
	 * call dlopen (malloc, locks). */
	(void)backtrace(bt, 2);
	/* The line formatter must not call localtime_r during a report: it
	 * asks llog__crash_in_progress, told here, before any handler runs
	 * (line_ts.c is in the format unit, which never calls the core). */
	llog__line_set_crash_probe(llog__crash_in_progress);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = crash_handler;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	for (int i = 0; i < NSIGS; i++) {
		struct sigaction cur;

		/* Ours already (an earlier llog_init, or inherited over
		 * fork): keep the saved previous action. */
		if (sigaction(crash_sigs[i], NULL, &cur) == 0 && (cur.sa_flags & SA_SIGINFO) &&
		    cur.sa_sigaction == crash_handler)
			continue;
		sigaction(crash_sigs[i], &sa, &old_act[i]);
	}
	installed = 1;
	return 0;
}

void llog__crash_uninstall(void)
{
	if (!installed)
		return;
	for (int i = 0; i < NSIGS; i++) {
		struct sigaction cur;

		/* Only where ours is still in place (the application may
		 * have installed its own on top). */
		if (sigaction(crash_sigs[i], NULL, &cur) == 0 &&
		    (cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == crash_handler)
			sigaction(crash_sigs[i], &old_act[i], NULL);
	}
	installed = 0;
}

void llog__crash_block_mask(sigset_t *set)
{
	for (int i = 0; i < NSIGS; i++)
		sigdelset(set, crash_sigs[i]);
}
