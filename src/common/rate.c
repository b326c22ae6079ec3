/*
 * rate.c - pacing on an absolute schedule.
 */

#include "rate.h"

#include "clock.h"
#include "run.h"

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
}

uint64_t
rate_due_ns(const rate_sched* r, uint64_t k)
{
	return r->start_ns + (uint64_t)(((double)k + r->phase) * r->period_ns);
}

uint64_t
rate_next_due_ns(const rate_sched* r)
{
	return rate_due_ns(r, r->count);
}

void
rate_wait_start(const rate_sched* r)
{
	run_sleep_until(rate_next_due_ns(r));
}

uint64_t
rate_done_and_wait(rate_sched* r)
{
	r->count++;

	uint64_t due = rate_next_due_ns(r);
	uint64_t now = clock_ns();

	if (now >= due) {
		return now - due;
	}

	run_sleep_until(due);

	return 0;
}
