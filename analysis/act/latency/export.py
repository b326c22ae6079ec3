"""act_latency's documents for other programs: --json (act_latency/1, and
act_latency/compare/1 for several logs) and --csv rows."""

from act.latency.compare import COMPARE_FORMAT
from act.latency.judge import verdict
from act.latency.text import judged_lists


def json_document(a):
    """The --json document (a dict)."""
    h = a.header
    nb = len(a.buckets)
    hists = []
    for i, name in enumerate(a.args.histograms):
        hists.append({
            "name": name,
            "slices": [{"slice": k + 1, "end_sec": end,
                        "ops": a.ops[i][k], "rate": a.rates[i][k],
                        "over_pct": list(a.row_values(i, k)[:nb])}
                       for k, end in enumerate(a.ends)],
            "avg": {"over_pct": [round(v, 2) for v in a.avg[i][0][:nb]],
                    "rate": round(a.avg[i][1], 1)},
            "max": {"over_pct": list(a.max[i][0][:nb]),
                    "rate": a.max[i][1]},
        })
    doc = {
        "format": "act_latency/1",
        "log": a.args.log,
        "version": h.version,
        "config_heading": h.config[0],
        "config": h.items(h.config),
        "derived_config": h.items(h.derived),
        "histogram_names": h.names,
        "report_interval_sec": h.interval,
        "slice_sec": a.slice_sec,
        "unit": a.unit,
        "scale_known": h.microsecond is not None,
        "buckets": a.buckets,
        "thresholds": [1 << b for b in a.buckets],
        "histograms": hists,
        "complete": a.run.complete,
        "planned_sec": a.run.planned,
        "ran_sec": a.run.ran,
        "stop_reason": a.run.reason,
        "notes": a.notes,
        "check": None,
    }
    if a.results is not None:
        not_judged, not_analysed = judged_lists(a)
        result = verdict(a.results, a.run, a.args.stress)
        doc["check"] = {
            "criteria": [{"threshold": c.label, "threshold_ms": c.ms,
                          "bucket": c.bucket, "limit_pct": c.limit}
                         for c in a.criteria],
            "results": a.results,
            "not_judged": not_judged,
            "not_analysed": not_analysed,
            "stress": a.args.stress,
            "criteria_pass": all(r["pass"] for r in a.results),
            "complete": a.run.complete,
            "result": result,
            "pass": result == "PASS",
        }
    return doc


def csv_rows(labels, analyses):
    """The table as CSV rows: a header, then one row per slice, log and
    histogram (slice, end second, log label, histogram, % over each
    displayed threshold, rate), then each log's avg and max rows."""
    a0 = analyses[0]
    nb = len(a0.buckets)
    names = a0.args.histograms
    rows = [["slice", "seconds", "log", "histogram"] +
            ["pct_over_%d%s" % (1 << b, a0.unit) for b in a0.buckets] +
            ["rate"]]

    def values(vals, rate):
        return ["%.2f" % v for v in vals[:nb]] + ["%.1f" % rate]

    for k in range(max(len(a.ends) for a in analyses)):
        for label, a in zip(labels, analyses):
            if k < len(a.ends):
                for i, name in enumerate(names):
                    rows.append([str(k + 1), str(a.ends[k]), label, name] +
                                values(a.row_values(i, k), a.rates[i][k]))
    for what in ("avg", "max"):
        for label, a in zip(labels, analyses):
            for i, name in enumerate(names):
                rows.append([what, "", label, name] +
                            values(*getattr(a, what)[i]))
    return rows


def compare_json(labels, analyses, worst, check):
    """The --json document of several logs: each log's own document (with
    its label), the outlier and the overall --check result."""
    logs = []
    for label, a in zip(labels, analyses):
        doc = {"label": label}
        doc.update(json_document(a))
        logs.append(doc)
    return {"format": COMPARE_FORMAT, "labels": labels,
            "slice_sec": analyses[0].slice_sec,
            "logs": logs, "worst": worst, "check": check}
