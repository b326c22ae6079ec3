"""Judging latencies: % over a threshold per slice, the value caches, the
ACT pass criteria (Criterion, evaluate) and the notes about slices that
do not fit the run. The verdict that combines them with how the run
ended and the load it issued is verdict.py's."""

import sys
from functools import reduce
from operator import add

from act.logfile import MAX_BUCKET, LogError, ms_bucket

DEFAULT_CRITERIA = ((1.0, 5.0), (8.0, 1.0), (64.0, 0.1))   # (ms, percent)
HOUR = 3600                       # the ACT criteria are per one-hour slice
CACHE_LIMIT = 40000               # entries kept in each value cache: a few
                                  # MB, whatever the log's length


def percent_over(over, total):
    """% of total above a threshold, rounded like the reference."""
    return round(100.0 * over / total, 2) if total else 0.0


def slice_rate(total, slice_sec):
    """Operations per second over a slice, rounded like the reference."""
    return round(total / slice_sec, 1)


class _PercentCache(dict):
    """percent_over() for one slice total, by operations at or below."""

    def __init__(self, total, owner):
        super().__init__()
        self.total = total
        self.owner = owner

    def __missing__(self, below):
        v = self[below] = percent_over(self.total - below, self.total)
        self.owner.entries += 1
        return v


class PercentCaches(dict):
    """A _PercentCache per slice total: caches[total][below] is
    percent_over(total - below, total). entries counts the values in all
    of them (to bound their memory: clear() them all now and then)."""

    entries = 0

    def __missing__(self, total):
        c = self[total] = _PercentCache(total, self)
        return c

    def clear(self):
        super().clear()
        self.entries = 0


class FuncCache(dict):
    """func(key), remembered."""

    def __init__(self, func):
        super().__init__()
        self.func = func

    def __missing__(self, key):
        v = self[key] = self.func(key)
        return v


if sys.version_info < (3, 12):
    plain_sum = sum                 # a left-to-right sum of doubles
else:                               # sum() compensates rounding since 3.12
    def plain_sum(values, start):
        """sum() as Python < 3.12 computes it: left to right, each
        addition rounded (the reference's avg row)."""
        return reduce(add, values, start)


def mean(values):
    """Plain mean: the left-to-right float sum over the count, as the
    reference computes it (this decides ties such as 0.015 -> 0.01)."""
    return plain_sum(values, 0.0) / len(values) if values else 0.0


class Criterion:
    """A pass criterion: fewer than `limit` % of operations over `ms` (a
    power of two). A threshold outside the log's buckets is a LogError
    (the criterion cannot be judged on this log)."""

    def __init__(self, ms, limit, microsecond):
        self.ms = ms
        self.limit = limit
        self.bucket = ms_bucket(ms, microsecond)
        if microsecond:
            self.label = "%d us" % (1 << self.bucket) if self.bucket >= 0 \
                else None
        else:
            self.label = fmt_num(ms) + " ms"
        if not 0 <= self.bucket <= MAX_BUCKET:
            raise LogError(
                "criterion %s:%s: threshold outside the histogram's range%s"
                % (fmt_num(ms), fmt_num(limit),
                   "" if microsecond else " (a millisecond log starts at "
                                          "1 ms)"))


def fmt_num(x):
    """A number as the reports write it: 5.0 -> '5', 0.1 -> '0.1'."""
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


def long_slice_text(slice_sec):
    """Why a verdict on the ACT criteria is not a certification when its
    slices are longer than the criteria's hour - a longer slice dilutes
    the worst hour (docs/act_latency.md, "Pass criteria") - or None. The
    one rule: act_latency.py --check's result line says it, act_certify
    judges such a step INVALID and refuses a report-interval-sec that
    would give them (hourly_interval)."""
    if slice_sec and slice_sec > HOUR:
        return "not a certification: slices of %d s, the criteria are " \
            "per hour" % slice_sec
    return None


def hourly_interval(interval):
    """Whether a report-interval-sec gives one-hour slices: -t 3600 is
    rounded up to a multiple of the interval (analysis.round_up_slice),
    so the interval must divide 3600."""
    return interval >= 1 and HOUR % interval == 0


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
