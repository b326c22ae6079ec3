#!/usr/bin/env python3
"""Description: act.latency.text: the table as the reference prints it (column
widths and padding for long names, -x, a name that just fits, the header lines,
the labels of the top buckets), and the --check lines under it: PASS and FAIL
per criterion on the max row, a criterion outside the displayed columns, custom
criteria, a microsecond log; the note that a run shorter than 24 h or not in
3600 s slices is no certification (verdict and status unchanged; none without
--check), and the host's falling behind at the end of the run repeated as a
warning line (only then).

    python3 tests/python/latency/test_text.py [-v]
"""

import os
import re
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
from support import (SmallLog, header, make, reports,  # noqa: E402
                     run_latency as run, table_rows)

from act.latency import text  # noqa: E402
from act.logfile.header import LogHeader  # noqa: E402


class Format(unittest.TestCase):

    def test_widths_and_padding_for_long_names(self):
        long = "/dev/very-long-device-name-reads"          # 32 characters
        names = ["reads", long, "writes"]
        rows = text.table_header(names, [0, 1], "ms", False)
        w = 14                                            # 7 * 2 buckets
        pad = " " * (len(long) + 1 - w)                   # 19
        self.assertEqual(19, len(pad))
        self.assertEqual("     " + "   reads        " + "   " + long +
                         "   writes       ", rows[0])
        unit = " %>(ms)       "
        self.assertEqual("     " + "  " + unit + "  " + unit + "  " + pad +
                         unit, rows[1])
        self.assertEqual("slice" + "        1      2" * 2 + "  " + pad +
                         "      1      2", rows[2])
        self.assertEqual("-----" + "   ------ ------" * 2 + "  " + pad +
                         " ------ ------", rows[3])
        fmt = text.row_format(names, 2, False)
        row = text.format_row(fmt, 1, [(0.5, 0.25), (1.0, 0.0), (2, 3)],
                              [0, 0, 0], 2, False)
        self.assertEqual("    1     0.50   0.25     1.00   0.00  " + pad +
                         "   2.00   3.00", row)
        # every value ends where its label ends
        for label_end in [m.end() for m in re.finditer(r"\d", rows[2])]:
            self.assertIn(row[label_end - 1], "0123456789")

    def test_extra_and_a_name_that_just_fits(self):
        names = ["x" * 31, "y"]            # W = 7 + 11 = 18 ... use -n 3
        rows = text.table_header(names, [0, 1, 2], "us", True)
        w = 7 * 3 + 11                     # 32: "x"*31 plus one fits
        self.assertEqual(len("     " + "  " + " " + "x" * 31 + "  " + " "),
                         rows[0].index("y"))
        group = "  " + "      1      2      4       rate"
        self.assertEqual("slice" + group * 2, rows[2])
        self.assertEqual("     " + "  " + " %>(us)".ljust(w) + "  " +
                         " %>(us)".ljust(w), rows[1])

    def test_header_lines(self):
        h = LogHeader()
        h.version, h.microsecond = "6.2", None
        h.config = ["ACT-INDEX CONFIGURATION", "a: 1"]
        h.derived = ["DERIVED CONFIGURATION", "b: 2"]
        h.names_block = ["HISTOGRAM NAMES", "reads"]
        self.assertEqual(
            ["act_latency.py -l x -t 3", "x is ACT version 6.2", "",
             "analyzing time slices of 4 seconds",
             "can't find histograms' scale, assuming milliseconds",
             "ACT-INDEX CONFIGURATION", "a: 1", "",
             "DERIVED CONFIGURATION", "b: 2", "",
             "HISTOGRAM NAMES", "reads", ""],
            text.header_lines(["-l", "x", "-t", "3"], "x", h, 4, True))

    def test_all_buckets_labels(self):
        rows = text.table_header(["reads"], list(range(62, 65)), "ms", False)
        self.assertEqual("slice" + "  " + "%7s%7s%7s" % (
            2 ** 62, 2 ** 63, 2 ** 64), rows[2])


