/*
 * shim_nvme.c - the test shim's fake NVMe drive (act_shim.c loads it):
 * ioctl() answered as an NVMe namespace would, for the drive health tests
 * (docs/health.md). The programs' code that reads a drive runs unchanged;
 * only the ioctl is faked.
 *
 *   ACT_SHIM_NVME=RULES   ioctl() on an fd whose path has path=TEXT
 *                         answers NVME_IOCTL_ID (namespace 1) and the admin
 *                         commands Identify Controller (opcode 06h, CNS
 *                         01h) and Get Log Page (02h) LID 02h - the SMART /
 *                         Health Information page - and, with waf=, LID
 *                         C0h (the OCP page, its GUID); any other admin
 *                         command gets its NVMe status (Invalid Opcode
 *                         0x001, Invalid Field 0x002, Invalid Log Page
 *                         0x109) as the ioctl's positive result, as the
 *                         kernel returns it. Pages are laid out as the
 *                         specifications say (little endian). RULE[;RULE
 *                         ...], each key=value[,key=value]; times S are
 *                         whole seconds since the first admin command of
 *                         this process to that drive:
 *                           path=TEXT          required
 *                           temp=C             composite temp at 0 (40)
 *                           ramp=N             + N C a second (0) up to
 *                           max=C              (85)
 *                           throttle=C         while temp >= C: thermal
 *                                              management temp 1 time + 1 s
 *                                              a second, its transition
 *                                              count + 1 on entry (never)
 *                           wctemp=C cctemp=C  Identify's (70, 80)
 *                           media_error_at=S   media errors (and error log
 *                           media_errors=N     entries) + N (1) from S
 *                           warning=0xNN       critical warning from S (0)
 *                           warning_at=S
 *                           spare=N spare_to=N spare_at=S spare_threshold=N
 *                                              available spare N% (100),
 *                                              spare_to% from S; its
 *                                              threshold (10)
 *                           waf=X              answer C0h: physical bytes
 *                                              written = host bytes x X
 *                           hang_ms=N hang_at=S  admin commands from S
 *                                              sleep N ms first
 *                           errno=E            admin commands fail with E
 *                                              (EPERM, EACCES, EIO, EINVAL,
 *                                              ENOTTY, ENODEV or a number)
 *                           state=FILE         the drive persists across
 *                                              processes: its counters
 *                                              and a run count (a run: a
 *                                              process that asks it for
 *                                              LID 02h); rules with one
 *                                              FILE are one drive
 *                           from_run=N         the rule applies in runs >=
 *                                              N of its drive only
 *                         The first rule that applies to an fd answers.
 *                         Data units read / written: the bytes of the
 *                         pread / pwrite the shim sees on fds whose path
 *                         has the drive's path, in units of 512000 bytes
 *                         (rounded up). A rule it can't read: exit 97, as
 *                         for ACT_SHIM_FAULT. With ACT_SHIM_TRACE, every
 *                         NVMe ioctl (type 'N', faked or not) is traced
 *                         too, one line of 6 fields: ioctl <ns> <tid> <fd>
 *                         <what> <result>, what = id, identify-cnsNN,
 *                         log-lidNN or admin-opNN.
 *
 * Test-only code: not installed, not linked into the programs.
 */

#define _GNU_SOURCE

#include <errno.h>
#include <linux/nvme_ioctl.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "shim.h"

//==========================================================
// Typedefs & constants.
//

#define MAX_NVME_RULES 8
#define NVME_UNIT_BYTES 512000ULL
#define KELVIN 273
#define NEVER UINT64_MAX

// NVMe statuses (status code type << 8 | status code), as the kernel
// returns them.
#define NVME_SC_INVALID_OPCODE 0x001
#define NVME_SC_INVALID_FIELD 0x002
#define NVME_SC_INVALID_LOG_PAGE 0x109

// What a drive keeps across processes (state=FILE), in this order.
enum {
	ST_RUNS, ST_MEDIA, ST_TMT1_COUNT, ST_TMT2_COUNT, ST_TMT1_SEC,
	ST_TMT2_SEC, ST_WARN_SEC, ST_CRIT_SEC, ST_BYTES_READ, ST_BYTES_WRITTEN,
	ST_PHYSICAL, N_ST
};

static const char* const ST_NAMES[N_ST] = {
	"runs", "media_errors", "tmt1_count", "tmt2_count", "tmt1_sec",
	"tmt2_sec", "warning_temp_sec", "critical_temp_sec", "bytes_read",
	"bytes_written", "physical_written"
};

