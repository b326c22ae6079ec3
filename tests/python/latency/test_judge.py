#!/usr/bin/env python3
"""Description: act.latency.judge: the values (percent_over rounds like the
reference, slice_rate, the mean a plain float mean, the caches), the ACT
criteria (Criterion: the bucket and label of a threshold in ms or us, refused
outside the log's buckets; evaluate), the notes about slices (slice_notes: a
slice longer than the run, the end not in any slice, none while the run may be
going, long slices dilute the hour), and act_latency.py's notes on stderr: a
slice longer than the run, the last partial slice, none while the run may be
going, hour slices for the standard criteria, the notes in --json.

    python3 tests/python/latency/test_judge.py [-v]
"""

import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
from support import run_latency as run  # noqa: E402

from act.latency import judge  # noqa: E402
from act.logfile import LogError  # noqa: E402
from act.logfile.reports import RunEnd  # noqa: E402


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


class Compute(unittest.TestCase):

    def test_percent_rounding(self):
        self.assertEqual(0.12, judge.percent_over(1, 800))      # 0.125
        self.assertEqual(0.38, judge.percent_over(3, 800))      # 0.375
        self.assertEqual(33.33, judge.percent_over(1, 3))
        self.assertEqual(100.0, judge.percent_over(5, 5))
        self.assertEqual(0.0, judge.percent_over(0, 0))
        self.assertEqual(0.0, judge.percent_over(0, 17))

    def test_rate_rounding(self):
        self.assertEqual(3996.7, judge.slice_rate(11990, 3))
        self.assertEqual(47.3, judge.slice_rate(142, 3))
        self.assertEqual(0.0, judge.slice_rate(0, 3600))

    def test_mean_is_a_plain_float_mean(self):
        # 0.01 + 0.02 = 0.03 - 1e-18 in floats, so the mean prints 0.01
        # (exact decimal arithmetic would give 0.015 -> 0.02).
        self.assertEqual("   0.01", "%7.2f" % judge.mean([0.01, 0.02]))
        self.assertEqual(3996.6666666666665,
                         judge.mean([3997.0, 3996.3, 3996.7]))
        self.assertEqual(0.0, judge.mean([]))

    def test_criterion_buckets(self):
        c = judge.Criterion(1, 5, False)
        self.assertEqual((0, "1 ms"), (c.bucket, c.label))
        c = judge.Criterion(64, 0.1, False)
        self.assertEqual((6, "64 ms"), (c.bucket, c.label))
        c = judge.Criterion(8, 1, True)
        self.assertEqual((13, "8192 us"), (c.bucket, c.label))
        c = judge.Criterion(0.5, 1, True)
        self.assertEqual((9, "512 us"), (c.bucket, c.label))
        self.assertRaises(LogError, judge.Criterion, 0.5, 1, False)
        self.assertRaises(LogError, judge.Criterion, 2.0 ** 65, 1, False)

    def test_evaluate(self):
        crit = [judge.Criterion(1, 5, False), judge.Criterion(8, 1, False)]
        res = judge.evaluate(crit, ["reads", "writes"], [[4.99, 1.0],
                                                         [5.0, 0.0]])
        self.assertEqual([True, False, False, True],
                         [r["pass"] for r in res])
        self.assertEqual(("writes", "1 ms", 5.0, 5.0),
                         (res[2]["histogram"], res[2]["threshold"],
                          res[2]["limit_pct"], res[2]["max_pct"]))


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


class SliceNoteLines(unittest.TestCase):

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


if __name__ == "__main__":
    unittest.main()
