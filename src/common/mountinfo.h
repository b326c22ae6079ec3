/*
 * mountinfo.h - the lines of /proc/PID/mountinfo, and what they tell of an
 * overlay file system's upper layer: which upper-layer file an overlay name
 * shows, and which overlay name shows an upper-layer file (alias.h uses
 * them; docs/beyond.md, "One drive, several names").
 *
 * Pure: no file is read here.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

// One line, e.g.
// "47 30 0:39 / /mnt/m rw,relatime shared:5 - overlay overlay
// rw,lowerdir=/l,upperdir=/u,workdir=/w": its fields point into the line
// (cut and unescaped in place: \040 is a space...).
typedef struct mountinfo_s {
	int id;
	int parent;
	unsigned maj;
	unsigned min;
	const char* root;        // the directory of the file system mounted
	const char* point;       // where, in this namespace
	const char* fstype;      // "overlay", "ext4"...
	const char* source;
	const char* super_opts;  // still escaped: see mountinfo_option
} mountinfo;

// Parse one line (modified: fields are cut out of it). Returns false if
// it is not a mountinfo line.
bool mountinfo_parse(char* line, mountinfo* m);

// The value of key in a comma-separated option list (super_opts), octal
// escapes undone (a comma in a path is \054): "upperdir" -> "/u". Returns
// false if the key is not there or the value does not fit.
bool mountinfo_option(const char* opts, const char* key, char* out,
		size_t len);

// Undo the kernel's octal escapes (\040 space, \011 tab, \012 newline,
// \134 backslash, \054 comma in an option) in place. /proc/swaps and
// /proc/self/mounts escape the same way.
void mountinfo_unescape(char* s);

// The upper-layer file that the overlay name path shows, for the overlay
// mount m whose upper directory is upperdir: path must be the mount point
// or below it. Returns false if it is not (or does not fit in out).
bool mountinfo_overlay_upper(const mountinfo* m, const char* upperdir,
		const char* path, char* out, size_t len);

// The reverse: the overlay name of the upper-layer file real (a canonical
// path), for the mount m whose canonical upper directory is upperdir.
// Returns false if real is not below the part of upperdir m shows.
bool mountinfo_overlay_name(const mountinfo* m, const char* upperdir,
		const char* real, char* out, size_t len);
