#!/usr/bin/env python3
"""Description: act.logfile.header: the header of a log (read_header) - the
reference's example_storage.log, an act_index microsecond log, a log without
the scale line, a version with a patch number, and each way a header is refused
(LogError, with the reason); the histograms the ACT criteria judge
(judged_histograms: reads; writes with commit-to-device; act_index's reads
only).

    python3 tests/python/logfile/test_header.py [-v]
"""

import io
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
from support import FIXTURES, read  # noqa: E402

from act.logfile import LogError  # noqa: E402
from act.logfile.header import judged_histograms, read_header  # noqa: E402


class ParseHeader(unittest.TestCase):

    def header(self, name="example_storage.log"):
        with open(os.path.join(FIXTURES, name), "rb") as f:
            h = read_header(f, name)
            return h, f.readline()

    def test_storage_header(self):
        h, first_body_line = self.header()
        self.assertEqual("6.6", h.version)
        self.assertEqual(1, h.interval)
        self.assertIs(False, h.microsecond)
        self.assertEqual("ACT-STORAGE CONFIGURATION", h.config[0])
        self.assertEqual("max-lag-sec: 10", h.config[-1])
        self.assertEqual(23, len(h.config))
        self.assertEqual(["DERIVED CONFIGURATION",
                          "record-stored-bytes: 1536 ... 1536",
                          "internal-read-reqs-per-sec: 4000",
                          "internal-write-reqs-per-sec: 0",
                          "large-block-reads-per-sec: 47.06",
                          "large-block-writes-per-sec: 47.06"], h.derived)
        self.assertEqual(["reads", "/tmp/exdev/dev_x-reads",
                          "large-block-reads", "large-block-writes"],
                         h.names)
        self.assertEqual(b"after 1 sec:\n", first_body_line)
        self.assertEqual("1536 ... 1536",
                         h.items(h.derived)["record-stored-bytes"])

    def test_index_microsecond_header(self):
        h, _ = self.header("index_us.log")
        self.assertEqual("ACT-INDEX CONFIGURATION", h.config[0])
        self.assertIs(True, h.microsecond)
        self.assertEqual(6, len(h.names))

    def test_no_scale_line(self):
        h, _ = self.header("no_scale.log")
        self.assertIsNone(h.microsecond)
        self.assertEqual("6.0", h.version)

    def test_version_with_a_patch_number(self):
        good = read(os.path.join(FIXTURES, "example_storage.log"))
        h = read_header(io.BytesIO(good.replace(
            "ACT version 6.6", "ACT version 6.6.1").encode()), "x.log")
        self.assertEqual("6.6.1", h.version)

    def test_header_errors(self):
        good = read(os.path.join(FIXTURES, "example_storage.log"))
        cases = [
            ("", "x.log is empty (0 bytes)"),
            ("hello\nworld\n", "no 'ACT version' line"),
            (good.replace("ACT version 6.6", "ACT version 5.3"),
             "ACT version 5.3: only logs of ACT version 6.x"),
            (good.replace("ACT version 6.6", "ACT version 7.0"),
             "only logs of ACT version 6.x"),
            (good.replace("ACT version 6.6", "ACT version six"),
             "ACT version six"),
            (good.replace("report-interval-sec: 1\n", ""),
             "no report-interval-sec line"),
            (good.replace("report-interval-sec: 1\n",
                          "report-interval-sec: x\n"),
             "bad report-interval-sec 'x'"),
            (good.replace("report-interval-sec: 1\n",
                          "report-interval-sec: 0\n"),
             "bad report-interval-sec 0"),
            (good.replace("ACT-STORAGE CONFIGURATION", "SOMETHING ELSE"),
             "no ACT-STORAGE/ACT-INDEX CONFIGURATION block, no "
             "report-interval-sec line"),
            (good.replace("DERIVED CONFIGURATION", "DERIVED"),
             "no DERIVED CONFIGURATION block"),
            (good.replace("HISTOGRAM NAMES", "HISTOGRAMS"),
             "no HISTOGRAM NAMES block"),
        ]
        for text, message in cases:
            with self.subTest(message=message):
                with self.assertRaises(LogError) as cm:
                    read_header(io.BytesIO(text.encode()), "x.log")
                self.assertIn(message, str(cm.exception))


class JudgedHistograms(unittest.TestCase):

    def header(self, name):
        with open(os.path.join(FIXTURES, name), "rb") as f:
            return read_header(f, name)

    def test_transactions_only(self):
        self.assertEqual({"reads"},
                         judged_histograms(self.header("slow.log")))
        self.assertEqual({"reads", "writes"}, judged_histograms(
            self.header("storage_long_names.log")))     # commit-to-device
        self.assertEqual({"reads"},                     # act_index: cache
                         judged_histograms(self.header("index_us.log")))


if __name__ == "__main__":
    unittest.main()
