#!/usr/bin/env python3
"""Tests of analysis/act_latency.py.

    python3 tests/analysis/test_act_latency.py [-v]      (from any folder)

- reference outputs: the three outputs of the reference script for
  shared/examples/example_storage.log, byte for byte;
- fixture outputs: fixture logs (fixtures/, written by make_fixtures.py)
  with their expected outputs and exit statuses (fixtures/expected/);
- unit tests of the parse -> compute -> format functions;
- the streaming parser against a plain line-by-line reading of docs/log-format.md,
  with tiny read sizes, logs cut anywhere, irregular logs;
- every error path: exit status 2, one message, no traceback;
- --check / --criteria, --json (cross-checked with the table), --plot
  (parsed as XML);
- completeness: stopped, cut and damaged runs are INCOMPLETE and never pass
  --check; --stress; the slice notes on stderr; which histograms are judged;
- several logs in one table (exact layout, labels, the outlier line,
  --check / --json / --plot per log), --csv parsed back, --version, a
  closed output pipe (status 0), the size of a 24-hour -t 1 plot.
"""

import csv
import importlib
import io
import itertools
import json
import operator
import os
import random
import re
import subprocess
import sys
import tempfile
import types
import unittest
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SCRIPT = os.path.join(ROOT, "analysis", "act_latency.py")
FIXTURES = os.path.join(HERE, "fixtures")
EXPECTED = os.path.join(FIXTURES, "expected")

# The act package (analysis/act) as one namespace, al.NAME for every name
# its modules define, as when act_latency.py was a single file.
sys.path.insert(0, os.path.join(ROOT, "analysis"))
al = types.SimpleNamespace()
for _mod in ("act", "act.cli", "act.logfile", "act.logfile.header",
             "act.logfile.reports", "act.logfile.stops",
             "act.logfile.scanner", "act.latency", "act.latency.judge",
             "act.latency.spec", "act.latency.load", "act.latency.verdict",
             "act.latency.text", "act.latency.analysis",
             "act.latency.compare", "act.latency.export",
             "act.latency.plot", "act.latency.driver", "act.latency.main"):
    vars(al).update((k, v) for k, v in
                    vars(importlib.import_module(_mod)).items()
                    if not k.startswith("__"))

# (expected output file, log, arguments after "-l log", exit status)
CASES = [
    ("latency_t1.txt", "example_storage.log", "-t 1", 0),
    ("latency_t2s1n4e2.txt", "example_storage.log", "-t 2 -s 1 -n 4 -e 2",
     0),
    ("latency_t3xhreadshlargeblockwrites.txt", "example_storage.log",
     "-t 3 -x -h reads -h large-block-writes", 0),
    ("expected/long_names_n2.txt", "storage_long_names.log",
     "-t 2 -n 2 -h reads -h /dev/very-long-device-name-reads "
     "-h /dev/sdc-reads", 0),
    ("expected/long_names_writes_x.txt", "storage_long_names.log",
     "-t 4 -x -n 3 -e 2 -h /dev/very-long-device-name-writes -h writes", 0),
    ("expected/index_us_check.txt", "index_us.log",
     "-t 2 -h reads -h writes -h /dev/nvme1n1-writes -s 6 -n 6 --check", 0),
    ("expected/index_us_t3.txt", "index_us.log", "-t 3 -x -s 8 -n 4 -e 2",
     0),
    ("expected/interval2_t3.txt", "interval2.log", "-t 3", 0),
    ("expected/interval2_t5.txt", "interval2.log",
     "--slice 5 --extra --histogram reads --histogram large-block-writes",
     0),
    ("expected/messy_t1.txt", "messy.log",
     "-t 1 -h reads -h /dev/sdb-reads -h large-block-writes", 0),
    ("expected/messy_t2.txt", "messy.log", "-t 2 -x", 0),
    ("expected/live_t1.txt", "live.log", "-t 1 -x", 0),
    ("expected/live_t3.txt", "live.log", "-t 3 -h large-block-writes", 0),
    ("expected/no_scale_t2.txt", "no_scale.log", "-t 2", 0),
    ("expected/high_s58.txt", "high_buckets.log", "-t 1 -s 58 -n 7", 0),
    ("expected/high_all.txt", "high_buckets.log", "-t 4 -s 0 -n 65", 0),
    ("expected/slow_check.txt", "slow.log", "-t 2 --check", 1),
    ("expected/slow_check_n2.txt", "slow.log", "-t 3 -n 2 --check", 1),
    ("expected/fast_check.txt", "fast.log", "-t 3 --check", 0),
    ("expected/fast_criteria.txt", "fast.log",
     "-t 6 -h reads -h large-block-reads --criteria 1:0.1,2:0.5", 1),
    # a log whose reads fall short of what it plans: NOT JUDGED
    ("expected/interval2_check.txt", "interval2.log", "-t 4 --check", 3),
]


# The --check note of a run shorter than 24 h (or not in hourly slices).
MULTI_NOTE = ("note: an ACT certification needs 24-hour runs judged in 3600 s "
              "slices (-t 3600); not every log here is: these verdicts are "
              "not a certification\n")
NOTE_8S = ("note: an ACT certification needs 24-hour runs judged in 3600 s "
           "slices (-t 3600); this run is 8 sec and its slices are 2 sec: "
           "this verdict is not a certification\n")


def run(args, cwd=FIXTURES, stdin=None):
    """Run the script; returns (exit status, stdout, stderr)."""
    p = subprocess.run([sys.executable, SCRIPT] + args, cwd=cwd,
                       capture_output=True, text=True, input=stdin)
    return p.returncode, p.stdout, p.stderr


def read(path):
    with open(path) as f:
        return f.read()


class Args:
    """A stand-in for parse_args() results in in-process tests."""

    def __init__(self, argv):
        a = al.parse_args(argv)
        a.argv = argv
        self.__dict__.update(vars(a))


def analyse_bytes(data, argv, chunk_size=al.CHUNK_SIZE, stderr=None):
    """Run the analysis in process on log bytes, as act_latency.py -l
    mem.log ARGV: (table text, Analysis); no complete slice is the
    LogError. Warnings go to stderr (a StringIO), or are dropped."""
    args = Args(["-l", "mem.log"] + argv)
    log = al.LogFile("mem.log", io.BytesIO(data))
    log.read_header()
    out = []
    table = al.TextTable(out.extend, args.argv, extra=args.extra,
                         requested=args.spec.slice_sec)
    old, sys.stderr = sys.stderr, stderr or io.StringIO()
    try:
        a = al.analyse(log, args.spec, [table, al._Console("")],
                       keep=True, chunk_size=chunk_size)
    finally:
        sys.stderr = old
    if not a.count:
        raise a.no_slice_error()
    return "\n".join(out) + "\n", a


def slice_values(prev, cur, buckets, slice_sec):
    """One histogram's values for one slice, by the definition
    (docs/act_latency.md, "Slice arithmetic"), to check batch_values.

    prev, cur: hist_vector()s at the slice's start and end (prev all zeros
    for slice 1); buckets: the buckets whose threshold to evaluate.
    Returns (percentages over each bucket's threshold, rate, operations).
    """
    le = list(itertools.accumulate(map(operator.sub, cur[:-1], prev[:-1])))
    total = cur[-1] - prev[-1]
    return (tuple(al.percent_over(total - le[b], total) for b in buckets),
            al.slice_rate(total, slice_sec), total)


# ---------------------------------------------------------------------------
# A plain reading of docs/log-format.md, line by line, to check the fast parser.

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


def plain_mean(values):
    """The spec's avg: the slice values added left to right, over n."""
    total = 0.0
    for v in values:
        total += v
    return total / len(values)


def analysis_rows(a, n_display):
    """The same shape as naive_slices() from an Analysis."""
    return [[(values[:n_display], rate) for values, rate, ops in row]
            for row in a.rows()]


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
            out.extend(_hist_lines(n, c))
        if junk and rnd.random() < 0.1:
            out.append("WARNING: between reports")
        out.append("")
    return "\n".join(out) + "\n"


def _hist_lines(name, counts):
    lines = ["%s (%d total)" % (name, sum(counts))]
    ent = [" (%02d: %010d)" % (b, c) for b, c in enumerate(counts) if c]
    for i in range(0, len(ent), 4):
        lines.append("".join(ent[i:i + 4]))
    return lines


# ---------------------------------------------------------------------------
# Outputs.

class ReferenceOutputs(unittest.TestCase):
    """The reference script's outputs for the example log, byte for byte."""

    # stderr: -t 3 leaves the last second of the 10-second run out of the
    # slices, which a note says (stdout stays the reference's)
    STDERR = ["", "", "act_latency.py: note: the last 1 sec of the run are "
              "not in any slice: 3 slices of 3 sec end at 9 sec, the run at "
              "10 sec\n"]

    def test_reference_examples(self):
        for (expected, log, args, status), err_text in zip(CASES[:3],
                                                           self.STDERR):
            with self.subTest(args=args):
                code, out, err = run(["-l", log] + args.split())
                self.assertEqual(read(os.path.join(FIXTURES, expected)), out)
                self.assertEqual((status, err_text), (code, err))

    def test_header_lines_keep_trailing_spaces(self):
        code, out, err = run(["-l", "example_storage.log", "-t", "1"])
        names_row = out.split("\n")[40]
        self.assertEqual("        reads" + " " * 43, names_row)


