"""The campaign as Prometheus metrics (docs/metrics.md): the summary's
document (summary.build_summary) in the Prometheus text exposition format,
for node_exporter's textfile collector - render_metrics is pure;
publish.write_metrics writes the file.

Every family is a gauge with HELP and TYPE lines; every series carries
the labels campaign (the campaign directory's name) and host (the
hostname state.json recorded). States (the verdict's, the step's) are
one series per state, 1 for the current one and 0 for the others, so a
query never misses a state that just changed."""

import calendar
import os
import time

from act.certify.health_report import drive_extremes

PREFIX = "act_"
THRESHOLDS_MS = (1, 8, 64)      # the reads over 1, 8 and 64 ms
VERDICT_STATES = ("certified", "certified_with_io_errors",
                  "certified_with_drive_health_warnings",
                  "certified_with_io_errors_and_drive_health_warnings",
                  "not_certified", "unfinished")
STEP_STATES = ("planned", "running", "pass", "fail", "incomplete",
               "not_judged", "invalid", "interrupted", "error", "ended",
               "skipped")

# name (without PREFIX): help - the families in the order they are written
FAMILIES = (
    ("campaign_info", "The campaign: its program, status and load (1)."),
    ("campaign_load_factor", "The campaign's target load, x times the "
     "reference load."),
    ("campaign_in_progress", "1 while an act_certify runs the campaign, "
     "else 0."),
    ("campaign_trial", "1 when the campaign is a trial (--seconds), not a "
     "certification."),
    ("campaign_verdict", "The campaign's verdict so far: 1 for its state, "
     "0 for the others."),
    ("campaign_steps", "The campaign's planned steps."),
    ("campaign_steps_done", "The campaign's steps that have run to their "
     "end."),
    ("campaign_remaining_seconds", "Seconds of steps left to run "
     "(the running step's rest and the steps not run)."),
    ("campaign_last_update_timestamp_seconds", "When this file was "
     "written (Unix time)."),
    ("step_info", "The current step (running, else the last that ran): "
     "its number, kind, test and title (1)."),
    ("step_number", "The current step's number."),
    ("step_load_factor", "The current step's load, x times the reference "
     "load."),
    ("step_state", "The current step's state: 1 for its state, 0 for the "
     "others."),
    ("step_elapsed_seconds", "Seconds the current step has run."),
    ("step_planned_seconds", "The current step's planned duration in "
     "seconds."),
    ("step_remaining_seconds", "Seconds left in the current step."),
    ("step_slice_seconds", "The length of the current step's slices in "
     "seconds."),
    ("step_ops_per_second", "The achieved rate of each histogram of the "
     "current step (operations per second, on average)."),
    ("step_last_slice_over_ratio", "The share of a histogram's operations "
     "over the threshold in the current step's last complete slice."),
    ("step_worst_slice_over_ratio", "The worst slice's share of a judged "
     "histogram's operations over the threshold in the current step so "
     "far (per drive too with several devices)."),
    ("step_limit_ratio", "The pass criterion: the largest share over the "
     "threshold a slice may have."),
    ("drive_temperature_celsius", "The drive's temperature at its last "
     "health sample in the current step."),
    ("drive_max_temperature_celsius", "The drive's highest temperature in "
     "the current step."),
    ("drive_throttle_seconds", "Seconds the drive throttled (thermal "
     "management) in the current step."),
    ("drive_media_errors", "Media errors the drive counted in the "
     "current step."),
    ("drive_spare_ratio", "The drive's available spare at its last health "
     "sample (0-1)."),
    ("drive_used_ratio", "The drive's percentage used (life) at its last "
     "health sample, as a ratio (may pass 1)."),
    ("drive_write_amplification", "The drive's write amplification "
     "(physical bytes over host bytes written) in the current step."),
    ("drive_campaign_max_temperature_celsius", "The drive's highest "
     "temperature over the campaign's steps."),
    ("drive_campaign_write_amplification", "The drive's write amplification "
     "over the campaign's steps."),
)
HELP = dict(FAMILIES)


def label_value(value):
    """A label value escaped for the text format: backslash, double quote
    and line feed."""
    return str(value).replace("\\", "\\\\").replace('"', '\\"') \
        .replace("\n", "\\n")


