/*
 * harness.c - the run harness of act_storage and act_index.
 */

#include "common/harness.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "common/cli.h"
#include "common/clock.h"
#include "common/cpu.h"
#include "common/guard.h"
#include "common/io.h"
#include "common/log.h"
#include "common/rate.h"
#include "common/run.h"
#include "common/status.h"
#include "common/version.h"

//==========================================================
// Typedefs & constants.
//

#define MAX_KINDS 8

// Worker threads: never more than this, nor more than the host allows
// less a margin for the rest of the system.
#define HOST_THREADS_MAX 100000
#define HOST_THREADS_MARGIN 256

// How long an I/O may be outstanding with max-lag-sec 0 before it is a hung
// drive; how long the workers get to finish their I/Os when the test time
// is up (with max-lag-sec, max-lag-sec + 1 s); how often the watchdog looks.
#define HUNG_NO_LAG_NS (10 * NS_PER_SEC)
#define DRAIN_NO_LAG_NS (3 * NS_PER_SEC)
#define DRAIN_EXTRA_NS (1 * NS_PER_SEC)
#define DRAIN_HUNG_NS (1 * NS_PER_SEC)
#define WATCH_STEP_NS (100 * NS_PER_MS)

// A worker that spent at least this share of its time in I/O since it was
// last on schedule fell behind because of the drive.
#define DRIVE_BOUND_SHARE 0.5

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
	cpu_times cpu_start;

	harness_kind kinds[MAX_KINDS];
	uint32_t n_kinds;
	harness_worker* workers;
	uint32_t n_workers;

	uint64_t start_ns;         // time 0 of every schedule and report
	uint64_t max_lag_ns;
	rate_mode mode;            // of the HARNESS_PACE_CLIENT kinds

	char guard_limit[64];      // the setup guard's "more than ..."

	pthread_t watchdog;
	bool watchdog_started;
	atomic_bool watchdog_stop;
	atomic_bool hung;          // the watchdog found a hung I/O
};

//==========================================================
// Forward declarations.
//

static int run_program(harness* h, const char* config_path);
static int guarded_setup_devices(harness* h);
static void guard_stopped(void* udata, int sig, int exit_status)
		__attribute__((noreturn));
static int setup_devices(harness* h);
static int setup_workers(harness* h);
static int start_workers(harness* h);
static int run(harness* h, bool* joined);
static void free_workers(harness* h);
static void* worker_main(void* pv);
static void lag_stop(harness_worker* w, uint64_t lag_ns);
static void* watchdog_main(void* pv);
static uint64_t hung_limit_ns(const harness* h);
static void report_hung(harness* h, uint64_t limit_ns, bool run_over);
static int setup_signal(harness* h);
static void log_failed(int err);
static void report_cb(uint32_t report_sec, void* udata);
static bool log_sb(strbuf* sb, const char* what);
static uint32_t n_cpus(void);
static uint64_t host_thread_limit(void);

//==========================================================
// Public API.
//

