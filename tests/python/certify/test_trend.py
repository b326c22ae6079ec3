#!/usr/bin/env python3
"""Description: the trend of a step's latency (analysis/act/certify/
trend.py, docs/certify.md "The trend"):

- classify on hand-made series: rising (also with noise) -> degrading,
  falling -> improving, flat with noise -> steady, a rise under the floor
  (0.001% -> 0.003%) -> steady while the same shape above it (0.05% ->
  0.15%) -> degrading, a last quarter twice the first but a negative slope
  -> steady, fewer than 4 slices -> no flag; the least-squares slope.
- synthetic act_storage logs (tests/python/support.py) analysed in-process
  as act_certify does (analyse_log, 10 slices): only the rising one is
  flagged degrading, the falling one improving, the flat noisy one and the
  one under the floor steady; the series carries each slice's % over 1 ms
  and read rate; slope_pct_per_hour is per hour of the slice length.
  The text says "from slice 1 to 10" and the slope per slice (a trial);
  for one-hour slices "from hour 1 to N" and the slope per hour - also
  on a 24-hour log reported hourly, analysed in one-hour slices.
- build_summary on a campaign whose step analyses are those logs: every
  step has its "trend", summary "trend" has one line for the degrading
  step ("passes, but degrading: ..."), the verdict is unchanged; the
  Markdown has the trend line, the HTML a parseable inline SVG chart per
  step and the flag.

    python3 tests/python/certify/test_trend.py [-v]
"""

import html.parser
import os
import random
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
import support  # noqa: E402

from certstate import new_state  # noqa: E402
from act.certify import html as chtml, markdown, summary  # noqa
from act.certify import trend  # noqa: E402
from act.certify.page import esc  # noqa: E402
from act.certify.analyse import analyse_log  # noqa: E402

SECONDS = 40
SLICE = 4


def log_text(per_sec_over, per_sec_ok=2000):
    """A 40-second log: each second per_sec_ok reads under 1 ms (the
    derived rate, 2000/s: the host issued the load) and
    per_sec_over[t] over it (bucket 3)."""
    text = support.header(duration=SECONDS, names=("reads",))
    ok = over = 0
    for t in range(1, SECONDS + 1):
        ok += per_sec_ok
        over += per_sec_over[t - 1]
        text += support.report(t, {"reads": {0: ok, 3: over}})
    return text


