"""Description: one drive under two names that neither its device number nor its inode connects - two loop devices over one file, an overlayfs file and its upper-layer file - is one drive: refused twice in one config, held against a second test by the other name, refused by act_certify (docs/beyond.md, "One drive, several names").

Root only (skipped otherwise); the loop part is skipped with a note when
losetup fails, the overlay part when the overlay mount fails. Every
refused run must exit 2 with the ERROR line given, never start (no
`start time =`, act_prep no `cleaning`) and make no I/O at all (the shim's
trace); the files keep their checksums across the refusals that run
alone.

Loop devices A and A2 over one 64 MiB file:
- one config naming both (act_storage, act_index, act_prep): `devices A
  and A2 are the same drive (loop devices over the same file, inode N on
  device M:m) - name each drive once`;
- act_storage on A running: act_storage and act_prep on A2 are refused
  naming it (`is in use by act_storage (pid P)`: it holds A2 too); the
  first ends with exit 0;
- this script holding A as act_certify does between steps (O_RDWR |
  O_EXCL): act_storage on A2 is refused (`is the same drive as loop device
  A (both over ...), which is in use by test_drive_aliases.py (pid N)`);
- B2 over another file, with a mounted (read-only) ext4 on it: act_storage
  on B (the same file) is refused (`is the same drive as loop device B2
  ... (B2 mounted on MNT)`);
- act_storage running on a file, then a loop device attached over it:
  act_storage on the loop device is refused (`is a loop device over F,
  which is in use by act_storage (pid P)`);
- act_certify --device A --device A2: exit 2, the same-drive message;
- the control: two loop devices over the two halves of one file (losetup
  --offset / --sizelimit) are two drives - one config naming both runs
  (exit 0), and two act_storage, one on each, run side by side.

An overlay (lowerdir, upperdir, workdir in the temporary directory), its
name OV of the file UP in the upper directory:
- one config naming both (act_storage, act_index, act_prep): `devices OV
  and UP are the same file (inode N on device M:m, OV through an overlay
  file system)`;
- act_storage on OV running: act_storage and act_prep on UP refused naming
  it; and the other way round;
- this script holding OV with flock, as act_certify does: act_storage on
  UP is refused (`is in use by test_drive_aliases.py (pid N) through
  another name, OV (an overlay name of it)`); holding UP, act_storage on
  OV is refused (`... through another name, UP (its upper-layer file)`);
- act_certify --device OV --device UP: exit 2, the same-file message.
"""

import fcntl
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import itest  # noqa: E402

MB = 1024 * 1024
SIZE_MB = 64
DURATION = 3
RUN_TIMEOUT = 30
SELF = "test_drive_aliases.py"
CERTIFY = os.path.join(itest.REPO, "analysis", "act_certify.py")
IN_USE = r"is in use by %s \(pid %d\)[^\n]* - another test is running on it"


def config(td, name, devs, duration=DURATION):
    return itest.write_config(td.join(name + ".conf"), [
        ("device-names", ",".join(devs)), ("service-threads", 2),
        ("test-duration-sec", duration), ("read-reqs-per-sec", 200),
        ("write-reqs-per-sec", 100)])


def args_for(progs, prog, td, tag, devs):
    if prog == "act_prep":
        return [progs[prog]] + list(devs)
    return [progs[prog], config(td, "%s-%s" % (tag, prog), devs)]


class Traces:
    """A fresh shim trace file for each refused run."""
    td = None
    n = 0

    @classmethod
    def new(cls):
        cls.n += 1
        return cls.td.join("refused-%d.trace" % cls.n)


def check_refused(c, key, r, pattern):
    """r: a Result of run() - its trace must hold no I/O at all."""
    itest.check_program_refused(c, key, r, pattern, trace=r.trace)


def check_ran(c, key, r):
    detail = r.describe()
    c.eq("[%s] exit status" % key, 0, r.rc, detail)
    try:
        log = itest.parse_log(r.out)
        c.check(len(log.reports) >= 1, "[%s] no report" % key, detail)
    except itest.ParseError as e:
        c.fail("[%s] the log does not parse: %s" % (key, e), detail)
    print("[%s] exit %s" % (key, r.rc))


