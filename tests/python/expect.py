"""Transitional: the helpers of tests/python are support.py's (paths,
stub_program), the Checker is tests/lib/checker.py's; this name stays for
act.certify's tests (test_certify_*.py) until they move into
tests/python/certify/ and to unittest (issue 26: a branch is changing
them now)."""

from support import ANALYSIS, LIB, REPO, stub_program  # noqa: F401
from checker import FAIL, PASS, SKIP, Checker, skip  # noqa: F401
