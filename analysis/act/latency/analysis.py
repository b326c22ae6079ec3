"""One log's analysis: scan the body (logfile.scanner), compute each
slice's values (judge), emit the table rows as slices complete (text);
the Analysis holds what the table, --json and --plot show."""

import sys
from itertools import chain, repeat
from operator import add, sub

from act.cli import UsageError
from act.latency import GAP, PROG
from act.latency.judge import (DEFAULT_CRITERIA, Criterion, _FuncCache,
                               _PercentCaches, _plain_sum, evaluate,
                               slice_notes, slice_rate)
from act.latency.spool import Spool
from act.latency.text import (format_row, group_width, header_lines, pads,
                              row_format, table_header)
from act.logfile import ENC_ERRORS
from act.logfile.header import judged_histograms
from act.logfile.reports import RunEnd
from act.logfile.scanner import CHUNK_SIZE, ReportScanner

CACHE_LIMIT = 40000               # entries kept in each value cache: a few
                                  # MB, whatever the log's length


def displayed_buckets(start, num, every):
    """The buckets shown in the table: start, start+every, ... (num)."""
    return list(range(start, start + num * every, every))


def round_up_slice(seconds, interval):
    """A slice length rounded up to a multiple of report-interval-sec."""
    return -(-seconds // interval) * interval


class Analysis:
    """Results of one analysis: what the table, --json and --plot show.

    Streaming: the per-slice results are not kept in memory.  The avg and
    max rows come from running sums and maxima; what needs the slices
    again afterwards reads them back from the spool (rows(), batches()),
    kept only when analyse() was asked to (keep).
    """

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
        self.count = 0              # complete slices
        # running sums (left to right, as mean() adds) and maxima:
        # [i][j] histogram i, evaluated bucket j; rate_*[i]
        self.sums = [[0.0] * len(self.evaluated) for _ in range(n)]
        self.maxes = [[None] * len(self.evaluated) for _ in range(n)]
        self.rate_sums = [0.0] * n
        self.rate_maxes = [None] * n
        self.spool = None                       # Spool, if kept
        self.avg = self.max = None              # [i] = (values, rate)
        self.results = None                     # check results
        self.judged = judged_histograms(header)
        self.run = None                         # RunEnd
        self.notes = []                         # for stderr
        self.warnings = []                      # printed unless quiet

    @property
    def ends(self):
        """The slice ends, seconds after the start (k*T: the slices are
        consecutive from the first)."""
        t = self.slice_sec
        return range(t, t * (self.count + 1), t)

    def add(self, batch, n):
        """Account a batch of n slices: per histogram (values per
        evaluated bucket, rates, ops), each a list over the slices."""
        for i, (values, rates, ops) in enumerate(batch):
            sums, maxes = self.sums[i], self.maxes[i]
            for j, v in enumerate(values):
                sums[j] = _plain_sum(v, sums[j])
                m = max(v)
                if maxes[j] is None or m > maxes[j]:
                    maxes[j] = m
            self.rate_sums[i] = _plain_sum(rates, self.rate_sums[i])
            m = max(rates)
            if self.rate_maxes[i] is None or m > self.rate_maxes[i]:
                self.rate_maxes[i] = m
        if self.spool is not None:
            self.spool.add(batch, n)
        self.count += n

    def batches(self):
        """The kept batches (see add()), in order."""
        return self.spool.batches()

    def rows(self):
        """Per slice, per histogram: (values tuple over the evaluated
        buckets, rate, ops), read back from the spool."""
        return self.spool.rows()


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


def no_slice_error(a):
    """The user error of an analysis that found no complete slice."""
    return UsageError("could not find %d seconds of data in %s"
                      % (a.slice_sec, a.args.log), a.notes)


def analyse(args, header, f, emit, chunk_size=CHUNK_SIZE, table=None,
            who="", extra_buckets=(), preamble=True, quiet=False,
            empty_ok=False, keep=True, sinks=(), flush=None):
    """Scan the log body, emitting the table through emit(lines) as slices
    complete (if table; by default unless --json); returns the Analysis.

    who prefixes the warning about a damaged log (the log's label when
    several are analysed); extra_buckets are evaluated too, after the
    displayed buckets and the criteria's (not displayed).  preamble: the
    table starts with the command line and the config echo.  quiet: the
    warnings are kept in a.warnings only, not printed.  empty_ok: an
    analysis with no complete slice (a.ends empty; no avg, max nor check)
    is returned instead of raising no_slice_error().  keep: the per-slice
    results are spooled for a.rows() (a temporary file; memory stays
    flat).  sinks: objects whose batch(a, first, n, batch) is called with
    each batch of n slices from slice number first (see Analysis.add())
    as it is computed.  flush() is called after each batch.
    """
    requested = args.slice
    slice_sec = round_up_slice(requested, header.interval)
    buckets = displayed_buckets(args.start_bucket, args.num_buckets,
                                args.every_nth)
    criteria = [Criterion(ms, pct, header.microsecond)
                for ms, pct in (args.criteria or ())]
    hists = args.histograms
    a = Analysis(args, header, slice_sec, buckets, criteria, extra_buckets)
    if keep:
        a.spool = Spool()
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
            emit((header_lines(args.argv, args.log, header, slice_sec,
                               slice_sec != requested) if preamble else []) +
                 table_header(hists, buckets, a.unit, extra))
        results = [batch_values(cols, p, n, top, evaluated, percents, rates)
                   for cols, p in zip(columns, prev)]
        batch = [results[u] for u in position]
        a.add(batch, n)
        for sink in sinks:
            sink.batch(a, done + 1, n, batch)
        parts = [map("%5d".__mod__, range(done + 1, done + n + 1))]
        texts = {}                  # value list id -> its strings
        for i, (values, slice_rates, ops) in enumerate(batch):
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
        done += n
        if table:
            emit(map("".join, zip(*parts)))
        if flush is not None:
            flush()
        if len(percents) + percents.entries > CACHE_LIMIT:
            percents.clear()
        if len(rates) > CACHE_LIMIT:
            rates.clear()
            rate_strings.clear()
    analysed = a.ends[-1] if a.ends else 0
    if scanner.stopped:
        a.warnings.append("%s%s; the rest of the log is ignored"
                          % (who, scanner.stopped))
        if not quiet:
            print("%s: warning: %s" % (PROG, a.warnings[-1]),
                  file=sys.stderr)
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
        if empty_ok:
            return a
        raise no_slice_error(a)
    a.avg = [([s / done for s in a.sums[i]], a.rate_sums[i] / done)
             for i in range(len(hists))]
    a.max = [(list(a.maxes[i]), a.rate_maxes[i])
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
