/*
 * clock.h - monotonic nanosecond clock and absolute sleeps.
 */
#pragma once

#include <stdint.h>
#include <time.h>

#define NS_PER_SEC ((uint64_t)1000000000)
#define NS_PER_MS ((uint64_t)1000000)
#define NS_PER_US ((uint64_t)1000)

// Nanoseconds on CLOCK_MONOTONIC.
uint64_t clock_ns(void);

// Sleep until the monotonic clock reaches deadline_ns (returns at once if
// it has passed). Restarts after signal interruptions.
void clock_sleep_until(uint64_t deadline_ns);

// The CLOCK_REALTIME time ns from now, as the absolute deadline that
// pthread_timedjoin_np and the like take.
struct timespec clock_realtime_after(uint64_t ns);
