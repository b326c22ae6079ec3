#!/usr/bin/env python3
"""Description: act_certify's judging (analysis/act/certify/judge.py),
called directly on hand-made analyses and states, every branch:

- judge_step: act_prep passed / failed; no analysis (the log's last ERROR
  line, the analysis error, or "could not be analysed", with the exit
  status and its meaning - also an unknown one); otherwise act.latency's
  verdict (hand-made): a run that did not complete (its reason, whatever
  the exit status); a PASS or a FAIL on the criteria with a non-zero
  exit status is INCOMPLETE; the host's NOT JUDGED, the drive's FAIL and
  a stop on request's FAIL stand whatever the exit status; PASS; FAIL
  naming each failed criterion.
- skip_reason: nothing failed; a certification step (or act_prep) did not
  pass; the ladder stopped; only the steps before count.
- campaign_verdict, every status: unfinished (each pending text, and no
  test at all), not certified (failed / did not complete; "the first
  device alone passed" for tests 3 and 4), certified without a ceiling,
  and with one: every rung passed, a rung failed (also the first), and the
  ceiling not determined yet; a trial or not.
- host_limited (by the step's kind of stop, "host-limit"), and through
  build_summary (summary.py, on a prepared
  analysis cache, no act_latency.py run) the warnings the review found
  never driven: rejudge finding a changed result, a log that can't be
  analysed now, the host-limited warning, a drive whose identity changed
  between steps, and a campaign resumed on another host.

    python3 tests/python/certify/test_judge.py [-v]
"""

import copy
import os
import sys
import tempfile
import types
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
import support  # noqa: E402,F401  (act on sys.path)
from certstate import make_step, new_state  # noqa: E402

from act.certify import judge, summary  # noqa: E402
from act.certify.analyse import StepAnalysis  # noqa: E402
from act.certify.model import Resume  # noqa: E402
from act.latency import verdict  # noqa: E402
from act.latency.load import HOST_STOP_TEXT  # noqa: E402

LOAD_NOT_KEPT = "stopped: load not kept up or a hung I/O"


def doc(result="PASS", complete=True, stop_reason=None):
    """The act_latency/1 document of an analysis, as the reports read
    it."""
    return {"complete": complete, "stop_reason": stop_reason,
            "ran_sec": 100, "planned_sec": 100,
            "check": {"result": result, "results": []}}


class Analysed:
    """A hand-made act.latency Analysis: what judge_step reads of one -
    its verdict (result, reasons, cause), its slices."""

    def __init__(self, result, reasons=(), cause="criteria"):
        self.verdict = verdict.Verdict(result, tuple(reasons), cause)
        self.slice_sec = 100
        self.header = types.SimpleNamespace(interval=1)
        self.load = None


def analysed(*args, **kw):
    return StepAnalysis(analysis=Analysed(*args, **kw))


def campaign(devices=("/d/a", "/d/b"), ladder=(60, 90, 140), duration=100,
             prep=False):
    return new_state(list(devices), load=30, duration=duration,
                     ladder=ladder, prep=prep)


def mark(state, marks):
    """marks: {step number: (status, result, message)}."""
    for n, (status, result, message) in marks.items():
        state.steps[n - 1].update(status=status, result=result,
                                     message=message)
    return state


P = ("done", "PASS", None)
SKIP = ("skipped", None, "not run")


FIRST_ALONE = ("the first device alone passed tests 1 and 2: the devices "
               "together did not hold the same load per device")
ALL4 = {1: P, 2: P, 3: P, 4: P}


def with_all4(marks):
    """Tests 1-4 passed, and marks."""
    out = dict(ALL4)
    out.update(marks)
    return out


HOST_MSG = ("did not complete: ERROR: could not keep up - the host, not "
            "the drive: set more service-threads")


def ident_lines(dev, serial):
    return ("%s model = M, serial = %s, firmware = F1\n"
            "start time = 2026-11-25T10:00:00Z\n"
            "%s size = 1048576 bytes\nHISTOGRAM NAMES\n" % (dev, serial, dev))


