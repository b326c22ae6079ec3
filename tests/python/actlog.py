"""Transitional: the helpers of tests/python are support.py's; this name
stays for act.certify's tests (test_certify_*.py) until they move into
tests/python/certify/ (issue 26: a branch is changing them now)."""

import support


def __getattr__(name):
    return getattr(support, "REPO" if name == "ROOT" else name)
