#!/usr/bin/env python3
"""Description: act_certify's detached campaigns and --status
(analysis/act/certify/detach.py), called directly: who holds a campaign
directory's lock read from /proc/locks without taking it (this process's
own flock found; a fake /proc/locks: the FLOCK line of the lock's inode
found, a waiter's "->" line, a POSIX lock and another inode not); the
--status lines of an interrupted, a running (with the live summary's
step, elapsed time and slices) and a finished campaign; the systemd
unit's name; --detach and --status refused with other modes.

    python3 tests/python/certify/test_detach.py [-v]
"""

import fcntl
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
import support  # noqa: E402,F401

from act.certify import detach  # noqa: E402
from act.certify import main as cmain  # noqa: E402
from act.certify import model  # noqa: E402
from act.cli import UsageError  # noqa: E402

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        "fixtures")


def fixture_state(name):
    with open(os.path.join(FIXTURES, name)) as f:
        return model.State.from_json(json.load(f))


class LockHolder(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="act-detach-")
        self.lock = os.path.join(self.dir, ".lock")

    def tearDown(self):
        for name in os.listdir(self.dir):
            os.unlink(os.path.join(self.dir, name))
        os.rmdir(self.dir)

    def test_no_lock_file(self):
        self.assertIsNone(detach.lock_holder(self.dir))

    def test_own_flock(self):
        fd = os.open(self.lock, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            self.assertIsNone(detach.lock_holder(self.dir))
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            self.assertEqual(detach.lock_holder(self.dir), os.getpid())
        finally:
            os.close(fd)
        self.assertIsNone(detach.lock_holder(self.dir))

    def test_fake_proc_locks(self):
        open(self.lock, "w").close()
        ino = os.stat(self.lock).st_ino
        locks = os.path.join(self.dir, "locks")
        cases = [
            ("1: FLOCK  ADVISORY  WRITE 4321 08:01:%d 0 EOF\n" % ino, 4321),
            ("1: POSIX  ADVISORY  WRITE 4321 08:01:%d 0 EOF\n" % ino, None),
            ("1: FLOCK  ADVISORY  WRITE 4321 08:01:%d 0 EOF\n" % (ino + 1),
             None),
            ("1: -> FLOCK  ADVISORY  WRITE 99 08:01:%d 0 EOF\n"
             "2: FLOCK  ADVISORY  WRITE 7 00:2b:%d 0 EOF\n" % (ino, ino), 7),
            ("garbage\n\n", None),
        ]
        for text, want in cases:
            with open(locks, "w") as f:
                f.write(text)
            self.assertEqual(detach.lock_holder(self.dir, locks), want, text)


class Status(unittest.TestCase):
    def test_interrupted(self):
        lines = detach.status_lines("/c", fixture_state("interrupted.json"),
                                    None, None)
        self.assertEqual(lines[0], "campaign: /c")
        self.assertIn("state: not running (interrupted) - continue with: "
                      "act_certify.py --detach --resume /c", lines)
        self.assertIn("step: 1 of 2: test 1: the target load on one device "
                      "(interrupted)", lines)
        self.assertIn("steps finished: 0 of 2", lines)

    def test_running(self):
        st = fixture_state("interrupted.json")
        summary = {"verdict": {"headline": "not finished: step 1 ..."},
                   "running": {"step": 1, "elapsed_sec": 3725,
                               "planned_sec": 7200, "slice_sec": 600,
                               "histograms": [{"name": "reads",
                                               "slices": [1, 2, 3]}],
                               "failing_drives": ["/dev/x"]}}
        lines = detach.status_lines("/c", st, 123, summary)
        self.assertIn("state: running (pid 123)", lines)
        self.assertIn("elapsed: 1:02:05 of 2:00:00", lines)
        self.assertIn("slices judged: 3 of 12", lines)
        self.assertIn("failing drives so far: /dev/x", lines)
        self.assertIn("verdict so far: not finished: step 1 ...", lines)
        # not running: the live part is not shown
        lines = detach.status_lines("/c", st, None, summary)
        self.assertFalse(any(x.startswith("elapsed") for x in lines))

    def test_finished(self):
        lines = detach.status_lines("/c", fixture_state("finished.json"),
                                    None, {"verdict": {"headline": "X"}})
        self.assertIn("state: finished", lines)
        self.assertIn("verdict: X", lines)
        self.assertFalse(any(x.startswith("step:") for x in lines))


class Options(unittest.TestCase):
    def test_unit_name(self):
        self.assertEqual(detach.unit_name("/var/lib/act/cert nvme0"),
                         "act-certify-cert_nvme0")

    def refused(self, argv, text):
        with self.assertRaises(UsageError) as cm:
            cmain.parse_args(argv)
        self.assertIn(text, str(cm.exception))

    def test_refused(self):
        new = ["--device", "/d", "--load", "1", "--out", "/o"]
        self.refused(new + ["--detach", "--dry-run"], "--detach goes with")
        self.refused(["--report", "/o", "--detach"], "--detach goes with")
        self.refused(["--status", "/o", "--load", "1"],
                     "--status takes no other option")
        self.refused(["--status", "/o", "--resume", "/o"], "go alone")
        self.refused(["--compare", "/a", "--detach"], "remove --detach")

    def test_accepted(self):
        a = cmain.parse_args(["--resume", "/o", "--detach"])
        self.assertTrue(a.detach)
        self.assertEqual(cmain.parse_args(["--status", "/o"]).status, "/o")


if __name__ == "__main__":
    unittest.main()
