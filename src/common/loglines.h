/*
 * loglines.h - the log's grammar: every kind of line a reader of the log
 * parses (analysis/act/logfile, and people's scripts: docs/log-format.md),
 * its token, its words, and the formatter that writes it - so that the
 * English of each line is written once, here, and the analysis is tested
 * against the lines themselves.
 *
 * ll_kinds[] is the catalogue: one row per kind, { token, words }. The
 * token names the kind on both sides (Python: act.logfile.lines.
 * LINE_KINDS, token -> parser); the words are the line in printf form
 * (LL_* below, each used by one formatter) - for a stop, the phrase its
 * line carries (stop.h, whose STOP_KIND_TABLE are the catalogue's first
 * rows). The formatters are the functions below, and for the lines of the
 * config echo and the reports the programs' echo functions, cfg_echo,
 * report_names and report_format / hist_format. ERROR lines are formatted
 * without their "ERROR: " (log_error adds it).
 *
 * tests/unit/test_loglines.c links these formatters and prints a sample of
 * every kind (it fails when a kind of the catalogue has none), and
 * tests/python/logfile/test_lines.py parses every sample with act.logfile
 * (it fails when a kind has no parser, or a parser reads other fields
 * than the sample was made from). To add a kind: docs/hacking.md, "A log
 * line".
 */
#pragma once

#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/health.h"
#include "common/stop.h"
#include "common/strbuf.h"

//==========================================================
// The words of each line.
//

// Header (docs/log-format.md, sections 1-4).
#define LL_VERSION "ACT version %s"
#define LL_CONFIG_HEADING "%s CONFIGURATION"        // ACT-STORAGE, ACT-INDEX
#define LL_CONFIG_ITEM "NAME: VALUE"                // cfg_echo
#define LL_DERIVED_HEADING "DERIVED CONFIGURATION"
#define LL_DERIVED_ITEM "KEY: VALUE"                // LL_KEY_* below
#define LL_DEVICE "%s size = %" PRIu64 " bytes"
#define LL_PREP_DEVICE LL_DEVICE ", %" PRIu64 " large blocks"
#define LL_STORAGE_DEVICE LL_PREP_DEVICE ", minimum IO size = %" PRIu32 \
		" bytes%s"
#define LL_INDEX_DEVICE LL_DEVICE "%s"
#define LL_BUFFERED ", buffered"
#define LL_IDENTITY "%s model = %s, serial = %s, firmware = %s"
// A device's facts line, after its identity (log-format.md, "The identity
// block"): a file's, or a block device's, with a loop device's backing
// file last (its name may hold anything).
#define LL_FILE_FACTS "%s dev = %ju, ino = %ju, gen = %s"
#define LL_BLOCK_FACTS "%s rdev = %u:%u, wwid = %s"
#define LL_LOOP_FACTS ", backing_dev = %ju, backing_ino = %ju, " \
		"backing_gen = %s, backing_file = %s"
