"""The trend of a step's latency over its run (docs/certify.md, "The
trend"): the share of reads over the first criterion's threshold (1 ms)
slice by slice, and a flag - degrading, steady, improving - that never
changes the verdict. A flag needs enough slices of enough length, a
significant monotonic trend (Mann-Kendall, act.latency.trend_stats) and a
practical size (the first and last quarters' means); the slope reported
is Theil-Sen's with its confidence interval, per hour. Pure: from the
step's act_latency/1 document to a dict, and from that dict to text and a
small SVG chart."""

from act.certify.fmt import md_text
from act.latency.trend_stats import mann_kendall, theil_sen

# Enough slices: Mann-Kendall on 8 slices can tell a ramp through noise
# (a clean ramp of 8 has p = 5e-5, exact) and leaves two slices to each
# quarter; fewer: no flag (null).
MIN_SLICES = 8
# Long enough slices: a slice's share must average over the host's
# moments (a stall of the scheduler, a burst of another job) for the
# slices to be samples of the drive; a 1 s slice on a busy host is one
# such moment, and its neighbours share it (the test assumes independent
# slices). A minute, the window the load check judges short slices on.
MIN_SLICE_SEC = 60
ALPHA = 0.05            # the test's significance level (two-sided)
CONFIDENCE = 1 - ALPHA  # ... and the slope's confidence interval
# A practical size: the last quarter's mean at least RATIO x the first's
# and at least FLOOR_PCT (0.001% -> 0.003% is no trend); and it must hold
# with confidence: at the low end of the slope's interval, the rise over
# the run is at least half the first quarter's mean and FLOOR_PCT points
# (one bad stretch, a spike near the end: not a trend).
RATIO = 2.0
FLOOR_PCT = 0.1
HOUR = 3600


def _mean(xs):
    return sum(xs) / len(xs) if xs else 0.0


def slope(ys):
    """Least-squares slope of ys against 0, 1, 2, ... (per step of x);
    0.0 for fewer than two points."""
    n = len(ys)
    if n < 2:
        return 0.0
    mx = (n - 1) / 2.0
    my = _mean(ys)
    num = sum((k - mx) * (y - my) for k, y in enumerate(ys))
    den = sum((k - mx) ** 2 for k in range(n))
    return num / den


def threshold_index(doc):
    """(index in a slice's over_pct, threshold text) of the share the
    trend follows: the criterion of 1 ms, else the first criterion, else
    the displayed threshold of 1 ms; (None, None) when there is none."""
    buckets = doc.get("buckets") or []
    crits = ((doc.get("check") or {}).get("criteria")) or []
    ones = [c for c in crits if c.get("threshold_ms") == 1.0] or crits[:1]
    for c in ones:
        if c.get("bucket") in buckets:
            return buckets.index(c["bucket"]), c.get("threshold")
    thresholds = doc.get("thresholds") or []
    if doc.get("unit") == "ms" and 1 in thresholds:
        return thresholds.index(1), "1 ms"
    return None, None


def no_flag_reason(n, slice_sec):
    """Why a series of n slices of slice_sec seconds gets no flag, or
    None when it may get one."""
    if n < MIN_SLICES:
        return "%d slice%s, at least %d needed" % (
            n, "" if n == 1 else "s", MIN_SLICES)
    if slice_sec < MIN_SLICE_SEC:
        return "slices of %d s, at least %d s needed" % (slice_sec,
                                                         MIN_SLICE_SEC)
    return None


