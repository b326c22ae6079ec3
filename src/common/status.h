/*
 * status.h - the live status line (docs/beyond.md, "Live status"): on a
 * terminal's stderr, one line updated each report - elapsed / total time,
 * achieved vs configured rate of each kind of I/O, and the last interval's
 * share of reads over 1 ms (or us). Not a terminal: nothing.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "common/hist.h"
#include "common/strbuf.h"

#define STATUS_MAX_RATES 8

typedef struct status_rate_s {
	const char* label;     // "reads", "lb-writes", "service reads"...
	const char* short_label; // the compact line's ("svc reads"); NULL: none
	const hist* h;
	const hist* minus;     // its count is taken off h's; NULL: none
	double configured;     // operations per second
	uint64_t prev_total;
} status_rate;

typedef struct status_s {
	status_rate rates[STATUS_MAX_RATES];
	uint32_t n_rates;
	const hist* reads;     // for the share over 1 ms (us); may be NULL
	bool us;               // microsecond histograms
	uint32_t duration_sec;
	uint32_t prev_sec;
	uint64_t prev_over;
	uint64_t prev_reads_total;
} status;

// Show this rate (a NULL histogram is not in the run: ignored): h's count,
// less minus's if not NULL. When every rate has a short label, a compact
// line (achieved/configured, no ETA) comes before the one without the
// configured rates.
void status_add_rate(status* st, const char* label, const char* short_label,
		const hist* h, const hist* minus, double configured);

// The line for the report due at report_sec.
void status_show(status* st, uint32_t report_sec);

// Writes the line at a level of detail (0: the most) into sb.
typedef void (*status_format_fn)(uint32_t detail, strbuf* sb,
		const void* ctx);

// Show on stderr's terminal line (log_status) the most detailed of the
// n_detail levels whose line fits the terminal's width - the least
// detailed one cut to the width if none does. Nothing when memory ran out.
void status_fit(uint32_t n_detail, status_format_fn format, const void* ctx);
