"""A step's analysis: act.latency on its log, in-process (the verdict
document, the table, the plot, how the run ended), cached per log size.

act_latency.py's own command line is not involved: its options are parsed
by act.latency.main.parse_args (the same defaults and checks), the
analysis is act.latency.analysis.analyse, the document export.json_document,
the table and --check report text.*, the plot plot.svg_document."""

import gc
import json
import os

from act.cli import UsageError
from act.latency.analysis import analyse, no_slice_error
from act.latency.export import json_document
from act.latency.judge import DEFAULT_CRITERIA
from act.latency.main import check_histograms, parse_args
from act.latency.plot import svg_document
from act.latency.text import check_lines, judged_lists, long_slice_note
from act.logfile.follow import last_report
from act.certify.failfast import slice_view
from act.logfile.header import (
    HEADER_LIMIT, judged_histograms, read_header, scan_header)
from act.logfile.ioerrors import count_io_errors
from act.logfile.reports import last_errors
from act.logfile.stops import stop_kind_of
from act.safefile import open_regular, write_file

SCALE_WARNING = "can't find histograms' scale, assuming milliseconds"
HIST_LINE_LIMIT = 4 << 10       # bytes of one histogram's line, at most
OTHER_LINES_LIMIT = 16 << 10    # bytes of other lines a second, at most


def _error_text(lines):
    """An analysis error as one line: its first two messages (warnings
    included), as act_latency.py would print them, without its name."""
    return " / ".join(lines[:2]) or "act_latency.py failed"


def _usage_lines(e):
    return ["error: %s" % e] + ["note: %s" % n for n in e.notes]


def _analyse_once(log, slice_sec, stress, lines, max_bytes=None):
    """One analysis of log in slice_sec slices: (Analysis, table lines)
    or raises UsageError; lines gets the warnings. The log must be a
    regular file of at most max_bytes (safefile.open_regular)."""
    argv = ["-l", log, "-t", str(slice_sec), "-x", "--check"] + \
        (["--stress"] if stress else [])
    args = parse_args(argv)
    args.argv = argv
    try:
        f = open_regular(log, max_bytes)
    except OSError as e:
        raise UsageError("cannot open the log %s: %s"
                         % (log, e.strerror or e)) from None
    with f:
        try:
            header = read_header(f, log)
            if header.microsecond is None:
                lines.append("warning: " + SCALE_WARNING)
            # the histograms the criteria judge: reads, and writes with
            # commit-to-device
            args.histograms = ["reads"] + [
                n for n in header.names if n in judged_histograms(header)
                and n != "reads"] if "reads" in header.names else ["reads"]
            check_histograms(args, header)
            table = []
            gc_was_enabled = gc.isenabled()
            gc.disable()
            try:
                a = analyse(args, header, f, table.extend, preamble=False,
                            quiet=True, empty_ok=True)
            finally:
                if gc_was_enabled:
                    gc.enable()
        except OSError as e:
            raise UsageError("cannot read the log %s: %s"
                             % (log, e.strerror or e)) from None
    lines += ["warning: %s" % w for w in a.warnings]
    return a, table


def analyse_log(log, slice_sec, stress, plot=None, max_bytes=None):
    """The verdict document (act_latency/1), table and plot of one log
    (a regular file of at most max_bytes: log_limit); the plot replaces
    the file plot atomically (safefile.write_file: a reader of the step's
    .svg never sees half of it while the step runs).
    Returns a dict: doc (the document or None), table, svg, error, notes,
    slice_sec, histograms, stop (RunEnd.stop: the kind of stop, or None),
    slices (failfast.slice_view: the judged histograms' values per slice,
    or None)."""
    out = {"doc": None, "table": None, "svg": None, "error": None,
           "notes": [], "slice_sec": slice_sec, "histograms": ["reads"],
           "stop": None, "slices": None}
    if not os.path.lexists(log):
        out["error"] = "no log"
        return out
    lines = []
    try:
        a, table = _analyse_once(log, slice_sec, stress, lines, max_bytes)
        last = last_report(log)
        if not a.ends and 0 < last < slice_sec:
            # the run ended before one slice: analyse it in shorter ones
            out["slice_sec"] = max(1, last // 10)
            out["notes"].append("the run ended before one %d-second slice: "
                                "analysed in %d-second slices"
                                % (slice_sec, out["slice_sec"]))
            lines = []
            a, table = _analyse_once(log, out["slice_sec"], stress, lines,
                                     max_bytes)
        if not a.ends:
            raise no_slice_error(a)
    except UsageError as e:
        out["error"] = _error_text(lines + _usage_lines(e))
        return out
    out["slice_sec"] = a.slice_sec     # rounded to report-interval-sec
    out["histograms"] = list(a.args.histograms)
    out["stop"] = a.run.stop
    out["slices"] = slice_view(a)
    # through JSON, as a reader of act_latency --json gets it
    out["doc"] = json.loads(json.dumps(json_document(a)))
    table += check_lines(a.results, a.criteria, a.header.microsecond,
                         a.args.criteria != DEFAULT_CRITERIA, a.run,
                         stress, *judged_lists(a),
                         long_slice=long_slice_note(a))
    out["table"] = "\n".join(table).strip("\n")
    if plot:
        svg = svg_document(a)
        try:
            write_file(os.path.dirname(plot), os.path.basename(plot),
                       svg.encode("utf-8", "replace"))
            out["svg"] = svg
        except OSError:
            out["table"] = None     # as when act_latency.py --plot failed
    return out


def slices_so_far(log, slice_sec):
    """The slice view (failfast.slice_view) of the complete slices of a
    log that may still be written, or None when it has none yet or can't
    be read (fail fast's look at a running step)."""
    try:
        a, _table = _analyse_once(log, slice_sec, False, [])
    except UsageError:
        return None
    return slice_view(a) if a.ends else None


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
    try:
        with open_regular(log) as f:
            header = scan_header(f)
    except OSError:
        return None
    if not header.config:
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
    a["log_errors"] = last_errors(log)
    a["io_errors"] = count_io_errors(log, limit)
    a["echo_difference"] = echo_difference(log, src)
    if a["doc"] is None:
        # no analysis: the kind its last ERROR lines name
        a["stop"] = stop_kind_of(a["log_errors"])
    return a


def step_analysis(dirpath, state, step, cache):
    """The analysis of a step's log (analyse_step_log), cached per log
    size for a finished step."""
    if not step.analysable:
        return {}
    key = analysis_key(dirpath, state, step)
    if key in cache:
        return cache[key]
    a = analyse_step_log(dirpath, state, step)
    if step.status == "done":
        cache[key] = a
    return a
