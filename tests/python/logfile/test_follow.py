#!/usr/bin/env python3
"""Description: act.logfile.follow: following a log being written (LogFollower:
no file yet, a growing log, the reports' points and a window over them;
last_report, 0 when the log is gone), a microsecond log counted over 1024 us,
the over-1-ms bucket that of the 1 ms criterion.

    python3 tests/python/logfile/test_follow.py [-v]
"""

import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
from support import header, make, report, reports  # noqa: E402

from act.latency.judge import Criterion  # noqa: E402
from act.logfile import follow, over_1ms_bucket  # noqa: E402


class Follow(unittest.TestCase):
    def test_growing_log(self):
        text = header() + reports(range(1, 7), over=3)
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "run.log")
            f = follow.LogFollower(path)
            self.assertFalse(f.poll())          # no file yet
            seen = []
            for n in range(0, len(text) + 50, 50):
                make(path, text[:n])
                self.assertTrue(f.poll())
                seen.append(f.last)
            self.assertEqual(6, f.last)
            self.assertEqual(sorted(x for x in seen if x is not None),
                             [x for x in seen if x is not None])
            self.assertEqual([(t, 103 * t, 3 * t) for t in range(1, 7)],
                             list(f.points))
            pct, covered = f.window(2)
            self.assertEqual((round(300 / 103, 6), 2),
                             (round(pct, 6), covered))
            self.assertEqual(6, follow.last_report(path))
        self.assertEqual(0, follow.last_report(path))   # gone

    def test_microsecond_log_counts_over_1024_us(self):
        text = header(micro=True) + "".join(
            report(t, {"reads": {0: 10 * t, 10: 5 * t, 11: t},
                       "writes": {}}) for t in (1, 2))
        with tempfile.TemporaryDirectory() as tmp:
            f = follow.LogFollower(make(os.path.join(tmp, "l"), text))
            f.poll()
            self.assertEqual([(1, 16, 1), (2, 32, 2)], list(f.points))

    def test_one_ms_is_the_criterion_bucket(self):
        for micro in (False, True):
            self.assertEqual(Criterion(1.0, 5.0, micro).bucket,
                             over_1ms_bucket(micro))


if __name__ == "__main__":
    unittest.main()
