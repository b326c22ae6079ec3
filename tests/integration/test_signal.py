"""Description: act_storage stopped by SIGINT / SIGTERM ends with a parseable log.

Two 30 s runs (in parallel) get SIGINT and SIGTERM ~0.5 s after their
report `after 2 sec:` (which also shows the log is flushed per report):
exit status 130 / 143 (an exit, not a death by the signal), promptly; the
last line of stdout is `stopped by signal SIGINT after N sec` (SIGTERM for
the other) with N 2 or 3; everything before it is complete reports (after
1, 2 sec); act_latency.py -t 1 reads the log (when the script exists).
"""

import os
import re
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import itest  # noqa: E402

SIGNALS = [("SIGINT", signal.SIGINT, 130), ("SIGTERM", signal.SIGTERM, 143)]


def main():
    c = itest.Checker("test_signal")
    prog = itest.binary()
    with itest.TempDir() as td:
        procs = {}
        for name, _, _ in SIGNALS:
            dev = td.join("dev_" + name)
            cfg = itest.write_config(td.join(name + ".conf"), [
                ("device-names", dev), ("file-size-mbytes", 64),
                ("service-threads", 4), ("test-duration-sec", 30),
                ("read-reqs-per-sec", 2000), ("write-reqs-per-sec", 1000)])
            procs[name] = itest.Reader(itest.start([prog, cfg]),
                                       "after 2 sec:")
        t0 = time.monotonic()
        # ~2.5 s into the run on act_storage's own clock: half a second
        # after its report "after 2 sec:" (the run's start is not the
        # moment the process is started).
        for name, _, _ in SIGNALS:
            if not procs[name].seen.wait(15):
                c.fail("%s: no 'after 2 sec:' report within 15 s" % name)
        time.sleep(0.5)
        for name, sig, _ in SIGNALS:
            procs[name].p.send_signal(sig)
        t_sig = time.monotonic()
        results = {}
        for name, _, _ in SIGNALS:
            rd = procs[name]
            out, err, timed_out = rd.finish(timeout=15)
            c.check(not timed_out, "%s: act_storage did not stop within "
                    "15 s of the signal" % name)
            results[name] = itest.Result(rd.p.returncode, out, err,
                                         time.monotonic() - t0, timed_out)
        stop_secs = time.monotonic() - t_sig
        c.check(stop_secs < 6, "runs took %.1f s to stop after the signal"
                % stop_secs)

        for name, _, status in SIGNALS:
            check(c, td, name, status, results[name])
    c.finish()


def check(c, td, name, status, r):
    detail = r.describe()
    c.eq("%s: exit status" % name, status, r.rc, detail)
    try:
        log = itest.parse_log(r.out)
    except itest.ParseError as e:
        c.fail("%s: log before the stop line does not parse: %s" % (name, e),
               detail)
        return
    c.check(len(log.tail) == 1 and not log.incomplete,
            "%s: after the last complete report exactly one line must "
            "follow" % name, "tail: %r\n%s" % (log.tail, detail))
    last = log.tail[-1] if log.tail else ""
    m = re.match(r"^stopped by signal (\S+) after (\d+) sec$", last)
    if c.check(m is not None, "%s: last line %r is not 'stopped by signal "
               "%s after N sec'" % (name, last, name), detail):
        c.eq("%s: signal named in the last line" % name, name, m.group(1))
        c.check(m.group(2) in ("2", "3"), "%s: stopped after %s sec, "
                "expected 2 or 3" % (name, m.group(2)))
    secs = [rp.sec for rp in log.reports]
    c.check(secs in ([1, 2], [1, 2, 3]), "%s: reports before the stop %s, "
            "expected after 1, 2 (3) sec" % (name, secs), detail)
    c.check(r.out.endswith("\n"), "%s: log does not end with a newline"
            % name)

    script = itest.latency_script()
    if script is None:
        c.skip_part("act_latency check", "analysis/act_latency.py missing or "
                    "not executable")
        return
    path = td.join(name + ".log")
    with open(path, "w") as f:
        f.write(r.out)
    lr = itest.run_latency(path, "-t", "1")
    c.eq("%s: act_latency.py -t 1 exit status" % name, 0, lr.returncode,
         lr.stdout + lr.stderr)
    c.eq("%s: act_latency.py slice rows" % name, len(secs),
         len(itest.latency_slice_rows(lr.stdout)), lr.stdout)


if __name__ == "__main__":
    main()
