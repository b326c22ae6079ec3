"""compare.md: the comparison of several campaigns (compare.py's
document) as Markdown - a row per campaign, then a table per group of
matching steps with its outlier."""

from act.certify.fmt import fmt_load, md_text
from act.certify.health_report import fleet_text


def _pct(v):
    return "-" if v is None else "%.2f" % v


def render_markdown(doc):
    """compare.md: every value from the campaigns through md_text."""
    out = ["# act certification: %d campaigns compared"
           % len(doc["campaigns"]), "",
           "| campaign | host | drives | verdict | certified | ceiling | "
           "worst slice (reads > 1 ms) | trend | first test (UTC) | "
           "ended (UTC) | failing drives | drive health (max temperature, "
           "WAF) |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in doc["campaigns"]:
        if r["damaged"]:
            out.append("| %s | - | - | %s | - | - | - | - | - | - | - | - |"
                       % (md_text(r["label"]), md_text(r["verdict"])))
            continue
        out.append("| %s |" % " | ".join((
            md_text(r["label"]), md_text(r["host"]),
            md_text("; ".join(d["text"] for d in r["drives"])),
            md_text(r["verdict"]), md_text(fmt_load(r["certified_load"])
                                           if r["certified_load"] else "no"),
            md_text(r["ceiling_text"]), md_text(r["worst_slice"]),
            md_text(r["trend"]), md_text(r["first_test_start"]),
            md_text(r["ended_at"] or r["status"]),
            md_text("; ".join(r.get("failing_drives") or []) or "-"),
            md_text("; ".join(fleet_text(d) for d in r["drives"])))))
    out.append("")
    for g in doc["steps"]:
        out += ["## %s" % md_text(g["what"]), ""]
        ths = [c[0] for c in g["key"][3]]
        out.append("| campaign | step | result | %s | trend |" % " | ".join(
            "reads max %% over %s" % md_text(t) for t in ths))
        out.append("|---|---|---|%s---|" % ("---|" * len(ths)))
        for lab, m in g["campaigns"].items():
            out.append("| %s | %d | %s | %s | %s |" % (
                md_text(lab), m["step"], md_text(m["result_text"]),
                " | ".join(
                    _pct((m["max_pct"] or {}).get(t)) for t in ths),
                md_text(m["trend"])))
        out += ["", md_text(g["worst"]["line"]) if g["worst"] else
                "worst: fewer than two campaigns have results", ""]
    if doc["unmatched"]:
        out += ["## Not compared (in one campaign only)", ""]
        for g in doc["unmatched"]:
            m = g["campaigns"][g["only_in"][0]]
            out.append("- %s: %s, step %d, %s" % (
                md_text(g["what"]), md_text(g["only_in"][0]), m["step"],
                md_text(m["result"] or "-")))
        out.append("")
    return "\n".join(out) + "\n"
