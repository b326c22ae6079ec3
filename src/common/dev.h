/*
 * dev.h - opening test devices: block devices and file-backed devices.
 *
 * Block devices are sized with BLKGETSIZE64 and opened O_DIRECT (+ O_DSYNC
 * unless disabled). Regular files - or any name when a file size is given -
 * are file-backed devices: created and sized if asked, opened O_DIRECT where
 * the file system allows it and buffered (loudly) where it does not.
 *
 * Each device is opened once, every check is made on that descriptor, and
 * the device is held for the whole run: a block device is opened O_EXCL, a
 * file is flock()ed (LOCK_EX) - and so are its other names (alias.h: loop
 * devices over the same file, overlay layers). A second act program on the
 * same drive - by whatever name - is refused at setup, naming the holder
 * (holder.h). A parent may hold the devices instead (dev_held,
 * ACT_HELD_FDS): the program verifies that it does.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "common/alias.h"
#include "common/limits.h"
#include "common/holder.h"

typedef struct dev_opts_s {
	uint64_t file_size;     // bytes; 0 = use the file's current size
	bool dsync;             // open with O_DSYNC
	const char* scheduler;  // block devices: scheduler to set, or NULL
	const char* size_item;  // what sets file_size, for messages
} dev_opts;

// The devices a parent holds for this run (ACT_HELD_FDS, holder.h): each
// descriptor it passed down (verified: open for writing, the parent's own)
// and its fstat. n == 0: no parent holds any.
typedef struct dev_held_s {
	const char* value;      // ACT_HELD_FDS as given, for messages
	uint32_t n;
	int fd[HOLDER_MAX_FDS];
	struct stat st[HOLDER_MAX_FDS];
} dev_held;

typedef struct dev_s {
	char name[ACT_MAX_NAME];
	int fd;
	bool is_block;
	bool to_create;         // did not exist: dev_open creates the file
	bool parent_held;       // one of the parent's (dev_held): no own claim
	dev_t st_dev;           // identity, from fstat of fd: a file's
	ino_t st_ino;           //   device and inode,
	dev_t rdev;             //   a block device's number,
	alias_id id;            //   what it is over (loop, overlay)
	alias_holds holds;      // its other names, held for the run too
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

// First step of setup, writing nothing: open the name once (O_RDWR,
// O_DIRECT, O_DSYNC if asked, O_EXCL), check it on that descriptor (type,
// read-only, size, the same drive as one of the n_prev devices already
// claimed - by number, inode or what it is over -, behind a loop device,
// an active swap file) and hold it (a file: flock). One of held's is
// verified instead of claimed: a block device the kernel says is claimed
// (EBUSY) and that nothing else visible holds (mount, swap, md/LVM/dm), a
// file whose lock the parent's descriptor takes. A name that does not
// exist and is to be created (o->file_size) is checked for creatability
// only (to_create). Returns 0, or -1 with a message in err (nothing held
// any more).
int dev_claim(dev* d, const char* name, const dev_opts* o, const dev* prev,
		uint32_t n_prev, const dev_held* held, char* err, size_t len);

// Once every device of the run is claimed (so that one drive named twice
// is told as such first): hold the device's other names for the run too
// (alias_hold). A device still to be created has none yet (dev_open
// holds them once it exists). Returns 0, or -1 with a message in err (its
// other names let go; the caller undoes the device).
int dev_hold_aliases(dev* d, char* err, size_t len);

// Second step, once every device is claimed: create a file to be created
// (and hold it), grow a file to o->file_size, probe the minimum I/O size.
// A file that must shrink keeps its data until dev_commit. prev/n_prev:
// the devices before this one, to tell a name given twice. On failure
// returns -1 with a message in err, having undone what it did.
int dev_open(dev* d, const dev_opts* o, const dev* prev, uint32_t n_prev,
		char* err, size_t len);

// Instead of dev_open, writing nothing (--check): what dev_open would make
// of a claimed device - its size (a file's file_size, when given), whether
// its I/O is buffered and its minimum I/O size, probed by reading (a file
// to be created, or to be grown and smaller than the probe, through an
// unnamed temporary file in its directory: nothing appears, nothing
// remains). Returns 0, or -1 with a message in err (the caller closes).
int dev_preview(dev* d, const dev_opts* o, char* err, size_t len);

// Setup succeeded: apply a pending shrink, then set scheduler-mode (block
// devices; a change is announced on stderr, a failure is a warning).
// Returns 0 or -1 with a message.
int dev_commit(dev* d, char* err, size_t len);

// Put back the I/O scheduler dev_commit changed (announced on stderr).
// Safe to call more than once; dev_undo and dev_close call it too.
void dev_restore_scheduler(dev* d);

// Setup failed: remove a file we created, or shrink back one we grew; then
// close (which ends the hold).
void dev_undo(dev* d);

// Close the device: its descriptor, and with it the hold.
void dev_close(dev* d);

// Allocate size bytes aligned for O_DIRECT (4096). NULL on failure.
void* dev_alloc_buf(size_t size);
