#!/usr/bin/env python3
"""Description: act.logfile.reports: a report block (parse_block: the
histograms wanted, by their exact names, the first of a name twice, an ERROR
line inside; hist_vector: cumulative counts, None for a histogram cut short or
out of range) and how a run ends from the lines after its last whole report
(run_end: complete, cut, stopped by an ERROR line, a signal or a request - the
request's reason, and last_errors reads the line back - Windows line ends).

    python3 tests/python/logfile/test_reports.py [-v]
"""

import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
from support import header, make, report, reports  # noqa: E402

from act.logfile import stops  # noqa: E402
from act.logfile.reports import (hist_vector, last_errors,  # noqa: E402
                                 parse_block, run_end)


class Reports(unittest.TestCase):
    def test_parse_block(self):
        block = report(3, {"reads": {0: 5, 2: 7}, "writes": {}}).encode()
        t, hists = parse_block(block, {b"reads"}, {b"reads", b"writes"})
        self.assertEqual(3, t)
        total, (off, width), buckets = hists[b"reads"]
        self.assertEqual((12, b"12"), (total, block[off:off + width]))
        self.assertEqual({0: 5, 2: 7}, {b: c for b, (c, _) in
                                        buckets.items()})
        self.assertNotIn(b"writes", hists)      # not wanted

    def test_hist_vector(self):
        hist = (12, None, {0: (5, None), 2: (7, None)})
        self.assertEqual([5, 0, 7, 12], hist_vector(hist, 2))
        self.assertEqual([5, 0, 12], hist_vector(hist, 1))  # 2 over top
        self.assertIsNone(hist_vector((13, None, hist[2]), 2))  # not whole
        self.assertIsNone(hist_vector((1, None, {65: (1, None)}), 2))
        self.assertIsNone(hist_vector(None, 2))


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
        t, hists = parse_block(self.BLOCK, {b"reads", b"writes",
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
        t, hists = parse_block(self.BLOCK, {b"writes"}, self.KNOWN)
        self.assertEqual(8, hists[b"writes"][0])
        t, hists = parse_block(self.BLOCK, {b"large-block"}, self.KNOWN)
        self.assertEqual({}, hists)

    def test_hist_vector(self):
        t, hists = parse_block(self.BLOCK, {b"reads", b"writes",
                                               b"large-block-writes"},
                                  self.KNOWN)
        self.assertEqual([5993, 2, 2, 6000], hist_vector(hists[b"reads"],
                                                             2))
        self.assertEqual([0, 0], hist_vector(
            hists[b"large-block-writes"], 0))
        self.assertIsNone(hist_vector(None, 3))
        cut = (6000, None, {0: (5993, None), 1: (2, None)})   # cut short
        self.assertIsNone(hist_vector(cut, 3))
        wild = (1, None, {65: (1, None)})
        self.assertIsNone(hist_vector(wild, 3))


class RunEnd(unittest.TestCase):
    """run_end() on the lines after the last whole report."""

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
                r = run_end(b"\n" + tail, known, duration)
                self.assertEqual(want, (r.kind, r.ran, r.reason))

    def test_run_end_direct(self):
        tail = (reports([4, 5]) + "stopped by signal SIGTERM after 5 sec\n")
        end = run_end(tail.encode(), {b"reads", b"writes"}, 10, 3)
        self.assertEqual(("stopped", 5, "signal"),
                         (end.kind, end.ran, end.stop))

    def test_stopped_on_request(self):
        line = ("stopped on request: fail fast: reads 7.20% over 1 ms (must "
                "be under 5%) in slice 3 after 6 sec")
        # the line as the C programs write a stop line: after the last
        # report, the log's last line (docs/log-format.md, "End of run")
        end = run_end((reports([5, 6]) + line + "\n").encode(),
                      {b"reads", b"writes"}, 10, 4)
        self.assertEqual(("stopped", 6, "request", line),
                         (end.kind, end.ran, end.stop, end.reason))
        self.assertEqual("fail fast: reads 7.20% over 1 ms (must be under "
                         "5%) in slice 3", stops.request_reason([line]))
        with tempfile.TemporaryDirectory() as tmp:
            path = make(os.path.join(tmp, "x.log"), header() +
                        reports([1]) + line + "\n")
            self.assertEqual([line], last_errors(path))


if __name__ == "__main__":
    unittest.main()
