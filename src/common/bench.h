/*
 * bench.h - what act_storage and act_index share around their run: the
 * command line, the banner, and opening the devices safely.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "cfg.h"
#include "dev.h"
#include "hist.h"
#include "report.h"

// Handle the command line "PROG CONFIG | --help | --version". Returns -1
// to go on with *config_path set, else the exit status (0 after --help or
// --version, EXIT_USAGE for bad usage).
int bench_args(int argc, char* argv[], const char* usage,
		const char** config_path);

// The banner: empty line, "ACT version V", the test kind, the notice, an
// empty line.
void bench_banner(const char* kind);

// Online CPUs (at least 1).
uint32_t bench_n_cpus(void);

// Check every device (nothing written), then open them all. Returns 0, or
// -1 having printed the ERROR line (devices opened so far are undone).
int bench_open_devices(const cfg_names* names, const dev_opts* o,
		dev* devs);

// Setup is complete: apply pending file shrinks (see dev_commit). Returns
// 0, or -1 having printed the ERROR line and undone every device.
int bench_commit_devices(dev* devs, uint32_t n);

// Setup failed after bench_open_devices: undo every device (see dev_undo).
void bench_undo_devices(dev* devs, uint32_t n);

// A thread is lag_ns behind schedule, more than max-lag-sec: unless the run
// has already been stopped, print why ("<what> can't keep up ...") and stop
// it with EXIT_LAG. Returns true if this call stopped the run (the caller
// may add a line of advice).
bool bench_lag_stop(uint64_t lag_ns, uint32_t max_lag_sec, const char* what);

// A service thread fell behind because one of its own I/Os took took_ns,
// more than max-lag-sec: the drive stalled, not the thread count. Print it
// (device, operation, size, offset, time) and stop the run with EXIT_LAG.
void bench_stall_stop(const char* device, const char* op, uint32_t size,
		uint64_t off, uint64_t took_ns, uint32_t max_lag_sec);

// Live status (beyond.md): one line on a terminal's stderr per report -
// elapsed / total time, achieved vs configured rate of each thread kind,
// and the last interval's share of reads over 1 ms (or us).
typedef struct bench_rate_s {
	const char* label;     // "reads", "lb-writes"...
	const hist* h;         // NULL: not in this run
	double configured;     // ops per second
	uint64_t prev_total;   // (state)
} bench_rate;

typedef struct bench_status_s {
	bench_rate rates[6];
	uint32_t n_rates;
	const hist* reads;     // for the over-1-unit share; may be NULL
	bool us;
	uint32_t duration_sec;
	uint32_t prev_sec;     // (state)
	uint64_t prev_over;    // (state)
	uint64_t prev_reads_total; // (state)
} bench_status;

void bench_status_add(bench_status* st, const char* label, const hist* h,
		double configured);
void bench_status_show(bench_status* st, uint32_t report_sec);

// Allocate and open the devices of a config (bench_open_devices).
// Returns the array (free it), or NULL having printed the ERROR line.
dev* bench_setup_devices(const cfg_names* names, uint32_t file_size_mbytes,
		bool disable_odsync, const char* scheduler);

// The run itself: block the signals, start the workers (start_threads sets
// *start_ns, the time 0 of the schedules and reports), print a report
// every interval until the end, a stop or a signal, then wait for the
// workers. Returns the exit status; *joined says whether every worker
// finished (if not, memory they use must not be freed).
int bench_run(int (*start_threads)(void), const uint64_t* start_ns,
		uint32_t duration_sec, uint32_t interval_sec, const report* rep,
		bench_status* status, bool* joined);

// Close all devices.
void bench_close_devices(dev* devs, uint32_t n);
