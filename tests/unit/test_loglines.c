/*
 * test_loglines.c - the log's grammar (common/loglines.h): a sample of
 * every kind of line of the catalogue, made by the formatters the
 * programs call (linked, not copied).
 *
 *   test_loglines            the checks below; a summary line
 *   test_loglines --samples  the same, and every sample on stdout, one a
 *                            line: TOKEN<TAB>LINE[<TAB>FIELD=VALUE]... -
 *                            the line as the log has it, and the values
 *                            the formatter was given as the line shows
 *                            them (a field the line lacks is left out)
 *   test_loglines --kinds    the catalogue: TOKEN<TAB>WORDS, one a line
 *
 * Checks: every kind of the catalogue has a sample; every sample is of a
 * kind of the catalogue, one line, no TAB; a request's reason as
 * ll_reason makes it. tests/python/logfile/test_lines.py parses every
 * sample with act.logfile; tests/python/support.py makes its fixtures of
 * them.
 */

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/loglines.h"
#include "common/report.h"
#include "common/run.h"
#include "common/strbuf.h"
#include "common/version.h"
#include "index/index_cfg.h"
#include "storage/storage_cfg.h"
#include "unit.h"

//==========================================================
// Typedefs & constants.
//

#define MAX_KINDS 64
#define ERROR_LINE(msg) prefixed(LOG_ERROR, (msg))
#define TEXT_LEN 16384

// A config whose echo has every derived key (the size histograms give the
// average sizes).
static const char STORAGE_CONFIG[] =
	"device-names: /dev/sdb /dev/sdc\n"
	"service-threads: 40\n"
	"test-duration-sec: 86400\n"
	"read-reqs-per-sec: 4000\n"
	"write-reqs-per-sec: 2000\n"
	"commit-to-device: yes\n"
	"storage-read-histogram: 100,100,100,100,100,100,100,100,100,100,84,"
	"50,0\n"
	"storage-write-histogram: 100,100,100,100,100,100,100,100,100,100,"
	"100,60,0\n";

static const char INDEX_CONFIG[] =
	"device-names: /dev/nvme0n1\n"
	"service-threads: 20\n"
	"cache-threads: 8\n"
	"test-duration-sec: 3600\n"
	"read-reqs-per-sec: 8000\n"
	"write-reqs-per-sec: 1000\n";

//==========================================================
// Globals.
//

static bool g_print = false;
static uint32_t g_n_samples[MAX_KINDS];

//==========================================================
// Samples.
//

static int
kind_of(const char* token)
{
	for (uint32_t i = 0; i < ll_n_kinds; i++) {
		if (strcmp(ll_kinds[i].token, token) == 0) {
			return (int)i;
		}
	}

	return -1;
}

// One sample: the line of a kind, and its fields ("name=value" separated
// by TABs, printf form).
static void
sample(const char* token, const char* line, const char* fields, ...)
		__attribute__((format(printf, 3, 4)));

static void
sample(const char* token, const char* line, const char* fields, ...)
{
	int k = kind_of(token);
	char text[TEXT_LEN];
	va_list ap;

	va_start(ap, fields);
	vsnprintf(text, sizeof(text), fields, ap);
	va_end(ap);

	CHECK(k >= 0, "sample of kind %s: not a kind of the catalogue", token);
	CHECK(strpbrk(line, "\t\n") == NULL, "sample of %s: %s - not one line "
			"without TAB", token, line);

	if (k >= 0) {
		g_n_samples[k]++;
	}

	if (g_print) {
		printf("%s\t%s%s%s\n", token, line, text[0] != '\0' ? "\t" : "",
				text);
	}
}

// A message line: prefix (LOG_ERROR, LOG_WARNING) and msg, as log.c
// writes it. (The text stays until the next call.) ERROR_LINE: an ERROR
// line, as log_error writes it.
static const char*
prefixed(const char* prefix, const char* msg)
{
	static char line[LL_MSG_LEN + 16];

	snprintf(line, sizeof(line), "%s%s", prefix, msg);

	return line;
}

