"""Description: the man pages say what the programs' --help says.

man/*.1 are generated from each program's --help (and --config-help) by
man/mkman.py; regenerating them from the binaries under test must give
exactly the committed pages (a help text changed without `make man` fails
here). Each page is well-formed enough for man(1): a .TH line, NAME,
DESCRIPTION, and every option of the program's usage line appears in it.
"""

import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import itest  # noqa: E402

MKMAN = os.path.join(itest.REPO, "man", "mkman.py")


def main():
    c = itest.Checker("test_man_pages")
    r = subprocess.run([sys.executable, MKMAN, "--check", "--bin",
                        itest.bin_dir()], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, universal_newlines=True,
                       timeout=120)
    c.eq("mkman.py --check: exit status", 0, r.returncode, r.stdout)
    for prog in ("act_storage", "act_index", "act_prep", "act_latency",
                 "act_config_helper"):
        path = os.path.join(itest.REPO, "man", prog + ".1")
        if not c.check(os.path.isfile(path), "%s missing" % path):
            continue
        text = open(path).read()
        for want in (r"(?m)^\.TH ", r"(?m)^\.SH NAME$",
                     r"(?m)^\.SH DESCRIPTION$"):
            c.check(re.search(want, text), "%s: no %s" % (path, want))
        for opt in ("help", "version"):
            c.check("\\-\\-" + opt in text, "%s: --%s not in the page" % (
                path, opt))
    c.finish()


if __name__ == "__main__":
    main()
