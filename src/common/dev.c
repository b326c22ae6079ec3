/*
 * dev.c - opening test devices: block devices and file-backed devices - a
 * device's life: claimed (opened once, checked, held), created or sized,
 * committed, undone, closed. The devices a parent holds for us are
 * dev_held.c, the minimum I/O size and --check's preview dev_probe.c,
 * scheduler-mode dev_sched.c (dev_priv.h).
 */

#include "common/dev.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "common/blkdev.h"
#include "common/dev_priv.h"
#include "common/holder.h"
#include "common/log.h"

//==========================================================
// Typedefs & constants.
//

#define IO_ALIGN 4096

//==========================================================
// Forward declarations.
//

static int check_name(dev* d, const char* name, const dev_opts* o,
		struct stat* pre, char* err, size_t len);
static int open_once(dev* d, const char* name, const dev_opts* o,
		const struct stat* pre, const dev* prev, uint32_t n_prev,
		const dev_held* held, char* err, size_t len);
static int check_fd(dev* d, const dev_opts* o, struct stat* st, char* err,
		size_t len);
static int check_block(dev* d, char* err, size_t len);
static void identify(dev* d, const struct stat* st);
static const dev* same_drive(const struct stat* st, const alias_id* id,
		const dev* prev, uint32_t n_prev);
static void same_drive_msg(const dev* d, const dev* other, char* err,
		size_t len);
static int create_file(dev* d, const dev_opts* o, const dev* prev,
		uint32_t n_prev, char* err, size_t len);
static int size_file(dev* d, const dev_opts* o, char* err, size_t len);
static const char* size_item(const dev_opts* o);
static int check_creatable(const char* name, char* err, size_t len);
static bool in_dev_tree(const char* name);

//==========================================================
// Public API.
//

int
dev_claim(dev* d, const char* name, const dev_opts* o, const dev* prev,
		uint32_t n_prev, const dev_held* held, char* err, size_t len)
{
	struct stat pre;

	memset(d, 0, sizeof(*d));
	d->fd = -1;
	snprintf(d->name, sizeof(d->name), "%s", name);

	if (check_name(d, name, o, &pre, err, len) != 0) {
		return -1;
	}

	if (d->to_create) {
		return 0;
	}

	bool parent = held != NULL && held->n != 0;
	struct stat st;
	int rv = open_once(d, name, o, &pre, prev, n_prev, held, err, len);

	if (rv == 0) {
		rv = check_fd(d, o, &st, err, len);
	}

	if (rv == 0) {
		identify(d, &st);

		const dev* other = same_drive(&st, &d->id, prev, n_prev);

		if (other != NULL) {
			same_drive_msg(d, other, err, len);
			rv = -1;
		}
	}

	if (rv == 0) {
		rv = blk_check_loop_backing(name, &st, err, len);
	}

	if (rv == 0 && ! d->is_block) {
		rv = blk_check_swap_file(name, &st, err, len);
	}

	if (rv == 0 && parent) {
		rv = dev_check_parent_held(d, held, err, len);
	}

	if (rv == 0 && ! d->is_block && ! d->parent_held) {
		rv = dev_lock_file(d, d->fd, err, len);
	}

	if (rv != 0) {
		dev_close(d);
	}

	return rv;
}

int
dev_hold_aliases(dev* d, char* err, size_t len)
{
	struct stat st;

	if (d->fd < 0) {
		return 0; // to be created: dev_open holds its other names
	}

	if (fstat(d->fd, &st) != 0) {
		snprintf(err, len, "can't stat device %s: %s (errno %d)", d->name,
				strerror(errno), errno);
		return -1;
	}

	return alias_hold(d->name, d->fd, &st, &d->id, &d->holds, err, len);
}

int
dev_open(dev* d, const dev_opts* o, const dev* prev, uint32_t n_prev,
		char* err, size_t len)
{
	int rv = 0;

	if (d->to_create) {
		rv = create_file(d, o, prev, n_prev, err, len);

		if (rv == 0) {
			rv = dev_hold_aliases(d, err, len);
		}
	}

	if (rv == 0 && ! d->is_block) {
		rv = size_file(d, o, err, len);
	}

	if (rv == 0) {
		dev_warn_buffered(d);
		rv = dev_probe_min_io(d, d->fd, err, len);
	}

	if (rv != 0) {
		dev_undo(d);
	}

	return rv;
}

