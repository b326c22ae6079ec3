#!/usr/bin/env python3
"""Description: act_certify's pre-checks by the C programs
(analysis/act/certify/precheck.py), with the real act_storage of
target/bin ($ACT_BIN), on file devices:

- check_campaign on the held devices (ACT_HELD_FDS: the program accepts
  the devices act_certify holds): a usable campaign passes, each step
  keeping the config act_storage echoes for its --set items (its
  --print-config: the step's own rates and duration, the base config's
  other items) and the base check's header naming the devices' facts; an
  unknown item in the base config is refused as a config error
  (EXIT_CONFIG 78) in the program's words, with the line number of the
  base config; a step whose --set items the program refuses (a device it
  can't use) is a setup error (2); a step an older act_certify planned
  runs - and is checked - on its own config file in DIR; --resume's
  check skips finished steps;
- hold_devices on a file another process holds (flock): the refusal is
  busy_reason's, the program's own ERROR line naming the holder (this
  script and its pid); without explain, or when the program finds nothing
  wrong (a stand-in that exits 0), a plain message;
- run_check: a program that can't run; the last stderr line when there is
  no ERROR line;
- the command line: a base config the program refuses ends a campaign
  (also --dry-run) with exit status 78 and the program's words, before
  DIR is created;
- print_config of a config whose report-interval-sec, as act_storage
  reads it, cannot give one-hour slices: refused (78), naming the value.

Skipped when target/bin/act_storage is not built."""

import fcntl
import os
import stat
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import expect  # noqa: E402

from act.certify import EXIT_CONFIG, devices, plan, precheck  # noqa: E402
from act.cli import UsageError  # noqa: E402

BIN = os.environ.get("ACT_BIN") or os.path.join(expect.REPO, "target", "bin")
PROGRAM = os.path.join(BIN, "act_storage")
BASE = os.path.join(expect.REPO, "config", "act_storage.conf")


def make_file(path, size=16 << 20):
    with open(path, "wb") as f:
        f.truncate(size)
    return path


def read(path):
    with open(path) as f:
        return f.read()


def check_campaign(c, td):
    dev = make_file(os.path.join(td, "d1.img"))
    base = os.path.join(td, "base.conf")
    with open(base, "w") as f:
        f.write(read(BASE) + "service-threads: 6\n")
    steps = plan.plan_steps([dev], 1, 2.0, 5, [], False)
    devices.Held.fds = devices.hold_devices([dev])
    try:
        try:
            h = precheck.check_campaign(PROGRAM, base, [dev], steps)
            c.eq("the base check: the device's facts line", ["dev", "ino",
                                                             "gen"],
                 list(h.facts.get(dev, {})))
            for s in steps:
                echo = s.config_echo or {}
                c.eq("step %d's config echo: its --set items and the base "
                     "config's" % s.number,
                     (dev, str(s.reads_per_sec), "5", "6"),
                     (echo.get("device-names"),
                      echo.get("read-reqs-per-sec"),
                      echo.get("test-duration-sec"),
                      echo.get("service-threads")))
        except UsageError as e:
            c.check(False, "a usable campaign was refused: %s" % e)
        bad = os.path.join(td, "bad.conf")
        lines = read(BASE).rstrip("\n").split("\n")
        lines.insert(3, "bogus-item: 1")          # line 4
        with open(bad, "w") as f:
            f.write("\n".join(lines) + "\n")
        c.raises("an unknown item in the base config", UsageError,
                 precheck.check_campaign, PROGRAM, bad, [dev], steps,
                 None, "the base config /b/base.conf",
                 expect_text="act_storage refuses the base config "
                 "/b/base.conf: unknown config item 'bogus-item' (line 4)",
                 expect_status=EXIT_CONFIG)
        # --resume: the finished steps skipped; a step an older
        # act_certify planned: its own config file
        steps[0].status = "done"
        steps[0].set = ["bogus-item=1"]
        old = steps[1]
        del old.set, old.config_echo
        old.files["config"] = "02.conf"
        with open(os.path.join(td, "02.conf"), "w") as f:
            f.write(read(BASE) + "device-names: %s\n"
                    "test-duration-sec: 7\n" % dev)
        try:
            precheck.check_campaign(PROGRAM, base, [dev], steps, td)
            c.eq("--resume: a step an older act_certify planned: its own "
                 "config file", "7",
                 (old.config_echo or {}).get("test-duration-sec"))
        except UsageError as e:
            c.check(False, "--resume: a finished step's config was "
                    "checked: %s" % e)
        gone = os.path.join(td, "gone.img")
        steps[1] = steps[1].copy(devices=[gone], files={})
        steps[1].set = plan.step_sets(steps[1])
        try:
            precheck.check_campaign(PROGRAM, base, [dev], steps, td)
            c.check(False, "--resume: a step on a missing device passed")
        except UsageError as e:
            c.eq("a device the program can't use: the status", 2, e.status)
            c.check(str(e).startswith("can't use device %s" % gone),
                    "a device the program can't use: not its ERROR line",
                    str(e))
        interval = os.path.join(td, "interval.conf")
        with open(interval, "w") as f:
            f.write("report-interval-sec : 7200 # two hours\n")
        c.raises("report-interval-sec 7200, as act_storage reads it",
                 UsageError, precheck.print_config, PROGRAM, "B", [
                     interval, "--set", "device-names=%s" % dev, "--set",
                     "read-reqs-per-sec=10", "--set",
                     "write-reqs-per-sec=10", "--set",
                     "test-duration-sec=1"],
                 expect_text="B: report-interval-sec 7200 cannot give the "
                 "criteria's one-hour slices (an hour would be judged on "
                 "slices of 7200 s): give a divisor of 3600 (the default "
                 "is 1)", expect_status=EXIT_CONFIG)
    finally:
        devices.release_devices(devices.Held.fds)


