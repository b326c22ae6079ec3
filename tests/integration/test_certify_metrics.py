"""Description: act_certify --metrics on a real campaign (docs/metrics.md):
a trial on a device file faked as an NVMe drive by the test shim
(ACT_SHIM_NVME: a temperature ramping from 40 C, throttling from 60 C,
WAF 2, a media error in step 2's run; as test_certify_health.py),
--seconds 12, the reports rewritten every second
(ACT_CERTIFY_REPORT_SEC=1), the metrics file in a textfile directory of
its own.

- the file is read every 0.2 s while the campaign runs: each version
  read is whole and passes the format's rules (tests/lib/promparser.py's
  check_text) and the real parser (prometheus_client, in its venv: the
  same samples; a part skipped with the reason where it can't be
  installed), and `promtool check metrics` finds nothing (Debian's
  prometheus package, fetched into target/promtool, or $ACT_PROMTOOL; a
  part skipped with the reason where it can't be had); at least 3 versions are seen, among them one with the
  campaign in progress, a step running, its last slice of reads and the
  drive's temperature;
- after the run: not in progress, the verdict's state
  certified_with_drive_health_warnings, every step done, nothing left to
  run, the campaign's highest temperature at least 60 C and its WAF
  about 2, step 2's media error; the directory holds the file only (no
  temporary file left);
- `--report DIR --metrics PATH2` writes the same series (the update time
  aside).

Exit 0 pass, 1 fail."""

import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import itest  # noqa: E402
import test_certify as tc  # noqa: E402
import test_certify_health as th  # noqa: E402
sys.path.insert(0, os.path.join(itest.REPO, "tests", "lib"))
import promparser  # noqa: E402

SECONDS = 12
STAMP = "act_campaign_last_update_timestamp_seconds"


value = promparser.value


def watch(p, path, timeout):
    """The versions of the metrics file seen while p runs, in order."""
    seen = []
    t0 = time.monotonic()
    while p.poll() is None and time.monotonic() - t0 < timeout:
        time.sleep(0.2)
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except OSError:
            continue
        if not seen or seen[-1] != text:
            seen.append(text)
    return seen


def validate(c, what, text, parser):
    """The series of text, checked by the rules and the real parser."""
    series, problems = promparser.validate(text, parser)
    for p in problems:
        c.fail("%s: %s" % (what, p))
    return series


def check_campaign(c, td, root):
    parser, why = promparser.parser()
    if parser is None:
        c.skip_part("the real parser (prometheus_client)", why)
    if promparser.promtool() is None:
        c.skip_part("promtool check metrics", promparser.promtool_why())
    dev = tc.make_device(os.path.join(root, "dev1.img"), mib=8)
    base = itest.write_config(td.join("base.conf"), [
        ("service-threads", 4), ("record-bytes", 1536)])
    out = td.join("out")
    textdir = td.join("textfile")
    os.mkdir(textdir)
    path = os.path.join(textdir, "act.prom")
    env = th.nvme_env(td.join("nvme.state"))
    env["ACT_CERTIFY_REPORT_SEC"] = "1"
    with open(td.join("out.txt"), "w") as o, \
            open(td.join("err.txt"), "w") as e:
        p = subprocess.Popen([sys.executable, tc.CERTIFY, "--device", dev,
                              "--load", "1", "--seconds", str(SECONDS),
                              "--config", base, "--out", out,
                              "--metrics", path], stdout=o, stderr=e,
                             stdin=subprocess.DEVNULL, env=env)
        try:
            seen = watch(p, path, tc.TIMEOUT)
            rc = p.wait(timeout=tc.TIMEOUT)
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
    detail = tc.read(td.join("out.txt")) + tc.read(td.join("err.txt"))
    c.eq("exit status 4 (certified with drive health warnings)", 4, rc,
         detail)
    c.check(len(seen) >= 3, "at least 3 versions of the file seen while "
            "it ran: %d" % len(seen))
    live = []
    for i, text in enumerate(seen):
        s = validate(c, "version %d" % (i + 1), text, parser)
        if value(s, "act_campaign_in_progress") == 1 and \
                value(s, "act_step_state", state="running") == 1 and \
                value(s, "act_step_last_slice_over_ratio",
                      threshold="1ms", device="") is not None:
            live.append(s)
    c.check(live, "a version with the campaign in progress, a step "
            "running and its last slice of reads")
    c.check(any(value(s, "act_drive_temperature_celsius", device=dev)
                for s in live), "a running version with the drive's "
            "temperature")
    try:
        final = tc.read(path)
    except OSError as e:
        c.fail("no metrics file after the run: %s" % e)
        return
    s = validate(c, "after the run", final, parser)
    c.eq("after: not in progress", 0, value(s, "act_campaign_in_progress"))
    c.eq("after: the verdict's state", 1, value(
        s, "act_campaign_verdict",
        state="certified_with_drive_health_warnings"))
    c.eq("after: every step done", value(s, "act_campaign_steps"),
         value(s, "act_campaign_steps_done"))
    c.eq("after: nothing left to run", 0,
         value(s, "act_campaign_remaining_seconds"))
    c.check((value(s, "act_drive_campaign_max_temperature_celsius",
                   device=dev) or 0) >= 60, "after: the highest "
            "temperature at least 60 C", final)
    waf = value(s, "act_drive_campaign_write_amplification", device=dev)
    c.check(waf is not None and abs(waf - 2) < 0.1, "after: WAF about 2: "
            "%r" % waf)
    c.eq("after: step 2's media error", (2, 1), (
        value(s, "act_step_number"),
        value(s, "act_drive_media_errors", device=dev)))
    c.eq("the textfile directory holds the file only", ["act.prom"],
         sorted(os.listdir(textdir)))
    again = os.path.join(textdir, "again.prom")
    r = tc.certify(["--report", out, "--metrics", again])
    c.eq("--report --metrics: exit status", 4, r.rc, r.describe())
    try:
        s2 = promparser.check_text(tc.read(again))
    except (OSError, AssertionError) as e:
        c.fail("--report --metrics: %s" % e)
        return
    c.eq("--report --metrics: the same series", {
        k: v for k, v in s.items() if k[0] != STAMP},
        {k: v for k, v in s2.items() if k[0] != STAMP})


def main():
    c = itest.Checker("test_certify_metrics")
    itest.binary("act_storage")
    itest.shim_path()
    tc.with_devices(c, "act-certify-metrics", [check_campaign])


if __name__ == "__main__":
    main()
