"""Description: act_certify's fail fast and NOT JUDGED with the real
programs (issue 20), on an 8 MiB device file on /dev/shm when usable:

- fail fast: --seconds 20 (10-second slices: a trial's are at least
  10 s), --load 1, 24 service
  threads, the test shim delaying every small read by 2 ms from 5 s on:
  test 1 stops well before its 20 s (its log ends under 14 s with
  "stopped on request: fail fast: reads ...% over 1 ms (must be under
  5%) in slice N after S sec", the reason act_certify gave it, which
  act_latency.py --check on the log judges FAIL too), FAIL with "stopped
  after slice 1 of 2 (10 s): reads ...% over 1 ms (must be under 5%) in
  slice 1 - the verdict could not change", state.json's
  stopped_early, summary.json's fail_fast (time saved) and report.html /
  summary.md saying "fail fast: stopped after ..."; test 2 skipped; not
  certified, exit 1. Then state.json set back to "ended" (as when
  act_certify died after the program's end): --resume judges the step
  FAIL again from its log without running it.
- --no-fail-fast: the same campaign runs test 1 to its 20 s end (FAIL on
  the criteria, no fail_fast) and state.json keeps fail_fast false.
- NOT JUDGED: --load 2000 (4000000 reads/s) with service-threads 1, 3 s:
  the plan warns that the step needs more service-threads, test 1 is NOT
  JUDGED ("the host could not issue the load (N reads/s of 4000000 ...;
  try more service-threads)"), never FAIL or PASS; not certified, exit 1,
  summary.json's verdict says so.

Exit 0 pass, 1 fail."""

import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import itest  # noqa: E402
import test_certify as tc  # noqa: E402

SLOW = "op=read,size=1536,after_ms=5000,delay_ms=2"
FF_RE = (r"stopped after slice (1) of 2 \(10 s\): reads \d+\.\d\d% over "
         r"1 ms \(must be under 5%\).* in slice \1 - the verdict could not "
         r"change")


def load(path):
    with open(path) as f:
        return json.load(f)


def last_report(log):
    found = re.findall(r"(?m)^after (\d+) sec:", tc.read(log))
    return int(found[-1]) if found else None


def slow_campaign(c, td, root, name, extra):
    dev = tc.make_device(os.path.join(root, name + ".img"), mib=8)
    base = itest.write_config(td.join(name + "-base.conf"),
                              [("service-threads", 24)])
    out = td.join(name)
    r = tc.certify(["--device", dev, "--load", "1", "--seconds", "20",
                    "--config", base, "--out", out] + extra,
                   env=tc.env_for(SLOW))
    return out, r


def check_fail_fast(c, td, root):
    out, r = slow_campaign(c, td, root, "ff", [])
    s = tc.check_common(c, "fail fast", out, 1, r)
    if s is None:
        return
    log = os.path.join(out, "01-test1-target-1x.log")
    st = tc.step_by_number(s, 1)
    c.eq("fail fast: test 1's result", "FAIL", st["result"], r.describe())
    c.check(re.search(FF_RE, st["message"] or ""), "fail fast: test 1's "
            "message %r" % st["message"], r.describe())
    last = last_report(log)
    c.check(last is not None and last < 14, "fail fast: test 1 ran to %s s "
            "of 20" % last)
    ends = tc.read(log).rstrip("\n").rsplit("\n", 1)[-1]
    m = re.match(r"stopped on request: fail fast: reads \d+\.\d\d% over 1 "
                 r"ms \(must be under 5%\).* in slice (1) after \d+ sec$",
                 ends)
    c.check(m is not None, "fail fast: the log does not end with the "
            "request line naming fail fast: %r" % ends)
    # the log alone says why: act_latency.py --check judges it FAIL with
    # the request's reason, as act_certify did (one verdict)
    p = itest.run_latency(log, "-t", "10", "--check")
    c.check(p.returncode == 1 and re.search(
        r"(?m)^result: FAIL \(stopped on request: fail fast: reads "
        r"\d+\.\d\d% over 1 ms \(must be under 5%\).* in slice 1; ",
        p.stdout), "fail fast: act_latency.py --check on the log: %d %r"
        % (p.returncode, p.stdout[-600:]))
    c.eq("fail fast: test 2", "skipped", tc.step_by_number(s, 2)["status"])
    c.eq("fail fast: verdict", "not certified at 1x: test 1 (1x on 1 "
         "device) failed", s["verdict"]["text"])
    state = load(os.path.join(out, "state.json"))
    rec = state["steps"][0].get("stopped_early") or {}
    c.eq("fail fast: state.json", (True, 10, 20),
         (state["campaign"].get("fail_fast"), rec.get("slice_sec"),
          rec.get("planned_sec")))
    c.eq("fail fast: the slice the log's reason names", rec.get("slice"),
         int(m.group(1)) if m else None)
    ff = st.get("fail_fast") or {}
    c.check(ff.get("saved_sec", 0) >= 6, "fail fast: summary.json's time "
            "saved %r" % ff)
    text = ff.get("text", "")
    c.check(re.match(r"fail fast: stopped after 10 s of 20 s, 10 s "
                     r"saved$", text), "fail fast: the saved text %r" % text)
    for f in ("summary.md", "report.html"):
        c.check(text and text in tc.read(os.path.join(out, f)),
                "fail fast: %s does not say %r" % (f, text))
    c.check(re.search(FF_RE, r.out), "fail fast: stdout does not say why",
            r.describe())
    # act_certify died after the program's end: --resume judges the step
    # from its log, without running it again
    state["status"] = "running"
    state["ended_at"] = None
    state["steps"][0].update(status="ended", result=None, message=None,
                             log_size=os.path.getsize(log))
    state["steps"][1].update(status="planned", message=None)
    with open(os.path.join(out, "state.json"), "w") as f:
        json.dump(state, f)
    sha = itest.sha256_file(log)
    r = tc.certify(["--resume", out])
    c.eq("fail fast, resumed: exit status", 1, r.rc, r.describe())
    after = load(os.path.join(out, "state.json"))["steps"][0]
    c.eq("fail fast, resumed: test 1", ("done", "FAIL"),
         (after["status"], after["result"]), r.describe())
    c.eq("fail fast, resumed: the log unchanged", sha,
         itest.sha256_file(log))
    c.check("step 1/2 started" not in r.err, "fail fast, resumed: test 1 "
            "ran again", r.describe())


