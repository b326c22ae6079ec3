/*
 * act_storage.c - the storage device I/O test (docs/act_storage.md).
 *
 * Models the device I/O of a database storing records on flash:
 *  - service threads do the client reads (small random reads) and, with
 *    commit-to-device, the record writes, at a fixed rate;
 *  - per device, a large-block write thread models the flushing of write
 *    buffers plus defragmentation, and a large-block read thread the
 *    defragmentation reads;
 *  - optionally, per device, a tomb raider reading the device round and
 *    round.
 * The run harness (harness.h) paces the threads, records latencies and
 * prints the reports; this file decides what each request is.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/dev.h"
#include "common/harness.h"
#include "common/hist.h"
#include "common/log.h"
#include "common/loglines.h"
#include "common/rand.h"
#include "common/run.h"
#include "common/strbuf.h"
#include "storage/storage_cfg.h"

//==========================================================
// Typedefs & constants.
//

// Per-device request geometry, from the config and the device's minimum
// I/O size, and the device's histograms.
typedef struct geometry_s {
	uint64_t n_large_blocks;
	uint64_t usable_bytes;   // whole large blocks only
	uint32_t min_io;
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
} geometry;

// The program's context.
typedef struct storage_s {
	storage_cfg cfg;
	geometry geo[ACT_MAX_DEVICES];
	hist* reads;
	hist* writes;
	hist* lb_reads;
	hist* lb_writes;
	hist* total_reads;
	hist* total_writes;
} storage;

static const char ABOUT[] =
	"Runs the storage device I/O test described by CONFIG-FILE and prints\n"
	"the log on stdout.\n";

//==========================================================
// Forward declarations.
//

static int load(harness* h, const cfg_source* src, uint32_t n_cpus,
		harness_params* p, char* err, size_t err_len);
static void echo(harness* h, strbuf* sb);
static int setup_device(harness* h, uint32_t i, strbuf* sb);
static void setup_run(harness* h);
static void service_step(harness_worker* w);
static void large_block_read_step(harness_worker* w);
static void large_block_write_step(harness_worker* w);
static void large_block_step(harness_worker* w, bool write);
static void tomb_raider_step(harness_worker* w);
static uint32_t pick_size(rand_t* r, uint32_t min, uint32_t max,
		uint32_t unit);
static uint64_t pick_offset(rand_t* r, const geometry* g, uint32_t max_size,
		uint32_t unit);
static uint32_t draw_size(rand_t* r, const storage_sizes* sizes,
		const uint32_t* size_of);
static uint32_t round_up(uint32_t v, uint32_t to);

static const harness_program PROGRAM = {
	.name = "act_storage",
	.test_kind = "Storage device IO test",
	.about = ABOUT,
	.table = &g_storage_cfg_table,
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
	static storage s;

	return harness_main(argc, argv, &PROGRAM, &s);
}

//==========================================================
// Setup.
//

static int
load(harness* h, const cfg_source* src, uint32_t n_cpus,
		harness_params* p, char* err, size_t err_len)
{
	storage_cfg* c = &((storage*)harness_prog(h))->cfg;

	p->set = &c->set;

	if (storage_cfg_load(c, src, n_cpus, err, err_len) != 0) {
		return -1;
	}

	p->cfg = &c->common;

	uint64_t per_device = (c->large_block_reads_per_sec > 0.0 ? 1 : 0) +
			(c->large_block_writes_per_sec > 0.0 ? 1 : 0) +
			(c->tomb_raider ? 1 : 0);

	p->threads = (uint64_t)c->common.service_threads +
			per_device * c->common.devices.n;
	p->threads_item = "service-threads";

	return 0;
}

static void
echo(harness* h, strbuf* sb)
{
	storage_cfg_echo(&((storage*)harness_prog(h))->cfg, sb);
}

static int
setup_device(harness* h, uint32_t i, strbuf* sb)
{
	storage* s = harness_prog(h);
	const storage_cfg* c = &s->cfg;
	const dev* d = harness_dev(h, i);
	geometry* g = &s->geo[i];
	uint32_t lb = c->large_block_bytes;
	uint32_t min_io = d->min_io;

	g->min_io = min_io;
	g->n_large_blocks = d->size / lb;
	g->usable_bytes = g->n_large_blocks * lb;
	g->read_min = round_up(c->record_stored, min_io);
	g->read_max = round_up(c->record_stored_max, min_io);
	g->write_unit = c->commit_min_bytes > min_io ? c->commit_min_bytes :
			min_io;
	g->write_min = round_up(c->record_stored, g->write_unit);
	g->write_max = round_up(c->record_stored_max, g->write_unit);

	if (c->read_sizes.n != 0) {
		for (uint32_t k = 0; k < c->read_sizes.n; k++) {
			g->read_size_of[k] = round_up(c->read_sizes.size[k], min_io);
		}

		g->read_max = round_up(c->read_sizes.max_size, min_io);
	}

	if (c->write_sizes.n != 0) {
		for (uint32_t k = 0; k < c->write_sizes.n; k++) {
			g->write_size_of[k] = round_up(c->write_sizes.size[k],
					g->write_unit);
		}

		g->write_max = round_up(c->write_sizes.max_size, g->write_unit);
	}

	if (lb % min_io != 0) {
		log_error("device %s: large-block-op-kbytes %" PRIu32 " is not a "
				"multiple of its minimum I/O size (%" PRIu32 " bytes)",
				d->name, c->large_block_op_kbytes, min_io);
		return -1;
	}

	if (g->n_large_blocks == 0) {
		log_error("device %s: size %" PRIu64 " bytes holds no whole large "
				"block of %" PRIu32 " bytes", d->name, d->size, lb);
		return -1;
	}

	uint32_t biggest = g->read_max;

	if (c->commit_to_device && g->write_max > biggest) {
		biggest = g->write_max;
	}

	if (biggest > g->usable_bytes) {
		log_error("device %s: usable size %" PRIu64 " bytes is smaller "
				"than a record I/O of %" PRIu32 " bytes", d->name,
				g->usable_bytes, biggest);
		return -1;
	}

	ll_storage_device(sb, d->name, d->size, g->n_large_blocks, min_io,
			d->buffered);

	return 0;
}

// The histograms (docs/act_storage.md, "Histogram names"), the status line
// and the thread kinds.
static void
setup_run(harness* h)
{
	storage* s = harness_prog(h);
	const storage_cfg* c = &s->cfg;
	uint32_t n_devices = harness_n_devices(h);
	bool reads = c->internal_read_reqs_per_sec != 0;
	bool lbs = c->common.write_reqs_per_sec != 0;
	bool writes = c->commit_to_device && lbs;

	if (reads) {
		s->reads = harness_hist(h, "reads");

		for (uint32_t i = 0; i < n_devices; i++) {
			s->geo[i].reads = harness_hist(h, "%s-reads",
					harness_dev(h, i)->name);
		}
	}

	if (lbs) {
		s->lb_reads = harness_hist(h, "large-block-reads");
		s->lb_writes = harness_hist(h, "large-block-writes");
	}

	if (writes) {
		s->writes = harness_hist(h, "writes");

		for (uint32_t i = 0; i < n_devices; i++) {
			s->geo[i].writes = harness_hist(h, "%s-writes",
					harness_dev(h, i)->name);
		}
	}

	if (c->common.total_latency) {
		if (reads) {
			s->total_reads = harness_hist(h, "total-reads");
		}

		if (writes) {
			s->total_writes = harness_hist(h, "total-writes");
		}
	}

	harness_status_reads(h, s->reads);
	harness_status_rate(h, "reads", s->reads, c->internal_read_reqs_per_sec);
	harness_status_rate(h, "writes", s->writes,
			c->internal_write_reqs_per_sec);
	harness_status_rate(h, "lb-reads", s->lb_reads,
			c->large_block_reads_per_sec);
	harness_status_rate(h, "lb-writes", s->lb_writes,
			c->large_block_writes_per_sec);

	// Service threads: one buffer fits the largest small read or write.
	uint32_t buf_size = 0;

	for (uint32_t i = 0; i < n_devices; i++) {
		if (s->geo[i].read_max > buf_size) {
			buf_size = s->geo[i].read_max;
		}

		if (c->commit_to_device && s->geo[i].write_max > buf_size) {
			buf_size = s->geo[i].write_max;
		}
	}

	harness_add_kind(h, &(harness_kind){
		.name = "service threads",
		.lag_advice = LL_MORE_SERVICE_THREADS,
		.pacing = HARNESS_PACE_CLIENT,
		.n_threads = c->common.service_threads,
		.rate = (double)c->internal_read_reqs_per_sec +
				(double)c->internal_write_reqs_per_sec,
		.buf_size = buf_size,
		.step = service_step
	});

	harness_add_kind(h, &(harness_kind){
		.name = "large-block reads",
		.lag_advice = LL_HOST_NOT_DRIVE,
		.pacing = HARNESS_PACE_START,
		.per_device = true,
		.rate = c->large_block_reads_per_sec,
		.buf_size = c->large_block_bytes,
		.step = large_block_read_step
	});

	harness_add_kind(h, &(harness_kind){
		.name = "large-block writes",
		.lag_advice = LL_HOST_NOT_DRIVE,
		.pacing = HARNESS_PACE_START,
		.per_device = true,
		.rate = c->large_block_writes_per_sec,
		.buf_size = c->large_block_bytes,
		.step = large_block_write_step
	});

	if (c->tomb_raider) {
		harness_add_kind(h, &(harness_kind){
			.name = "tomb raider",
			.pacing = HARNESS_PACE_NONE,
			.per_device = true,
			.buf_size = c->large_block_bytes,
			.step = tomb_raider_step
		});
	}
}

//==========================================================
// Service threads.
//

// One client request: a small read, or with commit-to-device a record
// write, of a random device.
static void
service_step(harness_worker* w)
{
	storage* s = harness_prog(w->h);
	const storage_cfg* c = &s->cfg;
	uint32_t n_reads = c->internal_read_reqs_per_sec;
	uint64_t n_all = (uint64_t)n_reads + c->internal_write_reqs_per_sec;
	uint32_t ix = (uint32_t)rand_below(&w->rnd, harness_n_devices(w->h));
	geometry* g = &s->geo[ix];
	bool write = rand_below(&w->rnd, n_all) >= n_reads;
	harness_req r = { .dev_ix = ix, .write = write };

	if (write) {
		r.op = LL_OP_WRITE;
		r.size = c->write_sizes.n != 0 ?
				draw_size(&w->rnd, &c->write_sizes, g->write_size_of) :
				pick_size(&w->rnd, g->write_min, g->write_max, g->write_unit);
		r.off = pick_offset(&w->rnd, g, g->write_max, g->write_unit);
		r.h = s->writes;
		r.dev_h = g->writes;
		r.total = s->total_writes;
		rand_fill_compressible(&w->rnd, w->buf, r.size, c->compress_pct);
	}
	else {
		r.op = LL_OP_READ;
		r.size = c->read_sizes.n != 0 ?
				draw_size(&w->rnd, &c->read_sizes, g->read_size_of) :
				pick_size(&w->rnd, g->read_min, g->read_max, g->min_io);
		r.off = pick_offset(&w->rnd, g, g->read_max, g->min_io);
		r.h = s->reads;
		r.dev_h = g->reads;
		r.total = s->total_reads;
	}

	harness_io(w, &r);
}

//==========================================================
// Large-block threads and tomb raider.
//

static void
large_block_read_step(harness_worker* w)
{
	large_block_step(w, false);
}

static void
large_block_write_step(harness_worker* w)
{
	large_block_step(w, true);
}

// One large block of this thread's device, at a random whole-block offset;
// a write with fresh random content.
static void
large_block_step(harness_worker* w, bool write)
{
	storage* s = harness_prog(w->h);
	const storage_cfg* c = &s->cfg;
	uint32_t lb = c->large_block_bytes;
	harness_req r = {
		.dev_ix = w->dev_ix,
		.op = write ? LL_OP_LB_WRITE : LL_OP_LB_READ,
		.write = write,
		.size = lb,
		.off = rand_below(&w->rnd, s->geo[w->dev_ix].n_large_blocks) * lb,
		.h = write ? s->lb_writes : s->lb_reads
	};

	if (write) {
		rand_fill_compressible(&w->rnd, w->buf, lb, c->compress_pct);
	}

	harness_io(w, &r);
}

// The next large block of this thread's device (w->cursor), after
// tomb-raider-sleep-usec; round and round; no histogram.
static void
tomb_raider_step(harness_worker* w)
{
	storage* s = harness_prog(w->h);
	const storage_cfg* c = &s->cfg;
	uint64_t sleep_ns = (uint64_t)c->tomb_raider_sleep_usec * NS_PER_US;
	uint32_t lb = c->large_block_bytes;

	if (sleep_ns != 0) {
		run_sleep_until(clock_ns() + sleep_ns);
	}

	harness_io(w, &(harness_req){
		.dev_ix = w->dev_ix,
		.op = LL_OP_TOMB_READ,
		.size = lb,
		.off = w->cursor * lb
	});

	if (++w->cursor == s->geo[w->dev_ix].n_large_blocks) {
		w->cursor = 0;
	}
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

// A size drawn from a size histogram's distribution (docs/advanced-sizing.md),
// as rounded for the device.
static uint32_t
draw_size(rand_t* r, const storage_sizes* sizes, const uint32_t* size_of)
{
	return size_of[storage_sizes_pick(sizes, rand_unit(r))];
}

// A unit-aligned offset such that the largest possible I/O still ends
// inside the usable (whole large block) area.
static uint64_t
pick_offset(rand_t* r, const geometry* g, uint32_t max_size, uint32_t unit)
{
	uint64_t n_slots = (g->usable_bytes - max_size) / unit + 1;

	return rand_below(r, n_slots) * unit;
}

static uint32_t
round_up(uint32_t v, uint32_t to)
{
	return (uint32_t)(((uint64_t)v + to - 1) / to * to);
}
