"""Description: a log that cannot be written stops the run with exit 5; it never lands in a device.

Devices are files in a temp dir. Cases:

- full: act_storage and act_index with stdout on /dev/full: exit 5, stderr
  `ERROR: can't write the log to stdout: No space left on device (errno
  28)`, and the device file (file-size-mbytes 16) was never created - the
  banner is written, and fails, before any device is touched;
- closed: act_storage, act_index and act_prep started with stdout closed
  (`sh -c 'exec PROG ARG >&-'`): exit 5, stderr `stdout is closed`, and the
  pre-existing 16 MiB device file (every byte 0x5a) is byte-identical
  afterwards: it did not become fd 1 and receive the log, nor was it
  prepared;
- pipe: act_storage and act_index (30 s runs) writing to a pipe whose reader
  reads ~1 s, then closes it; SIGPIPE ignored in the child (as systemd
  does): exit 5 within 5 s of the close, stderr names `Broken pipe (errno
  32)`; the reader got the start of the log first;
- fs-full (root only, else this case is skipped with a note): a 64 KiB
  tmpfs, filled up to its last free page, holds the log of a 10 s
  act_storage run on 8 devices: exit 5 before the run's end (no `after 10
  sec` report, under 10 s), stderr `No space left on device`; unmounted in
  a finally block;
- prep-full: act_prep on a pre-filled 16 MiB file with stdout on /dev/full:
  exit 5, stderr `No space left on device (errno 28)`, the file unchanged
  (act_prep prints the device's size line before writing any data).
"""

import os
import re
import select
import shutil
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import itest  # noqa: E402

MB = 1024 * 1024
FULL_MSG = ("ERROR: can't write the log to stdout: No space left on device "
            "(errno 28)")
PIPE_MSG = "can't write the log to stdout: Broken pipe (errno 32)"
RUN_TIMEOUT = 40


def config(td, name, dev, duration=10, extra=()):
    return itest.write_config(td.join(name + ".conf"), [
        ("device-names", dev), ("service-threads", 2),
        ("test-duration-sec", duration), ("read-reqs-per-sec", 400),
        ("write-reqs-per-sec", 0)] + list(extra))


def check_full(c, td, progs):
    for prog in ("act_storage", "act_index"):
        key = "full %s" % prog
        dev = td.join("full-" + prog)
        cfg = config(td, "full-" + prog, dev, extra=[("file-size-mbytes",
                                                      16)])
        with open("/dev/full", "w") as full:
            r = itest.run_stdout([progs[prog], cfg], full,
                                 timeout=RUN_TIMEOUT)
        detail = r.describe()
        c.eq("[%s] exit status" % key, 5, r.rc, detail)
        c.check(FULL_MSG in r.err, "[%s] stderr lacks %r" % (key, FULL_MSG),
                detail)
        c.check(not os.path.lexists(dev), "[%s] the device file %s was "
                "created" % (key, dev), detail)
        print("[%s] exit %s after %.1f s: %s" % (key, r.rc, r.elapsed,
                                                 r.err.strip()))


def check_closed(c, td, progs):
    dev = td.join("closed.dev")
    itest.fill_file(dev, 16 * MB, b"\x5a")
    before = itest.sha256_file(dev)
    size = os.path.getsize(dev)
    cfg = config(td, "closed", dev)
    for prog in ("act_storage", "act_index", "act_prep"):
        key = "closed %s" % prog
        arg = dev if prog == "act_prep" else cfg
        r = itest.run(["sh", "-c", 'exec "$0" "$1" >&-', progs[prog], arg],
                      timeout=RUN_TIMEOUT)
        detail = r.describe()
        c.eq("[%s] exit status" % key, 5, r.rc, detail)
        c.check("stdout is closed" in r.err, "[%s] stderr lacks 'stdout is "
                "closed'" % key, detail)
        c.eq("[%s] device file size" % key, size, os.path.getsize(dev),
             detail)
        c.check(itest.sha256_file(dev) == before, "[%s] the device file %s "
                "changed (log text or prep data written into it?)" % (
                    key, dev), detail)
        print("[%s] exit %s: %s" % (key, r.rc, r.err.strip()))


def check_pipe(c, td, progs, prog, results):
    """Run in a thread: results[prog] = (Result, bytes read, seconds from
    the reader's close to the exit)."""
    dev = td.join("pipe-" + prog)
    cfg = config(td, "pipe-" + prog, dev, duration=30,
                 extra=[("file-size-mbytes", 16)])
    rfd, wfd = os.pipe()
    t0 = time.monotonic()
    try:
        p = subprocess.Popen([progs[prog], cfg], stdout=wfd,
                             stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                             universal_newlines=True, errors="replace",
                             preexec_fn=itest.ignore_sigpipe)
    finally:
        os.close(wfd)
    got = b""
    try:
        end = time.monotonic() + 1.0
        while time.monotonic() < end:
            ready, _, _ = select.select([rfd], [], [], 0.1)
            if ready:
                chunk = os.read(rfd, 65536)
                if not chunk:
                    break
                got += chunk
    finally:
        os.close(rfd)
    t_close = time.monotonic()
    _, err, timed_out = itest.communicate(p, RUN_TIMEOUT)
    now = time.monotonic()
    results[prog] = (itest.Result(p.returncode, got.decode(
        "utf-8", "replace"), err, now - t0, timed_out), now - t_close)


