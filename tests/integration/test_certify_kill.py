#!/usr/bin/env python3
"""Description: act_certify killed outright (SIGKILL) at the worst
moments around its saves, then run again (docs/certify.md, "Progress,
interruptions and resume"): a finished run is never run again, a setup
cut short never blocks its DIR, a report cut short leaves no file behind.

act_certify runs here under a wrapper (this file, with --wrap) that
SIGKILLs it just before a given os.replace - the rename of state.json or
of a report, in any version of act_certify - so each kill is exactly
where it is meant to be. Trial campaigns: 1 file device, --load 0.1,
--seconds 2 (steps 1 and 2).

- ended: killed before the save that records that step 1's program
  ended (the run complete, not yet saved): --resume judges step 1 from
  its log - not run again, no .interrupted file, its log unchanged - and
  the campaign ends certified (exit 0).
- setup: killed before the first save of state.json (DIR holds the lock,
  base.conf and the step configs, no state.json): --resume says the
  setup was stopped and to run the same command again (exit 2); the same
  command then runs the campaign (exit 0).
- report: killed just before the first rename of summary.json (while
  step 1 runs: the live report), leaving its temporary file; a file of
  the name act_certify 6.7 used (summary.json.tmp123) is put there too:
  --resume ends certified (exit 0) and DIR holds no temporary file.

Exit 0 pass, 1 fail."""

import glob
import json
import os
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import itest  # noqa: E402
import test_certify as tc  # noqa: E402

ARGS = ["--load", "0.1", "--seconds", "2"]


def wrapper():
    """python3 test_certify_kill.py --wrap MODE ARGS...: act_certify's main
    with os.replace hooked - MODE ended: SIGKILL before renaming a
    state.json whose step 1 has status "ended"; setup: before the first
    rename of state.json; report: before the first rename of
    summary.json."""
    mode = sys.argv[2]
    sys.path.insert(0, os.path.join(itest.REPO, "analysis"))
    real = os.replace

    def hook(src, dst, *args, **kw):
        name = os.path.basename(os.fsdecode(dst))
        kill = False
        if mode == "setup" and name == "state.json":
            kill = True
        elif mode == "ended" and name == "state.json":
            with open(src) as f:
                kill = json.load(f)["steps"][0]["status"] == "ended"
        elif mode == "report" and name == "summary.json":
            kill = True
        if kill:
            os.kill(os.getpid(), signal.SIGKILL)
        return real(src, dst, *args, **kw)
    os.replace = hook
    from act.certify.main import main
    sys.exit(main(sys.argv[3:]))


def killed(c, what, mode, args):
    r = itest.run([sys.executable, os.path.abspath(__file__), "--wrap",
                   mode] + args, timeout=tc.TIMEOUT, env=tc.env_for())
    c.eq("%s: killed (SIGKILL)" % what, -signal.SIGKILL, r.rc, r.describe())


def wait_gone(d):
    """Until the program of a step that state.json records has ended (it
    gets SIGTERM when act_certify dies)."""
    try:
        state = tc.load_json(os.path.join(d, "state.json"))
    except (OSError, ValueError):
        return
    for s in state["steps"]:
        pid = s.get("pid")
        deadline = time.monotonic() + 30
        while pid and os.path.exists("/proc/%d" % pid) and \
                time.monotonic() < deadline:
            time.sleep(0.05)


def check_ended(c, td, root):
    dev = tc.make_device(os.path.join(root, "ended.dev"))
    d = td.join("ended")
    killed(c, "ended", "ended", ["--device", dev, "--out", d] + ARGS)
    state = tc.load_json(os.path.join(d, "state.json"))
    log = os.path.join(d, state["steps"][0]["files"]["log"])
    c.eq("ended: step 1 as saved", "running", state["steps"][0]["status"])
    before = tc.read(log)
    c.check("after 2 sec:" in before, "ended: step 1's run is not complete",
            before)
    wait_gone(d)
    r = tc.certify(["--resume", d])
    c.eq("ended: --resume: exit status", 0, r.rc, r.describe())
    state = tc.load_json(os.path.join(d, "state.json"))
    s1 = state["steps"][0]
    c.eq("ended: step 1 after --resume", ("done", "PASS", 0, []),
         (s1["status"], s1["result"], s1["exit_status"], s1["old_logs"]))
    c.eq("ended: no .interrupted file", [],
         glob.glob(os.path.join(d, "*.interrupted-*")))
    c.eq("ended: step 1's log unchanged", before, tc.read(log))


def check_setup(c, td, root):
    dev = tc.make_device(os.path.join(root, "setup.dev"))
    d = td.join("setup")
    args = ["--device", dev, "--out", d] + ARGS
    killed(c, "setup", "setup", args)
    left = sorted(os.listdir(d))
    c.check("state.json" not in left and "base.conf" in left,
            "setup: what the killed setup left: %s" % left)
    r = tc.certify(["--resume", d])
    c.eq("setup: --resume: exit status", 2, r.rc, r.describe())
    c.check("the setup of a campaign was stopped there before it was "
            "saved - run the same command again" in r.err,
            "setup: --resume does not say what to do", r.err)
    r = tc.certify(args)
    c.eq("setup: the same command again: exit status", 0, r.rc,
         r.describe())


def check_report(c, td, root):
    dev = tc.make_device(os.path.join(root, "report.dev"))
    d = td.join("report")
    killed(c, "report", "report", ["--device", dev, "--out", d] + ARGS)
    left = [n for n in os.listdir(d) if ".tmp" in n or ".act-tmp-" in n]
    c.check(left, "report: no temporary file after the kill: %s"
            % sorted(os.listdir(d)))
    with open(os.path.join(d, "summary.json.tmp123"), "w") as f:
        f.write("{")
    wait_gone(d)
    r = tc.certify(["--resume", d])
    c.eq("report: --resume: exit status", 0, r.rc, r.describe())
    c.eq("report: temporary files left after --resume", [],
         [n for n in os.listdir(d) if ".tmp" in n or ".act-tmp-" in n])


def main():
    if sys.argv[1:2] == ["--wrap"]:
        wrapper()
    c = itest.Checker("test_certify_kill")
    tc.with_devices(c, "act-certify-kill", [check_ended, check_setup,
                                            check_report], parallel=True)


if __name__ == "__main__":
    main()
