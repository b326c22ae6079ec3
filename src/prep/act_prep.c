/*
 * act_prep.c - prepare devices for ACT: clean (zeros over every byte), then
 * salt (fresh random data over every byte).
 *
 * A fresh drive and a drive full of data behave very differently; tests
 * are only comparable after prep. Each device is prepared by its own thread
 * (devices in parallel); each phase keeps PREP_IN_FLIGHT large O_DIRECT
 * writes in flight (one writer thread each, claiming chunks in order), then
 * fsyncs so the data is on the device before we say the phase is done. No
 * O_DSYNC: salting needs no per-write durability.
 *
 * A tail smaller than a chunk is written with an O_DIRECT write of its
 * aligned part, and the last bytes that are not a multiple of the minimum
 * I/O size (files only) with a buffered write - on the same descriptor,
 * O_DIRECT turned off for it with fcntl(F_SETFL): the device is opened
 * once and held (flock) for the whole run, never opened again by name.
 */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/cli.h"
#include "common/clock.h"
#include "common/dev.h"
#include "common/devset.h"
#include "common/io.h"
#include "common/limits.h"
#include "common/log.h"
#include "common/program.h"
#include "common/loglines.h"
#include "common/rand.h"
#include "common/run.h"
#include "common/status.h"
#include "common/stop.h"
#include "common/strbuf.h"
#include "common/version.h"

//==========================================================
// Typedefs & constants.
//

#define PREP_CHUNK (1024 * 1024)
#define PREP_IN_FLIGHT 8
#define LARGE_BLOCK (128 * 1024)
#define PROGRESS_STEP_PCT 5
#define TTY_REFRESH_NS (500 * NS_PER_MS)
#define LOG_REFRESH_NS (1 * NS_PER_SEC)
#define JOIN_TIMEOUT_NS (5 * NS_PER_SEC)
#define STALL_JOIN_TIMEOUT_NS (1 * NS_PER_SEC)
// How often a device's thread looks for writers that ended; how long,
// once act_prep is stopped, it waits for the rest (less than
// STALL_JOIN_TIMEOUT_NS: then its own thread can still be joined).
#define WRITER_POLL_NS (10 * NS_PER_MS)
#define WRITER_STOP_NS (500 * NS_PER_MS)

typedef enum {
	PHASE_WAIT,
	PHASE_CLEAN,
	PHASE_SALT,
	PHASE_DONE
} phase;

typedef struct prep_s prep;

typedef struct prep_dev_s {
	prep* run;                         // the run it belongs to
	dev* d;                            // in the run's devset
	atomic_int phase;
	atomic_uint_fast64_t next_chunk;   // next chunk to claim
	atomic_uint_fast64_t bytes_done;   // in this phase
	atomic_bool failed;
	uint64_t n_chunks;                 // whole chunks
	// Set by the device's thread at each phase start, read by the main
	// thread's progress line: atomic.
	atomic_uint_fast64_t phase_start_ns;
	atomic_uint last_pct_shown;
	// Progress, as last shown (main thread only).
	bool shown;
	uint32_t pct;
	double mbps;
	uint64_t eta;                      // sec left, clean and salt
	// Stall watchdog: the progress last seen, and since when (main thread
	// only).
	int seen_phase;
	uint64_t seen_bytes;
	uint64_t seen_ns;
	bool stalled;                      // for more than --max-stall-sec
} prep_dev;

// The run's context: every device, and how many have finished.
struct prep_s {
	const cli_prep* args;
	program life;                      // setup's guard and stops
	char stall_limit[64];              // its "more than ..."
	devset set;
	prep_dev* devs;
	uint32_t n_devs;
	atomic_uint n_finished;
	atomic_bool writers_left;          // a writer stuck in a write
	uint64_t max_stall_ns;             // 0: no stall watchdog
};

// What format_progress shows (status_fit's ctx).
typedef struct progress_ctx_s {
	const prep* r;
	uint64_t eta;                      // of the slowest device, seconds
} progress_ctx;

//==========================================================
// Forward declarations.
//

