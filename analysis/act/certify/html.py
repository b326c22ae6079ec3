"""report.html: one self-contained page (CSS and plots inline) from the
summary."""

from act.certify.cells import (
    common_config, config_text, criteria_cell, drive_table, drive_text,
    progress_text, ran_text, result_text, runs_text, step_short_summary)
from act.certify.fmt import fmt_bytes, fmt_duration, fmt_load, fmt_num
from act.certify.health_report import (
    campaign_html as campaign_health_html, step_html as step_health_html)
from act.certify.page import CSS, esc, result_span
from act.certify.plan import stress_text
from act.certify.trend import svg_chart, trend_text


def _svg_inline(svg):
    if not svg:
        return ""
    i = svg.find("<svg")
    return svg[i:] if i >= 0 else ""


def render_html(s):
    v = s["verdict"]
    c = s["campaign"]
    cls = {"certified": "ok", "not certified": "bad"}.get(v["status"],
                                                            "open")
    if v["trial"] and cls == "ok":
        cls = "trial"           # never the certified green
    live = progress_text(s)
    h = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">']
    if live:
        # a browser left open on the page follows the campaign
        h.append('<meta http-equiv="refresh" content="%d">'
                 % _refresh_sec(s))
    h += ["<title>act certification%s: %s</title>" % (
        " (in progress)" if live else "", esc(v["headline"])),
          "<style>%s</style></head><body>" % CSS]
    h.append("<h1>act certification%s</h1>" % (" TRIAL (not a "
                                                "certification)"
                                                if v["trial"] else ""))
    if live:
        h.append('<p class="live" id="in-progress">%s - this page is '
                 "rewritten as the step runs (generated %s UTC) and "
                 "reloads itself.</p>" % (esc(live), esc(s["generated_at"])))
    h.append('<div class="verdict %s" id="verdict">%s' % (
        cls, esc(v["headline"])))
    extra = list(v["reasons"])
    if v["trial"]:
        extra.append("TRIAL: tests of %s - certify on 24-hour tests"
                     % fmt_duration(c["step_duration_sec"]))
    extra += ["warning: " + w for w in s["warnings"]]
    extra += ["trend: " + t for t in s.get("trend", [])]
    if extra:
        h.append('<div class="reasons">%s</div>'
                 % "".join("<div>%s</div>" % esc(x) for x in extra))
    h.append("</div>")
    h.append('<p class="muted">Load %s = %d reads/s and %d writes/s per '
             "device; stress load %s; each test %s. %s</p>" % (
                 esc(c["load_text"]), c["reads_per_sec_per_device"],
                 c["writes_per_sec_per_device"],
                 esc(stress_text(c["load"], c["stress_factor"])),
                 esc(fmt_duration(c["step_duration_sec"])),
                 "Ceiling ladder: " + esc(", ".join(fmt_load(x) for x in
                                                    c["ladder"])) + "."
                 if c["ceiling"] else ""))

    h.append("<h2>Drives</h2><table><tr><th>device</th><th>model</th>"
             "<th>serial</th><th>firmware</th><th>size</th>"
             "<th>identity recorded at the start</th></tr>")
    for d in s["drives"]:
        if d["kind"] == "block":
            cells = [d["model"], d["serial"], d["firmware"]]
        else:
            cells = [drive_text(d), "-", "-"]
        h.append("<tr><td>%s</td>%s<td>%s</td><td>%s</td></tr>" % (
            esc(d["device"]), "".join("<td>%s</td>" % esc(x) for x in cells),
            esc(fmt_bytes(d["size_bytes"])), esc(d["recorded_identity"])))
    h.append("</table>")

    host = s["host"]
    h.append("<h2>Host</h2><table>")
    for k, val in (("hostname", host.get("hostname")),
                   ("operating system", host.get("os")),
                   ("kernel", "%s (%s)" % (host.get("kernel"),
                                           host.get("kernel_version"))),
                   ("CPU", "%s x %s" % (host.get("cpus"),
                                        host.get("cpu_model"))),
                   ("memory", fmt_bytes(host.get("memory_bytes")))):
        h.append("<tr><th>%s</th><td>%s</td></tr>" % (esc(k), esc(val)))
    h.append("</table>")

    h.append("<h2>Campaign</h2><table>")
    for k, val in (("program", c["program_version"] or c["program"]),
                   ("base config", c["base_config"]),
                   ("devices", ", ".join(c["devices"])),
                   ("directory", c["directory"]),
                   ("command", " ".join(c["command"] or [])),
                   ("campaign created (UTC)", c["created_at"]),
                   ("first test started (UTC, log)", c["first_test_start"]),
                   ("last test started (UTC, log)", c["last_test_start"]),
                   ("campaign ended (UTC)", c["end_text"]),
                   ("resumed", ", ".join(c["resumes"]) or "no")):
        h.append("<tr><th>%s</th><td>%s</td></tr>" % (esc(k), esc(val)))
    h.append("</table>")

    h.append('<h2>Steps</h2><table id="steps"><tr><th>step</th><th>what'
             "</th><th>load</th><th>devices</th><th>reads/s</th>"
             "<th>writes/s</th><th>ran</th><th>completed</th><th>result"
             "</th><th>reads max % over 1 / 8 / 64 ms</th></tr>")
    for st in s["steps"]:
        h.append('<tr data-step="%d"><td class="num">%d</td><td>%s</td>'
                 "<td>%s</td><td class=\"num\">%d</td><td class=\"num\">%s"
                 "</td><td class=\"num\">%s</td><td>%s</td><td>%s</td>"
                 "<td>%s</td><td>%s</td></tr>" % (
                     st["number"], st["number"],
                     esc(step_short_summary(st)), esc(st["load_text"] or "-"),
                     len(st["devices"]), st["reads_per_sec"] or "-",
                     st["writes_per_sec"] or "-", esc(ran_text(st)),
                     esc("fail fast" if st.get("fail_fast") else
                         {True: "yes", False: "no"}.get(st["complete"], "-")),
                     result_span(result_text(st)), esc(criteria_cell(st))))
    h.append("</table>")
    h.append(render_config_html(s["steps"]))
    h.append(campaign_health_html(s))

    for st in s["steps"]:
        h.append(render_step_html(st))
    h.append('<p class="muted">Generated by act_certify at %s UTC from %s '
             "(state.json and the step logs); <code>act_certify --report "
             "DIR</code> renders it again.</p>"
             % (esc(s["generated_at"]), esc(c["directory"])))
    h.append("</body></html>")
    return "\n".join(h) + "\n"


