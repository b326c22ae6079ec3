/*
 * clock.c - monotonic nanosecond clock and absolute sleeps.
 */

#include "common/clock.h"

#include <errno.h>
#include <time.h>

//==========================================================
// Public API.
//

uint64_t
clock_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);

	return (uint64_t)ts.tv_sec * NS_PER_SEC + (uint64_t)ts.tv_nsec;
}

void
clock_sleep_until(uint64_t deadline_ns)
{
	struct timespec ts = {
		.tv_sec = (time_t)(deadline_ns / NS_PER_SEC),
		.tv_nsec = (long)(deadline_ns % NS_PER_SEC)
	};

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) ==
			EINTR) {
		;
	}
}

struct timespec
clock_realtime_after(uint64_t ns)
{
	struct timespec abs;

	clock_gettime(CLOCK_REALTIME, &abs);

	uint64_t abs_ns = (uint64_t)abs.tv_sec * NS_PER_SEC +
			(uint64_t)abs.tv_nsec + ns;

	abs.tv_sec = (time_t)(abs_ns / NS_PER_SEC);
	abs.tv_nsec = (long)(abs_ns % NS_PER_SEC);

	return abs;
}
