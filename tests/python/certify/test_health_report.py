#!/usr/bin/env python3
"""Description: the drives' health in act_certify's reports
(analysis/act/certify/health_report.py, judge.py, cells.py, summary.py,
html.py, markdown.py, compare*.py, plan.py, precheck.py), on campaigns
whose step logs are synthetic (tests/lib/synthlog.py's health lines on
support's small logs), analysed in-process:

- a step whose drive's temperature ramps and throttles: summary.json's
  step health (start and end samples, max temperature, throttle seconds
  and transitions, bytes written, WAF, the chart's points), the step's
  part of report.html (the table's rows and changes, the throttle note,
  an inline SVG chart whose temperature line has exactly the samples'
  (t, C) points, whose throttled spans are shaded, and whose reads line
  has exactly the trend's slices), summary.md's lines;
- a media error in step 2: the step is "PASS with drive health warnings"
  (never plainly PASS) in summary.json's result_text, the step tables,
  its heading and the line act_certify prints; the campaign "certified
  with drive health warnings", exit 4; with failed I/Os as well
  "certified with I/O errors and drive health warnings", exit 3; a
  campaign not certified names the warnings; a step judged from another
  step's run does not count them twice;
- a failing slice while the drive throttled: the step's message, the
  reasons under the verdict (report.html's verdict box, summary.md) and
  summary.json name the throttling;
- a drive with no health data: one line in its source line's words, no
  chart; a log without health lines: no health part at all;
- the campaign's drives' health at its start and end (first and last
  samples over the steps), and the fleet page's max temperature and WAF
  per drive (compare.json, compare.md, compare.html);
- state.json: a step's health_warnings kept (model.Step), an old
  state.json (no such key) still loads and is written back byte for
  byte, a bad value is damage;
- the health interval: plan.health_interval's rule, and check_campaign
  giving a short step --set health-interval-sec=N only when the program
  knows the item and the base config does not set it.

    python3 tests/python/certify/test_health_report.py [-v]
"""

import json
import os
import re
import stat
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import support  # noqa: E402
import synthlog  # noqa: E402
from certstate import new_state  # noqa: E402

from act.certify import (  # noqa: E402
    EXIT_HEALTH, EXIT_IO_ERRORS, compare, compare_html, compare_markdown,
    health_report, html, judge, markdown, plan, precheck, runner, summary)
from act.certify.model import Damaged, State  # noqa: E402
from act.certify.state import save_state  # noqa: E402

SECS = 20                       # a step's run (a trial: its slices are
                                # act_certify's, plan.slice_for)
THROTTLE_AT = 70


def ramp(t):
    return min(40 + 3 * t, 85)


def media_error(t):
    return 1 if t >= 5 else 0


def header_lines(over):
    text = support.header(duration=SECS, reads_per_sec=100 + over)
    return text.rstrip("\n").split("\n")


def reports(over):
    """The reports of SECS seconds: each second 100 reads and writes under
    1 ms and over(t) over it."""
    done = 0
    text = ""
    for t in range(1, SECS + 1):
        done += over(t)
        text += support.report(t, {n: {0: 100 * t, 3: done}
                                   for n in ("reads", "writes")})
    return text


def step_log(health=True, source="nvme smart log, ocp log c0h",
             over=lambda t: 1, **series):
    """A SECS-second act_storage log of one device with its health lines
    (health_series's keywords); health False: none at all. over(t): the
    reads over 1 ms in second t (of 100 + 1)."""
    lines = header_lines(1)
    dev = next(x.split(" model = ")[0] for x in lines if " model = " in x)
    body = reports(over).split("\n")
    if not health:
        return dev, "\n".join(lines + body)
    i = next(k for k, x in enumerate(lines) if " model = " in x)
    if source.startswith("none"):
        lines.insert(i + 1, synthlog.health_source(dev, source))
        return dev, "\n".join(lines + body)
    start, samples = synthlog.health_series(dev, range(1, SECS + 1),
                                            **series)
    lines[i + 1:i + 1] = [synthlog.health_source(dev, source), start]
    return dev, "\n".join(lines + synthlog.with_health(body, samples))


DEVICE = step_log()[0]           # the device of the logs


class Campaign(support.TempDir):
    """A finished campaign on one device (test 1, test 2) whose logs are
    written by the test."""

    def campaign(self, logs, results=("PASS", "PASS")):
        state = new_state([DEVICE], duration=SECS)
        for step, text, result in zip(state.steps, logs, results):
            with open(os.path.join(self.td, step.files["log"]), "w") as f:
                f.write(text)
            step.update(status="done", result=result, exit_status=0)
        state.status = "finished"
        return state

    def summarize(self, state):
        s = summary.build_summary(self.td, state, {})
        return s, html.render_html(s), markdown.render_markdown(s)


