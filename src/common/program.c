/*
 * program.c - the life of a program that sets up devices before it works
 * on them: start, guarded setup, stops that undo, commit.
 */

#include "common/program.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/guard.h"
#include "common/log.h"
#include "common/run.h"

//==========================================================
// Forward declarations.
//

static void log_failed(int err);
static void guard_stopped(void* udata, int sig, int exit_status)
		__attribute__((noreturn));

//==========================================================
// Public API.
//

int
program_start(void)
{
	// First of all: a Ctrl-C during setup waits to be taken between setup
	// steps (which then undo what they did), and the log has a stdout that
	// no device can take.
	run_block_signals();

	char err[256];

	if (log_init(err, sizeof(err)) != 0) {
		fprintf(stderr, "ERROR: %s\n", err);
		return EXIT_LOG;
	}

	log_on_failure(log_failed);

	return 0;
}

int
program_setup(program* pg, int (*setup)(void* ctx), void* ctx)
{
	int rv = guard_start(&(guard_cfg){ .limit_ns = pg->limit_ns,
			.limit_text = pg->limit_text, .stopped_text = pg->stopped_text,
			.stop = guard_stopped, .udata = pg });

	if (rv != 0) {
		log_error("can't start the setup watchdog thread: %s (errno %d)",
				strerror(rv), rv);
		return EXIT_SETUP;
	}

	rv = setup(ctx);
	guard_stop();

	return rv == 0 ? 0 : EXIT_SETUP;
}

int
program_setup_stop(const program* pg)
{
	int sig = run_pending_signal();

	if (sig == 0) {
		if (log_failure() == 0) {
			return 0;
		}

		program_release(pg);

		return EXIT_LOG;
	}

	program_release(pg);
	run_stop(EXIT_SIGNAL + sig);
	pg->signal_stopped(sig);

	return EXIT_SIGNAL + sig;
}

void
program_release(const program* pg)
{
	if (pg->close_only) {
		devset_close(pg->devs);
	}
	else {
		devset_undo(pg->devs);
	}
}

int
program_commit(const program* pg)
{
	int rv = program_setup_stop(pg);

	if (rv != 0) {
		return rv;
	}

	return devset_commit(pg->devs) == 0 ? 0 : EXIT_SETUP;
}

//==========================================================
// Local helpers.
//

// The log's first failed write (log_on_failure): stop, and wake the main
// thread to see it.
static void
log_failed(int err)
{
	(void)err; // log.c has said which error on stderr

	run_stop(EXIT_LOG);
	run_wake_main();
}

// The setup guard's end of a hung setup (its monitor thread; the main
// thread is in the I/O): undo the devices, end the log, exit.
static void
guard_stopped(void* udata, int sig, int exit_status)
{
	const program* pg = udata;

	program_release(pg);

	if (sig != 0) {
		pg->signal_stopped(sig);
	}

	_exit(exit_status);
}
