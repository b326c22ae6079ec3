#!/usr/bin/env python3
"""Description: act_certify's campaign directory
(analysis/act/certify/state.py), called directly: state.json saved
(indented JSON, a final newline, no temporary file left) and loaded back;
every malformed state file refused with its message and exit status 2
(missing, empty, not JSON, not UTF-8, a directory, unreadable, a JSON
list, another format), and by --compare as a damaged row: nested deeper
than the recursion limit or than act_certify writes, a load, stress
factor, ladder, duration or rate past the command line's limits (never a
RecursionError or OverflowError); the directory lock (a second holder
refused, free again once closed); the resume bookkeeping: an
interrupted step's log and stderr renamed <name>.interrupted-K (K past
any left-over file) and remembered in old_logs, the next step's number,
whether a recorded program still runs on DIR - and --resume refusing
while it does, or saying a finished campaign has nothing to resume.

    python3 tests/python/certify/test_state.py [-v]
"""

import contextlib
import io
import json
import os
import stat
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
import support  # noqa: E402
from certstate import bounded, damaged, new_state  # noqa: E402

from act.certify import main as cmain  # noqa: E402
from act.certify import model  # noqa: E402
from act.certify import state  # noqa: E402
from act.cli import UsageError as UserError  # noqa: E402


def touch(path, text="x"):
    with open(path, "w") as f:
        f.write(text)


def read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError as e:
        return "(%s)" % e.strerror


