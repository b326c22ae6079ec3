/*
 * devset.c - the devices of one run, opened together in one array.
 */

#include "common/devset.h"

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
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "common/blkdev.h"
#include "common/holder.h"
#include "common/log.h"
#include "common/loglines.h"

//==========================================================
// Typedefs & constants.
//

#define ERR_LEN 1024

//==========================================================
// Forward declarations.
//

static void identity_lines(const dev* d, strbuf* sb);
static int parent_held(dev_held* held, char* err, size_t len);
static void fd_name(int fd, char* out, size_t len);
static void undo_first(devset* s, uint32_t n);
static const ll_loop* loop_facts(const dev* d, dev_t rdev, ll_loop* loop,
		char* name, size_t name_len, char* gen, size_t gen_len);
static void file_gen(int fd, char* out, size_t len);

//==========================================================
// Public API.
//

int
devset_open(devset* s, const char* const* names, uint32_t n,
		const dev_opts* o)
{
	char err[ERR_LEN];

	if (devset_claim(s, names, n, o) != 0) {
		return -1;
	}

	// Every device passed its checks: now create, size and probe them.
	for (uint32_t i = 0; i < n; i++) {
		if (dev_open(&s->devs[i], o, s->devs, i, err, sizeof(err)) != 0) {
			log_error("%s", err);
			undo_first(s, n);
			return -1;
		}
	}

	return 0;
}

int
devset_claim(devset* s, const char* const* names, uint32_t n,
		const dev_opts* o)
{
	char err[ERR_LEN];

	s->devs = NULL;
	s->n = 0;

	dev_held* held = calloc(1, sizeof(dev_held));

	if (held == NULL) {
		log_error("out of memory for %" PRIu32 " devices", n);
		return -1;
	}

	if (parent_held(held, err, sizeof(err)) != 0) {
		log_error("%s", err);
		free(held);
		return -1;
	}

	s->devs = calloc(n == 0 ? 1 : n, sizeof(dev));

	if (s->devs == NULL) {
		log_error("out of memory for %" PRIu32 " devices", n);
		free(held);
		return -1;
	}

	// Open, check and hold every device; nothing is written, created or
	// resized before all have passed.
	for (uint32_t i = 0; i < n; i++) {
		if (dev_claim(&s->devs[i], names[i], o, s->devs, i, held, err,
				sizeof(err)) != 0) {
			log_error("%s", err);
			free(held);
			undo_first(s, i);
			return -1;
		}
	}

	free(held);

	// Every device claimed, one drive named twice refused: now hold the
	// other names of each (loop devices over the same file, overlay
	// layers) - those of a device of this run were compared above.
	for (uint32_t i = 0; i < n; i++) {
		if (dev_hold_aliases(&s->devs[i], err, sizeof(err)) != 0) {
			log_error("%s", err);
			undo_first(s, n);
			return -1;
		}
	}

	// s->n counts every device from here: a hung setup I/O (the probe in
	// dev_open) is undone from the setup guard's thread (guard.h) with
	// devset_undo.
	s->n = n;

	return 0;
}

int
devset_preview(devset* s, const dev_opts* o)
{
	char err[ERR_LEN];

	for (uint32_t i = 0; i < s->n; i++) {
		if (dev_preview(&s->devs[i], o, err, sizeof(err)) != 0) {
			log_error("%s", err);
			devset_close(s);
			return -1;
		}
	}

	return 0;
}

int
devset_commit(devset* s)
{
	char err[ERR_LEN];

	for (uint32_t i = 0; i < s->n; i++) {
		if (dev_commit(&s->devs[i], err, sizeof(err)) != 0) {
			log_error("%s", err);
			devset_undo(s);
			return -1;
		}
	}

	return 0;
}

void
devset_undo(devset* s)
{
	undo_first(s, s->n);
}

