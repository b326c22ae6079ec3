/*
 * guard.c - the setup guard: the hung-I/O watchdog of device setup.
 */

#include "common/guard.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <time.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/loglines.h"
#include "common/run.h"

//==========================================================
// Typedefs & constants.
//

// How often the monitor looks at the outstanding I/O and for a signal.
#define GUARD_STEP_NS (50 * NS_PER_MS)

//==========================================================
// Globals.
//

// g_lock guards everything below. The monitor holds it from the moment it
// decides to end the process until _exit, so the main thread can't leave
// its I/O (guard_io_end) and go on with a setup being undone.
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_cond;
static pthread_t g_monitor;
static bool g_started = false;
static bool g_stopping = false;
static guard_cfg g_cfg;

// The setup I/O outstanding (start_ns 0: none).
static uint64_t g_start_ns = 0;
static const char* g_device;
static const char* g_op;
static uint64_t g_off;
static uint32_t g_size;

//==========================================================
// Forward declarations.
//

static void* monitor_main(void* pv);
static void end_process(int sig, uint64_t now) __attribute__((noreturn));

//==========================================================
// Public API.
//

int
guard_start(const guard_cfg* cfg)
{
	pthread_condattr_t attr;

	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&g_cond, &attr);
	pthread_condattr_destroy(&attr);

	pthread_mutex_lock(&g_lock);
	g_cfg = *cfg;
	g_stopping = false;
	g_start_ns = 0;

	int rv = pthread_create(&g_monitor, NULL, monitor_main, NULL);

	g_started = rv == 0;
	pthread_mutex_unlock(&g_lock);

	if (rv != 0) {
		pthread_cond_destroy(&g_cond);
	}

	return rv;
}

void
guard_stop(void)
{
	pthread_mutex_lock(&g_lock);

	if (! g_started) {
		pthread_mutex_unlock(&g_lock);
		return;
	}

	g_stopping = true;
	pthread_cond_signal(&g_cond);
	pthread_mutex_unlock(&g_lock);

	pthread_join(g_monitor, NULL);

	pthread_mutex_lock(&g_lock);
	g_started = false;
	pthread_mutex_unlock(&g_lock);

	pthread_cond_destroy(&g_cond);
}

void
guard_io_begin(const char* device, const char* op, uint64_t off,
		uint32_t size)
{
	pthread_mutex_lock(&g_lock);
	g_device = device;
	g_op = op;
	g_off = off;
	g_size = size;
	g_start_ns = clock_ns();
	pthread_mutex_unlock(&g_lock);
}

void
guard_io_end(void)
{
	int e = errno; // the I/O's, for the caller

	pthread_mutex_lock(&g_lock);
	g_start_ns = 0;
	pthread_mutex_unlock(&g_lock);
	errno = e;
}

//==========================================================
// Local helpers.
//

static void*
monitor_main(void* pv)
{
	(void)pv;

	pthread_mutex_lock(&g_lock);

	while (! g_stopping) {
		uint64_t now = clock_ns();

		if (g_start_ns != 0) {
			// Signals are blocked in every thread (run_block_signals):
			// this takes one that is pending, as the main thread would.
			int sig = run_pending_signal();

			if (sig != 0) {
				end_process(sig, now);
			}

			if (g_cfg.limit_ns != 0 && now > g_start_ns &&
					now - g_start_ns > g_cfg.limit_ns) {
				end_process(0, now);
			}
		}

		uint64_t wake = now + GUARD_STEP_NS;
		struct timespec ts = {
			.tv_sec = (time_t)(wake / NS_PER_SEC),
			.tv_nsec = (long)(wake % NS_PER_SEC)
		};

		pthread_cond_timedwait(&g_cond, &g_lock, &ts);
	}

	pthread_mutex_unlock(&g_lock);

	return NULL;
}

// With g_lock held, the setup I/O still outstanding: end the process (the
// thread in the I/O can't be woken, and never gets the lock back).
static void
end_process(int sig, uint64_t now)
{
	if (sig == 0) {
		char msg[LL_MSG_LEN];

		log_error("%s", ll_hung_io(msg, sizeof(msg), &(ll_io){
				.device = g_device, .op = g_op, .size = g_size, .off = g_off },
				(double)(now - g_start_ns) / NS_PER_SEC, g_cfg.limit_text,
				g_cfg.stopped_text));
	}

	g_cfg.stop(g_cfg.udata, sig, sig == 0 ? EXIT_LAG : EXIT_SIGNAL + sig);
}
