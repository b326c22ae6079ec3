#!/usr/bin/env python3
"""Description: act_latency.py's outputs byte for byte, as a program (the
command-line cases of docs/act_latency.md):

- the reference outputs: the three outputs of the reference ACT 6.6
  script for shared/examples/example_storage.log (fixtures/latency_*.txt),
  byte for byte, and the trailing spaces of its header lines;
- the fixture outputs: the fixture logs (fixtures/*.log, written by
  make_fixtures.py) against their checked-in outputs and exit statuses
  (fixtures/expected/), every number of which is also checked against
  docs/act_latency.md's formula applied to the log line by line; the
  first line echoes the arguments as given; the same table from another
  folder; stopped and live logs read to their last whole report.

The tests of each module of the act package are in tests/python/ (one
folder per subpackage); they share these fixtures.

    python3 tests/golden/test_act_latency.py [-v]      (from any folder)
"""

import os
import re
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "python"))
from support import (EXPECTED, FIXTURES, REPO, naive_slices,  # noqa: E402
                     read, run_latency as run, table_rows)

from act.latency.main import parse_args  # noqa: E402
from act.logfile.header import read_header  # noqa: E402

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


def plain_mean(values):
    """The spec's avg: the slice values added left to right, over n."""
    total = 0.0
    for v in values:
        total += v
    return total / len(values)


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
                a = parse_args(["-l", log] + args.split())
                text = read(os.path.join(FIXTURES, log))
                with open(os.path.join(FIXTURES, log), "rb") as f:
                    h = read_header(f, log)
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
                              "2"], cwd=REPO)
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


if __name__ == "__main__":
    unittest.main()
