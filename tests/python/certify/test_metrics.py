#!/usr/bin/env python3
"""Description: act_certify's Prometheus metrics file
(analysis/act/certify/metrics.py, publish.write_metrics, main's
--metrics), on synthetic campaigns' summaries: every line is a HELP, a
TYPE or a sample of the text format; each family has one HELP and one
TYPE before its samples, which are together; no series twice; names are
act_-prefixed snake case in base units (no _total on a gauge); label
values with a backslash, a double quote or a line feed are escaped and
read back as they were; a state (the verdict's, the step's) has exactly
one series at 1; the running step's last slice, the worst slice per
drive, the health figures are there with their values as ratios of the
percentages; the real parser (prometheus_client, in a venv under
target/: tests/lib/promparser.py; skipped with the reason where it can't
be installed) reads every text with the same samples, and `promtool
check metrics` (Debian's prometheus package, or $ACT_PROMTOOL; skipped
without) finds nothing to say while it does flag a bad name; write_metrics
replaces the file atomically (a symbolic link at its name replaced,
never followed), and only warns when it can't write it; --metrics is refused with --compare and
for a directory that does not exist; the Grafana dashboard
(contrib/grafana/act-fleet.json) is valid JSON and every act_ metric it
queries is one the module writes; docs/metrics.md names every metric
the module has, and none it has not.

    python3 tests/python/certify/test_metrics.py [-v]
"""

import contextlib
import datetime
import io
import json
import os
import re
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
import support  # noqa: E402
import promparser  # noqa: E402
from act.certify import main as cmain  # noqa: E402
from act.certify import metrics, publish  # noqa: E402
from act.cli import UsageError  # noqa: E402

DASHBOARD = os.path.join(support.REPO, "contrib", "grafana",
                         "act-fleet.json")
EVIL = 'we"ird\\dir\nname'
DEV_A, DEV_B = "/dev/nvme0n1", '/srv/x"y\\z.img'

def drive_health(dev, temp, spare, used, waf, throttle=0, media=0):
    return {"device": dev, "source": "nvme", "readable": True,
            "start": {"t": 0.0, "temp_c": temp - 5, "spare": 100,
                      "used": used, "physical_written": 0},
            "end": {"t": 10.0, "temp_c": temp, "spare": spare,
                    "used": used, "physical_written": 1000 * waf},
            "max_temp_c": temp + 2, "throttle_sec": throttle,
            "new_media_errors": media, "waf": waf,
            "bytes_written": 1000, "problems": []}


def figures(dev, pcts, last, rate):
    return {"device": dev, "result": "PASS", "figures": [
        {"histogram": "reads", "name": dev + "-reads", "threshold":
         "%d ms" % ms, "limit_pct": lim, "max_pct": p, "pass": True,
         "last_pct": la, "rate": rate}
        for ms, lim, p, la in zip((1, 8, 64), (5.0, 1.0, 0.1), pcts,
                                  last)]}


