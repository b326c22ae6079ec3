"""Run a whole ACT certification campaign and report on it.

Usage::

    act_certify.py --device DEV [--device DEV]... --load N --out DIR
                   [--hours H | --seconds S] [--stress-factor F]
                   [--ceiling] [--ladder N,N,...] [--prep]
                   [--config BASE.conf] [--index] [--no-fail-fast]
                   [--dry-run] [--detach] [--metrics PATH]
    act_certify.py --resume DIR [--accept-device NEW=OLD]... [--detach]
                   [--metrics PATH]
    act_certify.py --report DIR [--metrics PATH] | --status DIR
    act_certify.py --compare DIR [DIR ...] [--out OUTDIR]
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
ladder at its first failing rung.  A test judged on the criteria stops
at its first slice over a limit (fail fast; --no-fail-fast runs it to
its end); every planned stream (reads, large-block writes and reads,
act_index's cache writes) is checked against its plan: a test whose load
the host did not issue is NOT JUDGED, one whose drive could not take it
FAIL (certify/failfast.py, act/latency/load.py).  Every step runs the
program on DIR/base.conf (a copy of the base config) with the four items
it sets given as --set NAME=VALUE: the C program reads and checks them
as it does the file's (certify/precheck.py asks it, with --check
--print-config, before anything starts).  Every step's log, stderr and
plot are kept in DIR, with DIR/state.json (the plan, each step's --set
items and config echo, and what finished), and the reports: report.html
(self-contained), summary.json and summary.md.  --resume DIR continues an interrupted campaign: finished
steps are kept, the interrupted one runs again from the start (its old
log is renamed, not deleted).  --report DIR renders the reports again.
--compare DIR... puts several campaigns side by side (certify/compare.py).
--detach runs the campaign (new or resumed) away from the session, in a
transient systemd unit or a double-forked process, and returns at once;
--status DIR says where a campaign is (certify/detach.py).

Each device's identity (identity.py) is recorded when the campaign starts
and checked before every step and at --resume: a device that is not the
drive recorded - or has no identity recorded (a state from an older
act_certify) - is refused (status 2) before anything is written, unless
--resume --accept-device NEW=OLD says that NEW replaces the recorded OLD
(NEW may be OLD's own name); the report says so.

Exit status: 0 certified at the target load; 3 every test passed but
the drive failed I/Os within io-error-limit ("certified with I/O errors",
with drive health warnings too); 4 every test passed but a drive
reported health problems ("certified with drive health warnings");
1 not certified (a criterion
failed, the drive could not take the load, a run did not complete, a
test was INVALID or NOT JUDGED; with --report also: not finished); 2 setup error (a device missing or in use, a
program not found, DIR not usable, a program's device/setup error -
also from its --check before the campaign starts - or unwritable log,
act_prep failed); 64 usage error (the
command line); 78 config error (the base config is unreadable, its
report-interval-sec does not divide 3600, or a program refused it, by
--check before the campaign starts or when run); 128+n
stopped by
signal n (130 for Ctrl-C) - continue with --resume DIR.
"""

import argparse
import os
import stat
import sys

from act import EXIT_SETUP, VERSION
from act.certify import EXIT_CONFIG, EXIT_USAGE, PROG
from act.certify.publish import compare_main, write_reports
from act.certify.devices import (
    Held, check_device_names, check_identities, hold_devices, identities_now,
    release_devices)
from act.certify.fmt import say, utc_now, warn
from act.certify.host import host_identity, program_version
from act.certify.judge import campaign_verdict
from act.certify.layout import (
    find_base_config, find_program, read_text)
from act.certify.plan import (
    BASE_NAME, DEFAULT_HOURS, DEFAULT_STRESS_FACTOR, HOUR, check_duration,
    check_loads, default_ladder, parse_ladder, parse_positive, plan_steps,
    plan_text)
from act.certify.precheck import (
    busy_reason, check_campaign, check_new_campaign)
from act.certify.replace import (
    accept_devices, check_accept, mark_devices, rename_devices)