// The lines of a block (a strbuf's text), each cut at its newline, to fn
// with its index.
static void
each_line(const char* text, void (*fn)(const char* line, void* udata),
		void* udata)
{
	char line[TEXT_LEN];

	while (*text != '\0') {
		size_t n = strcspn(text, "\n");

		snprintf(line, sizeof(line), "%.*s", (int)n, text);
		fn(line, udata);
		text += n + (text[n] == '\n' ? 1 : 0);
	}
}

//==========================================================
// The header.
//

static void
banner_line(const char* line, void* udata)
{
	(void)udata;

	if (strncmp(line, "ACT version ", 12) == 0) {
		sample("version", line, "version=%s", ACT_VERSION);
	}
}

// The config echo, block by block (the lines before the first heading,
// "detected N CPUs", are no kind).
typedef struct echo_state_s {
	const char* block;    // NULL, "config" or "derived"
	bool seen;            // a heading was seen
} echo_state;

static void
echo_line(const char* line, void* udata)
{
	echo_state* st = udata;
	const char* sep = strstr(line, ": ");
	char heading[64];

	if (line[0] == '\0') {
		st->block = NULL;
		return;
	}

	if (strcmp(line, LL_DERIVED_HEADING) == 0) {
		sample("derived-heading", line, "%s", "");
		st->block = "derived";
		return;
	}

	if (st->block == NULL && ! st->seen) {
		size_t n = strlen(line) - strlen(" CONFIGURATION");

		CHECK(strlen(line) > strlen(" CONFIGURATION") &&
				strcmp(line + n, " CONFIGURATION") == 0, "echo: %s is not "
				"a config heading", line);
		snprintf(heading, sizeof(heading), "%.*s", (int)n, line);
		sample("config-heading", line, "program=%s", heading);
		st->block = "config";
		st->seen = true;
		return;
	}

	if (st->block == NULL || sep == NULL) {
		CHECK(strncmp(line, "detected ", 9) == 0, "echo: line %s is in no "
				"block", line);
		return;
	}

	sample(strcmp(st->block, "config") == 0 ? "config-item" :
			"derived-item", line, "key=%.*s\tvalue=%s", (int)(sep - line),
			line, sep + 2);
}

