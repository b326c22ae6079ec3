/*
 * blkdev.c - what the kernel knows about a block device.
 */

#include "common/blkdev.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "common/holder.h"
#include "common/mountinfo.h"
#include "common/strbuf.h"

//==========================================================
// Forward declarations.
//

static bool sysfs_dir(dev_t rdev, char* out, size_t len);
static bool same_or_part_of(dev_t candidate, dev_t rdev);
static void find_mounts(dev_t rdev, bool points_only, strbuf* sb,
		bool* found);
static void find_swaps(dev_t rdev, strbuf* sb, bool* found);
static void find_sysfs_holders(dev_t rdev, strbuf* sb, bool* found);
static bool holder_of_related(dev_t rdev, char* what, size_t what_len,
		char* on, size_t on_len);
static bool dev_number(const char* dir, dev_t* rdev);
static bool same_object(const struct stat* a, const struct stat* b);
static void read_attr(const char* dir, const char* const* names, char* out,
		size_t len);
static bool read_vpd_serial(const char* dir, char* out, size_t len);

//==========================================================
// Public API.
//

void
blk_describe_busy(const char* name, dev_t rdev, char* err, size_t err_len)
{
	char what[512];
	char on[300];

	if (blk_describe_holders(rdev, what, sizeof(what))) {
		snprintf(err, err_len, "device %s is in use (%s) - refusing to "
				"write to it", name, what);
	}
	else if (holder_of_block(rdev, what, sizeof(what)) != 0) {
		snprintf(err, err_len, "device %s is in use by %s - %s", name, what,
				HOLDER_TWO_TESTS);
	}
	else if (holder_of_related(rdev, what, sizeof(what), on, sizeof(on))) {
		snprintf(err, err_len, "device %s is in use by %s on %s - %s", name,
				what, on, HOLDER_TWO_TESTS);
	}
	else {
		snprintf(err, err_len, "device %s is in use (mounted, swap, or held "
				"by another program: open O_EXCL gave EBUSY) - refusing to "
				"write to it", name);
	}
}

int
blk_check_loop_backing(const char* name, const struct stat* st, char* err,
		size_t err_len)
{
	DIR* d = opendir("/sys/block");

	if (d == NULL) {
		return 0;
	}

	struct dirent* e;
	int rv = 0;

	while (rv == 0 && (e = readdir(d)) != NULL) {
		if (strncmp(e->d_name, "loop", 4) != 0) {
			continue;
		}

		char path[PATH_MAX];
		char backing[PATH_MAX];

		snprintf(path, sizeof(path), "/sys/block/%s/loop/backing_file",
				e->d_name);

		if (! blk_read_line(path, backing, sizeof(backing)) ||
				backing[0] != '/') {
			continue; // not attached
		}

		// A backing file removed since is shown with " (deleted)": the
		// name may since be another file - stat tells.
		size_t n = strlen(backing);
		static const char DELETED[] = " (deleted)";

		if (n > sizeof(DELETED) - 1 &&
				strcmp(backing + n - (sizeof(DELETED) - 1), DELETED) == 0) {
			backing[n - (sizeof(DELETED) - 1)] = '\0';
		}

		struct stat bst;

		if (stat(backing, &bst) != 0 || ! same_object(&bst, st)) {
			continue;
		}

		char mounts[1024];
		strbuf sb;
		bool found = false;
		char loop_dir[PATH_MAX];
		dev_t loop_rdev;

		sb_init(&sb, mounts, sizeof(mounts));
		snprintf(loop_dir, sizeof(loop_dir), "/sys/block/%s", e->d_name);

		if (dev_number(loop_dir, &loop_rdev)) {
			find_mounts(loop_rdev, true, &sb, &found);
		}

		if (found) {
			snprintf(err, err_len, "device %s is the backing %s of loop "
					"device /dev/%s (mounted on %s) - writing it would "
					"destroy that file system", name, S_ISBLK(st->st_mode) ?
					"device" : "file", e->d_name, mounts);
		}
		else {
			snprintf(err, err_len, "device %s is the backing %s of loop "
					"device /dev/%s (attached, not mounted) - writing it "
					"would change what the loop device holds; detach it "
					"first (losetup -d /dev/%s)", name, S_ISBLK(st->st_mode) ?
					"device" : "file", e->d_name, e->d_name);
		}

		rv = -1;
	}

	closedir(d);

	return rv;
}

