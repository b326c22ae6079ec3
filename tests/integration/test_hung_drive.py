"""Description: a hung or slow drive stops the run with exit 3, never a PASS.

File-backed devices (64 MiB, in a temp dir); the test shim
(tests/shim/act_shim.c) delays the small reads from outside. Every run has
service-threads 4, read-reqs-per-sec 400, write-reqs-per-sec 0. All cases
run at once, in threads:

- hang (act_storage) / hang-index (act_index): from 1 s into the run every
  small read (1536 bytes / 4096 bytes) hangs 30 s; max-lag-sec 2, 10 s
  test: exit 3 in under 12 s with `ERROR: device DEV is not responding: a
  1536-byte read at offset N has not completed after S sec, more than
  max-lag-sec (2) - test stopped` (S >= 2), on stdout and stderr;
- stall: one 4 s stall of one read at ~8.5 s of a 10 s run, max-lag-sec 2:
  exit 3, `not responding`;
- lag0-hang: max-lag-sec 0 (no lag limit, but a hang limit of 10 s), a 30 s
  hang from 1 s into a 20 s test: exit 3 ~11 s into the run, not after
  the 30 s hang or the 20 s test, with `has not completed after S sec, more
  than 10 sec - test stopped` (S >= 10);
- lag0-end: max-lag-sec 0, an 8 s stall from 0.5 s before the end of a 5 s
  test: all 5 reports, then exit 3 (the run waits 3 s for the I/Os in
  flight, not the 8 s) with `still outstanding when the run ended`;
- slow: every small read takes 1.5 s from 0.5 s in, max-lag-sec 2: exit 3,
  `service threads can't keep up ...` and `the drive is the limit: ...`,
  and no `try configuring more service-threads` (more threads would not
  help a slow drive);
- control: the same shim without a fault, 5 s: exit 0, every report.

Each log parses (itest.parse_log / parse_index_log): complete reports, then
only the ERROR lines (none for the control); `act_latency.py -l LOG -t 1
--check` exits 1 and prints INCOMPLETE for every stopped run, and exits 0
with `result: PASS` for the control - so the check can fail both ways.
"""

import os
import re
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import itest  # noqa: E402

BASE = [("file-size-mbytes", 64), ("service-threads", 4),
        ("read-reqs-per-sec", 400), ("write-reqs-per-sec", 0)]

# name: (program, extra config, fault, expected exit status)
CASES = {
    "hang": ("act_storage", [("test-duration-sec", 10), ("max-lag-sec", 2)],
             "op=read,size=1536,after_ms=1000,delay_ms=30000", 3),
    "hang-index": ("act_index", [("test-duration-sec", 10),
                                 ("max-lag-sec", 2)],
                   "op=read,size=4096,after_ms=1000,delay_ms=30000", 3),
    "stall": ("act_storage", [("test-duration-sec", 10), ("max-lag-sec", 2)],
              "op=read,size=1536,after_ms=8500,count=1,delay_ms=4000", 3),
    "lag0-hang": ("act_storage", [("test-duration-sec", 20),
                                  ("max-lag-sec", 0)],
                  "op=read,size=1536,after_ms=1000,delay_ms=30000", 3),
    "lag0-end": ("act_storage", [("test-duration-sec", 5),
                                 ("max-lag-sec", 0)],
                 "op=read,size=1536,after_ms=4500,delay_ms=8000", 3),
    "slow": ("act_storage", [("test-duration-sec", 10), ("max-lag-sec", 2)],
             "op=read,size=1536,after_ms=500,delay_ms=1500", 3),
    "control": ("act_storage", [("test-duration-sec", 5),
                                ("max-lag-sec", 2)], None, 0),
}

RUN_TIMEOUT = 40


def not_responding_re(dev, size, tail):
    return re.compile(
        r"^ERROR: device %s is not responding: a %d-byte read at offset "
        r"(\d+) has not completed after (\d+\.\d+) sec, %s$"
        % (re.escape(dev), size, tail))