int
harness_main(int argc, char* argv[], const harness_program* p, void* prog)
{
	// First of all: a Ctrl-C during setup waits to be taken between setup
	// steps (which then undo what they did), and the log has a stdout.
	run_block_signals();

	char err[256];

	if (log_init(err, sizeof(err)) != 0) {
		fprintf(stderr, "ERROR: %s\n", err);
		return EXIT_LOG;
	}

	log_on_failure(log_failed);

	const char* config_path = NULL;
	int rv = cli_args(argc, argv, &(cli_program){ .name = p->name,
			.about = p->about, .table = p->table }, &config_path);

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
	status_add_rate(&h->st, label, hg, configured);
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
	harness_inflight* f = &w->inflight;

	atomic_store_explicit(&f->device, d->name, memory_order_relaxed);
	atomic_store_explicit(&f->op, r->op, memory_order_relaxed);
	atomic_store_explicit(&f->size, r->size, memory_order_relaxed);
	atomic_store_explicit(&f->off, r->off, memory_order_relaxed);

	uint64_t start = clock_ns();

	atomic_store_explicit(&f->start_ns, start, memory_order_release);

	int err = r->write ? io_write(d->fd, w->buf, r->size, r->off) :
			io_read(d->fd, w->buf, r->size, r->off);
	uint64_t end = clock_ns();

	atomic_store_explicit(&f->start_ns, 0, memory_order_release);

	w->last = (harness_last_io){
		.device = d->name,
		.op = r->op,
		.size = r->size,
		.off = r->off,
		.took_ns = end - start
	};

	w->ev.io_ns += end - start;
	w->ev.n_io++;

	if (end - start > w->ev.longest.took_ns) {
		w->ev.longest = w->last;
	}

	if (err != 0) {
		uint64_t n;

		if (io_failed(d->name, r->op, r->off, r->size, err, &n) &&
				run_stop(EXIT_IO)) {
			log_error("stopping: %" PRIu64 " I/O errors, more than "
					"io-error-limit %" PRIu32, n,
					w->h->params.cfg->io_error_limit);
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

// Everything up to the start of the workers. Returns -1 to go on and run,
// else the exit status. Between steps, a SIGINT or SIGTERM that arrived
// ends the run here (setup_signal), and a failed log write too.
static int
run_program(harness* h, const char* config_path)
{
	const harness_program* p = h->program;
	harness_params* prm = &h->params;
	char err[1024];
	int rv;

	log_out("\nACT version %s\n%s\n%s\n\n", ACT_VERSION, p->test_kind,
			ACT_NOTICE);

	if (p->load(h, config_path, n_cpus(), prm, err, sizeof(err)) != 0) {
		log_error("%s", err);
		return EXIT_USAGE;
	}

	uint64_t max_threads = host_thread_limit();

	if (prm->threads > max_threads) {
		log_error("config item '%s': the config needs %" PRIu64 " threads, "
				"more than this host can start (at most %" PRIu64 ": "
				"kernel.threads-max and ulimit -u, less a margin)",
				prm->threads_item, prm->threads, max_threads);
		return EXIT_USAGE;
	}

	strbuf sb;

	sb_init_grow(&sb);
	p->echo(h, &sb);

	if (! log_sb(&sb, "the configuration")) {
		return EXIT_SETUP;
	}

	io_set_error_limit(prm->cfg->io_error_limit);
	h->mode = strcmp(prm->cfg->rate_process, "poisson") == 0 ? PROCESS_POISSON :
			strcmp(prm->cfg->rate_process, "spread") == 0 ? PROCESS_SPREAD :
			PROCESS_ALIGNED;
	h->max_lag_ns = (uint64_t)prm->cfg->max_lag_sec * NS_PER_SEC;
	h->st.us = prm->cfg->us_histograms;
	h->st.duration_sec = prm->cfg->test_duration_sec;
	report_init(&h->rep, prm->cfg->us_histograms ? HIST_US : HIST_MS);

	if ((rv = setup_signal(h)) != 0 || (rv = guarded_setup_devices(h)) != 0) {
		return rv;
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

// setup_devices under the setup guard (guard.h): a setup I/O outstanding
// longer than the run's hung-I/O limit, or a SIGINT / SIGTERM while one
// is, ends the program (guard_stopped). Returns 0 or the exit status.
static int
guarded_setup_devices(harness* h)
{
	uint64_t limit = hung_limit_ns(h);

	if (h->max_lag_ns != 0) {
		snprintf(h->guard_limit, sizeof(h->guard_limit), "max-lag-sec (%"
				PRIu32 ")", h->params.cfg->max_lag_sec);
	}
	else {
		snprintf(h->guard_limit, sizeof(h->guard_limit), "%" PRIu64 " sec",
				limit / NS_PER_SEC);
	}

	int rv = guard_start(&(guard_cfg){ .limit_ns = limit,
			.limit_text = h->guard_limit, .stopped_text = "test stopped",
			.stop = guard_stopped, .udata = h });

	if (rv != 0) {
		log_error("can't start the setup watchdog thread: %s (errno %d)",
				strerror(rv), rv);
		return EXIT_SETUP;
	}

	rv = setup_devices(h);
	guard_stop();

	return rv == 0 ? 0 : EXIT_SETUP;
}

// The setup guard's end of a hung setup (monitor thread; the main thread is
// in the I/O): undo the devices, end the log, exit.
static void
guard_stopped(void* udata, int sig, int exit_status)
{
	harness* h = udata;

	devset_undo(&h->devs);

	if (sig != 0) {
		log_final("stopped by signal %s after 0 sec\n", run_signal_name(sig));
	}

	_exit(exit_status);
}

// Open every device (nothing is written before all are checked) and let
// the program check each. Prints the device lines. The devices are
// committed when the run starts (run), so that until then a stop undoes
// everything.
static int
setup_devices(harness* h)
{
	const harness_params* prm = &h->params;
	const cfg_names* names = &prm->cfg->devices;
	const char* list[ACT_MAX_DEVICES];
	dev_opts o = {
		.file_size = (uint64_t)prm->cfg->file_size_mbytes * 1024 * 1024,
		.dsync = ! prm->cfg->disable_odsync,
		.scheduler = prm->cfg->scheduler_mode
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

	sb_printf(&sb, "\n");
	devset_identity(&h->devs, &sb);

	if (! log_sb(&sb, "the device lines")) {
		devset_undo(&h->devs);
		return -1;
	}

	return 0;
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
	if ((rv = setup_signal(h)) != 0) {
		return rv;
	}

	if (devset_commit(&h->devs) != 0) {
		return EXIT_SETUP;
	}

	cpu_sample(&h->cpu_start);
	h->start_ns = clock_ns();

	for (uint32_t i = 0; i < h->n_workers; i++) {
		h->workers[i].ev.mark_ns = h->start_ns;
	}

	if (pthread_create(&h->watchdog, NULL, watchdog_main, h) != 0) {
		log_error("can't start the watchdog thread: %s", strerror(errno));
		return EXIT_SETUP;
	}

	h->watchdog_started = true;

	if (start_workers(h) != 0) {
		run_stop(EXIT_SETUP);
		rv = EXIT_SETUP;
	}
	else {
		rv = run_reports(h->start_ns, h->params.cfg->test_duration_sec,
				h->params.cfg->report_interval_sec, report_cb, h);
	}

	// The workers finish their I/Os in flight - while the watchdog still
	// watches them.
	// (Stopped by a signal: the person waiting gets the short wait.)
	uint64_t drain = atomic_load(&h->hung) ? DRAIN_HUNG_NS :
			rv >= EXIT_SIGNAL ? DRAIN_NO_LAG_NS :
			h->max_lag_ns != 0 ? h->max_lag_ns + DRAIN_EXTRA_NS :
			DRAIN_NO_LAG_NS;

	*joined = run_join(drain);

	atomic_store(&h->watchdog_stop, true);
	pthread_join(h->watchdog, NULL);

	if (! *joined) {
		// Whatever is still in flight has been outstanding since before
		// the end: a hung drive, even if it is below the watchdog's limit.
		report_hung(h, 0, true);
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

// The worker skeleton: pace the kind's steps on their schedule and stop
// the run when the thread falls more than max-lag-sec behind.
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

		if (lag == 0) {
			// On schedule: the evidence for a later lag starts here.
			w->ev.mark_ns = clock_ns();
			w->ev.mark_io_ns = w->ev.io_ns;
			w->ev.mark_n_io = w->ev.n_io;
			w->ev.longest.took_ns = 0;
		}
		else if (h->max_lag_ns != 0 && lag > h->max_lag_ns && run_going()) {
			lag_stop(w, lag);
			break;
		}
	}

	return NULL;
}

// A worker is lag_ns behind schedule, more than max-lag-sec: unless the run
// has already been stopped, say why - from the evidence of its own I/Os -
// and stop it with EXIT_LAG (docs/beyond.md, "Telling a stalled drive from
// too few threads").
static void
lag_stop(harness_worker* w, uint64_t lag_ns)
{
	const harness_kind* k = w->kind;
	const harness_last_io* last = &w->last;
	const harness_evidence* ev = &w->ev;
	uint64_t max_lag_ns = w->h->max_lag_ns;
	uint32_t max_lag_sec = w->h->params.cfg->max_lag_sec;

	if (! run_stop(EXIT_LAG)) {
		return; // the run was already stopped, and said why
	}

	uint64_t now = clock_ns();
	double window = (double)(now - ev->mark_ns) / NS_PER_SEC;
	double io = (double)(ev->io_ns - ev->mark_io_ns) / NS_PER_SEC;
	uint64_t n_io = ev->n_io - ev->mark_n_io;
	double share = window > 0.0 ? io / window : 0.0;
	const harness_last_io* lo = &ev->longest;

	if (last->took_ns > max_lag_ns) {
		log_error("device %s stalled: a %" PRIu32 "-byte %s at offset %"
				PRIu64 " took %.3f sec, more than max-lag-sec (%" PRIu32 ") - "
				"the drive, not the thread count, is the limit", last->device,
				last->size, last->op, last->off,
				(double)last->took_ns / NS_PER_SEC, max_lag_sec);
		log_error("drive(s) can't keep up - test stopped");
	}
	else if (share >= DRIVE_BOUND_SHARE && n_io != 0) {
		log_error("%s can't keep up: %.3f sec behind schedule, more than "
				"max-lag-sec (%" PRIu32 ")", k->name, (double)lag_ns / NS_PER_SEC,
				max_lag_sec);
		log_error("the drive is the limit: in the %.1f sec since this thread "
				"was last on schedule its %" PRIu64 " I/Os took %.1f sec (%.0f%% "
				"of the time, average %.3f sec; longest %.3f sec, a %" PRIu32
				"-byte %s at offset %" PRIu64 " on %s) - drive(s) can't keep up - "
				"test stopped", window, n_io, io, 100.0 * share,
				io / (double)n_io, (double)lo->took_ns / NS_PER_SEC, lo->size,
				lo->op, lo->off, lo->device);
	}
	else {
		cpu_times cpu_now;
		double busy = cpu_sample(&cpu_now) ?
				cpu_busy_pct(&w->h->cpu_start, &cpu_now) : -1.0;
		char cpus[64] = "";

		if (busy >= 0.0) {
			snprintf(cpus, sizeof(cpus), "; the CPUs were %.0f%% busy", busy);
		}

		log_error("%s can't keep up: %.3f sec behind schedule, more than "
				"max-lag-sec (%" PRIu32 ")", k->name, (double)lag_ns / NS_PER_SEC,
				max_lag_sec);
		log_error("%s (in the %.1f sec since this thread was last on "
				"schedule its I/Os took only %.0f%% of the time%s)", k->lag_advice,
				window, 100.0 * share, cpus);
	}
}

//==========================================================
// The hung-I/O watchdog.
//

static void*
watchdog_main(void* pv)
{
	harness* h = pv;
	uint64_t limit = hung_limit_ns(h);
	uint64_t step = limit / 4 < WATCH_STEP_NS ? limit / 4 : WATCH_STEP_NS;

	while (! atomic_load(&h->watchdog_stop)) {
		report_hung(h, limit, false);
		clock_sleep_until(clock_ns() + step);
	}

	return NULL;
}

// max-lag-sec, or HUNG_NO_LAG_NS without it.
static uint64_t
hung_limit_ns(const harness* h)
{
	return h->max_lag_ns != 0 ? h->max_lag_ns : HUNG_NO_LAG_NS;
}

// Report every I/O in flight for longer than limit_ns (each once), and stop
// the run with EXIT_LAG. run_over: the run has ended and its workers had
// their time to finish.
static void
report_hung(harness* h, uint64_t limit_ns, bool run_over)
{
	for (uint32_t i = 0; i < h->n_workers; i++) {
		harness_inflight* f = &h->workers[i].inflight;
		uint64_t start = atomic_load_explicit(&f->start_ns,
				memory_order_acquire);
		uint64_t now = clock_ns(); // after start: never before it

		if (start == 0 || now < start || now - start <= limit_ns ||
				atomic_load(&f->reported)) {
			continue;
		}

		const char* device = atomic_load_explicit(&f->device,
				memory_order_relaxed);
		const char* op = atomic_load_explicit(&f->op, memory_order_relaxed);
		uint32_t size = (uint32_t)atomic_load_explicit(&f->size,
				memory_order_relaxed);
		uint64_t off = atomic_load_explicit(&f->off, memory_order_relaxed);

		// Still the same I/O? (It may have ended while we read.)
		if (atomic_load_explicit(&f->start_ns, memory_order_acquire) !=
				start) {
			continue;
		}

		atomic_store(&f->reported, true);
		atomic_store(&h->hung, true);

		double waited = (double)(now - start) / NS_PER_SEC;

		if (run_over) {
			log_error("device %s is not responding: a %" PRIu32 "-byte %s at "
					"offset %" PRIu64 " has not completed after %.3f sec, still "
					"outstanding when the run ended", device, size, op, off,
					waited);
		}
		else if (h->max_lag_ns != 0) {
			log_error("device %s is not responding: a %" PRIu32 "-byte %s at "
					"offset %" PRIu64 " has not completed after %.3f sec, more "
					"than max-lag-sec (%" PRIu32 ") - test stopped", device, size,
					op, off, waited, h->params.cfg->max_lag_sec);
		}
		else {
			log_error("device %s is not responding: a %" PRIu32 "-byte %s at "
					"offset %" PRIu64 " has not completed after %.3f sec, more "
					"than %" PRIu64 " sec - test stopped", device, size, op, off,
					waited, HUNG_NO_LAG_NS / NS_PER_SEC);
		}

		run_stop(EXIT_LAG);
	}
}

//==========================================================
// Stops in setup.
//

// A SIGINT or SIGTERM taken between setup steps: undo the devices (files
// created or grown go back as they were), end the log with the stop line.
// Returns 128 + the signal, or 0 when none arrived. A failed log write
// ends the setup the same way (EXIT_LOG).
static int
setup_signal(harness* h)
{
	int sig = run_pending_signal();

	if (sig == 0) {
		if (log_failure() == 0) {
			return 0;
		}

		devset_undo(&h->devs);

		return EXIT_LOG;
	}

	devset_undo(&h->devs);
	run_stop(EXIT_SIGNAL + sig);
	log_final("stopped by signal %s after 0 sec\n", run_signal_name(sig));

	return EXIT_SIGNAL + sig;
}

// The log's first failed write (log_on_failure): stop the run.
static void
log_failed(int err)
{
	(void)err; // log.c has said which error on stderr

	run_stop(EXIT_LOG);
}

static void
report_cb(uint32_t report_sec, void* udata)
{
	harness* h = udata;
	strbuf sb;

	sb_init_grow(&sb);
	report_format(&h->rep, report_sec, &sb);
	log_sb(&sb, "the report");
	status_show(&h->st, report_sec);
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

// How many worker threads this host can start: kernel.threads-max and the
// soft RLIMIT_NPROC, less a margin for everything else that runs.
static uint64_t
host_thread_limit(void)
{
	uint64_t limit = HOST_THREADS_MAX;
	FILE* f = fopen("/proc/sys/kernel/threads-max", "r");
	unsigned long long v;

	if (f != NULL) {
		if (fscanf(f, "%llu", &v) == 1 && v < limit) {
			limit = v;
		}

		fclose(f);
	}

	struct rlimit rl;

	if (getrlimit(RLIMIT_NPROC, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
			(uint64_t)rl.rlim_cur < limit) {
		limit = (uint64_t)rl.rlim_cur;
	}

	return limit > 2 * HOST_THREADS_MARGIN ? limit - HOST_THREADS_MARGIN :
			limit / 2;
}