int
dev_commit(dev* d, char* err, size_t len)
{
	if (d->shrink_to != 0) {
		if (ftruncate(d->fd, (off_t)d->shrink_to) != 0) {
			snprintf(err, len, "can't size device file %s to %" PRIu64
					" bytes: %s (errno %d)", d->name, d->shrink_to,
					strerror(errno), errno);
			return -1;
		}

		d->shrink_to = 0;
	}

	d->created = false;
	d->orig_size = d->size;

	if (d->is_block && d->sched_want != NULL) {
		dev_set_scheduler(d);
	}

	return 0;
}

void
dev_undo(dev* d)
{
	dev_restore_scheduler(d);

	if (d->fd >= 0 && ! d->is_block) {
		struct stat now;

		// Only the file we created: not one put there under its name since.
		if (d->created && stat(d->name, &now) == 0 &&
				now.st_dev == d->st_dev && now.st_ino == d->st_ino) {
			unlink(d->name);
		}
		else if (d->orig_size < d->size && d->shrink_to == 0) {
			if (ftruncate(d->fd, (off_t)d->orig_size) != 0) {
				log_warn("can't shrink %s back to %" PRIu64 " bytes: %s",
						d->name, d->orig_size, strerror(errno));
			}
		}
	}

	dev_close(d);
}

void
dev_close(dev* d)
{
	dev_restore_scheduler(d);
	alias_release(&d->holds);

	if (d->fd >= 0) {
		close(d->fd);
		d->fd = -1;
	}
}

void*
dev_alloc_buf(size_t size)
{
	void* buf = NULL;

	if (posix_memalign(&buf, IO_ALIGN, size == 0 ? IO_ALIGN : size) != 0) {
		return NULL;
	}

	return buf;
}

//==========================================================
// Module API (dev_priv.h).
//

// Hold a file for the run: flock(LOCK_EX) on the one descriptor fd (d->fd,
// or the parent's) - another act (or act_certify) on it is refused,
// whatever name it uses.
int
dev_lock_file(dev* d, int fd, char* err, size_t len)
{
	if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
		return 0;
	}

	int e = errno;

	if (e != EWOULDBLOCK) {
		snprintf(err, len, "can't lock device file %s: flock: %s (errno %d)",
				d->name, strerror(e), e);
		return -1;
	}

	char who[512];

	if (holder_of_file(d->st_dev, d->st_ino, who, sizeof(who)) != 0) {
		snprintf(err, len, "device %s is in use by %s - %s", d->name, who,
				HOLDER_TWO_TESTS);
	}
	else {
		snprintf(err, len, "device %s is in use (another program holds an "
				"flock on it: %s, errno %d) - %s", d->name, strerror(e), e,
				HOLDER_TWO_TESTS);
	}

	return -1;
}

// The directory of a path name ("." for a bare name).
void
dev_dir_of(const char* name, char* dir, size_t len)
{
	const char* slash = strrchr(name, '/');

	if (slash == NULL) {
		snprintf(dir, len, ".");
	}
	else if (slash == name) {
		snprintf(dir, len, "/");
	}
	else {
		snprintf(dir, len, "%.*s", (int)(slash - name), name);
	}
}

//==========================================================
// Local helpers.
//

// Checks on the name before anything is opened (a stat: a missing name,
// a name to be created, a type that is neither block device nor file - never
// opened, so a character device or FIFO is not touched).
static int
check_name(dev* d, const char* name, const dev_opts* o, struct stat* pre,
		char* err, size_t len)
{
	if (stat(name, pre) != 0) {
		int e = errno;

		if (e == ENOENT && in_dev_tree(name)) {
			snprintf(err, len, "device %s does not exist - check the name "
					"(act never creates a file under /dev)", name);
			return -1;
		}

		if (e == ENOENT && o->file_size != 0) {
			d->to_create = true;
			return check_creatable(name, err, len);
		}

		snprintf(err, len, "can't use device %s: %s (errno %d)%s%s%s", name,
				strerror(e), e, e == ENOENT ? " - check the name, or set " : "",
				e == ENOENT ? size_item(o) : "", e == ENOENT ?
				" to create it as a file-backed device" : "");
		return -1;
	}

	if (S_ISBLK(pre->st_mode) && o->file_size != 0) {
		snprintf(err, len, "device %s is a block device but %s is set (it "
				"applies to files only)", name, size_item(o));
		return -1;
	}

	if (! S_ISBLK(pre->st_mode) && ! S_ISREG(pre->st_mode)) {
		snprintf(err, len, "device %s is neither a block device nor a "
				"regular file", name);
		return -1;
	}

	return 0;
}

