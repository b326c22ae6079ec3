"""The C programs' own checks before a campaign starts: `PROG --check
CONFIG` (docs/act_storage.md, "--check") loads and validates a config and
claims every device as a run would, writing nothing. act_certify runs it on
the base config and on each step's config, with the devices it holds
(ACT_HELD_FDS, as for a run), so that a config or a device the program
would refuse ends the campaign before anything is written, with the
program's own ERROR line; and, where its own hold of a device fails (busy),
to say why in the program's words (who holds it, where it is mounted)."""

import os
import subprocess
import tempfile

from act import EXIT_SETUP, EXIT_USAGE as PROGRAM_CONFIG_ERROR
from act.certify import EXIT_CONFIG
from act.certify.devices import held_env
from act.certify.plan import check_interval, set_items, step_config, \
    step_items
from act.cli import UsageError

CHECK_TIMEOUT = 120               # seconds for one --check
CONFIG_LIMIT = 1 << 20            # characters of a step config read


def run_check(program, config, held=True):
    """(exit status, its first ERROR line without "ERROR: " or None) of
    `program --check config`; held: with the devices act_certify holds
    (ACT_HELD_FDS), else without any."""
    if held:
        env, fds = held_env()
    else:
        env, fds = dict(os.environ), ()
        env.pop("ACT_HELD_FDS", None)
        env.pop("ACT_HELD_PID", None)
    try:
        r = subprocess.run([program, "--check", config],
                           stdin=subprocess.DEVNULL,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           env=env, pass_fds=fds, timeout=CHECK_TIMEOUT,
                           universal_newlines=True, errors="replace")
    except subprocess.TimeoutExpired:
        return None, "%s --check did not end in %d s" % (
            os.path.basename(program), CHECK_TIMEOUT)
    except OSError as e:
        return None, "can't run %s: %s" % (program, e.strerror or e)
    for line in r.stderr.split("\n"):
        if line.startswith("ERROR:"):
            return r.returncode, line[len("ERROR:"):].strip()
    last = [line for line in r.stderr.split("\n") if line.strip()]
    return r.returncode, last[-1].strip() if last else None


def check_configs(program, configs):
    """Run program --check on each (what, path) of configs, with the held
    devices; the first refusal raises UsageError: a config error (the
    program's exit status 1) EXIT_CONFIG, any other EXIT_SETUP."""
    name = os.path.basename(program)
    for what, path in configs:
        rc, line = run_check(program, path)
        if rc == 0:
            continue
        if rc == PROGRAM_CONFIG_ERROR:
            raise UsageError("%s refuses %s: %s" % (name, what, line),
                             status=EXIT_CONFIG)
        raise UsageError(line or "%s --check %s: exit status %s"
                         % (name, what, rc), status=EXIT_SETUP)


def check_campaign(program, base_text, base_path, devices, steps,
                   dirpath=None):
    """--check the base config (with the campaign's devices) and every
    step's config: those in dirpath (a campaign being resumed: its steps
    not finished), or written to a temporary directory (a new campaign,
    --dry-run too: nothing is written in DIR before the checks pass)."""
    if dirpath is not None:
        configs = [
            ("step %d's config %s" % (s["number"], s["files"]["config"]),
             os.path.join(dirpath, s["files"]["config"])) for s in steps
            if "config" in s["files"] and s["status"] not in ("done",
                                                              "skipped")]
        for _what, path in configs:
            # a step config edited before --resume: the base config's
            # rule (plan.check_interval); one that can't be read is the
            # program's to refuse
            if not os.path.isfile(path):
                continue
            try:
                with open(path, encoding="utf-8",
                          errors="surrogateescape") as f:
                    text = f.read(CONFIG_LIMIT)
            except OSError:
                continue
            check_interval(text, path)
        check_configs(program, configs)
        return
    with tempfile.TemporaryDirectory(prefix="act_certify-check-") as td:
        configs = []
        first = [s for s in steps if "config" in s["files"]]
        if first:
            # the base config with the four items of the first test, but on
            # all the campaign's devices, its lines where they are in the
            # file (the program's messages give line numbers)
            path = os.path.join(td, "base.conf")
            items = step_items(first[0])
            items["device-names"] = ",".join(devices)
            _write(path, set_items(base_text, [], items))
            configs.append(("the base config %s" % base_path, path))
        for s in steps:
            if "config" in s["files"]:
                path = os.path.join(td, s["files"]["config"])
                _write(path, step_config(base_text, base_path, s))
                configs.append(("step %d's config" % s["number"], path))
        check_configs(program, configs)


def busy_reason(program, device):
    """Why device is busy, in the program's words: its ERROR line when
    --check (without the held devices) refuses a config of that device
    alone, else None (it found nothing wrong, or could not run)."""
    with tempfile.TemporaryDirectory(prefix="act_certify-check-") as td:
        path = os.path.join(td, "device.conf")
        _write(path, "device-names: %s\nread-reqs-per-sec: 2000\n"
                     "write-reqs-per-sec: 1000\ntest-duration-sec: 1\n"
               % device)
        rc, line = run_check(program, path, held=False)
    return line if rc == EXIT_SETUP and line else None


def _write(path, text):
    with open(path, "w", encoding="utf-8", errors="surrogateescape") as f:
        f.write(text)