// A fake drive: what one or more rules (one state file, or one path)
// answer for.
typedef struct drive_s {
	char key[256];          // its state file, or "path:" + its path
	char state[256];        // "" none
	pthread_mutex_t lock;
	bool loaded;            // base read from the state file
	uint64_t base[N_ST];    // from earlier processes
	bool counted;           // this process is one of its runs
	uint64_t first_ns;      // its first admin command (0: none yet)
	atomic_uint_fast64_t bytes_read;    // this process's
	atomic_uint_fast64_t bytes_written;
} drive;

typedef struct nvme_rule_s {
	char path[128];
	drive* drv;
	uint64_t from_run;      // 0: every run
	int64_t temp, ramp, max;
	int64_t throttle;       // INT64_MAX: never
	int64_t wctemp, cctemp;
	uint64_t media_error_at;
	uint64_t media_errors;
	uint64_t warning, warning_at;
	uint64_t spare, spare_to, spare_at, spare_threshold;
	double waf;             // < 0: no C0h page
	uint64_t hang_ns, hang_at;
	int err;
} nvme_rule;

//==========================================================
// Globals.
//

static nvme_rule g_nvme[MAX_NVME_RULES];
static int g_n_nvme;
static drive g_drives[MAX_NVME_RULES];
static int g_n_drives;

static const errno_name NVME_ERRNOS[] = {
	{ "EPERM", EPERM }, { "EACCES", EACCES }, { "EIO", EIO },
	{ "EINVAL", EINVAL }, { "ENOTTY", ENOTTY }, { "ENODEV", ENODEV },
	{ NULL, 0 }
};


//==========================================================
// The fake NVMe drive (ACT_SHIM_NVME) - its rules.
//

// A signed whole number (temperatures may be below 0).
static int64_t
parse_int(const char* rule_text, const char* k, const char* v)
{
	char* end = NULL;

	errno = 0;

	long long n = strtoll(v, &end, 10);

	if (end == v || errno != 0 || *end != '\0' || n < -1000 || n > 1000000) {
		shim_bad_rule(rule_text, "%s=%s is not a whole number", k, v);
	}

	return (int64_t)n;
}

// The rule's numbers: the key, the field, and how it is read - a signed
// whole number (temperatures may be below 0) or one of 0 and up.
typedef struct num_key_s {
	const char* name;
	size_t off;
	bool is_signed;         // parse_int into an int64_t, else shim_parse_num
} num_key;

#define SIGNED(f) { #f, offsetof(nvme_rule, f), true }
#define UNSIGNED(f) { #f, offsetof(nvme_rule, f), false }

static const num_key NUM_KEYS[] = {
	SIGNED(temp), UNSIGNED(ramp), SIGNED(max), SIGNED(throttle),
	SIGNED(wctemp), SIGNED(cctemp), UNSIGNED(media_error_at),
	UNSIGNED(media_errors), UNSIGNED(warning_at), UNSIGNED(spare),
	UNSIGNED(spare_to), UNSIGNED(spare_at), UNSIGNED(spare_threshold),
	UNSIGNED(hang_at), UNSIGNED(from_run)
};

// k=v into r when k is one of NUM_KEYS (a bad value ends the process as
// every bad rule does); false when it is not.
static bool
parse_num_key(nvme_rule* r, const char* rule_text, const char* k,
		const char* v)
{
	for (size_t i = 0; i < sizeof(NUM_KEYS) / sizeof(NUM_KEYS[0]); i++) {
		const num_key* nk = &NUM_KEYS[i];

		if (strcmp(k, nk->name) != 0) {
			continue;
		}

		char* field = (char*)r + nk->off;

		if (nk->is_signed) {
			int64_t n = parse_int(rule_text, k, v);

			memcpy(field, &n, sizeof(n));
		}
		else {
			// ramp is an int64_t read as 0 and up: the same 8 bytes
			uint64_t n = shim_parse_num(rule_text, k, v);

			memcpy(field, &n, sizeof(n));
		}

		return true;
	}

	return false;
}

// NUM_KEYS' names, ", " between them, for the unknown-key message.
static const char*
num_key_names(char* buf, size_t cap)
{
	size_t n = 0;

	buf[0] = '\0';

	for (size_t i = 0; i < sizeof(NUM_KEYS) / sizeof(NUM_KEYS[0]) &&
			n < cap; i++) {
		n += (size_t)snprintf(buf + n, cap - n, "%s%s", i == 0 ? "" : ", ",
				NUM_KEYS[i].name);
	}

	return buf;
}

