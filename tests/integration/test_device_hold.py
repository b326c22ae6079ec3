"""Description: each device is held for the whole run; a second test on the same drive, by any name, is refused without touching it.

Cases (files always; loop devices as root, skipped with a note when
losetup fails):

- pairs, on a 64 MiB file and on a loop device, 8 at once: act_storage +
  act_storage, act_storage + act_index, act_prep + act_storage (act_prep
  slowed by the shim: 100 ms per write) and act_storage + act_prep. The
  second starts once the first has set up (its `start time =` line, for
  act_prep `cleaning device`) and must exit 2 with an ERROR line `device
  <name> is in use by <first program> (pid <first pid>) - another test is
  running on it`. Proof it wrote nothing: it runs under the I/O shim's
  trace, which must record no pread/pwrite at all (the trace is shown to
  work by the parent-held run below, whose trace must have writes); the
  file's size is unchanged although its config asks for 128 MiB. The
  first's log parses with one report per second and `act_latency.py
  --check` passes; an act_prep first exits 0 with the device fully salted.
  In the act_storage + act_storage pairs the second also comes by other
  names: a symlink and a hard link (file), a symlink and /dev/block/M:m
  (loop) - each refused naming the first;
- one drive twice in one config: a file and its hard link, a loop device
  and /dev/block/M:m, a loop device and a symlink to it: exit 2, `devices
  A and B are the same file|drive ... - name each drive once`, checksums
  unchanged;
- the backing file of a loop device (attached, not mounted) for
  act_storage and act_prep, and of a mounted ext4 loop (MountedExt4):
  exit 2, the message names the loop device and `not mounted` / the mount
  point; checksums unchanged;
- an active swap file on a mounted ext4 loop file system (skipped when
  mkswap/swapon fail; always swapoff): exit 2, `is an active swap file`;
- a parent that holds the device (ACT_HELD_FDS and ACT_HELD_PID,
  docs/beyond.md): this script flocks a file (O_RDWR + LOCK_EX) / opens a
  loop device O_RDWR|O_EXCL and runs act_storage with the descriptor
  passed down and its own pid:
  exit 0 with a parseable log; meanwhile a plain act_storage on it is
  refused naming test_device_hold.py and this script's pid. A file or a
  block device the parent does not hold is refused (`is not one of the devices held by
  the parent`); ACT_HELD_FDS=abc and an fd that is not open: exit 2
  naming the variable and its value.
"""

import fcntl
import os
import re
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import itest  # noqa: E402

MB = 1024 * 1024
SIZE_MB = 64
DURATION = 3
RUN_TIMEOUT = 30
SLOW_PREP = "op=write,delay_ms=100"
SELF = "test_device_hold.py"
IN_USE = "is in use by %s \\(pid %d\\)[^\n]* - another test is running on it"


def errors(text):
    return [l for l in text.split("\n") if l.startswith("ERROR:")]


def config(td, name, dev, extra=(), duration=DURATION):
    return itest.write_config(td.join(name + ".conf"), [
        ("device-names", dev), ("service-threads", 2),
        ("test-duration-sec", duration), ("read-reqs-per-sec", 200),
        ("write-reqs-per-sec", 100)] + list(extra))


def args_for(progs, prog, td, name, dev, extra=()):
    if prog == "act_prep":
        return [progs[prog], dev]
    return [progs[prog], config(td, name, dev, extra)]


def traced_run(args, trace):
    """Run args under the shim's trace (every pread/pwrite recorded)."""
    return itest.run(args, timeout=RUN_TIMEOUT,
                     env=itest.shim_env(trace=trace))


def check_refused(c, key, r, trace, dev, pattern):
    """The refused run: exit 2, an ERROR line naming dev (dev None: the
    pattern names it) that matches pattern, no I/O at all in its trace."""
    detail = r.describe()
    c.eq("[%s] exit status" % key, 2, r.rc, detail)
    errs = errors(r.err)
    c.check(any((dev is None or ("device %s " % dev) in l) and
                re.search(pattern, l) for l in errs), "[%s] no ERROR line "
            "naming %s and matching %r" % (key, dev, pattern), detail)
    if trace is not None:
        ios = itest.read_trace(trace)
        c.eq("[%s] I/Os made by the refused program (shim trace)" % key, [],
             ["%s %d+%d" % (t.op, t.off, t.size) for t in ios][:5], detail)
    print("[%s] exit %s: %s" % (key, r.rc, errs[0] if errs else
                                r.err.strip()[:200]))


