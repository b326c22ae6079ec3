#!/usr/bin/env python3
"""Description: the trend of a step's latency (analysis/act/certify/
trend.py, docs/certify.md "The trend"):

- classify on hand-made series (hour slices): rising (also with noise) ->
  degrading, falling -> improving, flat with noise -> steady, a rise under
  the floor (0.001% -> 0.003%) -> steady while the same shape above it
  (0.05% -> 0.15%) -> degrading, one bad stretch in a flat series or a
  last quarter twice the first but no monotonic trend -> steady, a rise
  short of doubling -> steady; fewer than 8 slices, or slices under 60 s
  (a trial's 1 s slices) -> no flag, and why; the least-squares slope.
- no flag on 100 flat noisy synthetic logs (synthlog.share_reports) of
  each noise model (gaussian, Poisson counts, occasional spikes x10; 8 to
  24 slices of 60 s, levels 0.2% to 3%; seeds 0-99), analysed in-process
  as act_certify does; a flag on every real ramp (linear, and
  step-like: a staircase of four levels; up -> degrading, down ->
  improving, with noise, 10 seeds each); the same
  ramp in 7 slices, or in 10 slices of 30 s, gets none.
- synthetic act_storage logs (tests/python/support.py) analysed in-process
  (analyse_log, 10 slices of 60 s): only the rising one is flagged
  degrading, the falling one improving, the flat noisy one and the one
  under the floor steady; the series carries each slice's % over 1 ms and
  read rate; slope_pct_per_hour is per hour of the slice length; the
  trend has the Mann-Kendall figures (S, p at alpha 0.05) and the
  Theil-Sen slope per hour with its 95% interval around it. The text
  says "from slice 1 to 10" (a trial), "from hour 1 to N" for hour
  slices, with the Theil-Sen slope, its interval and p - also on a
  24-hour log reported hourly, analysed in one-hour slices.
- build_summary on a campaign whose step analyses are those logs: every
  step has its "trend", summary "trend" has one line for the degrading
  step ("passes, but degrading: ..."), the verdict is unchanged; the
  Markdown has the trend line, the HTML a parseable inline SVG chart per
  step and the flag; summary.json's trend the new keys (mann_kendall,
  theil_sen, why_no_flag) beside the old ones.

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
SLICE = 60
MODELS = ("gaussian", "poisson", "spikes")


def log_text(per_sec_over, per_sec_ok=2000):
    """A 40-report log, a report a minute: each minute 60 x per_sec_ok
    reads under 1 ms (the derived rate, 2000/s: the host issued the load)
    and 60 x per_sec_over[t] over it (bucket 3)."""
    text = support.header(duration=SECONDS * 60, interval=60,
                          names=("reads",))
    ok = over = 0
    for t in range(1, SECONDS + 1):
        ok += 60 * per_sec_ok
        over += 60 * per_sec_over[t - 1]
        text += support.report(60 * t, {"reads": {0: ok, 3: over}})
    return text


def shares_log(shares, slice_sec=SLICE):
    """A log of len(shares) slices of slice_sec, reported once a slice,
    2000 reads/s, shares[k]% of slice k over 1 ms (synthlog)."""
    return support.header(duration=len(shares) * slice_sec,
                          interval=slice_sec, names=("reads",)) + \
        support.synthlog.text(support.synthlog.share_reports(
            shares, slice_sec, 2000))


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
    return analyse_log(path, 4 * SLICE, False)


def log_flag(td, shares, slice_sec=SLICE):
    """The flag (and the trend) of a log of shares, analysed as
    act_certify does, on its own slices."""
    path = support.make(os.path.join(td, "s.log"), shares_log(shares,
                                                              slice_sec))
    a = analyse_log(path, slice_sec, False)
    t = trend.step_trend(a.doc)
    return (t and t["flag"]), t


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
                ("rising with noise", [0.5, 0.3, 0.8, 0.6, 1.4, 1.1, 2.2, 1.9,
                                       2.6, 2.4], "degrading"),
                ("falling", [2.9, 2.5, 2.0, 1.6, 1.2, 0.9, 0.6, 0.4],
                 "improving"),
                ("flat with noise", [1.0, 1.2, 0.9, 1.1, 0.95, 1.15, 1.05,
                                     0.9], "steady"),
                ("under the floor", [0.001, 0.0015, 0.002, 0.0023, 0.0025,
                                     0.0027, 0.003, 0.003], "steady"),
                ("above the floor", [0.05, 0.07, 0.09, 0.11, 0.13, 0.15,
                                     0.17, 0.19], "degrading"),
                ("one bad stretch", [0.2, 0.2, 9.0, 9.0, 0.5, 0.5, 0.5, 0.5],
                 "steady"),
                ("last quarter 2x, no trend", [0.5, 0.6, 0.4, 0.5, 0.6, 0.4,
                                              1.2, 1.0], "steady"),
                ("short of doubling", [1.0, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6,
                                       1.7], "steady"),
                ("seven slices", [0.1, 0.2, 0.4, 0.8, 1.6, 3.2, 6.4], None),
                ("no slice", [], None)):
            self.assertEqual(want, trend.classify(series)["flag"],
                             "classify: %s" % what)
        ramp = [0.4, 0.6, 0.9, 1.2, 1.6, 2.0, 2.5, 2.9]
        self.assertEqual((None, "slices of 1 s, at least 60 s needed"),
                         (lambda c: (c["flag"], c["why_not"]))(
                             trend.classify(ramp, 1)), "1 s slices")
        self.assertEqual("degrading", trend.classify(ramp, 60)["flag"],
                         "60 s slices")
        self.assertEqual("7 slices, at least 8 needed",
                         trend.classify(ramp[:7])["why_not"], "7 slices")
        self.assertEqual(2.0, trend.slope([1, 3, 5]), "slope of 1, 3, 5")
        self.assertEqual(0.0, trend.slope([7]), "slope of one point")
        c = trend.classify([1, 1, 2, 2, 3, 3, 4, 4])
        self.assertEqual((1.0, 4.0), (c["first"], c["last"]),
                         "quarter means of 8 slices")
        self.assertEqual((24, True), (c["mk"].s, c["mk"].p < 0.01),
                         "Mann-Kendall of 1 1 2 2 3 3 4 4 (4 ties of 2)")

    def test_flat_logs(self):
        """100 flat noisy logs of each noise model: no flag."""
        flagged = []
        for model in MODELS:
            for seed in range(100):
                rnd = random.Random(seed)
                n = (8, 12, 24)[seed % 3]
                level = (0.2, 1.0, 3.0)[seed // 3 % 3]
                flag, t = log_flag(self.td, support.synthlog.noisy_shares(
                    rnd, model, n, level))
                if flag != "steady":
                    flagged.append("%s seed %d: %s" % (
                        model, seed, trend.trend_text(t)))
        self.assertEqual([], flagged, "flat noisy logs flagged")

    def test_ramps(self):
        """Real ramps: flagged, in both directions; not with too few or too
        short slices."""
        def linear(rnd, n, up):
            ys = [0.5 + 2.5 * k / (n - 1) for k in range(n)]
            return [max(0.0, rnd.gauss(y, 0.15 * y))
                    for y in (ys if up else ys[::-1])]

        def step(rnd, n, up):
            # a staircase: four levels, a quarter of the run each
            ys = [(0.5, 1.2, 2.0, 3.0)[4 * k // n] for k in range(n)]
            return [max(0.0, rnd.gauss(y, 0.15 * y))
                    for y in (ys if up else ys[::-1])]
        missed = []
        for shape in (linear, step):
            for up in (True, False):
                for seed in range(10):
                    rnd = random.Random(seed)
                    n = (10, 24)[seed % 2] if shape is linear else \
                        (12, 24)[seed % 2]
                    flag, t = log_flag(self.td, shape(rnd, n, up))
                    if flag != ("degrading" if up else "improving"):
                        missed.append("%s %s seed %d: %s" % (
                            shape.__name__, "up" if up else "down", seed,
                            trend.trend_text(t)))
        self.assertEqual([], missed, "ramps not flagged")
        ramp = [0.4, 0.6, 0.9, 1.2, 1.6, 2.0, 2.5, 2.9, 3.3, 3.8]
        self.assertEqual(("degrading", None), (lambda f, t: (
            f, t["why_no_flag"]))(*log_flag(self.td, ramp)), "10 x 60 s")
        flag, t = log_flag(self.td, ramp[:7])
        self.assertEqual((None, "no trend: 7 slices, at least 8 needed"),
                         (flag, trend.trend_text(t)), "7 slices")
        flag, t = log_flag(self.td, ramp, 30)
        self.assertEqual((None, "no trend: slices of 30 s, at least 60 s "
                          "needed"), (flag, trend.trend_text(t)),
                         "slices of 30 s")

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
                            / (4 * SLICE)) < 0.01 and
                        abs(t["slope_pct_per_slice"] - per_slice) < 0.001,
                        "slope per hour: %r, per slice %r"
                        % (t["slope_pct_per_hour"], per_slice))
        text = trend.trend_text(t)
        self.assertTrue(text.startswith(
            "degrading: %.2f%% -> %.2f%% of reads over 1 ms from slice 1 to "
            "10" % (t["first_quarter_pct"], t["last_quarter_pct"])),
                        "trend text: %r" % text)
        self.assertEqual(None, trend.step_trend(None), "no document: no trend")
        mk, ts = t["mann_kendall"], t["theil_sen"]
        self.assertTrue(mk["s"] == 45 and mk["p"] < 0.001 and
                        mk["alpha"] == 0.05 and ts["confidence"] == 0.95,
                        "rising: Mann-Kendall %r, Theil-Sen %r" % (mk, ts))
        self.assertTrue(ts["low_pct_per_hour"] <= ts["pct_per_hour"] <=
                        ts["high_pct_per_hour"] and abs(
                            ts["pct_per_hour"] - t["slope_pct_per_hour"]) <
                        0.1 * t["slope_pct_per_hour"],
                        "rising: the Theil-Sen slope per hour %r, least "
                        "squares %r" % (ts, t["slope_pct_per_hour"]))
        self.assertEqual(None, t["why_no_flag"], "rising: flagged")
        self.assertTrue(text.endswith(
            "(first and last quarter means; Theil-Sen slope %+.3f%%/h (95%% "
            "confidence %+.3f to %+.3f); Mann-Kendall p = %.2g)"
            % (ts["pct_per_hour"], ts["low_pct_per_hour"],
               ts["high_pct_per_hour"], mk["p"])), "trend text: %r" % text)
        hourly = dict(t, slice_sec=3600)
        self.assertTrue(trend.trend_text(hourly).startswith(
            "degrading: %.2f%% -> %.2f%% of reads over 1 ms from hour 1 to "
            "10 (" % (t["first_quarter_pct"], t["last_quarter_pct"])),
                        "hourly text")
        self.assertEqual("no trend: 3 slices, at least 8 needed",
                         trend.trend_text(dict(t, flag=None, why_no_flag=None,
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
                        "(first and last quarter means; Theil-Sen slope +0." in
                        text and "Mann-Kendall p = " in text,
                        "24 h: the text %r" % text)

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
                        "last quarter means; Theil-Sen slope +"),
                        "summary trend line: %r" % s["trend"])
        for k in ("flag", "series", "first_quarter_pct", "last_quarter_pct",
                  "slope_pct_per_hour", "slope_pct_per_slice", "threshold",
                  "slice_sec", "mann_kendall", "theil_sen", "why_no_flag"):
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
