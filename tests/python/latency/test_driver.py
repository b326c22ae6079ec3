#!/usr/bin/env python3
"""Description: act_latency.py's one driver (act.latency.driver) and its
output:

- it streams: fed a log through a pipe, the first rows of its table,
  --json and --csv reach its stdout before the rest of the log is
  written, and the finished output is the same as from the whole log in
  a file; a log whose reports are followed by gigabytes without a report
  is read in bounded memory (damaged there);
- a closed pipe is quiet: status 0, or with --check the verdict whatever
  happens to stdout (the same status as when the whole output is read:
  | head -1, a shell pipe, a pipe closed at once, in a long table);
- stdout closed, or that cannot be written (/dev/full), is an error: exit
  status 2, one message, never a traceback, never 0;
- a log missing a report inside it is INCOMPLETE at every slice length,
  with the same reason, and never a pass when the report is missing
  before any slice.

    python3 tests/python/latency/test_driver.py [-v]
"""

import json
import os
import select
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
from support import (FIXTURES, LATENCY, TempLogs, header, make,  # noqa: E402
                     reports, run_latency as run, synthetic_log)


WAIT = 30.0                         # seconds for the first rows (generous)


def run_file(path, argv):
    return run(["-l", path] + argv)


class Pipe(unittest.TestCase):
    SECONDS = 40

    def stream(self, argv, first_rows):
        """Feed the log through a FIFO: the first half, then wait until
        stdout has first_rows (a predicate on the text so far), then the
        rest.  Returns (what came before the rest was written, the whole
        output, status)."""
        head = header(duration=self.SECONDS)
        half = reports(range(1, self.SECONDS // 2 + 1))
        # a report is complete when the next one starts: end with its line
        rest = reports(range(self.SECONDS // 2 + 1, self.SECONDS + 1))
        with tempfile.TemporaryDirectory() as td:
            os.mkdir(os.path.join(td, "file"))
            whole = make(os.path.join(td, "file", "x.log"),
                         head + half + rest)
            fifo = os.path.join(td, "x.log")
            os.mkfifo(fifo)
            p = subprocess.Popen([sys.executable, LATENCY, "-l", fifo] + argv,
                                 stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE)
            try:
                with open(fifo, "w") as w:
                    w.write(head + half + rest[:rest.index("\n")])
                    w.flush()
                    early = b""
                    deadline = time.monotonic() + WAIT
                    while not first_rows(early.decode()):
                        left = deadline - time.monotonic()
                        if left <= 0 or p.poll() is not None:
                            break
                        ready, _, _ = select.select([p.stdout], [], [],
                                                    left)
                        if ready:
                            got = os.read(p.stdout.fileno(), 65536)
                            if not got:
                                break
                            early += got
                    w.write(rest[rest.index("\n"):])
                out, err = p.communicate(timeout=120)
            finally:
                if p.poll() is None:
                    p.kill()
                    p.wait()
            early = early.decode()
            full = early + out.decode()
            code, want, _ = run_file(whole, argv)
            self.assertEqual(0, code)
            self.assertEqual(want.replace(whole, fifo), full)
            return early, full, p.returncode

    def test_table_rows_before_the_rest(self):
        early, full, code = self.stream(
            ["-t", "1"], lambda t: "\n    5 " in t)
        self.assertEqual(0, code)
        self.assertIn("\n    5 ", early,
                      "expected rows 1-5 before the rest of the log was "
                      "written, got:\n" + early)
        self.assertNotIn("\n   39 ", early)

    def test_json_slices_before_the_rest(self):
        early, full, code = self.stream(
            ["-t", "1", "--json", "-h", "reads", "-h", "writes"],
            lambda t: '"slice": 5,' in t)
        self.assertEqual(0, code)
        self.assertIn('"slice": 5,', early,
                      "expected the first slices of the JSON document "
                      "before the rest of the log was written, got:\n"
                      + early)
        self.assertEqual(2, len(json.loads(full)["histograms"]))

    def test_csv_rows_before_the_rest(self):
        early, full, code = self.stream(
            ["-t", "1", "--csv"], lambda t: "\n5,5," in t)
        self.assertEqual(0, code)
        self.assertIn("\n5,5,", early,
                      "expected the first CSV rows before the rest of the "
                      "log was written, got:\n" + early)


class Unbounded(unittest.TestCase):
    def test_gigabytes_without_a_report(self):
        """A log whose reports are followed by 3 GiB of zeros (no line
        end, no report): analysed in bounded memory (1 GiB of address
        space is plenty), the slices before shown, the rest damage."""
        import resource

        def limited():
            resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
        text = header(duration=10) + reports(range(1, 4))
        with tempfile.TemporaryDirectory() as td:
            path = make(os.path.join(td, "x.log"), text)
            os.truncate(path, 3 << 30)
            p = subprocess.run([sys.executable, LATENCY, "-l", path, "-t",
                                "1"], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, preexec_fn=limited,
                               timeout=120)
        out, err = p.stdout.decode(), p.stderr.decode()
        self.assertNotIn("Traceback", err)
        self.assertIn("MiB of the log from its report after 3 sec hold no "
                      "other report; the rest of the log is ignored", err)
        self.assertIn("\n    2 ", out)
        self.assertEqual(0, p.returncode, err)


class Output(unittest.TestCase):
    """What happens to stdout."""

    def test_broken_pipe_is_quiet(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "long.log")
            with open(path, "w") as f:
                f.write(synthetic_log(4000, ["reads"], 1, widen=False))
            p = subprocess.Popen([sys.executable, LATENCY, "-l", path, "-t",
                                  "1"], stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE)
            p.stdout.readline()
            p.stdout.close()
            err = p.stderr.read().decode()
            p.stderr.close()
            # a closed pipe is the reader's choice: status 0 (issue 14)
            self.assertEqual(0, p.wait())
            self.assertEqual("", err)

    @unittest.skipUnless(os.path.exists("/dev/full"), "needs /dev/full")
    def test_output_that_cannot_be_written(self):
        for extra in ([], ["--json"], ["--check"]):
            with self.subTest(extra=extra), open("/dev/full", "w") as full:
                p = subprocess.run([sys.executable, LATENCY, "-l",
                                    "example_storage.log", "-t", "1"] + extra,
                                   cwd=FIXTURES, stdout=full,
                                   stderr=subprocess.PIPE, text=True)
                self.assertEqual(2, p.returncode)
                self.assertEqual("act_latency.py: error: cannot write the "
                                 "output: No space left on device\n",
                                 p.stderr)


class ClosedPipe(TempLogs):
    """The reader goes away (| head -1): stop quietly, exit status 0 (with
    --check: the verdict's)."""

    def long_log(self):
        return self.write("long.log", synthetic_log(20000, ["reads"], 1,
                                                    widen=False))

    def read_one_line_and_close(self, args):
        p = subprocess.Popen([sys.executable, LATENCY] + args, cwd=self.tmp,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            first = p.stdout.readline()
            p.stdout.close()
            err = p.stderr.read()
            p.wait(timeout=60)
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
            p.stderr.close()
        return p.returncode, first, err

    def test_head(self):
        self.long_log()
        for args in (["-l", "long.log", "-t", "1"],
                     ["-l", "long.log", "-t", "1", "-x", "--check"],
                     ["-l", "long.log", "-l", "long.log", "-t", "1"],
                     ["-l", "long.log", "-t", "1", "--csv"]):
            with self.subTest(args=args):
                code, first, err = self.read_one_line_and_close(args)
                # --check: the verdict whatever happens to stdout (the same
                # status as when the whole output is read), else 0
                want = 0
                if "--check" in args:
                    want = subprocess.run([sys.executable, LATENCY] + args,
                                          cwd=self.tmp,
                                          capture_output=True).returncode
                    self.assertEqual(1, want)
                self.assertEqual((want, b""), (code, err))
                self.assertTrue(first.startswith(b"act_latency.py -l long"
                                                 if "--csv" not in args
                                                 else b"slice,"))

    def test_shell_pipe(self):
        self.long_log()
        p = subprocess.run("%s %s -l long.log -t 1 | head -1; "
                           "echo status ${PIPESTATUS[0]}"
                           % (sys.executable, LATENCY), shell=True,
                           executable="/bin/bash", cwd=self.tmp,
                           capture_output=True, text=True)
        self.assertEqual("act_latency.py -l long.log -t 1\nstatus 0\n",
                         p.stdout)
        self.assertEqual("", p.stderr)


def run_closed_pipe(argv):
    """Run the script with stdout a pipe whose read end is closed at once
    (`| head -c0`): (exit status, stderr)."""
    r, w = os.pipe()
    os.close(r)
    try:
        p = subprocess.run([sys.executable, LATENCY] + argv, stdout=w,
                           stderr=subprocess.PIPE)
    finally:
        os.close(w)
    return p.returncode, p.stderr.decode()


def run_stdout_closed(argv):
    """Run the script with fd 1 not open at all (`>&-`)."""
    p = subprocess.run(["sh", "-c", 'exec "$@" >&-', "sh", sys.executable,
                        LATENCY] + argv, stderr=subprocess.PIPE)
    return p.returncode, p.stderr.decode()


class Logs(unittest.TestCase):
    @classmethod
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        d = cls.tmp.name
        h = header(duration=10, reads_per_sec=100)
        cls.passing = make(os.path.join(d, "pass.log"),
                           h + reports(range(1, 11), over=0))
        cls.failing = make(os.path.join(d, "fail.log"),
                           h + reports(range(1, 11), over=10))
        # a report missing inside the log, after the first hour: every
        # slice length has a slice before it
        cls.gap = make(
            os.path.join(d, "gap.log"),
            header(duration=3610, reads_per_sec=100) + reports(
                [t for t in range(1, 3611) if t != 3605], over=0))

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()


class ClosedPipeVerdict(Logs):
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
        log = make(os.path.join(self.tmp.name, "early.log"),
                   header(duration=10) + reports(
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
