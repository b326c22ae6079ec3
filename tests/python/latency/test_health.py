#!/usr/bin/env python3
"""Description: act.latency.health on hand-made samples: which samples a
slice has (a sample at T sec belongs to the report at floor(T)), its base
(the last sample read at or before its start; the start sample for slice
1) and the per-slice figures (max temperature, throttle seconds, new
media errors and error-log entries, WAF, warning bits; None where not
known: no sample in the slice, or none before it); a device without
health data left out; the whole-log summary (figures start to end, the
problems: each critical warning bit named when first seen, new media
errors, the spare below its threshold, the last samples not read; the
samples not read, by reason; a source "none (...)"), throttle_note, the verdict's prefixed
problems and a slice's throttling phrase.

    python3 tests/python/latency/test_health.py [-v]
"""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
import support  # noqa: E402,F401

from act.latency import health as H  # noqa: E402
from act.logfile.health import read_health  # noqa: E402

DEV = "/dev/nvme0n1"


def fields(temp, throttle=0, media=0, logs=0, written=0, phys=None,
           warning=0, spare=100):
    f = ("warning = 0x%02x, temp = %d C, spare = %d%%, spare_threshold = "
         "10%%, used = 1%%, media_errors = %d, error_log_entries = %d, "
         "units_written = %d, throttle_transitions = 0/0, throttle_time = "
         "%d/0 sec" % (warning, temp, spare, media, logs, written, throttle))
    if phys is not None:
        f += ", physical_written = %d bytes" % phys
    return f


def drives(*samples, source="nvme smart log, ocp log c0h", extra=()):
    """{device: DriveHealth} of samples: (t or None, fields text, or the
    reason of a sample not read as "!why")."""
    out = ["health %s: %s" % (DEV, source)]
    for t, f in samples:
        if t is None:
            out.append("health %s at start: %s" % (DEV, f))
        elif f.startswith("!"):
            out.append("health %s at %.3f sec: not read - %s"
                       % (DEV, t, f[1:]))
        else:
            out.append("health %s at %.3f sec: %s" % (DEV, t, f))
    return read_health(out + list(extra))


class Slices(unittest.TestCase):
    def test_base_and_members(self):
        # slices of 10 s; a sample at 10.004 follows the report at 10: the
        # end of slice 1 and the base of slice 2
        d = drives((None, fields(40, written=0, phys=0)),
                   (5.002, fields(50, throttle=1, written=50, phys=100 *
                                  512000)),
                   (10.004, fields(55, throttle=3, written=100, phys=250 *
                                   512000)),
                   (19.990, fields(70, throttle=9, media=1, logs=2,
                                   written=150, phys=400 * 512000)),
                   (30.5, "!NVMe status 0x4004"))
        got = H.slice_health(d, 10, 4)
        self.assertEqual(4, len(got))
        s1, s2, s3, s4 = (row[0] for row in got)
        self.assertEqual((DEV, 1, 55, 3, 0, 0, 2.5, 0),
                         (s1.device, s1.slice, s1.max_temp_c,
                          s1.throttle_sec, s1.new_media_errors,
                          s1.new_error_log_entries, s1.waf, s1.warning))
        self.assertEqual((70, 6, 1, 2, 3.0, 0),
                         (s2.max_temp_c, s2.throttle_sec,
                          s2.new_media_errors, s2.new_error_log_entries,
                          s2.waf, s2.warning))
        # slice 3: no sample; slice 4: its one sample was not read
        for s in (s3, s4):
            self.assertEqual((None,) * 6, (
                s.max_temp_c, s.throttle_sec, s.new_media_errors,
                s.new_error_log_entries, s.waf, s.warning))

    def test_base_after_a_slice_without_samples(self):
        # the base of slice 3 is the last sample at or before 20 s: 8.0
        d = drives((None, fields(40)), (8.0, fields(41, throttle=2)),
                   (25.0, fields(60, throttle=7)))
        got = [row[0].throttle_sec for row in H.slice_health(d, 10, 3)]
        self.assertEqual([2, None, 5], got)

    def test_no_start_sample(self):
        d = drives((4.0, fields(41, throttle=2)), (8.0, fields(45, 5)),
                   (14.0, fields(50, 9)))
        got = H.slice_health(d, 10, 2)
        self.assertEqual([None, 4], [r[0].throttle_sec for r in got])
        self.assertEqual([45, 50], [r[0].max_temp_c for r in got])

    def test_waf_needs_host_writes(self):
        d = drives((None, fields(40, written=10, phys=0)),
                   (5.0, fields(40, written=10, phys=512000)))
        self.assertIsNone(H.slice_health(d, 10, 1)[0][0].waf)

    def test_device_without_health_left_out(self):
        d = read_health(["health /mnt/f: none (a regular file)",
                         "health /dev/sdb: hwmon temperature",
                         "health /dev/sdb at start: temp = 30 C",
                         "health /dev/sdb at 3.0 sec: temp = 33 C"])
        got = H.slice_health(d, 5, 1)
        self.assertEqual([("/dev/sdb", 33, None)], [
            (s.device, s.max_temp_c, s.throttle_sec) for s in got[0]])


