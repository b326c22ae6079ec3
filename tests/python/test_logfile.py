#!/usr/bin/env python3
"""Tests of act.logfile: the header, opening a log (open_log, LogError),
the reports, every way a log can end (complete, cut mid-report, a signal,
a stop on request, each ERROR stop kind, I/O errors, a missing report
inside the log), the stop phrases, and following a log being written.

    python3 tests/python/test_logfile.py [-v]
"""

import io
import os
import tempfile
import unittest

import actlog
from actlog import header, report, reports

from act.latency.judge import Criterion
from act.logfile import MAX_BUCKET, LogError, over_1ms_bucket
from act.logfile import follow, stops
from act.logfile.header import judged_histograms, open_log, read_header
from act.logfile.reports import (hist_vector, last_errors, parse_block,
                                 run_end)
from act.logfile.scanner import ReportScanner


def scan(text, names=("reads",), slice_sec=1, chunk_size=1 << 20):
    """(slice ends, RunEnd, scanner.stopped) of a whole log."""
    f = io.BytesIO(text.encode() if isinstance(text, str) else text)
    h = read_header(f)
    s = ReportScanner(f, h.rest, h.names, list(names), h.interval,
                      slice_sec, MAX_BUCKET, chunk_size, h.duration)
    ends = []
    for batch_ends, _ in s:
        ends += batch_ends
    return ends, s.end, s.stopped


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
            path = actlog.make(os.path.join(tmp, "x.log"),
                               header() + reports([1, 2]))
            with open_log(path) as log:
                self.assertEqual(["reads", "writes"], log.header.names)
                first = log.file.read()
                self.assertEqual(log.file, log.body_again())
                self.assertEqual(first, log.file.read())
            for bad, why in ((os.path.join(tmp, "none"),
                              "cannot open the log %s/none: No such file"
                              % tmp),
                             (actlog.make(os.path.join(tmp, "e"), ""),
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


class Reports(unittest.TestCase):
    def test_parse_block(self):
        block = report(3, {"reads": {0: 5, 2: 7}, "writes": {}}).encode()
        t, hists = parse_block(block, {b"reads"}, {b"reads", b"writes"})
        self.assertEqual(3, t)
        total, (off, width), buckets = hists[b"reads"]
        self.assertEqual((12, b"12"), (total, block[off:off + width]))
        self.assertEqual({0: 5, 2: 7}, {b: c for b, (c, _) in
                                        buckets.items()})
        self.assertNotIn(b"writes", hists)      # not wanted

    def test_hist_vector(self):
        hist = (12, None, {0: (5, None), 2: (7, None)})
        self.assertEqual([5, 0, 7, 12], hist_vector(hist, 2))
        self.assertEqual([5, 0, 12], hist_vector(hist, 1))  # 2 over top
        self.assertIsNone(hist_vector((13, None, hist[2]), 2))  # not whole
        self.assertIsNone(hist_vector((1, None, {65: (1, None)}), 2))
        self.assertIsNone(hist_vector(None, 2))


class LogEnd(unittest.TestCase):
    """Each way a run ends, as the scanner (the analysis' reader) sees it."""

    def end(self, body, duration=5):
        return scan(header(duration=duration) + body)

    def test_complete(self):
        ends, end, stopped = self.end(reports(range(1, 6)))
        self.assertEqual([1, 2, 3, 4, 5], ends)
        self.assertEqual(("complete", 5, None, None),
                         (end.kind, end.ran, end.reason, end.stop))
        self.assertTrue(end.complete and end.ended)
        self.assertIsNone(stopped)

    def test_complete_without_duration(self):
        ends, end, _ = self.end(reports(range(1, 4)), duration=None)
        self.assertEqual(("complete", 3, None),
                         (end.kind, end.ran, end.planned))

    def test_cut_mid_report(self):
        text = reports(range(1, 5))
        cut = text[:text.rindex("(03:")]       # report 4 lost its writes
        ends, end, stopped = self.end(cut)
        self.assertEqual([1, 2, 3, 4], ends)    # reads of 4 are whole
        self.assertEqual(("cut", 3, "log ends after 3 of 5 sec"),
                         (end.kind, end.ran, end.reason))
        self.assertFalse(end.ended)
        self.assertIsNone(end.stop)
        self.assertIsNone(stopped)

    def test_cut_before_first_report(self):
        _, end, _ = self.end("")
        self.assertEqual(("cut", 0), (end.kind, end.ran))

    def test_signal(self):
        _, end, _ = self.end(reports(range(1, 4)) +
                             "stopped by signal SIGINT after 3 sec\n")
        self.assertEqual(("stopped", 3, "signal"),
                         (end.kind, end.ran, end.stop))
        self.assertEqual("stopped by signal SIGINT after 3 sec", end.reason)
        self.assertTrue(end.ended and not end.complete)

    def test_each_error_stop(self):
        for lines, kind in ((actlog.HOST_LAG, "host-limit"),
                            (actlog.DRIVE_LAG, "drive-limit"),
                            (actlog.DRIVE_STALL, "drive-limit"),
                            (actlog.HUNG, "hung-io"),
                            (actlog.IO_ERRORS, "io-errors")):
            with self.subTest(kind=kind, first=lines[0][:40]):
                _, end, _ = self.end(reports(range(1, 3)) +
                                     "\n".join(lines) + "\n")
                self.assertEqual(("stopped", 2, kind),
                                 (end.kind, end.ran, end.stop))
                # the reason is the first ERROR line, as printed
                self.assertEqual(lines[0][len("ERROR: "):], end.reason)

    def test_io_error_lines_before_a_later_report(self):
        # ERROR lines that a report follows did not stop the run
        body = (reports([1]) + actlog.IO_ERRORS[0] + "\n" +
                reports(range(2, 6)))
        _, end, _ = self.end(body)
        self.assertEqual(("complete", None), (end.kind, end.stop))

    def test_hung_io_after_the_last_report(self):
        line = ("ERROR: device /dev/sdb is not responding: a 1536-byte read "
                "at offset 4096 has not completed after 3.497 sec, still "
                "outstanding when the run ended")
        _, end, _ = self.end(reports(range(1, 6)) + line + "\n")
        self.assertEqual(("stopped", 5, "hung-io"),
                         (end.kind, end.ran, end.stop))

    def test_missing_intermediate_report(self):
        ends, end, stopped = self.end(reports([1, 2, 4, 5]))
        self.assertEqual([1, 2], ends)
        self.assertEqual("there is no report after 3 sec", stopped)

    def test_damaged_intermediate_report(self):
        # report 3's reads lose their bucket line
        text = reports(range(1, 6)).replace(
            "reads (303 total)\n (00: 0000000300) (03: 0000000003)\n",
            "reads (303 total)\n", 1)
        self.assertNotEqual(reports(range(1, 6)), text)
        ends, _, stopped = self.end(text)
        self.assertEqual([1, 2], ends)
        self.assertEqual("the report after 3 sec is incomplete", stopped)

    def test_small_chunks_read_the_same(self):
        text = header() + reports(range(1, 4)) + "\n".join(actlog.HOST_LAG)
        whole = scan(text)
        for size in (7, 64, 300):
            ends, end, stopped = scan(text, chunk_size=size)
            self.assertEqual((whole[0], repr(whole[1]), whole[1].stop),
                             (ends, repr(end), end.stop))

    def test_run_end_direct(self):
        tail = (reports([4, 5]) + "stopped by signal SIGTERM after 5 sec\n")
        end = run_end(tail.encode(), {b"reads", b"writes"}, 10, 3)
        self.assertEqual(("stopped", 5, "signal"),
                         (end.kind, end.ran, end.stop))

    def test_stopped_on_request(self):
        line = ("stopped on request: fail fast: reads 7.20% over 1 ms (must "
                "be under 5%) in slice 3 after 6 sec")
        # the line as the C programs write a stop line: after the last
        # report, the log's last line (docs/log-format.md, "End of run")
        end = run_end((reports([5, 6]) + line + "\n").encode(),
                      {b"reads", b"writes"}, 10, 4)
        self.assertEqual(("stopped", 6, "request", line),
                         (end.kind, end.ran, end.stop, end.reason))
        self.assertEqual("fail fast: reads 7.20% over 1 ms (must be under "
                         "5%) in slice 3", stops.request_reason([line]))
        with tempfile.TemporaryDirectory() as tmp:
            path = actlog.make(os.path.join(tmp, "x.log"), header() +
                               reports([1]) + line + "\n")
            self.assertEqual([line], last_errors(path))


class Stops(unittest.TestCase):
    def test_the_six_kinds(self):
        self.assertEqual({"host-limit", "drive-limit", "hung-io",
                          "io-errors", "signal", "request"},
                         set(stops.STOP_KINDS))

    def test_request(self):
        line = ("stopped on request: fail fast: reads 7.20% over 1 ms "
                "(must be under 5%) in hour 3 after 10800 sec")
        self.assertEqual("request", stops.stop_kind(line))
        self.assertEqual("fail fast: reads 7.20% over 1 ms (must be under "
                         "5%) in hour 3", stops.request_reason([b"x", line]))
        self.assertIsNone(stops.request_reason(
            ["stopped by signal SIGINT after 3 sec"]))
        # a request wins over a signal line, wherever each is
        self.assertEqual("request", stops.stop_kind_of(
            [line.encode(), b"stopped by signal SIGINT after 3 sec"]))

    def test_stop_kind(self):
        self.assertEqual("host-limit", stops.stop_kind(actlog.HOST_LAG[1]))
        self.assertEqual("drive-limit", stops.stop_kind(actlog.DRIVE_LAG[1]))
        self.assertEqual("drive-limit",
                         stops.stop_kind(actlog.DRIVE_STALL[1]))
        self.assertEqual("hung-io", stops.stop_kind(actlog.HUNG[0].encode()))
        self.assertEqual("io-errors", stops.stop_kind(actlog.IO_ERRORS[-1]))
        self.assertEqual("signal", stops.stop_kind(
            "stopped by signal SIGINT after 0 sec\n"))
        self.assertEqual("request", stops.stop_kind(
            "stopped on request: fail fast: x after 9 sec\n"))
        # a lag's first line, a failed I/O, other lines: no kind
        for line in (actlog.HOST_LAG[0], actlog.IO_ERRORS[0],
                     "after 3 sec:", "drive(s) can't keep up",
                     "reads (5 total)"):
            self.assertIsNone(stops.stop_kind(line), line)


    def test_stop_kind_of_the_lines_after_the_last_report(self):
        lag = [l.encode() for l in actlog.HOST_LAG]
        self.assertEqual("host-limit", stops.stop_kind_of([b""] + lag))
        # a report after the ERROR lines: they did not stop the run
        self.assertIsNone(stops.stop_kind_of(lag + [b"after 3 sec:"]))
        self.assertEqual("hung-io", stops.stop_kind_of(
            lag + [b"after 3 sec:", actlog.HUNG[0].encode()]))
        # a signal line wins wherever it is
        self.assertEqual("signal", stops.stop_kind_of(
            [b"stopped by signal SIGTERM after 2 sec"] + lag))


class Follow(unittest.TestCase):
    def test_growing_log(self):
        text = header() + reports(range(1, 7), over=3)
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "run.log")
            f = follow.LogFollower(path)
            self.assertFalse(f.poll())          # no file yet
            seen = []
            for n in range(0, len(text) + 50, 50):
                actlog.make(path, text[:n])
                self.assertTrue(f.poll())
                seen.append(f.last)
            self.assertEqual(6, f.last)
            self.assertEqual(sorted(x for x in seen if x is not None),
                             [x for x in seen if x is not None])
            self.assertEqual([(t, 103 * t, 3 * t) for t in range(1, 7)],
                             list(f.points))
            pct, covered = f.window(2)
            self.assertEqual((round(300 / 103, 6), 2),
                             (round(pct, 6), covered))
            self.assertEqual(6, follow.last_report(path))
        self.assertEqual(0, follow.last_report(path))   # gone

    def test_microsecond_log_counts_over_1024_us(self):
        text = header(micro=True) + "".join(
            report(t, {"reads": {0: 10 * t, 10: 5 * t, 11: t},
                       "writes": {}}) for t in (1, 2))
        with tempfile.TemporaryDirectory() as tmp:
            f = follow.LogFollower(actlog.make(os.path.join(tmp, "l"), text))
            f.poll()
            self.assertEqual([(1, 16, 1), (2, 32, 2)], list(f.points))

    def test_one_ms_is_the_criterion_bucket(self):
        for micro in (False, True):
            self.assertEqual(Criterion(1.0, 5.0, micro).bucket,
                             over_1ms_bucket(micro))


if __name__ == "__main__":
    unittest.main()
