#!/usr/bin/env python3
"""Description: act.latency.verdict from act_latency.py --check: a run that did
not finish never passes - complete logs pass; stopped (a signal, the drive's
lag, I/O errors, the watchdog) and cut runs are INCOMPLETE whatever their
latencies; a stop because the host could not do the load is NOT JUDGED (exit
3); the JSON fields of each; messy and live logs; ERROR lines between reports
are no stop; the criteria do not decide an incomplete run; --stress (PASS when
the run completed); the histograms judged (the transactions) in the text and
--json alike, one judged but not analysed, nothing to judge an error.

    python3 tests/python/latency/test_verdict.py [-v]
"""

import json
import os
import re
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
from support import FIXTURES, read, run_latency as run  # noqa: E402



PERFECT_CHECK = ("\nPASS reads: 0.00% over 1 ms (must be under 5%)"
                 "\nPASS reads: 0.00% over 8 ms (must be under 1%)"
                 "\nPASS reads: 0.00% over 64 ms (must be under 0.1%)\n")


# The log of a run act stopped because the host could not do the load.
HOST_STOP = "stopped_lag.log"


# log, slice, the run line, JSON (complete, planned_sec, ran_sec, stop_reason)
STOPPED = [
    ("stopped_sigint.log", "2",
     "run: INCOMPLETE - stopped by signal SIGINT after 8 sec (8 of 86400 "
     "sec ran)",
     (False, 86400, 8, "stopped by signal SIGINT after 8 sec")),
    ("stopped_lag.log", "1",
     "run: INCOMPLETE - service threads can't keep up: 10.204 sec behind "
     "schedule, more than max-lag-sec (10) (6 of 86400 sec ran)",
     (False, 86400, 6, "service threads can't keep up: 10.204 sec behind "
      "schedule, more than max-lag-sec (10)")),
    ("stopped_io.log", "1",
     "run: INCOMPLETE - read failed on device /dev/sdb at offset 123456512, "
     "size 1536: Input/output error (errno 5) - failed I/Os: 2, "
     "io-error-limit: 1 (5 of 86400 sec ran)",
     (False, 86400, 5, "read failed on device /dev/sdb at offset 123456512, "
      "size 1536: Input/output error (errno 5) - failed I/Os: 2, "
      "io-error-limit: 1")),
    ("watchdog.log", "3",
     "run: INCOMPLETE - device /dev/sdb: a 1536-byte read at offset 4096 "
     "has been outstanding for 11.002 sec, more than max-lag-sec (10) (6 of "
     "6 sec ran)",
     (False, 6, 6, "device /dev/sdb: a 1536-byte read at offset 4096 has "
      "been outstanding for 11.002 sec, more than max-lag-sec (10)")),
    ("cut_short.log", "4",
     "run: INCOMPLETE - log ends after 8 of 86400 sec (cut short, or still "
     "being written)",
     (False, 86400, 8, "log ends after 8 of 86400 sec")),
]


