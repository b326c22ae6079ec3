"""Judging steps and the campaign, from the state and the analyses: a
step's result (PASS, FAIL, INCOMPLETE, NOT JUDGED: act.latency's verdict
on its log; INVALID: the log is not the step's plan), why a step is
skipped, the campaign's verdict and ceiling, steps the host limited, and
judging the finished steps again for a report."""

from act.certify.analyse import StepAnalysis, step_analysis
from act.certify.failfast import judge_slices
from act.certify.fmt import fmt_load
from act.certify.plan import HOUR, devices_text
from act import PROGRAM_STATUS
from act.latency.judge import long_slice_text
from act.latency.load import HOST_STOP_TEXT, not_taken_text
from act.latency.verdict import FAIL, INCOMPLETE, NOT_JUDGED, PASS
from act.certify import (
    EXIT_CERTIFIED, EXIT_HEALTH, EXIT_IO_ERRORS, EXIT_NOT_CERTIFIED)


RESULT_PASS, RESULT_FAIL, RESULT_INCOMPLETE = PASS, FAIL, INCOMPLETE
RESULT_INVALID = "INVALID"      # the log's config is not the step's plan,
                                # or its slices are longer than an hour
RESULT_NOT_JUDGED = NOT_JUDGED  # the host did not issue the load


def judge_step(step, analysis):
    """(result, reason) of a step that ran: act.latency's verdict on its
    log (PASS, FAIL, INCOMPLETE, NOT JUDGED), or INVALID when its log's
    configuration is not the step's plan, or the log can only be judged
    on slices longer than the criteria's hour (whatever the run did);
    with the campaign's own knowledge: fail fast's record of a step it
    stopped (judge_slices), the program's exit status."""
    rc = step.exit_status
    if step.kind == "prep":
        return (RESULT_PASS, None) if rc == 0 else \
            (RESULT_FAIL, "act_prep exit status %s" % rc)
    analysis = analysis or StepAnalysis()
    if analysis.echo_difference:
        return RESULT_INVALID, analysis.echo_difference
    a = analysis.analysis
    long_slice = long_slice_text(a.slice_sec) if a else None
    if long_slice and step.judge == "criteria":
        # report-interval-sec over an hour (refused in a new campaign's
        # base config): the analysis rounded the hour up to it
        return RESULT_INVALID, "%s (report-interval-sec %s)" % (
            long_slice, a.header.interval)
    early = judge_slices(step, a)
    if early is not None:
        return early[0], with_drive(early[1], a)
    v = a.verdict if a else None
    if v is None:
        if analysis.stop == "host-limit":
            return RESULT_NOT_JUDGED, HOST_STOP_TEXT
        errors = [e[len("ERROR: "):] if e.startswith("ERROR: ") else e
                  for e in analysis.log_errors]
        why = errors[-1] if errors else analysis.error or \
            "the log could not be analysed"
        if rc not in (None, 0):
            why = "exit status %s (%s): %s" % (
                rc, PROGRAM_STATUS.get(rc, "stopped"), why)
        return RESULT_INCOMPLETE, why
    if v.cause == "criteria" and rc not in (None, 0):
        return RESULT_INCOMPLETE, "exit status %s (%s)" % (
            rc, PROGRAM_STATUS.get(rc, "stopped"))
    return v.result, v.message


def with_drive(message, a):
    """A FAIL's message, and after it the streams the drive did not let
    the threads issue in full (load.not_taken_text), if any."""
    why = not_taken_text(a.load) if a else None
    return "%s; %s" % (message, why) if why else message


def step_short(step):
    if step.kind == "prep":
        return "act_prep"
    what = "test %d" % step.test if step.test else "ceiling rung"
    return "%s (%s on %s)" % (what, fmt_load(step.load),
                              devices_text(step.devices))


def skip_reason(steps, step):
    """Why a step is not needed, given the steps before it (or None)."""
    for s in steps:
        if s is step:
            break
        if s.kind != "ceiling" and s.status == "done" and \
                s.result != RESULT_PASS:
            return "not run: %s did not pass" % step_short(s)
        if s.kind == "ceiling" and step.kind == "ceiling" and \
                s.status == "done" and s.result != RESULT_PASS:
            return "not run: the ladder stopped at %s" % fmt_load(s.load)
    return None


