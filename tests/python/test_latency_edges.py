#!/usr/bin/env python3
"""Description: act_latency.py's rough edges (issue 21 part 2): --plot
refuses a file name that is not .svg (status 2, naming the file); the
plot's subtitle says what it shows (program, devices, load, start time,
slice) and -x plots the rates; --check on a run shorter than 24 h or not
in 3600 s slices adds a note line, verdict and status unchanged; --check
on a log that says the host fell behind at the end of the run repeats it
as a warning line (and only then).

    python3 tests/python/test_latency_edges.py [-v]
"""

import os
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

import actlog
from actlog import header, reports

SCRIPT = os.path.join(actlog.ROOT, "analysis", "act_latency.py")
NS = "{http://www.w3.org/2000/svg}"


def run(argv):
    p = subprocess.run([sys.executable, SCRIPT] + argv,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return p.returncode, p.stdout.decode(), p.stderr.decode()


class Edges(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.log = actlog.make(os.path.join(self.tmp.name, "x.log"),
                               header(duration=10, reads_per_sec=100) +
                               reports(range(1, 11), over=2))

    def tearDown(self):
        self.tmp.cleanup()

    def test_plot_must_be_svg(self):
        for name in ("out.png", "out", "out.svg.pdf"):
            with self.subTest(name=name):
                path = os.path.join(self.tmp.name, name)
                code, out, err = run(["-l", self.log, "--plot", path])
                self.assertEqual(2, code)
                self.assertEqual("", out)
                self.assertIn("error: cannot write the plot %s: --plot "
                              "writes SVG" % path, err)
                self.assertFalse(os.path.exists(path))
        code, out, err = run(["-l", self.log, "-t", "1", "--plot",
                              os.path.join(self.tmp.name, "OUT.SVG")])
        self.assertEqual(0, code, err)

    def test_plot_says_what_it_shows_and_plots_rates(self):
        path = os.path.join(self.tmp.name, "p.svg")
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
        log = actlog.make(os.path.join(self.tmp.name, "behind.log"),
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