def help_text(text):
    """A HELP line's text escaped (backslash and line feed)."""
    return text.replace("\\", "\\\\").replace("\n", "\\n")


def fmt_value(v):
    """A sample value: integers as integers, floats in repr (which
    round-trips), booleans as 0/1."""
    if isinstance(v, bool):
        return "1" if v else "0"
    if isinstance(v, int):
        return str(v)
    v = float(v)
    if v != v:
        return "NaN"
    if v in (float("inf"), float("-inf")):
        return "+Inf" if v > 0 else "-Inf"
    return repr(v)


def state_name(text):
    """'NOT JUDGED' -> 'not_judged', 'certified with I/O errors' ->
    'certified_with_io_errors'."""
    out = "".join(ch if ch.isalnum() else "_" for ch in
                  (text or "unknown").lower().replace("/", ""))
    return "_".join(p for p in out.split("_") if p) or "unknown"


def render_metrics(summary, campaign=None):
    """The text of the metrics file for a summary document; campaign: the
    campaign label (default: the campaign directory's name)."""
    c = summary.get("campaign") or {}
    base = {"campaign": campaign or os.path.basename(
        (c.get("directory") or "").rstrip("/")) or "-",
            "host": (summary.get("host") or {}).get("hostname") or "-"}
    series = {name: [] for name, _ in FAMILIES}

    def add(name, value, **labels):
        if value is None:
            return
        series[name].append((dict(base, **labels), value))

    verdict = summary.get("verdict") or {}
    steps = summary.get("steps") or []
    running = summary.get("running") or {}
    add("campaign_info", 1, program=c.get("program") or "-",
        status=c.get("status") or "-", load=c.get("load_text") or "-",
        version=c.get("program_version") or "-")
    add("campaign_load_factor", c.get("load"))
    add("campaign_in_progress", bool(summary.get("in_progress")))
    add("campaign_trial", bool(summary.get("trial")))
    add_states(add, "campaign_verdict", VERDICT_STATES,
               state_name(verdict.get("status")))
    add("campaign_steps", len(steps))
    add("campaign_steps_done", sum(1 for s in steps
                                   if s.get("status") == "done"))
    add("campaign_remaining_seconds", remaining_seconds(steps, running))
    add("campaign_last_update_timestamp_seconds",
        timestamp(summary.get("generated_at")))
    st = current_step(steps, running)
    if st is not None:
        add_step(add, st, running, c.get("devices") or [])
    for dev, e in drive_extremes(steps).items():
        add("drive_campaign_max_temperature_celsius", e["max_temp_c"],
            device=dev)
        add("drive_campaign_write_amplification", e["waf"], device=dev)
    return render(series)


def add_states(add, name, known, current):
    for s in known + ((current,) if current not in known else ()):
        add(name, 1 if s == current else 0, state=s)


def add_step(add, st, running, devices):
    """The current step's series: what it is, its state and clock, its
    rates, reads over each threshold, the drives' health."""
    is_running = running.get("step") == st["number"]
    add("step_info", 1, step=str(st["number"]), kind=st.get("kind") or "-",
        test=str(st.get("test") or "-"), title=st.get("title") or "-")
    add("step_number", st["number"])
    add("step_load_factor", st.get("load"))
    add_states(add, "step_state", STEP_STATES, state_name(
        "running" if is_running else st.get("result") or st.get("status")))
    planned = running.get("planned_sec") if is_running else \
        st.get("duration_sec")
    elapsed = running.get("elapsed_sec") if is_running else \
        st.get("ran_sec")
    add("step_elapsed_seconds", elapsed)
    add("step_planned_seconds", planned or None)
    if planned and elapsed is not None:
        add("step_remaining_seconds", max(0, planned - elapsed)
            if is_running else 0)
    add("step_slice_seconds", (running.get("slice_sec") if is_running
                               else None) or st.get("slice_sec"))
    for hist, rate in sorted((st.get("rates") or {}).items()):
        add("step_ops_per_second", rate, **hist_labels(hist, devices))
    thresholds = running.get("thresholds") or []
    for h in running.get("histograms") or [] if is_running else ():
        if not h.get("slices"):
            continue
        last = h["slices"][-1]
        for ms in THRESHOLDS_MS:
            if ms in thresholds and thresholds.index(ms) < len(
                    last.get("over_pct") or ()):
                add("step_last_slice_over_ratio",
                    ratio(last["over_pct"][thresholds.index(ms)]),
                    **dict(hist_labels(h["name"], devices),
                           threshold="%dms" % ms))
    for r in st.get("criteria") or ():
        add_worst(add, r, r.get("histogram"), devices, limit=True)
    for d in st.get("drives") or ():
        for r in d.get("figures") or ():
            name = r.get("name") or r.get("histogram")
            add_worst(add, r, name, devices)
            ms = threshold_ms(r.get("threshold"))
            if is_running and ms in THRESHOLDS_MS:
                add("step_last_slice_over_ratio", ratio(r.get("last_pct")),
                    **dict(hist_labels(name, devices),
                           threshold="%dms" % ms))
            add("step_ops_per_second", r.get("rate"),
                **hist_labels(name, devices))
    for d in (st.get("health") or {}).get("drives") or ():
        if not d.get("readable"):
            continue
        dev = d["device"]
        end = d.get("end") or d.get("start") or {}
        add("drive_temperature_celsius", end.get("temp_c"), device=dev)
        add("drive_max_temperature_celsius", d.get("max_temp_c"),
            device=dev)
        add("drive_throttle_seconds", d.get("throttle_sec"), device=dev)
        add("drive_media_errors", d.get("new_media_errors"), device=dev)
        add("drive_spare_ratio", ratio(end.get("spare")), device=dev)
        add("drive_used_ratio", ratio(end.get("used")), device=dev)
        add("drive_write_amplification", d.get("waf"), device=dev)


