#!/usr/bin/env python3
"""Description: fail fast and the host's share of a step's verdict
(analysis/act/certify/failfast.py, act/latency/load.py and
judge.judge_step), on synthetic logs (tests/python/support.py) analysed
in-process:

- slices_so_far: act.latency's judged analysis of the complete slices of
  a log still being written (none yet: None): the criteria each slice is
  over, its planned streams and the least time their threads spent in
  I/O (the load's window);
- first_failing (LoadCheck): no slice over a limit; the first one over
  (what it is over, by how much); a slice over a limit where the host
  fell short is passed over for the next full-rate one; the short slices
  of 1-second slices judged over the last minute (the run so far when
  shorter), of hour slices alone;
- FailFast.check on a growing log: nothing before a slice completes,
  nothing for passing slices, the record of the first failing slice
  (slice, slices, end, over), its message ("stopped after slice 3 of 5
  (2 s): reads 10.00% over 1 ms (must be under 5%) in slice 3 - the
  verdict could not change"; "hour 3 of 24" for hour slices) and the
  time saved; never on the last slice (the run ends anyway), never on a
  short slice;
- a trial (plan.slice_for: slices of at least 10 s): a first second 20%
  over 1 ms in a 20 s trial neither stops it nor fails it (PASS); a 30 s
  trial 30% over throughout stops after its first 10 s slice ("slice 1
  of 3 (10 s)");
- judge_step: a log stopped (SIGINT) after fail fast's slice is FAIL
  with that message, never INCOMPLETE nor PASS; the same log without the
  record, or a record whose slice the log does not show failing, is
  INCOMPLETE; a complete log whose slices fell short of the rate is NOT
  JUDGED ("1500 reads/s of 2000 in slice 2": a slice under a minute is
  judged over the last minute, the run so far when shorter; an hour
  alone), also a stress test and a
  log that fails the criteria only in short slices; a full-rate failing
  slice is the drive's FAIL even when other slices are short; rates
  above the configured ones pass; the one-request-per-thread allowance;
  a host-limit stop is NOT JUDGED (with or without an analysis), a
  drive-limit stop stays INCOMPLETE;
- campaign_verdict: a NOT JUDGED test makes the campaign not certified
  (exit 1) saying why; a NOT JUDGED rung ends the ladder with the
  ceiling "limited by the host";
- thread_warnings: none under 1000 reads/s per service thread, one line
  naming the steps over it and the service-threads they need, on the
  service-threads the program echoes (threads.py).

    python3 tests/python/certify/test_failfast.py [-v]
"""

import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
import support  # noqa: E402
from certstate import make_step, new_state  # noqa: E402

from act.certify import analyse, failfast, judge, plan, threads  # noqa
from act.certify.model import FailFastStop  # noqa: E402
from act.latency import Spec, analyse_log, load, verdict  # noqa: E402

RATE = 2000


def log_text(seconds, rate=RATE, threads=None, duration=10, stop=None,
             commit=False):
    """A log of per-second reports: seconds[i] = (operations, of which
    over 1 ms) in second i+1, for reads (and writes with commit); the
    derived config asks rate reads/s (and writes/s)."""
    names = ("reads", "writes") if commit else ("reads",)
    h = support.header(duration=duration, commit=commit, names=names)
    h = h.replace("internal-read-reqs-per-sec: 2000",
                  "internal-read-reqs-per-sec: %d\n"
                  "internal-write-reqs-per-sec: %d"
                  % (rate, rate if commit else 0))
    if threads is not None:
        h = h.replace("device-names: /dev/sdb\n", "device-names: /dev/sdb\n"
                      "service-threads: %d\n" % threads)
    ok = slow = 0
    out = [h]
    for t, (ops, over) in enumerate(seconds, 1):
        ok += ops - over
        slow += over
        out.append(support.report(t, {n: {0: ok, 3: slow} for n in names}))
    if stop:
        out.append("\n".join(stop) + "\n")
    return "".join(out)


def full(n, over=0):
    return [(RATE, over)] * n


