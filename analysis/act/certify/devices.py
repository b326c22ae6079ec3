"""The devices of a campaign: checked (exist, a block device or a regular
file, not in use) and held exclusively for the whole campaign - between
steps too - and passed to every program it runs (ACT_HELD_FDS,
docs/beyond.md)."""

import errno
import fcntl
import os
import re
import stat

from act import EXIT_SETUP
from act.cli import UsageError


def mount_users(dev):
    """Where /proc/self/mounts and /proc/swaps use dev or one of its
    partitions (best effort, for the message)."""
    real = os.path.realpath(dev)
    part = re.compile(re.escape(real) + r"p?\d+")
    found = []
    for path, fmt in (("/proc/self/mounts", "%s mounted on %s"),
                      ("/proc/swaps", "%s used as swap")):
        try:
            with open(path) as f:
                for line in f:
                    parts = line.split()
                    if not parts or not parts[0].startswith("/"):
                        continue
                    r = os.path.realpath(parts[0])
                    if r == real or part.fullmatch(r):
                        found.append(fmt % tuple(parts[:fmt.count("%s")]))
        except OSError:
            pass
    return found


class Held:
    """The devices this campaign holds: {device name: descriptor}, kept
    open from the checks to the end of the campaign (between steps too)
    and passed to every program it runs (ACT_HELD_FDS, docs/beyond.md)."""
    fds = {}


def _proc_name(pid):
    """A process's program, for messages: its comm, or for an interpreter
    the script it runs (act_certify.py is a Python script)."""
    try:
        with open("/proc/%d/comm" % pid) as f:
            comm = f.read().strip()
    except OSError:
        return "pid %d" % pid
    if re.match(r"^(python[0-9.]*|perl|ruby|sh|bash|dash)$", comm):
        try:
            with open("/proc/%d/cmdline" % pid, "rb") as f:
                args = f.read().split(b"\0")
            for a in args[1:]:
                if a and not a.startswith(b"-"):
                    comm = os.path.basename(os.fsdecode(a))
                    break
        except OSError:
            pass
    return "%s (pid %d)" % (comm, pid)


def device_holders(st):
    """Who else has the device of stat st: for a file, the flock holder in
    /proc/locks; for a block device, every process with it open (best
    effort, for the message)."""
    pids = []
    me = os.getpid()
    if stat.S_ISREG(st.st_mode):
        key = "%02x:%02x:%d" % (os.major(st.st_dev), os.minor(st.st_dev),
                                st.st_ino)
        try:
            with open("/proc/locks") as f:
                for line in f:
                    w = line.split()
                    if len(w) >= 6 and w[1] == "FLOCK" and \
                            w[5].lower() == key and w[4].isdigit():
                        pids.append(int(w[4]))
        except OSError:
            pass
    else:
        for pid in sorted(int(p) for p in os.listdir("/proc")
                          if p.isdigit()):
            if pid == me:
                continue
            fddir = "/proc/%d/fd" % pid
            try:
                for fd in os.listdir(fddir):
                    try:
                        s = os.stat(os.path.join(fddir, fd))
                    except OSError:
                        continue
                    if stat.S_ISBLK(s.st_mode) and s.st_rdev == st.st_rdev:
                        pids.append(pid)
                        break
            except OSError:
                continue
    return [_proc_name(p) for p in dict.fromkeys(pids) if p != me]


def _same_device(a, b):
    if stat.S_ISBLK(a.st_mode) and stat.S_ISBLK(b.st_mode):
        return a.st_rdev == b.st_rdev
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino) and \
        stat.S_ISREG(a.st_mode) and stat.S_ISREG(b.st_mode)


def hold_devices(devices):
    """Every device exists, is a block device or a regular file, and is
    taken exclusively - a block device opened O_EXCL (EBUSY: mounted, swap,
    held by md/LVM/dm or by another test), a file locked with flock - and
    kept so until the campaign ends: no other test can start on it, even
    between two steps. Nothing is written. Returns {device: fd}; on a
    refusal every descriptor taken so far is closed."""
    held = {}
    stats = {}
    try:
        for dev in devices:
            _hold_one(dev, held, stats)
    except BaseException:
        release_devices(held)
        raise
    return held


def _hold_one(dev, held, stats):
    try:
        st = os.stat(dev)
        if stat.S_ISBLK(st.st_mode) or stat.S_ISREG(st.st_mode):
            fd = os.open(dev, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK)
            st = os.fstat(fd)
            os.close(fd)
    except FileNotFoundError:
        raise UsageError("device %s does not exist - check the name (a "
                        "file-backed trial device must be created "
                        "first, e.g. act_prep --size 1G FILE)" % dev,
                        status=EXIT_SETUP) from None
    except OSError as e:
        raise UsageError("can't use device %s: %s" % (dev, e.strerror),
                        status=EXIT_SETUP) from None
    for other, ost in stats.items():
        if _same_device(st, ost):
            raise UsageError("devices %s and %s are the same drive - name "
                            "each drive once" % (other, dev), status=EXIT_SETUP)
    if stat.S_ISBLK(st.st_mode):
        try:
            fd = os.open(dev, os.O_RDONLY | os.O_EXCL | os.O_CLOEXEC)
        except OSError as e:
            if e.errno != errno.EBUSY:
                raise UsageError("can't open device %s: %s"
                                % (dev, e.strerror), status=EXIT_SETUP) from None
            users = mount_users(dev)
            holders = device_holders(st)
            if holders and not users:
                raise UsageError(_held_by_test(dev, holders), status=EXIT_SETUP) \
                    from None
            raise UsageError("device %s is in use (%s) - refusing to write "
                            "to it" % (dev, "; ".join(users) if users else
                                       "mounted, swap, or held by "
                                       "md/LVM/dm"), status=EXIT_SETUP) from None
    elif stat.S_ISREG(st.st_mode):
        if st.st_mode & 0o222 == 0:
            raise UsageError("device file %s is read-only - the test "
                            "writes to it" % dev, status=EXIT_SETUP)
        fd = os.open(dev, os.O_RDONLY | os.O_CLOEXEC)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise UsageError(_held_by_test(dev, device_holders(st)),
                            status=EXIT_SETUP) from None
    else:
        raise UsageError("device %s is neither a block device nor a "
                        "regular file" % dev, status=EXIT_SETUP)
    if not _same_device(os.fstat(fd), st):
        os.close(fd)
        raise UsageError("device %s changed while it was being checked - "
                        "refusing to write to it" % dev, status=EXIT_SETUP)
    held[dev] = fd
    stats[dev] = st


def _held_by_test(dev, holders):
    """The refusal of a device another test holds, worded as the programs
    word it (HOLDER_TWO_TESTS, src/common/holder.h)."""
    return ("device %s is in use by %s - another test is running on it; "
            "two tests on one drive double its load and spoil both logs"
            % (dev, ", ".join(holders) if holders else "another process"))


def release_devices(held):
    for fd in held.values():
        try:
            os.close(fd)
        except OSError:
            pass
    held.clear()


def held_env():
    """The environment and descriptors for a program run on the held
    devices (the ACT_HELD_FDS protocol, docs/beyond.md)."""
    fds = sorted(Held.fds.values())
    env = dict(os.environ)
    if fds:
        env["ACT_HELD_FDS"] = ",".join(str(fd) for fd in fds)
    else:
        env.pop("ACT_HELD_FDS", None)
    return env, tuple(fds)
