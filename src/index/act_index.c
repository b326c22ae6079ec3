/*
 * act_index.c - the index device I/O test ("All Flash" mode).
 *
 * Models a primary index kept on flash and reached through mmap, without
 * the mmap: every client read and write costs one 4 KiB index read (service
 * threads), and the page cache's write-back plus defragmentation cost
 * further 4 KiB reads and writes (cache threads, in bundles of 100
 * read+write pairs). All I/O is 4096 bytes at a random 4096-aligned offset
 * of a random device.
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "clock.h"
#include "dev.h"
#include "hist.h"
#include "index_cfg.h"
#include "io.h"
#include "log.h"
#include "rand.h"
#include "rate.h"
#include "report.h"
#include "run.h"
#include "strbuf.h"

//==========================================================
// Typedefs & constants.
//

#define INDEX_IO_SIZE 4096
#define CACHE_BUNDLE 100

typedef struct device_s {
	dev d;
	uint64_t n_slots;     // 4 KiB slots
	hist* reads;
	hist* writes;
} device;

typedef struct thread_arg_s {
	uint32_t ix;
	double rate;          // operations (service) or pairs (cache) per sec
} thread_arg;

//==========================================================
// Globals.
//

static index_cfg g_cfg;
static device* g_devices = NULL;
static uint32_t g_n_devices = 0;
static report g_report;
static bench_status g_status;
static uint64_t g_start_ns = 0;
static uint64_t g_max_lag_ns = 0;
static thread_arg* g_args = NULL;

static hist* g_reads = NULL;
static hist* g_writes = NULL;
static hist* g_total_reads = NULL;

static const char USAGE[] =
	"usage: act_index CONFIG-FILE > LOG\n"
	"       act_index --help | --version\n"
	"\n"
	"Runs the index device I/O test (\"All Flash\" mode) described by\n"
	"CONFIG-FILE (see config/act_index.conf for every item and its default)\n"
	"and prints the log on stdout. Analyse it with\n"
	"analysis/act_latency.py -l LOG.\n"
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
static void* run_cache(void* pv);
static bool do_read(rand_t* rnd, uint8_t* buf, uint64_t due,
		uint64_t* took_ns, device** which, uint64_t* off);

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
	bench_banner("Index device IO test");

	char err[1024];

	if (index_cfg_load(&g_cfg, config_path, bench_n_cpus(), err,
			sizeof(err)) != 0) {
		log_error("%s", err);
		return EXIT_USAGE;
	}

	char echo[8192];
	strbuf sb;

	sb_init(&sb, echo, sizeof(echo));
	index_cfg_echo(&g_cfg, &sb);
	log_text(sb.buf, sb.len);

	io_set_error_limit(g_cfg.io_error_limit);
	g_max_lag_ns = (uint64_t)g_cfg.max_lag_sec * NS_PER_SEC;

	if (setup_devices() != 0 || setup_histograms() != 0) {
		return EXIT_SETUP;
	}

	bool joined;

	rv = bench_run(start_threads, &g_start_ns, g_cfg.test_duration_sec,
			g_cfg.report_interval_sec, &g_report, &g_status, &joined);

	if (! joined) {
		return rv; // a thread is stuck in an I/O: leave its memory alone
	}

	for (uint32_t i = 0; i < g_n_devices; i++) {
		dev_close(&g_devices[i].d);
	}

	free(g_devices);
	free(g_args);
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

	char lines[INDEX_MAX_DEVICES * (CFG_MAX_NAME + 64)];
	strbuf sb;

	sb_init(&sb, lines, sizeof(lines));

	for (uint32_t i = 0; i < g_n_devices; i++) {
		device* dv = &g_devices[i];

		dv->d = devs[i];
		dv->n_slots = dv->d.size / INDEX_IO_SIZE;

		if (dv->n_slots == 0) {
			log_error("device %s: size %" PRIu64 " bytes is smaller than one "
					"%d-byte index block", dv->d.name, dv->d.size,
					INDEX_IO_SIZE);
			bench_undo_devices(devs, g_n_devices);
			free(devs);
			return -1;
		}

		sb_printf(&sb, "%s size = %" PRIu64 " bytes%s\n", dv->d.name,
				dv->d.size, dv->d.buffered ? ", buffered" : "");
	}

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
}

static int
setup_histograms(void)
{
	bool cache = g_cfg.cache_thread_reads_and_writes_per_sec != 0;
	char name[REPORT_MAX_NAME];

	if (report_init(&g_report, 3 + 2 * g_n_devices, g_cfg.us_histograms ?
			HIST_US : HIST_MS) != 0) {
		log_error("out of memory for histograms");
		return -1;
	}

	g_reads = report_add(&g_report, "reads");

	for (uint32_t i = 0; i < g_n_devices; i++) {
		snprintf(name, sizeof(name), "%s-reads", g_devices[i].d.name);
		g_devices[i].reads = report_add(&g_report, name);
	}

	if (cache) {
		g_writes = report_add(&g_report, "writes");

		for (uint32_t i = 0; i < g_n_devices; i++) {
			snprintf(name, sizeof(name), "%s-writes", g_devices[i].d.name);
			g_devices[i].writes = report_add(&g_report, name);
		}
	}

	if (g_cfg.total_latency) {
		g_total_reads = report_add(&g_report, "total-reads");
	}

	double cache_rate = (double)g_cfg.cache_thread_reads_and_writes_per_sec;

	g_status.reads = g_reads;
	g_status.us = g_cfg.us_histograms;
	g_status.duration_sec = g_cfg.test_duration_sec;
	bench_status_add(&g_status, "reads", g_reads,
			(double)g_cfg.service_thread_reads_per_sec + cache_rate);
	bench_status_add(&g_status, "writes", g_writes, cache_rate);

	char buf[INDEX_MAX_DEVICES * 2 * REPORT_MAX_NAME + 256];
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
	uint32_t n_cache = g_cfg.cache_threads;
	uint64_t service_rate = g_cfg.service_thread_reads_per_sec;
	uint64_t cache_rate = g_cfg.cache_thread_reads_and_writes_per_sec;

	g_args = calloc((size_t)n_service + n_cache, sizeof(thread_arg));

	if (g_args == NULL) {
		log_error("out of memory for %" PRIu32 " threads",
				n_service + n_cache);
		return -1;
	}

	g_start_ns = clock_ns();

	int rv = 0;

	// The remainder of rate / threads goes one each to the first threads,
	// so all together do exactly the configured rate.
	for (uint32_t i = 0; i < n_service && rv == 0; i++) {
		g_args[i].ix = i;
		g_args[i].rate = (double)(service_rate / n_service +
				(i < service_rate % n_service ? 1 : 0));
		rv = run_thread_start(run_service, &g_args[i]);
	}

	// The cache rate is the whole configured rate across all devices (the
	// reference also divides it by the number of devices; see the spec).
	for (uint32_t i = 0; cache_rate != 0 && i < n_cache && rv == 0; i++) {
		thread_arg* a = &g_args[n_service + i];

		a->ix = i;
		a->rate = (double)cache_rate / n_cache;
		rv = run_thread_start(run_cache, a);
	}

	if (rv != 0) {
		log_error("can't start thread: %s (errno %d)", strerror(rv), rv);
		return -1;
	}

	return 0;
}

//==========================================================
// Threads.
//

static void*
run_service(void* pv)
{
	const thread_arg* arg = pv;
	uint8_t* buf = dev_alloc_buf(INDEX_IO_SIZE);
	rand_t rnd;

	if (buf == NULL) {
		log_error("out of memory for a %d-byte buffer", INDEX_IO_SIZE);
		run_stop(EXIT_SETUP);
		return NULL;
	}

	if (arg->rate == 0.0) {
		free(buf);
		return NULL;
	}

	rand_seed(&rnd);

	rate_sched sched;

	rate_init(&sched, g_start_ns, arg->rate,
			(double)arg->ix / (double)g_cfg.service_threads);
	rate_wait_start(&sched);

	while (run_going()) {
		uint64_t due = rate_next_due_ns(&sched);
		uint64_t took = 0;
		uint64_t off = 0;
		device* dv = NULL;

		do_read(&rnd, buf, due, &took, &dv, &off);

		uint64_t lag = rate_done_and_wait(&sched);

		if (g_max_lag_ns != 0 && lag > g_max_lag_ns && run_going()) {
			if (took > g_max_lag_ns) {
				bench_stall_stop(dv->d.name, "read", INDEX_IO_SIZE, off, took,
						g_cfg.max_lag_sec);
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

static void*
run_cache(void* pv)
{
	const thread_arg* arg = pv;
	uint8_t* buf = dev_alloc_buf(INDEX_IO_SIZE);
	rand_t rnd;

	if (buf == NULL) {
		log_error("out of memory for a %d-byte buffer", INDEX_IO_SIZE);
		run_stop(EXIT_SETUP);
		return NULL;
	}

	rand_seed(&rnd);

	// Paced per bundle: bundle k is due at start + (k + phase) * 100 / rate.
	rate_sched sched;

	rate_init(&sched, g_start_ns, arg->rate / CACHE_BUNDLE,
			(double)arg->ix / (double)g_cfg.cache_threads);
	rate_wait_start(&sched);

	while (run_going()) {
		for (uint32_t i = 0; i < CACHE_BUNDLE && run_going(); i++) {
			uint64_t took;
			uint64_t off;
			device* dv;

			if (do_read(&rnd, buf, 0, &took, &dv, &off)) {
				// Write the same index block back, with new content.
				rand_fill(&rnd, buf, INDEX_IO_SIZE);

				uint64_t start = clock_ns();
				int err = io_write(dv->d.fd, buf, INDEX_IO_SIZE, off);
				uint64_t end = clock_ns();

				if (err != 0) {
					if (io_failed(dv->d.name, "write", off, INDEX_IO_SIZE,
							err)) {
						run_stop(EXIT_IO);
					}
				}
				else if (run_going()) {
					hist_insert_ns(g_writes, end - start);
					hist_insert_ns(dv->writes, end - start);
				}
			}
		}

		uint64_t lag = rate_done_and_wait(&sched);

		if (g_max_lag_ns != 0 && lag > g_max_lag_ns && run_going()) {
			if (bench_lag_stop(lag, g_cfg.max_lag_sec, "cache threads")) {
				log_error("drive(s) can't keep up - test stopped");
			}

			break;
		}
	}

	free(buf);

	return NULL;
}

// One 4 KiB read of a random block of a random device, recorded in the
// read histograms (and, with a due time, total-reads). Returns false if it
// failed.
static bool
do_read(rand_t* rnd, uint8_t* buf, uint64_t due, uint64_t* took_ns,
		device** which, uint64_t* off)
{
	device* dv = &g_devices[rand_below(rnd, g_n_devices)];

	*which = dv;
	*off = rand_below(rnd, dv->n_slots) * INDEX_IO_SIZE;

	uint64_t start = clock_ns();
	int err = io_read(dv->d.fd, buf, INDEX_IO_SIZE, *off);
	uint64_t end = clock_ns();

	*took_ns = end - start;

	if (err != 0) {
		if (io_failed(dv->d.name, "read", *off, INDEX_IO_SIZE, err)) {
			run_stop(EXIT_IO);
		}

		return false;
	}

	if (run_going()) {
		hist_insert_ns(g_reads, end - start);
		hist_insert_ns(dv->reads, end - start);

		if (due != 0 && g_total_reads != NULL) {
			hist_insert_ns(g_total_reads, end - due);
		}
	}

	return true;
}
