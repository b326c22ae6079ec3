/*
 * index_cfg.h - act_index's config items, validation and derived rates.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/cfg.h"
#include "common/strbuf.h"

#define INDEX_MAX_DEVICES 16

typedef struct index_cfg_s {
	// Items, in echo order.
	cfg_names devices;
	uint32_t file_size_mbytes;
	uint32_t service_threads;
	uint32_t cache_threads;
	uint32_t test_duration_sec;
	uint32_t report_interval_sec;
	bool us_histograms;
	uint32_t read_reqs_per_sec;
	uint32_t write_reqs_per_sec;
	uint32_t replication_factor;
	uint32_t defrag_lwm_pct;
	bool disable_odsync;
	uint32_t max_lag_sec;
	const char* scheduler_mode;

	// Our additions (docs/beyond.md).
	uint32_t io_error_limit;
	bool total_latency;
	const char* rate_process;

	// Legacy ACT 4 items.
	uint32_t num_queues;
	uint32_t threads_per_queue;
	uint32_t legacy_ignored;

	cfg_set set;

	// Derived.
	uint32_t n_cpus;  // online CPUs, when service-threads defaulted
	uint64_t service_thread_reads_per_sec;
	uint64_t cache_thread_reads_and_writes_per_sec;
} index_cfg;

extern const cfg_table g_index_cfg_table;

// Parse, fill defaults, validate and derive. Returns 0, or -1 with the
// message in err.
int index_cfg_load(index_cfg* c, const char* path, uint32_t n_cpus,
		char* err, size_t err_len);
int index_cfg_load_text(index_cfg* c, const char* text, uint32_t n_cpus,
		char* err, size_t err_len);

// The log's configuration part (see storage_cfg_echo).
void index_cfg_echo(const index_cfg* c, strbuf* sb);
