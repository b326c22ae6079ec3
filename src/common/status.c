/*
 * status.c - the live status line.
 */

#include "status.h"

#include <inttypes.h>

#include "log.h"
#include "strbuf.h"

//==========================================================
// Public API.
//

void
status_add_rate(status* st, const char* label, const hist* h,
		double configured)
{
	if (h == NULL || st->n_rates == STATUS_MAX_RATES) {
		return;
	}

	status_rate* r = &st->rates[st->n_rates++];

	r->label = label;
	r->h = h;
	r->configured = configured;
	r->prev_total = 0;
}

void
status_show(status* st, uint32_t report_sec)
{
	if (! log_stderr_is_tty() || report_sec <= st->prev_sec) {
		return;
	}

	double secs = (double)(report_sec - st->prev_sec);
	uint64_t counts[HIST_N_BUCKETS];
	strbuf sb;

	sb_init_grow(&sb);
	sb_printf(&sb, "%" PRIu32 "/%" PRIu32 " s", report_sec,
			st->duration_sec);

	for (uint32_t i = 0; i < st->n_rates; i++) {
		status_rate* r = &st->rates[i];
		uint64_t total = hist_snapshot(r->h, counts);

		sb_printf(&sb, "  %s %.1f/%.1f/s", r->label,
				(double)(total - r->prev_total) / secs, r->configured);
		r->prev_total = total;
	}

	if (st->reads != NULL) {
		uint64_t total = hist_snapshot(st->reads, counts);
		uint64_t over = total - counts[0];
		uint64_t d_total = total - st->prev_reads_total;

		sb_printf(&sb, "  reads > 1 %s: %.2f%%", st->us ? "us" : "ms",
				d_total == 0 ? 0.0 : 100.0 * (double)(over - st->prev_over) /
				(double)d_total);
		st->prev_over = over;
		st->prev_reads_total = total;
	}

	if (! sb_overflowed(&sb)) {
		log_status(sb.buf);
	}

	sb_free(&sb);
	st->prev_sec = report_sec;
}
