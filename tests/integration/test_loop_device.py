"""Description: act_storage on a real block device (loop), and refusing a mounted one.

Root only, with losetup (else skip, exit 77). A 96 MiB file on a loop
device: a 4 s 1x run (read 2000 write 1000) exits 0 with the device line
`size = 100663296 bytes, 768 large blocks`. A second loop device holding
an ext4 file system mounted (read-only, so the image only changes if
act_storage writes) on a temp dir: act_storage must exit 2 with an ERROR
naming the device and the mount point, and the backing file must be
byte-identical afterwards. Loop devices are always detached and the mount
undone in finally blocks; no other device is touched.
"""

import hashlib
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import itest  # noqa: E402


def sh(args, timeout=60):
    return subprocess.run(args, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True,
                          timeout=timeout)


def attach(path):
    r = sh(["losetup", "--find", "--show", path])
    if r.returncode != 0:
        return None, r.stderr.strip()
    dev = r.stdout.strip()
    if not dev.startswith("/dev/loop"):
        return None, "unexpected losetup output %r" % r.stdout
    return dev, None


def detach(dev):
    for _ in range(20):
        if sh(["losetup", "-d", dev]).returncode == 0:
            return
        time.sleep(0.2)
    print("warning: could not detach %s" % dev)


def umount(path):
    for _ in range(20):
        if sh(["umount", path]).returncode == 0:
            return True
        time.sleep(0.2)
    print("warning: could not unmount %s" % path)
    return False


def sha(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def main():
    if os.geteuid() != 0:
        itest.skip("not root: no loop devices")
    if shutil.which("losetup") is None:
        itest.skip("losetup not installed")
    c = itest.Checker("test_loop_device")
    prog = itest.binary()
    with itest.TempDir() as td:
        img = td.join("loop96.img")
        with open(img, "wb") as f:
            f.truncate(96 * 1024 * 1024)
        dev, why = attach(img)
        if dev is None:
            itest.skip("losetup --find --show does not work here: %s" % why)
        try:
            check_run(c, prog, td, dev)
        finally:
            detach(dev)

        check_mounted(c, prog, td)
    c.finish()


def check_run(c, prog, td, dev):
    cfg = itest.write_config(td.join("loop.conf"), [
        ("device-names", dev), ("service-threads", 4),
        ("test-duration-sec", 4), ("read-reqs-per-sec", 2000),
        ("write-reqs-per-sec", 1000)])
    r = itest.run([prog, cfg], timeout=40)
    detail = r.describe()
    if not c.eq("loop run: exit status", 0, r.rc, detail):
        return
    try:
        log = itest.parse_log(r.out)
    except itest.ParseError as e:
        c.fail("loop run: log does not parse: %s" % e, detail)
        return
    m = itest.DEVICE_LINE_RE.match(log.devices[0]) if log.devices else None
    if c.check(m is not None, "loop run: no device line", detail):
        c.eq("loop run: device line (name, size, large blocks, buffered)",
             (dev, "100663296", "768", None),
             (m.group("name"), m.group("size"), m.group("nlb"),
              m.group("buffered")), log.devices[0])
        c.check(m.group("minio") in ("512", "1024", "2048", "4096"),
                "loop run: minimum IO size %s" % m.group("minio"))
    c.eq("loop run: file-size-mbytes not echoed", None,
         log.cfg("file-size-mbytes"))
    c.eq("loop run: reports", [1, 2, 3, 4], [rp.sec for rp in log.reports])
    c.eq("loop run: tail", [], log.tail)
    if log.reports:
        last = log.reports[-1]
        for name in ("reads", "large-block-reads", "large-block-writes"):
            c.check(name in last.hists and last.hists[name].total > 0,
                    "loop run: %s has no data" % name, detail)
    print("loop run on %s: exit %s, %s" % (dev, r.rc, log.devices[0]))


def check_mounted(c, prog, td):
    if shutil.which("mkfs.ext4") is None or shutil.which("mount") is None:
        c.note("mounted-device part skipped: no mkfs.ext4 or mount")
        return
    img = td.join("ext4.img")
    mnt = td.join("mnt")
    os.mkdir(mnt)
    with open(img, "wb") as f:
        f.truncate(32 * 1024 * 1024)
    dev, why = attach(img)
    if dev is None:
        c.note("mounted-device part skipped: losetup failed: %s" % why)
        return
    mounted = False
    try:
        r = sh(["mkfs.ext4", "-q", "-F", dev])
        if r.returncode != 0:
            c.note("mounted-device part skipped: mkfs.ext4 failed: %s"
                   % r.stderr.strip())
            return
        r = sh(["mount", "-o", "ro", dev, mnt])
        if r.returncode != 0:
            c.note("mounted-device part skipped: mount not permitted: %s"
                   % r.stderr.strip())
            return
        mounted = True
        sh(["sync"])
        before = sha(img)

        cfg = itest.write_config(td.join("mounted.conf"), [
            ("device-names", dev), ("service-threads", 4),
            ("test-duration-sec", 2), ("read-reqs-per-sec", 2000),
            ("write-reqs-per-sec", 1000)])
        r = itest.run([prog, cfg], timeout=30)
        detail = r.describe()
        c.eq("mounted device: exit status", 2, r.rc, detail)
        errs = [l for l in r.out.split("\n") if l.startswith("ERROR:")]
        c.check(any(dev in l and mnt in l for l in errs),
                "mounted device: no ERROR line naming %s and the mount "
                "point %s" % (dev, mnt), detail)
        c.check("after 1 sec:" not in r.out, "mounted device: the run "
                "started", detail)
        print("mounted %s: exit %s: %s" % (dev, r.rc,
                                           errs[0] if errs else "-"))
    finally:
        if mounted:
            mounted = not umount(mnt)
        if not mounted:
            detach(dev)
    if not mounted:
        sh(["sync"])
        c.eq("mounted device: backing file checksum after unmount", before,
             sha(img))


if __name__ == "__main__":
    main()
