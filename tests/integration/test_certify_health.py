"""Description: a campaign on a faked NVMe drive (issue 27's first "Done
when"), with the real programs: the test shim's ACT_SHIM_NVME over an
8 MiB device file, its drive kept across the steps' runs (state=), a
temperature that ramps 3 C a second from 40 C and throttles from 60 C in
step 1's run, a media error 3 s into step 2's run (from_run=2), WAF 2
(the OCP C0h page); --seconds 12, --load 1.

- act_certify gives the short steps --set health-interval-sec=1 (a
  sample a second: state.json's set, the logs' echo);
- exit status 4 and "certified with drive health warnings at 1x" (the
  verdict line, summary.json's verdict, report.html's verdict box): step
  2 is "PASS with drive health warnings" (its line on stdout with the
  warning, summary.json's result_text and health_warnings, summary.md's
  and report.html's step tables and its heading), step 1 plainly PASS;
- step 1's health in summary.json: the source (nvme smart log, ocp log
  c0h), a start sample at 40 C, a highest temperature of at least 60 C,
  the throttle seconds, WAF about 2; report.html's step 1 part: the
  health table (temperature, thermal throttling), the throttle note with
  its seconds and temperature, the inline SVG chart with the temperature
  line (a point per sample), a throttled span shaded and the reads over
  1 ms of the slices; summary.md's "Drive health" lines; the campaign's
  start (step 1, 40 C) and end (step 2, 1 media error);
- act_latency.py --health on step 1's log shows the drive's line (max
  temperature, throttle seconds) and a row per slice;
- the reference analysis reads the logs unchanged: act_latency.py
  without --health gives the same output byte for byte with the health
  lines taken out; each health line starts with "health " and has no
  "after ".

Exit 0 pass, 1 fail."""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import itest  # noqa: E402
import test_certify as tc  # noqa: E402

SECONDS = 12


def nvme_env(state):
    env = tc.env_for()
    env.update(itest.shim_env())
    env["ACT_BIN"] = itest.bin_dir()
    env["ACT_SHIM_NVME"] = (
        "path=dev1.img,state=%s,from_run=2,media_error_at=3,waf=2;"
        "path=dev1.img,state=%s,ramp=3,throttle=60,waf=2" % (state, state))
    return env


def step_part(page, n):
    start = page.find('<div class="step" id="step-%d">' % n)
    end = page.find('<div class="step" id="step-%d">' % (n + 1))
    return page[start:end if end > 0 else len(page)] if start >= 0 else ""


def check_summary(c, s, dev):
    v = s["verdict"]
    c.eq("verdict: status and exit status",
         ("certified with drive health warnings", 4),
         (v["status"], v["exit_status"]))
    st1, st2 = s["steps"]
    c.eq("step 1: plainly PASS", ("PASS", "PASS", []),
         (st1["result"], st1["result_text"], st1["health_warnings"]))
    c.eq("step 2: PASS with drive health warnings",
         ("PASS", "PASS with drive health warnings",
          ["%s: 1 new media error (0 -> 1)" % dev]),
         (st2["result"], st2["result_text"], st2["health_warnings"]))
    d = ((st1.get("health") or {}).get("drives") or [{}])[0]
    c.eq("step 1 health: source", "nvme smart log, ocp log c0h",
         d.get("source"))
    c.eq("step 1 health: start at 40 C", 40,
         (d.get("start") or {}).get("temp_c"))
    c.check((d.get("max_temp_c") or 0) >= 60, "step 1 health: the "
            "temperature ramped to 60 C or more", str(d))
    c.check((d.get("throttle_sec") or 0) >= 1, "step 1 health: it "
            "throttled", str(d))
    c.check(d.get("waf") is not None and 1.5 <= d["waf"] <= 2.5,
            "step 1 health: WAF about 2", str(d.get("waf")))
    c.check(len(d.get("samples") or []) >= SECONDS,
            "step 1 health: a sample a second", str(d.get("samples")))
    h = s.get("health") or [{}]
    c.eq("the campaign's start and end",
         (1, 40, 2, 1), (h[0].get("start_step"),
                         (h[0].get("start") or {}).get("temp_c"),
                         h[0].get("end_step"),
                         (h[0].get("end") or {}).get("media_errors")))
    return d


