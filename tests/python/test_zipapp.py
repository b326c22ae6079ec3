#!/usr/bin/env python3
"""Description: the single-file deployment - scripts/mkzipapp.py (what
`make` runs for target/bin/*.py: the .py files of analysis/act and a
__main__ that exits with the entry's status) makes zipapps that run
alone, find what they need from where the archive sits, and keep their
exit statuses:

- act_latency.py, from any folder, behaves as analysis/act_latency.py:
  the same bytes out and the same exit statuses;
- act_certify.py at target/bin/act_certify.py of a source tree: the
  programs and act_latency.py beside it, the example configs in
  ../../config (a dry run plans target/bin/act_storage with
  config/act_storage.conf, and with --index act_index with
  act_index.conf); installed as PREFIX/bin/act_certify.py, run through
  the PREFIX/bin/act_certify symlink: the configs in
  PREFIX/share/act/config; with no example config anywhere: exit 78
  naming the three places;
- exit statuses through the archive: 64 for act_certify's bad option, 2
  for act_config_helper's;
- --version of act_certify and act_config_helper is act's version in
  src/common/version.h (the review found act_certify's the only copy no
  test checked);
- the archive holds the package's .py files and __main__.py, nothing
  else;
- act_config_helper's zipapp turns the paper's data into the same config
  as the script (tests/python/sizing/fixtures/expected-paper.conf).

    python3 tests/python/test_zipapp.py [-v]
"""

import os
import re
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


def build(path, entry):
    """As make builds it (python.mk: scripts/mkzipapp.py)."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    r = subprocess.run([sys.executable, os.path.join(support.REPO, "scripts",
                                                     "mkzipapp.py"),
                        path, entry, support.ANALYSIS],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True, timeout=60)
    if r.returncode != 0:
        raise RuntimeError("mkzipapp.py %s %s: %s" % (path, entry, r.stdout))


def run(argv, cwd=None):
    env = dict(os.environ)
    env.pop("ACT_BIN", None)
    return subprocess.run(argv, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True,
                          env=env, cwd=cwd, stdin=subprocess.DEVNULL,
                          timeout=60)


class CertifyZipapp(unittest.TestCase):
    def check_plan(self, what, r, program, config):
        self.assertEqual(0, r.returncode, "%s: exit "
                         "status (stderr %r)" % (what, r.stderr))
        self.assertTrue("  program:     %s\n" % program in r.stdout,
                        "%s\n%s"
                        % ("%s: the program is not %s" % (what, program),
                           r.stdout))
        self.assertTrue("  base config: %s " % config in r.stdout,
                        "%s\n%s"
                        % ("%s: the base config is not %s" % (what, config),
                           r.stdout))

    def test_certify_and_config_helper(self):
        with tempfile.TemporaryDirectory(prefix="act-zipapp-test-") as td:
            dev = os.path.join(td, "dev")
            with open(dev, "wb") as f:
                f.truncate(1 << 20)
            dry = ["--device", dev, "--load", "3", "--out",
                   os.path.join(td, "o"), "--seconds", "60", "--dry-run"]

            # a source tree: target/bin and config/
            tree = os.path.join(td, "tree")
            tbin = os.path.join(tree, "target", "bin")
            app = os.path.join(tbin, "act_certify.py")
            build(app, "act.certify.main:main")
            for prog in ("act_storage", "act_index"):
                support.stub_program(os.path.join(tbin, prog))
            shutil.copy(os.path.join(support.ANALYSIS, "act_latency.py"), tbin)
            os.mkdir(os.path.join(tree, "config"))
            for conf in ("act_storage.conf", "act_index.conf"):
                shutil.copy(os.path.join(support.REPO, "config", conf),
                            os.path.join(tree, "config"))
            self.check_plan("target/bin/act_certify.py", run([app] + dry),
                            os.path.join(tbin, "act_storage"),
                            os.path.join(tree, "config", "act_storage.conf"))
            self.check_plan("target/bin/act_certify.py --index",
                            run([app] + dry + ["--index"]),
                            os.path.join(tbin, "act_index"),
                            os.path.join(tree, "config", "act_index.conf"))
            with open(os.path.join(support.REPO, "src", "common",
                                   "version.h")) as f:
                version = re.search(r'#define ACT_VERSION "([^"]+)"',
                                    f.read()).group(1)
            r = run([app, "--version"])
            self.assertEqual((0, "act_certify.py %s\n" % version),
                             (r.returncode, r.stdout),
                             "zipapp --version: act's version "
                             "(src/common/version.h)")
            r = run([sys.executable, app, "--bogus"])
            self.assertEqual(64, r.returncode, "zipapp, a bad option: exit "
                             "status")
            self.assertEqual("act_certify.py: error: unrecognized arguments: "
                             "--bogus\n", r.stderr, "zipapp, a bad option: "
                             "stderr")
            names = sorted(zipfile.ZipFile(app).namelist())
            odd = [n for n in names if n != "__main__.py" and not (
                n.startswith("act/") and (n.endswith(".py") or
                                          n.endswith("/")))]
            self.assertEqual([], odd, "what the archive holds besides "
                             "act/**.py, its folders and __main__.py")
            self.assertTrue("act/certify/main.py" in names
                            and "act/__init__.py" in
                            names, "%s\n%s"
                            % ("the archive lacks the package", names))

            # installed: PREFIX/bin and PREFIX/share/act/config
            pbin = os.path.join(td, "prefix", "bin")
            shutil.copytree(tbin, pbin)
            share = os.path.join(td, "prefix", "share", "act", "config")
            shutil.copytree(os.path.join(tree, "config"), share)
            os.symlink("act_certify.py", os.path.join(pbin, "act_certify"))
            self.check_plan("PREFIX/bin/act_certify", run(
                [os.path.join(pbin, "act_certify")] + dry),
                os.path.join(pbin, "act_storage"),
                os.path.join(share, "act_storage.conf"))

            # no example config anywhere
            shutil.rmtree(os.path.join(tree, "config"))
            r = run([app] + dry)
            self.assertEqual(78, r.returncode, "no example config: exit "
                             "status")
            self.assertEqual("act_certify.py: error: can't find the example "
                             "config act_storage.conf (in ../config, "
                             "../../config or ../share/act/config beside %s) "
                             "- give --config\n"% tbin, r.stderr,
                             "no example config: stderr")

            # act_config_helper
            helper = os.path.join(tbin, "act_config_helper.py")
            build(helper, "act.sizing.main:main")
            r = run([helper, "--version"])
            self.assertEqual((0, "act_config_helper"
                             ".py %s\n" % version), (r.returncode, r.stdout),
                             "act_config_helper zipapp --version")
            r = run([helper, "--devices", "0"])
            self.assertEqual(2, r.returncode,
                             "act_config_helper zipapp, a bad "
                             "option: exit status")
            r = run([helper, "--read-sizes", "read-sizes.txt", "--write-sizes",
                     "write-sizes.txt", "--defrag-log", "defrag.log"],
                    cwd=support.SIZING_FIXTURES)
            with open(os.path.join(support.SIZING_FIXTURES,
                                   "expected-paper.conf")) as f:
                self.assertEqual(f.read(), r.stdout, "act_config_helper "
                                 "zipapp: the paper's config")


if __name__ == "__main__":
    unittest.main()
