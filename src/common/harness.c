/*
 * harness.c - the run harness of act_storage and act_index: the program
 * descriptor's lifecycle - arguments, config, devices, workers set up, the
 * run and its reports, the exit status. The workers themselves are
 * worker.c, the hung-I/O watchdog watchdog.c (harness_priv.h).
 */

#include "common/harness.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cli.h"
#include "common/clock.h"
#include "common/cpu.h"
#include "common/harness_priv.h"
#include "common/io.h"
#include "common/log.h"
#include "common/loglines.h"
#include "common/program.h"
#include "common/rate.h"
#include "common/run.h"
#include "common/status.h"

//==========================================================
// Typedefs & constants.
//

// How long the workers get to finish their I/Os when the test time is up
// (with max-lag-sec, max-lag-sec + 1 s; after a hung I/O, 1 s).
#define DRAIN_NO_LAG_NS (3 * NS_PER_SEC)
#define DRAIN_EXTRA_NS (1 * NS_PER_SEC)
#define DRAIN_HUNG_NS (1 * NS_PER_SEC)
// ... counted from the end of the test time, but at least this long after
// the last report.
#define DRAIN_MIN_NS (1 * NS_PER_SEC)

// How long the last report waits for the threads that are behind schedule
// to do the requests due before the end (docs/log-format.md, "The last
// report").
#define END_SETTLE_NS (2 * NS_PER_SEC)

// What setup_devices works on, through program_setup's one pointer.
struct setup_ctx {
	harness* h;
	strbuf* sb; // the device lines and the identity block go here
};

//==========================================================
// Forward declarations.
//

static int check_program(harness* h, const cli_run* args);
static int load_config(harness* h, const cfg_source* src);
static uint32_t device_list(const harness* h, const char** list,
		dev_opts* o);
static int run_program(harness* h, const cfg_source* src);
static int guarded_setup_devices(harness* h, strbuf* sb);
static int setup_devices(void* pv);
static void check_signalled(int sig);
static int setup_workers(harness* h);
static int start_workers(harness* h);
static int run(harness* h, bool* joined);
static void free_workers(harness* h);
static void signal_stopped(int sig);
static bool settled_cb(void* udata);
static void report_cb(uint32_t report_sec, void* udata);
static bool health_may_print(void* udata);
static void log_owed(harness* h);
static bool log_sb(strbuf* sb, const char* what);

//==========================================================
// Public API.
//

int
harness_main(int argc, char* argv[], const harness_program* p, void* prog)
{
	int rv = program_start();

	if (rv != 0) {
		return rv;
	}

	cli_run args;

	rv = cli_args(argc, argv, &(cli_program){ .name = p->name,
			.about = p->about, .table = p->table }, &args);

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
	h->life = (program){ .devs = &h->devs, .limit_text = h->guard_limit,
			.stopped_text = "test stopped", .signal_stopped = signal_stopped };

	if (args.check) {
		rv = check_program(h, &args);
		free(h);
		return rv;
	}

	// A log written to the terminal is lost (docs/act_storage.md, its
	// introduction): say so, once, and run as asked.
	if (isatty(STDOUT_FILENO)) {
		log_warn("the log goes to the terminal and is not saved - to keep "
				"it for act_latency.py: %s %s > LOG", p->name,
				args.src.path);
	}

	bool joined = true;

	rv = run_program(h, &args.src);

	if (rv == -1) {
		rv = run(h, &joined);
	}

	if (p->finish != NULL && h->start_ns != 0) {
		p->finish(h);
	}

	devset_restore_schedulers(&h->devs);
	health_run_free(h->health);

	if (log_failure() != 0 && (rv == EXIT_OK || rv == EXIT_SETUP)) {
		rv = EXIT_LOG;
	}

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

	// Parsers find histograms by name: one name, one histogram.
	for (uint32_t i = 0; i < h->rep.n; i++) {
		if (strcmp(h->rep.hists[i]->name, name) == 0) {
			log_error("histogram name %s would appear twice in the log - "
					"rename the device that gives it", name);
			h->setup_failed = true;
			return NULL;
		}
	}

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
	status_add_rate(&h->st, label, NULL, hg, NULL, configured);
}

void
harness_status_rate_short(harness* h, const char* label,
		const char* short_label, const hist* hg, const hist* minus,
		double configured)
{
	status_add_rate(&h->st, label, short_label, hg, minus, configured);
}

