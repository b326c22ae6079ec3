"""The campaign's summary (summary.json) and its Markdown rendering
(summary.md), from the state and the step logs; write_reports writes them
and report.html."""

import json
import os

from act.certify.analyse import step_analysis
from act.certify.failfast import saved_sec, saved_text
from act.certify.fmt import (
    fmt_bytes, fmt_duration, fmt_load, fmt_num, signame, utc_now, warn)
from act.certify.judge import campaign_verdict, host_limited, rejudge
from act import PROGRAM_STATUS
from act.certify.plan import rates
from act.logfile.header import log_identity


def step_summary(dirpath, state, step, cache):
    a = step_analysis(dirpath, state, step, cache)
    doc = a.get("doc") or {}
    check = doc.get("check") or {}
    src = state["steps"][step["same_run_as"] - 1] if step["same_run_as"] \
        else step
    log = os.path.join(dirpath, src["files"].get("log", ""))
    ident, sizes, start = log_identity(log) if src["files"].get("log") \
        else ({}, {}, None)
    result = step["result"]
    if step["status"] in ("interrupted", "error", "running", "planned",
                          "skipped", "ended"):
        result = step["status"].upper() if step["status"] != "planned" \
            else "NOT RUN"
    return {
        "number": step["number"], "id": step["id"], "kind": step["kind"],
        "test": step["test"], "title": step["title"], "load": step["load"],
        "load_text": fmt_load(step["load"]) if step["load"] else None,
        "devices": step["devices"], "reads_per_sec": step["reads_per_sec"],
        "writes_per_sec": step["writes_per_sec"],
        "duration_sec": step["duration_sec"] or
        (src["duration_sec"] if step["same_run_as"] else 0),
        "slice_sec": a.get("slice_sec", step["slice_sec"]),
        "judged_by": step["judge"], "same_run_as": step["same_run_as"],
        "status": step["status"], "result": result,
        "message": step["message"], "exit_status": step["exit_status"],
        "exit_meaning": PROGRAM_STATUS.get(step["exit_status"]) if
        step["exit_status"] is not None and step["exit_status"] < 128
        else (("stopped by signal %s" % signame(step["exit_status"] - 128))
              if step["exit_status"] else None),
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
        "start_time": start, "started_at": step["started_at"],
        "ended_at": step["ended_at"], "identity": ident, "sizes": sizes,
        "analysis_error": a.get("error"), "notes": a.get("notes", []),
        "latency_table": a.get("table"), "svg": a.get("svg"),
        "files": {k: v for k, v in src["files"].items()
                  if k != "plot"} if not step["same_run_as"]
        else {"log": src["files"]["log"]},
        "plot": step["files"].get("plot") if a.get("svg") else None,
        "old_logs": step["old_logs"],
        "fail_fast": fail_fast_summary(step),
    }


def fail_fast_summary(step):
    """What fail fast did to a step: None, or when it stopped it, where
    and the time it saved (and its text, for the reports)."""
    rec = step.get("stopped_early")
    if not rec or step["status"] != "done":
        return None
    return {"slice": rec["slice"], "slices": rec["slices"],
            "slice_sec": rec["slice_sec"], "stopped_after_sec":
            rec["end_sec"], "planned_sec": rec["planned_sec"],
            "saved_sec": saved_sec(rec), "text": saved_text(rec)}


def build_summary(dirpath, state, cache):
    c = state["campaign"]
    warnings = rejudge(dirpath, state, cache)
    steps = [step_summary(dirpath, state, s, cache)
             for s in state["steps"]]
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
    for dev in c["devices"]:
        ident = drives.get(dev)
        drive_list.append({
            "device": dev, "kind": "block" if ident else
            ("file" if c["device_kinds"].get(dev) == "file" else "unknown"),
            "model": ident["model"] if ident else None,
            "serial": ident["serial"] if ident else None,
            "firmware": ident["firmware"] if ident else None,
            "size_bytes": sizes.get(dev)})
    verdict = campaign_verdict(state)
    for st in host_limited(state["steps"]):
        warnings.append("step %d %s, not the drive: raise service-threads "
                        "(or cache-threads) in the base config and run it "
                        "again" % (st["number"], "stopped because the host "
                                   "could not keep the load"
                                   if st.get("stop") == "host-limit" else
                                   "is NOT JUDGED: the host could not issue "
                                   "the load"))
    starts = [s["start_time"] for s in steps if s["start_time"]]
    for r in state.get("resumes", []):
        if r.get("host", {}).get("hostname") != state["host"]["hostname"]:
            warnings.append("resumed on another host (%s)"
                            % r["host"].get("hostname"))
    return {
        "format": "act_certify_summary/1",
        "verdict": verdict,
        "warnings": warnings,
        "campaign": {
            "directory": os.path.abspath(dirpath),
            "status": state["status"], "program": c["program"],
            "program_version": c.get("program_version"),
            "base_config": c["base_config_path"],
            "devices": c["devices"], "load": c["load"],
            "load_text": fmt_load(c["load"]),
            "reads_per_sec_per_device": rates(c["load"], 1)[0],
            "writes_per_sec_per_device": rates(c["load"], 1)[1],
            "stress_factor": c["stress_factor"],
            "step_duration_sec": c["duration_sec"],
            "ceiling": c["ceiling"], "ladder": c["ladder"],
            "prep": c["prep"], "fail_fast": c.get("fail_fast", False),
            "fail_fast_saved_sec": sum(
                st["fail_fast"]["saved_sec"] for st in steps
                if st["fail_fast"]),
            "command": state.get("command"),
            "created_at": state.get("created_at"),
            "ended_at": state.get("ended_at"),
            "first_test_start": min(starts) if starts else None,
            "last_test_start": max(starts) if starts else None,
            "resumes": [r.get("at") for r in state.get("resumes", [])],
        },
        "drives": drive_list,
        "host": state["host"],
        "steps": steps,
        "generated_at": utc_now(),
    }


