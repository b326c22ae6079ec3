"""Description: a drive that hangs during setup (the minimum-I/O probe) never passes, and a signal still ends it.

The test shim (tests/shim/act_shim.c) holds the first setup read - the
512-byte O_DIRECT probe at offset 0, `op=read,offset=0,size=512,count=1`
- for 30 s (hang) or a moment (slow). Device files in a temp dir; all cases
run at once:

- storage / index: act_storage / act_index, max-lag-sec 2: exit 3 within
  6 s (not after the 30 s hang) with `ERROR: device DEV is not responding:
  a 512-byte read at offset 0 has not completed after S sec, more than
  max-lag-sec (2) - test stopped` (S >= 2) on stdout and stderr; the log
  parses, has no report and ends with that line; the device file the run
  created is gone;
- storage-lag0: max-lag-sec 0 - the run's 10 s hung-I/O limit applies:
  exit 3 after 10 to 15 s, `more than 10 sec - test stopped` (S >= 10);
- prep: act_prep --max-stall-sec 2 --size 16M NEWFILE: exit 3 within 6 s,
  `... more than --max-stall-sec 2 - stopped before any byte was written`,
  NEWFILE gone;
- prep-off: act_prep --max-stall-sec 0, the probe held 3 s: no limit, exit
  0 after >= 3 s, the file prepared;
- slow: act_storage, max-lag-sec 2, the probe held 1 s (under the limit),
  a 2 s test: exit 0, both reports, no ERROR line;
- SIGTERM 1 s into the 30 s hang - act_storage on a new file, act_index on
  a pre-existing 1 MiB file it grew to 16 MiB, act_prep --size 16M on a
  new file: exit 143 within 5 s of the signal; act_storage / act_index end
  their log with `stopped by signal SIGTERM after 0 sec` (no report before
  it), act_prep says `ERROR: stopped by signal SIGTERM before any byte was
  written`; the new files are gone, the grown one is back to its 1 MiB and
  its content.
"""

import os
import re
import signal
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import itest  # noqa: E402

MIB = 1024 * 1024
PROBE = "op=read,offset=0,size=512,count=1,delay_ms=%d"
HANG = PROBE % 30000
RUN_TIMEOUT = 40

BASE = [("file-size-mbytes", 16), ("service-threads", 2),
        ("read-reqs-per-sec", 400), ("write-reqs-per-sec", 100)]

# name: (program, extra config or args, fault, exit status)
CASES = {
    "storage": ("act_storage", [("test-duration-sec", 10),
                                ("max-lag-sec", 2)], HANG, 3),
    "index": ("act_index", [("test-duration-sec", 10), ("max-lag-sec", 2)],
              HANG, 3),
    "storage-lag0": ("act_storage", [("test-duration-sec", 30),
                                     ("max-lag-sec", 0)], HANG, 3),
    "prep": ("act_prep", ["--max-stall-sec", "2", "--size", "16M"], HANG, 3),
    "prep-off": ("act_prep", ["--max-stall-sec", "0", "--size", "16M"],
                 PROBE % 3000, 0),
    "slow": ("act_storage", [("test-duration-sec", 2), ("max-lag-sec", 2)],
             PROBE % 1000, 0),
}

# name: (program, pre-existing file content or None)
SIGNAL_CASES = {
    "sigterm-storage": ("act_storage", None),
    "sigterm-index": ("act_index", os.urandom(MIB)),
    "sigterm-prep": ("act_prep", None),
}


def hung_re(dev, tail):
    return re.compile(
        r"^ERROR: device %s is not responding: a 512-byte read at offset 0 "
        r"has not completed after (\d+\.\d{3}) sec, more than %s$"
        % (re.escape(dev), tail), re.M)


def args_for(td, progs, name, prog, extra):
    dev = td.join(name + ".dev")
    if prog == "act_prep":
        return dev, [progs[prog]] + extra + [dev]
    cfg = itest.write_config(td.join(name + ".conf"), [
        ("device-names", dev)] + BASE + extra)
    return dev, [progs[prog], cfg]


def signal_run(args, env, delay=1.0):
    """Start args, SIGTERM after delay s; returns (Result, secs from the
    signal to the exit)."""
    t0 = time.monotonic()
    p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         stdin=subprocess.DEVNULL, universal_newlines=True,
                         errors="replace", env=env)
    rd = itest.Reader(p)
    time.sleep(delay)
    t_sig = time.monotonic()
    if p.poll() is None:
        p.send_signal(signal.SIGTERM)
    out, err, timed_out = rd.finish(RUN_TIMEOUT)
    t_end = time.monotonic()
    return (itest.Result(p.returncode, out, err, t_end - t0, timed_out),
            t_end - t_sig)


