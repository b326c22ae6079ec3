#!/usr/bin/env python3
"""Description: act_certify names the failing drive of a step of several
devices (docs/certify.md, "Each drive on its own"), on a two-drive
campaign of 120-second steps (12-second slices) whose logs are synthetic
(synthlog.drives_log) - /dev/b 8% over 1 ms in slice 3, /dev/a 0.4%, so
that both together (4.2%) pass:

- test 3 (target, both drives) is FAIL with the message act_latency.py
  --check --json gives ("/dev/b: reads 8.00% over 1 ms (must be under
  5%) in slice 3; the other: 0.40%"); the campaign is not certified, its
  reasons name /dev/b (tested only with the others, it failed on its
  own); test 4 (stress) passes, /dev/b's FAIL shown for
  information; tests 1 and 2 (one device) have no drives;
- summary.json: steps[].drives (each drive's result and figures, its own
  histogram /dev/b-reads named) and drives_failed; summary.md and
  report.html: a table per drive in tests 3 and 4 (/dev/b-reads in
  report.html), the steps table's result "FAIL (drive /dev/b)";
- while test 3 runs (40 s of its log): summary.json's running step names
  /dev/b as failing, the live report keeps it and the progress line says
  "FAIL: /dev/b"; fail fast stops the step at slice 3, on /dev/b's own
  histogram, and the stopped step is FAIL naming /dev/b-reads;
- the fleet page (--compare) of this campaign and a good one: the
  campaign's failing drives, and in the group of test 3 the result
  "FAIL (drive /dev/b)", in compare.json, compare.md and compare.html.

    python3 tests/python/certify/test_drives.py [-v]
"""

import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
import support  # noqa: E402
import synthlog  # noqa: E402
from certstate import new_state  # noqa: E402

from act.certify import compare_html, compare_markdown  # noqa: E402
from act.certify import judge, publish, watch  # noqa: E402
from act.certify.analyse import analyse_step_log, slices_so_far  # noqa
from act.certify.compare import compare_campaigns  # noqa: E402
from act.certify.failfast import FailFast, request_reason  # noqa: E402
from act.certify.state import save_state  # noqa: E402

TWO = ["/dev/a", "/dev/b"]
REASON = ("/dev/b: reads 8.00% over 1 ms (must be under 5%) in slice 3; "
          "the other: 0.40%")


def slow_b(dev, sec):
    return 8.0 if dev == "/dev/b" and 24 < sec <= 36 else 0.4


def fine(dev, sec):
    return 0.4


def step_log(step, over, ran=None, stop=()):
    return synthlog.text(synthlog.drives_log(
        step.devices, over, seconds=step.duration_sec, ran=ran,
        rate=1000, stop=stop))


