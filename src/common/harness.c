/*
 * harness.c - the run harness of act_storage and act_index.
 */

#include "harness.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "io.h"
#include "log.h"
#include "rate.h"
#include "run.h"
#include "version.h"

//==========================================================
// Typedefs & constants.
//

#define JOIN_TIMEOUT_NS (3 * NS_PER_SEC)
#define MAX_KINDS 8
#define MAX_STATUS_RATES 8

// One rate of the live status line (docs/beyond.md, "Live status").
typedef struct status_rate_s {
	const char* label;     // "reads", "lb-writes"...
	const hist* h;
	double configured;     // operations per second
	uint64_t prev_total;
} status_rate;

typedef struct status_s {
	status_rate rates[MAX_STATUS_RATES];
	uint32_t n_rates;
	const hist* reads;     // for the share over 1 ms (us); may be NULL
	uint32_t prev_sec;
	uint64_t prev_over;
	uint64_t prev_reads_total;
} status;

// rate-process, in g_rate_processes order.
typedef enum {
	PROCESS_ALIGNED,
	PROCESS_SPREAD,
	PROCESS_POISSON
} rate_mode;

struct harness_s {
	const harness_program* program;
	void* prog;
	harness_params params;
	devset devs;
	report rep;
	status st;
	bool setup_failed;         // a histogram could not be added

	harness_kind kinds[MAX_KINDS];
	uint32_t n_kinds;
	harness_worker* workers;
	uint32_t n_workers;

	uint64_t start_ns;         // time 0 of every schedule and report
	uint64_t max_lag_ns;
	rate_mode mode;            // of the HARNESS_PACE_CLIENT kinds
};

//==========================================================
// Forward declarations.
//

static int parse_args(int argc, char* argv[], const harness_program* p,
		const char** config_path);
static void usage(const harness_program* p, FILE* out);
static int run_program(harness* h, const char* config_path);
static int setup_devices(harness* h);
static int setup_workers(harness* h);
static int start_workers(harness* h);
static int run(harness* h, bool* joined);
static void free_workers(harness* h);
static void* worker_main(void* pv);
static void lag_stop(harness_worker* w, uint64_t lag_ns);
static void report_cb(uint32_t report_sec, void* udata);
static void status_show(harness* h, uint32_t report_sec);
static bool log_sb(strbuf* sb, const char* what);
static uint32_t n_cpus(void);

//==========================================================
// Public API.
//

int
harness_main(int argc, char* argv[], const harness_program* p, void* prog)
{
	const char* config_path = NULL;
	int rv = parse_args(argc, argv, p, &config_path);

	if (rv >= 0) {
		return rv;
	}

	harness* h = calloc(1, sizeof(harness));

	if (h == NULL) {
		fprintf(stderr, "ERROR: out of memory\n");
		return EXIT_SETUP;
	}

	h->program = p;
	h->prog = prog;

	bool joined = true;

	rv = run_program(h, config_path);

	if (rv == -1) {
		rv = run(h, &joined);
	}

	if (p->finish != NULL && h->start_ns != 0) {
		p->finish(h);
	}

	devset_restore_schedulers(&h->devs);

	if (! joined) {
		return rv; // a thread is stuck in an I/O: leave its memory alone
	}

	free_workers(h);
	devset_close(&h->devs);
	report_free(&h->rep);
	free(h);

	return rv;
}

void*
harness_prog(const harness* h)
{
	return h->prog;
}

uint32_t
harness_n_devices(const harness* h)
{
	return h->devs.n;
}

dev*
harness_dev(const harness* h, uint32_t i)
{
	return &h->devs.devs[i];
}

hist*
harness_hist(harness* h, const char* fmt, ...)
{
	char name[REPORT_MAX_NAME + 1];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);

	hist* added = report_add(&h->rep, name);

	if (added == NULL) {
		log_error("can't add histogram %s: out of memory or name longer "
				"than %d characters", name, REPORT_MAX_NAME - 1);
		h->setup_failed = true;
	}

	return added;
}

void
harness_status_rate(harness* h, const char* label, const hist* hg,
		double configured)
{
	status* st = &h->st;

	if (hg == NULL || st->n_rates == MAX_STATUS_RATES) {
		return;
	}

	status_rate* r = &st->rates[st->n_rates++];

	r->label = label;
	r->h = hg;
	r->configured = configured;
	r->prev_total = 0;
}

void
harness_status_reads(harness* h, const hist* hg)
{
	h->st.reads = hg;
}

void
harness_add_kind(harness* h, const harness_kind* k)
{
	if (h->n_kinds == MAX_KINDS) {
		log_error("too many thread kinds (at most %d)", MAX_KINDS);
		h->setup_failed = true;
		return;
	}

	h->kinds[h->n_kinds++] = *k;
}

