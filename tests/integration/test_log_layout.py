"""Description: act_storage's and act_index's whole log, line by line, against docs/log-format.md.

For each program, three runs at once on file-backed devices:

- main: 6 s on one 64 MiB file (act_index's pre-filled), read 2000 write
  1000, service-threads 4; exit 0 in about 6 s, no ERROR. The header line
  by line as tests/lib/synthlog.py writes it (banner with a notice line,
  the config echo in the program's order with exact values, the derived
  block, the device line - act_storage's minimum IO size one of 512..4096 -,
  the identity block of a file: its facts line `<name> dev = D, ino = I,
  gen = G` when it was there before the run (act_index's), its drive
  health source `health <name>: none (a regular file)`, then `start
  time = <UTC>`, the histogram names, then `after 1 sec:`), the version 6.0 <= V < 7.0, no `detected N
  CPUs` line; then reports after 1..6 sec: every histogram in the names
  order with data, cumulative totals and buckets, the device's histograms
  matching the totals (one device), only allowed lines, an empty line
  before each report, and nothing after the last report's empty line.
  analysis/act_latency.py -t 1 (-h reads -h writes for act_index) must
  read it: exit 0, 6 slice rows.
- cpus: 1 s without service-threads: the `detected N CPUs` line and its
  empty line before the heading, service-threads 5 x CPUs in the echo, the
  header line by line, one report, nothing after it.
- variant: 1 s with non-default items - act_storage commit-to-device with
  commit-min-bytes (echoed after it; the writes histograms) and
  health-interval-sec 3, act_index replication-factor 2, defrag-lwm-pct
  67, microsecond histograms (the derived table's truncation, 170 and
  212) and health-interval-sec 0 (echoed after max-lag-sec; its source
  line `none (health-interval-sec 0)`): echo, derived, names, header.

act_index's rates too: reads must be service 3000 + cache 2000 = 5000/s and
writes 2000/s, the mean over intervals 2..6 within 5%, each interval within
25% (cache threads work in bundles of 100 pairs).
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import itest  # noqa: E402
import synthlog  # noqa: E402  (tests/lib, on sys.path by itest)

DURATION = 6
MEAN_TOL = 0.05
INTERVAL_TOL = 0.25
MAIN = [("file-size-mbytes", 64), ("service-threads", 4),
        ("test-duration-sec", DURATION), ("read-reqs-per-sec", 2000),
        ("write-reqs-per-sec", 1000)]


class Program:
    """What the layout of one program's log is made of. echo: its config
    echo in order, with the main run's values; runs: the side runs' config
    items and what they change in the echo ({name: value}, a value None
    drops the item; items after: [(after_name, name, value)] inserted),
    derived block and histogram names."""

    def __init__(self, name, kind, parse, echo, derived, names,
                 per_device, latency_args, runs, prefill=False, rates=None):
        self.name, self.kind, self.parse = name, kind, parse
        self.echo, self.derived, self.names = echo, derived, names
        self.per_device = per_device
        self.latency_args = latency_args
        self.runs = runs
        self.prefill = prefill
        self.rates = rates

    def expected_echo(self, dev, over=None, insert=()):
        items = [(n, (over or {}).get(n, v)) for n, v in
                 [("device-names", dev), ("num-devices", "1")] + self.echo]
        for after, n, v in insert:
            items.insert([k for k, _ in items].index(after) + 1, (n, v))
        return [(n, v) for n, v in items if v is not None]


STORAGE = Program(
    "act_storage", synthlog.STORAGE, itest.parse_log,
    echo=[("file-size-mbytes", "64"), ("service-threads", "4"),
          ("test-duration-sec", str(DURATION)), ("report-interval-sec", "1"),
          ("microsecond-histograms", "no"), ("read-reqs-per-sec", "2000"),
          ("write-reqs-per-sec", "1000"), ("record-bytes", "1536"),
          ("record-bytes-range-max", "0"), ("large-block-op-kbytes", "128"),
          ("replication-factor", "1"), ("update-pct", "0"),
          ("defrag-lwm-pct", "50"), ("no-defrag-reads", "no"),
          ("compress-pct", "100"), ("disable-odsync", "no"),
          ("commit-to-device", "no"), ("tomb-raider", "no"),
          ("tomb-raider-sleep-usec", "0"), ("max-lag-sec", "10")],
    derived=synthlog.storage_derived(2000, 0, "23.53", "23.53"),
    names=lambda dev: ["reads", dev + "-reads", "large-block-reads",
                       "large-block-writes"],
    per_device=["reads"], latency_args=["-t", "1"],
    runs={
        "cpus": ([("file-size-mbytes", 64), ("test-duration-sec", 1),
                  ("read-reqs-per-sec", 2000), ("write-reqs-per-sec", 1000)],
                 {"test-duration-sec": "1"}, (), None, None),
        "variant": (MAIN[:2] + [("test-duration-sec", 1)] + MAIN[3:] +
                    [("commit-to-device", "yes"), ("commit-min-bytes", 4096),
                     ("health-interval-sec", 3)],
                    {"test-duration-sec": "1", "commit-to-device": "yes"},
                    [("commit-to-device", "commit-min-bytes", "4096"),
                     ("max-lag-sec", "health-interval-sec", "3")],
                    synthlog.storage_derived(2000, 1000, "23.53", "11.76"),
                    lambda dev: ["reads", dev + "-reads", "large-block-reads",
                                 "large-block-writes", "writes",
                                 dev + "-writes"]),
    })

INDEX = Program(
    "act_index", synthlog.INDEX, itest.parse_index_log,
    echo=[("file-size-mbytes", "64"), ("service-threads", "4"),
          ("cache-threads", "8"), ("test-duration-sec", str(DURATION)),
          ("report-interval-sec", "1"), ("microsecond-histograms", "no"),
          ("read-reqs-per-sec", "2000"), ("write-reqs-per-sec", "1000"),
          ("replication-factor", "1"), ("defrag-lwm-pct", "50"),
          ("disable-odsync", "no"), ("max-lag-sec", "10")],
    derived=[("service-thread-reads-per-sec", "3000"),
             ("cache-thread-reads-and-writes-per-sec", "2000")],
    names=lambda dev: ["reads", dev + "-reads", "writes", dev + "-writes"],
    per_device=["reads", "writes"],
    latency_args=["-t", "1", "-h", "reads", "-h", "writes"],
    prefill=True,
    rates=lambda dev: {"reads": 5000.0, dev + "-reads": 5000.0,
                       "writes": 2000.0, dev + "-writes": 2000.0},
    runs={
        "cpus": ([("file-size-mbytes", 8), ("test-duration-sec", 1),
                  ("read-reqs-per-sec", 200), ("write-reqs-per-sec", 100)],
                 {"file-size-mbytes": "8", "test-duration-sec": "1",
                  "read-reqs-per-sec": "200", "write-reqs-per-sec": "100"},
                 (), [("service-thread-reads-per-sec", "300"),
                      ("cache-thread-reads-and-writes-per-sec", "200")],
                 None),
        "variant": ([("file-size-mbytes", 8), ("service-threads", 2),
                     ("cache-threads", 2), ("test-duration-sec", 1),
                     ("microsecond-histograms", "yes"),
                     ("read-reqs-per-sec", 100), ("write-reqs-per-sec", 35),
                     ("replication-factor", 2), ("defrag-lwm-pct", 67),
                     ("disable-odsync", "yes"), ("max-lag-sec", 0),
                     ("health-interval-sec", 0)],
                    {"file-size-mbytes": "8", "service-threads": "2",
                     "cache-threads": "2", "test-duration-sec": "1",
                     "microsecond-histograms": "yes",
                     "read-reqs-per-sec": "100", "write-reqs-per-sec": "35",
                     "replication-factor": "2", "defrag-lwm-pct": "67",
                     "disable-odsync": "yes", "max-lag-sec": "0"},
                    [("max-lag-sec", "health-interval-sec", "0")],
                    # write_eff = 2 x 35 = 70; service = 100 + 70; cache =
                    # 70 x 100 / 33 = 212.12, truncated.
                    [("service-thread-reads-per-sec", "170"),
                     ("cache-thread-reads-and-writes-per-sec", "212")],
                    None),
    })


def main():
    c = itest.Checker("test_log_layout")
    progs = (STORAGE, INDEX)
    with itest.TempDir() as td:
        jobs, devs = {}, {}
        for p in progs:
            for run in ("main", "cpus", "variant"):
                key = "%s %s" % (p.name, run)
                dev = devs[key] = td.join("%s_%s" % (p.name, run))
                items = MAIN if run == "main" else p.runs[run][0]
                if p.prefill and run == "main":
                    itest.make_filled_file(dev, 64)
                cfg = itest.write_config(td.join(key.replace(" ", "_") +
                                                 ".conf"),
                                         [("device-names", dev)] + items)
                jobs[key] = [itest.binary(p.name), cfg]
        res = itest.run_parallel(jobs, timeout=DURATION + 30)
        for p in progs:
            key = p.name + " main"
            log = check_main(c, p, res[key], devs[key])
            if log is not None:
                if p.rates:
                    check_rates(c, p, log, devs[key])
                check_latency(c, p, td, res[key].out)
            for run in ("cpus", "variant"):
                key = "%s %s" % (p.name, run)
                check_side(c, p, run, res[key], devs[key])
    c.finish()


def parsed(c, p, what, r):
    """The log of run r parsed, or None (a failure) when it did not exit 0
    or does not parse."""
    if not c.eq("%s: exit status" % what, 0, r.rc, r.describe()):
        return None
    try:
        return p.parse(r.out)
    except itest.ParseError as e:
        c.fail("%s: log does not parse: %s" % (what, e), r.describe())
        return None


def check_header(c, p, what, log, echo, derived, names, cpus=None,
                 existed=False):
    """The header line by line, as synthlog writes it, up to `after 1
    sec:`; the device line with its variable parts taken from the log; a
    file that existed before the run (not created by it) has its facts
    line."""
    dev = echo[0][1]
    m = (itest.DEVICE_LINE_RE if p.kind == synthlog.STORAGE
         else itest.INDEX_DEVICE_LINE_RE).match(
             log.devices[0] if log.devices else "")
    if not c.check(m is not None and m.group("name") == dev,
                   "%s: device line %r" % (what, log.devices)):
        return
    if p.kind == synthlog.STORAGE:
        c.check(m.group("minio") in ("512", "1024", "2048", "4096"),
                "%s: minimum IO size %s not one of 512..4096" % (
                    what, m.group("minio")))
        device = synthlog.device_line(p.kind, dev, int(dict(echo)[
            "file-size-mbytes"]) << 20, min_io=int(m.group("minio")),
            buffered=bool(m.group("buffered")))
    else:
        device = synthlog.device_line(p.kind, dev, int(dict(echo)[
            "file-size-mbytes"]) << 20, buffered=bool(m.group("buffered")))
    if m.group("buffered"):
        c.note("%s: the temp file system refused O_DIRECT (', buffered')" %
               what)
    c.check(log.start_time is not None, "%s: no start time line" % what)
    facts = []
    if existed:
        st = os.stat(dev)
        facts = [synthlog.file_facts_line(dev, st.st_dev, st.st_ino, (
            log.facts[0]["gen"] if log.facts else "?"))]
    # a file has no drive health: one source line says so, where its facts
    # line is (or would be); health-interval-sec 0 sends no command
    facts.append(synthlog.health_source(dev, "none (%s)" % (
        "health-interval-sec 0" if dict(echo).get("health-interval-sec") ==
        "0" else "a regular file")))
    want = synthlog.header(p.kind, echo, derived, [device], names,
                           version=log.version, notice=log.notice, cpus=cpus,
                           identity=facts, start_time=log.start_time) + [
                               "after 1 sec:"]
    got = log.lines[:len(want)]
    for k in range(max(len(want), len(got))):
        w = want[k] if k < len(want) else "<none>"
        g = got[k] if k < len(got) else "<EOF>"
        if not c.eq("%s: header line %d" % (what, k + 1), w, g):
            break


def check_main(c, p, r, dev):
    what = p.name + " main run"
    log = parsed(c, p, what, r)
    if log is None:
        return None
    c.check(DURATION - 0.1 <= r.elapsed < DURATION + 8,
            "%s took %.1f s, expected about %d s" % (what, r.elapsed,
                                                    DURATION))
    c.check("ERROR" not in r.err and "ERROR" not in r.out,
            "%s: a clean run printed an ERROR" % what, r.describe())
    lines = log.lines

    # Banner and header.
    c.check(re.match(r"^\d+\.\d+$", log.version) is not None and
            6.0 <= float(log.version) < 7.0,
            "version %r must be a decimal 6.0 <= V < 7.0" % log.version)
    c.check(log.cpus is None, "%s: 'detected N CPUs' printed although "
            "service-threads is set" % what)
    c.check(log.notice.strip() != "" and not log.notice.startswith(
        ("ACT", "after")), "%s: notice line %r" % (what, log.notice))
    names = p.names(dev)
    echo = p.expected_echo(dev)
    check_header(c, p, what, log, echo, p.derived, names,
                 existed=p.prefill)
    c.eq("%s: config echo" % what, echo, log.config)
    c.eq("%s: derived configuration" % what, p.derived, log.derived)
    c.eq("%s: number of device lines" % what, 1, len(log.devices))
    c.eq("%s: histogram names" % what, names, log.names)

    # Reports.
    c.eq("%s: report times" % what, list(range(1, DURATION + 1)),
         [rp.sec for rp in log.reports])
    c.check(not log.incomplete and log.tail == [],
            "%s: nothing may follow the last report (its empty line ends "
            "the log)" % what, "tail from line %s: %r" % (log.tail_line_no,
                                                          log.tail))
    c.check(r.out.endswith(")\n\n"), "%s: log must end with the last "
            "report's bucket line and one empty line" % what,
            repr(r.out[-80:]))
    prev = {}
    for rp in log.reports:
        for name in names:
            h = rp.hists[name]
            c.check(h.total > 0, "%s has no data after %d sec" % (name,
                                                                  rp.sec))
            if name in prev:
                ph = prev[name]
                c.check(h.total >= ph.total, "%s total went down: %d -> %d "
                        "after %d sec" % (name, ph.total, h.total, rp.sec))
                hc = h.counts()
                for b, cnt in ph.counts().items():
                    c.check(hc.get(b, 0) >= cnt, "%s bucket %02d went down "
                            "after %d sec: %d -> %d (counts must be "
                            "cumulative)" % (name, b, rp.sec, cnt,
                                             hc.get(b, 0)))
            prev[name] = h
        # One device: its histograms hold the same I/Os as the totals (a
        # few may land between the two snapshots).
        for kind in p.per_device:
            a, b = rp.hists[kind].total, rp.hists[dev + "-" + kind].total
            c.check(abs(a - b) <= 50, "after %d sec: %s total %d but %s "
                    "total %d (one device: must match)" % (
                        rp.sec, kind, a, dev + "-" + kind, b))
    # Line-level check of the whole report section, independent of the
    # parser: every line is one of the allowed kinds.
    first = log.reports[0].line_no - 1 if log.reports else len(lines)
    for k in range(first, len(lines)):
        ln = lines[k]
        ok = (ln == "" or re.match(r"^after \d+ sec:$", ln) or
              itest.BUCKET_LINE_RE.match(ln) or
              any(re.match(r"^" + re.escape(n) + r" \(\d+ total\)$", ln)
                  for n in names))
        c.check(ok, "%s: unexpected line %d in the reports: %r" % (
            what, k + 1, ln))
    # Each report: an empty line before it, its histograms in the order of
    # the names.
    for rp in log.reports:
        c.check(lines[rp.line_no - 2] == "", "%s: line before 'after %d "
                "sec:' must be empty" % (what, rp.sec))
        order = [ln.split(" (")[0] for ln in
                 lines[rp.line_no:rp.line_no + 200]
                 if re.match(r"^\S+ \(\d+ total\)$", ln)][:len(names)]
        c.eq("%s: histogram order after %d sec" % (what, rp.sec), names,
             order)
    return log


def check_rates(c, p, log, dev):
    if len(log.reports) < 3:
        c.fail("%s: too few reports to check rates" % p.name)
        return
    for name, rate in p.rates(dev).items():
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


def check_latency(c, p, td, out):
    if itest.latency_script() is None:
        c.skip_part("act_latency check", "analysis/act_latency.py missing "
                    "or not executable")
        return
    path = td.join(p.name + ".log")
    with open(path, "w") as f:
        f.write(out)
    lr = itest.run_latency(path, *p.latency_args)
    what = "act_latency.py %s on %s's log" % (" ".join(p.latency_args),
                                              p.name)
    if c.eq(what + ": exit status", 0, lr.returncode, lr.stdout + lr.stderr):
        c.eq(what + ": slice rows", DURATION,
             len(itest.latency_slice_rows(lr.stdout)), lr.stdout)


def check_side(c, p, run, r, dev):
    """A 1 s side run: "cpus" (no service-threads) or "variant"."""
    what = p.name + (" without service-threads" if run == "cpus" else
                     " with non-default items")
    log = parsed(c, p, what, r)
    if log is None:
        return
    _, over, insert, derived, names = p.runs[run]
    ncpu = None
    if run == "cpus":
        ncpu = os.sysconf("SC_NPROCESSORS_ONLN")
        c.eq("%s: detected CPUs line" % what, ncpu, log.cpus)
        i = log.lines.index(synthlog.HEADINGS[p.kind])
        c.eq("%s: lines before the config heading" % what,
             ["detected %d CPUs" % ncpu, ""], log.lines[i - 2:i])
        c.eq("%s: banner + cpus line count before the heading" % what, 7, i)
        c.eq("%s: default service-threads (5 x CPUs)" % what, str(5 * ncpu),
             log.cfg("service-threads"))
        over = dict(over, **{"service-threads": str(5 * ncpu)})
    echo = p.expected_echo(dev, over, insert)
    derived = derived or p.derived
    names = (names or p.names)(dev)
    c.eq("%s: config echo" % what, echo, log.config)
    c.eq("%s: derived configuration" % what, derived, log.derived)
    c.eq("%s: histogram names" % what, names, log.names)
    check_header(c, p, what, log, echo, derived, names, cpus=ncpu)
    c.eq("%s: reports of a 1 s run" % what, [1],
         [rp.sec for rp in log.reports])
    c.eq("%s: tail of a 1 s run" % what, [], log.tail)


if __name__ == "__main__":
    main()
