#!/usr/bin/env python3
"""Description: act_certify's live line and reports, called directly
(analysis/act/certify/watch.py, summary.py, cells.py, markdown.py,
html.py, publish.py, state.py, main.py):
the progress line fits its width by dropping whole fields (never a word
cut), uses act_storage's clock (H:MM:SS, "ETA"), and takes its width from
the terminal it is drawn on (stderr), 80 when there is none; act_prep's
progress (its percent and ETA) parsed from its stderr; a trial says TRIAL
in the verdict headline, summary.md, and report.html's title, heading and
verdict box (not the certified green); the stress load reads "4x (2x the
target)"; the reports list each step's effective config; a skipped step
lists no files that do not exist; a step run again says "run 2
(interrupted once)"; a campaign stopped by an error says the error in its
headline and reasons and when and why it ended; summary.json is
in_progress with the running step's slices while a step runs, not after,
and --report says in_progress only while an act_certify holds the lock;
the directory lock removes .lock while it holds it and a second holder is
still refused; --help fits 80 columns whatever COLUMNS says.

    python3 tests/python/certify/test_watch.py [-v]
"""

import contextlib
import io
import json
import os
import re
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
import support  # noqa: E402
from certstate import new_state  # noqa: E402
from act.certify.model import OldLog  # noqa: E402

from act.certify import cells, html as chtml, markdown  # noqa: E402
from act.certify import main as cmain  # noqa: E402
from act.certify import plan, publish, state, summary, watch  # noqa: E402
from act.cli import UsageError as UserError  # noqa: E402
from act.logfile.header import scan_header  # noqa: E402

def log_text(step, seconds, slow=0):
    """An act_storage log of a step (its config echoed as the plan says),
    with reports up to `seconds`: per second 100 reads, `slow` of them
    over 1 ms."""
    head = support.header(duration=step.duration_sec, names=("reads",),
                          identity=False)
    head = head.replace("device-names: /dev/sdb\n", "".join(
        "%s: %s\n" % kv for kv in (
            ("device-names", " ".join(step.devices)),
            ("num-devices", len(step.devices)),
            ("service-threads", 5), ("record-bytes", 1536),
            ("large-block-op-kbytes", 128),
            ("read-reqs-per-sec", step.reads_per_sec),
            ("write-reqs-per-sec", step.writes_per_sec))))
    # the derived rate the reports meet: the host issued the load
    head = head.replace("internal-read-reqs-per-sec: 2000",
                        "internal-read-reqs-per-sec: 100")
    return head + support.reports(range(1, seconds + 1), names=("reads",),
                                  over=slow)


class Follower:
    def __init__(self, last, pct=None):
        self.last = last
        self.pct = pct

    def window(self, _sec):
        return self.pct


def write_log(path, step, seconds):
    support.make(path, log_text(step, seconds))


def campaign_dir(td, name, duration=10):
    d = os.path.join(td, name)
    os.mkdir(d)
    st = new_state(["/dev/a"], load=2, duration=duration,
                   status="running")
    for s in st.steps:
        # as the program echoed it for the step's --set items (precheck):
        # what its log echoes
        h = scan_header(io.BytesIO(log_text(s, 0).encode()))
        s.config_echo = h.items(h.config)
    return d, st


