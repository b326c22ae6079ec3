#!/usr/bin/env python3
"""Tests of config/act_config_helper.py (unittest, standard library only).

Run from any directory:  python3 tests/helper/test_act_config_helper.py

fixtures/ holds the "Advanced Flash Device Sizing" paper's own inputs:
read-sizes.txt / write-sizes.txt (its asloglatency tables of
{ycsb}-device-read-size / -device-write-size, verbatim with the command
lines around them), defrag.log (its two drv_ssd lines), paper-session.txt
(its interactive transcript) and paper-sample-config.txt (the config that
session generated); expected-paper.conf / expected-paper-report.txt are the
helper's checked output on the paper's inputs.

When target/bin/act_storage (or $ACT_BIN/act_storage) exists, generated
configs are also run for 1 second on a 16 MiB file-backed device; the
production config is skipped while act_storage does not know
storage-read-histogram yet.
"""

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import types
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
HELPER = os.path.join(REPO, "config", "act_config_helper.py")
FIXTURES = os.path.join(HERE, "fixtures")
PROG = "act_config_helper.py"

PAPER_READ_HIST = ("100.00,100.00,100.00,100.00,100.00,100.00,100.00,100.00,"
                   "100.00,100.00,100.00,83.97,68.26,52.89,38.48,25.52,"
                   "12.65,0.00")
PAPER_WRITE_HIST = ("100.00,100.00,100.00,100.00,100.00,100.00,100.00,"
                    "100.00,100.00,100.00,85.72,85.72,71.44,57.11,42.90,"
                    "28.44,14.26,0.00")

# Every item act_storage accepts (spec docs/act_storage.md and docs/advanced-sizing.md).
STORAGE_ITEMS = {
    "device-names", "file-size-mbytes", "service-threads",
    "test-duration-sec", "report-interval-sec", "microsecond-histograms",
    "read-reqs-per-sec", "write-reqs-per-sec", "record-bytes",
    "record-bytes-range-max", "large-block-op-kbytes", "replication-factor",
    "update-pct", "defrag-lwm-pct", "no-defrag-reads", "compress-pct",
    "disable-odsync", "commit-to-device", "commit-min-bytes", "tomb-raider",
    "tomb-raider-sleep-usec", "max-lag-sec", "scheduler-mode",
    "io-error-limit", "total-latency",
    "storage-read-histogram", "storage-write-histogram", "read-size-offset",
    "write-size-offset", "lbr-req-offset", "lbw-req-offset",
    "total-lbw-per-sec", "direct-frees",
}
ITEM_RE = re.compile(r"^([a-z-]+):? +(\S+)$")


def load_module():
    """The helper's functions, from the package act.sizing (the script
    config/act_config_helper.py is its entry point)."""
    sys.path.insert(0, os.path.join(REPO, "analysis"))
    from act.sizing import config_file, shared, tables
    return types.SimpleNamespace(
        VERSION=shared.VERSION, round_half_up=shared.round_half_up,
        parse_size_table=tables.parse_size_table,
        parse_defrag_log=tables.parse_defrag_log,
        format_histogram=config_file.format_histogram)


helper = load_module()


def run_helper(*args, cwd=FIXTURES, stdin_text=None, timeout=30):
    return subprocess.run(
        [sys.executable, HELPER] + list(args), cwd=cwd,
        input=stdin_text if stdin_text is not None else "",
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        universal_newlines=True, timeout=timeout)


def fixture(name):
    with open(os.path.join(FIXTURES, name), encoding="utf-8") as f:
        return f.read()


def items(config_text):
    """{item: value} of a config; fails on a line that is not an item."""
    found = {}
    for no, line in enumerate(config_text.splitlines(), 1):
        body = line.split("#", 1)[0].strip()
        if not body:
            continue
        m = ITEM_RE.match(body)
        if not m:
            raise AssertionError("line %d is not 'item: value': %r"
                                 % (no, line))
        found[m.group(1)] = m.group(2)
    return found


