"""The campaign's summary (summary.json's document) from the state and
the step logs: a summary per step, the drives, the host, the verdict with
its reasons and warnings, and the running step while one runs. The model
the pages render (markdown.py, html.py) and publish.py writes."""

import os

from act.certify.analyse import step_analysis
from act.certify.cells import headline, result_text, step_short_summary
from act.certify.failfast import saved_text
from act.certify.fmt import fmt_load, signame, utc_now
from act.latency.drives import fail_text
from act.latency.load import short_streams
from act.certify.health_report import campaign_health
from act.certify.identity import identity_text
from act.certify.judge import campaign_verdict, host_limited, rejudge
from act import PROGRAM_STATUS
from act.certify.plan import rates
from act.certify.trend import headline as trend_headline, step_trend
from act.logfile.header import log_header, log_identity



def step_summary(dirpath, state, step, cache):
    a = step_analysis(dirpath, state, step, cache)
    doc = a.doc or {}
    check = doc.get("check") or {}
    src = state.run_of(step)
    log = os.path.join(dirpath, src.files.get("log", ""))
    ident, sizes, start = log_identity(log) if src.files.get("log") \
        else ({}, {}, None)
    result = step.result
    cfg, cfg_source = step_config_items(dirpath, src)
    if step.status in ("interrupted", "error", "running", "planned",
                          "skipped", "ended"):
        result = step.status.upper() if step.status != "planned" \
            else "NOT RUN"
    st = {
        "number": step.number, "id": step.id, "kind": step.kind,
        "test": step.test, "title": step.title, "load": step.load,
        "load_text": fmt_load(step.load) if step.load else None,
        "devices": step.devices, "reads_per_sec": step.reads_per_sec,
        "writes_per_sec": step.writes_per_sec,
        "duration_sec": step.duration_sec or
        (src.duration_sec if step.same_run_as else 0),
        "slice_sec": a.slice_sec or step.slice_sec,
        "judged_by": step.judge, "same_run_as": step.same_run_as,
        "status": step.status, "result": result,
        "message": step.message, "exit_status": step.exit_status,
        "exit_meaning": PROGRAM_STATUS.get(step.exit_status) if
        step.exit_status is not None and step.exit_status < 128
        else (("stopped by signal %s" % signame(step.exit_status - 128))
              if step.exit_status else None),
        "complete": doc.get("complete"), "planned_sec":
        doc.get("planned_sec"), "ran_sec": doc.get("ran_sec"),
        "stop_reason": doc.get("stop_reason"),
        "criteria": [{k: r.get(k) for k in ("histogram", "threshold",
                                            "limit_pct", "max_pct", "pass")}
                     for r in check.get("results", [])],
        "criteria_for_information": bool(check.get("stress")),
        "check_result": check.get("result"),
        "rates": {h["name"]: h.get("avg", {}).get("rate")
                  for h in doc.get("histograms", [])},
        "start_time": start, "started_at": step.started_at,
        "ended_at": step.ended_at, "identity": ident, "sizes": sizes,
        "analysis_error": a.error, "notes": a.notes,
        "latency_table": a.table, "svg": a.svg,
        "files": existing_files(dirpath, {
            k: v for k, v in src.files.items() if k != "plot"}
            if not step.same_run_as else {"log": src.files["log"]}),
        "plot": step.files.get("plot") if a.svg else None,
        "old_logs": [old.to_json() for old in step.old_logs],
        "io_errors": step.io_errors or 0,
        "health_warnings": list(step.health_warnings),
        "health": a.health,
        "trend": step_trend(doc) if step.kind != "prep" else None,
        "runs": len(step.old_logs) + (0 if step.status in (
            "planned", "skipped") else 1),
        "config": cfg, "config_source": cfg_source,
        "_doc": doc if step.status == "running" else None,
        "fail_fast": fail_fast_summary(step),
        "short_streams": short_streams(a.analysis)
        if step.status == "done" else [],
        "drives": step_drives(a.analysis),
        "drives_failed": drives_failed(a.analysis),
    }
    st["result_text"] = result_text(st)
    return st


