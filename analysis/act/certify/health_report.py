"""The drives' health in act_certify's reports (docs/certify.md, "The
drive's health"): per step, each drive's health at the start and end of
its run, the changes (errors, spare, percentage used, host bytes written,
WAF), the max temperature and the throttling - and a chart of the
temperature and the throttled spans on the time axis of the slices' reads
over 1 ms; per campaign, each drive's health at its first and last
sample; per drive on the fleet page, the max temperature and the WAF.

Pure: from a log's drives ({device: DriveHealth}, act.logfile.health) and
their summaries (act.latency.health) to summary.json's dicts, and from
those to text, HTML and SVG. A log with no health lines (a program from
before them) has no health (None); a drive with no health data is one
line, in its source line's words."""

from act.certify.fmt import fmt_bytes, fmt_duration, md_text
from act.certify.page import esc
from act.latency.health import UNIT_BYTES, summarize, throttle_note

MAX_POINTS = 720                # a chart's points per drive, at most
SAMPLE_FIELDS = ("warning", "temp_c", "spare", "spare_threshold", "used",
                 "media_errors", "error_log_entries", "units_read",
                 "units_written", "warning_temp_min", "critical_temp_min",
                 "throttle_transitions", "throttle_sec", "wctemp_c",
                 "cctemp_c", "physical_written")
SUMMARY_FIELDS = ("max_temp_c", "throttle_sec", "throttle_transitions",
                  "new_media_errors", "new_error_log_entries",
                  "spare_start", "spare_end", "used_start", "used_end",
                  "bytes_written", "waf")


# ---------------------------------------------------------------------------
# summary.json: a step's health, the campaign's, a drive's on the fleet page

def _plain(v):
    return list(v) if isinstance(v, tuple) else v


def sample_json(sample):
    """A HealthSample as summary.json keeps it: t (0 for the start sample)
    and its typed fields that the line has; None for no sample."""
    if sample is None:
        return None
    out = {"t": sample.t or 0.0}
    for name in SAMPLE_FIELDS:
        v = getattr(sample, name, None)
        if v is not None:
            out[name] = _plain(v)
    return out


def _throttle_total(sample):
    pair = sample.throttle_sec
    return None if pair is None else pair[0] + pair[1]


