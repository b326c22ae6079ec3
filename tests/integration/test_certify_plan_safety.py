"""Description: act_certify runs what it planned, or says it did not
(issue 19), with the real programs: short campaigns (--seconds 2, --load
1, one 8 MiB device file on /dev/shm when usable):

- a base campaign certifies (exit 0): its steps' logs echo the plan;
- edited: the same campaign's steps set back to "planned", then resumed
  with an act_storage that runs another config than the one its --check
  --print-config echoed (a wrapper adding --set read-reqs-per-sec=20 to
  the run only - as a base.conf edited between the check and the run):
  step 1 runs but is INVALID ("step 1 is INVALID: the log says
  read-reqs-per-sec 20, the plan 2000"), never PASS; the campaign is not
  certified (exit 1). Its state keeps each step's --set items and the
  echo of its plan.
- ended: state.json says step 2's program ended (status "ended", its exit
  status and log size: what act_certify saves before it judges a step) -
  as when act_certify died between the program's end and saving the
  result: --resume judges the step from its log without running it (no
  step started, the log unchanged and not renamed): certified, exit 0.
  With a log size that is not the log's, the step runs again (its old log
  renamed .interrupted-1).

Exit 0 pass, 1 fail."""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import itest  # noqa: E402
import test_certify as tc  # noqa: E402


def load(path):
    with open(path) as f:
        return json.load(f)


def save(path, state):
    with open(path, "w") as f:
        json.dump(state, f, indent=1)


def base_campaign(c, td, root, name):
    """A certified 2-step campaign (test 1 at 1x, test 2 at 2x) in a new
    DIR; returns DIR or None."""
    dev = tc.make_device(os.path.join(root, name + ".img"), mib=8)
    base = itest.write_config(td.join(name + "-base.conf"), [
        ("service-threads", 4), ("record-bytes", 1536)])
    out = td.join(name)
    r = tc.certify(["--device", dev, "--load", "1", "--seconds", "2",
                    "--config", base, "--out", out])
    if not c.eq("%s: the base campaign certifies" % name, 0, r.rc,
                r.describe()):
        return None
    return out


def replan(out, steps=None):
    """The campaign's state with its steps (all, or those numbered) set
    back to planned, as before they ran."""
    path = os.path.join(out, "state.json")
    state = load(path)
    state["status"] = "interrupted"
    state["ended_at"] = None
    for s in state["steps"]:
        if steps is None or s["number"] in steps:
            s.update(status="planned", result=None, exit_status=None,
                     message=None, started_at=None, ended_at=None)
    save(path, state)
    return state


def lying_bin(td):
    """A directory of programs for ACT_BIN: act_prep and act_index as they
    are, act_storage a wrapper whose runs (not its --check) get --set
    read-reqs-per-sec=20 more."""
    d = td.join("lying-bin")
    os.mkdir(d)
    real = itest.bin_dir()
    for name in ("act_prep", "act_index"):
        os.symlink(os.path.join(real, name), os.path.join(d, name))
    path = os.path.join(d, "act_storage")
    with open(path, "w") as f:
        f.write('#!/bin/sh\ncase " $* " in *" --check "*) exec %s "$@";; '
                'esac\nexec %s "$@" --set read-reqs-per-sec=20\n'
                % ((os.path.join(real, "act_storage"),) * 2))
    os.chmod(path, 0o755)
    return d


def check_edited_config(c, td, root):
    out = base_campaign(c, td, root, "edited")
    if out is None:
        return
    state = replan(out)
    st = state["steps"][0]
    c.eq("edited: step 1's --set items", [
        "device-names=%s" % st["devices"][0], "read-reqs-per-sec=2000",
        "write-reqs-per-sec=1000", "test-duration-sec=2",
        "health-interval-sec=1"], st.get("set"))
    c.eq("edited: step 1's config echo (act_storage's)", "2000",
         st.get("config_echo", {}).get("read-reqs-per-sec"))
    env = tc.env_for()
    env["ACT_BIN"] = lying_bin(td)
    r = tc.certify(["--resume", out], env=env)
    c.eq("edited: --resume: not certified", 1, r.rc, r.describe())
    c.check("step 1 is INVALID: the log says read-reqs-per-sec 20, the "
            "plan 2000" in r.err, "edited: stderr names the difference",
            r.describe())
    s = load(os.path.join(out, "summary.json"))
    c.eq("edited: verdict", "not certified", s["verdict"]["status"])
    c.eq("edited: step 1's result", "INVALID", s["steps"][0]["result"])
    c.check("is INVALID" in s["verdict"]["text"], "edited: the verdict "
            "says INVALID", s["verdict"]["text"])


def check_ended(c, td, root):
    out = base_campaign(c, td, root, "ended")
    if out is None:
        return
    path = os.path.join(out, "state.json")
    log = os.path.join(out, "02-test2-stress-2x.log")
    sha = itest.sha256_file(log)
    for size, what in ((os.path.getsize(log), "log as it was"),
                       (1, "another log size")):
        state = load(path)
        state.update(status="running", ended_at=None)
        st = state["steps"][1]
        c.eq("ended: step 2 passed first", "PASS", st["result"])
        st.update(status="ended", result=None, message=None, log_size=size)
        save(path, state)
        r = tc.certify(["--resume", out])
        c.eq("ended, %s: --resume certifies" % what, 0, r.rc, r.describe())
        after = load(path)["steps"][1]
        c.eq("ended, %s: step 2 judged" % what, ("done", "PASS"),
             (after["status"], after["result"]))
        old = os.path.exists(log + ".interrupted-1")
        if what == "log as it was":
            c.check("step 2/2 started" not in r.err and not old,
                    "ended: step 2 ran again", r.describe())
            c.eq("ended: the log unchanged", sha, itest.sha256_file(log))
            c.eq("ended: started_at kept", st["started_at"],
                 after["started_at"])
        else:
            c.check("step 2/2 started" in r.err and old, "ended, another "
                    "log size: step 2 did not run again", r.describe())


def main():
    c = itest.Checker("test_certify_plan_safety")
    itest.binary("act_storage")
    tc.with_devices(c, "act-certify-safety", [
        check_edited_config, check_ended], parallel=True)


if __name__ == "__main__":
    main()
