"""What act's Python tools share on the command line: the user error
(UsageError), the argparse subclass that raises it (and names the option
a mistyped one was meant to be: closest), write_stdout(), and run_main(),
the exit ladder of a tool's main(): a user error is a message and an exit
status, never a traceback; a closed output pipe is not a failure - nor a
success the tool did not decide."""

import argparse
import os
import sys

from act import MAX_NAME


class UsageError(Exception):
    """A user error: reported as one message on stderr (followed by the
    notes that explain it, if any) and an exit status: status, or when it
    is None the tool's usage status (run_main's usage_status, 2)."""

    def __init__(self, message, notes=(), status=None):
        super().__init__(message)
        self.notes = list(notes)
        self.status = status


class ArgumentParser(argparse.ArgumentParser):
    """argparse that raises UsageError instead of exiting; its message
    ends with hint.  A long option it does not know, close to one it does
    (closest), is named with it: "unknown option '--chek' - did you mean
    '--check'?"; the unambiguous prefix of an option stays that option
    (allow_abbrev)."""

    hint = " (see --help)"

    def error(self, message):
        raise UsageError(message + self.hint)

    def parse_args(self, args=None, namespace=None):
        args, extras = self.parse_known_args(args, namespace)
        for token in extras:
            name = token.split("=", 1)[0]
            if not name.startswith("--"):
                continue
            known = [s[2:] for a in self._actions for s in a.option_strings
                     if s.startswith("--")]
            meant = closest(name[2:], known)
            if meant is not None:
                raise UsageError("unknown option '%s' - did you mean '--%s'?"
                                 % (name, meant))
        if extras:
            self.error("unrecognized arguments: %s" % " ".join(extras))
        return args


def closest(name, known):
    """The name in known closest to name, or None when none is close: the
    same name but for case, '_' for '-', dashes missing or extra, or the
    words in another order; else the one with the fewest edits
    (Levenshtein distance), if at most max(2, L / 4) with L the length of
    the longer of the two names.  Ties: the first.  Names of MAX_NAME
    characters or more are close to nothing.  (The rule of the C
    programs' "did you mean", src/common/suggest.c.)"""
    if not name or len(name) >= MAX_NAME:
        return None
    best, best_score = None, None
    for other in known:
        limit = max(2, max(len(name), len(other)) // 4)
        score = _close_score(name, other)
        if score <= limit and (best_score is None or score < best_score):
            best, best_score = other, score
    return best


def _close_score(a, b):
    """0 when a and b are the same name but for case, '_' for '-', missing
    or extra dashes, or the order of the words; else their edit
    distance."""
    a, b = a.lower().replace("_", "-"), b.lower().replace("_", "-")
    if a.replace("-", "") == b.replace("-", "") or \
            sorted(w for w in a.split("-") if w) == \
            sorted(w for w in b.split("-") if w):
        return 0
    return _edit_distance(a, b)


def _edit_distance(a, b):
    """Levenshtein distance: insertions, deletions, substitutions."""
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        diag, row[0] = row[0], i
        for j, cb in enumerate(b, 1):
            diag, row[j] = row[j], min(diag + (ca != cb), row[j] + 1,
                                       row[j - 1] + 1)
    return row[len(b)]


def drop_stdout():
    """Send what is left in stdout's buffer to /dev/null, so that the
    interpreter's last flush does not fail again."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


def write_stdout(text, keep_going=False):
    """Write text to stdout.  A closed pipe (the reader went away, e.g.
    | head) raises BrokenPipeError, which run_main turns into status 0 -
    unless keep_going: then the rest of the output goes to /dev/null and
    the tool carries on to its own exit status (act_latency's --check: the
    verdict, whatever happens to stdout).  Another write error is a
    UsageError."""
    try:
        sys.stdout.write(text)
    except BrokenPipeError:
        drop_stdout()
        if not keep_going:
            raise
    except OSError as e:
        raise UsageError("cannot write the output: %s"
                         % (e.strerror or e)) from None


def run_main(prog, run, argv, usage_status=2, closed_pipe_status=None):
    """run(argv) -> its exit status, with the exit ladder: a UsageError
    is "PROG: error: MESSAGE" (then its notes) on stderr and usage_status;
    stdout closed (not even open: `>&-`) or another output error is an
    error too, usage_status; a closed output pipe (e.g. | head) is the
    reader's choice: quietly, closed_pipe_status - when None, the status
    run returned if it got that far (the pipe found closed at the last
    flush), else 0; ^C is 130."""
    if sys.stdout is None:
        print("%s: error: cannot write the output: stdout is closed"
              % prog, file=sys.stderr)
        return usage_status
    status = 0
    try:
        try:
            status = run(argv)
        finally:
            sys.stdout.flush()
        return status
    except UsageError as e:
        print("%s: error: %s" % (prog, e), file=sys.stderr)
        for note in e.notes:
            print("%s: note: %s" % (prog, note), file=sys.stderr)
        return usage_status
    except BrokenPipeError:
        # The reader went away (e.g. | head): its choice, not a failure -
        # stop quietly; a status that run returned stands (a tool that
        # must not pass on a closed pipe carries on: write_stdout).
        drop_stdout()
        return status if closed_pipe_status is None else closed_pipe_status
    except OSError as e:
        drop_stdout()
        print("%s: error: cannot write the output: %s"
              % (prog, e.strerror or e), file=sys.stderr)
        return usage_status
    except KeyboardInterrupt:
        return 130
