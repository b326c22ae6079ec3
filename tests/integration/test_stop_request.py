"""Description: a run stopped on request says why (docs/beyond.md, "A parent
that stops the run"): the parent passes a pipe (ACT_STOP_FD, believed
with ACT_HELD_PID its own pid), writes one line of reason into it, then
sends SIGINT.

Runs of 30 s, all at once, each stopped ~0.5 s after its report `after 2
sec:`, exit status 130 (128 + SIGINT) every time:
- act_storage and act_index given a reason: the last line is `stopped on
  request: REASON after N sec` (N 2 or 3), the reason as written;
- a reason with control characters and a second line: only its first
  line, each control character a '?';
- the pipe empty (no reason written), ACT_HELD_PID not the parent (the
  reason not believed), no pipe at all (a plain Ctrl-C): `stopped by
  signal SIGINT after N sec`.
Each log is complete reports and that one line after them, and
act_latency.py -t 1 reads it (when the script exists). And in setup:
act_storage whose minimum-I/O probe the test shim holds for 30 s, stopped
with a reason ~0.5 s after its config echo (the setup guard takes the
signal): `stopped on request: REASON after 0 sec`, no report.
"""

import os
import re
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import itest  # noqa: E402

REASON = "fail fast: reads 7.20% over 1 ms (must be under 5%) in slice 3"
SIGNAL_LINE = r"stopped by signal SIGINT after (\d+) sec"
REQUEST_LINE = r"stopped on request: (.*) after (\d+) sec"

# The shim holds the first setup read (test_setup_hang).
HANG = "op=read,offset=0,size=512,count=1,delay_ms=30000"

# name: (program, what is written into the pipe (None: no pipe), whether
# ACT_HELD_PID is the parent, the last line expected (a pattern), the
# reason in it)
CASES = {
    "storage reason": ("act_storage", REASON + "\n", True, REQUEST_LINE,
                       REASON),
    "index reason": ("act_index", REASON + "\n", True, REQUEST_LINE,
                     REASON),
    "two lines": ("act_storage", " fail fast:\x1b[1m \x07x\nsecond line\n",
                  True, REQUEST_LINE, "fail fast:?[1m ?x"),
    "empty pipe": ("act_storage", "", True, SIGNAL_LINE, None),
    "not the parent": ("act_storage", REASON + "\n", False, SIGNAL_LINE,
                       None),
    "no pipe": ("act_storage", None, True, SIGNAL_LINE, None),
    "in setup": ("act_storage", REASON + "\n", True, REQUEST_LINE, REASON),
}
SETUP = "in setup"      # the case stopped in setup (HANG)


def start(td, name, prog, written, parent):
    dev = td.join("dev_" + name.replace(" ", "_"))
    if prog == "act_index":
        itest.make_filled_file(dev, 16)
    cfg = itest.write_config(td.join(name.replace(" ", "_") + ".conf"), [
        ("device-names", dev), ("file-size-mbytes", 16),
        ("service-threads", 2), ("test-duration-sec", 30),
        ("read-reqs-per-sec", 400), ("write-reqs-per-sec", 200)])
    env = itest.shim_env(fault=HANG) if name == SETUP else dict(os.environ)
    env.pop("ACT_STOP_FD", None)
    env.pop("ACT_HELD_PID", None)
    fds = ()
    w = None
    if written is not None:
        r, w = os.pipe()
        fds = (r,)
        env["ACT_STOP_FD"] = str(r)
        # pid 1 is never this test's child's parent
        env["ACT_HELD_PID"] = str(os.getpid() if parent else 1)
    run = itest.Running([itest.binary(prog), cfg], "DERIVED CONFIGURATION"
                        if name == SETUP else "after 2 sec:", env=env,
                        pass_fds=fds, timeout=40)
    if fds:
        os.close(fds[0])
    return run, w


def main():
    c = itest.Checker("test_stop_request")
    with itest.TempDir() as td:
        runs = {name: start(td, name, case[0], case[1], case[2])
                for name, case in CASES.items()}
        for name, (run, _) in runs.items():
            if not run.wait_started(20):
                c.fail("%s: no %r within 20 s" % (name, run.ready))
        time.sleep(0.5)
        for name, (run, w) in runs.items():
            written = CASES[name][1]
            if written:
                os.write(w, written.encode())
            run.p.send_signal(signal.SIGINT)
        for name, (run, w) in runs.items():
            r = run.finish()
            if w is not None:
                os.close(w)
            check(c, td, name, r)
    c.finish()


def check(c, td, name, r):
    prog, _, _, pattern, reason = CASES[name]
    detail = r.describe()
    c.eq("%s: exit status" % name, 128 + signal.SIGINT, r.rc, detail)
    parse = itest.parse_index_log if prog == "act_index" else \
        itest.parse_log
    try:
        log = parse(r.out)
    except itest.ParseError as e:
        c.fail("%s: the log before the stop line does not parse: %s"
               % (name, e), detail)
        return
    c.check(len(log.tail) == 1 and not log.incomplete, "%s: after the last "
            "complete report exactly one line must follow" % name,
            "tail: %r\n%s" % (log.tail, detail))
    last = log.tail[-1] if log.tail else ""
    m = re.match(pattern + "$", last)
    if c.check(m is not None, "%s: last line %r is not %r" % (
            name, last, pattern), detail):
        if reason is not None:
            c.eq("%s: the reason" % name, reason, m.group(1))
        secs = ("0",) if name == SETUP else ("2", "3")
        c.check(m.group(m.lastindex) in secs, "%s: stopped after %s sec, "
                "expected %s" % (name, m.group(m.lastindex), " or ".join(secs)))
    if name == SETUP:
        c.eq("%s: reports" % name, [], log.reports)
        return

    script = itest.latency_script()
    if script is None:
        c.skip_part("act_latency check", "analysis/act_latency.py missing")
        return
    path = td.join(name.replace(" ", "_") + ".log")
    with open(path, "w") as f:
        f.write(r.out)
    lr = itest.run_latency(path, "-t", "1")
    c.eq("%s: act_latency.py -t 1 exit status" % name, 0, lr.returncode,
         lr.stdout + lr.stderr)
    c.eq("%s: act_latency.py slice rows" % name, len(log.reports),
         len(itest.latency_slice_rows(lr.stdout)), lr.stdout)


if __name__ == "__main__":
    main()