int
harness_io(harness_worker* w, const harness_req* r)
{
	dev* d = harness_dev(w->h, r->dev_ix);
	uint64_t start = clock_ns();
	int err = r->write ? io_write(d->fd, w->buf, r->size, r->off) :
			io_read(d->fd, w->buf, r->size, r->off);
	uint64_t end = clock_ns();

	w->last = (harness_last_io){
		.device = d->name,
		.op = r->op,
		.size = r->size,
		.off = r->off,
		.took_ns = end - start
	};

	if (err != 0) {
		if (io_failed(d->name, r->op, r->off, r->size, err)) {
			run_stop(EXIT_IO);
		}

		return err;
	}

	if (run_going()) {
		if (r->h != NULL) {
			hist_insert_ns(r->h, end - start);
		}

		if (r->dev_h != NULL) {
			hist_insert_ns(r->dev_h, end - start);
		}

		if (r->total != NULL) {
			hist_insert_ns(r->total, end - w->due_ns);
		}
	}

	return 0;
}

//==========================================================
// Setup.
//

// "PROG CONFIG | --help | --version | --config-help". Returns -1 to go on
// with *config_path set, else the exit status.
static int
parse_args(int argc, char* argv[], const harness_program* p,
		const char** config_path)
{
	if (argc == 2 && (strcmp(argv[1], "--help") == 0 ||
			strcmp(argv[1], "-h") == 0)) {
		usage(p, stdout);
		return EXIT_OK;
	}

	if (argc == 2 && strcmp(argv[1], "--version") == 0) {
		printf("%s %s\n", p->name, ACT_VERSION);
		return EXIT_OK;
	}

	if (argc == 2 && strcmp(argv[1], "--config-help") == 0) {
		cfg_print_help(p->table, stdout);
		return EXIT_OK;
	}

	if (argc != 2 || argv[1][0] == '-') {
		usage(p, stderr);
		return EXIT_USAGE;
	}

	*config_path = argv[1];

	return -1;
}

static void
usage(const harness_program* p, FILE* out)
{
	fprintf(out, "usage: %s CONFIG-FILE > LOG\n"
			"       %s --help | --version | --config-help\n"
			"\n"
			"%s"
			"\n"
			"  --config-help  every config item with its default, range and\n"
			"                 meaning\n"
			"\n"
			"WARNING: the test writes over the devices named in device-names;\n"
			"all data on them is destroyed.\n"
			"\n"
			"exit status: 0 done, 1 usage or config error, 2 device or setup\n"
			"error, 3 load not kept up (max-lag-sec), 4 I/O errors\n"
			"(io-error-limit), 128+n stopped by signal n\n", p->name, p->name,
			p->about);
}

// Everything up to the start of the workers. Returns -1 to go on and run,
// else the exit status.
static int
run_program(harness* h, const char* config_path)
{
	const harness_program* p = h->program;
	harness_params* prm = &h->params;
	char err[1024];

	log_init();
	log_out("\nACT version %s\n%s\n%s\n\n", ACT_VERSION, p->test_kind,
			ACT_NOTICE);

	if (p->load(h, config_path, n_cpus(), prm, err, sizeof(err)) != 0) {
		log_error("%s", err);
		return EXIT_USAGE;
	}

	strbuf sb;

	sb_init_grow(&sb);
	p->echo(h, &sb);

	if (! log_sb(&sb, "the configuration")) {
		return EXIT_SETUP;
	}

	io_set_error_limit(prm->io_error_limit);
	h->mode = strcmp(prm->rate_process, "poisson") == 0 ? PROCESS_POISSON :
			strcmp(prm->rate_process, "spread") == 0 ? PROCESS_SPREAD :
			PROCESS_ALIGNED;
	h->max_lag_ns = (uint64_t)prm->max_lag_sec * NS_PER_SEC;
	report_init(&h->rep, prm->us_histograms ? HIST_US : HIST_MS);

	if (setup_devices(h) != 0) {
		return EXIT_SETUP;
	}

	p->setup_run(h);

	if (h->setup_failed) {
		return EXIT_SETUP;
	}

	sb_init_grow(&sb);
	report_names(&h->rep, &sb);

	if (! log_sb(&sb, "the histogram names")) {
		return EXIT_SETUP;
	}

	return -1;
}

