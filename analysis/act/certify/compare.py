"""act_certify --compare DIR [DIR ...] (docs/certify.md, "A fleet on one
page"): several campaign directories side by side - a row per campaign,
then step by step (matched by kind, test, load and criteria) each
criterion's max %, with the outlier named as act_latency.py's comparison
names it.  Read-only: nothing is written in the campaign directories (the
step plots are not redrawn), no lock is taken; a campaign still running,
damaged or copied from another host is read as it is.

This module makes the comparison's document (compare.json);
compare_markdown and compare_html render it, publish writes the files."""

import os

from act.certify.analyse import analyse_step_log, analysis_key
from act.certify.cells import drive_text, failing_drives
from act.certify.fmt import fmt_load, utc_now
from act.certify.health_report import drive_extremes
from act.certify.state import load_state, state_path
from act.certify.summary import build_summary
from act.certify.trend import trend_text
from act.cli import UsageError
from act.latency.compare import worst_json
from act import EXIT_SETUP
from act.certify import EXIT_USAGE

COMPARE_FORMAT = "act_certify_compare/1"
FLAG_ORDER = ("degrading", "improving", "steady")   # the campaign's flag
DAMAGE = (KeyError, TypeError, ValueError, AttributeError, IndexError,
          OverflowError, RecursionError, OSError, UsageError)


def check_dirs(dirs):
    """Each DIR must be a campaign directory (a state.json in it, whatever
    its content - a FIFO or a symbolic link too: a damaged campaign, a row
    that says so): a UsageError (setup error, 2) naming the first that is
    not; the same directory twice is a usage error."""
    seen = {}
    for d in dirs:
        real = os.path.realpath(d)
        if real in seen:
            raise UsageError("--compare: %s given twice (%s)"
                             % (d, seen[real]), status=EXIT_USAGE)
        seen[real] = d
    for d in dirs:
        if not os.path.isdir(d):
            raise UsageError("--compare: %s is not a directory" % d,
                             status=EXIT_SETUP)
        if not os.path.lexists(state_path(d)):
            raise UsageError("--compare: %s is not a campaign directory (no "
                             "state.json in it)" % d, status=EXIT_SETUP)


def labels_of(dirs):
    """A short unique label per DIR: its base name, or the path as given
    when two base names are the same."""
    base = [os.path.basename(os.path.normpath(os.path.abspath(d))) or d
            for d in dirs]
    return [b if base.count(b) == 1 else d for b, d in zip(base, dirs)]


def readonly_cache(dirpath, state):
    """The analyses of a campaign's steps, as act.certify.analyse's
    step_analysis keeps them in its cache, made without drawing the plots
    (which would write in DIR)."""
    cache = {}
    for step in state.steps:
        if not step.analysable:
            continue
        cache[analysis_key(dirpath, state, step)] = analyse_step_log(
            dirpath, state, step, plot=False)
    return cache


def step_key(st):
    """What makes two campaigns' steps comparable: kind, test, load per
    device and the criteria (threshold and limit of each)."""
    return (st["kind"], st["test"], st["load"],
            tuple((r["threshold"], r["limit_pct"]) for r in st["criteria"]
                  if r["histogram"] == "reads"))


def key_text(key):
    kind, test, load, crit = key
    what = "test %d (%s)" % (test, kind) if test else "ceiling rung"
    return "%s at %s; criteria: %s" % (
        what, fmt_load(load), ", ".join("reads over %s under %g%%" % c
                                        for c in crit) or "none")


def worst_slice(steps):
    """The worst slice of reads over 1 ms of all the steps: "5.20% in
    step 3, hour 17" (or slice N for a trial), or None."""
    best = None
    for st in steps:
        t = st.get("trend")
        for p in (t or {}).get("series", []):
            if best is None or p["pct"] > best[0]:
                best = (p["pct"], st["number"], p["slice"],
                        "hour" if t["slice_sec"] == 3600 else "slice")
    if best is None:
        return None
    return "%.2f%% in step %d, %s %d" % (best[0], best[1], best[3], best[2])


def _drives(summary, state):
    """Model, serial and firmware of each device: from the logs' identity
    lines, else what the campaign recorded when it started; and its
    highest temperature and WAF over the steps' runs (None: not read)."""
    known = state.campaign.identities
    health = drive_extremes(summary["steps"])
    out = []
    for d in summary["drives"]:
        ident = known.get(d["device"])
        if d["kind"] != "block" and ident is not None and \
                ident.get("kind") == "block":
            d = dict(d, kind="block", model=ident.get("model"),
                     serial=ident.get("serial"),
                     firmware=ident.get("firmware"))
        out.append({"device": d["device"], "model": d.get("model"),
                    "serial": d.get("serial"),
                    "firmware": d.get("firmware"), "text": drive_text(d),
                    **health.get(d["device"], {"max_temp_c": None,
                                               "waf": None})})
    return out


