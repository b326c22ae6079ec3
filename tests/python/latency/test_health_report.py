#!/usr/bin/env python3
"""Description: act_latency.py --health and the verdict's drive health, as
a program, on synthetic logs with health lines (tests/lib/synthlog): the
text part after the latency table (each device's figures, problems and
samples not read, a device without health data, the table per slice and
device), "no health data in the log" once for a log without health lines
(several logs: each log's part under its label), the "health" member of
--json and the health rows of --csv; --check: a PASS with a drive health
problem is "PASS WITH DRIVE HEALTH WARNINGS" with a health: line per
problem and exit status 4 (JSON: result PASS, health_warnings), several
logs too; a FAIL names the throttling during the worst slice of a failed
criterion, and during the slice a stop on request is borne out by; a
FAIL on a drive that did not throttle reads as before.

    python3 tests/python/latency/test_health_report.py [-v]
"""

import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
import support  # noqa: E402
import synthlog  # noqa: E402

from act import LATENCY_HEALTH, LATENCY_NOT_PASSED, LATENCY_OK  # noqa: E402

DEV = "/dev/nvme0n1"
NAMES = ["reads", DEV + "-reads"]


def make_log(seconds=60, over=lambda t: 1, every=5, health=True,
             stop=None, **series):
    """A 1-second-report act_storage log of seconds (100 reads a second
    under 1 ms and over(t) over it), a health sample after every every-th
    report (health_series(**series)); stop: (reason, sec) of a stop on
    request after the report at sec."""
    secs = range(1, (stop[1] if stop else seconds) + 1)
    body = synthlog.reports([{n: {0: 100, 3: over(t)} for n in NAMES}
                             for t in secs])
    if stop:
        body.append(synthlog.stop_request(*stop))
    ident = [synthlog.identity_line(DEV, "M", "S", "F")]
    if health:
        start, samples = synthlog.health_series(
            DEV, [t for t in secs if t % every == 0], **series)
        ident += [synthlog.health_source(DEV, "nvme smart log, ocp log c0h"),
                  start]
        body = synthlog.with_health(body, samples)
    head = synthlog.header(
        synthlog.STORAGE, synthlog.config_items(
            synthlog.STORAGE, [DEV], test_duration_sec=seconds),
        [("internal-read-reqs-per-sec", "100")],
        [synthlog.device_line(synthlog.STORAGE, DEV, 1 << 31)], NAMES,
        identity=ident, start_time="2026-11-27T03:00:00Z")
    return synthlog.text(head + body)


# a drive that heats up and throttles from 78 C, a media error at 50 s
HOT = dict(temp=lambda t: 40 + t, throttle=78, waf=2.0,
           media_errors=lambda t: 1 if t >= 50 else 0)


