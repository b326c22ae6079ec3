"""The text of a campaign's summary that summary.md and report.html both
show: the headline, a step's short name, result, time run and criteria
cell, a drive's identity, the progress line, and the config items every
step shares. Pure functions of the summary (summary.py), no markup: each
page escapes them its own way."""

from act.certify.fmt import fmt_clock, fmt_duration


def headline(v):
    """The verdict as the reports and the last line say it: a trial (tests
    shorter than 24 h) says TRIAL first - it is not a certification."""
    return ("TRIAL (not a certification): " if v.get("trial") else "") + \
        v["text"]


_OLD_RUN = {"running": "interrupted", "interrupted": "interrupted",
            "ended": "interrupted", "error": "stopped by an error"}


def runs_text(st):
    """'run 2, interrupted once' for a step run again, else ''."""
    olds = st["old_logs"]
    if not olds:
        return ""
    why = [_OLD_RUN.get(o.get("status"), "stopped") for o in olds]
    counts = []
    for w in sorted(set(why), key=why.index):
        n = why.count(w)
        counts.append("%s %s" % (w, {1: "once", 2: "twice"}.get(
            n, "%d times" % n)))
    return "run %d, %s" % (st["runs"], ", ".join(counts))


def common_config(steps):
    """({name: value} shared by every step that has a config, [(step,
    {name: value} of its own)]): the report lists the shared items once."""
    with_cfg = [st for st in steps if st["config"]]
    if not with_cfg:
        return {}, []
    common = {k: v for k, v in with_cfg[0]["config"].items()
              if all(st["config"].get(k) == v for st in with_cfg)}
    own = [(st, {k: v for k, v in st["config"].items() if k not in common})
           for st in with_cfg]
    return common, own


def config_text(items):
    return ", ".join("%s %s" % (k, v) for k, v in items.items()) or "-"


def criteria_cell(step):
    if not step["criteria"]:
        return "-"
    return " / ".join("%.2f" % (r["max_pct"] or 0) for r in step["criteria"]
                      if r["histogram"] == "reads")


def drive_table(st):
    """A step's table per drive (several devices: tests 3 and 4), or
    None: (the thresholds, rows) - a row per drive and judged histogram:
    (device, its histogram's name, a cell per threshold '7.20 (slice
    3)', the drive's result)."""
    drives = st.get("drives") or []
    if not drives:
        return None
    ths = list(dict.fromkeys(f["threshold"] for d in drives
                             for f in d["figures"]))
    rows = []
    for d in drives:
        by_name = {}
        for f in d["figures"]:
            by_name.setdefault(f["name"], {})[f["threshold"]] = f
        for name, figs in by_name.items():
            rows.append((d["device"], name, [
                "%.2f (%s)" % (figs[t]["max_pct"], figs[t]["where"])
                if t in figs else "-" for t in ths], d["result"]))
    return ths, rows


def failing_drives(st):
    """The drives of a step over a limit on their own histograms."""
    return [d["device"] for d in st.get("drives") or []
            if d["result"] != "PASS"]


def with_drives(result, bad):
    """A FAIL with the drives over a limit (bad): 'FAIL (drive
    /dev/sdb)'."""
    if not bad or result != "FAIL":
        return result
    return "%s (drive%s %s)" % (result, "s" if len(bad) > 1 else "",
                                ", ".join(bad))


def status_text(result, health_warnings):
    """A step's result with its drive health warnings: a PASS with them is
    "PASS with drive health warnings", never a plain PASS."""
    text = result or "-"
    if health_warnings:
        text += " with drive health warnings" if text == "PASS" else \
            " (drive health warnings)"
    return text


def result_text(st):
    """A step's result (status_text; a FAIL with the drives over a limit,
    with_drives), with its failed I/Os when it had any."""
    text = status_text(with_drives(st["result"] or "-", failing_drives(st)),
                       st.get("health_warnings"))
    if st.get("io_errors"):
        text += " (%d failed I/O%s)" % (st["io_errors"], "" if
                                        st["io_errors"] == 1 else "s")
    return text


def drive_text(d):
    if d["kind"] == "block":
        return "model %s, serial %s, firmware %s" % (d["model"], d["serial"],
                                                     d["firmware"])
    if d["kind"] == "file":
        return "a file (a trial device: no drive identity)"
    return "identity not known yet"


def ran_text(step):
    """'4 s of 4 s', and for a step run again '(run 2, interrupted
    once)'."""
    text = "-" if step["ran_sec"] is None else "%s of %s" % (
        fmt_duration(step["ran_sec"]), fmt_duration(step["planned_sec"] or 0))
    return text + (" (%s)" % runs_text(step) if runs_text(step) else "")


def progress_text(s):
    """'in progress: step 2 (test 2: ...) 00:01:10/00:04:00' while a
    campaign runs, else None."""
    if not s["in_progress"]:
        return None
    r = s["running"]
    if r is None:
        return "in progress (between steps)"
    return "in progress: step %d (%s) %s/%s, %d slice%s so far" % (
        r["step"], r["title"], fmt_clock(r["elapsed_sec"]),
        fmt_clock(r["planned_sec"]) if r["planned_sec"] else "?",
        _slices(r), "" if _slices(r) == 1 else "s")


def _slices(r):
    return len(r["histograms"][0]["slices"]) if r["histograms"] else 0


def step_short_summary(st):
    if st["kind"] == "prep":
        return "act_prep"
    if st["kind"] == "ceiling":
        return "ceiling rung" + (" (step %d's run)" % st["same_run_as"]
                                 if st["same_run_as"] else "")
    return "test %d: %s" % (st["test"], "target" if st["kind"] == "target"
                            else "stress")
