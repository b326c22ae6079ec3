/*
 * harness.h - the run harness of act_storage and act_index.
 *
 * A run is one context, passed explicitly to everything that works on it
 * (in the manner of liburing passing its ring to every call): the harness
 * owns the devices, the histograms and their report, the start time, the
 * workers and the status line; the program owns its config and what it
 * derives per device.
 *
 * A program describes itself once (harness_program): its usage text, its
 * config table, how to load and echo its config, how to check a device and
 * print its log line, and - in setup_run - its histograms and its thread
 * kinds. main() is then one call to harness_main().
 *
 * Each thread kind names a step function: one request (or one bundle of
 * requests) of that kind. The worker skeleton does the rest: buffer and
 * random generator (allocated before the clock starts, so running out of
 * memory is a setup error), pacing on an absolute schedule, the I/O itself
 * with its latency recorded and its failure counted (harness_io), and the
 * lag and stall decisions (docs/act_storage.md, "Threads and pacing").
 *
 * A watchdog thread looks at every I/O in flight: one outstanding longer
 * than max-lag-sec (10 s with max-lag-sec 0), or still outstanding when the
 * run has ended and its workers were given time to finish, stops the run
 * with EXIT_LAG - a hung drive never passes, even if its I/O never returns
 * (docs/beyond.md, "A hung drive never passes").
 *
 * The run's life (stop, signals, exit status) is the process-wide `run`
 * module; the log is the process-wide `log` module.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/cfg.h"
#include "common/dev.h"
#include "common/devset.h"
#include "common/hist.h"
#include "common/rand.h"
#include "common/report.h"
#include "common/shared_cfg.h"
#include "common/strbuf.h"

typedef struct harness_s harness;
typedef struct harness_worker_s harness_worker;

// What the harness needs of a program's config (filled by its load()).
typedef struct harness_params_s {
	const cfg_set* set;        // the config's warnings (also after an error)
	const shared_cfg* cfg;     // the config's shared items (its `common`)
	uint64_t threads;          // worker threads the config asks for
	const char* threads_item;  // the item that asks for most of them
} harness_params;

// A program, described once.
typedef struct harness_program_s {
	const char* name;          // "act_storage"
	const char* test_kind;     // banner: "Storage device IO test"
	const char* about;         // --help: what the program does
	const cfg_table* table;    // for --config-help

	// Load, validate and derive the config (the file, then the command
	// line's --set items; n_cpus online CPUs for defaults); fill *p (p->set
	// even when it fails: the harness prints the warnings). Returns 0, or
	// -1 with the message in err.
	int (*load)(harness* h, const cfg_source* src, uint32_t n_cpus,
			harness_params* p, char* err, size_t err_len);

	// The log's configuration part (echo and derived values).
	void (*echo)(harness* h, strbuf* sb);

	// Device i is open: check it and append its log line to sb. Returns 0,
	// or -1 having printed the ERROR line.
	int (*setup_device)(harness* h, uint32_t i, strbuf* sb);

	// Every device passed: add the histograms (harness_hist), the status
	// rates (harness_status_rate) and the thread kinds (harness_add_kind).
	void (*setup_run)(harness* h);

	// After the run, whatever its end (may be NULL).
	void (*finish)(harness* h);
} harness_program;

// How a kind's threads are paced: all on absolute schedules from one start
// (rate.h). The client-driven kinds follow rate-process (docs/beyond.md,
// "Request timing"): aligned - operation k of every thread due at
// start + k / rate, so the threads wake together (the reference's timing);
// spread - thread i of n offset by i / n of a period; poisson - exponential
// gaps.
typedef enum {
	HARNESS_PACE_CLIENT,  // as rate-process says
	HARNESS_PACE_START,   // operation k due at start + k / rate
	HARNESS_PACE_NONE     // not paced: the step loops on its own
} harness_pacing;

// A kind of worker thread.
typedef struct harness_kind_s {
	const char* name;          // "service threads" - in lag messages
	const char* lag_advice;    // the ERROR line after a lag stop that the
	                           // drive's time does not explain
	harness_pacing pacing;
	bool per_device;           // one thread per device (else n_threads)
	uint32_t n_threads;
	double rate;               // operations per second, all threads together
	uint32_t ops_per_step;     // operations per step (0 means 1)
	uint32_t buf_size;         // each thread's I/O buffer
	void (*step)(harness_worker* w);
} harness_kind;

// A worker thread, as its step function sees it.
struct harness_worker_s {
	harness* h;
	const harness_kind* kind;
	uint32_t ix;               // index among the threads of its kind
	uint32_t dev_ix;           // per-device kinds: its device
	double rate;               // steps per second (paced kinds)
	uint8_t* buf;              // kind->buf_size bytes, aligned for O_DIRECT
	rand_t rnd;
	uint64_t due_ns;           // when the current step was due
	uint64_t cursor;           // the program's own per-thread state
};

// One synchronous I/O of a step (harness_io).
typedef struct harness_req_s {
	uint32_t dev_ix;
	const char* op;            // "read", "large-block write"... in messages
	bool write;
	uint32_t size;
	uint64_t off;
	hist* h;                   // latency histogram, or NULL
	hist* dev_h;               // the device's latency histogram, or NULL
	hist* total;               // latency from the step's due time, or NULL
} harness_req;

// The whole program: arguments, log, config, devices, run, exit status.
int harness_main(int argc, char* argv[], const harness_program* p,
		void* prog);

// The program's own context (the prog of harness_main).
void* harness_prog(const harness* h);

// The devices, in config order.
uint32_t harness_n_devices(const harness* h);
dev* harness_dev(const harness* h, uint32_t i);

// setup_run: add a histogram named by the format (print order). Returns it;
// a histogram that can't be added fails the setup (the run does not start).
hist* harness_hist(harness* h, const char* fmt, ...)
	__attribute__((format(printf, 2, 3)));

// setup_run: show this rate in the live status line ("reads 2000.0/2000.0/s").
void harness_status_rate(harness* h, const char* label, const hist* hg,
		double configured);

// setup_run: as harness_status_rate, with a short label for the compact line
// ("svc reads 3000/3000") and a histogram whose count is taken off hg's
// (NULL: none).
void harness_status_rate_short(harness* h, const char* label,
		const char* short_label, const hist* hg, const hist* minus,
		double configured);

// setup_run: the histogram whose share over 1 ms (or us) the status shows.
void harness_status_reads(harness* h, const hist* hg);

// setup_run: add a kind of worker thread (copied). A paced kind whose rate
// is 0 starts no thread.
void harness_add_kind(harness* h, const harness_kind* k);

// A step: do one whole I/O with w->buf. Records its latency when the run is
// still going; a failure is printed and counted (docs/beyond.md, "I/O
// errors") and stops the run past io-error-limit. Returns 0 or the errno.
int harness_io(harness_worker* w, const harness_req* r);