static void
header_samples(void)
{
	strbuf sb;

	sb_init_grow(&sb);
	ll_banner(&sb, "Storage device IO test");
	each_line(sb.buf, banner_line, NULL);
	sb_free(&sb);

	char err[1024];
	storage_cfg* sc = calloc(1, sizeof(*sc));
	index_cfg* xc = calloc(1, sizeof(*xc));

	CHECK(storage_cfg_load_text(sc, STORAGE_CONFIG, 8, err,
			sizeof(err)) == 0, "storage config: %s", err);
	CHECK(index_cfg_load_text(xc, INDEX_CONFIG, 8, err, sizeof(err)) == 0,
			"index config: %s", err);

	sb_init_grow(&sb);
	storage_cfg_echo(sc, &sb);
	each_line(sb.buf, echo_line, &(echo_state){ 0 });
	sb_free(&sb);

	sb_init_grow(&sb);
	index_cfg_echo(xc, &sb);
	each_line(sb.buf, echo_line, &(echo_state){ 0 });
	sb_free(&sb);

	free(sc);
	free(xc);

	static const struct {
		const char* device;
		uint64_t size;
		uint64_t n_large_blocks;
		uint32_t min_io;
		bool buffered;
	} DEVICES[] = {
		{ "/dev/sdb", 2147483648, 16384, 512, false },
		{ "/mnt/my disk/act.img", 134217728, 1024, 4096, true }
	};

	for (size_t i = 0; i < sizeof(DEVICES) / sizeof(DEVICES[0]); i++) {
		char line[1024];

		sb_init(&sb, line, sizeof(line));
		ll_storage_device(&sb, DEVICES[i].device, DEVICES[i].size,
				DEVICES[i].n_large_blocks, DEVICES[i].min_io,
				DEVICES[i].buffered);
		line[strcspn(line, "\n")] = '\0';
		sample("storage-device", line, "device=%s\tsize=%" PRIu64
				"\tlarge_blocks=%" PRIu64 "\tmin_io=%" PRIu32 "\tbuffered=%s",
				DEVICES[i].device, DEVICES[i].size, DEVICES[i].n_large_blocks,
				DEVICES[i].min_io, DEVICES[i].buffered ? "yes" : "no");

		sb_init(&sb, line, sizeof(line));
		ll_index_device(&sb, DEVICES[i].device, DEVICES[i].size,
				DEVICES[i].buffered);
		line[strcspn(line, "\n")] = '\0';
		sample("index-device", line, "device=%s\tsize=%" PRIu64
				"\tbuffered=%s", DEVICES[i].device, DEVICES[i].size,
				DEVICES[i].buffered ? "yes" : "no");

		sb_init(&sb, line, sizeof(line));
		ll_prep_device(&sb, DEVICES[i].device, DEVICES[i].size,
				DEVICES[i].n_large_blocks);
		line[strcspn(line, "\n")] = '\0';
		sample("prep-device", line, "device=%s\tsize=%" PRIu64
				"\tlarge_blocks=%" PRIu64, DEVICES[i].device, DEVICES[i].size,
				DEVICES[i].n_large_blocks);
	}

	static const char* const IDENTITY[][4] = {
		{ "/dev/sdb", "SAMSUNG MZQL21T9HCJR-00A07", "S64GNA0T123456",
				"GDC5602Q" },
		{ "/dev/nvme0n1", "unknown", "unknown", "unknown" }
	};
	char line[1024];

	for (size_t i = 0; i < sizeof(IDENTITY) / sizeof(IDENTITY[0]); i++) {
		const char* const* id = IDENTITY[i];

		sb_init(&sb, line, sizeof(line));
		ll_identity(&sb, id[0], id[1], id[2], id[3]);
		line[strcspn(line, "\n")] = '\0';
		sample("identity", line, "device=%s\tmodel=%s\tserial=%s\t"
				"firmware=%s", id[0], id[1], id[2], id[3]);
	}

	// The facts lines: a file, a block device, a loop device whose backing
	// file's name has ", " and " = " in it (the name comes last).
	sb_init(&sb, line, sizeof(line));
	ll_file_facts(&sb, "/mnt/act/dev0", 2049, 131077, "3216515872");
	line[strcspn(line, "\n")] = '\0';
	sample("file-facts", line, "device=/mnt/act/dev0\tdev=2049\t"
			"ino=131077\tgen=3216515872");

	sb_init(&sb, line, sizeof(line));
	ll_block_facts(&sb, "/dev/nvme0n1", 259, 0, "eui.0025388b11b2c3d4",
			NULL);
	line[strcspn(line, "\n")] = '\0';
	sample("block-facts", line, "device=/dev/nvme0n1\trdev=259:0\t"
			"wwid=eui.0025388b11b2c3d4");

	const ll_loop loop = { .dev = 64769, .ino = 12, .gen = "unknown",
			.file = "/var/tmp/a, b = c.img" };

	sb_init(&sb, line, sizeof(line));
	ll_block_facts(&sb, "/dev/loop3", 7, 3, "unknown", &loop);
	line[strcspn(line, "\n")] = '\0';
	sample("block-facts", line, "device=/dev/loop3\trdev=7:3\t"
			"wwid=unknown\tbacking_dev=64769\tbacking_ino=12\t"
			"backing_gen=unknown\tbacking_file=/var/tmp/a, b = c.img");

	const char* when = "2026-11-23T03:47:33Z";

	sb_init(&sb, line, sizeof(line));
	ll_start_time(&sb, when);
	line[strcspn(line, "\n")] = '\0';
	sample("start-time", line, "start=%s", when);
}

