"""A step's analysis: act.latency's, in-process - the same analysis and
verdict as `act_latency.py -l LOG -t SLICE -x --check` (act.latency's
analyse: the typed Analysis, its Verdict) - with what the report shows of
it (the act_latency/1 document, the table, the plot), cached per log
size. The logs are read through act.logfile only."""

import dataclasses
import os

from act.certify.health_report import step_health
from act.latency.analysis import analyse
from act.latency.export import json_document
from act.latency.plot import svg_document
from act.latency.spec import Spec
from act.latency.text import TextTable, check_lines
from act.logfile import LogError
from act.logfile.follow import last_report
from act.logfile.header import (HEADER_LIMIT, judged_histograms,
                                log_header, open_log)
from act.logfile.ioerrors import count_io_errors
from act.logfile.reports import last_errors
from act.logfile.stops import stop_kind_of
from act.safefile import write_file

SCALE_WARNING = "can't find histograms' scale, assuming milliseconds"
HIST_LINE_LIMIT = 4 << 10       # bytes of one histogram's line, at most
OTHER_LINES_LIMIT = 16 << 10    # bytes of other lines a second, at most


def _error_text(lines):
    """An analysis error as one line: its first two messages (warnings
    included), as act_latency.py would print them, without its name."""
    return " / ".join(lines[:2]) or "act_latency.py failed"


def _error_lines(e):
    return ["error: %s" % e] + ["note: %s" % n for n in e.notes]


def step_histograms(header):
    """The histograms a step is judged on: the criteria's (reads, and
    writes with commit-to-device), reads first."""
    if "reads" not in header.names:
        return ("reads",)           # the analysis says it is missing
    return ("reads",) + tuple(n for n in header.names
                              if n in judged_histograms(header)
                              and n != "reads")


def _analyse_once(log, slice_sec, stress, lines, max_bytes=None,
                  table=None):
    """One analysis of log in slice_sec slices, judged (the Analysis), or
    a LogError; lines gets the warnings, table (a list) the table's
    lines. The log must be a regular file of at most max_bytes
    (logfile.header.open_log)."""
    with open_log(log, regular=True, max_bytes=max_bytes) as f:
        header = f.header
        if header.microsecond is None:
            lines.append("warning: " + SCALE_WARNING)
        spec = Spec(slice_sec=slice_sec, histograms=step_histograms(header),
                    check=True, stress=stress)
        sinks = [] if table is None else \
            [TextTable(table.extend, preamble=False, extra=True)]
        a = analyse(f, spec, sinks)
    lines += ["warning: %s" % w for w in a.warnings]
    return a


@dataclasses.dataclass
class StepAnalysis:
    """A step's analysis (analyse_log): act.latency's Analysis (its
    verdict and load; None without one), its act_latency/1 document, the
    table and the plot the report shows, why there is none (error), the
    notes, the slice it was analysed in, the histograms, the kind of the
    run's stop (RunEnd.stop, or None), the drives' health
    (health_report.step_health: None without health lines); and with
    analyse_step_log the
    log's last ERROR lines, its failed I/Os (ioerrors.count_io_errors)
    and how its echo differs from the plan. StepAnalysis() is the
    analysis of a step that has not run: nothing."""
    analysis: object = None
    doc: dict = None
    table: str = None
    svg: str = None
    error: str = None
    notes: list = dataclasses.field(default_factory=list)
    slice_sec: int = None
    histograms: list = dataclasses.field(default_factory=lambda: ["reads"])
    stop: str = None
    log_errors: list = dataclasses.field(default_factory=list)
    io_errors: dict = None
    echo_difference: str = None
    health: dict = None