def _polyline(page, cls):
    m = re.search(r'<polyline class="%s"[^>]*data-values="([^"]*)"' % cls,
                  page)
    return m.group(1) if m else None


class StepHealth(Campaign):

    def setUp(self):
        super().setUp()
        self.dev, log1 = step_log(temp=ramp, throttle=THROTTLE_AT, waf=1.5)
        _, log2 = step_log(temp=45, media_errors=media_error)
        self.s, self.page, self.md = self.summarize(self.campaign(
            [log1, log2]))
        self.st = self.s["steps"][0]

    def test_summary_json(self):
        d = self.st["health"]["drives"][0]
        json.dumps(self.s)                  # summary.json can hold it
        hot = [t for t in range(1, SECS + 1) if ramp(t) >= THROTTLE_AT]
        self.assertEqual(
            (self.dev, True, 40, ramp(SECS), max(ramp(t) for t in
                                                  range(SECS + 1)),
             len(hot), 1, 10 * SECS * 512000, 1.5, []),
            (d["device"], d["readable"], d["start"]["temp_c"],
             d["end"]["temp_c"], d["max_temp_c"], d["throttle_sec"],
             d["throttle_transitions"], d["bytes_written"],
             round(d["waf"], 3), d["problems"]))
        self.assertEqual([[0.0, 40, 0]] + [
            [t + 0.002, ramp(t), len([h for h in hot if h <= t])]
            for t in range(1, SECS + 1)],
            [[round(p[0], 3), p[1], p[2]] for p in d["samples"]],
            "the chart's points: every sample, the start one at 0")
        self.assertEqual("the drive throttled %d s at %d C"
                         % (len(hot), ramp(SECS)), d["throttle_note"])
        self.assertEqual([], self.st["health_warnings"])
        self.assertEqual("PASS", self.st["result_text"])

    def test_chart(self):
        part = self.page[self.page.index('id="health-1"'):
                         self.page.index('id="health-2"')]
        self.assertIn('<svg xmlns="http://www.w3.org/2000/svg" '
                      'class="health"', part)
        self.assertEqual(" ".join(["0:40"] + ["%g:%d" % (t + 0.002, ramp(t))
                                              for t in range(1, SECS + 1)]),
                         _polyline(part, "temp"),
                         "the temperature line: the samples' points")
        series = self.st["trend"]["series"]
        self.assertEqual(SECS // self.st["slice_sec"], len(series))
        self.assertEqual(" ".join("%g:%g" % (p["end_sec"], p["pct"])
                                  for p in series), _polyline(part, "reads"),
                         "the reads over 1 ms: the slices, same time axis")
        spans = re.findall(r'class="throttle" data-device="[^"]*" '
                           r'data-from="([^"]*)" data-to="([^"]*)"', part)
        first_hot = min(t for t in range(1, SECS + 1)
                        if ramp(t) >= THROTTLE_AT)
        self.assertEqual([(first_hot - 1 + 0.002, SECS + 0.002)],
                         [(float(a), float(b)) for a, b in spans],
                         "one shaded span: from the second it began to "
                         "throttle to the last sample")
        self.assertIn("WCTEMP 70 C", part)

    def test_tables(self):
        part = self.page[self.page.index('id="health-1"'):]
        for row in ("<td>temperature</td><td class=\"num\">40 C</td>"
                    "<td class=\"num\">%d C</td><td class=\"num\">max %d C"
                    % (ramp(SECS), ramp(SECS)),
                    "<td>physical data written (OCP)</td>",
                    "WAF 1.50", "the drive throttled"):
            self.assertIn(row, part)
        d2 = self.s["steps"][1]["health"]["drives"][0]
        rows = {r[0]: r[1:] for r in health_report.delta_rows(d2)}
        self.assertEqual(("0", "1", "+1"),
                         rows["media and data integrity errors"])
        self.assertEqual(("100%", "100%", "+0%"), rows["available spare"])
        self.assertIn("## Drive health", self.md)
        self.assertIn("- step 1: %s (nvme smart log, ocp log c0h): 40 -> %d "
                      "C (max %d C), throttled" % (
                          self.dev, ramp(SECS), ramp(SECS)), self.md)

    def test_media_error_step(self):
        st = self.s["steps"][1]
        want = ["%s: 1 new media error (0 -> 1)" % self.dev]
        self.assertEqual(("PASS", want, "PASS with drive health warnings"),
                         (st["result"], st["health_warnings"],
                          st["result_text"]))
        v = self.s["verdict"]
        self.assertEqual(("certified with drive health warnings",
                          EXIT_HEALTH), (v["status"], v["exit_status"]))
        self.assertIn("certified with drive health warnings at 1x",
                      v["headline"])
        self.assertTrue(any("step 2: %s" % want[0] in r
                            for r in v["reasons"]), v["reasons"])
        self.assertIn('<span class="WARNINGS">PASS with drive health '
                      'warnings</span>', self.page)
        self.assertIn("<h3>Step 2: %s - <span class=\"WARNINGS\">PASS with "
                      "drive health warnings" % st["title"], self.page)
        self.assertIn("| PASS with drive health warnings |", self.md)
        self.assertIn("problem:** %s" % want[0][len(self.dev) + 2:],
                      self.md)

    def test_campaign_health(self):
        h = self.s["health"]
        self.assertEqual(1, len(h))
        self.assertEqual((self.dev, 1, 40, 2, 45, 1),
                         (h[0]["device"], h[0]["start_step"],
                          h[0]["start"]["temp_c"], h[0]["end_step"],
                          h[0]["end"]["temp_c"], h[0]["end"]["media_errors"]))
        self.assertIn('<table id="health">', self.page)
        self.assertIn("at the start (step 1): temp 40 C", self.md)


class Statuses(Campaign):

    def test_step_line_and_state(self):
        _, log = step_log(temp=45, media_errors=media_error)
        state = self.campaign([log, log])
        summary.build_summary(self.td, state, {})     # judged again
        st = state.steps[0]
        self.assertEqual(["%s: 1 new media error (0 -> 1)"
                          % DEVICE], list(st.health_warnings))
        self.assertIn(": PASS with drive health warnings - ",
                      runner.step_line(st))
        again = State.from_json(json.loads(json.dumps(state.to_json())))
        self.assertEqual(st.health_warnings,
                         again.steps[0].health_warnings)

    def verdict(self, io=(), health=(), failed=None, same_run=False):
        state = new_state(["/d/a"], duration=SECS, ladder=[4, 6])
        for st in state.steps:
            st.update(status="done", result="PASS", exit_status=0)
        for n in io:
            state.steps[n - 1].io_errors = 2
        for n in health:
            state.steps[n - 1].health_warnings = ["/d/a: 1 new media error "
                                                  "(0 -> 1)"]
        if failed:
            state.steps[failed - 1].update(result="FAIL", message="x")
        if same_run:
            state.steps[3].same_run_as = 2
        return judge.campaign_verdict(state)

    def test_campaign_statuses(self):
        v = self.verdict(health=[2])
        self.assertEqual(("certified with drive health warnings",
                          EXIT_HEALTH, "certified with drive health warnings "
                          "at 1x; ceiling: at least 6x (every load of the "
                          "ladder passed)"),
                         (v["status"], v["exit_status"], v["text"]))
        v = self.verdict(io=[1], health=[2])
        self.assertEqual(("certified with I/O errors and drive health "
                          "warnings", EXIT_IO_ERRORS),
                         (v["status"], v["exit_status"]))
        self.assertEqual(2, len(v["reasons"]))
        v = self.verdict(io=[1])
        self.assertEqual(("certified with I/O errors", EXIT_IO_ERRORS),
                         (v["status"], v["exit_status"]))
        v = self.verdict()
        self.assertEqual(("certified", 0), (v["status"], v["exit_status"]))
        v = self.verdict(health=[1], failed=2)
        self.assertEqual("not certified", v["status"])
        self.assertIn("drive health warnings (step 1: /d/a: 1 new media "
                      "error (0 -> 1))", v["reasons"])
        v = self.verdict(health=[4], same_run=True)
        self.assertEqual("certified", v["status"],
                         "a step judged from another's run: that run's")

    def test_throttling_named_in_a_failure(self):
        # the worst slices late in the run, when the drive is hot
        _, log = step_log(over=lambda t: 1 if t <= SECS // 2 else 20,
                          temp=ramp, throttle=THROTTLE_AT)
        s, page, md = self.summarize(self.campaign([log, log],
                                                   ("FAIL", "PASS")))
        st = s["steps"][0]
        self.assertEqual("FAIL", st["result"])
        self.assertIn("throttled", st["message"] or "",
                      "the failing step's message names the throttling")
        reason = next(r for r in s["verdict"]["reasons"]
                      if r.startswith("test 1"))
        self.assertIn("throttled", reason)
        box = page[page.index('id="verdict"'):page.index("</div></div>")]
        self.assertIn("throttled", box, "the report's verdict box")
        self.assertIn("throttled", md.split("\n\n")[1])

    def test_no_health_data(self):
        dev, log = step_log(source="none (a regular file)")
        _, plain = step_log(health=False)
        s, page, md = self.summarize(self.campaign([log, plain]))
        self.assertEqual({"device": dev, "source": "none (a regular file)",
                          "readable": False, "none_text": "%s: no drive "
                          "health (a regular file)" % dev},
                         s["steps"][0]["health"]["drives"][0])
        self.assertIn("<p class=\"muted\">%s: no drive health (a regular "
                      "file)</p>" % dev, page)
        self.assertNotIn('class="health"', page.split('id="health-1"')[1],
                         "no chart for a drive with no data")
        self.assertIsNone(s["steps"][1]["health"], "a log without health "
                          "lines")
        self.assertNotIn('id="health-2"', page)
        self.assertEqual([], s["health"])
        self.assertIn("- step 1: %s: no drive health (a regular file)"
                      % dev, md)


class Fleet(Campaign):

    def test_max_temp_and_waf(self):
        self.root = self.td
        dirs = []
        for name, series in (("hot", dict(temp=ramp, waf=2.0)),
                             ("cool", dict(temp=41))):
            self.td = os.path.join(self.root, name)
            os.mkdir(self.td, 0o700)
            _, log = step_log(**series)
            state = self.campaign([log, log])
            save_state(self.td, state)
            dirs.append(self.td)
        doc = compare.compare_campaigns(dirs)
        hot, cool = [r["drives"][0] for r in doc["campaigns"]]
        self.assertEqual((ramp(SECS), 2.0, 41, None),
                         (hot["max_temp_c"], hot["waf"], cool["max_temp_c"],
                          cool["waf"]))
        md = compare_markdown.render_markdown(doc)
        page = compare_html.render_html(doc)
        for text in ("%s: max %d C, WAF 2.00" % (DEVICE, ramp(SECS)),
                     "%s: max 41 C, WAF -" % DEVICE):
            self.assertIn(text, md)
            self.assertIn(text, page)


class OldState(unittest.TestCase):

    def test_old_and_new(self):
        with open(os.path.join(HERE, "fixtures", "ioerrors.json")) as f:
            text = f.read()
        state = State.from_json(json.loads(text))
        self.assertEqual([()] * len(state.steps),
                         [s.health_warnings for s in state.steps])
        self.assertEqual(text.rstrip("\n"), json.dumps(state.to_json(),
                                                       indent=1))
        doc = json.loads(text)
        doc["steps"][0]["health_warnings"] = ["/d/a: x"]
        self.assertEqual(["/d/a: x"],
                         State.from_json(doc).steps[0].health_warnings)
        doc["steps"][0]["health_warnings"] = "x"
        with self.assertRaises(Damaged):
            State.from_json(doc)


STUB = """#!/bin/sh
case "$1" in
--config-help)
    echo "ITEM DEFAULT VALUES"
    [ -n "$KNOWS" ] && echo "health-interval-sec  10  0..86400"
    exit 0;;
esac
printf 'ACT-STORAGE CONFIGURATION\\nservice-threads: 4\\n'
[ -n "$BASE_SETS" ] && printf 'health-interval-sec: 0\\n'
printf '\\n'
"""


class HealthInterval(support.TempDir):

    def test_rule(self):
        self.assertEqual([1, 1, 5, 9, None, None],
                         [plan.health_interval(d)
                          for d in (1, 119, 300, 599, 600, 86400)])
        self.assertEqual(["a=1", "health-interval-sec=5"],
                         plan.with_health_item(
                             ["a=1", "health-interval-sec=1"], 300, True))
        self.assertEqual(["a=1"], plan.with_health_item(
            ["a=1", "health-interval-sec=1"], 300, False))
        self.assertEqual(["a=1"], plan.with_health_item(["a=1"], 600, True))

    def check(self, knows, base_sets, duration):
        prog = os.path.join(self.td, "prog")
        with open(prog, "w") as f:
            f.write(STUB)
        os.chmod(prog, stat.S_IRWXU)
        os.environ["KNOWS"] = "1" if knows else ""
        os.environ["BASE_SETS"] = "1" if base_sets else ""
        steps = plan.plan_steps(["/d/a"], 1, 2.0, duration, [], False)
        precheck.check_campaign(prog, "/b.conf", ["/d/a"], steps)
        return [x for s in steps for x in s.set
                if x.startswith("health-interval-sec")]

    def tearDown(self):
        for k in ("KNOWS", "BASE_SETS"):
            os.environ.pop(k, None)
        super().tearDown()

    def test_check_campaign(self):
        self.assertEqual(["health-interval-sec=5"] * 2,
                         self.check(True, False, 300))
        self.assertEqual([], self.check(False, False, 300),
                         "a program without the item")
        self.assertEqual([], self.check(True, True, 300),
                         "a base config that sets it")
        self.assertEqual([], self.check(True, False, 3600),
                         "a step of an hour: the default")


if __name__ == "__main__":
    unittest.main()