void
harness_status_reads(harness* h, const hist* hg)
{
	h->st.reads = hg;
}

void
harness_add_kind(harness* h, const harness_kind* k)
{
	if (h->n_kinds == HARNESS_MAX_KINDS) {
		log_error("too many thread kinds (at most %d)", HARNESS_MAX_KINDS);
		h->setup_failed = true;
		return;
	}

	h->kinds[h->n_kinds++] = *k;
}

//==========================================================
// Setup.
//

// --check: load and validate the config, claim every device as a run
// would (devset_claim), see what the run would make of each (devset_preview:
// size and minimum I/O size, by reading) and let the program check it -
// writing nothing: no byte to a device, no file created or resized, no log
// (docs/act_storage.md, "The command line"). --print-config: then print the
// head of the log the run would write (banner, the program's echo, the
// device lines and the drives' identity: setup_devices) on stdout. Returns
// the exit status: 0 with one line on stderr, else the status a run's
// setup would end with (config error, device error, hung probe, signal),
// having printed the ERROR line and nothing on stdout.
static int
check_program(harness* h, const cli_run* args)
{
	log_no_stdout();
	h->checking = true;
	h->life.stopped_text = "check stopped - nothing was written";
	h->life.signal_stopped = check_signalled;
	h->life.close_only = true;

	int rv = load_config(h, &args->src);

	if (rv != 0) {
		return rv;
	}

	strbuf sb;

	sb_init_grow(&sb);
	ll_banner(&sb, h->program->test_kind);
	h->program->echo(h, &sb);

	int setup = guarded_setup_devices(h, &sb);

	health_run_free(h->health);
	h->health = NULL;

	if (setup != 0) {
		sb_free(&sb);
		return EXIT_SETUP;
	}

	uint32_t n = h->devs.n;
	int sig = run_pending_signal();

	program_release(&h->life);

	if (sig != 0) {
		check_signalled(sig);
		sb_free(&sb);
		return EXIT_SIGNAL + sig;
	}

	if (sb_overflowed(&sb)) {
		log_error("out of memory building the config to print");
		sb_free(&sb);
		return EXIT_SETUP;
	}

	if (args->print_config && (rv = log_print(sb.buf, sb.len)) != 0) {
		log_error("can't write the config to stdout: %s (errno %d)",
				strerror(rv), rv);
		sb_free(&sb);
		return EXIT_LOG;
	}

	sb_free(&sb);

	char esc[1024];

	log_note("%s: %s: the config and the %" PRIu32 " device%s are usable "
			"- nothing was written", h->program->name,
			log_escape(args->src.path, esc, sizeof(esc)), n, n == 1 ? "" :
			"s");

	return EXIT_OK;
}

// Load, validate and derive the config; print its warnings. Returns 0, or
// the exit status having printed the ERROR line.
static int
load_config(harness* h, const cfg_source* src)
{
	harness_params* prm = &h->params;
	char err[1024];
	int rv = h->program->load(h, src, cpu_online(), prm, err, sizeof(err));

	for (uint32_t i = 0; prm->set != NULL && i < prm->set->n_warnings &&
			i < CFG_MAX_WARNINGS; i++) {
		char more[CFG_WARNING_LEN];

		log_warn("%s", cfg_warning(prm->set, i, more, sizeof(more)));
	}

	if (rv != 0) {
		log_error("%s", err);
		return EXIT_USAGE;
	}

	h->max_lag_ns = (uint64_t)prm->cfg->max_lag_sec * NS_PER_SEC;

	uint64_t max_threads = cpu_thread_limit();

	if (prm->threads > max_threads) {
		log_error("config item '%s': the config needs %" PRIu64 " threads, "
				"more than this host can start (at most %" PRIu64 ": "
				"kernel.threads-max and ulimit -u, less a margin)",
				prm->threads_item, prm->threads, max_threads);
		return EXIT_USAGE;
	}

	return 0;
}

// The config's device names into list, and how to open them into *o.
// Returns how many.
static uint32_t
device_list(const harness* h, const char** list, dev_opts* o)
{
	const shared_cfg* c = h->params.cfg;

	*o = (dev_opts){
		.file_size = (uint64_t)c->file_size_mbytes * 1024 * 1024,
		.dsync = ! c->disable_odsync,
		.scheduler = c->scheduler_mode
	};

	for (uint32_t i = 0; i < c->devices.n; i++) {
		list[i] = c->devices.names[i];
	}

	return c->devices.n;
}

