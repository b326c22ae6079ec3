"""act_latency.py, the command line of act.latency (whose API is the
analysis: act.latency.Spec, analyse_log): analyse the latency histograms
of ACT logs (act_storage or act_index).

Usage::

    act_latency.py -l LOG [-l LOG]... [--label NAME]... [-h NAME]... [-t SEC]
                   [-s B] [-n N] [-e E] [-x] [--check] [--stress]
                   [--criteria LIST] [--json | --csv] [--health]
                   [--plot FILE.svg]
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

Beyond the reference (long options only): --check / --criteria give the
verdict (act.latency.verdict): the ACT pass criteria on the max row of the
transaction histograms (reads; writes with commit-to-device), whether the
run completed - a run that stopped early, or whose log is cut short or
still being written, is INCOMPLETE and never passes - and whether the
load it plans was issued (NOT JUDGED when the host could not issue it) and
taken (FAIL when the drive could not); with several logs each log is
judged, and the check fails if any log does not pass.  --stress judges a
stress test (pass exactly when the run completed, its load issued and
taken); --json prints one JSON document instead of
the tables; --csv prints the table as CSV (the --check report and the
outlier line then go to stderr); --plot writes an SVG chart (its series
thinned to two points per pixel column, so its size does not depend on the
log's length).  Notes about slices that do not fit the run go to stderr.

The exit statuses are docs/README.md's table ("Exit status"), the
constants act.LATENCY_*: the epilog of --help says them.

The log is read once (twice with --check: the load), streaming, and
memory does not grow with its length: rows (and --json, --csv) are
written as slices are computed (sinks of the analysis), avg and max are
running values, and what needs the slices again afterwards (several logs,
--plot, the later -h of --json, the verdict) reads them back from a
temporary file (act.latency.spool).  The driver, for one log or several,
is act.latency.driver.
"""

import os
import sys

from act import (LATENCY_HEALTH, LATENCY_NOT_JUDGED, LATENCY_NOT_PASSED,
                 LATENCY_OK, VERSION)
from act.cli import ArgumentParser as _ArgumentParser
from act.cli import UsageError, run_main
from act.latency import PROG, driver
from act.latency.judge import DEFAULT_CRITERIA
from act.latency.driver import log_labels
from act.latency.spec import Spec, displayed_buckets, parse_criteria
from act.logfile import ENC_ERRORS, MAX_BUCKET, LogError

USAGE_STATUS = 2                  # a user error (act.cli.run_main's)

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
               "slice), and a line naming the worst log. Exit status: %d "
               "success (with --check: PASS; without --check also when the "
               "output pipe is closed early), %d --check: FAIL or "
               "INCOMPLETE (stopped early, cut short or still running; in "
               "any of the logs), %d error, %d --check: NOT JUDGED (the "
               "host could not issue the load), %d --check: PASS WITH "
               "DRIVE HEALTH WARNINGS (a critical warning, new media "
               "errors or the spare below its threshold during the run). "
               "Note that -h names a histogram; --help shows this."
               % (LATENCY_OK, LATENCY_NOT_PASSED, USAGE_STATUS,
                  LATENCY_NOT_JUDGED, LATENCY_HEALTH))
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
                        "writes with commit-to-device): fewer than 5%%%% "
                        "over 1 ms, 1%%%% over 8 ms, 0.1%%%% over 64 ms; that "
                        "the "
                        "run completed; and that its planned load was "
                        "issued and taken. Exit status %d if a criterion "
                        "fails, the drive could not take the load or the "
                        "run is INCOMPLETE, %d if the host could not issue "
                        "the load (NOT JUDGED)"
                        % (LATENCY_NOT_PASSED, LATENCY_NOT_JUDGED))
    p.add_argument("--stress", action="store_true",
                   help="stress test verdict (implies --check): pass "
                        "exactly when the run completed and its load was "
                        "issued and taken, whatever the latencies (the "
                        "criteria are shown for information)")
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
    p.add_argument("--health", action="store_true",
                   help="also show the drives' health the log holds: per "
                        "device its figures over the run and its "
                        "problems, and a table per slice and device (max "
                        "temperature, throttle seconds, new media errors "
                        "and error-log entries, WAF, critical warning) "
                        "after the latency table; a \"health\" member with "
                        "--json, health rows after the table with --csv")
    p.add_argument("--plot", metavar="FILE.svg",
                   help="also write an SVG chart of %% over each displayed "
                        "threshold against time (with -x also the rates); "
                        "the file name must end in .svg")
    return p


def parse_args(argv):
    """Parse and validate the command line; raise UsageError on error.
    The analysis asked for is args.spec (act.latency.Spec)."""
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
        try:
            args.criteria = parse_criteria(args.criteria)
        except ValueError as e:
            raise UsageError("bad criterion %r in --criteria: %s" % e.args) \
                from None
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
    args.spec = Spec(
        slice_sec=args.slice, histograms=tuple(args.histograms),
        buckets=tuple(displayed_buckets(args.start_bucket, args.num_buckets,
                                        args.every_nth)),
        check=args.check, criteria=args.criteria or DEFAULT_CRITERIA,
        stress=args.stress, health=args.health)
    return args


def run(argv):
    args = parse_args(argv)
    args.argv = argv
    try:
        return driver.run(args)
    except LogError as e:
        raise UsageError(str(e), e.notes) from None


def main(argv=None):
    if argv is None:
        argv = sys.argv[1:]
    # Print a log's own bytes back as they were (device names that are not
    # UTF-8), never fail on them.
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors=ENC_ERRORS)
    return run_main(PROG, run, argv, usage_status=USAGE_STATUS)


if __name__ == "__main__":
    sys.exit(main())
