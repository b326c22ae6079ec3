/*
 * cpu.h - the host's CPUs: how many, how many threads it can start, and
 * how busy they were (from /proc/stat), to tell a host that can't generate
 * the load from a drive that can't serve it.
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

// Online CPUs (at least 1).
uint32_t cpu_online(void);

// How many threads this host can start: kernel.threads-max and the soft
// RLIMIT_NPROC, less a margin for everything else that runs (at most
// 100000).
uint64_t cpu_thread_limit(void);
