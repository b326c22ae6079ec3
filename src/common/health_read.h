/*
 * health_read.h - reading a drive's health from the drive (docs/health.md):
 * which source a device has, and one sample from it.
 *
 *   NVMe (a namespace: NVME_IOCTL_ID answers): admin commands through the
 *   passthrough ioctl (NVME_IOCTL_ADMIN_CMD) on the device's descriptor -
 *   Identify Controller (opcode 06h, CNS 01h) for WCTEMP / CCTEMP, Get Log
 *   Page (opcode 02h, all namespaces) LID 02h, the SMART / Health
 *   Information page, and LID C0h, the OCP page, kept when its GUID is the
 *   OCP one. The kernel wants CAP_SYS_ADMIN for most of them.
 *   A SATA / SAS disk (any other block device but a loop device): the
 *   temperature the kernel's hwmon gives (drivetemp), in the disk's sysfs
 *   device/hwmon/hwmon*\/temp1_input (millidegrees). SMART attributes
 *   (SG_IO) are not read.
 *   A file, a loop device, a device with neither: none.
 *
 * This is the code that reads a real drive; the tests fake only the ioctl
 * (tests/shim/act_shim.c, ACT_SHIM_NVME). Every call may block as long as
 * the drive does: health_run.h calls them from threads it never waits on
 * for long.
 */
#pragma once

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/health.h"

typedef enum {
	HEALTH_NONE,
	HEALTH_NVME,
	HEALTH_HWMON
} health_kind;

// A device's health source, as health_read_detect found it.
typedef struct health_src_s {
	health_kind kind;
	bool ocp;                  // NVMe: the OCP C0h page answered
	char hwmon[PATH_MAX];      // HEALTH_HWMON: its temp1_input
	char text[256];            // the source (LL_HEALTH_*), or why none
} health_src;

// Find the source of the device on fd (a block device: rdev its number).
// With sample, as a run does, the source is confirmed by reading it - the
// SMART log (and the OCP page), which is then the start sample, into
// *start; without, as --check does, no Get Log Page is sent (NVMe is
// told by NVME_IOCTL_ID and Identify Controller). Never fails: a device
// without a source gets kind HEALTH_NONE and why in src->text.
void health_read_detect(health_src* src, int fd, bool is_block, dev_t rdev,
		bool sample, health* start);

// One sample from src (fd: the device's descriptor) into *out. Returns
// true, or false with why it was not read (LL_HEALTH_FAILED...) in why.
bool health_read_sample(const health_src* src, int fd, health* out,
		char* why, size_t why_len);
