/*
 * dev_held.c - the devices a parent holds for us (dev.h, dev_held;
 * ACT_HELD_FDS): a claimed device must be one of them, and is verified to
 * be the parent's - a block device claimed by nothing else visible, a file
 * locked through the parent's own descriptor.
 */

#include "common/dev.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/blkdev.h"
#include "common/dev_priv.h"
#include "common/holder.h"

//==========================================================
// Forward declarations.
//

static int check_parent_block(dev* d, const dev_held* held, char* err,
		size_t len);

//==========================================================
// Module API (dev_priv.h).
//

// The index in held of the device st (a block device by number, a file by
// device and inode), or -1.
int
dev_held_index(const dev_held* held, const struct stat* st)
{
	for (uint32_t i = 0; i < held->n; i++) {
		const struct stat* h = &held->st[i];

		if (S_ISBLK(st->st_mode) ? S_ISBLK(h->st_mode) &&
				h->st_rdev == st->st_rdev : S_ISREG(st->st_mode) &&
				S_ISREG(h->st_mode) && h->st_dev == st->st_dev &&
				h->st_ino == st->st_ino) {
			return (int)i;
		}
	}

	return -1;
}

// A parent holds devices (ACT_HELD_FDS; devset.c verified each descriptor:
// open for writing, the parent's own). A device it does not list is
// refused: the parent checked the devices it holds, and a name that is
// none of them is not one it checked (e.g. a file put in place of the one
// it checked). A listed block device was claimed by ourselves when it was
// free (open_once, dev.c); one the kernel says is claimed must be claimed by
// nothing else that can be seen (check_parent_block). A listed file is
// locked through the parent's own descriptor: that succeeds when the
// parent holds the lock (the same open file description) or nobody does,
// and fails when another process holds it.
int
dev_check_parent_held(dev* d, const dev_held* held, char* err, size_t len)
{
	struct stat st;

	if (fstat(d->fd, &st) != 0) {
		snprintf(err, len, "can't stat device %s: %s (errno %d)", d->name,
				strerror(errno), errno);
		return -1;
	}

	int i = dev_held_index(held, &st);

	if (i < 0) {
		snprintf(err, len, "device %s is not one of the devices held by the "
				"parent (%s=%s)", d->name, HOLDER_ENV, held->value);
		return -1;
	}

	if (d->is_block) {
		return d->parent_held ? check_parent_block(d, held, err, len) : 0;
	}

	if (dev_lock_file(d, held->fd[i], err, len) != 0) {
		return -1;
	}

	d->parent_held = true;

	return 0;
}

//==========================================================
// Local helpers.
//

// A block device the parent says it holds, and that the kernel says is
// claimed: nothing else that can be seen may hold it - a mount (of it or,
// for a disk, a partition), swap, md/LVM/dm (sysfs holders) - and it must
// still be claimed (an O_EXCL open of the very device on d->fd fails with
// EBUSY; a name changed between the two opens would show here).
static int
check_parent_block(dev* d, const dev_held* held, char* err, size_t len)
{
	char what[512];

	if (blk_describe_holders(d->rdev, what, sizeof(what))) {
		snprintf(err, len, "device %s is in use (%s) - refusing to write to "
				"it", d->name, what);
		return -1;
	}

	char self[64];

	snprintf(self, sizeof(self), "/proc/self/fd/%d", d->fd);

	int x = open(self, O_RDONLY | O_EXCL | O_CLOEXEC | O_NONBLOCK);
	int e = errno;

	if (x >= 0) {
		close(x);
		snprintf(err, len, "device %s is not held by the parent (%s=%s): it "
				"was claimed a moment ago, and is free now - refusing to write "
				"to it", d->name, HOLDER_ENV, held->value);
		return -1;
	}

	if (e != EBUSY) {
		snprintf(err, len, "can't check that the parent holds device %s: "
				"open %s O_EXCL: %s (errno %d)", d->name, self, strerror(e), e);
		return -1;
	}

	return 0;
}
