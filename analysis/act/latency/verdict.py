"""The verdict on a log (docs/act_latency.md, "Pass criteria", "The
load", "Completeness"): one rule, for act_latency.py --check and
act_certify's steps alike.

    PASS        the run completed, its load was issued, and every
                criterion is met on the max row (a stress test: the run
                completed and its load was issued)
    FAIL        a criterion is not met; or the drive could not take the
                load (a planned stream short of its plan while its threads
                waited on the drive); or the run was stopped on request
                (act_certify's fail fast) and a complete slice is over a
                limit
    INCOMPLETE  the run did not finish (stopped, cut short, still being
                written, damaged) - never a PASS
    NOT JUDGED  the host could not issue the load: act stopped because it
                could not do it (a host-limit stop), or a complete run had
                a slice where the host fell short and no other slice fails

judge(a) gives it from an Analysis whose slices were spooled, re-reading
the log for its planned streams (load.check_load)."""

from dataclasses import dataclass, replace

from act.latency.health import (health_problems, slice_health,
                                slice_throttle, summarize)
from act.latency.judge import fmt_num
from act.latency.load import (HOST_STOP_TEXT, check_load, not_issued_text,
                              not_taken_text, slice_namer)
from act.logfile.stops import request_reason

PASS, FAIL, INCOMPLETE, NOT_JUDGED = "PASS", "FAIL", "INCOMPLETE", \
    "NOT JUDGED"


@dataclass(frozen=True)
class Verdict:
    """result: PASS, FAIL, INCOMPLETE or NOT JUDGED; reasons: why not a
    PASS, phrases in order (message joins them); cause: what decided -
    "criteria" (PASS or FAIL on the criteria), "drive" (the drive could
    not take the load), "host" (the host could not issue it), "request"
    (stopped on request: FAIL when a complete slice bears it out, else
    INCOMPLETE), "run" (the run did not finish); failing: for
    a request stop the log bears out, the first slice over a limit:
    (its name, e.g. "hour 3", [(histogram, % over, threshold, limit)]);
    health: the drives' health problems (act.latency.health's, each
    prefixed by its device) - a PASS with any is a "PASS WITH DRIVE
    HEALTH WARNINGS"."""

    result: str
    reasons: tuple = ()
    cause: str = "criteria"
    failing: tuple = None
    health: tuple = ()

    @property
    def message(self):
        """The reasons as one line, or None for a PASS without any."""
        return "; ".join(self.reasons) or None

    @property
    def passed(self):
        return self.result == PASS


def over_text(over):
    """'reads 7.23% over 1 ms (must be under 5%)' for each criterion over
    - (histogram, % over, threshold, limit): a slice's
    (LoadCheck.first_failing) - joined with '; '."""
    return "; ".join("%s %.2f%% over %s (must be under %s%%)"
                     % (h, pct, thr, fmt_num(limit))
                     for h, pct, thr, limit in over)


def criterion_text(r):
    """'reads 6.50% over 1 ms (must be under 5%)' of a criterion's
    result (judge.evaluate)."""
    return over_text([(r.get("histogram"), r.get("max_pct") or 0.0,
                       r.get("threshold"), r.get("limit_pct") or 0)])


def slice_overs(a):
    """Per complete slice of an analysis (read back from its spool), the
    criteria it is over: [(histogram, % over, threshold, limit)] for each
    judged histogram, criterion by criterion."""
    nb = len(a.buckets)
    judged = a.judged_indexes()
    for row in a.rows():
        over = []
        for i in judged:
            values = row[i][0]
            for j, c in enumerate(a.criteria):
                if values[nb + j] >= c.limit:
                    over.append((a.histograms[i], values[nb + j], c.label,
                                 c.limit))
        yield over


def load_of(a, log):
    """The LoadCheck of an analysis with check (its slices spooled), the
    log's body read again from the LogFile log (None: not read again)."""
    f = log.body_again() if log is not None else None
    return check_load(a.header, a.slice_sec, f, a.count, slice_overs(a))


def judge(a):
    """The Verdict on an analysed log (an Analysis with check, its load
    checked: a.load), with the drives' health problems (Verdict.health)."""
    return replace(_judge(a), health=health_problems(summarize(a.health)))


def _worst_slices(a, failed):
    """The slice (from 1) where each failed criterion's value is the
    max, in the order of failed."""
    nb = len(a.buckets)
    labels = [c.label for c in a.criteria]
    at = [(a.histograms.index(r["histogram"]), nb +
           labels.index(r["threshold"]), r["max_pct"]) for r in failed]
    worst = [None] * len(at)
    for k, row in enumerate(a.rows(), 1):
        for n, (i, j, top) in enumerate(at):
            if worst[n] is None and row[i][0][j] >= top:
                worst[n] = k
    return worst


def _throttled_criteria(a, failed):
    """The failed criteria's phrases, each naming the drives' throttling
    in its worst slice when they throttled there ("... in hour 14, while
    /dev/nvme0n1 throttled 410 s at 78 C")."""
    texts = [criterion_text(r) for r in failed]
    if not any(d.readable for d in a.health.values()):
        return texts
    per_slice = slice_health(a.health, a.slice_sec, a.count)
    out = []
    for text, k in zip(texts, _worst_slices(a, failed)):
        note = slice_throttle(per_slice, k) if k else ""
        out.append("%s in %s%s" % (text, slice_namer(a.slice_sec)(k), note)
                   if note else text)
    return out


def _judge(a):
    run = a.run
    stress = a.spec.stress
    load = a.load
    drive = not_taken_text(load)
    failed = [r for r in a.results or () if not r["pass"]]
    if run.stop == "request" and not stress and a.count:
        found = load.first_failing if load else None
        if found is not None:
            k, over = found
            name = slice_namer(a.slice_sec)(k + 1)
            why = request_reason([run.reason]) or run.reason
            throttled = slice_throttle(slice_health(
                a.health, a.slice_sec, k + 1), k + 1)
            return Verdict(FAIL, tuple(
                ["stopped on request: %s" % why,
                 "%s in %s%s" % (over_text(over), name, throttled)] +
                ([drive] if drive else [])), "request", (name, over))
        return Verdict(INCOMPLETE, (
            "did not complete: %s" % run.reason,
            "no complete slice is over a limit"), "request")
    if run.stop == "host-limit":
        return Verdict(NOT_JUDGED, (HOST_STOP_TEXT,), "host")
    if not run.complete:
        return Verdict(INCOMPLETE, ("did not complete: %s" % (
            run.reason or "ran %s of %s sec" % (run.ran, run.planned)),),
            "run")
    if not a.count:
        return Verdict(INCOMPLETE, ("no complete slice of %d sec"
                                    % a.slice_sec,), "run")
    if load is not None and (stress or load.first_failing is None):
        if drive:
            return Verdict(FAIL, (drive,), "drive")
        host = not_issued_text(load)
        if host:
            return Verdict(NOT_JUDGED, (host,), "host")
    if stress or not failed:
        return Verdict(PASS)
    return Verdict(FAIL, tuple(
        _throttled_criteria(a, failed) + ([drive] if drive else [])))
