#!/usr/bin/env python3
"""Description: act_certify's pre-checks by the C programs
(analysis/act/certify/precheck.py), with the real act_storage of
target/bin ($ACT_BIN), on file devices:

- check_campaign on the held devices (ACT_HELD_FDS: the program accepts
  the devices act_certify holds): a usable campaign passes; an unknown
  item in the base config is refused as a config error (EXIT_CONFIG 78)
  in the program's words, with the line number of the base config; a
  step config the program refuses (a device the program can't use) is a
  setup error (2); --resume's check reads the step configs in DIR and
  skips finished steps;
- hold_devices on a file another process holds (flock): the refusal is
  busy_reason's, the program's own ERROR line naming the holder (this
  script and its pid); without explain, or when the program finds nothing
  wrong (a stand-in that exits 0), a plain message;
- run_check: a program that can't run; the last stderr line when there is
  no ERROR line;
- the command line: a base config the program refuses ends a campaign
  (also --dry-run) with exit status 78 and the program's words, before
  DIR is created;
- set_items without comments keeps every line's number (the program's
  messages give line numbers of the base config).

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
    base_text = read(BASE)
    steps = plan.plan_steps([dev], 1, 2.0, 5, [], False)
    devices.Held.fds = devices.hold_devices([dev])
    try:
        try:
            precheck.check_campaign(PROGRAM, base_text, BASE, [dev], steps)
            c.check(True, "")
        except UsageError as e:
            c.check(False, "a usable campaign was refused: %s" % e)
        bad = base_text.rstrip("\n").split("\n")
        bad.insert(3, "bogus-item: 1")          # line 4
        c.raises("an unknown item in the base config", UsageError,
                 precheck.check_campaign, PROGRAM, "\n".join(bad) + "\n",
                 "/b/base.conf", [dev], steps,
                 expect_text="act_storage refuses the base config "
                 "/b/base.conf: unknown config item 'bogus-item' (line 4)",
                 expect_status=EXIT_CONFIG)
        # --resume: the configs in DIR, the finished steps skipped
        for s in steps:
            with open(os.path.join(td, s.files["config"]), "w") as f:
                f.write(plan.step_config(base_text, BASE, s))
        steps[0].status = "done"
        with open(os.path.join(td, steps[0].files["config"]), "w") as f:
            f.write("bogus-item: 1\n")
        try:
            precheck.check_campaign(PROGRAM, None, None, [dev], steps, td)
            c.check(True, "")
        except UsageError as e:
            c.check(False, "--resume: a finished step's config was "
                    "checked: %s" % e)
        gone = os.path.join(td, "gone.img")
        with open(os.path.join(td, steps[1].files["config"]), "w") as f:
            f.write(plan.step_config(base_text, BASE, steps[1].copy(
                devices=[gone])))
        try:
            precheck.check_campaign(PROGRAM, None, None, [dev], steps, td)
            c.check(False, "--resume: a step config on a missing device "
                    "passed")
        except UsageError as e:
            c.eq("a device the program can't use: the status", 2, e.status)
            c.check(str(e).startswith("can't use device %s" % gone),
                    "a device the program can't use: not its ERROR line",
                    str(e))
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
    rc, line = precheck.run_check(os.path.join(td, "no-such-program"),
                                  BASE, held=False)
    c.eq("run_check of a missing program: no status", None, rc)
    c.check(line.startswith("can't run "), "run_check of a missing "
            "program: %r" % line)
    script = os.path.join(td, "says.sh")
    with open(script, "w") as f:
        f.write("#!/bin/sh\necho first >&2\necho 'last words' >&2\nexit 2\n")
    os.chmod(script, stat.S_IRWXU)
    c.eq("run_check without an ERROR line: the last line", (2, "last words"),
         precheck.run_check(script, BASE, held=False))


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


def check_set_items(c):
    text = "a: 1\n# c\nread-reqs-per-sec: 5\nb: 2\n"
    c.eq("set_items without comments: lines kept in place",
         "a: 1\n# c\nread-reqs-per-sec: 7\nb: 2\n\n# set by act_certify\n"
         "test-duration-sec: 3\n",
         plan.set_items(text, [], {"read-reqs-per-sec": "7",
                                   "test-duration-sec": "3"}))


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
    check_set_items(c)
    c.finish()


if __name__ == "__main__":
    main()
