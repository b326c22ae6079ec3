#!/usr/bin/env python3
"""Description: act.logfile.stops: the six stop kinds, the kind of a stop line
(the C programs' own lines: the host's and the drive's lag, a stall, a hung
I/O, I/O errors, a signal, a request) and of the lines after the last report (a
report after ERROR lines: no stop; a request or a signal wins), a request's
reason.

    python3 tests/python/logfile/test_stops.py [-v]
"""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
import support  # noqa: E402

from act.logfile import stops  # noqa: E402


class Stops(unittest.TestCase):
    def test_the_six_kinds(self):
        self.assertEqual({"host-limit", "drive-limit", "hung-io",
                          "io-errors", "signal", "request"},
                         set(stops.STOP_KINDS))

    def test_request(self):
        line = ("stopped on request: fail fast: reads 7.20% over 1 ms "
                "(must be under 5%) in hour 3 after 10800 sec")
        self.assertEqual("request", stops.stop_kind(line))
        self.assertEqual("fail fast: reads 7.20% over 1 ms (must be under "
                         "5%) in hour 3", stops.request_reason([b"x", line]))
        self.assertIsNone(stops.request_reason(
            ["stopped by signal SIGINT after 3 sec"]))
        # a request wins over a signal line, wherever each is
        self.assertEqual("request", stops.stop_kind_of(
            [line.encode(), b"stopped by signal SIGINT after 3 sec"]))

    def test_stop_kind(self):
        self.assertEqual("host-limit", stops.stop_kind(support.HOST_LAG[1]))
        self.assertEqual("drive-limit", stops.stop_kind(support.DRIVE_LAG[1]))
        self.assertEqual("drive-limit",
                         stops.stop_kind(support.DRIVE_STALL[1]))
        self.assertEqual("hung-io", stops.stop_kind(support.HUNG[0].encode()))
        self.assertEqual("io-errors", stops.stop_kind(support.IO_ERRORS[-1]))
        self.assertEqual("signal", stops.stop_kind(
            "stopped by signal SIGINT after 0 sec\n"))
        self.assertEqual("request", stops.stop_kind(
            "stopped on request: fail fast: x after 9 sec\n"))
        # a lag's first line, a failed I/O, other lines: no kind
        for line in (support.HOST_LAG[0], support.IO_ERRORS[0],
                     "after 3 sec:", "drive(s) can't keep up",
                     "reads (5 total)"):
            self.assertIsNone(stops.stop_kind(line), line)

    def test_stop_kind_of_the_lines_after_the_last_report(self):
        lag = [l.encode() for l in support.HOST_LAG]
        self.assertEqual("host-limit", stops.stop_kind_of([b""] + lag))
        # a report after the ERROR lines: they did not stop the run
        self.assertIsNone(stops.stop_kind_of(lag + [b"after 3 sec:"]))
        self.assertEqual("hung-io", stops.stop_kind_of(
            lag + [b"after 3 sec:", support.HUNG[0].encode()]))
        # a signal line wins wherever it is
        self.assertEqual("signal", stops.stop_kind_of(
            [b"stopped by signal SIGTERM after 2 sec"] + lag))


if __name__ == "__main__":
    unittest.main()
