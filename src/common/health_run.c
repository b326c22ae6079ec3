/*
 * health_run.c - the drives' health through a run: the sources and start
 * samples of the identity block, the health thread and its samples.
 */

#include "common/health_run.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/health.h"
#include "common/health_read.h"
#include "common/log.h"
#include "common/loglines.h"

//==========================================================
// Typedefs & constants.
//

// A read's thread needs little stack (a page is on the heap).
#define JOB_STACK_BYTES (256 * 1024)

// A wait looks at the end of the run this often.
#define WAIT_SLICE_NS (100 * NS_PER_MS)

#define WHY_LEN 256

// One read of one device, in a thread of its own: the thread and the one
// who waits for it each hold a reference; the last one frees it. The
// thread reads through its own copy of the device's descriptor, so that a
// read still stuck in the drive after the program closed the device never
// touches another file.
typedef struct job_s {
	pthread_mutex_t lock;
	pthread_cond_t cond;       // done: on CLOCK_MONOTONIC
	int refs;
	bool done;
	uint64_t start_ns;         // when it was asked

	bool detect;               // health_read_detect, else a sample
	bool sample;               // detect: and the start sample
	int fd;                    // ours (closed by the thread)
	bool is_block;
	dev_t rdev;
	health_src src;            // detect: found; sample: where to read

	health hl;                 // the sample
	bool ok;
	char why[WHY_LEN];
} job;

// A device, as its health is read.
typedef struct hdev_s {
	const char* name;
	int fd;                    // the device's descriptor (dev.fd)
	bool is_block;
	dev_t rdev;
	health_src src;
	bool have_start;
	health start;
	job* last;                 // its last read (a reference), or NULL
} hdev;

struct health_run_s {
	hdev* devs;
	uint32_t n;
	uint32_t interval_sec;
	uint32_t next_sec;         // the next sample is due at this report

	uint64_t start_ns;
	bool (*may_print)(void* udata);
	void* udata;

	pthread_t thread;
	bool started;
	pthread_mutex_t lock;
	pthread_cond_t cond;       // a sample asked for, or the end
	bool pending;              // a sample is asked for
	atomic_bool quit;          // the run is over
	atomic_bool finish;        // ... and the sample asked for is taken
	atomic_bool closed;        // nothing more is printed
	atomic_uint_fast64_t end_by; // the run's end: no wait past this (0: none)
	bool detached;             // the thread did not end in time: it keeps r
};

//==========================================================
// Forward declarations.
//

static job* job_start(const hdev* d, bool detect, bool sample);
static job* job_failed(job* j, int err);
static bool job_wait(job* j, uint64_t deadline_ns, const health_run* r);
static void job_put(job* j);
static void* job_main(void* pv);
static void* health_main(void* pv);
static void take_samples(health_run* r, strbuf* sb);
static bool may_print(void* pv);
static bool stopping(const health_run* r);

//==========================================================
// Public API.
//

health_run*
health_run_open(const devset* s, uint32_t interval_sec, bool sample)
{
	health_run* r = calloc(1, sizeof(health_run));

	if (r == NULL || (r->devs = calloc(s->n == 0 ? 1 : s->n,
			sizeof(hdev))) == NULL) {
		free(r);
		return NULL;
	}

	r->n = s->n;
	r->interval_sec = interval_sec;
	r->next_sec = interval_sec;
	pthread_mutex_init(&r->lock, NULL);
	pthread_cond_init(&r->cond, NULL);

	for (uint32_t i = 0; i < r->n; i++) {
		const dev* dv = &s->devs[i];
		hdev* d = &r->devs[i];
		struct stat st;

		d->name = dv->name;
		d->fd = dv->fd;
		d->is_block = dv->is_block;
		d->rdev = dv->is_block && fstat(dv->fd, &st) == 0 ? st.st_rdev : 0;
		snprintf(d->src.text, sizeof(d->src.text), "%s", LL_HEALTH_OFF);

		// health-interval-sec 0: not one command (the reference's I/O).
		// A file still to be created (--check) is not open.
		if (interval_sec != 0 && dv->fd < 0) {
			snprintf(d->src.text, sizeof(d->src.text), "%s", LL_HEALTH_FILE);
		}
		else if (interval_sec != 0) {
			d->last = job_start(d, true, sample);
		}
	}

	uint64_t deadline = clock_ns() + HEALTH_WAIT_NS;

	for (uint32_t i = 0; i < r->n; i++) {
		hdev* d = &r->devs[i];

		if (d->last == NULL) {
			continue;
		}

		if (! job_wait(d->last, deadline, NULL)) {
			ll_health_no_answer(d->src.text, sizeof(d->src.text),
					(double)HEALTH_WAIT_NS / NS_PER_SEC);
			continue;
		}

		d->src = d->last->src;
		d->have_start = sample && d->src.kind != HEALTH_NONE;
		d->start = d->last->hl;
	}

	return r;
}

