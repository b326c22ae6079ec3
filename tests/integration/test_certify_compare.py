#!/usr/bin/env python3
"""Description: act_certify --compare DIR... (docs/certify.md, "A fleet on
one page") on real trial campaigns.

Three campaigns run at once on file devices (/dev/shm when usable),
--load 1 --seconds 3: "node1" and "node2" as they are, "slow" under the
test shim, which delays every second small read (1536 bytes) by 5 ms - so
its test 1 fails (about half its reads over 1 ms) and its test 2 is
skipped. Then, from them, without running anything:

- "copied": node1 copied elsewhere, its device file deleted (a campaign
  brought from another host);
- "running": a copy of node2 whose state says step 2 is still running,
  its log cut in half (a campaign read while it runs);
- "damaged": a copy of node1 whose state.json is not JSON.

`--compare node1 node2 slow copied running damaged --out fleet` exits 0,
writes fleet/compare.html, compare.md, compare.json and prints the
Markdown; it changes nothing in the campaign directories (every file's
size, time and checksum the same). The JSON has a row per campaign (the
damaged one saying so; the slow one not certified; the others certified
at 1x), test 1 compared across the six with the outlier named "slow" as
act_latency.py's comparison names it ("worst: slow, N% over 1 ms at its
worst slice, ..."), the same line in compare.md and compare.html, where
slow's row is marked as the outlier. The HTML parses (html.parser) and is
self-contained (no src/href, no script, link, img or iframe).
--compare with a directory that has no state.json, or that does not
exist, exits 2 naming it; --compare with no DIR, and with a campaign
option, is a usage error (64).

Exit 0 pass, 1 fail (also when the programs or the shim are not built)."""

import html.parser
import json
import os
import shutil
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import itest  # noqa: E402
import test_certify as tc  # noqa: E402

SLOW = "op=read,size=1536,every=2,delay_ms=5"


def certify(args, fault=None, timeout=90):
    return tc.certify(args, env=tc.env_for(fault), timeout=timeout)


class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.external = []
        self.outliers = []        # (table's data-group, campaign)
        self.rows = []
        self.group = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for k in ("src", "href"):
            if k in a:
                self.external.append("%s %s=%s" % (tag, k, a[k]))
        if tag in ("link", "script", "img", "iframe"):
            self.external.append(tag)
        if tag == "table":
            self.group = a.get("data-group")
        if tag == "tr" and "data-campaign" in a:
            self.rows.append(a["data-campaign"])
            if a.get("class") == "outlier":
                self.outliers.append((self.group, a["data-campaign"]))


def run_campaigns(c, td, devs):
    results = {}

    def job(name, fault):
        results[name] = certify(
            ["--device", os.path.join(devs, name + ".dev"), "--load", "1",
             "--seconds", "3", "--out", td.join(name)], fault=fault)

    threads = []
    for name, fault in (("node1", None), ("node2", None), ("slow", SLOW)):
        tc.make_device(os.path.join(devs, name + ".dev"))
        threads.append(threading.Thread(target=job, args=(name, fault)))
        threads[-1].start()
    for t in threads:
        t.join()
    for name, want in (("node1", 0), ("node2", 0), ("slow", 1)):
        r = results.get(name)
        c.eq("campaign %s: exit status" % name, want, r and r.rc,
             r and "stdout:\n%s\nstderr:\n%s" % (r.out, r.err))