class Output(support.TempLogs):
    def test_text(self):
        self.write("h.log", make_log(unread={20: "NVMe status 0x4004"},
                                     **HOT))
        code, out, err = self.run_here(["-l", "h.log", "-t", "10",
                                        "--health"])
        self.assertEqual((0, ""), (code, err))
        table_end = out.index("  max ")
        part = out[out.index("\n", table_end) + 1:].split("\n")
        self.assertEqual([
            "", "drive health:",
            "%s: nvme smart log, ocp log c0h; max 100 C, throttled 23 s "
            "(1 transition), 1 new media error, 0 new error-log entries, "
            "spare 100%% -> 100%%, used 0%% -> 0%%, 307200000 bytes "
            "written, WAF 2.00" % DEV,
            "  problem: 1 new media error (0 -> 1)",
            "  not read: 1 sample not read (at 20.0 sec): NVMe status "
            "0x4004", "",
            "slice  device        max C  throttle s  media errors  error "
            "log    WAF  warning",
            "-----  ------------ ------ ----------- ------------- "
            "---------- ------ --------"], part[:8])
        rows = [line.split() for line in part[8:] if line]
        self.assertEqual([
            ["1", DEV, "50", "0", "0", "0", "2.00", "0x00"],
            ["2", DEV, "55", "0", "0", "0", "2.00", "0x00"],
            ["3", DEV, "70", "0", "0", "0", "2.00", "0x00"],
            ["4", DEV, "80", "3", "0", "0", "2.00", "0x00"],
            ["5", DEV, "90", "10", "1", "0", "2.00", "0x00"],
            ["6", DEV, "100", "10", "0", "0", "2.00", "0x00"]], rows)
        # without --health: the output of the log without health lines
        self.write("plain.log", make_log(health=False))
        outs = [self.run_here(["-l", name, "-t", "10"])
                for name in ("h.log", "plain.log")]
        self.assertEqual(outs[1], (outs[0][0], outs[0][1].replace(
            "h.log", "plain.log"), outs[0][2]))

    def test_no_health_data(self):
        self.write("plain.log", make_log(health=False))
        code, out, _ = self.run_here(["-l", "plain.log", "-t", "10",
                                      "--health"])
        self.assertEqual(0, code)
        self.assertEqual(1, out.count("no health data in the log"))
        self.assertTrue(out.endswith("\n\nno health data in the log\n"))
        self.write("h.log", make_log(**HOT))
        code, out, _ = self.run_here(["-l", "plain.log", "-l", "h.log",
                                      "-t", "10", "--health"])
        self.assertEqual(0, code)
        self.assertIn("\nplain.log: no health data in the log\n", out)
        self.assertIn("\nh.log: drive health:\n", out)
        self.assertIn("\nh.log:     6  %s    100" % DEV, out)

    def test_json(self):
        self.write("h.log", make_log(**HOT))
        code, out, _ = self.run_here(["-l", "h.log", "-t", "10", "--json",
                                      "--health"])
        doc = json.loads(out)
        h = doc["health"]
        self.assertIsNone(h["note"])
        d = h["devices"][0]
        self.assertEqual((DEV, True, 100, 23, 1, 2.0,
                          ["1 new media error (0 -> 1)"], []),
                         (d["device"], d["readable"], d["max_temp_c"],
                          d["throttle_sec"], d["new_media_errors"],
                          d["waf"], d["problems"], d["missing"]))
        self.assertEqual({"slice": 5, "end_sec": 50, "max_temp_c": 90,
                          "throttle_sec": 10, "new_media_errors": 1,
                          "new_error_log_entries": 0, "waf": 2.0,
                          "warning": 0}, d["slices"][4])
        self.assertEqual((None, "40 C"), (d["start"]["t"],
                                          d["start"]["fields"]["temp"]))
        # without --health: no "health" member, the rest the same
        code, plain, _ = self.run_here(["-l", "h.log", "-t", "10",
                                        "--json"])
        del doc["health"]
        self.assertEqual(doc, json.loads(plain))
        self.write("plain.log", make_log(health=False))
        _, out, _ = self.run_here(["-l", "plain.log", "-t", "10", "--json",
                                   "--health"])
        self.assertEqual({"note": "no health data in the log",
                          "devices": []}, json.loads(out)["health"])

    def test_csv(self):
        self.write("h.log", make_log(**HOT))
        self.write("plain.log", make_log(health=False))
        code, out, _ = self.run_here(["-l", "h.log", "-l", "plain.log",
                                      "-t", "30", "--csv", "--health"])
        self.assertEqual(0, code)
        tail = out.split("\n\n")[1].splitlines()
        self.assertEqual([
            "slice,seconds,log,device,max_temp_c,throttle_sec,"
            "new_media_errors,new_error_log_entries,waf,warning",
            "1,30,h.log,%s,70,0,0,0,2.00,0x00" % DEV,
            "2,60,h.log,%s,100,23,1,0,2.00,0x00" % DEV,
            "all,,h.log,%s,100,23,1,0,2.00,0x00" % DEV,
            ",,plain.log,no health data in the log"], tail)


