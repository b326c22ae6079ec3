"""Fail fast (docs/certify.md, "Fail fast"): the criteria are judged on
the max row of the step's slices, so once one complete slice of a
criteria step is over a limit the step has failed, whatever comes later.
While such a step runs, FailFast judges each new complete slice of its
log - act.latency's own analysis and verdict of the log so far,
in-process: its first slice over a limit (LoadCheck.first_failing) - and
says when to stop the program, and why (request_reason: the reason the
program's last line gives); the stopped log is then FAIL by act.latency's
verdict itself, and judge_slices judges FAIL the log of a step stopped
before the programs wrote that line (state.json's record).

A slice where the host fell short of the load (act.latency.load) never
fails fast: the host is judged first. A slice short of the load because
the drive kept the threads waiting is judged as any other."""

from act.certify.fmt import fmt_duration
from act.certify.model import FailFastStop
from act.latency.load import slice_namer
from act.latency.verdict import over_text


def stop_record(a, k, over, duration):
    """What state.json keeps of a step fail fast stopped
    (step.stopped_early): slice k (from 0) of the analysis a, over the
    criteria over."""
    t = a.slice_sec
    return FailFastStop(slice=k + 1, slices=duration // t if t else 0,
                        slice_sec=t, end_sec=(k + 1) * t,
                        planned_sec=duration,
                        over=[list(x) for x in over])


def request_reason(rec):
    """The reason act_certify gives the program it stops, which its log's
    last line then says (docs/log-format.md, "End of run": "stopped on
    request: REASON after S sec"), and act.latency's verdict on that log
    FAIL with: 'fail fast: reads 7.23% over 1 ms (must be under 5%) in
    hour 3'."""
    return "fail fast: %s in %s" % (over_text(rec.over),
                                    slice_namer(rec.slice_sec)(
                                        rec.slice))


def stop_message(rec):
    """'stopped after hour 3 of 24: reads 7.23% over 1 ms (must be under
    5%) in hour 3 - the verdict could not change'."""
    t = rec.slice_sec
    name = slice_namer(t)
    of = "%s of %d" % (name(rec.slice), rec.slices)
    if t != 3600:
        of += " (%d s)" % t
    return "stopped after %s: %s in %s - the verdict could not change" % (
        of, over_text(rec.over), name(rec.slice))


def saved_text(rec):
    """'fail fast: stopped after 3 h of 24 h, 21 h saved'."""
    return "fail fast: stopped after %s of %s, %s saved" % (
        fmt_duration(rec.end_sec), fmt_duration(rec.planned_sec),
        fmt_duration(rec.saved_sec))


def judge_slices(step, a):
    """The result of a step fail fast stopped (state.json's record), from
    the analysis a of its partial log: (FAIL, message) when the log shows
    a failing slice (the host not short) at or before the one it stopped
    on, else None (the step is judged as any other: its log does not
    show why it stopped)."""
    rec = step.stopped_early
    if not rec or a is None or a.load is None or \
            step.judge != "criteria":
        return None
    found = a.load.first_failing
    if found is None or found[0] + 1 > rec.slice:
        return None
    k, over = found
    return "FAIL", stop_message(stop_record(a, k, over,
                                            step.duration_sec))


class FailFast:
    """Follows a running criteria step: check(last) judges the slices
    completed since the last call (last: the seconds of the log's last
    whole report, LogFollower.last) and returns the stopped_early record
    when one is over a limit and the run has more to go, else None.

    analyse(log, slice_sec) gives the judged analysis of the log so far
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
        a = self.analyse(self.log, self.step.slice_sec)
        if not a or a.count <= self.judged:
            return None
        self.slice_sec = a.slice_sec        # rounded to the interval
        judged, self.judged = self.judged, a.count
        found = a.load.first_failing
        if found is None or found[0] < judged:
            return None             # none, or one already seen
        k, over = found
        if (k + 1) * a.slice_sec >= self.step.duration_sec:
            return None             # the last slice: the run ends anyway
        return stop_record(a, k, over, self.step.duration_sec)