def check_busy(c, td):
    dev = make_file(os.path.join(td, "busy.img"))
    fd = os.open(dev, os.O_RDONLY)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        reason = precheck.busy_reason(PROGRAM, dev)
        want = "(pid %d)" % os.getpid()
        c.check(reason and "is in use by" in reason and want in reason and
                os.path.basename(__file__) in reason,
                "busy_reason does not name this script and %s" % want,
                repr(reason))
        c.raises("hold_devices on a held file: the program's words",
                 UsageError, devices.hold_devices, [dev],
                 lambda d: precheck.busy_reason(PROGRAM, d),
                 expect_text=reason, expect_status=2)
        c.raises("hold_devices without explain: a plain message",
                 UsageError, devices.hold_devices, [dev],
                 expect_text="device %s is in use by another process - "
                 "another test is running on it" % dev, expect_status=2)
        c.eq("busy_reason when the program finds nothing wrong", None,
             precheck.busy_reason("/bin/true", dev))
    finally:
        os.close(fd)


def check_run_check(c, td):
    rc, line, _out = precheck.run_check(
        os.path.join(td, "no-such-program"), [BASE], held=False)
    c.eq("run_check of a missing program: no status", None, rc)
    c.check(line.startswith("can't run "), "run_check of a missing "
            "program: %r" % line)
    script = os.path.join(td, "says.sh")
    with open(script, "w") as f:
        f.write("#!/bin/sh\necho first >&2\necho 'last words' >&2\nexit 2\n")
    os.chmod(script, stat.S_IRWXU)
    c.eq("run_check without an ERROR line: the last line",
         (2, "last words", b""), precheck.run_check(script, [BASE],
                                                    held=False))


def check_command_line(c, td):
    dev = make_file(os.path.join(td, "cli.img"))
    bad = os.path.join(td, "bad.conf")
    with open(bad, "w") as f:
        f.write(read(BASE) + "bogus-item: 1\n")
    env = dict(os.environ, ACT_BIN=BIN)
    for extra in ([], ["--dry-run"]):
        out = os.path.join(td, "out")
        r = subprocess.run([sys.executable, os.path.join(
            expect.ANALYSIS, "act_certify.py"), "--device", dev, "--load",
            "1", "--seconds", "2", "--config", bad, "--out", out] + extra,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
            universal_newlines=True, timeout=120)
        what = "a refused base config%s" % (" (--dry-run)" if extra else "")
        c.eq("%s: exit status" % what, (78, ""), (r.returncode, r.stdout))
        c.check("act_storage refuses the base config %s: unknown config "
                "item 'bogus-item'" % bad in r.stderr, "%s: not the "
                "program's words" % what, r.stderr)
        c.check(not os.path.exists(out), "%s: DIR created" % what)


def main():
    c = expect.Checker("test_certify_precheck")
    if not os.access(PROGRAM, os.X_OK):
        print("test_certify_precheck: SKIP (%s not built: run make)"
              % PROGRAM)
        sys.exit(expect.SKIP)
    with tempfile.TemporaryDirectory(prefix="act-precheck-test-") as td:
        check_campaign(c, td)
        check_busy(c, td)
        check_run_check(c, td)
        check_command_line(c, td)
    c.finish()


if __name__ == "__main__":
    main()
