#!/usr/bin/env python3
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

Exit status: 0 success (with --check: passed; also when the reader closes
the output early, e.g. | head), 1 --check failed (a criterion failed, or
the run is INCOMPLETE, in any log), 2 a user error (bad option, unreadable
or malformed log, no complete slice), 130 interrupted.

The log is read once, streaming: memory does not grow with its length
(only the per-slice results are kept, a few numbers each).
"""

import argparse
import contextlib
import copy
import csv
import gc
import io
import json
import math
import os
import re
import struct
import sys
import textwrap
from functools import reduce
from itertools import accumulate, chain, repeat
from operator import add, sub

PROG = "act_latency.py"
VERSION = "6.7"                   # act's version (src/common/version.h)
MAX_BUCKET = 64                   # buckets 0..64
GAP = "  "                        # between column groups
MIN_VERSION, MAX_VERSION = 6.0, 7.0
DEFAULT_CRITERIA = ((1.0, 5.0), (8.0, 1.0), (64.0, 0.1))   # (ms, percent)
HEADER_LIMIT = 16 << 20           # bytes of header to read before giving up
CHUNK_SIZE = 1 << 20              # body read size
# Logs are bytes: a device name need not be UTF-8. Undecodable bytes become
# surrogates (and back, byte for byte, when matched or printed).
ENC_ERRORS = "surrogateescape"
CACHE_LIMIT = 200000              # entries kept in each value cache

_BUCKET_RE = re.compile(rb"\((\d+): (\d+)\)")
_NAME_LINE_RE = re.compile(rb"(.+) \((\d+) total\)\s*$")
_AFTER_RE = re.compile(rb"after (\d+) sec:")
_REPORT_RE = re.compile(rb"\nafter ")
_SIGNAL_STOP_RE = re.compile(r"stopped by signal (\S+) after (\d+) sec")
HOUR = 3600                       # the ACT criteria are per one-hour slice


class UsageError(Exception):
    """A user error: reported as one message on stderr, exit status 2
    (followed by the notes that explain it, if any)."""

    def __init__(self, message, notes=()):
        super().__init__(message)
        self.notes = list(notes)


# ---------------------------------------------------------------------------
# Command line.

class _ArgumentParser(argparse.ArgumentParser):
    def error(self, message):
        raise UsageError(message + " (see --help)")


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
               "success (with --check: passed; also when the output pipe is "
               "closed early), 1 --check failed (a criterion failed, or the "
               "run is INCOMPLETE: stopped early, cut short or still "
               "running; in any of the logs), 2 error. Note that -h names a "
               "histogram; --help shows this.")
    p.add_argument("--help", action="help",
                   help="show this help message and exit")
    p.add_argument("--version", action="version",
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
                        "threshold against time")
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


def displayed_buckets(start, num, every):
    """The buckets shown in the table: start, start+every, ... (num)."""
    return list(range(start, start + num * every, every))


def round_up_slice(seconds, interval):
    """A slice length rounded up to a multiple of report-interval-sec."""
    return -(-seconds // interval) * interval


# ---------------------------------------------------------------------------
# Parsing: header.

class LogHeader:
    """What the script needs from the head of an ACT log."""

    def __init__(self):
        self.version = None         # as written, e.g. "6.6"
        self.interval = None        # report-interval-sec
        self.microsecond = None     # True, False, or None if not found
        self.config = []            # lines of the configuration block
        self.derived = []           # lines of the DERIVED CONFIGURATION block
        self.names_block = []       # HISTOGRAM NAMES and the names
        self.names = []             # histogram names, in log order
        self.rest = b""             # body bytes read while looking for the end
        self.duration = None        # test-duration-sec, None if not given
        self.commit = False         # commit-to-device: yes

    @staticmethod
    def items(lines):
        """The "name: value" lines of a block as a dict (heading skipped)."""
        d = {}
        for line in lines[1:]:
            key, sep, value = line.partition(":")
            if sep:
                d[key.strip()] = value.strip()
        return d


def read_header(f, log_name="log"):
    """Read the header of an ACT log from binary file f, up to the end of
    the HISTOGRAM NAMES block; the file is left at the first report.

    Raises UsageError when the log is not one we can analyse.
    """
    h = LogHeader()
    block = None                    # the list being filled, or None
    size = 0
    while size < HEADER_LIMIT:
        raw = f.readline(HEADER_LIMIT)
        if not raw:
            break
        size += len(raw)
        if raw.startswith(b"after ") and _AFTER_RE.match(raw):
            h.rest = raw            # the body began before the names block
            break
        line = raw.decode("utf-8", ENC_ERRORS).strip()
        if block is not None:
            if line:
                block.append(line)
                continue
            if block is h.names_block:
                break               # the reports follow
            block = None
            continue
        if line.startswith("ACT version") and h.version is None:
            h.version = line[len("ACT version"):].strip()
        elif line == "DERIVED CONFIGURATION" and not h.derived:
            block = h.derived
            block.append(line)
        elif line == "HISTOGRAM NAMES" and not h.names_block:
            block = h.names_block
            block.append(line)
        elif (line.endswith(" CONFIGURATION") and line.startswith("ACT")
              and not h.config):
            block = h.config
            block.append(line)
    h.names = h.names_block[1:]

    if h.version is None:
        raise UsageError("%s is not an ACT log: no 'ACT version' line"
                         % log_name)
    m = re.match(r"\d+(\.\d+)?", h.version)     # "6.6", or "6.6.1"
    v = float(m.group()) if m else None
    if v is None or not MIN_VERSION <= v < MAX_VERSION:
        raise UsageError("%s is ACT version %s: only logs of ACT version 6.x "
                         "can be analysed" % (log_name, h.version))
    config = h.items(h.config)
    if "report-interval-sec" in config:
        try:
            h.interval = int(config["report-interval-sec"])
        except ValueError:
            raise UsageError("%s: bad report-interval-sec %r"
                             % (log_name, config["report-interval-sec"])) \
                from None
        if h.interval < 1:
            raise UsageError("%s: bad report-interval-sec %d"
                             % (log_name, h.interval))
    missing = []
    if not h.config:
        missing.append("ACT-STORAGE/ACT-INDEX CONFIGURATION block")
    if h.interval is None:
        missing.append("report-interval-sec line")
    if not h.derived:
        missing.append("DERIVED CONFIGURATION block")
    if not h.names:
        missing.append("HISTOGRAM NAMES block")
    if missing:
        raise UsageError("%s is not a complete ACT log: no %s"
                         % (log_name, ", no ".join(missing)))
    scale = config.get("microsecond-histograms")
    if scale is not None:
        h.microsecond = scale == "yes"
    try:
        h.duration = int(config["test-duration-sec"])
    except (KeyError, ValueError):
        h.duration = None           # some old reference logs lack it
    h.commit = config.get("commit-to-device") == "yes"
    return h


def judged_histograms(header):
    """The histograms the ACT criteria judge: the transactions - reads,
    and writes when the log has commit-to-device: yes (not large-block-*,
    per-device, total-* nor act_index's cache writes)."""
    judged = {"reads", "writes"} if header.commit else {"reads"}
    return judged.intersection(header.names)


# ---------------------------------------------------------------------------
# Parsing: interval reports.

def parse_block(block, wanted, known):
    """Parse one interval report.

    block: the bytes of one report, from its "after N sec:" line (a leading
    newline is allowed) up to the next report; wanted: names (bytes) of the
    histograms to return; known: all histogram names of the log.  Lines
    that are neither the "after" line, nor a histogram name line, nor a
    bucket line (ERROR:, WARNING: ...) are ignored.

    Returns (time, hists): time is N (None if there is no "after" line) and
    hists maps each wanted histogram found (first occurrence) to
    (total, total_span, buckets), buckets mapping a bucket number to
    (count, span); a span is the (offset, width) of the digits in block.
    """
    time = None
    hists = {}
    cur = None
    pos = 0
    for line in block.split(b"\n"):
        start = pos
        pos += len(line) + 1
        if line[:2] == b" (":
            if cur is not None:
                for m in _BUCKET_RE.finditer(line):
                    cur[int(m.group(1))] = (int(m.group(2)),
                                            (start + m.start(2),
                                             m.end(2) - m.start(2)))
            continue
        if time is None and line[:6] == b"after ":
            m = _AFTER_RE.match(line)
            if m:
                time = int(m.group(1))
                continue
        m = _NAME_LINE_RE.match(line)
        if m is None or m.group(1) not in known:
            continue                # not a histogram line: ignore
        cur = None
        name = m.group(1)
        if name in wanted and name not in hists:
            cur = {}
            hists[name] = (int(m.group(2)),
                           (start + m.start(2), m.end(2) - m.start(2)), cur)
    return time, hists


def hist_vector(hist, top):
    """[c0, ..., c_top, total] for a parse_block() histogram, or None when it
    is missing or not whole (its buckets do not add up to its total)."""
    if hist is None:
        return None
    total, _, buckets = hist
    vec = [0] * (top + 2)
    s = 0
    for b, (c, _) in buckets.items():
        if b > MAX_BUCKET:
            return None
        if b <= top:
            vec[b] = c
        s += c
    if s != total:
        return None
    vec[top + 1] = total
    return vec


# ---------------------------------------------------------------------------
# Parsing: how the run ended.

class RunEnd:
    """How the run of a log ended: complete or not, and why not.

    kind is "complete"; "stopped" (a stop line follows the last complete
    report); "cut" (no stop line, the log just ends early: cut short, or
    still being written); or "damaged" (the analysis stopped at a missing
    or damaged report inside the log).
    """

    def __init__(self, kind, planned, ran, reason=None):
        self.kind = kind
        self.complete = kind == "complete"
        self.planned = planned      # test-duration-sec, or None
        self.ran = ran              # seconds: last complete report or stop
        self.reason = reason        # None when complete

    @property
    def ended(self):
        """True when the log's end is known: complete, or stopped."""
        return self.kind in ("complete", "stopped")

    def __repr__(self):
        return "RunEnd(%r, %r, %r, %r)" % (self.kind, self.planned,
                                           self.ran, self.reason)


def _report_extent(lines, known):
    """Index just past the last histogram line of a report (lines[0] is its
    "after" line): what follows is after the report."""
    end = 1
    for i in range(1, len(lines)):
        line = lines[i]
        if line[:2] == b" (":
            end = i + 1
        else:
            m = _NAME_LINE_RE.match(line)
            if m is not None and m.group(1) in known:
                end = i + 1
    return end


def stop_line(lines):
    """The stop among the lines that follow the last complete report:
    (reason, seconds or None), or None if they hold no stop.

    A `stopped by signal NAME after S sec` line is the stop; otherwise the
    first `ERROR:` line that no later report (a report being written)
    follows - lag, I/O-error and hung-I/O stops print ERROR lines and end.
    """
    texts = [line.decode("utf-8", ENC_ERRORS).strip() for line in lines]
    for text in texts:
        m = _SIGNAL_STOP_RE.match(text)
        if m:
            return m.group(0), int(m.group(2))
    last_report = -1
    for i, text in enumerate(texts):
        if text.startswith("after ") and _AFTER_RE.match(text.encode("utf-8", ENC_ERRORS)):
            last_report = i
    for text in texts[last_report + 1:]:
        if text.startswith("ERROR:"):
            return text[len("ERROR:"):].strip(), None
    return None


def run_end(tail, known, duration, fallback_ran=None):
    """How the run ended, from the end of the log body.

    tail: the last bytes of the body (whole lines), from the start of the
    next-to-last report on (or the whole body); known: the log's histogram
    names (bytes); duration: test-duration-sec or None; fallback_ran: when
    reports came before the tail, the last slice end found (None if none
    came).

    The last complete report is the last one whose histograms are all
    there and whole.  The run is complete when that report is at (or, as
    the reference ACT rounds its last report up to the interval, after)
    test-duration-sec and no stop line (stop_line()) follows it; without
    test-duration-sec, when no stop line follows it.
    """
    starts = [m.start() + 1 for m in _REPORT_RE.finditer(tail)]
    if tail.startswith(b"after "):
        starts.insert(0, 0)
    bounds = starts + [len(tail)]
    last = after = None
    for k in range(len(starts) - 1, -1, -1):
        own = tail[bounds[k]:bounds[k + 1]]
        t, hists = parse_block(own, known, known)
        if t is not None and all(hist_vector(hists.get(n), MAX_BUCKET)
                                 is not None for n in known):
            last = t
            lines = own.replace(b"\r", b"").split(b"\n")
            after = (lines[_report_extent(lines, known):] +
                     tail[bounds[k + 1]:].replace(b"\r", b"").split(b"\n"))
            break
    if last is None:
        after = tail.replace(b"\r", b"").split(b"\n")
    stop = stop_line(after)
    ran = last or fallback_ran or 0
    if stop is not None:
        reason, sec = stop
        return RunEnd("stopped", duration, ran if sec is None else sec,
                      reason)
    if last is None and fallback_ran is not None:
        # earlier reports were read, but the last ones kept are all broken
        return RunEnd("cut", duration, ran,
                      "no complete report at the end of the log")
    if duration is None:
        if last is None:
            return RunEnd("cut", None, 0, "log ends before the first report")
        return RunEnd("complete", None, ran)
    if last is not None and last >= duration:
        return RunEnd("complete", duration, ran)
    return RunEnd("cut", duration, ran,
                  "log ends after %d of %d sec" % (ran, duration))


_STOP = object()


class ReportScanner:
    """Stream the interval reports of an ACT log body.

    Iterating yields batches (ends, columns): ends lists the slice ends
    (k*T seconds) whose reports were found, in order; columns[u][j] lists,
    for the u-th distinct selected histogram, the cumulative count of
    bucket j (j = 0..top) at each of these reports, and columns[u][top+1]
    its total.  A column of a bucket that is empty throughout the batch may
    be None.

    It stops at the first slice end whose report is missing or incomplete;
    unless that is just the end of a log still being written, self.stopped
    says why.

    Speed: an ACT log is very regular.  Counts only grow, so consecutive
    reports of the same size nearly always have the same layout; such a
    run is decoded at once with one struct.Struct, at the offsets learnt
    from its first report, after checking that its last report has the
    same layout and that every report has its "after" line, bucket numbers
    and brackets at the same places.  Anything irregular (a field getting
    wider, a bucket appearing, an ERROR line, a missing report) breaks the
    chunk into runs of equal-size reports, and what is still irregular is
    parsed report by report, line by line.
    """

    def __init__(self, f, initial, names, selected, interval, slice_sec, top,
                 chunk_size=CHUNK_SIZE, duration=None):
        self.f = f
        self.initial = initial
        self.known = frozenset(n.encode("utf-8", ENC_ERRORS) for n in names)
        self.unique = list(dict.fromkeys(n.encode("utf-8", ENC_ERRORS)
                                          for n in selected))
        self.wanted = frozenset(self.unique)
        self.interval = interval
        self.slice_sec = slice_sec
        self.top = top
        self.chunk_size = chunk_size
        self.target = slice_sec     # next slice end
        self.expected = interval    # next report time expected
        self.stopped = None
        self.duration = duration
        self.end = None             # RunEnd, once the log was read to its end
        self._prev = b""            # the last report before the buffer
        self._earlier = False       # reports dropped before self._prev
        self._structs = {}

    def __iter__(self):
        # One working buffer, reused: memory stays the same however long
        # the log is.
        f = self.f
        buf = bytearray(b"\n" + self.initial)
        chunk = bytearray(self.chunk_size)
        view = memoryview(chunk)
        eof = False
        while not eof:
            got = f.readinto(chunk)
            if got:
                buf += view[:got]
                end = buf.rfind(b"\nafter ")
                if end <= 0:
                    continue        # no complete report yet
            else:
                eof = True
                end = buf.rfind(b"\n") + 1   # drop a partial last line
            start = buf.find(b"\nafter ", 0, end)
            if eof:
                tail, earlier = self._tail(buf, end)
            if start >= 0:
                for batch in self._region(buf, start, end, eof):
                    if batch is _STOP:
                        if eof and self.stopped is None:
                            self._finish(tail, earlier)
                        return
                    yield batch
            if eof:
                self._finish(tail, earlier)
            else:
                # Keep the last report processed: the next-to-last report
                # of the log is needed to tell how the run ended.
                last = buf.rfind(b"\nafter ", 0, end)
                if last >= 0 and (self._prev.startswith(b"\nafter ") or
                                  buf.find(b"\nafter ", 0, last) >= 0):
                    self._earlier = True
                self._prev = bytes(buf[max(last, 0):end])
            del buf[:end]

    def _tail(self, buf, end):
        """(the end of the log body at EOF, from the start of its
        next-to-last report or the whole body; whether reports came
        before it)."""
        last = buf.rfind(b"\nafter ", 0, end)
        before = buf.rfind(b"\nafter ", 0, last) if last > 0 else -1
        if before >= 0:
            return (bytes(buf[before:end]),
                    self._earlier or self._prev.startswith(b"\nafter ") or
                    buf.find(b"\nafter ", 0, before) >= 0)
        return self._prev + bytes(buf[:end]), self._earlier

    def _finish(self, tail, earlier):
        """Set self.end: how the run ended."""
        found = self.target - self.slice_sec
        self.end = run_end(tail, self.known, self.duration,
                           max(found, 0) if earlier else None)

    def _region(self, buf, s, e, eof):
        """Batches of the reports in buf[s:e] (s at a report)."""
        n = buf.count(b"\nafter ", s, e)
        if n >= 2:
            size = buf.find(b"\nafter ", s + 1, e) - s
            batch = self._regular(buf, s, e, n, size)
            if batch is not None:
                if batch[0]:
                    yield batch
                return
        # Irregular: cut into runs of consecutive reports of equal size.
        starts = [m.start() for m in _REPORT_RE.finditer(buf, s, e)] + [e]
        i = 0
        while i < len(starts) - 1:
            size = starts[i + 1] - starts[i]
            j = i + 1
            while j < len(starts) - 1 and starts[j + 1] - starts[j] == size:
                j += 1
            batch = None
            if j - i >= 2:
                batch = self._regular(buf, starts[i], starts[j], j - i, size)
            if batch is not None:
                if batch[0]:
                    yield batch
            else:
                for k in range(i, j):
                    a, b = starts[k], starts[k + 1]
                    batch = self._single(bytes(buf[a:b]), eof and b == e)
                    if batch is not None:
                        yield batch
                        if batch is _STOP:
                            return
            i = j

    def _signature(self, hists):
        """The layout of the selected histograms in a report, or None."""
        sig = []
        for name in self.unique:
            hist = hists.get(name)
            if hist_vector(hist, self.top) is None:
                return None
            sig.append((hist[1], tuple(sorted((b, span) for b, (c, span)
                                              in hist[2].items()))))
        return tuple(sig)

    def _struct(self, sig, size):
        """struct.Struct decoding a report of this layout, where each field
        goes, and the bytes that must surround the fields."""
        key = (sig, size)
        st = self._structs.get(key)
        if st is None:
            fields, marks = [], [(i, c) for i, c in enumerate(b"\nafter ")]
            for u, (total_span, buckets) in enumerate(sig):
                off, width = total_span
                fields.append((total_span, u, self.top + 1))
                marks += [(off - 1, 40), (off + width, 32)]
                for b, span in buckets:
                    if b <= self.top:
                        off, width = span
                        fields.append((span, u, b))
                        marks += [(off - 4, 48 + b // 10),
                                  (off - 3, 48 + b % 10), (off + width, 41)]
            fields.sort()
            fmt, cur = [], 0
            for (off, width), u, slot in fields:
                fmt.append("%dx%ds" % (off - cur, width))
                cur = off + width
            fmt.append("%dx" % (size - cur))
            st = self._structs[key] = (
                struct.Struct("".join(fmt)),
                [(u, slot) for _, u, slot in fields],
                [(off, bytes([c])) for off, c in sorted(set(marks))])
        return st

    def _regular(self, buf, s, e, n, size):
        """A batch from n reports of equal size in buf[s:e], or None if
        they are not a regular run (then the caller splits them)."""
        interval = self.interval
        if e - s != n * size:
            return None
        t0, first = parse_block(bytes(buf[s:s + size]), self.wanted,
                                self.known)
        t1, last = parse_block(bytes(buf[e - size:e]), self.wanted,
                               self.known)
        if t0 != self.expected or t1 != t0 + (n - 1) * interval:
            return None
        sig = self._signature(first)
        if sig is None or sig != self._signature(last):
            return None
        j0, rem = divmod(self.target - t0, interval)
        if j0 < 0 or rem:
            return None
        st, fields, marks = self._struct(sig, size)
        # Every report of the run must have the first one's layout: its
        # "after" line, and the bucket numbers and brackets around each
        # field read, at the same offsets (strided slices: cheap).
        for off, c in marks:
            if buf[s + off:e:size].count(c) != n:
                return None
        step = self.slice_sec // interval
        picked = range(j0, n, step)
        if not picked:
            self.expected = t1 + interval
            return [], None
        with memoryview(buf) as mv:
            if step == 1:
                records = st.iter_unpack(mv[s + j0 * size:e])
            else:
                unpack = st.unpack_from
                records = [unpack(mv, s + j * size) for j in picked]
            try:
                values = list(map(int, chain.from_iterable(records)))
            except ValueError:
                return None
            finally:
                del records
        columns = [[None] * (self.top + 2) for _ in self.unique]
        width = len(fields)
        for f, (u, slot) in enumerate(fields):
            columns[u][slot] = values[f::width]
        self.expected = t1 + interval
        ends = list(range(self.target, t1 + 1, self.slice_sec))
        self.target = ends[-1] + self.slice_sec
        return ends, columns

    def _single(self, block, final):
        """A batch from one report, None if it is not a slice end, _STOP."""
        t, hists = parse_block(block, self.wanted, self.known)
        if t is None:
            return None
        self.expected = t + self.interval
        if t < self.target:
            return None
        if t > self.target:
            self.stopped = "there is no report after %d sec" % self.target
            return _STOP
        vectors = [hist_vector(hists.get(u), self.top) for u in self.unique]
        if None in vectors:
            if not final:
                self.stopped = "the report after %d sec is incomplete" % t
            return _STOP
        self.target += self.slice_sec
        return [t], [[[c] for c in vec] for vec in vectors]


# ---------------------------------------------------------------------------
# Computing.

def percent_over(over, total):
    """% of total above a threshold, rounded like the reference."""
    return round(100.0 * over / total, 2) if total else 0.0


def slice_rate(total, slice_sec):
    """Operations per second over a slice, rounded like the reference."""
    return round(total / slice_sec, 1)


def slice_values(prev, cur, buckets, slice_sec):
    """One histogram's values for one slice.

    prev, cur: hist_vector()s at the slice's start and end (prev all zeros
    for slice 1); buckets: the buckets whose threshold to evaluate.
    Returns (percentages over each bucket's threshold, rate, operations).
    """
    le = list(accumulate(map(sub, cur[:-1], prev[:-1])))
    total = cur[-1] - prev[-1]
    return (tuple(percent_over(total - le[b], total) for b in buckets),
            slice_rate(total, slice_sec), total)


class _PercentCache(dict):
    """percent_over() for one slice total, by operations at or below."""

    def __init__(self, total):
        super().__init__()
        self.total = total

    def __missing__(self, below):
        v = self[below] = percent_over(self.total - below, self.total)
        return v


class _PercentCaches(dict):
    """A _PercentCache per slice total."""

    def __missing__(self, total):
        c = self[total] = _PercentCache(total)
        return c


class _FuncCache(dict):
    """func(key), remembered."""

    def __init__(self, func):
        super().__init__()
        self.func = func

    def __missing__(self, key):
        v = self[key] = self.func(key)
        return v


if sys.version_info < (3, 12):
    _plain_sum = sum                # a left-to-right sum of doubles
else:                               # sum() compensates rounding since 3.12
    def _plain_sum(values, start):
        return reduce(add, values, start)


def mean(values):
    """Plain mean: the left-to-right float sum over the count, as the
    reference computes it (this decides ties such as 0.015 -> 0.01)."""
    return _plain_sum(values, 0.0) / len(values) if values else 0.0


class Criterion:
    """A pass criterion: fewer than `limit` % of operations over `ms`."""

    def __init__(self, ms, limit, microsecond):
        self.ms = ms
        self.limit = limit
        k = int(math.log2(ms))          # ms is a power of two
        if microsecond:
            self.bucket = k + 10        # 1 ms ~ 1024 us = 2^10
            self.label = "%d us" % (1 << self.bucket) if self.bucket >= 0 \
                else None
        else:
            self.bucket = k
            self.label = _fmt_num(ms) + " ms"
        if not 0 <= self.bucket <= MAX_BUCKET:
            raise UsageError(
                "criterion %s:%s: threshold outside the histogram's range%s"
                % (_fmt_num(ms), _fmt_num(limit),
                   "" if microsecond else " (a millisecond log starts at "
                                          "1 ms)"))


def _fmt_num(x):
    return "%g" % x


def evaluate(criteria, hist_names, max_rows):
    """Check results: one dict per criterion and histogram, in table order.

    max_rows[i][j] is histogram i's max value for criteria[j].
    """
    results = []
    for name, maxes in zip(hist_names, max_rows):
        for c, value in zip(criteria, maxes):
            results.append({"histogram": name, "threshold": c.label,
                            "threshold_ms": c.ms, "bucket": c.bucket,
                            "limit_pct": c.limit, "max_pct": value,
                            "pass": value < c.limit})
    return results


def verdict(results, run, stress):
    """The --check verdict: "PASS", "FAIL" or "INCOMPLETE".

    An incomplete run never passes.  A stress test (--stress) passes when
    the run completed, whatever the criteria; otherwise every criterion
    must be met.
    """
    if not run.complete:
        return "INCOMPLETE"
    if stress or all(r["pass"] for r in results):
        return "PASS"
    return "FAIL"


def slice_notes(run, slice_sec, ends, hourly):
    """Notes for stderr about slices that do not fit the run.

    Only when the run's end is known (complete, or a stop line): in a log
    still being written the last slice is simply not finished yet.  hourly:
    the standard criteria are being checked (they are defined per hour).
    """
    notes = []
    if run.ended:
        if slice_sec > run.ran:
            notes.append("slice of %d sec is longer than the run (%d sec%s): "
                         "no slice is complete; use a shorter -t"
                         % (slice_sec, run.ran,
                            "" if run.complete else ", " + run.reason))
        elif ends and run.ran > ends[-1]:
            notes.append("the last %d sec of the run are not in any slice: "
                         "%d %s of %d sec end%s at %d sec, the run at %d sec"
                         % (run.ran - ends[-1], len(ends),
                            "slice" if len(ends) == 1 else "slices",
                            slice_sec, "s" if len(ends) == 1 else "",
                            ends[-1], run.ran))
    if hourly and ends and slice_sec > HOUR:
        notes.append("--check on slices of %d sec: the ACT criteria are "
                     "defined on one-hour slices, and a longer slice "
                     "dilutes the worst hour; use -t 3600 for the standard "
                     "verdict" % slice_sec)
    return notes


# ---------------------------------------------------------------------------
# Formatting.

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


def result_line(results, run, stress):
    """The last line of the --check report."""
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
                not_judged=(), not_analysed=()):
    """The --check report: the criteria, what is not judged, how the run
    ended, the verdict."""
    return (check_heading(criteria, microsecond, custom, stress) +
            check_body(results, run, stress, not_judged, not_analysed))


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


def check_body(results, run, stress, not_judged=(), not_analysed=()):
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
    out.append(result_line(results, run, stress))
    return out


# ---------------------------------------------------------------------------
# Analysis: the whole run, parse -> compute -> format.

class Analysis:
    """Results of one analysis: what the table, --json and --plot show."""

    def __init__(self, args, header, slice_sec, buckets, criteria,
                 extra_buckets=()):
        self.args = args
        self.header = header
        self.slice_sec = slice_sec
        self.buckets = buckets      # displayed buckets
        self.criteria = criteria
        # the displayed buckets, the criteria's, then extra_buckets
        self.evaluated = (buckets + [c.bucket for c in criteria] +
                          list(extra_buckets))
        self.unit = "us" if header.microsecond else "ms"
        n = len(args.histograms)
        self.ends = []              # slice ends, seconds after the start
        # values[i][j][k]: histogram i, evaluated bucket j, slice k
        self.values = [[[] for _ in self.evaluated] for _ in range(n)]
        self.rates = [[] for _ in range(n)]     # [i][k]
        self.ops = [[] for _ in range(n)]       # [i][k]
        self.avg = self.max = None              # [i] = (values, rate)
        self.results = None                     # check results
        self.judged = judged_histograms(header)
        self.run = None                         # RunEnd
        self.notes = []                         # for stderr

    def row_values(self, i, k):
        """Histogram i's evaluated values in slice k."""
        return tuple(col[k] for col in self.values[i])


def batch_values(columns, prev, n, top, evaluated, percents, rates):
    """Compute one histogram's results for a batch of n slices.

    columns: the scanner's cumulative count columns (None = all zero);
    prev: the cumulative counts at the end of the previous slice, updated.
    Returns (values per evaluated bucket, rates, operations), each a list
    over the slices.  Works on whole columns with C-level map()s; the
    values come from caches built with percent_over() and slice_rate().
    """
    deltas = []
    for j, col in enumerate(columns):
        p = prev[j]
        if col is None:
            if not p:
                deltas.append(None)
                continue
            col = [0] * n
        deltas.append(list(map(sub, col, chain((p,), col))))
        prev[j] = col[-1]
    ops = deltas[top + 1]
    caches = list(map(percents.__getitem__, ops))
    below = []                      # operations at or below each bucket
    run = None
    for d in deltas[:top + 1]:
        if d is not None:
            run = d if run is None else list(map(add, run, d))
        below.append(run)
    values, memo = [], {}
    for b in evaluated:
        run = below[b]
        v = memo.get(id(run))
        if v is None:
            if run == ops:          # nothing over this threshold
                v = [0.0] * n
            else:
                v = list(map(dict.__getitem__, caches,
                             repeat(0, n) if run is None else run))
            memo[id(run)] = v
        values.append(v)
    return values, list(map(rates.__getitem__, ops)), ops


def analyse(args, header, f, emit, chunk_size=CHUNK_SIZE, table=None,
            who="", extra_buckets=()):
    """Scan the log body, emitting the table through emit(lines) as slices
    complete (if table; by default unless --json); returns the Analysis.

    who prefixes the warning about a damaged log (the log's label when
    several are analysed); extra_buckets are evaluated too, after the
    displayed buckets and the criteria's (not displayed).
    """
    requested = args.slice
    slice_sec = round_up_slice(requested, header.interval)
    buckets = displayed_buckets(args.start_bucket, args.num_buckets,
                                args.every_nth)
    criteria = [Criterion(ms, pct, header.microsecond)
                for ms, pct in (args.criteria or ())]
    hists = args.histograms
    a = Analysis(args, header, slice_sec, buckets, criteria, extra_buckets)
    evaluated = a.evaluated
    top = max(evaluated)
    nb = len(buckets)
    extra = args.extra
    if table is None:
        table = not args.json
    pad = [GAP + p for p in pads(hists, group_width(nb, extra))]

    scanner = ReportScanner(f, header.rest, header.names, hists,
                            header.interval, slice_sec, top, chunk_size,
                            header.duration)
    unique = [n.encode("utf-8", ENC_ERRORS) for n in hists]
    position = [scanner.unique.index(n) for n in unique]
    prev = [[0] * (top + 2) for _ in scanner.unique]
    percents = _PercentCaches()
    rates = _FuncCache(lambda ops: slice_rate(ops, slice_sec))
    strings = _FuncCache("%7.2f".__mod__)
    rate_strings = _FuncCache("%11.1f".__mod__)
    done = 0
    for ends, columns in scanner:
        n = len(ends)
        if not done and table:
            emit(header_lines(args.argv, args.log, header, slice_sec,
                              slice_sec != requested) +
                 table_header(hists, buckets, a.unit, extra))
        results = [batch_values(cols, p, n, top, evaluated, percents, rates)
                   for cols, p in zip(columns, prev)]
        parts = [map("%5d".__mod__, range(done + 1, done + n + 1))]
        texts = {}                  # value list id -> its strings
        for i, u in enumerate(position):
            values, slice_rates, ops = results[u]
            for store, v in zip(a.values[i], values):
                store += v
            a.rates[i] += slice_rates
            a.ops[i] += ops
            if table:
                parts.append(repeat(pad[i], n))
                for v in values[:nb]:
                    text = texts.get(id(v))
                    if text is None:
                        text = texts[id(v)] = (
                            list(map(strings.__getitem__, v)) if any(v)
                            else [strings[0.0]] * n)
                    parts.append(text)
                if extra:
                    parts.append(map(rate_strings.__getitem__, slice_rates))
        a.ends += ends
        done += n
        if table:
            emit(map("".join, zip(*parts)))
        if len(percents) > CACHE_LIMIT:
            percents.clear()
        if len(rates) > CACHE_LIMIT:
            rates.clear()
            rate_strings.clear()
    analysed = a.ends[-1] if a.ends else 0
    if scanner.stopped:
        print("%s: warning: %s%s; the rest of the log is ignored"
              % (PROG, who, scanner.stopped), file=sys.stderr)
        a.run = RunEnd("damaged", header.duration, analysed,
                       "damaged log: %s; the rest of the log is ignored"
                       % scanner.stopped)
    else:
        a.run = scanner.end or RunEnd("cut", header.duration, analysed,
                                      "log ends early")
    hourly = (args.check and not args.stress and
              args.criteria == DEFAULT_CRITERIA)
    a.notes = slice_notes(a.run, slice_sec, a.ends, hourly)
    if not done:
        raise UsageError("could not find %d seconds of data in %s"
                         % (slice_sec, args.log), a.notes)
    a.avg = [([mean(col) for col in a.values[i]], mean(a.rates[i]))
             for i in range(len(hists))]
    a.max = [([max(col) for col in a.values[i]], max(a.rates[i]))
             for i in range(len(hists))]
    if table:
        fmt = row_format(hists, nb, extra)
        emit([table_header(hists, buckets, a.unit, extra)[3],
              format_row(fmt, "avg", [v for v, r in a.avg],
                         [r for v, r in a.avg], nb, extra),
              format_row(fmt, "max", [v for v, r in a.max],
                         [r for v, r in a.max], nb, extra)])
    if args.check:
        judged = [i for i, name in enumerate(hists)
                  if name in a.judged and name not in hists[:i]]
        a.results = evaluate(criteria, [hists[i] for i in judged],
                             [a.max[i][0][nb:] for i in judged])
    return a


# ---------------------------------------------------------------------------
# Several logs: one table, slices aligned by time since the start.

MISSING = "-"                     # a value of a slice a log does not have
COMPARE_FORMAT = "act_latency/compare/1"   # --json of several logs


def common_interval(intervals):
    """The least common multiple of the logs' report-interval-sec: a slice
    that is a multiple of it ends at a report of every log."""
    return reduce(lambda x, y: x * y // math.gcd(x, y), intervals)


def check_logs(args, headers):
    """The checks of run() for each of several logs, and that their scales
    agree; raises UsageError naming the log."""
    for path, h in zip(args.logs, headers):
        unknown = [n for n in args.histograms if n not in h.names]
        if unknown:
            raise UsageError("histogram %s not in %s; its histograms are: %s"
                             % (", ".join(unknown), path,
                                ", ".join(h.names)))
    scales = [bool(h.microsecond) for h in headers]
    if len(set(scales)) > 1:
        us = scales.index(True)
        ms = scales.index(False)
        raise UsageError("%s has microsecond histograms and %s millisecond "
                         "ones: compare logs of the same scale"
                         % (args.logs[us], args.logs[ms]))
    if args.check and not args.stress:
        for path, h in zip(args.logs, headers):
            judged = judged_histograms(h)
            if not judged.intersection(args.histograms):
                raise UsageError(
                    "--check has nothing to judge in %s: the ACT criteria "
                    "apply to the transactions (reads, and writes with "
                    "commit-to-device), and -h names none of them%s"
                    % (path, "; use -h " + " -h ".join(sorted(judged))
                       if judged else " (this log has none)"))


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
    """The comparison table: four header rows under a row of log labels,
    one row per slice (MISSING where a log has no such slice), the
    underline, avg and max (each log's own).  Trailing spaces are
    dropped."""
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

    # Each (log, histogram) column group as a list of padded cells, one per
    # slice (the strings of repeated values made once).
    strings = _FuncCache("%7.2f".__mod__)
    rate_strings = _FuncCache("%11.1f".__mod__)
    n = max(len(a.ends) for a in analyses)
    columns = []
    for a in analyses:
        for i in range(per_log):
            parts = [map(strings.__getitem__, a.values[i][j])
                     for j in range(nb)]
            if extra:
                parts.append(map(rate_strings.__getitem__, a.rates[i]))
            w = widths[len(columns)]
            col = [GAP + c.ljust(w) for c in map("".join, zip(*parts))]
            col += [GAP + missing.ljust(w)] * (n - len(col))
            columns.append(col)
    lines += [("%5d" % (k + 1) + "".join(cells)).rstrip()
              for k, cells in enumerate(zip(*columns))]
    lines.append(lines[4])
    for what in ("avg", "max"):
        cells = [cell(*getattr(a, what)[i]) for a in analyses
                 for i in range(per_log)]
        lines.append(row("%5s" % what, cells))
    return lines


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
    """The verdict of several logs: PASS when every log passes; otherwise
    FAIL if a log failed, else INCOMPLETE."""
    if all(v == "PASS" for v in verdicts):
        return "PASS"
    return "FAIL" if "FAIL" in verdicts else "INCOMPLETE"


def overall_result_line(labels, verdicts):
    """The last line of the --check report of several logs."""
    result = overall_verdict(verdicts)
    passed = sum(1 for v in verdicts if v == "PASS")
    text = "result: %s (%d of %d logs passed" % (result, passed, len(labels))
    bad = ["%s: %s" % (lab, v) for lab, v in zip(labels, verdicts)
           if v != "PASS"]
    return text + ("; " + ", ".join(bad) if bad else "") + ")"


def compare_check_lines(labels, analyses, args):
    """The --check report of several logs: the criteria once, then each
    log's report, its lines prefixed with its label, and the overall
    result."""
    a0 = analyses[0]
    out = check_heading(a0.criteria, a0.header.microsecond,
                        args.criteria != DEFAULT_CRITERIA, args.stress)
    verdicts = []
    for label, a in zip(labels, analyses):
        out += ["%s: %s" % (label, line) for line in
                check_body(a.results, a.run, args.stress, *judged_lists(a))]
        verdicts.append(verdict(a.results, a.run, args.stress))
    out.append(overall_result_line(labels, verdicts))
    return out, verdicts


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


def emit_lines(lines):
    """Write lines to stdout; a write error (but a closed pipe, which main
    handles) is a user error."""
    try:
        sys.stdout.write("\n".join(lines) + "\n")
    except BrokenPipeError:
        raise
    except OSError as e:
        raise UsageError("cannot write the output: %s"
                         % (e.strerror or e)) from None


def run_logs(args):
    """Several logs, or --csv: analyse each log, then print one table (or
    the CSV, or the JSON document); returns the exit status."""
    labels = args.labels
    multi = len(args.logs) > 1
    emit = emit_lines

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
            gc_was_enabled = gc.isenabled()
            gc.disable()
            try:
                analyses.append(analyse(sub, h, f, None, table=False,
                                        who=prefix(label),
                                        extra_buckets=[one_ms]))
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
                                args.stress, *judged_lists(a0))
            verdicts = [verdict(a0.results, a0.run, args.stress)]
        report += lines

    if args.csv:
        out = io.StringIO()
        csv.writer(out, lineterminator="\n").writerows(
            csv_rows(labels, analyses))
        emit([out.getvalue()[:-1]])
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
            doc = compare_json(labels, analyses, worst, check)
        else:
            doc = json_document(a0)
        sys.stdout.write(json.dumps(doc) + "\n")
    else:
        emit(compare_header_lines(args.argv, labels, args.logs, headers,
                                  slice_sec, slice_sec != args.slice) +
             compare_table(labels, analyses, names, a0.buckets, a0.unit,
                           args.extra) + report)
    if args.plot:
        try:
            with open(args.plot, "w", encoding="utf-8",
                      errors="replace") as out:
                out.write(svg_chart(analyses, labels, result) if multi
                          else svg_document(a0))
        except OSError as e:
            raise UsageError("cannot write the plot %s: %s"
                             % (args.plot, e.strerror or e)) from None
    if args.check and overall_verdict(verdicts) != "PASS":
        return 1
    return 0


# ---------------------------------------------------------------------------
# JSON.

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


# ---------------------------------------------------------------------------
# SVG plot.

BANNER_WIDTH = 95                 # characters per line of a plot banner
_COLORS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
           "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf")


