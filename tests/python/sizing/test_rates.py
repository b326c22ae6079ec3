#!/usr/bin/env python3
"""Description: act_config_helper's derived rates
(analysis/act/sizing/rates.py), called directly and through the helper on
the "Advanced Flash Device Sizing" paper's worked example:

- the interactive session (1 device /dev/nvme0n1, 24 hours, load factor
  3): standard_config gives 6000 reads/s and 3000 writes/s, "3x", the
  paper's title and the file name actconfig_3x_1d.txt; custom totals are
  "non-standard";
- the production data (avg ops/sec 10427 reads and 5916 writes of the
  paper's asloglatency tables, drv_ssd write 1543/s and direct-frees
  369/s): production_config gives the paper's rates, record-bytes 0 and
  the provenance lines of fixtures/expected-paper-report.txt, then scaled
  per drive (--devices), by --load-factor and by the number of test
  devices; each input alone, the others at the standard 1x load;
- round_half_up (0.5 up, unlike round()), scaled_rate, rate_source and
  the refusals (a rate over 2^32-1, no load at all).

    python3 tests/python/sizing/test_rates.py [-v]
"""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
from support import (PAPER_ARGS, PAPER_READ_HIST,  # noqa: E402
                     PAPER_WRITE_HIST, HelperCase, fixture, opts)

from act.cli import UsageError  # noqa: E402
from act.sizing import config_file, rates, tables  # noqa: E402


def paper_inputs():
    return (tables.parse_size_table(fixture("read-sizes.txt"),
                                    "read-sizes.txt", "read"),
            tables.parse_size_table(fixture("write-sizes.txt"),
                                    "write-sizes.txt", "write"),
            tables.parse_defrag_log(fixture("defrag.log"), "defrag.log"))


class Rounding(unittest.TestCase):

    def test_round_half_up(self):
        for x, want in ((0.5, 1), (1.5, 2), (2.5, 3), (1.4999, 1),
                        (0.0, 0), (10427.0, 10427), (2606.75, 2607),
                        (-0.5, 0), (15640.5, 15641), (2.49, 2)):
            with self.subTest(x=x):
                self.assertEqual(want, rates.round_half_up(x))

    def test_fmt_factor(self):
        for x, want in ((3.0, "3"), (1.5, "1.5"), (0.25, "0.25")):
            with self.subTest(x=x):
                self.assertEqual(want, rates.fmt_factor(x))

    def test_scaled_rate(self):
        # ops x factor / drives per node x test devices
        for args, want in (((10427.0, 1, 1, 1), 10427.0),
                           ((10427.0, 2, 4, 1), 5213.5),
                           ((5916.0, 3, 2, 2), 17748.0),
                           ((0.0, 3, 2, 2), 0.0)):
            with self.subTest(args=args):
                self.assertEqual(want, rates.scaled_rate(*args))


class StandardConfig(unittest.TestCase):

    def test_paper_session(self):
        cfg = rates.standard_config(["/dev/nvme0n1"], 3.0, 86400)
        self.assertEqual({
            "title": "testing 1 device(s) at 3x load", "load": "3x",
            "devices": ["/dev/nvme0n1"], "duration": 86400,
            "record_bytes": 1536, "read": 6000, "write": 3000,
            "rates_note": "3x = 3 x 2000 reads/s and 1000 writes/s per "
                          "device, x 1 device(s)", "read_note": None,
            "write_note": None, "read_hist": None, "write_hist": None,
            "defrag": None, "offsets": [], "production": False}, cfg)
        self.assertEqual("actconfig_3x_1d.txt",
                         config_file.config_file_name(cfg))

    def test_factors(self):
        for devices, factor, want in (
                (["/dev/a", "/dev/b", "/dev/c"], 1.5, (9000, 4500, "1.5x")),
                (["/dev/a"], 0.25, (500, 250, "0.25x")),
                (["/dev/a"], 0.0005, (1, 1, "0.0005x"))):   # 1 and 0.5 up
            with self.subTest(devices=len(devices), factor=factor):
                cfg = rates.standard_config(devices, factor, 3600)
                self.assertEqual(want,
                                 (cfg["read"], cfg["write"], cfg["load"]))

    def test_custom_totals(self):
        cfg = rates.standard_config(["/dev/a", "/dev/b"], 1, 60, 100, 0)
        self.assertEqual(("non-standard", 100, 0, None,
                          "testing 2 device(s) at non-standard load",
                          "actconfig_non-standard_2d.txt"),
                         (cfg["load"], cfg["read"], cfg["write"],
                          cfg["rates_note"], cfg["title"],
                          config_file.config_file_name(cfg)))


