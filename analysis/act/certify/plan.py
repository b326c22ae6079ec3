"""The plan of a campaign: loads and the ceiling ladder, the steps
(model.Step), each step's config (the base config, and the four
items act_certify sets given to the program with --set: the C program
reads and checks them, as it does the file), and the plan as text
(--dry-run and the start of a campaign)."""

import os
import shlex

from act.certify.fmt import fmt_duration, fmt_load, fmt_num
from act.certify.model import ONE_X_READS, ONE_X_WRITES, Step
from act.certify import EXIT_CONFIG, EXIT_USAGE
from act.cli import UsageError
from act.latency.analysis import round_up_slice
from act.latency.judge import hourly_interval


DEFAULT_HOURS = 24
DEFAULT_STRESS_FACTOR = 2.0
LADDER_RUNGS = 6                # default ladder: 2 x load, then x 1.5 ...
LADDER_STEP = 1.5
HOUR = 3600
# A trial's slices are no shorter: on a busy host one second's share of
# reads over 1 ms is that second's stalls (the first second's start-up
# too), and decided verdicts that a second run reversed (bench/
# bench_trial_pairs.py, bench/RESULTS.md).
TRIAL_MIN_SLICE_SEC = 10
# The C programs' limits (src/common/shared_cfg.h: read-reqs-per-sec,
# write-reqs-per-sec and test-duration-sec are CFG_U32 items up to
# UINT32_MAX; src/storage/storage_cfg.c refuses rates that give more than
# UINT32_MAX requests per second); tests/python/certify/test_plan.py checks
# them against the C source.
MAX_U32 = 4294967295
BASE_NAME = "base.conf"         # the base config's copy in DIR


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