def step_drives(analysis):
    """Each drive's own verdict in a step of several devices (its
    analysis' Verdict.drives: act.latency.drives), as summary.json gives
    it: [{device, result, figures: [{histogram, name (the drive's own:
    "/dev/sdb-reads"), threshold, limit_pct, max_pct, slice, where,
    pass, last_pct, rate}]}]; [] for one device, or no verdict."""
    v = analysis.verdict if analysis is not None else None
    return [drive_json(d) for d in v.drives] if v is not None else []


def drive_json(d):
    """A DriveResult as summary.json keeps it: its to_json, each figure
    with its last slice's % over (last_pct) and its histogram's average
    rate (rate) - the metrics' per-drive figures."""
    out = d.to_json()
    for f, fig in zip(out["figures"], d.figures):
        f.update(last_pct=fig.last_pct, rate=fig.rate)
    return out


def drives_failed(analysis):
    """The drives over a limit in a step, with their figures beside the
    others' (act.latency.drives.fail_text), or None."""
    v = analysis.verdict if analysis is not None else None
    return fail_text(v.drives) if v is not None else None


def fail_fast_summary(step):
    """What fail fast did to a step: None, or when it stopped it, where
    and the time it saved (and its text, for the reports)."""
    rec = step.stopped_early
    if not rec or step.status != "done":
        return None
    return {"slice": rec.slice, "slices": rec.slices,
            "slice_sec": rec.slice_sec, "stopped_after_sec":
            rec.end_sec, "planned_sec": rec.planned_sec,
            "saved_sec": rec.saved_sec, "text": saved_text(rec)}


def existing_files(dirpath, files):
    """The files of a step that are there (a skipped step has none)."""
    return {k: v for k, v in files.items()
            if v and os.path.exists(os.path.join(dirpath, v))}


def step_config_items(dirpath, step):
    """A step's effective config, {name: value}, and where it comes from:
    the configuration its log echoes (every item, defaults too, as the
    program read it), else the one the program echoed for its plan
    (--print-config before it ran: step.config_echo, precheck.py)."""
    files = step.files
    if files.get("log"):
        header = log_header(os.path.join(dirpath, files["log"]))
        if header is not None and header.config:
            return header.items(header.config), "log"
    if step.config_echo:
        return dict(step.config_echo), "print-config"
    return {}, None