void
devset_restore_schedulers(devset* s)
{
	for (uint32_t i = 0; i < s->n; i++) {
		dev_restore_scheduler(&s->devs[i]);
	}
}

void
devset_identity(const devset* s, strbuf* sb, devset_more_fn more,
		void* udata)
{
	devset_identity_lines(s, sb, more, udata);

	time_t now = time(NULL);
	struct tm utc;
	char when[64] = "unknown";

	if (gmtime_r(&now, &utc) != NULL) {
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &utc);
	}

	ll_start_time(sb, when);
	sb_printf(sb, "\n");
}

void
devset_identity_lines(const devset* s, strbuf* sb, devset_more_fn more,
		void* udata)
{
	for (uint32_t i = 0; i < s->n; i++) {
		identity_lines(&s->devs[i], sb);

		if (more != NULL) {
			more(i, sb, udata);
		}
	}
}

void
devset_close(devset* s)
{
	for (uint32_t i = 0; i < s->n; i++) {
		dev_close(&s->devs[i]);
	}

	free(s->devs);
	s->devs = NULL;
	s->n = 0;
}

//==========================================================
// Local helpers.
//

// The identity and facts lines of device d (devset_identity).
static void
identity_lines(const dev* d, strbuf* sb)
{
	struct stat st;

	if (d->fd < 0 || fstat(d->fd, &st) != 0) {
		return;
	}

	if (! d->is_block && d->created) {
		return; // made by this run: no identity to tell before it
	}

	if (! d->is_block) {
		char gen[16];

		file_gen(d->fd, gen, sizeof(gen));
		ll_file_facts(sb, d->name, (uintmax_t)st.st_dev,
				(uintmax_t)st.st_ino, gen);
		return;
	}

	blk_identity id;

	blk_identify(st.st_rdev, &id);
	ll_identity(sb, d->name, id.model, id.serial, id.firmware);

	char name[PATH_MAX];
	char gen[16] = "unknown";
	ll_loop loop;

	ll_block_facts(sb, d->name, major(st.st_rdev), minor(st.st_rdev),
			id.wwid, loop_facts(d, st.st_rdev, &loop, name, sizeof(name),
			gen, sizeof(gen)));
}

// ACT_HELD_FDS and ACT_HELD_PID (holder.h, docs/beyond.md, "A parent
// that holds the devices"): the descriptors of the devices a parent holds
// for us, each fstat()ed. Unset or empty: none (held->n = 0). Believed
// only from our parent, and only for descriptors it has itself (the same
// open file description) and opened for writing: a descriptor a caller
// merely opened (a shell's 3</dev/sdb) stands for nothing.
static int
parent_held(dev_held* held, char* err, size_t len)
{
	const char* value = getenv(HOLDER_ENV);

	held->n = 0;
	held->value = value;

	if (value == NULL || value[0] == '\0') {
		return 0;
	}

	int fds[HOLDER_MAX_FDS];
	uint32_t n;

	if (holder_parse_fds(value, fds, HOLDER_MAX_FDS, &n, err, len) != 0) {
		return -1;
	}

	const char* pid_value = getenv(HOLDER_PID_ENV);
	long pid;

	if (pid_value == NULL || pid_value[0] == '\0') {
		snprintf(err, len, "%s=%s without %s - the parent that holds the "
				"devices names itself in %s (its pid); descriptors from "
				"anyone else stand for nothing", HOLDER_ENV, value,
				HOLDER_PID_ENV, HOLDER_PID_ENV);
		return -1;
	}

	if (holder_parse_pid(pid_value, &pid, err, len) != 0) {
		return -1;
	}

	long ppid = (long)getppid();

	if (pid != ppid) {
		snprintf(err, len, "%s=%s is not this program's parent (pid %ld is) - "
				"only the parent that holds the devices may list them in %s",
				HOLDER_PID_ENV, pid_value, ppid, HOLDER_ENV);
		return -1;
	}

	for (uint32_t i = 0; i < n; i++) {
		struct stat* st = &held->st[i];

		if (fstat(fds[i], st) != 0) {
			snprintf(err, len, "%s=%s: descriptor %d is not open: %s (errno "
					"%d) - the parent must pass the descriptors it lists",
					HOLDER_ENV, value, fds[i], strerror(errno), errno);
			return -1;
		}

		if (! S_ISBLK(st->st_mode) && ! S_ISREG(st->st_mode)) {
			snprintf(err, len, "%s=%s: descriptor %d is neither a block "
					"device nor a regular file", HOLDER_ENV, value, fds[i]);
			return -1;
		}

		char path[256];
		int fl = fcntl(fds[i], F_GETFL);

		fd_name(fds[i], path, sizeof(path));

		if (fl < 0 || (fl & O_ACCMODE) == O_RDONLY) {
			snprintf(err, len, "%s=%s: descriptor %d (%s) is open read-only - "
					"a parent that holds a device for a test opens it for "
					"writing (O_RDWR)", HOLDER_ENV, value, fds[i], path);
			return -1;
		}

		int shared = holder_shares_fd(pid, fds[i], st);

		if (shared < 0) {
			snprintf(err, len, "%s=%s: can't read the descriptors of the "
					"parent (/proc/%ld/fd): %s (errno %d)", HOLDER_ENV, value,
					pid, strerror(errno), errno);
			return -1;
		}

		if (shared == 0) {
			snprintf(err, len, "%s=%s: descriptor %d (%s) is not the parent's "
					"(pid %ld has no descriptor on that open file) - the parent "
					"must pass descriptors it holds itself", HOLDER_ENV, value,
					fds[i], path, pid);
			return -1;
		}

		held->fd[i] = fds[i];
	}

	held->n = n;

	return 0;
}