def escape(text):
    """Text for SVG character data and attribute values."""
    return (text.replace("&", "&amp;").replace("<", "&lt;")
            .replace(">", "&gt;").replace('"', "&quot;"))


def _nice_step(span, ticks=6):
    """A round tick step giving about `ticks` ticks over span."""
    if span <= 0:
        return 1
    raw = span / ticks
    mag = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 5, 10):
        if raw <= m * mag:
            return m * mag
    return 10 * mag


def _fmt_tick(x):
    return ("%.6f" % x).rstrip("0").rstrip(".")


_DASHES = ("", "4,2", "1,2", "9,2,1,2", "14,3", "1,5", "9,2,1,2,1,2")


def thin_points(points):
    """The points of a polyline, thinned for drawing.

    points: (x, y, k) in x order (pixels, and the slice index).  Of the
    points that fall in the same whole-pixel column only the highest and
    the lowest are kept, in slice order: at most two per column, so a chart
    stays small however many slices it has, and every peak is still drawn.
    """
    out = []
    col = lo = hi = None
    for p in points:
        c = math.floor(p[0])
        if c != col:
            if col is not None:
                out += _column(lo, hi)
            col, lo, hi = c, p, p
        elif p[1] < lo[1]:
            lo = p                  # higher on the chart: SVG y grows down
        elif p[1] > hi[1]:
            hi = p
    if col is not None:
        out += _column(lo, hi)
    return out