class Live(support.TempDir):
    PREFIX = "act-live-test-"

    def test_progress_line(self):
        steps = plan.plan_steps(["/dev/a", "/dev/b"], 30, 2.0, 86400, [],
                                False)
        step = steps[2]                 # test 3, on 2 devices
        v = watch.progress_variants(step, 4, 18729, Follower(1, (2.125, 3600)),
                                     326871)
        self.assertEqual("[3/4] test 3 30x x2 devices  5:12:09/24:00:00 ETA "
                         "90:47:51  reads > 1 ms: 2.12% (last 1 h)", v[0],
                         "progress line, most detailed")
        for line in v:
            self.assertTrue(" left " not in line and "ETA" in line
                            or line == v[-1],
                            "progress line: act_storage's ETA, not "
                            "left: %r" % line)
        words = set(" ".join(v).split())
        for width in range(10, 100):
            got = watch.fit_line(v, width)
            self.assertTrue(got in v, "fit_line(%d): %r is not one of the "
                            "variants" % (width, got))
            self.assertTrue(len(got) <= width or got == v[-1],
                            "fit_line(%d): %r too long" % (width, got))
            self.assertTrue(set(got.split()) <= words,
                            "fit_line(%d): a cut word in %r" % (width, got))
        self.assertEqual(v[1], watch.fit_line(v, 79), "fit_line at 79")

        # the width: stderr's terminal, else 80 - never stdout's
        p = watch.Progress(stream=io.StringIO())
        self.assertEqual(80, p.width(), "Progress.width without a terminal")
        master, slave = os.openpty()
        try:
            import fcntl
            import struct
            import termios
            fcntl.ioctl(slave, termios.TIOCSWINSZ,
                        struct.pack("HHHH", 24, 67, 0, 0))
            with open(slave, "w", closefd=False) as tty:
                p = watch.Progress(stream=tty)
                self.assertEqual(67, p.width(),
                                 "Progress.width of a 67-column terminal")
        finally:
            os.close(master)
            os.close(slave)

    def test_prep_progress(self):
        td = self.td
        err = os.path.join(td, "prep.err")
        with open(err, "w") as f:
            f.write("act_prep: cleaning /dev/a: 40% 1500 MB/s ETA 0:31:02 "
                    "(clean and salt)\n"
                    "act_prep: salting /dev/b: 20% 1400 MB/s ETA 0:12:00 "
                    "(clean and salt)\nact_prep: salting /dev/b: 30")
        pp = watch.PrepProgress(err, ["/dev/a", "/dev/b"])
        self.assertEqual((40, "cleaning", 1862), pp.progress(),
                         "PrepProgress: (mean %, slowest phase, longest ETA)")
        with open(err, "a") as f:
            f.write("% 1400 MB/s ETA 0:10:00 (clean and salt)\n")
        self.assertEqual((42, "cleaning", 1862), pp.progress(),
                         "PrepProgress: a line completed later")
        steps = plan.plan_steps(["/dev/a", "/dev/b"], 1, 2.0, 10, [], True)
        v = watch.progress_variants(steps[0], 5, 3, None, 10, pp)
        self.assertEqual("[1/5] act_prep  0:00:03  42% (cleaning) ETA 0:31:02",
                         v[0], "act_prep's progress line")
        v = watch.progress_variants(steps[0], 5, 3, None, 10,
                                     watch.PrepProgress(err + "-none", []))
        self.assertEqual(["[1/5] act_prep  0:00:03"], v,
                         "act_prep's progress line before its first percent")

    def test_reports(self):
        td = self.td
        d, st = campaign_dir(td, "trial")
        s1, s2 = st.steps
        write_log(os.path.join(d, s1.files["log"]), s1, 10)
        s1.update(status="done", result="PASS", exit_status=0)
        # test 2 interrupted once and run again, still running: 4 s so far
        with open(os.path.join(d, s2.files["log"] + ".interrupted-1"),
                  "w") as f:
            f.write("x")
        s2.old_logs.append(OldLog(log=s2.files["log"] + ".interrupted-1",
                                  status="interrupted", exit_status=130))
        write_log(os.path.join(d, s2.files["log"]), s2, 4)
        s2.update(status="running")
        s = publish.write_reports(d, st, {}, live={"step": 2,
                                                   "elapsed_sec": 4.5,
                                                  "every_sec": 300})
        doc = json.load(open(os.path.join(d, "summary.json")))
        self.assertEqual(True, doc["in_progress"], "summary.json while a step "
                         "runs: in_progress")
        r = doc["running"] or {}
        self.assertEqual((2, 4, 10),
                         (r.get("step"), r.get("elapsed_sec"),
                          r.get("planned_sec")),
                         "summary.json: the running step")
        self.assertEqual(("reads", 4), [(h["name"], len(h["slices"])) for h in
                                        r.get("histograms", [])][0],
                         "summary.json: the running step's slices so far "
                         "(reads)")
        self.assertEqual(True, doc["trial"], "summary.json: trial")
        self.assertTrue(doc["verdict"]["headline"].startswith("TRIAL"),
                        "summary.json: the "
                        "headline says TRIAL: %r" % doc["verdict"]["headline"])
        md = open(os.path.join(d, "summary.md")).read()
        self.assertTrue(md.startswith("# act certification: TRIAL"),
                        "%s\n%s"
                        % ("summary.md: the headline says TRIAL", md[:200]))
        self.assertTrue("**in progress: step 2" in md,
                        "%s\n%s" % ("summary.md: in progress", md[:400]))
        self.assertTrue("stress load 4x (4x the target)" not in md and
                        "stress load 4x (2x the target)" in md,
                        "%s\n%s"
                        % ("summary.md: the stress load's wording", md))
        self.assertTrue("run 2, interrupted once" in md,
                        "%s\n%s"
                        % ("summary.md: step 2 was run again after an "
                           "interruption", md))
        self.assertTrue(re.search(r"Every step \(as the logs echo it\): "
                                  r".*service-"
                                  r"threads 5, record-bytes 1536, "
                                  r"large-block-op-kbytes 128",
                                  md) is not None,
                        "%s\n%s"
                        % ("summary.md: the config every step shares", md))
        self.assertTrue("- step 2: read-reqs-per-sec 8000, write-reqs-per-sec "
                        "4000" in
                        md, "%s\n%s"
                        % ("summary.md: step 2's own config items", md))
        page = open(os.path.join(d, "report.html")).read()
        title = re.search(r"<title>(.*?)</title>", page).group(1)
        self.assertTrue("in progress" in title and "TRIAL" in title,
                        "report.html: title in progress and TRIAL: %r" % title)
        self.assertTrue(re.search(r"<h1>[^<]*TRIAL", page) is not None,
                        "report.html: heading says TRIAL")
        self.assertTrue('id="in-progress"' in page
                        and 'http-equiv="refresh"' in page,
                        "report.html: in progress, and it reloads itself")
        self.assertTrue('id="config"' in page and "record-bytes 1536" in page,
                        "report.html: the config table")
        self.assertTrue("run 2, interrupted once" in page,
                        "report.html: run 2")
        self.assertEqual("RUNNING", s["steps"][1]["result"],
                         "a running step's result")

        # the campaign ends: no longer in progress
        s2.update(status="done", result="PASS", exit_status=0)
        write_log(os.path.join(d, s2.files["log"]), s2, 10)
        st.status = "finished"
        st.ended_at = "2026-01-01T00:00:00Z"
        publish.write_reports(d, st, {})
        doc = json.load(open(os.path.join(d, "summary.json")))
        self.assertEqual((False, None), (doc["in_progress"], doc["running"]),
                         "summary.json at the end: in_progress, running")
        page = open(os.path.join(d, "report.html")).read()
        self.assertTrue('id="in-progress"' not in page
                        and "refresh" not in page,
                        "report.html at the end: not in progress")
        self.assertTrue('class="verdict trial"' in page and
                        'class="verdict ok"' not in page,
                        "report.html: a certified trial is not the certified "
                        "green")
        self.assertEqual("TRIAL (not a certification): certified at 2x",
                         doc["verdict"]["headline"], "summary.json: the "
                         "trial's headline")
        self.assertEqual("certified at 2x",
                         cells.headline({"trial": False,
                                         "text": "certified at 2x"}),
                         "a 24-hour campaign's headline")
        self.assertEqual([], [n for n in os.listdir(d)
                              if ".tmp" in n], "no temporary files left")

    def test_report_killed(self):
        """--report on a campaign whose state says running: in progress only
        while an act_certify holds DIR's lock."""
        td = self.td
        d, st = campaign_dir(td, "killed")
        state.save_state(d, st)           # status "running", as if killed -9
        with contextlib.redirect_stdout(io.StringIO()):
            cmain.report_campaign(d)
        doc = json.load(open(os.path.join(d, "summary.json")))
        self.assertEqual(False, doc["in_progress"], "--report, nobody holds "
                         "the lock: in_progress")
        self.assertEqual(False, os.path.exists(os.path.join(d, ".lock")),
                         "--report leaves no .lock")
        fd = state.lock_dir(d)
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                cmain.report_campaign(d)
        finally:
            state.unlock_dir(d, fd)
        doc = json.load(open(os.path.join(d, "summary.json")))
        self.assertEqual(True, doc["in_progress"], "--report while an "
                         "act_certify holds the lock: in_progress")

    def test_skipped_and_error(self):
        td = self.td
        d, st = campaign_dir(td, "error")
        s1, s2 = st.steps
        s1.update(status="error", exit_status=2,
                  ended_at="2026-01-02T03:04:05Z",
                  message="act_storage exit status 2 (setup error): ERROR: "
                  "can't open /dev/a: EIO")
        s2.update(status="skipped", message="not run")
        st.status = "error"
        with open(os.path.join(d, s1.files["stderr"]), "w") as f:
            f.write("ERROR: can't open /dev/a: EIO\n")
        s = summary.build_summary(d, st, {})
        self.assertEqual({}, s["steps"][1]["files"], "a skipped step lists "
                         "only files that are there")
        self.assertEqual({"stderr":
                         s1.files["stderr"]}, s["steps"][0]["files"],
                         "a step whose program never ran lists no log")
        self.assertTrue(s["verdict"]["headline"].endswith(
                        "stopped with an error - act_storage exit status 2 "
                        "(setup error): ERROR: can't open /dev/a: EIO"),
                        "an error's headline says "
                        "what the error was: %r" % s["verdict"]["headline"])
        self.assertTrue(any("EIO" in r for r in s["verdict"]["reasons"]),
                        "%s\n%s"
                        % ("an error's reasons say what the error was",
                           s["verdict"]["reasons"]))
        end = s["campaign"]["end_text"]
        self.assertTrue(end.startswith("stopped by an error at "
                                       "2026-01-02T03:04:05Z: "
                                       "step 1") and "EIO" in end,
                        "campaign ended: what stopped it and when: %r" % end)
        md = markdown.render_markdown(s)
        self.assertTrue("campaign ended stopped by an error at" in md and
                        "campaign error" not in md, "%s\n%s"
                        % ("summary.md: how it ended", md))
        page = chtml.render_html(s)
        self.assertTrue("<td>error</td>" not in page, "report.html: campaign "
                        "ended shows more than the word error")

    def test_lock(self):
        td = self.td
        d = os.path.join(td, "lock")
        os.mkdir(d)
        fd = state.lock_dir(d)
        with self.assertRaises(UserError,
                               msg="a second lock_dir while held") as cm:
            state.lock_dir(d)
        self.assertEqual(2, getattr(cm.exception, "status", None),
                         "a second lock_dir while held: status")
        # a rival that opened .lock before the holder removed it
        rival = os.open(os.path.join(d, ".lock"), os.O_RDWR)
        state.unlock_dir(d, fd)
        self.assertEqual([], os.listdir(d), "unlock_dir removes .lock")
        import fcntl
        fcntl.flock(rival, fcntl.LOCK_EX | fcntl.LOCK_NB)   # the old file's
        fd2 = state.lock_dir(d)     # a new .lock: the rival's lock is no lock
        with self.assertRaises(UserError,
                               msg="lock_dir while another holds the new "
                                   ".lock") as cm:
            state.lock_dir(d)
        self.assertEqual(2, getattr(cm.exception, "status", None),
                         "lock_dir while another holds the new .lock: status")
        state.unlock_dir(d, fd2)
        os.close(rival)

    def test_help_width(self):
        for cols in ("40", "80", "200"):
            old = os.environ.get("COLUMNS")
            os.environ["COLUMNS"] = cols
            out = io.StringIO()
            try:
                with contextlib.redirect_stdout(out):
                    try:
                        cmain.build_parser().parse_args(["--help"])
                    except SystemExit:
                        pass
            finally:
                if old is None:
                    del os.environ["COLUMNS"]
                else:
                    os.environ["COLUMNS"] = old
            long = [line for line in out.getvalue().splitlines()
                    if len(line) > 80]
            self.assertEqual([], long, "--help with COLUMNS=%s: lines over 80 "
                             "columns" % cols)
            self.assertTrue("--resume DIR" in out.getvalue(), "--help printed")


if __name__ == "__main__":
    unittest.main()
