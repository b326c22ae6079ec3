/*
 * rate.h - pacing on an absolute schedule.
 *
 * Operation k of a thread is due at start + (k + phase) / rate seconds.
 * Every due time is computed from the start, never from the previous
 * operation, so rounding never accumulates into drift, and a thread that
 * fell behind catches up at full speed until it is back on schedule (or
 * lags more than the allowed maximum).
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

typedef struct rate_sched_s {
	uint64_t start_ns;
	double period_ns;   // 1e9 / rate
	double phase;       // 0 <= phase < 1: offset of this thread, in periods
	uint64_t count;     // operations done
} rate_sched;

// ops_per_sec must be > 0.
void rate_init(rate_sched* r, uint64_t start_ns, double ops_per_sec,
		double phase);

// When operation k is due.
uint64_t rate_due_ns(const rate_sched* r, uint64_t k);

// When the next operation (number r->count) is due.
uint64_t rate_next_due_ns(const rate_sched* r);

// Sleep until the first operation is due (start + phase / rate), so that
// threads with different phases really start apart.
void rate_wait_start(const rate_sched* r);

// Count one operation done; then sleep until the next one is due. Returns
// how far behind schedule the thread is (0 when it had to wait).
uint64_t rate_done_and_wait(rate_sched* r);
