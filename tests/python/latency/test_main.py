#!/usr/bin/env python3
"""Description: act.latency.main, act_latency.py's command line: every user
error (the command line, the log, the analysis) is exit status 2 with one
message and no traceback, --help, main() returns the status; --version is
act's; device names that are not UTF-8 come out byte for byte.

    python3 tests/python/latency/test_main.py [-v]
"""

import io
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
from support import (FIXTURES, LATENCY, REPO, read,  # noqa: E402
                     run_latency as run)

import act
from act.latency.main import main  # noqa: E402


class Errors(unittest.TestCase):

    def assertUserError(self, args, message, cwd=FIXTURES):
        code, out, err = run(args, cwd=cwd)
        self.assertEqual(2, code, err)
        self.assertIn(message, err)
        self.assertTrue(err.startswith("act_latency.py: error: "), err)
        self.assertNotIn("Traceback", err)
        self.assertEqual("", out)

    def test_command_line_errors(self):
        log = ["-l", "example_storage.log"]
        cases = [
            ([], "the log is required"),
            (["-t", "2"], "the log is required"),
            (log + ["-t", "abc"], "argument -t/--slice: invalid int value"),
            (log + ["-t", "0"], "-t/--slice must be at least 1 second"),
            (log + ["-n", "0"], "-n/--num_buckets must be at least 1"),
            (log + ["-e", "0"], "-e/--every_nth must be at least 1"),
            (log + ["-s", "-1"], "-s/--start_bucket must be within 0..64"),
            (log + ["-s", "65"], "-s/--start_bucket must be within 0..64"),
            (log + ["-s", "60", "-n", "7"], "would display buckets up to 66"),
            (log + ["-n", "20", "-e", "4"], "would display buckets up to 76"),
            (log + ["-s", "x1"], "invalid int value"),
            (log + ["-h"], "expected one argument"),
            (log + ["--bogus"], "unrecognized arguments: --bogus"),
            (log + ["--criteria", "1:5,3:1"], "must be a power of two"),
            (log + ["--criteria", "1:500"], "within 0..100"),
            (log + ["--criteria", "0.5:1"], "a millisecond log starts at"),
            (log + ["--plot", "no/such/folder/p.svg"],
             "cannot write the plot"),
        ]
        for args, message in cases:
            with self.subTest(args=args):
                self.assertUserError(args, message)

    def test_log_errors(self):
        with tempfile.TemporaryDirectory() as tmp:
            good = read(os.path.join(FIXTURES, "example_storage.log"))
            files = {
                "empty.log": "",
                "text.log": "just some text\n",
                "v5.log": good.replace("ACT version 6.6", "ACT version 5.3"),
                "nonames.log": good.replace("HISTOGRAM NAMES", "NAMES"),
                "noreports.log": good[:good.index("after 1 sec:")],
                "binary.log": None,
                # a program's strings: a version line, then NUL bytes
                "program.log": "\x7fELF\x02\x01\x01\x00\x00\nACT version "
                               "%s\n\x00\x00usage: %s\n",
            }
            for name, text in files.items():
                with open(os.path.join(tmp, name), "wb") as f:
                    f.write(os.urandom(3000) if text is None
                            else text.encode())
            cases = [
                (["-l", "missing.log"],
                 "cannot open the log missing.log: No such file"),
                (["-l", "."], "cannot open the log .: Is a directory"),
                (["-l", "empty.log/x"], "cannot open the log empty.log/x"),
                (["-l", "empty.log"],
                 "error: empty.log is empty (0 bytes): nothing to analyse"),
                (["-l", "text.log"], "text.log is not an ACT log"),
                (["-l", "binary.log"], "error: binary.log is not a text ACT "
                 "log: it holds binary data (NUL bytes)"),
                (["-l", "program.log"], "error: program.log is not a text "
                 "ACT log: it holds binary data (NUL bytes)"),
                (["-l", "v5.log"], "v5.log is ACT version 5.3"),
                (["-l", "nonames.log"], "no HISTOGRAM NAMES block"),
                (["-l", "noreports.log", "-t", "1"],
                 "could not find 1 seconds of data in noreports.log"),
            ]
            for args, message in cases:
                with self.subTest(args=args):
                    self.assertUserError(args, message, cwd=tmp)

    def test_analysis_errors(self):
        cases = [
            (["-l", "example_storage.log", "-h", "large-block"],
             "histogram large-block not in example_storage.log; its "
             "histograms are: reads, /tmp/exdev/dev_x-reads, "
             "large-block-reads, large-block-writes"),
            (["-l", "example_storage.log", "-h", "reads", "-h", "x", "-h",
              "y"], "histogram x, y not in"),
            (["-l", "example_storage.log"],
             "could not find 3600 seconds of data in example_storage.log"),
            (["-l", "interval2.log", "-t", "13"],
             "could not find 14 seconds of data"),
            (["-l", "live.log", "-t", "7"], "could not find 7 seconds"),
            (["-l", "example_storage.log", "--json", "-t", "11"],
             "could not find 11 seconds"),
        ]
        for args, message in cases:
            with self.subTest(args=args):
                self.assertUserError(args, message)

    def test_help(self):
        code, out, err = run(["--help"])
        self.assertEqual((0, ""), (code, err))
        self.assertRegex(out, r"\n  -l( LOG)?, --log LOG ")
        self.assertRegex(out, r"\n  -h( NAME)?, --histogram NAME\s")
        for option in ("--slice", "--start_bucket", "--num_buckets",
                       "--every_nth", "--extra", "--check", "--criteria",
                       "--stress", "--json", "--plot", "(default: 3600)",
                       "(default: reads)"):
            self.assertIn(option, out)

    def test_main_returns_status(self):
        err = io.StringIO()
        old, sys.stderr = sys.stderr, err
        try:
            status = main(["-l", os.path.join(FIXTURES, "nope.log")])
        finally:
            sys.stderr = old
        self.assertEqual(2, status)
        self.assertIn("cannot open the log", err.getvalue())


