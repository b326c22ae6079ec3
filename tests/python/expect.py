"""Description: the little that the Python unit tests of act.certify and
act.sizing share: analysis/ on sys.path (where the package act is), and
the Checker of tests/lib/checker.py (shared with the integration tests),
which collects failures (each printing what was expected and what was
found), then exits 0 (pass) or 1 (fail) with a summary line."""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
ANALYSIS = os.path.join(REPO, "analysis")
LIB = os.path.join(REPO, "tests", "lib")
for _d in (ANALYSIS, LIB):
    if _d not in sys.path:
        sys.path.insert(0, _d)

from checker import FAIL, PASS, SKIP, Checker, skip  # noqa: E402,F401
