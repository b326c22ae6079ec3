#!/usr/bin/env python3
"""Description: watching an act_certify campaign as it runs, on
file-backed devices (analysis/act_certify.py with --seconds: a trial).

- live: a campaign of 15-second steps (10-second slices: a trial's are
  at least 10 s), the reports'
  timer set far off (ACT_CERTIFY_REPORT_SEC=3600) so only complete slices
  rewrite them: summary.json and report.html are polled while step 1
  runs - each read is whole (atomic rewrites) - until summary.json says
  in_progress with step 1 running and its first slice of reads;
  report.html then says "in progress" and shows step 1 RUNNING. At the end
  in_progress is false, the page no longer says it, the verdict says
  TRIAL everywhere (stdout, summary.md, the page's title and heading), and
  DIR has no .lock left.
- pty: a campaign with stdout redirected to a file and stderr on a
  pseudo-terminal of 80 columns: every redraw of the live line fits 79
  columns (test 3 on 2 devices has the longest line), uses act_storage's
  clock ("ETA"), and is one of the whole-field forms (no cut word);
  SIGINT in step 3: the "--resume DIR" hint is on the terminal (stderr),
  not only in the file; after --resume, summary.md says step 3 was "run 2,
  interrupted once".
- dry-run: --dry-run with a device that does not exist here plans the
  campaign (exit 0) and names it as not found; the same command without
  --dry-run is refused (exit 2).

Exit 0 pass, 1 fail, 77 skip (no pty).
"""

import fcntl
import json
import os
import re
import select
import signal
import struct
import subprocess
import sys
import tempfile
import termios
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import itest  # noqa: E402

CERTIFY = os.path.join(itest.REPO, "analysis", "act_certify.py")
TIMEOUT = 120


def env_for(**extra):
    env = dict(os.environ)
    env["ACT_BIN"] = itest.bin_dir()
    env.pop("COLUMNS", None)
    env.update(extra)
    return env


def make_device(root, name, mib=32):
    path = os.path.join(root, name)
    with open(path, "wb") as f:
        for _ in range(mib):
            f.write(os.urandom(1 << 20))
    return path


def device_root(td):
    if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK):
        try:
            return tempfile.mkdtemp(prefix="act-certify-live-",
                                    dir="/dev/shm")
        except OSError:
            pass
    return td


