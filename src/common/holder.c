/*
 * holder.c - who holds a device, and the devices a parent holds for us.
 */

#include "common/holder.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/kcmp.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "common/strbuf.h"

//==========================================================
// Typedefs & constants.
//

#define MAX_LISTED 4

typedef struct found_s {
	strbuf sb;
	long pids[MAX_LISTED];
	uint32_t n;
	bool more;
} found;

//==========================================================
// Forward declarations.
//

static void add_pid(found* f, long pid);
static void program_of(long pid, char* out, size_t len);
static bool is_interpreter(const char* comm);
static size_t read_small(const char* path, char* buf, size_t len);
static void finish(found* f);
static long positive(const char* value);

//==========================================================
// Public API.
//

bool
holder_parse_lock(const char* line, holder_lock* out)
{
	char tok[4][32];
	const char* p = line;
	int used = 0;

	memset(out, 0, sizeof(*out));

	// "N:" then maybe "->", then type, mode, access.
	if (sscanf(p, " %31s%n", tok[0], &used) != 1 ||
			tok[0][strlen(tok[0]) - 1] != ':') {
		return false;
	}

	p += used;

	if (sscanf(p, " %31s%n", tok[1], &used) != 1) {
		return false;
	}

	if (strcmp(tok[1], "->") == 0) {
		out->waiting = true;
		p += used;

		if (sscanf(p, " %31s%n", tok[1], &used) != 1) {
			return false;
		}
	}

	p += used;
	snprintf(out->type, sizeof(out->type), "%.15s", tok[1]);

	if (sscanf(p, " %31s %31s%n", tok[2], tok[3], &used) != 2) {
		return false;
	}

	p += used;

	char dev[64];

	if (sscanf(p, " %ld %63s", &out->pid, dev) != 2) {
		return false;
	}

	unsigned long long ino;
	char extra;

	if (sscanf(dev, "%x:%x:%llu%c", &out->maj, &out->min, &ino,
			&extra) != 3) {
		return false;
	}

	out->ino = (uint64_t)ino;

	return true;
}

void
holder_program_name(const char* comm, const char* cmdline, size_t len,
		char* out, size_t out_len)
{
	snprintf(out, out_len, "%s", comm);

	if (! is_interpreter(comm)) {
		return;
	}

	// Skip argv[0] and the interpreter's options; the first other
	// argument is the script. "-c"/"-e" run a string: no script.
	const char* end = cmdline + len;
	const char* a = cmdline;
	bool first = true;
	bool take_next = false;

	while (a < end) {
		size_t n = strnlen(a, (size_t)(end - a));
		const char* next = a + n + 1;

		if (first) {
			first = false;
		}
		else if (take_next) {
			snprintf(out, out_len, "%.*s", (int)n, a);
			return;
		}
		else if (n == 2 && (strncmp(a, "-c", 2) == 0 ||
				strncmp(a, "-e", 2) == 0)) {
			return;
		}
		else if (n == 2 && strncmp(a, "-m", 2) == 0) {
			take_next = true; // python -m module: the module's name
		}
		else if (a[0] != '-' && n != 0) {
			const char* base = a + n;

			while (base > a && base[-1] != '/') {
				base--;
			}

			snprintf(out, out_len, "%.*s", (int)(a + n - base), base);
			return;
		}

		a = next;
	}
}

uint32_t
holder_of_file(dev_t dev, ino_t ino, char* out, size_t out_len)
{
	found f = { .n = 0 };

	sb_init(&f.sb, out, out_len);

	FILE* locks = fopen("/proc/locks", "r");

	if (locks == NULL) {
		return 0;
	}

	char line[512];
	// Match the device too where /proc/locks shows the same one as stat;
	// some file systems (btrfs subvolumes, overlayfs) report another st_dev
	// than the superblock's: then the inode alone.
	long by_ino[MAX_LISTED];
	uint32_t n_by_ino = 0;

	while (fgets(line, sizeof(line), locks) != NULL) {
		holder_lock l;

		if (! holder_parse_lock(line, &l) || l.waiting ||
				strcmp(l.type, "FLOCK") != 0 || l.ino != (uint64_t)ino ||
				l.pid <= 0 || l.pid == (long)getpid()) {
			continue;
		}

		if (l.maj == major(dev) && l.min == minor(dev)) {
			add_pid(&f, l.pid);
		}
		else if (n_by_ino < MAX_LISTED) {
			by_ino[n_by_ino++] = l.pid;
		}
	}

	fclose(locks);

	for (uint32_t i = 0; f.n == 0 && i < n_by_ino; i++) {
		add_pid(&f, by_ino[i]);
	}

	finish(&f);

	return f.n;
}

