#!/usr/bin/env python3
"""Description: a verdict per drive (act.latency.drives, the Verdict's
drives; docs/act_latency.md, "Per drive"), on synthetic act_storage logs
of several drives (synthlog.drives_log: reads and <device>-reads):

- eight drives, one of them at 7.20% over 1 ms in hour 6, the others
  0.30-0.50%: all of them together pass (1.24%), the log FAILs with the
  reason "/dev/nvme3n1: reads 7.20% over 1 ms (must be under 5%) in hour
  6; the other 7: 0.30-0.50%"; each drive's figures (max % over each
  threshold and the slice where), its last slice's % over and its
  average rate (act_certify's metrics; not in --json);
- act_latency.py --check: a `drive DEV: PASS|FAIL (...)` line per drive
  after the criteria lines, the result line naming the failed drive,
  exit status 1; --json's check.drives (the existing keys unchanged);
  several logs: each log's drive lines under its label, and each log's
  document its drives;
- the table printed with --check is the one printed without it (the
  per-device histograms are read, not shown); one device: no drive line,
  check.drives [];
- --stress: PASS, the drive lines for information; a run stopped by a
  signal: INCOMPLETE, the drive figures shown; a stop on request that
  only a drive's slice bears out: FAIL, the drive's histogram named; a
  drive over a limit only in slices where the host fell short: NOT
  JUDGED (the host is judged first, as for the aggregate);
- drive_histograms: the judged histograms per device (writes with
  commit-to-device), none for a log of one device.

    python3 tests/python/latency/test_drives.py [-v]
"""

import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
import support  # noqa: E402
import synthlog  # noqa: E402

from act.latency import Spec, analyse_log  # noqa: E402
from act.latency.drives import drive_histograms  # noqa: E402
from act.logfile.header import LogHeader  # noqa: E402

EIGHT = ["/dev/nvme%dn1" % i for i in range(8)]
OTHERS = [0.30, 0.35, 0.40, 0.45, 0.50, 0.30, 0.40]
TWO = ["/dev/sda", "/dev/sdb"]


def eight(dev, sec):
    """/dev/nvme3n1 7.2% over 1 ms in hour 6, the others 0.30-0.50%."""
    if dev == "/dev/nvme3n1":
        return 7.2 if sec > 5 * 3600 else 0.4
    return OTHERS[EIGHT.index(dev) - (EIGHT.index(dev) > 3)]


def slow_third(dev, sec):
    """/dev/sdb 8% over 1 ms in slice 3 (seconds 21-30), else 0.4%."""
    return 8.0 if dev == "/dev/sdb" and 20 < sec <= 30 else 0.4


EIGHT_REASON = ("/dev/nvme3n1: reads 7.20% over 1 ms (must be under 5%) "
                "in hour 6; the other 7: 0.30-0.50%")
TWO_LINES = ("drive /dev/sda: PASS (max reads 0.40% over 1 ms in slice 1)\n"
             "drive /dev/sdb: FAIL (reads 8.00% over 1 ms (must be under 5%) "
             "in slice 3)\n")


