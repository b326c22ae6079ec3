/*
 * worker.c - the worker skeleton of a run: each worker thread paces its
 * kind's steps on an absolute schedule (rate.h), does each I/O of a step
 * (harness_io: latency recorded, failure counted, the I/O in flight
 * published for the watchdog), keeps the evidence of what its I/Os cost
 * since it was last on schedule, and - more than max-lag-sec behind -
 * stops the run saying, from that evidence, whether the drive or the host
 * is the limit (docs/act_storage.md, "Threads and pacing"; docs/beyond.md,
 * "Telling a stalled drive from too few threads").
 */

#include "common/harness_priv.h"

#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/cpu.h"
#include "common/hist.h"
#include "common/io.h"
#include "common/log.h"
#include "common/loglines.h"
#include "common/rate.h"
#include "common/run.h"

//==========================================================
// Typedefs & constants.
//

// A worker that spent at least this share of its time in I/O since it was
// last on schedule fell behind because of the drive.
#define DRIVE_BOUND_SHARE 0.5

// A worker_io* as the lines name it (loglines.h).
#define IO_NAMED(w) { .device = (w)->device, .op = (w)->op, \
		.size = (w)->size, .off = (w)->off }

//==========================================================
// Forward declarations.
//

static void lag_stop(worker* wk, uint64_t lag_ns);
static void finish(worker* wk);

//==========================================================
// Public API.
//

int
harness_io(harness_worker* w, const harness_req* r)
{
	dev* d = harness_dev(w->h, r->dev_ix);
	worker* wk = (worker*)w;
	worker_inflight* f = &wk->inflight;

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

	wk->last = (worker_io){
		.device = d->name,
		.op = r->op,
		.size = r->size,
		.off = r->off,
		.took_ns = end - start
	};

	wk->ev.io_ns += end - start;
	wk->ev.n_io++;

	if (end - start > wk->ev.longest.took_ns) {
		wk->ev.longest = wk->last;
	}

	if (err != 0) {
		uint64_t n;

		if (io_failed(d->name, r->op, r->off, r->size, err, &n) &&
				run_stop(EXIT_IO)) {
			char msg[LL_MSG_LEN];

			log_error("%s", ll_io_errors(msg, sizeof(msg), n,
					w->h->params.cfg->io_error_limit));
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

// The worker skeleton: pace the kind's steps on their schedule and stop
// the run when the thread falls more than max-lag-sec behind.
void*
worker_main(void* pv)
{
	worker* wk = pv;
	harness_worker* w = &wk->pub;
	const harness_kind* k = w->kind;
	harness* h = w->h;

	atomic_store(&wk->tid, (int)gettid());

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

	// The schedule ends at test-duration-sec: every request due before it
	// is done, even when the thread is behind at the end - the last report
	// waits for them (docs/log-format.md, "The last report").
	rate_set_end(&sched, h->end_ns);
	rate_wait_start(&sched);

	while (run_going() && ! rate_ended(&sched)) {
		w->due_ns = rate_next_due_ns(&sched);
		atomic_store_explicit(&wk->next_due_ns, w->due_ns,
				memory_order_relaxed);
		k->step(w);

		uint64_t lag = rate_done_and_wait(&sched);

		if (lag == 0) {
			// On schedule at the next due time, which it slept to: the
			// evidence for a later lag starts there (no clock read).
			worker_mark(wk, rate_next_due_ns(&sched));
		}
		else if (h->max_lag_ns != 0 && lag > h->max_lag_ns && run_going()) {
			lag_stop(wk, lag);
			break;
		}
	}

	finish(wk);

	return NULL;
}

bool
worker_paced(const worker* w)
{
	return w->pub.kind->pacing != HARNESS_PACE_NONE;
}

bool
worker_runnable(const worker* w)
{
	int tid = atomic_load(&w->tid);
	char path[64];
	char stat[512];

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);

	FILE* f = tid > 0 ? fopen(path, "r") : NULL;

	if (f == NULL) {
		return true;
	}

	size_t n = fread(stat, 1, sizeof(stat) - 1, f);

	fclose(f);
	stat[n] = '\0';

	// "tid (comm) S ...": the state follows the last ')'.
	const char* paren = strrchr(stat, ')');

	return paren == NULL || paren[1] != ' ' || paren[2] == 'R';
}

void
worker_mark(worker* wk, uint64_t now_ns)
{
	wk->ev.mark_ns = now_ns;
	wk->ev.mark_io_ns = wk->ev.io_ns;
	wk->ev.mark_n_io = wk->ev.n_io;
	wk->ev.longest.took_ns = 0;
}

//==========================================================
// Local helpers.
//

// A paced worker is done with its schedule (or the run was stopped): the
// last one to finish wakes the main thread, which waits for them before
// the last report.
static void
finish(worker* wk)
{
	harness* h = wk->pub.h;

	atomic_store(&wk->finished, true);

	if (atomic_fetch_sub(&h->n_owing, 1) == 1) {
		run_wake_main();
	}
}

// A worker is lag_ns behind schedule, more than max-lag-sec: unless the run
// has already been stopped, say why - from the evidence of its own I/Os -
// and stop it with EXIT_LAG (docs/beyond.md, "Telling a stalled drive from
// too few threads").
static void
lag_stop(worker* wk, uint64_t lag_ns)
{
	const harness* h = wk->pub.h;
	const harness_kind* k = wk->pub.kind;
	const worker_io* last = &wk->last;
	const worker_evidence* ev = &wk->ev;
	uint64_t max_lag_ns = h->max_lag_ns;
	uint32_t max_lag_sec = h->params.cfg->max_lag_sec;

	if (! run_stop(EXIT_LAG)) {
		return; // the run was already stopped, and said why
	}

	uint64_t now = clock_ns();
	double window = (double)(now - ev->mark_ns) / NS_PER_SEC;
	double io = (double)(ev->io_ns - ev->mark_io_ns) / NS_PER_SEC;
	uint64_t n_io = ev->n_io - ev->mark_n_io;
	double share = window > 0.0 ? io / window : 0.0;
	const worker_io* lo = &ev->longest;
	char msg[LL_MSG_LEN];

	if (last->took_ns > max_lag_ns) {
		log_error("%s", ll_stall(msg, sizeof(msg), &(ll_io)IO_NAMED(last),
				(double)last->took_ns / NS_PER_SEC, max_lag_sec));
		log_error("%s", ll_drive_limit_end(msg, sizeof(msg)));
	}
	else if (share >= DRIVE_BOUND_SHARE && n_io != 0) {
		log_error("%s", ll_lag(msg, sizeof(msg), k->name,
				(double)lag_ns / NS_PER_SEC, max_lag_sec));
		log_error("%s", ll_drive_limit(msg, sizeof(msg), window, n_io, io,
				&(ll_io)IO_NAMED(lo), (double)lo->took_ns / NS_PER_SEC));
	}
	else {
		cpu_times cpu_now;
		double busy = cpu_sample(&cpu_now) ?
				cpu_busy_pct(&h->cpu_start, &cpu_now) : -1.0;

		log_error("%s", ll_lag(msg, sizeof(msg), k->name,
				(double)lag_ns / NS_PER_SEC, max_lag_sec));
		log_error("%s", ll_host_limit(msg, sizeof(msg), k->lag_advice, window,
				100.0 * share, busy));
	}
}
