/*
 * harness_priv.h - what the three parts of the run harness share, and no
 * program sees: the run context (struct harness_s), the private worker
 * that wraps each harness_worker, and the entry points between the parts.
 *
 *   harness.c   the lifecycle: arguments, config, devices, workers set up,
 *               the run and its reports, the exit status
 *   worker.c    the worker skeleton: pacing, harness_io, the evidence of
 *               each worker's I/Os and the lag diagnosis from it
 *   watchdog.c  the hung-I/O watchdog thread
 *
 * Only harness.c, worker.c and watchdog.c include this header.
 */
#pragma once

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/cpu.h"
#include "common/devset.h"
#include "common/harness.h"
#include "common/health_run.h"
#include "common/program.h"
#include "common/report.h"
#include "common/status.h"

#define HARNESS_MAX_KINDS 8

// rate-process, in g_rate_processes order.
typedef enum {
	PROCESS_ALIGNED,
	PROCESS_SPREAD,
	PROCESS_POISSON
} rate_mode;

// One I/O of a worker (for the stall and lag messages).
typedef struct worker_io_s {
	const char* device;
	const char* op;
	uint32_t size;
	uint64_t off;
	uint64_t took_ns;
} worker_io;

// The I/O a worker has in flight, as the hung-I/O watchdog (another
// thread) reads it: start_ns is published last (0: none in flight).
typedef struct worker_inflight_s {
	atomic_uint_fast64_t start_ns;
	_Atomic(const char*) device;
	_Atomic(const char*) op;
	atomic_uint_fast32_t size;
	atomic_uint_fast64_t off;
	atomic_bool reported;      // the watchdog has reported it
} worker_inflight;

// What a worker's I/Os cost since it was last on schedule: when it falls
// behind, this tells a drive that is too slow from a host that is.
typedef struct worker_evidence_s {
	uint64_t io_ns;            // time in I/O, since the start
	uint64_t n_io;
	uint64_t mark_ns;          // when the thread was last on schedule
	uint64_t mark_io_ns;       // io_ns then
	uint64_t mark_n_io;        // n_io then
	worker_io longest;         // the longest I/O since then
} worker_evidence;

// A cache line: each worker starts on one of its own, so that two workers'
// per-request writes (their generators, their I/O in flight) never share
// a line.
#define WORKER_ALIGN 64

// A worker thread: what its step function sees (pub, first, so that the
// step's harness_worker* is its worker*), and what only the harness sees.
typedef struct worker_s {
	_Alignas(WORKER_ALIGN) harness_worker pub;
	worker_io last;            // its last I/O
	worker_evidence ev;
	worker_inflight inflight;
	// For the end of the run (a paced worker): the due time of the request
	// it is at, and whether it has done every request due before the end.
	atomic_uint_fast64_t next_due_ns;
	atomic_bool finished;
	atomic_int tid;            // its thread's id (0 until it runs)
} worker;

struct harness_s {
	const harness_program* program;
	void* prog;
	harness_params params;
	devset devs;
	program life;              // the setup's stops and guard (program.h)
	report rep;
	status st;
	bool setup_failed;         // a histogram could not be added
	bool checking;             // --check: devices claimed and previewed
                               // (devset_preview), never written
	health_run* health;        // the drives' health (health_run.h)
	cpu_times cpu_start;

	harness_kind kinds[HARNESS_MAX_KINDS];
	uint32_t n_kinds;
	worker* workers;
	uint32_t n_workers;

	uint64_t start_ns;         // time 0 of every schedule and report
	uint64_t end_ns;           // start + test-duration-sec: schedules end
	atomic_uint n_owing;       // paced workers not yet finished
	uint64_t max_lag_ns;
	rate_mode mode;            // of the HARNESS_PACE_CLIENT kinds

	char guard_limit[64];      // the hung-I/O limit, as lines say it

	pthread_t watchdog;
	bool watchdog_started;
	atomic_bool watchdog_stop;
	atomic_bool hung;          // the watchdog found a hung I/O
};

// worker.c: the thread function of a worker (run_thread_start).
void* worker_main(void* pv);

// worker.c: whether the worker is paced (has a schedule that ends).
bool worker_paced(const worker* w);

// worker.c: whether the worker's thread is runnable (running or waiting
// for a CPU), not asleep - in its I/O, say. True when that can't be told.
bool worker_runnable(const worker* w);

// worker.c: the worker is on schedule at now_ns (the run's start): the
// evidence for a later lag starts there.
void worker_mark(worker* w, uint64_t now_ns);

// watchdog.c: how long an I/O may be outstanding before it is a hung
// drive - max-lag-sec, or 10 s without it.
uint64_t watchdog_limit_ns(const harness* h);

// watchdog.c: start the watchdog thread. Returns 0 or the errno.
int watchdog_start(harness* h);

// watchdog.c: stop it and wait for it (if it was started).
void watchdog_stop(harness* h);

// watchdog.c: report every I/O in flight for longer than limit_ns (each
// once), and stop the run with EXIT_LAG. run_over: the run has ended and
// its workers had their time to finish.
void watchdog_report_hung(harness* h, uint64_t limit_ns, bool run_over);
