"""Description: signals during setup, mistyped and read-only devices leave every device as it was.

Cases:

- signal in setup: the test shim delays the first pread (the O_DIRECT
  probe of device setup) by 1.5 s; once the device file has its full size
  (file-size-mbytes 16, at ~0.5 s) the test sends SIGINT or SIGTERM.
  act_storage and act_index, each signal, on a device file that did not
  exist (new) and on a pre-existing 1 MiB file of random bytes the run grew
  to 16 MiB (grown) - 8 runs in parallel: exit 130 / 143, the log parses,
  has no report and ends with `stopped by signal SIGINT after 0 sec`
  (SIGTERM); the new file is gone; the grown file is back to 1 MiB with its
  old content. act_prep `--size 16M` on a new file, SIGINT the same way:
  exit 130, the file removed, and the output says `stopped by signal
  SIGINT` and that the devices were not prepared / no byte was written;
- mistyped /dev name: `device-names: /dev/nvme0n1x` (checked not to exist
  first) with file-size-mbytes 16 and without, act_storage and act_index,
  and `act_prep --size 16M /dev/nvme0n1x`: exit 2, `device /dev/nvme0n1x
  does not exist - check the name`, and nothing created under /dev;
- read-only loop device (root and losetup -r, else skipped with a note):
  act_storage, act_index and act_prep exit 2 with `is read-only`, the
  backing file unchanged; a regular file with mode 0444: exit 2 with
  `read-only (mode 0444)`, unchanged (as root too: the mode is checked,
  not only the open);
- a nonexistent file outside /dev without file-size-mbytes (act_storage,
  act_index; act_prep without --size): exit 2, the message says to check
  the name or set file-size-mbytes (--size for act_prep), nothing created.
"""

import os
import re
import signal
import stat
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import itest  # noqa: E402

MB = 1024 * 1024
RUN_TIMEOUT = 30
PROBE_FAULT = "count=1,delay_ms=1500"
BAD_DEV = "/dev/nvme0n1x"
SIGNALS = {"SIGINT": (signal.SIGINT, 130), "SIGTERM": (signal.SIGTERM, 143)}


def errors(text):
    return [l for l in text.split("\n") if l.startswith("ERROR:")]


def run_and_signal(args, watch, size, sig, env):
    """Start args (stdout, stderr to pipes); once the file watch has size
    bytes (and at least 0.5 s after the start, at most 1.2 s) send sig.
    Returns (Result, file size seen when the signal was sent)."""
    t0 = time.monotonic()
    p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         stdin=subprocess.DEVNULL, universal_newlines=True,
                         errors="replace", env=env)
    rd = itest.Reader(p)
    seen = None
    try:
        time.sleep(0.5)
        while True:
            try:
                seen = os.path.getsize(watch)
            except OSError:
                seen = None
            if seen == size or time.monotonic() - t0 > 1.2:
                break
            time.sleep(0.02)
        if p.poll() is None:
            p.send_signal(sig)
    finally:
        out, err, timed_out = rd.finish(RUN_TIMEOUT)
    return itest.Result(p.returncode, out, err, time.monotonic() - t0,
                        timed_out), seen


# ----------------------------------------------------------------------------
# Signals during setup.

def setup_signal_case(c, td, progs, prog, signame, kind, results):
    sig, _ = SIGNALS[signame]
    key = "%s %s %s" % (prog, signame, kind)
    dev = td.join("sig-%s-%s-%s" % (prog, signame, kind))
    old = None
    if kind == "grown":
        old = os.urandom(MB)
        with open(dev, "wb") as f:
            f.write(old)
    cfg = itest.write_config(dev + ".conf", [
        ("device-names", dev), ("file-size-mbytes", 16),
        ("service-threads", 2), ("test-duration-sec", 10),
        ("read-reqs-per-sec", 400), ("write-reqs-per-sec", 100)])
    r, seen = run_and_signal([progs[prog], cfg], dev, 16 * MB, sig,
                             itest.shim_env(fault=PROBE_FAULT))
    results[key] = (prog, signame, kind, dev, old, r, seen)


