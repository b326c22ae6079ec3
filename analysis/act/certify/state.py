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
from act.certify.plan import BASE_NAME, MAX_U32, ONE_X_READS
from act.cli import UsageError
from act.safefile import (
    is_temporary, open_regular, private_dir_problem, user_text, write_file)


STATE_FORMAT = "act_certify/1"
STATE_NAME = "state.json"
STATE_LIMIT = 64 << 20          # bytes: a state.json is a few KiB per step
MAX_DEPTH = 16                  # nesting of a state.json (ours: 6 levels)


def state_path(dirpath):
    return os.path.join(dirpath, STATE_NAME)


def save_state(dirpath, state):
    """state.json replaced atomically (safefile.write_file: a temporary
    file, fsynced, renamed, then DIR fsynced - or a crash can leave the old
    state.json, and a finished step run again on --resume)."""
    write_file(dirpath, STATE_NAME, json.dumps(state, indent=1) + "\n",
               durable=True)


def load_state(dirpath):
    path = state_path(dirpath)
    try:
        with open_regular(path, STATE_LIMIT) as f:
            state = json.loads(f.read().decode("utf-8"))
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
    if not isinstance(state, dict) or state.get("format") != STATE_FORMAT:
        raise UsageError("%s is not an act_certify state file (%s)"
                         % (path, STATE_FORMAT), status=EXIT_SETUP)
    why = state_problem(state)
    if why:
        raise UsageError("%s is damaged: %s" % (path, why),
                         status=EXIT_SETUP)
    return state


# What act_certify reads of a state file: {key: type check}.
def _num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and \
        v == v and abs(v) != float("inf")


def _int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def _u32(v):
    """A count or length the C programs take: 0 to MAX_U32."""
    return _int(v) and 0 <= v <= MAX_U32


def _load(v):
    """A load in x per device: more than 0 and at most what one device's
    read-reqs-per-sec takes (the devices of each step: state_problem)."""
    return _num(v) and 0 < v <= MAX_U32 / ONE_X_READS


def _str(v):
    return isinstance(v, str)


def _opt(check):
    return lambda v: v is None or check(v)


def _list_of(check):
    return lambda v: isinstance(v, list) and all(check(x) for x in v)


def _dict(v):
    return isinstance(v, dict)


_TOP = {"status": lambda v: v in ("planned", "running", "interrupted",
                                  "error", "finished"),
        "command": _list_of(_str), "created_at": _opt(_str),
        "ended_at": _opt(_str), "host": _dict,
        "resumes": _list_of(_dict), "steps": _list_of(_dict),
        "campaign": _dict}
_CAMPAIGN = {"program": lambda v: v in ("act_storage", "act_index"),
             "program_path": _str, "program_version": _opt(_str),
             "base_config_path": _str, "devices": _list_of(_str),
             "device_kinds": _dict, "load": _load,
             "stress_factor": lambda v: _num(v) and 1 < v <= MAX_U32,
             "duration_sec": lambda v: _u32(v) and v >= 1,
             "ceiling": lambda v: isinstance(v, bool),
             "ladder": _list_of(_load), "prep": lambda v: isinstance(v, bool)}
_TOP_OPTIONAL = {"device_changes": _list_of(_dict)}
_CAMPAIGN_OPTIONAL = {"identities": lambda v: _dict(v) and all(
    _dict(x) for x in v.values()),
    "fail_fast": lambda v: isinstance(v, bool)}
_STEP = {"number": _int, "id": _str,
         "kind": lambda v: v in ("prep", "target", "stress", "ceiling"),
         "test": _opt(_int), "title": _str, "load": _opt(_load),
         "devices": _list_of(_str), "reads_per_sec": _u32,
         "writes_per_sec": _u32, "duration_sec": _u32,
         "slice_sec": lambda v: _u32(v) and v >= 1, "judge": _opt(_str),
         "same_run_as": _opt(_int),
         "status": lambda v: v in ("planned", "running", "ended", "done",
                                   "interrupted", "error", "skipped"),
         "result": _opt(_str), "exit_status": _opt(_int),
         "message": _opt(_str), "started_at": _opt(_str),
         "ended_at": _opt(_str), "old_logs": _list_of(_dict),
         "files": lambda v: isinstance(v, dict) and all(
             _str(x) for x in v.values())}
_STEP_OPTIONAL = {"pid": _opt(_int),
                  # the step's --set items, and the config the program
                  # echoes for them (--print-config; plan.py, precheck.py);
                  # a step planned by an older act_certify has neither
                  "set": _list_of(_str),
                  "config_echo": lambda v: _dict(v) and all(
                      _str(k) and _str(x) for k, x in v.items()),
                  "log_size": _opt(lambda v: _int(v) and v >= 0),
                  "stop": _opt(_str), "io_errors": _opt(_int),
                  "stopped_early": _opt(lambda v: (
                      isinstance(v, dict) and all(_int(v.get(k)) for k in (
                          "slice", "slices", "slice_sec", "end_sec",
                          "planned_sec")) and _list_of(
                              lambda x: isinstance(x, list) and len(x) == 4 and
                              _str(x[0]) and _num(x[1]) and _str(x[2]) and
                              _num(x[3]))(
                              v.get("over"))))}


