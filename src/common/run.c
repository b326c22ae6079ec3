/*
 * run.c - the life of a benchmark run: exit statuses, stopping, signals and
 * the report clock.
 */

#include "common/run.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/holder.h"
#include "common/log.h"
#include "common/loglines.h"

//==========================================================
// Typedefs & constants.
//

// A sleep this short is not cut short by a stop (clock_nanosleep costs a
// little less than a futex wait; a stop waits at most this long for it).
#define SHORT_SLEEP_NS (50 * NS_PER_MS)

// Workers need little stack (a few KiB of locals); a small one lets a host
// start many of them.
#define THREAD_STACK_BYTES (512 * 1024)

//==========================================================
// Forward declarations.
//

static int wait_for(uint64_t deadline_ns, run_settled_fn done, void* udata);
static bool stop_reason(char* out, size_t len);
static void wake_all(atomic_int* word);
static void* thread_main(void* pv);

//==========================================================
// Globals.
//

// A thread started by run_thread_start: its own wake word - 1 while the run
// goes, 0 once stopped - on a cache line of its own. A sleeping thread
// waits on its word (run_sleep_until), so that threads waking and sleeping
// thousands of times a second never share one futex (one lock of the
// kernel's futex hash); run_stop clears and wakes every word. Slots live as
// long as the process, on the list g_slots.
typedef struct thread_slot_s {
	_Alignas(64) atomic_int going;
	void* (*fn)(void*);
	void* arg;
	struct thread_slot_s* next;
} thread_slot;

// 1 while the run goes, 0 once stopped: also the wake word of the threads
// not started by run_thread_start.
static atomic_int g_going = 1;
static _Atomic(thread_slot*) g_slots = NULL;
static _Thread_local atomic_int* t_going = NULL; // this thread's wake word
static atomic_int g_stop_code = -1;
static pthread_t g_main_thread;
static sigset_t g_signals;

static pthread_mutex_t g_threads_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_t* g_threads = NULL;
static size_t g_n_threads = 0;

//==========================================================
// Public API.
//

void
run_block_signals(void)
{
	sigemptyset(&g_signals);
	sigaddset(&g_signals, SIGINT);
	sigaddset(&g_signals, SIGTERM);
	sigaddset(&g_signals, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &g_signals, NULL);
	g_main_thread = pthread_self();
}

bool
run_going(void)
{
	return atomic_load_explicit(&g_going, memory_order_relaxed) != 0;
}

bool
run_stop(int exit_code)
{
	int expected = -1;

	if (! atomic_compare_exchange_strong(&g_stop_code, &expected,
			exit_code)) {
		return false;
	}

	atomic_store(&g_going, 0);
	// Every thread asleep in run_sleep_until wakes now.
	wake_all(&g_going);

	for (thread_slot* t = atomic_load(&g_slots); t != NULL; t = t->next) {
		atomic_store(&t->going, 0);
		wake_all(&t->going);
	}

	if (! pthread_equal(pthread_self(), g_main_thread)) {
		pthread_kill(g_main_thread, SIGUSR1);
	}

	return true;
}

void
run_wake_main(void)
{
	pthread_kill(g_main_thread, SIGUSR1);
}

int
run_stop_code(void)
{
	return atomic_load(&g_stop_code);
}

int
run_pending_signal(void)
{
	sigset_t set;
	struct timespec zero = { 0, 0 };

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);

	int sig = sigtimedwait(&set, NULL, &zero);

	return sig == SIGINT || sig == SIGTERM ? sig : 0;
}

int
run_wait(uint64_t deadline_ns)
{
	uint64_t now;

	while ((now = clock_ns()) < deadline_ns) {
		uint64_t wait = deadline_ns - now;
		struct timespec ts = {
			.tv_sec = (time_t)(wait / NS_PER_SEC),
			.tv_nsec = (long)(wait % NS_PER_SEC)
		};
		int sig = sigtimedwait(&g_signals, NULL, &ts);

		if (sig == SIGINT || sig == SIGTERM) {
			return sig;
		}

		if (sig == SIGUSR1) {
			break; // woken: a stop, or news for the main thread
		}
	}

	return 0;
}

int
run_reports(uint64_t start_ns, uint32_t duration_sec, uint32_t interval_sec,
		uint64_t settle_ns, run_settled_fn settled, run_report_fn report,
		void* udata)
{
	uint32_t report_sec = 0;

	while (report_sec < duration_sec) {
		uint64_t next = (uint64_t)report_sec + interval_sec;

		report_sec = next < duration_sec ? (uint32_t)next : duration_sec;

		uint64_t due = start_ns + (uint64_t)report_sec * NS_PER_SEC;
		int sig = wait_for(due, NULL, NULL);

		// The last report: the workers do what they still owe first.
		if (sig == 0 && report_sec == duration_sec && settled != NULL) {
			sig = wait_for(due + settle_ns, settled, udata);
		}

		if (sig != 0) {
			run_stop(EXIT_SIGNAL + sig);
			run_log_stopped(sig, (clock_ns() - start_ns) / NS_PER_SEC);
			return EXIT_SIGNAL + sig;
		}

		if (! run_going()) {
			break;
		}

		report(report_sec, udata);
	}

	run_stop(EXIT_OK);

	return run_stop_code();
}

void
run_sleep_until(uint64_t deadline_ns)
{
	run_sleep(clock_ns(), deadline_ns);
}

