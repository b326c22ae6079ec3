"""Description: a device file in /dev/shm (a tmpfs) is a trial device; a missing name in /dev itself is still refused.

Cases (issue 21: "act never creates a file under /dev" is for /dev itself
and devtmpfs/devpts only, docs/act_storage.md "Devices"):

- /dev/shm/act-test-<pid>-*.img, missing, with file-size-mbytes 16:
  act_storage and act_index run for 1 s (exit 0, one report or more, no
  ERROR line), `--check` of each exits 0, and `act_prep --size 16M` on such
  a name exits 0; an existing file there (16 MiB) runs too. Every file is
  created by the test or the programs and removed at the end;
- /dev/act-test-<pid>-missing (checked not to exist) with file-size-mbytes
  16: act_storage, act_index, their --check and `act_prep --size 16M` exit
  2 with `device NAME does not exist - check the name (act never creates a
  file under /dev)`, and nothing is created;
- /dev/null: exit 2 with `device /dev/null is neither a block device nor a
  regular file` (act_storage, act_index, act_prep).

Skipped (77) when /dev/shm is not a writable tmpfs directory.
"""

import glob
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import itest  # noqa: E402

SHM = "/dev/shm"
TAG = "act-test-%d" % os.getpid()
RUN_TIMEOUT = 60


def shm_is_tmpfs():
    try:
        with open("/proc/self/mounts") as f:
            for line in f:
                parts = line.split()
                if len(parts) >= 3 and parts[1] == SHM and parts[2] == "tmpfs":
                    return True
    except OSError:
        pass
    return False


def config(td, name, dev):
    return itest.write_config(td.join(name + ".conf"), [
        ("device-names", dev), ("file-size-mbytes", 16),
        ("service-threads", 2), ("test-duration-sec", 1),
        ("read-reqs-per-sec", 200), ("write-reqs-per-sec", 100)])


def errors(text):
    return [l for l in text.split("\n") if l.startswith("ERROR:")]


def check_runs(c, td, progs):
    for prog in ("act_storage", "act_index"):
        for kind in ("new", "existing"):
            dev = os.path.join(SHM, "%s-%s-%s.img" % (TAG, prog, kind))
            if kind == "existing":
                itest.fill_file(dev, 16 * 1024 * 1024, b"\x11")
            cfg = config(td, "%s-%s" % (prog, kind), dev)
            key = "%s %s %s" % (prog, kind, dev)
            r = itest.run([progs[prog], "--check", cfg], timeout=RUN_TIMEOUT)
            c.eq("[%s --check] exit status" % key, 0, r.rc, r.describe())
            r = itest.run([progs[prog], cfg], timeout=RUN_TIMEOUT)
            detail = r.describe()
            c.eq("[%s] exit status" % key, 0, r.rc, detail)
            c.eq("[%s] ERROR lines" % key, [], errors(r.out + r.err), detail)
            parse = itest.parse_index_log if prog == "act_index" else \
                itest.parse_log
            try:
                log = parse(r.out)
                c.check(len(log.reports) >= 1, "[%s] no report" % key, detail)
            except itest.ParseError as e:
                c.fail("[%s] log does not parse: %s" % (key, e), detail)
            print("[%s] exit %s" % (key, r.rc))
    dev = os.path.join(SHM, "%s-prep.img" % TAG)
    r = itest.run([progs["act_prep"], "--size", "16M", dev],
                  timeout=RUN_TIMEOUT)
    c.eq("[act_prep --size 16M %s] exit status" % dev, 0, r.rc, r.describe())
    size = os.path.getsize(dev) if os.path.exists(dev) else None
    c.eq("[act_prep %s] size" % dev, 16 * 1024 * 1024, size)
    print("[act_prep %s] exit %s, size %s" % (dev, r.rc, size))


def check_refused(c, td, progs):
    missing = "/dev/%s-missing" % TAG
    if os.path.lexists(missing):
        c.fail("%s exists before the test" % missing)
        return
    pattern = (r"^ERROR: device %s does not exist - check the name \(act "
               r"never creates a file under /dev\)$" % re.escape(missing))
    null_pattern = (r"^ERROR: device /dev/null is neither a block device "
                    r"nor a regular file$")
    cases = []
    for prog in ("act_storage", "act_index"):
        cfg = config(td, "missing-" + prog, missing)
        cases.append(("%s %s" % (prog, missing), [progs[prog], cfg], pattern))
        cases.append(("%s --check %s" % (prog, missing),
                      [progs[prog], "--check", cfg], pattern))
        cfg = config(td, "null-" + prog, "/dev/null")
        cases.append(("%s /dev/null" % prog, [progs[prog], cfg],
                      null_pattern))
    cases.append(("act_prep --size 16M %s" % missing,
                  [progs["act_prep"], "--size", "16M", missing], pattern))
    cases.append(("act_prep /dev/null", [progs["act_prep"], "/dev/null"],
                  null_pattern))
    for key, args, pat in cases:
        r = itest.run(args, timeout=RUN_TIMEOUT)
        errs = errors(r.err)
        c.eq("[%s] exit status" % key, 2, r.rc, r.describe())
        c.check(any(re.search(pat, l) for l in errs), "[%s] expected an "
                "ERROR line on stderr matching %r, actual %r" % (key, pat,
                                                                 errs))
        c.check(not os.path.lexists(missing), "[%s] %s was created" % (
            key, missing))
        print("[%s] exit %s: %s" % (key, r.rc, errs[0] if errs else
                                    r.err.strip()))


def main():
    if not os.path.isdir(SHM) or not os.access(SHM, os.W_OK) or \
            not shm_is_tmpfs():
        print("SKIP: %s is not a writable tmpfs directory" % SHM)
        sys.exit(itest.SKIP)
    c = itest.Checker("test_dev_shm")
    progs = {p: itest.binary(p) for p in ("act_storage", "act_index",
                                          "act_prep")}
    try:
        with itest.TempDir() as td:
            check_runs(c, td, progs)
            check_refused(c, td, progs)
    finally:
        for path in glob.glob(os.path.join(SHM, TAG + "-*")):
            os.unlink(path)
    c.finish()


if __name__ == "__main__":
    main()
