/*
 * program.h - the life of a program that sets up devices before it works
 * on them, shared by the run harness (act_storage, act_index) and
 * act_prep:
 *
 *   program_start       first thing in main: signals blocked (a Ctrl-C
 *                       during setup waits to be taken), the log opened, a
 *                       failed log write stops the program (EXIT_LOG)
 *   program_setup       a setup step - devset_open and what goes with it -
 *                       under the setup guard (guard.h): a hung setup I/O,
 *                       or a signal while one is outstanding, undoes the
 *                       devices and ends the process
 *   program_setup_stop  between setup steps: a signal taken or a failed
 *                       log write undoes the devices and ends the setup
 *   program_commit      the last such check, then devset_commit: from here
 *                       on the devices stay as set up
 *
 * Then the program starts its threads (run_thread_start) and joins them
 * (run_join), run.h.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "common/devset.h"

typedef struct program_s {
	devset* devs;              // what a stop during setup undoes
	// The setup guard's hung-I/O limit (0: none) and the words of its
	// ERROR line ("more than LIMIT_TEXT - STOPPED_TEXT"), guard_cfg.
	uint64_t limit_ns;
	const char* limit_text;
	const char* stopped_text;
	// Ends the log after a stop by signal sig during setup, the devices
	// undone: on the main thread, or the guard's monitor thread.
	void (*signal_stopped)(int sig);
	// The devices are only claimed, never set up (--check): a stop closes
	// them (devset_close) instead of undoing them.
	bool close_only;
} program;

// Block the signals (run_block_signals), open the log (log_init) and stop
// the program on a failed log write (run_stop(EXIT_LOG), the main thread
// woken). Returns 0, or EXIT_LOG having said why on stderr.
int program_start(void);

// setup(ctx) under the setup guard (pg is its udata: it must live until
// this returns). setup returns 0, or -1 having printed the ERROR line and
// undone what it did. Returns 0 or EXIT_SETUP.
int program_setup(program* pg, int (*setup)(void* ctx), void* ctx);

// A SIGINT or SIGTERM taken since the last look, or a failed log write:
// undo the devices (files created or grown go back as they were) and, for
// a signal, stop the run and end the log (signal_stopped). Returns 0 (no
// stop), EXIT_LOG or EXIT_SIGNAL + the signal.
int program_setup_stop(const program* pg);

// Let go of the devices before the run: undo what setup did (devset_undo:
// files created or grown go back as they were); close them if only
// claimed (close_only).
void program_release(const program* pg);

// The last moment a stop undoes the setup (program_setup_stop), then
// devset_commit. Returns 0, the stop's status, or EXIT_SETUP (the commit
// failed: its ERROR line printed, the devices undone).
int program_commit(const program* pg);