def classify(series, slice_sec=HOUR):
    """The flag of a series of percentages, one a slice of slice_sec
    seconds (see the module's page), and its figures: {flag, why_not,
    first, last, ls_slope, mk, ts} - flag None (why_not says why) with
    fewer than MIN_SLICES values or slices shorter than MIN_SLICE_SEC;
    "degrading" when Mann-Kendall finds a rising trend at ALPHA (S > 0, p
    < ALPHA) and a large one: the last quarter's mean at least RATIO x
    the first's and at least FLOOR_PCT (0.001% -> 0.003% is no trend),
    and even at the low end of the Theil-Sen slope's confidence interval
    the rise over the run (x (n - 1) slices) at least the first quarter's
    mean / RATIO and FLOOR_PCT; "improving" the mirror image (the
    interval's high end); "steady" otherwise. ls_slope: least squares, per slice; mk: the
    MannKendall; ts: the TheilSen at CONFIDENCE, per slice."""
    n = len(series)
    q = max(1, n // 4)
    first, last = _mean(series[:q]), _mean(series[-q:])
    mk = mann_kendall(series)
    out = {"first": first, "last": last, "ls_slope": slope(series),
           "mk": mk, "ts": theil_sen(series, mk.var_s, CONFIDENCE),
           "why_not": no_flag_reason(n, slice_sec), "flag": None}
    if out["why_not"] is not None:
        return out
    out["flag"] = "steady"
    n1 = n - 1                          # slices from the first to the last
    if mk.p < ALPHA and mk.s > 0 and last >= max(RATIO * first, FLOOR_PCT) \
            and out["ts"].low * n1 >= max(first / RATIO, FLOOR_PCT):
        out["flag"] = "degrading"
    elif mk.p < ALPHA and mk.s < 0 and \
            first >= max(RATIO * last, FLOOR_PCT) and \
            -out["ts"].high * n1 >= max(last / RATIO, FLOOR_PCT):
        out["flag"] = "improving"
    return out


def step_trend(doc, histogram="reads"):
    """The "trend" of a step's summary from its act_latency/1 document
    (None without one): flag, why_no_flag, series [{slice, end_sec, pct,
    rate}], threshold, slice_sec, first_quarter_pct, last_quarter_pct,
    slope_pct_per_slice, slope_pct_per_hour (least squares), mann_kendall
    {s, var_s, z, p, exact, alpha}, theil_sen {pct_per_hour,
    low_pct_per_hour, high_pct_per_hour, confidence, intercept_pct}."""
    if not doc:
        return None
    hist = [h for h in doc.get("histograms") or []
            if h.get("name") == histogram]
    idx, threshold = threshold_index(doc)
    if not hist or idx is None:
        return None
    slice_sec = doc.get("slice_sec") or 1
    series = [{"slice": s.get("slice"), "end_sec": s.get("end_sec"),
               "pct": s["over_pct"][idx], "rate": s.get("rate")}
              for s in hist[0].get("slices") or []
              if idx < len(s.get("over_pct") or [])]
    c = classify([p["pct"] for p in series], slice_sec)
    per_hour = HOUR / slice_sec
    mk, ts = c["mk"], c["ts"]
    return {"flag": c["flag"], "why_no_flag": c["why_not"],
            "histogram": histogram, "threshold": threshold,
            "slice_sec": slice_sec, "series": series,
            "first_quarter_pct": round(c["first"], 3),
            "last_quarter_pct": round(c["last"], 3),
            "slope_pct_per_slice": round(c["ls_slope"], 4),
            "slope_pct_per_hour": round(c["ls_slope"] * per_hour, 4),
            "mann_kendall": {"s": mk.s, "var_s": round(mk.var_s, 3),
                             "z": round(mk.z, 4), "p": _sig(mk.p),
                             "exact": mk.exact, "alpha": ALPHA},
            "theil_sen": {"pct_per_hour": round(ts.slope * per_hour, 4),
                          "low_pct_per_hour": round(ts.low * per_hour, 4),
                          "high_pct_per_hour": round(ts.high * per_hour, 4),
                          "confidence": CONFIDENCE,
                          "intercept_pct": round(ts.intercept, 4)}}


def _sig(x, digits=3):
    """x rounded to digits significant digits (a p-value: 4.32e-05)."""
    return float("%.*g" % (digits, x))


def _unit(t):
    return "hour" if t["slice_sec"] == HOUR else "slice"


def slope_text(t):
    """"Theil-Sen slope +0.110%/h (95% confidence +0.090 to +0.131);
    Mann-Kendall p = 0.0001" - or the least-squares slope alone for a
    trend recorded before these figures."""
    ts, mk = t.get("theil_sen"), t.get("mann_kendall")
    if not ts or not mk:
        return "slope %+.3f%%/h" % t["slope_pct_per_hour"]
    return "Theil-Sen slope %+.3f%%/h (%d%% confidence %+.3f to %+.3f); " \
        "Mann-Kendall p = %s" % (
            ts["pct_per_hour"], round(100 * ts["confidence"]),
            ts["low_pct_per_hour"], ts["high_pct_per_hour"],
            "%.2g" % mk["p"])


def trend_text(t):
    """One line: "degrading: 0.40% -> 2.90% of reads over 1 ms from hour
    1 to 24 (first and last quarter means; Theil-Sen slope +0.110%/h (95%
    confidence +0.090 to +0.131); Mann-Kendall p = 1.2e-07)"; or why
    there is no flag."""
    if t is None:
        return "no trend: no analysis"
    n = len(t["series"])
    if t["flag"] is None:
        return "no trend: %s" % (t.get("why_no_flag") or no_flag_reason(
            n, t["slice_sec"]) or "too few slices")
    return "%s: %.2f%% -> %.2f%% of %s over %s from %s 1 to %d (first and " \
        "last quarter means; %s)" % (
            t["flag"], t["first_quarter_pct"], t["last_quarter_pct"],
            t["histogram"], t["threshold"], _unit(t), n, slope_text(t))


def headline(steps):
    """The lines under the verdict for the degrading steps: "step 2 (PASS)
    degrading: ..." - the verdict itself does not change."""
    out = []
    for st in steps:
        t = st.get("trend")
        if t and t["flag"] == "degrading":
            out.append("step %d (%s, %s) %s%s" % (
                st["number"], st["title"], st["result"] or "-",
                "passes, but " if st["result"] == "PASS" else "",
                trend_text(t)))
    return out


def markdown_lines(steps):
    """summary.md's list of every step's trend (none: no lines)."""
    lines = ["- step %d: %s" % (st["number"],
                                md_text(trend_text(st["trend"])))
             for st in steps if st.get("trend")]
    return ["Trend of each step (the verdict does not depend on it):",
            ""] + lines + [""] if lines else []


def _esc(text):
    return (str(text).replace("&", "&amp;").replace("<", "&lt;")
            .replace(">", "&gt;").replace('"', "&quot;"))


def svg_chart(t, width=360, height=90):
    """A small inline SVG: the series as a line (the Theil-Sen line
    dashed), the y axis from 0 to the highest value; "" without points."""
    if not t or not t["series"]:
        return ""
    ys = [p["pct"] for p in t["series"]]
    top = max(max(ys), FLOOR_PCT)
    left, right, up, down = 44, 8, 8, 18
    w, h = width - left - right, height - up - down
    n = len(ys)

    def xp(k):
        return left + (w * k / (n - 1) if n > 1 else w / 2)

    def yp(v):
        return up + h - h * min(max(v, 0.0), top) / top
    pts = " ".join("%.1f,%.1f" % (xp(k), yp(v)) for k, v in enumerate(ys))
    color = {"degrading": "#d62728", "improving": "#2ca02c"}.get(
        t["flag"], "#1f77b4")
    ts = theil_sen(ys)
    s, b = ts.slope, ts.intercept
    out = ['<svg xmlns="http://www.w3.org/2000/svg" class="trend" '
           'width="%d" height="%d" viewBox="0 0 %d %d" role="img">'
           % (width, height, width, height),
           "<title>%s</title>" % _esc(trend_text(t)),
           '<rect x="%d" y="%d" width="%d" height="%d" fill="none" '
           'stroke="#ccc"/>' % (left, up, w, h),
           '<text x="%d" y="%d" font-size="10" text-anchor="end">%s%%</text>'
           % (left - 3, up + 8, _esc("%.2f" % top)),
           '<text x="%d" y="%d" font-size="10" text-anchor="end">0</text>'
           % (left - 3, up + h),
           '<text x="%d" y="%d" font-size="10">%s 1</text>'
           % (left, height - 4, _unit(t)),
           '<text x="%d" y="%d" font-size="10" text-anchor="end">%d</text>'
           % (left + w, height - 4, n)]
    if n > 1:
        out.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" '
                   'stroke="#888" stroke-dasharray="4,3"/>'
                   % (xp(0), yp(b), xp(n - 1), yp(b + s * (n - 1))))
    out.append('<polyline fill="none" stroke="%s" stroke-width="1.5" '
               'points="%s"/>' % (color, pts))
    out.append("</svg>")
    return "".join(out)
