/*
 * Description: workloads from production (docs/advanced-sizing.md) - size
 * histogram validation (every rule, the error names the position), the
 * expected stored sizes and size distribution, and the large-block rate
 * formulas with offsets and direct-frees, pinned to the paper's numbers.
 */

#include <math.h>
#include <stdlib.h>

#include "storage/storage_cfg.h"
#include "unit.h"

#define PAPER_READ "100.00,100.00,100.00,100.00,100.00,100.00,100.00," \
	"100.00,100.00,100.00,100.00,84.00,68.36,52.95,38.48,25.56,12.68,0.00"
#define PAPER_WRITE "100.00,100.00,100.00,100.00,100.00,100.00,100.00," \
	"100.00,100.00,100.00,85.78,85.78,71.59,57.17,42.91,28.46,14.22,0.00"
#define DEV "device-names: /dev/x\ntest-duration-sec: 1\nservice-threads: 4\n"

typedef struct {
	const char* text;
	const char* error; // NULL: valid
	uint32_t n;
} hist_case;

static const hist_case HISTS[] = {
	{ "100,50,0", NULL, 3 },
	{ "0", NULL, 1 },
	{ "100.00, 85.5 ,  0.00", NULL, 3 },
	{ "100,100,100,100,100,100,100,100,100,100,100,100,100,100,100,100,"
		"100,100,100,100,100,100,100,100,100,100,0", NULL, 27 },
	{ PAPER_READ, NULL, 18 },
	{ "100,100,100,100,100,100,100,100,100,100,100,100,100,100,100,100,"
		"100,100,100,100,100,100,100,100,100,100,100,0",
		"more than 27 values", 0 },
	{ "100,50,10", "the last value (value 3, 10.00) must be 0", 0 },
	{ "100,50,60,0", "value 3 (60.00) is larger than value 2 (50.00)", 0 },
	{ "100.01,0", "value 1 (100.01) is over 100", 0 },
	{ "100,,0", "value 2 '' is not a percentage", 0 },
	{ "100,abc,0", "value 2 'abc' is not a percentage", 0 },
	{ "100,-5,0", "value 2 '-5' is not a percentage", 0 },
	{ "100,5e1,0", "value 2 '5e1' is not a percentage", 0 },
	{ "100,50 40,0", "value 2 '50 40' is not a percentage", 0 },
	{ "100,50,", "value 3 '' is not a percentage", 0 },
	{ "100;50;0", "value 1 '100;50;0' is not a percentage", 0 },
};

static void
test_histogram_rules(void)
{
	for (size_t i = 0; i < sizeof(HISTS) / sizeof(HISTS[0]); i++) {
		cfg_size_hist h;
		char err[CFG_ERR_LEN] = "";
		int rv = cfg_parse_size_hist("storage-read-histogram", HISTS[i].text,
				&h, err, sizeof(err));

		if (HISTS[i].error == NULL) {
			CHECK(rv == 0, "'%s' rejected: %s", HISTS[i].text, err);
			CHECK_U64(HISTS[i].text, HISTS[i].n, h.n);
		}
		else {
			CHECK(rv != 0, "'%s' accepted", HISTS[i].text);
			CHECK_CONTAINS(HISTS[i].text, HISTS[i].error, err);
			CHECK_CONTAINS(HISTS[i].text, "'storage-read-histogram'", err);
		}
	}
}

typedef struct {
	const char* what;
	const char* hist;
	uint32_t offset;
	uint32_t expected;   // rounded expected stored size
	uint32_t max_size;
} size_case;

static const size_case SIZES[] = {
	// The paper's final config (docs/advanced-sizing.md worked example).
	{ "paper write", PAPER_WRITE, 100, 18475, 65536 },
	{ "paper read", PAPER_READ, 100, 16948, 65536 },
	// Everything <= 1 byte: 1 byte, stored as 16.
	{ "all tiny", "0", 100, 16, 16 },
	// Half over 1 KiB: 50% at 1024, 50% "<= 1 byte" (16).
	{ "half 1 KiB", "50,50,50,50,50,50,50,50,50,50,50,0", 100, 520, 1024 },
	// Offsets: 2^k x offset / 100 rounded up to 16.
	{ "512 at 90%", "100,100,100,100,100,100,100,100,100,100,0", 90, 464,
		464 },
	{ "512 at 1000%", "100,100,100,100,100,100,100,100,100,100,0", 1000,
		5120, 5120 },
	{ "512 at 1%", "100,100,100,100,100,100,100,100,100,100,0", 1, 16, 16 },
	// 2^26 = 64 MiB is capped at 8 MiB.
	{ "capped at 8 MiB", "100,100,100,100,100,100,100,100,100,100,100,100,"
		"100,100,100,100,100,100,100,100,100,100,100,100,100,100,0", 100,
		8388608, 8388608 },
};