int
blk_check_swap_file(const char* name, const struct stat* st, char* err,
		size_t err_len)
{
	FILE* f = fopen("/proc/swaps", "r");

	if (f == NULL) {
		return 0;
	}

	char line[4096];
	int rv = 0;

	while (rv == 0 && fgets(line, sizeof(line), f) != NULL) {
		char src[PATH_MAX];
		struct stat sst;

		if (sscanf(line, "%4095s", src) != 1 || src[0] != '/') {
			continue;
		}

		mountinfo_unescape(src);

		if (stat(src, &sst) == 0 && S_ISREG(sst.st_mode) &&
				same_object(&sst, st)) {
			snprintf(err, err_len, "device %s is an active swap file (%s in "
					"/proc/swaps) - refusing to write to it; swapoff it "
					"first", name, src);
			rv = -1;
		}
	}

	fclose(f);

	return rv;
}

bool
blk_describe_holders(dev_t rdev, char* out, size_t out_len)
{
	strbuf sb;
	bool found = false;

	sb_init(&sb, out, out_len);
	find_mounts(rdev, false, &sb, &found);
	find_swaps(rdev, &sb, &found);
	find_sysfs_holders(rdev, &sb, &found);

	return found;
}

int
blk_set_scheduler(const char* path, dev_t rdev, const char* mode, char* file,
		size_t file_len, char* old, size_t old_len, char* err, size_t err_len)
{
	char dir[PATH_MAX];

	if (! blk_disk_dir(rdev, dir, sizeof(dir))) {
		snprintf(err, err_len, "can't find the sysfs directory of %s", path);
		return -1;
	}

	char current[256];

	if (snprintf(file, file_len, "%s/queue/scheduler", dir) >=
			(int)file_len) {
		snprintf(err, err_len, "sysfs path of %s too long: %s", path, dir);
		return -1;
	}

	if (! blk_read_line(file, current, sizeof(current)) ||
			! blk_active_scheduler(file, old, old_len)) {
		snprintf(err, err_len, "can't read %s: %s (errno %d)", file,
				strerror(errno), errno);
		return -1;
	}

	// A multi-queue kernel calls "no scheduling" none, not noop.
	const char* want = mode;

	if (strcmp(mode, "noop") == 0 && strstr(current, "noop") == NULL &&
			strstr(current, "none") != NULL) {
		want = "none";
	}

	if (strcmp(old, want) == 0) {
		return 0;
	}

	char msg[256];

	if (blk_write_scheduler(file, want, msg, sizeof(msg)) != 0) {
		snprintf(err, err_len, "%s (available: %.100s)", msg, current);
		return -1;
	}

	return 0;
}

bool
blk_active_scheduler(const char* file, char* out, size_t out_len)
{
	char current[256];

	if (! blk_read_line(file, current, sizeof(current))) {
		return false;
	}

	const char* lb = strchr(current, '[');
	const char* rb = lb != NULL ? strchr(lb, ']') : NULL;

	if (lb != NULL && rb != NULL) {
		snprintf(out, out_len, "%.*s", (int)(rb - lb - 1), lb + 1);
	}
	else {
		// A single scheduler is printed without brackets ("none").
		size_t n = strcspn(current, " \n");

		snprintf(out, out_len, "%.*s", (int)n, current);
	}

	return out[0] != '\0';
}

int
blk_write_scheduler(const char* file, const char* mode, char* err,
		size_t err_len)
{
	int fd = open(file, O_WRONLY | O_CLOEXEC);

	if (fd < 0) {
		snprintf(err, err_len, "can't open %s to set scheduler %s: %s "
				"(errno %d)", file, mode, strerror(errno), errno);
		return -1;
	}

	ssize_t n = write(fd, mode, strlen(mode));
	int e = errno;

	close(fd);

	if (n != (ssize_t)strlen(mode)) {
		snprintf(err, err_len, "can't set scheduler %s in %s: %s (errno %d)",
				mode, file, n < 0 ? strerror(e) : "short write", n < 0 ? e : 0);
		return -1;
	}

	return 0;
}

void
blk_identify(dev_t rdev, blk_identity* id)
{
	static const char* const MODEL[] = { "model", NULL };
	static const char* const SERIAL[] = { "serial", NULL };
	static const char* const FIRMWARE[] = { "firmware_rev", "rev", NULL };
	static const char* const WWID[] = { "wwid", "device/wwid", NULL };
	char dir[PATH_MAX];
	char dev_dir[PATH_MAX + 16];

	snprintf(id->model, sizeof(id->model), "unknown");
	snprintf(id->serial, sizeof(id->serial), "unknown");
	snprintf(id->firmware, sizeof(id->firmware), "unknown");
	snprintf(id->wwid, sizeof(id->wwid), "unknown");

	if (! blk_disk_dir(rdev, dir, sizeof(dir))) {
		return;
	}

	// NVMe namespace: device -> the controller; SCSI/SATA: device -> the
	// SCSI device. Loop, RAM and dm devices have no device directory.
	snprintf(dev_dir, sizeof(dev_dir), "%s/device", dir);
	read_attr(dev_dir, MODEL, id->model, sizeof(id->model));
	read_attr(dev_dir, FIRMWARE, id->firmware, sizeof(id->firmware));

	if (! read_vpd_serial(dev_dir, id->serial, sizeof(id->serial))) {
		read_attr(dev_dir, SERIAL, id->serial, sizeof(id->serial));
	}

	read_attr(dir, WWID, id->wwid, sizeof(id->wwid));
}