def read(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def check_live(c, root, td):
    dev = make_device(root, "live.img")
    out = os.path.join(td, "live")
    p = subprocess.Popen([sys.executable, CERTIFY, "--device", dev,
                          "--load", "1", "--seconds", "15", "--out", out],
                         stdout=open(os.path.join(td, "live.out"), "w"),
                         stderr=open(os.path.join(td, "live.err"), "w"),
                         stdin=subprocess.DEVNULL,
                         env=env_for(ACT_CERTIFY_REPORT_SEC="3600"))
    seen = None
    half = []
    t0 = time.monotonic()
    try:
        while time.monotonic() - t0 < TIMEOUT and p.poll() is None:
            time.sleep(0.2)
            try:
                text = read(os.path.join(out, "summary.json"))
                page = read(os.path.join(out, "report.html"))
            except OSError:
                continue
            try:
                s = json.loads(text)
            except ValueError:
                half.append(text[-80:])
                continue
            if not page.rstrip().endswith("</html>"):
                half.append(page[-80:])
            r = s.get("running") or {}
            slices = [len(h["slices"]) for h in r.get("histograms", [])
                      if h["name"] == "reads"]
            if s.get("in_progress") and r.get("step") == 1 and slices and \
                    slices[0] >= 1:
                seen = (s, page)
                break
        rc = p.wait(timeout=TIMEOUT)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    detail = "stdout:\n%s\nstderr:\n%s" % (read(os.path.join(td, "live.out")),
                                           read(os.path.join(td, "live.err")))
    c.eq("live: exit status", 0, rc, detail)
    c.eq("live: half-written reports read", [], half)
    if c.check(seen is not None, "live: summary.json never said "
               "in_progress with step 1 running and a slice", detail):
        s, page = seen
        r = s["running"]
        c.check(0 < r["elapsed_sec"] <= 15 and r["planned_sec"] == 15,
                "live: the running step's elapsed/planned time: %r" % r)
        c.eq("live: step 1 RUNNING in summary.json", "RUNNING",
             s["steps"][0]["result"])
        c.check('id="in-progress"' in page and
                re.search(r'<tr data-step="1">.*?RUNNING', page,
                          re.S) is not None,
                "live: report.html mid-step says in progress, step 1 "
                "RUNNING", page[:2000])
    try:
        s = json.loads(read(os.path.join(out, "summary.json")))
        page = read(os.path.join(out, "report.html"))
        md = read(os.path.join(out, "summary.md"))
    except (OSError, ValueError) as e:
        c.check(False, "live: the final reports: %s" % e)
        return
    c.eq("live: in_progress at the end", (False, None),
         (s.get("in_progress"), s.get("running")))
    c.check('id="in-progress"' not in page, "live: report.html at the end "
            "still says in progress")
    head = "TRIAL (not a certification): certified at 1x"
    c.eq("live: the headline", head, s["verdict"].get("headline"))
    c.check(md.startswith("# act certification: " + head), "live: "
            "summary.md's headline", md[:200])
    c.check(re.search(r"<title>[^<]*TRIAL[^<]*</title>", page) and
            re.search(r"<h1>[^<]*TRIAL", page), "live: the page's title and "
            "heading say TRIAL")
    c.check("verdict: " + head in read(os.path.join(td, "live.out")),
            "live: the verdict line says TRIAL", detail)
    c.eq("live: DIR's files after the campaign: no .lock", False,
         os.path.exists(os.path.join(out, ".lock")))


CLOCK = r"\d+:\d\d:\d\d/\d+:\d\d:\d\d"
ETA = r" ETA \d+:\d\d:\d\d"
LIVE_FORMS = [
    r"\[\d/\d\] test \d \d+x( x2 devices)?  " + CLOCK + ETA +
    r"(  reads > 1 ms: \d+\.\d\d% \(last [^)]+\))?",
    r"\[\d/\d\] test \d \d+x( x2 devices)?  " + CLOCK + ETA +
    r"(  >1ms \d+\.\d\d%)?",
    r"\[\d/\d\] " + CLOCK + "(" + ETA + r"(  >1ms \d+\.\d\d%)?)?",
]


def pty_run(args, cols, env, stdout_path, interrupt_when=None):
    """Runs args with stdout to a file and stderr on a pty of `cols`
    columns; returns (exit status, what the terminal got)."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, cols, 0,
                                                       0))
    with open(stdout_path, "w") as so:
        p = subprocess.Popen(args, stdout=so, stderr=slave,
                             stdin=subprocess.DEVNULL, env=env)
    os.close(slave)
    got = b""
    sent = False
    t0 = time.monotonic()
    try:
        while time.monotonic() - t0 < TIMEOUT:
            ready, _, _ = select.select([master], [], [], 0.2)
            if ready:
                try:
                    data = os.read(master, 4096)
                except OSError:
                    data = b""
                if not data:
                    break
                got += data
            if interrupt_when and not sent and interrupt_when():
                p.send_signal(signal.SIGINT)
                sent = True
        rc = p.wait(timeout=TIMEOUT)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
        os.close(master)
    return rc, got.decode("utf-8", "replace")


def check_pty(c, root, td):
    devs = [make_device(root, "pty%d.img" % k) for k in (1, 2)]
    out = os.path.join(td, "pty")
    stdout_path = os.path.join(td, "pty.out")

    def step3_running():
        try:
            st = json.loads(read(os.path.join(out, "state.json")))
            return st["steps"][2]["status"] == "running" and "after 3 sec:" \
                in read(os.path.join(out, "03-test3-target-1x.log"))
        except (OSError, ValueError, KeyError, IndexError):
            return False
    rc, term = pty_run([sys.executable, CERTIFY, "--device", devs[0],
                        "--device", devs[1], "--load", "1", "--seconds", "6",
                        "--out", out], 80, env_for(), stdout_path,
                       step3_running)
    detail = "terminal:\n%s\nstdout:\n%s" % (term, read(stdout_path))
    c.eq("pty: exit status after SIGINT", 130, rc, detail)
    # a redraw: "\r\x1b[K" and the line, up to the next "\r" (plain
    # lines, ended by a newline - "\r\n" on a pty - are not the live
    # line)
    redraws = [x[len("\x1b[K"):] for x in
               term.replace("\r\n", "\n").split("\r")
               if x.startswith("\x1b[K") and "\n" not in x]
    redraws = [x for x in redraws if x.strip()]
    c.check(len(redraws) >= 3, "pty: the live line was drawn %d times"
            % len(redraws), detail)
    for line in redraws:
        c.check(len(line) <= 79, "pty: a live line of %d columns at 80: %r"
                % (len(line), line))
        c.check(any(re.fullmatch(f, line) for f in LIVE_FORMS),
                "pty: the live line is not whole fields in act_storage's "
                "form: %r" % line)
    c.check("--resume %s" % out in term, "pty: the --resume hint is not on "
            "the terminal (stderr) with stdout redirected", detail)
    c.check("--resume %s" % out in read(stdout_path), "pty: the --resume "
            "hint is not in stdout's file too", detail)
    r = itest.run([sys.executable, CERTIFY, "--resume", out],
                  timeout=TIMEOUT, env=env_for())
    c.eq("pty: --resume exit status", 0, r.rc, r.describe())
    md = read(os.path.join(out, "summary.md"))
    c.check(re.search(r"^\| 3 \|.*run 2, interrupted once", md, re.M),
            "pty: summary.md does not say step 3 ran twice", md)


def check_dry_run(c, td):
    missing = os.path.join(td, "no-such-device")
    args = [sys.executable, CERTIFY, "--device", missing, "--load", "30",
            "--out", os.path.join(td, "dry")]
    r = itest.run(args + ["--dry-run"], env=env_for())
    c.eq("dry-run: a device not found here: exit status", 0, r.rc,
         r.describe())
    c.check("step 1" in r.out and "not found here: %s" % missing in r.out,
            "dry-run: the plan and the device not found", r.describe())
    c.check(not os.path.exists(os.path.join(td, "dry")), "dry-run: DIR "
            "created")
    r = itest.run(args, env=env_for())
    c.eq("a real run with a device not found: exit status", 2, r.rc,
         r.describe())


def main():
    itest.ignore_sigpipe()
    c = itest.Checker("test_certify_live")
    with tempfile.TemporaryDirectory(prefix="act-certify-live-") as td:
        root = device_root(td)
        try:
            check_dry_run(c, td)
            try:
                os.close(os.openpty()[0])
            except OSError:
                itest.skip("no pseudo-terminal")
            check_live(c, root, td)
            check_pty(c, root, td)
        finally:
            if root != td:
                subprocess.call(["rm", "-rf", root])
    c.finish()


if __name__ == "__main__":
    main()
