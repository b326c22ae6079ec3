/*
 * health_read.c - reading a drive's health from the drive: NVMe admin
 * commands, a disk's hwmon temperature.
 */

#include "common/health_read.h"

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <linux/major.h>
#include <linux/nvme_ioctl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "common/blkdev.h"
#include "common/loglines.h"

//==========================================================
// Typedefs & constants.
//

// NVMe admin commands (NVMe base specification, "Admin Command Set").
#define NVME_OP_GET_LOG_PAGE 0x02
#define NVME_OP_IDENTIFY 0x06
#define NVME_CNS_CONTROLLER 0x01
#define NVME_LID_SMART 0x02
#define NVME_LID_OCP 0xC0
#define NVME_NSID_ALL 0xFFFFFFFFu

// How long the driver lets one admin command take (0: its default, 60 s -
// health_run never waits that long anyway).
#define ADMIN_TIMEOUT_MS 0

// The buffer of a page: the largest (Identify), page-aligned - aligned_alloc
// wants a size that is a multiple of the alignment.
#define PAGE_BYTES HEALTH_IDENTIFY_LEN

// A hwmon temperature file's text.
#define HWMON_TEXT_LEN 32

//==========================================================
// Forward declarations.
//

static int identify(int fd, uint8_t* page);
static int get_log(int fd, uint8_t lid, uint8_t* page, uint32_t len);
static int admin(int fd, struct nvme_admin_cmd* cmd);
static void admin_why(int rv, char* why, size_t len);
static bool read_nvme(int fd, uint8_t* page, health* out, char* why,
		size_t why_len);
static bool find_hwmon(dev_t rdev, char* out, size_t len);
static bool read_hwmon(const char* path, health* out, char* why,
		size_t why_len);
static void set_none(health_src* src, const char* why);

//==========================================================
// Public API.
//

void
health_read_detect(health_src* src, int fd, bool is_block, dev_t rdev,
		bool sample, health* start)
{
	char why[sizeof(src->text) - 16];

	memset(src, 0, sizeof(*src));
	memset(start, 0, sizeof(*start));

	// An NVMe namespace answers NVME_IOCTL_ID with its id; anything else
	// (a file: ENOTTY) does not.
	if (ioctl(fd, NVME_IOCTL_ID) > 0) {
		uint8_t* page = aligned_alloc(PAGE_BYTES, PAGE_BYTES);

		if (page == NULL) {
			set_none(src, strerror(ENOMEM));
			return;
		}

		int rv = identify(fd, page);
		health limits = { 0 };

		if (rv == 0) {
			health_decode_identify(page, HEALTH_IDENTIFY_LEN, &limits);
			src->kind = HEALTH_NVME;
		}
		else {
			admin_why(rv, why, sizeof(why));
			set_none(src, why);
		}

		if (src->kind == HEALTH_NVME && sample) {
			if (read_nvme(fd, page, start, why, sizeof(why))) {
				src->ocp = get_log(fd, NVME_LID_OCP, page, HEALTH_OCP_LEN) == 0 &&
						health_decode_ocp(page, HEALTH_OCP_LEN, start);
				start->have |= HEALTH_HAVE_LIMITS;
				start->wctemp_c = limits.wctemp_c;
				start->cctemp_c = limits.cctemp_c;
			}
			else {
				set_none(src, why);
			}
		}

		free(page);

		if (src->kind == HEALTH_NVME) {
			snprintf(src->text, sizeof(src->text), "%s", src->ocp ?
					LL_HEALTH_NVME_OCP : LL_HEALTH_NVME);
		}

		return;
	}

	if (! is_block) {
		set_none(src, LL_HEALTH_FILE);
		return;
	}

	if (major(rdev) == LOOP_MAJOR) {
		set_none(src, LL_HEALTH_LOOP);
		return;
	}

	if (! find_hwmon(rdev, src->hwmon, sizeof(src->hwmon))) {
		set_none(src, LL_HEALTH_NO_SOURCE);
		return;
	}

	if (sample && ! read_hwmon(src->hwmon, start, why, sizeof(why))) {
		set_none(src, why);
		return;
	}

	src->kind = HEALTH_HWMON;
	snprintf(src->text, sizeof(src->text), "%s", LL_HEALTH_HWMON);
}