def add_worst(add, r, hist, devices, limit=False):
    ms = threshold_ms(r.get("threshold"))
    if ms not in THRESHOLDS_MS or not hist:
        return
    labels = dict(hist_labels(hist, devices), threshold="%dms" % ms)
    add("step_worst_slice_over_ratio", ratio(r.get("max_pct")), **labels)
    if limit:
        add("step_limit_ratio", ratio(r.get("limit_pct")), **labels)


def hist_labels(name, devices):
    """{histogram, device}: 'reads' is the whole step's (device ""),
    '/dev/sdb-reads' the drive /dev/sdb's reads."""
    for dev in sorted(devices, key=len, reverse=True):
        if name.startswith(dev + "-"):
            return {"histogram": name[len(dev) + 1:], "device": dev}
    return {"histogram": name, "device": ""}


def threshold_ms(text):
    """'8 ms' -> 8; None for anything else."""
    try:
        num, unit = str(text).split()
        return int(num) if unit == "ms" else None
    except ValueError:
        return None


def ratio(pct):
    return None if pct is None else pct / 100.0


def current_step(steps, running):
    """The running step, else the last step that ran, else None."""
    for st in steps:
        if st["number"] == running.get("step"):
            return st
    ran = [st for st in steps if st.get("status") not in
           ("planned", "skipped")]
    return ran[-1] if ran else None


def remaining_seconds(steps, running):
    """As runner.remaining_seconds: the running step's rest and the
    planned steps' durations."""
    left = 0
    for st in steps:
        if st["number"] == running.get("step"):
            left += max(0, (running.get("planned_sec") or 0) -
                        (running.get("elapsed_sec") or 0))
        elif st.get("status") in ("planned", "interrupted", "running"):
            left += st.get("duration_sec") or 0
    return left


def timestamp(utc):
    """'2026-11-27T04:12:33Z' -> Unix time; None when unreadable."""
    try:
        return calendar.timegm(time.strptime(utc, "%Y-%m-%dT%H:%M:%SZ"))
    except (TypeError, ValueError):
        return None


def render(series):
    """The families in order, each with its HELP and TYPE lines and its
    series (a family with none is left out), one series per label set."""
    out = []
    for name, _ in FAMILIES:
        rows = series[name]
        if not rows:
            continue
        full = PREFIX + name
        out.append("# HELP %s %s" % (full, help_text(HELP[name])))
        out.append("# TYPE %s gauge" % full)
        seen = set()
        for labels, value in rows:
            key = tuple(sorted(labels.items()))
            if key in seen:
                continue
            seen.add(key)
            out.append("%s{%s} %s" % (full, ",".join(
                '%s="%s"' % (k, label_value(v)) for k, v in labels.items()),
                fmt_value(value)))
    return "\n".join(out) + "\n"
