#!/usr/bin/env python3
"""Description: reading the paper's production data
(analysis/act/sizing/tables.py): asloglatency's device-read-size /
device-write-size tables (the avg row, trimmed after its first 0, and its
ops/sec) and drv_ssd's defrag lines (the last write and direct-frees
rates, summed over devices, rounded half up) - on the paper's own inputs
and on broken copies of them, each refused as a user error (exit status
2, one line naming the file and line, no traceback).

    python3 tests/python/sizing/test_tables.py [-v]
"""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
from support import (PAPER_READ_HIST, PAPER_WRITE_HIST,  # noqa: E402
                     HelperCase, fixture)

from act.sizing import config_file, tables  # noqa: E402


class ParseTable(unittest.TestCase):

    def test_paper_avg_rows(self):
        t = tables.parse_size_table(fixture("read-sizes.txt"), "r", "read")
        self.assertEqual(config_file.format_histogram(t.values),
                         PAPER_READ_HIST)
        self.assertEqual((t.ops, t.columns, t.line), (10427.0, 19, 15))
        t = tables.parse_size_table(fixture("write-sizes.txt"), "w",
                                    "write")
        self.assertEqual(config_file.format_histogram(t.values),
                         PAPER_WRITE_HIST)
        self.assertEqual(t.ops, 5916.0)

    def test_minimal_table(self):
        text = ("slice-to (sec) 1 2 4 ops/sec\n"
                "avg 100 50 0 12.4\n")
        t = tables.parse_size_table(text, "m", "read")
        self.assertEqual(t.values, [100.0, 50.0, 0.0])
        self.assertEqual(config_file.format_histogram(t.values),
                         "100.00,50.00,0.00")


class DefragLog(HelperCase):

    def test_last_line_wins(self):
        old = fixture("defrag.log").replace("1543.0", "1000.0").replace(
            ",369)", ",100)")
        path = self.write("d.log", old + fixture("defrag.log"))
        r = self.ok("--defrag-log", path)
        found = self.check_config(r.stdout)
        self.assertEqual(found["total-lbw-per-sec"], "1543")
        self.assertEqual(found["direct-frees"], "369")
        self.assertIn("write rate in %s line 4" % path, r.stderr)

    def test_several_devices_are_summed(self):
        other = fixture("defrag.log").replace("nvme0n1", "nvme1n1").replace(
            "1543.0", "1457.0").replace(",369)", ",131)")
        path = self.write("d.log", fixture("defrag.log") + other)
        found = self.check_config(self.ok("--defrag-log", path).stdout)
        self.assertEqual(found["total-lbw-per-sec"], "3000")
        self.assertEqual(found["direct-frees"], "500")

    def test_pure(self):
        d = tables.parse_defrag_log(fixture("defrag.log"), "defrag.log")
        self.assertEqual((d.total_lbw, d.direct_frees), (1543, 369))
        self.assertAlmostEqual(d.defrag_read, 1172.8)

    def test_rounding_half_up(self):
        text = fixture("defrag.log").replace("1543.0", "1542.5").replace(
            ",369)", ",368.5)")
        d = tables.parse_defrag_log(text, "x")
        self.assertEqual((d.total_lbw, d.direct_frees), (1543, 369))


