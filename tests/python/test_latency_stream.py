#!/usr/bin/env python3
"""Description: act_latency.py streams (issue 21): fed a log through a
pipe, the first rows of its table, --json and --csv reach its stdout
before the rest of the log is written; the finished output is the same as
from the whole log in a file.  Also the JSON document streamed with
several -h parses to the object json_document() builds.  And a log whose
reports are followed by gigabytes without a report is read in bounded
memory (damaged there).

    python3 tests/python/test_latency_stream.py [-v]
"""

import json
import os
import select
import subprocess
import sys
import tempfile
import time
import unittest

import actlog
from actlog import header, reports

from act.latency import Spec

SCRIPT = os.path.join(actlog.ROOT, "analysis", "act_latency.py")
WAIT = 30.0                         # seconds for the first rows (generous)


def run_file(path, argv):
    p = subprocess.run([sys.executable, SCRIPT, "-l", path] + argv,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return p.returncode, p.stdout.decode(), p.stderr.decode()


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
            whole = actlog.make(os.path.join(td, "file", "x.log"),
                                head + half + rest)
            fifo = os.path.join(td, "x.log")
            os.mkfifo(fifo)
            p = subprocess.Popen([sys.executable, SCRIPT, "-l", fifo] + argv,
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
            path = actlog.make(os.path.join(td, "x.log"), text)
            os.truncate(path, 3 << 30)
            p = subprocess.run([sys.executable, SCRIPT, "-l", path, "-t",
                                "1"], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, preexec_fn=limited,
                               timeout=120)
        out, err = p.stdout.decode(), p.stderr.decode()
        self.assertNotIn("Traceback", err)
        self.assertIn("MiB of the log from its report after 3 sec hold no "
                      "other report; the rest of the log is ignored", err)
        self.assertIn("\n    2 ", out)
        self.assertEqual(0, p.returncode, err)


class JsonText(unittest.TestCase):
    def test_streamed_text_is_json_dumps_of_the_document(self):
        from act.latency.export import json_document
        text = header(duration=30) + reports(range(1, 31), over=3)
        argv = ["-t", "2", "-h", "reads", "-h", "writes", "-h", "reads",
                "--check", "-x"]
        a = actlog.analysed(text, Spec(
            slice_sec=2, histograms=("reads", "writes", "reads"), check=True))
        with tempfile.TemporaryDirectory() as td:
            path = actlog.make(os.path.join(td, "x.log"), text)
            code, out, err = run_file(path, argv + ["--json"])
        doc = json_document(a)
        doc["log"] = path
        self.assertEqual(json.dumps(doc) + "\n", out)


if __name__ == "__main__":
    unittest.main()
