/*
 * Description: act_index config - derived rates (service-thread reads,
 * cache-thread reads and writes, 64-bit), the errors for act_storage-only
 * items, validation, and the exact config echo.
 */

#include <stdlib.h>

#include "index/index_cfg.h"
#include "unit.h"

#define DEV "device-names: /dev/x\ntest-duration-sec: 1\nservice-threads: 4\n"

typedef struct {
	const char* what;
	const char* text;
	uint64_t service;
	uint64_t cache;
} derived_case;

static const derived_case DERIVED[] = {
	{ "1x", DEV "read-reqs-per-sec: 2000\nwrite-reqs-per-sec: 1000\n",
		3000, 2000 },
	{ "read only", DEV "read-reqs-per-sec: 2000\n", 2000, 0 },
	{ "write only", DEV "write-reqs-per-sec: 1000\n", 1000, 2000 },
	{ "replication-factor 2, lwm 60", DEV "read-reqs-per-sec: 2000\n"
		"write-reqs-per-sec: 1000\nreplication-factor: 2\n"
		"defrag-lwm-pct: 60\n", 4000, 5000 },
	{ "lwm 0: no amplification", DEV "read-reqs-per-sec: 10\n"
		"write-reqs-per-sec: 1000\ndefrag-lwm-pct: 0\n", 1010, 1000 },
	{ "lwm 33: truncated", DEV "write-reqs-per-sec: 1000\n"
		"defrag-lwm-pct: 33\n", 1000, 1492 },
	{ "lwm 99", DEV "write-reqs-per-sec: 1000\ndefrag-lwm-pct: 99\n",
		1000, 100000 },
	{ "30x on 4 devices", DEV "read-reqs-per-sec: 240000\n"
		"write-reqs-per-sec: 120000\n", 360000, 240000 },
	{ "beyond 32 bits", DEV "read-reqs-per-sec: 4294967295\n"
		"write-reqs-per-sec: 4294967295\nreplication-factor: 2\n"
		"defrag-lwm-pct: 0\n", 12884901885ULL, 8589934590ULL },
};

typedef struct {
	const char* what;
	const char* text;
	const char* error;
} error_case;

static const error_case ERRORS[] = {
	{ "record-bytes", DEV "read-reqs-per-sec: 10\nrecord-bytes: 1536\n",
		"config item 'record-bytes' applies to act_storage only (line 5)" },
	{ "large-block-op-kbytes", DEV "large-block-op-kbytes: 128\n",
		"config item 'large-block-op-kbytes' applies to act_storage only" },
	{ "update-pct", DEV "update-pct: 0\n",
		"config item 'update-pct' applies to act_storage only" },
	{ "compress-pct", DEV "compress-pct: 100\n",
		"config item 'compress-pct' applies to act_storage only" },
	{ "commit-to-device", DEV "commit-to-device: no\n",
		"config item 'commit-to-device' applies to act_storage only" },
	{ "tomb-raider", DEV "tomb-raider: no\n",
		"config item 'tomb-raider' applies to act_storage only" },
	{ "no-defrag-reads", DEV "no-defrag-reads: no\n",
		"config item 'no-defrag-reads' applies to act_storage only" },
	{ "record-bytes-range-max", DEV "record-bytes-range-max: 0\n",
		"config item 'record-bytes-range-max' applies to act_storage only" },
	{ "storage-read-histogram", DEV "storage-read-histogram: 100,0\n",
		"config item 'storage-read-histogram' applies to act_storage only" },
	{ "no load", DEV "read-reqs-per-sec: 0\n",
		"read-reqs-per-sec and write-reqs-per-sec are both 0" },
	{ "load too small", DEV "read-reqs-per-sec: 3\n",
		"load config too small: 3 service-thread reads per second for 4 "
		"service-threads" },
	{ "cache-threads 0", DEV "read-reqs-per-sec: 10\ncache-threads: 0\n",
		"config item 'cache-threads': 0 is out of range (1 to 4294967295)" },
	{ "17 devices", "test-duration-sec: 1\nread-reqs-per-sec: 100\n"
		"device-names: a b c d e f g h i j k l m n o p q\n",
		"config item 'device-names': more than 16 devices" },
	{ "unknown", DEV "cache-thread: 8\n", "unknown config item 'cache-thread'" },
};

