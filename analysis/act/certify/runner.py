"""Running a campaign: each program as a supervised child (its own
session, SIGTERM if act_certify dies, the held devices passed on), signals
that stop it cleanly, and the loop over the steps (what the user watches
meanwhile is watch.py)."""

import os
import shutil
import signal
import subprocess
import sys
import time

from act.certify.analyse import (
    analyse_step_log, slices_so_far, step_analysis)
from act.certify.failfast import (
    FailFast, request_reason, saved_text, stop_message)
from act.certify.devices import check_identities, held_env
from act.certify.plan import BASE_NAME, config_args
from act.certify.precheck import campaign_header
from act.certify.fmt import (
    fmt_duration, say, say_both, signame, utc_now, warn)
from act.certify.judge import (
    RESULT_INVALID, RESULT_PASS, campaign_verdict, judge_step, record_run,
    skip_reason, step_short)
from act import EXIT_SETUP, PROGRAM_STATUS
from act.certify import EXIT_CONFIG, PROG
from act.certify.cells import headline, status_text
from act.certify.publish import write_reports
from act.cli import UsageError
from act.logfile.follow import LogFollower
from act.logfile.reports import first_error
from act.certify.state import current_step_number, rename_old_log, save_state
from act.safefile import create_new
from act.certify.watch import LiveReport, PrepProgress


STOP_WAIT = 60                  # seconds a program gets to stop cleanly
# The pipe through which a program is told why it is stopped (docs/
# beyond.md, "A parent that stops the run"), believed with ACT_HELD_PID.
STOP_FD_ENV = "ACT_STOP_FD"


class _Stop:
    signum = None
    child = None


def _on_signal(signum, _frame):
    if _Stop.signum is None:
        _Stop.signum = signum
    child = _Stop.child
    if child is not None and child.poll() is None:
        try:
            child.send_signal(signal.SIGINT)
        except OSError:
            pass


def install_signal_handlers():
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, _on_signal)


def _prctl():
    try:
        import ctypes
        return ctypes.CDLL(None, use_errno=True).prctl
    except (ImportError, OSError, AttributeError):
        return None


_PRCTL = None


def _child_setup():
    """In the child: its own session (a terminal's Ctrl-C or hangup
    reaches act_certify, which stops the program cleanly), and SIGTERM
    when act_certify dies (PR_SET_PDEATHSIG), so it never runs on
    alone."""
    os.setsid()
    if _PRCTL is not None:
        _PRCTL(1, signal.SIGTERM, 0, 0, 0)


def remaining_seconds(steps, current, elapsed):
    left = max(0, current.duration_sec - elapsed) if current else 0
    after = False
    for s in steps:
        if s is current:
            after = True
            continue
        if (after or current is None) and s.to_do:
            left += s.duration_sec
    return left