// The one open of an existing name, O_EXCL: that claims a block device
// (Linux ignores it for an existing file without O_CREAT). A block device
// already claimed (EBUSY) that the parent says it holds (held) is opened
// without O_EXCL, parent_held set: dev_check_parent_held (dev_held.c)
// verifies the claim. A file system that refuses O_DIRECT (EINVAL, before
// any descriptor exists) gets a buffered open.
static int
open_once(dev* d, const char* name, const dev_opts* o, const struct stat* pre,
		const dev* prev, uint32_t n_prev, const dev_held* held, char* err,
		size_t len)
{
	int flags = O_RDWR | O_CLOEXEC | (o->dsync ? O_DSYNC : 0);

	d->fd = open(name, flags | O_EXCL | O_DIRECT);

	if (d->fd < 0 && errno == EINVAL && S_ISREG(pre->st_mode)) {
		d->fd = open(name, flags | O_EXCL);
		d->buffered = d->fd >= 0;
	}

	if (d->fd >= 0) {
		return 0;
	}

	int e = errno;

	if (e == EBUSY && S_ISBLK(pre->st_mode)) {
		// Claimed: by this run under another name, by the parent, or by
		// someone else.
		const dev* other = same_drive(pre, NULL, prev, n_prev);

		d->is_block = true;
		d->rdev = pre->st_rdev;

		if (other != NULL) {
			same_drive_msg(d, other, err, len);
			return -1;
		}

		if (held != NULL && dev_held_index(held, pre) >= 0) {
			d->fd = open(name, flags | O_DIRECT);

			if (d->fd >= 0) {
				d->parent_held = true;
				return 0;
			}

			e = errno;
		}
		else {
			blk_describe_busy(name, pre->st_rdev, err, len);
			return -1;
		}
	}

	if ((e == EACCES || e == EPERM) && S_ISREG(pre->st_mode) &&
			(pre->st_mode & 0222) == 0) {
		snprintf(err, len, "device file %s is read-only (mode %04o) - the "
				"test writes to it", name, (unsigned)(pre->st_mode & 07777));
		return -1;
	}

	snprintf(err, len, "can't open %s %s: %s (errno %d)",
			S_ISBLK(pre->st_mode) ? "device" : "device file", name,
			strerror(e), e);

	return -1;
}

// Every check on the descriptor itself: what was opened is what counts,
// whatever the name points to now.
static int
check_fd(dev* d, const dev_opts* o, struct stat* stp, char* err, size_t len)
{
	struct stat st;

	if (fstat(d->fd, &st) != 0) {
		snprintf(err, len, "can't stat device %s: %s (errno %d)", d->name,
				strerror(errno), errno);
		return -1;
	}

	*stp = st;
	d->st_dev = st.st_dev;
	d->st_ino = st.st_ino;
	d->rdev = st.st_rdev;

	if (S_ISBLK(st.st_mode)) {
		d->is_block = true;

		if (o->file_size != 0) {
			snprintf(err, len, "device %s is a block device but %s is set "
					"(it applies to files only)", d->name, size_item(o));
			return -1;
		}

		d->sched_want = o->scheduler;

		return check_block(d, err, len);
	}

	if (! S_ISREG(st.st_mode)) {
		snprintf(err, len, "device %s is neither a block device nor a "
				"regular file", d->name);
		return -1;
	}

	if ((st.st_mode & 0222) == 0) {
		snprintf(err, len, "device file %s is read-only (mode %04o) - the "
				"test writes to it", d->name, (unsigned)(st.st_mode & 07777));
		return -1;
	}

	if (o->file_size == 0 && st.st_size == 0) {
		snprintf(err, len, "device file %s is empty - set %s to size it",
				d->name, size_item(o));
		return -1;
	}

	d->orig_size = (uint64_t)st.st_size;
	d->size = d->orig_size;

	return 0;
}