// Everything up to the start of the workers. Returns -1 to go on and run,
// else the exit status. Between steps, a SIGINT or SIGTERM that arrived
// ends the run here (program_setup_stop), and a failed log write too.
static int
run_program(harness* h, const cfg_source* src)
{
	const harness_program* p = h->program;
	harness_params* prm = &h->params;
	int rv;

	strbuf sb;

	// The banner first: a config refused is a log of its own.
	sb_init_grow(&sb);
	ll_banner(&sb, p->test_kind);

	if (! log_sb(&sb, "the banner")) {
		return EXIT_SETUP;
	}

	if ((rv = load_config(h, src)) != 0) {
		return rv;
	}

	sb_init_grow(&sb);
	p->echo(h, &sb);

	if (! log_sb(&sb, "the configuration")) {
		return EXIT_SETUP;
	}

	io_set_error_limit(prm->cfg->io_error_limit);
	h->mode = strcmp(prm->cfg->rate_process, "poisson") == 0 ? PROCESS_POISSON :
			strcmp(prm->cfg->rate_process, "spread") == 0 ? PROCESS_SPREAD :
			PROCESS_ALIGNED;
	h->st.us = prm->cfg->us_histograms;
	h->st.duration_sec = prm->cfg->test_duration_sec;
	report_init(&h->rep, prm->cfg->us_histograms ? HIST_US : HIST_MS);

	if ((rv = program_setup_stop(&h->life)) != 0) {
		return rv;
	}

	sb_init_grow(&sb);

	if ((rv = guarded_setup_devices(h, &sb)) != 0) {
		sb_free(&sb);
		return rv;
	}

	if (! log_sb(&sb, "the device lines")) {
		devset_undo(&h->devs);
		return EXIT_SETUP;
	}

	p->setup_run(h);

	if (h->setup_failed) {
		devset_undo(&h->devs);
		return EXIT_SETUP;
	}

	sb_init_grow(&sb);
	report_names(&h->rep, &sb);

	if (! log_sb(&sb, "the histogram names")) {
		devset_undo(&h->devs);
		return EXIT_SETUP;
	}

	return -1;
}

// setup_devices under the setup guard (program_setup): a setup I/O
// outstanding longer than the run's hung-I/O limit, or a SIGINT / SIGTERM
// while one is, ends the program. Returns 0 or the exit status.
static int
guarded_setup_devices(harness* h, strbuf* sb)
{
	h->life.limit_ns = watchdog_limit_ns(h);

	if (h->max_lag_ns != 0) {
		snprintf(h->guard_limit, sizeof(h->guard_limit), "max-lag-sec (%"
				PRIu32 ")", h->params.cfg->max_lag_sec);
	}
	else {
		snprintf(h->guard_limit, sizeof(h->guard_limit), "%" PRIu64 " sec",
				h->life.limit_ns / NS_PER_SEC);
	}

	struct setup_ctx ctx = { .h = h, .sb = sb };

	return program_setup(&h->life, setup_devices, &ctx);
}

// Open every device (nothing is written before all are checked) and let
// the program check each; append the device lines and the identity block
// to sb. The devices are committed when the run starts (run), so that
// until then a stop undoes everything. --check: claim and preview the
// devices instead (writing nothing), and no start time. Returns 0, or -1
// having printed the ERROR line and released the devices.
static int
setup_devices(void* pv)
{
	struct setup_ctx* ctx = pv;
	harness* h = ctx->h;
	strbuf* sb = ctx->sb;
	const char* list[ACT_MAX_DEVICES];
	dev_opts o;
	uint32_t n = device_list(h, list, &o);

	if (h->checking ? devset_claim(&h->devs, list, n, &o) != 0 ||
			devset_preview(&h->devs, &o) != 0 :
			devset_open(&h->devs, list, n, &o) != 0) {
		return -1;
	}

	for (uint32_t i = 0; i < h->devs.n; i++) {
		if (h->program->setup_device(h, i, sb) != 0) {
			program_release(&h->life);
			return -1;
		}
	}

	sb_printf(sb, "\n");

	// The drives' health: each one's source and (a run) its start sample,
	// after its identity (--check sends no Get Log Page).
	h->health = health_run_open(&h->devs, h->params.cfg->health_interval_sec,
			! h->checking);

	if (h->checking) {
		devset_identity_lines(&h->devs, sb, health_run_identity, h->health);
		sb_printf(sb, "\n");
	}
	else {
		devset_identity(&h->devs, sb, health_run_identity, h->health);
	}

	return 0;
}