class Completeness(unittest.TestCase):

    def test_complete_logs_pass(self):
        for log, args, line in [
                ("example_storage.log", "-t 1", "run: complete (10 sec)"),
                ("fast.log", "-t 3", "run: complete (6 sec)"),
                ("odd_end.log", "-t 2", "run: complete (7 sec)"),
                ("hour.log", "-t 3600", "run: complete (3600 sec)"),
                ("day.log", "-t 3600", "run: complete (86400 sec)")]:
            with self.subTest(log=log):
                code, out, err = run(["-l", log, "--check"] + args.split())
                self.assertEqual(0, code, out)
                self.assertIn("\n%s\nresult: PASS (3 of 3 criteria met)\n"
                              % line, out)
                doc = json.loads(run(["-l", log, "--check", "--json"] +
                                     args.split())[1])
                self.assertEqual((True, None), (doc["complete"],
                                                doc["stop_reason"]))
                self.assertEqual(("PASS", True, True),
                                 (doc["check"]["result"],
                                  doc["check"]["pass"],
                                  doc["check"]["complete"]))

    def test_stopped_and_cut_runs_are_incomplete(self):
        # perfect latencies: every criterion met, and still no pass
        for log, t, line, fields in STOPPED:
            with self.subTest(log=log):
                code, out, err = run(["-l", log, "-t", t, "--check"])
                self.assertNotIn("result: PASS", out)
                if log == HOST_STOP:
                    continue        # test_host_limit_stop_is_not_judged
                self.assertEqual(1, code)
                self.assertIn(PERFECT_CHECK + line + "\nresult: INCOMPLETE "
                              "(the run did not finish; 3 of 3 criteria met "
                              "on the part that ran)\n", out)

    def test_host_limit_stop_is_not_judged(self):
        # act stopped: the host could not do the requested load - neither
        # the drive's FAIL nor a PASS (docs/act_latency.md, "The load")
        line = [x[2] for x in STOPPED if x[0] == HOST_STOP][0]
        for extra, stress in (([], ""), (["--stress"], "stress test: ")):
            code, out, err = run(["-l", HOST_STOP, "-t", "1", "--check"] +
                                 extra)
            self.assertEqual(3, code)
            self.assertIn(line + "\nload: the host could not issue the load "
                          "(act stopped: it can't do the requested load; try "
                          "more service-threads)\nresult: NOT JUDGED (%sthe "
                          "host could not issue the load; 3 of 3 criteria met"
                          % stress, out)

    def test_json_fields(self):
        for log, t, line, fields in STOPPED + [
                ("messy.log", "1", None,
                 (False, 5, 5, "stopped by signal SIGINT after 5 sec")),
                ("live.log", "1", None,
                 (False, 7, 6, "log ends after 6 of 7 sec")),
                ("example_storage.log", "1", None, (True, 10, 10, None)),
                ("odd_end.log", "2", None, (True, 7, 7, None))]:
            with self.subTest(log=log):
                code, text, err = run(["-l", log, "-t", t, "--json"])
                self.assertEqual(0, code)       # no --check: no verdict
                doc = json.loads(text)
                self.assertEqual(fields, (doc["complete"], doc["planned_sec"],
                                          doc["ran_sec"], doc["stop_reason"]))
                self.assertIsNone(doc["check"])
                code, text, err = run(["-l", log, "-t", t, "--json",
                                       "--check"])
                check = json.loads(text)["check"]
                self.assertEqual(fields[0], check["pass"])
                self.assertEqual(fields[0], check["complete"])
                if log == HOST_STOP:
                    self.assertEqual((3, "NOT JUDGED"),
                                     (code, check["result"]))
                    continue
                self.assertEqual(0 if fields[0] else 1, code)
                self.assertEqual("PASS" if fields[0] else "INCOMPLETE",
                                 check["result"])

    def test_messy_and_live_logs(self):
        code, out, err = run(["-l", "messy.log", "-t", "1", "--check"])
        self.assertEqual(1, code)
        self.assertIn("\nrun: INCOMPLETE - stopped by signal SIGINT after 5 "
                      "sec (5 of 5 sec ran)\n", out)
        code, out, err = run(["-l", "live.log", "-t", "1", "--check"])
        self.assertEqual((1, ""), (code, err))
        self.assertIn("\n    6  ", out)     # the table prints as before
        self.assertIn("\nrun: INCOMPLETE - log ends after 6 of 7 sec (cut "
                      "short, or still being written)\n", out)

    def test_errors_between_reports_are_not_stops(self):
        # odd_end.log has an I/O error between reports 4 and 6, messy.log
        # ERROR lines inside and between reports; stopped_io.log an earlier
        # I/O error that is not its stop
        self.assertEqual(0, run(["-l", "odd_end.log", "-t", "2",
                                 "--check"])[0])
        doc = json.loads(run(["-l", "stopped_io.log", "-t", "1",
                              "--json"])[1])
        self.assertIn("failed I/Os: 2", doc["stop_reason"])

    def test_criteria_do_not_decide_an_incomplete_run(self):
        text = read(os.path.join(FIXTURES, "slow.log"))
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "slow_stopped.log")
            with open(path, "w") as f:
                f.write(text.replace("test-duration-sec: 6",
                                     "test-duration-sec: 60"))
            code, out, err = run(["-l", path, "-t", "3", "--check"])
        self.assertEqual(1, code)
        self.assertIn("\nresult: INCOMPLETE (the run did not finish; 0 of 3 "
                      "criteria met on the part that ran)\n", out)