def report_pipe(c, prog, res):
    key = "pipe %s" % prog
    r, after_close = res
    detail = r.describe()
    c.eq("[%s] exit status" % key, 5, r.rc, detail)
    c.check(after_close < 5, "[%s] exited %.1f s after the reader closed "
            "the pipe" % (key, after_close), detail)
    c.check(PIPE_MSG in r.err, "[%s] stderr lacks %r" % (key, PIPE_MSG),
            detail)
    c.check(r.out.startswith("\nACT version "), "[%s] the reader did not "
            "get the start of the log" % key, detail)
    print("[%s] exit %s %.1f s after the reader closed: %s" % (
        key, r.rc, after_close, r.err.strip()))


def check_fs_full(c, td, progs):
    key = "fs-full"
    if os.geteuid() != 0:
        c.skip_part(key)
        return
    if shutil.which("mount") is None:
        c.skip_part(key, "no mount")
        return
    mnt = td.join("tmpfs")
    os.mkdir(mnt)
    r = itest.sh(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", mnt])
    if r.returncode != 0:
        c.skip_part(key, "mount -t tmpfs failed: %s" % r.stderr.strip())
        return
    try:
        # Fill the file system, then free one page: room for the header
        # and a few reports of 8 devices, not for 10 s of them.
        filler = os.path.join(mnt, "filler")
        n = 0
        fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o600)
        try:
            while True:
                n += os.write(fd, b"x" * 4096)
        except OSError:
            pass
        finally:
            os.close(fd)
        os.truncate(filler, max(0, n - 4096))
        st = os.statvfs(mnt)
        free = st.f_bavail * st.f_frsize
        if not c.check(0 < free <= 8192, "[%s] %d bytes free on the tmpfs "
                       "after filling it, expected one page" % (key, free)):
            return
        devs = [td.join("fsfull-%d" % k) for k in range(8)]
        cfg = itest.write_config(td.join("fsfull.conf"), [
            ("device-names", " ".join(devs)), ("file-size-mbytes", 8),
            ("service-threads", 2), ("test-duration-sec", 10),
            ("read-reqs-per-sec", 400), ("write-reqs-per-sec", 100)])
        logp = os.path.join(mnt, "act.log")
        with open(logp, "w") as lf:
            r = itest.run_stdout([progs["act_storage"], cfg], lf,
                                 timeout=RUN_TIMEOUT)
        with open(logp, errors="replace") as f:
            text = f.read()
        detail = r.describe() + "\n--- the log (on the tmpfs) ---\n" + \
            text[-1500:]
        c.eq("[%s] exit status" % key, 5, r.rc, detail)
        c.check("No space left on device" in r.err, "[%s] stderr lacks 'No "
                "space left on device'" % key, detail)
        c.check(r.elapsed < 10 and "after 10 sec:" not in text,
                "[%s] not stopped before the run's end (%.1f s)" % (
                    key, r.elapsed), detail)
        c.check(text.startswith("\nACT version "), "[%s] the log on the "
                "tmpfs does not start with the banner" % key, detail)
        secs = re.findall(r"^after (\d+) sec:$", text, re.M)
        print("[%s] exit %s after %.1f s (log %d bytes, last report %s): %s"
              % (key, r.rc, r.elapsed, len(text), secs[-1] if secs else "-",
                 r.err.strip()))
    finally:
        itest.umount(mnt)


def check_prep_full(c, td, progs):
    key = "prep-full"
    dev = td.join("prep-full.dev")
    itest.fill_file(dev, 16 * MB, b"\x5a")
    before = itest.sha256_file(dev)
    with open("/dev/full", "w") as full:
        r = itest.run_stdout([progs["act_prep"], dev], full,
                             timeout=RUN_TIMEOUT)
    detail = r.describe()
    c.eq("[%s] exit status" % key, 5, r.rc, detail)
    c.check(FULL_MSG in r.err, "[%s] stderr lacks %r" % (key, FULL_MSG),
            detail)
    c.eq("[%s] file size" % key, 16 * MB, os.path.getsize(dev), detail)
    c.check(itest.sha256_file(dev) == before, "[%s] the file was written "
            "to" % key, detail)
    print("[%s] exit %s: %s" % (key, r.rc, r.err.strip().replace("\n",
                                                                 " | ")))


def main():
    c = itest.Checker("test_lost_log")
    progs = {p: itest.binary(p) for p in ("act_storage", "act_index",
                                          "act_prep")}
    if not os.path.exists("/dev/full"):
        itest.skip("no /dev/full")
    with itest.TempDir() as td:
        pipe_results = {}
        pipes = [threading.Thread(target=check_pipe,
                                  args=(c, td, progs, p, pipe_results))
                 for p in ("act_storage", "act_index")]
        for t in pipes:
            t.start()
        try:
            check_full(c, td, progs)
            check_closed(c, td, progs)
            check_prep_full(c, td, progs)
            check_fs_full(c, td, progs)
        finally:
            for t in pipes:
                t.join()
        for p in ("act_storage", "act_index"):
            if c.check(p in pipe_results, "[pipe %s] no result" % p):
                report_pipe(c, p, pipe_results[p])
    c.finish()


if __name__ == "__main__":
    main()
