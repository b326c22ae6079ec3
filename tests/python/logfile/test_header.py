#!/usr/bin/env python3
"""Description: act.logfile.header: the header of a log (read_header) - its
fields, devices, identity and start time, a microsecond log without test-
duration-sec, the reference's example_storage.log, an act_index microsecond
log, a log without the scale line, a version with a patch number, and each way
a header is refused (LogError, with the reason); opening a log (open_log: read
twice, or once from a pipe; a campaign's logs regular files of a bounded size);
the histograms the ACT criteria judge (judged_histograms: reads; writes with
commit-to-device; act_index's reads only).

    python3 tests/python/logfile/test_header.py [-v]
"""

import io
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
from support import FIXTURES, header, make, read, reports  # noqa: E402

from act.logfile import LogError  # noqa: E402
from act.logfile.header import (judged_histograms, open_log,  # noqa: E402
                                read_header)


class Header(unittest.TestCase):
    def test_fields(self):
        f = io.BytesIO((header(duration=7, interval=2, commit=True) +
                        reports([2, 4])).encode())
        h = read_header(f)
        self.assertEqual("6.7", h.version)
        self.assertEqual(2, h.interval)
        self.assertEqual(7, h.duration)
        self.assertIs(False, h.microsecond)
        self.assertTrue(h.commit)
        self.assertEqual("ACT-STORAGE CONFIGURATION", h.config[0])
        self.assertEqual({"device-names": "/dev/sdb",
                          "test-duration-sec": "7",
                          "report-interval-sec": "2",
                          "microsecond-histograms": "no",
                          "commit-to-device": "yes"}, h.items(h.config))
        self.assertEqual(["DERIVED CONFIGURATION",
                          "internal-read-reqs-per-sec: 2000"], h.derived)
        self.assertEqual(["reads", "writes"], h.names)
        self.assertEqual({"reads", "writes"}, judged_histograms(h))
        # the file is left at the first report
        self.assertTrue(f.read().startswith(b"after 2 sec:"))

    def test_devices_identity_start(self):
        h = read_header(io.BytesIO(header().encode()))
        self.assertEqual({"/dev/sdb": 2147483648}, h.devices)
        self.assertEqual({"/dev/sdb": {"model": "SAMSUNG MZQL21T9HCJR-00A07",
                                       "serial": "S64GNA0T123456",
                                       "firmware": "GDC5602Q"}}, h.identity)
        self.assertEqual("2026-11-23T03:47:33Z", h.start)
        h = read_header(io.BytesIO(header(identity=False).encode()))
        self.assertEqual(({}, None), (h.identity, h.start))

    def test_microsecond_and_no_duration(self):
        h = read_header(io.BytesIO(header(micro=True,
                                          duration=None).encode()))
        self.assertIs(True, h.microsecond)
        self.assertIsNone(h.duration)
        self.assertEqual({"reads"}, judged_histograms(h))

    def test_not_a_log(self):
        for text, why in (("hello\n", "no 'ACT version' line"),
                          (header().replace("6.7", "5.2"), "version 5.2"),
                          (header().split("HISTOGRAM")[0],
                           "no HISTOGRAM NAMES block")):
            with self.assertRaises(LogError) as e:
                read_header(io.BytesIO(text.encode()), "x.log")
            self.assertIn(why, str(e.exception))

    def test_open_log(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = make(os.path.join(tmp, "x.log"),
                        header() + reports([1, 2]))
            with open_log(path) as log:
                self.assertEqual(["reads", "writes"], log.header.names)
                first = log.file.read()
                self.assertEqual(log.file, log.body_again())
                self.assertEqual(first, log.file.read())
            for bad, why in ((os.path.join(tmp, "none"),
                              "cannot open the log %s/none: No such file"
                              % tmp),
                             (make(os.path.join(tmp, "e"), ""),
                              "%s/e is empty (0 bytes)" % tmp)):
                with self.assertRaises(LogError) as e:
                    open_log(bad)
                self.assertIn(why, str(e.exception))
            # a campaign's logs: regular files only, of a bounded size
            os.symlink(path, os.path.join(tmp, "link.log"))
            with self.assertRaises(LogError) as e:
                open_log(os.path.join(tmp, "link.log"), regular=True)
            self.assertIn("symbolic link", str(e.exception))
            with self.assertRaises(LogError) as e:
                open_log(path, regular=True, max_bytes=10)
            self.assertIn("larger", str(e.exception))
        # a pipe: read once, not twice
        r, w = os.pipe()
        os.write(w, (header() + reports([1])).encode())
        os.close(w)
        with open_log("/dev/fd/%d" % r) as log:
            self.assertIsNone(log.body_again())
        os.close(r)


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
