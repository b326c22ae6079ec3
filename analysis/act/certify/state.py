"""The campaign directory: state.json (the plan and what finished), the
directory lock (one act_certify per campaign), and the resume bookkeeping
(an interrupted step's old files renamed and remembered, which step is
next, whether a recorded program still runs)."""

import fcntl
import json
import os

from act import EXIT_SETUP
from act.cli import UsageError


STATE_FORMAT = "act_certify/1"


def state_path(dirpath):
    return os.path.join(dirpath, "state.json")


def save_state(dirpath, state):
    path = state_path(dirpath)
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(state, f, indent=1)
        f.write("\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def load_state(dirpath):
    path = state_path(dirpath)
    try:
        with open(path) as f:
            state = json.load(f)
    except FileNotFoundError:
        raise UsageError("%s has no campaign (no state.json)" % dirpath,
                         status=EXIT_SETUP) from None
    except (OSError, ValueError) as e:
        raise UsageError("can't read %s: %s" % (path, getattr(
            e, "strerror", None) or e), status=EXIT_SETUP) from None
    if not isinstance(state, dict) or state.get("format") != STATE_FORMAT:
        raise UsageError("%s is not an act_certify state file (%s)"
                         % (path, STATE_FORMAT), status=EXIT_SETUP)
    return state


def lock_dir(dirpath):
    """An exclusive lock on DIR (held until the process ends): one
    act_certify per campaign."""
    fd = os.open(os.path.join(dirpath, ".lock"),
                 os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        raise UsageError("another act_certify is running the campaign in %s"
                         % dirpath, status=EXIT_SETUP) from None
    return fd


def rename_old_log(dirpath, step):
    """An interrupted step's files: renamed <name>.interrupted-K, kept."""
    files = step.get("files", {})
    log = files.get("log")
    if not log or not os.path.exists(os.path.join(dirpath, log)):
        return
    k = len(step["old_logs"]) + 1
    while os.path.exists(os.path.join(dirpath, "%s.interrupted-%d"
                                      % (log, k))):
        k += 1
    entry = {}
    for key in ("log", "stderr"):
        name = files.get(key)
        if name and os.path.exists(os.path.join(dirpath, name)):
            new = "%s.interrupted-%d" % (name, k)
            os.replace(os.path.join(dirpath, name),
                       os.path.join(dirpath, new))
            entry[key] = new
    entry["status"] = step.get("status")
    entry["exit_status"] = step.get("exit_status")
    step["old_logs"].append(entry)


def current_step_number(state):
    for s in state["steps"]:
        if s["status"] not in ("done", "skipped"):
            return s["number"]
    return "-"


def still_running(pid, dirpath):
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            return dirpath.encode() in f.read()
    except OSError:
        return False
