"""Analyse the latency histograms of ACT logs (act_storage or act_index).

Usage::

    act_latency.py -l LOG [-l LOG]... [--label NAME]... [-h NAME]... [-t SEC]
                   [-s B] [-n N] [-e E] [-x] [--check] [--stress]
                   [--criteria LIST] [--json | --csv] [--plot FILE.svg]
    act_latency.py --help | --version

The log is the standard output of act_storage or act_index (ours or the
reference ACT 6.x), complete or still being written.  It is cut into time
slices of -t seconds; for every slice and every histogram named with -h the
script prints the percentage of operations that took longer than each
displayed threshold (2^b ms, or us for microsecond logs), then the average
and the maximum over the slices.  With one log the default output is
identical, byte for byte, to the reference act_latency.py.

Several -l (e.g. the nodes of a cluster) make one table: a column group per
log (and histogram), labelled with the log's file name or its --label;
slice k is the same k*T seconds after the start in every log, and a log
that has no slice k shows "-" there.  A line under the table names the log
worst on the max row of reads over 1 ms, and by how much.

Beyond the reference (long options only): --check / --criteria evaluate the
ACT pass criteria on the max row of the transaction histograms (reads;
writes with commit-to-device) and whether the run completed - a run that
stopped early, or whose log is cut short or still being written, is
INCOMPLETE and never passes; with several logs each log is judged, and the
check fails if any log does not pass.  --stress judges a stress test (pass
exactly when the run completed); --json prints one JSON document instead of
the tables; --csv prints the table as CSV (the --check report and the
outlier line then go to stderr); --plot writes an SVG chart (its series
thinned to two points per pixel column, so its size does not depend on the
log's length).  Notes about slices that do not fit the run go to stderr.

Exit status: 0 success (with --check: passed; without --check also when
the reader closes the output early, e.g. | head - with --check a closed
pipe is still the verdict), 1 --check failed (a criterion failed, or the
run is INCOMPLETE, in any log), 2 a user error (bad option, unreadable or
malformed log, no complete slice, stdout closed), 130 interrupted.

The log is read once, streaming, and memory does not grow with its
length: rows (and --json, --csv) are written as slices are computed, avg
and max are running values, and what needs the slices again afterwards
(several logs, --plot, the later -h of --json) reads them back from a
temporary file (act.latency.spool).
"""

import contextlib
import copy
import csv
import gc
import io
import math
import os
import sys
from itertools import islice

from act import VERSION
from act.cli import ArgumentParser as _ArgumentParser
from act.cli import UsageError, run_main, write_stdout
from act.latency import PROG
from act.latency.analysis import analyse, no_slice_error, round_up_slice
from act.latency.compare import (check_logs, common_interval,
                                 compare_check_lines, compare_header_lines,
                                 compare_table, outlier_histogram,
                                 overall_verdict, worst_json)
from act.latency.export import (JsonWriter, compare_json_text, csv_batch_rows,
                                csv_head, csv_rows, csv_tail_rows, json_text)
from act.latency.judge import DEFAULT_CRITERIA, Criterion, verdict
from act.latency.plot import svg_chart, svg_document
from act.latency.text import (certification_note, check_heading,
                              check_lines, judged_lists, long_slice_note,
                              run_text)
from act.logfile import ENC_ERRORS, MAX_BUCKET
from act.logfile.header import judged_histograms, read_header

# ---------------------------------------------------------------------------
# Command line.

