"""Description: act_storage and act_index warn once when their log goes to a terminal, then run as before.

stdout is a pseudo-terminal (stderr a pipe): act_storage and act_index on
a file device for 2 s exit 0, their log reaches the terminal (it has the
`after 2 sec:` report), and stderr has exactly one line `WARNING: the log
goes to the terminal and is not saved - to keep it for act_latency.py:
PROGRAM CONFIG > LOG`. With stdout a pipe (a log being saved), and for
--check (no log) with stdout on the terminal, no such warning.
"""

import os
import pty
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import itest  # noqa: E402

WARNING = ("WARNING: the log goes to the terminal and is not saved - to keep "
           "it for act_latency.py: %s %s > LOG")


def run_stdout_pty(args, timeout=60):
    """Run args with stdout on a pty, stderr to a pipe: (exit status, what
    the terminal got, stderr)."""
    master, slave = pty.openpty()
    p = subprocess.Popen(args, stdout=slave, stderr=subprocess.PIPE,
                         stdin=subprocess.DEVNULL)
    os.close(slave)
    err_chunks = []
    t = threading.Thread(target=lambda: err_chunks.append(p.stderr.read()))
    t.daemon = True
    t.start()
    deadline = time.monotonic() + timeout
    got = itest.read_pty(master, deadline)
    os.close(master)
    try:
        p.wait(timeout=max(1, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
    t.join(10)
    err = b"".join(err_chunks).decode("utf-8", "replace")
    return p.returncode, got.decode("utf-8", "replace"), err


def main():
    c = itest.Checker("test_tty_log")
    with itest.TempDir() as td:
        for prog in ("act_storage", "act_index"):
            cfg = itest.write_config(td.join(prog + ".conf"), [
                ("device-names", td.join(prog + ".dev")),
                ("file-size-mbytes", 16), ("test-duration-sec", 2),
                ("read-reqs-per-sec", 200), ("write-reqs-per-sec", 100)])
            want = WARNING % (prog, cfg)
            rc, term, err = run_stdout_pty([itest.binary(prog), cfg])
            detail = "--- terminal ---\n%s\n--- stderr ---\n%s" % (term, err)
            c.eq("[%s, stdout a terminal] exit status" % prog, 0, rc, detail)
            c.check("after 2 sec:" in term, "[%s, stdout a terminal] no "
                    "'after 2 sec:' report on the terminal" % prog, detail)
            warns = [l for l in err.split("\n") if l.startswith("WARNING:")]
            c.eq("[%s, stdout a terminal] WARNING lines" % prog, [want],
                 warns, detail)
            print("[%s, stdout a terminal] exit %s: %s" % (
                prog, rc, warns[0] if warns else None))

            rc, term, err = run_stdout_pty([itest.binary(prog), "--check",
                                            cfg])
            c.eq("[%s --check] exit status" % prog, 0, rc, err)
            c.check("not saved" not in err, "[%s --check] warned about a "
                    "log it does not write: %r" % (prog, err))

            r = itest.run([itest.binary(prog), cfg])
            c.eq("[%s, stdout a pipe] exit status" % prog, 0, r.rc,
                 r.describe())
            c.check("not saved" not in r.err, "[%s, stdout a pipe] warned "
                    "that the log is not saved: %r" % (prog, r.err))
    c.finish()


if __name__ == "__main__":
    main()