def check_no_fail_fast(c, td, root):
    out, r = slow_campaign(c, td, root, "noff", ["--no-fail-fast"])
    s = tc.check_common(c, "--no-fail-fast", out, 1, r)
    if s is None:
        return
    st = tc.step_by_number(s, 1)
    c.eq("--no-fail-fast: test 1", ("FAIL", True, None),
         (st["result"], st["complete"], st["fail_fast"]), r.describe())
    c.eq("--no-fail-fast: test 1 ran to its end", 20, last_report(
        os.path.join(out, "01-test1-target-1x.log")))
    c.check("stopped after" not in (st["message"] or ""), "--no-fail-fast: "
            "message %r" % st["message"])
    c.eq("--no-fail-fast: state.json", False,
         load(os.path.join(out, "state.json"))["campaign"].get("fail_fast"))


def check_not_judged(c, td, root):
    dev = tc.make_device(os.path.join(root, "nj.img"), mib=8)
    base = itest.write_config(td.join("nj-base.conf"),
                              [("service-threads", 1)])
    out = td.join("nj")
    # one thread on a tmpfs file issues a few 100000 reads/s at most
    r = tc.certify(["--device", dev, "--load", "2000", "--seconds", "3",
                    "--config", base, "--out", out])
    s = tc.check_common(c, "not judged", out, 1, r)
    if s is None:
        return
    c.check("ask each of the 1 service-threads for more than 1000 reads/s"
            in r.out, "not judged: the plan does not warn", r.describe())
    st = tc.step_by_number(s, 1)
    c.eq("not judged: test 1", "NOT JUDGED", st["result"], r.describe())
    # The message names the stream furthest from its plan first: the
    # reads, or (a slower build, e.g. under ASan) the large-block writes,
    # with the reads "short too".
    msg = st["message"] or ""
    c.check(re.match(r"the host could not issue the load \(\d+ "
                     r"(reads/s of 4000000|large-block-writes/s of \d+) in "
                     r"slice \d+, .*(try more service-threads|the host, not "
                     r"the drive, is the limit)\)$", msg)
            and "reads" in msg, "not judged: message %r" % msg)
    c.eq("not judged: verdict", ("not certified", "not certified at 2000x: "
                                 "test 1 (2000x on 1 device) was NOT JUDGED "
                                 "(the host could not issue the load)"),
         (s["verdict"]["status"], s["verdict"]["text"]))


def main():
    c = itest.Checker("test_certify_failfast")
    itest.binary("act_storage")
    itest.shim_path()
    # one after another: test 1's timing is the point
    tc.with_devices(c, "act-certify-ff", [
        check_fail_fast, check_no_fail_fast, check_not_judged])


if __name__ == "__main__":
    main()
