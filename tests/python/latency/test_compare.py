#!/usr/bin/env python3
"""Description: act.latency.compare: several logs in one table - in process,
slices aligned by time since the start, "-" where a log has no such slice, the
configuration differences, the worst log, the overall verdict; from
act_latency.py -l A -l B ...: the exact layout, one log unchanged, --label and
the group widths, default labels, label errors, errors naming the log, logs
with different intervals, groups per log and histogram, the outlier line and
its wording, --check per log and overall, notes and warnings naming the log,
--json and --plot of several logs.

    python3 tests/python/latency/test_compare.py [-v]
"""

import json
import os
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
from support import (FIXTURES, MULTI_NOTE, NODES, NODES_WORST,  # noqa: E402
                     NOTE_8S, TempLogs, analysed, compare_rows, header,
                     reports, run_latency as run, synthlog, table_rows)

from act.latency import Spec, compare, driver  # noqa: E402


class Alignment(unittest.TestCase):
    def setUp(self):
        # a 5-second log and a 3-second one, reporting every second
        self.long = analysed(header(duration=5) +
                             reports(range(1, 6), over=1),
                             Spec(slice_sec=1))
        self.short = analysed(header(duration=3) +
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


def tiny_log(device, duration, per_second, seconds=None, interval=1,
             scale="no", names=("reads",)):
    """A small log whose every second has the same counts per bucket
    (per_second), so its percentages are known: reports every interval up
    to `seconds` (default: the whole test-duration-sec)."""
    lines = ["", "ACT version 6.6", "Storage device IO test", "",
             "ACT-STORAGE CONFIGURATION", "device-names: " + device,
             "test-duration-sec: %d" % duration,
             "report-interval-sec: %d" % interval,
             "microsecond-histograms: %s" % scale, "",
             "DERIVED CONFIGURATION", "large-block-reads-per-sec: 1.00", "",
             "HISTOGRAM NAMES"] + list(names) + [""]
    cum = [0] * len(per_second)
    for t in range(interval, (seconds or duration) + 1, interval):
        cum = [c + n * interval for c, n in zip(cum, per_second)]
        lines.append("after %d sec:" % t)
        for name in names:
            lines += synthlog.histogram(name, cum)
        lines.append("")
    return "\n".join(lines) + "\n"


# The small comparison of Compare.test_exact_layout: a.log has 1% of reads
# over 1 ms every second for 3 seconds; b.log (another device) 5% over 1 ms
# and 2% over 2 ms, and ends after 2 of its 3 seconds.
SMALL_COMPARISON = """\
act_latency.py -l a.log -l b.log -t 1 -n 2
a.log is ACT version 6.6
b.log is ACT version 6.6

ACT-STORAGE CONFIGURATION
device-names: /dev/sdb
test-duration-sec: 3
report-interval-sec: 1
microsecond-histograms: no

DERIVED CONFIGURATION
large-block-reads-per-sec: 1.00

HISTOGRAM NAMES
reads

configuration differences (the blocks above are a.log's):
b.log: device-names: /dev/sdc (a.log: /dev/sdb)

        a.log           b.log
        reads           reads
        %>(ms)          %>(ms)
slice        1      2        1      2
-----   ------ ------   ------ ------
    1     1.00   0.00     5.00   2.00
    2     1.00   0.00     5.00   2.00
    3     1.00   0.00        -      -
-----   ------ ------   ------ ------
  avg     1.00   0.00     5.00   2.00
  max     1.00   0.00     5.00   2.00

worst: b.log, 5.00% over 1 ms at its worst slice, 5.0x the other (1.00%)
"""


class Compare(TempLogs):
    """-l A -l B ...: one table, one column group per log."""

    def small(self):
        self.write("a.log", tiny_log("/dev/sdb", 3, [990, 10]))
        self.write("b.log", tiny_log("/dev/sdc", 3, [950, 30, 20],
                                     seconds=2))

    def test_exact_layout(self):
        self.small()
        code, out, err = self.run_here(["-l", "a.log", "-l", "b.log", "-t",
                                        "1", "-n", "2"])
        self.assertEqual((0, ""), (code, err))
        self.assertEqual(SMALL_COMPARISON, out)

    def test_one_log_is_unchanged(self):
        # the single-log output does not go through the comparison code
        for args in (["-t", "1"], ["-t", "3", "-x", "-h", "reads", "-h",
                                   "large-block-writes"]):
            code, out, err = run(["-l", "example_storage.log"] + args)
            self.assertNotIn("worst:", out)
            self.assertTrue(out.startswith("act_latency.py -l "
                                           "example_storage.log"))

    def test_labels(self):
        self.small()
        code, out, err = self.run_here(["-l", "a.log", "--label", "node-a",
                                        "-l", "b.log", "--label",
                                        "a-rather-long-label-for-b", "-t",
                                        "1", "-n", "2", "-x"])
        self.assertEqual(0, code)
        self.assertIn("\nnode-a (a.log) is ACT version 6.6\n"
                      "a-rather-long-label-for-b (b.log) is ACT version "
                      "6.6\n", out)
        lines = out.split("\n")
        top = lines.index("configuration differences (the blocks above are "
                          "node-a's):") + 3
        # groups of 2 x 7 + 11 = 25 characters; the label of b (25
        # characters) widens b's group to 26
        self.assertEqual("        node-a" + " " * 21 +
                         "a-rather-long-label-for-b", lines[top])
        self.assertEqual("slice        1      2       rate        1      2"
                         "       rate", lines[top + 3])
        self.assertEqual("    3     1.00   0.00     1000.0        -      -"
                         "          -", lines[top + 7])
        self.assertEqual("  max     1.00   0.00     1000.0     5.00   2.00"
                         "     1000.0", lines[top + 10])
        self.assertIn("worst: a-rather-long-label-for-b, 5.00% over 1 ms",
                      out)

    def test_group_widths(self):
        # a label longer than its log's groups widens the log's last group
        self.assertEqual([14, 14, 14, 20],
                         compare.group_widths(["a", "x" * 35],
                                              ["reads", "writes"], 14))
        # a long histogram name widens its groups
        self.assertEqual([20, 20], compare.group_widths(
            ["x", "y"], ["/dev/sdb-long-reads"], 14))

    def test_default_labels(self):
        self.assertEqual(["a.log", "b.log"],
                         driver.log_labels(["x/a.log", "/y/b.log"], None))
        self.assertEqual(["x/n.log", "y/n.log", "m.log"],
                         driver.log_labels(["x/n.log", "y/n.log", "m.log"],
                                           None))
        self.assertEqual(["n.log", "n.log#2"],
                         driver.log_labels(["n.log", "n.log"], None))
        self.assertEqual(["A", "B"], driver.log_labels(["a", "b"], ["A", "B"]))

    def test_label_errors(self):
        self.small()
        for args, text in [
                (["--label", "A"], "--label given 1 time for 2 logs: give "
                 "one --label per -l, in order"),
                (["--label", "A", "--label", "A"], "--label A given twice"),
                (["--label", "A", "--label", ""], "bad --label ''"),
                (["--label", "A", "--label", "B\nC"], "bad --label"),
                (["--csv", "--json"], "--csv and --json: choose one")]:
            with self.subTest(args=args):
                code, out, err = self.run_here(["-l", "a.log", "-l", "b.log"]
                                               + args)
                self.assertEqual((2, ""), (code, out))
                self.assertIn("act_latency.py: error: " + text, err)
                self.assertEqual(1, len(err.splitlines()), err)

    def test_errors_name_the_log(self):
        self.small()
        self.write("us.log", tiny_log("/dev/sdd", 3, [990, 10],
                                      scale="yes"))
        self.write("writes.log", tiny_log("/dev/sdd", 3, [990, 10],
                                          names=("writes",)))
        for args, text in [
                (["-l", "a.log", "-l", "missing.log"],
                 "cannot open the log missing.log: "),
                (["-l", "a.log", "-l", "writes.log"],
                 "histogram reads not in writes.log; its histograms are: "
                 "writes"),
                (["-l", "a.log", "-l", "us.log"],
                 "us.log has microsecond histograms and a.log millisecond "
                 "ones"),
                (["-l", "a.log", "-l", "b.log", "-t", "5"],
                 "could not find 5 seconds of data in a.log")]:
            with self.subTest(args=args):
                code, out, err = self.run_here(args)
                self.assertEqual((2, ""), (code, out))
                self.assertTrue(err.startswith("act_latency.py: error: " +
                                               text), err)
                self.assertNotIn("Traceback", err)

    def test_slices_of_logs_with_different_intervals(self):
        # interval2.log reports every 2 sec: -t 1 becomes 2-sec slices,
        # ending at the same second in both logs
        code, out, err = run(["-l", "fast.log", "-l", "interval2.log", "-t",
                              "1", "-n", "1"])
        self.assertEqual(0, code)
        self.assertIn("\nanalyzing time slices of 2 seconds\n", out)
        rows = compare_rows(out)
        fast = table_rows(run(["-l", "fast.log", "-t", "2", "-n", "1"])[1])
        two = table_rows(run(["-l", "interval2.log", "-t", "2", "-n",
                              "1"])[1])
        for k in ("1", "2", "3"):
            self.assertEqual([fast[k][0], two[k][0]], rows[k])
        for k in ("4", "5", "6"):
            self.assertEqual([None, two[k][0]], rows[k])
        self.assertEqual([fast["max"][0], two["max"][0]], rows["max"])

    def test_groups_per_log_and_histogram(self):
        args = NODES + ["-t", "2", "-n", "3", "-h", "reads", "-h",
                        "large-block-reads"]
        code, out, err = run(args)
        rows = compare_rows(out)
        for n, name in enumerate(["node1.log", "node2.log", "node3.log"]):
            for i, hist in enumerate(["reads", "large-block-reads"]):
                one = table_rows(run(["-l", name, "-t", "2", "-n", "3", "-h",
                                      hist])[1])
                g = (2 * n + i) * 3
                for k, values in one.items():
                    self.assertEqual(values, rows[k][g:g + 3], (name, hist))
        self.assertEqual([None] * 6, rows["4"][6:12])    # node2 stopped
        head = out.split("\nslice ")[0].split("\n")[-3:]
        self.assertEqual(("        node1.log" + " " * 37 + "node2.log" +
                          " " * 37 + "node3.log"), head[0])
        self.assertEqual(["reads", "large-block-reads"] * 3, head[1].split())

    def test_outlier_line(self):
        code, out, err = run(NODES + ["-t", "2"])
        self.assertEqual(0, code)
        self.assertTrue(out.endswith("\n  max " + out.split("\n  max ")[1]))
        self.assertTrue(out.endswith("\n\n" + NODES_WORST + "\n"), out)
        # the median of the others: 2.65 (node1) and 1.46 (node2)
        self.assertEqual(
            "worst: c, 8.18% over 1 ms at its worst slice, 4.0x the median "
            "of the others (2.05%)",
            compare.worst_line(["a", "b", "c"], [2.65, 1.46, 8.18], "reads",
                               "1 ms"))

    def test_outlier_wording(self):
        w = compare.worst_line
        self.assertEqual("worst: b, 4.20% over 1 ms at its worst slice, "
                         "3.0x the other (1.40%)",
                         w(["a", "b"], [1.4, 4.2], "reads", "1 ms"))
        self.assertEqual("worst: none, both logs have 0.00% over 1 ms at "
                         "their worst slice",
                         w(["a", "b"], [0.0, 0.0], "reads", "1 ms"))
        self.assertEqual("worst: none, every log has 1.50% over 1 ms at its "
                         "worst slice",
                         w(["a", "b", "c"], [1.5, 1.5, 1.5], "reads",
                           "1 ms"))
        self.assertEqual("worst: b and c, 2.00% over 1 ms at their worst "
                         "slice, 4.0x the other (0.50%)",
                         w(["a", "b", "c"], [0.5, 2.0, 2.0], "reads",
                           "1 ms"))
        self.assertEqual("worst: c, 2.00% over 1 ms at its worst slice, the "
                         "median of the others is 0.00%",
                         w(["a", "b", "c"], [0.0, 0.0, 2.0], "reads",
                           "1 ms"))
        self.assertEqual("worst: b, 0.30% over 1 ms at its worst slice, the "
                         "other has 0.00%",
                         w(["a", "b"], [0.0, 0.3], "reads", "1 ms"))
        self.assertEqual("worst: a, 9.00% of large-block-reads over 1024 us "
                         "at its worst slice, 3.0x the median of the others "
                         "(3.00%)",
                         w(["a", "b", "c", "d"], [9.0, 1.0, 3.0, 5.0],
                           "large-block-reads", "1024 us"))

    def test_outlier_without_the_1ms_column(self):
        # -s 2: 1 ms is not displayed; the outlier is computed from the
        # counts all the same
        code, out, err = run(NODES + ["-t", "2", "-s", "2", "-n", "2"])
        self.assertTrue(out.endswith(NODES_WORST + "\n"), out[-300:])

    def test_check_one_failing_log(self):
        code, out, err = run(["-l", "node1.log", "-l", "node3.log", "-t",
                              "2", "--check"])
        self.assertEqual(1, code)
        tail = out.split("\ncheck: ")[1]
        self.assertEqual(
            "standard ACT criteria on the max row\n"
            "node1.log: PASS reads: 2.65% over 1 ms (must be under 5%)\n"
            "node1.log: PASS reads: 0.00% over 8 ms (must be under 1%)\n"
            "node1.log: PASS reads: 0.00% over 64 ms (must be under 0.1%)\n"
            "node1.log: run: complete (8 sec)\n"
            "node1.log: result: PASS (3 of 3 criteria met)\n"
            "node3.log: FAIL reads: 8.18% over 1 ms (must be under 5%)\n"
            "node3.log: PASS reads: 0.75% over 8 ms (must be under 1%)\n"
            "node3.log: PASS reads: 0.00% over 64 ms (must be under 0.1%)\n"
            "node3.log: run: complete (8 sec)\n"
            "node3.log: result: FAIL (2 of 3 criteria met)\n"
            "result: FAIL (1 of 2 logs passed; node3.log: FAIL)\n" +
            MULTI_NOTE, tail)
        # each log's lines are its own --check lines
        for name in ("node1.log", "node3.log"):
            own = run(["-l", name, "-t", "2", "--check"])[1]
            self.assertTrue(own.endswith("\n" + NOTE_8S), own)
            own = own[:-len(NOTE_8S)]
            mine = [line[len(name) + 2:] for line in out.split("\n")
                    if line.startswith(name + ": ")]
            self.assertEqual(own.split("\ncheck: standard ACT criteria on "
                                       "the max row\n")[1].split("\n")[:-1],
                             mine)

    def test_check_incomplete_and_passing(self):
        code, out, err = run(NODES + ["-t", "2", "--check"])
        self.assertEqual(1, code)
        self.assertIn("\nnode2.log: run: INCOMPLETE - stopped by signal "
                      "SIGINT after 6 sec (6 of 8 sec ran)\n", out)
        self.assertTrue(out.endswith(
            "\nresult: FAIL (1 of 3 logs passed; node2.log: INCOMPLETE, "
            "node3.log: FAIL)\n" + MULTI_NOTE))
        code, out, err = run(["-l", "node1.log", "-l", "node2.log", "-t",
                              "2", "--check"])
        self.assertEqual(1, code)
        self.assertTrue(out.endswith(
            "\nresult: INCOMPLETE (1 of 2 logs passed; node2.log: "
            "INCOMPLETE)\n" + MULTI_NOTE))
        code, out, err = run(["-l", "node1.log", "-l", "fast.log", "-t",
                              "2", "--check"])
        self.assertEqual(0, code)
        self.assertTrue(out.endswith("\nresult: PASS (2 of 2 logs "
                                     "passed)\n" + MULTI_NOTE))
        code, out, err = run(["-l", "node1.log", "-l", "node3.log", "-t",
                              "2", "--stress"])
        self.assertEqual(0, code)
        self.assertIn("\nnode3.log: result: PASS (stress test: the run "
                      "completed; 2 of 3 criteria met, for information)\n",
                      out)

    def test_check_nothing_to_judge_names_the_log(self):
        code, out, err = run(["-l", "node1.log", "-l", "node3.log", "-h",
                              "large-block-reads", "--check"])
        self.assertEqual((2, ""), (code, out))
        self.assertIn("--check has nothing to judge in node1.log", err)

    def test_notes_and_warnings_name_the_log(self):
        code, out, err = run(["-l", "fast.log", "-l", "stopped_sigint.log",
                              "-t", "4"])
        self.assertEqual(0, code)
        self.assertEqual(
            "act_latency.py: note: fast.log: the last 2 sec of the run are "
            "not in any slice: 1 slice of 4 sec ends at 4 sec, the run at 6 "
            "sec\n", err)
        with open(os.path.join(FIXTURES, "fast.log")) as f:
            text = f.read()
        self.write("damaged.log", text.replace("after 3 sec:", "after 33 "
                                                                 "sec:"))
        self.write("fast.log", text)
        code, out, err = self.run_here(["-l", "fast.log", "-l",
                                        "damaged.log", "-t", "1"])
        self.assertEqual(0, code)
        self.assertIn("act_latency.py: warning: damaged.log: there is no "
                      "report after 3 sec; the rest of the log is ignored\n",
                      err)

    def test_json(self):
        code, text, err = run(NODES + ["-t", "2", "-x", "--json", "--check",
                                       "--label", "n1", "--label", "n2",
                                       "--label", "n3"])
        self.assertEqual((1, ""), (code, err))
        doc = json.loads(text)
        self.assertEqual(("act_latency/compare/1", ["n1", "n2", "n3"], 2),
                         (doc["format"], doc["labels"], doc["slice_sec"]))
        table = compare_rows(run(NODES + ["-t", "2", "-x"])[1])
        for n, log in enumerate(doc["logs"]):
            self.assertEqual(("n%d" % (n + 1), "node%d.log" % (n + 1)),
                             (log["label"], log["log"]))
            # each log's document is the one --json gives for it alone
            alone = json.loads(run(["-l", log["log"], "-t", "2", "-x",
                                    "--json", "--check"])[1])
            self.assertEqual(alone, {k: v for k, v in log.items()
                                     if k != "label"})
            for s in log["histograms"][0]["slices"]:
                self.assertEqual(table[str(s["slice"])][8 * n:8 * n + 8],
                                 s["over_pct"] + [s["rate"]])
        self.assertEqual(["n3"], doc["worst"]["worst"])
        self.assertEqual({"n1": 2.65, "n2": 1.46, "n3": 8.18},
                         doc["worst"]["max_pct"])
        self.assertEqual(NODES_WORST.replace("node3.log", "n3"),
                         doc["worst"]["line"])
        self.assertEqual({"result": "FAIL", "pass": False,
                          "logs": [{"label": "n1", "result": "PASS"},
                                   {"label": "n2", "result": "INCOMPLETE"},
                                   {"label": "n3", "result": "FAIL"}],
                          "line": "result: FAIL (1 of 3 logs passed; n2: "
                                  "INCOMPLETE, n3: FAIL)"}, doc["check"])
        code, text, err = run(NODES + ["-t", "2", "--json"])
        self.assertEqual(0, code)
        self.assertIsNone(json.loads(text)["check"])

    def test_plot(self):
        ns = "{http://www.w3.org/2000/svg}"
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "p.svg")
            code, out, err = run(NODES + ["-t", "1", "-n", "3", "-h",
                                          "reads", "-h", "large-block-reads",
                                          "--check", "--plot", path])
            self.assertEqual(1, code)
            root = ET.parse(path).getroot()
        panels = root.findall(ns + "g")
        self.assertEqual(["reads", "large-block-reads"],
                         [p.get("data-histogram") for p in panels])
        for p in panels:
            series = p.findall(ns + "polyline")
            self.assertEqual(
                [(log, t) for log in ("node1.log", "node2.log", "node3.log")
                 for t in ("1", "2", "4")],
                [(s.get("data-log"), s.get("data-threshold"))
                 for s in series])
            # one colour per log, one dash pattern per threshold
            for k in range(3):
                group = series[3 * k:3 * k + 3]
                self.assertEqual(1, len({s.get("stroke") for s in group}))
                self.assertEqual(3, len({s.get("stroke-dasharray")
                                         for s in group}))
            self.assertEqual(3, len({s.get("stroke") for s in series}))
            self.assertEqual([8, 8, 8, 6, 6, 6, 8, 8, 8],
                             [len(s.get("points").split()) for s in series])
            texts = [t.text or "" for t in p.iter(ns + "text")]
            for label in ("node1.log", "node2.log", "node3.log"):
                self.assertTrue([t for t in texts if t.startswith(label)],
                                texts)
        banners = [t.text for t in root.findall(ns + "text")
                   if "banner" in (t.get("class") or "")]
        self.assertEqual(["INCOMPLETE: node2.log: stopped by signal SIGINT "
                          "after 6 sec (6 of 8 sec ran)",
                          "result: FAIL (1 of 3 logs passed; node2.log: "
                          "INCOMPLETE, node3.log: FAIL)"], banners)
        fails = [t.text for t in panels[0].iter(ns + "text")
                 if t.get("class") == "fail"]
        self.assertIn("FAIL: node3.log", fails)


if __name__ == "__main__":
    unittest.main()
