"""The C programs are the authority on configs and devices; act_certify
asks them (docs/act_storage.md, the command line): `PROG --check
--print-config CONFIG [--set NAME=VALUE]...` loads and validates a config
with the items given on the command line, and claims every device as a run
would, writing nothing; it prints the configuration the run's log would
echo, and each device's size and identity lines.

act_certify runs it, with the devices it holds (ACT_HELD_FDS, as for a
run), before a campaign starts and at --resume: on the base config with
the campaign's devices (what identifies them, identity.py, and the
service-threads the runs get) and on each step still to run (its config
echo, kept in the step: its log must echo the same, analyse.py) - so that
a config or a device the program would refuse ends the campaign before
anything is written, with the program's own ERROR line; and before every
step, to identify the devices again. Where its own hold of a device fails
(busy), --check says why in the program's words (who holds it, where it is
mounted)."""

import io
import os
import subprocess
import tempfile

from act import EXIT_SETUP, EXIT_USAGE as PROGRAM_CONFIG_ERROR
from act.certify import EXIT_CONFIG
from act.certify.devices import held_env
from act.certify.plan import (
    BASE_NAME, HEALTH_ITEM, check_interval, config_args, step_sets,
    with_health_item)
from act.cli import UsageError
from act.logfile.header import scan_header

CHECK_TIMEOUT = 120               # seconds for one --check
OUTPUT_LIMIT = 16 << 20           # bytes of --print-config output read


def run_check(program, args, held=True, print_config=False):
    """(exit status, its first ERROR line without "ERROR: " or None, its
    stdout as bytes) of `program --check [--print-config] ARGS`; held:
    with the devices act_certify holds (ACT_HELD_FDS), else without any."""
    if held:
        env, fds = held_env()
    else:
        env, fds = dict(os.environ), ()
        env.pop("ACT_HELD_FDS", None)
        env.pop("ACT_HELD_PID", None)
    argv = [program, "--check"] + (["--print-config"] if print_config
                                   else []) + list(args)
    try:
        r = subprocess.run(argv, stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE if print_config
                           else subprocess.DEVNULL, stderr=subprocess.PIPE,
                           env=env, pass_fds=fds, timeout=CHECK_TIMEOUT)
    except subprocess.TimeoutExpired:
        return None, "%s --check did not end in %d s" % (
            os.path.basename(program), CHECK_TIMEOUT), b""
    except OSError as e:
        return None, "can't run %s: %s" % (program, e.strerror or e), b""
    err = r.stderr.decode("utf-8", "replace").split("\n")
    out = (r.stdout or b"")[:OUTPUT_LIMIT]
    for line in err:
        if line.startswith("ERROR:"):
            return r.returncode, line[len("ERROR:"):].strip(), out
    last = [line for line in err if line.strip()]
    return r.returncode, last[-1].strip() if last else None, out


def print_config(program, what, args):
    """The LogHeader of `program --check --print-config ARGS` (its config
    echo, device and identity lines: act.logfile.header), with the held
    devices; a refusal raises UsageError: a config error (the program's
    exit status 1) EXIT_CONFIG, any other EXIT_SETUP. what names the
    config in the messages."""
    rc, line, out = run_check(program, args, print_config=True)
    name = os.path.basename(program)
    if rc == PROGRAM_CONFIG_ERROR:
        raise UsageError("%s refuses %s: %s" % (name, what, line),
                         status=EXIT_CONFIG)
    if rc != 0:
        raise UsageError(line or "%s --check %s: exit status %s"
                         % (name, what, rc), status=EXIT_SETUP)
    header = scan_header(io.BytesIO(out))
    if not header.config:
        raise UsageError("%s --check --print-config %s printed no "
                         "configuration" % (name, what), status=EXIT_SETUP)
    echo = header.items(header.config)
    check_interval(echo, what)
    return header


def base_check(program, base, devices, steps, what=None):
    """The base config on all the campaign's devices, with the other
    three --set items of its first test (a refusal of the file names its
    line, of an item the --set): the LogHeader of its --print-config -
    the devices' identity lines, the service-threads the runs get."""
    first = [s for s in steps if s.runs_program]
    args = [base]
    if first:
        args += [a for item in step_sets(first[0], devices)
                 for a in ("--set", item)]
    return print_config(program, what or "the base config %s" % base, args)


def campaign_header(program, dirpath, state):
    """base_check of the campaign in dirpath (DIR/base.conf): what
    identifies its devices now."""
    return base_check(program, os.path.join(dirpath, BASE_NAME),
                      state.campaign.devices, state.steps)


def check_campaign(program, base, devices, steps, dirpath=None,
                   what=None):
    """--check the base config (with the campaign's devices: base_check;
    what names it) and every step's config still to run - a new
    campaign's (check_new_campaign), or the steps not finished of one
    being resumed (base: DIR/base.conf, or a step's own config file in
    dirpath if an older act_certify planned it). Each step checked keeps
    the configuration the program echoes for it (step.config_echo: its
    log must echo the same). A short step's --set items get the
    health-interval-sec that gives it enough drive health samples
    (plan.health_interval) - unless the base config sets the item (its
    echo has it: not the default) or the program does not know it.
    Returns base_check's LogHeader."""
    header = base_check(program, base, devices, steps, what)
    health = HEALTH_ITEM not in header.items(header.config) and \
        knows_item(program, HEALTH_ITEM)
    for s in steps:
        if not s.runs_program or not s.to_do:
            continue
        if s.set is not None:
            s.set = with_health_item(s.set, s.duration_sec, health)
        what = "step %d's config" % s.number
        if s.set is None:
            what += " %s" % os.path.join(dirpath, s.files["config"])
        h = print_config(program, what, config_args(s, base, dirpath))
        s.config_echo = h.items(h.config)
    return header


def knows_item(program, name):
    """Whether the program has the config item name (its --config-help
    lists it); False when it can't be asked."""
    try:
        r = subprocess.run([program, "--config-help"],
                           stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, timeout=CHECK_TIMEOUT)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return r.returncode == 0 and any(
        line.split()[:1] == [name] for line in
        r.stdout[:OUTPUT_LIMIT].decode("utf-8", "replace").split("\n"))


def check_new_campaign(program, base_text, base_path, devices, steps):
    """check_campaign of a new campaign (--dry-run too: nothing is written
    in DIR before the checks pass), on the very text that becomes
    DIR/base.conf (base_text, read from base_path), in a temporary
    directory."""
    with tempfile.TemporaryDirectory(prefix="act_certify-check-") as td:
        copy = os.path.join(td, BASE_NAME)
        with open(copy, "w", encoding="utf-8", errors="surrogateescape",
                  newline="") as f:
            f.write(base_text)
        return check_campaign(program, copy, devices, steps,
                              what="the base config %s" % base_path)


def busy_reason(program, device):
    """Why device is busy, in the program's words: its ERROR line when
    --check (without the held devices) refuses a config of that device
    alone, else None (it found nothing wrong, or could not run)."""
    with tempfile.TemporaryDirectory(prefix="act_certify-check-") as td:
        path = os.path.join(td, "empty.conf")
        with open(path, "w"):
            pass
        rc, line, _out = run_check(program, [
            path, "--set", "device-names=%s" % device,
            "--set", "read-reqs-per-sec=2000", "--set",
            "write-reqs-per-sec=1000", "--set", "test-duration-sec=1"],
            held=False)
    return line if rc == EXIT_SETUP and line else None
