/*
 * storage_cfg.c - act_storage's config items, validation and derived rates.
 *
 * The derived arithmetic follows the reference exactly: unsigned 32-bit
 * integers (truncating division) up to records per large block, then
 * doubles. We compute the integer steps in 64 bits and reject a config
 * whose values would overflow 32 bits, rather than wrap as the reference
 * does.
 */

#include "storage/storage_cfg.h"

#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "common/bits.h"
#include "common/loglines.h"
#include "common/shared_cfg.h"

//==========================================================
// Typedefs & constants.
//

#define OFF(f) offsetof(storage_cfg, f)

static const cfg_item ITEMS[] = {
	SHARED_ITEM_DEVICE_NAMES(storage_cfg),
	SHARED_ITEM_FILE_SIZE_MBYTES(storage_cfg),
	SHARED_ITEM_SERVICE_THREADS(storage_cfg),
	SHARED_ITEM_TEST_DURATION_SEC(storage_cfg),
	SHARED_ITEM_REPORT_INTERVAL_SEC(storage_cfg),
	SHARED_ITEM_US_HISTOGRAMS(storage_cfg),
	SHARED_ITEM_READ_REQS(storage_cfg),
	SHARED_ITEM_WRITE_REQS(storage_cfg),
	{ .name = "record-bytes", .type = CFG_U32, .offset = OFF(record_bytes),
		.def = 1536, .min = 0, .max = STORAGE_MAX_RECORD_BYTES,
		.help = "record size in bytes, stored rounded up to 16; small reads "
		"are that rounded up to the device's minimum I/O size (0 only with "
		"the size histograms)" },
	{ .name = "record-bytes-range-max", .type = CFG_U32,
		.offset = OFF(record_bytes_range_max),
		.def = 0, .min = 0, .max = STORAGE_MAX_RECORD_BYTES,
		.help = "0 = every record is record-bytes; else record sizes are "
		"uniform from record-bytes up to this" },
	{ .name = "large-block-op-kbytes", .type = CFG_U32,
		.offset = OFF(large_block_op_kbytes),
		.def = 128, .min = 1, .max = STORAGE_MAX_LB_KBYTES, .pow2 = true,
		.help = "size in KiB of the large-block reads and writes (write "
		"buffers flushed, defragmentation)" },
	SHARED_ITEM_REPLICATION_FACTOR(storage_cfg),
	{ .name = "update-pct", .type = CFG_U32, .offset = OFF(update_pct),
		.def = 0, .min = 0, .max = 100,
		.help = "percent of writes that are updates: each also reads the "
		"record" },
	SHARED_ITEM_DEFRAG_LWM_PCT(storage_cfg),
	{ .name = "no-defrag-reads", .type = CFG_FLAG,
		.offset = OFF(no_defrag_reads),
		.def = 0,
		.help = "skip the large-block (defragmentation) reads" },
	{ .name = "compress-pct", .type = CFG_U32, .offset = OFF(compress_pct),
		.def = 100, .min = 0, .max = 100,
		.help = "written data compresses to about this percent of its size "
		"(100 = random data)" },
	SHARED_ITEM_DISABLE_ODSYNC(storage_cfg),
	{ .name = "commit-to-device", .type = CFG_FLAG,
		.offset = OFF(commit_to_device),
		.def = 0,
		.help = "each client write is also a small synchronous record write "
		"(the 'writes' histograms); large-block writes then only model "
		"defragmentation; not with disable-odsync" },
	{ .name = "commit-min-bytes", .type = CFG_U32,
		.offset = OFF(commit_min_bytes),
		.def = 0, .min = 0, .max = UINT32_MAX, .flags = CFG_ECHO_IF,
		.echo_if = "commit-to-device",
		.help = "size granularity of commit-to-device writes: 0 (the "
		"device's minimum I/O size) or a power of 2 up to the large block" },
	{ .name = "tomb-raider", .type = CFG_FLAG, .offset = OFF(tomb_raider),
		.def = 0,
		.help = "per device, also read the whole device one large block at "
		"a time, round and round" },
	{ .name = "tomb-raider-sleep-usec", .type = CFG_U32,
		.offset = OFF(tomb_raider_sleep_usec),
		.def = 0, .min = 0, .max = UINT32_MAX,
		.help = "microseconds the tomb raider sleeps before each read" },
	SHARED_ITEM_MAX_LAG_SEC(storage_cfg),
	SHARED_ITEM_SCHEDULER_MODE(storage_cfg),

	{ .name = "storage-read-histogram", .type = CFG_SIZE_HIST,
		.offset = OFF(read_hist),
		.flags = CFG_ECHO_SET | CFG_DEFAULT_NONE, .def_text = "unset",
		.help = "sizes of the small reads, from the server's "
		"device-read-size histogram: % of reads over 2^k bytes for k = 0, "
		"1, 2 ..., comma separated, the last 0" },
	{ .name = "storage-write-histogram", .type = CFG_SIZE_HIST,
		.offset = OFF(write_hist),
		.flags = CFG_ECHO_SET | CFG_DEFAULT_NONE, .def_text = "unset",
		.help = "sizes of the records written, from the server's "
		"device-write-size histogram: % of writes over 2^k bytes for k = 0, "
		"1, 2 ..., comma separated, the last 0" },
	{ .name = "read-size-offset", .type = CFG_U32,
		.offset = OFF(read_size_offset),
		.def = 100, .min = 1, .max = 1000, .flags = CFG_ECHO_SET,
		.help = "percent applied to the sizes of storage-read-histogram" },
	{ .name = "write-size-offset", .type = CFG_U32,
		.offset = OFF(write_size_offset),
		.def = 100, .min = 1, .max = 1000, .flags = CFG_ECHO_SET,
		.help = "percent applied to the sizes of storage-write-histogram" },
	{ .name = "lbr-req-offset", .type = CFG_U32,
		.offset = OFF(lbr_req_offset),
		.def = 100, .min = 0, .max = 1000, .flags = CFG_ECHO_SET,
		.help = "percent applied to the large-block (defragmentation) read "
		"rate" },
	{ .name = "lbw-req-offset", .type = CFG_U32,
		.offset = OFF(lbw_req_offset),
		.def = 100, .min = 0, .max = 1000, .flags = CFG_ECHO_SET,
		.help = "percent applied to the large-block write rate" },
	{ .name = "total-lbw-per-sec", .type = CFG_U32,
		.offset = OFF(total_lbw_per_sec),
		.def = 0, .min = 1, .max = UINT32_MAX,
		.flags = CFG_ECHO_SET | CFG_DEFAULT_NONE, .def_text = "unset",
		.help = "large-block writes per second seen on the node (server "
		"drv_ssd log); with direct-frees, large-block reads are scaled by "
		"(total - direct) / total" },
	{ .name = "direct-frees", .type = CFG_U32, .offset = OFF(direct_frees),
		.def = 0, .min = 0, .max = UINT32_MAX,
		.flags = CFG_ECHO_SET | CFG_DEFAULT_NONE, .def_text = "unset",
		.help = "blocks per second freed without defragmentation (server "
		"drv_ssd log), at most total-lbw-per-sec; only with it" },

	SHARED_ITEM_HEALTH_INTERVAL_SEC(storage_cfg),
	SHARED_ITEM_IO_ERROR_LIMIT(storage_cfg),
	SHARED_ITEM_TOTAL_LATENCY(storage_cfg),
	SHARED_ITEM_RATE_PROCESS(storage_cfg),

	SHARED_ITEMS_LEGACY(storage_cfg),
};