class FixtureOutputs(unittest.TestCase):
    """Fixture logs against their checked-in expected outputs."""

    def test_fixture_cases(self):
        for expected, log, args, status in CASES[3:]:
            with self.subTest(case=expected, args=args):
                code, out, err = run(["-l", log] + args.split())
                self.assertEqual(read(os.path.join(FIXTURES, expected)), out)
                self.assertEqual(status, code)
                self.assertNotIn("Traceback", err)

    def test_expected_numbers_match_the_plain_reading(self):
        # The checked-in tables were written by the script; check their
        # numbers against docs/act_latency.md's formula applied line by line.
        for expected, log, args, status in CASES:
            with self.subTest(case=expected, args=args):
                a = al.parse_args(["-l", log] + args.split())
                text = read(os.path.join(FIXTURES, log))
                with open(os.path.join(FIXTURES, log), "rb") as f:
                    h = al.read_header(f, log)
                slice_sec = -(-a.slice // h.interval) * h.interval
                buckets = list(range(a.start_bucket, a.start_bucket +
                                     a.num_buckets * a.every_nth,
                                     a.every_nth))
                plain = naive_slices(text, h.names, a.histograms,
                                     slice_sec, buckets)
                rows = table_rows(read(os.path.join(FIXTURES, expected)))
                self.assertEqual(len(plain) + 2, len(rows))
                width = len(buckets) + (1 if a.extra else 0)
                for k, slice_row in enumerate(plain):
                    want = []
                    for pcts, rate in slice_row:
                        want += list(pcts) + ([rate] if a.extra else [])
                    self.assertEqual(want, rows[str(k + 1)])
                for i in range(len(a.histograms)):
                    cols = list(zip(*[list(r[i][0]) + [r[i][1]]
                                      for r in plain]))[:width]
                    group = slice(i * width, (i + 1) * width)
                    formats = ["%.2f"] * len(buckets) + ["%.1f"]
                    self.assertEqual(
                        [f % plain_mean(c) for f, c in zip(formats, cols)],
                        [f % v for f, v in zip(formats, rows["avg"][group])])
                    self.assertEqual([max(c) for c in cols],
                                     rows["max"][group])

    def test_first_line_echoes_arguments_as_given(self):
        code, out, err = run(["-l", "example_storage.log", "--slice", "5",
                              "-h", "reads", "-x"])
        self.assertEqual("act_latency.py -l example_storage.log --slice 5 "
                         "-h reads -x", out.split("\n")[0])

    def test_same_results_from_another_folder(self):
        code, out, err = run(["-l", os.path.join(FIXTURES, "index_us.log"),
                              "-t", "3", "-x", "-s", "8", "-n", "4", "-e",
                              "2"], cwd=ROOT)
        expected = read(os.path.join(EXPECTED, "index_us_t3.txt"))
        self.assertEqual(expected.split("\n", 2)[2], out.split("\n", 2)[2])

    def test_stopped_run_and_error_lines(self):
        code, out, err = run(["-l", "messy.log", "-t", "1"])
        self.assertEqual(0, code)
        self.assertEqual(5, len(re.findall(r"(?m)^ +\d+ +\d", out)))
        self.assertEqual("", err)

    def test_live_log_ignores_cut_report_silently(self):
        code, out, err = run(["-l", "live.log", "-t", "1"])
        self.assertEqual((0, ""), (code, err))
        self.assertIn("\n    6  ", out)
        self.assertNotIn("\n    7  ", out)


# ---------------------------------------------------------------------------
# Parse.

class ParseHeader(unittest.TestCase):

    def header(self, name="example_storage.log"):
        with open(os.path.join(FIXTURES, name), "rb") as f:
            h = al.read_header(f, name)
            return h, f.readline()

    def test_storage_header(self):
        h, first_body_line = self.header()
        self.assertEqual("6.6", h.version)
        self.assertEqual(1, h.interval)
        self.assertIs(False, h.microsecond)
        self.assertEqual("ACT-STORAGE CONFIGURATION", h.config[0])
        self.assertEqual("max-lag-sec: 10", h.config[-1])
        self.assertEqual(23, len(h.config))
        self.assertEqual(["DERIVED CONFIGURATION",
                          "record-stored-bytes: 1536 ... 1536",
                          "internal-read-reqs-per-sec: 4000",
                          "internal-write-reqs-per-sec: 0",
                          "large-block-reads-per-sec: 47.06",
                          "large-block-writes-per-sec: 47.06"], h.derived)
        self.assertEqual(["reads", "/tmp/exdev/dev_x-reads",
                          "large-block-reads", "large-block-writes"],
                         h.names)
        self.assertEqual(b"after 1 sec:\n", first_body_line)
        self.assertEqual("1536 ... 1536",
                         h.items(h.derived)["record-stored-bytes"])

    def test_index_microsecond_header(self):
        h, _ = self.header("index_us.log")
        self.assertEqual("ACT-INDEX CONFIGURATION", h.config[0])
        self.assertIs(True, h.microsecond)
        self.assertEqual(6, len(h.names))

    def test_no_scale_line(self):
        h, _ = self.header("no_scale.log")
        self.assertIsNone(h.microsecond)
        self.assertEqual("6.0", h.version)

    def test_version_with_a_patch_number(self):
        good = read(os.path.join(FIXTURES, "example_storage.log"))
        h = al.read_header(io.BytesIO(good.replace(
            "ACT version 6.6", "ACT version 6.6.1").encode()), "x.log")
        self.assertEqual("6.6.1", h.version)

    def test_header_errors(self):
        good = read(os.path.join(FIXTURES, "example_storage.log"))
        cases = [
            ("", "x.log is empty (0 bytes)"),
            ("hello\nworld\n", "no 'ACT version' line"),
            (good.replace("ACT version 6.6", "ACT version 5.3"),
             "ACT version 5.3: only logs of ACT version 6.x"),
            (good.replace("ACT version 6.6", "ACT version 7.0"),
             "only logs of ACT version 6.x"),
            (good.replace("ACT version 6.6", "ACT version six"),
             "ACT version six"),
            (good.replace("report-interval-sec: 1\n", ""),
             "no report-interval-sec line"),
            (good.replace("report-interval-sec: 1\n",
                          "report-interval-sec: x\n"),
             "bad report-interval-sec 'x'"),
            (good.replace("report-interval-sec: 1\n",
                          "report-interval-sec: 0\n"),
             "bad report-interval-sec 0"),
            (good.replace("ACT-STORAGE CONFIGURATION", "SOMETHING ELSE"),
             "no ACT-STORAGE/ACT-INDEX CONFIGURATION block, no "
             "report-interval-sec line"),
            (good.replace("DERIVED CONFIGURATION", "DERIVED"),
             "no DERIVED CONFIGURATION block"),
            (good.replace("HISTOGRAM NAMES", "HISTOGRAMS"),
             "no HISTOGRAM NAMES block"),
        ]
        for text, message in cases:
            with self.subTest(message=message):
                with self.assertRaises(al.LogError) as cm:
                    al.read_header(io.BytesIO(text.encode()), "x.log")
                self.assertIn(message, str(cm.exception))


class ParseReports(unittest.TestCase):

    BLOCK = (b"\nafter 3 sec:\n"
             b"reads (6000 total)\n"
             b" (00: 0000005993) (01: 0000000002) (02: 0000000002)"
             b" (03: 0000000003)\n"
             b"ERROR: read /dev/sdb offset 0 size 512: errno 5 (EIO)\n"
             b"large-block-reads (71 total)\n"
             b" (00: 0000000071)\n"
             b"large-block-writes (0 total)\n"
             b"writes (8 total)\n"
             b" (00: 0000000008)\n"
             b"reads (1 total)\n"
             b" (04: 0000000001)\n")
    KNOWN = {b"reads", b"large-block-reads", b"large-block-writes",
             b"writes"}

    def test_parse_block(self):
        t, hists = al.parse_block(self.BLOCK, {b"reads", b"writes",
                                               b"large-block-writes"},
                                  self.KNOWN)
        self.assertEqual(3, t)
        total, span, buckets = hists[b"reads"]     # first occurrence
        self.assertEqual(6000, total)
        self.assertEqual(b"6000", self.BLOCK[span[0]:span[0] + span[1]])
        self.assertEqual({0: 5993, 1: 2, 2: 2, 3: 3},
                         {b: c for b, (c, _) in buckets.items()})
        off, width = buckets[3][1]
        self.assertEqual(b"0000000003", self.BLOCK[off:off + width])
        self.assertEqual((8, {0: 8}), (hists[b"writes"][0], {
            b: c for b, (c, _) in hists[b"writes"][2].items()}))
        self.assertEqual({}, hists[b"large-block-writes"][2])
        self.assertNotIn(b"large-block-reads", hists)

    def test_exact_names(self):
        # "writes" must not pick up "large-block-writes" (or the reverse)
        t, hists = al.parse_block(self.BLOCK, {b"writes"}, self.KNOWN)
        self.assertEqual(8, hists[b"writes"][0])
        t, hists = al.parse_block(self.BLOCK, {b"large-block"}, self.KNOWN)
        self.assertEqual({}, hists)

    def test_hist_vector(self):
        t, hists = al.parse_block(self.BLOCK, {b"reads", b"writes",
                                               b"large-block-writes"},
                                  self.KNOWN)
        self.assertEqual([5993, 2, 2, 6000], al.hist_vector(hists[b"reads"],
                                                             2))
        self.assertEqual([0, 0], al.hist_vector(
            hists[b"large-block-writes"], 0))
        self.assertIsNone(al.hist_vector(None, 3))
        cut = (6000, None, {0: (5993, None), 1: (2, None)})   # cut short
        self.assertIsNone(al.hist_vector(cut, 3))
        wild = (1, None, {65: (1, None)})
        self.assertIsNone(al.hist_vector(wild, 3))

    def test_parse_criteria(self):
        self.assertEqual(((1.0, 5.0), (8.0, 1.0), (64.0, 0.1)),
                         al.parse_criteria("1:5,8:1,64:0.1"))
        self.assertEqual(((0.5, 2.0),), al.parse_criteria(" 0.5:2 "))
        for bad in ("", "1", "1:2:3", "x:5", "3:5", "0:5", "-2:5", "2:101",
                    "2:-1", "inf:5", "1:nan"):
            with self.subTest(bad=bad):
                self.assertRaises(ValueError, al.parse_criteria, bad)

    def test_buckets_and_slices(self):
        self.assertEqual([0, 1, 2, 3, 4, 5, 6], al.displayed_buckets(0, 7, 1))
        self.assertEqual([1, 3, 5, 7], al.displayed_buckets(1, 4, 2))
        self.assertEqual([64], al.displayed_buckets(64, 1, 5))
        self.assertEqual(4, al.round_up_slice(3, 2))
        self.assertEqual(4, al.round_up_slice(4, 2))
        self.assertEqual(3, al.round_up_slice(1, 3))
        self.assertEqual(3600, al.round_up_slice(3600, 1))


class StreamingParser(unittest.TestCase):
    """The fast parser against the plain line-by-line reading."""

    NAMES = ["reads", "/dev/sdb-reads", "large-block-reads",
             "large-block-writes"]

    def compare(self, text, argv, selected, slice_sec, buckets,
                chunk_sizes=(37, 500, 4096, al.CHUNK_SIZE)):
        expected = naive_slices(text, self.NAMES, selected, slice_sec,
                                buckets)
        for size in chunk_sizes:
            with self.subTest(chunk_size=size, argv=argv):
                _, a = analyse_bytes(text.encode(), argv, size)
                self.assertEqual(expected, analysis_rows(a, len(buckets)))
        return expected

    def test_regular_and_irregular_logs(self):
        for seed in range(4):
            text = synthetic_log(90, self.NAMES, seed, junk=seed % 2 == 1)
            rows = self.compare(text, ["-t", "1", "-h", "reads", "-h",
                                       "large-block-writes"],
                                ["reads", "large-block-writes"], 1,
                                list(range(7)))
            self.assertEqual(90, len(rows))
            self.compare(text, ["-t", "7", "-s", "3", "-n", "5", "-e", "3",
                                "-h", "/dev/sdb-reads"],
                         ["/dev/sdb-reads"], 7, [3, 6, 9, 12, 15])

    def test_wide_counts(self):
        # counts growing past ten digits
        text = synthetic_log(40, self.NAMES, 9, base=9999999000)
        self.assertIn(" (00: 9999999", text)
        self.assertIn(" (00: 10000000", text)
        rows = self.compare(text, ["-t", "2"], ["reads"], 2, list(range(7)))
        self.assertEqual(20, len(rows))

    def test_windows_line_ends(self):
        text = synthetic_log(30, self.NAMES, 10)
        expected = self.compare(text, ["-t", "2"], ["reads"], 2,
                                list(range(7)))
        crlf = text.replace("\n", "\r\n").encode()
        for size in (100, al.CHUNK_SIZE):
            _, a = analyse_bytes(crlf, ["-t", "2"], size)
            self.assertEqual(expected, analysis_rows(a, 7))

    def test_interval_two(self):
        text = synthetic_log(40, self.NAMES, 5, interval=2)
        rows = self.compare(text, ["-t", "3", "-h", "reads"], ["reads"], 4,
                            list(range(7)))
        self.assertEqual(10, len(rows))

    def test_missing_report_stops(self):
        text = synthetic_log(30, self.NAMES, 6, gaps=(12,))
        rows = self.compare(text, ["-t", "4"], ["reads"], 4, list(range(7)))
        self.assertEqual(2, len(rows))      # 4, 8; 12 is missing
        rows = self.compare(text, ["-t", "5"], ["reads"], 5, list(range(7)))
        # 12 is no slice end, but a missing report damages the log at every
        # slice length: 5, 10, then the analysis stops
        self.assertEqual(2, len(rows))

    def test_log_cut_anywhere(self):
        text = synthetic_log(12, self.NAMES, 7, widen=False)
        body = text.index("after 1 sec:")
        for cut in range(body, len(text) + 1, 7):
            part = text[:cut]
            expected = naive_slices(part, self.NAMES, ["large-block-reads"],
                                    1, list(range(7)))
            if not expected:
                continue
            with self.subTest(cut=cut):
                _, a = analyse_bytes(part.encode(), ["-t", "1", "-h",
                                                     "large-block-reads"],
                                     64)
                self.assertEqual(expected, analysis_rows(a, 7))

    def test_same_size_reports_with_another_layout(self):
        # Report 3 has buckets {0, 2, 3} instead of {0, 1, 2} (a damaged
        # log): same size as the others, so only the per-report layout
        # checks can tell that its counts are elsewhere.
        head = synthetic_log(0, ["reads"], 0)
        body = []
        for t in range(1, 7):
            sets = {0: 1000 * t, 1: 20 * t, 2: 3 * t}
            if t == 3:
                sets = {0: 1000 * t, 2: 20 * t, 3: 3 * t}
            counts = [sets.get(b, 0) for b in range(65)]
            body += ["after %d sec:" % t] + _hist_lines("reads", counts)
            body.append("")
        text = head + "\n".join(body) + "\n"
        sizes = {len(block) for block in text.split("after ")[1:]}
        self.assertEqual(1, len(sizes))
        rows = self.compare(text, ["-t", "1", "-n", "4"], ["reads"], 1,
                            [0, 1, 2, 3])
        self.assertEqual(((2.25, 6.16, 0.88, 0.0), 1023.0), rows[2][0])

    def test_incomplete_report_inside_log_stops_with_warning(self):
        text = synthetic_log(10, self.NAMES, 8, widen=False)
        start = text.index("after 5 sec:")
        line = text.index("\n (", text.index("\nreads (", start)) + 1
        text = text[:line] + text[text.index("\n", line) + 1:]
        stderr = io.StringIO()
        _, a = analyse_bytes(text.encode(), ["-t", "1"], 100, stderr)
        self.assertEqual([1, 2, 3, 4], list(a.ends))
        self.assertIn("the report after 5 sec is incomplete",
                      stderr.getvalue())


# ---------------------------------------------------------------------------
# Compute.

class Compute(unittest.TestCase):

    def test_percent_rounding(self):
        self.assertEqual(0.12, al.percent_over(1, 800))      # 0.125
        self.assertEqual(0.38, al.percent_over(3, 800))      # 0.375
        self.assertEqual(33.33, al.percent_over(1, 3))
        self.assertEqual(100.0, al.percent_over(5, 5))
        self.assertEqual(0.0, al.percent_over(0, 0))
        self.assertEqual(0.0, al.percent_over(0, 17))

    def test_rate_rounding(self):
        self.assertEqual(3996.7, al.slice_rate(11990, 3))
        self.assertEqual(47.3, al.slice_rate(142, 3))
        self.assertEqual(0.0, al.slice_rate(0, 3600))

    def test_slice_values(self):
        prev = [10, 2, 1, 0, 13]
        cur = [1010, 12, 5, 3, 1030]                 # buckets 0..3, total
        vals, rate, ops = slice_values(prev, cur, [0, 1, 3], 10)
        # 1017 ops: 1000 in bucket 0, 10 in 1, 4 in 2, 3 in 3
        self.assertEqual((round(1700 / 1017, 2), round(700 / 1017, 2), 0.0),
                         vals)
        self.assertEqual((101.7, 1017), (rate, ops))

    def test_batch_values_matches_slice_values(self):
        rnd = random.Random(3)
        top, n = 6, 40
        vectors, cur = [], [0] * (top + 2)
        for _ in range(n):
            for b in range(top + 1):
                k = rnd.choice([0, 0, 1, 5, 300])
                cur[b] += k
                cur[top + 1] += k
            cur[top + 1] += rnd.choice([0, 2])       # buckets above top
            vectors.append(list(cur))
        columns = [list(c) for c in zip(*vectors)]
        columns[5] = None if not any(columns[5]) else columns[5]
        prev = [0] * (top + 2)
        evaluated = [0, 2, 3, 6, 3]
        values, rates, ops = al.batch_values(
            columns, prev, n, top, evaluated, al.PercentCaches(),
            al.FuncCache(lambda o: al.slice_rate(o, 3)))
        last = [0] * (top + 2)
        for k, vec in enumerate(vectors):
            vals, rate, o = slice_values(last, vec, evaluated, 3)
            self.assertEqual(vals, tuple(v[k] for v in values))
            self.assertEqual((rate, o), (rates[k], ops[k]))
            last = vec
        self.assertEqual(vectors[-1], prev)

    def test_mean_is_a_plain_float_mean(self):
        # 0.01 + 0.02 = 0.03 - 1e-18 in floats, so the mean prints 0.01
        # (exact decimal arithmetic would give 0.015 -> 0.02).
        self.assertEqual("   0.01", "%7.2f" % al.mean([0.01, 0.02]))
        self.assertEqual(3996.6666666666665,
                         al.mean([3997.0, 3996.3, 3996.7]))
        self.assertEqual(0.0, al.mean([]))

    def test_criterion_buckets(self):
        c = al.Criterion(1, 5, False)
        self.assertEqual((0, "1 ms"), (c.bucket, c.label))
        c = al.Criterion(64, 0.1, False)
        self.assertEqual((6, "64 ms"), (c.bucket, c.label))
        c = al.Criterion(8, 1, True)
        self.assertEqual((13, "8192 us"), (c.bucket, c.label))
        c = al.Criterion(0.5, 1, True)
        self.assertEqual((9, "512 us"), (c.bucket, c.label))
        self.assertRaises(al.LogError, al.Criterion, 0.5, 1, False)
        self.assertRaises(al.LogError, al.Criterion, 2.0 ** 65, 1, False)

    def test_evaluate(self):
        crit = [al.Criterion(1, 5, False), al.Criterion(8, 1, False)]
        res = al.evaluate(crit, ["reads", "writes"], [[4.99, 1.0],
                                                      [5.0, 0.0]])
        self.assertEqual([True, False, False, True],
                         [r["pass"] for r in res])
        self.assertEqual(("writes", "1 ms", 5.0, 5.0),
                         (res[2]["histogram"], res[2]["threshold"],
                          res[2]["limit_pct"], res[2]["max_pct"]))


# ---------------------------------------------------------------------------
# Format.

class Format(unittest.TestCase):

    def test_widths_and_padding_for_long_names(self):
        long = "/dev/very-long-device-name-reads"          # 32 characters
        names = ["reads", long, "writes"]
        rows = al.table_header(names, [0, 1], "ms", False)
        w = 14                                            # 7 * 2 buckets
        pad = " " * (len(long) + 1 - w)                   # 19
        self.assertEqual(19, len(pad))
        self.assertEqual("     " + "   reads        " + "   " + long +
                         "   writes       ", rows[0])
        unit = " %>(ms)       "
        self.assertEqual("     " + "  " + unit + "  " + unit + "  " + pad +
                         unit, rows[1])
        self.assertEqual("slice" + "        1      2" * 2 + "  " + pad +
                         "      1      2", rows[2])
        self.assertEqual("-----" + "   ------ ------" * 2 + "  " + pad +
                         " ------ ------", rows[3])
        fmt = al.row_format(names, 2, False)
        row = al.format_row(fmt, 1, [(0.5, 0.25), (1.0, 0.0), (2, 3)],
                            [0, 0, 0], 2, False)
        self.assertEqual("    1     0.50   0.25     1.00   0.00  " + pad +
                         "   2.00   3.00", row)
        # every value ends where its label ends
        for label_end in [m.end() for m in re.finditer(r"\d", rows[2])]:
            self.assertIn(row[label_end - 1], "0123456789")

    def test_extra_and_a_name_that_just_fits(self):
        names = ["x" * 31, "y"]            # W = 7 + 11 = 18 ... use -n 3
        rows = al.table_header(names, [0, 1, 2], "us", True)
        w = 7 * 3 + 11                     # 32: "x"*31 plus one fits
        self.assertEqual(len("     " + "  " + " " + "x" * 31 + "  " + " "),
                         rows[0].index("y"))
        group = "  " + "      1      2      4       rate"
        self.assertEqual("slice" + group * 2, rows[2])
        self.assertEqual("     " + "  " + " %>(us)".ljust(w) + "  " +
                         " %>(us)".ljust(w), rows[1])

    def test_header_lines(self):
        h = al.LogHeader()
        h.version, h.microsecond = "6.2", None
        h.config = ["ACT-INDEX CONFIGURATION", "a: 1"]
        h.derived = ["DERIVED CONFIGURATION", "b: 2"]
        h.names_block = ["HISTOGRAM NAMES", "reads"]
        self.assertEqual(
            ["act_latency.py -l x -t 3", "x is ACT version 6.2", "",
             "analyzing time slices of 4 seconds",
             "can't find histograms' scale, assuming milliseconds",
             "ACT-INDEX CONFIGURATION", "a: 1", "",
             "DERIVED CONFIGURATION", "b: 2", "",
             "HISTOGRAM NAMES", "reads", ""],
            al.header_lines(["-l", "x", "-t", "3"], "x", h, 4, True))

    def test_all_buckets_labels(self):
        rows = al.table_header(["reads"], list(range(62, 65)), "ms", False)
        self.assertEqual("slice" + "  " + "%7s%7s%7s" % (
            2 ** 62, 2 ** 63, 2 ** 64), rows[2])


# ---------------------------------------------------------------------------
# Errors: exit status 2, one message, no traceback.

class Errors(unittest.TestCase):

    def assertUserError(self, args, message, cwd=FIXTURES):
        code, out, err = run(args, cwd=cwd)
        self.assertEqual(2, code, err)
        self.assertIn(message, err)
        self.assertTrue(err.startswith("act_latency.py: error: "), err)
        self.assertNotIn("Traceback", err)
        self.assertEqual("", out)

    def test_command_line_errors(self):
        log = ["-l", "example_storage.log"]
        cases = [
            ([], "the log is required"),
            (["-t", "2"], "the log is required"),
            (log + ["-t", "abc"], "argument -t/--slice: invalid int value"),
            (log + ["-t", "0"], "-t/--slice must be at least 1 second"),
            (log + ["-n", "0"], "-n/--num_buckets must be at least 1"),
            (log + ["-e", "0"], "-e/--every_nth must be at least 1"),
            (log + ["-s", "-1"], "-s/--start_bucket must be within 0..64"),
            (log + ["-s", "65"], "-s/--start_bucket must be within 0..64"),
            (log + ["-s", "60", "-n", "7"], "would display buckets up to 66"),
            (log + ["-n", "20", "-e", "4"], "would display buckets up to 76"),
            (log + ["-s", "x1"], "invalid int value"),
            (log + ["-h"], "expected one argument"),
            (log + ["--bogus"], "unrecognized arguments: --bogus"),
            (log + ["--criteria", "1:5,3:1"], "must be a power of two"),
            (log + ["--criteria", "1:500"], "within 0..100"),
            (log + ["--criteria", "0.5:1"], "a millisecond log starts at"),
            (log + ["--plot", "no/such/folder/p.svg"],
             "cannot write the plot"),
        ]
        for args, message in cases:
            with self.subTest(args=args):
                self.assertUserError(args, message)

    def test_log_errors(self):
        with tempfile.TemporaryDirectory() as tmp:
            good = read(os.path.join(FIXTURES, "example_storage.log"))
            files = {
                "empty.log": "",
                "text.log": "just some text\n",
                "v5.log": good.replace("ACT version 6.6", "ACT version 5.3"),
                "nonames.log": good.replace("HISTOGRAM NAMES", "NAMES"),
                "noreports.log": good[:good.index("after 1 sec:")],
                "binary.log": None,
                # a program's strings: a version line, then NUL bytes
                "program.log": "\x7fELF\x02\x01\x01\x00\x00\nACT version "
                               "%s\n\x00\x00usage: %s\n",
            }
            for name, text in files.items():
                with open(os.path.join(tmp, name), "wb") as f:
                    f.write(os.urandom(3000) if text is None
                            else text.encode())
            cases = [
                (["-l", "missing.log"],
                 "cannot open the log missing.log: No such file"),
                (["-l", "."], "cannot open the log .: Is a directory"),
                (["-l", "empty.log/x"], "cannot open the log empty.log/x"),
                (["-l", "empty.log"],
                 "error: empty.log is empty (0 bytes): nothing to analyse"),
                (["-l", "text.log"], "text.log is not an ACT log"),
                (["-l", "binary.log"], "error: binary.log is not a text ACT "
                 "log: it holds binary data (NUL bytes)"),
                (["-l", "program.log"], "error: program.log is not a text "
                 "ACT log: it holds binary data (NUL bytes)"),
                (["-l", "v5.log"], "v5.log is ACT version 5.3"),
                (["-l", "nonames.log"], "no HISTOGRAM NAMES block"),
                (["-l", "noreports.log", "-t", "1"],
                 "could not find 1 seconds of data in noreports.log"),
            ]
            for args, message in cases:
                with self.subTest(args=args):
                    self.assertUserError(args, message, cwd=tmp)

    def test_analysis_errors(self):
        cases = [
            (["-l", "example_storage.log", "-h", "large-block"],
             "histogram large-block not in example_storage.log; its "
             "histograms are: reads, /tmp/exdev/dev_x-reads, "
             "large-block-reads, large-block-writes"),
            (["-l", "example_storage.log", "-h", "reads", "-h", "x", "-h",
              "y"], "histogram x, y not in"),
            (["-l", "example_storage.log"],
             "could not find 3600 seconds of data in example_storage.log"),
            (["-l", "interval2.log", "-t", "13"],
             "could not find 14 seconds of data"),
            (["-l", "live.log", "-t", "7"], "could not find 7 seconds"),
            (["-l", "example_storage.log", "--json", "-t", "11"],
             "could not find 11 seconds"),
        ]
        for args, message in cases:
            with self.subTest(args=args):
                self.assertUserError(args, message)

    def test_help(self):
        code, out, err = run(["--help"])
        self.assertEqual((0, ""), (code, err))
        self.assertRegex(out, r"\n  -l( LOG)?, --log LOG ")
        self.assertRegex(out, r"\n  -h( NAME)?, --histogram NAME\s")
        for option in ("--slice", "--start_bucket", "--num_buckets",
                       "--every_nth", "--extra", "--check", "--criteria",
                       "--stress", "--json", "--plot", "(default: 3600)",
                       "(default: reads)"):
            self.assertIn(option, out)

    def test_broken_pipe_is_quiet(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "long.log")
            with open(path, "w") as f:
                f.write(synthetic_log(4000, ["reads"], 1, widen=False))
            p = subprocess.Popen([sys.executable, SCRIPT, "-l", path, "-t",
                                  "1"], stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE)
            p.stdout.readline()
            p.stdout.close()
            err = p.stderr.read().decode()
            p.stderr.close()
            # a closed pipe is the reader's choice: status 0 (issue 14)
            self.assertEqual(0, p.wait())
            self.assertEqual("", err)

    @unittest.skipUnless(os.path.exists("/dev/full"), "needs /dev/full")
    def test_output_that_cannot_be_written(self):
        for extra in ([], ["--json"], ["--check"]):
            with self.subTest(extra=extra), open("/dev/full", "w") as full:
                p = subprocess.run([sys.executable, SCRIPT, "-l",
                                    "example_storage.log", "-t", "1"] + extra,
                                   cwd=FIXTURES, stdout=full,
                                   stderr=subprocess.PIPE, text=True)
                self.assertEqual(2, p.returncode)
                self.assertEqual("act_latency.py: error: cannot write the "
                                 "output: No space left on device\n",
                                 p.stderr)

    def test_main_returns_status(self):
        err = io.StringIO()
        old, sys.stderr = sys.stderr, err
        try:
            status = al.main(["-l", os.path.join(FIXTURES, "nope.log")])
        finally:
            sys.stderr = old
        self.assertEqual(2, status)
        self.assertIn("cannot open the log", err.getvalue())


# ---------------------------------------------------------------------------
# Beyond the reference: --check, --json, --plot.

def table_rows(out):
    """{slice label: [values...]} from a table output."""
    rows = {}
    for line in out.split("\n"):
        m = re.match(r"^ *(\d+|avg|max) ((?: +-?\d+\.\d+)+)$", line)
        if m:
            rows[m.group(1)] = [float(v) for v in m.group(2).split()]
    return rows


class Check(unittest.TestCase):

    def test_pass_and_fail(self):
        code, out, err = run(["-l", "fast.log", "-t", "3", "--check"])
        self.assertEqual(0, code)
        self.assertEqual(3, out.count("\nPASS reads: "))
        self.assertIn("\nresult: PASS (3 of 3 criteria met)\n", out)
        code, out, err = run(["-l", "slow.log", "-t", "2", "--check", "-h",
                              "reads", "-h", "large-block-reads"])
        self.assertEqual(1, code)
        self.assertRegex(out, r"\nFAIL reads: \d+\.\d\d% over 1 ms "
                              r"\(must be under 5%\)\n")
        # large-block histograms are not transactions: not judged
        self.assertNotIn("large-block-reads: ", out)
        self.assertIn("\nnot judged: large-block-reads (the criteria apply "
                      "to the transactions: reads, and writes with "
                      "commit-to-device)\n", out)
        self.assertIn("\nrun: complete (6 sec)\nresult: FAIL (0 of 3 "
                      "criteria met)\n", out)

    def test_verdicts_match_the_max_row(self):
        code, out, err = run(["-l", "slow.log", "-t", "1", "--check"])
        maxes = table_rows(out)["max"]
        for ms, bucket, limit in ((1, 0, 5), (8, 3, 1), (64, 6, 0.1)):
            verdict = "PASS" if maxes[bucket] < limit else "FAIL"
            self.assertIn("\n%s reads: %.2f%% over %d ms " % (
                verdict, maxes[bucket], ms), out)

    def test_criterion_outside_the_displayed_columns(self):
        # -n 2 shows 1 and 2 ms only; the 64 ms criterion is computed from
        # the counts (slow.log has 0.2% of reads in [64, 128) ms)
        code, out, err = run(["-l", "slow.log", "-t", "3", "-n", "2",
                              "--check"])
        self.assertEqual(1, code)
        self.assertRegex(out, r"\nFAIL reads: 0\.[1-9]\d% over 64 ms")
        code, out2, _ = run(["-l", "slow.log", "-t", "3", "--check"])
        self.assertEqual(out.split("\ncheck:")[1], out2.split("\ncheck:")[1])

    def test_custom_criteria(self):
        code, out, err = run(["-l", "fast.log", "-t", "6", "--criteria",
                              "2:0.5,4:0"])
        self.assertEqual(1, code)
        self.assertEqual(0.07, table_rows(out)["max"][1])
        self.assertIn("check: custom criteria on the max row", out)
        self.assertIn("\nPASS reads: 0.07% over 2 ms (must be under 0.5%)",
                      out)
        self.assertIn("\nFAIL reads: 0.00% over 4 ms (must be under 0%)\n",
                      out)
        self.assertIn("\nresult: FAIL (1 of 2 criteria met)\n", out)

    def test_microsecond_log(self):
        code, out, err = run(["-l", "index_us.log", "-t", "3", "--check"])
        self.assertIn("microsecond histograms: 1, 8, 64 ms checked as "
                      "1024 us, 8192 us, 65536 us", out)
        self.assertIn("over 1024 us (must be under 5%)", out)
        self.assertIn("%>(us)", out)


class Json(unittest.TestCase):

    def test_document_matches_the_table(self):
        args = ["-l", "storage_long_names.log", "-t", "2", "-x", "-s", "1",
                "-n", "4", "-h", "reads", "-h", "writes"]
        code, table, _ = run(args)
        code2, text, err = run(args + ["--json", "--check"])
        # NOT JUDGED: the log does not issue its load (reads short of
        # the 2000/s it plans)
        self.assertEqual((0, 3, ""), (code, code2, err))
        doc = json.loads(text)
        self.assertEqual("6.6", doc["version"])
        self.assertEqual("yes", doc["config"]["commit-to-device"])
        self.assertEqual("1000", doc["derived_config"][
            "internal-write-reqs-per-sec"])
        self.assertEqual(8, len(doc["histogram_names"]))
        self.assertEqual(([1, 2, 3, 4], [2, 4, 8, 16], 2, "ms"),
                         (doc["buckets"], doc["thresholds"], doc["slice_sec"],
                          doc["unit"]))
        rows = table_rows(table)
        self.assertEqual(4, len(rows) - 2)
        for i, h in enumerate(doc["histograms"]):
            self.assertEqual(["reads", "writes"][i], h["name"])
            for s in h["slices"]:
                got = s["over_pct"] + [s["rate"]]
                self.assertEqual(rows[str(s["slice"])][5 * i:5 * i + 5], got)
                self.assertEqual(2 * s["slice"], s["end_sec"])
                self.assertEqual(round(s["ops"] / 2, 1), s["rate"])
            self.assertEqual(rows["avg"][5 * i:5 * i + 5],
                             h["avg"]["over_pct"] + [h["avg"]["rate"]])
            self.assertEqual(rows["max"][5 * i:5 * i + 5],
                             h["max"]["over_pct"] + [h["max"]["rate"]])
        check = doc["check"]
        self.assertFalse(check["pass"])
        self.assertEqual(6, len(check["results"]))
        self.assertEqual(({"histogram": "reads", "threshold": "1 ms",
                           "threshold_ms": 1.0, "bucket": 0,
                           "limit_pct": 5.0, "pass": False},
                          [True] * 5),
                         ({k: v for k, v in check["results"][0].items()
                           if k != "max_pct"},
                          [r["pass"] for r in check["results"][1:]]))
        self.assertGreater(check["results"][0]["max_pct"], 5.0)
        self.assertEqual({"histogram": "writes", "threshold": "8 ms",
                          "threshold_ms": 8.0, "bucket": 3, "limit_pct": 1.0,
                          "max_pct": 0.0, "pass": True},
                         check["results"][4])

    def test_failing_check_and_no_check(self):
        code, text, err = run(["-l", "slow.log", "-t", "3", "--json",
                               "--check"])
        self.assertEqual(1, code)
        self.assertFalse(json.loads(text)["check"]["pass"])
        code, text, err = run(["-l", "slow.log", "-t", "3", "--json"])
        self.assertEqual(0, code)
        self.assertIsNone(json.loads(text)["check"])

    def test_scale_warning_goes_to_stderr(self):
        code, text, err = run(["-l", "no_scale.log", "-t", "2", "--json"])
        self.assertEqual(0, code)
        self.assertIn("can't find histograms' scale", err)
        self.assertFalse(json.loads(text)["scale_known"])


class Plot(unittest.TestCase):

    NS = "{http://www.w3.org/2000/svg}"

    def plot(self, args):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "p.svg")
            code, out, err = run(args + ["--plot", path])
            self.assertEqual("", err)
            return code, out, ET.parse(path).getroot()

    def test_series_per_panel(self):
        code, out, root = self.plot(["-l", "storage_long_names.log", "-t",
                                     "1", "-n", "5", "-h", "reads", "-h",
                                     "/dev/very-long-device-name-writes",
                                     "-h", "large-block-reads"])
        self.assertEqual(0, code)
        self.assertIn("\n    8 ", out)      # the table is still printed
        panels = root.findall(self.NS + "g")
        self.assertEqual(["reads", "/dev/very-long-device-name-writes",
                          "large-block-reads"],
                         [p.get("data-histogram") for p in panels])
        for p in panels:
            series = p.findall(self.NS + "polyline")
            self.assertEqual(["1", "2", "4", "8", "16"],
                             [s.get("data-threshold") for s in series])
            for s in series:
                self.assertEqual(8, len(s.get("points").split()))
            lines = [e for e in p.findall(self.NS + "line")
                     if e.get("class") == "criterion"]
            texts = "".join(t.text or "" for t in p.iter(self.NS + "text"))
            # the criteria judge the transactions only (here: reads)
            judged = p.get("data-histogram") == "reads"
            self.assertEqual(3 if judged else 0, len(lines))
            self.assertEqual(judged, "limit 5% over 1 ms" in texts)
            self.assertEqual(not judged, "not judged by the criteria" in
                             texts)
            self.assertIn("time since start, seconds", texts)

    def test_higher_values_are_drawn_higher(self):
        code, out, root = self.plot(["-l", "slow.log", "-t", "6", "-n",
                                     "3", "--check"])
        self.assertEqual(1, code)
        maxes = table_rows(out)["max"]
        panel = root.find(self.NS + "g")
        ys = [float(s.get("points").split(",")[1])
              for s in panel.findall(self.NS + "polyline")]
        # one slice: one point per series; SVG y grows downwards
        order = sorted(range(3), key=lambda j: maxes[j])
        self.assertEqual(order, sorted(range(3), key=lambda j: -ys[j]))
        texts = "".join(t.text or "" for t in panel.iter(self.NS + "text"))
        self.assertIn("limit 5% over 1 ms: FAIL", texts)

    def test_json_and_plot_together(self):
        code, out, root = self.plot(["-l", "index_us.log", "-t", "2",
                                     "--json", "-h", "writes"])
        self.assertEqual(0, code)
        self.assertEqual("us", json.loads(out)["unit"])
        series = root.find(self.NS + "g").findall(self.NS + "polyline")
        self.assertEqual(7, len(series))