static int
check_block(dev* d, char* err, size_t len)
{
	int ro = 0;

	if (ioctl(d->fd, BLKROGET, &ro) == 0 && ro != 0) {
		snprintf(err, len, "device %s is read-only - the test writes to it",
				d->name);
		return -1;
	}

	if (ioctl(d->fd, BLKGETSIZE64, &d->size) != 0) {
		snprintf(err, len, "can't get the size of device %s: ioctl "
				"BLKGETSIZE64: %s (errno %d)", d->name, strerror(errno),
				errno);
		return -1;
	}

	if (d->size == 0) {
		snprintf(err, len, "device %s has size 0", d->name);
		return -1;
	}

	return 0;
}

// What the device open on d->fd is over (alias.h): loop backing, overlay
// upper-layer file. An overlay file whose upper-layer file is here but
// can't be matched is a warning.
static void
identify(dev* d, const struct stat* st)
{
	char warn[PATH_MAX + 512];

	alias_identify(d->fd, st, d->size, &d->id, warn, sizeof(warn));

	if (warn[0] != '\0') {
		log_warn("%s", warn);
	}
}

// The device before this one that is the same drive as st (id: what it is
// over, or NULL): the same block device (by number, whatever its name), or
// the same file (device and inode: a hard link, a symlink, another path),
// or the same storage under them (alias_same: loop devices over one file,
// an overlay file and its upper-layer file).
static const dev*
same_drive(const struct stat* st, const alias_id* id, const dev* prev,
		uint32_t n_prev)
{
	for (uint32_t i = 0; i < n_prev; i++) {
		const dev* p = &prev[i];

		if (p->fd < 0) {
			continue;
		}

		if (S_ISBLK(st->st_mode) ? p->is_block && p->rdev == st->st_rdev :
				! p->is_block && p->st_dev == st->st_dev &&
				p->st_ino == st->st_ino) {
			return p;
		}

		if (id != NULL && alias_same(&p->id, id)) {
			return p;
		}
	}

	return NULL;
}

static void
same_drive_msg(const dev* d, const dev* other, char* err, size_t len)
{
	if (other->is_block && d->is_block && other->rdev != d->rdev &&
			other->id.loop) {
		const alias_id* id = &other->id;

		if (id->back_rdev != 0) {
			snprintf(err, len, "devices %s and %s are the same drive (loop "
					"devices over block device %u:%u) - name each drive once",
					other->name, d->name, major(id->back_rdev),
					minor(id->back_rdev));
		}
		else {
			snprintf(err, len, "devices %s and %s are the same drive (loop "
					"devices over the same file, inode %lu on device %u:%u) - "
					"name each drive once", other->name, d->name,
					(unsigned long)id->back_ino, major(id->back_dev),
					minor(id->back_dev));
		}
	}
	else if (other->is_block) {
		snprintf(err, len, "devices %s and %s are the same drive (device "
				"%u:%u) - name each drive once", other->name, d->name,
				major(other->rdev), minor(other->rdev));
	}
	else if (other->st_dev != d->st_dev || other->st_ino != d->st_ino) {
		snprintf(err, len, "devices %s and %s are the same file (inode %lu "
				"on device %u:%u, %s through an overlay file system) - name "
				"each drive once", other->name, d->name,
				(unsigned long)other->id.real_ino,
				major(other->id.real_dev), minor(other->id.real_dev),
				other->id.overlay ? other->name : d->name);
	}
	else {
		snprintf(err, len, "devices %s and %s are the same file (inode %lu "
				"on device %u:%u) - name each drive once", other->name,
				d->name, (unsigned long)other->st_ino, major(other->st_dev),
				minor(other->st_dev));
	}
}

// A file-backed device that did not exist, once every device passed its
// checks: create it and hold it.
static int
create_file(dev* d, const dev_opts* o, const dev* prev, uint32_t n_prev,
		char* err, size_t len)
{
	int flags = O_RDWR | O_CLOEXEC | O_CREAT | O_EXCL |
			(o->dsync ? O_DSYNC : 0);

	d->fd = open(d->name, flags | O_DIRECT, 0644);

	if (d->fd < 0 && errno == EINVAL) {
		d->fd = open(d->name, flags, 0644);
		d->buffered = d->fd >= 0;
	}

	if (d->fd < 0) {
		int e = errno;
		struct stat st;
		const dev* other = NULL;

		// Created a moment ago under another name of the same file?
		if (e == EEXIST && stat(d->name, &st) == 0) {
			other = same_drive(&st, NULL, prev, n_prev);
		}

		if (other != NULL) {
			same_drive_msg(d, other, err, len);
		}
		else {
			snprintf(err, len, "can't create device file %s: %s (errno %d)",
					d->name, strerror(e), e);
		}

		return -1;
	}

	d->created = true;
	d->to_create = false;

	struct stat st;

	if (fstat(d->fd, &st) != 0) {
		snprintf(err, len, "can't stat device file %s: %s (errno %d)",
				d->name, strerror(errno), errno);
		return -1;
	}

	d->st_dev = st.st_dev;
	d->st_ino = st.st_ino;
	identify(d, &st);

	return dev_lock_file(d, d->fd, err, len);
}

