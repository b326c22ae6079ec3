"""act_latency's text output: the table of one log (TextTable, a sink of
the analysis) and the --check report, byte for byte the reference
act_latency.py's."""

from itertools import repeat

from act.latency import GAP, PROG
from act.latency.health import WHILE
from act.latency.judge import CACHE_LIMIT, FuncCache, fmt_num, \
    long_slice_text
from act.latency.load import HOST_STOP_TEXT
from act.latency.verdict import FAIL, NOT_JUDGED, PASS


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


class TextTable:
    """The table of one log (the reference's layout), written as its
    slices are computed: a sink of analyse(). emit(lines) writes an
    iterable of lines. preamble: the table starts with the command line
    (PROG and argv), the log's version line and its config echo; extra:
    each slice's rate too (-x)."""

    def __init__(self, emit, argv=(), preamble=True, extra=False,
                 requested=None):
        self.emit = emit
        self.argv = list(argv)
        self.preamble = preamble
        self.extra = extra
        self.requested = requested  # the -t asked for (None: as analysed)
        self.strings = FuncCache("%7.2f".__mod__)
        self.rate_strings = FuncCache("%11.1f".__mod__)

    def _start(self, a):
        rounded = self.requested is not None and \
            a.slice_sec != self.requested
        hists = a.histograms
        self.pad = [GAP + p for p in pads(
            hists, group_width(len(a.buckets), self.extra))]
        self.emit((header_lines(self.argv, a.log, a.header, a.slice_sec,
                                rounded) if self.preamble else []) +
                  table_header(hists, a.buckets, a.unit, self.extra))

    def batch(self, a, first, n, batch):
        if first == 1:
            self._start(a)
        nb = len(a.buckets)
        strings = self.strings
        parts = [map("%5d".__mod__, range(first, first + n))]
        texts = {}                  # value list id -> its strings
        for i, (values, slice_rates, ops) in enumerate(batch):
            parts.append(repeat(self.pad[i], n))
            for v in values[:nb]:
                text = texts.get(id(v))
                if text is None:
                    text = texts[id(v)] = (
                        list(map(strings.__getitem__, v)) if any(v)
                        else [strings[0.0]] * n)
                parts.append(text)
            if self.extra:
                parts.append(map(self.rate_strings.__getitem__,
                                 slice_rates))
        self.emit(map("".join, zip(*parts)))
        if len(self.rate_strings) > CACHE_LIMIT:
            self.rate_strings.clear()

    def finish(self, a):
        """The underline, the avg and max rows."""
        hists, nb, extra = a.histograms, len(a.buckets), self.extra
        fmt = row_format(hists, nb, extra)
        self.emit([table_header(hists, a.buckets, a.unit, extra)[3],
                   format_row(fmt, "avg", [v for v, r in a.avg],
                              [r for v, r in a.avg], nb, extra),
                   format_row(fmt, "max", [v for v, r in a.max],
                              [r for v, r in a.max], nb, extra)])


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
    if not a.spec.hourly:
        return None
    return long_slice_text(a.slice_sec)


def findings(a):
    """The lines of the --check report on what the verdict found beyond
    the criteria and the run: the load not issued or not taken
    ("load: ..."), the slice a stop on request is borne out by ("over a
    limit: ...")."""
    v = a.verdict
    if v.cause == "request" and v.failing:
        return ["over a limit: %s" % v.reasons[1]]
    if v.cause == "host":
        return ["load: %s" % v.reasons[0]]
    return ["load: %s" % r for r in v.reasons
            if r.startswith("the drive could not take the load")] + \
        ["over a limit: %s" % r for r in v.reasons if WHILE in r]


HEALTH_PASS = "PASS WITH DRIVE HEALTH WARNINGS"


def shown_result(v):
    """A verdict's result as the --check report says it: a PASS with
    drive health problems is a PASS WITH DRIVE HEALTH WARNINGS."""
    return HEALTH_PASS if v.result == PASS and v.health else v.result


