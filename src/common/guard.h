/*
 * guard.h - the setup guard: the hung-I/O watchdog of device setup.
 *
 * Device setup (dev_open's minimum-I/O probe) runs on the main thread
 * before the run's watchdog exists, and a thread stuck in an I/O can't be
 * woken. Between guard_start and guard_stop a monitor thread watches the
 * setup I/O bracketed by guard_io_begin / guard_io_end (one at a time:
 * setup runs on one thread). When that I/O has been outstanding longer
 * than the limit, or a SIGINT / SIGTERM arrives while it is outstanding,
 * the monitor prints the ERROR line (hung) and calls the program's stop
 * callback, which undoes the setup, ends the log and ends the process
 * (_exit) with the status given: EXIT_LAG, or 128 + the signal. The thread
 * in the I/O stays where it is; its guard_io_end waits until the process
 * is gone.
 *
 * A signal while no setup I/O is outstanding is left pending for the main
 * thread's own checks between setup steps (run_pending_signal).
 *
 * Without guard_start, guard_io_begin / guard_io_end do nothing.
 */
#pragma once

#include <stdint.h>

typedef struct guard_cfg_s {
	// An I/O outstanding longer than this is a hung drive; 0: no limit (a
	// signal still ends a hung setup).
	uint64_t limit_ns;
	// Completes "more than %s - %s" in the ERROR line, e.g.
	// "max-lag-sec (2)" and "test stopped".
	const char* limit_text;
	const char* stopped_text;
	// Called by the monitor thread with sig 0 (hung, the ERROR line
	// printed) or the signal's number, and the exit status: undo what
	// setup did, end the log and end the process - it must not return.
	// The main thread is inside the I/O meanwhile.
	void (*stop)(void* udata, int sig, int exit_status)
			__attribute__((noreturn));
	void* udata;
} guard_cfg;

// Start the monitor thread (cfg is copied; its strings must live until
// guard_stop). Returns 0 or an errno.
int guard_start(const guard_cfg* cfg);

// Stop and join the monitor thread. A no-op if it was not started.
void guard_stop(void);

// Around each setup I/O: device, "read" or "write", offset and size name
// it in the ERROR line.
void guard_io_begin(const char* device, const char* op, uint64_t off,
		uint32_t size);
void guard_io_end(void);
