"""act_latency's text output: the table of one log and the --check
report, byte for byte the reference act_latency.py's."""

from act.latency import GAP, PROG
from act.latency.judge import (DEFAULT_CRITERIA, _fmt_num, long_slice_text,
                               verdict)


def header_lines(argv, log_name, h, slice_sec, rounded):
    """Everything above the table."""
    out = [PROG + " " + " ".join(argv),
           "%s is ACT version %s" % (log_name, h.version), ""]
    if rounded:
        out.append("analyzing time slices of %d seconds" % slice_sec)
    if h.microsecond is None:
        out.append("can't find histograms' scale, assuming milliseconds")
    for block in (h.config, h.derived, h.names_block):
        out.extend(block)
        out.append("")
    return out


def group_width(n_buckets, extra):
    """Width of one histogram's column group."""
    return 7 * n_buckets + (11 if extra else 0)


def pads(names, width):
    """Extra left padding of each group: a name longer than the group
    pushes the next group right."""
    out = [""]
    for name in names[:-1]:
        out.append(" " * max(0, len(name) + 1 - width))
    return out


def table_header(names, buckets, unit, extra):
    """The four header rows of the table."""
    width = group_width(len(buckets), extra)
    pad = pads(names, width)
    labels = "".join("%7s" % (1 << b) for b in buckets)
    dashes = " ------" * len(buckets)
    if extra:
        labels += "       rate"
        dashes += " ----------"
    r1, r2, r3, r4 = "     ", "     ", "slice", "-----"
    for name, p in zip(names, pad):
        r1 += GAP + " " + name.ljust(width - 1)
        r2 += GAP + p + (" %>(" + unit + ")").ljust(width)
        r3 += GAP + p + labels
        r4 += GAP + p + dashes
    return [r1, r2, r3, r4]


def row_format(names, n_buckets, extra):
    """printf format of a table row: label, then the values."""
    pad = pads(names, group_width(n_buckets, extra))
    return "%5s" + "".join(GAP + p + "%7.2f" * n_buckets +
                           ("%11.1f" if extra else "") for p in pad)


def format_row(fmt, label, values, rates, n_buckets, extra):
    """One table row: values[i] are histogram i's (display first) values."""
    flat = [label]
    for vals, rate in zip(values, rates):
        flat.extend(vals[:n_buckets])
        if extra:
            flat.append(rate)
    return fmt % tuple(flat)


def run_text(run):
    """How the run ended, in words: "complete (86400 sec)", or
    "INCOMPLETE - <reason> (<ran> of <planned> sec ran)"."""
    if run.complete:
        if run.planned is None:
            return ("complete (%d sec; the log has no test-duration-sec, so "
                    "only the absence of a stop line was checked)" % run.ran)
        return "complete (%d sec)" % run.planned
    return "INCOMPLETE - " + why_incomplete(run)


def why_incomplete(run):
    """"<reason> (<ran> of <planned> sec ran)" for an incomplete run."""
    if run.kind == "cut":
        detail = "cut short, or still being written"
    elif run.kind == "damaged":
        detail = "%d sec analysed" % run.ran
    elif run.planned is None:
        detail = "%d sec ran" % run.ran
    else:
        detail = "%d of %d sec ran" % (run.ran, run.planned)
    return "%s (%s)" % (run.reason, detail)


def long_slice_note(a):
    """What the result line of an analysis says when the standard
    criteria (not --stress, not --criteria) were checked on slices
    longer than an hour (judge.long_slice_text), else None."""
    args = a.args
    if not args.check or args.stress or args.criteria != DEFAULT_CRITERIA:
        return None
    return long_slice_text(a.slice_sec)


def result_line(results, run, stress, long_slice=None):
    """The last line of the --check report. long_slice (long_slice_note):
    a PASS then says it is not a certification."""
    result = verdict(results, run, stress)
    failed = sum(1 for r in results if not r["pass"])
    met = "%d of %d criteria met" % (len(results) - failed, len(results))
    if stress:
        return "result: %s (stress test: the run %s%s)" % (
            result, "completed" if run.complete else "did not finish",
            "; %s, for information" % met if results else "")
    if not run.complete:
        return ("result: INCOMPLETE (the run did not finish; %s on the part "
                "that ran)" % met)
    if long_slice and result == "PASS":
        return "result: PASS (%s; %s)" % (long_slice, met)
    return "result: %s (%s)" % (result, met)


def judged_lists(a):
    """(histograms given with -h that the criteria do not judge,
    judged histograms of the log not given with -h)."""
    hists = a.args.histograms
    not_judged = [n for i, n in enumerate(hists)
                  if n not in a.judged and n not in hists[:i]]
    not_analysed = [n for n in a.header.names
                    if n in a.judged and n not in hists]
    return not_judged, not_analysed


def check_lines(results, criteria, microsecond, custom, run, stress=False,
                not_judged=(), not_analysed=(), long_slice=None):
    """The --check report: the criteria, what is not judged, how the run
    ended, the verdict."""
    return (check_heading(criteria, microsecond, custom, stress) +
            check_body(results, run, stress, not_judged, not_analysed,
                       long_slice))


def check_heading(criteria, microsecond, custom, stress):
    """The first lines of the --check report: which criteria, how."""
    kind = "custom" if custom else "standard ACT"
    if stress:
        out = ["", "check: stress test, passes if the run completed; %s "
               "criteria on the max row, for information only" % kind]
    else:
        out = ["", "check: %s criteria on the max row" % kind]
    if microsecond:
        out.append("microsecond histograms: %s checked as %s (2^n ms read "
                   "as 2^(n+10) us)"
                   % (", ".join(_fmt_num(c.ms) for c in criteria) + " ms",
                      ", ".join(c.label for c in criteria)))
    return out


def check_body(results, run, stress, not_judged=(), not_analysed=(),
               long_slice=None):
    """The rest of the --check report of one log: one line per criterion
    and histogram, what is not judged, how the run ended, the verdict."""
    out = []
    for r in results:
        out.append("%s %s: %.2f%% over %s (must be under %s%%)"
                   % ("PASS" if r["pass"] else "FAIL", r["histogram"],
                      r["max_pct"], r["threshold"], _fmt_num(r["limit_pct"])))
    if not_judged:
        out.append("not judged: %s (the criteria apply to the transactions: "
                   "reads, and writes with commit-to-device)"
                   % ", ".join(not_judged))
    for name in not_analysed:
        out.append("not analysed: %s (add -h %s to judge it too)"
                   % (name, name))
    out.append("run: " + run_text(run))
    for text in getattr(run, "fell_behind", ()):
        # the verdict stands (the drive's latencies are what they are), but
        # the drive got less than the configured load at the very end
        out.append("warning: the host fell behind at the end of the run: "
                   "%s" % text)
    out.append(result_line(results, run, stress, long_slice))
    return out


DAY = 86400                       # a certification run lasts 24 hours


def certification_note(a):
    """The --check report's note when the run is not judged as a
    certification is (24-hour runs in 3600 s slices), or None.  It changes
    neither the verdict nor the exit status."""
    ran = a.run.ran or 0
    if ran >= DAY and a.slice_sec == 3600:
        return None
    why = []
    if ran < DAY:
        why.append("this run is %d sec" % ran)
    if a.slice_sec != 3600:
        why.append("its slices are %d sec" % a.slice_sec)
    return ("note: an ACT certification needs 24-hour runs judged in "
            "3600 s slices (-t 3600); %s: this verdict is not a "
            "certification" % " and ".join(why))