def act_storage_path():
    d = os.environ.get("ACT_BIN") or os.path.join(REPO, "target", "bin")
    path = os.path.join(d, "act_storage")
    return path if os.access(path, os.X_OK) else None


class Base(unittest.TestCase):
    maxDiff = None

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="act-helper-test-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def check_config(self, text):
        """Every line a comment or a known act_storage item; returns items."""
        found = items(text)
        unknown = set(found) - STORAGE_ITEMS
        self.assertFalse(unknown, "not act_storage items: %s" % unknown)
        for legacy in ("num-queues", "threads-per-queue"):
            self.assertNotIn(legacy, found)
        return found

    def ok(self, *args, **kw):
        r = run_helper(*args, **kw)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertNotIn("Traceback", r.stderr)
        return r

    def user_error(self, *args, expect=(), **kw):
        r = run_helper(*args, **kw)
        self.assertEqual(r.returncode, 2, "stdout=%r stderr=%r"
                         % (r.stdout, r.stderr))
        self.assertNotIn("Traceback", r.stderr)
        self.assertEqual(r.stdout, "")
        self.assertTrue(r.stderr.startswith(PROG + ": error: "), r.stderr)
        self.assertEqual(len(r.stderr.splitlines()), 1, r.stderr)
        for text in expect:
            self.assertIn(text, r.stderr)
        return r

    def write(self, name, text):
        path = os.path.join(self.tmp, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        return path


PAPER_ARGS = ("--read-sizes", "read-sizes.txt", "--write-sizes",
              "write-sizes.txt", "--defrag-log", "defrag.log")


# ---------------------------------------------------------------------------
# Non-interactive mode on the paper's inputs.

class TestPaperInputs(Base):

    def test_exact_output(self):
        r = self.ok(*PAPER_ARGS)
        self.assertEqual(r.stdout, fixture("expected-paper.conf"))
        self.assertEqual(r.stderr, fixture("expected-paper-report.txt"))

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

    def test_placeholder_comment(self):
        out = self.ok(*PAPER_ARGS).stdout
        self.assertRegex(out, r"# CHANGE-ME: /dev/CHANGE-ME is a placeholder"
                              r"[^\n]*\n#[^\n]*\ndevice-names: /dev/CHANGE-ME")

    def test_output_file_and_options(self):
        out = os.path.join(self.tmp, "prod.conf")
        r = self.ok(*PAPER_ARGS, "--output", out, "--device-names",
                    "/dev/nvme1n1", "--duration-sec", "7200",
                    "--lbr-req-offset", "090", "--lbw-req-offset", "93")
        self.assertEqual(r.stdout, "")
        self.assertIn("successfully created", r.stderr)
        with open(out) as f:
            text = f.read()
        found = self.check_config(text)
        self.assertEqual(found["device-names"], "/dev/nvme1n1")
        self.assertEqual(found["test-duration-sec"], "7200")
        self.assertEqual(found["lbr-req-offset"], "90")
        self.assertEqual(found["lbw-req-offset"], "93")
        self.assertNotIn("CHANGE-ME", text)
        self.assertIn("# read-size-offset: 100", text)

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

    def test_relative_paths_from_elsewhere(self):
        args = [os.path.join(FIXTURES, a) if a.endswith((".txt", ".log"))
                else a for a in PAPER_ARGS]
        found = self.check_config(self.ok(*args, cwd=self.tmp).stdout)
        self.assertEqual(found["read-reqs-per-sec"], "10427")


# ---------------------------------------------------------------------------
# Each input alone.

class TestInputsAlone(Base):

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


# ---------------------------------------------------------------------------
# The drv_ssd log parser.

class TestDefragLog(Base):

    def test_last_line_wins(self):
        old = fixture("defrag.log").replace("1543.0", "1000.0").replace(
            ",369)", ",100)")
        path = self.write("d.log", old + fixture("defrag.log"))
        r = self.ok("--defrag-log", path)
        found = self.check_config(r.stdout)
        self.assertEqual(found["total-lbw-per-sec"], "1543")
        self.assertEqual(found["direct-frees"], "369")
        self.assertIn("write rate in %s line 4" % path, r.stderr)

    def test_several_devices_are_summed(self):
        other = fixture("defrag.log").replace("nvme0n1", "nvme1n1").replace(
            "1543.0", "1457.0").replace(",369)", ",131)")
        path = self.write("d.log", fixture("defrag.log") + other)
        found = self.check_config(self.ok("--defrag-log", path).stdout)
        self.assertEqual(found["total-lbw-per-sec"], "3000")
        self.assertEqual(found["direct-frees"], "500")

    def test_pure(self):
        d = helper.parse_defrag_log(fixture("defrag.log"), "defrag.log")
        self.assertEqual((d.total_lbw, d.direct_frees), (1543, 369))
        self.assertAlmostEqual(d.defrag_read, 1172.8)

    def test_rounding_half_up(self):
        text = fixture("defrag.log").replace("1543.0", "1542.5").replace(
            ",369)", ",368.5)")
        d = helper.parse_defrag_log(text, "x")
        self.assertEqual((d.total_lbw, d.direct_frees), (1543, 369))


# ---------------------------------------------------------------------------
# User errors: exit 2, one line, the file and line named, no traceback.

class TestErrors(Base):

    def bad_table(self, old, new, name="read-sizes.txt", count=1):
        text = fixture(name)
        self.assertIn(old, text)
        return self.write("bad.txt", text.replace(old, new, count))

    AVG = ("     avg       100.00 100.00 100.00 100.00 100.00 100.00 100.00 "
           "100.00 100.00 100.00 100.00  83.97")

    def test_missing_file(self):
        self.user_error("--read-sizes", "no-such.txt",
                        expect=("no-such.txt", "No such file"))
        self.user_error("--defrag-log", "no-such.log",
                        expect=("no-such.log",))

    def test_directory(self):
        self.user_error("--write-sizes", self.tmp, expect=(self.tmp,))

    def test_no_avg_row(self):
        path = self.bad_table("     avg", "     mean")
        self.user_error("--read-sizes", path, expect=("no avg row", path))

    def test_not_a_table(self):
        path = self.write("empty.txt", "hello\n")
        self.user_error("--read-sizes", path,
                        expect=("no asloglatency table",))

    def test_non_numeric_value(self):
        path = self.bad_table(self.AVG, self.AVG.replace("83.97", "8x.97"))
        self.user_error("--read-sizes", path,
                        expect=(path + " line 15", "'8x.97' is not a number",
                                "> 2048 bytes"))

    def test_non_numeric_ops(self):
        path = self.bad_table("10427.0", "10427.0x")
        self.user_error("--read-sizes", path,
                        expect=("line 15", "ops/sec", "'10427.0x'"))

    def test_percentages_increasing(self):
        path = self.bad_table("  68.26  52.89", "  68.26  72.89")
        self.user_error("--read-sizes", path,
                        expect=("line 15", "percentages increase",
                                "72.89 for > 8192 bytes after 68.26"))

    def test_percentage_over_100(self):
        path = self.bad_table("     avg       100.00",
                              "     avg       100.01")
        self.user_error("--read-sizes", path, expect=("line 15", "0..100"))

    def test_never_reaches_zero(self):
        text = fixture("read-sizes.txt")
        lines = text.splitlines()
        avg = [l for l in lines if l.strip().startswith("avg")][0]
        fixed = avg.replace("  0.00   0.00", "  0.50   0.50")
        path = self.write("nz.txt", text.replace(avg, fixed))
        self.user_error("--read-sizes", path,
                        expect=("never reaches 0", "larger -n"))

    def test_wrong_value_count(self):
        path = self.bad_table("   0.00   0.00    10427.0",
                              "   0.00    10427.0")
        self.user_error("--read-sizes", path,
                        expect=("line 15", "19 values, expected 20"))

    def test_wrong_columns(self):
        path = self.bad_table("      1      2      4", "      1      8     64",
                              count=1)
        self.user_error("--read-sizes", path, expect=("line 7", "-e 1"))

    def test_latency_table_instead_of_sizes(self):
        text = fixture("read-sizes.txt").replace("(bytes)", "(ms)")
        path = self.write("lat.txt", text.replace("device-read-size",
                                                  "read"))
        self.user_error("--read-sizes", path,
                        expect=("line 6", "not a size histogram"))

    def test_swapped_tables(self):
        self.user_error("--read-sizes", "write-sizes.txt",
                        expect=("write-sizes.txt line 1",
                                "device-write-size table"))

    def test_two_tables(self):
        text = fixture("read-sizes.txt")
        path = self.write("two.txt", text + text)
        self.user_error("--read-sizes", path, expect=("a second table",))

    def test_defrag_log_errors(self):
        no_frees = fixture("defrag.log").splitlines()[0] + "\n"
        self.user_error("--defrag-log", self.write("a.log", no_frees),
                        expect=("direct-frees", "drv_ssd=detail"))
        self.user_error("--defrag-log", self.write("b.log", "nothing\n"),
                        expect=("no drv_ssd line",))
        bad = fixture("defrag.log").replace(",369)", ",3x9)")
        self.user_error("--defrag-log", self.write("c.log", bad),
                        expect=("c.log line 3", "direct-frees rate",
                                "'3x9' is not a number"))
        more = fixture("defrag.log").replace(",369)", ",2000)")
        self.user_error("--defrag-log", self.write("d.log", more),
                        expect=("direct-frees 2000 is more than the write "
                                "rate 1543",))
        zero = fixture("defrag.log").replace("1543.0", "0.0").replace(
            ",369)", ",0)")
        self.user_error("--defrag-log", self.write("e.log", zero),
                        expect=("write rate is 0",))
        two_ns = fixture("defrag.log") + fixture("defrag.log").replace(
            "{ycsb}", "{bar}")
        self.user_error("--defrag-log", self.write("f.log", two_ns),
                        expect=("several namespaces", "{bar}, {ycsb}"))

    def test_bad_options(self):
        for args, text in (
                (("--devices", "0"), "--devices"),
                (("--devices", "two"), "--devices"),
                (("--load-factor", "-1"), "load factor"),
                (("--load-factor", "nan"), "load factor"),
                (("--load-factor", "0"), "load factor"),
                (("--device-names", "/dev/a,,/dev/b"), "empty device"),
                (("--device-names", "/dev/a,/dev/a"), "named twice"),
                (("--duration-sec", "0"), "--duration-sec"),
                (("--lbr-req-offset", "1001"), "--lbr-req-offset"),
                (("--read-size-offset", "0"), "--read-size-offset"),
                (("--interactive", "--devices", "2"), "--interactive"),
                (("--bogus",), "unrecognized"),
                (("extra",), "unrecognized")):
            with self.subTest(args=args):
                self.user_error(*args, expect=(text,))

    def test_rates_both_zero(self):
        text = fixture("write-sizes.txt").replace("5916.0", "   0.0")
        w = self.write("w0.txt", text)
        r0 = self.write("r0.txt", fixture("read-sizes.txt").replace(
            "10427.0", "    0.0"))
        self.user_error("--read-sizes", r0, "--write-sizes", w,
                        expect=("both 0",))


# ---------------------------------------------------------------------------
# Pure functions.

class TestParseTable(unittest.TestCase):

    def test_paper_avg_rows(self):
        t = helper.parse_size_table(fixture("read-sizes.txt"), "r", "read")
        self.assertEqual(helper.format_histogram(t.values), PAPER_READ_HIST)
        self.assertEqual((t.ops, t.columns, t.line), (10427.0, 19, 15))
        t = helper.parse_size_table(fixture("write-sizes.txt"), "w", "write")
        self.assertEqual(helper.format_histogram(t.values), PAPER_WRITE_HIST)
        self.assertEqual(t.ops, 5916.0)

    def test_minimal_table(self):
        text = ("slice-to (sec) 1 2 4 ops/sec\n"
                "avg 100 50 0 12.4\n")
        t = helper.parse_size_table(text, "m", "read")
        self.assertEqual(t.values, [100.0, 50.0, 0.0])
        self.assertEqual(helper.format_histogram(t.values),
                         "100.00,50.00,0.00")

    def test_round_half_up(self):
        self.assertEqual([helper.round_half_up(x) for x in
                          (0.5, 1.5, 2.5, 15640.5, 2.49)],
                         [1, 2, 3, 15641, 2])


# ---------------------------------------------------------------------------
# Interactive mode.

PAPER_ANSWERS = "1\n/dev/nvme0n1\n\n\n\n3\ny\n"


class TestInteractive(Base):

    def test_paper_session(self):
        r = self.ok(stdin_text=PAPER_ANSWERS, cwd=self.tmp)
        self.assertEqual(r.stderr, fixture("paper-session.txt"))
        self.assertEqual(r.stdout, "")
        self.assertEqual(os.listdir(self.tmp), ["actconfig_3x_1d.txt"])
        with open(os.path.join(self.tmp, "actconfig_3x_1d.txt")) as f:
            text = f.read()
        self.assertTrue(text.startswith(
            "##########\n# act config file for testing 1 device(s) at 3x "
            "load\n##########\n"), text)
        found = self.check_config(text)
        self.assertEqual(found["read-reqs-per-sec"], "6000")
        self.assertEqual(found["write-reqs-per-sec"], "3000")
        self.assertEqual(found["device-names"], "/dev/nvme0n1")
        # the paper's sample file, minus its legacy thread items
        paper = {k: v for k, v in items(
            fixture("paper-sample-config.txt").replace("act config", "#"))
            .items() if k not in ("num-queues", "threads-per-queue")}
        self.assertEqual(found, paper)

    def test_interactive_option(self):
        r = self.ok("--interactive", stdin_text="1\n/dev/sdb\n\n\n1\n\n",
                    cwd=self.tmp)
        found = self.check_config(r.stdout)
        self.assertEqual(found["read-reqs-per-sec"], "2000")

    def test_non_standard_two_devices(self):
        answers = ("x\n2\n"                  # invalid, then 2 devices
                   "/dev/sdb\n/dev/sdb\n/dev/sdc\n"   # duplicate re-asked
                   "y\n0\n2\n"               # duration: 0 invalid, 2 hours
                   "y\n15000\n7500\n"        # non-standard totals
                   "Y\n")
        r = self.ok(stdin_text=answers, cwd=self.tmp)
        self.assertEqual(os.listdir(self.tmp),
                         ["actconfig_non-standard_2d.txt"])
        self.assertIn("Config file actconfig_non-standard_2d.txt "
                      "successfully created.", r.stderr)
        self.assertIn("Enter device name #2 (e.g. /dev/sdb or /dev/sdb1): "
                      "/dev/sdb\nNot valid", r.stderr)
        self.assertNotIn('"1x" load', r.stderr)
        with open(os.path.join(self.tmp,
                               "actconfig_non-standard_2d.txt")) as f:
            text = f.read()
        self.assertIn("testing 2 device(s) at non-standard load", text)
        found = self.check_config(text)
        self.assertEqual(found["device-names"], "/dev/sdb,/dev/sdc")
        self.assertEqual(found["test-duration-sec"], "7200")
        self.assertEqual(found["read-reqs-per-sec"], "15000")
        self.assertEqual(found["write-reqs-per-sec"], "7500")

    def test_standard_load_scales_with_devices(self):
        r = self.ok(stdin_text="2\n/dev/sdb\n/dev/sdc\n\n\n2.5\nn\n",
                    cwd=self.tmp)
        found = self.check_config(r.stdout)
        self.assertEqual(found["read-reqs-per-sec"], "10000")
        self.assertEqual(found["write-reqs-per-sec"], "5000")

    def test_declining_save_prints_config(self):
        r = self.ok(stdin_text="1\n/dev/nvme0n1\n\n\n3\n\n", cwd=self.tmp)
        self.assertEqual(os.listdir(self.tmp), [])
        found = self.check_config(r.stdout)
        self.assertEqual(found["read-reqs-per-sec"], "6000")
        self.assertTrue(r.stdout.startswith("##########\n"))
        self.assertTrue(r.stderr.endswith(
            "Do you want to save this config to a file? (y/N): \n"))

    def test_eof_at_prompt(self):
        for answers in ("", "1\n", "1\n/dev/sdb\n\n\n\n\n"):
            with self.subTest(answers=answers):
                r = run_helper(stdin_text=answers, cwd=self.tmp)
                self.assertEqual(r.returncode, 1)
                self.assertNotIn("Traceback", r.stderr)
                self.assertNotIn("error", r.stderr)
                self.assertEqual(r.stdout, "")
                self.assertEqual(os.listdir(self.tmp), [])

    def test_ctrl_c_at_prompt(self):
        p = subprocess.Popen([sys.executable, HELPER], cwd=self.tmp,
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE)
        try:
            seen = b""
            deadline = time.monotonic() + 10
            while not seen.endswith(b"create config for: "):
                self.assertLess(time.monotonic(), deadline, seen)
                c = p.stderr.read(1)
                self.assertTrue(c, seen)
                seen += c
            p.send_signal(signal.SIGINT)
            out, err = p.communicate(timeout=10)
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
        self.assertEqual(p.returncode, 130)
        self.assertNotIn(b"Traceback", err)
        self.assertEqual(out, b"")

    def test_unwritable_directory(self):
        if os.geteuid() == 0:
            self.skipTest("root can write anywhere")
        os.chmod(self.tmp, 0o500)
        try:
            r = run_helper(stdin_text=PAPER_ANSWERS, cwd=self.tmp)
        finally:
            os.chmod(self.tmp, 0o700)
        self.assertEqual(r.returncode, 2)
        self.assertIn("cannot write actconfig_3x_1d.txt", r.stderr)


# ---------------------------------------------------------------------------
# act_storage accepts the generated configs.

class TestActStorageAccepts(Base):

    def setUp(self):
        super().setUp()
        self.act = act_storage_path()
        if self.act is None:
            self.skipTest("target/bin/act_storage not built (run make)")

    def run_config(self, text):
        dev = os.path.join(self.tmp, "dev.img")
        lines = [l for l in text.splitlines()
                 if not re.match(r"^(device-names|test-duration-sec|"
                                 r"max-lag-sec|file-size-mbytes)\b", l)]
        lines += ["device-names: " + dev, "file-size-mbytes: 16",
                  "test-duration-sec: 1", "max-lag-sec: 0"]
        conf = self.write("run.conf", "\n".join(lines) + "\n")
        return subprocess.run([self.act, conf], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE,
                              universal_newlines=True, timeout=60)

    def test_interactive_config_runs(self):
        text = self.ok(stdin_text=PAPER_ANSWERS.replace("y\n", "n\n"),
                       cwd=self.tmp).stdout
        r = self.run_config(text)
        self.assertEqual(r.returncode, 0, r.stdout[-2000:] + r.stderr)
        self.assertIn("read-reqs-per-sec: 6000", r.stdout)

    def test_production_config_runs(self):
        text = self.ok(*PAPER_ARGS, "--lbr-req-offset", "90",
                       "--lbw-req-offset", "93").stdout
        r = self.run_config(text)
        if "unknown config item 'storage-read-histogram'" in \
                r.stdout + r.stderr:
            self.skipTest("act_storage does not accept storage-read-histogram"
                          " yet (advanced-sizing items not implemented)")
        self.assertEqual(r.returncode, 0, r.stdout[-2000:] + r.stderr)
        self.assertIn("storage-read-histogram", r.stdout)


# ---------------------------------------------------------------------------
# Issue 14: --version, the usage, an existing file, end of input, the
# paper's example config.

EOF_MESSAGE = PROG + ": end of input - nothing written\n"


class TestVersionAndUsage(Base):

    def test_version(self):
        r = self.ok("--version")
        self.assertEqual(("act_config_helper.py 6.7\n", ""),
                         (r.stdout, r.stderr))

    def test_version_is_acts(self):
        with open(os.path.join(REPO, "src", "common", "version.h")) as f:
            m = re.search(r'#define ACT_VERSION "([^"]+)"', f.read())
        self.assertEqual(m.group(1), helper.VERSION)

    def test_usage_shows_both_modes(self):
        usage = self.ok("--help").stdout.split("\n\n")[0]
        self.assertTrue(usage.startswith(
            "usage: act_config_helper.py [--interactive] [--force]\n"),
            usage)
        self.assertIn("[--output FILE [--force]]", usage)
        self.assertIn("act_config_helper.py --help | --version", usage)
        for other in (["--devices", "2"], ["--devices", "1"],
                      ["--output=x.conf", "--force"]):
            r = self.user_error("--interactive", *other)
            self.assertIn("--interactive takes no other option than "
                          "--force", r.stderr)
        r = self.user_error("--force", "--devices", "2")
        self.assertIn("--force applies to --output FILE", r.stderr)


class TestExistingFile(Base):
    """An existing config file is never overwritten silently."""

    NAME = "actconfig_3x_1d.txt"
    OLD = "# my own config\n"
    PROMPT = "file actconfig_3x_1d.txt exists - overwrite? [y/N] "

    def existing(self, name=NAME):
        return self.write(name, self.OLD)

    def content(self, name=NAME):
        with open(os.path.join(self.tmp, name)) as f:
            return f.read()

    def test_interactive_keeps_it_unless_yes(self):
        for answer in ("\n", "n\n", "no\n"):
            with self.subTest(answer=answer):
                self.existing()
                r = self.ok(stdin_text=PAPER_ANSWERS + answer, cwd=self.tmp)
                self.assertEqual(self.OLD, self.content())
                self.assertTrue(r.stderr.endswith(
                    "Do you want to save this config to a file? (y/N): y\n" +
                    self.PROMPT + answer + "Kept the existing "
                    "actconfig_3x_1d.txt; the config follows on stdout.\n"),
                    r.stderr)
                found = self.check_config(r.stdout)     # printed instead
                self.assertEqual(found["read-reqs-per-sec"], "6000")

    def test_interactive_yes_overwrites(self):
        self.existing()
        r = self.ok(stdin_text=PAPER_ANSWERS + "y\n", cwd=self.tmp)
        self.assertEqual("", r.stdout)
        self.assertIn(self.PROMPT + "y\nConfig file actconfig_3x_1d.txt "
                      "successfully created.\n", r.stderr)
        self.assertEqual("6000", items(self.content())["read-reqs-per-sec"])

    def test_interactive_force(self):
        self.existing()
        r = self.ok("--interactive", "--force", stdin_text=PAPER_ANSWERS,
                    cwd=self.tmp)
        self.assertNotIn("exists", r.stderr)
        self.assertEqual("6000", items(self.content())["read-reqs-per-sec"])
        # a session without the file does not ask either
        os.remove(os.path.join(self.tmp, self.NAME))
        r = self.ok(stdin_text=PAPER_ANSWERS, cwd=self.tmp)
        self.assertNotIn("exists", r.stderr)

    def test_end_of_input_at_the_overwrite_prompt(self):
        self.existing()
        r = run_helper(stdin_text=PAPER_ANSWERS, cwd=self.tmp)
        self.assertEqual((1, ""), (r.returncode, r.stdout))
        self.assertTrue(r.stderr.endswith(self.PROMPT + "\n" + EOF_MESSAGE),
                        r.stderr)
        self.assertEqual(self.OLD, self.content())

    def test_output_needs_force_without_a_terminal(self):
        path = self.existing("prod.conf")
        r = self.user_error(*PAPER_ARGS, "--output", path)
        self.assertEqual("%s: error: %s exists: use --force to overwrite it, "
                         "or another --output\n" % (PROG, path), r.stderr)
        self.assertEqual(self.OLD, self.content("prod.conf"))
        r = self.ok(*PAPER_ARGS, "--output", path, "--force")
        self.assertIn("Config file %s successfully created." % path,
                      r.stderr)
        self.assertEqual("10427",
                         items(self.content("prod.conf"))[
                             "read-reqs-per-sec"])

    def run_on_terminal(self, args, answer):
        """Run the helper with a terminal as stdin (answer typed on it)."""
        import pty
        master, slave = pty.openpty()
        try:
            os.write(master, answer.encode())
            p = subprocess.run([sys.executable, HELPER] + list(args),
                               cwd=FIXTURES, stdin=slave,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               universal_newlines=True, timeout=30)
        finally:
            os.close(slave)
            os.close(master)
        return p

    def test_output_asks_on_a_terminal(self):
        try:
            import pty  # noqa: F401
        except ImportError:
            self.skipTest("no pty module")
        path = self.existing("prod.conf")
        p = self.run_on_terminal(PAPER_ARGS + ("--output", path), "n\n")
        self.assertEqual((1, ""), (p.returncode, p.stdout), p.stderr)
        self.assertEqual("file %s exists - overwrite? [y/N] Kept the existing "
                         "%s: nothing written.\n" % (path, path), p.stderr)
        self.assertEqual(self.OLD, self.content("prod.conf"))
        p = self.run_on_terminal(PAPER_ARGS + ("--output", path), "y\n")
        self.assertEqual(0, p.returncode, p.stderr)
        self.assertIn("Config file %s successfully created." % path,
                      p.stderr)
        self.assertEqual("10427",
                         items(self.content("prod.conf"))[
                             "read-reqs-per-sec"])


class TestEndOfInput(Base):

    def test_message(self):
        for answers in ("", "1\n", "1\n/dev/sdb\n\n\n\n\n"):
            with self.subTest(answers=answers):
                r = run_helper(stdin_text=answers, cwd=self.tmp)
                self.assertEqual((1, ""), (r.returncode, r.stdout))
                # the prompt's line is ended, then the message
                self.assertTrue(r.stderr.endswith(": \n" + EOF_MESSAGE),
                                r.stderr)
                self.assertEqual(1, r.stderr.count(EOF_MESSAGE))
                self.assertEqual([], os.listdir(self.tmp))


class TestPaperExample(unittest.TestCase):
    """config/examples/paper_final.conf names no real drive."""

    def test_placeholder_device(self):
        with open(os.path.join(REPO, "config", "examples",
                               "paper_final.conf")) as f:
            text = f.read()
        devices = re.findall(r"(?m)^device-names:\s*(\S+)", text)
        self.assertEqual(["/dev/nvme0n1-CHANGE-ME"], devices)
        self.assertFalse(os.path.exists(devices[0]))
        # otherwise the paper's config as printed
        self.assertIn("\nnum-queues: 4\nthreads-per-queue: 35\n", text)
        self.assertIn("\nlbr-req-offset: 090\nlbw-req-offset: 093\n", text)


if __name__ == "__main__":
    unittest.main(verbosity=2)