def _refresh_sec(s):
    """How often an open page reloads itself while the campaign runs: as
    often as it is rewritten (at most every minute, at least every 5)."""
    r = s["running"] or {}
    every = r.get("report_every_sec") or 300
    return max(5, min(60, int(every), int(r.get("slice_sec") or every)))


def render_config_html(steps):
    """Each step's effective config: the items every step shares once,
    then each step's own."""
    common, own = common_config(steps)
    if not common and not own:
        return ""
    h = ['<h2>Config</h2><table id="config">',
         "<tr><th>every step</th><td>%s</td></tr>"
         % esc(config_text(common))]
    for st, items in own:
        h.append("<tr><th>step %d</th><td>%s</td></tr>"
                 % (st["number"], esc(config_text(items))))
    h.append("</table>")
    h.append('<p class="muted">As each step\'s log echoes its '
             "configuration (every item, defaults too); a step that has "
             "not run yet: as the program echoes it for the step "
             "(--print-config).</p>")
    return "\n".join(h)


def _drive_rows(st):
    """A step's table per drive (several devices), or nothing."""
    table = drive_table(st)
    if table is None:
        return []
    ths, rows = table
    h = ['<table class="drives" id="drives-%d"><tr><th>drive</th>'
         "<th>histogram</th>%s<th>result</th></tr>" % (
             st["number"], "".join("<th>max %% over %s</th>" % esc(t)
                                   for t in ths))]
    for dev, name, cells, result in rows:
        h.append('<tr data-drive="%s"><td>%s</td><td>%s</td>%s<td>%s</td>'
                 "</tr>" % (esc(dev), esc(dev), esc(name), "".join(
                     '<td class="num">%s</td>' % esc(c) for c in cells),
                     result_span(result)))
    h.append("</table>")
    return h


