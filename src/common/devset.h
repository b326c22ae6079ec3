/*
 * devset.h - the devices of one run, opened together in one array.
 *
 * Setup never destroys: every device is opened once, checked and held
 * (dev_claim: nothing written) before any file is created or grown; a file
 * that was created or grown is undone if setup fails later; a file that must shrink keeps its data until every device passed
 * its checks (devset_commit). act_storage, act_index and act_prep all set
 * up their devices through here.
 */
#pragma once

#include <stdint.h>

#include "common/dev.h"
#include "common/strbuf.h"

typedef struct devset_s {
	dev* devs;       // n devices, in the order named
	uint32_t n;
} devset;

// Claim every name (dev_claim: open once, check, hold - a parent's devices
// listed in ACT_HELD_FDS are not claimed again), then create, size and
// probe them (dev_open) into s->devs. The holds last until devset_close.
// Returns 0, or -1 having printed the ERROR line and undone the devices
// opened so far.
int devset_open(devset* s, const char* const* names, uint32_t n,
		const dev_opts* o);

// Only the first step of devset_open, writing nothing (act_storage
// --check): claim every name - open once, check, hold (dev_claim), a
// parent's devices listed in ACT_HELD_FDS not claimed again; a file to be
// created is checked for creatability only. Nothing is created, resized or
// written. The holds last until devset_close. Returns 0, or -1 having
// printed the ERROR line and closed the devices claimed so far.
int devset_claim(devset* s, const char* const* names, uint32_t n,
		const dev_opts* o);

// Instead of the rest of devset_open, writing nothing (--check): after
// devset_claim, what dev_open would make of each device (dev_preview:
// size, buffered, minimum I/O size). Returns 0, or -1 having printed the
// ERROR line and closed every device.
int devset_preview(devset* s, const dev_opts* o);

// Setup is complete: apply pending file shrinks (see dev_commit). Returns
// 0, or -1 having printed the ERROR line and undone every device.
int devset_commit(devset* s);

// Setup failed after devset_open: undo every device (see dev_undo) and
// free the array.
void devset_undo(devset* s);

// Put back every I/O scheduler the setup changed (also done by
// devset_close and devset_undo): for a run that ends with workers still
// stuck in an I/O, whose devices are left open.
void devset_restore_schedulers(devset* s);

// Who the drives are and when the test starts (docs/log-format.md, "The
// identity block"): per block device "<device> model = M, serial = S,
// firmware = F" (blkdev.h) and its facts line "<device> rdev = MAJ:MIN,
// wwid = W" (a loop device: then what it is over, backing_dev, backing_ino,
// backing_gen, backing_file), per file - not one this run created -
// "<device> dev = D, ino = I, gen = G"; then "start time = <UTC, ISO
// 8601>", then an empty line - appended to sb. more (if not NULL) appends
// the lines that follow device i's (the drive's health: health_run.h),
// where its facts line would be when it has none.
typedef void (*devset_more_fn)(uint32_t i, strbuf* sb, void* udata);

void devset_identity(const devset* s, strbuf* sb, devset_more_fn more,
		void* udata);

// devset_identity without the start time and the empty line: the
// identity and facts lines of each device (and more's).
void devset_identity_lines(const devset* s, strbuf* sb, devset_more_fn more,
		void* udata);

// Close every device and free the array.
void devset_close(devset* s);