// The drive health lines (log-format.md, "Drive health"): a source of
// each kind, a start sample, samples of each source, a sample not read.
static void
health_samples(void)
{
	static const struct {
		const char* device;
		const char* source;
		bool none;
	} SOURCES[] = {
		{ "/dev/nvme0n1", LL_HEALTH_NVME_OCP, false },
		{ "/dev/nvme1n1", LL_HEALTH_NVME, false },
		{ "/dev/sdb", LL_HEALTH_HWMON, false },
		{ "/mnt/act/dev0", LL_HEALTH_FILE, true },
		{ "/dev/loop3", LL_HEALTH_LOOP, true },
		{ "/dev/vda", LL_HEALTH_NO_SOURCE, true },
		{ "/dev/sdc", LL_HEALTH_OFF, true }
	};
	char line[2048];
	char fields[1024];
	char why[256];
	strbuf sb;

	for (size_t i = 0; i < sizeof(SOURCES) / sizeof(SOURCES[0]); i++) {
		sb_init(&sb, line, sizeof(line));
		ll_health_source(&sb, SOURCES[i].device, SOURCES[i].source,
				SOURCES[i].none);
		line[strcspn(line, "\n")] = '\0';
		sample("health-source", line, "device=%s\tsource=%s%s%s",
				SOURCES[i].device, SOURCES[i].none ? "none (" : "",
				SOURCES[i].source, SOURCES[i].none ? ")" : "");
	}

	ll_health_failed(why, sizeof(why), EPERM);
	sb_init(&sb, line, sizeof(line));
	ll_health_source(&sb, "/dev/nvme2n1", why, true);
	line[strcspn(line, "\n")] = '\0';
	sample("health-source", line, "device=/dev/nvme2n1\tsource=none (%s)",
			why);

	const health nvme = { .have = HEALTH_HAVE_SMART | HEALTH_HAVE_LIMITS |
			HEALTH_HAVE_OCP, .warning = 0x04, .temp_c = 45, .n_sensors = 3,
			.sensor_c = { 44, 0, 47 }, .sensor_on = { true, false, true },
			.spare = 97, .spare_threshold = 10, .used = 3, .media_errors = 1,
			.error_log_entries = 12, .units_read = 1234, .units_written = 5678,
			.warning_temp_min = 2, .critical_temp_min = 0,
			.throttle_transitions = { 1, 0 }, .throttle_sec = { 410, 0 },
			.wctemp_c = 70, .cctemp_c = 80, .physical_written = 7268352000 };
	health run = nvme;
	const health hwmon = { .have = HEALTH_HAVE_TEMP, .temp_c = 38 };

	run.have &= ~HEALTH_HAVE_LIMITS;

	sb_init(&sb, line, sizeof(line));
	ll_health_start(&sb, "/dev/nvme0n1", &nvme);
	line[strcspn(line, "\n")] = '\0';
	sample("health-start", line, "device=/dev/nvme0n1\tfields=%s",
			ll_health_fields(fields, sizeof(fields), &nvme));

	sb_init(&sb, line, sizeof(line));
	ll_health_start(&sb, "/dev/sdb", &hwmon);
	line[strcspn(line, "\n")] = '\0';
	sample("health-start", line, "device=/dev/sdb\tfields=temp = 38 C");

	sb_init(&sb, line, sizeof(line));
	ll_health_sample(&sb, "/dev/nvme0n1", 60.004, &run);
	line[strcspn(line, "\n")] = '\0';
	sample("health-sample", line, "device=/dev/nvme0n1\tsec=60.004\t"
			"fields=%s", ll_health_fields(fields, sizeof(fields), &run));

	sb_init(&sb, line, sizeof(line));
	ll_health_sample(&sb, "/dev/sdb", 3600.0, &hwmon);
	line[strcspn(line, "\n")] = '\0';
	sample("health-sample", line, "device=/dev/sdb\tsec=3600.000\t"
			"fields=temp = 38 C");

	ll_health_no_answer(why, sizeof(why), 5.0);
	sb_init(&sb, line, sizeof(line));
	ll_health_unread(&sb, "/dev/nvme0n1", 70.012, why);
	line[strcspn(line, "\n")] = '\0';
	sample("health-unread", line, "device=/dev/nvme0n1\tsec=70.012\t"
			"why=%s", why);

	ll_health_status(why, sizeof(why), 0x4109);
	sb_init(&sb, line, sizeof(line));
	ll_health_unread(&sb, "/dev/nvme0n1", 80.0, why);
	line[strcspn(line, "\n")] = '\0';
	sample("health-unread", line, "device=/dev/nvme0n1\tsec=80.000\t"
			"why=%s", why);
}