// --check stopped by a signal (it has no log to end).
static void
check_signalled(int sig)
{
	log_error("stopped by signal %s - nothing was written",
			run_signal_name(sig));
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

	size_t bytes = (n == 0 ? 1 : n) * sizeof(worker);

	h->workers = aligned_alloc(WORKER_ALIGN, bytes);

	if (h->workers == NULL) {
		log_error("out of memory for %" PRIu32 " threads", n);
		return -1;
	}

	memset(h->workers, 0, bytes);

	for (uint32_t k = 0; k < h->n_kinds; k++) {
		const harness_kind* kind = &h->kinds[k];

		if (kind->pacing != HARNESS_PACE_NONE && kind->rate <= 0.0) {
			continue;
		}

		uint32_t n_kind = kind->per_device ? h->devs.n : kind->n_threads;
		uint32_t per_step = kind->ops_per_step == 0 ? 1 : kind->ops_per_step;
		// Every thread of a kind gets the same real-valued rate, rate /
		// threads (2000/s on 160 threads: 12.5/s each), in every
		// rate-process: with aligned timing all share one period for the
		// whole run - an uneven split (13/s and 12/s) drifts the groups
		// apart within a second and the drive sees two half-sized bursts
		// instead of one - and all together do exactly the configured rate.
		double ops = kind->rate / n_kind;

		for (uint32_t i = 0; i < n_kind; i++) {
			if (kind->pacing != HARNESS_PACE_NONE && ops <= 0.0) {
				continue;
			}

			harness_worker* w = &h->workers[h->n_workers].pub;

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
		worker* w = &h->workers[i];
		int rv = run_thread_start(worker_main, w);

		if (rv != 0) {
			log_error("can't start %s thread: %s (errno %d)", w->pub.kind->name,
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
		free(h->workers[i].pub.buf);
	}

	free(h->workers);
	h->workers = NULL;
	h->n_workers = 0;
}

//==========================================================
// The run.
//

// Start the workers, print a report every interval until the end, a stop
// or a signal, then give the workers time to finish their I/Os. Returns the
// exit status; *joined says whether every worker finished (if not, memory
// they use must not be freed).
static int
run(harness* h, bool* joined)
{
	int rv;

	if (setup_workers(h) != 0) {
		devset_undo(&h->devs);
		return EXIT_SETUP;
	}

	// The last moment a stop undoes the setup; then files shrink and the
	// scheduler is set (devset_commit), and the run begins.
	if ((rv = program_commit(&h->life)) != 0) {
		return rv;
	}

	cpu_sample(&h->cpu_start);
	h->start_ns = clock_ns();

	h->end_ns = h->start_ns + (uint64_t)h->params.cfg->test_duration_sec *
			NS_PER_SEC;

	uint32_t n_paced = 0;

	for (uint32_t i = 0; i < h->n_workers; i++) {
		worker_mark(&h->workers[i], h->start_ns);
		n_paced += worker_paced(&h->workers[i]) ? 1 : 0;
	}

	atomic_store(&h->n_owing, n_paced);

	if ((rv = watchdog_start(h)) != 0) {
		log_error("can't start the watchdog thread: %s", strerror(errno));
		return EXIT_SETUP;
	}

	if ((rv = health_run_start(h->health, h->start_ns, health_may_print,
			h)) != 0) {
		log_warn("can't start the health thread: %s (errno %d) - the log "
				"has no health samples", strerror(rv), rv);
	}

	if (start_workers(h) != 0) {
		run_stop(EXIT_SETUP);
		rv = EXIT_SETUP;
	}
	else {
		rv = run_reports(h->start_ns, h->params.cfg->test_duration_sec,
				h->params.cfg->report_interval_sec, END_SETTLE_NS, settled_cb,
				report_cb, h);
	}

	// The end sample (a normal end) is taken before the workers' drain;
	// a stopped run takes none.
	health_run_end(h->health, rv == EXIT_OK);

	// The workers finish their I/Os in flight - while the watchdog still
	// watches them - in the drain time from the end of the test time (the
	// last report's wait for them was part of it).
	// (Stopped by a signal: the person waiting gets the short wait.)
	uint64_t drain = atomic_load(&h->hung) ? DRAIN_HUNG_NS :
			rv >= EXIT_SIGNAL ? DRAIN_NO_LAG_NS :
			h->max_lag_ns != 0 ? h->max_lag_ns + DRAIN_EXTRA_NS :
			DRAIN_NO_LAG_NS;
	uint64_t now = clock_ns();
	uint64_t since_end = now > h->end_ns ? now - h->end_ns : 0;

	drain = drain > since_end + DRAIN_MIN_NS ? drain - since_end :
			DRAIN_MIN_NS;
	*joined = run_join(drain);

	watchdog_stop(h);

	if (! *joined) {
		// Whatever is still in flight has been outstanding since before
		// the end: a hung drive, even if it is below the watchdog's limit.
		watchdog_report_hung(h, 0, true);
	}

	io_flush_suppressed();

	if (log_stderr_is_tty()) {
		fputc('\n', stderr);
	}

	if (atomic_load(&h->hung) && rv == EXIT_OK) {
		rv = EXIT_LAG;
	}

	return rv;
}

//==========================================================
// Callbacks.
//

// A SIGINT or SIGTERM taken during setup (program.h), the devices undone:
// the log's last line.
static void
signal_stopped(int sig)
{
	run_log_stopped(sig, 0);
}

// The last report may be taken: every paced worker has done the requests
// due before the end (or was stopped).
static bool
settled_cb(void* udata)
{
	harness* h = udata;

	return atomic_load(&h->n_owing) == 0;
}

static void
report_cb(uint32_t report_sec, void* udata)
{
	harness* h = udata;
	strbuf sb;

	if (report_sec == h->params.cfg->test_duration_sec) {
		log_owed(h);
	}

	sb_init_grow(&sb);
	report_format(&h->rep, report_sec, &sb);
	log_sb(&sb, "the report");
	health_run_report(h->health, report_sec,
			report_sec == h->params.cfg->test_duration_sec);
	status_show(&h->st, report_sec);
}

// A health sample may be printed (asked under the log's lock): no stop
// line has been, nor is about to be - every stop sets the stop code (or,
// the watchdog, hung) before its line.
static bool
health_may_print(void* udata)
{
	harness* h = udata;
	int code = run_stop_code();

	return (code == -1 || code == EXIT_OK) && ! atomic_load(&h->hung);
}

//==========================================================
// Local helpers.
//

// Before the last report, when the workers had their time to catch up:
// what the host still owed - the requests due before the end that threads
// behind schedule had not done - one WARNING line per thread kind, so that
// a short last report is never silent (docs/log-format.md, "The last report").
// A worker whose thread is not runnable - asleep in its I/O - waits for
// the drive, not the host: its latency and the watchdog tell about it. (A
// thread the host starves is runnable, wherever it was preempted - often
// inside an I/O.)
static void
log_owed(harness* h)
{
	for (uint32_t k = 0; k < h->n_kinds; k++) {
		const harness_kind* kind = &h->kinds[k];
		uint32_t per_step = kind->ops_per_step == 0 ? 1 : kind->ops_per_step;
		uint32_t n_behind = 0;
		uint64_t owed = 0;
		uint64_t most_ns = 0;

		for (uint32_t i = 0; i < h->n_workers; i++) {
			worker* wk = &h->workers[i];

			if (wk->pub.kind != kind || ! worker_paced(wk) ||
					atomic_load(&wk->finished) || ! worker_runnable(wk)) {
				continue;
			}

			uint64_t due = atomic_load_explicit(&wk->next_due_ns,
					memory_order_relaxed);

			if (due == 0 || due >= h->end_ns) {
				continue; // has not begun, or is done
			}

			uint64_t behind = h->end_ns - due;
			double steps = ceil((double)behind * wk->pub.rate / NS_PER_SEC);

			n_behind++;
			owed += (steps < 1.0 ? 1 : (uint64_t)steps) * per_step;
			most_ns = behind > most_ns ? behind : most_ns;
		}

		if (n_behind != 0) {
			char msg[LL_MSG_LEN];

			log_out(LOG_WARNING "%s\n", ll_fell_behind(msg, sizeof(msg),
					kind->name, owed, h->params.cfg->test_duration_sec,
					n_behind, (double)most_ns / NS_PER_SEC));
		}
	}
}

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