def main():
    c = itest.Checker("test_setup_hang")
    progs = {p: itest.binary(p) for p in ("act_storage", "act_index",
                                          "act_prep")}
    itest.shim_path()
    with itest.TempDir() as td:
        jobs, envs, devs = {}, {}, {}
        for name, (prog, extra, fault, _) in CASES.items():
            devs[name], jobs[name] = args_for(td, progs, name, prog, extra)
            envs[name] = itest.shim_env(fault=fault)
        sig_res, sig_devs = {}, {}

        def one_signal(name):
            prog, old = SIGNAL_CASES[name]
            extra = ([("test-duration-sec", 10), ("max-lag-sec", 0)]
                     if prog != "act_prep" else ["--size", "16M"])
            dev, args = args_for(td, progs, name, prog, extra)
            if old is not None:
                with open(dev, "wb") as f:
                    f.write(old)
            sig_devs[name] = dev
            sig_res[name] = signal_run(args, itest.shim_env(fault=HANG))

        threads = [threading.Thread(target=one_signal, args=(n,))
                   for n in SIGNAL_CASES]
        for t in threads:
            t.start()
        res = itest.run_parallel(jobs, timeout=RUN_TIMEOUT, envs=envs)
        for t in threads:
            t.join()

        for name in CASES:
            check(c, name, devs[name], res[name])
        for name in SIGNAL_CASES:
            check_signal(c, name, sig_devs[name], *sig_res[name])
    c.finish()


def check(c, name, dev, r):
    prog, extra, _, want = CASES[name]
    detail = r.describe()
    errs = [l for l in r.err.split("\n") if l.startswith("ERROR:")]
    print("[%s] %s: exit %s after %.1f s; %s" % (
        name, prog, r.rc, r.elapsed, errs[0] if errs else "no ERROR line"))
    c.check(not r.timed_out, "[%s] did not end within %d s" % (
        name, RUN_TIMEOUT), detail)
    c.eq("[%s] exit status" % name, want, r.rc, detail)

    if want == 0:
        c.eq("[%s] ERROR lines" % name, [], errs, detail)
        if name == "prep-off":
            c.check(r.elapsed >= 3, "[%s] exit after %.1f s, before the 3 s "
                    "probe ended" % (name, r.elapsed), detail)
            c.check(not itest.salt_problems(dev, None, 16 * MIB),
                    "[%s] %s not prepared" % (name, dev))
        else:
            log = parse(c, name, prog, r, detail)
            if log is not None:
                c.eq("[%s] reports" % name, [1, 2],
                     [rp.sec for rp in log.reports], detail)
        return

    if name == "prep":
        tail = (r"--max-stall-sec 2 - stopped before any byte was written")
        limit, most = 2.0, 6.0
    elif name == "storage-lag0":
        tail = r"10 sec - test stopped"
        limit, most = 10.0, 15.0
    else:
        tail = r"max-lag-sec \(2\) - test stopped"
        limit, most = 2.0, 6.0
    rx = hung_re(dev, tail)
    for where, text in (("stderr", r.err), ("stdout", r.out)):
        m = rx.search(text)
        if c.check(m, "[%s] no line matching %s on %s" % (
                name, rx.pattern, where), detail):
            c.check(float(m.group(1)) >= limit, "[%s] reported after %s sec, "
                    "under the %.0f s limit" % (name, m.group(1), limit))
    c.check(limit <= r.elapsed < most, "[%s] exit after %.1f s, expected "
            "%.0f to %.0f (the probe hangs 30 s)" % (
                name, r.elapsed, limit, most), detail)
    c.check(not os.path.lexists(dev), "[%s] the device file %s it created "
            "is still there" % (name, dev), detail)
    if prog != "act_prep":
        log = parse(c, name, prog, r, detail)
        if log is not None:
            c.eq("[%s] reports" % name, [], [rp.sec for rp in log.reports],
                 detail)
            c.check(len(log.tail) == 1 and rx.match(log.tail[0]),
                    "[%s] the log must end with the one ERROR line: %r" % (
                        name, log.tail), detail)


def check_signal(c, name, dev, r, after_sig):
    prog, old = SIGNAL_CASES[name]
    detail = r.describe()
    print("[%s] %s: exit %s %.1f s after the signal; last line %r" % (
        name, prog, r.rc, after_sig,
        (r.err if prog == "act_prep" else r.out).rstrip("\n")
        .split("\n")[-1]))
    c.eq("[%s] exit status" % name, 143, r.rc, detail)
    c.check(after_sig < 5, "[%s] exit %.1f s after SIGTERM, expected under "
            "5 (the probe hangs 30 s)" % (name, after_sig), detail)
    if prog == "act_prep":
        c.check("ERROR: stopped by signal SIGTERM before any byte was "
                "written\n" in r.err, "[%s] no 'ERROR: stopped by signal "
                "SIGTERM before any byte was written' on stderr" % name,
                detail)
    else:
        log = parse(c, name, prog, r, detail)
        if log is not None:
            c.eq("[%s] reports" % name, [], [rp.sec for rp in log.reports],
                 detail)
            c.eq("[%s] lines after the header" % name,
                 ["stopped by signal SIGTERM after 0 sec"], log.tail, detail)
    if old is None:
        c.check(not os.path.lexists(dev), "[%s] the device file %s it "
                "created is still there" % (name, dev), detail)
    else:
        with open(dev, "rb") as f:
            now = f.read()
        c.eq("[%s] size of the pre-existing file" % name, len(old),
             len(now), detail)
        c.check(now == old, "[%s] content of the pre-existing file "
                "changed" % name, detail)


def parse(c, name, prog, r, detail):
    p = itest.parse_index_log if prog == "act_index" else itest.parse_log
    try:
        return p(r.out)
    except itest.ParseError as e:
        c.fail("[%s] log does not parse: %s" % (name, e), detail)
        return None


if __name__ == "__main__":
    main()
