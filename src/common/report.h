/*
 * report.h - the run's named histograms and the interval reports
 * (docs/log-format.md).
 *
 * Histograms are added in print order; the list grows as they are added
 * (each histogram is allocated on its own, so a pointer returned by
 * report_add stays valid for the life of the report).
 */
#pragma once

#include <stdint.h>

#include "common/hist.h"
#include "common/strbuf.h"

#define REPORT_MAX_NAME 160

typedef struct report_hist_s {
	char name[REPORT_MAX_NAME];
	hist h;
} report_hist;

typedef struct report_s {
	hist_scale scale;
	uint32_t n;
	uint32_t cap;
	report_hist** hists;
} report;

void report_init(report* r, hist_scale scale);
void report_free(report* r);

// Add a histogram (in print order); returns it, or NULL when out of memory
// or the name does not fit REPORT_MAX_NAME.
hist* report_add(report* r, const char* name);

// "HISTOGRAM NAMES", one name a line, an empty line.
void report_names(const report* r, strbuf* sb);

// The report due at report_sec: "after N sec:", every histogram, an empty
// line.
void report_format(const report* r, uint32_t report_sec, strbuf* sb);