def step(judge_kind="criteria", duration=10, slice_sec=2, **extra):
    s = make_step(kind="target" if judge_kind == "criteria" else "stress",
                  judge=judge_kind, duration_sec=duration,
                  slice_sec=slice_sec, exit_status=0, devices=["/dev/sdb"])
    s.update(**extra)
    return s


class Logs:
    def __init__(self):
        self.td = tempfile.TemporaryDirectory(prefix="act-failfast-test-")
        self.k = 0

    def write(self, text):
        self.k += 1
        return support.make(os.path.join(self.td.name, "%d.log" % self.k),
                            text)


def reads_stream(slice_sec, ops, rate=RATE, allowance=0):
    """The slices (from 0) where a reads stream planned at rate falls
    short, fed slice by slice (ops per slice) to a LoadCheck; and the
    LoadCheck."""
    check = load.LoadCheck(
        [{"name": "reads", "rate": rate, "allowance": allowance,
          "pool": "service"}],
        {"service": {"threads": 0, "what": "service threads", "advice": "",
                     "members": ["reads"], "paired": None}}, slice_sec)
    short = []
    for k, n in enumerate(ops):
        before = check.host.slices
        check.add({"reads": (n, 0.0)}, [])
        if check.host.slices > before:
            short.append(k)
    return short, check


SIGINT_LINE = ["stopped by signal SIGINT after 7 sec"]


def judged(logs, text, st, stress=False):
    a = analyse.analyse_log(logs.write(text), st.slice_sec, stress)
    return judge.judge_step(st, a)


def campaign(ceiling=False):
    return new_state(["/dev/sdb"], load=30, duration=86400,
                     ladder=[60, 90] if ceiling else [])


