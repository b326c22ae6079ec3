/*
 * report.c - the run's named histograms and the interval reports.
 */

#include "report.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "log.h"

//==========================================================
// Typedefs & constants.
//

// Room for one histogram's block: name line + up to 17 bucket lines.
#define BYTES_PER_HIST (REPORT_MAX_NAME + 32 + 17 * 80)

//==========================================================
// Public API.
//

int
report_init(report* r, uint32_t cap, hist_scale scale)
{
	r->scale = scale;
	r->n = 0;
	r->cap = cap;
	r->hists = calloc(cap == 0 ? 1 : cap, sizeof(report_hist));

	return r->hists == NULL ? -1 : 0;
}

void
report_free(report* r)
{
	free(r->hists);
	r->hists = NULL;
	r->n = r->cap = 0;
}

hist*
report_add(report* r, const char* name)
{
	if (r->n == r->cap) {
		return NULL;
	}

	report_hist* rh = &r->hists[r->n++];

	snprintf(rh->name, sizeof(rh->name), "%s", name);
	hist_init(&rh->h, r->scale);

	return &rh->h;
}

void
report_names(const report* r, strbuf* sb)
{
	sb_printf(sb, "HISTOGRAM NAMES\n");

	for (uint32_t i = 0; i < r->n; i++) {
		sb_printf(sb, "%s\n", r->hists[i].name);
	}

	sb_printf(sb, "\n");
}

void
report_print(const report* r, uint32_t report_sec)
{
	size_t cap = 64 + (size_t)r->n * BYTES_PER_HIST;
	char* buf = malloc(cap);

	if (buf == NULL) {
		log_error("out of memory printing the report after %" PRIu32 " sec",
				report_sec);
		return;
	}

	strbuf sb;

	sb_init(&sb, buf, cap);
	sb_printf(&sb, "after %" PRIu32 " sec:\n", report_sec);

	for (uint32_t i = 0; i < r->n; i++) {
		hist_dump(&r->hists[i].h, r->hists[i].name, &sb);
	}

	sb_printf(&sb, "\n");
	log_text(sb.buf, sb.len);
	free(buf);
}
