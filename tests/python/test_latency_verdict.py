#!/usr/bin/env python3
"""Description: the one verdict (act.latency.verdict: PASS, FAIL,
INCOMPLETE, NOT JUDGED), from act_latency.py --check and from
act_certify's step judgement alike, on synthetic 120-second act_storage
logs (tests/python/actlog.py layout) judged in 10-second slices:

- a complete log configured for 2000 reads/s that issued 100/s: NOT
  JUDGED, "the host could not issue the load (100 reads/s of 2000 in
  slice 1, short of 95% in 12 of 12 slices; try more service-threads)",
  exit status 3 (before: PASS, exit 0) - also read from a pipe (the log
  kept for the second reading) and with --stress;
- the same load issued: PASS (exit 0); over a criterion in one slice:
  FAIL (exit 1); reads that kept 10 service threads busy at a tenth of
  the rate: the drive's FAIL, the load line says so;
- a stop on request (act_certify's fail fast: "stopped on request:
  fail fast: ... after 30 sec" as the log's last line) with a complete
  slice over a limit: FAIL with the line's reason and the slice the
  analysis finds (before: INCOMPLETE); the same line with no slice over
  a limit: INCOMPLETE (the claim is not borne out); a plain signal stop
  after the same slices: INCOMPLETE; a host-limit stop: NOT JUDGED;
- act_latency.py --check --json and act_certify's judge_step give the
  same result and the same reasons on every one of these logs;
- several logs: NOT JUDGED only when no log failed or did not finish
  (exit 3), else FAIL (exit 1).

    python3 tests/python/test_latency_verdict.py [-v]
"""

import json
import os
import subprocess
import sys
import tempfile
import unittest

import actlog
from certstate import make_step

from act import LATENCY_NOT_JUDGED, LATENCY_NOT_PASSED, LATENCY_OK
from act.certify import analyse, judge
from act.latency import Spec, analyse_log
from act.latency.load import HOST_STOP_TEXT

SCRIPT = os.path.join(actlog.ROOT, "analysis", "act_latency.py")
SECONDS = 120
SLICE = 10
REQUEST = ("stopped on request: fail fast: reads 10.00% over 1 ms (must be "
           "under 5%) in slice 3 after 30 sec")


def storage_log(per_second, plan=2000, threads=None, stop=()):
    """An act_storage log of SECONDS (test-duration-sec), planning plan
    reads/s: per_second[i] = {bucket: reads} done in second i+1 (a log
    with fewer seconds was stopped: the lines of stop follow its last
    report, as the programs write a stop line)."""
    h = actlog.header(duration=SECONDS, names=("reads",),
                      reads_per_sec=plan)
    if threads:
        h = h.replace("report-interval-sec:", "service-threads: %d\n"
                      "report-interval-sec:" % threads, 1)
    cum, out = {}, [h]
    for t, buckets in enumerate(per_second, 1):
        for b, n in buckets.items():
            cum[b] = cum.get(b, 0) + n
        out.append(actlog.report(t, {"reads": dict(cum)}))
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
    "host_stop": storage_log(seconds(30), stop=actlog.HOST_LAG),
}
# the exit status each program had
EXIT = {"request": 130, "request_unfounded": 130, "signal": 130,
        "host_stop": 3}


def run(argv, stdin=None):
    p = subprocess.run([sys.executable, SCRIPT] + argv, input=stdin,
                       capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


class Logs(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="act-verdict-test-")
        cls.paths = {name: actlog.make(os.path.join(cls.tmp.name,
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