class Version(unittest.TestCase):

    def test_version(self):
        code, out, err = run(["--version"])
        self.assertEqual((0, "act_latency.py 6.7\n", ""), (code, out, err))

    def test_same_as_act(self):
        with open(os.path.join(REPO, "src", "common", "version.h")) as f:
            m = re.search(r'#define ACT_VERSION "([^"]+)"', f.read())
        self.assertEqual(m.group(1), act.VERSION)


class NonUtf8Names(unittest.TestCase):
    """Device names are bytes: a log whose names are not UTF-8 reads like
    any other (issue 12: it used to report every interval as incomplete),
    and the names come back out byte for byte."""

    def test_same_table_with_non_utf8_device_names(self):
        with open(os.path.join(FIXTURES, "storage_long_names.log"), "rb") as f:
            good = f.read()
        bad = good.replace(b"/dev/sdc", b"/dev/sd\xe9\xffc")
        self.assertNotEqual(good, bad)
        with tempfile.TemporaryDirectory() as tmp:
            paths = []
            for name, data in (("good.log", good), ("bad.log", bad)):
                paths.append(os.path.join(tmp, name))
                with open(paths[-1], "wb") as f:
                    f.write(data)
            outs = []
            for path, dev in zip(paths, (b"/dev/sdc", b"/dev/sd\xe9\xffc")):
                p = subprocess.run([sys.executable.encode(), LATENCY.encode(),
                                    b"-l", path.encode(), b"-t", b"2", b"-h",
                                    b"reads", b"-h", dev + b"-reads"],
                                   capture_output=True)
                self.assertEqual(0, p.returncode, p.stderr)
                self.assertEqual(b"", p.stderr)
                outs.append(p.stdout)
            self.assertIn(b"/dev/sd\xe9\xffc-reads", outs[1])

            def rows(out):   # the numbers: slice, avg and max rows
                return [" ".join(line.split()) for line in
                        out.decode("utf-8", "replace").splitlines()
                        if line.split()[:1] and (line.split()[0].isdigit() or
                                                 line.split()[0] in ("avg",
                                                                     "max"))]
            self.assertTrue(rows(outs[0]))
            self.assertEqual(rows(outs[0]), rows(outs[1]))
            p = subprocess.run([sys.executable, LATENCY, "-l", paths[1],
                                "-t", "2", "--json", "--check"],
                               capture_output=True)
            doc = json.loads(p.stdout)
            self.assertTrue(doc["complete"])


if __name__ == "__main__":
    unittest.main()
