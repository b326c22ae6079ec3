"""Description: act_index's whole log line by line, its rates, and act_latency.py on it.

A 6 s run on one pre-filled 64 MiB file (file-size-mbytes 64, read 2000,
write 1000, service-threads 4): the header compared line by line with the
expected text (banner `Index device IO test`, ACT-INDEX CONFIGURATION in
docs/act_index.md's echo order with exact values, DERIVED CONFIGURATION with
service-thread-reads-per-sec 3000 and cache-thread-reads-and-writes-per-sec
2000, the device line `<name> size = 67108864 bytes`, the identity block
(a file: its facts line `<name> dev = D, ino = I, gen = G`, then `start
time = <UTC>`), HISTOGRAM NAMES
reads, <dev>-reads, writes, <dev>-writes), then reports after 1..6 sec as
in docs/log-format.md and nothing after them; exit 0. Rates: reads must be
service 3000 + cache 2000 = 5000/s and writes 2000/s, the mean over
intervals 2..6 within 5%, each interval within 25% (cache threads work in
bundles of 100 pairs). analysis/act_latency.py -l LOG -t 1 -h reads -h
writes must exit 0 with 6 slice rows. Two 1 s side runs (in parallel):
without service-threads (`detected N CPUs`, default 5 x CPUs and
cache-threads 8) and with non-default items (replication-factor 2,
defrag-lwm-pct 67: the derived table's truncation, 170 and 212).
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import itest  # noqa: E402

DURATION = 6
MEAN_TOL = 0.05
INTERVAL_TOL = 0.25


def expected_config(dev, **over):
    """docs/act_index.md's echo order, with this test's values."""
    items = [
        ("device-names", dev),
        ("num-devices", "1"),
        ("file-size-mbytes", "64"),
        ("service-threads", "4"),
        ("cache-threads", "8"),
        ("test-duration-sec", str(DURATION)),
        ("report-interval-sec", "1"),
        ("microsecond-histograms", "no"),
        ("read-reqs-per-sec", "2000"),
        ("write-reqs-per-sec", "1000"),
        ("replication-factor", "1"),
        ("defrag-lwm-pct", "50"),
        ("disable-odsync", "no"),
        ("max-lag-sec", "10"),
    ]
    return [(n, over.get(n, v)) for n, v in items]


def main():
    c = itest.Checker("test_index_log")
    prog = itest.binary("act_index")
    with itest.TempDir() as td:
        dev = td.join("idx_main")
        itest.make_filled_file(dev, 64)
        main_cfg = itest.write_config(td.join("main.conf"), [
            ("device-names", dev), ("file-size-mbytes", 64),
            ("service-threads", 4), ("test-duration-sec", DURATION),
            ("read-reqs-per-sec", 2000), ("write-reqs-per-sec", 1000)])
        cpu_dev = td.join("idx_cpus")
        cpu_cfg = itest.write_config(td.join("cpus.conf"), [
            ("device-names", cpu_dev), ("file-size-mbytes", 8),
            ("test-duration-sec", 1),
            ("read-reqs-per-sec", 200), ("write-reqs-per-sec", 100)])
        der_dev = td.join("idx_derived")
        der_cfg = itest.write_config(td.join("derived.conf"), [
            ("device-names", der_dev), ("file-size-mbytes", 8),
            ("service-threads", 2), ("cache-threads", 2),
            ("test-duration-sec", 1), ("microsecond-histograms", "yes"),
            ("read-reqs-per-sec", 100), ("write-reqs-per-sec", 35),
            ("replication-factor", 2), ("defrag-lwm-pct", 67),
            ("disable-odsync", "yes"), ("max-lag-sec", 0)])

        res = itest.run_parallel({"main": [prog, main_cfg],
                                  "cpus": [prog, cpu_cfg],
                                  "derived": [prog, der_cfg]},
                                 timeout=DURATION + 30)
        log = check_main(c, res["main"], dev)
        if log is not None:
            check_rates(c, log, dev)
            check_latency(c, td, res["main"].out)
        check_cpus(c, res["cpus"], cpu_dev)
        check_derived(c, res["derived"], der_dev)
    c.finish()


def check_main(c, r, dev):
    if not c.eq("main run: exit status", 0, r.rc, r.describe()):
        return None
    c.check(DURATION - 0.1 <= r.elapsed < DURATION + 8,
            "main run took %.1f s, expected about %d s" % (r.elapsed,
                                                          DURATION))
    c.check("ERROR" not in r.err and "ERROR" not in r.out,
            "a clean run printed an ERROR", r.describe())
    try:
        log = itest.parse_index_log(r.out)
    except itest.ParseError as e:
        c.fail("main run: log does not parse: %s" % e, r.describe())
        return None
    lines = log.lines

    c.check(re.match(r"^\d+\.\d+$", log.version) is not None and
            6.0 <= float(log.version) < 7.0,
            "version %r must be a decimal 6.0 <= V < 7.0" % log.version)

    # The whole header, line by line.
    buffered = log.devices and log.devices[0].endswith(", buffered")
    if buffered:
        c.note("the temp file system refused O_DIRECT (', buffered')")
    names = ["reads", dev + "-reads", "writes", dev + "-writes"]
    st = os.stat(dev)
    want = (["", "ACT version " + log.version, "Index device IO test",
             log.notice, "", "ACT-INDEX CONFIGURATION"] +
            ["%s: %s" % kv for kv in expected_config(dev)] +
            ["", "DERIVED CONFIGURATION",
             "service-thread-reads-per-sec: 3000",
             "cache-thread-reads-and-writes-per-sec: 2000", "",
             "%s size = 67108864 bytes%s" % (dev, ", buffered" if buffered
                                             else ""),
             "", "%s dev = %d, ino = %d, gen = %s" % (
                 dev, st.st_dev, st.st_ino, log.facts[0]["gen"]
                 if log.facts else "?"),
             "start time = %s" % log.start_time,
             "", "HISTOGRAM NAMES"] + names + ["", "after 1 sec:"])
    c.check(log.start_time is not None, "no start time line")
    got = lines[:len(want)]
    for k in range(max(len(want), len(got))):
        w = want[k] if k < len(want) else "<none>"
        g = got[k] if k < len(got) else "<EOF>"
        if not c.eq("header line %d" % (k + 1), w, g):
            break
    c.check(log.notice.strip() != "" and not log.notice.startswith(
        ("ACT", "after")), "notice line %r" % log.notice)
    c.eq("config echo", expected_config(dev), log.config)
    c.eq("derived configuration", [
        ("service-thread-reads-per-sec", "3000"),
        ("cache-thread-reads-and-writes-per-sec", "2000")], log.derived)
    c.eq("histogram names", names, log.names)

    # Reports.
    c.eq("report times", list(range(1, DURATION + 1)),
         [rp.sec for rp in log.reports])
    c.check(not log.incomplete and log.tail == [],
            "nothing may follow the last report", "tail from line %s: %r" % (
                log.tail_line_no, log.tail))
    c.check(r.out.endswith(")\n\n"), "log must end with the last report's "
            "bucket line and one empty line", repr(r.out[-80:]))
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
                hc = h.counts()
                for b, cnt in p.counts().items():
                    c.check(hc.get(b, 0) >= cnt, "%s bucket %02d went down "
                            "after %d sec: %d -> %d" % (name, b, rp.sec, cnt,
                                                        hc.get(b, 0)))
            prev[name] = h
        # One device: its histograms hold the same I/Os as the totals (a
        # few may land between the two snapshots).
        for kind in ("reads", "writes"):
            a, b = rp.hists[kind].total, rp.hists[dev + "-" + kind].total
            c.check(abs(a - b) <= 50, "after %d sec: %s total %d but %s "
                    "total %d (one device: must match)" % (
                        rp.sec, kind, a, dev + "-" + kind, b))
    # Every line of the report section is one of the allowed kinds, and
    # each report is preceded by an empty line.
    first = log.reports[0].line_no - 1 if log.reports else len(lines)
    for k in range(first, len(lines)):
        ln = lines[k]
        ok = (ln == "" or re.match(r"^after \d+ sec:$", ln) or
              itest.BUCKET_LINE_RE.match(ln) or
              any(re.match(r"^" + re.escape(n) + r" \(\d+ total\)$", ln)
                  for n in names))
        c.check(ok, "unexpected line %d in the reports: %r" % (k + 1, ln))
    for rp in log.reports:
        c.check(lines[rp.line_no - 2] == "", "line before 'after %d sec:' "
                "must be empty" % rp.sec)
        # Histograms in the order of the names list.
        order = [l.split(" (")[0] for l in
                 lines[rp.line_no:rp.line_no + 200]
                 if re.match(r"^\S+ \(\d+ total\)$", l)][:len(names)]
        c.eq("histogram order after %d sec" % rp.sec, names, order)
    return log


def check_rates(c, log, dev):
    if len(log.reports) < 3:
        c.fail("too few reports to check rates")
        return
    rates = {"reads": 5000.0, dev + "-reads": 5000.0,
             "writes": 2000.0, dev + "-writes": 2000.0}
    for name, rate in rates.items():
        iv = itest.interval_rates(log, name)
        deltas = [d for _, d in iv]
        mean = sum(deltas) / len(deltas)
        detail = "per-interval rates (intervals 2..%d): %s" % (
            iv[-1][0], deltas)
        c.check(abs(mean - rate) <= MEAN_TOL * rate,
                "%s: mean %.1f/s over intervals 2..%d is not within %d%% of "
                "%.0f/s" % (name, mean, iv[-1][0], MEAN_TOL * 100, rate),
                detail)
        for sec, d in iv:
            c.check(abs(d - rate) <= INTERVAL_TOL * rate,
                    "%s: %.0f/s in the interval ending after %d sec, not "
                    "within %d%% of %.0f/s" % (name, d, sec,
                                               INTERVAL_TOL * 100, rate),
                    detail)
        print("%-40s want %6.0f/s  mean %8.1f/s  min %6.0f  max %6.0f" % (
            name, rate, mean, min(deltas), max(deltas)))


def check_latency(c, td, out):
    script = itest.latency_script()
    if script is None:
        c.note("analysis/act_latency.py missing or not executable - "
               "act_latency check skipped")
        return
    path = td.join("index.log")
    with open(path, "w") as f:
        f.write(out)
    lr = itest.run_latency(path, "-t", "1", "-h", "reads", "-h", "writes")
    if c.eq("act_latency.py -t 1 -h reads -h writes: exit status", 0,
            lr.returncode, lr.stdout + lr.stderr):
        c.eq("act_latency.py slice rows", DURATION,
             len(itest.latency_slice_rows(lr.stdout)), lr.stdout)


def check_cpus(c, r, dev):
    if not c.eq("run without service-threads: exit status", 0, r.rc,
                r.describe()):
        return
    try:
        log = itest.parse_index_log(r.out)
    except itest.ParseError as e:
        c.fail("run without service-threads: log does not parse: %s" % e,
               r.describe())
        return
    ncpu = os.sysconf("SC_NPROCESSORS_ONLN")
    c.eq("detected CPUs line", ncpu, log.cpus)
    i = log.lines.index("ACT-INDEX CONFIGURATION")
    c.eq("lines before the config heading",
         ["detected %d CPUs" % ncpu, ""], log.lines[i - 2:i])
    c.eq("config echo without service-threads", expected_config(
        dev, **{"file-size-mbytes": "8", "service-threads": str(5 * ncpu),
                "test-duration-sec": "1", "read-reqs-per-sec": "200",
                "write-reqs-per-sec": "100"}), log.config)
    c.eq("derived without service-threads", [
        ("service-thread-reads-per-sec", "300"),
        ("cache-thread-reads-and-writes-per-sec", "200")], log.derived)
    c.eq("reports of a 1 s run", [1], [rp.sec for rp in log.reports])
    c.eq("tail of a 1 s run", [], log.tail)


def check_derived(c, r, dev):
    if not c.eq("non-default run: exit status", 0, r.rc, r.describe()):
        return
    try:
        log = itest.parse_index_log(r.out)
    except itest.ParseError as e:
        c.fail("non-default run: log does not parse: %s" % e, r.describe())
        return
    c.eq("non-default config echo", expected_config(dev, **{
        "file-size-mbytes": "8", "service-threads": "2",
        "cache-threads": "2", "test-duration-sec": "1",
        "microsecond-histograms": "yes", "read-reqs-per-sec": "100",
        "write-reqs-per-sec": "35", "replication-factor": "2",
        "defrag-lwm-pct": "67", "disable-odsync": "yes",
        "max-lag-sec": "0"}), log.config)
    # write_eff = 2 * 35 = 70; service = 100 + 70; cache = 70 * 100 / 33 =
    # 212.12, truncated.
    c.eq("non-default derived", [
        ("service-thread-reads-per-sec", "170"),
        ("cache-thread-reads-and-writes-per-sec", "212")], log.derived)
    c.eq("non-default reports", [1], [rp.sec for rp in log.reports])


if __name__ == "__main__":
    main()