#define LL_START_TIME "start time = %s"
// A device's drive health (docs/log-format.md, "Drive health"; docs/
// health.md): its source, in the identity block after its facts line,
// then its start sample; during the run, a sample after a report. The
// lines start with "health " and never hold "after ", so the reference
// analysis script passes them by.
#define LL_HEALTH_SOURCE "health %s: %s"
#define LL_HEALTH_START "health %s at start: %s"
#define LL_HEALTH_SAMPLE "health %s at %.3f sec: %s"
#define LL_HEALTH_UNREAD "health %s at %.3f sec: not read - %s"
// The sources, and why a device has none (LL_HEALTH_NONE) or a sample was
// not read (LL_HEALTH_UNREAD).
#define LL_HEALTH_NVME "nvme smart log"
#define LL_HEALTH_NVME_OCP LL_HEALTH_NVME ", ocp log c0h"
#define LL_HEALTH_HWMON "hwmon temperature"
#define LL_HEALTH_NONE "none (%s)"
#define LL_HEALTH_FILE "a regular file"
#define LL_HEALTH_LOOP "a loop device"
#define LL_HEALTH_NO_SOURCE "no NVMe admin commands and no temperature sensor"
#define LL_HEALTH_OFF "health-interval-sec 0"
#define LL_HEALTH_FAILED "NVMe admin command failed: %s (errno %d)"
#define LL_HEALTH_STATUS "NVMe status 0x%04x"
#define LL_HEALTH_NO_ANSWER "no answer for %.1f sec"
#define LL_HEALTH_HWMON_FAILED "hwmon temperature unreadable: %s (errno %d)"
// The fields of a sample, in this order, joined by ", ", each present
// only when the source gives it.
#define LL_HF_WARNING "warning = 0x%02x"
#define LL_HF_TEMP "temp = %" PRId32 " C"
#define LL_HF_SENSORS "sensors = %s"          // 44/-/47, or -
#define LL_HF_SPARE "spare = %u%%"
#define LL_HF_SPARE_THRESHOLD "spare_threshold = %u%%"
#define LL_HF_USED "used = %u%%"
#define LL_HF_MEDIA_ERRORS "media_errors = %" PRIu64
#define LL_HF_ERROR_LOG "error_log_entries = %" PRIu64
#define LL_HF_UNITS_READ "units_read = %" PRIu64
#define LL_HF_UNITS_WRITTEN "units_written = %" PRIu64
#define LL_HF_WARNING_TIME "warning_temp_time = %" PRIu32 " min"
#define LL_HF_CRITICAL_TIME "critical_temp_time = %" PRIu32 " min"
#define LL_HF_THROTTLES "throttle_transitions = %" PRIu32 "/%" PRIu32
#define LL_HF_THROTTLE_TIME "throttle_time = %" PRIu32 "/%" PRIu32 " sec"
#define LL_HF_WCTEMP "wctemp = %" PRId32 " C"
#define LL_HF_CCTEMP "cctemp = %" PRId32 " C"
#define LL_HF_PHYSICAL "physical_written = %" PRIu64 " bytes"
#define LL_NAMES_HEADING "HISTOGRAM NAMES"
#define LL_HIST_NAME "NAME"                         // report_names

// The keys of the derived configuration (act_storage.md, act_index.md).
#define LL_KEY_RECORD_STORED "record-stored-bytes"
#define LL_KEY_INTERNAL_READS "internal-read-reqs-per-sec"
#define LL_KEY_INTERNAL_WRITES "internal-write-reqs-per-sec"
#define LL_KEY_LB_READS "large-block-reads-per-sec"
#define LL_KEY_LB_WRITES "large-block-writes-per-sec"
#define LL_KEY_AVG_READ "avg-read-bytes"
#define LL_KEY_AVG_WRITE "avg-write-bytes"
#define LL_KEY_SERVICE_READS "service-thread-reads-per-sec"
#define LL_KEY_CACHE_OPS "cache-thread-reads-and-writes-per-sec"

// Reports (sections 5-6).
#define LL_REPORT "after %" PRIu32 " sec:"
#define LL_HIST_TOTAL "%s (%" PRIu64 " total)"
#define LL_BUCKET " (%02u: %010" PRIu64 ")"

// The lines about the run (section 7): I/O errors (beyond.md, "I/O
// errors"), the host's end of the run, lags, hung I/Os, stops.
#define LL_AN_IO "a %" PRIu64 "-byte %s at offset %" PRIu64
#define LL_IO_FAILED "%s failed on device %s at offset %" PRIu64 ", size %" \
		PRIu64 ": %s (errno %d)"
#define LL_IO_COUNT " - failed I/Os: %" PRIu64 ", io-error-limit: %" PRIu64
#define LL_IO_HIDDEN "%" PRIu64 " more I/O errors were not shown"
#define LL_FELL_BEHIND "the host fell behind at the end of the run: %s " \
		"still owed %" PRIu64 " requests due before %" PRIu32 " sec (%" \
		PRIu32 " thread%s, up to %.3f sec behind schedule) - the last " \
		"report lacks them"
#define LL_LAG "%s can't keep up: %.3f sec behind schedule, more than " \
		"max-lag-sec (%" PRIu32 ")"
#define LL_HOST_LIMIT "%s (in the %.1f sec since this thread was last on " \
		"schedule its I/Os took only %.0f%% of the time%s)"
#define LL_CPUS_BUSY "; the CPUs were %.0f%% busy"
// The advice of LL_HOST_LIMIT: a thread kind's lag_advice.
#define LL_HOST_ADVICE(what) STOP_PHRASE_HOST_LIMIT " - test stopped - " what
#define LL_MORE_SERVICE_THREADS \
		LL_HOST_ADVICE("try configuring more service-threads")
#define LL_MORE_CACHE_THREADS \
		LL_HOST_ADVICE("try configuring more cache-threads")
