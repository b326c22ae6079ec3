#!/usr/bin/env python3
"""Description: act_certify's plan (analysis/act/certify/plan.py), called
directly: the default ceiling ladder (2 x the load, then 1.5 x the rung
before, two significant digits), --ladder parsing and its refusals, rates
per load, the analysis slice, durations as text, the steps of a campaign
(ids, kinds, loads, rates, durations, files; a rung at the stress load
judged from the last stress run; act_prep first), each step's config (the
base config and the four items act_certify sets, as --set items kept in
the step; a step an older act_certify planned: its own config file; the
command line the plan shows), the planned seconds and the time left, and
the plan's total line. --index: a dry run (main) plans act_index with
act_index.conf, without --index act_storage with act_storage.conf.

A base config is read by the C program alone (issue 26): one that
act_certify used to refuse or rewrite - items without a colon, given
twice, in a '#####' banner, CRLF lines, odd spacing - is planned as
act_storage reads it; its service-threads is the program's ('080' is 80:
the plan's warning names 80 threads), '0x10' is refused in the program's
words (78), and so is a device name the program can't take - naming the
--set item. Needs target/bin (make); those checks are skipped without
it.

    python3 tests/python/certify/test_plan.py [-v]
"""

import contextlib
import io
import os
import re
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
import support  # noqa: E402
from certstate import make_step, new_state  # noqa: E402

from act.certify import main as cmain  # noqa: E402
from act.certify import plan, runner  # noqa: E402
from act.certify.fmt import fmt_duration  # noqa: E402
from act.cli import UsageError as UserError  # noqa: E402


def files(base, plot=True):
    f = {"log": base + ".log", "stderr": base + ".err"}
    if plot:
        f["plot"] = base + ".svg"
    return f


# (number, id, kind, test, load, devices, reads/s, writes/s, duration,
#  judge, same_run_as, files, title)
ONE_DEVICE = [
    (1, "01-test1-target-30x", "target", 1, 30, ["/d/a"], 60000, 30000,
     86400, "criteria", None, files("01-test1-target-30x"),
     "test 1: the target load on one device"),
    (2, "02-test2-stress-60x", "stress", 2, 60, ["/d/a"], 120000, 60000,
     86400, "stress", None, files("02-test2-stress-60x"),
     "test 2: stress at 2 x the load on one device"),
]
TWO_DEVICES = [
    (1, "01-prep", "prep", None, None, ["/d/a", "/d/b"], 0, 0, 0, None,
     None, files("01-prep", plot=False),
     "act_prep on every device (clean, then salt)"),
    (2, "02-test1-target-30x", "target", 1, 30, ["/d/a"], 60000, 30000,
     100, "criteria", None, files("02-test1-target-30x"),
     "test 1: the target load on one device"),
    (3, "03-test2-stress-60x", "stress", 2, 60, ["/d/a"], 120000, 60000,
     100, "stress", None, files("03-test2-stress-60x"),
     "test 2: stress at 2 x the load on one device"),
    (4, "04-test3-target-30x", "target", 3, 30, ["/d/a", "/d/b"], 120000,
     60000, 100, "criteria", None, files("04-test3-target-30x"),
     "test 3: the target load on the 2 devices together"),
    (5, "05-test4-stress-60x", "stress", 4, 60, ["/d/a", "/d/b"], 240000,
     120000, 100, "stress", None, files("05-test4-stress-60x"),
     "test 4: stress at 2 x the load on the 2 devices together"),
    (6, "06-ceiling-60x", "ceiling", None, 60, ["/d/a", "/d/b"], 240000,
     120000, 0, "criteria", 5, {"plot": "06-ceiling-60x.svg"},
     "ceiling: 60x on 2 devices, judged from step 5's run"),
    (7, "07-ceiling-90x", "ceiling", None, 90, ["/d/a", "/d/b"], 360000,
     180000, 100, "criteria", None, files("07-ceiling-90x"),
     "ceiling: 90x on 2 devices"),
]
STEP_KEYS = ("number", "id", "kind", "test", "load", "devices",
             "reads_per_sec", "writes_per_sec", "duration_sec", "judge",
             "same_run_as", "files", "title")
# a planned step's keys in state.json, in their order (then "set")
ORDER = ("number", "id", "kind", "test", "title", "load", "devices",
         "reads_per_sec", "writes_per_sec", "duration_sec", "slice_sec",
         "judge", "same_run_as", "status", "result", "exit_status",
         "message", "started_at", "ended_at", "old_logs", "files")


