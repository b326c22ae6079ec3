/*
 * report.c - the run's named histograms and the interval reports.
 */

#include "common/report.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/loglines.h"

//==========================================================
// Public API.
//

void
report_init(report* r, hist_scale scale)
{
	r->scale = scale;
	r->n = 0;
	r->cap = 0;
	r->hists = NULL;
}

void
report_free(report* r)
{
	for (uint32_t i = 0; i < r->n; i++) {
		free(r->hists[i]);
	}

	free(r->hists);
	r->hists = NULL;
	r->n = r->cap = 0;
}

hist*
report_add(report* r, const char* name)
{
	if (strlen(name) >= REPORT_MAX_NAME) {
		return NULL;
	}

	if (r->n == r->cap) {
		uint32_t cap = r->cap == 0 ? 8 : r->cap * 2;
		report_hist** more = realloc(r->hists, cap * sizeof(*more));

		if (more == NULL) {
			return NULL;
		}

		r->hists = more;
		r->cap = cap;
	}

	report_hist* rh = malloc(sizeof(*rh));

	if (rh == NULL) {
		return NULL;
	}

	snprintf(rh->name, sizeof(rh->name), "%s", name);
	hist_init(&rh->h, r->scale);
	r->hists[r->n++] = rh;

	return &rh->h;
}

void
report_names(const report* r, strbuf* sb)
{
	sb_printf(sb, LL_NAMES_HEADING "\n");

	for (uint32_t i = 0; i < r->n; i++) {
		sb_printf(sb, "%s\n", r->hists[i]->name);
	}

	sb_printf(sb, "\n");
}

void
report_format(const report* r, uint32_t report_sec, strbuf* sb)
{
	sb_printf(sb, LL_REPORT "\n", report_sec);

	for (uint32_t i = 0; i < r->n; i++) {
		hist_dump(&r->hists[i]->h, r->hists[i]->name, sb);
	}

	sb_printf(sb, "\n");
}