static int setup(prep* r, const cli_prep* args);
static int open_devices(void* pv);
static int start_devices(prep* r);
static void* prep_device(void* pv);
static int run_phase(prep_dev* p, phase ph);
static void* writer(void* pv);
static void join_writers(prep_dev* p, pthread_t* threads, uint32_t n);
static int write_tail(prep_dev* p, phase ph, uint8_t* buf);
static void show_progress(prep* r, bool final);
static void format_progress(uint32_t detail, strbuf* sb, const void* ctx);
static int wait_for_devices(prep* r);
static bool find_stalls(prep* r);
static void report_stalls(const prep* r);
static void report_signal(const prep* r, int sig);
static void signal_stopped(int sig);

//==========================================================
// Main.
//

int
main(int argc, char* argv[])
{
	int rv = program_start();

	if (rv != 0) {
		return rv;
	}

	cli_prep args;

	if ((rv = cli_prep_args(argc, argv, &args)) >= 0) {
		return rv;
	}

	static prep r;

	if ((rv = setup(&r, &args)) != 0 || (rv = start_devices(&r)) != 0) {
		return rv;
	}

	rv = wait_for_devices(&r);

	// Stopped or not, every device's thread ends within a chunk's write -
	// unless a write is stuck in the kernel: then leave its memory alone.
	// (After a stall, one is: the others get a chunk's time.)
	if (! run_join(rv == EXIT_LAG ? STALL_JOIN_TIMEOUT_NS : JOIN_TIMEOUT_NS) ||
			atomic_load(&r.writers_left)) {
		return rv;
	}

	for (uint32_t i = 0; i < r.n_devs; i++) {
		if (rv == EXIT_OK && atomic_load(&r.devs[i].failed)) {
			rv = EXIT_IO;
		}
	}

	devset_close(&r.set);
	free(r.devs);

	return rv;
}

//==========================================================
// Setup.
//

// Check every device before writing to any - the setup guard watching the
// setup I/O (the probe) with the stall limit, and taking a signal that
// arrives while it hangs - then print their sizes and commit them; until
// the commit a stop undoes them all. Returns 0, or the exit status.
static int
setup(prep* r, const cli_prep* args)
{
	char esc[256];

	// --size sizes files: for a block device it is a usage error.
	for (uint32_t i = 0; i < args->n && args->size != 0; i++) {
		struct stat st;

		if (stat(args->names[i], &st) == 0 && S_ISBLK(st.st_mode)) {
			fprintf(stderr, "ERROR: --size applies to files only, and %s is "
					"a block device\n", log_escape(args->names[i], esc,
					sizeof(esc)));
			return EXIT_USAGE;
		}
	}

	r->args = args;
	r->max_stall_ns = (uint64_t)args->max_stall_sec * NS_PER_SEC;
	snprintf(r->stall_limit, sizeof(r->stall_limit), "--max-stall-sec %"
			PRIu32, args->max_stall_sec);
	r->life = (program){ .devs = &r->set, .limit_ns = r->max_stall_ns,
			.limit_text = r->stall_limit,
			.stopped_text = "stopped before any byte was written",
			.signal_stopped = signal_stopped };

	int rv = program_setup(&r->life, open_devices, r);

	if (rv != 0) {
		return rv;
	}

	r->devs = calloc(args->n, sizeof(prep_dev));

	if (r->devs == NULL) {
		log_error("out of memory for %" PRIu32 " devices", args->n);
		devset_undo(&r->set);
		return EXIT_SETUP;
	}

	for (uint32_t i = 0; i < args->n; i++) {
		prep_dev* p = &r->devs[i];

		p->run = r;
		p->d = &r->set.devs[i];
		p->n_chunks = p->d->size / PREP_CHUNK;

		char line[LL_MSG_LEN];
		strbuf sb;

		sb_init(&sb, line, sizeof(line));
		ll_prep_device(&sb, p->d->name, p->d->size, p->d->size / LARGE_BLOCK);
		log_out("%s", line);
	}

	// The last moment a stop - a signal, or output that can't be written -
	// undoes the setup (a file created or resized goes back as it was).
	if ((rv = program_commit(&r->life)) != 0) {
		return rv;
	}

	r->n_devs = args->n;

	return 0;
}

// The setup step under the guard (program_setup): claim, create or size,
// and probe every device.
static int
open_devices(void* pv)
{
	prep* r = pv;
	dev_opts o = {
		.file_size = r->args->size,
		.dsync = false,
		.scheduler = NULL,
		.size_item = "--size"
	};

	return devset_open(&r->set, r->args->names, r->args->n, &o);
}

