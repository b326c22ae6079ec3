/*
 * cpu.h - how busy the host's CPUs were (from /proc/stat), to tell a host
 * that can't generate the load from a drive that can't serve it.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

typedef struct cpu_times_s {
	uint64_t busy;    // jiffies, all CPUs: everything but idle and iowait
	uint64_t total;
} cpu_times;

// Read the host's CPU times. Returns false if /proc/stat can't be read.
bool cpu_sample(cpu_times* t);

// Percent of CPU time busy between two samples, or -1 if unknown.
double cpu_busy_pct(const cpu_times* from, const cpu_times* to);