def build_parser():
    p = _ArgumentParser(
        prog=PROG, add_help=False,
        description="Analyse the latency histograms of an act_storage or "
                    "act_index log: percentage of operations over each "
                    "threshold, per time slice, then average and maximum; "
                    "or compare several logs in one table.",
        epilog="Several -l: one table, a column group per log, slices "
               "aligned by time since the start ('-' where a log has no such "
               "slice), and a line naming the worst log. Exit status: 0 "
               "success (with --check: passed; without --check also when the "
               "output pipe is closed early), 1 --check failed (a criterion failed, or the "
               "run is INCOMPLETE: stopped early, cut short or still "
               "running; in any of the logs), 2 error. Note that -h names a "
               "histogram; --help shows this.")
    p.add_argument("--help", action="help",
                   help="show this help message and exit")
    p.add_argument("-V", "--version", action="version",
                   version="%s %s" % (PROG, VERSION),
                   help="print the version and exit")
    p.add_argument("-l", "--log", dest="logs", metavar="LOG",
                   action="append",
                   help="ACT log file (required); repeat it to compare "
                        "several logs in one table, slices aligned by time "
                        "since the start")
    p.add_argument("--label", dest="labels", metavar="NAME",
                   action="append",
                   help="the short name of a log in the table, CSV, JSON "
                        "and plot: give it once per -l, in order (default: "
                        "the file name)")
    p.add_argument("-h", "--histogram", dest="histograms", action="append",
                   metavar="NAME", default=None,
                   help="histogram to analyse, repeatable: one column group "
                        "each (default: reads)")
    p.add_argument("-t", "--slice", dest="slice", type=int, default=3600,
                   metavar="SEC",
                   help="slice length in seconds, rounded up to a multiple "
                        "of the log's report-interval-sec (default: 3600)")
    p.add_argument("-s", "--start_bucket", dest="start_bucket", type=int,
                   default=0, metavar="B",
                   help="first bucket to display, 0..64; bucket b is shown "
                        "as the threshold 2^b (default: 0)")
    p.add_argument("-n", "--num_buckets", dest="num_buckets", type=int,
                   default=7, metavar="N",
                   help="number of buckets to display (default: 7)")
    p.add_argument("-e", "--every_nth", dest="every_nth", type=int,
                   default=1, metavar="E",
                   help="display the start bucket and then every E-th "
                        "(default: 1)")
    p.add_argument("-x", "--extra", dest="extra", action="store_true",
                   help="also show each slice's rate (operations/sec)")
    p.add_argument("--check", action="store_true",
                   help="evaluate the ACT pass criteria on the max row of "
                        "the transaction histograms given with -h (reads; "
                        "writes with commit-to-device): fewer than 5%% over "
                        "1 ms, 1%% over 8 ms, 0.1%% over 64 ms; and that the "
                        "run completed. Exit status 1 if a criterion fails "
                        "or the run is INCOMPLETE")
    p.add_argument("--stress", action="store_true",
                   help="stress test verdict (implies --check): pass "
                        "exactly when the run completed, whatever the "
                        "latencies (the criteria are shown for information)")
    p.add_argument("--criteria", metavar="LIST",
                   help="custom criteria for --check (implies it), as "
                        "MS:PERCENT,...; thresholds are powers of two "
                        "(default: 1:5,8:1,64:0.1)")
    p.add_argument("--json", action="store_true",
                   help="print one JSON document instead of the tables")
    p.add_argument("--csv", action="store_true",
                   help="print the table as CSV instead: one row per "
                        "slice, log and histogram (then the avg and max "
                        "rows), for spreadsheets; --check's report goes to "
                        "stderr")
    p.add_argument("--plot", metavar="FILE.svg",
                   help="also write an SVG chart of %% over each displayed "
                        "threshold against time (with -x also the rates); "
                        "the file name must end in .svg")
    return p


def parse_criteria(text):
    """Parse "1:5,8:1,64:0.1" into ((1.0, 5.0), (8.0, 1.0), (64.0, 0.1)).

    Thresholds are in milliseconds and must be powers of two (2^k, k may be
    negative for microsecond logs); percentages are in 0..100.
    """
    result = []
    for item in text.split(","):
        item = item.strip()
        parts = item.split(":")
        if len(parts) != 2:
            raise UsageError("bad criterion %r in --criteria: expected "
                             "MS:PERCENT, e.g. 1:5,8:1,64:0.1" % item)
        try:
            ms = float(parts[0])
            pct = float(parts[1])
        except ValueError:
            raise UsageError("bad criterion %r in --criteria: not a number"
                             % item) from None
        if not (ms > 0 and math.isfinite(ms)) or \
                math.frexp(ms)[0] != 0.5:
            raise UsageError("bad criterion %r in --criteria: the threshold "
                             "must be a power of two in ms (1, 2, 4, 8, ...)"
                             % item)
        if not 0.0 <= pct <= 100.0:
            raise UsageError("bad criterion %r in --criteria: the percentage "
                             "must be within 0..100" % item)
        result.append((ms, pct))
    return tuple(result)


