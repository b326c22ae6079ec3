"""The --plot chart: SVG of % over each displayed threshold against time,
one panel per histogram, series thinned to two points per pixel column."""

import math
import os
import textwrap

from act.latency.judge import DEFAULT_CRITERIA, Criterion, fmt_num
from act.latency.text import long_slice_note, result_line, why_incomplete


BANNER_WIDTH = 95                 # characters per line of a plot banner
_COLORS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
           "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf")


def escape(text):
    """Text for SVG character data and attribute values."""
    return (text.replace("&", "&amp;").replace("<", "&lt;")
            .replace(">", "&gt;").replace('"', "&quot;"))


def _nice_step(span, ticks=6):
    """A round tick step giving about `ticks` ticks over span."""
    if span <= 0:
        return 1
    raw = span / ticks
    mag = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 5, 10):
        if raw <= m * mag:
            return m * mag
    return 10 * mag


def _fmt_tick(x):
    return ("%.6f" % x).rstrip("0").rstrip(".")


_DASHES = ("", "4,2", "1,2", "9,2,1,2", "14,3", "1,5", "9,2,1,2,1,2")


class Thinner:
    """thin_points(), fed point by point: add((x, y, k)) in x order, then
    points() - what thin_points() of all of them returns."""

    def __init__(self):
        self.out = []
        self.col = self.lo = self.hi = None

    def add(self, p):
        c = math.floor(p[0])
        if c != self.col:
            if self.col is not None:
                self.out += _column(self.lo, self.hi)
            self.col, self.lo, self.hi = c, p, p
        elif p[1] < self.lo[1]:
            self.lo = p             # higher on the chart: SVG y grows down
        elif p[1] > self.hi[1]:
            self.hi = p

    def points(self):
        out = list(self.out)
        if self.col is not None:
            out += _column(self.lo, self.hi)
        return out


def thin_points(points):
    """The points of a polyline, thinned for drawing.

    points: (x, y, k) in x order (pixels, and the slice index).  Of the
    points that fall in the same whole-pixel column only the highest and
    the lowest are kept, in slice order: at most two per column, so a chart
    stays small however many slices it has, and every peak is still drawn.
    """
    t = Thinner()
    for p in points:
        t.add(p)
    return t.points()


def _series(a, nb, xpix, ypix, rpix=None):
    """One analysis's thinned series, [i][j] for histogram i, displayed
    bucket j (and j = nb its rates, with rpix(i, rate) their y), read back
    from its spool in one pass; and, for a short run (60 slices or fewer),
    every value, for the markers (else None)."""
    n = len(a.histograms)
    thinners = [[Thinner() for _ in range(nb + 1)] for _ in range(n)]
    few = a.count <= 60
    values = [[[] for _ in range(nb)] for _ in range(n)] if few else None
    k = 0
    for batch in a.batches():
        m = len(batch[0][1])
        xs = [xpix(end) for end in range(a.slice_sec * (k + 1),
                                         a.slice_sec * (k + m + 1),
                                         a.slice_sec)]
        ks = range(k, k + m)
        for i, (vals, rates, ops) in enumerate(batch):
            for j in range(nb):
                add = thinners[i][j].add
                for p in zip(xs, map(ypix, vals[j]), ks):
                    add(p)
                if few:
                    values[i][j] += vals[j]
            if rpix is not None:
                add = thinners[i][nb].add
                for p in zip(xs, [rpix(i, r) for r in rates], ks):
                    add(p)
        k += m
    return ([[t.points() for t in row] for row in thinners], values)


def _column(lo, hi):
    """The points kept of one pixel column, in slice order."""
    if lo is hi:
        return [lo]
    return [lo, hi] if lo[2] < hi[2] else [hi, lo]


