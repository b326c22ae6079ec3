/*
 * dev_priv.h - what the files of the dev module share: not for any other
 * module.
 *
 *   dev.c        a device's life: claimed (opened once, checked, held),
 *                created or sized, committed, undone, closed
 *   dev_held.c   the devices a parent holds for us (ACT_HELD_FDS)
 *   dev_probe.c  the minimum I/O size, probed; --check's preview
 *   dev_sched.c  scheduler-mode: set at commit, put back at the end
 *
 * Only these four files include this header.
 */
#pragma once

#include <stddef.h>
#include <sys/stat.h>

#include "common/dev.h"

//==========================================================
// dev.c
//

// Hold the file d for the run: flock(LOCK_EX | LOCK_NB) on fd (d->fd, or
// the parent's descriptor of it). Returns 0, or -1 with a message in err
// naming the holder when another process holds it.
int dev_lock_file(dev* d, int fd, char* err, size_t len);

// The directory of a path name into dir ("." for a bare name, "/" for a
// name in the root).
void dev_dir_of(const char* name, char* dir, size_t len);

//==========================================================
// dev_held.c
//

// The index in held of the device st (a block device by number, a file by
// device and inode), or -1.
int dev_held_index(const dev_held* held, const struct stat* st);

// A parent holds devices (held->n != 0): d, opened, must be one of them
// and verified as the parent's (a block device claimed by nothing else
// visible, a file locked through the parent's descriptor; parent_held is
// set). Returns 0, or -1 with a message in err.
int dev_check_parent_held(dev* d, const dev_held* held, char* err,
		size_t len);

//==========================================================
// dev_probe.c
//

// Set d->min_io: the smallest O_DIRECT read (512 to 4096 bytes, at offset
// 0, under the setup guard) that works on fd - d's descriptor, or a file
// standing in for it - up to d->size. Returns 0, or -1 with a message in
// err when none works.
int dev_probe_min_io(dev* d, int fd, char* err, size_t len);

// Warn (stderr) that d's I/O is buffered, when it is.
void dev_warn_buffered(const dev* d);

//==========================================================
// dev_sched.c
//

// Set d->sched_want on block device d, remembering what to put back when
// it changed (dev_restore_scheduler). Never fails: a warning when it can't.
void dev_set_scheduler(dev* d);