def parse_args(argv):
    """Parse and validate the command line; raise UsageError on error."""
    args = build_parser().parse_args(argv)
    if not args.logs:
        raise UsageError("the log is required: -l LOG (see --help)")
    args.log = args.logs[0]
    args.labels = log_labels(args.logs, args.labels)
    if args.csv and args.json:
        raise UsageError("--csv and --json: choose one output format")
    if not args.histograms:
        args.histograms = ["reads"]
    if args.slice < 1:
        raise UsageError("-t/--slice must be at least 1 second, not %d"
                         % args.slice)
    if not 0 <= args.start_bucket <= MAX_BUCKET:
        raise UsageError("-s/--start_bucket must be within 0..%d, not %d"
                         % (MAX_BUCKET, args.start_bucket))
    if args.num_buckets < 1:
        raise UsageError("-n/--num_buckets must be at least 1, not %d"
                         % args.num_buckets)
    if args.every_nth < 1:
        raise UsageError("-e/--every_nth must be at least 1, not %d"
                         % args.every_nth)
    last = args.start_bucket + (args.num_buckets - 1) * args.every_nth
    if last > MAX_BUCKET:
        raise UsageError(
            "-s %d -n %d -e %d would display buckets up to %d, past the last "
            "bucket (%d): lower -n or -e"
            % (args.start_bucket, args.num_buckets, args.every_nth, last,
               MAX_BUCKET))
    if args.stress:
        args.check = True
    if args.criteria is not None:
        args.criteria = parse_criteria(args.criteria)
        args.check = True
    elif args.check:
        args.criteria = DEFAULT_CRITERIA
    if args.plot is not None:
        if os.path.splitext(args.plot)[1].lower() != ".svg":
            raise UsageError("cannot write the plot %s: --plot writes SVG; "
                             "give a file name ending in .svg" % args.plot)
        folder = os.path.dirname(args.plot) or "."
        if not os.path.isdir(folder):
            raise UsageError("cannot write the plot %s: no folder %s"
                             % (args.plot, folder))
    return args


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


def output(args):
    """The stdout writer of a run: write(text).  With --check a closed pipe
    does not stop the run: the verdict is the exit status whatever happens
    to stdout (cli.write_stdout)."""
    def write(text):
        write_stdout(text, keep_going=args.check)
    return write


def emitter(write):
    """emit(lines): the lines, each ending with a newline, through write."""
    def emit(lines):
        write("\n".join(lines) + "\n")
    return emit


MULTI_NOTE = ("note: an ACT certification needs 24-hour runs judged in 3600 s "
              "slices (-t 3600); not every log here is: these verdicts are "
              "not a certification")


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


def write_lines(write, lines, size=4096):
    """Write an iterator of lines, a few thousand at a time."""
    it = iter(lines)
    while True:
        part = list(islice(it, size))
        if not part:
            return
        write("\n".join(part) + "\n")


def write_csv(write, rows, size=4096):
    """Write an iterator of CSV rows, a few thousand at a time."""
    it = iter(rows)
    while True:
        part = list(islice(it, size))
        if not part:
            return
        out = io.StringIO()
        csv.writer(out, lineterminator="\n").writerows(part)
        write(out.getvalue())


class CsvWriter:
    """The --csv rows of one log, written as its slices are computed (an
    analyse() sink); the header before the first."""

    def __init__(self, write, label):
        self.write = write
        self.label = label
        self.started = False

    def batch(self, a, first, n, batch):
        if not self.started:
            write_csv(self.write, [csv_head(a)])
            self.started = True
        write_csv(self.write, csv_batch_rows(a, self.label, first, n, batch))


