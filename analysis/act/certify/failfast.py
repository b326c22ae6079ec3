"""Fail fast (docs/certify.md, "Fail fast"): the criteria are judged on
the max row of the step's slices, so once one complete slice of a
criteria step is over a limit the step has failed, whatever comes later.
While such a step runs, FailFast judges each new complete slice of its
log - act.latency's own analysis of the log so far, in-process, the
values act_latency.py --check takes its max row from - and says when to
stop the program; judge_slices then judges the stopped (partial) log
FAIL.

A slice where the host fell short of the load (hostload) never fails
fast: the host is judged first. A slice short of the load because the
drive kept the threads waiting is judged as any other."""

from act.certify.fmt import fmt_duration, fmt_num
from act.certify.hostload import short_set
from act.certify.model import FailFastStop


def slice_view(a):
    """The per-slice facts of an act.latency Analysis that the step's
    judging needs, as plain data (kept with the analysis): slice_sec,
    ends, criteria [{threshold, limit_pct}], histograms [{name, ops per
    slice, over_pct [criterion][slice]}] (the judged histograms: reads,
    and writes with commit-to-device), and the planned streams and the
    pools of threads that issue them (hostload.load_view)."""
    from act.certify.hostload import load_view
    nb = len(a.buckets)
    names = a.args.histograms
    judged = [i for i, n in enumerate(names)
              if n in a.judged and n not in names[:i]]
    # the per-slice values, read back from the analysis's spool (act.latency
    # keeps no slice in memory): ops, and % over each criterion's bucket
    ops = {i: [] for i in judged}
    over = {i: [[] for _ in a.criteria] for i in judged}
    if a.spool is not None:
        for batch in a.batches():
            for i in judged:
                values, _rates, n_ops = batch[i]
                ops[i].extend(n_ops)
                for j in range(len(a.criteria)):
                    over[i][j].extend(values[nb + j])
    streams, pools = load_view(a.args.log, a.header, a.slice_sec, a.count)
    return {
        "slice_sec": a.slice_sec, "ends": list(a.ends),
        "criteria": [{"threshold": c.label, "limit_pct": c.limit}
                     for c in a.criteria],
        "histograms": [{"name": names[i], "ops": ops[i],
                        "over_pct": over[i]} for i in judged],
        "streams": streams, "pools": pools}


def slice_namer(slice_sec):
    """'hour 3' for one-hour slices, else 'slice 3'."""
    unit = "hour" if slice_sec == 3600 else "slice"
    return lambda k: "%s %d" % (unit, k)


def over_limits(view, k):
    """The criteria slice k (from 0) does not meet: [(histogram, % over,
    threshold, limit)]."""
    out = []
    for h in view["histograms"]:
        for c, values in zip(view["criteria"], h["over_pct"]):
            if values[k] >= c["limit_pct"]:
                out.append((h["name"], values[k], c["threshold"],
                            c["limit_pct"]))
    return out


def first_failing(view, start=0):
    """The first complete slice from index start on that is over a limit
    while the host issued its load (a slice the drive held back is
    judged): (index from 0, over_limits) or None."""
    short = short_set(view)
    for k in range(start, len(view["ends"])):
        if k in short:
            continue
        over = over_limits(view, k)
        if over:
            return k, over
    return None


def stop_record(view, k, over, duration):
    """What state.json keeps of a step fail fast stopped
    (step.stopped_early)."""
    t = view["slice_sec"]
    return FailFastStop(slice=k + 1, slices=duration // t if t else 0,
                        slice_sec=t, end_sec=view["ends"][k],
                        planned_sec=duration,
                        over=[list(x) for x in over])


def stop_message(rec):
    """'stopped after hour 3 of 24: reads 7.23% over 1 ms (must be under
    5%) in hour 3 - the verdict could not change'."""
    t = rec.slice_sec
    name = slice_namer(t)
    of = "%s of %d" % (name(rec.slice), rec.slices)
    if t != 3600:
        of += " (%d s)" % t
    return "stopped after %s: %s in %s - the verdict could not change" % (
        of, over_text(rec), name(rec.slice))


def over_text(rec):
    """'reads 7.23% over 1 ms (must be under 5%)': each criterion the
    stopped slice was over, '; '-separated."""
    return "; ".join("%s %.2f%% over %s (must be under %s%%)"
                     % (h, pct, thr, fmt_num(limit))
                     for h, pct, thr, limit in rec.over)


def request_reason(rec):
    """The reason act_certify gives the program it stops, which its log's
    last line then says (docs/log-format.md, "End of run": "stopped on
    request: REASON after S sec"): 'fail fast: reads 7.23% over 1 ms
    (must be under 5%) in hour 3'."""
    return "fail fast: %s in %s" % (over_text(rec),
                                    slice_namer(rec.slice_sec)(
                                        rec.slice))


def saved_text(rec):
    """'fail fast: stopped after 3 h of 24 h, 21 h saved'."""
    return "fail fast: stopped after %s of %s, %s saved" % (
        fmt_duration(rec.end_sec), fmt_duration(rec.planned_sec),
        fmt_duration(rec.saved_sec))


def judge_slices(step, view):
    """The result of a step fail fast stopped, from the analysis of its
    partial log: (FAIL, message) when the log shows a failing slice (the
    host not short) at or before the one it stopped on, else None (the
    step is judged as any other: its log does not show why it stopped)."""
    rec = step.stopped_early
    if not rec or not view or step.judge != "criteria":
        return None
    found = first_failing(view)
    if found is None or found[0] + 1 > rec.slice:
        return None
    k, over = found
    return "FAIL", stop_message(stop_record(view, k, over,
                                            step.duration_sec))


class FailFast:
    """Follows a running criteria step: check(last) judges the slices
    completed since the last call (last: the seconds of the log's last
    whole report, LogFollower.last) and returns the stopped_early record
    when one is over a limit and the run has more to go, else None.

    analyse(log, slice_sec) gives the slice view of the log so far
    (analyse.slices_so_far), or None."""

    def __init__(self, step, log, analyse):
        self.step = step
        self.log = log
        self.analyse = analyse
        self.judged = 0             # complete slices judged so far
        self.slice_sec = step.slice_sec

    def check(self, last):
        if last is None or last < (self.judged + 1) * self.slice_sec:
            return None
        view = self.analyse(self.log, self.step.slice_sec)
        if not view or len(view["ends"]) <= self.judged:
            return None
        self.slice_sec = view["slice_sec"]  # rounded to the interval
        found = first_failing(view, self.judged)
        self.judged = len(view["ends"])
        if found is None:
            return None
        k, over = found
        if view["ends"][k] >= self.step.duration_sec:
            return None             # the last slice: the run ends anyway
        return stop_record(view, k, over, self.step.duration_sec)
