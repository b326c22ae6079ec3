/*
 * index_cfg.c - act_index's config items, validation and derived rates.
 */

#include "index_cfg.h"

#include <inttypes.h>
#include <stdio.h>

#include "bench_cfg.h"

//==========================================================
// Typedefs & constants.
//

#define FOREIGN(name) { name, CFG_FOREIGN, 0, 0, 0, 0, 0, NULL, NULL, NULL }

static const cfg_item ITEMS[] = {
	BENCH_ITEM_DEVICE_NAMES(index_cfg),
	BENCH_ITEM_FILE_SIZE_MBYTES(index_cfg),
	BENCH_ITEM_SERVICE_THREADS(index_cfg),
	{ "cache-threads", CFG_U32, offsetof(index_cfg, cache_threads), 8, 1,
		UINT32_MAX, 0, NULL, NULL, "threads doing the 4 KiB index writes "
		"and the defrag reads, as the page cache would" },
	BENCH_ITEM_TEST_DURATION_SEC(index_cfg),
	BENCH_ITEM_REPORT_INTERVAL_SEC(index_cfg),
	BENCH_ITEM_US_HISTOGRAMS(index_cfg),
	BENCH_ITEM_READ_REQS(index_cfg),
	BENCH_ITEM_WRITE_REQS(index_cfg),
	BENCH_ITEM_REPLICATION_FACTOR(index_cfg),
	BENCH_ITEM_DEFRAG_LWM_PCT(index_cfg),
	BENCH_ITEM_DISABLE_ODSYNC(index_cfg),
	BENCH_ITEM_MAX_LAG_SEC(index_cfg),
	BENCH_ITEM_SCHEDULER_MODE(index_cfg),

	BENCH_ITEM_IO_ERROR_LIMIT(index_cfg),
	BENCH_ITEM_TOTAL_LATENCY(index_cfg),

	BENCH_ITEMS_LEGACY(index_cfg),

	FOREIGN("record-bytes"),
	FOREIGN("record-bytes-range-max"),
	FOREIGN("large-block-op-kbytes"),
	FOREIGN("update-pct"),
	FOREIGN("no-defrag-reads"),
	FOREIGN("compress-pct"),
	FOREIGN("commit-to-device"),
	FOREIGN("commit-min-bytes"),
	FOREIGN("tomb-raider"),
	FOREIGN("tomb-raider-sleep-usec"),
	FOREIGN("storage-read-histogram"),
	FOREIGN("storage-write-histogram"),
	FOREIGN("read-size-offset"),
	FOREIGN("write-size-offset"),
	FOREIGN("lbr-req-offset"),
	FOREIGN("lbw-req-offset"),
	FOREIGN("total-lbw-per-sec"),
	FOREIGN("direct-frees"),
};

const cfg_table g_index_cfg_table = {
	.program = "act_index",
	.other = "act_storage",
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
index_cfg_load(index_cfg* c, const char* path, uint32_t n_cpus, char* err,
		size_t err_len)
{
	if (cfg_load(&g_index_cfg_table, path, c, &c->set, err, err_len) != 0) {
		return -1;
	}

	return finish(c, n_cpus, err, err_len);
}

int
index_cfg_load_text(index_cfg* c, const char* text, uint32_t n_cpus,
		char* err, size_t err_len)
{
	if (cfg_load_text(&g_index_cfg_table, text, c, &c->set, err,
			err_len) != 0) {
		return -1;
	}

	return finish(c, n_cpus, err, err_len);
}

void
index_cfg_echo(const index_cfg* c, strbuf* sb)
{
	if (c->n_cpus != 0) {
		sb_printf(sb, "detected %" PRIu32 " CPUs\n\n", c->n_cpus);
	}

	sb_printf(sb, "ACT-INDEX CONFIGURATION\n");
	cfg_echo(&g_index_cfg_table, c, &c->set, sb);

	sb_printf(sb, "\nDERIVED CONFIGURATION\n");
	sb_printf(sb, "service-thread-reads-per-sec: %" PRIu64 "\n",
			c->service_thread_reads_per_sec);
	sb_printf(sb, "cache-thread-reads-and-writes-per-sec: %" PRIu64 "\n\n",
			c->cache_thread_reads_and_writes_per_sec);
}

//==========================================================
// Local helpers.
//

static int
finish(index_cfg* c, uint32_t n_cpus, char* err, size_t len)
{
	c->n_cpus = bench_cfg_service_threads(&g_index_cfg_table, &c->set,
			&c->service_threads, c->num_queues, c->threads_per_queue, n_cpus);

	if (c->read_reqs_per_sec == 0 && c->write_reqs_per_sec == 0) {
		snprintf(err, len, "read-reqs-per-sec and write-reqs-per-sec are "
				"both 0 - there is no load to run");
		return -1;
	}

	uint64_t write_eff = (uint64_t)c->replication_factor *
			c->write_reqs_per_sec;

	double cache = (double)write_eff * 100.0 /
			(double)(100 - c->defrag_lwm_pct);

	if (cache >= 18446744073709551616.0) {
		snprintf(err, len, "rates too large: write-reqs-per-sec %" PRIu32
				" x replication-factor %" PRIu32 " with defrag-lwm-pct %" PRIu32
				" overflows 64 bits", c->write_reqs_per_sec,
				c->replication_factor, c->defrag_lwm_pct);
		return -1;
	}

	c->service_thread_reads_per_sec = c->read_reqs_per_sec + write_eff;
	c->cache_thread_reads_and_writes_per_sec = (uint64_t)cache;

	if (c->service_thread_reads_per_sec < c->service_threads) {
		snprintf(err, len, "load config too small: %" PRIu64 " service-thread "
				"reads per second for %" PRIu32 " service-threads (each thread "
				"needs at least 1 per second)", c->service_thread_reads_per_sec,
				c->service_threads);
		return -1;
	}

	return 0;
}
