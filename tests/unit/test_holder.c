/*
 * Description: naming who holds a device - /proc/locks lines parse (FLOCK,
 * POSIX, OFDLCK, waiters, hex major:minor), a process shows as its
 * program or, for an interpreter, its script; ACT_HELD_FDS and
 * ACT_HELD_PID values parse or are refused naming the variable and the
 * value; a file flock()ed by another process is found in the live
 * /proc/locks with that pid; and a child tells the descriptor it inherited
 * from its parent (the parent's own open) from one it opened itself on the
 * same file.
 */

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/file.h>
#include <linux/kcmp.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/holder.h"
#include "unit.h"

typedef struct {
	const char* line;
	bool ok;
	const char* type;
	bool waiting;
	long pid;
	unsigned maj;
	unsigned min;
	uint64_t ino;
} lock_case;

static const lock_case LOCKS[] = {
	{ "1: FLOCK  ADVISORY  WRITE 4242 08:01:1234 0 EOF\n", true, "FLOCK",
			false, 4242, 8, 1, 1234 },
	{ "2: POSIX  ADVISORY  WRITE 77 fe:00:761923 0 EOF", true, "POSIX",
			false, 77, 254, 0, 761923 },
	{ "3: OFDLCK ADVISORY  READ  -1 00:1a:9 0 EOF", true, "OFDLCK", false,
			-1, 0, 26, 9 },
	{ "4: -> FLOCK  ADVISORY  WRITE 555 103:02:18446744073709551615 0 EOF",
			true, "FLOCK", true, 555, 0x103, 2, 18446744073709551615ULL },
	{ " 12: -> FLOCK  ADVISORY  WRITE 9 07:03:42 0 EOF", true, "FLOCK",
			true, 9, 7, 3, 42 },
	{ "5: LEASE  ACTIVE    READ  31 00:2a:100 0 EOF", true, "LEASE", false,
			31, 0, 42, 100 },
	{ "", false, "", false, 0, 0, 0, 0 },
	{ "garbage", false, "", false, 0, 0, 0, 0 },
	{ "1 FLOCK ADVISORY WRITE 1 08:01:2 0 EOF", false, "", false, 0, 0, 0,
			0 },
	{ "1: FLOCK ADVISORY WRITE 1 08:01 0 EOF", false, "", false, 0, 0, 0,
			0 },
	{ "1: FLOCK ADVISORY WRITE x 08:01:2 0 EOF", false, "", false, 0, 0, 0,
			0 },
	{ "1: FLOCK ADVISORY WRITE 1 08:01:2x 0 EOF", false, "", false, 0, 0,
			0, 0 },
};

static void
test_parse_lock(void)
{
	for (size_t i = 0; i < sizeof(LOCKS) / sizeof(LOCKS[0]); i++) {
		const lock_case* c = &LOCKS[i];
		holder_lock l;
		bool ok = holder_parse_lock(c->line, &l);

		CHECK(ok == c->ok, "parse '%s': expected %s, got %s", c->line,
				c->ok ? "ok" : "refused", ok ? "ok" : "refused");

		if (! ok || ! c->ok) {
			continue;
		}

		CHECK_STR(c->line, c->type, l.type);
		CHECK(l.waiting == c->waiting, "'%s': waiting expected %d, got %d",
				c->line, c->waiting, l.waiting);
		CHECK(l.pid == c->pid, "'%s': pid expected %ld, got %ld", c->line,
				c->pid, l.pid);
		CHECK_U64(c->line, c->maj, l.maj);
		CHECK_U64(c->line, c->min, l.min);
		CHECK_U64(c->line, c->ino, l.ino);
	}
}

typedef struct {
	const char* comm;
	const char* cmdline;   // arguments separated by '|', turned into NULs
	const char* want;
} prog_case;

static const prog_case PROGS[] = {
	{ "act_storage", "/usr/bin/act_storage|/etc/act.conf", "act_storage" },
	{ "python3", "python3|/usr/local/bin/act_certify.py|--prep|run",
			"act_certify.py" },
	{ "python3.11", "/usr/bin/python3.11|-u|scripts/act_certify.py",
			"act_certify.py" },
	{ "python3", "python3|-m|act_tool|x", "act_tool" },
	{ "python3", "python3|-c|import os", "python3" },
	{ "python3", "python3", "python3" },
	{ "perl", "perl|-w|./hold.pl", "hold.pl" },
	{ "perl", "perl|-e|sleep 9", "perl" },
	{ "bash", "/bin/bash|/root/run-act.sh", "run-act.sh" },
	{ "sh", "sh|-c|act_storage x.conf", "sh" },
	{ "shred", "shred|/dev/sdb", "shred" },    // "sh" is not a prefix
	{ "fio", "fio|job.fio", "fio" },
	{ "python3", "", "python3" },               // cmdline unreadable
};

