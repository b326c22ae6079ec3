#!/usr/bin/env python3
"""Description: the trend statistics (analysis/act/latency/trend_stats.py)
against values computed by hand and table values:

- the standard normal CDF at table points (Phi(1.96) = 0.9750, Phi(1.645)
  = 0.9500, Phi(-1) = 0.1587, Phi(0) = 0.5) and its inverse (z(0.975) =
  1.960);
- Mann-Kendall on 1 2 2 4 3 (a tie): S = 7 (4 + 2 + 2 - 1, pair by pair),
  Var(S) = (5*4*15 - 2*1*9) / 18 = 15.667, Z with the continuity
  correction (7 - 1) / sqrt(15.667) = 1.516, p two-sided 0.1296 (normal
  approximation: ties); a falling series gives -S and the same p; a flat
  one S 0, p 1; fewer than 2 values p 1;
- the exact distribution for small n without ties: 5 rising values p =
  2/120 (the two orders with |S| = 10), 1 3 2 4 (S = 4) p = 8/24 (Kendall's
  table: P(S >= 4) = 0.167 for n = 4, each side); at n = 10 the exact p is
  close to the normal approximation's;
- Theil-Sen: a line 2k + 1 gives slope 2, interval (2, 2), intercept 1;
  an outlier does not move it (1 2 3 4 100 6 7 8: slope 1); 0 1 3 2: the
  median of the 6 pair slopes (2/3 + 1) / 2; for 10 values without ties
  (N = 45 pair slopes, Var(S) = 125, C = 1.96 x 11.18 = 21.91) the 95%
  interval is the 12th and the 34th smallest pair slopes (Gilbert 1987:
  M1 = (45 - 21.91) / 2 = 11.5 -> 12, M2 + 1 = 33.5 -> 34), and at 90%
  narrower.

    python3 tests/python/latency/test_trend_stats.py [-v]
"""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
import support  # noqa: E402,F401

from act.latency import trend_stats as ts  # noqa: E402


class Normal(unittest.TestCase):
    def test_table(self):
        for x, want in ((1.96, 0.9750), (1.645, 0.9500), (-1.0, 0.1587),
                        (0.0, 0.5), (2.576, 0.9950)):
            self.assertAlmostEqual(want, ts.norm_cdf(x), places=4,
                                   msg="Phi(%s)" % x)
        self.assertAlmostEqual(1.960, ts.norm_ppf(0.975), places=3)


class MannKendall(unittest.TestCase):
    def test_ties(self):
        m = ts.mann_kendall([1, 2, 2, 4, 3])
        self.assertEqual(7, m.s, "S of 1 2 2 4 3")
        self.assertAlmostEqual(282 / 18.0, m.var_s, places=9,
                               msg="Var(S) with one pair of ties")
        self.assertAlmostEqual(6 / (282 / 18.0) ** 0.5, m.z, places=9)
        self.assertAlmostEqual(0.1296, m.p, places=4, msg="p")
        self.assertFalse(m.exact, "ties: the normal approximation")
        d = ts.mann_kendall([3, 4, 2, 2, 1])
        self.assertEqual((-7, m.p), (d.s, d.p), "the mirror image")
        flat = ts.mann_kendall([5, 5, 5, 5])
        self.assertEqual((0, 1.0), (flat.s, flat.p), "a flat series")
        self.assertEqual(1.0, ts.mann_kendall([3]).p, "one value")
        self.assertEqual(1.0, ts.mann_kendall([]).p, "no value")

    def test_exact(self):
        m = ts.mann_kendall([1, 2, 3, 4, 5])
        self.assertEqual((10, True), (m.s, m.exact))
        self.assertAlmostEqual(2 / 120.0, m.p, places=12,
                               msg="5 rising values")
        m = ts.mann_kendall([1, 3, 2, 4])
        self.assertEqual(4, m.s)
        self.assertAlmostEqual(8 / 24.0, m.p, places=12, msg="1 3 2 4")
        ys = [0.3, 1.2, 0.1, 0.9, 1.5, 0.7, 2.0, 1.1, 2.4, 1.8]
        m = ts.mann_kendall(ys)
        normal = 2 * ts.norm_cdf(-abs(m.z))
        self.assertTrue(m.exact and abs(m.p - normal) < 0.01,
                        "n = 10: exact %r, normal %r" % (m.p, normal))


class TheilSen(unittest.TestCase):
    def test_slope(self):
        t = ts.theil_sen([2 * k + 1 for k in range(9)])
        self.assertEqual((2.0, 2.0, 2.0, 1.0), tuple(t), "a line 2k + 1")
        self.assertEqual(1.0, ts.theil_sen([1, 2, 3, 4, 100, 6, 7, 8]).slope,
                         "an outlier")
        self.assertAlmostEqual((2 / 3.0 + 1) / 2, ts.theil_sen(
            [0, 1, 3, 2]).slope, places=12, msg="0 1 3 2")
        self.assertEqual((0.0, 0.0, 0.0, 0.0), tuple(ts.theil_sen([])))

    def test_interval(self):
        ys = [0.3, 1.2, 0.1, 0.9, 1.5, 0.7, 2.0, 1.1, 2.4, 1.8]
        slopes = sorted((ys[j] - ys[i]) / (j - i) for i in range(10)
                        for j in range(i + 1, 10))
        t = ts.theil_sen(ys)
        self.assertEqual((slopes[11], slopes[33]), (t.low, t.high),
                         "95%: the 12th and 34th of 45")
        self.assertEqual((slopes[22], slopes[22]), (t.slope, t.slope),
                         "the median: the 23rd")
        t90 = ts.theil_sen(ys, confidence=0.90)
        self.assertTrue(t.low <= t90.low <= t90.high <= t.high and
                        (t90.low, t90.high) != (t.low, t.high),
                        "90%% narrower: %r, %r" % (t90, t))


if __name__ == "__main__":
    unittest.main()
