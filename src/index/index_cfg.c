/*
 * index_cfg.c - act_index's config items, validation and derived rates.
 */

#include "index/index_cfg.h"

#include <inttypes.h>
#include <stdio.h>

#include "common/loglines.h"
#include "common/shared_cfg.h"

//==========================================================
// Typedefs & constants.
//

static const cfg_item ITEMS[] = {
	SHARED_ITEM_DEVICE_NAMES(index_cfg),
	SHARED_ITEM_FILE_SIZE_MBYTES(index_cfg),
	SHARED_ITEM_SERVICE_THREADS(index_cfg),
	{ .name = "cache-threads", .type = CFG_U32,
		.offset = offsetof(index_cfg, cache_threads),
		.def = 8, .min = 1, .max = UINT32_MAX,
		.help = "threads doing the 4 KiB index writes and defragmentation "
		"reads, in bundles of 100 read+write pairs, as the page cache behind "
		"mmap would" },
	SHARED_ITEM_TEST_DURATION_SEC(index_cfg),
	SHARED_ITEM_REPORT_INTERVAL_SEC(index_cfg),
	SHARED_ITEM_US_HISTOGRAMS(index_cfg),
	SHARED_ITEM_READ_REQS(index_cfg),
	SHARED_ITEM_WRITE_REQS(index_cfg),
	SHARED_ITEM_REPLICATION_FACTOR(index_cfg),
	SHARED_ITEM_DEFRAG_LWM_PCT(index_cfg),
	SHARED_ITEM_DISABLE_ODSYNC(index_cfg),
	SHARED_ITEM_MAX_LAG_SEC(index_cfg),
	SHARED_ITEM_SCHEDULER_MODE(index_cfg),

	SHARED_ITEM_HEALTH_INTERVAL_SEC(index_cfg),
	SHARED_ITEM_IO_ERROR_LIMIT(index_cfg),
	SHARED_ITEM_TOTAL_LATENCY(index_cfg),
	SHARED_ITEM_RATE_PROCESS(index_cfg),

	SHARED_ITEMS_LEGACY(index_cfg),
};

// act_storage's own items (its table's names that are not ours): "applies
// to act_storage only". test_cfg_tables checks the list against
// act_storage's table, so it cannot drift - and act_index need not link
// that table.
static const char* const STORAGE_ITEMS[] = {
	"record-bytes", "record-bytes-range-max", "large-block-op-kbytes",
	"update-pct", "no-defrag-reads", "compress-pct", "commit-to-device",
	"commit-min-bytes", "tomb-raider", "tomb-raider-sleep-usec",
	"storage-read-histogram", "storage-write-histogram",
	"read-size-offset", "write-size-offset", "lbr-req-offset",
	"lbw-req-offset", "total-lbw-per-sec", "direct-frees", NULL
};

const cfg_table g_index_cfg_table = {
	.program = "act_index",
	.other_program = "act_storage",
	.other_items = STORAGE_ITEMS,
	.items = ITEMS,
	.n_items = sizeof(ITEMS) / sizeof(ITEMS[0]),
	.max_devices = INDEX_MAX_DEVICES
};

//==========================================================
// Forward declarations.
//

static int finish(index_cfg* c, uint32_t n_cpus, char* err, size_t len);

//==========================================================
// Public API.
//

int
index_cfg_load(index_cfg* c, const cfg_source* src, uint32_t n_cpus,
		char* err, size_t err_len)
{
	if (cfg_load(&g_index_cfg_table, src, c, &c->set, err, err_len) != 0) {
		return -1;
	}

	return finish(c, n_cpus, err, err_len);
}

int
index_cfg_load_text(index_cfg* c, const char* text, uint32_t n_cpus,
		char* err, size_t err_len)
{
	return index_cfg_load(c, &(cfg_source){ .text = text }, n_cpus, err,
			err_len);
}

void
index_cfg_echo(const index_cfg* c, strbuf* sb)
{
	if (c->n_cpus != 0) {
		sb_printf(sb, "detected %" PRIu32 " CPUs\n\n", c->n_cpus);
	}

	sb_printf(sb, LL_CONFIG_HEADING "\n", "ACT-INDEX");
	cfg_echo(&g_index_cfg_table, c, &c->set, sb);

	sb_printf(sb, "\n" LL_DERIVED_HEADING "\n");
	sb_printf(sb, LL_KEY_SERVICE_READS ": %" PRIu64 "\n",
			c->service_thread_reads_per_sec);
	sb_printf(sb, LL_KEY_CACHE_OPS ": %" PRIu64 "\n\n",
			c->cache_thread_reads_and_writes_per_sec);
}

//==========================================================
// Local helpers.
//

static int
finish(index_cfg* c, uint32_t n_cpus, char* err, size_t len)
{
	c->n_cpus = shared_cfg_service_threads(&g_index_cfg_table, &c->set,
			&c->common, n_cpus);

	static const char* const HISTS[] = { "reads", "writes", "total-reads",
		NULL };

	if (shared_cfg_check_hist_names(&c->common.devices, HISTS, err, len) != 0) {
		return -1;
	}

	if (c->common.read_reqs_per_sec == 0 && c->common.write_reqs_per_sec == 0) {
		snprintf(err, len, "read-reqs-per-sec and write-reqs-per-sec are "
				"both 0 - there is no load to run");
		return -1;
	}

	uint64_t write_eff = (uint64_t)c->common.replication_factor *
			c->common.write_reqs_per_sec;

	double cache = (double)write_eff * 100.0 /
			(double)(100 - c->common.defrag_lwm_pct);

	if (cache >= 18446744073709551616.0) {
		snprintf(err, len, "rates too large: write-reqs-per-sec %" PRIu32
				" x replication-factor %" PRIu32 " with defrag-lwm-pct %" PRIu32
				" overflows 64 bits", c->common.write_reqs_per_sec,
				c->common.replication_factor, c->common.defrag_lwm_pct);
		return -1;
	}

	c->service_thread_reads_per_sec = c->common.read_reqs_per_sec + write_eff;
	c->cache_thread_reads_and_writes_per_sec = (uint64_t)cache;

	if (c->service_thread_reads_per_sec < c->common.service_threads) {
		snprintf(err, len, "load config too small: %" PRIu64 " service-thread "
				"reads per second for %" PRIu32 " service-threads (each thread "
				"needs at least 1 per second)", c->service_thread_reads_per_sec,
				c->common.service_threads);
		return -1;
	}

	return 0;
}