// One sleep to the deadline, no wake-up before it: a short one (up to
// SHORT_SLEEP_NS: a stop waits for it at most that long) with
// clock_nanosleep, the cheapest sleep; a longer one as a wait on the
// thread's wake word with an absolute CLOCK_MONOTONIC timeout
// (FUTEX_WAIT_BITSET), which run_stop ends at once. A thread paced at 1
// request per second costs one wake-up per second, not one per slice.
// (The futex checks the word atomically with going to sleep: a stop just
// before the wait is never missed - run_stop clears g_going before any
// wake word, and the loop looks at g_going.)
void
run_sleep(uint64_t now_ns, uint64_t deadline_ns)
{
	if (now_ns >= deadline_ns) {
		return;
	}

	if (deadline_ns - now_ns <= SHORT_SLEEP_NS) {
		clock_sleep_until(deadline_ns);
		return;
	}

	struct timespec ts = {
		.tv_sec = (time_t)(deadline_ns / NS_PER_SEC),
		.tv_nsec = (long)(deadline_ns % NS_PER_SEC)
	};
	atomic_int* word = t_going != NULL ? t_going : &g_going;

	while (run_going()) {
		long rv = syscall(SYS_futex, word, FUTEX_WAIT_BITSET_PRIVATE, 1, &ts,
				NULL, FUTEX_BITSET_MATCH_ANY);

		if (rv != 0 && errno == ETIMEDOUT) {
			return;
		}

		// Woken (a stop), the word already 0 (EAGAIN), or interrupted by a
		// signal (EINTR): run_going() decides; a spurious wake-up waits
		// again for the same deadline.
	}
}

int
run_thread_start(void* (*fn)(void*), void* arg)
{
	thread_slot* slot = aligned_alloc(_Alignof(thread_slot),
			sizeof(thread_slot));

	if (slot == NULL) {
		return ENOMEM;
	}

	atomic_init(&slot->going, 1);
	slot->fn = fn;
	slot->arg = arg;
	slot->next = atomic_load(&g_slots);

	while (! atomic_compare_exchange_weak(&g_slots, &slot->next, slot)) {
		;
	}

	// A stop that walked the list before this slot was on it cleared
	// g_going first.
	if (! run_going()) {
		atomic_store(&slot->going, 0);
	}

	pthread_mutex_lock(&g_threads_lock);

	pthread_t* more = realloc(g_threads, (g_n_threads + 1) * sizeof(*more));

	if (more == NULL) {
		pthread_mutex_unlock(&g_threads_lock);
		return ENOMEM;
	}

	g_threads = more;

	pthread_attr_t attr;

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, THREAD_STACK_BYTES);

	int rv = pthread_create(&g_threads[g_n_threads], &attr, thread_main,
			slot);

	pthread_attr_destroy(&attr);

	if (rv == 0) {
		g_n_threads++;
	}

	pthread_mutex_unlock(&g_threads_lock);

	return rv;
}

bool
run_join(uint64_t timeout_ns)
{
	struct timespec abs = clock_realtime_after(timeout_ns);

	pthread_mutex_lock(&g_threads_lock);

	bool all = true;

	// Every thread that has ended (or ends by the deadline) is joined, not
	// only those before the first stuck one; a thread stuck in an I/O is
	// detached, so none is left unjoined and finished (a thread leak) when
	// the process exits. (Past the deadline, a timed join only checks.)
	for (size_t i = 0; i < g_n_threads; i++) {
		if (pthread_timedjoin_np(g_threads[i], NULL, &abs) != 0) {
			pthread_detach(g_threads[i]);
			all = false;
		}
	}

	free(g_threads);
	g_threads = NULL;
	g_n_threads = 0;

	pthread_mutex_unlock(&g_threads_lock);

	return all;
}

void
run_log_stopped(int sig, uint64_t secs)
{
	char reason[LL_REASON_MAX + 1];
	char line[LL_MSG_LEN];

	if (stop_reason(reason, sizeof(reason))) {
		ll_request(line, sizeof(line), reason, secs);
	}
	else {
		ll_signal(line, sizeof(line), run_signal_name(sig), secs);
	}

	log_final("%s\n", line);
}

const char*
run_signal_name(int sig)
{
	switch (sig) {
	case SIGINT:
		return "SIGINT";
	case SIGTERM:
		return "SIGTERM";
	case SIGUSR1:
		return "SIGUSR1";
	default:
		return "signal";
	}
}

//==========================================================
// Local helpers.
//

// Main thread: wait until deadline_ns, a stop, or done(udata) (if not
// NULL; looked at again each time the main thread is woken). Returns a
// SIGINT or SIGTERM taken meanwhile, or 0.
static int
wait_for(uint64_t deadline_ns, run_settled_fn done, void* udata)
{
	while (run_going() && (done == NULL || ! done(udata)) &&
			clock_ns() < deadline_ns) {
		int sig = run_wait(deadline_ns);

		if (sig != 0) {
			return sig;
		}
	}

	return 0;
}

// The reason a parent gave for the stop (holder_stop_fd: what it wrote
// into the pipe before its signal) into out, as ll_reason makes it; false
// if there is none. Never waits.
static bool
stop_reason(char* out, size_t len)
{
	int fd = holder_stop_fd();

	if (fd < 0) {
		return false;
	}

	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	char buf[2 * LL_REASON_MAX];

	if (poll(&pfd, 1, 0) != 1 || (pfd.revents & POLLIN) == 0) {
		return false;
	}

	ssize_t n = read(fd, buf, sizeof(buf));

	return n > 0 && ll_reason(buf, (size_t)n, out, len) != 0;
}

// Wake every thread waiting on a futex word.
static void
wake_all(atomic_int* word)
{
	syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

// Every thread of run_thread_start: its wake word, then its function.
static void*
thread_main(void* pv)
{
	thread_slot* slot = pv;

	t_going = &slot->going;

	return slot->fn(slot->arg);
}