static void
test_expected_sizes(void)
{
	for (size_t i = 0; i < sizeof(SIZES) / sizeof(SIZES[0]); i++) {
		cfg_size_hist h;
		storage_sizes s;
		char err[CFG_ERR_LEN] = "";
		char ctx[96];

		CHECK(cfg_parse_size_hist("x", SIZES[i].hist, &h, err,
				sizeof(err)) == 0, "%s: %s", SIZES[i].what, err);
		storage_sizes_build(&s, &h, SIZES[i].offset);

		snprintf(ctx, sizeof(ctx), "%s: expected stored size", SIZES[i].what);
		CHECK_U64(ctx, SIZES[i].expected, (uint64_t)llround(s.expected));
		snprintf(ctx, sizeof(ctx), "%s: largest size", SIZES[i].what);
		CHECK_U64(ctx, SIZES[i].max_size, s.max_size);

		double total = 0.0;

		for (uint32_t k = 0; k < s.n; k++) {
			total += s.prob[k];
		}

		CHECK(fabs(total - 1.0) < 1e-9, "%s: probabilities add up to %.12f",
				SIZES[i].what, total);
	}
}

// The paper's write histogram puts 14.22% at 512 bytes, 0% at 1024, 14.19%
// at 2048 ... (docs/advanced-sizing.md): check the distribution and the sampler.
static void
test_distribution(void)
{
	cfg_size_hist h;
	storage_sizes s;
	char err[CFG_ERR_LEN];

	cfg_parse_size_hist("x", PAPER_WRITE, &h, err, sizeof(err));
	storage_sizes_build(&s, &h, 100);

	static const struct { uint32_t size; double pct; } want[] = {
		{ 512, 14.22 }, { 1024, 0.0 }, { 2048, 14.19 }, { 4096, 14.42 },
		{ 8192, 14.26 }, { 16384, 14.45 }, { 32768, 14.24 }, { 65536, 14.22 },
	};

	for (size_t w = 0; w < sizeof(want) / sizeof(want[0]); w++) {
		double got = 0.0;

		for (uint32_t k = 0; k < s.n; k++) {
			if (s.size[k] == want[w].size) {
				got += s.prob[k] * 100.0;
			}
		}

		CHECK(fabs(got - want[w].pct) < 1e-9, "share of %u bytes: expected "
				"%.2f%%, got %.4f%%", want[w].size, want[w].pct, got);
	}

	// The sampler follows the distribution: u at each cumulative edge.
	uint32_t counts[CFG_SIZE_HIST_MAX + 1] = { 0 };
	const uint32_t n = 100000;

	for (uint32_t i = 0; i < n; i++) {
		counts[storage_sizes_pick(&s, ((double)i + 0.5) / n)]++;
	}

	for (uint32_t k = 0; k < s.n; k++) {
		double share = (double)counts[k] / n;

		CHECK(fabs(share - s.prob[k]) < 0.0001, "size index %u: drawn %.5f, "
				"probability %.5f", k, share, s.prob[k]);
	}

	CHECK(counts[11] == 0, "1024 bytes has probability 0 but was drawn");
}

typedef struct {
	const char* what;
	const char* text;
	const char* derived; // the derived lines after record-stored-bytes
} rate_case;