def main():
    c = itest.Checker("test_hung_drive")
    progs = {p: itest.binary(p) for p in ("act_storage", "act_index")}
    itest.shim_path()
    if itest.latency_script() is None:
        c.fail("analysis/act_latency.py missing or not executable")
    with itest.TempDir() as td:
        jobs = {}
        for name, (prog, extra, fault, _) in CASES.items():
            dev = td.join("dev-" + name)
            cfg = itest.write_config(td.join(name + ".conf"), [
                ("device-names", dev)] + BASE + extra)
            trace = td.join(name + ".trace") if fault is None else None
            jobs[name] = (dev, trace, [progs[prog], cfg],
                          itest.shim_env(trace=trace, fault=fault))
        results = {}

        def one(name):
            _, _, args, env = jobs[name]
            results[name] = itest.run(args, timeout=RUN_TIMEOUT, env=env)

        threads = [threading.Thread(target=one, args=(n,)) for n in CASES]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        for name in CASES:
            dev, trace, _, _ = jobs[name]
            check(c, td, name, dev, trace, results[name])
    c.finish()


def errors(text):
    return [l for l in text.split("\n") if l.startswith("ERROR:")]


def check(c, td, name, dev, trace, r):
    prog, extra, fault, status = CASES[name]
    cfg = dict(extra)
    duration = int(cfg["test-duration-sec"])
    detail = r.describe()
    c.check(not r.timed_out, "[%s] did not end within %d s" % (
        name, RUN_TIMEOUT), detail)
    c.eq("[%s] exit status" % name, status, r.rc, detail)
    errs = errors(r.out)
    print("[%s] %s: exit %s after %.1f s; %s" % (
        name, prog, r.rc, r.elapsed, errs[0] if errs else "no ERROR line"))

    # The log: complete reports, then only the ERROR lines.
    parse = itest.parse_index_log if prog == "act_index" else itest.parse_log
    log = None
    try:
        log = parse(r.out)
    except itest.ParseError as e:
        c.fail("[%s] log does not parse: %s" % (name, e), detail)
    secs = [] if log is None else [rp.sec for rp in log.reports]
    if log is not None:
        c.check(not log.incomplete, "[%s] the log ends inside a report"
                % name, detail)
        c.check(secs == list(range(1, len(secs) + 1)), "[%s] reports %s "
                "are not after 1, 2, ... sec" % (name, secs), detail)
        if status == 0:
            c.eq("[%s] reports" % name, list(range(1, duration + 1)), secs,
                 detail)
            c.eq("[%s] lines after the last report" % name, [], log.tail,
                 detail)
        else:
            c.check(len(log.tail) > 0 and
                    all(l.startswith("ERROR:") for l in log.tail),
                    "[%s] after the last complete report there must be "
                    "ERROR lines only: %r" % (name, log.tail), detail)
            # (stall and lag0-end stop at or after the end of the test)
            c.check(len(secs) < duration or name in ("stall", "lag0-end"),
                    "[%s] all %d reports printed, the run was not stopped "
                    "early" % (name, duration), detail)

    if status == 0:
        c.eq("[%s] ERROR lines" % name, [], errs + errors(r.err), detail)
        recs = itest.read_trace(trace)
        c.check(len(recs) > 1000, "[%s] the shim traced %d I/Os: was it "
                "loaded?" % (name, len(recs)))
    else:
        c.check(len(errors(r.err)) > 0, "[%s] no ERROR line on stderr"
                % name, detail)
        check_errors(c, name, dev, r, errs, secs, detail)

    # The verdict of the analysis.
    if itest.latency_script() is None:
        return
    path = td.join(name + ".log")
    with open(path, "w") as f:
        f.write(r.out)
    lr = itest.run_latency(path, "-t", "1", "--check")
    ldetail = "act_latency.py -l %s -t 1 --check: exit %s\n%s%s" % (
        path, lr.returncode, lr.stdout, lr.stderr)
    verdict = [l for l in lr.stdout.split("\n") if l.startswith("result:")]
    print("[%s] act_latency --check: exit %s, %s" % (
        name, lr.returncode, verdict[-1] if verdict else
        (lr.stdout + lr.stderr).strip().split("\n")[-1]))
    if status == 0:
        c.eq("[%s] act_latency.py --check exit status" % name, 0,
             lr.returncode, ldetail)
        c.check(any(l.startswith("result: PASS") for l in verdict),
                "[%s] act_latency.py --check: no 'result: PASS'" % name,
                ldetail)
        c.check("INCOMPLETE" not in lr.stdout, "[%s] act_latency.py "
                "--check says INCOMPLETE for a complete run" % name, ldetail)
    else:
        c.eq("[%s] act_latency.py --check exit status" % name, 1,
             lr.returncode, ldetail)
        c.check("INCOMPLETE" in lr.stdout, "[%s] act_latency.py --check "
                "does not say INCOMPLETE" % name, ldetail)
        c.check(not any(l.startswith("result: PASS") for l in verdict),
                "[%s] act_latency.py --check: PASS for a stopped run"
                % name, ldetail)


