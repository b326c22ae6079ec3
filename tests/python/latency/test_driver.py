#!/usr/bin/env python3
"""Description: act.latency.driver's output: a closed pipe is quiet (status 0,
or the verdict with --check, as when the whole output is read: | head -1 and a
shell pipe), and an output that cannot be written (/dev/full) is an error, exit
status 2, one message.

    python3 tests/python/latency/test_driver.py [-v]
"""

import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
from support import FIXTURES, LATENCY, TempLogs, synthetic_log  # noqa: E402



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


if __name__ == "__main__":
    unittest.main()
