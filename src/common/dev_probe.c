/*
 * dev_probe.c - the minimum I/O size of a test device (dev.h, min_io): the
 * smallest O_DIRECT read that works, probed at its start; and --check's
 * preview of it (dev_preview), through an unnamed file for a file not
 * there yet.
 */

#include "common/dev.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/dev_priv.h"
#include "common/guard.h"
#include "common/log.h"
#include "common/loglines.h"

//==========================================================
// Typedefs & constants.
//

#define MIN_PROBE_SIZE 512
#define MAX_PROBE_SIZE 4096

//==========================================================
// Forward declarations.
//

static int probe_unnamed(dev* d, const dev_opts* o, char* err, size_t len);

//==========================================================
// Public API.
//

int
dev_preview(dev* d, const dev_opts* o, char* err, size_t len)
{
	if (! d->is_block && o->file_size != 0) {
		d->size = o->file_size;
	}

	uint64_t probed = d->size < MAX_PROBE_SIZE ? d->size : MAX_PROBE_SIZE;

	// What the probe reads, at the start of the device, is there already -
	// or would be only once the file is created or grown.
	if (d->is_block || (! d->to_create && d->orig_size >= probed)) {
		dev_warn_buffered(d);
		return dev_probe_min_io(d, d->fd, err, len);
	}

	return probe_unnamed(d, o, err, len);
}

//==========================================================
// Module API (dev_priv.h).
//

// The smallest O_DIRECT read that works on fd (d's descriptor, or an
// unnamed file standing in for it), up to d->size.
int
dev_probe_min_io(dev* d, int fd, char* err, size_t len)
{
	void* buf = dev_alloc_buf(MAX_PROBE_SIZE);

	if (buf == NULL) {
		snprintf(err, len, "out of memory probing device %s", d->name);
		return -1;
	}

	// A file smaller than any O_DIRECT read (act_prep may be given one):
	// nothing to probe; its I/O is buffered where it is not a whole 512.
	if (! d->is_block && d->size < MIN_PROBE_SIZE) {
		d->min_io = MIN_PROBE_SIZE;
		free(buf);
		return 0;
	}

	int last_errno = 0;

	for (uint32_t size = MIN_PROBE_SIZE; size <= MAX_PROBE_SIZE; size *= 2) {
		if (size > d->size) {
			break;
		}

		// (fd, not d->fd: the setup guard may undo d once the read begins)
		guard_io_begin(d->name, LL_OP_READ, 0, size);
		ssize_t n = pread(fd, buf, size, 0);
		guard_io_end();

		if (n == (ssize_t)size) {
			d->min_io = size;
			free(buf);
			return 0;
		}

		last_errno = n < 0 ? errno : EIO;
	}

	free(buf);
	snprintf(err, len, "can't find a minimum I/O size for device %s: no "
			"O_DIRECT read of 512 to 4096 bytes at offset 0 works (last "
			"error: %s, errno %d)", d->name, strerror(last_errno), last_errno);

	return -1;
}

void
dev_warn_buffered(const dev* d)
{
	if (d->buffered) {
		log_warn("the file system of %s refuses O_DIRECT - using buffered "
				"I/O: latencies will include the page cache and do not "
				"measure the drive", d->name);
	}
}

//==========================================================
// Local helpers.
//

// dev_preview of a file still to be created, or too small to probe before
// it is grown: probe an unnamed file of its size in its directory instead
// - the same file system, opened as create_file (dev.c) opens (O_DIRECT, else
// buffered), sized without a byte written; O_TMPFILE: it never has a name
// and is gone when closed. A file system without unnamed files: 512, the
// smallest size (never refused).
static int
probe_unnamed(dev* d, const dev_opts* o, char* err, size_t len)
{
	char dir[PATH_MAX];
	int flags = O_RDWR | O_CLOEXEC | O_TMPFILE | (o->dsync ? O_DSYNC : 0);
	bool buffered = false;

	dev_dir_of(d->name, dir, sizeof(dir));

	int fd = open(dir, flags | O_DIRECT, 0600);

	if (fd < 0 && errno == EINVAL) {
		fd = open(dir, flags, 0600);
		buffered = fd >= 0;
	}

	if (fd < 0) {
		d->min_io = MIN_PROBE_SIZE;
		return 0;
	}

	if (ftruncate(fd, (off_t)d->size) != 0) {
		snprintf(err, len, "can't size an unnamed file in %s to %" PRIu64
				" bytes to probe device file %s: %s (errno %d)", dir, d->size,
				d->name, strerror(errno), errno);
		close(fd);
		return -1;
	}

	if (d->to_create) {
		d->buffered = buffered;
	}

	dev_warn_buffered(d);

	int rv = dev_probe_min_io(d, fd, err, len);

	close(fd);

	return rv;
}