// The drive a rule answers for: one per state file, else one per path.
static drive*
drive_for(const char* rule_text, const char* state, const char* path)
{
	char key[256];

	if (state[0] != '\0') {
		snprintf(key, sizeof(key), "%s", state);
	}
	else {
		snprintf(key, sizeof(key), "path:%s", path);
	}

	for (int i = 0; i < g_n_drives; i++) {
		if (strcmp(g_drives[i].key, key) == 0) {
			return &g_drives[i];
		}
	}

	if (g_n_drives == MAX_NVME_RULES) {
		shim_bad_rule(rule_text, "more than %d drives", MAX_NVME_RULES);
	}

	drive* d = &g_drives[g_n_drives++];

	snprintf(d->key, sizeof(d->key), "%s", key);
	snprintf(d->state, sizeof(d->state), "%s", state);
	pthread_mutex_init(&d->lock, NULL);

	return d;
}

void
shim_nvme_parse_rule(const char* rule_text, char* text)
{
	if (g_n_nvme == MAX_NVME_RULES) {
		shim_bad_rule(rule_text, "more than %d rules", MAX_NVME_RULES);
	}

	nvme_rule* r = &g_nvme[g_n_nvme++];
	char state[256] = "";
	char* save = NULL;

	*r = (nvme_rule){ .temp = 40, .max = 85, .throttle = INT64_MAX,
			.wctemp = 70, .cctemp = 80, .media_error_at = NEVER,
			.media_errors = 1, .spare = 100, .spare_to = NEVER, .spare_at = 0,
			.spare_threshold = 10, .waf = -1.0, .hang_at = 0 };

	const char* k;
	const char* v;

	while (shim_next_kv(rule_text, &text, &save, &k, &v)) {
		if (strcmp(k, "path") == 0 || strcmp(k, "state") == 0) {
			char* to = strcmp(k, "path") == 0 ? r->path : state;
			size_t cap = strcmp(k, "path") == 0 ? sizeof(r->path) :
					sizeof(state);

			if (v[0] == '\0' || strlen(v) >= cap) {
				shim_bad_rule(rule_text, "%s= must have 1 to %zu characters", k,
						cap - 1);
			}

			snprintf(to, cap, "%s", v);
		}
		else if (strcmp(k, "warning") == 0) {
			char* end = NULL;
			unsigned long w = strtoul(v, &end, 0);

			if (end == v || *end != '\0' || w > 0xFF) {
				shim_bad_rule(rule_text, "warning=%s is not a byte (0x00 to "
						"0xff)", v);
			}

			r->warning = w;
		}
		else if (strcmp(k, "waf") == 0) {
			char* end = NULL;

			r->waf = strtod(v, &end);

			if (end == v || *end != '\0' || ! (r->waf >= 0.0) ||
					r->waf > 1000.0) {
				shim_bad_rule(rule_text, "waf=%s is not a number from 0 to 1000",
						v);
			}
		}
		else if (strcmp(k, "hang_ms") == 0) {
			r->hang_ns = shim_parse_num(rule_text, k, v) * 1000000ULL;
		}
		else if (strcmp(k, "errno") == 0) {
			r->err = shim_parse_errno(rule_text, v, NVME_ERRNOS,
					"EPERM, EACCES, EIO, EINVAL, ENOTTY, ENODEV");
		}
		else if (! parse_num_key(r, rule_text, k, v)) {
			char names[512];

			shim_bad_rule(rule_text, "unknown key '%s' (path, state, %s, "
					"warning, waf, hang_ms, errno)", k,
					num_key_names(names, sizeof(names)));
		}
	}

	if (r->path[0] == '\0') {
		shim_bad_rule(rule_text, "no path= (the fds the drive answers on)");
	}

	r->drv = drive_for(rule_text, state, r->path);
}

//==========================================================
// The fake NVMe drive - its state.
//

// Called with d->lock held: read what earlier processes left in the
// drive's state file (once; none or unreadable: all 0).
static void
drive_load(drive* d)
{
	if (d->loaded) {
		return;
	}

	d->loaded = true;

	FILE* f = d->state[0] != '\0' ? fopen(d->state, "re") : NULL;

	if (f == NULL) {
		return;
	}

	char name[64];
	unsigned long long v;

	while (fscanf(f, "%63s %llu", name, &v) == 2) {
		for (int i = 0; i < N_ST; i++) {
			if (strcmp(name, ST_NAMES[i]) == 0) {
				d->base[i] = v;
			}
		}
	}

	fclose(f);
}