def subtitle(h, slice_sec, n_logs=1):
    """What a plot shows, under its title: the program, the devices, the
    configured load (the config's *-per-sec items), the log's start time
    and the slice (of the first log, when several are compared)."""
    config = h.items(h.config)
    program = {"ACT-STORAGE CONFIGURATION": "act_storage",
               "ACT-INDEX CONFIGURATION": "act_index"}.get(
                   h.config[0] if h.config else "", "ACT")
    devices = config.get("device-names", "devices not named")
    load = ["%s %s" % (k, v) for k, v in config.items()
            if k.endswith("-per-sec") and v not in ("", "0")]
    parts = ["%s on %s" % (program, devices)]
    parts.append(", ".join(load) if load else "no configured rate")
    parts.append("started %s" % h.start if h.start else
                 "start time not in the log")
    parts.append("%d s slices" % slice_sec)
    if n_logs > 1:
        parts.append("(the first of %d logs)" % n_logs)
    return "; ".join(parts)


def _rate_panel(analyses, labels, i, name, y0, thinned, rtop, rstep, box,
                xmax, xunit, multi):
    """The -x panel under histogram i's: its operations per second per
    slice, linear scale, one colour per log."""
    L, T, pw, ph = box
    out = ['<g class="rate-panel" data-rates="%s" transform="translate(0,%d)">'
           % (escape(name), y0),
           '<text class="title" x="%d" y="%d" font-size="14" '
           'font-weight="bold">%s: rate (operations/sec)</text>'
           % (L, T - 14, escape(name)),
           '<rect x="%d" y="%d" width="%d" height="%d" fill="none" '
           'stroke="#444"/>' % (L, T, pw, ph)]
    v = 0.0
    while v <= rtop * (1 + 1e-9):
        y = T + ph * (1 - v / rtop)
        out.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" '
                   'stroke="#ddd"/>' % (L, y, L + pw, y))
        out.append('<text x="%d" y="%.1f" text-anchor="end">%s</text>'
                   % (L - 6, y + 4, _fmt_tick(v)))
        v += rstep
    step = _nice_step(xmax)
    t = 0.0
    while t <= xmax * (1 + 1e-9):
        x = L + pw * (t / xmax if xmax else 0.5)
        out.append('<text x="%.1f" y="%d" text-anchor="middle">%s</text>'
                   % (x, T + ph + 18, _fmt_tick(t)))
        t += step
    out.append('<text x="%d" y="%d" text-anchor="middle">time since '
               'start, %s (slice end)</text>'
               % (L + pw // 2, T + ph + 38, xunit))
    for k, (a, label) in enumerate(zip(analyses, labels)):
        color = _COLORS[k % len(_COLORS)] if multi else "#444"
        pts = thinned[id(a)][0][i][-1]
        out.append('<polyline class="rates"%s points="%s" fill="none" '
                   'stroke="%s" stroke-width="1.5"/>'
                   % (' data-log="%s"' % escape(label) if multi else "",
                      " ".join("%.1f,%.1f" % (x, y) for x, y, _ in pts),
                      color))
        out.append('<text x="%d" y="%d">%s%s (max %.1f/s)</text>'
                   % (L + pw + 16, T + 8 + 16 * k,
                      escape(label) + ": " if multi else "",
                      "rate", a.max[i][1]))
    out.append("</g>")
    return out


def svg_document(a, label=None, extra=False):
    """The --plot chart of one log as SVG text (see svg_chart()), titled
    with label (by default the log's file name)."""
    return svg_chart([a], [label], extra=extra)


class _Frame:
    """The geometry of a chart: the page, each panel's box, the axes'
    scales and the pixel of a value (ypix, xpix, rpix)."""

    W = 980                         # width
    L, R, T, B = 80, 250, 46, 56    # plot margins inside a panel

    def __init__(self, analyses, labels, criteria, extra):
        a0 = analyses[0]
        multi = len(analyses) > 1
        nb = len(a0.buckets)
        self.pw = self.W - self.L - self.R
        if multi:                   # room for the labels in the legend
            self.R = max(self.R, 60 + 7 * max(len(label) + 24
                                              for label in labels))
            self.W = self.L + self.pw + self.R
        entries = nb + len(criteria) + 1 + (len(analyses) if multi else 0)
        self.PH = max(330, self.T + 16 * entries + 24)      # panel height
        self.ph = self.PH - self.T - self.B
        span = max(a.ends[-1] for a in analyses)
        if span >= 4 * 3600:
            self.xunit, self.xdiv = "hours", 3600.0
        elif span >= 4 * 60:
            self.xunit, self.xdiv = "minutes", 60.0
        else:
            self.xunit, self.xdiv = "seconds", 1.0
        self.xmax = span / self.xdiv
        self.lo = lo = 0.01         # smallest non-zero value shown (rounded)
        top_val = max([lo] + [v for a in analyses for vals, rate in a.max
                              for v in vals[:nb]]
                      + [c.limit for c in criteria])
        self.decades = max(1, math.ceil(math.log10(top_val / lo) - 1e-9))
        self.zero_band = 22         # pixels below the lowest decade for 0
        n_hist = len(a0.histograms)
        rtop = [max([1.0] + [a.max[i][1] for a in analyses])
                for i in range(n_hist)]
        self.rstep = [_nice_step(r, 5) for r in rtop]
        self.rtop = [math.ceil(r / st - 1e-9) * st
                     for r, st in zip(rtop, self.rstep)]
        self.extra = extra

    def ypix(self, v):
        T, ph = self.T, self.ph
        if v <= 0:
            return T + ph
        v = max(v, self.lo)
        return T + (ph - self.zero_band) * (
            1 - math.log10(v / self.lo) / self.decades)

    def xpix(self, sec):
        return self.L + self.pw * ((sec / self.xdiv) / self.xmax
                                   if self.xmax else 0.5)

    def rpix(self, i, rate):
        return self.T + self.ph * (1 - rate / self.rtop[i])


def _banners(analyses, labels, result):
    """The red (or green) lines at the top: (class, color, text), one per
    line - an INCOMPLETE run, the --check result."""
    a0 = analyses[0]
    multi = len(analyses) > 1
    banners = []
    for a, label in zip(analyses, labels):
        if not a.run.complete:
            banners += [("incomplete", "#d62728", line)
                        for line in textwrap.wrap(
                            "INCOMPLETE: " + ("%s: " % label if multi else "")
                            + why_incomplete(a.run), BANNER_WIDTH)]
    if a0.results is not None:
        if not multi:
            result = result_line(a0, long_slice_note(a0))
        color = "#2ca02c" if result.startswith("result: PASS") \
            else "#d62728"
        banners += [("result", color, line) for line in textwrap.wrap(
            result, BANNER_WIDTH)]
    return banners


def _axes(fr, name):
    """A panel's title, frame and axes: the y axis in decades (0 at the
    bottom), the x axis in time."""
    L, T, pw, ph = fr.L, fr.T, fr.pw, fr.ph
    out = ['<text class="title" x="%d" y="%d" font-size="14" '
           'font-weight="bold">%s</text>' % (L, T - 14, escape(name)),
           '<rect x="%d" y="%d" width="%d" height="%d" fill="none" '
           'stroke="#444"/>' % (L, T, pw, ph)]
    # y axis: decades, and 0 at the bottom
    ticks = [(0.0, "0")] + [(fr.lo * 10 ** d, _fmt_tick(fr.lo * 10 ** d))
                            for d in range(fr.decades + 1)]
    for v, label in ticks:
        y = fr.ypix(v)
        out.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" '
                   'stroke="#ddd"/>' % (L, y, L + pw, y))
        out.append('<text x="%d" y="%.1f" text-anchor="end">%s</text>'
                   % (L - 6, y + 4, label))
    out.append('<text x="18" y="%d" text-anchor="middle" '
               'transform="rotate(-90 18 %d)">%% over threshold '
               '(log scale)</text>' % (T + ph // 2, T + ph // 2))
    # x axis
    step = _nice_step(fr.xmax)
    t = 0.0
    while t <= fr.xmax * (1 + 1e-9):
        x = L + pw * (t / fr.xmax if fr.xmax else 0.5)
        out.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" '
                   'stroke="#444"/>' % (x, T + ph, x, T + ph + 5))
        out.append('<text x="%.1f" y="%d" text-anchor="middle">%s</text>'
                   % (x, T + ph + 18, _fmt_tick(t)))
        t += step
    out.append('<text x="%d" y="%d" text-anchor="middle">time since '
               'start, %s (slice end)</text>'
               % (L + pw // 2, T + ph + 38, fr.xunit))
    return out


def _criteria_lines(fr, analyses, name, criteria, verdicts):
    """The criteria of a panel, as dashed lines (on the judged histograms
    only), FAIL where a log fails one; and their legend entries."""
    a0 = analyses[0]
    multi = len(analyses) > 1
    buckets = a0.buckets
    out, legend = [], []
    judged = name in a0.judged if not multi else \
        any(name in a.judged for a in analyses)
    for c in criteria if judged else ():
        color = "#000"
        if multi:
            color = "#999"
        elif c.bucket in buckets:
            color = _COLORS[buckets.index(c.bucket) % len(_COLORS)]
        y = fr.ypix(c.limit)
        out.append('<line class="criterion" x1="%d" y1="%.1f" x2="%d" '
                   'y2="%.1f" stroke="%s" stroke-width="1.5" '
                   'stroke-dasharray="7,4"/>'
                   % (fr.L, y, fr.L + fr.pw, y, color))
        failed = verdicts.get((name, c.bucket, c.limit))
        ok = None if failed is None else not failed
        if ok is False:
            out.append('<text class="fail" x="%d" y="%.1f" '
                       'text-anchor="end" fill="#d62728" '
                       'font-weight="bold">FAIL%s</text>'
                       % (fr.L + fr.pw - 4, y - 4, ": " + escape(
                           ", ".join(failed)) if multi else ""))
        legend.append(("criterion" if ok is not False else "fail",
                       color, "", "limit %s%% over %s%s"
                       % (fmt_num(c.limit), c.label,
                          "" if ok is None else
                          ": PASS" if ok else ": FAIL")))
    if not judged:
        legend.append(("note", None, "", "not judged by the criteria"))
    return out, legend


def _series_lines(fr, analyses, labels, i, thinned, legend):
    """Histogram i's series: one polyline per log and displayed threshold
    (markers on a short run); their entries put into the legend."""
    a0 = analyses[0]
    multi = len(analyses) > 1
    buckets = a0.buckets
    out = []
    for a, label in zip(analyses, labels):
        for j, b in enumerate(buckets):
            if multi:
                color = _COLORS[labels.index(label) % len(_COLORS)]
                dash = _DASHES[j % len(_DASHES)]
            else:
                color, dash = _COLORS[j % len(_COLORS)], ""
            pts = thinned[id(a)][0][i][j]
            out.append('<polyline class="series"%s data-threshold="%d" '
                       'points="%s" fill="none" stroke="%s" '
                       'stroke-width="1.5"%s/>'
                       % (' data-log="%s"' % escape(label) if multi else "",
                          1 << b, " ".join("%.1f,%.1f" % (x, y)
                                           for x, y, _ in pts), color,
                          ' stroke-dasharray="%s"' % dash if dash else ""))
            if a.count <= 60:
                for end, v in zip(a.ends, thinned[id(a)][1][i][j]):
                    out.append('<circle cx="%.1f" cy="%.1f" r="2.5" '
                               'fill="%s"/>' % (fr.xpix(end), fr.ypix(v),
                                                color))
            if not multi:
                legend.insert(j, ("series", color, "", "&gt; %d %s (max "
                                  "%.2f%%)" % (1 << b, a0.unit,
                                               a.max[i][0][j])))
    if multi:
        items = [("series", _COLORS[k % len(_COLORS)], "",
                  "%s (max %.2f%% &gt; %d %s)"
                  % (escape(label), a.max[i][0][0], 1 << buckets[0],
                     a0.unit))
                 for k, (a, label) in enumerate(zip(analyses, labels))]
        items += [("series", "#444", _DASHES[j % len(_DASHES)],
                   "&gt; %d %s" % (1 << b, a0.unit))
                  for j, b in enumerate(buckets)]
        legend[:0] = items
    return out


def _legend(fr, legend):
    """A panel's legend, right of its plot: a line (or a note) and its
    text per entry (kind, color, dash, text)."""
    out = []
    lx, ly = fr.L + fr.pw + 16, fr.T + 4
    for k, (kind, color, dash, text) in enumerate(legend):
        y = ly + 16 * k
        if kind == "note":
            out.append('<text x="%d" y="%d" fill="#666">%s</text>'
                       % (lx, y + 4, text))
            continue
        if kind != "series":
            dash = "7,4"
        dash = ' stroke-dasharray="%s"' % dash if dash else ""
        out.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" '
                   'stroke-width="2"%s/>' % (lx, y, lx + 24, y, color,
                                              dash))
        style = (' class="fail" fill="#d62728" font-weight="bold"'
                 if kind == "fail" else "")
        out.append('<text x="%d" y="%d"%s>%s</text>'
                   % (lx + 30, y + 4, style, text))
    return out


def svg_chart(analyses, labels, result=None, extra=False):
    """The --plot chart as SVG text: one panel per histogram, % of
    operations over each displayed threshold against time (log scale),
    criteria as dashed lines on the panels the criteria judge (reads;
    writes with commit-to-device), banners in red at the top for an
    INCOMPLETE run and for a --check that did not pass; extra (-x): a
    panel of each histogram's rates under it.

    One log (labels: [its label, or None for its file name]): one colour
    per threshold.  Several logs (labels: their names): one colour per log,
    one dash pattern per threshold, and result is the overall --check
    result line, if any.
    Series are thinned (thin_points()): the size does not grow with the
    number of slices.
    """
    a0 = analyses[0]
    multi = len(analyses) > 1
    nb = len(a0.buckets)
    criteria = a0.criteria or [Criterion(ms, pct, a0.header.microsecond)
                               for ms, pct in DEFAULT_CRITERIA]
    verdicts = {}                   # (hist, bucket, limit) -> failed labels
    for a, label in zip(analyses, labels):
        for r in a.results or ():
            failed = verdicts.setdefault(
                (r["histogram"], r["bucket"], r["limit_pct"]), [])
            if not r["pass"]:
                failed.append(label)
    fr = _Frame(analyses, labels, criteria, extra)
    thinned = {id(a): _series(a, nb, fr.xpix, fr.ypix,
                              fr.rpix if extra else None)
               for a in analyses}
    banners = _banners(analyses, labels, result)
    sub = 18                        # the subtitle's line
    top = 30 + sub + 22 * len(banners)      # where the first panel starts
    PH = fr.PH
    height = PH * len(a0.histograms) * (2 if extra else 1) + top
    what = ", ".join(labels) if multi else \
        labels[0] or os.path.basename(a0.log)
    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           '<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
           'viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">'
           % (fr.W, height, fr.W, height),
           '<title>%s: latency, %% of operations over each threshold'
           '</title>' % escape(", ".join(labels) if multi else a0.log),
           '<rect width="100%" height="100%" fill="white"/>',
           '<text x="%d" y="20" font-size="14">%s: %% of operations over '
           'each threshold, %d s slices</text>'
           % (fr.L, escape(what), a0.slice_sec),
           '<text class="subtitle" x="%d" y="38" fill="#444">%s</text>'
           % (fr.L, escape(subtitle(a0.header, a0.slice_sec,
                                    len(analyses))))]
    for k, (cls, color, text) in enumerate(banners):
        out.append('<text class="banner %s" x="%d" y="%d" font-size="15" '
                   'font-weight="bold" fill="%s">%s</text>'
                   % (cls, fr.L, 42 + sub + 22 * k, color, escape(text)))
    for i, name in enumerate(a0.histograms):
        y0 = top + i * PH * (2 if extra else 1)
        out.append('<g class="panel" data-histogram="%s" '
                   'transform="translate(0,%d)">' % (escape(name), y0))
        out += _axes(fr, name)
        lines, legend = _criteria_lines(fr, analyses, name, criteria,
                                        verdicts)
        out += lines
        out += _series_lines(fr, analyses, labels, i, thinned, legend)
        out += _legend(fr, legend)
        out.append("</g>")
        if extra:
            out += _rate_panel(analyses, labels, i, name, y0 + PH, thinned,
                               fr.rtop[i], fr.rstep[i],
                               (fr.L, fr.T, fr.pw, fr.ph), fr.xmax,
                               fr.xunit, multi)
    out.append("</svg>")
    return "\n".join(out) + "\n"
