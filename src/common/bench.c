/*
 * bench.c - what act_storage and act_index share around their run.
 */

#include "bench.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "io.h"
#include "log.h"
#include "strbuf.h"
#include "run.h"
#include "version.h"

//==========================================================
// Typedefs & constants.
//

#define JOIN_TIMEOUT_NS (3 * NS_PER_SEC)

typedef struct report_ctx_s {
	const report* rep;
	bench_status* status;
} report_ctx;

//==========================================================
// Forward declarations.
//

static void report_cb(uint32_t report_sec, void* udata);

//==========================================================
// Public API.
//

int
bench_args(int argc, char* argv[], const char* usage,
		const char** config_path)
{
	if (argc == 2 && (strcmp(argv[1], "--help") == 0 ||
			strcmp(argv[1], "-h") == 0)) {
		fputs(usage, stdout);
		return EXIT_OK;
	}

	if (argc == 2 && strcmp(argv[1], "--version") == 0) {
		const char* slash = strrchr(argv[0], '/');

		printf("%s %s\n", slash != NULL ? slash + 1 : argv[0], ACT_VERSION);
		return EXIT_OK;
	}

	if (argc != 2 || argv[1][0] == '-') {
		fputs(usage, stderr);
		return EXIT_USAGE;
	}

	*config_path = argv[1];

	return -1;
}

void
bench_banner(const char* kind)
{
	log_out("\nACT version %s\n%s\n%s\n\n", ACT_VERSION, kind, ACT_NOTICE);
}

uint32_t
bench_n_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : (uint32_t)n;
}

int
bench_open_devices(const cfg_names* names, const dev_opts* o, dev* devs)
{
	char err[1024];

	for (uint32_t i = 0; i < names->n; i++) {
		if (dev_check(names->names[i], o, err, sizeof(err)) != 0) {
			log_error("%s", err);
			return -1;
		}
	}

	for (uint32_t i = 0; i < names->n; i++) {
		if (dev_open(&devs[i], names->names[i], o, err, sizeof(err)) != 0) {
			log_error("%s", err);
			bench_undo_devices(devs, i);
			return -1;
		}
	}

	return 0;
}

int
bench_commit_devices(dev* devs, uint32_t n)
{
	char err[1024];

	for (uint32_t i = 0; i < n; i++) {
		if (dev_commit(&devs[i], err, sizeof(err)) != 0) {
			log_error("%s", err);
			bench_undo_devices(devs, n);
			return -1;
		}
	}

	return 0;
}

void
bench_undo_devices(dev* devs, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		dev_undo(&devs[i]);
	}
}

dev*
bench_setup_devices(const cfg_names* names, uint32_t file_size_mbytes,
		bool disable_odsync, const char* scheduler)
{
	dev* devs = calloc(names->n, sizeof(dev));

	if (devs == NULL) {
		log_error("out of memory for %" PRIu32 " devices", names->n);
		return NULL;
	}

	dev_opts o = {
		.file_size = (uint64_t)file_size_mbytes * 1024 * 1024,
		.dsync = ! disable_odsync,
		.scheduler = scheduler
	};

	if (bench_open_devices(names, &o, devs) != 0) {
		free(devs);
		return NULL;
	}

	return devs;
}

int
bench_run(int (*start_threads)(void), const uint64_t* start_ns,
		uint32_t duration_sec, uint32_t interval_sec, const report* rep,
		bench_status* status, bool* joined)
{
	run_block_signals();

	if (start_threads() != 0) {
		run_stop(EXIT_SETUP);
		*joined = run_join(JOIN_TIMEOUT_NS);
		return EXIT_SETUP;
	}

	report_ctx ctx = { rep, status };
	int rv = run_reports(*start_ns, duration_sec, interval_sec, report_cb,
			&ctx);

	*joined = run_join(JOIN_TIMEOUT_NS);
	io_flush_suppressed();

	if (log_stderr_is_tty()) {
		fputc('\n', stderr);
	}

	return rv;
}

bool
bench_lag_stop(uint64_t lag_ns, uint32_t max_lag_sec, const char* what)
{
	if (run_stop_code() >= 0) {
		return false;
	}

	log_error("%s can't keep up: %.3f sec behind schedule, more than "
			"max-lag-sec (%" PRIu32 ")", what, (double)lag_ns / NS_PER_SEC,
			max_lag_sec);
	run_stop(EXIT_LAG);

	return true;
}

void
bench_stall_stop(const char* device, const char* op, uint32_t size,
		uint64_t off, uint64_t took_ns, uint32_t max_lag_sec)
{
	if (run_stop_code() >= 0) {
		return;
	}

	log_error("device %s stalled: a %" PRIu32 "-byte %s at offset %" PRIu64
			" took %.3f sec, more than max-lag-sec (%" PRIu32 ") - the drive, "
			"not the thread count, is the limit", device, size, op, off,
			(double)took_ns / NS_PER_SEC, max_lag_sec);
	log_error("drive(s) can't keep up - test stopped");
	run_stop(EXIT_LAG);
}

void
bench_status_add(bench_status* st, const char* label, const hist* h,
		double configured)
{
	if (h == NULL || st->n_rates == sizeof(st->rates) / sizeof(st->rates[0])) {
		return;
	}

	bench_rate* r = &st->rates[st->n_rates++];

	r->label = label;
	r->h = h;
	r->configured = configured;
	r->prev_total = 0;
}

void
bench_status_show(bench_status* st, uint32_t report_sec)
{
	if (! log_stderr_is_tty() || report_sec <= st->prev_sec) {
		return;
	}

	double secs = (double)(report_sec - st->prev_sec);
	uint64_t counts[HIST_N_BUCKETS];
	char line[512];
	strbuf sb;

	sb_init(&sb, line, sizeof(line));
	sb_printf(&sb, "%" PRIu32 "/%" PRIu32 " s", report_sec, st->duration_sec);

	for (uint32_t i = 0; i < st->n_rates; i++) {
		bench_rate* r = &st->rates[i];
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

	log_status(line);
	st->prev_sec = report_sec;
}

void
bench_close_devices(dev* devs, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		dev_close(&devs[i]);
	}
}

//==========================================================
// Local helpers.
//

static void
report_cb(uint32_t report_sec, void* udata)
{
	report_ctx* ctx = udata;

	report_print(ctx->rep, report_sec);
	bench_status_show(ctx->status, report_sec);
}
