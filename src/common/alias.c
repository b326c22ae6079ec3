/*
 * alias.c - the other names of one drive: loop devices, overlay layers.
 */

#include "common/alias.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/fs.h>
#include <linux/loop.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "common/blkdev.h"
#include "common/holder.h"
#include "common/mountinfo.h"

//==========================================================
// Typedefs & constants.
//

#define OVERLAY_MAGIC 0x794c7630 // OVERLAYFS_SUPER_MAGIC
#define NAME_LEN (PATH_MAX + 256)

//==========================================================
// Forward declarations.
//

static void loop_of(int fd, dev_t rdev, uint64_t size, alias_id* id);
static dev_t decode_dev(uint64_t v);
static bool overlay_upper(int fd, char* upper, size_t len, struct stat* ust,
		char* warn, size_t warn_len);
static bool same_attrs(const struct stat* a, const struct stat* b);
static int hold_loop_backing(const char* name, dev_t rdev,
		const alias_id* id, alias_holds* h, char* err, size_t len);
static int hold_loop_siblings(const char* name, dev_t rdev,
		const alias_id* id, alias_holds* h, char* err, size_t len);
static int hold_overlay_names(const char* name, int fd, alias_holds* h,
		char* err, size_t len);
static int hold_file_name(const char* name, const char* other,
		const char* what, dev_t dev, ino_t ino, alias_holds* h, char* err,
		size_t len);
static int keep(alias_holds* h, int fd, const char* name, char* err,
		size_t len);
static void backing_text(const alias_id* id, char* out, size_t len);
static bool fd_path(int fd, char* out, size_t len);
static int fd_mnt_id(int fd);

//==========================================================
// Public API.
//

void
alias_identify(int fd, const struct stat* st, uint64_t size, alias_id* id,
		char* warn, size_t warn_len)
{
	memset(id, 0, sizeof(*id));
	warn[0] = '\0';

	if (S_ISBLK(st->st_mode)) {
		loop_of(fd, st->st_rdev, size, id);
		return;
	}

	if (! S_ISREG(st->st_mode)) {
		return;
	}

	id->real_dev = st->st_dev;
	id->real_ino = st->st_ino;

	char upper[PATH_MAX];
	struct stat ust;

	if (overlay_upper(fd, upper, sizeof(upper), &ust, warn, warn_len)) {
		id->overlay = true;
		id->real_dev = ust.st_dev;
		id->real_ino = ust.st_ino;
	}
}

bool
alias_same(const alias_id* a, const alias_id* b)
{
	if (a->loop && b->loop) {
		bool same = a->back_rdev != 0 || b->back_rdev != 0 ?
				a->back_rdev == b->back_rdev :
				a->back_dev == b->back_dev && a->back_ino == b->back_ino;

		return same && a->back_off < b->back_end &&
				b->back_off < a->back_end;
	}

	return a->real_ino != 0 && b->real_ino != 0 &&
			a->real_dev == b->real_dev && a->real_ino == b->real_ino;
}

int
alias_hold(const char* name, int fd, const struct stat* st,
		const alias_id* id, alias_holds* h, char* err, size_t len)
{
	int rv = 0;

	if (id->loop) {
		rv = hold_loop_backing(name, st->st_rdev, id, h, err, len);

		if (rv == 0) {
			rv = hold_loop_siblings(name, st->st_rdev, id, h, err, len);
		}
	}
	else if (S_ISREG(st->st_mode)) {
		rv = hold_overlay_names(name, fd, h, err, len);
	}

	if (rv != 0) {
		alias_release(h);
	}

	return rv;
}

void
alias_release(alias_holds* h)
{
	for (uint32_t i = 0; i < h->n; i++) {
		close(h->fd[i]);
	}

	h->n = 0;
}