class Errors(HelperCase):
    """A broken table or log: exit 2, one line, the file and line named,
    no traceback."""

    def bad_table(self, old, new, name="read-sizes.txt", count=1):
        text = fixture(name)
        self.assertIn(old, text)
        return self.write("bad.txt", text.replace(old, new, count))

    AVG = ("     avg       100.00 100.00 100.00 100.00 100.00 100.00 100.00 "
           "100.00 100.00 100.00 100.00  83.97")

    def test_no_avg_row(self):
        path = self.bad_table("     avg", "     mean")
        self.user_error("--read-sizes", path, expect=("no avg row", path))

    def test_not_a_table(self):
        path = self.write("empty.txt", "hello\n")
        self.user_error("--read-sizes", path,
                        expect=("no asloglatency table",))

    def test_non_numeric_value(self):
        path = self.bad_table(self.AVG, self.AVG.replace("83.97", "8x.97"))
        self.user_error("--read-sizes", path,
                        expect=(path + " line 15", "'8x.97' is not a number",
                                "> 2048 bytes"))

    def test_non_numeric_ops(self):
        path = self.bad_table("10427.0", "10427.0x")
        self.user_error("--read-sizes", path,
                        expect=("line 15", "ops/sec", "'10427.0x'"))

    def test_percentages_increasing(self):
        path = self.bad_table("  68.26  52.89", "  68.26  72.89")
        self.user_error("--read-sizes", path,
                        expect=("line 15", "percentages increase",
                                "72.89 for > 8192 bytes after 68.26"))

    def test_percentage_over_100(self):
        path = self.bad_table("     avg       100.00",
                              "     avg       100.01")
        self.user_error("--read-sizes", path, expect=("line 15", "0..100"))

    def test_never_reaches_zero(self):
        text = fixture("read-sizes.txt")
        lines = text.splitlines()
        avg = [l for l in lines if l.strip().startswith("avg")][0]
        fixed = avg.replace("  0.00   0.00", "  0.50   0.50")
        path = self.write("nz.txt", text.replace(avg, fixed))
        self.user_error("--read-sizes", path,
                        expect=("never reaches 0", "larger -n"))

    def test_wrong_value_count(self):
        path = self.bad_table("   0.00   0.00    10427.0",
                              "   0.00    10427.0")
        self.user_error("--read-sizes", path,
                        expect=("line 15", "19 values, expected 20"))

    def test_wrong_columns(self):
        path = self.bad_table("      1      2      4", "      1      8     64",
                              count=1)
        self.user_error("--read-sizes", path, expect=("line 7", "-e 1"))

    def test_latency_table_instead_of_sizes(self):
        text = fixture("read-sizes.txt").replace("(bytes)", "(ms)")
        path = self.write("lat.txt", text.replace("device-read-size",
                                                  "read"))
        self.user_error("--read-sizes", path,
                        expect=("line 6", "not a size histogram"))

    def test_swapped_tables(self):
        self.user_error("--read-sizes", "write-sizes.txt",
                        expect=("write-sizes.txt line 1",
                                "device-write-size table"))

    def test_two_tables(self):
        text = fixture("read-sizes.txt")
        path = self.write("two.txt", text + text)
        self.user_error("--read-sizes", path, expect=("a second table",))

    def test_defrag_log_errors(self):
        no_frees = fixture("defrag.log").splitlines()[0] + "\n"
        self.user_error("--defrag-log", self.write("a.log", no_frees),
                        expect=("direct-frees", "drv_ssd=detail"))
        self.user_error("--defrag-log", self.write("b.log", "nothing\n"),
                        expect=("no drv_ssd line",))
        bad = fixture("defrag.log").replace(",369)", ",3x9)")
        self.user_error("--defrag-log", self.write("c.log", bad),
                        expect=("c.log line 3", "direct-frees rate",
                                "'3x9' is not a number"))
        more = fixture("defrag.log").replace(",369)", ",2000)")
        self.user_error("--defrag-log", self.write("d.log", more),
                        expect=("direct-frees 2000 is more than the write "
                                "rate 1543",))
        zero = fixture("defrag.log").replace("1543.0", "0.0").replace(
            ",369)", ",0)")
        self.user_error("--defrag-log", self.write("e.log", zero),
                        expect=("write rate is 0",))
        two_ns = fixture("defrag.log") + fixture("defrag.log").replace(
            "{ycsb}", "{bar}")
        self.user_error("--defrag-log", self.write("f.log", two_ns),
                        expect=("several namespaces", "{bar}, {ycsb}"))


if __name__ == "__main__":
    unittest.main()