def plain_env():
    env = dict(os.environ)
    env.pop("ACT_HELD_FDS", None)
    env.pop("ACT_HELD_PID", None)
    return env


def run(args):
    """A program expected to be refused, under the shim's trace."""
    trace = Traces.new()
    env = itest.shim_env(trace=trace)
    env.pop("ACT_HELD_FDS", None)
    env.pop("ACT_HELD_PID", None)
    r = itest.run(args, timeout=RUN_TIMEOUT, env=env)
    r.trace = trace
    return r


def same_config(c, td, progs, what, a, b, pattern):
    for prog in ("act_storage", "act_index", "act_prep"):
        r = run(args_for(progs, prog, td, "twice-" + what, [a, b]))
        check_refused(c, "%s named twice, %s" % (what, prog), r,
                      "devices " + re.escape(a) + " and " + re.escape(b) +
                      " " + pattern)


def held_by_first(name):
    """The refusal of name while act_storage (pid) holds the drive."""
    return lambda pid: "device %s %s" % (re.escape(name), IN_USE % (
        "act_storage", pid))


def while_running(c, td, progs, key, first, seconds):
    """act_storage on first; once it runs, each (prog, name, pattern(pid))
    of seconds is run and must be refused; the first must end with exit
    0."""
    run1 = itest.Running([progs["act_storage"], config(
        td, key.replace(" ", "-") + "-1", [first])], "start time = ",
        env=plain_env(), timeout=RUN_TIMEOUT)
    try:
        started = run1.wait_started()
        c.check(started, "[%s] the first did not start" % key)
        if started:
            for prog, name, pattern in seconds:
                r = run(args_for(progs, prog, td, key.replace(" ", "-") +
                                 "-2", [name]))
                check_refused(c, "%s: %s on %s" % (key, prog, name), r,
                              pattern(run1.p.pid))
            c.check(run1.p.poll() is None, "[%s] the first ended before "
                    "the others were refused: not a test of the hold" % key)
    finally:
        r1 = run1.finish()
    c.eq("[%s] the first's exit status" % key, 0, r1.rc, r1.describe())


def certify_refused(c, td, key, devs, pattern):
    args = [sys.executable, CERTIFY, "--load", "0.1", "--seconds", "2",
            "--out", td.join("campaign-" + key.replace(" ", "-"))]
    for d in devs:
        args += ["--device", d]
    env = plain_env()
    env["ACT_BIN"] = itest.bin_dir()
    r = itest.run(args, timeout=120, env=env)
    detail = r.describe()
    c.eq("[act_certify, %s] exit status" % key, 2, r.rc, detail)
    c.check(re.search(pattern, r.err), "[act_certify, %s] no message "
            "matching %r" % (key, pattern), detail)
    c.check("verdict:" not in r.out, "[act_certify, %s] a verdict" % key,
            detail)
    print("[act_certify, %s] exit %s: %s" % (key, r.rc, r.err.strip()[:300]))


# ----------------------------------------------------------------------------
# Loop devices.

class Loops:
    """Loop devices attached here, detached at the end."""

    def __init__(self, c):
        self.c = c
        self.devs = []

    def attach(self, path, *opts):
        r = itest.sh(["losetup", "--find", "--show"] + list(opts) + [path])
        dev = r.stdout.strip()
        if r.returncode != 0 or not dev.startswith("/dev/loop"):
            self.c.skip_part("loop device", "losetup failed: %s" %
                             r.stderr.strip())
            return None
        self.devs.append(dev)
        return dev

    def detach(self, dev):
        if dev in self.devs:
            itest.loop_detach(dev)
            self.devs.remove(dev)

    def close(self):
        for d in list(self.devs):
            self.detach(d)