class Check(unittest.TestCase):

    def test_pass_and_fail(self):
        code, out, err = run(["-l", "fast.log", "-t", "3", "--check"])
        self.assertEqual(0, code)
        self.assertEqual(3, out.count("\nPASS reads: "))
        self.assertIn("\nresult: PASS (3 of 3 criteria met)\n", out)
        code, out, err = run(["-l", "slow.log", "-t", "2", "--check", "-h",
                              "reads", "-h", "large-block-reads"])
        self.assertEqual(1, code)
        self.assertRegex(out, r"\nFAIL reads: \d+\.\d\d% over 1 ms "
                              r"\(must be under 5%\)\n")
        # large-block histograms are not transactions: not judged
        self.assertNotIn("large-block-reads: ", out)
        self.assertIn("\nnot judged: large-block-reads (the criteria apply "
                      "to the transactions: reads, and writes with "
                      "commit-to-device)\n", out)
        self.assertIn("\nrun: complete (6 sec)\nresult: FAIL (0 of 3 "
                      "criteria met)\n", out)

    def test_verdicts_match_the_max_row(self):
        code, out, err = run(["-l", "slow.log", "-t", "1", "--check"])
        maxes = table_rows(out)["max"]
        for ms, bucket, limit in ((1, 0, 5), (8, 3, 1), (64, 6, 0.1)):
            verdict = "PASS" if maxes[bucket] < limit else "FAIL"
            self.assertIn("\n%s reads: %.2f%% over %d ms " % (
                verdict, maxes[bucket], ms), out)

    def test_criterion_outside_the_displayed_columns(self):
        # -n 2 shows 1 and 2 ms only; the 64 ms criterion is computed from
        # the counts (slow.log has 0.2% of reads in [64, 128) ms)
        code, out, err = run(["-l", "slow.log", "-t", "3", "-n", "2",
                              "--check"])
        self.assertEqual(1, code)
        self.assertRegex(out, r"\nFAIL reads: 0\.[1-9]\d% over 64 ms")
        code, out2, _ = run(["-l", "slow.log", "-t", "3", "--check"])
        self.assertEqual(out.split("\ncheck:")[1], out2.split("\ncheck:")[1])

    def test_custom_criteria(self):
        code, out, err = run(["-l", "fast.log", "-t", "6", "--criteria",
                              "2:0.5,4:0"])
        self.assertEqual(1, code)
        self.assertEqual(0.07, table_rows(out)["max"][1])
        self.assertIn("check: custom criteria on the max row", out)
        self.assertIn("\nPASS reads: 0.07% over 2 ms (must be under 0.5%)",
                      out)
        self.assertIn("\nFAIL reads: 0.00% over 4 ms (must be under 0%)\n",
                      out)
        self.assertIn("\nresult: FAIL (1 of 2 criteria met)\n", out)

    def test_microsecond_log(self):
        code, out, err = run(["-l", "index_us.log", "-t", "3", "--check"])
        self.assertIn("microsecond histograms: 1, 8, 64 ms checked as "
                      "1024 us, 8192 us, 65536 us", out)
        self.assertIn("over 1024 us (must be under 5%)", out)
        self.assertIn("%>(us)", out)


class CheckEdges(SmallLog):
    def test_check_note_on_a_short_run(self):
        code, out, err = run(["-l", self.log, "-t", "1", "--check"])
        self.assertEqual(0, code, err)
        lines = out.rstrip("\n").split("\n")
        self.assertEqual("result: PASS (3 of 3 criteria met)", lines[-2])
        self.assertEqual("note: an ACT certification needs 24-hour runs "
                         "judged in 3600 s slices (-t 3600); this run is "
                         "10 sec and its slices are 1 sec: this verdict is "
                         "not a certification", lines[-1])
        # no --check: no note
        code, out, err = run(["-l", self.log, "-t", "1"])
        self.assertNotIn("certification", out + err)

    def test_check_warns_when_the_host_fell_behind(self):
        behind = ("WARNING: the host fell behind at the end of the run: "
                  "service threads still owed 4500 requests due before 10 "
                  "sec (3 threads, up to 0.750 sec behind schedule) - the "
                  "last report lacks them\n")
        log = make(os.path.join(self.tmp, "behind.log"),
                   header(duration=10, reads_per_sec=100) +
                   reports(range(1, 10), over=2) + behind +
                   reports([10], over=2))
        code, out, _ = run(["-l", log, "-t", "1", "--check"])
        self.assertEqual(code, 0, out)
        self.assertIn("\nwarning: the host fell behind at the end of the "
                      "run: service threads still owed 4500 requests", out)
        self.assertIn("run: complete (10 sec)", out)
        code, out, _ = run(["-l", self.log, "-t", "1", "--check"])
        self.assertNotIn("fell behind", out)


if __name__ == "__main__":
    unittest.main()