from act.certify.cells import headline
from act.certify.runner import install_signal_handlers, run_campaign
from act.certify.watch import Progress
from act.cli import ArgumentParser, UsageError
from act.certify.threads import service_threads, thread_warnings
from act.certify.model import STATE_FORMAT, Campaign, Resume, State
from act.certify.state import (
    LOCK_NAME, campaign_names, check_private_dir, load_state, lock_dir,
    save_state,
    setup_leftovers, state_path, still_running, unlock_dir)
from act.certify.detach import detach_main, status_main
from act.safefile import remove_stale, write_file


HELP_WIDTH = 80                 # --help fits 80 columns, whatever the terminal


def _help_formatter(prog):
    return argparse.RawDescriptionHelpFormatter(prog, width=HELP_WIDTH - 1)


def build_parser():
    p = ArgumentParser(
        prog=PROG, formatter_class=_help_formatter,
        usage="%(prog)s --device DEV [--device DEV]... --load N\n"
              "                      --out DIR [options]\n"
              "       %(prog)s --resume DIR [--accept-device NEW=OLD]...\n"
              "                      [--metrics PATH] [--detach]\n"
              "       %(prog)s --report DIR [--metrics PATH] | --status DIR\n"
              "       %(prog)s --compare DIR [DIR ...] [--out OUTDIR]\n"
              "       %(prog)s --help | --version",
        description="Run the ACT certification process on a drive (or "
                    "several): the target load, the\nstress test, all "
                    "devices together, optionally the ceiling - then write\n"
                    "report.html, summary.json and summary.md in DIR. ALL "
                    "DATA ON THE DEVICES IS\nDESTROYED.",
        epilog="Loads are in x per device: Nx is N x 2000 reads/s and N x "
               "1000 writes/s per\ndevice. Default ladder: 2 x the load, "
               "then 1.5 x the previous rung, six rungs\n(30 -> 60, 90, "
               "140, 210, 320, 480). --seconds is for trials: certify on\n"
               "24-hour tests.\n\nexit status: 0 certified, 1 not "
               "certified, 2 setup error, 3 certified with\nI/O errors, "
               "4 certified with drive health warnings, 64 usage error,\n"
               "78 config error, 128+n stopped by signal n (130 Ctrl-C: "
               "continue with\n--resume DIR).")
    p.hint = ""                     # argparse's message as it is
    p.add_argument("-V", "--version", action="version",
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
    p.add_argument("--no-fail-fast", action="store_true", help="run every "
                   "test to its end, even one that has failed (by default "
                   "a test judged on the criteria stops at its first "
                   "slice over a limit: its verdict could not change)")
    p.add_argument("--dry-run", action="store_true", help="print the plan "
                   "and its total time; write nothing")
    p.add_argument("--detach", action="store_true", help="run the "
                   "campaign (new, or --resume) detached from this "
                   "session - a systemd unit, else a double fork, output "
                   "in DIR/detach.log - and return at once; again while it "
                   "runs: starts nothing; after an interruption: resumes "
                   "it")
    p.add_argument("--status", metavar="DIR", help="where the campaign in "
                   "DIR is: running or not, the step, the slices judged, "
                   "the verdict so far (reads only)")
    p.add_argument("--resume", metavar="DIR", help="continue the "
                   "interrupted campaign in DIR")
    p.add_argument("--accept-device", dest="accept", action="append",
                   default=[], metavar="NEW=OLD", help="with --resume: "
                   "the drive now at NEW replaces the campaign's device OLD "
                   "(NEW may be OLD's own name); without it a device that "
                   "is not the drive recorded at the start, or has no "
                   "identity recorded, is refused")
    p.add_argument("--report", metavar="DIR", help="render the reports of "
                   "the campaign in DIR again")
    p.add_argument("--compare", metavar="DIR", nargs="+", help="compare "
                   "campaigns side by side (read-only): the Markdown on "
                   "stdout; with --out OUTDIR also compare.html, compare.md "
                   "and compare.json in OUTDIR")
    p.add_argument("--metrics", metavar="PATH", help="also write the "
                   "campaign's Prometheus metrics to PATH (replaced at each "
                   "report rewrite, for node_exporter's textfile collector;"
                   " default: $ACT_CERTIFY_METRICS; docs/metrics.md)")
    return p


def parse_args(argv):
    args = build_parser().parse_args(argv)
    if args.metrics is None:
        if args.compare is None and args.status is None:
            args.metrics = os.environ.get("ACT_CERTIFY_METRICS") or None
    elif args.compare is not None or args.status is not None:
        raise UsageError("--%s writes no metrics: remove --metrics"
                         % ("compare" if args.compare is not None
                            else "status"), status=EXIT_USAGE)
    if args.metrics is not None:
        check_metrics_path(args.metrics)
        args.metrics = os.path.abspath(args.metrics)
    plan_opts = [name for name, v in (
        ("--device", args.devices), ("--load", args.load),
        ("--hours", args.hours), ("--seconds", args.seconds),
        ("--stress-factor", args.stress_factor),
        ("--ceiling", args.ceiling), ("--ladder", args.ladder),
        ("--prep", args.prep), ("--config", args.config),
        ("--index", args.index), ("--out", args.out),
        ("--no-fail-fast", args.no_fail_fast),
        ("--dry-run", args.dry_run)) if v]
    if args.compare is not None:
        others = [o for o in plan_opts if o != "--out"] + [
            o for o, v in (("--resume", args.resume),
                           ("--report", args.report),
                           ("--status", args.status),
                           ("--detach", args.detach or None))
            if v is not None]
        if others:
            raise UsageError("--compare takes only --out: remove %s"
                             % ", ".join(others), status=EXIT_USAGE)
        return args
    alone = [o for o, v in (("--resume", args.resume),
                            ("--report", args.report),
                            ("--status", args.status)) if v is not None]
    if len(alone) > 1:
        raise UsageError("%s go alone" % " and ".join(alone),
                         status=EXIT_USAGE)
    if args.detach and (args.dry_run or args.report is not None or
                        args.status is not None):
        raise UsageError("--detach goes with a new campaign or --resume",
                         status=EXIT_USAGE)
    args.accept = [parse_accept(a) for a in args.accept]
    if args.accept and args.resume is None:
        raise UsageError("--accept-device goes with --resume DIR",
                         status=EXIT_USAGE)
    if alone:
        if plan_opts:
            raise UsageError("%s takes no other option (the plan is in "
                             "DIR/state.json): remove %s"
                             % (alone[0],
                                ", ".join(plan_opts)), status=EXIT_USAGE)
        return args
    missing = [o for o, v in (("--device", args.devices),
                              ("--load", args.load), ("--out", args.out))
               if not v]
    if missing:
        raise UsageError("missing %s (see --help)" % ", ".join(missing),
                         status=EXIT_USAGE)
    args.load = parse_positive(args.load, "--load")
    if args.hours is not None and args.seconds is not None:
        raise UsageError("--hours and --seconds: give one of them",
                         status=EXIT_USAGE)
    if args.seconds is not None:
        try:
            args.duration = int(args.seconds)
        except ValueError:
            raise UsageError("--seconds must be a whole number, not %r"
                             % args.seconds, status=EXIT_USAGE) from None
        if args.duration < 1:
            raise UsageError("--seconds must be at least 1", status=EXIT_USAGE)
        check_duration(args.duration, "--seconds %s" % args.seconds)
    else:
        hours = parse_positive(args.hours, "--hours") \
            if args.hours is not None else DEFAULT_HOURS
        check_duration(hours * HOUR, "--hours %s" % args.hours)
        args.duration = int(round(hours * HOUR))
    args.stress_factor = DEFAULT_STRESS_FACTOR \
        if args.stress_factor is None \
        else parse_positive(args.stress_factor, "--stress-factor")
    if args.stress_factor <= 1:
        raise UsageError("--stress-factor must be more than 1",
                         status=EXIT_USAGE)
    if args.ladder is not None:
        args.ceiling = True
        args.ladder = parse_ladder(args.ladder, args.load)
    elif args.ceiling:
        args.ladder = default_ladder(args.load)
    else:
        args.ladder = []
    check_device_names(args.devices)
    check_loads([args.load, args.load * args.stress_factor] + args.ladder,
                len(args.devices))
    return args


def parse_accept(text):
    """--accept-device NEW=OLD (or DEV: the same name) -> (NEW, OLD)."""
    new, sep, old = text.partition("=")
    if not sep:
        new = old = text
    if not new or not old:
        raise UsageError("--accept-device %r: give NEW=OLD (the device's "
                         "name now and the name the campaign recorded)"
                         % text, status=EXIT_USAGE)
    return (os.path.abspath(new) if not new.startswith("/") else new,
            os.path.abspath(old) if not old.startswith("/") else old)


def new_campaign(args):
    program = "act_index" if args.index else "act_storage"
    tools = {"program": find_program(program)}
    if args.prep:
        tools["act_prep"] = find_program("act_prep")
    base_path = os.path.abspath(args.config) if args.config \
        else find_base_config(args.index)
    base_text = read_text(base_path, "the base config", EXIT_CONFIG)
    devices = [os.path.abspath(d) if not d.startswith("/") else d
               for d in args.devices]
    missing = dry_run_missing(args, devices)
    Held.fds = hold_devices([d for d in devices if d not in missing],
                            explain=lambda dev: busy_reason(
                                tools["program"], dev))
    dirpath = os.path.abspath(args.out)
    steps = plan_steps(devices, args.load, args.stress_factor, args.duration,
                       args.ladder, args.prep)
    # the program's own checks of every config on the held devices,
    # before anything is written (--dry-run too, when every device is
    # here): what identifies the devices, and the service-threads the
    # runs get, as the program reads the base config
    header = check_new_campaign(tools["program"], base_text, base_path,
                                devices, steps) if not missing else None
    state = State(
        format=STATE_FORMAT, status="planned",
        command=[PROG] + list(args.argv), created_at=None, ended_at=None,
        campaign=Campaign(
            program=program, program_path=tools["program"],
            program_version=None, base_config_path=base_path,
            devices=devices, device_kinds={
                d: "not found" if d in missing else "block"
                if stat.S_ISBLK(os.stat(d).st_mode) else "file"
                for d in devices},
            load=args.load, stress_factor=args.stress_factor,
            duration_sec=args.duration, ceiling=args.ceiling,
            ladder=args.ladder, prep=args.prep,
            identities=identities_now(devices, header)
            if header and not args.dry_run else {},
            fail_fast=not args.no_fail_fast),
        host=None, resumes=[], steps=steps, device_changes=[])
    warnings = thread_warnings(steps, service_threads(
        header.items(header.config)), args.index) if header else []
    if args.dry_run:
        release_devices(Held.fds)
        say(plan_text(state, dirpath, True, warnings))
        if missing:
            say("")
            say("not found here: %s - planned anyway (for another host); "
                "the programs' checks of the configs were not run (nor "
                "the service-threads warning: the program says how many "
                "it runs), and a real run refuses a device it can't find"
                % ", ".join(missing))
        return 0
    if os.path.lexists(state_path(dirpath)):
        raise UsageError("%s already holds a campaign: continue it with "
                         "--resume %s, or render it with --report %s"
                         % (dirpath, dirpath, dirpath), status=EXIT_USAGE)
    if os.path.exists(dirpath) and (not os.path.isdir(dirpath) or (
            campaign_names(dirpath) and not setup_leftovers(dirpath))):
        raise UsageError("%s exists and is not an empty directory" % dirpath,
                         status=EXIT_SETUP)
    if os.path.isdir(dirpath):
        check_private_dir(dirpath)
    install_signal_handlers()
    made_dir = not os.path.exists(dirpath)
    try:
        os.makedirs(dirpath, mode=0o755, exist_ok=True)
    except OSError as e:
        raise UsageError("can't set up %s: %s" % (dirpath, e.strerror or e),
                         status=EXIT_SETUP) from None
    try:
        # made now, or there before: only this user can write in it
        # (checked again: another user may have made it meanwhile)
        check_private_dir(dirpath)
        lock = lock_dir(dirpath)
    except UsageError:
        undo_setup(dirpath, made_dir, None, remove_files=False)
        raise
    try:
        # what a setup killed before its first save left (no state.json:
        # no campaign), and temporary files: replaced
        for name in setup_leftovers(dirpath):
            if name != LOCK_NAME:
                os.unlink(os.path.join(dirpath, name))
        remove_stale(dirpath)
        mark_devices(state.campaign)
        write_file(dirpath, BASE_NAME, base_text)
        state.host = host_identity()
        state.campaign.program_version = program_version(
            tools["program"])
        state.created_at = utc_now()
        save_state(dirpath, state)
    except OSError as e:
        undo_setup(dirpath, made_dir, lock)
        raise UsageError("can't set up %s: %s" % (dirpath, e.strerror or e),
                         status=EXIT_SETUP) from None
    say(plan_text(state, dirpath, False, warnings))
    say("")
    try:
        return run_campaign(dirpath, state, tools,
                            Progress(metrics=args.metrics))
    finally:
        unlock_dir(dirpath, lock)


def check_metrics_path(path):
    """--metrics PATH: a file name in a directory that exists (the file is
    replaced through a temporary file there); a UsageError otherwise."""
    parent = os.path.dirname(os.path.abspath(path))
    if not path or path.endswith("/") or os.path.isdir(path):
        raise UsageError("--metrics %s: not a file name" % path,
                         status=EXIT_USAGE)
    if not os.path.isdir(parent):
        raise UsageError("--metrics %s: no directory %s" % (path, parent),
                         status=EXIT_USAGE)


def dry_run_missing(args, devices):
    """The devices --dry-run plans without finding them here (a campaign
    planned for another host); none for a real run, which refuses them
    (hold_devices)."""
    if not args.dry_run:
        return []
    return [d for d in devices if not os.path.lexists(d)]


def undo_setup(dirpath, made_dir, lock, remove_files=True):
    """A failed setup (e.g. no space) removes what it made - DIR was new
    or empty, so everything in it - and DIR itself if it made it: a retry
    starts afresh, not refused as a used DIR. remove_files False: nothing
    was written in DIR (it is not ours to empty)."""
    for name in campaign_names(dirpath) if remove_files and \
            os.path.isdir(dirpath) else []:
        try:
            os.unlink(os.path.join(dirpath, name))
        except OSError:
            pass
    if lock is not None:
        os.close(lock)
    if made_dir:
        try:
            os.rmdir(dirpath)
        except OSError:
            pass


def resume_campaign(dirpath, accept=(), metrics=None):
    dirpath = os.path.abspath(dirpath)
    state = load_state(dirpath)
    c = state.campaign
    check_accept(state, accept)
    tools = {"program": find_program(c.program)}
    if c.prep:
        tools["act_prep"] = find_program("act_prep")
    check_private_dir(dirpath)
    lock = lock_dir(dirpath)
    try:
        remove_stale(dirpath)
        if state.status == "finished":
            write_reports(dirpath, state, {}, metrics=metrics)
            v = campaign_verdict(state)
            say("%s: the campaign in %s has finished - nothing to resume"
                % (PROG, dirpath))
            say("verdict: %s" % headline(v))
            say("report: %s" % os.path.join(dirpath, "report.html"))
            return v["exit_status"]
        for s in state.steps:
            pid = s.pid
            if s.status == "running" and pid and still_running(
                    pid, dirpath):
                raise UsageError("step %d's program is still running (pid "
                                 "%d) - stop it first" % (s.number, pid),
                                 status=EXIT_SETUP)
        rename_devices(state, accept)
        Held.fds = hold_devices(c.devices, explain=lambda dev:
                                busy_reason(tools["program"], dev))
        # the program's checks of DIR/base.conf and of every step still to
        # run, on the held devices: what identifies the devices now, each
        # step's config echo
        header = check_campaign(tools["program"], os.path.join(
            dirpath, BASE_NAME), c.devices, state.steps, dirpath)
        accept_devices(state, accept, header)
        check_identities(state, dirpath, header)
        state.resumes.append(Resume(at=utc_now(), host=host_identity()))
        todo = [s for s in state.steps if s.to_do]
        say("%s: resuming the campaign in %s at step %d of %d (%d finished "
            "step%s kept)" % (PROG, dirpath, todo[0].number if todo else 0,
                              len(state.steps),
                              len(state.steps) - len(todo),
                              "" if len(state.steps) - len(todo) == 1
                              else "s"))
        install_signal_handlers()
        return run_campaign(dirpath, state, tools,
                            Progress(metrics=metrics))
    finally:
        unlock_dir(dirpath, lock)


def report_campaign(dirpath, metrics=None):
    dirpath = os.path.abspath(dirpath)
    state = load_state(dirpath)
    check_private_dir(dirpath)
    lock = try_lock(dirpath)
    try:
        if lock is not None:
            remove_stale(dirpath)
        # in progress: an act_certify runs it now (it holds DIR's lock); a
        # state.json that says "running" after act_certify was killed is
        # not reported as in progress
        s = write_reports(dirpath, state, {}, in_progress=(
            state.status == "running" and lock is None), metrics=metrics)
    finally:
        if lock is not None:
            unlock_dir(dirpath, lock)
    say("verdict: %s" % s["verdict"]["headline"])
    for name in ("report.html", "summary.json", "summary.md"):
        say("%s: %s" % (name, os.path.join(dirpath, name)))
    return s["verdict"]["exit_status"]


def try_lock(dirpath):
    """DIR's lock (lock_dir), or None when another act_certify holds it."""
    try:
        return lock_dir(dirpath)
    except UsageError:
        return None


def state_guard(fn, dirpath):
    """fn(dirpath), a damaged state file being a setup error (2) with its
    reason, never a traceback: load_state checks every key act_certify
    reads; this is the net under that check."""
    try:
        return fn(dirpath)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError,
            OverflowError, RecursionError) as e:
        raise UsageError("the campaign in %s has a damaged state.json "
                         "(%s: %s)" % (dirpath, type(e).__name__, e),
                         status=EXIT_SETUP) from None