def check_first(c, key, prog, r, dev, td):
    """The program that held the device ran as if alone."""
    detail = r.describe()
    c.eq("[%s] first (%s) exit status" % (key, prog), 0, r.rc, detail)
    if prog == "act_prep":
        c.eq("[%s] act_prep: salt problems" % key, [],
             itest.salt_problems(dev, size=SIZE_MB * MB), detail)
        return
    parse = itest.parse_index_log if prog == "act_index" else itest.parse_log
    try:
        log = parse(r.out)
        c.eq("[%s] first (%s) reports" % (key, prog),
             list(range(1, DURATION + 1)), [rp.sec for rp in log.reports],
             detail)
    except itest.ParseError as e:
        c.fail("[%s] first (%s) log does not parse: %s" % (key, prog, e),
               detail)
        return
    path = td.join(key.replace(" ", "_").replace("/", "_") + ".log")
    with open(path, "w") as f:
        f.write(r.out)
    # The analysis as for any log: it runs and has a row per second. Not
    # --check: its latency limits judge the machine (8 runs on 2 shared
    # cores here), not the hold.
    if itest.latency_script() is not None:
        lr = itest.run_latency(path, "-t", "1")
        c.eq("[%s] act_latency.py on the first's log: exit status" % key, 0,
             lr.returncode, lr.stdout + lr.stderr)
        c.eq("[%s] act_latency.py: slice rows" % key, DURATION,
             len(itest.latency_slice_rows(lr.stdout)), lr.stdout)


# ----------------------------------------------------------------------------
# Two programs on one device.

PAIRS = [("act_storage", "act_storage"), ("act_storage", "act_index"),
         ("act_prep", "act_storage"), ("act_storage", "act_prep")]


def pair_case(c, td, progs, kind, dev, first, second, aliases, results):
    key = "%s %s+%s" % (kind, first, second)
    tag = key.replace(" ", "-").replace("+", "-")
    env = itest.shim_env(fault=SLOW_PREP) if first == "act_prep" else None
    ready = "cleaning device" if first == "act_prep" else "start time = "
    size_before = os.path.getsize(dev) if kind == "file" else None
    run1 = itest.Running(args_for(progs, first, td, tag + "-1", dev), ready,
                   env=env)
    refused = []
    try:
        started = run1.wait_started()
        c.check(started, "[%s] the first (%s) did not start" % (key, first))
        if started:
            extra = [("file-size-mbytes", 128)] if kind == "file" else []
            for i, name in enumerate([dev] + list(aliases)):
                trace = td.join("%s-%d.trace" % (tag, i))
                r = traced_run(args_for(progs, second, td, "%s-2-%d" % (
                    tag, i), name, extra if second != "act_prep" else ()),
                    trace)
                refused.append((name, r, trace))
            c.check(run1.p.poll() is None, "[%s] the first ended before the "
                    "second was refused: not a test of the hold" % key)
    finally:
        r1 = run1.finish()
    results[key] = (first, second, dev, run1.p.pid, r1, refused, size_before)


def check_pair(c, td, key, first, second, dev, pid, r1, refused,
               size_before):
    for name, r, trace in refused:
        check_refused(c, "%s as %s" % (key, name), r, trace, name,
                      IN_USE % (first, pid))
    if size_before is not None:
        c.eq("[%s] file size after the refused runs (config asked for 128 "
             "MiB)" % key, size_before, os.path.getsize(dev))
    check_first(c, key, first, r1, dev, td)