def build_summary(dirpath, state, cache, live=None, in_progress=None):
    """The summary (summary.json's document). live, while a step runs:
    {"step": its number, "elapsed_sec": seconds it has run}. in_progress:
    whether the campaign is running now (default: what state.json
    says)."""
    c = state.campaign
    warnings = rejudge(dirpath, state, cache)
    steps = [step_summary(dirpath, state, s, cache)
             for s in state.steps]
    docs = {st["number"]: st.pop("_doc") for st in steps}
    drives = {}
    sizes = {}
    for s in steps:
        for dev, ident in s["identity"].items():
            if dev in drives and drives[dev] != ident:
                warnings.append("device %s reported a different identity in "
                                "step %d - was the drive changed?"
                                % (dev, s["number"]))
            drives.setdefault(dev, ident)
        sizes.update(s["sizes"])
    drive_list = []
    for dev in c.devices:
        ident = drives.get(dev)
        drive_list.append({
            "device": dev, "kind": "block" if ident else
            ("file" if c.device_kinds.get(dev) == "file" else "unknown"),
            "model": ident["model"] if ident else None,
            "serial": ident["serial"] if ident else None,
            "firmware": ident["firmware"] if ident else None,
            "size_bytes": sizes.get(dev),
            "recorded_identity": identity_text(
                c.identities.get(dev))})
    for ch in state.device_changes:
        warnings.append("device %s replaced %s from step %s (accepted with "
                        "--accept-device at %s): was %s; now %s" % (
                            ch.new, ch.old, ch.from_step, ch.at, ch.was,
                            ch.now))
    verdict = campaign_verdict(state)
    verdict["headline"] = headline(verdict)
    for st in steps:
        if st["status"] == "error" and st["message"]:
            # what the error was, in the headline itself
            verdict["headline"] += " - %s" % st["message"]
            verdict["reasons"].append("step %d (%s) stopped the campaign: %s"
                                      % (st["number"],
                                         step_short_summary(st),
                                         st["message"]))
            break
    for step in host_limited(state.steps):
        warnings.append("step %d %s, not the drive: raise service-threads "
                        "(or cache-threads) in the base config and run it "
                        "again" % (step.number, "stopped because the host "
                                   "could not keep the load"
                                   if step.stop == "host-limit" else
                                   "is NOT JUDGED: the host could not issue "
                                   "the load"))
    starts = [s["start_time"] for s in steps if s["start_time"]]
    for r in state.resumes:
        host = (r.host or {}).get("hostname")
        if host != state.host["hostname"]:
            warnings.append("resumed on another host (%s)" % host)
    return {
        "format": "act_certify_summary/1",
        "verdict": verdict,
        "trial": verdict["trial"],
        "in_progress": state.status == "running" if in_progress is None
        else in_progress,
        "running": running_summary(steps, live, docs),
        "warnings": warnings,
        "campaign": {
            "directory": os.path.abspath(dirpath),
            "status": state.status, "program": c.program,
            "program_version": c.program_version,
            "base_config": c.base_config_path,
            "devices": c.devices, "load": c.load,
            "load_text": fmt_load(c.load),
            "reads_per_sec_per_device": rates(c.load, 1)[0],
            "writes_per_sec_per_device": rates(c.load, 1)[1],
            "stress_factor": c.stress_factor,
            "step_duration_sec": c.duration_sec,
            "ceiling": c.ceiling, "ladder": c.ladder,
            "prep": c.prep, "fail_fast": c.fail_fast,
            "fail_fast_saved_sec": sum(
                st["fail_fast"]["saved_sec"] for st in steps
                if st["fail_fast"]),
            "command": state.command,
            "created_at": state.created_at,
            "ended_at": state.ended_at,
            "end_text": end_text(state),
            "first_test_start": min(starts) if starts else None,
            "last_test_start": max(starts) if starts else None,
            "resumes": [r.at for r in state.resumes],
        },
        "drives": drive_list,
        "device_changes": [ch.to_json() for ch in state.device_changes],
        "host": state.host,
        "steps": steps,
        "trend": trend_headline(steps),
        "health": campaign_health(steps),
        "generated_at": utc_now(),
    }


def running_summary(steps, live, docs):
    """The running step while it runs: its number, elapsed and planned
    time, and the slices judged so far (per judged histogram, the rows of
    act_latency's table: end of slice, ops, rate, % over each
    threshold)."""
    if not live:
        return None
    st = next((x for x in steps if x["number"] == live["step"]), None)
    if st is None:
        return None
    doc = docs.get(st["number"]) or {}
    return {
        "step": st["number"], "title": st["title"],
        "elapsed_sec": int(live["elapsed_sec"]),
        "planned_sec": st["duration_sec"], "slice_sec": st["slice_sec"],
        "thresholds": doc.get("thresholds"),
        "histograms": [{"name": h["name"], "slices": h["slices"]}
                       for h in doc.get("histograms", [])],
        "failing_drives": [d["device"] for d in st["drives"]
                           if d["result"] != "PASS"],
        "report_every_sec": live.get("every_sec"),
    }


def end_text(state):
    """How the campaign ended, for "campaign ended (UTC)": the time, or
    what stopped it and when, or that it is still running."""
    if state.status == "finished":
        return state.ended_at or "-"
    if state.status in ("running", "planned"):
        return "not yet (running)" if state.status == "running" \
            else "not yet (not started)"
    for step in state.steps:
        if step.status in ("error", "interrupted"):
            return "%s at %s: step %d, %s" % (
                "stopped by an error" if step.status == "error"
                else "interrupted", step.ended_at or "?", step.number,
                step.message or step.status)
    return state.status
