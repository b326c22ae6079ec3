"""Description: `act_storage --check CONFIG` and `act_index --check CONFIG`.

--check loads and validates the config, then claims every device exactly
as a run would (open once, every check, hold; ACT_HELD_FDS honoured), and
writes nothing: no byte to any device, no file created or resized, nothing
on stdout. In every case below stdout is empty and the test directory
(every file's size, mtime and checksum, and the listing) is unchanged:

- OK, both programs, a file device: exit 0, one line on stderr,
  "PROG: CONFIG: the config and the 1 device are usable - nothing was
  written"; two devices: "the 2 devices";
- a file to be created (file-size-mbytes, a new name): exit 0, not created;
  a file to be grown: exit 0, not grown;
- config errors (an unknown item, a bad value, no config file): exit 1,
  the same ERROR line a run prints;
- a missing device: exit 2, the same ERROR line a run prints;
- a device the program refuses once open (too small for one large block
  of act_storage, one index block of act_index): exit 2, the same ERROR
  line a run prints (--check sizes and probes it as a run would);
- a device whose probe read hangs (the I/O shim holds it 30 s; max-lag-sec
  2): exit 3 within 8 s, `ERROR: device DEV is not responding` on stderr,
  as a run's setup; SIGTERM during that read: exit 143, `ERROR: stopped by
  signal SIGTERM - nothing was written`;
- a device held by a running act_storage: exit 2, the run's refusal
  naming act_storage and its pid;
- a parent that holds the device (ACT_HELD_FDS, flock on the file):
  exit 0;
- root only: a file behind a loop device (exit 2, as a run), a mounted
  device (exit 2, naming the mount point; the image is unchanged);
- `--check` without a config: exit 1 with the usage; --help lists
  --check.
"""

import fcntl
import os
import re
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import itest  # noqa: E402

OK_LINE = (r"^%s: %s: the config and the %d devices? are usable - nothing "
           r"was written\n$")


def errors(text):
    return [l for l in text.split("\n") if l.startswith("ERROR:")]


def config(td, name, devices, extra=()):
    items = [("device-names", ",".join(devices)), ("test-duration-sec", 60),
             ("read-reqs-per-sec", 100), ("write-reqs-per-sec", 50)]
    return itest.write_config(td.join(name + ".conf"), items + list(extra))


class Case:
    """Runs --check with the directory state compared around it."""

    def __init__(self, c, root):
        self.c = c
        self.root = root

    def check(self, key, prog, conf, status, env=None, pass_fds=()):
        before = itest.dir_state(self.root)
        if pass_fds:
            p = subprocess.run([itest.binary(prog), "--check", conf],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               stdin=subprocess.DEVNULL,
                               universal_newlines=True, env=env,
                               pass_fds=pass_fds, timeout=30)
            r = itest.Result(p.returncode, p.stdout, p.stderr, 0.0, False)
        else:
            r = itest.run([itest.binary(prog), "--check", conf], timeout=30,
                          env=env)
        detail = r.describe()
        self.c.eq("[%s] exit status" % key, status, r.rc, detail)
        self.c.eq("[%s] stdout" % key, "", r.out, detail)
        diff = itest.dir_state_diff(before, itest.dir_state(self.root))
        self.c.check(diff == "", "[%s] the directory changed" % key, diff)
        print("[%s] exit %s: %s" % (key, r.rc, r.err.strip().split("\n")[0]
                                    if r.err.strip() else "-"))
        return r

    def ok(self, key, prog, conf, n=1, **kw):
        r = self.check(key, prog, conf, 0, **kw)
        pat = OK_LINE % (prog, re.escape(conf), n)
        self.c.check(re.match(pat, r.err) is not None, "[%s] stderr is not "
                     "one line matching %r" % (key, pat), r.describe())

    def same_error(self, key, prog, conf, status):
        """--check fails with the status and the ERROR lines of a run."""
        r = self.check(key, prog, conf, status)
        run = itest.run([itest.binary(prog), conf], timeout=30)
        self.c.eq("[%s] a run's exit status" % key, status, run.rc,
                  run.describe())
        self.c.check(errors(r.err) and errors(r.err) == errors(run.err),
                     "[%s] not the run's ERROR lines: %r vs %r"
                     % (key, errors(r.err), errors(run.err)), r.describe())