def check_pairs(c, td, progs, loops):
    cases = []
    for first, second in PAIRS:
        f = td.join("pair-%s-%s.dev" % (first, second))
        itest.fill_file(f, SIZE_MB * MB, b"\x5a")
        aliases = []
        if (first, second) == ("act_storage", "act_storage"):
            os.symlink(f, f + ".symlink")
            os.link(f, f + ".hardlink")
            aliases = [f + ".symlink", f + ".hardlink"]
        cases.append(("file", f, first, second, aliases))
        if loops is not None:
            dev = loops.new("pair-%s-%s" % (first, second))
            if dev is None:
                continue
            aliases = []
            if (first, second) == ("act_storage", "act_storage"):
                link = td.join("loop.symlink")
                os.symlink(dev, link)
                aliases = [link, block_path(dev, td)]
            cases.append(("loop", dev, first, second, aliases))
    results = {}
    threads = [threading.Thread(target=pair_case, args=(
        c, td, progs, kind, dev, first, second, aliases, results))
        for kind, dev, first, second, aliases in cases]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    c.eq("pair cases run", len(cases), len(results))
    for key in sorted(results):
        check_pair(c, td, key, *results[key])


# ----------------------------------------------------------------------------
# Loop devices.

def block_path(dev, td):
    """/dev/block/M:m of dev; where there is none (no udev in a
    container), a second device node with the same number, made in td."""
    st = os.stat(dev)
    path = "/dev/block/%d:%d" % (os.major(st.st_rdev), os.minor(st.st_rdev))
    if os.path.exists(path) and os.stat(path).st_rdev == st.st_rdev:
        return path
    path = td.join("node-%d:%d" % (os.major(st.st_rdev),
                                   os.minor(st.st_rdev)))
    if not os.path.exists(path):
        os.mknod(path, 0o600 | (st.st_mode & 0o170000), st.st_rdev)
    return path


class Loops:
    """Loop devices on files in td, detached at the end."""

    def __init__(self, c, td):
        self.c = c
        self.td = td
        self.devs = []
        self.imgs = {}

    def new(self, tag, mb=SIZE_MB):
        img = self.td.join(tag + ".img")
        itest.fill_file(img, mb * MB, b"\x5a")
        dev, why = itest.loop_attach(img)
        if dev is None:
            self.c.skip_part("%s loop device" % tag,
                             "losetup failed: %s" % why)
            return None
        self.devs.append(dev)
        self.imgs[dev] = img
        return dev

    def close(self):
        for d in self.devs:
            itest.loop_detach(d)
        self.devs = []


# ----------------------------------------------------------------------------
# One drive twice in one config.

def check_same_drive(c, td, progs, loops):
    f = td.join("twice.dev")
    itest.fill_file(f, SIZE_MB * MB, b"\x5a")
    os.link(f, td.join("twice.hardlink"))
    cases = [("file + hard link", f, td.join("twice.hardlink"), f,
              r"are the same file \(inode %d on device \d+:\d+\) - name "
              r"each drive once" % os.stat(f).st_ino)]
    if loops is not None:
        dev = loops.new("twice")
        if dev is not None:
            link = td.join("twice-loop.symlink")
            os.symlink(dev, link)
            st = os.stat(dev)
            same = (r"are the same drive \(device %d:%d\) - name each drive "
                    r"once" % (os.major(st.st_rdev), os.minor(st.st_rdev)))
            cases.append(("loop + /dev/block", dev, block_path(dev, td),
                          loops.imgs[dev], same))
            cases.append(("loop + symlink", dev, link, loops.imgs[dev],
                          same))
    for what, a, b, backing, pattern in cases:
        before = itest.sha256_file(backing)
        for prog in ("act_storage", "act_index", "act_prep"):
            key = "same drive twice: %s, %s" % (what, prog)
            if prog == "act_prep":
                args = [progs[prog], a, b]
            else:
                args = [progs[prog], itest.write_config(
                    td.join("twice-%s.conf" % prog), [
                        ("device-names", "%s %s" % (a, b)),
                        ("service-threads", 2), ("test-duration-sec", 2),
                        ("read-reqs-per-sec", 200),
                        ("write-reqs-per-sec", 100)])]
            r = traced_run(args, td.join("twice.trace"))
            check_refused(c, key, r, td.join("twice.trace"), None,
                          "devices " + re.escape(a) + " and " + re.escape(b) + " " +
                          pattern)
            os.unlink(td.join("twice.trace")) if os.path.exists(
                td.join("twice.trace")) else None
        c.eq("[same drive twice: %s] checksum" % what, before,
             itest.sha256_file(backing))


# ----------------------------------------------------------------------------
# Backing files of loop devices, swap files.

