"""Description: act_storage's whole log, line by line, against docs/log-format.md.

A 7 s run (1 file-backed device of 64 MiB, read 2000 write 1000,
service-threads 4): banner, the config echo in the reference's order with
exact values, the derived block, the device line, the histogram names, then
reports after 1..7 sec with well-formed cumulative histograms, an empty line
after each report and nothing after the last one; exit 0. Two 1 s side runs
(in parallel) check the `detected N CPUs` line when service-threads is not
set and the echo of commit-min-bytes with commit-to-device. If
analysis/act_latency.py exists, it must read the log (-t 1: 7 slice rows).
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import itest  # noqa: E402

DURATION = 7

# Item order of the reference's echo (examples/example_storage.log), with
# this test's values.
def expected_config(dev, **over):
    items = [
        ("device-names", dev),
        ("num-devices", "1"),
        ("file-size-mbytes", "64"),
        ("service-threads", "4"),
        ("test-duration-sec", str(DURATION)),
        ("report-interval-sec", "1"),
        ("microsecond-histograms", "no"),
        ("read-reqs-per-sec", "2000"),
        ("write-reqs-per-sec", "1000"),
        ("record-bytes", "1536"),
        ("record-bytes-range-max", "0"),
        ("large-block-op-kbytes", "128"),
        ("replication-factor", "1"),
        ("update-pct", "0"),
        ("defrag-lwm-pct", "50"),
        ("no-defrag-reads", "no"),
        ("compress-pct", "100"),
        ("disable-odsync", "no"),
        ("commit-to-device", "no"),
        ("tomb-raider", "no"),
        ("tomb-raider-sleep-usec", "0"),
        ("max-lag-sec", "10"),
    ]
    return [(n, over.get(n, v)) for n, v in items]


def main():
    c = itest.Checker("test_log_layout")
    with itest.TempDir() as td:
        dev = td.join("dev_main")
        main_cfg = itest.write_config(td.join("main.conf"), [
            ("device-names", dev), ("file-size-mbytes", 64),
            ("service-threads", 4), ("test-duration-sec", DURATION),
            ("read-reqs-per-sec", 2000), ("write-reqs-per-sec", 1000)])
        cpu_dev = td.join("dev_cpus")
        cpu_cfg = itest.write_config(td.join("cpus.conf"), [
            ("device-names", cpu_dev), ("file-size-mbytes", 64),
            ("test-duration-sec", 1),
            ("read-reqs-per-sec", 2000), ("write-reqs-per-sec", 1000)])
        commit_dev = td.join("dev_commit")
        commit_cfg = itest.write_config(td.join("commit.conf"), [
            ("device-names", commit_dev), ("file-size-mbytes", 64),
            ("service-threads", 4), ("test-duration-sec", 1),
            ("read-reqs-per-sec", 2000), ("write-reqs-per-sec", 1000),
            ("commit-to-device", "yes"), ("commit-min-bytes", 4096)])

        res = itest.run_parallel({"main": main_cfg, "cpus": cpu_cfg,
                                  "commit": commit_cfg}, timeout=DURATION + 30)

        check_main(c, res["main"], dev, td)
        check_cpus(c, res["cpus"], cpu_dev)
        check_commit(c, res["commit"], commit_dev)
    c.finish()


def check_main(c, r, dev, td):
    if not c.eq("main run exit status", 0, r.rc, r.describe()):
        return
    c.check(DURATION - 0.1 <= r.elapsed < DURATION + 8,
            "main run took %.1f s, expected about %d s" % (r.elapsed,
                                                          DURATION))
    c.check("ERROR" not in r.err, "stderr of a clean run has an ERROR",
            r.err)
    try:
        log = itest.parse_log(r.out)
    except itest.ParseError as e:
        c.fail("log does not parse: %s" % e, r.describe())
        return
    lines = log.lines

    # Banner.
    c.check(re.match(r"^\d+\.\d+$", log.version) is not None and
            6.0 <= float(log.version) < 7.0,
            "version %r must be a decimal 6.0 <= V < 7.0" % log.version)
    c.check(log.cpus is None, "'detected N CPUs' printed although "
            "service-threads is set")

    # Config echo: every item, in order, exact values.
    want = expected_config(dev)
    c.eq("config echo", want, log.config)

    want_derived = [
        ("record-stored-bytes", "1536 ... 1536"),
        ("internal-read-reqs-per-sec", "2000"),
        ("internal-write-reqs-per-sec", "0"),
        ("large-block-reads-per-sec", "23.53"),
        ("large-block-writes-per-sec", "23.53"),
    ]
    c.eq("derived configuration", want_derived, log.derived)

    # Device line.
    c.eq("number of device lines", 1, len(log.devices))
    m = itest.DEVICE_LINE_RE.match(log.devices[0])
    c.eq("device line", (dev, "67108864", "512"),
         (m.group("name"), m.group("size"), m.group("nlb")))
    c.check(m.group("minio") in ("512", "1024", "2048", "4096"),
            "minimum IO size %s not one of 512..4096" % m.group("minio"))
    if m.group("buffered"):
        c.note("the temp file system refused O_DIRECT (', buffered')")

    names = ["reads", dev + "-reads", "large-block-reads",
             "large-block-writes"]
    c.eq("histogram names", names, log.names)

    # Reports.
    c.eq("report times", list(range(1, DURATION + 1)),
         [rp.sec for rp in log.reports])
    c.check(not log.incomplete and log.tail == [],
            "nothing may follow the last report (its empty line ends the "
            "log)", "tail from line %s: %r" % (log.tail_line_no, log.tail))
    c.check(r.out.endswith(" sec:\n") is False and r.out.endswith(")\n\n"),
            "log must end with the last report's bucket line and one empty "
            "line", repr(r.out[-80:]))
    prev = {}
    for rp in log.reports:
        for name in names:
            h = rp.hists[name]
            c.check(h.total > 0, "%s has no data after %d sec" % (name,
                                                                  rp.sec))
            if name in prev:
                p = prev[name]
                c.check(h.total >= p.total, "%s total went down: %d -> %d "
                        "after %d sec" % (name, p.total, h.total, rp.sec))
                pc, hc = p.counts(), h.counts()
                for b, cnt in pc.items():
                    c.check(hc.get(b, 0) >= cnt, "%s bucket %02d went down "
                            "after %d sec: %d -> %d (counts must be "
                            "cumulative)" % (name, b, rp.sec, cnt,
                                             hc.get(b, 0)))
            prev[name] = h
    # Line-level check of the whole report section, independent of the
    # parser: every line is one of the allowed kinds.
    first = log.reports[0].line_no - 1 if log.reports else len(lines)
    for k in range(first, len(lines)):
        ln = lines[k]
        ok = (ln == "" or re.match(r"^after \d+ sec:$", ln) or
              itest.BUCKET_LINE_RE.match(ln) or
              any(re.match(r"^" + re.escape(n) + r" \(\d+ total\)$", ln)
                  for n in names))
        c.check(ok, "unexpected line %d in the reports: %r" % (k + 1, ln))
    # Each report: "after" line, then name lines in order, an empty line.
    for rp in log.reports:
        c.check(lines[rp.line_no - 2] == "", "line before 'after %d sec:' "
                "must be empty" % rp.sec)

    # The analysis script reads it.
    script = itest.latency_script()
    if script is None:
        c.note("analysis/act_latency.py missing or not executable - "
               "act_latency check skipped")
        return
    log_path = td.join("main.log")
    with open(log_path, "w") as f:
        f.write(r.out)
    lr = itest.run_latency(log_path, "-t", "1")
    if c.eq("act_latency.py -t 1 exit status", 0, lr.returncode,
            lr.stdout + lr.stderr):
        rows = itest.latency_slice_rows(lr.stdout)
        c.eq("act_latency.py -t 1 slice rows", DURATION, len(rows),
             lr.stdout)


def check_cpus(c, r, dev):
    if not c.eq("run without service-threads: exit status", 0, r.rc,
                r.describe()):
        return
    try:
        log = itest.parse_log(r.out)
    except itest.ParseError as e:
        c.fail("log without service-threads does not parse: %s" % e,
               r.describe())
        return
    ncpu = os.sysconf("SC_NPROCESSORS_ONLN")
    c.eq("detected CPUs line", ncpu, log.cpus)
    i = log.lines.index("ACT-STORAGE CONFIGURATION")
    c.eq("lines before the config heading",
         ["detected %d CPUs" % ncpu, ""], log.lines[i - 2:i])
    c.eq("banner + cpus line count before the heading", 7, i)
    c.eq("default service-threads (5 x CPUs)", str(5 * ncpu),
         log.cfg("service-threads"))
    c.eq("echo order without service-threads",
         [n for n, _ in expected_config(dev)], [n for n, _ in log.config])
    c.eq("reports of a 1 s run", [1], [rp.sec for rp in log.reports])
    c.eq("tail of a 1 s run", [], log.tail)


def check_commit(c, r, dev):
    if not c.eq("commit-to-device run: exit status", 0, r.rc, r.describe()):
        return
    try:
        log = itest.parse_log(r.out)
    except itest.ParseError as e:
        c.fail("commit-to-device log does not parse: %s" % e, r.describe())
        return
    want = expected_config(dev, **{"test-duration-sec": "1",
                                   "commit-to-device": "yes"})
    k = [n for n, _ in want].index("commit-to-device")
    want.insert(k + 1, ("commit-min-bytes", "4096"))
    c.eq("config echo with commit-to-device", want, log.config)
    c.eq("derived with commit-to-device", [
        ("record-stored-bytes", "1536 ... 1536"),
        ("internal-read-reqs-per-sec", "2000"),
        ("internal-write-reqs-per-sec", "1000"),
        ("large-block-reads-per-sec", "23.53"),
        ("large-block-writes-per-sec", "11.76")], log.derived)
    c.eq("histogram names with commit-to-device",
         ["reads", dev + "-reads", "large-block-reads", "large-block-writes",
          "writes", dev + "-writes"], log.names)
    c.eq("reports of a 1 s run", [1], [rp.sec for rp in log.reports])


if __name__ == "__main__":
    main()