def run_program(argv, log_path, err_path, step, steps, progress, save,
                fail_fast=False):
    """Runs one program with its stdout to log_path, its stderr to
    err_path; returns its exit status (128+n for a signal) - or raises
    UserError when it can't start. save() records the step (with the
    program's pid) once it runs. fail_fast: stop a criteria step at its
    first slice over a limit (step.stopped_early says so)."""
    global _PRCTL
    if _PRCTL is None:
        _PRCTL = _prctl()
    # the reason of a stop (fail fast's) goes into this pipe just before
    # the SIGINT: the program's log then says it (tell_stop)
    stop_r, stop_w = os.pipe()
    try:
        # new files (never through a name planted in DIR: safefile)
        with create_new(log_path) as log, create_new(err_path) as err:
            env, fds = held_env()
            env.update({STOP_FD_ENV: str(stop_r),
                        "ACT_HELD_PID": str(os.getpid())})
            proc = subprocess.Popen(argv, stdout=log, stderr=err,
                                    stdin=subprocess.DEVNULL, env=env,
                                    pass_fds=fds + (stop_r,),
                                    preexec_fn=_child_setup)
    except OSError as e:
        os.close(stop_w)
        raise UsageError("can't run %s: %s" % (argv[0], e.strerror or e),
                         status=EXIT_SETUP) from None
    finally:
        os.close(stop_r)
    _Stop.child = proc
    step.pid = proc.pid
    save()
    if _Stop.signum is not None:
        _on_signal(_Stop.signum, None)
    follower = LogFollower(log_path) if step.kind != "prep" else None
    watch = fail_fast_watch(step, log_path, fail_fast)
    t0 = time.monotonic()
    stop_sent = None
    total = len(steps)
    while True:
        try:
            proc.wait(timeout=1.0)
            break
        except subprocess.TimeoutExpired:
            pass
        if _Stop.signum is not None or stop_sent is not None:
            now = time.monotonic()
            if stop_sent is None:
                stop_sent = now
                progress.line("%s: stopping %s (SIGINT) ..."
                              % (PROG, os.path.basename(argv[0])))
                try:
                    proc.send_signal(signal.SIGINT)
                except OSError:
                    pass
            elif now - stop_sent > STOP_WAIT:
                proc.kill()
        if follower is not None:
            follower.poll()
        if watch is not None and follower is not None and \
                _Stop.signum is None and stop_sent is None:
            rec = watch.check(follower.last)
            if rec is not None:
                # recorded before the program is stopped: the step is then
                # judged from its partial log, never run again as if
                # interrupted
                step.stopped_early = rec
                save()
                progress.line("%s: step %d: %s" % (PROG, step.number,
                                                   stop_message(rec)))
                stop_sent = time.monotonic()
                tell_stop(stop_w, request_reason(rec))
                try:
                    proc.send_signal(signal.SIGINT)
                except OSError:
                    pass
        elapsed = time.monotonic() - t0
        progress.tick(step, total, elapsed, follower,
                      remaining_seconds(steps, step, elapsed))
    os.close(stop_w)
    _Stop.child = None
    del step.pid
    rc = proc.returncode
    rc = 128 - rc if rc < 0 else rc
    if rc < 128:
        # the program ended on its own before the stop reached it: its
        # own end is the step's (e.g. a drive-limit stop)
        del step.stopped_early
    return rc


def tell_stop(fd, reason):
    """Write the reason of a stop, one line, into the pipe the program
    reads when the SIGINT that follows arrives (its log then ends with
    "stopped on request: REASON after S sec")."""
    try:
        os.write(fd, (reason + "\n").encode("ascii", "replace"))
    except OSError:
        pass                    # the program has ended: nothing to tell


def fail_fast_watch(step, log_path, fail_fast):
    """The FailFast of a step that runs and is judged on the criteria
    (the targets and the ceiling rungs; not the stress tests, which pass
    by completing), unless the campaign has --no-fail-fast."""
    if not fail_fast or step.judge != "criteria" or \
            step.kind == "prep":
        return None
    return FailFast(step, log_path, slices_so_far)


def execute_step(dirpath, state, step, tools, progress, cache):
    """Runs (or judges) one step; updates it. Returns None to go on, or
    the campaign's exit status to stop with."""
    steps = state.steps
    if step.same_run_as:
        src = state.run_of(step)
        step.update(status="done", exit_status=src.exit_status,
                    started_at=utc_now(), ended_at=utc_now())
        a = step_analysis(dirpath, state, step, cache)
        step.result, step.message = judge_step(step, a)
        record_run(step, a)
        save_state(dirpath, state)
        if step.result == RESULT_INVALID:
            warn("step %d is INVALID: %s" % (step.number,
                                             step.message))
        return None
    files = step.files
    log = os.path.join(dirpath, files["log"])
    err = os.path.join(dirpath, files["stderr"])
    if step.kind == "prep":
        argv = [tools["act_prep"]] + step.devices
    else:
        argv = [tools["program"]] + config_args(
            step, os.path.join(dirpath, BASE_NAME), dirpath)
    prog = os.path.basename(argv[0])
    if step.status == "running" and step.kind != "prep":
        # act_certify was killed while the step ran (its program is gone:
        # --resume checked): perhaps after the program ended, before that
        # was saved
        rc = end_from_log(dirpath, state, step)
        if rc is not None:
            step.update(status="ended", exit_status=rc,
                        ended_at=_mtime_utc(log), log_size=_size(log))
            del step.pid
            save_state(dirpath, state)
    if program_ended(dirpath, step):
        # act_certify stopped after the program ended, before the step
        # was judged: judge it now, don't run it again
        return finish_step(dirpath, state, step, prog, err, log, cache)
    if step.status in ("running", "interrupted", "error", "ended") or \
            os.path.lexists(log) or os.path.lexists(err):
        rename_old_log(dirpath, step)
    step.update(status="running", result=None, exit_status=None,
                message=None, started_at=utc_now(), ended_at=None)
    del step.stopped_early
    save_state(dirpath, state)
    progress.step_started(step, len(steps))
    progress.watch(LiveReport(dirpath, state, step, cache,
                              progress.metrics),
                   PrepProgress(err, step.devices)
                   if step.kind == "prep" else None)
    try:
        rc = run_program(argv, log, err, step, steps, progress,
                         lambda: save_state(dirpath, state),
                         state.campaign.fail_fast)
    finally:
        progress.watch()
    progress.clear()
    # the program's end, saved before anything else: if act_certify stops
    # now, --resume judges the step instead of running it again
    step.update(status="ended", exit_status=rc, ended_at=utc_now(),
                log_size=_size(log))
    save_state(dirpath, state)
    return finish_step(dirpath, state, step, prog, err, log, cache)