# ---------------------------------------------------------------------------
# Completeness: a run that did not finish never passes.

def naive_run_end(text, names, duration):
    """(complete, ran_sec, stop_reason) by the definition, line by line: the
    last complete report is the last one with every histogram there and
    whole; a `stopped by signal` line, or an ERROR line no report follows,
    after it is a stop."""
    if not text.endswith("\n"):
        text = text[:text.rfind("\n") + 1]
    lines = text[text.index("HISTOGRAM NAMES"):].replace("\r", "").split("\n")
    reports, cur, hist = [], None, None
    for i, line in enumerate(lines):
        m = re.match(r"after (\d+) sec:", line)
        if m:
            cur = {"t": int(m.group(1)), "hists": {}, "end": i}
            reports.append(cur)
            hist = None
            continue
        if cur is None:
            continue
        m = re.match(r"(.*) \((\d+) total\)\s*$", line)
        if m and m.group(1) in names:
            hist = None
            cur["end"] = i
            if m.group(1) not in cur["hists"]:
                hist = cur["hists"][m.group(1)] = [int(m.group(2)), 0]
        elif line.startswith(" ("):
            cur["end"] = i
            if hist is not None:
                hist[1] += sum(int(c) for c in
                               re.findall(r"\(\d+: (\d+)\)", line))
    whole = [r for r in reports
             if all(n in r["hists"] and r["hists"][n][0] == r["hists"][n][1]
                    for n in names)]
    last = whole[-1] if whole else None
    after = lines[last["end"] + 1:] if last else lines
    ran = last["t"] if last else 0
    for line in after:
        m = re.match(r"stopped by signal \S+ after (\d+) sec", line)
        if m:
            return False, int(m.group(1)), line.strip()
    later = [i for i, line in enumerate(after) if line.startswith("after ")]
    for line in after[later[-1] + 1 if later else 0:]:
        if line.startswith("ERROR:"):
            return False, ran, line[len("ERROR:"):].strip()
    if duration is None:
        return last is not None, ran, None if last else \
            "log ends before the first report"
    if last is not None and ran >= duration:
        return True, ran, None
    return False, ran, "log ends after %d of %d sec" % (ran, duration)


