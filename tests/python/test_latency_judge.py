#!/usr/bin/env python3
"""Tests of act.latency.judge: percentages, rates, the mean, the ACT
criteria (Criterion, evaluate) and the notes about slices (the verdict:
test_latency_verdict.py).

    python3 tests/python/test_latency_judge.py [-v]
"""

import unittest

import actlog  # noqa: F401  (the act package on sys.path)

from act.logfile import LogError
from act.latency import judge
from act.logfile.reports import RunEnd


class Values(unittest.TestCase):
    def test_percent_over_rounds_like_the_reference(self):
        self.assertEqual(33.33, judge.percent_over(1, 3))
        self.assertEqual(0.0, judge.percent_over(5, 0))
        self.assertEqual(100.0, judge.percent_over(7, 7))

    def test_slice_rate(self):
        self.assertEqual(33.3, judge.slice_rate(100, 3))

    def test_mean_is_a_plain_left_to_right_sum(self):
        # 0.015 as the reference's mean: 0.01 after %.2f, not 0.02
        self.assertEqual("0.01", "%.2f" % judge.mean([0.01, 0.02]))
        self.assertEqual(0.0, judge.mean([]))

    def test_caches(self):
        c = judge.PercentCaches()
        self.assertEqual(judge.percent_over(1, 3), c[3][2])
        self.assertEqual([3], list(c))
        f = judge.FuncCache(lambda x: x * 2)
        self.assertEqual(8, f[4])
        self.assertEqual({4: 8}, dict(f))


class Criteria(unittest.TestCase):
    def test_millisecond(self):
        c = judge.Criterion(8.0, 1.0, False)
        self.assertEqual((3, "8 ms"), (c.bucket, c.label))

    def test_microsecond(self):
        c = judge.Criterion(1.0, 5.0, True)
        self.assertEqual((10, "1024 us"), (c.bucket, c.label))
        c = judge.Criterion(0.5, 5.0, True)
        self.assertEqual((9, "512 us"), (c.bucket, c.label))

    def test_out_of_range(self):
        with self.assertRaises(LogError) as e:
            judge.Criterion(0.5, 5.0, False)
        self.assertIn("a millisecond log starts at 1 ms", str(e.exception))

    def test_evaluate(self):
        cs = [judge.Criterion(ms, pct, False)
              for ms, pct in judge.DEFAULT_CRITERIA]
        results = judge.evaluate(cs, ["reads"], [[4.99, 1.0, 0.0]])
        self.assertEqual([True, False, True], [r["pass"] for r in results])
        self.assertEqual(["1 ms", "8 ms", "64 ms"],
                         [r["threshold"] for r in results])


class SliceNotes(unittest.TestCase):
    def test_slice_longer_than_the_run(self):
        run = RunEnd("complete", 10, 10)
        self.assertEqual(["slice of 20 sec is longer than the run (10 sec): "
                          "no slice is complete; use a shorter -t"],
                         judge.slice_notes(run, 20, [], False))

    def test_uncovered_end(self):
        run = RunEnd("complete", 10, 10)
        notes = judge.slice_notes(run, 3, [3, 6, 9], False)
        self.assertEqual(["the last 1 sec of the run are not in any slice: "
                          "3 slices of 3 sec end at 9 sec, the run at 10 "
                          "sec"], notes)

    def test_still_running_says_nothing(self):
        run = RunEnd("cut", 10, 4, "log ends after 4 of 10 sec")
        self.assertEqual([], judge.slice_notes(run, 3, [3], False))

    def test_long_slices_dilute_the_hour(self):
        run = RunEnd("complete", 7200, 7200)
        notes = judge.slice_notes(run, 7200, [7200], True)
        self.assertEqual(1, len(notes))
        self.assertIn("use -t 3600 for the standard verdict", notes[0])


if __name__ == "__main__":
    unittest.main()
