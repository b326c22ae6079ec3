#!/usr/bin/env python3
"""Description: act.latency.spec: --criteria parsed (parse_criteria: MS:PCT
pairs, each refused with a ValueError when the threshold is not a power of two
in range or the percentage not within 0..100), the displayed buckets (-s, -n,
-e) and the slice rounded up to the report interval.

    python3 tests/python/latency/test_spec.py [-v]
"""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
import support  # noqa: E402,F401  (act on sys.path)

from act.latency import spec  # noqa: E402


class SpecParts(unittest.TestCase):
    """The parts of a Spec from the command line."""

    def test_parse_criteria(self):
        self.assertEqual(((1.0, 5.0), (8.0, 1.0), (64.0, 0.1)),
                         spec.parse_criteria("1:5,8:1,64:0.1"))
        self.assertEqual(((0.5, 2.0),), spec.parse_criteria(" 0.5:2 "))
        for bad in ("", "1", "1:2:3", "x:5", "3:5", "0:5", "-2:5", "2:101",
                    "2:-1", "inf:5", "1:nan"):
            with self.subTest(bad=bad):
                self.assertRaises(ValueError, spec.parse_criteria, bad)

    def test_buckets_and_slices(self):
        self.assertEqual([0, 1, 2, 3, 4, 5, 6],
                         spec.displayed_buckets(0, 7, 1))
        self.assertEqual([1, 3, 5, 7], spec.displayed_buckets(1, 4, 2))
        self.assertEqual([64], spec.displayed_buckets(64, 1, 5))
        self.assertEqual(4, spec.round_up_slice(3, 2))
        self.assertEqual(4, spec.round_up_slice(4, 2))
        self.assertEqual(3, spec.round_up_slice(1, 3))
        self.assertEqual(3600, spec.round_up_slice(3600, 1))


if __name__ == "__main__":
    unittest.main()
