/*
 * Description: run_sleep_until, the pacing sleep of every worker - it
 * sleeps to its deadline in one wake-up (not in slices: an idle thread
 * must cost nothing between its requests), never returns early, and is
 * woken at once by run_stop from another thread when its deadline is
 * far away - in a thread of run_thread_start (which sleeps on a wake
 * word of its own) and in any other thread; after the stop it returns at
 * once.
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

	// One sleep to the deadline, in one wake-up, never early: in a thread
	// of run_thread_start (its own wake word) and in any other thread.
	sleeper s[2];
	pthread_t t;

	for (int i = 0; i < 2; i++) {
		s[i] = (sleeper){ .deadline_ns = clock_ns() + SLEEP_NS };

		if (i == 0) {
			CHECK(run_thread_start(sleep_main, &s[i]) == 0, "run_thread_start");
			CHECK(run_join(10 * NS_PER_SEC), "run_join");
		}
		else {
			pthread_create(&t, NULL, sleep_main, &s[i]);
			pthread_join(t, NULL);
		}

		CHECK(s[i].woke_ns >= s[i].deadline_ns, "[%d] woke %" PRIu64 " ns "
				"before the deadline", i, s[i].deadline_ns - s[i].woke_ns);
		CHECK(s[i].switches <= MAX_SWITCHES, "[%d] a %" PRIu64 " ms sleep: "
				"expected at most %d voluntary context switches (one "
				"wake-up), got %ld", i, SLEEP_NS / NS_PER_MS, MAX_SWITCHES,
				s[i].switches);
	}

	// Sleeps 30 s away, woken by a stop from another thread: one in a
	// thread of run_thread_start, one in another thread.
	sleeper far[2] = {
		{ .deadline_ns = clock_ns() + FAR_NS },
		{ .deadline_ns = clock_ns() + FAR_NS }
	};

	CHECK(run_thread_start(sleep_main, &far[0]) == 0, "run_thread_start");
	pthread_create(&t, NULL, sleep_main, &far[1]);

	while (! atomic_load(&far[0].asleep) || ! atomic_load(&far[1].asleep)) {
		clock_sleep_until(clock_ns() + NS_PER_MS);
	}

	clock_sleep_until(clock_ns() + 50 * NS_PER_MS); // well into its sleep

	uint64_t stop_ns = clock_ns();

	CHECK(run_stop(EXIT_OK), "run_stop: the first call must win");
	CHECK(run_join(10 * NS_PER_SEC), "run_join");
	pthread_join(t, NULL);

	for (int i = 0; i < 2; i++) {
		CHECK(far[i].woke_ns - stop_ns < WAKE_WITHIN_NS, "[%d] run_stop woke "
				"the sleeper after %.3f s, expected under %.1f s", i,
				(double)(far[i].woke_ns - stop_ns) / NS_PER_SEC,
				(double)WAKE_WITHIN_NS / NS_PER_SEC);
	}

	// Stopped: no sleep at all.
	uint64_t t0 = clock_ns();

	run_sleep_until(t0 + FAR_NS);
	CHECK(clock_ns() - t0 < WAKE_WITHIN_NS, "run_sleep_until after the "
			"stop slept %.3f s", (double)(clock_ns() - t0) / NS_PER_SEC);

	return unit_end("test_run");
}
