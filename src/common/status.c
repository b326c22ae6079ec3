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

// Levels of detail of the status line, most first: everything; compact
// achieved/configured rates under their short labels, no ETA (only when
// every rate has one); achieved rates only; the reads only; time and the
// share over 1 ms only.
#define DETAIL_FULL 0
#define DETAIL_COMPACT 1
#define DETAIL_NO_CONFIGURED 2
#define DETAIL_READS 3
#define DETAIL_LEAST 4

// What format_line shows (status_fit's ctx): levels[detail] is the level.
typedef struct line_ctx_s {
	const status* st;
	uint32_t report_sec;
	const double* achieved;
	double over_pct;
	const uint32_t* levels;
} line_ctx;

//==========================================================
// Forward declarations.
//

static void format_line(uint32_t detail, strbuf* sb, const void* ctx);

//==========================================================
// Public API.
//

void
status_add_rate(status* st, const char* label, const char* short_label,
		const hist* h, const hist* minus, double configured)
{
	if (h == NULL || st->n_rates == STATUS_MAX_RATES) {
		return;
	}

	status_rate* r = &st->rates[st->n_rates++];

	r->label = label;
	r->short_label = short_label;
	r->h = h;
	r->minus = minus;
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

		if (r->minus != NULL) {
			uint64_t off = hist_snapshot(r->minus, counts);

			total = total > off ? total - off : 0;
		}

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

	static const uint32_t WITH_COMPACT[] = { DETAIL_FULL, DETAIL_COMPACT,
			DETAIL_NO_CONFIGURED, DETAIL_READS, DETAIL_LEAST };
	static const uint32_t WITHOUT_COMPACT[] = { DETAIL_FULL,
			DETAIL_NO_CONFIGURED, DETAIL_READS, DETAIL_LEAST };
	bool compact = st->n_rates != 0;

	for (uint32_t i = 0; i < st->n_rates; i++) {
		compact = compact && st->rates[i].short_label != NULL;
	}

	status_fit(compact ? 5 : 4, format_line, &(line_ctx){ .st = st,
			.report_sec = report_sec, .achieved = achieved,
			.over_pct = over_pct,
			.levels = compact ? WITH_COMPACT : WITHOUT_COMPACT });
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

// One status line at a level of detail (docs/beyond.md, "Live status"):
// DETAIL_FULL "0:00:12/24:00:00 ETA 23:59:48  reads 2000.0/2000.0/s ...
// reads > 1 ms: 0.05%"; DETAIL_COMPACT "0:00:12/24:00:00 svc reads
// 3000/3000 cache r 2000/2000 w 2000/2000 >1ms 0.05%"; then "... ETA
// 23:59:48  reads 2000/s writes 1000/s ...  >1ms 0.05%"; then the reads
// only; then "0:00:12/24:00:00  >1ms 0.05%".
static void
format_line(uint32_t detail_ix, strbuf* sb, const void* ctx)
{
	const line_ctx* c = ctx;
	const status* st = c->st;
	uint32_t detail = c->levels[detail_ix];
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

	if (detail <= DETAIL_READS && detail != DETAIL_COMPACT) {
		sb_printf(sb, " ETA %s", log_hms(left, eta, sizeof(eta)));
	}

	for (uint32_t i = 0; i < st->n_rates && detail <= DETAIL_READS; i++) {
		const status_rate* r = &st->rates[i];
		const char* label = r->short_label != NULL && detail != DETAIL_FULL ?
				r->short_label : r->label;

		if (detail == DETAIL_READS && i != 0) {
			break;
		}

		if (detail == DETAIL_FULL) {
			sb_printf(sb, "  %s %.1f/%.1f/s", label, achieved[i],
					r->configured);
		}
		else if (detail == DETAIL_COMPACT) {
			sb_printf(sb, " %s %.0f/%.0f", label, achieved[i],
					r->configured);
		}
		else {
			sb_printf(sb, "  %s %.0f/s", label, achieved[i]);
		}
	}

	if (over_pct >= 0.0) {
		sb_printf(sb, detail == DETAIL_FULL ? "  reads > 1 %s: %.2f%%" :
				detail == DETAIL_COMPACT ? " >1%s %.2f%%" : "  >1%s %.2f%%",
				st->us ? "us" : "ms", over_pct);
	}
}