def check_pages(c, out, d):
    page = tc.read(os.path.join(out, "report.html"))
    box = tc.parse_report(os.path.join(out, "report.html")).verdict
    c.check("certified with drive health warnings at 1x" in box,
            "report.html: the verdict box", box)
    one = step_part(page, 1)
    c.check(re.search(r'<svg [^>]*class="health"', one) is not None,
            "report.html: step 1's health chart", one[:3000])
    temps = re.search(r'<polyline class="temp"[^>]*data-values="([^"]*)"',
                      one)
    c.eq("report.html: the chart's temperature points are the samples'",
         ["%g:%d" % (p[0], p[1]) for p in d.get("samples", [])],
         temps.group(1).split() if temps else None)
    c.check('<rect class="throttle"' in one, "report.html: step 1's "
            "throttled span", one[:3000])
    c.check('<polyline class="reads"' in one, "report.html: the reads "
            "over 1 ms on the same axis", one[:3000])
    for text in ("<td>thermal throttling</td>", "<td>temperature</td>",
                 "the drive throttled %d s at %d C" % (
                     d.get("throttle_sec") or 0, d.get("max_temp_c") or 0)):
        c.check(text in one, "report.html: step 1 shows %r" % text,
                one[:3000])
    c.check("PASS with drive health warnings</span></h3>" in
            step_part(page, 2), "report.html: step 2's heading",
            step_part(page, 2)[:500])
    md = tc.read(os.path.join(out, "summary.md"))
    for text in ("| PASS with drive health warnings |", "## Drive health",
                 "throttled %d s" % (d.get("throttle_sec") or 0)):
        c.check(text in md, "summary.md shows %r" % text, md)


def check_logs(c, out, s, d):
    log = os.path.join(out, s["steps"][0]["files"]["log"])
    r = itest.run_latency(log, "-t", "1", "--health")
    line = "%s: nvme smart log, ocp log c0h; max %d C, throttled %d s" % (
        d.get("device"), d.get("max_temp_c") or 0, d.get("throttle_sec") or 0)
    c.check(r.returncode == 0 and line in r.stdout,
            "act_latency.py --health: the drive's line %r" % line,
            r.stdout + r.stderr)
    rows = [x for x in r.stdout.split("\n")
            if re.match(r"^ +\d+  %s " % re.escape(d.get("device", "")), x)]
    c.eq("act_latency.py --health: a row per slice", SECONDS, len(rows),
         r.stdout)
    for st in s["steps"]:
        log = os.path.join(out, st["files"]["log"])
        text = tc.read(log)
        health = [x for x in text.split("\n") if x.startswith("health ")]
        c.check(len(health) > SECONDS and not any("after " in x
                                                  for x in health),
                "step %d: health lines that start with 'health ' and have "
                "no 'after '" % st["number"], "\n".join(health[:5]))
        plain = log + ".plain"
        with open(plain, "w") as f:
            f.write("".join(x + "\n" for x in text.split("\n")[:-1]
                            if not x.startswith("health ")))
        a, b = (itest.run_latency(p, "-t", "1") for p in (log, plain))
        c.eq("step %d: act_latency.py reads the log as without its health "
             "lines" % st["number"], (0, b.stdout.replace(plain, log)),
             (a.returncode, a.stdout))


def check_campaign(c, td, root):
    dev = tc.make_device(os.path.join(root, "dev1.img"), mib=8)
    base = itest.write_config(td.join("base.conf"), [
        ("service-threads", 4), ("record-bytes", 1536)])
    out = td.join("out")
    r = tc.certify(["--device", dev, "--load", "1", "--seconds",
                    str(SECONDS), "--config", base, "--out", out],
                   env=nvme_env(td.join("nvme.state")))
    c.eq("exit status 4 (certified with drive health warnings)", 4, r.rc,
         r.describe())
    c.check(re.search(r"verdict: (TRIAL \(not a certification\): )?"
                      r"certified with drive health warnings at 1x", r.out),
            "the verdict line", r.describe())
    c.check("step 2 test 2 (2x on 1 device): PASS with drive health "
            "warnings - %s: 1 new media error (0 -> 1)" % dev in r.out,
            "step 2's line", r.describe())
    state = tc.load_json(os.path.join(out, "state.json"))
    c.eq("the steps' --set health-interval-sec", ["health-interval-sec=1"]
         * 2, [x for st in state["steps"] for x in st.get("set", [])
               if x.startswith("health-interval-sec")])
    try:
        s = tc.load_json(os.path.join(out, "summary.json"))
    except (OSError, ValueError) as e:
        c.check(False, "summary.json: %s" % e)
        return
    d = check_summary(c, s, dev)
    check_pages(c, out, d)
    check_logs(c, out, s, d)


def main():
    c = itest.Checker("test_certify_health")
    itest.binary("act_storage")
    itest.shim_path()
    tc.with_devices(c, "act-certify-health", [check_campaign])


if __name__ == "__main__":
    main()
