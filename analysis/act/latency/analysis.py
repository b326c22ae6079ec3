"""One log's analysis - act.latency's API: analyse_log(path, spec, sinks)
scans the log body (logfile.scanner), computes each slice's values
(judge), hands each batch of slices to the sinks as it is computed (the
text table, --json, --csv: they print), then tells how the run ended and,
with spec.check, judges the log (verdict): the Analysis holds it all."""

import gc
from itertools import chain, repeat
from operator import add, sub

from act.latency.judge import (CACHE_LIMIT, FuncCache, PercentCaches,
                               evaluate, plain_sum, slice_notes, slice_rate)
from act.latency.spec import Spec, round_up_slice
from act.latency.spool import Spool
from act.latency.verdict import judge, load_of
from act.logfile import ENC_ERRORS, LogError
from act.logfile.header import judged_histograms, open_log
from act.logfile.health import read_health
from act.logfile.reports import RunEnd
from act.logfile.scanner import CHUNK_SIZE, ReportScanner

__all__ = ["Analysis", "Spec", "analyse", "analyse_log", "round_up_slice"]


class Analysis:
    """What an analysis of one log found (analyse_log):

    log, header, spec   the log's path (as given), its LogHeader, the Spec
    slice_sec           the slice length, rounded to report-interval-sec
    histograms, buckets the spec's histograms and displayed buckets
    criteria            the Criterion objects judged (spec.check)
    evaluated           the buckets whose % over each slice has: the
                        displayed ones, the criteria's, the 1 ms bucket
    unit                "ms" or "us"
    count, ends         the complete slices: how many, their ends (sec)
    avg, max            per histogram: (values over evaluated, rate)
    results             per criterion and judged histogram: a dict
                        (judge.evaluate), with spec.check
    run                 how the run ended (logfile.reports.RunEnd: complete
                        or not, why, the kind of stop)
    load                the planned streams against their plan
                        (load.LoadCheck), with spec.check
    verdict             the Verdict (verdict.judge), with spec.check
    notes, warnings     about slices that do not fit the run; about a
                        damaged log
    health              the drives' health ({device: DriveHealth},
                        act.logfile.health: the identity block's lines
                        and the samples between the reports read)

    Streaming: the per-slice results are not kept in memory. The avg and
    max rows come from running sums and maxima; what needs the slices
    again afterwards reads them back from the spool (rows(), batches()),
    kept when analyse() was asked to (keep) or to judge.
    """

    def __init__(self, log, header, spec, slice_sec):
        self.log = log
        self.header = header
        self.spec = spec
        self.slice_sec = slice_sec
        self.histograms = list(spec.histograms)
        self.buckets = list(spec.buckets)       # displayed buckets
        self.criteria = spec.criteria_of(header.microsecond)
        self.evaluated = spec.evaluated(header.microsecond)
        self.unit = "us" if header.microsecond else "ms"
        n = len(self.histograms)
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
        self.load = None                        # load.LoadCheck
        self.verdict = None                     # verdict.Verdict
        self.notes = []                         # for stderr
        self.warnings = []                      # about the log
        self.health_lines = list(header.health_lines)
        self._health = None

    @property
    def health(self):
        """{device: DriveHealth} of the log's health lines (read once the
        body is scanned)."""
        if self._health is None:
            self._health = read_health(self.health_lines)
        return self._health

    @property
    def ends(self):
        """The slice ends, seconds after the start (k*T: the slices are
        consecutive from the first)."""
        t = self.slice_sec
        return range(t, t * (self.count + 1), t)

    def judged_indexes(self):
        """The indexes of the histograms the criteria judge (the first
        time each is given)."""
        hists = self.histograms
        return [i for i, name in enumerate(hists)
                if name in self.judged and name not in hists[:i]]

    def judged_lists(self):
        """(histograms given that the criteria do not judge, judged
        histograms of the log not given)."""
        hists = self.histograms
        not_judged = [n for i, n in enumerate(hists)
                      if n not in self.judged and n not in hists[:i]]
        not_analysed = [n for n in self.header.names
                        if n in self.judged and n not in hists]
        return not_judged, not_analysed

    def over_1ms_max(self, i):
        """Histogram i's max row value over 1 ms."""
        return self.max[i][0][len(self.evaluated) - 1]

    def no_slice_error(self):
        """The error of an analysis that found no complete slice."""
        return LogError("could not find %d seconds of data in %s"
                        % (self.slice_sec, self.log), self.notes)

    def add(self, batch, n):
        """Account a batch of n slices: per histogram (values per
        evaluated bucket, rates, ops), each a list over the slices."""
        for i, (values, rates, ops) in enumerate(batch):
            sums, maxes = self.sums[i], self.maxes[i]
            for j, v in enumerate(values):
                sums[j] = plain_sum(v, sums[j])
                m = max(v)
                if maxes[j] is None or m > maxes[j]:
                    maxes[j] = m
            self.rate_sums[i] = plain_sum(rates, self.rate_sums[i])
            m = max(rates)
            if self.rate_maxes[i] is None or m > self.rate_maxes[i]:
                self.rate_maxes[i] = m
        if self.spool is not None:
            self.spool.add(batch, n)
        self.count += n

    def close(self):
        """Drop the kept slices (the spool's temporary file): rows() and
        batches() then have none; the rest stays."""
        if self.spool is not None:
            self.spool.close()

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


