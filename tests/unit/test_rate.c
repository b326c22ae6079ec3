/*
 * Description: the pacing schedule - due times on an absolute schedule
 * (no drift after billions of operations), per-thread phase, waiting until
 * due, the lag reported when a thread is behind, and Poisson schedules
 * (exponential gaps: mean 1 / rate, coefficient of variation 1, absolute),
 * and the settling wake-up of a thread out of a burst (rate.c, SETTLE_NS).
 */

#include <math.h>
#include <sys/resource.h>
#include <time.h>

#include "common/clock.h"
#include "common/rand.h"
#include "common/rate.h"
#include "unit.h"

typedef struct {
	double rate;
	double phase;
	uint64_t k;
	uint64_t due_offset_ns; // due - start
} due_case;

static const due_case DUES[] = {
	{ 1000.0, 0.0, 0, 0 },
	{ 1000.0, 0.0, 1, 1000000 },
	{ 1000.0, 0.0, 1000, 1000000000 },
	// a day at 60000/s: still exact to the nanosecond
	{ 60000.0, 0.0, 5184000000ULL, 86400ULL * 1000000000 },
	{ 3.0, 0.0, 3, 1000000000 },
	{ 3.0, 0.0, 1, 333333333 },
	{ 47.0588235294, 0.0, 47, 998750000 },
	{ 1000.0, 0.5, 0, 500000 },
	{ 1000.0, 0.25, 4, 4250000 },
	{ 0.5, 0.0, 1, 2000000000 },
	// The real-valued per-thread rates of a 48-hour run (rate / threads,
	// the same for every thread): no drift at its last operation, even
	// where the period is not a whole number of nanoseconds.
	{ 2000.0 / 160.0, 0.0, 2160000, 172800ULL * 1000000000 },
	{ 2000.0 / 480.0, 0.0, 720000, 172800ULL * 1000000000 },
	{ 2000.0 / 3.0, 0.0, 115200000, 172800ULL * 1000000000 },
	{ 2000.0 / 3.0 / 100.0, 0.0, 1152000, 172800ULL * 1000000000 },
};

static void
test_due(void)
{
	for (size_t i = 0; i < sizeof(DUES) / sizeof(DUES[0]); i++) {
		rate_sched r;
		char ctx[96];
		uint64_t start = 5 * NS_PER_SEC;

		rate_init(&r, start, DUES[i].rate, DUES[i].phase);
		snprintf(ctx, sizeof(ctx), "due of op %" PRIu64 " at %.4f/s phase %.2f",
				DUES[i].k, DUES[i].rate, DUES[i].phase);

		uint64_t due = rate_due_ns(&r, DUES[i].k) - start;
		uint64_t want = DUES[i].due_offset_ns;
		uint64_t diff = due > want ? due - want : want - due;

		// Within 2 us (the 47.06/s case is not an exact period).
		CHECK(diff <= 2000, "%s: expected %" PRIu64 " ns, got %" PRIu64, ctx,
				want, due);
	}
}

// 200 operations at 1000/s take about 200 ms, whatever each one costs.
static void
test_wait(void)
{
	rate_sched r;
	uint64_t start = clock_ns();

	rate_init(&r, start, 1000.0, 0.0);

	uint64_t max_lag = 0;

	for (int i = 0; i < 200; i++) {
		uint64_t lag = rate_done_and_wait(&r);

		max_lag = lag > max_lag ? lag : max_lag;
	}

	uint64_t took = clock_ns() - start;

	CHECK(took >= 200 * NS_PER_MS, "200 ops at 1000/s took only %" PRIu64
			" ns", took);
	CHECK(took < 2 * NS_PER_SEC, "200 ops at 1000/s took %" PRIu64 " ns",
			took);
	CHECK_U64("count", 200, r.count);
}

// A thread that starts 3 s late at 1000/s is ~3 s behind; no sleep.
static void
test_lag(void)
{
	rate_sched r;
	uint64_t now = clock_ns();

	rate_init(&r, now - 3 * NS_PER_SEC, 1000.0, 0.0);

	uint64_t lag = rate_done_and_wait(&r);

	CHECK(lag > 2800 * NS_PER_MS && lag < 3200 * NS_PER_MS,
			"lag expected ~3 s, got %" PRIu64 " ns", lag);
	CHECK(clock_ns() - now < 100 * NS_PER_MS, "slept while behind");

	// 100 more operations done while behind: 0.1 s of schedule, no sleep.
	for (int i = 0; i < 100; i++) {
		lag = rate_done_and_wait(&r);
	}

	CHECK_U64("count", 101, r.count);
	CHECK(lag > 2700 * NS_PER_MS && lag < 3100 * NS_PER_MS,
			"lag after 100 more expected ~2.9 s, got %" PRIu64 " ns", lag);
}

