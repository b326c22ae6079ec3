#!/usr/bin/env python3
"""Description: every planned stream of a step checked against its plan,
and the drive told from the host when one falls short (issue 25: n19,
n20), and slices longer than the criteria's hour never certified (n21) -
analysis/act/latency/load.py, act_certify's judge.judge_step,
plan.check_interval and act.latency's result line - on synthetic logs
(tests/python/support.py layout) analysed in-process:

- planned_streams: act_storage's reads, large-block reads and writes
  (their derived rates, one thread per device), commit writes with the
  reads' service threads; a large-block rate of 0 is no stream; act_index's
  reads (service + cache) and cache writes (cache threads, a bundle of 100
  each as allowance); the tomb raider is none (no rate, no histogram).
- large-block writes at 40% of their rate, each over 64 ms (n19): the
  drive's - FAIL "the drive could not take the load (9.41
  large-block-writes/s of 23.53 ...; the I/Os of the 1 large-block write
  thread took at least 60% of its time)", a stress test too, never PASS
  (before: PASS, the stream never looked at); short_streams says so
  (cause drive). The same writes under 1 ms: the host's - NOT JUDGED,
  "the host, not the drive, is the limit".
- reads at a tenth of the rate, each 16-32 ms, 10 service threads (n20):
  the drive's - FAIL on the criteria (reads 100.00% over 1 ms), the
  message adding that the drive could not take the load; never NOT
  JUDGED (before: NOT JUDGED, "try more service-threads"). A fast drive
  (reads under 1 ms) at the same shortfall stays NOT JUDGED, as do reads
  over the criteria only in a short slice where they took little of the
  threads' time (100 threads), and a log whose service-threads is
  unknown.
- act_index: cache writes short and slow: FAIL; short and fast: NOT
  JUDGED, "try more cache-threads".
- report-interval-sec 7200 (n21): act_latency.py's result line on
  7200 s slices is "PASS (not a certification: slices of 7200 s, the
  criteria are per hour; 3 of 3 criteria met)" (one log, several logs,
  the plot's title), never a plain PASS; at 3600 s the line is as
  before; FAIL stays FAIL. act_certify judges such a criteria step
  INVALID ("not a certification: slices of 7200 s, ...
  (report-interval-sec 7200)"), the campaign "is INVALID (judged on
  slices longer than an hour)", exit 1; check_interval, on the items the
  program echoes, refuses 7200 and 7 (exit 78, naming the config and
  value) and takes 1, 60, 3600, none and a value the program will refuse
  itself.

    python3 tests/python/certify/test_load.py [-v]
"""

import contextlib
import io
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
import support  # noqa: E402
from certstate import make_step, new_state  # noqa: E402

from act.certify import analyse, judge, plan  # noqa: E402
from act.latency import load  # noqa: E402
from act.certify import EXIT_CONFIG  # noqa: E402
from act.cli import UsageError  # noqa: E402
from act.latency import main as latency_main  # noqa: E402

LB = 23.53                      # 1x: large-block reads and writes a second


def storage_log(seconds, threads=10, lb_reads=LB, lb_writes=LB,
                duration=None, interval=1, commit=False, tomb=False):
    """An act_storage log: seconds[i] = {histogram: (ops, bucket)} done in
    report i+1 (each report interval seconds apart); the derived config
    asks 2000 reads/s and the large-block rates given."""
    names = ["reads", "large-block-reads", "large-block-writes"] + \
        (["writes"] if commit else [])
    duration = duration or len(seconds) * interval
    lines = ["", "ACT version 6.7", "Storage device IO test", "",
             "ACT-STORAGE CONFIGURATION", "device-names: /dev/sdb",
             "num-devices: 1"]
    if threads:
        lines.append("service-threads: %d" % threads)
    lines += ["test-duration-sec: %d" % duration,
              "report-interval-sec: %d" % interval,
              "microsecond-histograms: no",
              "commit-to-device: %s" % ("yes" if commit else "no"),
              "tomb-raider: %s" % ("yes" if tomb else "no"),
              "max-lag-sec: 0", "",
              "DERIVED CONFIGURATION",
              "record-stored-bytes: 1536 ... 1536",
              "internal-read-reqs-per-sec: 2000",
              "internal-write-reqs-per-sec: %d" % (1000 if commit else 0),
              "large-block-reads-per-sec: %.2f" % lb_reads,
              "large-block-writes-per-sec: %.2f" % lb_writes, "",
              "/dev/sdb size = 2147483648 bytes, 16384 large blocks, "
              "minimum IO size = 512 bytes", "",
              "HISTOGRAM NAMES"] + names + [""]
    out = ["\n".join(lines) + "\n"]
    cum = {n: {} for n in names}
    for t, per in enumerate(seconds, 1):
        for n in names:
            ops, bucket = per.get(n, (0, 0))
            cum[n][bucket] = cum[n].get(bucket, 0) + ops
        out.append(support.report(t * interval, {
            n: {b: c for b, c in cum[n].items() if c} for n in names}))
    return "".join(out)