uint32_t
holder_of_block(dev_t rdev, char* out, size_t out_len)
{
	found f = { .n = 0 };

	sb_init(&f.sb, out, out_len);

	DIR* proc = opendir("/proc");

	if (proc == NULL) {
		return 0;
	}

	long self = (long)getpid();
	struct dirent* pe;

	while ((pe = readdir(proc)) != NULL) {
		char* end;
		long pid = strtol(pe->d_name, &end, 10);

		if (*end != '\0' || pid <= 0 || pid == self) {
			continue;
		}

		char fd_dir[64];

		snprintf(fd_dir, sizeof(fd_dir), "/proc/%ld/fd", pid);

		DIR* fds = opendir(fd_dir);

		if (fds == NULL) {
			continue; // gone, or not ours to look at
		}

		struct dirent* fe;

		while ((fe = readdir(fds)) != NULL) {
			char path[64 + sizeof(fe->d_name)];
			char link[PATH_MAX];
			struct stat st;

			if (fe->d_name[0] == '.') {
				continue;
			}

			snprintf(path, sizeof(path), "%s/%s", fd_dir, fe->d_name);

			// Only descriptors of files: no stat of sockets, pipes...
			ssize_t n = readlink(path, link, sizeof(link) - 1);

			if (n <= 0 || link[0] != '/') {
				continue;
			}

			if (stat(path, &st) == 0 && S_ISBLK(st.st_mode) &&
					st.st_rdev == rdev) {
				add_pid(&f, pid);
				break;
			}
		}

		closedir(fds);
	}

	closedir(proc);
	finish(&f);

	return f.n;
}

int
holder_parse_fds(const char* value, int* fds, uint32_t max, uint32_t* n,
		char* err, size_t len)
{
	const char* p = value;

	*n = 0;

	while (true) {
		size_t k = strcspn(p, ",");
		bool digits = k > 0 && k <= 9;

		for (size_t i = 0; i < k && digits; i++) {
			digits = isdigit((unsigned char)p[i]) != 0;
		}

		if (! digits) {
			snprintf(err, len, "%s=%s: \"%.*s\" is not a file descriptor "
					"number (expected decimal numbers separated by commas, "
					"e.g. %s=5,6)", HOLDER_ENV, value, (int)k, p, HOLDER_ENV);
			return -1;
		}

		if (*n == max) {
			snprintf(err, len, "%s=%s: more than %" PRIu32 " descriptors",
					HOLDER_ENV, value, max);
			return -1;
		}

		fds[(*n)++] = atoi(p);
		p += k;

		if (*p == '\0') {
			return 0;
		}

		p++; // the comma
	}
}

int
holder_parse_pid(const char* value, long* pid, char* err, size_t len)
{
	*pid = positive(value);

	if (*pid <= 0) {
		snprintf(err, len, "%s=%s: not a process id (the parent that holds "
				"the devices gives its own pid)", HOLDER_PID_ENV, value);
		return -1;
	}

	return 0;
}

int
holder_stop_fd(void)
{
	const char* value = getenv(HOLDER_STOP_ENV);
	const char* pid_value = getenv(HOLDER_PID_ENV);

	if (value == NULL || pid_value == NULL ||
			positive(pid_value) != (long)getppid()) {
		return -1;
	}

	long fd = positive(value);
	struct stat st;

	if (fd <= 0 || fd > INT_MAX || fstat((int)fd, &st) != 0 ||
			! S_ISFIFO(st.st_mode)) {
		return -1;
	}

	int fl = fcntl((int)fd, F_GETFL);

	return fl >= 0 && (fl & O_ACCMODE) == O_RDONLY ? (int)fd : -1;
}