def analyse_log(log, slice_sec, stress, plot=None, max_bytes=None):
    """The StepAnalysis of one log (a regular file of at most max_bytes:
    log_limit); the plot replaces the file plot atomically
    (safefile.write_file: a reader of the step's .svg never sees half of
    it while the step runs)."""
    out = StepAnalysis(slice_sec=slice_sec)
    if not os.path.lexists(log):
        out.error = "no log"
        return out
    lines, table = [], []
    try:
        a = _analyse_once(log, slice_sec, stress, lines, max_bytes, table)
        last = last_report(log)
        if not a.count and 0 < last < slice_sec:
            # the run ended before one slice: analyse it in shorter ones
            out.slice_sec = max(1, last // 10)
            out.notes.append("the run ended before one %d-second slice: "
                             "analysed in %d-second slices"
                             % (slice_sec, out.slice_sec))
            lines, table = [], []
            a = _analyse_once(log, out.slice_sec, stress, lines,
                              max_bytes, table)
        if not a.count:
            raise a.no_slice_error()
    except LogError as e:
        out.error = _error_text(lines + _error_lines(e))
        return out
    out.analysis = a
    out.slice_sec = a.slice_sec         # rounded to the interval
    out.histograms = list(a.histograms)
    out.stop = a.run.stop
    out.doc = json_document(a)
    out.health = step_health(getattr(a, "health", None))
    out.table = "\n".join(table + check_lines(a)).strip("\n")
    if plot:
        svg = svg_document(a, os.path.basename(log), extra=True)
        try:
            write_file(os.path.dirname(plot), os.path.basename(plot),
                       svg.encode("utf-8", "replace"))
            out.svg = svg
        except OSError:
            out.table = None        # as when act_latency.py --plot failed
    a.close()                       # the slices are in doc, the verdict made
    return out


def slices_so_far(log, slice_sec):
    """The analysis (judged: its load's first_failing slice) of the
    complete slices of a log that may still be written, or None when it
    has none yet or can't be read (fail fast's look at a running
    step)."""
    try:
        a = _analyse_once(log, slice_sec, False, [])
    except LogError:
        return None
    a.close()
    return a if a.count else None


def echo_difference(log, step):
    """The first item of the configuration the log echoes that is not the
    one the program echoed for the step's plan (step.config_echo, its
    --print-config before the step ran: precheck.py), as "the log says
    NAME VALUE, the plan VALUE" - or None (no difference, or nothing to
    compare: a log with no echo has no analysis; a step an older
    act_certify ran has no recorded echo - an INVALID it was judged then
    stands)."""
    want = step.config_echo
    if want is None:
        return step.message if step.result == "INVALID" else None
    header = log_header(log)
    if header is None or not header.config:
        return None
    echo = header.items(header.config)
    for name in list(want) + [n for n in echo if n not in want]:
        got, planned = echo.get(name), want.get(name)
        if got is None:
            return "the log says no %s, the plan %s" % (name, planned)
        if planned is None:
            return "the log says %s %s, the plan has none" % (name, got)
        if got != planned:
            return "the log says %s %s, the plan %s" % (name, got, planned)
    return None


def step_log(state, step):
    """The step whose run a step's log is (itself, or the run it is judged
    from), and that log's name in DIR."""
    src = state.run_of(step)
    return src, src.files["log"]


def analysis_key(dirpath, state, step):
    """What a step's analysis is cached under: the step and its log's
    size and time."""
    try:
        st = os.stat(os.path.join(dirpath, step_log(state, step)[1]))
        return (step.number, st.st_size, st.st_mtime_ns)
    except OSError:
        return (step.number, None, None)


def log_limit(step):
    """The most bytes the log of a step's run can have: the header (at
    most act.logfile's HEADER_LIMIT), then at most a report a second
    (report-interval-sec 1) for its test-duration-sec and a little more,
    each at most REPORT_LIMIT bytes for a histogram of each kind per
    device (a line of 65 buckets of 20 digits is under 2 KiB), with the
    ERROR lines of a second (10 I/O errors shown, and the count of the
    others). A log larger than that was not written by the run: it is
    refused as damaged, not read (a file made huge, sparse)."""
    reports = step.duration_sec + 2
    per_report = (16 + 4 * max(1, len(step.devices))) * HIST_LINE_LIMIT
    return HEADER_LIMIT + reports * (per_report + OTHER_LINES_LIMIT)


def analyse_step_log(dirpath, state, step, plot=True):
    """The analysis of a step's log, with the log's last ERROR lines, the
    kind of its stop, its failed I/Os and the difference of its echo from
    the plan; its plot drawn in DIR unless plot is False. A log that is
    not a regular file (a symbolic link, a FIFO) or larger than its run
    could have written (log_limit) has no analysis: its error says so."""
    src, name = step_log(state, step)
    log = os.path.join(dirpath, name)
    limit = log_limit(src)
    a = analyse_log(log, step.slice_sec, step.judge == "stress",
                    os.path.join(dirpath, step.files["plot"]) if plot
                    else None, limit)
    a.log_errors = last_errors(log)
    a.io_errors = count_io_errors(log, limit)
    a.echo_difference = echo_difference(log, src)
    if a.doc is None:
        # no analysis: the kind its last ERROR lines name
        a.stop = stop_kind_of(a.log_errors)
    return a


def step_analysis(dirpath, state, step, cache):
    """The analysis of a step's log (analyse_step_log), cached per log
    size for a finished step."""
    if not step.analysable:
        return StepAnalysis()
    key = analysis_key(dirpath, state, step)
    if key in cache:
        return cache[key]
    a = analyse_step_log(dirpath, state, step)
    if step.status == "done":
        cache[key] = a
    return a