#define LL_HOST_NOT_DRIVE \
		LL_HOST_ADVICE("the host, not the drive, is the limit")
#define LL_STALL "device %s stalled: " LL_AN_IO " took %.3f sec, more than " \
		"max-lag-sec (%" PRIu32 ") - the drive, not the thread count, is " \
		"the limit"
#define LL_DRIVE_LIMIT_END STOP_PHRASE_DRIVE_LIMIT " - test stopped"
#define LL_DRIVE_LIMIT "the drive is the limit: in the %.1f sec since this " \
		"thread was last on schedule its %" PRIu64 " I/Os took %.1f sec " \
		"(%.0f%% of the time, average %.3f sec; longest %.3f sec, " LL_AN_IO \
		" on %s) - " LL_DRIVE_LIMIT_END
#define LL_HUNG_IO "device %s " STOP_PHRASE_HUNG_IO ": " LL_AN_IO " has not " \
		"completed after %.3f sec, %s"
#define LL_HUNG_OVER "more than %s - %s"           // the limit, what stopped
#define LL_HUNG_ENDED "still outstanding when the run ended"
#define LL_IO_ERRORS "stopping: %" PRIu64 " I/O errors, " \
		STOP_PHRASE_IO_ERRORS " %" PRIu32
#define LL_SIGNAL STOP_PHRASE_SIGNAL " %s after %" PRIu64 " sec"
#define LL_REQUEST STOP_PHRASE_REQUEST ": %s after %" PRIu64 " sec"

// The operations an I/O is named by in the lines ("a 1536-byte read").
#define LL_OP_READ "read"
#define LL_OP_WRITE "write"
#define LL_OP_LB_READ "large-block read"
#define LL_OP_LB_WRITE "large-block write"
#define LL_OP_TOMB_READ "tomb-raider read"

// The reason of a request stop: one line of printable ASCII, at most this
// many bytes (longer is cut).
#define LL_REASON_MAX 200

// A message line (an ERROR line's text) fits this.
#define LL_MSG_LEN 1024

//==========================================================
// Typedefs.
//

typedef struct ll_kind_s {
	const char* token;
	const char* words;
} ll_kind;

// One I/O, as the lines name it: "a 1536-byte read at offset 4096".
typedef struct ll_io_s {
	const char* device;
	const char* op;            // "read", "large-block write"...
	uint64_t size;
	uint64_t off;
} ll_io;

//==========================================================
// The catalogue.
//

extern const ll_kind ll_kinds[];
extern const uint32_t ll_n_kinds;

// The LL_OP_* names, NULL-terminated.
extern const char* const ll_ops[];

//==========================================================
// Lines appended to a block of the log (with their newline).
//

// The banner: a blank line, LL_VERSION (ACT_VERSION), the test's kind
// ("Storage device IO test"), the notice, a blank line.
void ll_banner(strbuf* sb, const char* test_kind);

// LL_STORAGE_DEVICE, LL_INDEX_DEVICE, LL_PREP_DEVICE (act_prep's log).
void ll_storage_device(strbuf* sb, const char* device, uint64_t size,
		uint64_t n_large_blocks, uint32_t min_io, bool buffered);
void ll_index_device(strbuf* sb, const char* device, uint64_t size,
		bool buffered);
void ll_prep_device(strbuf* sb, const char* device, uint64_t size,
		uint64_t n_large_blocks);

// LL_IDENTITY, LL_START_TIME.
void ll_identity(strbuf* sb, const char* device, const char* model,
		const char* serial, const char* firmware);

// LL_FILE_FACTS; LL_BLOCK_FACTS, with LL_LOOP_FACTS when loop is not NULL.
// gen: the inode's generation, or "unknown".
typedef struct ll_loop_s {
	uintmax_t dev;             // the backing file's device and inode
	uintmax_t ino;
	const char* gen;
	const char* file;          // its name, or "unknown"
} ll_loop;

void ll_file_facts(strbuf* sb, const char* device, uintmax_t dev,
		uintmax_t ino, const char* gen);
void ll_block_facts(strbuf* sb, const char* device, unsigned int major,
		unsigned int minor, const char* wwid, const ll_loop* loop);
void ll_start_time(strbuf* sb, const char* when);

// LL_HEALTH_SOURCE: source is LL_HEALTH_NVME, LL_HEALTH_NVME_OCP,
// LL_HEALTH_HWMON or, with none, LL_HEALTH_NONE around it (why).
void ll_health_source(strbuf* sb, const char* device, const char* source,
		bool none);

