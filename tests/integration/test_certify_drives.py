#!/usr/bin/env python3
"""Description: a two-drive campaign whose second drive is slow names
that drive as the failing one (issue 27, "A verdict per drive";
docs/certify.md, "Each drive on its own"), with the real programs on two
8 MiB device files (/dev/shm when usable):

- act_certify --load 1 --seconds 6 (1-second slices) --no-fail-fast,
  24 service threads, the test shim delaying every small read of the
  second file by 3 ms (ACT_SHIM_FAULT path=<its name>): tests 1 and 2
  (the first drive alone) pass; test 3 (both drives) is FAIL and its
  message names the second drive with its figures beside the other's
  ("<drive two>: reads N% over 1 ms (must be under 5%) in slice K; the
  other: M%"); test 4 is skipped; not certified (exit 1), the verdict's
  reasons name the drive;
- summary.json: test 3's drives - the first PASS, the second FAIL, each
  with its own histogram named (<device>-reads) - and drives_failed;
  report.html: test 3's table per drive (`<device>-reads` is in the page:
  `grep -c <device>-reads report.html` is no longer 0), the steps table's
  result "FAIL (drive <drive two>)"; summary.md the same table;
- act_latency.py --check on test 3's log: a `drive DEV: FAIL (...)` line
  for the second drive, PASS for the first, exit status 1;
- the fleet page (--compare of the campaign and a copy of it): each
  campaign's failing drives (compare.json, compare.md, compare.html) and
  test 3's result "FAIL (drive <drive two>)".

Exit 0 pass, 1 fail."""

import json
import os
import re
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import itest  # noqa: E402
import test_certify as tc  # noqa: E402

DELAY_MS = 3


def main():
    c = itest.Checker("test_certify_drives")
    itest.binary("act_storage")
    itest.shim_path()
    tc.with_devices(c, "act-drives", [run])


def run(c, td, root):
    one = tc.make_device(os.path.join(root, "drive-one.img"), mib=8)
    two = tc.make_device(os.path.join(root, "drive-two.img"), mib=8)
    base = itest.write_config(td.join("base.conf"),
                              [("service-threads", 24)])
    out = td.join("slow")
    fault = "path=drive-two.img,op=read,size=1536,delay_ms=%d" % DELAY_MS
    r = tc.certify(["--device", one, "--device", two, "--load", "1",
                    "--seconds", "6", "--no-fail-fast", "--config", base,
                    "--out", out], env=tc.env_for(fault))
    s = tc.check_common(c, "two drives", out, 1, r)
    if s is None:
        return
    c.eq("results (tests 1 to 4)", ["PASS", "PASS", "FAIL", None],
         [st["result"] if st["status"] == "done" else None
          for st in s["steps"]], r.describe())
    st = tc.step_by_number(s, 3)
    want = re.compile(r"%s: reads \d+\.\d\d%% over 1 ms \(must be under "
                      r"5%%\) in slice \d+; the other: \d+\.\d\d%%"
                      % re.escape(two))
    c.check(want.search(st["message"] or ""), "test 3's message does not "
            "name %s with its figures: %r" % (two, st["message"]))
    c.check(want.search(" ".join(s["verdict"]["reasons"])),
            "the verdict's reasons do not name %s: %r"
            % (two, s["verdict"]["reasons"]))
    c.eq("test 3's drives", [(one, "PASS"), (two, "FAIL")],
         [(d["device"], d["result"]) for d in st["drives"]])
    c.eq("test 3's drives' histograms", [one + "-reads", two + "-reads"],
         [d["figures"][0]["name"] for d in st["drives"]])
    c.check(want.match(st["drives_failed"] or ""), "drives_failed: %r"
            % st["drives_failed"])
    c.eq("tests 1 and 2 (one drive): no drives", [[], []],
         [tc.step_by_number(s, n)["drives"] for n in (1, 2)])
    page = tc.read(os.path.join(out, "report.html"))
    c.check(page.count(two + "-reads") > 0, "report.html does not name "
            "%s-reads" % two)
    c.check('id="drives-3"' in page, "report.html: no table per drive in "
            "test 3")
    c.check("FAIL (drive %s)" % two in page, "report.html: test 3's result "
            "does not name %s" % two)
    md = tc.read(os.path.join(out, "summary.md"))
    c.check(re.search(r"(?m)^\| %s \| %s-reads \| \d+\.\d\d \(slice \d+\) "
                      r"\|.* \| FAIL \|$" % (re.escape(two), re.escape(two)),
                      md), "summary.md: no FAIL row for %s" % two, md)

    log = os.path.join(out, "03-test3-target-1x.log")
    p = itest.run_latency(log, "-t", "1", "--check")
    c.eq("act_latency.py --check on test 3's log: exit status", 1,
         p.returncode, p.stdout[-800:])
    c.check(re.search(r"(?m)^drive %s: PASS \(max reads " % re.escape(one),
                      p.stdout) and
            re.search(r"(?m)^drive %s: FAIL \(reads \d+\.\d\d%% over 1 ms "
                      % re.escape(two), p.stdout),
            "act_latency.py --check: the drive lines", p.stdout[-800:])

    copy = td.join("copy")
    shutil.copytree(out, copy)
    fleet = td.join("fleet")
    r = tc.certify(["--compare", out, copy, "--out", fleet])
    c.eq("--compare: exit status", 0, r.rc, r.describe())
    try:
        doc = tc.load_json(os.path.join(fleet, "compare.json"))
    except (OSError, ValueError) as e:
        c.fail("--compare: compare.json: %s" % e)
        return
    for row in doc["campaigns"]:
        got = row.get("failing_drives") or []
        c.check(len(got) == 1 and got[0].startswith("step 3: ") and
                want.search(got[0]), "fleet page: %s's failing drives %r"
                % (row["label"], got))
    g = [g for g in doc["steps"] if g["key"][:2] == ["target", 3]]
    c.eq("fleet page: test 3's failing drives", [[two], [two]],
         [m.get("failing_drives") for m in g[0]["campaigns"].values()]
         if g else None)
    for name in ("compare.md", "compare.html"):
        text = tc.read(os.path.join(fleet, name))
        c.check("FAIL (drive %s)" % two in text, "%s: test 3's result "
                "does not name %s" % (name, two))
        c.check(two + ": reads" in text, "%s: no failing drive" % name)


if __name__ == "__main__":
    main()
