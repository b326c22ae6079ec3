"""Detached campaigns (--detach) and their progress (--status).

--detach runs the campaign the rest of the command line describes away
from the session that started it, so a 48-hour campaign survives the
ssh session (or the Ansible controller) going away: in a transient
systemd unit (systemd-run --unit act-certify-NAME) where systemd is PID
1, else by a double fork and setsid, stdio to DIR/detach.log, the pid in
DIR/detach.pid. It returns once the campaign runs (its state.json saved,
DIR's lock held), saying where. The same command again while it runs
starts nothing (it says so: DIR's lock, /proc/locks, tells who holds
it); after an interruption it resumes the campaign (--resume); once
finished it says so. --status DIR says where a campaign is: running or
not, the step, the slices judged, the verdict so far (from the live
summary.json)."""

import json
import os
import re
import shutil
import subprocess
import sys
import time

from act import EXIT_SETUP
from act.certify import PROG
from act.certify.fmt import fmt_clock, say, warn
from act.certify.state import (
    DETACH_LOG, DETACH_PID, LOCK_NAME, load_state, make_private_dir,
    state_path)
from act.cli import UsageError
from act.safefile import open_regular


UNIT_ENV = "ACT_CERTIFY_UNIT_DIR"   # set in the systemd unit's environment
START_WAIT = 120            # seconds --detach waits for the campaign to run
ENDED_RE = re.compile(r"^%s: ended with status (\d+)$" % re.escape(PROG),
                      re.M)


# ---------------------------------------------------------------------
# Who runs the campaign in DIR
# ---------------------------------------------------------------------

def lock_holder(dirpath, locks_path="/proc/locks"):
    """The pid that holds DIR/.lock's flock (read in /proc/locks, without
    taking the lock: a campaign starting now is never refused because of
    this look), or None."""
    try:
        st = os.stat(os.path.join(dirpath, LOCK_NAME))
        with open(locks_path) as f:
            text = f.read()
    except OSError:
        return None
    for line in text.splitlines():
        # "1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF" (a waiter's
        # line has "->" after the number)
        f = line.split()
        if len(f) < 6 or "->" in f or f[1] != "FLOCK":
            continue
        parts = f[5].split(":")
        if len(parts) == 3 and parts[2].isdigit() and \
                int(parts[2]) == st.st_ino and f[4].isdigit():
            return int(f[4])
    return None


def _pid_file_process(dirpath):
    """The process DIR/detach.pid names, while it is still a detached
    act_certify (it may not hold the lock yet), or None."""
    try:
        with open(os.path.join(dirpath, DETACH_PID)) as f:
            pid = int(f.read().split()[0])
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            cmdline = f.read()
    except (OSError, ValueError, IndexError):
        return None
    return pid if b"--detach" in cmdline else None


def running_pid(dirpath):
    """The pid of the act_certify that runs DIR's campaign, or None."""
    return lock_holder(dirpath) or _pid_file_process(dirpath)


# ---------------------------------------------------------------------
# --detach
# ---------------------------------------------------------------------

def use_systemd():
    """systemd is PID 1 (sd_booted's test) and systemd-run is there;
    ACT_CERTIFY_DETACH=fork forces the fallback, =systemd the unit."""
    how = os.environ.get("ACT_CERTIFY_DETACH")
    if how in ("fork", "systemd"):
        return how == "systemd"
    return os.path.isdir("/run/systemd/system") and \
        shutil.which("systemd-run") is not None


def unit_name(dirpath):
    """act-certify-NAME: DIR's name, in the characters a unit name takes."""
    name = re.sub(r"[^A-Za-z0-9_.-]", "_", os.path.basename(dirpath))
    return "act-certify-%s" % (name or "campaign")