PERFECT_CHECK = ("\nPASS reads: 0.00% over 1 ms (must be under 5%)"
                 "\nPASS reads: 0.00% over 8 ms (must be under 1%)"
                 "\nPASS reads: 0.00% over 64 ms (must be under 0.1%)\n")

# The log of a run act stopped because the host could not do the load.
HOST_STOP = "stopped_lag.log"

# log, slice, the run line, JSON (complete, planned_sec, ran_sec, stop_reason)
STOPPED = [
    ("stopped_sigint.log", "2",
     "run: INCOMPLETE - stopped by signal SIGINT after 8 sec (8 of 86400 "
     "sec ran)",
     (False, 86400, 8, "stopped by signal SIGINT after 8 sec")),
    ("stopped_lag.log", "1",
     "run: INCOMPLETE - service threads can't keep up: 10.204 sec behind "
     "schedule, more than max-lag-sec (10) (6 of 86400 sec ran)",
     (False, 86400, 6, "service threads can't keep up: 10.204 sec behind "
      "schedule, more than max-lag-sec (10)")),
    ("stopped_io.log", "1",
     "run: INCOMPLETE - read failed on device /dev/sdb at offset 123456512, "
     "size 1536: Input/output error (errno 5) - failed I/Os: 2, "
     "io-error-limit: 1 (5 of 86400 sec ran)",
     (False, 86400, 5, "read failed on device /dev/sdb at offset 123456512, "
      "size 1536: Input/output error (errno 5) - failed I/Os: 2, "
      "io-error-limit: 1")),
    ("watchdog.log", "3",
     "run: INCOMPLETE - device /dev/sdb: a 1536-byte read at offset 4096 "
     "has been outstanding for 11.002 sec, more than max-lag-sec (10) (6 of "
     "6 sec ran)",
     (False, 6, 6, "device /dev/sdb: a 1536-byte read at offset 4096 has "
      "been outstanding for 11.002 sec, more than max-lag-sec (10)")),
    ("cut_short.log", "4",
     "run: INCOMPLETE - log ends after 8 of 86400 sec (cut short, or still "
     "being written)",
     (False, 86400, 8, "log ends after 8 of 86400 sec")),
]