def run_logs(args):
    """Several logs, or --csv: analyse each log, then print one table (or
    the CSV, or the JSON document); returns the exit status."""
    labels = args.labels
    multi = len(args.logs) > 1
    write = output(args)
    emit = emitter(write)

    def prefix(label):
        return "%s: " % label if multi else ""

    analyses = []
    with contextlib.ExitStack() as stack:
        opened = []
        for path in args.logs:
            try:
                f = stack.enter_context(open(path, "rb"))
            except OSError as e:
                raise UsageError("cannot open the log %s: %s"
                                 % (path, e.strerror or e)) from None
            try:
                opened.append((f, read_header(f, path)))
            except BrokenPipeError:
                raise
            except OSError as e:
                raise UsageError("cannot read the log %s: %s"
                                 % (path, e.strerror or e)) from None
        headers = [h for f, h in opened]
        check_logs(args, headers)
        if not multi or args.json or args.csv:
            for label, h in zip(labels, headers):
                if h.microsecond is None:
                    print("%s: warning: %scan't find histograms' scale, "
                          "assuming milliseconds" % (PROG, prefix(label)),
                          file=sys.stderr)
        slice_sec = round_up_slice(args.slice, common_interval(
            [h.interval for h in headers]))
        for label, path, (f, h) in zip(labels, args.logs, opened):
            sub = copy.copy(args)
            sub.log, sub.slice = path, slice_sec
            one_ms = Criterion(1.0, 0.0, h.microsecond).bucket
            sinks = []
            if not multi:           # --csv of one log: rows as computed
                sinks = [CsvWriter(write, label)]
            gc_was_enabled = gc.isenabled()
            gc.disable()
            try:
                analyses.append(analyse(sub, h, f, None, table=False,
                                        who=prefix(label),
                                        extra_buckets=[one_ms],
                                        keep=multi or bool(args.plot) or
                                        args.json, sinks=sinks,
                                        flush=flush_stdout))
            except BrokenPipeError:
                raise
            except OSError as e:
                raise UsageError("cannot read the log %s: %s"
                                 % (path, e.strerror or e)) from None
            finally:
                if gc_was_enabled:
                    gc.enable()
    for label, a in zip(labels, analyses):
        for note in a.notes:
            print("%s: note: %s%s" % (PROG, prefix(label), note),
                  file=sys.stderr)

    a0 = analyses[0]
    names = args.histograms
    report = []                     # the lines under the table
    worst = None
    if multi:
        i = outlier_histogram(names)
        pos = len(a0.evaluated) - 1             # the 1 ms bucket
        values = [a.max[i][0][pos] for a in analyses]
        threshold = Criterion(1.0, 0.0, a0.header.microsecond).label
        worst = worst_json(labels, values, names[i], threshold)
        report += ["", worst["line"]]
    verdicts = []
    result = None
    if args.check:
        if multi:
            lines, verdicts = compare_check_lines(labels, analyses, args)
            result = lines[-1]
        else:
            lines = check_lines(a0.results, a0.criteria,
                                a0.header.microsecond,
                                args.criteria != DEFAULT_CRITERIA, a0.run,
                                args.stress, *judged_lists(a0),
                                long_slice=long_slice_note(a0))
            verdicts = [verdict(a0.results, a0.run, args.stress)]
        report += lines
        notes = [certification_note(a) for a in analyses]
        if multi and any(notes):
            report.append(MULTI_NOTE)
        elif notes[0]:
            report.append(notes[0])

    if args.csv:
        if multi:
            write_csv(write, csv_rows(labels, analyses))
        else:
            write_csv(write, csv_tail_rows(labels, analyses))
        for line in report:
            if line:
                print(line, file=sys.stderr)
    elif args.json:
        if multi:
            check = None
            if args.check:
                check = {"result": overall_verdict(verdicts),
                         "pass": overall_verdict(verdicts) == "PASS",
                         "logs": [{"label": lab, "result": v}
                                  for lab, v in zip(labels, verdicts)],
                         "line": result}
            compare_json_text(labels, analyses, worst, check, write)
        else:
            json_text(a0, write)
        write("\n")
    else:
        emit(compare_header_lines(args.argv, labels, args.logs, headers,
                                  slice_sec, slice_sec != args.slice))
        write_lines(write, compare_table(labels, analyses, names,
                                         a0.buckets, a0.unit, args.extra))
        if report:
            emit(report)
    if args.plot:
        write_plot(args.plot, analyses, labels if multi else None, result)
    if args.check and overall_verdict(verdicts) != "PASS":
        return 1
    return 0


def write_plot(path, analyses, labels, result=None):
    """Write the --plot chart: of one log (labels None) or several."""
    try:
        with open(path, "w", encoding="utf-8", errors="replace") as out:
            out.write(svg_chart(analyses, labels, result) if labels
                      else svg_document(analyses[0]))
    except OSError as e:
        raise UsageError("cannot write the plot %s: %s"
                         % (path, e.strerror or e)) from None


