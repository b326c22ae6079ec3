/*
 * act_storage.c - the storage device I/O test.
 *
 * Models the device I/O of a database storing records on flash:
 *  - service threads do the client reads (small random reads) and, with
 *    commit-to-device, the record writes, at a fixed rate;
 *  - per device, a large-block write thread models the flushing of write
 *    buffers plus defragmentation, and a large-block read thread the
 *    defragmentation reads;
 *  - optionally, per device, a tomb raider reading the device round and
 *    round.
 * Every thread paces itself on an absolute schedule; the main thread prints
 * cumulative latency histograms every report-interval-sec.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "clock.h"
#include "dev.h"
#include "hist.h"
#include "io.h"
#include "log.h"
#include "rand.h"
#include "rate.h"
#include "report.h"
#include "run.h"
#include "storage_cfg.h"
#include "strbuf.h"

//==========================================================
// Typedefs & constants.
//


// Per-device request geometry, from the config and the device's minimum
// I/O size.
typedef struct device_s {
	dev d;
	uint64_t n_large_blocks;
	uint64_t usable_bytes;   // whole large blocks only
	uint32_t read_min;       // small read sizes: read_min + k * min_io
	uint32_t read_max;
	uint32_t write_unit;     // commit write granularity
	uint32_t write_min;
	uint32_t write_max;
	// With size histograms: each histogram size rounded up for this device.
	uint32_t read_size_of[CFG_SIZE_HIST_MAX + 1];
	uint32_t write_size_of[CFG_SIZE_HIST_MAX + 1];
	hist* reads;
	hist* writes;
} device;

typedef struct service_arg_s {
	uint32_t ix;
	uint32_t rate;
} service_arg;

//==========================================================
// Globals.
//

static storage_cfg g_cfg;
static device* g_devices = NULL;
static uint32_t g_n_devices = 0;
static report g_report;
static uint64_t g_start_ns = 0;
static uint64_t g_max_lag_ns = 0;
static service_arg* g_service_args = NULL;

static hist* g_reads = NULL;
static hist* g_writes = NULL;
static hist* g_lb_reads = NULL;
static hist* g_lb_writes = NULL;
static hist* g_total_reads = NULL;
static hist* g_total_writes = NULL;

static bench_status g_status;

// Statistics hook for tests: how often each histogram size was drawn
// (reads, writes), written to the file named by $ACT_SIZE_STATS at the end.
static atomic_uint_fast64_t g_size_counts[2][CFG_SIZE_HIST_MAX + 1];

static const char USAGE[] =
	"usage: act_storage CONFIG-FILE > LOG\n"
	"       act_storage --help | --version\n"
	"\n"
	"Runs the storage device I/O test described by CONFIG-FILE (see\n"
	"config/act_storage.conf for every item and its default) and prints the\n"
	"log on stdout. Analyse it with analysis/act_latency.py -l LOG.\n"
	"\n"
	"WARNING: the test writes over the devices named in device-names;\n"
	"all data on them is destroyed.\n"
	"\n"
	"exit status: 0 done, 1 usage or config error, 2 device or setup\n"
	"error, 3 load not kept up (max-lag-sec), 4 I/O errors\n"
	"(io-error-limit), 128+n stopped by signal n\n";

//==========================================================
// Forward declarations.
//

static int setup_devices(void);
static int setup_histograms(void);
static int start_threads(void);
static void* run_service(void* pv);
static void* run_large_block_reads(void* pv);
static void* run_large_block_writes(void* pv);
static void* run_tomb_raider(void* pv);
static void do_large_block_io(device* dv, bool write);
static uint32_t pick_size(rand_t* r, uint32_t min, uint32_t max,
		uint32_t unit);
static uint64_t pick_offset(rand_t* r, const device* dv, uint32_t max_size,
		uint32_t unit);
static uint32_t draw_size(rand_t* r, const storage_sizes* sizes,
		const uint32_t* size_of, uint32_t which);
static void write_size_stats(void);
static uint32_t round_up(uint32_t v, uint32_t to);

//==========================================================
// Main.
//

int
main(int argc, char* argv[])
{
	const char* config_path = NULL;
	int rv = bench_args(argc, argv, USAGE, &config_path);

	if (rv >= 0) {
		return rv;
	}

	log_init();
	bench_banner("Storage device IO test");

	char err[1024];

	if (storage_cfg_load(&g_cfg, config_path, bench_n_cpus(), err,
			sizeof(err)) != 0) {
		log_error("%s", err);
		return EXIT_USAGE;
	}

	char echo[8192];
	strbuf sb;

	sb_init(&sb, echo, sizeof(echo));
	storage_cfg_echo(&g_cfg, &sb);
	log_text(sb.buf, sb.len);

	io_set_error_limit(g_cfg.io_error_limit);
	g_max_lag_ns = (uint64_t)g_cfg.max_lag_sec * NS_PER_SEC;

	if (setup_devices() != 0) {
		return EXIT_SETUP;
	}

	if (setup_histograms() != 0) {
		return EXIT_SETUP;
	}

	bool joined;

	rv = bench_run(start_threads, &g_start_ns, g_cfg.test_duration_sec,
			g_cfg.report_interval_sec, &g_report, &g_status, &joined);
	write_size_stats();

	if (! joined) {
		return rv; // a thread is stuck in an I/O: leave its memory alone
	}

	for (uint32_t i = 0; i < g_n_devices; i++) {
		dev_close(&g_devices[i].d);
	}

	free(g_devices);
	free(g_service_args);
	report_free(&g_report);

	return rv;
}

//==========================================================
// Setup.
//

static int
setup_devices(void)
{
	g_n_devices = g_cfg.devices.n;
	g_devices = calloc(g_n_devices, sizeof(device));

	if (g_devices == NULL) {
		log_error("out of memory for %" PRIu32 " devices", g_n_devices);
		return -1;
	}

	dev* devs = bench_setup_devices(&g_cfg.devices, g_cfg.file_size_mbytes,
			g_cfg.disable_odsync, g_cfg.scheduler_mode);

	if (devs == NULL) {
		return -1;
	}

	uint32_t lb = g_cfg.large_block_bytes;
	char lines[CFG_MAX_DEVICES * (CFG_MAX_NAME + 128)];
	strbuf sb;

	sb_init(&sb, lines, sizeof(lines));

	for (uint32_t i = 0; i < g_n_devices; i++) {
		device* dv = &g_devices[i];

		dv->d = devs[i];

		uint32_t min_io = dv->d.min_io;

		dv->n_large_blocks = dv->d.size / lb;
		dv->usable_bytes = dv->n_large_blocks * lb;
		dv->read_min = round_up(g_cfg.record_stored, min_io);
		dv->read_max = round_up(g_cfg.record_stored_max, min_io);
		dv->write_unit = g_cfg.commit_min_bytes > min_io ?
				g_cfg.commit_min_bytes : min_io;
		dv->write_min = round_up(g_cfg.record_stored, dv->write_unit);
		dv->write_max = round_up(g_cfg.record_stored_max, dv->write_unit);

		if (g_cfg.read_sizes.n != 0) {
			for (uint32_t k = 0; k < g_cfg.read_sizes.n; k++) {
				dv->read_size_of[k] = round_up(g_cfg.read_sizes.size[k], min_io);
			}

			dv->read_max = round_up(g_cfg.read_sizes.max_size, min_io);
		}

		if (g_cfg.write_sizes.n != 0) {
			for (uint32_t k = 0; k < g_cfg.write_sizes.n; k++) {
				dv->write_size_of[k] = round_up(g_cfg.write_sizes.size[k],
						dv->write_unit);
			}

			dv->write_max = round_up(g_cfg.write_sizes.max_size,
					dv->write_unit);
		}

		if (lb % min_io != 0) {
			log_error("device %s: large-block-op-kbytes %" PRIu32 " is not a "
					"multiple of its minimum I/O size (%" PRIu32 " bytes)",
					dv->d.name, g_cfg.large_block_op_kbytes, min_io);
			goto fail;
		}

		if (dv->n_large_blocks == 0) {
			log_error("device %s: size %" PRIu64 " bytes holds no whole large "
					"block of %" PRIu32 " bytes", dv->d.name, dv->d.size, lb);
			goto fail;
		}

		uint32_t biggest = dv->read_max;

		if (g_cfg.commit_to_device && dv->write_max > biggest) {
			biggest = dv->write_max;
		}

		if (biggest > dv->usable_bytes) {
			log_error("device %s: usable size %" PRIu64 " bytes is smaller "
					"than a record I/O of %" PRIu32 " bytes", dv->d.name,
					dv->usable_bytes, biggest);
			goto fail;
		}

		sb_printf(&sb, "%s size = %" PRIu64 " bytes, %" PRIu64 " large blocks, "
				"minimum IO size = %" PRIu32 " bytes%s\n", dv->d.name,
				dv->d.size, dv->n_large_blocks, min_io,
				dv->d.buffered ? ", buffered" : "");
	}

	// Only now, with every device checked, may a file shrink.
	if (bench_commit_devices(devs, g_n_devices) != 0) {
		free(devs);
		return -1;
	}

	for (uint32_t i = 0; i < g_n_devices; i++) {
		g_devices[i].d = devs[i];
	}

	sb_printf(&sb, "\n");
	log_text(sb.buf, sb.len);
	free(devs);

	return 0;

fail:
	bench_undo_devices(devs, g_n_devices);
	free(devs);

	return -1;
}

static int
setup_histograms(void)
{
	bool reads = g_cfg.internal_read_reqs_per_sec != 0;
	bool lbs = g_cfg.write_reqs_per_sec != 0;
	bool writes = g_cfg.commit_to_device && lbs;
	uint32_t cap = 6 + 2 * g_n_devices;
	char name[REPORT_MAX_NAME];

	if (report_init(&g_report, cap, g_cfg.us_histograms ? HIST_US :
			HIST_MS) != 0) {
		log_error("out of memory for histograms");
		return -1;
	}

	if (reads) {
		g_reads = report_add(&g_report, "reads");

		for (uint32_t i = 0; i < g_n_devices; i++) {
			snprintf(name, sizeof(name), "%s-reads", g_devices[i].d.name);
			g_devices[i].reads = report_add(&g_report, name);
		}
	}

	if (lbs) {
		g_lb_reads = report_add(&g_report, "large-block-reads");
		g_lb_writes = report_add(&g_report, "large-block-writes");
	}

	if (writes) {
		g_writes = report_add(&g_report, "writes");

		for (uint32_t i = 0; i < g_n_devices; i++) {
			snprintf(name, sizeof(name), "%s-writes", g_devices[i].d.name);
			g_devices[i].writes = report_add(&g_report, name);
		}
	}

	if (g_cfg.total_latency) {
		if (reads) {
			g_total_reads = report_add(&g_report, "total-reads");
		}

		if (writes) {
			g_total_writes = report_add(&g_report, "total-writes");
		}
	}

	g_status.reads = g_reads;
	g_status.us = g_cfg.us_histograms;
	g_status.duration_sec = g_cfg.test_duration_sec;
	bench_status_add(&g_status, "reads", g_reads,
			g_cfg.internal_read_reqs_per_sec);
	bench_status_add(&g_status, "writes", g_writes,
			g_cfg.internal_write_reqs_per_sec);
	bench_status_add(&g_status, "lb-reads", g_lb_reads,
			g_cfg.large_block_reads_per_sec);
	bench_status_add(&g_status, "lb-writes", g_lb_writes,
			g_cfg.large_block_writes_per_sec);

	char buf[CFG_MAX_DEVICES * 2 * REPORT_MAX_NAME + 256];
	strbuf sb;

	sb_init(&sb, buf, sizeof(buf));
	report_names(&g_report, &sb);
	log_text(sb.buf, sb.len);

	return 0;
}

static int
start_threads(void)
{
	uint32_t n_service = g_cfg.service_threads;
	uint64_t load = (uint64_t)g_cfg.internal_read_reqs_per_sec +
			g_cfg.internal_write_reqs_per_sec;
	int rv = 0;

	g_start_ns = clock_ns();

	if (load != 0) {
		service_arg* args = calloc(n_service, sizeof(service_arg));

		g_service_args = args;

		if (args == NULL) {
			log_error("out of memory for %" PRIu32 " service threads",
					n_service);
			return -1;
		}

		// The remainder of load / threads is spread one each over the first
		// threads, so all threads together do exactly the configured rate.
		for (uint32_t i = 0; i < n_service && rv == 0; i++) {
			args[i].ix = i;
			args[i].rate = (uint32_t)(load / n_service) +
					(i < load % n_service ? 1 : 0);
			rv = run_thread_start(run_service, &args[i]);
		}

		if (rv != 0) {
			log_error("can't start service thread: %s (errno %d)",
					strerror(rv), rv);
			return -1;
		}
	}

	for (uint32_t i = 0; i < g_n_devices && rv == 0; i++) {
		device* dv = &g_devices[i];

		if (g_cfg.large_block_reads_per_sec > 0.0) {
			rv = run_thread_start(run_large_block_reads, dv);
		}

		if (rv == 0 && g_cfg.large_block_writes_per_sec > 0.0) {
			rv = run_thread_start(run_large_block_writes, dv);
		}

		if (rv == 0 && g_cfg.tomb_raider) {
			rv = run_thread_start(run_tomb_raider, dv);
		}
	}

	if (rv != 0) {
		log_error("can't start large-block thread: %s (errno %d)",
				strerror(rv), rv);
		return -1;
	}

	return 0;
}

//==========================================================
// Service threads.
//

static void*
run_service(void* pv)
{
	const service_arg* arg = pv;
	uint32_t n_reads = g_cfg.internal_read_reqs_per_sec;
	uint64_t n_all = (uint64_t)n_reads + g_cfg.internal_write_reqs_per_sec;
	uint32_t buf_size = 0;
	rand_t rnd;

	for (uint32_t i = 0; i < g_n_devices; i++) {
		if (g_devices[i].read_max > buf_size) {
			buf_size = g_devices[i].read_max;
		}

		if (g_cfg.commit_to_device && g_devices[i].write_max > buf_size) {
			buf_size = g_devices[i].write_max;
		}
	}

	uint8_t* buf = dev_alloc_buf(buf_size);

	if (buf == NULL) {
		log_error("out of memory for a %" PRIu32 "-byte buffer", buf_size);
		run_stop(EXIT_SETUP);
		return NULL;
	}

	if (arg->rate == 0) {
		free(buf);
		return NULL;
	}

	rand_seed(&rnd);

	rate_sched sched;

	rate_init(&sched, g_start_ns, (double)arg->rate,
			(double)arg->ix / (double)g_cfg.service_threads);
	rate_wait_start(&sched);

	while (run_going()) {
		uint64_t due = rate_next_due_ns(&sched);
		device* dv = &g_devices[rand_below(&rnd, g_n_devices)];
		bool write = rand_below(&rnd, n_all) >= n_reads;
		uint32_t size;
		uint64_t off;
		int err;
		uint64_t start;

		if (write) {
			size = g_cfg.write_sizes.n != 0 ?
					draw_size(&rnd, &g_cfg.write_sizes, dv->write_size_of, 1) :
					pick_size(&rnd, dv->write_min, dv->write_max,
							dv->write_unit);
			off = pick_offset(&rnd, dv, dv->write_max, dv->write_unit);
			rand_fill_compressible(&rnd, buf, size, g_cfg.compress_pct);
			start = clock_ns();
			err = io_write(dv->d.fd, buf, size, off);
		}
		else {
			size = g_cfg.read_sizes.n != 0 ?
					draw_size(&rnd, &g_cfg.read_sizes, dv->read_size_of, 0) :
					pick_size(&rnd, dv->read_min, dv->read_max, dv->d.min_io);
			off = pick_offset(&rnd, dv, dv->read_max, dv->d.min_io);
			start = clock_ns();
			err = io_read(dv->d.fd, buf, size, off);
		}

		uint64_t end = clock_ns();

		if (err != 0) {
			if (io_failed(dv->d.name, write ? "write" : "read", off, size,
					err)) {
				run_stop(EXIT_IO);
			}
		}
		else if (run_going()) {
			hist_insert_ns(write ? g_writes : g_reads, end - start);
			hist_insert_ns(write ? dv->writes : dv->reads, end - start);

			hist* total = write ? g_total_writes : g_total_reads;

			if (total != NULL) {
				hist_insert_ns(total, end - due);
			}
		}

		uint64_t lag = rate_done_and_wait(&sched);

		if (g_max_lag_ns != 0 && lag > g_max_lag_ns && run_going()) {
			uint64_t took = end - start;

			if (took > g_max_lag_ns) {
				bench_stall_stop(dv->d.name, write ? "write" : "read", size, off,
						took, g_cfg.max_lag_sec);
			}
			else if (bench_lag_stop(lag, g_cfg.max_lag_sec,
					"service threads")) {
				log_error("ACT can't do the requested load - test stopped - "
						"try configuring more service-threads");
			}

			break;
		}
	}

	free(buf);

	return NULL;
}

//==========================================================
// Large-block threads and tomb raider.
//

static void*
run_large_block_reads(void* pv)
{
	do_large_block_io(pv, false);

	return NULL;
}

static void*
run_large_block_writes(void* pv)
{
	do_large_block_io(pv, true);

	return NULL;
}

static void
do_large_block_io(device* dv, bool write)
{
	uint32_t lb = g_cfg.large_block_bytes;
	uint8_t* buf = dev_alloc_buf(lb);
	hist* h = write ? g_lb_writes : g_lb_reads;
	double rate = (write ? g_cfg.large_block_writes_per_sec :
			g_cfg.large_block_reads_per_sec) / g_n_devices;
	rand_t rnd;

	if (buf == NULL) {
		log_error("out of memory for a %" PRIu32 "-byte buffer", lb);
		run_stop(EXIT_SETUP);
		return;
	}

	rand_seed(&rnd);

	rate_sched sched;

	rate_init(&sched, g_start_ns, rate, 0.0);

	while (run_going()) {
		uint64_t off = rand_below(&rnd, dv->n_large_blocks) * lb;
		int err;

		if (write) {
			rand_fill_compressible(&rnd, buf, lb, g_cfg.compress_pct);
		}

		uint64_t start = clock_ns();

		err = write ? io_write(dv->d.fd, buf, lb, off) :
				io_read(dv->d.fd, buf, lb, off);

		uint64_t end = clock_ns();

		if (err != 0) {
			if (io_failed(dv->d.name, write ? "large-block write" :
					"large-block read", off, lb, err)) {
				run_stop(EXIT_IO);
			}
		}
		else if (run_going()) {
			hist_insert_ns(h, end - start);
		}

		uint64_t lag = rate_done_and_wait(&sched);

		if (g_max_lag_ns != 0 && lag > g_max_lag_ns && run_going()) {
			if (bench_lag_stop(lag, g_cfg.max_lag_sec, write ?
					"large-block writes" : "large-block reads")) {
				log_error("drive(s) can't keep up - test stopped");
			}

			break;
		}
	}

	free(buf);
}

static void*
run_tomb_raider(void* pv)
{
	device* dv = pv;
	uint32_t lb = g_cfg.large_block_bytes;
	uint8_t* buf = dev_alloc_buf(lb);
	uint64_t sleep_ns = (uint64_t)g_cfg.tomb_raider_sleep_usec * NS_PER_US;
	uint64_t block = 0;

	if (buf == NULL) {
		log_error("out of memory for a %" PRIu32 "-byte buffer", lb);
		run_stop(EXIT_SETUP);
		return NULL;
	}

	while (run_going()) {
		if (sleep_ns != 0) {
			run_sleep_until(clock_ns() + sleep_ns);
		}

		uint64_t off = block * lb;
		int err = io_read(dv->d.fd, buf, lb, off);

		if (err != 0 && io_failed(dv->d.name, "tomb-raider read", off, lb,
				err)) {
			run_stop(EXIT_IO);
		}

		if (++block == dv->n_large_blocks) {
			block = 0;
		}
	}

	free(buf);

	return NULL;
}

//==========================================================
// Request geometry.
//

static uint32_t
pick_size(rand_t* r, uint32_t min, uint32_t max, uint32_t unit)
{
	if (max == min) {
		return min;
	}

	return min + (uint32_t)rand_below(r, (max - min) / unit + 1) * unit;
}

// A size drawn from a size histogram's distribution (advanced-sizing.md),
// as rounded for the device; counted for the statistics hook.
static uint32_t
draw_size(rand_t* r, const storage_sizes* sizes, const uint32_t* size_of,
		uint32_t which)
{
	uint32_t i = storage_sizes_pick(sizes, rand_unit(r));

	atomic_fetch_add_explicit(&g_size_counts[which][i], 1,
			memory_order_relaxed);

	return size_of[i];
}

static void
write_size_stats(void)
{
	const char* path = getenv("ACT_SIZE_STATS");

	if (path == NULL || *path == '\0') {
		return;
	}

	FILE* f = fopen(path, "w");

	if (f == NULL) {
		log_warn("can't write ACT_SIZE_STATS file %s: %s", path,
				strerror(errno));
		return;
	}

	const storage_sizes* all[2] = { &g_cfg.read_sizes, &g_cfg.write_sizes };
	static const char* const kind[2] = { "reads", "writes" };

	// One line per histogram size: kind, index, size (before rounding to
	// the device), probability, times drawn.
	for (uint32_t w = 0; w < 2; w++) {
		for (uint32_t i = 0; i < all[w]->n; i++) {
			fprintf(f, "%s %" PRIu32 " %" PRIu32 " %.6f %" PRIu64 "\n", kind[w],
					i, all[w]->size[i], all[w]->prob[i],
					(uint64_t)atomic_load(&g_size_counts[w][i]));
		}
	}

	fclose(f);
}

// A unit-aligned offset such that the largest possible I/O still ends
// inside the usable (whole large block) area.
static uint64_t
pick_offset(rand_t* r, const device* dv, uint32_t max_size, uint32_t unit)
{
	uint64_t n_slots = (dv->usable_bytes - max_size) / unit + 1;

	return rand_below(r, n_slots) * unit;
}

static uint32_t
round_up(uint32_t v, uint32_t to)
{
	return (uint32_t)(((uint64_t)v + to - 1) / to * to);
}
