#!/usr/bin/env python3
"""Description: act_certify --detach and --status (docs/certify.md,
"Detached campaigns"), on a file device, trial steps of 4 s, with the
fallback (ACT_CERTIFY_DETACH=fork: a double fork and setsid):

- --detach returns at once (well before the campaign's 8 s), saying the
  campaign started and its pid; the campaign runs in a session of its
  own, its output in DIR/detach.log, its pid in DIR/detach.pid;
- the same command again while it runs starts nothing ("already
  running", the same pid, exit 0), and --status says running, the step
  and the verdict so far;
- the campaign killed (SIGTERM: interrupted), the same command resumes
  it (state.json records a resume) and it ends certified;
- once finished, the same command starts nothing ("has finished");
- a detached campaign that can't start (a missing device) fails at once
  with its error and status 2.

Exit 0 pass, 1 fail."""

import json
import os
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import itest  # noqa: E402
import test_certify as tc  # noqa: E402


def env():
    e = tc.env_for()
    e["ACT_CERTIFY_DETACH"] = "fork"
    e["ACT_CERTIFY_REPORT_SEC"] = "0.5"
    return e


def alive(pid):
    return os.path.exists("/proc/%d" % pid)


def main():
    fails = []

    def check(ok, what, r=None):
        if not ok:
            fails.append(what + ("\n" + r.describe() if r else ""))

    with itest.TempDir("act-detach") as td:
        dev = tc.make_device(td.join("dev"))
        out = td.join("c")
        cmd = ["--detach", "--device", dev, "--load", "0.1", "--seconds",
               "4", "--out", out]
        t0 = time.monotonic()
        r = tc.certify(cmd, env=env())
        took = time.monotonic() - t0
        check(r.rc == 0 and "campaign started in %s, detached: pid" % out
              in r.out, "first --detach: started, exit 0", r)
        check(took < 6, "--detach returned after %.1f s (the campaign "
              "takes 8)" % took)
        try:
            with open(os.path.join(out, "detach.pid")) as f:
                pid = int(f.read())
        except (OSError, ValueError) as e:
            fails.append("no detach.pid: %s" % e)
            pid = None
        if pid:
            check(os.getsid(pid) not in (os.getsid(0), 0), "the campaign "
                  "in a session of its own (sid %d, ours %d)"
                  % (os.getsid(pid), os.getsid(0)))
        r = tc.certify(cmd, env=env())
        check(r.rc == 0 and "already running (pid %d): nothing started"
              % (pid or 0) in r.out, "second --detach: nothing started", r)
        check("state: running (pid %d)" % (pid or 0) in r.out and
              "step: 1 of 2" in r.out, "second --detach: its status", r)
        tc.wait_for(lambda: os.path.exists(os.path.join(
            out, "summary.json")), 5)
        r = tc.certify(["--status", out], env=env())
        check(r.rc == 0 and "state: running" in r.out and
              "verdict so far:" in r.out, "--status while it runs", r)
        if pid:
            os.kill(pid, signal.SIGTERM)
            tc.wait_for(lambda: not alive(pid), 20)
        r = tc.certify(["--status", out], env=env())
        check("state: not running (interrupted)" in r.out,
              "--status after SIGTERM", r)
        r = tc.certify(cmd, env=env())
        check(r.rc == 0 and "campaign resumed in %s" % out in r.out,
              "--detach after the interruption resumes", r)
        tc.wait_for(lambda: tc.read(os.path.join(
            out, "detach.log")).count("ended with status") >= 2, 60)
        log = tc.read(os.path.join(out, "detach.log"))
        check(log.rstrip().endswith("ended with status 0") and "resuming the campaign"
              in log, "the resumed campaign ends certified:\n" + log)
        with open(os.path.join(out, "state.json")) as f:
            state = json.load(f)
        check(state["status"] == "finished" and len(state["resumes"]) == 1,
              "state.json: finished, one resume")
        r = tc.certify(cmd, env=env())
        check(r.rc == 0 and "has finished: nothing started" in r.out and
              "state: finished" in r.out, "--detach once finished", r)
        bad = ["--detach", "--device", td.join("nope"), "--load", "0.1",
               "--seconds", "4", "--out", td.join("c2")]
        r = tc.certify(bad, env=env())
        check(r.rc == 2 and td.join("nope") in r.err,
              "--detach on a missing device: status 2, named", r)
    for f in fails:
        print("FAIL: " + f)
    if not fails:
        print("PASS: detached campaigns (start, re-attach, resume, "
              "finished, a failed start)")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
