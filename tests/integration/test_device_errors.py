"""Description: act_storage refuses unusable devices with exit 2, writing nothing.

A missing file without file-size-mbytes (not created), a read-only file
(run as user nobody via setpriv when we are root, since root may write a
0444 file), a directory, an empty file and a file smaller than one large
block: each must exit 2 with an `ERROR:` line (stdout and stderr) naming
the device, print no report, and leave every file byte-identical.
"""

import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import itest  # noqa: E402

NOBODY = 65534


def config_lines(dev, extra=()):
    return ["device-names: %s" % dev, "service-threads: 2",
            "test-duration-sec: 2", "read-reqs-per-sec: 200",
            "write-reqs-per-sec: 100"] + list(extra)


def check_refused(c, what, r, dev, words=()):
    detail = r.describe()
    c.eq("[%s] exit status" % what, 2, r.rc, detail)
    out_err = [l for l in r.out.split("\n") if l.startswith("ERROR:")]
    err_err = [l for l in r.err.split("\n") if l.startswith("ERROR:")]
    c.check(any(dev in l and all(w in l for w in words) for l in out_err),
            "[%s] no ERROR line on stdout naming %s %s" % (what, dev,
                                                          list(words)),
            detail)
    c.check(any(dev in l for l in err_err),
            "[%s] no ERROR line on stderr naming %s" % (what, dev), detail)
    c.check("after 1 sec:" not in r.out, "[%s] the run started" % what,
            detail)
    print("[%s] exit %s: %s" % (what, r.rc, out_err[0] if out_err else "-"))


def can_setpriv():
    if shutil.which("setpriv") is None:
        return False
    try:
        p = subprocess.run(["setpriv", "--reuid=%d" % NOBODY,
                            "--regid=%d" % NOBODY, "--clear-groups", "true"],
                           stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, timeout=10)
        return p.returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


def main():
    c = itest.Checker("test_device_errors")
    prog = itest.binary()
    with itest.TempDir() as td:
        # 1. Missing file, no file-size-mbytes: not created.
        dev = td.join("missing_dev")
        cfg = itest.write_config(td.join("missing.conf"), config_lines(dev))
        r = itest.run([prog, cfg], timeout=20)
        check_refused(c, "missing file", r, dev)
        c.check(not os.path.lexists(dev), "[missing file] %s was created"
                % dev)

        # 2. Directory.
        dev = td.join("a_directory")
        os.mkdir(dev)
        cfg = itest.write_config(td.join("dir.conf"), config_lines(dev))
        r = itest.run([prog, cfg], timeout=20)
        check_refused(c, "directory", r, dev)
        c.eq("[directory] contents", [], os.listdir(dev))

        # 3. Empty file.
        dev = td.join("empty_dev")
        open(dev, "wb").close()
        os.utime(dev, ns=(10 ** 18, 10 ** 18))
        before = itest.file_state(dev)
        cfg = itest.write_config(td.join("empty.conf"), config_lines(dev))
        r = itest.run([prog, cfg], timeout=20)
        check_refused(c, "empty file", r, dev)
        c.check(itest.file_state(dev) == before, "[empty file] modified")

        # 4. Smaller than one large block (64 KiB < 128 KiB).
        dev = td.join("small_dev")
        with open(dev, "wb") as f:
            f.write(os.urandom(64 * 1024))
        os.utime(dev, ns=(10 ** 18, 10 ** 18))
        before = itest.file_state(dev)
        cfg = itest.write_config(td.join("small.conf"), config_lines(dev))
        r = itest.run([prog, cfg], timeout=20)
        check_refused(c, "smaller than a large block", r, dev)
        c.check(itest.file_state(dev) == before,
                "[smaller than a large block] modified")

        # 5. Not writable.
        check_unwritable(c, prog, td)

        # 6. Several devices, the last one can't be opened (its directory
        # does not exist): the run is refused, so the others must not have
        # been created or resized by file-size-mbytes either.
        new1 = td.join("multi_new")
        exist = td.join("multi_exist")
        bad = td.join("no_such_dir", "dev")
        with open(exist, "wb") as f:
            f.write(os.urandom(2 * 1024 * 1024))
        os.utime(exist, ns=(10 ** 18, 10 ** 18))
        before = itest.file_state(exist)
        cfg = itest.write_config(td.join("multi.conf"), config_lines(
            "%s %s %s" % (new1, exist, bad), ["file-size-mbytes: 1"]))
        r = itest.run([prog, cfg], timeout=20)
        check_refused(c, "third device can't be opened", r, bad)
        c.check(not os.path.lexists(new1), "[third device can't be opened] "
                "the refused run created the first device file %s" % new1)
        after = itest.file_state(exist)
        c.check(after == before, "[third device can't be opened] the "
                "refused run modified the second device file (size %d -> "
                "%s bytes; file-size-mbytes applied before all devices were "
                "checked)" % (len(before[0]), len(after[0]) if after else
                              None))
    c.finish()


def check_unwritable(c, prog, td):
    what = "read-only file"
    sub = td.join("ro")
    os.mkdir(sub)
    dev = os.path.join(sub, "ro_dev")
    with open(dev, "wb") as f:
        f.write(os.urandom(1024 * 1024))
    os.chmod(dev, 0o444)
    os.utime(dev, ns=(10 ** 18, 10 ** 18))
    before = itest.file_state(dev)
    cfg = itest.write_config(os.path.join(sub, "ro.conf"), config_lines(dev))
    os.chmod(cfg, 0o644)

    if os.geteuid() == 0:
        if not can_setpriv():
            c.skip_part(what, "running as root and setpriv to nobody does "
                        "not work")
            return
        # nobody must reach the binary, the config and the device.
        local_prog = os.path.join(sub, "act_storage")
        shutil.copy(prog, local_prog)
        os.chmod(local_prog, 0o755)
        os.chmod(sub, 0o755)
        os.chmod(td.path, 0o755)
        r = itest.run([local_prog, cfg], timeout=20,
                      prefix=["setpriv", "--reuid=%d" % NOBODY,
                              "--regid=%d" % NOBODY, "--clear-groups"])
        if r.rc != 2 and "Permission denied" in r.out + r.err and \
                dev not in r.out + r.err:
            c.skip_part(what, "nobody cannot run the copied binary or read "
                        "the config")
            return
    else:
        if os.access(dev, os.W_OK):
            c.skip_part(what, "a 0444 file is writable here")
            return
        r = itest.run([prog, cfg], timeout=20)
    check_refused(c, what, r, dev)
    c.check(itest.file_state(dev) == before, "[%s] modified" % what)
    os.chmod(dev, 0o644)


if __name__ == "__main__":
    main()
