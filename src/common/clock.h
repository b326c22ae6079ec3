/*
 * clock.h - monotonic nanosecond clock and absolute sleeps.
 */
#pragma once

#include <stdint.h>

#define NS_PER_SEC ((uint64_t)1000000000)
#define NS_PER_MS ((uint64_t)1000000)
#define NS_PER_US ((uint64_t)1000)

// Nanoseconds on CLOCK_MONOTONIC.
uint64_t clock_ns(void);

// Sleep until the monotonic clock reaches deadline_ns (returns at once if
// it has passed). Restarts after signal interruptions.
void clock_sleep_until(uint64_t deadline_ns);