def campaign_row(label, dirpath):
    """A campaign's row and its step summaries: (row, steps); a damaged
    or unreadable campaign is a row that says so, with no steps."""
    row = {"label": label, "directory": os.path.abspath(dirpath),
           "status": None, "damaged": None}
    try:
        state = load_state(dirpath)
        s = build_summary(dirpath, state, readonly_cache(dirpath, state))
    except DAMAGE as e:
        row.update(status="damaged", damaged=str(e) or type(e).__name__,
                   verdict="damaged: %s" % (str(e) or type(e).__name__))
        return row, []
    v = s["verdict"]
    c = s["campaign"]
    flags = [st["trend"]["flag"] for st in s["steps"] if st.get("trend")]
    row.update({
        "status": c["status"], "verdict": v.get("headline") or v["text"],
        "verdict_status": v["status"],
        "host": s["host"].get("hostname") if s["host"] else None,
        "drives": _drives(s, state), "load": c["load"],
        "certified_load": c["load"] if v["certified"] else None,
        "ceiling": v["ceiling"],
        "ceiling_text": (("at least " if v["ceiling_exceeds_ladder"] else "")
                         + fmt_load(v["ceiling"])) if v["ceiling"] else None,
        "worst_slice": worst_slice(s["steps"]),
        "failing_drives": ["step %d: %s" % (st["number"],
                                             st["drives_failed"])
                           for st in s["steps"] if st["drives_failed"]],
        "trend": next((f for f in FLAG_ORDER if f in flags), None),
        "trend_lines": s["trend"],
        "step_duration_sec": c["step_duration_sec"],
        "first_test_start": c["first_test_start"],
        "ended_at": c["ended_at"], "trial": v["trial"],
    })
    return row, s["steps"]


def compare_steps(labels, steps_of):
    """Groups of matching steps: (groups, unmatched).  A group is a key
    with each campaign's step of that key (when it has one); a step with
    no criteria results (it did not run, or has no analysis) joins the
    group of its kind, test and load.  A key of one campaign only is
    unmatched (listed, not compared)."""
    order = []
    by_key = {}
    later = []
    for label, steps in zip(labels, steps_of):
        for st in steps:
            if st["kind"] == "prep":
                continue
            if not st["criteria"]:
                later.append((label, st))
                continue
            k = step_key(st)
            if k not in by_key:
                by_key[k] = {}
                order.append(k)
            by_key[k].setdefault(label, st)
    for label, st in later:
        k = next((k for k in order if k[:3] == step_key(st)[:3] and
                  label not in by_key[k]), None)
        if k is None:
            k = step_key(st)
            if k not in by_key:
                by_key[k] = {}
                order.append(k)
        by_key[k].setdefault(label, st)
    groups, unmatched = [], []
    for k in order:
        members = by_key[k]
        entry = {"key": list(k[:3]) + [[list(c) for c in k[3]]],
                 "what": key_text(k), "campaigns": {}}
        thresholds = [c[0] for c in k[3]]
        for label in labels:
            st = members.get(label)
            if st is None:
                continue
            pcts = {r["threshold"]: r["max_pct"] for r in st["criteria"]
                    if r["histogram"] == "reads"}
            entry["campaigns"][label] = {
                "step": st["number"], "result": st["result"],
                "failing_drives": failing_drives(st),
                "result_text": st.get("result_text") or st["result"],
                "max_pct": pcts if st["criteria"] else None,
                "trend": (st.get("trend") or {}).get("flag"),
                "trend_text": trend_text(st["trend"])
                if st.get("trend") else None}
        if len(members) < 2:
            entry["only_in"] = list(members)
            unmatched.append(entry)
            continue
        with_values = [lab for lab in labels if lab in entry["campaigns"] and
                       entry["campaigns"][lab]["max_pct"] and
                       entry["campaigns"][lab]["max_pct"].get(thresholds[0])
                       is not None] if thresholds else []
        entry["worst"] = worst_json(
            with_values, [entry["campaigns"][lab]["max_pct"][thresholds[0]]
                          for lab in with_values], "reads", thresholds[0]) \
            if len(with_values) >= 2 else None
        groups.append(entry)
    return groups, unmatched


def compare_campaigns(dirs):
    """The comparison document (act_certify_compare/1) of the campaign
    directories dirs (checked first: check_dirs)."""
    check_dirs(dirs)
    labels = labels_of(dirs)
    rows, steps_of = [], []
    for label, d in zip(labels, dirs):
        row, steps = campaign_row(label, d)
        rows.append(row)
        steps_of.append(steps)
    groups, unmatched = compare_steps(labels, steps_of)
    return {"format": COMPARE_FORMAT, "campaigns": rows, "steps": groups,
            "unmatched": unmatched, "generated_at": utc_now()}
