"""A verdict per drive (docs/act_latency.md, "Per drive"): a log of
several devices has, besides the judged histograms of all the drives
together (reads; writes with commit-to-device), each device's own
(`<device>-reads`, `<device>-writes`: act_storage.md and act_index.md,
"Histogram names"). Each drive is judged on its own histograms with the
same criteria, on the max row of the same slices, in the same single pass
of the log (analysis.py reads them whatever -h names; the table, --json's
histograms and --csv do not show them). A drive over a limit makes the
log FAIL even when all the drives together pass (verdict.judge), its
figures beside the others' (fail_text).

A log of one device has no per-drive verdict: its device's histogram is
the aggregate. The spooled per-slice values (DriveSlices) let the
verdict's load check find the first slice over a limit of any drive, as
it does for the aggregate (slice_overs)."""

import re
from dataclasses import dataclass

from act import DEVICE_SEPARATORS
from act.latency.judge import fmt_num
from act.latency.load import slice_namer
from act.latency.spool import Spool


def log_devices(header):
    """The devices of a log, in order: its config echo's device-names
    (names hold none of DEVICE_SEPARATORS)."""
    items = header.items(header.config) if header.config else {}
    text = items.get("device-names", "")
    return [d for d in re.split("[%s]+" % re.escape(DEVICE_SEPARATORS),
                                text) if d]


def drive_histograms(header, judged):
    """[(device, [(judged histogram, the device's histogram)])] of a log
    of several devices, for the judged histograms judged (names, in
    order) each device has; [] for a log of one device."""
    devices = log_devices(header)
    if len(devices) < 2:
        return []
    names = set(header.names)
    out = []
    for dev in devices:
        pairs = [(n, "%s-%s" % (dev, n)) for n in judged
                 if "%s-%s" % (dev, n) in names]
        if pairs:
            out.append((dev, pairs))
    return out if len(out) > 1 else []


@dataclass(frozen=True)
class DriveFigure:
    """One criterion on one of a drive's histograms: its max % over the
    threshold (the max row) and the first slice (from 1) at that max,
    named as the verdict names slices (where: "hour 6", "slice 3"); its
    % over in the last slice (last_pct: the metrics' last slice), and
    the histogram's average rate over the slices (rate; neither is in
    to_json, act_latency's --json)."""
    histogram: str          # the judged histogram: "reads"
    threshold: str          # "1 ms"
    limit_pct: float
    max_pct: float
    slice: int
    where: str
    last_pct: float = None
    rate: float = None

    @property
    def passed(self):
        return self.max_pct < self.limit_pct

    def text(self):
        """'reads 7.20% over 1 ms (must be under 5%) in hour 6'."""
        return "%s %.2f%% over %s (must be under %s%%) in %s" % (
            self.histogram, self.max_pct, self.threshold,
            fmt_num(self.limit_pct), self.where)

    def to_json(self):
        return {"histogram": self.histogram, "threshold": self.threshold,
                "limit_pct": self.limit_pct, "max_pct": self.max_pct,
                "slice": self.slice, "where": self.where,
                "pass": self.passed}


@dataclass(frozen=True)
class DriveResult:
    """A drive's verdict on its own histograms: PASS or FAIL on the
    criteria (for information with --stress, or when the log is
    INCOMPLETE or NOT JUDGED: the log's result rules), its figures per
    criterion and histogram (DriveFigure), in the order of the log's
    criteria results."""
    device: str
    result: str
    figures: tuple

    @property
    def failed(self):
        return tuple(f for f in self.figures if not f.passed)

    @property
    def first(self):
        """The figure a line shows: the first failed one, else the
        first (reads over the first threshold)."""
        return (self.failed or self.figures)[0]

    def line(self):
        """--check's line: 'drive /dev/x: PASS (max reads 0.41% over 1
        ms in slice 2)', 'drive /dev/y: FAIL (reads 7.20% over 1 ms (must
        be under 5%) in hour 6)'."""
        if self.failed:
            return "drive %s: FAIL (%s)" % (self.device, ", ".join(
                f.text() for f in self.failed))
        f = self.first
        return "drive %s: PASS (max %s %.2f%% over %s in %s)" % (
            self.device, f.histogram, f.max_pct, f.threshold, f.where)

    def to_json(self):
        """--json's check.drives entry: each figure with the name of the
        drive's own histogram (name: "/dev/sdb-reads")."""
        return {"device": self.device, "result": self.result,
                "figures": [dict(f.to_json(), name="%s-%s" % (
                    self.device, f.histogram)) for f in self.figures]}


