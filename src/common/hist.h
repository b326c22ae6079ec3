/*
 * hist.h - lock-free latency histograms with power-of-two buckets.
 *
 * See hist.c for the bucket scheme and the log format of a dump.
 */
#pragma once

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/strbuf.h"

#define HIST_N_BUCKETS 65

typedef enum {
	HIST_MS,
	HIST_US
} hist_scale;

typedef struct hist_s {
	uint64_t divisor; // ns per unit: 1000000 (ms) or 1000 (us)
	atomic_uint_fast64_t counts[HIST_N_BUCKETS];
} hist;

void hist_init(hist* h, hist_scale scale);

// Bucket of a latency of ns nanoseconds (pure).
uint32_t hist_bucket(uint64_t ns, uint64_t divisor);

// Record one latency. Safe from any number of threads at once.
void hist_insert_ns(hist* h, uint64_t ns);

// Copy the counts (each read atomically) and return their sum.
uint64_t hist_snapshot(const hist* h, uint64_t counts[HIST_N_BUCKETS]);

// Append a histogram's report block - "<name> (<total> total)" and its
// bucket lines - to sb, from a snapshot.
void hist_format(strbuf* sb, const char* name,
		const uint64_t counts[HIST_N_BUCKETS]);

// Snapshot and format in one step.
void hist_dump(const hist* h, const char* name, strbuf* sb);
