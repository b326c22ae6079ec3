/*
 * watchdog.c - the hung-I/O watchdog of a run: a thread that looks at
 * every worker's I/O in flight. One outstanding longer than max-lag-sec
 * (10 s with max-lag-sec 0), or still outstanding when the run has ended
 * and its workers were given time to finish, stops the run with EXIT_LAG -
 * a hung drive never passes, even if its I/O never returns (docs/beyond.md,
 * "A hung drive never passes").
 */

#include "common/harness_priv.h"

#include <pthread.h>
#include <stdatomic.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/loglines.h"
#include "common/run.h"

//==========================================================
// Typedefs & constants.
//

// How long an I/O may be outstanding with max-lag-sec 0 before it is a hung
// drive; how often the watchdog looks.
#define HUNG_NO_LAG_NS (10 * NS_PER_SEC)
#define WATCH_STEP_NS (100 * NS_PER_MS)

//==========================================================
// Forward declarations.
//

static void* watchdog_main(void* pv);

//==========================================================
// Public API (of the harness).
//

uint64_t
watchdog_limit_ns(const harness* h)
{
	return h->max_lag_ns != 0 ? h->max_lag_ns : HUNG_NO_LAG_NS;
}

int
watchdog_start(harness* h)
{
	int rv = pthread_create(&h->watchdog, NULL, watchdog_main, h);

	h->watchdog_started = rv == 0;

	return rv;
}

void
watchdog_stop(harness* h)
{
	if (! h->watchdog_started) {
		return;
	}

	atomic_store(&h->watchdog_stop, true);
	pthread_join(h->watchdog, NULL);
	h->watchdog_started = false;
}

void
watchdog_report_hung(harness* h, uint64_t limit_ns, bool run_over)
{
	// One clock read per scan: an I/O that started after it (start > now)
	// is not overdue; with 1000 workers a scan is 1000 loads, not 1000
	// clock reads.
	uint64_t now = clock_ns();

	for (uint32_t i = 0; i < h->n_workers; i++) {
		worker_inflight* f = &h->workers[i].inflight;
		uint64_t start = atomic_load_explicit(&f->start_ns,
				memory_order_acquire);

		if (start == 0 || now < start || now - start <= limit_ns ||
				atomic_load_explicit(&f->reported, memory_order_relaxed)) {
			continue;
		}

		const char* device = atomic_load_explicit(&f->device,
				memory_order_relaxed);
		const char* op = atomic_load_explicit(&f->op, memory_order_relaxed);
		uint32_t size = (uint32_t)atomic_load_explicit(&f->size,
				memory_order_relaxed);
		uint64_t off = atomic_load_explicit(&f->off, memory_order_relaxed);

		// Still the same I/O? (It may have ended while we read.)
		if (atomic_load_explicit(&f->start_ns, memory_order_acquire) !=
				start) {
			continue;
		}

		atomic_store(&f->reported, true);
		atomic_store(&h->hung, true);

		double waited = (double)(now - start) / NS_PER_SEC;
		char msg[LL_MSG_LEN];

		log_error("%s", ll_hung_io(msg, sizeof(msg), &(ll_io){
				.device = device, .op = op, .size = size, .off = off }, waited,
				run_over ? NULL : h->guard_limit, "test stopped"));

		run_stop(EXIT_LAG);
	}
}

//==========================================================
// Local helpers.
//

static void*
watchdog_main(void* pv)
{
	harness* h = pv;
	uint64_t limit = watchdog_limit_ns(h);
	uint64_t step = limit / 4 < WATCH_STEP_NS ? limit / 4 : WATCH_STEP_NS;

	while (! atomic_load(&h->watchdog_stop)) {
		watchdog_report_hung(h, limit, false);
		clock_sleep_until(clock_ns() + step);
	}

	return NULL;
}