// act_index's own items (its table's names that are not ours): "applies to
// act_index only". test_cfg_tables checks the list against act_index's
// table, so it cannot drift - and act_storage need not link that table.
static const char* const INDEX_ITEMS[] = {
	"cache-threads", NULL
};

const cfg_table g_storage_cfg_table = {
	.program = "act_storage",
	.other_program = "act_index",
	.other_items = INDEX_ITEMS,
	.items = ITEMS,
	.n_items = sizeof(ITEMS) / sizeof(ITEMS[0]),
	.max_devices = ACT_MAX_DEVICES
};

//==========================================================
// Forward declarations.
//

static int finish(storage_cfg* c, uint32_t n_cpus, char* err, size_t len);
static int derive(storage_cfg* c, char* err, size_t len);

//==========================================================
// Public API.
//

int
storage_cfg_load(storage_cfg* c, const cfg_source* src, uint32_t n_cpus,
		char* err, size_t err_len)
{
	if (cfg_load(&g_storage_cfg_table, src, c, &c->set, err, err_len) != 0) {
		return -1;
	}

	return finish(c, n_cpus, err, err_len);
}

int
storage_cfg_load_text(storage_cfg* c, const char* text, uint32_t n_cpus,
		char* err, size_t err_len)
{
	return storage_cfg_load(c, &(cfg_source){ .text = text }, n_cpus, err,
			err_len);
}