// A thread per device. Returns 0, or EXIT_SETUP (the threads started are
// stopped and joined).
static int
start_devices(prep* r)
{
	for (uint32_t i = 0; i < r->n_devs; i++) {
		int rv = run_thread_start(prep_device, &r->devs[i]);

		if (rv != 0) {
			log_error("can't start a thread for %s: %s (errno %d)",
					r->args->names[i], strerror(rv), rv);
			run_stop(EXIT_SETUP);
			run_join(JOIN_TIMEOUT_NS);
			return EXIT_SETUP;
		}
	}

	return 0;
}

//==========================================================
// Per-device work.
//

static void*
prep_device(void* pv)
{
	prep_dev* p = pv;

	if (run_phase(p, PHASE_CLEAN) == 0 && run_phase(p, PHASE_SALT) == 0) {
		atomic_store(&p->phase, PHASE_DONE);
	}
	else {
		atomic_store(&p->failed, true);
		run_stop(EXIT_IO);
	}

	atomic_fetch_add(&p->run->n_finished, 1);
	run_wake_main();

	return NULL;
}

static int
run_phase(prep_dev* p, phase ph)
{
	log_out("%s device %s\n", ph == PHASE_CLEAN ? "cleaning" : "salting",
			p->d->name);

	atomic_store(&p->next_chunk, 0);
	atomic_store(&p->bytes_done, 0);
	atomic_store(&p->phase_start_ns, clock_ns());
	atomic_store(&p->last_pct_shown, 0);
	atomic_store(&p->phase, ph);

	pthread_t threads[PREP_IN_FLIGHT];
	uint32_t n_threads = 0;

	for (uint32_t i = 0; i < PREP_IN_FLIGHT; i++) {
		if (pthread_create(&threads[i], NULL, writer, p) != 0) {
			break;
		}

		n_threads++;
	}

	if (n_threads == 0) {
		log_error("can't start writer threads for %s", p->d->name);
		return -1;
	}

	join_writers(p, threads, n_threads);

	if (atomic_load(&p->failed) || ! run_going()) {
		return -1;
	}

	uint8_t* buf = dev_alloc_buf(PREP_CHUNK);

	if (buf == NULL) {
		log_error("out of memory for %s", p->d->name);
		return -1;
	}

	int rv = write_tail(p, ph, buf);

	free(buf);

	if (rv != 0) {
		return -1;
	}

	if (fsync(p->d->fd) != 0) {
		log_error("fsync failed on device %s after %s: %s (errno %d)",
				p->d->name, ph == PHASE_CLEAN ? "cleaning" : "salting",
				strerror(errno), errno);
		return -1;
	}

	double secs = (double)(clock_ns() - atomic_load(&p->phase_start_ns)) /
			NS_PER_SEC;

	log_note("act_prep: %s %s done: %" PRIu64 " bytes in %.2f s, %.1f MB/s",
			ph == PHASE_CLEAN ? "cleaning" : "salting",
			p->d->name, p->d->size, secs, secs > 0.0 ?
			(double)p->d->size / 1e6 / secs : 0.0);

	return 0;
}

static void*
writer(void* pv)
{
	prep_dev* p = pv;
	phase ph = (phase)atomic_load(&p->phase);
	uint8_t* buf = dev_alloc_buf(PREP_CHUNK);
	rand_t rnd;

	if (buf == NULL) {
		log_error("out of memory for %s", p->d->name);
		atomic_store(&p->failed, true);
		return NULL;
	}

	rand_seed(&rnd);
	memset(buf, 0, PREP_CHUNK);

	uint64_t chunk;

	while (run_going() && ! atomic_load(&p->failed) &&
			(chunk = atomic_fetch_add(&p->next_chunk, 1)) < p->n_chunks) {
		if (ph == PHASE_SALT) {
			rand_fill(&rnd, buf, PREP_CHUNK);
		}

		uint64_t off = chunk * PREP_CHUNK;
		int err = io_write(p->d->fd, buf, PREP_CHUNK, off);

		if (err != 0) {
			io_failed(p->d->name, "write", off, PREP_CHUNK, err, NULL);
			atomic_store(&p->failed, true);
			break;
		}

		atomic_fetch_add(&p->bytes_done, PREP_CHUNK);
	}

	free(buf);

	return NULL;
}

