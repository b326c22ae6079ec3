/*
 * storage_cfg.h - act_storage's config items, validation and derived rates.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/cfg.h"
#include "common/shared_cfg.h"
#include "common/strbuf.h"

#define STORAGE_MAX_RECORD_BYTES (8u * 1024 * 1024)
#define STORAGE_MAX_LB_KBYTES 8192u

// A record-size distribution from a size histogram: size[i] with
// probability prob[i] (cum[i] = prob[0] + ... + prob[i]). Sizes are the
// bucket thresholds 2^k (1 byte for "<= 1 byte") times the size offset
// percent, rounded up to 16 bytes, capped at 8 MiB.
typedef struct storage_sizes_s {
	uint32_t n;
	uint32_t size[CFG_SIZE_HIST_MAX + 1];
	double prob[CFG_SIZE_HIST_MAX + 1];
	double cum[CFG_SIZE_HIST_MAX + 1];
	uint32_t max_size;
	double expected;         // sum of prob * size
} storage_sizes;

typedef struct storage_cfg_s {
	// Items: the shared ones, then act_storage's own.
	shared_cfg common;
	uint32_t record_bytes;
	uint32_t record_bytes_range_max;
	uint32_t large_block_op_kbytes;
	uint32_t update_pct;
	bool no_defrag_reads;
	uint32_t compress_pct;
	bool commit_to_device;
	uint32_t commit_min_bytes;
	bool tomb_raider;
	uint32_t tomb_raider_sleep_usec;

	// Workloads from production (docs/advanced-sizing.md).
	cfg_size_hist read_hist;
	cfg_size_hist write_hist;
	uint32_t read_size_offset;
	uint32_t write_size_offset;
	uint32_t lbr_req_offset;
	uint32_t lbw_req_offset;
	uint32_t total_lbw_per_sec;
	uint32_t direct_frees;

	cfg_set set;

	// Derived.
	uint32_t n_cpus;           // online CPUs, when service-threads defaulted
	uint32_t large_block_bytes;
	uint32_t record_stored;
	uint32_t record_stored_max;
	uint32_t records_per_large_block;
	uint32_t internal_read_reqs_per_sec;
	uint32_t internal_write_reqs_per_sec;
	double large_block_reads_per_sec;
	double large_block_writes_per_sec;

	// Record-size distributions drawn from the histograms (n == 0: unset).
	storage_sizes read_sizes;
	storage_sizes write_sizes;
	uint32_t avg_read_bytes;   // expected stored sizes
	uint32_t avg_write_bytes;
} storage_cfg;

extern const cfg_table g_storage_cfg_table;

// Parse the config (the file, then its --set items: cfg_source; or the
// text of a file), fill defaults (n_cpus online CPUs for the
// service-threads default), validate and derive. Returns 0, or -1 with the
// message in err.
int storage_cfg_load(storage_cfg* c, const cfg_source* src, uint32_t n_cpus,
		char* err, size_t err_len);
int storage_cfg_load_text(storage_cfg* c, const char* text, uint32_t n_cpus,
		char* err, size_t err_len);

// Build the distribution of a size histogram with a size offset percent.
void storage_sizes_build(storage_sizes* s, const cfg_size_hist* h,
		uint32_t offset_pct);

// Index of the size drawn for u uniform in [0, 1).
uint32_t storage_sizes_pick(const storage_sizes* s, double u);

// The log's configuration part: optional "detected N CPUs", the
// ACT-STORAGE CONFIGURATION block and the DERIVED CONFIGURATION block,
// each followed by an empty line.
void storage_cfg_echo(const storage_cfg* c, strbuf* sb);
