#!/usr/bin/env python3
"""Run a whole ACT certification campaign and report on it.

Usage::

    act_certify.py --device DEV [--device DEV]... --load N --out DIR
                   [--hours H | --seconds S] [--stress-factor F]
                   [--ceiling] [--ladder N,N,...] [--prep]
                   [--config BASE.conf] [--index] [--dry-run]
    act_certify.py --resume DIR
    act_certify.py --report DIR
    act_certify.py --help | --version

A campaign is the seed README's "Process for Certifying Device(s)":

- stage 1, on the first device: test 1 runs the target load (N x 2000
  reads/s and N x 1000 writes/s) and must meet the read criteria
  (act_latency.py --check); test 2 runs the stress load (--stress-factor x
  N, default 2) and must run to completion (act_latency.py --check
  --stress);
- stage 2, with more than one device: tests 3 and 4 repeat them on all
  devices together, at the same load per device;
- with --ceiling, once the target is certified, higher loads (the ladder)
  on all devices until one fails: the ceiling is the last load that
  passed.  The default ladder is 2 x N, then 1.5 times the previous rung
  (two significant digits), six rungs: 60, 90, 140, 210, 320, 480 for
  N = 30.  A rung at the stress load is judged from the last stress test's
  run (the same load, devices and duration) instead of running again.

The campaign stops at the first certification test that fails, and the
ladder at its first failing rung.  Every step's config, log, stderr and
plot are kept in DIR, with DIR/state.json (the plan and what finished),
and the reports: report.html (self-contained), summary.json and
summary.md.  --resume DIR continues an interrupted campaign: finished steps
are kept, the interrupted one runs again from the start (its old log is
renamed, not deleted).  --report DIR renders the reports again.

Exit status: 0 certified at the target load; 1 not certified (a criterion
failed or a run did not complete; with --report also: not finished); 2
setup error (a device missing or in use, a program or act_latency.py not
found, DIR not usable, a program's device/setup error or unwritable log,
act_prep failed); 64 usage error (the command line); 78 config error (the
base config is unreadable or a program refused it); 128+n stopped by
signal n (130 for Ctrl-C) - continue with --resume DIR.
"""

import argparse
import errno
import fcntl
import html
import json
import os
import re
import shutil
import signal
import socket
import stat
import subprocess
import sys
import time
from collections import deque

PROG = "act_certify.py"
VERSION = "6.7"                   # act's version (src/common/version.h)
STATE_FORMAT = "act_certify/1"

EXIT_CERTIFIED = 0
EXIT_NOT_CERTIFIED = 1
EXIT_SETUP = 2
EXIT_USAGE = 64                 # sysexits EX_USAGE
EXIT_CONFIG = 78                # sysexits EX_CONFIG

ONE_X_READS = 2000              # per device: the README's "1x"
ONE_X_WRITES = 1000
DEFAULT_HOURS = 24
DEFAULT_STRESS_FACTOR = 2.0
LADDER_RUNGS = 6                # default ladder: 2 x load, then x 1.5 ...
LADDER_STEP = 1.5
HOUR = 3600
PROGRESS_EVERY = 300            # seconds between plain progress lines
STOP_WAIT = 60                  # seconds a program gets to stop cleanly
OVERRIDDEN = ("device-names", "read-reqs-per-sec", "write-reqs-per-sec",
              "test-duration-sec")

# A program's exit status -> what it means (README, "Exit status").
PROGRAM_STATUS = {
    0: "ran to completion",
    1: "usage or config error",
    2: "device or setup error",
    3: "stopped: load not kept up or a hung I/O",
    4: "stopped by I/O errors",
    5: "the log could not be written",
}

_ITEM_RE = re.compile(r"^\s*([A-Za-z0-9_-]+)\s*:\s*(.*?)\s*$")
_AFTER_RE = re.compile(rb"^after (\d+) sec:")
_READS_RE = re.compile(rb"^reads \((\d+) total\)")
_BUCKET_RE = re.compile(rb"\((\d+): (\d+)\)")
_IDENTITY_RE = re.compile(r"^(.+?) model = (.*), serial = (.*), "
                          r"firmware = (.*)$")
_START_RE = re.compile(r"^start time = (\S+)$")
_DEVICE_RE = re.compile(r"^(.+?) size = (\d+) bytes(,|$)")
_LAST_AFTER_RE = re.compile(rb"\nafter (\d+) sec:\n")


class UserError(Exception):
    """A problem reported as one message on stderr and an exit status,
    never a traceback."""

    def __init__(self, message, status=EXIT_USAGE):
        super().__init__(message)
        self.status = status


# ---------------------------------------------------------------------------
# Small pure helpers: numbers, loads, durations.

def fmt_num(x):
    """30.0 -> '30', 2.5 -> '2.5'."""
    return "%g" % x


def fmt_load(x):
    return fmt_num(x) + "x"


def round2(x):
    """Two significant digits: 135 -> 140, 6.75 -> 6.8."""
    return float("%.2g" % x)


def default_ladder(load, rungs=LADDER_RUNGS):
    """2 x load, then each rung 1.5 times the one before, to two
    significant digits."""
    out = [round2(2 * load)]
    while len(out) < rungs:
        out.append(round2(out[-1] * LADDER_STEP))
    return out


def rates(load, n_devices):
    """(reads/s, writes/s) for a load in x per device on n devices."""
    return (int(round(load * ONE_X_READS * n_devices)),
            int(round(load * ONE_X_WRITES * n_devices)))


def fmt_duration(sec):
    """86400 -> '24 h', 4 -> '4 s', 345600 -> '4 d', 5400 -> '1 h 30 min'."""
    sec = int(round(sec))
    days = 0
    if sec >= 2 * 86400:
        days, sec = divmod(sec, 86400)
    hours, sec = divmod(sec, 3600)
    mins, sec = divmod(sec, 60)
    parts = ["%d %s" % (v, u) for v, u in ((days, "d"), (hours, "h"),
                                           (mins, "min"), (sec, "s")) if v]
    return " ".join(parts) or "0 s"


