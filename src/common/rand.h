/*
 * rand.h - fast per-thread pseudo-random numbers and buffer fills.
 *
 * xorshift128+ - not cryptographic, just fast and well spread, which is
 * what random offsets and incompressible write data need. Each thread owns
 * one rand_t; seeds differ per thread and per run.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

typedef struct rand_s {
	uint64_t s0;
	uint64_t s1;
} rand_t;

// Seed from the clock, the thread, the process and a global counter, so no
// two generators of a run, nor of two runs, share a sequence.
void rand_seed(rand_t* r);

// Seed deterministically (tests).
void rand_seed_fixed(rand_t* r, uint64_t seed);

uint64_t rand_u64(rand_t* r);

// Uniform in [0, n) (n > 0), without modulo bias worth mentioning for the
// ranges used here (n < 2^40).
uint64_t rand_below(rand_t* r, uint64_t n);

// Uniform double in [0, 1).
double rand_unit(rand_t* r);

// Fill len bytes with random data.
void rand_fill(rand_t* r, void* buf, size_t len);

// Fill len bytes so the data compresses to about compress_pct percent of
// its size: the buffer is treated as 512-byte intervals of 64 eight-byte
// words; in each interval the first floor(64 * (100 - pct) / 100) words are
// zero and the rest random; a tail past whole intervals is random.
// compress_pct 100 (or more) means all random.
void rand_fill_compressible(rand_t* r, void* buf, size_t len,
		uint32_t compress_pct);

// Number of zero words per 512-byte interval for compress_pct.
uint32_t rand_zero_words(uint32_t compress_pct);