bool
health_read_sample(const health_src* src, int fd, health* out, char* why,
		size_t why_len)
{
	memset(out, 0, sizeof(*out));

	if (src->kind == HEALTH_HWMON) {
		return read_hwmon(src->hwmon, out, why, why_len);
	}

	if (src->kind != HEALTH_NVME) {
		snprintf(why, why_len, "%s", src->text);
		return false;
	}

	uint8_t* page = aligned_alloc(PAGE_BYTES, PAGE_BYTES);

	if (page == NULL) {
		snprintf(why, why_len, "%s", strerror(ENOMEM));
		return false;
	}

	bool ok = read_nvme(fd, page, out, why, why_len);

	if (ok && src->ocp && get_log(fd, NVME_LID_OCP, page,
			HEALTH_OCP_LEN) == 0) {
		health_decode_ocp(page, HEALTH_OCP_LEN, out);
	}

	free(page);

	return ok;
}

//==========================================================
// Local helpers.
//

// Identify Controller into page (HEALTH_IDENTIFY_LEN bytes). Returns 0, -1
// with errno, or the NVMe status.
static int
identify(int fd, uint8_t* page)
{
	struct nvme_admin_cmd cmd = {
		.opcode = NVME_OP_IDENTIFY,
		.addr = (uint64_t)(uintptr_t)page,
		.data_len = HEALTH_IDENTIFY_LEN,
		.cdw10 = NVME_CNS_CONTROLLER
	};

	return admin(fd, &cmd);
}

// Get Log Page lid (len bytes, a multiple of 4) of every namespace into
// page: cdw10 has the number of dwords less one in bits 31:16 (NUMDL) and
// the log page id in bits 7:0. Returns 0, -1 with errno, or the NVMe
// status.
static int
get_log(int fd, uint8_t lid, uint8_t* page, uint32_t len)
{
	struct nvme_admin_cmd cmd = {
		.opcode = NVME_OP_GET_LOG_PAGE,
		.nsid = NVME_NSID_ALL,
		.addr = (uint64_t)(uintptr_t)page,
		.data_len = len,
		.cdw10 = ((len / 4 - 1) & 0xFFFFu) << 16 | lid
	};

	memset(page, 0, len);

	return admin(fd, &cmd);
}

// The passthrough ioctl: 0 done, -1 with errno, or the command's NVMe
// status (status code type and code: the kernel returns it as a positive
// result).
static int
admin(int fd, struct nvme_admin_cmd* cmd)
{
	cmd->timeout_ms = ADMIN_TIMEOUT_MS;

	return ioctl(fd, NVME_IOCTL_ADMIN_CMD, cmd);
}

// Why an admin command's result rv (not 0) is no page.
static void
admin_why(int rv, char* why, size_t len)
{
	if (rv < 0) {
		ll_health_failed(why, len, errno);
	}
	else {
		ll_health_status(why, len, (uint32_t)rv);
	}
}

// The SMART / Health Information page into page (HEALTH_SMART_LEN bytes)
// and decoded into *out. Returns false with why.
static bool
read_nvme(int fd, uint8_t* page, health* out, char* why, size_t why_len)
{
	int rv = get_log(fd, NVME_LID_SMART, page, HEALTH_SMART_LEN);

	if (rv != 0) {
		admin_why(rv, why, why_len);
		return false;
	}

	health_decode_smart(page, HEALTH_SMART_LEN, out);

	return true;
}

// The first hwmon temperature of the disk behind rdev (drivetemp, or any
// driver that registers its disk's sensor under the device).
static bool
find_hwmon(dev_t rdev, char* out, size_t len)
{
	char dir[PATH_MAX];
	char pattern[PATH_MAX + 64];
	glob_t g;

	if (! blk_disk_dir(rdev, dir, sizeof(dir))) {
		return false;
	}

	snprintf(pattern, sizeof(pattern), "%s/device/hwmon/hwmon*/temp1_input",
			dir);

	if (glob(pattern, 0, NULL, &g) != 0) {
		return false;
	}

	bool found = g.gl_pathc != 0 && strlen(g.gl_pathv[0]) < len;

	if (found) {
		snprintf(out, len, "%s", g.gl_pathv[0]);
	}

	globfree(&g);

	return found;
}

static bool
read_hwmon(const char* path, health* out, char* why, size_t why_len)
{
	char text[HWMON_TEXT_LEN];
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		ll_health_hwmon_failed(why, why_len, errno);
		return false;
	}

	ssize_t n = read(fd, text, sizeof(text) - 1);
	int err = errno;

	close(fd);

	if (n < 0) {
		ll_health_hwmon_failed(why, why_len, err);
		return false;
	}

	text[n] = '\0';

	if (! health_decode_hwmon(text, out)) {
		ll_health_hwmon_failed(why, why_len, EINVAL);
		return false;
	}

	return true;
}

static void
set_none(health_src* src, const char* why)
{
	src->kind = HEALTH_NONE;
	snprintf(src->text, sizeof(src->text), "%s", why);
}
