"""What the tests of act.sizing (act_config_helper.py) share: the package
on sys.path, the fixtures, the helper run as a program, a config's items,
and Base (a temporary directory and the checks of a config and of a user
error).

fixtures/ holds the "Advanced Flash Device Sizing" paper's own inputs:
read-sizes.txt / write-sizes.txt (its asloglatency tables of
{ycsb}-device-read-size / -device-write-size, verbatim with the command
lines around them), defrag.log (its two drv_ssd lines), paper-session.txt
(its interactive transcript) and paper-sample-config.txt (the config that
session generated); expected-paper.conf / expected-paper-report.txt are the
helper's checked output on the paper's inputs.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import types
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, os.path.join(REPO, "analysis"))

HELPER = os.path.join(REPO, "config", "act_config_helper.py")
FIXTURES = os.path.join(HERE, "fixtures")
PROG = "act_config_helper.py"

PAPER_READ_HIST = ("100.00,100.00,100.00,100.00,100.00,100.00,100.00,100.00,"
                   "100.00,100.00,100.00,83.97,68.26,52.89,38.48,25.52,"
                   "12.65,0.00")
PAPER_WRITE_HIST = ("100.00,100.00,100.00,100.00,100.00,100.00,100.00,"
                    "100.00,100.00,100.00,85.72,85.72,71.44,57.11,42.90,"
                    "28.44,14.26,0.00")
PAPER_ARGS = ("--read-sizes", "read-sizes.txt", "--write-sizes",
              "write-sizes.txt", "--defrag-log", "defrag.log")
# The paper's interactive session: 1 device /dev/nvme0n1, the default 24
# hours, the standard load, factor 3, saved.
PAPER_ANSWERS = "1\n/dev/nvme0n1\n\n\n\n3\ny\n"
EOF_MESSAGE = PROG + ": end of input - nothing written\n"

# Every item act_storage accepts (spec docs/act_storage.md and
# docs/advanced-sizing.md).
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


def opts(**kw):
    """The options production_config reads, as the parser gives them."""
    o = dict(device_names=None, load_factor=1.0, devices=1,
             read_sizes=None, write_sizes=None, defrag_log=None,
             duration_sec=86400, read_size_offset=None,
             write_size_offset=None, lbr_req_offset=None,
             lbw_req_offset=None)
    o.update(kw)
    return types.SimpleNamespace(**o)


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