def _size(path):
    try:
        return os.stat(path).st_size
    except OSError:
        return None


def _mtime_utc(path):
    try:
        return time.strftime("%Y-%m-%dT%H:%M:%SZ",
                             time.gmtime(os.stat(path).st_mtime))
    except OSError:
        return utc_now()


def end_from_log(dirpath, state, step):
    """The exit status a step's program ended with, told from its log, for
    a step state.json says is running whose program is gone (act_certify
    was killed after the program ended, before it saved so): 0 when the
    log is a complete run (its last report at test-duration-sec, no stop
    line after it: act_latency's "complete"), 128+SIGINT when fail fast
    had stopped it (stopped_early saved) and the log ends with the
    program's "stopped on request" line (or, by an older act_storage,
    "stopped by signal"); None otherwise - the step runs again."""
    a = analyse_step_log(dirpath, state, step, plot=False)
    if a.doc is not None and a.doc.get("complete") and a.stop is None:
        return 0
    if step.stopped_early and a.stop in ("request", "signal"):
        return 128 + signal.SIGINT
    return None


def program_ended(dirpath, step):
    """Whether state.json says the step's program ended (exit status
    below 128) and its log is as it was then: the step is judged, not run
    again."""
    rc = step.exit_status
    log = step.files.get("log")
    return (step.status == "ended" and isinstance(rc, int) and
            (0 <= rc < 128 or bool(step.stopped_early)) and
            log is not None and
            step.log_size is not None and
            _size(os.path.join(dirpath, log)) == step.log_size)


def finish_step(dirpath, state, step, prog, err, log, cache):
    """Judges a step whose program ended (exit status in the step); saves
    it. Returns None to go on, or the campaign's exit status to stop
    with."""
    rc = step.exit_status
    if rc >= 128 and not step.stopped_early:
        signum = _Stop.signum or (rc - 128)
        step.update(status="interrupted", message="stopped by signal %s"
                    % signame(rc - 128))
        state.status = "interrupted"
        save_state(dirpath, state)
        return 128 + signum
    if rc in (1, 2, 5) or (step.kind == "prep" and rc != 0):
        detail = first_error(err, log)
        step.update(status="error", message="%s exit status %d (%s)%s" % (
            prog, rc, PROGRAM_STATUS.get(rc, "failed"),
            ": " + detail if detail else ""))
        state.status = "error"
        save_state(dirpath, state)
        warn("step %d: %s" % (step.number, step.message))
        return EXIT_CONFIG if rc == 1 and step.kind != "prep" \
            else EXIT_SETUP
    step.status = "done"
    a = step_analysis(dirpath, state, step, cache)
    if a.error and rc == 0 and step.kind != "prep":
        step.update(status="error", message="can't analyse the log: %s"
                    % a.error)
        state.status = "error"
        save_state(dirpath, state)
        warn("step %d: %s" % (step.number, step.message))
        return EXIT_SETUP
    step.result, step.message = judge_step(step, a)
    record_run(step, a)
    save_state(dirpath, state)
    if step.result == RESULT_INVALID:
        warn("step %d is INVALID: %s" % (step.number, step.message))
    return None


