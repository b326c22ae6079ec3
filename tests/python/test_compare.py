#!/usr/bin/env python3
"""Tests of act.latency.compare: several logs in one table - slices
aligned by time since the start, "-" where a log has no such slice, the
configuration differences, the worst log, the overall verdict.

    python3 tests/python/test_compare.py [-v]
"""

import unittest

import actlog
from actlog import header, reports

from act.latency import compare
from act.latency import Spec


class Alignment(unittest.TestCase):
    def setUp(self):
        # a 5-second log and a 3-second one, reporting every second
        self.long = actlog.analysed(header(duration=5) +
                                    reports(range(1, 6), over=1),
                                    Spec(slice_sec=1))
        self.short = actlog.analysed(header(duration=3) +
                                     reports(range(1, 4), over=4),
                                     Spec(slice_sec=1))

    def table(self, analyses, labels=("a", "b")):
        return list(compare.compare_table(list(labels), analyses, ["reads"],
                                          analyses[0].buckets, "ms", False))

    def test_slices_aligned_and_missing_shown(self):
        lines = self.table([self.long, self.short])
        rows = [l for l in lines if l[:5].strip().isdigit()]
        self.assertEqual(5, len(rows))
        self.assertEqual(["1", "2", "3", "4", "5"],
                         [r.split()[0] for r in rows])
        # slices 4 and 5: the short log has "-" in each of its 7 columns
        for r in rows[3:]:
            self.assertEqual(["-"] * 7, r.split()[8:])
        for r in rows[:3]:
            self.assertNotIn("-", r.split()[1:])
        self.assertEqual(["avg", "max"], [l.split()[0] for l in lines[-2:]])

    def test_the_order_of_the_logs_does_not_change_a_row(self):
        a = self.table([self.long, self.short])
        b = self.table([self.short, self.long], ("b", "a"))
        for ra, rb in zip(a[5:8], b[5:8]):
            sa, sb = ra.split(), rb.split()
            self.assertEqual(sa[1:8], sb[8:15])

    def test_common_interval_and_rounded_slice(self):
        self.assertEqual(6, compare.common_interval([2, 3]))
        self.assertEqual(4, compare.common_interval([4, 2, 1]))

    def test_group_widths_grow_for_long_labels(self):
        self.assertEqual([49], compare.group_widths(["a"], ["reads"], 49))
        self.assertEqual([49, 60],
                         compare.group_widths(["a", "x" * 59], ["reads"], 49))


class Outlier(unittest.TestCase):
    def test_worst_log(self):
        line = compare.worst_line(["n1", "n2", "n3"], [1.0, 3.0, 2.0],
                                  "reads", "1 ms")
        self.assertEqual("worst: n2, 3.00% over 1 ms at its worst slice, "
                         "2.0x the median of the others (1.50%)", line)

    def test_ties(self):
        self.assertEqual(
            "worst: none, both logs have 1.00% over 1 ms at their worst "
            "slice",
            compare.worst_line(["a", "b"], [1.0, 1.0], "reads", "1 ms"))
        worst, top, median = compare.worst_of(["a", "b", "c"],
                                              [2.0, 2.0, 0.0])
        self.assertEqual((["a", "b"], 2.0, 0.0), (worst, top, median))

    def test_overall_verdict(self):
        self.assertEqual("PASS", compare.overall_verdict(["PASS", "PASS"]))
        self.assertEqual("FAIL", compare.overall_verdict(
            ["INCOMPLETE", "FAIL"]))
        self.assertEqual("INCOMPLETE", compare.overall_verdict(
            ["PASS", "INCOMPLETE"]))
        self.assertEqual(
            "result: FAIL (1 of 2 logs passed; b: FAIL)",
            compare.overall_result_line(["a", "b"], ["PASS", "FAIL"]))


class Config(unittest.TestCase):
    def test_differences_from_the_first_log(self):
        from act.logfile.header import read_header
        import io
        h1 = read_header(io.BytesIO(header(duration=5).encode()))
        h2 = read_header(io.BytesIO(header(duration=9).encode()))
        self.assertEqual(["b: test-duration-sec: 9 (a: 5)"],
                         compare.config_differences(["a", "b"], [h1, h2]))
        self.assertEqual([], compare.config_differences(["a", "b"],
                                                        [h1, h1]))

    def test_scales_must_agree(self):
        from act.logfile import LogError
        from act.logfile.header import read_header
        import io
        hs = [read_header(io.BytesIO(header(micro=m).encode()))
              for m in (False, True)]
        with self.assertRaises(LogError) as e:
            compare.check_logs(Spec(), ["ms.log", "us.log"], hs)
        self.assertIn("us.log has microsecond histograms and ms.log "
                      "millisecond ones", str(e.exception))


if __name__ == "__main__":
    unittest.main()