class Campaign(support.TempDir):
    PREFIX = "act-drives-test-"

    def campaign(self, name, over, status="finished"):
        d = os.path.join(self.td, name)
        os.mkdir(d)
        st = new_state(TWO, load=1, duration=120, status=status)
        for s in st.steps:
            support.make(os.path.join(d, s.files["log"]), step_log(s, over))
            s.update(status="done", result="PASS", exit_status=0)
        st.ended_at = "2026-01-01T00:00:00Z"
        save_state(d, st)
        return d, st

    def test_report(self):
        d, st = self.campaign("bad", slow_b)
        s = publish.write_reports(d, st, {})
        doc = json.loads(support.read(os.path.join(d, "summary.json")))
        steps = doc["steps"]
        self.assertEqual(["PASS", "PASS", "FAIL", "PASS"],
                         [x["result"] for x in steps])
        self.assertEqual(REASON, steps[2]["message"])
        self.assertEqual([[], [], ["PASS", "FAIL"], ["PASS", "FAIL"]],
                         [[d_["result"] for d_ in x["drives"]]
                          for x in steps])
        self.assertEqual([None, None, REASON, REASON],
                         [x["drives_failed"] for x in steps])
        fig = steps[2]["drives"][1]["figures"][0]
        self.assertEqual(("/dev/b-reads", 8.0, "slice 3", False),
                         (fig["name"], fig["max_pct"], fig["where"],
                          fig["pass"]))
        self.assertEqual("not certified", s["verdict"]["status"])
        self.assertIn(REASON, " ".join(s["verdict"]["reasons"]))
        self.assertIn("the first device alone passed tests 1 and 2: /dev/b, "
                      "tested only with the others, failed on its own",
                      s["verdict"]["reasons"])
        # the message is act_latency.py's
        code, out, err = support.run_latency(
            ["-l", os.path.join(d, st.steps[2].files["log"]), "-t", "12",
             "--check", "--json"])
        self.assertEqual([REASON], json.loads(out)["check"]["reasons"])
        self.assertEqual(("FAIL", REASON), judge.judge_step(
            st.steps[2], analyse_step_log(d, st, st.steps[2], plot=False)))

        md = support.read(os.path.join(d, "summary.md"))
        self.assertIn("| 3 | test 3: target | 1x | 2 | 2 min of 2 min | "
                      "FAIL (drive /dev/b) |", md)
        self.assertIn("## Step 3 (test 3: target): each drive on its own\n\n"
                      "| drive | histogram | max % over 1 ms | max % over 8 "
                      "ms | max % over 64 ms | result |\n"
                      "|---|---|---|---|---|---|\n"
                      "| /dev/a | /dev/a-reads | 0.40 (slice 1) | 0.00 "
                      "(slice 1) | 0.00 (slice 1) | PASS |\n"
                      "| /dev/b | /dev/b-reads | 8.00 (slice 3) | 0.00 "
                      "(slice 1) | 0.00 (slice 1) | FAIL |\n", md)
        self.assertIn("## Step 4 (test 4: stress): each drive", md)
        self.assertNotIn("## Step 1 ", md)
        page = support.read(os.path.join(d, "report.html"))
        self.assertEqual(2, page.count("<td>/dev/b-reads</td>"))
        self.assertIn('<table class="drives" id="drives-3">', page)
        self.assertIn('<span class="FAIL">FAIL (drive /dev/b)</span>', page)

    def test_live_and_fail_fast(self):
        d, st = self.campaign("live", slow_b, status="running")
        s3, s4 = st.steps[2], st.steps[3]
        log = os.path.join(d, s3.files["log"])
        support.make(log, step_log(s3, slow_b, ran=40))
        s3.update(status="running", result=None, exit_status=None)
        s4.update(status="planned", result=None, exit_status=None)
        live = watch.LiveReport(d, st, s3, {})
        live.write(40)
        self.assertEqual(("/dev/b",), live.failing)
        doc = json.loads(support.read(os.path.join(d, "summary.json")))
        self.assertEqual(["/dev/b"], doc["running"]["failing_drives"])
        p = watch.Progress()
        p.watch(live)
        line = watch.progress_variants(s3, 4, 40, None, 80, None,
                                       live.failing)[0]
        self.assertTrue(line.endswith("  FAIL: /dev/b over a limit"), line)
        # fail fast: the slice over a limit is /dev/b's alone
        ff = FailFast(s3, log, slices_so_far)
        rec = ff.check(40)
        self.assertEqual((3, [["/dev/b-reads", 8.0, "1 ms", 5.0]]),
                         (rec.slice, rec.over))
        support.make(log, step_log(s3, slow_b, ran=36, stop=[
            synthlog.stop_request(request_reason(rec), 36)]))
        s3.update(status="done", exit_status=130, stopped_early=rec)
        result, message = judge.judge_step(
            s3, analyse_step_log(d, st, s3, plot=False))
        self.assertEqual("FAIL", result)
        self.assertIn("/dev/b-reads 8.00% over 1 ms (must be under 5%) in "
                      "slice 3", message)

    def test_fleet_page(self):
        bad, st = self.campaign("bad", slow_b)
        publish.write_reports(bad, st, {})
        good, st2 = self.campaign("good", fine)
        publish.write_reports(good, st2, {})
        doc = compare_campaigns([bad, good])
        rows = {r["label"]: r for r in doc["campaigns"]}
        self.assertEqual(["step 3: " + REASON, "step 4: " + REASON],
                         rows["bad"]["failing_drives"])
        self.assertEqual([], rows["good"]["failing_drives"])
        group = [g for g in doc["steps"] if g["key"][1] == 3][0]
        self.assertEqual((["/dev/b"], []),
                         (group["campaigns"]["bad"]["failing_drives"],
                          group["campaigns"]["good"]["failing_drives"]))
        md = compare_markdown.render_markdown(doc)
        self.assertIn("| bad | 3 | FAIL (drive /dev/b) |", md)
        self.assertIn("| step 3: " + REASON + "; step 4: " + REASON + " |",
                      md)
        page = compare_html.render_html(doc)
        self.assertIn('<span class="FAIL">FAIL (drive /dev/b)</span>', page)
        self.assertIn("step 3: " + REASON.replace("&", "&amp;"), page)


if __name__ == "__main__":
    unittest.main()
