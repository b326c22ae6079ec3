"""summary.md: the campaign's summary (summary.py) as Markdown - the
verdict and its reasons, the load, drives, host and dates, a row per step,
the config, the trends, the drives' health."""

import os

from act.certify.cells import (
    common_config, config_text, criteria_cell, drive_table, drive_text,
    progress_text, ran_text, result_text, step_short_summary)
from act.certify.fmt import fmt_bytes, fmt_duration, md_text
from act.certify.health_report import markdown_lines as health_lines
from act.certify.plan import stress_text
from act.certify.trend import markdown_lines


def render_markdown(s):
    """summary.md: every value from the campaign (its state, its logs)
    through md_text - device names, drive identities, the hostname and log
    lines render as text, never as HTML."""
    v = s["verdict"]
    c = s["campaign"]
    out = ["# act certification: %s" % md_text(v["headline"]), ""]
    live = progress_text(s)
    if live:
        out.append("- **%s** (this summary is rewritten as the campaign "
                   "runs; generated %s)" % (md_text(live),
                                            md_text(s["generated_at"])))
    for r in v["reasons"]:
        out.append("- %s" % md_text(r))
    if v["trial"]:
        out.append("- TRIAL: tests of %s - certify on 24-hour tests"
                   % md_text(fmt_duration(c["step_duration_sec"])))
    for w in s["warnings"]:
        out.append("- **warning:** %s" % md_text(w))
    for t in s["trend"]:
        out.append("- **trend:** %s" % md_text(t))
    for st in s["steps"]:
        if st["fail_fast"]:
            out.append("- step %d %s" % (st["number"],
                                         md_text(st["fail_fast"]["text"])))
    out.append("")
    out.append("- **Load:** %s = %d reads/s and %d writes/s per device; "
               "stress load %s; tests of %s" % (
                   md_text(c["load_text"]), c["reads_per_sec_per_device"],
                   c["writes_per_sec_per_device"],
                   md_text(stress_text(c["load"], c["stress_factor"])),
                   md_text(fmt_duration(c["step_duration_sec"]))))
    for d in s["drives"]:
        out.append("- **Drive** %s (%s): %s; identity recorded: %s" % (
            md_text(d["device"]), md_text(fmt_bytes(d["size_bytes"])),
            md_text(drive_text(d)), md_text(d["recorded_identity"])))
    out.append("- **Host:** %s" % md_text(_host_text(s["host"])))
    out.append("- **Program:** %s, base config %s"
               % (md_text(c["program_version"] or c["program"]),
                  md_text(c["base_config"])))
    out.append("- **Dates (UTC):** first test started %s, campaign ended %s"
               % (md_text(c["first_test_start"]), md_text(c["end_text"])))
    out.append("")
    out.append("| step | what | load | devices | ran | result | reads max "
               "% over 1 / 8 / 64 ms |")
    out.append("|---|---|---|---|---|---|---|")
    for st in s["steps"]:
        out.append("| %d | %s | %s | %d | %s | %s | %s |" % (
            st["number"], md_text(step_short_summary(st)),
            md_text(st["load_text"]), len(st["devices"]),
            md_text(ran_text(st)), md_text(result_text(st)),
            md_text(criteria_cell(st))))
    for st in s["steps"]:
        out += _drive_lines(st)
    common, own = common_config(s["steps"])
    if common or own:
        out.append("")
        out.append("## Config")
        out.append("")
        out.append("Every step (%s): %s" % (
            "as the logs echo it" if all(st["config_source"] == "log"
                                         for st, _ in own)
            else "from the logs, and for the steps not run the program's "
            "--print-config",
            md_text(config_text(common))))
        out.append("")
        for st, items in own:
            out.append("- step %d: %s" % (st["number"],
                                          md_text(config_text(items))))
    out.append("")
    out += markdown_lines(s["steps"])
    out += health_lines(s)
    out.append("Report: %s" % md_text(os.path.join(c["directory"],
                                                   "report.html")))
    return "\n".join(out) + "\n"


def _drive_lines(st):
    """A step's table per drive (several devices), or nothing."""
    table = drive_table(st)
    if table is None:
        return []
    ths, rows = table
    out = ["", "## Step %d (%s): each drive on its own" % (
        st["number"], md_text(step_short_summary(st))), "",
        "| drive | histogram | %s | result |" % " | ".join(
            "max %% over %s" % md_text(t) for t in ths),
        "|---|---|%s---|" % ("---|" * len(ths))]
    for dev, name, cells, result in rows:
        out.append("| %s | %s | %s | %s |" % (
            md_text(dev), md_text(name), " | ".join(md_text(c)
                                                    for c in cells),
            md_text(result)))
    return out


def _host_text(h):
    return "%s - %s, %s, %s x %s, %s memory" % (
        h.get("hostname"), h.get("os") or "?", h.get("kernel"),
        h.get("cpus"), h.get("cpu_model"), fmt_bytes(h.get("memory_bytes")))
