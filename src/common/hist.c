/*
 * hist.c - lock-free latency histograms with power-of-two buckets.
 *
 * The bucket scheme (the one every ACT log and analysis tool relies on):
 *
 * A latency is measured in nanoseconds on the monotonic clock, then divided
 * (integer division) by the histogram's unit - 1,000,000 for millisecond
 * histograms, 1,000 for microsecond ones - giving t. Then:
 *
 *     bucket 0     holds t == 0                 (ms: under 1 ms)
 *     bucket b>=1  holds 2^(b-1) <= t < 2^b     (ms: [1,2), [2,4), [4,8)...)
 *
 * so bucket b = 1 + floor(log2(t)) = 64 - clz(t) for t > 0, and 65 buckets
 * (0..64) cover every 64-bit t. The analysis script reports "% over 2^b"
 * as the share of operations in buckets above b.
 *
 * Inserting is one relaxed atomic add, so any number of I/O threads can
 * report at once with no lock; a dump reads each bucket atomically (the
 * total printed is the sum of what was read, so it always matches the
 * buckets printed).
 *
 * Dump format, one block per histogram in a report:
 *
 *     reads (6000 total)
 *      (00: 0000005993) (01: 0000000002) (02: 0000000002) (03: 0000000003)
 *      (04: 0000000001)
 *
 * Only non-zero buckets are printed, lowest first, four per line, each as
 * " (BB: CCCCCCCCCC)" with the count zero-padded to ten digits (wider when
 * it needs more). A histogram with no data prints just its name line.
 */

#include "common/hist.h"

#include <inttypes.h>

#include "common/clock.h"
#include "common/loglines.h"

//==========================================================
// Typedefs & constants.
//

#define BUCKETS_PER_LINE 4

//==========================================================
// Public API.
//

void
hist_init(hist* h, hist_scale scale)
{
	h->divisor = scale == HIST_US ? NS_PER_US : NS_PER_MS;

	for (uint32_t i = 0; i < HIST_N_BUCKETS; i++) {
		atomic_init(&h->counts[i], 0);
	}
}

uint32_t
hist_bucket(uint64_t ns, uint64_t divisor)
{
	uint64_t t = ns / divisor;

	return t == 0 ? 0 : 64 - (uint32_t)__builtin_clzll(t);
}

void
hist_insert_ns(hist* h, uint64_t ns)
{
	atomic_fetch_add_explicit(&h->counts[hist_bucket(ns, h->divisor)], 1,
			memory_order_relaxed);
}

uint64_t
hist_snapshot(const hist* h, uint64_t counts[HIST_N_BUCKETS])
{
	uint64_t total = 0;

	for (uint32_t i = 0; i < HIST_N_BUCKETS; i++) {
		counts[i] = atomic_load_explicit(&h->counts[i],
				memory_order_relaxed);
		total += counts[i];
	}

	return total;
}

void
hist_format(strbuf* sb, const char* name,
		const uint64_t counts[HIST_N_BUCKETS])
{
	uint64_t total = 0;

	for (uint32_t i = 0; i < HIST_N_BUCKETS; i++) {
		total += counts[i];
	}

	sb_printf(sb, LL_HIST_TOTAL "\n", name, total);

	uint32_t n_printed = 0;

	for (uint32_t i = 0; i < HIST_N_BUCKETS; i++) {
		if (counts[i] == 0) {
			continue;
		}

		sb_printf(sb, LL_BUCKET, i, counts[i]);

		if (++n_printed % BUCKETS_PER_LINE == 0) {
			sb_printf(sb, "\n");
		}
	}

	if (n_printed % BUCKETS_PER_LINE != 0) {
		sb_printf(sb, "\n");
	}
}

void
hist_dump(const hist* h, const char* name, strbuf* sb)
{
	uint64_t counts[HIST_N_BUCKETS];

	hist_snapshot(h, counts);
	hist_format(sb, name, counts);
}
