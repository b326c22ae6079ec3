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

import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import itest  # noqa: E402


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
        dev, why = itest.loop_attach(img)
        if dev is None:
            itest.skip("losetup --find --show does not work here: %s" % why)
        try:
            check_run(c, prog, td, dev)
        finally:
            itest.loop_detach(dev)

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
    with itest.MountedExt4(c, td) as m:
        if m.dev is None:
            return
        cfg = itest.write_config(td.join("mounted.conf"), [
            ("device-names", m.dev), ("service-threads", 4),
            ("test-duration-sec", 2), ("read-reqs-per-sec", 2000),
            ("write-reqs-per-sec", 1000)])
        m.check_refused(itest.run([prog, cfg], timeout=30), "after 1 sec:")


if __name__ == "__main__":
    main()
