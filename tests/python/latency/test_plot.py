#!/usr/bin/env python3
"""Description: act.latency.plot from act_latency.py --plot, the SVG parsed as
XML: a series per threshold in a panel per histogram, higher values drawn
higher, --json and --plot together; the criteria only on judged panels, the
INCOMPLETE, FAIL and PASS banners and colours; a bounded size (thin_points
keeps every peak; a 24-hour log at -t 1 under 500 KiB with its spike); a file
name that is not .svg refused (status 2, naming the file); the subtitle says
what the plot shows (program, devices, load, start time, slice) and -x plots
the rates.

    python3 tests/python/latency/test_plot.py [-v]
"""

import json
import os
import random
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
from support import (SmallLog, TempLogs, run_latency as run,  # noqa: E402
                     table_rows)

from act.latency import plot  # noqa: E402


NS = "{http://www.w3.org/2000/svg}"


class Plot(unittest.TestCase):

    NS = "{http://www.w3.org/2000/svg}"

    def plot(self, args):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "p.svg")
            code, out, err = run(args + ["--plot", path])
            self.assertEqual("", err)
            return code, out, ET.parse(path).getroot()

    def test_series_per_panel(self):
        code, out, root = self.plot(["-l", "storage_long_names.log", "-t",
                                     "1", "-n", "5", "-h", "reads", "-h",
                                     "/dev/very-long-device-name-writes",
                                     "-h", "large-block-reads"])
        self.assertEqual(0, code)
        self.assertIn("\n    8 ", out)      # the table is still printed
        panels = root.findall(self.NS + "g")
        self.assertEqual(["reads", "/dev/very-long-device-name-writes",
                          "large-block-reads"],
                         [p.get("data-histogram") for p in panels])
        for p in panels:
            series = p.findall(self.NS + "polyline")
            self.assertEqual(["1", "2", "4", "8", "16"],
                             [s.get("data-threshold") for s in series])
            for s in series:
                self.assertEqual(8, len(s.get("points").split()))
            lines = [e for e in p.findall(self.NS + "line")
                     if e.get("class") == "criterion"]
            texts = "".join(t.text or "" for t in p.iter(self.NS + "text"))
            # the criteria judge the transactions only (here: reads)
            judged = p.get("data-histogram") == "reads"
            self.assertEqual(3 if judged else 0, len(lines))
            self.assertEqual(judged, "limit 5% over 1 ms" in texts)
            self.assertEqual(not judged, "not judged by the criteria" in
                             texts)
            self.assertIn("time since start, seconds", texts)

    def test_higher_values_are_drawn_higher(self):
        code, out, root = self.plot(["-l", "slow.log", "-t", "6", "-n",
                                     "3", "--check"])
        self.assertEqual(1, code)
        maxes = table_rows(out)["max"]
        panel = root.find(self.NS + "g")
        ys = [float(s.get("points").split(",")[1])
              for s in panel.findall(self.NS + "polyline")]
        # one slice: one point per series; SVG y grows downwards
        order = sorted(range(3), key=lambda j: maxes[j])
        self.assertEqual(order, sorted(range(3), key=lambda j: -ys[j]))
        texts = "".join(t.text or "" for t in panel.iter(self.NS + "text"))
        self.assertIn("limit 5% over 1 ms: FAIL", texts)

    def test_json_and_plot_together(self):
        code, out, root = self.plot(["-l", "index_us.log", "-t", "2",
                                     "--json", "-h", "writes"])
        self.assertEqual(0, code)
        self.assertEqual("us", json.loads(out)["unit"])
        series = root.find(self.NS + "g").findall(self.NS + "polyline")
        self.assertEqual(7, len(series))