def slice_for(duration):
    """The analysis slice of a step: the criteria's hour, or for a run
    shorter than an hour about a tenth of it (a trial) but at least
    TRIAL_MIN_SLICE_SEC - the whole run when it is shorter (docs/
    certify.md, "Fail fast": a 1 s slice is a moment of the host, and
    the verdict and fail fast judge these slices)."""
    if duration >= HOUR:
        return HOUR
    return min(duration, max(TRIAL_MIN_SLICE_SEC, duration // 10))


def parse_positive(text, what):
    try:
        x = float(text)
    except ValueError:
        raise UsageError("%s must be a number, not %r" % (what, text),
                         status=EXIT_USAGE) from None
    if not (x > 0) or x != x or x == float("inf"):
        raise UsageError("%s must be more than 0, not %r" % (what, text),
                         status=EXIT_USAGE)
    return x


def check_duration(seconds, what):
    """A test length the C programs take (test-duration-sec: 1 to
    MAX_U32); seconds may be a float (from --hours) or an int."""
    if not seconds >= 1:
        raise UsageError("%s is under a second" % what, status=EXIT_USAGE)
    if seconds > MAX_U32:
        raise UsageError("%s is more than act's longest test, %d seconds "
                         "(test-duration-sec)" % (what, MAX_U32),
                         status=EXIT_USAGE)


def check_loads(loads, n_devices):
    """Each load's rates on n_devices (the most a step has) must be ones
    the C programs take: read-reqs-per-sec and write-reqs-per-sec up to
    MAX_U32 (checked on floats: a load may be huge or infinite), and at
    least 1 write/s per device."""
    for load in loads:
        reads = load * ONE_X_READS * n_devices
        if not reads <= MAX_U32:
            raise UsageError("load %s is too large: more than %d reads/s "
                             "on %d device%s (act's read-reqs-per-sec "
                             "takes at most %d)" % (
                                 fmt_num(load), MAX_U32, n_devices,
                                 "" if n_devices == 1 else "s", MAX_U32),
                             status=EXIT_USAGE)
        r, w = rates(load, 1)
        if r < 1 or w < 1:
            raise UsageError("load %s is too small: under 1 write/s per "
                             "device" % fmt_load(load), status=EXIT_USAGE)


def parse_ladder(text, load):
    loads = [parse_positive(t.strip(), "--ladder load")
             for t in text.split(",") if t.strip()]
    if not loads:
        raise UsageError("--ladder needs loads, e.g. --ladder 40,60,80",
                         status=EXIT_USAGE)
    if loads[0] <= load:
        raise UsageError("--ladder loads must be above the target load %s"
                         % fmt_load(load), status=EXIT_USAGE)
    if any(b <= a for a, b in zip(loads, loads[1:])):
        raise UsageError("--ladder loads must increase: %s" % text,
                         status=EXIT_USAGE)
    return loads


def check_interval(echo, what):
    """Refuses (exit 78, naming the config and value) a config whose
    report-interval-sec - as the program reads it: echo, the items of its
    --print-config - does not divide 3600: act_latency.py rounds the
    criteria's one-hour slice up to a multiple of it, and a longer slice
    dilutes the worst hour (act.latency.judge.hourly_interval)."""
    value = echo.get("report-interval-sec", "")
    if not value.isdigit() or not value.isascii():
        return
    interval = int(value)
    if interval and not hourly_interval(interval):
        raise UsageError(
            "%s: report-interval-sec %d cannot give the criteria's one-hour "
            "slices (an hour would be judged on slices of %d s): give a "
            "divisor of 3600 (the default is 1)"
            % (what, interval, round_up_slice(HOUR, interval)),
            status=EXIT_CONFIG)


HEALTH_ITEM = "health-interval-sec"
HEALTH_DEFAULT_SEC = 10         # the programs' default health-interval-sec
HEALTH_SAMPLES = 60             # the drive health samples a step should get


def health_interval(duration):
    """The health-interval-sec act_certify gives a step's run of duration
    seconds (docs/certify.md, "The drive's health"): None - the
    programs' default, a sample every 10 s - when that gives at least
    HEALTH_SAMPLES samples (a step of 10 minutes or more); else the
    interval that does, at least 1 s (a sample after every report)."""
    if duration >= HEALTH_SAMPLES * HEALTH_DEFAULT_SEC:
        return None
    return max(1, duration // HEALTH_SAMPLES)


def with_health_item(items, duration, wanted):
    """A step's --set items with act_certify's health-interval-sec for
    its duration (health_interval) when wanted, else without it."""
    items = [x for x in items if not x.startswith(HEALTH_ITEM + "=")]
    sec = health_interval(duration)
    if wanted and sec is not None:
        items.append("%s=%d" % (HEALTH_ITEM, sec))
    return items


def step_items(step):
    """The values of the four items act_certify sets for a step:
    {name: value}."""
    return {"device-names": ",".join(step.devices),
            "read-reqs-per-sec": str(step.reads_per_sec),
            "write-reqs-per-sec": str(step.writes_per_sec),
            "test-duration-sec": str(step.duration_sec)}


def step_sets(step, devices=None):
    """The --set items of a step's run ("NAME=VALUE", kept in the step as
    "set"); devices: on these devices instead of the step's."""
    items = step_items(step)
    if devices is not None:
        items["device-names"] = ",".join(devices)
    return ["%s=%s" % kv for kv in items.items()]


def config_args(step, base, dirpath=None):
    """A step's config on the program's command line: the base config and
    the step's --set items; a step planned by an older act_certify (no
    "set"): its own config file in dirpath."""
    if step.set is None:
        return [os.path.join(dirpath, step.files["config"])]
    return [base] + [a for item in step.set for a in ("--set", item)]


def command_text(program, step, base):
    """A step's run as a command line a user can give (the plan)."""
    return " ".join(shlex.quote(a) for a in [program] + config_args(
        step, base))


def plan_steps(devices, load, stress_factor, duration, ladder, prep):
    """The campaign's steps, in order (model.Step)."""
    steps = []

    def add(kind, test, title, load_x, devs, same_run_as=None):
        n = len(steps) + 1
        r, w = rates(load_x, len(devs)) if load_x else (0, 0)
        slug = {"prep": "prep", "target": "test%d-target" % (test or 0),
                "stress": "test%d-stress" % (test or 0),
                "ceiling": "ceiling"}[kind]
        if load_x:
            slug += "-" + fmt_load(load_x)
        step_id = "%02d-%s" % (n, slug)
        if same_run_as:
            files = {"plot": step_id + ".svg"}
        elif kind == "prep":
            files = {"log": step_id + ".log", "stderr": step_id + ".err"}
        else:
            files = {"log": step_id + ".log", "stderr": step_id + ".err",
                     "plot": step_id + ".svg"}
        step = Step(
            number=n, id=step_id, kind=kind, test=test, title=title,
            load=load_x, devices=list(devs), reads_per_sec=r,
            writes_per_sec=w,
            duration_sec=0 if kind == "prep" or same_run_as else duration,
            slice_sec=slice_for(duration),
            judge={"target": "criteria", "ceiling": "criteria",
                   "stress": "stress"}.get(kind),
            same_run_as=same_run_as, status="planned", result=None,
            exit_status=None, message=None, started_at=None, ended_at=None,
            old_logs=[], files=files)
        if step.runs_program:
            step.set = step_sets(step)
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
                "run" % (fmt_load(rung), devices_text(devices),
                         last_stress.number), rung, devices,
                same_run_as=last_stress.number)
        else:
            add("ceiling", None, "ceiling: %s on %s"
                % (fmt_load(rung), devices_text(devices)), rung, devices)
    return steps


def devices_text(devices):
    return "1 device" if len(devices) == 1 else "%d devices" % len(devices)


def planned_seconds(steps):
    return sum(s.duration_sec for s in steps)


def stress_text(load, stress_factor):
    """'4x (2x the target)'."""
    return "%s (%s the target)" % (fmt_load(load * stress_factor),
                                   fmt_load(stress_factor))


def plan_text(state, dirpath, dry_run, warnings=()):
    """The plan, for --dry-run and at the start of a campaign; warnings
    (threads.thread_warnings) end it."""
    c = state.campaign
    lines = []
    lines.append("act_certify plan%s" % (" (dry run: nothing is written)"
                                         if dry_run else ""))
    lines.append("  program:     %s" % c.program_path)
    lines.append("  base config: %s (copied to %s; each test sets the "
                 "four items below with --set, a test under 10 minutes "
                 "health-interval-sec too, every other item keeps its "
                 "value)" % (c.base_config_path, BASE_NAME))
    lines.append("  devices:     %s   ALL DATA ON THEM IS DESTROYED"
                 % ", ".join(c.devices))
    r, w = rates(c.load, 1)
    lines.append("  load:        %s = %d reads/s, %d writes/s per device; "
                 "stress load %s" % (fmt_load(c.load), r, w,
                                     stress_text(c.load, c.stress_factor)))
    lines.append("  each test:   %s%s" % (
        fmt_duration(c.duration_sec),
        "" if c.duration_sec >= 24 * HOUR else
        "  (shorter than 24 h: a trial, not a certification)"))
    if c.ceiling:
        lines.append("  ceiling:     ladder %s (stops at the first load that "
                     "fails)" % ", ".join(fmt_load(x) for x in c.ladder))
    lines.append("  fail fast:   %s" % (
        "on - a test judged on the criteria stops at its first %s over a "
        "limit (its verdict could not change); --no-fail-fast runs it to "
        "its end" % ("hour" if slice_for(c.duration_sec) == HOUR
                     else "slice")
        if c.fail_fast else "off (--no-fail-fast): every test runs "
        "to its end"))
    lines.append("  directory:   %s%s" % (dirpath, " (not created)"
                                          if dry_run else ""))
    lines.append("")
    pad = " " * 9
    for s in state.steps:
        lines.append(("step %d" % s.number).ljust(9) + s.title)
        if s.kind == "prep":
            lines.append(pad + "act_prep %s; time depends on the drives "
                         "(about 2 x capacity / write speed)"
                         % " ".join(s.devices))
            continue
        if s.same_run_as:
            lines.append(pad + "no new run: the read criteria on step "
                         "%d's log" % s.same_run_as)
            continue
        lines.append(pad + "load %s on %s: %s" % (
            fmt_load(s.load), devices_text(s.devices),
            ", ".join(s.devices)))
        lines.append(pad + "runs: %s" % command_text(c.program, s,
                                                     BASE_NAME))
        lines.append(pad + "%s%s; passes %s" % (
            fmt_duration(s.duration_sec),
            " (less if it fails: fail fast)" if c.fail_fast and
            s.judge == "criteria" else "",
            "if it meets the read criteria (act_latency.py --check)"
            if s.judge == "criteria" else
            "if it runs to completion (act_latency.py --check --stress)"))
    cert = [s for s in state.steps if s.kind != "ceiling"]
    ladder = [s for s in state.steps if s.kind == "ceiling"]
    lines.append("")
    tests = len([s for s in cert if s.kind != "prep"])
    total = "total: %s for the certification (%d test%s)" % (
        fmt_duration(planned_seconds(cert)), tests,
        "" if tests == 1 else "s")
    if ladder:
        runs = len([s for s in ladder if not s.same_run_as])
        total += ", at most %s more for the ceiling (%d run%s; the ladder " \
            "stops at the first load that fails)" % (
                fmt_duration(planned_seconds(ladder)), runs,
                "" if runs == 1 else "s")
    if any(s.kind == "prep" for s in cert):
        total += ", plus act_prep"
    lines.append(total)
    saved = state.fail_fast_stops()
    if saved:
        lines.append("fail fast saved %s so far" % fmt_duration(sum(
            s.stopped_early.saved_sec for s in saved)))
    lines += list(warnings)
    return "\n".join(lines)
