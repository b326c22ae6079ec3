"""Description: `make help` lists every target the Makefile declares, one line each.

The .PHONY targets of Makefile and python.mk (the targets a user runs)
each appear in `make help` as a line `  TARGET  text`; every target the
help lists is one of them (no stale entry); the help exits 0 and says
nothing on stderr.
"""

import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import itest  # noqa: E402

REPO = itest.REPO


def phony_targets():
    names = []
    for mk in ("Makefile", "python.mk"):
        with open(os.path.join(REPO, mk)) as f:
            text = f.read().replace("\\\n", " ")
        for m in re.finditer(r"(?m)^\.PHONY\s*:(.*)$", text):
            names += m.group(1).split()
    return names


def main():
    c = itest.Checker("test_make_help")
    targets = phony_targets()
    c.check(len(targets) >= 10, "only %d .PHONY targets found: %r" % (
        len(targets), targets))
    p = subprocess.run(["make", "--no-print-directory", "-s", "help"],
                       cwd=REPO, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True,
                       timeout=60)
    detail = "--- stdout ---\n%s--- stderr ---\n%s" % (p.stdout, p.stderr)
    c.eq("make help: exit status", 0, p.returncode, detail)
    c.eq("make help: stderr", "", p.stderr)
    listed = re.findall(r"(?m)^  ([a-z][\w-]*)  +\S", p.stdout)
    for t in targets:
        c.check(t in listed, "make help does not list the target %r "
                "(listed: %r)" % (t, listed), detail)
    for t in listed:
        c.check(t in targets, "make help lists %r, which no .PHONY line "
                "declares" % t)
    c.eq("targets listed twice", [], sorted(set(t for t in listed
                                                if listed.count(t) > 1)))
    print("%d targets, all listed: %s" % (len(targets), " ".join(targets)))
    c.finish()


if __name__ == "__main__":
    main()