int
holder_shares_fd(long pid, int fd, const struct stat* st)
{
	char fd_dir[64];

	snprintf(fd_dir, sizeof(fd_dir), "/proc/%ld/fd", pid);

	DIR* fds = opendir(fd_dir);

	if (fds == NULL) {
		return -1;
	}

	struct dirent* fe;
	int shared = 0;

	while (shared == 0 && (fe = readdir(fds)) != NULL) {
		char path[64 + sizeof(fe->d_name)];
		char link[PATH_MAX];
		struct stat pst;
		char* end;
		long pfd = strtol(fe->d_name, &end, 10);

		if (*end != '\0' || end == fe->d_name) {
			continue;
		}

		snprintf(path, sizeof(path), "%s/%s", fd_dir, fe->d_name);

		// Only descriptors of files: no stat of sockets, pipes...
		ssize_t n = readlink(path, link, sizeof(link) - 1);

		if (n <= 0 || link[0] != '/' || stat(path, &pst) != 0 ||
				(pst.st_mode & S_IFMT) != (st->st_mode & S_IFMT) ||
				(S_ISBLK(st->st_mode) ? pst.st_rdev != st->st_rdev :
				pst.st_dev != st->st_dev || pst.st_ino != st->st_ino)) {
			continue;
		}

		long same = syscall(SYS_kcmp, (long)getpid(), pid, KCMP_FILE,
				(long)fd, pfd);

		// No kcmp in this kernel, or not allowed (a container's seccomp
		// profile): the same device must do.
		if (same == 0 || (same < 0 && (errno == ENOSYS || errno == EPERM ||
				errno == EACCES))) {
			shared = 1;
		}
	}

	closedir(fds);

	return shared;
}

//==========================================================
// Local helpers.
//

// value as a decimal number of 1 to 9 digits, or 0 if it is not one.
static long
positive(const char* value)
{
	size_t n = strlen(value);
	bool digits = n > 0 && n <= 9;

	for (size_t i = 0; i < n && digits; i++) {
		digits = isdigit((unsigned char)value[i]) != 0;
	}

	return digits ? atol(value) : 0;
}

static void
add_pid(found* f, long pid)
{
	for (uint32_t i = 0; i < f->n; i++) {
		if (f->pids[i] == pid) {
			return;
		}
	}

	if (f->n == MAX_LISTED) {
		f->more = true;
		return;
	}

	char prog[256];

	program_of(pid, prog, sizeof(prog));
	sb_printf(&f->sb, "%s%s (pid %ld)", f->n == 0 ? "" : ", ", prog, pid);
	f->pids[f->n++] = pid;
}

static void
finish(found* f)
{
	if (f->more) {
		sb_printf(&f->sb, ", ...");
	}
}

static void
program_of(long pid, char* out, size_t len)
{
	char path[64];
	char comm[64];
	char cmdline[4096];

	snprintf(path, sizeof(path), "/proc/%ld/comm", pid);

	size_t n = read_small(path, comm, sizeof(comm));

	while (n > 0 && comm[n - 1] == '\n') {
		comm[--n] = '\0';
	}

	if (n == 0) {
		snprintf(out, len, "an unknown program");
		return;
	}

	snprintf(path, sizeof(path), "/proc/%ld/cmdline", pid);
	n = read_small(path, cmdline, sizeof(cmdline));
	holder_program_name(comm, cmdline, n, out, len);
}

static bool
is_interpreter(const char* comm)
{
	static const char* const PREFIXES[] = {
		"python", "perl", "ruby", "node", "php", "lua", "tclsh", NULL
	};
	static const char* const SHELLS[] = {
		"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "busybox", NULL
	};

	for (const char* const* p = PREFIXES; *p != NULL; p++) {
		if (strncmp(comm, *p, strlen(*p)) == 0) {
			return true;
		}
	}

	for (const char* const* s = SHELLS; *s != NULL; s++) {
		if (strcmp(comm, *s) == 0) {
			return true;
		}
	}

	return false;
}

// Read up to len - 1 bytes of a small file, NUL-terminated. Returns the
// number read (0 on any failure).
static size_t
read_small(const char* path, char* buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	buf[0] = '\0';

	if (fd < 0) {
		return 0;
	}

	ssize_t n = read(fd, buf, len - 1);

	close(fd);

	if (n <= 0) {
		buf[0] = '\0';
		return 0;
	}

	buf[n] = '\0';

	return (size_t)n;
}
