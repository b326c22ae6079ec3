/*
 * rate.c - pacing on an absolute schedule.
 */

#include "common/rate.h"

#include <math.h>

#include "common/clock.h"
#include "common/run.h"

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
	// threads): behind, or one sleep to the due time.
	uint64_t due = rate_next_due_ns(r);

	if (due >= r->end_ns) {
		return 0; // nothing more to wait for
	}

	uint64_t now = clock_ns();

	if (now >= due) {
		return now - due;
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