void
blk_tidy(char* s)
{
	size_t n = strlen(s);

	while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' ||
			s[n - 1] == '\n' || s[n - 1] == '\0')) {
		s[--n] = '\0';
	}

	size_t lead = strspn(s, " \t");

	memmove(s, s + lead, n - lead + 1);

	for (char* p = s; *p != '\0'; p++) {
		if ((unsigned char)*p < 0x20 || (unsigned char)*p > 0x7e) {
			*p = '?';
		}
	}
}

bool
blk_disk_dir(dev_t rdev, char* out, size_t len)
{
	if (! sysfs_dir(rdev, out, len)) {
		return false;
	}

	char part[PATH_MAX + 16];
	struct stat st;

	snprintf(part, sizeof(part), "%s/partition", out);

	if (stat(part, &st) == 0) {
		char* slash = strrchr(out, '/');

		if (slash != NULL) {
			*slash = '\0';
		}
	}

	return true;
}

//==========================================================
// Local helpers.
//

// The first of names that exists in dir and is not empty, tidied, into out
// (left as it was when none).
static void
read_attr(const char* dir, const char* const* names, char* out, size_t len)
{
	for (const char* const* n = names; *n != NULL; n++) {
		char path[PATH_MAX + 64];
		char buf[256];

		snprintf(path, sizeof(path), "%s/%s", dir, *n);

		if (blk_read_line(path, buf, sizeof(buf))) {
			blk_tidy(buf);

			if (buf[0] != '\0') {
				snprintf(out, len, "%s", buf);
				return;
			}
		}
	}
}

// SCSI/SATA: the unit serial number VPD page (0x80): a 4-byte header, the
// length in byte 3, then ASCII.
static bool
read_vpd_serial(const char* dir, char* out, size_t len)
{
	char path[PATH_MAX + 64];
	unsigned char buf[256];

	snprintf(path, sizeof(path), "%s/vpd_pg80", dir);

	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		return false;
	}

	ssize_t n = read(fd, buf, sizeof(buf) - 1);

	close(fd);

	if (n <= 4 || buf[1] != 0x80) {
		return false;
	}

	size_t body = buf[3] < (size_t)n - 4 ? buf[3] : (size_t)n - 4;
	char text[256];

	memcpy(text, buf + 4, body);
	text[body] = '\0';
	blk_tidy(text);

	if (text[0] == '\0') {
		return false;
	}

	snprintf(out, len, "%s", text);

	return true;
}

static bool
sysfs_dir(dev_t rdev, char* out, size_t len)
{
	char link[64];
	char real[PATH_MAX];

	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", major(rdev),
			minor(rdev));

	if (realpath(link, real) == NULL || strlen(real) >= len) {
		return false;
	}

	strcpy(out, real);

	return true;
}

// Is candidate the device rdev itself, or a partition of it?
static bool
same_or_part_of(dev_t candidate, dev_t rdev)
{
	if (candidate == rdev) {
		return true;
	}

	char whole[PATH_MAX];
	char cand_disk[PATH_MAX];
	char cand_self[PATH_MAX];

	if (! sysfs_dir(rdev, whole, sizeof(whole)) ||
			! sysfs_dir(candidate, cand_self, sizeof(cand_self)) ||
			! blk_disk_dir(candidate, cand_disk, sizeof(cand_disk))) {
		return false;
	}

	return strcmp(cand_self, cand_disk) != 0 && strcmp(cand_disk, whole) == 0;
}

// Where rdev and its partitions are mounted: "SRC mounted on DST; ..." or,
// with points_only, "DST, DST" (octal escapes undone).
static void
find_mounts(dev_t rdev, bool points_only, strbuf* sb, bool* found)
{
	FILE* f = fopen("/proc/self/mounts", "r");

	if (f == NULL) {
		return;
	}

	char line[4096];

	while (fgets(line, sizeof(line), f) != NULL) {
		char src[PATH_MAX];
		char dst[PATH_MAX];
		struct stat st;

		if (sscanf(line, "%4095s %4095s", src, dst) != 2 || src[0] != '/' ||
				stat(src, &st) != 0 || ! S_ISBLK(st.st_mode) ||
				! same_or_part_of(st.st_rdev, rdev)) {
			continue;
		}

		if (points_only) {
			mountinfo_unescape(dst);
			sb_printf(sb, "%s%s", *found ? ", " : "", dst);
		}
		else {
			sb_printf(sb, "%s%s mounted on %s", *found ? "; " : "", src, dst);
		}

		*found = true;
	}

	fclose(f);
}