class Stress(unittest.TestCase):

    def test_complete_run_passes_whatever_the_latencies(self):
        code, out, err = run(["-l", "slow.log", "-t", "1", "--stress"])
        self.assertEqual(0, code)
        self.assertIn("\ncheck: stress test, passes if the run completed; "
                      "standard ACT criteria on the max row, for information "
                      "only\nFAIL reads: ", out)
        self.assertIn("\nrun: complete (6 sec)\nresult: PASS (stress test: "
                      "the run completed; 0 of 3 criteria met, for "
                      "information)\n", out)

    def test_incomplete_run_fails(self):
        for log, t, line, fields in STOPPED:
            if log == HOST_STOP:
                continue        # NOT JUDGED: test_host_limit_stop_is_not_...
            with self.subTest(log=log):
                code, out, err = run(["-l", log, "-t", t, "--check",
                                      "--stress"])
                self.assertEqual(1, code)
                self.assertIn("\n%s\nresult: INCOMPLETE (stress test: the "
                              "run did not finish; 3 of 3 criteria met, for "
                              "information)\n" % line, out)

    def test_stress_implies_check_and_json(self):
        code, out, err = run(["-l", "slow.log", "-t", "6", "--stress"])
        self.assertEqual(0, code)
        self.assertIn("\nresult: PASS (stress test", out)
        code, text, err = run(["-l", "slow.log", "-t", "6", "--stress",
                               "--json"])
        check = json.loads(text)["check"]
        self.assertEqual((0, True, False, True, "PASS"),
                         (code, check["stress"], check["criteria_pass"],
                          check["pass"], check["result"]))
        code, text, err = run(["-l", "cut_short.log", "-t", "8", "--stress",
                               "--json"])
        check = json.loads(text)["check"]
        self.assertEqual((1, True, False, "INCOMPLETE"),
                         (code, check["criteria_pass"], check["pass"],
                          check["result"]))

    def test_stress_without_a_transaction_histogram(self):
        code, out, err = run(["-l", "slow.log", "-t", "6", "-h",
                              "large-block-reads", "--stress"])
        self.assertEqual(0, code)
        self.assertIn("\nnot judged: large-block-reads (", out)
        self.assertIn("\nnot analysed: reads (add -h reads to judge it "
                      "too)\n", out)
        self.assertIn("\nresult: PASS (stress test: the run completed)\n",
                      out)


class JudgedHistograms(unittest.TestCase):

    def test_check_and_json_judge_the_same(self):
        args = ["-l", "storage_long_names.log", "-t", "2", "-h", "reads",
                "-h", "large-block-writes", "-h", "writes", "-h",
                "/dev/sdc-writes", "--check"]
        code, out, err = run(args)
        self.assertEqual(["reads", "writes"], sorted(set(re.findall(
            r"(?m)^(?:PASS|FAIL) ([^:]+):", out))))
        self.assertIn("\nnot judged: large-block-writes, /dev/sdc-writes (",
                      out)
        check = json.loads(run(args + ["--json"])[1])["check"]
        self.assertEqual(["reads", "writes"],
                         sorted({r["histogram"] for r in check["results"]}))
        self.assertEqual(["large-block-writes", "/dev/sdc-writes"],
                         check["not_judged"])
        self.assertEqual([], check["not_analysed"])

    def test_judged_histogram_not_analysed(self):
        code, out, err = run(["-l", "storage_long_names.log", "-t", "2",
                              "--check"])
        self.assertIn("\nnot analysed: writes (add -h writes to judge it "
                      "too)\n", out)

    def test_nothing_to_judge_is_an_error(self):
        code, out, err = run(["-l", "slow.log", "-t", "2", "-h",
                              "large-block-reads", "--check"])
        self.assertEqual((2, ""), (code, out))
        self.assertEqual("act_latency.py: error: --check has nothing to "
                         "judge: the ACT criteria apply to the transactions "
                         "(reads, and writes with commit-to-device), and -h "
                         "names none of them; use -h reads\n", err)


if __name__ == "__main__":
    unittest.main()
