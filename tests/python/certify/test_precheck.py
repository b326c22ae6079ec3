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

Skipped when target/bin/act_storage is not built.

    python3 tests/python/certify/test_precheck.py [-v]
"""

import fcntl
import os
import stat
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
import support  # noqa: E402

from act.certify import EXIT_CONFIG, devices, plan, precheck  # noqa: E402
from act.cli import UsageError  # noqa: E402

BIN = os.environ.get("ACT_BIN") or os.path.join(support.REPO, "target", "bin")
PROGRAM = os.path.join(BIN, "act_storage")
BASE = os.path.join(support.REPO, "config", "act_storage.conf")


def make_file(path, size=16 << 20):
    with open(path, "wb") as f:
        f.truncate(size)
    return path


def read(path):
    with open(path) as f:
        return f.read()


class Precheck(support.TempDir):
    PREFIX = "act-precheck-test-"

    def test_campaign(self):
        td = self.td
        dev = make_file(os.path.join(td, "d1.img"))
        base = os.path.join(td, "base.conf")
        with open(base, "w") as f:
            f.write(read(BASE) + "service-threads: 6\n")
        steps = plan.plan_steps([dev], 1, 2.0, 5, [], False)
        devices.Held.fds = devices.hold_devices([dev])
        try:
            try:
                h = precheck.check_campaign(PROGRAM, base, [dev], steps)
                self.assertEqual(["dev", "ino",
                                  "gen"], list(h.facts.get(dev, {})),
                                 "the base check: the device's facts line")
                for s in steps:
                    echo = s.config_echo or {}
                    self.assertEqual((dev, str(s.reads_per_sec), "5", "6"),
                                     (echo.get("device-names"),
                                      echo.get("read-reqs-per-sec"),
                                      echo.get("test-duration-sec"),
                                      echo.get("service-threads")),
                                     "step %d's config echo: its --set items "
                                     "and the base config's" % s.number)
            except UsageError as e:
                self.assertTrue(False, "a usable campaign was refused: %s" % e)
            bad = os.path.join(td, "bad.conf")
            lines = read(BASE).rstrip("\n").split("\n")
            lines.insert(3, "bogus-item: 1")          # line 4
            with open(bad, "w") as f:
                f.write("\n".join(lines) + "\n")
            with self.assertRaises(UsageError,
                                   msg="an unknown item in the base "
                                       "config") as cm:
                precheck.check_campaign(PROGRAM, bad, [dev], steps, None,
                                        "the base config /b/base.conf")
            self.assertEqual("act_storage refuses the base config "
                             "/b/base.conf: unknown config item 'bogus-item' "
                             "(line 4)", str(cm.exception),
                             "an unknown item in the base config: message")
            self.assertEqual(EXIT_CONFIG,
                             getattr(cm.exception, "status", None),
                             "an unknown item in the base config: status")
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
                self.assertEqual("7",
                                 (old.config_echo
                                  or {}).get("test-duration-sec"),
                                 "--resume: a step an older act_certify "
                                 "planned: its own config file")
            except UsageError as e:
                self.assertTrue(False,
                                "--resume: a finished step's config was "
                                "checked: %s" % e)
            gone = os.path.join(td, "gone.img")
            steps[1] = steps[1].copy(devices=[gone], files={})
            steps[1].set = plan.step_sets(steps[1])
            try:
                precheck.check_campaign(PROGRAM, base, [dev], steps, td)
                self.assertTrue(False, "--resume: a step on a missing device "
                                "passed")
            except UsageError as e:
                self.assertEqual(2, e.status,
                                 "a device the program can't use: the status")
                self.assertTrue(str(e).startswith("can't use device %s"
                                                  % gone),
                                "%s\n%s"
                                % ("a device the program can't use: not its "
                                   "ERROR line", str(e)))
            interval = os.path.join(td, "interval.conf")
            with open(interval, "w") as f:
                f.write("report-interval-sec : 7200 # two hours\n")
            with self.assertRaises(UsageError,
                                   msg="report-interval-sec 7200, as "
                                       "act_storage reads it") as cm:
                precheck.print_config(PROGRAM, "B", [
                    interval, "--set", "device-names=%s" % dev, "--set",
                    "read-reqs-per-sec=10", "--set",
                    "write-reqs-per-sec=10", "--set",
                    "test-duration-sec=1"])
            self.assertEqual("B: report-interval-sec 7200 cannot give the "
                             "criteria's one-hour slices (an hour would be "
                             "judged on slices of 7200 s): give a divisor of "
                             "3600 (the default is 1)", str(cm.exception),
                             "report-interval-sec 7200, as act_storage reads "
                             "it: message")
            self.assertEqual(EXIT_CONFIG,
                             getattr(cm.exception, "status", None),
                             "report-interval-sec 7200, as act_storage reads "
                             "it: status")
        finally:
            devices.release_devices(devices.Held.fds)

    def test_busy(self):
        td = self.td
        dev = make_file(os.path.join(td, "busy.img"))
        fd = os.open(dev, os.O_RDONLY)
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            reason = precheck.busy_reason(PROGRAM, dev)
            want = "(pid %d)" % os.getpid()
            self.assertTrue(reason and "is in use by" in reason
                            and want in reason and
                            os.path.basename(__file__) in reason,
                            "%s\n%s"
                            % ("busy_reason does not name this script and %s"
                               % want, repr(reason)))
            with self.assertRaises(UsageError,
                                   msg="hold_devices on a held file: the "
                                       "program's words") as cm:
                devices.hold_devices([dev],
                                     lambda d: precheck.busy_reason(PROGRAM,
                                                                    d))
            self.assertEqual(reason, str(cm.exception),
                             "hold_devices on a held file: the program's "
                             "words: message")
            self.assertEqual(2, getattr(cm.exception, "status", None),
                             "hold_devices on a held file: the program's "
                             "words: status")
            with self.assertRaises(UsageError,
                                   msg="hold_devices without explain: a plain "
                                       "message") as cm:
                devices.hold_devices([dev])
            self.assertEqual("device %s is in use by another process - "
                             "another "
                             "test is running on it" % dev, str(cm.exception),
                             "hold_devices without explain: a plain message: "
                             "message")
            self.assertEqual(2, getattr(cm.exception, "status", None),
                             "hold_devices without explain: a plain message: "
                             "status")
            self.assertEqual(None, precheck.busy_reason("/bin/true", dev),
                             "busy_reason when the program finds nothing "
                             "wrong")
        finally:
            os.close(fd)

    def test_run_check(self):
        td = self.td
        rc, line, _out = precheck.run_check(
            os.path.join(td, "no-such-program"), [BASE], held=False)
        self.assertEqual(None, rc, "run_check of a missing program: no status")
        self.assertTrue(line.startswith("can't run "),
                        "run_check of a missing program: %r" % line)
        script = os.path.join(td, "says.sh")
        with open(script, "w") as f:
            f.write("#!/bin/sh\necho first >&2\necho 'last words' >&2\nexit "
                    "2\n")
        os.chmod(script, stat.S_IRWXU)
        self.assertEqual((2, "last words", b""),
                         precheck.run_check(script, [BASE],
                                            held=False),
                         "run_check without an ERROR line: the last line")

    def test_command_line(self):
        td = self.td
        dev = make_file(os.path.join(td, "cli.img"))
        bad = os.path.join(td, "bad.conf")
        with open(bad, "w") as f:
            f.write(read(BASE) + "bogus-item: 1\n")
        env = dict(os.environ, ACT_BIN=BIN)
        for extra in ([], ["--dry-run"]):
            out = os.path.join(td, "out")
            r = subprocess.run([sys.executable, os.path.join(
                support.ANALYSIS, "act_certify.py"), "--device", dev, "--load",
                "1", "--seconds", "2", "--config", bad, "--out", out] + extra,
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                universal_newlines=True, timeout=120)
            what = "a refused base config%s" % (" (--dry-run)" if extra
                                                else "")
            self.assertEqual((78, ""), (r.returncode, r.stdout),
                             "%s: exit status" % what)
            self.assertTrue("act_storage refuses the base config %s: unknown "
                            "config item 'bogus-item'" % bad in r.stderr,
                            "%s\n%s"
                            % ("%s: not the program's words" % what, r.stderr))
            self.assertTrue(not os.path.exists(out), "%s: DIR created" % what)


if __name__ == "__main__":
    if not os.access(PROGRAM, os.X_OK):
        print("SKIP: %s not built (run make)" % PROGRAM)
        sys.exit(77)
    unittest.main()
