/*
 * dev.h - opening test devices: block devices and file-backed devices.
 *
 * Block devices are sized with BLKGETSIZE64 and opened O_DIRECT (+ O_DSYNC
 * unless disabled). Regular files - or any name when a file size is given -
 * are file-backed devices: created and sized if asked, opened O_DIRECT where
 * the file system allows it and buffered (loudly) where it does not.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cfg.h"

typedef struct dev_opts_s {
	uint64_t file_size;     // bytes; 0 = use the file's current size
	bool dsync;             // open with O_DSYNC
	const char* scheduler;  // block devices: scheduler to set, or NULL
	const char* size_item;  // what sets file_size, for messages
} dev_opts;

typedef struct dev_s {
	char name[CFG_MAX_NAME];
	int fd;
	bool is_block;
	bool buffered;          // the file system refused O_DIRECT
	uint64_t size;          // bytes
	uint32_t min_io;        // smallest O_DIRECT read size that works

	// Undo information: a run refused at setup leaves files as they were.
	bool created;           // the file did not exist
	uint64_t orig_size;     // the file's size before we grew it
	uint64_t shrink_to;     // pending: shrink the file at commit (0: none)

	// scheduler-mode: set at commit, put back by dev_restore_scheduler.
	const char* sched_want; // block devices: the mode to set, or NULL
	char sched_file[256];   // sysfs queue/scheduler file we changed
	char sched_old[32];     // its scheduler before ("" = nothing to restore)
} dev;

// Checks that write nothing: the name exists (or will be created as a
// file), is a block device or regular file, and is not in use. Returns 0 or
// -1 with a message in err.
int dev_check(const char* name, const dev_opts* o, char* err, size_t len);

// Open (creating or growing a file to o->file_size), size and probe. A file
// that must shrink keeps its data until dev_commit. On failure returns -1
// with a message in err, having undone what it did.
int dev_open(dev* d, const char* name, const dev_opts* o, char* err,
		size_t len);

// Setup succeeded: apply a pending shrink, then set scheduler-mode (block
// devices; a change is announced on stderr, a failure is a warning).
// Returns 0 or -1 with a message.
int dev_commit(dev* d, char* err, size_t len);

// Put back the I/O scheduler dev_commit changed (announced on stderr).
// Safe to call more than once; dev_undo and dev_close call it too.
void dev_restore_scheduler(dev* d);

// Setup failed: remove a file we created, or shrink back one we grew; then
// close.
void dev_undo(dev* d);

void dev_close(dev* d);

// Allocate size bytes aligned for O_DIRECT (4096). NULL on failure.
void* dev_alloc_buf(size_t size);
