/*
 * blkdev.h - what the kernel knows about a block device: whether it is in
 * use (mounted, swap, held by md/LVM/dm), its sysfs directory and its I/O
 * scheduler.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

// Safety probe, before any write: open the device once with O_EXCL and
// close it again. The kernel answers EBUSY when the device (or, for a
// whole disk, one of its partitions) is mounted, is swap, or is held by
// md/LVM/dm. Returns 0 if free; -1 with a message in err naming the device
// and, where it can be found, what holds it. The claim is not kept, so two
// act instances may still share a drive.
int blk_check_not_in_use(const char* path, char* err, size_t err_len);

// Describe what holds the device rdev (mount points, swap, holders) into
// out; returns false if nothing was found.
bool blk_describe_holders(dev_t rdev, char* out, size_t out_len);

// Set the I/O scheduler of the disk behind rdev (for a partition, its
// parent disk) to mode. noop is written as none on a multi-queue kernel
// that has no noop. On success, file is the sysfs scheduler file and old
// the scheduler that was active before (equal to the one now active when
// nothing changed). Returns 0, or -1 with a message in err.
int blk_set_scheduler(const char* path, dev_t rdev, const char* mode,
		char* file, size_t file_len, char* old, size_t old_len, char* err,
		size_t err_len);

// The scheduler active in a sysfs scheduler file (the word in brackets of
// "none [mq-deadline] kyber"). Returns false if it can't be read.
bool blk_active_scheduler(const char* file, char* out, size_t out_len);

// Write a scheduler name to a sysfs scheduler file. Returns 0, or -1 with a
// message in err.
int blk_write_scheduler(const char* file, const char* mode, char* err,
		size_t err_len);

// What a drive says it is, from sysfs (the disk behind rdev; for a
// partition, its parent): model, serial number and firmware revision, for
// NVMe (the controller's model, serial, firmware_rev) and SATA/SAS
// (model, vpd_pg80 or serial, rev). A value not found is "unknown".
typedef struct blk_identity_s {
	char model[256];
	char serial[256];
	char firmware[256];
} blk_identity;

void blk_identify(dev_t rdev, blk_identity* id);