class Completeness(unittest.TestCase):

    def test_complete_logs_pass(self):
        for log, args, line in [
                ("example_storage.log", "-t 1", "run: complete (10 sec)"),
                ("fast.log", "-t 3", "run: complete (6 sec)"),
                ("odd_end.log", "-t 2", "run: complete (7 sec)"),
                ("hour.log", "-t 3600", "run: complete (3600 sec)"),
                ("day.log", "-t 3600", "run: complete (86400 sec)")]:
            with self.subTest(log=log):
                code, out, err = run(["-l", log, "--check"] + args.split())
                self.assertEqual(0, code, out)
                self.assertIn("\n%s\nresult: PASS (3 of 3 criteria met)\n"
                              % line, out)
                doc = json.loads(run(["-l", log, "--check", "--json"] +
                                     args.split())[1])
                self.assertEqual((True, None), (doc["complete"],
                                                doc["stop_reason"]))
                self.assertEqual(("PASS", True, True),
                                 (doc["check"]["result"],
                                  doc["check"]["pass"],
                                  doc["check"]["complete"]))

    def test_stopped_and_cut_runs_are_incomplete(self):
        # perfect latencies: every criterion met, and still no pass
        for log, t, line, fields in STOPPED:
            with self.subTest(log=log):
                code, out, err = run(["-l", log, "-t", t, "--check"])
                self.assertNotIn("result: PASS", out)
                if log == HOST_STOP:
                    continue        # test_host_limit_stop_is_not_judged
                self.assertEqual(1, code)
                self.assertIn(PERFECT_CHECK + line + "\nresult: INCOMPLETE "
                              "(the run did not finish; 3 of 3 criteria met "
                              "on the part that ran)\n", out)

    def test_host_limit_stop_is_not_judged(self):
        # act stopped: the host could not do the requested load - neither
        # the drive's FAIL nor a PASS (docs/act_latency.md, "The load")
        line = [x[2] for x in STOPPED if x[0] == HOST_STOP][0]
        for extra, stress in (([], ""), (["--stress"], "stress test: ")):
            code, out, err = run(["-l", HOST_STOP, "-t", "1", "--check"] +
                                 extra)
            self.assertEqual(3, code)
            self.assertIn(line + "\nload: the host could not issue the load "
                          "(act stopped: it can't do the requested load; try "
                          "more service-threads)\nresult: NOT JUDGED (%sthe "
                          "host could not issue the load; 3 of 3 criteria met"
                          % stress, out)

    def test_json_fields(self):
        for log, t, line, fields in STOPPED + [
                ("messy.log", "1", None,
                 (False, 5, 5, "stopped by signal SIGINT after 5 sec")),
                ("live.log", "1", None,
                 (False, 7, 6, "log ends after 6 of 7 sec")),
                ("example_storage.log", "1", None, (True, 10, 10, None)),
                ("odd_end.log", "2", None, (True, 7, 7, None))]:
            with self.subTest(log=log):
                code, text, err = run(["-l", log, "-t", t, "--json"])
                self.assertEqual(0, code)       # no --check: no verdict
                doc = json.loads(text)
                self.assertEqual(fields, (doc["complete"], doc["planned_sec"],
                                          doc["ran_sec"], doc["stop_reason"]))
                self.assertIsNone(doc["check"])
                code, text, err = run(["-l", log, "-t", t, "--json",
                                       "--check"])
                check = json.loads(text)["check"]
                self.assertEqual(fields[0], check["pass"])
                self.assertEqual(fields[0], check["complete"])
                if log == HOST_STOP:
                    self.assertEqual((3, "NOT JUDGED"),
                                     (code, check["result"]))
                    continue
                self.assertEqual(0 if fields[0] else 1, code)
                self.assertEqual("PASS" if fields[0] else "INCOMPLETE",
                                 check["result"])

    def test_messy_and_live_logs(self):
        code, out, err = run(["-l", "messy.log", "-t", "1", "--check"])
        self.assertEqual(1, code)
        self.assertIn("\nrun: INCOMPLETE - stopped by signal SIGINT after 5 "
                      "sec (5 of 5 sec ran)\n", out)
        code, out, err = run(["-l", "live.log", "-t", "1", "--check"])
        self.assertEqual((1, ""), (code, err))
        self.assertIn("\n    6  ", out)     # the table prints as before
        self.assertIn("\nrun: INCOMPLETE - log ends after 6 of 7 sec (cut "
                      "short, or still being written)\n", out)

    def test_errors_between_reports_are_not_stops(self):
        # odd_end.log has an I/O error between reports 4 and 6, messy.log
        # ERROR lines inside and between reports; stopped_io.log an earlier
        # I/O error that is not its stop
        self.assertEqual(0, run(["-l", "odd_end.log", "-t", "2",
                                 "--check"])[0])
        doc = json.loads(run(["-l", "stopped_io.log", "-t", "1",
                              "--json"])[1])
        self.assertIn("failed I/Os: 2", doc["stop_reason"])

    def test_criteria_do_not_decide_an_incomplete_run(self):
        text = read(os.path.join(FIXTURES, "slow.log"))
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "slow_stopped.log")
            with open(path, "w") as f:
                f.write(text.replace("test-duration-sec: 6",
                                     "test-duration-sec: 60"))
            code, out, err = run(["-l", path, "-t", "3", "--check"])
        self.assertEqual(1, code)
        self.assertIn("\nresult: INCOMPLETE (the run did not finish; 0 of 3 "
                      "criteria met on the part that ran)\n", out)

    def test_reference_rounding_of_the_last_report(self):
        # The reference ACT prints its last report at the next multiple of
        # the interval (test-duration-sec 7, interval 2: after 8 sec).
        text = synthetic_log(8, ["reads"], 3, interval=2).replace(
            "report-interval-sec: 2", "test-duration-sec: 7\n"
            "report-interval-sec: 2")
        _, a = analyse_bytes(text.encode(), ["-t", "2"])
        self.assertEqual(("complete", 7, 8, None),
                         (a.run.kind, a.run.planned, a.run.ran, a.run.reason))

    def test_log_without_test_duration(self):
        good = read(os.path.join(FIXTURES, "example_storage.log"))
        old = good.replace("test-duration-sec: 10\n", "")
        _, a = analyse_bytes(old.encode(), ["-t", "1"])
        self.assertEqual(("complete", None, 10), (a.run.kind, a.run.planned,
                                                   a.run.ran))
        self.assertEqual("complete (10 sec; the log has no test-duration-sec,"
                         " so only the absence of a stop line was checked)",
                         al.run_text(a.run))
        _, a = analyse_bytes((old + "stopped by signal SIGTERM after 10 sec"
                              "\n").encode(), ["-t", "1"])
        self.assertEqual("INCOMPLETE - stopped by signal SIGTERM after 10 sec"
                         " (10 sec ran)", al.run_text(a.run))

    def test_damaged_log_is_incomplete(self):
        text = synthetic_log(30, ["reads"], 6, gaps=(12,)).replace(
            "report-interval-sec: 1", "test-duration-sec: 30\n"
            "report-interval-sec: 1")
        stderr = io.StringIO()
        _, a = analyse_bytes(text.encode(), ["-t", "4", "--check"],
                             stderr=stderr)
        self.assertEqual(("damaged", 8), (a.run.kind, a.run.ran))
        self.assertEqual("damaged log: there is no report after 12 sec; the "
                         "rest of the log is ignored", a.run.reason)
        self.assertEqual("INCOMPLETE", a.verdict.result)
        self.assertIn("(8 sec analysed)", al.run_text(a.run))

    def test_run_end_matches_the_definition_wherever_the_log_is_cut(self):
        names = ["reads", "/dev/sdb-reads", "large-block-reads",
                 "large-block-writes"]
        head = synthetic_log(0, names, 0)
        text = synthetic_log(9, names, 7, widen=False).replace(
            "report-interval-sec: 1", "test-duration-sec: 9\n"
            "report-interval-sec: 1")
        ends = {
            "complete": "",
            "signal": "stopped by signal SIGINT after 9 sec\n",
            "error": "ERROR: drive(s) can't keep up - test stopped\n",
            "errors": "ERROR: a\nWARNING: b\nERROR: c\n",
        }
        for what, end in ends.items():
            full = text + end
            body = len(head) - 1
            for cut in list(range(body, len(full) + 1, 11)) + [len(full)]:
                part = full[:cut]
                want = naive_run_end(part, names, 9)
                for size in (37, 64, 500, al.CHUNK_SIZE):
                    with self.subTest(what=what, cut=cut, size=size):
                        try:
                            _, a = analyse_bytes(part.encode(), ["-t", "1"],
                                                 size)
                        except al.LogError:
                            continue            # no slice yet
                        self.assertEqual(want, (a.run.complete, a.run.ran,
                                                a.run.reason))

    def test_run_end_unit(self):
        known = {b"reads", b"writes"}
        rep = (b"after %d sec:\nreads (3 total)\n (00: 0000000003)\n"
               b"writes (0 total)\n\n")
        cases = [
            (rep % 5 + rep % 6, 6, ("complete", 6, None)),
            (rep % 5 + rep % 6, 60, ("cut", 6, "log ends after 6 of 60 sec")),
            (rep % 5 + b"ERROR: x\n" + rep % 6, 6, ("complete", 6, None)),
            (rep % 6 + b"ERROR: late\n", 6, ("stopped", 6, "late")),
            (rep % 5 + b"ERROR: a\n" + b"after 6 sec:\nreads (3 total)\n",
             9, ("cut", 5, "log ends after 5 of 9 sec")),
            (rep % 5 + b"after 6 sec:\nreads (3 total)\n ERROR: z\n"
             b"stopped by signal SIGTERM after 6 sec\n", 9,
             ("stopped", 6, "stopped by signal SIGTERM after 6 sec")),
            (rep % 5 + (rep % 6).replace(b"writes (0", b"writes (1"), 9,
             ("cut", 5, "log ends after 5 of 9 sec")),
            (b"ERROR: thread creation failed\n", 9,
             ("stopped", 0, "thread creation failed")),
            (b"\n", None, ("cut", 0, "log ends before the first report")),
            (rep % 5, None, ("complete", 5, None)),
            ((rep % 5 + rep % 6).replace(b"\n", b"\r\n") +
             b"ERROR: y\r\n", 6, ("stopped", 6, "y")),
        ]
        for tail, duration, want in cases:
            with self.subTest(tail=tail, duration=duration):
                r = al.run_end(b"\n" + tail, known, duration)
                self.assertEqual(want, (r.kind, r.ran, r.reason))


class Stress(unittest.TestCase):

    def test_complete_run_passes_whatever_the_latencies(self):
        code, out, err = run(["-l", "slow.log", "-t", "1", "--stress"])
        self.assertEqual(0, code)
        self.assertIn("\ncheck: stress test, passes if the run completed; "
                      "standard ACT criteria on the max row, for information "
                      "only\nFAIL reads: ", out)
        self.assertIn("\nrun: complete (6 sec)\nresult: PASS (stress test: "
                      "the run completed; 0 of 3 criteria met, for "
                      "information)\n", out)

    def test_incomplete_run_fails(self):
        for log, t, line, fields in STOPPED:
            if log == HOST_STOP:
                continue        # NOT JUDGED: test_host_limit_stop_is_not_...
            with self.subTest(log=log):
                code, out, err = run(["-l", log, "-t", t, "--check",
                                      "--stress"])
                self.assertEqual(1, code)
                self.assertIn("\n%s\nresult: INCOMPLETE (stress test: the "
                              "run did not finish; 3 of 3 criteria met, for "
                              "information)\n" % line, out)

    def test_stress_implies_check_and_json(self):
        code, out, err = run(["-l", "slow.log", "-t", "6", "--stress"])
        self.assertEqual(0, code)
        self.assertIn("\nresult: PASS (stress test", out)
        code, text, err = run(["-l", "slow.log", "-t", "6", "--stress",
                               "--json"])
        check = json.loads(text)["check"]
        self.assertEqual((0, True, False, True, "PASS"),
                         (code, check["stress"], check["criteria_pass"],
                          check["pass"], check["result"]))
        code, text, err = run(["-l", "cut_short.log", "-t", "8", "--stress",
                               "--json"])
        check = json.loads(text)["check"]
        self.assertEqual((1, True, False, "INCOMPLETE"),
                         (code, check["criteria_pass"], check["pass"],
                          check["result"]))

    def test_stress_without_a_transaction_histogram(self):
        code, out, err = run(["-l", "slow.log", "-t", "6", "-h",
                              "large-block-reads", "--stress"])
        self.assertEqual(0, code)
        self.assertIn("\nnot judged: large-block-reads (", out)
        self.assertIn("\nnot analysed: reads (add -h reads to judge it "
                      "too)\n", out)
        self.assertIn("\nresult: PASS (stress test: the run completed)\n",
                      out)


