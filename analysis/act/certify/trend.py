"""The trend of a step's latency over its run (docs/certify.md, "The
trend"): the share of reads over the first criterion's threshold (1 ms)
slice by slice, its least-squares slope, and a flag - degrading, steady,
improving - that never changes the verdict.  Pure: from the step's
act_latency/1 document to a dict, and from that dict to text and a small
SVG chart."""

from act.certify.fmt import md_text

MIN_SLICES = 4          # fewer slices: no flag (null)
RATIO = 2.0             # last quarter's mean >= RATIO x the first's
FLOOR_PCT = 0.1         # ... and >= FLOOR_PCT: 0.001% -> 0.003% is noise
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


def classify(series):
    """The flag of a series of percentages (see the module's page):
    None with fewer than MIN_SLICES values; "degrading" when the last
    quarter's mean is at least RATIO x the first quarter's, at least
    FLOOR_PCT, and the slope is positive; "improving" the mirror image;
    "steady" otherwise.  Returns (flag, first, last, slope per slice)."""
    n = len(series)
    q = max(1, n // 4)
    first, last = _mean(series[:q]), _mean(series[-q:])
    s = slope(series)
    if n < MIN_SLICES:
        return None, first, last, s
    if last >= RATIO * first and last >= FLOOR_PCT and s > 0:
        return "degrading", first, last, s
    if first >= RATIO * last and first >= FLOOR_PCT and s < 0:
        return "improving", first, last, s
    return "steady", first, last, s


def step_trend(doc, histogram="reads"):
    """The "trend" of a step's summary from its act_latency/1 document
    (None without one): flag, series [{slice, end_sec, pct, rate}],
    threshold, slice_sec, first_quarter_pct, last_quarter_pct,
    slope_pct_per_hour."""
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
    flag, first, last, per_slice = classify([p["pct"] for p in series])
    return {"flag": flag, "histogram": histogram, "threshold": threshold,
            "slice_sec": slice_sec, "series": series,
            "first_quarter_pct": round(first, 3),
            "last_quarter_pct": round(last, 3),
            "slope_pct_per_slice": round(per_slice, 4),
            "slope_pct_per_hour": round(per_slice * HOUR / slice_sec, 4)}


def _unit(t):
    return "hour" if t["slice_sec"] == HOUR else "slice"


def trend_text(t):
    """One line: "degrading: 0.40% -> 2.90% of reads over 1 ms from hour
    1 to 24 (first and last quarter means; slope +0.110%/h)" - per slice
    for a trial's slices; or why there is no flag."""
    if t is None:
        return "no trend: no analysis"
    n = len(t["series"])
    if t["flag"] is None:
        return "no trend: %d slice%s, at least %d needed" % (
            n, "" if n == 1 else "s", MIN_SLICES)
    unit = _unit(t)
    return "%s: %.2f%% -> %.2f%% of %s over %s from %s 1 to %d (first and " \
        "last quarter means; slope %+.3f%%/%s)" % (
            t["flag"], t["first_quarter_pct"], t["last_quarter_pct"],
            t["histogram"], t["threshold"], unit, n,
            t["slope_pct_per_hour"] if unit == "hour" else
            t["slope_pct_per_slice"], "h" if unit == "hour" else "slice")


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
    """A small inline SVG: the series as a line (with the fitted slope
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
    s = slope(ys)
    b = _mean(ys) - s * (n - 1) / 2.0
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
