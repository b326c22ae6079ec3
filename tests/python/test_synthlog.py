#!/usr/bin/env python3
"""Description: tests/lib/synthlog.py writes the lines the C programs write.

Every sample of the log's catalogue (tests/unit/test_loglines --samples:
each kind of line from the real C formatters, with the values it was
given) of a kind synthlog writes is built again by synthlog from those
values and must be the same line, byte for byte: the banner's version
line, the config and derived headings and items, act_storage's and
act_index's device lines (buffered too), the identity and start-time
lines, the histogram names heading, `after S sec:`, a histogram's total
line and bucket lines (a whole histogram too: four buckets a line), a
failed I/O (with and without io-error-limit),
the hidden I/O errors, the io-errors stop, the signal and request stops,
the drive health lines (the source, the start sample, a sample, one not
read: a sample's fields written from their values).
Each of these kinds has at least one sample, and every kind of the
catalogue is either written by synthlog or named here as one it does not
write - a new kind fails this test until it is one or the other. Then a
whole log written by synthlog reads back through act.logfile with the
header, the reports and the stop it was written with.

    python3 tests/python/test_synthlog.py [-v]
"""

import io
import unittest

import support  # the samples of the C formatters; tests/lib on sys.path
import synthlog

from act.logfile import health, lines
from act.logfile.header import read_header

S, I = synthlog.STORAGE, synthlog.INDEX


def buckets(text):
    """{bucket: count} of a sample's buckets field ("0:1,3:1200")."""
    return {int(b): int(n) for b, n in
            (kv.split(":") for kv in text.split(","))}


def io_failed(f):
    return synthlog.io_error(
        f["device"], int(f["offset"]), int(f["size"]), op=f["op"],
        errno=int(f["errno"]), strerror=f["error"],
        failed=int(f["count"]) if "count" in f else None,
        limit=int(f["limit"]) if "limit" in f else None)


def health_fields(text):
    """A sample's fields written again by synthlog.health_fields from
    their values, as act.logfile.health reads them."""
    smp = health.HealthSample("x", None, health.parse_fields(text))
    return synthlog.health_fields(
        warning=smp.warning, temp=smp.temp_c, sensors=smp.sensors,
        spare=smp.spare, spare_threshold=smp.spare_threshold,
        used=smp.used, media_errors=smp.media_errors,
        error_log_entries=smp.error_log_entries, units_read=smp.units_read,
        units_written=smp.units_written,
        warning_temp_time=smp.warning_temp_min,
        critical_temp_time=smp.critical_temp_min,
        throttle_transitions=smp.throttle_transitions,
        throttle_time=smp.throttle_sec, wctemp=smp.wctemp_c,
        cctemp=smp.cctemp_c, physical_written=smp.physical_written)


# token -> the line synthlog writes from the sample's fields
WRITTEN = {
    "version": lambda f: synthlog.banner(version=f["version"])[1],
    "config-heading": lambda f: synthlog.HEADINGS[
        {"ACT-STORAGE": S, "ACT-INDEX": I}[f["program"]]],
    "config-item": lambda f: synthlog.item(f["key"], f["value"]),
    "derived-heading": lambda f: synthlog.derived_block()[0],
    "derived-item": lambda f: synthlog.item(f["key"], f["value"]),
    "storage-device": lambda f: synthlog.device_line(
        S, f["device"], int(f["size"]), int(f["large_blocks"]),
        int(f["min_io"]), f["buffered"] == "yes"),
    "index-device": lambda f: synthlog.device_line(
        I, f["device"], int(f["size"]), buffered=f["buffered"] == "yes"),
    "identity": lambda f: synthlog.identity_line(
        f["device"], f["model"], f["serial"], f["firmware"]),
    "file-facts": lambda f: synthlog.file_facts_line(
        f["device"], int(f["dev"]), int(f["ino"]), f["gen"]),
    "block-facts": lambda f: synthlog.block_facts_line(
        f["device"], f["rdev"], f["wwid"], None if "backing_dev" not in f
        else (int(f["backing_dev"]), int(f["backing_ino"]), f["backing_gen"],
              f["backing_file"])),
    "start-time": lambda f: synthlog.start_time_line(f["start"]),
    "names-heading": lambda f: synthlog.names_block([])[0],
    "hist-name": lambda f: synthlog.names_block([f["name"]])[1],
    "report": lambda f: synthlog.after(int(f["sec"])),
    "hist-total": lambda f: synthlog.histogram(
        f["name"], {0: int(f["total"])})[0],
    "hist-buckets": lambda f: "\n".join(synthlog.bucket_lines(
        buckets(f["buckets"]))),
    "io-failed": io_failed,
    "io-hidden": lambda f: synthlog.more_io_errors(int(f["count"])),
    "io-errors": lambda f: synthlog.io_errors_stop(int(f["count"]),
                                                   int(f["limit"])),
    "signal": lambda f: synthlog.stop_signal(int(f["sec"]), f["signal"]),
    "request": lambda f: synthlog.stop_request(f["reason"], int(f["sec"])),
    "health-source": lambda f: synthlog.health_source(f["device"],
                                                      f["source"]),
    "health-start": lambda f: synthlog.health_start(
        f["device"], health_fields(f["fields"])),
    "health-sample": lambda f: synthlog.health_sample(
        f["device"], float(f["sec"]), health_fields(f["fields"])),
    "health-unread": lambda f: synthlog.health_unread(
        f["device"], float(f["sec"]), f["why"]),
}
# Kinds synthlog does not write (a test that needs one takes the sample).
NOT_WRITTEN = {"prep-device", "fell-behind", "lag", "host-limit", "stall",
               "drive-limit", "hung-io"}