void
health_run_identity(uint32_t i, strbuf* sb, void* pv)
{
	health_run* r = pv;

	if (r == NULL || i >= r->n) {
		return;
	}

	const hdev* d = &r->devs[i];

	ll_health_source(sb, d->name, d->src.text, d->src.kind == HEALTH_NONE);

	if (d->have_start) {
		ll_health_start(sb, d->name, &d->start);
	}
}

int
health_run_start(health_run* r, uint64_t start_ns,
		bool (*fn)(void* udata), void* udata)
{
	if (r == NULL || r->interval_sec == 0) {
		return 0;
	}

	bool any = false;

	for (uint32_t i = 0; i < r->n; i++) {
		any = any || r->devs[i].src.kind != HEALTH_NONE;
	}

	if (! any) {
		return 0; // nothing to sample: no thread
	}

	r->start_ns = start_ns;
	r->may_print = fn;
	r->udata = udata;

	int rv = pthread_create(&r->thread, NULL, health_main, r);

	r->started = rv == 0;

	return rv;
}

void
health_run_report(health_run* r, uint32_t report_sec, bool last)
{
	if (r == NULL || ! r->started) {
		return;
	}

	bool due = last || report_sec >= r->next_sec;

	if (report_sec >= r->next_sec) {
		r->next_sec = (report_sec / r->interval_sec + 1) * r->interval_sec;
	}

	if (! due) {
		return;
	}

	pthread_mutex_lock(&r->lock);
	r->pending = true;
	pthread_cond_signal(&r->cond);
	pthread_mutex_unlock(&r->lock);
}

void
health_run_end(health_run* r, bool normal)
{
	if (r == NULL || ! r->started) {
		return;
	}

	// The end sample waits for a drive HEALTH_WAIT_NS at most from now
	// (also when the thread is still waiting for an earlier one); a little
	// more for it to print.
	atomic_store(&r->end_by, clock_ns() + HEALTH_WAIT_NS);

	pthread_mutex_lock(&r->lock);
	atomic_store(&r->finish, normal);
	atomic_store(&r->quit, true);
	pthread_cond_signal(&r->cond);
	pthread_mutex_unlock(&r->lock);

	struct timespec abs = clock_realtime_after(HEALTH_WAIT_NS + NS_PER_SEC);

	if (pthread_timedjoin_np(r->thread, NULL, &abs) != 0) {
		pthread_detach(r->thread);
		r->detached = true;
	}

	atomic_store(&r->closed, true); // from now on it prints nothing

	r->started = false;
}

void
health_run_free(health_run* r)
{
	if (r == NULL) {
		return;
	}

	if (r->started) {
		health_run_end(r, false);
	}

	if (r->detached) {
		return; // its thread still uses r (the process is ending)
	}

	for (uint32_t i = 0; i < r->n; i++) {
		if (r->devs[i].last != NULL) {
			job_put(r->devs[i].last);
		}
	}

	free(r->devs);
	pthread_mutex_destroy(&r->lock);
	pthread_cond_destroy(&r->cond);
	free(r);
}

//==========================================================
// Local helpers - the reads.
//

// Start a read of device d in a thread of its own (detect: find its
// source, with sample its start sample too; else a sample from d->src).
// NULL when it can't start (the read is then "not read").
static job*
job_start(const hdev* d, bool detect, bool sample)
{
	job* j = calloc(1, sizeof(job));

	if (j == NULL) {
		return NULL;
	}

	pthread_condattr_t ca;

	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&j->cond, &ca);
	pthread_condattr_destroy(&ca);
	pthread_mutex_init(&j->lock, NULL);
	j->refs = 2;
	j->start_ns = clock_ns();
	j->detect = detect;
	j->sample = sample;
	j->is_block = d->is_block;
	j->rdev = d->rdev;
	j->src = d->src;
	j->fd = fcntl(d->fd, F_DUPFD_CLOEXEC, 0);

	if (j->fd < 0) {
		return job_failed(j, errno);
	}

	pthread_attr_t attr;
	pthread_t t;

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, JOB_STACK_BYTES);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);

	int rv = pthread_create(&t, &attr, job_main, j);

	pthread_attr_destroy(&attr);

	if (rv != 0) {
		close(j->fd);
		return job_failed(j, rv);
	}

	return j;
}

// A read that could not start (err): done, not read, no source.
static job*
job_failed(job* j, int err)
{
	ll_health_failed(j->why, sizeof(j->why), err);
	j->src.kind = HEALTH_NONE;
	snprintf(j->src.text, sizeof(j->src.text), "%s", j->why);
	j->refs = 1;
	j->done = true;

	return j;
}