def index_log(seconds, service=10, cache=8):
    """An act_index log: 3000 service-thread reads/s and 2000 cache
    read+write pairs/s; seconds[i] = {histogram: (ops, bucket)}."""
    names = ["reads", "writes"]
    lines = ["", "ACT version 6.7", "Index device IO test", "",
             "ACT-INDEX CONFIGURATION", "device-names: /dev/sdb",
             "num-devices: 1", "service-threads: %d" % service,
             "cache-threads: %d" % cache,
             "test-duration-sec: %d" % len(seconds),
             "report-interval-sec: 1", "microsecond-histograms: no", "",
             "DERIVED CONFIGURATION", "service-thread-reads-per-sec: 3000",
             "cache-thread-reads-and-writes-per-sec: 2000", "",
             "/dev/sdb size = 2147483648 bytes", "",
             "HISTOGRAM NAMES"] + names + [""]
    out = ["\n".join(lines) + "\n"]
    cum = {n: {} for n in names}
    for t, per in enumerate(seconds, 1):
        for n in names:
            ops, bucket = per[n]
            cum[n][bucket] = cum[n].get(bucket, 0) + ops
        out.append(support.report(t, {n: dict(cum[n]) for n in names}))
    return "".join(out)


def full(**kw):
    """One second of a storage log at the full rate, fast, with kw's
    histograms replaced."""
    per = {"reads": (2000, 0), "large-block-reads": (24, 0),
           "large-block-writes": (24, 0)}
    per.update(kw)
    return per


def step(kind="criteria", duration=10, slice_sec=1, **extra):
    s = make_step(kind="target" if kind == "criteria" else "stress",
                  judge=kind, duration_sec=duration, slice_sec=slice_sec,
                  exit_status=0, devices=["/dev/sdb"])
    s.update(**extra)
    return s


class Logs:
    def __init__(self):
        self.td = tempfile.TemporaryDirectory(prefix="act-load-test-")
        self.k = 0

    def write(self, text):
        self.k += 1
        return support.make(os.path.join(self.td.name, "%d.log" % self.k),
                            text)

    def analysis(self, text, slice_sec=1, stress=False):
        return analyse.analyse_log(self.write(text), slice_sec, stress)

    def judged(self, text, st, stress=False):
        a = self.analysis(text, st.slice_sec, stress)
        return judge.judge_step(st, a), a


def header_of(text):
    from act.logfile.header import read_header
    return read_header(io.BytesIO(text.encode()), "x.log")


def _two_buckets(seconds, threads):
    """storage_log with each second's reads split 90% under 1 ms, 10% at
    4-8 ms."""
    text = storage_log(seconds, threads=threads)
    head, _sep, _body = text.partition("after 1 sec:")
    out = [head]
    ok = slow = lbr = lbw = 0
    for t, per in enumerate(seconds, 1):
        n = per["reads"][0]
        slow += n // 10
        ok += n - n // 10
        lbr += per["large-block-reads"][0]
        lbw += per["large-block-writes"][0]
        out.append(support.report(t, {"reads": {0: ok, 3: slow},
                                      "large-block-reads": {0: lbr},
                                      "large-block-writes": {0: lbw}}))
    return "".join(out)