def campaign(running=True, result=None, status="unfinished"):
    """A summary document of a campaign on two devices, step 2 of 3
    running (or, running False, ended with result)."""
    step1 = {"number": 1, "kind": "target", "test": 1, "title": "test 1",
             "load": 3.0, "status": "done", "result": "PASS",
             "duration_sec": 60, "ran_sec": 60, "slice_sec": 10,
             "rates": {"reads": 6000.5},
             "criteria": [], "drives": [], "health": None}
    step2 = {"number": 2, "kind": "target", "test": 3,
             "title": "test 3: two \"devices\"", "load": 3.0,
             "status": "running" if running else "done",
             "result": "RUNNING" if running else result,
             "duration_sec": 60, "ran_sec": None if running else 60,
             "slice_sec": 10, "rates": {"reads": 12001.0},
             "criteria": [{"histogram": "reads", "threshold": t,
                           "limit_pct": lim, "max_pct": p, "pass": True}
                          for t, lim, p in (("1 ms", 5.0, 2.5),
                                            ("8 ms", 1.0, 0.25),
                                            ("64 ms", 0.1, 0.0))],
             "drives": [figures(DEV_A, (2.5, 0.25, 0.0), (2.0, 0.5, 0.0),
                                6000.5),
                        figures(DEV_B, (1.0, 0.0, 0.0), (0.5, 0.0, 0.0),
                                6000.25)],
             "health": {"drives": [
                 drive_health(DEV_A, 48, 97, 3, 1.25, throttle=7,
                              media=1),
                 {"device": DEV_B, "source": "none (a regular file)",
                  "readable": False}]}}
    step3 = {"number": 3, "kind": "stress", "test": 4, "title": "test 4",
             "load": 6.0, "status": "planned", "result": "NOT RUN",
             "duration_sec": 60, "rates": {}, "criteria": [], "drives": []}
    return {
        "verdict": {"status": status}, "trial": False,
        "in_progress": running,
        "running": {"step": 2, "elapsed_sec": 25, "planned_sec": 60,
                    "slice_sec": 10,
                    "thresholds": [1, 2, 4, 8, 16, 32, 64],
                    "histograms": [{"name": "reads", "slices": [
                        {"slice": 1, "over_pct": [2.5, 1, 1, 0.25, 0, 0,
                                                  0]},
                        {"slice": 2, "over_pct": [1.5, 1, 1, 0.5, 0, 0,
                                                  0.05]}]}]}
        if running else None,
        "campaign": {"directory": "/srv/act/" + EVIL, "status":
                     "running" if running else "finished",
                     "program": "act_storage", "program_version":
                     "act_storage 6.7", "devices": [DEV_A, DEV_B],
                     "load": 3.0, "load_text": "3x"},
        "host": {"hostname": "node-7"},
        "steps": [step1, step2, step3],
        "generated_at": "2026-11-27T04:12:33Z",
    }


def find(series, name, **labels):
    v = promparser.value(series, name, **labels)
    if v is None:
        raise AssertionError("%s %r: not one series" % (name, labels))
    return v


