/*
 * Description: histogram bucketing at every boundary in ms and us mode, the
 * dump format (padding, four per line, zero buckets skipped, wide counts)
 * and lock-free inserts from several threads.
 */

#include <pthread.h>
#include <stdlib.h>

#include "common/hist.h"
#include "common/strbuf.h"
#include "unit.h"

typedef struct {
	uint64_t ns;
	uint64_t divisor;
	uint32_t bucket;
} bucket_case;

static const bucket_case BUCKETS[] = {
	// milliseconds: bucket 0 is < 1 ms, b >= 1 is [2^(b-1), 2^b) ms
	{ 0, 1000000, 0 },
	{ 1, 1000000, 0 },
	{ 999999, 1000000, 0 },
	{ 1000000, 1000000, 1 },
	{ 1999999, 1000000, 1 },
	{ 2000000, 1000000, 2 },
	{ 3999999, 1000000, 2 },
	{ 4000000, 1000000, 3 },
	{ 7999999, 1000000, 3 },
	{ 8000000, 1000000, 4 },
	{ 63999999, 1000000, 6 },
	{ 64000000, 1000000, 7 },
	{ 65536000000ULL, 1000000, 17 },
	{ 65535999999ULL, 1000000, 16 },
	{ UINT64_MAX, 1000000, 45 },
	// microseconds
	{ 0, 1000, 0 },
	{ 999, 1000, 0 },
	{ 1000, 1000, 1 },
	{ 1999, 1000, 1 },
	{ 2000, 1000, 2 },
	{ 1023999, 1000, 10 },
	{ 1024000, 1000, 11 },
	{ UINT64_MAX, 1000, 55 },
	// the top bucket, reachable only with a unit of 1 ns
	{ 1ULL << 63, 1, 64 },
	{ UINT64_MAX, 1, 64 },
	{ (1ULL << 63) - 1, 1, 63 },
};

typedef struct {
	const char* what;
	uint64_t counts[HIST_N_BUCKETS]; // designated below
	const char* expected;
} format_case;

static void
test_buckets(void)
{
	for (size_t i = 0; i < sizeof(BUCKETS) / sizeof(BUCKETS[0]); i++) {
		char ctx[96];

		snprintf(ctx, sizeof(ctx), "bucket of %" PRIu64 " ns / %" PRIu64,
				BUCKETS[i].ns, BUCKETS[i].divisor);
		CHECK_U64(ctx, BUCKETS[i].bucket,
				hist_bucket(BUCKETS[i].ns, BUCKETS[i].divisor));
	}
}

static void
test_insert_scales(void)
{
	hist ms;
	hist us;
	uint64_t c[HIST_N_BUCKETS];

	hist_init(&ms, HIST_MS);
	hist_init(&us, HIST_US);

	hist_insert_ns(&ms, 1500000); // 1.5 ms -> ms bucket 1, us bucket 11
	hist_insert_ns(&us, 1500000);
	hist_insert_ns(&ms, 999999);

	CHECK_U64("ms total", 2, hist_snapshot(&ms, c));
	CHECK_U64("ms bucket 0", 1, c[0]);
	CHECK_U64("ms bucket 1", 1, c[1]);
	CHECK_U64("us total", 1, hist_snapshot(&us, c));
	CHECK_U64("us bucket 11", 1, c[11]);
}

