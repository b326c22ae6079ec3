"""act_latency.py's one driver, for one log or several: open the logs and
read their headers, analyse each (act.latency.analysis) with the sinks
that print it as it is computed (the table, --json, --csv), then print
what needs every slice or every log (the comparison table, the --check
report, the plot) and return the exit status."""

import contextlib
import dataclasses
import os
import sys

from act import (LATENCY_HEALTH, LATENCY_NOT_JUDGED, LATENCY_NOT_PASSED,
                 LATENCY_OK)
from act.cli import UsageError, write_stdout
from act.latency import PROG
from act.latency.analysis import analyse
from act.latency.compare import (check_logs, common_interval,
                                 compare_check_lines, compare_header_lines,
                                 compare_table, outlier_histogram,
                                 overall_verdict, worst_json)
from act.latency.export import (CsvWriter, JsonWriter, chunks,
                                compare_json_text, csv_rows, csv_tail_rows,
                                write_csv)
from act.latency.health_report import health_csv_rows, health_lines
from act.latency.judge import Criterion
from act.latency.plot import svg_chart, svg_document
from act.latency.spec import round_up_slice
from act.latency.text import (TextTable, certification_note, check_lines,
                              unjudged_lines)
from act.latency.verdict import NOT_JUDGED, PASS
from act.logfile.header import open_log

MULTI_NOTE = ("note: an ACT certification needs 24-hour runs judged in 3600 s "
              "slices (-t 3600); not every log here is: these verdicts are "
              "not a certification")

# the exit status of a --check verdict (of the logs together)
STATUS = {PASS: LATENCY_OK, NOT_JUDGED: LATENCY_NOT_JUDGED}


def log_labels(logs, labels):
    """The short name of each log: the --label names (one per -l, in
    order), or the file names - the paths as given where two logs have the
    same file name, with #2, #3 ... for a log given twice."""
    if labels is not None:
        if len(labels) != len(logs):
            raise UsageError(
                "--label given %d %s for %d %s: give one --label per -l, in "
                "order" % (len(labels), "time" if len(labels) == 1
                           else "times", len(logs),
                           "log" if len(logs) == 1 else "logs"))
        for label in labels:
            if not label.strip() or any(ord(c) < 32 or c == "\x7f"
                                        for c in label):
                raise UsageError("bad --label %r: a label is printed in the "
                                 "table: give a non-empty name without "
                                 "control characters" % label)
        for i, label in enumerate(labels):
            if label in labels[:i]:
                raise UsageError("--label %s given twice: each log needs a "
                                 "name of its own" % label)
        return list(labels)
    names = [os.path.basename(p.rstrip("/")) or p for p in logs]
    names = [n if names.count(n) == 1 else p for n, p in zip(names, logs)]
    out = []
    for i, name in enumerate(names):
        n = names[:i].count(name)
        out.append(name if not n else "%s#%d" % (name, n + 1))
    return out


def output(check):
    """The stdout writer of a run: write(text).  With --check a closed pipe
    does not stop the run: the verdict is the exit status whatever happens
    to stdout (cli.write_stdout)."""
    def write(text):
        write_stdout(text, keep_going=check)
    return write


def emitter(write):
    """emit(lines): the lines, each ending with a newline, through write."""
    def emit(lines):
        write("\n".join(lines) + "\n")
    return emit


def flush_stdout():
    """Flush stdout (after each batch of rows: they reach a pipe as they
    are computed).  A closed pipe is left to the next write."""
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        pass
    except OSError as e:
        raise UsageError("cannot write the output: %s"
                         % (e.strerror or e)) from None


def stderr(text):
    print("%s: %s" % (PROG, text), file=sys.stderr)


class _Console:
    """A sink of each analysis: stdout flushed after each batch, the
    warnings about the log on stderr (prefix: the log's label when
    several)."""

    def __init__(self, prefix):
        self.prefix = prefix

    def batch(self, a, first, n, batch):
        flush_stdout()

    def warning(self, a, text):
        stderr("warning: %s%s" % (self.prefix, text))


def write_lines(write, lines):
    """Write an iterator of lines, a few thousand at a time."""
    for part in chunks(lines):
        write("\n".join(part) + "\n")


def write_plot(path, analyses, labels, result=None, extra=False):
    """Write the --plot chart: of one log (labels: [its label]) or
    several."""
    try:
        with open(path, "w", encoding="utf-8", errors="replace") as out:
            out.write(svg_chart(analyses, labels, result, extra)
                      if len(analyses) > 1
                      else svg_document(analyses[0], labels[0], extra))
    except OSError as e:
        raise UsageError("cannot write the plot %s: %s"
                         % (path, e.strerror or e)) from None


def _sinks(opts, write, emit, label, prefix):
    """The sinks that print one log's analysis as it is computed."""
    sinks = []
    if len(opts.logs) == 1:
        if opts.csv:
            sinks.append(CsvWriter(write, label))
        elif opts.json:
            sinks.append(JsonWriter(write))
        else:
            sinks.append(TextTable(emit, opts.argv, extra=opts.extra,
                                   requested=opts.spec.slice_sec))
    return sinks + [_Console(prefix)]


def _no_scale(opts, headers, prefix):
    for label, h in zip(opts.labels, headers):
        if h.microsecond is None:
            stderr("warning: %scan't find histograms' scale, assuming "
                   "milliseconds" % prefix(label))


