#!/usr/bin/env python3
"""Description: act.logfile.health and the health kinds of lines.py, on
hand-written lines (docs/log-format.md, "Drive health"): each kind read
with its fields and no other kind, a sample's fields typed (the critical
warning in hex, temperatures, sensors with '-', percentages, counters,
the throttle pairs, bytes; None when absent or malformed, unknown names
kept), read_health per device (source, readable, the samples in log
order, the start sample first, samples not read and why). The one pass
of an analysis collects them: the header keeps the identity block's
(LogHeader.health_lines, .health), the scanner takes the body's out as
it reads - at any read size, a line cut between two reads too - and
reads the reports, the slices' counts and the run's end exactly as
without them (synthetic logs with health lines written by synthlog).

    python3 tests/python/logfile/test_health.py [-v]
"""

import io
import os
import random
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
import support  # noqa: E402,F401

import synthlog  # noqa: E402
from act.logfile import MAX_BUCKET, health, lines  # noqa: E402
from act.logfile.header import read_header  # noqa: E402
from act.logfile.scanner import ReportScanner  # noqa: E402

FULL = ("warning = 0x04, temp = 45 C, sensors = 44/-/47, spare = 97%, "
        "spare_threshold = 10%, used = 3%, media_errors = 2, "
        "error_log_entries = 12, units_read = 1234, units_written = 5678, "
        "warning_temp_time = 5 min, critical_temp_time = 1 min, "
        "throttle_transitions = 3/1, throttle_time = 410/20 sec, "
        "wctemp = 70 C, cctemp = 80 C, physical_written = 123 bytes")

LOG = [
    "/dev/loop3 model = unknown, serial = unknown, firmware = unknown",
    "health /dev/loop3: nvme smart log, ocp log c0h",
    "health /dev/loop3 at start: " + FULL,
    "health /mnt/x/dev1: none (a regular file)",
    "health /dev/sdb: hwmon temperature",
    "health /dev/sdb at start: temp = 38 C",
    "start time = 2026-11-27T03:00:00Z",
    "after 10 sec:",
    "reads (10 total)",
    " (00: 0000000010)",
    "",
    "health /dev/loop3 at 10.002 sec: warning = 0x00, temp = 60 C",
    "health /dev/sdb at 10.004 sec: not read - no answer for 5.0 sec",
    "health /dev/loop3 at 20.002 sec: not read - NVMe status 0x4004",
]


class Kinds(unittest.TestCase):
    CASES = [
        ("health /dev/nvme0n1: nvme smart log", "health-source",
         {"device": "/dev/nvme0n1", "source": "nvme smart log"}),
        ("health /dev/sdb: none (NVMe admin command failed: Operation not "
         "permitted (errno 1))", "health-source",
         {"device": "/dev/sdb", "source": "none (NVMe admin command "
          "failed: Operation not permitted (errno 1))"}),
        ("health /dev/loop3 at start: " + FULL, "health-start",
         {"device": "/dev/loop3", "fields": FULL}),
        ("health /dev/loop3 at 60.004 sec: temp = 61 C", "health-sample",
         {"device": "/dev/loop3", "sec": 60.004, "fields": "temp = 61 C"}),
        ("health /dev/loop3 at 60.004 sec: not read - NVMe admin command "
         "failed: Input/output error (errno 5)", "health-unread",
         {"device": "/dev/loop3", "sec": 60.004, "why": "NVMe admin command "
          "failed: Input/output error (errno 5)"}),
        # a device name with " at " in it
        ("health /mnt/at home/dev at 1.000 sec: temp = 30 C",
         "health-sample", {"device": "/mnt/at home/dev", "sec": 1.0,
                           "fields": "temp = 30 C"}),
    ]

    def test_each_kind_and_only_it(self):
        for line, token, fields in self.CASES:
            with self.subTest(line=line):
                self.assertEqual(token, lines.line_kind(line))
                self.assertEqual(fields, lines.parse(token, line))
                others = [t for t in health.TOKENS if t != token and
                          lines.parse(t, line) is not None]
                self.assertEqual([], others)

    def test_not_health_lines(self):
        for line in ("health", "health /dev/x", "healthy /dev/x: ok",
                     "reads (10 total)", "after 10 sec:",
                     "/dev/sdb model = a, serial = b, firmware = c"):
            with self.subTest(line=line):
                self.assertIsNone(health.health_line(line))
                for t in health.TOKENS:
                    self.assertIsNone(lines.parse(t, line))


class Fields(unittest.TestCase):
    def test_every_field_typed(self):
        s = health.HealthSample("/dev/x", None, health.parse_fields(FULL))
        self.assertEqual(
            (4, 45, (44, None, 47), 97, 10, 3, 2, 12, 1234, 5678, 5, 1,
             (3, 1), (410, 20), 430, 70, 80, 123),
            (s.warning, s.temp_c, s.sensors, s.spare, s.spare_threshold,
             s.used, s.media_errors, s.error_log_entries, s.units_read,
             s.units_written, s.warning_temp_min, s.critical_temp_min,
             s.throttle_transitions, s.throttle_sec, s.throttle_total_sec,
             s.wctemp_c, s.cctemp_c, s.physical_written))
        self.assertTrue(s.read)

    def test_absent_malformed_and_unknown(self):
        s = health.HealthSample("/dev/x", 1.0, health.parse_fields(
            "temp = hot, sensors = -, warning = zz, throttle_time = 1 sec, "
            "future = 7 widgets, spare = 5"))
        self.assertEqual((None, (), None, None, None, None, None),
                         (s.temp_c, s.sensors, s.warning, s.throttle_sec,
                          s.throttle_total_sec, s.spare, s.media_errors))
        self.assertEqual("7 widgets", s.fields["future"])

    def test_big_counter(self):
        s = health.HealthSample("/dev/x", 1.0, health.parse_fields(
            "units_written = 18446744073709551615"))
        self.assertEqual(2 ** 64 - 1, s.units_written)


