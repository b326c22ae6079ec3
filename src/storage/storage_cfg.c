/*
 * storage_cfg.c - act_storage's config items, validation and derived rates.
 *
 * The derived arithmetic follows the reference exactly: unsigned 32-bit
 * integers (truncating division) up to records per large block, then
 * doubles. We compute the integer steps in 64 bits and reject a config
 * whose values would overflow 32 bits, rather than wrap as the reference
 * does.
 */

#include "storage_cfg.h"

#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>

#include "bench_cfg.h"

//==========================================================
// Typedefs & constants.
//

#define OFF(f) offsetof(storage_cfg, f)

static const cfg_item ITEMS[] = {
	BENCH_ITEM_DEVICE_NAMES(storage_cfg),
	BENCH_ITEM_FILE_SIZE_MBYTES(storage_cfg),
	BENCH_ITEM_SERVICE_THREADS(storage_cfg),
	BENCH_ITEM_TEST_DURATION_SEC(storage_cfg),
	BENCH_ITEM_REPORT_INTERVAL_SEC(storage_cfg),
	BENCH_ITEM_US_HISTOGRAMS(storage_cfg),
	BENCH_ITEM_READ_REQS(storage_cfg),
	BENCH_ITEM_WRITE_REQS(storage_cfg),
	{ "record-bytes", CFG_U32, OFF(record_bytes), 1536, 1,
		STORAGE_MAX_RECORD_BYTES, 0, NULL, NULL, "record size in bytes" },
	{ "record-bytes-range-max", CFG_U32, OFF(record_bytes_range_max), 0, 0,
		STORAGE_MAX_RECORD_BYTES, 0, NULL, NULL, "if not 0, record sizes are "
		"uniform from record-bytes to this" },
	{ "large-block-op-kbytes", CFG_U32, OFF(large_block_op_kbytes), 128, 1,
		STORAGE_MAX_LB_KBYTES, 0, NULL, NULL, "size of large-block reads and "
		"writes in KiB, a power of 2" },
	BENCH_ITEM_REPLICATION_FACTOR(storage_cfg),
	{ "update-pct", CFG_U32, OFF(update_pct), 0, 0, 100, 0, NULL, NULL,
		"percent of writes that are updates (each adds a read)" },
	BENCH_ITEM_DEFRAG_LWM_PCT(storage_cfg),
	{ "no-defrag-reads", CFG_FLAG, OFF(no_defrag_reads), 0, 0, 0, 0, NULL,
		NULL, "do no large-block reads" },
	{ "compress-pct", CFG_U32, OFF(compress_pct), 100, 0, 100, 0, NULL, NULL,
		"written data compresses to about this percent" },
	BENCH_ITEM_DISABLE_ODSYNC(storage_cfg),
	{ "commit-to-device", CFG_FLAG, OFF(commit_to_device), 0, 0, 0, 0, NULL,
		NULL, "each write is also a small synchronous record write" },
	{ "commit-min-bytes", CFG_U32, OFF(commit_min_bytes), 0, 0, UINT32_MAX,
		CFG_ECHO_IF, NULL, "commit-to-device", "commit write granularity, a "
		"power of 2 (0 = minimum I/O size)" },
	{ "tomb-raider", CFG_FLAG, OFF(tomb_raider), 0, 0, 0, 0, NULL, NULL,
		"per device, read the whole device in large blocks, round and "
		"round" },
	{ "tomb-raider-sleep-usec", CFG_U32, OFF(tomb_raider_sleep_usec), 0, 0,
		UINT32_MAX, 0, NULL, NULL, "tomb raider sleep before each read" },
	BENCH_ITEM_MAX_LAG_SEC(storage_cfg),
	BENCH_ITEM_SCHEDULER_MODE(storage_cfg),

	BENCH_ITEM_IO_ERROR_LIMIT(storage_cfg),
	BENCH_ITEM_TOTAL_LATENCY(storage_cfg),

	BENCH_ITEMS_LEGACY(storage_cfg),

	{ "cache-threads", CFG_FOREIGN, 0, 0, 0, 0, 0, NULL, NULL, NULL },
};

const cfg_table g_storage_cfg_table = {
	.program = "act_storage",
	.other = "act_index",
	.items = ITEMS,
	.n_items = sizeof(ITEMS) / sizeof(ITEMS[0]),
	.max_devices = 128
};

//==========================================================
// Forward declarations.
//

static int finish(storage_cfg* c, uint32_t n_cpus, char* err, size_t len);
static int derive(storage_cfg* c, char* err, size_t len);
static bool is_pow2(uint32_t v);
static uint32_t round_up(uint32_t v, uint32_t to);

//==========================================================
// Public API.
//

int
storage_cfg_load(storage_cfg* c, const char* path, uint32_t n_cpus,
		char* err, size_t err_len)
{
	if (cfg_load(&g_storage_cfg_table, path, c, &c->set, err, err_len) != 0) {
		return -1;
	}

	return finish(c, n_cpus, err, err_len);
}

int
storage_cfg_load_text(storage_cfg* c, const char* text, uint32_t n_cpus,
		char* err, size_t err_len)
{
	if (cfg_load_text(&g_storage_cfg_table, text, c, &c->set, err,
			err_len) != 0) {
		return -1;
	}

	return finish(c, n_cpus, err, err_len);
}

