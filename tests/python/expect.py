"""Description: the little that the Python unit tests of act.certify and
act.sizing share: analysis/ on sys.path (where the package act is), a
stand-in program, and the Checker of tests/lib/checker.py (shared with the
integration tests), which collects failures (each printing what was
expected and what was found), then exits 0 (pass) or 1 (fail) with a
summary line."""

import os
import stat
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
ANALYSIS = os.path.join(REPO, "analysis")
LIB = os.path.join(REPO, "tests", "lib")
for _d in (ANALYSIS, LIB):
    if _d not in sys.path:
        sys.path.insert(0, _d)

from checker import FAIL, PASS, SKIP, Checker, skip  # noqa: E402,F401


def stub_program(path):
    """A stand-in for act_storage or act_index whose --check
    --print-config passes: it prints a config echo (what
    act.certify.precheck reads of it) and exits 0."""
    with open(path, "w") as f:
        f.write("#!/bin/sh\nprintf 'ACT-STORAGE CONFIGURATION\\n"
                "service-threads: 4\\n\\n'\n")
    os.chmod(path, stat.S_IRWXU)
