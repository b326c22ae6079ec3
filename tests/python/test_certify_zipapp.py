#!/usr/bin/env python3
"""Description: act_certify and act_config_helper as single-file zipapps
(built here as make builds them, with scripts/mkzipapp.py: the .py
files of analysis/act and a __main__ that exits with the entry's status) find what they need from where the archive sits, and
keep their exit statuses:

- at target/bin/act_certify.py of a source tree: the programs and
  act_latency.py beside it, the example configs in ../../config (a dry
  run plans target/bin/act_storage with config/act_storage.conf, and with
  --index act_index with act_index.conf);
- installed as PREFIX/bin/act_certify.py, run through the PREFIX/bin/
  act_certify symlink: the configs in PREFIX/share/act/config;
- with no example config anywhere: exit 78 naming the three places;
- exit statuses through the archive: 64 for a bad option, 2 for
  act_config_helper's;
- --version of both is act's version in src/common/version.h (the review
  found act_certify's the only copy no test checked);
- the archive holds the package's .py files and __main__.py, nothing else;
- act_config_helper's zipapp turns the paper's data into the same config
  as the script (tests/python/sizing/fixtures/expected-paper.conf)."""

import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import expect  # noqa: E402

FIXTURES = os.path.join(expect.REPO, "tests", "python", "sizing",
                        "fixtures")


def build(path, entry):
    """As make builds it (python.mk: scripts/mkzipapp.py)."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    r = subprocess.run([sys.executable, os.path.join(expect.REPO, "scripts",
                                                     "mkzipapp.py"),
                        path, entry, expect.ANALYSIS],
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


def check_plan(c, what, r, program, config):
    c.eq("%s: exit status (stderr %r)" % (what, r.stderr), 0, r.returncode)
    c.check("  program:     %s\n" % program in r.stdout,
            "%s: the program is not %s" % (what, program), r.stdout)
    c.check("  base config: %s " % config in r.stdout,
            "%s: the base config is not %s" % (what, config), r.stdout)


def main():
    c = expect.Checker("test_certify_zipapp")
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
            expect.stub_program(os.path.join(tbin, prog))
        shutil.copy(os.path.join(expect.ANALYSIS, "act_latency.py"), tbin)
        os.mkdir(os.path.join(tree, "config"))
        for conf in ("act_storage.conf", "act_index.conf"):
            shutil.copy(os.path.join(expect.REPO, "config", conf),
                        os.path.join(tree, "config"))
        check_plan(c, "target/bin/act_certify.py", run([app] + dry),
                   os.path.join(tbin, "act_storage"),
                   os.path.join(tree, "config", "act_storage.conf"))
        check_plan(c, "target/bin/act_certify.py --index",
                   run([app] + dry + ["--index"]),
                   os.path.join(tbin, "act_index"),
                   os.path.join(tree, "config", "act_index.conf"))
        with open(os.path.join(expect.REPO, "src", "common",
                               "version.h")) as f:
            version = re.search(r'#define ACT_VERSION "([^"]+)"',
                                f.read()).group(1)
        r = run([app, "--version"])
        c.eq("zipapp --version: act's version (src/common/version.h)",
             (0, "act_certify.py %s\n" % version), (r.returncode, r.stdout))
        r = run([sys.executable, app, "--bogus"])
        c.eq("zipapp, a bad option: exit status", 64, r.returncode)
        c.eq("zipapp, a bad option: stderr", "act_certify.py: error: "
             "unrecognized arguments: --bogus\n", r.stderr)
        names = sorted(zipfile.ZipFile(app).namelist())
        odd = [n for n in names if n != "__main__.py" and not (
            n.startswith("act/") and (n.endswith(".py") or
                                      n.endswith("/")))]
        c.eq("what the archive holds besides act/**.py, its folders and "
             "__main__.py",
             [], odd)
        c.check("act/certify/main.py" in names and "act/__init__.py" in
                names, "the archive lacks the package", names)

        # installed: PREFIX/bin and PREFIX/share/act/config
        pbin = os.path.join(td, "prefix", "bin")
        shutil.copytree(tbin, pbin)
        share = os.path.join(td, "prefix", "share", "act", "config")
        shutil.copytree(os.path.join(tree, "config"), share)
        os.symlink("act_certify.py", os.path.join(pbin, "act_certify"))
        check_plan(c, "PREFIX/bin/act_certify", run(
            [os.path.join(pbin, "act_certify")] + dry),
            os.path.join(pbin, "act_storage"),
            os.path.join(share, "act_storage.conf"))

        # no example config anywhere
        shutil.rmtree(os.path.join(tree, "config"))
        r = run([app] + dry)
        c.eq("no example config: exit status", 78, r.returncode)
        c.eq("no example config: stderr", "act_certify.py: error: can't "
             "find the example config act_storage.conf (in ../config, "
             "../../config or ../share/act/config beside %s) - give "
             "--config\n" % tbin, r.stderr)

        # act_config_helper
        helper = os.path.join(tbin, "act_config_helper.py")
        build(helper, "act.sizing.main:main")
        r = run([helper, "--version"])
        c.eq("act_config_helper zipapp --version", (0, "act_config_helper"
             ".py %s\n" % version), (r.returncode, r.stdout))
        r = run([helper, "--devices", "0"])
        c.eq("act_config_helper zipapp, a bad option: exit status", 2,
             r.returncode)
        r = run([helper, "--read-sizes", "read-sizes.txt", "--write-sizes",
                 "write-sizes.txt", "--defrag-log", "defrag.log"],
                cwd=FIXTURES)
        with open(os.path.join(FIXTURES, "expected-paper.conf")) as f:
            c.eq("act_config_helper zipapp: the paper's config",
                 f.read(), r.stdout)
    c.finish()


if __name__ == "__main__":
    main()