// Wait until j is done, deadline_ns passes, or (r not NULL) the run stops
// without its sample, or its end's wait (end_by) is over. Returns whether
// it is done.
static bool
job_wait(job* j, uint64_t deadline_ns, const health_run* r)
{
	pthread_mutex_lock(&j->lock);

	while (! j->done && (r == NULL || ! stopping(r))) {
		uint64_t now = clock_ns();
		uint64_t end_by = r != NULL ? atomic_load(&r->end_by) : 0;

		if (end_by != 0 && end_by < deadline_ns) {
			deadline_ns = end_by;
		}

		if (now >= deadline_ns) {
			break;
		}

		uint64_t until = deadline_ns - now > WAIT_SLICE_NS ?
				now + WAIT_SLICE_NS : deadline_ns;
		struct timespec ts = {
			.tv_sec = (time_t)(until / NS_PER_SEC),
			.tv_nsec = (long)(until % NS_PER_SEC)
		};

		pthread_cond_timedwait(&j->cond, &j->lock, &ts);
	}

	bool done = j->done;

	pthread_mutex_unlock(&j->lock);

	return done;
}

// Drop a reference to j; the last one frees it.
static void
job_put(job* j)
{
	pthread_mutex_lock(&j->lock);

	bool last = --j->refs == 0;

	pthread_mutex_unlock(&j->lock);

	if (last) {
		pthread_mutex_destroy(&j->lock);
		pthread_cond_destroy(&j->cond);
		free(j);
	}
}

static void*
job_main(void* pv)
{
	job* j = pv;
	health hl;
	char why[WHY_LEN] = "";
	bool ok = true;
	health_src src = j->src;

	if (j->detect) {
		health_read_detect(&src, j->fd, j->is_block, j->rdev, j->sample, &hl);
	}
	else {
		ok = health_read_sample(&src, j->fd, &hl, why, sizeof(why));
	}

	close(j->fd);

	pthread_mutex_lock(&j->lock);
	j->src = src;
	j->hl = hl;
	j->ok = ok;
	memcpy(j->why, why, sizeof(why));
	j->done = true;
	pthread_cond_broadcast(&j->cond);
	pthread_mutex_unlock(&j->lock);

	job_put(j);

	return NULL;
}

//==========================================================
// Local helpers - the health thread.
//

static void*
health_main(void* pv)
{
	health_run* r = pv;

	pthread_mutex_lock(&r->lock);

	for (;;) {
		while (! r->pending && ! atomic_load(&r->quit)) {
			pthread_cond_wait(&r->cond, &r->lock);
		}

		if (! r->pending || stopping(r)) {
			break;
		}

		r->pending = false;
		pthread_mutex_unlock(&r->lock);

		strbuf sb;

		sb_init_grow(&sb);
		take_samples(r, &sb);

		if (! sb_overflowed(&sb) && sb.len != 0) {
			log_text_if(sb.buf, sb.len, may_print, r);
		}

		sb_free(&sb);
		pthread_mutex_lock(&r->lock);
	}

	pthread_mutex_unlock(&r->lock);

	return NULL;
}

// One sample of every device that has a source, into sb: all read at
// once, each waited for until HEALTH_WAIT_NS from now. A device whose
// previous read has not returned is not asked again before it does.
static void
take_samples(health_run* r, strbuf* sb)
{
	uint64_t now = clock_ns();
	uint64_t deadline = now + HEALTH_WAIT_NS;
	double t = (double)(now - r->start_ns) / NS_PER_SEC;
	job* jobs[r->n];

	for (uint32_t i = 0; i < r->n; i++) {
		hdev* d = &r->devs[i];

		jobs[i] = NULL;

		if (d->src.kind == HEALTH_NONE || (d->last != NULL &&
				! job_wait(d->last, 0, NULL))) {
			continue; // none, or still in its last read
		}

		jobs[i] = job_start(d, false, false);
	}

	for (uint32_t i = 0; i < r->n; i++) {
		hdev* d = &r->devs[i];

		if (d->src.kind == HEALTH_NONE) {
			continue;
		}

		// Still in its last read: wait for it, then ask again.
		if (jobs[i] == NULL && d->last != NULL && job_wait(d->last,
				deadline, r) && ! stopping(r)) {
			jobs[i] = job_start(d, false, false);
		}

		if (jobs[i] != NULL) {
			if (d->last != NULL) {
				job_put(d->last);
			}

			d->last = jobs[i];
		}

		char why[WHY_LEN];
		job* j = jobs[i] != NULL ? jobs[i] : d->last;

		if (j == NULL) {
			ll_health_unread(sb, d->name, t, ll_health_failed(why,
					sizeof(why), ENOMEM));
		}
		// Not answered: for as long as the drive has been asked.
		else if (jobs[i] == NULL || ! job_wait(j, deadline, r)) {
			ll_health_unread(sb, d->name, t, ll_health_no_answer(why,
					sizeof(why), (double)(clock_ns() - j->start_ns) /
					NS_PER_SEC));
		}
		else if (j->ok) {
			ll_health_sample(sb, d->name, t, &j->hl);
		}
		else {
			ll_health_unread(sb, d->name, t, j->why);
		}
	}
}

// The samples may be printed (log_text_if, under the log's lock).
static bool
may_print(void* pv)
{
	health_run* r = pv;

	return ! atomic_load(&r->closed) && r->may_print(r->udata);
}

// The run stopped without asking for its end sample.
static bool
stopping(const health_run* r)
{
	return atomic_load(&r->quit) && ! atomic_load(&r->finish);
}