def check_setup_signal(c, prog, signame, kind, dev, old, r, seen):
    _, status = SIGNALS[signame]
    key = "%s %s %s" % (prog, signame, kind)
    detail = r.describe()
    c.check(seen == 16 * MB, "[%s] the device file was not grown to 16 MiB "
            "when the signal was sent (size %r): not in setup?" % (key, seen),
            detail)
    c.eq("[%s] exit status" % key, status, r.rc, detail)
    parse = itest.parse_index_log if prog == "act_index" else itest.parse_log
    try:
        log = parse(r.out)
        c.eq("[%s] reports" % key, [], [rp.sec for rp in log.reports], detail)
        c.eq("[%s] lines after the header" % key,
             ["stopped by signal %s after 0 sec" % signame], log.tail, detail)
    except itest.ParseError as e:
        c.fail("[%s] log does not parse: %s" % (key, e), detail)
    c.check(r.out.endswith("\nstopped by signal %s after 0 sec\n" % signame),
            "[%s] stdout does not end with 'stopped by signal %s after 0 "
            "sec'" % (key, signame), detail)
    if old is None:
        c.check(not os.path.lexists(dev), "[%s] the device file %s it "
                "created is still there" % (key, dev), detail)
        state = "removed" if not os.path.lexists(dev) else "LEFT"
    else:
        size = os.path.getsize(dev) if os.path.exists(dev) else None
        c.eq("[%s] size of the pre-existing file" % key, MB, size, detail)
        same = False
        if size is not None:
            with open(dev, "rb") as f:
                same = f.read() == old
        c.check(same, "[%s] content of the pre-existing file changed" % key,
                detail)
        state = "size %s, content %s" % (size, "same" if same else
                                         "CHANGED")
    print("[%s] exit %s after %.1f s, last line %r, file %s" % (
        key, r.rc, r.elapsed, r.out.rstrip("\n").split("\n")[-1], state))


def check_prep_signal(c, td, progs):
    key = "act_prep SIGINT new"
    dev = td.join("sig-prep-new")
    r, seen = run_and_signal([progs["act_prep"], "--size", "16M", dev], dev,
                             16 * MB, signal.SIGINT,
                             itest.shim_env(fault=PROBE_FAULT))
    detail = r.describe()
    c.check(seen == 16 * MB, "[%s] the file was not set to 16 MiB when the "
            "signal was sent (size %r)" % (key, seen), detail)
    c.eq("[%s] exit status" % key, 130, r.rc, detail)
    c.check(not os.path.lexists(dev), "[%s] the file %s it created is still "
            "there" % (key, dev), detail)
    text = r.out + r.err
    c.check("stopped by signal SIGINT" in text, "[%s] no 'stopped by signal "
            "SIGINT'" % key, detail)
    c.check(re.search(r"not (fully )?prepared|before any byte was written",
                      text, re.I), "[%s] the output does not say the devices "
            "were not prepared" % key, detail)
    print("[%s] exit %s, file %s: %s" % (
        key, r.rc, "removed" if not os.path.lexists(dev) else "LEFT",
        " | ".join(errors(r.err)) or r.err.strip()))


def check_signals(c, td, progs):
    results = {}
    threads = []
    for prog in ("act_storage", "act_index"):
        for signame in SIGNALS:
            for kind in ("new", "grown"):
                threads.append(threading.Thread(
                    target=setup_signal_case,
                    args=(c, td, progs, prog, signame, kind, results)))
    for t in threads:
        t.start()
    try:
        check_prep_signal(c, td, progs)
    finally:
        for t in threads:
            t.join()
    for key in sorted(results):
        check_setup_signal(c, *results[key])
    c.eq("signal cases run", len(threads), len(results))


# ----------------------------------------------------------------------------
# Refused devices.

def dev_entries():
    # Loop devices may come and go (other tests, losetup): not counted.
    return set(n for n in os.listdir("/dev") if not n.startswith("loop"))


def config(td, name, dev, extra=()):
    return itest.write_config(td.join(name + ".conf"), [
        ("device-names", dev), ("service-threads", 2),
        ("test-duration-sec", 2), ("read-reqs-per-sec", 400),
        ("write-reqs-per-sec", 100)] + list(extra))


def expect_refused(c, key, r, pattern, stdout_too=True):
    detail = r.describe()
    c.eq("[%s] exit status" % key, 2, r.rc, detail)
    errs = errors(r.err)
    c.check(any(re.search(pattern, l) for l in errs), "[%s] no ERROR line "
            "on stderr matching %r" % (key, pattern), detail)
    if stdout_too:
        c.check(any(re.search(pattern, l) for l in errors(r.out)),
                "[%s] no ERROR line in the log matching %r" % (key, pattern),
                detail)
    print("[%s] exit %s: %s" % (key, r.rc, errs[0] if errs else
                                r.err.strip()))