// What descriptor fd is open on, for messages ("?" if it can't be told).
static void
fd_name(int fd, char* out, size_t len)
{
	char self[64];

	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);

	ssize_t n = readlink(self, out, len - 1);

	if (n <= 0) {
		snprintf(out, len, "?");
		return;
	}

	out[n] = '\0';
}

static void
undo_first(devset* s, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		dev_undo(&s->devs[i]);
	}

	free(s->devs);
	s->devs = NULL;
	s->n = 0;
}

// A loop device's part of its facts line (LL_LOOP_FACTS), into *loop
// (name and gen: its buffers): what it is over (device and inode, as
// LOOP_GET_STATUS64 gives them), the backing file's generation when the
// name sysfs gives leads to that very file, and the name. NULL for a
// device that is not a loop device.
static const ll_loop*
loop_facts(const dev* d, dev_t rdev, ll_loop* loop, char* name,
		size_t name_len, char* gen, size_t gen_len)
{
	if (! d->id.loop) {
		return NULL;
	}

	int bfd = alias_open_backing(rdev, &d->id, name, name_len);

	if (bfd >= 0) {
		if (d->id.back_rdev == 0) {
			file_gen(bfd, gen, gen_len);
		}

		close(bfd);
	}

	blk_tidy(name);
	*loop = (ll_loop){ .dev = (uintmax_t)d->id.back_dev,
			.ino = (uintmax_t)d->id.back_ino, .gen = gen,
			.file = name[0] != '\0' ? name : "unknown" };

	return loop;
}

// The inode's generation number (FS_IOC_GETVERSION: ext4, XFS, btrfs,
// f2fs; a new one for every new inode), or "unknown" where the file system
// has none (tmpfs). The request is declared with a long; the file systems
// write an int at its address.
static void
file_gen(int fd, char* out, size_t len)
{
	long v = 0;
	unsigned int gen;

	if (ioctl(fd, FS_IOC_GETVERSION, &v) != 0) {
		snprintf(out, len, "unknown");
		return;
	}

	memcpy(&gen, &v, sizeof(gen));
	snprintf(out, len, "%u", gen);
}
