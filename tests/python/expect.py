"""Description: the little that the Python unit tests of act.certify and
act.sizing share: analysis/ on sys.path (where the package act is), a
stand-in program, and a checker that collects failures (each printing what was expected and what
was found), then exits 0 (pass) or 1 (fail) with a summary line."""

import os
import stat
import sys
import time

PASS, FAIL, SKIP = 0, 1, 77

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
ANALYSIS = os.path.join(REPO, "analysis")
if ANALYSIS not in sys.path:
    sys.path.insert(0, ANALYSIS)


def stub_program(path):
    """A stand-in for act_storage or act_index whose --check
    --print-config passes: it prints a config echo (what
    act.certify.precheck reads of it) and exits 0."""
    with open(path, "w") as f:
        f.write("#!/bin/sh\nprintf 'ACT-STORAGE CONFIGURATION\\n"
                "service-threads: 4\\n\\n'\n")
    os.chmod(path, stat.S_IRWXU)


class Checker:
    """c.eq(what, expected, actual) and c.check(cond, msg) record failures;
    c.finish() prints them and the summary line, then exits."""

    def __init__(self, name):
        self.name = name
        self.failures = []
        self.checks = 0
        self.t0 = time.monotonic()

    def check(self, cond, msg, detail=None):
        self.checks += 1
        if not cond:
            self.failures.append(msg if detail is None else
                                 "%s\n%s" % (msg, detail))
        return bool(cond)

    def fail(self, msg, detail=None):
        return self.check(False, msg, detail)

    def eq(self, what, expected, actual):
        return self.check(expected == actual, "%s:\n  expected %r\n  actual   "
                          "%r" % (what, expected, actual))

    def raises(self, what, exc_type, func, *args, expect_text=None,
               expect_status=None, **kw):
        """func(*args) must raise exc_type; its text must be expect_text
        (when given) and its .status expect_status (when given)."""
        try:
            value = func(*args, **kw)
        except exc_type as e:
            ok = self.check(True, what)
            if expect_text is not None:
                ok = self.eq("%s: message" % what, expect_text, str(e)) and ok
            if expect_status is not None:
                ok = self.eq("%s: status" % what, expect_status,
                             getattr(e, "status", None)) and ok
            return ok
        return self.check(False, "%s: expected %s, returned %r"
                          % (what, exc_type.__name__, value))

    def finish(self):
        dt = time.monotonic() - self.t0
        if self.failures:
            for f in self.failures:
                print("FAIL: " + f)
            print("%s: FAILED (%d of %d checks, %.1f s)" % (
                self.name, len(self.failures), self.checks, dt))
            sys.exit(FAIL)
        print("%s: PASS (%d checks, %.1f s)" % (self.name, self.checks, dt))
        sys.exit(PASS)