class ProductionConfig(unittest.TestCase):
    maxDiff = None

    def test_paper(self):
        read, write, defrag = paper_inputs()
        self.assertEqual((10427.0, 5916.0), (read.ops, write.ops))
        o = opts(read_sizes="read-sizes.txt", write_sizes="write-sizes.txt",
                 defrag_log="defrag.log")
        cfg, report = rates.production_config(o, read, write, defrag)
        self.assertEqual((10427, 5916, 0, (1543, 369), True, "1x",
                          "testing 1 device(s) at 1x production load"),
                         (cfg["read"], cfg["write"], cfg["record_bytes"],
                          cfg["defrag"], cfg["production"], cfg["load"],
                          cfg["title"]))
        # where each number came from
        self.assertEqual(
            fixture("expected-paper-report.txt").rstrip("\n").split("\n"),
            report)

    def test_scaled(self):
        # per drive (4 per node), x 2, on 3 test devices
        read = paper_inputs()[0]
        o = opts(read_sizes="/in/read-sizes.txt", write_sizes=None,
                 devices=4, load_factor=2.0,
                 device_names=["/dev/a", "/dev/b", "/dev/c"])
        cfg, report = rates.production_config(o, read, None, None)
        # 10427 x 2 / 4 x 3 = 15640.5 -> 15641; writes 1x x 2 x 3
        self.assertEqual((15641, 6000, 1536),
                         (cfg["read"], cfg["write"], cfg["record_bytes"]))
        self.assertEqual("avg ops/sec 10427.0 of read-sizes.txt / 4 devices "
                         "per node x load factor 2 x 3 test devices",
                         cfg["read_note"])             # the file name only
        self.assertEqual("standard 1x rate 1000/s per device (no "
                         "--write-sizes) x load factor 2 x 3 test devices",
                         cfg["write_note"])
        self.assertIn("read-reqs-per-sec 15641: avg ops/sec 10427.0 of "
                      "/in/read-sizes.txt / 4 devices per node x load "
                      "factor 2 x 3 test devices", report)   # full path
        self.assertIn("record-bytes 1536: no write size histogram "
                      "(--write-sizes)", report)

    def test_rate_source(self):
        for table, ops, factor, devices, ntest, want in (
                ("r.txt", 10427.0, 1, 1, 1, "avg ops/sec of r.txt"),
                ("r.txt", 10427.0, 1.5, 1, 1,
                 "avg ops/sec 10427.0 of r.txt x load factor 1.5"),
                ("r.txt", 10427.0, 1, 2, 1,
                 "avg ops/sec 10427.0 of r.txt / 2 devices per node"),
                ("r.txt", 10427.0, 1, 1, 2,
                 "avg ops/sec 10427.0 of r.txt x 2 test devices"),
                (None, 0, 1, 1, 1, "standard 1x rate 2000/s per device (no "
                 "--read-sizes)"),
                (None, 0, 3, 8, 2, "standard 1x rate 2000/s per device (no "
                 "--read-sizes) x load factor 3 x 2 test devices")):
            with self.subTest(table=table, factor=factor, devices=devices,
                              ntest=ntest):
                self.assertEqual(want, rates.rate_source(
                    table, ops, 2000, "--read-sizes", factor, devices,
                    ntest))

    def test_rate_too_large(self):
        read = paper_inputs()[0]._replace(ops=float(1 << 32))
        with self.assertRaises(UsageError) as e:
            rates.production_config(opts(read_sizes="r"), read, None, None)
        self.assertEqual("the rates (4294967296 reads/s, 1000 writes/s) are "
                         "too large for act_storage", str(e.exception))

    def test_no_load(self):
        read, write, _ = paper_inputs()
        with self.assertRaises(UsageError) as e:
            rates.production_config(opts(read_sizes="r", write_sizes="w"),
                                    read._replace(ops=0.0),
                                    write._replace(ops=0.0), None)
        self.assertEqual("read-reqs-per-sec and write-reqs-per-sec are both "
                         "0: nothing to test", str(e.exception))


