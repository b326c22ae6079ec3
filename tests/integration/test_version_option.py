"""Description: -V prints the version, as --version does, for every program.

act_storage, act_index, act_prep (target/bin), act_latency.py,
act_certify.py, act_config_helper.py (the scripts in the tree and the
zipapps in target/bin): `PROG -V` exits 0 and prints `NAME VERSION` on
stdout, nothing on stderr, the same as `PROG --version`; VERSION is
src/common/version.h's ACT_VERSION, which equals analysis/act/__init__.py's
VERSION.
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import itest  # noqa: E402

REPO = itest.REPO


def versions():
    with open(os.path.join(REPO, "src", "common", "version.h")) as f:
        c = re.search(r'#define ACT_VERSION "([^"]+)"', f.read()).group(1)
    with open(os.path.join(REPO, "analysis", "act", "__init__.py")) as f:
        py = re.search(r'^VERSION = "([^"]+)"', f.read(), re.M).group(1)
    return c, py


def main():
    c = itest.Checker("test_version_option")
    c_ver, py_ver = versions()
    c.eq("analysis/act/__init__.py VERSION (= ACT_VERSION)", c_ver, py_ver)
    progs = [(itest.binary(n), n) for n in ("act_storage", "act_index",
                                             "act_prep")]
    for script, name in (("analysis/act_latency.py", "act_latency.py"),
                         ("analysis/act_certify.py", "act_certify.py"),
                         ("config/act_config_helper.py",
                          "act_config_helper.py")):
        progs.append((os.path.join(REPO, script), name))
        progs.append((itest.binary(name), name))
    for path, name in progs:
        want = "%s %s\n" % (name, c_ver)
        for opt in ("-V", "--version"):
            r = itest.run([path, opt], timeout=30)
            key = "%s %s" % (path, opt)
            c.eq("[%s] exit status" % key, 0, r.rc, r.describe())
            c.eq("[%s] stdout" % key, want, r.out, r.describe())
            c.eq("[%s] stderr" % key, "", r.err)
        print("%s -V: %r" % (path, r.out))
    c.finish()


if __name__ == "__main__":
    main()