static void
test_program_name(void)
{
	for (size_t i = 0; i < sizeof(PROGS) / sizeof(PROGS[0]); i++) {
		const prog_case* c = &PROGS[i];
		char cmd[256];
		size_t n = strlen(c->cmdline);
		char out[64];
		char what[300];

		memcpy(cmd, c->cmdline, n + 1);

		for (size_t k = 0; k < n; k++) {
			if (cmd[k] == '|') {
				cmd[k] = '\0';
			}
		}

		holder_program_name(c->comm, cmd, n == 0 ? 0 : n + 1, out,
				sizeof(out));
		snprintf(what, sizeof(what), "program of %s [%s]", c->comm,
				c->cmdline);
		CHECK_STR(what, c->want, out);
	}
}

typedef struct {
	const char* value;
	int rv;
	uint32_t n;
	int fds[4];
	const char* msg;   // part of the message when refused
} fds_case;

static const fds_case FDS[] = {
	{ "5", 0, 1, { 5 }, NULL },
	{ "5,6", 0, 2, { 5, 6 }, NULL },
	{ "0,17,3", 0, 3, { 0, 17, 3 }, NULL },
	{ "5,", -1, 0, { 0 }, "ACT_HELD_FDS=5,: \"\" is not a file descriptor" },
	{ ",5", -1, 0, { 0 }, "ACT_HELD_FDS=,5: \"\" is not" },
	{ "5,,6", -1, 0, { 0 }, "ACT_HELD_FDS=5,,6" },
	{ "x", -1, 0, { 0 }, "ACT_HELD_FDS=x: \"x\" is not a file descriptor" },
	{ "-1", -1, 0, { 0 }, "\"-1\" is not" },
	{ "5 6", -1, 0, { 0 }, "\"5 6\" is not" },
	{ "1234567890", -1, 0, { 0 }, "\"1234567890\" is not" },
	{ "1,2,3,4,5", -1, 0, { 0 }, "more than 4 descriptors" },
};

static void
test_parse_fds(void)
{
	for (size_t i = 0; i < sizeof(FDS) / sizeof(FDS[0]); i++) {
		const fds_case* c = &FDS[i];
		int fds[4];
		uint32_t n = 99;
		char err[256] = "";
		int rv = holder_parse_fds(c->value, fds, 4, &n, err, sizeof(err));

		CHECK(rv == c->rv, "'%s': expected %d, got %d (%s)", c->value, c->rv,
				rv, err);

		if (rv != 0 || c->rv != 0) {
			if (c->msg != NULL) {
				CHECK_CONTAINS(c->value, c->msg, err);
			}

			continue;
		}

		CHECK_U64(c->value, c->n, n);

		for (uint32_t k = 0; k < n && k < c->n; k++) {
			CHECK(fds[k] == c->fds[k], "'%s' fd %u: expected %d, got %d",
					c->value, k, c->fds[k], fds[k]);
		}
	}
}

typedef struct {
	const char* value;
	int rv;
	long pid;
	const char* msg;
} pid_case;

static const pid_case PIDS[] = {
	{ "1", 0, 1, NULL },
	{ "4242", 0, 4242, NULL },
	{ "0", -1, 0, "ACT_HELD_PID=0: not a process id" },
	{ "", -1, 0, "ACT_HELD_PID=: not a process id" },
	{ "-5", -1, 0, "ACT_HELD_PID=-5: not a process id" },
	{ "12x", -1, 0, "ACT_HELD_PID=12x: not a process id" },
	{ " 12", -1, 0, "not a process id" },
	{ "1234567890", -1, 0, "not a process id" },
};

static void
test_parse_pid(void)
{
	for (size_t i = 0; i < sizeof(PIDS) / sizeof(PIDS[0]); i++) {
		const pid_case* c = &PIDS[i];
		long pid = -99;
		char err[256] = "";
		int rv = holder_parse_pid(c->value, &pid, err, sizeof(err));

		CHECK(rv == c->rv, "pid '%s': expected %d, got %d (%s)", c->value,
				c->rv, rv, err);

		if (rv == 0 && c->rv == 0) {
			CHECK(pid == c->pid, "pid '%s': expected %ld, got %ld", c->value,
					c->pid, pid);
		}
		else if (c->msg != NULL) {
			CHECK_CONTAINS(c->value, c->msg, err);
		}
	}
}