def check_loop_backing(c, td, progs, loops):
    if loops is None:
        return
    dev = loops.new("backing")
    if dev is None:
        return
    img = loops.imgs[dev]
    before = itest.sha256_file(img)
    for prog in ("act_storage", "act_prep"):
        key = "backing file of %s, %s" % (dev, prog)
        trace = td.join("backing-%s.trace" % prog)
        r = traced_run(args_for(progs, prog, td, "backing-" + prog, img),
                       trace)
        check_refused(c, key, r, trace, img, r"is the backing file of loop "
                      r"device %s \(attached, not mounted\)" % re.escape(dev))
    c.eq("[backing file] checksum", before, itest.sha256_file(img))


def check_mounted_backing(c, td, progs):
    with itest.MountedExt4(c, td) as m:
        if m.dev is None:
            return
        r = itest.run([progs["act_storage"], config(td, "mounted-img",
                                                    m.img)],
                      timeout=RUN_TIMEOUT)
        m.check_refused(r, "start time = ")
        c.check(any(re.search(r"device %s is the backing file of loop "
                              r"device %s \(mounted on %s\) - writing it "
                              r"would destroy that file system" % (
                                  re.escape(m.img), re.escape(m.dev),
                                  re.escape(m.mnt)), l)
                    for l in errors(r.err)),
                "[mounted backing file] no ERROR line naming the loop device "
                "and its mount point", r.describe())


def check_swap_file(c, td, progs, loops):
    if loops is None:
        return
    dev = loops.new("swapfs", mb=48)
    if dev is None:
        return
    mnt = td.join("swapmnt")
    os.mkdir(mnt)
    r = itest.sh(["mkfs.ext4", "-q", "-F", dev])
    if r.returncode != 0:
        c.skip_part("swap file", "mkfs.ext4 failed: %s" % r.stderr.strip())
        return
    if itest.sh(["mount", dev, mnt]).returncode != 0:
        c.skip_part("swap file", "mount failed")
        return
    swap = os.path.join(mnt, "swapfile")
    on = False
    try:
        itest.fill_file(swap, 16 * MB, b"\0")
        os.chmod(swap, 0o600)
        r = itest.sh(["mkswap", swap])
        if r.returncode == 0:
            r = itest.sh(["swapon", swap])
        if r.returncode != 0:
            c.skip_part("swap file", "mkswap/swapon failed: %s" %
                        r.stderr.strip())
            return
        on = True
        before = itest.sha256_file(swap)
        for prog in ("act_storage", "act_prep"):
            trace = td.join("swap-%s.trace" % prog)
            r = traced_run(args_for(progs, prog, td, "swap-" + prog, swap),
                           trace)
            check_refused(c, "active swap file, %s" % prog, r, trace, swap,
                          r"is an active swap file")
        c.eq("[swap file] checksum", before, itest.sha256_file(swap))
    finally:
        if on:
            itest.sh(["swapoff", swap])
        itest.umount(mnt)


# ----------------------------------------------------------------------------
# A parent that holds the devices (ACT_HELD_FDS).

def held_env(fds, trace=None):
    env = itest.shim_env(trace=trace) if trace else dict(os.environ)
    env["ACT_HELD_FDS"] = ",".join(str(fd) for fd in fds)
    env["ACT_HELD_PID"] = str(os.getpid())
    return env


def parent_case(c, td, progs, what, dev, fd):
    key = "parent holds %s" % what
    trace = td.join("parent-%s.trace" % what)
    child = itest.Running([progs["act_storage"], config(td, "parent-" + what,
                                                  dev)],
                    "start time = ", env=held_env([fd], trace),
                    pass_fds=(fd,))
    try:
        c.check(child.wait_started(), "[%s] the child did not start" % key)
        r = traced_run([progs["act_storage"], config(td, "parent-plain-" +
                                                     what, dev)],
                       td.join("parent-plain.trace"))
        # The parent among the processes with the device open (its child
        # may be listed first: pids wrap).
        check_refused(c, "%s: plain act_storage" % key, r,
                      td.join("parent-plain.trace"), dev,
                      r"is in use by ([^\n]*, )?%s \(pid %d\)[^\n]* - "
                      r"another test is running on it" % (re.escape(SELF),
                                                          os.getpid()))
    finally:
        r1 = child.finish()
    detail = r1.describe()
    c.eq("[%s] the child's exit status" % key, 0, r1.rc, detail)
    try:
        log = itest.parse_log(r1.out)
        c.eq("[%s] the child's reports" % key, list(range(1, DURATION + 1)),
             [rp.sec for rp in log.reports], detail)
    except itest.ParseError as e:
        c.fail("[%s] the child's log does not parse: %s" % (key, e), detail)
    # The control for every "no I/O" check: the shim's trace does record.
    writes = [t for t in itest.read_trace(trace) if t.op == "w"]
    c.check(len(writes) > 0, "[%s] the shim traced no write of the child: "
            "the refused runs' empty traces would prove nothing" % key)
    print("[%s] child exit %s, %d writes traced" % (key, r1.rc, len(writes)))