class FailFast(unittest.TestCase):
    def setUp(self):
        self.logs = Logs()

    def tearDown(self):
        self.logs.td.cleanup()

    def test_views(self):
        logs = self.logs
        path = logs.write(log_text(full(1)))
        self.assertEqual(None, analyse.slices_so_far(path, 2),
                         "slices_so_far: no complete 2 s slice yet")
        path = logs.write(log_text(full(2) + [(RATE, 100), (RATE, 300)] +
                                   full(1)))
        v = analyse.slices_so_far(path, 2)
        self.assertEqual([2, 4], list(v.ends), "slices_so_far: slice ends")
        self.assertEqual([("1 ms", 5.0), ("8 ms", 1.0),
                          ("64 ms", 0.1)],
                         [(x.label, x.limit) for x in v.criteria],
                         "slices_so_far: criteria")
        a = analyse_log(path, Spec(slice_sec=2, check=True))
        self.assertEqual([[], [("reads", 10.0, "1 ms", 5.0)]],
                         list(verdict.slice_overs(a)),
                         "the criteria each slice is over (reads: 10% over 1 "
                         "ms in slice 2)")
        self.assertEqual(([{"name": "reads", "rate": 2000.0, "allowance": 0,
                            "pool": "service"}], [4000, 4000]),
                         (v.load.streams, list(v.load.ops["reads"])),
                         "slices_so_far: the planned streams")
        self.assertEqual((0, [0.0, 1.6]),
                         (v.load.pools["service"]["threads"],
                          [round(x, 6) for x in v.load.busy["service"]]),
                         "slices_so_far: the service threads (unknown)")
        self.assertEqual((1, [("reads", 10.0, "1 ms",
                               5.0)]), v.load.first_failing,
                         "first_failing: slice 2 over 1 ms")
        ok = analyse.slices_so_far(logs.write(log_text(full(4))), 2)
        self.assertEqual(None, ok.load.first_failing,
                         "first_failing: no slice over a limit")
        # slice 2 over a limit but short of the rate; slice 3 catches up (the
        # threads' absolute schedule) and is over a limit too: the first one
        v = analyse.slices_so_far(logs.write(log_text(
            full(2) + [(1000, 500), (1000, 500), (3000, 400), (3000, 400)])),
                                  2)
        self.assertEqual(2, v.load.first_failing[0], "first_failing: a short "
                         "slice is passed over")
        self.assertEqual(((1, "reads", 1500.0, 2000.0, None), 1),
                         (v.load.host.worst, v.load.host.slices),
                         "the short slices: slice 2 (over the run so far)")
        self.assertEqual([1], reads_stream(3600, [2000 * 3600, 1000 * 3600,
                                                  3000 * 3600])[0],
                         "short slices: hour slices are judged alone")
        short, check = reads_stream(1, [2000, 1000, 3000])
        self.assertEqual(([1], (1, "reads", 1500.0, 2000, None)),
                         (short, check.host.worst), "short slices: 1-second "
                         "slices over the run so far")
        ops = [2000] * 60 + [1000, 3000] + [2000] * 7
        self.assertEqual([], reads_stream(1, ops)[0], "short slices: 1-second "
                         "slices over the last minute")
        ops[60:62] = [0, 0]
        self.assertEqual([], reads_stream(1, ops)[0], "short slices: 2 s lost "
                         "in a minute (96.7%)")
        ops[60:64] = [0] * 4
        self.assertEqual(63, reads_stream(1, ops)[0][0],
                         "short slices: 4 s lost in a minute: from the 4th on")

    def test_watch(self):
        logs = self.logs
        st = step(duration=10, slice_sec=2)
        text = log_text(full(5) + [(RATE, 400)] + full(4))
        head = text.split("after 1 sec:")[0]
        blocks = ["after " + b for b in text.split("after ")[1:]]
        path = logs.write(head)
        ff = failfast.FailFast(st, path, analyse.slices_so_far)
        got = []
        for t in range(1, 11):
            with open(path, "a") as f:
                f.write(blocks[t - 1])
            got.append(ff.check(t))
        self.assertEqual([None] * 5 + ["x"] + [None] * 4,
                         ["x" if g else None for g in got],
                         "FailFast: stops at the first failing slice only, "
                         "after 6 s")
        rec = got[5]
        self.assertEqual({
            "slice": 3, "slices": 5, "slice_sec": 2, "end_sec": 6,
            "planned_sec": 10, "over": [["reads", 10.0, "1 ms", 5.0]]},
            rec.to_json(), "FailFast: the record")
        self.assertEqual("stopped after slice 3 of 5 (2 s): reads 10.00% over "
                         "1 ms (must be under 5%) in slice 3 - the verdict "
                         "could not change", failfast.stop_message(rec),
                         "FailFast: the message")
        self.assertEqual("fail fast: stopped after 6 s of 10 s, 4 s saved",
                         failfast.saved_text(rec), "FailFast: the time saved")
        hour = rec.copy(slice_sec=3600, slices=24, end_sec=3 * 3600,
                        planned_sec=86400, over=[["reads", 7.23, "1 ms", 5]])
        self.assertEqual("stopped after hour 3 of 24: reads 7.23% over 1 ms "
                         "(must be under 5%) in hour 3 - the verdict could "
                         "not change", failfast.stop_message(hour),
                         "FailFast: hour slices")
        self.assertEqual("fail fast: stopped after 3 h of 24 h, 21 h saved",
                         failfast.saved_text(hour), "FailFast: hours saved")
        # the last slice: no stop, the run ends anyway
        path = logs.write(log_text(full(8) + [(RATE, 400)] * 2))
        ff = failfast.FailFast(st, path, analyse.slices_so_far)
        self.assertEqual(None, ff.check(10), "FailFast: not on the last slice")
        # a short slice over a limit: the host first
        path = logs.write(log_text(full(2) + [(900, 400)] * 2 + full(6)))
        ff = failfast.FailFast(st, path, analyse.slices_so_far)
        self.assertEqual(None, ff.check(10), "FailFast: not on a short slice")

    def grow(self, st, seconds):
        """FailFast.check after each second of a log of seconds (a trial
        step st) written report by report: the records (None: go on)."""
        text = log_text(seconds, duration=st.duration_sec)
        head = text.split("after 1 sec:")[0]
        blocks = ["after " + b for b in text.split("after ")[1:]]
        path = self.logs.write(head)
        ff = failfast.FailFast(st, path, analyse.slices_so_far)
        got = []
        for t, block in enumerate(blocks, 1):
            with open(path, "a") as f:
                f.write(block)
            got.append(ff.check(t))
        return got, text

    def test_trial(self):
        """A trial is judged - and fails fast - on slices of at least 10 s
        (plan.slice_for): one bad second does not decide it; a real failure
        still stops it at its first slice."""
        st = step(duration=20, slice_sec=plan.slice_for(20))
        # the first second 20% over 1 ms (a start on a busy host), then
        # none: slice 1 (10 s) has 2%
        got, text = self.grow(st, [(RATE, 400)] + full(19))
        self.assertEqual([None] * 20, got, "one bad second: no stop")
        self.assertEqual("PASS", judged(self.logs, text, st)[0],
                         "one bad second: the trial passes")
        # every second 30% over: stopped after its first slice of 10 s
        st = step(duration=30, slice_sec=plan.slice_for(30))
        got, _ = self.grow(st, full(30, 600))
        self.assertEqual([None] * 9 + ["x"], ["x" if g else None
                                              for g in got[:10]],
                         "a real failure: stopped after 10 s")
        self.assertEqual("stopped after slice 1 of 3 (10 s): reads 30.00% "
                         "over 1 ms (must be under 5%) in slice 1 - the "
                         "verdict could not change",
                         failfast.stop_message(got[9]), "the message")

    def test_judge(self):
        logs = self.logs
        partial = log_text(full(5) + [(RATE, 400)] + full(1), stop=SIGINT_LINE)
        rec = FailFastStop(slice=3, slices=5, slice_sec=2, end_sec=6,
                           planned_sec=10, over=[["reads", 20.0, "1 ms", 5.0]])
        want = ("FAIL", "stopped after slice 3 of 5 (2 s): reads 10.00% over "
                "1 ms (must be under 5%) in slice 3 - the verdict could not "
                "change")
        self.assertEqual(want, judged(
                               logs, partial, step(exit_status=130,
                                                   stopped_early=rec)),
                         "judge_step: stopped by fail fast")
        r = judged(logs, partial, step(exit_status=130))
        self.assertEqual("INCOMPLETE", r[0], "judge_step: the same log, no "
                         "fail fast record")
        r = judged(logs, log_text(full(7), stop=SIGINT_LINE),
                   step(exit_status=130, stopped_early=rec))
        self.assertEqual("INCOMPLETE", r[0], "judge_step: a record the log "
                         "does not show")
        caught_up = full(2) + [(1000, 0)] * 2 + [(3000, 0)] * 2 + full(4)
        r = judged(logs, log_text(caught_up), step())
        self.assertEqual((
            "NOT JUDGED", "the host could not issue the load (1500 reads/s of "
            "2000 in slice 2, short of 95% in 1 of 5 slices; try more "
            "service-threads)"), r, "judge_step: a complete run, one slice "
            "short")
        r = judged(logs, log_text(caught_up), step("stress"), stress=True)
        self.assertEqual("NOT JUDGED", r[0], "judge_step: a stress test short")
        r = judged(logs, log_text(full(2) + [(1000, 900)] * 2 +
                                  [(3000, 0)] * 2 + full(4)), step())
        self.assertEqual("NOT JUDGED", r[0], "judge_step: over a limit only "
                         "where short")
        r = judged(logs, log_text(full(2) + [(1000, 900)] * 2 +
                                  [(3000, 0)] * 2 + [(RATE, 400)] * 2 +
                                  full(2)), step())
        self.assertEqual("FAIL", r[0], "judge_step: a full-rate slice over a "
                         "limit: the drive's FAIL")
        r = judged(logs, log_text([(3 * RATE, 0)] * 10), step())
        self.assertEqual(("PASS", None), r, "judge_step: rates above the "
                         "configured ones")
        # 3900 of 4000 ops in slice 1: 97.5%, not short; 3700 is short, but
        # not with 200 threads (one request each may fall on the other side)
        r = judged(logs, log_text([(1900, 0), (2000, 0)] + full(8)), step())
        self.assertEqual(("PASS", None), r, "judge_step: 97.5% of the rate")
        r = judged(logs, log_text([(1700, 0), (2000, 0)] + full(8)), step())
        self.assertEqual("NOT JUDGED", r[0], "judge_step: 92.5% of the rate")
        r = judged(logs, log_text([(1700, 0), (2000, 0)] + full(8),
                                  threads=200), step())
        self.assertEqual(("PASS", None), r, "judge_step: 92.5% with 200 "
                         "service-threads")
        r = judged(logs, log_text(full(3), stop=support.HOST_LAG),
                   step(exit_status=3))
        self.assertEqual(("NOT JUDGED",
                          load.HOST_STOP_TEXT), r, "judge_step: a host-limit "
                         "stop")
        r = judge.judge_step(step(exit_status=3),
                             analyse.StepAnalysis(stop="host-limit"))
        self.assertEqual("NOT JUDGED", r[0], "judge_step: a host-limit stop, "
                         "no analysis")
        r = judged(logs, log_text([(1000, 0)] * 3, stop=support.DRIVE_LAG),
                   step(exit_status=3))
        self.assertEqual("INCOMPLETE", r[0], "judge_step: a drive-limit stop "
                         "stays INCOMPLETE")

    def test_verdict(self):
        st = campaign()
        st.steps[0].update(status="done", result="NOT JUDGED",
                           message="the host could not issue the load (x)")
        st.steps[1].update(status="skipped", message="not run")
        v = judge.campaign_verdict(st)
        self.assertEqual(("not certified", 1, "not certified "
                          "at 30x: test 1 (30x on 1 device) was NOT JUDGED "
                          "(the host could not issue the load)"),
                         (v["status"], v["exit_status"], v["text"]),
                         "verdict: a NOT JUDGED test")
        st = campaign(ceiling=True)
        for s in st.steps:
            s.update(status="done", result="PASS")
        st.steps[3].update(result="NOT JUDGED", message="the host could not "
                           "issue the load (y)")
        v = judge.campaign_verdict(st)
        self.assertEqual(("certified", 0, 60, True,
                          "certified at 30x; ceiling: at least 60x (limited "
                          "by the host: it could not issue 90x)"),
                         (v["status"], v["exit_status"], v["ceiling"],
                          v.get("ceiling_limited_by_host"), v["text"]),
                         "verdict: a NOT JUDGED rung")
        steps = campaign().steps
        steps[0].update(status="done", result="NOT JUDGED")
        self.assertEqual("not run: test 1 (30x on 1 device) did not pass",
                         judge.skip_reason(steps, steps[1]),
                         "skip_reason after a NOT JUDGED test")

    def test_warnings(self):
        steps = plan.plan_steps(["/dev/sdb"], 1, 2.0, 86400, [2, 4], False)
        self.assertEqual([], threads.thread_warnings(steps, 8),
                         "thread_warnings: 2000-8000 reads/s on 8 threads")
        self.assertEqual([
            "warning: steps 2 (2x), 4 (4x) ask each of the 2 service-threads "
            "for more than 1000 reads/s (up to 4000): the host may not issue "
            "the load, and such a step is NOT JUDGED; set service-threads to "
            "at "
            "least 8 in the base config"], threads.thread_warnings(steps, 2),
            "thread_warnings: on 2 threads")
        self.assertEqual([
            "warning: step 4 (4x) asks each of the 10 service-threads for "
            "more than 1000 reads/s (up to 1200): the host may not issue the "
            "load, and such a step is NOT JUDGED; set service-threads to at "
            "least 12 in the base "
            "config"], threads.thread_warnings(steps, 10, True),
            "thread_warnings: act_index reads once per write too")
        self.assertEqual(3, threads.service_threads({"service-threads": "3"}),
                         "service_threads: the program's echo")
        self.assertEqual(None, threads.service_threads({}),
                         "service_threads: none echoed")


if __name__ == "__main__":
    unittest.main()