// A partition can't be claimed while its disk is, nor a disk while one of
// its partitions is: the program holding the disk (for a partition) or a
// partition (for a disk), and in on which one.
static bool
holder_of_related(dev_t rdev, char* what, size_t what_len, char* on,
		size_t on_len)
{
	char self[PATH_MAX];
	char disk[PATH_MAX];
	dev_t cand;

	if (! sysfs_dir(rdev, self, sizeof(self)) ||
			! blk_disk_dir(rdev, disk, sizeof(disk))) {
		return false;
	}

	if (strcmp(self, disk) != 0) {
		if (! dev_number(disk, &cand) ||
				holder_of_block(cand, what, what_len) == 0) {
			return false;
		}

		snprintf(on, on_len, "/dev/%s", strrchr(disk, '/') + 1);
		return true;
	}

	DIR* d = opendir(disk);

	if (d == NULL) {
		return false;
	}

	struct dirent* e;
	bool found = false;

	while (! found && (e = readdir(d)) != NULL) {
		char part[PATH_MAX + 300];
		char probe[PATH_MAX + 320];
		struct stat st;

		snprintf(part, sizeof(part), "%s/%s", disk, e->d_name);
		snprintf(probe, sizeof(probe), "%s/partition", part);

		if (e->d_name[0] == '.' || stat(probe, &st) != 0 ||
				! dev_number(part, &cand) ||
				holder_of_block(cand, what, what_len) == 0) {
			continue;
		}

		snprintf(on, on_len, "/dev/%s", e->d_name);
		found = true;
	}

	closedir(d);

	return found;
}

// The device number in a sysfs block directory's "dev" file ("7:3").
static bool
dev_number(const char* dir, dev_t* rdev)
{
	char path[PATH_MAX + 16];
	char num[32];
	unsigned maj;
	unsigned min;

	snprintf(path, sizeof(path), "%s/dev", dir);

	if (! blk_read_line(path, num, sizeof(num)) ||
			sscanf(num, "%u:%u", &maj, &min) != 2) {
		return false;
	}

	*rdev = makedev(maj, min);

	return true;
}

// Two fstat/stat results are the same drive: the same block device, or
// the same file.
static bool
same_object(const struct stat* a, const struct stat* b)
{
	if (S_ISBLK(a->st_mode) || S_ISBLK(b->st_mode)) {
		return S_ISBLK(a->st_mode) && S_ISBLK(b->st_mode) &&
				a->st_rdev == b->st_rdev;
	}

	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

static void
find_swaps(dev_t rdev, strbuf* sb, bool* found)
{
	FILE* f = fopen("/proc/swaps", "r");

	if (f == NULL) {
		return;
	}

	char line[4096];

	while (fgets(line, sizeof(line), f) != NULL) {
		char src[PATH_MAX];
		struct stat st;

		if (sscanf(line, "%4095s", src) != 1 || src[0] != '/' ||
				stat(src, &st) != 0 || ! S_ISBLK(st.st_mode) ||
				! same_or_part_of(st.st_rdev, rdev)) {
			continue;
		}

		sb_printf(sb, "%s%s is swap", *found ? "; " : "", src);
		*found = true;
	}

	fclose(f);
}

static void
find_sysfs_holders(dev_t rdev, strbuf* sb, bool* found)
{
	char dir[PATH_MAX];

	if (! sysfs_dir(rdev, dir, sizeof(dir))) {
		return;
	}

	char holders[PATH_MAX + 16];

	snprintf(holders, sizeof(holders), "%s/holders", dir);

	DIR* d = opendir(holders);

	if (d == NULL) {
		return;
	}

	struct dirent* e;

	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.') {
			continue;
		}

		sb_printf(sb, "%sheld by %s", *found ? "; " : "", e->d_name);
		*found = true;
	}

	closedir(d);
}

bool
blk_read_line(const char* path, char* buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		return false;
	}

	ssize_t n = read(fd, buf, len - 1);

	close(fd);

	if (n < 0) {
		return false;
	}

	buf[n] = '\0';

	char* nl = strchr(buf, '\n');

	if (nl != NULL) {
		*nl = '\0';
	}

	return true;
}
