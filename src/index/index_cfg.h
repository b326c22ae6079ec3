/*
 * index_cfg.h - act_index's config items, validation and derived rates.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/cfg.h"
#include "common/shared_cfg.h"
#include "common/strbuf.h"

#define INDEX_MAX_DEVICES 16

typedef struct index_cfg_s {
	// Items: the shared ones, then act_index's own.
	shared_cfg common;
	uint32_t cache_threads;

	cfg_set set;

	// Derived.
	uint32_t n_cpus;  // online CPUs, when service-threads defaulted
	uint64_t service_thread_reads_per_sec;
	uint64_t cache_thread_reads_and_writes_per_sec;
} index_cfg;

extern const cfg_table g_index_cfg_table;

// Parse (the file and its --set items, or the text of a file: see
// storage_cfg_load), fill defaults, validate and derive. Returns 0, or -1
// with the message in err.
int index_cfg_load(index_cfg* c, const cfg_source* src, uint32_t n_cpus,
		char* err, size_t err_len);
int index_cfg_load_text(index_cfg* c, const char* text, uint32_t n_cpus,
		char* err, size_t err_len);

// The log's configuration part (see storage_cfg_echo).
void index_cfg_echo(const index_cfg* c, strbuf* sb);