// This process's run number of the drive (its runs so far + 1).
static uint64_t
drive_run(drive* d)
{
	pthread_mutex_lock(&d->lock);
	drive_load(d);

	uint64_t run = d->base[ST_RUNS] + 1;

	pthread_mutex_unlock(&d->lock);

	return run;
}

// Whole seconds from `from` to `to` (0 before).
static uint64_t
secs_since(uint64_t from, uint64_t to)
{
	return to > from ? to - from : 0;
}

static int64_t
temp_at(const nvme_rule* r, uint64_t s)
{
	int64_t t = r->temp + r->ramp * (int64_t)(s > 100000 ? 100000 : s);

	return t > r->max ? (r->max > r->temp ? r->max : r->temp) : t;
}

// The first second at which the temperature reaches limit, or NEVER.
static uint64_t
first_at(const nvme_rule* r, int64_t limit)
{
	if (temp_at(r, 0) >= limit) {
		return 0;
	}

	if (r->ramp <= 0 || temp_at(r, 100000) < limit) {
		return NEVER;
	}

	return (uint64_t)((limit - r->temp + r->ramp - 1) / r->ramp);
}

// This process's contribution to the drive's counters at second s (into
// add[N_ST]).
static void
drive_now(const nvme_rule* r, uint64_t s, uint64_t* add)
{
	drive* d = r->drv;
	uint64_t tmt = first_at(r, r->throttle);
	uint64_t warn = first_at(r, r->wctemp);
	uint64_t crit = first_at(r, r->cctemp);
	uint64_t written = atomic_load(&d->bytes_written);

	memset(add, 0, N_ST * sizeof(*add));
	add[ST_MEDIA] = s >= r->media_error_at ? r->media_errors : 0;
	add[ST_TMT1_COUNT] = tmt != NEVER && s >= tmt ? 1 : 0;
	add[ST_TMT1_SEC] = tmt != NEVER ? secs_since(tmt, s) : 0;
	add[ST_WARN_SEC] = warn != NEVER ? secs_since(warn, s) : 0;
	add[ST_CRIT_SEC] = crit != NEVER ? secs_since(crit, s) : 0;
	add[ST_BYTES_READ] = atomic_load(&d->bytes_read);
	add[ST_BYTES_WRITTEN] = written;
	add[ST_PHYSICAL] = r->waf > 0.0 ? (uint64_t)llround((double)written *
			r->waf) : 0;
}

// Called with d->lock held: the drive's counters (earlier processes' and
// this one's) into the state file.
static void
drive_save(drive* d, const uint64_t* add)
{
	if (d->state[0] == '\0') {
		return;
	}

	char tmp[300];

	snprintf(tmp, sizeof(tmp), "%s.%d", d->state, (int)getpid());

	FILE* f = fopen(tmp, "we");

	if (f == NULL) {
		return;
	}

	for (int i = 0; i < N_ST; i++) {
		fprintf(f, "%s %llu\n", ST_NAMES[i], (unsigned long long)(d->base[i] +
				(i == ST_RUNS ? (d->counted ? 1 : 0) : add[i])));
	}

	if (fclose(f) == 0) {
		rename(tmp, d->state);
	}
}

//==========================================================
// The fake NVMe drive - its pages.
//