class ReadHealth(unittest.TestCase):
    def test_per_device(self):
        got = health.read_health(LOG)
        self.assertEqual(["/dev/loop3", "/mnt/x/dev1", "/dev/sdb"],
                         list(got))
        loop = got["/dev/loop3"]
        self.assertEqual(("nvme smart log, ocp log c0h", True),
                         (loop.source, loop.readable))
        self.assertEqual([None, 10.002, 20.002],
                         [s.t for s in loop.samples])
        self.assertEqual(45, loop.start.temp_c)
        self.assertEqual([45, 60], [s.temp_c for s in loop.read_samples])
        self.assertEqual("NVMe status 0x4004", loop.samples[2].error)
        self.assertFalse(loop.samples[2].read)
        f = got["/mnt/x/dev1"]
        self.assertEqual((False, (), "a regular file", None),
                         (f.readable, f.samples, f.why_none, f.start))
        sdb = got["/dev/sdb"]
        self.assertTrue(sdb.readable)
        self.assertEqual([38], [s.temp_c for s in sdb.read_samples])
        self.assertEqual("no answer for 5.0 sec", sdb.samples[1].error)

    def test_bytes_and_newlines(self):
        got = health.read_health(line.encode() + b"\n" for line in LOG)
        self.assertEqual(health.read_health(LOG), got)

    def test_no_health_lines(self):
        self.assertEqual({}, health.read_health(LOG[:1] + LOG[6:11]))

    def test_samples_without_source(self):
        got = health.read_health(LOG[11:12])
        self.assertEqual((None, True), (got["/dev/loop3"].source,
                                        got["/dev/loop3"].readable))


DEV = "/dev/nvme0n1"
NAMES = ["reads", DEV + "-reads"]


def synthetic(seconds, every, seed=1, stop=None, unread=()):
    """(log text without health lines, the same with them): seconds of
    1-second reports, a sample after every every-th report."""
    rnd = random.Random(seed)
    slices = [{n: synthlog.second(rnd, 2000 * 10 ** (t // 37 % 3),
                                  [0.01, 0.005, 0.001]) for n in NAMES}
              for t in range(1, seconds + 1)]
    body = synthlog.reports(slices) + ([synthlog.stop_signal(stop)]
                                       if stop else [])
    start, samples = synthlog.health_series(
        DEV, [t for t in range(1, seconds + 1) if t % every == 0],
        temp=lambda t: 40 + t % 50, throttle=80, waf=2.0,
        unread={t: "no answer for 5.0 sec" for t in unread})
    items = synthlog.config_items(synthlog.STORAGE, [DEV],
                                  test_duration_sec=seconds)
    derived = [("internal-read-reqs-per-sec", "2000")]
    devices = [synthlog.device_line(synthlog.STORAGE, DEV, 1 << 31)]
    ident = [synthlog.identity_line(DEV, "M", "S", "F")]

    def log(identity, lines):
        return synthlog.text(synthlog.header(
            synthlog.STORAGE, items, derived, devices, NAMES,
            identity=identity, start_time="2026-11-27T03:00:00Z") + lines)
    return (log(ident, body),
            log(ident + [synthlog.health_source(DEV, "nvme smart log"),
                         start], synthlog.with_health(body, samples)))


def scanned(text, slice_sec, chunk_size):
    """(batches, run end, stopped, header health lines, body health
    lines) of a whole log."""
    f = io.BytesIO(text.encode())
    h = read_header(f)
    s = ReportScanner(f, h.rest, h.names, NAMES, h.interval, slice_sec,
                      MAX_BUCKET, chunk_size, h.duration)
    batches = []
    for ends, columns in s:
        for k, t in enumerate(ends):
            # (a column None: 0 throughout its batch)
            batches.append((t, [[0 if c is None else c[k] for c in u]
                                for u in columns]))
    end = s.end and (s.end.kind, s.end.ran, s.end.reason, s.end.stop)
    return batches, end, s.stopped, h.health_lines, s.health_lines


class OnePass(unittest.TestCase):
    def test_header_keeps_the_identity_blocks_lines(self):
        _, text = synthetic(20, 5)
        h = read_header(io.BytesIO(text.encode()))
        self.assertEqual(["health-source", "health-start"],
                         [lines.line_kind(x) for x in h.health_lines])
        self.assertEqual({DEV: {"model": "M", "serial": "S",
                                "firmware": "F"}}, h.identity)
        self.assertEqual("nvme smart log", h.health[DEV].source)
        self.assertEqual(40, h.health[DEV].start.temp_c)

    def test_reports_read_as_without(self):
        for seconds, every, slice_sec, chunk, stop in (
                (120, 10, 10, 1 << 20, None), (120, 1, 1, 1 << 20, None),
                (90, 7, 3, 997, None), (60, 3, 5, 4096, 50),
                (50, 1, 2, 123, None)):
            with self.subTest(every=every, slice_sec=slice_sec, chunk=chunk):
                plain, text = synthetic(seconds, every, stop=stop,
                                        unread=(every * 2,))
                a = scanned(plain, slice_sec, chunk)
                b = scanned(text, slice_sec, chunk)
                self.assertEqual(a[:3], b[:3])
                self.assertEqual(([], []), a[3:])
                want = [x for x in text.split("\n")
                        if x.startswith("health ")]
                got = b[3] + [x.decode() for x in b[4]]
                self.assertEqual(want, got)
                drives = health.read_health(got)
                self.assertEqual(1 + seconds // every,
                                 len(drives[DEV].samples))


if __name__ == "__main__":
    unittest.main()
