/*
 * Description: act_storage derived configuration - docs/act_storage.md's worked
 * example (23.53), the reference's own examples and a table of other
 * cases - cross-item validation errors, and the exact config echo.
 */

#include <stdlib.h>

#include "storage/storage_cfg.h"
#include "unit.h"

#define DEV "device-names: /tmp/exdev/dev_y\ntest-duration-sec: 1\n" \
	"service-threads: 4\n"

typedef struct {
	const char* what;
	const char* text;
	const char* derived; // the DERIVED CONFIGURATION lines
} derived_case;

static const derived_case DERIVED[] = {
	{ "documented worked example (1x)", DEV
		"read-reqs-per-sec: 2000\nwrite-reqs-per-sec: 1000\n",
		"record-stored-bytes: 1536 ... 1536\n"
		"internal-read-reqs-per-sec: 2000\n"
		"internal-write-reqs-per-sec: 0\n"
		"large-block-reads-per-sec: 23.53\n"
		"large-block-writes-per-sec: 23.53\n" },
	{ "reference d1 (3x)", DEV
		"read-reqs-per-sec: 6000\nwrite-reqs-per-sec: 3000\n",
		"record-stored-bytes: 1536 ... 1536\n"
		"internal-read-reqs-per-sec: 6000\n"
		"internal-write-reqs-per-sec: 0\n"
		"large-block-reads-per-sec: 70.59\n"
		"large-block-writes-per-sec: 70.59\n" },
	{ "reference d2 (range)", DEV
		"read-reqs-per-sec: 2000\nwrite-reqs-per-sec: 1000\n"
		"record-bytes: 1000\nrecord-bytes-range-max: 3000\n",
		"record-stored-bytes: 1008 ... 3008\n"
		"internal-read-reqs-per-sec: 2000\n"
		"internal-write-reqs-per-sec: 0\n"
		"large-block-reads-per-sec: 30.77\n"
		"large-block-writes-per-sec: 30.77\n" },
	{ "reference d3 (rf, update, lwm)", DEV
		"read-reqs-per-sec: 2000\nwrite-reqs-per-sec: 1000\n"
		"replication-factor: 2\nupdate-pct: 30\ndefrag-lwm-pct: 60\n",
		"record-stored-bytes: 1536 ... 1536\n"
		"internal-read-reqs-per-sec: 2300\n"
		"internal-write-reqs-per-sec: 0\n"
		"large-block-reads-per-sec: 58.82\n"
		"large-block-writes-per-sec: 58.82\n" },
	{ "reference d4 (commit-to-device)", DEV
		"read-reqs-per-sec: 4000\nwrite-reqs-per-sec: 4000\n"
		"commit-to-device: yes\nlarge-block-op-kbytes: 256\n"
		"record-bytes: 700\n",
		"record-stored-bytes: 704 ... 704\n"
		"internal-read-reqs-per-sec: 4000\n"
		"internal-write-reqs-per-sec: 4000\n"
		"large-block-reads-per-sec: 21.51\n"
		"large-block-writes-per-sec: 10.75\n" },
	{ "reference d5 (write only, no defrag reads)", DEV
		"read-reqs-per-sec: 0\nwrite-reqs-per-sec: 5000\n"
		"no-defrag-reads: yes\nrecord-bytes: 4096\n",
		"record-stored-bytes: 4096 ... 4096\n"
		"internal-read-reqs-per-sec: 0\n"
		"internal-write-reqs-per-sec: 0\n"
		"large-block-reads-per-sec: 0.00\n"
		"large-block-writes-per-sec: 312.50\n" },
	{ "README's 1500-byte record (integer records per block)", DEV
		"read-reqs-per-sec: 2000\nwrite-reqs-per-sec: 1000\n"
		"record-bytes: 1500\n",
		"record-stored-bytes: 1504 ... 1504\n"
		"internal-read-reqs-per-sec: 2000\n"
		"internal-write-reqs-per-sec: 0\n"
		"large-block-reads-per-sec: 22.99\n"
		"large-block-writes-per-sec: 22.99\n" },
	{ "30x", DEV
		"read-reqs-per-sec: 60000\nwrite-reqs-per-sec: 30000\n",
		"record-stored-bytes: 1536 ... 1536\n"
		"internal-read-reqs-per-sec: 60000\n"
		"internal-write-reqs-per-sec: 0\n"
		"large-block-reads-per-sec: 705.88\n"
		"large-block-writes-per-sec: 705.88\n" },
	{ "defrag-lwm-pct 0 with commit-to-device: no defrag writes", DEV
		"read-reqs-per-sec: 2000\nwrite-reqs-per-sec: 1000\n"
		"commit-to-device: yes\ndefrag-lwm-pct: 0\n",
		"record-stored-bytes: 1536 ... 1536\n"
		"internal-read-reqs-per-sec: 2000\n"
		"internal-write-reqs-per-sec: 1000\n"
		"large-block-reads-per-sec: 11.76\n"
		"large-block-writes-per-sec: 0.00\n" },
	{ "defrag-lwm-pct 99", DEV
		"read-reqs-per-sec: 2000\nwrite-reqs-per-sec: 1000\n"
		"defrag-lwm-pct: 99\n",
		"record-stored-bytes: 1536 ... 1536\n"
		"internal-read-reqs-per-sec: 2000\n"
		"internal-write-reqs-per-sec: 0\n"
		"large-block-reads-per-sec: 1176.47\n"
		"large-block-writes-per-sec: 1176.47\n" },
	{ "8 MiB large blocks", DEV
		"read-reqs-per-sec: 2000\nwrite-reqs-per-sec: 1000\n"
		"large-block-op-kbytes: 8192\n",
		"record-stored-bytes: 1536 ... 1536\n"
		"internal-read-reqs-per-sec: 2000\n"
		"internal-write-reqs-per-sec: 0\n"
		"large-block-reads-per-sec: 0.37\n"
		"large-block-writes-per-sec: 0.37\n" },
	{ "update-pct 100 on a write-only load", DEV
		"read-reqs-per-sec: 0\nwrite-reqs-per-sec: 1000\nupdate-pct: 100\n",
		"record-stored-bytes: 1536 ... 1536\n"
		"internal-read-reqs-per-sec: 1000\n"
		"internal-write-reqs-per-sec: 0\n"
		"large-block-reads-per-sec: 23.53\n"
		"large-block-writes-per-sec: 23.53\n" },
	{ "replication-factor 3 with commit-to-device", DEV
		"read-reqs-per-sec: 100\nwrite-reqs-per-sec: 1000\n"
		"replication-factor: 3\ncommit-to-device: yes\nrecord-bytes: 1\n",
		"record-stored-bytes: 16 ... 16\n"
		"internal-read-reqs-per-sec: 100\n"
		"internal-write-reqs-per-sec: 3000\n"
		"large-block-reads-per-sec: 0.73\n"
		"large-block-writes-per-sec: 0.37\n" },
	{ "largest record", DEV
		"read-reqs-per-sec: 10\nwrite-reqs-per-sec: 100\n"
		"record-bytes: 8388608\nlarge-block-op-kbytes: 8192\n",
		"record-stored-bytes: 8388608 ... 8388608\n"
		"internal-read-reqs-per-sec: 10\n"
		"internal-write-reqs-per-sec: 0\n"
		"large-block-reads-per-sec: 200.00\n"
		"large-block-writes-per-sec: 200.00\n" },
};

