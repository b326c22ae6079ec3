/*
 * rate.h - pacing on an absolute schedule.
 *
 * Operation k of a thread is due at start + (k + phase) / rate seconds.
 * Every due time is computed from the start, never from the previous
 * operation, so rounding never accumulates into drift, and a thread that
 * fell behind catches up at full speed until it is back on schedule (or
 * lags more than the allowed maximum).
 *
 * A Poisson schedule draws the gap before each operation from an
 * exponential distribution of mean 1 / rate instead: the arrivals of
 * independent clients. It is absolute too (the drawn arrival times, added
 * up from the start): the time an operation takes never shifts the ones
 * after it, so the mean rate is exact over time.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "common/rand.h"

typedef struct rate_sched_s {
	uint64_t start_ns;
	double period_ns;   // 1e9 / rate
	double phase;       // 0 <= phase < 1: offset of this thread, in periods
	uint64_t count;     // operations done
	rand_t* poisson;    // not NULL: exponential gaps drawn from it
	double next_ns;     // Poisson: the next due time, from the start
	uint64_t end_ns;    // the schedule ends here (UINT64_MAX: never)
} rate_sched;

// ops_per_sec must be > 0.
void rate_init(rate_sched* r, uint64_t start_ns, double ops_per_sec,
		double phase);

// A Poisson schedule: the first operation is due one drawn gap after the
// start. rnd must outlive the schedule and be used by its thread only.
void rate_init_poisson(rate_sched* r, uint64_t start_ns, double ops_per_sec,
		rand_t* rnd);

// End the schedule at end_ns: no operation due at or after it is done -
// the waits below never sleep past it (rate_ended then says so).
void rate_set_end(rate_sched* r, uint64_t end_ns);

// True when the next operation is due at or after the schedule's end.
bool rate_ended(const rate_sched* r);

// When operation k is due (not for Poisson schedules).
uint64_t rate_due_ns(const rate_sched* r, uint64_t k);

// When the next operation (number r->count) is due.
uint64_t rate_next_due_ns(const rate_sched* r);

// Sleep until the first operation is due (start + phase / rate), so that
// threads with different phases really start apart.
void rate_wait_start(const rate_sched* r);

// Count one operation done; then sleep until the next one is due (unless
// the schedule has ended). Returns how far behind schedule the thread is
// (0 when it had to wait, or the schedule has ended).
uint64_t rate_done_and_wait(rate_sched* r);