void
storage_cfg_echo(const storage_cfg* c, strbuf* sb)
{
	if (c->n_cpus != 0) {
		sb_printf(sb, "detected %" PRIu32 " CPUs\n\n", c->n_cpus);
	}

	sb_printf(sb, LL_CONFIG_HEADING "\n", "ACT-STORAGE");
	cfg_echo(&g_storage_cfg_table, c, &c->set, sb);

	sb_printf(sb, "\n" LL_DERIVED_HEADING "\n");
	sb_printf(sb, LL_KEY_RECORD_STORED ": %" PRIu32 " ... %" PRIu32 "\n",
			c->record_stored, c->record_stored_max);
	sb_printf(sb, LL_KEY_INTERNAL_READS ": %" PRIu32 "\n",
			c->internal_read_reqs_per_sec);
	sb_printf(sb, LL_KEY_INTERNAL_WRITES ": %" PRIu32 "\n",
			c->internal_write_reqs_per_sec);
	sb_printf(sb, LL_KEY_LB_READS ": %.2f\n", c->large_block_reads_per_sec);
	sb_printf(sb, LL_KEY_LB_WRITES ": %.2f\n", c->large_block_writes_per_sec);

	if (c->read_sizes.n != 0) {
		sb_printf(sb, LL_KEY_AVG_READ ": %" PRIu32 "\n", c->avg_read_bytes);
	}

	if (c->write_sizes.n != 0) {
		sb_printf(sb, LL_KEY_AVG_WRITE ": %" PRIu32 "\n", c->avg_write_bytes);
	}

	sb_printf(sb, "\n");
}

void
storage_sizes_build(storage_sizes* s, const cfg_size_hist* h,
		uint32_t offset_pct)
{
	memset(s, 0, sizeof(*s));

	if (h->n == 0) {
		return;
	}

	// Index 0: "<= 1 byte", with probability (100 - p0) / 100, as 1 byte.
	// Index k + 1: over 2^k bytes and not over 2^(k+1), probability
	// (p[k] - p[k+1]) / 100, as 2^k bytes - the threshold the server
	// reports, as the paper's prototype did.
	double cum = 0.0;

	for (uint32_t i = 0; i <= h->n; i++) {
		double prob;
		uint64_t base;

		if (i == 0) {
			prob = (100.0 - h->p[0]) / 100.0;
			base = 1;
		}
		else {
			uint32_t k = i - 1;

			prob = (h->p[k] - (k + 1 < h->n ? h->p[k + 1] : 0.0)) / 100.0;
			base = (uint64_t)1 << k;
		}

		uint64_t size = (base * offset_pct + 99) / 100;

		size = (size + 15) / 16 * 16;

		if (size > STORAGE_MAX_RECORD_BYTES) {
			size = STORAGE_MAX_RECORD_BYTES;
		}

		cum += prob;
		s->size[i] = (uint32_t)size;
		s->prob[i] = prob;
		s->cum[i] = cum;
		s->expected += prob * (double)size;

		if (prob > 0.0 && size > s->max_size) {
			s->max_size = (uint32_t)size;
		}
	}

	s->n = h->n + 1;
}

uint32_t
storage_sizes_pick(const storage_sizes* s, double u)
{
	// cum[n - 1] is 1 up to rounding: u beyond it takes the last size that
	// has any probability.
	double x = u * s->cum[s->n - 1];

	for (uint32_t i = 0; i < s->n; i++) {
		if (x < s->cum[i] && s->prob[i] > 0.0) {
			return i;
		}
	}

	for (uint32_t i = s->n; i > 0; i--) {
		if (s->prob[i - 1] > 0.0) {
			return i - 1;
		}
	}

	return 0;
}

//==========================================================
// Local helpers.
//