// Open every device (nothing is written before all are checked), let the
// program check each, then commit. Prints the device lines.
static int
setup_devices(harness* h)
{
	const harness_params* prm = &h->params;
	const cfg_names* names = prm->devices;
	const char* list[CFG_MAX_DEVICES];
	dev_opts o = {
		.file_size = (uint64_t)prm->file_size_mbytes * 1024 * 1024,
		.dsync = ! prm->disable_odsync,
		.scheduler = prm->scheduler_mode
	};

	for (uint32_t i = 0; i < names->n; i++) {
		list[i] = names->names[i];
	}

	if (devset_open(&h->devs, list, names->n, &o) != 0) {
		return -1;
	}

	strbuf sb;

	sb_init_grow(&sb);

	for (uint32_t i = 0; i < h->devs.n; i++) {
		if (h->program->setup_device(h, i, &sb) != 0) {
			sb_free(&sb);
			devset_undo(&h->devs);
			return -1;
		}
	}

	// Only now, with every device checked, may a file shrink.
	if (devset_commit(&h->devs) != 0) {
		sb_free(&sb);
		return -1;
	}

	sb_printf(&sb, "\n");

	return log_sb(&sb, "the device lines") ? 0 : -1;
}

// Every worker of every kind, with its buffer and generator - before the
// clock starts. Returns 0, or -1 having printed the ERROR line.
static int
setup_workers(harness* h)
{
	uint32_t n = 0;

	for (uint32_t k = 0; k < h->n_kinds; k++) {
		const harness_kind* kind = &h->kinds[k];

		if (kind->pacing != HARNESS_PACE_NONE && kind->rate <= 0.0) {
			continue;
		}

		n += kind->per_device ? h->devs.n : kind->n_threads;
	}

	h->workers = calloc(n == 0 ? 1 : n, sizeof(harness_worker));

	if (h->workers == NULL) {
		log_error("out of memory for %" PRIu32 " threads", n);
		return -1;
	}

	for (uint32_t k = 0; k < h->n_kinds; k++) {
		const harness_kind* kind = &h->kinds[k];

		if (kind->pacing != HARNESS_PACE_NONE && kind->rate <= 0.0) {
			continue;
		}

		uint32_t n_kind = kind->per_device ? h->devs.n : kind->n_threads;
		uint32_t per_step = kind->ops_per_step == 0 ? 1 : kind->ops_per_step;
		// An integral rate is split exactly: the remainder of rate / threads
		// goes one each to the first threads, so all together do exactly
		// the configured rate.
		bool exact = ! kind->per_device && kind->rate == (double)(uint64_t)
				kind->rate;
		uint64_t whole = (uint64_t)kind->rate;

		for (uint32_t i = 0; i < n_kind; i++) {
			double ops = exact ? (double)(whole / n_kind +
					(i < whole % n_kind ? 1 : 0)) : kind->rate / n_kind;

			if (kind->pacing != HARNESS_PACE_NONE && ops <= 0.0) {
				continue;
			}

			harness_worker* w = &h->workers[h->n_workers];

			w->h = h;
			w->kind = kind;
			w->ix = i;
			w->dev_ix = kind->per_device ? i : 0;
			w->rate = ops / per_step;
			w->buf = dev_alloc_buf(kind->buf_size);

			if (w->buf == NULL) {
				log_error("out of memory for a %" PRIu32 "-byte buffer",
						kind->buf_size);
				return -1;
			}

			rand_seed(&w->rnd);
			h->n_workers++;
		}
	}

	return 0;
}

static int
start_workers(harness* h)
{
	for (uint32_t i = 0; i < h->n_workers; i++) {
		harness_worker* w = &h->workers[i];
		int rv = run_thread_start(worker_main, w);

		if (rv != 0) {
			log_error("can't start %s thread: %s (errno %d)", w->kind->name,
					strerror(rv), rv);
			return -1;
		}
	}

	return 0;
}

static void
free_workers(harness* h)
{
	for (uint32_t i = 0; i < h->n_workers; i++) {
		free(h->workers[i].buf);
	}

	free(h->workers);
	h->workers = NULL;
	h->n_workers = 0;
}

//==========================================================
// The run.
//

// Block the signals, start the workers, print a report every interval
// until the end, a stop or a signal, then wait for the workers. Returns the
// exit status; *joined says whether every worker finished (if not, memory
// they use must not be freed).
static int
run(harness* h, bool* joined)
{
	run_block_signals();

	if (setup_workers(h) != 0) {
		return EXIT_SETUP;
	}

	h->start_ns = clock_ns();

	if (start_workers(h) != 0) {
		run_stop(EXIT_SETUP);
		*joined = run_join(JOIN_TIMEOUT_NS);
		return EXIT_SETUP;
	}

	int rv = run_reports(h->start_ns, h->params.test_duration_sec,
			h->params.report_interval_sec, report_cb, h);

	*joined = run_join(JOIN_TIMEOUT_NS);
	io_flush_suppressed();

	if (log_stderr_is_tty()) {
		fputc('\n', stderr);
	}

	return rv;
}