def main():
    c = itest.Checker("test_check_option")
    with itest.TempDir() as td:
        root = td.join("area")
        os.mkdir(root)
        k = Case(c, root)
        d1 = os.path.join(root, "d1.img")
        d2 = os.path.join(root, "d2.img")
        itest.fill_file(d1, 16 * 1024 * 1024)
        itest.fill_file(d2, 16 * 1024 * 1024)

        for prog in ("act_storage", "act_index"):
            k.ok("%s ok" % prog, prog, config(td, prog + "-ok", [d1]))
        k.ok("two devices", "act_storage", config(td, "two", [d1, d2]), n=2)

        new = os.path.join(root, "new.img")
        k.ok("file to create", "act_storage",
             config(td, "create", [new], [("file-size-mbytes", 8)]))
        c.check(not os.path.exists(new), "[file to create] created")
        k.ok("file to grow", "act_storage",
             config(td, "grow", [d1], [("file-size-mbytes", 64)]))
        c.eq("[file to grow] size", 16 * 1024 * 1024, os.path.getsize(d1))

        k.same_error("unknown item", "act_storage",
                     config(td, "unknown", [d1], [("recrd-bytes", 1536)]), 1)
        k.same_error("bad value", "act_index",
                     config(td, "badval", [d1], [("cache-threads", "x")]), 1)
        k.same_error("no config file", "act_storage",
                     td.join("no-such.conf"), 1)
        k.same_error("missing device", "act_storage",
                     config(td, "missing", [os.path.join(root, "none")]), 2)
        k.same_error("missing device", "act_index",
                     config(td, "missing", [os.path.join(root, "none")]), 2)
        tiny = os.path.join(root, "tiny.img")
        itest.fill_file(tiny, 64 * 1024)
        k.same_error("too small for a large block", "act_storage",
                     config(td, "tiny", [tiny]), 2)
        speck = os.path.join(root, "speck.img")
        itest.fill_file(speck, 1000)
        k.same_error("too small for an index block", "act_index",
                     config(td, "speck", [speck]), 2)

        # A device whose probe read hangs: the setup guard ends --check.
        hang = itest.shim_env(fault="op=read,offset=0,size=512,count=1,"
                              "delay_ms=30000")
        r = k.check("hung probe", "act_storage",
                    config(td, "hung", [d1], [("max-lag-sec", 2)]), 3,
                    env=hang)
        c.check(r.elapsed < 8, "[hung probe] exit after %.1f s" % r.elapsed)
        c.check(any(l.startswith("ERROR: device %s is not responding" % d1)
                    for l in errors(r.err)), "[hung probe] no ERROR line "
                "naming the device", r.describe())

        before = itest.dir_state(root)
        p = subprocess.Popen([itest.binary(), "--check",
                              config(td, "hung-sig", [d1])],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             stdin=subprocess.DEVNULL, universal_newlines=True,
                             env=hang)
        time.sleep(1)
        p.send_signal(signal.SIGTERM)
        out, err, timed_out = itest.communicate(p, 15)
        c.eq("[signal in the probe] exit status", 143, p.returncode, err)
        c.eq("[signal in the probe] stdout", "", out)
        c.check("ERROR: stopped by signal SIGTERM - nothing was written\n"
                in err, "[signal in the probe] no ERROR line", err)
        c.eq("[signal in the probe] directory", "",
             itest.dir_state_diff(before, itest.dir_state(root)))

        # A device a running act_storage holds.
        held = td.join("held.img")
        itest.fill_file(held, 16 * 1024 * 1024)
        p = subprocess.Popen([itest.binary(), config(td, "holder", [held])],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             stdin=subprocess.DEVNULL, universal_newlines=True,
                             errors="replace")
        try:
            rd = itest.Reader(p)
            end = time.monotonic() + 15
            while time.monotonic() < end and p.poll() is None and not any(
                    l.startswith("start time = ") for l in list(rd.out)):
                time.sleep(0.02)
            r = k.check("held by a run", "act_storage",
                        config(td, "held", [held]), 2)
            c.check(any(("act_storage" in l and str(p.pid) in l)
                        for l in errors(r.err)), "[held by a run] no ERROR "
                    "line naming act_storage and pid %d" % p.pid,
                    r.describe())
        finally:
            p.terminate()
            rd.finish(30)

        # A parent that holds the device: --check honours ACT_HELD_FDS.
        fd = os.open(d1, os.O_RDWR)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            env = dict(os.environ, ACT_HELD_FDS=str(fd),
                       ACT_HELD_PID=str(os.getpid()))
            k.ok("parent holds it", "act_storage",
                 config(td, "parent", [d1]), env=env, pass_fds=(fd,))
        finally:
            os.close(fd)

        # Root only: a file behind a loop device, a mounted device.
        if os.geteuid() != 0:
            c.skip_part("loop-backed file, mounted device")
        else:
            loop, why = itest.loop_attach(d2)
            if loop is None:
                c.skip_part("loop-backed file", why)
            else:
                try:
                    k.same_error("behind a loop device", "act_storage",
                                 config(td, "loop", [d2]), 2)
                finally:
                    itest.loop_detach(loop)
            with itest.MountedExt4(c, td) as m:
                if m.dev is not None:
                    r = k.check("mounted", "act_storage",
                                config(td, "mounted", [m.dev]), 2)
                    c.check(any(m.dev in l and m.mnt in l
                                for l in errors(r.err)), "[mounted] no ERROR "
                            "line naming the mount point", r.describe())

        r = itest.run([itest.binary(), "--check"], timeout=10)
        c.eq("[--check alone] exit status", 1, r.rc, r.describe())
        c.check(r.err.startswith("ERROR: --check takes one config file\n\n"
                                 "usage: act_storage"),
                "[--check alone] no error and usage", r.describe())
        for prog in ("act_storage", "act_index"):
            r = itest.run([itest.binary(prog), "--help"], timeout=10)
            c.check("%s --check " % prog in r.out and "  --check " in r.out,
                    "%s --help does not list --check" % prog, r.describe())
    c.finish()


if __name__ == "__main__":
    main()
