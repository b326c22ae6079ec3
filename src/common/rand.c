/*
 * rand.c - fast per-thread pseudo-random numbers and buffer fills.
 */

#include "common/rand.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

//==========================================================
// Typedefs & constants.
//

#define WORDS_PER_INTERVAL 64
#define INTERVAL_BYTES (WORDS_PER_INTERVAL * sizeof(uint64_t))
#define FILL_LANES 8

//==========================================================
// Globals.
//

static atomic_uint_fast64_t g_seed_counter = 0;

//==========================================================
// Forward declarations.
//

static uint64_t splitmix64(uint64_t* x);

//==========================================================
// Public API.
//

void
rand_seed(rand_t* r)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);

	uint64_t x = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;

	x ^= (uint64_t)getpid() << 32;
	x ^= (uint64_t)pthread_self();
	x += atomic_fetch_add(&g_seed_counter, 1) * 0x9E3779B97F4A7C15ULL;

	rand_seed_fixed(r, x);
}

void
rand_seed_fixed(rand_t* r, uint64_t seed)
{
	uint64_t x = seed;

	r->s0 = splitmix64(&x);
	r->s1 = splitmix64(&x);

	if (r->s0 == 0 && r->s1 == 0) {
		r->s1 = 1;
	}
}

uint64_t
rand_u64(rand_t* r)
{
	uint64_t s1 = r->s0;
	uint64_t s0 = r->s1;

	r->s0 = s0;
	s1 ^= s1 << 23;
	r->s1 = s1 ^ s0 ^ (s1 >> 17) ^ (s0 >> 26);

	return r->s1 + s0;
}

uint64_t
rand_below(rand_t* r, uint64_t n)
{
	// Multiply-shift: maps 64 random bits onto [0, n) evenly.
	return (uint64_t)(((unsigned __int128)rand_u64(r) * n) >> 64);
}

double
rand_unit(rand_t* r)
{
	return (double)(rand_u64(r) >> 11) * (1.0 / 9007199254740992.0);
}

// Bulk fills run FILL_LANES independent xorshift128+ generators, seeded
// from r, side by side: the compiler keeps them in vector registers, which
// makes a fill about ten times faster than one generator's dependent chain
// (act_prep's salting must keep up with a drive's write bandwidth).
void
rand_fill(rand_t* r, void* buf, size_t len)
{
	uint8_t* p = buf;
	size_t n_words = len / sizeof(uint64_t);
	size_t i = 0;

	if (n_words >= FILL_LANES) {
		uint64_t s0[FILL_LANES];
		uint64_t s1[FILL_LANES];

		for (int l = 0; l < FILL_LANES; l++) {
			s0[l] = rand_u64(r);
			s1[l] = rand_u64(r) | 1;
		}

		for (; i + FILL_LANES <= n_words; i += FILL_LANES) {
			for (int l = 0; l < FILL_LANES; l++) {
				uint64_t x = s0[l];
				uint64_t y = s1[l];

				s0[l] = y;
				x ^= x << 23;
				s1[l] = x ^ y ^ (x >> 17) ^ (y >> 26);

				uint64_t v = s1[l] + y;

				memcpy(p + (i + (size_t)l) * sizeof(uint64_t), &v, sizeof(v));
			}
		}
	}

	for (; i < n_words; i++) {
		uint64_t v = rand_u64(r);

		memcpy(p + i * sizeof(uint64_t), &v, sizeof(v));
	}

	size_t tail = len % sizeof(uint64_t);

	if (tail != 0) {
		uint64_t v = rand_u64(r);

		memcpy(p + n_words * sizeof(uint64_t), &v, tail);
	}
}

uint32_t
rand_zero_words(uint32_t compress_pct)
{
	if (compress_pct >= 100) {
		return 0;
	}

	return WORDS_PER_INTERVAL * (100 - compress_pct) / 100;
}

void
rand_fill_compressible(rand_t* r, void* buf, size_t len,
		uint32_t compress_pct)
{
	uint32_t n_zero = rand_zero_words(compress_pct);

	if (n_zero == 0) {
		rand_fill(r, buf, len);
		return;
	}

	uint8_t* p = buf;
	size_t n_intervals = len / INTERVAL_BYTES;
	size_t zero_bytes = n_zero * sizeof(uint64_t);

	for (size_t i = 0; i < n_intervals; i++) {
		uint8_t* iv = p + i * INTERVAL_BYTES;

		memset(iv, 0, zero_bytes);
		rand_fill(r, iv + zero_bytes, INTERVAL_BYTES - zero_bytes);
	}

	rand_fill(r, p + n_intervals * INTERVAL_BYTES, len % INTERVAL_BYTES);
}

//==========================================================
// Local helpers.
//

static uint64_t
splitmix64(uint64_t* x)
{
	uint64_t z = (*x += 0x9E3779B97F4A7C15ULL);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;

	return z ^ (z >> 31);
}