def check_bad_dev_name(c, td, progs):
    if os.path.lexists(BAD_DEV):
        c.skip_part("mistyped device", "%s exists here" % BAD_DEV)
        return
    before = dev_entries()
    pattern = r"device %s does not exist - check the name" % re.escape(
        BAD_DEV)
    for prog in ("act_storage", "act_index"):
        for extra in ([("file-size-mbytes", 16)], []):
            key = "mistyped %s%s" % (prog, " file-size-mbytes 16" if extra
                                     else "")
            cfg = config(td, "bad-%s-%d" % (prog, len(extra)), BAD_DEV,
                         extra)
            r = itest.run([progs[prog], cfg], timeout=RUN_TIMEOUT)
            expect_refused(c, key, r, pattern)
            c.check(not os.path.lexists(BAD_DEV), "[%s] %s was created" % (
                key, BAD_DEV))
    key = "mistyped act_prep --size 16M"
    r = itest.run([progs["act_prep"], "--size", "16M", BAD_DEV],
                  timeout=RUN_TIMEOUT)
    expect_refused(c, key, r, pattern, stdout_too=False)
    c.check(not os.path.lexists(BAD_DEV), "[%s] %s was created" % (
        key, BAD_DEV))
    after = dev_entries()
    c.eq("[mistyped] entries created under /dev", [],
         sorted(after - before))


def check_readonly_file(c, td, progs):
    path = td.join("ro-file.dev")
    itest.fill_file(path, 16 * MB, b"\x5a")
    os.chmod(path, 0o444)
    before = itest.sha256_file(path)
    pattern = r"read-only \(mode 0444\)"
    cfg = config(td, "ro-file", path)
    for prog in ("act_storage", "act_index", "act_prep"):
        key = "mode 0444 %s" % prog
        args = [progs[prog], path if prog == "act_prep" else cfg]
        r = itest.run(args, timeout=RUN_TIMEOUT)
        expect_refused(c, key, r, pattern, stdout_too=prog != "act_prep")
        c.check(itest.sha256_file(path) == before, "[%s] the file changed"
                % key)
    c.eq("[mode 0444] mode afterwards", 0o444,
         stat.S_IMODE(os.stat(path).st_mode))


def check_readonly_loop(c, td, progs):
    if os.geteuid() != 0:
        c.skip_part("read-only loop")
        return
    img = td.join("ro-loop.img")
    itest.fill_file(img, 16 * MB, b"\x5a")
    before = itest.sha256_file(img)
    dev, why = itest.loop_attach_readonly(img)
    if dev is None:
        c.skip_part("read-only loop", "losetup -r failed: %s" % why)
        return
    try:
        cfg = config(td, "ro-loop", dev)
        for prog in ("act_storage", "act_index", "act_prep"):
            key = "read-only loop %s" % prog
            args = [progs[prog], dev if prog == "act_prep" else cfg]
            r = itest.run(args, timeout=RUN_TIMEOUT)
            expect_refused(c, key, r, r"device %s is read-only" %
                           re.escape(dev), stdout_too=prog != "act_prep")
    finally:
        itest.loop_detach(dev)
    c.check(itest.sha256_file(img) == before, "[read-only loop] the backing "
            "file changed")


def check_missing_file(c, td, progs):
    path = td.join("no-such-device")
    for prog in ("act_storage", "act_index", "act_prep"):
        key = "missing file %s" % prog
        if prog == "act_prep":
            args = [progs[prog], path]
            pattern = r"%s.*check the name, or set --size" % re.escape(path)
        else:
            args = [progs[prog], config(td, "missing-" + prog, path)]
            pattern = (r"%s.*check the name, or set file-size-mbytes" %
                       re.escape(path))
        r = itest.run(args, timeout=RUN_TIMEOUT)
        expect_refused(c, key, r, pattern, stdout_too=prog != "act_prep")
        c.check(not os.path.lexists(path), "[%s] %s was created" % (
            key, path))


def main():
    c = itest.Checker("test_setup_safety")
    progs = {p: itest.binary(p) for p in ("act_storage", "act_index",
                                          "act_prep")}
    itest.shim_path()
    with itest.TempDir() as td:
        check_signals(c, td, progs)
        check_bad_dev_name(c, td, progs)
        check_readonly_file(c, td, progs)
        check_readonly_loop(c, td, progs)
        check_missing_file(c, td, progs)
    c.finish()


if __name__ == "__main__":
    main()