class JudgedHistograms(unittest.TestCase):

    def header(self, name):
        with open(os.path.join(FIXTURES, name), "rb") as f:
            return al.read_header(f, name)

    def test_transactions_only(self):
        self.assertEqual({"reads"},
                         al.judged_histograms(self.header("slow.log")))
        self.assertEqual({"reads", "writes"}, al.judged_histograms(
            self.header("storage_long_names.log")))     # commit-to-device
        self.assertEqual({"reads"},                     # act_index: cache
                         al.judged_histograms(self.header("index_us.log")))

    def test_check_and_json_judge_the_same(self):
        args = ["-l", "storage_long_names.log", "-t", "2", "-h", "reads",
                "-h", "large-block-writes", "-h", "writes", "-h",
                "/dev/sdc-writes", "--check"]
        code, out, err = run(args)
        self.assertEqual(["reads", "writes"], sorted(set(re.findall(
            r"(?m)^(?:PASS|FAIL) ([^:]+):", out))))
        self.assertIn("\nnot judged: large-block-writes, /dev/sdc-writes (",
                      out)
        check = json.loads(run(args + ["--json"])[1])["check"]
        self.assertEqual(["reads", "writes"],
                         sorted({r["histogram"] for r in check["results"]}))
        self.assertEqual(["large-block-writes", "/dev/sdc-writes"],
                         check["not_judged"])
        self.assertEqual([], check["not_analysed"])

    def test_judged_histogram_not_analysed(self):
        code, out, err = run(["-l", "storage_long_names.log", "-t", "2",
                              "--check"])
        self.assertIn("\nnot analysed: writes (add -h writes to judge it "
                      "too)\n", out)

    def test_nothing_to_judge_is_an_error(self):
        code, out, err = run(["-l", "slow.log", "-t", "2", "-h",
                              "large-block-reads", "--check"])
        self.assertEqual((2, ""), (code, out))
        self.assertEqual("act_latency.py: error: --check has nothing to "
                         "judge: the ACT criteria apply to the transactions "
                         "(reads, and writes with commit-to-device), and -h "
                         "names none of them; use -h reads\n", err)


class SliceNotes(unittest.TestCase):

    NOTE = "act_latency.py: note: "

    def test_slice_longer_than_the_run(self):
        code, out, err = run(["-l", "hour.log", "-t", "86400"])
        self.assertEqual((2, ""), (code, out))
        self.assertEqual(
            "act_latency.py: error: could not find 86400 seconds of data in "
            "hour.log\n" + self.NOTE + "slice of 86400 sec is longer than the "
            "run (3600 sec): no slice is complete; use a shorter -t\n", err)
        code, out, err = run(["-l", "stopped_sigint.log", "-t", "10"])
        self.assertIn("\n" + self.NOTE + "slice of 10 sec is longer than the "
                      "run (8 sec, stopped by signal SIGINT after 8 sec): ",
                      err)

    def test_last_partial_slice(self):
        for log, t, note in [
                ("hour.log", "1800", None),
                ("hour.log", "2400", "the last 1200 sec of the run are not "
                 "in any slice: 1 slice of 2400 sec ends at 2400 sec, the run"
                 " at 3600 sec"),
                ("stopped_sigint.log", "3", "the last 2 sec of the run are not"
                 " in any slice: 2 slices of 3 sec end at 6 sec, the run at 8 "
                 "sec"),
                ("odd_end.log", "2", "the last 1 sec of the run are not in "
                 "any slice: 3 slices of 2 sec end at 6 sec, the run at 7 "
                 "sec")]:
            with self.subTest(log=log, t=t):
                code, out, err = run(["-l", log, "-t", t])
                self.assertEqual(0, code)
                self.assertEqual("" if note is None else
                                 self.NOTE + note + "\n", err)
                self.assertNotIn("note", out)
                # the table is the same with and without the note's cause
                self.assertTrue(out.startswith("act_latency.py -l %s -t %s\n"
                                               % (log, t)))

    def test_no_notes_while_the_run_may_be_going(self):
        for log in ("live.log", "cut_short.log"):
            with self.subTest(log=log):
                code, out, err = run(["-l", log, "-t", "5"])
                self.assertEqual((0, ""), (code, err))
                code, out, err = run(["-l", log, "-t", "50"])
                self.assertEqual(2, code)
                self.assertNotIn("note", err)

    def test_hour_slices_for_the_standard_criteria(self):
        code, out, err = run(["-l", "day.log", "-t", "86400", "--check"])
        self.assertEqual(0, code)
        self.assertEqual(self.NOTE + "--check on slices of 86400 sec: the ACT"
                         " criteria are defined on one-hour slices, and a "
                         "longer slice dilutes the worst hour; use -t 3600 for"
                         " the standard verdict\n", err)
        table = run(["-l", "day.log", "-t", "86400"])[1]
        self.assertEqual(table.split("\n", 1)[1],
                         out.split("\n", 1)[1][:len(table.split("\n", 1)[1])])
        for args in (["-t", "3600", "--check"], ["-t", "86400"],
                     ["-t", "86400", "--stress"]):
            self.assertEqual("", run(["-l", "day.log"] + args)[2])

    def test_notes_in_json(self):
        code, text, err = run(["-l", "hour.log", "-t", "2400", "--json"])
        self.assertEqual(["the last 1200 sec of the run are not in any slice:"
                          " 1 slice of 2400 sec ends at 2400 sec, the run at "
                          "3600 sec"], json.loads(text)["notes"])
        self.assertIn("note: the last 1200 sec", err)


class PlotVerdicts(unittest.TestCase):

    NS = "{http://www.w3.org/2000/svg}"

    def plot(self, args):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "p.svg")
            code, out, err = run(args + ["--plot", path])
            return code, ET.parse(path).getroot()

    def banners(self, root):
        return [(t.get("class"), t.get("fill"), t.text)
                for t in root.findall(self.NS + "text")
                if "banner" in (t.get("class") or "")]

    def criteria(self, root):
        return {p.get("data-histogram"):
                len([e for e in p.iter(self.NS + "line")
                     if e.get("class") == "criterion"])
                for p in root.findall(self.NS + "g")}

    def test_criteria_only_on_judged_panels(self):
        code, root = self.plot(["-l", "storage_long_names.log", "-t", "2",
                                "-h", "reads", "-h", "writes", "-h",
                                "large-block-reads", "-h",
                                "large-block-writes", "-h", "/dev/sdc-reads",
                                "--check"])
        self.assertEqual({"reads": 3, "writes": 3, "large-block-reads": 0,
                          "large-block-writes": 0, "/dev/sdc-reads": 0},
                         self.criteria(root))
        code, root = self.plot(["-l", "index_us.log", "-t", "2", "-h",
                                "reads", "-h", "writes"])
        self.assertEqual({"reads": 3, "writes": 0}, self.criteria(root))

    def test_incomplete_banner(self):
        code, root = self.plot(["-l", "stopped_sigint.log", "-t", "2"])
        self.assertEqual(0, code)
        self.assertEqual([("banner incomplete", "#d62728",
                           "INCOMPLETE: stopped by signal SIGINT after 8 sec "
                           "(8 of 86400 sec ran)")], self.banners(root))
        code, root = self.plot(["-l", "cut_short.log", "-t", "2", "--check"])
        self.assertEqual(1, code)
        self.assertEqual([("banner incomplete", "#d62728",
                           "INCOMPLETE: log ends after 8 of 86400 sec (cut "
                           "short, or still being written)"),
                          ("banner result", "#d62728",
                           "result: INCOMPLETE (the run did not finish; 3 of "
                           "3 criteria met on the part that ran)")],
                         self.banners(root))

    def test_fail_in_red(self):
        code, root = self.plot(["-l", "slow.log", "-t", "2", "--check"])
        self.assertEqual(1, code)
        self.assertEqual([("banner result", "#d62728",
                           "result: FAIL (0 of 3 criteria met)")],
                         self.banners(root))
        fails = [t for t in root.iter(self.NS + "text")
                 if t.get("class") == "fail"]
        self.assertTrue(fails)
        self.assertTrue(all(t.get("fill") == "#d62728" for t in fails))
        self.assertIn("limit 5% over 1 ms: FAIL", [t.text for t in fails])

    def test_pass_banner(self):
        code, root = self.plot(["-l", "fast.log", "-t", "3", "--check"])
        self.assertEqual(0, code)
        self.assertEqual([("banner result", "#2ca02c",
                           "result: PASS (3 of 3 criteria met)")],
                         self.banners(root))
        code, root = self.plot(["-l", "fast.log", "-t", "3"])
        self.assertEqual([], self.banners(root))


class NonUtf8Names(unittest.TestCase):
    """Device names are bytes: a log whose names are not UTF-8 reads like
    any other (issue 12: it used to report every interval as incomplete),
    and the names come back out byte for byte."""

    def test_same_table_with_non_utf8_device_names(self):
        with open(os.path.join(FIXTURES, "storage_long_names.log"), "rb") as f:
            good = f.read()
        bad = good.replace(b"/dev/sdc", b"/dev/sd\xe9\xffc")
        self.assertNotEqual(good, bad)
        with tempfile.TemporaryDirectory() as tmp:
            paths = []
            for name, data in (("good.log", good), ("bad.log", bad)):
                paths.append(os.path.join(tmp, name))
                with open(paths[-1], "wb") as f:
                    f.write(data)
            outs = []
            for path, dev in zip(paths, (b"/dev/sdc", b"/dev/sd\xe9\xffc")):
                p = subprocess.run([sys.executable.encode(), SCRIPT.encode(),
                                    b"-l", path.encode(), b"-t", b"2", b"-h",
                                    b"reads", b"-h", dev + b"-reads"],
                                   capture_output=True)
                self.assertEqual(0, p.returncode, p.stderr)
                self.assertEqual(b"", p.stderr)
                outs.append(p.stdout)
            self.assertIn(b"/dev/sd\xe9\xffc-reads", outs[1])

            def rows(out):   # the numbers: slice, avg and max rows
                return [" ".join(line.split()) for line in
                        out.decode("utf-8", "replace").splitlines()
                        if line.split()[:1] and (line.split()[0].isdigit() or
                                                 line.split()[0] in ("avg",
                                                                     "max"))]
            self.assertTrue(rows(outs[0]))
            self.assertEqual(rows(outs[0]), rows(outs[1]))
            p = subprocess.run([sys.executable, SCRIPT, "-l", paths[1],
                                "-t", "2", "--json", "--check"],
                               capture_output=True)
            doc = json.loads(p.stdout)
            self.assertTrue(doc["complete"])


# ---------------------------------------------------------------------------
# Several logs in one table (issue 14), --csv, --version, a closed pipe, the
# size of a plot.

def tiny_log(device, duration, per_second, seconds=None, interval=1,
             scale="no", names=("reads",)):
    """A small log whose every second has the same counts per bucket
    (per_second), so its percentages are known: reports every interval up
    to `seconds` (default: the whole test-duration-sec)."""
    lines = ["", "ACT version 6.6", "Storage device IO test", "",
             "ACT-STORAGE CONFIGURATION", "device-names: " + device,
             "test-duration-sec: %d" % duration,
             "report-interval-sec: %d" % interval,
             "microsecond-histograms: %s" % scale, "",
             "DERIVED CONFIGURATION", "large-block-reads-per-sec: 1.00", "",
             "HISTOGRAM NAMES"] + list(names) + [""]
    cum = [0] * len(per_second)
    for t in range(interval, (seconds or duration) + 1, interval):
        cum = [c + n * interval for c, n in zip(cum, per_second)]
        lines.append("after %d sec:" % t)
        for name in names:
            lines += _hist_lines(name, cum)
        lines.append("")
    return "\n".join(lines) + "\n"


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
        return run(args, cwd=self.tmp)


# The small comparison of Compare.test_exact_layout: a.log has 1% of reads
# over 1 ms every second for 3 seconds; b.log (another device) 5% over 1 ms
# and 2% over 2 ms, and ends after 2 of its 3 seconds.
SMALL_COMPARISON = """\
act_latency.py -l a.log -l b.log -t 1 -n 2
a.log is ACT version 6.6
b.log is ACT version 6.6

ACT-STORAGE CONFIGURATION
device-names: /dev/sdb
test-duration-sec: 3
report-interval-sec: 1
microsecond-histograms: no

DERIVED CONFIGURATION
large-block-reads-per-sec: 1.00

HISTOGRAM NAMES
reads

configuration differences (the blocks above are a.log's):
b.log: device-names: /dev/sdc (a.log: /dev/sdb)

        a.log           b.log
        reads           reads
        %>(ms)          %>(ms)
slice        1      2        1      2
-----   ------ ------   ------ ------
    1     1.00   0.00     5.00   2.00
    2     1.00   0.00     5.00   2.00
    3     1.00   0.00        -      -
-----   ------ ------   ------ ------
  avg     1.00   0.00     5.00   2.00
  max     1.00   0.00     5.00   2.00

worst: b.log, 5.00% over 1 ms at its worst slice, 5.0x the other (1.00%)
"""

NODES = ["-l", "node1.log", "-l", "node2.log", "-l", "node3.log"]
NODES_WORST = ("worst: node3.log, 8.18% over 1 ms at its worst slice, 4.0x "
               "the median of the others (2.05%)")


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