//==========================================================
// The reports.
//

typedef struct report_state_s {
	uint32_t sec;
	const uint64_t* counts;   // the buckets' counts of each histogram
} report_state;

static void
names_line(const char* line, void* udata)
{
	(void)udata;

	if (strcmp(line, LL_NAMES_HEADING) == 0) {
		sample("names-heading", line, "%s", "");
	}
	else if (line[0] != '\0') {
		sample("hist-name", line, "name=%s", line);
	}
}

static void
report_line(const char* line, void* udata)
{
	const report_state* st = udata;
	char buckets[1024] = "";
	strbuf sb;

	if (line[0] == '\0') {
		return;
	}

	if (strncmp(line, "after ", 6) == 0) {
		sample("report", line, "sec=%" PRIu32, st->sec);
		return;
	}

	if (line[0] != ' ') {
		const char* open = strrchr(line, '(');
		uint64_t total = 0;

		for (uint32_t i = 0; i < HIST_N_BUCKETS; i++) {
			total += st->counts[i];
		}

		sample("hist-total", line, "name=%.*s\ttotal=%" PRIu64,
				(int)(open - line - 1), line, total);
		return;
	}

	// The buckets this line shows: the counts given, by bucket number.
	sb_init(&sb, buckets, sizeof(buckets));

	for (const char* p = strstr(line, " ("); p != NULL;
			p = strstr(p + 1, " (")) {
		uint32_t b = (uint32_t)strtoul(p + 2, NULL, 10);

		sb_printf(&sb, "%s%" PRIu32 ":%" PRIu64, buckets[0] ? "," : "", b,
				st->counts[b]);
	}

	sample("hist-buckets", line, "buckets=%s", buckets);
}

static void
report_samples(void)
{
	report r;
	strbuf sb;

	report_init(&r, HIST_MS);
	report_add(&r, "reads");
	report_add(&r, "large-block-writes");
	report_add(&r, "/dev/sdb (1)-reads");

	sb_init_grow(&sb);
	report_names(&r, &sb);
	each_line(sb.buf, names_line, NULL);
	sb_free(&sb);

	// One latency under 1 ms in each histogram: bucket 0.
	static const uint64_t ONE[HIST_N_BUCKETS] = { 1 };

	for (uint32_t i = 0; i < r.n; i++) {
		hist_insert_ns(&r.hists[i]->h, 100);
	}

	sb_init_grow(&sb);
	report_format(&r, 3600, &sb);
	each_line(sb.buf, report_line, &(report_state){ 3600, ONE });
	sb_free(&sb);
	report_free(&r);

	// Counts wider than ten digits, buckets of two digits, bucket lines of
	// four and fewer.
	uint64_t counts[HIST_N_BUCKETS] = { 0 };

	counts[0] = 12345678901;
	counts[1] = 7;
	counts[3] = 1200;
	counts[10] = 3;
	counts[11] = 1;
	counts[64] = 2;

	sb_init_grow(&sb);
	hist_format(&sb, "writes", counts);
	each_line(sb.buf, report_line, &(report_state){ 0, counts });
	sb_free(&sb);
}

//==========================================================
// The lines about the run.
//

static void
io_samples(void)
{
	char msg[LL_MSG_LEN];
	uint64_t n = 1;

	for (const char* const* op = ll_ops; *op != NULL; op++, n++) {
		ll_io io = { .device = "/dev/sdb", .op = *op, .size = 131072,
				.off = 4096 * n };

		ll_io_failed(msg, sizeof(msg), &io, EIO, true, n, 10);
		sample("io-failed", ERROR_LINE(msg), "device=%s\top=%s\toffset=%"
				PRIu64 "\tsize=%" PRIu64 "\terror=%s\terrno=%d\tcount=%"
				PRIu64 "\tlimit=10", io.device, io.op, io.off, io.size,
				strerror(EIO), EIO, n);
	}

	// act_prep's, uncounted; a device name with spaces.
	ll_io io = { .device = "/mnt/my disk/act.img", .op = LL_OP_WRITE,
			.size = 1048576, .off = 0 };

	ll_io_failed(msg, sizeof(msg), &io, ENOSPC, false, 0, 0);
	sample("io-failed", ERROR_LINE(msg), "device=%s\top=%s\toffset=0\t"
			"size=%" PRIu64 "\terror=%s\terrno=%d", io.device, io.op, io.size,
			strerror(ENOSPC), ENOSPC);

	ll_io_hidden(msg, sizeof(msg), 1234);
	sample("io-hidden", ERROR_LINE(msg), "count=1234");
	ll_io_errors(msg, sizeof(msg), 11, 10);
	sample("io-errors", ERROR_LINE(msg), "count=11\tlimit=10");
}