int
alias_open_backing(dev_t rdev, const alias_id* id, char* name, size_t len)
{
	char path[96];

	name[0] = '\0';

	if (! id->loop) {
		return -1;
	}

	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/loop/backing_file",
			major(rdev), minor(rdev));

	if (! blk_read_line(path, name, len) || name[0] != '/') {
		return -1;
	}

	static const char DELETED[] = " (deleted)";
	size_t n = strlen(name);

	if (n > sizeof(DELETED) - 1 &&
			strcmp(name + n - (sizeof(DELETED) - 1), DELETED) == 0) {
		return -1; // no name leads to it any more
	}

	int bfd = open(name, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat bst;

	if (bfd < 0) {
		return -1; // not here (another mount namespace's path)
	}

	if (fstat(bfd, &bst) != 0 || (id->back_rdev != 0 ?
			! S_ISBLK(bst.st_mode) || bst.st_rdev != id->back_rdev :
			! S_ISREG(bst.st_mode) || bst.st_dev != id->back_dev ||
			bst.st_ino != id->back_ino)) {
		close(bfd);
		return -1; // the name is another file now
	}

	return bfd;
}

//==========================================================
// Local helpers - loop devices.
//

// A whole loop device (sysfs has its loop/ directory; a partition of one
// has not): what LOOP_GET_STATUS64 says it is over.
static void
loop_of(int fd, dev_t rdev, uint64_t size, alias_id* id)
{
	char path[96];
	struct stat sst;

	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/loop", major(rdev),
			minor(rdev));

	if (stat(path, &sst) != 0 || ! S_ISDIR(sst.st_mode)) {
		return;
	}

	struct loop_info64 li;

	memset(&li, 0, sizeof(li));

	if (ioctl(fd, LOOP_GET_STATUS64, &li) != 0) {
		return; // not attached (ENXIO)
	}

	id->loop = true;
	id->back_dev = decode_dev(li.lo_device);
	id->back_ino = (ino_t)li.lo_inode;
	id->back_rdev = decode_dev(li.lo_rdevice);
	id->back_off = li.lo_offset;
	id->back_end = li.lo_offset + size;
}

// The kernel's 32-bit device encoding (huge_encode_dev) of loop_info64.
static dev_t
decode_dev(uint64_t v)
{
	return makedev((unsigned)((v >> 8) & 0xfff),
			(unsigned)((v & 0xff) | ((v >> 12) & 0xfff00)));
}

// The loop device's backing file (or block device): a file gets a shared
// flock for the run - an act program (or act_certify) holding the whole
// file refuses it, and it refuses them; a block device must not be in use
// (checked with an exclusive open, released at once: loop devices over
// other ranges of it may run side by side).
static int
hold_loop_backing(const char* name, dev_t rdev, const alias_id* id,
		alias_holds* h, char* err, size_t len)
{
	char backing[PATH_MAX];
	int bfd = alias_open_backing(rdev, id, backing, sizeof(backing));

	if (bfd < 0) {
		return 0; // no name leads to it now
	}

	char who[512];

	if (id->back_rdev == 0) {
		if (flock(bfd, LOCK_SH | LOCK_NB) == 0) {
			return keep(h, bfd, name, err, len);
		}

		int e = errno;

		close(bfd);

		if (holder_of_file(id->back_dev, id->back_ino, who, sizeof(who)) ==
				0) {
			snprintf(who, sizeof(who), "another program (flock: %s, errno "
					"%d)", strerror(e), e);
		}

		snprintf(err, len, "device %s is a loop device over %s, which is in "
				"use by %s - %s", name, backing, who, HOLDER_TWO_TESTS);
		return -1;
	}

	if (blk_describe_holders(id->back_rdev, who, sizeof(who))) {
		close(bfd);
		snprintf(err, len, "device %s is a loop device over %s, which is in "
				"use (%s) - refusing to write to it", name, backing, who);
		return -1;
	}

	char self[64];

	snprintf(self, sizeof(self), "/proc/self/fd/%d", bfd);

	int xfd = open(self, O_RDONLY | O_EXCL | O_CLOEXEC | O_NONBLOCK);
	int e = errno;

	close(bfd);

	if (xfd >= 0) {
		close(xfd);
		return 0;
	}

	if (e != EBUSY) {
		return 0;
	}

	if (holder_of_block(id->back_rdev, who, sizeof(who)) != 0) {
		snprintf(err, len, "device %s is a loop device over %s, which is in "
				"use by %s - %s", name, backing, who, HOLDER_TWO_TESTS);
	}
	else {
		snprintf(err, len, "device %s is a loop device over %s, which is in "
				"use (open O_EXCL gave EBUSY) - refusing to write to it",
				name, backing);
	}

	return -1;
}