class PlotVerdicts(unittest.TestCase):

    NS = "{http://www.w3.org/2000/svg}"

    def plot(self, args):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "p.svg")
            code, out, err = run(args + ["--plot", path])
            return code, ET.parse(path).getroot()

    def banners(self, root):
        return [(t.get("class"), t.get("fill"), t.text)
                for t in root.findall(self.NS + "text")
                if "banner" in (t.get("class") or "")]

    def criteria(self, root):
        return {p.get("data-histogram"):
                len([e for e in p.iter(self.NS + "line")
                     if e.get("class") == "criterion"])
                for p in root.findall(self.NS + "g")}

    def test_criteria_only_on_judged_panels(self):
        code, root = self.plot(["-l", "storage_long_names.log", "-t", "2",
                                "-h", "reads", "-h", "writes", "-h",
                                "large-block-reads", "-h",
                                "large-block-writes", "-h", "/dev/sdc-reads",
                                "--check"])
        self.assertEqual({"reads": 3, "writes": 3, "large-block-reads": 0,
                          "large-block-writes": 0, "/dev/sdc-reads": 0},
                         self.criteria(root))
        code, root = self.plot(["-l", "index_us.log", "-t", "2", "-h",
                                "reads", "-h", "writes"])
        self.assertEqual({"reads": 3, "writes": 0}, self.criteria(root))

    def test_incomplete_banner(self):
        code, root = self.plot(["-l", "stopped_sigint.log", "-t", "2"])
        self.assertEqual(0, code)
        self.assertEqual([("banner incomplete", "#d62728",
                           "INCOMPLETE: stopped by signal SIGINT after 8 sec "
                           "(8 of 86400 sec ran)")], self.banners(root))
        code, root = self.plot(["-l", "cut_short.log", "-t", "2", "--check"])
        self.assertEqual(1, code)
        self.assertEqual([("banner incomplete", "#d62728",
                           "INCOMPLETE: log ends after 8 of 86400 sec (cut "
                           "short, or still being written)"),
                          ("banner result", "#d62728",
                           "result: INCOMPLETE (the run did not finish; 3 of "
                           "3 criteria met on the part that ran)")],
                         self.banners(root))

    def test_fail_in_red(self):
        code, root = self.plot(["-l", "slow.log", "-t", "2", "--check"])
        self.assertEqual(1, code)
        self.assertEqual([("banner result", "#d62728",
                           "result: FAIL (0 of 3 criteria met)")],
                         self.banners(root))
        fails = [t for t in root.iter(self.NS + "text")
                 if t.get("class") == "fail"]
        self.assertTrue(fails)
        self.assertTrue(all(t.get("fill") == "#d62728" for t in fails))
        self.assertIn("limit 5% over 1 ms: FAIL", [t.text for t in fails])

    def test_pass_banner(self):
        code, root = self.plot(["-l", "fast.log", "-t", "3", "--check"])
        self.assertEqual(0, code)
        self.assertEqual([("banner result", "#2ca02c",
                           "result: PASS (3 of 3 criteria met)")],
                         self.banners(root))
        code, root = self.plot(["-l", "fast.log", "-t", "3"])
        self.assertEqual([], self.banners(root))


def day_log(path, spike_at, seconds=86400):
    """A 24-hour log with 1-second reports: about 0.6% of reads over 1 ms,
    and one slice (spike_at) with a third of its reads over 4 ms."""
    rnd = random.Random(5)
    out = ["", "ACT version 6.6", "Storage device IO test", "",
           "ACT-STORAGE CONFIGURATION", "device-names: /dev/sdb",
           "test-duration-sec: %d" % seconds, "report-interval-sec: 1",
           "microsecond-histograms: no", "", "DERIVED CONFIGURATION",
           "large-block-reads-per-sec: 1.00", "", "HISTOGRAM NAMES", "reads",
           ""]
    c = [0, 0, 0, 0]
    for t in range(1, seconds + 1):
        c[0] += 2000
        c[1] += rnd.randint(0, 20)
        c[2] += rnd.randint(0, 4)
        if t == spike_at:
            c[3] += 1000
        out.append("after %d sec:\nreads (%d total)\n%s\n" % (
            t, sum(c), "".join(" (%02d: %010d)" % (b, x)
                               for b, x in enumerate(c) if x)))
    with open(path, "w") as f:
        f.write("\n".join(out))


