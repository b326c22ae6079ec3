/*
 * run.h - the life of a benchmark run: exit statuses, stopping, signals and
 * the report clock.
 *
 * The main thread blocks SIGINT, SIGTERM and SIGUSR1 before it starts any
 * worker (so workers inherit the mask), then sits in run_reports(), which
 * waits for each report's due time with sigtimedwait(). A worker that must
 * end the run (lag, I/O errors) calls run_stop(), which wakes the main
 * thread with SIGUSR1.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

// Exit statuses of all three binaries.
#define EXIT_OK 0
#define EXIT_USAGE 1      // usage or config error; nothing was done
#define EXIT_SETUP 2      // device or setup error
#define EXIT_LAG 3        // load could not be kept up (max-lag-sec)
#define EXIT_IO 4         // stopped by I/O errors (io-error-limit)
#define EXIT_LOG 5        // the log could not be written
#define EXIT_SIGNAL 128   // + signal number

// Call first thing in main, before creating any other thread: from then
// on SIGINT and SIGTERM wait to be taken (run_pending_signal, run_wait).
void run_block_signals(void);

// True until the run ends (normally or stopped).
bool run_going(void);

// End the run with an exit status; the first call wins (and returns true).
// Any thread.
bool run_stop(int exit_code);

// Wake the main thread from run_reports (or its own sigtimedwait on
// SIGUSR1) without stopping the run.
void run_wake_main(void);

// The exit status set by the first run_stop, or -1 while running.
int run_stop_code(void);

// Main thread, after run_block_signals: a SIGINT or SIGTERM that arrived
// meanwhile (blocked, so pending) is taken and its number returned; else 0.
// Setup steps call it between steps.
int run_pending_signal(void);

// Main thread, after run_block_signals: wait until deadline_ns, until the
// main thread is woken (run_wake_main, or run_stop from another thread), or
// until SIGINT or SIGTERM arrives. Returns that signal's number, or 0.
int run_wait(uint64_t deadline_ns);

// Called for each report: report_sec is the time since start it is due at.
typedef void (*run_report_fn)(uint32_t report_sec, void* udata);

// Before the last report: true once the workers have done every request
// due before the end.
typedef bool (*run_settled_fn)(void* udata);

// Print reports at start + k * interval (k = 1, 2, ...) and a last one at
// duration, until the end, a stop or a signal. The last one waits, up to
// settle_ns after its due time, until settled(udata) (the main thread is
// woken by run_wake_main to look again). A signal ends the log
// (run_log_stopped). Returns the exit status.
int run_reports(uint64_t start_ns, uint32_t duration_sec,
		uint32_t interval_sec, uint64_t settle_ns, run_settled_fn settled,
		run_report_fn report, void* udata);

// Sleep until deadline_ns (monotonic clock) in one wake-up; when the run
// ends (run_stop) a sleep longer than 50 ms ends at once. Any thread.
void run_sleep_until(uint64_t deadline_ns);

// The same, the clock having been read (now_ns) just before.
void run_sleep(uint64_t now_ns, uint64_t deadline_ns);

// Start a worker thread (tracked for run_join). Returns 0 or an errno.
int run_thread_start(void* (*fn)(void*), void* arg);

// Wait up to timeout_ns in all for the workers to finish after the run
// ended, and join them. Workers stuck in an I/O are detached and left
// behind (the process exits). Returns true if all of them finished.
bool run_join(uint64_t timeout_ns);

// The log's last line when signal sig stopped the run secs after its start
// (docs/log-format.md, "End of run"): "stopped on request: REASON after S
// sec" when the parent that runs the program gave a reason first
// (holder_stop_fd), else "stopped by signal NAME after S sec"
// (log_final: nothing is written after it).
void run_log_stopped(int sig, uint64_t secs);

// "SIGINT" etc.
const char* run_signal_name(int sig);
