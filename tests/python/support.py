"""Description: what the Python tests of the act package share (not a test
itself): analysis/ (the package act) and tests/lib/ (synthlog, the one
synthetic-log writer) on sys.path; act_latency.py run as a program on the
fixture logs of tests/golden/fixtures (written by
tests/golden/make_fixtures.py, with the expected outputs in
fixtures/expected/); a plain reading of docs/log-format.md, line by line,
that the fast reader is checked against; the rows of a table parsed back;
and a TestCase with a temporary folder.

A test in a folder of tests/python (latency/, logfile/, ...) puts this
folder on sys.path first:

    sys.path.insert(0, os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))
    import support  # noqa: E402
"""

import os
import random
import re
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
ANALYSIS = os.path.join(REPO, "analysis")
LIB = os.path.join(REPO, "tests", "lib")
for _d in (ANALYSIS, LIB):
    if _d not in sys.path:
        sys.path.insert(0, _d)

import synthlog  # noqa: E402

LATENCY = os.path.join(ANALYSIS, "act_latency.py")
GOLDEN = os.path.join(REPO, "tests", "golden")
FIXTURES = os.path.join(GOLDEN, "fixtures")
EXPECTED = os.path.join(FIXTURES, "expected")


# ---------------------------------------------------------------------------
# act_latency.py as a program.

def run_latency(args, cwd=FIXTURES, stdin=None):
    """Run act_latency.py ARGS in cwd (default: the fixture logs' folder);
    returns (exit status, stdout, stderr)."""
    p = subprocess.run([sys.executable, LATENCY] + args, cwd=cwd,
                       capture_output=True, text=True, input=stdin)
    return p.returncode, p.stdout, p.stderr


def read(path):
    with open(path) as f:
        return f.read()


# The --check note of several logs, and of one 8-second run in 2-second
# slices (docs/act_latency.md: a certification is 24 hours in 3600 s
# slices).
MULTI_NOTE = ("note: an ACT certification needs 24-hour runs judged in 3600 s "
              "slices (-t 3600); not every log here is: these verdicts are "
              "not a certification\n")
NOTE_8S = ("note: an ACT certification needs 24-hour runs judged in 3600 s "
           "slices (-t 3600); this run is 8 sec and its slices are 2 sec: "
           "this verdict is not a certification\n")

# The three nodes of a cluster (fixtures node1.log .. node3.log) and the
# outlier line of their comparison (-t 2).
NODES = ["-l", "node1.log", "-l", "node2.log", "-l", "node3.log"]
NODES_WORST = ("worst: node3.log, 8.18% over 1 ms at its worst slice, 4.0x "
               "the median of the others (2.05%)")


# ---------------------------------------------------------------------------
# Logs made to order, and a plain reading of docs/log-format.md, line by
# line, to check the fast parser.