PENDING_TEXT = {"planned": "has not run yet", "running": "is running",
                "ended": "ended, not judged yet",
                "interrupted": "was interrupted",
                "error": "stopped with an error"}


def campaign_verdict(state):
    """The campaign's verdict from its steps: dict with status
    (certified, not certified, unfinished), certified, ceiling, text,
    reasons, exit_status."""
    c = state.campaign
    steps = state.steps
    target = fmt_load(c.load)
    cert = [s for s in steps if s.kind in ("target", "stress")]
    v = {"load": c.load, "certified": None, "ceiling": None,
         "ceiling_exceeds_ladder": False, "reasons": [],
         "trial": c.duration_sec < 24 * HOUR}
    failed = [s for s in steps if s.kind != "ceiling" and
              s.status == "done" and s.result != RESULT_PASS]
    if failed:
        s = failed[0]
        v.update(status="not certified", certified=False,
                 exit_status=EXIT_NOT_CERTIFIED)
        v["text"] = "not certified at %s: %s %s" % (
            target, step_short(s), "failed" if s.result == RESULT_FAIL
            else "is INVALID (%s)" % (
                "judged on slices longer than an hour"
                if (s.message or "").startswith("not a certification")
                else "its log's config is not its plan")
            if s.result == RESULT_INVALID else
            "was NOT JUDGED (the host could not issue the load)"
            if s.result == RESULT_NOT_JUDGED else "did not complete")
        v["reasons"].append("%s: %s" % (step_short(s), s.message or
                                        s.result))
        if s.kind != "prep" and s.test in (3, 4) and all(
                x.result == RESULT_PASS for x in cert if x.test in
                (1, 2)):
            named = named_drives(s)
            v["reasons"].append(
                "the first device alone passed tests 1 and 2: %s" % (
                    "%s, tested only with the others, failed on %s own" % (
                        ", ".join(named), "its" if len(named) == 1
                        else "their") if named else
                    "the devices together did not hold the same load per "
                    "device"))
        if io_error_steps(steps):
            v["reasons"].append(io_errors_text(io_error_steps(steps)))
        if health_steps(steps):
            v["reasons"].append(health_text(health_steps(steps)))
        return v
    if not cert or any(s.status != "done" for s in cert):
        pending = [s for s in steps if s.to_do]
        v.update(status="unfinished", exit_status=EXIT_NOT_CERTIFIED)
        v["text"] = "not finished: %s" % (
            "step %d, %s, %s" % (pending[0].number,
                                 step_short(pending[0]),
                                 PENDING_TEXT.get(pending[0].status,
                                                  pending[0].status))
            if pending else "no test ran")
        return v
    v.update(status="certified", certified=True, exit_status=EXIT_CERTIFIED)
    v["text"] = "certified at %s" % target
    erred = io_error_steps(steps)
    warned = health_steps(steps)
    if erred or warned:
        # the tests passed, but the drive failed I/Os (within
        # io-error-limit) or reported health problems: never a plain
        # "certified" - the user decides
        what = " and ".join((["I/O errors"] if erred else []) +
                            (["drive health warnings"] if warned else []))
        v.update(status="certified with %s" % what,
                 exit_status=EXIT_IO_ERRORS if erred else EXIT_HEALTH)
        v["text"] = "certified with %s at %s" % (what, target)
    if erred:
        v["reasons"].append(io_errors_text(erred) + ": every test passed, "
                            "but the drive returned errors - decide "
                            "whether to accept it")
    if warned:
        v["reasons"].append(health_text(warned) + ": every test passed, "
                            "but the drive reported health problems - "
                            "decide whether to accept it")
    rungs = [s for s in steps if s.kind == "ceiling"]
    if c.ceiling:
        passed = c.load
        done = True
        failed_rung = None
        for s in rungs:
            if s.status == "skipped":
                continue
            if s.status != "done":
                done = False
                break
            if s.result == RESULT_PASS:
                passed = s.load
            else:
                failed_rung = s
                break
        if not done:
            v["text"] += "; ceiling: not determined yet (at least %s so " \
                "far)" % fmt_load(passed)
        elif failed_rung is None:
            v["ceiling"] = passed
            v["ceiling_exceeds_ladder"] = True
            v["text"] += "; ceiling: at least %s (every load of the ladder " \
                "passed)" % fmt_load(passed)
        elif failed_rung.result == RESULT_NOT_JUDGED:
            v["ceiling"] = passed
            v["ceiling_limited_by_host"] = True
            v["text"] += "; ceiling: at least %s (limited by the host: it " \
                "could not issue %s)" % (fmt_load(passed),
                                         fmt_load(failed_rung.load))
            v["reasons"].append("the ladder stopped at %s (step %d), NOT "
                                "JUDGED: %s" % (
                                    fmt_load(failed_rung.load),
                                    failed_rung.number,
                                    failed_rung.message))
        else:
            v["ceiling"] = passed
            v["text"] += "; ceiling: %s" % fmt_load(passed)
            v["reasons"].append("the ladder stopped at %s (step %d): %s" % (
                fmt_load(failed_rung.load), failed_rung.number,
                failed_rung.message or failed_rung.result))
    return v