def result_line(a, long_slice=None):
    """The last line of the --check report. long_slice (long_slice_note):
    a PASS then says it is not a certification."""
    v, run, results = a.verdict, a.run, a.results or []
    shown = shown_result(v)
    failed = sum(1 for r in results if not r["pass"])
    met = "%d of %d criteria met" % (len(results) - failed, len(results))
    part = "" if run.complete else " on the part that ran"
    why = None                      # the verdict's own reason, if new
    if v.cause == "host":
        why = "the host could not issue the load"
    elif v.cause == "drive" or (v.result == FAIL and any(
            r.startswith("the drive could not") for r in v.reasons)):
        why = "the drive could not take the load"
    if a.spec.stress:
        return "result: %s (stress test: %s%s)" % (
            shown, why or "the run %s" % (
                "completed" if run.complete else "did not finish"),
            "; %s, for information" % met if results else "")
    if v.cause == "request":
        if v.result == FAIL:
            return "result: FAIL (%s; %s%s)" % (v.reasons[0], met, part)
        return ("result: INCOMPLETE (the run did not finish: stopped on "
                "request, and no complete slice is over a limit; %s%s)"
                % (met, part))
    if why:
        return "result: %s (%s; %s%s)" % (shown, why, met, part)
    if not run.complete:
        return ("result: INCOMPLETE (the run did not finish; %s on the part "
                "that ran)" % met)
    if long_slice and v.result == PASS:
        return "result: %s (%s; %s)" % (shown, long_slice, met)
    return "result: %s (%s)" % (shown, met)


def check_lines(a):
    """The --check report of one log: the criteria, what is not judged,
    how the run ended, the verdict."""
    return (check_heading(a.criteria, a.header.microsecond, a.spec.custom,
                          a.spec.stress) + check_body(a))


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
                   % (", ".join(fmt_num(c.ms) for c in criteria) + " ms",
                      ", ".join(c.label for c in criteria)))
    return out


def check_body(a):
    """The rest of the --check report of one log: one line per criterion
    and histogram, what is not judged, how the run ended, what else the
    verdict found, the verdict."""
    out = []
    for r in a.results:
        out.append("%s %s: %.2f%% over %s (must be under %s%%)"
                   % ("PASS" if r["pass"] else "FAIL", r["histogram"],
                      r["max_pct"], r["threshold"], fmt_num(r["limit_pct"])))
    not_judged, not_analysed = a.judged_lists()
    if not_judged:
        out.append("not judged: %s (the criteria apply to the transactions: "
                   "reads, and writes with commit-to-device)"
                   % ", ".join(not_judged))
    for name in not_analysed:
        out.append("not analysed: %s (add -h %s to judge it too)"
                   % (name, name))
    out.append("run: " + run_text(a.run))
    for text in a.run.fell_behind:
        # the verdict stands (the drive's latencies are what they are), but
        # the drive got less than the configured load at the very end
        out.append("warning: the host fell behind at the end of the run: "
                   "%s" % text)
    out += findings(a)
    out += ["health: %s" % p for p in a.verdict.health]
    out.append(result_line(a, long_slice_note(a)))
    return out


def unjudged_lines(a):
    """The --check report of a log with no complete slice whose run is
    known to be over (a.verdict INCOMPLETE, or NOT JUDGED for a
    host-limit stop): no criteria lines."""
    result = "INCOMPLETE (the run did not finish; no complete slice to " \
        "judge)"
    extra = []
    if a.verdict.result == NOT_JUDGED:
        extra = ["load: %s" % HOST_STOP_TEXT]
        result = "NOT JUDGED (the host could not issue the load; no " \
            "complete slice to judge)"
    return (check_heading(a.criteria, a.header.microsecond, a.spec.custom,
                          a.spec.stress) +
            ["no complete slice of %d sec: nothing to judge" % a.slice_sec,
             "run: " + run_text(a.run)] + extra + ["result: " + result])


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
