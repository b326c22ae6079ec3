/*
 * holder.h - who holds a device, and the devices a parent holds for us.
 *
 * Every act program holds its devices for the whole run (dev.h): a block
 * device open O_EXCL, a regular file flock()ed. When a second program is
 * refused, these name the holder: for a file the pid of its FLOCK lock in
 * /proc/locks, for a block device the processes with a descriptor on it
 * (/proc/PID/fd); the program is /proc/PID/comm, or for an interpreter
 * (python, perl, sh...) the basename of its script.
 *
 * A parent that holds the devices itself (act_certify.py, for a whole
 * campaign) passes its descriptors down, lists them in ACT_HELD_FDS and
 * names itself in ACT_HELD_PID; the program verifies the claim rather than
 * believe it (docs/beyond.md, "A parent that holds the devices"). Such a
 * parent may also give the reason it stops the run (ACT_STOP_FD: docs/
 * beyond.md, "A parent that stops the run").
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#define HOLDER_ENV "ACT_HELD_FDS"
#define HOLDER_PID_ENV "ACT_HELD_PID"
#define HOLDER_STOP_ENV "ACT_STOP_FD"
#define HOLDER_MAX_FDS 128

// Ends the message that refuses a device another test holds.
#define HOLDER_TWO_TESTS "another test is running on it; two tests on one " \
		"drive double its load and spoil both logs"

// One line of /proc/locks, e.g. "2: FLOCK  ADVISORY  WRITE 4242 08:01:1234
// 0 EOF" (major and minor in hex, the inode in decimal; "->" marks a
// waiter).
typedef struct holder_lock_s {
	char type[16];      // FLOCK, POSIX, OFDLCK, LEASE...
	bool waiting;       // "->": blocked, not holding
	long pid;
	unsigned maj;
	unsigned min;
	uint64_t ino;
} holder_lock;

// Parse one line of /proc/locks. Returns false if it is not one.
bool holder_parse_lock(const char* line, holder_lock* out);

// The name to show for a process: comm, or for an interpreter (comm python*,
// perl*, ruby*, node, sh, bash, dash...) the basename of the script in its
// command line (cmdline: NUL-separated arguments, len bytes).
void holder_program_name(const char* comm, const char* cmdline, size_t len,
		char* out, size_t out_len);

// The processes other than this one holding an flock on the file (dev,
// ino), as "prog (pid N)[, prog (pid M)...]" in out. Returns how many.
uint32_t holder_of_file(dev_t dev, ino_t ino, char* out, size_t out_len);

// The processes other than this one that have the block device rdev open,
// as for holder_of_file. Returns how many.
uint32_t holder_of_block(dev_t rdev, char* out, size_t out_len);

// Parse ACT_HELD_FDS ("5,6": decimal descriptor numbers, comma-separated)
// into fds (at most max). Returns 0, or -1 with a message in err naming
// the variable and the value.
int holder_parse_fds(const char* value, int* fds, uint32_t max, uint32_t* n,
		char* err, size_t len);

// Parse ACT_HELD_PID (a decimal process id). Returns 0, or -1 with a
// message in err naming the variable and the value.
int holder_parse_pid(const char* value, long* pid, char* err, size_t len);

// The read end of the pipe through which the parent that runs us gives
// the reason of a stop before it sends SIGINT (ACT_STOP_FD, docs/beyond.md,
// "A parent that stops the run"): the descriptor ACT_STOP_FD names, when
// ACT_HELD_PID is our parent (getppid()) and the descriptor is a pipe open
// for reading only; else -1. Reads nothing.
int holder_stop_fd(void);

// Whether process pid has a descriptor on the open file description of our
// descriptor fd (st: its fstat) - the same open, not only the same file:
// kcmp(KCMP_FILE). Where kcmp is missing or not allowed (ENOSYS, EPERM:
// a container's seccomp profile) a descriptor of pid on the same block
// device (or file) counts. Returns 1 or 0, or -1
// (errno set) if /proc/PID/fd can't be read.
int holder_shares_fd(long pid, int fd, const struct stat* st);