def render_step_html(st):
    h = ['<div class="step" id="step-%d">' % st["number"]]
    h.append("<h3>Step %d: %s - %s</h3>" % (st["number"], esc(st["title"]),
                                            result_span(st["result_text"])))
    facts = []
    if st["load"]:
        facts.append(("load", "%s: %d reads/s, %d writes/s in all" % (
            st["load_text"], st["reads_per_sec"], st["writes_per_sec"])))
    facts.append(("devices", ", ".join(st["devices"])))
    if st["kind"] != "prep":
        facts.append(("duration", fmt_duration(st["duration_sec"])))
        facts.append(("judged by", "the read criteria (act_latency.py "
                      "--check)" if st["judged_by"] == "criteria" else
                      "completion (act_latency.py --check --stress)"))
    if st["same_run_as"]:
        facts.append(("run", "the run of step %d (same load, devices and "
                      "duration)" % st["same_run_as"]))
    if st["start_time"]:
        facts.append(("started (UTC, log)", st["start_time"]))
    if st["ran_sec"] is not None:
        facts.append(("completion", "complete" if st["complete"] else
                      "stopped by fail fast (%s ran)" % ran_text(st)
                      if st.get("fail_fast") else
                      "INCOMPLETE - %s (%s ran)" % (st["stop_reason"] or
                                                    "stopped", ran_text(st))))
    if st["exit_status"] is not None:
        facts.append(("exit status", "%s (%s)" % (st["exit_status"],
                                                  st["exit_meaning"])))
    if runs_text(st):
        facts.append(("runs", runs_text(st)))
    if st["message"]:
        facts.append(("note", st["message"]))
    if st.get("fail_fast"):
        facts.append(("fail fast", st["fail_fast"]["text"]))
    if st["analysis_error"]:
        facts.append(("analysis", st["analysis_error"]))
    for n in st["notes"]:
        facts.append(("analysis", n))
    files = dict(st["files"])
    for k, old in enumerate(st["old_logs"]):
        files["earlier log %d" % (k + 1)] = old.get("log")
    if files:
        facts.append(("files", ", ".join("%s: %s" % (k, v)
                                         for k, v in files.items() if v)))
    h.append("<table>")
    for k, val in facts:
        h.append("<tr><th>%s</th><td>%s</td></tr>" % (esc(k), esc(val)))
    h.append("</table>")
    if st["criteria"]:
        h.append("<table class=\"criteria\"><tr><th>criterion%s</th>"
                 "<th>max</th><th>limit</th><th></th></tr>"
                 % (" (for information: a stress test passes when it "
                    "completes)" if st["criteria_for_information"] else ""))
        for r in st["criteria"]:
            res = "PASS" if r["pass"] else "FAIL"
            h.append("<tr><td>%s over %s</td><td class=\"num\">%.2f%%</td>"
                     "<td class=\"num\">under %s%%</td><td>%s</td></tr>" % (
                         esc(r["histogram"]), esc(r["threshold"]),
                         r["max_pct"] or 0, esc(fmt_num(r["limit_pct"] or 0)),
                         result_span(res)))
        h.append("</table>")
    h += _drive_rows(st)
    if st.get("trend"):
        h.append('<div class="trend" data-trend="%s">Trend: %s<br>%s</div>'
                 % (esc(st["trend"]["flag"]), esc(trend_text(st["trend"])),
                    svg_chart(st["trend"])))
    h.append(step_health_html(st))
    if st["latency_table"]:
        h.append("<pre>%s</pre>" % esc(st["latency_table"]))
    if st["svg"]:
        h.append('<div class="plot">%s</div>' % _svg_inline(st["svg"]))
    h.append("</div>")
    return "\n".join(h)
