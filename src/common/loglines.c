/*
 * loglines.c - the log's grammar: the catalogue of the kinds of line a
 * reader parses, and their formatters.
 */

#include "common/loglines.h"

#include <stdio.h>
#include <string.h>

#include "common/version.h"

//==========================================================
// Globals.
//

// Every kind of line a reader parses (the order is the log's, stops first).
const ll_kind ll_kinds[] = {
	STOP_KIND_TABLE,
	{ "version", LL_VERSION },
	{ "config-heading", LL_CONFIG_HEADING },
	{ "config-item", LL_CONFIG_ITEM },
	{ "derived-heading", LL_DERIVED_HEADING },
	{ "derived-item", LL_DERIVED_ITEM },
	{ "storage-device", LL_STORAGE_DEVICE },
	{ "index-device", LL_INDEX_DEVICE },
	{ "prep-device", LL_PREP_DEVICE },
	{ "identity", LL_IDENTITY },
	{ "file-facts", LL_FILE_FACTS },
	{ "block-facts", LL_BLOCK_FACTS LL_LOOP_FACTS },
	{ "health-source", LL_HEALTH_SOURCE },
	{ "health-start", LL_HEALTH_START },
	{ "start-time", LL_START_TIME },
	{ "names-heading", LL_NAMES_HEADING },
	{ "hist-name", LL_HIST_NAME },
	{ "report", LL_REPORT },
	{ "hist-total", LL_HIST_TOTAL },
	{ "hist-buckets", LL_BUCKET },
	{ "health-sample", LL_HEALTH_SAMPLE },
	{ "health-unread", LL_HEALTH_UNREAD },
	{ "io-failed", LL_IO_FAILED LL_IO_COUNT },
	{ "io-hidden", LL_IO_HIDDEN },
	{ "fell-behind", LL_FELL_BEHIND },
	{ "lag", LL_LAG },
	{ "stall", LL_STALL }
};

const uint32_t ll_n_kinds = sizeof(ll_kinds) / sizeof(ll_kinds[0]);

const char* const ll_ops[] = {
	LL_OP_READ, LL_OP_WRITE, LL_OP_LB_READ, LL_OP_LB_WRITE, LL_OP_TOMB_READ,
	NULL
};

//==========================================================
// Public API - block lines.
//

void
ll_banner(strbuf* sb, const char* test_kind)
{
	sb_printf(sb, "\n" LL_VERSION "\n%s\n%s\n\n", ACT_VERSION, test_kind,
			ACT_NOTICE);
}

void
ll_storage_device(strbuf* sb, const char* device, uint64_t size,
		uint64_t n_large_blocks, uint32_t min_io, bool buffered)
{
	sb_printf(sb, LL_STORAGE_DEVICE "\n", device, size, n_large_blocks,
			min_io, buffered ? LL_BUFFERED : "");
}

void
ll_index_device(strbuf* sb, const char* device, uint64_t size,
		bool buffered)
{
	sb_printf(sb, LL_INDEX_DEVICE "\n", device, size,
			buffered ? LL_BUFFERED : "");
}

void
ll_prep_device(strbuf* sb, const char* device, uint64_t size,
		uint64_t n_large_blocks)
{
	sb_printf(sb, LL_PREP_DEVICE "\n", device, size, n_large_blocks);
}

void
ll_identity(strbuf* sb, const char* device, const char* model,
		const char* serial, const char* firmware)
{
	sb_printf(sb, LL_IDENTITY "\n", device, model, serial, firmware);
}

void
ll_file_facts(strbuf* sb, const char* device, uintmax_t dev, uintmax_t ino,
		const char* gen)
{
	sb_printf(sb, LL_FILE_FACTS "\n", device, dev, ino, gen);
}

void
ll_block_facts(strbuf* sb, const char* device, unsigned int major,
		unsigned int minor, const char* wwid, const ll_loop* loop)
{
	sb_printf(sb, LL_BLOCK_FACTS, device, major, minor, wwid);

	if (loop != NULL) {
		sb_printf(sb, LL_LOOP_FACTS, loop->dev, loop->ino, loop->gen,
				loop->file);
	}

	sb_printf(sb, "\n");
}

void
ll_start_time(strbuf* sb, const char* when)
{
	sb_printf(sb, LL_START_TIME "\n", when);
}

