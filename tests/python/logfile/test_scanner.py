#!/usr/bin/env python3
"""Description: act.logfile.scanner, the analysis' reader (ReportScanner): each
way a run ends as it sees it - complete (with and without test-duration-sec),
cut mid-report or before the first report, a signal, each ERROR stop kind (the
host's lag, the drive's lag or stall, a hung I/O, I/O errors) with the first
ERROR line as the reason, ERROR lines a report follows, a hung I/O after the
last report, a missing or damaged report inside the log (the slices before it)
- the same at any read size.

    python3 tests/python/logfile/test_scanner.py [-v]
"""

import io
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
import support  # noqa: E402
from support import header, reports  # noqa: E402

from act.logfile import MAX_BUCKET  # noqa: E402
from act.logfile.header import read_header  # noqa: E402
from act.logfile.scanner import ReportScanner  # noqa: E402


def scan(text, names=("reads",), slice_sec=1, chunk_size=1 << 20):
    """(slice ends, RunEnd, scanner.stopped) of a whole log."""
    f = io.BytesIO(text.encode() if isinstance(text, str) else text)
    h = read_header(f)
    s = ReportScanner(f, h.rest, h.names, list(names), h.interval,
                      slice_sec, MAX_BUCKET, chunk_size, h.duration)
    ends = []
    for batch_ends, _ in s:
        ends += batch_ends
    return ends, s.end, s.stopped


class LogEnd(unittest.TestCase):
    """Each way a run ends, as the scanner (the analysis' reader) sees it."""

    def end(self, body, duration=5):
        return scan(header(duration=duration) + body)

    def test_complete(self):
        ends, end, stopped = self.end(reports(range(1, 6)))
        self.assertEqual([1, 2, 3, 4, 5], ends)
        self.assertEqual(("complete", 5, None, None),
                         (end.kind, end.ran, end.reason, end.stop))
        self.assertTrue(end.complete and end.ended)
        self.assertIsNone(stopped)

    def test_complete_without_duration(self):
        ends, end, _ = self.end(reports(range(1, 4)), duration=None)
        self.assertEqual(("complete", 3, None),
                         (end.kind, end.ran, end.planned))

    def test_cut_mid_report(self):
        text = reports(range(1, 5))
        cut = text[:text.rindex("(03:")]       # report 4 lost its writes
        ends, end, stopped = self.end(cut)
        self.assertEqual([1, 2, 3, 4], ends)    # reads of 4 are whole
        self.assertEqual(("cut", 3, "log ends after 3 of 5 sec"),
                         (end.kind, end.ran, end.reason))
        self.assertFalse(end.ended)
        self.assertIsNone(end.stop)
        self.assertIsNone(stopped)

    def test_cut_before_first_report(self):
        _, end, _ = self.end("")
        self.assertEqual(("cut", 0), (end.kind, end.ran))

    def test_signal(self):
        _, end, _ = self.end(reports(range(1, 4)) +
                             "stopped by signal SIGINT after 3 sec\n")
        self.assertEqual(("stopped", 3, "signal"),
                         (end.kind, end.ran, end.stop))
        self.assertEqual("stopped by signal SIGINT after 3 sec", end.reason)
        self.assertTrue(end.ended and not end.complete)

    def test_each_error_stop(self):
        for lines, kind in ((support.HOST_LAG, "host-limit"),
                            (support.DRIVE_LAG, "drive-limit"),
                            (support.DRIVE_STALL, "drive-limit"),
                            (support.HUNG, "hung-io"),
                            (support.IO_ERRORS, "io-errors")):
            with self.subTest(kind=kind, first=lines[0][:40]):
                _, end, _ = self.end(reports(range(1, 3)) +
                                     "\n".join(lines) + "\n")
                self.assertEqual(("stopped", 2, kind),
                                 (end.kind, end.ran, end.stop))
                # the reason is the first ERROR line, as printed
                self.assertEqual(lines[0][len("ERROR: "):], end.reason)

    def test_io_error_lines_before_a_later_report(self):
        # ERROR lines that a report follows did not stop the run
        body = (reports([1]) + support.IO_ERRORS[0] + "\n" +
                reports(range(2, 6)))
        _, end, _ = self.end(body)
        self.assertEqual(("complete", None), (end.kind, end.stop))

    def test_hung_io_after_the_last_report(self):
        line = ("ERROR: device /dev/sdb is not responding: a 1536-byte read "
                "at offset 4096 has not completed after 3.497 sec, still "
                "outstanding when the run ended")
        _, end, _ = self.end(reports(range(1, 6)) + line + "\n")
        self.assertEqual(("stopped", 5, "hung-io"),
                         (end.kind, end.ran, end.stop))

    def test_missing_intermediate_report(self):
        ends, end, stopped = self.end(reports([1, 2, 4, 5]))
        self.assertEqual([1, 2], ends)
        self.assertEqual("there is no report after 3 sec", stopped)

    def test_damaged_intermediate_report(self):
        # report 3's reads lose their bucket line
        text = reports(range(1, 6)).replace(
            "reads (303 total)\n (00: 0000000300) (03: 0000000003)\n",
            "reads (303 total)\n", 1)
        self.assertNotEqual(reports(range(1, 6)), text)
        ends, _, stopped = self.end(text)
        self.assertEqual([1, 2], ends)
        self.assertEqual("the report after 3 sec is incomplete", stopped)

    def test_small_chunks_read_the_same(self):
        text = header() + reports(range(1, 4)) + "\n".join(support.HOST_LAG)
        whole = scan(text)
        for size in (7, 64, 300):
            ends, end, stopped = scan(text, chunk_size=size)
            self.assertEqual((whole[0], repr(whole[1]), whole[1].stop),
                             (ends, repr(end), end.stop))


if __name__ == "__main__":
    unittest.main()
