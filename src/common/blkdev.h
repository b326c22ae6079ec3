/*
 * blkdev.h - what the kernel knows about a block device: whether it is in
 * use (mounted, swap, held by md/LVM/dm, by another program, or behind a
 * loop device), its sysfs directory and its I/O scheduler.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

// The message for a block device whose O_EXCL open gave EBUSY, naming the
// device and what holds it: a mount, swap or md/LVM/dm (sysfs holders)
// where one is found, else the programs that have it open (holder.h).
void blk_describe_busy(const char* name, dev_t rdev, char* err,
		size_t err_len);

// Whether the device (st: its fstat, a regular file or a block device) is
// what a loop device reads and writes (/sys/block/loop*/loop/backing_file):
// the loop driver does not claim it, so the kernel calls it free. Returns
// 0 if no loop device uses it; -1 with a message naming the loop device and
// where it is mounted.
int blk_check_loop_backing(const char* name, const struct stat* st,
		char* err, size_t err_len);

// Whether the regular file st is an active swap file (/proc/swaps).
// Returns 0 if not; -1 with a message.
int blk_check_swap_file(const char* name, const struct stat* st, char* err,
		size_t err_len);

// Describe what holds the device rdev (mount points, swap, holders) into
// out; returns false if nothing was found.
bool blk_describe_holders(dev_t rdev, char* out, size_t out_len);

// The first line of a small file (sysfs), without its newline, in buf
// (len bytes at most, NUL included): false when it can't be read.
bool blk_read_line(const char* path, char* buf, size_t len);

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
// (model, vpd_pg80 or serial, rev), and its world-wide id (the disk's
// wwid, else its device's). A value not found is "unknown". Values are
// tidied (blk_tidy).
typedef struct blk_identity_s {
	char model[256];
	char serial[256];
	char firmware[256];
	char wwid[256];
} blk_identity;

void blk_identify(dev_t rdev, blk_identity* id);

// The sysfs directory of the disk behind rdev (for a partition, its
// parent disk) into out. Returns false when it can't be found.
bool blk_disk_dir(dev_t rdev, char* out, size_t len);

// A value for a log line: white space trimmed at both ends, anything not
// printable ASCII made '?'.
void blk_tidy(char* s);