static const rate_case RATES[] = {
	{ "paper final config", DEV "record-bytes: 0\nread-reqs-per-sec: 10470\n"
		"write-reqs-per-sec: 5957\nstorage-read-histogram: " PAPER_READ "\n"
		"storage-write-histogram: " PAPER_WRITE "\ndirect-frees: 300\n"
		"total-lbw-per-sec: 1527\nlbr-req-offset: 090\nlbw-req-offset: 093\n",
		"internal-read-reqs-per-sec: 10470\n"
		"internal-write-reqs-per-sec: 0\n"
		"large-block-reads-per-sec: 1230.86\n"
		"large-block-writes-per-sec: 1582.86\n"
		"avg-read-bytes: 16948\n"
		"avg-write-bytes: 18475\n" },
	{ "paper before offsets", DEV "record-bytes: 0\n"
		"read-reqs-per-sec: 10470\nwrite-reqs-per-sec: 5957\n"
		"storage-read-histogram: " PAPER_READ "\n"
		"storage-write-histogram: " PAPER_WRITE "\n",
		"internal-read-reqs-per-sec: 10470\n"
		"internal-write-reqs-per-sec: 0\n"
		"large-block-reads-per-sec: 1702.00\n"
		"large-block-writes-per-sec: 1702.00\n"
		"avg-read-bytes: 16948\n"
		"avg-write-bytes: 18475\n" },
	{ "offsets without histograms", DEV "read-reqs-per-sec: 2000\n"
		"write-reqs-per-sec: 1000\nlbr-req-offset: 50\nlbw-req-offset: 200\n",
		"internal-read-reqs-per-sec: 2000\n"
		"internal-write-reqs-per-sec: 0\n"
		"large-block-reads-per-sec: 11.76\n"
		"large-block-writes-per-sec: 47.06\n" },
	{ "direct-frees without histograms", DEV "read-reqs-per-sec: 2000\n"
		"write-reqs-per-sec: 1000\ntotal-lbw-per-sec: 100\n"
		"direct-frees: 25\n",
		"internal-read-reqs-per-sec: 2000\n"
		"internal-write-reqs-per-sec: 0\n"
		"large-block-reads-per-sec: 17.65\n"
		"large-block-writes-per-sec: 23.53\n" },
	{ "all blocks freed directly", DEV "read-reqs-per-sec: 2000\n"
		"write-reqs-per-sec: 1000\ntotal-lbw-per-sec: 100\n"
		"direct-frees: 100\n",
		"internal-read-reqs-per-sec: 2000\n"
		"internal-write-reqs-per-sec: 0\n"
		"large-block-reads-per-sec: 0.00\n"
		"large-block-writes-per-sec: 23.53\n" },
	{ "offset 0 stops large-block writes", DEV "read-reqs-per-sec: 2000\n"
		"write-reqs-per-sec: 1000\nlbw-req-offset: 0\n",
		"internal-read-reqs-per-sec: 2000\n"
		"internal-write-reqs-per-sec: 0\n"
		"large-block-reads-per-sec: 23.53\n"
		"large-block-writes-per-sec: 0.00\n" },
	{ "write histogram with record-bytes, commit-to-device", DEV
		"read-reqs-per-sec: 100\nwrite-reqs-per-sec: 1000\n"
		"commit-to-device: yes\nstorage-write-histogram: 100,100,100,100,100,"
		"100,100,100,100,100,100,100,0\n",
		"internal-read-reqs-per-sec: 100\n"
		"internal-write-reqs-per-sec: 1000\n"
		"large-block-reads-per-sec: 31.25\n"
		"large-block-writes-per-sec: 15.62\n"
		"avg-write-bytes: 2048\n" },
	{ "write size offset", DEV "read-reqs-per-sec: 100\n"
		"write-reqs-per-sec: 1000\nwrite-size-offset: 50\n"
		"storage-write-histogram: 100,100,100,100,100,100,100,100,100,100,100,"
		"100,0\n",
		"internal-read-reqs-per-sec: 100\n"
		"internal-write-reqs-per-sec: 0\n"
		"large-block-reads-per-sec: 15.62\n"
		"large-block-writes-per-sec: 15.62\n"
		"avg-write-bytes: 1024\n" },
};