class DriveSlices:
    """The per-slice values of the drives' histograms (drive_histograms)
    during the analysis' one pass: add() each batch as analysis.py
    computes it (batch_values per histogram, in the order of names);
    the running max per histogram and criterion and the first slice at
    it; the values spooled for rows() (the verdict's slice_overs)."""

    def __init__(self, drives, nb, criteria):
        self.drives = drives
        self.names = [d for _, pairs in drives for _, d in pairs]
        self.nb = nb                # displayed buckets: criteria follow
        self.criteria = criteria
        n = len(self.names)
        self.maxes = [[None] * len(criteria) for _ in range(n)]
        self.where = [[0] * len(criteria) for _ in range(n)]
        self.last = [None] * n      # the last slice's % over each criterion
        self.rate_sum = [0.0] * n   # the slices' rates, summed
        self.slices = 0
        self.spool = Spool() if n else None

    def add(self, batch, first, n):
        """Account a batch of n slices from slice number first: per name
        (values per evaluated bucket, rates, ops)."""
        nb = self.nb
        crit = range(len(self.criteria))
        self.slices += n
        for i, (values, rates, _ops) in enumerate(batch):
            maxes, where = self.maxes[i], self.where[i]
            self.last[i] = [values[nb + j][-1] for j in crit]
            self.rate_sum[i] += sum(r or 0 for r in rates)
            for j in crit:
                col = values[nb + j]
                m = max(col)
                if maxes[j] is None or m > maxes[j]:
                    maxes[j] = m
                    where[j] = first + col.index(m)
        # only the criteria's columns are needed again
        self.spool.add([([v[nb + j] for j in crit], r, o)
                        for v, r, o in batch], n)

    def rows(self):
        """Per slice, per name: the % over each criterion (a tuple)."""
        for row in self.spool.rows():
            yield [cell[0] for cell in row]

    def overs(self):
        """Per slice, the criteria a drive's histogram is over:
        [(its name, % over, threshold, limit)]."""
        for row in self.rows():
            over = []
            for name, values in zip(self.names, row):
                for c, v in zip(self.criteria, values):
                    if v >= c.limit:
                        over.append((name, v, c.label, c.limit))
            yield over

    def results(self, slice_sec):
        """The DriveResult of each drive (none before a complete slice)."""
        namer = slice_namer(slice_sec)
        out, i = [], 0
        for dev, pairs in self.drives:
            figures = []
            for base, _name in pairs:
                for j, c in enumerate(self.criteria):
                    m, k = self.maxes[i][j], self.where[i][j]
                    if m is not None:
                        figures.append(DriveFigure(
                            base, c.label, c.limit, m, k, namer(k),
                            self.last[i][j], round(
                                self.rate_sum[i] / self.slices, 1)))
                i += 1
            if figures:
                failed = any(not f.passed for f in figures)
                out.append(DriveResult(dev, "FAIL" if failed else "PASS",
                                       tuple(figures)))
        return tuple(out)

    def close(self):
        if self.spool is not None:
            self.spool.close()


def _pct_range(values):
    lo, hi = min(values), max(values)
    return "%.2f%%" % lo if lo == hi else "%.2f-%.2f%%" % (lo, hi)


def fail_text(drives):
    """The verdict's reason naming the drives over a limit, their figures
    beside the others' (on the first failed figure's criterion), or None
    when none is: '/dev/nvme3n1: reads 7.20% over 1 ms (must be under 5%)
    in hour 6; the other 7: 0.30-0.50%'."""
    bad = [d for d in drives if d.failed]
    if not bad:
        return None
    parts = ["%s: %s" % (d.device, ", ".join(f.text() for f in d.failed))
             for d in bad]
    f0 = bad[0].failed[0]
    others = [f.max_pct for d in drives if not d.failed
              for f in d.figures if f.histogram == f0.histogram and
              f.threshold == f0.threshold]
    if others:
        parts.append("the other%s: %s" % (
            " %d" % len(others) if len(others) > 1 else "",
            _pct_range(others)))
    return "; ".join(parts)