def chart_points(samples):
    """[[t, temperature C, throttle seconds so far]] of the samples read
    (the start sample at 0), at most MAX_POINTS: a longer run's samples
    are taken in groups, each its highest temperature at its last time."""
    pts = [[s.t or 0.0, s.temp_c, _throttle_total(s)] for s in samples
           if s.error is None]
    if len(pts) <= MAX_POINTS:
        return pts
    k = -(-len(pts) // MAX_POINTS)
    out = []
    for i in range(0, len(pts), k):
        group = pts[i:i + k]
        temps = [p[1] for p in group if p[1] is not None]
        out.append([group[-1][0], max(temps) if temps else None,
                    group[-1][2]])
    return out


def none_text(drive):
    """The line of a drive with no health data, in its source line's words:
    "/tmp/x/dev1: no drive health (a regular file)"."""
    why = drive.why_none if hasattr(drive, "why_none") else None
    if why:
        return "%s: no drive health (%s)" % (drive.device, why)
    return "%s: no drive health (%s)" % (
        drive.device, drive.source or "no health sample was read")


def drive_json(drive, summary):
    """One drive's health in a step (summary.json): its source, start and
    end samples, the HealthSummary's changes and problems, the throttle
    note and the chart's points; a drive with no health data: its
    none_text."""
    out = {"device": drive.device, "source": drive.source}
    samples = [s for s in drive.samples if s.error is None]
    if not drive.readable or summary is None or not samples:
        out.update(readable=False, none_text=none_text(drive))
        return out
    out.update(readable=True, start=sample_json(summary.start),
               end=sample_json(summary.end))
    for name in SUMMARY_FIELDS:
        out[name] = _plain(getattr(summary, name, None))
    out["problems"] = list(summary.problems or ())
    out["missing"] = list(getattr(summary, "missing", None) or ())
    note = throttle_note(summary) if summary.throttle_sec else None
    out["throttle_note"] = note or None
    out["samples"] = chart_points(drive.samples)
    return out


def step_health(drives):
    """The health of a step's run (summary.json's step "health"): {"drives":
    [drive_json per device]}, or None when its log has no health lines (a
    program from before them, or no log)."""
    if not drives:
        return None
    sums = summarize(drives)
    return {"drives": [drive_json(d, sums.get(dev))
                       for dev, d in drives.items()]}


def campaign_health(steps):
    """Each drive's health at the start and end of the campaign: its first
    and last sample over the steps' runs (summary.json's "health"), the
    step of each; [] when no step has health data."""
    first, last = {}, {}
    for st in steps:
        if st.get("same_run_as"):
            continue                # that run is its own step's
        for d in (st.get("health") or {}).get("drives", ()):
            if not d.get("readable"):
                continue
            first.setdefault(d["device"], (st["number"], d))
            last[d["device"]] = (st["number"], d)
    return [{"device": dev, "source": d["source"],
             "start_step": n, "start": d["start"],
             "end_step": last[dev][0], "end": last[dev][1]["end"]}
            for dev, (n, d) in first.items()]


def drive_extremes(steps):
    """{device: {"max_temp_c", "waf"}} over the steps' runs (the fleet
    page): the highest temperature, and the write amplification of all
    the steps' writes (their physical bytes over their host bytes; None
    when no step had both)."""
    out = {}
    for st in steps:
        if st.get("same_run_as"):
            continue
        for d in (st.get("health") or {}).get("drives", ()):
            if not d.get("readable"):
                continue
            e = out.setdefault(d["device"], {"max_temp_c": None,
                                             "physical": 0, "host": 0})
            if d.get("max_temp_c") is not None:
                e["max_temp_c"] = max(e["max_temp_c"] or d["max_temp_c"],
                                      d["max_temp_c"])
            phys = _change(d, "physical_written")
            host = d.get("bytes_written")
            if phys is not None and host:
                e["physical"] += phys
                e["host"] += host
    return {dev: {"max_temp_c": e["max_temp_c"],
                  "waf": round(e["physical"] / e["host"], 3)
                  if e["host"] else None} for dev, e in out.items()}


# ---------------------------------------------------------------------------
# Text

def _change(d, name):
    a, b = (d.get("start") or {}).get(name), (d.get("end") or {}).get(name)
    return None if a is None or b is None else b - a


def _fmt(v, unit=""):
    return "-" if v is None else "%s%s" % (v, unit)


def _units(v):
    return None if v is None else fmt_bytes(v * UNIT_BYTES)


def _throttle(s):
    pair = s.get("throttle_sec")
    return None if pair is None else "%d s" % (pair[0] + pair[1])


def _warning(s):
    v = s.get("warning")
    return None if v is None else "0x%02x" % v


def _signed(v, unit=""):
    return "-" if v is None else "%+d%s" % (v, unit)


def delta_rows(d):
    """A drive's rows in a step's table: (what, start, end, change), the
    rows its samples have."""
    s, e = d.get("start") or {}, d.get("end") or {}
    rows = []

    def add(what, name, show, change=None):
        if s.get(name) is None and e.get(name) is None:
            return
        rows.append((what, show(s.get(name)), show(e.get(name)),
                     _signed(_change(d, name)) if change is None
                     else change))

    def unit(u):
        return lambda v: _fmt(v, u)
    add("critical warning", "warning", lambda v: _fmt(
        None if v is None else "0x%02x" % v), "")
    add("temperature", "temp_c", unit(" C"),
        "max %s" % _fmt(d.get("max_temp_c"), " C"))
    add("available spare", "spare", unit("%"),
        _signed(_change(d, "spare"), "%"))
    add("percentage used", "used", unit("%"),
        _signed(_change(d, "used"), "%"))
    add("media and data integrity errors", "media_errors", unit(""))
    add("error log entries", "error_log_entries", unit(""))
    add("host data written", "units_written", lambda v: _fmt(_units(v)),
        _fmt(None if d.get("bytes_written") is None
             else fmt_bytes(d["bytes_written"])))
    add("physical data written (OCP)", "physical_written",
        lambda v: _fmt(None if v is None else fmt_bytes(v)),
        "WAF %s" % _waf(d.get("waf")))
    if s.get("throttle_sec") is not None or e.get("throttle_sec") is not None:
        tr = _change_pair(d, "throttle_transitions")
        rows.append(("thermal throttling", _fmt(_throttle(s)),
                     _fmt(_throttle(e)), "%s%s" % (
                         _signed(d.get("throttle_sec"), " s"),
                         "" if tr is None else ", %d transition%s" % (
                             tr, "" if tr == 1 else "s"))))
    return rows


def _change_pair(d, name):
    a, b = (d.get("start") or {}).get(name), (d.get("end") or {}).get(name)
    return None if a is None or b is None else sum(b) - sum(a)


def _waf(v):
    return "-" if v is None else "%.2f" % v


def drive_line(d):
    """One line of a drive's health in a step: "/dev/x (nvme smart log):
    40 -> 62 C (max 78 C), throttled 410 s, media errors +1, ...", or its
    none_text."""
    if not d.get("readable"):
        return d["none_text"]
    parts = []
    s, e = d.get("start") or {}, d.get("end") or {}
    if d.get("max_temp_c") is not None:
        parts.append("%s -> %s C (max %d C)" % (
            _fmt(s.get("temp_c")), _fmt(e.get("temp_c")), d["max_temp_c"]))
    if d.get("throttle_sec") is not None:
        parts.append("throttled %d s" % d["throttle_sec"])
    for what, name in (("media errors", "media_errors"),
                       ("error log entries", "error_log_entries")):
        if _change(d, name) is not None:
            parts.append("%s %s" % (what, _signed(_change(d, name))))
    for what, name in (("spare", "spare"), ("used", "used")):
        if s.get(name) is not None:
            parts.append("%s %s%% -> %s%%" % (what, s[name],
                                              _fmt(e.get(name))))
    if d.get("bytes_written") is not None:
        parts.append("written %s" % fmt_bytes(d["bytes_written"]))
    if d.get("waf") is not None:
        parts.append("WAF %s" % _waf(d["waf"]))
    return "%s (%s): %s" % (d["device"], d["source"],
                            ", ".join(parts) or "no field read")


def sample_text(s):
    """A sample as text: "temp 40 C, spare 100%, used 0%, media errors 0,
    error log entries 0, written 0 bytes, warning 0x00"."""
    parts = []
    for what, v in (("temp", _fmt(s.get("temp_c"), " C")
                     if s.get("temp_c") is not None else None),
                    ("spare", _fmt(s.get("spare"), "%")
                     if s.get("spare") is not None else None),
                    ("used", _fmt(s.get("used"), "%")
                     if s.get("used") is not None else None),
                    ("media errors", s.get("media_errors")),
                    ("error log entries", s.get("error_log_entries")),
                    ("written", _units(s.get("units_written"))),
                    ("throttled", _throttle(s)),
                    ("warning", _warning(s))):
        if v is not None:
            parts.append("%s %s" % (what, v))
    return ", ".join(parts) or "no field read"


def campaign_lines(health):
    """The campaign's drives' health, a line each: "/dev/x: start (step 1):
    ...; end (step 3): ..."."""
    return ["%s (%s): at the start (step %d): %s; at the end (step %d): %s"
            % (h["device"], h["source"], h["start_step"],
               sample_text(h["start"] or {}), h["end_step"],
               sample_text(h["end"] or {})) for h in health]


# ---------------------------------------------------------------------------
# The chart: temperature and throttling over the reads over 1 ms

COLORS = ("#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22")


def throttle_spans(points):
    """[(from, to)] seconds in which the drive throttled, from the points'
    throttle seconds so far: between two samples whose count grew by n,
    the last n seconds (at most the whole gap); spans that touch are
    one."""
    spans = []
    for (t0, _, a), (t1, _, b) in zip(points, points[1:]):
        if a is not None and b is not None and b > a:
            start = max(t0, t1 - (b - a))
            if spans and spans[-1][1] >= start:
                spans[-1] = (spans[-1][0], t1)
            else:
                spans.append((start, t1))
    return spans


def health_chart(health, trend, ran_sec=None, width=720):
    """Inline SVG: the drives' temperature (a line per drive, WCTEMP
    dashed) with the throttled spans shaded, over the slices' share of
    reads over 1 ms (the step's trend series), on one time axis in seconds
    of the run; "" when no drive has a temperature."""
    drives = [d for d in (health or {}).get("drives", ())
              if d.get("readable") and any(p[1] is not None
                                           for p in d.get("samples", ()))]
    if not drives:
        return ""
    series = (trend or {}).get("series") or []
    slice_sec = (trend or {}).get("slice_sec") or 1
    end = max([ran_sec or 0] + [p[0] for d in drives for p in d["samples"]]
              + [p["end_sec"] or 0 for p in series]) or 1
    temps = [p[1] for d in drives for p in d["samples"] if p[1] is not None]
    marks = [d["start"].get(k) for d in drives for k in ("wctemp_c",)
             if (d.get("start") or {}).get(k)]
    lo = min(temps) - 5
    hi = max(temps + marks) + 5
    left, right, top_h, gap, low_h, up, down = 48, 12, 110, 26, 60, 14, 20
    w = width - left - right
    height = up + top_h + gap + low_h + down
    low_top = up + top_h + gap

    def xp(t):
        return left + w * min(max(t, 0), end) / end

    def yt(c):
        return up + top_h - top_h * (c - lo) / (hi - lo)
    pct_top = max([p["pct"] for p in series] + [0.1])

    def yr(v):
        return low_top + low_h - low_h * min(max(v, 0), pct_top) / pct_top
    out = ['<svg xmlns="http://www.w3.org/2000/svg" class="health" '
           'width="%d" height="%d" viewBox="0 0 %d %d" role="img">'
           % (width, height, width, height),
           "<title>drive temperature and throttling, and reads over 1 ms, "
           "over the run</title>",
           '<rect x="%d" y="%d" width="%d" height="%d" fill="none" '
           'stroke="#ccc"/>' % (left, up, w, top_h),
           '<rect x="%d" y="%d" width="%d" height="%d" fill="none" '
           'stroke="#ccc"/>' % (left, low_top, w, low_h),
           '<text x="%d" y="%d" font-size="10">temperature (C); throttled: '
           'shaded</text>' % (left, up - 3),
           '<text x="%d" y="%d" font-size="10" text-anchor="end">%d</text>'
           % (left - 3, up + 8, hi),
           '<text x="%d" y="%d" font-size="10" text-anchor="end">%d</text>'
           % (left - 3, up + top_h, lo),
           '<text x="%d" y="%d" font-size="10">reads over 1 ms (%%) per '
           'slice</text>' % (left, low_top - 3),
           '<text x="%d" y="%d" font-size="10" text-anchor="end">%s%%</text>'
           % (left - 3, low_top + 8, esc("%.2f" % pct_top)),
           '<text x="%d" y="%d" font-size="10" text-anchor="end">0</text>'
           % (left - 3, low_top + low_h),
           '<text x="%d" y="%d" font-size="10">0 s</text>'
           % (left, height - 4),
           '<text x="%d" y="%d" font-size="10" text-anchor="end">%s</text>'
           % (left + w, height - 4, esc(fmt_duration(end)))]
    for d in drives:
        for a, b in throttle_spans(d["samples"]):
            out.append('<rect class="throttle" data-device="%s" '
                       'data-from="%g" data-to="%g" x="%.1f" y="%d" '
                       'width="%.1f" height="%d" fill="#f4a582" '
                       'fill-opacity="0.5"/>' % (
                           esc(d["device"]), a, b, xp(a), up,
                           max(xp(b) - xp(a), 1.0), top_h))
    for c in sorted(set(marks)):
        out.append('<line class="wctemp" x1="%d" x2="%d" y1="%.1f" '
                   'y2="%.1f" stroke="#e08a00" stroke-dasharray="4,3"/>'
                   '<text x="%d" y="%.1f" font-size="9" text-anchor="end" '
                   'fill="#e08a00">WCTEMP %d C</text>'
                   % (left, left + w, yt(c), yt(c), left + w - 2,
                      yt(c) - 2, c))
    for k, d in enumerate(drives):
        pts = [p for p in d["samples"] if p[1] is not None]
        color = COLORS[k % len(COLORS)]
        out.append('<polyline class="temp" data-device="%s" '
                   'data-values="%s" fill="none" stroke="%s" '
                   'stroke-width="1.5" points="%s"/>' % (
                       esc(d["device"]), " ".join("%g:%d" % (p[0], p[1])
                                                  for p in pts), color,
                       " ".join("%.1f,%.1f" % (xp(p[0]), yt(p[1]))
                                for p in pts)))
        if len(drives) > 1:
            out.append('<text x="%d" y="%d" font-size="9" fill="%s">%s'
                       '</text>' % (left + 4 + 150 * k, up + 10, color,
                                    esc(d["device"])))
    if series:
        steps = []
        for p in series:
            e = p["end_sec"] or 0
            steps.append("%.1f,%.1f %.1f,%.1f" % (
                xp(e - slice_sec), yr(p["pct"]), xp(e), yr(p["pct"])))
        out.append('<polyline class="reads" data-values="%s" fill="none" '
                   'stroke="#1f77b4" stroke-width="1.5" points="%s"/>' % (
                       " ".join("%g:%g" % (p["end_sec"] or 0, p["pct"])
                                for p in series), " ".join(steps)))
    out.append("</svg>")
    return "".join(out)


# ---------------------------------------------------------------------------
# The pages' parts

def step_html(st):
    """A step's "Drive health" part of report.html ("" when its log has no
    health lines)."""
    health = st.get("health")
    if not health:
        return ""
    h = ['<div class="health" id="health-%d"><h4>Drive health</h4>'
         % st["number"]]
    for d in health["drives"]:
        if not d.get("readable"):
            h.append('<p class="muted">%s</p>' % esc(d["none_text"]))
            continue
        h.append('<table class="health" data-device="%s"><tr><th>%s (%s)'
                 '</th><th>start</th><th>end</th><th>change</th></tr>'
                 % (esc(d["device"]), esc(d["device"]), esc(d["source"])))
        for row in delta_rows(d):
            h.append("<tr><td>%s</td>%s</tr>" % (esc(row[0]), "".join(
                '<td class="num">%s</td>' % esc(x) for x in row[1:])))
        h.append("</table>")
        notes = ["problem: %s" % p for p in d["problems"]] + \
            ([d["throttle_note"]] if d.get("throttle_note") else []) + \
            ["not read: %s" % m for m in d["missing"]]
        if notes:
            h.append('<ul class="health-notes">%s</ul>' % "".join(
                "<li>%s</li>" % esc(n) for n in notes))
    chart = health_chart(health, st.get("trend"), st.get("ran_sec"))
    if chart:
        h.append('<div class="plot">%s</div>' % chart)
    h.append("</div>")
    return "\n".join(h)


def campaign_html(s):
    """report.html's "Drive health" section: each drive at the start and
    end of the campaign ("" when no step has health data)."""
    health = s.get("health") or []
    if not health:
        return ""
    h = ['<h2>Drive health</h2><table id="health"><tr><th>device</th>'
         "<th>source</th><th>campaign start</th><th>campaign end</th></tr>"]
    for d in health:
        h.append("<tr><td>%s</td><td>%s</td><td>step %d: %s</td>"
                 "<td>step %d: %s</td></tr>" % (
                     esc(d["device"]), esc(d["source"]), d["start_step"],
                     esc(sample_text(d["start"] or {})), d["end_step"],
                     esc(sample_text(d["end"] or {}))))
    h.append("</table>")
    h.append('<p class="muted">The first and the last sample of each '
             "drive over the steps' runs; each step's part below has its "
             "changes and its temperature chart (docs/certify.md, \"The "
             "drive's health\").</p>")
    return "\n".join(h)


def markdown_lines(s):
    """summary.md's "Drive health" section: the campaign's start and end
    per drive, then a line per drive and step ([] when there is no
    health data)."""
    lines = ["- %s" % md_text(x) for x in campaign_lines(s.get("health")
                                                          or [])]
    for st in s["steps"]:
        for d in (st.get("health") or {}).get("drives", ()):
            lines.append("- step %d: %s" % (st["number"],
                                            md_text(drive_line(d))))
            for p in d.get("problems") or ():
                lines.append("  - **problem:** %s" % md_text(p))
            if d.get("throttle_note"):
                lines.append("  - %s" % md_text(d["throttle_note"]))
    return ["## Drive health", ""] + lines + [""] if lines else []


def fleet_text(d):
    """A drive's health on the fleet page: "/dev/x: max 78 C, WAF 1.50"
    (a "-" for what was not read)."""
    return "%s: max %s, WAF %s" % (d["device"], _fmt(d.get("max_temp_c"),
                                                     " C"),
                                   _waf(d.get("waf")))