class FormatTest(unittest.TestCase):

    def texts(self):
        return [metrics.render_metrics(campaign()),
                metrics.render_metrics(campaign(False, "FAIL",
                                                "not certified")),
                metrics.render_metrics(campaign(False, "NOT JUDGED",
                                                "certified with I/O errors")),
                metrics.render_metrics({})]

    def test_format_rules(self):
        for text in self.texts():
            series = promparser.check_text(text)
            for name, _ in series:
                self.assertTrue(name.startswith("act_"), name)
                self.assertRegex(name, r"^[a-z_]+$")
                self.assertFalse(name.endswith("_total"), name)
                self.assertNotRegex(name, r"_(percent|pct|ms|celsius_c)$")

    def test_checker_refuses(self):
        head = "# HELP act_a A.\n# TYPE act_a gauge\n"
        other = "# HELP act_b B.\n# TYPE act_b gauge\nact_b{} 1\n"
        for bad in (head + 'act_a{x="1"} 1\nact_a{x="1"} 2\n',
                    head + "# TYPE act_a gauge\nact_a{} 1\n",
                    head + 'act_a{x="a"b"} 1\n',
                    head + 'act_a{x="1"} 1\n' + other + 'act_a{x="2"} 1\n',
                    head + "act_a{} 1"):
            with self.assertRaises(AssertionError, msg=bad):
                promparser.check_text(bad)
        self.assertEqual({("act_a", (("x", 'q"\n'),)): 1.0},
                         promparser.check_text(head + 'act_a{x="q\\"\\n"} 1\n'))

    def test_escapes(self):
        self.assertEqual(metrics.label_value('a"b\\c\nd'),
                         'a\\"b\\\\c\\nd')
        series = promparser.check_text(metrics.render_metrics(campaign()))
        self.assertEqual(1, find(series, "act_campaign_info",
                                 campaign=EVIL, host="node-7"))
        self.assertEqual(0.01, find(series, "act_step_worst_slice_over_"
                                    "ratio", device=DEV_B, threshold="1ms"))
        self.assertEqual(1, find(series, "act_step_info",
                                 title='test 3: two "devices"'))

    def test_states_one_hot(self):
        for text, verdict, step in zip(
                self.texts(), ("unfinished", "not_certified",
                               "certified_with_io_errors"),
                ("running", "fail", "not_judged")):
            series = promparser.check_text(text)
            for name, want in (("act_campaign_verdict", verdict),
                               ("act_step_state", step)):
                on = [dict(lab)["state"] for (n, lab), v in series.items()
                      if n == name and v == 1]
                self.assertEqual([want], on, name)
                self.assertTrue(all(v in (0, 1) for (n, _), v in
                                    series.items() if n == name))

    def test_values(self):
        s = promparser.check_text(metrics.render_metrics(campaign()))
        self.assertEqual(2, find(s, "act_step_number"))
        self.assertEqual(25, find(s, "act_step_elapsed_seconds"))
        self.assertEqual(35, find(s, "act_step_remaining_seconds"))
        self.assertEqual(35 + 60, find(s, "act_campaign_remaining_seconds"))
        self.assertEqual(1, find(s, "act_campaign_steps_done"))
        self.assertEqual(12001.0, find(s, "act_step_ops_per_second",
                                       histogram="reads", device=""))
        # the last slice: 1.5 % over 1 ms, 0.5 % over 8, 0.05 % over 64
        for th, want in (("1ms", 0.015), ("8ms", 0.005), ("64ms", 0.0005)):
            self.assertAlmostEqual(want, find(
                s, "act_step_last_slice_over_ratio", threshold=th,
                device=""))
        self.assertEqual(0.025, find(s, "act_step_worst_slice_over_ratio",
                                     device="", threshold="1ms"))
        # each drive's own: its last slice and its rate
        self.assertEqual(0.005, find(s, "act_step_last_slice_over_ratio",
                                     device=DEV_B, threshold="1ms"))
        self.assertEqual(0.005, find(s, "act_step_last_slice_over_ratio",
                                     device=DEV_A, threshold="8ms"))
        self.assertEqual(6000.25, find(s, "act_step_ops_per_second",
                                       device=DEV_B))
        self.assertEqual(0.025, find(s, "act_step_worst_slice_over_ratio",
                                     device=DEV_A, threshold="1ms"))
        self.assertEqual(0.05, find(s, "act_step_limit_ratio",
                                    threshold="1ms"))
        self.assertEqual(48, find(s, "act_drive_temperature_celsius",
                                  device=DEV_A))
        self.assertEqual(50, find(s, "act_drive_max_temperature_celsius",
                                  device=DEV_A))
        self.assertEqual(7, find(s, "act_drive_throttle_seconds"))
        self.assertEqual(1, find(s, "act_drive_media_errors"))
        self.assertEqual(0.97, find(s, "act_drive_spare_ratio"))
        self.assertEqual(0.03, find(s, "act_drive_used_ratio"))
        self.assertEqual(1.25, find(s, "act_drive_write_amplification"))
        self.assertEqual(1.25, find(s, "act_drive_campaign_write_"
                                    "amplification"))
        self.assertEqual(50, find(s, "act_drive_campaign_max_temperature_"
                                  "celsius"))
        self.assertFalse([k for k in s if dict(k[1]).get("device") == DEV_B
                          and k[0].startswith("act_drive_")],
                         "a drive with no health data has no health series")
        self.assertEqual(datetime.datetime(
            2026, 11, 27, 4, 12, 33, tzinfo=datetime.timezone.utc)
            .timestamp(), find(s, "act_campaign_last_update_timestamp_"
                               "seconds"))

    def test_finished_step(self):
        s = promparser.check_text(metrics.render_metrics(campaign(False, "PASS",
                                                         "certified")))
        self.assertEqual(0, find(s, "act_campaign_in_progress"))
        self.assertEqual(0, find(s, "act_step_remaining_seconds"))
        self.assertEqual(60, find(s, "act_step_elapsed_seconds"))
        self.assertFalse([k for k in s if k[0] ==
                          "act_step_last_slice_over_ratio"])

    def test_real_parser(self):
        p, why = promparser.parser()
        if p is None:
            self.skipTest(why)
        for text in self.texts():
            mine = promparser.check_text(text)
            theirs = {}
            for name, kind, samples in p.parse(text):
                self.assertEqual("gauge", kind, name)
                for sname, labels, value in samples:
                    theirs[(sname, tuple(sorted(labels.items())))] = value
            self.assertEqual(mine, theirs)
        with self.assertRaises(ValueError):  # the parser does refuse
            p.parse('act_x{a="b} 1\n')

    def test_promtool(self):
        if promparser.promtool() is None:
            self.skipTest(promparser.promtool_why())
        for text in self.texts():
            self.assertIsNone(promparser.promtool_check(text))
        self.assertIsNotNone(promparser.promtool_check(
            "# HELP act_x_percent X.\n# TYPE act_x_percent counter\n"
            "act_x_percent 1\n"))