def check_parent(c, td, progs, loops):
    f = td.join("parent.dev")
    itest.fill_file(f, SIZE_MB * MB, b"\x5a")
    fd = os.open(f, os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        parent_case(c, td, progs, "file", f, fd)
        # A file the parent does not hold (e.g. a file put in place of
        # the one it checked): refused, not written.
        other = td.join("not-held.dev")
        itest.fill_file(other, SIZE_MB * MB, b"\x5a")
        trace = td.join("not-held-file.trace")
        r = itest.Running([progs["act_storage"], config(td, "not-held-file",
                                                  other)], "-",
                    env=held_env([fd], trace), pass_fds=(fd,)).finish()
        check_refused(c, "file not held by the parent", r, trace, other,
                      r"is not one of the devices held by the parent "
                      r"\(ACT_HELD_FDS=%d\)" % fd)
        # Bad values: refused before any device is opened.
        for value, pattern in (("abc", r"ACT_HELD_FDS=abc: \"abc\" is not a "
                                r"file descriptor number"),
                               ("987", r"ACT_HELD_FDS=987: descriptor 987 "
                                r"is not open")):
            env = dict(os.environ)
            env["ACT_HELD_FDS"] = value
            env["ACT_HELD_PID"] = str(os.getpid())
            r = itest.run([progs["act_storage"], config(td, "bad-held", f)],
                          timeout=RUN_TIMEOUT, env=env)
            c.eq("[ACT_HELD_FDS=%s] exit status" % value, 2, r.rc,
                 r.describe())
            c.check(any(re.search(pattern, l) for l in errors(r.err)),
                    "[ACT_HELD_FDS=%s] no ERROR line matching %r" % (
                        value, pattern), r.describe())
            print("[ACT_HELD_FDS=%s] exit %s: %s" % (
                value, r.rc, " | ".join(errors(r.err))))
        if loops is not None:
            other = loops.new("not-held")
            if other is not None:
                trace = td.join("not-held.trace")
                r = itest.Running([progs["act_storage"], config(
                    td, "not-held", other)], "-", env=held_env([fd], trace),
                    pass_fds=(fd,)).finish()
                check_refused(c, "block device not held by the parent", r,
                              trace, other, r"is not one of the devices held "
                              r"by the parent \(ACT_HELD_FDS=%d\)" % fd)
    finally:
        os.close(fd)
    if loops is None:
        return
    dev = loops.new("parent")
    if dev is None:
        return
    fd = os.open(dev, os.O_RDWR | os.O_EXCL)
    try:
        parent_case(c, td, progs, "loop", dev, fd)
    finally:
        os.close(fd)


def main():
    c = itest.Checker("test_device_hold")
    progs = {p: itest.binary(p) for p in ("act_storage", "act_index",
                                          "act_prep")}
    itest.shim_path()
    with itest.TempDir() as td:
        loops = None
        if os.geteuid() == 0:
            loops = Loops(c, td)
        else:
            c.skip_part("loop devices")
        try:
            check_pairs(c, td, progs, loops)
            check_same_drive(c, td, progs, loops)
            check_loop_backing(c, td, progs, loops)
            check_mounted_backing(c, td, progs)
            check_swap_file(c, td, progs, loops)
            check_parent(c, td, progs, loops)
        finally:
            if loops is not None:
                loops.close()
    c.finish()


if __name__ == "__main__":
    main()