def check_errors(c, name, dev, r, errs, secs, detail):
    size = 4096 if name == "hang-index" else 1536
    if name in ("hang", "hang-index", "stall"):
        rx = not_responding_re(dev, size, r"more than max-lag-sec \(2\) - "
                               r"test stopped")
        min_s = 2.0
    elif name == "lag0-hang":
        rx = not_responding_re(dev, size, r"more than 10 sec - test stopped")
        min_s = 10.0
    elif name == "lag0-end":
        rx = not_responding_re(dev, size, r"still outstanding when the run "
                               r"ended")
        min_s = 0.0
    else:
        rx = None
    if rx is not None:
        ms = [rx.match(l) for l in errs]
        ms = [m for m in ms if m is not None]
        if c.check(ms, "[%s] no ERROR line matching %s" % (name, rx.pattern),
                   detail):
            for m in ms:
                off, s = int(m.group(1)), float(m.group(2))
                c.check(off + size <= 64 * 1024 * 1024, "[%s] offset %d "
                        "beyond the 64 MiB device" % (name, off))
                c.check(s >= min_s, "[%s] the read 'has not completed after "
                        "%.3f sec', less than %.0f" % (name, s, min_s))
    if name in ("hang", "hang-index"):
        c.check(r.elapsed < 12, "[%s] took %.1f s: not stopped well before "
                "the 30 s hang ends" % (name, r.elapsed), detail)
    elif name == "lag0-hang":
        c.check(10.5 <= r.elapsed < 16, "[%s] took %.1f s, expected ~11-13 "
                "(the hang is noticed after 10 s, from 1 s in)" % (
                    name, r.elapsed), detail)
    elif name == "lag0-end":
        c.eq("[%s] reports" % name, [1, 2, 3, 4, 5], secs, detail)
        c.check(r.elapsed < 11, "[%s] took %.1f s: waited for the 8 s stall "
                "instead of ~3 s after the end" % (name, r.elapsed), detail)
    elif name == "slow":
        text = r.out + r.err
        c.check(any(l.startswith("ERROR: service threads can't keep up")
                    for l in errs), "[%s] no 'ERROR: service threads can't "
                "keep up' line" % name, detail)
        c.check(any(l.startswith("ERROR: the drive is the limit: ")
                    for l in errs), "[%s] no 'ERROR: the drive is the limit:' "
                "line" % name, detail)
        c.check("try configuring more service-threads" not in text,
                "[%s] suggests more service-threads for a slow drive"
                % name, detail)
        c.check(r.elapsed < 9, "[%s] took %.1f s: not stopped early" % (
            name, r.elapsed), detail)


if __name__ == "__main__":
    main()