def detach_main(args, argv, resume_argv, main_status):
    """--detach: the exit status (0 when the campaign runs - started now,
    or already running - or has finished). resume_argv(DIR): the command
    line that resumes DIR's campaign; main_status(argv): act_certify's
    main, run in the detached process (the fallback)."""
    dirpath = os.path.abspath(args.resume or args.out)
    if os.environ.get(UNIT_ENV) == dirpath:
        # the command of the systemd unit _start_unit made: the campaign
        # itself, with the pid file and the status line of the fallback
        os.environ.pop(UNIT_ENV)
        return _run_campaign(dirpath, [a for a in argv if a != "--detach"],
                             main_status)
    pid = running_pid(dirpath)
    if pid:
        say("%s: the campaign in %s is already running (pid %d): nothing "
            "started" % (PROG, dirpath, pid))
        return status_main(dirpath)
    if os.path.lexists(state_path(dirpath)):
        state = load_state(dirpath)
        if state.status == "finished":
            say("%s: the campaign in %s has finished: nothing started"
                % (PROG, dirpath))
            return status_main(dirpath)
        child = resume_argv(dirpath)
        what = "resumed"
    elif args.resume is not None:
        load_state(dirpath)         # the error that says why
        return EXIT_SETUP
    else:
        child = [a for a in argv if a != "--detach"]
        what = "started"
    make_private_dir(dirpath)
    log = os.path.join(dirpath, DETACH_LOG)
    start = os.path.getsize(log) if os.path.isfile(log) else 0
    if use_systemd():
        pid, where = _start_unit(dirpath, child, log, main_status)
    else:
        pid, where = _start_forked(dirpath, child, log, main_status), None
    status = _wait_running(dirpath, pid, log, start)
    if status is not None:
        warn("error: the detached campaign in %s ended at once (status %d); "
             "its output (%s):" % (dirpath, status, log))
        sys.stderr.write(_log_since(log, start))
        return status or EXIT_SETUP
    say("%s: campaign %s in %s, detached: %s; output in %s"
        % (PROG, what, dirpath, where or "pid %d" % (running_pid(dirpath) or
                                                      pid), log))
    return 0


def _start_unit(dirpath, child, log, main_status):
    unit = unit_name(dirpath)
    cmd = ["systemd-run", "--unit", unit, "--collect", "--quiet",
           "-p", "StandardOutput=append:%s" % log,
           "-p", "StandardError=append:%s" % log,
           "-p", "WorkingDirectory=%s" % os.getcwd(),
           "--setenv", "%s=%s" % (UNIT_ENV, dirpath)]
    # a unit has systemd's environment, not ours: what act_certify reads
    for name in ("ACT_BIN", "ACT_CERTIFY_METRICS", "LD_PRELOAD",
                 "ACT_SHIM_FAULT", "ACT_CERTIFY_REPORT_SEC"):
        if name in os.environ:
            cmd += ["--setenv", "%s=%s" % (name, os.environ[name])]
    cmd += ["--", sys.executable, os.path.realpath(sys.argv[0]),
            "--detach"] + child
    r = subprocess.run(cmd, stdin=subprocess.DEVNULL, check=False)
    if r.returncode != 0:
        warn("systemd-run failed (status %d): detaching by a double fork "
             "instead" % r.returncode)
        return _start_forked(dirpath, child, log, main_status), None
    return None, "systemd unit %s (journalctl -u %s)" % (unit, unit)


def _start_forked(dirpath, child, log, main_status):
    """A double fork and setsid: the campaign's process is in a session
    of its own, no terminal, its parent init - a hangup of the session
    that started it does not reach it. Returns its pid."""
    rfd, wfd = os.pipe()
    first = os.fork()
    if first == 0:
        try:
            os.close(rfd)
            os.setsid()
            if os.fork():
                os._exit(0)
            os.write(wfd, b"%d" % os.getpid())
            os.close(wfd)
            _run_detached(dirpath, child, log, main_status)
        finally:
            os._exit(EXIT_SETUP)
    os.close(wfd)
    with os.fdopen(rfd, "rb") as r:
        data = r.read()
    os.waitpid(first, 0)
    try:
        return int(data)
    except ValueError:
        raise UsageError("can't detach the campaign in %s" % dirpath,
                         status=EXIT_SETUP) from None


def _run_detached(dirpath, child, log, main_status):
    """In the detached process: stdio to the log, the pid file, the
    campaign; its status as the log's last line."""
    out = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND |
                  os.O_NOFOLLOW, 0o644)
    null = os.open(os.devnull, os.O_RDONLY)
    sys.stdout.flush()
    sys.stderr.flush()
    os.dup2(null, 0)
    os.dup2(out, 1)
    os.dup2(out, 2)
    os.close(out)
    os.close(null)
    # nothing else of the session that started it: a pipe kept open here
    # would keep its reader (ssh, Ansible) waiting for the campaign's end
    os.closerange(3, os.sysconf("SC_OPEN_MAX"))
    os.umask(0o022)
    os._exit(_run_campaign(dirpath, child, main_status))


