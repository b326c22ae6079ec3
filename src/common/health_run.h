/*
 * health_run.h - the drives' health through a run (docs/health.md,
 * docs/log-format.md "Drive health"): each device's source and start
 * sample for the identity block, then a sample after each report whose
 * time reached the next multiple of health-interval-sec, and one after
 * the last report of a run that ends normally (the end sample).
 *
 * A drive may not answer (a hung admin command): every read is made in a
 * thread of its own that nobody waits on longer than HEALTH_WAIT_NS - the
 * sample is then "not read - no answer for 5.0 sec" - and the samples of
 * the run are taken by a health thread, so that a report, the run's end
 * and the program's exit are never held up by a drive for longer than
 * that. Samples are printed as whole lines under the log's lock, and only
 * while the harness's may_print says no stop line has been printed (it is
 * asked under that lock).
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "common/devset.h"
#include "common/strbuf.h"

// How long a health read is waited for.
#define HEALTH_WAIT_NS (5 * (uint64_t)1000000000)

typedef struct health_run_s health_run;

// The devices' sources (health_read_detect, all at once, each waited for
// HEALTH_WAIT_NS at most) and, with sample (a run, not --check), their
// start samples. interval_sec 0: no command at all, each source is "none
// (health-interval-sec 0)". NULL when memory runs out (no health lines).
health_run* health_run_open(const devset* s, uint32_t interval_sec,
		bool sample);

// The identity block's lines of device i: its source and its start
// sample (devset_identity's more).
void health_run_identity(uint32_t i, strbuf* sb, void* r);

// The run starts at start_ns (the reports' time 0): start the health
// thread, which prints a sample only when may_print(udata) - called under
// the log's lock - is true. Returns 0, or the errno (no samples then).
int health_run_start(health_run* r, uint64_t start_ns,
		bool (*may_print)(void* udata), void* udata);

// After the report at report_sec (last: the last report of a run that
// ends normally): ask the health thread for a sample when one is due.
// Never waits.
void health_run_report(health_run* r, uint32_t report_sec, bool last);

// The run is over: with normal, the end sample asked for is taken first
// (HEALTH_WAIT_NS at most); then the health thread ends, and nothing more
// is printed.
void health_run_end(health_run* r, bool normal);

// Free it (NULL: nothing). A read still in its thread owns what it uses.
void health_run_free(health_run* r);