void
ll_health_source(strbuf* sb, const char* device, const char* source,
		bool none)
{
	char text[LL_MSG_LEN];

	snprintf(text, sizeof(text), none ? LL_HEALTH_NONE : "%s", source);
	sb_printf(sb, LL_HEALTH_SOURCE "\n", device, text);
}

void
ll_health_start(strbuf* sb, const char* device, const health* hl)
{
	char fields[LL_MSG_LEN];

	sb_printf(sb, LL_HEALTH_START "\n", device, ll_health_fields(fields,
			sizeof(fields), hl));
}

void
ll_health_sample(strbuf* sb, const char* device, double t_sec,
		const health* hl)
{
	char fields[LL_MSG_LEN];

	sb_printf(sb, LL_HEALTH_SAMPLE "\n", device, t_sec,
			ll_health_fields(fields, sizeof(fields), hl));
}

void
ll_health_unread(strbuf* sb, const char* device, double t_sec,
		const char* why)
{
	sb_printf(sb, LL_HEALTH_UNREAD "\n", device, t_sec, why);
}

char*
ll_health_fields(char* out, size_t len, const health* hl)
{
	strbuf sb;

	sb_init(&sb, out, len);

	if ((hl->have & HEALTH_HAVE_SMART) != 0) {
		char sensors[8 * HEALTH_N_SENSORS + 2];
		strbuf ss;

		sb_init(&ss, sensors, sizeof(sensors));

		if (hl->n_sensors == 0) {
			sb_printf(&ss, "-");
		}

		for (uint32_t i = 0; i < hl->n_sensors; i++) {
			if (hl->sensor_on[i]) {
				sb_printf(&ss, "%s%" PRId32, i == 0 ? "" : "/", hl->sensor_c[i]);
			}
			else {
				sb_printf(&ss, "%s-", i == 0 ? "" : "/");
			}
		}

		sb_printf(&sb, LL_HF_WARNING ", " LL_HF_TEMP ", " LL_HF_SENSORS ", "
				LL_HF_SPARE ", " LL_HF_SPARE_THRESHOLD ", " LL_HF_USED ", "
				LL_HF_MEDIA_ERRORS ", " LL_HF_ERROR_LOG ", " LL_HF_UNITS_READ
				", " LL_HF_UNITS_WRITTEN ", " LL_HF_WARNING_TIME ", "
				LL_HF_CRITICAL_TIME ", " LL_HF_THROTTLES ", "
				LL_HF_THROTTLE_TIME, hl->warning, hl->temp_c, sensors,
				hl->spare, hl->spare_threshold, hl->used, hl->media_errors,
				hl->error_log_entries, hl->units_read, hl->units_written,
				hl->warning_temp_min, hl->critical_temp_min,
				hl->throttle_transitions[0], hl->throttle_transitions[1],
				hl->throttle_sec[0], hl->throttle_sec[1]);
	}
	else if ((hl->have & HEALTH_HAVE_TEMP) != 0) {
		sb_printf(&sb, LL_HF_TEMP, hl->temp_c);
	}

	if ((hl->have & HEALTH_HAVE_LIMITS) != 0 && hl->wctemp_c != 0) {
		sb_printf(&sb, "%s" LL_HF_WCTEMP, sb.len == 0 ? "" : ", ",
				hl->wctemp_c);
	}

	if ((hl->have & HEALTH_HAVE_LIMITS) != 0 && hl->cctemp_c != 0) {
		sb_printf(&sb, "%s" LL_HF_CCTEMP, sb.len == 0 ? "" : ", ",
				hl->cctemp_c);
	}

	if ((hl->have & HEALTH_HAVE_OCP) != 0) {
		sb_printf(&sb, "%s" LL_HF_PHYSICAL, sb.len == 0 ? "" : ", ",
				hl->physical_written);
	}

	return out;
}

//==========================================================
// Public API - messages.
//

char*
ll_health_failed(char* out, size_t len, int err)
{
	snprintf(out, len, LL_HEALTH_FAILED, strerror(err), err);

	return out;
}

char*
ll_health_status(char* out, size_t len, uint32_t status)
{
	snprintf(out, len, LL_HEALTH_STATUS, status);

	return out;
}

char*
ll_health_no_answer(char* out, size_t len, double secs)
{
	snprintf(out, len, LL_HEALTH_NO_ANSWER, secs);

	return out;
}

char*
ll_health_hwmon_failed(char* out, size_t len, int err)
{
	snprintf(out, len, LL_HEALTH_HWMON_FAILED, strerror(err), err);

	return out;
}