def _run_campaign(dirpath, child, main_status):
    """The detached campaign (a systemd unit's, or the fallback's): the
    pid file, the campaign, its status as its output's last line."""
    pid_tmp = os.path.join(dirpath, ".%s.%d" % (DETACH_PID, os.getpid()))
    with open(pid_tmp, "w") as f:
        f.write("%d\n" % os.getpid())
    os.replace(pid_tmp, os.path.join(dirpath, DETACH_PID))
    status = main_status(child)
    say("%s: ended with status %d" % (PROG, status))
    sys.stdout.flush()
    return status


def _wait_running(dirpath, pid, log, start):
    """None once the campaign runs (state.json saved and DIR's lock held),
    or its status when it ended first (its log's last line)."""
    deadline = time.monotonic() + START_WAIT
    while time.monotonic() < deadline:
        holder = lock_holder(dirpath)
        if holder and os.path.exists(state_path(dirpath)):
            return None
        m = ENDED_RE.search(_log_since(log, start))
        if m:
            return int(m.group(1))
        if pid and not os.path.exists("/proc/%d" % pid):
            m = ENDED_RE.search(_log_since(log, start))
            return int(m.group(1)) if m else EXIT_SETUP
        time.sleep(0.1)
    return None


def _log_since(log, start):
    try:
        with open(log, "rb") as f:
            f.seek(start)
            return f.read(1 << 20).decode("utf-8", "replace")
    except OSError:
        return ""


# ---------------------------------------------------------------------
# --status
# ---------------------------------------------------------------------

def status_lines(dirpath, state, pid, summary):
    """The lines of --status: campaign, state, step, slices, verdict."""
    out = ["campaign: %s" % dirpath]
    done = sum(1 for s in state.steps if not s.to_do)
    if pid:
        out.append("state: running (pid %d)" % pid)
    elif state.status == "finished":
        out.append("state: finished")
    else:
        out.append("state: not running (%s) - continue with: %s --detach "
                   "--resume %s" % (state.status, PROG, dirpath))
    step = state.next_step()
    if step is not None and state.status != "finished":
        out.append("step: %d of %d: %s (%s)" % (
            step.number, len(state.steps), step.title, step.status))
    out.append("steps finished: %d of %d" % (done, len(state.steps)))
    run = (summary or {}).get("running") if pid else None
    if isinstance(run, dict) and step is not None and \
            run.get("step") == step.number:
        hists = run.get("histograms") or []
        n = len(hists[0].get("slices") or []) if hists else 0
        total = -(-int(run.get("planned_sec", 0)) //
                  max(1, int(run.get("slice_sec", 1))))
        out.append("elapsed: %s of %s" % (
            fmt_clock(run.get("elapsed_sec", 0)),
            fmt_clock(run.get("planned_sec", 0))))
        out.append("slices judged: %d of %d" % (n, total))
        if run.get("failing_drives"):
            out.append("failing drives so far: %s"
                       % ", ".join(run["failing_drives"]))
    verdict = ((summary or {}).get("verdict") or {}).get("headline")
    if verdict:
        out.append("verdict%s: %s" % (
            " so far" if state.status != "finished" else "", verdict))
    return out


def read_summary(dirpath):
    try:
        with open_regular(os.path.join(dirpath, "summary.json"),
                          64 << 20) as f:
            doc = json.loads(f.read().decode("utf-8"))
    except (OSError, ValueError, RecursionError):
        return None
    return doc if isinstance(doc, dict) else None


def status_main(dirpath):
    """--status DIR: where the campaign is (read only: no lock taken,
    nothing written). 0, or 2 when DIR holds no campaign."""
    dirpath = os.path.abspath(dirpath)
    state = load_state(dirpath)
    for line in status_lines(dirpath, state, running_pid(dirpath),
                             read_summary(dirpath)):
        say(line)
    return 0
