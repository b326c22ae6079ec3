/*
 * act_index.c - the index device I/O test ("All Flash" mode,
 * docs/act_index.md).
 *
 * Models a primary index kept on flash and reached through mmap, without
 * the mmap: every client read and write costs one 4 KiB index read (service
 * threads), and the page cache's write-back plus defragmentation cost
 * further 4 KiB reads and writes (cache threads, in bundles of 100
 * read+write pairs). All I/O is 4096 bytes at a random 4096-aligned offset
 * of a random device, each chosen on its own. The run harness (harness.h) does the pacing, the
 * histograms and the reports.
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/dev.h"
#include "common/harness.h"
#include "common/hist.h"
#include "common/log.h"
#include "common/loglines.h"
#include "common/rand.h"
#include "common/run.h"
#include "common/strbuf.h"
#include "index/index_cfg.h"

//==========================================================
// Typedefs & constants.
//

#define INDEX_IO_SIZE 4096
#define CACHE_BUNDLE 100

typedef struct slots_s {
	uint64_t n_slots;     // 4 KiB slots
	hist* reads;
	hist* writes;
} slots;

// The program's context.
typedef struct index_s {
	index_cfg cfg;
	slots dev[INDEX_MAX_DEVICES];
	hist* reads;
	hist* writes;
	hist* total_reads;
} index_ctx;

static const char ABOUT[] =
	"Runs the index device I/O test (\"All Flash\" mode) described by\n"
	"CONFIG-FILE and prints the log on stdout.\n";

//==========================================================
// Forward declarations.
//

static int load(harness* h, const cfg_source* src, uint32_t n_cpus,
		harness_params* p, char* err, size_t err_len);
static void echo(harness* h, strbuf* sb);
static int setup_device(harness* h, uint32_t i, strbuf* sb);
static void setup_run(harness* h);
static void service_step(harness_worker* w);
static void cache_step(harness_worker* w);
static void index_read(harness_worker* w, hist* total);

static const harness_program PROGRAM = {
	.name = "act_index",
	.test_kind = "Index device IO test",
	.about = ABOUT,
	.table = &g_index_cfg_table,
	.load = load,
	.echo = echo,
	.setup_device = setup_device,
	.setup_run = setup_run
};

//==========================================================
// Main.
//

int
main(int argc, char* argv[])
{
	static index_ctx x;

	return harness_main(argc, argv, &PROGRAM, &x);
}

//==========================================================
// Setup.
//

static int
load(harness* h, const cfg_source* src, uint32_t n_cpus,
		harness_params* p, char* err, size_t err_len)
{
	index_cfg* c = &((index_ctx*)harness_prog(h))->cfg;

	p->set = &c->set;

	if (index_cfg_load(c, src, n_cpus, err, err_len) != 0) {
		return -1;
	}

	p->cfg = &c->common;
	p->threads = (uint64_t)c->common.service_threads + c->cache_threads;
	p->threads_item = c->cache_threads > c->common.service_threads ?
			"cache-threads" : "service-threads";

	return 0;
}

static void
echo(harness* h, strbuf* sb)
{
	index_cfg_echo(&((index_ctx*)harness_prog(h))->cfg, sb);
}

static int
setup_device(harness* h, uint32_t i, strbuf* sb)
{
	index_ctx* x = harness_prog(h);
	const dev* d = harness_dev(h, i);

	x->dev[i].n_slots = d->size / INDEX_IO_SIZE;

	if (x->dev[i].n_slots == 0) {
		log_error("device %s: size %" PRIu64 " bytes is smaller than one "
				"%d-byte index block", d->name, d->size, INDEX_IO_SIZE);
		return -1;
	}

	ll_index_device(sb, d->name, d->size, d->buffered);

	return 0;
}

static void
setup_run(harness* h)
{
	index_ctx* x = harness_prog(h);
	const index_cfg* c = &x->cfg;
	uint32_t n_devices = harness_n_devices(h);
	uint64_t cache_rate = c->cache_thread_reads_and_writes_per_sec;

	x->reads = harness_hist(h, "reads");

	for (uint32_t i = 0; i < n_devices; i++) {
		x->dev[i].reads = harness_hist(h, "%s-reads", harness_dev(h, i)->name);
	}

	if (cache_rate != 0) {
		x->writes = harness_hist(h, "writes");

		for (uint32_t i = 0; i < n_devices; i++) {
			x->dev[i].writes = harness_hist(h, "%s-writes",
					harness_dev(h, i)->name);
		}
	}

	if (c->common.total_latency) {
		x->total_reads = harness_hist(h, "total-reads");
	}

	// The status line tells the service reads from the cache reads, which
	// share the "reads" histogram: a cache thread's reads are counted as
	// the writes they pair with (one each, back to back), and the rest of
	// the reads are the service threads'.
	harness_status_reads(h, x->reads);
	harness_status_rate_short(h, "service reads", "svc reads", x->reads,
			x->writes, (double)c->service_thread_reads_per_sec);
	harness_status_rate_short(h, "cache reads", "cache r", x->writes, NULL,
			(double)cache_rate);
	harness_status_rate_short(h, "cache writes", "w", x->writes, NULL,
			(double)cache_rate);

	harness_add_kind(h, &(harness_kind){
		.name = "service threads",
		.lag_advice = LL_MORE_SERVICE_THREADS,
		.pacing = HARNESS_PACE_CLIENT,
		.n_threads = c->common.service_threads,
		.rate = (double)c->service_thread_reads_per_sec,
		.buf_size = INDEX_IO_SIZE,
		.step = service_step
	});

	// The cache rate is the whole configured rate across all devices (the
	// reference also divides it by the number of devices; see
	// docs/act_index.md), paced per bundle of CACHE_BUNDLE pairs.
	harness_add_kind(h, &(harness_kind){
		.name = "cache threads",
		.lag_advice = LL_MORE_CACHE_THREADS,
		.pacing = HARNESS_PACE_CLIENT,
		.n_threads = c->cache_threads,
		.rate = (double)cache_rate,
		.ops_per_step = CACHE_BUNDLE,
		.buf_size = INDEX_IO_SIZE,
		.step = cache_step
	});
}

//==========================================================
// Threads.
//

// One client request: one index read.
static void
service_step(harness_worker* w)
{
	index_ctx* x = harness_prog(w->h);

	index_read(w, x->total_reads);
}

// A bundle of CACHE_BUNDLE read+write pairs, back to back, as the
// reference's cache threads do them: each read and each write goes to its
// own random block of its own random device (a write with new content).
static void
cache_step(harness_worker* w)
{
	index_ctx* x = harness_prog(w->h);
	uint32_t n_devices = harness_n_devices(w->h);

	for (uint32_t i = 0; i < CACHE_BUNDLE && run_going(); i++) {
		index_read(w, NULL);

		uint32_t dev_ix = (uint32_t)rand_below(&w->rnd, n_devices);
		uint64_t off = rand_below(&w->rnd, x->dev[dev_ix].n_slots) * INDEX_IO_SIZE;
		rand_fill(&w->rnd, w->buf, INDEX_IO_SIZE);
		harness_io(w, &(harness_req){
			.dev_ix = dev_ix,
			.op = LL_OP_WRITE,
			.write = true,
			.size = INDEX_IO_SIZE,
			.off = off,
			.h = x->writes,
			.dev_h = x->dev[dev_ix].writes
		});
	}
}

// One 4 KiB read of a random block of a random device, recorded in the
// read histograms (and in total, if not NULL).
static void
index_read(harness_worker* w, hist* total)
{
	index_ctx* x = harness_prog(w->h);
	uint32_t ix = (uint32_t)rand_below(&w->rnd, harness_n_devices(w->h));

	harness_io(w, &(harness_req){
		.dev_ix = ix,
		.op = LL_OP_READ,
		.size = INDEX_IO_SIZE,
		.off = rand_below(&w->rnd, x->dev[ix].n_slots) * INDEX_IO_SIZE,
		.h = x->reads,
		.dev_h = x->dev[ix].reads,
		.total = total
	});
}