def run_main(argv):
    """main_status(argv) -> (status, stderr); a traceback fails the test
    (it propagates)."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err), \
            contextlib.redirect_stdout(io.StringIO()):
        rc = cmain.main_status(argv)
    return rc, err.getvalue()


class State(support.TempDir):
    PREFIX = "act-state-test-"

    def test_save_load(self):
        td = self.td
        d = os.path.join(td, "camp")
        os.mkdir(d)
        st = new_state(["/d/a"])
        state.save_state(d, st)
        path = os.path.join(d, "state.json")
        with open(path) as f:
            text = f.read()
        self.assertEqual(json.dumps(st.to_json(), indent=1) + "\n", text,
                         "state.json: indented JSON and a newline")
        self.assertEqual(["state.json"], sorted(os.listdir(d)),
                         "save_state leaves no temporary file")
        self.assertEqual(st, state.load_state(d), "load_state gives back what "
                         "was saved")
        st.steps[0].status = "done"
        state.save_state(d, st)
        self.assertEqual("done", state.load_state(d).steps[0].status,
                         "save_state replaces the file")

        bad = os.path.join(td, "bad")
        os.mkdir(bad)
        sp = os.path.join(bad, "state.json")
        rows = [
            ("no state.json", None,
             "%s has no campaign (no state.json)" % bad),
            ("empty", b"", "can't read %s: Expecting value: line 1 column 1 "
             "(char 0)" % sp),
            ("not JSON", b"{", "can't read %s: Expecting property name "
             "enclosed in double quotes: line 1 column 2 (char 1)" % sp),
            ("not UTF-8", b"\xff\xfe{}", None),
            ("a JSON list", b"[]", "%s is not an act_certify state file "
             "(act_certify/1)" % sp),
            ("another format", b'{"format": "act_certify/2"}',
             "%s is not an act_certify state file (act_certify/1)" % sp),
            ("no format", b'{"steps": []}',
             "%s is not an act_certify state file (act_certify/1)" % sp),
            ("a directory", "dir", "can't read %s: it is a directory, not a "
             "regular file" % sp),
        ]
        if os.geteuid() != 0:
            rows.append(("unreadable", "0000", "can't read %s: Permission "
                         "denied" % sp))
        for what, content, msg in rows:
            if os.path.isdir(sp):
                os.rmdir(sp)
            elif os.path.exists(sp):
                os.chmod(sp, 0o600)
                os.unlink(sp)
            if content == "dir":
                os.mkdir(sp)
            elif content == "0000":
                with open(sp, "w") as f:
                    f.write(json.dumps(st.to_json()))
                os.chmod(sp, 0)
            elif content is not None:
                with open(sp, "wb") as f:
                    f.write(content)
            if msg is None:     # the decoder's own words: only the start
                try:
                    state.load_state(bad)
                    self.fail("load_state, %s: accepted" % what)
                except UserError as e:
                    self.assertTrue(str(e).startswith("can't read %s: " % sp),
                                    "load_state, %s: "
                                    "message %r" % (what, str(e)))
                    self.assertEqual(2, e.status, "load_state, %s: "
                                     "status" % what)
                continue
            with self.assertRaises(UserError,
                                   msg="load_state, %s" % what) as cm:
                state.load_state(bad)
            self.assertEqual(msg, str(cm.exception), "load_state, "
                             "%s" % what + ": message")
            self.assertEqual(2, getattr(cm.exception, "status", None),
                             "load_state, %s" % what + ": status")
        if os.path.exists(sp) and not os.path.isdir(sp):
            os.chmod(sp, 0o600)

    def test_lock(self):
        td = self.td
        d = os.path.join(td, "lock")
        os.mkdir(d)
        fd = state.lock_dir(d)
        with self.assertRaises(UserError, msg="a second lock_dir") as cm:
            state.lock_dir(d)
        self.assertEqual("another act_certify is running the campaign in "
                         "%s" % d, str(cm.exception), "a second lock_dir: "
                         "message")
        self.assertEqual(2, getattr(cm.exception, "status", None),
                         "a second lock_dir: status")
        os.close(fd)
        try:
            os.close(state.lock_dir(d))
            self.assertTrue(True, "lock_dir once the first is closed")
        except UserError as e:
            self.fail("lock_dir once the first is closed: %s" % e)

    def test_rename_old_log(self):
        td = self.td
        d = os.path.join(td, "rename")
        os.mkdir(d)
        st = new_state(["/d/a"])
        step = st.steps[0]
        log, err = step.files["log"], step.files["stderr"]
        step.update(status="running", exit_status=None)
        state.rename_old_log(d, step)
        self.assertEqual(([], []), (step.old_logs, sorted(os.listdir(d))),
                         "rename_old_log without a log: nothing")

        touch(os.path.join(d, log), "log 1")
        touch(os.path.join(d, err), "err 1")
        state.rename_old_log(d, step)
        self.assertEqual([
            {"log": log + ".interrupted-1", "stderr": err + ".interrupted-1",
             "status": "running", "exit_status": None}],
            [old.to_json() for old in step.old_logs], "rename_old_log: first "
            "interruption")
        self.assertEqual(sorted(
                         [log + ".interrupted-1", err + ".interrupted-1"]),
                         sorted(os.listdir(d)), "rename_old_log: the files")

        touch(os.path.join(d, log), "log 2")        # no stderr this time
        touch(os.path.join(d, log + ".interrupted-2"), "left over")
        step.update(status="interrupted", exit_status=130)
        state.rename_old_log(d, step)
        self.assertEqual({"log": log + ".interrupted-3",
                          "status": "interrupted",
                          "exit_status": 130}, step.old_logs[-1].to_json(),
                         "rename_old_log: past a left-over .interrupted-2, no "
                         "stderr")
        self.assertEqual("log 2",
                         read(os.path.join(d, log + ".interrupted-3")),
                         "rename_old_log: the log kept")
        self.assertTrue(not os.path.exists(os.path.join(d, log)),
                        "rename_old_log left the log in place")

        st = new_state(["/d/a", "/d/b"])
        self.assertEqual(1, state.current_step_number(st),
                         "the next step: the first")
        st.steps[0].status = "done"
        st.steps[1].status = "skipped"
        self.assertEqual(3, state.current_step_number(st),
                         "the next step: past done and skipped")
        for s in st.steps:
            s.status = "done"
        self.assertEqual("-", state.current_step_number(st),
                         "the next step: none left")

    def test_resume(self):
        """still_running, and --resume refusing a step whose program runs."""
        td = self.td
        d = os.path.join(td, "resume")
        os.mkdir(d)
        self.assertTrue(not state.still_running(os.getpid(), d),
                        "a process not running on DIR counts as running")
        self.assertTrue(not state.still_running(0x7ffffffe, d),
                        "a process that is not there counts as running")
        bindir = os.path.join(td, "bin")
        os.mkdir(bindir)
        touch(os.path.join(bindir, "act_storage"), "#!/bin/sh\nexit 0\n")
        os.chmod(os.path.join(bindir, "act_storage"), stat.S_IRWXU)
        os.environ["ACT_BIN"] = bindir
        child = subprocess.Popen([sys.executable, "-c",
                                  "import sys, time; time.sleep(60)", d])
        try:
            for _ in range(100):    # until the child's command line is its own
                with open("/proc/%d/cmdline" % child.pid, "rb") as f:
                    if d.encode() in f.read():
                        break
                time.sleep(0.05)
            self.assertTrue(state.still_running(child.pid, d),
                            "a program running on DIR does not count as "
                            "running")
            st = new_state([os.path.join(td, "dev")])
            st.status = "interrupted"
            st.steps[0].update(status="running", pid=child.pid)
            state.save_state(d, st)
            with self.assertRaises(UserError,
                                   msg="--resume while step 1's program "
                                       "runs") as cm:
                cmain.resume_campaign(d)
            self.assertEqual("step 1's program is still running (pid %d) - "
                             "stop it first" % child.pid, str(cm.exception),
                             "--resume while step 1's program runs: message")
            self.assertEqual(2, getattr(cm.exception, "status", None),
                             "--resume while step 1's program runs: status")
        finally:
            child.kill()
            child.wait()

        st = new_state([os.path.join(td, "dev")])
        st.status = "finished"
        for s in st.steps:
            s.update(status="done", result="PASS", exit_status=0)
        state.save_state(d, st)
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            rc = cmain.resume_campaign(d)
        self.assertEqual(0, rc, "--resume of a finished campaign: exit status "
                         "(certified)")
        self.assertEqual([
            "act_certify.py: the campaign in %s has finished - nothing to "
            "resume" % d, "verdict: TRIAL (not a certification): certified "
            "at 1x",
            "report: %s" % os.path.join(d, "report.html")],
            out.getvalue().split("\n")[:-1],
                         "--resume of a finished campaign: "
            "what it says")
        self.assertTrue(os.path.isfile(os.path.join(d, "summary.json")),
                        "--resume of a finished campaign: no summary.json "
                        "written")

    def test_damaged(self):
        """A state file that is valid JSON but lacks a key act_certify reads,
        or has a value of the wrong type: --report and --resume refuse it with
        status 2 and the reason, never a traceback."""
        td = self.td
        d = os.path.join(td, "damaged")
        os.mkdir(d)
        base = new_state([os.path.join(td, "dev")])
        for s in base.steps:
            s.update(status="done", result="PASS", exit_status=0)
        base.status = "finished"
        n = 0
        for what, st in damaged(base):
            with open(os.path.join(d, "state.json"), "w") as f:
                json.dump(st, f)
            problem = model.problem(st)
            for opt in ("--report", "--resume"):
                try:
                    rc, err = run_main([opt, d])
                except Exception as e:      # noqa: BLE001 - a traceback
                    self.fail("%s, %s: "
                              "%s: %s" % (opt, what, type(e).__name__, e))
                    continue
                if what.endswith(" format"):
                    self.assertEqual(2, rc, "%s, %s: exit "
                                     "status" % (opt, what))
                    continue
                if problem is None:
                    # a change act_certify may take (e.g. host null): fine if
                    # it ends normally
                    self.assertTrue(rc in (0, 1), "%s\n%s"
                                    % ("%s, %s: exit status %s" % ( opt, what,
                                                                   rc), err))
                    continue
                n += 1
                self.assertEqual(2, rc, "%s, %s: exit status" % (opt, what))
                self.assertTrue("state.json is damaged: " in err,
                                "%s\n%s"
                                % ("%s, %s: no reason" % (opt, what), err))
        self.assertTrue(n > 100, "damaged: only %d refusals" % n)

    def test_bounds(self):
        """A state.json nested deeper than Python's recursion limit (json's
        decoder: RecursionError), or nested past what act_certify writes, or
        with a number past the command line's limits (a load of 1e308:
        OverflowError in plan.rates): --report and --resume refuse it as
        damaged (status 2, the reason), --compare makes it a row that says
        so - never a traceback."""
        td = self.td
        from act.certify import compare
        d = os.path.join(td, "bounds")
        os.mkdir(d)
        base = new_state([os.path.join(td, "dev"), os.path.join(td, "dev2")])
        for s in base.steps:
            s.update(status="done", result="PASS", exit_status=0)
        base.status = "finished"
        sp = os.path.join(d, "state.json")
        rows = [("nested 100000 deep", None,
                 "nested deeper than 16 levels")] + list(bounded(base))
        for what, st, why in rows:
            with open(sp, "w") as f:
                if st is None:
                    f.write('{"format": "act_certify/1", "status": ' +
                            "[" * 100000 + "]" * 100000 + "}")
                else:
                    json.dump(st, f)
            for opt in ("--report", "--resume"):
                try:
                    rc, err = run_main([opt, d])
                except Exception as e:      # noqa: BLE001 - a traceback
                    self.fail("%s, %s: %s: %s"
                              % (opt, what, type(e).__name__, str(e)[:200]))
                    continue
                self.assertEqual(2, rc, "%s, %s: exit status" % (opt, what))
                self.assertTrue("%s is damaged: " % sp in err and why in err,
                                "%s\n%s"
                                % ("%s, %s: the reason %r" % (opt, what, why),
                                   err))
            try:
                row, steps = compare.campaign_row("x", d)
            except Exception as e:          # noqa: BLE001 - a traceback
                self.fail("--compare, %s: %s: %s"
                          % (what, type(e).__name__, str(e)[:200]))
                continue
            self.assertEqual(("damaged", []), (row["status"], steps),
                             "--compare, %s: a damaged row" % what)
            self.assertTrue(why in (row["damaged"] or ""),
                            "%s\n%s"
                            % ("--compare, %s: the reason %r" % (what, why),
                               row["damaged"]))
        base.host = {"a": [[{"b": [1]}]]}        # 6 deep: fine
        self.assertEqual(None, model.problem(base.to_json()),
                         "a state nested 6 deep is no damage")

    def test_non_utf8_dir(self):
        """A campaign directory whose name is not UTF-8: no traceback."""
        td = self.td
        d = os.path.join(td, os.fsdecode(b"camp-\xff"))
        os.mkdir(d)
        self.assertTrue(not state.still_running(os.getpid(), d),
                        "still_running on a non-UTF-8 DIR")
        st = new_state([os.path.join(td, "dev")])
        for s in st.steps:
            s.update(status="done", result="PASS", exit_status=0)
        st.status = "finished"
        state.save_state(d, st)
        rc, err = run_main(["--report", d])
        self.assertEqual(0, rc, "--report of a non-UTF-8 DIR: certified")

    def test_dir_fsync(self):
        """save_state fsyncs the directory after the rename: a crash right
        after it keeps the new state.json's name."""
        td = self.td
        d = os.path.join(td, "fsync")
        os.mkdir(d)
        synced = []
        real = os.fsync

        def spy(fd):
            synced.append(stat.S_ISDIR(os.fstat(fd).st_mode))
            return real(fd)
        os.fsync = spy
        try:
            state.save_state(d, new_state(["/d/a"]))
        finally:
            os.fsync = real
        self.assertEqual([False, True], synced, "save_state: the file, then "
                         "the directory fsynced")


if __name__ == "__main__":
    unittest.main()
