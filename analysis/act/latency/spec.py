"""What an analysis of a log is asked for (Spec): the slice length, the
histograms, the displayed buckets, and whether and how the log is judged
(docs/act_latency.md: "Options", "Pass criteria")."""

import math
from dataclasses import dataclass

from act.latency.judge import DEFAULT_CRITERIA, Criterion
from act.logfile import LogError, over_1ms_bucket
from act.logfile.header import judged_histograms


def displayed_buckets(start, num, every):
    """The buckets shown in the table: start, start+every, ... (num)."""
    return list(range(start, start + num * every, every))


def round_up_slice(seconds, interval):
    """A slice length rounded up to a multiple of report-interval-sec."""
    return -(-seconds // interval) * interval


def parse_criteria(text):
    """Parse "1:5,8:1,64:0.1" into ((1.0, 5.0), (8.0, 1.0), (64.0, 0.1)):
    Spec.criteria.

    Thresholds are in milliseconds and must be powers of two (2^k, k may be
    negative for microsecond logs); percentages are in 0..100. A
    ValueError's args are the bad item and why.
    """
    result = []
    for item in text.split(","):
        item = item.strip()
        parts = item.split(":")
        if len(parts) != 2:
            raise ValueError(item, "expected MS:PERCENT, e.g. "
                             "1:5,8:1,64:0.1")
        try:
            ms = float(parts[0])
            pct = float(parts[1])
        except ValueError:
            raise ValueError(item, "not a number") from None
        if not (ms > 0 and math.isfinite(ms)) or \
                math.frexp(ms)[0] != 0.5:
            raise ValueError(item, "the threshold must be a power of two "
                             "in ms (1, 2, 4, 8, ...)")
        if not 0.0 <= pct <= 100.0:
            raise ValueError(item, "the percentage must be within 0..100")
        result.append((ms, pct))
    return tuple(result)


@dataclass(frozen=True)
class Spec:
    """An analysis of one log (act.latency.analyse_log):

    slice_sec    the slice length asked for, in seconds; the analysis
                 rounds it up to a multiple of the log's
                 report-interval-sec (round_up_slice)
    histograms   the histograms analysed, in order (names of the log's
                 HISTOGRAM NAMES; a name may repeat)
    buckets      the buckets displayed: their % over each threshold is
                 what the table, --json, --csv and the plot show
    check        judge the log: the criteria on the max row of the
                 transaction histograms among `histograms`, how the run
                 ended, and whether the load was issued (the Verdict)
    criteria     the pass criteria, (threshold ms, limit %) pairs
    stress       a stress test: passes when the run completed (the
                 criteria only for information)
    health       the drives' health is shown (--health: the "health"
                 member of --json)
    """

    slice_sec: int = 3600
    histograms: tuple = ("reads",)
    buckets: tuple = tuple(displayed_buckets(0, 7, 1))
    check: bool = False
    criteria: tuple = DEFAULT_CRITERIA
    stress: bool = False
    health: bool = False

    @property
    def custom(self):
        """Criteria other than the standard ACT ones."""
        return tuple(self.criteria) != DEFAULT_CRITERIA

    @property
    def hourly(self):
        """The standard ACT criteria are judged (they are per hour)."""
        return self.check and not self.stress and not self.custom

    def criteria_of(self, microsecond):
        """The criteria for a log of this scale (Criterion: a LogError when
        a threshold is outside its buckets); [] when not judging."""
        if not self.check:
            return []
        return [Criterion(ms, pct, microsecond) for ms, pct in self.criteria]

    def evaluated(self, microsecond):
        """The buckets whose % over is computed for each slice: the
        displayed ones, the criteria's, and the 1 ms bucket last (the
        outlier line of several logs)."""
        return (list(self.buckets) +
                [c.bucket for c in self.criteria_of(microsecond)] +
                [over_1ms_bucket(microsecond)])

    def unknown(self, header, log):
        """A LogError naming the histograms the log (path log, this
        header) does not have, or None."""
        unknown = [n for n in self.histograms if n not in header.names]
        if not unknown:
            return None
        return LogError("histogram %s not in %s; its histograms are: %s"
                        % (", ".join(unknown), log, ", ".join(header.names)))

    def nothing_to_judge(self, header, log, among=False):
        """A LogError when a check (not a stress test) has none of the
        log's judged histograms to judge, or None (among: the log is one
        of several, named in the message)."""
        judged = judged_histograms(header)
        if not self.check or self.stress or \
                judged.intersection(self.histograms):
            return None
        return LogError(
            "--check has nothing to judge%s: the ACT criteria apply to the "
            "transactions (reads, and writes with commit-to-device), and -h "
            "names none of them%s"
            % (" in %s" % log if among else "",
               "; use -h " + " -h ".join(sorted(judged))
               if judged else " (this log has none)"))

    def problem(self, header, log):
        """The first reason this spec cannot be analysed on the log (path
        log, this header) - unknown(), nothing_to_judge() - or None."""
        return self.unknown(header, log) or \
            self.nothing_to_judge(header, log)