void
storage_cfg_echo(const storage_cfg* c, strbuf* sb)
{
	if (c->n_cpus != 0) {
		sb_printf(sb, "detected %" PRIu32 " CPUs\n\n", c->n_cpus);
	}

	sb_printf(sb, "ACT-STORAGE CONFIGURATION\n");
	cfg_echo(&g_storage_cfg_table, c, sb);

	sb_printf(sb, "\nDERIVED CONFIGURATION\n");
	sb_printf(sb, "record-stored-bytes: %" PRIu32 " ... %" PRIu32 "\n",
			c->record_stored, c->record_stored_max);
	sb_printf(sb, "internal-read-reqs-per-sec: %" PRIu32 "\n",
			c->internal_read_reqs_per_sec);
	sb_printf(sb, "internal-write-reqs-per-sec: %" PRIu32 "\n",
			c->internal_write_reqs_per_sec);
	sb_printf(sb, "large-block-reads-per-sec: %.2f\n",
			c->large_block_reads_per_sec);
	sb_printf(sb, "large-block-writes-per-sec: %.2f\n\n",
			c->large_block_writes_per_sec);
}

//==========================================================
// Local helpers.
//

static int
finish(storage_cfg* c, uint32_t n_cpus, char* err, size_t len)
{
	const cfg_table* t = &g_storage_cfg_table;

	c->n_cpus = bench_cfg_service_threads(t, &c->set, &c->service_threads,
			c->num_queues, c->threads_per_queue, n_cpus);

	if (c->read_reqs_per_sec == 0 && c->write_reqs_per_sec == 0) {
		snprintf(err, len, "read-reqs-per-sec and write-reqs-per-sec are "
				"both 0 - there is no load to run");
		return -1;
	}

	if (c->record_bytes_range_max != 0 &&
			c->record_bytes_range_max <= c->record_bytes) {
		snprintf(err, len, "config item 'record-bytes-range-max': %" PRIu32
				" must be larger than record-bytes (%" PRIu32 "), or 0",
				c->record_bytes_range_max, c->record_bytes);
		return -1;
	}

	if (! is_pow2(c->large_block_op_kbytes)) {
		snprintf(err, len, "config item 'large-block-op-kbytes': %" PRIu32
				" is not a power of 2", c->large_block_op_kbytes);
		return -1;
	}

	c->large_block_bytes = c->large_block_op_kbytes * 1024;

	if (c->commit_min_bytes != 0 && (! is_pow2(c->commit_min_bytes) ||
			c->commit_min_bytes > c->large_block_bytes)) {
		snprintf(err, len, "config item 'commit-min-bytes': %" PRIu32
				" must be 0 or a power of 2 no larger than the large block "
				"(%" PRIu32 " bytes)", c->commit_min_bytes,
				c->large_block_bytes);
		return -1;
	}

	if (c->disable_odsync && c->commit_to_device) {
		snprintf(err, len, "config items 'disable-odsync' and "
				"'commit-to-device' can't both be yes");
		return -1;
	}

	return derive(c, err, len);
}

static int
derive(storage_cfg* c, char* err, size_t len)
{
	uint64_t internal_reads = (uint64_t)c->read_reqs_per_sec +
			(uint64_t)c->write_reqs_per_sec * c->update_pct / 100;
	uint64_t write_base = (uint64_t)c->replication_factor *
			c->write_reqs_per_sec;

	if (internal_reads > UINT32_MAX || write_base > UINT32_MAX) {
		snprintf(err, len, "rates too large: read-reqs-per-sec %" PRIu32
				", write-reqs-per-sec %" PRIu32 ", replication-factor %" PRIu32
				" give more than 4294967295 requests per second",
				c->read_reqs_per_sec, c->write_reqs_per_sec,
				c->replication_factor);
		return -1;
	}

	c->record_stored = round_up(c->record_bytes, 16);
	c->record_stored_max = c->record_bytes_range_max != 0 ?
			round_up(c->record_bytes_range_max, 16) : c->record_stored;

	uint32_t avg_stored = (c->record_stored + c->record_stored_max) / 2;

	c->records_per_large_block = c->large_block_bytes / avg_stored;

	if (c->records_per_large_block == 0) {
		snprintf(err, len, "average stored record (%" PRIu32 " bytes, from "
				"record-bytes %" PRIu32 " and record-bytes-range-max %" PRIu32
				") is larger than a large block (large-block-op-kbytes %" PRIu32
				")", avg_stored, c->record_bytes, c->record_bytes_range_max,
				c->large_block_op_kbytes);
		return -1;
	}

	c->internal_read_reqs_per_sec = (uint32_t)internal_reads;
	c->internal_write_reqs_per_sec = c->commit_to_device ?
			(uint32_t)write_base : 0;

	double original_lb_rate = (double)write_base /
			(double)c->records_per_large_block;
	double amplification = 100.0 / (double)(100 - c->defrag_lwm_pct);

	c->large_block_reads_per_sec = original_lb_rate * amplification;
	c->large_block_writes_per_sec = c->commit_to_device ?
			original_lb_rate * (amplification - 1.0) :
			c->large_block_reads_per_sec;

	if (c->no_defrag_reads) {
		c->large_block_reads_per_sec = 0.0;
	}

	uint64_t service_load = (uint64_t)c->internal_read_reqs_per_sec +
			c->internal_write_reqs_per_sec;

	if (service_load > UINT32_MAX) {
		snprintf(err, len, "rates too large: internal reads and writes give "
				"more than 4294967295 requests per second");
		return -1;
	}

	if (service_load != 0 && service_load < c->service_threads) {
		snprintf(err, len, "load config too small: %" PRIu64 " internal "
				"requests per second for %" PRIu32 " service-threads (each "
				"thread needs at least 1 per second)", service_load,
				c->service_threads);
		return -1;
	}

	return 0;
}

static bool
is_pow2(uint32_t v)
{
	return v != 0 && (v & (v - 1)) == 0;
}

static uint32_t
round_up(uint32_t v, uint32_t to)
{
	return (uint32_t)(((uint64_t)v + to - 1) / to * to);
}
