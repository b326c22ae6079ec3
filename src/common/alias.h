/*
 * alias.h - the other names of one drive, which neither the device number
 * nor the inode of the name given shows (docs/beyond.md, "One drive,
 * several names"):
 *  - a loop device reads and writes a range of a file (or of a block
 *    device): another loop device over an overlapping range of the same
 *    file is the same drive, and so is the file;
 *  - a file on an overlay file system is its upper-layer file, and an
 *    upper-layer file is every overlay name that shows it.
 * dev.c compares the devices of a run by these (one drive named twice in
 * one config) and holds the other names for the run as it holds the name
 * given, so that a second test by another name is refused.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#define ALIAS_MAX_HOLDS 16

typedef struct alias_id_s {
	// A whole loop device, over bytes [back_off, back_end) of a file
	// (back_dev, back_ino) or of a block device (back_rdev, not 0).
	bool loop;
	dev_t back_dev;
	ino_t back_ino;
	dev_t back_rdev;
	uint64_t back_off;
	uint64_t back_end;
	// A regular file: the file that holds its data - itself, or for an
	// overlay name its upper-layer file (overlay true).
	bool overlay;
	dev_t real_dev;
	ino_t real_ino;
} alias_id;

// The other names a device holds for its run (descriptors, closed by
// alias_release).
typedef struct alias_holds_s {
	int fd[ALIAS_MAX_HOLDS];
	uint32_t n;
} alias_holds;

// What the device open on fd (st: its fstat, size: its size in bytes) is
// over. A file on an overlay file system whose upper layer is here (in
// this mount namespace) but whose upper-layer file can't be matched gets
// a warning in warn ("" otherwise): it is then known by its own name only.
void alias_identify(int fd, const struct stat* st, uint64_t size,
		alias_id* id, char* warn, size_t warn_len);

// Whether two devices are the same drive by what they are over: loop
// devices over overlapping ranges of one file or block device, or files
// with the same real file.
bool alias_same(const alias_id* a, const alias_id* b);

// Hold the other names of device name (open on fd; st, id as above) for
// the run, as the name itself is held:
//  - a loop device: its backing file with a shared flock (a test on the
//    file is refused, loop devices over other ranges of it are not), its
//    backing block device checked not in use, and every other loop device
//    over an overlapping range of the same backing opened O_EXCL (one that
//    is mounted, swap, or held by another program refuses the device);
//  - a file: its upper-layer file (an overlay name) or its overlay names
//    (an upper-layer file), each flock()ed LOCK_EX and checked not behind
//    a loop device nor an active swap file.
// Returns 0, or -1 with a message in err naming the device, the other
// name and its holder (what was taken is released).
int alias_hold(const char* name, int fd, const struct stat* st,
		const alias_id* id, alias_holds* h, char* err, size_t len);

// Close every descriptor alias_hold took. Safe to call more than once.
void alias_release(alias_holds* h);

// The backing file (or block device) of the loop device rdev (id: what
// alias_identify found it over) by the name sysfs gives it (its
// loop/backing_file, into name; "" when there is none), opened read-only
// and checked to be the very file - device and inode - or block device
// the loop device is over: a descriptor, or -1 when that name does not
// lead to it now (deleted, renamed, another mount namespace's path) or
// the device is not a loop device.
int alias_open_backing(dev_t rdev, const alias_id* id, char* name,
		size_t len);
