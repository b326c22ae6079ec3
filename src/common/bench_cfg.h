/*
 * bench_cfg.h - config items and rules that act_storage and act_index
 * share. Each program's config struct names these fields the same way, and
 * its item table uses these entries, so both parse, check and echo them
 * identically.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "cfg.h"

extern const char* const g_scheduler_modes[];

#define BENCH_ITEM_DEVICE_NAMES(T) \
	{ "device-names", CFG_NAMES, offsetof(T, devices), 0, 0, 0, \
		CFG_REQUIRED, NULL, NULL, "devices (or files) to test, comma " \
		"separated - ALL DATA ON THEM IS DESTROYED" }
#define BENCH_ITEM_FILE_SIZE_MBYTES(T) \
	{ "file-size-mbytes", CFG_U32, offsetof(T, file_size_mbytes), 0, 0, \
		UINT32_MAX, CFG_ECHO_NONZERO, NULL, NULL, "create/size each device " \
		"as a file of this many MiB (0 = use the block device or the " \
		"existing file)" }
#define BENCH_ITEM_SERVICE_THREADS(T) \
	{ "service-threads", CFG_U32, offsetof(T, service_threads), 0, 1, \
		UINT32_MAX, 0, NULL, NULL, "threads doing the client-driven " \
		"requests; default 5 x online CPUs" }
#define BENCH_ITEM_TEST_DURATION_SEC(T) \
	{ "test-duration-sec", CFG_U32, offsetof(T, test_duration_sec), 0, 1, \
		UINT32_MAX, CFG_REQUIRED, NULL, NULL, "length of the test in " \
		"seconds (86400 = 24 hours)" }
#define BENCH_ITEM_REPORT_INTERVAL_SEC(T) \
	{ "report-interval-sec", CFG_U32, offsetof(T, report_interval_sec), 1, \
		1, UINT32_MAX, 0, NULL, NULL, "seconds between histogram reports" }
#define BENCH_ITEM_US_HISTOGRAMS(T) \
	{ "microsecond-histograms", CFG_FLAG, offsetof(T, us_histograms), 0, \
		0, 0, 0, NULL, NULL, "histogram buckets in microseconds instead of " \
		"milliseconds" }
#define BENCH_ITEM_READ_REQS(T) \
	{ "read-reqs-per-sec", CFG_U32, offsetof(T, read_reqs_per_sec), 0, 0, \
		UINT32_MAX, 0, NULL, NULL, "client reads per second, all devices " \
		"together (1x = 2000 per device)" }
#define BENCH_ITEM_WRITE_REQS(T) \
	{ "write-reqs-per-sec", CFG_U32, offsetof(T, write_reqs_per_sec), 0, 0, \
		UINT32_MAX, 0, NULL, NULL, "client writes per second, all devices " \
		"together (1x = 1000 per device)" }
#define BENCH_ITEM_REPLICATION_FACTOR(T) \
	{ "replication-factor", CFG_U32, offsetof(T, replication_factor), 1, 1, \
		UINT32_MAX, 0, NULL, NULL, "multiplies the write load" }
#define BENCH_ITEM_DEFRAG_LWM_PCT(T) \
	{ "defrag-lwm-pct", CFG_U32, offsetof(T, defrag_lwm_pct), 50, 0, 99, 0, \
		NULL, NULL, "defrag threshold: write amplification is 100 / (100 - " \
		"this)" }
#define BENCH_ITEM_DISABLE_ODSYNC(T) \
	{ "disable-odsync", CFG_FLAG, offsetof(T, disable_odsync), 0, 0, 0, 0, \
		NULL, NULL, "open devices without O_DSYNC" }
#define BENCH_ITEM_MAX_LAG_SEC(T) \
	{ "max-lag-sec", CFG_U32, offsetof(T, max_lag_sec), 10, 0, UINT32_MAX, \
		0, NULL, NULL, "stop when a thread is this far behind (0 = never)" }
#define BENCH_ITEM_SCHEDULER_MODE(T) \
	{ "scheduler-mode", CFG_WORD, offsetof(T, scheduler_mode), 0, 0, 0, \
		CFG_NO_ECHO, g_scheduler_modes, NULL, "I/O scheduler set for block " \
		"devices" }
#define BENCH_ITEM_IO_ERROR_LIMIT(T) \
	{ "io-error-limit", CFG_U32, offsetof(T, io_error_limit), 0, 0, \
		UINT32_MAX, CFG_ECHO_NONDEF, NULL, NULL, "stop (exit 4) when more " \
		"I/Os than this have failed" }
#define BENCH_ITEM_TOTAL_LATENCY(T) \
	{ "total-latency", CFG_FLAG, offsetof(T, total_latency), 0, 0, 0, \
		CFG_ECHO_NONDEF, NULL, NULL, "also histogram service-thread requests " \
		"from their scheduled time (total-reads, total-writes)" }
#define BENCH_ITEMS_LEGACY(T) \
	{ "num-queues", CFG_LEGACY, offsetof(T, num_queues), 0, 0, 0, 0, NULL, \
		NULL, "service-threads replaces it" }, \
	{ "threads-per-queue", CFG_LEGACY, offsetof(T, threads_per_queue), 0, 0, \
		0, 0, NULL, NULL, "service-threads replaces it" }, \
	{ "use-valloc", CFG_LEGACY, offsetof(T, legacy_ignored), 0, 0, 0, 0, \
		NULL, NULL, "buffers are always aligned" }, \
	{ "queue-per-device", CFG_LEGACY, offsetof(T, legacy_ignored), 0, 0, 0, \
		0, NULL, NULL, "there are no queues" }, \
	{ "max-reqs-queued", CFG_LEGACY, offsetof(T, legacy_ignored), 0, 0, 0, \
		0, NULL, NULL, "there are no queues" }

// The service-threads default: the configured value; else, with the legacy
// num-queues and threads-per-queue both given, their product; else 5 x
// n_cpus. Returns the CPU count used (0 when it was not the default), which
// the log echoes as "detected N CPUs".
uint32_t bench_cfg_service_threads(const cfg_table* t, const cfg_set* set,
		uint32_t* service_threads, uint32_t num_queues,
		uint32_t threads_per_queue, uint32_t n_cpus);