def synthetic_log(seconds, names, seed, interval=1, widen=True,
                  junk=False, gaps=(), base=0):
    """A log whose field widths change often (counts crossing powers of
    ten, buckets appearing), optionally with junk lines, missing reports,
    and a big start count in bucket 0 (base)."""
    rnd = random.Random(seed)
    head = ["", "ACT version 6.6", "Storage device IO test", "x", "",
            "ACT-STORAGE CONFIGURATION", "device-names: /dev/sdb",
            "report-interval-sec: %d" % interval,
            "microsecond-histograms: no", "",
            "DERIVED CONFIGURATION", "large-block-reads-per-sec: 1.00", "",
            "HISTOGRAM NAMES"] + names + [""]
    cum = {n: [base] + [0] * 64 for n in names}
    out = head
    for t in range(interval, seconds + 1, interval):
        if t in gaps:
            continue
        out.append("after %d sec:" % t)
        for h, n in enumerate(names):
            c = cum[n]
            scale = 10 ** (t // 7 % 4) if widen else 1
            for b in range(0, 12):
                if rnd.random() < 0.5 ** b:
                    c[b] += rnd.randint(0, 3 * scale)
            if widen and rnd.random() < 0.05:
                c[rnd.randint(12, 64)] += 1
            if junk and rnd.random() < 0.1:
                out.append("ERROR: something %d" % t)
            out.extend(synthlog.histogram(n, c))
        if junk and rnd.random() < 0.1:
            out.append("WARNING: between reports")
        out.append("")
    return "\n".join(out) + "\n"


def naive_reports(text, names):
    """{time: {name: (total, {bucket: count}) or None if cut short}} from a
    log's text, following docs/log-format.md line by line; a partial last line
    is dropped."""
    if not text.endswith("\n"):
        text = text[:text.rfind("\n") + 1]
    reports, cur, hist = {}, None, None
    body = text[text.index("HISTOGRAM NAMES"):]
    for line in body.split("\n"):
        m = re.match(r"after (\d+) sec:$", line)
        if m:
            cur = reports.setdefault(int(m.group(1)), {})
            hist = None
            continue
        if cur is None:
            continue
        m = re.match(r"(.*) \((\d+) total\)$", line)
        if m and m.group(1) in names:
            hist = None
            if m.group(1) not in cur:
                hist = cur[m.group(1)] = (int(m.group(2)), {})
            continue
        if line.startswith(" (") and hist is not None:
            for b, c in re.findall(r"\((\d+): (\d+)\)", line):
                hist[1][int(b)] = int(c)
    return reports


def naive_slices(text, names, selected, slice_sec, buckets):
    """Per slice: per selected histogram (percentages, rate), by the
    spec's formula; stops at the first missing or incomplete report, slice
    end or not (then at the slice ends before it)."""
    reports = naive_reports(text, names)
    interval = int(re.search(r"report-interval-sec: (\d+)", text).group(1))
    t = interval
    while t in reports and all(
            n in reports[t] and
            sum(reports[t][n][1].values()) == reports[t][n][0]
            for n in selected):
        t += interval
    rows, prev, k = [], {n: ({}, 0) for n in selected}, 1
    while True:
        rep = reports.get(k * slice_sec)
        if rep is None or k * slice_sec >= t:
            return rows
        row = []
        for name in selected:
            if name not in rep:
                return rows
            total, counts = rep[name]
            if sum(counts.values()) != total:
                return rows
            pcounts, ptotal = prev[name]
            d = {b: counts.get(b, 0) - pcounts.get(b, 0) for b in range(65)}
            ops = total - ptotal
            pcts = []
            for b in buckets:
                over = ops - sum(d[i] for i in range(b + 1))
                pcts.append(round(100.0 * over / ops, 2) if ops else 0.0)
            row.append((tuple(pcts), round(ops / slice_sec, 1)))
        for name in selected:
            prev[name] = (rep[name][1], rep[name][0])
        rows.append(row)
        k += 1


# ---------------------------------------------------------------------------
# Tables parsed back, and a temporary folder.

def table_rows(out):
    """{slice label: [values...]} from a table output."""
    rows = {}
    for line in out.split("\n"):
        m = re.match(r"^ *(\d+|avg|max) ((?: +-?\d+\.\d+)+)$", line)
        if m:
            rows[m.group(1)] = [float(v) for v in m.group(2).split()]
    return rows


def compare_rows(out):
    """{slice label: [cells]} of a comparison table; a cell is a float or
    None for a slice the log does not have."""
    rows = {}
    for line in out.split("\n"):
        m = re.match(r"^ *(\d+|avg|max) ((?: +(?:-?\d+\.\d+|-))+)$", line)
        if m:
            rows[m.group(1)] = [None if v == "-" else float(v)
                                for v in m.group(2).split()]
    return rows


class TempLogs(unittest.TestCase):
    """Tests that write their logs in a temporary folder (self.tmp), and
    run the script there."""

    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.tmp = self._tmp.name

    def tearDown(self):
        self._tmp.cleanup()

    def write(self, name, text):
        path = os.path.join(self.tmp, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
        return path

    def run_here(self, args):
        return run_latency(args, cwd=self.tmp)