def _bad(d, schema, where, optional=None):
    for key, ok in schema.items():
        if key not in d:
            return "%s has no %r" % (where, key)
        if not ok(d[key]):
            return "%s has a bad %r: %r" % (where, key, d[key])
    for key, ok in (optional or {}).items():
        if key in d and not ok(d[key]):
            return "%s has a bad %r: %r" % (where, key, d[key])
    return None


def state_problem(state):
    """What is wrong with a state file's contents (a key missing, a value
    of the wrong type), or None: every key act_certify reads is checked,
    so a damaged file is refused, not a traceback. Numbers are bounded as
    the command line bounds them (docs/certify.md, "Options"): a load whose
    reads/s on its devices act could not take is damage too."""
    if _depth(state) > MAX_DEPTH:
        return "it is nested deeper than %d levels" % MAX_DEPTH
    why = _bad(state, _TOP, "the state", _TOP_OPTIONAL) or \
        _bad(state["campaign"], _CAMPAIGN, "the campaign",
             _CAMPAIGN_OPTIONAL)
    if why:
        return why
    c = state["campaign"]
    n = max(1, len(c["devices"]))
    for what, load in [("load", c["load"]), ("stress load", c["load"] *
                                             c["stress_factor"])] + \
            [("ladder load", x) for x in c["ladder"]]:
        if not load * ONE_X_READS * n <= MAX_U32:
            return "the campaign's %s %r is more than act can run on %d " \
                "device%s (%d reads/s)" % (what, load, n,
                                           "" if n == 1 else "s", MAX_U32)
    if not state["steps"]:
        return "the state has no step"
    for i, s in enumerate(state["steps"]):
        where = "step %d" % (i + 1)
        why = _bad(s, _STEP, where, _STEP_OPTIONAL)
        if why:
            return why
        if s["load"] is not None and not s["load"] * ONE_X_READS * max(
                1, len(s["devices"])) <= MAX_U32:
            return "%s has a bad 'load': %r" % (where, s["load"])
        if (s["test"] is None) != (s["kind"] in ("prep", "ceiling")):
            return "%s has a bad 'test': %r" % (where, s["test"])
        if s["number"] != i + 1:
            return "%s is numbered %d" % (where, s["number"])
        if s["same_run_as"] is not None and not 1 <= s["same_run_as"] <= i:
            return "%s has a bad 'same_run_as': %r" % (where,
                                                        s["same_run_as"])
        need = ("log", "stderr") if s["same_run_as"] is None else ()
        need += ("plot",) if s["kind"] != "prep" else ()
        need += ("config",) if s["kind"] != "prep" and \
            s["same_run_as"] is None and "set" not in s else ()
        for key in need:
            if key not in s["files"]:
                return "%s has no %r file" % (where, key)
            if "/" in s["files"][key] or s["files"][key] in ("", ".", ".."):
                return "%s has a bad %r file: %r" % (where, key,
                                                     s["files"][key])
    return None


def _depth(doc):
    """How deeply doc nests (a scalar: 0), counted without recursion."""
    deepest = 0
    todo = [(doc, 1)]
    while todo:
        x, d = todo.pop()
        if isinstance(x, dict):
            x = list(x.values())
        elif not isinstance(x, list):
            continue
        deepest = max(deepest, d)
        if d <= MAX_DEPTH:
            todo += [(y, d + 1) for y in x]
    return deepest


LOCK_NAME = ".lock"
_STEP_CONFIG_RE = re.compile(r"^\d\d-[A-Za-z0-9.-]+\.conf$")


def setup_leftovers(dirpath):
    """The files an act_certify killed while it set up a campaign in
    dirpath left there - its lock, base.conf, step configs, temporary
    files; no state.json - or [] when dirpath holds anything else (or
    nothing, or no lock: not such a setup). A new campaign in dirpath
    removes them; --resume says so."""
    try:
        names = os.listdir(dirpath)
    except OSError:
        return []
    if LOCK_NAME not in names:
        return []
    for name in names:
        if name not in (LOCK_NAME, BASE_NAME) and \
                not _STEP_CONFIG_RE.match(name) and not is_temporary(name):
            return []
    return sorted(names)


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
    """An interrupted step's files: renamed <name>.interrupted-K, kept."""
    files = step.get("files", {})
    log = files.get("log")
    if not log or not any(os.path.lexists(os.path.join(dirpath, n)) for n in
                          (log, files.get("stderr")) if n):
        return
    k = len(step["old_logs"]) + 1
    while os.path.lexists(os.path.join(dirpath, "%s.interrupted-%d"
                                       % (log, k))):
        k += 1
    entry = {}
    for key in ("log", "stderr"):
        name = files.get(key)
        if name and os.path.lexists(os.path.join(dirpath, name)):
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
            return os.fsencode(dirpath) in f.read()
    except OSError:
        return False