static void
put16(uint8_t* p, uint64_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void
put32(uint8_t* p, uint64_t v)
{
	for (int i = 0; i < 4; i++) {
		p[i] = (uint8_t)(v >> (8 * i));
	}
}

// A 128-bit little-endian counter (the high half 0).
static void
put128(uint8_t* p, uint64_t v)
{
	memset(p, 0, 16);

	for (int i = 0; i < 8; i++) {
		p[i] = (uint8_t)(v >> (8 * i));
	}
}

static uint64_t
units(uint64_t bytes)
{
	return (bytes + NVME_UNIT_BYTES - 1) / NVME_UNIT_BYTES;
}

// Identify Controller (4096 bytes): the model name (24-63, ASCII, blank
// padded), WCTEMP (266) and CCTEMP (268) in kelvins.
static void
page_identify(const nvme_rule* r, uint8_t* p)
{
	static const char MODEL[] = "act shim fake NVMe";

	memset(p, 0, 4096);
	memset(p + 24, ' ', 40);
	memcpy(p + 24, MODEL, sizeof(MODEL) - 1);
	put16(p + 266, (uint64_t)(r->wctemp + KELVIN));
	put16(p + 268, (uint64_t)(r->cctemp + KELVIN));
}

// The SMART / Health Information page (512 bytes) at second s; saves the
// drive's state.
static void
page_smart(const nvme_rule* r, uint64_t s, uint8_t* p)
{
	drive* d = r->drv;
	uint64_t add[N_ST];
	uint64_t v[N_ST];

	pthread_mutex_lock(&d->lock);
	drive_load(d);
	d->counted = true;
	drive_now(r, s, add);

	for (int i = 0; i < N_ST; i++) {
		v[i] = d->base[i] + add[i];
	}

	drive_save(d, add);
	pthread_mutex_unlock(&d->lock);

	memset(p, 0, 512);
	p[0] = (uint8_t)(s >= r->warning_at ? r->warning : 0);
	put16(p + 1, (uint64_t)(temp_at(r, s) + KELVIN));
	p[3] = (uint8_t)(r->spare_to != NEVER && s >= r->spare_at ? r->spare_to :
			r->spare);
	p[4] = (uint8_t)r->spare_threshold;
	put128(p + 32, units(v[ST_BYTES_READ]));
	put128(p + 48, units(v[ST_BYTES_WRITTEN]));
	put128(p + 160, v[ST_MEDIA]);
	put128(p + 176, v[ST_MEDIA]);
	put32(p + 192, v[ST_WARN_SEC] / 60);
	put32(p + 196, v[ST_CRIT_SEC] / 60);
	put32(p + 216, v[ST_TMT1_COUNT]);
	put32(p + 220, v[ST_TMT2_COUNT]);
	put32(p + 224, v[ST_TMT1_SEC]);
	put32(p + 228, v[ST_TMT2_SEC]);
}

// The OCP C0h page (512 bytes): physical media units written (bytes) at
// 0-15, the GUID AFD514C97C6F4F9CA4F2BFEA2810AFC5h at 496-511, little
// endian (byte 496 = C5h).
static void
page_ocp(const nvme_rule* r, uint64_t s, uint8_t* p)
{
	static const uint8_t GUID[16] = {
		0xC5, 0xAF, 0x10, 0x28, 0xEA, 0xBF, 0xF2, 0xA4,
		0x9C, 0x4F, 0x6F, 0x7C, 0xC9, 0x14, 0xD5, 0xAF
	};
	drive* d = r->drv;
	uint64_t add[N_ST];

	pthread_mutex_lock(&d->lock);
	drive_load(d);
	drive_now(r, s, add);

	uint64_t physical = d->base[ST_PHYSICAL] + add[ST_PHYSICAL];

	pthread_mutex_unlock(&d->lock);

	memset(p, 0, 512);
	put128(p, physical);
	memcpy(p + 496, GUID, sizeof(GUID));
}

//==========================================================
// The fake NVMe drive - the ioctls.
//

// The path of fd (no cache: descriptors are reused).
static void
fd_path(int fd, char* path, size_t len)
{
	char link[64];

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);

	ssize_t n = readlink(link, path, len - 1);

	path[n < 0 ? 0 : n] = '\0';
}

// The rule that answers for fd, or NULL.
static nvme_rule*
nvme_match(int fd)
{
	char path[512];

	fd_path(fd, path, sizeof(path));

	for (int i = 0; i < g_n_nvme; i++) {
		nvme_rule* r = &g_nvme[i];

		if (strstr(path, r->path) != NULL && (r->from_run == 0 ||
				drive_run(r->drv) >= r->from_run)) {
			return r;
		}
	}

	return NULL;
}

// The drive whose bytes fd's I/O counts to, or NULL.
static drive*
nvme_drive_of(int fd)
{
	char path[512];

	fd_path(fd, path, sizeof(path));

	for (int i = 0; i < g_n_nvme; i++) {
		if (strstr(path, g_nvme[i].path) != NULL) {
			return g_nvme[i].drv;
		}
	}

	return NULL;
}