def check_histograms(args, header):
    """Raise UsageError when -h names a histogram the log does not have,
    or --check (not --stress) has none of the judged ones to judge."""
    names = set(header.names)
    unknown = [n for n in args.histograms if n not in names]
    if unknown:
        raise UsageError(
            "histogram %s not in %s; its histograms are: %s"
            % (", ".join(unknown), args.log, ", ".join(header.names)))
    judged = judged_histograms(header)
    if (args.check and not args.stress and
            not judged.intersection(args.histograms)):
        raise UsageError(
            "--check has nothing to judge: the ACT criteria apply to "
            "the transactions (reads, and writes with "
            "commit-to-device), and -h names none of them%s"
            % ("; use -h " + " -h ".join(sorted(judged))
               if judged else " (this log has none)"))


def unjudged(args, a, emit):
    """--check of a log with no complete slice: a run known to be
    incomplete (damaged inside, or stopped) is INCOMPLETE, status 1,
    whatever -t (docs/act_latency.md, "Incomplete and damaged logs");
    otherwise (a log still being written, a slice longer than a complete
    run) the `could not find` error."""
    run = a.run
    if not (run.kind == "damaged" or (run.ended and not run.complete)):
        raise no_slice_error(a)
    for note in a.notes:
        print("%s: note: %s" % (PROG, note), file=sys.stderr)
    lines = check_heading(a.criteria, a.header.microsecond,
                          args.criteria != DEFAULT_CRITERIA, args.stress)
    lines += ["no complete slice of %d sec: nothing to judge" % a.slice_sec,
              "run: " + run_text(run),
              "result: INCOMPLETE (the run did not finish; no complete "
              "slice to judge)"]
    emit(lines)
    if args.plot:
        print("%s: note: no plot written to %s: no complete slice"
              % (PROG, args.plot), file=sys.stderr)
    return 1


def run(argv):
    args = parse_args(argv)
    args.argv = argv
    if len(args.logs) > 1 or args.csv:
        return run_logs(args)
    try:
        f = open(args.log, "rb")
    except OSError as e:
        raise UsageError("cannot open the log %s: %s"
                         % (args.log, e.strerror or e)) from None
    with f:
        try:
            header = read_header(f, args.log)
            if header.microsecond is None and args.json:
                print("%s: warning: can't find histograms' scale, assuming "
                      "milliseconds" % PROG, file=sys.stderr)
            check_histograms(args, header)
            write = output(args)
            emit = emitter(write)

            # Many short-lived tuples, no cycles: the collector only costs.
            gc_was_enabled = gc.isenabled()
            gc.disable()
            sinks = [JsonWriter(write)] if args.json else []
            try:
                a = analyse(args, header, f, emit, keep=bool(args.plot),
                            sinks=sinks, flush=flush_stdout,
                            empty_ok=args.check and not args.json)
            finally:
                if gc_was_enabled:
                    gc.enable()
        except BrokenPipeError:
            raise
        except OSError as e:
            raise UsageError("cannot read the log %s: %s"
                             % (args.log, e.strerror or e)) from None
    if not a.count:
        return unjudged(args, a, emit)
    for note in a.notes:
        print("%s: note: %s" % (PROG, note), file=sys.stderr)
    if args.check and not args.json:
        note = certification_note(a)
        emit(check_lines(a.results, a.criteria, header.microsecond,
                         args.criteria != DEFAULT_CRITERIA, a.run,
                         args.stress, *judged_lists(a),
                         long_slice=long_slice_note(a)) +
             ([note] if note else []))
    if args.json:
        # One line (pipe it to python3 -m json.tool to read it); its
        # slices went out as they were computed.
        sinks[0].finish(a)
        write("\n")
    if args.plot:
        write_plot(args.plot, [a], None)
    if args.check and verdict(a.results, a.run, args.stress) != "PASS":
        return 1
    return 0


def main(argv=None):
    if argv is None:
        argv = sys.argv[1:]
    # Print a log's own bytes back as they were (device names that are not
    # UTF-8), never fail on them.
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors=ENC_ERRORS)
    return run_main(PROG, run, argv)


if __name__ == "__main__":
    sys.exit(main())
