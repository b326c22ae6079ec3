"""The campaign directory: state.json (the plan and what finished; read
and checked as something that may come from anyone: a regular file,
bounded in size, depth and numbers), the directory lock (one act_certify
per campaign), who may write in DIR (check_private_dir), what a setup
killed before its first save left (setup_leftovers), and the resume
bookkeeping (an interrupted step's old files renamed and remembered,
which step is next, whether a recorded program still runs)."""

import fcntl
import json
import os
import re

from act import EXIT_SETUP
from act.certify import PROG
from act.certify.model import (
    MAX_DEPTH, STATE_FORMAT, Damaged, NotAState, OldLog, State)
from act.certify.plan import BASE_NAME
from act.cli import UsageError
from act.safefile import (
    is_temporary, open_regular, private_dir_problem, user_text, write_file)


STATE_NAME = "state.json"
STATE_LIMIT = 64 << 20          # bytes: a state.json is a few KiB per step


def state_path(dirpath):
    return os.path.join(dirpath, STATE_NAME)


def save_state(dirpath, state):
    """state.json replaced atomically (safefile.write_file: a temporary
    file, fsynced, renamed, then DIR fsynced - or a crash can leave the old
    state.json, and a finished step run again on --resume)."""
    write_file(dirpath, STATE_NAME, json.dumps(state.to_json(), indent=1) +
               "\n", durable=True)


def load_state(dirpath):
    """DIR's state.json as a State (model.State.from_json: checked as
    something that may come from anyone); a UsageError (setup error) that
    says what is wrong otherwise."""
    path = state_path(dirpath)
    try:
        with open_regular(path, STATE_LIMIT) as f:
            doc = json.loads(f.read().decode("utf-8"))
    except FileNotFoundError:
        if setup_leftovers(dirpath):
            raise UsageError("%s has no campaign (no state.json): the setup "
                             "of a campaign was stopped there before it was "
                             "saved - run the same command again (a new "
                             "campaign replaces what that setup wrote)"
                             % dirpath, status=EXIT_SETUP) from None
        raise UsageError("%s has no campaign (no state.json)" % dirpath,
                         status=EXIT_SETUP) from None
    except (OSError, ValueError) as e:
        raise UsageError("can't read %s: %s" % (path, getattr(
            e, "strerror", None) or e), status=EXIT_SETUP) from None
    except RecursionError:
        # json's decoder recurses once per nesting level
        raise UsageError("%s is damaged: nested deeper than %d levels"
                         % (path, MAX_DEPTH), status=EXIT_SETUP) from None
    try:
        return State.from_json(doc)
    except NotAState:
        raise UsageError("%s is not an act_certify state file (%s)"
                         % (path, STATE_FORMAT), status=EXIT_SETUP) from None
    except Damaged as e:
        raise UsageError("%s is damaged: %s" % (path, e),
                         status=EXIT_SETUP) from None


LOCK_NAME = ".lock"
# a detached campaign's output and pid (detach.py): not the campaign's
# files - a new campaign's DIR may hold them, and they stay
DETACH_LOG = "detach.log"
DETACH_PID = "detach.pid"
DETACH_NAMES = (DETACH_LOG, DETACH_PID)
_STEP_CONFIG_RE = re.compile(r"^\d\d-[A-Za-z0-9.-]+\.conf$")


def setup_leftovers(dirpath):
    """The files an act_certify killed while it set up a campaign in
    dirpath left there - its lock, base.conf, step configs, temporary
    files; no state.json - or [] when dirpath holds anything else (or
    nothing, or no lock: not such a setup). A new campaign in dirpath
    removes them; --resume says so."""
    try:
        names = campaign_names(dirpath)
    except OSError:
        return []
    if LOCK_NAME not in names:
        return []
    for name in names:
        if name not in (LOCK_NAME, BASE_NAME) and \
                not _STEP_CONFIG_RE.match(name) and not is_temporary(name):
            return []
    return sorted(names)


def campaign_names(dirpath):
    """The names in dirpath, a detached campaign's own (DETACH_NAMES)
    left out."""
    return [n for n in os.listdir(dirpath) if n not in DETACH_NAMES]


def check_private_dir(dirpath):
    """DIR must be writable by the user running act_certify only
    (docs/certify.md, "The directory"): a UsageError (setup error) naming
    DIR, its owner and mode otherwise - before anything is written in
    it."""
    try:
        why = private_dir_problem(dirpath)
    except OSError as e:
        raise UsageError("can't use %s: %s" % (dirpath, e.strerror or e),
                         status=EXIT_SETUP) from None
    if why:
        raise UsageError(
            "refusing to write in %s: %s - another user could put files or "
            "symbolic links in it for %s to write through; use a directory "
            "owned by %s that only it can write (chown, chmod go-w)"
            % (dirpath, why, PROG, user_text()), status=EXIT_SETUP)


def make_private_dir(dirpath, what="set up"):
    """DIR made if needed (0755), then check_private_dir; a UsageError
    (setup error) "can't WHAT DIR: why" when it can't be made."""
    try:
        os.makedirs(dirpath, mode=0o755, exist_ok=True)
    except OSError as e:
        raise UsageError("can't %s %s: %s" % (what, dirpath, e.strerror or e),
                         status=EXIT_SETUP) from None
    check_private_dir(dirpath)


def lock_dir(dirpath):
    """An exclusive lock on DIR/.lock (held until unlock_dir or the
    process ends): one act_certify per campaign. unlock_dir removes the
    file while it holds the lock, so a lock taken on a file that was
    removed meanwhile is no lock: taken again on the file that is there
    now."""
    path = os.path.join(dirpath, LOCK_NAME)
    for _ in range(100):
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW |
                     os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise UsageError("another act_certify is running the campaign "
                             "in %s" % dirpath, status=EXIT_SETUP) from None
        try:
            same = os.path.samestat(os.fstat(fd), os.stat(path))
        except OSError:
            same = False            # removed by the holder as it ended
        if same:
            return fd
        os.close(fd)
    raise UsageError("can't lock the campaign in %s: its %s keeps "
                     "changing" % (dirpath, LOCK_NAME), status=EXIT_SETUP)


def unlock_dir(dirpath, fd):
    """Ends the lock of lock_dir: removes DIR/.lock (while holding it: a
    campaign leaves no file behind), then lets go."""
    try:
        os.unlink(os.path.join(dirpath, LOCK_NAME))
    except OSError:
        pass
    os.close(fd)


def rename_old_log(dirpath, step):
    """An interrupted step's files: renamed <name>.interrupted-K, kept
    (an OldLog in step.old_logs)."""
    files = step.files
    log = files.get("log")
    if not log or not any(os.path.lexists(os.path.join(dirpath, n)) for n in
                          (log, files.get("stderr")) if n):
        return
    k = len(step.old_logs) + 1
    while os.path.lexists(os.path.join(dirpath, "%s.interrupted-%d"
                                       % (log, k))):
        k += 1
    entry = OldLog()
    for key in ("log", "stderr"):
        name = files.get(key)
        if name and os.path.lexists(os.path.join(dirpath, name)):
            new = "%s.interrupted-%d" % (name, k)
            os.replace(os.path.join(dirpath, name),
                       os.path.join(dirpath, new))
            setattr(entry, key, new)
    entry.status = step.status
    entry.exit_status = step.exit_status
    step.old_logs.append(entry)


def current_step_number(state):
    step = state.next_step()
    return step.number if step else "-"


def still_running(pid, dirpath):
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            return os.fsencode(dirpath) in f.read()
    except OSError:
        return False