// Grow a file to file_size now (undone by dev_undo); a shrink waits for
// dev_commit.
static int
size_file(dev* d, const dev_opts* o, char* err, size_t len)
{
	if (o->file_size > d->orig_size) {
		if (ftruncate(d->fd, (off_t)o->file_size) != 0) {
			snprintf(err, len, "can't size device file %s to %" PRIu64
					" bytes: %s (errno %d)", d->name, o->file_size,
					strerror(errno), errno);
			return -1;
		}

		d->size = o->file_size;
	}
	else if (o->file_size != 0 && o->file_size < d->orig_size) {
		d->shrink_to = o->file_size;
		d->size = o->file_size;
	}

	if (d->size == 0) {
		snprintf(err, len, "device file %s is empty - set %s to size it",
				d->name, size_item(o));
		return -1;
	}

	return 0;
}

// A file to be created: its directory must exist and be writable.
static int
check_creatable(const char* name, char* err, size_t len)
{
	char dir[PATH_MAX];

	dev_dir_of(name, dir, sizeof(dir));

	struct stat st;

	if (stat(dir, &st) != 0 || ! S_ISDIR(st.st_mode)) {
		snprintf(err, len, "can't create device file %s: directory %s does "
				"not exist", name, dir);
		return -1;
	}

	if (access(dir, W_OK) != 0) {
		snprintf(err, len, "can't create device file %s: %s (errno %d)", name,
				strerror(errno), errno);
		return -1;
	}

	return 0;
}

static const char*
size_item(const dev_opts* o)
{
	return o->size_item != NULL ? o->size_item : "file-size-mbytes";
}

// Whether a name that does not exist would be created in /dev itself (or a
// directory of the file system /dev is on, as /dev/disk/by-id), or on a
// devtmpfs or devpts: a mistyped device name (/dev/nvme0n1x), never a file
// to create there - it would test RAM. Another file system mounted under
// /dev - the tmpfs of /dev/shm - is an ordinary place for a trial device
// file. The type comes from the mount table: statfs can't tell devtmpfs
// from tmpfs (both say TMPFS_MAGIC).
static bool
in_dev_tree(const char* name)
{
	char dir[PATH_MAX];
	char real[PATH_MAX];
	const char* slash = strrchr(name, '/');

	if (slash == NULL) {
		snprintf(dir, sizeof(dir), ".");
	}
	else {
		snprintf(dir, sizeof(dir), "%.*s", slash == name ? 1 :
				(int)(slash - name), name);
	}

	if (realpath(dir, real) == NULL) {
		return strncmp(name, "/dev/", 5) == 0;
	}

	if (strcmp(real, "/dev") == 0) {
		return true;
	}

	struct stat dir_st;
	struct stat dev_st;

	if (strncmp(real, "/dev/", 5) == 0 && stat(real, &dir_st) == 0 &&
			stat("/dev", &dev_st) == 0 && dir_st.st_dev == dev_st.st_dev) {
		return true;
	}

	// The file system the directory is on: the longest mount point that
	// is a prefix of it.
	FILE* f = fopen("/proc/self/mounts", "r");

	if (f == NULL) {
		return false;
	}

	char line[4096];
	size_t best = 0;
	bool dev_fs = false;

	while (fgets(line, sizeof(line), f) != NULL) {
		char mnt[PATH_MAX];
		char type[64];

		if (sscanf(line, "%*s %4095s %63s", mnt, type) != 2) {
			continue;
		}

		size_t n = strlen(mnt);
		bool prefix = strcmp(mnt, "/") == 0 || (strncmp(real, mnt, n) == 0 &&
				(real[n] == '/' || real[n] == '\0'));

		if (prefix && n >= best) {
			best = n;
			dev_fs = strcmp(type, "devtmpfs") == 0 ||
					strcmp(type, "devpts") == 0;
		}
	}

	fclose(f);

	return dev_fs;
}