def write_reports(dirpath, state, cache):
    from act.certify.html import render_html    # html imports this module
    s = build_summary(dirpath, state, cache)
    doc = dict(s)
    doc["steps"] = [{k: v for k, v in st.items() if k != "svg"}
                    for st in s["steps"]]
    for name, text in (("summary.json", json.dumps(doc, indent=1) + "\n"),
                       ("summary.md", render_markdown(s)),
                       ("report.html", render_html(s))):
        path = os.path.join(dirpath, name)
        try:
            with open(path + ".tmp", "w", encoding="utf-8",
                      errors="replace") as f:
                f.write(text)
            os.replace(path + ".tmp", path)
        except OSError as e:
            warn("can't write %s: %s" % (path, e.strerror or e))
    return s


def criteria_cell(step):
    if not step["criteria"]:
        return "-"
    return " / ".join("%.2f" % (r["max_pct"] or 0) for r in step["criteria"]
                      if r["histogram"] == "reads")


def drive_text(d):
    if d["kind"] == "block":
        return "model %s, serial %s, firmware %s" % (d["model"], d["serial"],
                                                     d["firmware"])
    if d["kind"] == "file":
        return "a file (a trial device: no drive identity)"
    return "identity not known yet"


def _host_text(h):
    return "%s - %s, %s, %s x %s, %s memory" % (
        h.get("hostname"), h.get("os") or "?", h.get("kernel"),
        h.get("cpus"), h.get("cpu_model"), fmt_bytes(h.get("memory_bytes")))


def ran_text(step):
    if step["ran_sec"] is None:
        return "-"
    return "%s of %s" % (fmt_duration(step["ran_sec"]),
                         fmt_duration(step["planned_sec"] or 0))


def render_markdown(s):
    v = s["verdict"]
    c = s["campaign"]
    out = ["# act certification: %s" % v["text"], ""]
    for r in v["reasons"]:
        out.append("- %s" % r)
    if v["trial"]:
        out.append("- trial: tests of %s - certify on 24-hour tests"
                   % fmt_duration(c["step_duration_sec"]))
    for w in s["warnings"]:
        out.append("- **warning:** %s" % w)
    for st in s["steps"]:
        if st["fail_fast"]:
            out.append("- step %d %s" % (st["number"],
                                         st["fail_fast"]["text"]))
    out.append("")
    out.append("- **Load:** %s = %d reads/s and %d writes/s per device; "
               "stress load %s (%s x); tests of %s" % (
                   c["load_text"], c["reads_per_sec_per_device"],
                   c["writes_per_sec_per_device"],
                   fmt_load(c["load"] * c["stress_factor"]),
                   fmt_num(c["stress_factor"]),
                   fmt_duration(c["step_duration_sec"])))
    for d in s["drives"]:
        out.append("- **Drive** `%s` (%s): %s" % (
            d["device"], fmt_bytes(d["size_bytes"]), drive_text(d)))
    out.append("- **Host:** %s" % _host_text(s["host"]))
    out.append("- **Program:** %s, base config `%s`"
               % (c["program_version"] or c["program"], c["base_config"]))
    out.append("- **Dates (UTC):** first test started %s, campaign %s"
               % (c["first_test_start"] or "-", "ended " + c["ended_at"]
                  if c["ended_at"] else c["status"]))
    out.append("")
    out.append("| step | what | load | devices | ran | result | reads max "
               "% over 1 / 8 / 64 ms |")
    out.append("|---|---|---|---|---|---|---|")
    for st in s["steps"]:
        out.append("| %d | %s | %s | %d | %s | %s | %s |" % (
            st["number"], _md(step_short_summary(st)),
            st["load_text"] or "-", len(st["devices"]), ran_text(st),
            st["result"] or "-", criteria_cell(st)))
    out.append("")
    out.append("Report: `%s`" % os.path.join(c["directory"], "report.html"))
    return "\n".join(out) + "\n"


def _md(text):
    return text.replace("|", "\\|")


def step_short_summary(st):
    if st["kind"] == "prep":
        return "act_prep"
    if st["kind"] == "ceiling":
        return "ceiling rung" + (" (step %d's run)" % st["same_run_as"]
                                 if st["same_run_as"] else "")
    return "test %d: %s" % (st["test"], "target" if st["kind"] == "target"
                            else "stress")