def check_loops(c, td, progs, loops):
    img = td.join("two-loops.img")
    itest.fill_file(img, SIZE_MB * MB, b"\x5a")
    a = loops.attach(img)
    a2 = loops.attach(img) if a is not None else None
    if a2 is None:
        return False
    before = itest.sha256_file(img)
    st = os.stat(img)
    same = (r"are the same drive \(loop devices over the same file, inode "
            r"%d on device %d:%d\) - name each drive once" % (
                st.st_ino, os.major(st.st_dev), os.minor(st.st_dev)))
    same_config(c, td, progs, "two loop devices over one file", a, a2, same)

    # As act_certify holds a device between two steps.
    fd = os.open(a, os.O_RDWR | os.O_EXCL)
    try:
        r = run(args_for(progs, "act_storage", td, "a-held", [a2]))
        check_refused(c, "loop A held by this script, act_storage on A2", r,
                      r"device %s is the same drive as loop device %s \(both "
                      r"over inode %d on device %d:%d\), which %s" % (
                          re.escape(a2), re.escape(a), st.st_ino,
                          os.major(st.st_dev), os.minor(st.st_dev),
                          IN_USE % (re.escape(SELF), os.getpid())))
    finally:
        os.close(fd)

    certify_refused(c, td, "two loop devices", [a, a2],
                    "devices " + re.escape(a) + " and " + re.escape(a2) +
                    " " + same)
    c.eq("[two loop devices] checksum of the file", before,
         itest.sha256_file(img))

    while_running(c, td, progs, "loop A running", a, [
        ("act_storage", a2, held_by_first(a2)),
        ("act_prep", a2, held_by_first(a2))])
    loops.detach(a2)
    loops.detach(a)
    return True


def check_mounted_sibling(c, td, progs, loops):
    img = td.join("mounted-sibling.img")
    itest.fill_file(img, 32 * MB, b"\0")
    b2 = loops.attach(img)
    if b2 is None:
        return
    mnt = td.join("sibling-mnt")
    os.mkdir(mnt)
    r = itest.sh(["mkfs.ext4", "-q", "-F", b2])
    if r.returncode != 0 or itest.sh(["mount", "-o", "ro", b2,
                                      mnt]).returncode != 0:
        c.skip_part("mounted sibling", "mkfs.ext4 or mount failed")
        loops.detach(b2)
        return
    try:
        b = loops.attach(img)
        if b is None:
            return
        before = itest.sha256_file(img)
        r = run(args_for(progs, "act_storage", td, "sibling", [b]))
        check_refused(c, "loop B2 mounted, act_storage on B", r,
                      r"device %s is the same drive as loop device %s \(both "
                      r"over .*\), which is in use \(%s mounted on %s\) - "
                      r"refusing to write to it" % (
                          re.escape(b), re.escape(b2), re.escape(b2),
                          re.escape(mnt)))
        loops.detach(b)
    finally:
        itest.umount(mnt)
        loops.detach(b2)
    c.eq("[mounted sibling] checksum of the file", before,
         itest.sha256_file(img))


def check_file_then_loop(c, td, progs, loops):
    f = td.join("file-then-loop.img")
    itest.fill_file(f, SIZE_MB * MB, b"\x5a")
    run1 = itest.Running([progs["act_storage"], config(td, "ftl-1", [f])],
                         "start time = ", env=plain_env(),
                         timeout=RUN_TIMEOUT)
    loop = None
    try:
        started = run1.wait_started()
        c.check(started, "[file, then a loop device] the first did not "
                "start")
        if started:
            loop = loops.attach(f)
            if loop is not None:
                r = run(args_for(progs, "act_storage", td, "ftl-2", [loop]))
                check_refused(c, "act_storage on a file, then on a loop "
                              "device over it", r, r"device %s is a loop "
                              r"device over %s, which %s" % (
                                  re.escape(loop), re.escape(f),
                                  IN_USE % ("act_storage", run1.p.pid)))
    finally:
        r1 = run1.finish()
        if loop is not None:
            loops.detach(loop)
    c.eq("[file, then a loop device] the first's exit status", 0, r1.rc,
         r1.describe())


