/*
 * rate.c - pacing on an absolute schedule.
 */

#include "common/rate.h"

#include <math.h>

#include "common/clock.h"
#include "common/run.h"

//==========================================================
// Typedefs & constants.
//

// A thread whose next request is due more than SETTLE_NS after the end of
// its last one wakes once SETTLE_NS after it, then sleeps to the due time.
//
// Why: the kernel's fair scheduler (EEVDF) keeps a task's lag - the CPU
// time it was owed when it went to sleep - across the sleep, and places
// it by that lag when it wakes. A service thread that ends its request
// late in a burst is owed a lot: it waited behind the burst's other
// threads. Slept straight through to its next due time, it wakes there
// with that credit and runs ahead of the threads whose reads have just
// completed, so those wait for the burst's fresh threads before they
// can record their latency: with 160 threads on 2 CPUs, the median wait
// from a read's completion to its thread running went from 0.21 to 0.39
// ms (ftrace), and reads over 1 ms at 480 threads from 31-36% to 63-74%
// (bench/RESULTS.md, "request timing beside the reference"). Woken once
// after the burst, alone on a quiet CPU, the thread goes back to sleep
// owed nothing, and the next burst interleaves completions with fresh
// requests again, as with the 50 ms sleep slices act had before (whose
// figures the audit of issue 25 found within the reference's). A wake-up at one common time would not do: a crowd of
// threads waking together is another burst that hands out credit again.
// (Waking only the threads that ended late did not do either: at 160
// threads most of a burst is over within 1 ms, yet its credit counts.)
// Threads paced slower than 20/s pay one extra wake-up per request, about
// 7 us of CPU.
#define SETTLE_NS (50 * NS_PER_MS)

//==========================================================
// Forward declarations.
//

static double exp_gap_ns(rate_sched* r);

//==========================================================
// Public API.
//

void
rate_init(rate_sched* r, uint64_t start_ns, double ops_per_sec, double phase)
{
	r->start_ns = start_ns;
	r->period_ns = (double)NS_PER_SEC / ops_per_sec;
	r->phase = phase;
	r->count = 0;
	r->poisson = NULL;
	r->next_ns = 0.0;
	r->end_ns = UINT64_MAX;
}

void
rate_init_poisson(rate_sched* r, uint64_t start_ns, double ops_per_sec,
		rand_t* rnd)
{
	rate_init(r, start_ns, ops_per_sec, 0.0);
	r->poisson = rnd;
	r->next_ns = exp_gap_ns(r);
}

void
rate_set_end(rate_sched* r, uint64_t end_ns)
{
	r->end_ns = end_ns;
}

bool
rate_ended(const rate_sched* r)
{
	return rate_next_due_ns(r) >= r->end_ns;
}

uint64_t
rate_due_ns(const rate_sched* r, uint64_t k)
{
	return r->start_ns + (uint64_t)(((double)k + r->phase) * r->period_ns);
}

uint64_t
rate_next_due_ns(const rate_sched* r)
{
	if (r->poisson != NULL) {
		return r->start_ns + (uint64_t)r->next_ns;
	}

	return rate_due_ns(r, r->count);
}

void
rate_wait_start(const rate_sched* r)
{
	if (! rate_ended(r)) {
		run_sleep_until(rate_next_due_ns(r));
	}
}

uint64_t
rate_done_and_wait(rate_sched* r)
{
	r->count++;

	if (r->poisson != NULL) {
		r->next_ns += exp_gap_ns(r);
	}

	// The one clock read of a request's pacing (as the reference's service
	// threads): behind, or a sleep to the due time.
	uint64_t due = rate_next_due_ns(r);

	if (due >= r->end_ns) {
		return 0; // nothing more to wait for
	}

	uint64_t now = clock_ns();

	if (now >= due) {
		return now - due;
	}

	if (due - now > SETTLE_NS) {
		// Wake once when the burst is over (SETTLE_NS), then sleep to the
		// due time.
		run_sleep(now, now + SETTLE_NS);
		now = clock_ns();
	}

	run_sleep(now, due);

	return 0;
}

//==========================================================
// Local helpers.
//

// An exponentially distributed gap of mean period_ns (inverse transform:
// 1 - u is in (0, 1], so the log is finite).
static double
exp_gap_ns(rate_sched* r)
{
	return -log(1.0 - rand_unit(r->poisson)) * r->period_ns;
}