static const char ECHO[] =
	"detected 2 CPUs\n"
	"\n"
	"ACT-INDEX CONFIGURATION\n"
	"device-names: /dev/sdb /dev/sdc\n"
	"num-devices: 2\n"
	"service-threads: 10\n"
	"cache-threads: 8\n"
	"test-duration-sec: 86400\n"
	"report-interval-sec: 1\n"
	"microsecond-histograms: no\n"
	"read-reqs-per-sec: 4000\n"
	"write-reqs-per-sec: 2000\n"
	"replication-factor: 1\n"
	"defrag-lwm-pct: 50\n"
	"disable-odsync: no\n"
	"max-lag-sec: 10\n"
	"\n"
	"DERIVED CONFIGURATION\n"
	"service-thread-reads-per-sec: 6000\n"
	"cache-thread-reads-and-writes-per-sec: 4000\n"
	"\n";

static void
test_derived(void)
{
	for (size_t i = 0; i < sizeof(DERIVED) / sizeof(DERIVED[0]); i++) {
		index_cfg* c = calloc(1, sizeof(*c));
		char err[CFG_ERR_LEN] = "";
		int rv = index_cfg_load_text(c, DERIVED[i].text, 2, err, sizeof(err));

		CHECK(rv == 0, "%s: %s", DERIVED[i].what, err);

		if (rv == 0) {
			char ctx[128];

			snprintf(ctx, sizeof(ctx), "%s: service-thread-reads-per-sec",
					DERIVED[i].what);
			CHECK_U64(ctx, DERIVED[i].service, c->service_thread_reads_per_sec);
			snprintf(ctx, sizeof(ctx), "%s: cache-thread-reads-and-writes",
					DERIVED[i].what);
			CHECK_U64(ctx, DERIVED[i].cache,
					c->cache_thread_reads_and_writes_per_sec);
		}

		free(c);
	}
}

static void
test_errors(void)
{
	for (size_t i = 0; i < sizeof(ERRORS) / sizeof(ERRORS[0]); i++) {
		index_cfg* c = calloc(1, sizeof(*c));
		char err[CFG_ERR_LEN] = "";
		int rv = index_cfg_load_text(c, ERRORS[i].text, 2, err, sizeof(err));

		CHECK(rv != 0, "%s: accepted", ERRORS[i].what);
		CHECK_CONTAINS(ERRORS[i].what, ERRORS[i].error, err);
		free(c);
	}
}

static void
test_echo(void)
{
	index_cfg* c = calloc(1, sizeof(*c));
	char err[CFG_ERR_LEN] = "";
	static char buf[8192];
	strbuf sb;
	int rv = index_cfg_load_text(c, "device-names: /dev/sdb,/dev/sdc\n"
			"test-duration-sec: 86400\nread-reqs-per-sec: 4000\n"
			"write-reqs-per-sec: 2000\nscheduler-mode: noop\n", 2, err,
			sizeof(err));

	CHECK(rv == 0, "echo config: %s", err);
	sb_init(&sb, buf, sizeof(buf));
	index_cfg_echo(c, &sb);
	CHECK_STR("act_index echo", ECHO, buf);

	rv = index_cfg_load(c, &(cfg_source){ .path = "config/act_index.conf" },
			2, err, sizeof(err));
	CHECK(rv == 0, "config/act_index.conf: %s", err);
	CHECK(c->common.read_reqs_per_sec == 2000 &&
			c->common.write_reqs_per_sec == 1000 && c->common.devices.n == 1,
			"config/act_index.conf is not 1x on 1 device");
	free(c);
}

int
main(void)
{
	test_derived();
	test_errors();
	test_echo();

	return unit_end("test_index_cfg");
}