class Compare(TempLogs):
    """-l A -l B ...: one table, one column group per log."""

    def small(self):
        self.write("a.log", tiny_log("/dev/sdb", 3, [990, 10]))
        self.write("b.log", tiny_log("/dev/sdc", 3, [950, 30, 20],
                                     seconds=2))

    def test_exact_layout(self):
        self.small()
        code, out, err = self.run_here(["-l", "a.log", "-l", "b.log", "-t",
                                        "1", "-n", "2"])
        self.assertEqual((0, ""), (code, err))
        self.assertEqual(SMALL_COMPARISON, out)

    def test_one_log_is_unchanged(self):
        # the single-log output does not go through the comparison code
        for args in (["-t", "1"], ["-t", "3", "-x", "-h", "reads", "-h",
                                   "large-block-writes"]):
            code, out, err = run(["-l", "example_storage.log"] + args)
            self.assertNotIn("worst:", out)
            self.assertTrue(out.startswith("act_latency.py -l "
                                           "example_storage.log"))

    def test_labels(self):
        self.small()
        code, out, err = self.run_here(["-l", "a.log", "--label", "node-a",
                                        "-l", "b.log", "--label",
                                        "a-rather-long-label-for-b", "-t",
                                        "1", "-n", "2", "-x"])
        self.assertEqual(0, code)
        self.assertIn("\nnode-a (a.log) is ACT version 6.6\n"
                      "a-rather-long-label-for-b (b.log) is ACT version "
                      "6.6\n", out)
        lines = out.split("\n")
        top = lines.index("configuration differences (the blocks above are "
                          "node-a's):") + 3
        # groups of 2 x 7 + 11 = 25 characters; the label of b (25
        # characters) widens b's group to 26
        self.assertEqual("        node-a" + " " * 21 +
                         "a-rather-long-label-for-b", lines[top])
        self.assertEqual("slice        1      2       rate        1      2"
                         "       rate", lines[top + 3])
        self.assertEqual("    3     1.00   0.00     1000.0        -      -"
                         "          -", lines[top + 7])
        self.assertEqual("  max     1.00   0.00     1000.0     5.00   2.00"
                         "     1000.0", lines[top + 10])
        self.assertIn("worst: a-rather-long-label-for-b, 5.00% over 1 ms",
                      out)

    def test_group_widths(self):
        # a label longer than its log's groups widens the log's last group
        self.assertEqual([14, 14, 14, 20],
                         al.group_widths(["a", "x" * 35],
                                         ["reads", "writes"], 14))
        # a long histogram name widens its groups
        self.assertEqual([20, 20], al.group_widths(
            ["x", "y"], ["/dev/sdb-long-reads"], 14))

    def test_default_labels(self):
        self.assertEqual(["a.log", "b.log"],
                         al.log_labels(["x/a.log", "/y/b.log"], None))
        self.assertEqual(["x/n.log", "y/n.log", "m.log"],
                         al.log_labels(["x/n.log", "y/n.log", "m.log"],
                                       None))
        self.assertEqual(["n.log", "n.log#2"],
                         al.log_labels(["n.log", "n.log"], None))
        self.assertEqual(["A", "B"], al.log_labels(["a", "b"], ["A", "B"]))

    def test_label_errors(self):
        self.small()
        for args, text in [
                (["--label", "A"], "--label given 1 time for 2 logs: give "
                 "one --label per -l, in order"),
                (["--label", "A", "--label", "A"], "--label A given twice"),
                (["--label", "A", "--label", ""], "bad --label ''"),
                (["--label", "A", "--label", "B\nC"], "bad --label"),
                (["--csv", "--json"], "--csv and --json: choose one")]:
            with self.subTest(args=args):
                code, out, err = self.run_here(["-l", "a.log", "-l", "b.log"]
                                               + args)
                self.assertEqual((2, ""), (code, out))
                self.assertIn("act_latency.py: error: " + text, err)
                self.assertEqual(1, len(err.splitlines()), err)

    def test_errors_name_the_log(self):
        self.small()
        self.write("us.log", tiny_log("/dev/sdd", 3, [990, 10],
                                      scale="yes"))
        self.write("writes.log", tiny_log("/dev/sdd", 3, [990, 10],
                                          names=("writes",)))
        for args, text in [
                (["-l", "a.log", "-l", "missing.log"],
                 "cannot open the log missing.log: "),
                (["-l", "a.log", "-l", "writes.log"],
                 "histogram reads not in writes.log; its histograms are: "
                 "writes"),
                (["-l", "a.log", "-l", "us.log"],
                 "us.log has microsecond histograms and a.log millisecond "
                 "ones"),
                (["-l", "a.log", "-l", "b.log", "-t", "5"],
                 "could not find 5 seconds of data in a.log")]:
            with self.subTest(args=args):
                code, out, err = self.run_here(args)
                self.assertEqual((2, ""), (code, out))
                self.assertTrue(err.startswith("act_latency.py: error: " +
                                               text), err)
                self.assertNotIn("Traceback", err)

    def test_slices_of_logs_with_different_intervals(self):
        # interval2.log reports every 2 sec: -t 1 becomes 2-sec slices,
        # ending at the same second in both logs
        code, out, err = run(["-l", "fast.log", "-l", "interval2.log", "-t",
                              "1", "-n", "1"])
        self.assertEqual(0, code)
        self.assertIn("\nanalyzing time slices of 2 seconds\n", out)
        rows = compare_rows(out)
        fast = table_rows(run(["-l", "fast.log", "-t", "2", "-n", "1"])[1])
        two = table_rows(run(["-l", "interval2.log", "-t", "2", "-n",
                              "1"])[1])
        for k in ("1", "2", "3"):
            self.assertEqual([fast[k][0], two[k][0]], rows[k])
        for k in ("4", "5", "6"):
            self.assertEqual([None, two[k][0]], rows[k])
        self.assertEqual([fast["max"][0], two["max"][0]], rows["max"])

    def test_groups_per_log_and_histogram(self):
        args = NODES + ["-t", "2", "-n", "3", "-h", "reads", "-h",
                        "large-block-reads"]
        code, out, err = run(args)
        rows = compare_rows(out)
        for n, name in enumerate(["node1.log", "node2.log", "node3.log"]):
            for i, hist in enumerate(["reads", "large-block-reads"]):
                one = table_rows(run(["-l", name, "-t", "2", "-n", "3", "-h",
                                      hist])[1])
                g = (2 * n + i) * 3
                for k, values in one.items():
                    self.assertEqual(values, rows[k][g:g + 3], (name, hist))
        self.assertEqual([None] * 6, rows["4"][6:12])    # node2 stopped
        head = out.split("\nslice ")[0].split("\n")[-3:]
        self.assertEqual(("        node1.log" + " " * 37 + "node2.log" +
                          " " * 37 + "node3.log"), head[0])
        self.assertEqual(["reads", "large-block-reads"] * 3, head[1].split())

    def test_outlier_line(self):
        code, out, err = run(NODES + ["-t", "2"])
        self.assertEqual(0, code)
        self.assertTrue(out.endswith("\n  max " + out.split("\n  max ")[1]))
        self.assertTrue(out.endswith("\n\n" + NODES_WORST + "\n"), out)
        # the median of the others: 2.65 (node1) and 1.46 (node2)
        self.assertEqual(
            "worst: c, 8.18% over 1 ms at its worst slice, 4.0x the median "
            "of the others (2.05%)",
            al.worst_line(["a", "b", "c"], [2.65, 1.46, 8.18], "reads",
                          "1 ms"))

    def test_outlier_wording(self):
        w = al.worst_line
        self.assertEqual("worst: b, 4.20% over 1 ms at its worst slice, "
                         "3.0x the other (1.40%)",
                         w(["a", "b"], [1.4, 4.2], "reads", "1 ms"))
        self.assertEqual("worst: none, both logs have 0.00% over 1 ms at "
                         "their worst slice",
                         w(["a", "b"], [0.0, 0.0], "reads", "1 ms"))
        self.assertEqual("worst: none, every log has 1.50% over 1 ms at its "
                         "worst slice",
                         w(["a", "b", "c"], [1.5, 1.5, 1.5], "reads",
                           "1 ms"))
        self.assertEqual("worst: b and c, 2.00% over 1 ms at their worst "
                         "slice, 4.0x the other (0.50%)",
                         w(["a", "b", "c"], [0.5, 2.0, 2.0], "reads",
                           "1 ms"))
        self.assertEqual("worst: c, 2.00% over 1 ms at its worst slice, the "
                         "median of the others is 0.00%",
                         w(["a", "b", "c"], [0.0, 0.0, 2.0], "reads",
                           "1 ms"))
        self.assertEqual("worst: b, 0.30% over 1 ms at its worst slice, the "
                         "other has 0.00%",
                         w(["a", "b"], [0.0, 0.3], "reads", "1 ms"))
        self.assertEqual("worst: a, 9.00% of large-block-reads over 1024 us "
                         "at its worst slice, 3.0x the median of the others "
                         "(3.00%)",
                         w(["a", "b", "c", "d"], [9.0, 1.0, 3.0, 5.0],
                           "large-block-reads", "1024 us"))

    def test_outlier_without_the_1ms_column(self):
        # -s 2: 1 ms is not displayed; the outlier is computed from the
        # counts all the same
        code, out, err = run(NODES + ["-t", "2", "-s", "2", "-n", "2"])
        self.assertTrue(out.endswith(NODES_WORST + "\n"), out[-300:])

    def test_check_one_failing_log(self):
        code, out, err = run(["-l", "node1.log", "-l", "node3.log", "-t",
                              "2", "--check"])
        self.assertEqual(1, code)
        tail = out.split("\ncheck: ")[1]
        self.assertEqual(
            "standard ACT criteria on the max row\n"
            "node1.log: PASS reads: 2.65% over 1 ms (must be under 5%)\n"
            "node1.log: PASS reads: 0.00% over 8 ms (must be under 1%)\n"
            "node1.log: PASS reads: 0.00% over 64 ms (must be under 0.1%)\n"
            "node1.log: run: complete (8 sec)\n"
            "node1.log: result: PASS (3 of 3 criteria met)\n"
            "node3.log: FAIL reads: 8.18% over 1 ms (must be under 5%)\n"
            "node3.log: PASS reads: 0.75% over 8 ms (must be under 1%)\n"
            "node3.log: PASS reads: 0.00% over 64 ms (must be under 0.1%)\n"
            "node3.log: run: complete (8 sec)\n"
            "node3.log: result: FAIL (2 of 3 criteria met)\n"
            "result: FAIL (1 of 2 logs passed; node3.log: FAIL)\n" +
            MULTI_NOTE, tail)
        # each log's lines are its own --check lines
        for name in ("node1.log", "node3.log"):
            own = run(["-l", name, "-t", "2", "--check"])[1]
            self.assertTrue(own.endswith("\n" + NOTE_8S), own)
            own = own[:-len(NOTE_8S)]
            mine = [line[len(name) + 2:] for line in out.split("\n")
                    if line.startswith(name + ": ")]
            self.assertEqual(own.split("\ncheck: standard ACT criteria on "
                                       "the max row\n")[1].split("\n")[:-1],
                             mine)

    def test_check_incomplete_and_passing(self):
        code, out, err = run(NODES + ["-t", "2", "--check"])
        self.assertEqual(1, code)
        self.assertIn("\nnode2.log: run: INCOMPLETE - stopped by signal "
                      "SIGINT after 6 sec (6 of 8 sec ran)\n", out)
        self.assertTrue(out.endswith(
            "\nresult: FAIL (1 of 3 logs passed; node2.log: INCOMPLETE, "
            "node3.log: FAIL)\n" + MULTI_NOTE))
        code, out, err = run(["-l", "node1.log", "-l", "node2.log", "-t",
                              "2", "--check"])
        self.assertEqual(1, code)
        self.assertTrue(out.endswith(
            "\nresult: INCOMPLETE (1 of 2 logs passed; node2.log: "
            "INCOMPLETE)\n" + MULTI_NOTE))
        code, out, err = run(["-l", "node1.log", "-l", "fast.log", "-t",
                              "2", "--check"])
        self.assertEqual(0, code)
        self.assertTrue(out.endswith("\nresult: PASS (2 of 2 logs "
                                     "passed)\n" + MULTI_NOTE))
        code, out, err = run(["-l", "node1.log", "-l", "node3.log", "-t",
                              "2", "--stress"])
        self.assertEqual(0, code)
        self.assertIn("\nnode3.log: result: PASS (stress test: the run "
                      "completed; 2 of 3 criteria met, for information)\n",
                      out)

    def test_check_nothing_to_judge_names_the_log(self):
        code, out, err = run(["-l", "node1.log", "-l", "node3.log", "-h",
                              "large-block-reads", "--check"])
        self.assertEqual((2, ""), (code, out))
        self.assertIn("--check has nothing to judge in node1.log", err)

    def test_notes_and_warnings_name_the_log(self):
        code, out, err = run(["-l", "fast.log", "-l", "stopped_sigint.log",
                              "-t", "4"])
        self.assertEqual(0, code)
        self.assertEqual(
            "act_latency.py: note: fast.log: the last 2 sec of the run are "
            "not in any slice: 1 slice of 4 sec ends at 4 sec, the run at 6 "
            "sec\n", err)
        with open(os.path.join(FIXTURES, "fast.log")) as f:
            text = f.read()
        self.write("damaged.log", text.replace("after 3 sec:", "after 33 "
                                                                 "sec:"))
        self.write("fast.log", text)
        code, out, err = self.run_here(["-l", "fast.log", "-l",
                                        "damaged.log", "-t", "1"])
        self.assertEqual(0, code)
        self.assertIn("act_latency.py: warning: damaged.log: there is no "
                      "report after 3 sec; the rest of the log is ignored\n",
                      err)

    def test_json(self):
        code, text, err = run(NODES + ["-t", "2", "-x", "--json", "--check",
                                       "--label", "n1", "--label", "n2",
                                       "--label", "n3"])
        self.assertEqual((1, ""), (code, err))
        doc = json.loads(text)
        self.assertEqual(("act_latency/compare/1", ["n1", "n2", "n3"], 2),
                         (doc["format"], doc["labels"], doc["slice_sec"]))
        table = compare_rows(run(NODES + ["-t", "2", "-x"])[1])
        for n, log in enumerate(doc["logs"]):
            self.assertEqual(("n%d" % (n + 1), "node%d.log" % (n + 1)),
                             (log["label"], log["log"]))
            # each log's document is the one --json gives for it alone
            alone = json.loads(run(["-l", log["log"], "-t", "2", "-x",
                                    "--json", "--check"])[1])
            self.assertEqual(alone, {k: v for k, v in log.items()
                                     if k != "label"})
            for s in log["histograms"][0]["slices"]:
                self.assertEqual(table[str(s["slice"])][8 * n:8 * n + 8],
                                 s["over_pct"] + [s["rate"]])
        self.assertEqual(["n3"], doc["worst"]["worst"])
        self.assertEqual({"n1": 2.65, "n2": 1.46, "n3": 8.18},
                         doc["worst"]["max_pct"])
        self.assertEqual(NODES_WORST.replace("node3.log", "n3"),
                         doc["worst"]["line"])
        self.assertEqual({"result": "FAIL", "pass": False,
                          "logs": [{"label": "n1", "result": "PASS"},
                                   {"label": "n2", "result": "INCOMPLETE"},
                                   {"label": "n3", "result": "FAIL"}],
                          "line": "result: FAIL (1 of 3 logs passed; n2: "
                                  "INCOMPLETE, n3: FAIL)"}, doc["check"])
        code, text, err = run(NODES + ["-t", "2", "--json"])
        self.assertEqual(0, code)
        self.assertIsNone(json.loads(text)["check"])

    def test_plot(self):
        ns = "{http://www.w3.org/2000/svg}"
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "p.svg")
            code, out, err = run(NODES + ["-t", "1", "-n", "3", "-h",
                                          "reads", "-h", "large-block-reads",
                                          "--check", "--plot", path])
            self.assertEqual(1, code)
            root = ET.parse(path).getroot()
        panels = root.findall(ns + "g")
        self.assertEqual(["reads", "large-block-reads"],
                         [p.get("data-histogram") for p in panels])
        for p in panels:
            series = p.findall(ns + "polyline")
            self.assertEqual(
                [(log, t) for log in ("node1.log", "node2.log", "node3.log")
                 for t in ("1", "2", "4")],
                [(s.get("data-log"), s.get("data-threshold"))
                 for s in series])
            # one colour per log, one dash pattern per threshold
            for k in range(3):
                group = series[3 * k:3 * k + 3]
                self.assertEqual(1, len({s.get("stroke") for s in group}))
                self.assertEqual(3, len({s.get("stroke-dasharray")
                                         for s in group}))
            self.assertEqual(3, len({s.get("stroke") for s in series}))
            self.assertEqual([8, 8, 8, 6, 6, 6, 8, 8, 8],
                             [len(s.get("points").split()) for s in series])
            texts = [t.text or "" for t in p.iter(ns + "text")]
            for label in ("node1.log", "node2.log", "node3.log"):
                self.assertTrue([t for t in texts if t.startswith(label)],
                                texts)
        banners = [t.text for t in root.findall(ns + "text")
                   if "banner" in (t.get("class") or "")]
        self.assertEqual(["INCOMPLETE: node2.log: stopped by signal SIGINT "
                          "after 6 sec (6 of 8 sec ran)",
                          "result: FAIL (1 of 3 logs passed; node2.log: "
                          "INCOMPLETE, node3.log: FAIL)"], banners)
        fails = [t.text for t in panels[0].iter(ns + "text")
                 if t.get("class") == "fail"]
        self.assertIn("FAIL: node3.log", fails)