class Lines(unittest.TestCase):
    def test_each_line(self):
        samples = support.samples()
        seen = set()
        for smp in samples:
            write = WRITTEN.get(smp.token)
            if write is not None:
                seen.add(smp.token)
            with self.subTest(sample=smp.line[:60]):
                if write is None:
                    self.assertIn(smp.token, NOT_WRITTEN, "kind %s: neither "
                                  "written by synthlog nor in NOT_WRITTEN"
                                  "\n%s" % (smp.token, smp.line))
                    continue
                self.assertEqual(smp.line, write(smp.fields),
                                 "%s from %r" % (smp.token, smp.fields))
        self.assertEqual(set(), set(WRITTEN) - seen,
                         "kinds written by synthlog without a sample")

    def test_a_histogram_whole(self):
        # its total line and its bucket lines, four a line
        samples = support.samples()
        wrapped = False
        for k, smp in enumerate(samples):
            if smp.token != "hist-total":
                continue
            these = [smp]
            for nxt in samples[k + 1:]:
                if nxt.token != "hist-buckets":
                    break
                these.append(nxt)
            counts = {}
            for b in these[1:]:
                counts.update(buckets(b.fields["buckets"]))
            wrapped = wrapped or len(these) > 2
            with self.subTest(histogram=smp.fields["name"]):
                self.assertEqual([x.line for x in these],
                                 synthlog.histogram(smp.fields["name"],
                                                    counts),
                                 "histogram %s whole" % smp.fields["name"])
        self.assertTrue(wrapped, "no sample of a histogram of more than one "
                        "bucket line")


class Log(unittest.TestCase):
    def test_read_back(self):
        """A whole log of synthlog's, read back by act.logfile."""
        dev = "/dev/sdb"
        names = ["reads", dev + "-reads"]
        head = synthlog.header(
            S, synthlog.config_items(S, [dev], test_duration_sec=10),
            [("internal-read-reqs-per-sec", "2000")],
            [synthlog.device_line(S, dev, 1 << 31)], names,
            notice="synthlog",
            identity=[synthlog.identity_line(dev, "M", "S", "F")],
            start_time="2026-11-23T03:47:33Z")
        body = (synthlog.reports([{n: {0: 1990, 1: 8, 3: 2} for n in names}]
                                 * 3) + [synthlog.stop_signal(3)])
        h = read_header(io.BytesIO(synthlog.text(head + body).encode()),
                        "synth.log")
        self.assertEqual(names, list(h.names), "header: histogram names")
        self.assertEqual(10, h.duration, "header: test-duration-sec")
        self.assertEqual({dev: 1 << 31}, h.devices, "header: devices")
        self.assertEqual({dev: {"model": "M", "serial": "S",
                                "firmware": "F"}}, h.identity,
                         "header: identity")
        self.assertEqual("2026-11-23T03:47:33Z", h.start,
                         "header: start time")
        kinds = [lines.line_kind(ln) for ln in body if ln]
        self.assertEqual(["report"] + [
            "hist-total", "hist-buckets"] * 2 + ["report"] + [
            "hist-total", "hist-buckets"] * 2 + ["report"] + [
            "hist-total", "hist-buckets"] * 2 + ["signal"], kinds,
            "body: the kind of each line")
        self.assertEqual(" (00: 0000005970) (01: 0000000024) (03: "
                         "0000000006)", body[-3],
                         "body: the last report's counts")


if __name__ == "__main__":
    unittest.main()