def shapes():
    rnd = random.Random(20)
    # reads over 1 ms a second, against 2000 under it: the shares of the
    # old 1000-a-second logs (the host issued the derived 2000/s)
    rising = [2 * (1 + t) for t in range(SECONDS)]
    noisy_rising = [2 * max(0, 2 + t + rnd.randint(-6, 6))
                    for t in range(SECONDS)]
    return {
        "rising": (rising, 2000),
        "noisy-rising": (noisy_rising, 2000),
        "falling": (list(reversed(rising)), 2000),
        "flat": ([2 * (10 + rnd.randint(-3, 3)) for _ in range(SECONDS)],
                 2000),
        # 0.001% -> 0.003%: under the floor
        "floor": ([1 + (2 * t) // SECONDS for t in range(SECONDS)], 100000),
    }


def analysed(td, name, over, ok):
    path = support.make(os.path.join(td, name + ".log"), log_text(over, ok))
    return analyse_log(path, SLICE, False)


class Parser(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.svgs = 0
        self.flags = []

    def handle_starttag(self, tag, attrs):
        d = dict(attrs)
        if tag == "svg" and d.get("class") == "trend":
            self.svgs += 1
        if "data-trend" in d:
            self.flags.append(d["data-trend"])


class Trend(support.TempDir):
    PREFIX = "act-trend-test-"

    def test_classify(self):
        for what, series, want in (
                ("rising", [0.4, 0.6, 0.9, 1.2, 1.6, 2.0, 2.5, 2.9],
                 "degrading"),
                ("rising with noise", [0.5, 0.3, 0.8, 0.6, 1.4, 1.1, 2.2, 1.9],
                 "degrading"),
                ("falling", [2.9, 2.5, 2.0, 1.6, 1.2, 0.9, 0.6, 0.4],
                 "improving"),
                ("flat with noise", [1.0, 1.2, 0.9, 1.1, 0.95, 1.15, 1.05,
                                     0.9],
                 "steady"),
                ("under the floor", [0.001, 0.0015, 0.002, 0.0025, 0.003,
                                     0.003],
                 "steady"),
                ("above the floor", [0.05, 0.07, 0.09, 0.11, 0.13, 0.15],
                 "degrading"),
                ("last quarter 2x but falling overall",
                 [0.2, 0.2, 9.0, 9.0, 0.5, 0.5, 0.5, 0.5], "steady"),
                ("short of 2x", [1.0, 1.2, 1.4, 1.6, 1.8, 1.9], "steady"),
                ("four slices", [0.1, 0.2, 0.4, 0.8], "degrading"),
                ("three slices", [0.1, 1.0, 9.0], None),
                ("no slice", [], None)):
            self.assertEqual(want, trend.classify(series)[0],
                             "classify: %s" % what)
        self.assertEqual(2.0, trend.slope([1, 3, 5]), "slope of 1, 3, 5")
        self.assertEqual(0.0, trend.slope([7]), "slope of one point")
        flag, first, last, s = trend.classify([1, 1, 2, 2, 3, 3, 4, 4])
        self.assertEqual((1.0, 4.0), (first, last), "quarter means of 8 "
                         "slices")

    def test_logs(self):
        td = self.td
        trends = {}
        for name, (over, ok) in shapes().items():
            a = analysed(td, name, over, ok)
            self.assertTrue(a.doc is not None, "%s: no "
                            "analysis: %s" % (name, a.error))
            trends[name] = trend.step_trend(a.doc)
        self.assertEqual({
            "rising": "degrading", "noisy-rising": "degrading",
            "falling": "improving", "flat": "steady", "floor": "steady"},
            {k: t and t["flag"] for k, t in trends.items()},
            "flags of the synthetic logs")
        t = trends["rising"]
        self.assertEqual(10, len(t["series"]), "rising: 10 slices")
        self.assertEqual("1 ms", t["threshold"], "rising: the threshold")
        # slice 1: seconds 1-4 (the first report is slice 1's base): over is
        # 3..5 a second -> (3+4+5)/(3000+12)... as act_latency computes it
        self.assertTrue(0.1 < t["series"][0]["pct"] < 0.6 and
                        3.5 < t["series"][-1]["pct"] < 4.5,
                        "rising: first and last slice %% over 1 ms: %s"
                        % [p["pct"] for p in t["series"]])
        self.assertTrue(all(2000 <= p["rate"] <= 2090 for p in t["series"]),
                        "rising: the read rates: %s"
                        % [p["rate"] for p in t["series"]])
        per_slice = trend.slope([p["pct"] for p in t["series"]])
        self.assertTrue(abs(t["slope_pct_per_hour"] - per_slice * 3600
                            / SLICE) < 0.01 and
                        abs(t["slope_pct_per_slice"] - per_slice) < 0.001,
                        "slope per hour: %r, per slice %r"
                        % (t["slope_pct_per_hour"], per_slice))
        text = trend.trend_text(t)
        self.assertTrue(text.startswith(
            "degrading: %.2f%% -> %.2f%% of reads over 1 ms from slice 1 to "
            "10" % (t["first_quarter_pct"], t["last_quarter_pct"])),
                        "trend text: %r" % text)
        self.assertEqual(None, trend.step_trend(None), "no document: no trend")
        hourly = dict(t, slice_sec=3600, slope_pct_per_hour=0.1104)
        self.assertEqual("degrading: %.2f%% -> %.2f%% of reads over 1 ms from "
                         "hour 1 to 10 (first and last quarter means; slope "
                         "+0.110%%/h)"
                         % (t["first_quarter_pct"], t["last_quarter_pct"]),
                         trend.trend_text(hourly), "hourly text")
        self.assertEqual("no trend: 3 slices, at least 4 needed",
                         trend.trend_text(dict(t, flag=None,
                                               series=t["series"][:3])),
                         "too few slices")

    def test_day(self):
        """A 24-hour log reported hourly, analysed as a real campaign is (one-
        hour slices): a drive fine for 8 hours, then worse hour by hour."""
        td = self.td
        text = support.header(duration=86400, interval=3600, names=("reads",))
        ok = over = 0
        for h in range(1, 25):
            ok += 3600 * 2000
            over += 3600 * (8 if h <= 8 else 8 + 6 * (h - 8))
            text += support.report(h * 3600, {"reads": {0: ok, 3: over}})
        path = support.make(os.path.join(td, "day.log"), text)
        a = analyse_log(path, 3600, False)
        t = trend.step_trend(a.doc)
        self.assertEqual(("degrading", 24),
                         (t and t["flag"], t and len(t["series"])),
                         "24 h: flag, slices")
        text = trend.trend_text(t) if t else ""
        self.assertTrue(text.startswith("degrading: 0.40% -> ")
                        and "from hour 1 to 24 "
                        "(first and last quarter means; slope +0." in text and
                        text.endswith("%/h)"), "24 h: the text %r" % text)

    def test_report(self):
        """A campaign of 2 tests (no ladder) whose analyses are the rising and
        flat logs: the summary, Markdown and HTML."""
        td = self.td
        sh = shapes()
        st = new_state(["/d/a"], duration=SECONDS, status="finished")
        st.update(created_at="2026-11-25T09:59:00Z", host={"hostname": "h1"})
        st.campaign.stress_factor = 2
        cache = {}
        for s, name in zip(st.steps, ("flat", "rising")):
            a = analysed(td, name, *sh[name])
            a.log_errors, a.echo_difference, a.stop = [], None, None
            path = os.path.join(td, s.files["log"])
            os.replace(os.path.join(td, name + ".log"), path)
            s.update(status="done", exit_status=0, result="PASS")
            fs = os.stat(path)
            cache[(s.number, fs.st_size, fs.st_mtime_ns)] = a
        s = summary.build_summary(td, st, cache)
        self.assertEqual(["steady", "degrading"],
                         [x["trend"]["flag"] for x in s["steps"]],
                         "summary: each step's flag")
        self.assertEqual("certified at 1x", s["verdict"]["text"],
                         "summary: the verdict is unchanged")
        self.assertEqual(1, len(s["trend"]), "summary: one trend line")
        self.assertTrue(s["trend"] and s["trend"][0].startswith(
                        "step 2 (test 2: stress at 2 x the load on one "
                        "device, PASS) passes, but degrading: 0.45% -> 3.52% "
                        "of reads over 1 ms from slice 1 to 10 (first and "
                        "last quarter means; slope +0."),
                        "summary trend line: %r" % s["trend"])
        for k in ("flag", "series", "first_quarter_pct", "last_quarter_pct",
                  "slope_pct_per_hour"):
            self.assertTrue(k in s["steps"][1]["trend"], "trend lacks %s" % k)
        md = markdown.render_markdown(s)
        self.assertTrue("- **trend:** " + s["trend"][0] in md,
                        "markdown lacks the trend line:\n%s" % md)
        self.assertTrue("- step 1: steady: " in md, "markdown lacks step 1's "
                        "trend:\n%s" % md)
        page = chtml.render_html(s)
        p = Parser()
        p.feed(page)
        p.close()
        self.assertEqual(2, p.svgs, "html: a trend chart per step")
        self.assertEqual(["steady", "degrading"], p.flags, "html: the flags")
        self.assertTrue("trend: " + esc(s["trend"][0]) in page,
                        "html lacks the trend line under the verdict")


if __name__ == "__main__":
    unittest.main()