// Every other loop device over an overlapping range of the same backing
// is the same drive: one that is mounted, swap, held by md/LVM/dm or by
// another program refuses the device; the others are opened O_EXCL and so
// held for the run (nothing can mount them meanwhile).
static int
hold_loop_siblings(const char* name, dev_t rdev, const alias_id* id,
		alias_holds* h, char* err, size_t len)
{
	DIR* d = opendir("/sys/block");

	if (d == NULL) {
		return 0;
	}

	struct dirent* e;
	int rv = 0;
	char over[256];

	backing_text(id, over, sizeof(over));

	while (rv == 0 && (e = readdir(d)) != NULL) {
		char path[PATH_MAX];
		char line[PATH_MAX];
		unsigned maj;
		unsigned min;

		if (strncmp(e->d_name, "loop", 4) != 0) {
			continue;
		}

		snprintf(path, sizeof(path), "/sys/block/%s/dev", e->d_name);

		if (! blk_read_line(path, line, sizeof(line)) ||
				sscanf(line, "%u:%u", &maj, &min) != 2 ||
				makedev(maj, min) == rdev) {
			continue;
		}

		snprintf(path, sizeof(path), "/sys/block/%s/loop/backing_file",
				e->d_name);

		if (! blk_read_line(path, line, sizeof(line)) || line[0] != '/') {
			continue; // not attached
		}

		// Its device node: opened without O_EXCL (and without I/O) to
		// ask what it is over.
		char node[NAME_LEN];
		struct stat sst;
		uint64_t size = 0;

		snprintf(node, sizeof(node), "/dev/%s", e->d_name);

		int sfd = open(node, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

		if (sfd < 0) {
			continue;
		}

		alias_id sid;

		memset(&sid, 0, sizeof(sid));

		if (fstat(sfd, &sst) == 0 && S_ISBLK(sst.st_mode) &&
				sst.st_rdev == makedev(maj, min) &&
				ioctl(sfd, BLKGETSIZE64, &size) == 0) {
			loop_of(sfd, sst.st_rdev, size, &sid);
		}

		if (! sid.loop || ! alias_same(id, &sid)) {
			close(sfd);
			continue;
		}

		char who[512];

		if (blk_describe_holders(sst.st_rdev, who, sizeof(who))) {
			snprintf(err, len, "device %s is the same drive as loop device "
					"%s (both over %s), which is in use (%s) - refusing to "
					"write to it", name, node, over, who);
			close(sfd);
			rv = -1;
			break;
		}

		char self[64];

		snprintf(self, sizeof(self), "/proc/self/fd/%d", sfd);

		int xfd = open(self, O_RDONLY | O_EXCL | O_CLOEXEC | O_NONBLOCK);
		int xe = errno;

		close(sfd);

		if (xfd >= 0) {
			rv = keep(h, xfd, name, err, len);
			continue;
		}

		if (xe == EBUSY && holder_of_block(sst.st_rdev, who,
				sizeof(who)) != 0) {
			snprintf(err, len, "device %s is the same drive as loop device "
					"%s (both over %s), which is in use by %s - %s", name, node,
					over, who, HOLDER_TWO_TESTS);
		}
		else {
			snprintf(err, len, "device %s is the same drive as loop device "
					"%s (both over %s), which is in use (open O_EXCL: %s, "
					"errno %d) - refusing to write to it", name, node, over,
					strerror(xe), xe);
		}

		rv = -1;
	}

	closedir(d);

	return rv;
}

static void
backing_text(const alias_id* id, char* out, size_t len)
{
	if (id->back_rdev != 0) {
		snprintf(out, len, "block device %u:%u", major(id->back_rdev),
				minor(id->back_rdev));
	}
	else {
		snprintf(out, len, "inode %lu on device %u:%u",
				(unsigned long)id->back_ino, major(id->back_dev),
				minor(id->back_dev));
	}
}

//==========================================================
// Local helpers - overlay file systems.
//

// A file open on fd on an overlay file system: its
// upper-layer file (opening for writing copied it up), found from the
// mount's upperdir in /proc/self/mountinfo and matched by its attributes
// (the overlay shows the upper file's size, mode and times). Returns false
// for a file that is not on overlayfs, or whose upper layer is not in this
// mount namespace (a container's root: no other name of it is here);
// also false, with a warning, when the upper layer is here but the file
// does not match.
static bool
overlay_upper(int fd, char* upper, size_t len, struct stat* ust, char* warn,
		size_t warn_len)
{
	struct statfs sfs;
	char path[PATH_MAX];

	if (fstatfs(fd, &sfs) != 0 || (unsigned long)sfs.f_type !=
			OVERLAY_MAGIC || ! fd_path(fd, path, sizeof(path))) {
		return false;
	}

	int mnt_id = fd_mnt_id(fd);
	FILE* f = fopen("/proc/self/mountinfo", "r");

	if (mnt_id < 0 || f == NULL) {
		if (f != NULL) {
			fclose(f);
		}

		return false;
	}

	char* line = NULL;
	size_t cap = 0;
	bool found = false;
	bool ok = false;
	char upperdir[PATH_MAX];
	mountinfo m;

	while (! found && getline(&line, &cap, f) > 0) {
		found = mountinfo_parse(line, &m) && m.id == mnt_id;
	}

	struct stat dst;

	if (found && strcmp(m.fstype, "overlay") == 0 &&
			mountinfo_option(m.super_opts, "upperdir", upperdir,
					sizeof(upperdir)) &&
			stat(upperdir, &dst) == 0 && S_ISDIR(dst.st_mode)) {
		struct stat now;

		ok = mountinfo_overlay_upper(&m, upperdir, path, upper, len) &&
				stat(upper, ust) == 0 && S_ISREG(ust->st_mode) &&
				fstat(fd, &now) == 0 && same_attrs(&now, ust);

		if (! ok) {
			snprintf(warn, warn_len, "device file %s is on an overlay file "
					"system (upper layer %s) but its upper-layer file can't "
					"be matched - a test on it by that name would not be "
					"refused", path, upperdir);
		}
	}

	free(line);
	fclose(f);

	return ok;
}

static bool
same_attrs(const struct stat* a, const struct stat* b)
{
	return a->st_size == b->st_size && a->st_mode == b->st_mode &&
			a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
			a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
			a->st_ctim.tv_sec == b->st_ctim.tv_sec &&
			a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

// A file's other names: for an overlay name its upper-layer file, for
// any other file the overlay names that show it (it is in the upper
// directory of a mounted overlay).
static int
hold_overlay_names(const char* name, int fd, alias_holds* h, char* err,
		size_t len)
{
	char upper[PATH_MAX];
	struct stat ust;
	char warn[8];

	if (overlay_upper(fd, upper, sizeof(upper), &ust, warn, sizeof(warn))) {
		return hold_file_name(name, upper, "its upper-layer file",
				ust.st_dev, ust.st_ino, h, err, len);
	}

	char real[PATH_MAX];
	struct stat now;
	FILE* f = fopen("/proc/self/mountinfo", "r");

	if (f == NULL || ! fd_path(fd, real, sizeof(real)) ||
			fstat(fd, &now) != 0) {
		if (f != NULL) {
			fclose(f);
		}

		return 0;
	}

	char* line = NULL;
	size_t cap = 0;
	int rv = 0;

	while (rv == 0 && getline(&line, &cap, f) > 0) {
		mountinfo m;
		char upperdir[PATH_MAX];
		char canon[PATH_MAX];
		char alias[PATH_MAX];
		struct stat ast;

		if (! mountinfo_parse(line, &m) || strcmp(m.fstype, "overlay") != 0 ||
				! mountinfo_option(m.super_opts, "upperdir", upperdir,
						sizeof(upperdir)) ||
				realpath(upperdir, canon) == NULL ||
				! mountinfo_overlay_name(&m, canon, real, alias,
						sizeof(alias)) ||
				stat(alias, &ast) != 0 || ! S_ISREG(ast.st_mode) ||
				ast.st_dev != makedev(m.maj, m.min) || ! same_attrs(&ast, &now)) {
			continue;
		}

		rv = hold_file_name(name, alias, "an overlay name of it", ast.st_dev,
				ast.st_ino, h, err, len);
	}

	free(line);
	fclose(f);

	return rv;
}

// Hold other (what: how it relates to name), the file (dev, ino), with
// flock(LOCK_EX) as name itself is held; it must not be behind a loop
// device nor an active swap file either.
static int
hold_file_name(const char* name, const char* other, const char* what,
		dev_t dev, ino_t ino, alias_holds* h, char* err, size_t len)
{
	int ofd = open(other, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat ost;

	if (ofd < 0) {
		return 0;
	}

	if (fstat(ofd, &ost) != 0 || ost.st_dev != dev || ost.st_ino != ino) {
		close(ofd);
		return 0; // the name is another file now
	}

	char both[NAME_LEN];

	snprintf(both, sizeof(both), "%s (as %s, %s)", name, other, what);

	if (blk_check_loop_backing(both, &ost, err, len) != 0 ||
			blk_check_swap_file(both, &ost, err, len) != 0) {
		close(ofd);
		return -1;
	}

	if (flock(ofd, LOCK_EX | LOCK_NB) == 0) {
		return keep(h, ofd, name, err, len);
	}

	int e = errno;
	char who[512];

	close(ofd);

	if (holder_of_file(dev, ino, who, sizeof(who)) == 0) {
		snprintf(who, sizeof(who), "another program (flock: %s, errno %d)",
				strerror(e), e);
	}

	snprintf(err, len, "device %s is in use by %s through another name, %s "
			"(%s) - %s", name, who, other, what, HOLDER_TWO_TESTS);

	return -1;
}

//==========================================================
// Local helpers - common.
//

static int
keep(alias_holds* h, int fd, const char* name, char* err, size_t len)
{
	if (h->n == ALIAS_MAX_HOLDS) {
		close(fd);
		snprintf(err, len, "device %s has more than %d other names (loop "
				"devices over the same file, overlay names) - detach the "
				"loop devices it does not need", name, ALIAS_MAX_HOLDS);
		return -1;
	}

	h->fd[h->n++] = fd;

	return 0;
}

// The path of what fd is open on (in this mount namespace); false for a
// file since removed.
static bool
fd_path(int fd, char* out, size_t len)
{
	char self[64];

	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);

	ssize_t n = readlink(self, out, len - 1);

	if (n <= 0 || (size_t)n >= len - 1 || out[0] != '/') {
		return false;
	}

	out[n] = '\0';

	static const char DELETED[] = " (deleted)";

	return ! ((size_t)n > sizeof(DELETED) - 1 &&
			strcmp(out + n - (sizeof(DELETED) - 1), DELETED) == 0);
}

// The mount id of fd (/proc/self/fdinfo: "mnt_id:"), or -1.
static int
fd_mnt_id(int fd)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);

	FILE* f = fopen(path, "r");

	if (f == NULL) {
		return -1;
	}

	char line[256];
	int id = -1;

	while (fgets(line, sizeof(line), f) != NULL) {
		if (sscanf(line, "mnt_id: %d", &id) == 1) {
			break;
		}
	}

	fclose(f);

	return id;
}