static void
lag_samples(void)
{
	char msg[LL_MSG_LEN];
	ll_io io = { .device = "/dev/sdb", .op = LL_OP_READ, .size = 1536,
			.off = 56176128 };

	ll_fell_behind(msg, sizeof(msg), "service threads", 4500, 60, 3, 0.75);
	sample("fell-behind", prefixed(LOG_WARNING, msg), "threads=service "
			"threads\towed=4500\tbefore_sec=60\tn_threads=3\tbehind_sec=0.75");
	ll_fell_behind(msg, sizeof(msg), "large-block writes", 1, 3600, 1, 0.002);
	sample("fell-behind", prefixed(LOG_WARNING, msg), "threads=large-block "
			"writes\towed=1\tbefore_sec=3600\tn_threads=1\tbehind_sec=0.002");

	ll_lag(msg, sizeof(msg), "cache threads", 10.412, 10);
	sample("lag", ERROR_LINE(msg), "threads=cache threads\tbehind_sec=10.412\t"
			"max_lag_sec=10");

	static const struct {
		const char* advice;
		double busy;
	} HOST[] = {
		{ LL_MORE_SERVICE_THREADS, 100 },
		{ LL_MORE_CACHE_THREADS, 37 },
		{ LL_HOST_NOT_DRIVE, -1 }
	};

	for (size_t i = 0; i < sizeof(HOST) / sizeof(HOST[0]); i++) {
		char busy[32] = "";

		if (HOST[i].busy >= 0) {
			snprintf(busy, sizeof(busy), "\tbusy_pct=%g", HOST[i].busy);
		}

		ll_host_limit(msg, sizeof(msg), HOST[i].advice, 10.4, 3, HOST[i].busy);
		sample("host-limit", ERROR_LINE(msg), "advice=%s\twindow_sec=10.4\t"
				"io_pct=3%s", HOST[i].advice, busy);
	}

	ll_stall(msg, sizeof(msg), &io, 11.002, 10);
	sample("stall", ERROR_LINE(msg), "device=%s\tsize=%" PRIu64 "\top=%s\t"
			"offset=%" PRIu64 "\ttook_sec=11.002\tmax_lag_sec=10", io.device,
			io.size, io.op, io.off);
	ll_drive_limit_end(msg, sizeof(msg));
	sample("drive-limit", ERROR_LINE(msg), "%s", "");
	ll_drive_limit(msg, sizeof(msg), 3.0, 2, 3.0, &io, 1.5);
	sample("drive-limit", ERROR_LINE(msg), "window_sec=3\tn_io=2\tio_sec=3\t"
			"longest_sec=1.5\tsize=%" PRIu64 "\top=%s\toffset=%" PRIu64
			"\tdevice=%s", io.size, io.op, io.off, io.device);

	static const struct {
		const char* limit;
		const char* stopped;
		double waited;
	} HUNG[] = {
		{ "max-lag-sec (2)", "test stopped", 2.004 },
		{ "10 sec", "test stopped", 10.05 },
		{ "5 sec", "stopped before any byte was written", 5.25 },
		{ NULL, NULL, 3.497 }
	};

	io.device = "/dev/nvme0n1";
	io.off = 39300608;

	for (size_t i = 0; i < sizeof(HUNG) / sizeof(HUNG[0]); i++) {
		char over[256] = "";

		if (HUNG[i].limit != NULL) {
			snprintf(over, sizeof(over), "\tlimit=%s\tstopped=%s",
					HUNG[i].limit, HUNG[i].stopped);
		}

		ll_hung_io(msg, sizeof(msg), &io, HUNG[i].waited, HUNG[i].limit,
				HUNG[i].stopped);
		sample("hung-io", ERROR_LINE(msg), "device=%s\tsize=%" PRIu64
				"\top=%s\toffset=%" PRIu64 "\twaited_sec=%g%s", io.device,
				io.size, io.op, io.off, HUNG[i].waited, over);
	}
}

