#!/usr/bin/env python3
"""Description: act_certify --compare and --report read a campaign
directory from elsewhere without hanging or exhausting memory
(docs/certify.md, "A fleet on one page": "read as it is"), and
act_latency.py reads a log whose body is not an ACT log in bounded memory.

A trial campaign "ok" (1 file device, --load 0.1, --seconds 2), then
copies of it whose step 1 log is a FIFO ("fifo"), a symbolic link to
/dev/zero ("zero", with its base.conf linked to /dev/zero too) or a
sparse file of 1 GiB ("huge": more than a 2-second run can write), and
one whose state.json is a FIFO ("state-fifo"). Each runs with its address
space limited to 1 GiB and a 60-second timeout:

- `--compare ok fifo zero huge state-fifo --out DIR` exits 0 in time,
  without a traceback; state-fifo is a damaged row, saying why;
- `--report` of each copy ends in time without a traceback, and its
  summary.md warns that step 1's log can't be analysed, naming the file
  and why (a FIFO, a symbolic link, larger than it can be);
- act_latency.py on a log whose header and first report are followed by
  2 GiB of zeros (sparse) ends in time (status 2: no slice), saying
  that the log holds no other report from there - never MemoryError.

Exit 0 pass, 1 fail."""

import os
import resource
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import itest  # noqa: E402
import test_certify as tc  # noqa: E402

LIMIT_AS = 1 << 30
TIMEOUT = 60


def limited():
    resource.setrlimit(resource.RLIMIT_AS, (LIMIT_AS, LIMIT_AS))


def run(args):
    t0 = time.monotonic()
    p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         stdin=subprocess.DEVNULL, universal_newlines=True,
                         errors="replace", env=tc.env_for(),
                         preexec_fn=limited)
    out, err, timed_out = itest.communicate(p, TIMEOUT)
    return itest.Result(p.returncode, out, err, time.monotonic() - t0,
                        timed_out)


def certify(args):
    return run([sys.executable, tc.CERTIFY] + args)


def check_all(c, td, root):
    dev = tc.make_device(os.path.join(root, "a.dev"))
    ok = td.join("ok")
    r = tc.certify(["--device", dev, "--load", "0.1", "--seconds", "2",
                    "--out", ok])
    if not c.eq("the campaign: exit status", 0, r.rc, r.err):
        return
    state = tc.load_json(os.path.join(ok, "state.json"))
    log1 = state["steps"][0]["files"]["log"]
    conf2 = "base.conf"
    copies = {}
    for name in ("fifo", "zero", "huge", "state-fifo"):
        d = copies[name] = td.join(name)
        shutil.copytree(ok, d, symlinks=True)
        os.unlink(os.path.join(d, log1))
    os.mkfifo(os.path.join(copies["fifo"], log1))
    os.unlink(os.path.join(copies["state-fifo"], "state.json"))
    os.mkfifo(os.path.join(copies["state-fifo"], "state.json"))
    os.symlink("/dev/zero", os.path.join(copies["zero"], log1))
    os.unlink(os.path.join(copies["zero"], conf2))
    os.symlink("/dev/zero", os.path.join(copies["zero"], conf2))
    shutil.copy(os.path.join(ok, log1), os.path.join(copies["huge"], log1))
    os.truncate(os.path.join(copies["huge"], log1), 1 << 30)

    r = certify(["--compare", ok, copies["fifo"], copies["zero"],
                 copies["huge"], copies["state-fifo"], "--out",
                 td.join("fleet")])
    c.eq("--compare ok fifo zero huge state-fifo: exit status", 0, r.rc,
         r.describe())
    c.check(not r.timed_out and "Traceback" not in r.err,
            "--compare: timed out or a traceback", r.describe())
    rows = {row["label"]: row for row in tc.load_json(
        os.path.join(td.join("fleet"), "compare.json"))["campaigns"]}
    c.eq("--compare: the campaign whose state.json is a FIFO",
         ("damaged", "can't read %s: it is a FIFO, not a regular file"
          % os.path.join(copies["state-fifo"], "state.json")),
         (rows.get("state-fifo", {}).get("status"),
          rows.get("state-fifo", {}).get("damaged")))
    for name, why in (("fifo", "it is a FIFO, not a regular file"),
                      ("zero", "it is a symbolic link (not followed)"),
                      ("huge", "it is larger (1073741824 bytes) than it "
                       "can be")):
        r = certify(["--report", copies[name]])
        c.check(not r.timed_out and "Traceback" not in r.err and
                r.rc in (0, 1), "--report %s: exit status %s" % (
                    name, r.rc), r.describe())
        md = tc.read(os.path.join(copies[name], "summary.md")) \
            if os.path.exists(os.path.join(copies[name], "summary.md")) \
            else ""
        want = "step 1: its log can't be analysed now (error: cannot open " \
            "the log %s: %s" % (os.path.join(copies[name], log1), why)
        c.check(want in md, "--report %s: no warning %r" % (name, want), md)

    # act_latency.py: a header and a report, then 2 GiB of zeros
    bad = td.join("zeros.log")
    text = tc.read(os.path.join(ok, state["steps"][1]["files"]["log"]))
    head = text[:text.index("after 2 sec:")]
    with open(bad, "w") as f:
        f.write(head)
    os.truncate(bad, 2 << 30)
    r = run([sys.executable, itest.latency_script(), "-l", bad])
    c.check(r.rc in (1, 2), "act_latency.py on a log of zeros: exit "
            "status %s" % r.rc, r.describe())
    c.check(not r.timed_out and "Traceback" not in r.err and
            "MiB of the log from its report after 1 sec hold no other "
            "report" in r.err,
            "act_latency.py on a log of zeros: what it says", r.describe())


def main():
    c = itest.Checker("test_certify_untrusted")
    tc.with_devices(c, "act-certify-untrusted", [check_all])


if __name__ == "__main__":
    main()