def fmt_clock(sec):
    """Seconds as [Nd ]HH:MM:SS."""
    sec = max(0, int(sec))
    days, sec = divmod(sec, 86400)
    text = "%02d:%02d:%02d" % (sec // 3600, sec // 60 % 60, sec % 60)
    return "%dd %s" % (days, text) if days else text


def slice_for(duration):
    """The analysis slice of a step: the criteria's hour, or for a run
    shorter than an hour about a tenth of it (a trial)."""
    return HOUR if duration >= HOUR else max(1, duration // 10)


def utc_now():
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def parse_positive(text, what):
    try:
        x = float(text)
    except ValueError:
        raise UserError("%s must be a number, not %r" % (what, text)) from None
    if not (x > 0) or x != x or x == float("inf"):
        raise UserError("%s must be more than 0, not %r" % (what, text))
    return x


def parse_ladder(text, load):
    loads = [parse_positive(t.strip(), "--ladder load")
             for t in text.split(",") if t.strip()]
    if not loads:
        raise UserError("--ladder needs loads, e.g. --ladder 40,60,80")
    if loads[0] <= load:
        raise UserError("--ladder loads must be above the target load %s"
                        % fmt_load(load))
    if any(b <= a for a, b in zip(loads, loads[1:])):
        raise UserError("--ladder loads must increase: %s" % text)
    return loads


# ---------------------------------------------------------------------------
# Command line.

class _ArgumentParser(argparse.ArgumentParser):
    def error(self, message):
        raise UserError(message)


def build_parser():
    p = _ArgumentParser(
        prog=PROG, formatter_class=argparse.RawDescriptionHelpFormatter,
        usage="%(prog)s --device DEV [--device DEV]... --load N --out DIR "
              "[options]\n       %(prog)s --resume DIR\n"
              "       %(prog)s --report DIR\n"
              "       %(prog)s --help | --version",
        description="Run the ACT certification process on a drive (or "
                    "several): the target load, the\nstress test, all "
                    "devices together, optionally the ceiling - then write\n"
                    "report.html, summary.json and summary.md in DIR. ALL "
                    "DATA ON THE DEVICES IS\nDESTROYED.",
        epilog="Loads are in x per device: Nx is N x 2000 reads/s and N x "
               "1000 writes/s per device.\nDefault ladder: 2 x the load, "
               "then 1.5 x the previous rung, six rungs\n(30 -> 60, 90, 140, "
               "210, 320, 480). --seconds is for trials: certify on 24-hour "
               "tests.\n\nexit status: 0 certified, 1 not certified, 2 "
               "setup error, 64 usage error,\n78 config error, 128+n "
               "stopped by signal n (130 Ctrl-C: continue with --resume "
               "DIR).")
    p.add_argument("--version", action="version",
                   version="%s %s" % (PROG, VERSION),
                   help="print the version and exit")
    p.add_argument("--device", dest="devices", action="append", default=[],
                   metavar="DEV", help="a device to certify (repeat for "
                   "several; the first one is stage 1's)")
    p.add_argument("--load", metavar="N", help="target load in x per "
                   "device (30 = 60000 reads/s, 30000 writes/s per device)")
    p.add_argument("--hours", metavar="H", help="length of each test "
                   "(default %d)" % DEFAULT_HOURS)
    p.add_argument("--seconds", metavar="S", help="length of each test in "
                   "seconds - for trials only, not a certification")
    p.add_argument("--stress-factor", metavar="F", help="stress load = F x "
                   "the load (default %g)" % DEFAULT_STRESS_FACTOR)
    p.add_argument("--ceiling", action="store_true", help="after the "
                   "target is certified, raise the load along the ladder "
                   "until a load fails")
    p.add_argument("--ladder", metavar="N,N,...", help="the ceiling's "
                   "loads (implies --ceiling)")
    p.add_argument("--prep", action="store_true", help="run act_prep on "
                   "every device first (clean, then salt)")
    p.add_argument("--config", metavar="BASE.conf", help="base config "
                   "(default: the example config act_storage.conf, or "
                   "act_index.conf with --index); act_certify sets "
                   "device-names, read-reqs-per-sec, write-reqs-per-sec "
                   "and test-duration-sec, every other item keeps its "
                   "value")
    p.add_argument("--index", action="store_true", help="certify with "
                   "act_index instead of act_storage")
    p.add_argument("--out", metavar="DIR", help="campaign directory (new "
                   "or empty)")
    p.add_argument("--dry-run", action="store_true", help="print the plan "
                   "and its total time; write nothing")
    p.add_argument("--resume", metavar="DIR", help="continue the "
                   "interrupted campaign in DIR")
    p.add_argument("--report", metavar="DIR", help="render the reports of "
                   "the campaign in DIR again")
    return p


def parse_args(argv):
    args = build_parser().parse_args(argv)
    plan_opts = [name for name, v in (
        ("--device", args.devices), ("--load", args.load),
        ("--hours", args.hours), ("--seconds", args.seconds),
        ("--stress-factor", args.stress_factor),
        ("--ceiling", args.ceiling), ("--ladder", args.ladder),
        ("--prep", args.prep), ("--config", args.config),
        ("--index", args.index), ("--out", args.out),
        ("--dry-run", args.dry_run)) if v]
    if args.resume is not None and args.report is not None:
        raise UserError("--resume and --report go alone")
    if args.resume is not None or args.report is not None:
        if plan_opts:
            raise UserError("%s takes no other option (the plan is in "
                            "DIR/state.json): remove %s"
                            % ("--resume" if args.resume else "--report",
                               ", ".join(plan_opts)))
        return args
    missing = [o for o, v in (("--device", args.devices),
                              ("--load", args.load), ("--out", args.out))
               if not v]
    if missing:
        raise UserError("missing %s (see --help)" % ", ".join(missing))
    args.load = parse_positive(args.load, "--load")
    if args.hours is not None and args.seconds is not None:
        raise UserError("--hours and --seconds: give one of them")
    if args.seconds is not None:
        try:
            args.duration = int(args.seconds)
        except ValueError:
            raise UserError("--seconds must be a whole number, not %r"
                            % args.seconds) from None
        if args.duration < 1:
            raise UserError("--seconds must be at least 1")
    else:
        hours = parse_positive(args.hours, "--hours") \
            if args.hours is not None else DEFAULT_HOURS
        args.duration = int(round(hours * HOUR))
        if args.duration < 1:
            raise UserError("--hours %s is under a second" % args.hours)
    args.stress_factor = DEFAULT_STRESS_FACTOR \
        if args.stress_factor is None \
        else parse_positive(args.stress_factor, "--stress-factor")
    if args.stress_factor <= 1:
        raise UserError("--stress-factor must be more than 1")
    if args.ladder is not None:
        args.ceiling = True
        args.ladder = parse_ladder(args.ladder, args.load)
    elif args.ceiling:
        args.ladder = default_ladder(args.load)
    else:
        args.ladder = []
    check_device_names(args.devices)
    for load in [args.load, args.load * args.stress_factor] + args.ladder:
        r, w = rates(load, 1)
        if r < 1 or w < 1:
            raise UserError("load %s is too small: under 1 write/s per "
                            "device" % fmt_load(load))
    return args


def check_device_names(devices):
    seen = {}
    for d in devices:
        if not d or re.search(r"[\s,#]", d):
            raise UserError("device name %r: must not be empty nor contain "
                            "white space, ',' or '#'" % d)
        real = os.path.realpath(d)
        if real in seen:
            raise UserError("device %s given twice (%s)" % (d, seen[real]))
        seen[real] = d


# ---------------------------------------------------------------------------
# Locating the programs and the example configs.

def script_dir():
    return os.path.dirname(os.path.realpath(os.path.abspath(__file__)))


def find_program(name):
    """A binary: $ACT_BIN, beside this script (installed), the source
    tree's target/bin, then PATH."""
    here = script_dir()
    dirs = [os.environ.get("ACT_BIN"), here,
            os.path.join(os.path.dirname(here), "target", "bin")]
    for d in dirs:
        if d:
            path = os.path.join(d, name)
            if os.path.isfile(path) and os.access(path, os.X_OK):
                return os.path.abspath(path)
    path = shutil.which(name)
    if path:
        return os.path.abspath(path)
    raise UserError("can't find %s (looked in $ACT_BIN, %s, %s/target/bin "
                    "and PATH) - run make" % (name, here,
                                              os.path.dirname(here)),
                    EXIT_SETUP)


def find_latency_script():
    path = os.path.join(script_dir(), "act_latency.py")
    if os.path.isfile(path):
        return path
    found = shutil.which("act_latency.py")
    if found:
        return found
    raise UserError("can't find act_latency.py beside %s or on PATH"
                    % script_dir(), EXIT_SETUP)


def find_base_config(index):
    name = "act_index.conf" if index else "act_storage.conf"
    here = script_dir()
    for d in (os.path.join(os.path.dirname(here), "config"),
              os.path.join(os.path.dirname(here), "share", "act", "config")):
        path = os.path.join(d, name)
        if os.path.isfile(path):
            return path
    raise UserError("can't find the example config %s (in ../config or "
                    "../share/act/config beside %s) - give --config"
                    % (name, here), EXIT_CONFIG)


def read_text(path, what, status):
    try:
        with open(path, encoding="utf-8", errors="surrogateescape") as f:
            return f.read()
    except OSError as e:
        raise UserError("can't read %s %s: %s" % (what, path,
                                                  e.strerror or e),
                        status) from None


# ---------------------------------------------------------------------------
# Configs.

def step_config(base_text, base_name, step):
    """The base config with the four items act_certify sets replaced (a
    comment says what they were); every other line kept as it is."""
    values = {"device-names": ",".join(step["devices"]),
              "read-reqs-per-sec": str(step["reads_per_sec"]),
              "write-reqs-per-sec": str(step["writes_per_sec"]),
              "test-duration-sec": str(step["duration_sec"])}
    out = ["# act_certify step %d: %s" % (step["number"], step["title"]),
           "# = %s with the items below set by act_certify"
           % base_name, ""]
    done = set()
    for line in base_text.splitlines():
        m = _ITEM_RE.match(line.split("#", 1)[0])
        name = m.group(1) if m else None
        if name in values:
            out.append("# act_certify: was %s" % line.strip())
            if name not in done:
                out.append("%s: %s" % (name, values[name]))
                done.add(name)
            continue
        out.append(line)
    missing = [n for n in OVERRIDDEN if n not in done]
    if missing:
        out += ["", "# set by act_certify"]
        out += ["%s: %s" % (n, values[n]) for n in missing]
    return "\n".join(out) + "\n"


def override_summary(step):
    return ("device-names: %s, read-reqs-per-sec: %d, write-reqs-per-sec: "
            "%d, test-duration-sec: %d" % (",".join(step["devices"]),
                                           step["reads_per_sec"],
                                           step["writes_per_sec"],
                                           step["duration_sec"]))


# ---------------------------------------------------------------------------
# The plan.

def plan_steps(devices, load, stress_factor, duration, ladder, prep):
    """The campaign's steps, in order (dicts, as kept in state.json)."""
    steps = []

    def add(kind, test, title, load_x, devs, same_run_as=None):
        n = len(steps) + 1
        r, w = rates(load_x, len(devs)) if load_x else (0, 0)
        slug = {"prep": "prep", "target": "test%d-target" % (test or 0),
                "stress": "test%d-stress" % (test or 0),
                "ceiling": "ceiling"}[kind]
        if load_x:
            slug += "-" + fmt_load(load_x)
        step = {"number": n, "id": "%02d-%s" % (n, slug), "kind": kind,
                "test": test, "title": title, "load": load_x,
                "devices": list(devs), "reads_per_sec": r,
                "writes_per_sec": w,
                "duration_sec": 0 if kind == "prep" or same_run_as
                else duration,
                "slice_sec": slice_for(duration),
                "judge": {"target": "criteria", "ceiling": "criteria",
                          "stress": "stress"}.get(kind),
                "same_run_as": same_run_as, "status": "planned",
                "result": None, "exit_status": None, "message": None,
                "started_at": None, "ended_at": None, "old_logs": []}
        steps.append(step)
        return step

    stress = load * stress_factor
    if prep:
        add("prep", None, "act_prep on every device (clean, then salt)",
            None, devices)
    first = devices[:1]
    add("target", 1, "test 1: the target load on one device", load, first)
    last_stress = add("stress", 2, "test 2: stress at %s x the load on one "
                      "device" % fmt_num(stress_factor), stress, first)
    if len(devices) > 1:
        add("target", 3, "test 3: the target load on the %d devices "
            "together" % len(devices), load, devices)
        last_stress = add("stress", 4, "test 4: stress at %s x the load on "
                          "the %d devices together"
                          % (fmt_num(stress_factor), len(devices)),
                          stress, devices)
    for rung in ladder:
        if abs(rung - stress) < 1e-9:
            add("ceiling", None, "ceiling: %s on %s, judged from step %d's "
                "run" % (fmt_load(rung), _n_devices(devices),
                         last_stress["number"]), rung, devices,
                same_run_as=last_stress["number"])
        else:
            add("ceiling", None, "ceiling: %s on %s"
                % (fmt_load(rung), _n_devices(devices)), rung, devices)
    for s in steps:
        base = s["id"]
        if s["same_run_as"]:
            s["files"] = {"plot": base + ".svg"}
        else:
            s["files"] = {"config": base + ".conf", "log": base + ".log",
                          "stderr": base + ".err", "plot": base + ".svg"}
        if s["kind"] == "prep":
            del s["files"]["config"]
            del s["files"]["plot"]
    return steps


def _n_devices(devices):
    return "1 device" if len(devices) == 1 else "%d devices" % len(devices)


def planned_seconds(steps):
    return sum(s["duration_sec"] for s in steps)


def plan_text(state, dirpath, dry_run):
    """The plan, for --dry-run and at the start of a campaign."""
    c = state["campaign"]
    lines = []
    lines.append("act_certify plan%s" % (" (dry run: nothing is written)"
                                         if dry_run else ""))
    lines.append("  program:     %s" % c["program_path"])
    lines.append("  base config: %s (every item but the four below keeps "
                 "its value)" % c["base_config_path"])
    lines.append("  devices:     %s   ALL DATA ON THEM IS DESTROYED"
                 % ", ".join(c["devices"]))
    r, w = rates(c["load"], 1)
    lines.append("  load:        %s = %d reads/s, %d writes/s per device; "
                 "stress load %s (%s x %s)" % (
                     fmt_load(c["load"]), r, w,
                     fmt_load(c["load"] * c["stress_factor"]),
                     fmt_num(c["stress_factor"]), fmt_load(c["load"])))
    lines.append("  each test:   %s%s" % (
        fmt_duration(c["duration_sec"]),
        "" if c["duration_sec"] >= 24 * HOUR else
        "  (shorter than 24 h: a trial, not a certification)"))
    if c["ceiling"]:
        lines.append("  ceiling:     ladder %s (stops at the first load that "
                     "fails)" % ", ".join(fmt_load(x) for x in c["ladder"]))
    lines.append("  directory:   %s%s" % (dirpath, " (not created)"
                                          if dry_run else ""))
    lines.append("")
    pad = " " * 9
    for s in state["steps"]:
        lines.append(("step %d" % s["number"]).ljust(9) + s["title"])
        if s["kind"] == "prep":
            lines.append(pad + "act_prep %s; time depends on the drives "
                         "(about 2 x capacity / write speed)"
                         % " ".join(s["devices"]))
            continue
        if s["same_run_as"]:
            lines.append(pad + "no new run: the read criteria on step "
                         "%d's log" % s["same_run_as"])
            continue
        lines.append(pad + "load %s on %s: %s" % (
            fmt_load(s["load"]), _n_devices(s["devices"]),
            ", ".join(s["devices"])))
        lines.append(pad + "config: %s" % override_summary(s))
        lines.append(pad + "%s; passes %s" % (
            fmt_duration(s["duration_sec"]),
            "if it meets the read criteria (act_latency.py --check)"
            if s["judge"] == "criteria" else
            "if it runs to completion (act_latency.py --check --stress)"))
    cert = [s for s in state["steps"] if s["kind"] != "ceiling"]
    ladder = [s for s in state["steps"] if s["kind"] == "ceiling"]
    lines.append("")
    tests = len([s for s in cert if s["kind"] != "prep"])
    total = "total: %s for the certification (%d test%s)" % (
        fmt_duration(planned_seconds(cert)), tests,
        "" if tests == 1 else "s")
    if ladder:
        runs = len([s for s in ladder if not s["same_run_as"]])
        total += ", at most %s more for the ceiling (%d run%s; the ladder " \
            "stops at the first load that fails)" % (
                fmt_duration(planned_seconds(ladder)), runs,
                "" if runs == 1 else "s")
    if any(s["kind"] == "prep" for s in cert):
        total += ", plus act_prep"
    lines.append(total)
    return "\n".join(lines)


# ---------------------------------------------------------------------------
# Devices: exist, and are not in use (as the programs check them).

def mount_users(dev):
    """Where /proc/self/mounts and /proc/swaps use dev or one of its
    partitions (best effort, for the message)."""
    real = os.path.realpath(dev)
    part = re.compile(re.escape(real) + r"p?\d+")
    found = []
    for path, fmt in (("/proc/self/mounts", "%s mounted on %s"),
                      ("/proc/swaps", "%s used as swap")):
        try:
            with open(path) as f:
                for line in f:
                    parts = line.split()
                    if not parts or not parts[0].startswith("/"):
                        continue
                    r = os.path.realpath(parts[0])
                    if r == real or part.fullmatch(r):
                        found.append(fmt % tuple(parts[:fmt.count("%s")]))
        except OSError:
            pass
    return found


class _Held:
    """The devices this campaign holds: {device name: descriptor}, kept
    open from the checks to the end of the campaign (between steps too)
    and passed to every program it runs (ACT_HELD_FDS, docs/beyond.md)."""
    fds = {}


def _proc_name(pid):
    """A process's program, for messages: its comm, or for an interpreter
    the script it runs (act_certify.py is a Python script)."""
    try:
        with open("/proc/%d/comm" % pid) as f:
            comm = f.read().strip()
    except OSError:
        return "pid %d" % pid
    if re.match(r"^(python[0-9.]*|perl|ruby|sh|bash|dash)$", comm):
        try:
            with open("/proc/%d/cmdline" % pid, "rb") as f:
                args = f.read().split(b"\0")
            for a in args[1:]:
                if a and not a.startswith(b"-"):
                    comm = os.path.basename(os.fsdecode(a))
                    break
        except OSError:
            pass
    return "%s (pid %d)" % (comm, pid)


def device_holders(st):
    """Who else has the device of stat st: for a file, the flock holder in
    /proc/locks; for a block device, every process with it open (best
    effort, for the message)."""
    pids = []
    me = os.getpid()
    if stat.S_ISREG(st.st_mode):
        key = "%02x:%02x:%d" % (os.major(st.st_dev), os.minor(st.st_dev),
                                st.st_ino)
        try:
            with open("/proc/locks") as f:
                for line in f:
                    w = line.split()
                    if len(w) >= 6 and w[1] == "FLOCK" and \
                            w[5].lower() == key and w[4].isdigit():
                        pids.append(int(w[4]))
        except OSError:
            pass
    else:
        for pid in sorted(int(p) for p in os.listdir("/proc")
                          if p.isdigit()):
            if pid == me:
                continue
            fddir = "/proc/%d/fd" % pid
            try:
                for fd in os.listdir(fddir):
                    try:
                        s = os.stat(os.path.join(fddir, fd))
                    except OSError:
                        continue
                    if stat.S_ISBLK(s.st_mode) and s.st_rdev == st.st_rdev:
                        pids.append(pid)
                        break
            except OSError:
                continue
    return [_proc_name(p) for p in dict.fromkeys(pids) if p != me]


def _same_device(a, b):
    if stat.S_ISBLK(a.st_mode) and stat.S_ISBLK(b.st_mode):
        return a.st_rdev == b.st_rdev
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino) and \
        stat.S_ISREG(a.st_mode) and stat.S_ISREG(b.st_mode)


def hold_devices(devices):
    """Every device exists, is a block device or a regular file, and is
    taken exclusively - a block device opened O_EXCL (EBUSY: mounted, swap,
    held by md/LVM/dm or by another test), a file locked with flock - and
    kept so until the campaign ends: no other test can start on it, even
    between two steps. Nothing is written. Returns {device: fd}; on a
    refusal every descriptor taken so far is closed."""
    held = {}
    stats = {}
    try:
        for dev in devices:
            _hold_one(dev, held, stats)
    except BaseException:
        release_devices(held)
        raise
    return held


def _hold_one(dev, held, stats):
    try:
        st = os.stat(dev)
        if stat.S_ISBLK(st.st_mode) or stat.S_ISREG(st.st_mode):
            fd = os.open(dev, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK)
            st = os.fstat(fd)
            os.close(fd)
    except FileNotFoundError:
        raise UserError("device %s does not exist - check the name (a "
                        "file-backed trial device must be created "
                        "first, e.g. act_prep --size 1G FILE)" % dev,
                        EXIT_SETUP) from None
    except OSError as e:
        raise UserError("can't use device %s: %s" % (dev, e.strerror),
                        EXIT_SETUP) from None
    for other, ost in stats.items():
        if _same_device(st, ost):
            raise UserError("devices %s and %s are the same drive - name "
                            "each drive once" % (other, dev), EXIT_SETUP)
    if stat.S_ISBLK(st.st_mode):
        try:
            fd = os.open(dev, os.O_RDONLY | os.O_EXCL | os.O_CLOEXEC)
        except OSError as e:
            if e.errno != errno.EBUSY:
                raise UserError("can't open device %s: %s"
                                % (dev, e.strerror), EXIT_SETUP) from None
            users = mount_users(dev)
            holders = device_holders(st)
            if holders and not users:
                raise UserError(_held_by_test(dev, holders), EXIT_SETUP) \
                    from None
            raise UserError("device %s is in use (%s) - refusing to write "
                            "to it" % (dev, "; ".join(users) if users else
                                       "mounted, swap, or held by "
                                       "md/LVM/dm"), EXIT_SETUP) from None
    elif stat.S_ISREG(st.st_mode):
        if st.st_mode & 0o222 == 0:
            raise UserError("device file %s is read-only - the test "
                            "writes to it" % dev, EXIT_SETUP)
        fd = os.open(dev, os.O_RDONLY | os.O_CLOEXEC)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise UserError(_held_by_test(dev, device_holders(st)),
                            EXIT_SETUP) from None
    else:
        raise UserError("device %s is neither a block device nor a "
                        "regular file" % dev, EXIT_SETUP)
    if not _same_device(os.fstat(fd), st):
        os.close(fd)
        raise UserError("device %s changed while it was being checked - "
                        "refusing to write to it" % dev, EXIT_SETUP)
    held[dev] = fd
    stats[dev] = st


def _held_by_test(dev, holders):
    """The refusal of a device another test holds, worded as the programs
    word it (HOLDER_TWO_TESTS, src/common/holder.h)."""
    return ("device %s is in use by %s - another test is running on it; "
            "two tests on one drive double its load and spoil both logs"
            % (dev, ", ".join(holders) if holders else "another process"))


def release_devices(held):
    for fd in held.values():
        try:
            os.close(fd)
        except OSError:
            pass
    held.clear()


def held_env():
    """The environment and descriptors for a program run on the held
    devices (the ACT_HELD_FDS protocol, docs/beyond.md)."""
    fds = sorted(_Held.fds.values())
    env = dict(os.environ)
    if fds:
        env["ACT_HELD_FDS"] = ",".join(str(fd) for fd in fds)
    else:
        env.pop("ACT_HELD_FDS", None)
    return env, tuple(fds)


# ---------------------------------------------------------------------------
# Host identity, gathered at the campaign's start.

def _first_line_with(path, key, sep=":"):
    """The value of the first line of path that starts with key."""
    try:
        with open(path, errors="replace") as f:
            for line in f:
                if line.startswith(key) and sep in line:
                    return line.split(sep, 1)[1].strip().strip('"')
    except OSError:
        pass
    return None


def host_identity():
    u = os.uname()
    cpu = (_first_line_with("/proc/cpuinfo", "model name") or
           _first_line_with("/proc/cpuinfo", "Hardware") or
           _first_line_with("/proc/cpuinfo", "cpu model") or u.machine)
    mem = _first_line_with("/proc/meminfo", "MemTotal")
    try:
        mem_bytes = int(mem.split()[0]) * 1024 if mem else None
    except ValueError:
        mem_bytes = None
    return {"hostname": socket.gethostname() or u.nodename,
            "kernel": "%s %s" % (u.sysname, u.release),
            "kernel_version": u.version, "machine": u.machine,
            "os": _first_line_with("/etc/os-release", "PRETTY_NAME=", "="),
            "cpu_model": cpu, "cpus": os.cpu_count(),
            "memory_bytes": mem_bytes}


def fmt_bytes(n):
    if n is None:
        return "unknown"
    for unit, size in (("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20),
                       ("KiB", 1 << 10)):
        if n >= size:
            return "%.1f %s" % (n / size, unit)
    return "%d bytes" % n


def program_version(path):
    try:
        r = subprocess.run([path, "--version"], stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, timeout=10,
                           universal_newlines=True)
        return r.stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        return None


# ---------------------------------------------------------------------------
# The state file.

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
        raise UserError("%s has no campaign (no state.json)" % dirpath,
                        EXIT_SETUP) from None
    except (OSError, ValueError) as e:
        raise UserError("can't read %s: %s" % (path, getattr(
            e, "strerror", None) or e), EXIT_SETUP) from None
    if not isinstance(state, dict) or state.get("format") != STATE_FORMAT:
        raise UserError("%s is not an act_certify state file (%s)"
                        % (path, STATE_FORMAT), EXIT_SETUP)
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
        raise UserError("another act_certify is running the campaign in %s"
                        % dirpath, EXIT_SETUP) from None
    return fd


# ---------------------------------------------------------------------------
# Reading logs: identity lines, the last report, the live reads figure.

def log_identity(path):
    """({device: {model, serial, firmware}}, {device: size}, start time)
    from a log's header."""
    ident, sizes, start = {}, {}, None
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            for n, line in enumerate(f):
                line = line.rstrip("\n")
                if line == "HISTOGRAM NAMES" or n > 100000:
                    break
                m = _IDENTITY_RE.match(line)
                if m:
                    ident[m.group(1)] = {"model": m.group(2),
                                         "serial": m.group(3),
                                         "firmware": m.group(4)}
                    continue
                m = _START_RE.match(line)
                if m:
                    start = m.group(1)
                    continue
                m = _DEVICE_RE.match(line)
                if m:
                    sizes[m.group(1)] = int(m.group(2))
    except OSError:
        pass
    return ident, sizes, start


def log_last_report(path):
    """The seconds of the last 'after N sec:' line (0 if none)."""
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            size = f.tell()
            f.seek(max(0, size - (1 << 20)))
            data = b"\n" + f.read()
    except OSError:
        return 0
    found = _LAST_AFTER_RE.findall(data)
    return int(found[-1]) if found else 0


def log_errors(path, limit=3):
    """The log's last ERROR: / stopped lines."""
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(0, f.tell() - (1 << 16)))
            text = f.read().decode("utf-8", "replace")
    except OSError:
        return []
    found = [l for l in text.split("\n")
             if l.startswith("ERROR:") or l.startswith("stopped by signal")]
    return found[-limit:]


class LogFollower:
    """Follows a growing log: the cumulative count of reads and of reads
    over 1 ms (1024 us in a microsecond log) at each report."""

    def __init__(self, path):
        self.path = path
        self.pos = 0
        self.partial = b""
        self.micro = False
        self.sec = None
        self.reads = None           # [total, over] of the report being read
        self.points = deque()       # (sec, total, over)

    def poll(self):
        try:
            with open(self.path, "rb") as f:
                f.seek(self.pos)
                data = f.read(1 << 22)
                self.pos = f.tell()
        except OSError:
            return
        lines = (self.partial + data).split(b"\n")
        self.partial = lines.pop()
        for line in lines:
            self._line(line)

    def _line(self, line):
        if self.reads is not None:
            if line.startswith(b" ("):
                top = 10 if self.micro else 0
                self.reads[1] += sum(int(c) for b, c in
                                     _BUCKET_RE.findall(line)
                                     if int(b) > top)
                return
            self.points.append((self.sec, self.reads[0], self.reads[1]))
            self.reads = None
        if line.startswith(b"microsecond-histograms:"):
            self.micro = line.split(b":", 1)[1].strip() in (b"yes", b"y",
                                                            b"true")
            return
        m = _AFTER_RE.match(line)
        if m:
            self.sec = int(m.group(1))
            return
        m = _READS_RE.match(line)
        if m and self.sec is not None:
            self.reads = [int(m.group(1)), 0]

    def window(self, seconds):
        """(% of reads over 1 ms, seconds covered) over the last `seconds`
        of reports (since the start when the run is shorter), or None."""
        if not self.points:
            return None
        last = self.points[-1]
        cut = last[0] - seconds
        while len(self.points) > 1 and self.points[1][0] <= cut:
            self.points.popleft()
        base = self.points[0] if self.points[0][0] <= cut else (0, 0, 0)
        total = last[1] - base[1]
        if total <= 0:
            return None
        return 100.0 * (last[2] - base[2]) / total, last[0] - base[0]


# ---------------------------------------------------------------------------
# Analysis: act_latency.py on a step's log.

def run_latency(tools, argv, timeout=600):
    try:
        r = subprocess.run([sys.executable, tools["latency"]] + argv,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           universal_newlines=True, errors="replace",
                           timeout=timeout, stdin=subprocess.DEVNULL,
                           start_new_session=True)
    except subprocess.TimeoutExpired:
        return 2, "", "act_latency.py timed out"
    except OSError as e:
        return 2, "", "can't run act_latency.py: %s" % (e.strerror or e)
    return r.returncode, r.stdout, r.stderr


def table_part(text):
    """act_latency.py's output without the command line and config echo:
    from the table on."""
    lines = text.split("\n")
    try:
        i = lines.index("HISTOGRAM NAMES")
    except ValueError:
        return text.strip("\n")
    while i < len(lines) and lines[i] != "":
        i += 1
    return "\n".join(lines[i:]).strip("\n")


def analyse_log(tools, log, slice_sec, stress, plot=None):
    """act_latency.py's verdict (JSON), table and plot for one log. Returns
    a dict: doc (the JSON document or None), table, svg, error, notes,
    slice_sec, histograms."""
    out = {"doc": None, "table": None, "svg": None, "error": None,
           "notes": [], "slice_sec": slice_sec, "histograms": ["reads"]}
    if not os.path.isfile(log):
        out["error"] = "no log"
        return out
    mode = ["--check"] + (["--stress"] if stress else [])

    def hargs():
        return [a for h in out["histograms"] for a in ("-h", h)]

    def json_run():
        return run_latency(tools, ["-l", log, "-t", str(out["slice_sec"])] +
                           hargs() + mode + ["--json"])

    rc, so, se = json_run()
    if rc == 2 and "could not find" in se:
        last = log_last_report(log)
        if 0 < last < out["slice_sec"]:
            out["slice_sec"] = max(1, last // 10)
            out["notes"].append("the run ended before one %d-second slice: "
                                "analysed in %d-second slices"
                                % (slice_sec, out["slice_sec"]))
            rc, so, se = json_run()
    if rc not in (0, 1):
        out["error"] = _latency_error(se)
        return out
    try:
        doc = json.loads(so)
    except ValueError:
        out["error"] = "act_latency.py printed no JSON"
        return out
    extra = (doc.get("check") or {}).get("not_analysed") or []
    if extra:
        out["histograms"] += [h for h in extra if h not in out["histograms"]]
        rc, so, se = json_run()
        try:
            doc = json.loads(so) if rc in (0, 1) else doc
        except ValueError:
            pass
    out["doc"] = doc
    argv = ["-l", log, "-t", str(out["slice_sec"]), "-x"] + hargs() + mode
    if plot:
        argv += ["--plot", plot]
    rc, so, se = run_latency(tools, argv)
    if rc in (0, 1):
        out["table"] = table_part(so)
        if plot:
            try:
                with open(plot, encoding="utf-8", errors="replace") as f:
                    out["svg"] = f.read()
            except OSError:
                pass
    return out


def _latency_error(stderr):
    lines = [l for l in stderr.strip().split("\n") if l]
    return " / ".join(l.replace("act_latency.py: ", "") for l in lines[:2]) \
        or "act_latency.py failed"


# ---------------------------------------------------------------------------
# Judging steps and the campaign (pure: from the state and the analyses).

RESULT_PASS, RESULT_FAIL, RESULT_INCOMPLETE = "PASS", "FAIL", "INCOMPLETE"


def judge_step(step, analysis):
    """(result, reason) of a step that ran: PASS, FAIL or INCOMPLETE."""
    rc = step.get("exit_status")
    if step["kind"] == "prep":
        return (RESULT_PASS, None) if rc == 0 else \
            (RESULT_FAIL, "act_prep exit status %s" % rc)
    doc = analysis.get("doc") if analysis else None
    check = (doc or {}).get("check") or {}
    result = check.get("result")
    if doc is None or result is None:
        errors = [e[len("ERROR: "):] if e.startswith("ERROR: ") else e
                  for e in (analysis or {}).get("log_errors", [])]
        why = errors[-1] if errors else (analysis or {}).get("error") or \
            "the log could not be analysed"
        if rc not in (None, 0):
            why = "exit status %s (%s): %s" % (
                rc, PROGRAM_STATUS.get(rc, "stopped"), why)
        return RESULT_INCOMPLETE, why
    if not doc.get("complete"):
        return RESULT_INCOMPLETE, "did not complete: %s" % (
            doc.get("stop_reason") or "ran %s of %s sec" % (
                doc.get("ran_sec"), doc.get("planned_sec")))
    if rc not in (None, 0):
        return RESULT_INCOMPLETE, "exit status %s (%s)" % (
            rc, PROGRAM_STATUS.get(rc, "stopped"))
    if result == RESULT_PASS:
        return RESULT_PASS, None
    failed = [r for r in check.get("results", []) if not r.get("pass")]
    return RESULT_FAIL, "; ".join(criterion_text(r) for r in failed) or \
        "the criteria were not met"


def criterion_text(r):
    return "%s %.2f%% over %s (must be under %s%%)" % (
        r.get("histogram"), r.get("max_pct") or 0.0, r.get("threshold"),
        fmt_num(r.get("limit_pct") or 0))


def step_short(step):
    if step["kind"] == "prep":
        return "act_prep"
    what = "test %d" % step["test"] if step["test"] else "ceiling rung"
    return "%s (%s on %s)" % (what, fmt_load(step["load"]),
                              _n_devices(step["devices"]))


def skip_reason(steps, step):
    """Why a step is not needed, given the steps before it (or None)."""
    for s in steps:
        if s is step:
            break
        if s["kind"] != "ceiling" and s["status"] == "done" and \
                s["result"] != RESULT_PASS:
            return "not run: %s did not pass" % step_short(s)
        if s["kind"] == "ceiling" and step["kind"] == "ceiling" and \
                s["status"] == "done" and s["result"] != RESULT_PASS:
            return "not run: the ladder stopped at %s" % fmt_load(s["load"])
    return None


PENDING_TEXT = {"planned": "has not run yet", "running": "is running",
                "interrupted": "was interrupted",
                "error": "stopped with an error"}


def campaign_verdict(state):
    """The campaign's verdict from its steps: dict with status
    (certified, not certified, unfinished), certified, ceiling, text,
    reasons, exit_status."""
    c = state["campaign"]
    steps = state["steps"]
    target = fmt_load(c["load"])
    cert = [s for s in steps if s["kind"] in ("target", "stress")]
    v = {"load": c["load"], "certified": None, "ceiling": None,
         "ceiling_exceeds_ladder": False, "reasons": [],
         "trial": c["duration_sec"] < 24 * HOUR}
    failed = [s for s in steps if s["kind"] != "ceiling" and
              s["status"] == "done" and s["result"] != RESULT_PASS]
    if failed:
        s = failed[0]
        v.update(status="not certified", certified=False,
                 exit_status=EXIT_NOT_CERTIFIED)
        v["text"] = "not certified at %s: %s %s" % (
            target, step_short(s), "failed" if s["result"] == RESULT_FAIL
            else "did not complete")
        v["reasons"].append("%s: %s" % (step_short(s), s.get("message") or
                                        s["result"]))
        if s["kind"] != "prep" and s["test"] in (3, 4) and all(
                x["result"] == RESULT_PASS for x in cert if x["test"] in
                (1, 2)):
            v["reasons"].append("the first device alone passed tests 1 "
                                "and 2: the devices together did not hold "
                                "the same load per device")
        return v
    if not cert or any(s["status"] != "done" for s in cert):
        pending = [s for s in steps if s["status"] not in ("done",
                                                           "skipped")]
        v.update(status="unfinished", exit_status=EXIT_NOT_CERTIFIED)
        v["text"] = "not finished: %s" % (
            "step %d, %s, %s" % (pending[0]["number"],
                                 step_short(pending[0]),
                                 PENDING_TEXT.get(pending[0]["status"],
                                                  pending[0]["status"]))
            if pending else "no test ran")
        return v
    v.update(status="certified", certified=True, exit_status=EXIT_CERTIFIED)
    v["text"] = "certified at %s" % target
    rungs = [s for s in steps if s["kind"] == "ceiling"]
    if c["ceiling"]:
        passed = c["load"]
        done = True
        failed_rung = None
        for s in rungs:
            if s["status"] == "skipped":
                continue
            if s["status"] != "done":
                done = False
                break
            if s["result"] == RESULT_PASS:
                passed = s["load"]
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
        else:
            v["ceiling"] = passed
            v["text"] += "; ceiling: %s" % fmt_load(passed)
            v["reasons"].append("the ladder stopped at %s (step %d): %s" % (
                fmt_load(failed_rung["load"]), failed_rung["number"],
                failed_rung.get("message") or failed_rung["result"]))
    return v


HOST_LIMIT = ("more service-threads", "more cache-threads",
              "the host, not the drive")


def host_limited(steps):
    """Steps whose run stopped because the host, not the drive, could not
    keep the load (act's lag diagnosis)."""
    return [s for s in steps if s["status"] == "done" and
            any(h in (s.get("message") or "") for h in HOST_LIMIT)]


# ---------------------------------------------------------------------------
# Progress on stderr.

class Progress:
    """A live line on a terminal; plain lines otherwise (step start, every
    PROGRESS_EVERY seconds)."""

    def __init__(self, stream=None):
        self.stream = stream or sys.stderr
        try:
            self.tty = self.stream.isatty()
        except (OSError, ValueError):
            self.tty = False
        self.shown = False
        self.last_plain = 0.0
        self.dead = False

    def _write(self, text):
        if self.dead:
            return
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):
            self.dead = True        # e.g. the terminal went away (SIGHUP)

    def clear(self):
        if self.shown:
            self._write("\r\x1b[K")
            self.shown = False

    def line(self, text):
        """A plain line on stderr (after clearing the live line)."""
        self.clear()
        self._write(text + "\n")

    def step_started(self, step, total):
        self.last_plain = time.monotonic()
        if not self.tty:
            self.line("%s: step %d/%d started: %s" % (PROG, step["number"],
                                                     total, step["title"]))

    def tick(self, step, total, elapsed, follower, left):
        pct = follower.window(step["slice_sec"]) if follower else None
        dur = step["duration_sec"]
        text = "[%d/%d] %s  %s/%s  left %s" % (
            step["number"], total, progress_label(step), fmt_clock(elapsed),
            fmt_clock(dur) if dur else "?",
            fmt_clock(left) if left is not None else "?")
        if pct is not None:
            text += "  reads>1ms %.2f%% (last %s)" % (pct[0],
                                                     fmt_duration(pct[1]))
        if self.tty:
            width = shutil.get_terminal_size((100, 20)).columns - 1
            self._write("\r\x1b[K" + text[:max(20, width)])
            self.shown = True
        elif time.monotonic() - self.last_plain >= PROGRESS_EVERY:
            self.last_plain = time.monotonic()
            self.line("%s: %s" % (PROG, text))


def progress_label(step):
    """'test 3 30x x4', 'ceiling 60x', 'act_prep'."""
    if step["kind"] == "prep":
        return "act_prep"
    text = "test %d %s" % (step["test"], fmt_load(step["load"])) \
        if step["test"] else "ceiling %s" % fmt_load(step["load"])
    n = len(step["devices"])
    return text + (" x%d devices" % n if n > 1 else "")


def say(text=""):
    """A line on stdout (quietly dropped when stdout is gone)."""
    try:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()
    except (OSError, ValueError):
        pass


def warn(text):
    try:
        sys.stderr.write("%s: %s\n" % (PROG, text))
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


# ---------------------------------------------------------------------------
# Signals: stop the running program cleanly, then the campaign.

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


# ---------------------------------------------------------------------------
# Running the campaign.

def remaining_seconds(steps, current, elapsed):
    left = max(0, current["duration_sec"] - elapsed) if current else 0
    after = False
    for s in steps:
        if s is current:
            after = True
            continue
        if (after or current is None) and s["status"] not in ("done",
                                                              "skipped"):
            left += s["duration_sec"]
    return left


def run_program(argv, log_path, err_path, step, steps, progress, save):
    """Runs one program with its stdout to log_path, its stderr to
    err_path; returns its exit status (128+n for a signal) - or raises
    UserError when it can't start. save() records the step (with the
    program's pid) once it runs."""
    global _PRCTL
    if _PRCTL is None:
        _PRCTL = _prctl()
    try:
        with open(log_path, "wb") as log, open(err_path, "wb") as err:
            env, fds = held_env()
            proc = subprocess.Popen(argv, stdout=log, stderr=err,
                                    stdin=subprocess.DEVNULL, env=env,
                                    pass_fds=fds, preexec_fn=_child_setup)
    except OSError as e:
        raise UserError("can't run %s: %s" % (argv[0], e.strerror or e),
                        EXIT_SETUP) from None
    _Stop.child = proc
    step["pid"] = proc.pid
    save()
    if _Stop.signum is not None:
        _on_signal(_Stop.signum, None)
    follower = LogFollower(log_path) if step["kind"] != "prep" else None
    t0 = time.monotonic()
    stop_sent = None
    total = len(steps)
    while True:
        try:
            proc.wait(timeout=1.0)
            break
        except subprocess.TimeoutExpired:
            pass
        if _Stop.signum is not None:
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
        elapsed = time.monotonic() - t0
        progress.tick(step, total, elapsed, follower,
                      remaining_seconds(steps, step, elapsed))
    _Stop.child = None
    step.pop("pid", None)
    rc = proc.returncode
    return 128 - rc if rc < 0 else rc


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


def execute_step(dirpath, state, step, tools, progress, cache):
    """Runs (or judges) one step; updates it. Returns None to go on, or
    the campaign's exit status to stop with."""
    steps = state["steps"]
    if step["same_run_as"]:
        src = steps[step["same_run_as"] - 1]
        step.update(status="done", exit_status=src["exit_status"],
                    started_at=utc_now(), ended_at=utc_now())
        a = step_analysis(dirpath, state, step, tools, cache)
        step["result"], step["message"] = judge_step(step, a)
        save_state(dirpath, state)
        return None
    if step["status"] in ("running", "interrupted", "error"):
        rename_old_log(dirpath, step)
    files = step["files"]
    log = os.path.join(dirpath, files["log"])
    err = os.path.join(dirpath, files["stderr"])
    if step["kind"] == "prep":
        argv = [tools["act_prep"]] + step["devices"]
    else:
        argv = [tools["program"], os.path.join(dirpath, files["config"])]
    step.update(status="running", result=None, exit_status=None,
                message=None, started_at=utc_now(), ended_at=None)
    save_state(dirpath, state)
    progress.step_started(step, len(steps))
    rc = run_program(argv, log, err, step, steps, progress,
                     lambda: save_state(dirpath, state))
    progress.clear()
    step["exit_status"] = rc
    step["ended_at"] = utc_now()
    prog = os.path.basename(argv[0])
    if rc >= 128:
        signum = _Stop.signum or (rc - 128)
        step.update(status="interrupted", message="stopped by signal %s"
                    % _signame(rc - 128))
        state["status"] = "interrupted"
        save_state(dirpath, state)
        return 128 + signum
    if rc in (1, 2, 5) or (step["kind"] == "prep" and rc != 0):
        detail = _first_error(err, log)
        step.update(status="error", message="%s exit status %d (%s)%s" % (
            prog, rc, PROGRAM_STATUS.get(rc, "failed"),
            ": " + detail if detail else ""))
        state["status"] = "error"
        save_state(dirpath, state)
        warn("step %d: %s" % (step["number"], step["message"]))
        return EXIT_CONFIG if rc == 1 and step["kind"] != "prep" \
            else EXIT_SETUP
    step["status"] = "done"
    a = step_analysis(dirpath, state, step, tools, cache)
    if a.get("error") and rc == 0 and step["kind"] != "prep":
        step.update(status="error", message="can't analyse the log: %s"
                    % a["error"])
        state["status"] = "error"
        save_state(dirpath, state)
        warn("step %d: %s" % (step["number"], step["message"]))
        return EXIT_SETUP
    step["result"], step["message"] = judge_step(step, a)
    save_state(dirpath, state)
    return None


def _signame(n):
    try:
        return signal.Signals(n).name
    except ValueError:
        return str(n)


def _first_error(err_path, log_path):
    """The first ERROR: line of the program's stderr or log, else the last
    line of its stderr."""
    last = ""
    for path in (err_path, log_path):
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                for line in f:
                    if line.startswith("ERROR:"):
                        return line.strip()
                    if path == err_path and line.strip():
                        last = line.strip()
        except OSError:
            pass
    return last


def step_line(step):
    """One line for a finished step, on stdout."""
    if step["status"] == "skipped":
        return "step %d %s: skipped (%s)" % (step["number"],
                                             step_short(step),
                                             step["message"])
    text = "step %d %s: %s" % (step["number"], step_short(step),
                               step["result"] or step["status"])
    if step["message"]:
        text += " - " + step["message"]
    return text


def run_campaign(dirpath, state, tools, progress):
    """Runs every step still to do; writes the reports; returns the exit
    status."""
    cache = {}
    status = None
    state["status"] = "running"
    save_state(dirpath, state)
    for step in state["steps"]:
        if step["status"] in ("done", "skipped"):
            continue
        if _Stop.signum is not None:
            state["status"] = "interrupted"
            status = 128 + _Stop.signum
            break
        why = skip_reason(state["steps"], step)
        if why:
            step.update(status="skipped", message=why)
            save_state(dirpath, state)
            say(step_line(step))
            continue
        status = execute_step(dirpath, state, step, tools, progress, cache)
        if step["status"] == "done":
            say(step_line(step))
        if status is not None:
            break
        write_reports(dirpath, state, tools, cache)
    if status is None and _Stop.signum is not None and \
            any(s["status"] not in ("done", "skipped")
                for s in state["steps"]):
        status = 128 + _Stop.signum
        state["status"] = "interrupted"
    if status is None:
        state["status"] = "finished"
        state["ended_at"] = utc_now()
    save_state(dirpath, state)
    write_reports(dirpath, state, tools, cache)
    v = campaign_verdict(state)
    say("")
    if status is not None and status >= 128:
        say("%s: interrupted (signal %s) at step %s - finished steps are "
            "kept; to continue (the interrupted step runs again from its "
            "start):" % (PROG, _signame(status - 128),
                         _current_step_number(state)))
        say("  %s --resume %s" % (_self_command(), dirpath))
    elif status == EXIT_CONFIG:
        say("%s: stopped: the program refused the config (exit status %d) "
            "- fix the base config and start a new campaign (or fix the "
            "step configs in %s and continue with --resume %s)"
            % (PROG, status, dirpath, dirpath))
    elif status is not None:
        say("%s: stopped by an error (exit status %d); fix it, then "
            "continue with:" % (PROG, status))
        say("  %s --resume %s" % (_self_command(), dirpath))
    else:
        say("verdict: %s" % v["text"])
        for r in v["reasons"]:
            say("  " + r)
    say("report: %s" % os.path.join(dirpath, "report.html"))
    return v["exit_status"] if status is None else status


def _current_step_number(state):
    for s in state["steps"]:
        if s["status"] not in ("done", "skipped"):
            return s["number"]
    return "-"


def _self_command():
    path = os.path.abspath(sys.argv[0]) if sys.argv and sys.argv[0] else \
        "act_certify.py"
    found = shutil.which(os.path.basename(path))
    return os.path.basename(path) if found and os.path.realpath(found) == \
        os.path.realpath(path) else path


# ---------------------------------------------------------------------------
# Reports: summary.json, summary.md and report.html, from state and logs.

def step_analysis(dirpath, state, step, tools, cache):
    """act_latency.py's analysis of a step's log (cached per log size)."""
    if step["kind"] == "prep" or step["status"] in ("planned", "skipped"):
        return {}
    src = state["steps"][step["same_run_as"] - 1] if step["same_run_as"] \
        else step
    log = os.path.join(dirpath, src["files"]["log"])
    try:
        st = os.stat(log)
        key = (step["number"], st.st_size, st.st_mtime_ns)
    except OSError:
        key = (step["number"], None, None)
    if key in cache:
        return cache[key]
    plot = os.path.join(dirpath, step["files"]["plot"])
    a = analyse_log(tools, log, step["slice_sec"],
                    step["judge"] == "stress", plot)
    a["log_errors"] = log_errors(log)
    if step["status"] == "done":
        cache[key] = a
    return a


def step_summary(dirpath, state, step, tools, cache):
    a = step_analysis(dirpath, state, step, tools, cache)
    doc = a.get("doc") or {}
    check = doc.get("check") or {}
    src = state["steps"][step["same_run_as"] - 1] if step["same_run_as"] \
        else step
    log = os.path.join(dirpath, src["files"].get("log", ""))
    ident, sizes, start = log_identity(log) if src["files"].get("log") \
        else ({}, {}, None)
    result = step["result"]
    if step["status"] in ("interrupted", "error", "running", "planned",
                          "skipped"):
        result = step["status"].upper() if step["status"] != "planned" \
            else "NOT RUN"
    return {
        "number": step["number"], "id": step["id"], "kind": step["kind"],
        "test": step["test"], "title": step["title"], "load": step["load"],
        "load_text": fmt_load(step["load"]) if step["load"] else None,
        "devices": step["devices"], "reads_per_sec": step["reads_per_sec"],
        "writes_per_sec": step["writes_per_sec"],
        "duration_sec": step["duration_sec"] or
        (src["duration_sec"] if step["same_run_as"] else 0),
        "slice_sec": a.get("slice_sec", step["slice_sec"]),
        "judged_by": step["judge"], "same_run_as": step["same_run_as"],
        "status": step["status"], "result": result,
        "message": step["message"], "exit_status": step["exit_status"],
        "exit_meaning": PROGRAM_STATUS.get(step["exit_status"]) if
        step["exit_status"] is not None and step["exit_status"] < 128
        else (("stopped by signal %s" % _signame(step["exit_status"] - 128))
              if step["exit_status"] else None),
        "complete": doc.get("complete"), "planned_sec":
        doc.get("planned_sec"), "ran_sec": doc.get("ran_sec"),
        "stop_reason": doc.get("stop_reason"),
        "criteria": [{k: r.get(k) for k in ("histogram", "threshold",
                                            "limit_pct", "max_pct", "pass")}
                     for r in check.get("results", [])],
        "criteria_for_information": bool(check.get("stress")),
        "check_result": check.get("result"),
        "rates": {h["name"]: h.get("avg", {}).get("rate")
                  for h in doc.get("histograms", [])},
        "start_time": start, "started_at": step["started_at"],
        "ended_at": step["ended_at"], "identity": ident, "sizes": sizes,
        "analysis_error": a.get("error"), "notes": a.get("notes", []),
        "latency_table": a.get("table"), "svg": a.get("svg"),
        "files": {k: v for k, v in src["files"].items()
                  if k != "plot"} if not step["same_run_as"]
        else {"log": src["files"]["log"]},
        "plot": step["files"].get("plot") if a.get("svg") else None,
        "old_logs": step["old_logs"],
    }


def rejudge(dirpath, state, tools, cache):
    """Judges every finished test again from its log (what --report
    promises); returns warnings for results that changed or logs that
    can't be analysed now. The state is changed in memory only."""
    warnings = []
    for st in state["steps"]:
        if st["kind"] == "prep" or st["status"] != "done":
            continue
        a = step_analysis(dirpath, state, st, tools, cache)
        if a.get("doc") is None and st["exit_status"] == 0:
            warnings.append("step %d: its log can't be analysed now (%s); "
                            "its recorded result is shown"
                            % (st["number"], a.get("error")))
            continue
        result, message = judge_step(st, a)
        if result != st["result"]:
            warnings.append("step %d: judged %s from its log now, was %s "
                            "when it ran" % (st["number"], result,
                                             st["result"]))
        st["result"], st["message"] = result, message
    return warnings


def build_summary(dirpath, state, tools, cache):
    c = state["campaign"]
    warnings = rejudge(dirpath, state, tools, cache)
    steps = [step_summary(dirpath, state, s, tools, cache)
             for s in state["steps"]]
    drives = {}
    sizes = {}
    for s in steps:
        for dev, ident in s["identity"].items():
            if dev in drives and drives[dev] != ident:
                warnings.append("device %s reported a different identity in "
                                "step %d - was the drive changed?"
                                % (dev, s["number"]))
            drives.setdefault(dev, ident)
        sizes.update(s["sizes"])
    drive_list = []
    for dev in c["devices"]:
        ident = drives.get(dev)
        drive_list.append({
            "device": dev, "kind": "block" if ident else
            ("file" if c["device_kinds"].get(dev) == "file" else "unknown"),
            "model": ident["model"] if ident else None,
            "serial": ident["serial"] if ident else None,
            "firmware": ident["firmware"] if ident else None,
            "size_bytes": sizes.get(dev)})
    verdict = campaign_verdict(state)
    for st in host_limited(state["steps"]):
        warnings.append("step %d stopped because the host could not keep the "
                        "load, not the drive: raise service-threads (or "
                        "cache-threads) in the base config and run it again"
                        % st["number"])
    starts = [s["start_time"] for s in steps if s["start_time"]]
    for r in state.get("resumes", []):
        if r.get("host", {}).get("hostname") != state["host"]["hostname"]:
            warnings.append("resumed on another host (%s)"
                            % r["host"].get("hostname"))
    return {
        "format": "act_certify_summary/1",
        "verdict": verdict,
        "warnings": warnings,
        "campaign": {
            "directory": os.path.abspath(dirpath),
            "status": state["status"], "program": c["program"],
            "program_version": c.get("program_version"),
            "base_config": c["base_config_path"],
            "devices": c["devices"], "load": c["load"],
            "load_text": fmt_load(c["load"]),
            "reads_per_sec_per_device": rates(c["load"], 1)[0],
            "writes_per_sec_per_device": rates(c["load"], 1)[1],
            "stress_factor": c["stress_factor"],
            "step_duration_sec": c["duration_sec"],
            "ceiling": c["ceiling"], "ladder": c["ladder"],
            "prep": c["prep"], "command": state.get("command"),
            "created_at": state.get("created_at"),
            "ended_at": state.get("ended_at"),
            "first_test_start": min(starts) if starts else None,
            "last_test_start": max(starts) if starts else None,
            "resumes": [r.get("at") for r in state.get("resumes", [])],
        },
        "drives": drive_list,
        "host": state["host"],
        "steps": steps,
        "generated_at": utc_now(),
    }


def write_reports(dirpath, state, tools, cache):
    s = build_summary(dirpath, state, tools, cache)
    doc = dict(s)
    doc["steps"] = [{k: v for k, v in st.items() if k != "svg"}
                    for st in s["steps"]]
    for name, text in (("summary.json", json.dumps(doc, indent=1) + "\n"),
                       ("summary.md", render_markdown(s)),
                       ("report.html", render_html(s))):
        path = os.path.join(dirpath, name)
        try:
            with open(path + ".tmp", "w", encoding="utf-8",
                      errors="replace") as f:
                f.write(text)
            os.replace(path + ".tmp", path)
        except OSError as e:
            warn("can't write %s: %s" % (path, e.strerror or e))
    return s


def _criteria_cell(step):
    if not step["criteria"]:
        return "-"
    return " / ".join("%.2f" % (r["max_pct"] or 0) for r in step["criteria"]
                      if r["histogram"] == "reads")


def _drive_text(d):
    if d["kind"] == "block":
        return "model %s, serial %s, firmware %s" % (d["model"], d["serial"],
                                                     d["firmware"])
    if d["kind"] == "file":
        return "a file (a trial device: no drive identity)"
    return "identity not known yet"


def _host_text(h):
    return "%s - %s, %s, %s x %s, %s memory" % (
        h.get("hostname"), h.get("os") or "?", h.get("kernel"),
        h.get("cpus"), h.get("cpu_model"), fmt_bytes(h.get("memory_bytes")))


def _ran_text(step):
    if step["ran_sec"] is None:
        return "-"
    return "%s of %s" % (fmt_duration(step["ran_sec"]),
                         fmt_duration(step["planned_sec"] or 0))


def render_markdown(s):
    v = s["verdict"]
    c = s["campaign"]
    out = ["# act certification: %s" % v["text"], ""]
    for r in v["reasons"]:
        out.append("- %s" % r)
    if v["trial"]:
        out.append("- trial: tests of %s - certify on 24-hour tests"
                   % fmt_duration(c["step_duration_sec"]))
    for w in s["warnings"]:
        out.append("- **warning:** %s" % w)
    out.append("")
    out.append("- **Load:** %s = %d reads/s and %d writes/s per device; "
               "stress load %s (%s x); tests of %s" % (
                   c["load_text"], c["reads_per_sec_per_device"],
                   c["writes_per_sec_per_device"],
                   fmt_load(c["load"] * c["stress_factor"]),
                   fmt_num(c["stress_factor"]),
                   fmt_duration(c["step_duration_sec"])))
    for d in s["drives"]:
        out.append("- **Drive** `%s` (%s): %s" % (
            d["device"], fmt_bytes(d["size_bytes"]), _drive_text(d)))
    out.append("- **Host:** %s" % _host_text(s["host"]))
    out.append("- **Program:** %s, base config `%s`"
               % (c["program_version"] or c["program"], c["base_config"]))
    out.append("- **Dates (UTC):** first test started %s, campaign %s"
               % (c["first_test_start"] or "-", "ended " + c["ended_at"]
                  if c["ended_at"] else c["status"]))
    out.append("")
    out.append("| step | what | load | devices | ran | result | reads max "
               "% over 1 / 8 / 64 ms |")
    out.append("|---|---|---|---|---|---|---|")
    for st in s["steps"]:
        out.append("| %d | %s | %s | %d | %s | %s | %s |" % (
            st["number"], _md(step_short_summary(st)),
            st["load_text"] or "-", len(st["devices"]), _ran_text(st),
            st["result"] or "-", _criteria_cell(st)))
    out.append("")
    out.append("Report: `%s`" % os.path.join(c["directory"], "report.html"))
    return "\n".join(out) + "\n"


def _md(text):
    return text.replace("|", "\\|")


def step_short_summary(st):
    if st["kind"] == "prep":
        return "act_prep"
    if st["kind"] == "ceiling":
        return "ceiling rung" + (" (step %d's run)" % st["same_run_as"]
                                 if st["same_run_as"] else "")
    return "test %d: %s" % (st["test"], "target" if st["kind"] == "target"
                            else "stress")


_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;
margin:0 auto;max-width:1100px;padding:16px 24px;color:#222;
line-height:1.4}
h1{font-size:22px;margin:8px 0}
h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #ddd}
h3{font-size:16px;margin:20px 0 6px}
.verdict{padding:14px 18px;border-radius:6px;font-size:24px;
font-weight:bold;margin:12px 0}
.ok{background:#e6f4ea;border:2px solid #2ca02c;color:#17601a}
.bad{background:#fdecea;border:2px solid #d62728;color:#8b1a1a}
.open{background:#fff4e0;border:2px solid #e08a00;color:#7a4a00}
.reasons{font-size:15px;font-weight:normal;margin:6px 0 0;color:#333}
table{border-collapse:collapse;margin:6px 0}
th,td{border:1px solid #ccc;padding:3px 8px;text-align:left;
vertical-align:top;font-size:14px}
th{background:#f3f3f3}
td.num{text-align:right}
.PASS{color:#17601a;font-weight:bold}
.FAIL,.INCOMPLETE,.ERROR{color:#b01c1c;font-weight:bold}
.INTERRUPTED,.RUNNING,.NOT{color:#7a4a00;font-weight:bold}
.SKIPPED{color:#777}
pre{background:#f8f8f8;border:1px solid #e2e2e2;padding:8px;
overflow-x:auto;font-size:12px;line-height:1.25}
.step{border-top:2px solid #ccc;margin-top:24px}
.muted{color:#666;font-size:13px}
svg{max-width:100%;height:auto}
"""


def _e(x):
    return html.escape("" if x is None else str(x))


def _result_span(result):
    r = result or "-"
    return '<span class="%s">%s</span>' % (_e(r.split()[0]), _e(r))


def _svg_inline(svg):
    if not svg:
        return ""
    i = svg.find("<svg")
    return svg[i:] if i >= 0 else ""


def render_html(s):
    v = s["verdict"]
    c = s["campaign"]
    cls = {"certified": "ok", "not certified": "bad"}.get(v["status"],
                                                            "open")
    h = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
         "<title>act certification: %s</title>" % _e(v["text"]),
         "<style>%s</style></head><body>" % _CSS]
    h.append("<h1>act certification</h1>")
    h.append('<div class="verdict %s" id="verdict">%s' % (cls,
                                                          _e(v["text"])))
    extra = list(v["reasons"])
    if v["trial"]:
        extra.append("a trial: tests of %s - certify on 24-hour tests"
                     % fmt_duration(c["step_duration_sec"]))
    extra += ["warning: " + w for w in s["warnings"]]
    if extra:
        h.append('<div class="reasons">%s</div>'
                 % "".join("<div>%s</div>" % _e(x) for x in extra))
    h.append("</div>")
    h.append('<p class="muted">Load %s = %d reads/s and %d writes/s per '
             "device; stress load %s; each test %s. %s</p>" % (
                 _e(c["load_text"]), c["reads_per_sec_per_device"],
                 c["writes_per_sec_per_device"], _e("%s (%s x)" % (
                     fmt_load(c["load"] * c["stress_factor"]),
                     fmt_num(c["stress_factor"]))),
                 _e(fmt_duration(c["step_duration_sec"])),
                 "Ceiling ladder: " + _e(", ".join(fmt_load(x) for x in
                                                   c["ladder"])) + "."
                 if c["ceiling"] else ""))

    h.append("<h2>Drives</h2><table><tr><th>device</th><th>model</th>"
             "<th>serial</th><th>firmware</th><th>size</th></tr>")
    for d in s["drives"]:
        if d["kind"] == "block":
            cells = [d["model"], d["serial"], d["firmware"]]
        else:
            cells = [_drive_text(d), "-", "-"]
        h.append("<tr><td>%s</td>%s<td>%s</td></tr>" % (
            _e(d["device"]), "".join("<td>%s</td>" % _e(x) for x in cells),
            _e(fmt_bytes(d["size_bytes"]))))
    h.append("</table>")

    host = s["host"]
    h.append("<h2>Host</h2><table>")
    for k, val in (("hostname", host.get("hostname")),
                   ("operating system", host.get("os")),
                   ("kernel", "%s (%s)" % (host.get("kernel"),
                                           host.get("kernel_version"))),
                   ("CPU", "%s x %s" % (host.get("cpus"),
                                        host.get("cpu_model"))),
                   ("memory", fmt_bytes(host.get("memory_bytes")))):
        h.append("<tr><th>%s</th><td>%s</td></tr>" % (_e(k), _e(val)))
    h.append("</table>")

    h.append("<h2>Campaign</h2><table>")
    for k, val in (("program", c["program_version"] or c["program"]),
                   ("base config", c["base_config"]),
                   ("devices", ", ".join(c["devices"])),
                   ("directory", c["directory"]),
                   ("command", " ".join(c["command"] or [])),
                   ("campaign created (UTC)", c["created_at"]),
                   ("first test started (UTC, log)", c["first_test_start"]),
                   ("last test started (UTC, log)", c["last_test_start"]),
                   ("campaign ended (UTC)", c["ended_at"] or c["status"]),
                   ("resumed", ", ".join(c["resumes"]) or "no")):
        h.append("<tr><th>%s</th><td>%s</td></tr>" % (_e(k), _e(val)))
    h.append("</table>")

    h.append('<h2>Steps</h2><table id="steps"><tr><th>step</th><th>what'
             "</th><th>load</th><th>devices</th><th>reads/s</th>"
             "<th>writes/s</th><th>ran</th><th>completed</th><th>result"
             "</th><th>reads max % over 1 / 8 / 64 ms</th></tr>")
    for st in s["steps"]:
        h.append('<tr data-step="%d"><td class="num">%d</td><td>%s</td>'
                 "<td>%s</td><td class=\"num\">%d</td><td class=\"num\">%s"
                 "</td><td class=\"num\">%s</td><td>%s</td><td>%s</td>"
                 "<td>%s</td><td>%s</td></tr>" % (
                     st["number"], st["number"],
                     _e(step_short_summary(st)), _e(st["load_text"] or "-"),
                     len(st["devices"]), st["reads_per_sec"] or "-",
                     st["writes_per_sec"] or "-", _e(_ran_text(st)),
                     _e({True: "yes", False: "no"}.get(st["complete"], "-")),
                     _result_span(st["result"]), _e(_criteria_cell(st))))
    h.append("</table>")

    for st in s["steps"]:
        h.append(render_step_html(st))
    h.append('<p class="muted">Generated by act_certify at %s UTC from %s '
             "(state.json and the step logs); <code>act_certify --report "
             "DIR</code> renders it again.</p>"
             % (_e(s["generated_at"]), _e(c["directory"])))
    h.append("</body></html>")
    return "\n".join(h) + "\n"


def render_step_html(st):
    h = ['<div class="step" id="step-%d">' % st["number"]]
    h.append("<h3>Step %d: %s - %s</h3>" % (st["number"], _e(st["title"]),
                                            _result_span(st["result"])))
    facts = []
    if st["load"]:
        facts.append(("load", "%s: %d reads/s, %d writes/s in all" % (
            st["load_text"], st["reads_per_sec"], st["writes_per_sec"])))
    facts.append(("devices", ", ".join(st["devices"])))
    if st["kind"] != "prep":
        facts.append(("duration", fmt_duration(st["duration_sec"])))
        facts.append(("judged by", "the read criteria (act_latency.py "
                      "--check)" if st["judged_by"] == "criteria" else
                      "completion (act_latency.py --check --stress)"))
    if st["same_run_as"]:
        facts.append(("run", "the run of step %d (same load, devices and "
                      "duration)" % st["same_run_as"]))
    if st["start_time"]:
        facts.append(("started (UTC, log)", st["start_time"]))
    if st["ran_sec"] is not None:
        facts.append(("completion", "complete" if st["complete"] else
                      "INCOMPLETE - %s (%s ran)" % (st["stop_reason"] or
                                                    "stopped", _ran_text(st))))
    if st["exit_status"] is not None:
        facts.append(("exit status", "%s (%s)" % (st["exit_status"],
                                                  st["exit_meaning"])))
    if st["message"]:
        facts.append(("note", st["message"]))
    if st["analysis_error"]:
        facts.append(("analysis", st["analysis_error"]))
    for n in st["notes"]:
        facts.append(("analysis", n))
    files = dict(st["files"])
    for k, old in enumerate(st["old_logs"]):
        files["earlier log %d" % (k + 1)] = old.get("log")
    if files:
        facts.append(("files", ", ".join("%s: %s" % (k, v)
                                         for k, v in files.items() if v)))
    h.append("<table>")
    for k, val in facts:
        h.append("<tr><th>%s</th><td>%s</td></tr>" % (_e(k), _e(val)))
    h.append("</table>")
    if st["criteria"]:
        h.append("<table class=\"criteria\"><tr><th>criterion%s</th>"
                 "<th>max</th><th>limit</th><th></th></tr>"
                 % (" (for information: a stress test passes when it "
                    "completes)" if st["criteria_for_information"] else ""))
        for r in st["criteria"]:
            res = "PASS" if r["pass"] else "FAIL"
            h.append("<tr><td>%s over %s</td><td class=\"num\">%.2f%%</td>"
                     "<td class=\"num\">under %s%%</td><td>%s</td></tr>" % (
                         _e(r["histogram"]), _e(r["threshold"]),
                         r["max_pct"] or 0, _e(fmt_num(r["limit_pct"] or 0)),
                         _result_span(res)))
        h.append("</table>")
    if st["latency_table"]:
        h.append("<pre>%s</pre>" % _e(st["latency_table"]))
    if st["svg"]:
        h.append('<div class="plot">%s</div>' % _svg_inline(st["svg"]))
    h.append("</div>")
    return "\n".join(h)


# ---------------------------------------------------------------------------
# The three entry points.

def new_campaign(args):
    program = "act_index" if args.index else "act_storage"
    tools = {"program": find_program(program),
             "latency": find_latency_script()}
    if args.prep:
        tools["act_prep"] = find_program("act_prep")
    base_path = os.path.abspath(args.config) if args.config \
        else find_base_config(args.index)
    base_text = read_text(base_path, "the base config", EXIT_CONFIG)
    devices = [os.path.abspath(d) if not d.startswith("/") else d
               for d in args.devices]
    _Held.fds = hold_devices(devices)
    dirpath = os.path.abspath(args.out)
    steps = plan_steps(devices, args.load, args.stress_factor, args.duration,
                       args.ladder, args.prep)
    state = {
        "format": STATE_FORMAT, "status": "planned",
        "command": [PROG] + list(args.argv),
        "created_at": None, "ended_at": None,
        "campaign": {
            "program": program, "program_path": tools["program"],
            "program_version": None, "base_config_path": base_path,
            "devices": devices, "device_kinds": {
                d: "block" if stat.S_ISBLK(os.stat(d).st_mode) else "file"
                for d in devices},
            "load": args.load, "stress_factor": args.stress_factor,
            "duration_sec": args.duration, "ceiling": args.ceiling,
            "ladder": args.ladder, "prep": args.prep},
        "host": None, "resumes": [], "steps": steps,
    }
    if args.dry_run:
        release_devices(_Held.fds)
        say(plan_text(state, dirpath, True))
        return 0
    if os.path.exists(state_path(dirpath)):
        raise UserError("%s already holds a campaign: continue it with "
                        "--resume %s, or render it with --report %s"
                        % (dirpath, dirpath, dirpath))
    if os.path.exists(dirpath) and (not os.path.isdir(dirpath) or
                                    os.listdir(dirpath)):
        raise UserError("%s exists and is not an empty directory" % dirpath,
                        EXIT_SETUP)
    install_signal_handlers()
    try:
        os.makedirs(dirpath, exist_ok=True)
        lock = lock_dir(dirpath)
        with open(os.path.join(dirpath, "base.conf"), "w",
                  encoding="utf-8", errors="surrogateescape") as f:
            f.write(base_text)
        for s in steps:
            if "config" in s["files"]:
                with open(os.path.join(dirpath, s["files"]["config"]), "w",
                          encoding="utf-8", errors="surrogateescape") as f:
                    f.write(step_config(base_text, base_path, s))
        state["host"] = host_identity()
        state["campaign"]["program_version"] = program_version(
            tools["program"])
        state["created_at"] = utc_now()
        save_state(dirpath, state)
    except OSError as e:
        raise UserError("can't set up %s: %s" % (dirpath, e.strerror or e),
                        EXIT_SETUP) from None
    say(plan_text(state, dirpath, False))
    say("")
    try:
        return run_campaign(dirpath, state, tools, Progress())
    finally:
        os.close(lock)


def resume_campaign(dirpath):
    dirpath = os.path.abspath(dirpath)
    state = load_state(dirpath)
    c = state["campaign"]
    tools = {"program": find_program(c["program"]),
             "latency": find_latency_script()}
    if c.get("prep"):
        tools["act_prep"] = find_program("act_prep")
    lock = lock_dir(dirpath)
    try:
        if state["status"] == "finished":
            write_reports(dirpath, state, tools, {})
            v = campaign_verdict(state)
            say("%s: the campaign in %s has finished - nothing to resume"
                % (PROG, dirpath))
            say("verdict: %s" % v["text"])
            say("report: %s" % os.path.join(dirpath, "report.html"))
            return v["exit_status"]
        for s in state["steps"]:
            pid = s.get("pid")
            if s["status"] == "running" and pid and _still_running(
                    pid, dirpath):
                raise UserError("step %d's program is still running (pid "
                                "%d) - stop it first" % (s["number"], pid),
                                EXIT_SETUP)
        _Held.fds = hold_devices(c["devices"])
        state.setdefault("resumes", []).append({"at": utc_now(),
                                                "host": host_identity()})
        todo = [s for s in state["steps"] if s["status"] not in ("done",
                                                                 "skipped")]
        say("%s: resuming the campaign in %s at step %d of %d (%d finished "
            "step%s kept)" % (PROG, dirpath, todo[0]["number"] if todo else 0,
                              len(state["steps"]),
                              len(state["steps"]) - len(todo),
                              "" if len(state["steps"]) - len(todo) == 1
                              else "s"))
        install_signal_handlers()
        return run_campaign(dirpath, state, tools, Progress())
    finally:
        os.close(lock)


def _still_running(pid, dirpath):
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            return dirpath.encode() in f.read()
    except OSError:
        return False


def report_campaign(dirpath):
    dirpath = os.path.abspath(dirpath)
    state = load_state(dirpath)
    tools = {"latency": find_latency_script()}
    s = write_reports(dirpath, state, tools, {})
    say("verdict: %s" % s["verdict"]["text"])
    for name in ("report.html", "summary.json", "summary.md"):
        say("%s: %s" % (name, os.path.join(dirpath, name)))
    return s["verdict"]["exit_status"]


def main(argv=None):
    if argv is None:
        argv = sys.argv[1:]
    try:
        args = parse_args(argv)
        args.argv = argv
        if args.resume is not None:
            return resume_campaign(args.resume)
        if args.report is not None:
            return report_campaign(args.report)
        return new_campaign(args)
    except UserError as e:
        warn("error: %s" % e)
        return e.status
    except OSError as e:
        warn("error: %s%s" % (e.strerror or e, " (%s)" % e.filename
                              if e.filename else ""))
        return EXIT_SETUP
    except KeyboardInterrupt:
        warn("interrupted - no test was started")
        return 130


if __name__ == "__main__":
    sys.exit(main())