class Drives(support.TempLogs):

    def log(self, name, lines):
        return self.write(name, synthlog.text(lines))

    def test_eight_drives_one_bad(self):
        path = self.log("eight.log", synthlog.drives_log(
            EIGHT, eight, seconds=6 * 3600, interval=600))
        a = analyse_log(path, Spec(slice_sec=3600, check=True))
        v = a.verdict
        self.assertEqual([True] * 3, [r["pass"] for r in a.results])
        self.assertEqual(1.24, a.results[0]["max_pct"])
        self.assertEqual(("FAIL", (EIGHT_REASON,)), (v.result, v.reasons))
        self.assertEqual(EIGHT, [d.device for d in v.drives])
        self.assertEqual(["PASS"] * 3 + ["FAIL"] + ["PASS"] * 4,
                         [d.result for d in v.drives])
        bad = v.drives[3]
        self.assertEqual([("reads", "1 ms", 5.0, 7.2, 6, "hour 6"),
                          ("reads", "8 ms", 1.0, 0.0, 1, "hour 1"),
                          ("reads", "64 ms", 0.1, 0.0, 1, "hour 1")],
                         [(f.histogram, f.threshold, f.limit_pct, f.max_pct,
                           f.slice, f.where) for f in bad.figures])
        self.assertEqual([0.3, 0.35, 0.4], [d.figures[0].max_pct
                                            for d in v.drives[:3]])
        # the last slice's % over (hour 6: 7.2 % over 1 ms) and the
        # average rate, for act_certify's metrics (not in --json)
        self.assertEqual([(7.2, 1000.0), (0.0, 1000.0), (0.0, 1000.0)],
                         [(f.last_pct, f.rate) for f in bad.figures])
        self.assertEqual(0.3, v.drives[0].figures[0].last_pct)
        self.assertNotIn("last_pct", json.dumps(bad.to_json()))

    def test_check_lines_and_json(self):
        path = self.log("two.log", synthlog.drives_log(TWO, slow_third))
        code, out, err = self.run_here(["-l", path, "-t", "10", "--check"])
        self.assertEqual(1, code, out + err)
        self.assertIn("PASS reads: 0.00% over 64 ms (must be under 0.1%)\n" +
                      TWO_LINES + "run: complete (120 sec)\n"
                      "result: FAIL (3 of 3 criteria met; 1 of 2 drives "
                      "failed: /dev/sdb)\n", out)
        code, out, err = self.run_here(["-l", path, "-t", "10", "--check",
                                        "--json"])
        check = json.loads(out)["check"]
        self.assertEqual(["/dev/sdb: reads 8.00% over 1 ms (must be under "
                          "5%) in slice 3; the other: 0.40%"],
                         check["reasons"])
        self.assertEqual(("FAIL", False, True),
                         (check["result"], check["pass"],
                          check["criteria_pass"]))
        self.assertEqual({"device": "/dev/sdb", "result": "FAIL",
                          "figures": [
                              {"histogram": "reads", "threshold": "1 ms",
                               "limit_pct": 5.0, "max_pct": 8.0, "slice": 3,
                               "where": "slice 3", "pass": False,
                               "name": "/dev/sdb-reads"},
                              {"histogram": "reads", "threshold": "8 ms",
                               "limit_pct": 1.0, "max_pct": 0.0, "slice": 1,
                               "where": "slice 1", "pass": True,
                               "name": "/dev/sdb-reads"},
                              {"histogram": "reads", "threshold": "64 ms",
                               "limit_pct": 0.1, "max_pct": 0.0, "slice": 1,
                               "where": "slice 1", "pass": True,
                               "name": "/dev/sdb-reads"}]},
                         check["drives"][1])
        # several logs: under each log's label; each log's document
        good = self.log("good.log", synthlog.drives_log(
            TWO, {"/dev/sda": 0.4, "/dev/sdb": 0.6}))
        code, out, err = self.run_here(["-l", path, "-l", good, "-t", "10",
                                        "--check"])
        self.assertEqual(1, code)
        self.assertIn("".join("two.log: " + x + "\n"
                              for x in TWO_LINES.splitlines()), out)
        self.assertIn("good.log: drive /dev/sdb: PASS (max reads 0.60% over "
                      "1 ms in slice 1)\n", out)
        doc = json.loads(self.run_here(["-l", path, "-l", good, "-t", "10",
                                        "--check", "--json"])[1])
        self.assertEqual([["PASS", "FAIL"], ["PASS", "PASS"]],
                         [[d["result"] for d in log["check"]["drives"]]
                          for log in doc["logs"]])

    def test_table_unchanged_and_one_device(self):
        path = self.log("two.log", synthlog.drives_log(TWO, slow_third))
        plain = self.run_here(["-l", path, "-t", "10"])[1]
        checked = self.run_here(["-l", path, "-t", "10", "--check"])[1]
        body = plain.split("\n", 1)[1]
        self.assertTrue(checked.split("\n", 1)[1].startswith(body))
        self.assertNotIn("-reads", body.split("HISTOGRAM NAMES")[1].split(
            "\n\n", 1)[1])
        one = self.log("one.log", synthlog.drives_log(["/dev/sdb"],
                                                      slow_third))
        code, out, err = self.run_here(["-l", one, "-t", "10", "--check"])
        self.assertEqual(1, code)
        self.assertNotIn("drive", out.split("check:")[1])
        self.assertIn("result: FAIL (2 of 3 criteria met)\n", out)
        check = json.loads(self.run_here(["-l", one, "-t", "10", "--check",
                                          "--json"])[1])["check"]
        self.assertEqual(([], ["reads 8.00% over 1 ms (must be under 5%)"]),
                         (check["drives"], check["reasons"]))

    def test_stress_and_incomplete(self):
        path = self.log("two.log", synthlog.drives_log(TWO, slow_third))
        code, out, err = self.run_here(["-l", path, "-t", "10", "--stress"])
        self.assertEqual(0, code, out)
        self.assertIn(TWO_LINES, out)
        self.assertIn("result: PASS (stress test: the run completed; 3 of 3 "
                      "criteria met, for information; 1 of 2 drives failed: "
                      "/dev/sdb)\n", out)
        stopped = self.log("stopped.log", synthlog.drives_log(
            TWO, slow_third, ran=35, stop=[synthlog.stop_signal(35)]))
        code, out, err = self.run_here(["-l", stopped, "-t", "10",
                                        "--check"])
        self.assertEqual(1, code)
        self.assertIn(TWO_LINES, out)
        self.assertIn("result: INCOMPLETE (the run did not finish; 3 of 3 "
                      "criteria met on the part that ran; 1 of 2 drives "
                      "failed: /dev/sdb)\n", out)

    def test_request_stop_borne_out_by_a_drive(self):
        reason = ("fail fast: /dev/sdb-reads 8.00% over 1 ms (must be under "
                  "5%) in slice 3")
        path = self.log("req.log", synthlog.drives_log(
            TWO, slow_third, ran=30,
            stop=[synthlog.stop_request(reason, 30)]))
        a = analyse_log(path, Spec(slice_sec=10, check=True))
        v = a.verdict
        self.assertEqual(("FAIL", "request"), (v.result, v.cause))
        self.assertEqual(("slice 3", [("/dev/sdb-reads", 8.0, "1 ms", 5.0)]),
                         v.failing)
        self.assertEqual("FAIL", v.drives[1].result)

    def test_host_short_slices_are_not_judged(self):
        # planned 4000 reads/s, done 2000: the host fell short in every
        # slice, so /dev/sdb's slice over a limit judges nothing
        path = self.log("short.log", synthlog.drives_log(
            TWO, slow_third, plan=4000))
        code, out, err = self.run_here(["-l", path, "-t", "10", "--check"])
        self.assertEqual(3, code, out)
        self.assertIn(TWO_LINES, out)
        self.assertIn("result: NOT JUDGED (the host could not issue the "
                      "load", out)

    def test_drive_histograms(self):
        h = LogHeader()
        h.config = ["ACT-STORAGE CONFIGURATION",
                    "device-names: /dev/a,/dev/b", "num-devices: 2"]
        h.names = ["reads", "/dev/a-reads", "/dev/b-reads",
                   "large-block-reads", "writes", "/dev/a-writes",
                   "/dev/b-writes"]
        self.assertEqual(
            [("/dev/a", [("reads", "/dev/a-reads"),
                         ("writes", "/dev/a-writes")]),
             ("/dev/b", [("reads", "/dev/b-reads"),
                         ("writes", "/dev/b-writes")])],
            drive_histograms(h, ["reads", "writes"]))
        self.assertEqual([("/dev/a", [("writes", "/dev/a-writes")]),
                          ("/dev/b", [("writes", "/dev/b-writes")])],
                         drive_histograms(h, ["writes"]))
        h.config = ["ACT-STORAGE CONFIGURATION", "device-names: /dev/a"]
        self.assertEqual([], drive_histograms(h, ["reads"]))


if __name__ == "__main__":
    unittest.main()