// Join a phase's writers as they end, in any order - one stuck in a hung
// write must not keep the others from being joined. Once act_prep is
// stopped, the writers not ended within WRITER_STOP_NS are stuck in the
// kernel: detached and left there (writers_left: their memory stays).
static void
join_writers(prep_dev* p, pthread_t* threads, uint32_t n)
{
	bool joined[PREP_IN_FLIGHT] = { false };
	uint32_t left = n;

	while (left != 0 && run_going()) {
		for (uint32_t i = 0; i < n; i++) {
			if (! joined[i] && pthread_tryjoin_np(threads[i], NULL) == 0) {
				joined[i] = true;
				left--;
			}
		}

		if (left != 0) {
			clock_sleep_until(clock_ns() + WRITER_POLL_NS);
		}
	}

	struct timespec abs = clock_realtime_after(WRITER_STOP_NS);

	for (uint32_t i = 0; i < n; i++) {
		if (! joined[i] && pthread_timedjoin_np(threads[i], NULL, &abs) != 0) {
			pthread_detach(threads[i]);
			atomic_store(&p->run->writers_left, true);
		}
	}
}

// The bytes after the last whole chunk: an aligned O_DIRECT write of the
// part that is a multiple of the minimum I/O size, then a buffered write of
// the rest (only a file can have such a rest).
static int
write_tail(prep_dev* p, phase ph, uint8_t* buf)
{
	uint64_t off = p->n_chunks * PREP_CHUNK;
	uint64_t tail = p->d->size - off;
	uint64_t direct = tail / p->d->min_io * p->d->min_io;
	uint64_t rest = tail - direct;
	rand_t rnd;

	if (tail == 0) {
		return 0;
	}

	rand_seed(&rnd);

	if (ph == PHASE_SALT) {
		rand_fill(&rnd, buf, (size_t)tail);
	}
	else {
		memset(buf, 0, (size_t)tail);
	}

	if (direct != 0) {
		int err = io_write(p->d->fd, buf, (size_t)direct, off);

		if (err != 0) {
			io_failed(p->d->name, "write", off, (size_t)direct, err, NULL);
			return -1;
		}
	}

	if (rest != 0) {
		// The descriptor that holds the device, without O_DIRECT for this
		// one write (the writer threads are done): never a second open of
		// the name, which may by now be another file.
		int fd = p->d->fd;
		int flags = fcntl(fd, F_GETFL);

		if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_DIRECT) != 0) {
			log_error("can't turn off O_DIRECT on %s for its last %" PRIu64
					" bytes: fcntl: %s (errno %d)", p->d->name, rest,
					strerror(errno), errno);
			return -1;
		}

		int err = io_write(fd, buf + direct, (size_t)rest, off + direct);

		if (err == 0 && fsync(fd) != 0) {
			err = errno;
		}

		if (fcntl(fd, F_SETFL, flags) != 0 && err == 0) {
			err = errno;
		}

		if (err != 0) {
			io_failed(p->d->name, "write", off + direct, (size_t)rest, err,
					NULL);
			return -1;
		}
	}

	atomic_fetch_add(&p->bytes_done, tail);

	return 0;
}

//==========================================================
// Progress and signals.
//

// Main thread: show progress until every device is done, or a signal or a
// failure stops the work. Returns the exit status.
static int
wait_for_devices(prep* r)
{
	uint64_t refresh = log_stderr_is_tty() ? TTY_REFRESH_NS : LOG_REFRESH_NS;

	while (atomic_load(&r->n_finished) < r->n_devs) {
		int sig = run_wait(clock_ns() + refresh);

		if (sig != 0) {
			run_stop(EXIT_SIGNAL + sig);
			show_progress(r, true);
			report_signal(r, sig);
			return EXIT_SIGNAL + sig;
		}

		if (find_stalls(r)) {
			run_stop(EXIT_LAG);
			show_progress(r, true);
			report_stalls(r);
			return EXIT_LAG;
		}

		show_progress(r, false);
	}

	show_progress(r, true);

	return run_stop_code() >= 0 ? run_stop_code() : EXIT_OK;
}