static void
stop_samples(void)
{
	char line[LL_MSG_LEN];
	char reason[LL_REASON_MAX + 1];

	sample("signal", ll_signal(line, sizeof(line), run_signal_name(SIGINT),
			12), "signal=%s\tsec=12", run_signal_name(SIGINT));
	sample("signal", ll_signal(line, sizeof(line), run_signal_name(SIGTERM),
			0), "signal=%s\tsec=0", run_signal_name(SIGTERM));

	// act_certify's fail fast (analysis/act/certify/failfast.py); and what
	// a parent might write, made one line of printable ASCII.
	static const char* const GIVEN[] = {
		"fail fast: reads 7.20% over 1 ms (must be under 5%) in hour 3\n",
		"  \x1b[1mbold\x1b[0m after 5 sec and\ta second line\n...",
		"stopped after 10 sec: a reason that ends like a stop line"
	};

	for (size_t i = 0; i < sizeof(GIVEN) / sizeof(GIVEN[0]); i++) {
		ll_reason(GIVEN[i], strlen(GIVEN[i]), reason, sizeof(reason));
		sample("request", ll_request(line, sizeof(line), reason, 10800),
				"reason=%s\tsec=10800", reason);
	}
}

//==========================================================
// Checks of ll_reason.
//

static void
reason_checks(void)
{
	char out[LL_REASON_MAX + 8];
	char big[3 * LL_REASON_MAX];

	CHECK_U64("reason: empty", 0, ll_reason("", 0, out, sizeof(out)));
	CHECK_U64("reason: blank line", 0, ll_reason("  \t\nnext", 8, out,
			sizeof(out)));
	ll_reason(" a\x01" "b\xc3\xa9 \r\nc", 10, out, sizeof(out));
	CHECK_STR("reason: one line, printable", "a?b??", out);
	ll_reason("abc", 2, out, sizeof(out));
	CHECK_STR("reason: n bytes only", "ab", out);

	memset(big, 'x', sizeof(big));
	CHECK_U64("reason: cut", LL_REASON_MAX, ll_reason(big, sizeof(big), out,
			sizeof(out)));
	CHECK_U64("reason: cut to out", 4, ll_reason(big, sizeof(big), out, 5));
}

//==========================================================
// Main.
//

int
main(int argc, char* argv[])
{
	if (argc > 1 && strcmp(argv[1], "--kinds") == 0) {
		for (uint32_t i = 0; i < ll_n_kinds; i++) {
			printf("%s\t%s\n", ll_kinds[i].token, ll_kinds[i].words);
		}

		return 0;
	}

	g_print = argc > 1 && strcmp(argv[1], "--samples") == 0;

	CHECK(ll_n_kinds <= MAX_KINDS, "%u kinds, more than MAX_KINDS",
			ll_n_kinds);

	for (uint32_t i = 0; i < ll_n_kinds; i++) {
		CHECK(kind_of(ll_kinds[i].token) == (int)i, "kind %s: twice in the "
				"catalogue", ll_kinds[i].token);
	}

	header_samples();
	health_samples();
	report_samples();
	io_samples();
	lag_samples();
	stop_samples();
	reason_checks();

	for (uint32_t i = 0; i < ll_n_kinds && i < MAX_KINDS; i++) {
		CHECK(g_n_samples[i] != 0, "kind %s (%s): no sample - add one to "
				"tests/unit/test_loglines.c", ll_kinds[i].token,
				ll_kinds[i].words);
	}

	if (g_print) {
		// stdout has only the samples
		fprintf(stderr, "test_loglines: %d checks, %d failed\n",
				g_unit_checks, g_unit_failures);
		return g_unit_failures == 0 ? 0 : 1;
	}

	return unit_end("test_loglines");
}