def step_line(step):
    """One line for a finished step, on stdout."""
    if step.status == "skipped":
        return "step %d %s: skipped (%s)" % (step.number,
                                             step_short(step),
                                             step.message)
    text = "step %d %s: %s" % (step.number, step_short(step), status_text(
        step.result or step.status, step.health_warnings))
    if step.message:
        text += " - " + step.message
    if step.health_warnings:
        text += " - " + "; ".join(step.health_warnings)
    if step.stopped_early and step.result != RESULT_PASS:
        text += " (%s)" % saved_text(step.stopped_early)
    if step.io_errors:
        text += " (%d failed I/O%s within io-error-limit)" % (
            step.io_errors, "" if step.io_errors == 1 else "s")
    return text


def run_campaign(dirpath, state, tools, progress):
    """Runs every step still to do; writes the reports; returns the exit
    status."""
    cache = {}
    status = None
    state.status = "running"
    save_state(dirpath, state)
    for step in state.steps:
        if not step.to_do:
            continue
        if _Stop.signum is not None:
            state.status = "interrupted"
            status = 128 + _Stop.signum
            break
        why = skip_reason(state.steps, step)
        if why:
            step.update(status="skipped", message=why)
            save_state(dirpath, state)
            say(step_line(step))
            continue
        try:
            # the drive each name stands for is still the one recorded
            # (a file replaced, a loop device re-attached): not one byte
            # to another drive
            check_identities(state, dirpath, campaign_header(
                tools["program"], dirpath, state))
        except UsageError as e:
            warn("error: step %d not started: %s" % (step.number, e))
            state.status = "error"
            status = EXIT_SETUP
            break
        status = execute_step(dirpath, state, step, tools, progress, cache)
        if step.status == "done":
            say(step_line(step))
        if status is not None:
            break
        write_reports(dirpath, state, cache, metrics=progress.metrics)
    if status is None and _Stop.signum is not None and \
            state.next_step() is not None:
        status = 128 + _Stop.signum
        state.status = "interrupted"
    if status is None:
        state.status = "finished"
        state.ended_at = utc_now()
    save_state(dirpath, state)
    write_reports(dirpath, state, cache, metrics=progress.metrics)
    v = campaign_verdict(state)
    say("")
    if status is not None and status >= 128:
        # on the terminal even when stdout goes to a file
        say_both("%s: interrupted (signal %s) at step %s - finished steps "
                 "are kept; to continue (the interrupted step runs again "
                 "from its start):" % (PROG, signame(status - 128),
                                       current_step_number(state)))
        say_both("  %s --resume %s" % (_self_command(), dirpath))
    elif status == EXIT_CONFIG:
        say_both("%s: stopped: the program refused the config (exit status "
                 "%d) - fix the base config and start a new campaign (or "
                 "fix %s and continue with --resume %s)"
                 % (PROG, status, os.path.join(dirpath, BASE_NAME), dirpath))
    elif status is not None:
        say_both("%s: stopped by an error (exit status %d); fix it, then "
                 "continue with:" % (PROG, status))
        say_both("  %s --resume %s" % (_self_command(), dirpath))
    else:
        say("verdict: %s" % headline(v))
        for r in v["reasons"]:
            say("  " + r)
        saved = state.fail_fast_stops()
        if saved:
            say("  fail fast saved %s (%s)" % (fmt_duration(sum(
                s.stopped_early.saved_sec for s in saved)), ", ".join(
                    "step %d" % s.number for s in saved)))
    say("report: %s" % os.path.join(dirpath, "report.html"))
    return v["exit_status"] if status is None else status


def _self_command():
    path = os.path.abspath(sys.argv[0]) if sys.argv and sys.argv[0] else \
        "act_certify.py"
    found = shutil.which(os.path.basename(path))
    return os.path.basename(path) if found and os.path.realpath(found) == \
        os.path.realpath(path) else path
