#!/usr/bin/env python3
"""Description: act.latency.analysis, in process (analyse on a log in memory):

- the streaming parser against a plain line-by-line reading of
  docs/log-format.md (tests/python/support.py), with tiny read sizes:
  regular and irregular logs, counts past ten digits, Windows line ends,
  a 2-second report interval, a missing report, a log cut anywhere,
  reports of the same size with another layout, an incomplete report
  inside the log (a warning);
- batch_values against slice_values, the definition of a slice's values
  (docs/act_latency.md, "Slice arithmetic");
- how the run ended (Analysis.run): the reference's rounding of the last
  report, a log without test-duration-sec, a damaged log, and the run end
  by its definition wherever the log is cut (after a signal, ERROR lines,
  a clean end), at every read size.

    python3 tests/python/latency/test_analysis.py [-v]
"""

import io
import itertools
import operator
import os
import random
import re
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
from support import (FIXTURES, naive_slices, read, synthetic_log,  # noqa: E402
                     synthlog)

from act.latency import PROG, analyse, analysis, judge, text  # noqa: E402
from act.latency.main import parse_args  # noqa: E402
from act.latency.text import TextTable, run_text  # noqa: E402
from act.logfile import LogError  # noqa: E402
from act.logfile.header import LogFile  # noqa: E402
from act.logfile.scanner import CHUNK_SIZE  # noqa: E402


class Args:
    """A stand-in for parse_args() results in in-process tests."""

    def __init__(self, argv):
        a = parse_args(argv)
        a.argv = argv
        self.__dict__.update(vars(a))


class Warnings:
    """A sink of the analysis: its warnings about the log on stderr, as
    act_latency.py prints them."""

    def batch(self, a, first, n, batch):
        pass

    def warning(self, a, text):
        print("%s: warning: %s" % (PROG, text), file=sys.stderr)


def analyse_bytes(data, argv, chunk_size=CHUNK_SIZE, stderr=None):
    """Run the analysis in process on log bytes, as act_latency.py -l
    mem.log ARGV: (table text, Analysis); no complete slice is the
    LogError. Warnings go to stderr (a StringIO), or are dropped."""
    args = Args(["-l", "mem.log"] + argv)
    log = LogFile("mem.log", io.BytesIO(data))
    log.read_header()
    out = []
    table = TextTable(out.extend, args.argv, extra=args.extra,
                      requested=args.spec.slice_sec)
    old, sys.stderr = sys.stderr, stderr or io.StringIO()
    try:
        a = analyse(log, args.spec, [table, Warnings()], keep=True,
                    chunk_size=chunk_size)
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
    return (tuple(judge.percent_over(total - le[b], total) for b in buckets),
            judge.slice_rate(total, slice_sec), total)


def analysis_rows(a, n_display):
    """The same shape as naive_slices() from an Analysis."""
    return [[(values[:n_display], rate) for values, rate, ops in row]
            for row in a.rows()]


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


class StreamingParser(unittest.TestCase):
    """The fast parser against the plain line-by-line reading."""
    NAMES = ["reads", "/dev/sdb-reads", "large-block-reads",
             "large-block-writes"]

    def compare(self, text, argv, selected, slice_sec, buckets,
                chunk_sizes=(37, 500, 4096, CHUNK_SIZE)):
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
        for size in (100, CHUNK_SIZE):
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
            body += ["after %d sec:" % t] + synthlog.histogram("reads", counts)
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


class BatchValues(unittest.TestCase):

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
        values, rates, ops = analysis.batch_values(
            columns, prev, n, top, evaluated, judge.PercentCaches(),
            judge.FuncCache(lambda o: judge.slice_rate(o, 3)))
        last = [0] * (top + 2)
        for k, vec in enumerate(vectors):
            vals, rate, o = slice_values(last, vec, evaluated, 3)
            self.assertEqual(vals, tuple(v[k] for v in values))
            self.assertEqual((rate, o), (rates[k], ops[k]))
            last = vec
        self.assertEqual(vectors[-1], prev)


class RunEnd(unittest.TestCase):
    """How the run ended, as the analysis tells it."""

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
                         run_text(a.run))
        _, a = analyse_bytes((old + "stopped by signal SIGTERM after 10 sec"
                              "\n").encode(), ["-t", "1"])
        self.assertEqual("INCOMPLETE - stopped by signal SIGTERM after 10 sec"
                         " (10 sec ran)", run_text(a.run))

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
        self.assertIn("(8 sec analysed)", run_text(a.run))

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
                for size in (37, 64, 500, CHUNK_SIZE):
                    with self.subTest(what=what, cut=cut, size=size):
                        try:
                            _, a = analyse_bytes(part.encode(), ["-t", "1"],
                                                 size)
                        except LogError:
                            continue            # no slice yet
                        self.assertEqual(want, (a.run.complete, a.run.ran,
                                                a.run.reason))


if __name__ == "__main__":
    unittest.main()