def _check_headers(opts, headers, prefix):
    """The spec against each log, and the scale warnings, in the order
    each case always gave them."""
    spec, multi = opts.spec, len(opts.logs) > 1
    if not multi and not opts.csv:
        if opts.json:
            _no_scale(opts, headers, prefix)
        problem = spec.problem(headers[0], opts.logs[0])
        if problem:
            raise problem
        return
    check_logs(spec, opts.logs, headers)
    if not multi or opts.json or opts.csv:
        _no_scale(opts, headers, prefix)


def _unjudged(opts, a, emit):
    """--check of one log with no complete slice: a run known to be over
    without one (damaged inside, or stopped) is INCOMPLETE (NOT JUDGED
    for a host-limit stop), whatever -t (docs/act_latency.md,
    "Incomplete and damaged logs"); otherwise (a log still being written,
    a slice longer than a complete run) the `could not find` error."""
    run = a.run
    if not (run.kind == "damaged" or (run.ended and not run.complete)):
        raise a.no_slice_error()
    for note in a.notes:
        stderr("note: %s" % note)
    emit(unjudged_lines(a))
    if opts.plot:
        stderr("note: no plot written to %s: no complete slice" % opts.plot)
    return STATUS.get(a.verdict.result, LATENCY_NOT_PASSED)


def run(opts):
    """Analyse the logs of the parsed command line opts (main.parse_args:
    logs, labels, argv, spec, extra, json, csv, plot; check = spec.check);
    returns the exit status."""
    spec, labels = opts.spec, opts.labels
    multi = len(opts.logs) > 1
    check = spec.check
    write = output(check)
    emit = emitter(write)

    def prefix(label):
        return "%s: " % label if multi else ""

    analyses = []
    with contextlib.ExitStack() as stack:
        logs = [stack.enter_context(open_log(path, header=False,
                                             twice=check))
                for path in opts.logs]
        headers = [log.read_header() for log in logs]
        _check_headers(opts, headers, prefix)
        common = dataclasses.replace(spec, slice_sec=round_up_slice(
            spec.slice_sec, common_interval([h.interval for h in headers])))
        for label, log in zip(labels, logs):
            a = analyse(log, common, _sinks(opts, write, emit, label,
                                            prefix(label)),
                        keep=multi or bool(opts.plot))
            if not a.count:
                if not multi and check and not opts.json and not opts.csv:
                    return _unjudged(opts, a, emit)
                raise a.no_slice_error()
            analyses.append(a)
    for label, a in zip(labels, analyses):
        for note in a.notes:
            stderr("note: %s%s" % (prefix(label), note))
    return _report(opts, analyses, write, emit)


def _report(opts, analyses, write, emit):
    """What follows the analyses: the comparison table or CSV or JSON of
    several logs, the --check report, the plot; the exit status."""
    labels, names = opts.labels, opts.spec.histograms
    multi = len(analyses) > 1
    a0 = analyses[0]
    report = []                     # the lines under the table
    worst = None
    if multi:
        i = outlier_histogram(names)
        values = [a.over_1ms_max(i) for a in analyses]
        threshold = Criterion(1.0, 0.0, a0.header.microsecond).label
        worst = worst_json(labels, values, names[i], threshold)
        report += ["", worst["line"]]
    verdicts = []
    result = None
    if opts.spec.check:
        if multi:
            lines, verdicts = compare_check_lines(labels, analyses)
            result = lines[-1]
        else:
            lines = check_lines(a0)
            verdicts = [a0.verdict.result]
        report += lines
        notes = [certification_note(a) for a in analyses]
        if multi and any(notes):
            report.append(MULTI_NOTE)
        elif notes[0]:
            report.append(notes[0])
    if opts.csv:
        if multi:
            write_csv(write, csv_rows(labels, analyses))
        else:
            write_csv(write, csv_tail_rows(labels, analyses))
        if opts.spec.health:
            write_csv(write, health_csv_rows(labels, analyses))
        for line in report:
            if line:
                print(line, file=sys.stderr)
    elif opts.json:
        if multi:
            check = None
            if opts.spec.check:
                overall = overall_verdict(verdicts)
                check = {"result": overall, "pass": overall == PASS,
                         "logs": [{"label": lab, "result": v}
                                  for lab, v in zip(labels, verdicts)],
                         "line": result}
            compare_json_text(labels, analyses, worst, check, write)
        write("\n")
    else:
        if multi:
            emit(compare_header_lines(opts.argv, labels, opts.logs,
                                      [a.header for a in analyses],
                                      a0.slice_sec,
                                      a0.slice_sec != opts.spec.slice_sec))
            write_lines(write, compare_table(labels, analyses, names,
                                             a0.buckets, a0.unit,
                                             opts.extra))
        if opts.spec.health:
            for label, a in zip(labels, analyses):
                emit(["%s%s" % ("%s: " % label if multi and line else "",
                                line) for line in health_lines(a)])
        if report:
            emit(report)
    if opts.plot:
        write_plot(opts.plot, analyses, labels, result, opts.extra)
    if not opts.spec.check:
        return LATENCY_OK
    overall = overall_verdict(verdicts)
    if overall == PASS and any(a.verdict.health for a in analyses):
        return LATENCY_HEALTH
    return STATUS.get(overall, LATENCY_NOT_PASSED)