// The stall watchdog: a device whose phase has made no progress - no
// write completed, the phase not ended - for --max-stall-sec is hung, and
// act_prep stops with EXIT_LAG: a hung drive is never "prepared", and
// act_certify --prep does not wait for ever. (The writes stuck in the
// kernel are left there.) Returns true when a device is stalled.
static bool
find_stalls(prep* r)
{
	uint64_t now = clock_ns();
	bool found = false;

	for (uint32_t i = 0; i < r->n_devs && r->max_stall_ns != 0; i++) {
		prep_dev* p = &r->devs[i];
		int ph = atomic_load(&p->phase);
		uint64_t done = atomic_load(&p->bytes_done);

		if (ph == PHASE_DONE || atomic_load(&p->failed)) {
			continue;
		}

		if (p->seen_ns == 0 || ph != p->seen_phase || done != p->seen_bytes) {
			p->seen_phase = ph;
			p->seen_bytes = done;
			p->seen_ns = now;
			continue;
		}

		if (now - p->seen_ns > r->max_stall_ns) {
			p->stalled = true;
			found = true;
		}
	}

	return found;
}

// An ERROR line for each stalled device.
static void
report_stalls(const prep* r)
{
	uint64_t now = clock_ns();

	for (uint32_t i = 0; i < r->n_devs; i++) {
		const prep_dev* p = &r->devs[i];

		if (! p->stalled) {
			continue;
		}

		log_error("device %s " STOP_PHRASE_HUNG_IO ": no write has "
				"completed for %.1f sec while %s (%" PRIu64 " of %" PRIu64 " bytes written), "
				"more than --max-stall-sec %" PRIu64 " - stopped, the devices "
				"are NOT fully prepared", p->d->name,
				(double)(now - p->seen_ns) / NS_PER_SEC,
				p->seen_phase == PHASE_SALT ? "salting" : "cleaning",
				p->seen_bytes, p->d->size, r->max_stall_ns / NS_PER_SEC);
	}
}

// The ERROR line of a stop by signal, naming each device and how far it
// got: "stopped by signal SIGINT - the devices are NOT fully prepared:
// /dev/sdb cleaned 45%, not salted; /dev/sdc cleaned, salted 12%". The
// percentages are whole bytes written, rounded down.
static void
report_signal(const prep* r, int sig)
{
	strbuf sb;

	sb_init_grow(&sb);

	for (uint32_t i = 0; i < r->n_devs; i++) {
		const prep_dev* p = &r->devs[i];
		int ph = atomic_load(&p->phase);
		uint64_t done = atomic_load(&p->bytes_done);
		uint64_t pct = p->d->size == 0 ? 0 : done * 100 / p->d->size;
		const char* sep = i == 0 ? "" : "; ";

		if (pct > 99 && ph != PHASE_DONE) {
			pct = 99;
		}

		switch (ph) {
		case PHASE_CLEAN:
			sb_printf(&sb, "%s%s cleaned %" PRIu64 "%%, not salted", sep,
					p->d->name, pct);
			break;
		case PHASE_SALT:
			sb_printf(&sb, "%s%s cleaned, salted %" PRIu64 "%%", sep,
					p->d->name, pct);
			break;
		case PHASE_DONE:
			sb_printf(&sb, "%s%s prepared (cleaned and salted)", sep,
					p->d->name);
			break;
		default:
			sb_printf(&sb, "%s%s not started", sep, p->d->name);
			break;
		}
	}

	log_error(STOP_PHRASE_SIGNAL " %s - the devices are NOT fully prepared: "
			"%s", run_signal_name(sig), sb_overflowed(&sb) || sb.buf == NULL ?
			"(out of memory for their states)" : sb.buf);
	sb_free(&sb);
}