def named_drives(step):
    """The devices of a step after the first (tested only with the
    others) that its message names as over a limit on their own
    histograms ("DEV: reads ...", "DEV-reads ..."; act.latency.drives)."""
    msg = step.message or ""
    return [d for d in step.devices[1:]
            if "%s: " % d in msg or "%s-" % d in msg]


def io_error_total(analysis):
    """The failed I/Os a step's log records (0 when none or unknown)."""
    counted = (analysis.io_errors if analysis else None) or {}
    return counted.get("total") or 0


def io_error_steps(steps):
    """The steps whose run recorded failed I/Os (a step judged from
    another step's run is that run: not counted twice)."""
    return [s for s in steps if s.status == "done" and
            s.io_errors and not s.same_run_as]


def io_errors_text(erred):
    n = sum(s.io_errors for s in erred)
    return "%d failed I/O%s within io-error-limit (%s)" % (
            n, "" if n == 1 else "s", ", ".join(
                "step %d: %d" % (s.number, s.io_errors)
                for s in erred))


def health_warnings(analysis):
    """The drive health problems of a step's run, each named by its device
    ("/dev/nvme0n1: 1 new media error (0 -> 1)"): its verdict's (health,
    act.latency's), or without a verdict the ones its health summary
    found (health_report.step_health); [] when none."""
    a = analysis.analysis if analysis else None
    v = a.verdict if a else None
    if v is not None and hasattr(v, "health"):
        return list(v.health or ())
    health = (analysis.health if analysis else None) or {}
    return ["%s: %s" % (d["device"], p) for d in health.get("drives", ())
            for p in d.get("problems") or ()]


def record_run(step, analysis):
    """What a step keeps of its run's analysis besides its result: the kind
    of its stop, its failed I/Os and its drive health problems (kept only
    when there are some: a state without them reads as before)."""
    step.stop = analysis.stop
    step.io_errors = io_error_total(analysis)
    warned = health_warnings(analysis)
    if warned:
        step.health_warnings = warned
    else:
        del step.health_warnings


def health_steps(steps):
    """The steps whose run had drive health problems (a step judged from
    another step's run is that run: not counted twice)."""
    return [s for s in steps if s.status == "done" and
            s.health_warnings and not s.same_run_as]


def health_text(warned):
    return "drive health warnings (%s)" % "; ".join(
        "step %d: %s" % (s.number, ", ".join(s.health_warnings))
        for s in warned)


def host_limited(steps):
    """Steps the host, not the drive, limited: NOT JUDGED, or whose run
    stopped because the host could not keep the load (act's lag
    diagnosis: the kind of stop of the step's log, RunEnd.stop, kept in
    the step as "stop", is "host-limit")."""
    return [s for s in steps if s.status == "done" and
            (s.stop == "host-limit" or
             s.result == RESULT_NOT_JUDGED)]


def rejudge(dirpath, state, cache):
    """Judges every finished test again from its log (what --report
    promises); returns warnings for results that changed or logs that
    can't be analysed now. The state is changed in memory only."""
    warnings = []
    for st in state.steps:
        if st.kind == "prep" or st.status != "done":
            continue
        a = step_analysis(dirpath, state, st, cache)
        if a.doc is None and st.exit_status == 0:
            warnings.append("step %d: its log can't be analysed now (%s); "
                            "its recorded result is shown"
                            % (st.number, a.error))
            continue
        result, message = judge_step(st, a)
        record_run(st, a)
        if result != st.result:
            warnings.append("step %d: judged %s from its log now, was %s "
                            "when it ran" % (st.number, result,
                                             st.result))
        st.result, st.message = result, message
    return warnings
