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
  it (state.json records a resume) and it ends certified; its metrics
  path, given as $ACT_CERTIFY_METRICS, ends saying the campaign
  finished;
- once finished, the same command starts nothing ("has finished");
- a detached campaign that can't start (a missing device) fails at once
  with its error and status 2;
- with ACT_CERTIFY_DETACH=systemd and a fake systemd-run in PATH: the
  transient unit act-certify-NAME (its output appended to DIR/detach.log;
  the unit's environment only what act_certify sets, as systemd's: its
  $ACT_CERTIFY_METRICS passed with --setenv, and the file written),
  nothing started again while it runs, a unit that can't start fails at
  once, and systemd-run failing falls back to the double fork.

Exit 0 pass, 1 fail."""

import json
import re
import os
import shutil
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


FAKE_SYSTEMD_RUN = r"""#!%s
# systemd-run as act_certify calls it: records the call, runs the command
# in a session of its own with the unit's output and environment
import os, subprocess, sys
args = sys.argv[1:]
with open(os.environ["FAKE_SYSTEMD_RECORD"], "a") as f:
    f.write(" ".join(args) + "\n")
if os.environ.get("FAKE_SYSTEMD_FAIL"):
    sys.exit(1)
env, log = {"PATH": os.environ["PATH"]}, None     # a unit's own
while args[0] != "--":
    a = args.pop(0)
    if a == "-p" and args[0].startswith("StandardOutput=append:"):
        log = args.pop(0).split(":", 1)[1]
    elif a == "--setenv":
        k, _, v = args.pop(0).partition("=")
        env[k] = v
    elif a in ("-p", "--unit"):
        args.pop(0)
out = open(log, "ab")
subprocess.Popen(args[1:], stdin=subprocess.DEVNULL, stdout=out,
                 stderr=out, env=env, start_new_session=True)
"""


def unit_mode(td, dev, check):
    """ACT_CERTIFY_DETACH=systemd with a fake systemd-run in PATH: the
    unit act-certify-NAME, its output appended to DIR/detach.log; again
    while it runs: nothing started; a start that fails says so at once;
    systemd-run failing: the fallback."""
    fake = td.join("fakebin")
    os.mkdir(fake)
    with open(os.path.join(fake, "systemd-run"), "w") as f:
        f.write(FAKE_SYSTEMD_RUN % sys.executable)
    os.chmod(os.path.join(fake, "systemd-run"), 0o755)
    e = env()
    e.update(ACT_CERTIFY_DETACH="systemd", PATH=fake + ":" + e["PATH"],
             FAKE_SYSTEMD_RECORD=td.join("record"),
             ACT_CERTIFY_METRICS=td.join("u1.prom"))
    out = td.join("u1")
    cmd = ["--detach", "--device", dev, "--load", "0.1", "--seconds", "2",
           "--out", out]
    r = tc.certify(cmd, env=e)
    rec = tc.read(td.join("record")) if os.path.exists(td.join("record")) \
        else ""
    check(r.rc == 0 and "detached: systemd unit act-certify-u1" in r.out and
          "--unit act-certify-u1 " in rec and "StandardOutput=append:%s"
          % os.path.join(out, "detach.log") in rec,
          "systemd: the unit act-certify-u1:\n" + rec, r)
    r = tc.certify(cmd, env=e)
    check(r.rc == 0 and "already running" in r.out and
          rec == tc.read(td.join("record")),
          "systemd: again while it runs, no unit started", r)
    tc.wait_for(lambda: "ended with status" in tc.read(
        os.path.join(out, "detach.log")), 60)
    check(tc.read(os.path.join(out, "detach.log")).rstrip().endswith(
        "ended with status 0"), "systemd: the unit's campaign ends "
          "certified:\n" + tc.read(os.path.join(out, "detach.log")))
    check(" ACT_CERTIFY_METRICS=%s " % td.join("u1.prom") in rec and
          os.path.exists(td.join("u1.prom")), "systemd: the unit's "
          "environment has $ACT_CERTIFY_METRICS, and the file is "
          "written:\n" + rec)
    del e["ACT_CERTIFY_METRICS"]
    r = tc.certify(["--detach", "--device", td.join("nope"), "--load",
                    "0.1", "--seconds", "2", "--out", td.join("u2")], env=e)
    check(r.rc == 2 and td.join("nope") in r.err,
          "systemd: a unit that can't start: status 2 at once", r)
    e["FAKE_SYSTEMD_FAIL"] = "1"
    r = tc.certify(["--detach", "--device", dev, "--load", "0.1",
                    "--seconds", "2", "--out", td.join("u3")], env=e)
    check(r.rc == 0 and "systemd-run failed" in r.err and
          "detached: pid" in r.out, "systemd-run failing: the fallback", r)
    pid = None
    try:
        with open(td.join("u3", "detach.pid")) as f:
            pid = int(f.read())
    except (OSError, ValueError):
        pass
    if pid:
        tc.wait_for(lambda: not alive(pid), 30)


def main():
    c = itest.Checker("test_certify_detach")

    def check(ok, what, r=None):
        return c.check(ok, what, r.describe() if r else None)

    with itest.TempDir("act-detach") as td:
        # on tmpfs where it can be: a disk-backed file's latency can fail
        # the 0.1x test that every check here expects to pass
        root = tc.device_root(td)
        dev = tc.make_device(os.path.join(root, "dev"))
        out = td.join("c")
        metrics = td.join("act.prom")
        os.environ["ACT_CERTIFY_METRICS"] = metrics   # env() copies it
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
            c.fail("no detach.pid: %s" % e)
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
        prom = tc.read(metrics) if os.path.exists(metrics) else ""
        check('act_campaign_info{' in prom and 'status="finished"' in prom
              and re.search(r"\nact_campaign_in_progress\{[^}]*\} 0\n", prom),
              "the metrics file after the resumed campaign: finished\n"
              + prom[:2000])
        del os.environ["ACT_CERTIFY_METRICS"]
        r = tc.certify(cmd, env=env())
        check(r.rc == 0 and "has finished: nothing started" in r.out and
              "state: finished" in r.out, "--detach once finished", r)
        bad = ["--detach", "--device", td.join("nope"), "--load", "0.1",
               "--seconds", "4", "--out", td.join("c2")]
        r = tc.certify(bad, env=env())
        check(r.rc == 2 and td.join("nope") in r.err,
              "--detach on a missing device: status 2, named", r)
        unit_mode(td, dev, check)
        if root.startswith("/dev/shm/"):
            shutil.rmtree(root, ignore_errors=True)
    c.finish()


if __name__ == "__main__":
    sys.exit(main())