static const struct {
	const char* what;
	const char* text;
	const char* error;
} ERRORS[] = {
	{ "record-bytes 0 without histograms", DEV "record-bytes: 0\n"
		"read-reqs-per-sec: 100\n", "config item 'record-bytes': 0 needs "
		"storage-read-histogram, as there are reads" },
	{ "record-bytes 0, writes without write histogram", DEV
		"record-bytes: 0\nread-reqs-per-sec: 100\nwrite-reqs-per-sec: 10\n"
		"storage-read-histogram: 100,0\n", "config item 'record-bytes': 0 "
		"needs storage-write-histogram, as there are writes" },
	{ "direct-frees alone", DEV "read-reqs-per-sec: 100\ndirect-frees: 3\n",
		"'total-lbw-per-sec' and 'direct-frees' go together: "
		"'total-lbw-per-sec' is missing" },
	{ "total alone", DEV "read-reqs-per-sec: 100\ntotal-lbw-per-sec: 3\n",
		"'direct-frees' is missing" },
	{ "more frees than writes", DEV "read-reqs-per-sec: 100\n"
		"total-lbw-per-sec: 3\ndirect-frees: 4\n",
		"config item 'direct-frees': 4 is more than total-lbw-per-sec (3)" },
	{ "total 0", DEV "read-reqs-per-sec: 100\ntotal-lbw-per-sec: 0\n"
		"direct-frees: 0\n", "config item 'total-lbw-per-sec': 0 is out of "
		"range (1 to 4294967295)" },
	{ "read-size-offset 0", DEV "read-reqs-per-sec: 100\n"
		"read-size-offset: 0\n", "config item 'read-size-offset': 0 is out of "
		"range (1 to 1000)" },
	{ "lbw-req-offset 1001", DEV "read-reqs-per-sec: 100\n"
		"lbw-req-offset: 1001\n", "config item 'lbw-req-offset': 1001 is out "
		"of range (0 to 1000)" },
	{ "histogram position", DEV "read-reqs-per-sec: 100\n"
		"storage-write-histogram: 100, 90, 95, 0\n", "config item "
		"'storage-write-histogram': value 3 (95.00) is larger than value 2 "
		"(90.00)" },
};

static void
test_rates(void)
{
	for (size_t i = 0; i < sizeof(RATES) / sizeof(RATES[0]); i++) {
		storage_cfg* c = calloc(1, sizeof(*c));
		char err[CFG_ERR_LEN] = "";
		static char buf[16384];
		strbuf sb;

		if (storage_cfg_load_text(c, RATES[i].text, 2, err, sizeof(err)) != 0) {
			CHECK(false, "%s: %s", RATES[i].what, err);
			free(c);
			continue;
		}

		sb_init(&sb, buf, sizeof(buf));
		storage_cfg_echo(c, &sb);

		const char* d = strstr(buf, "internal-read-reqs-per-sec");
		char want[1024];

		snprintf(want, sizeof(want), "%s\n", RATES[i].derived);
		CHECK_STR(RATES[i].what, want, d != NULL ? d : buf);
		free(c);
	}

	for (size_t i = 0; i < sizeof(ERRORS) / sizeof(ERRORS[0]); i++) {
		storage_cfg* c = calloc(1, sizeof(*c));
		char err[CFG_ERR_LEN] = "";

		CHECK(storage_cfg_load_text(c, ERRORS[i].text, 2, err,
				sizeof(err)) != 0, "%s: accepted", ERRORS[i].what);
		CHECK_CONTAINS(ERRORS[i].what, ERRORS[i].error, err);
		free(c);
	}
}

// The paper's config file runs as printed (banner line, legacy items,
// leading zeros, spaces in lists) and echoes its additions after the
// standard items, only when set.
static void
test_paper_file(void)
{
	storage_cfg* c = calloc(1, sizeof(*c));
	char err[CFG_ERR_LEN] = "";
	static char buf[16384];
	strbuf sb;
	int rv = storage_cfg_load(c, &(cfg_source){ .path =
			"config/examples/paper_final.conf" }, 2, err,
			sizeof(err));

	CHECK(rv == 0, "config/examples/paper_final.conf: %s", err);

	if (rv == 0) {
		CHECK_U64("service-threads = num-queues x threads-per-queue", 140,
				c->common.service_threads);
		sb_init(&sb, buf, sizeof(buf));
		storage_cfg_echo(c, &sb);
		CHECK_CONTAINS("additions echoed in documented order", "max-lag-sec: 10\n"
				"storage-read-histogram: " PAPER_READ "\n"
				"storage-write-histogram: " PAPER_WRITE "\n"
				"lbr-req-offset: 90\nlbw-req-offset: 93\n"
				"total-lbw-per-sec: 1527\ndirect-frees: 300\n\n"
				"DERIVED CONFIGURATION\n", buf);
		CHECK(strstr(buf, "size-offset") == NULL,
				"commented-out size offsets echoed");
	}

	free(c);
}

int
main(void)
{
	test_histogram_rules();
	test_expected_sizes();
	test_distribution();
	test_rates();
	test_paper_file();

	return unit_end("test_sizing");
}