def main(argv=None):
    """The exit status of the command line argv (default: sys.argv[1:]);
    the entry script and the zipapp exit with it."""
    return main_status(sys.argv[1:] if argv is None else argv)


def main_status(argv):
    try:
        args = parse_args(argv)
        args.argv = argv
        if args.detach:
            # a resumed campaign is given the metrics file again (not in
            # state.json); a systemd unit gets $ACT_CERTIFY_METRICS too
            metrics = ["--metrics=%s" % args.metrics] if args.metrics else []
            return detach_main(args, argv, lambda d: ["--resume", d] + [
                "--accept-device=%s=%s" % a for a in args.accept] + metrics,
                main_status)
        if args.status is not None:
            return state_guard(status_main, args.status)
        if args.resume is not None:
            return state_guard(lambda d: resume_campaign(
                d, args.accept, args.metrics), args.resume)
        if args.report is not None:
            return state_guard(lambda d: report_campaign(d, args.metrics),
                               args.report)
        if args.compare is not None:
            return compare_main(args.compare, args.out)
        return new_campaign(args)
    except UsageError as e:
        warn("error: %s" % e)
        return EXIT_USAGE if e.status is None else e.status
    except OSError as e:
        warn("error: %s%s" % (e.strerror or e, " (%s)" % e.filename
                              if e.filename else ""))
        return EXIT_SETUP
    except KeyboardInterrupt:
        warn("interrupted - no test was started")
        return 130


if __name__ == "__main__":
    main()
