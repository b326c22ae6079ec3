/*
 * dev.c - opening test devices: block devices and file-backed devices.
 */

#include "dev.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "blkdev.h"
#include "guard.h"
#include "log.h"

//==========================================================
// Typedefs & constants.
//

#define IO_ALIGN 4096
#define MIN_PROBE_SIZE 512
#define MAX_PROBE_SIZE 4096

//==========================================================
// Forward declarations.
//

static int open_block(dev* d, const char* name, const dev_opts* o, char* err,
		size_t len);
static int open_file(dev* d, const char* name, const dev_opts* o, char* err,
		size_t len);
static int probe_min_io(dev* d, char* err, size_t len);
static void set_scheduler(dev* d);
static const char* size_item(const dev_opts* o);
static int check_creatable(const char* name, char* err, size_t len);
static bool in_dev_tree(const char* name);

//==========================================================
// Public API.
//

int
dev_check(const char* name, const dev_opts* o, char* err, size_t len)
{
	struct stat st;

	if (stat(name, &st) != 0) {
		int e = errno;

		if (e == ENOENT && in_dev_tree(name)) {
			snprintf(err, len, "device %s does not exist - check the name "
					"(act never creates a file under /dev)", name);
			return -1;
		}

		if (e == ENOENT && o->file_size != 0) {
			return check_creatable(name, err, len);
		}

		snprintf(err, len, "can't use device %s: %s (errno %d)%s%s%s", name,
				strerror(e), e, e == ENOENT ? " - check the name, or set " : "",
				e == ENOENT ? size_item(o) : "", e == ENOENT ?
				" to create it as a file-backed device" : "");
		return -1;
	}

	if (S_ISBLK(st.st_mode)) {
		if (o->file_size != 0) {
			snprintf(err, len, "device %s is a block device but %s is set "
					"(it applies to files only)", name, size_item(o));
			return -1;
		}

		return blk_check_not_in_use(name, err, len);
	}

	if (! S_ISREG(st.st_mode)) {
		snprintf(err, len, "device %s is neither a block device nor a "
				"regular file", name);
		return -1;
	}

	if (o->file_size == 0 && st.st_size == 0) {
		snprintf(err, len, "device file %s is empty - set %s to size it",
				name, size_item(o));
		return -1;
	}

	if ((st.st_mode & 0222) == 0) {
		snprintf(err, len, "device file %s is read-only (mode %04o) - the "
				"test writes to it", name, (unsigned)(st.st_mode & 07777));
		return -1;
	}

	return 0;
}

int
dev_open(dev* d, const char* name, const dev_opts* o, char* err, size_t len)
{
	memset(d, 0, sizeof(*d));
	d->fd = -1;
	snprintf(d->name, sizeof(d->name), "%s", name);

	if (dev_check(name, o, err, len) != 0) {
		return -1;
	}

	struct stat st;
	bool is_block = stat(name, &st) == 0 && S_ISBLK(st.st_mode);
	int rv = is_block ? open_block(d, name, o, err, len) :
			open_file(d, name, o, err, len);

	if (rv == 0) {
		rv = probe_min_io(d, err, len);
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
		set_scheduler(d);
	}

	return 0;
}

void
dev_restore_scheduler(dev* d)
{
	if (d->sched_old[0] == '\0') {
		return;
	}

	char msg[512];

	if (blk_write_scheduler(d->sched_file, d->sched_old, msg,
			sizeof(msg)) != 0) {
		log_warn("I/O scheduler of %s not restored to %s: %s", d->name,
				d->sched_old, msg);
	}
	else {
		log_note("I/O scheduler of %s restored to %s", d->name, d->sched_old);
	}

	d->sched_old[0] = '\0';
}