class WriteTest(unittest.TestCase):

    def test_write_metrics(self):
        with tempfile.TemporaryDirectory() as td:
            path = os.path.join(td, "act.prom")
            os.symlink(os.path.join(td, "elsewhere"), path)
            publish.write_metrics(path, campaign())
            self.assertFalse(os.path.islink(path))
            self.assertFalse(os.path.exists(os.path.join(td, "elsewhere")))
            with open(path) as f:
                self.assertEqual(metrics.render_metrics(campaign()),
                                 f.read())
            self.assertEqual(["act.prom"], os.listdir(td))
            # a file that can't be written or made: a warning, no raise
            err = io.StringIO()
            with contextlib.redirect_stderr(err):
                publish.write_metrics(os.path.join(td, "no", "m.prom"),
                                      campaign())
                publish.write_metrics(path, {"steps": "damaged"})
            self.assertEqual(2, err.getvalue().count("can't "),
                             err.getvalue())

    def test_option(self):
        with tempfile.TemporaryDirectory() as td:
            for argv in (["--compare", td, "--metrics", td + "/m.prom"],
                         ["--report", td, "--metrics",
                          td + "/no/such/m.prom"],
                         ["--report", td, "--metrics", td]):
                with self.assertRaises(UsageError, msg=argv):
                    cmain.parse_args(argv)
            args = cmain.parse_args(["--report", td, "--metrics",
                                     td + "/m.prom"])
            self.assertEqual(td + "/m.prom", args.metrics)
            os.environ["ACT_CERTIFY_METRICS"] = td + "/e.prom"
            try:
                args = cmain.parse_args(["--resume", td])
            finally:
                del os.environ["ACT_CERTIFY_METRICS"]
            self.assertEqual(td + "/e.prom", args.metrics)
            # --status writes no metrics: refused when given, the
            # variable ignored
            with self.assertRaises(UsageError):
                cmain.parse_args(["--status", td, "--metrics",
                                  td + "/m.prom"])
            os.environ["ACT_CERTIFY_METRICS"] = td + "/e.prom"
            try:
                args = cmain.parse_args(["--status", td])
            finally:
                del os.environ["ACT_CERTIFY_METRICS"]
            self.assertIsNone(args.metrics)


class DocsTest(unittest.TestCase):

    def test_every_metric_documented(self):
        with open(os.path.join(support.REPO, "docs", "metrics.md"),
                  encoding="utf-8") as f:
            doc = set(re.findall(r"`(act_[a-z_]+)`", f.read()))
        # the Ansible role's variables it names are not metrics
        with open(os.path.join(support.REPO, "contrib", "ansible", "roles",
                               "act_certify", "defaults", "main.yml"),
                  encoding="utf-8") as f:
            doc -= set(re.findall(r"^(act_[a-z_]+):", f.read(), re.M))
        names = {metrics.PREFIX + n for n, _ in metrics.FAMILIES}
        self.assertEqual((set(), set()), (names - doc, doc - names))


class DashboardTest(unittest.TestCase):

    def test_dashboard(self):
        with open(DASHBOARD, encoding="utf-8") as f:
            doc = json.load(f)
        exprs = []

        def walk(x):
            if isinstance(x, dict):
                for k, v in x.items():
                    if k in ("expr", "query", "definition") and \
                            isinstance(v, str):
                        exprs.append(v)
                    walk(v)
            elif isinstance(x, list):
                for v in x:
                    walk(v)
        walk(doc)
        self.assertTrue(exprs, "no query in the dashboard")
        names = set(re.findall(r"\bact_[a-z_]+", " ".join(exprs)))
        written = {n for n, _ in promparser.check_text(
            metrics.render_metrics(campaign()))}
        self.assertTrue(names)
        self.assertEqual(set(), names - written,
                         "the dashboard queries metrics never written")
        panels = [p.get("title") for p in doc.get("panels", [])]
        self.assertTrue(all(panels), panels)


if __name__ == "__main__":
    unittest.main()