typedef struct {
	const char* what;
	const char* text;
	const char* error;
} error_case;

static const error_case ERRORS[] = {
	{ "no load", DEV "read-reqs-per-sec: 0\nwrite-reqs-per-sec: 0\n",
		"read-reqs-per-sec and write-reqs-per-sec are both 0" },
	{ "no load by default", DEV,
		"read-reqs-per-sec and write-reqs-per-sec are both 0" },
	{ "range max not above record", DEV "read-reqs-per-sec: 10\n"
		"record-bytes: 2000\nrecord-bytes-range-max: 2000\n",
		"config item 'record-bytes-range-max': 2000 must be larger than "
		"record-bytes (2000), or 0" },
	{ "large block not a power of 2", DEV "read-reqs-per-sec: 10\n"
		"large-block-op-kbytes: 100\n",
		"config item 'large-block-op-kbytes': 100 is not a power of 2" },
	{ "commit-min-bytes not a power of 2", DEV "read-reqs-per-sec: 10\n"
		"commit-min-bytes: 3000\n",
		"config item 'commit-min-bytes': 3000 must be 0 or a power of 2" },
	{ "commit-min-bytes above the large block", DEV
		"read-reqs-per-sec: 10\ncommit-min-bytes: 262144\n",
		"config item 'commit-min-bytes': 262144 must be 0 or a power of 2 no "
		"larger than the large block (131072 bytes)" },
	{ "disable-odsync with commit-to-device", DEV "read-reqs-per-sec: 10\n"
		"disable-odsync: yes\ncommit-to-device: yes\n",
		"config items 'disable-odsync' and 'commit-to-device' can't both be "
		"yes" },
	{ "record larger than large block", DEV "write-reqs-per-sec: 10\n"
		"record-bytes: 200000\n",
		"record-bytes 200000 and record-bytes-range-max 0) is larger than a "
		"large block (large-block-op-kbytes 128)" },
	{ "load too small", DEV "read-reqs-per-sec: 3\n",
		"load config too small: 3 internal requests per second for 4 "
		"service-threads" },
	{ "load too small with default threads", "device-names: /dev/x\n"
		"test-duration-sec: 1\nread-reqs-per-sec: 9\n",
		"load config too small: 9 internal requests per second for 10 "
		"service-threads" },
	{ "health-interval-sec over a day", DEV "read-reqs-per-sec: 10\n"
		"health-interval-sec: 86401\n", "health-interval-sec" },
	{ "write rate overflow", DEV "write-reqs-per-sec: 4294967295\n"
		"replication-factor: 2\n", "rates too large" },
	{ "read rate overflow", DEV "read-reqs-per-sec: 4294967295\n"
		"write-reqs-per-sec: 100\nupdate-pct: 100\n", "rates too large" },
};

