"""A step's analysis: act_latency.py run on its log (the JSON verdict, the
table, the plot), cached per log size.

For now act_latency.py runs as a program; once act.latency is merged
(branch pylat) this calls it in-process instead."""

import json
import os
import subprocess
import sys

from act.certify.logs import log_errors, log_last_report


def run_latency(tools, argv, timeout=600):
    try:
        r = subprocess.run([sys.executable, tools["latency"]] + argv,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           universal_newlines=True, errors="replace",
                           timeout=timeout, stdin=subprocess.DEVNULL,
                           start_new_session=True)
    except subprocess.TimeoutExpired:
        return 2, "", "act_latency.py timed out"
    except OSError as e:
        return 2, "", "can't run act_latency.py: %s" % (e.strerror or e)
    return r.returncode, r.stdout, r.stderr


def table_part(text):
    """act_latency.py's output without the command line and config echo:
    from the table on."""
    lines = text.split("\n")
    try:
        i = lines.index("HISTOGRAM NAMES")
    except ValueError:
        return text.strip("\n")
    while i < len(lines) and lines[i] != "":
        i += 1
    return "\n".join(lines[i:]).strip("\n")


def analyse_log(tools, log, slice_sec, stress, plot=None):
    """act_latency.py's verdict (JSON), table and plot for one log. Returns
    a dict: doc (the JSON document or None), table, svg, error, notes,
    slice_sec, histograms."""
    out = {"doc": None, "table": None, "svg": None, "error": None,
           "notes": [], "slice_sec": slice_sec, "histograms": ["reads"]}
    if not os.path.isfile(log):
        out["error"] = "no log"
        return out
    mode = ["--check"] + (["--stress"] if stress else [])

    def hargs():
        return [a for h in out["histograms"] for a in ("-h", h)]

    def json_run():
        return run_latency(tools, ["-l", log, "-t", str(out["slice_sec"])] +
                           hargs() + mode + ["--json"])

    rc, so, se = json_run()
    if rc == 2 and "could not find" in se:
        last = log_last_report(log)
        if 0 < last < out["slice_sec"]:
            out["slice_sec"] = max(1, last // 10)
            out["notes"].append("the run ended before one %d-second slice: "
                                "analysed in %d-second slices"
                                % (slice_sec, out["slice_sec"]))
            rc, so, se = json_run()
    if rc not in (0, 1):
        out["error"] = _latency_error(se)
        return out
    try:
        doc = json.loads(so)
    except ValueError:
        out["error"] = "act_latency.py printed no JSON"
        return out
    extra = (doc.get("check") or {}).get("not_analysed") or []
    if extra:
        out["histograms"] += [h for h in extra if h not in out["histograms"]]
        rc, so, se = json_run()
        try:
            doc = json.loads(so) if rc in (0, 1) else doc
        except ValueError:
            pass
    out["doc"] = doc
    argv = ["-l", log, "-t", str(out["slice_sec"]), "-x"] + hargs() + mode
    if plot:
        argv += ["--plot", plot]
    rc, so, se = run_latency(tools, argv)
    if rc in (0, 1):
        out["table"] = table_part(so)
        if plot:
            try:
                with open(plot, encoding="utf-8", errors="replace") as f:
                    out["svg"] = f.read()
            except OSError:
                pass
    return out


def _latency_error(stderr):
    lines = [l for l in stderr.strip().split("\n") if l]
    return " / ".join(l.replace("act_latency.py: ", "") for l in lines[:2]) \
        or "act_latency.py failed"


def step_analysis(dirpath, state, step, tools, cache):
    """act_latency.py's analysis of a step's log (cached per log size)."""
    if step["kind"] == "prep" or step["status"] in ("planned", "skipped"):
        return {}
    src = state["steps"][step["same_run_as"] - 1] if step["same_run_as"] \
        else step
    log = os.path.join(dirpath, src["files"]["log"])
    try:
        st = os.stat(log)
        key = (step["number"], st.st_size, st.st_mtime_ns)
    except OSError:
        key = (step["number"], None, None)
    if key in cache:
        return cache[key]
    plot = os.path.join(dirpath, step["files"]["plot"])
    a = analyse_log(tools, log, step["slice_sec"],
                    step["judge"] == "stress", plot)
    a["log_errors"] = log_errors(log)
    if step["status"] == "done":
        cache[key] = a
    return a
