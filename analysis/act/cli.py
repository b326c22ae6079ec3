"""What act's Python tools share on the command line: the user error
(UsageError), the argparse subclass that raises it, write_stdout(), and
run_main(), the exit ladder of a tool's main(): a user error is a message
and an exit status, never a traceback; a closed output pipe is not a
failure - nor a success the tool did not decide."""

import argparse
import os
import sys


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
    ends with hint."""

    hint = " (see --help)"

    def error(self, message):
        raise UsageError(message + self.hint)


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