// Progress of each device in its current phase, and the time left for the
// rest of its work - this phase and, while cleaning, all of salting - at
// its current speed. The terminal gets one line (the most detailed that
// fits its width); otherwise a line per device every PROGRESS_STEP_PCT.
static void
show_progress(prep* r, bool final)
{
	uint64_t now = clock_ns();
	bool tty = log_stderr_is_tty();
	uint64_t eta_all = 0;
	uint32_t n_busy = 0;
	char hms[32];

	for (uint32_t i = 0; i < r->n_devs; i++) {
		prep_dev* p = &r->devs[i];
		int ph = atomic_load(&p->phase);

		p->shown = false;

		if (ph != PHASE_CLEAN && ph != PHASE_SALT) {
			continue;
		}

		uint64_t done = atomic_load(&p->bytes_done);
		double secs = (double)(now - atomic_load(&p->phase_start_ns)) /
				NS_PER_SEC;
		uint64_t left = p->d->size - done + (ph == PHASE_CLEAN ?
				p->d->size : 0);

		p->mbps = secs > 0.0 ? (double)done / 1e6 / secs : 0.0;
		p->pct = (uint32_t)(done * 100 / p->d->size);
		p->eta = p->mbps > 0.0 ? (uint64_t)((double)left / 1e6 / p->mbps) : 0;
		p->shown = true;
		n_busy++;
		eta_all = p->eta > eta_all ? p->eta : eta_all;

		const char* what = ph == PHASE_CLEAN ? "cleaning" : "salting";

		if (! tty && (final || p->pct >= atomic_load(&p->last_pct_shown) +
				PROGRESS_STEP_PCT)) {
			atomic_store(&p->last_pct_shown, p->pct - p->pct %
					PROGRESS_STEP_PCT);
			log_note("act_prep: %s %s: %u%% %.0f MB/s ETA %s (clean and "
					"salt)", what, p->d->name, p->pct, p->mbps,
					log_hms(p->eta, hms, sizeof(hms)));
		}
	}

	if (! tty) {
		return;
	}

	if (n_busy == 0) {
		log_status("");
	}
	else {
		status_fit(4, format_progress, &(progress_ctx){ .r = r,
				.eta = eta_all });
	}

	if (final) {
		fputc('\n', stderr);
	}
}

// The terminal line at a level of detail: 0 "cleaning /dev/sdb 45% 1532
// MB/s | salting /dev/sdc 12% 1490 MB/s | ETA 0:31:02"; 1 "sdb clean 45% |
// sdc salt 12% | ETA 0:31:02"; 2 "2 devices: 45% 12% ETA 0:31:02"; 3 the
// mean only.
static void
format_progress(uint32_t detail, strbuf* sb, const void* ctx)
{
	const prep* r = ((const progress_ctx*)ctx)->r;
	uint64_t eta = ((const progress_ctx*)ctx)->eta;
	uint32_t n = 0;
	uint64_t pct_sum = 0;
	char hms[32];

	if (detail == 2) {
		uint32_t busy = 0;

		for (uint32_t i = 0; i < r->n_devs; i++) {
			busy += r->devs[i].shown ? 1 : 0;
		}

		sb_printf(sb, "%" PRIu32 " device%s:", busy, busy == 1 ? "" : "s");
	}

	for (uint32_t i = 0; i < r->n_devs; i++) {
		const prep_dev* p = &r->devs[i];

		if (! p->shown) {
			continue;
		}

		bool clean = atomic_load(&p->phase) == PHASE_CLEAN;
		const char* base = strrchr(p->d->name, '/');

		base = base != NULL ? base + 1 : p->d->name;
		pct_sum += p->pct;

		if (detail == 0) {
			sb_printf(sb, "%s%s %s %3u%% %.0f MB/s", n == 0 ? "" : " | ",
					clean ? "cleaning" : "salting", p->d->name, p->pct, p->mbps);
		}
		else if (detail == 1) {
			sb_printf(sb, "%s%s %s %u%%", n == 0 ? "" : " | ", base,
					clean ? "clean" : "salt", p->pct);
		}
		else if (detail == 2) {
			sb_printf(sb, " %u%%", p->pct);
		}

		n++;
	}

	if (detail == 3) {
		sb_printf(sb, "act_prep: %" PRIu32 " devices %" PRIu64 "%%", n,
				n == 0 ? 0 : pct_sum / n);
	}

	sb_printf(sb, "%sETA %s", detail <= 1 ? " | " : " ",
			log_hms(eta, hms, sizeof(hms)));
}

// A SIGINT or SIGTERM taken during setup (program.h), the devices undone.
static void
signal_stopped(int sig)
{
	log_error(STOP_PHRASE_SIGNAL " %s before any byte was written",
			run_signal_name(sig));
}