static int
finish(storage_cfg* c, uint32_t n_cpus, char* err, size_t len)
{
	const cfg_table* t = &g_storage_cfg_table;

	c->n_cpus = shared_cfg_service_threads(t, &c->set, &c->common,
			n_cpus);

	static const char* const HISTS[] = { "reads", "writes",
		"large-block-reads", "large-block-writes", "total-reads",
		"total-writes", NULL };

	if (shared_cfg_check_hist_names(&c->common.devices, HISTS, err, len) != 0) {
		return -1;
	}

	if (c->common.read_reqs_per_sec == 0 && c->common.write_reqs_per_sec == 0) {
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

	// large-block-op-kbytes is a power of 2 (the table's pow2).
	c->large_block_bytes = c->large_block_op_kbytes * 1024;

	if (c->commit_min_bytes != 0 && (! bits_is_pow2(c->commit_min_bytes) ||
			c->commit_min_bytes > c->large_block_bytes)) {
		snprintf(err, len, "config item 'commit-min-bytes': %" PRIu32
				" must be 0 or a power of 2 no larger than the large block "
				"(%" PRIu32 " bytes)", c->commit_min_bytes,
				c->large_block_bytes);
		return -1;
	}

	bool total_set = cfg_is_set(t, &c->set, "total-lbw-per-sec");
	bool frees_set = cfg_is_set(t, &c->set, "direct-frees");

	if (total_set != frees_set) {
		snprintf(err, len, "config items 'total-lbw-per-sec' and "
				"'direct-frees' go together: '%s' is missing",
				total_set ? "direct-frees" : "total-lbw-per-sec");
		return -1;
	}

	if (c->direct_frees > c->total_lbw_per_sec) {
		snprintf(err, len, "config item 'direct-frees': %" PRIu32 " is more "
				"than total-lbw-per-sec (%" PRIu32 ")", c->direct_frees,
				c->total_lbw_per_sec);
		return -1;
	}

	if (c->record_bytes == 0) {
		uint64_t reads = (uint64_t)c->common.read_reqs_per_sec +
				(uint64_t)c->common.write_reqs_per_sec * c->update_pct / 100;

		if ((reads != 0 && c->read_hist.n == 0) ||
				(c->common.write_reqs_per_sec != 0 && c->write_hist.n == 0)) {
			snprintf(err, len, "config item 'record-bytes': 0 needs %s "
					"(record sizes come from the size histograms)",
					reads != 0 && c->read_hist.n == 0 ?
					"storage-read-histogram, as there are reads" :
					"storage-write-histogram, as there are writes");
			return -1;
		}
	}

	if (c->record_bytes_range_max != 0 && c->record_bytes == 0) {
		snprintf(err, len, "config item 'record-bytes-range-max' needs a "
				"record-bytes other than 0");
		return -1;
	}

	if (c->common.disable_odsync && c->commit_to_device) {
		snprintf(err, len, "config items 'disable-odsync' and "
				"'commit-to-device' can't both be yes");
		return -1;
	}

	return derive(c, err, len);
}

static int
derive(storage_cfg* c, char* err, size_t len)
{
	uint64_t internal_reads = (uint64_t)c->common.read_reqs_per_sec +
			(uint64_t)c->common.write_reqs_per_sec * c->update_pct / 100;
	uint64_t write_base = (uint64_t)c->common.replication_factor *
			c->common.write_reqs_per_sec;

	if (internal_reads > UINT32_MAX || write_base > UINT32_MAX) {
		snprintf(err, len, "rates too large: read-reqs-per-sec %" PRIu32
				", write-reqs-per-sec %" PRIu32 ", replication-factor %" PRIu32
				" give more than 4294967295 requests per second",
				c->common.read_reqs_per_sec, c->common.write_reqs_per_sec,
				c->common.replication_factor);
		return -1;
	}

	c->record_stored = bits_round_up(c->record_bytes, 16);
	c->record_stored_max = c->record_bytes_range_max != 0 ?
			bits_round_up(c->record_bytes_range_max, 16) : c->record_stored;

	storage_sizes_build(&c->read_sizes, &c->read_hist, c->read_size_offset);
	storage_sizes_build(&c->write_sizes, &c->write_hist,
			c->write_size_offset);
	c->avg_read_bytes = (uint32_t)llround(c->read_sizes.expected);
	c->avg_write_bytes = (uint32_t)llround(c->write_sizes.expected);

	// The write histogram's expected stored size replaces the average
	// record (computed from the distribution, not by sampling).
	uint32_t avg_stored = c->write_sizes.n != 0 ? c->avg_write_bytes :
			(c->record_stored + c->record_stored_max) / 2;

	c->records_per_large_block = avg_stored == 0 ? 0 :
			c->large_block_bytes / avg_stored;

	if (c->records_per_large_block == 0 && write_base != 0) {
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

	double original_lb_rate = write_base == 0 ? 0.0 : (double)write_base /
			(double)c->records_per_large_block;
	double amplification = 100.0 / (double)(100 - c->common.defrag_lwm_pct);

	c->large_block_reads_per_sec = original_lb_rate * amplification;
	c->large_block_writes_per_sec = c->commit_to_device ?
			original_lb_rate * (amplification - 1.0) :
			c->large_block_reads_per_sec;

	// docs/advanced-sizing.md: the paper's fine adjustments.
	c->large_block_reads_per_sec *= c->lbr_req_offset / 100.0;
	c->large_block_writes_per_sec *= c->lbw_req_offset / 100.0;

	if (c->total_lbw_per_sec != 0) {
		c->large_block_reads_per_sec *= (double)(c->total_lbw_per_sec -
				c->direct_frees) / (double)c->total_lbw_per_sec;
	}

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

	if (service_load != 0 && service_load < c->common.service_threads) {
		snprintf(err, len, "load config too small: %" PRIu64 " internal "
				"requests per second for %" PRIu32 " service-threads (each "
				"thread needs at least 1 per second)", service_load,
				c->common.service_threads);
		return -1;
	}

	return 0;
}
