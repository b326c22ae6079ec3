"""Description: act_prep and act_index on loop devices, and act_prep refusing a mounted one.

Root only, with losetup (else skip, exit 77). (1) A 64 MiB + 512 KiB file
(not a multiple of 1 MiB, so act_prep's tail path runs) filled with 0xA5
on a fresh loop device: `act_prep /dev/loopN` exits 0 with `/dev/loopN
size = 67633152 bytes, 516 large blocks`, cleaning, salting; after detach
the backing file is fully salted (no 4 KiB block all zero or 0xA5, no two
128 KiB blocks identical). `--size` with a block device: exit 1 (usage), nothing
written. (2) An ext4 image on a loop device mounted read-only on a temp
dir: act_prep on the device exits 2 with an ERROR naming the device and the
mount point, prints no `cleaning device`, and the image is byte-identical
after unmount. (3) act_index for 3 s on the prepared loop device
(re-attached): exit 0, device line `/dev/loopN size = 67633152 bytes`,
reports after 1..3 sec. Loop devices are always detached and the mount
undone in finally blocks; no other device is touched.
"""

import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import itest  # noqa: E402

MIB = 1024 * 1024
SIZE = 64 * MIB + 512 * 1024
OLD = b"\xa5"


def main():
    if os.geteuid() != 0:
        itest.skip("not root: no loop devices")
    if shutil.which("losetup") is None:
        itest.skip("losetup not installed")
    c = itest.Checker("test_prep_loop")
    prep = itest.binary("act_prep")
    index = itest.binary("act_index")
    with itest.TempDir() as td:
        img = td.join("prep.img")
        itest.fill_file(img, SIZE, OLD)
        dev, why = itest.loop_attach(img)
        if dev is None:
            itest.skip("losetup --find --show does not work here: %s" % why)
        try:
            prepared = check_prep(c, prep, dev, img)
        finally:
            itest.loop_detach(dev)
        if prepared:
            itest.sh(["sync"])
            problems = itest.salt_problems(img, old_byte=OLD, size=SIZE)
            c.check(problems == [], "loop prep: backing file not fully "
                    "salted", "\n".join(problems))
            c.eq("loop prep: backing file size", SIZE, os.path.getsize(img))

        check_mounted(c, prep, td)

        dev, why = itest.loop_attach(img)
        if dev is None:
            c.fail("re-attaching %s failed: %s" % (img, why))
        else:
            try:
                check_index(c, index, td, dev)
            finally:
                itest.loop_detach(dev)
    c.finish()


def check_prep(c, prog, dev, img):
    # --size applies to files only: refused before anything is written.
    r = itest.run([prog, "--size", "1M", dev], timeout=30)
    c.eq("--size with a block device: exit status (a usage error)", 1, r.rc,
         r.describe())
    c.check("applies to files only" in r.err, "--size with a block device: "
            "no message saying why", r.describe())
    c.check("cleaning device" not in r.out, "--size with a block device: "
            "cleaning started", r.describe())

    r = itest.run([prog, dev], timeout=120)
    detail = r.describe()
    if not c.eq("loop prep: exit status", 0, r.rc, detail):
        return False
    c.eq("loop prep: stdout", [
        "%s size = %d bytes, %d large blocks" % (dev, SIZE, SIZE // 131072),
        "cleaning device %s" % dev, "salting device %s" % dev],
        r.out.rstrip("\n").split("\n"), detail)
    for ph in ("cleaning", "salting"):
        c.check(any(l.startswith("act_prep: %s %s done: %d bytes" % (
            ph, dev, SIZE)) for l in r.err.split("\n")),
            "loop prep: no '%s ... done' summary on stderr" % ph, detail)
    print("loop prep on %s: %s" % (dev, r.err.strip().replace("\n", " | ")))
    return True


def check_mounted(c, prog, td):
    with itest.MountedExt4(c, td) as m:
        if m.dev is None:
            return
        m.check_refused(itest.run([prog, m.dev], timeout=60),
                        "cleaning device")


def check_index(c, prog, td, dev):
    cfg = itest.write_config(td.join("index.conf"), [
        ("device-names", dev), ("service-threads", 4),
        ("test-duration-sec", 3), ("read-reqs-per-sec", 2000),
        ("write-reqs-per-sec", 1000)])
    r = itest.run([prog, cfg], timeout=40)
    detail = r.describe()
    if not c.eq("loop act_index: exit status", 0, r.rc, detail):
        return
    try:
        log = itest.parse_index_log(r.out)
    except itest.ParseError as e:
        c.fail("loop act_index: log does not parse: %s" % e, detail)
        return
    c.eq("loop act_index: device lines", ["%s size = %d bytes" % (dev, SIZE)],
         log.devices)
    c.eq("loop act_index: file-size-mbytes not echoed", None,
         log.cfg("file-size-mbytes"))
    c.eq("loop act_index: histogram names",
         ["reads", dev + "-reads", "writes", dev + "-writes"], log.names)
    c.eq("loop act_index: reports", [1, 2, 3],
         [rp.sec for rp in log.reports])
    c.eq("loop act_index: tail", [], log.tail)
    if log.reports:
        last = log.reports[-1]
        for name in log.names:
            c.check(last.hists[name].total > 0, "loop act_index: %s has no "
                    "data" % name, detail)
    print("loop act_index on %s: exit %s, %s" % (dev, r.rc, log.devices[0]))


if __name__ == "__main__":
    main()