class Verdict(support.TempLogs):
    def check(self, *args, **log):
        self.write("h.log", make_log(**log))
        return self.run_here(["-l", "h.log", "-t", "10", "--check"] +
                             list(args))

    def test_pass_with_health_warnings(self):
        code, out, _ = self.check(media_errors=lambda t: 1 if t >= 50
                                  else 0, warning=lambda t: 4 if t >= 30
                                  else 0)
        self.assertEqual(LATENCY_HEALTH, code)
        lines = out.splitlines()
        self.assertEqual([
            "health: %s: critical warning 0x04 (reliability degraded) at "
            "30.0 sec" % DEV,
            "health: %s: 1 new media error (0 -> 1)" % DEV,
            "result: PASS WITH DRIVE HEALTH WARNINGS (3 of 3 criteria "
            "met)"], lines[-4:-1])
        code, out, _ = self.check("--json", media_errors=lambda t: 1
                                  if t >= 50 else 0)
        self.assertEqual(LATENCY_HEALTH, code)
        c = json.loads(out)["check"]
        self.assertEqual(("PASS", True, ["%s: 1 new media error (0 -> 1)"
                                         % DEV]),
                         (c["result"], c["pass"], c["health_warnings"]))
        # several logs: 4 when every log passed and one has a problem
        self.write("ok.log", make_log())
        code, out, _ = self.run_here(["-l", "ok.log", "-l", "h.log", "-t",
                                      "10", "--check"])
        self.assertEqual(LATENCY_HEALTH, code)
        self.assertIn("\nh.log: result: PASS WITH DRIVE HEALTH WARNINGS",
                      out)

    def test_plain_pass(self):
        code, out, _ = self.check(temp=50)
        self.assertEqual(LATENCY_OK, code)
        self.assertNotIn("health:", out)
        self.assertIn("\nresult: PASS (3 of 3 criteria met)\n", out)

    def test_fail_names_the_throttling_of_the_worst_slice(self):
        # over 1 ms: 9% in slices 4-6, worst (10%) in slice 5
        code, out, _ = self.check(
            "--json", over=lambda t: 12 if 41 <= t <= 50 else (
                10 if t > 30 else 1), temp=lambda t: 40 + t, throttle=78)
        self.assertEqual(LATENCY_NOT_PASSED, code)
        self.assertEqual(["reads 10.71% over 1 ms (must be under 5%) in "
                          "slice 5, while " + DEV + " throttled 10 s at 90 "
                          "C"],
                         json.loads(out)["check"]["reasons"])
        code, out, _ = self.check(
            over=lambda t: 12 if 41 <= t <= 50 else (10 if t > 30 else 1),
            temp=lambda t: 40 + t, throttle=78)
        self.assertIn("\nover a limit: reads 10.71% over 1 ms (must be "
                      "under 5%) in slice 5, while /dev/nvme0n1 throttled "
                      "10 s at 90 C\nresult: FAIL (2 of 3 criteria met)\n",
                      out)
        # no throttling: the reason of before
        code, out, _ = self.check("--json", over=lambda t: 12, temp=50)
        self.assertEqual(["reads 10.71% over 1 ms (must be under 5%)"],
                         json.loads(out)["check"]["reasons"])

    def test_request_stop_names_the_throttling(self):
        code, out, _ = self.check(
            "--json", over=lambda t: 1 if t <= 20 else 12,
            temp=lambda t: 40 + 2 * t, throttle=78,
            stop=("fail fast: reads over 1 ms in slice 3", 30))
        self.assertEqual(LATENCY_NOT_PASSED, code)
        self.assertEqual([
            "stopped on request: fail fast: reads over 1 ms in slice 3",
            "reads 10.71% over 1 ms (must be under 5%) in slice 3, while " +
            DEV + " throttled 10 s at 100 C"],
            json.loads(out)["check"]["reasons"])


if __name__ == "__main__":
    unittest.main()