def check_disjoint_loops(c, td, progs, loops):
    """The control: two loop devices over the two halves of one file are
    two drives, as two partitions are."""
    img = td.join("halves.img")
    itest.fill_file(img, SIZE_MB * MB, b"\x5a")
    half = str(SIZE_MB // 2 * MB)
    lo = loops.attach(img, "--sizelimit", half)
    hi = loops.attach(img, "--offset", half, "--sizelimit", half) \
        if lo is not None else None
    if hi is None:
        return
    check_ran(c, "two halves of one file in one config", itest.run(
        args_for(progs, "act_storage", td, "halves", [lo, hi]),
        timeout=RUN_TIMEOUT, env=plain_env()))
    jobs = {n: [progs["act_storage"], config(td, "half-" + n, [d])]
            for n, d in (("lo", lo), ("hi", hi))}
    results = itest.run_parallel(jobs, timeout=RUN_TIMEOUT,
                                 envs={n: plain_env() for n in jobs})
    for n in sorted(results):
        check_ran(c, "half %s, side by side with the other" % n, results[n])
    loops.detach(hi)
    loops.detach(lo)


# ----------------------------------------------------------------------------
# An overlay file system.

def mount_overlay(c, td):
    for d in ("lower", "upper", "work", "ov"):
        os.mkdir(td.join(d))
    r = itest.sh(["mount", "-t", "overlay", "overlay", "-o",
                  "lowerdir=%s,upperdir=%s,workdir=%s" % (
                      td.join("lower"), td.join("upper"), td.join("work")),
                  td.join("ov")])
    if r.returncode != 0:
        c.skip_part("overlay", "mount failed: %s" % r.stderr.strip())
        return None
    return td.join("ov")


def check_overlay(c, td, progs):
    mnt = mount_overlay(c, td)
    if mnt is None:
        return False
    try:
        up = td.join("upper", "f.img")
        itest.fill_file(up, SIZE_MB * MB, b"\x5a")
        ov = os.path.join(mnt, "f.img")
        before = itest.sha256_file(up)
        st = os.stat(up)
        same = (r"are the same file \(inode %d on device %d:%d, %s through "
                r"an overlay file system\) - name each drive once" % (
                    st.st_ino, os.major(st.st_dev), os.minor(st.st_dev),
                    re.escape(ov)))
        same_config(c, td, progs, "an overlay file and its upper file", ov,
                    up, same)
        # As act_certify holds a device for a whole campaign.
        for held, other, what in ((ov, up, "an overlay name of it"),
                                  (up, ov, "its upper-layer file")):
            fd = os.open(held, os.O_RDWR)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                r = run(args_for(progs, "act_storage", td, "ov-held",
                                 [other]))
                check_refused(c, "%s held by this script, act_storage on %s"
                              % (held, other), r,
                              r"device %s is in use by %s \(pid %d\) through "
                              r"another name, %s \(%s\)" % (
                                  re.escape(other), re.escape(SELF),
                                  os.getpid(), re.escape(held), what))
            finally:
                os.close(fd)
        certify_refused(c, td, "overlay and upper", [ov, up],
                        "devices " + re.escape(ov) + " and " +
                        re.escape(up) + " " + same)
        c.eq("[overlay] checksum of the upper file", before,
             itest.sha256_file(up))
        for first, second in ((ov, up), (up, ov)):
            while_running(c, td, progs, "%s running" % (
                "overlay" if first == ov else "upper"), first, [
                ("act_storage", second, held_by_first(second)),
                ("act_prep", second, held_by_first(second))])
    finally:
        itest.umount(mnt)
    return True


def main():
    if os.geteuid() != 0:
        itest.skip("root only: loop devices and an overlay mount")
    c = itest.Checker("test_drive_aliases")
    progs = {p: itest.binary(p) for p in ("act_storage", "act_index",
                                          "act_prep")}
    itest.shim_path()
    with itest.TempDir() as td:
        Traces.td = td
        loops = Loops(c)
        try:
            ran = check_loops(c, td, progs, loops)
            if ran:
                check_mounted_sibling(c, td, progs, loops)
                check_file_then_loop(c, td, progs, loops)
                check_disjoint_loops(c, td, progs, loops)
            ran = check_overlay(c, td, progs) or ran
        finally:
            loops.close()
        if not ran:
            itest.skip("neither losetup nor the overlay mount worked here")
    c.finish()


if __name__ == "__main__":
    main()
