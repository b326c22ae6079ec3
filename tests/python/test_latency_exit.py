#!/usr/bin/env python3
"""Tests of act_latency.py's exit status where it must not pass (issue 19):
--check into a closed pipe is still the verdict, stdout closed is an error
(never a traceback, never 0), and a log missing a report inside it is
INCOMPLETE at every slice length, with the same reason.

    python3 tests/python/test_latency_exit.py [-v]
"""

import os
import subprocess
import sys
import tempfile
import unittest

import actlog

SCRIPT = os.path.join(actlog.ROOT, "analysis", "act_latency.py")


def run_closed_pipe(argv):
    """Run the script with stdout a pipe whose read end is closed at once
    (`| head -c0`): (exit status, stderr)."""
    r, w = os.pipe()
    os.close(r)
    try:
        p = subprocess.run([sys.executable, SCRIPT] + argv, stdout=w,
                           stderr=subprocess.PIPE)
    finally:
        os.close(w)
    return p.returncode, p.stderr.decode()


def run_stdout_closed(argv):
    """Run the script with fd 1 not open at all (`>&-`)."""
    p = subprocess.run(["sh", "-c", 'exec "$@" >&-', "sh", sys.executable,
                        SCRIPT] + argv, stderr=subprocess.PIPE)
    return p.returncode, p.stderr.decode()


def run(argv):
    p = subprocess.run([sys.executable, SCRIPT] + argv,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return p.returncode, p.stdout.decode(), p.stderr.decode()


class Logs(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        d = cls.tmp.name
        h = actlog.header(duration=10, reads_per_sec=100)
        cls.passing = actlog.make(os.path.join(d, "pass.log"),
                                  h + actlog.reports(range(1, 11), over=0))
        cls.failing = actlog.make(os.path.join(d, "fail.log"),
                                  h + actlog.reports(range(1, 11), over=10))
        # a report missing inside the log, after the first hour: every
        # slice length has a slice before it
        cls.gap = actlog.make(
            os.path.join(d, "gap.log"),
            actlog.header(duration=3610, reads_per_sec=100) + actlog.reports(
                [t for t in range(1, 3611) if t != 3605], over=0))

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()


class ClosedPipe(Logs):
    def test_check_is_the_verdict(self):
        for extra in ([], ["--json"], ["--csv"], ["-l", "PASS"]):
            argv = [a if a != "PASS" else self.passing for a in extra]
            with self.subTest(extra=extra):
                # (--csv: the check report is on stderr)
                self.assertEqual(1, run_closed_pipe(
                    ["-l", self.failing, "-t", "1", "--check"] + argv)[0])
                self.assertEqual(0, run_closed_pipe(
                    ["-l", self.passing, "-t", "1", "--check"] + argv)[0])

    def test_check_stops_late_on_a_long_table(self):
        # the pipe breaks in the table, not at the last flush
        status, err = run_closed_pipe(["-l", self.gap, "-t", "1", "--check"])
        self.assertEqual(1, status)
        self.assertNotIn("Traceback", err)

    def test_without_check_the_readers_choice(self):
        self.assertEqual((0, ""),
                         run_closed_pipe(["-l", self.failing, "-t", "1"]))


class StdoutClosed(Logs):
    def test_an_error_never_0(self):
        for log in (self.failing, self.passing):
            for extra in ([], ["--check"], ["--json", "--check"]):
                with self.subTest(log=log, extra=extra):
                    status, err = run_stdout_closed(
                        ["-l", log, "-t", "1"] + extra)
                    self.assertEqual(2, status)
                    self.assertEqual("act_latency.py: error: cannot write "
                                     "the output: stdout is closed\n", err)


class MissingReport(Logs):
    def test_incomplete_at_every_slice_length(self):
        reason = ("damaged log: there is no report after 3605 sec; the rest "
                  "of the log is ignored")
        for t in (["-t", "1"], ["-t", "5"], ["-t", "7"], []):
            with self.subTest(t=t):
                status, out, err = run(["-l", self.gap, "--check"] + t)
                self.assertEqual(1, status)
                self.assertIn("run: INCOMPLETE - " + reason, out)
                self.assertIn("result: INCOMPLETE", out)
                self.assertIn("warning: there is no report after 3605 sec",
                              err)

    def test_missing_before_any_slice_is_never_a_pass(self):
        log = actlog.make(os.path.join(self.tmp.name, "early.log"),
                          actlog.header(duration=10) + actlog.reports(
                              [1, 2, 3, 4, 6, 7, 8, 9, 10], over=0))
        reason = ("run: INCOMPLETE - damaged log: there is no report after "
                  "5 sec; the rest of the log is ignored")
        # -t 1 = the interval; 5, 3600 (the default) and 100 end no slice
        # before the gap: the same verdict, never the "could not find" error
        for t in (["-t", "1"], ["-t", "3"], ["-t", "5"], [], ["-t", "100"],
                  ["-t", "3600", "--stress"]):
            with self.subTest(t=t):
                status, out, err = run(["-l", log, "--check"] + t)
                self.assertEqual(1, status, out + err)
                self.assertIn("there is no report after 5 sec", err)
                self.assertIn(reason, out)
                self.assertIn("\nresult: INCOMPLETE (", out)
                self.assertNotIn("could not find", err)


if __name__ == "__main__":
    unittest.main()
