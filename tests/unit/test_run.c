/*
 * Description: run_sleep_until, the pacing sleep of every worker - it
 * sleeps to its deadline in one wake-up (not in slices: an idle thread
 * must cost nothing between its requests), never returns early, and is
 * woken at once by run_stop from another thread even when its deadline is
 * far away; after the stop it returns at once.
 */

#include <pthread.h>
#include <stdatomic.h>
#include <sys/resource.h>

#include "common/clock.h"
#include "common/run.h"
#include "unit.h"

// How long the thread of the first case sleeps, and how many context
// switches it may take for it (one sleep is 1; a 50 ms slice would be 10).
#define SLEEP_NS (500 * NS_PER_MS)
#define MAX_SWITCHES 3

// The far deadline of the stop case, and how soon run_stop must wake it.
#define FAR_NS (30 * NS_PER_SEC)
#define WAKE_WITHIN_NS (2 * NS_PER_SEC)

typedef struct sleeper_s {
	uint64_t deadline_ns;
	uint64_t woke_ns;
	long switches;         // voluntary context switches during the sleep
	atomic_bool asleep;
} sleeper;

static long
voluntary_switches(void)
{
	struct rusage ru;

	getrusage(RUSAGE_THREAD, &ru);

	return ru.ru_nvcsw;
}

static void*
sleep_main(void* pv)
{
	sleeper* s = pv;
	long before = voluntary_switches();

	atomic_store(&s->asleep, true);
	run_sleep_until(s->deadline_ns);
	s->woke_ns = clock_ns();
	s->switches = voluntary_switches() - before;

	return NULL;
}

int
main(void)
{
	run_block_signals();

	// One sleep to the deadline, in one wake-up, never early.
	sleeper s = { .deadline_ns = clock_ns() + SLEEP_NS };
	pthread_t t;

	pthread_create(&t, NULL, sleep_main, &s);
	pthread_join(t, NULL);
	CHECK(s.woke_ns >= s.deadline_ns, "woke %" PRIu64 " ns before the "
			"deadline", s.deadline_ns - s.woke_ns);
	CHECK(s.switches <= MAX_SWITCHES, "a %" PRIu64 " ms sleep: expected at "
			"most %d voluntary context switches (one wake-up), got %ld",
			SLEEP_NS / NS_PER_MS, MAX_SWITCHES, s.switches);

	// A sleep 30 s away, woken by a stop from another thread.
	sleeper far = { .deadline_ns = clock_ns() + FAR_NS };

	pthread_create(&t, NULL, sleep_main, &far);

	while (! atomic_load(&far.asleep)) {
		clock_sleep_until(clock_ns() + NS_PER_MS);
	}

	clock_sleep_until(clock_ns() + 50 * NS_PER_MS); // well into its sleep

	uint64_t stop_ns = clock_ns();

	CHECK(run_stop(EXIT_OK), "run_stop: the first call must win");
	pthread_join(t, NULL);
	CHECK(far.woke_ns - stop_ns < WAKE_WITHIN_NS, "run_stop woke the "
			"sleeper after %.3f s, expected under %.1f s",
			(double)(far.woke_ns - stop_ns) / NS_PER_SEC,
			(double)WAKE_WITHIN_NS / NS_PER_SEC);

	// Stopped: no sleep at all.
	uint64_t t0 = clock_ns();

	run_sleep_until(t0 + FAR_NS);
	CHECK(clock_ns() - t0 < WAKE_WITHIN_NS, "run_sleep_until after the "
			"stop slept %.3f s", (double)(clock_ns() - t0) / NS_PER_SEC);

	return unit_end("test_run");
}
