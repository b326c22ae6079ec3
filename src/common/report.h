/*
 * report.h - the run's named histograms and the interval reports.
 */
#pragma once

#include <stdint.h>

#include "hist.h"
#include "strbuf.h"

#define REPORT_MAX_NAME 160

typedef struct report_hist_s {
	char name[REPORT_MAX_NAME];
	hist h;
} report_hist;

typedef struct report_s {
	hist_scale scale;
	uint32_t n;
	uint32_t cap;
	report_hist* hists;
} report;

// Room for cap histograms. Returns 0 or -1 (out of memory).
int report_init(report* r, uint32_t cap, hist_scale scale);
void report_free(report* r);

// Add a histogram (in print order); returns it, or NULL when full.
hist* report_add(report* r, const char* name);

// "HISTOGRAM NAMES", one name a line, an empty line.
void report_names(const report* r, strbuf* sb);

// Print the report due at report_sec to the log: "after N sec:", every
// histogram, an empty line; flushed.
void report_print(const report* r, uint32_t report_sec);
