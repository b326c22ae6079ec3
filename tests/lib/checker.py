"""Description: the result collector of act's integration tests (through
tests/integration/itest.py; the Python tests are unittest's): checks that
record failures, each with what was expected and what was found, notes,
and the parts of a test that did not run here (root only, a tool
missing), then one summary line and the exit status: 0 pass, 1 fail (77,
skip, through skip()).

Not a test itself. A part skipped is printed as a line that tests/run.sh
reads to name it on the test's PASS line:

    skipped without root: PART        (skip_part(PART), the default why)
    skipped: PART (WHY)               (skip_part(PART, WHY))
"""

import sys
import time

PASS, FAIL, SKIP = 0, 1, 77

# The why of a part that needs root; tests/run.sh groups these parts.
NOT_ROOT = "not root"


def skip(msg):
    """The whole test does not apply here: exit 77 with its reason."""
    print("SKIP: " + msg)
    sys.exit(SKIP)


class Checker:
    """c.eq(what, expected, actual) and c.check(cond, msg) record failures
    (each returns whether it held); c.note(msg) and c.skip_part(part) tell
    what a pass does not cover; c.finish() prints the failures and the
    summary line, then exits."""

    def __init__(self, name):
        self.name = name
        self.failures = []
        self.notes = []
        self.skipped = []     # [(part, why)]
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

    def eq(self, what, expected, actual, detail=None):
        return self.check(expected == actual, "%s:\n  expected %r\n  actual   "
                          "%r" % (what, expected, actual), detail)

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

    def note(self, msg):
        """Something worth knowing about a run that is not a failure."""
        self.notes.append(msg)
        print("note: " + msg)

    def skip_part(self, part, why=NOT_ROOT):
        """A part of the test that did not run here: by default because
        the test does not run as root; tests/run.sh names it on the PASS
        line. part: a few words, no parenthesis (\"loop device\")."""
        why = " ".join(str(why).split())    # one line
        self.skipped.append((part, why))
        if why == NOT_ROOT:
            print("skipped without root: " + part)
        else:
            print("skipped: %s (%s)" % (part, why))

    def summary(self):
        """What the PASS line adds after the time: the parts skipped."""
        root = [p for p, why in self.skipped if why == NOT_ROOT]
        other = [p for p, why in self.skipped if why != NOT_ROOT]
        out = []
        if root:
            out.append("skipped without root: " + ", ".join(root))
        if other:
            out.append("skipped: " + ", ".join(other))
        return "".join("; " + s for s in out)

    def finish(self):
        dt = time.monotonic() - self.t0
        if self.failures:
            for f in self.failures:
                print("FAIL: " + f)
            print("%s: FAILED (%d of %d checks, %.1f s)" % (
                self.name, len(self.failures), self.checks, dt))
            sys.exit(FAIL)
        print("%s: PASS (%d checks, %.1f s%s)" % (self.name, self.checks, dt,
                                                 self.summary()))
        sys.exit(PASS)