def run_latency(argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = latency_main.main(argv)
    return rc, out.getvalue()


def hourly_log(interval):
    """24 hours logged every interval seconds, 2000 reads/s: 8% over 1 ms
    in hour 5, 1% in hour 6, 0.1% otherwise (n21)."""
    pct = {5: 8.0, 6: 1.0}
    secs = []
    per_report = 2000 * interval
    for k in range(86400 // interval):
        # the hours this report covers (interval divides or is a multiple)
        hours = range(k * interval // 3600 + 1,
                      (k + 1) * interval // 3600 + 1) if interval >= 3600 \
            else [k * interval // 3600 + 1]
        over = sum(int(per_report / len(hours) * pct.get(h, 0.1) / 100)
                   for h in hours)
        secs.append({"reads": (per_report - over, 0),
                     "large-block-reads": (int(LB * interval), 0),
                     "large-block-writes": (int(LB * interval), 0),
                     "_over": over})
    text = storage_log(secs, interval=interval)
    head, _sep, _body = text.partition("after %d sec:" % interval)
    out = [head]
    ok = slow = lb = 0
    for k, per in enumerate(secs, 1):
        ok += per["reads"][0]
        slow += per["_over"]
        lb += per["large-block-reads"][0]
        out.append(support.report(k * interval, {
            "reads": {0: ok, 1: slow}, "large-block-reads": {0: lb},
            "large-block-writes": {0: lb}}))
    return "".join(out)


class Load(unittest.TestCase):
    def setUp(self):
        self.logs = Logs()

    def tearDown(self):
        self.logs.td.cleanup()

    def test_streams(self):
        streams, pools = load.planned_streams(header_of(storage_log([])))
        self.assertEqual([
            ("reads", 2000.0, 10, "service"),
            ("large-block-reads", 23.53, 1, "large-block-reads"),
            ("large-block-writes", 23.53, 1, "large-block-writes")],
            [(s["name"], s["rate"], s["allowance"],
              s["pool"]) for s in streams],
            "storage: the streams")
        self.assertEqual({
            "service": (10, "service threads"),
            "large-block-reads": (1, "large-block read thread"),
            "large-block-writes": (1, "large-block write thread")},
            {k: (p["threads"], p["what"]) for k, p in pools.items()},
            "storage: the pools' threads")
        streams, pools = load.planned_streams(header_of(storage_log(
            [], commit=True, lb_reads=0, tomb=True)))
        self.assertEqual([("reads", "service"), ("writes", "service"),
                          ("large-block-writes", "large-block-writes")],
                         [(s["name"], s["pool"]) for s in streams],
                         "storage: commit writes, no large-block reads, a "
                         "tomb raider")
        streams, pools = load.planned_streams(header_of(index_log([])))
        self.assertEqual([("reads", 5000.0, 810, "all"),
                          ("writes", 2000.0, 800, "cache")],
                         [(s["name"], s["rate"], s["allowance"], s["pool"])
                          for s in streams], "index: the streams")
        self.assertEqual({"all": 18, "cache": 8},
                         {k: p["threads"] for k, p in pools.items()},
                         "index: the pools' threads")

    def test_large_blocks(self):
        logs = self.logs
        # n19: the one large-block write thread does 9-10 of 23.53 a second,
        # each write 64-128 ms (bucket 7)
        slow = [full(**{"large-block-writes": (9 + k % 2,
                                               7)}) for k in range(10)]
        (r, msg), a = logs.judged(storage_log(slow), step())
        self.assertEqual("FAIL", r, "slow large-block writes: FAIL")
        self.assertEqual("the drive could not take the load (9 "
                         "large-block-writes/s of 23.53 in slice 1, short of "
                         "95% in 10 of 10 slices; the I/Os of the 1 "
                         "large-block write thread took at least 57% of its "
                         "time)", msg, "slow large-block writes: the message")
        self.assertEqual([{
            "histogram": "large-block-writes", "planned_per_sec": 23.53,
            "lowest_per_sec": 9.0, "slice": 1, "short_slices": 10,
                           "slices": 10,
            "cause": "drive"}], load.short_streams(a.analysis),
            "slow large-block writes: short_streams")
        (r, msg), _a = logs.judged(storage_log(slow), step("stress"),
                                   stress=True)
        self.assertEqual("FAIL", r, "slow large-block writes, a stress test: "
                         "FAIL")
        # the same shortfall, every write under 1 ms: the host's
        fast = [full(**{"large-block-writes": (9 + k % 2,
                                               0)}) for k in range(10)]
        (r, msg), a = logs.judged(storage_log(fast), step())
        self.assertEqual(("NOT JUDGED",
                         "the host could not issue the load (9 "
                         "large-block-writes/s of 23.53 in slice 1, short of "
                         "95% in 10 of 10 slices; the host, not the drive, is "
                         "the limit)"), (r, msg),
                         "fast large-block writes short: NOT JUDGED")
        self.assertEqual(["host"],
                         [x["cause"] for x in load.short_streams(a.analysis)],
                         "fast large-block writes short: short_streams' cause")
        # large-block reads short too, and slow: both named, the furthest
        # from its plan first
        both = [full(**{"large-block-writes": (9, 7),
                        "large-block-reads": (10, 7)}) for _ in range(10)]
        (r, msg), _a = logs.judged(storage_log(both), step())
        self.assertTrue(r == "FAIL" and msg.startswith(
                        "the drive could not take the load (9 "
                        "large-block-writes/s of 23.53 in slice 1")
                        and "; large-block-reads short too;" in msg,
                        "large-block reads and writes short: %r" % msg)
        # at the rate (23-24 a second, the first at once): PASS
        (r, msg), _a = logs.judged(storage_log(
            [full(**{"large-block-writes": (23 + k % 2, 7)})
             for k in range(10)]), step())
        self.assertEqual(("PASS", None), (r, msg), "large-block writes at "
                         "their rate, however slow: PASS")

    def test_reads(self):
        logs = self.logs
        # n20: 10 service threads, every read 16-32 ms (bucket 5): 200-500 of
        # the 2000 reads a second
        slow = [full(reads=(495, 5)) for _ in range(10)]
        (r, msg), _a = logs.judged(storage_log(slow), step())
        self.assertEqual("FAIL", r, "slow reads: FAIL")
        self.assertTrue(msg.startswith("reads 100.00% over 1 ms (must be "
                                       "under 5%); reads 100.00% over 8 ms "
                                       "(must be under 1%); the drive could "
                                       "not take the load (495 reads/s of "
                                       "2000 in slice 1, short of 95% in 10 "
                                       "of 10 slices; the I/Os of the 10 "
                                       "service threads took at least 79% of "
                                       "their time)"),
                        "slow reads: the message %r" % msg)
        # fail fast stops such a step at its first slice: FAIL, not NOT JUDGED
        view = analyse.slices_so_far(logs.write(storage_log(slow[:3],
                                                            duration=10)), 1)
        self.assertEqual(1, (view.load.first_failing or (None,))[0] + 1,
                         "slow reads: fail fast stops at slice 1")
        # the same shortfall from a fast drive: the host's
        fast = [full(reads=(495, 0)) for _ in range(10)]
        (r, msg), _a = logs.judged(storage_log(fast), step())
        self.assertEqual(("NOT JUDGED", "the host could not "
                         "issue the load (495 reads/s of 2000 in slice 1, "
                         "short of 95% in 10 "
                         "of 10 slices; try more service-threads)"), (r, msg),
                         "fast reads short: NOT JUDGED")
        # short, over the criteria (10% at 4-8 ms), but those reads took a
        # few percent of 100 threads' time: the host's
        text = _two_buckets([full(reads=(1215, 0)) for _ in range(10)],
                            threads=100)
        (r, msg), _a = logs.judged(text, step())
        self.assertEqual("NOT JUDGED", r, "reads over the criteria in short "
                         "slices, threads idle: NOT JUDGED")
        # service-threads unknown (not echoed): the host, as before
        (r, msg), _a = logs.judged(storage_log(slow, threads=None), step())
        self.assertEqual("NOT JUDGED", r, "slow reads, service-threads "
                         "unknown: NOT JUDGED")

    def test_index(self):
        logs = self.logs
        ok = {"reads": (5000, 0), "writes": (2000, 0)}
        slow = [{"reads": (3000 + 1000, 0), "writes": (1000, 5)}
                for _ in range(10)]
        (r, msg), _a = logs.judged(index_log(slow), step())
        self.assertTrue(r == "FAIL"
                        and "the drive could not take the load" in msg and
                        "writes/s of 2000" in msg and "8 cache threads" in msg,
                        "index: slow cache writes: %r" % ((r, msg),))
        fast = [{"reads": (4000, 0), "writes": (1000, 0)} for _ in range(10)]
        (r, msg), _a = logs.judged(index_log(fast), step())
        self.assertTrue(r == "NOT JUDGED"
                        and msg.endswith("try more cache-threads)"),
                        "index: fast cache writes short: %r" % ((r, msg),))
        (r, msg), _a = logs.judged(index_log([ok] * 10), step())
        self.assertEqual(("PASS", None), (r, msg), "index: at the rate")

    def test_long_slices(self):
        logs = self.logs
        long_log = logs.write(hourly_log(7200))
        hour_log = logs.write(hourly_log(3600))
        rc, out = run_latency(["-l", long_log, "-t", "3600", "--check"])
        line = out.rstrip().split("\n")[-2]
        self.assertEqual((0, "result: PASS (not a "
                         "certification: slices of 7200 s, the criteria are "
                         "per hour; 3 of 3 criteria met)"), (rc, line),
                         "act_latency --check on 7200 s slices")
        rc, out = run_latency(["-l", hour_log, "-t", "3600", "--check"])
        self.assertEqual((1, "result: FAIL (2 of 3 criteria met)"),
                         (rc, out.rstrip().split("\n")[-1]),
                         "act_latency --check on 3600 s slices: FAIL (hour 5)")
        rc, out = run_latency(["-l", hour_log, "-t", "7200", "--check"])
        self.assertTrue(rc == 0 and "result: PASS (not a certification: "
                                    "slices of 7200 "
                        "s, the criteria are per hour; 3 of 3 criteria "
                        "met)" in out,
                        "act_latency -t 7200 --check: %r" % out[-400:])
        rc, out = run_latency(["-l", hour_log, "-t", "7200", "--stress"])
        self.assertTrue(rc == 0
                        and "result: PASS (stress test: the run completed" in
                        out, "act_latency -t 7200 --stress: as "
                        "before: %r" % out[-300:])
        rc, out = run_latency(["-l", long_log, "-l", long_log, "-t", "3600",
                               "--check"])
        self.assertTrue("result: PASS (not a certification: slices of 7200 s, "
                        "the "
                        "criteria are per hour; 2 of 2 logs passed)" in out and
                        out.count("PASS (not a certification") == 3,
                        "act_latency --check, two logs on 7200 "
                        "s slices: %r" % out[-800:])
        svg = os.path.join(logs.td.name, "long.svg")
        run_latency(["-l", long_log, "-t", "3600", "--check", "--plot", svg])
        with open(svg) as f:
            self.assertTrue("not a certification: slices of 7200 s"in f.read(),
                            "act_latency --plot: the title's result line")
        # act_certify: the step on these slices is INVALID, never PASS
        st = step(duration=86400, slice_sec=3600)
        a = analyse.analyse_log(long_log, 3600, False)
        r = judge.judge_step(st, a)
        self.assertEqual(("INVALID", "not a "
                         "certification: slices of 7200 s, the criteria are "
                         "per hour (report-interval-sec 7200)"), r,
                         "act_certify: a step on 7200 s slices")
        self.assertEqual(7200, a.slice_sec, "act_certify: its slice_sec")
        r = judge.judge_step(st, analyse.analyse_log(hour_log, 3600, False))
        self.assertTrue(r[0] == "FAIL"
                        and r[1].startswith("reads 8.00% over 1 ms"),
                        "act_certify: the same drive on 3600 s "
                        "slices: %r" % (r,))
        state = new_state(["/dev/sdb"], duration=86400)
        state.steps[0].update(status="done", result="INVALID",
                              message=judge.judge_step(st, a)[1])
        state.steps[1].update(status="skipped")
        v = judge.campaign_verdict(state)
        self.assertEqual((1, "not certified at 1x: test 1 (1x "
                         "on 1 device) is INVALID (judged on slices longer "
                         "than an hour)"),
                         (v["exit_status"], v["text"]),
                         "act_certify: the verdict")

    def test_interval(self):
        """On the items the program echoes (its --print-config: the value it
        reads, whatever the file's spelling)."""
        for value in ("7200", "7"):
            with self.assertRaises(UsageError,
                                   msg="check_interval: report-interval-sec "
                                       "%s" % value) as cm:
                plan.check_interval({"device-names": "/dev/sdb",
                                     "report-interval-sec": value},
                                    "the base config base.conf")
            self.assertEqual("the base config base.conf: report-interval-sec "
                             "%s cannot give the criteria's one-hour slices "
                             "(an hour would be judged on slices of %d s): "
                             "give a divisor of 3600 (the default is 1)"
                             % (value, 7200 if value == "7200" else 3605),
                             str(cm.exception), "check_interval: "
                             "report-interval-sec %s" % value + ": message")
            self.assertEqual(EXIT_CONFIG,
                             getattr(cm.exception, "status", None),
                             "check_interval: "
                             "report-interval-sec %s" % value + ": status")
        for value in ("1", "60", "3600", "x", "0", None):
            try:
                plan.check_interval({} if value is None else
                                    {"report-interval-sec": value}, "b")
                ok = True
            except UsageError as e:
                ok = e
            self.assertEqual(True, ok,
                             "check_interval: report-interval-sec %s "
                             "taken" % value)


if __name__ == "__main__":
    unittest.main()