// The worker skeleton: pace the kind's steps on the absolute schedule and
// stop the run when the thread falls more than max-lag-sec behind.
static void*
worker_main(void* pv)
{
	harness_worker* w = pv;
	const harness_kind* k = w->kind;
	harness* h = w->h;

	if (k->pacing == HARNESS_PACE_NONE) {
		while (run_going()) {
			k->step(w);
		}

		return NULL;
	}

	rate_sched sched;

	if (k->pacing == HARNESS_PACE_CLIENT && h->mode == PROCESS_POISSON) {
		rate_init_poisson(&sched, h->start_ns, w->rate, &w->rnd);
	}
	else if (k->pacing == HARNESS_PACE_CLIENT &&
			h->mode == PROCESS_SPREAD) {
		uint32_t n_kind = k->per_device ? h->devs.n : k->n_threads;

		rate_init(&sched, h->start_ns, w->rate, (double)w->ix /
				(double)n_kind);
	}
	else {
		rate_init(&sched, h->start_ns, w->rate, 0.0);
	}

	rate_wait_start(&sched);

	while (run_going()) {
		w->due_ns = rate_next_due_ns(&sched);
		k->step(w);

		uint64_t lag = rate_done_and_wait(&sched);

		if (h->max_lag_ns != 0 && lag > h->max_lag_ns && run_going()) {
			lag_stop(w, lag);
			break;
		}
	}

	return NULL;
}

// A worker is lag_ns behind schedule, more than max-lag-sec: unless the run
// has already been stopped, say why and stop it with EXIT_LAG.
static void
lag_stop(harness_worker* w, uint64_t lag_ns)
{
	const harness_kind* k = w->kind;
	const harness_last_io* last = &w->last;
	uint64_t max_lag_ns = w->h->max_lag_ns;
	uint32_t max_lag_sec = w->h->params.max_lag_sec;

	if (run_stop_code() >= 0) {
		return;
	}

	if (k->stall_check && last->took_ns > max_lag_ns) {
		log_error("device %s stalled: a %" PRIu32 "-byte %s at offset %"
				PRIu64 " took %.3f sec, more than max-lag-sec (%" PRIu32 ") - "
				"the drive, not the thread count, is the limit", last->device,
				last->size, last->op, last->off,
				(double)last->took_ns / NS_PER_SEC, max_lag_sec);
		log_error("drive(s) can't keep up - test stopped");
	}
	else {
		log_error("%s can't keep up: %.3f sec behind schedule, more than "
				"max-lag-sec (%" PRIu32 ")", k->name, (double)lag_ns / NS_PER_SEC,
				max_lag_sec);
		log_error("%s", k->lag_advice);
	}

	run_stop(EXIT_LAG);
}

static void
report_cb(uint32_t report_sec, void* udata)
{
	harness* h = udata;
	strbuf sb;

	sb_init_grow(&sb);
	report_format(&h->rep, report_sec, &sb);
	log_sb(&sb, "the report");
	status_show(h, report_sec);
}

// One status line on a terminal's stderr: elapsed / total time, achieved vs
// configured rate of each thread kind, and the last interval's share of
// reads over 1 ms (or us).
static void
status_show(harness* h, uint32_t report_sec)
{
	status* st = &h->st;

	if (! log_stderr_is_tty() || report_sec <= st->prev_sec) {
		return;
	}

	double secs = (double)(report_sec - st->prev_sec);
	uint64_t counts[HIST_N_BUCKETS];
	strbuf sb;

	sb_init_grow(&sb);
	sb_printf(&sb, "%" PRIu32 "/%" PRIu32 " s", report_sec,
			h->params.test_duration_sec);

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

		sb_printf(&sb, "  reads > 1 %s: %.2f%%",
				h->params.us_histograms ? "us" : "ms", d_total == 0 ? 0.0 :
				100.0 * (double)(over - st->prev_over) / (double)d_total);
		st->prev_over = over;
		st->prev_reads_total = total;
	}

	if (! sb_overflowed(&sb)) {
		log_status(sb.buf);
	}

	sb_free(&sb);
	st->prev_sec = report_sec;
}

//==========================================================
// Local helpers.
//

// Write a growing strbuf's text to the log and free it. Returns false
// (having printed the ERROR line) if memory ran out while building it: a
// log is never silently cut.
static bool
log_sb(strbuf* sb, const char* what)
{
	bool ok = ! sb_overflowed(sb);

	if (ok) {
		log_text(sb->buf, sb->len);
	}
	else {
		log_error("out of memory building %s for the log", what);
	}

	sb_free(sb);

	return ok;
}

// Online CPUs (at least 1).
static uint32_t
n_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : (uint32_t)n;
}
