/*
 * shared_cfg.h - config items and rules that act_storage and act_index
 * share. Each program's config struct embeds them as one member,
 * `shared_cfg common;`, and its item table uses these entries (offsets
 * offsetof(T, common.x)), so both parse, check, echo and document them
 * identically - and the harness reads them from the one struct.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/cfg.h"

// The shared items' values (field order is not echo order: the tables
// give that).
typedef struct shared_cfg_s {
	cfg_names devices;
	uint32_t file_size_mbytes;
	uint32_t service_threads;
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
	uint32_t health_interval_sec;
	uint32_t io_error_limit;
	bool total_latency;
	const char* rate_process;  // "aligned", "spread" or "poisson"

	// Legacy ACT 4 items.
	uint32_t num_queues;
	uint32_t threads_per_queue;
	uint32_t legacy_ignored;
} shared_cfg;

extern const char* const g_scheduler_modes[];
extern const char* const g_rate_processes[];

#define SHARED_ITEM_DEVICE_NAMES(T) { \
	.name = "device-names", .type = CFG_NAMES, \
	.offset = offsetof(T, common.devices), \
	.flags = CFG_REQUIRED | CFG_DEFAULT_NONE, .def_text = "none (required)", \
	.help = "devices (or files) to test, separated by commas, semicolons " \
		"or spaces; name the partition if the disk is partitioned - ALL " \
		"DATA ON THEM IS DESTROYED" }
#define SHARED_ITEM_FILE_SIZE_MBYTES(T) { \
	.name = "file-size-mbytes", .type = CFG_U32, \
	.offset = offsetof(T, common.file_size_mbytes), \
	.def = 0, .min = 0, .max = UINT32_MAX, .flags = CFG_ECHO_NONZERO, \
	.help = "for a trial without a spare drive: create (or resize) each " \
		"named file to this many MiB; 0 = use the block device or the " \
		"existing file as it is" }
#define SHARED_ITEM_SERVICE_THREADS(T) { \
	.name = "service-threads", .type = CFG_U32, \
	.offset = offsetof(T, common.service_threads), \
	.min = 1, .max = UINT32_MAX, \
	.flags = CFG_DEFAULT_NONE, .def_text = "5 x online CPUs", \
	.help = "threads issuing the client-driven requests; if the test stops " \
		"because it can't keep up with the requested load, configure more" }
#define SHARED_ITEM_TEST_DURATION_SEC(T) { \
	.name = "test-duration-sec", .type = CFG_U32, \
	.offset = offsetof(T, common.test_duration_sec), \
	.min = 1, .max = UINT32_MAX, \
	.flags = CFG_REQUIRED | CFG_DEFAULT_NONE, .def_text = "none (required)", \
	.help = "length of the test in seconds (86400 = 24 hours; a " \
		"certification runs 24 to 48 hours)" }
#define SHARED_ITEM_REPORT_INTERVAL_SEC(T) { \
	.name = "report-interval-sec", .type = CFG_U32, \
	.offset = offsetof(T, common.report_interval_sec), \
	.def = 1, .min = 1, .max = UINT32_MAX, \
	.help = "seconds between histogram reports in the log (the finest time " \
		"slice the analysis can show)" }
#define SHARED_ITEM_US_HISTOGRAMS(T) { \
	.name = "microsecond-histograms", .type = CFG_FLAG, \
	.offset = offsetof(T, common.us_histograms), \
	.def = 0, \
	.help = "histogram buckets in microseconds instead of milliseconds" }
#define SHARED_ITEM_READ_REQS(T) { \
	.name = "read-reqs-per-sec", .type = CFG_U32, \
	.offset = offsetof(T, common.read_reqs_per_sec), \
	.def = 0, .min = 0, .max = UINT32_MAX, \
	.help = "client reads per second, all devices together (1x = 2000 per " \
		"device); not 0 together with write-reqs-per-sec" }
#define SHARED_ITEM_WRITE_REQS(T) { \
	.name = "write-reqs-per-sec", .type = CFG_U32, \
	.offset = offsetof(T, common.write_reqs_per_sec), \
	.def = 0, .min = 0, .max = UINT32_MAX, \
	.help = "client writes per second, all devices together (1x = 1000 per " \
		"device)" }
#define SHARED_ITEM_REPLICATION_FACTOR(T) { \
	.name = "replication-factor", .type = CFG_U32, \
	.offset = offsetof(T, common.replication_factor), \
	.def = 1, .min = 1, .max = UINT32_MAX, \
	.help = "multiplies the write load, as a cluster with this replication " \
		"factor would" }
#define SHARED_ITEM_DEFRAG_LWM_PCT(T) { \
	.name = "defrag-lwm-pct", .type = CFG_U32, \
	.offset = offsetof(T, common.defrag_lwm_pct), \
	.def = 50, .min = 0, .max = 99, \
	.help = "defragmentation threshold: a block is defragmented once less " \
		"than this percent of it is in use, which multiplies the write " \
		"load by 100 / (100 - this)" }
#define SHARED_ITEM_DISABLE_ODSYNC(T) { \
	.name = "disable-odsync", .type = CFG_FLAG, \
	.offset = offsetof(T, common.disable_odsync), \
	.def = 0, \
	.help = "open the devices without O_DSYNC" }
#define SHARED_ITEM_MAX_LAG_SEC(T) { \
	.name = "max-lag-sec", .type = CFG_U32, \
	.offset = offsetof(T, common.max_lag_sec), \
	.def = 10, .min = 0, .max = UINT32_MAX, \
	.help = "stop the test when a thread is this many seconds behind its " \
		"schedule (0 = never)" }
#define SHARED_ITEM_SCHEDULER_MODE(T) { \
	.name = "scheduler-mode", .type = CFG_WORD, \
	.offset = offsetof(T, common.scheduler_mode), \
	.def = 0, .flags = CFG_NO_ECHO, .words = g_scheduler_modes, \
	.help = "I/O scheduler set for block devices (noop means none on " \
		"multi-queue kernels); not echoed in the log" }
#define SHARED_ITEM_HEALTH_INTERVAL_SEC(T) { \
	.name = "health-interval-sec", .type = CFG_U32, \
	.offset = offsetof(T, common.health_interval_sec), \
	.def = 10, .min = 0, .max = 86400, .flags = CFG_ECHO_NONDEF, \
	.help = "seconds between samples of each drive's health in the log " \
		"(NVMe SMART log, a SATA/SAS disk's temperature), also taken at " \
		"the start and the end; 0 = no health command at all (the " \
		"reference's exact I/O)" }
#define SHARED_ITEM_IO_ERROR_LIMIT(T) { \
	.name = "io-error-limit", .type = CFG_U32, \
	.offset = offsetof(T, common.io_error_limit), \
	.def = 0, .min = 0, .max = UINT32_MAX, .flags = CFG_ECHO_NONDEF, \
	.help = "stop the test (exit status 4) once more than this many I/Os " \
		"have failed" }
#define SHARED_ITEM_TOTAL_LATENCY(T) { \
	.name = "total-latency", .type = CFG_FLAG, \
	.offset = offsetof(T, common.total_latency), \
	.def = 0, .flags = CFG_ECHO_NONDEF, \
	.help = "also histogram service-thread requests from when they were " \
		"due, not only from when they were issued (total-reads, " \
		"total-writes): shows queueing when a drive stalls" }
#define SHARED_ITEM_RATE_PROCESS(T) { \
	.name = "rate-process", .type = CFG_WORD, \
	.offset = offsetof(T, common.rate_process), \
	.def = 0, .words = g_rate_processes, .flags = CFG_ECHO_NONDEF, \
	.help = "request timing of the service (and act_index cache) threads: " \
		"aligned = the reference's, all threads due together (bursts); " \
		"spread = thread i offset by i/threads of a period (an even load); " \
		"poisson = random exponential gaps (independent clients)" }
#define SHARED_ITEMS_LEGACY(T) { \
	.name = "num-queues", .type = CFG_LEGACY, \
	.offset = offsetof(T, common.num_queues), \
	.help = "service-threads replaces it" \
}, { \
	.name = "threads-per-queue", .type = CFG_LEGACY, \
	.offset = offsetof(T, common.threads_per_queue), \
	.help = "service-threads replaces it" \
}, { \
	.name = "use-valloc", .type = CFG_LEGACY, \
	.offset = offsetof(T, common.legacy_ignored), \
	.help = "buffers are always aligned" \
}, { \
	.name = "queue-per-device", .type = CFG_LEGACY, \
	.offset = offsetof(T, common.legacy_ignored), \
	.help = "there are no queues" \
}, { \
	.name = "max-reqs-queued", .type = CFG_LEGACY, \
	.offset = offsetof(T, common.legacy_ignored), \
	.help = "there are no queues" \
}

// The service-threads default: the configured value; else, with the legacy
// num-queues and threads-per-queue both given, their product; else 5 x
// n_cpus. Returns the CPU count used (0 when it was not the default), which
// the log echoes as "detected N CPUs".
uint32_t shared_cfg_service_threads(const cfg_table* t, const cfg_set* set,
		shared_cfg* c, uint32_t n_cpus);

// Histogram names are unique in a log: each device's "<name>-reads" and
// "<name>-writes" must differ from the program's own histogram names
// (fixed: NULL-terminated, e.g. "large-block-reads"). A device named
// "large-block" or "total" would give a second "large-block-reads" or
// "total-reads". Returns 0, or -1 with a message in err.
int shared_cfg_check_hist_names(const cfg_names* devices,
		const char* const* fixed, char* err, size_t err_len);