def derived_dirs(td, devs):
    shutil.copytree(td.join("node1"), td.join("copied"))
    os.unlink(os.path.join(devs, "node1.dev"))   # its device is gone
    shutil.copytree(td.join("node2"), td.join("running"))
    path = os.path.join(td.join("running"), "state.json")
    with open(path) as f:
        state = json.load(f)
    state["status"] = "running"
    step = state["steps"][1]
    step.update(status="running", result=None, message=None,
                exit_status=None, ended_at=None)
    log = os.path.join(td.join("running"), step["files"]["log"])
    with open(log, "rb") as f:
        text = f.read()
    with open(log, "wb") as f:
        f.write(text[:len(text) // 2])
    with open(path, "w") as f:
        json.dump(state, f)
    shutil.copytree(td.join("node1"), td.join("damaged"))
    with open(os.path.join(td.join("damaged"), "state.json"), "w") as f:
        f.write('{"format": 1, "steps": [')


def check_compare(c, td):
    names = ["node1", "node2", "slow", "copied", "running", "damaged"]
    dirs = [td.join(n) for n in names]
    before = {n: itest.dir_state(d) for n, d in zip(names, dirs)}
    fleet = td.join("fleet")
    r = certify(["--compare"] + dirs + ["--out", fleet])
    c.eq("--compare: exit status", 0, r.rc, "stderr:\n%s" % r.err)
    for n, d in zip(names, dirs):
        diff = itest.dir_state_diff(before[n], itest.dir_state(d))
        c.check(not diff, "--compare changed the campaign %s" % n, diff)
    try:
        with open(os.path.join(fleet, "compare.json")) as f:
            doc = json.load(f)
        with open(os.path.join(fleet, "compare.md")) as f:
            md = f.read()
        with open(os.path.join(fleet, "compare.html")) as f:
            page = f.read()
    except (OSError, ValueError) as e:
        c.fail("--compare: the files in %s: %s" % (fleet, e),
               "stdout:\n%s\nstderr:\n%s" % (r.out, r.err))
        return
    c.eq("compare.md is what stdout says", md.rstrip("\n"),
         r.out.rstrip("\n"))
    rows = {x["label"]: x for x in doc["campaigns"]}
    c.eq("a row per campaign, in order", names,
         [x["label"] for x in doc["campaigns"]])
    c.check(rows["damaged"]["damaged"] and
            "damaged" in rows["damaged"]["verdict"],
            "the damaged campaign's row: %r" % rows["damaged"])
    c.eq("certified loads", {"node1": 1, "node2": 1, "slow": None,
                             "copied": 1, "running": None},
         {n: rows[n]["certified_load"] for n in names[:5]})
    c.check("not finished" in rows["running"]["verdict"],
            "the running campaign's verdict: %r" % rows["running"]["verdict"])
    c.check(all(rows[n]["worst_slice"] for n in names[:5]),
            "every campaign's worst slice: %r"
            % [rows[n]["worst_slice"] for n in names[:5]])
    test1 = [g for g in doc["steps"] if g["key"][:2] == ["target", 1]]
    c.eq("test 1: one group", 1, len(test1))
    if not test1:
        return
    g = test1[0]
    c.eq("test 1: the campaigns compared", names[:5], list(g["campaigns"]))
    worst = g["worst"] or {}
    c.eq("test 1: the outlier", ["slow"], worst.get("worst"))
    line = worst.get("line") or ""
    c.check(line.startswith("worst: slow, ") and "% over 1 ms at its worst "
            "slice" in line, "test 1: the worst line: %r" % line)
    c.check(line in md, "compare.md lacks %r:\n%s" % (line, md))
    c.check(line in page, "compare.html lacks %r" % line)
    stress = [g for g in doc["steps"] if g["key"][:2] == ["stress", 2]]
    c.check(stress and stress[0]["campaigns"].get("slow", {}).get("result")
            == "SKIPPED", "test 2: slow's skipped step is listed with the "
            "others: %r" % stress)
    p = Page()
    p.feed(page)
    p.close()
    c.eq("compare.html: external references", [], p.external)
    group = str(doc["steps"].index(g))
    c.eq("compare.html: test 1's outlier row", ["slow"],
         [lab for grp, lab in p.outliers if grp == group])
    c.check(all(n in p.rows for n in names),
            "compare.html: a row per campaign: %r" % p.rows)


def check_refusals(c, td):
    os.mkdir(td.join("plain"))
    for what, args, rc, text in (
            ("a directory without state.json", [td.join("plain")], 2,
             td.join("plain")),
            ("a missing directory", [td.join("node1"), td.join("nothere")],
             2, td.join("nothere")),
            ("no DIR", [], 64, "--compare"),
            ("a campaign option", [td.join("node1"), "--load", "2"], 64,
             "--load")):
        r = certify(["--compare"] + args)
        c.eq("--compare %s: exit status" % what, rc, r.rc,
             "stderr:\n%s" % r.err)
        c.check(text in r.err and "Traceback" not in r.err,
                "--compare %s: the message names %s" % (what, text),
                "stderr:\n%s" % r.err)


def main():
    c = itest.Checker("test_certify_compare")
    itest.binary("act_storage")
    itest.shim_path()
    with itest.TempDir("act-compare") as td:
        devs = tc.device_root(td)
        try:
            run_campaigns(c, td, devs)
            if not c.failures:
                derived_dirs(td, devs)
                check_compare(c, td)
            check_refusals(c, td)
        finally:
            shutil.rmtree(devs, ignore_errors=True)
    c.finish()


if __name__ == "__main__":
    main()