def _column(lo, hi):
    """The points kept of one pixel column, in slice order."""
    if lo is hi:
        return [lo]
    return [lo, hi] if lo[2] < hi[2] else [hi, lo]


def svg_document(a):
    """The --plot chart of one log as SVG text (see svg_chart()), titled
    with the log's label (by default its file name)."""
    labels = getattr(a.args, "labels", None)
    return svg_chart([a], [labels[0] if labels else None])


def svg_chart(analyses, labels, result=None):
    """The --plot chart as SVG text: one panel per histogram, % of
    operations over each displayed threshold against time (log scale),
    criteria as dashed lines on the panels the criteria judge (reads;
    writes with commit-to-device), banners in red at the top for an
    INCOMPLETE run and for a --check that did not pass.

    One log (labels: [its label, or None for its file name]): one colour
    per threshold.  Several logs (labels: their names): one colour per log,
    one dash pattern per threshold, and result is the overall --check
    result line, if any.
    Series are thinned (thin_points()): the size does not grow with the
    number of slices.
    """
    a0 = analyses[0]
    multi = len(analyses) > 1
    nb = len(a0.buckets)
    buckets = a0.buckets
    criteria = a0.criteria or [Criterion(ms, pct, a0.header.microsecond)
                               for ms, pct in DEFAULT_CRITERIA]
    verdicts = {}                   # (hist, bucket, limit) -> failed labels
    checked = a0.results is not None
    for a, label in zip(analyses, labels):
        for r in a.results or ():
            failed = verdicts.setdefault(
                (r["histogram"], r["bucket"], r["limit_pct"]), [])
            if not r["pass"]:
                failed.append(label)
    W = 980                         # width
    L, R, T, B = 80, 250, 46, 56    # plot margins inside a panel
    pw = W - L - R
    if multi:                       # room for the labels in the legend
        R = max(R, 60 + 7 * max(len(label) + 24 for label in labels))
        W = L + pw + R
    entries = nb + len(criteria) + 1 + (len(analyses) if multi else 0)
    PH = max(330, T + 16 * entries + 24)    # panel height
    ph = PH - T - B
    unit = a0.unit
    span = max(a.ends[-1] for a in analyses)
    if span >= 4 * 3600:
        xunit, xdiv = "hours", 3600.0
    elif span >= 4 * 60:
        xunit, xdiv = "minutes", 60.0
    else:
        xunit, xdiv = "seconds", 1.0
    xmax = span / xdiv
    lo = 0.01                       # smallest non-zero value shown (rounded)
    top_val = max([lo] + [max(col) for a in analyses for cols in a.values
                          for col in cols[:nb]]
                  + [c.limit for c in criteria])
    decades = max(1, math.ceil(math.log10(top_val / lo) - 1e-9))
    zero_band = 22                  # pixels below the lowest decade for 0

    def ypix(v):
        if v <= 0:
            return T + ph
        v = max(v, lo)
        return T + (ph - zero_band) * (1 - math.log10(v / lo) / decades)

    def xpix(sec):
        return L + pw * ((sec / xdiv) / xmax if xmax else 0.5)

    banners = []                    # (class, color, text): one per line
    for a, label in zip(analyses, labels):
        if not a.run.complete:
            banners += [("incomplete", "#d62728", line)
                        for line in textwrap.wrap(
                            "INCOMPLETE: " + ("%s: " % label if multi else "")
                            + why_incomplete(a.run), BANNER_WIDTH)]
    if checked:
        if not multi:
            result = result_line(a0.results, a0.run, a0.args.stress)
        color = "#2ca02c" if result.startswith("result: PASS") \
            else "#d62728"
        banners += [("result", color, line) for line in textwrap.wrap(
            result, BANNER_WIDTH)]
    top = 30 + 22 * len(banners)    # where the first panel starts
    height = PH * len(a0.values) + top
    if multi:
        what = ", ".join(labels)
    else:
        what = labels[0] or os.path.basename(a0.args.log)
    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           '<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
           'viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">'
           % (W, height, W, height),
           '<title>%s: latency, %% of operations over each threshold'
           '</title>' % escape(", ".join(labels) if multi else a0.args.log),
           '<rect width="100%" height="100%" fill="white"/>',
           '<text x="%d" y="20" font-size="14">%s: %% of operations over '
           'each threshold, %d s slices</text>'
           % (L, escape(what), a0.slice_sec)]
    for k, (cls, color, text) in enumerate(banners):
        out.append('<text class="banner %s" x="%d" y="%d" font-size="15" '
                   'font-weight="bold" fill="%s">%s</text>'
                   % (cls, L, 42 + 22 * k, color, escape(text)))
    for i, name in enumerate(a0.args.histograms):
        y0 = top + i * PH
        out.append('<g class="panel" data-histogram="%s" '
                   'transform="translate(0,%d)">' % (escape(name), y0))
        out.append('<text class="title" x="%d" y="%d" font-size="14" '
                   'font-weight="bold">%s</text>'
                   % (L, T - 14, escape(name)))
        out.append('<rect x="%d" y="%d" width="%d" height="%d" fill="none" '
                   'stroke="#444"/>' % (L, T, pw, ph))
        # y axis: decades, and 0 at the bottom
        ticks = [(0.0, "0")] + [(lo * 10 ** d, _fmt_tick(lo * 10 ** d))
                                for d in range(decades + 1)]
        for v, label in ticks:
            y = ypix(v)
            out.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" '
                       'stroke="#ddd"/>' % (L, y, L + pw, y))
            out.append('<text x="%d" y="%.1f" text-anchor="end">%s</text>'
                       % (L - 6, y + 4, label))
        out.append('<text x="18" y="%d" text-anchor="middle" '
                   'transform="rotate(-90 18 %d)">%% over threshold '
                   '(log scale)</text>' % (T + ph // 2, T + ph // 2))
        # x axis
        step = _nice_step(xmax)
        t = 0.0
        while t <= xmax * (1 + 1e-9):
            x = L + pw * (t / xmax if xmax else 0.5)
            out.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" '
                       'stroke="#444"/>' % (x, T + ph, x, T + ph + 5))
            out.append('<text x="%.1f" y="%d" text-anchor="middle">%s</text>'
                       % (x, T + ph + 18, _fmt_tick(t)))
            t += step
        out.append('<text x="%d" y="%d" text-anchor="middle">time since '
                   'start, %s (slice end)</text>'
                   % (L + pw // 2, T + ph + 38, xunit))
        # criteria, on the judged histograms only
        legend = []
        judged = name in a0.judged if not multi else \
            any(name in a.judged for a in analyses)
        for c in criteria if judged else ():
            color = "#000"
            if multi:
                color = "#999"
            elif c.bucket in buckets:
                color = _COLORS[buckets.index(c.bucket) % len(_COLORS)]
            y = ypix(c.limit)
            out.append('<line class="criterion" x1="%d" y1="%.1f" x2="%d" '
                       'y2="%.1f" stroke="%s" stroke-width="1.5" '
                       'stroke-dasharray="7,4"/>'
                       % (L, y, L + pw, y, color))
            failed = verdicts.get((name, c.bucket, c.limit))
            ok = None if failed is None else not failed
            if ok is False:
                out.append('<text class="fail" x="%d" y="%.1f" '
                           'text-anchor="end" fill="#d62728" '
                           'font-weight="bold">FAIL%s</text>'
                           % (L + pw - 4, y - 4, ": " + escape(
                               ", ".join(failed)) if multi else ""))
            legend.append(("criterion" if ok is not False else "fail",
                           color, "", "limit %s%% over %s%s"
                           % (_fmt_num(c.limit), c.label,
                              "" if ok is None else
                              ": PASS" if ok else ": FAIL")))
        if not judged:
            legend.append(("note", None, "", "not judged by the criteria"))
        # series
        keys = []
        for a, label in zip(analyses, labels):
            for j, b in enumerate(buckets):
                keys.append((a, label, j, b))
        for n, (a, label, j, b) in enumerate(keys):
            if multi:
                color = _COLORS[labels.index(label) % len(_COLORS)]
                dash = _DASHES[j % len(_DASHES)]
            else:
                color, dash = _COLORS[j % len(_COLORS)], ""
            series = a.values[i][j]
            pts = thin_points([(xpix(end), ypix(v), k) for k, (end, v)
                               in enumerate(zip(a.ends, series))])
            out.append('<polyline class="series"%s data-threshold="%d" '
                       'points="%s" fill="none" stroke="%s" '
                       'stroke-width="1.5"%s/>'
                       % (' data-log="%s"' % escape(label) if multi else "",
                          1 << b, " ".join("%.1f,%.1f" % (x, y)
                                           for x, y, _ in pts), color,
                          ' stroke-dasharray="%s"' % dash if dash else ""))
            if len(a.ends) <= 60:
                for end, v in zip(a.ends, series):
                    out.append('<circle cx="%.1f" cy="%.1f" r="2.5" '
                               'fill="%s"/>' % (xpix(end), ypix(v), color))
            if not multi:
                legend.insert(j, ("series", color, "", "&gt; %d %s (max "
                                  "%.2f%%)" % (1 << b, unit, max(series))))
        if multi:
            items = [("series", _COLORS[k % len(_COLORS)], "",
                      "%s (max %.2f%% &gt; %d %s)"
                      % (escape(label), max(a.values[i][0]), 1 << buckets[0],
                         unit))
                     for k, (a, label) in enumerate(zip(analyses, labels))]
            items += [("series", "#444", _DASHES[j % len(_DASHES)],
                       "&gt; %d %s" % (1 << b, unit))
                      for j, b in enumerate(buckets)]
            legend[:0] = items
        # legend
        lx, ly = L + pw + 16, T + 4
        for k, (kind, color, dash, text) in enumerate(legend):
            y = ly + 16 * k
            if kind == "note":
                out.append('<text x="%d" y="%d" fill="#666">%s</text>'
                           % (lx, y + 4, text))
                continue
            if kind != "series":
                dash = "7,4"
            dash = ' stroke-dasharray="%s"' % dash if dash else ""
            out.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" '
                       'stroke-width="2"%s/>' % (lx, y, lx + 24, y, color,
                                                  dash))
            style = (' class="fail" fill="#d62728" font-weight="bold"'
                     if kind == "fail" else "")
            out.append('<text x="%d" y="%d"%s>%s</text>'
                       % (lx + 30, y + 4, style, text))
        out.append("</g>")
    out.append("</svg>")
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------
# Main.

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
            names = set(header.names)
            unknown = [n for n in args.histograms if n not in names]
            if unknown:
                raise UsageError(
                    "histogram %s not in %s; its histograms are: %s"
                    % (", ".join(unknown), args.log,
                       ", ".join(header.names)))
            judged = judged_histograms(header)
            if (args.check and not args.stress and
                    not judged.intersection(args.histograms)):
                raise UsageError(
                    "--check has nothing to judge: the ACT criteria apply to "
                    "the transactions (reads, and writes with "
                    "commit-to-device), and -h names none of them%s"
                    % ("; use -h " + " -h ".join(sorted(judged))
                       if judged else " (this log has none)"))
            emit = emit_lines

            # Many short-lived tuples, no cycles: the collector only costs.
            gc_was_enabled = gc.isenabled()
            gc.disable()
            try:
                a = analyse(args, header, f, emit)
            finally:
                if gc_was_enabled:
                    gc.enable()
        except BrokenPipeError:
            raise
        except OSError as e:
            raise UsageError("cannot read the log %s: %s"
                             % (args.log, e.strerror or e)) from None
    for note in a.notes:
        print("%s: note: %s" % (PROG, note), file=sys.stderr)
    if args.check and not args.json:
        emit(check_lines(a.results, a.criteria, header.microsecond,
                         args.criteria != DEFAULT_CRITERIA, a.run,
                         args.stress, *judged_lists(a)))
    if args.json:
        # One line: json.dumps without indent uses the C encoder (fast on
        # 86400 slices); pipe it to python3 -m json.tool to read it.
        sys.stdout.write(json.dumps(json_document(a)) + "\n")
    if args.plot:
        try:
            with open(args.plot, "w", encoding="utf-8",
                      errors="replace") as out:
                out.write(svg_document(a))
        except OSError as e:
            raise UsageError("cannot write the plot %s: %s"
                             % (args.plot, e.strerror or e)) from None
    if args.check and verdict(a.results, a.run, args.stress) != "PASS":
        return 1
    return 0


def _drop_stdout():
    """Send what is left in stdout's buffer to /dev/null, so that the
    interpreter's last flush does not fail again."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


def main(argv=None):
    if argv is None:
        argv = sys.argv[1:]
    # Print a log's own bytes back as they were (device names that are not
    # UTF-8), never fail on them.
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors=ENC_ERRORS)
    try:
        try:
            status = run(argv)
        finally:
            sys.stdout.flush()
        return status
    except UsageError as e:
        print("%s: error: %s" % (PROG, e), file=sys.stderr)
        for note in e.notes:
            print("%s: note: %s" % (PROG, note), file=sys.stderr)
        return 2
    except BrokenPipeError:
        # The reader went away (e.g. | head): its choice, not a failure -
        # stop quietly, status 0.
        _drop_stdout()
        return 0
    except OSError as e:
        _drop_stdout()
        print("%s: error: cannot write the output: %s"
              % (PROG, e.strerror or e), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
