"""Description: files and devices for the integration tests (through
itest.py, which re-exports them: itest.fill_file, itest.loop_attach, ...).

Not a test itself. act_prep's results (fill_file, salt_problems), a
directory's state before and after (dir_state, dir_state_diff),
sha256_file; loop devices and mounts, root only (loop_attach,
loop_detach, umount, loop_attach_readonly) and a mounted ext4 image
(MountedExt4) for the "refuse a mounted device" tests.
"""

import hashlib
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "lib"))
from checker import NOT_ROOT  # noqa: E402

# ----------------------------------------------------------------------------
# act_prep results, files and directories.

def fill_file(path, size, byte=b"\xa5"):
    """A regular file of exactly size bytes, every byte `byte`, on disk."""
    chunk = byte * (1024 * 1024)
    with open(path, "wb") as f:
        left = size
        while left > 0:
            n = min(left, len(chunk))
            f.write(chunk[:n])
            left -= n
        f.flush()
        os.fsync(f.fileno())


def salt_problems(path, old_byte=None, size=None, max_each=5):
    """Checks that a prepared device (file or block device) is fully salted
    over its first size bytes (default: all of it): no 4 KiB block -
    including a partial last one - all zero or (old_byte) all the old fill
    byte, no two whole 128 KiB blocks identical. Returns a list of problem
    strings (empty: salted)."""
    zero4 = bytes(4096)
    old4 = None if old_byte is None else old_byte * 4096
    problems = []
    counts = {"zero": 0, "old": 0, "dup": 0}
    seen = {}
    off = 0
    with open(path, "rb") as f:
        while size is None or off < size:
            want = 131072 if size is None else min(131072, size - off)
            blk = f.read(want)
            if not blk:
                break
            for k in range(0, len(blk), 4096):
                b = blk[k:k + 4096]
                kind = None
                if b == zero4[:len(b)]:
                    kind = "zero"
                elif old4 is not None and b == old4[:len(b)]:
                    kind = "old"
                if kind is not None:
                    counts[kind] += 1
                    if counts[kind] <= max_each:
                        problems.append("%d-byte block at offset %d is all %s"
                                        % (len(b), off + k, "zero" if
                                           kind == "zero" else
                                           "the old fill byte"))
            if len(blk) == 131072:
                h = hashlib.sha256(blk).digest()
                if h in seen:
                    counts["dup"] += 1
                    if counts["dup"] <= max_each:
                        problems.append("128 KiB block at offset %d is "
                                        "identical to the one at offset %d"
                                        % (off, seen[h]))
                else:
                    seen[h] = off
            off += len(blk)
    if size is not None and off != size:
        problems.append("only %d of %d bytes could be read" % (off, size))
    for kind, n in counts.items():
        if n > max_each:
            problems.append("... %d %s blocks in all" % (n, kind))
    return problems


def dir_state(root):
    """{relative path: ('dir',) or (size, mtime_ns, sha256)} of everything
    under root: compare before/after to show nothing was created or
    modified."""
    state = {}
    for d, dirs, files in os.walk(root):
        for name in dirs:
            p = os.path.join(d, name)
            state[os.path.relpath(p, root)] = ("dir",)
        for name in files:
            p = os.path.join(d, name)
            st = os.lstat(p)
            h = hashlib.sha256()
            with open(p, "rb") as f:
                for chunk in iter(lambda: f.read(1 << 20), b""):
                    h.update(chunk)
            state[os.path.relpath(p, root)] = (st.st_size, st.st_mtime_ns,
                                               h.hexdigest())
    return state


def dir_state_diff(before, after):
    """Human-readable differences between two dir_state results ('' if
    none)."""
    out = []
    for k in sorted(set(before) | set(after)):
        if k not in before:
            out.append("created: %s" % k)
        elif k not in after:
            out.append("removed: %s" % k)
        elif before[k] != after[k]:
            out.append("modified: %s %r -> %r" % (k, before[k][:2],
                                                   after[k][:2]))
    return "\n".join(out)


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


# ----------------------------------------------------------------------------
# Loop devices and mounts (root only; callers skip when they fail).

def sh(args, timeout=60):
    return subprocess.run(args, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True,
                          timeout=timeout)