// The echo of the reference's example config (examples/example_storage.log)
// must come out byte for byte.
static const char EXAMPLE_CONF[] =
	"# 2x load on one file-backed device, 6 service threads, 10 s\n"
	"device-names: /tmp/exdev/dev_x\n"
	"file-size-mbytes: 128\n"
	"test-duration-sec: 10\n"
	"service-threads: 6\n"
	"read-reqs-per-sec: 4000\n"
	"write-reqs-per-sec: 2000\n";

static const char EXAMPLE_ECHO[] =
	"ACT-STORAGE CONFIGURATION\n"
	"device-names: /tmp/exdev/dev_x\n"
	"num-devices: 1\n"
	"file-size-mbytes: 128\n"
	"service-threads: 6\n"
	"test-duration-sec: 10\n"
	"report-interval-sec: 1\n"
	"microsecond-histograms: no\n"
	"read-reqs-per-sec: 4000\n"
	"write-reqs-per-sec: 2000\n"
	"record-bytes: 1536\n"
	"record-bytes-range-max: 0\n"
	"large-block-op-kbytes: 128\n"
	"replication-factor: 1\n"
	"update-pct: 0\n"
	"defrag-lwm-pct: 50\n"
	"no-defrag-reads: no\n"
	"compress-pct: 100\n"
	"disable-odsync: no\n"
	"commit-to-device: no\n"
	"tomb-raider: no\n"
	"tomb-raider-sleep-usec: 0\n"
	"max-lag-sec: 10\n"
	"\n"
	"DERIVED CONFIGURATION\n"
	"record-stored-bytes: 1536 ... 1536\n"
	"internal-read-reqs-per-sec: 4000\n"
	"internal-write-reqs-per-sec: 0\n"
	"large-block-reads-per-sec: 47.06\n"
	"large-block-writes-per-sec: 47.06\n"
	"\n";

static char*
echo_of(const char* text, uint32_t n_cpus)
{
	storage_cfg* c = calloc(1, sizeof(*c));
	char err[CFG_ERR_LEN] = "";
	static char buf[16384];
	strbuf sb;

	buf[0] = '\0';

	if (storage_cfg_load_text(c, text, n_cpus, err, sizeof(err)) != 0) {
		snprintf(buf, sizeof(buf), "error: %s", err);
	}
	else {
		sb_init(&sb, buf, sizeof(buf));
		storage_cfg_echo(c, &sb);
	}

	free(c);

	return buf;
}

static void
test_derived(void)
{
	for (size_t i = 0; i < sizeof(DERIVED) / sizeof(DERIVED[0]); i++) {
		const char* echo = echo_of(DERIVED[i].text, 2);
		const char* d = strstr(echo, "DERIVED CONFIGURATION\n");

		CHECK(d != NULL, "%s: no derived block in '%s'", DERIVED[i].what,
				echo);

		if (d != NULL) {
			char want[1024];

			snprintf(want, sizeof(want), "DERIVED CONFIGURATION\n%s\n",
					DERIVED[i].derived);
			CHECK_STR(DERIVED[i].what, want, d);
		}
	}
}

static void
test_errors(void)
{
	for (size_t i = 0; i < sizeof(ERRORS) / sizeof(ERRORS[0]); i++) {
		storage_cfg* c = calloc(1, sizeof(*c));
		char err[CFG_ERR_LEN] = "";
		int rv = storage_cfg_load_text(c, ERRORS[i].text, 2, err, sizeof(err));

		CHECK(rv != 0, "%s: accepted", ERRORS[i].what);
		CHECK_CONTAINS(ERRORS[i].what, ERRORS[i].error, err);
		free(c);
	}
}

