/*
 * status.c - the live status line, and status_fit: the most detailed
 * line that fits the terminal (act_prep's progress line uses it too).
 */

#include "common/status.h"

#include <inttypes.h>

#include "common/log.h"
#include "common/strbuf.h"

//==========================================================
// Typedefs & constants.
//

// Levels of detail of the status line, most first: everything; achieved
// rates only; the reads only; time and the share over 1 ms only.
#define DETAIL_FULL 0
#define DETAIL_NO_CONFIGURED 1
#define DETAIL_READS 2
#define DETAIL_LEAST 3

// What format_line shows (status_fit's ctx).
typedef struct line_ctx_s {
	const status* st;
	uint32_t report_sec;
	const double* achieved;
	double over_pct;
} line_ctx;

//==========================================================
// Forward declarations.
//

static void format_line(uint32_t detail, strbuf* sb, const void* ctx);

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
	double achieved[STATUS_MAX_RATES];

	for (uint32_t i = 0; i < st->n_rates; i++) {
		status_rate* r = &st->rates[i];
		uint64_t total = hist_snapshot(r->h, counts);

		achieved[i] = (double)(total - r->prev_total) / secs;
		r->prev_total = total;
	}

	double over_pct = -1.0;

	if (st->reads != NULL) {
		uint64_t total = hist_snapshot(st->reads, counts);
		uint64_t over = total - counts[0];
		uint64_t d_total = total - st->prev_reads_total;

		over_pct = d_total == 0 ? 0.0 : 100.0 *
				(double)(over - st->prev_over) / (double)d_total;
		st->prev_over = over;
		st->prev_reads_total = total;
	}

	st->prev_sec = report_sec;

	status_fit(DETAIL_LEAST + 1, format_line, &(line_ctx){ .st = st,
			.report_sec = report_sec, .achieved = achieved,
			.over_pct = over_pct });
}

void
status_fit(uint32_t n_detail, status_format_fn format, const void* ctx)
{
	size_t width = log_stderr_columns() - 1;
	strbuf sb;

	sb_init_grow(&sb);

	for (uint32_t detail = 0; ; detail++) {
		sb.len = 0;
		format(detail, &sb, ctx);

		if (sb_overflowed(&sb) || sb.len <= width ||
				detail + 1 >= n_detail) {
			break;
		}
	}

	if (! sb_overflowed(&sb)) {
		if (sb.len > width) {
			sb.buf[width] = '\0';
		}

		log_status(sb.buf != NULL ? sb.buf : "");
	}

	sb_free(&sb);
}

//==========================================================
// Local helpers.
//

// One status line at a level of detail: DETAIL_FULL "0:00:12/24:00:00 ETA
// 23:59:48  reads 2000.0/2000.0/s ...  reads > 1 ms: 0.05%"; then
// "... reads 2000/s writes 1000/s ...  >1ms 0.05%"; then the reads only;
// then "0:00:12/24:00:00  >1ms 0.05%".
static void
format_line(uint32_t detail, strbuf* sb, const void* ctx)
{
	const line_ctx* c = ctx;
	const status* st = c->st;
	uint32_t report_sec = c->report_sec;
	const double* achieved = c->achieved;
	double over_pct = c->over_pct;
	char elapsed[32];
	char total[32];
	char eta[32];
	uint32_t left = st->duration_sec > report_sec ?
			st->duration_sec - report_sec : 0;

	sb_printf(sb, "%s/%s", log_hms(report_sec, elapsed, sizeof(elapsed)),
			log_hms(st->duration_sec, total, sizeof(total)));

	if (detail <= DETAIL_READS) {
		sb_printf(sb, " ETA %s", log_hms(left, eta, sizeof(eta)));
	}

	for (uint32_t i = 0; i < st->n_rates && detail <= DETAIL_READS; i++) {
		const status_rate* r = &st->rates[i];

		if (detail == DETAIL_READS && i != 0) {
			break;
		}

		if (detail == DETAIL_FULL) {
			sb_printf(sb, "  %s %.1f/%.1f/s", r->label, achieved[i],
					r->configured);
		}
		else {
			sb_printf(sb, "  %s %.0f/s", r->label, achieved[i]);
		}
	}

	if (over_pct >= 0.0) {
		sb_printf(sb, detail == DETAIL_FULL ? "  reads > 1 %s: %.2f%%" :
				"  >1%s %.2f%%", st->us ? "us" : "ms", over_pct);
	}
}