class PlotSize(TempLogs):
    """--plot of any log has a bounded size and still shows every peak."""
    NS = "{http://www.w3.org/2000/svg}"

    def test_thin_points(self):
        # 1000 points in 10 pixel columns, a spike in the middle of one
        pts = [(10 + k / 100.0, 100 + (k % 7), k) for k in range(1000)]
        pts[555] = (pts[555][0], 3.0, 555)
        kept = plot.thin_points(pts)
        self.assertLessEqual(len(kept), 20)
        self.assertIn(pts[555], kept)
        self.assertEqual(sorted(kept, key=lambda p: p[2]), kept)
        for col in range(10, 20):
            ys = [p[1] for p in pts if int(p[0]) == col]
            got = [p[1] for p in kept if int(p[0]) == col]
            self.assertEqual((min(ys), max(ys)), (min(got), max(got)))
        few = [(float(k), 1.0, k) for k in range(8)]
        self.assertEqual(few, plot.thin_points(few))
        self.assertEqual([], plot.thin_points([]))

    def test_day_at_one_second(self):
        spike = 40000
        day_log(os.path.join(self.tmp, "day1s.log"), spike)
        path = os.path.join(self.tmp, "p.svg")
        code, out, err = self.run_here(["-l", "day1s.log", "-t", "1",
                                        "--plot", path])
        self.assertEqual((0, ""), (code, err))
        size = os.path.getsize(path)
        self.assertLess(size, 500 * 1024)
        root = ET.parse(path).getroot()
        series = {s.get("data-threshold"): [tuple(map(float, p.split(",")))
                                            for p in s.get("points").split()]
                  for s in root.find(self.NS + "g").findall(
                      self.NS + "polyline")}
        rect = root.find(self.NS + "g").find(self.NS + "rect")
        left, width = float(rect.get("x")), float(rect.get("width"))
        x_spike = left + width * spike / 86400
        self.assertEqual(["1", "2", "4", "8", "16", "32", "64"],
                         list(series))
        for t, pts in series.items():
            # at most two points per pixel column
            self.assertLessEqual(len(pts), 2 * (width + 1))
            if t in ("1", "2", "4"):
                # the highest point of each series is the spike's slice
                top = min(pts, key=lambda p: p[1])
                self.assertAlmostEqual(x_spike, top[0], delta=0.1, msg=t)
        # over 4 ms: 0 everywhere but the spike, which is kept
        bottom = max(p[1] for p in series["4"])
        self.assertEqual(1, len([p for p in series["4"] if p[1] < bottom]))


class PlotEdges(SmallLog):
    def test_plot_must_be_svg(self):
        for name in ("out.png", "out", "out.svg.pdf"):
            with self.subTest(name=name):
                path = os.path.join(self.tmp, name)
                code, out, err = run(["-l", self.log, "--plot", path])
                self.assertEqual(2, code)
                self.assertEqual("", out)
                self.assertIn("error: cannot write the plot %s: --plot "
                              "writes SVG" % path, err)
                self.assertFalse(os.path.exists(path))
        code, out, err = run(["-l", self.log, "-t", "1", "--plot",
                              os.path.join(self.tmp, "OUT.SVG")])
        self.assertEqual(0, code, err)

    def test_plot_says_what_it_shows_and_plots_rates(self):
        path = os.path.join(self.tmp, "p.svg")
        code, out, err = run(["-l", self.log, "-t", "2", "-x", "--plot",
                              path])
        self.assertEqual(0, code, err)
        root = ET.parse(path).getroot()
        sub = [t.text for t in root.iter(NS + "text")
               if t.get("class") == "subtitle"]
        self.assertEqual(["act_storage on /dev/sdb; no configured rate; "
                          "started 2026-11-23T03:47:33Z; 2 s slices"], sub)
        rates = root.findall(NS + "g[@class='rate-panel']")
        self.assertEqual(["reads"], [g.get("data-rates") for g in rates])
        line = rates[0].find(NS + "polyline")
        self.assertEqual("rates", line.get("class"))
        self.assertEqual(5, len(line.get("points").split()))
        # without -x: no rate panel
        code, out, err = run(["-l", self.log, "-t", "2", "--plot", path])
        self.assertEqual([], ET.parse(path).getroot().findall(
            NS + "g[@class='rate-panel']"))


if __name__ == "__main__":
    unittest.main()