char*
ll_io_failed(char* out, size_t len, const ll_io* io, int err, bool counted,
		uint64_t n, uint64_t limit)
{
	int at = snprintf(out, len, LL_IO_FAILED, io->op, io->device, io->off,
			io->size, strerror(err), err);

	if (counted && at >= 0 && (size_t)at < len) {
		snprintf(out + at, len - (size_t)at, LL_IO_COUNT, n, limit);
	}

	return out;
}

char*
ll_io_hidden(char* out, size_t len, uint64_t n)
{
	snprintf(out, len, LL_IO_HIDDEN, n);

	return out;
}

char*
ll_fell_behind(char* out, size_t len, const char* threads, uint64_t owed,
		uint32_t duration_sec, uint32_t n_behind, double most_sec)
{
	snprintf(out, len, LL_FELL_BEHIND, threads, owed, duration_sec, n_behind,
			n_behind == 1 ? "" : "s", most_sec);

	return out;
}

char*
ll_lag(char* out, size_t len, const char* threads, double behind_sec,
		uint32_t max_lag_sec)
{
	snprintf(out, len, LL_LAG, threads, behind_sec, max_lag_sec);

	return out;
}

char*
ll_host_limit(char* out, size_t len, const char* advice, double window_sec,
		double io_pct, double busy_pct)
{
	char cpus[64] = "";

	if (busy_pct >= 0.0) {
		snprintf(cpus, sizeof(cpus), LL_CPUS_BUSY, busy_pct);
	}

	snprintf(out, len, LL_HOST_LIMIT, advice, window_sec, io_pct, cpus);

	return out;
}

char*
ll_stall(char* out, size_t len, const ll_io* io, double took_sec,
		uint32_t max_lag_sec)
{
	snprintf(out, len, LL_STALL, io->device, io->size, io->op, io->off,
			took_sec, max_lag_sec);

	return out;
}

char*
ll_drive_limit_end(char* out, size_t len)
{
	snprintf(out, len, "%s", LL_DRIVE_LIMIT_END);

	return out;
}

char*
ll_drive_limit(char* out, size_t len, double window_sec, uint64_t n_io,
		double io_sec, const ll_io* longest, double longest_sec)
{
	snprintf(out, len, LL_DRIVE_LIMIT, window_sec, n_io, io_sec,
			window_sec > 0.0 ? 100.0 * io_sec / window_sec : 0.0,
			n_io != 0 ? io_sec / (double)n_io : 0.0, longest_sec,
			longest->size, longest->op, longest->off, longest->device);

	return out;
}

char*
ll_hung_io(char* out, size_t len, const ll_io* io, double waited_sec,
		const char* limit, const char* stopped)
{
	char why[256] = LL_HUNG_ENDED;

	if (limit != NULL) {
		snprintf(why, sizeof(why), LL_HUNG_OVER, limit, stopped);
	}

	snprintf(out, len, LL_HUNG_IO, io->device, io->size, io->op, io->off,
			waited_sec, why);

	return out;
}

char*
ll_io_errors(char* out, size_t len, uint64_t n, uint32_t limit)
{
	snprintf(out, len, LL_IO_ERRORS, n, limit);

	return out;
}

char*
ll_signal(char* out, size_t len, const char* signal, uint64_t secs)
{
	snprintf(out, len, LL_SIGNAL, signal, secs);

	return out;
}

char*
ll_request(char* out, size_t len, const char* reason, uint64_t secs)
{
	snprintf(out, len, LL_REQUEST, reason, secs);

	return out;
}

size_t
ll_reason(const char* in, size_t n, char* out, size_t len)
{
	size_t start = 0;
	size_t end = 0;

	while (end < n && in[end] != '\n') {
		end++;
	}

	while (start < end && (in[start] == ' ' || in[start] == '\t')) {
		start++;
	}

	while (end > start && (in[end - 1] == ' ' || in[end - 1] == '\t' ||
			in[end - 1] == '\r')) {
		end--;
	}

	size_t k = 0;

	for (size_t i = start; i < end && k < LL_REASON_MAX && k + 1 < len; i++) {
		unsigned char c = (unsigned char)in[i];

		out[k++] = c >= 0x20 && c < 0x7f ? (char)c : '?';
	}

	if (len != 0) {
		out[k] = '\0';
	}

	return k;
}