class Judge(unittest.TestCase):
    def test_judge_step(self):
        fails = ["reads 6.50% over 1 ms (must be under 5%)",
                 "reads 1.25% over 8 ms (must be under 1%)"]
        for what, kind, rc, analysis, want in (
                ("act_prep ran to completion", "prep", 0, None, ("PASS",
                                                                 None)),
                ("act_prep failed", "prep", 2, None,
                 ("FAIL", "act_prep exit status 2")),
                ("no analysis at all", "target", None, None,
                 ("INCOMPLETE", "the log could not be analysed")),
                ("no document, no error", "target", 0, StepAnalysis(),
                 ("INCOMPLETE", "the log could not be analysed")),
                ("no document: the analysis error", "target", 0,
                 StepAnalysis(error="no log"), ("INCOMPLETE", "no log")),
                ("no document: the log's last ERROR line wins", "stress", 3,
                 StepAnalysis(error="x", log_errors=["ERROR: first",
                                                     "ERROR: drive stalled"]),
                 ("INCOMPLETE", "exit status 3 (%s): drive stalled"
                  % LOAD_NOT_KEPT)),
                ("no document: a stopped line kept as it is", "stress", 130,
                 StepAnalysis(log_errors=["stopped by signal 2"]),
                 ("INCOMPLETE", "exit status 130 (stopped): stopped by "
                  "signal 2")),
                ("no document: exit status 4", "target", 4,
                 StepAnalysis(error="e"),
                 ("INCOMPLETE", "exit status 4 (stopped by I/O errors): e")),
                ("did not complete: the verdict's reason, whatever the exit "
                 "status", "target", 3,
                 analysed("INCOMPLETE", ["did not complete: could not keep "
                                         "up"], "run"),
                 ("INCOMPLETE", "did not complete: could not keep up")),
                ("complete, but exit status 5", "target", 5,
                 analysed("PASS"),
                 ("INCOMPLETE", "exit status 5 (the log could not be "
                  "written)")),
                ("a FAIL on the criteria, exit status unknown to the table",
                 "target", 9, analysed("FAIL", fails),
                 ("INCOMPLETE", "exit status 9 (stopped)")),
                ("the host's NOT JUDGED stands whatever the exit status",
                 "target", 3, analysed("NOT JUDGED", ["the host could not "
                                                      "issue the load (x)"],
                                       "host"),
                 ("NOT JUDGED", "the host could not issue the load (x)")),
                ("a stop on request's FAIL stands (its exit status 130)",
                 "target", 130, analysed("FAIL", ["stopped on request: y",
                                                  "z"], "request"),
                 ("FAIL", "stopped on request: y; z")),
                ("the drive's FAIL stands", "stress", 3,
                 analysed("FAIL", ["the drive could not take the load (w)"],
                          "drive"),
                 ("FAIL", "the drive could not take the load (w)")),
                ("PASS", "target", 0, analysed("PASS"), ("PASS", None)),
                ("PASS, exit status not recorded", "ceiling", None,
                 analysed("PASS"), ("PASS", None)),
                ("FAIL: each failed criterion", "target", 0,
                 analysed("FAIL", fails), ("FAIL", "; ".join(fails)))):
            self.assertEqual(want,
                             judge.judge_step(make_step(kind=kind,
                                                        exit_status=rc,
                                                        judge="criteria"),
                                              analysis),
                             "judge_step: %s" % what)
        self.assertEqual("reads 0.00% over 1ms (must be under 0%)",
                         verdict.criterion_text({"histogram": "reads",
                                                 "threshold": "1ms"}),
                         "criterion_text with no figures")

    def test_skip_reason(self):
        # two devices, ladder 60 (step 4's run), 90, 140: steps 1-7
        for what, marks, n, want in (
                ("nothing ran yet", {}, 3, None),
                ("tests 1 and 2 passed", {1: P, 2: P}, 3, None),
                ("test 1 failed", {1: ("done", "FAIL", "m")}, 3,
                 "not run: test 1 (30x on 1 device) did not pass"),
                ("test 2 did not complete", {1: P, 2: ("done", "INCOMPLETE",
                                                       "m")},
                 6, "not run: test 2 (60x on 1 device) did not pass"),
                ("an interrupted step is no failure",
                 {1: ("interrupted", None, "m")}, 2, None),
                ("a failure after the step does not count",
                 {1: P, 2: P, 3: P, 4: ("done", "FAIL", "m")}, 3, None),
                ("the ladder stopped", {1: P, 2: P, 3: P, 4: P, 5: P,
                                        6: ("done", "FAIL", "m")}, 7,
                 "not run: the ladder stopped at 90x"),
                ("a failed rung on the rung itself", {1: P, 2: P, 3: P, 4: P,
                                                      5: ("done", "FAIL",
                                                          "m")},
                 5, None)):
            st = mark(campaign(), marks)
            self.assertEqual(want,
                             judge.skip_reason(st.steps, st.steps[n - 1]),
                             "skip_reason: %s (step %d)" % (what, n))
        st = mark(campaign(prep=True), {1: ("done", "FAIL", "act_prep exit "
                                             "status 2")})
        self.assertEqual("not run: act_prep did not pass",
                         judge.skip_reason(st.steps, st.steps[1]),
                         "skip_reason: act_prep failed")

    def test_verdict(self):
        def v(what, state, want):
            got = judge.campaign_verdict(state)
            self.assertEqual(want, {k: got.get(k) for k in want},
                             "campaign_verdict: %s" % what)

        unfinished = "not finished: step %d, %s, %s"
        for status, text in (("planned", "has not run yet"),
                             ("running", "is running"),
                             ("interrupted", "was interrupted"),
                             ("error", "stopped with an error"),
                             ("odd", "odd")):
            v("unfinished, step 2 %s" % status,
              mark(campaign(), {1: P, 2: (status, None, None)}),
              {"status": "unfinished", "exit_status": 1, "certified": None,
               "ceiling": None, "reasons": [],
               "text": unfinished % (2, "test 2 (60x on 1 device)", text)})
        v("unfinished: no test at all", campaign(ladder=()).copy(steps=[]),
          {"status": "unfinished", "text": "not finished: no test ran"})
        v("unfinished: act_prep passed, nothing else yet",
          mark(campaign(prep=True), {1: P}),
          {"status": "unfinished", "text": unfinished
           % (2, "test 1 (30x on 1 device)", "has not run yet")})

        v("test 1 failed", mark(campaign(), {1: ("done", "FAIL", "reads 6.50% "
                                                "over 1ms")}),
          {"status": "not certified", "certified": False, "exit_status": 1,
           "ceiling": None,
           "text": "not certified at 30x: test 1 (30x on 1 device) failed",
           "reasons": ["test 1 (30x on 1 device): reads 6.50% over 1ms"]})
        v("test 2 did not complete, no message",
          mark(campaign(), {1: P, 2: ("done", "INCOMPLETE", None)}),
          {"status": "not certified", "text": "not certified at 30x: test 2 "
           "(60x on 1 device) did not complete",
           "reasons": ["test 2 (60x on 1 device): INCOMPLETE"]})
        v("test 3 failed after tests 1 and 2 passed",
          mark(campaign(), {1: P, 2: P, 3: ("done", "FAIL", "m")}),
          {"status": "not certified", "text": "not certified at 30x: test 3 "
           "(30x on 2 devices) failed",
           "reasons": ["test 3 (30x on 2 devices): m", FIRST_ALONE]})
        v("test 4 did not complete after tests 1-3 passed",
          mark(campaign(), {1: P, 2: P, 3: P, 4: ("done", "INCOMPLETE", "m")}),
          {"status": "not certified",
           "reasons": ["test 4 (60x on 2 devices): m", FIRST_ALONE]})
        v("act_prep failed", mark(campaign(prep=True), {
            1: ("done", "FAIL", "act_prep exit status 2")}),
          {"status": "not certified", "text": "not certified at 30x: act_prep "
           "failed", "reasons": ["act_prep: act_prep exit status 2"]})
        v("a failed rung is no failed certification",
          mark(campaign(), with_all4({5: ("done", "FAIL", "m")})),
          {"status": "certified", "certified": True, "exit_status": 0})

        no_ladder = campaign(ladder=())
        v("certified, no ceiling", mark(no_ladder, ALL4),
          {"status": "certified", "certified": True, "exit_status": 0,
           "ceiling": None, "ceiling_exceeds_ladder": False, "reasons": [],
           "text": "certified at 30x", "trial": True, "load": 30})
        v("one device, certified after 24-hour tests: not a trial",
          mark(campaign(devices=("/d/a",), ladder=(), duration=86400),
               {1: P, 2: P}),
          {"status": "certified", "trial": False})
        v("every rung passed",
          mark(campaign(), with_all4({5: P, 6: P, 7: P})),
          {"status": "certified", "ceiling": 140,
           "ceiling_exceeds_ladder": True, "reasons": [],
           "text": "certified at 30x; ceiling: at least 140x (every load of "
                   "the ladder passed)"})
        v("the rung at 90x failed",
          mark(campaign(), with_all4({5: P, 6: ("done", "FAIL", "m"),
                                         7: SKIP})),
          {"status": "certified", "exit_status": 0, "ceiling": 60,
           "ceiling_exceeds_ladder": False,
           "text": "certified at 30x; ceiling: 60x",
           "reasons": ["the ladder stopped at 90x (step 6): m"]})
        v("the first rung failed, without a message",
          mark(campaign(), with_all4({5: ("done", "INCOMPLETE", None),
                                         6: SKIP, 7: SKIP})),
          {"ceiling": 30, "text": "certified at 30x; ceiling: 30x",
           "reasons": ["the ladder stopped at 60x (step 5): INCOMPLETE"]})
        for status in ("planned", "running", "interrupted"):
            v("ceiling not determined yet (rung 90x %s)" % status,
              mark(campaign(), with_all4({5: P, 6: (status, None, None)})),
              {"status": "certified", "ceiling": None, "exit_status": 0,
               "ceiling_exceeds_ladder": False, "reasons": [],
               "text": "certified at 30x; ceiling: not determined yet (at "
                       "least 60x so far)"})

    def test_host_limited(self):
        """The kind of stop of each step's log (RunEnd.stop) decides, not the
        words of its message."""
        st = mark(campaign(), {1: ("done", "INCOMPLETE", HOST_MSG),
                               2: ("done", "INCOMPLETE", "more cache-threads"),
                               3: ("done", "INCOMPLETE", "drive stalled"),
                               4: ("interrupted", None, HOST_MSG),
                               5: ("done", "PASS", None),
                               6: ("done", "INCOMPLETE", HOST_MSG)})
        for n, stop in ((1, "host-limit"), (2, "host-limit"), (3,
                                                               "drive-limit"),
                        (4, "host-limit"), (5, None), (6, "hung-io")):
            st.steps[n - 1].stop = stop
        self.assertEqual([1, 2],
                         [s.number for s in judge.host_limited(st.steps)],
                         "host_limited: the steps the host stopped")

    def test_summary_warnings(self):
        """build_summary on a state whose analyses are in the cache: the
        warnings of rejudge and of the report."""
        with tempfile.TemporaryDirectory(prefix="act-judge-test-") as td:
            st = campaign(devices=("/d/a",), ladder=(60,))
            # steps: 1 test 1, 2 test 2 (stress 60x), 3 rung 60x on 2's run
            st.update(status="finished", command=["act_certify.py"],
                      created_at="2026-11-25T09:59:00Z", ended_at=None,
                      host={"hostname": "h1"},
                      resumes=[Resume(at="2026-11-25T11:00:00Z",
                                      host={"hostname": "h1"}),
                               Resume(at="2026-11-25T12:00:00Z",
                                      host={"hostname": "h2"})])
            st.campaign.update(program="act_storage", devices=["/d/a"],
                               device_kinds={"/d/a": "block"},
                               base_config_path="/c/b.conf", stress_factor=2,
                               prep=False, ladder=[60])
            for n, serial in ((1, "S1"), (2, "S2")):
                with open(os.path.join(td, st.steps[n - 1].files["log"]),
                          "w") as f:
                    f.write(ident_lines("/d/a", serial))
            for s in st.steps:
                s.update(status="done", exit_status=0)
            st.steps[0].result = "FAIL"       # as recorded when it ran
            st.steps[1].update(result="NOT JUDGED", exit_status=3)
            st.steps[2].result = "PASS"
            cache = {}
            for s, a in ((st.steps[0], StepAnalysis(
                              analysis=Analysed("PASS"), doc=doc("PASS"))),
                         (st.steps[1], StepAnalysis(
                             analysis=Analysed("NOT JUDGED", [HOST_STOP_TEXT],
                                               "host"), doc=doc(
                             "FAIL", False, stop_reason="ERROR: could not "
                                                        "keep "
                             "up - the host, not the drive"),
                             stop="host-limit")),
                         (st.steps[2], StepAnalysis(error="no log"))):
                src = st.steps[s.same_run_as - 1] if s.same_run_as \
                    else s
                fs = os.stat(os.path.join(td, src.files["log"]))
                cache[(s.number, fs.st_size, fs.st_mtime_ns)] = a
            before = copy.deepcopy(st)
            warnings = judge.rejudge(td, st, cache)
            self.assertEqual([
                "step 1: judged PASS from its log now, was FAIL when it ran",
                "step 3: its log can't be analysed now (no log); its recorded "
                "result is shown"], warnings, "rejudge: the warnings")
            self.assertEqual(["PASS", "NOT JUDGED", "PASS"],
                             [s.result for s in st.steps],
                             "rejudge: the new results")
            self.assertEqual("the host could not issue the load (act stopped: "
                             "it can't do the requested load; try more "
                             "service-threads)", st.steps[1].message,
                             "rejudge: the new message of step 2")
            s = summary.build_summary(td, before, cache)
            self.assertEqual([
                "step 1: judged PASS from its log now, was FAIL when it ran",
                "step 3: its log can't be analysed now (no log); its recorded "
                "result is shown",
                "device /d/a reported a different identity in step 2 - was "
                "the drive changed?",
                # step 3 is judged on step 2's log: its identity again
                "device /d/a reported a different identity in step 3 - was "
                "the drive changed?",
                "step 2 stopped because the host could not keep the load, not "
                "the drive: raise service-threads (or cache-threads) in the "
                "base config and run it again",
                "resumed on another host (h2)"], s["warnings"],
                "build_summary: the warnings")
            self.assertEqual([{
                "device": "/d/a", "kind": "block", "model": "M",
                               "serial": "S1",
                "firmware": "F1", "size_bytes": 1048576,
                "recorded_identity": "not recorded"}], s["drives"],
                "build_summary: the drive (its first identity)")
            self.assertEqual("not certified at 30x: test 2 (60x on 1 device) "
                             "was NOT JUDGED (the host could not issue the "
                             "load)", s["verdict"]["text"],
                             "build_summary: the verdict")


if __name__ == "__main__":
    unittest.main()
