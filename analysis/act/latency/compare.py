"""Several logs in one table: slices aligned by time since the start,
where the configurations differ, the line naming the worst log, and the
--check report of all the logs."""

import math
from functools import reduce

from act.latency import GAP, PROG
from act.latency.judge import FuncCache
from act.latency.text import (check_body, check_heading, group_width,
                              long_slice_note)
from act.latency.verdict import FAIL, INCOMPLETE, NOT_JUDGED, PASS
from act.logfile import LogError


MISSING = "-"                     # a value of a slice a log does not have
COMPARE_FORMAT = "act_latency/compare/1"   # --json of several logs


def common_interval(intervals):
    """The least common multiple of the logs' report-interval-sec: a slice
    that is a multiple of it ends at a report of every log."""
    return reduce(lambda x, y: x * y // math.gcd(x, y), intervals)


def check_logs(spec, paths, headers):
    """The checks of a spec against each of several logs, and that their
    scales agree; raises LogError naming the log."""
    for path, h in zip(paths, headers):
        problem = spec.unknown(h, path)
        if problem:
            raise problem
    scales = [bool(h.microsecond) for h in headers]
    if len(set(scales)) > 1:
        us = scales.index(True)
        ms = scales.index(False)
        raise LogError("%s has microsecond histograms and %s millisecond "
                       "ones: compare logs of the same scale"
                       % (paths[us], paths[ms]))
    for path, h in zip(paths, headers):
        problem = spec.nothing_to_judge(h, path, among=True)
        if problem:
            raise problem


def config_differences(labels, headers):
    """Lines saying where each log's configuration (and derived
    configuration) differs from the first log's."""
    h0 = headers[0]
    out = []
    for label, h in zip(labels[1:], headers[1:]):
        if h.config[0] != h0.config[0]:
            out.append("%s: %s (%s: %s)" % (label, h.config[0], labels[0],
                                           h0.config[0]))
        for mine, first in ((h.config, h0.config), (h.derived, h0.derived)):
            mine, first = h.items(mine), h.items(first)
            for key in list(mine) + [k for k in first if k not in mine]:
                if mine.get(key) != first.get(key):
                    out.append("%s: %s: %s (%s: %s)"
                               % (label, key, mine.get(key, "(none)"),
                                  labels[0], first.get(key, "(none)")))
    return out


def compare_header_lines(argv, labels, paths, headers, slice_sec, rounded):
    """Everything above the comparison table: the command line, each log's
    ACT version, the first log's blocks and where the others differ."""
    out = [PROG + " " + " ".join(argv)]
    for label, path, h in zip(labels, paths, headers):
        name = path if label == path else "%s (%s)" % (label, path)
        out.append("%s is ACT version %s" % (name, h.version))
    out.append("")
    if rounded:
        out.append("analyzing time slices of %d seconds" % slice_sec)
    for label, h in zip(labels, headers):
        if h.microsecond is None:
            out.append("%s: can't find histograms' scale, assuming "
                       "milliseconds" % label)
    h0 = headers[0]
    for block in (h0.config, h0.derived, h0.names_block):
        out.extend(block)
        out.append("")
    diffs = config_differences(labels, headers)
    if diffs:
        out.append("configuration differences (the blocks above are %s's):"
                   % labels[0])
        out.extend(diffs)
        out.append("")
    return out


def group_widths(labels, names, width):
    """Widths of the column groups of a comparison table, one group per
    (log, histogram), log by log: `width`, or more for a long histogram
    name (name + 1); a log's last group widens when the log's label is
    longer than all its groups together."""
    widths = []
    for label in labels:
        ws = [max(width, len(name) + 1) for name in names]
        span = sum(ws) + len(GAP) * (len(ws) - 1)
        ws[-1] += max(0, len(label) + 1 - span)
        widths += ws
    return widths


def compare_table(labels, analyses, names, buckets, unit, extra):
    """The comparison table (an iterator of lines, read back from the
    analyses' spools): four header rows under a row of log labels, one row
    per slice (MISSING where a log has no such slice), the underline, avg
    and max (each log's own).  Trailing spaces are dropped."""
    nb = len(buckets)
    widths = group_widths(labels, names, group_width(nb, extra))
    per_log = len(names)
    dashes = " ------" * nb + (" ----------" if extra else "")
    thresholds = "".join("%7s" % (1 << b) for b in buckets) + \
        ("       rate" if extra else "")
    missing = ("%7s" % MISSING) * nb + ("%11s" % MISSING if extra else "")

    def row(first, cells):
        return (first + "".join(GAP + c.ljust(w)
                                for c, w in zip(cells, widths))).rstrip()

    spans = []
    for k in range(len(labels)):
        ws = widths[k * per_log:(k + 1) * per_log]
        spans.append(sum(ws) + len(GAP) * (len(ws) - 1))
    lines = [("     " + "".join(GAP + (" " + label).ljust(span) for
                                 label, span in zip(labels, spans))).rstrip(),
             row("     ", [" " + n for n in names] * len(labels)),
             row("     ", [" %>(" + unit + ")"] * len(widths)),
             row("slice", [thresholds] * len(widths)),
             row("-----", [dashes] * len(widths))]

    def cell(values, rate):
        return "".join("%7.2f" % v for v in values[:nb]) + \
            ("%11.1f" % rate if extra else "")

    # Row by row, the logs' slices read back side by side from their
    # spools (the strings of repeated values made once).
    strings = FuncCache("%7.2f".__mod__)
    rate_strings = FuncCache("%11.1f".__mod__)
    blanks = [GAP + missing.ljust(w) for w in widths]
    yield from lines

    def cells(a, w0):
        """One log's cells of each slice, then None when it has no more;
        made batch by batch, column by column."""
        for batch in a.batches():
            cols = []
            for i, (values, rates, ops) in enumerate(batch):
                parts = [map(strings.__getitem__, values[j])
                         for j in range(nb)]
                if extra:
                    parts.append(map(rate_strings.__getitem__, rates))
                w = widths[w0 + i]
                cols.append([GAP + c.ljust(w)
                             for c in map("".join, zip(*parts))])
            yield from map("".join, zip(*cols))
            if len(strings) > 200000:
                strings.clear()
                rate_strings.clear()
        while True:
            yield None

    logs = [cells(a, k * per_log) for k, a in enumerate(analyses)]
    fill = ["".join(blanks[k * per_log:(k + 1) * per_log])
            for k in range(len(analyses))]
    n = max(a.count for a in analyses)
    for k, got in zip(range(1, n + 1), zip(*logs)):
        if None in got:
            got = [c if c is not None else fill[m]
                   for m, c in enumerate(got)]
        yield ("%5d" % k + "".join(got)).rstrip()
    yield lines[4]
    for what in ("avg", "max"):
        cells_ = [cell(*getattr(a, what)[i]) for a in analyses
                  for i in range(per_log)]
        yield row("%5s" % what, cells_)


def outlier_histogram(names):
    """Index of the histogram the outlier line judges: reads, or the first
    one given."""
    return names.index("reads") if "reads" in names else 0


def worst_of(labels, values):
    """The worst logs by their max-row values: (labels of the worst, their
    value, the median of the others' or None when every log ties)."""
    top = max(values)
    worst = [lab for lab, v in zip(labels, values) if v == top]
    others = [v for v in values if v != top]
    if not others:
        return worst, top, None
    others.sort()
    n = len(others)
    median = (others[n // 2] if n % 2 else
              (others[n // 2 - 1] + others[n // 2]) / 2)
    return worst, top, median


def _and(items):
    items = list(items)
    return items[0] if len(items) == 1 else \
        ", ".join(items[:-1]) + " and " + items[-1]


def worst_line(labels, values, name, threshold):
    """The line under a comparison table naming the worst log: e.g.
    `worst: node3.log, 4.20% over 1 ms at its worst slice, 3.1x the median
    of the others (1.35%)`, from each log's max-row value of histogram
    `name` over `threshold`."""
    worst, top, median = worst_of(labels, values)
    what = "%.2f%%%s over %s" % (top, "" if name == "reads" else
                                 " of " + name, threshold)
    if median is None:
        return "worst: none, %s %s at %s worst slice" % (
            "both logs have" if len(labels) == 2 else "every log has", what,
            "their" if len(labels) == 2 else "its")
    one = len(worst) == 1
    n_others = len(labels) - len(worst)
    if median > 0:
        ratio = "%.1fx %s (%.2f%%)" % (
            top / median, "the other" if n_others == 1 else
            "the median of the others", median)
    else:
        ratio = ("the other has 0.00%" if n_others == 1 else
                 "the median of the others is %.2f%%" % median)
    return "worst: %s, %s at %s worst slice, %s" % (
        _and(worst), what, "its" if one else "their", ratio)


def worst_json(labels, values, name, threshold):
    """The outlier as the --json document of several logs gives it."""
    worst, top, median = worst_of(labels, values)
    return {"histogram": name, "threshold": threshold,
            "max_pct": dict(zip(labels, values)),
            "worst": worst if median is not None else [],
            "worst_pct": top,
            "others_median_pct": median,
            "ratio": (round(top / median, 2) if median else None),
            "line": worst_line(labels, values, name, threshold)}


def overall_verdict(verdicts):
    """The verdict of several logs (their results): PASS when every log
    passes; otherwise FAIL if a log failed, else INCOMPLETE if a run did
    not finish, else NOT JUDGED."""
    for result in (FAIL, INCOMPLETE, NOT_JUDGED):
        if result in verdicts:
            return result
    return PASS


def overall_result_line(labels, verdicts, long_slice=None):
    """The last line of the --check report of several logs; long_slice
    (text.long_slice_note): a PASS then says it is not a
    certification."""
    result = overall_verdict(verdicts)
    passed = sum(1 for v in verdicts if v == "PASS")
    text = "result: %s (%s%d of %d logs passed" % (
        result, long_slice + "; " if long_slice and result == "PASS" else "",
        passed, len(labels))
    bad = ["%s: %s" % (lab, v) for lab, v in zip(labels, verdicts)
           if v != "PASS"]
    return text + ("; " + ", ".join(bad) if bad else "") + ")"


def compare_check_lines(labels, analyses):
    """The --check report of several logs: the criteria once, then each
    log's report, its lines prefixed with its label, and the overall
    result; and the logs' results."""
    a0 = analyses[0]
    out = check_heading(a0.criteria, a0.header.microsecond, a0.spec.custom,
                        a0.spec.stress)
    verdicts = []
    for label, a in zip(labels, analyses):
        out += ["%s: %s" % (label, line) for line in check_body(a)]
        verdicts.append(a.verdict.result)
    out.append(overall_result_line(labels, verdicts, long_slice_note(a0)))
    return out, verdicts
