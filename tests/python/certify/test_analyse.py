#!/usr/bin/env python3
"""Description: how act_certify reads logs and analyses a step, called
directly - the behaviour recorded before act_certify moved onto
act.logfile and an in-process act.latency, kept since:

- act.logfile's header.log_identity (identity, start time and size
  lines, the header only), follow.last_report, reports.last_errors (the
  last ERROR / stopped lines), and logfile.reports.first_error (stderr's
  first ERROR line, else the log's, else stderr's last line) on
  hand-written logs;
- LogFollower on a log written piece by piece (cut inside lines): reads
  over 1 ms per report - buckets above 0 in a millisecond log, above 10
  (1024 us) in a microsecond one, bucket lines continued, other
  histograms ignored - and window() over the last N seconds;
- the analysis errors, worded as act_latency.py words them (its first
  two messages): not a log, no complete slice (with its note);
- analyse_log on a real 10-second log with the criteria's 3600-second
  slice: no slice is found, so it is analysed again in 1-second slices
  with a note (the re-analysis the review found never driven), giving the
  verdict document, the table and the plot - in-process: no program is
  run; a missing log; the kind of stop of a stopped log (RunEnd.stop);
  step_analysis's cache (kept while the log is unchanged);
- the plot replaced (a temporary file renamed), never rewritten in place:
  a reader of the old one reads it whole;
- a step log that is a FIFO, a symbolic link (to /dev/zero too) or larger
  than its run could write (analyse.log_limit): refused at once, naming
  the file, by the analysis and every act.logfile reader - none waits or
  reads it; a step config file linked to /dev/zero is not read at all
  (the report takes the step's recorded config echo);
- echo_difference: the log's config echo against the one the program
  echoed for the step's plan (config_echo): the first item that differs,
  is missing on either side; nothing for a step an older act_certify ran
  (no config_echo), whose INVALID stands.

    python3 tests/python/certify/test_analyse.py [-v]
"""

import os
import shutil
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
import support  # noqa: E402
from certstate import make_step, new_state  # noqa: E402
from act.certify import judge  # noqa: E402

import subprocess  # noqa: E402

from act.certify import analyse  # noqa: E402
from act.logfile import follow, header, reports  # noqa: E402

EXAMPLE = os.path.join(support.REPO, "tests", "golden", "fixtures",
                       "example_storage.log")

FIXTURES = os.path.dirname(EXAMPLE)

# A whole header (act.logfile reads the config blocks and the histogram
# names a real log has).
HEADER = """ACT version 6.7
ACT-STORAGE CONFIGURATION
report-interval-sec: 1
microsecond-histograms: %s

/dev/x model = Acme 1, serial = S-1, firmware = F 2
/dev/y model = unknown, serial = unknown, firmware = unknown
start time = 2026-11-25T10:00:00Z
/dev/x size = 1000 bytes, 16 large blocks, minimum IO size = 512 bytes
/dev/y size = 2048 bytes

DERIVED CONFIGURATION
read-reqs-per-sec: 1

HISTOGRAM NAMES
reads
/dev/x-reads
large-block-writes
/dev/z model = late, serial = late, firmware = late
"""
REPORTS = """after 1 sec:
reads (100 total)
 (00: 0000000090) (01: 0000000008) (02: 0000000002)
/dev/x-reads (100 total)
 (00: 0000000099) (03: 0000000001)
after 2 sec:
reads (300 total)
 (00: 0000000280) (01: 0000000010)
 (05: 0000000010)
large-block-writes (5 total)
 (07: 0000000005)
"""
US_REPORTS = """after 1 sec:
reads (50 total)
 (09: 0000000020) (10: 0000000020) (11: 0000000010)
after 2 sec:
"""


def write(path, text, mode="w"):
    with open(path, mode) as f:
        f.write(text)


def report_config(d, step):
    from act.certify import summary
    return summary.step_config_items(d, step)