// LL_HEALTH_START, LL_HEALTH_SAMPLE (t_sec: since the reports' time 0):
// the fields of hl that it has (ll_health_fields).
void ll_health_start(strbuf* sb, const char* device, const health* hl);
void ll_health_sample(strbuf* sb, const char* device, double t_sec,
		const health* hl);

// LL_HEALTH_UNREAD: why the sample at t_sec was not read.
void ll_health_unread(strbuf* sb, const char* device, double t_sec,
		const char* why);

// The fields of a sample (LL_HF_* joined by ", ") into out (len bytes;
// cut if longer). Returns out.
char* ll_health_fields(char* out, size_t len, const health* hl);

//==========================================================
// Messages: one line's text, without its prefix and newline, into out
// (len bytes; cut if longer). Each returns out.
//

// LL_IO_FAILED; with counted, LL_IO_COUNT after it (n failed I/Os so far,
// of io-error-limit limit).
char* ll_io_failed(char* out, size_t len, const ll_io* io, int err,
		bool counted, uint64_t n, uint64_t limit);

// Why a device has no health source or a sample was not read, into out:
// LL_HEALTH_FAILED (an errno), LL_HEALTH_STATUS (an NVMe status),
// LL_HEALTH_NO_ANSWER (after secs), LL_HEALTH_HWMON_FAILED.
char* ll_health_failed(char* out, size_t len, int err);
char* ll_health_status(char* out, size_t len, uint32_t status);
char* ll_health_no_answer(char* out, size_t len, double secs);
char* ll_health_hwmon_failed(char* out, size_t len, int err);

// LL_IO_HIDDEN.
char* ll_io_hidden(char* out, size_t len, uint64_t n);

// LL_FELL_BEHIND (the WARNING: line, its text): what threads (a thread
// kind's name) still owed when the test's duration_sec ended.
char* ll_fell_behind(char* out, size_t len, const char* threads,
		uint64_t owed, uint32_t duration_sec, uint32_t n_behind,
		double most_sec);

// LL_LAG: threads (a thread kind's name) behind_sec behind schedule.
char* ll_lag(char* out, size_t len, const char* threads, double behind_sec,
		uint32_t max_lag_sec);

// LL_HOST_LIMIT: advice is the thread kind's lag_advice (it carries
// STOP_PHRASE_HOST_LIMIT); busy_pct < 0 when the CPUs' use is unknown.
char* ll_host_limit(char* out, size_t len, const char* advice,
		double window_sec, double io_pct, double busy_pct);

// LL_STALL: io took took_sec.
char* ll_stall(char* out, size_t len, const ll_io* io, double took_sec,
		uint32_t max_lag_sec);

// LL_DRIVE_LIMIT_END, the line after LL_STALL.
char* ll_drive_limit_end(char* out, size_t len);

// LL_DRIVE_LIMIT: n_io I/Os took io_sec of window_sec, the longest one
// longest (longest_sec).
char* ll_drive_limit(char* out, size_t len, double window_sec,
		uint64_t n_io, double io_sec, const ll_io* longest,
		double longest_sec);

// LL_HUNG_IO: io outstanding for waited_sec, more than limit ("max-lag-sec
// (2)", "10 sec") - stopped ("test stopped"): LL_HUNG_OVER; with limit
// NULL, LL_HUNG_ENDED.
char* ll_hung_io(char* out, size_t len, const ll_io* io, double waited_sec,
		const char* limit, const char* stopped);

// LL_IO_ERRORS: n failed I/Os, more than io-error-limit limit.
char* ll_io_errors(char* out, size_t len, uint64_t n, uint32_t limit);

// LL_SIGNAL: signal (its name) stopped the run after secs.
char* ll_signal(char* out, size_t len, const char* signal, uint64_t secs);

// LL_REQUEST: the run's parent stopped it after secs, for reason (as
// ll_reason makes it).
char* ll_request(char* out, size_t len, const char* reason, uint64_t secs);

// A request's reason from the n bytes a parent gave (in): its first line,
// without surrounding blanks, a byte that is not printable ASCII written
// '?', cut at LL_REASON_MAX bytes - into out (len bytes). Returns its
// length (0: no reason).
size_t ll_reason(const char* in, size_t n, char* out, size_t len);
