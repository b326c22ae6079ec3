/*
 * Description: random numbers and write data - compress-pct fill ratios
 * (zero words per 512-byte interval, random rest, random tail), fresh data
 * on every fill, uniform ranges, different seeds per generator.
 */

#include <stdlib.h>

#include "common/rand.h"
#include "unit.h"

typedef struct {
	uint32_t pct;
	uint32_t zero_words; // floor(64 * (100 - pct) / 100)
} zero_case;

static const zero_case ZEROS[] = {
	{ 0, 64 }, { 1, 63 }, { 2, 62 }, { 10, 57 }, { 25, 48 }, { 33, 42 },
	{ 50, 32 }, { 75, 16 }, { 90, 6 }, { 98, 1 }, { 99, 0 }, { 100, 0 },
};

static void
test_zero_words(void)
{
	for (size_t i = 0; i < sizeof(ZEROS) / sizeof(ZEROS[0]); i++) {
		char ctx[64];

		snprintf(ctx, sizeof(ctx), "zero words for compress-pct %u",
				ZEROS[i].pct);
		CHECK_U64(ctx, ZEROS[i].zero_words, rand_zero_words(ZEROS[i].pct));
	}
}

// Fill a buffer of whole intervals plus a tail, and check each interval.
static void
test_fill_ratios(void)
{
	const size_t len = 128 * 1024 + 100;
	uint8_t* buf = malloc(len);
	rand_t r;

	rand_seed_fixed(&r, 42);

	for (size_t i = 0; i < sizeof(ZEROS) / sizeof(ZEROS[0]); i++) {
		uint32_t want_zero = ZEROS[i].zero_words;
		uint64_t bad_intervals = 0;
		uint64_t zero_random_words = 0;

		memset(buf, 0xAA, len);
		rand_fill_compressible(&r, buf, len, ZEROS[i].pct);

		for (size_t iv = 0; iv < len / 512; iv++) {
			const uint8_t* p = buf + iv * 512;

			for (uint32_t w = 0; w < 64; w++) {
				uint64_t v;

				memcpy(&v, p + w * 8, 8);

				if (w < want_zero && v != 0) {
					bad_intervals++;
					break;
				}

				if (w >= want_zero && v == 0) {
					zero_random_words++;
				}

				if (w >= want_zero && v == 0xAAAAAAAAAAAAAAAAULL) {
					bad_intervals++; // not written
					break;
				}
			}
		}

		char ctx[96];

		snprintf(ctx, sizeof(ctx), "compress-pct %u: intervals with wrong "
				"zero prefix", ZEROS[i].pct);
		CHECK_U64(ctx, 0, bad_intervals);
		snprintf(ctx, sizeof(ctx), "compress-pct %u: zero words in random "
				"part", ZEROS[i].pct);
		CHECK_U64(ctx, 0, zero_random_words);

		// The 100-byte tail is random: not all zero, not the fill pattern.
		const uint8_t* tail = buf + (len / 512) * 512;
		uint32_t zero_bytes = 0;
		uint32_t pattern_bytes = 0;

		for (size_t b = 0; b < 100; b++) {
			zero_bytes += tail[b] == 0;
			pattern_bytes += tail[b] == 0xAA;
		}

		snprintf(ctx, sizeof(ctx), "compress-pct %u: tail is random (zero "
				"bytes %u, untouched bytes %u)", ZEROS[i].pct, zero_bytes,
				pattern_bytes);
		CHECK(zero_bytes < 10 && pattern_bytes < 10, "%s", ctx);

		// Overall zero share ~ (100 - pct)% of the intervals' bytes.
		uint64_t zeros = 0;

		for (size_t b = 0; b < (len / 512) * 512; b += 8) {
			uint64_t v;

			memcpy(&v, buf + b, 8);
			zeros += v == 0;
		}

		snprintf(ctx, sizeof(ctx), "compress-pct %u: zero words overall",
				ZEROS[i].pct);
		CHECK_U64(ctx, (uint64_t)want_zero * (len / 512), zeros);
	}

	free(buf);
}

static void
test_fresh_data(void)
{
	uint8_t a[4096];
	uint8_t b[4096];
	rand_t r;

	rand_seed(&r);
	rand_fill(&r, a, sizeof(a));
	rand_fill(&r, b, sizeof(b));
	CHECK(memcmp(a, b, sizeof(a)) != 0, "two fills gave the same data");

	rand_t r1;
	rand_t r2;

	rand_seed(&r1);
	rand_seed(&r2);
	CHECK(rand_u64(&r1) != rand_u64(&r2),
			"two generators seeded at once share a sequence");

	rand_t f1;
	rand_t f2;

	rand_seed_fixed(&f1, 7);
	rand_seed_fixed(&f2, 7);
	CHECK(rand_u64(&f1) == rand_u64(&f2), "fixed seeds not repeatable");
}

static void
test_uniform(void)
{
	rand_t r;
	uint64_t bins[10] = { 0 };
	const uint64_t n = 1000000;

	rand_seed_fixed(&r, 1);

	for (uint64_t i = 0; i < n; i++) {
		uint64_t v = rand_below(&r, 10);

		if (v >= 10) {
			CHECK(false, "rand_below(10) gave %" PRIu64, v);
			return;
		}

		bins[v]++;
	}

	double chi2 = 0.0;

	for (int i = 0; i < 10; i++) {
		double d = (double)bins[i] - (double)n / 10;

		chi2 += d * d / ((double)n / 10);
	}

	// 9 degrees of freedom: p = 0.001 at 27.9.
	CHECK(chi2 < 27.9, "rand_below(10) not uniform: chi2 %.1f", chi2);

	uint64_t max = 0;

	for (int i = 0; i < 100000; i++) {
		uint64_t v = rand_below(&r, 3);

		max = v > max ? v : max;
	}

	CHECK_U64("rand_below(3) reaches 2", 2, max);
	CHECK_U64("rand_below(1)", 0, rand_below(&r, 1));

	double lo = 1.0;
	double hi = 0.0;

	for (int i = 0; i < 100000; i++) {
		double u = rand_unit(&r);

		lo = u < lo ? u : lo;
		hi = u > hi ? u : hi;
	}

	CHECK(lo >= 0.0 && lo < 0.001 && hi < 1.0 && hi > 0.999,
			"rand_unit range [%f, %f]", lo, hi);
}

int
main(void)
{
	test_zero_words();
	test_fill_ratios();
	test_fresh_data();
	test_uniform();

	return unit_end("test_rand");
}
