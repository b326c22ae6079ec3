/*
 * storage_cfg.h - act_storage's config items, validation and derived rates.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cfg.h"
#include "strbuf.h"

#define STORAGE_MAX_RECORD_BYTES (8u * 1024 * 1024)
#define STORAGE_MAX_LB_KBYTES 8192u

typedef struct storage_cfg_s {
	// Items, in echo order.
	cfg_names devices;
	uint32_t file_size_mbytes;
	uint32_t service_threads;
	uint32_t test_duration_sec;
	uint32_t report_interval_sec;
	bool us_histograms;
	uint32_t read_reqs_per_sec;
	uint32_t write_reqs_per_sec;
	uint32_t record_bytes;
	uint32_t record_bytes_range_max;
	uint32_t large_block_op_kbytes;
	uint32_t replication_factor;
	uint32_t update_pct;
	uint32_t defrag_lwm_pct;
	bool no_defrag_reads;
	uint32_t compress_pct;
	bool disable_odsync;
	bool commit_to_device;
	uint32_t commit_min_bytes;
	bool tomb_raider;
	uint32_t tomb_raider_sleep_usec;
	uint32_t max_lag_sec;
	const char* scheduler_mode;

	// Our additions (beyond.md).
	uint32_t io_error_limit;
	bool total_latency;

	// Legacy ACT 4 items.
	uint32_t num_queues;
	uint32_t threads_per_queue;
	uint32_t legacy_ignored;

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
} storage_cfg;

extern const cfg_table g_storage_cfg_table;

// Parse the config file (or text), fill defaults (n_cpus online CPUs for
// the service-threads default), validate and derive. Returns 0, or -1 with
// the message in err.
int storage_cfg_load(storage_cfg* c, const char* path, uint32_t n_cpus,
		char* err, size_t err_len);
int storage_cfg_load_text(storage_cfg* c, const char* text, uint32_t n_cpus,
		char* err, size_t err_len);

// The log's configuration part: optional "detected N CPUs", the
// ACT-STORAGE CONFIGURATION block and the DERIVED CONFIGURATION block,
// each followed by an empty line.
void storage_cfg_echo(const storage_cfg* c, strbuf* sb);