def loop_attach(path, read_only=False):
    """Attach a file to a free loop device (read-only with read_only):
    (device, None) or (None, why)."""
    if shutil.which("losetup") is None:
        return None, "losetup not installed"
    try:
        r = sh(["losetup"] + (["--read-only"] if read_only else []) +
               ["--find", "--show", path])
    except (OSError, subprocess.SubprocessError) as e:
        return None, str(e)
    if r.returncode != 0:
        return None, r.stderr.strip()
    dev = r.stdout.strip()
    if not dev.startswith("/dev/loop"):
        return None, "unexpected losetup output %r" % r.stdout
    return dev, None


def loop_detach(dev):
    """Detach a loop device we attached (retried while it is busy)."""
    for _ in range(25):
        if sh(["losetup", "-d", dev]).returncode == 0:
            return True
        time.sleep(0.2)
    print("warning: could not detach %s" % dev)
    return False


def umount(path):
    for _ in range(25):
        if sh(["umount", path]).returncode == 0:
            return True
        time.sleep(0.2)
    print("warning: could not unmount %s" % path)
    return False


# ----------------------------------------------------------------------------
# A mounted device (results are collected by Checker, tests/lib/checker.py).

class MountedExt4:
    """A loop device holding an ext4 file system mounted read-only on a
    temp dir, for the "refuse a mounted device" tests (root only). Use as
    `with MountedExt4(c, td) as m:`; m.dev is None (a part skipped on c)
    when it could not be set up. On exit it unmounts, detaches, and checks that
    the image is byte-identical to what it was once mounted: a read-only
    mount only changes if the program under test wrote to the device."""

    def __init__(self, checker, td, mib=32):
        self.c = checker
        self.img = td.join("ext4.img")
        self.mnt = td.join("mnt")
        self.mib = mib
        self.dev = None
        self._loop = None
        self._mounted = False
        self._before = None

    def _skip(self, why):
        self.c.skip_part("mounted device", why)
        self.dev = None
        return self

    def __enter__(self):
        if os.geteuid() != 0:
            return self._skip(NOT_ROOT)
        if shutil.which("mkfs.ext4") is None or shutil.which("mount") is None:
            return self._skip("no mkfs.ext4 or mount")
        os.mkdir(self.mnt)
        with open(self.img, "wb") as f:
            f.truncate(self.mib * 1024 * 1024)
        self._loop, why = loop_attach(self.img)
        if self._loop is None:
            return self._skip("losetup failed: %s" % why)
        r = sh(["mkfs.ext4", "-q", "-F", self._loop])
        if r.returncode != 0:
            return self._skip("mkfs.ext4 failed: %s" % r.stderr.strip())
        r = sh(["mount", "-o", "ro", self._loop, self.mnt])
        if r.returncode != 0:
            return self._skip("mount not permitted: %s" % r.stderr.strip())
        self._mounted = True
        sh(["sync"])
        self._before = sha256_file(self.img)
        self.dev = self._loop
        return self

    def __exit__(self, *exc):
        if self._mounted:
            self._mounted = not umount(self.mnt)
        if self._loop is not None and not self._mounted:
            loop_detach(self._loop)
        if self._before is not None and not self._mounted:
            sh(["sync"])
            self.c.eq("mounted device: image checksum after unmount",
                      self._before, sha256_file(self.img))
        return False

    def check_refused(self, r, started):
        """r: the Result of running the program on self.dev; started: a
        text whose presence on stdout means it began its work."""
        detail = r.describe()
        self.c.eq("mounted device: exit status", 2, r.rc, detail)
        errs = [l for l in (r.out + r.err).split("\n")
                if l.startswith("ERROR:")]
        self.c.check(any(self.dev in l and self.mnt in l for l in errs),
                     "mounted device: no ERROR line naming %s and the mount "
                     "point %s" % (self.dev, self.mnt), detail)
        self.c.check(started not in r.out, "mounted device: the program "
                     "started its work", detail)
        print("mounted %s: exit %s: %s" % (self.dev, r.rc,
                                           errs[0] if errs else "-"))


def loop_attach_readonly(path):
    """Attach a file to a free loop device read-only (losetup -r):
    (device, None) or (None, why)."""
    return loop_attach(path, read_only=True)