def dry_run(base, dev, load, extra=()):
    """(exit status, stdout, stderr) of main's --dry-run of a campaign on
    dev with the base config text base."""
    with tempfile.TemporaryDirectory() as td:
        path = os.path.join(td, "base.conf")
        with open(path, "w", newline="") as f:
            f.write(base)
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
            rc = cmain.main_status(["--device", dev, "--load", str(load),
                                    "--seconds", "2", "--config", path,
                                    "--out", os.path.join(td, "out"),
                                    "--dry-run"] + list(extra))
        return rc, out.getvalue(), err.getvalue()


class Plan(unittest.TestCase):
    def test_ladder(self):
        for load, rungs, want in (
                (30, 6, [60, 90, 140, 210, 320, 480]),     # the README's
                (1, 6, [2, 3, 4.5, 6.8, 10, 15]),
                (2.5, 6, [5, 7.5, 11, 16, 24, 36]),
                (30, 2, [60, 90]),
                (30, 1, [60])):
            self.assertEqual(want, plan.default_ladder(load, rungs),
                             "default_ladder(%s, %d)" % (load, rungs))
        self.assertEqual(plan.LADDER_RUNGS, len(plan.default_ladder(30)),
                         "default_ladder(30) has LADDER_RUNGS rungs")
        for text, load, want in (("40,60,80", 30, [40.0, 60.0, 80.0]),
                                 (" 40 , 60 ,", 30, [40.0, 60.0]),
                                 ("2.5", 1, [2.5])):
            self.assertEqual(want, plan.parse_ladder(text, load),
                             "parse_ladder(%r, %s)" % (text, load))
        for text, load, msg in (
                ("", 30, "--ladder needs loads, e.g. --ladder 40,60,80"),
                (",", 30, "--ladder needs loads, e.g. --ladder 40,60,80"),
                ("20,40", 30,
                 "--ladder loads must be above the target load 30x"),
                ("30,40", 30,
                 "--ladder loads must be above the target load 30x"),
                ("40,35", 30, "--ladder loads must increase: 40,35"),
                ("40,40", 30, "--ladder loads must increase: 40,40"),
                ("40,x", 30, "--ladder load must be a number, not 'x'"),
                ("40,-1", 30, "--ladder load must be more than 0, not '-1'"),
                ("nan", 30, "--ladder load must be more than 0, not 'nan'"),
                ("inf", 30, "--ladder load must be more than 0, not 'inf'")):
            with self.assertRaises(UserError,
                                   msg="parse_ladder(%r, %s)" % (text,
                                                                 load)) as cm:
                plan.parse_ladder(text, load)
            self.assertEqual(msg, str(cm.exception), "parse_ladder(%r, "
                             "%s)" % (text, load) + ": message")
            self.assertEqual(64, getattr(cm.exception, "status", None),
                             "parse_ladder(%r, %s)"% (text, load) + ": status")

    def test_numbers(self):
        for load, n, want in ((30, 1, (60000, 30000)), (2.5, 3, (15000, 7500)),
                              (1, 2, (4000, 2000)),
                              (0.0005, 1, (1, 0))):     # round() - half even
            self.assertEqual(want, plan.rates(load, n),
                             "rates(%s, %d)" % (load, n))
        for dur, want in ((86400, 3600), (3600, 3600), (3599, 359), (100, 10),
                          # a trial's slices: at least 10 s, or the run
                          (99, 10), (20, 10), (10, 10), (5, 5), (1, 1)):
            self.assertEqual(want, plan.slice_for(dur), "slice_for(%d)" % dur)
        for x, want in ((135, 140), (6.75, 6.8), (16.5, 16), (2, 2),
                        (0.1234, 0.12)):
            self.assertEqual(want, plan.round2(x), "round2(%s)" % x)
        for sec, want in ((86400, "24 h"), (4, "4 s"), (345600, "4 d"),
                          (5400, "1 h 30 min"), (0, "0 s"), (172800, "2 d"),
                          (90000, "25 h"), (400, "6 min 40 s"),
                          (172861, "2 d 1 min 1 s")):
            self.assertEqual(want, fmt_duration(sec), "fmt_duration(%d)" % sec)

    def test_steps(self):
        for what, args, want, slice_sec in (
                ("one device, no ceiling", (["/d/a"], 30, 2.0, 86400, [],
                                            False),
                 ONE_DEVICE, 3600),
                ("two devices, prep, ladder 60,90",
                 (["/d/a", "/d/b"], 30, 2.0, 100, [60, 90], True),
                 TWO_DEVICES, 10)):
            steps = plan.plan_steps(*args)
            self.assertEqual(len(want), len(steps), "%s: number of "
                             "steps" % what)
            for s, w in zip(steps, want):
                self.assertEqual(dict(zip(STEP_KEYS, w)),
                                 {k: getattr(s, k) for k in STEP_KEYS},
                                 "%s: step %d" % (what, w[0]))
                self.assertEqual(ORDER + (("set",) if s.set else ()),
                                 tuple(s.to_json()), "%s: step %d's keys in "
                                 "state.json" % (what, w[0]))
                wd = dict(zip(STEP_KEYS, w))
                self.assertEqual([
                    "device-names=%s" % ",".join(wd["devices"]),
                    "read-reqs-per-sec=%d" % wd["reads_per_sec"],
                    "write-reqs-per-sec=%d" % wd["writes_per_sec"],
                    "test-duration-sec=%d" % wd["duration_sec"]]
                    if wd["kind"] != "prep"
                                 and not wd["same_run_as"] else None,
                    s.set, "%s: step %d's --set items" % (what, w[0]))
                self.assertEqual({"slice_sec": slice_sec, "status": "planned",
                                  "result": None, "exit_status": None,
                                  "message": None,
                                  "started_at": None, "ended_at": None,
                                  "old_logs": []},
                                 {k: getattr(s, k) for k in (
                                     "slice_sec", "status", "result",
                                                             "exit_status",
                                     "message", "started_at", "ended_at",
                                                             "old_logs")},
                                 "%s: step %d bookkeeping" % (what, w[0]))
        steps = plan.plan_steps(["/d/a"], 30, 1.5, 60, [45], False)
        self.assertEqual([
            "test 1: the target load on one device",
            "test 2: stress at 1.5 x the load on one device",
            "ceiling: 45x on 1 device, judged from step 2's run"],
            [s.title for s in steps], "stress factor 1.5: titles")
        self.assertEqual((0, 2), (steps[2].duration_sec, steps[2].same_run_as),
                         "a rung at the stress load is no new run")

        two = plan.plan_steps(["/d/a", "/d/b"], 30, 2.0, 100, [60, 90], True)
        self.assertEqual(500, plan.planned_seconds(two),
                         "planned_seconds: act_prep and a rung on an earlier "
                         "run take 0")
        self.assertEqual(0, plan.planned_seconds([]), "planned_seconds of no "
                         "step")
        # done: step numbers; current: the running step's number (or None)
        for done, current, elapsed, want in (
                ((), 2, 30, 70 + 400),      # step 2: 70 s of it left, then 3-7
                ((1, 2), 3, 0, 100 + 300),
                ((1, 2, 3, 4, 5, 6), 7, 250, 0),    # past its planned end
                ((), None, 0, 500),
                ((2,), None, 0, 400)):
            steps = plan.plan_steps(["/d/a", "/d/b"], 30, 2.0, 100, [60, 90],
                                    True)
            for s in steps:
                if s.number in done:
                    s.status = "done"
            cur = steps[current - 1] if current is not None else None
            self.assertEqual(want,
                             runner.remaining_seconds(steps, cur, elapsed),
                             "remaining_seconds (done %s, step %s running, %d "
                             "s in)" % (list(done), current, elapsed))
        steps = plan.plan_steps(["/d/a", "/d/b"], 30, 2.0, 100, [60, 90], True)
        steps[6].status = "skipped"
        self.assertEqual(400, runner.remaining_seconds(steps, None, 0),
                         "remaining_seconds: a skipped step is not counted")

        state = new_state(["/d/a", "/d/b"], load=30, duration=100,
                          ladder=[60, 90])
        state.steps = two
        text = plan.plan_text(state, "/o", True)
        self.assertEqual("total: 6 min 40 s for the certification (4 tests), "
                         "at most 1 min 40 s more for the ceiling (1 run; the "
                         "ladder stops at the first load that fails), plus "
                         "act_prep", text.split("\n")[-1],
                         "plan_text: the total line")
        state.steps = plan.plan_steps(["/d/a"], 30, 2.0, 86400, [], False)
        state.campaign.update(devices=["/d/a"], duration_sec=86400,
                              ceiling=False, ladder=[])
        text = plan.plan_text(state, "/o", False)
        self.assertEqual("total: 2 d for the certification (2 tests)",
                         text.split("\n")[-1], "plan_text, one device: the "
                         "total line")
        self.assertTrue("a certification" not in text and "trial" not in text,
                        "%s\n%s" % ("a 24-hour plan is called a trial", text))

    def test_step_config(self):
        step = make_step(number=3, title="t", devices=["/d/a", "/d/b"],
                         reads_per_sec=2000, writes_per_sec=1000,
                         duration_sec=60)
        self.assertEqual(["device-names=/d/a,/d/b", "read-reqs-per-sec=2000",
                          "write-reqs-per-sec=1000", "test-duration-sec=60"],
                         plan.step_sets(step), "step_sets")
        self.assertEqual("device-names=/d/x",
                         plan.step_sets(step, ["/d/x"])[0],
                         "step_sets on other devices")
        step.set = plan.step_sets(step)
        self.assertEqual(["/o/base.conf", "--set", "device-names=/d/a,/d/b",
                          "--set",
                          "read-reqs-per-sec=2000", "--set",
                          "write-reqs-per-sec=1000",
                          "--set", "test-duration-sec=60"],
                         plan.config_args(step, "/o/base.conf", "/o"),
                         "config_args: the base config and the --set items")
        self.assertEqual("act_storage base.conf --set device-names=/d/a,/d/b "
                         "--set read-reqs-per-sec=2000 --set "
                         "write-reqs-per-sec=1000 --set test-duration-sec=60",
                         plan.command_text("act_storage", step, "base.conf"),
                         "command_text")
        old = step.copy(files={"config": "03-x.conf"})
        del old.set
        self.assertEqual(["/o/03-x.conf"],
                         plan.config_args(old, "/o/base.conf", "/o"),
                         "config_args of a step an older act_certify planned: "
                         "its file")

    def test_index(self):
        """--index plans act_index with act_index.conf (a dry run: nothing is
        written); a stand-in act_index in $ACT_BIN, the example configs of the
        source tree."""
        with tempfile.TemporaryDirectory(prefix="act-plan-test-") as td:
            for prog in ("act_index", "act_storage"):
                path = os.path.join(td, prog)
                support.stub_program(path)
            dev = os.path.join(td, "dev")
            with open(dev, "wb") as f:
                f.truncate(1 << 20)
            old = os.environ.get("ACT_BIN")
            os.environ["ACT_BIN"] = td
            try:
                for flags, prog, conf in ((["--index"], "act_index",
                                           "act_index.conf"),
                                          ([], "act_storage",
                                           "act_storage.conf")):
                    out = io.StringIO()
                    with contextlib.redirect_stdout(out):
                        rc = cmain.main(["--device", dev, "--load", "3",
                                         "--out", os.path.join(td, "o"),
                                         "--seconds", "100", "--dry-run"] +
                                        flags)
                    text = out.getvalue()
                    self.assertEqual(0, rc, "dry run %s: exit status" % flags)
                    self.assertTrue("  program:     %s\n"
                                    % os.path.join(td, prog) in text,
                                    "%s\n%s"
                                    % ("dry run %s: the program is not %s"
                                       % (flags, prog), text))
                    self.assertTrue("  base config: %s "
                                    % os.path.join( support.REPO, "config",
                                                   conf) in text,
                                    "%s\n%s"
                                    % ("dry run %s: the base config is not "
                                       "config/%s" % (flags, conf), text))
                self.assertTrue(not os.path.exists(os.path.join(td, "o")),
                                "a dry run created its directory")
            finally:
                if old is None:
                    os.environ.pop("ACT_BIN", None)
                else:
                    os.environ["ACT_BIN"] = old
        with self.assertRaises(UserError, msg="--resume with --index") as cm:
            cmain.parse_args(["--resume", "/o", "--index"])
        self.assertEqual("--resume takes no other option (the plan is in "
                         "DIR/state.json): remove --index", str(cm.exception),
                         "--resume with --index: message")

    def test_device_names(self):
        """The characters a device name can't have are the C config
        parser's separators (act.DEVICE_SEPARATORS), white space and the
        comment sign."""
        for name in ("a;b", "a,b", "a b", "a\tb", "a#b", ""):
            with self.assertRaises(UserError,
                                   msg="device name %r" % name) as cm:
                cmain.check_device_names([name])
            self.assertEqual("device name %r: must not be empty nor contain "
                             "white space, ',', ';' or '#'" % name,
                             str(cm.exception), "device "
                             "name %r" % name + ": message")
            self.assertEqual(64, getattr(cm.exception, "status", None),
                             "device name %r" % name + ": status")
        with self.assertRaises(UserError, msg="a device given twice") as cm:
            cmain.check_device_names(["/d/a", "/d/../d/a"])
        self.assertEqual(64, getattr(cm.exception, "status", None),
                         "a device given twice: status")
        cmain.check_device_names(["/dev/sdb", "/dev/disk/by-id/x-y_z.1"])

    def test_c_decides(self):
        """The base config as the C program reads it (issue 26): what
        act_certify used to refuse (78) or rewrite is planned as act_storage
        takes it; what act_storage refuses is refused in its words."""
        bin_dir = os.path.join(support.REPO, "target", "bin")
        if not os.access(os.path.join(bin_dir, "act_storage"), os.X_OK):
            self.skipTest("target/bin/act_storage not built: the C checks "
                          "skipped")
        old = os.environ.get("ACT_BIN")
        os.environ["ACT_BIN"] = bin_dir
        try:
            with tempfile.TemporaryDirectory() as td:
                dev = os.path.join(td, "dev")
                with open(dev, "wb") as f:
                    f.truncate(8 << 20)
                for what, text in (
                        ("no colon", "read-reqs-per-sec 20\n"),
                        ("an item twice", "service-threads: 3\n"
                         "service-threads: 4\n"),
                        ("in a banner", "####\n test-duration-sec: 2\n####\n"),
                        ("CRLF lines", "service-threads: 4\r\n# c\r\n"),
                        ("odd spacing", "\tservice-threads :\t 4 # c\n"
                         "  read-reqs-per-sec  : 5\n")):
                    rc, out, err = dry_run(text, dev, 1)
                    self.assertEqual(0, rc, "base config, %s: planned (stderr "
                                     "%r)" % (what, err))
                rc, out, err = dry_run("service-threads: 080\n", dev, 30)
                self.assertEqual(0, rc, "service-threads 080: planned (stderr "
                                 "%r)" % err)
                self.assertTrue("each of the 80 service-threads" in out,
                                "%s\n%s"
                                % ("service-threads 080: the plan's warning "
                                   "does not name the 80 threads act_storage "
                                   "runs", out))
                rc, out, err = dry_run("service-threads: 0x10\n", dev, 1)
                self.assertEqual(78, rc, "service-threads 0x10: refused as a "
                                 "config error")
                self.assertTrue("config item 'service-threads': '0x10' is not "
                                "a decimal number (line 1)"in err,
                                "%s\n%s"
                                % ("service-threads 0x10: not the program's "
                                   "words", err))
                long_dev = os.path.join(td, "d" * 130)
                with open(long_dev, "wb") as f:
                    f.truncate(8 << 20)
                rc, out, err = dry_run("service-threads: 4\n", long_dev, 1)
                self.assertEqual(78, rc, "a device name act_storage can't "
                                 "take: refused (78)")
                self.assertTrue("at most 127 (--set "
                                "device-names=%s)" % long_dev in err,
                                "%s\n%s"
                                % ("a device name act_storage can't take: the "
                                   "refusal does not name the --set item",
                                   err))
        finally:
            if old is None:
                os.environ.pop("ACT_BIN", None)
            else:
                os.environ["ACT_BIN"] = old

    def test_limits(self):
        """Every number argument is range-checked as the C programs would,
        before anything is created: status 64 and the reason, never a
        traceback nor a DIR; the limit (plan.MAX_U32) is the C config
        table's for read-reqs-per-sec, write-reqs-per-sec and
        test-duration-sec."""
        with open(os.path.join(support.REPO, "src", "common",
                               "shared_cfg.h")) as f:
            text = f.read()
        for name in ("test-duration-sec", "read-reqs-per-sec",
                     "write-reqs-per-sec"):
            m = re.search(r'\.name = "%s",[^}]*?\.max = (\w+)' % name, text)
            self.assertEqual("UINT32_MAX", m and m.group(1),
                             "shared_cfg.h: %s's max" % name)
            m = re.search(r'\.name = "%s",[^}]*?\.type = (\w+)' % name, text)
            self.assertEqual("CFG_U32", m and m.group(1),
                             "shared_cfg.h: %s's type" % name)
        self.assertEqual(2 ** 32 - 1, plan.MAX_U32, "plan.MAX_U32 is "
                         "UINT32_MAX")
        with tempfile.TemporaryDirectory() as td:
            dev = os.path.join(td, "dev")
            with open(dev, "wb") as f:
                f.write(b"\0" * 4096)
            out = os.path.join(td, "out")
            for extra, want in (
                    (["--load", "1e308"], "load 1e+308 is too large"),
                    (["--load", "1e12"], "load 1e+12 is too large"),
                    (["--load", "1000000", "--ceiling"], "load 3e+06 is too "
                     "large"),
                    (["--load", "1", "--stress-factor", "1e308"],
                     "load 1e+308 is too large"),
                    (["--load", "1", "--ladder", "2,1e308"], "load 1e+308 is "
                     "too large"),
                    (["--load", "1", "--hours", "1e308"], "--hours 1e308 is "
                     "more than act's longest test, 4294967295 seconds"),
                    (["--load", "1", "--hours", "2000000"],
                     "--hours 2000000 is more than act's longest test"),
                    (["--load", "1", "--seconds", "99999999999999999999"],
                     "--seconds 99999999999999999999 is more than act's "
                     "longest test"),
                    (["--load", "1", "--seconds", "4294967296"], "--seconds "
                     "4294967296 is more than act's longest test"),
                    (["--load", "1", "--hours", "0.0001"], "--hours 0.0001 is "
                     "under a second")):
                err = io.StringIO()
                with contextlib.redirect_stderr(err), \
                        contextlib.redirect_stdout(io.StringIO()):
                    rc = cmain.main_status(["--device", dev, "--out", out] +
                                           extra)
                self.assertEqual(64, rc, "%s: exit status" % " ".join(extra))
                self.assertTrue(want in err.getvalue(),
                                "%s: message %r lacks %r"
                                % ( " ".join(extra), err.getvalue(), want))
                self.assertTrue(not os.path.exists(out),
                                "%s: DIR created" % " ".join(extra))
            # the largest the C programs take: planned (a dry run)
            for extra in (["--seconds", "4294967295"],
                          ["--load", "1000000", "--stress-factor", "2.1"]):
                args = cmain.parse_args(["--device", dev, "--out", out,
                                         "--load", "1"] + extra)
                self.assertTrue(args is not None, "%s refused" % extra)

    def test_failed_setup(self):
        """A setup that fails (here: no space left when the host is noted)
        removes what it made - base.conf, the step configs, .lock, DIR if it
        was new - so the retry is not refused as a used DIR."""
        import errno
        from act.certify.devices import Held, release_devices
        real = cmain.host_identity

        def no_space():
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        with tempfile.TemporaryDirectory() as td:
            dev = os.path.join(td, "dev")
            with open(dev, "wb") as f:
                f.write(b"\0" * (8 << 20))
            os.environ["ACT_BIN"] = os.path.join(support.REPO, "target", "bin")
            cmain.host_identity = no_space
            try:
                for what, out, made in (
                        ("a new DIR", os.path.join(td, "new"), False),
                        ("an empty DIR", os.path.join(td, "empty"), True)):
                    if made:
                        os.mkdir(out)
                    err = io.StringIO()
                    with contextlib.redirect_stderr(err), \
                            contextlib.redirect_stdout(io.StringIO()):
                        rc = cmain.main_status(["--device", dev, "--load", "1",
                                                "--seconds", "2", "--out",
                                                out])
                    release_devices(Held.fds)
                    self.assertEqual(2, rc, "failed setup, %s: exit "
                                     "status" % what)
                    self.assertTrue("can't set up %s: No space left on device"
                                    % out in err.getvalue(),
                                    "%s\n%s"
                                    % ("failed setup, %s: message" % what,
                                       err.getvalue()))
                    self.assertEqual([] if made else None,
                                     sorted(os.listdir(out))
                                     if os.path.exists(out) else None,
                                     "failed setup, %s: what is left" % what)
            finally:
                cmain.host_identity = real
                del os.environ["ACT_BIN"]


if __name__ == "__main__":
    unittest.main()