static void
trace_ioctl(int fd, const char* what, int res)
{
	if (g_shim_trace_fd < 0) {
		return;
	}

	char line[160];
	int n = snprintf(line, sizeof(line), "ioctl %llu %ld %d %s %d\n",
			(unsigned long long)shim_now_ns(), (long)syscall(SYS_gettid), fd, what,
			res);

	if (write(g_shim_trace_fd, line, (size_t)n) != n) {
		// Nothing to do: the test will find the trace short.
	}
}

// What an NVMe ioctl is, for the trace.
static void
ioctl_what(unsigned long req, const struct nvme_admin_cmd* c, char* out,
		size_t len)
{
	if (req == NVME_IOCTL_ID) {
		snprintf(out, len, "id");
	}
	else if (req == NVME_IOCTL_ADMIN_CMD && c->opcode == 0x06) {
		snprintf(out, len, "identify-cns%02x", c->cdw10 & 0xFF);
	}
	else if (req == NVME_IOCTL_ADMIN_CMD && c->opcode == 0x02) {
		snprintf(out, len, "log-lid%02x", c->cdw10 & 0xFF);
	}
	else if (req == NVME_IOCTL_ADMIN_CMD) {
		snprintf(out, len, "admin-op%02x", c->opcode);
	}
	else {
		snprintf(out, len, "nvme-%lx", req);
	}
}

// An admin command to the fake drive r: 0 with the page in its buffer,
// an NVMe status, or -1 with errno.
static int
fake_admin(nvme_rule* r, struct nvme_admin_cmd* c)
{
	drive* d = r->drv;
	uint64_t now = shim_now_ns();

	pthread_mutex_lock(&d->lock);

	if (d->first_ns == 0) {
		d->first_ns = now;
	}

	uint64_t s = (now - d->first_ns) / 1000000000ULL;

	pthread_mutex_unlock(&d->lock);

	if (r->hang_ns != 0 && s >= r->hang_at) {
		shim_sleep_ns(r->hang_ns);
	}

	if (r->err != 0) {
		errno = r->err;
		return -1;
	}

	uint8_t page[4096];
	uint32_t cdw10 = c->cdw10;
	size_t want;

	if (c->opcode == 0x06) {
		if ((cdw10 & 0xFF) != 0x01) {
			return NVME_SC_INVALID_FIELD;
		}

		page_identify(r, page);
		want = 4096;
	}
	else if (c->opcode == 0x02) {
		uint32_t lid = cdw10 & 0xFF;
		uint64_t numd = ((uint64_t)(c->cdw11 & 0xFFFF) << 16 |
				(cdw10 >> 16)) + 1;

		if (lid == 0x02) {
			page_smart(r, s, page);
		}
		else if (lid == 0xC0 && r->waf >= 0.0) {
			page_ocp(r, s, page);
		}
		else {
			return NVME_SC_INVALID_LOG_PAGE;
		}

		want = numd * 4 < 512 ? (size_t)numd * 4 : 512;
	}
	else {
		return NVME_SC_INVALID_OPCODE;
	}

	if (c->addr == 0 || c->data_len < want) {
		errno = EINVAL;
		return -1;
	}

	memcpy((void*)(uintptr_t)c->addr, page, want);

	return 0;
}

//==========================================================
// Loading.
//

//==========================================================
// The shim's entry points.
//

void
shim_nvme_count(int fd, int op, uint64_t bytes)
{
	if (g_n_nvme == 0) {
		return;
	}

	drive* d = nvme_drive_of(fd);

	if (d != NULL) {
		atomic_fetch_add(op == 'r' ? &d->bytes_read : &d->bytes_written, bytes);
	}
}

int
shim_nvme_ioctl(shim_ioctl_fn real, int fd, unsigned long req, void* arg)
{
	nvme_rule* r = g_n_nvme != 0 ? nvme_match(fd) : NULL;
	struct nvme_admin_cmd none = { 0 };
	struct nvme_admin_cmd* c = req == NVME_IOCTL_ADMIN_CMD && arg != NULL ?
			arg : &none;
	int res;

	if (r == NULL) {
		res = real(fd, req, arg);
	}
	else if (req == NVME_IOCTL_ID) {
		res = 1;
	}
	else if (req == NVME_IOCTL_ADMIN_CMD && arg != NULL) {
		res = fake_admin(r, c);
	}
	else {
		errno = ENOTTY;
		res = -1;
	}

	int e = errno;
	char what[64];

	ioctl_what(req, c, what, sizeof(what));
	trace_ioctl(fd, what, res);
	errno = e;

	return res;
}