class PaperInputs(HelperCase):
    """The helper on the paper's three inputs."""

    def test_paper_numbers(self):
        found = self.check_config(self.ok(*PAPER_ARGS).stdout)
        self.assertEqual(found["storage-read-histogram"], PAPER_READ_HIST)
        self.assertEqual(found["storage-write-histogram"], PAPER_WRITE_HIST)
        self.assertEqual(found["read-reqs-per-sec"], "10427")
        self.assertEqual(found["write-reqs-per-sec"], "5916")
        self.assertEqual(found["total-lbw-per-sec"], "1543")
        self.assertEqual(found["direct-frees"], "369")
        self.assertEqual(found["record-bytes"], "0")
        self.assertEqual(found["device-names"], "/dev/CHANGE-ME")
        self.assertEqual(found["test-duration-sec"], "86400")
        for item in ("lbr-req-offset", "lbw-req-offset", "read-size-offset",
                     "write-size-offset", "service-threads"):
            self.assertNotIn(item, found)

    def test_provenance(self):
        err = self.ok(*PAPER_ARGS).stderr
        for line in (
                "read-reqs-per-sec 10427: avg ops/sec of read-sizes.txt",
                "write-reqs-per-sec 5916: avg ops/sec of write-sizes.txt",
                "storage-write-histogram: avg row of write-sizes.txt "
                "(18 buckets, trimmed after the first 0)",
                "total-lbw-per-sec 1543: write rate in defrag.log line 1",
                "direct-frees 369: direct-frees rate in defrag.log line 3"):
            self.assertIn(line + "\n", err)
        self.assertIn("defrag-read 1172.8/s", err)

    def test_devices_and_load_factor(self):
        found = self.check_config(self.ok(
            *PAPER_ARGS, "--devices", "2", "--load-factor", "3").stdout)
        # 10427 x 3 / 2 = 15640.5 (half up), 5916 x 3 / 2 = 8874
        self.assertEqual(found["read-reqs-per-sec"], "15641")
        self.assertEqual(found["write-reqs-per-sec"], "8874")
        # ratio items and histograms do not scale
        self.assertEqual(found["total-lbw-per-sec"], "1543")
        self.assertEqual(found["direct-frees"], "369")
        self.assertEqual(found["storage-read-histogram"], PAPER_READ_HIST)

    def test_load_factor_provenance(self):
        err = self.ok(*PAPER_ARGS, "--devices", "2",
                      "--load-factor", "3").stderr
        self.assertIn("read-reqs-per-sec 15641: avg ops/sec 10427.0 of "
                      "read-sizes.txt / 2 devices per node x load factor 3",
                      err)

    def test_device_names_multiply(self):
        # per drive 10427 / 2; two drives under test -> the node's rate
        found = self.check_config(self.ok(
            *PAPER_ARGS, "--devices", "2",
            "--device-names", "/dev/sdb,/dev/sdc").stdout)
        self.assertEqual(found["read-reqs-per-sec"], "10427")
        self.assertEqual(found["write-reqs-per-sec"], "5916")
        self.assertEqual(found["device-names"], "/dev/sdb,/dev/sdc")


class InputsAlone(HelperCase):
    """Each input alone: the other direction at the standard 1x load."""

    def test_read_sizes_alone(self):
        r = self.ok("--read-sizes", "read-sizes.txt")
        found = self.check_config(r.stdout)
        self.assertEqual(found["storage-read-histogram"], PAPER_READ_HIST)
        self.assertNotIn("storage-write-histogram", found)
        self.assertEqual(found["record-bytes"], "1536")
        self.assertEqual(found["read-reqs-per-sec"], "10427")
        self.assertEqual(found["write-reqs-per-sec"], "1000")
        self.assertNotIn("total-lbw-per-sec", found)
        self.assertIn("write-reqs-per-sec 1000: standard 1x rate 1000/s per "
                      "device (no --write-sizes)", r.stderr)

    def test_write_sizes_alone(self):
        found = self.check_config(
            self.ok("--write-sizes", "write-sizes.txt").stdout)
        self.assertEqual(found["storage-write-histogram"], PAPER_WRITE_HIST)
        self.assertNotIn("storage-read-histogram", found)
        self.assertEqual(found["record-bytes"], "1536")
        self.assertEqual(found["read-reqs-per-sec"], "2000")
        self.assertEqual(found["write-reqs-per-sec"], "5916")

    def test_defrag_log_alone(self):
        found = self.check_config(
            self.ok("--defrag-log", "defrag.log").stdout)
        self.assertEqual(found["total-lbw-per-sec"], "1543")
        self.assertEqual(found["direct-frees"], "369")
        self.assertEqual(found["record-bytes"], "1536")
        self.assertEqual(found["read-reqs-per-sec"], "2000")
        self.assertEqual(found["write-reqs-per-sec"], "1000")
        self.assertNotIn("storage-read-histogram", found)

    def test_no_input_is_standard_load(self):
        r = self.ok("--load-factor", "3", "--device-names", "/dev/nvme0n1")
        found = self.check_config(r.stdout)
        self.assertEqual(found["read-reqs-per-sec"], "6000")
        self.assertEqual(found["write-reqs-per-sec"], "3000")
        self.assertEqual(found["record-bytes"], "1536")
        self.assertIn("at 3x load", r.stdout)
        self.assertNotIn("lbr-req-offset", r.stdout)

    def test_write_table_without_load_still_record_bytes_0(self):
        # a direction without load needs no histogram for record-bytes 0
        text = fixture("write-sizes.txt").replace("5916.0", "   0.0")
        path = self.write("w0.txt", text)
        found = self.check_config(self.ok(
            "--read-sizes", "read-sizes.txt", "--write-sizes", path).stdout)
        self.assertEqual(found["write-reqs-per-sec"], "0")
        self.assertEqual(found["record-bytes"], "0")

    def test_rates_both_zero(self):
        text = fixture("write-sizes.txt").replace("5916.0", "   0.0")
        w = self.write("w0.txt", text)
        r0 = self.write("r0.txt", fixture("read-sizes.txt").replace(
            "10427.0", "    0.0"))
        self.user_error("--read-sizes", r0, "--write-sizes", w,
                        expect=("both 0",))


if __name__ == "__main__":
    unittest.main()
