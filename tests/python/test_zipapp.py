#!/usr/bin/env python3
"""The single-file deployment: scripts/mkzipapp.py (what `make` runs for
target/bin/act_latency.py) makes a zipapp that runs alone, from any
folder, and behaves as analysis/act_latency.py - the same bytes out and
the same exit statuses.

    python3 tests/python/test_zipapp.py [-v]
"""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest
import zipfile

import support

FIXTURES = support.FIXTURES


class Zipapp(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp()
        cls.app = os.path.join(cls.tmp, "bin", "act_latency.py")
        os.makedirs(os.path.dirname(cls.app))
        subprocess.run([sys.executable,
                        os.path.join(support.REPO, "scripts", "mkzipapp.py"),
                        cls.app, "act.latency.main:main",
                        os.path.join(support.REPO, "analysis")], check=True)
        for name in ("example_storage.log", "slow.log"):
            shutil.copy(os.path.join(FIXTURES, name), cls.tmp)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def run_both(self, args):
        """(zipapp's (status, out, err), the script's), both run in the
        scratch folder, the zipapp directly (its shebang) with a bare
        environment."""
        env = {"PATH": os.path.dirname(sys.executable) + ":/usr/bin:/bin"}
        z = subprocess.run([self.app] + args, cwd=self.tmp, env=env,
                           capture_output=True)
        s = subprocess.run([sys.executable, os.path.join(
            support.REPO, "analysis", "act_latency.py")] + args,
            cwd=self.tmp, capture_output=True)
        return ((z.returncode, z.stdout, z.stderr),
                (s.returncode, s.stdout, s.stderr))

    def test_contents(self):
        with open(self.app, "rb") as f:
            self.assertEqual(b"#!/usr/bin/env python3\n", f.readline())
        names = zipfile.ZipFile(self.app).namelist()
        self.assertIn("__main__.py", names)
        self.assertIn("act/latency/main.py", names)
        self.assertFalse([n for n in names if "__pycache__" in n or
                          not (n.endswith(".py") or n.endswith("/"))])

    def test_reference_table(self):
        z, s = self.run_both(["-l", "example_storage.log", "-t", "1"])
        with open(os.path.join(FIXTURES, "latency_t1.txt"), "rb") as f:
            self.assertEqual((0, f.read(), b""), z)
        self.assertEqual(s, z)

    def test_exit_statuses(self):
        for args, status in ((["-l", "slow.log", "-t", "2", "--check"], 1),
                             (["-l", "nope.log"], 2),
                             (["--version"], 0)):
            z, s = self.run_both(args)
            self.assertEqual(status, z[0], z)
            self.assertEqual(s, z)


if __name__ == "__main__":
    unittest.main()