def _scan(a, log, sinks, chunk_size):
    """Scan the log body: the slices' values, batch by batch, into a and
    the sinks."""
    h = a.header
    evaluated = a.evaluated
    top = max(evaluated)
    scanner = ReportScanner(log.file, h.rest, h.names, a.histograms,
                            h.interval, a.slice_sec, top, chunk_size,
                            h.duration)
    unique = [n.encode("utf-8", ENC_ERRORS) for n in a.histograms]
    position = [scanner.unique.index(n) for n in unique]
    prev = [[0] * (top + 2) for _ in scanner.unique]
    percents = PercentCaches()
    rates = FuncCache(lambda ops: slice_rate(ops, a.slice_sec))
    for ends, columns in scanner:
        n = len(ends)
        results = [batch_values(cols, p, n, top, evaluated, percents, rates)
                   for cols, p in zip(columns, prev)]
        batch = [results[u] for u in position]
        first = a.count + 1
        a.add(batch, n)
        for sink in sinks:
            sink.batch(a, first, n, batch)
        if len(percents) + percents.entries > CACHE_LIMIT:
            percents.clear()
        if len(rates) > CACHE_LIMIT:
            rates.clear()
    return scanner


def _end(a, scanner):
    """How the run ended, the notes, the avg and max rows, the criteria's
    results."""
    h = a.header
    a.health_lines += scanner.health_lines
    a._health = None
    analysed = a.ends[-1] if a.ends else 0
    if scanner.stopped:
        a.warnings.append("%s; the rest of the log is ignored"
                          % scanner.stopped)
        a.run = RunEnd("damaged", h.duration, analysed,
                       "damaged log: %s; the rest of the log is ignored"
                       % scanner.stopped)
    else:
        a.run = scanner.end or RunEnd("cut", h.duration, analysed,
                                      "log ends early")
    a.notes = slice_notes(a.run, a.slice_sec, a.ends, a.spec.hourly)
    done = a.count
    if not done:
        return
    n = len(a.histograms)
    a.avg = [([s / done for s in a.sums[i]], a.rate_sums[i] / done)
             for i in range(n)]
    a.max = [(list(a.maxes[i]), a.rate_maxes[i]) for i in range(n)]
    if a.spec.check:
        nb = len(a.buckets)
        judged = a.judged_indexes()
        a.results = evaluate(a.criteria, [a.histograms[i] for i in judged],
                             [a.max[i][0][nb:] for i in judged])


def analyse(log, spec, sinks=(), keep=False, chunk_size=CHUNK_SIZE):
    """Analyse an opened log (logfile.header.open_log: a LogFile, its
    header read) as spec asks; returns the Analysis.

    sinks: objects whose batch(a, first, n, batch) is called with each
    batch of n slices from slice number first (see Analysis.add()) as it
    is computed; after the log is read, their warning(a, text) (if they
    have one) with each warning about the log, then their finish(a) (if
    they have one) when the analysis has a complete slice. keep: the
    per-slice results are spooled for a.rows() (a temporary file; memory
    stays flat) - with spec.check they always are.

    A log with no complete slice is not an error here: a.count is 0 (and
    a.no_slice_error() the error of a tool that needs one). A LogError
    when the log cannot be read, or the spec cannot be analysed on it
    (Spec.problem; a criterion outside the log's buckets).
    """
    h = log.header
    problem = spec.problem(h, log.path)
    if problem is not None:
        raise problem
    a = Analysis(log.path, h, spec, round_up_slice(spec.slice_sec,
                                                   h.interval))
    if keep or spec.check:
        a.spool = Spool()
    # Many short-lived tuples, no cycles: the collector only costs.
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        scanner = _scan(a, log, sinks, chunk_size)
        _end(a, scanner)
        if spec.check:
            a.load = load_of(a, log)
            if not a.load.known and a.load.streams:
                a.notes.append("the load issued was not checked: the log "
                               "cannot be read a second time")
            a.verdict = judge(a)
    except OSError as e:
        if isinstance(e, BrokenPipeError):
            raise               # the output's, not the log's
        raise LogError("cannot read the log %s: %s"
                       % (log.path, e.strerror or e)) from None
    finally:
        if gc_was_enabled:
            gc.enable()
    for sink in sinks:
        for text in a.warnings:
            if hasattr(sink, "warning"):
                sink.warning(a, text)
    if a.count:
        for sink in sinks:
            if hasattr(sink, "finish"):
                sink.finish(a)
    return a


def analyse_log(path, spec=Spec(), sinks=(), keep=False, regular=False,
                max_bytes=None):
    """Analyse the ACT log at path as spec asks (analyse()): the
    Analysis, its verdict with spec.check. regular, max_bytes: only a
    regular file of at most max_bytes (logfile.header.open_log). A
    LogError when the log cannot be opened, read or analysed."""
    with open_log(path, regular, max_bytes) as log:
        return analyse(log, spec, sinks, keep)