class Analyse(support.TempDir):
    PREFIX = "act-analyse-test-"

    def test_readers(self):
        td = self.td
        log = os.path.join(td, "a.log")
        write(log, HEADER % "no" + REPORTS +
              "ERROR: one\nx\nERROR: two\nstopped by signal SIGINT after 2 "
              "sec\nERROR: three\n")
        self.assertEqual(({
                         "/dev/x": {"model": "Acme 1", "serial": "S-1",
                                    "firmware": "F 2"},
                         "/dev/y": {"model": "unknown", "serial": "unknown",
                         "firmware": "unknown"}},
                         {"/dev/x": 1000, "/dev/y": 2048},
                          "2026-11-25T10:00:00Z"),
                         header.log_identity(log), "log_identity")
        self.assertEqual(({}, {}, None),
                         header.log_identity(os.path.join(td, "none")),
                         "log_identity of no log")
        self.assertEqual(2, follow.last_report(log), "log_last_report")
        self.assertEqual(0, follow.last_report(
                            write(os.path.join(td, "h.log"), HEADER % "no") or
                            os.path.join(td, "h.log")),
                         "log_last_report of a header only")
        self.assertEqual(0, follow.last_report(os.path.join(td, "none")),
                         "log_last_report of no log")
        self.assertEqual([
            "ERROR: two", "stopped by signal SIGINT after 2 sec",
            "ERROR: three"], reports.last_errors(log),
            "log_errors: the last three")
        self.assertEqual(["ERROR: three"], reports.last_errors(log, 1),
                         "log_errors, limit 1")
        self.assertEqual([], reports.last_errors(os.path.join(td, "x")),
                         "log_errors of no log")

        err = os.path.join(td, "a.err")
        for what, err_text, log_text, want in (
                ("stderr's first ERROR line", "w\nERROR: e1\nERROR: e2\n",
                 "ERROR: l1\n", "ERROR: e1"),
                ("the log's first ERROR line", "warning\nlast words\n\n",
                 "ERROR: l1\nERROR: l2\n", "ERROR: l1"),
                ("stderr's last line", "first\nlast words\n\n", "fine\n",
                 "last words"),
                ("nothing", "", "", "")):
            write(err, err_text)
            write(log, log_text)
            self.assertEqual(want, reports.first_error(err, log),
                             "first_error: %s" % what)
        self.assertEqual("",
                         reports.first_error(os.path.join(td, "x"),
                                             os.path.join(td, "y")),
                         "first_error without files")

    def test_follower(self):
        td = self.td
        for micro, reports, want_points in (
                ("no", REPORTS, [(1, 100, 10), (2, 300, 20)]),
                ("yes", US_REPORTS, [(1, 50, 10)])):
            log = os.path.join(td, "f.log")
            write(log, "")
            f = follow.LogFollower(log)
            f.poll()
            self.assertEqual(None, f.window(60), "LogFollower (%s): nothing "
                             "yet" % micro)
            text = HEADER % micro + reports
            for cut in range(0, len(text), 7):     # cut inside lines
                write(log, text[cut:cut + 7], "a")
                f.poll()
            self.assertEqual(want_points, list(f.points),
                             "LogFollower, microsecond-histograms %s: (sec, "
                             "reads, over 1 ms)" % micro)
        f = follow.LogFollower(os.path.join(td, "w.log"))
        write(f.path, HEADER % "no" + REPORTS)
        f.poll()
        self.assertEqual((5.0, 1), f.window(1), "window(1): the last second")
        self.assertEqual((100.0 * 20 / 300, 2), f.window(60),
                         "window(60): since the start")
        f = follow.LogFollower(os.path.join(td, "none.log"))
        f.poll()
        self.assertEqual(None, f.window(60), "LogFollower of no log")

    def test_errors(self):
        td = self.td
        bad = os.path.join(td, "bad.log")
        write(bad, "hello\n")
        self.assertEqual("error: %s is not an ACT log: no 'ACT "
                         "version' line" % bad,
                         analyse.analyse_log(bad, 3600, False).error,
                         "the analysis error of a file that is no log")
        odd = os.path.join(FIXTURES, "odd_end.log")
        self.assertEqual("error: could not find 8 seconds of data in %s / "
                         "note: slice of 8 sec is longer than the run (7 "
                         "sec): no slice is complete; use a shorter -t"% odd,
                         analyse.analyse_log(odd, 7, False).error,
                         "the analysis error when no slice fits: its note too")

    def test_analyse(self):
        td = self.td
        log = os.path.join(td, "01-test1-target-1x.log")
        shutil.copy(EXAMPLE, log)
        plot = os.path.join(td, "p.svg")

        def no_program(*args, **kwargs):
            raise AssertionError("a program was run: %r" % (args,))
        saved = subprocess.Popen
        subprocess.Popen = no_program
        try:
            a = analyse.analyse_log(log, 3600, False, plot)
        finally:
            subprocess.Popen = saved
        self.assertEqual((1, ["the run ended before one 3600-second "
                              "slice: analysed in 1-second slices"]),
                         (a.slice_sec, a.notes),
                         "analyse_log, a 10-second run "
                         "and a 3600-second slice: the slice and the note")
        doc = a.doc or {}
        self.assertEqual(("act_latency/1", True, 10),
                         (doc.get("format"), doc.get("complete"),
                          doc.get("ran_sec")),
                         "analyse_log: the verdict document")
        self.assertTrue((doc.get("check") or {}).get("result") in ("PASS",
                                                                   "FAIL"),
                        "%s\n%s"
                        % ("analyse_log: no check result",
                           repr(doc.get("check"))))
        self.assertEqual(None, a.error, "analyse_log: no error")
        self.assertTrue((a.table
                         or "").split("\n")[0].strip().startswith("reads"),
                        "%s\n%s"
                        % ("analyse_log: the table does not start with its "
                           "heading", a.table))
        self.assertTrue("<svg" in (a.svg or ""), "analyse_log: no plot")
        self.assertEqual(a.svg, open(plot).read(), "analyse_log: the plot "
                         "file")
        self.assertEqual(None, a.stop, "analyse_log of a complete run: no "
                         "stop")
        self.assertEqual("no log", analyse.analyse_log(
                                   os.path.join(td, "none.log"), 3600,
                                                       False).error,
                         "analyse_log of a missing log")
        for name, kind in (("stopped_lag.log", "host-limit"),
                           ("stopped_sigint.log", "signal")):
            self.assertEqual(kind,
                             analyse.analyse_log(os.path.join(FIXTURES, name),
                                                 1,
                                                 False).stop,
                             "analyse_log of %s: the kind of stop" % name)
        a = analyse.analyse_log(log, 2, True)
        self.assertEqual((2, []), (a.slice_sec, a.notes),
                         "analyse_log, --stress and a slice that fits: no "
                         "note")
        self.assertTrue(((a.doc or {}).get("check") or {}).get("stress"),
                        "%s\n%s"
                        % ("analyse_log --stress: not judged as a stress test",
                           repr((a.doc or {}).get("check"))))

        step = make_step(status="done", slice_sec=1, files={
            "log": os.path.basename(log), "plot": "01.svg"},
            devices=["/tmp/exdev/dev_x"], reads_per_sec=4000,
            writes_per_sec=2000, duration_sec=10)
        # the program's echo for the step's plan (precheck): the log's own
        with open(log, "rb") as f:
            h = header.scan_header(f)
        step.config_echo = h.items(h.config)
        state = new_state(step.devices)
        state.steps = [step]
        cache = {}
        first = analyse.step_analysis(td, state, step, cache)
        self.assertEqual([], first.log_errors, "step_analysis: the log's last "
                         "errors")
        self.assertEqual(None, first.echo_difference, "step_analysis: the log "
                         "echoes the plan")
        self.check_echo(log, step)
        self.assertTrue(analyse.step_analysis(td, state, step, cache) is first,
                        "step_analysis analysed an unchanged log again")
        write(log, "ERROR: late\n", "a")
        again = analyse.step_analysis(td, state, step, cache)
        self.assertTrue(again is not first, "step_analysis kept the analysis "
                        "of a log that changed")
        self.assertEqual(["ERROR: late"], again.log_errors,
                         "step_analysis: the new error line")
        self.assertEqual(analyse.StepAnalysis(),
                         analyse.step_analysis(td, state,
                                               step.copy(status="planned"),
                                               cache),
                         "step_analysis of a planned step: none")

    def test_plot_replaced(self):
        """A step's plot is replaced, never rewritten in place (the live
        report redraws it while the step runs): a reader of the old .svg - a
        browser, a copy - reads all of it; no temporary file is left."""
        td = self.td
        d = os.path.join(td, "plot")
        os.mkdir(d)
        log = os.path.join(d, "01.log")
        shutil.copy(EXAMPLE, log)
        plot = os.path.join(d, "01.svg")
        first = analyse.analyse_log(log, 1, False, plot).svg
        with open(plot) as reader:
            ino = os.fstat(reader.fileno()).st_ino
            second = analyse.analyse_log(log, 5, False, plot).svg
            self.assertTrue(first and second and first != second,
                            "the two plots are the same")
            got = reader.read()
            self.assertTrue(got == first, "a reader of the plot drawn before "
                            "does not read it whole: %d bytes of %d, the "
                            "same: %s"
                            % (len(got), len(first), got == first[:len(got)]))
        self.assertTrue(os.stat(plot).st_ino != ino, "the plot was rewritten "
                        "in place")
        self.assertEqual(second, open(plot).read(), "the plot now")
        self.assertEqual(["01.log", "01.svg"], sorted(os.listdir(d)),
                         "no temporary file left")

    def test_untrusted_logs(self):
        """A campaign directory from elsewhere (--compare, --report): a step
        log that is a FIFO, a symbolic link (to /dev/zero, or to a good log),
        or a file larger than the step's run could write is refused - its
        analysis says why, naming it - without waiting, and without reading
        it: every reader of act.logfile gives its "can't read" answer."""
        td = self.td
        import time
        from act.logfile import ioerrors
        d = os.path.join(td, "untrusted")
        os.mkdir(d)
        step = make_step(status="done", slice_sec=1, files={
            "log": "01.log", "plot": "01.svg", "config": "01.conf"},
            devices=["/tmp/exdev/dev_x"], reads_per_sec=4000,
            writes_per_sec=2000, duration_sec=2)
        state = new_state(step.devices)
        state.steps = [step]
        log = os.path.join(d, "01.log")
        limit = analyse.log_limit(step)
        self.assertTrue(limit < 64 << 20, "log_limit of a 2-second "
                        "step: %d" % limit)
        self.assertGreater(analyse.log_limit(step.copy(duration_sec=86400)),
                           1 << 30, "log_limit of a 24-hour step is under "
                           "1 GiB")

        def fifo():
            os.mkfifo(log)

        def zero():
            os.symlink("/dev/zero", log)

        def link():
            os.symlink(EXAMPLE, log)

        def huge():
            shutil.copy(EXAMPLE, log)
            os.truncate(log, limit + 1)
        for what, make, why in (
                ("a FIFO", fifo, "it is a FIFO, not a regular file"),
                ("a link to /dev/zero", zero,
                 "it is a symbolic link (not followed)"),
                ("a link to a log", link, "it is a symbolic link (not "
                 "followed)"),
                ("larger than its run could write", huge,
                 "it is larger (%d bytes) than it can be (at most %d)"
                 % (limit + 1, limit))):
            make()
            t0 = time.monotonic()
            a = analyse.analyse_step_log(d, state, step, plot=False)
            self.assertEqual("error: cannot open the log %s: %s" % (log, why),
                             a.error, "a step log %s: the analysis "
                             "error" % what)
            self.assertEqual((None, None), (a.doc, a.io_errors),
                             "a step log %s: no document, no I/O count" % what)
            if what != "larger than its run could write":
                self.assertEqual([], a.log_errors, "a step log %s: no errors "
                                 "read" % what)
                self.assertEqual(({}, {}, None), header.log_identity(log),
                                 "a step log %s: no identity" % what)
                self.assertEqual(0, follow.last_report(log),
                                 "a step log %s: no last report" % what)
                self.assertEqual(False, follow.LogFollower(log).poll(),
                                 "a step log %s: the follower can't "
                                 "read it" % what)
                self.assertEqual(({}, None), report_config(d, step),
                                 "a step log %s: no config echo" % what)
                self.assertEqual(None, ioerrors.count_io_errors(log),
                                 "a step log %s: no I/O count" % what)
            self.assertTrue(time.monotonic() - t0 < 10,
                            "a step log %s: "
                            "%.1f s" % (what, time.monotonic() - t0))
            os.unlink(log)
        os.symlink("/dev/zero", os.path.join(d, "01.conf"))
        self.assertEqual(({"a": "1"}, "print-config"),
                         report_config(d, step.copy(config_echo={"a": "1"})),
                         "a step config that links to /dev/zero: not read (a "
                         "step's config is its recorded echo)")

    def check_echo(self, log, step):
        """A log whose echoed configuration is not the one the program echoed
        for the step's plan (its --print-config before the run: the step's
        config_echo) - DIR/base.conf edited during the run, another program -
        makes the step INVALID, naming the first difference - never PASS,
        whatever the run did; the campaign is not certified. A step an older
        act_certify ran has no recorded echo: nothing to compare, and an
        INVALID it was judged then stands."""
        echo = step.config_echo
        for what, change, want in (
                ("reads", {"read-reqs-per-sec": "2000"}, "the log says "
                 "read-reqs-per-sec 4000, the plan 2000"),
                ("duration", {"test-duration-sec": "86400"}, "the log says "
                 "test-duration-sec 10, the plan 86400"),
                ("devices", {"device-names": "/tmp/exdev/dev_x /b"}, "the log "
                 "says device-names /tmp/exdev/dev_x, the plan "
                 "/tmp/exdev/dev_x /b"),
                ("an item the plan has not", {"record-bytes": None}, "the log "
                 "says record-bytes 1536, the plan has none"),
                ("an item the log has not", {"no-such-item": "1"}, "the log "
                 "says no no-such-item, the plan 1")):
            planned = {k: v for k, v in dict(echo, **change).items()
                       if v is not None}
            s = step.copy(config_echo=planned)
            got = analyse.echo_difference(log, s)
            self.assertEqual(want, got, "echo_difference: " + what)
            a = analyse.StepAnalysis(echo_difference=got, doc={
                "complete": True, "check": {"result": "PASS"}})
            s.exit_status = 0
            self.assertEqual((judge.RESULT_INVALID, want),
                             judge.judge_step(s, a),
                             "judge_step: %s: INVALID, never PASS"% what)
            s.update(status="done", result=judge.RESULT_INVALID, message=want,
                     test=1, load=1)
            st = new_state(s.devices)
            st.steps = [s]
            v = judge.campaign_verdict(st)
            self.assertEqual(("not certified", 1),
                             (v["status"], v["exit_status"]),
                             "campaign_verdict: %s: not certified" % what)
        text = open(log).read()
        no_dev = log + ".nodev"
        write(no_dev, text.replace("num-devices: 1\n", ""))
        self.assertEqual("the log says no num-devices, the plan 1",
                         analyse.echo_difference(no_dev, step),
                         "echo_difference: no num-devices")
        self.assertEqual(None, analyse.echo_difference(log + ".none", step),
                         "echo_difference: no log")
        old = step.copy()
        del old.config_echo
        self.assertEqual(None, analyse.echo_difference(no_dev, old),
                         "echo_difference of a step an older act_certify ran")
        self.assertEqual("was INVALID",
                         analyse.echo_difference(no_dev, old.copy(
                         result="INVALID", message="was INVALID")),
                         "echo_difference of a step an older act_certify "
                         "judged INVALID")


if __name__ == "__main__":
    unittest.main()