void
dev_undo(dev* d)
{
	dev_restore_scheduler(d);

	if (d->fd >= 0 && ! d->is_block) {
		if (d->created) {
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
// Local helpers.
//

static int
open_block(dev* d, const char* name, const dev_opts* o, char* err, size_t len)
{
	int flags = O_RDWR | O_DIRECT | O_CLOEXEC | (o->dsync ? O_DSYNC : 0);

	d->is_block = true;
	d->fd = open(name, flags);

	if (d->fd < 0) {
		snprintf(err, len, "can't open device %s: %s (errno %d)", name,
				strerror(errno), errno);
		return -1;
	}

	int ro = 0;

	if (ioctl(d->fd, BLKROGET, &ro) == 0 && ro != 0) {
		snprintf(err, len, "device %s is read-only - the test writes to it",
				name);
		return -1;
	}

	if (ioctl(d->fd, BLKGETSIZE64, &d->size) != 0) {
		snprintf(err, len, "can't get the size of device %s: ioctl "
				"BLKGETSIZE64: %s (errno %d)", name, strerror(errno), errno);
		return -1;
	}

	if (d->size == 0) {
		snprintf(err, len, "device %s has size 0", name);
		return -1;
	}

	d->sched_want = o->scheduler;

	return 0;
}

static int
open_file(dev* d, const char* name, const dev_opts* o, char* err, size_t len)
{
	struct stat st;
	bool existed = stat(name, &st) == 0;
	int flags = O_RDWR | O_CLOEXEC | (o->dsync ? O_DSYNC : 0) |
			(existed ? 0 : O_CREAT | O_EXCL);

	d->fd = open(name, flags | O_DIRECT, 0644);

	if (d->fd < 0 && errno == EINVAL) {
		d->fd = open(name, flags, 0644);

		if (d->fd >= 0) {
			d->buffered = true;
			log_warn("the file system of %s refuses O_DIRECT - using "
					"buffered I/O: latencies will include the page cache and "
					"do not measure the drive", name);
		}
	}

	if (d->fd < 0) {
		snprintf(err, len, "can't open device file %s: %s (errno %d)", name,
				strerror(errno), errno);
		return -1;
	}

	d->created = ! existed;

	if (fstat(d->fd, &st) != 0) {
		snprintf(err, len, "can't stat device file %s: %s (errno %d)", name,
				strerror(errno), errno);
		return -1;
	}

	d->orig_size = (uint64_t)st.st_size;
	d->size = d->orig_size;

	if (o->file_size > d->orig_size) {
		// Growing is undone by dev_undo; shrinking waits for dev_commit.
		if (ftruncate(d->fd, (off_t)o->file_size) != 0) {
			snprintf(err, len, "can't size device file %s to %" PRIu64
					" bytes: %s (errno %d)", name, o->file_size,
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
				name, size_item(o));
		return -1;
	}

	return 0;
}

// A file to be created: its directory must exist and be writable.
static int
check_creatable(const char* name, char* err, size_t len)
{
	char dir[PATH_MAX];
	const char* slash = strrchr(name, '/');

	if (slash == NULL) {
		strcpy(dir, ".");
	}
	else if (slash == name) {
		strcpy(dir, "/");
	}
	else {
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - name), name);
	}

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

static int
probe_min_io(dev* d, char* err, size_t len)
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

		int fd = d->fd; // the setup guard may undo d once the read begins

		guard_io_begin(d->name, "read", 0, size);
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

static const char*
size_item(const dev_opts* o)
{
	return o->size_item != NULL ? o->size_item : "file-size-mbytes";
}

// scheduler-mode for a block device: set it, and remember what to put back
// when it changed. Not fatal: a warning when it can't be set.
static void
set_scheduler(dev* d)
{
	struct stat st;
	char msg[512];
	char old[sizeof(d->sched_old)];

	if (fstat(d->fd, &st) != 0) {
		log_warn("scheduler-mode not set for %s: fstat: %s", d->name,
				strerror(errno));
		return;
	}

	if (blk_set_scheduler(d->name, st.st_rdev, d->sched_want, d->sched_file,
			sizeof(d->sched_file), old, sizeof(old), msg, sizeof(msg)) != 0) {
		log_warn("scheduler-mode not set for %s: %s", d->name, msg);
		return;
	}

	char now[sizeof(d->sched_old)];

	if (blk_active_scheduler(d->sched_file, now, sizeof(now)) &&
			strcmp(now, old) != 0) {
		snprintf(d->sched_old, sizeof(d->sched_old), "%s", old);
		log_note("I/O scheduler of %s changed from %s to %s (put back when "
				"the run ends)", d->name, old, now);
	}
}

// Whether a name that does not exist would be created under /dev or on a
// devtmpfs: a mistyped device name (/dev/nvme0n1x), never a file to create
// there - it would test RAM.
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

	if (strcmp(real, "/dev") == 0 || strncmp(real, "/dev/", 5) == 0) {
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
	bool devtmpfs = false;

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
			devtmpfs = strcmp(type, "devtmpfs") == 0;
		}
	}

	fclose(f);

	return devtmpfs;
}