static void
test_format(void)
{
	static format_case cases[] = {
		{ "empty", { 0 }, "reads (0 total)\n" },
		{ "one bucket", { [0] = 5993 },
			"reads (5993 total)\n (00: 0000005993)\n" },
		{ "zero buckets skipped", { [0] = 7, [2] = 1 },
			"reads (8 total)\n (00: 0000000007) (02: 0000000001)\n" },
		{ "four on a line", { [0] = 1, [1] = 2, [2] = 3, [3] = 4 },
			"reads (10 total)\n"
			" (00: 0000000001) (01: 0000000002) (02: 0000000003)"
			" (03: 0000000004)\n" },
		{ "five wrap", { [0] = 5993, [1] = 2, [2] = 2, [3] = 3, [4] = 1 },
			"reads (6001 total)\n"
			" (00: 0000005993) (01: 0000000002) (02: 0000000002)"
			" (03: 0000000003)\n (04: 0000000001)\n" },
		{ "eight, two full lines", { [1] = 1, [3] = 1, [5] = 1, [7] = 1,
			[9] = 1, [11] = 1, [13] = 1, [64] = 1 },
			"reads (8 total)\n"
			" (01: 0000000001) (03: 0000000001) (05: 0000000001)"
			" (07: 0000000001)\n"
			" (09: 0000000001) (11: 0000000001) (13: 0000000001)"
			" (64: 0000000001)\n" },
		{ "wide count", { [0] = 12345678901ULL, [16] = 9 },
			"reads (12345678910 total)\n"
			" (00: 12345678901) (16: 0000000009)\n" },
		{ "only high bucket", { [40] = 3 },
			"reads (3 total)\n (40: 0000000003)\n" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char buf[2048];
		strbuf sb;

		sb_init(&sb, buf, sizeof(buf));
		hist_format(&sb, "reads", cases[i].counts);
		CHECK_STR(cases[i].what, cases[i].expected, buf);
	}
}

static void
test_dump_matches_snapshot(void)
{
	hist h;
	char buf[512];
	strbuf sb;

	hist_init(&h, HIST_MS);
	hist_insert_ns(&h, 0);
	hist_insert_ns(&h, 0);
	hist_insert_ns(&h, 5000000); // 5 ms -> bucket 3

	sb_init(&sb, buf, sizeof(buf));
	hist_dump(&h, "/dev/sdb-reads", &sb);
	CHECK_STR("dump", "/dev/sdb-reads (3 total)\n"
			" (00: 0000000002) (03: 0000000001)\n", buf);
}

#define N_THREADS 4
#define N_INSERTS 200000

static void*
inserter(void* pv)
{
	hist* h = pv;

	for (uint64_t i = 0; i < N_INSERTS; i++) {
		hist_insert_ns(h, (i % 4) * 1000000);
	}

	return NULL;
}

static void
test_concurrent(void)
{
	hist* h = malloc(sizeof(hist));
	pthread_t t[N_THREADS];
	uint64_t c[HIST_N_BUCKETS];

	hist_init(h, HIST_MS);

	for (int i = 0; i < N_THREADS; i++) {
		pthread_create(&t[i], NULL, inserter, h);
	}

	for (int i = 0; i < N_THREADS; i++) {
		pthread_join(t[i], NULL);
	}

	CHECK_U64("concurrent total", (uint64_t)N_THREADS * N_INSERTS,
			hist_snapshot(h, c));
	CHECK_U64("bucket 0 (0 ms)", N_THREADS * N_INSERTS / 4, c[0]);
	CHECK_U64("bucket 1 (1 ms)", N_THREADS * N_INSERTS / 4, c[1]);
	CHECK_U64("bucket 2 (2, 3 ms)", N_THREADS * N_INSERTS / 2, c[2]);
	free(h);
}

static void
test_strbuf_overflow(void)
{
	char buf[8];
	strbuf sb;

	sb_init(&sb, buf, sizeof(buf));
	sb_printf(&sb, "%s", "abc");
	CHECK(! sb_overflowed(&sb), "3 chars fit in 8");
	sb_printf(&sb, "%s", "defgh");
	CHECK(sb_overflowed(&sb), "8 chars + NUL do not fit in 8");
	CHECK_STR("truncated content", "abcdefg", buf);
}

int
main(void)
{
	test_buckets();
	test_insert_scales();
	test_format();
	test_dump_matches_snapshot();
	test_concurrent();
	test_strbuf_overflow();

	return unit_end("test_hist");
}
