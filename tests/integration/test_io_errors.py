"""Description: act_storage stops on failed I/Os (io-error-limit) and reports them.

A failing device is emulated by truncating the 64 MiB device file to 1 MiB
~1.5 s into the run: reads past the new end fail. Three runs in parallel:
(1) default io-error-limit 0, read 2000 write 1000, 20 s: must stop soon
with exit 4 and `ERROR:` lines naming the device, an offset past the new
end and the size; (2) io-error-limit 100, read-only: exit 4 after more than
100 failures; (3) io-error-limit 1000000, read-only 4 s: runs to the end
(exit 0, all reports), prints at most ~10 failure lines per second plus
`N more I/O errors were not shown` lines, and every request is either in
the histogram or counted as failed.
"""

import math
import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import itest  # noqa: E402

MB = 1024 * 1024
NEW_SIZE = 1 * MB
TRUNCATE_AFTER = 1.5

RUNS = {
    "limit0": ([("read-reqs-per-sec", 2000), ("write-reqs-per-sec", 1000),
                ("test-duration-sec", 20)], 4),
    "limit100": ([("read-reqs-per-sec", 2000), ("write-reqs-per-sec", 0),
                  ("test-duration-sec", 20), ("io-error-limit", 100)], 4),
    "nolimit": ([("read-reqs-per-sec", 2000), ("write-reqs-per-sec", 0),
                 ("test-duration-sec", 4), ("io-error-limit", 1000000)], 0),
}

MORE_RE = re.compile(r"^ERROR: (\d+) more I/O errors were not shown$")


def failure_lines(text, dev):
    return [l for l in text.split("\n") if l.startswith("ERROR:") and
            dev in l]


def main():
    c = itest.Checker("test_io_errors")
    prog = itest.binary()
    with itest.TempDir() as td:
        procs, devs = {}, {}
        for key, (items, _) in RUNS.items():
            dev = td.join("dev_" + key)
            devs[key] = dev
            cfg = itest.write_config(td.join(key + ".conf"), [
                ("device-names", dev), ("file-size-mbytes", 64),
                ("service-threads", 4)] + items)
            procs[key] = itest.Reader(itest.start([prog, cfg]),
                                      "after 1 sec:")
        t0 = time.monotonic()
        # The device fails ~1.5 s into the run (on act_storage's clock:
        # half a second after its first report).
        for key in RUNS:
            c.check(procs[key].seen.wait(15), "[%s] no 'after 1 sec:' "
                    "report within 15 s" % key)
        time.sleep(TRUNCATE_AFTER - 1.0)
        t_fail = time.monotonic()
        for key in RUNS:
            os.truncate(devs[key], NEW_SIZE)
        results = {}
        for key, rd in procs.items():
            out, err, timed_out = rd.finish(timeout=30)
            results[key] = itest.Result(rd.p.returncode, out, err,
                                        time.monotonic() - t0, timed_out)
            results[key].after_fail = time.monotonic() - t_fail
        for key in RUNS:
            check(c, key, results[key], devs[key])
    c.finish()


def check(c, key, r, dev):
    items, status = RUNS[key]
    cfg = dict(items)
    detail = r.describe()
    c.eq("[%s] exit status" % key, status, r.rc, detail)

    lines = failure_lines(r.out, dev)
    c.check(len(lines) > 0, "[%s] no ERROR line naming %s on stdout" % (
        key, dev), detail)
    c.check(len(failure_lines(r.err, dev)) > 0, "[%s] no ERROR line naming "
            "%s on stderr" % (key, dev), detail)
    for l in lines:
        m = re.search(r"offset (\d+)\D.*size (\d+)", l)
        if not c.check(m is not None, "[%s] ERROR line without offset and "
                       "size: %r" % (key, l)):
            continue
        off, size = int(m.group(1)), int(m.group(2))
        c.check(off + size > NEW_SIZE, "[%s] failure reported at offset %d "
                "size %d, inside the remaining %d bytes: %r" % (
                    key, off, size, NEW_SIZE, l))
        c.check(re.search(r"errno \d+|error", l, re.I) is not None,
                "[%s] ERROR line without the OS error: %r" % (key, l))

    try:
        log = itest.parse_log(r.out, allow_between=("ERROR:",))
    except itest.ParseError as e:
        c.fail("[%s] log does not parse: %s" % (key, e), detail)
        return
    shown = len(lines)
    hidden = sum(int(MORE_RE.match(l).group(1)) for l in r.out.split("\n")
                 if MORE_RE.match(l))
    counts = [int(x) for x in re.findall(r"failed I/Os: (\d+)", r.out)]
    print("[%s] exit %s %.1f s after the truncation: %d failure lines "
          "shown, %d reported as not shown, reports %s" % (
              key, r.rc, r.after_fail, shown, hidden,
              [rp.sec for rp in log.reports]))

    if status == 4:
        c.check(r.after_fail < 5, "[%s] the run did not stop soon after "
                "the device failed (%.1f s later)" % (key, r.after_fail),
                detail)
        limit = int(cfg.get("io-error-limit", 0))
        c.check(shown + hidden > limit, "[%s] stopped after %d failed I/Os, "
                "io-error-limit is %d" % (key, shown + hidden, limit), detail)
        c.check(log.tail == [] or all(l.startswith("ERROR:")
                                      for l in log.tail),
                "[%s] unexpected lines after the reports: %r" % (key,
                                                                  log.tail))
        return

    # Run to completion despite the failures.
    dur = int(cfg["test-duration-sec"])
    c.eq("[%s] reports" % key, list(range(1, dur + 1)),
         [rp.sec for rp in log.reports], detail)
    c.check(all(l.startswith("ERROR:") for l in log.tail),
            "[%s] unexpected lines after the last report: %r" % (
                key, log.tail))
    max_lines = 10 * (math.ceil(r.after_fail) + 1)
    c.check(shown <= max_lines, "[%s] %d failure lines in %.1f s of failures: "
            "more than 10 per second" % (key, shown, r.after_fail))
    c.check(hidden > 0, "[%s] thousands of failures but no 'N more I/O "
            "errors were not shown' line" % key, detail)
    total_failed = shown + hidden
    if counts:
        c.check(total_failed >= max(counts), "[%s] shown + not shown = %d "
                "< the failure count %d printed" % (key, total_failed,
                                                    max(counts)))
    if log.reports:
        ok = log.reports[-1].hists["reads"].total
        attempts = ok + total_failed
        want = int(cfg["read-reqs-per-sec"]) * dur
        c.check(abs(attempts - want) <= 0.05 * want,
                "[%s] recorded reads %d + failed %d = %d, expected about "
                "%d requests" % (key, ok, total_failed, attempts, want))
        # Most reads after the truncation fail: the histogram must not
        # keep growing at the full rate.
        t = [rp.hists["reads"].total for rp in log.reports]
        last_delta = t[-1] - t[-2]
        c.check(last_delta < 0.5 * int(cfg["read-reqs-per-sec"]),
                "[%s] %d reads recorded in the last interval although the "
                "device has shrunk to 1 MiB" % (key, last_delta), detail)


if __name__ == "__main__":
    main()