// The parent opens a file; a child asks whether its parent has the
// descriptor it inherited (yes) and one it opened itself on the same file
// (no, where kcmp can tell an open from another; else yes, by the file).
static void
test_shares_fd(void)
{
	char path[] = "/tmp/test_holder_XXXXXX";
	int fd = mkstemp(path);

	CHECK(fd >= 0, "mkstemp failed");

	if (fd < 0) {
		return;
	}

	pid_t pid = fork();

	if (pid == 0) {
		struct stat st;
		int own = open(path, O_RDONLY);

		if (own < 0 || fstat(fd, &st) != 0) {
			_exit(10);
		}

		int inherited = holder_shares_fd((long)getppid(), fd, &st);
		int mine = holder_shares_fd((long)getppid(), own, &st);
		long kcmp_ok = syscall(SYS_kcmp, (long)getpid(), (long)getpid(),
				KCMP_FILE, (long)fd, (long)fd);

		// 1: inherited not seen; 2: own seen (kcmp works); 3: /proc
		if (inherited < 0 || mine < 0) {
			_exit(3);
		}

		_exit(inherited != 1 ? 1 : kcmp_ok == 0 && mine != 0 ? 2 : 0);
	}

	int status = -1;

	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "holder_shares_fd "
			"in a child: exit %d (1: the inherited descriptor was not found "
			"in the parent, 2: the child's own open was taken for the "
			"parent's, 3: /proc/PPID/fd unreadable, 10: setup)",
			WIFEXITED(status) ? WEXITSTATUS(status) : -1);

	// Ourselves: not a process with that open (our child is gone).
	struct stat st;

	CHECK(fstat(fd, &st) == 0, "fstat");
	CHECK(holder_shares_fd((long)pid, fd, &st) < 0, "holder_shares_fd of a "
			"process that has ended: expected -1");

	close(fd);
	unlink(path);
}

// A child flock()s a file; holder_of_file finds it by the real
// /proc/locks and names it; our own lock is never reported.
static void
test_live_flock(void)
{
	char path[] = "/tmp/test_holder_XXXXXX";
	int fd = mkstemp(path);
	int pipefd[2];

	CHECK(fd >= 0 && pipe(pipefd) == 0, "mkstemp/pipe failed");

	if (fd < 0) {
		return;
	}

	struct stat st;

	CHECK(fstat(fd, &st) == 0, "fstat");

	char out[256];
	uint32_t n = holder_of_file(st.st_dev, st.st_ino, out, sizeof(out));

	CHECK_U64("holders of an unlocked file", 0, n);

	// Our own lock is not "another holder".
	CHECK(flock(fd, LOCK_EX | LOCK_NB) == 0, "flock self");
	n = holder_of_file(st.st_dev, st.st_ino, out, sizeof(out));
	CHECK(n == 0, "own lock reported: %s", out);
	flock(fd, LOCK_UN);

	pid_t pid = fork();

	if (pid == 0) {
		int cfd = open(path, O_RDWR);
		char c = 'x';

		if (cfd < 0 || flock(cfd, LOCK_EX) != 0 || write(pipefd[1], &c, 1)
				!= 1) {
			_exit(1);
		}

		pause();
		_exit(0);
	}

	char c;

	CHECK(read(pipefd[0], &c, 1) == 1, "child did not lock");
	CHECK(flock(fd, LOCK_EX | LOCK_NB) != 0, "the child's lock did not "
			"conflict");

	n = holder_of_file(st.st_dev, st.st_ino, out, sizeof(out));

	char want[64];

	snprintf(want, sizeof(want), "test_holder (pid %ld)", (long)pid);
	CHECK_U64("holders of the child's file", 1, n);
	CHECK_STR("holder of the child's file", want, out);

	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	close(fd);
	close(pipefd[0]);
	close(pipefd[1]);
	unlink(path);
}

int
main(void)
{
	test_parse_lock();
	test_program_name();
	test_parse_fds();
	test_parse_pid();
	test_shares_fd();
	test_live_flock();

	return unit_end("test_holder");
}