class Summary(unittest.TestCase):
    def test_figures_and_problems(self):
        d = drives((None, fields(40, written=0, phys=0)),
                   (10.0, fields(60, throttle=100, written=1000,
                                 phys=2000 * 512000, warning=0x02)),
                   (20.0, "!no answer for 5.0 sec"),
                   (30.0, fields(78, throttle=410, media=1, logs=3,
                                 written=2000, phys=4200 * 512000,
                                 warning=0x06, spare=5)),
                   (40.0, "!no answer for 5.0 sec"),
                   (50.0, "!NVMe status 0x4004"))
        s = H.summarize(d)[DEV]
        self.assertEqual((78, 410, 0, 1, 3, 100, 5, 1, 1,
                          2000 * 512000, 2.1),
                         (s.max_temp_c, s.throttle_sec,
                          s.throttle_transitions, s.new_media_errors,
                          s.new_error_log_entries, s.spare_start,
                          s.spare_end, s.used_start, s.used_end,
                          s.bytes_written, s.waf))
        self.assertEqual((None, 30.0), (s.start.t, s.end.t))
        self.assertEqual((
            "critical warning 0x02 (temperature) at 10.0 sec",
            "critical warning 0x04 (reliability degraded) at 30.0 sec",
            "1 new media error (0 -> 1)",
            "available spare 5% below its threshold 10% at 30.0 sec",
            "health at the end not known: the last 2 samples not read "
            "(NVMe status 0x4004; last read at 30.0 sec)"),
            s.problems)
        self.assertEqual((
            "2 samples not read (20.0-40.0 sec): no answer for 5.0 sec",
            "1 sample not read (at 50.0 sec): NVMe status 0x4004"),
            s.missing)
        self.assertEqual(tuple("%s: %s" % (DEV, p) for p in s.problems),
                         H.health_problems(H.summarize(d)))

    def test_a_drive_that_stops_answering(self):
        # a sample not read in the run, then read again: the counters are
        # whole, nothing is lost - not a problem; the last not read: the
        # drive's health at the end is not known - a problem (never a
        # plain PASS), also when only the start sample was read
        d = drives((None, fields(40)), (5.0, "!no answer for 5.0 sec"),
                   (10.0, fields(41)))
        self.assertEqual((), H.summarize(d)[DEV].problems)
        d = drives((None, fields(40)), (5.0, "!no answer for 5.0 sec"))
        self.assertEqual(("health at the end not known: the last sample "
                          "not read (no answer for 5.0 sec; last read at "
                          "start)",), H.summarize(d)[DEV].problems)

    def test_a_drive_that_never_answers(self):
        d = read_health(["health %s: none (no answer for 5.0 sec)" % DEV])
        self.assertEqual(("health not read: the drive did not answer at "
                          "the start (no answer for 5.0 sec)",),
                         H.summarize(d)[DEV].problems)
        d = read_health(["health %s: none (NVMe admin command failed: "
                         "Operation not permitted (errno 1))" % DEV])
        self.assertEqual((), H.summarize(d)[DEV].problems,
                         "not allowed to ask is not the drive's problem")

    def test_every_warning_bit_named(self):
        d = drives((None, fields(40, warning=0xff)))
        self.assertEqual(
            ("critical warning 0xff (spare below threshold, temperature, "
             "reliability degraded, read only, volatile backup failed, "
             "persistent memory read only, reserved bit 6, reserved bit "
             "7) at start",), H.summarize(d)[DEV].problems)

    def test_media_errors_plural_and_a_clean_drive(self):
        d = drives((None, fields(40, media=2)), (9.0, fields(41, media=5)))
        self.assertEqual(("3 new media errors (2 -> 5)",),
                         H.summarize(d)[DEV].problems)
        d = drives((None, fields(40)), (9.0, fields(41)))
        self.assertEqual(((), ()), (H.summarize(d)[DEV].problems,
                                    H.summarize(d)[DEV].missing))

    def test_no_health_data(self):
        d = read_health(["health /mnt/f: none (a regular file)"])
        s = H.summarize(d)["/mnt/f"]
        self.assertEqual(((), ("no health data: a regular file",), None),
                         (s.problems, s.missing, s.max_temp_c))


class Notes(unittest.TestCase):
    def test_throttle_note(self):
        self.assertEqual("the drive throttled 410 s at 78 C",
                         H.throttle_note(H.SliceHealth(DEV, 1, 78, 410)))
        self.assertEqual("/dev/x throttled 5 s", H.throttle_note(
            H.SliceHealth(DEV, 1, None, 5), "/dev/x"))
        for sec in (0, None):
            self.assertIsNone(H.throttle_note(H.SliceHealth(DEV, 1, 78,
                                                            sec)))

    def test_slice_throttle(self):
        rows = [[H.SliceHealth(DEV, 1, 50, 0)],
                [H.SliceHealth(DEV, 2, 78, 410),
                 H.SliceHealth("/dev/b", 2, 80, 3)]]
        self.assertEqual("", H.slice_throttle(rows, 1))
        self.assertEqual(", while /dev/nvme0n1 throttled 410 s at 78 C and "
                         "/dev/b throttled 3 s at 80 C",
                         H.slice_throttle(rows, 2))
        self.assertEqual("", H.slice_throttle(rows, 3))


if __name__ == "__main__":
    unittest.main()