static void
test_echo(void)
{
	CHECK_STR("reference example echo", EXAMPLE_ECHO, echo_of(EXAMPLE_CONF, 2));

	// Without service-threads: "detected N CPUs" and 5 x N threads.
	const char* e = echo_of("device-names: /dev/x\ntest-duration-sec: 1\n"
			"read-reqs-per-sec: 2000\n", 3);

	CHECK(strncmp(e, "detected 3 CPUs\n\nACT-STORAGE CONFIGURATION\n", 43) == 0,
			"CPU line first, got '%.60s'", e);
	CHECK_CONTAINS("default service-threads", "\nservice-threads: 15\n", e);

	// commit-min-bytes only with commit-to-device.
	e = echo_of(DEV "read-reqs-per-sec: 10\ncommit-min-bytes: 4096\n", 2);
	CHECK(strstr(e, "commit-min-bytes") == NULL,
			"commit-min-bytes echoed without commit-to-device");
	e = echo_of(DEV "read-reqs-per-sec: 10\ncommit-to-device: yes\n"
			"commit-min-bytes: 4096\n", 2);
	CHECK_CONTAINS("commit-min-bytes with commit-to-device",
			"commit-to-device: yes\ncommit-min-bytes: 4096\ntomb-raider: no\n",
			e);

	// Our additions appear after max-lag-sec, only when not the default.
	e = echo_of(DEV "read-reqs-per-sec: 10\nio-error-limit: 0\n"
			"total-latency: no\n", 2);
	CHECK(strstr(e, "io-error-limit") == NULL &&
			strstr(e, "total-latency") == NULL, "defaults of additions echoed");
	e = echo_of(DEV "read-reqs-per-sec: 10\nio-error-limit: 5\n"
			"total-latency: yes\n", 2);
	CHECK_CONTAINS("additions after max-lag-sec",
			"max-lag-sec: 10\nio-error-limit: 5\ntotal-latency: yes\n\n", e);

	// health-interval-sec: echoed when not 10, before io-error-limit; 0
	// and 86400 are values.
	e = echo_of(DEV "read-reqs-per-sec: 10\nhealth-interval-sec: 10\n", 2);
	CHECK(strstr(e, "health-interval-sec") == NULL, "health-interval-sec 10 "
			"(the default) echoed: %s", e);
	e = echo_of(DEV "read-reqs-per-sec: 10\nhealth-interval-sec: 0\n"
			"io-error-limit: 5\n", 2);
	CHECK_CONTAINS("health-interval-sec 0 before io-error-limit",
			"max-lag-sec: 10\nhealth-interval-sec: 0\nio-error-limit: 5\n\n", e);
	e = echo_of(DEV "read-reqs-per-sec: 10\nhealth-interval-sec: 86400\n", 2);
	CHECK_CONTAINS("health-interval-sec 86400",
			"max-lag-sec: 10\nhealth-interval-sec: 86400\n\n", e);

	// Legacy items and scheduler-mode are never echoed; flags as yes/no.
	e = echo_of(DEV "read-reqs-per-sec: 10\nnum-queues: 4\n"
			"scheduler-mode: deadline\ntomb-raider: TRUE\n", 2);
	CHECK(strstr(e, "num-queues") == NULL && strstr(e, "scheduler") == NULL,
			"legacy or scheduler echoed: %s", e);
	CHECK_CONTAINS("flag echo", "\ntomb-raider: yes\n", e);

	// file-size-mbytes only when not 0; leading zeros read as decimal.
	e = echo_of(DEV "read-reqs-per-sec: 0093\n", 2);
	CHECK(strstr(e, "file-size-mbytes") == NULL, "file-size-mbytes: 0 echoed");
	CHECK_CONTAINS("093 is decimal", "\nread-reqs-per-sec: 93\n", e);
}

// The shipped example config parses, is the 1x load, and lists every item.
static void
test_example_file(void)
{
	storage_cfg* c = calloc(1, sizeof(*c));
	char err[CFG_ERR_LEN] = "";
	int rv = storage_cfg_load(c, &(cfg_source){ .path =
			"config/act_storage.conf" }, 2, err,
			sizeof(err));

	CHECK(rv == 0, "config/act_storage.conf: %s", err);
	CHECK(c->common.read_reqs_per_sec == 2000 &&
			c->common.write_reqs_per_sec == 1000,
			"config/act_storage.conf is not 1x: %u / %u",
			c->common.read_reqs_per_sec, c->common.write_reqs_per_sec);

	FILE* f = fopen("config/act_storage.conf", "r");
	static char text[65536];
	size_t n = f != NULL ? fread(text, 1, sizeof(text) - 1, f) : 0;

	text[n] = '\0';

	if (f != NULL) {
		fclose(f);
	}

	const cfg_table* t = &g_storage_cfg_table;

	for (uint32_t i = 0; i < t->n_items; i++) {
		char want[96];

		if (t->items[i].type == CFG_LEGACY) {
			continue;
		}

		snprintf(want, sizeof(want), "%s: ", t->items[i].name);
		CHECK_CONTAINS("config/act_storage.conf lists", want, text);
	}

	free(c);
}

int
main(void)
{
	test_example_file();
	test_derived();
	test_errors();
	test_echo();

	return unit_end("test_storage_cfg");
}
