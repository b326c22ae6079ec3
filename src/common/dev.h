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
} dev;

// Checks that write nothing: the name exists (or will be created as a
// file), is a block device or regular file, and is not in use. Returns 0 or
// -1 with a message in err.
int dev_check(const char* name, const dev_opts* o, char* err, size_t len);

// Open (creating and sizing a file if o->file_size), size and probe. On
// failure returns -1 with a message in err and leaves nothing open.
int dev_open(dev* d, const char* name, const dev_opts* o, char* err,
		size_t len);

void dev_close(dev* d);

// Allocate size bytes aligned for O_DIRECT (4096). NULL on failure.
void* dev_alloc_buf(size_t size);
