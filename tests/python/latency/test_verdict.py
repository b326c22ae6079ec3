#!/usr/bin/env python3
"""Description: the one verdict (act.latency.verdict: PASS, FAIL, INCOMPLETE,
NOT JUDGED) from act_latency.py --check, and from act_certify's step judgement
alike:

- a run that did not finish never passes: complete logs pass; stopped (a
  signal, the drive's lag, I/O errors, the watchdog) and cut runs are
  INCOMPLETE whatever their latencies; a stop because the host could not
  do the load is NOT JUDGED (exit 3); the JSON fields of each; messy and
  live logs; ERROR lines between reports are no stop; the criteria do not
  decide an incomplete run; --stress (PASS when the run completed); the
  histograms judged (the transactions) in the text and --json alike, one
  judged but not analysed, nothing to judge an error;
- on synthetic 120-second act_storage logs (support.header's layout)
  judged in 10-second slices: a complete log configured for 2000 reads/s
  that issued 100/s: NOT JUDGED, "the host could not issue the load (100
  reads/s of 2000 in slice 1, short of 95% in 12 of 12 slices; try more
  service-threads)", exit status 3 - also read from a pipe and with
  --stress; the same load issued: PASS (exit 0); over a criterion in one
  slice: FAIL (exit 1); reads that kept 10 service threads busy at a
  tenth of the rate: the drive's FAIL, the load line says so;
- a stop on request (act_certify's fail fast: "stopped on request: fail
  fast: ... after 30 sec" as the log's last line) with a complete slice
  over a limit: FAIL with the line's reason and the slice the analysis
  finds; the same line with no slice over a limit: INCOMPLETE; a plain
  signal stop after the same slices: INCOMPLETE; a host-limit stop: NOT
  JUDGED;
- act_latency.py --check --json and act_certify's judge_step give the
  same result and the same reasons on every one of these logs;
- several logs: NOT JUDGED only when no log failed or did not finish
  (exit 3), else FAIL (exit 1).

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
import support  # noqa: E402
sys.path.insert(0, os.path.join(support.HERE, "certify"))
from certstate import make_step  # noqa: E402  (act_certify's step)
from support import (FIXTURES, header, make, read, report,  # noqa: E402
                     run_latency as run)

from act import (LATENCY_NOT_JUDGED, LATENCY_NOT_PASSED,  # noqa: E402
                 LATENCY_OK)
from act.certify import analyse, judge  # noqa: E402
from act.latency import Spec, analyse_log  # noqa: E402
from act.latency.load import HOST_STOP_TEXT  # noqa: E402


SECONDS = 120


SLICE = 10


REQUEST = ("stopped on request: fail fast: reads 10.00% over 1 ms (must be "
           "under 5%) in slice 3 after 30 sec")


def storage_log(per_second, plan=2000, threads=None, stop=()):
    """An act_storage log of SECONDS (test-duration-sec), planning plan
    reads/s: per_second[i] = {bucket: reads} done in second i+1 (a log
    with fewer seconds was stopped: the lines of stop follow its last
    report, as the programs write a stop line)."""
    h = header(duration=SECONDS, names=("reads",),
               reads_per_sec=plan)
    if threads:
        h = h.replace("report-interval-sec:", "service-threads: %d\n"
                      "report-interval-sec:" % threads, 1)
    cum, out = {}, [h]
    for t, buckets in enumerate(per_second, 1):
        for b, n in buckets.items():
            cum[b] = cum.get(b, 0) + n
        out.append(report(t, {"reads": dict(cum)}))
    return "".join(out) + "".join(line + "\n" for line in stop)


def seconds(n, reads=2000, over=0, bucket=3, slow=()):
    """n seconds of reads a second, over of them in bucket (over 1 ms) -
    10% of them in the seconds of slow."""
    return [{0: reads - (reads // 10 if t in slow else over),
             bucket: reads // 10 if t in slow else over}
            for t in range(1, n + 1)]


LOGS = {
    # the issue's log: configured for 2000 reads/s, issued 100/s
    "not_issued": storage_log(seconds(SECONDS, reads=100)),
    "issued": storage_log(seconds(SECONDS, over=20)),
    "failing": storage_log(seconds(SECONDS, over=20, slow=range(41, 51))),
    # every read 16-32 ms: 10 threads busy 79% of the time at 495/s
    "drive_short": storage_log([{5: 495}] * SECONDS, threads=10),
    "request": storage_log(seconds(30, slow=range(21, 31)),
                           stop=[REQUEST]),
    "request_unfounded": storage_log(seconds(30), stop=[REQUEST]),
    "signal": storage_log(seconds(30, slow=range(21, 31)),
                          stop=["stopped by signal SIGINT after 30 sec"]),
    "host_stop": storage_log(seconds(30), stop=support.HOST_LAG),
}


# the exit status each program had
EXIT = {"request": 130, "request_unfounded": 130, "signal": 130,
        "host_stop": 3}


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


class Logs(unittest.TestCase):
    @classmethod
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="act-verdict-test-")
        cls.paths = {name: make(os.path.join(cls.tmp.name,
                                             name + ".log"), text)
                     for name, text in LOGS.items()}

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def check(self, name, *extra):
        """act_latency.py --check on a log: (status, the lines after the
        criteria lines)."""
        code, out, err = run(["-l", self.paths[name], "-t", str(SLICE),
                              "--check"] + list(extra))
        self.assertNotIn("Traceback", err)
        lines = out.split("\n")
        run_at = [i for i, line in enumerate(lines)
                  if line.startswith("run: ")][0]
        return code, lines[run_at:-2]       # without the note


class NotIssued(Logs):
    def test_the_host_could_not_issue_the_load(self):
        code, lines = self.check("not_issued")
        self.assertEqual(LATENCY_NOT_JUDGED, code)
        self.assertEqual([
            "run: complete (120 sec)",
            "load: the host could not issue the load (100 reads/s of 2000 "
            "in slice 1, short of 95% in 12 of 12 slices; try more "
            "service-threads)",
            "result: NOT JUDGED (the host could not issue the load; 3 of 3 "
            "criteria met)"], lines)

    def test_a_stress_test_too(self):
        code, lines = self.check("not_issued", "--stress")
        self.assertEqual(LATENCY_NOT_JUDGED, code)
        self.assertEqual("result: NOT JUDGED (stress test: the host could "
                         "not issue the load; 3 of 3 criteria met, for "
                         "information)", lines[-1])

    def test_read_from_a_pipe(self):
        with open(self.paths["not_issued"]) as f:
            code, out, err = run(["-l", "/dev/stdin", "-t", str(SLICE),
                                  "--check"], stdin=f.read())
        self.assertEqual((LATENCY_NOT_JUDGED, ""), (code, err))
        self.assertIn("\nresult: NOT JUDGED (the host could not issue the "
                      "load; 3 of 3 criteria met)\n", out)

    def test_the_library(self):
        a = analyse_log(self.paths["not_issued"],
                        Spec(slice_sec=SLICE, check=True))
        self.assertEqual(("NOT JUDGED", "host"),
                         (a.verdict.result, a.verdict.cause))
        self.assertIn("100 reads/s of 2000", a.verdict.message)
        # without check: no verdict, the log read once
        a = analyse_log(self.paths["not_issued"], Spec(slice_sec=SLICE))
        self.assertEqual((None, None, 12), (a.verdict, a.load, a.count))


class Issued(Logs):
    def test_pass(self):
        code, lines = self.check("issued")
        self.assertEqual((LATENCY_OK, ["run: complete (120 sec)",
                                       "result: PASS (3 of 3 criteria "
                                       "met)"]), (code, lines))

    def test_fail(self):
        code, lines = self.check("failing")
        self.assertEqual((LATENCY_NOT_PASSED, "result: FAIL (2 of 3 "
                          "criteria met)"), (code, lines[-1]))

    def test_the_drive_could_not_take_the_load(self):
        code, lines = self.check("drive_short")
        self.assertEqual(LATENCY_NOT_PASSED, code)
        self.assertEqual([
            "run: complete (120 sec)",
            "load: the drive could not take the load (495 reads/s of 2000 "
            "in slice 1, short of 95% in 12 of 12 slices; the I/Os of the "
            "10 service threads took at least 79% of their time)",
            "result: FAIL (the drive could not take the load; 1 of 3 "
            "criteria met)"], lines)


class Stops(Logs):
    def test_a_stop_on_request_borne_out_is_a_fail(self):
        code, lines = self.check("request")
        self.assertEqual(LATENCY_NOT_PASSED, code)
        self.assertEqual([
            "run: INCOMPLETE - %s (30 of 120 sec ran)" % REQUEST,
            "over a limit: reads 10.00% over 1 ms (must be under 5%) in "
            "slice 3",
            "result: FAIL (stopped on request: fail fast: reads 10.00% over "
            "1 ms (must be under 5%) in slice 3; 2 of 3 criteria met on the "
            "part that ran)"], lines)

    def test_a_stop_on_request_not_borne_out_is_incomplete(self):
        code, lines = self.check("request_unfounded")
        self.assertEqual(LATENCY_NOT_PASSED, code)
        self.assertEqual("result: INCOMPLETE (the run did not finish: "
                         "stopped on request, and no complete slice is over "
                         "a limit; 3 of 3 criteria met on the part that "
                         "ran)", lines[-1])

    def test_a_signal_stays_incomplete(self):
        code, lines = self.check("signal")
        self.assertEqual((LATENCY_NOT_PASSED, "result: INCOMPLETE (the run "
                          "did not finish; 2 of 3 criteria met on the part "
                          "that ran)"), (code, lines[-1]))

    def test_a_host_limit_stop_is_not_judged(self):
        code, lines = self.check("host_stop")
        self.assertEqual(LATENCY_NOT_JUDGED, code)
        self.assertEqual(["load: " + HOST_STOP_TEXT,
                          "result: NOT JUDGED (the host could not issue the "
                          "load; 3 of 3 criteria met on the part that ran)"],
                         lines[-2:])


class SameVerdict(Logs):
    """act_latency.py --check and act_certify judge every log alike."""

    def test_latency_and_certify_agree(self):
        want = {"not_issued": "NOT JUDGED", "issued": "PASS",
                "failing": "FAIL", "drive_short": "FAIL", "request": "FAIL",
                "request_unfounded": "INCOMPLETE", "signal": "INCOMPLETE",
                "host_stop": "NOT JUDGED"}
        for name, path in sorted(self.paths.items()):
            with self.subTest(log=name):
                code, out, err = run(["-l", path, "-t", str(SLICE),
                                      "--check", "--json"])
                check = json.loads(out)["check"]
                latency = (check["result"],
                           "; ".join(check["reasons"]) or None)
                step = make_step(duration_sec=SECONDS, slice_sec=SLICE,
                                 exit_status=EXIT.get(name, 0))
                certify = judge.judge_step(
                    step, analyse.analyse_log(path, SLICE, False))
                self.assertEqual(want[name], latency[0])
                self.assertEqual(latency, certify)
                self.assertEqual({"PASS": LATENCY_OK,
                                  "NOT JUDGED": LATENCY_NOT_JUDGED}.get(
                                      latency[0], LATENCY_NOT_PASSED), code)


class SeveralLogs(Logs):
    def test_not_judged_only_when_none_failed(self):
        code, out, err = run(["-l", self.paths["issued"], "-l",
                              self.paths["not_issued"], "-t", str(SLICE),
                              "--check"])
        self.assertEqual(LATENCY_NOT_JUDGED, code)
        self.assertIn("\nresult: NOT JUDGED (1 of 2 logs passed; "
                      "not_issued.log: NOT JUDGED)\n", out)
        code, out, err = run(["-l", self.paths["failing"], "-l",
                              self.paths["not_issued"], "-t", str(SLICE),
                              "--check"])
        self.assertEqual(LATENCY_NOT_PASSED, code)
        self.assertIn("\nresult: FAIL (0 of 2 logs passed; failing.log: "
                      "FAIL, not_issued.log: NOT JUDGED)\n", out)


if __name__ == "__main__":
    unittest.main()