// How a thread sleeps between two requests (rate.c, SETTLE_NS): once
// straight to the due time, or - the next request more than 50 ms away -
// once 50 ms after the request, then to the due time. Counted as the
// thread's voluntary context switches.
typedef struct {
	const char* name;
	double rate;          // the thread's rate: its period is 1 / rate
	uint64_t late_ns;     // how late after its due time the request ends
	long sleeps;          // the sleeps expected
} settle_case;

static const settle_case SETTLES[] = {
	{ "5/s, 3 ms late", 5.0, 3 * NS_PER_MS, 2 },
	{ "5/s, on time", 5.0, 0, 2 },
	{ "25/s, 3 ms late (next due in under 50 ms)", 25.0, 3 * NS_PER_MS,
			1 },
	{ "25/s, on time (next due in under 50 ms)", 25.0, 0, 1 },
	{ "2/s, 10 ms late", 2.0, 10 * NS_PER_MS, 2 }
};

static long
voluntary_switches(void)
{
	struct rusage ru;

	getrusage(RUSAGE_THREAD, &ru);

	return ru.ru_nvcsw;
}

static void
test_settle(void)
{
	for (size_t i = 0; i < sizeof(SETTLES) / sizeof(SETTLES[0]); i++) {
		const settle_case* c = &SETTLES[i];
		rate_sched r;
		uint64_t start = clock_ns();
		uint64_t period = (uint64_t)(NS_PER_SEC / c->rate);

		rate_init(&r, start, c->rate, 0.0);

		// Request 0 was due at start and ends late_ns after it (a busy
		// wait: no sleep of its own).
		while (clock_ns() - start < c->late_ns) {
			;
		}

		long before = voluntary_switches();
		uint64_t lag = rate_done_and_wait(&r);
		long sleeps = voluntary_switches() - before;
		uint64_t took = clock_ns() - start;

		CHECK_U64(c->name, 0, lag);
		CHECK(sleeps == c->sleeps, "%s: expected %ld sleep(s), got %ld",
				c->name, c->sleeps, sleeps);
		CHECK(took >= period, "%s: woke %" PRIu64 " ns after the start, "
				"before the due time %" PRIu64, c->name, took, period);
		CHECK(took < period + 200 * NS_PER_MS, "%s: woke %" PRIu64
				" ns after the start, due at %" PRIu64, c->name, took,
				period);
	}
}

typedef struct {
	double rate;
	uint64_t seed;
} poisson_case;

static const poisson_case POISSONS[] = {
	{ 1000000.0, 1 },
	{ 200000.0, 42 },
	{ 50000.0, 7 },
};

// The due times of a Poisson schedule (not waited for: the start is 10 s in
// the past and the schedules are shorter, so rate_done_and_wait returns at
// once with the lag).
static void
test_poisson(void)
{
	for (size_t i = 0; i < sizeof(POISSONS) / sizeof(POISSONS[0]); i++) {
		const poisson_case* pc = &POISSONS[i];
		const uint64_t n = 200000;
		uint64_t start = clock_ns() - 10 * NS_PER_SEC;
		rate_sched r;
		rand_t rnd;
		char ctx[64];

		snprintf(ctx, sizeof(ctx), "poisson at %.1f/s", pc->rate);
		rand_seed_fixed(&rnd, pc->seed);
		rate_init_poisson(&r, start, pc->rate, &rnd);

		double sum = 0.0;
		double sum2 = 0.0;
		uint64_t prev = rate_next_due_ns(&r);
		bool monotonic = prev > start;

		for (uint64_t k = 0; k < n; k++) {
			rate_done_and_wait(&r);

			uint64_t due = rate_next_due_ns(&r);
			double gap = (double)(due - prev);

			monotonic = monotonic && due >= prev;
			sum += gap;
			sum2 += gap * gap;
			prev = due;
		}

		double period = 1e9 / pc->rate;
		double mean = sum / (double)n;
		double cv = sqrt(sum2 / (double)n - mean * mean) / mean;
		// The last due time is the schedule: n gaps of mean 1 / rate.
		double span = (double)(prev - start) / (double)(n + 1);

		CHECK(monotonic, "%s: due times go backwards", ctx);
		CHECK(fabs(mean / period - 1.0) < 0.01, "%s: mean gap %.1f ns, "
				"expected %.1f within 1%%", ctx, mean, period);
		CHECK(fabs(span / period - 1.0) < 0.01, "%s: schedule span per "
				"operation %.1f ns, expected %.1f", ctx, span, period);
		CHECK(fabs(cv - 1.0) < 0.02, "%s: coefficient of variation %.3f, "
				"expected 1", ctx, cv);
		CHECK_U64(ctx, n, r.count);
	}
}

int
main(void)
{
	test_due();
	test_wait();
	test_lag();
	test_poisson();
	test_settle();

	return unit_end("test_rate");
}