class Csv(TempLogs):
    """--csv: the table as CSV, parsed back with the csv module."""

    def parse(self, text):
        return list(csv.reader(io.StringIO(text)))

    def test_one_log(self):
        args = ["-l", "storage_long_names.log", "-t", "2", "-x", "-s", "1",
                "-n", "4", "-h", "reads", "-h", "writes"]
        table = table_rows(run(args)[1])
        code, text, err = run(args + ["--csv"])
        self.assertEqual((0, ""), (code, err))
        rows = self.parse(text)
        self.assertEqual(["slice", "seconds", "log", "histogram",
                          "pct_over_2ms", "pct_over_4ms", "pct_over_8ms",
                          "pct_over_16ms", "rate"], rows[0])
        self.assertEqual(4 * 2 + 2 * 2, len(rows) - 1)
        for row in rows[1:]:
            self.assertEqual("storage_long_names.log", row[2])
            i = ["reads", "writes"].index(row[3])
            self.assertEqual(table[row[0]][5 * i:5 * i + 5],
                             [float(v) for v in row[4:]])
            if row[0].isdigit():
                self.assertEqual(2 * int(row[0]), int(row[1]))
            else:
                self.assertEqual("", row[1])
        self.assertEqual(["avg", "avg", "max", "max"],
                         [r[0] for r in rows[-4:]])

    def test_several_logs(self):
        code, text, err = run(NODES + ["-t", "2", "-n", "2", "--csv",
                                       "--label", "n,1", "--label", 'n"2',
                                       "--label", "n3"])
        # stdout is the CSV only: the outlier line goes to stderr
        self.assertEqual((0, NODES_WORST.replace("node3.log", "n3") + "\n"),
                         (code, err))
        rows = self.parse(text)
        table = compare_rows(run(NODES + ["-t", "2", "-n", "2", "-x"])[1])
        labels = ["n,1", 'n"2', "n3"]
        got = {}
        for row in rows[1:]:
            got.setdefault(row[0], {})[row[2]] = [float(v) for v in row[4:]]
            self.assertEqual("reads", row[3])
        for k, cells in table.items():
            for n, label in enumerate(labels):
                want = cells[3 * n:3 * n + 3]
                if want[0] is None:
                    self.assertNotIn(label, got[k])     # node2: no slice 4
                else:
                    self.assertEqual(want, got[k][label])
        # slice by slice, log by log, then the avg and max rows
        self.assertEqual(["1", "1", "1", "2", "2", "2", "3", "3", "3", "4",
                          "4", "avg", "avg", "avg", "max", "max", "max"],
                         [r[0] for r in rows[1:]])

    def test_check_goes_to_stderr(self):
        code, text, err = run(NODES + ["-t", "2", "--csv", "--check"])
        self.assertEqual(1, code)
        self.assertTrue(text.startswith("slice,seconds,log,histogram,"))
        self.assertNotIn("result", text)
        self.assertTrue(err.startswith(NODES_WORST + "\ncheck: standard "),
                        err)
        self.assertTrue(err.endswith("\nresult: FAIL (1 of 3 logs passed; "
                                     "node2.log: INCOMPLETE, node3.log: "
                                     "FAIL)\n" + MULTI_NOTE), err)
        code, text, err = run(["-l", "fast.log", "-t", "3", "--csv",
                               "--check"])
        self.assertEqual(0, code)
        self.assertTrue(err.startswith("check: standard ACT criteria"), err)
        self.assertTrue(err.endswith("\nresult: PASS (3 of 3 criteria "
                                     "met)\nnote: an ACT certification "
                                     "needs 24-hour runs judged in 3600 s "
                                     "slices (-t 3600); this run is 6 sec "
                                     "and its slices are 3 sec: this "
                                     "verdict is not a certification\n"),
                        err)

    def test_microsecond_log(self):
        code, text, err = run(["-l", "index_us.log", "-t", "3", "-s", "8",
                               "-n", "2", "--csv"])
        self.assertEqual(["slice", "seconds", "log", "histogram",
                          "pct_over_256us", "pct_over_512us", "rate"],
                         self.parse(text)[0])


class Version(unittest.TestCase):

    def test_version(self):
        code, out, err = run(["--version"])
        self.assertEqual((0, "act_latency.py 6.7\n", ""), (code, out, err))

    def test_same_as_act(self):
        with open(os.path.join(ROOT, "src", "common", "version.h")) as f:
            m = re.search(r'#define ACT_VERSION "([^"]+)"', f.read())
        self.assertEqual(m.group(1), al.VERSION)


class ClosedPipe(TempLogs):
    """The reader goes away (| head -1): stop quietly, exit status 0 (with
    --check: the verdict's)."""

    def long_log(self):
        return self.write("long.log", synthetic_log(20000, ["reads"], 1,
                                                    widen=False))

    def read_one_line_and_close(self, args):
        p = subprocess.Popen([sys.executable, SCRIPT] + args, cwd=self.tmp,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            first = p.stdout.readline()
            p.stdout.close()
            err = p.stderr.read()
            p.wait(timeout=60)
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
            p.stderr.close()
        return p.returncode, first, err

    def test_head(self):
        self.long_log()
        for args in (["-l", "long.log", "-t", "1"],
                     ["-l", "long.log", "-t", "1", "-x", "--check"],
                     ["-l", "long.log", "-l", "long.log", "-t", "1"],
                     ["-l", "long.log", "-t", "1", "--csv"]):
            with self.subTest(args=args):
                code, first, err = self.read_one_line_and_close(args)
                # --check: the verdict whatever happens to stdout (the same
                # status as when the whole output is read), else 0
                want = 0
                if "--check" in args:
                    want = subprocess.run([sys.executable, SCRIPT] + args,
                                          cwd=self.tmp,
                                          capture_output=True).returncode
                    self.assertEqual(1, want)
                self.assertEqual((want, b""), (code, err))
                self.assertTrue(first.startswith(b"act_latency.py -l long"
                                                 if "--csv" not in args
                                                 else b"slice,"))

    def test_shell_pipe(self):
        self.long_log()
        p = subprocess.run("%s %s -l long.log -t 1 | head -1; "
                           "echo status ${PIPESTATUS[0]}"
                           % (sys.executable, SCRIPT), shell=True,
                           executable="/bin/bash", cwd=self.tmp,
                           capture_output=True, text=True)
        self.assertEqual("act_latency.py -l long.log -t 1\nstatus 0\n",
                         p.stdout)
        self.assertEqual("", p.stderr)


def day_log(path, spike_at, seconds=86400):
    """A 24-hour log with 1-second reports: about 0.6% of reads over 1 ms,
    and one slice (spike_at) with a third of its reads over 4 ms."""
    rnd = random.Random(5)
    out = ["", "ACT version 6.6", "Storage device IO test", "",
           "ACT-STORAGE CONFIGURATION", "device-names: /dev/sdb",
           "test-duration-sec: %d" % seconds, "report-interval-sec: 1",
           "microsecond-histograms: no", "", "DERIVED CONFIGURATION",
           "large-block-reads-per-sec: 1.00", "", "HISTOGRAM NAMES", "reads",
           ""]
    c = [0, 0, 0, 0]
    for t in range(1, seconds + 1):
        c[0] += 2000
        c[1] += rnd.randint(0, 20)
        c[2] += rnd.randint(0, 4)
        if t == spike_at:
            c[3] += 1000
        out.append("after %d sec:\nreads (%d total)\n%s\n" % (
            t, sum(c), "".join(" (%02d: %010d)" % (b, x)
                               for b, x in enumerate(c) if x)))
    with open(path, "w") as f:
        f.write("\n".join(out))


class PlotSize(TempLogs):
    """--plot of any log has a bounded size and still shows every peak."""

    NS = "{http://www.w3.org/2000/svg}"

    def test_thin_points(self):
        # 1000 points in 10 pixel columns, a spike in the middle of one
        pts = [(10 + k / 100.0, 100 + (k % 7), k) for k in range(1000)]
        pts[555] = (pts[555][0], 3.0, 555)
        kept = al.thin_points(pts)
        self.assertLessEqual(len(kept), 20)
        self.assertIn(pts[555], kept)
        self.assertEqual(sorted(kept, key=lambda p: p[2]), kept)
        for col in range(10, 20):
            ys = [p[1] for p in pts if int(p[0]) == col]
            got = [p[1] for p in kept if int(p[0]) == col]
            self.assertEqual((min(ys), max(ys)), (min(got), max(got)))
        few = [(float(k), 1.0, k) for k in range(8)]
        self.assertEqual(few, al.thin_points(few))
        self.assertEqual([], al.thin_points([]))

    def test_day_at_one_second(self):
        spike = 40000
        day_log(os.path.join(self.tmp, "day1s.log"), spike)
        path = os.path.join(self.tmp, "p.svg")
        code, out, err = self.run_here(["-l", "day1s.log", "-t", "1",
                                        "--plot", path])
        self.assertEqual((0, ""), (code, err))
        size = os.path.getsize(path)
        self.assertLess(size, 500 * 1024)
        root = ET.parse(path).getroot()
        series = {s.get("data-threshold"): [tuple(map(float, p.split(",")))
                                            for p in s.get("points").split()]
                  for s in root.find(self.NS + "g").findall(
                      self.NS + "polyline")}
        rect = root.find(self.NS + "g").find(self.NS + "rect")
        left, width = float(rect.get("x")), float(rect.get("width"))
        x_spike = left + width * spike / 86400
        self.assertEqual(["1", "2", "4", "8", "16", "32", "64"],
                         list(series))
        for t, pts in series.items():
            # at most two points per pixel column
            self.assertLessEqual(len(pts), 2 * (width + 1))
            if t in ("1", "2", "4"):
                # the highest point of each series is the spike's slice
                top = min(pts, key=lambda p: p[1])
                self.assertAlmostEqual(x_spike, top[0], delta=0.1, msg=t)
        # over 4 ms: 0 everywhere but the spike, which is kept
        bottom = max(p[1] for p in series["4"])
        self.assertEqual(1, len([p for p in series["4"] if p[1] < bottom]))


if __name__ == "__main__":
    unittest.main()
